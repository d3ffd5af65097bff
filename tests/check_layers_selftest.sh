#!/bin/bash
# check_layers_selftest.sh: check_layers.sh fails on each kind of violation
# (in a scratch tree) and passes on a clean one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ut-layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# tree FILE CONTENT: a scratch tree with a clean base plus one file
tree() {
	rm -rf "$tmp/src"
	mkdir -p "$tmp/src/lib" "$tmp/src/scsi" "$tmp/src/backstore" "$tmp/src/fabric/iscsi" \
		"$tmp/src/config" "$tmp/src/rpc" "$tmp/src/cli"
	printf '#include "compiler.h"\n#include "lib/log.h"\n' >"$tmp/src/lib/a.c"
	printf '#include "lib/log.h"\n#include "scsi/bs.h"\n' >"$tmp/src/scsi/a.c"
	printf '#include "lib/log.h"\n#include "scsi/bs.h"\n#include "backstore/backstore.h"\n' \
		>"$tmp/src/backstore/a.c"
	printf '#include "scsi/scsi.h"\n#include "fabric/iscsi/iscsi.h"\n' \
		>"$tmp/src/fabric/iscsi/a.c"
	printf '#include "backstore/backstore.h"\n#include "fabric/iscsi/iscsi.h"\n' \
		>"$tmp/src/config/a.c"
	printf '#include "config/model.h"\n#include "lib/compiler.h"\n' >"$tmp/src/config/a.h"
	printf '#include "config/ctl.h"\n#include "config/change.h"\n#include "config/model.h"\n#include "fabric/iscsi/iscsi.h"\n#include "scsi/scsi.h"\n#include "rpc/rpc.h"\n' \
		>"$tmp/src/rpc/a.c"
	printf '#include "cli/cli.h"\n#include "config/model.h"\n#include "lib/compiler.h"\n' \
		>"$tmp/src/cli/a.c"
	printf '/* strcpy(a, b) in a comment */\nconst char *s = "sprintf(x)";\nint n = snprintf(b, 1, "x");\n' \
		>"$tmp/src/lib/b.c"
	if [ $# -gt 0 ]; then
		printf '%b' "$2" >>"$tmp/src/$1"
	fi
}

expect() {
	local want=$1 what=$2 out rc
	out=$("$here/check_layers.sh" "$tmp" 2>&1)
	rc=$?
	if [ "$want" = pass ] && [ $rc = 0 ]; then
		echo "ok: $what passes"
	elif [ "$want" = fail ] && [ $rc != 0 ] && echo "$out" | grep -q "$3"; then
		echo "ok: $what is caught: $(echo "$out" | head -n 1)"
	else
		echo "FAIL: $what (rc $rc): $out"
		fail=1
	fi
}

tree
expect pass "a clean tree"
tree scsi/a.c '#include "fabric/iscsi/iscsi.h"\n'
expect fail "scsi including fabric/" "src/scsi/a.c:3: #include \"fabric/iscsi/iscsi.h\""
tree scsi/a.c '#include "backstore/backstore.h"\n'
expect fail "scsi including backstore/" "src/scsi/a.c:3:"
tree scsi/a.c '#include "config/config.h"\n'
expect fail "scsi including config/" "src/scsi/a.c:3:"
tree backstore/a.c '#include "scsi/scsi.h"\n'
expect fail "backstore including scsi/scsi.h" "src/backstore/a.c:4:"
tree backstore/a.c '#include "fabric/iscsi/iscsi.h"\n'
expect fail "backstore including fabric/" "src/backstore/a.c:4:"
tree backstore/a.c '#include "config/model.h"\n'
expect fail "backstore including config/" "src/backstore/a.c:4:"
tree backstore/a.c '#include "rpc/server.h"\n'
expect fail "backstore including rpc/" "src/backstore/a.c:4:"
tree backstore/a.c '#include "cli/cli.h"\n'
expect fail "backstore including cli/" "src/backstore/a.c:4:"
tree lib/a.c '#include "scsi/scsi.h"\n'
expect fail "lib including scsi/" "src/lib/a.c:3:"
tree fabric/iscsi/a.c '#include "backstore/backstore.h"\n'
expect fail "fabric including backstore/" "src/fabric/iscsi/a.c:3:"
tree config/a.c '#include "daemon/x.h"\n'
expect fail "config including daemon/" "src/config/a.c:3:"
for inc in fabric/iscsi/iscsi.h scsi/scsi.h backstore/backstore.h; do
	tree config/a.h "#include \"$inc\"\n"
	expect fail "a config header including $inc" "src/config/a.h:3: #include \"$inc\""
done
for inc in config/runtime.h config/live.h config/persist.h fabric/iscsi/conn.h scsi/pr_priv.h \
	cli/cli.h daemon/x.h; do
	tree rpc/a.c "#include \"$inc\"\n"
	expect fail "rpc including $inc" "src/rpc/a.c:7: #include \"$inc\""
done
tree cli/a.c '#include "rpc/server.h"\n'
expect fail "cli including rpc/ (it talks to the daemon through the socket)" "src/cli/a.c:4:"
tree cli/a.c '#include "scsi/scsi.h"\n'
expect fail "cli including scsi/" "src/cli/a.c:4:"
tree cli/a.c '#include "fabric/iscsi/iscsi.h"\n'
expect fail "cli including fabric/" "src/cli/a.c:4:"
for f in 'strcpy(a, b)' 'sprintf(a, "x")' 'strtok(s, ",")' 'atoi(s)' 'gets(buf)' 'x = atoi (s)'; do
	name=${f%%(*}
	name=${name##* }
	[ -n "$name" ] || name=atoi
	tree config/a.c "void f(void) { $f; }\n"
	expect fail "$f" "src/config/a.c:3: $name() is banned"
done
tree config/a.c 'int g(void) { return my_atoi_like(1) + strtoul(s, &e, 10); }\n'
expect pass "names that merely contain a banned one"
exit $fail
