#!/bin/sh
# run-demo.sh BUILD_DIR: start utargetd in the foreground with the demo config
# (etc/utarget-demo.json): target iqn.2026-12.org.utarget:default, LUN 0 = a
# 1 GiB thin file state/disk0.img, portal 127.0.0.1:3260, demo mode (any
# initiator on loopback, read-write), logging at info level (one line per
# login). Stop it with Ctrl-C.
#
# If the demo's port is taken, it says by which process (ss) and exits 1
# before starting anything. For the tests only, UT_DEMO_LISTEN=ADDR:PORT
# makes the demo listen there instead (utargetd --listen).
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
daemon="$build/src/daemon/utargetd"
if [ ! -x "$daemon" ]; then
	echo "run-demo: $daemon not built (make run builds it)" >&2
	exit 1
fi

listen=${UT_DEMO_LISTEN:-127.0.0.1:3260}
port=${listen##*:}
holders=$(ss -Hltnp "sport = :$port" 2>/dev/null) || {
	echo "run-demo: cannot check port $port (ss from iproute2 is missing)" >&2
	exit 1
}
if [ -n "$holders" ]; then
	# users:(("tgtd",pid=812,fd=6),...) -> tgtd (pid 812)
	who=$(echo "$holders" | sed -n 's/.*users:((\(.*\)))$/\1/p' | tr -s '()' '\n\n' |
		sed -n 's/^"\([^"]*\)",pid=\([0-9]*\),.*/\1 (pid \2)/p' | sort -u |
		tr '\n' ',' | sed 's/,$//; s/,/, /g')
	echo "run-demo: port $port is already in use by ${who:-a process ss cannot name (not root?)}:" >&2
	echo "$holders" | sed 's/^/  /' >&2
	echo "run-demo: the demo listens on $listen; stop that process first" >&2
	exit 1
fi

# state_dir "state" in the demo config is relative to this directory
mkdir -p state
if [ -n "${UT_DEMO_LISTEN:-}" ]; then
	exec "$daemon" -f -c etc/utarget-demo.json --log-level info --listen "$UT_DEMO_LISTEN"
fi
exec "$daemon" -f -c etc/utarget-demo.json --log-level info
