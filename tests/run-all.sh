#!/bin/bash
# run-all.sh ASAN_BUILD [RELEASE_BUILD [FUZZ_BUILD]]: runs every registered test (meson
# suites unit, golden, integration, fuzz-smoke) on the ASan+UBSan build (but
# backstore-conformance: on RELEASE_BUILD) and
# prints one final line "N passed, N failed" (", N skipped" when any).
set -u
asan=${1:-build-asan}
cd "$(dirname "$0")/.."

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# RELEASE_BUILD (second argument): the conformance suite over the back-store
# types other than file (suite backstore-conformance, tests/integration/
# meson.build), on the optimized build, alongside the ASan run: both are
# one integration test at a time and often wait (sanitize pacing, sleeps),
# so the two streams share the two cores. Its own TCP ports (the tests'
# ut_pick_port and tgtd.sh ranges) keep it apart from the ASan stream.
rel=${2:-}
bclog=""
if [ -n "$rel" ] && [ -f "$rel/build.ninja" ]; then
	bcout=$(mktemp)
	UT_PORT_MIN=3600 UT_PORT_MAX=3699 UT_TGT_PORT_MIN=3950 UT_TGT_PORT_MAX=3999 \
		meson test -C "$rel" --suite backstore-conformance --num-processes 1 \
		--print-errorlogs --no-rebuild --logbase bsconf >"$bcout" 2>&1 &
	bcpid=$!
	bclog="$rel/meson-logs/bsconf.json"
fi
meson test -C "$asan" --num-processes 2 --print-errorlogs --timeout-multiplier 2 \
	--no-rebuild ${bclog:+--no-suite backstore-conformance} 2>&1 |
	grep -vE '^ *[0-9]+/[0-9]+ .* OK ' || true
log="$asan/meson-logs/testlog.json"
if [ ! -s "$log" ]; then
	echo "0 passed, 1 failed"
	exit 1
fi
if [ -n "$bclog" ]; then
	wait "$bcpid"
	grep -vE '^ *[0-9]+/[0-9]+ .* OK ' "$bcout" || true
	rm -f "$bcout"
	[ -s "$bclog" ] || { echo "0 passed, 1 failed"; exit 1; }
else
	bclog=/dev/null
fi
# FUZZ_BUILD (third argument): the libFuzzer smoke runs (suite 'fuzz' of the
# clang -Dfuzzing=true build, tests/fuzz/README.md), counted with the rest.
fuzzlog=/dev/null
if [ -n "${3:-}" ] && [ -f "$3/build.ninja" ]; then
	meson test -C "$3" --suite fuzz --num-processes 2 --print-errorlogs --no-rebuild 2>&1 |
		grep -vE '^ *[0-9]+/[0-9]+ .* OK ' || true
	fuzzlog="$3/meson-logs/testlog.json"
	[ -s "$fuzzlog" ] || { echo "0 passed, 1 failed"; exit 1; }
fi
python3 - "$log" "$bclog" "$fuzzlog" <<'PY'
import json, sys
p = f = s = 0
bad = []
for line in sum((open(a).readlines() for a in sys.argv[1:]), []):
    line = line.strip()
    if not line:
        continue
    t = json.loads(line)
    r = t.get("result", "")
    if r == "OK" or r == "EXPECTEDFAIL":
        p += 1
    elif r == "SKIP":
        s += 1
        bad.append("SKIP " + t["name"])
    else:
        f += 1
        bad.append(r + " " + t["name"])
for b in bad:
    print(b)
print(f"{p} passed, {f} failed" + (f", {s} skipped" if s else ""))
sys.exit(1 if f else 0)
PY
