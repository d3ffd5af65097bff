#!/bin/bash
# auth_chap.sh UTARGETD RAWLOGIN: CHAP end to end (RFC 7143 12.1.3; docs/config.md "auth").
#   target "chap":   CHAP required (two credentials, mutual offered); ACL "allowed"
#                    (the target's credentials) and ACL "own" (its own credential)
#   target "sha":    demo mode, CHAP with SHA-256 and SHA3-256 only
#   discovery:       CHAP required, mutual offered
# libiscsi (MD5 only) logs in as each initiator: allowed with the right secret,
# wrong secret, no secret, an initiator without ACL, mutual with the right and
# a wrong target secret, discovery with and without CHAP. The project's raw
# initiator (tests/tools/rawlogin) covers every algorithm and encoding, one-way
# and mutual, and the exact login status of each refusal. A file whose target
# secret equals an initiator secret is refused; a readable file with secrets
# is warned about.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
RAW=${2:?usage: auth_chap.sh UTARGETD RAWLOGIN}
[ -x "$RAW" ] || ut_fail "$RAW is not an executable"
command -v iscsi-inq >/dev/null || ut_fail "iscsi-inq not installed (libiscsi-bin)"

T=iqn.2026-12.org.utarget:chap
S=iqn.2026-12.org.utarget:sha
ALLOWED=iqn.2026-12.org.utarget.test:allowed
OWN=iqn.2026-12.org.utarget.test:own
OTHER=iqn.2026-12.org.utarget.test:other

ut_write_config chap.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "backstores": [ { "name": "d", "type": "ram", "size": "16M" } ],
  "discovery": { "auth": { "chap": [ { "user": "disc", "secret": "disc-secret-12" } ],
                           "mutual": { "user": "disc-target", "secret": "disc-tsecret-1" } } },
  "targets": [
    { "name": "$T",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "acls": [ { "initiator": "$ALLOWED" },
                { "initiator": "$OWN",
                  "auth": { "chap": [ { "user": "own-user", "secret": "own-secret-12" } ] } } ],
      "auth": { "chap": [ { "user": "user1", "secret": "user1-secret" },
                          { "user": "user2", "secret": "user2-secret" } ],
                "mutual": { "user": "target1", "secret": "target1-secret" } } },
    { "name": "$S",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true },
      "auth": { "chap": [ { "user": "u", "secret": "u-secret-1234" } ],
                "algorithms": ["SHA-256", "SHA3-256"] } }
  ]
}
JSON
chmod 644 "$UT_TMP/chap.json"
ut_start "$UT_TMP/chap.json"
P=127.0.0.1:$UT_PORT
grep -q "holds CHAP secrets and is readable by everyone" "$UT_LOG" ||
	ut_fail "no warning about a world-readable file with CHAP secrets"
echo "ok: a world-readable file with secrets is warned about"

# libiscsi (CHAP_A=5): succeeds or not
inq() { # initiator url [env...]
	local i=$1 u=$2
	shift 2
	env "$@" timeout 30 iscsi-inq -i "$i" "$u" >"$UT_TMP/inq.out" 2>&1
}
inq "$ALLOWED" "iscsi://user1%user1-secret@$P/$T/0" || ut_fail "libiscsi: $ALLOWED, user1, right secret: $(cat "$UT_TMP/inq.out")"
inq "$ALLOWED" "iscsi://user2%user2-secret@$P/$T/0" || ut_fail "libiscsi: $ALLOWED, user2: $(cat "$UT_TMP/inq.out")"
echo "ok: libiscsi logs in with either of the target's credentials"
inq "$ALLOWED" "iscsi://user1%wrong-secret1@$P/$T/0" && ut_fail "libiscsi logged in with a wrong secret"
inq "$ALLOWED" "iscsi://$P/$T/0" && ut_fail "libiscsi logged in without CHAP"
inq "$OTHER" "iscsi://user1%user1-secret@$P/$T/0" && ut_fail "libiscsi logged in as $OTHER (no ACL)"
echo "ok: libiscsi refused: wrong secret, no secret, initiator without ACL"
inq "$ALLOWED" "iscsi://user1%user1-secret@$P/$T/0" LIBISCSI_CHAP_TARGET_USERNAME=target1 \
	LIBISCSI_CHAP_TARGET_PASSWORD=target1-secret || ut_fail "libiscsi mutual CHAP: $(cat "$UT_TMP/inq.out")"
inq "$ALLOWED" "iscsi://user1%user1-secret@$P/$T/0" LIBISCSI_CHAP_TARGET_USERNAME=target1 \
	LIBISCSI_CHAP_TARGET_PASSWORD=not-the-target && ut_fail "libiscsi accepted a target with the wrong secret"
