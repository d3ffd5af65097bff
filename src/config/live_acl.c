/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_acl.c: ACLs and LUN mappings changed while running (live.c's acl.*
 * and lun.* rows): the core's ACLs and LUN maps edited in place where
 * sessions may see the change, switched (and the initiator's sessions
 * dropped) where they may not. ACLs by address only are the fabric's
 * access policy, rebuilt at commit (live.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/live_int.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* ---- acl.add ---- */
int live_acl_add_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *t;
	const struct cfg_acl *a;
	size_t ti = 0;
	long ai;
	int rc;

	t = live_tree_target(c, ix, ch->target, &ti);
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

void live_acl_add_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct scsi_lun_map *own;

	if (!rtt || ch->initiator[0] == '@')
		return;
	own = live_rt_acl_map(rtt, ch->initiator);
	scsi_target_acl_del(rtt->st, ch->initiator);
	hmap_del(&rtt->acls, ch->initiator, strlen(ch->initiator));
	if (own)
		scsi_lun_map_put(own);
}

/* ---- acl.delete: out of the core at prepare (new logins refused),
 * sessions dropped at commit ---- */
int live_acl_del_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

	if (!rtt || ch->initiator[0] == '@')
		return 0;
	s->map = live_rt_acl_map(rtt, ch->initiator);
	hmap_del(&rtt->acls, ch->initiator, strlen(ch->initiator));
	scsi_target_acl_del(rtt->st, ch->initiator);
	s->drop = true;
	return 0;
}

void live_acl_del_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
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

void live_acl_del_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);

	if (s->map)
		scsi_lun_map_put(s->map);
	s->map = NULL;
	if (rtt && s->drop && iscsi_target_drop_initiator(rtt->it, ch->initiator))
		s->effect = "the initiator's sessions on the target were dropped";
}

/* ---- acl.set ---- */

/* Does l map e's LUN to the same back-store the same way? */
static bool lun_in(const struct cfg_lun_list *l, const struct cfg_lun *e)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].lun == e->lun && !strcmp(l->v[i].backstore, e->backstore) &&
		    l->v[i].read_only == e->read_only)
			return true;
	return false;
}

static int lun_edit_diff(struct live_state *s, struct cfg_runtime *rt, struct scsi_lun_map *m,
			 const struct cfg_lun_list *from, const struct cfg_lun_list *to,
			 bool force_ro)
{
	int rc = 0;

	/* removed or changed entries first, then the new ones */
	for (size_t i = 0; i < from->n && !rc; i++) {
		const struct cfg_lun *o = &from->v[i];

		if (!lun_in(to, o))
			rc = live_edit_del(s, m, o->lun, cfg_rt_lu(rt, o->backstore),
					   force_ro || o->read_only);
	}
	for (size_t j = 0; j < to->n && !rc; j++) {
		const struct cfg_lun *n = &to->v[j];

		if (!lun_in(from, n))
			rc = live_edit_add(s, m, n->lun, cfg_rt_lu(rt, n->backstore),
					   force_ro || n->read_only);
	}
	return rc;
}

int live_acl_set_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_acl *old = &ch->obj.a, *a;
	const struct cfg_target *t;
	struct scsi_lun_map *own;
	size_t ti = 0;
	long ai;
	int rc;

	t = live_tree_target(c, ix, ch->target, &ti);
	ai = t ? cfg_ix_acl(ix, t->name, ch->initiator) : -1;
	if (!rtt || ai < 0)
		return cfg_rt_err(err, -ENOENT, "no ACL \"%s\"", ch->initiator);
	a = &t->acls[ai];
	if (!a->initiator)
		return 0; /* by address only: the fabric's policy, at commit */
	own = live_rt_acl_map(rtt, a->initiator);
	cfg_rt_path(err, "targets[%zu].acls[%ld].luns", ti, ai);
	if (a->has_luns && old->has_luns && own) {
		/* the same map, edited in place: sessions see the change */
		rc = lun_edit_diff(s, rt, own, &old->luns, &a->luns, false);
		if (rc) {
			live_edits_undo(s);
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

void live_acl_set_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	live_edits_undo(s);
	if (s->map)
		scsi_lun_map_put(s->map);
}

void live_acl_set_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct scsi_lun_map *own;

	if (!rtt || !s->drop)
		return;
	own = live_rt_acl_map(rtt, ch->initiator);
	hmap_put(&rtt->acls, ch->initiator, strlen(ch->initiator), (uintptr_t)s->map);
	scsi_target_acl_set(rtt->st, ch->initiator, s->map ? s->map : rtt->map);
	if (own)
		scsi_lun_map_put(own);
	s->map = NULL;
	if (iscsi_target_drop_initiator(rtt->it, ch->initiator))
		s->effect =
		    "the initiator's sessions on the target were dropped (LUN map switched)";
}

/* ---- lun.add, lun.delete, lun.set: the old entry out, the new one in
 * (the target's map and its demo copy, or an ACL's own map) ---- */
int live_lun_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
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

	t = live_tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
	if (ch->initiator) {
		long ai = cfg_ix_acl(ix, t->name, ch->initiator);

		if (ai < 0)
			return cfg_rt_err(err, -ENOENT, "no ACL \"%s\"", ch->initiator);
		if (!t->acls[ai].initiator)
			return 0; /* by address only: the fabric's policy, at commit */
		l = &t->acls[ai].luns;
		m = live_rt_acl_map(rtt, ch->initiator);
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
		rc = live_edit_del(s, m, old->lun, cfg_rt_lu(rt, old->backstore), old->read_only);
		if (!rc && demo)
			rc = live_edit_del(s, demo, old->lun, cfg_rt_lu(rt, old->backstore), true);
	}
	if (!rc && nl) {
		rc = live_edit_add(s, m, nl->lun, cfg_rt_lu(rt, nl->backstore), nl->read_only);
		if (!rc && demo)
			rc = live_edit_add(s, demo, nl->lun, cfg_rt_lu(rt, nl->backstore), true);
	}
	if (rc) {
		live_edits_undo(s);
		return cfg_rt_err(err, rc, "cannot change LUN %u: %s", nl ? nl->lun : old->lun,
				  strerror(-rc));
	}
	return 0;
}

void live_lun_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
		    struct live_state *s)
{
	live_edits_undo(s);
}
