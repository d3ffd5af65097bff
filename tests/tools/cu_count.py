#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cu_count.py: the project's counter of libiscsi's iscsi-test-cu results.

  cu_count.py run URL [URL2]     run iscsi-test-cu -d -v (all tests, or CU_TESTS)
                                 against URL (URL2: the second path, default URL)
                                 and count its log; CU_FLAGS adds flags (e.g. -S),
                                 CU_LOG keeps a copy of the log, CU_TIMEOUT bounds
                                 the run (seconds, default 1200)
  cu_count.py count LOG          count a saved log (iscsi-test-cu -v output)
  cu_count.py verdicts LOG       "VERDICT SUITE.TEST" per test, sorted by name
  cu_count.py names VERDICT LOG  the names of the tests with that verdict
                                 (passed, skipped or failed)

run and count print the failed tests ("FAILED  SUITE.TEST"), then the skipped
ones ("SKIPPED SUITE.TEST"), then one line "cu: P passed, S skipped, F failed".
Exit status: 0 nothing failed, 1 a test failed, 2 the log could not be
counted (no test in it, or the counts disagree with CUnit's own Run Summary).

How a verbose CUnit log reads (CUnit 2.1's basic interface, as iscsi-test-cu
prints it): "Suite: NAME" opens a suite, "  Test: NAME ..." opens a test, and
the test's verdict, "passed" or "FAILED", is printed right after whatever the
test itself printed: directly after the "..." or at the start of a line
(libiscsi's messages are indented). After FAILED come the failed assertions,
"    N. file.c:LINE  - CU_ASSERT...", one per assertion: the test is counted
once. Text after the verdict on the same line, and the lines up to the next
"Test:", belong to the next suite's set-up (e.g. "passed    [SKIPPED] ..."):
they never change a verdict. A passed test that printed "[SKIPPED]" before its
verdict was skipped (CUnit counts it as passed); a FAILED test is failed
whatever it printed ("[SKIPPED]", "[FAILED]" messages of libiscsi inside a
test that CUnit passed do not fail it). A test is named SUITE.TEST, so the
"Simple" of two suites are two tests. A test with no verdict (the run ended in
it) is failed, and so is a suite whose set-up or clean-up failed ("WARNING -
Suite initialization failed for 'NAME'.", counted as "NAME.(suite set-up)").
A test that appears twice under the same name is counted once, with its worst
verdict.
"""
import os
import re
import subprocess
import sys
import tempfile

TEST_RE = re.compile(r"^  Test: (.+?) \.\.\.(.*)$")
SUITE_RE = re.compile(r"^Suite: (.+?)\s*$")
SUITE_FAIL_RE = re.compile(r"WARNING - Suite (initialization|cleanup) failed for '(.+?)'\.")
SUMMARY_RE = re.compile(r"^\s+(suites|tests)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s*$")
RANK = {"passed": 0, "skipped": 1, "failed": 2}


def parse(lines):
    """-> (verdicts {name: verdict}, suite failures [name], summary {row: (ran, passed,
    failed)}, CUnit's view {"passed": N, "failed": N}: every run of a test, a skip passed)"""
    verdicts = {}
    suite_fail = []
    summary = {}
    cunit = {"passed": 0, "failed": 0}
    suite = "?"
    cur = None  # the open test: its name while it has no verdict
    skip = False

    def close(verdict):
        nonlocal cur
        cunit[verdict] += 1
        if verdict == "passed" and skip:
            verdict = "skipped"
        old = verdicts.get(cur)
        if old is None or RANK[verdict] > RANK[old]:
            verdicts[cur] = verdict
        cur = None

    for line in lines:
        line = line.rstrip("\r\n")
        m = SUITE_FAIL_RE.search(line)
        if m:
            if cur is not None:
                close("failed")
            kind = "set-up" if m.group(1) == "initialization" else "clean-up"
            suite_fail.append(f"{m.group(2)}.(suite {kind})")
            continue
        m = SUITE_RE.match(line)
        if m:
            if cur is not None:
                close("failed")  # no verdict before the next suite: the run broke
            suite = m.group(1)
            continue
        m = SUMMARY_RE.match(line)
        if m:
            ran, passed, failed = int(m.group(3)), m.group(4), int(m.group(5))
            summary[m.group(1)] = (ran, None if passed == "n/a" else int(passed), failed)
            continue
        m = TEST_RE.match(line)
        if m:
            if cur is not None:
                close("failed")
            cur = f"{suite}.{m.group(1)}"
            skip = False
            rest = m.group(2)
        else:
            rest = line
        if cur is None:
            continue  # between tests: a suite's set-up messages
        if rest.startswith("passed"):
            close("passed")
        elif rest.startswith("FAILED"):
            close("failed")
        elif "[SKIPPED]" in rest:
            skip = True
    if cur is not None:
        close("failed")  # the log ends inside a test
    return verdicts, suite_fail, summary, cunit


def count(lines, out=sys.stdout):
    verdicts, suite_fail, summary, cunit = parse(lines)
    failed = sorted([n for n, v in verdicts.items() if v == "failed"] + suite_fail)
    skipped = sorted(n for n, v in verdicts.items() if v == "skipped")
    npass = sum(1 for v in verdicts.values() if v == "passed")
    for n in failed:
        print(f"FAILED  {n}", file=out)
    for n in skipped:
        print(f"SKIPPED {n}", file=out)
    print(f"cu: {npass} passed, {len(skipped)} skipped, {len(failed)} failed", file=out)
    if not verdicts and not suite_fail:
        print("cu: no test in the log", file=out)
        return 2
    if "tests" in summary:
        ran, cpass, cfail = summary["tests"]
        if (ran, cpass, cfail) != (cunit["passed"] + cunit["failed"], cunit["passed"],
                                   cunit["failed"]):
            print(f"cu: these counts disagree with CUnit's Run Summary (tests ran {ran}, "
                  f"passed {cpass}, failed {cfail})", file=out)
            return 2
    return 1 if failed else 0


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readlines()


def run(urls):
    url = urls[0]
    url2 = urls[1] if len(urls) > 1 else url
    cmd = ["iscsi-test-cu", "-d", "-v"] + os.environ.get("CU_FLAGS", "").split() + \
        ["-t", os.environ.get("CU_TESTS") or "ALL", url, url2]
    timeout = int(os.environ.get("CU_TIMEOUT") or 1200)
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as log:
        try:
            subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
                           check=False)
        except subprocess.TimeoutExpired:
            log.write(f"\ncu_count: iscsi-test-cu stopped after {timeout} s\n")
        except FileNotFoundError:
            print("cu: iscsi-test-cu not found (libiscsi-bin)")
            return 2
        log.seek(0)
        lines = log.readlines()
    if os.environ.get("CU_LOG"):
        with open(os.environ["CU_LOG"], "w", encoding="utf-8") as f:
            f.writelines(lines)
    return count(lines)


def usage():
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(2)


def main(argv):
    if len(argv) < 2:
        usage()
    cmd, args = argv[1], argv[2:]
    if cmd == "run" and len(args) in (1, 2):
        return run(args)
    if cmd == "count" and len(args) == 1:
        return count(read_lines(args[0]))
    if cmd == "verdicts" and len(args) == 1:
        verdicts, suite_fail, _, _ = parse(read_lines(args[0]))
        rows = sorted(list(verdicts.items()) + [(n, "failed") for n in suite_fail])
        for name, v in rows:
            print(v, name)
        return 0
    if cmd == "names" and len(args) == 2 and args[0] in RANK:
        verdicts, suite_fail, _, _ = parse(read_lines(args[1]))
        names = [n for n, v in verdicts.items() if v == args[0]]
        if args[0] == "failed":
            names += suite_fail
        for name in sorted(names):
            print(name)
        return 0
    usage()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
