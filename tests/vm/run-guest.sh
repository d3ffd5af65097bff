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
# Target mode (-m target): the roles flip. The guest loads scsi_debug
# (parameters -D 'ARGS'), runs BUILD's utargetd (copied with its shared
# libraries into the per-run archive, and the utarget CLI) with the config
# -C FILE, whose @SG@ stands for scsi_debug's first /dev/sgN, listening on the guest's 0.0.0.0:3260,
# which QEMU forwards from the host's 127.0.0.1:PORT (-f PORT). Once it
# listens, the host command -H 'SCRIPT' runs here (bash -c, with
# UT_FWD_PORT=PORT; its output in DIR/host.out, its status in DIR/host.rc);
# then the guest runs each CMD (with SG and DISK: scsi_debug's first LUN's
# nodes, SG2 and DISK2 its second's when it has one; utarget in PATH) and
# stops utargetd. -p and -t are not used; -T covers the whole run, host
# command included.
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
mode=initiator fwd='' ut_config='' scsi_debug='' host_cmd=
usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 3
}
while getopts "b:p:t:i:o:T:c:w:vm:f:C:D:H:h" o; do
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
	m) mode=$OPTARG ;;
	f) fwd=$OPTARG ;;
	C) ut_config=$OPTARG ;;
	D) scsi_debug=$OPTARG ;;
	H) host_cmd=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
case $mode in
initiator) [ -n "$port" ] && [ -n "$target" ] || usage ;;
target)
	[ -n "$fwd" ] && [ -f "$ut_config" ] && [ -n "$host_cmd" ] || usage
	[ -x "$build/src/daemon/utargetd" ] ||
		{ echo "run-guest: no $build/src/daemon/utargetd"; exit 3; }
	port=0
	;;
*) usage ;;
esac
for v in "$port" "$limit" "$cmd_limit" "$disk_wait" ${fwd:+"$fwd"}; do
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
	echo "UT_MODE=$mode"
	echo "UT_SCSI_DEBUG=$(q "$scsi_debug")"
	echo "UT_HOST_WAIT=$limit"
} >"$dir/run/ut/config"
if [ "$mode" = target ]; then
	# utargetd, the utarget CLI and their libraries, each at its path (the
	# guest's own copies of the same files are the same bytes)
	mkdir -p "$dir/run/ut/bin"
	cp "$build/src/daemon/utargetd" "$build/src/cli/utarget" "$dir/run/ut/bin/"
	cp "$ut_config" "$dir/run/ut/utarget.json"
	for lib in $(ldd "$build/src/daemon/utargetd" "$build/src/cli/utarget" |
		awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | sort -u); do
		mkdir -p "$dir/run$(dirname "$lib")"
		cp -L "$lib" "$dir/run$lib"
	done
fi
n=0
for c in "$@"; do
	n=$((n + 1))
	printf '%s\n' "$c" >"$dir/run/ut/cmds/$(printf %03d $n)"
	printf '%s\n' "$c" >"$dir/steps/cmd$n.cmd"
done
(cd "$dir/run" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$dir/run.cpio"
cat "$guest/initrd.cpio" "$dir/run.cpio" >"$dir/initrd.img"
rm -rf "$dir/run" "$dir/run.cpio"

if [ "$mode" = target ]; then
	echo "run-guest: booting $(basename "$(readlink -f "$guest/vmlinuz")") under TCG as the target, 127.0.0.1:$fwd -> guest :3260, $n commands"
else
	echo "run-guest: booting $(basename "$(readlink -f "$guest/vmlinuz")") under TCG, target $target at 10.0.2.2:$port, $n commands"
fi
# target mode: the host's port forwarded to the guest's utargetd, a bigger
# kernel log (scsi_debug may log every command), and a second serial port
# (FIFOs ctl.in/ctl.out) on which the host says it is done
netdev=user,id=n0 mem=512
extra=() append="console=ttyS0 loglevel=3 panic=-1 mitigations=off"
if [ "$mode" = target ]; then
	netdev="$netdev,hostfwd=tcp:127.0.0.1:$fwd-:3260"
	rm -f "$dir/ctl.in" "$dir/ctl.out"
	mkfifo "$dir/ctl.in" "$dir/ctl.out"
	extra=(-chardev "pipe,id=ctl,path=$dir/ctl" -serial chardev:ctl)
	append="$append log_buf_len=16M"
	mem=768
fi
t0=$(date +%s.%N)
# -nodefaults: no VGA, floppy or CD-ROM to emulate; romfile=: no PXE ROM.
# panic=-1 with -no-reboot: a guest that panics ends QEMU at once.
timeout -k 10 "$limit" qemu-system-x86_64 \
	-machine pc,accel=tcg -cpu max -m "$mem" -smp 1 \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial stdio "${extra[@]}" \
	-kernel "$guest/vmlinuz" -initrd "$dir/initrd.img" \
	-append "$append" \
	-netdev "$netdev" -device virtio-net-pci,netdev=n0,romfile= \
	</dev/null >"$dir/console.log" 2>"$dir/qemu.err" &
qpid=$!
if [ "$mode" = target ]; then
	# the guest's utargetd listens (READY), or the guest ended before
	while kill -0 $qpid 2>/dev/null && ! grep -q '^@@UT@@ READY' "$dir/console.log" &&
		! grep -q '^@@UT@@ DONE' "$dir/console.log"; do
		sleep 0.5
	done
	if grep -q '^@@UT@@ READY' "$dir/console.log" && kill -0 $qpid 2>/dev/null; then
		th0=$(date +%s.%N)
		echo "run-guest: the guest's utargetd listens; host command: $host_cmd"
		UT_FWD_PORT=$fwd bash -c "$host_cmd" >"$dir/host.out" 2>&1
		echo $? >"$dir/host.rc"
		th1=$(date +%s.%N)
		echo "run-guest: host command rc=$(cat "$dir/host.rc") in $(echo "$th0 $th1" | awk '{ printf "%.1f", $2 - $1 }')s"
		# the FIFO is held open by QEMU (bounded, should it be gone)
		timeout 10 sh -c 'echo done >"$1"' _ "$dir/ctl.in"
	fi
fi
wait $qpid
qrc=$?
t1=$(date +%s.%N)
rm -f "$dir/ctl.in" "$dir/ctl.out"
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
for s in modules modules-target net disk utargetd host iscsid discovery login devices; do
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
