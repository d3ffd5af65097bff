/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/ram.c, driven through a reactor: data, FUA and
 * flush, discard (zeroes, unmapped, memory released), write zeroes, map
 * status at chunk granularity, lent READs, bounds, and concurrent writers
 * on two reactor threads. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "backstore/ram.c"
#include "bs_harness.h"

#define MiB (1024u * 1024u)

struct fix {
	struct reactor *r;
	struct bs_dev *dev;
	struct ram_dev *rd;
};

static struct bs_dev *open_ram(uint64_t size, bool ro)
{
	struct bs_params p = {
	    .type = "ram",
	    .name = "r0",
	    .size = size,
	    .block_size = 512,
	    .readonly = ro,
	};
	struct bs_dev *dev;

	assert_int_equal(bs_open(&p, &dev), 0);
	return dev;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_int_equal(reactor_create(&f->r, 0), 0);
	f->dev = open_ram(4 * MiB, false);
	f->rd = container_of(f->dev, struct ram_dev, dev);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	bs_close(f->dev);
	reactor_destroy(f->r);
	free(f);
	return 0;
}

static void map_status(struct fix *f, uint64_t off, bool *mapped, uint64_t *len)
{
	struct h_io h;

	h_init(&h, BS_OP_MAP_STATUS, off, 0, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	*mapped = h.io.mapped;
	*len = h.io.map_len;
}

static void write_buf(struct fix *f, uint64_t off, const void *buf, uint64_t len)
{
	struct h_io h;

	h_init(&h, BS_OP_WRITE, off, len, (void *)buf);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
}

static void read_buf(struct fix *f, uint64_t off, void *buf, uint64_t len)
{
	struct h_io h;

	memset(buf, 0xee, len);
	h_init(&h, BS_OP_READ, off, len, buf);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
}

static void test_open(void **state)
{
	struct bs_params p = {.type = "ram", .name = "r", .block_size = 512};
	struct bs_dev *dev = (struct bs_dev *)1;

	assert_int_equal(bs_open(&p, &dev), -EINVAL); /* no size */
	assert_null(dev);
	dev = open_ram(MiB, false);
	assert_int_equal(dev->size, MiB);
	assert_int_equal(dev->caps, BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES |
					BS_CAP_MAP_STATUS | BS_CAP_FUA);
	assert_string_equal(dev->type, "ram");
	assert_string_equal(dev->name, "r0");
	assert_null(dev->ops->resize);
	bs_close(dev);
}

static void test_fresh_reads_zero(void **state)
{
	struct fix *f = *state;
	uint8_t *buf = malloc(256 * 1024);
	bool mapped;
	uint64_t len;

	read_buf(f, 0, buf, 256 * 1024);
	assert_true(h_all_zero(buf, 256 * 1024));
	read_buf(f, 4 * MiB - 512, buf, 512);
	assert_true(h_all_zero(buf, 512));
	map_status(f, 0, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 4 * MiB);
	map_status(f, 4 * MiB - 512, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 512);
	/* Reading a sparse device commits no memory. */
	unsigned char vec[64];

	assert_int_equal(mincore(f->rd->base, 64 * 4096, vec), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(vec[i] & 1, 0);
	free(buf);
}

static void test_write_read_iovecs(void **state)
{
	struct fix *f = *state;
	enum { LEN = 12 * 1024 };
	uint8_t src[LEN], dst[LEN];
	struct h_io h;
	bool mapped;
	uint64_t len;

	h_pattern(src, LEN, 1);
	/* Write at 60 KiB: straddles chunks 0 and 1; three iovecs. */
	h_init(&h, BS_OP_WRITE, 60 * 1024, LEN, NULL);
	h.iov[0] = (struct iovec){src, 1000};
	h.iov[1] = (struct iovec){src + 1000, 7000};
	h.iov[2] = (struct iovec){src + 8000, LEN - 8000};
	h.io.iovcnt = 3;
	h.io.flags = BS_IO_FUA;
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	/* Read it back split differently, with a zero-length iovec inside. */
	memset(dst, 0xee, LEN);
	h_init(&h, BS_OP_READ, 60 * 1024, LEN, NULL);
	h.iov[0] = (struct iovec){dst, 4096};
	h.iov[1] = (struct iovec){dst + 4096, 0};
	h.iov[2] = (struct iovec){dst + 4096, 333};
	h.iov[3] = (struct iovec){dst + 4429, LEN - 4429};
	h.io.iovcnt = 4;
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	assert_memory_equal(src, dst, LEN);
	/* Around it: still zero. */
	read_buf(f, 59 * 1024, dst, 1024);
	assert_true(h_all_zero(dst, 1024));
	read_buf(f, 72 * 1024, dst, 1024);
	assert_true(h_all_zero(dst, 1024));
	/* Chunks 0 and 1 mapped, the rest not. */
	map_status(f, 0, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 128 * 1024);
	map_status(f, 70 * 1024, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 58 * 1024);
	map_status(f, 128 * 1024, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 4 * MiB - 128 * 1024);

	h_init(&h, BS_OP_FLUSH, 0, 0, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
}

static void test_discard(void **state)
{
	struct fix *f = *state;
	enum { LEN = 256 * 1024 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	struct h_io h;
	bool mapped;
	uint64_t len;
	unsigned char vec[16];

	h_pattern(src, LEN, 2);
	write_buf(f, MiB, src, LEN); /* chunks 16..19 */
	assert_int_equal(mincore(f->rd->base + MiB, 65536, vec), 0);
	assert_int_equal(vec[0] & 1, 1);

	/* Whole chunk 17: zeroes, unmapped, its memory released. */
	h_init(&h, BS_OP_DISCARD, MiB + 65536, 65536, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	read_buf(f, MiB, dst, LEN);
	assert_memory_equal(dst, src, 65536);
	assert_true(h_all_zero(dst + 65536, 65536));
	assert_memory_equal(dst + 131072, src + 131072, LEN - 131072);
	map_status(f, MiB + 65536, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 65536);
	map_status(f, MiB, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 65536);
	assert_int_equal(mincore(f->rd->base + MiB + 65536, 65536, vec), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(vec[i] & 1, 0);

	/* Part of chunk 18 (not a whole chunk): zeroed, the chunk stays mapped. */
	h_init(&h, BS_OP_DISCARD, MiB + 131072 + 512, 8192, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	read_buf(f, MiB + 131072, dst, 65536);
	assert_memory_equal(dst, src + 131072, 512);
	assert_true(h_all_zero(dst + 512, 8192));
	assert_memory_equal(dst + 512 + 8192, src + 131072 + 512 + 8192, 65536 - 512 - 8192);
	map_status(f, MiB + 131072, &mapped, &len);
	assert_true(mapped);

	/* A range over a partial and whole chunks: 16 (partial) .. 19. */
	h_init(&h, BS_OP_DISCARD, MiB + 4096, LEN - 4096, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	read_buf(f, MiB, dst, LEN);
	assert_memory_equal(dst, src, 4096);
	assert_true(h_all_zero(dst + 4096, LEN - 4096));
	map_status(f, MiB + 65536, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 4 * MiB - MiB - 65536);

	/* Written again after a discard: mapped, data back. */
	write_buf(f, MiB + 65536, src, 4096);
	read_buf(f, MiB + 65536, dst, 8192);
	assert_memory_equal(dst, src, 4096);
	assert_true(h_all_zero(dst + 4096, 4096));
	map_status(f, MiB + 65536, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 65536);
	free(src);
	free(dst);
}

/* A READ with BS_IO_LEND into dst (set to 0xee first): the pointer lent,
 * or NULL when the READ copied into dst. */
static const uint8_t *lend_read(struct fix *f, uint64_t off, uint64_t len, uint8_t *dst)
{
	struct h_io h;

	memset(dst, 0xee, len);
	h_init(&h, BS_OP_READ, off, len, dst);
	h.io.flags = BS_IO_LEND;
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	return h.io.lent;
}

/* BS_IO_LEND: a READ of written chunks is answered with a pointer into the
 * reservation and dst is not written; without the flag, or over a chunk
 * never written or discarded, the READ copies. */
static void test_lend(void **state)
{
	struct fix *f = *state;
	enum { LEN = 256 * 1024 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	const uint8_t *lent_all;
	struct h_io h;

	h_pattern(src, LEN, 3);
	write_buf(f, MiB, src, LEN); /* chunks 16..19 */

	/* written: lent, nothing copied */
	lent_all = lend_read(f, MiB, LEN, dst);
	assert_ptr_equal(lent_all, f->rd->base + MiB);
	assert_memory_equal(lent_all, src, LEN);
	assert_int_equal(dst[0], 0xee);
	assert_int_equal(dst[LEN - 1], 0xee);
	/* a later write shows through the lent pointer (bs.h) */
	write_buf(f, MiB + 4096, src, 4096);
	assert_memory_equal(lent_all + 4096, src, 4096);
	write_buf(f, MiB + 4096, src + 4096, 4096);

	/* without the flag: copied */
	memset(dst, 0xee, LEN);
	h_init(&h, BS_OP_READ, MiB, LEN, dst);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	assert_null(h.io.lent);
	assert_memory_equal(dst, src, LEN);

	/* over chunk 20, never written: copied, zeroes past the data */
	assert_null(lend_read(f, MiB + LEN - 4096, 8192, dst));
	assert_memory_equal(dst, src + LEN - 4096, 4096);
	assert_true(h_all_zero(dst + 4096, 4096));

	/* chunk 17 discarded: copied as zeroes; the pointer lent before it
	 * still reads, as zeroes (the reservation stays until close) */
	h_init(&h, BS_OP_DISCARD, MiB + 65536, 65536, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	assert_null(lend_read(f, MiB + 65536, 4096, dst));
	assert_true(h_all_zero(dst, 4096));
	assert_true(h_all_zero(lent_all + 65536, 65536));
	assert_memory_equal(lent_all, src, 65536);
	/* chunk 16 alone is still lent */
	assert_ptr_equal(lend_read(f, MiB, 4096, dst), f->rd->base + MiB);
	free(src);
	free(dst);
}

static void test_write_zeroes(void **state)
{
	struct fix *f = *state;
	enum { LEN = 131072 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	struct h_io h;
	bool mapped;
	uint64_t len;

	h_pattern(src, LEN, 3);
	write_buf(f, 2 * MiB, src, LEN);
	h_init(&h, BS_OP_WRITE_ZEROES, 2 * MiB + 1024, 65536 + 512, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	read_buf(f, 2 * MiB, dst, LEN);
	assert_memory_equal(dst, src, 1024);
	assert_true(h_all_zero(dst + 1024, 65536 + 512));
	assert_memory_equal(dst + 1024 + 65536 + 512, src + 1024 + 65536 + 512,
			    LEN - 1024 - 65536 - 512);
	/* Write zeroes may leave the range allocated: here it does. */
	map_status(f, 2 * MiB, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, LEN);
	/* On a never-written chunk it allocates nothing. */
	h_init(&h, BS_OP_WRITE_ZEROES, 3 * MiB, 65536, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), 0);
	map_status(f, 3 * MiB, &mapped, &len);
	assert_false(mapped);
	free(src);
	free(dst);
}

static void test_bounds_and_sync(void **state)
{
	struct fix *f = *state;
	uint8_t buf[512];
	struct h_io h;

	h_init(&h, BS_OP_READ, 4 * MiB, 512, buf);
	assert_int_equal(h_do(f->r, f->dev, &h), -EINVAL);
	h_init(&h, BS_OP_WRITE, 4 * MiB - 512, 1024, buf);
	assert_int_equal(h_do(f->r, f->dev, &h), -EINVAL);
	h_init(&h, BS_OP_MAP_STATUS, 4 * MiB, 0, NULL);
	assert_int_equal(h_do(f->r, f->dev, &h), -EINVAL);
	h_init(&h, 77, 0, 512, buf);
	assert_int_equal(h_do(f->r, f->dev, &h), -EOPNOTSUPP);
	/* iovecs shorter than len: refused, nothing overrun. */
	h_init(&h, BS_OP_WRITE, 0, 1024, buf);
	h.iov[0].iov_len = 512;
	assert_int_equal(h_do(f->r, f->dev, &h), -EINVAL);
	/* Completion is synchronous: done() ran inside submit. */
	h_init(&h, BS_OP_READ, 0, 512, buf);
	bs_submit(f->dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	assert_int_equal(h.io.bad_off, UINT64_MAX);
}

static void test_readonly_and_odd_size(void **state)
{
	struct reactor *r;
	struct bs_dev *dev;
	uint8_t buf[4096] = {1};
	struct h_io h;

	assert_int_equal(reactor_create(&r, 0), 0);
	dev = open_ram(MiB, true);
	assert_true(dev->caps & BS_CAP_READ_ONLY);
	h_init(&h, BS_OP_WRITE, 0, 512, buf);
	assert_int_equal(h_do(r, dev, &h), -EROFS);
	h_init(&h, BS_OP_DISCARD, 0, 512, NULL);
	assert_int_equal(h_do(r, dev, &h), -EROFS);
	bs_close(dev);

	/* 1 MiB + 4 KiB: the last chunk is short; discarding all of it
	 * unmaps it. */
	dev = open_ram(MiB + 4096, false);
	h_init(&h, BS_OP_WRITE, MiB, 4096, buf);
	assert_int_equal(h_do(r, dev, &h), 0);
	h_init(&h, BS_OP_MAP_STATUS, MiB, 0, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_true(h.io.mapped);
	assert_int_equal(h.io.map_len, 4096);
	h_init(&h, BS_OP_DISCARD, MiB, 4096, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	h_init(&h, BS_OP_MAP_STATUS, MiB - 512, 0, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_false(h.io.mapped);
	assert_int_equal(h.io.map_len, 4096 + 512);
	h_init(&h, BS_OP_READ, MiB, 4096, buf);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_true(h_all_zero(buf, 4096));
	bs_close(dev);
	reactor_destroy(r);
}

/* ---- two reactor threads writing one device at once ---- */

enum { CW_BLOCKS = 512, CW_BS = 512, CW_ROUNDS = 200 };

struct writer {
	struct reactor *r;
	struct bs_dev *dev;
	unsigned id; /* 0 or 1: writes blocks with (block % 2) == id */
	unsigned errors;
	uint8_t (*buf)[CW_BS];
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	static __thread struct h_io hs[CW_BLOCKS / 2];
	struct h_io *ptrs[CW_BLOCKS / 2];

	for (unsigned round = 0; round < CW_ROUNDS; round++) {
		int n = 0;

		for (unsigned b = w->id; b < CW_BLOCKS; b += 2) {
			memset(w->buf[b], (int)(round * 2 + w->id + b), CW_BS);
			h_init(&hs[n], BS_OP_WRITE, (uint64_t)b * CW_BS, CW_BS, w->buf[b]);
			ptrs[n] = &hs[n];
			n++;
		}
		if (h_run(w->r, w->dev, ptrs, n) != 0)
			w->errors++;
		for (int i = 0; i < n; i++)
			w->errors += hs[i].err != 0;
	}
	return NULL;
}

static void test_concurrent_writers(void **state)
{
	struct bs_dev *dev = open_ram(64 * MiB, false);
	struct writer w[2];
	pthread_t t[2];
	static uint8_t bufs[2][CW_BLOCKS][CW_BS];

	/* Blocks interleave, so both threads hit the same fresh chunks at the
	 * same time (first-write mapping races). */
	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct writer){.dev = dev, .id = i, .buf = bufs[i]};
		assert_int_equal(reactor_create(&w[i].r, i), 0);
	}
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer_thread, &w[i]), 0);
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].errors, 0);
	}
	/* Every block holds its writer's last round. */
	struct reactor *r;
	uint8_t *all = malloc(CW_BLOCKS * CW_BS);
	struct h_io h;
	uint8_t want[CW_BS];

	assert_int_equal(reactor_create(&r, 9), 0);
	h_init(&h, BS_OP_READ, 0, CW_BLOCKS * CW_BS, all);
	assert_int_equal(h_do(r, dev, &h), 0);
	for (unsigned b = 0; b < CW_BLOCKS; b++) {
		unsigned id = b % 2;

		memset(want, (int)((CW_ROUNDS - 1) * 2 + id + b), CW_BS);
		if (memcmp(all + (size_t)b * CW_BS, want, CW_BS) != 0)
			fail_msg("block %u has the wrong contents", b);
	}
	h_init(&h, BS_OP_MAP_STATUS, 0, 0, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_true(h.io.mapped);
	assert_int_equal(h.io.map_len, 4 * 65536);
	free(all);
	reactor_destroy(r);
	for (unsigned i = 0; i < 2; i++)
		reactor_destroy(w[i].r);
	bs_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open),
	    cmocka_unit_test_setup_teardown(test_fresh_reads_zero, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_read_iovecs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lend, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_zeroes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bounds_and_sync, setup, teardown),
	    cmocka_unit_test(test_readonly_and_odd_size),
	    cmocka_unit_test(test_concurrent_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
