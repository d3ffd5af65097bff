#!/bin/bash
# rpc_api.sh UTARGETD: the JSON-RPC 2.0 protocol of the control socket and
# the methods that need no initiator (docs/rpc.md):
#   - parse errors, invalid requests, unknown methods, positional params;
#   - batches (answers in one array, notifications unanswered, an empty
#     batch refused), pipelined requests answered in order;
#   - a line over 16 MiB: -32600, then the connection is closed;
#   - config.check of a document and of a file, config.apply dry run and
#     apply, config.get, daemon.info, rpc.methods against the schema file;
#   - ALUA port groups defined through settings.set, a state changed with
#     alua.set_state, visible in alua.list and persisted;
#   - a [::] portal added and removed live, reached over IPv4 and IPv6;
#   - a hand-edited file: changes refused (-32006) until it is reloaded;
#   - a session that does not exist: -32002;
#   - with PR_CLIENT (tests/tools/pr_client): a registration made by an
#     initiator shows in reservation.get.
# Ports: 3800-3849.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RPC="$UT_ROOT/tests/tools/utrpc.py"
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port
UT_PORT_MIN=3800 UT_PORT_MAX=3849 ut_pick_port2
SOCK=$UT_TMP/rpc.sock
T=iqn.2026-12.org.utarget.rpc:api
ut_write_config api.json <<JSON
{ "version": 1, "state_dir": "@TMP@", "rpc_socket": "@TMP@/rpc.sock",
  "backstores": [ { "name": "d0", "type": "ram", "size": "4M" } ],
  "targets": [ { "name": "$T",
    "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] },
                       { "tag": 2, "portals": ["[::1]:@PORT@"] } ],
    "luns": [ { "lun": 0, "backstore": "d0" } ],
    "demo_mode": { "enabled": true, "read_only": false } } ] }
JSON
CFG=$UT_TMP/api.json
PR_CLIENT=${2:-}
UT_OWN_PORTALS=1 ut_start "$CFG"

raw() { python3 "$RPC" "$SOCK" --raw; }
# expect PYTHON-CONDITION OUTPUT WHAT: the condition over lines (the answers)
expect() {
	python3 - "$2" <<PY || ut_fail "$3: got $2"
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
sys.exit(0 if ($1) else 1)
PY
}

# ---- envelopes ----
out=$(printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "daemon.info"' \
	'{"jsonrpc": "2.0", "id": 2, "method": "daemon.info"}' | raw)
expect 'lines[0]["error"]["code"] == -32700 and lines[0]["id"] is None and "result" in lines[1]' \
	"$out" "parse error then a valid request"
out=$(echo '{"id": 3, "method": "daemon.info"}' | raw)
expect 'lines[0]["error"]["code"] == -32600 and lines[0]["id"] == 3' "$out" "no jsonrpc member"
out=$(echo '{"jsonrpc": "2.0", "id": "x", "method": "no.such"}' | raw)
expect 'lines[0]["error"]["code"] == -32601 and lines[0]["id"] == "x"' "$out" "unknown method"
out=$(echo '{"jsonrpc": "2.0", "id": 4, "method": "backstore.get", "params": ["d0"]}' | raw)
expect 'lines[0]["error"]["code"] == -32602' "$out" "positional params"
out=$(echo '{"jsonrpc": "2.0", "id": 5, "method": "backstore.get", "params": {"name": 7}}' | raw)
expect 'lines[0]["error"]["code"] == -32602 and lines[0]["error"]["data"]["param"] == "name"' \
	"$out" "a parameter of the wrong type"
echo "ok: parse errors, invalid requests, unknown methods, bad params"

# ---- batches, notifications, pipelining ----
out=$(printf '%s\n' '[{"jsonrpc": "2.0", "id": 10, "method": "daemon.info"},
 {"jsonrpc": "2.0", "method": "daemon.info"}, 1,
 {"jsonrpc": "2.0", "id": 11, "method": "lun.add", "params": {"target": "'"$T"'", "lun": 3, "backstore": "d0"}}]' |
	tr -d '\n' | (cat; echo) | raw)
expect 'len(lines) == 1 and [r.get("id") for r in lines[0]] == [10, None, 11] and lines[0][1]["error"]["code"] == -32600 and lines[0][2]["error"]["code"] == -32001 and lines[0][2]["error"]["data"]["path"] == "targets[0].luns[1].backstore"' \
	"$out" "a batch: one array, the notification unanswered, each request on its own"
