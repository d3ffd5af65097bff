/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_env.h: what the libFuzzer harnesses share (tests/fuzz/README.md).
 *
 * Contract for every harness: LLVMFuzzerTestOneInput() builds what it needs,
 * runs one input and tears everything down again, so that an input behaves
 * the same whatever ran before it (deterministic replay) and LeakSanitizer
 * sees every allocation of the input freed. Process-wide state that cannot
 * be torn down (the SCSI core, the iSCSI fabric settings, one reactor for
 * the harness thread) is created once by fz_init().
 *
 * A SCSI target (fz_scsi): two thin RAM logical units with demo access, so
 * any initiator name logs in and sees both:
 *   LUN 0: 1 MiB, 512-byte blocks, write cache
 *   LUN 1: 256 KiB, 4096-byte blocks (XCOPY between block sizes, a second LU
 *          for cross-LUN parameter lists) */
#ifndef UT_TESTS_FUZZ_ENV_H
#define UT_TESTS_FUZZ_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scsi/scsi.h"

#define FZ_TARGET    "iqn.2026-12.org.utarget:fuzz"
#define FZ_INITIATOR "iqn.2026-12.org.example:fuzzer"

/* Process-wide set-up (idempotent): logging quiet unless FUZZ_LOG=debug..err
 * is set, the SCSI core, iSCSI settings (keepalive off, long login timeout),
 * the harness thread's reactor. */
void fz_init(void);
struct reactor *fz_reactor(void);

struct fz_scsi {
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu[2];
};
/* 0 or -errno. */
int fz_scsi_create(struct fz_scsi *e);
void fz_scsi_destroy(struct fz_scsi *e);

/* Run the harness reactor's posted messages, expired timers and deferred
 * work until done() returns true (checked after each iteration), sleeping
 * 100 us between iterations; gives up after max_ms (returns false). */
bool fz_pump_until(bool (*done)(void), unsigned max_ms);
/* One iteration. */
void fz_pump(void);

/* A byte reader over the fuzzer's input (reads past the end yield 0). */
struct fz_in {
	const uint8_t *p;
	size_t len;
	size_t off;
};
uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);
/* Up to n bytes: *got set to what was available. */
const uint8_t *fz_bytes(struct fz_in *in, size_t n, size_t *got);
static inline size_t fz_left(const struct fz_in *in)
{
	return in->len - in->off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
