/* SPDX-License-Identifier: GPL-2.0-or-later */
/* index.c: name -> position indexes over a config tree (index.h).
 *
 * One hash map (lib/hmap.h) holds every entry under a typed key: a kind
 * byte, then the fields that name the object, each followed by a NUL byte
 * (names never contain NUL; numbers are stored big-endian):
 *   'B' name              back-store position
 *   'P' absolute path     file back-store position
 *   'T' target            target position
 *   'G' target tag(2)     portal group position in the target
 *   'A' target initiator  ACL position in the target
 *   'L' target ini lun(4) LUN entry position in its map (ini "" = the target's)
 *   'M' target ini bs     the same entry, by back-store
 *   'U' bs                LUN entries referencing the back-store (count)
 *   'R' id(2)             portal groups using the relative port id (count)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/index.h"
#include "lib/endian.h"
#include "lib/hmap.h"

struct cfg_index {
	struct hmap h;
};

/* A key: at most a kind, two iSCSI names, a path and a number. */
struct ix_key {
	char b[1 + 2 * (CFG_ISCSI_NAME_MAX + 1) + CFG_FULL_PATH_MAX + 16];
	size_t n;
	bool overflow;
};

static void key_start(struct ix_key *k, char kind)
{
	k->b[0] = kind;
	k->n = 1;
	k->overflow = false;
}

static void key_str(struct ix_key *k, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (k->n + len + 1 > sizeof(k->b)) {
		k->overflow = true;
		return;
	}
	memcpy(k->b + k->n, s ? s : "", len);
	k->n += len;
	k->b[k->n++] = '\0';
}

static void key_u16(struct ix_key *k, uint16_t v)
{
	put_be16((uint8_t *)k->b + k->n, v);
	k->n += 2;
}

static void key_u32(struct ix_key *k, uint32_t v)
{
	put_be32((uint8_t *)k->b + k->n, v);
	k->n += 4;
}

static long ix_get(const struct cfg_index *ix, const struct ix_key *k)
{
	uintptr_t v;

	if (k->overflow || !hmap_get(&ix->h, k->b, k->n, &v))
		return -1;
	return (long)v;
}

static int ix_put(struct cfg_index *ix, const struct ix_key *k, size_t pos)
{
	if (k->overflow)
		return -ENAMETOOLONG;
	return hmap_put(&ix->h, k->b, k->n, pos);
}

/* First wins: a later duplicate is left for verification to report. */
static int ix_put_first(struct cfg_index *ix, const struct ix_key *k, size_t pos)
{
	if (k->overflow || hmap_get(&ix->h, k->b, k->n, NULL))
		return 0;
	return hmap_put(&ix->h, k->b, k->n, pos);
}

static void ix_del(struct cfg_index *ix, const struct ix_key *k)
{
	if (!k->overflow)
		hmap_del(&ix->h, k->b, k->n);
}

/* Counters ('U', 'R'): add delta (+1/-1); the entry goes at 0. */
static int ix_count(struct cfg_index *ix, const struct ix_key *k, int delta)
{
	uintptr_t v = 0;

	if (k->overflow)
		return -ENAMETOOLONG;
	hmap_get(&ix->h, k->b, k->n, &v);
	if (delta < 0 && v <= 1) {
		hmap_del(&ix->h, k->b, k->n);
		return 0;
	}
	return hmap_put(&ix->h, k->b, k->n, delta < 0 ? v - 1 : v + 1);
}

/* ---- keys ---- */
static void key_bs(struct ix_key *k, const char *name)
{
	key_start(k, 'B');
	key_str(k, name);
}

static void key_target(struct ix_key *k, const char *name)
{
	key_start(k, 'T');
	key_str(k, name);
}

static void key_tpg(struct ix_key *k, const char *t, uint16_t tag)
{
	key_start(k, 'G');
	key_str(k, t);
	key_u16(k, tag);
}

static void key_acl(struct ix_key *k, const char *t, const char *ini)
{
	key_start(k, 'A');
	key_str(k, t);
	key_str(k, ini);
}

