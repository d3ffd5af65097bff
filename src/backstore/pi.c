/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi.c: the protection information store (contract in pi.h).
 *
 * A request that needs the tuple store runs as two parts, one per inner
 * device, from a struct pi_req the wrapper allocates; the parts complete
 * on the submitting reactor (bs.h), so the count of pending parts needs no
 * atomics. A request of the data alone (READ without io->pi, MAP_STATUS)
 * goes to the data device unchanged, the caller's io and all. */
#include "backstore/pi.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

struct pi_dev {
	struct bs_dev dev;
	struct bs_dev *data;
	struct bs_dev *tuples;
	_Atomic uint8_t type; /* enum t10pi_type; set_pi_type() (FORMAT UNIT) */
	uint32_t block_shift;
};

struct pi_req {
	struct pi_dev *pd;
	struct bs_io *io; /* the caller's */
	struct bs_io d;	  /* the data part */
	struct bs_io t;	  /* the tuple part */
	struct iovec tiov;
	uint8_t *tbuf; /* the tuples as stored (inverted) */
	unsigned pending;
	int err;
	uint64_t bad_off;
};

static void invert(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] ^= 0xff;
}

/* The tuples a device server writes for io's data (pi.h), in stored form. */
static void generate(const struct pi_dev *pd, const struct bs_io *io, uint8_t *tbuf)
{
	uint32_t bs = 1u << pd->block_shift;
	uint64_t n = io->len >> pd->block_shift, lba = io->off >> pd->block_shift;
	size_t voff = 0;
	int v = 0;
	bool type3 = atomic_load_explicit(&pd->type, memory_order_relaxed) == T10PI_TYPE3;

	for (uint64_t i = 0; i < n; i++) {
		uint8_t *t = tbuf + i * T10PI_TUPLE_LEN;
		uint16_t crc = 0;
		uint32_t left = bs;

		/* a block may straddle the caller's iovecs */
		while (left && v < io->iovcnt) {
			size_t take = io->iov[v].iov_len - voff;

			if (take > left)
				take = left;
			crc = t10pi_crc_update(crc, (const uint8_t *)io->iov[v].iov_base + voff,
					       take);
			voff += take;
			left -= (uint32_t)take;
			if (voff == io->iov[v].iov_len) {
				v++;
				voff = 0;
			}
		}
		put_be16(t, crc);
		put_be16(t + 2, 0x0000);
		put_be32(t + 4, type3 ? 0xffffffffu : (uint32_t)(lba + i));
	}
	invert(tbuf, n * T10PI_TUPLE_LEN);
}

static void req_finish(struct pi_req *rq)
{
	struct bs_io *io = rq->io;
	int err = rq->err;

	if (!err && io->op == BS_OP_READ && io->pi) {
		memcpy(io->pi, rq->tbuf, rq->tiov.iov_len);
		invert(io->pi, rq->tiov.iov_len);
	}
	if (err)
		io->bad_off = rq->bad_off;
	free(rq->tbuf);
	free(rq);
	io->done(io, err);
}

static void part_done(struct pi_req *rq, int err, uint64_t bad_off, bool data)
{
	if (err && !rq->err) {
		rq->err = err;
		rq->bad_off = bad_off;
		/* a failing tuple is its data block's failure (a store that
		 * names the start of its own block: the request's first) */
		if (!data && bad_off != UINT64_MAX) {
			uint64_t t = bad_off < rq->t.off ? rq->t.off : bad_off;

			rq->bad_off = (t / T10PI_TUPLE_LEN) << rq->pd->block_shift;
		}
	}
	if (--rq->pending == 0)
		req_finish(rq);
}

static void data_done(struct bs_io *io, int err)
{
	struct pi_req *rq = container_of(io, struct pi_req, d);

	part_done(rq, err, io->bad_off, true);
}

static void tuple_done(struct bs_io *io, int err)
{
	struct pi_req *rq = container_of(io, struct pi_req, t);

	part_done(rq, err, io->bad_off, false);
}

