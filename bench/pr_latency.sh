#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/pr_latency.sh [BUILD_DIR [N]]: PERSISTENT RESERVE OUT latency with APTPL off and on.
#
# Starts BUILD_DIR's utargetd on 127.0.0.1 with one file LUN and its state directory under
# BENCH_TMPDIR, and runs tests/tools/pr_client latency: N REGISTER key changes (one at a time)
# with APTPL=0 (the state change only) and N with APTPL=1 (each one completes after the state
# file is written, fsync'ed, renamed and the directory fsync'ed: src/scsi/pr_store.c). Prints
# mean, p50, p99 and max of each. The fsync cost is the file system's: run it where the state
# directory of a deployment would be.
#
# Environment: BENCH_TMPDIR [/var/tmp], BENCH_PR_PORT [3510], BENCH_KEEP [0].
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in
/*) ;;
*) BUILD=$ROOT/$BUILD ;;
esac
N=${2:-1000}
PORT=${BENCH_PR_PORT:-3510}
UTARGETD=$BUILD/src/daemon/utargetd
CLIENT=$BUILD/tests/tools/pr_client
[ -x "$UTARGETD" ] && [ -x "$CLIENT" ] || { echo "build $BUILD first (utargetd, pr_client)"; exit 1; }
TMP=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/ut-prlat.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ "${BENCH_KEEP:-0}" = 1 ] && echo "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
cat >"$TMP/pr.json" <<JSON
{
  "version": 1,
  "state_dir": "$TMP",
  "backstores": [ { "name": "lu0", "type": "file", "path": "lu0.img", "size": "64M",
                    "create": true, "thin": true } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:prlat",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:$PORT"] } ],
      "luns": [ { "lun": 0, "backstore": "lu0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
"$UTARGETD" -f -c "$TMP/pr.json" --log-level notice >"$TMP/utargetd.log" 2>&1 &
pid=$!
for ((i = 0; i < 100; i++)); do
	grep -q "utargetd ready" "$TMP/utargetd.log" && break
	sleep 0.1
done
echo "state directory: $TMP ($(df -T "$TMP" | awk 'NR == 2 { print $2 }'))"
"$CLIENT" latency "iscsi://127.0.0.1:$PORT/iqn.2026-12.org.utarget:prlat/0" "$N" | grep latency
