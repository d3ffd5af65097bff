# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: helpers for the integration tests (sourced, bash).
#
#   ut_init UTARGETD      fresh temporary directory ($UT_TMP), cleanup trap
#   ut_pick_port          a free TCP port in 3400-3499 -> $UT_PORT (the range
#                         can be moved with UT_PORT_MIN/UT_PORT_MAX)
#   ut_pick_port2         a second free port -> $UT_PORT2 (@PORT2@ in configs)
#   ut_write_config F     a config from stdin into $UT_TMP/F (sed @TMP@ @PORT@)
#   ut_start CONFIG [ARGS]  utargetd -f -c CONFIG --listen 127.0.0.1:$UT_PORT
#                         ARGS; waits (bounded) until it is ready and accepts
#                         connections; its stderr goes to $UT_LOG. With
#                         UT_OWN_PORTALS=1 the config's own portals are used
#                         (no --listen; they must include 127.0.0.1:$UT_PORT)
#   ut_stop               SIGTERM, bounded wait, exit status must be 0, no
#                         sanitizer report in the log
#   ut_run_client OUT CMD  run a client; if utargetd dies meanwhile, stop the
#                         client and fail at once
#   ut_fail MSG           print MSG and the daemon log, exit 1
#   ut_has NAME RE        a line of $UT_TMP/NAME.out matches RE, else fail
#   ut_num NAME KEY       the number after KEY in $UT_TMP/NAME.out
#   ut_hold NAME SECS CMD  run a tool that prints "ready" and then holds its
#                         session until $UT_TMP/stop exists (its -H option),
#                         output in $UT_TMP/NAME.out; fail unless it is ready
#                         within SECS; ut_release NAME lets it go and fails
#                         on its exit status
#   ut_cu_run URL [URL2]  libiscsi's iscsi-test-cu against URL (and URL2 as
#                         the second path), counted by the project's counter
#                         tests/tools/cu_count.py (CU_FLAGS, CU_TESTS, CU_LOG,
#                         CU_TIMEOUT; prints "FAILED  NAME", "SKIPPED NAME"
#                         and "cu: P passed, S skipped, F failed")
#   ut_cu_verdicts LOG    "VERDICT SUITE.TEST" per test of an iscsi-test-cu
#                         -v log; ut_cu_names LOG VERDICT: the names only
# The tests print what they check; any failure exits 1. With UT_KEEP=1 in
# the environment the temporary directory (configs, logs) is kept.
set -u

UT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
UT_PID=
UT_START_WAIT=${UT_START_WAIT:-60}
UT_STOP_WAIT=${UT_STOP_WAIT:-60}
UT_TARGET=iqn.2026-12.org.utarget:test