out=$(printf '%s\n' '[{"jsonrpc": "2.0", "method": "daemon.info"}]' '[]' | raw)
expect 'len(lines) == 1 and lines[0]["error"]["code"] == -32600' "$out" \
	"notifications only: no answer; an empty batch: -32600"
out=$(python3 - "$SOCK" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
for i in range(20):
    f.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": "settings.get"}) + "\n").encode())
f.flush()
print(",".join(str(json.loads(f.readline())["id"]) for _ in range(20)))
PY
)
[ "$out" = "$(seq -s, 0 19)" ] || ut_fail "pipelined answers out of order: $out"
echo "ok: batches, notifications, pipelined requests answered in order"

# ---- a line over 16 MiB ----
out=$(python3 - "$SOCK" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
try:
    s.sendall(b'{"jsonrpc": "2.0", "id": 1, "method": "daemon.info", "params": {"x": "' +
              b"a" * (17 << 20))
except OSError:
    pass
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
print(json.loads(data.split(b"\n")[0])["error"]["code"])
PY
)
[ "$out" = -32600 ] || ut_fail "an oversized line: got $out"
python3 "$RPC" "$SOCK" daemon.info >/dev/null || ut_fail "the daemon does not answer after an oversized line"
echo "ok: a line over 16 MiB is refused (-32600) and the connection closed"

# ---- configuration methods ----
out=$(python3 "$RPC" "$SOCK" config.check '{"config": {"version": 1, "backstores": [{"name": "x", "type": "null"}]}}')
expect 'lines[0]["code"] == -32001 and lines[0]["data"]["path"] == "backstores[0].size"' "$out" \
	"config.check of a bad document"
