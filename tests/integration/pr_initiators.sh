#!/bin/bash
# pr_initiators.sh UTARGETD PR_CLIENT: persistent reservations end to end
# with two initiators through two target ports (portal groups 1 and 2 on
# two TCP ports) of one thin LU. tests/tools/pr_client (libiscsi) runs
# "scenario": register -> reserve (each of the six types: who may read,
# write, reserve) -> conflict -> PREEMPT AND ABORT with the victim's queued
# commands aborted (TAS 1: TASK ABORTED; TAS 0: no response and COMMANDS
# CLEARED BY ANOTHER INITIATOR) and its unit attention -> REGISTER AND MOVE
# both ways (by TransportID and relative target port) -> CLEAR.
# Then, SPC-4 5.13.5: registrations made with APTPL=0 are gone after a
# restart, those made with APTPL=1 are still there.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?pr_client}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"

ut_pick_port
ut_pick_port2
export UT_OWN_PORTALS=1
ut_write_config pr.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "lu0", "type": "file", "path": "lu0.img", "size": "64M",
                    "create": true, "thin": true } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] },
                         { "tag": 2, "portals": ["127.0.0.1:@PORT2@"] } ],
      "luns": [ { "lun": 0, "backstore": "lu0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/pr.json"
url_a="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
url_b="iscsi://127.0.0.1:$UT_PORT2/$UT_TARGET/0"
echo "pr_client scenario $url_a $url_b"
ut_run_client "$UT_TMP/client.out" "$CLIENT" scenario "$url_a" "$url_b"
rc=$?
cat "$UT_TMP/client.out"
[ "$rc" = 0 ] || ut_fail "pr_client scenario failed (status $rc)"
grep -q "PREEMPT AND ABORT from iqn.2026-12.org.utarget:pr-b,i,0x[0-9a-f]* aborted 4 task" \
	"$UT_LOG" || ut_fail "no log line for the tasks PREEMPT AND ABORT aborted"

ut_stop
: >"$UT_LOG"

# SPC-4 5.13.5: what survives a restart is decided by the last APTPL bit
keys() { # the registered keys, one line "keys: ..."
	ut_run_client "$UT_TMP/keys.out" "$CLIENT" keys "$url_a" || ut_fail "keys failed"
	cat "$UT_TMP/keys.out"
}
register() { # initiator key aptpl
	ut_run_client "$UT_TMP/reg.out" "$CLIENT" register "$url_a" "iqn.2026-12.org.utarget:$1" \
		"$2" "$3" || { cat "$UT_TMP/reg.out"; ut_fail "register $1 failed"; }
}
state_file() { ls "$UT_TMP"/pr-*.state 2>/dev/null; }
restart() {
	ut_stop
	: >"$UT_LOG"
	ut_start "$UT_TMP/pr.json"
}
ut_start "$UT_TMP/pr.json"
register a a1 0
[ -z "$(state_file)" ] || ut_fail "a state file without APTPL"
restart
[ "$(keys)" = "keys:" ] || ut_fail "a registration made with APTPL=0 survived the restart"
echo "ok: APTPL=0 registration dropped at restart"
register a a2 1
register b b2 1
[ -n "$(state_file)" ] || ut_fail "no state file with APTPL=1"
restart
[ "$(keys)" = "keys: a2 b2" ] || ut_fail "APTPL=1 registrations not restored"
grep -q "2 persistent reservation registration(s) restored from" "$UT_LOG" ||
	ut_fail "no restore logged"
echo "ok: APTPL=1 registrations restored at restart"
register b b3 0
[ -z "$(state_file)" ] || ut_fail "the state file stayed after APTPL=0"
restart
[ "$(keys)" = "keys:" ] || ut_fail "registrations survived after the last APTPL bit was 0"
echo "ok: the last APTPL bit 0 removed the state"
ut_stop
echo "PASS pr-initiators"
