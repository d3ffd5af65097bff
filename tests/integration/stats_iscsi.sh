#!/bin/bash
# stats_iscsi.sh UTARGETD RAWLOGIN MALFORMED HOLDSESSION CDBPROBE: the iSCSI-MIB side
# of stats.get (issue 13; RFC 7147, fabric/iscsi/counters.c): each login,
# logout and failure is counted once, on the right object, with who caused
# the last failure; a live session's PDU counters agree with its commands.
#
#   rawlogin / malformed / holdsession --- utargetd :PORT --- target A (demo) --- LUN 0: r0
#   cdbprobe                                |                     |-------------- LUN 1: slow (ram,
#                                           |                 target C (CHAP u)  -- LUN 0: r0   reads held 1.5 s)
#   utrpc.py stats.get ------------------- rpc.sock
#
# Each step takes a snapshot before and after and checks the deltas:
#   1 a login to A (TEST UNIT READY, which meets the new I_T nexus's unit
#     attention and is sent again, READ CAPACITY(16), logout): A accepts +1,
#     A logouts normal +1, A's port 3 commands and 32 bytes read;
#   2 C with a wrong CHAP secret: C authentication failures +1, last failure
#     "authentication" from the initiator's name and 127.0.0.1; A unchanged;
#   3 an unknown TargetName: the instance's other failures +1 (02/03);
#   4 a discovery session: the instance's accepts +1 and normal logouts +1;
#   5 a header digest error (malformed): one session failed by a digest error,
#     the last failure names malformed's initiator;
#   6 while holdsession reads: its session is listed with its ISID, and
#     commands <= command PDUs <= commands + 1, responses in [commands - 1,
#     commands], its connection's PDUs and bytes cover them; the target filter
#     and the parameter errors;
#   7 a READ held 1.5 s by the fault layer: its LU has 1 command in flight
#     while it waits, 0 after (the LU's queue depth gauge).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: stats_iscsi.sh UTARGETD RAWLOGIN MALFORMED HOLDSESSION CDBPROBE"
RAW=${2:?$USAGE}
MAL=${3:?$USAGE}
HOLD=${4:?$USAGE}
PROBE=${5:?$USAGE}
RPC="$UT_ROOT/tests/tools/utrpc.py"
ut_pick_port
SOCK=$UT_TMP/rpc.sock
A=iqn.2026-12.org.utarget:a
C=iqn.2026-12.org.utarget:c
BAD=iqn.2026-12.org.test:bad

