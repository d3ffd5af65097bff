#!/bin/sh
# init.sh: /init of the VM tests' guest (busybox sh; tests/vm/build-guest.sh
# puts it in the initramfs, run-guest.sh adds /ut/config and /ut/cmds/*).
#
# Brings up the network (QEMU user networking: the guest is 10.0.2.15, the
# host's loopback is 10.0.2.2), starts iscsid, discovers and logs into
# UT_TARGET at UT_HOST:UT_PORT with the kernel's initiator (iscsi_tcp),
# waits for the LUNs' /dev/sdX and /dev/sgN, runs each /ut/cmds/NNN (a shell
# script; DISK<lun> and SG<lun> name a LUN's devices, DISK and SG the first
# disk LUN's, DISKS and SGS every LUN's, in LUN order) and powers off. Every
# step prints, on the console,
#   @@UT@@ BEGIN <step> <first line of the command>
#   <its output, stdout and stderr>
#   @@UT@@ END <step> rc=<exit status> up=<the guest's uptime, seconds>
# and the last line is "@@UT@@ DONE ok" or "@@UT@@ DONE fail:<step>" (a setup
# step that failed: no command runs after it, but logout, iscsid's log and
# dmesg are still shown). Steps: modules, net, iscsid, discovery, login,
# devices, cmd1..cmdN, logout, iscsid-log, dmesg.
#
# UT_MODE=target (run-guest.sh -m target) flips the roles: the guest is the
# target. Steps: modules, modules-target (scsi_debug with UT_SCSI_DEBUG's
# parameters), net, disk (scsi_debug's /dev/sgN and /dev/sdX: SG and DISK,
# and SG2, DISK2 of its second LUN when it has one),
# utargetd (/ut/bin/utargetd with /ut/utarget.json, @SG@ replaced by SG,
# listening on 0.0.0.0:3260; the host reaches it through QEMU's hostfwd),
# then "@@UT@@ READY" and the step host, which waits until the host writes a
# line to the second serial port (/dev/ttyS1: the host's initiators are
# done), then cmd1..cmdN, utargetd-stop (SIGTERM, its exit status),
# utargetd-log, dmesg.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1

M=@@UT@@
UT_HOST=10.0.2.2
UT_PORT=3260
UT_TARGET=
UT_INITIATOR=iqn.2026-12.org.utarget:vm-guest
UT_CMD_TIMEOUT=120
UT_DISK_WAIT=60
UT_MODE=initiator
UT_SCSI_DEBUG=
UT_HOST_WAIT=600
. /ut/config

say() { echo "$M $*"; }

# step NAME SCRIPT: run SCRIPT (sh -c) under a timeout, output between markers
step() {
	say "BEGIN $1 $(echo "$2" | head -n 1)"
	timeout "$UT_CMD_TIMEOUT" sh -c "$2" >/tmp/step.out 2>&1
	rc=$?
	# every line ends with a newline, so END is a line of its own
	awk 1 /tmp/step.out
	say "END $1 rc=$rc up=$(cut -d' ' -f1 /proc/uptime)"
	return $rc
}

# The end: the initiator logs out and shows iscsid's log; the target mode
# stops utargetd and shows its log; then the kernel's log and DONE.
finish() {
	if [ "$UT_MODE" = target ]; then
		if [ -n "${UT_DAEMON:-}" ]; then
			step utargetd-stop "kill -TERM $UT_DAEMON; i=0
				while kill -0 $UT_DAEMON 2>/dev/null; do
					i=\$((i + 1)); [ \$i -lt 100 ] || { echo 'utargetd does not stop'; exit 1; }; sleep 0.2
				done; echo stopped"
		fi
		step utargetd-log "cat /tmp/utargetd.log"
	else
		if [ -n "$logged_in" ]; then
			step logout "iscsiadm -m node -T '$UT_TARGET' -p '$UT_HOST:$UT_PORT' --logout"
		fi
		step iscsid-log "cat /tmp/iscsid.log"
	fi
	step dmesg "dmesg"
	say "DONE $1"
	sync
	poweroff -f
	reboot -f
	sleep 1000
}

