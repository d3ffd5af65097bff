#!/bin/bash
# pi.sh UTARGETD CDBPROBE: T10 protection information (SBC-4 4.22;
# backstore/pi.c, scsi/sbc_pi.c) over iSCSI with a real initiator (libiscsi,
# cdbprobe), the guards computed here bit by bit (CRC-16 T10-DIF):
#
#   cdbprobe --- utargetd :PORT --- LUN 0: ram, protection 1
#                                --- LUN 1: file p.img (+ p.img.pi), protection 3
#                                --- LUN 2: ram, no protection information
#
#  - READ CAPACITY(16) P_TYPE/PROT_EN, INQUIRY PROTECT, VPD 86h SPT and checks;
#  - a WRITE without tuples gets generated ones (guard, 0000h, the LBA);
#  - WRITE with WRPROTECT=1: a bad guard or reference tag is refused (ABORTED
#    COMMAND 10h/01h, 10h/03h) and writes nothing; good tuples are kept as sent;
#  - READ RDPROTECT=0 checks what is stored: a tuple written unchecked
#    (WRPROTECT=3) with a wrong reference tag fails (10h/03h, INFORMATION LBA);
#  - COMPARE AND WRITE WRPROTECT=1: the write instance's tuple checked, written;
#  - type 3: the reference tag is the initiator's, never checked; the tuples
#    of the file LU outlive a restart (p.img.pi);
#  - RDPROTECT on the LU without protection information: INVALID FIELD IN CDB;
#  - FORMAT UNIT FMTPINFO: the file LU from type 3 to type 1 (tuples all FFh
#    afterwards, generated ones then carry the LBA), CAPACITY DATA HAS
#    CHANGED to another initiator, the type outlives a restart
#    (format-<NAA>.state); to type 0 (PROT_EN 0, RDPROTECT refused); the
#    combinations SBC-4 5.3.2 refuses, in the CDB or the parameter list.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: pi.sh UTARGETD CDBPROBE}
ut_pick_port

