/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dedup_journal.c: the dedup store's journal (dedup_store.c's header says
 * why the order below makes it crash-safe): 64-byte records with their
 * CRC32C appended to a buffer, commits (chunks.dat synced, then the
 * records appended and synced, then the slots they released freed),
 * compaction (the state rewritten to journal.tmp, renamed over the
 * journal) and replay at open, which stops at the first torn record. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backstore/dedup_priv.h"
#include "lib/compiler.h"
#include "lib/crc32c.h"
#include "lib/endian.h"
#include "lib/log.h"

static _Atomic uint64_t dd_compact_min = DD_COMPACT_MIN;

/* ---- journal records ---- */

int dd_rec_append(struct dd_store *st, uint8_t type, uint32_t a, uint32_t b, uint64_t c,
		  const uint8_t *data, size_t dlen)
{
	struct dd_rec r = {.type = type};

	if (st->jlen + DD_REC > st->jcap) {
		size_t nc = st->jcap ? st->jcap * 2 : 64 * 1024;
		uint8_t *p = realloc(st->jbuf, nc);

		if (!p)
			return -ENOMEM;
		st->jbuf = p;
		st->jcap = nc;
	}
	put_le32(r.a, a);
	put_le32(r.b, b);
	put_le32(r.c, (uint32_t)c);
	put_le32(r.c + 4, (uint32_t)(c >> 32));
	if (data)
		memcpy(r.data, data, dlen);
	put_le32(r.crc, crc32c((const uint8_t *)&r + 4, DD_REC - 4));
	memcpy(st->jbuf + st->jlen, &r, DD_REC);
	st->jlen += DD_REC;
	return 0;
}

static void dd_header(uint8_t h[DD_REC])
{
	memset(h, 0, DD_REC);
	memcpy(h, DD_MAGIC, 8);
	put_le32(h + 8, DD_VERSION);
	put_le32(h + 12, DD_CHUNK);
	put_le32(h + 60, crc32c(h, 60));
}

/* ---- commit and compaction ---- */

