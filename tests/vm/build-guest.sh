#!/bin/bash
# build-guest.sh OUTDIR: assemble the Linux guest of the VM tests from Debian
# packages, without installing a kernel on this machine.
#
#   OUTDIR/cache/      linux-image-amd64's image package (apt-get download),
#                      unpacked (dpkg-deb -x) and indexed (busybox depmod)
#   OUTDIR/vmlinuz     its kernel
#   OUTDIR/initrd.cpio the guest's root file system, an uncompressed newc cpio
#                      (nothing for the guest to decompress under TCG):
#                      busybox-static, the kernel modules of the iSCSI
#                      initiator, the SCSI disk and generic drivers, the
#                      ALUA device handler and virtio-net with their dependencies (from modules.dep,
#                      loaded in that order by the guest's init), scsi_debug
#                      and what it needs besides (loaded in target mode
#                      only: /ut/modules-target), and the
#                      host's open-iscsi (iscsiadm, iscsid), sg3-utils,
#                      smartctl and util-linux's blkdiscard and fallocate with
#                      their shared libraries (ldd)
#
# The packages (scripts/deps.sh vm) must be installed. The result is reused
# while its inputs are the same (kernel package version, the versions of the
# tool packages, this script, init.sh and iscsid.conf); run-guest.sh adds the
# per-run part (what to log into, the commands) as a second cpio archive.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-guest.sh OUTDIR}
mkdir -p "$out/cache"
out=$(cd "$out" && pwd)
cache=$out/cache

# The modules the guest loads (their dependencies come from modules.dep);
# scsi_dh_alua attaches to a TPGS device as it appears when it is loaded
# already (the guest has no modprobe for the kernel to call).
MODULES="virtio_pci virtio_net iscsi_tcp sd_mod sg scsi_dh_alua crc32c_generic"
# The modules of the target mode (run-guest.sh -m target), loaded after
# MODULES: scsi_debug, the SCSI disk that utargetd's sg back-store exports.
MODULES_TARGET="scsi_debug"
# The guest's tools: packages whose programs are copied, and the programs.
# (util-linux's blkdiscard -z, BLKZEROOUT, and fallocate -p on a block
# device, which busybox's lack)
TOOL_PKGS="busybox-static open-iscsi sg3-utils smartmontools ddpt util-linux"
tools() {
	echo /usr/sbin/iscsiadm /usr/sbin/iscsid /usr/sbin/smartctl /usr/sbin/blkdiscard /usr/bin/fallocate \
		/usr/bin/ddpt
	dpkg -L sg3-utils | grep -E '^/usr/bin/sg' | sort
}

die() {
	echo "build-guest: $*" >&2
	exit 1
}
for c in apt-get apt-cache dpkg-deb cpio busybox ldd; do
	command -v "$c" >/dev/null || die "$c not found (scripts/deps.sh vm installs what is needed)"
done
for p in $TOOL_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		die "package $p is not installed (scripts/deps.sh vm)"
done

# One build at a time in OUTDIR.
exec 9>"$out/.lock"
flock 9

