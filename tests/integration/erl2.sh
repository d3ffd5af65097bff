#!/bin/bash
# erl2.sh UTARGETD UTARGET ERL2: ErrorRecoveryLevel 2, connection recovery
# (RFC 7143 7.2.2, 11.5.1 TASK REASSIGN, 11.14 Logout reason 2), driven by
# the project's raw initiator (tests/tools/erl2.c) over TCP:
#
#   erl2 --(cid 0)--+
#        --(cid 1)--+--> utargetd (error_recovery_level 2, max_connections 4,
#        --(cid 2)--+     DefaultTime2Wait 0, DefaultTime2Retain 20)
#        --(cid 3)--+              --> LUN 0: ram 64M
#   one session, 4 commands in flight per connection; 50 times a
#   connection is dropped (reset of its socket, or Logout reason 2 from the
#   next connection), a replacement logs in with its CID and reassigns
#   its tasks; the answers on sessions of their own (-A). Then a second
#   session (erl2 -O, 20 drops): each drop also loses a new command of the
#   connection (never written), TASK REASSIGN answers 01h and the command
#   goes again on the replacement AFTER newer commands (a CmdSN below one
#   already sent on that connection, RFC 7143 3.2.2.1).
#
# Checked:
#   - 50 drops, 0 commands lost, 0 wrong bytes, every command GOOD;
#   - the session's connection_recoveries equals the drops, its
#     tasks_reassigned the tool's "complete" answers, tasks_expired 0;
#   - TASK REASSIGN: a task of a live connection 03h, an unknown ITT 01h, a
#     task not reassigned within Time2Wait + Time2Retain (1 s offered) 01h
#     after it ended (and a log line for it), at ERL 1 04h;
#   - -O: 20 drops, 0 commands lost, 0 wrong bytes, every command GOOD, and
#     resent_behind > 0 (resends behind newer commands on one connection
#     completed: the connection did not stop waiting for the older CmdSN).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: erl2.sh UTARGETD UTARGET ERL2"
UTARGET=${2:?$USAGE}
ERL2=${3:?$USAGE}
E=iqn.2026-12.org.utarget.erl2:e
I=iqn.2026-12.org.utarget.erl2:init
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_write_config erl2.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "iscsi": { "nop_in_interval": 0, "error_recovery_level": 2, "max_connections": 4,
             "default_time2wait": 0, "default_time2retain": 20 },
  "backstores": [ { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$E",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/erl2.json" --threads 2
P=127.0.0.1:$UT_PORT


ut_hold w 60 "$ERL2" "$P" "$E" "$I" -n 4 -d 50 -m 40 -q 4 -A
u --json session list >"$UT_TMP/sl.json" || ut_fail "session list: $(cat "$UT_TMP/sl.json")"
ut_release w
cat "$UT_TMP/w.out"
ut_has w "^answers allegiant 3 unknown 1 expired 1 erl1 4$"
ut_has w "^session tsih [0-9]+ erl 2 conns 4$"
ut_has w "^drops 50 reset 25 logout 25$"
ut_has w "^io commands [0-9]+ reads [0-9]+ writes [0-9]+ bytes [0-9]+ mismatches 0 failed 0 lost 0$"
ut_has w "^OK$"
CMDS=$(ut_num w "io commands")
[ "$CMDS" -ge 2000 ] || ut_fail "only $CMDS commands"
RT=$(ut_num w "reassign tasks")
CO=$(ut_num w "complete")
[ "$RT" -gt 0 ] && [ "$CO" -gt 0 ] || ut_fail "no task reassigned: $(cat "$UT_TMP/w.out")"
echo "ok: 50 connection drops (25 resets, 25 Logout reason 2) under $CMDS verified commands on 4 connections: 0 lost, 0 wrong bytes"
echo "ok: TASK REASSIGN answers: still allegiant 03h, unknown ITT 01h, expired after Time2Retain 01h, ERL 1 04h"
(
	cd "$UT_TMP" &&
		CO=$CO python3 - <<'PY'
import json, os
s = [x for x in json.load(open("sl.json")) if x["type"] == "normal"
     and x["initiator"].endswith("erl2:init")]
assert len(s) == 1, s
st = s[0]["stats"]
assert s[0]["negotiated"]["error_recovery_level"] == 2, s[0]["negotiated"]
assert st["connection_recoveries"] == 50, st
assert st["tasks_reassigned"] == int(os.environ["CO"]), (st, os.environ["CO"])
assert st["tasks_expired"] == 0, st
print("counters", st["connection_recoveries"], st["tasks_reassigned"], st["tasks_expired"])
PY
) >"$UT_TMP/ctr.out" 2>&1 || ut_fail "session counters: $(cat "$UT_TMP/ctr.out") $(cat "$UT_TMP/sl.json")"
echo "ok: target counters (connection_recoveries tasks_reassigned tasks_expired): $(cat "$UT_TMP/ctr.out")"
grep -q "not reassigned within Time2Wait + Time2Retain: ended" "$UT_LOG" ||
	ut_fail "no log line for the expired task"
echo "ok: the task not reassigned within Time2Wait + Time2Retain ended (logged)"

# resends behind newer commands on their connection
timeout 120 "$ERL2" "$P" "$E" "$I-o" -n 4 -d 20 -m 40 -q 4 -O >"$UT_TMP/o.out" 2>&1 ||
	ut_fail "erl2 -O: $(cat "$UT_TMP/o.out")"
cat "$UT_TMP/o.out"
ut_has o "^session tsih [0-9]+ erl 2 conns 4$"
ut_has o "^drops 20 reset 10 logout 10$"
ut_has o "^io commands [0-9]+ reads [0-9]+ writes [0-9]+ bytes [0-9]+ mismatches 0 failed 0 lost 0$"
ut_has o "^reassign tasks [0-9]+ complete [0-9]+ not_found [0-9]+ allegiant [0-9]+ resent_behind [0-9]+$"
ut_has o "^OK$"
NF=$(ut_num o "not_found")
RB=$(ut_num o "resent_behind")
[ "$NF" -gt 0 ] && [ "$RB" -gt 0 ] || ut_fail "erl2 -O: no command resent behind a newer one: $(cat "$UT_TMP/o.out")"
echo "ok: 20 drops with -O: $RB of $NF commands answered 01h resent behind newer commands on their connection, 0 lost, 0 wrong bytes"
ut_stop
