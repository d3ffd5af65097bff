/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/rbd.c against a real one-node Ceph cluster
 * (tests/ceph/ceph-up.sh, started by tests/ceph/with-ceph.sh, which sets
 * CEPH_CONF; the test fails without it). Each run creates its own images in
 * pool "rbd" and removes them.
 *
 *   test_rbd --(librbd, librados)--> ceph-mon + ceph-osd on 127.0.0.1
 *
 * Covered: the path grammar, refused options, a missing pool and image,
 * I/O off a reactor and on one (completions on the submitting reactor),
 * UNMAP and WRITE ZEROES reading back as zeroes over unaligned ranges,
 * MAP_STATUS, COMPARE AND WRITE (match, miscompare offset, a range beyond
 * librbd's one sector refused for the core to emulate), a resize from another
 * client seen through medium_size(), read-only, a blocklisted client
 * failing fast and reconnecting by itself. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "backstore/rbd.c"
#include "bs_harness.h"

#define IMG_SIZE (64ull << 20)
#define OBJ	 (4ull << 20)

static char img[64], conf[512];
static rados_t cl;
static rados_ioctx_t pool;

static int setup(void **state)
{
	const char *c = getenv("CEPH_CONF");
	int order = 22; /* 4 MiB objects */

	if (!c || !*c) {
		fprintf(stderr, "CEPH_CONF is not set: run through tests/ceph/with-ceph.sh\n");
		return -1;
	}
	snprintf(conf, sizeof(conf), "%s", c);
	snprintf(img, sizeof(img), "ut-unit-%d", (int)getpid());
	if (rados_create(&cl, NULL) || rados_conf_read_file(cl, conf) || rados_connect(cl) ||
	    rados_ioctx_create(cl, "rbd", &pool))
		return -1;
	return rbd_create(pool, img, IMG_SIZE, &order) ? -1 : 0;
}

static int teardown(void **state)
{
	rbd_remove(pool, img);
	rados_ioctx_destroy(pool);
	rados_shutdown(cl);
	return 0;
}

static int open_rbd(const char *path, const struct bs_option *o, size_t n, bool ro,
		    struct bs_dev **dev)
{
	struct bs_option all[8];
	struct bs_params p = {.type = "rbd",
			      .name = "r0",
			      .path = path,
			      .block_size = 512,
			      .readonly = ro,
			      .options = all,
			      .noptions = n + 1};

	all[0] = (struct bs_option){"conf", conf};
	for (size_t i = 0; i < n; i++)
		all[i + 1] = o[i];
	return bs_open(&p, dev);
}

static struct bs_dev *open_ok(void)
{
	char path[128];
	struct bs_dev *dev = NULL;

	snprintf(path, sizeof(path), "rbd/%s", img);
	assert_int_equal(open_rbd(path, NULL, 0, false, &dev), 0);
	assert_non_null(dev);
	return dev;
}

static void test_spec(void **state)
{
	char buf[64];
	const char *pool_, *ns, *image;

	assert_int_equal(rbd_spec_parse("rbd/img", buf, sizeof(buf), &pool_, &ns, &image), 0);
	assert_string_equal(pool_, "rbd");
	assert_null(ns);
	assert_string_equal(image, "img");
	assert_int_equal(rbd_spec_parse("p/ns/i", buf, sizeof(buf), &pool_, &ns, &image), 0);
	assert_string_equal(ns, "ns");
	assert_string_equal(image, "i");
	static const char *const bad[] = {"img", "/img", "rbd/", "p//i", "p/n/i/x", "p/n/", ""};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(rbd_spec_parse(bad[i], buf, sizeof(buf), &pool_, &ns, &image),
				 -EINVAL);
}

static void test_refusals(void **state)
{
	static const struct bs_option colour[] = {{"colour", "blue"}};
	static const struct bs_option t0[] = {{"timeout", "0"}};
	static const struct bs_option t5[] = {{"timeout", "5"}};
	struct bs_dev *dev = NULL;

	assert_int_equal(open_rbd("rbd/x", colour, 1, false, &dev), -EINVAL);
	assert_int_equal(open_rbd("rbd/x", t0, 1, false, &dev), -EINVAL);
	assert_int_equal(open_rbd("noslash", NULL, 0, false, &dev), -EINVAL);
	assert_int_equal(open_rbd("nosuchpool/x", t5, 1, false, &dev), -ENOENT);
	assert_int_equal(open_rbd("rbd/nosuchimage", t5, 1, false, &dev), -ENOENT);
	assert_null(dev);
}

static void test_geometry(void **state)
{
	struct bs_dev *dev = open_ok();

	assert_int_equal(dev->size, IMG_SIZE);
	assert_int_equal(dev->opt_unit, OBJ);
	assert_true(dev->caps & BS_CAP_FLUSH);
	assert_true(dev->caps & BS_CAP_DISCARD);
	assert_true(dev->caps & BS_CAP_WRITE_ZEROES);
	assert_true(dev->caps & BS_CAP_MAP_STATUS);
	assert_true(dev->caps & BS_CAP_COMPARE_WRITE);
	assert_true(dev->caps & BS_CAP_WRITE_SAME);
	assert_false(dev->caps & BS_CAP_READ_ONLY);
	assert_string_equal(dev->type, "rbd");
	bs_close(dev);
}

/* off a reactor: done() runs before submit returns */
static int sync_do(struct bs_dev *dev, struct h_io *h)
{
	bs_submit(dev, &h->io);
	assert_int_equal(h->calls, 1);
	return h->err;
}

static void test_io_off_reactor(void **state)
{
	static uint8_t a[3 * 4096], b[sizeof(a)], z[OBJ + 8192];
	struct bs_dev *dev = open_ok();
	struct h_io h;

	h_pattern(a, sizeof(a), 7);
	/* two iovecs */
	h_init(&h, BS_OP_WRITE, OBJ - 4096, sizeof(a), NULL);
	h.iov[0] = (struct iovec){a, 4096};
	h.iov[1] = (struct iovec){a + 4096, sizeof(a) - 4096};
	h.io.iovcnt = 2;
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_FLUSH, 0, 0, NULL);
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_READ, OBJ - 4096, sizeof(b), b);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_memory_equal(a, b, sizeof(a));
	/* MAP_STATUS: mapped from the write, unmapped before it */
	h_init(&h, BS_OP_MAP_STATUS, OBJ - 4096, IMG_SIZE - OBJ + 4096, NULL);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_true(h.io.mapped);
	assert_true(h.io.map_len >= sizeof(a));
	h_init(&h, BS_OP_MAP_STATUS, 8 * OBJ, IMG_SIZE - 8 * OBJ, NULL);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_false(h.io.mapped);
	assert_int_equal(h.io.map_len, IMG_SIZE - 8 * OBJ);
	/* UNMAP over an unaligned range across the object boundary reads
	 * back as zeroes (LBPRZ), the bytes around it untouched */
	h_init(&h, BS_OP_DISCARD, OBJ - 3584, 7168, NULL);
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_READ, OBJ - 4096, sizeof(b), b);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_memory_equal(b, a, 512);
	assert_true(h_all_zero(b + 512, 7168));
	assert_memory_equal(b + 512 + 7168, a + 512 + 7168, sizeof(a) - 512 - 7168);
	/* WRITE ZEROES over a whole object and more */
	memset(z, 0xa5, sizeof(z));
	h_init(&h, BS_OP_WRITE, OBJ - 4096, sizeof(z), z);
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_WRITE_ZEROES, OBJ - 512, OBJ + 1024, NULL);
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_READ, OBJ - 4096, sizeof(z), z);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_int_equal(z[4096 - 513], 0xa5);
	assert_true(h_all_zero(z + 4096 - 512, OBJ + 1024));
	assert_int_equal(z[4096 + OBJ + 512], 0xa5);
	/* WRITE SAME of one 512-byte block over 1 MiB + 512 */
	uint8_t blk[512];
	h_pattern(blk, sizeof(blk), 9);
	h_init(&h, BS_OP_WRITE_SAME, 2 * OBJ - 512, (1u << 20) + 512, NULL);
	h.iov[0] = (struct iovec){blk, sizeof(blk)};
	h.io.iovcnt = 1;
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_READ, 2 * OBJ - 4096, sizeof(z), z);
	assert_int_equal(sync_do(dev, &h), 0);
	for (size_t o = 4096 - 512; o < 4096 + (1u << 20); o += 512)
		assert_memory_equal(z + o, blk, 512);
	assert_true(h_all_zero(z + 4096 + (1u << 20), 512));
	/* beyond the end */
	h_init(&h, BS_OP_READ, IMG_SIZE, 512, b);
	assert_int_equal(sync_do(dev, &h), -EINVAL);
	bs_close(dev);
}

