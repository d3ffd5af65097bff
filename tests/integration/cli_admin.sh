#!/bin/bash
# cli_admin.sh UTARGETD UTARGET HOLDSESSION: administrator safety (issue 18):
# what utarget and the control API say and refuse, checked as the
# administrator reads it.
#   - errors about the daemon's own config file name the file and the line
#     (config check, config reload) and a refused reload is logged;
#   - with --listen, a portal change it would not honour is refused with
#     the reason; daemon info, target show and the log say what listens;
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?usage: cli_admin.sh UTARGETD UTARGET HOLDSESSION}
HOLD=${3:?usage: cli_admin.sh UTARGETD UTARGET HOLDSESSION}
command -v iscsi-inq >/dev/null || ut_fail "iscsi-inq not installed (libiscsi-bin)"

ut_pick_port
ut_pick_port2
P=127.0.0.1:$UT_PORT
P2=127.0.0.1:$UT_PORT2
SOCK=$UT_TMP/utargetd.sock
SEED=iqn.2026-12.org.utarget.adm:seed
T1=iqn.2026-12.org.utarget.adm:t1
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

ut_stop
echo "PASS cli_admin"
