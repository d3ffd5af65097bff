#!/bin/bash
# cli_admin.sh UTARGETD UTARGET HOLDSESSION LIVEIO: administrator safety
# (issue 18): what utarget and the control API say and refuse, checked as the
# administrator reads it.
#   - errors about the daemon's own config file name the file and the line
#     (config check, config reload) and a refused reload is logged;
#   - with --listen, a portal change it would not honour is refused with
#     the reason; daemon info, target show and the log say what listens;
#   - a target created without --portal (command, shell) says where it
#     listens: the --listen addresses, or the configurable default portals;
#   - a CHAP secret shorter than 12 bytes is refused unless forced (API,
#     CLI, file), a longer one than 16 is taken with a warning;
#   - no answer but config show's holds a CHAP secret; what the API gives
#     redacted is kept when written back;
#   - target delete with sessions needs --force and counts what it drops;
#     backstore delete says whether the image is kept;
#   - listings show what the daemon knows: the size of a back-store used at
#     its image's size; a session's digests, MaxRecvDataSegmentLength,
#     burst lengths, ErrorRecoveryLevel, login time and counters (liveio:
#     counted exactly while it is stopped).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: cli_admin.sh UTARGETD UTARGET HOLDSESSION LIVEIO"
UTARGET=${2:?$USAGE}
HOLD=${3:?$USAGE}
LIVEIO=${4:?$USAGE}
command -v iscsi-inq >/dev/null || ut_fail "iscsi-inq not installed (libiscsi-bin)"

ut_pick_port
ut_pick_port2
P=127.0.0.1:$UT_PORT
P2=127.0.0.1:$UT_PORT2
SOCK=$UT_TMP/utargetd.sock
SEED=iqn.2026-12.org.utarget.adm:seed
T1=iqn.2026-12.org.utarget.adm:t1
T2=iqn.2026-12.org.utarget.adm:t2
T3=iqn.2026-12.org.utarget.adm:t3
u() { "$UTARGET" -s "$SOCK" "$@"; }
# expect STATUS CMD...: CMD exits STATUS; its output in $UT_TMP/cmd.out
expect() {
	local want=$1 rc
	shift
	"$@" >"$UT_TMP/cmd.out" 2>&1
	rc=$?
	[ $rc = "$want" ] || ut_fail "$* exited $rc, want $want: $(cat "$UT_TMP/cmd.out")"
}
# has TEXT: the last command's output holds TEXT (a fixed string); hasre RE:
# a line of it matches the extended regular expression RE
has() {
	grep -qF -- "$1" "$UT_TMP/cmd.out" || ut_fail "want \"$1\" in: $(cat "$UT_TMP/cmd.out")"
}
hasre() {
	grep -qE -- "$1" "$UT_TMP/cmd.out" || ut_fail "want /$1/ in: $(cat "$UT_TMP/cmd.out")"
}