ut_write_config pi.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "p1", "type": "ram", "size": "8M", "protection": 1 },
                  { "name": "p3", "type": "file", "path": "p.img", "size": "8M", "create": true,
                    "protection": 3 },
                  { "name": "np", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:pi",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "p1" }, { "lun": 1, "backstore": "p3" },
                { "lun": 2, "backstore": "np" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
export CDBPROBE_UA=1
url() { echo "iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:pi/$1"; }
# cdb LUN ARGS...: cdbprobe's line in $OUT, unit attentions dropped
cdb() {
	local lun=$1 line
	shift
	line=$("$PROBE" "$(url "$lun")" "$@") || ut_fail "cdbprobe $*: $line"
	OUT=${line##*ua=??/?? }
}
data_of() { case $OUT in status=GOOD*) echo "${OUT#*data=}" ;; *) ut_fail "$1: $OUT" ;; esac; }
# crc HEX: CRC-16 T10-DIF of the bytes, 4 hex digits
crc() {
	python3 -c '
import sys
c = 0
for b in bytes.fromhex(sys.argv[1]):
    c ^= b << 8
    for _ in range(8):
        c = ((c << 1) ^ 0x8bb7) & 0xffff if c & 0x8000 else (c << 1) & 0xffff
print("%04x" % c)' "$1"
}
block() { python3 -c 'import sys; print(bytes([int(sys.argv[1], 16)]).hex() * 512)' "$1"; }
w10() { printf '2a%02x%08x000001%02x' $(($1 << 5)) "$2" 0; }   # WRITE(10) PROTECT LBA, 1 block
r10() { printf '28%02x%08x000001%02x' $(($1 << 5)) "$2" 0; }   # READ(10) PROTECT LBA, 1 block

ut_start "$UT_TMP/pi.json"

cdb 0 9e100000000000000000000000200000 in 32
d=$(data_of "READ CAPACITY(16) LUN 0")
[ "${d:24:2}" = 11 ] || ut_fail "LUN 0 READ CAPACITY(16) byte 12: ${d:24:2}, want 11h (PROT_EN, type 1)"
cdb 1 9e100000000000000000000000200000 in 32
d=$(data_of "READ CAPACITY(16) LUN 1")
[ "${d:24:2}" = 15 ] || ut_fail "LUN 1 READ CAPACITY(16) byte 12: ${d:24:2}, want 15h (P_TYPE 2: type 3)"
cdb 0 120000006000 in 96
d=$(data_of "INQUIRY")
[ $((0x${d:10:2} & 1)) = 1 ] || ut_fail "INQUIRY PROTECT is not set"
cdb 0 120186004000 in 64
d=$(data_of "VPD 86h")
[ "${d:8:2}" = 3d ] || ut_fail "LUN 0 VPD 86h byte 4: ${d:8:2}, want 3dh (SPT types 1, 2 and 3, GRD_CHK, REF_CHK)"
cdb 1 120186004000 in 64
d=$(data_of "VPD 86h")
[ "${d:8:2}" = 3c ] || ut_fail "LUN 1 VPD 86h byte 4: ${d:8:2}, want 3ch (SPT types 1, 2 and 3, GRD_CHK)"
echo "ok: READ CAPACITY(16), INQUIRY PROTECT and VPD 86h report types 1 and 3"

# generated tuples: guard, application tag 0000h, reference tag the LBA (7)
blk=$(block 5a)
cdb 0 "$(w10 0 7)" out "$blk"
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(10) WRPROTECT=0: $OUT"
cdb 0 "$(r10 1 7)" in 520
d=$(data_of "READ(10) RDPROTECT=1")
[ "${d:0:1024}" = "$blk" ] || ut_fail "READ(10) RDPROTECT=1: not the data written"
want="$(crc "$blk")000000000007"
[ "${d:1024:16}" = "$want" ] || ut_fail "generated tuple ${d:1024:16}, want $want"
echo "ok: a WRITE without tuples stores generated ones ($want), RDPROTECT=1 returns them"

# WRPROTECT=1 with a wrong guard, then a wrong reference tag: refused, nothing written
blk2=$(block a5)
cdb 0 "$(w10 1 7)" out "${blk2}0000123400000007"
case $OUT in *"key=0xb asc=0x10 ascq=0x01"*) ;; *) ut_fail "bad guard: $OUT" ;; esac
cdb 0 "$(w10 1 7)" out "${blk2}$(crc "$blk2")123400000008"
case $OUT in *"key=0xb asc=0x10 ascq=0x03"*) ;; *) ut_fail "bad reference tag: $OUT" ;; esac
cdb 0 "$(r10 0 7)" in 512
[ "$(data_of "READ(10)")" = "$blk" ] || ut_fail "a refused WRITE changed the block"
# good tuples, application tag 1234h: kept as sent
t="$(crc "$blk2")123400000007"
cdb 0 "$(w10 1 7)" out "${blk2}$t"
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(10) WRPROTECT=1 with good tuples: $OUT"
cdb 0 "$(r10 1 7)" in 520
d=$(data_of "READ(10) RDPROTECT=1")
[ "${d:1024:16}" = "$t" ] && [ "${d:0:1024}" = "$blk2" ] || ut_fail "the tuple sent is not the one read"
echo "ok: WRPROTECT=1 refuses a bad guard (10h/01h) and reference tag (10h/03h), keeps good tuples"

# COMPARE AND WRITE WRPROTECT=1 (caw.c): verify instance (block + tuple)
# then write instance; a wrong reference tag in the write instance is
# 10h/03h and writes nothing; a good one is written with its tuple
caw() { printf '89%02x%016x00000001%04x' $(($1 << 5)) "$2" 0; } # PROTECT LBA, 1 block
blk3=$(block 3c)
t7="$(crc "$blk3")000000000007"
cdb 0 "$(caw 1 7)" out "${blk2}${t}${blk3}$(crc "$blk3")000000000008"
case $OUT in *"key=0xb asc=0x10 ascq=0x03"*) ;; *) ut_fail "CAW bad write tuple: $OUT" ;; esac
cdb 0 "$(caw 1 7)" out "${blk2}${t}${blk3}${t7}"
[ "$OUT" = status=GOOD ] || ut_fail "COMPARE AND WRITE WRPROTECT=1: $OUT"
cdb 0 "$(r10 1 7)" in 520
d=$(data_of "READ(10) RDPROTECT=1 after COMPARE AND WRITE")
[ "${d:1024:16}" = "$t7" ] && [ "${d:0:1024}" = "$blk3" ] || ut_fail "CAW did not write its tuple"
echo "ok: COMPARE AND WRITE WRPROTECT=1 checks and writes the write instance's tuple"

