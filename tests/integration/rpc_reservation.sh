#!/bin/bash
# rpc_reservation.sh UTARGETD PR_CLIENT [UTARGET]: persistent reservations
# read out and cleared by the administrator (docs/rpc.md reservation.get,
# reservation.clear; utarget reservation get|clear) while libiscsi
# initiators hold them (tests/tools/pr_client hold):
#   - two initiators register with APTPL, one reserves (Write Exclusive -
#     Registrants Only): reservation.get shows both, the holder, APTPL; the
#     state file exists;
#   - refusals: an unknown back-store or initiator (-32002), a malformed
#     initiator (-32602), nothing changed;
#   - reservation.clear of the holder's initiator: its registration goes,
#     the reservation is released; then a clear of everything;
#   - the initiators, still logged in, get REGISTRATIONS PREEMPTED (the
#     holder) and RESERVATIONS PREEMPTED (the other) and see no key and no
#     reservation;
#   - the config file and its journal are untouched (reservations are not
#     configuration); after a restart the state file keeps the LU cleared;
#   - clears that wait for the state file are answered in request order
#     (a batch with a notification, pipelined requests);
#   - with UTARGET: the same through the CLI (exit statuses 0, 4, 1;
#     --json), and in the shell at /backstores/ram/d0.
# Ports: 3850-3899.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PR_CLIENT=${2:?usage: rpc_reservation.sh UTARGETD PR_CLIENT [UTARGET]}
UTARGET=${3:-}
RPC="$UT_ROOT/tests/tools/utrpc.py"
UT_PORT_MIN=3850 UT_PORT_MAX=3899 ut_pick_port
SOCK=$UT_TMP/rpc.sock
T=iqn.2026-12.org.utarget.resv:t
IA=iqn.2026-12.org.utarget.resv:a
IB=iqn.2026-12.org.utarget.resv:b
URL=iscsi://127.0.0.1:$UT_PORT/$T/0
ut_write_config resv.json <<JSON
{ "version": 1, "state_dir": "@TMP@", "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "d0", "type": "ram", "size": "4M" } ],
  "targets": [ { "name": "$T",
    "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
    "luns": [ { "lun": 0, "backstore": "d0" } ],
    "demo_mode": { "enabled": true, "read_only": false } } ] }
JSON
CFG=$UT_TMP/resv.json
UT_OWN_PORTALS=1 ut_start "$CFG"

PID_A= PID_B=
# the held sessions end with the test, also when it fails
trap '[ -z "$PID_A$PID_B" ] || kill $PID_A $PID_B 2>/dev/null; ut_cleanup' EXIT
rpc() { python3 "$RPC" "$SOCK" "$@"; }
# expect PYTHON-CONDITION OUTPUT WHAT: the condition over r (the answer)
expect() {
	python3 - "$2" <<PY || ut_fail "$3: got $2"
import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if ($1) else 1)
PY
}
# hold NAME INITIATOR ISID KEY TYPE: a registered session in the background
# until $UT_TMP/go exists; its output in $UT_TMP/NAME.out
hold() {
	"$PR_CLIENT" hold "$URL" "$2" "$3" "$4" 1 "$5" "$UT_TMP/go" >"$UT_TMP/$1.out" 2>&1 &
	eval "PID_$1=\$!"
	for ((i = 0; i < 300; i++)); do
		grep -q '^registered' "$UT_TMP/$1.out" 2>/dev/null && return 0
		kill -0 "$(eval echo "\$PID_$1")" 2>/dev/null || break
		sleep 0.1
	done
	ut_fail "pr_client hold $2: $(cat "$UT_TMP/$1.out")"
}
# release NAME...: let the held sessions report and end
release() {
	local n
	touch "$UT_TMP/go"
	for n in "$@"; do
		wait "$(eval echo "\$PID_$n")" || ut_fail "pr_client hold ($n): $(cat "$UT_TMP/$n.out")"
	done
	rm -f "$UT_TMP/go"
}
state_files() { ls "$UT_TMP"/pr-*.state 2>/dev/null; }
conf_sum() { cat "$CFG" "$CFG.journal" 2>/dev/null | sha256sum; }