ut_write_config adm.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "backstores": [ { "name": "seed", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$SEED",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "seed" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
CFG=$UT_TMP/adm.json
ut_start "$CFG"

# ---- errors in the daemon's own file: its name and line (item 5) ----
expect 0 u config check
has "the daemon's config file: valid (1 back-store, 1 target)"
u config save >/dev/null || ut_fail "config save"
python3 - "$CFG" <<'PY' || ut_fail "cannot edit the config file"
import json, sys
cfg = json.load(open(sys.argv[1]))
cfg["targets"][0]["luns"][0]["backstore"] = "nope"
json.dump(cfg, open(sys.argv[1], "w"), indent=2)
PY
line=$(grep -n '"nope"' "$CFG" | cut -d: -f1)
want="utarget: $CFG:$line: targets[0].luns[0].backstore: no back-store named \"nope\""
expect 3 u config check
[ "$(cat "$UT_TMP/cmd.out")" = "$want" ] || ut_fail "config check: $(cat "$UT_TMP/cmd.out") (want $want)"
expect 3 u config reload
[ "$(cat "$UT_TMP/cmd.out")" = "$want" ] || ut_fail "config reload: $(cat "$UT_TMP/cmd.out") (want $want)"
grep -qF "config.reload refused, nothing changed: $CFG:$line: targets[0].luns[0].backstore" "$UT_LOG" ||
	ut_fail "no log line for the refused reload"
expect 0 u config save # the running configuration back into the file
echo "ok: config check/reload of the daemon's file name its file and line; a refused reload is logged"

# ---- --listen: portal changes it would not honour are refused (item 2) ----
expect 3 u target create "$T1" --portal "$P2"
has "$P2 would not be listened on: utargetd runs with --listen $P, which replaces every portal"
expect 4 u target show "$T1"
expect 3 u portal add "$SEED" 1 "$P2"
has "$P2 would not be listened on"
expect 3 u tpg create "$SEED" 2 "$P2"
ut_can_connect "$UT_PORT2" && ut_fail "something listens on $P2"
expect 0 u target create "$T1" --portal "$P" # the --listen address: listened on
echo "ok: under --listen, portals it would not listen on are refused with the reason"
# ... and daemon info, target show and the log say what is listened on
expect 0 u daemon info
hasre "^listen +$P\$"
hasre "^listening +$P\$"
expect 0 u target show "$SEED"
has "note: portal group 1 listens on $P (utargetd --listen), not on its portals 127.0.0.1:3260"
u --json target show "$SEED" | python3 -c '
import json, sys
g = json.load(sys.stdin)["portal_groups"][0]
assert g["portals"] == ["127.0.0.1:3260"] and g["listening"] == [sys.argv[1]], g' "$P" ||
	ut_fail "target show --json: no \"listening\""
grep -qF -- "--listen $P: every portal group listens there, not on its configured portals (127.0.0.1:3260)" "$UT_LOG" ||
	ut_fail "the log does not say that --listen is in force"
echo "ok: daemon info, target show and the log say that --listen is in force and what listens"

# ---- CHAP secrets: at least 12 bytes unless forced (item 4) ----
expect 3 u chap add "$T1" short abc
has "auth.chap[0].secret: the secret of \"short\" has 3 bytes: CHAP secrets need at least 12 (RFC 7143 12.1.3: 96 random bits)"
expect 0 u chap add "$T1" short abc --force
expect 0 u config show
has '"allow_short": true'
expect 0 u chap add "$T1" long a-secret-of-20-bytes
has "utarget: warning: the secret has 20 bytes: Microsoft's initiator accepts 12 to 16 only"
expect 3 u chap mutual "$T1" "$T1" short-mut
has "mutual.secret: the secret of \"$T1\" has 9 bytes"
# removing the mutual credential and the algorithm list really removes them
expect 0 u chap mutual "$T1" "$T1" mutual-secret-12
expect 0 u chap algorithms "$T1" SHA-256,MD5
expect 0 u chap mutual "$T1" none
expect 0 u chap algorithms "$T1" all
u config show | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["targets"] if t["name"] == sys.argv[1]][0]
assert "mutual" not in t["auth"] and "algorithms" not in t["auth"], t["auth"]' "$T1" ||
	ut_fail "chap mutual none / chap algorithms all left them in place"
python3 "$UT_ROOT/tests/tools/utrpc.py" "$SOCK" acl.create \
	"{\"target\": \"$T1\", \"initiator\": \"iqn.2026-12.org.utarget.adm:h\", \"auth\": {\"chap\": [{\"user\": \"h\", \"secret\": \"tiny\"}]}}" \
	>"$UT_TMP/cmd.out" 2>&1 && ut_fail "acl.create took a 4-byte secret: $(cat "$UT_TMP/cmd.out")"
has "\"code\": -32001"
has "has 4 bytes: CHAP secrets need at least 12"
# a file: refused at start-up unless the credential says allow_short
ut_write_config short.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@/short",
  "targets": [
    { "name": "$T1",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "auth": { "chap": [ { "user": "f", "secret": "tiny" } ] } }
  ]
}
JSON
expect 1 "$UTARGETD" --check -c "$UT_TMP/short.json"
hasre "^utargetd: $UT_TMP/short.json:[0-9]+: targets\[0\]\.auth\.chap\[0\]\.secret: the secret of \"f\" has 4 bytes"
sed -i 's|"secret": "tiny"|"secret": "tiny", "allow_short": true|' "$UT_TMP/short.json"
expect 0 "$UTARGETD" --check -c "$UT_TMP/short.json"
echo "ok: short CHAP secrets are refused unless forced (CLI --force, API and file allow_short)"

