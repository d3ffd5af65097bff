#!/bin/bash
# fault.sh UTARGETD SENSEPROBE: fault injection end to end (backstore/fault.h,
# docs/config.md "fault") seen by a real initiator (libiscsi, senseprobe):
#  - a READ over a listed LBA ends in MEDIUM ERROR / UNRECOVERED READ ERROR
#    (03/11/00) with that LBA in the sense INFORMATION field (SBC-4 4.18.1),
#    also when the LBA is inside a longer read; other reads are GOOD;
#  - a WRITE over a listed LBA: MEDIUM ERROR / WRITE ERROR (03/0C/00) + LBA;
#  - "hardware": SYNCHRONIZE CACHE with flush_error gets HARDWARE ERROR /
#    INTERNAL TARGET FAILURE (04/44/00); delay_us holds every command;
#  - "nospace": DATA PROTECT / SPACE ALLOCATION FAILED (07/27/07);
#  - error_rate 1: every read fails, naming its first LBA;
#  - utargetd --check names a listed LBA beyond the back-store.
# Ports 3950-3999.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: fault.sh UTARGETD SENSEPROBE}
for ((p = 3950 + RANDOM % 50, i = 0; i < 50; i++, p = 3950 + (p - 3950 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free port in 3950-3999"

ut_write_config fault.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@/state",
  "backstores": [
    { "name": "medium", "type": "ram", "size": "16M",
      "fault": { "read_error_lbas": [1000, 32767], "write_error_lbas": [3000] } },
    { "name": "hw", "type": "ram", "size": "16M",
      "fault": { "flush_error": true, "error": "hardware", "delay_us": 30000 } },
    { "name": "full", "type": "ram", "size": "16M", "thin": true,
      "fault": { "write_error_lbas": [7], "error": "nospace" } },
    { "name": "flaky", "type": "ram", "size": "16M",
      "fault": { "error_rate": 1, "seed": 7 } }
  ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:fault",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "medium" }, { "lun": 1, "backstore": "hw" },
                { "lun": 2, "backstore": "full" }, { "lun": 3, "backstore": "flaky" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/fault.json"
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:fault

# probe LUN OP LBA BLOCKS EXPECT...: every EXPECT word must be in the output
probe() {
	local lun=$1 op=$2 lba=$3 n=$4 out w
	shift 4
	# the first command of a session on a LUN may meet a unit attention
	# (power on / reset): repeat once then
	for try in 1 2; do
		out=$("$PROBE" "$url/$lun" "$op" "$lba" "$n") || ut_fail "senseprobe $lun $op: $out"
		case $out in *"key=0x6 "*) continue ;; esac
		break
	done
	for w in "$@"; do
		case " $out " in *" $w "*) ;; *) ut_fail "LUN $lun $op $lba+$n: got '$out', want $*" ;; esac
	done
	echo "ok: LUN $lun $op LBA $lba x$n -> $out"
	LAST=$out
}

probe 0 read16 1000 1 status=CHECK key=0x3 asc=0x11 ascq=0x00 info=1000
probe 0 read16 990 20 status=CHECK key=0x3 asc=0x11 ascq=0x00 info=1000
probe 0 read16 32760 8 status=CHECK key=0x3 asc=0x11 info=32767
probe 0 read16 0 8 status=GOOD
probe 0 read16 1001 64 status=GOOD
probe 0 write16 3000 1 status=CHECK key=0x3 asc=0x0c ascq=0x00 info=3000
probe 0 write16 2990 16 status=CHECK key=0x3 asc=0x0c info=3000
probe 0 write16 1000 1 status=GOOD
probe 1 sync16 0 1 status=CHECK key=0x4 asc=0x44 ascq=0x00
probe 1 read16 5 1 status=GOOD
ms=${LAST##*ms=}
[ "$ms" -ge 30 ] || ut_fail "delay_us 30000 but the read took ${ms} ms"
echo "ok: a delayed read took ${ms} ms (>= 30)"
probe 2 write16 7 1 status=CHECK key=0x7 asc=0x27 ascq=0x07
probe 2 write16 8 1 status=GOOD
probe 3 read16 123 4 status=CHECK key=0x3 asc=0x11 info=123
probe 3 read16 9 1 status=CHECK key=0x3 info=9
ut_stop

# a listed LBA beyond the back-store is refused before anything starts
sed 's/"read_error_lbas": \[1000, 32767\]/"read_error_lbas": [32768]/' \
	"$UT_TMP/fault.json" >"$UT_TMP/bad.json"
if out=$("$UTARGETD" --check -c "$UT_TMP/bad.json" 2>&1); then
	ut_fail "--check accepted a fault LBA beyond the back-store"
fi
case $out in
*"backstores[0].fault.read_error_lbas"*"beyond the last block 32767"*) ;;
*) ut_fail "--check said: $out" ;;
esac
echo "ok: --check: $out"
echo "fault: all checks passed"
