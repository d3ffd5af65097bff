/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dedup_store.c: the deduplicating chunk store (dedup_store.h): the index,
 * the maps, reference counts, volumes, I/O and fsck; the journal's records,
 * commits, compaction and replay are dedup_journal.c's (dedup_priv.h).
 *
 * In memory, per store: a slot table (SHA-256, reference count, state) for
 * every slot of chunks.dat, an open-addressing index SHA-256 -> slot over
 * the slots that hold a chunk, a free list, and per volume a two-level map
 * chunk -> slot (leaves of DD_LEAF entries, allocated on first use).
 * Journal records of changes not yet committed wait in a buffer.
 *
 * The order that makes it crash-safe (dd_commit()):
 *  1. a chunk is written to a slot of chunks.dat before its NEW record
 *     and any MAP record to it are appended to the buffer;
 *  2. a commit takes the buffer, fdatasync()s chunks.dat, then appends the
 *     records to the journal and fdatasync()s it: a record never reaches the
 *     disk before the data it points at;
 *  3. a slot whose last reference went stays allocated (and findable: a
 *     write of the same data takes it back) until the commit holding the
 *     MAP record that dropped that reference has returned; only then is it
 *     freed (its blocks punched out) and reusable. So no replayable map can
 *     point at a slot that was reused for other data.
 * Records are fixed 64-byte units, each with a CRC32C: replay stops at the
 * first bad one (a torn tail: a commit that did not return, whose writes
 * were not acknowledged durable), and what replays is a prefix of commits'
 * records in order, so every map in it points at a NEW before it.
 * Reference counts are not journaled: replay recounts them from the maps.
 * After replay the journal is rewritten compacted (journal.tmp, fdatasync,
 * rename, fsync of the directory) and chunks.dat truncated after its last
 * live slot; a commit compacts the same way once the journal has grown
 * past DD_COMPACT_MIN and four times what the state needs.
 *
 * Not done: verifying a hash hit byte for byte (SHA-256 collisions are
 * taken as impossible); a dense checkpoint of the maps (compaction writes
 * one MAP record per mapped chunk: 16 bytes of journal per KiB mapped).
 */
#include "backstore/dedup_store.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backstore/backstore.h"
#include "backstore/dedup_priv.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

static pthread_mutex_t dd_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dd_store *dd_registry;

/* ---- hashing ---- */

static int dd_sha256(const void *buf, size_t len, uint8_t out[32])
{
	unsigned int n = 32;

	return EVP_Digest(buf, len, out, &n, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
}

static bool dd_is_zero(const uint8_t *p)
{
	const uint64_t *q = (const uint64_t *)(const void *)p;

	for (size_t i = 0; i < DD_CHUNK / 8; i++)
		if (q[i])
			return false;
	return true;
}

/* ---- the index: SHA-256 -> slot ---- */

static size_t dd_tab_pos(const struct dd_store *st, const uint8_t *hash)
{
	uint64_t h;

	memcpy(&h, hash, sizeof(h));
	return (size_t)h & (st->tab_cap - 1);
}

static uint32_t dd_tab_find(const struct dd_store *st, const uint8_t *hash)
{
	if (!st->tab_cap)
		return 0;
	for (size_t p = dd_tab_pos(st, hash);; p = (p + 1) & (st->tab_cap - 1)) {
		uint32_t s = st->tab[p];

		if (s == 0)
			return 0;
		if (s != DD_TOMB && memcmp(st->slot[s].hash, hash, 32) == 0)
			return s;
	}
}

static int dd_tab_grow(struct dd_store *st)
{
	uint32_t *old = st->tab;
	size_t old_cap = st->tab_cap, cap = old_cap ? old_cap : 1024;

	while ((st->tab_n + 1) * 2 > cap)
		cap *= 2;
	st->tab = calloc(cap, sizeof(*st->tab));
	if (!st->tab) {
		st->tab = old;
		return -ENOMEM;
	}
	st->tab_cap = cap;
	st->tab_n = 0;
	st->tab_tombs = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i] && old[i] != DD_TOMB)
			dd_tab_insert(st, old[i]);
	free(old);
	return 0;
}

