/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/backstore.c: the type table and the checks
 * bs_open makes for every type. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "backstore/backstore.c"

static void test_types(void **state)
{
	const char *const *t = bs_types();
	size_t n = 0;

	for (; t[n]; n++) {
		assert_true(n < BS_TYPE_COUNT);
		assert_string_equal(t[n], bs_type_table[n]->name); /* the two tables agree */
		assert_non_null(bs_type_table[n]->open);
	}
	assert_int_equal(n, BS_TYPE_COUNT);
	assert_string_equal(t[0], "file");
	assert_string_equal(t[1], "block");
	assert_string_equal(t[2], "ram");
	assert_string_equal(t[3], "null");
}

static int try_open(const char *type, const char *name, uint64_t size, uint32_t bs,
		    struct bs_dev **dev)
{
	struct bs_params p = {.type = type, .name = name, .size = size, .block_size = bs};

	return bs_open(&p, dev);
}

static void test_checks(void **state)
{
	struct bs_dev *dev = (struct bs_dev *)1;
	char long_name[80];

	assert_int_equal(bs_open(NULL, &dev), -EINVAL);
	assert_null(dev);
	assert_int_equal(try_open(NULL, "x", 1 << 20, 512, &dev), -EINVAL);
	assert_int_equal(try_open("ram", NULL, 1 << 20, 512, &dev), -EINVAL);
	assert_int_equal(try_open("tape", "x", 1 << 20, 512, &dev), -EINVAL);
	assert_int_equal(try_open("RAM", "x", 1 << 20, 512, &dev), -EINVAL);
	assert_int_equal(try_open("ram", "", 1 << 20, 512, &dev), -EINVAL);
	memset(long_name, 'n', sizeof(long_name));
	long_name[64] = '\0'; /* 64 bytes: one too many for bs_dev.name */
	assert_int_equal(try_open("ram", long_name, 1 << 20, 512, &dev), -EINVAL);
	long_name[63] = '\0';
	assert_int_equal(try_open("ram", long_name, 1 << 20, 512, &dev), 0);
	assert_string_equal(dev->name, long_name);
	bs_close(dev);
	bs_close(NULL);
	/* Block sizes: powers of two 512..65536; 0 means 512. */
	assert_int_equal(try_open("ram", "x", 1 << 20, 520, &dev), -EINVAL);
	assert_int_equal(try_open("ram", "x", 1 << 20, 256, &dev), -EINVAL);
	assert_int_equal(try_open("ram", "x", 1 << 20, 131072, &dev), -EINVAL);
	assert_int_equal(try_open("null", "x", 1000, 0, &dev), 0);
	assert_int_equal(dev->size, 512);
	bs_close(dev);
	/* The size is rounded down to whole blocks; below one block is none. */
	assert_int_equal(try_open("ram", "x", 1000000, 4096, &dev), 0);
	assert_int_equal(dev->size, 999424);
	assert_string_equal(dev->type, "ram");
	bs_close(dev);
	assert_int_equal(try_open("null", "x", 4095, 4096, &dev), -EINVAL);
	assert_null(dev);
}

static void test_iov_zero(void **state)
{
	uint8_t a[10], b[20];
	struct iovec v[2] = {{a, sizeof(a)}, {b, sizeof(b)}};

	memset(a, 1, sizeof(a));
	memset(b, 1, sizeof(b));
	bs_iov_zero(v, 2);
	for (size_t i = 0; i < sizeof(a); i++)
		assert_int_equal(a[i], 0);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_checks),
	    cmocka_unit_test(test_iov_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
