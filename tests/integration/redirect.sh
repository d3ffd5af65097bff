#!/bin/bash
# redirect.sh UTARGETD UTARGET RAWLOGIN HOLDSESSION: login redirection (RFC
# 7143 11.13.5) per portal group and per target, changed live, kept across
# a restart, and the balance mode, driven by libiscsi (iscsi-inq,
# holdsession follow a temporary redirection) and the project's raw
# initiator (rawlogin prints the status and TargetAddress):
#
#   daemon A                                             daemon B
#   target T (demo, LUN 0 serial "HOMEA")                target M (demo,
#     tpg 1  P1  redirect -> P2,2 (temporary)              serial "HOMEB")
#     tpg 2  P2                                            tpg 1  P5
#     tpg 3  P3 P4  redirect balance
#   target M (ACL: $ALLOWED only)
#     tpg 1  P1  redirect -> P5 (the target moved to daemon B)
#
#  - a login to T through P1 is answered 01/01 TargetAddress=P2,2 and
#    iscsi-inq lands on P2; M through P1 sends $ALLOWED to daemon B, and
#    any other initiator gets 02/02 (an initiator the ACLs refuse learns no
#    address);
#  - `utarget tpg redirect` makes it permanent (01/02), moves it, turns it
#    off (the login through P1 is accepted), refuses a balance without two
#    portals and a malformed address; `utarget target redirect` likewise;
#  - balance: four sessions opened through P3 one after the other end up
#    two on P3 and two on P4 (session list, and `tpg list` "load");
#  - the target's redirect counter counts each redirected login;
#  - a redirection set live is in force after a restart.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: redirect.sh UTARGETD UTARGET RAWLOGIN HOLDSESSION"
UTARGET=${2:?$USAGE}
RAW=${3:?$USAGE}
HOLD=${4:?$USAGE}
command -v iscsi-inq >/dev/null || ut_fail "iscsi-inq not installed (libiscsi-bin)"

T=iqn.2026-12.org.utarget.rd:t
M=iqn.2026-12.org.utarget.rd:moved
ALLOWED=iqn.2026-12.org.utarget.rd:allowed
OTHER=iqn.2026-12.org.utarget.rd:other
SOCK=$UT_TMP/a.sock

# five distinct free ports
PORTS=()
for ((k = 0; k < 5; k++)); do
	for ((tries = 0; ; tries++)); do
		ut_pick_port
		case " ${PORTS[*]} " in *" $UT_PORT "*) ;; *) break ;; esac
		[ $tries -lt 50 ] || ut_fail "no five free ports"
	done
	PORTS+=("$UT_PORT")
done
P1=127.0.0.1:${PORTS[0]} P2=127.0.0.1:${PORTS[1]} P3=127.0.0.1:${PORTS[2]}
P4=127.0.0.1:${PORTS[3]} P5=127.0.0.1:${PORTS[4]}
UT_PORT=${PORTS[0]}
export UT_OWN_PORTALS=1

u() { "$UTARGET" -s "$SOCK" "$@"; }
# expect STATUS CMD...: CMD exits STATUS; its output in $UT_TMP/cmd.out
expect() {
	local want=$1 rc
	shift
	"$@" >"$UT_TMP/cmd.out" 2>&1
	rc=$?
	[ $rc = "$want" ] || ut_fail "$* exited $rc, want $want: $(cat "$UT_TMP/cmd.out")"
}
has() {
	grep -qF -- "$1" "$UT_TMP/cmd.out" || ut_fail "want \"$1\" in: $(cat "$UT_TMP/cmd.out")"
}
# raw PORTAL TARGET INITIATOR: the raw initiator's login, output in cmd.out
raw() {
	"$RAW" --addr "$1" --target "$2" --initiator "$3" >"$UT_TMP/cmd.out" 2>&1
	echo $?
}
# serial PORTAL TARGET INITIATOR: the unit serial number (VPD 80h) iscsi-inq reads
serial() {
	timeout 30 iscsi-inq -i "$3" -e 1 -c 128 "iscsi://$1/$2/0" 2>&1 |
		sed -n 's/^Unit Serial Number:\[\(.*\)\]$/\1/p'
}
redirects_of() {
	u stats --json | python3 -c '
import json, sys
name = sys.argv[1]
def walk(o):
    if isinstance(o, dict):
        if o.get("name") == name or o.get("target") == name:
            for v in o.values():
                if isinstance(v, dict) and "redirects" in v:
                    return v["redirects"]
        for v in o.values():
            r = walk(v)
            if r is not None:
                return r
    elif isinstance(o, list):
        for v in o:
            r = walk(v)
            if r is not None:
                return r
    return None
print(walk(json.load(sys.stdin)))' "$1"
}

