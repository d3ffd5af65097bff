#!/bin/bash
# isns.sh UTARGETD UTARGET: iSNS (RFC 4171) against a real open-isns isnsd.
#
#   isnsadm --local ----unix socket----+
#   (queries, dd-register)             |
#                                      v
#   utargetd --- DevAttrReg/SCNReg -> isnsd 127.0.0.1:$IPORT (own config, DB,
#     |  ^       DevAttrQry (DDs)      pid file and control socket in $UT_TMP;
#     |  +------ ESI every 2 s ------  Security 0, ESIMinInterval 2)
#     |         (utargetd's ESI port)
#     +-- portals 127.0.0.1:$UT_PORT, 127.0.0.1:$UT_PORT2 <-- iscsi-ls -i INI_IN / INI_OUT
#
#   1. registration at start: isnsadm lists the entity (the config's
#      "entity"), the target (node type Target, its alias), its portal
#      (address:port, with utargetd's ESI port) and its portal group (tag);
#   2. ESI: isnsd's Entity Status Inquiries are answered (the counter in
#      `utarget isns show --json` grows, the entity stays registered past
#      ESIRetries x the interval);
#   3. live changes through the CLI appear at the server: a second portal
#      of the portal group, a second target (the time from the command to
#      isnsadm listing it is printed);
#   4. `utarget isns set` (a new entity) applies live: the old entity is
#      deregistered, the new one registered; `isns show` and `--json` say so;
#   5. a discovery domain made with `isnsadm --dd-register` (the target and
#      INI_IN) is listed by isnsadm and by `utarget isns show`;
#   6. with --access-control, the DD query's answer in `isns show`; an SCN
#      (the DD's initiator registers) answered; SendTargets shows the
#      target to INI_IN and not to INI_OUT, and INI_OUT's login is refused;
#      a member removed from the DD at the server loses the target (the
#      10 s DD poll) and gets it back; --no-access-control admits both
#      again (access control is opt-in);
#   7. the settings are persisted: after a restart `isns show` has them and
#      the targets are registered again;
#   8. isnsd restarted with an empty database: utargetd reconnects and
#      registers again (the time is printed);
#   9. after SIGTERM isnsadm lists neither the targets nor the entity
#      (deregistration), isnsd still running.
# Ports: utargetd's from UT_PORT_MIN..UT_PORT_MAX; isnsd's from
# UT_ISNS_PORT_MIN..UT_ISNS_PORT_MAX (default: the same range).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?usage: isns.sh UTARGETD UTARGET}
for t in isnsd isnsadm iscsi-ls iscsi-inq python3; do
	command -v $t >/dev/null || ut_fail "$t not installed (scripts/deps.sh test)"
done

ut_pick_port
ut_pick_port2
IPORT=
for ((p = ${UT_ISNS_PORT_MIN:-${UT_PORT_MIN:-3400}}; p <= ${UT_ISNS_PORT_MAX:-${UT_PORT_MAX:-3499}}; p++)); do
	if [ "$p" != "$UT_PORT" ] && [ "$p" != "$UT_PORT2" ] && ut_port_free "$p"; then
		IPORT=$p
		break
	fi
done
[ -n "$IPORT" ] || ut_fail "no free port for isnsd"
SOCK=$UT_TMP/ut.sock
T1=iqn.2026-12.org.utarget.isns:t1
T2=iqn.2026-12.org.utarget.isns:t2
INI_IN=iqn.2026-12.org.utarget.isns:ini-in
INI_OUT=iqn.2026-12.org.utarget.isns:ini-out
u() { "$UTARGET" -s "$SOCK" "$@"; }

