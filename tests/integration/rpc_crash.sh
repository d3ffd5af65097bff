#!/bin/bash
# rpc_crash.sh UTARGETD: kill -9 during a burst of configuration changes,
# 50 rounds (issue 4, acceptance 4). Each change is one acknowledged
# transaction whose resulting state is known (tests/tools/rpc_crash.py).
# After every kill:
#   - the config file alone is a valid config (utargetd --check);
#   - the restarted daemon (file + journal replay) runs exactly the state
#     of the last acknowledged change, or of the next one (in flight when
#     the daemon died: durable, not yet answered) - never anything else.
# 300 ballast back-stores make the file large enough that changes also live
# in the journal between compactions (both paths get killed).
# RPC_CRASH_ROUNDS overrides 50. Ports: 3800-3849.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
ROUNDS=${RPC_CRASH_ROUNDS:-50}
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port
T=iqn.2026-12.org.utarget.rpc:crash
SOCK=$UT_TMP/rpc.sock
CLIENT="$UT_ROOT/tests/tools/rpc_crash.py"
CFG=$UT_TMP/crash.json
python3 - "$CFG" "$T" "$UT_PORT" "$UT_TMP" <<'PY'
import json, sys
path, t, port, tmp = sys.argv[1:]
c = {"version": 1, "state_dir": tmp, "rpc_socket": tmp + "/rpc.sock",
     "backstores": [{"name": "ballast%03d" % i, "type": "null", "size": "1M",
                     "vendor": "BALLAST", "product": "padding the file"} for i in range(300)],
     "targets": [{"name": t, "portal_groups": [{"tag": 1, "portals": ["127.0.0.1:" + port]}]}]}
open(path, "w").write(json.dumps(c, indent=2))
PY

acked=0
journal_kills=0
for ((round = 1; round <= ROUNDS; round++)); do
	UT_OWN_PORTALS=1 ut_start "$CFG" >/dev/null
	k=$(python3 "$CLIENT" "$SOCK" "$T" check "$acked") || ut_fail "round $round: $k"
	python3 -u "$CLIENT" "$SOCK" "$T" burst "$k" >"$UT_TMP/burst.out" 2>&1 &
	BURST=$!
	# kill at a random moment 0.2 .. 1.2 s into the burst
	sleep "0.$((2 + RANDOM % 9))$((RANDOM % 10))"
	[ $((RANDOM % 5)) = 0 ] && sleep 0.4
	kill -KILL "$UT_PID"
	wait "$UT_PID" 2>/dev/null
	UT_PID=
	wait $BURST
	grep -q "^error" "$UT_TMP/burst.out" && ut_fail "round $round: $(grep ^error "$UT_TMP/burst.out")"
	last=$(grep "^acked" "$UT_TMP/burst.out" | tail -1 | cut -d' ' -f2)
	acked=${last:-$k}
	[ -s "$CFG.journal" ] && [ "$(wc -l <"$CFG.journal")" -gt 1 ] && journal_kills=$((journal_kills + 1))
	"$UTARGETD" --check -c "$CFG" >"$UT_TMP/check.out" 2>&1 ||
		ut_fail "round $round: the file does not parse after kill -9: $(cat "$UT_TMP/check.out")"
	ut_sanitizer_check "$UT_LOG"
	: >"$UT_LOG" # one round's log at a time
done
UT_OWN_PORTALS=1 ut_start "$CFG" >/dev/null
k=$(python3 "$CLIENT" "$SOCK" "$T" check "$acked") || ut_fail "final check: $k"
ut_stop
echo "ok: $ROUNDS kill -9 rounds, $acked changes acknowledged, the state after each restart was" \
	"an acknowledged one ($journal_kills kills with changes in the journal, the rest with" \
	"everything in the file)"
echo "PASS rpc_crash"