say "GUEST $(uname -r) up=$(cut -d' ' -f1 /proc/uptime)"

step modules 'while read -r m; do insmod "$m" || exit 1; done </ut/modules; echo "$(wc -l </ut/modules) modules loaded"' ||
	finish fail:modules

if [ "$UT_MODE" = target ]; then
	export UT_SCSI_DEBUG
	step modules-target 'while read -r m; do
		case $m in
		*/scsi_debug.ko) insmod "$m" $UT_SCSI_DEBUG || exit 1 ;;
		*) insmod "$m" || exit 1 ;;
		esac
	done </ut/modules-target; echo "scsi_debug $UT_SCSI_DEBUG"' || finish fail:modules-target
fi

step net "
	i=0
	while ! ip link show eth0 >/dev/null 2>&1; do
		i=\$((i + 1)); [ \$i -lt 50 ] || { echo no eth0; exit 1; }; sleep 0.1
	done
	ip link set lo up && ip link set eth0 up &&
	ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 &&
	ip -4 addr show eth0 | grep inet" || finish fail:net

if [ "$UT_MODE" = target ]; then
	# scsi_debug's LUNs: "sgN sdX" each, once every one has both nodes
	step disk '
		i=0
		while :; do
			: >/tmp/disks
			n=0 ok=1
			for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*:*:*:*; do
				[ -d "$d" ] || continue
				n=$((n + 1))
				g=$(ls "$d/scsi_generic" 2>/dev/null | head -n 1)
				b=$(ls "$d/block" 2>/dev/null | head -n 1)
				if [ -n "$g" ] && [ -n "$b" ] && [ -c "/dev/$g" ] && [ -b "/dev/$b" ]; then
					echo "/dev/$g /dev/$b" >>/tmp/disks
				else
					ok=
				fi
			done
			[ $n -gt 0 ] && [ -n "$ok" ] && break
			i=$((i + 1)); [ $i -lt $((UT_DISK_WAIT * 5)) ] || { echo "no scsi_debug disk"; exit 1; }
			sleep 0.2
		done
		cat /tmp/disks; sg_inq "$(head -n 1 /tmp/disks | cut -d" " -f1)"' || finish fail:disk
	read -r SG DISK </tmp/disks
	set -- $(sed -n 2p /tmp/disks)
	SG2=${1:-} DISK2=${2:-}
	export SG DISK SG2 DISK2
	export PATH=$PATH:/ut/bin
	mkdir -p /tmp/ut
	sed "s|@SG@|$SG|g" /ut/utarget.json >/tmp/utarget.json
	/ut/bin/utargetd -f -c /tmp/utarget.json --listen 0.0.0.0:3260 --log-level info \
		>/tmp/utargetd.log 2>&1 &
	UT_DAEMON=$!
	# listening: 0CBC (3260) in state 0A (LISTEN) in /proc/net/tcp
	step utargetd '
		i=0
		while ! awk "\$2 ~ /:0CBC\$/ && \$4 == \"0A\" { f = 1 } END { exit !f }" /proc/net/tcp; do
			kill -0 '"$UT_DAEMON"' 2>/dev/null || { echo "utargetd exited"; cat /tmp/utargetd.log; exit 1; }
			i=$((i + 1)); [ $i -lt 300 ] || { echo "utargetd does not listen"; exit 1; }
			sleep 0.2
		done
		echo "utargetd (pid '"$UT_DAEMON"') listens on 0.0.0.0:3260"' || finish fail:utargetd
	say READY
	saved=$UT_CMD_TIMEOUT
	UT_CMD_TIMEOUT=$UT_HOST_WAIT
	step host 'read -r line </dev/ttyS1; echo "host: $line"'
	UT_CMD_TIMEOUT=$saved
	n=0
	for f in $(ls /ut/cmds 2>/dev/null | sort); do
		n=$((n + 1))
		step "cmd$n" "$(cat "/ut/cmds/$f")"
	done
	finish ok
