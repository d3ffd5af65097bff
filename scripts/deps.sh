#!/bin/sh
# deps.sh [run|test|vm|list NAME]: install the Debian 12 packages of a list,
# skipping those already installed. The one file of dependencies, with three lists:
#   run   building and running the daemon and the CLI (`make run`; libmicrohttpd
#         serves /metrics; libsnmp-dev, Net-SNMP's agent library, for the
#         SNMP subagent utarget-agentx that is built by default), and the clients the README's "Connecting" section
#         uses (iscsi-ls, iscsi-inq, qemu-img with its iscsi:// driver, which is in qemu-block-extra);
#         libiscsi-dev for the iscsi gateway back-store (src/backstore/iscsi.c),
#         librbd-dev (with librados-dev) for the Ceph RBD back-store
#         (src/backstore/rbd.c; no .pc file, meson finds -lrbd -lrados)
#   test  the run list plus what the tests, the fuzzers and the benchmark need
#         (`make test`, `make bench`, `make fuzz`, `make soak`): clang and its
#         libFuzzer/sanitizer runtime, clang-format (the formatting check),
#         cmocka, tgt (the benchmark's
#         reference target), python3, git; python3-prometheus-client and
#         curl (the /metrics test parses the exposition with the client's parser);
#         snmpd and snmp (tests/integration/snmp.sh runs a private snmpd as
#         AgentX master, walks it with snmpwalk/snmpget, and loads the
#         shipped MIB modules with snmptranslate); ceph-mon, ceph-osd and
#         ceph-common for the throw-away one-node Ceph cluster of the RBD
#         tests (tests/ceph/: started in a temporary directory, on 127.0.0.1);
#         open-isns-server and open-isns-utils: isnsd and isnsadm for the iSNS
#         test (tests/integration/isns.sh runs a private isnsd on a port of its
#         own; installing the package may start the system's isnsd on 3205)
#   vm    the run list plus what the Linux-initiator test in a QEMU guest
#         needs (`make vm-test`, tests/vm/): qemu-system-x86 (TCG), and the
#         guest's tools, copied with their libraries from the host into the
#         guest's initramfs: busybox-static, open-iscsi, sg3-utils,
#         smartmontools; cpio packs the initramfs, procps gives pgrep. The
#         guest's kernel is not installed: tests/vm/build-guest.sh fetches
#         linux-image-amd64's image package with `apt-get download` into the
#         build directory and unpacks it there
# `deps.sh list NAME` prints a list, one package a line, and installs nothing.
# Packages are installed with --no-install-recommends, so each list names
# everything it needs explicitly (a recommended package, such as qemu-utils'
# qemu-block-extra, is never pulled in by itself). This script installs
# packages only: it does not start, stop or disable any service and does not
# signal any process (installing tgt may start the system's tgtd on port
# 3260; the tests and the benchmark start their own tgtd on ports of their
# own, and `make run` says so when port 3260 is taken).
set -eu

RUN_PKGS="
build-essential
meson
ninja-build
pkg-config
libjansson-dev
libisal-dev
liburing-dev
libssl-dev
libidn-dev
libedit-dev
libmicrohttpd-dev
libsnmp-dev
libiscsi-dev
librbd-dev
librados-dev
iproute2
libiscsi-bin
qemu-utils
qemu-block-extra
"

TEST_PKGS="$RUN_PKGS
clang
clang-format
libclang-rt-14-dev
libcmocka-dev
tgt
procps
python3
python3-prometheus-client
curl
git
snmpd
snmp
ceph-mon
ceph-osd
ceph-common
open-isns-server
open-isns-utils
linux-perf
strace
"

VM_PKGS="$RUN_PKGS
python3
qemu-system-x86
busybox-static
open-iscsi
sg3-utils
smartmontools
ddpt
cpio
procps
"

usage() {
	echo "usage: deps.sh [run|test|vm|list run|list test|list vm]" >&2
	exit 2
}

pkgs_of() {
	case $1 in
	run) echo "$RUN_PKGS" ;;
	test) echo "$TEST_PKGS" ;;
	vm) echo "$VM_PKGS" ;;
	*) usage ;;
	esac
}

case ${1:-test} in
list)
	[ $# = 2 ] || usage
	pkgs_of "$2" | sed '/^$/d'
	exit 0
	;;
run | test | vm) PKGS=$(pkgs_of "${1:-test}") ;;
*) usage ;;
esac

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
