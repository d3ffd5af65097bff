#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# malformed.sh UTARGETD TOOLS_DIR: the malformed-input suite (tests/tools/malformed.c,
# its cases and the RFC 7143 clauses they come from: `malformed --list`) against
# utargetd with a short login timeout and digests allowed. Fails on any case
# whose outcome is not one RFC 7143 allows, if the daemon stops serving, dies,
# does not stop cleanly on SIGTERM, or printed a sanitizer report.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
hd_config '"login_timeout": 3, "header_digest": true, "data_digest": true, "max_sessions": 32'
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT"
"$HD_TOOLS/malformed" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" --lun 1 \
	--pid "$HD_PID" ${MALFORMED_ARGS:-}
rc=$?
hd_alive || hd_fail "utargetd died during the suite"
hd_stop
[ "$rc" = 0 ] || hd_fail "malformed-input cases failed (see above)"
echo "malformed: every case matched; utargetd served throughout and stopped cleanly"
