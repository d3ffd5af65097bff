#!/bin/bash
# rpc_live.sh UTARGETD LIVEIO: the control API changes a running utargetd
# while a libiscsi session does I/O (issue 4; docs/rpc.md).
#   1. live changes through the API: back-stores created, mapped, resized,
#      unmapped, deleted; ACLs, portal groups, portals, targets added and
#      removed; target fields and global settings changed; the session's
#      portal group moved between ALUA target port groups. The session
#      (liveio: writes and reads back a counter, retrying past the unit
#      attentions the changes raise) keeps working, keeps its TSIH, and sees
#      REPORTED LUNS DATA HAS CHANGED and CAPACITY DATA HAS CHANGED.
#   2. rejected changes (a rule, the running side, a transaction with one
#      bad request) leave the running state and the file unchanged.
#   3. a hand-edited file, SIGHUP: only the difference is applied, the
#      session on the untouched target keeps working; a broken edit is
#      refused and nothing changes.
#   4. restart (SIGTERM, and kill -9 with changes only in the journal):
#      the same configuration comes back.
#   5. the file is 0600 with rotated backups; the socket is 0600 and a
#      peer that is neither root nor the daemon's user is refused (-32008).
# And session.close: a target-initiated logout (AsyncEvent 1: libiscsi logs
# out), and a drop.
# Ports: 3800-3849.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
LIVEIO=${2:?usage: rpc_live.sh UTARGETD LIVEIO}
RPC="$UT_ROOT/tests/tools/utrpc.py"
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port2
SOCK=$UT_TMP/rpc.sock
T1=iqn.2026-12.org.utarget.rpc:t1
T2=iqn.2026-12.org.utarget.rpc:t2
T3=iqn.2026-12.org.utarget.rpc:t3
INI=iqn.2026-12.org.utarget.rpc:liveio
CFG=$UT_TMP/rpc.json

ut_write_config rpc.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [
    { "name": "d0", "type": "file", "path": "d0.img", "size": "16M", "create": true },
    { "name": "d2", "type": "ram", "size": "8M" }
  ],
  "targets": [
    { "name": "$T1",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "acls": [ { "initiator": "$INI" } ] },
    { "name": "$T2", "alias": "two",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d2" } ],
      "demo_mode": { "enabled": true } }
  ]
}
JSON

