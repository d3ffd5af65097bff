/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_erl.c: libFuzzer harness (8): fuzz_pdu.c at ErrorRecoveryLevel 1,
 * with header and data digests that fail where the input says (the input
 * format is in fuzz_pdu.c's header, "Built with FUZZ_PDU_ERL"). A file of
 * its own so that every harness is a tests/fuzz/fuzz_<name>.c (the Makefile's
 * fuzz-build target and run.sh list them that way). */
#define FUZZ_PDU_ERL 1
#include "fuzz_pdu.c"
