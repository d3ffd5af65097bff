#!/bin/bash
# rpc_scale.sh UTARGETD: 10,000 LUNs created through the control API
# (issue 4: "a test creates 10,000 LUNs through the API; the total time and
# the time of the last 100"; lookups O(1)/O(log n), flat cost per LUN).
# Each LUN is one acknowledged (durable) request, 32 kept in flight; the
# figures are printed (tenths_s: the time of each tenth, flat when the cost
# per LUN does not grow). Only a generous bound is asserted so that a busy
# machine does not fail it; the figures go to the report. Then: the last LUN
# answers an initiator, and a restart brings the 10,000 back.
# RPC_SCALE_LUNS overrides the count. Ports: 3800-3849.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
N=${RPC_SCALE_LUNS:-10000}
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port
T=iqn.2026-12.org.utarget.rpc:scale
SOCK=$UT_TMP/rpc.sock
ut_write_config scale.json <<JSON
{ "version": 1, "state_dir": "@TMP@", "rpc_socket": "@TMP@/rpc.sock",
  "targets": [ { "name": "$T",
    "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
    "demo_mode": { "enabled": true } } ] }
JSON
UT_OWN_PORTALS=1 ut_start "$UT_TMP/scale.json"
out=$(python3 "$UT_ROOT/tests/tools/rpc_scale.py" "$SOCK" "$T" "$N" 32) || ut_fail "$out"
echo "figures: $out"
total=$(echo "$out" | sed 's/.*total_s=\([0-9.]*\).*/\1/')
tenths=$(echo "$out" | sed 's/.*tenths_s=//')
# generous bounds: 10 minutes in all, and the last tenth no slower than
# four times the first plus 5 s (a cost growing with the LUN count fails it)
python3 -c 'import sys
t = float(sys.argv[1]); x = [float(v) for v in sys.argv[2].split(",")]
sys.exit(0 if t < 600 and x[-1] <= 4 * x[0] + 5 else 1)' "$total" "$tenths" ||
	ut_fail "too slow or not flat: $out"
info=$(python3 "$UT_ROOT/tests/tools/utrpc.py" "$SOCK" daemon.info)
python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["luns"] == int(sys.argv[2]) else 1)' \
	"$info" "$N" || ut_fail "daemon.info after the run: $info"
# libiscsi's URL reaches LUNs below 256 (peripheral addressing)
last=$((N > 256 ? 255 : N - 1))
timeout 60 iscsi-inq "iscsi://127.0.0.1:$UT_PORT/$T/$last" >/dev/null 2>&1 ||
	ut_fail "LUN $last does not answer"
echo "ok: $N LUNs created through the API; LUN $last answers"
ut_stop
start=$(date +%s.%N)
UT_OWN_PORTALS=1 ut_start "$UT_TMP/scale.json"
echo "figures: restart with $N LUNs ready in $(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)") s"
info=$(python3 "$UT_ROOT/tests/tools/utrpc.py" "$SOCK" daemon.info)
python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["luns"] == int(sys.argv[2]) else 1)' \
	"$info" "$N" || ut_fail "after a restart: $info"
echo "ok: a restart brings the $N LUNs back"
ut_stop
echo "PASS rpc_scale"
