#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/mcs_sessions.sh [BUILD_DIR]: one session over N connections (MC/S) against N sessions
# of one connection each, on utargetd alone (docs/performance.md, "MC/S against separate
# sessions"): what keeping a session's connections on one reactor costs, and what
# spreading their sockets over the reactors (iscsi.spread_connections, conn_split.c) buys.
#
#   mcs -n N            --(one session, N connections)--------> utargetd (2 reactors by
#   N x mcs -n 1 (each its own initiator name, run at once) ---> default; ram LUN 256 MiB,
#                                                                max_connections 4)
#
# tests/tools/mcs -t: every connection alternates a 4 KiB WRITE and READ of its own region,
# one command outstanding per connection, every byte checked. For each load and round it
# prints IOPS, the target's CPU seconds and which of its threads worked (more than 0.2 s:
# the reactors are the main thread "utargetd" and "utarget-rN"), as markdown rows.
#
# Environment: MCS_SECONDS [8], MCS_ROUNDS [2], MCS_PORT [3580], MCS_BLOCKS [8] (blocks of
# 512 bytes per I/O), BENCH_TMPDIR [/var/tmp], UTARGETD.
set -euo pipefail
export LC_ALL=C
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
BENCH_TAG=mcs
bench_build_dir "${1:-}"
SECS=${MCS_SECONDS:-8}
ROUNDS=${MCS_ROUNDS:-2}
PORT=${MCS_PORT:-3580}
BLOCKS=${MCS_BLOCKS:-8}
UTARGETD=${UTARGETD:-$BUILD/src/daemon/utargetd}
MCS=$BUILD/tests/tools/mcs
UTARGET=${UTARGET:-$BUILD/src/cli/utarget}
IQN=iqn.2026-12.org.utarget:mcs-sessions
bench_need_bins "$UTARGETD" "$MCS" "$UTARGET"
port_in_use "$PORT" && die "TCP port $PORT is in use (set MCS_PORT)"

bench_workdir utarget-mcs
mkdir -p "$WORK/state"
cat >"$WORK/utargetd.json" <<JSON
{
  "version": 1,
  "state_dir": "$WORK/state",
  "log_level": "notice",
  "rpc_socket": "$WORK/utargetd.sock",
  "iscsi": { "nop_in_interval": 0 },
  "backstores": [ { "name": "r", "type": "ram", "size": "256M" } ],
  "targets": [
    { "name": "$IQN",
      "portal_groups": [ { "tag": 1, "portals": [ "127.0.0.1:$PORT" ] } ],
      "luns": [ { "lun": 0, "backstore": "r" } ],
      "limits": { "max_connections": 4 },
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
bench_start_utargetd "$WORK/utargetd.json"
kill -0 "$PID" 2>/dev/null || die "utargetd did not start: $(tail -n 5 "$WORK/utargetd.log")"

# "tid comm ticks" for every thread of the daemon
threads() {
	local t
	for t in /proc/"$PID"/task/*; do
		printf '%s %s %s\n' "${t##*/}" "$(cat "$t/comm")" \
			"$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "$t/stat")"
	done | sort
}

# the threads that used more than 0.2 s between two snapshots, "name 1.23 s, ..."
busy() {
	join "$1" "$2" | awk -v hz="$CLK_TCK" '($5 - $3) / hz > 0.2 {
		printf "%s%s %.2f s", sep, $2, ($5 - $3) / hz; sep = ", " }'
}

run_load() { # label sessions connections round
	local label=$1 ns=$2 nc=$3 r=$4 k c0 c1 iops
	local -a pids=()
	threads >"$WORK/t0"
	c0=$(cpu_ticks "$PID")
	for ((k = 1; k <= ns; k++)); do
		"$MCS" "127.0.0.1:$PORT" "$IQN" "$IQN-init$k" -n "$nc" -b "$BLOCKS" -t "$SECS" \
			-L $(((k - 1) * 65536)) >"$WORK/out.$k" 2>&1 &
		pids+=($!)
	done
	for k in "${pids[@]}"; do wait "$k" || die "mcs failed: $(cat "$WORK"/out.*)"; done
	c1=$(cpu_ticks "$PID")
	threads >"$WORK/t1"
	iops=$(cat "$WORK"/out.* | awk '/^perf / { for (i = 1; i < NF; i++) if ($i == "iops") s += $(i + 1) }
		END { printf "%.0f", s }')
	printf '| %s | %s | %s | %.2f | %s |\n' "$label" "$r" "$iops" \
		"$(awk -v d=$((c1 - c0)) -v hz="$CLK_TCK" 'BEGIN { print d / hz }')" \
		"$(busy "$WORK/t0" "$WORK/t1")"
	rm -f "$WORK"/out.*
}

log "utargetd pid $PID on 127.0.0.1:$PORT; $ROUNDS rounds of ${SECS} s per load, $BLOCKS blocks per I/O"
printf '| load | round | IOPS | target CPU (s) | threads that worked |\n|---|---:|---:|---:|---|\n'
spread() { # true|false: iscsi.spread_connections, for the sessions logged in after it
	"$UTARGET" -q -s "$WORK/utargetd.sock" settings set "iscsi.spread_connections=$1" >/dev/null ||
		die "settings set iscsi.spread_connections=$1 failed"
}

for ((r = 1; r <= ROUNDS; r++)); do
	run_load "one session, 1 connection" 1 1 "$r"
	spread false
	run_load "one session, 2 connections, one reactor" 1 2 "$r"
	run_load "one session, 4 connections, one reactor" 1 4 "$r"
	spread true
	run_load "one session, 2 connections, spread" 1 2 "$r"
	run_load "one session, 4 connections, spread" 1 4 "$r"
	run_load "2 sessions of 1 connection" 2 1 "$r"
	run_load "4 sessions of 1 connection" 4 1 "$r"
done
