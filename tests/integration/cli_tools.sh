#!/bin/bash
# cli_tools.sh UTARGETD UTARGET: the rest of the utarget CLI against a running
# utargetd: stable exit statuses and --json on read commands, imports from
# tgt and LIO (dry run, refusal when something cannot be carried over,
# --partial, --output) seen by a real initiator, and the shell reading
# commands from a pipe. Ports: 3850-3899.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
UTARGET=${2:?usage: cli_tools.sh UTARGETD UTARGET}
command -v iscsi-ls >/dev/null || ut_fail "iscsi-ls not installed (libiscsi-bin)"

for ((p = 3850 + RANDOM % 50, i = 0; i < 50; i++, p = 3850 + (p - 3850 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free TCP port in 3850-3899"
P=127.0.0.1:$UT_PORT
SOCK=$UT_TMP/utargetd.sock
SEED=iqn.2026-12.org.utarget.cli:seed
u() { "$UTARGET" -s "$SOCK" "$@"; }
# status WANT CMD...: CMD exits WANT
status() {
	local want=$1 rc
	shift
	"$@" >"$UT_TMP/cmd.out" 2>&1
	rc=$?
	[ $rc = "$want" ] || ut_fail "$* exited $rc, want $want: $(cat "$UT_TMP/cmd.out")"
}

ut_write_config tools.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/utargetd.sock",
  "backstores": [ { "name": "seed", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$SEED",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "seed" } ] }
  ]
}
JSON
ut_start "$UT_TMP/tools.json"

# ---- exit statuses, --json ----
status 2 "$UTARGET" -s "$UT_TMP/nothing.sock" target list
status 1 u target frobnicate
status 1 u lun add "$SEED"
status 4 u backstore show nosuch
status 5 u backstore create ram seed 8M
status 3 u backstore create ram bad 1000 block_size=4096
status 3 u backstore delete seed
status 0 u backstore create ram r1 16M
u --json backstore show r1 >"$UT_TMP/r1.json"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); assert b["name"]=="r1" and b["type"]=="ram", b' \
	"$UT_TMP/r1.json" || ut_fail "--json backstore show: $(cat "$UT_TMP/r1.json")"
for cmd in "backstore list" "target list" "session list" "daemon info" "settings show" \
	"lun list $SEED" "acl list $SEED" "tpg list $SEED" "methods" "reservation get seed"; do
	# shellcheck disable=SC2086
	u --json $cmd >"$UT_TMP/j.out" 2>&1 || ut_fail "--json $cmd: $(cat "$UT_TMP/j.out")"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$UT_TMP/j.out" ||
		ut_fail "--json $cmd is not JSON: $(cat "$UT_TMP/j.out")"
done
status 0 u backstore delete r1
echo "ok: exit statuses 0-5 and --json on every read command"

# ---- every method of the daemon has a command (or "call") ----
u --json methods >"$UT_TMP/methods.json"
python3 - "$UT_TMP/methods.json" "$UTARGET" <<'PY' || ut_fail "methods without a CLI command"
import json, subprocess, sys
methods = json.load(open(sys.argv[1]))["methods"]
helptext = subprocess.run([sys.argv[2], "--help"], capture_output=True, text=True).stdout
# a method family is a command object of the same name, except these
family = {"portal_group": "tpg", "rpc": "methods"}
objects = {line.split()[0] for line in helptext.splitlines() if line.startswith("  ") and line.split()}
missing = [m for m in methods if family.get(m.split(".")[0], m.split(".")[0]) not in objects]
if missing:
    print("no command for:", missing)
    sys.exit(1)
PY
echo "ok: every method of the daemon's table has a command"

# ---- import tgt ----
cat >"$UT_TMP/targets.conf" <<CONF
<target iqn.2026-12.org.utarget.cli:from-tgt>
    <backing-store $UT_TMP/tgt-disk.img>
        vendor_id TGTVEND
        lun 1
    </backing-store>
    initiator-name iqn.2026-12.org.utarget.cli:tgt-host
    incominguser tgtuser tgt-secret-12
</target>
CONF
truncate -s 8M "$UT_TMP/tgt-disk.img"
status 0 u import tgt "$UT_TMP/targets.conf" --portal "$P" --dry-run
grep -q '"vendor": "TGTVEND"' "$UT_TMP/cmd.out" || ut_fail "dry run output: $(cat "$UT_TMP/cmd.out")"
status 4 u target show iqn.2026-12.org.utarget.cli:from-tgt
status 0 u import tgt "$UT_TMP/targets.conf" --portal "$P"
timeout 60 iscsi-ls -s -i iqn.2026-12.org.utarget.cli:tgt-host \
	"iscsi://tgtuser%tgt-secret-12@$P/" >"$UT_TMP/ls.out" 2>&1
grep -q "Target:iqn.2026-12.org.utarget.cli:from-tgt" "$UT_TMP/ls.out" &&
	grep -q "Lun:1 " "$UT_TMP/ls.out" || ut_fail "the imported tgt target: $(cat "$UT_TMP/ls.out")"
echo "ok: import tgt: dry run changes nothing, the import is live (LUN 1, CHAP, ACL)"
# importing the same file again: the names exist, nothing changes
status 5 u import tgt "$UT_TMP/targets.conf" --portal "$P"

# ---- import lio ----
cat >"$UT_TMP/saveconfig.json" <<LIO
{ "storage_objects": [
    { "name": "lio-ram", "plugin": "ramdisk", "size": 8388608,
      "wwn": "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9" },
    { "name": "tape", "plugin": "pscsi", "dev": "2:0:9:0" } ],
  "targets": [ { "fabric": "iscsi", "wwn": "iqn.2026-12.org.utarget.cli:from-lio",
    "tpgs": [ { "tag": 1, "enable": true,
      "attributes": { "generate_node_acls": 1, "demo_mode_write_protect": 0 },
      "luns": [ { "index": 0, "storage_object": "/backstores/ramdisk/lio-ram" },
                { "index": 1, "storage_object": "/backstores/pscsi/tape" } ],
      "portals": [ { "ip_address": "127.0.0.1", "port": $UT_PORT } ] } ] } ] }
LIO
status 6 u import lio "$UT_TMP/saveconfig.json"
grep -q "dropped: storage_objects\[1\] (pscsi/tape)" "$UT_TMP/cmd.out" ||
	ut_fail "the report does not name the pscsi object: $(cat "$UT_TMP/cmd.out")"
status 4 u target show iqn.2026-12.org.utarget.cli:from-lio
status 0 u import lio "$UT_TMP/saveconfig.json" --output "$UT_TMP/lio-out.json" --partial
[ "$(stat -c %a "$UT_TMP/lio-out.json")" = 600 ] || ut_fail "--output file is not 0600"
status 0 u config check "$UT_TMP/lio-out.json"
status 0 u import lio "$UT_TMP/saveconfig.json" --partial
timeout 60 iscsi-inq -i iqn.2026-12.org.utarget.cli:anyone \
	"iscsi://$P/iqn.2026-12.org.utarget.cli:from-lio/0" >"$UT_TMP/inq.out" 2>&1 ||
	ut_fail "the imported LIO target: $(cat "$UT_TMP/inq.out")"
grep -q "LIO-ORG" "$UT_TMP/inq.out" || ut_fail "INQUIRY is not LIO's: $(cat "$UT_TMP/inq.out")"
echo "ok: import lio: refused with the dropped item named, then --partial; INQUIRY as LIO said"

# ---- the shell, commands from a pipe ----
printf '%s\n' "cd /backstores/ram" "create sh 4M" "cd /iscsi/$SEED/luns" \
	"create sh 7 --read-only" "ls" "cd lun7" "get" "set read_only=false" "cd /backstores/ram" \
	"ls" "pwd" "exit" |
	u shell >"$UT_TMP/shell.out" 2>&1 || ut_fail "shell: $(cat "$UT_TMP/shell.out")"
grep -q "^lun7  -> sh (read-only)" "$UT_TMP/shell.out" &&
	grep -q "^/backstores/ram$" "$UT_TMP/shell.out" &&
	grep -q "^sh  *4M, 1 mapping" "$UT_TMP/shell.out" && ! grep -q "^utarget:" "$UT_TMP/shell.out" ||
	ut_fail "shell output: $(cat "$UT_TMP/shell.out")"
u --json lun list "$SEED" | python3 -c '
import json, sys
l = {x["lun"]: x for x in json.load(sys.stdin)}
assert l[7]["read_only"] is False' || ut_fail "the shell's set did not reach the daemon"
echo "ok: the shell (cd, create, ls, get, set, pwd) drives the daemon"

# ---- import --replace: the imported configuration replaces the running one ----
printf '<target iqn.2026-12.org.utarget.cli:replaced>\n    backing-store %s\n</target>\n' \
	"$UT_TMP/tgt-disk.img" >"$UT_TMP/replace.conf"
status 0 u import tgt "$UT_TMP/replace.conf" --portal "$P" --replace
u --json target list | python3 -c '
import json, sys
names = [t["name"] for t in json.load(sys.stdin)]
assert names == ["iqn.2026-12.org.utarget.cli:replaced"], names' ||
	ut_fail "import --replace left other targets: $(u target list)"
echo "ok: import --replace makes the running configuration the imported one"

ut_stop
echo "PASS cli_tools"
