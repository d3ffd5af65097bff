#!/bin/bash
# test_cu_count.sh: tests/tools/cu_count.py, the counter of iscsi-test-cu
# results, on logs of real runs (tests/data/cu/, README there says where each
# comes from). Checks, per log, the passed/skipped/failed counts, the exit
# status and the verdicts of the tests that make the edge cases:
#   - a skip and a failure in one test: failed (Sanitize.Readonly and
#     .Reservations through two different LUs);
#   - several failed assertions of one test: one failed test;
#   - the same test name in several suites (Simple): one test per suite;
#   - a verdict followed on its line by the next suite's set-up messages
#     ("passed    [FAILED] PRIN command ..."): the verdict stands;
#   - libiscsi's "[FAILED]" messages inside a test that CUnit passed: passed;
#   - two "[SKIPPED]" messages in one test: one skipped test;
#   - a log that ends inside a test (the target was killed): that test failed;
#   - a suite whose set-up failed (CUnit's message): failed;
#   - counts that disagree with CUnit's Run Summary, and an empty log: status 2;
#   - `run`: the iscsi-test-cu command line (flags, CU_TESTS, both URLs) and
#     CU_LOG, with a stand-in iscsi-test-cu that prints a fixture log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
count=$here/cu_count.py
data=$here/../data/cu
tmp=$(mktemp -d /tmp/ut-cucount.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	fail=1
}

# counts LOG "cu: P passed, S skipped, F failed" STATUS
counts() {
	local out rc
	out=$(python3 "$count" count "$data/$1")
	rc=$?
	if [ "$(echo "$out" | tail -n 1)" = "$2" ] && [ "$rc" = "$3" ]; then
		ok "$1: $2, status $rc"
	else
		bad "$1: want '$2' status $3, got '$(echo "$out" | tail -n 1)' status $rc"
	fi
}

# verdict LOG NAME VERDICT WHY
verdict() {
	local got
	got=$(python3 "$count" verdicts "$data/$1" | awk -v n="$2" '$2 == n { print $1 }')
	if [ "$got" = "$3" ]; then
		ok "$1: $2 $3 ($4)"
	else
		bad "$1: $2 is '$got', want $3 ($4)"
	fi
}

# A whole run of utargetd (1 GiB thin LU, one URL twice): CUnit's Run Summary
# says 230 ran, 229 passed (18 of them skips), 1 failed (Sanitize.Reset, the
# libiscsi harness leftover with two sessions, 4 failed assertions).
counts utargetd-thin.log "cu: 211 passed, 18 skipped, 1 failed" 1
verdict utargetd-thin.log Sanitize.Reset failed "4 failed assertions"
verdict utargetd-thin.log ModeSense6.Residuals passed \
	"verdict followed by the next suite's set-up: 'passed    [FAILED] PRIN ...'"
verdict utargetd-thin.log Reserve6.LUNReset passed "'passed    [FAILED] PRIN ...' again"
verdict utargetd-thin.log NoMedia.NoMediaSBC passed "the first test after that set-up"
verdict utargetd-thin.log iSCSIdatasn.iSCSIDataSnInvalid passed \
	"libiscsi's [FAILED] messages, CUnit passed"
verdict utargetd-thin.log WriteSame10.UnmapUnaligned skipped "[SKIPPED] then passed"
verdict utargetd-thin.log ReceiveCopyResults.OpParams passed "a message, no skip"
n_simple=$(grep -c '^  Test: Simple \.\.\.' "$data/utargetd-thin.log")
n_counted=$(python3 "$count" verdicts "$data/utargetd-thin.log" | grep -c '\.Simple$')
n_suites=$(python3 "$count" verdicts "$data/utargetd-thin.log" | awk '$2 ~ /\.Simple$/' |
	sed 's/\.Simple$//' | sort -u | wc -l)
if [ "$n_simple" -gt 1 ] && [ "$n_counted" = "$n_simple" ] && [ "$n_suites" = "$n_simple" ]; then
	ok "utargetd-thin.log: 'Simple' of $n_simple suites counted as $n_counted tests, one per suite"
else
	bad "utargetd-thin.log: $n_simple 'Test: Simple' lines, $n_counted counted in $n_suites suites"
fi
if python3 "$count" names failed "$data/utargetd-thin.log" | grep -qx Sanitize.Reset &&
	[ "$(python3 "$count" names skipped "$data/utargetd-thin.log" | wc -l)" = 18 ] &&
	[ "$(python3 "$count" names passed "$data/utargetd-thin.log" | wc -l)" = 211 ]; then
	ok "utargetd-thin.log: names by verdict: 211 passed, 18 skipped, failed Sanitize.Reset"
else
	bad "utargetd-thin.log: names by verdict disagree with the counts"
fi
out=$(python3 "$count" count "$data/utargetd-thin.log")
if [ "$(echo "$out" | head -n 1)" = "FAILED  Sanitize.Reset" ] &&
	[ "$(echo "$out" | grep -c '^SKIPPED ')" = 18 ]; then
	ok "utargetd-thin.log: lists 'FAILED  NAME' first, then 18 'SKIPPED NAME'"
