#!/bin/bash
# run-guest.sh [options] -- CMD...: boot the VM tests' Linux guest under
# QEMU (TCG: no KVM needed), log its kernel iSCSI initiator into a target
# that listens on this machine's 127.0.0.1:PORT (the guest dials 10.0.2.2,
# which QEMU's user network connects to the host's loopback), run each CMD
# in the guest and hand back what each printed and its exit status.
#
#   -b BUILD   build directory; the guest is assembled in BUILD/vm by
#              build-guest.sh (kernel package cached in BUILD/vm/cache)
#   -p PORT    the target's TCP port on 127.0.0.1 (required)
#   -t IQN     the target's name (required)
#   -i IQN     the guest initiator's name (iqn.2026-12.org.utarget:vm-guest)
#   -o DIR     where the results go (default: a new temporary directory)
#   -T SECS    the whole run's limit (default 600), -c SECS each command's
#              (default 120), -w SECS the wait for the LUNs' devices (60)
#   -v         print the guest's console once it has stopped
# Each CMD is a shell script run by the guest's busybox sh, with DISK<lun>
# and SG<lun> set to each LUN's /dev/sdX and /dev/sgN, DISK and SG to the
# first disk LUN's (DISKS and SGS: every LUN's, in LUN order); the guest has
# busybox, iscsiadm, sg3-utils and smartctl.
#
# Results in DIR: console.log (the serial console), and for every step of
# the guest (tests/vm/init.sh: modules, net, iscsid, discovery, login,
# devices, cmd1..cmdN, logout, iscsid-log, dmesg) steps/NAME.out (its
# output), steps/NAME.rc (its exit status) and steps/NAME.up (the guest's
# uptime in seconds when it ended); cmdN is the N-th CMD. The last line
# on stdout is "run-guest: DIR". Exit status: 0 the guest logged in and ran
# every CMD (whatever their statuses: the caller asserts on them), 1 a setup
# step failed (DIR/failed names it), 2 the guest did not finish (timeout,
# crash), 3 usage or a missing tool.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

build=build port='' target='' initiator=iqn.2026-12.org.utarget:vm-guest dir=''
limit=600 cmd_limit=120 disk_wait=60 verbose=
usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 3
}
while getopts "b:p:t:i:o:T:c:w:vh" o; do
	case $o in
	b) build=$OPTARG ;;
	p) port=$OPTARG ;;
	t) target=$OPTARG ;;
	i) initiator=$OPTARG ;;
	o) dir=$OPTARG ;;
	T) limit=$OPTARG ;;
	c) cmd_limit=$OPTARG ;;
	w) disk_wait=$OPTARG ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ -n "$port" ] && [ -n "$target" ] || usage
for v in "$port" "$limit" "$cmd_limit" "$disk_wait"; do
	[[ $v =~ ^[0-9]+$ ]] || usage
done
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run-guest: qemu-system-x86_64 not found (scripts/deps.sh vm)"; exit 3; }

"$here/build-guest.sh" "$build/vm" || { echo "run-guest: build-guest.sh failed"; exit 3; }
guest=$(cd "$build/vm" && pwd)

if [ -z "$dir" ]; then
	dir=$(mktemp -d /tmp/utarget-vm.XXXXXX)
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/steps" "$dir/run" "$dir/failed" "$dir/done" "$dir/console.log"
mkdir -p "$dir/steps" "$dir/run/ut/cmds"

# The per-run part of the initramfs: /ut/config and /ut/cmds/NNN, a second
# cpio archive after the guest's (the kernel unpacks both).
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	echo "UT_HOST=10.0.2.2"
	echo "UT_PORT=$port"
	echo "UT_TARGET=$(q "$target")"
	echo "UT_INITIATOR=$(q "$initiator")"
	echo "UT_CMD_TIMEOUT=$cmd_limit"
	echo "UT_DISK_WAIT=$disk_wait"
} >"$dir/run/ut/config"
n=0
for c in "$@"; do
	n=$((n + 1))
	printf '%s\n' "$c" >"$dir/run/ut/cmds/$(printf %03d $n)"
	printf '%s\n' "$c" >"$dir/steps/cmd$n.cmd"
done
(cd "$dir/run" && find ut | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$dir/run.cpio"
cat "$guest/initrd.cpio" "$dir/run.cpio" >"$dir/initrd.img"
rm -rf "$dir/run" "$dir/run.cpio"

echo "run-guest: booting $(basename "$(readlink -f "$guest/vmlinuz")") under TCG, target $target at 10.0.2.2:$port, $n commands"
t0=$(date +%s.%N)
# -nodefaults: no VGA, floppy or CD-ROM to emulate; romfile=: no PXE ROM.
# panic=-1 with -no-reboot: a guest that panics ends QEMU at once.
timeout -k 10 "$limit" qemu-system-x86_64 \
	-machine pc,accel=tcg -cpu max -m 512 -smp 1 \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial stdio \
	-kernel "$guest/vmlinuz" -initrd "$dir/initrd.img" \
	-append "console=ttyS0 loglevel=3 panic=-1 mitigations=off" \
	-netdev user,id=n0 -device virtio-net-pci,netdev=n0,romfile= \
	</dev/null >"$dir/console.log" 2>"$dir/qemu.err"
qrc=$?
t1=$(date +%s.%N)
rm -f "$dir/initrd.img"

# console.log -> steps/NAME.out, NAME.rc, NAME.up
tr -d '\r' <"$dir/console.log" | awk -v d="$dir/steps" '
	/^@@UT@@ BEGIN / { step = $3; out = d "/" step ".out"; printf "" >out; next }
	/^@@UT@@ END / {
		if (step != "") {
			close(out); sub(/^rc=/, "", $4); sub(/^up=/, "", $5)
			print $4 >(d "/" $3 ".rc"); close(d "/" $3 ".rc")
			print $5 >(d "/" $3 ".up"); close(d "/" $3 ".up")
		}
		step = ""; next
	}
	/^@@UT@@ DONE / { print $3 >(d "/../done"); step = ""; next }
	step != "" { print >>out }
'
[ -n "$verbose" ] && tr -d '\r' <"$dir/console.log"
secs=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
for s in modules net iscsid discovery login devices; do
	[ -f "$dir/steps/$s.rc" ] &&
		echo "run-guest: $s rc=$(cat "$dir/steps/$s.rc") (guest up $(cat "$dir/steps/$s.up")s)"
done
for ((i = 1; i <= n; i++)); do
	echo "run-guest: cmd$i rc=$(cat "$dir/steps/cmd$i.rc" 2>/dev/null || echo none): $(head -n 1 "$dir/steps/cmd$i.cmd")"
done
done=$(cat "$dir/done" 2>/dev/null)
echo "run-guest: guest ran ${secs}s (qemu exit $qrc), $(grep -c . "$dir/console.log") console lines, end: ${done:-none}"
echo "run-guest: $dir"
case $done in
ok) exit 0 ;;
fail:*)
	echo "${done#fail:}" >"$dir/failed"
	echo "run-guest: setup step ${done#fail:} failed:"
	sed 's/^/  | /' "$dir/steps/${done#fail:}.out" 2>/dev/null | tail -n 30
	exit 1
	;;
*)
	echo "run-guest: the guest did not finish (qemu exit $qrc$([ $qrc = 124 ] && echo ": timeout after ${limit}s")); console tail:"
	tr -d '\r' <"$dir/console.log" | tail -n 30 | sed 's/^/  | /'
	sed 's/^/  qemu: /' "$dir/qemu.err" | tail -n 5
	exit 2
	;;
esac
