/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi.h: T10 protection information (SBC-4 4.22) in the device server: the
 * checks the RDPROTECT / WRPROTECT / VRPROTECT fields ask for, and the
 * verification of tuples against data and expected tags (pi.c). The tuple
 * itself, its guard and the wire layout are lib/t10pi.h. */
#ifndef UT_SCSI_PI_H
#define UT_SCSI_PI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/t10pi.h"
#include "scsi/sense.h"

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
	enum t10pi_type type;
	uint32_t ref;	   /* type 1: LBA & ffffffffh; type 2: from the CDB */
	uint16_t app;	   /* 32-byte CDBs: EXPECTED LOGICAL BLOCK APPLICATION TAG */
	uint16_t app_mask; /* ... and its mask (0: the application tag is not checked) */
};

/* The checks of PROTECT value `protect` (3 bits) on an LU of type t; false
 * for the reserved values 110b and 111b, and for any but 000b without
 * protection information. */
bool pi_protect_checks(enum t10pi_type t, uint8_t protect, struct pi_checks *c);

/* Check n blocks of data (n * bs bytes, contiguous) against their tuples
 * (n * T10PI_TUPLE_LEN bytes). SENSE_OK, or the check that failed first
 * (LOGICAL BLOCK GUARD / APPLICATION TAG / REFERENCE TAG CHECK FAILED) with
 * *bad set to the index of its block. A tuple whose application tag is
 * FFFFh (types 1 and 2), or whose application tag is FFFFh and reference
 * tag FFFFFFFFh (type 3), disables the checks of its block (SBC-4 4.22.3). */
enum sense_reason pi_verify(const uint8_t *data, const uint8_t *tuples, uint32_t bs, uint64_t n,
			    const struct pi_expect *e, const struct pi_checks *c, uint64_t *bad);

#endif
