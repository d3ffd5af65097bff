#!/bin/bash
# rbd.sh UTARGETD UTARGET: the rbd back-store against a real one-node Ceph
# cluster (tests/ceph/cluster.sh), driven by QEMU's iSCSI driver and libiscsi
# over TCP:
#
#   qemu-img / qemu-io / iscsi-readcapacity16
#        |  iSCSI, 127.0.0.1:$UT_PORT
#   utargetd --LUN 0: rbd/disk0 (256 MiB), LUN 1 created live: rbd/disk1
#        |  librbd, librados (timeout 5 s)
#   ceph-mon + ceph-osd on 127.0.0.1 (bluestore on a sparse file)
#
# Checked: (a) qemu-img convert of 64 MiB of random data into LUN 0 and back
# is byte for byte the same, and so is `rbd export` of the image (another
# client: the data reached the cluster); (b) `rbd resize` from another
# client: READ CAPACITY(16) through the target reports the new size within
# seconds (the image's update watch, CAPACITY DATA HAS CHANGED); `utarget
# backstore show` lists the image's size, object size and features; (c)
# the OSD frozen (SIGSTOP) under a read: the read fails with an error after
# the back-store's 5 s timeout instead of hanging, utargetd stays up and its
# control socket answers meanwhile; after SIGCONT a new round trip is
# intact; (d) `utarget backstore create rbd NAME POOL/IMAGE conf=PATH`
# creates a LUN live, `backstore list --json` shows it, `backstore delete`
# removes it (the image stays in the pool).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ceph.sh"
ut_init "$1"
UTARGET=${2:?utarget}
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_ceph_start disk1 64M
# no object map on disk0: librbd then asks the OSD even for blocks never
# written (with one it answers zeroes itself), which (c) needs
ut_rbd create --size 256M --image-feature layering,exclusive-lock rbd/disk0 ||
	ut_fail "rbd create rbd/disk0 failed"
