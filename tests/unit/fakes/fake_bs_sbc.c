/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_bs_sbc.c: see fake_bs_sbc.h. */
#include "fake_bs_sbc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "lib/reactor.h"

struct fsb_held {
	struct fsb_held *next;
	struct bs_io *io;
	struct reactor *r;
	struct reactor_msg msg;
	struct fsb *f;
	int err;
};

struct fsb {
	struct bs_dev dev;
	uint8_t *data;
	uint8_t *map; /* per granule: 1 = mapped */
	pthread_mutex_t lock;
	bool hold;
	struct fsb_held *held, **held_tail;
	unsigned n_held;
	unsigned count[BS_OP_WRITE_SAME + 1];
	unsigned fua;
	uint8_t fail_op;
	int fail_err;
	unsigned fail_n;
	unsigned fail_skip;
	uint64_t fail_delta;
};

static struct fsb *to_fsb(struct bs_dev *dev)
{
	return container_of(dev, struct fsb, dev);
}

static void set_map(struct fsb *f, uint64_t off, uint64_t len, uint8_t v)
{
	for (uint64_t g = off / FSB_GRANULE; g < (off + len + FSB_GRANULE - 1) / FSB_GRANULE; g++)
		f->map[g] = v;
}

/* lock held */
static int perform(struct fsb *f, struct bs_io *io)
{
	uint64_t off = io->off;

	if (io->op != BS_OP_FLUSH && (io->off > f->dev.size || io->len > f->dev.size - io->off))
		return -EINVAL;
	switch (io->op) {
	case BS_OP_READ:
	case BS_OP_WRITE:
		for (int i = 0; i < io->iovcnt; i++) {
			if (io->op == BS_OP_READ)
				memcpy(io->iov[i].iov_base, f->data + off, io->iov[i].iov_len);
			else
				memcpy(f->data + off, io->iov[i].iov_base, io->iov[i].iov_len);
			off += io->iov[i].iov_len;
		}
		if (io->op == BS_OP_WRITE)
			set_map(f, io->off, io->len, 1);
		break;
	case BS_OP_DISCARD:
		memset(f->data + io->off, 0, io->len);
		set_map(f, io->off, io->len, 0);
		break;
	case BS_OP_WRITE_ZEROES:
		memset(f->data + io->off, 0, io->len);
		set_map(f, io->off, io->len, 1);
		break;
	case BS_OP_COMPARE_WRITE: {
		/* iov[0] verify data, iov[1] write data (bs.h) */
		const uint8_t *v = io->iov[0].iov_base;

		for (uint64_t i = 0; i < io->len; i++)
			if (f->data[io->off + i] != v[i]) {
				io->bad_off = i;
				return -EILSEQ;
			}
		memcpy(f->data + io->off, io->iov[1].iov_base, io->len);
		set_map(f, io->off, io->len, 1);
		break;
	}
	case BS_OP_WRITE_SAME:
		for (uint64_t o = 0; o < io->len; o += io->iov[0].iov_len)
			memcpy(f->data + io->off + o, io->iov[0].iov_base, io->iov[0].iov_len);
		set_map(f, io->off, io->len, 1);
		break;
	case BS_OP_MAP_STATUS: {
		uint64_t g = io->off / FSB_GRANULE, end = f->dev.size / FSB_GRANULE;
		uint64_t lim = (io->off + io->len) / FSB_GRANULE;
		uint8_t v = f->map[g];
		uint64_t e = g;

		if (lim > end)
			lim = end;
		while (e < lim && f->map[e] == v)
			e++;
		io->mapped = v;
		io->map_len = (e - g) * FSB_GRANULE;
		break;
	}
	default:
		break;
	}
	return 0;
}

static void held_done(struct reactor_msg *m)
{
	struct fsb_held *h = container_of(m, struct fsb_held, msg);
	struct bs_io *io = h->io;
	int err = h->err;

	free(h);
	io->done(io, err);
}

static int take_failure(struct fsb *f, struct bs_io *io)
{
	if (f->fail_n && f->fail_op == io->op) {
		if (f->fail_skip) {
			f->fail_skip--;
			return 0;
		}
		f->fail_n--;
		if (f->fail_err == -EIO)
			io->bad_off = io->off + f->fail_delta;
		return f->fail_err;
	}
	return 0;
}

