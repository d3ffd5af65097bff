#!/bin/bash
# memcap.sh UTARGETD MEMLOAD: the buffer memory cap with back-pressure
# (src/fabric/iscsi/mempress.c, iscsi.max_buffer_memory_mib) under a real
# initiator (libiscsi, memload) that keeps many large writes in flight:
#  - 64 writes of 64 KiB (all immediate data) in flight against a 1 MiB cap,
#    on a back-store that holds each request 2 ms (fault delay_us): commands
#    wait for memory with reading stopped and MaxCmdSN held; none fails (no
#    BUSY), every block reads back;
#  - 64 writes of 1 MiB (immediate + unsolicited + R2T data) and 32 writes
#    of 1 MiB with all data solicited, against a 4 MiB cap: a command that
#    cannot wait (tasks of its connection hold buffers while their Data-Out
#    is behind it in the stream) ends with BUSY and is retried; every write
#    completes and reads back; the daemon stays up and stops cleanly.
# Ports 3950-3999.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
LOAD=${2:?usage: memcap.sh UTARGETD MEMLOAD}
for ((p = 3950 + RANDOM % 50, i = 0; i < 50; i++, p = 3950 + (p - 3950 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free port in 3950-3999"

run() { # CAP_MIB DEPTH KIB ROUNDS MODE MAX_BUSY DELAY_US
	local cap=$1 out
	ut_write_config mc.json <<JSON
{ "version": 1, "state_dir": "@TMP@/state",
  "iscsi": { "max_buffer_memory_mib": $cap, "first_burst_length": 262144 },
  "backstores": [ { "name": "r", "type": "ram", "size": "256M",
                    "fault": { "delay_us": $7 } } ],
  "targets": [ { "name": "iqn.2026-12.org.utarget:mc",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r" } ], "demo_mode": { "enabled": true, "read_only": false } } ] }
JSON
	: >"$UT_LOG"
	ut_start "$UT_TMP/mc.json" --log-level debug
	local rc=0
	ut_run_client "$UT_TMP/load.out" timeout 300 "$LOAD" \
		"iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:mc/0" "$2" "$3" "$4" "$5" || rc=$?
	out=$(cat "$UT_TMP/load.out")
	[ "$rc" = 0 ] || ut_fail "memload $*: exit $rc: $out"
	case $out in *" errors=0 verify_errors=0 "*) ;; *) ut_fail "memload $*: $out" ;; esac
	busy=$(sed -n 's/.*busy=\([0-9]*\).*/\1/p' <<<"$out")
	[ "$busy" -le "$6" ] || ut_fail "memload $*: $busy BUSY (at most $6 expected): $out"
	held=$(grep -c "MaxCmdSN held" "$UT_LOG")
	[ "$held" -gt 0 ] || ut_fail "memload $*: MaxCmdSN was never held at a ${cap} MiB cap"
	echo "ok: cap ${cap} MiB, $2 x $3 KiB x $4 rounds ($5, delay $7 us): $out; MaxCmdSN held $held times"
	ut_stop
}

run 1 64 64 8 imm 0 2000
run 4 64 1024 4 imm 100000 0
run 4 32 1024 4 r2t 100000 0
echo "memcap: all checks passed"