else
	bad "utargetd-thin.log: lists: $(echo "$out" | head -n 3)"
fi

# The Sanitize suite through two different LUs: Readonly and Reservations
# print [FAILED] messages, a [SKIPPED] one, then FAILED with 2 assertions.
counts utargetd-sanitize-2lu.log "cu: 8 passed, 1 skipped, 2 failed" 1
verdict utargetd-sanitize-2lu.log Sanitize.Readonly failed "skipped a part, then FAILED"
verdict utargetd-sanitize-2lu.log Sanitize.Reservations failed "skipped a part, then FAILED"
verdict utargetd-sanitize-2lu.log Sanitize.CryptoErase skipped "skipped"

# The Sanitize suite on a read-only LU (a snippet of a whole run).
counts utargetd-readonly-sanitize.log "cu: 5 passed, 3 skipped, 3 failed" 1
verdict utargetd-readonly-sanitize.log Sanitize.BlockErase failed "6 failed assertions"
verdict utargetd-readonly-sanitize.log Sanitize.Readonly skipped "a [SKIPPED] part, passed"

# tgtd (a snippet): two [SKIPPED] messages per CompareAndWrite test.
counts tgtd-head.log "cu: 1 passed, 12 skipped, 1 failed" 1
verdict tgtd-head.log CompareAndWrite.Simple skipped "two [SKIPPED] messages, one test"
verdict tgtd-head.log GetLBAStatus.BeyondEol failed "FAILED, 1 assertion"

# utargetd killed during Reserve6.TargetColdReset: the log ends in the test.
counts utargetd-killed.log "cu: 4 passed, 0 skipped, 1 failed" 1
verdict utargetd-killed.log Reserve6.TargetColdReset failed "no verdict: the run ended in it"

# A suite whose set-up failed (CUnit's message; its tests did not run).
printf 'Suite: Read6\n  Test: Simple ...passed\nWARNING - Suite initialization failed for %s.\n' \
	"'Read10'" >"$tmp/setup.log"
out=$(python3 "$count" count "$tmp/setup.log")
rc=$?
if [ "$rc" = 1 ] && echo "$out" | grep -qx 'FAILED  Read10.(suite set-up)' &&
	[ "$(echo "$out" | tail -n 1)" = "cu: 1 passed, 0 skipped, 1 failed" ]; then
	ok "a failed suite set-up is a failure: Read10.(suite set-up)"
else
	bad "failed suite set-up: status $rc: $out"
fi

# Counts that disagree with CUnit's Run Summary (a test cut out of a whole
# log) and an empty log cannot be counted: status 2.
grep -v '^  Test: Reset \.\.\.' "$data/utargetd-sanitize-2lu.log" >"$tmp/cut.log"
out=$(python3 "$count" count "$tmp/cut.log")
rc=$?
if [ "$rc" = 2 ] && echo "$out" | grep -q "disagree with CUnit's Run Summary"; then
	ok "counts that disagree with the Run Summary: status 2"
else
	bad "a log with a test cut out: status $rc: $(echo "$out" | tail -n 2)"
fi
: >"$tmp/empty.log"
out=$(python3 "$count" count "$tmp/empty.log")
rc=$?
if [ "$rc" = 2 ] && echo "$out" | grep -qx 'cu: no test in the log'; then
	ok "an empty log: status 2, 'no test in the log'"
else
	bad "an empty log: status $rc: $out"
fi

# run: a stand-in iscsi-test-cu records its arguments and prints a log.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/iscsi-test-cu" <<EOF
#!/bin/sh
echo "\$*" >"$tmp/args"
cat "$data/utargetd-sanitize-2lu.log"
EOF
chmod +x "$tmp/bin/iscsi-test-cu"
out=$(PATH="$tmp/bin:$PATH" CU_FLAGS=-S CU_TESTS=ALL.Sanitize CU_LOG="$tmp/cu.log" \
	python3 "$count" run iscsi://h/t/0 iscsi://h2/t/0)
rc=$?
if [ "$(cat "$tmp/args")" = "-d -v -S -t ALL.Sanitize iscsi://h/t/0 iscsi://h2/t/0" ] &&
	cmp -s "$tmp/cu.log" "$data/utargetd-sanitize-2lu.log" && [ "$rc" = 1 ] &&
	[ "$(echo "$out" | tail -n 1)" = "cu: 8 passed, 1 skipped, 2 failed" ]; then
	ok "run: iscsi-test-cu -d -v \$CU_FLAGS -t \$CU_TESTS URL URL2, the log kept in CU_LOG, counted"
else
	bad "run: args '$(cat "$tmp/args" 2>/dev/null)', status $rc, $(echo "$out" | tail -n 1)"
fi
PATH="$tmp/bin:$PATH" python3 "$count" run iscsi://h/t/0 >/dev/null
if [ "$(cat "$tmp/args")" = "-d -v -t ALL iscsi://h/t/0 iscsi://h/t/0" ]; then
	ok "run: defaults: all tests, URL as the second path too"
else
	bad "run defaults: args '$(cat "$tmp/args")'"
fi

[ "$fail" = 0 ] && echo "PASS cu_count" || echo "FAIL cu_count"
exit $fail
