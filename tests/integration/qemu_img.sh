#!/bin/bash
# qemu_img.sh UTARGETD: qemu-img convert of a 256 MiB random raw image to a
# LUN over iscsi://, qemu-img compare back (identical), after a clean stop
# the back-store file holds exactly the image, and after a restart the LUN
# still does.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
command -v qemu-img >/dev/null || ut_fail "qemu-img not installed (qemu-utils)"

head -c 256M /dev/urandom >"$UT_TMP/src.raw"
ut_write_config q.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "q", "type": "file", "path": "q.img", "size": "256M", "create": true } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "q" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/q.json"
url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"

echo "qemu-img info $url"
qemu-img info "$url" || ut_fail "qemu-img info failed"
qemu-img info --output=json "$url" | grep -q '"virtual-size": 268435456' ||
	ut_fail "virtual size is not 256 MiB"
echo "qemu-img convert -n src.raw -> $url"
qemu-img convert -n -f raw -O raw "$UT_TMP/src.raw" "$url" || ut_fail "qemu-img convert failed"
echo "qemu-img compare src.raw $url"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ"
ut_stop
cmp "$UT_TMP/src.raw" "$UT_TMP/q.img" || ut_fail "the back-store file differs from the image"
echo "ok: identical over iSCSI and on disk"
# a restart with the same config ("create": true) keeps the data
ut_start "$UT_TMP/q.json"
url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ after a restart"
ut_stop
echo "ok: identical after a restart"
echo "PASS qemu-img"
