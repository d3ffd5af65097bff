#!/bin/bash
# lbp_threshold.sh UTARGETD CDBPROBE: thin provisioning soft thresholds
# (SBC-4 4.7.3.8; src/scsi/lbp_threshold.c) over iSCSI with real
# initiators: cdbprobe (libiscsi) configures and reads, qemu-io writes.
#
#   cdbprobe --\                       thin file LUN (64 MiB, sparse, in the
#               utargetd :PORT ------  test's directory); state_dir for the
#   qemu-io  --/                       saved Logical Block Provisioning page
#
#  - VPD B2h THRESHOLD EXPONENT 11 (1 MiB sets); log page 0Ch USED count U;
#  - MODE SELECT(10) SP=1 of page 1Ch/02h: USED armed increasing at U+2;
#  - qemu-io writes 4 MiB: the next command of the other nexus gets THIN
#    PROVISIONING SOFT THRESHOLD REACHED (6h/38h/07h);
#  - after a restart the saved threshold is back and notifies again.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: lbp_threshold.sh UTARGETD CDBPROBE}
command -v qemu-io >/dev/null || ut_fail "qemu-io (qemu-utils) is missing"
ut_pick_port
# cdbprobe runs are one initiator port (one ISID), so they see what was
# established for it meanwhile; each reports the unit attentions it meets
# (ua=AA/QQ) and sends its CDB again in the same session
export CDBPROBE_UA=1 CDBPROBE_ISID_QUALIFIER=7

ut_write_config thr.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@/state",
  "backstores": [ { "name": "disk", "type": "file", "path": "thin.img", "size": "64M",
                    "create": true, "thin": true } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:thr",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "disk" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:thr/0

# cdb ARGS...: cdbprobe's line in $OUT without the unit attentions, which
# are added to $UAS ("AA/QQ ...")
UAS=
cdb() {
	local line u
	line=$("$PROBE" "$url" "$@") || ut_fail "cdbprobe $*: $line"
	OUT=${line##*ua=??/?? }
	for u in ${line%"$OUT"}; do UAS="$UAS ${u#ua=}"; done
	case $OUT in *"key=0x6 "*) ut_fail "cdbprobe $*: still a unit attention: $line" ;; esac
}
good_data() {
	case $OUT in status=GOOD*) DATA=${OUT#*data=} ;; *) ut_fail "$1: $OUT" ;; esac
}

ut_start "$UT_TMP/thr.json"

cdb 1201b2004000 in 64
good_data "INQUIRY VPD B2h"
[ "${DATA:8:2}" = 0b ] || ut_fail "THRESHOLD EXPONENT: want 0bh, got ${DATA:8:2}h"
echo "ok: VPD B2h THRESHOLD EXPONENT 11 (1 MiB threshold sets)"

# LOG SENSE 0Ch: parameter 0002h USED LBA MAPPING RESOURCE COUNT
cdb 4d004c00000000010000 in 256
good_data "LOG SENSE 0Ch"
used=$((0x${DATA:40:8}))
echo "ok: log page 0Ch: $used MiB used"

# MODE SENSE(10) 1Ch/02h current, then SP=1 with descriptor 2 (used)
# enabled, armed increasing, count used + 2
cdb 5a081c02000000010000 in 256
good_data "MODE SENSE 1Ch/02h"
page=${DATA:16:64}
[ "${page:0:8}" = dc02001c ] || ut_fail "page 1Ch/02h header: ${page:0:8} (PS 1, SPF, length 1Ch)"
count=$(printf %08x $((used + 2)))
page=5c02001c${page:8:40}81${page:50:6}$count
cdb 55110000000000002800 out "0000000000000000$page"
[ "$OUT" = status=GOOD ] || ut_fail "MODE SELECT SP=1 1Ch/02h: $OUT (sent 0000000000000000$page; sense gave $DATA)"
echo "ok: MODE SELECT SP=1: used-resources threshold at $((used + 2)) MiB"

UAS=
qemu-io -f raw -c "write -P 0x5a 0 4M" "$url" >/dev/null || ut_fail "qemu-io write"
# the writes may be split; evaluations are at most every 250 ms: one more
# small write past that interval sees the space the 4 MiB took
sleep 0.3
qemu-io -f raw -c "write -P 0x5a 4M 4k" "$url" >/dev/null || ut_fail "qemu-io write"
cdb 000000000000
[ "$OUT" = status=GOOD ] || ut_fail "TEST UNIT READY: $OUT"
case " $UAS " in *" 38/07 "*) ;; *) ut_fail "no THIN PROVISIONING SOFT THRESHOLD REACHED (seen:$UAS)" ;; esac
echo "ok: 4 MiB written -> 6h/38h/07h THIN PROVISIONING SOFT THRESHOLD REACHED"

ut_stop
ut_start "$UT_TMP/thr.json"
cdb 5a081c02000000010000 in 256
good_data "MODE SENSE 1Ch/02h after restart"
[ "${DATA:64:2}" = 81 ] && [ "${DATA:72:8}" = "$count" ] ||
	ut_fail "saved threshold not back after a restart: ${DATA:16:64}"
UAS=
qemu-io -f raw -c "write -P 0x33 8M 64k" "$url" >/dev/null || ut_fail "qemu-io write"
cdb 000000000000
case " $UAS " in *" 38/07 "*) ;; *) ut_fail "no notification after a restart (seen:$UAS)" ;; esac
echo "ok: after a restart the saved threshold is armed and notifies again"
ut_stop
echo "lbp_threshold: all checks passed"
