/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dedup_priv.h: the dedup store's insides, shared by dedup_store.c (index,
 * maps, reference counts, volumes, I/O, fsck) and dedup_journal.c (records,
 * commit, compaction, replay). Not for other files. Locking: st->lock
 * (reader-writer) guards everything in struct dd_store below it;
 * st->commit_lock makes commits one at a time. */
#ifndef UT_BACKSTORE_DEDUP_PRIV_H
#define UT_BACKSTORE_DEDUP_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backstore/dedup_store.h"

#define DD_REC	       64u
#define DD_LEAF_SHIFT  12
#define DD_LEAF	       (1u << DD_LEAF_SHIFT) /* map entries per leaf: 16 MiB of volume */
#define DD_JBUF_COMMIT (4u << 20)	     /* commit when this many bytes wait */
#define DD_COMPACT_MIN (64ull << 20)
#define DD_MAGIC       "UTDEDUP1"
#define DD_DATA_MAGIC  "UTDEDUPDATA1"
#define DD_VERSION     1u
#define DD_TOMB	       UINT32_MAX
#define DD_MAX_SLOTS   (UINT32_MAX - 1u)

enum dd_rec_type {
	DD_R_NEW = 1, /* a: slot, data: SHA-256 */
	DD_R_MAP = 2, /* a: volume, b: slot (0: unmapped), c: chunk */
	DD_R_VOL = 3, /* a: volume, c: size in bytes, data: SHA-256 of the name */
};

/* A journal record on disk: bytes, little-endian, no padding.
 *   0  crc[4]   CRC32C of bytes 4..63
 *   4  type     enum dd_rec_type
 *   5  rsvd[3]
 *   8  a[4]
 *  12  b[4]
 *  16  c[8]
 *  24  data[40] */
struct dd_rec {
	uint8_t crc[4];
	uint8_t type;
	uint8_t rsvd[3];
	uint8_t a[4];
	uint8_t b[4];
	uint8_t c[8];
	uint8_t data[40];
};
_Static_assert(sizeof(struct dd_rec) == DD_REC, "journal record is 64 bytes");

enum {
	DD_S_USED = 1u << 0,	/* holds a chunk (live, or pending when ref == 0) */
	DD_S_PENDING = 1u << 1, /* on the pending list */
};

struct dd_slot {
	uint8_t hash[32];
	uint32_t ref;
	uint32_t drop_epoch; /* the epoch whose records dropped its last reference */
	uint8_t flags;
};

struct dd_volume {
	uint32_t id;
	uint8_t key[32]; /* SHA-256 of the name */
	uint64_t size;
	uint64_t nchunks;
	uint32_t **leaf;
	uint64_t nleaves;
	uint64_t mapped;
	bool open;
};

struct dd_store {
	struct dd_store *next;
	dev_t st_dev;
	ino_t st_ino;
	unsigned refs;
	char dir[PATH_MAX];
	int dirfd, datafd, jfd;
	pthread_rwlock_t lock;	     /* everything below */
	pthread_mutex_t commit_lock; /* one commit at a time */
	struct dd_slot *slot;
	uint32_t slot_cap, next_slot; /* next_slot: first never-used slot */
	uint32_t *freel, *pend, *tab;
	size_t nfree, free_cap, npend, pend_cap, tab_cap, tab_n, tab_tombs;
	struct dd_volume **vols;
	size_t nvols;
	uint8_t *jbuf;
	size_t jlen, jcap;
	uint32_t epoch;
	int failed; /* -errno of a failed commit: writes refused */
	uint64_t live, logical, written, deduped, commits, compactions, jsize;
};

struct dd_vol {
	struct dd_store *st;
	struct dd_volume *vr;
	char name[64];
};

/* dedup_store.c (st->lock held for writing where they change the store) */
int dd_tab_insert(struct dd_store *st, uint32_t s);
void dd_tab_del(struct dd_store *st, uint32_t s);
int dd_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x);
int dd_slots_reserve(struct dd_store *st, uint32_t s);
int dd_vol_grow(struct dd_volume *vr, uint64_t size);
/* Set chunk c's slot without reference counting (replay); the old slot or -errno. */
int64_t dd_map_put(struct dd_volume *vr, uint64_t c, uint32_t s);
void dd_ref(struct dd_store *st, uint32_t s);

/* dedup_journal.c */
int dd_rec_append(struct dd_store *st, uint8_t type, uint32_t a, uint32_t b, uint64_t c,
		  const uint8_t *data, size_t dlen);
int dd_write_all(int fd, const uint8_t *p, size_t n, off_t off);
/* Rewrite the journal as the state in memory (both locks held). */
int dd_compact(struct dd_store *st);
/* Make every record appended so far durable, then free what they released. */
int dd_commit(struct dd_store *st);
/* After an update: commit when asked to (FUA) or when the buffer is full. */
int dd_after_write(struct dd_store *st, bool fua);
struct dd_volume *dd_vol_add(struct dd_store *st, uint32_t id, const uint8_t key[32]);
/* Open: the journal's records into memory, then counts, index, free list. */
int dd_replay(struct dd_store *st);
int dd_rebuild(struct dd_store *st);

#endif
