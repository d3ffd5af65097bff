#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/idle_sessions.sh [BUILD_DIR]: the memory of N logged-in idle sessions, utargetd and
# tgtd side by side (issue 15: "1,000 logged-in idle sessions in under 256 MiB RSS total").
#
#   rawlogin --sessions N --hold S --(N sessions, one connection each)--> utargetd  (ram 64 MiB)
#   rawlogin --sessions N --hold S --(N sessions, one connection each)--> tgtd      (file 64 MiB)
#
# Each target is started alone on 127.0.0.1, its resident set (VmRSS of /proc/PID/status) read
# once it is ready, then the project's raw initiator logs in N sessions and keeps them idle
# (tests/tools/rawlogin --hold); the resident set is read again while they are held, and the
# session count is checked (utargetd: `utarget session list`; tgtd: `tgtadm --op show`). The
# LUNs are never read, so their data takes no memory. Prints a markdown table: RSS before,
# with the sessions, and the difference per session.
#
# Environment: BENCH_SESSIONS [1000], BENCH_UT_PORT [3500], BENCH_TGT_PORT [3501],
# BENCH_TGT_CONTROL_PORT [3519], BENCH_TMPDIR [/var/tmp].
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
BENCH_TAG=idle
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
N=${BENCH_SESSIONS:-1000}
UT_PORT=${BENCH_UT_PORT:-3500}
TGT_PORT=${BENCH_TGT_PORT:-3501}
TGT_CTL=${BENCH_TGT_CONTROL_PORT:-3519}
UTARGETD=$BUILD/src/daemon/utargetd
UTARGET=$BUILD/src/cli/utarget
RAW=$BUILD/tests/tools/rawlogin
IQN=iqn.2026-12.org.utarget:idle

[ -x "$UTARGETD" ] && [ -x "$RAW" ] || die "build first (make build): $UTARGETD, $RAW"
need tgtd "apt-get install tgt"
[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le 4096 ] || die "BENCH_SESSIONS: 1..4096"
ulimit -n $((N * 2 + 256))

bench_workdir utarget-idle

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
wait_port() { # port pid
	local i
	for i in $(seq 100); do
		kill -0 "$2" 2>/dev/null || die "the target (pid $2) exited during start-up"
		port_in_use "$1" && return 0
		sleep 0.1
	done
	die "nothing listens on $1"
}
# hold PORT TARGET-IQN: N sessions held 20 s in the background; waits until all are open
hold() {
	"$RAW" --addr "127.0.0.1:$1" --target "$2" --sessions "$N" --hold 20 >"$WORK/hold.out" 2>&1 &
	BENCH_PIDS+=("$!")
	bench_wait_line "$WORK/hold.out" '^holding' 600
	grep -q "^holding $N sessions$" "$WORK/hold.out" ||
		die "not $N sessions: $(grep -v 'login ok' "$WORK/hold.out" | head -5)"
}

ROWS=()
# ---- utargetd ----
cat >"$WORK/ut.json" <<JSON
{ "version": 1, "state_dir": "$WORK", "rpc_socket": "$WORK/ut.sock",
  "iscsi": { "nop_in_interval": 0 },
  "backstores": [ { "name": "d0", "type": "ram", "size": "64M" } ],
  "targets": [ { "name": "$IQN", "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:$UT_PORT"] } ],
                 "luns": [ { "lun": 0, "backstore": "d0" } ],
                 "demo_mode": { "enabled": true, "read_only": false } } ] }
JSON
bench_start_utargetd "$WORK/ut.json"
UT_PID=$PID
wait_port "$UT_PORT" "$UT_PID"
sleep 1
before=$(rss_kib "$UT_PID")
hold "$UT_PORT" "$IQN"
sleep 1
after=$(rss_kib "$UT_PID")
n=$("$UTARGET" -s "$WORK/ut.sock" --json session list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" = "$N" ] || die "utargetd lists $n sessions, want $N"
ROWS+=("utargetd|$before|$after")
log "utargetd: $before KiB -> $after KiB with $n sessions"
stop_pid "$UT_PID" utargetd
PID=""
sleep 1

# ---- tgtd ----
truncate -s 64M "$WORK/tgtd.img"
tgtd -f -C "$TGT_CTL" --iscsi "portal=127.0.0.1:$TGT_PORT" >"$WORK/tgtd.log" 2>&1 &
TGT_PID=$!
BENCH_PIDS+=("$TGT_PID")
wait_port "$TGT_PORT" "$TGT_PID"
for i in $(seq 50); do
	tgtadm -C "$TGT_CTL" --op show --mode sys >/dev/null 2>&1 && break
	sleep 0.1
done
A=(tgtadm -C "$TGT_CTL" --lld iscsi)
"${A[@]}" --op new --mode target --tid 1 -T "$IQN"
"${A[@]}" --op new --mode logicalunit --tid 1 --lun 1 -b "$WORK/tgtd.img"
"${A[@]}" --op bind --mode target --tid 1 -I 127.0.0.1
sleep 1
before=$(rss_kib "$TGT_PID")
hold "$TGT_PORT" "$IQN"
sleep 1
after=$(rss_kib "$TGT_PID")
n=$("${A[@]}" --op show --mode conn --tid 1 2>/dev/null | grep -c "^Session:" || true)
[ "$n" = "$N" ] || log "tgtadm lists $n sessions (want $N)"
ROWS+=("tgtd|$before|$after")
log "tgtd: $before KiB -> $after KiB with $n sessions"
"${A[@]}" --op delete --mode target --tid 1 --force >/dev/null 2>&1 || true
tgtadm -C "$TGT_CTL" --op delete --mode system >/dev/null 2>&1 || true

printf '\n| target | RSS idle (MiB) | RSS with %s sessions (MiB) | KiB per session |\n' "$N"
printf '|---|---|---|---|\n'
for r in "${ROWS[@]}"; do
	IFS='|' read -r t b a <<<"$r"
	awk -v t="$t" -v b="$b" -v a="$a" -v n="$N" \
		'BEGIN { printf "| %s | %.1f | %.1f | %.1f |\n", t, b / 1024, a / 1024, (a - b) / n }'
done
