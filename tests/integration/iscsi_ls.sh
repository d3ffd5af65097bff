#!/bin/bash
# iscsi_ls.sh UTARGETD: discovery (SendTargets) lists the target with its
# portal (the --listen addresses, IPv4 and IPv6, portal group tag 1) and,
# with -s, its LUNs.
# SIGHUP reloads the file: unchanged, it changes nothing, and the target
# serves the same.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
command -v iscsi-ls >/dev/null || ut_fail "iscsi-ls not installed (libiscsi-bin)"

ut_write_config ls.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "r0", "type": "ram", "size": "64M" },
    { "name": "r1", "type": "ram", "size": "32M", "block_size": 4096 }
  ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" }, { "lun": 3, "backstore": "r1" } ],
      "demo_mode": { "enabled": true } }
  ]
}
JSON
# IPv6 too when the loopback has ::1
v6=
if ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 ::1/'; then
	ut_pick_port
	v6="[::1]:$UT_PORT"
	ut_start "$UT_TMP/ls.json" --listen "$v6"
else
	echo "note: no IPv6 loopback address; the IPv6 portal is not checked"
	ut_start "$UT_TMP/ls.json"
fi

echo "iscsi-ls -s iscsi://127.0.0.1:$UT_PORT/"
out=$(timeout 60 iscsi-ls -s "iscsi://127.0.0.1:$UT_PORT/" 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || ut_fail "iscsi-ls exited with $rc"
echo "$out" | grep -qx "Target:$UT_TARGET Portal:127.0.0.1:$UT_PORT,1" ||
	ut_fail "target and portal not listed"
# (iscsi-ls prints the last LBA times the block size, rounded down to MiB)
echo "$out" | grep -qE "^Lun:0 +Type:DIRECT_ACCESS \(Size:63M\)$" || ut_fail "LUN 0 not listed"
echo "$out" | grep -qE "^Lun:3 +Type:DIRECT_ACCESS \(Size:31M\)$" || ut_fail "LUN 3 not listed"
if [ -n "$v6" ]; then
	echo "$out" | grep -qxF "Target:$UT_TARGET Portal:$v6,1" || ut_fail "IPv6 portal not listed"
	[ "$(echo "$out" | grep -c '^Lun:')" = 4 ] || ut_fail "not exactly two LUNs per portal"
	out6=$(timeout 60 iscsi-ls -s "iscsi://$v6/" 2>&1) || ut_fail "iscsi-ls over IPv6: $out6"
	echo "$out6" | grep -qxF "Target:$UT_TARGET Portal:$v6,1" || ut_fail "IPv6 discovery: $out6"
	echo "ok: discovery and login over IPv6 ($v6)"
else
	[ "$(echo "$out" | grep -c '^Lun:')" = 2 ] || ut_fail "not exactly two LUNs"
fi
# exact capacities and block sizes
for l in "0 67108864 512" "3 33554432 4096"; do
	set -- $l
	rc16=$(timeout 60 iscsi-readcapacity16 "iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/$1" 2>&1) ||
		ut_fail "READ CAPACITY(16) of LUN $1 failed: $rc16"
	echo "$rc16" | grep -qx "Total size:$2" || ut_fail "LUN $1: $rc16"
	echo "$rc16" | grep -qx "LOGICAL BLOCK LENGTH IN BYTES:$3" || ut_fail "LUN $1: $rc16"
	echo "ok: LUN $1: $2 bytes in $3-byte blocks"
done

kill -HUP "$UT_PID"
for ((i = 0; i < 50; i++)); do
	grep -q "reload: 0 change(s) applied" "$UT_LOG" && break
	sleep 0.1
done
grep -q "reload: 0 change(s) applied" "$UT_LOG" || ut_fail "no reload log line for SIGHUP"
again=$(timeout 60 iscsi-ls -s "iscsi://127.0.0.1:$UT_PORT/" 2>&1)
[ "$again" = "$out" ] || ut_fail "after SIGHUP: $again"
echo "ok: SIGHUP reloaded the unchanged file (no change), still serving the same"
ut_stop
echo "PASS iscsi-ls"
