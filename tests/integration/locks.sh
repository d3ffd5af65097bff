#!/bin/bash
# locks.sh UTARGETD [UTARGET]: one daemon per configuration, per state
# directory and per image (issue 18 item 1).
#   d1: a.json (state $TMP/s1, image $TMP/disk.img, socket $TMP/a.sock)
#   a second utargetd on a.json (other portal, other socket): refused at
#     once, naming d1's PID, and a.json and its journal are untouched
#   b.json: another file, the same state directory: refused, naming d1
#   c.json: its own state directory, d1's image: refused (the image locked)
#   d1 itself: a second back-store on the image under another name (a hard
#     link) is refused through the control API, the first one untouched
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:-}

mkdir -m 0700 "$UT_TMP/s1" "$UT_TMP/s2"
truncate -s 16M "$UT_TMP/disk.img"
ln "$UT_TMP/disk.img" "$UT_TMP/link.img"
cfg() { # name state socket
	cat >"$UT_TMP/$1" <<JSON
{
  "version": 1,
  "state_dir": "$UT_TMP/$2",
  "rpc_socket": "$UT_TMP/$3",
  "backstores": [ { "name": "d", "type": "file", "path": "$UT_TMP/disk.img" } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ] }
  ]
}
JSON
}
cfg a.json s1 a.sock
cfg b.json s1 b.sock
cfg c.json s2 c.sock
ut_start "$UT_TMP/a.json"
sum_before=$(sha256sum "$UT_TMP/a.json" | cut -d' ' -f1)

second() { # config -> its output; must exit 1 within 10 s
	local out rc
	out=$(timeout 10 "$UTARGETD" -f -c "$UT_TMP/$1" --listen 127.0.0.1:1 \
		--rpc-socket "$UT_TMP/x.sock" 2>&1)
	rc=$?
	[ "$rc" = 1 ] || ut_fail "second utargetd on $1: exit $rc (want 1): $out"
	echo "$out"
}
out=$(second a.json)
grep -q "a.json is in use by another utargetd (PID $UT_PID" <<<"$out" ||
	ut_fail "a second daemon on the same file: $out"
[ "$(sha256sum "$UT_TMP/a.json" | cut -d' ' -f1)" = "$sum_before" ] ||
	ut_fail "the refused daemon changed a.json"
echo "ok: a second daemon on the same config is refused: $out"
out=$(second b.json)
grep -q "the state directory is in use by another utargetd (PID $UT_PID" <<<"$out" ||
	ut_fail "a second daemon on the same state directory: $out"
echo "ok: another config on the same state directory is refused: $out"
out=$(second c.json)
grep -q "disk.img is in use by another process" <<<"$out" ||
	ut_fail "a second daemon on the same image: $out"
echo "ok: another daemon on the same image is refused"

if [ -n "$UTARGET" ]; then
	out=$("$UTARGET" --socket "$UT_TMP/a.sock" backstore create file d2 \
		"$UT_TMP/link.img" 2>&1) && ut_fail "a second back-store on the image: $out"
	grep -q "image of back-store d" "$UT_LOG" ||
		ut_fail "no log line names the back-store holding the image: $out"
	"$UTARGET" --socket "$UT_TMP/a.sock" backstore list | grep -q "^d " ||
		ut_fail "back-store d is gone"
	echo "ok: a second back-store on the same image (a hard link) is refused: $out"
fi
ut_stop
# the locks go with the daemon: the same config starts again
ut_start "$UT_TMP/a.json"
ut_stop
echo "locks: passed"
