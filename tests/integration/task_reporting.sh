#!/bin/bash
# task_reporting.sh UTARGETD TASK_REPORTING: how the target reports the end
# of the tasks a task management function aborts (RFC 7143 4.2.3,
# TaskReporting 13.23) and REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS
# against the functions the fabric executes, driven by the project's raw
# initiator (tests/tools/task_reporting.c) over TCP:
#
#   task_reporting --(session "tr-mcs", cid 0)--+
#                  --(session "tr-mcs", cid 1)--+--> utargetd --> LUN 0: ram 16M
#                  --(session "tr-third")-------+     (max_connections 2,
#                  --(session "tr-ack", cid 0/1)+     demo: write, target_reset)
#                  --(session "tr-fast", cid 0/1, TaskReporting=FastAbort)
#                  --(session "tr-fence", cid 0/1, TaskReporting=ResponseFence)
#                  --(sessions "tr-issuer2" + "tr-third-fast", TaskReporting=FastAbort)
#                  --(sessions "tr-issuer3" + "tr-third-slow")
#                  --(sessions tr-neg*, tr-level1/2)
#
# TaskReporting is answered with the first value of the initiator's list
# that the target knows (RFC3720, ResponseFence, FastAbort; none: Reject).
# Under RFC3720 ("tr-mcs") and ResponseFence ("tr-fence") a LOGICAL UNIT
# RESET / ABORT TASK SET is answered only after the F bit of every open
# Data-Out burst of the issuing MC/S session, on both connections, while
# the third party's WRITE ends at once with TASK ABORTED (TAS=1); the TMF
# response waits for the acknowledgment of the StatSNs sent on the
# session's connections ("tr-ack"). Under FastAbort ("tr-fast") the WRITEs
# end at once, the other connection gets AsyncEvent 5 and the TMF response
# waits for the NOP-Out acknowledging it. Under ResponseFence and FastAbort
# the other connection sends nothing until the TMF response is
# acknowledged (Response Fence). A third party's StatSNs are waited for
# too (4.2.3.3 d): one that negotiated FastAbort ("tr-third-fast") gets
# AsyncEvent 5, TASK ABORTED and a NOP-In ping, and the response to
# "tr-issuer2" comes once its NOP-Out acknowledges them; one that never
# answers ("tr-third-slow") holds the response to "tr-issuer3" for the
# target's 5 s cap only (about 5 s of this test), which the daemon logs.
# At protocol levels 1 and 2 each function
# is "not supported" exactly when RSTMF does not report it (the checks are
# listed in task_reporting.c).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?task_reporting}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"
ut_pick_port
ut_write_config tr.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "iscsi": { "nop_in_interval": 0, "error_recovery_level": 2 },
  "backstores": [ { "name": "d0", "type": "ram", "size": "16M" } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "demo_mode": { "enabled": true, "read_only": false, "target_reset": true },
      "limits": { "max_connections": 2 } }
  ]
}
JSON
ut_start "$UT_TMP/tr.json"
ut_run_client "$UT_TMP/client.out" "$CLIENT" "127.0.0.1:$UT_PORT" "$UT_TARGET"
rc=$?
cat "$UT_TMP/client.out"
[ "$rc" = 0 ] || ut_fail "task_reporting failed (status $rc)"
# the cap's notice names the third party that did not answer
grep -q "session of iqn.2026-12.org.utarget:tr-third-slow.*no longer waited for" "$UT_LOG" ||
	ut_fail "no notice of the third party's wait given up"
# tr-third-fast's Data-Out sent before it saw AsyncEvent 5 is no protocol
# error (discarded silently)
if grep "tr-third-fast.*protocol error: Data-Out for unknown TTT" "$UT_LOG"; then
	ut_fail "tr-third-fast's stray Data-Out logged as a protocol error"
fi
ut_stop
echo "PASS task reporting"
