/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi.h: T10 protection information (SBC-4 4.22): the 8-byte tuple of each
 * logical block, the checks the RDPROTECT / WRPROTECT / VRPROTECT fields
 * ask for, and the moves between the interleaved wire layout (data then
 * tuple, block after block) and the stored one (the data contiguous, the
 * tuples apart). Pure functions over buffers; see pi.c. */
#ifndef UT_SCSI_PI_H
#define UT_SCSI_PI_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/sense.h"

/* SBC-4 4.22.2: LOGICAL BLOCK GUARD (be16, CRC-16 T10-DIF of the block's
 * data), LOGICAL BLOCK APPLICATION TAG (be16), LOGICAL BLOCK REFERENCE TAG
 * (be32) */
#define PI_TUPLE_LEN 8u

enum pi_type {
	PI_NONE = 0,
	PI_TYPE1 = 1, /* reference tag: the low 32 bits of the LBA */
	PI_TYPE2 = 2, /* reference tag: from the CDB's expected initial tag, +1 per block */
	PI_TYPE3 = 3, /* reference tag: the application client's, not checked */
};

/* What a command's PROTECT field asks (SBC-4 tables for RDPROTECT,
 * WRPROTECT and VRPROTECT). */
struct pi_checks {
	bool transfer; /* the tuples travel with the data */
	bool guard;
	bool app;
	bool ref;
};

/* The expected tags of a command's first block. */
struct pi_expect {
	enum pi_type type;
	uint32_t ref;	   /* type 1: LBA & ffffffffh; type 2: from the CDB */
	uint16_t app;	   /* 32-byte CDBs: EXPECTED LOGICAL BLOCK APPLICATION TAG */
	uint16_t app_mask; /* ... and its mask (0: the application tag is not checked) */
};

/* The checks of PROTECT value `protect` (3 bits) on an LU of type t; false
 * for the reserved values 110b and 111b. */
bool pi_protect_checks(enum pi_type t, uint8_t protect, struct pi_checks *c);

/* CRC-16 T10-DIF (polynomial 8BB7h, initial 0, no inversion). */
uint16_t pi_crc(const uint8_t *data, uint32_t len);

/* Check n blocks of data (n * bs bytes, contiguous) against their tuples
 * (n * PI_TUPLE_LEN bytes). SENSE_OK, or the check that failed first
 * (LOGICAL BLOCK GUARD / APPLICATION TAG / REFERENCE TAG CHECK FAILED) with
 * *bad set to the index of its block. A tuple whose application tag is
 * FFFFh (types 1 and 2), or whose application tag is FFFFh and reference
 * tag FFFFFFFFh (type 3), disables the checks of its block (SBC-4 4.22.3). */
enum sense_reason pi_verify(const uint8_t *data, const uint8_t *tuples, uint32_t bs, uint64_t n,
			    const struct pi_expect *e, const struct pi_checks *c, uint64_t *bad);

/* The tuples a device server writes for data it received without them
 * (WRPROTECT 000b): the guard, application tag 0000h, the reference tag the
 * type defines (type 3: FFFFFFFFh). */
void pi_generate(const uint8_t *data, uint8_t *tuples, uint32_t bs, uint64_t n,
		 const struct pi_expect *e);

/* Interleaved (bs + 8 per block) to data contiguous at the front of buf and
 * the tuples copied to tuples; in place. */
void pi_split(uint8_t *buf, uint8_t *tuples, uint32_t bs, uint64_t n);

/* The reverse: buf holds n blocks of data at its front and has room for
 * n * (bs + 8) bytes; in place. */
void pi_merge(uint8_t *buf, const uint8_t *tuples, uint32_t bs, uint64_t n);

#endif
