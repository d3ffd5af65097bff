#!/bin/sh
# deps.sh: install the Debian 12 packages utarget needs to build, test and
# benchmark, skipping those already installed. The one list of dependencies.
set -eu

PKGS="
build-essential
meson
ninja-build
pkg-config
clang
libclang-rt-14-dev
libjansson-dev
liburing-dev
libssl-dev
libidn-dev
libcmocka-dev
libedit-dev
libiscsi-dev
libiscsi-bin
qemu-utils
tgt
iproute2
procps
"

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
# The tgt package may start its own tgtd on 3260; utarget's demo needs that port.
if command -v systemctl >/dev/null 2>&1; then
	$SUDO systemctl disable --now tgt >/dev/null 2>&1 || true
fi
pkill -x tgtd 2>/dev/null || true
