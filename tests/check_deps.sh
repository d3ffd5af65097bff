#!/bin/bash
# check_deps.sh [ROOT]: the dependency lists of scripts/deps.sh and their use
# (default ROOT: this repository). Installs nothing. Checks that
#   - `deps.sh list run`, `list test` and `list vm` print the three lists, and
#     the test and vm lists hold the whole run list;
#   - the run list holds the compiler, meson, ninja, pkg-config and a Debian
#     package for every dependency() that meson.build and src/**/meson.build
#     require, and tools/**/meson.build (the SNMP subagent: libsnmp-dev)
#     (a new one must be added to the lists, and here);
#   - the run list holds no test tool: no tgt, clang, libclang-rt, cmocka
#     (libiscsi-dev is a run dependency: the iscsi gateway back-store links
#     libiscsi); and librbd-dev, librados-dev (find_library('rbd'/'rados'):
#     Debian ships no .pc for them);
#   - both lists hold libiscsi-bin, qemu-utils and qemu-block-extra (the
#     README's "Connecting" clients, installed by `make run`; qemu-img's
#     iscsi:// driver is in qemu-block-extra, only a Recommends of qemu-utils
#     that --no-install-recommends leaves out) and iproute2 (run-demo.sh's ss);
#   - the test list holds the test, fuzz and benchmark tools: clang,
#     libclang-rt-14-dev, libcmocka-dev, libiscsi-dev, tgt, procps, python3,
#     python3-prometheus-client and curl (tests/integration/metrics.sh),
#     git, snmpd and snmp (tests/integration/snmp.sh), ceph-mon, ceph-osd
#     and ceph-common (tests/ceph/, the RBD tests' cluster), open-isns-server
#     and open-isns-utils (tests/integration/isns.sh);
#   - the vm list holds what tests/vm/ needs: qemu-system-x86, busybox-static,
#     open-iscsi, sg3-utils, smartmontools, cpio, procps; and no kernel
#     package (the guest's kernel is downloaded, never installed);
#   - deps.sh stops, disables or signals nothing: no systemctl, service,
#     invoke-rc.d, pkill, killall or kill outside comments;
#   - the Makefile: `make run` installs the run list only, `make test`,
#     `make bench`, `make fuzz`, `make soak`, `make unit` the test list,
#     `make vm-test` the vm list (make -n).
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
deps=$root/scripts/deps.sh
fail=0
ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	fail=1
}

run_list=$(sh "$deps" list run 2>&1) || bad "deps.sh list run failed: $run_list"
test_list=$(sh "$deps" list test 2>&1) || bad "deps.sh list test failed: $test_list"
in_list() { echo "$1" | grep -qx -- "$2"; }
vm_list=$(sh "$deps" list vm 2>&1) || bad "deps.sh list vm failed: $vm_list"
[ -n "$run_list" ] && [ -n "$test_list" ] && [ -n "$vm_list" ] || bad "a list is empty (run: $(echo $run_list); test: $(echo $test_list))"

missing=""
for p in $run_list; do in_list "$test_list" "$p" || missing="$missing $p"; done
[ -z "$missing" ] && ok "the test list holds the run list ($(echo "$run_list" | wc -l) packages)" ||
	bad "the test list lacks run packages:$missing"
missing=""
for p in $run_list; do in_list "$vm_list" "$p" || missing="$missing $p"; done
[ -z "$missing" ] && ok "the vm list holds the run list" || bad "the vm list lacks run packages:$missing"
missing=""
for p in qemu-system-x86 busybox-static open-iscsi sg3-utils smartmontools cpio procps; do
	in_list "$vm_list" "$p" || missing="$missing $p"
done
[ -z "$missing" ] && ok "the vm list holds qemu-system-x86, busybox-static, open-iscsi, sg3-utils, smartmontools, cpio, procps" ||
	bad "the vm list lacks:$missing"
found=$(echo "$vm_list" | grep -E '^linux-image' | tr '\n' ' ')
[ -z "$found" ] && ok "the vm list installs no kernel (tests/vm/build-guest.sh downloads it)" ||
	bad "the vm list installs a kernel: $found"

# meson dependency name -> Debian package (threads, dl: the C library)
declare -A pkg_of=([jansson]=libjansson-dev [liburing]=liburing-dev [libcrypto]=libssl-dev
	[libedit]=libedit-dev [libidn]=libidn-dev [libiscsi]=libiscsi-dev [libisal]=libisal-dev [libmicrohttpd]=libmicrohttpd-dev
	[netsnmp-agent]=libsnmp-dev [threads]=libc6-dev [dl]=libc6-dev)
