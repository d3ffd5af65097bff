#!/bin/bash
# digests.sh UTARGETD RAWLOGIN RAW_LOAD: digests required per target and per ACL
# (docs/config.md "require_header_digest", "require_data_digest"), and I/O
# with both digests at a queue depth.
#   raw_load -H -D --> target a, ACL "strict" (DataDigest required) --> ram LUN
#   32 READs/WRITEs of 4 KiB outstanding for 2 s each; every PDU's header and
#   data digest checked by the initiator, every command GOOD; then digested
#   READs while a second session (no digests) writes the same blocks
#   h: every session must use HeaderDigest=CRC32C (demo mode)
#   a: ACL "strict" must use DataDigest=CRC32C too; ACL "plain" nothing
# The raw initiator offers "None", or "CRC32C,None" with --header-digest /
# --data-digest; libiscsi offers "None,CRC32C" (CRC32C second): with a
# requirement the target picks CRC32C from any offer that holds it, and a
# login that offers only None is refused with 02/00, the key answered Reject.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RAW=${2:?usage: digests.sh UTARGETD RAWLOGIN RAW_LOAD}
LOAD=${3:?usage: digests.sh UTARGETD RAWLOGIN RAW_LOAD}
[ -x "$RAW" ] || ut_fail "$RAW is not an executable"
[ -x "$LOAD" ] || ut_fail "$LOAD is not an executable"

H=iqn.2026-12.org.utarget:h
A=iqn.2026-12.org.utarget:a
STRICT=iqn.2026-12.org.utarget.test:strict
PLAIN=iqn.2026-12.org.utarget.test:plain
ut_write_config dig.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "d", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "$H", "require_header_digest": true,
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } },
    { "name": "$A",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "acls": [ { "initiator": "$STRICT", "require_data_digest": true },
                { "initiator": "$PLAIN" } ] }
  ]
}
JSON
ut_start "$UT_TMP/dig.json"

raw() { "$RAW" --addr "127.0.0.1:$UT_PORT" "$@" 2>&1; }
expect() { # want(ok|CC/DD) args...
	local want=$1 out
	shift
	out=$(raw "$@")
	case $want in
	ok) grep -q "^login ok" <<<"$out" || ut_fail "$*: $out (want login ok)" ;;
	*) grep -q "^login status $want" <<<"$out" || ut_fail "$*: $out (want $want)" ;;
	esac
	echo "$out"
}

expect 02/00 --initiator "$PLAIN" --target "$H" >/dev/null
grep -q "a digest the target requires" "$UT_LOG" || ut_fail "no log line names the refusal"
echo "ok: a target requiring header digests refuses HeaderDigest=None (02/00, logged)"
out=$(expect ok --initiator "$PLAIN" --target "$H" --header-digest)
grep -q "HeaderDigest CRC32C, DataDigest None" <<<"$out" || ut_fail "digests: $out"
echo "ok: HeaderDigest=CRC32C,None is accepted as CRC32C"

expect 02/00 --initiator "$STRICT" --target "$A" --header-digest >/dev/null
out=$(expect ok --initiator "$STRICT" --target "$A" --data-digest)
grep -q "DataDigest CRC32C" <<<"$out" || ut_fail "digests: $out"
out=$(expect ok --initiator "$PLAIN" --target "$A")
grep -q "HeaderDigest None, DataDigest None" <<<"$out" || ut_fail "digests: $out"
echo "ok: an ACL's requirement holds for its initiator only"

# libiscsi (a real initiator) offers None,CRC32C: the target picks CRC32C
ut_run_client "$UT_TMP/inq.out" iscsi-inq -i "$PLAIN" "iscsi://127.0.0.1:$UT_PORT/$H/0" ||
	ut_fail "iscsi-inq against the target requiring header digests: $(cat "$UT_TMP/inq.out")"
grep -q "header digest" "$UT_LOG" || ut_fail "the login line does not show the header digest"
echo "ok: libiscsi's None,CRC32C offer logs in with the header digest"

# Both digests on every PDU both ways, 32 commands outstanding; a digest error
# on either side would end the session (ERL 0) and fail the run
for m in write read; do
	out=$("$LOAD" "127.0.0.1:$UT_PORT" "$A" "$STRICT" -H -D -m "$m" -q 32 -t 2 2>&1) ||
		ut_fail "raw_load -H -D -m $m: $out"
	grep -q " errors=0$" <<<"$out" || ut_fail "raw_load -H -D -m $m: $out"
	ios=$(sed -n 's/^ios=\([0-9]*\) .*/\1/p' <<<"$out")
	[ "${ios:-0}" -ge 1000 ] || ut_fail "raw_load -H -D -m $m: only ${ios:-0} commands: $out"
	echo "ok: $m at QD32 with HeaderDigest and DataDigest CRC32C: $ios commands, all GOOD"
done

# Digested READs while another session writes the same 8 MiB: the READs'
# data is lent by the ram LUN, and the digest must be of the bytes sent even
# when a write changes the medium between the READ's completion and the send
# (iscsi_core_cmd_done copies lent data before the CRC). A digest over the
# medium sent from the medium later fails here within a second.
"$LOAD" "127.0.0.1:$UT_PORT" "$A" "$PLAIN" -m write -q 32 -t 3 >"$UT_TMP/w.out" 2>&1 &
wpid=$!
out=$("$LOAD" "127.0.0.1:$UT_PORT" "$A" "$STRICT" -H -D -m read -q 32 -t 2 2>&1) ||
	ut_fail "raw_load -H -D -m read beside a writer: $out"
wait "$wpid" || ut_fail "the writer beside the digested reads: $(cat "$UT_TMP/w.out")"
grep -q " errors=0$" <<<"$out" || ut_fail "raw_load -H -D -m read beside a writer: $out"
grep -q " errors=0$" "$UT_TMP/w.out" || ut_fail "the writer: $(cat "$UT_TMP/w.out")"
ios=$(sed -n 's/^ios=\([0-9]*\) .*/\1/p' <<<"$out")
[ "${ios:-0}" -ge 1000 ] || ut_fail "digested reads beside a writer: only ${ios:-0}: $out"
echo "ok: $ios digested READs beside a writer of the same blocks, every digest right"
ut_stop
echo "digests: passed"
