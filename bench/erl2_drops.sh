#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/erl2_drops.sh [BUILD_DIR]: the ERL 2 figure. Starts utargetd alone on 127.0.0.1 with
# a 64 MiB ram LUN, error_recovery_level 2, max_connections 4, DefaultTime2Wait 0 and
# DefaultTime2Retain 20, and runs the project's raw initiator tests/tools/erl2 over a
# 4-connection session: a mixed read/write workload (4 commands in flight per connection,
# 1..64 blocks, every byte read back checked) during which a connection is dropped
# ERL2_DROPS times (alternately a socket reset and a Logout reason 2 from another
# connection), a replacement logs in with the same CID and every task of the dropped
# connection is reassigned (TASK REASSIGN). Prints the tool's lines (commands, lost, wrong
# bytes, reassignments, recovery time median and p99 from the drop to the status of the
# last reassigned task) and the session's counters from `utarget --json session list`,
# which must agree with them (docs/architecture.md, "Error recovery").
#
#   tgt 127.0.0.1:ERL2_PORT  <-- 4 connections, one session (ERL 2) --  tests/tools/erl2
#
# Environment: ERL2_DROPS [1000], ERL2_PER_DROP [40 commands between drops],
# ERL2_PORT [4302], ERL2_ARGS [extra options of the tool, e.g. -O: each drop also loses a
# command, resent behind newer ones], BENCH_TMPDIR [/var/tmp].
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
DROPS=${ERL2_DROPS:-1000}
PER=${ERL2_PER_DROP:-40}
PORT=${ERL2_PORT:-4302}
read -ra EXTRA <<<"${ERL2_ARGS:-}"
UTARGETD=$BUILD/src/daemon/utargetd
UTARGET=$BUILD/src/cli/utarget
ERL2=$BUILD/tests/tools/erl2
TGT=iqn.2026-12.org.utarget.erl2:e
INI=iqn.2026-12.org.utarget.erl2:m
bench_need_bins "$UTARGETD" "$UTARGET" "$ERL2"
bench_workdir utarget-erl2
bench_ram_config "$WORK/utargetd.json" "$TGT" "$PORT" '{ "nop_in_interval": 0,
  "error_recovery_level": 2, "max_connections": 4, "default_time2wait": 0,
  "default_time2retain": 20 }'
bench_start_utargetd "$WORK/utargetd.json" --log-level notice
echo "# ERL 2 connection drops, $(bench_stamp), $DROPS drops, $PER commands between drops${ERL2_ARGS:+, $ERL2_ARGS}"
rc=0
bench_held_run "$WORK/erl2.out" $((DROPS * 20 + 600)) \
	"$ERL2" "127.0.0.1:$PORT" "$TGT" "$INI" -n 4 -q 4 -b 64 -d "$DROPS" -m "$PER" "${EXTRA[@]}" ||
	rc=$?
cat "$WORK/erl2.out"
echo "# target counters"
python3 -c '
import json, sys
for s in json.load(sys.stdin):
    st = s["stats"]
    print("negotiated error_recovery_level", s["negotiated"]["error_recovery_level"])
    print("connection_recoveries", st["connection_recoveries"], "tasks_reassigned",
          st["tasks_reassigned"], "tasks_expired", st["tasks_expired"], "commands",
          st["commands"], "retransmitted_pdus", st["retransmitted_pdus"])
    c = s["connections"]
    print("connections", len(c), "socket on another reactor than the session (spread)",
          sum(x["socket_reactor"] != x["reactor"] for x in c))' <"$WORK/sessions.json"
exit "$rc"
