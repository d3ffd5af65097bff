/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/hmap.c: insert/replace/lookup/delete, keys with
 * NUL bytes, growth past many entries with tombstones, iteration, and a
 * check against a reference (an array indexed by key number). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/hmap.h"

static void test_basic(void **state)
{
	struct hmap m = HMAP_INIT;
	uintptr_t v = 0;

	assert_false(hmap_get(&m, "a", 1, &v));
	assert_false(hmap_del(&m, "a", 1));
	assert_int_equal(hmap_put(&m, "a", 1, 7), 0);
	assert_true(hmap_get(&m, "a", 1, &v));
	assert_int_equal(v, 7);
	assert_int_equal(hmap_put(&m, "a", 1, 9), 0); /* replace */
	assert_true(hmap_get(&m, "a", 1, &v));
	assert_int_equal(v, 9);
	assert_int_equal(hmap_count(&m), 1);
	/* keys are byte strings: "a\0b" and "a\0c" and "a" differ */
	assert_int_equal(hmap_put(&m, "a\0b", 3, 1), 0);
	assert_int_equal(hmap_put(&m, "a\0c", 3, 2), 0);
	assert_true(hmap_get(&m, "a\0b", 3, &v));
	assert_int_equal(v, 1);
	assert_true(hmap_get(&m, "a\0c", 3, &v));
	assert_int_equal(v, 2);
	assert_int_equal(hmap_count(&m), 3);
	assert_true(hmap_del(&m, "a\0b", 3));
	assert_false(hmap_get(&m, "a\0b", 3, NULL));
	assert_true(hmap_get(&m, "a\0c", 3, NULL));
	assert_int_equal(hmap_count(&m), 2);
	/* the empty key is a key */
	assert_int_equal(hmap_put(&m, "", 0, 5), 0);
	assert_true(hmap_get(&m, "", 0, &v));
	assert_int_equal(v, 5);
	hmap_clear(&m);
	assert_int_equal(hmap_count(&m), 0);
	assert_false(hmap_get(&m, "a", 1, NULL));
}

#define N 20000

static void test_many(void **state)
{
	static uintptr_t ref[N];
	static bool present[N];
	struct hmap m = HMAP_INIT;
	char key[32];
	size_t pos = 0, seen = 0, klen;
	const void *k;
	uintptr_t v;

	for (int i = 0; i < N; i++) {
		int n = snprintf(key, sizeof(key), "lun:%d", i);
		ref[i] = (uintptr_t)i * 3u;
		present[i] = true;
		assert_int_equal(hmap_put(&m, key, (size_t)n, ref[i]), 0);
	}
	/* delete every third, re-insert every ninth: tombstones get reused */
	for (int i = 0; i < N; i += 3) {
		int n = snprintf(key, sizeof(key), "lun:%d", i);
		assert_true(hmap_del(&m, key, (size_t)n));
		present[i] = false;
	}
	for (int i = 0; i < N; i += 9) {
		int n = snprintf(key, sizeof(key), "lun:%d", i);
		ref[i] = 1u;
		present[i] = true;
		assert_int_equal(hmap_put(&m, key, (size_t)n, ref[i]), 0);
	}
	size_t expect = 0;
	for (int i = 0; i < N; i++) {
		int n = snprintf(key, sizeof(key), "lun:%d", i);
		expect += present[i];
		assert_int_equal(hmap_get(&m, key, (size_t)n, &v), present[i]);
		if (present[i])
			assert_int_equal(v, ref[i]);
	}
	assert_int_equal(hmap_count(&m), expect);
	while (hmap_next(&m, &pos, &k, &klen, &v)) {
		int i;
		assert_true(klen > 4 && klen < sizeof(key));
		memcpy(key, k, klen);
		key[klen] = '\0';
		assert_int_equal(sscanf(key, "lun:%d", &i), 1);
		assert_true(present[i]);
		assert_int_equal(v, ref[i]);
		seen++;
	}
	assert_int_equal(seen, expect);
	/* the table stays bounded: live entries fill at least an eighth */
	assert_true(m.cap <= 8 * (expect + 16));
	hmap_clear(&m);
}

/* insert/delete churn on a small set must not grow the table forever */
static void test_churn(void **state)
{
	struct hmap m = HMAP_INIT;
	char key[16];

	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(hmap_put(&m, key, (size_t)n, 1), 0);
		assert_true(hmap_del(&m, key, (size_t)n));
	}
	assert_int_equal(hmap_count(&m), 0);
	assert_true(m.cap <= 64);
	hmap_clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
