#!/bin/bash
# tmf_query.sh UTARGETD TMF_QUERY: the SAM-4/5 task management functions
# over iSCSI (RFC 7144: iSCSIProtocolLevel 2), driven by the project's raw
# initiator (tests/tools/tmf_query.c) over TCP:
#
#   tmf_query --(session, level 1)--+
#                                   +--> utargetd --> LUN 0: ram 16M,
#   tmf_query --(session, level 2)--+                 every I/O delayed 1 s
#
# A level 1 session gets "Function not supported" for QUERY TASK and I_T
# NEXUS RESET, and REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS does not list
# them; a level 2 session gets QUERY TASK / QUERY TASK SET of a READ in
# flight, QUERY ASYNCHRONOUS EVENT with the pending unit attention, and an
# I_T NEXUS RESET that aborts its READ and leaves I_T NEXUS LOSS (the
# checks are listed in tmf_query.c).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?tmf_query}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"
ut_pick_port
ut_write_config tmfq.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "d0", "type": "ram", "size": "16M", "fault": { "delay_us": 1000000 } }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "demo_mode": { "enabled": true, "read_only": true } }
  ]
}
JSON
ut_start "$UT_TMP/tmfq.json"
ut_run_client "$UT_TMP/client.out" "$CLIENT" "127.0.0.1:$UT_PORT" "$UT_TARGET"
rc=$?
cat "$UT_TMP/client.out"
[ "$rc" = 0 ] || ut_fail "tmf_query failed (status $rc)"
ut_stop
echo "PASS tmf query"
