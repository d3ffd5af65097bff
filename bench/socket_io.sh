#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/socket_io.sh [BUILD_DIR]: readv on epoll readiness against receives on the reactors'
# io_uring (iscsi.socket_uring, docs/config.md), A/B (docs/performance.md, section 5). Starts
# utargetd alone on 127.0.0.1 with a 256 MiB file LUN (written, in the page cache) as LUN 0, a
# 256 MiB ram LUN as LUN 1 and a null LUN as LUN 2, then:
#   - for SOCK_ROUNDS rounds, for each variant of SOCK_VARIANTS in turn (epoll, uring: set live
#     with `utarget settings set iscsi.socket_uring=...`; every run is a new session, which
#     takes the setting at its login, so the variants alternate within a round): the cases of
#     SOCK_CASES, bench/ut-load 4K random I/O for SOCK_SECONDS each: qd32-read-file,
#     qd32-write-file, qd32-read-ram, qd32-write-ram (QD32), qd1-null (read at QD1 from the
#     null LUN); one line per run: IOPS, latency mean / p99 (µs), utargetd CPU per IO
#     (/proc/PID/stat utime+stime, all threads);
#   - with SOCK_STRACE_S > 0, system calls per IO of each variant for the cases of
#     SOCK_STRACE_CASES: `strace -c -f` on utargetd during a run of that many seconds (strace
#     slows the target: the ratio is the figure).
# Then the medians of the rounds per variant and case.
#
# Environment: SOCK_VARIANTS ["epoll uring"], SOCK_CASES ["qd32-read-file qd32-write-file
# qd32-read-ram qd32-write-ram qd1-null"], SOCK_ROUNDS [3], SOCK_SECONDS [4], SOCK_STRACE_S [2],
# SOCK_STRACE_CASES ["qd32-read-file qd32-write-ram qd1-null"], SOCK_PORT [4320],
# BENCH_TMPDIR [/var/tmp]. Busy polling stays at its default.
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
VARIANTS=${SOCK_VARIANTS:-epoll uring}
CASES=${SOCK_CASES:-qd32-read-file qd32-write-file qd32-read-ram qd32-write-ram qd1-null}
ROUNDS=${SOCK_ROUNDS:-3}
SECS=${SOCK_SECONDS:-4}
STRACE_S=${SOCK_STRACE_S:-2}
STRACE_CASES=${SOCK_STRACE_CASES:-qd32-read-file qd32-write-ram qd1-null}
PORT=${SOCK_PORT:-4320}
UTARGETD=$BUILD/src/daemon/utargetd
UTARGET=$BUILD/src/cli/utarget
UT_LOAD=$BUILD/bench/ut-load
IQN=iqn.2026-12.org.utarget:socketio
bench_need_bins "$UTARGETD" "$UTARGET" "$UT_LOAD"
if [ "$STRACE_S" -gt 0 ] && ! command -v strace >/dev/null; then
	echo "socket_io: strace not found: system calls not counted" >&2
	STRACE_S=0
fi
bench_workdir utarget-sockio
head -c 256M /dev/urandom >"$WORK/lun.img"
bench_pagelock "$WORK/pagelock.log" "$WORK/lun.img" # (run.sh: DAMON pageout)
cat >"$WORK/utargetd.json" <<EOF
{
  "version": 1,
  "state_dir": "$WORK/state",
  "log_level": "notice",
  "rpc_socket": "$WORK/utargetd.sock",
  "iscsi": { "nop_in_interval": 30 },
  "backstores": [
    { "name": "f0", "type": "file", "path": "$WORK/lun.img", "write_cache": true },
    { "name": "r0", "type": "ram", "size": "256M" },
    { "name": "n0", "type": "null", "size": "256M" }
  ],
  "targets": [
    { "name": "$IQN",
      "portal_groups": [ { "tag": 1, "portals": [ "127.0.0.1:$PORT" ] } ],
      "luns": [ { "lun": 0, "backstore": "f0" }, { "lun": 1, "backstore": "r0" },
                { "lun": 2, "backstore": "n0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
EOF
mkdir -p "$WORK/state"
bench_start_utargetd "$WORK/utargetd.json"
variant() {
	local v=false
	[ "$1" = uring ] && v=true
	"$UTARGET" -s "$WORK/utargetd.sock" settings set "iscsi.socket_uring=$v" >/dev/null
}
# args CASE: "LUN QD MODE"
args() {
	case $1 in
	qd32-read-file) echo 0 32 read ;;
	qd32-write-file) echo 0 32 write ;;
	qd32-read-ram) echo 1 32 read ;;
	qd32-write-ram) echo 1 32 write ;;
	qd1-null) echo 2 1 read ;;
	*) echo "socket_io: unknown case $1" >&2; exit 2 ;;
	esac
}

