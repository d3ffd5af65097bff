#!/bin/bash
# conformance.sh UTARGETD PROFILE: libiscsi's iscsi-test-cu (all tests, with
# SANITIZE allowed: CU_FLAGS=-S) through two sessions to one LUN, counted by
# the project's counter, tests/tools/cu_count.py (ut_cu_run). Profiles:
#   thin       1 GiB thin file LUN: 0 failed, at least 190 passed
#   removable  removable medium: the suites of a removable medium (PreventAllow,
#              StartStopUnit, NoMedia) and the basic commands around a
#              load and an eject: 0 failed; PreventAllow*, StartStopUnit*,
#              NoMedia* all passed (none skipped). The rest of the suite
#              does not depend on RMB and runs in full on thin (and pi,
#              multipath, block)
#   thin4k     thin LUN of 512-byte logical blocks on 4 KiB physical blocks
#              (LBPPB 8): the suites that need LBPPB > 1 (WriteSame10/16 and
#              CompareAndWrite InvalidDataOutSize, WriteSame10/16
#              UnmapUnaligned are skipped otherwise) plus Unmap: 0 failed,
#              those passed. GetLBAStatus.UnmapSingle is not run here:
#              with LBPPB > 1 its second loop asks GET LBA STATUS for LBA i+1
#              and wants the first descriptor at i+LBPPB, which SBC-4 5.21.2
#              forbids (the first descriptor starts at the requested LBA).
#   multipath  the thin LUN through two target ports: one target with portal
#              groups 1 and 2 on two TCP ports, each its own ALUA target port
#              group, URL and URL2 different (two I_T nexuses through
#              different ports): 0 failed, every MultipathIO* test passed
#   pi         the thin LUN with protection information type 1 (SBC-4 4.22:
#              RDPROTECT/WRPROTECT accepted, PROT_EN in READ CAPACITY(16)):
#              0 failed, at least 190 passed
#   pi2        the same with protection information type 2 (the shorter
#              READ/WRITE CDBs take PROTECT 000b only; libiscsi 1.19 sends no
#              32-byte CDB): 0 failed but ReportSupportedOpcodes.OneCommand
#              on the 7Fh usage data only (see below), at least 190 passed
#   block      a block device: a 1 GiB loop device of 512-byte sectors over
#              a sparse file (losetup), type "block", thin (UNMAP through
#              the device's write-zeroes): 0 failed, at least 190 passed
#   block4k    the same with 4096-byte logical blocks (losetup
#              --sector-size 4096; the LU takes the device's block size):
#              the suites that move data, deallocate or read the geometry:
#              0 failed, those passed. Not WriteSame16.Unmap: it writes
#              65536 blocks in one WRITE(16), 256 MiB at 4096 bytes a block,
#              past the MAXIMUM TRANSFER LENGTH of VPD B0h (32 MiB; the test
#              does not read it), which SBC-4 refuses with INVALID FIELD IN
#              CDB (the 512-byte profiles run it: 32 MiB)
#   gateway    the iscsi back-store (a gateway) in front of a private tgtd
#              (tgtd.sh: a 1 GiB thin file LUN, tgtd's LUN 1): the whole
#              suite through utarget, which emulates SPC/SBC itself and sends
#              tgtd byte-range reads, writes, flushes, UNMAP, WRITE SAME and
#              GET LBA STATUS: 0 failed but GetLBAStatus.UnmapSingle on
#              the first descriptor's LBA with LBPPB 8 only (see below), at
#              least 190 passed
#   readonly   write-protected medium: 0 failed; ReadOnly* passed. Only the
#              suites that do not write run: libiscsi consults the WP bit in
#              ReadOnly.* and Sanitize.Readonly alone, its write tests expect
#              a writable LU. ReadOnly.ReadOnlySBC checks that every medium
#              write is refused with DATA PROTECT / WRITE PROTECTED.
#   rbd        a thin 1 GiB Ceph RBD image (tests/ceph/cluster.sh: one mon,
#              one OSD on 127.0.0.1) through librbd (backstore/rbd.c): 0
#              failed, at least 190 passed; Read10, Write16, GetLBAStatus
#              (rbd_diff_iterate2) and Unmap passed, WriteSame16.Simple,
#              .Check, .Unmap (writesame, write_zeroes) and
#              CompareAndWrite.Simple, .Miscompare too
#   dedup      a thin 1 GiB volume of a dedup store (backstore/dedup.c: 4 KiB
#              chunks by SHA-256, every request on the worker pool): 0
#              failed, at least 190 passed; Read10, Write16, GetLBAStatus,
#              Unmap and ExtendedCopy (by reference: BS_OP_COPY) passed,
#              WriteSame16.Simple, .Check, .Unmap and CompareAndWrite.Simple,
#              .Miscompare too
#   plugin     the thin 1 GiB LUN through a back-store plugin: the example
#              handler examples/backstore/exfile.c (built by meson into
#              UT_PLUGIN_DIR) loaded with dlopen, every request through the
#              adapter's LU threads (backstore/plugin.c): 0 failed, at least
#              190 passed; Read10*, Write10*, GetLBAStatus* (the handler's
#              MAP_STATUS), Sanitize.BlockErase and CompareAndWrite* passed
#              (but InvalidDataOutSize, skipped without LBPPB > 1)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tgtd.sh"
. "$(dirname "$0")/ceph.sh"
ut_init "$1"
profile=${2:?profile}