# ---- daemon B: where target M moved ----
cat >"$UT_TMP/b.json" <<JSON
{
  "version": 1,
  "state_dir": "$UT_TMP/b",
  "rpc_socket": "$UT_TMP/b.sock",
  "backstores": [ { "name": "b0", "type": "ram", "size": "8M", "serial": "HOMEB" } ],
  "targets": [
    { "name": "$M", "portal_groups": [ { "tag": 1, "portals": ["$P5"] } ],
      "luns": [ { "lun": 0, "backstore": "b0" } ],
      "demo_mode": { "enabled": true, "read_only": true } }
  ]
}
JSON
mkdir -p "$UT_TMP/b"
"$UTARGETD" -f -c "$UT_TMP/b.json" --log-level info >"$UT_TMP/b.log" 2>&1 &
B_PID=$!
trap 'kill -KILL $B_PID 2>/dev/null; ut_cleanup' EXIT

ut_write_config a.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "$SOCK",
  "backstores": [ { "name": "d0", "type": "ram", "size": "8M", "serial": "HOMEA" } ],
  "targets": [
    { "name": "$T",
      "portal_groups": [
        { "tag": 1, "portals": ["$P1"], "redirect": { "address": "$P2,2" } },
        { "tag": 2, "portals": ["$P2"] },
        { "tag": 3, "portals": ["$P3", "$P4"], "redirect": { "balance": true } } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "demo_mode": { "enabled": true, "read_only": true } },
    { "name": "$M",
      "portal_groups": [ { "tag": 1, "portals": ["$P1"] } ],
      "luns": [ { "lun": 0, "backstore": "d0" } ],
      "acls": [ { "initiator": "$ALLOWED" } ],
      "redirect": { "address": "$P5" } }
  ]
}
JSON
ut_start "$UT_TMP/a.json"
for ((i = 0; i < 100; i++)); do
	ut_can_connect "${PORTS[4]}" && break
	sleep 0.1
done
ut_can_connect "${PORTS[4]}" || ut_fail "daemon B did not start: $(cat "$UT_TMP/b.log")"

# ---- per portal group, from the file ----
rc=$(raw "$P1" "$T" "$ALLOWED")
[ "$rc" = 3 ] || ut_fail "login through P1 exited $rc, want 3: $(cat "$UT_TMP/cmd.out")"
has "login status 01/01"
has "target address $P2,2"
echo "ok: T through P1: 01/01 TargetAddress=$P2,2"
got=$(serial "$P1" "$T" "$ALLOWED")
[ "$got" = HOMEA ] || ut_fail "iscsi-inq through P1 read serial \"$got\", want HOMEA"
rc=$(raw "$P2" "$T" "$ALLOWED")
[ "$rc" = 0 ] || ut_fail "login through P2 exited $rc: $(cat "$UT_TMP/cmd.out")"
echo "ok: iscsi-inq follows it (serial HOMEA); through P2 the login is accepted"

# ---- per target: moved to daemon B; the ACL first ----
rc=$(raw "$P1" "$M" "$OTHER")
[ "$rc" = 3 ] || ut_fail "M refused initiator exited $rc: $(cat "$UT_TMP/cmd.out")"
has "login status 02/02"
grep -q "target address" "$UT_TMP/cmd.out" && ut_fail "a refused initiator learned an address"
rc=$(raw "$P1" "$M" "$ALLOWED")
[ "$rc" = 3 ] || ut_fail "M exited $rc: $(cat "$UT_TMP/cmd.out")"
has "login status 01/01"
has "target address $P5"
got=$(serial "$P1" "$M" "$ALLOWED")
[ "$got" = HOMEB ] || ut_fail "iscsi-inq of M read serial \"$got\", want HOMEB (daemon B)"
echo "ok: M: $OTHER 02/02 without an address; $ALLOWED 01/01 to $P5, lands on daemon B"

