#!/bin/bash
# check_layers_selftest.sh: check_layers.sh fails on each kind of violation
# (in a scratch tree: sources and meson.build files, then a scratch build
# directory with real archives) and passes on a clean one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ut-layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# meson_tree: the build files of a scratch tree, shaped like the real ones
# (a list variable, a trailing comma and a comment naming a forbidden
# dependency included: they must not confuse the check)
meson_tree() {
	cat >"$tmp/meson.build" <<'EOF'
project('t', 'c')
jansson_dep = dependency('jansson')
subdir('src/lib')
EOF
	cat >"$tmp/src/lib/meson.build" <<'EOF'
lib_lib = static_library('utlib', files('a.c'), dependencies : [jansson_dep])
lib_dep = declare_dependency(link_with : lib_lib, dependencies : [jansson_dep])
EOF
	cat >"$tmp/src/scsi/meson.build" <<'EOF'
scsi_lib = static_library('utscsi', 'a.c', dependencies : [lib_dep])
scsi_dep = declare_dependency(link_with : scsi_lib, dependencies : [lib_dep])
EOF
	cat >"$tmp/src/backstore/meson.build" <<'EOF'
backstore_lib = static_library('utbackstore', 'a.c', dependencies : [scsi_dep])
backstore_dep = declare_dependency(link_with : backstore_lib, dependencies : [scsi_dep])
EOF
	cat >"$tmp/src/fabric/iscsi/meson.build" <<'EOF'
iscsi_lib = static_library('utiscsi', 'a.c', dependencies : [scsi_dep])
iscsi_fabric_dep = declare_dependency(link_with : iscsi_lib, dependencies : [scsi_dep])
EOF
	cat >"$tmp/src/config/meson.build" <<'EOF'
config_core_lib = static_library('utconfigcore', 'a.c', dependencies : [lib_dep, jansson_dep])
config_core_dep = declare_dependency(link_with : config_core_lib, dependencies : [lib_dep])
config_lib = static_library('utconfig', 'b.c', link_with : config_core_lib,
  dependencies : [scsi_dep, backstore_dep, iscsi_fabric_dep])
config_dep = declare_dependency(link_with : [config_lib, config_core_lib],
  dependencies : [scsi_dep, backstore_dep, iscsi_fabric_dep])
EOF
	cat >"$tmp/src/rpc/meson.build" <<'EOF'
rpc_lib = static_library('utrpc', 'a.c',
  dependencies : [config_dep, iscsi_fabric_dep, scsi_dep, lib_dep])
rpc_dep = declare_dependency(link_with : rpc_lib, dependencies : [config_dep])
EOF
	cat >"$tmp/src/daemon/meson.build" <<'EOF'
utargetd = executable('utargetd', 'main.c',
  dependencies : [rpc_dep, config_dep, iscsi_fabric_dep, backstore_dep, scsi_dep, lib_dep])
EOF
	cat >"$tmp/src/cli/meson.build" <<'EOF'
# the CLI; it used to link iscsi_fabric_dep (a comment: not a link)
libedit_dep = dependency('libedit')
cli_deps = [config_core_dep, jansson_dep, libedit_dep]
cli_lib = static_library('utcli', 'a.c', dependencies : cli_deps)
cli_dep = declare_dependency(link_with : [cli_lib],
  dependencies : [config_core_dep, libedit_dep,])
utarget = executable('utarget', 'main.c', dependencies : [cli_dep])
EOF
}

# tree FILE CONTENT: a scratch tree with a clean base plus one file (a
# source, or a meson.build to append to)
tree() {
	rm -rf "$tmp/src"
	mkdir -p "$tmp/src/lib" "$tmp/src/scsi" "$tmp/src/backstore" "$tmp/src/fabric/iscsi" \
		"$tmp/src/config" "$tmp/src/rpc" "$tmp/src/daemon" "$tmp/src/cli"
	meson_tree
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
		mkdir -p "$(dirname "$tmp/src/$1")"
		printf '%b' "$2" >>"$tmp/src/$1"
	fi
}