ut_init() {
	UTARGETD=${1:?usage: ut_init UTARGETD}
	case $UTARGETD in
	/*) ;;
	*) UTARGETD=$PWD/$UTARGETD ;;
	esac
	[ -x "$UTARGETD" ] || { echo "FAIL: $UTARGETD is not an executable"; exit 1; }
	UT_TMP=$(mktemp -d /tmp/utarget-it.XXXXXX)
	UT_LOG=$UT_TMP/utargetd.log
	trap ut_cleanup EXIT
}

ut_cleanup() {
	if [ -n "$UT_PID" ] && kill -0 "$UT_PID" 2>/dev/null; then
		kill -KILL "$UT_PID" 2>/dev/null
		wait "$UT_PID" 2>/dev/null
	fi
	UT_PID=
	if [ -n "${UT_KEEP:-}" ]; then
		echo "kept $UT_TMP (UT_KEEP set)"
	elif [ -n "${UT_TMP:-}" ]; then
		rm -rf "$UT_TMP"
	fi
}

ut_fail() {
	echo "FAIL: $*"
	if [ -s "${UT_LOG:-/nonexistent}" ]; then
		echo "---- utargetd log (last 60 lines) ----"
		tail -n 60 "$UT_LOG"
		echo "--------------------------------------"
	fi
	exit 1
}

# True when nothing uses TCP port $1 (listening or connected).
ut_port_free() {
	[ -z "$(ss -Htan "( sport = :$1 or dport = :$1 )" 2>/dev/null)" ]
}

ut_pick_port() {
	local lo=${UT_PORT_MIN:-3400} hi=${UT_PORT_MAX:-3499} n i p
	n=$((hi - lo + 1))
	local start=$((RANDOM % n))
	for ((i = 0; i < n; i++)); do
		p=$((lo + (start + i) % n))
		if [ "$p" != "${UT_PORT_SKIP:-}" ] && ut_port_free "$p"; then
			UT_PORT=$p
			return 0
		fi
	done
	ut_fail "no free TCP port in $lo-$hi"
}

ut_pick_port2() {
	local first=${UT_PORT:-}
	[ -n "$first" ] || { ut_pick_port; first=$UT_PORT; }
	UT_PORT_SKIP=$first ut_pick_port
	UT_PORT2=$UT_PORT
	UT_PORT=$first
}

# stdin -> $UT_TMP/$1 with @TMP@ and @PORT@ substituted
ut_write_config() {
	sed -e "s|@TMP@|$UT_TMP|g" -e "s|@PORT@|${UT_PORT:-3260}|g" \
		-e "s|@PORT2@|${UT_PORT2:-3261}|g" >"$UT_TMP/$1"
}

ut_sanitizer_check() {
	if grep -qE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|LeakSanitizer" "$1"; then
		echo "---- sanitizer report ----"
		grep -E -A30 "ERROR: AddressSanitizer|runtime error:|LeakSanitizer" "$1" | head -80
		ut_fail "sanitizer report in the utargetd log"
	fi
}

# Can we open a TCP connection to 127.0.0.1:$1?
ut_can_connect() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

ut_start() {
	local cfg=$1 i
	shift
	[ -n "${UT_PORT:-}" ] || ut_pick_port
	if [ -n "${UT_OWN_PORTALS:-}" ]; then
		"$UTARGETD" -f -c "$cfg" --log-level info "$@" >>"$UT_LOG" 2>&1 &
	else
		"$UTARGETD" -f -c "$cfg" --listen "127.0.0.1:$UT_PORT" --log-level info "$@" \
			>>"$UT_LOG" 2>&1 &
	fi
	UT_PID=$!
	for ((i = 0; i < UT_START_WAIT * 10; i++)); do
		if ! kill -0 "$UT_PID" 2>/dev/null; then
			wait "$UT_PID"
			local rc=$?
			UT_PID=
			ut_fail "utargetd exited with status $rc during start-up"
		fi
		if grep -q "utargetd ready" "$UT_LOG" 2>/dev/null && ut_can_connect "$UT_PORT"; then
			echo "utargetd (pid $UT_PID) ready on 127.0.0.1:$UT_PORT"
			return 0
		fi
		sleep 0.1
	done
	ut_fail "utargetd not ready after ${UT_START_WAIT}s"
}

ut_stop() {
	local i rc
	[ -n "$UT_PID" ] || ut_fail "ut_stop: utargetd is not running"
	if ! kill -0 "$UT_PID" 2>/dev/null; then
		wait "$UT_PID"
		rc=$?
		UT_PID=
		ut_sanitizer_check "$UT_LOG"
		ut_fail "utargetd had already exited (status $rc) before SIGTERM"
	fi
	kill -TERM "$UT_PID"
	for ((i = 0; i < UT_STOP_WAIT * 10; i++)); do
		kill -0 "$UT_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$UT_PID" 2>/dev/null; then
		kill -ABRT "$UT_PID" 2>/dev/null
		sleep 1
		ut_fail "utargetd did not stop within ${UT_STOP_WAIT}s of SIGTERM"
	fi
	wait "$UT_PID"
	rc=$?
	UT_PID=
	ut_sanitizer_check "$UT_LOG"
	[ "$rc" = 0 ] || ut_fail "utargetd exited with status $rc after SIGTERM (want 0)"
	echo "utargetd stopped cleanly (status 0)"
}

# iscsi-test-cu runs and their per-test verdicts ("passed", "skipped": a CUnit
# pass after a [SKIPPED] message of the test itself, or "failed"): all counted
# by tests/tools/cu_count.py (its header says how it reads a log).
UT_CU_COUNT=$UT_ROOT/tests/tools/cu_count.py

ut_cu_run() {
	python3 "$UT_CU_COUNT" run "$@"
}

ut_cu_verdicts() {
	python3 "$UT_CU_COUNT" verdicts "$1"
}

# Names of the tests with verdict $2 (passed|skipped|failed) in log $1.
ut_cu_names() {
	python3 "$UT_CU_COUNT" names "$2" "$1"
}

# SIGTERM to a process and all its descendants (children first: timeout(1)
# runs its command in a process group of its own).
ut_kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do
		ut_kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null
}

# ut_run_client OUT CMD...: run a client with
# stdout+stderr to OUT, and stop it if utargetd dies meanwhile, so a crash
# fails the test at once instead of after the client's own timeout.
ut_run_client() {
	local out=$1 cpid rc
	shift
	"$@" >"$out" 2>&1 &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		if [ -n "$UT_PID" ] && ! kill -0 "$UT_PID" 2>/dev/null; then
			ut_kill_tree "$cpid"
			wait "$cpid"
			cat "$out"
			ut_stop
		fi
		sleep 0.5
	done
	wait "$cpid"
	rc=$?
	return $rc
}

ut_has() {
	grep -qE -- "$2" "$UT_TMP/$1.out" || ut_fail "$1: no line /$2/: $(cat "$UT_TMP/$1.out")"
}

ut_num() {
	grep -oE -- "$2 [0-9]+" "$UT_TMP/$1.out" | head -n 1 | awk '{print $NF}'
}

UT_HOLD_PID=
ut_hold() {
	local name=$1 secs=$2 k
	shift 2
	rm -f "$UT_TMP/stop"
	"$@" -H "$UT_TMP/stop" >"$UT_TMP/$name.out" 2>&1 &
	UT_HOLD_PID=$!
	for ((k = 0; k < secs * 10; k++)); do
		grep -qE "^(ready|FAIL)" "$UT_TMP/$name.out" && break
		sleep 0.1
	done
	grep -q "^ready$" "$UT_TMP/$name.out" ||
		{ touch "$UT_TMP/stop"; ut_fail "$name: $(cat "$UT_TMP/$name.out")"; }
}

ut_release() {
	touch "$UT_TMP/stop"
	wait "$UT_HOLD_PID" || ut_fail "$1: $(cat "$UT_TMP/$1.out")"
	UT_HOLD_PID=
}