static void fsb_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct fsb *f = to_fsb(dev);
	int err;

	pthread_mutex_lock(&f->lock);
	f->count[io->op]++;
	if (io->op == BS_OP_WRITE && (io->flags & BS_IO_FUA))
		f->fua++;
	err = take_failure(f, io);
	if (f->hold) {
		struct fsb_held *h = calloc(1, sizeof(*h));

		if (h) {
			h->io = io;
			h->r = reactor_self();
			h->err = err;
			h->f = f;
			h->msg.fn = held_done;
			*f->held_tail = h;
			f->held_tail = &h->next;
			f->n_held++;
			pthread_mutex_unlock(&f->lock);
			return;
		}
	}
	if (!err)
		err = perform(f, io);
	pthread_mutex_unlock(&f->lock);
	io->done(io, err);
}

static void fsb_close(struct bs_dev *dev)
{
	struct fsb *f = to_fsb(dev);

	pthread_mutex_destroy(&f->lock);
	free(f->map);
	free(f->data);
	free(f);
}

static const struct bs_ops fsb_ops = {
    .type = "fake-sbc",
    .submit = fsb_submit,
    .close = fsb_close,
};

struct bs_dev *fsb_create(uint64_t size, uint32_t caps)
{
	struct fsb *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->data = calloc(1, size ? size : 1);
	f->map = calloc(1, size / FSB_GRANULE + 1);
	if (!f->data || !f->map) {
		free(f->data);
		free(f->map);
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->held_tail = &f->held;
	f->dev.ops = &fsb_ops;
	f->dev.size = size;
	f->dev.caps = caps;
	memcpy(f->dev.type, "fake-sbc", 9);
	memcpy(f->dev.name, "fsb0", 5);
	return &f->dev;
}

uint8_t *fsb_data(struct bs_dev *dev)
{
	return to_fsb(dev)->data;
}

bool fsb_mapped(struct bs_dev *dev, uint64_t off)
{
	struct fsb *f = to_fsb(dev);
	bool v;

	pthread_mutex_lock(&f->lock);
	v = f->map[off / FSB_GRANULE];
	pthread_mutex_unlock(&f->lock);
	return v;
}

unsigned fsb_count(struct bs_dev *dev, enum bs_op op)
{
	struct fsb *f = to_fsb(dev);
	unsigned n;

	pthread_mutex_lock(&f->lock);
	n = f->count[op];
	pthread_mutex_unlock(&f->lock);
	return n;
}

unsigned fsb_fua_writes(struct bs_dev *dev)
{
	struct fsb *f = to_fsb(dev);
	unsigned n;

	pthread_mutex_lock(&f->lock);
	n = f->fua;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void fsb_reset_counts(struct bs_dev *dev)
{
	struct fsb *f = to_fsb(dev);

	pthread_mutex_lock(&f->lock);
	memset(f->count, 0, sizeof(f->count));
	f->fua = 0;
	pthread_mutex_unlock(&f->lock);
}

void fsb_fail(struct bs_dev *dev, enum bs_op op, int err, unsigned n, uint64_t bad_delta)
{
	struct fsb *f = to_fsb(dev);

	pthread_mutex_lock(&f->lock);
	f->fail_op = (uint8_t)op;
	f->fail_err = err;
	f->fail_n = n;
	f->fail_skip = 0;
	f->fail_delta = bad_delta;
	pthread_mutex_unlock(&f->lock);
}

void fsb_fail_skip(struct bs_dev *dev, unsigned skip)
{
	struct fsb *f = to_fsb(dev);

	pthread_mutex_lock(&f->lock);
	f->fail_skip = skip;
	pthread_mutex_unlock(&f->lock);
}

void fsb_hold(struct bs_dev *dev, bool hold)
{
	struct fsb *f = to_fsb(dev);

	pthread_mutex_lock(&f->lock);
	f->hold = hold;
	pthread_mutex_unlock(&f->lock);
}

unsigned fsb_held(struct bs_dev *dev)
{
	struct fsb *f = to_fsb(dev);
	unsigned n;

	pthread_mutex_lock(&f->lock);
	n = f->n_held;
	pthread_mutex_unlock(&f->lock);
	return n;
}

unsigned fsb_wait_held(struct bs_dev *dev, unsigned n)
{
	for (int i = 0; i < 2000 && fsb_held(dev) < n; i++)
		usleep(1000);
	return fsb_held(dev);
}

void fsb_release(struct bs_dev *dev)
{
	struct fsb *f = to_fsb(dev);
	struct fsb_held *h, *next;

	pthread_mutex_lock(&f->lock);
	h = f->held;
	f->held = NULL;
	f->held_tail = &f->held;
	f->n_held = 0;
	for (struct fsb_held *x = h; x; x = x->next)
		if (!x->err)
			x->err = perform(f, x->io);
	pthread_mutex_unlock(&f->lock);
	for (; h; h = next) {
		next = h->next;
		reactor_post(h->r, &h->msg);
	}
}
