#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/profile.sh [BUILD_DIR]: where utargetd's CPU time goes for one 4K command
# (docs/performance.md). Starts utargetd alone on 127.0.0.1 with one LUN (a 256 MiB file,
# written and in the page cache, or a null LUN), runs bench/ut-load against it and, for each
# case, prints:
#   - IOPS and the client's latency (ut-load), and utargetd's CPU per IO (/proc/PID/stat);
#   - perf record (cpu-clock, 999 Hz) of utargetd during the run: the share of samples in the
#     kernel and in user space, and the top symbols;
#   - strace -c -f on utargetd for PROFILE_STRACE_S seconds of a second run: system calls per
#     IO (strace slows the target; the ratio, not the rate, is the figure).
# Cases: 4K QD32 random read (also with HeaderDigest CRC32C) and write on the file LUN; 4K QD1
# random read on the file LUN
# and on the null LUN (the client's own floor plus the target's minimum).
# Environment: PROFILE_SECONDS [8], PROFILE_STRACE_S [2], PROFILE_PORT [3560], UTARGETD,
# UT_LOAD. Needs perf and strace (linux-perf and strace are in the test package list).
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
SECS=${PROFILE_SECONDS:-8}
STRACE_S=${PROFILE_STRACE_S:-2}
PORT=${PROFILE_PORT:-3560}
UTARGETD=${UTARGETD:-$BUILD/src/daemon/utargetd}
UT_LOAD=${UT_LOAD:-$BUILD/bench/ut-load}
IQN=iqn.2026-12.org.utarget:profile
for c in perf strace; do command -v "$c" >/dev/null || { echo "profile: $c not found" >&2; exit 2; }; done
bench_workdir utarget-profile /var/tmp
head -c 256M /dev/urandom >"$WORK/lun.img"
bench_pagelock "$WORK/pagelock.log" "$WORK/lun.img" # (run.sh: DAMON pageout)
bench_file_null_config "$WORK/utargetd.json" "$IQN" "$PORT" "$WORK/lun.img" '{}'
bench_start_utargetd "$WORK/utargetd.json"

run_case() { # label lun mode qd [ut-load option]
	local label=$1 lun=$2 mode=$3 qd=$4 url out c0 c1 ios
	local -a extra=("${@:5}")
	url="iscsi://127.0.0.1:$PORT/$IQN/$lun"
	echo "## $label (ut-load -m $mode -p rand -s 4096 -q $qd ${extra[*]}, LUN $lun)"
	"$UT_LOAD" "${extra[@]}" -m "$mode" -p rand -s 4096 -q "$qd" -t 2 "$url" >/dev/null 2>&1 # warm-up
	c0=$(cpu_ticks "$PID")
	perf record -q -e cpu-clock -F 999 -g -p "$PID" -o "$WORK/perf.data" -- sleep "$SECS" \
		>/dev/null 2>&1 &
	local perfpid=$!
	out=$("$UT_LOAD" "${extra[@]}" -m "$mode" -p rand -s 4096 -q "$qd" -t "$SECS" "$url" 2>/dev/null)
	wait "$perfpid" || true
	c1=$(cpu_ticks "$PID")
	ios=$(echo "$out" | sed -n 's/.*ios=\([0-9]*\).*/\1/p')
	echo "$out" | awk -v ios="$ios" -v dt=$((c1 - c0)) -v hz="$CLK_TCK" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "- %d IOPS, latency mean %s us, p50 %s us, p99 %s us; utargetd CPU/IO %.2f us\n",
			v["iops"], v["lat_mean_us"], v["lat_p50_us"], v["lat_p99_us"], dt / hz * 1e6 / ios }'
	perf report -i "$WORK/perf.data" --no-children -g none --sort dso,sym --stdio 2>/dev/null |
		awk '/^#/ || NF < 4 { next }
			{ pct = $1; sub(/%/, "", pct); if ($2 == "[kernel.kallsyms]") k += pct; else u += pct
			  n++; if (n <= 12) top = top sprintf("  %s\n", $0) }
			END { printf "- perf: kernel %.0f %%, user space %.0f %% of utargetd samples; top symbols:\n%s", k, u, top }'
	# system calls per IO, from a second run under strace
	timeout $((STRACE_S + 5)) strace -c -f -qq -p "$PID" -o "$WORK/strace.txt" &
	local spid=$!
	sleep 0.3
	out=$("$UT_LOAD" "${extra[@]}" -m "$mode" -p rand -s 4096 -q "$qd" -t "$STRACE_S" "$url" 2>/dev/null)
	kill -INT "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	ios=$(echo "$out" | sed -n 's/.*ios=\([0-9]*\).*/\1/p')
	awk -v ios="$ios" '$NF == "total" { printf "- system calls per IO (strace -c, %d IOs): %.2f\n", ios, $4 / ios }
		/^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ && $NF != "total" { calls[$NF] = $4 }
		END { n = 0; for (s in calls) if (calls[s] / ios >= 0.05) { printf "  %s %.2f", s, calls[s] / ios; n++ } if (n) print "" }' \
		"$WORK/strace.txt"
	echo
}

echo "# utargetd profile, $(bench_stamp), $(nproc) CPUs"
echo
run_case "4K QD32 random read, file LUN" 0 read 32
run_case "4K QD32 random read, file LUN, HeaderDigest CRC32C" 0 read 32 -H
run_case "4K QD32 random write, file LUN" 0 write 32
run_case "4K QD1 random read, file LUN" 0 read 1
run_case "4K QD1 random read, null LUN" 1 read 1
