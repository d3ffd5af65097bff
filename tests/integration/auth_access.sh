#!/bin/bash
# auth_access.sh UTARGETD RAWLOGIN: ACLs by network address and the discovery
# filter (docs/config.md "acls", "discovery"). The daemon listens on its own
# portals: 127.0.0.1:P (portal group of x, y and w) and 127.0.0.2:P (z only);
# the raw initiator picks its source address (127.0.0.1, .3, .4).
#   x: ACL "i1" from 127.0.0.1 only; ACL by address 127.0.0.3/32 (any
#      initiator) with its own map (LUN 7); ACL by address 127.0.0.0/8 with
#      the target's map (LUN 0). No demo mode.
#   y: demo mode, CHAP (user "yuser")     w: demo mode, no CHAP
#   z: on 127.0.0.2 only, ACL "i1"
# Login checks (named ACL bound to its address, the most specific address
# ACL, refusals 02/02), then SendTargets under each filter mode (none,
# portal, portal-name, portal-name-auth), one daemon start per mode.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RAW=${2:?usage: auth_access.sh UTARGETD RAWLOGIN}
[ -x "$RAW" ] || ut_fail "$RAW is not an executable"

X=iqn.2026-12.org.utarget:x
Y=iqn.2026-12.org.utarget:y
W=iqn.2026-12.org.utarget:w
Z=iqn.2026-12.org.utarget:z
I1=iqn.2026-12.org.utarget.test:i1
I2=iqn.2026-12.org.utarget.test:i2

ut_pick_port
export UT_OWN_PORTALS=1
config() { # filter
	ut_write_config "acc-$1.json" <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "d", "type": "ram", "size": "8M" },
                  { "name": "e", "type": "ram", "size": "4M" } ],
  "discovery": { "filter": "$1",
                 "auth": { "chap": [ { "user": "yuser", "secret": "yuser-secret" },
                                     { "user": "other", "secret": "other-secret" } ] } },
  "targets": [
    { "name": "$X",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "acls": [ { "initiator": "$I1", "addresses": ["127.0.0.1"] },
                { "addresses": ["127.0.0.3/32"], "luns": [ { "lun": 7, "backstore": "e" } ] },
                { "addresses": ["127.0.0.0/8"] } ] },
    { "name": "$Y",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true },
      "auth": { "chap": [ { "user": "yuser", "secret": "yuser-secret" } ] } },
    { "name": "$W",
      "portal_groups": [ { "tag": 3, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true } },
    { "name": "$Z",
      "portal_groups": [ { "tag": 4, "portals": ["127.0.0.2:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "acls": [ { "initiator": "$I1" } ] }
  ]
}
JSON
}

# rawlogin from source $1 as initiator $2, more arguments; its output
raw() {
	local src=$1 ini=$2
	shift 2
	"$RAW" --source "$src" --initiator "$ini" "$@" 2>&1
}
expect() { # want(ok|CC/DD) src initiator args...
	local want=$1 out
	shift
	out=$(raw "$@" --addr "127.0.0.1:$UT_PORT")
	case $want in
	ok) grep -q "^login ok" <<<"$out" || ut_fail "from $1 as $2 ${*:3}: $out (want login ok)" ;;
	*) grep -q "^login status $want" <<<"$out" || ut_fail "from $1 as $2 ${*:3}: $out (want $want)" ;;
	esac
	echo "$out"
}

config portal-name
ut_start "$UT_TMP/acc-portal-name.json"
expect ok 127.0.0.1 "$I1" --target "$X" >/dev/null
expect 02/02 127.0.0.4 "$I1" --target "$X" >/dev/null
echo "ok: a named ACL admits its initiator from its address only (02/02 elsewhere)"
out=$(expect ok 127.0.0.3 "$I2" --target "$X" --lun 7)
grep -q "^LUN 7: 8192 blocks" <<<"$out" || ut_fail "the 127.0.0.3/32 ACL does not get its own map: $out"
out=$(expect ok 127.0.0.4 "$I2" --target "$X" --lun 0)
grep -q "^LUN 0: 16384 blocks" <<<"$out" || ut_fail "the 127.0.0.0/8 ACL does not get the target's map: $out"
echo "ok: address ACLs: the most specific network decides (/32 own map, /8 the target's)"
ut_stop