ut_write_config st.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "r0", "type": "ram", "size": "8M" },
                  { "name": "slow", "type": "ram", "size": "8M", "fault": { "delay_us": 1500000 } } ],
  "targets": [
    { "name": "$A",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" }, { "lun": 1, "backstore": "slow" } ],
      "demo_mode": { "enabled": true, "read_only": false } },
    { "name": "$C",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" } ],
      "auth": { "chap": [ { "user": "u", "secret": "secretsecret12" } ] },
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
chmod 600 "$UT_TMP/st.json"
ut_start "$UT_TMP/st.json"
ADDR=127.0.0.1:$UT_PORT
n=0
snap() { n=$((n + 1)); python3 "$RPC" "$SOCK" stats.get >"$UT_TMP/s$n.json" || ut_fail "stats.get failed"; }
# check STEP PYTHON: the python body sees a (before), b (after), t(s, name)
check() {
	python3 - "$UT_TMP/s$((n - 1)).json" "$UT_TMP/s$n.json" "$A" "$C" "$BAD" <<PY || ut_fail "step $1: the counters are not what was done"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
A, C, BAD = sys.argv[3:6]
t = lambda s, name: next(x for x in s["targets"] if x["name"] == name)
def d(path, name=None):
    def get(s):
        o = t(s, name) if name else s["instance"]
        for k in path.split("."):
            o = o[int(k)] if isinstance(o, list) else o[k]
        return o
    return get(b) - get(a)
$2
PY
}

snap
"$RAW" --addr "$ADDR" --target "$A" >/dev/null || ut_fail "rawlogin to A failed"
snap
check 1 '
assert d("login.accepts", A) == 1 and d("logout.normal", A) == 1, "A login/logout"
assert d("portal_groups.0.commands", A) == 3, "A port commands %d" % d("portal_groups.0.commands", A)
assert d("portal_groups.0.read_bytes", A) == 32, "A port bytes read"
assert t(b, A)["portal_groups"][0]["tag"] == 1 and t(b, A)["portal_groups"][0]["rel_port_id"] == 1
assert d("login.accepts") == 0 and d("session_failures") == 0, "the instance moved"
assert t(b, A)["login"]["last_failure"] is None'

rc=0
"$RAW" --addr "$ADDR" --target "$C" --initiator "$BAD" --chap-user u --chap-secret wrongwrongwrong \
	>"$UT_TMP/raw.out" || rc=$?
[ "$rc" = 3 ] && grep -q "login status 02/01" "$UT_TMP/raw.out" || ut_fail "a wrong secret was not refused 02/01"
snap
check 2 '
assert d("login.authentication_failures", C) == 1, "C authentication failures"
f = t(b, C)["login"]["last_failure"]
assert f["type"] == "authentication" and f["initiator"] == BAD and f["address"] == "127.0.0.1", f
assert f["time"].endswith("Z") and len(f["time"]) == 20, f
assert t(a, A) == t(b, A), "A changed"
assert d("login.accepts", C) == 0 and d("portal_groups.0.commands", C) == 0'

rc=0
"$RAW" --addr "$ADDR" --target iqn.2026-12.org.utarget:none >"$UT_TMP/raw.out" || rc=$?
[ "$rc" = 3 ] && grep -q "login status 02/03" "$UT_TMP/raw.out" || ut_fail "an unknown target was not refused 02/03"
snap
check 3 '
assert d("login.other_failures") == 1, "instance other failures"
f = b["instance"]["login"]["last_failure"]
assert f["type"] == "other" and f["initiator"].startswith("iqn.") and f["address"] == "127.0.0.1", f
assert sum(d("login." + k, x) for x in (A, C) for k in ("accepts", "other_failures")) == 0'

"$RAW" --addr "$ADDR" --discovery >/dev/null || ut_fail "the discovery session failed"
snap
check 4 '
assert d("login.accepts") == 1 and d("logout.normal") == 1, "discovery login/logout"
assert t(a, A)["login"] == t(b, A)["login"] and t(a, C)["login"] == t(b, C)["login"]'

"$MAL" --addr "$ADDR" --target "$A" --case header-digest-error >"$UT_TMP/mal.out" ||
	ut_fail "malformed header-digest-error: $(cat "$UT_TMP/mal.out")"
snap
check 5 '
assert d("digest_errors") == 1, "digest failures %d" % d("digest_errors")
assert d("session_failures") >= 1 and d("format_errors") == 0 and d("connection_timeouts") == 0
f = b["instance"]["last_failure"]
assert f["type"] in ("digest", "other") and f["initiator"] == "iqn.2026-12.org.utarget:malformed", f'

STOP=$UT_TMP/stop
"$HOLD" -i iqn.2026-12.org.test:hold "iscsi://$ADDR/$A/0" "$STOP" 60 >"$UT_TMP/hold.out" 2>&1 &
HPID=$!
for i in $(seq 100); do grep -q ready "$UT_TMP/hold.out" && break; sleep 0.1; done
grep -q ready "$UT_TMP/hold.out" || ut_fail "holdsession did not start: $(cat "$UT_TMP/hold.out")"
sleep 0.3
snap
sleep 0.5
snap
touch "$STOP"
wait $HPID || ut_fail "holdsession: $(cat "$UT_TMP/hold.out")"
check 6 '
ss = lambda s: [x for x in s["sessions"] if x["initiator"] == "iqn.2026-12.org.test:hold"]
(x,), (y,) = ss(a), ss(b)
assert y["target"] == A and y["tpgt"] == 1 and not y["discovery"] and len(y["isid"]) == 12
for s in (x, y):
    assert s["commands"] <= s["command_pdus"] <= s["commands"] + 1, s
    assert s["commands"] - 1 <= s["response_pdus"] <= s["commands"], s
    assert s["tx_data_bytes"] >= s["read_bytes"] >= 512 * (s["commands"] - 3), s
    assert s["write_bytes"] == 0 and s["digest_errors"] == s["format_errors"] == 0
    (c,) = s["connections"]
    assert c["rx_pdus"] >= s["command_pdus"] and c["tx_pdus"] >= s["response_pdus"], c
    assert c["tx_bytes"] >= 48 * c["tx_pdus"] + s["tx_data_bytes"], c
    assert c["rx_bytes"] >= 48 * c["rx_pdus"] + s["rx_data_bytes"], c
assert y["command_pdus"] - x["command_pdus"] >= 10, "holdsession reads every 20 ms"
assert b["instance"]["sessions"] >= 1 and b["instance"]["connections"] >= 1'

# filters: one target and its sessions, no LUs; one back-store: no targets
python3 "$RPC" "$SOCK" stats.get "{\"target\": \"$C\"}" >"$UT_TMP/f.json" || ut_fail "stats.get target"
python3 - "$UT_TMP/f.json" "$C" <<'PY' || ut_fail "the target filter"
import json, sys
r = json.load(open(sys.argv[1]))
assert [t["name"] for t in r["targets"]] == [sys.argv[2]] and r["sessions"] == [] and "luns" not in r
PY
python3 "$RPC" "$SOCK" stats.get '{"backstore": "r0"}' >"$UT_TMP/f.json" || ut_fail "stats.get backstore"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert "targets" not in r and len(r["luns"]) == 1 and "instance" in r' \
	"$UT_TMP/f.json" || ut_fail "the back-store filter"
rc=0
python3 "$RPC" "$SOCK" stats.get '{"target": "iqn.2026-12.org.utarget:none"}' >"$UT_TMP/e.json" || rc=$?
[ "$rc" = 3 ] && grep -q -- "-32002" "$UT_TMP/e.json" || ut_fail "an unknown target was not refused: $(cat "$UT_TMP/e.json")"
rc=0
python3 "$RPC" "$SOCK" stats.get "{\"target\": \"$A\", \"backstore\": \"r0\"}" >"$UT_TMP/e.json" || rc=$?
[ "$rc" = 3 ] && grep -q -- "-32602" "$UT_TMP/e.json" || ut_fail "target with backstore was not refused"
# 7: the in-flight gauge
CDBPROBE_UA=1 "$PROBE" "iscsi://$ADDR/$A/1" 28000000000000000100 in 512 >/dev/null &
PPID_=$!
sleep 0.7
python3 "$RPC" "$SOCK" stats.get '{"backstore": "slow"}' >"$UT_TMP/i1.json" || ut_fail "stats.get"
wait $PPID_ || ut_fail "the held READ failed"
python3 "$RPC" "$SOCK" stats.get '{"backstore": "slow"}' >"$UT_TMP/i2.json" || ut_fail "stats.get"
python3 - "$UT_TMP/i1.json" "$UT_TMP/i2.json" <<'PY' || ut_fail "the in-flight gauge"
import json, sys
a, b = (json.load(open(f))["luns"][0] for f in sys.argv[1:3])
assert a["in_flight"] == 1, "while held: %d" % a["in_flight"]
assert b["in_flight"] == 0 and b["commands"] >= a["commands"] + 1, (a, b)
PY
ut_stop
echo "stats_iscsi: PASS"
