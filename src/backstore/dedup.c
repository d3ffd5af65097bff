/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dedup.c: the dedup back-store, a volume of a deduplicating chunk store
 * (dedup_store.h) shared by every dedup LUN whose `path` names the same
 * directory.
 *
 * Contract: every request runs on the worker pool (hashing and the store's
 * lock must not hold a reactor) and completes on the submitting reactor.
 * Caps: FLUSH and WRITE_CACHE (a write is durable after SYNCHRONIZE CACHE,
 * until then its journal records wait in memory), FUA (the write commits),
 * DISCARD and WRITE_ZEROES (whole chunks unmapped: LBPRZ), MAP_STATUS (per
 * 4 KiB chunk), WRITE_SAME (the block hashed once, each whole chunk a
 * reference to it), COPY (EXTENDED COPY between two volumes of one store by
 * reference). COMPARE AND WRITE is the core's, under its range lock.
 * check: dd_fsck() (blocks writers of the store while it reads every chunk).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backstore/backstore.h"
#include "backstore/dedup_store.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/workq.h"

struct dedup_dev {
	struct bs_dev dev;
	struct dd_vol *vol;
	char store[256]; /* the directory, for facts */
};

struct dedup_req {
	struct workq_item wq;
	struct dedup_dev *d;
	int err;
};
_Static_assert(sizeof(struct dedup_req) <= BS_IO_PRIV_SIZE, "dedup_req fits bs_io.priv");

static struct dedup_dev *dedup_of(struct bs_dev *dev)
{
	return container_of(dev, struct dedup_dev, dev);
}

static struct bs_io *dedup_io_of(struct dedup_req *rq)
{
	return (struct bs_io *)(void *)((char *)rq - offsetof(struct bs_io, priv));
}

static int dedup_exec(struct dedup_dev *d, struct bs_io *io)
{
	struct dd_vol *v = d->vol;
	bool ro = d->dev.caps & BS_CAP_READ_ONLY;

	if (ro && io->op != BS_OP_READ && io->op != BS_OP_MAP_STATUS && io->op != BS_OP_FLUSH)
		return -EROFS;
	switch (io->op) {
	case BS_OP_READ:
		return dd_read(v, io->off, io->len, io->iov, io->iovcnt);
	case BS_OP_WRITE:
		return dd_write(v, io->off, io->len, io->iov, io->iovcnt, io->flags & BS_IO_FUA);
	case BS_OP_FLUSH:
		return dd_flush(v);
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		return dd_zero(v, io->off, io->len);
	case BS_OP_MAP_STATUS:
		return dd_map_status(v, io->off, io->len, &io->map_len, &io->mapped);
	case BS_OP_WRITE_SAME:
		if (io->iovcnt != 1 || !io->iov[0].iov_len || io->len % io->iov[0].iov_len ||
		    io->iov[0].iov_len > UINT32_MAX)
			return -EINVAL;
		return dd_write_same(v, io->off, io->len, io->iov[0].iov_base,
				     (uint32_t)io->iov[0].iov_len, io->flags & BS_IO_FUA);
	case BS_OP_COPY:
		if (!io->src || io->src->ops != d->dev.ops)
			return -EXDEV;
		return dd_copy(v, io->off, dedup_of(io->src)->vol, io->src_off, io->len);
	default:
		return -EOPNOTSUPP;
	}
}

static void dedup_work(struct workq_item *w)
{
	struct dedup_req *rq = container_of(w, struct dedup_req, wq);

	rq->err = dedup_exec(rq->d, dedup_io_of(rq));
}

static void dedup_work_done(struct workq_item *w)
{
	struct dedup_req *rq = container_of(w, struct dedup_req, wq);
	struct bs_io *io = dedup_io_of(rq);

	io->done(io, rq->err);
}

static void dedup_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct dedup_req *rq = (struct dedup_req *)(void *)io->priv;

	rq->d = dedup_of(dev);
	rq->err = 0;
	rq->wq.work = dedup_work;
	rq->wq.done = dedup_work_done;
	workq_submit(&rq->wq);
}

static int dedup_resize(struct bs_dev *dev, uint64_t new_size)
{
	int rc = dd_resize(dedup_of(dev)->vol, new_size);

	if (!rc)
		dev->size = new_size;
	return rc;
}

/* The LU's share: the chunks its map references (stored once for every
 * volume that shares them); what it can still take: the file system's. */
static int dedup_space(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared)
{
	struct dd_usage u;

	dd_usage(dedup_of(dev)->vol, &u);
	*used = u.vol_mapped;
	*avail = dev->size - UT_MIN(dev->size, u.vol_mapped);
	*avail_shared = true;
	return 0;
}

