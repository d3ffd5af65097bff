/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/null.c: zeroes on read, writes discarded,
 * synchronous completion, caps, bounds, read-only, resize. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "backstore/null.c"
#include "bs_harness.h"

static struct bs_dev *open_null(uint64_t size, bool ro)
{
	struct bs_params p = {.type = "null", .name = "n0", .size = size, .readonly = ro};
	struct bs_dev *dev = NULL;

	assert_int_equal(bs_open(&p, &dev), 0);
	return dev;
}

static void test_open_and_caps(void **state)
{
	struct bs_params p = {.type = "null", .name = "n0"};
	struct bs_dev *dev = (struct bs_dev *)1;

	assert_int_equal(bs_open(&p, &dev), -EINVAL); /* no size */
	assert_null(dev);
	dev = open_null(1 << 20, false);
	assert_int_equal(dev->size, 1 << 20);
	assert_int_equal(dev->caps,
			 BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_FUA);
	assert_string_equal(dev->type, "null");
	assert_string_equal(dev->name, "n0");
	bs_close(dev);
}

static void test_io(void **state)
{
	struct reactor *r;
	struct bs_dev *dev = open_null(1 << 20, false);
	uint8_t a[1000], b[3096];
	struct h_io h;

	assert_int_equal(reactor_create(&r, 0), 0);
	/* A read zeroes every buffer, across iovecs. */
	memset(a, 0xff, sizeof(a));
	memset(b, 0xff, sizeof(b));
	h_init(&h, BS_OP_READ, 4096, 4096, NULL);
	h.iov[0] = (struct iovec){a, sizeof(a)};
	h.iov[1] = (struct iovec){b, sizeof(b)};
	h.io.iovcnt = 2;
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_true(h_all_zero(a, sizeof(a)));
	assert_true(h_all_zero(b, sizeof(b)));
	/* A write is accepted and leaves nothing behind. */
	memset(b, 0x5a, sizeof(b));
	h_init(&h, BS_OP_WRITE, 0, 2048, b);
	h.io.flags = BS_IO_FUA;
	assert_int_equal(h_do(r, dev, &h), 0);
	h_init(&h, BS_OP_READ, 0, 2048, b);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_true(h_all_zero(b, 2048));
	h_init(&h, BS_OP_FLUSH, 0, 0, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	h_init(&h, BS_OP_DISCARD, 0, 1 << 20, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	h_init(&h, BS_OP_WRITE_ZEROES, 512, 512, NULL);
	assert_int_equal(h_do(r, dev, &h), 0);
	/* No map status (not declared), out of range refused. */
	h_init(&h, BS_OP_MAP_STATUS, 0, 0, NULL);
	assert_int_equal(h_do(r, dev, &h), -EOPNOTSUPP);
	h_init(&h, BS_OP_READ, (1 << 20) - 512, 1024, b);
	assert_int_equal(h_do(r, dev, &h), -EINVAL);
	/* Synchronous: done() inside submit, even off any reactor. */
	h_init(&h, BS_OP_READ, 0, 512, b);
	bs_submit(dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	/* Resize is just a number here. */
	assert_int_equal(dev->ops->resize(dev, 2 << 20), 0);
	assert_int_equal(dev->size, 2 << 20);
	assert_int_equal(dev->ops->resize(dev, 0), -EINVAL);
	bs_close(dev);

	dev = open_null(1 << 20, true);
	assert_true(dev->caps & BS_CAP_READ_ONLY);
	h_init(&h, BS_OP_WRITE, 0, 512, b);
	assert_int_equal(h_do(r, dev, &h), -EROFS);
	h_init(&h, BS_OP_READ, 0, 512, b);
	assert_int_equal(h_do(r, dev, &h), 0);
	bs_close(dev);
	reactor_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_and_caps),
	    cmocka_unit_test(test_io),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
