/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: counters and latency histograms the data path updates without
 * sharing a cache line between reactors: one shard of 64-bit words per
 * reactor, summed when someone reads them (the statistics API, SNMP,
 * Prometheus).
 *
 * A struct stats_set is an object's counters (an LU, a session, a
 * connection, ...): `words` 64-bit words whose meaning is the owner's (an
 * enum of indexes, histograms as runs of words). A thread's shard is the
 * slot of its reactor (reactor_id() + 1, for ids below STATS_REACTORS), or
 * slot 0 for any other thread. The shard is allocated by its first update
 * (an object no reactor touches costs its slot pointers only).
 *
 * Updates: a reactor is the only writer of its shard, so an update is a
 * relaxed load and a relaxed store (a plain add, no locked instruction);
 * slot 0 is shared and uses atomic adds. Reactor ids must be unique among
 * running reactors (the daemon's pool: 0..n-1). A reader sums every shard
 * with relaxed loads: each word is exact, the words of one snapshot are not
 * one instant (a command counted in `cmds` may not be in its bytes yet).
 * An allocation failure loses the update and counts it in
 * stats_lost_updates() instead.
 *
 * Histograms (stats_hist_*): log-linear buckets of nanosecond values, 16 per
 * power of two (relative width at most 1/16) from 2^10 ns (~1 us) to 2^36
 * ns (~68.7 s); bucket 0 holds what is below 2^10 ns, the last bucket what
 * is at or above 2^36 ns. */
#ifndef UT_LIB_STATS_H
#define UT_LIB_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "lib/reactor.h"

#define STATS_REACTORS 64u
#define STATS_SLOTS    (STATS_REACTORS + 1u)

struct stats_set {
	size_t words;
	_Atomic(_Atomic uint64_t *) slot[STATS_SLOTS];
};

void stats_set_init(struct stats_set *s, size_t words);
void stats_set_fini(struct stats_set *s); /* frees the shards */
/* out[0..words) = the sum of every shard. */
void stats_set_sum(const struct stats_set *s, uint64_t *out);
/* Updates lost to allocation failures, process-wide. */
uint64_t stats_lost_updates(void);

/* Slot of the calling thread. */
static inline unsigned stats_slot(void)
{
	struct reactor *r = reactor_self();
	unsigned id;

	if (!r)
		return 0;
	id = reactor_id(r);
	return id < STATS_REACTORS ? id + 1 : 0;
}

_Atomic uint64_t *stats_shard_alloc(struct stats_set *s, unsigned slot);

/* The calling thread's shard and slot; NULL when it cannot be allocated. */
static inline _Atomic uint64_t *stats_shard(struct stats_set *s, unsigned *slot)
{
	_Atomic uint64_t *w;

	*slot = stats_slot();
	w = atomic_load_explicit(&s->slot[*slot], memory_order_acquire);
	if (unlikely(!w))
		w = stats_shard_alloc(s, *slot);
	return w;
}

/* Add v to word i of a shard of slot `slot` (stats_shard()). */
static inline void stats_word_add(_Atomic uint64_t *w, unsigned slot, size_t i, uint64_t v)
{
	if (likely(slot))
		atomic_store_explicit(&w[i], atomic_load_explicit(&w[i], memory_order_relaxed) + v,
				      memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&w[i], v, memory_order_relaxed);
}

/* Add v to word i of the calling thread's shard. */
static inline void stats_add_word(struct stats_set *s, size_t i, uint64_t v)
{
	unsigned slot;
	_Atomic uint64_t *w = stats_shard(s, &slot);

	if (likely(w))
		stats_word_add(w, slot, i, v);
}

/* ---- histograms ---- */

#define STATS_HIST_SUB_BITS  4u /* 16 buckets per power of two */
#define STATS_HIST_MIN_SHIFT 10u
#define STATS_HIST_MAX_SHIFT 36u
#define STATS_HIST_BUCKETS                                                                         \
	(((STATS_HIST_MAX_SHIFT - STATS_HIST_MIN_SHIFT) << STATS_HIST_SUB_BITS) + 2u)

/* The bucket of a value in ns. */
static inline unsigned stats_hist_bucket(uint64_t ns)
{
	unsigned msb;

	if (ns < (1ull << STATS_HIST_MIN_SHIFT))
		return 0;
	if (ns >= (1ull << STATS_HIST_MAX_SHIFT))
		return STATS_HIST_BUCKETS - 1;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	return 1u + ((msb - STATS_HIST_MIN_SHIFT) << STATS_HIST_SUB_BITS) +
	       (unsigned)((ns >> (msb - STATS_HIST_SUB_BITS)) & ((1u << STATS_HIST_SUB_BITS) - 1));
}

/* The first value (ns) of bucket b + 1, i.e. bucket b holds [lower(b),
 * stats_hist_bound(b)); UINT64_MAX for the last bucket. A Prometheus
 * `le` bound is this minus one (values are integers). */
uint64_t stats_hist_bound(unsigned b);

/* Count a value into the histogram that starts at word `base` of a shard:
 * STATS_HIST_BUCKETS bucket words, then the sum of the values (ns). */
#define STATS_HIST_WORDS (STATS_HIST_BUCKETS + 1u)
static inline void stats_hist_add(_Atomic uint64_t *w, unsigned slot, size_t base, uint64_t ns)
{
	stats_word_add(w, slot, base + stats_hist_bucket(ns), 1);
	stats_word_add(w, slot, base + STATS_HIST_BUCKETS, ns);
}

/* The value (ns) below which a fraction q (0..1) of the n counted values
 * lie, from summed bucket counts: the upper bound of the bucket that holds
 * the q-quantile (an overestimate by at most the bucket's 1/16 relative
 * width). 0 when nothing was counted. */
uint64_t stats_hist_quantile(const uint64_t *buckets, double q);

/* The nearest rank of the q-quantile (0..1) of n > 0 values: ceil(q * n)
 * in 1..n (the p99 of 3 values is the largest; the epsilon keeps 0.99 *
 * 100 at 99). */
static inline uint64_t stats_quantile_rank(uint64_t n, double q)
{
	double x = (q < 0 ? 0 : q > 1 ? 1 : q) * (double)n;
	uint64_t r = (uint64_t)x;

	if ((double)r < x - 1e-9)
		r++;
	return r < 1 ? 1 : r;
}

#endif
