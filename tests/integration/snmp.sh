#!/bin/bash
# snmp.sh UTARGETD UTARGET_AGENTX UTARGET CDBPROBE HOLDSESSION: the SNMP
# subagent (tools/snmp, utarget-agentx(8); issue 13) serves SCSI-MIB and
# ISCSI-MIB with the values utargetd's stats.get gives, through a private
# snmpd, and finds snmpd and utargetd again after each restarts:
#
#   snmpwalk/snmpget --udp 127.0.0.1:SPORT--> snmpd (-C -c $TMP/snmpd.conf,
#                                             master agentx)
#                                                 ^ AgentX, unix:$TMP/agentx
#                                                 |
#   utarget (stats.get) --rpc.sock--> utargetd <--rpc.sock-- utarget-agentx
#                                     :PORT
#   cdbprobe (LUN 0) ---------------->  |  LUN 0: r0 (ram 8M)
#   holdsession (LUN 1, iqn...:client) ->  LUN 1: r1 (ram 8M); ACL: client
#
# Checks: the MIB modules of mibs/ load in Net-SNMP with no complaint and
# give the agent's OIDs, and load in snmpwalk; the
# target's name (iscsiNodeName, scsiTgtPortName), its LU count
# (scsiTgtDevNumberOfLUs), the ACL (scsiAuthIntrName); cdbprobe's known load
# on LUN 0 (stats.sh's: 13 commands) moves scsiLuInCommands by 13, and it
# and scsiLuHSInCommands equal stats.get's r0 commands; holdsession's
# session has a row (iscsiSsnInitiatorName, its TSIH as session.list says,
# a connection in state full) and it is an attached initiator port;
# iscsiTgtLoginAccepts equals stats.get's; a walk of both subtrees ends
# without error. Then snmpd restarts (the subagent registers again within
# its --ping interval) and utargetd restarts (meanwhile nothing is served,
# no stale value; then the new daemon's values are). Needs snmpd, snmpget,
# snmpwalk and snmptranslate: a missing one fails the test.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: snmp.sh UTARGETD UTARGET_AGENTX UTARGET CDBPROBE HOLDSESSION"
AGENTX=${2:?$USAGE}
UTARGET=${3:?$USAGE}
PROBE=${4:?$USAGE}
HOLD=${5:?$USAGE}
MIBDIR=$UT_ROOT/mibs
for t in snmpd snmpget snmpwalk snmptranslate; do
	command -v "$t" >/dev/null || ut_fail "$t is not installed (scripts/deps.sh test installs snmpd, snmp)"
done
ut_pick_port
SOCK=$UT_TMP/rpc.sock
T=iqn.2026-12.org.utarget:snmp
CLIENT=iqn.2026-12.org.utarget:client
SNMPD_PID=
AGENT_PID=
HOLD_PID=

cleanup_snmp() {
	local p
	for p in $HOLD_PID $AGENT_PID $SNMPD_PID; do
		kill -TERM "$p" 2>/dev/null
	done
	ut_cleanup
}
trap cleanup_snmp EXIT

# a free UDP port of the range for snmpd
SPORT=
for ((i = 0; i < 100; i++)); do
	p=$((${UT_PORT_MIN:-3400} + RANDOM % (${UT_PORT_MAX:-3499} - ${UT_PORT_MIN:-3400} + 1)))
	if [ "$p" != "$UT_PORT" ] && [ -z "$(ss -Huan "( sport = :$p )" 2>/dev/null)" ]; then
		SPORT=$p
		break
	fi
done
[ -n "$SPORT" ] || ut_fail "no free UDP port for snmpd"

# the MIB modules (utarget's own, mibs/README.md): every module of mibs/
# loads with nothing on stderr, and names give the OIDs of mibview.c
mkdir -p "$UT_TMP/mibconf/cert_indexes" # else snmptranslate reports making it
out=$(SNMPCONFPATH=$UT_TMP/mibconf SNMP_PERSISTENT_DIR=$UT_TMP/mibconf \
	snmptranslate -M "$MIBDIR" -m ALL -On \
	SCSI-MIB::scsiLuInCommands SCSI-MIB::scsiAttIntrPortAuthIntrIdx \
	SCSI-MIB::scsiTransportISCSI ISCSI-MIB::iscsiTgtLoginAccepts \
	ISCSI-MIB::iscsiCxnDataIntegrity 2>"$UT_TMP/mibload.err" | tr -s '\n' ' ')