# run CASE: one ut-load run; prints "CASE variant iops mean p99 cpu_per_io"
run() {
	local lun qd mode out c0 c1 ios
	read -r lun qd mode <<<"$(args "$1")"
	c0=$(cpu_ticks "$PID")
	out=$("$UT_LOAD" -m "$mode" -p rand -s 4096 -q "$qd" -t "$SECS" \
		"iscsi://127.0.0.1:$PORT/$IQN/$lun" 2>/dev/null)
	c1=$(cpu_ticks "$PID")
	ios=$(echo "$out" | sed -n 's/.*ios=\([0-9]*\).*/\1/p')
	echo "$out" | awk -v l="$1" -v b="$V" -v ios="$ios" -v dt=$((c1 - c0)) -v hz="$CLK_TCK" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s %s %d %s %s %.2f\n", l, b, v["iops"], v["lat_mean_us"], v["lat_p99_us"],
			dt / hz * 1e6 / ios }'
}

echo "# socket I/O, $(bench_stamp), $(nproc) CPUs, ${SECS} s runs, $ROUNDS rounds"
# warm-up: the page cache, the first login
"$UT_LOAD" -m read -p rand -s 4096 -q 32 -t 1 "iscsi://127.0.0.1:$PORT/$IQN/0" >/dev/null 2>&1
for r in $(seq "$ROUNDS"); do
	for V in $VARIANTS; do
		variant "$V"
		for c in $CASES; do
			run "$c"
		done
	done
done | tee "$WORK/runs.txt"
echo
echo "| variant | case | IOPS | latency mean (µs) | p99 (µs) | utargetd CPU/IO (µs) |"
echo "|---|---|---:|---:|---:|---:|"
for c in $CASES; do
	for V in $VARIANTS; do
		bench_median_row "$WORK/runs.txt" "$V" "$c"
	done
done
[ "$STRACE_S" -gt 0 ] || exit 0
echo
echo "| variant | case | system calls per IO (strace -c -f, ${STRACE_S} s) | the main ones |"
echo "|---|---|---:|---|"
for c in $STRACE_CASES; do
	for V in $VARIANTS; do
		variant "$V"
		read -r lun qd mode <<<"$(args "$c")"
		timeout $((STRACE_S + 5)) strace -c -f -qq -p "$PID" -o "$WORK/strace.txt" &
		spid=$!
		sleep 0.3
		out=$("$UT_LOAD" -m "$mode" -p rand -s 4096 -q "$qd" -t "$STRACE_S" \
			"iscsi://127.0.0.1:$PORT/$IQN/$lun" 2>/dev/null)
		kill -INT "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		ios=$(echo "$out" | sed -n 's/.*ios=\([0-9]*\).*/\1/p')
		awk -v ios="$ios" -v c="$c" -v b="$V" '
			$NF == "total" { total = $4 }
			/^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ && $NF != "total" { calls[$NF] = $4 }
			END { s = ""; for (k in calls) if (calls[k] / ios >= 0.02)
					s = s sprintf("%s %.2f, ", k, calls[k] / ios)
				sub(/, $/, "", s)
				printf "| %s | %s | %.2f | %s |\n", b, c, total / ios, s }' "$WORK/strace.txt"
	done
done
