#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/busy_poll.sh [BUILD_DIR]: what the reactors' adaptive busy polling (iscsi.busy_poll_us,
# docs/config.md) buys and costs (docs/performance.md). Starts utargetd alone on 127.0.0.1 with a
# 256 MiB file LUN (written, in the page cache) as LUN 0 and a null LUN as LUN 1, then:
#   - for POLL_ROUNDS rounds, for each budget of POLL_BUDGETS in turn (set live with
#     `utarget settings set iscsi.busy_poll_us=N`, so the budgets alternate within a round):
#     the cases of POLL_CASES, bench/ut-load 4K random I/O for POLL_SECONDS each: qd1-null (read
#     at QD1 from the null LUN), qd1-file (the same from the file LUN), qd32-file (read at
#     QD32 from the file LUN), qd32-write-file (write at QD32 to the file LUN), floor-qd1
#     (no utargetd: bench/rtt_floor, the loopback round trip of a QD1 4K read with a server
#     that spins for the budget before it sleeps, the floor under qd1-null); one line per
#     run: IOPS, latency mean / p99 (µs), utargetd CPU per IO (/proc/PID/stat utime+stime,
#     all threads; for floor-qd1 the server's CPU per round trip);
#   - idle CPU: utargetd's CPU over POLL_IDLE_S seconds with no session, then with
#     POLL_SESSIONS idle sessions (tests/tools/rawlogin --hold), at each budget of
#     POLL_IDLE_BUDGETS.
# Then a summary: the median of the rounds per budget and case.
#
# Environment: POLL_BUDGETS ["0 10 25 50 100 200"], POLL_CASES ["qd1-null qd1-file qd32-file"],
# POLL_ROUNDS [3], POLL_SECONDS [4],
# POLL_IDLE_S [30] (0 skips the idle part), POLL_IDLE_BUDGETS [0 and the last of POLL_BUDGETS],
# POLL_SESSIONS [100], POLL_PORT [3562],
# BENCH_TMPDIR [/var/tmp].
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
BUDGETS=${POLL_BUDGETS:-0 10 25 50 100 200}
CASES=${POLL_CASES:-qd1-null qd1-file qd32-file}
ROUNDS=${POLL_ROUNDS:-3}
SECS=${POLL_SECONDS:-4}
IDLE_S=${POLL_IDLE_S:-30}
NSESS=${POLL_SESSIONS:-100}
IDLE_BUDGETS=${POLL_IDLE_BUDGETS:-0 ${BUDGETS##* }}
PORT=${POLL_PORT:-3562}
UTARGETD=$BUILD/src/daemon/utargetd
UTARGET=$BUILD/src/cli/utarget
UT_LOAD=$BUILD/bench/ut-load
RAW=$BUILD/tests/tools/rawlogin
RTT=$BUILD/bench/rtt_floor
IQN=iqn.2026-12.org.utarget:busypoll
bench_need_bins "$UTARGETD" "$UTARGET" "$UT_LOAD" "$RAW" "$RTT"
ulimit -n $((NSESS * 2 + 256))
bench_workdir utarget-poll
head -c 256M /dev/urandom >"$WORK/lun.img"
bench_pagelock "$WORK/pagelock.log" "$WORK/lun.img" # (run.sh: DAMON pageout)
bench_file_null_config "$WORK/utargetd.json" "$IQN" "$PORT" "$WORK/lun.img" '{ "nop_in_interval": 30 }'
bench_start_utargetd "$WORK/utargetd.json"
budget() { "$UTARGET" -s "$WORK/utargetd.sock" settings set "iscsi.busy_poll_us=$1" >/dev/null; }

# run LABEL LUN QD MODE: one ut-load run; prints "LABEL budget iops mean p99 cpu_per_io"
run() {
	local label=$1 lun=$2 qd=$3 mode=$4 out c0 c1 ios
	c0=$(cpu_ticks "$PID")
	out=$("$UT_LOAD" -m "$mode" -p rand -s 4096 -q "$qd" -t "$SECS" \
		"iscsi://127.0.0.1:$PORT/$IQN/$lun" 2>/dev/null)
	c1=$(cpu_ticks "$PID")
	ios=$(echo "$out" | sed -n 's/.*ios=\([0-9]*\).*/\1/p')
	echo "$out" | awk -v l="$label" -v b="$B" -v ios="$ios" -v dt=$((c1 - c0)) -v hz="$CLK_TCK" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s %s %d %s %s %.2f\n", l, b, v["iops"], v["lat_mean_us"], v["lat_p99_us"],
			dt / hz * 1e6 / ios }'
}

# floor: one rtt_floor run, the same line as run()
floor() {
	"$RTT" --time "$SECS" --spin "$B" | awk -v l="$1" -v b="$B" -v t="$SECS" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s %s %d %s %s %.2f\n", l, b, v["rtts"] / t, v["lat_mean_us"], v["lat_p99_us"],
			v["server_cpu_us"] }'
}

echo "# busy polling, $(bench_stamp), $(nproc) CPUs, ${SECS} s runs, $ROUNDS rounds"
for B in $BUDGETS; do # warm-up: the page cache, the first login
	budget "$B"
	"$UT_LOAD" -m read -p rand -s 4096 -q 32 -t 1 "iscsi://127.0.0.1:$PORT/$IQN/0" >/dev/null 2>&1
	break
done
for r in $(seq "$ROUNDS"); do
	for B in $BUDGETS; do
		budget "$B"
		for c in $CASES; do
			case $c in
			qd1-null) run "$c" 1 1 read ;;
			qd1-file) run "$c" 0 1 read ;;
			qd32-file) run "$c" 0 32 read ;;
			qd32-write-file) run "$c" 0 32 write ;;
			floor-qd1) floor "$c" ;;
			*) echo "busy_poll: unknown case $c" >&2; exit 2 ;;
			esac
		done
	done
done | tee "$WORK/runs.txt"
echo
echo "| budget (µs) | case | IOPS | latency mean (µs) | p99 (µs) | utargetd CPU/IO (µs) |"
echo "|---:|---|---:|---:|---:|---:|"
for B in $BUDGETS; do
	for c in $CASES; do
		bench_median_row "$WORK/runs.txt" "$B" "$c"
	done
done
[ "$IDLE_S" -gt 0 ] || exit 0
echo
echo "| budget (µs) | sessions | utargetd CPU over ${IDLE_S} s (% of one core) |"
echo "|---:|---:|---:|"
for B in $IDLE_BUDGETS; do
	budget "$B"
	for s in 0 "$NSESS"; do
		hp=""
		if [ "$s" -gt 0 ]; then
			"$RAW" --addr "127.0.0.1:$PORT" --target "$IQN" --sessions "$s" \
				--hold $((IDLE_S + 10)) >"$WORK/hold.out" 2>&1 &
			hp=$!
			bench_wait_line "$WORK/hold.out" '^holding' 600
			sleep 1
		fi
		c0=$(cpu_ticks "$PID")
		sleep "$IDLE_S"
		c1=$(cpu_ticks "$PID")
		[ -n "$hp" ] && { kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null || true; sleep 1; }
		awk -v b="$B" -v s="$s" -v dt=$((c1 - c0)) -v hz="$CLK_TCK" -v t="$IDLE_S" \
			'BEGIN { printf "| %s | %s | %.2f |\n", b, s, dt / hz / t * 100 }'
	done
done