static void test_compare_write(void **state)
{
	static uint8_t v[512], w[512], r[512];
	struct bs_dev *dev = open_ok();
	struct h_io h;

	h_pattern(v, sizeof(v), 1);
	h_pattern(w, sizeof(w), 2);
	h_init(&h, BS_OP_WRITE, 8192, sizeof(v), v);
	assert_int_equal(sync_do(dev, &h), 0);
	/* a miscompare at byte 300: nothing written, the offset reported */
	v[300] ^= 1;
	h_init(&h, BS_OP_COMPARE_WRITE, 8192, sizeof(v), NULL);
	h.iov[0] = (struct iovec){v, sizeof(v)};
	h.iov[1] = (struct iovec){w, sizeof(w)};
	h.io.iovcnt = 2;
	assert_int_equal(sync_do(dev, &h), -EILSEQ);
	assert_int_equal(h.io.bad_off, 300);
	v[300] ^= 1;
	h_init(&h, BS_OP_READ, 8192, sizeof(r), r);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_memory_equal(r, v, sizeof(v));
	/* a match: written */
	h_init(&h, BS_OP_COMPARE_WRITE, 8192, sizeof(v), NULL);
	h.iov[0] = (struct iovec){v, sizeof(v)};
	h.iov[1] = (struct iovec){w, sizeof(w)};
	h.io.iovcnt = 2;
	assert_int_equal(sync_do(dev, &h), 0);
	h_init(&h, BS_OP_READ, 8192, sizeof(r), r);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_memory_equal(r, w, sizeof(w));
	/* more than one 512-byte sector: librbd cannot, the core emulates */
	static uint8_t v2[1024], w2[1024];
	h_init(&h, BS_OP_COMPARE_WRITE, 8192, sizeof(v2), NULL);
	h.iov[0] = (struct iovec){v2, sizeof(v2)};
	h.iov[1] = (struct iovec){w2, sizeof(w2)};
	h.io.iovcnt = 2;
	assert_int_equal(sync_do(dev, &h), -EOPNOTSUPP);
	bs_close(dev);
}