pgs='[ { "tag": 1, "portals": ["127.0.0.1:3260"] } ]'
bstype=file
top=""
loopdev=
# a loop device of $1-byte sectors over a sparse 1 GiB file, detached on exit
ut_loop() {
	truncate -s 1G "$UT_TMP/loop.img"
	loopdev=$(losetup -f --show --sector-size "$1" "$UT_TMP/loop.img") ||
		ut_fail "losetup failed"
	trap 'ut_cleanup; losetup -d "$loopdev"' EXIT
	bstype=block
	bs="\"path\": \"$loopdev\", \"thin\": true"
}
case $profile in
thin) bs='"path": "thin.img", "size": "1G", "create": true, "thin": true' ;;
block) ut_loop 512 ;;
block4k)
	ut_loop 4096
	export CU_TESTS="ALL.Read10,ALL.Read12,ALL.Read16,ALL.Write10,ALL.Write12,ALL.Write16,\
ALL.WriteVerify10,ALL.WriteVerify12,ALL.WriteVerify16,ALL.Verify10,ALL.Verify12,ALL.Verify16,\
ALL.WriteSame10,ALL.WriteSame16.Simple,ALL.WriteSame16.BeyondEol,ALL.WriteSame16.ZeroBlocks,\
ALL.WriteSame16.WriteProtect,ALL.WriteSame16.UnmapUntilEnd,ALL.WriteSame16.UnmapVPD,\
ALL.WriteSame16.Check,ALL.Unmap,ALL.ReadCapacity10,ALL.ReadCapacity16,\
ALL.CompareAndWrite,ALL.GetLBAStatus,ALL.SynchronizeCache10,ALL.SynchronizeCache16,\
ALL.Prefetch10,ALL.Prefetch16,ALL.OrWrite,ALL.WriteAtomic16,ALL.Inquiry"
	;;
multipath)
	bs='"path": "thin.img", "size": "1G", "create": true, "thin": true'
	ut_pick_port
	ut_pick_port2
	pgs='[ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] },
                         { "tag": 2, "portals": ["127.0.0.1:@PORT2@"] } ]'
	export UT_OWN_PORTALS=1
	;;
thin4k)
	bs='"path": "thin4k.img", "size": "1G", "create": true, "thin": true, "physical_block_size": 4096'
	export CU_TESTS="ALL.WriteSame10,ALL.WriteSame16,ALL.Unmap,ALL.ReadCapacity16,ALL.CompareAndWrite"
	;;