static void pi_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);
	uint64_t toff = (io->off >> pd->block_shift) * T10PI_TUPLE_LEN;
	uint64_t tlen = (io->len >> pd->block_shift) * T10PI_TUPLE_LEN;
	struct pi_req *rq;

	if (io->op == BS_OP_MAP_STATUS || (io->op == BS_OP_READ && !io->pi)) {
		bs_submit(pd->data, io);
		return;
	}
	rq = calloc(1, sizeof(*rq));
	if (!rq) {
		io->done(io, -ENOMEM);
		return;
	}
	rq->pd = pd;
	rq->io = io;
	rq->bad_off = UINT64_MAX;
	rq->d = (struct bs_io){.op = io->op,
			       .flags = io->flags,
			       .off = io->off,
			       .len = io->len,
			       .iov = io->iov,
			       .iovcnt = io->iovcnt,
			       .done = data_done};
	rq->t = (struct bs_io){.op = io->op, .flags = io->flags, .done = tuple_done};
	switch (io->op) {
	case BS_OP_READ:
	case BS_OP_WRITE:
		rq->tbuf = malloc(tlen ? tlen : 1);
		if (!rq->tbuf) {
			free(rq);
			io->done(io, -ENOMEM);
			return;
		}
		if (io->op == BS_OP_WRITE && io->pi) {
			memcpy(rq->tbuf, io->pi, tlen);
			invert(rq->tbuf, tlen);
		} else if (io->op == BS_OP_WRITE) {
			generate(pd, io, rq->tbuf);
		}
		rq->tiov = (struct iovec){.iov_base = rq->tbuf, .iov_len = tlen};
		rq->t.off = toff;
		rq->t.len = tlen;
		rq->t.iov = &rq->tiov;
		rq->t.iovcnt = 1;
		break;
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		/* the tuple store reading zeroes holds escape tuples (pi.h) */
		rq->t.op =
		    (pd->tuples->caps & BS_CAP_WRITE_ZEROES) ? BS_OP_WRITE_ZEROES : BS_OP_DISCARD;
		rq->t.off = toff;
		rq->t.len = tlen;
		break;
	default: /* FLUSH */
		break;
	}
	rq->pending = 2;
	bs_submit(pd->data, &rq->d);
	bs_submit(pd->tuples, &rq->t);
}

static int pi_resize(struct bs_dev *dev, uint64_t new_size)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);
	uint64_t tsize = (new_size >> pd->block_shift) * T10PI_TUPLE_LEN;
	int rc;

	if (!pd->data->ops->resize || !pd->tuples->ops->resize)
		return -EOPNOTSUPP;
	/* the tuples first: a grown LU never has blocks without them */
	rc = pd->tuples->ops->resize(pd->tuples, tsize);
	if (rc)
		return rc;
	rc = pd->data->ops->resize(pd->data, new_size);
	dev->size = pd->data->size;
	return rc;
}

static int pi_space(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);

	if (!pd->data->ops->space)
		return -EOPNOTSUPP;
	return pd->data->ops->space(pd->data, used, avail, avail_shared);
}

/* The data back-store's facts and check (its medium); a size that changes
 * underneath is not followed: the tuples would have to follow it. */
static size_t pi_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);

	return pd->data->ops->facts ? pd->data->ops->facts(pd->data, f, max) : 0;
}

static int pi_check(struct bs_dev *dev, struct bs_fact *f, size_t max, size_t *n)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);

	*n = 0;
	if (!pd->data->ops->check)
		return -EOPNOTSUPP;
	return pd->data->ops->check(pd->data, f, max, n);
}

static void pi_close(struct bs_dev *dev)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);

	bs_close(pd->data);
	bs_close(pd->tuples);
	free(pd);
}

/* FORMAT UNIT changed the protection type (bs.h); 0 (none) keeps the
 * tuples generated as for type 1: unchecked, but right for a later format
 * with protection that keeps the data (there is none today: a format
 * initialises the medium, and the tuples with it). */
static void pi_set_type(struct bs_dev *dev, uint8_t type)
{
	struct pi_dev *pd = container_of(dev, struct pi_dev, dev);

	atomic_store_explicit(&pd->type, type, memory_order_relaxed);
}

static const struct bs_ops pi_ops = {
    .type = "pi",
    .submit = pi_submit,
    .resize = pi_resize,
    .space = pi_space,
    .facts = pi_facts,
    .check = pi_check,
    .set_pi_type = pi_set_type,
    .close = pi_close,
};

int bs_pi_wrap(struct bs_dev *data, struct bs_dev *tuples, enum t10pi_type type,
	       uint32_t block_size, struct bs_dev **out)
{
	struct pi_dev *pd;
	uint32_t shift;

	*out = NULL;
	if (block_size < 512 || (block_size & (block_size - 1)) || type == T10PI_NONE ||
	    type > T10PI_TYPE3)
		return -EINVAL;
	shift = (uint32_t)__builtin_ctz(block_size);
	if (tuples->size < (data->size >> shift) * T10PI_TUPLE_LEN ||
	    !(tuples->caps & (BS_CAP_WRITE_ZEROES | BS_CAP_DISCARD))) {
		log_err("backstore %s: the protection information store is too small or cannot "
			"be zeroed",
			data->name);
		return -EINVAL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pd->data = data;
	pd->tuples = tuples;
	atomic_init(&pd->type, (uint8_t)type);
	pd->block_shift = shift;
	pd->dev.ops = &pi_ops;
	pd->dev.size = data->size;
	pd->dev.caps = data->caps | BS_CAP_PI;
	pd->dev.opt_unit = data->opt_unit;
	memcpy(pd->dev.type, data->type, sizeof(pd->dev.type));
	memcpy(pd->dev.name, data->name, sizeof(pd->dev.name));
	*out = &pd->dev;
	return 0;
}