# ---- live changes (utarget) ----
expect 0 u tpg redirect "$T" 1 "$P3,3" --permanent
has "logins are redirected permanently to $P3,3"
rc=$(raw "$P1" "$T" "$ALLOWED")
[ "$rc" = 3 ] || ut_fail "exited $rc: $(cat "$UT_TMP/cmd.out")"
has "login status 01/02"
has "target address $P3,3"
expect 0 u tpg redirect "$T" 1 --off
has "logins are no longer redirected"
rc=$(raw "$P1" "$T" "$ALLOWED")
[ "$rc" = 0 ] || ut_fail "login through P1 after --off exited $rc: $(cat "$UT_TMP/cmd.out")"
echo "ok: tpg redirect --permanent gives 01/02 TargetAddress=$P3,3; --off lets the login in"
expect 3 u tpg redirect "$T" 2 --balance
has "balance needs two portals with an address of their own"
expect 3 u tpg redirect "$T" 2 "bad:addr:99999"
has "the port after ':' must be 1..65535"
expect 1 u tpg redirect "$T" 2 "$P1" --off
expect 3 u target set "$M" 'redirect:={"balance": true}'
has "balance is a portal group's"
expect 0 u target redirect "$M" "[::1]:3260,7" --permanent
rc=$(raw "$P1" "$M" "$ALLOWED")
has "login status 01/02"
has "target address [::1]:3260,7"
expect 0 u target redirect "$M" --off
rc=$(raw "$P1" "$M" "$ALLOWED")
[ "$rc" = 0 ] || ut_fail "M after --off exited $rc: $(cat "$UT_TMP/cmd.out")"
echo "ok: refusals (one portal, bad port, --off with an address, a target's balance); target redirect live"

# ---- balance: four sessions through P3 ----
STOP=$UT_TMP/stop
for i in 1 2 3 4; do
	"$HOLD" -i "iqn.2026-12.org.utarget.rd:h$i" "iscsi://$P3/$T/0" "$STOP" 60 \
		>"$UT_TMP/hold$i.out" 2>&1 &
	for ((k = 0; k < 100; k++)); do
		grep -q ready "$UT_TMP/hold$i.out" && break
		sleep 0.1
	done
	grep -q ready "$UT_TMP/hold$i.out" || ut_fail "session $i: $(cat "$UT_TMP/hold$i.out")"
done
on=$(u session list --json | python3 -c '
import json, sys
c = {}
for s in json.load(sys.stdin):
    for k in s["connections"]:
        c[k["local"]] = c.get(k["local"], 0) + 1
print(" ".join("%s=%d" % kv for kv in sorted(c.items())))')
want=$(printf '%s=2\n' "$P3" "$P4" | sort | tr '\n' ' ' | sed 's/ $//')
[ "$on" = "$want" ] || ut_fail "sessions by portal: $on, want $want"
load=$(u tpg list "$T" --json | python3 -c '
import json, sys
for g in json.load(sys.stdin):
    if g["tag"] == 3:
        print(" ".join("%s=%d" % (p["portal"], p["connections"]) for p in g["load"]))')
[ "$load" = "$P3=2 $P4=2" ] || ut_fail "tpg list load: $load"
touch "$STOP"
wait_holds=0
for i in 1 2 3 4; do
	for ((k = 0; k < 100; k++)); do
		grep -q "ok commands" "$UT_TMP/hold$i.out" && break
		sleep 0.1
	done
	grep -q "ok commands" "$UT_TMP/hold$i.out" || wait_holds=1
done
[ $wait_holds = 0 ] || ut_fail "a balanced session failed: $(cat "$UT_TMP"/hold*.out)"
echo "ok: balance: 4 sessions through P3 -> $on (tpg list load: $load)"

# ---- counters: 1 rawlogin + 1 iscsi-inq + 1 permanent + 2 balanced ----
got=$(redirects_of "$T")
[ "$got" = 5 ] || ut_fail "target T counted $got redirects, want 5"
got=$(redirects_of "$M")
[ "$got" = 3 ] || ut_fail "target M counted $got redirects, want 3"
echo "ok: redirect counters: T 5, M 3"

# ---- a live change survives a restart ----
expect 0 u tpg redirect "$T" 1 "$P4,3"
ut_stop
ut_start "$UT_TMP/a.json"
rc=$(raw "$P1" "$T" "$ALLOWED")
[ "$rc" = 3 ] || ut_fail "after restart exited $rc: $(cat "$UT_TMP/cmd.out")"
has "login status 01/01"
has "target address $P4,3"
echo "ok: the redirection set live holds after a restart"
ut_stop
kill -TERM $B_PID
wait $B_PID
ut_sanitizer_check "$UT_TMP/b.log"
echo "PASS redirect"