# SendTargets: the target names, from source $1 as $2, through portal $3
targets() {
	local out
	out=$(raw "$1" "$2" --addr "$3:$UT_PORT" --discovery "${@:4}")
	grep -q "^login ok" <<<"$out" || ut_fail "discovery from $1 as $2 via $3: $out"
	sed -n 's/^  TargetName=//p' <<<"$out" | sort | tr '\n' ' '
}
addrs() { # the TargetAddress values
	raw "$1" "$2" --addr "$3:$UT_PORT" --discovery "${@:4}" | sed -n 's/^  TargetAddress=//p' |
		sort -u | tr '\n' ' '
}
want() { # got want what
	[ "$1" = "$2" ] || ut_fail "$3: got \"$1\", want \"$2\""
	echo "ok: $3: $1"
}
D1=(--chap-user other --chap-secret other-secret)
DY=(--chap-user yuser --chap-secret yuser-secret)
for mode in none portal portal-name portal-name-auth; do
	config $mode
	ut_start "$UT_TMP/acc-$mode.json"
	case $mode in
	none)
		want "$(targets 127.0.0.4 "$I2" 127.0.0.1 "${D1[@]}")" "$W $X $Y $Z " \
			"none: every target"
		want "$(addrs 127.0.0.4 "$I2" 127.0.0.1 "${D1[@]}")" \
			"127.0.0.1:$UT_PORT,1 127.0.0.1:$UT_PORT,2 127.0.0.1:$UT_PORT,3 127.0.0.2:$UT_PORT,4 " \
			"none: every portal"
		;;
	portal)
		want "$(targets 127.0.0.4 "$I2" 127.0.0.1 "${D1[@]}")" "$W $X $Y " \
			"portal: the targets of portal 127.0.0.1 (x admits 127.0.0.0/8)"
		want "$(addrs 127.0.0.4 "$I2" 127.0.0.1 "${D1[@]}")" \
			"127.0.0.1:$UT_PORT,1 127.0.0.1:$UT_PORT,2 127.0.0.1:$UT_PORT,3 " \
			"portal: only the portal groups of that portal"
		want "$(targets 127.0.0.4 "$I2" 127.0.0.2 "${D1[@]}")" "$Z " \
			"portal: through 127.0.0.2, z only"
		;;
	portal-name)
		want "$(targets 127.0.0.4 "$I1" 127.0.0.1 "${D1[@]}")" "$W $Y " \
			"portal-name: i1 from 127.0.0.4 (its ACL of x wants 127.0.0.1)"
		want "$(targets 127.0.0.1 "$I1" 127.0.0.1 "${D1[@]}")" "$W $X $Y " \
			"portal-name: i1 from 127.0.0.1"
		want "$(targets 127.0.0.1 "$I1" 127.0.0.2 "${D1[@]}")" "$Z " \
			"portal-name: i1 through 127.0.0.2"
		want "$(targets 127.0.0.4 "$I2" 127.0.0.2 "${D1[@]}")" "" \
			"portal-name: i2 through 127.0.0.2 (z has no ACL for it)"
		;;
	portal-name-auth)
		want "$(targets 127.0.0.1 "$I1" 127.0.0.1 "${D1[@]}")" "$W $X " \
			"portal-name-auth: discovery as \"other\" (y wants yuser)"
		want "$(targets 127.0.0.1 "$I1" 127.0.0.1 "${DY[@]}")" "$W $X $Y " \
			"portal-name-auth: discovery as \"yuser\""
		;;
	esac
	ut_stop
done
echo "PASS auth-access"
