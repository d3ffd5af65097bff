#!/bin/bash
# pi_type2.sh UTARGETD RAWCDB: T10 protection information type 2 (SBC-4
# 4.22.2.4; scsi/sbc_cdb32.c, sbc_pi.c) over iSCSI, the 32-byte CDBs sent by
# the project's raw initiator (rawcdb: Extended CDB AHS), the guards
# computed here bit by bit (CRC-16 T10-DIF):
#
#   rawcdb --- utargetd :PORT --- LUN 0: ram, protection 2
#                              --- LUN 1: ram, protection 1
#
#  - READ CAPACITY(16) P_TYPE 001b + PROT_EN, VPD 86h SPT 111b with
#    GRD_CHK/APP_CHK/REF_CHK;
#  - WRITE(32) WRPROTECT=1 with tuples whose reference tags start at the
#    CDB's EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG (not the LBA);
#    READ(32) RDPROTECT=1 returns them as sent;
#  - READ(32) with a wrong expected reference tag: ABORTED COMMAND 10h/03h,
#    INFORMATION the LBA; an application tag that differs under the mask:
#    10h/02h; the same tag outside the mask passes;
#  - READ(10) with RDPROTECT=1 on type 2: INVALID COMMAND OPERATION CODE;
#  - READ(32) on the type 1 LU: INVALID COMMAND OPERATION CODE; ADDITIONAL
#    CDB LENGTH other than 18h: INVALID FIELD IN CDB.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RAW=${2:?usage: pi_type2.sh UTARGETD RAWCDB}
ut_pick_port
T=iqn.2026-12.org.utarget:pi2

ut_write_config pi2.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "p2", "type": "ram", "size": "8M", "protection": 2 },
                  { "name": "p1", "type": "ram", "size": "8M", "protection": 1 } ],
  "targets": [
    { "name": "$T",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "p2" }, { "lun": 1, "backstore": "p1" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
# cdb LUN ARGS...: rawcdb's line in $OUT
cdb() {
	local lun=$1
	shift
	OUT=$("$RAW" "127.0.0.1:$UT_PORT" "$T" "$lun" "$@") || ut_fail "rawcdb $*: $OUT"
}
data_of() { case $OUT in status=GOOD*) echo "${OUT#*data=}" ;; *) ut_fail "$1: $OUT" ;; esac; }
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
# c32 SA PROTECT LBA BLOCKS REF APP MASK: the 32-byte CDB (SBC-4 5.16/5.42)
c32() {
	printf '7f0000000000001800%02x%02x00%016x%08x%04x%04x%08x' \
		"$1" $(($2 << 5)) "$3" "$5" "$6" "$7" "$4"
}
r10() { printf '28%02x%08x000001%02x' $(($1 << 5)) "$2" 0; }

ut_start "$UT_TMP/pi2.json"

cdb 0 9e100000000000000000000000200000 in 32
d=$(data_of "READ CAPACITY(16)")
[ "${d:24:2}" = 13 ] || ut_fail "READ CAPACITY(16) byte 12: ${d:24:2}, want 13h (P_TYPE 1: type 2, PROT_EN)"
cdb 0 120186004000 in 64
d=$(data_of "VPD 86h")
[ "${d:8:2}" = 3f ] || ut_fail "VPD 86h byte 4: ${d:8:2}, want 3fh (SPT 111b, GRD_CHK, APP_CHK, REF_CHK)"
echo "ok: READ CAPACITY(16) and VPD 86h report type 2"

# two blocks at LBA 16, reference tags 0xbeef0000 and 0xbeef0001, application tag 5a00h
b0=$(block 11)
b1=$(block 22)
t0="$(crc "$b0")5a00beef0000"
t1="$(crc "$b1")5a00beef0001"
cdb 0 "$(c32 0x0b 1 16 2 0xbeef0000 0x5a00 0xffff)" out "$b0$t0$b1$t1"
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(32) WRPROTECT=1: $OUT"
cdb 0 "$(c32 0x09 1 16 2 0xbeef0000 0x5a00 0xffff)" in 1040
d=$(data_of "READ(32) RDPROTECT=1")
[ "$d" = "$b0$t0$b1$t1" ] || ut_fail "READ(32) RDPROTECT=1: not the blocks and tuples written"
echo "ok: WRITE(32) stores tuples tagged from the CDB's expected reference tag; READ(32) returns them"

cdb 0 "$(c32 0x09 0 16 2 0xbeef0001 0 0)" in 1024
case $OUT in *"key=0xb asc=0x10 ascq=0x03 info=0x10"*) ;; *) ut_fail "wrong expected reference tag: $OUT" ;; esac
cdb 0 "$(c32 0x09 1 17 1 0xbeef0001 0 0)" in 520
[ "${OUT%% *}" = status=GOOD ] || ut_fail "READ(32) of LBA 17 with its own tag: $OUT"
echo "ok: a wrong EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG is 10h/03h with the LBA"

cdb 0 "$(c32 0x09 1 16 2 0xbeef0000 0x5b00 0xff00)" in 1040
case $OUT in *"key=0xb asc=0x10 ascq=0x02 info=0x10"*) ;; *) ut_fail "application tag under mask: $OUT" ;; esac
cdb 0 "$(c32 0x09 1 16 2 0xbeef0000 0x5b00 0x00ff)" in 1040
[ "${OUT%% *}" = status=GOOD ] || ut_fail "application tag outside the mask: $OUT"
echo "ok: the application tag is compared under LOGICAL BLOCK APPLICATION TAG MASK (10h/02h)"

cdb 0 "$(r10 1 16)" in 520
case $OUT in *"key=0x5 asc=0x20 ascq=0x00"*) ;; *) ut_fail "READ(10) RDPROTECT=1 on type 2: $OUT" ;; esac
cdb 0 "$(r10 0 16)" in 512
[ "$(data_of "READ(10) RDPROTECT=0")" = "$b0" ] || ut_fail "READ(10) RDPROTECT=0 on type 2"
echo "ok: READ(10) takes RDPROTECT 000b only on type 2 (else INVALID COMMAND OPERATION CODE)"

cdb 1 "$(c32 0x09 0 0 1 0 0 0)" in 512
case $OUT in *"key=0x5 asc=0x20 ascq=0x00"*) ;; *) ut_fail "READ(32) on type 1: $OUT" ;; esac
bad=$(c32 0x09 0 0 1 0 0 0)
cdb 0 "${bad:0:14}10${bad:16}" in 512
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "ADDITIONAL CDB LENGTH 10h: $OUT" ;; esac
echo "ok: READ(32) needs type 2 (20h/00h) and ADDITIONAL CDB LENGTH 18h (24h/00h)"
ut_stop
echo "pi_type2: all checks passed"
