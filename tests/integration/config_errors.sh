#!/bin/bash
# config_errors.sh UTARGETD: a bad config is one clear line naming the file,
# the line and the field, exit status 1, and nothing is started (also a
# state directory that others may write into or that another user owns); --check
# validates without starting; a start-up failure after the config was
# accepted (a portal that cannot be bound) is undone and exits 1.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
ut_pick_port

# expect_error CONFIG WANT [ARGS]: exit 1, stderr's last line == WANT, and
# nothing listening on the test port
expect_error() {
	local cfg=$1 want=$2 err rc
	shift 2
	# bounded: a daemon that wrongly starts is stopped (status 124)
	err=$(timeout 30 "$UTARGETD" -f -c "$cfg" --listen "127.0.0.1:$UT_PORT" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 1 ] || ut_fail "$cfg: exit status $rc, want 1 (stderr: $err)"
	[ "$(echo "$err" | tail -n 1)" = "$want" ] ||
		ut_fail "$cfg: got: $(echo "$err" | tail -n 1)
	want: $want"
	ut_port_free "$UT_PORT" || ut_fail "$cfg: something listens on $UT_PORT"
	echo "ok: $want"
}

good='{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [
    { "name": "disk0", "type": "ram", "size": "16M" }
  ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:errors",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "disk0" } ] }
  ]
}'

# 1. missing file
expect_error "$UT_TMP/none.json" "utargetd: $UT_TMP/none.json: No such file or directory"

# 2. malformed JSON: the parser's line
echo "$good" | sed '8s/"name":/"name"/' | ut_write_config syntax.json
err=$("$UTARGETD" -f -c "$UT_TMP/syntax.json" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] || ut_fail "syntax.json: exit status $rc, want 1"
case $err in
"utargetd: $UT_TMP/syntax.json:8: "*) echo "ok: $err" ;;
*) ut_fail "syntax.json: got: $err" ;;
esac

# 3. unknown field (a typo), with a suggestion
echo "$good" | sed 's/"portals"/"portal"/' | ut_write_config unknown.json
expect_error "$UT_TMP/unknown.json" \
	"utargetd: $UT_TMP/unknown.json:9: targets[0].portal_groups[0].portal: unknown field (did you mean \"portals\"?)"

# 4. bad reference
echo "$good" | sed 's/"backstore": "disk0"/"backstore": "disk9"/' | ut_write_config ref.json
expect_error "$UT_TMP/ref.json" \
	"utargetd: $UT_TMP/ref.json:10: targets[0].luns[0].backstore: no back-store named \"disk9\""

# 5. bad value: the field's line, with the rule
echo "$good" | sed 's/"16M"/"1000"/' | ut_write_config size.json
expect_error "$UT_TMP/size.json" \
	"utargetd: $UT_TMP/size.json:5: backstores[0].size: 1000 bytes is not a multiple of block_size 512"

# 6. a missing back-store file
echo "$good" | sed 's/"type": "ram", "size": "16M"/"type": "file", "path": "nofile.img"/' |
	ut_write_config nofile.json
expect_error "$UT_TMP/nofile.json" \
	"utargetd: $UT_TMP/nofile.json:5: backstores[0].path: $UT_TMP/nofile.img: No such file or directory"

# 7. a state directory others may write into (or that another user owns):
# refused before anything is built, with the directory and the reason
for mode in 0777 0775; do
	mkdir -m 0700 "$UT_TMP/sd$mode"
	chmod "$mode" "$UT_TMP/sd$mode"
	echo "$good" | sed "s|\"state_dir\": \"@TMP@\"|\"state_dir\": \"@TMP@/sd$mode\"|" |
		ut_write_config "sd$mode.json"
done
expect_error "$UT_TMP/sd0777.json" \
	"utargetd: $UT_TMP/sd0777.json:3: state_dir: $UT_TMP/sd0777: writable by its group and others (mode 0777); refusing to keep state there (chmod go-w it)"
expect_error "$UT_TMP/sd0775.json" \
	"utargetd: $UT_TMP/sd0775.json:3: state_dir: $UT_TMP/sd0775: writable by its group (mode 0775); refusing to keep state there (chmod go-w it)"
out=$("$UTARGETD" --check -c "$UT_TMP/sd0777.json" 2>&1)
[ $? = 1 ] || ut_fail "--check of a world-writable state_dir did not exit 1"
[ "$out" = "utargetd: $UT_TMP/sd0777.json:3: state_dir: $UT_TMP/sd0777: writable by its group and others (mode 0777); refusing to keep state there (chmod go-w it)" ] ||
	ut_fail "--check said: $out"