[ ! -s "$UT_TMP/mibload.err" ] || ut_fail "mibs/ do not load cleanly: $(cat "$UT_TMP/mibload.err")"
want=".1.3.6.1.2.1.139.2.4.1.1.10 .1.3.6.1.2.1.139.2.3.3.2.1.2 .1.3.6.1.2.1.139.1.1.5 .1.3.6.1.2.1.142.1.6.2.1.1 .1.3.6.1.2.1.142.1.11.1.1.13 "
[ "$out" = "$want" ] || ut_fail "mibs/ OIDs: got '$out', want '$want'"
echo "ok: mibs/ load with no complaint; their names give mibview.c's OIDs"

# Net-SNMP's clients: only this test's files (no /etc/snmp/snmp.conf,
# whose "mibs :" would load nothing), the shipped MIBs
export SNMPCONFPATH=$UT_TMP/snmpconf MIBDIRS=$MIBDIR MIBS=SCSI-MIB:ISCSI-MIB
export SNMP_PERSISTENT_DIR=$UT_TMP/snmp-persist
mkdir -p "$SNMPCONFPATH" "$SNMP_PERSISTENT_DIR"
oid=$(snmptranslate -On SCSI-MIB::scsiLuInCommands 2>"$UT_TMP/translate.err")
[ "$oid" = .1.3.6.1.2.1.139.2.4.1.1.10 ] || ut_fail "SCSI-MIB does not load: $oid $(cat "$UT_TMP/translate.err")"
oid=$(snmptranslate -On ISCSI-MIB::iscsiSsnInitiatorName 2>"$UT_TMP/translate.err")
[ "$oid" = .1.3.6.1.2.1.142.1.10.1.1.4 ] || ut_fail "ISCSI-MIB does not load: $oid $(cat "$UT_TMP/translate.err")"
echo "ok: the MIB modules load (snmptranslate)"

ut_write_config snmp.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "r0", "type": "ram", "size": "8M" },
                  { "name": "r1", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$T", "alias": "snmp test",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" }, { "lun": 1, "backstore": "r1" } ],
      "acls": [ { "initiator": "$CLIENT" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/snmp.json"

cat >"$UT_TMP/snmpd.conf" <<EOF
master agentx
agentXSocket unix:$UT_TMP/agentx
agentXPerms 0600 0700
rocommunity utest 127.0.0.1
EOF
start_snmpd() {
	rm -f "$UT_TMP/agentx"
	snmpd -f -Lo -C -c "$UT_TMP/snmpd.conf" -p "$UT_TMP/snmpd.pid" "udp:127.0.0.1:$SPORT" \
		>>"$UT_TMP/snmpd.log" 2>&1 &
	SNMPD_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -S "$UT_TMP/agentx" ] && return 0
		kill -0 "$SNMPD_PID" 2>/dev/null || { tail -20 "$UT_TMP/snmpd.log"; ut_fail "snmpd exited"; }
		sleep 0.1
	done
	ut_fail "snmpd made no AgentX socket in 10 s"
}
stop_snmpd() {
	kill -TERM "$SNMPD_PID"
	wait "$SNMPD_PID" 2>/dev/null
	SNMPD_PID=
}
start_snmpd
echo "snmpd (pid $SNMPD_PID) on udp 127.0.0.1:$SPORT, AgentX at $UT_TMP/agentx"

# Net-SNMP's library keeps allocations of its own to the end (an ASan
# build of the subagent would report them): suppressed by library name
LSAN_OPTIONS=suppressions=$UT_ROOT/tests/integration/lsan-netsnmp.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS} \
	"$AGENTX" -f -x "unix:$UT_TMP/agentx" -s "$SOCK" --interval 0.2 --ping 1 \
	>>"$UT_TMP/agentx.log" 2>&1 &