# ---- registrations made by initiators, read out ----
hold A "$IA" 1a a1 5
hold B "$IB" 1b b2 0
out=$(rpc reservation.get '{"backstore": "d0"}')
expect 'r["aptpl"] and len(r["registrations"]) == 2 and r["reservation"]["type"] == 5 and r["reservation"]["holder"]["initiator"] == "'"$IA"'" and r["reservation"]["holder"]["key"] == "0x00000000000000a1"' \
	"$out" "reservation.get after two REGISTERs and a RESERVE"
ISID_A=$(python3 -c 'import json,sys; print([g["isid"] for g in json.loads(sys.argv[1])["registrations"] if g["initiator"] == sys.argv[2]][0])' "$out" "$IA")
[ -n "$(state_files)" ] || ut_fail "no APTPL state file in $UT_TMP"
SUM0=$(conf_sum)
echo "ok: reservation.get shows the initiators' registrations and the holder (APTPL)"

# ---- refusals ----
out=$(rpc reservation.clear '{"backstore": "nosuch"}')
expect 'r["code"] == -32002 and r["data"]["kind"] == "backstore"' "$out" "clear of an unknown back-store"
out=$(rpc reservation.clear '{"backstore": "d0", "initiator": "iqn.2026-12.org.utarget.resv:nobody"}')
expect 'r["code"] == -32002 and r["data"]["kind"] == "registration"' "$out" \
	"clear of an initiator without registration"
for bad in '"a b"' '""' '"'"$IA"',i,0xzz"' 7; do
	out=$(rpc reservation.clear "{\"backstore\": \"d0\", \"initiator\": $bad}")
	expect 'r["code"] == -32602 and r["data"]["param"] == "initiator"' "$out" \
		"clear with initiator $bad"
done
out=$(rpc reservation.get '{"backstore": "d0"}')
expect 'len(r["registrations"]) == 2 and r["reservation"]["type"] == 5' "$out" "nothing changed by the refusals"
echo "ok: unknown back-store or initiator (-32002), malformed initiator (-32602): nothing changed"

# ---- one initiator's port, then everything ----
out=$(rpc reservation.clear "{\"backstore\": \"d0\", \"initiator\": \"$IA,i,0x$ISID_A\"}")
expect 'r["removed"] == 1 and r["released"] and r["initiator"] == "'"$IA,i,0x$ISID_A"'"' "$out" \
	"clear of the holder's initiator port"
out=$(rpc reservation.get '{"backstore": "d0"}')
expect '[g["initiator"] for g in r["registrations"]] == ["'"$IB"'"] and r["reservation"] is None' \
	"$out" "after the holder's registration was cleared"
out=$(rpc reservation.clear '{"backstore": "d0"}')
expect 'r["removed"] == 1 and not r["released"]' "$out" "clear of everything"
out=$(rpc reservation.get '{"backstore": "d0"}')
expect 'r["registrations"] == [] and r["reservation"] is None and r["aptpl"]' "$out" \
	"reservation.get after the clear"
release A B
grep -q '^ua: 0x2a05$' "$UT_TMP/A.out" || ut_fail "holder: want REGISTRATIONS PREEMPTED: $(cat "$UT_TMP/A.out")"
grep -q '^ua: 0x2a03$' "$UT_TMP/B.out" || ut_fail "registrant: want RESERVATIONS PREEMPTED: $(cat "$UT_TMP/B.out")"
for n in A B; do
	grep -q '^keys: 0$' "$UT_TMP/$n.out" && grep -q '^reservation: 0$' "$UT_TMP/$n.out" ||
		ut_fail "initiator $n still sees keys or a reservation: $(cat "$UT_TMP/$n.out")"
done
[ "$(conf_sum)" = "$SUM0" ] || ut_fail "reservation.clear changed the config file or its journal"
echo "ok: reservation.clear of one initiator port, then of everything; the initiators' unit attentions; no journal record"

# ---- a restart keeps it cleared (the APTPL state file) ----
ut_stop
UT_OWN_PORTALS=1 ut_start "$CFG"
out=$(rpc reservation.get '{"backstore": "d0"}')
expect 'r["registrations"] == [] and r["reservation"] is None' "$out" "reservation.get after a restart"
grep -q "restored from" "$UT_LOG" && ut_fail "registrations restored after the clear"
echo "ok: cleared across a restart"