removable)
	bs='"path": "rm.img", "size": "256M", "create": true, "thin": true, "removable": true'
	export CU_TESTS="ALL.PreventAllow,ALL.StartStopUnit,ALL.NoMedia,ALL.TestUnitReady,\
ALL.Inquiry,ALL.ModeSense6,ALL.ReadCapacity10,ALL.ReadCapacity16,ALL.Read10,ALL.Read16,\
ALL.Write10,ALL.Write16,ALL.Verify10,ALL.Prefetch10,ALL.SynchronizeCache10"
	;;
readonly)
	truncate -s 256M "$UT_TMP/ro.img"
	bs='"path": "ro.img", "read_only": true'
	export CU_TESTS="ALL.ReadOnly,ALL.Sanitize.Readonly,ALL.Inquiry,ALL.Mandatory,\
ALL.ModeSense6,ALL.Prefetch10,ALL.Prefetch16,ALL.Read6,ALL.Read10,ALL.Read12,ALL.Read16,\
ALL.ReadCapacity10,ALL.ReadCapacity16,ALL.ReadDefectData10,ALL.ReadDefectData12,\
ALL.ReportSupportedOpcodes,ALL.Reserve6,ALL.TestUnitReady,ALL.Verify10,ALL.Verify12,\
ALL.Verify16,ALL.GetLBAStatus.Simple,ALL.GetLBAStatus.BeyondEol,ALL.iSCSIResiduals.Read*,\
ALL.iSCSIcmdsn,ALL.NoMedia"
	;;
gateway)
	truncate -s 1G "$UT_TMP/tgt.img"
	ut_tgtd_start "$UT_TMP/tgt.img" thin_provisioning=1
	bstype=iscsi
	bs='"url": "'$UT_TGT_URL'", "thin": true'
	;;
rbd)
	ut_ceph_start cu 1G
	bstype=rbd
	bs='"path": "rbd/cu", "thin": true, "options": { "conf": "'$UT_CEPH_CONF'" }'
	;;
dedup)
	bstype=dedup
	bs='"path": "dedup", "size": "1G", "thin": true'
	;;
pi)
	bs='"path": "pi.img", "size": "1G", "create": true, "thin": true, "protection": 1'
	;;
pi2)
	bs='"path": "pi2.img", "size": "1G", "create": true, "thin": true, "protection": 2'
	;;
plugin)
	[ -f "${UT_PLUGIN_DIR:-}/exfile.so" ] || ut_fail "no exfile.so in UT_PLUGIN_DIR (${UT_PLUGIN_DIR:-unset})"
	bstype=plugin
	top="\"plugin_dir\": \"$UT_PLUGIN_DIR\","
	bs='"handler": "exfile", "thin": true,
                     "options": { "path": "@TMP@/plugin.img", "size": "1G" }'
	;;
*) ut_fail "unknown profile $profile" ;;
esac

# demo mode may reset the target: the suite's PreventAllow.WarmReset/ColdReset
# and Reserve6.TargetWarmReset/TargetColdReset send target resets (refused
# without the permission, docs/config.md). MaxConnections 4 (MC/S) and
# ErrorRecoveryLevel 2 (the highest the target implements; issue 11) are
# offered: libiscsi's sessions must be unaffected by the offers.
# nop_in_timeout 90: Sanitize.Reset waits for the end of the sanitize with
# "while (TEST UNIT READY fails) sleep(60)" and reads nothing while it
# sleeps. With the defaults (a NOP-In after 30 s of silence, the connection
# dropped 30 s later) the target drops the silent connection at the same
# 60 s; libiscsi logs in again, the new session's first TEST UNIT READY
# gets a unit attention (the new I_T nexus), and the loop sleeps again: a
# race each minute that the drop could win until CU_TIMEOUT. 30 + 90 s of
# silence outlasts the harness's sleep.
ut_write_config cu.json <<JSON
{
  "version": 1,
  "state_dir": "@TMP@", $top
  "iscsi": { "max_connections": 4, "error_recovery_level": 2, "nop_in_timeout": 90 },
  "backstores": [ { "name": "lu0", "type": "$bstype", $bs } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": $pgs,
      "luns": [ { "lun": 0, "backstore": "lu0" } ],
      "demo_mode": { "enabled": true, "read_only": false, "target_reset": true } }
  ]
}
JSON
ut_start "$UT_TMP/cu.json"

