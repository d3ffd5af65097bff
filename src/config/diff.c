/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.c: the changes that turn one configuration tree into another
 * (reload of the file, config.apply): the smallest set of per-object
 * changes (change.h), ordered so that each one is valid when it is applied:
 *
 *   A  removals: targets, ACLs whose kind of LUN map changes, LUNs
 *      (including a LUN that moves to another back-store: removed here,
 *      added in D)
 *   B  back-stores removed (nothing maps them any more)
 *   C  global settings; back-stores added or changed
 *   D  per target: portal groups added and changed, then removed (a
 *      target keeps one); ACLs added and changed; LUNs added and changed;
 *      then the target's own fields (a target that must be rebuilt is
 *      rebuilt last, with every child change in it); targets added
 *
 * Objects equal in both trees produce nothing: their running objects and
 * sessions are not touched. Objects are compared as the file writes them
 * (cfg_object_to_json), so a field added to the model takes part without
 * code here.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/change.h"
#include "config/diff.h"
#include "lib/hmap.h"

struct diff {
	struct cfg_txn a, b, c, d;
	int rc;
};

bool cfg_object_same(enum cfg_obj_kind kind, const void *a, const void *b,
		     const char *const *ignore)
{
	json_t *ja = cfg_object_to_json(kind, a), *jb = cfg_object_to_json(kind, b);
	bool same;

	for (size_t i = 0; ja && jb && ignore && ignore[i]; i++) {
		json_object_del(ja, ignore[i]);
		json_object_del(jb, ignore[i]);
	}
	same = ja && jb && json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return same;
}

static bool json_same(enum cfg_obj_kind k, const void *x, const void *y)
{
	return cfg_object_same(k, x, y, NULL);
}

struct cfg_target cfg_target_own(const struct cfg_target *t)
{
	struct cfg_target own = *t;

	own.tpgs = NULL;
	own.ntpgs = 0;
	own.luns = (struct cfg_lun_list){0};
	own.acls = NULL;
	own.nacls = 0;
	return own;
}

/* A deep copy of an object through its JSON form. */
static int obj_copy(enum cfg_obj_kind k, const void *src, void *dst)
{
	json_t *j = cfg_object_to_json(k, src);
	struct cfg_err err;
	int rc;

	if (!j)
		return -ENOMEM;
	rc = cfg_object_from_json(k, j, dst, &err);
	json_decref(j);
	return rc;
}

static struct cfg_chg *chg(struct diff *d, struct cfg_txn *x, enum cfg_chg_kind kind,
			   const char *target, const char *initiator, const char *name)
{
	struct cfg_chg *ch;

	if (d->rc)
		return NULL;
	ch = cfg_chg_new(kind, target, initiator, name);
	if (!ch || cfg_txn_add(x, ch)) {
		d->rc = -ENOMEM;
		return NULL;
	}
	return ch;
}

/* A change carrying a copy of obj. */
static void chg_obj(struct diff *d, struct cfg_txn *x, enum cfg_chg_kind kind, enum cfg_obj_kind ok,
		    const void *obj, const char *target, const char *initiator, const char *name)
{
	struct cfg_chg *ch = chg(d, x, kind, target, initiator, name);

	if (!ch)
		return;
	ch->has_obj = true;
	if (obj_copy(ok, obj, &ch->obj))
		d->rc = -ENOMEM;
}

/* ---- LUN maps ---- */
static const struct cfg_lun *lun_find(const struct cfg_lun_list *l, struct hmap *ix, uint32_t lun)
{
	uintptr_t v;

	if (!hmap_get(ix, &lun, sizeof(lun), &v))
		return NULL;
	return &l->v[v];
}

static int lun_index(const struct cfg_lun_list *l, struct hmap *ix)
{
	for (size_t i = 0; i < l->n; i++)
		if (hmap_put(ix, &l->v[i].lun, sizeof(l->v[i].lun), i))
			return -ENOMEM;
	return 0;
}

static void diff_luns(struct diff *d, const char *target, const char *initiator,
		      const struct cfg_lun_list *o, const struct cfg_lun_list *n)
{
	struct hmap oi = HMAP_INIT, ni = HMAP_INIT;

	if (lun_index(o, &oi) || lun_index(n, &ni)) {
		d->rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < o->n; i++) {
		const struct cfg_lun *nl = lun_find(n, &ni, o->v[i].lun);
		struct cfg_chg *ch;

		if (nl && !strcmp(nl->backstore, o->v[i].backstore))
			continue;
		ch = chg(d, &d->a, CFG_CHG_LUN_DEL, target, initiator, NULL);
		if (ch)
			ch->lun = o->v[i].lun;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct cfg_lun *ol = lun_find(o, &oi, n->v[i].lun);
		struct cfg_chg *ch;

		if (!ol || strcmp(ol->backstore, n->v[i].backstore)) {
			chg_obj(d, &d->d, CFG_CHG_LUN_ADD, CFG_OBJ_LUN, &n->v[i], target, initiator,
				NULL);
		} else if (ol->read_only != n->v[i].read_only) {
			chg_obj(d, &d->d, CFG_CHG_LUN_SET, CFG_OBJ_LUN, &n->v[i], target, initiator,
				NULL);
			ch = d->rc ? NULL : d->d.v[d->d.n - 1];
			if (ch)
				ch->lun = n->v[i].lun;
		}
	}
out:
	hmap_clear(&oi);
	hmap_clear(&ni);
}

