#!/bin/bash
# erl.sh UTARGETD UTARGET ERL: ErrorRecoveryLevel 1 (RFC 7143 7.1-7.2,
# 11.16) driven with the project's raw initiator (tests/tools/erl.c), which
# damages and loses PDUs on purpose and checks every byte it reads back.
#
#   erl (4 connections, one session, ERL 1, CRC32C digests)
#     |  sends: 1 % bad header digests (discarded, sent again), bad data
#     |         digests on commands (Reject 02h, retried: same ITT/CmdSN)
#     |         and Data-Out (Reject 02h, recovery R2T)
#     |  receives: 1 % of Data-In / R2T / SCSI Response dropped, SNACKed;
#     |            MaxBurstLength 16 KiB: the A bit ends each sequence of a
#     |            longer read but the last, answered with DataACK
#     v
#   target E (error_recovery_level 1, max_connections 4) --> LUN 0 d (ram 64M)
#   erl -R (1 connection, MaxBurstLength 16 KiB) --> target E --> LUN 0 d
#   erl (1 connection) --> target Z (ERL 0, the default) --> LUN 0 d
#   utarget session list --json: the session's recovery counters
#
# Checked:
#   - every command of a mixed WRITE/READ workload completes GOOD with the
#     right bytes (0 mismatches) while faults are injected, and faults of
#     every kind were injected and recovered;
#   - invalid SNACKs get the RFC's Rejects: a Status SNACK for a StatSN not
#     sent 04h, an R-Data SNACK with a BegRun for an unknown ITT 04h
#     (rdata.c), a DataACK naming no Data-In with the A bit 08h;
#   - R-Data (11.16.1 type 3, 11.16.3 resegmentation, rdata.c) over TCP:
#     6 rounds of a 32 KiB READ completed with its status left
#     unacknowledged, MaxRecvDataSegmentLength lowered to 1024, 512, 1000
#     or 4096 with a Text Request, then an R-Data SNACK: the tool checks
#     every resent Data-In (at most the new length, DataSN from 0, offsets
#     contiguous, F at each 16 KiB sequence end and the last, no S/A bit)
#     and every byte, then the SCSI Response (the SNACK Tag, GOOD, the
#     first status's StatSN, ExpDataSN the Data-In count); more PDUs than
#     rounds came, 32 KiB each round; a faulty workload on the same
#     connection completes after it;
#   - A bits came (F, a TTT, the LUN, every 16 KiB, never the last
#     sequence: the tool checks each) and the tool's DataACKs were all
#     accepted (none rejected: the tool fails on any Reject but 02h; the
#     target's data_acks equals the tool's count);
#   - the target's counters moved: digest_errors, snacks, retransmitted
#     PDUs and bytes, retried commands;
#   - at ERL 0 (the default offer) a SNACK is a protocol error (Reject 04h)
#     and the session negotiates ERL 0 although the initiator asks for 1;
#     no A bit is ever set (11.7.2: MUST NOT at ERL 0).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: erl.sh UTARGETD UTARGET ERL"
UTARGET=${2:?$USAGE}
ERL=${3:?$USAGE}
E=iqn.2026-12.org.utarget.erl:e
Z=iqn.2026-12.org.utarget.erl:z
I=iqn.2026-12.org.utarget.erl:init
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_write_config erl.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "iscsi": { "nop_in_interval": 0, "error_recovery_level": 1, "max_connections": 4 },
  "backstores": [ { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$E",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/erl.json" --threads 2
P=127.0.0.1:$UT_PORT


ut_hold w 40 "$ERL" "$P" "$E" "$I" -n 4 -i 400 -r 20 -B 16384 -S
u --json session list >"$UT_TMP/sl.json" || ut_fail "session list: $(cat "$UT_TMP/sl.json")"
ut_release w
ut_has w "^session tsih [0-9]+ erl 1 conns 4 hdigest 1 ddigest 1$"
ut_has w "^io commands 1600 reads [0-9]+ writes [0-9]+ bytes [0-9]+ mismatches 0 failed 0$"
ut_has w "^snack_invalid status 0x04 rdata 0x04 dataack 0x08$"
for k in hdigest ddigest_cmd ddigest_data lost_datain lost_r2t lost_status; do
	[ "$(ut_num w "$k")" -gt 0 ] || ut_fail "no $k fault injected: $(cat "$UT_TMP/w.out")"
done
ut_has w "^OK$"
echo "ok: 1600 commands over 4 connections at ERL 1 with 2 % of PDUs damaged or lost each way: all GOOD, 0 wrong bytes"
echo "ok: invalid SNACKs: Status beyond StatSN 04h, R-Data 04h, DataACK 08h"
AB=$(ut_num w "dataack abits")
DA=$(ut_num w " sent")
[ "$AB" -gt 0 ] && [ "$DA" -gt 0 ] || ut_fail "no A bit or no DataACK: $(cat "$UT_TMP/w.out")"
echo "ok: A bits $AB (checked), DataACKs sent $DA, none rejected"
SN=$(ut_num w "recovery snacks")
RT=$(ut_num w "retried_cmds")
(
	cd "$UT_TMP" &&
		SN=$SN RT=$RT DA=$DA python3 - <<'PY'
import json, os
s = [x for x in json.load(open("sl.json")) if x["type"] == "normal"]
assert len(s) == 1, s
st = s[0]["stats"]
assert s[0]["negotiated"]["error_recovery_level"] == 1, s[0]["negotiated"]
# the tool's SNACKs (DataACKs included) plus the 3 invalid ones
assert st["snacks"] == int(os.environ["SN"]) + 3, (st, os.environ["SN"])
assert st["retried_commands"] >= int(os.environ["RT"]) > 0, st
# each SNACK but a DataACK asks for at least one PDU
asked = int(os.environ["SN"]) - int(os.environ["DA"])
assert st["retransmitted_pdus"] >= asked and st["retransmitted_bytes"] > 0, st
assert st["digest_errors"] > 0, st
assert st["data_acks"] == int(os.environ["DA"]) > 0, (st, os.environ["DA"])
print("counters", st["digest_errors"], st["snacks"], st["retransmitted_pdus"],
      st["retransmitted_bytes"], st["retried_commands"], st["data_acks"])
PY
) >"$UT_TMP/ctr.out" 2>&1 || ut_fail "session counters: $(cat "$UT_TMP/ctr.out") $(cat "$UT_TMP/sl.json")"
echo "ok: target counters (digest_errors snacks retransmitted_pdus retransmitted_bytes retried data_acks): $(cat "$UT_TMP/ctr.out")"
grep -q "header digest error: PDU discarded" "$UT_LOG" || ut_fail "no log line for a discarded PDU"

# R-Data: resegmented resends after a smaller MaxRecvDataSegmentLength
ut_run_client "$UT_TMP/rd.out" "$ERL" "$P" "$E" "$I" -n 1 -i 50 -r 10 -B 16384 -R 6
ut_has rd "^session tsih [0-9]+ erl 1 conns 1 "
ut_has rd "^rdata rounds 6 pdus [0-9]+ bytes 196608$"
RP=$(ut_num rd "rdata rounds 6 pdus")
[ "$RP" -gt 6 ] || ut_fail "rdata: $RP Data-In for 6 rounds: $(cat "$UT_TMP/rd.out")"
ut_has rd "^rdata round 1 mrdsl 512 datain 64 "
ut_has rd "^io commands 50 reads [0-9]+ writes [0-9]+ bytes [0-9]+ mismatches 0 failed 0$"
ut_has rd "^OK$"
echo "ok: R-Data: 6 rounds, $RP resegmented Data-In (196608 bytes) checked byte for byte, each answered by a SCSI Response with the SNACK Tag and the first StatSN"
ut_stop

# ERL 0, the default offer: no SNACK
ut_write_config erl0.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "iscsi": { "nop_in_interval": 0 },
  "backstores": [ { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$Z",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/erl0.json"
P=127.0.0.1:$UT_PORT
ut_run_client "$UT_TMP/z.out" "$ERL" "$P" "$Z" "$I" -n 1 -i 50 -r 0 -B 16384 -S
ut_has z "^session tsih [0-9]+ erl 0 conns 1 "
ut_has z "^snack_invalid status 0x04 rdata 0x04 dataack 0x04$"
ut_has z "^io commands 50 reads [0-9]+ writes [0-9]+ bytes [0-9]+ mismatches 0 failed 0$"
ut_has z "^dataack abits 0 sent 0$"
ut_has z "^OK$"
grep -q "SNACK at ErrorRecoveryLevel 0" "$UT_LOG" || ut_fail "no log line for a SNACK at ERL 0"
echo "ok: ERL 0 by default: ERL 1 asked, 0 negotiated; every SNACK rejected 04h; no A bit"
ut_stop
