#!/bin/bash
# cli_control.sh UTARGETD UTARGET HOLDSESSION: the utarget CLI drives a running
# utargetd (issue 4, acceptance 1).
#   1. build a target with two LUNs, two ACLs and mutual CHAP, with the CLI
#      only (the daemon starts with a "seed" target in demo mode);
#   2. log in with libiscsi as each initiator: right secret (and the target's
#      mutual secret), wrong secret, wrong mutual secret, no ACL;
#   3. restart utargetd: the same configuration comes back (and logins work);
#   4. hand-edit the config file and "utarget config reload": a libiscsi
#      session on the untouched seed target keeps working across the reload
#      (holdsession), the edit is live.
# Ports: 3850-3899 (this test's range).
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?usage: cli_control.sh UTARGETD UTARGET HOLDSESSION}
HOLD=${3:?usage: cli_control.sh UTARGETD UTARGET HOLDSESSION}
command -v iscsi-inq >/dev/null || ut_fail "iscsi-inq not installed (libiscsi-bin)"

for ((p = 3850 + RANDOM % 50, i = 0; i < 50; i++, p = 3850 + (p - 3850 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free TCP port in 3850-3899"
P=127.0.0.1:$UT_PORT
SOCK=$UT_TMP/utargetd.sock
SEED=iqn.2026-12.org.utarget.cli:seed
T=iqn.2026-12.org.utarget.cli:t1
A=iqn.2026-12.org.utarget.cli:host-a
B=iqn.2026-12.org.utarget.cli:host-b
C=iqn.2026-12.org.utarget.cli:host-c
u() { "$UTARGET" -s "$SOCK" "$@"; }

ut_write_config cli.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "backstores": [ { "name": "seed", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$SEED",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "seed" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
CFG=$UT_TMP/cli.json
ut_start "$CFG"

# ---- 1. build the target with the CLI ----
run() { # run CMD...: must succeed
	"$@" >"$UT_TMP/cmd.out" 2>&1 || ut_fail "$* (exit $?): $(cat "$UT_TMP/cmd.out")"
}
run u backstore create ram d0 32M
run u backstore create file d1 "$UT_TMP/d1.img" 16M thin=true
run u target create "$T" --portal "$P" --alias "cli test"
run u lun add "$T" d0 0
run u lun add "$T" d1 1
run u acl add "$T" "$A"
run u acl add "$T" "$B"
chap() { # initiator user secret: its own CHAP credential, and the target's mutual one
	printf '{"chap": [{"user": "%s", "secret": "%s"}], "mutual": {"user": "%s", "secret": "%s"}}' \
		"$2" "$3" "$T" "target-secret-77"
}
run u acl set "$T" "$A" "auth:=$(chap "$A" user-a secret-a-1234)"
# the same for B with the chap commands (the secret from standard input)
echo secret-b-5678 | run u chap add "$T" user-b - --initiator "$B"
run u chap mutual "$T" "$T" target-secret-77 --initiator "$B"
echo "ok: built $T (2 LUNs, 2 ACLs with mutual CHAP) with utarget"

u --json target show "$T" >"$UT_TMP/t.json" || ut_fail "target show: $(cat "$UT_TMP/t.json")"
python3 - "$UT_TMP/t.json" "$A" "$B" <<'PY' || ut_fail "target show does not match what was built"
import json, sys
t = json.load(open(sys.argv[1]))
assert [(l["lun"], l["backstore"]) for l in t["luns"]] == [(0, "d0"), (1, "d1")], t["luns"]
acls = {a["initiator"]: a for a in t["acls"]}
assert set(acls) == {sys.argv[2], sys.argv[3]}, acls
for a in acls.values():  # the secret is config show's only (redacted here)
    assert a["auth"]["mutual"] == {"user": t["name"], "redacted": True}, a
PY
u config show 2>/dev/null | grep -c '"secret": "target-secret-77"' | grep -qx 2 ||
	ut_fail "config show lacks the mutual secrets of the two ACLs"
u target list | grep -q "^$T " || ut_fail "target list does not show $T"
echo "ok: utarget target show/list report it"

# ---- 2. logins with libiscsi ----
inq() { # initiator url [env...]: 0 when the login (and INQUIRY) worked
	local i=$1 url=$2
	shift 2
	env "$@" timeout 30 iscsi-inq -i "$i" "$url" >"$UT_TMP/inq.out" 2>&1
}
MUTUAL="target_user=$T&target_password=target-secret-77"
check_logins() {
	inq "$A" "iscsi://user-a%secret-a-1234@$P/$T/0?$MUTUAL" ||
		ut_fail "$A, right secrets: $(cat "$UT_TMP/inq.out")"
	inq "$B" "iscsi://user-b%secret-b-5678@$P/$T/1?$MUTUAL" ||
		ut_fail "$B, right secrets: $(cat "$UT_TMP/inq.out")"
	echo "ok: $A and $B log in (CHAP and mutual CHAP)"
	inq "$A" "iscsi://user-a%wrong-secret-1@$P/$T/0?$MUTUAL" &&
		ut_fail "$A logged in with a wrong secret"
	grep -q "Authentication failure" "$UT_TMP/inq.out" ||
		ut_fail "wrong secret: want 02/01 Authentication failure: $(cat "$UT_TMP/inq.out")"
	inq "$A" "iscsi://user-b%secret-b-5678@$P/$T/0?$MUTUAL" &&
		ut_fail "$A logged in with $B's credential"
	echo "ok: a wrong secret (or another initiator's) gets 02/01"
	inq "$A" "iscsi://user-a%secret-a-1234@$P/$T/0?target_user=$T&target_password=not-the-target" &&
		ut_fail "$A accepted a target that does not know the mutual secret"
	echo "ok: libiscsi refuses the target when the mutual secret differs"
	inq "$C" "iscsi://user-a%secret-a-1234@$P/$T/0?$MUTUAL" && ut_fail "$C (no ACL) logged in"
	grep -q "Authorization failure" "$UT_TMP/inq.out" ||
		ut_fail "no ACL: want 02/02 Authorization failure: $(cat "$UT_TMP/inq.out")"
	echo "ok: $C (no ACL) is denied with 02/02"
}
check_logins

# ---- 3. restart: the same state ----
u config show >"$UT_TMP/before.json" || ut_fail "config show failed"
ut_stop
ut_start "$CFG"
u config show >"$UT_TMP/after.json" || ut_fail "config show after the restart failed"
python3 - "$UT_TMP/before.json" "$UT_TMP/after.json" <<'PY' || ut_fail "the restarted daemon's configuration differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
if a != b:
    print("before:", json.dumps(a, sort_keys=True))
    print("after: ", json.dumps(b, sort_keys=True))
    sys.exit(1)
PY
echo "ok: after a restart utargetd has the same configuration"
check_logins

# ---- 4. reload a hand-edited file; an untouched session keeps working ----
STOP=$UT_TMP/hold.stop
"$HOLD" -i "$A" "iscsi://$P/$SEED/0" "$STOP" 120 >"$UT_TMP/hold.out" 2>&1 &
HOLD_PID=$!
for ((i = 0; i < 100; i++)); do
	grep -q ready "$UT_TMP/hold.out" && break
	kill -0 $HOLD_PID 2>/dev/null || break
	sleep 0.1
done
grep -q ready "$UT_TMP/hold.out" || ut_fail "holdsession did not start: $(cat "$UT_TMP/hold.out")"
run u config save
python3 - "$CFG" "$T" <<'PY' || ut_fail "cannot edit the config file"
import json, sys
cfg = json.load(open(sys.argv[1]))
cfg["backstores"].append({"name": "d2", "type": "ram", "size": "4M"})
for t in cfg["targets"]:
    if t["name"] == sys.argv[2]:
        t["luns"].append({"lun": 2, "backstore": "d2", "read_only": True})
        t["alias"] = "edited by hand"
json.dump(cfg, open(sys.argv[1], "w"), indent=2)
PY
u config reload --dry-run >"$UT_TMP/dry.out" 2>&1 || ut_fail "reload --dry-run: $(cat "$UT_TMP/dry.out")"
grep -q "would change" "$UT_TMP/dry.out" || ut_fail "reload --dry-run lists no change: $(cat "$UT_TMP/dry.out")"
u --json lun list "$T" | grep -q '"backstore": "d2"' && ut_fail "--dry-run applied the change"
run u config reload
u --json lun list "$T" >"$UT_TMP/luns.json"
python3 - "$UT_TMP/luns.json" <<'PY' || ut_fail "the reloaded LUN map is not the edited one: $(cat "$UT_TMP/luns.json")"
import json, sys
luns = {l["lun"]: l for l in json.load(open(sys.argv[1]))}
assert luns[2]["backstore"] == "d2" and luns[2]["read_only"] is True
PY
u --json target show "$T" | grep -q '"alias": "edited by hand"' || ut_fail "the alias was not reloaded"
echo "ok: config reload applied the hand edit (LUN 2, alias)"
sleep 1 # the held session keeps reading after the reload
touch "$STOP"
wait $HOLD_PID
rc=$?
[ $rc = 0 ] || ut_fail "the seed target's session broke across the reload: $(cat "$UT_TMP/hold.out")"
echo "ok: the untouched session kept working across the reload ($(tail -n 1 "$UT_TMP/hold.out"))"
inq "$B" "iscsi://user-b%secret-b-5678@$P/$T/2?$MUTUAL" ||
	ut_fail "$B cannot reach the reloaded LUN 2: $(cat "$UT_TMP/inq.out")"
echo "ok: the reloaded LUN is reachable"

ut_stop
echo "PASS cli_control"
