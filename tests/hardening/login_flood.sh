#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# login_flood.sh UTARGETD TOOLS_DIR: real initiators are served under
# sustained connection floods, with the default caps of the "iscsi" section
# (admission.h; docs/config.md "Connection floods"):
#   a) 1000 idle connections from 127.0.0.1, the initiators' own address
#   b) 1000 idle connections from 250 addresses, 127.1.0.1-127.1.0.250
#   c) 1100 discovery sessions from 127.3.0.1 (over max_sessions, 1024)
# tests/tools/loginflood opens the whole flood, then reopens what the target
# closes at FLOOD_RATE per second (200). While it lasts, 10 times: a login
# from 127.0.0.1 (raw initiator) with a verified 4 KiB WRITE/READ, and
# libiscsi's iscsi-inq (when installed); under c) also a discovery session
# from 127.2.0.1 with SendTargets. Each must succeed within
# FLOOD_MAX_LOGIN_MS (1000). Prints the login times (median, max), the
# connections the target closed, its evictions (its summary line) and RSS.
# Without admission.c, a) and b) fail (64 idle connections blocked every
# login) and so does c) (discovery sessions took max_sessions: 03/02).
. "$(dirname "$0")/lib.sh"
hd_init "$@"
# a descriptor per flood connection (and per discovery session)
ulimit -n 4096 2>/dev/null
[ "$(ulimit -n)" -ge 4096 ] || hd_fail "ulimit -n is $(ulimit -n), 4096 needed (hard limit $(ulimit -Hn))"
hd_config ''
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT, default caps"
RATE=${FLOOD_RATE:-200}
MAXMS=${FLOOD_MAX_LOGIN_MS:-1000}
EXEC=()
if INQ=$(command -v iscsi-inq); then
	EXEC=(--exec "$INQ iscsi://127.0.0.1:$HD_PORT/$HD_TARGET/0")
else
	echo "note: iscsi-inq (libiscsi-bin) not installed: raw initiator only"
fi
failed=

flood() {
	local name=$1
	shift
	echo "== $name"
	"$HD_TOOLS/loginflood" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" --lun 0 \
		--rate "$RATE" --max-login-ms "$MAXMS" --logins 10 --pid "$HD_PID" "${EXEC[@]}" "$@" ||
		failed="$failed $name"
	hd_alive || hd_fail "utargetd died under flood $name"
}

flood a --flood-conns 1000 --flood-src 127.0.0.1
flood b --flood-conns 1000 --flood-src 127.1.0.1-127.1.0.250
flood c --disc-sessions 1100 --disc-src 127.3.0.1 --disc-probe-src 127.2.0.1
hd_stop
line=$(grep "iscsi: admission:" "$HD_LOG" | tail -n 1)
echo "last eviction summary of utargetd: ${line:-none}"
[ -z "$failed" ] || hd_fail "real initiators were not served under flood(s):$failed"
grep -q "iscsi: admission: evicted" "$HD_LOG" || hd_fail "no eviction logged"
echo "login_flood: passed"
