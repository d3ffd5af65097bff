#!/bin/sh
# run-demo.sh BUILD_DIR: start utargetd in the foreground with the demo config:
# target iqn.2026-12.org.utarget:default, LUN 0 = a 1 GiB thin file
# state/disk0.img, portal 127.0.0.1:3260, demo mode (any initiator on
# loopback, read-write), logging at info level (one line per login),
# Prometheus metrics on http://127.0.0.1:9470/metrics. Stop it with Ctrl-C.
#
# All of the demo's files are under state/ (git-ignored), none in the source
# tree: on the first start the config etc/utarget-demo.json is copied to
# state/utarget-demo.json, which utargetd owns from then on (the control API's
# changes go to its journal, state/utarget-demo.json.journal, are compacted
# into it, with backups .1 .. .5 beside it); later starts keep that file, and
# so the administrator's changes. utargetd runs in state/ and the config's
# state_dir is ".", so the LUN file is state/disk0.img whether a relative
# state_dir resolves against the daemon's directory (it does: docs/config.md)
# or against the config file's.
#
# If the demo's port is taken, it says by which process (ss) and exits 1
# before starting anything. For the tests only, UT_DEMO_LISTEN=ADDR:PORT
# makes the demo listen there instead (utargetd --listen).
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
case $build in
/*) daemon=$build/src/daemon/utargetd ;;
*) daemon=$PWD/$build/src/daemon/utargetd ;;
esac
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

mkdir -p state
if [ ! -e state/utarget-demo.json ]; then
	cp etc/utarget-demo.json state/utarget-demo.json
	chmod 600 state/utarget-demo.json
	echo "run-demo: first start: state/utarget-demo.json copied from etc/utarget-demo.json;" \
		"utargetd owns it from now on" >&2
fi
cd state
if [ -n "${UT_DEMO_LISTEN:-}" ]; then
	exec "$daemon" -f -c utarget-demo.json --log-level info --listen "$UT_DEMO_LISTEN"
fi
exec "$daemon" -f -c utarget-demo.json --log-level info
