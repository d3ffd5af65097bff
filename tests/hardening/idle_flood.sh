#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# idle_flood.sh UTARGETD TOOLS_DIR: IDLE_CONNS (default 1000) TCP connections
# that never log in, against utargetd with login_timeout 5 s, while a real
# initiator does verified I/O (tests/tools/idleconns.c). Every idle connection
# must be closed within 5 s + IDLE_SLACK (default 5 s), no I/O may fail or take
# longer than IDLE_MAX_STALL_MS (default 2000), and a fresh login must work.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
hd_config '"login_timeout": 5'
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT, login_timeout 5 s"
"$HD_TOOLS/idleconns" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" --lun 0 \
	--conns "${IDLE_CONNS:-1000}" --login-timeout 5 --slack "${IDLE_SLACK:-5}" \
	--max-stall-ms "${IDLE_MAX_STALL_MS:-2000}" --pid "$HD_PID"
rc=$?
hd_alive || hd_fail "utargetd died during the flood"
hd_stop
[ "$rc" = 0 ] || hd_fail "idle-connection flood failed (see above)"
echo "idle_flood: passed"
