/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live.c: configuration changes applied to the running objects (live.h).
 *
 * Per change kind (prepare / abort / commit):
 *   settings       - / - / iSCSI settings, log level, discovery policy,
 *                  ALUA port groups (a portal group whose port group
 *                  changes is rebuilt: its sessions are dropped)
 *   backstore.add  open the LU / close it / -
 *   backstore.del  unregister / register again / close (last reference)
 *   backstore.set  size only: resize (CAPACITY DATA HAS CHANGED) / resize
 *                  back / -; anything else: open a new LU and put it in
 *                  place of the old one in every LUN map / put the old one
 *                  back / release the old one
 *   target.add     build it (listening) / tear it down / -
 *   target.del     unregister / register again / tear down (sessions go)
 *   target.set     alias, demo mode: new demo map / drop it / switch;
 *                  any other field: build a new target / tear it down /
 *                  tear down the old one (its sessions go), switch
 *   portal_group.* add: build + listen / remove / -; del: - / - / remove
 *                  (sessions go); set: new portals listen / stop them /
 *                  old portals stop; other fields: - / - / rebuild
 *   acl.*          add: map + core ACL / remove / -; del: - / - / remove
 *                  + drop the initiator's sessions; set: own map edited
 *                  in place, or a new map / - / switch + drop sessions
 *   lun.*          map edits (target map and its demo copy, or an ACL's
 *                  own map) / inverse edits / release
 * and after any change of a target's ACLs or own fields, the fabric's
 * access policy of the target (address ACLs, CHAP, limits) is rebuilt at
 * commit (auth_apply.c; sessions keep what they logged in with).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/auth_apply.h"
#include "config/live.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/alua.h"
#include "scsi/scsi.h"

/* One map edit (for abort): entry lun of map was removed (lu, ro) and/or
 * added. */
struct live_edit {
	struct scsi_lun_map *map;
	uint32_t lun;
	struct scsi_lu *old_lu; /* referenced; NULL: there was none */
	bool old_ro;
	bool added;
};

struct live_state {
	struct scsi_lu *lu;	/* backstore.*: the LU added, removed or replaced */
	struct scsi_lu *new_lu; /* backstore.set (rebuild): the new LU */
	uint64_t old_size;	/* backstore.set (resize) */
	bool resized;
	struct cfg_rt_target *rtt; /* target.add/del/set: built or removed target */
	struct scsi_lun_map *map;  /* target.set: new demo map; acl: new own map */
	struct iscsi_tpg *tpg;	   /* portal_group.add */
	char **added;		   /* portal_group.set: portals now listening */
	size_t nadded;
	bool rebuild;		 /* target.set / portal_group.set: rebuilt at commit */
	bool drop;		 /* acl.set: the initiator's sessions go */
	struct live_edit *edits; /* lun.*, acl.set, backstore.set */
	size_t nedits, capedits;
	const char *effect; /* what commit did to sessions */
};

void cfg_live_fix_log_level(struct cfg_runtime *rt, bool fixed)
{
	rt->log_level_fixed = fixed;
}

static struct live_state *live_state(struct cfg_chg *ch)
{
	if (!ch->rt)
		ch->rt = calloc(1, sizeof(struct live_state));
	return ch->rt;
}

static void live_state_free(struct cfg_chg *ch)
{
	struct live_state *s = ch->rt;

	if (!s)
		return;
	for (size_t i = 0; i < s->nedits; i++)
		if (s->edits[i].old_lu)
			scsi_lu_put(s->edits[i].old_lu);
	free(s->edits);
	for (size_t i = 0; i < s->nadded; i++)
		free(s->added[i]);
	free(s->added);
	free(s);
	ch->rt = NULL;
}

const char *cfg_live_effect(const struct cfg_chg *ch)
{
	const struct live_state *s = ch->rt;

	return s && s->effect ? s->effect : "";
}