# ---- isnsd: its own config, database, pid file and control socket ----
mkdir -p "$UT_TMP/isnsdb"
cat >"$UT_TMP/isnsd.conf" <<EOF
SourceName iqn.2026-12.org.utarget.isns:server
BindAddress 127.0.0.1:$IPORT
Database $UT_TMP/isnsdb
PIDFile $UT_TMP/isnsd.pid
ControlSocket $UT_TMP/isnsd.ctl
Security 0
RegistrationPeriod 600
ESIMinInterval 2
ESIMaxInterval 2
ESIRetries 3
EOF
cat >"$UT_TMP/isnsadm.conf" <<EOF
SourceName isns.control
ServerAddress 127.0.0.1:$IPORT
ControlSocket $UT_TMP/isnsd.ctl
Security 0
EOF
ISNSD_PID=
isnsd_stop() {
	if [ -n "$ISNSD_PID" ] && kill -0 "$ISNSD_PID" 2>/dev/null; then
		kill -TERM "$ISNSD_PID"
		wait "$ISNSD_PID" 2>/dev/null
	fi
	ISNSD_PID=
}
trap 'isnsd_stop; ut_cleanup' EXIT
isnsd_start() {
	rm -f "$UT_TMP/isnsd.ctl"
	isnsd -f -c "$UT_TMP/isnsd.conf" -d ${UT_ISNSD_DEBUG:-esi} >>"$UT_TMP/isnsd.log" 2>&1 &
	ISNSD_PID=$!
	for ((i = 0; i < 50; i++)); do
		ut_can_connect "$IPORT" && [ -S "$UT_TMP/isnsd.ctl" ] && break
		kill -0 "$ISNSD_PID" 2>/dev/null || ut_fail "isnsd exited: $(tail "$UT_TMP/isnsd.log")"
		sleep 0.1
	done
	ut_can_connect "$IPORT" || ut_fail "isnsd does not listen on 127.0.0.1:$IPORT"
	echo "isnsd (pid $ISNSD_PID) on 127.0.0.1:$IPORT"
}
isnsd_start

adm() { isnsadm -c "$UT_TMP/isnsadm.conf" --local "$@" 2>&1; }
# Queries see only what the source may see: isnsadm registers as a Control
# node (it sees the whole database; RegistrationPeriod 600 keeps it).
adm --register control | grep -q "Successfully registered" || ut_fail "isnsadm control node"
# lists TYPE TEXT: `isnsadm --list TYPE` holds the line TEXT; nolists: not
lists() { adm --list "$1" | grep -qF -- "$2"; }
nolists() { ! adm --list "$1" | grep -qF -- "$2"; }
# waitfor SECONDS DESC CMD...: CMD succeeds within SECONDS
waitfor() {
	local s=$1 d=$2 i
	shift 2
	for ((i = 0; i < s * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	echo "---- isnsadm --list entities/nodes/portals ----"
	adm --list entities
	adm --list nodes
	adm --list portals
	ut_fail "not within ${s}s: $d"
}
jshow() { u isns show --json | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

ut_write_config isns.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/ut.sock",
  "isns": { "server": "127.0.0.1:$IPORT", "entity": "utarget-it-a" },
  "backstores": [ { "name": "r0", "type": "ram", "size": "8M" },
                  { "name": "r1", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$T1", "alias": "isns-one",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" } ],
      "demo_mode": { "enabled": true } }
  ]
}
JSON
CFG=$UT_TMP/isns.json
UT_OWN_PORTALS=1 ut_start "$CFG"

echo "== 1. registration at start"
waitfor 10 "entity utarget-it-a registered" lists entities 'Entity identifier = "utarget-it-a"'
lists nodes "iSCSI name = \"$T1\"" || ut_fail "target not listed"
q=$(adm --query iscsi-name=$T1)
echo "$q"
echo "$q" | grep -qF 'iSCSI node type = Target' || ut_fail "node type not Target"
echo "$q" | grep -qF 'iSCSI alias = "isns-one"' || ut_fail "alias not registered"
echo "$q" | grep -qF 'Entity identifier = "utarget-it-a"' || ut_fail "not in entity utarget-it-a"
echo "$q" | grep -qF 'Portal IP address = 127.0.0.1' || ut_fail "portal address"
echo "$q" | grep -qF "Portal TCP/UDP port = $UT_PORT/tcp" || ut_fail "portal port"
echo "$q" | grep -qF "Portal group port = $UT_PORT/tcp" || ut_fail "portal group portal"
echo "$q" | grep -qF 'Portal group tag = 1' || ut_fail "portal group tag"
ESI_PORT=$(jshow 'j["status"]["esi_port"]')
echo "$q" | grep -qF "ESI port = $ESI_PORT/tcp" || ut_fail "ESI port $ESI_PORT not registered"
[ "$(jshow 'j["status"]["registered"]')" = True ] || ut_fail "isns show: not registered"

echo "== 2. ESI answered"
esi_ok() { [ "$(jshow 'j["status"]["esi_received"] >= 2')" = True ]; }
waitfor 10 "an ESI answered" esi_ok
# isnsd drops an entity whose portal misses ESIRetries (3) inquiries 2 s apart
sleep 7
lists nodes "iSCSI name = \"$T1\"" || ut_fail "dropped by isnsd after ESI"
echo "esi_received: $(jshow 'j["status"]["esi_received"]') (still registered after 7 s)"

