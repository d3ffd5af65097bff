#!/bin/bash
# diag.sh UTARGETD SENSEPROBE: SEND DIAGNOSTIC self-tests and FORMAT UNIT
# end to end, through a real initiator (libiscsi, senseprobe's cdb mode) and
# the file back-store's own I/O path (io_uring or the worker pool):
#  - the default self-test passes on a file LU; the Self-Test Results page
#    (10h) read back over iSCSI decodes with sg_logs --in as "default",
#    "completed without error";
#  - a background extended self-test of 256 MiB returns at once, TEST UNIT
#    READY stays GOOD while REQUEST SENSE reports NOT READY / SELF-TEST IN
#    PROGRESS with a progress indication, and it ends "completed";
#  - on a LU over the fault back-store (its last block unreadable) the
#    foreground short test fails with HARDWARE ERROR / LOGICAL UNIT FAILED
#    SELF-TEST, and sg_logs reads result 5h, LBA 7fffh, Medium Error;
#  - FORMAT UNIT with IMMED (FMTDATA=1, short header) returns at once and
#    the written blocks read as zeroes once TEST UNIT READY is GOOD again.
# sg3-utils cannot reach the target here (no kernel initiator), so its
# decoder reads the bytes libiscsi brought back; without sg_logs those
# checks are skipped. Ports 3900-3949.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: diag.sh UTARGETD SENSEPROBE}
UT_PORT_MIN=3900 UT_PORT_MAX=3949 ut_pick_port

ut_write_config diag.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@/state",
  "backstores": [
    { "name": "disk", "type": "file", "path": "@TMP@/disk.img", "size": "256M",
      "create": true },
    { "name": "bad", "type": "ram", "size": "16M",
      "fault": { "read_error_lbas": [32767] } }
  ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:diag",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "disk" }, { "lun": 1, "backstore": "bad" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/diag.json"
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:diag

# cmd LUN CDB_HEX [in LEN | out HEX]: the output of one command in OUT (a
# unit attention, the first command of a session may meet, is repeated)
cmd() {
	local lun=$1 try
	shift
	for try in 1 2 3; do
		OUT=$("$PROBE" "$url/$lun" cdb "$@") || ut_fail "senseprobe $lun $*: $OUT"
		case $OUT in *"key=0x6 "*) continue ;; esac
		return 0
	done
}
# expect WHAT WORD...: every word is in OUT
expect() {
	local what=$1 w
	shift
	for w in "$@"; do
		case " ${OUT//$'\n'/ } " in *" $w "* | *" $w"*) ;; *) ut_fail "$what: got '$OUT', want $*" ;; esac
	done
	echo "ok: $what: ${OUT%%$'\n'*}"
}
# REQUEST SENSE (fixed, 18 bytes) of LUN $1: the sense bytes' hex in SENSE
request_sense() {
	cmd "$1" 030000001200 in 18
	SENSE=${OUT##*data=}
}
# LOG SENSE page 10h of LUN $1 decoded by sg_logs (when installed) into LOG
log10() {
	cmd "$1" 4d005000000000019400 in 404
	expect "LOG SENSE 10h" status=GOOD
	LOG=""
	if command -v sg_logs >/dev/null; then
		echo "${OUT##*data=}" | sed 's/../& /g' >"$UT_TMP/p10.hex"
		LOG=$(sg_logs --in="$UT_TMP/p10.hex" 2>&1)
	fi
}
# expect_log STRING...: sg_logs printed every string (skipped without it)
expect_log() {
	local s
	command -v sg_logs >/dev/null || { echo "skip: sg_logs not installed"; return; }
	for s in "$@"; do
		grep -qF -- "$s" <<<"$LOG" || ut_fail "sg_logs: no \"$s\" in: $LOG"
	done
	echo "ok: sg_logs: $*"
}

# the default self-test of a file LU
cmd 0 1d0400000000
expect "default self-test" status=GOOD
log10 0
expect_log "Parameter code = 1, accumulated power-on hours = 1" "self-test code: default [0]" \
	"self-test result: completed without error [0]"

# background extended: 256 MiB at 256 MiB/s, about a second
cmd 0 1d4000000000
expect "background extended self-test" status=GOOD
cmd 0 000000000000
expect "TEST UNIT READY during a background test" status=GOOD
request_sense 0
# fixed format: byte 2 the sense key, 12-13 ASC/ASCQ, 15 SKSV
[ "${SENSE:4:2}/${SENSE:24:4}/${SENSE:30:2}" = 02/0409/80 ] ||
	ut_fail "REQUEST SENSE during the background test: $SENSE"
echo "ok: REQUEST SENSE: self-test in progress, progress ${SENSE:32:4}h"

for ((i = 0; i < 100; i++)); do
	request_sense 0
	[ "${SENSE:4:2}" = 00 ] && break
	sleep 0.1
done
[ "${SENSE:4:2}" = 00 ] || ut_fail "still running: $SENSE"
echo "ok: the background test ended"
log10 0
expect_log "self-test code: background extended [2]" \
	"self-test result: completed without error [0]"

# a failing back-store: the last block of LUN 1 cannot be read
cmd 1 1da000000000
expect "foreground short self-test over a bad block" status=CHECK key=0x4 asc=0x3e ascq=0x03
log10 1
expect_log "self-test code: foreground short [5]" "first segment in self test failed [5]" \
	"address of first error = 0x7fff" "Medium Error"

# FORMAT UNIT, FMTDATA=1, short header with IMMED
cmd 0 8a000000000000000000000000010000 out "$(printf '5a%.0s' $(seq 512))"
expect "WRITE(16) of a pattern" status=GOOD
cmd 0 041000000000 out 00020000
expect "FORMAT UNIT IMMED" status=GOOD
# while it runs, TEST UNIT READY gets NOT READY / FORMAT IN PROGRESS with a
# progress indication; libiscsi's own TEST UNIT READY at login gets it too
# and refuses to connect (senseprobe exits 2 naming that sense)
for ((i = 0; i < 300; i++)); do
	OUT=$("$PROBE" "$url/0" cdb 000000000000 2>&1)
	case $OUT in
	*status=GOOD*) break ;;
	*"key=0x2 asc=0x04 ascq=0x04"*" sks=0x8"* | *"login: SENSE KEY:NOT READY(2)"*"(0x0404)"*)
		echo "ok: format in progress: $OUT" ;;
	*) ut_fail "TEST UNIT READY during FORMAT UNIT: $OUT" ;;
	esac
	sleep 0.1
done
expect "TEST UNIT READY after FORMAT UNIT" status=GOOD
cmd 0 88000000000000000000000000010000 in 512
expect "READ(16) after FORMAT UNIT" status=GOOD
case ${OUT##*data=} in *[1-9a-f]*) ut_fail "block 0 is not zero after FORMAT UNIT" ;; esac
echo "ok: block 0 reads as zeroes"
ut_stop
echo "diag: all checks passed"
