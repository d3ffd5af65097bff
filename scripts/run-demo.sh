#!/bin/sh
# run-demo.sh BUILD_DIR: start utargetd in the foreground with the demo config
# (etc/utarget-demo.json): target iqn.2026-12.org.utarget:default, LUN 0 = a
# 1 GiB thin file state/disk0.img, portal 127.0.0.1:3260, demo mode (any
# initiator on loopback, read-write), logging at info level (one line per
# login). Stop it with Ctrl-C.
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
daemon="$build/src/daemon/utargetd"
if [ ! -x "$daemon" ]; then
	echo "run-demo: $daemon not built (make build)" >&2
	exit 1
fi
# state_dir "state" in the demo config is relative to this directory
mkdir -p state
exec "$daemon" -f -c etc/utarget-demo.json --log-level info