url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
url2=$url
[ "$profile" = multipath ] && url2="iscsi://127.0.0.1:$UT_PORT2/$UT_TARGET/0"
echo "profile $profile: iscsi-test-cu $url $url2 (CU_FLAGS=-S${CU_TESTS:+ CU_TESTS=$CU_TESTS})"
CU_FLAGS=-S CU_LOG="$UT_TMP/cu.log" ut_run_client "$UT_TMP/cu.out" ut_cu_run "$url" "$url2"
cu_rc=$?
out=$(cat "$UT_TMP/cu.out")
echo "$out"
# exit status 2: the log could not be counted (no test, or the counts
# disagree with CUnit's own Run Summary)
[ "$cu_rc" != 2 ] || ut_fail "the iscsi-test-cu log could not be counted (status 2)"

# A limit of libiscsi 1.19, not of the target: its one-command REPORT
# SUPPORTED OPERATION CODES result holds 16 bytes of CDB usage data
# (scsi-lowlevel.h: cdb_usage_data[16]) and leaves them zero for a 32-byte
# CDB, so ReportSupportedOpcodes.OneCommand fails its byte 0 check for each
# 7Fh service action a type 2 LU reports (tests/unit/sbc/test_sbc_pi.c checks
# those usage bytes against golden ones). Accepted on the pi2 profile only,
# and only when every failed assertion of that test is this one.
lib_known=""
if [ "$profile" = pi2 ] &&
	ut_cu_names "$UT_TMP/cu.log" failed | grep -qx ReportSupportedOpcodes.OneCommand; then
	section=$(awk '/^  Test: /{on = /^  Test: OneCommand /} on' "$UT_TMP/cu.log" | grep -F '[FAILED]')
	if [ -n "$section" ] && ! echo "$section" | grep -vqF 'expected 0x7f for opcode 0x7f'; then
		lib_known=ReportSupportedOpcodes.OneCommand
		echo "accepted: $lib_known fails only on the 32-byte CDBs' usage data (libiscsi 1.19 keeps 16 bytes)"
	fi
fi
# The gateway LU reports the remote's physical blocks: tgtd's file LUN has
# 4 KiB ones (LBPPBE 3), so LBPPB is 8, and GetLBAStatus.UnmapSingle then
# asks GET LBA STATUS for LBA i+1 and wants the first descriptor at i+8,
# which SBC-4 5.21.2 forbids (the first descriptor starts at the requested
# LBA); the thin4k profile leaves it out for that reason. Accepted on the
# gateway profile only, and only when every failed assertion of that test
# is this one.
if [ "$profile" = gateway ] &&
	ut_cu_names "$UT_TMP/cu.log" failed | grep -qx GetLBAStatus.UnmapSingle; then
	section=$(awk '/^Suite: /{suite = $2} /^  Test: /{on = (suite == "GetLBAStatus" && /^  Test: UnmapSingle /)} on' \
		"$UT_TMP/cu.log" | grep -F '[FAILED]')
	if [ -n "$section" ] && ! echo "$section" | grep -vqF 'lba offset in first descriptor does not'; then
		lib_known=GetLBAStatus.UnmapSingle
		echo "accepted: $lib_known fails only on the first descriptor's LBA with LBPPB 8 (SBC-4 5.21.2)"
	fi
fi
failed_names() {
	if [ -n "$lib_known" ]; then
		ut_cu_names "$UT_TMP/cu.log" failed | grep -vxF "$lib_known"
	else
		ut_cu_names "$UT_TMP/cu.log" failed
	fi
}