# ---- secrets: only config show prints them (item 4) ----
expect 0 u chap mutual "$T1" "$T1" mutual-secret-12
expect 0 u acl add "$T1" iqn.2026-12.org.utarget.adm:h
expect 0 u chap add "$T1" -i iqn.2026-12.org.utarget.adm:h hu acl-secret-123
expect 0 u chap add --discovery du disc-secret-12
# a read-modify-write of the list (chap add reads it redacted) keeps the
# secrets of the users it did not name
expect 0 u chap add "$T1" second second-secret-12
for cmd in "target show $T1" "target show $T1 --json" "target list --json" \
	"chap show $T1 --json" "chap show $T1 -i iqn.2026-12.org.utarget.adm:h --json" \
	"chap show --discovery --json" "acl list $T1 --json" "settings show --json" shell-ls; do
	if [ "$cmd" = shell-ls ]; then
		printf '%s\n' "ls /" | u shell >"$UT_TMP/cmd.out" 2>&1 || ut_fail "shell ls"
	else
		# shellcheck disable=SC2086 # words of the command
		expect 0 u $cmd
	fi
	! grep -E '"secret"|abc|a-secret-of-20-bytes|second-secret-12|mutual-secret-12|acl-secret-123|disc-secret-12' \
		"$UT_TMP/cmd.out" || ut_fail "utarget $cmd shows a secret"
done
expect 0 u target show "$T1" --json
has '"redacted": true'
expect 0 u config show
for s in '"abc"' a-secret-of-20-bytes second-secret-12 mutual-secret-12 acl-secret-123 disc-secret-12; do
	has "$s"
done
has "utarget: note: this holds CHAP secrets in clear (no other command shows them): keep it mode 0600"
# the API: what target.get gives back to target.set keeps the secrets; a
# credential without a secret for a user that had none is refused
RPC="$UT_ROOT/tests/tools/utrpc.py"
auth=$(python3 "$RPC" "$SOCK" target.get "{\"name\": \"$T1\"}" |
	python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["auth"]))')
case $auth in *redacted*) ;; *) ut_fail "target.get auth not redacted: $auth" ;; esac
python3 "$RPC" "$SOCK" target.set "{\"name\": \"$T1\", \"auth\": $auth}" >"$UT_TMP/cmd.out" 2>&1 ||
	ut_fail "target.set with the auth target.get gave: $(cat "$UT_TMP/cmd.out")"
expect 0 u config show
has second-secret-12
has mutual-secret-12
python3 "$RPC" "$SOCK" target.set \
	"{\"name\": \"$T1\", \"auth\": {\"chap\": [{\"user\": \"stranger\", \"redacted\": true}]}}" \
	>"$UT_TMP/cmd.out" 2>&1 && ut_fail "target.set took a credential without a secret"
has '"code": -32602'
has "auth.chap[0].secret: required field missing"
expect 0 u chap delete --discovery du
expect 0 u acl delete "$T1" iqn.2026-12.org.utarget.adm:h
echo "ok: no command but config show prints a CHAP secret (API: redacted, and kept on write back)"

# ---- the default portal is said (item 3) ----
expect 0 u target create "$T2"
[ "$(cat "$UT_TMP/cmd.out")" = "target $T2 created; portal group 1 listens on $P" ] ||
	ut_fail "target create without --portal: $(cat "$UT_TMP/cmd.out")"
printf '%s\n' "cd /iscsi" "create $T3" | u shell >"$UT_TMP/cmd.out" 2>&1 || ut_fail "shell create"
has "target $T3 created; portal group 1 listens on $P"
echo "ok: a target created without --portal says where it listens (--listen: its addresses)"
ut_stop

# the same without --listen: the configurable default portals
sed -e "s|127.0.0.1:3260|$P|" "$CFG" >"$UT_TMP/own.json"
mv "$UT_TMP/own.json" "$CFG"
rm -f "$CFG.journal"
UT_OWN_PORTALS=1 ut_start "$CFG"
expect 0 u settings set "default_portals=$P2"
expect 0 u settings show
hasre "^default_portals +$P2\$"
expect 0 u target delete "$T3"
expect 0 u target create "$T3"
has "target $T3 created; portal group 1 listens on $P2"
ut_can_connect "$UT_PORT2" || ut_fail "$T3 does not listen on the default portal $P2"
echo "ok: settings default_portals is the portal of a target created without --portal"
# import tgt: tgtd's listener is not in targets.conf; the report and the
# confirmation say where the imported targets listen
truncate -s 4M "$UT_TMP/tgt.img"
printf '<target iqn.2026-12.org.utarget.adm:tgt>\n    backing-store %s\n</target>\n' \
	"$UT_TMP/tgt.img" >"$UT_TMP/targets.conf"
