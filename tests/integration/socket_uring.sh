#!/bin/bash
# socket_uring.sh UTARGETD UTARGET MCS: the sockets of full feature phase
# connections read through the reactors' io_uring (iscsi.socket_uring,
# src/fabric/iscsi/conn_uring.c), so that mode stays exercised by
# `make test` while readv on readiness is the default.
#
#   qemu-img, mcs --> utargetd (socket_uring true, 4 reactors, log debug)
#                       LUN 0 q (file 64M), target M (ram 64M, MC/S)
# Checked:
#   - qemu-img convert of 64 MiB of random data to LUN 0 and compare back:
#     identical (4K..2M writes with Data-Out read straight into the
#     commands' buffers, reads); the log shows the connections read through
#     io_uring;
#   - MC/S: 1 and 4 connections of one session, every byte read back
#     (logins and moves between reactors keep readv, full feature phase
#     switches; spread_connections is off here, so that the moved
#     connections read their sockets on the session's reactor, through
#     io_uring: a spread one is read by conn_split.c's readv);
#   - the setting is live: set to false, a new session reads with readv (no
#     new io_uring line), set back to true, the next one with io_uring;
#   - a stop while qemu-img writes (receives in flight are cancelled before
#     their buffers are freed): no sanitizer report, clean exit.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: socket_uring.sh UTARGETD UTARGET MCS"
UTARGET=${2:?$USAGE}
MCS=${3:?$USAGE}
command -v qemu-img >/dev/null || ut_fail "qemu-img not installed (qemu-utils)"
M=iqn.2026-12.org.utarget.uring:m
I=iqn.2026-12.org.utarget.uring:init
SOCK=$UT_TMP/utargetd.sock
u() { "$UTARGET" -s "$SOCK" "$@"; }
lines() { grep -c "reading the socket through io_uring" "$UT_LOG" || true; }

head -c 64M /dev/urandom >"$UT_TMP/src.raw"
ut_write_config u.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "iscsi": { "socket_uring": true, "nop_in_interval": 1, "max_connections": 4,
             "spread_connections": false },
  "backstores": [ { "name": "q", "type": "file", "path": "q.img", "size": "64M", "create": true },
                  { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "q" } ],
      "demo_mode": { "enabled": true, "read_only": false } },
    { "name": "$M",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/u.json" --threads 4 --log-level debug
url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
P=127.0.0.1:$UT_PORT

qemu-img convert -n -f raw -O raw "$UT_TMP/src.raw" "$url" || ut_fail "qemu-img convert failed"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ"
n1=$(lines)
grep -q "io_uring unavailable\|io_uring disabled" "$UT_LOG" &&
	ut_fail "io_uring is unavailable here (the log says why): nothing to test"
[ "$n1" -ge 2 ] || ut_fail "the sessions did not read through io_uring ($n1 lines; Linux >= 6.0?)"
echo "ok: 64 MiB written and compared through io_uring receives ($n1 connections)"

# mcs NAME ARGS...: the raw MC/S initiator, every byte verified
mcs() {
	local name=$1
	shift
	ut_run_client "$UT_TMP/$name.out" "$MCS" "$P" "$M" "$I" "$@"
	tail -n 1 "$UT_TMP/$name.out" | grep -qx OK || ut_fail "mcs $*: $(cat "$UT_TMP/$name.out")"
	grep -qE "^verify conns [0-9]+ writes [0-9]+ reads [0-9]+ bytes [0-9]+ mismatches 0$" \
		"$UT_TMP/$name.out" || ut_fail "mcs $*: $(cat "$UT_TMP/$name.out")"
}
mcs m1 -n 1 -i 128 -b 16
mcs m4 -n 4 -i 256 -b 16
n2=$(lines)
[ "$n2" -ge $((n1 + 5)) ] || ut_fail "MC/S connections did not read through io_uring ($n1 -> $n2)"
echo "ok: MC/S, 1 and 4 connections, every byte verified, through io_uring"

u settings set iscsi.socket_uring=false >/dev/null || ut_fail "settings set failed"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ (readv)"
[ "$(lines)" -eq "$n2" ] || ut_fail "a session read through io_uring after socket_uring=false"
u settings set iscsi.socket_uring=true >/dev/null || ut_fail "settings set failed"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ (io_uring)"
[ "$(lines)" -gt "$n2" ] || ut_fail "no io_uring receive after socket_uring=true"
echo "ok: live setting: readv for the session after false, io_uring after true"

# a stop with receives in flight and data arriving
head -c 64M /dev/urandom >"$UT_TMP/src2.raw"
qemu-img convert -n -f raw -O raw "$UT_TMP/src2.raw" "$url" >/dev/null 2>&1 &
qpid=$!
sleep 1
ut_stop
wait "$qpid" 2>/dev/null || true
echo "ok: stopped during writes: no sanitizer report"
echo "PASS socket-uring"