fi

mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /etc/iscsi/ifaces /etc/iscsi/isns \
	/etc/iscsi/static /etc/iscsi/fw /run/lock/iscsi
echo "InitiatorName=$UT_INITIATOR" >/etc/iscsi/initiatorname.iscsi
iscsid -f >/tmp/iscsid.log 2>&1 &
# iscsiadm exits 20 (ISCSI_ERR_ISCSID_NOTCONN) until iscsid listens
step iscsid '
	i=0
	while :; do
		iscsiadm -m session >/dev/null 2>&1
		[ $? != 20 ] && break
		i=$((i + 1)); [ $i -lt 100 ] || { echo "iscsid does not answer"; exit 1; }; sleep 0.2
	done
	echo "iscsid answers ($(cat /etc/iscsi/initiatorname.iscsi))"' || finish fail:iscsid

step discovery "iscsiadm -m discovery -t sendtargets -p '$UT_HOST:$UT_PORT'" ||
	finish fail:discovery
# SendTargets reports the portal the target listens on (the host's
# 127.0.0.1, which QEMU's user network reaches as 10.0.2.2): log in through
# the address the guest reaches, a node record of its own.
step login "iscsiadm -m node -o new -T '$UT_TARGET' -p '$UT_HOST:$UT_PORT' >/dev/null &&
	iscsiadm -m node -T '$UT_TARGET' -p '$UT_HOST:$UT_PORT' --login &&
	iscsiadm -m session -P 1" || finish fail:login
logged_in=1

# Every LUN of the session: "LUN sdX sgN" lines (sdX "-" for a LUN that is
# not a disk, such as a controller LUN), in LUN order, once every LUN has its
# devices.
export UT_DISK_WAIT
step devices '
	i=0
	while :; do
		: >/tmp/luns
		n=0 ok=1
		for d in /sys/class/iscsi_session/session*/device/target*/*:*:*:*; do
			[ -d "$d" ] || continue
			n=$((n + 1))
			h=$(basename "$d")
			b=$(ls "$d/block" 2>/dev/null | head -n 1)
			g=$(ls "$d/scsi_generic" 2>/dev/null | head -n 1)
			if [ "$(cat "$d/type")" != 0 ] && [ -n "$g" ] && [ -c "/dev/$g" ]; then
				echo "${h##*:} - $g" >>/tmp/luns
			elif [ -n "$b" ] && [ -n "$g" ] && [ -b "/dev/$b" ] && [ -c "/dev/$g" ]; then
				echo "${h##*:} $b $g" >>/tmp/luns
			else
				ok=
			fi
		done
		[ $n -gt 0 ] && [ -n "$ok" ] && break
		i=$((i + 1))
		[ $i -lt $((UT_DISK_WAIT * 5)) ] || { echo "no disk after ${UT_DISK_WAIT}s"; exit 1; }
		sleep 0.2
	done
	sort -n /tmp/luns >/tmp/luns.sorted
	while read -r l b g; do
		[ "$b" = - ] || b=/dev/$b
		echo "lun $l $b /dev/$g (type $(cat /sys/class/scsi_generic/$g/device/type))"
	done </tmp/luns.sorted' ||
	finish fail:devices

# DISK<lun>, SG<lun>; DISK and SG: the first disk LUN's
DISKS='' SGS='' DISK='' SG=''
while read -r l b g; do
	SGS="$SGS /dev/$g"
	export "SG$l=/dev/$g"
	[ "$b" = - ] && continue
	DISKS="$DISKS /dev/$b"
	export "DISK$l=/dev/$b"
	[ -n "$DISK" ] || { DISK=/dev/$b; SG=/dev/$g; }
done </tmp/luns.sorted
DISKS=${DISKS# } SGS=${SGS# }
export DISK SG DISKS SGS UT_TARGET UT_HOST UT_PORT

for f in $(ls /ut/cmds 2>/dev/null | sort); do
	n=$((n + 1))
	step "cmd$n" "$(cat "/ut/cmds/$f")"
done
finish ok
