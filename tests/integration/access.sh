#!/bin/bash
# access.sh UTARGETD: who may log in and what each initiator sees.
#   target "acl":  no demo mode; ACL "allowed" (the target's LUNs 0, 1) and
#                  ACL "ro" (its own map: LUN 5 = the same disk, write
#                  protected). Anyone else is refused (deny by default).
#   target "demo": demo mode, read-only: any initiator, LUN 0 write protected.
. "$(dirname "$0")/lib.sh"
ut_init "$1"

A=iqn.2026-12.org.utarget:acl
D=iqn.2026-12.org.utarget:demo
ALLOWED=iqn.2026-12.org.utarget.test:allowed
RO=iqn.2026-12.org.utarget.test:ro
OTHER=iqn.2026-12.org.utarget.test:other

ut_write_config acc.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "d", "type": "ram", "size": "32M" },
    { "name": "e", "type": "ram", "size": "16M" }
  ],
  "targets": [
    { "name": "$A",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" }, { "lun": 1, "backstore": "e" } ],
      "acls": [ { "initiator": "$ALLOWED" },
                { "initiator": "$RO", "luns": [ { "lun": 5, "backstore": "d", "read_only": true } ] } ] },
    { "name": "$D",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": true } }
  ]
}
JSON
ut_start "$UT_TMP/acc.json"
P=127.0.0.1:$UT_PORT

# LUNs target $2 shows to initiator $1 ("" when the login is refused)
luns_of() {
	timeout 60 iscsi-ls -s -i "$1" "iscsi://$P/" 2>/dev/null |
		awk -v t="Target:$2" '/^Target:/ { on = ($1 == t) } on && /^Lun:/ { printf "%s ", $1 }'
}

got=$(luns_of "$ALLOWED" "$A")
[ "$got" = "Lun:0 Lun:1 " ] || ut_fail "$ALLOWED sees \"$got\" on $A, want LUN 0 and 1"
echo "ok: $ALLOWED logs in to $A and sees LUN 0, 1"
got=$(luns_of "$RO" "$A")
[ "$got" = "Lun:5 " ] || ut_fail "$RO sees \"$got\" on $A, want LUN 5 only"
echo "ok: $RO sees its own map on $A: LUN 5"
got=$(luns_of "$OTHER" "$A")
[ -z "$got" ] || ut_fail "$OTHER sees \"$got\" on $A, want a refused login"
timeout 60 iscsi-inq -i "$OTHER" "iscsi://$P/$A/0" >/dev/null 2>&1 &&
	ut_fail "$OTHER logged in to $A"
echo "ok: $OTHER is refused by $A (deny by default)"
got=$(luns_of "$OTHER" "$D")
[ "$got" = "Lun:0 " ] || ut_fail "$OTHER sees \"$got\" on $D, want LUN 0 (demo mode)"
echo "ok: $OTHER logs in to $D (demo mode)"

# write protection, as libiscsi's ReadOnly test sees it (MODE SENSE WP bit,
# every medium write refused with DATA PROTECT)
wp() { # initiator url -> "passed" (write protected) or "skipped" (writable)
	timeout 120 iscsi-test-cu -d -v -i "$1" -I "$1-2" -t ALL.ReadOnly "$2" >"$UT_TMP/ro.log" 2>&1
	ut_cu_verdicts "$UT_TMP/ro.log" | awk '{ print $1 }'
}
[ "$(wp "$RO" "iscsi://$P/$A/5")" = passed ] || ut_fail "LUN 5 of $A is not write protected for $RO"
echo "ok: $RO: LUN 5 write protected"
[ "$(wp "$OTHER" "iscsi://$P/$D/0")" = passed ] || ut_fail "demo LUN 0 of $D is not write protected"
echo "ok: demo read-only: LUN 0 of $D write protected"
[ "$(wp "$ALLOWED" "iscsi://$P/$A/0")" = skipped ] || ut_fail "LUN 0 of $A is write protected for $ALLOWED"
echo "ok: $ALLOWED: LUN 0 writable"
ut_stop
echo "PASS access"
