#!/bin/bash
# mode_saved.sh UTARGETD CDBPROBE: saved mode pages (SPC-4 7.5.1; src/scsi/
# mode_store.c) over iSCSI with a real initiator (libiscsi, cdbprobe):
#  - MODE SELECT SP=1 of the Caching page saves WCE in the state directory
#    (mode-<NAA>.state); MODE SENSE PC=11b reads it back, PS is 1;
#  - after a restart of utargetd the saved value is the current one;
#  - SP=1 with a page that cannot be saved (01h): INVALID FIELD IN CDB;
#  - a damaged state file stops the start, naming the file.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
PROBE=${2:?usage: mode_saved.sh UTARGETD CDBPROBE}
ut_pick_port

ut_write_config mode.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@/state",
  "backstores": [ { "name": "disk", "type": "ram", "size": "16M" } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:mode",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "disk" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:mode/0

# cdb ARGS...: cdbprobe's line in $OUT; a unit attention (the first command
# of a session after power on or a change) is retried
cdb() {
	local try
	for try in 1 2 3; do
		OUT=$("$PROBE" "$url" "$@") || ut_fail "cdbprobe $*: $OUT"
		case $OUT in *"key=0x6 "*) continue ;; esac
		return 0
	done
	ut_fail "cdbprobe $*: still a unit attention: $OUT"
}

# caching PC: the Caching page (08h) of MODE SENSE(6), DBD, page control PC
# (0 current, 3 saved) -> $PAGE (hex, from its first byte)
caching() {
	cdb "1a08$(printf %02x $(($1 << 6 | 8)))00ff00" in 255
	case $OUT in status=GOOD*) ;; *) ut_fail "MODE SENSE PC=$1: $OUT" ;; esac
	PAGE=${OUT#*data=}
	PAGE=${PAGE:8}
	[ "${PAGE:2:2}" = 12 ] || ut_fail "MODE SENSE PC=$1: not the Caching page: $OUT"
}
# the WCE bit of $PAGE: 0 or 1
wce() { echo $(((0x${PAGE:4:2} >> 2) & 1)); }

ut_start "$UT_TMP/mode.json"
caching 0
cur=$(wce)
[ "${PAGE:0:2}" = 88 ] || ut_fail "Caching page PS bit: want 88h, got ${PAGE:0:2}h"
caching 3
[ "$(wce)" = "$cur" ] || ut_fail "saved WCE before any save: want the default $cur"
echo "ok: Caching page PS 1, saved WCE = default ($cur)"
new=$((1 - cur))

# MODE SELECT(6) PF=1 SP=1: header + Caching page with WCE flipped
sel=00000000$(printf '0812%02x' $((new << 2)))$(printf '%034d' 0)
cdb 151100001800 out "$sel"
[ "$OUT" = status=GOOD ] || ut_fail "MODE SELECT SP=1: $OUT"
ls "$UT_TMP"/state/mode-*.state >/dev/null 2>&1 || ut_fail "no mode-<NAA>.state file"
caching 3
[ "$(wce)" = "$new" ] || ut_fail "saved WCE after SP=1: want $new"
caching 0
[ "$(wce)" = "$new" ] || ut_fail "current WCE after SP=1: want $new"
echo "ok: MODE SELECT SP=1 saved WCE=$new ($(basename "$UT_TMP"/state/mode-*.state))"

# SP=1 with the Read-Write Error Recovery page: nothing of it can be saved
cdb 151100001000 out "00000000010a$(printf '%020d' 0)"
case $OUT in *"key=0x5 asc=0x24 ascq=0x00"*) ;; *) ut_fail "SP=1 on page 01h: $OUT" ;; esac
echo "ok: SP=1 on page 01h -> INVALID FIELD IN CDB"

ut_stop
ut_start "$UT_TMP/mode.json"
caching 0
[ "$(wce)" = "$new" ] || ut_fail "current WCE after a restart: want the saved $new"
caching 3
[ "$(wce)" = "$new" ] || ut_fail "saved WCE after a restart: want $new"
grep -q "saved mode pages loaded" "$UT_LOG" || ut_fail "no 'saved mode pages loaded' in the log"
echo "ok: after a restart the current WCE is the saved one ($new)"
ut_stop

# one flipped bit: refused whole, the start fails and names the file
f=$(ls "$UT_TMP"/state/mode-*.state)
printf '\x55' | dd of="$f" bs=1 seek=20 conv=notrunc status=none
timeout 60 "$UTARGETD" -f -c "$UT_TMP/mode.json" --listen "127.0.0.1:$UT_PORT" \
	>"$UT_TMP/bad.log" 2>&1 && ut_fail "utargetd started over a damaged mode page file"
grep -q "saved mode pages .* refused: checksum mismatch" "$UT_TMP/bad.log" ||
	{ cat "$UT_TMP/bad.log"; ut_fail "the refusal does not name the damaged file"; }
ut_sanitizer_check "$UT_TMP/bad.log"
echo "ok: a damaged state file stops the start"
echo "mode_saved: all checks passed"