static void test_io_on_reactor(void **state)
{
	static uint8_t a[65536], b[65536];
	struct bs_dev *dev = open_ok();
	struct reactor *r;
	struct h_io w[4], f, rd;
	struct h_io *batch[5];

	assert_int_equal(reactor_create(&r, 0), 0);
	h_pattern(a, sizeof(a), 3);
	for (int i = 0; i < 4; i++) {
		h_init(&w[i], BS_OP_WRITE, 10 * OBJ + i * 16384ull, 16384, a + i * 16384);
		batch[i] = &w[i];
	}
	h_init(&f, BS_OP_FLUSH, 0, 0, NULL);
	batch[4] = &f;
	assert_int_equal(h_run(r, dev, batch, 4), 0); /* each done once, on r */
	assert_int_equal(h_run(r, dev, &batch[4], 1), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(w[i].err, 0);
	h_init(&rd, BS_OP_READ, 10 * OBJ, sizeof(b), b);
	assert_int_equal(h_do(r, dev, &rd), 0);
	assert_memory_equal(a, b, sizeof(a));
	/* MAP_STATUS through the worker pool, back on r */
	h_init(&rd, BS_OP_MAP_STATUS, 10 * OBJ, IMG_SIZE - 10 * OBJ, NULL);
	assert_int_equal(h_do(r, dev, &rd), 0);
	assert_true(rd.io.mapped);
	bs_close(dev);
	reactor_destroy(r);
}

/* another client grows the image: medium_size() sees it (update watch) */
static void test_resize_seen(void **state)
{
	struct bs_dev *dev = open_ok();
	rbd_image_t other;
	uint64_t seen = 0;

	assert_int_equal(rbd_open(pool, img, &other, NULL), 0);
	assert_int_equal(rbd_resize(other, IMG_SIZE + OBJ), 0);
	rbd_close(other);
	for (int i = 0; i < 200 && seen != IMG_SIZE + OBJ; i++) {
		usleep(50000);
		seen = dev->ops->medium_size(dev);
	}
	assert_int_equal(seen, IMG_SIZE + OBJ);
	assert_int_equal(dev->size, IMG_SIZE + OBJ);
	/* and back, through the back-store's own resize */
	assert_int_equal(dev->ops->resize(dev, IMG_SIZE), 0);
	assert_int_equal(dev->ops->medium_size(dev), IMG_SIZE);
	bs_close(dev);
}

static void test_readonly(void **state)
{
	char path[128];
	uint8_t buf[512] = {0};
	struct bs_dev *dev = NULL;
	struct h_io h;

	snprintf(path, sizeof(path), "rbd/%s", img);
	assert_int_equal(open_rbd(path, NULL, 0, true, &dev), 0);
	assert_true(dev->caps & BS_CAP_READ_ONLY);
	h_init(&h, BS_OP_WRITE, 0, 512, buf);
	assert_int_equal(sync_do(dev, &h), -EROFS);
	h_init(&h, BS_OP_READ, 0, 512, buf);
	assert_int_equal(sync_do(dev, &h), 0);
	bs_close(dev);
}

/* The cluster blocklists this client (what another client breaking its
 * exclusive lock does): requests fail at once, they do not hang, and the
 * back-store reconnects by itself (a new generation): writes succeed again
 * and read back. */
static void test_blocklisted(void **state)
{
	struct bs_dev *dev = open_ok();
	struct rbd_bs *rb = rbd_of(dev);
	uint8_t buf[4096], rbuf[4096];
	char *addrs = NULL;
	uint64_t t0;
	struct h_io h;
	int err = 0;

	h_pattern(buf, sizeof(buf), 11);
	assert_int_equal(rados_getaddrs(rb->gen->cluster, &addrs), 0);
	assert_non_null(addrs);
	assert_int_equal(rados_blocklist_add(cl, addrs, 600), 0);
	free(addrs);
	t0 = reactor_now_ns();
	h_init(&h, BS_OP_WRITE, 0, sizeof(buf), buf);
	assert_int_equal(sync_do(dev, &h), -ESHUTDOWN);
	assert_true(reactor_now_ns() - t0 < 20ull * 1000 * 1000 * 1000);
	/* reconnected within a few seconds: the same back-store writes again */
	for (int i = 0; i < 300; i++) {
		h_init(&h, BS_OP_WRITE, 0, sizeof(buf), buf);
		err = sync_do(dev, &h);
		if (err == 0)
			break;
		assert_int_equal(err, -ESHUTDOWN);
		usleep(100000);
	}
	assert_int_equal(err, 0);
	assert_true(rb->generations >= 2);
	h_init(&h, BS_OP_READ, 0, sizeof(rbuf), rbuf);
	assert_int_equal(sync_do(dev, &h), 0);
	assert_memory_equal(rbuf, buf, sizeof(buf));
	bs_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spec),	  cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_geometry),	  cmocka_unit_test(test_io_off_reactor),
	    cmocka_unit_test(test_compare_write), cmocka_unit_test(test_io_on_reactor),
	    cmocka_unit_test(test_resize_seen),	  cmocka_unit_test(test_readonly),
	    cmocka_unit_test(test_blocklisted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