python3 "$RPC" "$SOCK" config.check >/dev/null || ut_fail "config.check of the daemon's file"
doc=$(python3 "$RPC" "$SOCK" config.get)
new=$(python3 -c 'import json,sys
c = json.loads(sys.argv[1])
c["backstores"].append({"name": "d9", "type": "null", "size": "1M"})
c["targets"][0]["luns"].append({"lun": 9, "backstore": "d9"})
print(json.dumps({"config": c, "dry_run": True}))' "$doc")
out=$(python3 "$RPC" "$SOCK" config.apply "$new")
expect 'lines[0]["dry_run"] and len(lines[0]["changes"]) == 2' "$out" "config.apply dry run"
[ "$(python3 "$RPC" "$SOCK" config.get)" = "$doc" ] || ut_fail "a dry run changed something"
out=$(python3 "$RPC" "$SOCK" config.apply "$(echo "$new" | sed 's/"dry_run": true/"dry_run": false/')")
expect 'not lines[0]["dry_run"] and len(lines[0]["changes"]) == 2' "$out" "config.apply"
out=$(python3 "$RPC" "$SOCK" lun.list "{\"target\": \"$T\"}")
expect '[l["lun"] for l in lines[0]] == [0, 9]' "$out" "the applied document's LUN"
out=$(python3 "$RPC" "$SOCK" rpc.methods)
python3 - "$out" "$UT_ROOT/docs/rpc-schema.json" <<'PY' || ut_fail "rpc.methods differs from docs/rpc-schema.json"
import json, sys
impl = json.loads(sys.argv[1])["methods"]
schema = json.load(open(sys.argv[2]))["methods"]
sys.exit(0 if sorted(impl) == sorted(schema) else 1)
PY
echo "ok: config.check, config.apply (dry run and real), rpc.methods = the schema's methods"

# ---- ALUA ----
python3 "$RPC" "$SOCK" settings.set "{\"port_groups\": [
  {\"id\": 10, \"name\": \"a\", \"explicit\": true, \"members\": [{\"target\": \"$T\", \"tag\": 1}]},
  {\"id\": 20, \"name\": \"b\", \"state\": \"standby\", \"members\": [{\"target\": \"$T\", \"tag\": 2}]}]}" >/dev/null ||
	ut_fail "settings.set port_groups"
python3 "$RPC" "$SOCK" alua.set_state '{"group": 20, "state": "active/non-optimized"}' >/dev/null ||
	ut_fail "alua.set_state"
python3 "$RPC" "$SOCK" alua.set_state '{"group": 10, "state": "unavailable", "backstore": "d9"}' >/dev/null ||
	ut_fail "alua.set_state for one LU"
out=$(python3 "$RPC" "$SOCK" alua.list)
expect '{g["id"]: g["state"] for g in lines[0]} == {10: "active/optimized", 20: "active/non-optimized"} and lines[0][0]["lu_states"] == [{"backstore": "d9", "state": "unavailable"}]' \
	"$out" "alua.list after the changes"
python3 "$RPC" "$SOCK" alua.set_state '{"group": 99, "state": "standby"}' >/dev/null 2>&1 &&
	ut_fail "alua.set_state of an undefined group succeeded"
ut_stop
UT_OWN_PORTALS=1 ut_start "$CFG"
out=$(python3 "$RPC" "$SOCK" alua.list)
expect '{g["id"]: g["state"] for g in lines[0]} == {10: "active/optimized", 20: "active/non-optimized"}' \
	"$out" "ALUA states after a restart"
echo "ok: ALUA port groups defined, states changed live and persisted"

# a dual-stack portal added live: IPv4 and IPv6 initiators both reach it
python3 "$RPC" "$SOCK" portal.add "{\"target\": \"$T\", \"tag\": 1, \"portal\": \"[::]:$UT_PORT2\"}" \
	>/dev/null || ut_fail "portal.add [::]:$UT_PORT2"
timeout 60 iscsi-inq "iscsi://127.0.0.1:$UT_PORT2/$T/0" >/dev/null 2>&1 ||
	ut_fail "[::]:$UT_PORT2 is not reachable over IPv4 (dual-stack)"
timeout 60 iscsi-inq "iscsi://[::1]:$UT_PORT2/$T/0" >/dev/null 2>&1 ||
	ut_fail "[::]:$UT_PORT2 is not reachable over IPv6"
python3 "$RPC" "$SOCK" portal.delete "{\"target\": \"$T\", \"tag\": 1, \"portal\": \"[::]:$UT_PORT2\"}" \
	>/dev/null || ut_fail "portal.delete [::]:$UT_PORT2"
ut_can_connect "$UT_PORT2" && ut_fail "[::]:$UT_PORT2 still listens after portal.delete"
echo "ok: a [::] portal added live is dual-stack (IPv4 and IPv6 logins); removed live"

# the file edited by hand and not reloaded: changes are refused (they would
# continue a file the next start does not read); a reload takes the edit
python3 - "$CFG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["backstores"].append({"name": "hand", "type": "null", "size": "1M"})
open(sys.argv[1], "w").write(json.dumps(c, indent=1))
PY
out=$(python3 "$RPC" "$SOCK" backstore.create '{"name": "x1", "type": "null", "size": "1M"}')
expect 'lines[0]["code"] == -32006 and "reload" in lines[0]["message"]' "$out" \
	"a change after a hand edit that was not reloaded"
python3 "$RPC" "$SOCK" config.reload >/dev/null || ut_fail "reload of the hand edit"
python3 "$RPC" "$SOCK" backstore.get '{"name": "hand"}' >/dev/null || ut_fail "the hand edit not applied"
python3 "$RPC" "$SOCK" backstore.create '{"name": "x1", "type": "null", "size": "1M"}' >/dev/null ||
	ut_fail "a change after the reload"
echo "ok: a hand edit blocks changes until it is reloaded"

out=$(python3 "$RPC" "$SOCK" session.close '{"tsih": 4242}')
expect 'lines[0]["code"] == -32002' "$out" "closing a session that does not exist"

out=$(python3 "$RPC" "$SOCK" reservation.get '{"backstore": "d0"}')
expect 'lines[0]["registrations"] == [] and lines[0]["reservation"] is None' "$out" \
	"reservation.get of an LU nobody registered with"
if [ -n "$PR_CLIENT" ]; then
	"$PR_CLIENT" register "iscsi://127.0.0.1:$UT_PORT/$T/0" iqn.2026-12.org.utarget.rpc:pr \
		abc 0 >"$UT_TMP/pr.out" 2>&1 || ut_fail "pr_client register: $(cat "$UT_TMP/pr.out")"
	out=$(python3 "$RPC" "$SOCK" reservation.get '{"backstore": "d0"}')
	expect 'lines[0]["registrations"][0]["key"] == "0x0000000000000abc" and lines[0]["registrations"][0]["initiator"] == "iqn.2026-12.org.utarget.rpc:pr" and lines[0]["generation"] >= 1' \
		"$out" "reservation.get after a REGISTER"
	echo "ok: reservation.get shows an initiator's registration"
fi
ut_stop
echo "PASS rpc_api"
