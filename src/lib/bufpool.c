/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bufpool.c: data buffers for commands.
 *
 * Contract (bufpool.h): buf_alloc(len) returns a 4 KiB aligned buffer of at
 * least len bytes (for len 0 a valid pointer that costs nothing), or NULL when memory is
 * short or the global cap would be exceeded; buf_free(p, len) takes the same
 * len that was allocated, on any thread. Callers turn NULL into back-pressure.
 *
 * Sizes up to 8 MiB are rounded up to a power-of-two class (4 KiB .. 8 MiB)
 * and recycled through a per-thread cache: a buffer freed on a thread goes to
 * that thread's cache, whichever thread allocated it. Each class keeps at
 * most 64 buffers or 16 MiB per thread, whichever is smaller; beyond that the
 * buffer goes back to malloc. A thread's cache is released when the thread
 * exits (pthread key destructor). Larger sizes are mmap'ed directly.
 *
 * Accounting: buf_in_use() counts the bytes of live buffers at their class
 * size (page-rounded for direct ones); cached free buffers do not count. The
 * counter and the cap are global atomics, checked on every allocation.
 */
#include "bufpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "compiler.h"

#define BUF_ALIGN	    4096u
#define BUF_MIN_SHIFT	    12 /* 4 KiB */
#define BUF_MAX_SHIFT	    23 /* 8 MiB */
#define BUF_NCLASS	    (BUF_MAX_SHIFT - BUF_MIN_SHIFT + 1)
#define BUF_MAX_CLASSED	    ((size_t)1 << BUF_MAX_SHIFT)
#define BUF_CACHE_MAX_COUNT 64u
#define BUF_CACHE_MAX_BYTES ((size_t)16 << 20)

struct buf_free_node {
	struct buf_free_node *next;
};

struct buf_cache {
	struct buf_free_node *head[BUF_NCLASS];
	unsigned count[BUF_NCLASS];
	bool registered; /* thread-exit destructor armed */
};

static __thread struct buf_cache buf_tls;
static pthread_key_t buf_key;
static pthread_once_t buf_key_once = PTHREAD_ONCE_INIT;
static bool buf_key_ok;

static _Atomic uint64_t buf_used;
static _Atomic uint64_t buf_cap;
static _Atomic uint64_t buf_reserved; /* live buffers taken outside the cap */

static inline unsigned buf_class(size_t len)
{
	if (len <= ((size_t)1 << BUF_MIN_SHIFT))
		return 0;
	return (unsigned)(64 - __builtin_clzll((unsigned long long)len - 1)) - BUF_MIN_SHIFT;
}

static inline size_t buf_class_size(unsigned c)
{
	return (size_t)1 << (c + BUF_MIN_SHIFT);
}

static inline unsigned buf_class_limit(unsigned c)
{
	size_t by_bytes = BUF_CACHE_MAX_BYTES / buf_class_size(c);

	return by_bytes < BUF_CACHE_MAX_COUNT ? (unsigned)by_bytes : BUF_CACHE_MAX_COUNT;
}

static size_t buf_footprint(size_t len)
{
	if (len > BUF_MAX_CLASSED)
		return UT_ALIGN_UP(len, (size_t)BUF_ALIGN);
	return buf_class_size(buf_class(len));
}

static void buf_cache_drain(struct buf_cache *bc)
{
	for (unsigned c = 0; c < BUF_NCLASS; c++) {
		struct buf_free_node *n = bc->head[c];

		while (n) {
			struct buf_free_node *next = n->next;

			free(n);
			n = next;
		}
		bc->head[c] = NULL;
		bc->count[c] = 0;
	}
}

static void buf_thread_exit(void *arg)
{
	struct buf_cache *bc = arg;

	/* A later destructor that frees a buffer re-registers (POSIX repeats
	 * destructors while values are non-NULL). */
	bc->registered = false;
	buf_cache_drain(bc);
}

static void buf_key_init(void)
{
	buf_key_ok = pthread_key_create(&buf_key, buf_thread_exit) == 0;
}

