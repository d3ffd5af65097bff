/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.h: mode parameter pages of a logical unit (SPC-4 7.5, SBC-4 6.5).
 * The current values live in struct mode_state (lu->lock); the fields the
 * data path reads on every command are mirrored in atomics. Defaults and
 * changeable masks are constant tables in mode.c. No saved values (SP = 0:
 * SAVING PARAMETERS NOT SUPPORTED). */
#ifndef UT_SCSI_MODE_H
#define UT_SCSI_MODE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct scsi_lu;

enum mode_page_idx {
	MODE_PG_RW_ERROR = 0, /* 01h Read-Write Error Recovery */
	MODE_PG_CACHING,      /* 08h Caching */
	MODE_PG_CONTROL,      /* 0Ah Control */
	MODE_PG_IEC,	      /* 1Ch Informational Exceptions Control */
	MODE_PG_COUNT
};

#define MODE_PAGE_MAX_LEN 20

struct mode_state {
	uint8_t cur[MODE_PG_COUNT][MODE_PAGE_MAX_LEN]; /* lu->lock */
	atomic_bool wce;
	atomic_bool d_sense;
	atomic_bool swp;
	atomic_bool tas;
};

/* Current values from the defaults and the LU's attributes. */
void mode_init(struct scsi_lu *lu);

#endif