echo "ok: --check refuses it too"
if [ "$(id -u)" = 0 ]; then
	mkdir -m 0700 "$UT_TMP/sdother"
	chown 65534:65534 "$UT_TMP/sdother"
	echo "$good" | sed 's|"state_dir": "@TMP@"|"state_dir": "@TMP@/sdother"|' |
		ut_write_config sdother.json
	expect_error "$UT_TMP/sdother.json" \
		"utargetd: $UT_TMP/sdother.json:3: state_dir: $UT_TMP/sdother: owned by uid 65534, neither root nor utargetd's user (uid 0); refusing to keep state there"
fi

# --check: 0 for a valid config (also the demo config), 1 with the same line
echo "$good" | ut_write_config good.json
out=$("$UTARGETD" --check -c "$UT_TMP/good.json" 2>&1)
[ $? = 0 ] || ut_fail "--check of a valid config failed: $out"
[ "$out" = "utargetd: $UT_TMP/good.json: configuration OK (1 back-store, 1 target)" ] ||
	ut_fail "--check said: $out"
echo "ok: $out"
out=$(cd "$UT_ROOT" && "$UTARGETD" --check -c etc/utarget-demo.json 2>&1) ||
	ut_fail "--check of etc/utarget-demo.json failed: $out"
echo "ok: $out"
out=$("$UTARGETD" --check -c "$UT_TMP/ref.json" 2>&1)
[ $? = 1 ] || ut_fail "--check of a bad config did not exit 1"
[ "$out" = "utargetd: $UT_TMP/ref.json:10: targets[0].luns[0].backstore: no back-store named \"disk9\"" ] ||
	ut_fail "--check said: $out"
echo "ok: --check exits 1 with the same line"

# --check creates nothing: a file back-store with create, in a state
# directory that does not exist yet
echo "$good" | sed -e 's|"state_dir": "[^"]*"|"state_dir": "@TMP@/newstate"|' \
	-e 's/"type": "ram", "size": "16M"/"type": "file", "path": "c.img", "size": "16M", "create": true/' |
	ut_write_config create.json
"$UTARGETD" --check -c "$UT_TMP/create.json" >/dev/null || ut_fail "--check of create.json failed"
[ ! -e "$UT_TMP/newstate" ] || ut_fail "--check created the state directory"
echo "ok: --check created nothing"

# all or nothing: the first target listens on the test port, the second
# target's portal cannot be bound (192.0.2.1 is TEST-NET-1, not a local
# address), so start-up fails and the first listener is closed again
echo "$good" | sed -e 's/127.0.0.1:3260/127.0.0.1:@PORT@/' -e 's/^  \]$/  ,\
    { "name": "iqn.2026-12.org.utarget:second",\
      "portal_groups": [ { "tag": 1, "portals": ["192.0.2.1:@PORT@"] } ],\
      "luns": [ { "lun": 0, "backstore": "disk0" } ] } ]/' | ut_write_config bind.json
err=$("$UTARGETD" -f -c "$UT_TMP/bind.json" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] || ut_fail "bind failure: exit status $rc, want 1 (stderr: $err)"
echo "$err" | tail -n 1 | grep -qF "utargetd: $UT_TMP/bind.json:13: targets[1].portal_groups[0].portals[0]: cannot listen on 192.0.2.1:$UT_PORT: " ||
	ut_fail "bind failure: $(echo "$err" | tail -n 1)"
echo "$err" >"$UT_TMP/bind.log"
ut_sanitizer_check "$UT_TMP/bind.log"
echo "$err" | grep -q "utargetd ready" && ut_fail "announced ready despite the failure"
ut_port_free "$UT_PORT" || ut_fail "the first portal is still bound"
echo "ok: $(echo "$err" | tail -n 1)"

# a --listen address in use: the line names the option, not the file
echo "$good" | ut_write_config busy.json
ut_start "$UT_TMP/busy.json"
# the second daemon: its own file and state directory (one daemon per file
# and per state directory: integration/locks), the same --listen address
mkdir -m 0700 "$UT_TMP/busy2"
echo "$good" | sed "s|@TMP@|$UT_TMP/busy2|" >"$UT_TMP/busy2/busy.json"
err=$("$UTARGETD" -f -c "$UT_TMP/busy2/busy.json" --listen "127.0.0.1:$UT_PORT" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] || ut_fail "busy --listen: exit status $rc, want 1"
[ "$(echo "$err" | tail -n 1)" = "utargetd: --listen 127.0.0.1:$UT_PORT: cannot listen: Address already in use" ] ||
	ut_fail "busy --listen: $(echo "$err" | tail -n 1)"
echo "ok: $(echo "$err" | tail -n 1)"
ut_stop
echo "PASS config errors"