/* ---- LUN map edits, recorded for abort ---- */
static int edit_push(struct live_state *s, struct live_edit e)
{
	if (s->nedits == s->capedits) {
		size_t cap = s->capedits ? s->capedits * 2 : 4;
		struct live_edit *v = realloc(s->edits, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->edits = v;
		s->capedits = cap;
	}
	s->edits[s->nedits++] = e;
	return 0;
}

/* Remove LUN lun from map (it held lu, ro), recorded. */
static int edit_del(struct live_state *s, struct scsi_lun_map *map, uint32_t lun,
		    struct scsi_lu *lu, bool ro)
{
	struct live_edit e = {.map = map, .lun = lun, .old_lu = lu, .old_ro = ro};
	int rc;

	if (!lu)
		return -ENOENT;
	scsi_lu_get(lu);
	rc = edit_push(s, e);
	if (rc) {
		scsi_lu_put(lu);
		return rc;
	}
	rc = scsi_lun_map_del(map, lun);
	if (rc) {
		s->nedits--;
		scsi_lu_put(lu);
	}
	return rc;
}

/* Add LUN lun -> lu to map; the last recorded edit of the same (map, lun)
 * (a removal just before) is completed, else a new one is recorded. */
static int edit_add(struct live_state *s, struct scsi_lun_map *map, uint32_t lun,
		    struct scsi_lu *lu, bool ro)
{
	struct live_edit *last = s->nedits ? &s->edits[s->nedits - 1] : NULL;
	int rc;

	if (!lu)
		return -ENOENT;
	if (!(last && last->map == map && last->lun == lun && !last->added)) {
		rc = edit_push(s, (struct live_edit){.map = map, .lun = lun});
		if (rc)
			return rc;
		last = &s->edits[s->nedits - 1];
	}
	rc = scsi_lun_map_add(map, lun, lu, ro);
	if (rc) {
		if (!last->old_lu)
			s->nedits--;
		return rc;
	}
	last->added = true;
	return 0;
}

static void edits_undo(struct live_state *s)
{
	while (s->nedits) {
		struct live_edit *e = &s->edits[--s->nedits];

		if (e->added)
			scsi_lun_map_del(e->map, e->lun);
		if (e->old_lu) {
			if (scsi_lun_map_add(e->map, e->lun, e->old_lu, e->old_ro))
				log_err("config: cannot restore LUN %u while rolling back", e->lun);
			scsi_lu_put(e->old_lu);
		}
	}
}

/* ---- helpers ---- */
static struct iscsi_tpg *rt_tpg(struct cfg_rt_target *rtt, uint16_t tag)
{
	uint8_t key[2];
	uintptr_t v;

	put_be16(key, tag);
	return hmap_get(&rtt->tpgs, key, sizeof(key), &v) ? (struct iscsi_tpg *)v : NULL;
}

static void rt_tpg_forget(struct cfg_rt_target *rtt, uint16_t tag)
{
	uint8_t key[2];

	put_be16(key, tag);
	hmap_del(&rtt->tpgs, key, sizeof(key));
}

static int rt_register_target(struct cfg_runtime *rt, struct cfg_rt_target *rtt)
{
	return hmap_put(&rt->targets, rtt->name, strlen(rtt->name), (uintptr_t)rtt);
}

/* The own map of an initiator's ACL in the core (NULL: it uses the
 * target's map, or there is none). */
static struct scsi_lun_map *rt_acl_map(struct cfg_rt_target *rtt, const char *initiator)
{
	uintptr_t v = 0;

	if (!initiator || !hmap_get(&rtt->acls, initiator, strlen(initiator), &v))
		return NULL;
	return (struct scsi_lun_map *)v;
}

static const struct cfg_target *tree_target(const struct cfg *c, const struct cfg_index *ix,
					    const char *name, size_t *ti)
{
	long i = cfg_ix_target(ix, name);

	if (i < 0)
		return NULL;
	*ti = (size_t)i;
	return &c->targets[i];
}

/* ---- settings ---- */

static json_t *pgs_json(const struct cfg *c)
{
	struct cfg shell = {.version = CFG_VERSION, .pgs = c->pgs, .npgs = c->npgs};
	json_t *o = cfg_object_to_json(CFG_OBJ_ROOT, &shell), *pg;

	pg = o ? json_incref(json_object_get(o, "port_groups")) : NULL;
	json_decref(o);
	return pg ? pg : json_array();
}

static const struct cfg_port_group *pg_by_id(const struct cfg *c, uint16_t id)
{
	for (size_t i = 0; i < c->npgs; i++)
		if (c->pgs[i].id == id)
			return &c->pgs[i];
	return NULL;
}

/* ALUA port groups (SPC-4 5.15) from the config `from` to `to`: groups
 * gone are undefined, the others (re)defined with their per-LU states; the
 * core raises ASYMMETRIC ACCESS STATE CHANGED where a state changes. */
static int live_alua(struct cfg_runtime *rt, const struct cfg *from, const struct cfg *to,
		     struct cfg_err *err)
{
	uint16_t *defs = calloc(to->npgs ? to->npgs : 1, sizeof(*defs));
	int rc = 0;

	if (!defs)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < from->npgs; i++)
		if (!pg_by_id(to, from->pgs[i].id))
			scsi_alua_group_undefine(from->pgs[i].id);
	for (size_t i = 0; i < to->npgs && !rc; i++) {
		const struct cfg_port_group *g = &to->pgs[i], *o = pg_by_id(from, g->id);
		struct scsi_alua_group_attrs a = {
		    .name = g->name,
		    .state = g->state,
		    .preferred = g->preferred,
		    .explicit_ok = g->explicit_ok,
		    .transition_ms = g->transition_ms,
		};

		cfg_rt_path(err, "port_groups[%zu]", i);
		rc = scsi_alua_group_define(g->id, &a);
		if (rc) {
			cfg_rt_err(err, rc, "cannot define port group %u: %s", g->id,
				   strerror(-rc));
			break;
		}
		defs[i] = g->id;
		/* per-LU states the new config no longer lists: back to the default */
		if (o && o->nlus && (rc = scsi_alua_set_state(g->id, NULL, g->state))) {
			cfg_rt_err(err, rc, "cannot reset the states of port group %u: %s", g->id,
				   strerror(-rc));
			break;
		}
		for (size_t j = 0; j < g->nlus && !rc; j++) {
			cfg_rt_path(err, "port_groups[%zu].lu_states[%zu]", i, j);
			rc = scsi_alua_set_state(g->id, g->lus[j].backstore, g->lus[j].state);
			if (rc)
				cfg_rt_err(err, rc, "cannot set the state of \"%s\": %s",
					   g->lus[j].backstore, strerror(-rc));
		}
	}
	if (rc) {
		free(defs);
		return rc;
	}
	free(rt->pg_defs);
	rt->pg_defs = defs;
	rt->npg_defs = to->npgs;
	return 0;
}

static int live_settings(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			 struct live_state *s, struct cfg_err *err)
{
	json_t *a = pgs_json(ch->obj.settings), *b = pgs_json(c);
	bool same = json_equal(a, b);
	int rc = 0;

	json_decref(a);
	json_decref(b);
	if (!same) {
		rc = live_alua(rt, ch->obj.settings, c, err);
		s->rebuild = rc == 0; /* portal groups may have moved between groups */
	}
	return rc;
}