# A known defect of libiscsi 1.19's test harness, not of any target: with two
# URLs, Sanitize.Reservations takes a RESERVE(6) through the second path
# (mpath_sd2_get_or_clone returns the suite's own second session) and
# mpath_sd2_put() leaves it in place; the very next test, Sanitize.Reset,
# then sends SANITIZE through path 1 and gets RESERVATION CONFLICT, as
# SPC-4 requires. Only that one failure is re-run, on fresh sessions, and
# only its verdict there is accepted; anything else still fails the test.
harness_rerun=""
if [ "$(failed_names | tr '\n' ' ')" = "Sanitize.Reset " ] &&
	grep -q '^  Test: Reservations' "$UT_TMP/cu.log"; then
	echo "re-running Sanitize.Reset alone (libiscsi 1.19 leaves path 2's RESERVE(6) from Sanitize.Reservations)"
	CU_FLAGS=-S CU_TESTS=ALL.Sanitize.Reset CU_LOG="$UT_TMP/cu-rerun.log" \
		ut_run_client "$UT_TMP/cu-rerun.out" ut_cu_run "$url" "$url2"
	if [ "$(ut_cu_names "$UT_TMP/cu-rerun.log" passed)" != "Sanitize.Reset" ]; then
		grep -F -e '[FAILED]' -e 'cu_count:' "$UT_TMP/cu-rerun.log" | head -20
		tail -n 3 "$UT_TMP/cu-rerun.out"
		ut_fail "Sanitize.Reset failed on its own too"
	fi
	harness_rerun="Sanitize.Reset"
	echo "ok: Sanitize.Reset passed on fresh sessions"
fi
ut_stop

line=$(echo "$out" | grep -E '^cu: [0-9]+ passed, [0-9]+ skipped, [0-9]+ failed$')
[ -n "$line" ] || ut_fail "no summary line from cu_count.py"
read -r _ _ failed < <(echo "$line" | sed -E 's/^cu: ([0-9]+) passed, ([0-9]+) skipped, ([0-9]+) failed$/\1 \2 \3/')
# Per-test verdicts from the raw log, by the same counter; they must agree
# with CUnit's own Run Summary (which counts a skip as a pass), which must be
# there (a run that did not finish has none), and the assertions use them.
v=$(ut_cu_verdicts "$UT_TMP/cu.log")
vp=$(echo "$v" | grep -c '^passed ')
vs=$(echo "$v" | grep -c '^skipped ')
vf=$(echo "$v" | grep -c '^failed ')
echo "per-test verdicts: $vp passed, $vs skipped, $vf failed"
read -r ran cunit_pass cunit_fail < <(awk '$1 == "tests" { print $3, $4, $5 }' "$UT_TMP/cu.log")
[ -n "${ran:-}" ] || ut_fail "no CUnit Run Summary in the log"
[ $((vp + vs + vf)) = "$ran" ] && [ $((vp + vs)) = "$cunit_pass" ] && [ "$vf" = "$cunit_fail" ] ||
	ut_fail "verdicts disagree with CUnit's summary: ran $ran, passed $cunit_pass, failed $cunit_fail"
if [ -n "$harness_rerun" ]; then
	# counted as passed: it passed on its own (see above)
	[ "$failed" -gt 0 ] && failed=$((failed - 1))
	vf=$((vf - 1))
	vp=$((vp + 1))
fi
if [ -n "$lib_known" ]; then
	failed=$((failed - 1))
	vf=$((vf - 1))
fi
[ "$failed" = 0 ] && [ "$vf" = 0 ] ||
	ut_fail "conformance test(s) failed: $(echo $(failed_names))"

# every test of each named family ran and passed (a skip does not count)
need_family() {
	local fam=$1 n_pass n_other
	n_pass=$(ut_cu_names "$UT_TMP/cu.log" passed | grep -c "^$fam")
	n_other=$( (ut_cu_names "$UT_TMP/cu.log" skipped; ut_cu_names "$UT_TMP/cu.log" failed) |
		grep "^$fam")
	[ "$n_pass" -gt 0 ] || ut_fail "no $fam* test passed"
	[ -z "$n_other" ] || ut_fail "$fam* tests not passed: $(echo $n_other)"
	echo "ok: $n_pass $fam* tests passed"
}

# need_passed TEST...: each named test passed
need_passed() {
	local passed t
	passed=$(ut_cu_names "$UT_TMP/cu.log" passed)
	for t in "$@"; do
		grep -qx -- "$t" <<<"$passed" || ut_fail "$t did not pass"
	done
}

