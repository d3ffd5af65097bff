/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/pi.c, the protection information store, over
 * two RAM devices driven through a reactor:
 *
 *   core --> pi wrapper --+--> data   (1 MiB, 2048 blocks of 512)
 *                         +--> tuples (2048 x 8 bytes, stored inverted)
 *
 * A fresh store reads escape tuples (all FFh); a WRITE without tuples gets
 * generated ones (guard, 0000h, LBA; type 3: FFFFFFFFh), with given tuples
 * stores those, across split iovecs too; WRITE ZEROES and DISCARD give the
 * escape back; a READ without io->pi is the data alone; a tuple store error
 * fails the request at the data block; a tuple store too small is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backstore/backstore.h"
#include "backstore/fault.h"
#include "backstore/pi.h"
#include "bs_harness.h"
#include "lib/endian.h"

#define BSZ	512u
#define NBLOCKS 2048u

struct fix {
	struct reactor *r;
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_int_equal(reactor_create(&f->r, 0), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	reactor_destroy(f->r);
	free(f);
	return 0;
}

static struct bs_dev *ram(const char *name, uint64_t size)
{
	struct bs_params p = {.type = "ram", .name = name, .size = size, .block_size = BSZ};
	struct bs_dev *dev;

	assert_int_equal(bs_open(&p, &dev), 0);
	return dev;
}

static struct bs_dev *pi_dev(enum t10pi_type type, struct bs_dev *tuples)
{
	struct bs_dev *data = ram("p0", (uint64_t)NBLOCKS * BSZ), *dev;

	if (!tuples)
		tuples = ram("p0.pi", (uint64_t)NBLOCKS * T10PI_TUPLE_LEN);
	assert_int_equal(bs_pi_wrap(data, tuples, type, BSZ, &dev), 0);
	assert_true(dev->caps & BS_CAP_PI);
	assert_int_equal(dev->size, data->size);
	assert_string_equal(dev->name, "p0");
	return dev;
}

static int run(struct fix *f, struct bs_dev *dev, uint8_t op, uint64_t lba, uint32_t blocks,
	       void *buf, uint8_t *tuples, uint64_t *bad_off)
{
	struct h_io h;
	struct h_io *ios[1] = {&h};

	h_init(&h, op, lba * BSZ, (uint64_t)blocks * BSZ, buf);
	h.io.pi = tuples;
	assert_int_equal(h_run(f->r, dev, ios, 1), 0);
	assert_int_equal(h.calls, 1);
	if (bad_off)
		*bad_off = h.io.bad_off;
	return h.err;
}

static void expect_tuple(const uint8_t *t, uint16_t guard, uint16_t app, uint32_t ref)
{
	assert_int_equal(get_be16(t), guard);
	assert_int_equal(get_be16(t + 2), app);
	assert_int_equal(get_be32(t + 4), ref);
}

static void test_escape_then_generated(void **state)
{
	struct fix *f = *state;
	struct bs_dev *dev = pi_dev(T10PI_TYPE1, NULL);
	uint8_t data[4 * BSZ], back[4 * BSZ], t[4 * T10PI_TUPLE_LEN];

	/* never written: the escape */
	assert_int_equal(run(f, dev, BS_OP_READ, 100, 4, back, t, NULL), 0);
	for (unsigned i = 0; i < sizeof(t); i++)
		assert_int_equal(t[i], 0xff);

	h_pattern(data, sizeof(data), 7);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 100, 4, data, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 100, 4, back, t, NULL), 0);
	assert_memory_equal(back, data, sizeof(data));
	for (unsigned i = 0; i < 4; i++)
		expect_tuple(t + i * T10PI_TUPLE_LEN, t10pi_crc(data + i * BSZ, BSZ), 0, 100 + i);
	/* a read without io->pi is the data alone */
	memset(back, 0, sizeof(back));
	assert_int_equal(run(f, dev, BS_OP_READ, 100, 4, back, NULL, NULL), 0);
	assert_memory_equal(back, data, sizeof(data));
	bs_close(dev);
}

static void test_given_tuples_and_type3(void **state)
{
	struct fix *f = *state;
	struct bs_dev *dev = pi_dev(T10PI_TYPE3, NULL);
	uint8_t data[2 * BSZ], back[2 * BSZ], t[2 * T10PI_TUPLE_LEN], tb[sizeof(t)];

	h_pattern(data, sizeof(data), 9);
	for (unsigned i = 0; i < sizeof(t); i++)
		t[i] = (uint8_t)(0x30 + i);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 5, 2, data, t, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 5, 2, back, tb, NULL), 0);
	assert_memory_equal(tb, t, sizeof(t));
	/* generated, type 3: the reference tag is FFFFFFFFh */
	assert_int_equal(run(f, dev, BS_OP_WRITE, 5, 2, data, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 5, 2, back, tb, NULL), 0);
	expect_tuple(tb, t10pi_crc(data, BSZ), 0, 0xffffffffu);
	expect_tuple(tb + T10PI_TUPLE_LEN, t10pi_crc(data + BSZ, BSZ), 0, 0xffffffffu);
	bs_close(dev);
}

/* set_pi_type() (FORMAT UNIT): the tuples generated afterwards are of the
 * new type; the stored ones stay as they were. */
