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
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
N=${2:-1000}
PORT=${BENCH_PR_PORT:-3510}
UTARGETD=$BUILD/src/daemon/utargetd
CLIENT=$BUILD/tests/tools/pr_client
[ -x "$UTARGETD" ] && [ -x "$CLIENT" ] || { echo "build $BUILD first (utargetd, pr_client)"; exit 1; }
BENCH_KEEP_WORK=${BENCH_KEEP:-0}
bench_workdir ut-prlat
cat >"$WORK/pr.json" <<JSON
{
  "version": 1,
  "state_dir": "$WORK",
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
bench_start_utargetd "$WORK/pr.json" --log-level notice
echo "state directory: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 }'))"
"$CLIENT" latency "iscsi://127.0.0.1:$PORT/iqn.2026-12.org.utarget:prlat/0" "$N" | grep latency
