/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/fault.c over a RAM device, driven through a
 * reactor: listed read/write LBAs fail with -EIO and bad_off at the lowest
 * listed block of the range, other requests pass and move data; flush
 * errors; error kinds; a seeded rate fails the same requests on every run
 * and about the expected share; delays go through the reactor's timers
 * (the request completes no earlier than the delay); bad parameters. */
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
#include "bs_harness.h"

#define BSZ 512u

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

static struct bs_dev *ram(void)
{
	struct bs_params p = {.type = "ram", .name = "f0", .size = 1u << 20, .block_size = BSZ};
	struct bs_dev *dev;

	assert_int_equal(bs_open(&p, &dev), 0);
	return dev;
}

static struct bs_dev *wrap(const struct bs_fault_params *p)
{
	struct bs_dev *inner = ram(), *dev;

	assert_int_equal(bs_fault_wrap(inner, p, &dev), 0);
	assert_int_equal(dev->size, inner->size);
	assert_int_equal(dev->caps, inner->caps);
	assert_string_equal(dev->name, "f0");
	return dev;
}

static int run1(struct fix *f, struct bs_dev *dev, uint8_t op, uint64_t lba, uint32_t blocks,
		void *buf, uint64_t *bad_off)
{
	struct h_io h;
	struct h_io *ios[1] = {&h};

	h_init(&h, op, lba * BSZ, (uint64_t)blocks * BSZ, buf);
	assert_int_equal(h_run(f->r, dev, ios, 1), 0);
	if (bad_off)
		*bad_off = h.io.bad_off;
	return h.err;
}

static void test_lbas(void **state)
{
	struct fix *f = *state;
	const uint64_t rl[] = {100, 7, 50};
	const uint64_t wl[] = {9};
	struct bs_fault_params p = {.read_error_lbas = rl,
				    .nread = 3,
				    .write_error_lbas = wl,
				    .nwrite = 1,
				    .block_size = BSZ};
	struct bs_dev *dev = wrap(&p);
	uint8_t *buf = malloc(64 * BSZ), *back = malloc(64 * BSZ);
	uint64_t bad;

	memset(buf, 0xa5, 64 * BSZ);
	/* a write outside the write list reaches the device */
	assert_int_equal(run1(f, dev, BS_OP_WRITE, 0, 8, buf, NULL), 0);
	assert_int_equal(run1(f, dev, BS_OP_READ, 0, 7, back, NULL), 0);
	assert_memory_equal(back, buf, 7 * BSZ);
	/* a read over LBA 7: -EIO at LBA 7 */
	assert_int_equal(run1(f, dev, BS_OP_READ, 0, 8, back, &bad), -EIO);
	assert_int_equal(bad, 7 * BSZ);
	/* the lowest listed LBA of the range is named (50 before 100) */
	assert_int_equal(run1(f, dev, BS_OP_READ, 40, 64, buf, &bad), -EIO);
	assert_int_equal(bad, 50 * BSZ);
	/* just before and after a listed LBA: fine */
	assert_int_equal(run1(f, dev, BS_OP_READ, 51, 49, buf, NULL), 0);
	assert_int_equal(run1(f, dev, BS_OP_READ, 101, 1, buf, NULL), 0);
	/* writes: LBA 9 fails, and nothing of the failed write lands */
	memset(buf, 0x3c, 64 * BSZ);
	assert_int_equal(run1(f, dev, BS_OP_WRITE, 8, 2, buf, &bad), -EIO);
	assert_int_equal(bad, 9 * BSZ);
	assert_int_equal(run1(f, dev, BS_OP_READ, 8, 1, back, NULL), 0);
	assert_int_equal(back[0], 0x00);
	assert_int_equal(run1(f, dev, BS_OP_WRITE_ZEROES, 9, 1, NULL, &bad), -EIO);
	/* reads of LBA 9 and flushes pass */
	assert_int_equal(run1(f, dev, BS_OP_READ, 9, 1, back, NULL), 0);
	assert_int_equal(run1(f, dev, BS_OP_FLUSH, 0, 0, NULL, NULL), 0);
	bs_close(dev);
	free(buf);
	free(back);
}

static void test_flush_and_kinds(void **state)
{
	struct fix *f = *state;
	const uint64_t rl[] = {3};
	struct bs_fault_params p = {
	    .read_error_lbas = rl, .nread = 1, .flush_error = true, .block_size = BSZ};
	static const int want[BS_FAULT_ERROR_COUNT] = {
	    [BS_FAULT_MEDIUM] = -EIO,
	    [BS_FAULT_HARDWARE] = -EREMOTEIO,
	    [BS_FAULT_NOSPACE] = -ENOSPC,
	};
	uint8_t buf[BSZ];

	for (unsigned e = 0; e < BS_FAULT_ERROR_COUNT; e++) {
		struct bs_dev *dev;
		uint64_t bad;

		p.error = (uint8_t)e;
		dev = wrap(&p);
		assert_int_equal(run1(f, dev, BS_OP_FLUSH, 0, 0, NULL, &bad), want[e]);
		assert_int_equal(bad, UINT64_MAX);
		assert_int_equal(run1(f, dev, BS_OP_READ, 3, 1, buf, &bad), want[e]);
		/* only a medium error names the failing block */
		assert_int_equal(bad, e == BS_FAULT_MEDIUM ? 3 * BSZ : UINT64_MAX);
		bs_close(dev);
		assert_int_equal(bs_fault_error_parse(bs_fault_error_name(e)), (int)e);
	}
	assert_int_equal(bs_fault_error_parse("melted"), -1);
}