AGENT_PID=$!

S=(-v2c -c utest -t 3 -r 1 "127.0.0.1:$SPORT")
sget() { snmpget "${S[@]}" -OqvU "$@" 2>&1; }
# wait (bounded) until $1 reads $2
wait_value() {
	local i v
	for ((i = 0; i < 150; i++)); do
		kill -0 "$AGENT_PID" 2>/dev/null || { cat "$UT_TMP/agentx.log"; ut_fail "utarget-agentx exited"; }
		v=$(sget "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.2
	done
	echo "---- utarget-agentx log ----"
	tail -20 "$UT_TMP/agentx.log"
	ut_fail "$1 is '$v' after 30 s, want '$2'"
}
stats() { "$UTARGET" -s "$SOCK" call stats.get; }
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

wait_value ISCSI-MIB::iscsiNodeName.1.1 "$T"
echo "ok: the subagent registered; iscsiNodeName.1.1 = $T"
v=$(sget SCSI-MIB::scsiTgtPortName.1.1.1)
[ "$v" = "\"$T,t,0x0001\"" ] || ut_fail "scsiTgtPortName.1.1.1 = $v"
v=$(sget SCSI-MIB::scsiTgtDevNumberOfLUs.1.1)
[ "$v" = 2 ] || ut_fail "scsiTgtDevNumberOfLUs.1.1 = $v, want 2"
v=$(sget SCSI-MIB::scsiAuthIntrName.1.1.0.1)
[ "$v" = "\"$CLIENT\"" ] || ut_fail "scsiAuthIntrName.1.1.0.1 = $v"
echo "ok: scsiTgtPortName, scsiTgtDevNumberOfLUs = 2, scsiAuthIntrName = $CLIENT"

# the known load on LUN 0 (stats.sh's: 13 commands after a first run)
export CDBPROBE_ISID_QUALIFIER=5 CDBPROBE_UA=1
url=iscsi://127.0.0.1:$UT_PORT/$T/0
probe() { "$PROBE" "$url" "$@" >/dev/null || ut_fail "cdbprobe $*"; }
probe 000000000000
sleep 0.5
before=$(sget SCSI-MIB::scsiLuInCommands.1.1.1)
for i in 1 2 3; do probe 28000000001000000800 in 4096; done
for i in 1 2; do probe 2a000000002000000400 out "$(head -c 2048 /dev/zero | od -An -tx1 -v | tr -d ' \n')"; done
probe 000000000000
"$PROBE" "$url" ff0000000000 >/dev/null # refused: INVALID COMMAND OPERATION CODE
sleep 0.5
after=$(sget SCSI-MIB::scsiLuInCommands.1.1.1)
[ $((after - before)) = 13 ] || ut_fail "scsiLuInCommands.1.1.1 moved by $((after - before)) ($before -> $after), want 13"
want=$(stats | jq_py 'next(x for x in d["luns"] if x["backstore"] == "r0")["commands"]')
hs=$(sget SCSI-MIB::scsiLuHSInCommands.1.1.1)
[ "$after" = "$want" ] && [ "$hs" = "$want" ] ||
	ut_fail "scsiLuInCommands $after, scsiLuHSInCommands $hs; stats.get says $want"
echo "ok: scsiLuInCommands.1.1.1 +13 for the load, = scsiLuHSInCommands = stats.get's $want"

# a session of the ACL's initiator on LUN 1
rm -f "$UT_TMP/stop"
"$HOLD" -i "$CLIENT" "iscsi://127.0.0.1:$UT_PORT/$T/1" "$UT_TMP/stop" 60 >"$UT_TMP/hold.log" 2>&1 &
HOLD_PID=$!
for ((i = 0; i < 100; i++)); do
	grep -q ready "$UT_TMP/hold.log" && break
	sleep 0.1
done
grep -q ready "$UT_TMP/hold.log" || ut_fail "holdsession: $(cat "$UT_TMP/hold.log")"
tsih=$("$UTARGET" -s "$SOCK" call session.list |
	jq_py "next(s['tsih'] for s in d if s['initiator'] == '$CLIENT')")
sleep 0.5
v=$(sget "ISCSI-MIB::iscsiSsnInitiatorName.1.1.$tsih")
[ "$v" = "$CLIENT" ] || ut_fail "iscsiSsnInitiatorName.1.1.$tsih = '$v', want $CLIENT"
v=$(sget "ISCSI-MIB::iscsiSsnTSIH.1.1.$tsih")
[ "$v" = "$tsih" ] || ut_fail "iscsiSsnTSIH.1.1.$tsih = $v"
v=$(sget "ISCSI-MIB::iscsiCxnState.1.1.$tsih.1")
[ "$v" = full ] || ut_fail "iscsiCxnState.1.1.$tsih.1 = $v, want full"
walk=$(snmpwalk "${S[@]}" -Oqv SCSI-MIB::scsiAttIntrPortName 2>&1)
echo "$walk" | grep -q "^\"$CLIENT,i,0x" || ut_fail "scsiAttIntrPortName: no $CLIENT port: $walk"
echo "ok: the session row (TSIH $tsih, initiator $CLIENT, connection full) and its attached port"
want=$(stats | jq_py 'd["targets"][0]["login"]["accepts"]')
v=$(sget ISCSI-MIB::iscsiTgtLoginAccepts.1.1)
[ "$v" = "$want" ] || ut_fail "iscsiTgtLoginAccepts.1.1 = $v, stats.get says $want"
echo "ok: iscsiTgtLoginAccepts.1.1 = $v as stats.get"
for tree in SCSI-MIB::scsiMIB ISCSI-MIB::iscsiMibModule; do
	snmpwalk "${S[@]}" "$tree" >"$UT_TMP/walk.txt" 2>&1 || ut_fail "snmpwalk $tree: $(tail -3 "$UT_TMP/walk.txt")"
	grep -qE "^Timeout|No Response|Error in packet|^Error" "$UT_TMP/walk.txt" &&
		ut_fail "snmpwalk $tree: $(grep -E "^Timeout|No Response|Error" "$UT_TMP/walk.txt" | head -3)"
	echo "ok: snmpwalk $tree: $(wc -l <"$UT_TMP/walk.txt") objects"
done
touch "$UT_TMP/stop"
wait "$HOLD_PID" || ut_fail "holdsession: $(cat "$UT_TMP/hold.log")"
HOLD_PID=

# snmpd restarts: the subagent opens its AgentX session again
stop_snmpd
start_snmpd
wait_value ISCSI-MIB::iscsiNodeName.1.1 "$T"
echo "ok: after snmpd's restart the subagent serves again"

# utargetd restarts: nothing is served while it is away, then the new one
ut_stop
sleep 0.5
v=$(sget ISCSI-MIB::iscsiNodeName.1.1)
case $v in
*"No Such"*) ;;
*) ut_fail "with utargetd stopped, iscsiNodeName.1.1 = '$v' (want No Such Instance)" ;;
esac
echo "ok: with utargetd stopped nothing is served ($v)"
ut_start "$UT_TMP/snmp.json"
wait_value ISCSI-MIB::iscsiNodeName.1.1 "$T"
v=$(sget SCSI-MIB::scsiLuInCommands.1.1.1)
[ "$v" = 0 ] || ut_fail "after utargetd's restart scsiLuInCommands.1.1.1 = $v, want 0"
echo "ok: after utargetd's restart the subagent serves the new daemon (scsiLuInCommands 0)"

kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
rc=$?
AGENT_PID=
[ "$rc" = 0 ] || ut_fail "utarget-agentx exited with $rc after SIGTERM: $(tail -5 "$UT_TMP/agentx.log")"
ut_sanitizer_check "$UT_TMP/agentx.log"
echo "ok: utarget-agentx stopped cleanly"
stop_snmpd
ut_stop
echo "PASS: snmp"