static void live_settings_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
				struct live_state *s)
{
	struct cfg_err err;

	if (s->rebuild && live_alua(rt, c, ch->obj.settings, &err))
		log_err("config: port groups not restored while rolling back: %s", err.msg);
}

/* A portal group whose ALUA target port group changed moves there with its
 * sessions (iscsi_tpg_set_port_group(); they get unit attentions); rebuilt
 * in the new group only if that fails. */
static void live_regroup(struct cfg_runtime *rt, const struct cfg *c, const struct cfg *old)
{
	size_t n = cfg_count_portal_groups(c), k = 0;
	uint16_t *now = calloc(n ? n : 1, sizeof(*now)),
		 *before = calloc(n ? n : 1, sizeof(*before));
	struct cfg shell = *c;

	shell.pgs = old->pgs;
	shell.npgs = old->npgs;
	if (!now || !before || cfg_assign_group_ids(c, now, n) ||
	    cfg_assign_group_ids(&shell, before, n)) {
		log_err("config: cannot compare target port groups; portal groups not moved");
		goto out;
	}
	for (size_t i = 0; i < c->ntargets; i++) {
		struct cfg_rt_target *rtt = cfg_rt_target(rt, c->targets[i].name);

		for (size_t g = 0; g < c->targets[i].ntpgs; g++, k++) {
			uint16_t tag = c->targets[i].tpgs[g].tag;
			struct iscsi_tpg *tpg = rtt ? rt_tpg(rtt, tag) : NULL;
			struct cfg_err err;

			if (!tpg || now[k] == before[k])
				continue;
			if (iscsi_tpg_set_port_group(tpg, now[k]) == 0) {
				log_notice("config: %s portal group %u moved to target port group "
					   "%u (its sessions stay)",
					   c->targets[i].name, tag, now[k]);
				continue;
			}
			rt_tpg_forget(rtt, tag); /* out of memory: rebuilt in the new group */
			iscsi_tpg_del(tpg);
			if (cfg_rt_build_tpg(c, i, g, rt, rtt, &err))
				log_err("config: %s: %s", err.path, err.msg);
			else
				log_notice(
				    "config: %s portal group %u moved to target port group %u "
				    "(its sessions were dropped)",
				    c->targets[i].name, tag, now[k]);
		}
	}
out:
	free(now);
	free(before);
}

static void live_settings_commit(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
				 struct live_state *s)
{
	struct cfg_err err;

	/* new logins and connections take the new values */
	cfg_apply_iscsi_settings(c);
	if (!rt->log_level_fixed && c->log_level)
		log_set_level(log_level_parse(c->log_level));
	if (cfg_auth_apply_discovery(c, &err))
		log_err("config: discovery settings: %s", err.msg);
	if (s->rebuild)
		live_regroup(rt, c, ch->obj.settings);
}

/* ---- back-stores ---- */
static int live_bs_add(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		       struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	const char *name = c->bs[ch->pos].name;
	long pos = cfg_ix_bs(ix, name);
	int rc;

	rc = cfg_rt_open_lu(c, &c->bs[pos], (size_t)pos, &s->lu, err);
	if (rc)
		return rc;
	if (hmap_put(&rt->lus, name, strlen(name), (uintptr_t)s->lu)) {
		scsi_lu_put(s->lu);
		s->lu = NULL;
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Every LUN entry mapping back-store name: in each target's map (and its
 * demo copy) and each ACL's own map. fn edits one entry. */
static int live_bs_each_mapping(struct cfg_runtime *rt, const struct cfg *c,
				const struct cfg_index *ix, const char *name,
				int (*fn)(struct live_state *s, struct scsi_lun_map *m,
					  const struct cfg_lun *l, bool force_ro, void *arg),
				struct live_state *s, void *arg)
{
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct cfg_target *t = &c->targets[i];
		struct cfg_rt_target *rtt = cfg_rt_target(rt, t->name);
		long p;
		int rc;

		if (!rtt)
			continue;
		p = cfg_ix_lun_bs(ix, t->name, NULL, name);
		if (p >= 0) {
			if ((rc = fn(s, rtt->map, &t->luns.v[p], false, arg)))
				return rc;
			if (rtt->demo_map && (rc = fn(s, rtt->demo_map, &t->luns.v[p], true, arg)))
				return rc;
		}
		for (size_t a = 0; a < t->nacls; a++) {
			const struct cfg_acl *acl = &t->acls[a];
			struct scsi_lun_map *m;

			if (!acl->has_luns || !acl->initiator)
				continue;
			m = rt_acl_map(rtt, acl->initiator);
			p = cfg_ix_lun_bs(ix, t->name, acl->initiator, name);
			if (m && p >= 0 && (rc = fn(s, m, &acl->luns.v[p], false, arg)))
				return rc;
		}
	}
	return 0;
}

static int swap_lu(struct live_state *s, struct scsi_lun_map *m, const struct cfg_lun *l,
		   bool force_ro, void *arg)
{
	struct scsi_lu *old = s->lu, *nlu = arg;
	int rc;

	rc = edit_del(s, m, l->lun, old, force_ro || l->read_only);
	if (!rc)
		rc = edit_add(s, m, l->lun, nlu, force_ro || l->read_only);
	return rc;
}

/* Fields a resize changes; any other difference re-opens the LU. */
static bool bs_only_size_differs(const struct cfg_backstore *a, const struct cfg_backstore *b)
{
	struct cfg_backstore x = *a;
	json_t *ja, *jb;
	bool same;

	x.size = b->size;
	ja = cfg_object_to_json(CFG_OBJ_BACKSTORE, &x);
	jb = cfg_object_to_json(CFG_OBJ_BACKSTORE, b);
	same = ja && jb && json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return same;
}

