/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_priv.h: the persistent reservation state of a logical unit, shared by
 * pr.c (service actions, conflicts), pr_in.c (PERSISTENT RESERVE IN data)
 * and pr_store.c (APTPL persistence). Everything here is under lu->lock
 * except pr_state.active.
 *
 * Registrations are kept by initiator port identity (TransportID) and
 * relative target port, not by nexus: an initiator port may be registered
 * while it has no I_T nexus (SPEC_I_PT, REGISTER AND MOVE, a restored APTPL
 * state). Registrations never overlap: at most one covers a given I_T nexus.
 * Each lu_itn caches the registration covering it, checked against
 * pr_state.version, so the command path finds it in O(1). */
#ifndef UT_SCSI_PR_PRIV_H
#define UT_SCSI_PR_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/list.h"
#include "scsi/pr.h"
#include "scsi/transport_id.h"

struct pr_store;

/* SPC-4 6.16.3 table 217: persistent reservation TYPE codes */
enum pr_type {
	PR_TYPE_NONE = 0x0, /* (obsolete code 0: used for "no reservation") */
	PR_TYPE_WE = 0x1,
	PR_TYPE_EA = 0x3,
	PR_TYPE_WE_RO = 0x5,
	PR_TYPE_EA_RO = 0x6,
	PR_TYPE_WE_AR = 0x7,
	PR_TYPE_EA_AR = 0x8,
	PR_TYPE_COUNT = 0x10,
};

/* What each type means (SPC-4 5.13.10, table 217). */
struct pr_type_info {
	const char *name;
	bool valid;
	bool all_holders;      /* all registrants: every registered I_T nexus holds it */
	bool registrants_ok;   /* registered I_T nexuses have access (RO and AR types) */
	bool exclusive_access; /* Exclusive Access family: reads conflict too */
	bool release_ua; /* releasing it tells the other registrants (RESERVATIONS RELEASED) */
};
extern const struct pr_type_info pr_types[PR_TYPE_COUNT];

#define PR_SCOPE_LU 0x0 /* SPC-4 6.16.3 table 216: LU_SCOPE, the only scope */

struct pr_reg {
	struct list_node node; /* pr_state.regs, in registration order */
	uint64_t key;	       /* never 0 */
	struct tid_port port;  /* initiator port, or device (every port) */
	uint16_t rel_port;     /* relative target port identifier (unused with all_tg_pt) */
	bool all_tg_pt;	       /* registered through every target port */
	bool doomed;	       /* being removed by the current PERSISTENT RESERVE OUT */
};

struct pr_state {
	/* the command path's lock-free view: nregs > 0, and type != NONE */
	atomic_bool active;
	atomic_bool reserved;
	struct list_node regs; /* struct pr_reg */
	unsigned nregs;
	unsigned max_regs;	/* INSUFFICIENT REGISTRATION RESOURCES beyond */
	unsigned version;	/* bumped when registrations come or go (lu_itn caches) */
	uint32_t generation;	/* PRGENERATION (SPC-4 6.15.2); 0 at power on */
	uint8_t type;		/* enum pr_type of the reservation, PR_TYPE_NONE = none */
	struct pr_reg *holder;	/* the holder (not for all registrants types) */
	bool aptpl;		/* PTPL_A: the last valid APTPL bit */
	struct pr_store *store; /* NULL: no APTPL support (PTPL_C 0) */
};

struct scsi_lu;
struct lu_itn;

/* pr.c */
/* The registration covering itn, or NULL (lu->lock held). */
struct pr_reg *pr_reg_of_locked(struct pr_state *pr, struct lu_itn *itn);
/* Does reg hold the reservation? (NULL: no) */
bool pr_is_holder(const struct pr_state *pr, const struct pr_reg *reg);
/* Replace the whole registration set and reservation (APTPL load, rollback
 * after a failed write): frees the old registrations, bumps version. */
void pr_reset_locked(struct pr_state *pr);
void pr_set_active(struct pr_state *pr);
/* The control plane's clear (pr_admin.c), lu->lock held. only NULL: what
 * PERSISTENT RESERVE OUT CLEAR does, without a requesting I_T nexus (every
 * registrant gets RESERVATIONS PREEMPTED); else the registrations that
 * overlap the initiator port (or device) only: REGISTRATIONS PREEMPTED for
 * them, the reservation released if it ends with them. PRGENERATION + 1
 * when anything was removed. Returns the number of registrations removed
 * (0: nothing changed); *released: a reservation ended. */
unsigned pr_admin_clear_locked(struct scsi_lu *lu, const struct tid_port *only, bool *released);

/* pr_store.c */
/* A PERSISTENT RESERVE OUT waiting for the state file. */
struct pr_wait {
	struct list_node node;
	uint64_t seq;
	int err; /* 0, or -errno of the failed write (the state was rolled back) */
	void (*done)(struct pr_wait *w); /* without lu->lock, on a reactor thread */
};
/* Must the next change go through the state file (APTPL active, or a write
 * still in flight)? lu->lock held. */
bool pr_store_busy_locked(struct scsi_lu *lu);
/* Before a change that goes through the state file: remember the state to
 * roll back to when the write fails. 0 or -ENOMEM. lu->lock held. */
int pr_store_begin_locked(struct scsi_lu *lu);
/* The change did not happen after all (lu->lock held). */
void pr_store_abandon_locked(struct scsi_lu *lu);
/* After the change: snapshot the state (or, APTPL now off, the removal of
 * the file) and queue its durable write; w->done follows once the file
 * holds this state or a newer one. Called on a reactor thread with lu->lock
 * held. 0, or -ENOMEM (nothing queued: the caller rolls back with
 * pr_store_rollback_locked()). */
int pr_store_commit_locked(struct scsi_lu *lu, struct pr_wait *w);
void pr_store_rollback_locked(struct scsi_lu *lu);
void pr_store_free(struct pr_store *st);

#endif
