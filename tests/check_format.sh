#!/bin/bash
# check_format.sh: every C file of the tree (src/, tests/, bench/, tools/) is formatted as
# .clang-format says. A check, not a rewrite: it lists the files that differ and
# fails; `make format` rewrites them. Files git does not track are ignored.
set -u
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed"; exit 1; }
if git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' 'tools/*.[ch]')
else
	files=$(find src tests bench tools -name '*.[ch]' | sort)
fi
bad=0
n=0
for f in $files; do
	n=$((n + 1))
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f (make format)"
		bad=$((bad + 1))
	fi
done
echo "$n files checked, $bad not formatted"
[ "$bad" = 0 ]