/* ---- targets ---- */
static bool acl_same_but_luns(const struct cfg_acl *a, const struct cfg_acl *b)
{
	struct cfg_acl x = *a, y = *b;

	x.luns = y.luns = (struct cfg_lun_list){0};
	return json_same(CFG_OBJ_ACL, &x, &y);
}

static bool target_own_same(const struct cfg_target *a, const struct cfg_target *b)
{
	struct cfg_target x = cfg_target_own(a), y = cfg_target_own(b);

	return json_same(CFG_OBJ_TARGET, &x, &y);
}

static void diff_target(struct diff *d, const struct cfg_target *o, const struct cfg_target *n,
			const struct cfg_index *oix, const struct cfg_index *nix)
{
	char key[CFG_ACL_KEY_MAX];
	struct cfg_chg *ch;

	/* portal groups: added and changed, then removed */
	for (size_t g = 0; g < n->ntpgs; g++) {
		long og = cfg_ix_tpg(oix, o->name, n->tpgs[g].tag);

		if (og < 0) {
			chg_obj(d, &d->d, CFG_CHG_TPG_ADD, CFG_OBJ_PORTAL_GROUP, &n->tpgs[g],
				n->name, NULL, NULL);
		} else if (!json_same(CFG_OBJ_PORTAL_GROUP, &o->tpgs[og], &n->tpgs[g])) {
			chg_obj(d, &d->d, CFG_CHG_TPG_SET, CFG_OBJ_PORTAL_GROUP, &n->tpgs[g],
				n->name, NULL, NULL);
			if (!d->rc)
				d->d.v[d->d.n - 1]->tag = n->tpgs[g].tag;
		}
	}
	for (size_t g = 0; g < o->ntpgs; g++)
		if (cfg_ix_tpg(nix, n->name, o->tpgs[g].tag) < 0 &&
		    (ch = chg(d, &d->d, CFG_CHG_TPG_DEL, n->name, NULL, NULL)))
			ch->tag = o->tpgs[g].tag;

	/* the target's LUN map */
	diff_luns(d, n->name, NULL, &o->luns, &n->luns);

	/* ACLs */
	for (size_t a = 0; a < o->nacls; a++) {
		long na;

		if (cfg_acl_key(&o->acls[a], key, sizeof(key))) {
			d->rc = -EINVAL;
			return;
		}
		na = cfg_ix_acl(nix, n->name, key);
		if (na < 0 || n->acls[na].has_luns != o->acls[a].has_luns) {
			chg(d, &d->a, CFG_CHG_ACL_DEL, n->name, key, NULL);
			if (na >= 0)
				chg_obj(d, &d->d, CFG_CHG_ACL_ADD, CFG_OBJ_ACL, &n->acls[na],
					n->name, key, NULL);
			continue;
		}
		if (json_same(CFG_OBJ_ACL, &o->acls[a], &n->acls[na]))
			continue;
		if (o->acls[a].has_luns)
			diff_luns(d, n->name, key, &o->acls[a].luns, &n->acls[na].luns);
		if (!acl_same_but_luns(&o->acls[a], &n->acls[na]))
			chg_obj(d, &d->d, CFG_CHG_ACL_SET, CFG_OBJ_ACL, &n->acls[na], n->name, key,
				NULL);
	}
	for (size_t a = 0; a < n->nacls; a++) {
		if (cfg_acl_key(&n->acls[a], key, sizeof(key))) {
			d->rc = -EINVAL;
			return;
		}
		if (cfg_ix_acl(oix, o->name, key) < 0)
			chg_obj(d, &d->d, CFG_CHG_ACL_ADD, CFG_OBJ_ACL, &n->acls[a], n->name, key,
				NULL);
	}

	/* own fields last: a rebuild then carries every child change */
	if (!target_own_same(o, n)) {
		struct cfg_target own = cfg_target_own(n);

		chg_obj(d, &d->d, CFG_CHG_TGT_SET, CFG_OBJ_TARGET, &own, n->name, NULL, NULL);
	}
}

/* Portal groups of nw without a relative port identifier keep the one the
 * same group (target name, tag) has in old, unless nw gives it to another;
 * the others are assigned when applied (the smallest free one). */
