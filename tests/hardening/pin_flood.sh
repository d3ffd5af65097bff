#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pin_flood.sh UTARGETD TOOLS_DIR: PIN_SESSIONS (default 1000) sessions from
# 250 source addresses (127.1.0.1 .. 127.1.0.250), each sending as many
# 1 MiB WRITEs as its window allows and never their Data-Out
# (tests/tools/pinload.c), against utargetd with max_buffer_memory_mib 256,
# max_session_data_mib 8 and data_out_timeout 60. Every session must log in;
# the target may accept (R2T) at most 256 MiB of such writes in all and 8 MiB
# per session (the rest ends with TASK SET FULL or BUSY); the daemon must
# survive, stop cleanly and leave no sanitizer report. The target's VmRSS
# before and while everything is held is printed.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
hd_config '"max_buffer_memory_mib": 256, "max_session_data_mib": 8, "data_out_timeout": 60'
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT"
"$HD_TOOLS/pinload" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" \
	--sessions "${PIN_SESSIONS:-1000}" --sources 250 --len 1048576 --pid "$HD_PID" \
	--hold-ms 1000 --max-pinned-mib 256 --share-mib 8
rc=$?
hd_alive || hd_fail "utargetd died under the pinned-write flood"
hd_stop
[ "$rc" = 0 ] || hd_fail "pinned-write flood failed (see above)"
echo "pin_flood: passed"