/* Which of 2000 one-block reads fail at a 10% rate, as a bitmap. */
static unsigned rate_run(struct fix *f, uint64_t seed, uint8_t *fails)
{
	struct bs_fault_params p = {.error_rate_ppm = 100000, .seed = seed, .block_size = BSZ};
	struct bs_dev *dev = wrap(&p);
	uint8_t buf[BSZ];
	unsigned n = 0;

	for (unsigned i = 0; i < 2000; i++) {
		uint64_t bad;
		int err = run1(f, dev, BS_OP_READ, i % 2048, 1, buf, &bad);

		fails[i] = err != 0;
		if (err) {
			assert_int_equal(err, -EIO);
			assert_int_equal(bad, (uint64_t)(i % 2048) * BSZ);
			n++;
		}
	}
	bs_close(dev);
	return n;
}

static void test_rate(void **state)
{
	struct fix *f = *state;
	uint8_t a[2000], b[2000], c[2000];
	unsigned na = rate_run(f, 42, a), nb = rate_run(f, 42, b), nc = rate_run(f, 43, c);

	/* 10% of 2000 = 200; binomial sd ~13: 140..260 is > 4 sd */
	assert_in_range(na, 140, 260);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, sizeof(a));
	assert_in_range(nc, 140, 260);
	assert_memory_not_equal(a, c, sizeof(a));
}

static void test_delay(void **state)
{
	struct fix *f = *state;
	struct bs_fault_params p = {.delay_us = 20000, .delay_jitter_us = 5000, .block_size = BSZ};
	struct bs_dev *dev = wrap(&p);
	uint8_t *buf = calloc(4, BSZ);
	struct h_io h[4];
	struct h_io *ios[4] = {&h[0], &h[1], &h[2], &h[3]};
	uint64_t t0;

	for (int i = 0; i < 4; i++)
		h_init(&h[i], i & 1 ? BS_OP_READ : BS_OP_WRITE, (uint64_t)i * BSZ, BSZ,
		       buf + i * BSZ);
	t0 = reactor_now_ns();
	/* all four wait on timers of the reactor at once, then complete there */
	assert_int_equal(h_run(f->r, dev, ios, 4), 0);
	assert_true(reactor_now_ns() - t0 >= 20000000u);
	/* concurrently, not one after the other (4 x 20 ms = 80 ms) */
	assert_true(reactor_now_ns() - t0 < 75000000u);
	for (int i = 0; i < 4; i++)
		assert_int_equal(h[i].err, 0);
	bs_close(dev);
	free(buf);
}

static void test_bad_params(void **state)
{
	const uint64_t beyond[] = {2048}; /* 1 MiB / 512 = 2048 blocks: 0..2047 */
	struct bs_fault_params p = {.read_error_lbas = beyond, .nread = 1, .block_size = BSZ};
	struct bs_dev *inner = ram(), *dev;

	(void)state;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), -EINVAL);
	p.nread = 0;
	p.error_rate_ppm = 1000001;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), -EINVAL);
	p.error_rate_ppm = 0;
	p.error = BS_FAULT_ERROR_COUNT;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), -EINVAL);
	p.error = 0;
	p.block_size = 1000;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), -EINVAL);
	p.block_size = BSZ;
	p.delay_us = BS_FAULT_DELAY_MAX + 1;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), -EINVAL);
	bs_close(inner); /* still the caller's after a failure */
}

/* space() is the inner back-store's: ram has none, so neither has the
 * wrapper (the logical block provisioning log page is then not listed) */
static void test_space_passthrough(void **state)
{
	struct bs_fault_params p = {.block_size = BSZ};
	struct bs_dev *dev = wrap(&p);
	uint64_t used, avail;
	bool shared;

	(void)state;
	assert_non_null(dev->ops->space);
	assert_int_equal(dev->ops->space(dev, &used, &avail, &shared), -EOPNOTSUPP);
	bs_close(dev);
}

/* The medium's size, facts and check are the inner back-store's: a stand-in
 * inner device with all three (and ram, with none of them) */
static uint64_t grown_size(struct bs_dev *dev)
{
	dev->size = 2u << 20;
	return dev->size;
}

static size_t two_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	assert_true(max >= 2);
	f[0] = (struct bs_fact){.key = "a", .value = "1"};
	f[1] = (struct bs_fact){.key = "b", .value = "2"};
	return 2;
}

static int one_finding(struct bs_dev *dev, struct bs_fact *f, size_t max, size_t *n)
{
	f[0] = (struct bs_fact){.key = "corrupt", .value = "3"};
	*n = 1;
	return 0;
}

static void test_medium_passthrough(void **state)
{
	struct bs_fault_params p = {.block_size = BSZ};
	struct bs_dev *dev = wrap(&p), *inner;
	struct bs_ops ops;
	struct bs_fact f[4];
	size_t n = 9;

	(void)state;
	/* ram: nothing to report */
	assert_int_equal(dev->ops->medium_size(dev), 0);
	assert_int_equal(dev->ops->facts(dev, f, 4), 0);
	assert_int_equal(dev->ops->check(dev, f, 4, &n), -EOPNOTSUPP);
	assert_int_equal(n, 0);
	bs_close(dev);

	/* a medium with all three */
	inner = ram();
	ops = *inner->ops;
	ops.medium_size = grown_size;
	ops.facts = two_facts;
	ops.check = one_finding;
	inner->ops = &ops;
	assert_int_equal(bs_fault_wrap(inner, &p, &dev), 0);
	assert_int_equal(dev->ops->medium_size(dev), 2u << 20);
	assert_int_equal(dev->size, 2u << 20);
	assert_int_equal(dev->ops->facts(dev, f, 4), 2);
	assert_string_equal(f[1].key, "b");
	assert_int_equal(dev->ops->check(dev, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].value, "3");
	bs_close(dev); /* closes inner through its own close */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lbas, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_flush_and_kinds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_delay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_params, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_space_passthrough, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_medium_passthrough, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