# WRPROTECT=3 stores unchecked; a READ RDPROTECT=0 then finds the wrong
# reference tag (LBA 9 holds 8), reported with the LBA
cdb 0 "$(w10 3 9)" out "${blk2}$(crc "$blk2")000000000008"
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(10) WRPROTECT=3: $OUT"
cdb 0 "$(r10 0 9)" in 512
case $OUT in *"key=0xb asc=0x10 ascq=0x03"*) ;; *) ut_fail "READ of a wrong stored reference tag: $OUT" ;; esac
cdb 0 "$(r10 3 9)" in 520
[ "${OUT%% *}" = status=GOOD ] || ut_fail "READ RDPROTECT=3 (no check): $OUT"
echo "ok: stored tuples are checked on READ RDPROTECT=0 (10h/03h), not with RDPROTECT=3"

# type 3: any reference tag; the tuples persist in p.img.pi
t3="$(crc "$blk2")00abdeadbeef"
cdb 1 "$(w10 1 3)" out "${blk2}$t3"
[ "$OUT" = status=GOOD ] || ut_fail "type 3 WRITE with its own reference tag: $OUT"
[ -f "$UT_TMP/p.img.pi" ] || ut_fail "no p.img.pi beside the file LU"
ut_stop
ut_start "$UT_TMP/pi.json"
cdb 1 "$(r10 1 3)" in 520
d=$(data_of "READ(10) RDPROTECT=1 after a restart")
[ "${d:1024:16}" = "$t3" ] || ut_fail "type 3 tuple after a restart: ${d:1024:16}, want $t3"
echo "ok: type 3 keeps the initiator's reference tag, and the tuples outlive a restart"

cdb 2 "$(r10 1 0)" in 520
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "RDPROTECT=1 without PI: $OUT" ;; esac
echo "ok: RDPROTECT without protection information: INVALID FIELD IN CDB"

# FORMAT UNIT (SBC-4 5.3): byte 1 FMTPINFO (7-6), FMTDATA (4); the short
# parameter list header: PROTECTION FIELD USAGE in byte 0
rc16() { cdb "$1" 9e100000000000000000000000200000 in 32; d=$(data_of "READ CAPACITY(16)"); echo "${d:24:2}"; }
CDBPROBE_ISID_QUALIFIER=7 cdb 1 00000000000000 # another initiator's I_T nexus
cdb 1 044000000000
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "FMTPINFO=01b: $OUT" ;; esac
cdb 1 04d000000000 out 02000000
case $OUT in *"key=0x5 asc=0x26 ascq=0x00"*) ;; *) ut_fail "FMTPINFO=11b PFU=010b: $OUT" ;; esac
cdb 1 049000000000 out 01000000
case $OUT in *"key=0x5 asc=0x26 ascq=0x00"*) ;; *) ut_fail "FMTPINFO=10b PFU=001b: $OUT" ;; esac
cdb 2 048000000000
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "FMTPINFO=10b without PI: $OUT" ;; esac
[ "$(rc16 1)" = 15 ] || ut_fail "a refused FORMAT UNIT changed the type"
echo "ok: FORMAT UNIT refuses FMTPINFO 01b and without PROTECT (CDB), PFU beyond the type (list)"

