#!/bin/bash
# stats.sh UTARGETD UTARGET CDBPROBE: the statistics API (stats.get,
# methods_stats.c) and `utarget stats` count exactly what an initiator
# sent (issue 13):
#
#   cdbprobe (one I_T nexus) --- utargetd :PORT --- LUN 0: r0 (ram 8M)
#   utarget stats ------------- rpc.sock           LUN 1: r1 (ram 8M, idle)
#
# Each cdbprobe run is a new session of one I_T nexus (a fixed ISID): its
# first command meets I_T NEXUS LOSS OCCURRED (29h/07h, an error) and is
# sent again (CDBPROBE_UA=1); an unsupported opcode is refused before the
# unit attention. So 3 READ(10) of 8 blocks, 2 WRITE(10) of 4 blocks, a TEST
# UNIT READY and an unsupported opcode on LUN 0 make r0 count 13 commands
# more, 7 errors (6 unit attentions), 12288 bytes read and 4096 written,
# per class read 6, write 4, other 3; each class's histogram holds as many
# latencies as it has commands, its p50 <= p99 and its buckets' bounds
# increasing; r1 counts nothing new. The table shows r0's counters; an
# unknown back-store is refused.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: stats.sh UTARGETD UTARGET CDBPROBE"
UTARGET=${2:?$USAGE}
PROBE=${3:?$USAGE}
ut_pick_port
SOCK=$UT_TMP/rpc.sock

ut_write_config stats.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "r0", "type": "ram", "size": "8M" },
                  { "name": "r1", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:stats",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" }, { "lun": 1, "backstore": "r1" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/stats.json"
u() { "$UTARGET" -s "$SOCK" "$@"; }
export CDBPROBE_ISID_QUALIFIER=5 CDBPROBE_UA=1
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:stats/0
probe() { "$PROBE" "$url" "$@" >/dev/null || ut_fail "cdbprobe $*"; }

probe 000000000000
u stats --json >"$UT_TMP/a.json" || ut_fail "utarget stats --json failed"
for i in 1 2 3; do probe 28000000001000000800 in 4096; done
for i in 1 2; do probe 2a000000002000000400 out "$(head -c 2048 /dev/zero | od -An -tx1 -v | tr -d ' \n')"; done
probe 000000000000
"$PROBE" "$url" ff0000000000 >/dev/null # refused: INVALID COMMAND OPERATION CODE
u stats --json >"$UT_TMP/b.json" || ut_fail "utarget stats --json failed"

python3 - "$UT_TMP/a.json" "$UT_TMP/b.json" <<'PY' || ut_fail "the statistics do not count what was sent"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["time_ns"] > a["time_ns"], "time_ns did not advance"
lu = lambda s, n: next(x for x in s["luns"] if x["backstore"] == n)
a0, b0 = lu(a, "r0"), lu(b, "r0")
want = {"commands": 13, "errors": 7, "aborted": 0, "busy": 0, "read_bytes": 12288, "write_bytes": 4096}
got = {k: b0[k] - a0[k] for k in want}
assert got == want, f"r0: {got}, want {want}"
for cls, n in (("read", 6), ("write", 4), ("other", 3)):
    ca, cb = a0["classes"][cls], b0["classes"][cls]
    assert cb["commands"] - ca["commands"] == n, f"{cls}: {cb['commands'] - ca['commands']} commands"
    la, lb = ca["latency"], cb["latency"]
    assert lb["count"] - la["count"] == n, f"{cls}: {lb['count'] - la['count']} latencies"
    assert sum(c for _, c in lb["buckets"]) == lb["count"] == cb["commands"], f"{cls}: buckets"
    bounds = [x for x, _ in lb["buckets"] if x is not None]
    assert bounds == sorted(set(bounds)), f"{cls}: bounds not increasing"
    assert 0 < lb["p50_ns"] <= lb["p99_ns"], f"{cls}: p50 {lb['p50_ns']} p99 {lb['p99_ns']}"
    assert lb["sum_ns"] > la["sum_ns"], f"{cls}: sum_ns"
assert lu(a, "r1") == lu(b, "r1"), "r1 changed"
print("ok: r0 +13 commands (read 6, write 4, other 3), 7 errors, 12288 bytes read, 4096 written; "
      "histograms hold every command; r1 unchanged")
PY

u stats >"$UT_TMP/t.out" || ut_fail "utarget stats failed"
cat "$UT_TMP/t.out"
head -n 1 "$UT_TMP/t.out" | grep -q "^BACKSTORE *COMMANDS *READ *WRITTEN *ERRORS *ABORTED *READ P99 *WRITE P99" ||
	ut_fail "utarget stats: not the expected header"
c0=$(python3 -c 'import json,sys; print(next(x for x in json.load(open(sys.argv[1]))["luns"] if x["backstore"]=="r0")["commands"])' "$UT_TMP/b.json")
e0=$(python3 -c 'import json,sys; print(next(x for x in json.load(open(sys.argv[1]))["luns"] if x["backstore"]=="r0")["errors"])' "$UT_TMP/b.json")
grep -qE "^r0 +$c0 +12K +4K +$e0 +0 " "$UT_TMP/t.out" ||
	ut_fail "utarget stats: no r0 row with $c0 commands, 12K, 4K, $e0 errors"
echo "ok: utarget stats shows r0's counters"
u stats r1 --json | python3 -c 'import json,sys; s=json.load(sys.stdin); assert [x["backstore"] for x in s["luns"]]==["r1"]' ||
	ut_fail "utarget stats r1 did not give r1 alone"
u stats nosuch >"$UT_TMP/e.out" 2>&1 && ut_fail "utarget stats nosuch succeeded"
grep -q 'no back-store named "nosuch"' "$UT_TMP/e.out" || { cat "$UT_TMP/e.out"; ut_fail "utarget stats nosuch: not the reason"; }
echo "ok: utarget stats BACKSTORE gives one, an unknown one is refused"
ut_stop
echo "stats: all checks passed"