static void keep_rel_ports(const struct cfg *old, const struct cfg_index *oix, struct cfg *nw)
{
	uint8_t *taken = calloc(65536, 1);

	if (!taken)
		return;
	for (size_t i = 0; i < nw->ntargets; i++)
		for (size_t g = 0; g < nw->targets[i].ntpgs; g++)
			taken[nw->targets[i].tpgs[g].rel_port_id] = 1;
	for (size_t i = 0; i < nw->ntargets; i++) {
		struct cfg_target *t = &nw->targets[i];
		long ot = cfg_ix_target(oix, t->name);

		for (size_t g = 0; ot >= 0 && g < t->ntpgs; g++) {
			long og = cfg_ix_tpg(oix, t->name, t->tpgs[g].tag);
			uint16_t id;

			if (t->tpgs[g].rel_port_id || og < 0)
				continue;
			id = old->targets[ot].tpgs[og].rel_port_id;
			if (id && !taken[id]) {
				t->tpgs[g].rel_port_id = id;
				taken[id] = 1;
			}
		}
	}
	free(taken);
}

int cfg_diff(const struct cfg *old, const struct cfg_index *oix, struct cfg *nw,
	     struct cfg_txn *out)
{
	struct diff d = {.rc = 0};
	struct cfg_index *nix = NULL;
	json_t *so, *sn;

	*out = (struct cfg_txn){0};
	keep_rel_ports(old, oix, nw);
	d.rc = cfg_index_build(nw, &nix);
	if (d.rc)
		return d.rc;

	/* settings */
	so = cfg_settings_to_json(old);
	sn = cfg_settings_to_json(nw);
	if (!so || !sn) {
		d.rc = -ENOMEM;
	} else if (!json_equal(so, sn)) {
		struct cfg_chg *ch = chg(&d, &d.c, CFG_CHG_SETTINGS, NULL, NULL, NULL);
		char *text = json_dumps(sn, JSON_COMPACT);
		json_t *j =
		    text ? json_pack("{s:s,s:o}", "op", "settings.set", "object", json_incref(sn))
			 : NULL;
		struct cfg_chg *parsed = NULL;
		struct cfg_err err;

		free(text);
		/* the settings tree through the journal form (change.c parses it) */
		if (ch && j && cfg_chg_from_json(j, &parsed, &err) == 0) {
			ch->obj.settings = parsed->obj.settings;
			ch->has_obj = true;
			parsed->has_obj = false;
			cfg_chg_free(parsed);
		} else if (!d.rc) {
			d.rc = -ENOMEM;
		}
		json_decref(j);
	}
	json_decref(so);
	json_decref(sn);

	/* back-stores */
	for (size_t i = 0; i < old->nbs && !d.rc; i++)
		if (cfg_ix_bs(nix, old->bs[i].name) < 0)
			chg(&d, &d.b, CFG_CHG_BS_DEL, NULL, NULL, old->bs[i].name);
	for (size_t i = 0; i < nw->nbs && !d.rc; i++) {
		long o = cfg_ix_bs(oix, nw->bs[i].name);

		if (o < 0)
			chg_obj(&d, &d.c, CFG_CHG_BS_ADD, CFG_OBJ_BACKSTORE, &nw->bs[i], NULL, NULL,
				NULL);
		else if (!json_same(CFG_OBJ_BACKSTORE, &old->bs[o], &nw->bs[i]))
			chg_obj(&d, &d.c, CFG_CHG_BS_SET, CFG_OBJ_BACKSTORE, &nw->bs[i], NULL, NULL,
				nw->bs[i].name);
	}

	/* targets */
	for (size_t i = 0; i < old->ntargets && !d.rc; i++)
		if (cfg_ix_target(nix, old->targets[i].name) < 0)
			chg(&d, &d.a, CFG_CHG_TGT_DEL, old->targets[i].name, NULL, NULL);
	for (size_t i = 0; i < nw->ntargets && !d.rc; i++) {
		long o = cfg_ix_target(oix, nw->targets[i].name);

		if (o < 0)
			chg_obj(&d, &d.d, CFG_CHG_TGT_ADD, CFG_OBJ_TARGET, &nw->targets[i], NULL,
				NULL, NULL);
		else if (!json_same(CFG_OBJ_TARGET, &old->targets[o], &nw->targets[i]))
			diff_target(&d, &old->targets[o], &nw->targets[i], oix, nix);
	}
	cfg_index_free(nix);

	/* A, B, C, D in one transaction */
	struct cfg_txn *parts[] = {&d.a, &d.b, &d.c, &d.d};
	for (size_t p = 0; p < 4; p++) {
		for (size_t i = 0; i < parts[p]->n; i++) {
			if (!d.rc && cfg_txn_add(out, parts[p]->v[i]))
				d.rc = -ENOMEM;
			else if (d.rc)
				cfg_chg_free(parts[p]->v[i]);
			parts[p]->v[i] = NULL;
		}
		parts[p]->n = 0;
		cfg_txn_clear(parts[p]);
	}
	if (d.rc)
		cfg_txn_clear(out);
	return d.rc;
}