cdb 1 04d000000000 out 00000000
[ "$OUT" = status=GOOD ] || ut_fail "FORMAT UNIT FMTPINFO=11b PFU=000b (type 2): $OUT"
[ "$(rc16 1)" = 13 ] || ut_fail "READ CAPACITY(16) after the format to type 2: $(rc16 1)"
cdb 1 "$(r10 1 3)" in 520
case $OUT in *"key=0x5 asc=0x20 ascq=0x00"*) ;; *) ut_fail "READ(10) RDPROTECT=1 on type 2: $OUT" ;; esac
echo "ok: FORMAT UNIT to type 2 (P_TYPE 001b); READ(10) with RDPROTECT then is an invalid opcode"
cdb 1 048000000000
[ "$OUT" = status=GOOD ] || ut_fail "FORMAT UNIT FMTPINFO=10b (type 1): $OUT"
[ "$(rc16 1)" = 11 ] || ut_fail "READ CAPACITY(16) after the format to type 1: $(rc16 1)"
cdb 1 "$(r10 1 3)" in 520
d=$(data_of "READ(10) RDPROTECT=1 after the format")
[ "${d:1024:16}" = ffffffffffffffff ] && [ "${d:0:1024}" = "$(block 00)" ] ||
	ut_fail "after FORMAT UNIT: ${d:1024:16}, want zeroes and the tuple FFFF_FFFF_FFFF_FFFFh"
cdb 1 "$(w10 0 3)" out "$blk"
cdb 1 "$(r10 1 3)" in 520
d=$(data_of "READ(10) RDPROTECT=1 of a generated type 1 tuple")
[ "${d:1024:16}" = "$(crc "$blk")000000000003" ] || ut_fail "type 1 generated tuple: ${d:1024:16}"
line=$(CDBPROBE_ISID_QUALIFIER=7 "$PROBE" "$(url 1)" 00000000000000)
case $line in *"ua=2a/09"*) ;; *) ut_fail "no CAPACITY DATA HAS CHANGED for the other initiator: $line" ;; esac
ls "$UT_TMP"/format-*.state >/dev/null 2>&1 || ut_fail "no format state file"
ut_stop
ut_start "$UT_TMP/pi.json"
[ "$(rc16 1)" = 11 ] || ut_fail "the type FORMAT UNIT chose did not outlive a restart: $(rc16 1)"
cdb 1 "$(r10 0 3)" in 512
[ "$OUT" = "status=GOOD data=$blk" ] || ut_fail "type 1 READ after the restart: ${OUT:0:80}"
echo "ok: FORMAT UNIT to type 1: zeroes, FFh tuples, UA 2Ah/09h elsewhere, kept over a restart"

cdb 1 041000000000 out 00000000
[ "$OUT" = status=GOOD ] || ut_fail "FORMAT UNIT FMTPINFO=00b (type 0): $OUT"
[ "$(rc16 1)" = 10 ] || ut_fail "READ CAPACITY(16) after the format to type 0: $(rc16 1)"
cdb 1 120000006000 in 96
d=$(data_of "INQUIRY")
[ $((0x${d:10:2} & 1)) = 1 ] || ut_fail "INQUIRY PROTECT (a capability) cleared by type 0"
cdb 1 "$(r10 1 3)" in 520
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "RDPROTECT=1 on type 0: $OUT" ;; esac
echo "ok: FORMAT UNIT to type 0: PROT_EN 0, PROTECT still 1, RDPROTECT refused"
ut_stop

# the type byte changed behind the checksum's back: refused, no start
f=$(ls "$UT_TMP"/format-*.state)
printf '\x03' | dd of="$f" bs=1 seek=8 conv=notrunc status=none
timeout 60 "$UTARGETD" -f -c "$UT_TMP/pi.json" --listen "127.0.0.1:$UT_PORT" \
	>"$UT_TMP/bad.log" 2>&1 && ut_fail "utargetd started over a damaged format state file"
grep -q "format state .* refused: checksum mismatch" "$UT_TMP/bad.log" ||
	{ cat "$UT_TMP/bad.log"; ut_fail "the refusal does not name the damaged file"; }
ut_sanitizer_check "$UT_TMP/bad.log"
echo "ok: a damaged format state file stops the start"
echo "pi: all checks passed"
