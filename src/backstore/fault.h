/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.h: the fault-injection wrapper, a back-store over another one that
 * fails chosen requests and adds latency, so that what an initiator sees of
 * back-store errors can be tested (docs/config.md, "fault").
 *
 * Contract: bs_fault_wrap() takes ownership of inner (closed with the
 * wrapper) and returns a struct bs_dev with the inner size, caps, name and
 * type. Requests go to inner unchanged except:
 *  - READ whose range holds an LBA of read_error_lbas, WRITE or WRITE_ZEROES
 *    whose range holds one of write_error_lbas: completed with the configured
 *    error without touching inner; for "medium" that is -EIO with bad_off at
 *    the lowest listed LBA in the range (the core reports MEDIUM ERROR with
 *    that LBA in the INFORMATION field: SBC-4 4.18);
 *  - FLUSH with flush_error: the configured error (bad_off unknown);
 *  - READ, WRITE and WRITE_ZEROES fail with probability error_rate_ppm / 10^6,
 *    drawn from a generator seeded with `seed` (the same sequence of requests
 *    fails the same way), bad_off at the first block of the request;
 *  - every request is held delay_us plus a uniform 0..delay_jitter_us before
 *    it goes to inner, on a timer of the submitting reactor (no thread is
 *    blocked; without a reactor, i.e. outside the daemon, it sleeps).
 * Errors: "medium" -EIO, "hardware" -EREMOTEIO (HARDWARE ERROR / INTERNAL
 * TARGET FAILURE), "nospace" -ENOSPC (DATA PROTECT / SPACE ALLOCATION FAILED
 * on a thin LU). */
#ifndef UT_BACKSTORE_FAULT_H
#define UT_BACKSTORE_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scsi/bs.h"

#define BS_FAULT_LBAS_MAX  4096u     /* entries of each LBA list */
#define BS_FAULT_DELAY_MAX 10000000u /* 10 s, delay_us and delay_jitter_us each */

enum bs_fault_error {
	BS_FAULT_MEDIUM = 0,
	BS_FAULT_HARDWARE,
	BS_FAULT_NOSPACE,
	BS_FAULT_ERROR_COUNT,
};

struct bs_fault_params {
	const uint64_t *read_error_lbas; /* logical blocks of block_size bytes */
	size_t nread;
	const uint64_t *write_error_lbas;
	size_t nwrite;
	bool flush_error;
	uint32_t error_rate_ppm; /* 0..1000000 */
	uint8_t error;		 /* enum bs_fault_error */
	uint32_t delay_us;
	uint32_t delay_jitter_us;
	uint64_t seed;
	uint32_t block_size; /* of the logical unit over the wrapper */
};

/* Names of the errors (the config's "error" values), inline so that the
 * config parser needs no back-store code. */
static inline const char *bs_fault_error_name(unsigned e)
{
	static const char *const names[BS_FAULT_ERROR_COUNT] = {
	    [BS_FAULT_MEDIUM] = "medium",
	    [BS_FAULT_HARDWARE] = "hardware",
	    [BS_FAULT_NOSPACE] = "nospace",
	};

	return e < BS_FAULT_ERROR_COUNT ? names[e] : "?";
}

/* "medium", "hardware", "nospace" -> enum bs_fault_error, or -1. */
static inline int bs_fault_error_parse(const char *name)
{
	for (unsigned i = 0; i < BS_FAULT_ERROR_COUNT; i++)
		if (strcmp(bs_fault_error_name(i), name) == 0)
			return (int)i;
	return -1;
}

/* 0, or -EINVAL (an LBA beyond the inner device, a bad block size or
 * error, lists or delays over their bounds; logged) or -ENOMEM. On error
 * inner is left to the caller. The lists are copied. */
int bs_fault_wrap(struct bs_dev *inner, const struct bs_fault_params *p, struct bs_dev **out);

#endif