int cfg_acl_key(const struct cfg_acl *a, char *buf, size_t size)
{
	size_t n = 0;
	int w;

	if (a->initiator) {
		w = snprintf(buf, size, "%s", a->initiator);
		return w < 0 || (size_t)w >= size ? -ENAMETOOLONG : 0;
	}
	/* by address only: "@" and its networks as written */
	w = snprintf(buf, size, "@");
	for (size_t i = 0; w >= 0 && i < a->naddresses; i++) {
		n += (size_t)w;
		if (n >= size)
			return -ENAMETOOLONG;
		w = snprintf(buf + n, size - n, "%s%s", i ? "," : "", a->addresses[i]);
	}
	if (w < 0 || n + (size_t)w >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* 'A' key of an ACL (its initiator, or "@" + networks); false if too long. */
static bool key_acl_of(struct ix_key *k, const char *t, const struct cfg_acl *a)
{
	char name[CFG_ACL_KEY_MAX];

	if (cfg_acl_key(a, name, sizeof(name)))
		return false;
	key_acl(k, t, name);
	return !k->overflow;
}

static void key_lun(struct ix_key *k, const char *t, const char *ini, uint32_t lun)
{
	key_start(k, 'L');
	key_str(k, t);
	key_str(k, ini);
	key_u32(k, lun);
}

static void key_lun_bs(struct ix_key *k, const char *t, const char *ini, const char *bs)
{
	key_start(k, 'M');
	key_str(k, t);
	key_str(k, ini);
	key_str(k, bs);
}

static void key_refs(struct ix_key *k, const char *bs)
{
	key_start(k, 'U');
	key_str(k, bs);
}

static void key_rel(struct ix_key *k, uint16_t id)
{
	key_start(k, 'R');
	key_u16(k, id);
}

/* 'P' key of a file back-store; false when it has no path (or too long). */
static bool key_path(struct ix_key *k, const struct cfg *c, const struct cfg_backstore *b)
{
	char path[CFG_FULL_PATH_MAX];

	/* dedup back-stores share their store's directory by design */
	if (!b->path || cfg_bs_shares_path(b) || cfg_bs_path(c, b, path, sizeof(path)))
		return false;
	key_start(k, 'P');
	key_str(k, path);
	return !k->overflow;
}

/* ---- lookups ---- */
long cfg_ix_bs(const struct cfg_index *ix, const char *name)
{
	struct ix_key k;

	key_bs(&k, name);
	return ix_get(ix, &k);
}

long cfg_ix_path(const struct cfg_index *ix, const char *abs_path)
{
	struct ix_key k;

	key_start(&k, 'P');
	key_str(&k, abs_path);
	return ix_get(ix, &k);
}

long cfg_ix_target(const struct cfg_index *ix, const char *name)
{
	struct ix_key k;

	key_target(&k, name);
	return ix_get(ix, &k);
}

long cfg_ix_tpg(const struct cfg_index *ix, const char *target, uint16_t tag)
{
	struct ix_key k;

	key_tpg(&k, target, tag);
	return ix_get(ix, &k);
}

long cfg_ix_acl(const struct cfg_index *ix, const char *target, const char *initiator)
{
	struct ix_key k;

	key_acl(&k, target, initiator);
	return ix_get(ix, &k);
}

long cfg_ix_lun(const struct cfg_index *ix, const char *target, const char *initiator, uint32_t lun)
{
	struct ix_key k;

	key_lun(&k, target, initiator, lun);
	return ix_get(ix, &k);
}

long cfg_ix_lun_bs(const struct cfg_index *ix, const char *target, const char *initiator,
		   const char *backstore)
{
	struct ix_key k;

	key_lun_bs(&k, target, initiator, backstore);
	return ix_get(ix, &k);
}

unsigned cfg_ix_bs_refs(const struct cfg_index *ix, const char *name)
{
	struct ix_key k;
	long v;

	key_refs(&k, name);
	v = ix_get(ix, &k);
	return v < 0 ? 0 : (unsigned)v;
}

unsigned cfg_ix_rel_port(const struct cfg_index *ix, uint16_t id)
{
	struct ix_key k;
	long v;

	key_rel(&k, id);
	v = ix_get(ix, &k);
	return v < 0 ? 0 : (unsigned)v;
}

/* ---- maintenance ---- */
int cfg_ix_put_bs(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b,
		  size_t pos)
{
	struct ix_key k, p;
	int rc;

	key_bs(&k, b->name);
	rc = ix_put_first(ix, &k, pos);
	if (rc)
		return rc;
	if (key_path(&p, c, b)) {
		rc = ix_put_first(ix, &p, pos);
		if (rc) {
			ix_del(ix, &k);
			return rc;
		}
	}
	return 0;
}

/* Remove the entries only when they point at this back-store's position
 * (a duplicate that was never indexed must not remove the original). */
void cfg_ix_del_bs(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b)
{
	struct ix_key k, p;
	long pos;

	key_bs(&k, b->name);
	pos = ix_get(ix, &k);
	if (pos < 0 || (size_t)pos >= c->nbs || &c->bs[pos] != b)
		return;
	ix_del(ix, &k);
	if (key_path(&p, c, b) && ix_get(ix, &p) == pos)
		ix_del(ix, &p);
}

void cfg_ix_bs_pos(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b,
		   size_t pos)
{
	struct ix_key k;

	key_bs(&k, b->name);
	if (ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
	if (key_path(&k, c, b) && ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
}

int cfg_ix_put_lun(struct cfg_index *ix, const char *target, const char *initiator,
		   const struct cfg_lun *l, size_t pos)
{
	struct ix_key k, m, u;
	int rc;

	key_lun(&k, target, initiator, l->lun);
	key_lun_bs(&m, target, initiator, l->backstore);
	key_refs(&u, l->backstore);
	rc = ix_put_first(ix, &k, pos);
	if (rc)
		return rc;
	rc = ix_put_first(ix, &m, pos);
	if (!rc)
		rc = ix_count(ix, &u, +1);
	if (rc) {
		ix_del(ix, &k);
		if (ix_get(ix, &m) == (long)pos)
			ix_del(ix, &m);
	}
	return rc;
}

void cfg_ix_del_lun(struct cfg_index *ix, const char *target, const char *initiator,
		    const struct cfg_lun *l)
{
	struct ix_key k, m, u;
	long pos;

	key_lun(&k, target, initiator, l->lun);
	key_lun_bs(&m, target, initiator, l->backstore);
	key_refs(&u, l->backstore);
	pos = ix_get(ix, &k);
	ix_del(ix, &k);
	if (ix_get(ix, &m) == pos)
		ix_del(ix, &m);
	ix_count(ix, &u, -1);
}

void cfg_ix_lun_pos(struct cfg_index *ix, const char *target, const char *initiator,
		    const struct cfg_lun *l, size_t pos)
{
	struct ix_key k;

	key_lun(&k, target, initiator, l->lun);
	if (ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
	key_lun_bs(&k, target, initiator, l->backstore);
	if (ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
}

static void ix_del_luns(struct cfg_index *ix, const char *target, const char *initiator,
			const struct cfg_lun_list *l, size_t n)
{
	for (size_t i = 0; i < n && i < l->n; i++)
		cfg_ix_del_lun(ix, target, initiator, &l->v[i]);
}

static int ix_put_luns(struct cfg_index *ix, const char *target, const char *initiator,
		       const struct cfg_lun_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		int rc = cfg_ix_put_lun(ix, target, initiator, &l->v[i], i);
		if (rc) {
			ix_del_luns(ix, target, initiator, l, i);
			return rc;
		}
	}
	return 0;
}

int cfg_ix_put_acl(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a,
		   size_t pos)
{
	char name[CFG_ACL_KEY_MAX];
	struct ix_key k;
	int rc;

	if (!key_acl_of(&k, t->name, a) || cfg_acl_key(a, name, sizeof(name)))
		return -ENAMETOOLONG;
	rc = ix_put_first(ix, &k, pos);
	if (rc || !a->has_luns)
		return rc;
	rc = ix_put_luns(ix, t->name, name, &a->luns);
	if (rc)
		ix_del(ix, &k);
	return rc;
}

void cfg_ix_del_acl(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a)
{
	char name[CFG_ACL_KEY_MAX];
	struct ix_key k;

	if (!key_acl_of(&k, t->name, a) || cfg_acl_key(a, name, sizeof(name)))
		return;
	ix_del(ix, &k);
	if (a->has_luns)
		ix_del_luns(ix, t->name, name, &a->luns, a->luns.n);
}

void cfg_ix_acl_pos(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a,
		    size_t pos)
{
	struct ix_key k;

	if (key_acl_of(&k, t->name, a) && ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
}

int cfg_ix_put_tpg(struct cfg_index *ix, const struct cfg_target *t,
		   const struct cfg_portal_group *g, size_t pos)
{
	struct ix_key k, r;
	int rc;

	key_tpg(&k, t->name, g->tag);
	rc = ix_put_first(ix, &k, pos);
	if (rc || !g->rel_port_id)
		return rc;
	key_rel(&r, g->rel_port_id);
	rc = ix_count(ix, &r, +1);
	if (rc)
		ix_del(ix, &k);
	return rc;
}

void cfg_ix_del_tpg(struct cfg_index *ix, const struct cfg_target *t,
		    const struct cfg_portal_group *g)
{
	struct ix_key k;

	key_tpg(&k, t->name, g->tag);
	ix_del(ix, &k);
	if (g->rel_port_id) {
		key_rel(&k, g->rel_port_id);
		ix_count(ix, &k, -1);
	}
}

void cfg_ix_tpg_pos(struct cfg_index *ix, const struct cfg_target *t,
		    const struct cfg_portal_group *g, size_t pos)
{
	struct ix_key k;

	key_tpg(&k, t->name, g->tag);
	if (ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
}

void cfg_ix_del_target(struct cfg_index *ix, const struct cfg_target *t)
{
	struct ix_key k;

	for (size_t g = 0; g < t->ntpgs; g++)
		cfg_ix_del_tpg(ix, t, &t->tpgs[g]);
	for (size_t a = 0; a < t->nacls; a++)
		cfg_ix_del_acl(ix, t, &t->acls[a]);
	ix_del_luns(ix, t->name, NULL, &t->luns, t->luns.n);
	key_target(&k, t->name);
	ix_del(ix, &k);
}

int cfg_ix_put_target(struct cfg_index *ix, const struct cfg_target *t, size_t pos)
{
	struct ix_key k;
	size_t g = 0, a = 0;
	int rc;

	key_target(&k, t->name);
	if (ix_get(ix, &k) >= 0)
		return 0; /* a duplicate target: its children are not indexed */
	rc = ix_put(ix, &k, pos);
	if (rc)
		return rc;
	for (; g < t->ntpgs; g++)
		if ((rc = cfg_ix_put_tpg(ix, t, &t->tpgs[g], g)))
			goto fail;
	if ((rc = ix_put_luns(ix, t->name, NULL, &t->luns)))
		goto fail;
	for (; a < t->nacls; a++)
		if ((rc = cfg_ix_put_acl(ix, t, &t->acls[a], a)))
			goto fail_luns;
	return 0;
fail_luns:
	while (a-- > 0)
		cfg_ix_del_acl(ix, t, &t->acls[a]);
	ix_del_luns(ix, t->name, NULL, &t->luns, t->luns.n);
fail:
	while (g-- > 0)
		cfg_ix_del_tpg(ix, t, &t->tpgs[g]);
	ix_del(ix, &k);
	return rc;
}

void cfg_ix_target_pos(struct cfg_index *ix, const struct cfg_target *t, size_t pos)
{
	struct ix_key k;

	key_target(&k, t->name);
	if (ix_get(ix, &k) >= 0)
		ix_put(ix, &k, pos);
}

int cfg_index_build(const struct cfg *c, struct cfg_index **out)
{
	struct cfg_index *ix = calloc(1, sizeof(*ix));
	int rc = 0;

	*out = NULL;
	if (!ix)
		return -ENOMEM;
	ix->h = (struct hmap)HMAP_INIT;
	for (size_t i = 0; i < c->nbs && !rc; i++)
		rc = cfg_ix_put_bs(ix, c, &c->bs[i], i);
	for (size_t i = 0; i < c->ntargets && !rc; i++)
		rc = cfg_ix_put_target(ix, &c->targets[i], i);
	if (rc) {
		cfg_index_free(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

void cfg_index_free(struct cfg_index *ix)
{
	if (!ix)
		return;
	hmap_clear(&ix->h);
	free(ix);
}
