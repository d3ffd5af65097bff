#!/bin/bash
# async_events.sh UTARGETD UTARGET AEN_WATCH: SCSI asynchronous events (RFC
# 7143 11.9 AsyncEvent 0): the unit attentions of a session sent as they
# arise, without waiting for a command, for a target with "async_events".
#
#   aen_watch A --(session)--> target T (async_events) --> LUN 0 d0 (file 16M)
#   aen_watch B --(session)--> target U (without)      --> LUN 0 d2 (file 8M)
#                              T's portal group 1 is in ALUA group 10
#
# Each watcher sends one INQUIRY, then no command. The script changes the
# target and A must print each event, in order, before the next change:
#   POWER ON (06/29/00) once A's nexus has a record of the LU;
#   backstore resize d0 -> CAPACITY DATA HAS CHANGED (06/2a/09), LUN 0;
#   lun add T d1 -> REPORTED LUNS DATA HAS CHANGED (06/3f/0e), LUN 0;
#   alua state 10 standby, then back -> ASYMMETRIC ACCESS STATE CHANGED
#   (06/2a/06) twice.
# A watcher P that registered a key on T's LUN 0 gets REGISTRATIONS
# PREEMPTED (06/2a/05) as an event when the administrator clears its
# registration (utarget reservation clear --initiator).
# Then TEST UNIT READY from A is GOOD (every condition was reported by its
# event, none again), while B received no event and its TEST UNIT READY
# reports POWER ON. With async_events set live on U, a new session of U
# gets its events too. Then the target's other Asynchronous Messages, asked
# for with utarget: session renegotiate (AsyncEvent 4, answered with a Text
# Request), session close --announce --wait 7 (AsyncEvent 3, Time2Wait 7),
# connection close --announce (AsyncEvent 2, CID 0), and a logout request
# (AsyncEvent 1) not honoured within its timeout (AsyncEvent 2, then the
# drop).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: async_events.sh UTARGETD UTARGET AEN_WATCH"
UTARGET=${2:?$USAGE}
WATCH=${3:?$USAGE}
T=iqn.2026-12.org.utarget.aen:t
U=iqn.2026-12.org.utarget.aen:u
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_write_config aen.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "backstores": [
    { "name": "d0", "type": "file", "path": "d0.img", "size": "16M", "create": true },
    { "name": "d1", "type": "ram", "size": "8M" },
    { "name": "d2", "type": "file", "path": "d2.img", "size": "8M", "create": true }
  ],
  "targets": [
    { "name": "$T", "async_events": true, "limits": { "nop_in_interval": 0 },
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "demo_mode": { "enabled": true, "read_only": false } },
    { "name": "$U", "limits": { "nop_in_interval": 0 },
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d2" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ],
  "port_groups": [
    { "id": 10, "explicit": true, "members": [ { "target": "$T", "tag": 1 } ] }
  ]
}
JSON
ut_start "$UT_TMP/aen.json"
P=127.0.0.1:$UT_PORT

# watch NAME TARGET: a watcher in the background, its output in NAME.out
watch() {
	rm -f "$UT_TMP/$1.stop"
	"$WATCH" "$P" "$2" "iqn.2026-12.org.utarget.aen:$1" "$UT_TMP/$1.stop" 60 \
		>"$UT_TMP/$1.out" 2>&1 &
	eval "PID_$1=$!"
	wait_for "$1" "^ready$"
}
# wait_for NAME RE: NAME.out has a line matching RE within 5 s
wait_for() {
	local k
	for ((k = 0; k < 50; k++)); do
		grep -qE -- "$2" "$UT_TMP/$1.out" && return 0
		sleep 0.1
	done
	ut_fail "$1: no line /$2/ within 5 s: $(cat "$UT_TMP/$1.out")"
}
# finish NAME: stop the watcher, its exit status 0
finish() {
	local pid
	eval "pid=\$PID_$1"
	touch "$UT_TMP/$1.stop"
	wait "$pid" || ut_fail "$1 exited $?: $(cat "$UT_TMP/$1.out")"
}
events() { grep -c '^event' "$UT_TMP/$1.out"; }

watch a "$T"
watch b "$U"
wait_for a "^event 0 lun 0 sense 06/29/00 "
echo "ok: POWER ON arrives as AsyncEvent 0 once the nexus has met LUN 0"

u backstore resize d0 32M >/dev/null || ut_fail "resize"
wait_for a "^event 0 lun 0 sense 06/2a/09 "
echo "ok: backstore resize -> CAPACITY DATA HAS CHANGED on LUN 0, no command sent"

u lun add "$T" d1 1 >/dev/null || ut_fail "lun add"
wait_for a "^event 0 lun 0 sense 06/3f/0e "
echo "ok: lun add -> REPORTED LUNS DATA HAS CHANGED on LUN 0"

u alua state 10 standby >/dev/null || ut_fail "alua state"
wait_for a "^event 0 lun 0 sense 06/2a/06 "
u alua state 10 active/optimized >/dev/null || ut_fail "alua state back"
for ((k = 0; k < 50; k++)); do
	[ "$(grep -c "sense 06/2a/06 " "$UT_TMP/a.out")" = 2 ] && break
	sleep 0.1
done
[ "$(grep -c "sense 06/2a/06 " "$UT_TMP/a.out")" = 2 ] ||
	ut_fail "no second ALUA event: $(cat "$UT_TMP/a.out")"
echo "ok: alua state standby, then active/optimized -> ASYMMETRIC ACCESS STATE CHANGED twice"

sleep 0.5 # more periods: nothing else may come
finish a
n=$(events a)
[ "$n" = 5 ] || ut_fail "A got $n events, want 5: $(cat "$UT_TMP/a.out")"
grep -q "^tur GOOD$" "$UT_TMP/a.out" || ut_fail "A's TEST UNIT READY: $(cat "$UT_TMP/a.out")"
echo "ok: A: exactly 5 events; TEST UNIT READY GOOD (each condition reported once)"

finish b
n=$(events b)
[ "$n" = 0 ] || ut_fail "B (target without async_events) got $n events"
grep -q "^tur CHECK CONDITION 06/29/00$" "$UT_TMP/b.out" ||
	ut_fail "B's TEST UNIT READY: $(cat "$UT_TMP/b.out")"
echo "ok: B (without async_events): no event; its TEST UNIT READY reports POWER ON"

# PR preempted: a watcher registered on T's LUN 0 (d0); the administrator
# clears its registration (reservation clear --initiator): REGISTRATIONS
# PREEMPTED (06/2a/05) arrives as an event
rm -f "$UT_TMP/p.stop"
"$WATCH" "$P" "$T" "iqn.2026-12.org.utarget.aen:p" "$UT_TMP/p.stop" 60 5a5a0001 \
	>"$UT_TMP/p.out" 2>&1 &
PID_p=$!
wait_for p "^ready$"
grep -q "^registered$" "$UT_TMP/p.out" || ut_fail "p did not register: $(cat "$UT_TMP/p.out")"
u reservation clear d0 --initiator iqn.2026-12.org.utarget.aen:p >/dev/null ||
	ut_fail "reservation clear"
wait_for p "^event 0 lun 0 sense 06/2a/05 "
finish p
grep -q "^tur GOOD$" "$UT_TMP/p.out" || ut_fail "P's TEST UNIT READY: $(cat "$UT_TMP/p.out")"
echo "ok: reservation clear of a registrant -> REGISTRATIONS PREEMPTED as an event, no command sent"

u target set "$U" async_events=true >/dev/null || ut_fail "target set async_events"
watch c "$U"
wait_for c "^event 0 lun 0 sense 06/29/00 "
u backstore resize d2 16M >/dev/null || ut_fail "resize d2"
wait_for c "^event 0 lun 0 sense 06/2a/09 "
finish c
grep -q "^tur GOOD$" "$UT_TMP/c.out" || ut_fail "C's TEST UNIT READY: $(cat "$UT_TMP/c.out")"
echo "ok: async_events set live: a new session of U gets POWER ON and CAPACITY events"

# ---- the other Asynchronous Messages, asked for with utarget ----
tsih_of() {
	u session list --json | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    if s["initiator"] == sys.argv[1]:
        print(s["tsih"])' "iqn.2026-12.org.utarget.aen:$1"
}
# gone NAME: its session is no longer listed within 5 s
gone() {
	local k
	for ((k = 0; k < 50; k++)); do
		[ -z "$(tsih_of "$1")" ] && return 0
		sleep 0.1
	done
	ut_fail "the session of $1 is still listed"
}
watch d "$U"
out=$(u --json session renegotiate "$(tsih_of d)") || ut_fail "session renegotiate: $out"
echo "$out" | grep -q '"action": "parameter negotiation requested"' || ut_fail "answer: $out"
wait_for d "^event 4 param1 0 param2 0 param3 0$"
wait_for d "^text answered$"
grep -q "Text Request after the target's renegotiation request" "$UT_LOG" ||
	ut_fail "the log does not say the initiator answered"
echo "ok: session renegotiate -> AsyncEvent 4; the Text Request that answers it is logged"
out=$(u session close "$(tsih_of d)" --announce --wait 7) || ut_fail "session close --announce: $out"
wait_for d "^event 3 param1 0 param2 7 param3 0$"
wait_for d "^closed$"
gone d
echo "ok: session close --announce --wait 7 -> AsyncEvent 3 (Time2Wait 7, Time2Retain 0), then closed"

watch e "$U"
u connection close "$(tsih_of e)" 0 --announce >/dev/null || ut_fail "connection close --announce"
wait_for e "^event 2 param1 0 param2 2 param3 0$"
wait_for e "^closed$"
gone e
echo "ok: connection close --announce -> AsyncEvent 2 (CID 0, Time2Wait 2), then closed"

watch f "$U"
u session close "$(tsih_of f)" --within 1 >/dev/null || ut_fail "session close --within 1"
wait_for f "^event 1 param1 0 param2 0 param3 1$"
wait_for f "^event 2 param1 0 param2 0 param3 0$"
wait_for f "^closed$"
gone f
echo "ok: a logout request not honoured within 1 s: AsyncEvent 2, then the drop"
expect_usage() {
	"$UTARGET" -s "$SOCK" "$@" >/dev/null 2>&1
	[ $? = 1 ] || ut_fail "utarget $* was not refused as a usage error"
}
expect_usage session close 1 --drop --announce
expect_usage session close 1 --wait 3
expect_usage session close 1 --announce --within 3
"$UTARGET" -s "$SOCK" session renegotiate 999 >/dev/null 2>&1
[ $? = 4 ] || ut_fail "session renegotiate of no session: not 4 (not found)"
echo "ok: option clashes are usage errors; an unknown session is not found"
ut_stop
echo "PASS async events"
