#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pin_flood.sh UTARGETD TOOLS_DIR: PIN_SESSIONS (default 1000) sessions from
# 250 source addresses (127.1.0.1 .. 127.1.0.250), each sending as many
# 1 MiB WRITEs as its window allows and never their Data-Out
# (tests/tools/pinload.c), against utargetd with max_buffer_memory_mib 256,
# max_session_data_mib 8, session_reserve_kib 1024 and data_out_timeout 60.
# Every session must log in; the target may accept (R2T) at most the cap plus
# each session's reserve (256 + 1 MiB per session) in all and 8 MiB per
# session (the rest ends with TASK SET FULL or BUSY). While it is all held, a
# new initiator (libiscsi's iscsi-inq) must be answered within 2 s: the flood
# does not lock others out. The daemon must survive, stop cleanly and leave
# no sanitizer report. The target's VmRSS before and while everything is held
# is printed.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
hd_config '"max_buffer_memory_mib": 256, "max_session_data_mib": 8, "session_reserve_kib": 1024,
	"data_out_timeout": 60'
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT"
n=${PIN_SESSIONS:-1000}
"$HD_TOOLS/pinload" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" \
	--sessions "$n" --sources 250 --len 1048576 --pid "$HD_PID" \
	--hold-ms 4000 --max-pinned-mib $((256 + n)) --share-mib 8 >"$HD_TMP/pin.out" 2>&1 &
pin=$!
for ((i = 0; i < 600; i++)); do
	grep -q "^pinload: holding" "$HD_TMP/pin.out" && break
	kill -0 "$pin" 2>/dev/null || break
	sleep 0.1
done
grep -q "^pinload: holding" "$HD_TMP/pin.out" || { cat "$HD_TMP/pin.out"; hd_fail "pinload did not set up its sessions"; }
t0=$(date +%s%N)
out=$(timeout 10 iscsi-inq "iscsi://127.0.0.1:$HD_PORT/$HD_TARGET/0" 2>&1)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" = 0 ] || hd_fail "a new initiator under the flood: iscsi-inq failed ($out)"
[ "$ms" -le 2000 ] || hd_fail "a new initiator under the flood waited $ms ms for INQUIRY"
echo "ok: a new initiator's INQUIRY under the flood answered in $ms ms"
wait "$pin"
rc=$?
cat "$HD_TMP/pin.out"
hd_alive || hd_fail "utargetd died under the pinned-write flood"
hd_stop
[ "$rc" = 0 ] || hd_fail "pinned-write flood failed (see above)"
echo "pin_flood: passed"
