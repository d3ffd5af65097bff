/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hmap.c: open-addressing hash map (hmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hmap.h"

#define HMAP_MIN_CAP 16u

/* key == NULL: empty; key == hmap_tomb: deleted */
struct hmap_slot {
	char *key;
	size_t klen;
	uint64_t hash;
	uintptr_t val;
};

static char hmap_tomb_mark;
#define HMAP_TOMB (&hmap_tomb_mark)

static uint64_t hmap_hash(const void *key, size_t klen)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */

	for (size_t i = 0; i < klen; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	/* FNV's low bits hardly depend on the last bytes (the multiplication
	 * carries upwards only): keys that differ at their end (LUN numbers)
	 * would cluster in the table. A 64-bit finalizer mixes every bit down. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Index of the slot holding key, or of the slot where it would go (the first
 * tombstone met, else the empty slot ending the probe). *found tells which. */
static size_t hmap_probe(const struct hmap *m, const void *key, size_t klen, uint64_t h,
			 bool *found)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask, tomb = SIZE_MAX;

	for (;;) {
		const struct hmap_slot *s = &m->v[i];

		if (!s->key) {
			*found = false;
			return tomb != SIZE_MAX ? tomb : i;
		}
		if (s->key == HMAP_TOMB) {
			if (tomb == SIZE_MAX)
				tomb = i;
		} else if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
}

static int hmap_resize(struct hmap *m, size_t cap)
{
	struct hmap_slot *old = m->v, *nv;
	size_t oldcap = m->cap;

	nv = calloc(cap, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	m->v = nv;
	m->cap = cap;
	m->tombs = 0;
	for (size_t i = 0; i < oldcap; i++) {
		struct hmap_slot *s = &old[i];
		size_t j;

		if (!s->key || s->key == HMAP_TOMB)
			continue;
		for (j = (size_t)s->hash & (cap - 1); nv[j].key; j = (j + 1) & (cap - 1))
			;
		nv[j] = *s;
	}
	free(old);
	return 0;
}

int hmap_put(struct hmap *m, const void *key, size_t klen, uintptr_t val)
{
	uint64_t h = hmap_hash(key, klen);
	struct hmap_slot *s;
	bool found;
	size_t i;
	char *k;

	if (!m->cap || (m->n + m->tombs + 1) * 4 > m->cap * 3) {
		/* grow when live entries fill half of it, else just drop tombstones */
		size_t cap = m->cap ? m->cap : HMAP_MIN_CAP;

		while ((m->n + 1) * 2 > cap)
			cap *= 2;
		if (hmap_resize(m, cap))
			return -ENOMEM;
	}
	i = hmap_probe(m, key, klen, h, &found);
	s = &m->v[i];
	if (found) {
		s->val = val;
		return 0;
	}
	k = malloc(klen ? klen : 1);
	if (!k)
		return -ENOMEM;
	memcpy(k, key, klen);
	if (s->key == HMAP_TOMB)
		m->tombs--;
	*s = (struct hmap_slot){.key = k, .klen = klen, .hash = h, .val = val};
	m->n++;
	return 0;
}

bool hmap_get(const struct hmap *m, const void *key, size_t klen, uintptr_t *val)
{
	bool found;
	size_t i;

	if (!m->cap)
		return false;
	i = hmap_probe(m, key, klen, hmap_hash(key, klen), &found);
	if (found && val)
		*val = m->v[i].val;
	return found;
}

bool hmap_del(struct hmap *m, const void *key, size_t klen)
{
	bool found;
	size_t i;

	if (!m->cap)
		return false;
	i = hmap_probe(m, key, klen, hmap_hash(key, klen), &found);
	if (!found)
		return false;
	free(m->v[i].key);
	m->v[i].key = HMAP_TOMB;
	m->n--;
	m->tombs++;
	return true;
}

void hmap_clear(struct hmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].key && m->v[i].key != HMAP_TOMB)
			free(m->v[i].key);
	free(m->v);
	*m = (struct hmap)HMAP_INIT;
}

bool hmap_next(const struct hmap *m, size_t *pos, const void **key, size_t *klen, uintptr_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		const struct hmap_slot *s = &m->v[*pos];

		if (!s->key || s->key == HMAP_TOMB)
			continue;
		*key = s->key;
		*klen = s->klen;
		*val = s->val;
		(*pos)++;
		return true;
	}
	return false;
}