# ---- answers that wait for the state file keep their order ----
for ini in "$IA" "$IB"; do
	"$PR_CLIENT" register "$URL" "$ini" c3 1 >"$UT_TMP/reg.out" 2>&1 ||
		ut_fail "pr_client register $ini: $(cat "$UT_TMP/reg.out")"
done
out=$(python3 - "$SOCK" "$IA" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
def req(i, m, p):
    return {"jsonrpc": "2.0", "id": i, "method": m, "params": p}
lines = [[req(1, "reservation.clear", {"backstore": "d0", "initiator": sys.argv[2]}),
          req(2, "daemon.info", {}),
          {"jsonrpc": "2.0", "method": "reservation.get", "params": {"backstore": "d0"}}],
         req(3, "reservation.get", {"backstore": "d0"}),
         req(4, "reservation.clear", {"backstore": "d0"}),
         req(5, "reservation.get", {"backstore": "d0"})]
f.write(b"".join((json.dumps(l) + "\n").encode() for l in lines)); f.flush()
print(json.dumps([json.loads(f.readline()) for _ in range(4)]))
PY
)
expect '[a["id"] for a in r[0]] == [1, 2] and r[0][0]["result"]["removed"] == 1 and [a["id"] for a in r[1:]] == [3, 4, 5] and len(r[1]["result"]["registrations"]) == 1 and r[2]["result"]["removed"] == 1 and r[3]["result"]["registrations"] == []' \
	"$out" "pipelined clears (a batch with a notification, then single requests)"
echo "ok: clears waiting for the state file are answered in request order (batches, pipelining)"

# ---- the CLI ----
if [ -n "$UTARGET" ]; then
	u() { "$UTARGET" -s "$SOCK" "$@"; }
	hold A "$IA" 1a a1 0
	hold B "$IB" 1b b2 0
	u reservation get d0 >"$UT_TMP/cli.out" 2>&1 || ut_fail "utarget reservation get: $(cat "$UT_TMP/cli.out")"
	grep -q "0x00000000000000a1 *$IA,i,0x" "$UT_TMP/cli.out" && grep -q "^reservation: none" "$UT_TMP/cli.out" ||
		ut_fail "utarget reservation get: $(cat "$UT_TMP/cli.out")"
	u --json reservation get d0 >"$UT_TMP/cli.json" || ut_fail "utarget --json reservation get"
	python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["registrations"]) == 2' \
		"$UT_TMP/cli.json" || ut_fail "--json reservation get: $(cat "$UT_TMP/cli.json")"
	u reservation clear d0 --initiator iqn.2026-12.org.utarget.resv:nobody >"$UT_TMP/cli.out" 2>&1
	[ $? = 4 ] || ut_fail "clear of an initiator without registration: want exit 4: $(cat "$UT_TMP/cli.out")"
	u reservation clear nosuch >/dev/null 2>&1
	[ $? = 4 ] || ut_fail "clear of an unknown back-store: want exit 4"
	u reservation clear >/dev/null 2>&1
	[ $? = 1 ] || ut_fail "clear without a back-store: want exit 1"
	u reservation clear d0 -i "$IB" >"$UT_TMP/cli.out" 2>&1 &&
		grep -q "d0: 1 registration of $IB removed" "$UT_TMP/cli.out" ||
		ut_fail "utarget reservation clear -i: $(cat "$UT_TMP/cli.out")"
	printf '%s\n' 'cd /backstores/ram/d0' 'reservation' 'reservation clear' 'reservation get' |
		u shell >"$UT_TMP/shell.out" 2>&1 || ut_fail "shell: $(cat "$UT_TMP/shell.out")"
	grep -q "d0: 1 registration removed" "$UT_TMP/shell.out" &&
		grep -q "^registrations: none" "$UT_TMP/shell.out" ||
		ut_fail "shell reservation commands: $(cat "$UT_TMP/shell.out")"
	release A B
	grep -q '^ua: 0x2a05$' "$UT_TMP/B.out" && grep -q '^ua: 0x2a03$' "$UT_TMP/A.out" ||
		ut_fail "unit attentions after the CLI's clears: $(cat "$UT_TMP/A.out" "$UT_TMP/B.out")"
	echo "ok: utarget reservation get|clear (exit statuses, --json, the shell)"
fi
ut_stop
echo "PASS rpc_reservation"