static void test_set_type(void **state)
{
	struct fix *f = *state;
	struct bs_dev *dev = pi_dev(T10PI_TYPE1, NULL);
	uint8_t data[BSZ], back[BSZ], t[T10PI_TUPLE_LEN];

	h_pattern(data, sizeof(data), 3);
	assert_non_null(dev->ops->set_pi_type);
	dev->ops->set_pi_type(dev, T10PI_TYPE3);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 40, 1, data, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 40, 1, back, t, NULL), 0);
	expect_tuple(t, t10pi_crc(data, BSZ), 0, 0xffffffffu);
	dev->ops->set_pi_type(dev, T10PI_TYPE1);
	assert_int_equal(run(f, dev, BS_OP_READ, 40, 1, back, t, NULL), 0);
	expect_tuple(t, t10pi_crc(data, BSZ), 0, 0xffffffffu);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 41, 1, data, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 41, 1, back, t, NULL), 0);
	expect_tuple(t, t10pi_crc(data, BSZ), 0, 41);
	bs_close(dev);
}

/* the guard of a block that straddles two iovecs */
static void test_split_iovecs(void **state)
{
	struct fix *f = *state;
	struct bs_dev *dev = pi_dev(T10PI_TYPE1, NULL);
	uint8_t data[2 * BSZ], back[2 * BSZ], t[2 * T10PI_TUPLE_LEN];
	struct h_io h;
	struct h_io *ios[1] = {&h};

	h_pattern(data, sizeof(data), 3);
	h_init(&h, BS_OP_WRITE, 0, sizeof(data), NULL);
	h.iov[0] = (struct iovec){.iov_base = data, .iov_len = 300};
	h.iov[1] = (struct iovec){.iov_base = data + 300, .iov_len = 500};
	h.iov[2] = (struct iovec){.iov_base = data + 800, .iov_len = sizeof(data) - 800};
	h.io.iovcnt = 3;
	assert_int_equal(h_run(f->r, dev, ios, 1), 0);
	assert_int_equal(h.err, 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 0, 2, back, t, NULL), 0);
	expect_tuple(t, t10pi_crc(data, BSZ), 0, 0);
	expect_tuple(t + T10PI_TUPLE_LEN, t10pi_crc(data + BSZ, BSZ), 0, 1);
	bs_close(dev);
}

static void test_zeroes_give_escape(void **state)
{
	struct fix *f = *state;
	struct bs_dev *dev = pi_dev(T10PI_TYPE1, NULL);
	uint8_t data[8 * BSZ], t[8 * T10PI_TUPLE_LEN];

	h_pattern(data, sizeof(data), 1);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 16, 8, data, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_WRITE_ZEROES, 16, 4, NULL, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_DISCARD, 22, 2, NULL, NULL, NULL), 0);
	assert_int_equal(run(f, dev, BS_OP_READ, 16, 8, data, t, NULL), 0);
	assert_true(h_all_zero(data, 4 * BSZ));
	for (unsigned i = 0; i < 8; i++) {
		bool escape = i < 4 || i >= 6;

		assert_int_equal(get_be16(t + i * T10PI_TUPLE_LEN + 2), escape ? 0xffff : 0x0000);
	}
	assert_int_equal(run(f, dev, BS_OP_FLUSH, 0, 0, NULL, NULL, NULL), 0);
	bs_close(dev);
}

/* an error of the tuple store is the data block's */
static void test_tuple_error(void **state)
{
	struct fix *f = *state;
	struct bs_fault_params fp = {.error_rate_ppm = 1000000, .block_size = BSZ};
	struct bs_dev *tuples = ram("p0.pi", (uint64_t)NBLOCKS * T10PI_TUPLE_LEN), *ft, *dev;
	static uint8_t data[64 * BSZ], t[64 * T10PI_TUPLE_LEN];
	uint64_t bad;

	/* every request of 512 bytes or more of the tuple store fails, at its
	 * first 512-byte block */
	assert_int_equal(bs_fault_wrap(tuples, &fp, &ft), 0);
	dev = pi_dev(T10PI_TYPE1, ft);
	/* blocks 192..255: tuples at 1536..2047 */
	assert_int_equal(run(f, dev, BS_OP_READ, 192, 64, data, t, &bad), -EIO);
	assert_int_equal(bad, (uint64_t)192 * BSZ);
	assert_int_equal(run(f, dev, BS_OP_WRITE, 192, 64, data, NULL, &bad), -EIO);
	assert_int_equal(bad, (uint64_t)192 * BSZ);
	/* blocks 200..263: the store names 1536, before the request's tuples
	 * (1600): the request's first block */
	assert_int_equal(run(f, dev, BS_OP_READ, 200, 64, data, t, &bad), -EIO);
	assert_int_equal(bad, (uint64_t)200 * BSZ);
	/* without tuples the data alone: no error */
	assert_int_equal(run(f, dev, BS_OP_READ, 192, 64, data, NULL, NULL), 0);
	bs_close(dev);
}

static void test_bad_params(void **state)
{
	struct bs_dev *data = ram("p0", (uint64_t)NBLOCKS * BSZ);
	struct bs_dev *small = ram("p0.pi", (uint64_t)NBLOCKS * T10PI_TUPLE_LEN - 8), *dev;

	(void)state;
	assert_int_equal(bs_pi_wrap(data, small, T10PI_TYPE1, BSZ, &dev), -EINVAL);
	assert_null(dev);
	assert_int_equal(bs_pi_wrap(data, small, T10PI_NONE, BSZ, &dev), -EINVAL);
	assert_int_equal(bs_pi_wrap(data, small, T10PI_TYPE1, 100, &dev), -EINVAL);
	bs_close(small);
	bs_close(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_escape_then_generated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_given_tuples_and_type3, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_set_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_split_iovecs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_zeroes_give_escape, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tuple_error, setup, teardown),
	    cmocka_unit_test(test_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
