#!/bin/bash
# tmf_scope.sh UTARGETD TMF_SCOPE: who may reset the target, and what a
# target reset reaches (RFC 7143 11.5.1; docs/config.md "acls",
# "Target resets"). Three ACLs of one target, a real initiator each
# (tests/tools/tmf_scope, libiscsi), over TCP:
#   resetter  target_reset: true   LUN 0 = d0
#   plain     (no permission)      LUN 0 = d0
#   other     (no permission)      LUN 0 = d1   (d1 is in no other map)
# d0 and d1 delay every I/O by a second (fault.delay_us), so READs are in
# flight while another initiator sends a reset. Checked: TRS reported to
# the resetter only; plain's TARGET WARM/COLD RESET answered 6 ("Function
# authorization failed") with the other sessions and their I/O untouched;
# the resetter's warm reset reaches d0 (29/03 for d0's nexuses) and not d1
# (other's READ completes, no unit attention); its cold reset closes every
# session and leaves d1 with I_T NEXUS LOSS only. The daemon logs the
# refusals.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?tmf_scope}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"

I_RESET=iqn.2026-12.org.example:resetter
I_PLAIN=iqn.2026-12.org.example:plain
I_OTHER=iqn.2026-12.org.example:other
ut_pick_port
ut_write_config tmf.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "d0", "type": "ram", "size": "16M", "fault": { "delay_us": 1000000 } },
    { "name": "d1", "type": "ram", "size": "16M", "fault": { "delay_us": 1000000 } }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "acls": [
        { "initiator": "$I_RESET", "target_reset": true },
        { "initiator": "$I_PLAIN" },
        { "initiator": "$I_OTHER", "luns": [ { "lun": 0, "backstore": "d1" } ] } ] }
  ]
}
JSON
ut_start "$UT_TMP/tmf.json"
echo "tmf_scope 127.0.0.1:$UT_PORT $UT_TARGET $I_RESET $I_PLAIN $I_OTHER"
ut_run_client "$UT_TMP/client.out" "$CLIENT" "127.0.0.1:$UT_PORT" "$UT_TARGET" \
	"$I_RESET" "$I_PLAIN" "$I_OTHER"
rc=$?
cat "$UT_TMP/client.out"
[ "$rc" = 0 ] || ut_fail "tmf_scope failed (status $rc)"
grep -q "initiator $I_PLAIN: TARGET WARM RESET refused: its ACL does not allow target resets" \
	"$UT_LOG" || ut_fail "no log line for the refused warm reset"
grep -q "initiator $I_PLAIN: TARGET COLD RESET refused" "$UT_LOG" ||
	ut_fail "no log line for the refused cold reset"
echo "ok: the refusals are logged"
ut_stop
echo "PASS tmf scope"