int dd_tab_insert(struct dd_store *st, uint32_t s)
{
	if ((st->tab_n + st->tab_tombs + 1) * 4 > st->tab_cap * 3) {
		int rc = dd_tab_grow(st);

		if (rc)
			return rc;
	}
	for (size_t p = dd_tab_pos(st, st->slot[s].hash);; p = (p + 1) & (st->tab_cap - 1)) {
		if (st->tab[p] == 0 || st->tab[p] == DD_TOMB) {
			if (st->tab[p] == DD_TOMB)
				st->tab_tombs--;
			st->tab[p] = s;
			st->tab_n++;
			return 0;
		}
	}
}

void dd_tab_del(struct dd_store *st, uint32_t s)
{
	if (!st->tab_cap)
		return;
	for (size_t p = dd_tab_pos(st, st->slot[s].hash);; p = (p + 1) & (st->tab_cap - 1)) {
		if (st->tab[p] == 0)
			return;
		if (st->tab[p] == s) {
			st->tab[p] = DD_TOMB;
			st->tab_n--;
			st->tab_tombs++;
			return;
		}
	}
}

/* ---- growable arrays ---- */

int dd_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint32_t *p = realloc(*v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int dd_slots_reserve(struct dd_store *st, uint32_t s)
{
	if (s < st->slot_cap)
		return 0;
	if (s >= DD_MAX_SLOTS)
		return -ENOSPC;

	uint64_t nc = st->slot_cap ? (uint64_t)st->slot_cap * 2 : 1024;

	while (nc <= s)
		nc *= 2;
	if (nc > DD_MAX_SLOTS)
		nc = DD_MAX_SLOTS;

	struct dd_slot *p = realloc(st->slot, nc * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memset(p + st->slot_cap, 0, (nc - st->slot_cap) * sizeof(*p));
	st->slot = p;
	st->slot_cap = (uint32_t)nc;
	return 0;
}

/* ---- volume maps ---- */

static uint32_t dd_map_get(const struct dd_volume *vr, uint64_t c)
{
	const uint32_t *l = vr->leaf[c >> DD_LEAF_SHIFT];

	return l ? l[c & (DD_LEAF - 1)] : 0;
}

int dd_vol_grow(struct dd_volume *vr, uint64_t size)
{
	uint64_t nchunks = (size + DD_CHUNK - 1) >> DD_CHUNK_SHIFT;
	uint64_t nleaves = (nchunks + DD_LEAF - 1) >> DD_LEAF_SHIFT;

	if (nleaves > vr->nleaves) {
		uint32_t **p = realloc(vr->leaf, nleaves * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + vr->nleaves, 0, (nleaves - vr->nleaves) * sizeof(*p));
		vr->leaf = p;
		vr->nleaves = nleaves;
	}
	vr->size = size;
	vr->nchunks = nchunks;
	return 0;
}

/* Set without reference counting (replay); returns the old slot or -errno. */
int64_t dd_map_put(struct dd_volume *vr, uint64_t c, uint32_t s)
{
	uint32_t **l = &vr->leaf[c >> DD_LEAF_SHIFT];
	uint32_t old;

	if (!*l) {
		if (!s)
			return 0;
		*l = calloc(DD_LEAF, sizeof(**l));
		if (!*l)
			return -ENOMEM;
	}
	old = (*l)[c & (DD_LEAF - 1)];
	(*l)[c & (DD_LEAF - 1)] = s;
	vr->mapped += (s != 0) - (old != 0);
	return old;
}

/* ---- reference counting (lock held for writing) ---- */

void dd_ref(struct dd_store *st, uint32_t s)
{
	if (st->slot[s].ref++ == 0)
		st->live++;
}

static void dd_unref(struct dd_store *st, uint32_t s)
{
	struct dd_slot *sl = &st->slot[s];

	if (--sl->ref)
		return;
	st->live--;
	sl->drop_epoch = st->epoch;
	if (!(sl->flags & DD_S_PENDING) && dd_push(&st->pend, &st->npend, &st->pend_cap, s) == 0)
		sl->flags |= DD_S_PENDING;
	/* else (no memory for the list): the slot stays allocated until the
	 * next open recounts it free */
}

/* Point chunk c of vr at s (0: unmapped), counting references and journaling. */
static int dd_map_set(struct dd_store *st, struct dd_volume *vr, uint64_t c, uint32_t s)
{
	int64_t old;
	int rc;

	if (dd_map_get(vr, c) == s)
		return 0;
	rc = dd_rec_append(st, DD_R_MAP, vr->id, s, c, NULL, 0);
	if (rc)
		return rc;
	old = dd_map_put(vr, c, s);
	if (old < 0) {
		st->jlen -= DD_REC;
		return (int)old;
	}
	if (s)
		dd_ref(st, s);
	if (old)
		dd_unref(st, (uint32_t)old);
	st->logical += (s != 0) - (old != 0);
	return 0;
}

/* The slot holding buf (its SHA-256 hash), stored if new, with one more
 * reference taken by the caller's dd_map_set(); 0 for a chunk of zeroes. */
static int dd_store_chunk(struct dd_store *st, const uint8_t *hash, const uint8_t *buf,
			  uint32_t *out)
{
	uint32_t s = dd_tab_find(st, hash);
	bool fresh = false;
	int rc;

	if (s) {
		st->deduped++;
		*out = s;
		return 0;
	}
	if (st->nfree) {
		s = st->freel[--st->nfree];
	} else {
		rc = dd_slots_reserve(st, st->next_slot);
		if (rc)
			return rc;
		s = st->next_slot++;
		fresh = true;
	}
	ssize_t k = pwrite(st->datafd, buf, DD_CHUNK, (off_t)s << DD_CHUNK_SHIFT);

	if (k != (ssize_t)DD_CHUNK) {
		rc = k < 0 ? -errno : -EIO;
		goto undo;
	}
	memcpy(st->slot[s].hash, hash, 32);
	st->slot[s].ref = 0;
	st->slot[s].flags = DD_S_USED;
	rc = dd_tab_insert(st, s);
	if (!rc)
		rc = dd_rec_append(st, DD_R_NEW, s, 0, 0, hash, 32);
	if (rc) {
		dd_tab_del(st, s);
		st->slot[s].flags = 0;
		goto undo;
	}
	st->written += DD_CHUNK;
	*out = s;
	return 0;

undo: /* give the slot back where it came from */
	if (fresh)
		st->next_slot--;
	else
		st->nfree++;
	return rc;
}

/* A stored slot nobody took a reference to (a failed map update): pending,
 * so the next commit frees it. */
static void dd_orphan(struct dd_store *st, uint32_t s)
{
	if (!s || st->slot[s].ref)
		return;
	st->slot[s].ref = 1;
	st->live++;
	dd_unref(st, s);
}

/* Store buf (hash: its SHA-256; NULL for zeroes) as chunk c of vr. */
static int dd_put(struct dd_store *st, struct dd_volume *vr, uint64_t c, const uint8_t *hash,
		  const uint8_t *buf)
{
	uint32_t s = 0;
	int rc;

	if (st->failed)
		return -EIO;
	if (hash) {
		rc = dd_store_chunk(st, hash, buf, &s);
		if (rc)
			return rc;
	}
	rc = dd_map_set(st, vr, c, s);
	if (rc)
		dd_orphan(st, s);
	return rc;
}

static void dd_store_free(struct dd_store *st)
{
	for (size_t i = 0; i < st->nvols; i++) {
		for (uint64_t l = 0; l < st->vols[i]->nleaves; l++)
			free(st->vols[i]->leaf[l]);
		free(st->vols[i]->leaf);
		free(st->vols[i]);
	}
	free(st->vols);
	free(st->slot);
	free(st->freel);
	free(st->pend);
	free(st->tab);
	free(st->jbuf);
	if (st->datafd >= 0)
		close(st->datafd);
	if (st->jfd >= 0)
		close(st->jfd);
	if (st->dirfd >= 0)
		close(st->dirfd); /* and its flock */
	pthread_rwlock_destroy(&st->lock);
	pthread_mutex_destroy(&st->commit_lock);
	free(st);
}

static int dd_data_header(struct dd_store *st)
{
	uint8_t h[DD_CHUNK] = {0};
	uint8_t got[sizeof(DD_DATA_MAGIC)];
	ssize_t k = pread(st->datafd, got, sizeof(got), 0);

	if (k == (ssize_t)sizeof(got))
		return memcmp(got, DD_DATA_MAGIC, sizeof(got)) == 0 ? 0 : -EINVAL;
	if (k != 0)
		return -EINVAL;
	memcpy(h, DD_DATA_MAGIC, sizeof(DD_DATA_MAGIC));
	put_le32(h + 16, DD_VERSION);
	put_le32(h + 20, DD_CHUNK);
	return dd_write_all(st->datafd, h, sizeof(h), 0);
}

static int dd_store_open(const char *dir, int dirfd, const struct stat *sb, struct dd_store **out)
{
	struct dd_store *st = calloc(1, sizeof(*st));
	int rc;

	if (!st) {
		close(dirfd);
		return -ENOMEM;
	}
	st->dirfd = dirfd;
	st->datafd = st->jfd = -1;
	st->st_dev = sb->st_dev;
	st->st_ino = sb->st_ino;
	st->next_slot = 1;
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	pthread_rwlock_init(&st->lock, NULL);
	pthread_mutex_init(&st->commit_lock, NULL);
	if (flock(dirfd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		log_err("dedup store %s: %s", dir,
			rc == -EBUSY ? "in use by another process" : strerror(-rc));
		goto fail;
	}
	st->datafd = openat(dirfd, "chunks.dat", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	st->jfd = openat(dirfd, "journal", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (st->datafd < 0 || st->jfd < 0) {
		rc = -errno;
		log_err("dedup store %s: %s", dir, strerror(-rc));
		goto fail;
	}
	rc = dd_data_header(st);
	if (rc) {
		log_err("dedup store %s: chunks.dat: %s", dir,
			rc == -EINVAL ? "not a dedup data file" : strerror(-rc));
		goto fail;
	}
	rc = dd_replay(st);
	if (!rc)
		rc = dd_rebuild(st);
	if (!rc)
		rc = dd_slots_reserve(st, st->next_slot);
	if (!rc)
		rc = dd_compact(st);
	if (rc) {
		log_err("dedup store %s: cannot open: %s", dir, strerror(-rc));
		goto fail;
	}
	*out = st;
	return 0;
fail:
	dd_store_free(st);
	return rc;
}

/* ---- volumes ---- */

int dd_vol_open(const char *dir, const char *name, uint64_t size, struct dd_vol **out)
{
	struct dd_store *st;
	struct dd_volume *vr = NULL;
	struct dd_vol *v;
	uint8_t key[32];
	struct stat sb;
	int dirfd, rc;

	*out = NULL;
	if (size < DD_CHUNK || size % 512 || strlen(name) >= sizeof(v->name))
		return -EINVAL;
	rc = dd_sha256(name, strlen(name), key);
	if (rc)
		return rc;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	snprintf(v->name, sizeof(v->name), "%s", name);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		rc = -errno;
		log_err("dedup store %s: %s", dir, strerror(-rc));
		free(v);
		return rc;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || fstat(dirfd, &sb) < 0) {
		rc = -errno;
		log_err("dedup store %s: %s", dir, strerror(-rc));
		if (dirfd >= 0)
			close(dirfd);
		free(v);
		return rc;
	}
	pthread_mutex_lock(&dd_registry_lock);
	for (st = dd_registry; st; st = st->next)
		if (st->st_dev == sb.st_dev && st->st_ino == sb.st_ino)
			break;
	if (st) {
		close(dirfd);
	} else {
		rc = dd_store_open(dir, dirfd, &sb, &st);
		if (rc)
			goto fail;
		st->next = dd_registry;
		dd_registry = st;
	}
	st->refs++;
	pthread_rwlock_wrlock(&st->lock);
	for (size_t i = 0; i < st->nvols && !vr; i++)
		if (memcmp(st->vols[i]->key, key, 32) == 0)
			vr = st->vols[i];
	if (vr && vr->open) {
		log_err("dedup store %s: volume %s is already open", dir, name);
		rc = -EBUSY;
	} else if (vr && size < vr->size) {
		log_err("dedup store %s: volume %s holds %llu bytes; shrinking it to %llu is "
			"refused",
			dir, name, (unsigned long long)vr->size, (unsigned long long)size);
		rc = -EINVAL;
	} else {
		uint32_t id = 1;

		for (size_t i = 0; i < st->nvols; i++)
			if (st->vols[i]->id >= id)
				id = st->vols[i]->id + 1;
		if (!vr)
			vr = dd_vol_add(st, id, key);
		rc = vr ? dd_vol_grow(vr, size) : -ENOMEM;
		if (!rc)
			rc = dd_rec_append(st, DD_R_VOL, vr->id, 0, size, key, 32);
		if (!rc)
			vr->open = true;
	}
	pthread_rwlock_unlock(&st->lock);
	if (!rc)
		rc = dd_commit(st);
	if (rc) {
		if (vr)
			vr->open = false;
		v->st = st; /* dd_vol_close() drops the reference taken above */
		pthread_mutex_unlock(&dd_registry_lock);
		v->vr = NULL;
		dd_vol_close(v);
		return rc;
	}
	v->st = st;
	v->vr = vr;
	pthread_mutex_unlock(&dd_registry_lock);
	*out = v;
	return 0;
fail:
	pthread_mutex_unlock(&dd_registry_lock);
	free(v);
	return rc;
}

void dd_vol_close(struct dd_vol *v)
{
	struct dd_store *st, **pp;

	if (!v)
		return;
	st = v->st;
	if (v->vr) {
		int rc = dd_commit(st);

		if (rc)
			log_err("dedup store %s: volume %s closed with uncommitted writes: %s",
				st->dir, v->name, strerror(-rc));
		pthread_rwlock_wrlock(&st->lock);
		v->vr->open = false;
		pthread_rwlock_unlock(&st->lock);
	}
	pthread_mutex_lock(&dd_registry_lock);
	if (--st->refs == 0) {
		for (pp = &dd_registry; *pp; pp = &(*pp)->next)
			if (*pp == st) {
				*pp = st->next;
				break;
			}
		dd_store_free(st);
	}
	pthread_mutex_unlock(&dd_registry_lock);
	free(v);
}

uint64_t dd_vol_size(const struct dd_vol *v)
{
	return v->vr->size;
}

/* ---- I/O ---- */

/* Read chunk slot s (0: zeroes) into buf; lock held. */
static int dd_read_chunk(struct dd_store *st, uint32_t s, uint8_t *buf)
{
	if (!s) {
		memset(buf, 0, DD_CHUNK);
		return 0;
	}
	if (s >= st->next_slot || !(st->slot[s].flags & DD_S_USED))
		return -EIO; /* a map to nothing (dd_rebuild() logged it) */
	for (size_t got = 0; got < DD_CHUNK;) {
		ssize_t k = pread(st->datafd, buf + got, DD_CHUNK - got,
				  ((off_t)s << DD_CHUNK_SHIFT) + (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		got += (size_t)k;
	}
	return 0;
}

int dd_read(struct dd_vol *v, uint64_t off, uint64_t len, const struct iovec *iov, int iovcnt)
{
	struct dd_store *st = v->st;
	struct bs_iov_cursor cur = {.iov = iov, .cnt = iovcnt};
	uint8_t buf[DD_CHUNK];
	int rc = 0;

	pthread_rwlock_rdlock(&st->lock);
	while (len && !rc) {
		uint64_t c = off >> DD_CHUNK_SHIFT;
		size_t in = (size_t)(off & (DD_CHUNK - 1)), n = UT_MIN(DD_CHUNK - in, len);
		uint32_t s = dd_map_get(v->vr, c);

		if (!s) {
			bs_iov_out(&cur, NULL, n);
		} else {
			rc = dd_read_chunk(st, s, buf);
			if (!rc)
				bs_iov_out(&cur, buf + in, n);
		}
		off += n;
		len -= n;
	}
	pthread_rwlock_unlock(&st->lock);
	return rc;
}

/* Overwrite [in, in + n) of chunk c with src (NULL: zeroes; pattern: the
 * chunk-sized pattern, taken at the same offsets); lock held for writing. */
static int dd_rmw(struct dd_store *st, struct dd_volume *vr, uint64_t c, size_t in, size_t n,
		  struct bs_iov_cursor *src, const uint8_t *pattern)
{
	uint8_t buf[DD_CHUNK], hash[32];
	int rc = dd_read_chunk(st, dd_map_get(vr, c), buf);

	if (rc)
		return rc;
	if (src)
		bs_iov_in(src, buf + in, n);
	else if (pattern)
		memcpy(buf + in, pattern + in, n);
	else
		memset(buf + in, 0, n);
	if (dd_is_zero(buf))
		return dd_put(st, vr, c, NULL, NULL);
	rc = dd_sha256(buf, DD_CHUNK, hash);
	return rc ? rc : dd_put(st, vr, c, hash, buf);
}

int dd_write(struct dd_vol *v, uint64_t off, uint64_t len, const struct iovec *iov, int iovcnt,
	     bool fua)
{
	struct dd_store *st = v->st;
	struct bs_iov_cursor cur = {.iov = iov, .cnt = iovcnt};
	uint8_t buf[DD_CHUNK], hash[32];
	int rc = 0;

	while (len && !rc) {
		uint64_t c = off >> DD_CHUNK_SHIFT;
		size_t in = (size_t)(off & (DD_CHUNK - 1)), n = UT_MIN(DD_CHUNK - in, len);

		if (n < DD_CHUNK) {
			pthread_rwlock_wrlock(&st->lock);
			rc = dd_rmw(st, v->vr, c, in, n, &cur, NULL);
			pthread_rwlock_unlock(&st->lock);
		} else {
			/* a whole chunk: hashed before taking the lock */
			bool zero;

			bs_iov_in(&cur, buf, DD_CHUNK);
			zero = dd_is_zero(buf);
			if (!zero)
				rc = dd_sha256(buf, DD_CHUNK, hash);
			if (!rc) {
				pthread_rwlock_wrlock(&st->lock);
				rc = dd_put(st, v->vr, c, zero ? NULL : hash, buf);
				pthread_rwlock_unlock(&st->lock);
			}
		}
		off += n;
		len -= n;
	}
	if (rc)
		return rc;
	return dd_after_write(st, fua);
}

int dd_write_same(struct dd_vol *v, uint64_t off, uint64_t len, const void *blk, uint32_t blen,
		  bool fua)
{
	struct dd_store *st = v->st;
	uint8_t pat[DD_CHUNK], hash[32];
	uint64_t start = off;
	bool zero = false;
	int rc = 0;

	if (blen == 0 || (DD_CHUNK % blen && blen % DD_CHUNK))
		return -EINVAL;
	if (blen <= DD_CHUNK) {
		/* off is a multiple of blen: the pattern repeats at chunk boundaries */
		for (size_t i = 0; i < DD_CHUNK; i += blen)
			memcpy(pat + i, blk, blen);
		zero = dd_is_zero(pat);
		if (!zero && (rc = dd_sha256(pat, DD_CHUNK, hash)))
			return rc;
	}
	while (len && !rc) {
		uint64_t c = off >> DD_CHUNK_SHIFT;
		size_t in = (size_t)(off & (DD_CHUNK - 1)), n = UT_MIN(DD_CHUNK - in, len);

		if (blen > DD_CHUNK) {
			/* a block of several chunks: this chunk's part of it */
			memcpy(pat,
			       (const uint8_t *)blk +
				   ((off - start) & ~(uint64_t)(DD_CHUNK - 1)) % blen,
			       DD_CHUNK);
			zero = dd_is_zero(pat);
			if (!zero && (rc = dd_sha256(pat, DD_CHUNK, hash)))
				break;
		}
		pthread_rwlock_wrlock(&st->lock);
		if (n < DD_CHUNK)
			rc = dd_rmw(st, v->vr, c, in, n, NULL, pat);
		else
			rc = dd_put(st, v->vr, c, zero ? NULL : hash, pat);
		pthread_rwlock_unlock(&st->lock);
		off += n;
		len -= n;
	}
	if (rc)
		return rc;
	return dd_after_write(st, fua);
}

int dd_zero(struct dd_vol *v, uint64_t off, uint64_t len)
{
	struct dd_store *st = v->st;
	int rc = 0;

	pthread_rwlock_wrlock(&st->lock);
	while (len && !rc) {
		uint64_t c = off >> DD_CHUNK_SHIFT;
		size_t in = (size_t)(off & (DD_CHUNK - 1)), n = UT_MIN(DD_CHUNK - in, len);

		if (n < DD_CHUNK)
			rc = dd_rmw(st, v->vr, c, in, n, NULL, NULL);
		else
			rc = dd_put(st, v->vr, c, NULL, NULL);
		off += n;
		len -= n;
	}
	pthread_rwlock_unlock(&st->lock);
	return rc ? rc : dd_after_write(st, false);
}

int dd_copy(struct dd_vol *dst, uint64_t off, struct dd_vol *src, uint64_t src_off, uint64_t len)
{
	struct dd_store *st = dst->st;
	uint8_t buf[DD_CHUNK];
	int rc = 0;

	if (src->st != st)
		return -EXDEV;
	while (len && !rc) {
		uint64_t c = off >> DD_CHUNK_SHIFT, sc = src_off >> DD_CHUNK_SHIFT;
		size_t in = (size_t)(off & (DD_CHUNK - 1));
		size_t n = UT_MIN(DD_CHUNK - in, len);

		n = UT_MIN(n, DD_CHUNK - (size_t)(src_off & (DD_CHUNK - 1)));
		if (n == DD_CHUNK) {
			/* a whole chunk onto a whole chunk: one more reference */
			pthread_rwlock_wrlock(&st->lock);
			rc =
			    st->failed ? -EIO : dd_map_set(st, dst->vr, c, dd_map_get(src->vr, sc));
			pthread_rwlock_unlock(&st->lock);
		} else {
			struct iovec iov = {.iov_base = buf, .iov_len = n};

			rc = dd_read(src, src_off, n, &iov, 1);
			if (!rc)
				rc = dd_write(dst, off, n, &iov, 1, false);
		}
		off += n;
		src_off += n;
		len -= n;
	}
	return rc ? rc : dd_after_write(st, false);
}

int dd_map_status(struct dd_vol *v, uint64_t off, uint64_t max, uint64_t *map_len, bool *mapped)
{
	struct dd_store *st = v->st;
	uint64_t end, c;

	pthread_rwlock_rdlock(&st->lock);
	end = UT_MIN(v->vr->size, off + max);
	c = off >> DD_CHUNK_SHIFT;
	*mapped = dd_map_get(v->vr, c) != 0;
	for (c++; (c << DD_CHUNK_SHIFT) < end; c++) {
		/* a leaf never allocated is 16 MiB unmapped at once */
		if (!*mapped && !(c & (DD_LEAF - 1)) && !v->vr->leaf[c >> DD_LEAF_SHIFT]) {
			c += DD_LEAF - 1;
			continue;
		}
		if ((dd_map_get(v->vr, c) != 0) != *mapped)
			break;
	}
	*map_len = UT_MIN(c << DD_CHUNK_SHIFT, end) - off;
	pthread_rwlock_unlock(&st->lock);
	return 0;
}

int dd_flush(struct dd_vol *v)
{
	return dd_commit(v->st);
}

int dd_resize(struct dd_vol *v, uint64_t new_size)
{
	struct dd_store *st = v->st;
	int rc;

	if (new_size < v->vr->size || new_size % 512)
		return -EINVAL; /* shrinking would drop mapped chunks: refused */
	pthread_rwlock_wrlock(&st->lock);
	rc = dd_vol_grow(v->vr, new_size);
	if (!rc)
		rc = dd_rec_append(st, DD_R_VOL, v->vr->id, 0, new_size, v->vr->key, 32);
	pthread_rwlock_unlock(&st->lock);
	return rc ? rc : dd_commit(st);
}

void dd_usage(struct dd_vol *v, struct dd_usage *u)
{
	struct dd_store *st = v->st;

	pthread_rwlock_rdlock(&st->lock);
	*u = (struct dd_usage){
	    .vol_mapped = v->vr->mapped << DD_CHUNK_SHIFT,
	    .logical = st->logical << DD_CHUNK_SHIFT,
	    .unique = st->live << DD_CHUNK_SHIFT,
	    .volumes = st->nvols,
	    .written = st->written,
	    .deduped = st->deduped,
	    .journal_bytes = st->jsize,
	    .commits = st->commits,
	    .compactions = st->compactions,
	};
	pthread_rwlock_unlock(&st->lock);
}

int dd_fsck(struct dd_vol *v, struct dd_fsck *r)
{
	struct dd_store *st = v->st;
	uint8_t buf[DD_CHUNK], hash[32];
	uint32_t *count;
	off_t pos = DD_CHUNK;
	int rc = 0;

	*r = (struct dd_fsck){0};
	pthread_rwlock_wrlock(&st->lock);
	count = calloc(st->next_slot + 1, sizeof(*count));
	if (!count) {
		rc = -ENOMEM;
		goto out;
	}
	r->volumes = st->nvols;
	for (size_t i = 0; i < st->nvols; i++) {
		struct dd_volume *vr = st->vols[i];

		for (uint64_t l = 0; l < vr->nleaves; l++) {
			for (uint32_t k = 0; vr->leaf[l] && k < DD_LEAF; k++) {
				uint32_t s = vr->leaf[l][k];

				if (!s)
					continue;
				r->logical++;
				if (s >= st->next_slot || !(st->slot[s].flags & DD_S_USED))
					r->missing++;
				else
					count[s]++;
			}
		}
	}
	for (uint32_t s = 1; s < st->next_slot; s++) {
		struct dd_slot *sl = &st->slot[s];

		if (!(sl->flags & DD_S_USED))
			continue;
		if (count[s] != sl->ref)
			r->ref_mismatch++;
		if (!sl->ref) {
			r->pending++;
			continue;
		}
		r->live++;
		rc = dd_read_chunk(st, s, buf);
		if (!rc)
			rc = dd_sha256(buf, DD_CHUNK, hash);
		if (rc)
			goto out;
		if (memcmp(hash, sl->hash, 32) != 0)
			r->corrupt++;
	}
	/* space: every allocated block of chunks.dat belongs to a slot with a chunk */
	for (;;) {
		off_t d = lseek(st->datafd, pos, SEEK_DATA), h;

		if (d < 0)
			break; /* ENXIO: no data after pos */
		h = lseek(st->datafd, d, SEEK_HOLE);
		if (h < 0)
			break;
		for (uint64_t s = (uint64_t)d >> DD_CHUNK_SHIFT;
		     s < ((uint64_t)h + DD_CHUNK - 1) >> DD_CHUNK_SHIFT; s++)
			if (s >= st->next_slot || !(st->slot[s].flags & DD_S_USED))
				r->leaked++;
		pos = h;
	}
out:
	pthread_rwlock_unlock(&st->lock);
	free(count);
	return rc;
}
