#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/ab_daemons.sh UTARGETD_A UTARGETD_B: two builds of utargetd, side by side, for a
# change to the data path (docs/performance.md). Each run starts a new daemon of one build
# (one file LUN and one null LUN on 127.0.0.1, defaults otherwise), warms up for 2 s, then
# runs bench/ut-load for AB_SECONDS and stops the daemon; the builds alternate within each
# round. Prints a line per run (IOPS, latency mean and p99, the daemon's CPU per IO from
# /proc/PID/stat) and, at the end, each build's medians per case.
#
# The file LUN is AB_LUN_MB of pseudo-random data written 4 KiB a write (the page cache
# then holds it in 4 KiB folios, in which a 4K write costs ext4 least: section 15), or
# with AB_PREFILL=cat in cat's 128 KiB writes, as `make bench` writes it (large folios);
# bench/pagelock keeps it in the page cache for the run.
# Environment:
#   AB_CASES [qd1-null qd1-file qd32-read qd32-write]  4K random I/O: QD1 reads of the null
#            LUN or the file, QD32 reads or writes of the file
#   AB_ROUNDS [3]  AB_SECONDS [4]  AB_PORT [3590]  AB_LUN_MB [1024]  AB_PREFILL [4k]
#   UT_LOAD [BUILD/bench/ut-load, BUILD=build]
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="usage: bench/ab_daemons.sh UTARGETD_A UTARGETD_B"
A=${1:?$USAGE}
B=${2:?$USAGE}
bench_build_dir "${AB_BUILD:-}"
UT_LOAD=${UT_LOAD:-$BUILD/bench/ut-load}
bench_need_bins "$A" "$B" "$UT_LOAD"
CASES=${AB_CASES:-qd1-null qd1-file qd32-read qd32-write}
ROUNDS=${AB_ROUNDS:-3}
SECS=${AB_SECONDS:-4}
PORT=${AB_PORT:-3590}
LUN_MB=${AB_LUN_MB:-1024}
PREFILL=${AB_PREFILL:-4k}
case $PREFILL in 4k) BS=4k ;; cat) BS=128k ;; *) die "AB_PREFILL must be 4k or cat" ;; esac
IQN=iqn.2026-12.org.utarget:ab
bench_workdir utarget-ab /var/tmp

head -c 16M /dev/urandom >"$WORK/random.blk"
for ((i = 0; i < LUN_MB / 16; i++)); do
	cat "$WORK/random.blk"
done | dd of="$WORK/lun.img" bs="$BS" iflag=fullblock status=none
rm -f "$WORK/random.blk"
sync "$WORK/lun.img"
bench_pagelock "$WORK/pagelock.log" "$WORK/lun.img" # (run.sh: DAMON pageout)
bench_file_null_config "$WORK/utargetd.json" "$IQN" "$PORT" "$WORK/lun.img" '{}'

run() { # label build case
	local label=$1 bin=$2 c=$3 lun=0 mode=read qd=32 url out c0 c1
	case $c in
	qd1-null) lun=1 qd=1 ;;
	qd1-file) qd=1 ;;
	qd32-read) ;;
	qd32-write) mode="write" ;;
	*) die "unknown case $c" ;;
	esac
	url="iscsi://127.0.0.1:$PORT/$IQN/$lun"
	UTARGETD=$bin bench_start_utargetd "$WORK/utargetd.json"
	"$UT_LOAD" -m "$mode" -p rand -s 4096 -q "$qd" -t 2 "$url" >/dev/null 2>&1 || true
	c0=$(cpu_ticks "$PID")
	out=$("$UT_LOAD" -m "$mode" -p rand -s 4096 -q "$qd" -t "$SECS" "$url" 2>/dev/null) ||
		die "ut-load failed against $bin ($c)"
	c1=$(cpu_ticks "$PID")
	stop_pid "$PID" utargetd
	PID=
	# "CASE LABEL iops mean p99 cpu", the lines bench_median_row reads
	echo "$out" | awk -v l="$label" -v c="$c" -v dt=$((c1 - c0)) -v hz="$CLK_TCK" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s %s %d %s %s %.2f\n", c, l, v["iops"], v["lat_mean_us"], v["lat_p99_us"],
			dt / hz * 1e6 / v["ios"] }' | tee -a "$WORK/runs.txt"
}

echo "# ab_daemons, $(bench_stamp), $(nproc) CPUs; A=$A B=$B; prefill $PREFILL"
echo "# each run: case build IOPS latency-mean-us p99-us CPU/IO-us"
: >"$WORK/runs.txt"
for ((r = 1; r <= ROUNDS; r++)); do
	for c in $CASES; do
		run A "$A" "$c"
		run B "$B" "$c"
	done
done
echo
echo "## medians of $ROUNDS rounds"
echo
echo "| build | case | IOPS | latency mean (us) | p99 (us) | CPU/IO (us) |"
echo "|---|---|---:|---:|---:|---:|"
for c in $CASES; do
	bench_median_row "$WORK/runs.txt" A "$c"
	bench_median_row "$WORK/runs.txt" B "$c"
done
