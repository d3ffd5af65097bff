#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/erl_faults.sh [BUILD_DIR]: issue 11's ERL 1 figure. Starts utargetd alone on
# 127.0.0.1 with a 64 MiB ram LUN, error_recovery_level 1 and max_connections 4, and runs
# the project's raw initiator tests/tools/erl over a 4-connection session for ERL_SECONDS:
# 64 KiB reads and writes whose data it checks byte for byte, with ERL_RATE per mille of its
# PDUs damaged (header or data digest) or of the target's PDUs dropped (then asked again
# with a SNACK), and MaxBurstLength ERL_BURST offered so that reads carry A bits that it
# acknowledges with DataACK. Prints the tool's lines (commands, wrong bytes, faults injected,
# recovery) and the session's counters from `utarget --json session list`, which must agree
# with them (docs/architecture.md, "Error recovery").
#
#   tgt 127.0.0.1:ERL_PORT  <-- 4 connections, one session (ERL 1) --  tests/tools/erl
#
# Environment: ERL_SECONDS [60], ERL_RATE [10 = 1 %], ERL_BURST [16384], ERL_PORT [3563],
# BENCH_TMPDIR [/var/tmp].
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build_dir "${1:-}"
SECS=${ERL_SECONDS:-60}
RATE=${ERL_RATE:-10}
BURST=${ERL_BURST:-16384}
PORT=${ERL_PORT:-3563}
UTARGETD=$BUILD/src/daemon/utargetd
UTARGET=$BUILD/src/cli/utarget
ERL=$BUILD/tests/tools/erl
TGT=iqn.2026-12.org.utarget.erl:e
INI=iqn.2026-12.org.utarget.erl:m
bench_need_bins "$UTARGETD" "$UTARGET" "$ERL"
bench_workdir utarget-erl
bench_ram_config "$WORK/utargetd.json" "$TGT" "$PORT" \
	'{ "nop_in_interval": 0, "error_recovery_level": 1, "max_connections": 4 }'
bench_start_utargetd "$WORK/utargetd.json" --log-level notice
echo "# ERL 1 under faults, $(bench_stamp), ${SECS} s, rate ${RATE}/1000, MaxBurstLength $BURST"
rc=0
bench_held_run "$WORK/erl.out" $((SECS * 10 + 600)) \
	"$ERL" "127.0.0.1:$PORT" "$TGT" "$INI" -n 4 -t "$SECS" -r "$RATE" -b 128 -B "$BURST" ||
	rc=$?
cat "$WORK/erl.out"
echo "# target counters"
python3 -c '
import json, sys
for s in json.load(sys.stdin):
    print("negotiated", s["negotiated"])
    print("stats", s["stats"])' <"$WORK/sessions.json"
exit "$rc"
