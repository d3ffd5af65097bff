/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_bs_core.c: see fake_bs_core.h. */
#include "fake_bs_core.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reactor.h"

struct held_io {
	struct held_io *next;
	struct bs_io *io;
	struct reactor_msg msg;
	int err;
};

struct fake_bs {
	struct bs_dev dev;
	uint8_t *data;
	pthread_mutex_t lock;
	bool hold;
	int fail_next;
	bool space_set; /* fake_bs_set_space() */
	uint64_t space_used, space_avail;
	struct held_io *held;
	unsigned n_held;
};

static int do_io(struct fake_bs *f, struct bs_io *io)
{
	uint64_t off = io->off;

	if (io->op == BS_OP_READ || io->op == BS_OP_WRITE) {
		if (io->off + io->len > f->dev.size)
			return -EINVAL;
		if (io->op == BS_OP_READ && (io->flags & BS_IO_LEND)) {
			io->lent = f->data + off; /* as the file back-store lends */
			return 0;
		}
		for (int i = 0; i < io->iovcnt; i++) {
			if (io->op == BS_OP_READ)
				memcpy(io->iov[i].iov_base, f->data + off, io->iov[i].iov_len);
			else
				memcpy(f->data + off, io->iov[i].iov_base, io->iov[i].iov_len);
			off += io->iov[i].iov_len;
		}
	} else if (io->op == BS_OP_DISCARD || io->op == BS_OP_WRITE_ZEROES) {
		if (io->off + io->len > f->dev.size)
			return -EINVAL;
		memset(f->data + io->off, 0, io->len);
	} else if (io->op == BS_OP_MAP_STATUS) {
		io->map_len = f->dev.size - io->off;
		io->mapped = true;
	}
	return 0;
}

static void held_done(struct reactor_msg *m)
{
	struct held_io *h = container_of(m, struct held_io, msg);
	struct bs_io *io = h->io;
	int err = h->err;

	free(h);
	io->done(io, err);
}

static void fake_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);
	int err;

	pthread_mutex_lock(&f->lock);
	err = f->fail_next;
	f->fail_next = 0;
	if (!err)
		err = do_io(f, io);
	if (f->hold) {
		struct held_io *h = calloc(1, sizeof(*h));

		if (h) {
			h->io = io;
			h->err = err;
			h->msg.fn = held_done;
			/* remember the submitting reactor in the message chain */
			h->next = f->held;
			f->held = h;
			f->n_held++;
			*(struct reactor **)(void *)io->priv = reactor_self();
			pthread_mutex_unlock(&f->lock);
			return;
		}
	}
	pthread_mutex_unlock(&f->lock);
	io->done(io, err);
}

static int fake_resize(struct bs_dev *dev, uint64_t size)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);
	uint8_t *d = realloc(f->data, size ? size : 1);

	if (!d)
		return -ENOMEM;
	if (size > dev->size)
		memset(d + dev->size, 0, size - dev->size);
	f->data = d;
	dev->size = size;
	return 0;
}

static void fake_close(struct bs_dev *dev)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);

	pthread_mutex_destroy(&f->lock);
	free(f->data);
	free(f);
}

static int fake_space(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);

	if (!f->space_set)
		return -EOPNOTSUPP;
	*used = f->space_used;
	*avail = f->space_avail;
	*avail_shared = true;
	return 0;
}

void fake_bs_set_space(struct bs_dev *dev, uint64_t used, uint64_t avail)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);

	f->space_set = true;
	f->space_used = used;
	f->space_avail = avail;
}

static const struct bs_ops fake_ops = {
    .type = "fake",
    .submit = fake_submit,
    .resize = fake_resize,
    .space = fake_space,
    .close = fake_close,
};

struct bs_dev *fake_bs_create(uint64_t size, uint32_t caps)
{
	struct fake_bs *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->data = calloc(1, size ? size : 1);
	if (!f->data) {
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->dev.ops = &fake_ops;
	f->dev.size = size;
	f->dev.caps = caps;
	memcpy(f->dev.type, "fake", 5);
	memcpy(f->dev.name, "fake0", 6);
	return &f->dev;
}

void fake_bs_hold(struct bs_dev *dev, bool hold)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);

	pthread_mutex_lock(&f->lock);
	f->hold = hold;
	pthread_mutex_unlock(&f->lock);
}

unsigned fake_bs_held(struct bs_dev *dev)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);
	unsigned n;

	pthread_mutex_lock(&f->lock);
	n = f->n_held;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void fake_bs_release(struct bs_dev *dev)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);
	struct held_io *h;

	pthread_mutex_lock(&f->lock);
	h = f->held;
	f->held = NULL;
	f->n_held = 0;
	pthread_mutex_unlock(&f->lock);
	while (h) {
		struct held_io *next = h->next;
		struct reactor *r = *(struct reactor **)(void *)h->io->priv;

		reactor_post(r, &h->msg);
		h = next;
	}
}

uint8_t *fake_bs_data(struct bs_dev *dev)
{
	return container_of(dev, struct fake_bs, dev)->data;
}

void fake_bs_fail_next(struct bs_dev *dev, int err)
{
	struct fake_bs *f = container_of(dev, struct fake_bs, dev);

	pthread_mutex_lock(&f->lock);
	f->fail_next = err;
	pthread_mutex_unlock(&f->lock);
}