# r METHOD [PARAMS]: must succeed (result on stdout)
r() {
	local out
	out=$(python3 "$RPC" "$SOCK" "$@" 2>&1) || ut_fail "$1 ${2:-} failed: $out"
	printf '%s\n' "$out"
}
# rfail CODE METHOD [PARAMS]: must fail with that error code
rfail() {
	local want=$1 out rc
	shift
	out=$(python3 "$RPC" "$SOCK" "$@" 2>&1)
	rc=$?
	[ "$rc" = 3 ] || ut_fail "$1 ${2:-}: expected error $want, got (exit $rc) $out"
	python3 -c 'import json,sys; e=json.loads(sys.argv[1]); sys.exit(0 if e["code"]==int(sys.argv[2]) else 1)' \
		"$out" "$want" || ut_fail "$1 ${2:-}: expected error $want, got $out"
	printf '%s\n' "$out"
}
jget() { # jget EXPR JSON: a Python expression over j
	python3 -c "import json,sys; j=json.loads(sys.argv[1]); print($1)" "$2"
}
state() { r config.get | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))'; }
filesum() { cat "$CFG" "$CFG.journal" 2>/dev/null | md5sum | cut -d' ' -f1; }
tsih_of() { r session.list "{\"target\": \"$T1\"}" | python3 -c '
import json,sys
s=[x for x in json.load(sys.stdin) if x["initiator"]==sys.argv[1]]
print(s[0]["tsih"] if s else "none")' "$INI"; }

UT_OWN_PORTALS=1 ut_start "$CFG"
[ "$(stat -c %a "$SOCK")" = 600 ] || ut_fail "control socket mode $(stat -c %a "$SOCK"), want 600"

# ---- 1. live changes under a session ----
STOP=$UT_TMP/stop.io
"$LIVEIO" -i "$INI" "iscsi://127.0.0.1:$UT_PORT/$T1/0" "$STOP" 120 >"$UT_TMP/io.out" 2>&1 &
IO_PID=$!
for ((i = 0; i < 100; i++)); do grep -qs ready "$UT_TMP/io.out" && break; sleep 0.1; done
grep -q ready "$UT_TMP/io.out" || ut_fail "liveio did not start: $(cat "$UT_TMP/io.out")"
TSIH=$(tsih_of)
[ "$TSIH" != none ] || ut_fail "session.list does not show the liveio session"
echo "ok: liveio session tsih $TSIH"

r backstore.create '{"name": "d1", "type": "ram", "size": "8M"}' >/dev/null
r lun.add "{\"target\": \"$T1\", \"lun\": 1, \"backstore\": \"d1\"}" >/dev/null
r backstore.create '{"name": "d3", "type": "file", "path": "d3.img", "size": "4M", "create": true, "thin": true}' >/dev/null
out=$(r lun.add "{\"target\": \"$T1\", \"backstore\": \"d3\", \"read_only\": true}")
[ "$(jget 'j["lun"]' "$out")" = 2 ] || ut_fail "lun.add without a LUN: got $out, want LUN 2"
r backstore.resize '{"name": "d0", "size": "32M"}' >/dev/null
out=$(r backstore.get '{"name": "d0"}')
[ "$(jget 'j["current_size"]' "$out")" = 33554432 ] || ut_fail "d0 not resized: $out"
rfail -32007 backstore.resize '{"name": "d1", "size": "16M"}' >/dev/null
rfail -32001 backstore.resize '{"name": "d0", "size": "8M"}' >/dev/null # shrinking needs force
rfail -32004 backstore.delete '{"name": "d1"}' >/dev/null
r acl.create "{\"target\": \"$T1\", \"initiator\": \"iqn.2026-12.org.utarget.rpc:other\", \"luns\": [{\"lun\": 0, \"backstore\": \"d1\"}]}" >/dev/null
r lun.add "{\"target\": \"$T1\", \"initiator\": \"iqn.2026-12.org.utarget.rpc:other\", \"lun\": 5, \"backstore\": \"d3\"}" >/dev/null
r acl.delete "{\"target\": \"$T1\", \"initiator\": \"iqn.2026-12.org.utarget.rpc:other\"}" >/dev/null
r portal_group.create "{\"target\": \"$T1\", \"tag\": 2, \"portals\": [\"127.0.0.1:$UT_PORT2\"]}" >/dev/null
ut_can_connect "$UT_PORT2" || ut_fail "portal group 2 does not listen on $UT_PORT2"
iscsi-inq "iscsi://127.0.0.1:$UT_PORT2/$T2/0" >/dev/null 2>&1 &&
	ut_fail "$T2 is reachable through $T1's new portal group (discovery/login scope)"
rfail -32001 portal.delete "{\"target\": \"$T1\", \"tag\": 2, \"portal\": \"127.0.0.1:$UT_PORT2\"}" >/dev/null
r portal_group.delete "{\"target\": \"$T1\", \"tag\": 2}" >/dev/null
ut_can_connect "$UT_PORT2" && ut_fail "the removed portal group still listens on $UT_PORT2"
r target.set "{\"name\": \"$T1\", \"alias\": \"live alias\"}" >/dev/null
r target.create "{\"name\": \"$T3\", \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:$UT_PORT\"]}], \"luns\": [{\"lun\": 0, \"backstore\": \"d2\", \"read_only\": true}], \"demo_mode\": {\"enabled\": true}}" >/dev/null
iscsi-inq "iscsi://127.0.0.1:$UT_PORT/$T3/0" >/dev/null 2>&1 || ut_fail "the new target $T3 is not reachable"
r target.delete "{\"name\": \"$T3\"}" >/dev/null
r settings.set '{"iscsi": {"nop_in_interval": 10, "queue_depth": 64}}' >/dev/null
out=$(r settings.get)
[ "$(jget 'j["iscsi"]["queue_depth"]' "$out")" = 64 ] || ut_fail "settings.set: $out"
r lun.delete "{\"target\": \"$T1\", \"lun\": 1}" >/dev/null
r backstore.delete '{"name": "d1"}' >/dev/null
echo "ok: back-stores, LUNs, ACLs, portal groups, targets and settings changed live"

# the session's portal group moves between ALUA target port groups: it stays
r settings.set "{\"port_groups\": [{\"id\": 10, \"name\": \"a\", \"members\": [{\"target\": \"$T1\", \"tag\": 1}]}]}" >/dev/null
sleep 0.3
r settings.set "{\"port_groups\": [{\"id\": 10, \"name\": \"a\"}, {\"id\": 20, \"name\": \"b\", \"state\": \"active/non-optimized\", \"members\": [{\"target\": \"$T1\", \"tag\": 1}]}]}" >/dev/null
sleep 0.3
grep -q "$T1 portal group 1 moved to target port group 20 (its sessions stay)" "$UT_LOG" ||
	ut_fail "no log line for the move to target port group 20"
grep -q "moved to target port group .* (its sessions were dropped)" "$UT_LOG" &&
	ut_fail "a portal group was rebuilt"
[ "$(tsih_of)" = "$TSIH" ] || ut_fail "moving the portal group replaced the liveio session"
r settings.set '{"port_groups": []}' >/dev/null
echo "ok: a portal group moved between target port groups live, its session kept"

# ---- 2. rejected changes change nothing ----
before=$(state)
r config.save >/dev/null # everything in the file: the sum below is the state's
sum=$(filesum)
rfail -32001 lun.add "{\"target\": \"$T1\", \"lun\": 9, \"backstore\": \"nope\"}" >/dev/null
rfail -32003 lun.add "{\"target\": \"$T1\", \"lun\": 0, \"backstore\": \"d3\"}" >/dev/null
rfail -32002 target.delete '{"name": "iqn.2026-12.org.utarget.rpc:none"}' >/dev/null
rfail -32602 lun.add "{\"target\": \"$T1\", \"backstore\": \"d3\", \"bogus\": 1}" >/dev/null
# the running side refuses: the port is taken by another process
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); open(sys.argv[2], "w").close(); time.sleep(30)' \
	"$UT_PORT2" "$UT_TMP/busy" &