static bool buf_charge(uint64_t sz)
{
	uint64_t cap = atomic_load_explicit(&buf_cap, memory_order_relaxed);
	uint64_t now = atomic_fetch_add_explicit(&buf_used, sz, memory_order_relaxed) + sz;

	if (cap && now > cap) {
		atomic_fetch_sub_explicit(&buf_used, sz, memory_order_relaxed);
		return false;
	}
	return true;
}

static inline void buf_uncharge_from(uint64_t sz, bool reserved)
{
	atomic_fetch_sub_explicit(reserved ? &buf_reserved : &buf_used, sz, memory_order_relaxed);
}

/* What a buffer of 0 bytes points at: no memory, no charge against the
 * cap. A command without data (TEST UNIT READY, SYNCHRONIZE CACHE, ...)
 * then never waits for buffer memory nor fails for want of it. Read-only:
 * a write into a zero-length buffer faults instead of touching another
 * command's data. */
static const _Alignas(BUF_ALIGN) uint8_t buf_none[BUF_ALIGN];

static void *buf_get(size_t len, bool reserved)
{
	size_t sz;
	void *p;

	if (len == 0)
		return (void *)buf_none;
	if (len > SIZE_MAX - BUF_ALIGN)
		return NULL;
	sz = buf_footprint(len);
	if (reserved)
		atomic_fetch_add_explicit(&buf_reserved, sz, memory_order_relaxed);
	else if (!buf_charge(sz))
		return NULL;
	if (len > BUF_MAX_CLASSED) {
		p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			buf_uncharge_from(sz, reserved);
			return NULL;
		}
		return p;
	}

	struct buf_cache *bc = &buf_tls;
	unsigned c = buf_class(len);
	struct buf_free_node *n = bc->head[c];

	if (n) {
		bc->head[c] = n->next;
		bc->count[c]--;
		return n;
	}
	if (posix_memalign(&p, BUF_ALIGN, sz) != 0) {
		buf_uncharge_from(sz, reserved);
		return NULL;
	}
	return p;
}

void *buf_alloc(size_t len)
{
	return buf_get(len, false);
}

void *buf_alloc_reserved(size_t len)
{
	return buf_get(len, true);
}

void *buf_zalloc(size_t len)
{
	void *p = buf_alloc(len);

	/* Direct buffers come from fresh anonymous mappings: already zero. */
	if (p && len <= BUF_MAX_CLASSED)
		memset(p, 0, len);
	return p;
}

static void buf_put(void *p, size_t len, bool reserved)
{
	if (!p || p == buf_none)
		return;

	size_t sz = buf_footprint(len);

	buf_uncharge_from(sz, reserved);
	if (len > BUF_MAX_CLASSED) {
		munmap(p, sz);
		return;
	}

	struct buf_cache *bc = &buf_tls;
	unsigned c = buf_class(len);

	if (bc->count[c] >= buf_class_limit(c)) {
		free(p);
		return;
	}
	if (unlikely(!bc->registered)) {
		pthread_once(&buf_key_once, buf_key_init);
		if (!buf_key_ok || pthread_setspecific(buf_key, bc) != 0) {
			free(p); /* no way to release the cache at exit: do not cache */
			return;
		}
		bc->registered = true;
	}

	struct buf_free_node *n = p;

	n->next = bc->head[c];
	bc->head[c] = n;
	bc->count[c]++;
}

void buf_free(void *p, size_t len)
{
	buf_put(p, len, false);
}

void buf_free_reserved(void *p, size_t len)
{
	buf_put(p, len, true);
}

uint64_t buf_reserved_in_use(void)
{
	return atomic_load_explicit(&buf_reserved, memory_order_relaxed);
}

void buf_set_cap(uint64_t bytes)
{
	atomic_store_explicit(&buf_cap, bytes, memory_order_relaxed);
}

uint64_t buf_in_use(void)
{
	return atomic_load_explicit(&buf_used, memory_order_relaxed);
}
