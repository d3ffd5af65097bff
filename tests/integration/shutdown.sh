#!/bin/bash
# shutdown.sh UTARGETD: SIGTERM while initiators have I/O in flight on two
# LUNs (a file and a ram back-store, one session each, queue depth 16):
# utargetd drops the sessions, closes the back-stores and exits 0 within the
# stop timeout, with no sanitizer report; the same again with SIGINT.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
command -v qemu-img >/dev/null || ut_fail "qemu-img not installed (qemu-utils)"

ut_write_config sd.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "f", "type": "file", "path": "f.img", "size": "128M", "create": true, "thin": true },
    { "name": "r", "type": "ram", "size": "128M" }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "f" }, { "lun": 1, "backstore": "r" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON

for sig in TERM INT; do
	ut_start "$UT_TMP/sd.json"
	base="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET"
	qemu-img bench -f raw -w -c 100000000 -d 16 -s 4k "$base/0" >"$UT_TMP/w.out" 2>&1 &
	wpid=$!
	qemu-img bench -f raw -c 100000000 -d 16 -s 64k "$base/1" >"$UT_TMP/r.out" 2>&1 &
	rpid=$!
	# both sessions logged in and busy
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c 'normal session' "$UT_LOG")" -ge 2 ] && break
		sleep 0.1
	done
	[ "$(grep -c 'normal session' "$UT_LOG")" -ge 2 ] || ut_fail "the clients did not log in"
	sleep 1
	kill -0 "$wpid" 2>/dev/null && kill -0 "$rpid" 2>/dev/null ||
		ut_fail "a client ended early: $(cat "$UT_TMP/w.out" "$UT_TMP/r.out")"
	echo "SIG$sig with I/O in flight"
	if [ "$sig" = INT ]; then
		# ut_stop sends SIGTERM; send SIGINT first, ut_stop's SIGTERM then
		# finds the daemon stopping already
		kill -INT "$UT_PID"
	fi
	ut_stop
	grep -q "SIG$sig: stopping" "$UT_LOG" || ut_fail "no \"SIG$sig: stopping\" in the log"
	for p in $wpid $rpid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	: >"$UT_LOG"
done
echo "PASS shutdown"
