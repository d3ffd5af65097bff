# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: helpers for the hardening tests (sourced by bash scripts).
#
#   hd_init UTARGETD TOOLS_DIR   fresh temporary directory ($HD_TMP), cleanup trap
#   hd_config [ISCSI_JSON]       writes $HD_CFG: target $HD_TARGET with LUN 0 =
#                                "good" (64 MiB file), LUN 1 = "fuzz" (16 MiB
#                                file) in $HD_TMP/state; ISCSI_JSON is the body
#                                of the "iscsi" settings object; $HD_EXTRA_TARGETS
#                                (when set) is appended to the "targets" array
#   hd_start                     utargetd -f -c $HD_CFG --listen 127.0.0.1:$HD_PORT
#                                on a free port in 3600-3699 (moved with
#                                UT_PORT_MIN/UT_PORT_MAX, as the integration
#                                tests' lib.sh); waits (bounded)
#                                until it accepts connections; $HD_PID, log $HD_LOG
#   hd_kill9                     SIGKILL the daemon (crash tests)
#   hd_stop                      SIGTERM, bounded wait, exit status 0, no
#                                sanitizer report in the log
#   hd_sanitizer_check           fails on an ASan/UBSan/LSan report in the log
#   hd_fail MSG                  prints MSG and the end of the log, exits 1
set -u

HD_PID=
HD_TARGET=iqn.2026-12.org.utarget:hardening
HD_START_WAIT=${HD_START_WAIT:-60}
HD_STOP_WAIT=${HD_STOP_WAIT:-60}

hd_init() {
	UTARGETD=${1:?usage: hd_init UTARGETD TOOLS_DIR}
	HD_TOOLS=${2:?usage: hd_init UTARGETD TOOLS_DIR}
	[ -x "$UTARGETD" ] || { echo "FAIL: $UTARGETD is not an executable"; exit 1; }
	HD_TMP=$(mktemp -d /tmp/utarget-hd.XXXXXX)
	HD_LOG=$HD_TMP/utargetd.log
	HD_CFG=$HD_TMP/utarget.json
	: >"$HD_LOG"
	trap hd_cleanup EXIT
}

hd_cleanup() {
	if [ -n "$HD_PID" ] && kill -0 "$HD_PID" 2>/dev/null; then
		kill -KILL "$HD_PID" 2>/dev/null
		wait "$HD_PID" 2>/dev/null
	fi
	HD_PID=
	[ -n "${HD_KEEP:-}" ] || rm -rf "${HD_TMP:-/nonexistent}"
}

hd_fail() {
	echo "FAIL: $*"
	if [ -s "${HD_LOG:-/nonexistent}" ]; then
		echo "---- utargetd log (last 40 lines) ----"
		tail -n 40 "$HD_LOG" | cut -c1-300
		echo "--------------------------------------"
	fi
	echo "0 passed, 1 failed"
	exit 1
}

hd_port_free() {
	[ -z "$(ss -Htan "( sport = :$1 or dport = :$1 )" 2>/dev/null)" ]
}

hd_pick_port() {
	local lo=${UT_PORT_MIN:-3600} hi=${UT_PORT_MAX:-3699} n i p start
	n=$((hi - lo + 1))
	start=$((RANDOM % n))
	for ((i = 0; i < n; i++)); do
		p=$((lo + (start + i) % n))
		if hd_port_free "$p"; then
			HD_PORT=$p
			return 0
		fi
	done
	hd_fail "no free TCP port in $lo-$hi"
}

hd_config() {
	local iscsi=${1:-}
	mkdir -p -m 0700 "$HD_TMP/state"
	cat >"$HD_CFG" <<JSON
{
  "version": 1,
  "state_dir": "$HD_TMP/state",
  "log_level": "info",
  "iscsi": { $iscsi },
  "backstores": [
    { "name": "good", "type": "file", "path": "good.img", "size": "64M", "create": true },
    { "name": "fuzz", "type": "file", "path": "fuzz.img", "size": "16M", "create": true }
  ],
  "targets": [
    {
      "name": "$HD_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3600"] } ],
      "luns": [ { "lun": 0, "backstore": "good" }, { "lun": 1, "backstore": "fuzz" } ],
      "demo_mode": { "enabled": true, "read_only": false }
    }${HD_EXTRA_TARGETS:+,
    $HD_EXTRA_TARGETS}
  ]
}
JSON
}

hd_can_connect() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

hd_start() {
	local i
	[ -n "${HD_PORT:-}" ] || hd_pick_port
	# An ASan build keeps freed memory in quarantine (256 MiB by default),
	# which the RSS bounds would take for a leak: keep it small.
	case ${ASAN_OPTIONS:-} in
	*quarantine_size_mb*) ;;
	*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16" ;;
	esac
	"$UTARGETD" -f -c "$HD_CFG" --listen "127.0.0.1:$HD_PORT" --log-level info \
		>>"$HD_LOG" 2>&1 &
	HD_PID=$!
	for ((i = 0; i < HD_START_WAIT * 10; i++)); do
		if ! kill -0 "$HD_PID" 2>/dev/null; then
			wait "$HD_PID"
			local rc=$?
			HD_PID=
			hd_fail "utargetd exited with status $rc during start-up"
		fi
		if hd_can_connect "$HD_PORT"; then
			return 0
		fi
		sleep 0.1
	done
	hd_fail "utargetd did not accept connections within ${HD_START_WAIT}s"
}

hd_sanitizer_check() {
	if grep -qE "ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: ThreadSanitizer" "$HD_LOG"; then
		echo "---- sanitizer report ----"
		grep -E -A30 "ERROR: AddressSanitizer|runtime error:|LeakSanitizer" "$HD_LOG" | head -80
		hd_fail "sanitizer report in the utargetd log"
	fi
}

hd_kill9() {
	[ -n "$HD_PID" ] || hd_fail "hd_kill9: utargetd is not running"
	kill -KILL "$HD_PID" 2>/dev/null
	wait "$HD_PID" 2>/dev/null
	HD_PID=
	hd_sanitizer_check
}

hd_alive() {
	[ -n "$HD_PID" ] && kill -0 "$HD_PID" 2>/dev/null
}

hd_stop() {
	local i rc
	[ -n "$HD_PID" ] || hd_fail "utargetd is not running (it died during the test)"
	kill -TERM "$HD_PID"
	for ((i = 0; i < HD_STOP_WAIT * 10; i++)); do
		kill -0 "$HD_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$HD_PID" 2>/dev/null; then
		kill -ABRT "$HD_PID" 2>/dev/null
		sleep 1
		hd_fail "utargetd did not stop within ${HD_STOP_WAIT}s of SIGTERM"
	fi
	wait "$HD_PID"
	rc=$?
	HD_PID=
	hd_sanitizer_check
	[ "$rc" = 0 ] || hd_fail "utargetd exited with status $rc after SIGTERM (want 0)"
}