case $profile in
thin)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	need_family Prin
	need_family Prout
	need_family Reserve6
	;;
multipath)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	need_family MultipathIO
	# persistent reservations through two target ports (issue 3)
	need_family Prin
	need_family Prout
	need_family Reserve6
	;;
block)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed on $loopdev"
	need_family Unmap
	need_passed WriteSame16.Unmap Sanitize.BlockErase GetLBAStatus.Simple
	;;
block4k)
	grep -q "logical 4096" "$UT_LOG" || ut_fail "the LU did not take the device's 4096-byte blocks"
	need_family Read16
	need_family Write16
	need_family Unmap
	need_passed CompareAndWrite.Simple CompareAndWrite.Miscompare
	echo "ok: 0 failed on $loopdev (4096-byte sectors)"
	;;
pi)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	need_family Read10
	need_family Write10
	;;
plugin)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	grep -q "backstore lu0: handler exfile (ABI 1)" "$UT_LOG" || ut_fail "the LU is not the plugin's"
	need_family Read10
	need_family Write10
	need_family GetLBAStatus
	# COMPARE AND WRITE is the core's (caw.c) over the handler's READ and
	# WRITE: every test passed but InvalidDataOutSize, which libiscsi skips
	# unless LBPPB > 1 (see thin4k)
	caw_pass=$(ut_cu_names "$UT_TMP/cu.log" passed | grep -c '^CompareAndWrite\.')
	caw_other=$( (ut_cu_names "$UT_TMP/cu.log" skipped; ut_cu_names "$UT_TMP/cu.log" failed) |
		grep '^CompareAndWrite\.' | grep -vx CompareAndWrite.InvalidDataOutSize)
	[ "$caw_pass" -gt 0 ] && [ -z "$caw_other" ] ||
		ut_fail "CompareAndWrite: $caw_pass passed; not passed: $(echo $caw_other)"
	echo "ok: $caw_pass CompareAndWrite* tests passed"
	need_family Sanitize.BlockErase
	;;
gateway)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	need_family Prin
	need_family Prout
	;;
rbd)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	grep -q "backstore lu0: rbd rbd/cu, 1073741824 bytes" "$UT_LOG" || ut_fail "the LU is not the rbd image's"
	need_family Read10
	need_family Write16
	need_family GetLBAStatus
	need_family Unmap
	need_passed WriteSame16.Simple WriteSame16.Check WriteSame16.Unmap CompareAndWrite.Simple \
		CompareAndWrite.Miscompare
	echo "ok: WriteSame16.Simple, .Check, .Unmap (writesame, write_zeroes) and CompareAndWrite.Simple, .Miscompare passed"
	;;
dedup)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	grep -q "backstore lu0: dedup, 1073741824 bytes" "$UT_LOG" || ut_fail "the LU is not a dedup volume"
	need_family Read10
	need_family Write16
	need_family GetLBAStatus
	need_family Unmap
	need_family ExtendedCopy
	need_passed WriteSame16.Simple WriteSame16.Check WriteSame16.Unmap CompareAndWrite.Simple \
		CompareAndWrite.Miscompare
	echo "ok: WriteSame16.Simple, .Check, .Unmap, CompareAndWrite.Simple, .Miscompare passed"
	;;
pi2)
	[ "$vp" -ge 190 ] || ut_fail "$vp passed, want at least 190"
	echo "ok: $vp passed (>= 190), 0 failed"
	;;
removable)
	need_family PreventAllow
	need_family StartStopUnit
	need_family NoMedia
	;;
readonly)
	need_family ReadOnly
	;;
thin4k)
	need_passed WriteSame10.UnmapUnaligned WriteSame16.UnmapUnaligned \
		WriteSame10.InvalidDataOutSize WriteSame16.InvalidDataOutSize \
		CompareAndWrite.InvalidDataOutSize
	echo "ok: WriteSame10/16.UnmapUnaligned and .InvalidDataOutSize, CompareAndWrite.InvalidDataOutSize passed with LBPPB 8"
	;;
esac
ut_tgtd_stop
echo "PASS conformance $profile"