int dd_write_all(int fd, const uint8_t *p, size_t n, off_t off)
{
	while (n) {
		ssize_t k = pwrite(fd, p, n, off);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

/* Free the pending slots whose last reference was dropped in an epoch up
 * to e (all of them: e == UINT32_MAX); lock held for writing. */
static void dd_free_pending(struct dd_store *st, uint32_t e)
{
	size_t keep = 0;

	for (size_t i = 0; i < st->npend; i++) {
		uint32_t s = st->pend[i];
		struct dd_slot *sl = &st->slot[s];

		if (sl->ref) {
			sl->flags &= (uint8_t)~DD_S_PENDING;
			continue;
		}
		if (e != UINT32_MAX && (int32_t)(sl->drop_epoch - e) > 0) {
			st->pend[keep++] = s;
			continue;
		}
		if (dd_push(&st->freel, &st->nfree, &st->free_cap, s)) {
			st->pend[keep++] = s; /* next time */
			continue;
		}
		dd_tab_del(st, s);
		sl->flags = 0;
		/* give the space back; a failure only leaves it allocated */
		(void)fallocate(st->datafd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)s << DD_CHUNK_SHIFT, DD_CHUNK);
	}
	st->npend = keep;
}

/* Rewrite the journal as the current state (lock held for writing, commit
 * lock held): every record waiting in the buffer is in it. */
int dd_compact(struct dd_store *st)
{
	size_t cap = 1u << 20;
	uint8_t *buf = malloc(cap);
	uint64_t off = 0;
	int fd = -1, rc = 0;
	struct dd_store tmp = {0};

	if (!buf)
		return -ENOMEM;
	if (fdatasync(st->datafd) < 0) {
		rc = -errno;
		goto out;
	}
	fd = openat(st->dirfd, "journal.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	/* the records are built in a scratch store's buffer, flushed per MiB */
	tmp.jbuf = buf;
	tmp.jcap = cap;
	dd_header(tmp.jbuf);
	tmp.jlen = DD_REC;
#define DD_EMIT(...)                                                                               \
	do {                                                                                       \
		if (tmp.jlen + DD_REC > cap) {                                                     \
			rc = dd_write_all(fd, tmp.jbuf, tmp.jlen, (off_t)off);                     \
			if (rc)                                                                    \
				goto out;                                                          \
			off += tmp.jlen;                                                           \
			tmp.jlen = 0;                                                              \
		}                                                                                  \
		rc = dd_rec_append(&tmp, __VA_ARGS__);                                             \
		if (rc)                                                                            \
			goto out;                                                                  \
	} while (0)
	for (size_t i = 0; i < st->nvols; i++)
		DD_EMIT(DD_R_VOL, st->vols[i]->id, 0, st->vols[i]->size, st->vols[i]->key, 32);
	for (uint32_t s = 1; s < st->next_slot; s++)
		if ((st->slot[s].flags & DD_S_USED) && st->slot[s].ref)
			DD_EMIT(DD_R_NEW, s, 0, 0, st->slot[s].hash, 32);
	for (size_t i = 0; i < st->nvols; i++) {
		struct dd_volume *vr = st->vols[i];

		for (uint64_t l = 0; l < vr->nleaves; l++) {
			if (!vr->leaf[l])
				continue;
			for (uint32_t k = 0; k < DD_LEAF; k++)
				if (vr->leaf[l][k])
					DD_EMIT(DD_R_MAP, vr->id, vr->leaf[l][k],
						((uint64_t)l << DD_LEAF_SHIFT) | k, NULL, 0);
		}
	}
#undef DD_EMIT
	rc = dd_write_all(fd, tmp.jbuf, tmp.jlen, (off_t)off);
	if (rc)
		goto out;
	off += tmp.jlen;
	if (fdatasync(fd) < 0 || renameat(st->dirfd, "journal.tmp", st->dirfd, "journal") < 0 ||
	    fsync(st->dirfd) < 0) {
		rc = -errno;
		goto out;
	}
	if (st->jfd >= 0)
		close(st->jfd);
	st->jfd = fd;
	fd = -1;
	st->jsize = off;
	st->jlen = 0;
	st->compactions++;
	/* nothing durable refers to an unreferenced slot any more */
	dd_free_pending(st, UINT32_MAX);
out:
	if (fd >= 0) {
		close(fd);
		unlinkat(st->dirfd, "journal.tmp", 0);
	}
	free(tmp.jbuf ? tmp.jbuf : buf);
	return rc;
}

/* Make every record appended so far durable (the order in the file's
 * comment), then free the slots they released. */
int dd_commit(struct dd_store *st)
{
	uint8_t *buf;
	size_t len;
	uint32_t e;
	int rc = 0;

	pthread_mutex_lock(&st->commit_lock);
	pthread_rwlock_wrlock(&st->lock);
	if (st->failed) {
		rc = -EIO;
		goto out_locked;
	}
	buf = st->jbuf;
	len = st->jlen;
	if (len == 0)
		goto out_locked; /* nothing changed since the last commit */
	e = st->epoch++;
	st->jbuf = NULL;
	st->jlen = st->jcap = 0;
	pthread_rwlock_unlock(&st->lock);

	if (fdatasync(st->datafd) < 0)
		rc = -errno;
	if (!rc)
		rc = dd_write_all(st->jfd, buf, len, (off_t)st->jsize);
	if (!rc && fdatasync(st->jfd) < 0)
		rc = -errno;
	free(buf);

	pthread_rwlock_wrlock(&st->lock);
	if (rc) {
		/* what reached the journal is unknown: refuse writes until a
		 * reopen replays what is there */
		log_err("dedup store %s: journal commit failed: %s; writes refused until reopened",
			st->dir, strerror(-rc));
		st->failed = rc;
		rc = -EIO;
		goto out_locked;
	}
	st->jsize += len;
	st->commits++;
	dd_free_pending(st, e);
	if (st->jsize > atomic_load_explicit(&dd_compact_min, memory_order_relaxed) &&
	    st->jsize / 4 > (st->live + st->logical + st->nvols + 1) * DD_REC) {
		int crc = dd_compact(st);

		if (crc)
			log_warn("dedup store %s: compaction failed: %s (the journal stays)",
				 st->dir, strerror(-crc));
	}
out_locked:
	pthread_rwlock_unlock(&st->lock);
	pthread_mutex_unlock(&st->commit_lock);
	return rc;
}

/* After an update: commit when asked to (FUA) or when the buffer is full. */
int dd_after_write(struct dd_store *st, bool fua)
{
	bool full;

	pthread_rwlock_rdlock(&st->lock);
	full = st->jlen >= DD_JBUF_COMMIT;
	pthread_rwlock_unlock(&st->lock);
	return fua || full ? dd_commit(st) : 0;
}

/* ---- open: replay ---- */

static struct dd_volume *dd_vol_find_id(struct dd_store *st, uint32_t id)
{
	for (size_t i = 0; i < st->nvols; i++)
		if (st->vols[i]->id == id)
			return st->vols[i];
	return NULL;
}

struct dd_volume *dd_vol_add(struct dd_store *st, uint32_t id, const uint8_t key[32])
{
	struct dd_volume **p = realloc(st->vols, (st->nvols + 1) * sizeof(*p));
	struct dd_volume *vr;

	if (!p)
		return NULL;
	st->vols = p;
	vr = calloc(1, sizeof(*vr));
	if (!vr)
		return NULL;
	vr->id = id;
	memcpy(vr->key, key, 32);
	st->vols[st->nvols++] = vr;
	return vr;
}

/* Apply one record read back; -EINVAL for a record that contradicts what
 * came before (a damaged journal). */
static int dd_replay_rec(struct dd_store *st, const struct dd_rec *r)
{
	uint32_t a = get_le32(r->a), b = get_le32(r->b);
	uint64_t c = get_le32(r->c) | (uint64_t)get_le32(r->c + 4) << 32;
	struct dd_volume *vr;
	int rc;

	switch (r->type) {
	case DD_R_NEW:
		if (a == 0 || a >= DD_MAX_SLOTS)
			return -EINVAL;
		rc = dd_slots_reserve(st, a);
		if (rc)
			return rc;
		memcpy(st->slot[a].hash, r->data, 32);
		st->slot[a].flags = DD_S_USED;
		if (a >= st->next_slot)
			st->next_slot = a + 1;
		return 0;
	case DD_R_MAP:
		vr = dd_vol_find_id(st, a);
		if (!vr || c >= vr->nchunks || b >= DD_MAX_SLOTS)
			return -EINVAL;
		return dd_map_put(vr, c, b) < 0 ? -ENOMEM : 0;
	case DD_R_VOL:
		vr = dd_vol_find_id(st, a);
		if (!vr) {
			vr = dd_vol_add(st, a, r->data);
			if (!vr)
				return -ENOMEM;
		}
		return c > vr->size ? dd_vol_grow(vr, c) : 0;
	default:
		return -EINVAL;
	}
}

int dd_replay(struct dd_store *st)
{
	uint8_t hdr[DD_REC], want[DD_REC];
	size_t cap = 1u << 20;
	uint8_t *buf;
	uint64_t off = DD_REC, nrec = 0;
	ssize_t k;
	int rc = 0;

	k = pread(st->jfd, hdr, DD_REC, 0);
	if (k == 0)
		return 0; /* a new store */
	dd_header(want);
	if (k != DD_REC || memcmp(hdr, want, DD_REC) != 0) {
		log_err("dedup store %s: journal: not a version %u dedup journal", st->dir,
			DD_VERSION);
		return -EINVAL;
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		k = pread(st->jfd, buf, cap, (off_t)off);
		if (k < 0) {
			rc = -errno;
			break;
		}
		size_t n = (size_t)k / DD_REC, i;

		for (i = 0; i < n; i++) {
			const struct dd_rec *r = (const struct dd_rec *)(buf + i * DD_REC);

			if (get_le32(r->crc) != crc32c(buf + i * DD_REC + 4, DD_REC - 4))
				break;
			rc = dd_replay_rec(st, r);
			if (rc) {
				log_err("dedup store %s: journal record at byte %llu: %s", st->dir,
					(unsigned long long)(off + i * DD_REC), strerror(-rc));
				goto out;
			}
			nrec++;
		}
		off += i * DD_REC;
		if (i < n || (size_t)k < cap) {
			struct stat sb;

			if (fstat(st->jfd, &sb) == 0 && (uint64_t)sb.st_size > off)
				log_notice("dedup store %s: journal ends at byte %llu of %llu (an "
					   "unfinished commit, dropped)",
					   st->dir, (unsigned long long)off,
					   (unsigned long long)sb.st_size);
			break;
		}
	}
	log_info("dedup store %s: %llu journal records replayed", st->dir,
		 (unsigned long long)nrec);
out:
	free(buf);
	return rc;
}

/* After replay: counts from the maps, free list, index, space of free slots. */
int dd_rebuild(struct dd_store *st)
{
	uint64_t missing = 0;
	uint32_t run = 0;
	int rc;

	for (size_t i = 0; i < st->nvols; i++) {
		struct dd_volume *vr = st->vols[i];

		for (uint64_t l = 0; l < vr->nleaves; l++) {
			if (!vr->leaf[l])
				continue;
			for (uint32_t k = 0; k < DD_LEAF; k++) {
				uint32_t s = vr->leaf[l][k];

				if (!s)
					continue;
				st->logical++;
				if (s >= st->next_slot || !(st->slot[s].flags & DD_S_USED)) {
					missing++;
					continue;
				}
				dd_ref(st, s);
			}
		}
	}
	if (missing)
		log_err("dedup store %s: %llu mapped chunks have no stored chunk (reads of them "
			"fail)",
			st->dir, (unsigned long long)missing);
	/* the last live slot ends the data file */
	while (st->next_slot > 1 && !st->slot[st->next_slot - 1].ref)
		st->next_slot--;
	for (uint32_t s = 1; s < st->next_slot; s++) {
		struct dd_slot *sl = &st->slot[s];

		if (sl->ref) {
			rc = dd_tab_insert(st, s);
			if (rc)
				return rc;
			run = 0;
			continue;
		}
		sl->flags = 0;
		rc = dd_push(&st->freel, &st->nfree, &st->free_cap, s);
		if (rc)
			return rc;
		run++;
		if (s + 1 == st->next_slot || st->slot[s + 1].ref) {
			(void)fallocate(st->datafd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					(off_t)(s + 1 - run) << DD_CHUNK_SHIFT,
					(off_t)run << DD_CHUNK_SHIFT);
			run = 0;
		}
	}
	for (uint32_t s = st->next_slot; s < st->slot_cap; s++)
		st->slot[s].flags = 0;
	if (ftruncate(st->datafd, (off_t)st->next_slot << DD_CHUNK_SHIFT) < 0)
		return -errno;
	return 0;
}

void dd_set_compact_min(uint64_t bytes)
{
	atomic_store(&dd_compact_min, bytes ? bytes : DD_COMPACT_MIN);
}
