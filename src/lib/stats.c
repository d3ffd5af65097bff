/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c: per-reactor shards of counters and the histogram arithmetic
 * (stats.h). */
#include "lib/stats.h"

#include <stdlib.h>
#include <string.h>

/* a shard starts on its own cache line: two reactors never write one */
#define SHARD_ALIGN 64u

static _Atomic uint64_t lost_updates;

void stats_set_init(struct stats_set *s, size_t words)
{
	s->words = words;
	for (unsigned i = 0; i < STATS_SLOTS; i++)
		atomic_init(&s->slot[i], NULL);
}

void stats_set_fini(struct stats_set *s)
{
	for (unsigned i = 0; i < STATS_SLOTS; i++) {
		free(atomic_load_explicit(&s->slot[i], memory_order_acquire));
		atomic_store_explicit(&s->slot[i], NULL, memory_order_relaxed);
	}
}

_Atomic uint64_t *stats_shard_alloc(struct stats_set *s, unsigned slot)
{
	size_t bytes = (s->words * sizeof(uint64_t) + SHARD_ALIGN - 1) / SHARD_ALIGN * SHARD_ALIGN;
	_Atomic uint64_t *w, *none = NULL;

	w = aligned_alloc(SHARD_ALIGN, bytes ? bytes : SHARD_ALIGN);
	if (!w) {
		atomic_fetch_add_explicit(&lost_updates, 1, memory_order_relaxed);
		return NULL;
	}
	for (size_t i = 0; i < s->words; i++)
		atomic_init(&w[i], 0);
	/* slot 0 is shared between threads: the first one's shard wins */
	if (!atomic_compare_exchange_strong_explicit(&s->slot[slot], &none, w, memory_order_acq_rel,
						     memory_order_acquire)) {
		free(w);
		return none;
	}
	return w;
}

void stats_set_sum(const struct stats_set *s, uint64_t *out)
{
	memset(out, 0, s->words * sizeof(*out));
	for (unsigned i = 0; i < STATS_SLOTS; i++) {
		_Atomic uint64_t *w = atomic_load_explicit(&s->slot[i], memory_order_acquire);

		if (!w)
			continue;
		for (size_t j = 0; j < s->words; j++)
			out[j] += atomic_load_explicit(&w[j], memory_order_relaxed);
	}
}

uint64_t stats_lost_updates(void)
{
	return atomic_load_explicit(&lost_updates, memory_order_relaxed);
}

uint64_t stats_hist_bound(unsigned b)
{
	unsigned k, sub;

	if (b == 0)
		return 1ull << STATS_HIST_MIN_SHIFT;
	if (b >= STATS_HIST_BUCKETS - 1)
		return UINT64_MAX;
	/* bucket 1 + (k << SUB_BITS) + sub: [2^(MIN+k) * (16 + sub) / 16, ...) */
	k = (b - 1) >> STATS_HIST_SUB_BITS;
	sub = (b - 1) & ((1u << STATS_HIST_SUB_BITS) - 1);
	return ((1ull << STATS_HIST_SUB_BITS) + sub + 1)
	       << (STATS_HIST_MIN_SHIFT + k - STATS_HIST_SUB_BITS);
}

uint64_t stats_hist_quantile(const uint64_t *buckets, double q)
{
	uint64_t n = 0, want, seen = 0;

	for (unsigned b = 0; b < STATS_HIST_BUCKETS; b++)
		n += buckets[b];
	if (!n)
		return 0;
	want = stats_quantile_rank(n, q);
	for (unsigned b = 0; b < STATS_HIST_BUCKETS; b++) {
		seen += buckets[b];
		if (seen >= want)
			return stats_hist_bound(b);
	}
	return UINT64_MAX;
}
