#!/bin/bash
# keepalive.sh UTARGETD TOOLS_DIR: the NOP-In keepalive detects a dead peer
# (RFC 7143 11.19; iscsi.nop_in_interval / nop_in_timeout) and cleans up its
# session: tests/tools/deadpeer logs in as A, takes an SPC-2 reservation,
# then goes silent (reads and sends nothing); B's writes get RESERVATION
# CONFLICT until the target ends A's session after nop_in_interval +
# nop_in_timeout (2 + 2 s here), which releases the reservation (I_T nexus
# loss); A's connection is closed and A logs in again with the same ISID.
# Checks the daemon's log names the NOP-In timeout. Ports 3950-3999.
. "$(dirname "$0")/../integration/lib.sh"
ut_init "$1"
TOOLS=${2:?usage: keepalive.sh UTARGETD TOOLS_DIR}
for ((p = 3950 + RANDOM % 50, i = 0; i < 50; i++, p = 3950 + (p - 3950 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free port in 3950-3999"
ut_write_config ka.json <<'JSON'
{ "version": 1, "state_dir": "@TMP@/state",
  "iscsi": { "nop_in_interval": 2, "nop_in_timeout": 2 },
  "backstores": [ { "name": "r", "type": "ram", "size": "16M" } ],
  "targets": [ { "name": "iqn.2026-12.org.utarget:ka",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r" } ], "demo_mode": { "enabled": true, "read_only": false } } ] }
JSON
ut_start "$UT_TMP/ka.json"
rc=0
ut_run_client "$UT_TMP/dp.out" timeout 60 "$TOOLS/deadpeer" --addr "127.0.0.1:$UT_PORT" \
	--target iqn.2026-12.org.utarget:ka --interval 2 --timeout 2 || rc=$?
cat "$UT_TMP/dp.out"
[ "$rc" = 0 ] || ut_fail "deadpeer exit $rc"
grep -q "no answer to NOP-In within 2 s" "$UT_LOG" || ut_fail "no NOP-In timeout line in the log"
grep -q "dead.*NOP-In timeout\|NOP-In timeout" "$UT_LOG" || ut_fail "the connection drop is not logged"
echo "ok: $(grep -m1 'no answer to NOP-In' "$UT_LOG" | sed 's/^[^ ]* //')"
ut_stop
echo "keepalive: all checks passed"
