#!/bin/bash
# xcopy_lid4.sh UTARGETD CDBPROBE: EXTENDED COPY(LID4) (SPC-4 6.4;
# src/scsi/xcopy.c) and its status (RECEIVE COPY STATUS(LID4) 6.24,
# RECEIVE COPY DATA(LID4) 6.20; src/scsi/copy_status.c) over iSCSI with a
# real initiator (libiscsi, cdbprobe), one initiator port for every run
# (copy results are per I_T nexus):
#
#   cdbprobe --- utargetd :PORT --- LUN 0: ram "dst"
#                                --- LUN 1: ram "src"
#
#  - REPORT SUPPORTED OPERATION CODES lists 83h/01h and 84h/06h;
#  - EXTENDED COPY(LID4) sent to LUN 0, list identifier 0A0B0C0Dh: 8
#    blocks from LUN 1 LBA 8 to LUN 0 LBA 32, the two LUs named by their
#    NAA designators (E4h CSCD descriptors), one 02h segment; read back and
#    compared, the blocks around it untouched;
#  - RECEIVE COPY STATUS(LID4) and RECEIVE COPY DATA(LID4) of that list,
#    byte for byte; of an unknown list identifier: INVALID FIELD IN CDB;
#  - a list naming an unsupported segment type (0Dh, which would hold data):
#    UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE (26h/09h).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: xcopy_lid4.sh UTARGETD CDBPROBE}
ut_pick_port

ut_write_config xcopy.json <<'JSON'
{
  "version": 1,
  "backstores": [ { "name": "dst", "type": "ram", "size": "8M" },
                  { "name": "src", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:xcopy",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "dst" }, { "lun": 1, "backstore": "src" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
export CDBPROBE_UA=1 CDBPROBE_ISID_QUALIFIER=7
url() { echo "iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:xcopy/$1"; }
. "$(dirname "$0")/xcopy_lib.sh"

ut_start "$UT_TMP/xcopy.json"

# RSOC, one command by service action: SUPPORT 011b
for opsa in 830001 840006; do
	cdb 0 "a30c02${opsa}000000400000" in 64
	d=$(data_of "RSOC $opsa")
	[ $((0x${d:2:2} & 7)) = 3 ] || ut_fail "RSOC ${opsa:0:2}h/${opsa:4:2}h: not supported ($d)"
done
echo "ok: REPORT SUPPORTED OPERATION CODES lists EXTENDED COPY(LID4) and RECEIVE COPY DATA(LID4)"

dst=$(naa 0)
src=$(naa 1)
[ "$dst" != "$src" ] || ut_fail "LUN 0 and LUN 1 have one designator"
pat=$(hex 5a 512)$(hex c3 512)
blocks=
for i in $(seq 4); do blocks=$blocks$pat; done   # 8 blocks: cdbprobe's 4 KiB
cdb 1 "2a000000000800000800" out "$blocks"
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(10) LUN 1: $OUT"

list="$(lid4_hdr $((0x0a0b0c0d)) 64 28)$(cscd "$src")$(cscd "$dst")$(seg 0 1 8 8 32)"
xcopy4 "$list"
[ "$OUT" = status=GOOD ] || ut_fail "EXTENDED COPY(LID4): $OUT"
cdb 0 "28000000002000000800" in 4096
[ "$(data_of "READ(10) LUN 0 LBA 32")" = "$blocks" ] || ut_fail "LUN 0 LBA 32-39 is not LUN 1 LBA 8-15"
cdb 0 "28000000001f00000100" in 512
[ "$(data_of "READ(10) LUN 0 LBA 31")" = "$(hex 00 512)" ] || ut_fail "LUN 0 LBA 31 changed"
cdb 0 "28000000002800000100" in 512
[ "$(data_of "READ(10) LUN 0 LBA 40")" = "$(hex 00 512)" ] || ut_fail "LUN 0 LBA 40 changed"
echo "ok: EXTENDED COPY(LID4) LUN 1 -> LUN 0 moved 8 blocks, nothing else"

# status: EXTENDED COPY(LID4), completed without errors, delay FFFFFFFEh,
# GOOD, no sense data, 4096 bytes, 1 segment
want=0000001c''01010000''fffffffe''00000000''0000000000001000''0001000000000000
cdb 0 "84050a0b0c0d00000000000000400000" in 64
[ "$(data_of "RECEIVE COPY STATUS(LID4)")" = "$want" ] || ut_fail "RECEIVE COPY STATUS(LID4): $OUT, want $want"
cdb 0 "84060a0b0c0d00000000000000400000" in 64
[ "$(data_of "RECEIVE COPY DATA(LID4)")" = "00000020${want:8}00000000" ] ||
	ut_fail "RECEIVE COPY DATA(LID4): $OUT"
echo "ok: RECEIVE COPY STATUS(LID4) and RECEIVE COPY DATA(LID4) report it (no held data)"

for sa in 05 06; do
	cdb 0 "84${sa}0a0b0c0e00000000000000400000" in 64
	case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "84h/${sa}h unknown list: $OUT" ;; esac
done
echo "ok: an unknown list identifier is INVALID FIELD IN CDB"

list="$(lid4_hdr 5 64 28)$(cscd "$src")$(cscd "$dst")$(seg 0 1 8 8 32)"
list="${list:0:$(((48 + 64) * 2))}0d${list:$(((48 + 64) * 2 + 2))}"
xcopy4 "$list"
case $OUT in *"key=0x5 asc=0x26 ascq=0x09"*) ;; *) ut_fail "segment type 0Dh: $OUT" ;; esac
echo "ok: a segment descriptor that would hold data is UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE"
ut_stop
echo "xcopy_lid4: all checks passed"