echo "== 3. live changes"
u portal add "$T1" 1 "127.0.0.1:$UT_PORT2" || ut_fail "portal add"
waitfor 10 "second portal registered" \
	bash -c "isnsadm -c '$UT_TMP/isnsadm.conf' --local --query iscsi-name=$T1 2>&1 |
		grep -qF 'Portal group port = $UT_PORT2/tcp'"
t0=$(date +%s%N)
u target create "$T2" --portal "127.0.0.1:$UT_PORT2" --alias isns-two || ut_fail "target create"
waitfor 10 "target $T2 registered" lists nodes "iSCSI name = \"$T2\""
t1=$(date +%s%N)
echo "target create -> isnsadm lists it: $(((t1 - t0) / 1000000)) ms"
lists portals "Portal TCP/UDP port = $UT_PORT2/tcp" || ut_fail "portal $UT_PORT2 not listed"
u target delete "$T2" || ut_fail "target delete"
waitfor 10 "target $T2 gone" nolists nodes "iSCSI name = \"$T2\""
lists nodes "iSCSI name = \"$T1\"" || ut_fail "$T1 lost with $T2"

echo "== 4. utarget isns set (live)"
u isns set "127.0.0.1:$IPORT" --entity utarget-it-b || ut_fail "isns set"
waitfor 10 "entity utarget-it-b registered" lists entities 'Entity identifier = "utarget-it-b"'
nolists entities 'Entity identifier = "utarget-it-a"' || ut_fail "old entity not deregistered"
out=$(u isns show)
echo "$out"
echo "$out" | grep -qx "server: 127.0.0.1:$IPORT" || ut_fail "isns show: server"
echo "$out" | grep -qx "entity: utarget-it-b" || ut_fail "isns show: entity"
echo "$out" | grep -qx "connected: yes" || ut_fail "isns show: connected"
echo "$out" | grep -qE "^registered: yes \(1 targets, 2 portals, 2 portal groups\)$" ||
	ut_fail "isns show: registered"
[ "$(jshow 'j["config"]["server"], j["config"]["entity"]')" = "127.0.0.1:$IPORT utarget-it-b" ] ||
	ut_fail "isns show --json: config"

echo "== 5. a discovery domain"
out=$(adm --dd-register dd-name=ut-dd dd-member-name="$T1" dd-member-name="$INI_IN")
echo "$out" | grep -qF 'DD name = "ut-dd"' || ut_fail "dd-register: $out"
DD_ID=$(echo "$out" | sed -n 's/.*DD ID = \([0-9]*\)$/\1/p' | head -1)
[ -n "$DD_ID" ] || ut_fail "no DD ID in: $out"
dds=$(adm --list dds)
echo "$dds"
echo "$dds" | grep -qF 'DD name = "ut-dd"' || ut_fail "DD not listed"
echo "$dds" | grep -qF "DD member iSCSI name = \"$T1\"" || ut_fail "target not in the DD"
echo "$dds" | grep -qF "DD member iSCSI name = \"$INI_IN\"" || ut_fail "initiator not in the DD"

echo "== 6. access control by discovery domain"
# ls INITIATOR: the targets SendTargets shows it (iscsi-ls, discovery only)
ls_as() { timeout 30 iscsi-ls -i "$1" "iscsi://127.0.0.1:$UT_PORT/" 2>&1; }
ls_as "$INI_OUT" | grep -qF "Target:$T1 " || ut_fail "without access control $INI_OUT sees nothing"
u isns set "127.0.0.1:$IPORT" --access-control || ut_fail "isns set --access-control"
dd_ok() {
	[ "$(jshow 'any(d["name"] == "ut-dd" and d["members"] == 2
		for d in j["status"]["discovery_domains"])')" = True ]
}
waitfor 15 "the DD queried" dd_ok
u isns show | grep -qx "discovery_domain: [0-9]* ut-dd (2 members)" || ut_fail "isns show: DD"
out=$(ls_as "$INI_IN")
echo "$INI_IN: $out"
echo "$out" | grep -qx "Target:$T1 Portal:127.0.0.1:$UT_PORT,1" || ut_fail "$INI_IN does not see $T1"
out=$(ls_as "$INI_OUT")
echo "$INI_OUT: $out"
echo "$out" | grep -qF "$T1" && ut_fail "$INI_OUT sees $T1 outside its discovery domains"
timeout 30 iscsi-inq -i "$INI_IN" "iscsi://127.0.0.1:$UT_PORT/$T1/0" >/dev/null 2>&1 ||
	ut_fail "$INI_IN cannot log in"