# The kernel: the image package that linux-image-amd64 depends on, and its
# version. The package lists are updated once when apt does not know it, or
# when the download fails (lists older than the mirror, whose old version is
# gone).
updated=
apt_update() {
	[ -z "$updated" ] || return 1
	updated=1
	echo "build-guest: apt-get update"
	apt-get update -qq || true
}
resolve_kernel() {
	kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	kver=
	[ -n "$kpkg" ] || return 1
	kver=$(apt-cache policy "$kpkg" | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$kver" ] && [ "$kver" != "(none)" ]
}
resolve_kernel || { apt_update && resolve_kernel; } ||
	die "apt-cache knows no image package of linux-image-amd64 (got '$kpkg' '$kver')"

# what the result is made of
stamp() {
	local p
	echo -n "kernel=$kpkg=$kver"
	for p in $TOOL_PKGS; do
		echo -n " $p=$(dpkg-query -W -f='${Version}' "$p")"
	done
	echo " $(cat "$here/build-guest.sh" "$here/init.sh" "$here/iscsid.conf" | sha256sum | cut -c1-16)"
}
if [ -s "$out/initrd.cpio" ] && [ -s "$out/vmlinuz" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$(stamp)" ]; then
	echo "build-guest: up to date ($kpkg $kver)"
	exit 0
fi
rm -f "$out/stamp"

deb=$(ls "$cache/${kpkg}_"*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ] || [ "$(dpkg-deb -f "$deb" Version)" != "$kver" ]; then
	rm -f "$cache/${kpkg}_"*.deb
	download() {
		echo "build-guest: apt-get download $kpkg ($kver)"
		# as root, apt's download sandbox user cannot write here: say so
		(cd "$cache" && apt-get download -q -o APT::Sandbox::User=root "$kpkg=$kver")
	}
	download || { apt_update && resolve_kernel && download; } ||
		die "cannot download $kpkg ($kver)"
	deb=$(ls "$cache/${kpkg}_"*.deb)
fi
kroot=$cache/$kpkg-$kver
if [ ! -f "$kroot/.unpacked" ]; then
	rm -rf "$kroot"
	mkdir -p "$kroot"
	echo "build-guest: dpkg-deb -x $(basename "$deb")"
	dpkg-deb -x "$deb" "$kroot"
	krel=$(ls "$kroot/lib/modules")
	busybox depmod -b "$kroot" "$krel"
	touch "$kroot/.unpacked"
fi
# older kernels' packages and trees
for f in "$cache"/linux-image-*; do
	[ "$f" = "$kroot" ] || [ "$f" = "$deb" ] || rm -rf "$f"
done
krel=$(ls "$kroot/lib/modules")
moddir=$kroot/lib/modules/$krel
[ -s "$moddir/modules.dep" ] || die "no modules.dep in $moddir"

# The staging tree of the initramfs.
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,run,tmp,etc/iscsi,ut}
cp "$kroot/boot/vmlinuz-$krel" "$out/vmlinuz.new"

# Modules: every wanted one with its dependencies, in load order. modules.dep
# lists all of a module's dependencies (transitively), so a dependency has
# strictly fewer of them than the module: fewest first is a valid order.
# stage_modules LIST FILE: the modules of LIST and their dependencies that an
# earlier list did not take, into the tree and, in load order, into FILE.
declare -A seen=()
stage_modules() {
	local m f line deps mods=()
	for m in $1; do
		line=$(grep -E "(^|/)${m}\.ko(\.[a-z]+)?:" "$moddir/modules.dep") ||
			die "module $m is not in $krel's modules.dep"
		for f in ${line/:/}; do
			if [ -z "${seen[$f]:-}" ]; then
				seen[$f]=1
				mods+=("$f")
			fi
		done
	done
	: >"$2"
	for f in "${mods[@]}"; do
		deps=$(grep -E "^$f:" "$moddir/modules.dep" | sed 's/^[^:]*://' | wc -w)
		echo "$deps $f"
	done | sort -n -k1,1 | while read -r _ f; do
		case $f in
		*.ko) ;;
		*) die "compressed module $f: the guest's busybox insmod takes plain .ko files" ;;
		esac
		mkdir -p "$stage/lib/modules/$krel/$(dirname "$f")"
		cp "$moddir/$f" "$stage/lib/modules/$krel/$f"
		echo "/lib/modules/$krel/$f" >>"$2"
	done
	echo "build-guest: $(wc -l <"$2") modules: $(sed 's,.*/,,; s,\.ko$,,' "$2" | tr '\n' ' ')"
}
stage_modules "$MODULES" "$stage/ut/modules"
stage_modules "$MODULES_TARGET" "$stage/ut/modules-target"

# busybox and its applets
cp "$(command -v busybox)" "$stage/bin/busybox"
for a in $(busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done

# The tools and their libraries (and the dynamic loader), each at its path.
copy_file() {
	mkdir -p "$stage$(dirname "$1")"
	cp -L "$1" "$stage$1"
}
progs=$(tools)
for b in $progs; do
	copy_file "$b"
	ldd "$b" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'
done | sort -u >"$out/libs"
while read -r lib; do copy_file "$lib"; done <"$out/libs"
echo "build-guest: $(echo "$progs" | wc -w) programs, $(wc -l <"$out/libs") libraries"

cp "$here/init.sh" "$stage/init"
chmod 755 "$stage/init"
cp "$here/iscsid.conf" "$stage/etc/iscsi/iscsid.conf"
echo "root:x:0:0:root:/:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out/initrd.cpio.new"
mv "$out/initrd.cpio.new" "$out/initrd.cpio"
mv "$out/vmlinuz.new" "$out/vmlinuz"
rm -rf "$stage"
stamp >"$out/stamp"
echo "build-guest: $out/vmlinuz ($kpkg $kver), $out/initrd.cpio ($(du -h "$out/initrd.cpio" | cut -f1))"
