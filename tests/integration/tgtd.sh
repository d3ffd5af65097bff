# SPDX-License-Identifier: GPL-2.0-or-later
# tgtd.sh: a private tgtd as the remote target of the iscsi gateway
# back-store (sourced after lib.sh, bash).
#
#   ut_tgtd_start IMG [PARAMS]  tgtd -f on 127.0.0.1 at a free port in
#                         3900-3949 (UT_TGT_PORT_MIN/UT_TGT_PORT_MAX), its
#                         control socket numbered like the port (-C, so it
#                         never meets the system's tgtd), one target
#                         $UT_TGT_IQN with IMG as LUN 1 (LUN 0 is tgtd's
#                         controller), bound to 127.0.0.1; PARAMS: tgtadm
#                         --params of the LUN (e.g. thin_provisioning=1).
#                         Sets $UT_TGT_PORT, $UT_TGT_PID and $UT_TGT_URL
#                         (iscsi://127.0.0.1:PORT/IQN/1); log $UT_TMP/tgtd.log
#   ut_tgtd_restart       the same tgtd again (same port, image, params)
#   ut_tgtd_kill          SIGKILL, as a crash
#   ut_tgtd_stop          the orderly way (delete the target and the
#                         system), then signals; ut_cleanup's trap calls it
UT_TGT_IQN=iqn.2026-12.org.utarget:remote
UT_TGT_PID=
UT_TGT_PORT=
UT_TGT_IMG=
UT_TGT_PARAMS=

ut_tgtd_pick_port() {
	local lo=${UT_TGT_PORT_MIN:-3900} hi=${UT_TGT_PORT_MAX:-3949} p
	for ((p = lo; p <= hi; p++)); do
		ut_port_free "$p" || continue
		[ -e "/var/run/tgtd/socket.$p" ] && continue
		UT_TGT_PORT=$p
		return 0
	done
	ut_fail "no free TCP port in $lo-$hi for tgtd"
}

ut_tgtd_launch() {
	local i A
	command -v tgtd >/dev/null || ut_fail "tgtd not installed (tgt)"
	tgtd -f -C "$UT_TGT_PORT" --iscsi "portal=127.0.0.1:$UT_TGT_PORT" >>"$UT_TMP/tgtd.log" 2>&1 &
	UT_TGT_PID=$!
	for i in $(seq 100); do
		kill -0 "$UT_TGT_PID" 2>/dev/null || ut_fail "tgtd exited at start ($(tail -5 "$UT_TMP/tgtd.log"))"
		tgtadm -C "$UT_TGT_PORT" --op show --mode sys >/dev/null 2>&1 &&
			! ut_port_free "$UT_TGT_PORT" && break
		sleep 0.1
	done
	A=(tgtadm -C "$UT_TGT_PORT" --lld iscsi)
	"${A[@]}" --op new --mode target --tid 1 -T "$UT_TGT_IQN" || ut_fail "tgtadm: new target"
	"${A[@]}" --op new --mode logicalunit --tid 1 --lun 1 -b "$UT_TGT_IMG" ||
		ut_fail "tgtadm: new LUN"
	if [ -n "$UT_TGT_PARAMS" ]; then
		"${A[@]}" --op update --mode logicalunit --tid 1 --lun 1 --params "$UT_TGT_PARAMS" ||
			ut_fail "tgtadm: LUN params $UT_TGT_PARAMS"
	fi
	"${A[@]}" --op bind --mode target --tid 1 -I 127.0.0.1 || ut_fail "tgtadm: bind"
	UT_TGT_URL="iscsi://127.0.0.1:$UT_TGT_PORT/$UT_TGT_IQN/1"
	echo "tgtd pid $UT_TGT_PID: $UT_TGT_URL${UT_TGT_PARAMS:+ ($UT_TGT_PARAMS)}"
}

ut_tgtd_start() {
	UT_TGT_IMG=${1:?image}
	UT_TGT_PARAMS=${2:-}
	ut_tgtd_pick_port
	trap 'ut_tgtd_stop; ut_cleanup' EXIT
	ut_tgtd_launch
}

ut_tgtd_restart() {
	ut_port_free "$UT_TGT_PORT" || sleep 1
	ut_tgtd_launch
}

ut_tgtd_reap() {
	local i
	for i in $(seq 50); do
		kill -0 "$UT_TGT_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$UT_TGT_PID" 2>/dev/null
	wait "$UT_TGT_PID" 2>/dev/null
	UT_TGT_PID=
	# tgtd leaves its control socket and lock file behind
	rm -f "/var/run/tgtd/socket.$UT_TGT_PORT" "/var/run/tgtd/socket.$UT_TGT_PORT.lock"
}

ut_tgtd_kill() {
	[ -n "$UT_TGT_PID" ] || return 0
	kill -KILL "$UT_TGT_PID" 2>/dev/null
	ut_tgtd_reap
}

ut_tgtd_stop() {
	[ -n "$UT_TGT_PID" ] || return 0
	if kill -0 "$UT_TGT_PID" 2>/dev/null; then
		tgtadm -C "$UT_TGT_PORT" --lld iscsi --op delete --mode target --tid 1 --force \
			>/dev/null 2>&1
		tgtadm -C "$UT_TGT_PORT" --op delete --mode system >/dev/null 2>&1
		kill -TERM "$UT_TGT_PID" 2>/dev/null
	fi
	ut_tgtd_reap
}
