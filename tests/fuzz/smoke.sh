#!/bin/bash
# smoke.sh FUZZER CORPUS_DIR [DICT]: the 'fuzz/<harness>-smoke' test of a
# -Dfuzzing=true build: replays every input of CORPUS_DIR (seeds and
# regression inputs), then fuzzes for FUZZ_SMOKE_SECONDS (default 15) from
# there. New inputs go to a temporary directory (the committed corpus is
# never written); a crash leaves its input in FUZZ_ARTIFACTS (default: the
# temporary directory, kept) and fails the test.
set -u
fuzzer=$1
corpus=$2
dict=${3:-}
secs=${FUZZ_SMOKE_SECONDS:-15}
work=$(mktemp -d /tmp/utarget-fuzz-smoke.XXXXXX)
art=${FUZZ_ARTIFACTS:-$work}/
mkdir -p "$art" "$work/new"
args=(-max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -max_len=16384
	-print_final_stats=1 -artifact_prefix="$art")
if [ -n "$dict" ] && [ -f "$dict" ]; then
	args+=(-dict="$dict")
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$fuzzer" "${args[@]}" "$work/new" "$corpus" >"$work/log" 2>&1
rc=$?
grep -E '^(#[0-9]+ +(INITED|DONE))|stat::number_of_executed_units|stat::peak_rss_mb|^Done' \
	"$work/log"
if [ $rc -ne 0 ]; then
	tail -60 "$work/log"
	echo "smoke: $(basename "$fuzzer") failed (exit $rc); log and crash input in $work"
	exit 1
fi
rm -rf "$work"
echo "smoke: $(basename "$fuzzer") ok (${secs}s)"
