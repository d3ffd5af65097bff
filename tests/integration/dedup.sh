#!/bin/bash
# dedup.sh UTARGETD UTARGET CDBPROBE: the dedup back-store, two volumes of
# one store, driven by QEMU's iSCSI driver and libiscsi (cdbprobe) over TCP:
#
#   qemu-img convert / compare
#        |  iSCSI, 127.0.0.1:$UT_PORT
#   utargetd --LUN 0: d1 (256 MiB) --\
#            LUN 1: d2 (256 MiB) ----+--> store $UT_TMP/store: chunks.dat + journal
#            d3 created live --------/
#
# Checked: (a) the same 256 MiB of random data written into both LUNs reads
# back byte for byte from each, and the store holds it once: chunks.dat
# allocates at most 256 MiB + 1 MiB, `backstore show --json` gives
# store_unique_bytes 256 MiB, store_logical_bytes 512 MiB, dedup_ratio
# 2.00, and /metrics the same as utarget_backstore_medium; (b) `utarget backstore check` finds 0 leaked, missing, corrupt
# chunks and 0 reference counts off; (c) after a restart both LUNs still
# read back the image; (d) UNMAP of all of d1 (blkdiscard-like: qemu-img's
# zero write with unmap) leaves d2 whole and, once committed, the store
# holds one copy; (e) `utarget backstore create dedup d3 STORE 64M` creates
# a volume live in the same store, `backstore list --json` shows it,
# `backstore delete` removes it; (f) EXTENDED COPY(LID4) of 8 blocks from
# LUN 1 to LUN 0, 4 KiB aligned, is a reference copy: the data reads back,
# and the store neither wrote a chunk nor hashed one (chunk_bytes_written
# and chunks_deduplicated unchanged).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?utarget}
PROBE=${3:?cdbprobe}
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }
MIB=1048576

ut_pick_port
ut_pick_port2
ut_write_config dedup.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "metrics": { "listen": "127.0.0.1:@PORT2@" },
  "backstores": [
    { "name": "d1", "type": "dedup", "path": "store", "size": "256M", "thin": true },
    { "name": "d2", "type": "dedup", "path": "store", "size": "256M", "thin": true }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d1" }, { "lun": 1, "backstore": "d2" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/dedup.json"
URL="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET"

# one medium fact of a back-store, from `backstore show --json`
fact() { # name key
	u --json backstore show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["medium"][sys.argv[1]])' "$2"
}
# every fault the store's fsck counts is 0
check_clean() { # what
	local out
	out=$(u --json backstore check d1) || ut_fail "utarget backstore check failed ($1): $out"
	python3 - "$out" <<'PY' || ut_fail "backstore check ($1) found faults: $out"
import json, sys
c = json.loads(sys.argv[1])["check"]
sys.exit(any(c[k] for k in ("leaked", "missing", "corrupt", "ref_mismatch")))
PY
	echo "ok: backstore check ($1): $(echo "$out" | python3 -c 'import json,sys; c=json.load(sys.stdin)["check"]; print("%d live chunks, %d mapped, 0 leaked, 0 missing, 0 corrupt, 0 ref_mismatch" % (c["live_chunks"], c["logical_chunks"]))')"
}

# ---- (a) one image into two LUNs ----
head -c 256M /dev/urandom >"$UT_TMP/in.raw"
for lun in 0 1; do
	timeout 300 qemu-img convert -n -f raw -O raw "$UT_TMP/in.raw" "$URL/$lun" ||
		ut_fail "qemu-img convert into LUN $lun failed"
done
for lun in 0 1; do
	timeout 300 qemu-img compare -f raw -F raw "$UT_TMP/in.raw" "$URL/$lun" >/dev/null ||
		ut_fail "LUN $lun does not read back the image"
done
echo "ok: the same 256 MiB written into LUN 0 and LUN 1 read back identical from both"
# what the store allocates: one copy (+ the header chunk, + what the file
# system rounds)
used=$(($(stat -c '%b * %B' "$UT_TMP/store/chunks.dat")))
[ "$used" -le $((257 * MIB)) ] || ut_fail "chunks.dat allocates $used bytes for two copies of 256 MiB"
[ "$used" -ge $((256 * MIB)) ] || ut_fail "chunks.dat allocates only $used bytes: where is the data?"
[ "$(fact d1 store_unique_bytes)" = $((256 * MIB)) ] || ut_fail "store_unique_bytes $(fact d1 store_unique_bytes)"
[ "$(fact d2 store_logical_bytes)" = $((512 * MIB)) ] || ut_fail "store_logical_bytes $(fact d2 store_logical_bytes)"
[ "$(fact d1 dedup_ratio)" = 2.00 ] || ut_fail "dedup_ratio $(fact d1 dedup_ratio), want 2.00"
echo "ok: two LUNs of 256 MiB each take $((used / MIB)) MiB in chunks.dat; dedup_ratio $(fact d1 dedup_ratio)," \
	"$(($(fact d1 chunks_deduplicated))) chunk writes found their chunk stored"