static int live_bs_set(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		       struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	long pos = cfg_ix_bs(ix, ch->name);
	const struct cfg_backstore *nb = &c->bs[pos], *ob = &ch->obj.bs;
	int rc;

	s->lu = cfg_rt_lu(rt, ch->name);
	cfg_rt_path(err, "backstores[%ld]", pos);
	if (!s->lu)
		return cfg_rt_err(err, -ENOENT, "back-store \"%s\" is not running", ch->name);
	if (bs_only_size_differs(ob, nb)) {
		uint64_t cur;

		if (!nb->size || nb->size == ob->size)
			return 0; /* absent: the file's own size; nothing to do */
		cfg_rt_path(err, "backstores[%ld].size", pos);
		/* the LU's current size (a file may be larger than "size") */
		cur = scsi_lu_size(s->lu);
		s->old_size = cur;
		if (nb->size < cur && !ch->force)
			return cfg_rt_err(err, -EPERM,
					  "shrinking \"%s\" loses the data beyond %llu bytes: use "
					  "backstore.resize with force",
					  ch->name, (unsigned long long)nb->size);
		rc = scsi_lu_resize(s->lu, nb->size);
		if (rc == -EOPNOTSUPP)
			return cfg_rt_err(err, rc, "a %s back-store cannot be resized", nb->type);
		if (rc)
			return cfg_rt_err(err, rc, "cannot resize \"%s\": %s", ch->name,
					  strerror(-rc));
		s->resized = true;
		return 0;
	}
	/* re-open under its mappings */
	rc = cfg_rt_open_lu(c, nb, (size_t)pos, &s->new_lu, err);
	if (rc)
		return rc;
	rc = live_bs_each_mapping(rt, c, ix, ch->name, swap_lu, s, s->new_lu);
	if (!rc && hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->new_lu))
		rc = cfg_rt_err(err, -ENOMEM, "out of memory");
	if (rc) {
		edits_undo(s);
		scsi_lu_put(s->new_lu);
		s->new_lu = NULL;
		if (!err->msg[0])
			cfg_rt_err(err, rc, "cannot re-map \"%s\": %s", ch->name, strerror(-rc));
		return rc;
	}
	return 0;
}

static void live_bs_set_abort(struct cfg_runtime *rt, struct cfg_chg *ch, struct live_state *s)
{
	if (s->resized) {
		if (scsi_lu_resize(s->lu, s->old_size))
			log_err("config: cannot size \"%s\" back while rolling back", ch->name);
		return;
	}
	if (!s->new_lu)
		return;
	edits_undo(s);
	hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->lu); /* replaces: no alloc */
	scsi_lu_put(s->new_lu);
	s->new_lu = NULL;
}

/* ---- targets ---- */

/* Own fields that can change without rebuilding the target. */
static const char *const live_target_fields[] = {
    "alias", "demo_mode", "auth", "limits", "require_header_digest", "require_data_digest", NULL,
};

/* Whether old and new own fields differ only in fields changeable live. */
static bool target_live_ok(const struct cfg_target *old, const struct cfg_target *nt)
{
	struct cfg_target a = *old, b = *nt;
	json_t *ja, *jb;
	bool ok;

	a.tpgs = b.tpgs = NULL;
	a.ntpgs = b.ntpgs = 0;
	a.luns = b.luns = (struct cfg_lun_list){0};
	a.acls = b.acls = NULL;
	a.nacls = b.nacls = 0;
	ja = cfg_object_to_json(CFG_OBJ_TARGET, &a);
	jb = cfg_object_to_json(CFG_OBJ_TARGET, &b);
	for (size_t i = 0; ja && jb && live_target_fields[i]; i++) {
		json_object_del(ja, live_target_fields[i]);
		json_object_del(jb, live_target_fields[i]);
	}
	ok = ja && jb && json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return ok;
}

static int live_target_set(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			   struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *old = &ch->obj.t, *t;
	size_t ti = 0;

	t = tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
	if (!target_live_ok(old, t)) {
		s->rebuild = true;
		return cfg_rt_build_target(c, ti, rt, &s->rtt, err);
	}
	if (t->demo && t->demo_read_only && !(old->demo && old->demo_read_only)) {
		char base[CFG_ERR_PATH_MAX];

		snprintf(base, sizeof(base), "targets[%zu].luns", ti);
		return cfg_rt_build_map(rt, &t->luns, true, base, &s->map, err);
	}
	return 0;
}

static void live_target_set_commit(struct cfg_runtime *rt, const struct cfg *c,
				   const struct cfg_index *ix, struct cfg_chg *ch,
				   struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *t;
	size_t ti = 0;

	t = tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return;
	if (s->rebuild) {
		rt_register_target(rt, s->rtt); /* replaces: no allocation */
		cfg_rt_target_destroy(rtt);
		s->rtt = NULL;
		s->effect = "the target was rebuilt: its sessions were dropped";
		return;
	}
	iscsi_target_set_alias(rtt->it, t->alias);
	if (t->demo && t->demo_read_only) {
		if (s->map) {
			if (rtt->demo_map)
				scsi_lun_map_put(rtt->demo_map);
			rtt->demo_map = s->map;
			s->map = NULL;
		}
	} else if (rtt->demo_map) {
		scsi_lun_map_put(rtt->demo_map);
		rtt->demo_map = NULL;
	}
	/* new logins get the new default map; sessions keep theirs */
	scsi_target_set_default_map(rtt->st, rtt->demo_map ? rtt->demo_map : rtt->map, t->demo);
}

