#!/bin/bash
# detach.sh UTARGETD: without -f, utargetd detaches: the command returns 0
# once the daemon is ready (serving, in a new session, logging to
# --log-file), or 1 when start-up fails (with the error on stderr). SIGTERM
# stops the detached daemon cleanly.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
ut_pick_port

ut_write_config det.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "r", "type": "ram", "size": "16M" } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
log=$UT_TMP/detached.log
timeout 60 "$UTARGETD" -c "$UT_TMP/det.json" --log-file "$log" --log-level info
rc=$?
[ "$rc" = 0 ] || ut_fail "detached start: status $rc, want 0"
pid=$(ss -Htlnp "( sport = :$UT_PORT )" | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | head -n 1)
[ -n "$pid" ] || ut_fail "nothing listens on $UT_PORT after a successful detached start"
[ "$(cat "/proc/$pid/comm")" = utargetd ] || ut_fail "pid $pid is not utargetd"
sid=$(ps -o sid= -p "$pid" | tr -d ' ')
[ "$sid" != "$(ps -o sid= -p $$ | tr -d ' ')" ] || ut_fail "the daemon stayed in our session"
[ "$sid" != "$pid" ] || ut_fail "the daemon is a session leader (could get a controlling tty)"
echo "ok: detached, pid $pid, session $sid"
out=$(timeout 60 iscsi-ls "iscsi://127.0.0.1:$UT_PORT/" 2>&1)
[ "$out" = "Target:$UT_TARGET Portal:127.0.0.1:$UT_PORT,1" ] || ut_fail "iscsi-ls: $out"
echo "ok: serving: $out"
kill -TERM "$pid"
for ((i = 0; i < UT_STOP_WAIT * 10; i++)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && ut_fail "the detached daemon did not stop on SIGTERM"
grep -q "utargetd stopped" "$log" || ut_fail "no \"utargetd stopped\" in $log"
ut_sanitizer_check "$log"
echo "ok: stopped; the log file has the session and the stop"

# start-up failure while detaching: status 1 and the error on our stderr
sed "s/127.0.0.1:$UT_PORT/192.0.2.1:$UT_PORT/" "$UT_TMP/det.json" >"$UT_TMP/bad.json"
err=$(timeout 60 "$UTARGETD" -c "$UT_TMP/bad.json" --log-file "$log" 2>&1)
rc=$?
[ "$rc" = 1 ] || ut_fail "detached failing start: status $rc, want 1"
echo "$err" | grep -q "cannot listen on 192.0.2.1:$UT_PORT" || ut_fail "no error shown: $err"
echo "ok: failing detached start: status 1, $(echo "$err" | tail -n 1)"
echo "PASS detach"