static void dedup_ratio(char *buf, size_t size, uint64_t logical, uint64_t unique)
{
	if (!unique)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f", (double)logical / (double)unique);
}

static size_t dedup_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	struct dedup_dev *d = dedup_of(dev);
	struct dd_usage u;
	size_t n = 0;

	dd_usage(d->vol, &u);
#define DEDUP_FACT(k, ...)                                                                         \
	do {                                                                                       \
		if (n < max) {                                                                     \
			f[n].key = (k);                                                            \
			snprintf(f[n++].value, sizeof(f->value), __VA_ARGS__);                     \
		}                                                                                  \
	} while (0)
	if (n < max) {
		/* the directory's last 95 bytes when longer */
		size_t len = strlen(d->store), room = sizeof(f->value) - 1;
		const char *tail = d->store + (len > room ? len - room : 0);

		f[n].key = "store";
		memcpy(f[n].value, tail, strlen(tail) + 1);
		n++;
	}
	DEDUP_FACT("volume_mapped_bytes", "%" PRIu64, u.vol_mapped);
	DEDUP_FACT("store_logical_bytes", "%" PRIu64, u.logical);
	DEDUP_FACT("store_unique_bytes", "%" PRIu64, u.unique);
	if (n < max) {
		f[n].key = "dedup_ratio";
		dedup_ratio(f[n++].value, sizeof(f->value), u.logical, u.unique);
	}
	DEDUP_FACT("store_volumes", "%" PRIu64, u.volumes);
	DEDUP_FACT("chunk_bytes_written", "%" PRIu64, u.written);
	DEDUP_FACT("chunks_deduplicated", "%" PRIu64, u.deduped);
	DEDUP_FACT("journal_bytes", "%" PRIu64, u.journal_bytes);
	DEDUP_FACT("journal_commits", "%" PRIu64, u.commits);
#undef DEDUP_FACT
	return n;
}

static int dedup_check(struct bs_dev *dev, struct bs_fact *f, size_t max, size_t *n)
{
	static const char *const keys[] = {"volumes",	     "live_chunks", "logical_chunks",
					   "pending_chunks", "leaked",	    "missing",
					   "corrupt",	     "ref_mismatch"};
	struct dd_fsck r;
	int rc = dd_fsck(dedup_of(dev)->vol, &r);
	uint64_t v[] = {r.volumes, r.live,    r.logical, r.pending,
			r.leaked,  r.missing, r.corrupt, r.ref_mismatch};

	*n = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(keys) && *n < max; i++) {
		f[*n].key = keys[i];
		snprintf(f[(*n)++].value, sizeof(f->value), "%" PRIu64, v[i]);
	}
	return 0;
}

static void dedup_close(struct bs_dev *dev)
{
	struct dedup_dev *d = dedup_of(dev);

	dd_vol_close(d->vol);
	free(d);
}

static const struct bs_ops dedup_ops = {
    .type = "dedup",
    .submit = dedup_submit,
    .resize = dedup_resize,
    .space = dedup_space,
    .facts = dedup_facts,
    .check = dedup_check,
    .close = dedup_close,
};

static int dedup_open(const struct bs_params *p, struct bs_dev **out)
{
	struct dedup_dev *d;
	int rc;

	if (!p->path || !p->size) {
		log_err("backstore %s: dedup needs a store directory (path) and a size", p->name);
		return -EINVAL;
	}
	if (p->block_size > DD_CHUNK && p->block_size % DD_CHUNK) {
		log_err("backstore %s: block size %u is not a multiple of the %u-byte chunk",
			p->name, p->block_size, DD_CHUNK);
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	rc = dd_vol_open(p->path, p->name, p->size, &d->vol);
	if (rc) {
		free(d);
		return rc;
	}
	snprintf(d->store, sizeof(d->store), "%s", p->path);
	d->dev.ops = &dedup_ops;
	d->dev.size = dd_vol_size(d->vol);
	d->dev.opt_unit = DD_CHUNK;
	d->dev.caps = BS_CAP_FLUSH | BS_CAP_WRITE_CACHE | BS_CAP_FUA | BS_CAP_DISCARD |
		      BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS | BS_CAP_WRITE_SAME | BS_CAP_COPY;
	if (p->readonly)
		d->dev.caps |= BS_CAP_READ_ONLY;
	*out = &d->dev;
	return 0;
}

const struct bs_type bs_dedup_type = {
    .name = "dedup",
    .open = dedup_open,
};