expect 0 u import tgt "$UT_TMP/targets.conf" --dry-run
has "note: $UT_TMP/targets.conf: tgtd's listener is not in the file: the imported targets listen on 0.0.0.0:3260 and [::]:3260, every address (--portal chooses)"
expect 0 u import tgt "$UT_TMP/targets.conf" --portal "$P2"
has "imported 1 back-store and 1 target (listening on $P2)"
echo "ok: import tgt says where the imported targets listen"

# ---- listings show what is known (item 7) ----
# a back-store used at its image's own size (no size in the config): its
# size now, in the table (3 MiB + 512: bytes) and in --json
truncate -s 3146240 "$UT_TMP/imp.img"
isize=$(stat -c %s "$UT_TMP/imp.img")
expect 0 u backstore create file imp "$UT_TMP/imp.img"
expect 0 u backstore list
hasre "^imp +file +$isize +512 +$UT_TMP/imp.img "
u --json backstore show imp | python3 -c '
import json, sys
b = json.load(sys.stdin)
assert "size" not in b and b["current_size"] == int(sys.argv[1]), b' "$isize" ||
	ut_fail "backstore show --json: current_size is not the image's size $isize"
expect 0 u backstore delete imp
echo "ok: backstore list shows the size of a back-store used at its image's size ($isize)"

