/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.h: mode parameter pages of a logical unit (SPC-4 7.5, SBC-4 6.5).
 * The current and saved values live in struct mode_state (lu->lock); the
 * fields the data path reads on every command are mirrored in atomics.
 * Defaults and changeable masks are constant tables in mode.c. Saved
 * values (MODE SELECT SP=1, MODE SENSE PC=11b) exist once the LU has a
 * state directory (scsi_lu_mode_store(), mode_store.c); without one, SP=1
 * and PC=11b are refused as before. */
#ifndef UT_SCSI_MODE_H
#define UT_SCSI_MODE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scsi_lu;

/* in MODE SENSE order: page code, then subpage code */
enum mode_page_idx {
	MODE_PG_RW_ERROR = 0, /* 01h Read-Write Error Recovery */
	MODE_PG_DISCONNECT,   /* 02h Disconnect-Reconnect */
	MODE_PG_CACHING,      /* 08h Caching */
	MODE_PG_CONTROL,      /* 0Ah Control */
	MODE_PG_CONTROL_EXT,  /* 0Ah/01h Control Extension */
	MODE_PG_POWER,	      /* 1Ah Power Condition */
	MODE_PG_IEC,	      /* 1Ch Informational Exceptions Control */
	MODE_PG_LBP,	      /* 1Ch/02h Logical Block Provisioning (thin LUs) */
	MODE_PG_COUNT
};

#define MODE_PAGE_MAX_LEN 40

struct mode_store;

struct mode_state {
	uint8_t cur[MODE_PG_COUNT][MODE_PAGE_MAX_LEN];	 /* lu->lock */
	uint8_t saved[MODE_PG_COUNT][MODE_PAGE_MAX_LEN]; /* lu->lock; defaults until saved */
	struct mode_store *store; /* NULL: no saved values; set once before mapping */
	atomic_bool wce;
	atomic_bool d_sense;
	atomic_bool swp;
	atomic_bool tas;
};

/* Whether LU lu has page i: the Logical Block Provisioning page only on
 * thin LUs with thresholds (lbp_threshold.c). */
bool mode_page_present(struct scsi_lu *lu, unsigned i);

/* Current (and saved) values from the defaults and the LU's attributes. */
void mode_init(struct scsi_lu *lu);
/* At the LU's end: the store. */
void mode_fini(struct scsi_lu *lu);

/* The PAGE CODE and SUBPAGE CODE of page i (vpd.c: Mode Page Policy). */
void mode_page_id(unsigned i, uint8_t *code, uint8_t *sub);

/* mode.c, for mode_store.c: the saved pages as a file payload (at most
 * MODE_SAVED_MAX bytes), and back: a payload is checked whole (known,
 * saveable pages of the right length, each at most once, no bit outside the
 * changeable mask differing from the default) before it replaces the saved
 * and the current values; else -EBADMSG and *why. lu->lock held. */
#define MODE_SAVED_MAX (MODE_PG_COUNT * (4 + MODE_PAGE_MAX_LEN))
size_t mode_saved_encode(const uint8_t pgs[MODE_PG_COUNT][MODE_PAGE_MAX_LEN], uint8_t *out);
int mode_saved_load_locked(struct scsi_lu *lu, const uint8_t *p, size_t len, const char **why);

/* mode_store.c */
/* Is a write in flight? lu->lock held. */
bool mode_store_busy_locked(const struct mode_store *st);
/* Write payload (len bytes, copied) as the state file on a worker thread;
 * done(arg, err) follows on the calling reactor once it is durable (err 0)
 * or failed (-errno: the file keeps the old saved values). One write at a
 * time. Called on a reactor thread with lu->lock held. 0 or -ENOMEM
 * (nothing queued). */
int mode_store_write_locked(struct mode_store *st, const uint8_t *payload, size_t len,
			    void (*done)(void *arg, int err), void *arg);
void mode_store_free(struct mode_store *st);

#endif