echo "ok: libiscsi mutual CHAP: the target proves its secret (a wrong one is caught)"
inq "$OWN" "iscsi://own-user%own-secret-12@$P/$T/0" || ut_fail "libiscsi: $OWN with its own credential: $(cat "$UT_TMP/inq.out")"
inq "$OWN" "iscsi://user1%user1-secret@$P/$T/0" && ut_fail "$OWN logged in with the target's credential"
echo "ok: an ACL with its own credential uses that one only"

# the raw initiator: exact status of each refusal
status() { # expected-status args... (rawlogin prints "login status CC/DD")
	local want=$1 out
	shift
	out=$("$RAW" --addr "$P" "$@" 2>&1)
	case $want in
	ok) grep -q "^login ok" <<<"$out" || ut_fail "rawlogin $*: $out (want login ok)" ;;
	*) grep -q "^login status $want" <<<"$out" || ut_fail "rawlogin $*: $out (want $want)" ;;
	esac
}
status 02/01 --target "$T" --initiator "$ALLOWED" --chap-user user1 --chap-secret wrong-secret1
status 02/01 --target "$T" --initiator "$ALLOWED" --chap-user nobody --chap-secret user1-secret
status 02/01 --target "$T" --initiator "$ALLOWED"
status 02/02 --target "$T" --initiator "$OTHER" --chap-user user1 --chap-secret user1-secret
status 02/03 --target "$T-nonexistent" --initiator "$ALLOWED" --chap-user user1 --chap-secret user1-secret
status 02/01 --target "$T" --initiator "$OWN" --chap-user user1 --chap-secret user1-secret
echo "ok: 02/01 wrong secret, unknown user, no CHAP; 02/02 no ACL; 02/03 no such target"

n=0
for alg in 5 6 7 8; do
	for enc in hex base64; do
		status ok --target "$T" --initiator "$ALLOWED" --chap-user user2 --chap-secret user2-secret \
			--chap-alg $alg --encoding $enc
		status ok --target "$T" --initiator "$OWN" --chap-user own-user --chap-secret own-secret-12 \
			--mutual-user target1 --mutual-secret target1-secret --chap-alg $alg --encoding $enc
		n=$((n + 2))
	done
done
out=$("$RAW" --addr "$P" --target "$T" --initiator "$ALLOWED" --chap-user user1 \
	--chap-secret user1-secret --mutual-user target1 --mutual-secret wrong-target-1 2>&1) &&
	ut_fail "the raw initiator accepted a target with the wrong secret: $out"
grep -q "mutual CHAP" <<<"$out" || ut_fail "mutual CHAP with a wrong target secret: $out"
echo "ok: $n logins, CHAP_A 5/6/7/8 x hex/base64, one-way and mutual"
status 02/01 --target "$S" --initiator "$OTHER" --chap-user u --chap-secret u-secret-1234 --chap-alg 5,6
status ok --target "$S" --initiator "$OTHER" --chap-user u --chap-secret u-secret-1234 --chap-alg 5,8
status ok --target "$S" --initiator "$OTHER" --chap-user u --chap-secret u-secret-1234 --chap-alg 7
echo "ok: a target limited to SHA-256/SHA3-256 refuses MD5/SHA-1-only initiators (02/01)"

# discovery sessions
timeout 30 iscsi-ls -i "$ALLOWED" "iscsi://disc%disc-secret-12@$P/" >"$UT_TMP/ls.out" 2>&1 ||
	ut_fail "iscsi-ls with discovery CHAP: $(cat "$UT_TMP/ls.out")"
grep -q "Target:$T " "$UT_TMP/ls.out" || ut_fail "iscsi-ls does not list $T: $(cat "$UT_TMP/ls.out")"
timeout 30 iscsi-ls -i "$ALLOWED" "iscsi://$P/" >"$UT_TMP/ls.out" 2>&1 &&
	ut_fail "iscsi-ls without CHAP listed targets: $(cat "$UT_TMP/ls.out")"
status 02/01 --discovery --initiator "$ALLOWED"
status 02/01 --discovery --initiator "$ALLOWED" --chap-user disc --chap-secret disc-wrong-12
status ok --discovery --initiator "$ALLOWED" --chap-user disc --chap-secret disc-secret-12 \
	--mutual-user disc-target --mutual-secret disc-tsecret-1 --chap-alg 8 --encoding base64
echo "ok: discovery sessions: CHAP required (libiscsi and raw), mutual offered"
ut_stop

# RFC 7143 12.1.3: one secret per direction
sed 's/"target1-secret"/"user2-secret"/' "$UT_TMP/chap.json" >"$UT_TMP/same.json"
out=$("$UTARGETD" --check -c "$UT_TMP/same.json" 2>&1) && ut_fail "a target secret equal to an initiator secret was accepted"
grep -q "targets\[0\].auth.mutual.secret: the target's secret equals an initiator's secret" <<<"$out" ||
	ut_fail "unexpected --check output: $out"
echo "ok: a target secret equal to an initiator secret is refused: $out"
echo "PASS auth-chap"
