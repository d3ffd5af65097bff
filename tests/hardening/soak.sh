#!/bin/bash
# soak.sh UTARGETD [ROUNDS]: `make soak`. libiscsi's conformance suite
# (iscsi-test-cu, all tests, SANITIZE allowed, two sessions) run ROUNDS times
# (default SOAK_ROUNDS or 20) in a row against ONE utargetd of the ASan+UBSan
# build (a 1 GiB thin file LUN), as SPDK found double frees by looping it.
# Fails on any failed conformance test in any round, if the daemon dies, if
# its log holds a sanitizer report (AddressSanitizer, LeakSanitizer at exit,
# UBSan runtime error), or if it does not exit 0 on SIGTERM. Prints per
# round: passed/skipped/failed and seconds, and the daemon's RSS (VmRSS).
# Port: 3950-3999.
. "$(dirname "$0")/../integration/lib.sh"
ut_init "$1"
rounds=${2:-${SOAK_ROUNDS:-20}}
for ((p = 3950 + RANDOM % 50, i = 0; i < 50; i++, p = 3950 + (p - 3950 + 1) % 50)); do
	ut_port_free "$p" && { UT_PORT=$p; break; }
done
[ -n "${UT_PORT:-}" ] || ut_fail "no free port in 3950-3999"

# target_reset: the suite sends target resets; nop_in_timeout: outlasts
# the 60 s sleeps of Sanitize.Reset (both in conformance.sh)
ut_write_config soak.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@",
  "iscsi": { "nop_in_timeout": 90 },
  "backstores": [ { "name": "lu0", "type": "file", "path": "thin.img", "size": "1G",
                    "create": true, "thin": true } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:test",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "lu0" } ],
      "demo_mode": { "enabled": true, "read_only": false, "target_reset": true } }
  ]
}
JSON
ut_start "$UT_TMP/soak.json"
url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
rss() { awk '/^VmRSS/ { print $2 " kB" }' "/proc/$UT_PID/status" 2>/dev/null; }
echo "soak: $rounds rounds of iscsi-test-cu against $url (RSS at start $(rss))"
total_failed=0
excused=0
for ((r = 1; r <= rounds; r++)); do
	t0=$(date +%s)
	CU_FLAGS=-S CU_LOG="$UT_TMP/cu.$r.log" ut_run_client "$UT_TMP/cu.$r.out" \
		ut_cu_run "$url" "$url"
	line=$(grep -E '^cu: [0-9]+ passed' "$UT_TMP/cu.$r.out")
	[ -n "$line" ] || ut_fail "round $r: no summary from cu_count.py"
	failed=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")
	echo "round $r/$rounds: ${line#cu: }, $(( $(date +%s) - t0 )) s, RSS $(rss)"
	# libiscsi 1.19's harness leaves the second session's RESERVE(6) of
	# Sanitize.Reservations in place for Sanitize.Reset, which then gets
	# RESERVATION CONFLICT as SPC-4 requires (tests/integration/
	# conformance.sh): that one failure alone is re-run on fresh sessions
	# and excused only if it passes there
	if [ "$failed" = 1 ] && [ "$(grep '^FAILED' "$UT_TMP/cu.$r.out" | awk '{print $2}')" = \
		"Sanitize.Reset" ]; then
		CU_FLAGS=-S CU_TESTS=ALL.Sanitize.Reset CU_LOG="$UT_TMP/rerun.$r.log" \
			ut_run_client "$UT_TMP/rerun.$r.out" ut_cu_run "$url" "$url"
		if grep -q '^cu: 1 passed, 0 skipped, 0 failed$' "$UT_TMP/rerun.$r.out"; then
			echo "round $r: Sanitize.Reset (libiscsi harness leftover) passed on fresh sessions"
			failed=0
			excused=$((excused + 1))
		fi
	fi
	if [ "$failed" != 0 ]; then
		grep '^FAILED' "$UT_TMP/cu.$r.out"
		total_failed=$((total_failed + failed))
	fi
	ut_sanitizer_check "$UT_LOG"
done
ut_stop
[ "$total_failed" = 0 ] || ut_fail "$total_failed conformance failures over $rounds rounds"
echo "soak: $rounds rounds, 0 failed ($excused Sanitize.Reset harness re-runs), no sanitizer report, clean exit, RSS at the end of the last round above"
