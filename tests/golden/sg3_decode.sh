#!/bin/bash
# sg3_decode.sh GOLDEN_DIR: the golden responses of the self-test, start-stop
# and diagnostic work decoded by sg3-utils' own parsers, the ones sg_logs,
# sg_senddiag and sg_format use on a real device (sg_logs --in,
# sg_decode_sense): what the target sends must read as the standard says to
# the tools administrators use. sg3-utils cannot reach the target itself
# here (it needs a kernel SCSI device: /dev/sg*, an iSCSI kernel initiator),
# so the bytes come from the golden files test_golden.c checks against the
# core. Skipped (77) without sg3-utils.
set -u
dir=${1:?usage: sg3_decode.sh GOLDEN_DIR}
for t in sg_logs sg_decode_sense; do
	command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (sg3-utils)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the bytes of a golden file, comments left out
hex() { grep -v '^#' "$dir/$1.hex" | tr '\n' ' ' > "$tmp/$1.hex"; echo "$tmp/$1.hex"; }
# expect NAME OUTPUT STRING...: every string is a line of the output
expect() {
	local name=$1 out=$2
	shift 2
	for s in "$@"; do
		if ! grep -qF -- "$s" <<<"$out"; then
			echo "FAIL $name: no \"$s\" in:"
			echo "$out"
			fail=1
			return
		fi
	done
	echo "ok   $name"
}

out=$(sg_logs --in="$(hex log_sense_10)" 2>&1)
expect log_sense_10 "$out" "Self-test results page  [0x10]" \
	"Parameter code = 1, accumulated power-on hours = 1" \
	"self-test code: default [0]" "self-test result: completed without error [0]"
out=$(sg_logs --in="$(hex log_sense_0e)" 2>&1)
expect log_sense_0e "$out" "Start-stop cycle counter page  [0xe]" \
	"Accumulated start-stop cycles = 1" "Accumulated load-unload cycles = 0"
out=$(sg_logs --in="$(hex log_sense_00ff)" 2>&1)
expect log_sense_00ff "$out" "0x0e        Start-stop cycle counter" "0x10        Self test results"
out=$(sg_decode_sense --file="$(hex sense_selftest_progress_fixed)" 2>&1)
expect sense_selftest_progress_fixed "$out" "Sense key: Not Ready" \
	"Logical unit not ready, self-test in progress" "Progress indication: 50.00%"
out=$(sg_decode_sense --file="$(hex sense_format_progress_fixed)" 2>&1)
expect sense_format_progress_fixed "$out" "Logical unit not ready, format in progress" \
	"Progress indication: 50.00%"
out=$(sg_decode_sense --file="$(hex sense_selftest_failed_fixed)" 2>&1)
expect sense_selftest_failed_fixed "$out" "Sense key: Hardware Error" \
	"Logical unit failed self-test"
exit $fail