BUSY=$!
for ((i = 0; i < 50; i++)); do [ -e "$UT_TMP/busy" ] && break; sleep 0.1; done
rfail -32005 portal_group.create "{\"target\": \"$T1\", \"tag\": 3, \"portals\": [\"127.0.0.1:$UT_PORT2\"]}" >/dev/null
kill $BUSY 2>/dev/null
wait $BUSY 2>/dev/null
# one bad request rolls back the whole transaction
out=$(rfail -32001 config.transaction "{\"requests\": [
  {\"method\": \"backstore.create\", \"params\": {\"name\": \"tx\", \"type\": \"ram\", \"size\": \"1M\"}},
  {\"method\": \"lun.add\", \"params\": {\"target\": \"$T1\", \"lun\": 7, \"backstore\": \"tx\"}},
  {\"method\": \"lun.add\", \"params\": {\"target\": \"$T1\", \"lun\": 8, \"backstore\": \"missing\"}}]}")
[ "$(jget 'j["data"]["index"]' "$out")" = 2 ] || ut_fail "transaction error does not name request 2: $out"
[ "$(state)" = "$before" ] || ut_fail "a rejected change altered the running configuration"
[ "$(filesum)" = "$sum" ] || ut_fail "a rejected change altered the file or its journal"
echo "ok: rejected changes (rule, running side, transaction) leave the state and the file unchanged"

# a transaction that succeeds: one journal record, every result
out=$(r config.transaction "{\"requests\": [
  {\"method\": \"backstore.create\", \"params\": {\"name\": \"tx\", \"type\": \"ram\", \"size\": \"1M\"}},
  {\"method\": \"lun.add\", \"params\": {\"target\": \"$T1\", \"lun\": 7, \"backstore\": \"tx\"}}]}")
[ "$(jget 'j["results"][1]["lun"]' "$out")" = 7 ] || ut_fail "transaction results: $out"

[ "$(tsih_of)" = "$TSIH" ] || ut_fail "the liveio session was replaced ($TSIH -> $(tsih_of))"
touch "$STOP"
wait $IO_PID
io=$(cat "$UT_TMP/io.out" | tail -1)
case $io in ok*) ;; *) ut_fail "liveio: $io" ;; esac
echo "$io" | grep -q "luns=0,2,7" || ut_fail "liveio's REPORT LUNS after the changes: $io (want 0,2,7)"
[ "$(echo "$io" | sed 's/.*ua_luns=\([0-9]*\).*/\1/')" -ge 1 ] ||
	ut_fail "liveio saw no REPORTED LUNS DATA HAS CHANGED: $io"
[ "$(echo "$io" | sed 's/.*ua_capacity=\([0-9]*\).*/\1/')" -ge 1 ] ||
	ut_fail "liveio saw no CAPACITY DATA HAS CHANGED: $io"
[ "$(echo "$io" | sed 's/.*ua_alua=\([0-9]*\).*/\1/')" -ge 1 ] ||
	ut_fail "liveio saw no ASYMMETRIC ACCESS STATE CHANGED: $io"
[ "$(echo "$io" | sed 's/.*ua_inquiry=\([0-9]*\).*/\1/')" -ge 1 ] ||
	ut_fail "liveio saw no INQUIRY DATA HAS CHANGED: $io"
echo "ok: the session kept working across every change ($io)"

# ---- ending sessions: a target-initiated logout, a drop ----
end_session() { # end_session MODE: a liveio session ended through the API
	rm -f "$STOP"
	"$LIVEIO" -i "$INI" "iscsi://127.0.0.1:$UT_PORT/$T1/0" "$STOP" 30 >"$UT_TMP/io3.out" 2>&1 &
	IO_PID=$!
	for ((i = 0; i < 100; i++)); do grep -qs ready "$UT_TMP/io3.out" && break; sleep 0.1; done
	grep -qs ready "$UT_TMP/io3.out" || ut_fail "liveio did not start: $(cat "$UT_TMP/io3.out")"
	TSIH=$(tsih_of)
	out=$(r session.close "{\"tsih\": $TSIH, \"mode\": \"$1\", \"timeout\": 5}")
	for ((i = 0; i < 80; i++)); do [ "$(tsih_of)" = none ] && break; sleep 0.1; done
	[ "$(tsih_of)" = none ] || ut_fail "session.close ($1): the session is still there"
	touch "$STOP"
	wait $IO_PID
	echo "$out"
}
logouts=$(grep -c "logout: initiator $INI" "$UT_LOG")
out=$(end_session logout)
[ "$(jget 'j["action"]' "$out")" = "logout requested" ] || ut_fail "session.close: $out"
grep -q "Logout requested (AsyncEvent 1" "$UT_LOG" || ut_fail "no AsyncEvent 1 sent"
[ "$(grep -c "logout: initiator $INI" "$UT_LOG")" -gt "$logouts" ] ||
	ut_fail "the initiator did not log out after AsyncEvent 1"
grep -q "no Logout within" "$UT_LOG" && ut_fail "the initiator's session had to be dropped"
out=$(end_session drop)
[ "$(jget 'j["action"]' "$out")" = dropped ] || ut_fail "session.close drop: $out"
rfail -32002 session.close '{"tsih": 4321}' >/dev/null
echo "ok: session.close: a target-initiated logout (the initiator logged out), and a drop"

# ---- 3. reload of a hand-edited file ----
r config.save >/dev/null
rm -f "$STOP"
"$LIVEIO" -i "$INI" "iscsi://127.0.0.1:$UT_PORT/$T1/0" "$STOP" 60 >"$UT_TMP/io2.out" 2>&1 &
IO_PID=$!
for ((i = 0; i < 100; i++)); do grep -qs ready "$UT_TMP/io2.out" && break; sleep 0.1; done
grep -q ready "$UT_TMP/io2.out" || ut_fail "liveio did not start: $(cat "$UT_TMP/io2.out")"
TSIH=$(tsih_of)
python3 - "$CFG" "$T2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["backstores"].append({"name": "e1", "type": "ram", "size": "2M"})
for t in c["targets"]:
    if t["name"] == sys.argv[2]:
        t["alias"] = "edited by hand"
        t["luns"].append({"lun": 4, "backstore": "e1"})
open(sys.argv[1], "w").write(json.dumps(c, indent=4))
PY
out=$(r config.reload '{"dry_run": true}')
[ "$(jget 'len(j["changes"])' "$out")" = 3 ] || ut_fail "dry run of the edit: $out (want 3 changes)"
kill -HUP "$UT_PID"
for ((i = 0; i < 50; i++)); do grep -q "reload: 3 change" "$UT_LOG" && break; sleep 0.1; done
grep -q "reload: 3 change" "$UT_LOG" || ut_fail "SIGHUP did not reload the edit"
out=$(r target.get "{\"name\": \"$T2\"}")
[ "$(jget 'j["alias"]' "$out")" = "edited by hand" ] || ut_fail "reload: alias not applied: $out"
iscsi-inq "iscsi://127.0.0.1:$UT_PORT/$T2/4" >/dev/null 2>&1 || ut_fail "reload: $T2 LUN 4 not reachable"
# a broken edit is refused as a whole
before=$(state)
cp "$CFG" "$UT_TMP/good.json"
sed -i 's/"e1"/"e1", "bogus": 1/' "$CFG"
rfail -32001 config.reload >/dev/null
[ "$(state)" = "$before" ] || ut_fail "a refused reload changed the running configuration"
cp "$UT_TMP/good.json" "$CFG"
r config.reload >/dev/null
[ "$(tsih_of)" = "$TSIH" ] || ut_fail "the reload touched the session of the unchanged target"
touch "$STOP"
wait $IO_PID
io=$(tail -1 "$UT_TMP/io2.out")
case $io in ok*) ;; *) ut_fail "liveio across the reload: $io" ;; esac
echo "$io" | grep -q "ua_luns=0 " || ut_fail "the untouched target's session saw a LUN change: $io"
echo "ok: SIGHUP applied only the hand edit; the untouched session kept working ($io)"

# ---- 4. restart ----
before=$(state)
ut_stop
UT_OWN_PORTALS=1 ut_start "$CFG"
[ "$(state)" = "$before" ] || ut_fail "the configuration after a restart differs"
# changes only in the journal: kill -9 right after they are acknowledged
r lun.add "{\"target\": \"$T1\", \"lun\": 11, \"backstore\": \"e1\"}" >/dev/null
r target.set "{\"name\": \"$T1\", \"alias\": \"journal only\"}" >/dev/null
before=$(state)
kill -KILL "$UT_PID"
wait "$UT_PID" 2>/dev/null
UT_PID=
UT_OWN_PORTALS=1 ut_start "$CFG"
[ "$(state)" = "$before" ] || ut_fail "the acknowledged changes are not back after kill -9"
grep -q "replayed from" "$UT_LOG" || echo "note: the changes were in the file already (compacted)"
echo "ok: restarts (SIGTERM, and kill -9 with changes in the journal) bring the same configuration back"

# ---- 5. the file, its backups, the socket's peers ----
[ "$(stat -c %a "$CFG")" = 600 ] || ut_fail "config file mode $(stat -c %a "$CFG"), want 600"
[ -e "$CFG.1" ] || ut_fail "no backup $CFG.1"
[ "$(stat -c %a "$CFG.1")" = 600 ] || ut_fail "backup mode $(stat -c %a "$CFG.1"), want 600"
if command -v setpriv >/dev/null && [ -x /usr/bin/python3 ]; then
	# the other user cannot read the clone (CI's is under a 0700 directory):
	# it runs a copy of the client from the socket's directory
	chmod 711 "$UT_TMP" # the socket's directory: let the other user reach the socket
	cp "$RPC" "$UT_TMP/utrpc.py"
	chmod 644 "$UT_TMP/utrpc.py"
	nobody_rpc() {
		setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$UT_TMP/utrpc.py" "$SOCK" "$@" 2>&1
	}
	out=$(nobody_rpc daemon.info)
	rc=$?
	[ $rc = 2 ] && echo "$out" | grep -q "cannot connect.*Permission denied" ||
		ut_fail "another user reached the 0600 socket (exit $rc): $out"
	chmod 666 "$SOCK"
	out=$(nobody_rpc daemon.info)
	chmod 600 "$SOCK"
	chmod 700 "$UT_TMP"
	echo "$out" | grep -q -- -32008 || ut_fail "a peer that is not root was not refused: $out"
	echo "ok: the socket is 0600 and other users are refused (SO_PEERCRED, -32008)"
fi
ut_stop
echo "PASS rpc_live"