need="build-essential meson ninja-build pkg-config"
while read -r name; do
	[ -n "$name" ] || continue
	if [ -z "${pkg_of[$name]:-}" ]; then
		bad "meson requires dependency('$name'): no package for it in check_deps.sh (add it to deps.sh's run list and here)"
		continue
	fi
	[ "${pkg_of[$name]}" = libc6-dev ] || need="$need ${pkg_of[$name]}"
done < <(cat "$root/meson.build" $(find "$root/src" "$root/tools" -name meson.build) |
	grep -E "dependency\('[^']+'" | grep -vE "required *: *(false|get_option)" |
	sed -E "s/.*dependency\('([^']+)'.*/\1/" | sort -u)
missing=""
for p in $need; do in_list "$run_list" "$p" || missing="$missing $p"; done
[ -z "$missing" ] && ok "the run list builds the daemon and the CLI: $need" ||
	bad "the run list lacks:$missing"
# find_library() names (no .pc file in Debian): library -> package
declare -A lib_pkg=([rbd]=librbd-dev [rados]=librados-dev)
missing=""
while read -r name; do
	[ -n "$name" ] || continue
	p=${lib_pkg[$name]:-}
	if [ -z "$p" ]; then
		bad "meson finds library '$name': no package for it in check_deps.sh"
	elif ! in_list "$run_list" "$p"; then
		missing="$missing $p"
	fi
done < <(cat "$root/meson.build" $(find "$root/src" -name meson.build) |
	grep -oE "find_library\('[^']+'" | sed -E "s/find_library\('//; s/'$//" | sort -u)
[ -z "$missing" ] && ok "the run list has a package for every find_library() (no .pc: librbd, librados)" ||
	bad "the run list lacks:$missing"

found=""
for p in tgt clang clang-14 libclang-rt-14-dev libcmocka-dev; do
	in_list "$run_list" "$p" && found="$found $p"
done
[ -z "$found" ] && ok "the run list holds no test tool (tgt, clang, libclang-rt, cmocka)" ||
	bad "the run list holds test tools:$found"

for list in run test; do
	l=$run_list
	[ $list = test ] && l=$test_list
	missing=""
	for p in libiscsi-bin qemu-utils qemu-block-extra iproute2; do
		in_list "$l" "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && ok "the $list list holds libiscsi-bin, qemu-utils, qemu-block-extra (iscsi://), iproute2" ||
		bad "the $list list lacks:$missing"
done
if grep -q "installed by \`make run\`" "$root/README.md" && grep -q "qemu-img info iscsi://" "$root/README.md"; then
	ok "README says make run installs the clients of 'Connecting' (qemu-img iscsi://): the run list has them"
else
	bad "README's 'Connecting' no longer says what make run installs: check the run list against it"
fi

missing=""
tools="clang libclang-rt-14-dev libcmocka-dev libiscsi-dev tgt procps python3 python3-prometheus-client curl git snmpd snmp ceph-mon ceph-osd ceph-common open-isns-server open-isns-utils"
for p in $tools; do
	in_list "$test_list" "$p" || missing="$missing $p"
done
[ -z "$missing" ] && ok "the test list holds $(echo $tools | sed 's/ /, /g')" ||
	bad "the test list lacks:$missing"

hits=$(sed 's/#.*//' "$deps" | grep -nwE 'systemctl|service|invoke-rc\.d|pkill|killall|kill')
[ -z "$hits" ] && ok "deps.sh stops, disables or signals nothing (no systemctl/service/pkill/killall/kill)" ||
	bad "deps.sh stops services or signals processes: $hits"

# which list each make target installs (make -n prints, runs nothing)
for t in run test bench fuzz soak unit vm-test; do
	out=$(make -n -C "$root" "$t" 2>&1)
	r=$(echo "$out" | grep -c 'scripts/deps.sh run$')
	s=$(echo "$out" | grep -c 'scripts/deps.sh test$')
	v=$(echo "$out" | grep -c 'scripts/deps.sh vm$')
	case $t in
	run) want_r=1 want_s=0 want_v=0 list=run ;;
	vm-test) want_r=0 want_s=0 want_v=1 list=vm ;;
	*) want_r=0 want_s=1 want_v=0 list=test ;;
	esac
	if [ "$r" = "$want_r" ] && [ "$s" = "$want_s" ] && [ "$v" = "$want_v" ]; then
		ok "make $t installs the $list list"
	else
		bad "make $t: 'deps.sh run' $r times, 'deps.sh test' $s times, 'deps.sh vm' $v times (want $want_r, $want_s, $want_v)"
	fi
done
exit $fail
