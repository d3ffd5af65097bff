#!/bin/bash
# pr_crash.sh UTARGETD PR_CLIENT [ROUNDS]: APTPL state across crashes
# (SPC-4 5.13.5; src/scsi/pr_store.c). ROUNDS (default 50, or $PR_CRASH_ROUNDS)
# times: tests/tools/pr_client crash-loop runs random PERSISTENT RESERVE OUTs
# with APTPL=1 from two I_T nexuses, journaling (fsync) each one before it
# is sent and once it is acknowledged; utargetd is killed with SIGKILL at a
# random moment (0.05-0.5 s in); after the restart pr_client crash-check
# requires READ FULL STATUS to equal the state after the last acknowledged
# PR OUT or after the one in flight -- anything else (a torn, stale or lost
# state file) is a violation. The next round starts from the state found.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
CLIENT=${2:?pr_client}
ROUNDS=${3:-${PR_CRASH_ROUNDS:-50}}
[ -x "$CLIENT" ] || ut_fail "$CLIENT is not an executable"

ut_write_config crash.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "lu0", "type": "file", "path": "lu0.img", "size": "16M",
                    "create": true, "thin": true } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "lu0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
url="iscsi://127.0.0.1:@PORT@/$UT_TARGET/0"
violations=0 acked=0 inflight=0 found_next=0 t0=$SECONDS
for ((round = 1; round <= ROUNDS; round++)); do
	UT_LOG=$UT_TMP/utargetd.$round.log
	ut_start "$UT_TMP/crash.json" >/dev/null
	u=${url/@PORT@/$UT_PORT}
	j=$UT_TMP/journal.$round
	timeout 60 "$CLIENT" crash-loop "$u" "$j" "$round" >"$UT_TMP/loop.$round" 2>&1 &
	cpid=$!
	# wait for the first PR OUT, then a random moment
	for ((i = 0; i < 200; i++)); do
		grep -q '^OP ' "$j" 2>/dev/null && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.02
	done
	sleep "0.$(printf '%02d' $((5 + RANDOM % 46)))"
	kill -KILL "$UT_PID"
	wait "$UT_PID" 2>/dev/null
	UT_PID=
	wait "$cpid"
	rc=$?
	# 3: the target went away (expected); anything else is the client's verdict
	if [ "$rc" != 3 ]; then
		cat "$UT_TMP/loop.$round"
		ut_fail "round $round: crash-loop ended with status $rc (3 expected: target killed)"
	fi
	n_ack=$(grep -c '^ACK ' "$j")
	n_op=$(grep -c '^OP ' "$j")
	acked=$((acked + n_ack))
	[ "$n_op" -gt "$n_ack" ] && inflight=$((inflight + 1))
	UT_LOG=$UT_TMP/utargetd.$round.restart.log
	ut_start "$UT_TMP/crash.json" >/dev/null
	if ! "$CLIENT" crash-check "$u" "$j" >"$UT_TMP/check.$round" 2>&1; then
		violations=$((violations + 1))
		echo "round $round: VIOLATION"
		cat "$UT_TMP/check.$round"
	fi
	grep -q "(in flight)" "$UT_TMP/check.$round" && found_next=$((found_next + 1))
	ut_stop >/dev/null
done
echo "$ROUNDS rounds in $((SECONDS - t0)) s: $acked PR OUTs acknowledged;" \
	"$inflight kills with a PR OUT in flight, after $found_next of them its state was found;" \
	"$violations violation(s)"
[ "$violations" = 0 ] || ut_fail "$violations round(s) found a state that no acknowledged PR OUT left"
[ "$acked" -ge "$ROUNDS" ] || ut_fail "only $acked PR OUTs acknowledged: the test did not exercise APTPL"
echo "PASS pr-crash"
