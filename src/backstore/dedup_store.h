/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dedup_store.h: a deduplicating chunk store shared by several volumes.
 *
 * A store is a directory holding
 *   chunks.dat  4 KiB chunks, slot s at byte s * 4096 (slot 0: a header;
 *               slot number 0 in a map means "zeroes, unmapped");
 *   journal     fixed 64-byte records, each with its CRC32C: NEW (slot s
 *               holds the chunk of SHA-256 h), MAP (volume v's chunk c is
 *               slot s) and VOL (volume v, its size, the SHA-256 of its
 *               name).
 * Everything else (reference counts, the hash index, the free list) is
 * rebuilt from the journal at open, which is then rewritten compacted.
 *
 * Durability (dedup_store.c explains the order): a write is durable once
 * dd_flush() returned after it (or dd_write() with fua). Until then its
 * records wait in memory; a chunk whose last reference went is reused only
 * after the journal saying so is durable, so after a crash at any moment
 * every map that replays points at the data it was written with.
 *
 * Thread safety: every call may come from any thread at once; one
 * reader-writer lock per store (reads share it), hashing outside it.
 * Errors are -errno: -EIO (a journal that could not be written: the store
 * then refuses writes until reopened), -ENOSPC, -ENOMEM, -EINVAL.
 */
#ifndef UT_BACKSTORE_DEDUP_STORE_H
#define UT_BACKSTORE_DEDUP_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#define DD_CHUNK       4096u
#define DD_CHUNK_SHIFT 12

struct dd_vol;

/* Open (creating the directory and its files when missing) the store at
 * dir and in it the volume called name. size: the volume's size in bytes
 * (a multiple of 512, at least one chunk's worth of 512-byte blocks); a
 * volume already in the store keeps its blocks and grows to size (shrinking
 * is refused: -EINVAL). A volume is open once at a time (-EBUSY); a store is
 * open in one process at a time (-EBUSY, an flock on the directory). */
int dd_vol_open(const char *dir, const char *name, uint64_t size, struct dd_vol **out);
/* Commit what is pending and close; the store closes with its last volume. */
void dd_vol_close(struct dd_vol *v);

uint64_t dd_vol_size(const struct dd_vol *v);
/* The journal size past which a commit compacts it (when it is also four
 * times what the state needs); 0 restores the default, 64 MiB. For tests. */
void dd_set_compact_min(uint64_t bytes);
/* off/len: multiples of 512 inside the volume (the caller checks). */
int dd_read(struct dd_vol *v, uint64_t off, uint64_t len, const struct iovec *iov, int iovcnt);
int dd_write(struct dd_vol *v, uint64_t off, uint64_t len, const struct iovec *iov, int iovcnt,
	     bool fua);
/* blk (blen bytes, blen a divisor of DD_CHUNK or a multiple of it) repeated
 * over [off, off + len): each whole chunk becomes a reference to one
 * stored chunk. */
int dd_write_same(struct dd_vol *v, uint64_t off, uint64_t len, const void *blk, uint32_t blen,
		  bool fua);
/* [off, off + len) reads back as zeroes; whole chunks are unmapped. */
int dd_zero(struct dd_vol *v, uint64_t off, uint64_t len);
/* Copy [src_off, +len) of src to [off, +len) of dst by reference where
 * whole chunks line up (no data read or written), by data elsewhere.
 * -EXDEV: the two volumes are not in one store. */
int dd_copy(struct dd_vol *dst, uint64_t off, struct dd_vol *src, uint64_t src_off, uint64_t len);
/* From off: *map_len bytes (at most max) all mapped or all unmapped. */
int dd_map_status(struct dd_vol *v, uint64_t off, uint64_t max, uint64_t *map_len, bool *mapped);
/* Make every write that completed before durable. */
int dd_flush(struct dd_vol *v);
int dd_resize(struct dd_vol *v, uint64_t new_size);

struct dd_usage {
	uint64_t vol_mapped;	/* this volume's mapped chunks, bytes */
	uint64_t logical;	/* every volume's mapped chunks, bytes */
	uint64_t unique;	/* chunks stored once (live slots), bytes */
	uint64_t volumes;	/* volumes in the store */
	uint64_t written;	/* chunk data written since open, bytes */
	uint64_t deduped;	/* chunk writes that found their chunk stored */
	uint64_t journal_bytes; /* the journal file's size */
	uint64_t commits;	/* journal commits since open */
	uint64_t compactions;	/* journal rewrites since open (the one at open too) */
};
/* Cheap (counters kept as it goes); any thread. */
void dd_usage(struct dd_vol *v, struct dd_usage *u);

struct dd_fsck {
	uint64_t volumes, live, logical;
	uint64_t pending;      /* chunks unreferenced, freed at the next commit */
	uint64_t leaked;       /* allocated in chunks.dat, referenced by no map */
	uint64_t missing;      /* referenced by a map, with no stored chunk */
	uint64_t corrupt;      /* stored data whose SHA-256 is not the recorded one */
	uint64_t ref_mismatch; /* slots whose kept count differs from a recount */
};
/* Check the whole store (reads every live chunk; blocks writers while it
 * runs). 0 (counts in *r) or -errno. */
int dd_fsck(struct dd_vol *v, struct dd_fsck *r);

#endif
