/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hmap.h: a hash map from byte-string keys to uintptr_t values (open
 * addressing, linear probing, tombstones; FNV-1a). Keys are copied; they are
 * byte strings with a length (they may contain NUL bytes), never C strings.
 * Lookups, insertions and deletions are O(1) on average; the table doubles
 * when three quarters full. Not thread-safe: the owner serializes. */
#ifndef UT_HMAP_H
#define UT_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_slot;

struct hmap {
	struct hmap_slot *v;
	size_t cap;   /* slots, a power of two (0: nothing allocated yet) */
	size_t n;     /* live entries */
	size_t tombs; /* deleted slots still marked */
};

#define HMAP_INIT                                                                                  \
	{                                                                                          \
		.v = NULL, .cap = 0, .n = 0, .tombs = 0                                            \
	}

/* Insert or replace. 0 or -ENOMEM (the map is unchanged then). */
int hmap_put(struct hmap *m, const void *key, size_t klen, uintptr_t val);
/* true and *val when present (val may be NULL). */
bool hmap_get(const struct hmap *m, const void *key, size_t klen, uintptr_t *val);
/* true when the key was present. */
bool hmap_del(struct hmap *m, const void *key, size_t klen);
static inline size_t hmap_count(const struct hmap *m)
{
	return m->n;
}
/* Free every key copy and the table; the map is empty and reusable. */
void hmap_clear(struct hmap *m);
/* Iterate: *pos starts at 0; returns false at the end. The map must not be
 * changed during the walk. */
bool hmap_next(const struct hmap *m, size_t *pos, const void **key, size_t *klen, uintptr_t *val);

#endif
