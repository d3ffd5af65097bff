#!/bin/bash
# check_selfcontained_selftest.sh: check_selfcontained.sh fails on each kind of
# reference outside the repository (in a scratch tree, one file added to a
# clean base) and passes on the clean base and on what it must not scan.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ut-selfcont.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# tree [FILE CONTENT]: a scratch tree with a clean base plus one file
tree() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/tests/integration" "$tmp/t/tests/unit/cli" "$tmp/t/tests/unit/loop" \
		"$tmp/t/scripts" "$tmp/t/.ci" "$tmp/t/bench" "$tmp/t/src/lib" "$tmp/t/docs"
	printf 'run:\n\t./scripts/run-demo.sh build\n' >"$tmp/t/Makefile"
	printf 'project(%s)\nsubdir(%s)\n' "'x'" "'src/lib'" >"$tmp/t/meson.build"
	printf '#!/bin/sh\ncd "$(dirname "$0")/.."\nmkdir -p state\n' >"$tmp/t/scripts/run-demo.sh"
	printf 'UT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)\nx=$UT_ROOT/tests\n' \
		>"$tmp/t/tests/integration/lib.sh"
	printf '. "$(dirname "$0")/../integration/lib.sh"\ncd "$UT_TMP/a/b/.."\n' \
		>"$tmp/t/tests/integration/t.sh"
	printf "t = files('../fakes/fake.c')\n" >"$tmp/t/tests/unit/loop/meson.build"
	printf '{ .cwd = "/a/b/c", .arg = "../../..", .want = "/" },\n' \
		>"$tmp/t/tests/unit/cli/test_shell.c"
	printf '#!/bin/sh\ncd "$(dirname "$0")/.."\nexec make test\n' >"$tmp/t/.ci/run"
	printf 'ROOT=$(cd "$(dirname "$0")/.." && pwd)\nout=/var/tmp/bench\n' >"$tmp/t/bench/run.sh"
	# not scanned: documentation, the fuzz corpora
	printf 'The design is in ../shared/design.\n' >"$tmp/t/docs/architecture.md"
	mkdir -p "$tmp/t/tests/fuzz/corpus/config"
	printf '{"state_dir": "../shared/../../x"}' >"$tmp/t/tests/fuzz/corpus/config/seed1"
	if [ $# -gt 0 ]; then
		mkdir -p "$(dirname "$tmp/t/$1")"
		printf '%b' "$2" >>"$tmp/t/$1"
	fi
}

# expect pass|fail WHAT [TEXT THE REPORT MUST HOLD]
expect() {
	local want=$1 what=$2 out rc
	out=$("$here/check_selfcontained.sh" "$tmp/t" 2>&1)
	rc=$?
	if [ "$want" = pass ] && [ $rc = 0 ]; then
		echo "ok: $what passes"
	elif [ "$want" = fail ] && [ $rc != 0 ] && echo "$out" | grep -qF "$3"; then
		echo "ok: $what is caught: $(echo "$out" | head -n 1)"
	else
		echo "FAIL: $what (rc $rc): $out"
		fail=1
	fi
}

tree
expect pass "a clean tree (dirname/.. up to the top, \$UT_ROOT/tests, docs and corpora mentioning ../shared)"
tree tests/integration/lib.sh 'script=$UT_ROOT/../shared/conformance/cu-score\n'
expect fail 'lib.sh running $UT_ROOT/../shared/conformance/cu-score' \
	'tests/integration/lib.sh:3: "../shared"'
tree tests/integration/t.sh '# counted by ../shared/conformance/cu-score\n'
expect fail "a comment naming ../shared" 'tests/integration/t.sh:3: "../shared"'
tree tests/integration/lib.sh 'peer=$UT_ROOT/../other-project/bin\n'
expect fail '$UT_ROOT/../other-project' 'tests/integration/lib.sh:3: ".." above the repository root'
tree bench/run.sh 'x=${ROOT}/../x\n'
expect fail '${ROOT}/../x' 'bench/run.sh:3: ".." above the repository root'
tree tests/integration/t.sh '. "$(dirname "$0")/../../../lib.sh"\n'
expect fail 'three ".." from tests/integration' 'tests/integration/t.sh:3: 3 x ".." from tests/integration'
tree Makefile 'include ../common.mk\n'
expect fail 'a Makefile including ../common.mk' 'Makefile:3: 1 x ".." from the top'
tree tests/unit/loop/meson.build "u = files('../../../../x.c')\n"
expect fail "meson files('../../../../x.c') from tests/unit/loop" 'tests/unit/loop/meson.build:2: 4 x'
tree meson.build "y = meson.project_source_root() / '../y'\n"
expect fail "meson.project_source_root() / '../y'" 'meson.build:3: ".." above the repository root'
tree .ci/run 'export PATH=/work/shared/bin:$PATH\n'
expect fail "/work/ in .ci/run" '.ci/run:4: an absolute path into /work/ or /home/'
tree scripts/deps.sh 'cp /home/dev/cache/x .\n'
expect fail "/home/ in scripts/" 'scripts/deps.sh:1: an absolute path into /work/ or /home/'
tree tests/hardening/x.sh 'tool=~/bin/fuzz\n'
expect fail "~/ in tests/" 'tests/hardening/x.sh:1: a path in a home directory'
tree src/fabric/meson.build "inc = include_directories('../../../include')\n"
expect fail "a src/ meson.build climbing out" 'src/fabric/meson.build:1: 3 x ".." from src/fabric'
tree docs/x.md 'see /work/shared and ../../x\n'
expect pass "documentation outside the scanned set"
exit $fail