timeout 30 iscsi-inq -i "$INI_OUT" "iscsi://127.0.0.1:$UT_PORT/$T1/0" >/dev/null 2>&1 &&
	ut_fail "$INI_OUT logged in outside its discovery domains"
# the DD changed at the server: the member removed, the initiator loses it
adm --dd-deregister "$DD_ID" dd-member-name="$INI_IN" >/dev/null
waitfor 15 "the DD change seen (10 s poll)" \
	bash -c "! timeout 30 iscsi-ls -i '$INI_IN' 'iscsi://127.0.0.1:$UT_PORT/' 2>&1 | grep -qF '$T1'"
adm --dd-register dd-id="$DD_ID" dd-member-name="$INI_IN" >/dev/null
waitfor 15 "the member back" \
	bash -c "timeout 30 iscsi-ls -i '$INI_IN' 'iscsi://127.0.0.1:$UT_PORT/' 2>&1 | grep -qF '$T1'"
# SCN: the initiator of the DD registers; isnsd notifies the target (open-isns
# sends no SCN to a normal node for a DD changed by a control node)
adm --register entity=ut-ini initiator="$INI_IN" | grep -q "Successfully registered" ||
	ut_fail "isnsadm: initiator registration"
scn_ok() { [ "$(jshow 'j["status"]["scn_received"] >= 1')" = True ]; }
waitfor 10 "an SCN answered" scn_ok
u isns set "127.0.0.1:$IPORT" --no-access-control || ut_fail "isns set --no-access-control"
ls_as "$INI_OUT" | grep -qF "Target:$T1 " || ut_fail "--no-access-control: $INI_OUT still refused"
u isns set "127.0.0.1:$IPORT" --access-control || ut_fail "isns set --access-control"

echo "== 7. persisted"
ut_stop
waitfor 5 "entity deregistered at stop" nolists entities 'Entity identifier = "utarget-it-b"'
nolists nodes "iSCSI name = \"$T1\"" || ut_fail "$T1 still listed after stop"
UT_OWN_PORTALS=1 ut_start "$CFG"
out=$(u isns show)
echo "$out"
echo "$out" | grep -qx "server: 127.0.0.1:$IPORT" || ut_fail "server not persisted"
echo "$out" | grep -qx "entity: utarget-it-b" || ut_fail "entity not persisted"
echo "$out" | grep -qx "access_control: on" || ut_fail "access control not persisted"
waitfor 10 "registered again" lists nodes "iSCSI name = \"$T1\""
waitfor 15 "the DD queried again" \
	bash -c "timeout 30 iscsi-ls -i '$INI_IN' 'iscsi://127.0.0.1:$UT_PORT/' 2>&1 | grep -qF '$T1'"
ls_as "$INI_OUT" | grep -qF "$T1" && ut_fail "after restart $INI_OUT sees $T1"

echo "== 8. the server restarts with an empty database"
isnsd_stop
rm -rf "$UT_TMP/isnsdb" && mkdir -p "$UT_TMP/isnsdb"
isnsd_start
adm --register control | grep -q "Successfully registered" || ut_fail "isnsadm control node"
nolists entities 'Entity identifier = "utarget-it-b"' || ut_fail "the database is not empty"
t0=$(date +%s%N)
waitfor 20 "registered again with the new isnsd" lists nodes "iSCSI name = \"$T1\""
echo "isnsd restarted -> registered again: $((($(date +%s%N) - t0) / 1000000)) ms"

echo "== 9. deregistration at stop"
lists portals "Portal TCP/UDP port = $UT_PORT2/tcp" || ut_fail "portal $UT_PORT2 not listed"
ut_stop
kill -0 "$ISNSD_PID" || ut_fail "isnsd died"
nolists nodes "iSCSI name = \"$T1\"" || ut_fail "$T1 still listed after SIGTERM"
nolists entities 'Entity identifier = "utarget-it-b"' || ut_fail "entity still listed"
nolists portals "Portal TCP/UDP port = $UT_PORT/tcp" || ut_fail "portal still listed"
grep -q "isns: deregistered entity utarget-it-b" "$UT_LOG" || ut_fail "no deregistration logged"
isnsd_stop
echo "PASS: isns"
