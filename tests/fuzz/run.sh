#!/bin/bash
# run.sh [BUILD_DIR] [SECONDS] [HARNESS...]: `make fuzz`. Configures BUILD_DIR
# (default build-fuzz) with clang, -Dfuzzing=true and ASan+UBSan when it does
# not exist, builds the harnesses and runs each for SECONDS (default 600),
# FUZZ_JOBS (default 1) at a time, niced. Each harness works on its own
# corpus BUILD_DIR/fuzz-corpus/<harness>/ (seeded from tests/fuzz/corpus/,
# kept across runs, never committed automatically); crash inputs land in
# BUILD_DIR/fuzz-artifacts/<harness>/ and logs in BUILD_DIR/fuzz-logs/.
# Prints, per harness: executions, seconds, corpus size, crashes. Exit 1 if
# any harness crashed. To keep a crash as a regression input: fix the bug,
# copy the input to tests/fuzz/corpus/<harness>/regress-<what> and commit.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
secs=${2:-600}
shift 2 2>/dev/null || shift $#
harnesses=("$@")
# every harness: each is a tests/fuzz/fuzz_<name>.c (fuzz_env.c is the shared part)
[ ${#harnesses[@]} -eq 0 ] && harnesses=($(ls tests/fuzz/fuzz_*.c | grep -v fuzz_env | sed 's,.*/fuzz_,,; s,\.c$,,'))
jobs=${FUZZ_JOBS:-1}

if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" --buildtype=debugoptimized -Dfuzzing=true \
		-Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("tests/fuzz/fuzz_$h"); done
ninja -C "$build" -j2 "${targets[@]}" || exit 1

declare -A dicts=([pdu]=iscsi [keys]=iscsi [cdb]=scsi [config]=config [chap]=iscsi [rpc]=config
	[isns]=isns [erl]=iscsi)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/fuzz-logs"

run_one() {
	local h=$1 corp="$build/fuzz-corpus/$1" art="$build/fuzz-artifacts/$1/"
	local log="$build/fuzz-logs/$h.log" d="tests/fuzz/dict/${dicts[$h]:-}.dict"
	local args=(-max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -max_len=16384
		-print_final_stats=1 -artifact_prefix="$art")
	mkdir -p "$corp" "$art"
	[ -f "$d" ] && args+=(-dict="$d")
	nice -n 19 "$build/tests/fuzz/fuzz_$h" "${args[@]}" "$corp" "tests/fuzz/corpus/$h" \
		>"$log" 2>&1
	echo $? >"$build/fuzz-logs/$h.rc"
}

pids=()
for h in "${harnesses[@]}"; do
	run_one "$h" &
	pids+=($!)
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
wait

fail=0
printf '%-8s %12s %8s %8s %8s %s\n' harness execs seconds corpus crashes result
for h in "${harnesses[@]}"; do
	log="$build/fuzz-logs/$h.log"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rc=$(cat "$build/fuzz-logs/$h.rc" 2>/dev/null || echo 1)
	crashes=$(find "$build/fuzz-artifacts/$h" -type f 2>/dev/null | wc -l)
	ncorp=$(find "$build/fuzz-corpus/$h" -type f | wc -l)
	res=ok
	if [ "$rc" != 0 ]; then res="FAILED (exit $rc, see $log)"; fail=1; fi
	printf '%-8s %12s %8s %8s %8s %s\n' "$h" "${execs:-?}" "$secs" "$ncorp" "$crashes" "$res"
done
exit $fail
