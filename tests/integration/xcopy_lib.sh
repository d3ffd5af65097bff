# xcopy_lib.sh: EXTENDED COPY(LID4) through cdbprobe (sourced). The caller
# sets PROBE (the cdbprobe binary) and defines url LUN (the LUN's iscsi://
# URL); then:
#   cdb LUN HEXCDB [in N | out HEXDATA]  cdbprobe's line in $OUT (unit
#                                        attentions dropped)
#   data_of WHAT                         the Data-In of a GOOD $OUT, hex
#   hex BYTE COUNT                       COUNT bytes of value BYTE, hex
#   naa LUN                              the LUN's NAA designation descriptor
#   cscd NAA                             an E4h CSCD descriptor (512-byte blocks)
#   lid4_hdr LISTID CSCD_BYTES SEG_BYTES the LID4 parameter list header
#   seg SRC DST BLOCKS SRCLBA DSTLBA     a 02h block-to-block segment
#   xcopy4 LIST                          EXTENDED COPY(LID4) to LUN 0
# cdb LUN ARGS...: cdbprobe's line in $OUT, unit attentions dropped
cdb() {
	local lun=$1 line
	shift
	line=$("$PROBE" "$(url "$lun")" "$@") || ut_fail "cdbprobe $*: $line"
	OUT=${line##*ua=??/?? }
}
data_of() { case $OUT in status=GOOD*) echo "${OUT#*data=}" ;; *) ut_fail "$1: $OUT" ;; esac; }
# hex BYTE COUNT: COUNT bytes of value BYTE, hex
hex() { python3 -c 'import sys; print(bytes([int(sys.argv[1], 16)]).hex() * int(sys.argv[2]))' "$1" "$2"; }
# naa LUN: the NAA designation descriptor (20 bytes, hex) of VPD 83h
naa() {
	cdb "$1" 12018300ff00 in 255
	python3 -c '
import sys
d = bytes.fromhex(sys.argv[1])
off, end = 4, 4 + int.from_bytes(d[2:4], "big")
while off + 4 <= end:
    if d[off + 1] & 0x30 == 0 and d[off + 1] & 0x0f == 3 and d[off + 3] == 16:
        print(d[off:off + 20].hex()); break
    off += 4 + d[off + 3]
else:
    sys.exit(1)' "$(data_of "VPD 83h LUN $1")" || ut_fail "no NAA designator for LUN $1"
}
# E4h CSCD descriptor of a 512-byte block device with designator $1
cscd() { printf 'e4000000%s0000000000000200' "$1"; }
# LID4 header (SPC-4 6.4.2): LIST ID USAGE 00b, list identifier $1, CSCD
# list $2 bytes, segment list $3 bytes
lid4_hdr() {
	printf '01000020%s00%s000000%08x%s%04x%04x0000' "$(hex 00 11)" ff "$1" "$(hex 00 18)" "$2" "$3"
}
# 02h segment: CSCD $1 -> $2, $3 blocks, source LBA $4, destination LBA $5
seg() { printf '02000018%04x%04x0000%04x%016x%016x' "$1" "$2" "$3" "$4" "$5"; }
xcopy4() {
	local list=$1
	cdb 0 "$(printf '83010000000000000000%08x0000' $((${#list} / 2)))" out "$list"
}

