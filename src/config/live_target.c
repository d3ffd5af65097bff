/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_target.c: targets and their portal groups changed while running
 * (live.c's target.* and portal_group.* rows): build, unregister, rebuild
 * or edit in place (alias, demo mode; portals). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/diff.h"
#include "config/live_int.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* ---- --listen ----
 * With --listen every portal group listens on the --listen addresses and
 * on none of its configured portals (tests run a config on a free port
 * that way). A change that would make the configuration say otherwise is
 * refused rather than recorded and silently not done: a portal added that
 * is not a --listen address would not be listened on, a --listen address
 * removed from a group would still be. The same change applies once
 * utargetd runs without --listen. */
static bool str_in(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void listen_list(const struct cfg_runtime *rt, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < rt->nlisten && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", rt->listen[i]);

		if (w < 0)
			return;
		n += (size_t)w;
	}
}

/* Group gi of target ti becomes g (old: what it was; NULL: a new group). */
static int listen_check(const struct cfg_runtime *rt, const struct cfg_portal_group *old,
			const struct cfg_portal_group *g, size_t ti, size_t gi, struct cfg_err *err)
{
	char list[512];

	if (!rt->nlisten)
		return 0;
	listen_list(rt, list, sizeof(list));
	for (size_t p = 0; p < g->nportals; p++) {
		if ((old && str_in(old->portals, old->nportals, g->portals[p])) ||
		    str_in(rt->listen, rt->nlisten, g->portals[p]))
			continue;
		cfg_rt_path(err, "targets[%zu].portal_groups[%zu].portals[%zu]", ti, gi, p);
		return cfg_rt_err(err, -EOPNOTSUPP,
				  "%s would not be listened on: utargetd runs with --listen %s, "
				  "which replaces every portal (restart it without --listen to "
				  "listen on the configured ones)",
				  g->portals[p], list);
	}
	for (size_t p = 0; old && p < old->nportals; p++) {
		if (str_in(g->portals, g->nportals, old->portals[p]) ||
		    !str_in(rt->listen, rt->nlisten, old->portals[p]))
			continue;
		cfg_rt_path(err, "targets[%zu].portal_groups[%zu].portals", ti, gi);
		return cfg_rt_err(err, -EOPNOTSUPP,
				  "%s would still be listened on: utargetd runs with --listen %s, "
				  "where every portal group listens",
				  old->portals[p], list);
	}
	return 0;
}

/* ---- target.add ---- */
int live_tgt_add_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	size_t ti = 0;
	int rc;

	if (!live_tree_target(c, ix, c->targets[ch->pos].name, &ti))
		return cfg_rt_err(err, -ENOENT, "no such target");
	for (size_t g = 0; g < c->targets[ti].ntpgs; g++)
		if ((rc = listen_check(rt, NULL, &c->targets[ti].tpgs[g], ti, g, err)))
			return rc;
	rc = cfg_rt_build_target(c, ti, rt, &s->rtt, err);
	if (!rc && live_rt_register_target(rt, s->rtt)) {
		cfg_rt_target_destroy(s->rtt);
		s->rtt = NULL;
		rc = cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	return rc;
}

void live_tgt_add_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	if (s->rtt) {
		live_rt_unregister(&rt->targets, s->rtt->name);
		cfg_rt_target_destroy(s->rtt);
	}
}

/* ---- target.delete: unregistered at prepare, torn down at commit ---- */
int live_tgt_del_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	s->rtt = (struct cfg_rt_target *)live_rt_unregister(&rt->targets, ch->target);
	return 0;
}

void live_tgt_del_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	if (s->rtt && live_rt_register_target(rt, s->rtt))
		log_err("config: lost target %s while rolling back", ch->target);
}

void live_tgt_del_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	if (s->rtt) {
		cfg_rt_target_destroy(s->rtt);
		s->effect = "the target's sessions were dropped";
	}
}

/* ---- target.set ---- */

/* Own fields that can change without rebuilding the target. */
static const char *const live_target_fields[] = {
    "alias",	"demo_mode",	"auth", "limits", "require_header_digest", "require_data_digest",
    "redirect", "async_events", NULL,
};

/* Whether old and new own fields differ only in fields changeable live. */
static bool target_live_ok(const struct cfg_target *old, const struct cfg_target *nt)
{
	struct cfg_target a = cfg_target_own(old), b = cfg_target_own(nt);

	return cfg_object_same(CFG_OBJ_TARGET, &a, &b, live_target_fields);
}

int live_tgt_set_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *old = &ch->obj.t, *t;
	size_t ti = 0;

	t = live_tree_target(c, ix, ch->target, &ti);
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

void live_tgt_set_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	if (s->rtt)
		cfg_rt_target_destroy(s->rtt);
	if (s->map)
		scsi_lun_map_put(s->map);
}

