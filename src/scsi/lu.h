/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lu.h: the logical unit (device server) as seen inside the core.
 * Shared state is guarded by lu->lock (a plain mutex: held briefly, never
 * across I/O). Fields marked (const) do not change after creation. */
#ifndef UT_SCSI_LU_H
#define UT_SCSI_LU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "scsi/scsi.h"

struct sbc_lu_state;  /* sbc*.c: COMPARE AND WRITE range locks, EXTENDED COPY state, ... */
struct lu_core_state; /* core state (mode pages, UAs, reservations, task set); see lu.c */

struct scsi_lu {
	char *name; /* (const) */
	atomic_int refs;
	struct bs_dev *bs;	    /* (const) */
	struct scsi_lu_attrs attrs; /* (const) except by reconfiguration */
	uint32_t block_size;	    /* (const) bytes */
	uint32_t block_shift;	    /* (const) log2(block_size) */
	_Atomic uint64_t nblocks;   /* capacity in logical blocks (changes on resize) */
	/* the protection type the medium is formatted with (enum
	 * t10pi_type): attrs.pi_type at creation, then FORMAT UNIT's
	 * (pi_format.c); changed only under the format job's exclusive
	 * range lock over the whole medium */
	_Atomic uint8_t pi_type;

	pthread_mutex_t lock;
	struct lu_core_state *core; /* owned by the core (lu.c, ua.c, order.c, mode.c, reserve.c) */
	struct sbc_lu_state *sbc;   /* owned by the block command code (sbc*.c) */
};

static inline uint64_t lu_nblocks(const struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->nblocks, memory_order_relaxed);
}

static inline uint8_t lu_pi_type(const struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->pi_type, memory_order_relaxed);
}

/* Current values of mode page fields that other code needs. */
bool lu_wce(struct scsi_lu *lu);     /* Caching page WCE */
bool lu_d_sense(struct scsi_lu *lu); /* Control page D_SENSE */
bool lu_swp(struct scsi_lu *lu);     /* Control page SWP (software write protect) */
bool lu_tas(struct scsi_lu *lu);     /* Control page TAS */
/* Medium writes refused for this command: read-only LU, SWP, or a
 * write-protected LUN mapping. */
bool lu_write_protected(struct scsi_lu *lu, const struct scsi_cmd *cmd);

/* The path of the LU's state file of a kind ("pr", "mode", ...) in
 * state_dir: <state_dir>/<kind>-<NAA designator, 32 hex digits>.state
 * (malloc'ed; NULL without memory). Temporary files an interrupted write
 * left beside it (lib/atomic_file.h) are removed first: they are never the
 * state. */
char *lu_state_path(const struct scsi_lu *lu, const char *state_dir, const char *kind);

#endif