builddir= # expect() checks this build directory too when set
expect() {
	local want=$1 what=$2 out rc
	out=$("$here/check_layers.sh" "$tmp" ${builddir:+"$builddir"} 2>&1)
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

# ---- the link graph, from the build files ----
# link FILE TEXT WHAT WANT: TEXT (a target or a dependency) appended to a
# layer's meson.build links what that layer must not
link() {
	tree "$1" "$2\n"
	expect fail "$3" "$4"
}
lib() { # a static library with these dependencies
	printf "x_lib = static_library('utx', 'x.c', dependencies : [%s])" "$1"
}
m=meson.build
# the CLI: only lib, the config's file side and its own code
link cli/$m "$(lib iscsi_fabric_dep)" "the CLI linking the fabric" \
	"src/cli/meson.build:8: x_lib (cli) links iscsi_fabric_dep (fabric)"
link cli/$m "x_lib = static_library('utx', 'x.c', link_with : scsi_lib)" \
	"the CLI linking the core (link_with)" "x_lib (cli) links scsi_lib (scsi)"
link cli/$m "x_dep = declare_dependency(link_with : cli_lib, dependencies : [backstore_dep])" \
	"the CLI's dependency bringing a back-store" "x_dep (cli) links backstore_dep (backstore)"
link cli/$m "executable('utx', 'x.c', dependencies : [cli_dep, rpc_dep])" \
	"a CLI program linking rpc" "executable('utx') (cli) links rpc_dep (rpc)"
link cli/$m "x_deps = [jansson_dep, config_dep]\n$(lib x_deps)" \
	"the CLI linking the config's apply side (through a list)" \
	"x_lib (cli) links config_dep (config)"
link cli/$m "x_deps = [jansson_dep]\nx_deps += [scsi_dep]\n$(lib x_deps)" \
	"the CLI linking the core (through a list grown with +=)" "x_lib (cli) links scsi_dep (scsi)"
link cli/$m "cli_dep = declare_dependency(link_with : cli_lib,\n  dependencies : [config_core_dep, iscsi_fabric_dep])" \
	"the CLI as it was (cli_dep with iscsi_fabric_dep)" \
	"cli_dep (cli) links iscsi_fabric_dep (fabric)"
# Net-SNMP: only the subagent of tools/snmp links it, nothing of src/
link daemon/$m "netsnmp_agent_dep = dependency('netsnmp-agent')" \
	"the daemon's build file naming Net-SNMP" "src/daemon/meson.build:3: src/ links nothing of Net-SNMP"
tree daemon/$m "# not netsnmp: the subagent is tools/snmp\n"
expect pass "a comment naming Net-SNMP"
# the config's file side: only lib
link config/$m "config_core_dep = declare_dependency(link_with : config_core_lib,\n  dependencies : [lib_dep, iscsi_fabric_dep])" \
	"config core linking the fabric" "config_core_dep (config core) links iscsi_fabric_dep (fabric)"
link config/$m "config_core_lib = static_library('utconfigcore', 'a.c', dependencies : [lib_dep, scsi_dep])" \
	"config core linking the core" "config_core_lib (config core) links scsi_dep (scsi)"
link config/$m "config_core_lib = static_library('utconfigcore', 'a.c', link_with : backstore_lib)" \
	"config core linking a back-store" "config_core_lib (config core) links backstore_lib (backstore)"
# the core: only lib
for d in iscsi_fabric_dep:fabric backstore_dep:backstore config_dep:config \
	"config_core_dep:config core"; do
	link scsi/$m "$(lib "${d%%:*}")" "the core linking ${d#*:}" \
		"x_lib (scsi) links ${d%%:*} (${d#*:})"
done
# a fabric: only lib and the core
for d in backstore_dep:backstore config_dep:config "config_core_dep:config core" rpc_dep:rpc \
	cli_dep:cli; do
	link fabric/iscsi/$m "$(lib "${d%%:*}")" "a fabric linking ${d#*:}" \
		"x_lib (fabric) links ${d%%:*} (${d#*:})"
done
link backstore/$m "$(lib iscsi_fabric_dep)" "a back-store linking a fabric" \
	"x_lib (backstore) links iscsi_fabric_dep (fabric)"
link rpc/$m "$(lib cli_dep)" "rpc linking the CLI" "x_lib (rpc) links cli_dep (cli)"
link daemon/$m "executable('utx', 'x.c', dependencies : [rpc_dep, cli_dep])" \
	"the daemon linking the CLI" "executable('utx') (daemon) links cli_dep (cli)"
link lib/$m "$(lib scsi_dep)" "lib linking the core" "x_lib (lib) links scsi_dep (scsi)"
link lib/$m "$(lib config_core_dep)" "lib linking the config's file side" \
	"x_lib (lib) links config_core_dep (config core)"
# what the check cannot read fails instead of passing
link cli/$m "$(lib nosuch_dep)" "a name no meson.build defines" \
	"x_lib links nosuch_dep, which no meson.build of the tree defines"
link cli/$m "x_lib = static_library('utx', 'x.c', dependencies : get_deps())" \
	"a dependency expression that is not a list of names" \
	"dependencies: check_layers reads a name or a list of names here"
link stats/$m "$(lib lib_dep)" "a new layer without a link rule" "no link rule for layer \"stats\""

# ---- the link graph, from a build directory with real archives ----
if ! command -v cc >/dev/null || ! command -v ar >/dev/null || ! command -v nm >/dev/null; then
	echo "FAIL: the build directory cases need cc, ar and nm"
	exit 1
fi
# archive DIR NAME CODE: BUILD/DIR/libNAME.a, one object compiled from CODE
archive() {
	mkdir -p "$tmp/build/$1"
	printf '%s\n' "$3" >"$tmp/build/$1/$2.c"
	cc -c -o "$tmp/build/$1/$2.o" "$tmp/build/$1/$2.c" &&
		rm -f "$tmp/build/$1/lib$2.a" && ar rcs "$tmp/build/$1/lib$2.a" "$tmp/build/$1/$2.o"
}
# fakebuild [ARCHIVE]: what meson leaves in a build directory: meson-info,
# build.ninja (utarget's link line: its own libraries, plus ARCHIVE) and
# the archives (lib <- scsi <- fabric; lib <- config core <- cli)
fakebuild() {
	rm -rf "$tmp/build"
	mkdir -p "$tmp/build/meson-info"
	archive src/lib utlib 'int ut_lib(void) { return 1; }'
	archive src/scsi utscsi 'int ut_lib(void); int ut_scsi(void) { return ut_lib(); }'
	archive src/fabric/iscsi utiscsi 'int ut_scsi(void); int ut_iscsi(void) { return ut_scsi(); }'
	archive src/config utconfigcore 'int ut_lib(void); int ut_cfg(void) { return ut_lib(); }'
	archive src/cli utcli 'int ut_cfg(void); int ut_cli(void) { return ut_cfg(); }'
	python3 - "$tmp" <<'EOF'
import json, sys
t = sys.argv[1]
json.dump({"directories": {"source": t, "build": t + "/build"}},
          open(t + "/build/meson-info/meson-info.json", "w"))
def target(d, n, kind, f):
    return {"name": n, "type": kind, "defined_in": f"{t}/{d}/meson.build",
            "filename": [f"{t}/build/{d}/{f}"]}
json.dump([target("src/lib", "utlib", "static library", "libutlib.a"),
           target("src/scsi", "utscsi", "static library", "libutscsi.a"),
           target("src/fabric/iscsi", "utiscsi", "static library", "libutiscsi.a"),
           target("src/config", "utconfigcore", "static library", "libutconfigcore.a"),
           target("src/cli", "utcli", "static library", "libutcli.a"),
           target("src/cli", "utarget", "executable", "utarget"),
           target("tests", "test_x", "executable", "test_x")],
          open(t + "/build/meson-info/intro-targets.json", "w"))
EOF
	printf 'build src/cli/utarget: c_LINKER src/cli/utarget.p/main.c.o | src/cli/libutcli.a src/config/libutconfigcore.a src/lib/libutlib.a %s /usr/lib/libjansson.so || meson-test-prereq\n LINK_ARGS = -Wl,--start-group\n' \
		"${1:-}" >"$tmp/build/build.ninja"
	printf 'build tests/test_x: c_LINKER tests/test_x.p/t.c.o | src/fabric/iscsi/libutiscsi.a src/cli/libutcli.a\n' \
		>>"$tmp/build/build.ninja"
}
tree
fakebuild
builddir=$tmp/build
expect pass "a clean build directory (a test program may link anything)"
fakebuild src/fabric/iscsi/libutiscsi.a
expect fail "the CLI program linked with the fabric" \
	"build.ninja: utarget (cli) is linked with src/fabric/iscsi/libutiscsi.a (fabric)"
fakebuild
archive src/scsi utscsi 'int ut_iscsi(void); int ut_scsi(void) { return ut_iscsi(); }'
expect fail "the core calling the fabric (no build file says so)" \
	"libutscsi.a: utscsi (scsi) uses ut_iscsi of src/fabric/iscsi/libutiscsi.a (fabric)"
fakebuild
archive src/config utconfigcore 'int ut_scsi(void); int ut_cfg(void) { return ut_scsi(); }'
expect fail "config core calling the core" \
	"utconfigcore (config core) uses ut_scsi of src/scsi/libutscsi.a (scsi)"
fakebuild
archive src/cli utcli 'int ut_iscsi(void); int ut_cli(void) { return ut_iscsi(); }'
expect fail "the CLI calling the fabric" \
	"utcli (cli) uses ut_iscsi of src/fabric/iscsi/libutiscsi.a (fabric)"
fakebuild
sed -i 's|^ LINK_ARGS = .*| LINK_ARGS = -Wl,--start-group -lnetsnmpagent -lnetsnmp|' "$tmp/build/build.ninja"
expect fail "the CLI program linked with Net-SNMP (only tools/snmp may be)" \
	"utarget (cli) is linked with Net-SNMP"
builddir=$tmp/src
expect fail "a directory that is not a meson build directory" "is not a meson build directory"
exit $fail