/* ---- portal groups ---- */
static bool str_in(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Portal groups that differ in more than their portals are rebuilt. */
static bool tpg_only_portals_differ(const struct cfg_portal_group *a,
				    const struct cfg_portal_group *b)
{
	struct cfg_portal_group x = *a, y = *b;
	json_t *ja, *jb;
	bool same;

	x.portals = y.portals = NULL;
	x.nportals = y.nportals = 0;
	ja = cfg_object_to_json(CFG_OBJ_PORTAL_GROUP, &x);
	jb = cfg_object_to_json(CFG_OBJ_PORTAL_GROUP, &y);
	same = ja && jb && json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return same;
}

static int live_tpg_set(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_portal_group *old = &ch->obj.g, *g;
	struct iscsi_tpg *tpg;
	size_t ti = 0;
	long gi;
	const struct cfg_target *t = tree_target(c, ix, ch->target, &ti);

	gi = t ? cfg_ix_tpg(ix, t->name, ch->tag) : -1;
	tpg = rtt ? rt_tpg(rtt, ch->tag) : NULL;
	if (gi < 0 || !tpg)
		return cfg_rt_err(err, -ENOENT, "portal group %u is not running", ch->tag);
	g = &t->tpgs[gi];
	if (!tpg_only_portals_differ(old, g)) {
		s->rebuild = true;
		return 0;
	}
	if (rt->nlisten)
		return 0; /* --listen replaces every portal */
	s->added = calloc(g->nportals ? g->nportals : 1, sizeof(*s->added));
	if (!s->added)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	for (size_t p = 0; p < g->nportals; p++) {
		int rc;

		if (str_in(old->portals, old->nportals, g->portals[p]))
			continue;
		cfg_rt_path(err, "targets[%zu].portal_groups[%ld].portals[%zu]", ti, gi, p);
		rc = iscsi_tpg_portal_add(tpg, g->portals[p]);
		if (rc) {
			for (size_t i = 0; i < s->nadded; i++)
				iscsi_tpg_portal_del(tpg, s->added[i]);
			return cfg_rt_err(err, rc, "cannot listen on %s: %s", g->portals[p],
					  strerror(-rc));
		}
		s->added[s->nadded] = strdup(g->portals[p]);
		if (!s->added[s->nadded]) {
			iscsi_tpg_portal_del(tpg, g->portals[p]);
			for (size_t i = 0; i < s->nadded; i++)
				iscsi_tpg_portal_del(tpg, s->added[i]);
			return cfg_rt_err(err, -ENOMEM, "out of memory");
		}
		s->nadded++;
	}
	return 0;
}

static void live_tpg_set_commit(struct cfg_runtime *rt, const struct cfg *c,
				const struct cfg_index *ix, struct cfg_chg *ch,
				struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_portal_group *old = &ch->obj.g, *g;
	struct iscsi_tpg *tpg = rtt ? rt_tpg(rtt, ch->tag) : NULL;
	const struct cfg_target *t;
	struct cfg_err err;
	size_t ti = 0;
	long gi;

	t = tree_target(c, ix, ch->target, &ti);
	gi = t ? cfg_ix_tpg(ix, t->name, ch->tag) : -1;
	if (!tpg || gi < 0)
		return;
	g = &t->tpgs[gi];
	if (s->rebuild) {
		rt_tpg_forget(rtt, ch->tag);
		iscsi_tpg_del(tpg);
		if (cfg_rt_build_tpg(c, ti, (size_t)gi, rt, rtt, &err))
			log_err("config: %s: %s", err.path, err.msg);
		s->effect = "the portal group was rebuilt: its sessions were dropped";
		return;
	}
	if (rt->nlisten)
		return;
	for (size_t p = 0; p < old->nportals; p++)
		if (!str_in(g->portals, g->nportals, old->portals[p]))
			iscsi_tpg_portal_del(tpg, old->portals[p]);
}

/* ---- ACLs ---- */
static int live_acl_add(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *t;
	const struct cfg_acl *a;
	size_t ti = 0;
	long ai;
	int rc;

	t = tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
	ai = cfg_ix_acl(ix, t->name, ch->initiator);
	if (ai < 0)
		return cfg_rt_err(err, -ENOENT, "no ACL \"%s\"", ch->initiator);
	a = &t->acls[ai];
	if (!a->initiator)
		return 0; /* by address only: the fabric's policy, at commit */
	if (a->has_luns) {
		char base[CFG_ERR_PATH_MAX];

		snprintf(base, sizeof(base), "targets[%zu].acls[%ld].luns", ti, ai);
		rc = cfg_rt_build_map(rt, &a->luns, false, base, &s->map, err);
		if (rc)
			return rc;
	}
	cfg_rt_path(err, "targets[%zu].acls[%ld]", ti, ai);
	if (hmap_put(&rtt->acls, a->initiator, strlen(a->initiator), (uintptr_t)s->map)) {
		scsi_lun_map_put(s->map);
		s->map = NULL;
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	rc = scsi_target_acl_set(rtt->st, a->initiator, s->map ? s->map : rtt->map);
	if (rc) {
		hmap_del(&rtt->acls, a->initiator, strlen(a->initiator));
		scsi_lun_map_put(s->map);
		s->map = NULL;
		return cfg_rt_err(err, rc, "cannot add the ACL: %s", strerror(-rc));
	}
	s->map = NULL; /* the runtime holds it now (rtt->acls) */
	return 0;
}

static void live_acl_add_abort(struct cfg_runtime *rt, struct cfg_chg *ch)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct scsi_lun_map *own;

	if (!rtt || ch->initiator[0] == '@')
		return;
	own = rt_acl_map(rtt, ch->initiator);
	scsi_target_acl_del(rtt->st, ch->initiator);
	hmap_del(&rtt->acls, ch->initiator, strlen(ch->initiator));
	if (own)
		scsi_lun_map_put(own);
}

/* acl.delete: out of the core at prepare (new logins refused), sessions
 * dropped at commit. */
static void live_acl_del(struct cfg_runtime *rt, struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

	if (!rtt || ch->initiator[0] == '@')
		return;
	s->map = rt_acl_map(rtt, ch->initiator);
	hmap_del(&rtt->acls, ch->initiator, strlen(ch->initiator));
	scsi_target_acl_del(rtt->st, ch->initiator);
	s->drop = true;
}

static void live_acl_del_abort(struct cfg_runtime *rt, struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

	if (!rtt || !s->drop)
		return;
	if (hmap_put(&rtt->acls, ch->initiator, strlen(ch->initiator), (uintptr_t)s->map) ||
	    scsi_target_acl_set(rtt->st, ch->initiator, s->map ? s->map : rtt->map))
		log_err("config: lost the ACL of %s while rolling back", ch->initiator);
	s->map = NULL;
	s->drop = false;
}

static void live_acl_del_commit(struct cfg_runtime *rt, struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

	if (s->map)
		scsi_lun_map_put(s->map);
	s->map = NULL;
	if (rtt && s->drop && iscsi_target_drop_initiator(rtt->it, ch->initiator))
		s->effect = "the initiator's sessions on the target were dropped";
}

static int lun_edit_diff(struct live_state *s, struct cfg_runtime *rt, struct scsi_lun_map *m,
			 const struct cfg_lun_list *from, const struct cfg_lun_list *to,
			 bool force_ro)
{
	int rc = 0;

	/* removed or changed entries first, then the new ones */
	for (size_t i = 0; i < from->n && !rc; i++) {
		const struct cfg_lun *o = &from->v[i];
		bool keep = false;

		for (size_t j = 0; j < to->n && !keep; j++)
			keep = to->v[j].lun == o->lun &&
			       !strcmp(to->v[j].backstore, o->backstore) &&
			       to->v[j].read_only == o->read_only;
		if (!keep)
			rc = edit_del(s, m, o->lun, cfg_rt_lu(rt, o->backstore),
				      force_ro || o->read_only);
	}
	for (size_t j = 0; j < to->n && !rc; j++) {
		const struct cfg_lun *n = &to->v[j];
		bool had = false;

		for (size_t i = 0; i < from->n && !had; i++)
			had = from->v[i].lun == n->lun &&
			      !strcmp(from->v[i].backstore, n->backstore) &&
			      from->v[i].read_only == n->read_only;
		if (!had)
			rc = edit_add(s, m, n->lun, cfg_rt_lu(rt, n->backstore),
				      force_ro || n->read_only);
	}
	return rc;
}

static int live_acl_set(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_acl *old = &ch->obj.a, *a;
	const struct cfg_target *t;
	struct scsi_lun_map *own;
	size_t ti = 0;
	long ai;
	int rc;

	t = tree_target(c, ix, ch->target, &ti);
	ai = t ? cfg_ix_acl(ix, t->name, ch->initiator) : -1;
	if (!rtt || ai < 0)
		return cfg_rt_err(err, -ENOENT, "no ACL \"%s\"", ch->initiator);
	a = &t->acls[ai];
	if (!a->initiator)
		return 0; /* by address only: the fabric's policy, at commit */
	own = rt_acl_map(rtt, a->initiator);
	cfg_rt_path(err, "targets[%zu].acls[%ld].luns", ti, ai);
	if (a->has_luns && old->has_luns && own) {
		/* the same map, edited in place: sessions see the change */
		rc = lun_edit_diff(s, rt, own, &old->luns, &a->luns, false);
		if (rc) {
			edits_undo(s);
			return cfg_rt_err(err, rc, "cannot change the LUN map: %s", strerror(-rc));
		}
		return 0;
	}
	if (a->has_luns == old->has_luns)
		return 0;
	s->drop = true;
	if (a->has_luns) {
		char base[CFG_ERR_PATH_MAX];

		snprintf(base, sizeof(base), "targets[%zu].acls[%ld].luns", ti, ai);
		return cfg_rt_build_map(rt, &a->luns, false, base, &s->map, err);
	}
	return 0;
}

static void live_acl_set_commit(struct cfg_runtime *rt, struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct scsi_lun_map *own;

	if (!rtt || !s->drop)
		return;
	own = rt_acl_map(rtt, ch->initiator);
	hmap_put(&rtt->acls, ch->initiator, strlen(ch->initiator), (uintptr_t)s->map);
	scsi_target_acl_set(rtt->st, ch->initiator, s->map ? s->map : rtt->map);
	if (own)
		scsi_lun_map_put(own);
	s->map = NULL;
	if (iscsi_target_drop_initiator(rtt->it, ch->initiator))
		s->effect =
		    "the initiator's sessions on the target were dropped (LUN map switched)";
}

/* ---- LUNs ---- */
static int live_lun(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		    struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_lun *old = ch->kind == CFG_CHG_LUN_ADD ? NULL : &ch->obj.l, *nl = NULL;
	const struct cfg_lun_list *l;
	const struct cfg_target *t;
	struct scsi_lun_map *m, *demo = NULL;
	size_t ti = 0;
	long p;
	int rc = 0;

	t = tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
	if (ch->initiator) {
		long ai = cfg_ix_acl(ix, t->name, ch->initiator);

		if (ai < 0)
			return cfg_rt_err(err, -ENOENT, "no ACL \"%s\"", ch->initiator);
		if (!t->acls[ai].initiator)
			return 0; /* by address only: the fabric's policy, at commit */
		l = &t->acls[ai].luns;
		m = rt_acl_map(rtt, ch->initiator);
		if (!m)
			return cfg_rt_err(err, -ENOENT, "the ACL has no LUN map of its own");
	} else {
		l = &t->luns;
		m = rtt->map;
		demo = rtt->demo_map;
	}
	/* the new entry: by its LUN in the tree */
	if (ch->kind != CFG_CHG_LUN_DEL) {
		uint32_t lun = ch->kind == CFG_CHG_LUN_ADD ? l->v[ch->pos].lun : ch->lun;

		p = cfg_ix_lun(ix, t->name, ch->initiator, lun);
		if (p < 0)
			return cfg_rt_err(err, -ENOENT, "LUN %u is not in the tree", lun);
		nl = &l->v[p];
	}
	if (old) {
		rc = edit_del(s, m, old->lun, cfg_rt_lu(rt, old->backstore), old->read_only);
		if (!rc && demo)
			rc = edit_del(s, demo, old->lun, cfg_rt_lu(rt, old->backstore), true);
	}
	if (!rc && nl) {
		rc = edit_add(s, m, nl->lun, cfg_rt_lu(rt, nl->backstore), nl->read_only);
		if (!rc && demo)
			rc = edit_add(s, demo, nl->lun, cfg_rt_lu(rt, nl->backstore), true);
	}
	if (rc) {
		edits_undo(s);
		return cfg_rt_err(err, rc, "cannot change LUN %u: %s", nl ? nl->lun : old->lun,
				  strerror(-rc));
	}
	return 0;
}

/* ---- dispatch ---- */
int cfg_live_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_chg *ch, struct cfg_err *err)
{
	struct live_state *s = live_state(ch);
	size_t ti = 0;
	int rc = 0;

	*err = (struct cfg_err){0};
	if (!s)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	if (ch->model_only)
		return 0;
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		rc = live_settings(rt, c, ch, s, err);
		break;
	case CFG_CHG_BS_ADD:
		rc = live_bs_add(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_BS_DEL:
		s->lu = cfg_rt_lu(rt, ch->name);
		if (s->lu)
			hmap_del(&rt->lus, ch->name, strlen(ch->name));
		break;
	case CFG_CHG_BS_SET:
		rc = live_bs_set(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_TGT_ADD:
		if (!tree_target(c, ix, c->targets[ch->pos].name, &ti))
			return cfg_rt_err(err, -ENOENT, "no such target");
		rc = cfg_rt_build_target(c, ti, rt, &s->rtt, err);
		if (!rc && rt_register_target(rt, s->rtt)) {
			cfg_rt_target_destroy(s->rtt);
			s->rtt = NULL;
			rc = cfg_rt_err(err, -ENOMEM, "out of memory");
		}
		break;
	case CFG_CHG_TGT_DEL:
		s->rtt = cfg_rt_target(rt, ch->target);
		if (s->rtt)
			hmap_del(&rt->targets, ch->target, strlen(ch->target));
		break;
	case CFG_CHG_TGT_SET:
		rc = live_target_set(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_TPG_ADD: {
		const struct cfg_target *t = tree_target(c, ix, ch->target, &ti);
		struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

		if (!t || !rtt)
			return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
		rc = cfg_rt_build_tpg(c, ti, ch->pos, rt, rtt, err);
		s->tpg = rt_tpg(rtt, t->tpgs[ch->pos].tag);
		if (rc && s->tpg) {
			rt_tpg_forget(rtt, t->tpgs[ch->pos].tag);
			iscsi_tpg_del(s->tpg);
			s->tpg = NULL;
		}
		break;
	}
	case CFG_CHG_TPG_DEL:
		break;
	case CFG_CHG_TPG_SET:
		rc = live_tpg_set(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_ACL_ADD:
		rc = live_acl_add(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_ACL_DEL:
		live_acl_del(rt, ch, s);
		break;
	case CFG_CHG_ACL_SET:
		rc = live_acl_set(rt, c, ix, ch, s, err);
		break;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		rc = live_lun(rt, c, ix, ch, s, err);
		break;
	default:
		rc = cfg_rt_err(err, -EINVAL, "unknown change");
		break;
	}
	if (rc)
		cfg_live_abort(rt, c, ch);
	return rc;
}

void cfg_live_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch)
{
	struct live_state *s = ch->rt;

	if (!s)
		return;
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		live_settings_abort(rt, c, ch, s);
		break;
	case CFG_CHG_BS_ADD:
		if (s->lu) {
			hmap_del(&rt->lus, s->lu ? scsi_lu_name(s->lu) : "",
				 strlen(scsi_lu_name(s->lu)));
			scsi_lu_put(s->lu);
		}
		break;
	case CFG_CHG_BS_DEL:
		if (s->lu && hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->lu))
			log_err("config: lost back-store %s while rolling back", ch->name);
		break;
	case CFG_CHG_BS_SET:
		live_bs_set_abort(rt, ch, s);
		break;
	case CFG_CHG_TGT_ADD:
		if (s->rtt) {
			hmap_del(&rt->targets, s->rtt->name, strlen(s->rtt->name));
			cfg_rt_target_destroy(s->rtt);
		}
		break;
	case CFG_CHG_TGT_DEL:
		if (s->rtt && rt_register_target(rt, s->rtt))
			log_err("config: lost target %s while rolling back", ch->target);
		break;
	case CFG_CHG_TGT_SET:
		if (s->rtt)
			cfg_rt_target_destroy(s->rtt);
		if (s->map)
			scsi_lun_map_put(s->map);
		break;
	case CFG_CHG_TPG_ADD:
		if (s->tpg) {
			struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
			if (rtt)
				rt_tpg_forget(rtt, ch->obj.g.tag ? ch->obj.g.tag : ch->tag);
			iscsi_tpg_del(s->tpg);
		}
		break;
	case CFG_CHG_TPG_SET: {
		struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
		struct iscsi_tpg *tpg = rtt ? rt_tpg(rtt, ch->tag) : NULL;

		for (size_t i = 0; tpg && i < s->nadded; i++)
			iscsi_tpg_portal_del(tpg, s->added[i]);
		break;
	}
	case CFG_CHG_ACL_ADD:
		live_acl_add_abort(rt, ch);
		break;
	case CFG_CHG_ACL_DEL:
		live_acl_del_abort(rt, ch, s);
		break;
	case CFG_CHG_ACL_SET:
		edits_undo(s);
		if (s->map)
			scsi_lun_map_put(s->map);
		break;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		edits_undo(s);
		break;
	default:
		break;
	}
	live_state_free(ch);
}

void cfg_live_release(struct cfg_chg *ch)
{
	live_state_free(ch);
}

/* Targets whose fabric access policy must be rebuilt after the commit. */
static bool policy_dirty(const struct cfg_chg *ch)
{
	switch (ch->kind) {
	case CFG_CHG_TGT_SET:
	case CFG_CHG_ACL_ADD:
	case CFG_CHG_ACL_DEL:
	case CFG_CHG_ACL_SET:
		return true;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		/* the maps of ACLs by address live in the policy; the target's
		 * map is the same object the policy points at */
		return ch->initiator && ch->initiator[0] == '@';
	default:
		return false;
	}
}

static void live_policy(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			const char *target)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, target);
	const struct cfg_target *t;
	struct cfg_err err;
	size_t ti = 0;

	t = tree_target(c, ix, target, &ti);
	if (!rtt || !t)
		return;
	if (cfg_auth_apply_target(rt, t, ti, rtt->map, rtt->it, &err))
		log_err("config: %s: access policy not updated: %s", err.path, err.msg);
}

