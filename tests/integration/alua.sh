#!/bin/bash
# alua.sh UTARGETD ALUA_CLIENT: ALUA end to end (SPC-4 5.15; docs/config.md
# "port_groups"). One thin LU reached through two targets ports of one
# target (portal groups 1 and 2 on two TCP ports), in two configured target
# port groups (10 "site-a", 20 "site-b") that accept explicit transitions
# with a 300 ms transition time. tests/tools/alua_client (libiscsi) logs in
# through both, sets B's group to standby through A (SET TARGET PORT
# GROUPS), and checks: READ through B gets NOT READY 04/0B after the
# ASYMMETRIC ACCESS STATE CHANGED unit attention, READ through A succeeds,
# REPORT TARGET PORT GROUPS through B reports both groups, the sessions stay
# up. Then a config with "lu_states" starts with the LU in standby through
# group 20 (state from the file) and iscsi-inq reports TPGS 11b.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?alua_client}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"

ut_pick_port
ut_pick_port2
export UT_OWN_PORTALS=1
config() { # $1: lu_states of group 20
	ut_write_config alua.json <<JSON
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
  ],
  "port_groups": [
    { "id": 10, "name": "site-a", "preferred": true, "explicit": true, "transition_ms": 300,
      "members": [ { "target": "$UT_TARGET", "tag": 1 } ] },
    { "id": 20, "name": "site-b", "explicit": true, "transition_ms": 300,
      "members": [ { "target": "$UT_TARGET", "tag": 2 } ], "lu_states": $1 }
  ]
}
JSON
}

config '[]'
"$UTARGETD" --check -c "$UT_TMP/alua.json" >/dev/null || ut_fail "--check refused the config"
ut_start "$UT_TMP/alua.json"
url_a="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
url_b="iscsi://127.0.0.1:$UT_PORT2/$UT_TARGET/0"
echo "alua_client $url_a $url_b 300"
ut_run_client "$UT_TMP/client.out" "$CLIENT" "$url_a" "$url_b" 300
rc=$?
cat "$UT_TMP/client.out"
[ "$rc" = 0 ] || ut_fail "alua_client failed (status $rc)"
grep -q "target port group 20: lu0 -> standby (SET TARGET PORT GROUPS" "$UT_LOG" ||
	ut_fail "no log line for the explicit transition"
ut_stop

# the state of a logical unit through a group, from the file
config '[ { "backstore": "lu0", "state": "standby" } ]'
ut_start "$UT_TMP/alua.json"
out=$(iscsi-inq "$url_a" 2>&1) || ut_fail "iscsi-inq: $out"
echo "$out" | grep -qx "TPGS:3" || {
	echo "$out"
	ut_fail "TPGS is not 11b"
}
echo "ok: INQUIRY TPGS 11b (implicit and explicit)"
# libiscsi's connect ends with TEST UNIT READY, which standby refuses
out=$(iscsi-readcapacity16 "$url_b" 2>&1) && ut_fail "a command through standby group 20 succeeded: $out"
echo "$out" | grep -q "NOT READY.*0x040b" || ut_fail "unexpected error: $out"
echo "ok: through group 20 (standby from the file): NOT READY 04/0B"
out=$(iscsi-readcapacity16 "$url_a" 2>&1) || ut_fail "READ CAPACITY through group 10: $out"
echo "ok: through group 10 READ CAPACITY(16) succeeds"
ut_stop
echo "PASS alua"
