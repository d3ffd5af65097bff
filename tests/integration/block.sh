#!/bin/bash
# block.sh UTARGETD UTARGET: the block back-store (issue 14) on loop devices
# the test makes, created and changed with the CLI, read and written by real
# initiators (libiscsi's tools, qemu-img).
#
#   qemu-img / iscsi-readcapacity16        utargetd (127.0.0.1:PORT)
#        |  iSCSI                            LUN 1 blk4k -> /dev/loopA
#        +---------------------------------> (4096-byte sectors, thin)
#                                            LUN 2 blkro -> /dev/loopB
#                                            (512-byte sectors, losetup -r)
#
#   - the LU takes the device's logical block size (4096) and size;
#   - what an initiator writes is on the device (cmp against the device
#     node), and reads back the same;
#   - the device grown underneath (truncate + losetup -c) shows its new
#     capacity within about a second, with CAPACITY DATA HAS CHANGED;
#   - a read-only device is exported write protected: a write is refused;
#   - refusals: a regular file, a size, block_size not a multiple of the
#     device's.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?usage: block.sh UTARGETD UTARGET}
command -v losetup >/dev/null || ut_fail "losetup not installed (mount)"
command -v qemu-img >/dev/null || ut_fail "qemu-img not installed"

loops=()
trap 'ut_cleanup; for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done' EXIT

truncate -s 64M "$UT_TMP/a.img"
truncate -s 32M "$UT_TMP/b.img"
A=$(losetup -f --show --sector-size 4096 "$UT_TMP/a.img") || ut_fail "losetup A"
loops+=("$A")
B=$(losetup -f --show -r "$UT_TMP/b.img") || ut_fail "losetup B"
loops+=("$B")

ut_pick_port
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }
ut_write_config blk.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "backstores": [ { "name": "seed", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "seed" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/blk.json"
URL=iscsi://127.0.0.1:$UT_PORT/$UT_TARGET

# ---- refusals ----
truncate -s 8M "$UT_TMP/plain.img"
out=$(u backstore create block bad "$UT_TMP/plain.img" 2>&1) && ut_fail "a regular file was taken: $out"
echo "$out" | grep -q "not a block device\|Block device required" || ut_fail "refusal of a file: $out"
out=$(u backstore create block bad "$A" size=1M 2>&1) && ut_fail "a size was taken: $out"
echo "$out" | grep -q "not used by type block" || ut_fail "refusal of a size: $out"
out=$(u backstore create block bad "$A" block_size=512 2>&1) && ut_fail "block_size 512 on 4096: $out"
echo "$out" | grep -q "not a multiple of the 4096-byte" || ut_fail "refusal of block_size: $out"
echo "ok: a file, a size and a block size below the device's are refused with the reason"

# ---- the 4096-byte device ----
u backstore create block blk4k "$A" thin=true >/dev/null || ut_fail "create blk4k"
u lun add "$UT_TARGET" blk4k 1 >/dev/null || ut_fail "lun add blk4k"
rc16=$(iscsi-readcapacity16 "$URL/1" 2>&1) || ut_fail "READ CAPACITY(16): $rc16"
echo "$rc16" | grep -qx "LOGICAL BLOCK LENGTH IN BYTES:4096" || ut_fail "block length: $rc16"
echo "$rc16" | grep -qx "RETURNED LOGICAL BLOCK ADDRESS:16383" || ut_fail "capacity: $rc16"
echo "$rc16" | grep -qx "LBPME:1 LBPRZ:1" || ut_fail "LBPME: $rc16"
u backstore list >"$UT_TMP/list.out" || ut_fail "backstore list"
grep -E "^blk4k +block .*$A" "$UT_TMP/list.out" >/dev/null || ut_fail "list: $(cat "$UT_TMP/list.out")"
echo "ok: the LU has the device's 4096-byte blocks and 64 MiB, thin; listed with its device"

head -c 16M /dev/urandom >"$UT_TMP/data"
qemu-img convert -n -f raw -O raw "$UT_TMP/data" "$URL/1" || ut_fail "qemu-img write"
cmp -n $((16 << 20)) "$UT_TMP/data" "$A" || ut_fail "the device does not hold what was written"
qemu-img convert -f raw -O raw "$URL/1" "$UT_TMP/back" || ut_fail "qemu-img read"
cmp -n $((16 << 20)) "$UT_TMP/data" "$UT_TMP/back" || ut_fail "read back differs"
echo "ok: 16 MiB written through iSCSI are on the device and read back the same"

# grown underneath: 64 -> 96 MiB
truncate -s 96M "$UT_TMP/a.img"
losetup -c "$A" || ut_fail "losetup -c"
sleep 1.2
rc16=$(iscsi-readcapacity16 "$URL/1" 2>&1)
# a new session: its first command may see the unit attention; ask again
echo "$rc16" | grep -qx "RETURNED LOGICAL BLOCK ADDRESS:24575" ||
	rc16=$(iscsi-readcapacity16 "$URL/1" 2>&1)
echo "$rc16" | grep -qx "RETURNED LOGICAL BLOCK ADDRESS:24575" || ut_fail "after the resize: $rc16"
grep -q "lu blk4k: the medium now holds 24576 blocks of 4096 bytes" "$UT_LOG" ||
	ut_fail "no log of the capacity change"
echo "ok: the device grown to 96 MiB underneath is seen (24576 blocks), the change logged"

# ---- the read-only device ----
u backstore create block blkro "$B" >/dev/null || ut_fail "create blkro"
u lun add "$UT_TARGET" blkro 2 >/dev/null || ut_fail "lun add blkro"
grep -q "is read-only: exported write protected" "$UT_LOG" || ut_fail "read-only not noticed"
rc16=$(iscsi-readcapacity16 "$URL/2" 2>&1) || ut_fail "READ CAPACITY(16) of blkro: $rc16"
echo "$rc16" | grep -qx "LOGICAL BLOCK LENGTH IN BYTES:512" || ut_fail "blkro block length: $rc16"
head -c 1M /dev/urandom >"$UT_TMP/small"
qemu-img convert -n -f raw -O raw "$UT_TMP/small" "$URL/2" 2>"$UT_TMP/ro.err" &&
	ut_fail "a write to the read-only device succeeded"
qemu-img convert -f raw -O raw "$URL/2" "$UT_TMP/roback" || ut_fail "read of blkro"
cmp "$UT_TMP/roback" "$UT_TMP/b.img" || ut_fail "blkro reads back wrong"
echo "ok: a read-only device is exported write protected (write refused, reads fine)"

u lun delete "$UT_TARGET" 1 >/dev/null && u backstore delete blk4k >/dev/null ||
	ut_fail "delete blk4k"
ut_stop
echo "PASS block"