void cfg_live_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_txn *x)
{
	for (size_t i = 0; i < x->n; i++) {
		struct cfg_chg *ch = x->v[i];
		struct live_state *s = ch->rt;
		char what[512];

		if (!s || ch->model_only)
			continue;
		switch (ch->kind) {
		case CFG_CHG_SETTINGS:
			live_settings_commit(rt, c, ch, s);
			break;
		case CFG_CHG_BS_DEL:
			if (s->lu)
				scsi_lu_put(s->lu); /* closes once unreferenced */
			break;
		case CFG_CHG_BS_SET:
			if (s->new_lu && s->lu)
				scsi_lu_put(s->lu); /* the old LU */
			if (s->new_lu)
				s->effect = "the logical unit was re-opened under its mappings";
			break;
		case CFG_CHG_TGT_DEL:
			if (s->rtt) {
				cfg_rt_target_destroy(s->rtt);
				s->effect = "the target's sessions were dropped";
			}
			break;
		case CFG_CHG_TGT_SET:
			live_target_set_commit(rt, c, ix, ch, s);
			break;
		case CFG_CHG_TPG_DEL: {
			struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
			struct iscsi_tpg *tpg = rtt ? rt_tpg(rtt, ch->tag) : NULL;

			if (tpg) {
				rt_tpg_forget(rtt, ch->tag);
				iscsi_tpg_del(tpg);
				s->effect = "the portal group's sessions were dropped";
			}
			break;
		}
		case CFG_CHG_TPG_SET:
			live_tpg_set_commit(rt, c, ix, ch, s);
			break;
		case CFG_CHG_ACL_DEL:
			live_acl_del_commit(rt, ch, s);
			break;
		case CFG_CHG_ACL_SET:
			live_acl_set_commit(rt, ch, s);
			break;
		default:
			break;
		}
		/* the replaced entries' references (lun.*, acl.set, backstore.set) */
		for (size_t k = 0; k < s->nedits; k++)
			if (s->edits[k].old_lu) {
				scsi_lu_put(s->edits[k].old_lu);
				s->edits[k].old_lu = NULL;
			}
		s->nedits = 0;
		cfg_chg_describe(ch, what, sizeof(what));
		log_info("config: %s%s%s", what, s->effect ? "; " : "", s->effect ? s->effect : "");
	}
	/* a back-store re-opened: the maps of ACLs by address (in the policies)
	 * still hold the old LU; rebuild every target's policy */
	for (size_t i = 0; i < x->n; i++) {
		const struct live_state *s = x->v[i]->rt;

		if (x->v[i]->kind == CFG_CHG_BS_SET && s && s->new_lu) {
			for (size_t t = 0; t < c->ntargets; t++)
				live_policy(rt, c, ix, c->targets[t].name);
			return;
		}
	}
	/* the fabric's access policies, once per target touched */
	for (size_t i = 0; i < x->n; i++) {
		bool seen = false;

		if (!policy_dirty(x->v[i]) || !x->v[i]->target)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = policy_dirty(x->v[j]) && x->v[j]->target &&
			       !strcmp(x->v[j]->target, x->v[i]->target);
		if (!seen)
			live_policy(rt, c, ix, x->v[i]->target);
	}
}
