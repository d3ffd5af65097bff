#!/bin/bash
# top.sh UTARGETD UTARGET HOLDSESSION: rates in `utarget stats` and the
# frames of `utarget top` (issue 13; cli/stats_rates.c, cmd_top.c) under a
# known load:
#
#   holdsession (READ(10) of 1 block every 20 ms) --- utargetd :PORT --- LUN 0: busy (ram)
#   utarget stats / top --------------------------- rpc.sock            LUN 1: idle (ram)
#
# holdsession completes at most 50 commands a second, one at a time: busy
# shows 10..50 IOPS over a 1 s interval, 512 bytes a command read, idle
# exactly 0; top sorts busy first by IOPS and by MB/s, its session row
# has the same IOPS band; --interval 0 gives no rates; bad options are
# refused.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: top.sh UTARGETD UTARGET HOLDSESSION"
UTARGET=${2:?$USAGE}
HOLD=${3:?$USAGE}
ut_pick_port
SOCK=$UT_TMP/rpc.sock
T=iqn.2026-12.org.utarget:top
ut_write_config top.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "idle", "type": "ram", "size": "8M" },
                  { "name": "busy", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$T",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "busy" }, { "lun": 1, "backstore": "idle" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/top.json"
u() { "$UTARGET" -s "$SOCK" "$@"; }
STOP=$UT_TMP/stop
"$HOLD" -i iqn.2026-12.org.test:top "iscsi://127.0.0.1:$UT_PORT/$T/0" "$STOP" 60 >"$UT_TMP/hold.out" 2>&1 &
HPID=$!
for i in $(seq 100); do grep -q ready "$UT_TMP/hold.out" && break; sleep 0.1; done
grep -q ready "$UT_TMP/hold.out" || ut_fail "holdsession did not start: $(cat "$UT_TMP/hold.out")"

u stats --json --interval 1 >"$UT_TMP/s.json" || ut_fail "utarget stats --json --interval 1"
u top --once --json >"$UT_TMP/t.json" || ut_fail "utarget top --once --json"
u top --once --json --sort mbps >"$UT_TMP/m.json" || ut_fail "utarget top --sort mbps"
u top --once >"$UT_TMP/t.txt" || ut_fail "utarget top --once"
u stats >"$UT_TMP/s.txt" || ut_fail "utarget stats"
u stats --json --interval 0 >"$UT_TMP/z.json" || ut_fail "utarget stats --interval 0"
touch "$STOP"
wait $HPID || ut_fail "holdsession: $(cat "$UT_TMP/hold.out")"

python3 - "$UT_TMP" <<'PY' || ut_fail "the rates are not what holdsession did"
import json, sys
d = sys.argv[1]
s, t, m, z = (json.load(open(f"{d}/{n}.json")) for n in ("s", "t", "m", "z"))
r = s["rates"]
assert 0.99 <= r["interval_s"] < 2, r["interval_s"]
lu = {x["backstore"]: x for x in r["luns"]}
assert 10 <= lu["busy"]["iops"] <= 50.5, lu["busy"]
assert abs(lu["busy"]["read_mb_s"] - lu["busy"]["iops"] * 512 / 1e6) < 1e-3, lu["busy"]
assert lu["busy"]["write_mb_s"] == 0 and lu["busy"]["write_p99_ns"] is None
assert lu["busy"]["read_p99_ns"] > 0
assert lu["idle"]["iops"] == 0 and lu["idle"]["read_p99_ns"] is None, lu["idle"]
# the answer itself is stats.get's: the counters of the second snapshot
assert {x["backstore"] for x in s["luns"]} == {"busy", "idle"} and "time_ns" in s
(ses,) = [x for x in r["sessions"] if x["initiator"] == "iqn.2026-12.org.test:top"]
assert 10 <= ses["iops"] <= 50.5 and ses["errors"] == 0, ses
assert "rates" not in z, "--interval 0 gave rates"
for f, key in ((t, "iops"), (m, "mbps")):
    assert f["sort"] == key
    assert [x["backstore"] for x in f["luns"]] == ["busy", "idle"], f["luns"]
    assert f["luns"][0]["iops"] >= 10 and f["luns"][1]["iops"] == 0
print("ok: busy %.1f IOPS, idle 0; session %.1f IOPS; sorted busy first" % (lu["busy"]["iops"], ses["iops"]))
PY
head -n 1 "$UT_TMP/t.txt" | grep -q "^utarget top - .* sorted by iops" || ut_fail "top: no header: $(head -n 2 "$UT_TMP/t.txt")"
grep -q "^BACKSTORE *IOPS *READ MB/S *WRITE MB/S *READ P99 *WRITE P99 *ERRORS/S *IN FLIGHT" "$UT_TMP/t.txt" ||
	ut_fail "top: no LU table header"
[ "$(grep -A1 "^BACKSTORE" "$UT_TMP/t.txt" | tail -n 1 | awk '{print $1}')" = busy ] ||
	ut_fail "top: busy is not the first row: $(cat "$UT_TMP/t.txt")"
grep -q "^TSIH *INITIATOR *TARGET *IOPS *MB/S *ERRORS" "$UT_TMP/t.txt" || ut_fail "top: no session table"
grep -q "^BACKSTORE .* IN FLIGHT *IOPS *MB/S$" "$UT_TMP/s.txt" || ut_fail "stats: no rate columns"
grep -qE "^idle( +[^ ]+){8} +0\.0 +0\.0$" "$UT_TMP/s.txt" || ut_fail "stats: idle is not at 0 IOPS: $(cat "$UT_TMP/s.txt")"
grep -q "^TARGET *SESSIONS *LOGINS *LOGIN FAILURES *LOGOUTS" "$UT_TMP/s.txt" || ut_fail "stats: no target table"
echo "ok: top and stats tables"
u top --once --sort nosuch >"$UT_TMP/e.out" 2>&1 && ut_fail "--sort nosuch accepted"
grep -q "is not iops, mbps, p99 or errors" "$UT_TMP/e.out" || ut_fail "--sort nosuch: $(cat "$UT_TMP/e.out")"
u stats --interval -1 >"$UT_TMP/e.out" 2>&1 && ut_fail "--interval -1 accepted"
u top --once --interval 0 >"$UT_TMP/e.out" 2>&1 && ut_fail "top --interval 0 accepted"
echo "ok: bad options refused"
ut_stop
echo "top: all checks passed"
