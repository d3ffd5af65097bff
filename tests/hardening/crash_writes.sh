#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# crash_writes.sh UTARGETD TOOLS_DIR: crash consistency of acknowledged writes.
# Each round starts utargetd on the same file back-store, runs `crashwrite
# write` (FUA writes and WRITE + SYNCHRONIZE CACHE, journaled), kills utargetd
# with SIGKILL at a random moment, restarts it and runs `crashwrite verify`:
# every block acknowledged as durable must read back as that generation or a
# later one issued afterwards, never older, never torn.
# Rounds: CRASH_ROUNDS (default 10; CRASH_FULL=1 makes the default 100).
# CRASH_BACKSTORE=dedup: LUN 0 is a volume of a dedup store instead of a
# file, and after each restart `utarget backstore check` (UT_CLI, the
# utarget binary) must count 0 leaked, missing and corrupt chunks and 0
# reference counts that differ from a recount.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
rounds=${CRASH_ROUNDS:-$([ -n "${CRASH_FULL:-}" ] && echo 100 || echo 10)}
seed=${CRASH_SEED:-$(date +%s)}
journal=$HD_TMP/journal.txt
bstype=${CRASH_BACKSTORE:-file}
hd_config '"login_timeout": 5'
case $bstype in
file) ;;
dedup)
	[ -x "${UT_CLI:-}" ] || hd_fail "CRASH_BACKSTORE=dedup needs UT_CLI (the utarget binary)"
	sed -i 's|{ "name": "good", "type": "file", "path": "good.img", "size": "64M", "create": true }|{ "name": "good", "type": "dedup", "path": "dedup", "size": "64M" }|
		s|"log_level": "info",|"log_level": "info", "rpc_socket": "'"$HD_TMP"'/utargetd.sock",|' "$HD_CFG"
	grep -q '"type": "dedup"' "$HD_CFG" || hd_fail "could not make LUN 0 a dedup volume"
	;;
*) hd_fail "CRASH_BACKSTORE: file or dedup, not $bstype" ;;
esac
# the dedup store's fsck: every finding that marks a fault is 0
check_store() { # round
	local out
	out=$("$UT_CLI" -s "$HD_TMP/utargetd.sock" --json backstore check good) ||
		hd_fail "round $1: utarget backstore check failed: $out"
	python3 - "$out" "$1" <<'PY' || hd_fail "round $1: the store's check found faults: $out"
import json, sys
c = json.loads(sys.argv[1])["check"]
bad = {k: c[k] for k in ("leaked", "missing", "corrupt", "ref_mismatch") if c[k] != 0}
print("round %s: backstore check: %d live chunks, %d mapped, 0 leaked, 0 missing, 0 corrupt"
      % (sys.argv[2], c["live_chunks"], c["logical_chunks"]) if not bad else bad)
sys.exit(1 if bad else 0)
PY
}
run_tool() { # mode extra...
	local mode=$1
	shift
	"$HD_TOOLS/crashwrite" "$mode" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" \
		--lun 0 --journal "$journal" --seed "$seed" --blocks 4096 "$@"
}
hd_start
echo "crash_writes: $rounds rounds, seed $seed, utargetd on 127.0.0.1:$HD_PORT"
total_acked=0
for ((r = 1; r <= rounds; r++)); do
	run_tool write --seconds 60 >"$HD_TMP/writer.out" 2>&1 &
	wpid=$!
	# kill at a random moment 0.3 .. 1.5 s into the round
	sleep "$(printf '0.%03d' $((RANDOM % 1000)))"
	sleep 0.3
	kill -0 "$wpid" 2>/dev/null || { cat "$HD_TMP/writer.out"; hd_fail "round $r: the writer ended before the crash"; }
	hd_kill9
	wait "$wpid"
	wrc=$?
	[ "$wrc" = 0 ] || { cat "$HD_TMP/writer.out"; hd_fail "round $r: the writer failed ($wrc)"; }
	acked=$(sed -n 's/^crashwrite: \([0-9]*\) writes acknowledged.*/\1/p' "$HD_TMP/writer.out")
	total_acked=$((total_acked + ${acked:-0}))
	hd_start
	if ! run_tool verify >"$HD_TMP/verify.out" 2>&1; then
		cat "$HD_TMP/verify.out"
		hd_fail "round $r: acknowledged data lost or torn after kill -9 (seed $seed)"
	fi
	echo "round $r: ${acked:-0} writes acknowledged before kill -9; $(sed -n 's/^crashwrite: //p' "$HD_TMP/verify.out" | tail -1)"
	[ "$bstype" = dedup ] && check_store "$r"
done
[ "$total_acked" -gt 0 ] || hd_fail "no write was ever acknowledged: nothing was tested"
hd_stop
checked=$(sed -n 's/.* \([0-9]*\) blocks checked.*/\1/p' "$HD_TMP/verify.out")
echo "crash_writes ($bstype): $rounds rounds, $total_acked durable writes acknowledged, $checked blocks checked, 0 lost, 0 torn"
