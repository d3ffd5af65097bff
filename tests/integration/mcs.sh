#!/bin/bash
# mcs.sh UTARGETD UTARGET MCS: multiple connections per session (MC/S, RFC
# 7143), driven with the project's raw initiator (tests/tools/mcs.c), which
# checks every byte it reads back.
#
#   mcs (1, 2, 4 connections, one session) --> target M (max_connections 4,
#        |                                      CHAP user "mu")
#        |  CID 0 leading login, CID 1..3 logins with its TSIH     --> LUN 0 d (ram 64M)
#        +- a fifth connection, a join as another initiator, a join with a wrong CHAP secret
#   mcs (1 connection) --> target S (max_connections 1 by default) --> LUN 0 d
#   utarget session list --json: the connections of the session
#
# utargetd runs 4 reactor threads: new connections land on any of them, and
# a connection joining a session is moved to the session's reactor, its
# socket kept on the reactor that accepted it (iscsi.spread_connections,
# conn_split.c): all the I/O below goes through that split path, with its
# rings cut to 16 KiB (UTARGET_SPLIT_RING_KIB), so that they fill.
# Checked:
#   - 4 connections, 32 WRITEs and READs of 1 MiB each, every byte verified;
#   - 1, 2 and 4 connections: WRITEs of distinct patterns round-robin over
#     the connections, every region READ back on another connection, no
#     byte differs; MaxConnections negotiated 4 (offered 16 by mcs);
#   - 32 ORDERED COMPARE AND WRITEs spread over 4 connections, sent in
#     reverse CmdSN order: every one GOOD and the last one's data on the
#     medium (they ran in CmdSN order);
#   - a WRITE on connection 1 waits for Data-Out: its Data-Out sent on
#     connection 0 gets a Reject (04h, connection allegiance), ABORT TASK on
#     connection 0 ends it (Function complete), connection 1 goes on;
#   - a fifth connection gets 02/06 (too many connections), a join as
#     another initiator name 02/0a (no session of that initiator), a join
#     with a wrong CHAP secret 02/01 (authentication failure), each logged,
#     and the session's I/O afterwards is unaffected;
#   - connections added and removed (Logout reason 1) while every
#     connection writes and verifies: nothing is lost (every region read
#     back), and a Logout reason 1 naming another connection's CID closes
#     that one only;
#   - Logout reason 0 closes the session: the target closes the others;
#   - a connection reset without a Logout fails the session (ERL 0), the
#     target closes the others; a further login that brings leading-only
#     keys gets 02/00;
#   - session list --json shows the session's 4 connections with their CIDs,
#     one session reactor and 4 socket reactors; with spread_connections
#     false (live) every socket is on the session's reactor, and 4
#     connections still verify every byte;
#   - the target with max_connections 1 (the default) refuses a second
#     connection with 02/06;
#   - the rings count against iscsi.max_buffer_memory_mib, of which they
#     may take half: with an 8 MiB cap and the default rings 2 of a
#     session's 3 joins spread, the third's
#     socket moves with it (logged), the same in a second session (the
#     first one's rings were freed), and 4 connections verify every byte.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: mcs.sh UTARGETD UTARGET MCS"
UTARGET=${2:?$USAGE}
MCS=${3:?$USAGE}
M=iqn.2026-12.org.utarget.mcs:m
S=iqn.2026-12.org.utarget.mcs:s
I=iqn.2026-12.org.utarget.mcs:init
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_write_config mcs.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "iscsi": { "nop_in_interval": 0 },
  "backstores": [ { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$M",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false },
      "auth": { "chap": [ { "user": "mu", "secret": "mcs-secret-12" } ] },
      "limits": { "max_connections": 4 } },
    { "name": "$S",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
chmod 600 "$UT_TMP/mcs.json"
# tiny rings for the spread connections (conn_split.c): full rings, and the
# messages that end their waits, on every few PDUs
UTARGET_SPLIT_RING_KIB=16 ut_start "$UT_TMP/mcs.json" --threads 4
P=127.0.0.1:$UT_PORT
CHAP=mu:mcs-secret-12

# run NAME ARGS...: mcs against target M (CHAP), output in NAME.out; it must
# end with "OK"
run() {
	local name=$1
	shift
	ut_run_client "$UT_TMP/$name.out" "$MCS" "$P" "$M" "$I" -C "$CHAP" "$@"
	tail -n 1 "$UT_TMP/$name.out" | grep -qx OK || ut_fail "mcs $*: $(cat "$UT_TMP/$name.out")"
}

for n in 1 2 4; do
	run v$n -n $n -i 256 -b 16
	ut_has v$n "^session tsih [0-9]+ conns $n max_connections 4 "
	ut_has v$n "^verify conns $n writes 256 reads 256 bytes [0-9]+ mismatches 0$"
	ut_has v$n "^logout response 0 others_closed $((n - 1)) of $((n - 1))$"
	echo "ok: $n connection(s): 256 WRITEs and READs over them, every byte verified; Logout closes all"
done
run big -n 4 -i 32 -b 2048
ut_has big "^verify conns 4 writes 32 reads 32 bytes [0-9]+ mismatches 0$"
echo "ok: 4 connections, 32 WRITEs and READs of 1 MiB through 16 KiB rings, every byte verified"
[ "$(grep -c "connection cid [0-9]* added to session" "$UT_LOG")" -ge 4 ] ||
	ut_fail "no log line for the added connections"

run ord -n 4 -o 32 -A -L 4096
ut_has ord "^ordered commands 32 conns 4 good 32 check_condition 0 other 0 final last$"
echo "ok: 32 ORDERED COMPARE AND WRITEs over 4 connections, sent in reverse, ran in CmdSN order"
ut_has ord "^misdirected_data_out Reject reason 0x04$"
ut_has ord "^abort_other cid 0 task of cid 1 response 0$"
ut_has ord "^after_abort_other ok$"
echo "ok: Data-Out on another connection than its task's rejected (04h); ABORT TASK of a task of another connection"

run neg -n 4 -x -J iqn.2026-12.org.utarget.mcs:intruder -K mu:wrong-secret-1 -i 64 -L 8192
ut_has neg "^extra 02/06$"
ut_has neg "^join_name 02/0a$"
ut_has neg "^join_chap 02/01$"
ut_has neg "^verify conns 4 writes 64 reads 64 bytes [0-9]+ mismatches 0$"
grep -q "login failed (02/06 too many connections).*max_connections of the session reached" "$UT_LOG" ||
	ut_fail "no log line for the fifth connection"
grep -q "login failed (02/0a session does not exist).*intruder.*the session is another initiator's" \
	"$UT_LOG" || ut_fail "no log line for the join as another initiator"
echo "ok: a fifth connection 02/06, another initiator 02/0a, a wrong CHAP secret 02/01; the session goes on"

run churn -n 2 -k 6 -O -b 8 -L 16384
ut_has churn "^churn added 6 removed 6 ios [0-9]+ regions_verified [1-9][0-9]* mismatches 0$"
ut_has churn "^logout_other cid [0-9]+ by cid [0-9]+ response 0 closed yes$"
ut_has churn "^after_logout_other ok$"
grep -q "logged out, [0-9]* left" "$UT_LOG" || ut_fail "no log line for a connection logged out"
grep -q "fails with it" "$UT_LOG" && ut_fail "a clean removal failed the session"
echo "ok: 6 connections added and 6 removed (Logout reason 1) during I/O, nothing lost; a Logout for another CID"

run fail -n 3 -F -i 16 -L 24576
ut_has fail "^failure others_closed 2 of 2$"
grep -q "connection cid 2 from .* failed: the session fails with it" "$UT_LOG" ||
	ut_fail "no log line for the failed session"
echo "ok: a connection reset without a Logout fails its session (ERL 0): the target closes the others"

# a further login that brings the leading-only keys (MaxBurstLength, ...)
run lo -n 2 -Y -i 16 -L 24576
ut_has lo "^join_lo 02/00$"
ut_has lo "^verify conns 2 writes 16 reads 16 bytes [0-9]+ mismatches 0$"
grep -q "a leading-only key in the login of a further connection" "$UT_LOG" ||
	ut_fail "no log line for the leading-only keys"
echo "ok: a further connection that declares leading-only keys gets 02/00"

# the session list: the 4 connections of a held session
ut_hold hold 10 "$MCS" "$P" "$M" "$I" -C "$CHAP" -n 4
u --json session list >"$UT_TMP/sl.json" || ut_fail "session list: $(cat "$UT_TMP/sl.json")"
ut_release hold
(
	cd "$UT_TMP" &&
		python3 - <<'PY'
import json
s = [x for x in json.load(open("sl.json")) if x["type"] == "normal"]
assert len(s) == 1, s
c = s[0]["connections"]
assert sorted(x["cid"] for x in c) == [0, 1, 2, 3], c
assert s[0]["negotiated"]["max_connections"] == 4, s[0]["negotiated"]
# one session reactor; the sockets stay on the reactors that accepted them
# (4 reactors, connections handed out in turn: 4 accepts in a row)
assert len({x["reactor"] for x in c}) == 1, c
assert len({x["socket_reactor"] for x in c}) == 4, c
PY
) || ut_fail "session list --json does not show the 4 connections spread: $(cat "$UT_TMP/sl.json")"
echo "ok: session list --json shows the session's 4 connections, on one session reactor, their sockets on 4"

# spread off (iscsi.spread_connections=false, live): the sockets move to
# the session's reactor too, and the data path there is as verified
u settings set iscsi.spread_connections=false >/dev/null || ut_fail "settings set failed"
ut_hold hold1 10 "$MCS" "$P" "$M" "$I" -C "$CHAP" -n 4
u --json session list >"$UT_TMP/sl1.json" || ut_fail "session list: $(cat "$UT_TMP/sl1.json")"
ut_release hold1
run off -n 4 -i 256 -b 16
ut_has off "^verify conns 4 writes 256 reads 256 bytes [0-9]+ mismatches 0$"
u settings set iscsi.spread_connections=true >/dev/null || ut_fail "settings set failed"
(
	cd "$UT_TMP" &&
		python3 - <<'PY'
import json
s = [x for x in json.load(open("sl1.json")) if x["type"] == "normal"]
assert len(s) == 1, s
c = s[0]["connections"]
assert len(c) == 4 and all(x["socket_reactor"] == x["reactor"] == c[0]["reactor"] for x in c), c
PY
) || ut_fail "spread_connections=false: a socket not on the session's reactor: $(cat "$UT_TMP/sl1.json")"
echo "ok: spread_connections=false: every socket on the session's reactor; 4 connections verified"

ut_run_client "$UT_TMP/s.out" "$MCS" "$P" "$S" "$I" -n 2
ut_has s "^FAIL join cid 1: .*status 02/06"
echo "ok: a target with max_connections 1 refuses a second connection (02/06)"
ut_stop

# the split rings are buffer memory (iscsi.max_buffer_memory_mib): the
# daemon again, with its default rings (512 KiB + 1 MiB a connection). They
# may take half the cap: 8 MiB has room for two joins' rings, the third
# join's socket moves with it. Twice in a row: the rings of the first
# session were given back.
ut_start "$UT_TMP/mcs.json" --threads 4
P=127.0.0.1:$UT_PORT
u settings set iscsi.max_buffer_memory_mib=8 >/dev/null || ut_fail "settings set failed"
for k in 1 2; do
	ut_hold cap$k 10 "$MCS" "$P" "$M" "$I" -C "$CHAP" -n 4
	u --json session list >"$UT_TMP/cap$k.json" || ut_fail "session list: $(cat "$UT_TMP/cap$k.json")"
	ut_release cap$k
	(
		cd "$UT_TMP" &&
			python3 - "cap$k.json" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1])) if x["type"] == "normal"]
assert len(s) == 1, s
c = s[0]["connections"]
assert len(c) == 4, c
spread = [x for x in c if x["socket_reactor"] != x["reactor"]]
assert len(spread) == 2, c
PY
	) || ut_fail "cap 8 MiB, round $k: not 2 of 4 sockets spread: $(cat "$UT_TMP/cap$k.json")"
done
[ "$(grep -c "its socket moves with it (no room for its rings in half of" "$UT_LOG")" = 2 ] ||
	ut_fail "no log line, once a session, for the join the cap left unspread"
run capio -n 4 -i 64 -b 16
ut_has capio "^verify conns 4 writes 64 reads 64 bytes [0-9]+ mismatches 0$"
echo "ok: an 8 MiB buffer cap spreads 2 of 3 joins (1.5 MiB of rings each), twice; the 4 connections verify"

ut_stop
