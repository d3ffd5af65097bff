/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bs_harness.h: drive a back-store from a real reactor in unit tests.
 *
 * h_run(r, dev, ios, n) posts a message to r that submits the n requests,
 * runs r on the calling thread until every done() has run, and checks that
 * each done() ran exactly once, on r's thread. */
#ifndef UT_TEST_BS_HARNESS_H
#define UT_TEST_BS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/reactor.h"
#include "scsi/bs.h"

struct h_io {
	struct bs_io io;
	struct iovec iov[8];
	int err;
	int calls;
	bool on_reactor;
	struct h_batch *batch;
};

struct h_batch {
	struct reactor_msg m;
	struct reactor *r;
	struct bs_dev *dev;
	struct h_io **ios;
	int n;
	int left;
};

static inline void h_done(struct bs_io *io, int err)
{
	struct h_io *h = container_of(io, struct h_io, io);

	h->err = err;
	h->calls++;
	if (h->batch) {
		h->on_reactor = reactor_self() == h->batch->r;
		if (--h->batch->left == 0)
			reactor_stop(h->batch->r);
	}
}

static inline void h_init(struct h_io *h, uint8_t op, uint64_t off, uint64_t len, void *buf)
{
	memset(h, 0, sizeof(*h));
	h->io.op = op;
	h->io.off = off;
	h->io.len = len;
	h->io.iov = h->iov;
	if (buf) {
		h->iov[0].iov_base = buf;
		h->iov[0].iov_len = (size_t)len;
		h->io.iovcnt = 1;
	}
	h->io.done = h_done;
}

static inline void h_submit_all(struct reactor_msg *m)
{
	struct h_batch *b = container_of(m, struct h_batch, m);

	for (int i = 0; i < b->n; i++)
		bs_submit(b->dev, &b->ios[i]->io);
}

/* Returns the number of requests whose done() misbehaved (0 = fine). */
static inline int h_run(struct reactor *r, struct bs_dev *dev, struct h_io **ios, int n)
{
	struct h_batch b = {
	    .m.fn = h_submit_all, .r = r, .dev = dev, .ios = ios, .n = n, .left = n};
	int bad = 0;

	for (int i = 0; i < n; i++) {
		ios[i]->batch = &b;
		ios[i]->calls = 0;
	}
	reactor_post(r, &b.m);
	if (reactor_run(r) != 0)
		return n;
	for (int i = 0; i < n; i++) {
		bad += ios[i]->calls != 1 || !ios[i]->on_reactor;
		ios[i]->batch = NULL;
	}
	return bad;
}

/* One request; returns its error. The caller includes cmocka.h first. */
static inline int h_do(struct reactor *r, struct bs_dev *dev, struct h_io *h)
{
	struct h_io *one[1] = {h};

	assert_int_equal(h_run(r, dev, one, 1), 0);
	return h->err;
}

static inline bool h_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static inline void h_pattern(void *p, size_t n, uint32_t seed)
{
	uint8_t *b = p;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

#endif