void live_tgt_set_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_target *t;
	size_t ti = 0;

	t = live_tree_target(c, ix, ch->target, &ti);
	if (!rtt || !t)
		return;
	if (s->rebuild) {
		live_rt_register_target(rt, s->rtt); /* replaces: no allocation */
		cfg_rt_target_destroy(rtt);
		s->rtt = NULL;
		s->effect = "the target was rebuilt: its sessions were dropped";
		return;
	}
	iscsi_target_set_alias(rtt->it, t->alias);
	cfg_rt_set_target_redirect(rtt->it, t->redirect);
	iscsi_target_set_async_events(rtt->it, t->async_events);
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

/* ---- portal_group.add ---- */
int live_tpg_add_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	size_t ti = 0;
	const struct cfg_target *t = live_tree_target(c, ix, ch->target, &ti);
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	int rc;

	if (!t || !rtt)
		return cfg_rt_err(err, -ENOENT, "target \"%s\" is not running", ch->target);
	rc = listen_check(rt, NULL, &t->tpgs[ch->pos], ti, ch->pos, err);
	if (rc)
		return rc;
	rc = cfg_rt_build_tpg(c, ti, ch->pos, rt, rtt, err);
	s->tpg = live_rt_tpg(rtt, t->tpgs[ch->pos].tag);
	if (rc && s->tpg) {
		live_rt_tpg_forget(rtt, t->tpgs[ch->pos].tag);
		iscsi_tpg_del(s->tpg);
		s->tpg = NULL;
	}
	return rc;
}

void live_tpg_add_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	struct cfg_rt_target *rtt;

	if (!s->tpg)
		return;
	rtt = cfg_rt_target(rt, ch->target);
	if (rtt)
		live_rt_tpg_forget(rtt, ch->obj.g.tag ? ch->obj.g.tag : ch->tag);
	iscsi_tpg_del(s->tpg);
}

/* ---- portal_group.delete: at commit (its sessions go) ---- */
void live_tpg_del_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct iscsi_tpg *tpg = rtt ? live_rt_tpg(rtt, ch->tag) : NULL;

	if (tpg) {
		live_rt_tpg_forget(rtt, ch->tag);
		iscsi_tpg_del(tpg);
		s->effect = "the portal group's sessions were dropped";
	}
}

/* ---- portal_group.set ---- */

/* Portal groups that differ in more than their portals and redirection
 * are rebuilt. */
static bool tpg_only_portals_differ(const struct cfg_portal_group *a,
				    const struct cfg_portal_group *b)
{
	struct cfg_portal_group x = *a, y = *b;

	x.portals = y.portals = NULL;
	x.nportals = y.nportals = 0;
	x.redirect = y.redirect = NULL;
	return cfg_object_same(CFG_OBJ_PORTAL_GROUP, &x, &y, NULL);
}

int live_tpg_set_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_portal_group *old = &ch->obj.g, *g;
	struct iscsi_tpg *tpg;
	size_t ti = 0;
	long gi;
	const struct cfg_target *t = live_tree_target(c, ix, ch->target, &ti);

	gi = t ? cfg_ix_tpg(ix, t->name, ch->tag) : -1;
	tpg = rtt ? live_rt_tpg(rtt, ch->tag) : NULL;
	if (gi < 0 || !tpg)
		return cfg_rt_err(err, -ENOENT, "portal group %u is not running", ch->tag);
	g = &t->tpgs[gi];
	if (listen_check(rt, old, g, ti, (size_t)gi, err))
		return -EOPNOTSUPP;
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

void live_tpg_set_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	struct iscsi_tpg *tpg = rtt ? live_rt_tpg(rtt, ch->tag) : NULL;

	for (size_t i = 0; tpg && i < s->nadded; i++)
		iscsi_tpg_portal_del(tpg, s->added[i]);
}

void live_tpg_set_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			 struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, ch->target);
	const struct cfg_portal_group *old = &ch->obj.g, *g;
	struct iscsi_tpg *tpg = rtt ? live_rt_tpg(rtt, ch->tag) : NULL;
	const struct cfg_target *t;
	struct cfg_err err;
	size_t ti = 0;
	long gi;

	t = live_tree_target(c, ix, ch->target, &ti);
	gi = t ? cfg_ix_tpg(ix, t->name, ch->tag) : -1;
	if (!tpg || gi < 0)
		return;
	g = &t->tpgs[gi];
	if (s->rebuild) {
		live_rt_tpg_forget(rtt, ch->tag);
		iscsi_tpg_del(tpg);
		if (cfg_rt_build_tpg(c, ti, (size_t)gi, rt, rtt, &err))
			log_err("config: %s: %s", err.path, err.msg);
		s->effect = "the portal group was rebuilt: its sessions were dropped";
		return;
	}
	cfg_rt_set_tpg_redirect(tpg, g->redirect);
	if (rt->nlisten)
		return;
	for (size_t p = 0; p < old->nportals; p++)
		if (!str_in(g->portals, g->nportals, old->portals[p]))
			iscsi_tpg_portal_del(tpg, old->portals[p]);
}
