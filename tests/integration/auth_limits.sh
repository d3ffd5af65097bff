#!/bin/bash
# auth_limits.sh UTARGETD RAWLOGIN: session and connection limits (docs/config.md
# "limits", iscsi.max_sessions). Global max_sessions 3; target "a" allows 2
# sessions and a command window of 8; target "b" has no limits of its own.
# The raw initiator holds several sessions at once: the one over a limit gets
# 03/02 (out of resources) and the daemon says which limit; a second
# connection to a session gets 02/06 (too many connections: MaxConnections is
# 1). Sessions that end give their place back.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RAW=${2:?usage: auth_limits.sh UTARGETD RAWLOGIN}
[ -x "$RAW" ] || ut_fail "$RAW is not an executable"

A=iqn.2026-12.org.utarget:a
B=iqn.2026-12.org.utarget:b
I=iqn.2026-12.org.utarget.test:limits

ut_write_config lim.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "iscsi": { "max_sessions": 3, "queue_depth": 32 },
  "backstores": [ { "name": "d", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$A",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true },
      "limits": { "max_sessions": 2, "queue_depth": 8 } },
    { "name": "$B",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true } }
  ]
}
JSON
ut_start "$UT_TMP/lim.json"
P=127.0.0.1:$UT_PORT

out=$("$RAW" --addr "$P" --target "$A" --initiator "$I" --sessions 3 2>&1)
grep -q "^session 1: login ok" <<<"$out" || ut_fail "second session of $A refused: $out"
grep -q "^session 2: login status 03/02" <<<"$out" || ut_fail "third session of $A: $out (want 03/02)"
grep -q "^CmdSN window 8$" <<<"$out" || ut_fail "the window of $A is not its queue_depth 8: $out"
grep -q "login failed (03/02 out of resources).*max_sessions of the target reached" "$UT_LOG" ||
	ut_fail "no log line for the target's session limit"
echo "ok: $A: 2 sessions, the third gets 03/02 (logged); its command window is 8"

out=$("$RAW" --addr "$P" --target "$B" --initiator "$I" --sessions 4 2>&1)
grep -q "^session 2: login ok" <<<"$out" || ut_fail "third session of $B refused: $out"
grep -q "^session 3: login status 03/02" <<<"$out" || ut_fail "fourth session: $out (want 03/02)"
grep -q "^CmdSN window 32$" <<<"$out" || ut_fail "the window of $B is not the global 32: $out"
grep -q "max_sessions reached (all targets)" "$UT_LOG" || ut_fail "no log line for the global limit"
echo "ok: $B: the global max_sessions 3 applies, the fourth session gets 03/02 (logged)"

# the places come back once the sessions have ended
for i in 1 2 3 4 5 6 7 8 9 10; do
	out=$("$RAW" --addr "$P" --target "$B" --initiator "$I" --sessions 3 2>&1) && break
	sleep 0.2
done
grep -q "^session 2: login ok" <<<"$out" || ut_fail "sessions did not give their places back: $out"
echo "ok: ended sessions give their places back"

out=$("$RAW" --addr "$P" --target "$A" --initiator "$I" --second-connection 2>&1)
grep -q "^second connection: login status 02/06" <<<"$out" ||
	ut_fail "a second connection: $out (want 02/06)"
grep -q "^login ok" <<<"$out" || ut_fail "the first connection: $out"
grep -q "login failed (02/06 too many connections).*max_connections of the session reached" "$UT_LOG" ||
	ut_fail "no log line for the connection limit"
echo "ok: a second connection to a session gets 02/06 (logged); the session goes on"
ut_stop
echo "PASS auth-limits"