ut_pick_port
ut_write_config rbd.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "backstores": [
    { "name": "r0", "type": "rbd", "path": "rbd/disk0", "thin": true,
      "options": { "conf": "$UT_CEPH_CONF", "timeout": "5" } }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/rbd.json"
URL="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET"

# ---- (a) data through the target, and as another client sees it ----
head -c 64M /dev/urandom >"$UT_TMP/in.raw"
timeout 120 qemu-img convert -n -f raw -O raw "$UT_TMP/in.raw" "$URL/0" ||
	ut_fail "qemu-img convert into the rbd LUN failed"
timeout 120 qemu-img convert -f raw -O raw "$URL/0" "$UT_TMP/out.raw" ||
	ut_fail "qemu-img convert out of the rbd LUN failed"
cmp -n 67108864 "$UT_TMP/in.raw" "$UT_TMP/out.raw" || ut_fail "64 MiB round trip differs"
echo "ok: 64 MiB written and read back through the target, identical"
ut_rbd export rbd/disk0 - 2>/dev/null | head -c 67108864 | cmp - "$UT_TMP/in.raw" ||
	ut_fail "rbd export differs from what was written"
echo "ok: rbd export (another client) holds the same 64 MiB"

# ---- (b) a resize from another client ----
capacity() { iscsi-readcapacity16 "$URL/0" 2>/dev/null | sed -n 's/^Total size:\([0-9]*\).*/\1/p'; }
[ "$(capacity)" = 268435456 ] || ut_fail "capacity $(capacity), want 268435456"
ut_rbd resize --size 320M rbd/disk0 >/dev/null 2>&1 || ut_fail "rbd resize failed"
seen=""
for i in $(seq 1 50); do
	seen=$(capacity)
	[ "$seen" = 335544320 ] && break
	sleep 0.2
done
[ "$seen" = 335544320 ] || ut_fail "READ CAPACITY(16) says ${seen:-nothing}, want 335544320 after rbd resize"
echo "ok: rbd resize to 320 MiB seen through READ CAPACITY(16) within $((i / 5)).$((i % 5 * 2)) s"
grep -q "rbd rbd/disk0 is now 335544320 bytes" "$UT_LOG" || ut_fail "no log line for the new size"
show=$(u backstore show r0) || ut_fail "backstore show failed"
echo "$show" | grep -Eq "image_size +335544320" || ut_fail "show lacks image_size: $show"
echo "$show" | grep -Eq "object_size +4194304" || ut_fail "show lacks object_size: $show"
echo "$show" | grep -Eq "features +layering,exclusive-lock$" || ut_fail "show lacks features: $show"
echo "ok: backstore show lists the image's size, object size and features"

# ---- (c) the cluster stops answering under I/O ----
ut_ceph_freeze
t0=$SECONDS
timeout 60 qemu-io -f raw -c "read 200M 1M" "$URL/0" >"$UT_TMP/frozen.out" 2>&1 &
reader=$!
sleep 1
kill -0 "$UT_PID" || ut_fail "utargetd died with the OSD frozen"
u backstore list >/dev/null || ut_fail "the control socket does not answer with the OSD frozen"
echo "ok: utargetd answers its control socket while the OSD is frozen"
wait "$reader"
rc=$?
took=$((SECONDS - t0))
[ "$rc" != 124 ] || ut_fail "the read hung for 60 s (no timeout)"
grep -q "read failed" "$UT_TMP/frozen.out" || ut_fail "the read did not fail: $(cat "$UT_TMP/frozen.out")"
echo "ok: a read with the OSD frozen failed after $took s: $(grep -o 'SENSE KEY:[A-Z_]*' "$UT_TMP/frozen.out" | head -1)"
ut_ceph_thaw
head -c 8M /dev/urandom >"$UT_TMP/in2.raw"
ok=""
for i in $(seq 1 30); do
	if timeout 60 qemu-img convert -n -f raw -O raw "$UT_TMP/in2.raw" "$URL/0" 2>/dev/null &&
		timeout 60 qemu-img convert -f raw -O raw "$URL/0" "$UT_TMP/out2.raw" 2>/dev/null &&
		cmp -s -n 8388608 "$UT_TMP/in2.raw" "$UT_TMP/out2.raw"; then
		ok=1
		break
	fi
	sleep 1
done
[ -n "$ok" ] || ut_fail "no intact round trip within 30 s of the OSD's return"
echo "ok: the OSD back: an 8 MiB round trip is intact"

# ---- (d) the CLI ----
u backstore create rbd r1 rbd/disk1 "conf=$UT_CEPH_CONF" timeout=5 thin=true >/dev/null ||
	ut_fail "backstore create rbd failed"
u lun add "$UT_TARGET" r1 1 >/dev/null || ut_fail "lun add failed"
json=$(u --json backstore list) || ut_fail "backstore list --json failed"
echo "$json" | python3 -c '
import json, sys
bs = {b["name"]: b for b in json.load(sys.stdin)}
r1 = bs["r1"]
assert r1["type"] == "rbd" and r1["path"] == "rbd/disk1", r1
assert r1["options"] == {"conf": sys.argv[1], "timeout": "5"}, r1["options"]
assert r1["current_size"] == 64 << 20, r1
assert r1["medium"]["object_size"] == "4194304", r1["medium"]
' "$UT_CEPH_CONF" || ut_fail "backstore list --json: $json"
echo "ok: utarget backstore create rbd made r1 (64 MiB, options conf and timeout)"
[ "$(iscsi-readcapacity16 "$URL/1" 2>/dev/null | sed -n 's/^Total size:\([0-9]*\).*/\1/p')" = 67108864 ] ||
	ut_fail "LUN 1 does not read 64 MiB"
u lun delete "$UT_TARGET" 1 >/dev/null || ut_fail "lun delete failed"
u backstore delete r1 >/dev/null || ut_fail "backstore delete failed"
u backstore list | grep -qw r1 && ut_fail "r1 is still listed"
ut_rbd info rbd/disk1 >/dev/null 2>&1 || ut_fail "the image went with the back-store"
echo "ok: backstore delete removed r1; the image rbd/disk1 stays"
ut_stop
echo "PASS rbd"