# a session: what it negotiated (a header digest the target requires),
# when it logged in, and its counters. liveio writes then reads one block
# (512 bytes) every 10 ms; stopped (SIGSTOP), nothing moves, so between two
# stops every command counted moved exactly 512 bytes.
INI=iqn.2026-12.org.utarget.adm:liveio
mrdsl=$(u --json settings show | python3 -c '
import json, sys
print(json.load(sys.stdin)["iscsi"]["max_recv_data_segment_length"])') ||
	ut_fail "settings show --json"
expect 0 u target set "$SEED" require_header_digest=true
t0=$(date -u +%s)
"$LIVEIO" -i "$INI" "iscsi://$P/$SEED/0" "$UT_TMP/io.stop" 60 >"$UT_TMP/io.out" 2>&1 &
IO_PID=$!
for ((i = 0; i < 100; i++)); do
	grep -q ready "$UT_TMP/io.out" && break
	kill -0 $IO_PID 2>/dev/null || break
	sleep 0.1
done
grep -q ready "$UT_TMP/io.out" || ut_fail "liveio did not start: $(cat "$UT_TMP/io.out")"
t1=$(date -u +%s)
sleep 0.5
# snap N: session list --json (to sN.json) and the table (to cmd.out)
# while liveio is stopped (its command in flight has completed by then)
snap() {
	local rc
	kill -STOP $IO_PID
	sleep 0.3
	u --json session list >"$UT_TMP/s$1.json" && u session list >"$UT_TMP/cmd.out" 2>&1
	rc=$?
	kill -CONT $IO_PID
	[ $rc = 0 ] || ut_fail "session list: $(cat "$UT_TMP/s$1.json" "$UT_TMP/cmd.out")"
}
snap 1
sleep 1
snap 2
got=$(python3 - "$UT_TMP/s1.json" "$UT_TMP/s2.json" "$INI" "$t0" "$t1" "$mrdsl" <<'PY'
import calendar, json, sys, time
s1, s2, ini = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
t0, t1, mrdsl = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
a = [s for s in s1 if s["initiator"] == ini]
b = [s for s in s2 if s["initiator"] == ini]
assert len(a) == 1 and len(b) == 1, (s1, s2)
a, b = a[0], b[0]
assert a["tsih"] == b["tsih"] and a["type"] == "normal" and a["logged_in"], (a, b)
# ISO 8601 UTC, between the start of liveio and its first I/O
lt = calendar.timegm(time.strptime(a["login_time"], "%Y-%m-%dT%H:%M:%SZ"))
assert t0 <= lt <= t1 and b["login_time"] == a["login_time"], (a["login_time"], t0, t1)
c = a["connections"][0]
assert c["header_digest"] == "CRC32C" and c["data_digest"] == "None", c
m = c["max_recv_data_segment_length"]
assert m["target"] == mrdsl and 512 <= m["initiator"] <= 16777215, (m, mrdsl)
n = a["negotiated"]
assert n["error_recovery_level"] == 0 and n["max_connections"] == 1, n
assert 512 <= n["first_burst_length"] <= n["max_burst_length"], n
assert isinstance(n["immediate_data"], bool) and isinstance(n["initial_r2t"], bool), n
x, y = a["stats"], b["stats"]
assert x["commands"] > 0 and x["read_bytes"] > 0 and x["write_bytes"] > 0, x
dc = y["commands"] - x["commands"]
dr, dw = y["read_bytes"] - x["read_bytes"], y["write_bytes"] - x["write_bytes"]
assert dc > 0 and dr > 0 and dw > 0, (x, y)
assert dr + dw == 512 * dc and abs(dr - dw) <= 512, (x, y)
print(a["tsih"], y["commands"])
PY
) || ut_fail "session list --json: $(cat "$UT_TMP"/s[12].json)"
read -r tsih ncmds <<<"$got"
# the table (liveio stopped: the same count)
hasre "^$tsih +normal +$SEED +1 +$INI +0:127\.0\.0\.1:[0-9]+ +[0-9]+s +$ncmds +[0-9.]+[KM]? +[0-9.]+[KM]?\$"
expect 0 u session show "$tsih"
hasre "^    header_digest +CRC32C\$"
hasre "^  error_recovery_level +0\$"
hasre "^login_time +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\$"
touch "$UT_TMP/io.stop"
wait $IO_PID || ut_fail "liveio: $(cat "$UT_TMP/io.out")"
grep -q "^ok .* ua_other=0 " "$UT_TMP/io.out" || ut_fail "liveio: $(cat "$UT_TMP/io.out")"
expect 0 u target set "$SEED" require_header_digest=null
echo "ok: session list shows digests, MaxRecvDataSegmentLength, ERL, the login time and counters that follow the I/O"

# ---- destructive commands say what they destroy (item 6) ----
# a file back-store's image is kept, a ram one's data is gone
truncate -s 1M "$UT_TMP/keep.img"
expect 0 u backstore create file keep "$UT_TMP/keep.img"
expect 0 u backstore delete keep
[ "$(cat "$UT_TMP/cmd.out")" = "backstore keep deleted; its image $UT_TMP/keep.img is kept" ] ||
	ut_fail "backstore delete (file): $(cat "$UT_TMP/cmd.out")"
[ -f "$UT_TMP/keep.img" ] || ut_fail "backstore delete removed the image"
expect 0 u backstore create ram gone 1M
expect 0 u backstore delete gone
[ "$(cat "$UT_TMP/cmd.out")" = "backstore gone deleted; its data (in memory) is gone" ] ||
	ut_fail "backstore delete (ram): $(cat "$UT_TMP/cmd.out")"
# a target with a session logged in: only with --force, which says so
STOP=$UT_TMP/hold.stop
"$HOLD" "iscsi://$P/$SEED/0" "$STOP" 60 >"$UT_TMP/hold.out" 2>&1 &
HOLD_PID=$!
for ((i = 0; i < 100; i++)); do
	grep -q ready "$UT_TMP/hold.out" && break
	kill -0 $HOLD_PID 2>/dev/null || break
	sleep 0.1
done
grep -q ready "$UT_TMP/hold.out" || ut_fail "holdsession did not start: $(cat "$UT_TMP/hold.out")"
expect 3 u target delete "$SEED"
has "target $SEED has 1 session logged in, which deleting it drops: confirm with --force"
kill -0 $HOLD_PID 2>/dev/null || ut_fail "a refused delete ended the session: $(cat "$UT_TMP/hold.out")"
printf '%s\n' "cd /iscsi" "delete $SEED" | u shell >"$UT_TMP/cmd.out" 2>&1
has "confirm with --force"
expect 0 u target delete "$SEED" --force
[ "$(cat "$UT_TMP/cmd.out")" = "target $SEED deleted; 1 session dropped" ] ||
	ut_fail "target delete --force: $(cat "$UT_TMP/cmd.out")"
wait $HOLD_PID
grep -q "^FAIL" "$UT_TMP/hold.out" || ut_fail "the session outlived its target: $(cat "$UT_TMP/hold.out")"
expect 0 u target delete "$T3"
[ "$(cat "$UT_TMP/cmd.out")" = "target $T3 deleted" ] || ut_fail "target delete: $(cat "$UT_TMP/cmd.out")"
echo "ok: target delete needs --force with sessions and counts them; backstore delete says what is kept"

ut_stop
echo "PASS cli_admin"
