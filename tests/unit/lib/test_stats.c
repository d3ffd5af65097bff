/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/stats.c: the histogram's buckets tile the values
 * without gaps, each at most 1/16 of its values wide from 2^10 ns to 2^36
 * ns; quantiles come from the bucket bounds; shards:
 *
 *   reactor 0 (slot 1) --\
 *   reactor 1 (slot 2) ---+--> one stats_set --> stats_set_sum()
 *   two plain threads  --/    (slot 0, atomic adds)
 *
 * every add from every thread is in the sum, exactly; a shard exists only
 * for a slot that was used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <stdlib.h>

#include "lib/stats.h"

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(STATS_HIST_BUCKETS, 26 * 16 + 2);
	assert_int_equal(stats_hist_bucket(0), 0);
	assert_int_equal(stats_hist_bucket(1023), 0);
	assert_int_equal(stats_hist_bucket(1024), 1);
	assert_int_equal(stats_hist_bucket(1024 + 63), 1);
	assert_int_equal(stats_hist_bucket(1024 + 64), 2);
	assert_int_equal(stats_hist_bucket(2047), 16);
	assert_int_equal(stats_hist_bucket(2048), 17);
	assert_int_equal(stats_hist_bucket((1ull << 36) - 1), STATS_HIST_BUCKETS - 2);
	assert_int_equal(stats_hist_bucket(1ull << 36), STATS_HIST_BUCKETS - 1);
	assert_int_equal(stats_hist_bucket(UINT64_MAX), STATS_HIST_BUCKETS - 1);
	assert_int_equal(stats_hist_bound(0), 1024);
	assert_int_equal(stats_hist_bound(1), 1088);
	assert_int_equal(stats_hist_bound(STATS_HIST_BUCKETS - 2), 1ull << 36);
	assert_true(stats_hist_bound(STATS_HIST_BUCKETS - 1) == UINT64_MAX);

	/* every bucket: its first and last value map to it, widths <= 1/16 */
	for (unsigned b = 1; b < STATS_HIST_BUCKETS - 1; b++) {
		uint64_t lo = stats_hist_bound(b - 1), hi = stats_hist_bound(b);

		assert_true(lo < hi);
		assert_int_equal(stats_hist_bucket(lo), b);
		assert_int_equal(stats_hist_bucket(hi - 1), b);
		assert_true((hi - lo) * 16 <= lo);
	}
	/* 1 us and 60 s are inside the fine range */
	assert_true(stats_hist_bucket(1000) == 0 && stats_hist_bucket(1050) == 1);
	assert_true(stats_hist_bucket(60000000000ull) < STATS_HIST_BUCKETS - 1);
}

static void test_quantile(void **state)
{
	uint64_t b[STATS_HIST_BUCKETS] = {0};

	(void)state;
	assert_int_equal(stats_hist_quantile(b, 0.5), 0);
	/* 98 values of 10 us, one of 1 ms, one of 1 s */
	b[stats_hist_bucket(10000)] += 98;
	b[stats_hist_bucket(1000000)] += 1;
	b[stats_hist_bucket(1000000000)] += 1;
	assert_int_equal(stats_hist_quantile(b, 0.5), stats_hist_bound(stats_hist_bucket(10000)));
	assert_int_equal(stats_hist_quantile(b, 0.99),
			 stats_hist_bound(stats_hist_bucket(1000000)));
	assert_int_equal(stats_hist_quantile(b, 1.0),
			 stats_hist_bound(stats_hist_bucket(1000000000)));
	/* the nearest rank: of 3 values, the p99 is the largest */
	memset(b, 0, sizeof(b));
	b[stats_hist_bucket(10000)] += 2;
	b[stats_hist_bucket(1000000)] += 1;
	assert_int_equal(stats_hist_quantile(b, 0.99),
			 stats_hist_bound(stats_hist_bucket(1000000)));
	assert_int_equal(stats_hist_quantile(b, 0.5), stats_hist_bound(stats_hist_bucket(10000)));
	/* the bound overestimates by at most 1/16 */
	assert_true(stats_hist_quantile(b, 0.5) <= 10000 + 10000 / 16 + 1);
}

#define ADDS 100000u
enum { W_ONE, W_BYTES, W_HIST, W_COUNT = W_HIST + STATS_HIST_WORDS };

static struct stats_set set;

static void add_many(void)
{
	unsigned slot;
	_Atomic uint64_t *w;

	for (unsigned i = 0; i < ADDS; i++) {
		w = stats_shard(&set, &slot);
		assert_non_null(w);
		stats_word_add(w, slot, W_ONE, 1);
		stats_word_add(w, slot, W_BYTES, 4096);
		stats_hist_add(w, slot, W_HIST, 2000);
	}
}

struct rt {
	struct reactor *r;
	struct reactor_msg m;
	pthread_t th;
};

static void rt_work(struct reactor_msg *m)
{
	struct rt *t = container_of(m, struct rt, m);

	add_many();
	reactor_stop(t->r);
}

static void *rt_main(void *arg)
{
	struct rt *t = arg;

	reactor_run(t->r);
	return NULL;
}

static void *plain_main(void *arg)
{
	(void)arg;
	add_many();
	return NULL;
}

static void test_shards(void **state)
{
	struct rt rt[2];
	pthread_t plain[2];
	uint64_t sum[W_COUNT];

	(void)state;
	stats_set_init(&set, W_COUNT);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(reactor_create(&rt[i].r, i), 0);
		rt[i].m.fn = rt_work;
		reactor_post(rt[i].r, &rt[i].m);
		assert_int_equal(pthread_create(&rt[i].th, NULL, rt_main, &rt[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&plain[i], NULL, plain_main, NULL), 0);
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(rt[i].th, NULL);
		pthread_join(plain[i], NULL);
		reactor_destroy(rt[i].r);
	}
	stats_set_sum(&set, sum);
	assert_int_equal(sum[W_ONE], 4 * ADDS);
	assert_int_equal(sum[W_BYTES], 4ull * ADDS * 4096);
	assert_int_equal(sum[W_HIST + stats_hist_bucket(2000)], 4 * ADDS);
	assert_int_equal(sum[W_HIST + STATS_HIST_BUCKETS], 4ull * ADDS * 2000);
	/* slots 0 (plain threads), 1 and 2 (reactors 0 and 1), no other */
	for (unsigned i = 0; i < STATS_SLOTS; i++)
		assert_true((atomic_load(&set.slot[i]) != NULL) == (i <= 2));
	assert_int_equal(stats_lost_updates(), 0);
	stats_set_fini(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets),
	    cmocka_unit_test(test_quantile),
	    cmocka_unit_test(test_shards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