# and in the Prometheus exposition
curl -sf "http://127.0.0.1:$UT_PORT2/metrics" >"$UT_TMP/metrics.txt" || ut_fail "GET /metrics failed"
grep -qx 'utarget_backstore_medium{backstore="d2",fact="dedup_ratio"} 2.00' "$UT_TMP/metrics.txt" &&
	grep -qx "utarget_backstore_medium{backstore=\"d1\",fact=\"store_unique_bytes\"} $((256 * MIB))" "$UT_TMP/metrics.txt" ||
	ut_fail "/metrics lacks the store's ratio or unique bytes: $(grep backstore_medium "$UT_TMP/metrics.txt")"
echo "ok: /metrics: utarget_backstore_medium gives dedup_ratio 2.00 and store_unique_bytes"

# ---- (b) the store's fsck ----
check_clean "after the writes"

# ---- (c) a restart ----
ut_stop
ut_start "$UT_TMP/dedup.json"
for lun in 0 1; do
	timeout 300 qemu-img compare -f raw -F raw "$UT_TMP/in.raw" "$URL/$lun" >/dev/null ||
		ut_fail "LUN $lun does not read back the image after a restart"
done
echo "ok: both LUNs read back the image after a restart"
check_clean "after the restart"

# ---- (d) UNMAP all of d1 ----
# qemu-io's write -z -u: WRITE SAME(16) with UNMAP over the whole LUN
timeout 120 qemu-io -f raw -c "write -z -u 0 256M" "$URL/0" >/dev/null ||
	ut_fail "qemu-io write -z -u on LUN 0 failed"
timeout 300 qemu-img compare -f raw -F raw "$UT_TMP/in.raw" "$URL/1" >/dev/null ||
	ut_fail "LUN 1 changed when LUN 0 was unmapped"
[ "$(fact d1 volume_mapped_bytes)" = 0 ] || ut_fail "d1 still maps $(fact d1 volume_mapped_bytes) bytes"
[ "$(fact d1 store_logical_bytes)" = $((256 * MIB)) ] || ut_fail "store_logical_bytes $(fact d1 store_logical_bytes)"
echo "ok: LUN 0 unmapped (volume_mapped_bytes 0), LUN 1 intact, dedup_ratio now $(fact d1 dedup_ratio)"
check_clean "after the unmap"

# ---- (e) a volume created live ----
u backstore create dedup d3 "$UT_TMP/store" 64M >/dev/null || ut_fail "backstore create dedup failed"
u --json backstore list | python3 -c '
import json, sys
d3 = [b for b in json.load(sys.stdin) if b["name"] == "d3"]
sys.exit(not (d3 and d3[0]["type"] == "dedup" and d3[0]["medium"]["store_volumes"] == "3"))' ||
	ut_fail "backstore list does not show d3 as the store's third volume"
u backstore delete d3 >/dev/null || ut_fail "backstore delete d3 failed"
echo "ok: utarget backstore create dedup d3 STORE 64M made the store's third volume live; delete removed it"

# ---- (f) EXTENDED COPY by reference ----
. "$(dirname "$0")/xcopy_lib.sh"
export CDBPROBE_UA=1 CDBPROBE_ISID_QUALIFIER=7
url() { echo "$URL/$1"; }
pat=$(hex 3c 512)$(hex a5 512)
blocks=$pat$pat$pat$pat # 8 blocks, one chunk
cdb 1 "2a000000000800000800" out "$blocks" # LUN 1 LBA 8 (byte 4096)
[ "$OUT" = status=GOOD ] || ut_fail "WRITE(10) LUN 1: $OUT"
w0=$(fact d1 chunk_bytes_written)
h0=$(fact d1 chunks_deduplicated)
list="$(lid4_hdr $((0x0d0e0d0f)) 64 28)$(cscd "$(naa 1)")$(cscd "$(naa 0)")$(seg 0 1 8 8 32)"
xcopy4 "$list"
[ "$OUT" = status=GOOD ] || ut_fail "EXTENDED COPY(LID4): $OUT"
cdb 0 "28000000002000000800" in 4096
[ "$(data_of "READ(10) LUN 0 LBA 32")" = "$blocks" ] || ut_fail "LUN 0 LBA 32-39 is not LUN 1 LBA 8-15"
[ "$(fact d1 chunk_bytes_written)" = "$w0" ] && [ "$(fact d1 chunks_deduplicated)" = "$h0" ] ||
	ut_fail "EXTENDED COPY stored data: written $w0 -> $(fact d1 chunk_bytes_written), deduplicated $h0 -> $(fact d1 chunks_deduplicated)"
echo "ok: EXTENDED COPY(LID4) LUN 1 -> LUN 0 (8 blocks) read back; no chunk written or hashed: a reference copy"

ut_stop
echo "PASS dedup"
