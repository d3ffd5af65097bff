#!/bin/bash
# aca.sh UTARGETD ACA: auto contingent allegiance (SAM-5 5.9) over iSCSI,
# driven by the project's raw initiator (tests/tools/aca.c) over TCP:
#
#   aca --(session A, iqn...:aca-a, faulted)--+
#   aca --(session B, iqn...:aca-b)-----------+--> utargetd --> LUN 0: ram 16M
#   aca --(session A2, iqn...:aca-a2)---------+
#
# A READ past the end with NACA 1 establishes an ACA on A's I_T nexus: A's
# SIMPLE commands get ACA ACTIVE (30h), its ACA-attribute commands (iSCSI
# ATTR 4) run; B gets BUSY (NACA 0) or ACA ACTIVE (NACA 1, ACA attribute),
# a WRITE too (its Data-Out discarded);
# CLEAR ACA (function 3) from B leaves it, from A clears it; NACA 0 gives
# no ACA; LOGICAL UNIT RESET and the end of the faulted session clear it;
# INQUIRY reports NormACA and RSTMF CACAS (the checks are listed in aca.c;
# each prints ok/FAIL, the client exits non-zero on any failure).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?aca}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"
ut_pick_port
ut_write_config aca.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "d0", "type": "ram", "size": "16M" }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/aca.json"
ut_run_client "$UT_TMP/client.out" "$CLIENT" "127.0.0.1:$UT_PORT" "$UT_TARGET"
rc=$?
cat "$UT_TMP/client.out"
fails=$(grep -c '^FAIL:' "$UT_TMP/client.out")
[ "$rc" = 0 ] || ut_fail "aca failed (status $rc, $fails failed check(s))"
ut_stop
echo "PASS aca"
