/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live.c: configuration changes applied to the running objects (live.h):
 * the engine. Every change kind is one row of live_kinds[] below, which
 * says what it does in each phase; the rows' functions are in
 * live_settings.c, live_backstore.c, live_target.c and live_acl.c
 * (live_int.h).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/auth_apply.h"
#include "config/live_int.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* Whose fabric access policy a committed change makes stale. */
enum live_policy {
	LIVE_POLICY_NONE,
	LIVE_POLICY_TARGET, /* the change's target */
	/* the change's target when the map changed is an ACL's by address
	 * (those maps live in the policy; the target's map is the same object
	 * the policy points at) */
	LIVE_POLICY_ADDR_MAP,
	/* every target when the back-store was re-opened (the maps of ACLs by
	 * address still hold the old LU) */
	LIVE_POLICY_REOPENED,
};

/* What a change kind does: a NULL phase does nothing. */
struct live_kind {
	live_prepare_fn *prepare;
	live_abort_fn *abort;
	live_commit_fn *commit;
	enum live_policy policy;
};

static const struct live_kind live_kinds[CFG_CHG_KIND_COUNT] = {
    [CFG_CHG_SETTINGS] = {.prepare = live_settings_prepare,
			  .abort = live_settings_abort,
			  .commit = live_settings_commit},
    [CFG_CHG_BS_ADD] = {.prepare = live_bs_add_prepare, .abort = live_bs_add_abort},
    [CFG_CHG_BS_DEL] = {.prepare = live_bs_del_prepare,
			.abort = live_bs_del_abort,
			.commit = live_bs_del_commit},
    [CFG_CHG_BS_SET] = {.prepare = live_bs_set_prepare,
			.abort = live_bs_set_abort,
			.commit = live_bs_set_commit,
			.policy = LIVE_POLICY_REOPENED},
    [CFG_CHG_TGT_ADD] = {.prepare = live_tgt_add_prepare, .abort = live_tgt_add_abort},
    [CFG_CHG_TGT_DEL] = {.prepare = live_tgt_del_prepare,
			 .abort = live_tgt_del_abort,
			 .commit = live_tgt_del_commit},
    [CFG_CHG_TGT_SET] = {.prepare = live_tgt_set_prepare,
			 .abort = live_tgt_set_abort,
			 .commit = live_tgt_set_commit,
			 .policy = LIVE_POLICY_TARGET},
    [CFG_CHG_TPG_ADD] = {.prepare = live_tpg_add_prepare, .abort = live_tpg_add_abort},
    [CFG_CHG_TPG_DEL] = {.commit = live_tpg_del_commit},
    [CFG_CHG_TPG_SET] = {.prepare = live_tpg_set_prepare,
			 .abort = live_tpg_set_abort,
			 .commit = live_tpg_set_commit},
    [CFG_CHG_ACL_ADD] = {.prepare = live_acl_add_prepare,
			 .abort = live_acl_add_abort,
			 .policy = LIVE_POLICY_TARGET},
    [CFG_CHG_ACL_DEL] = {.prepare = live_acl_del_prepare,
			 .abort = live_acl_del_abort,
			 .commit = live_acl_del_commit,
			 .policy = LIVE_POLICY_TARGET},
    [CFG_CHG_ACL_SET] = {.prepare = live_acl_set_prepare,
			 .abort = live_acl_set_abort,
			 .commit = live_acl_set_commit,
			 .policy = LIVE_POLICY_TARGET},
    [CFG_CHG_LUN_ADD] = {.prepare = live_lun_prepare,
			 .abort = live_lun_abort,
			 .policy = LIVE_POLICY_ADDR_MAP},
    [CFG_CHG_LUN_DEL] = {.prepare = live_lun_prepare,
			 .abort = live_lun_abort,
			 .policy = LIVE_POLICY_ADDR_MAP},
    [CFG_CHG_LUN_SET] = {.prepare = live_lun_prepare,
			 .abort = live_lun_abort,
			 .policy = LIVE_POLICY_ADDR_MAP},
};

/* The row of a change kind; NULL for a kind unknown. */
static const struct live_kind *live_kind(enum cfg_chg_kind k)
{
	return k > 0 && k < CFG_CHG_KIND_COUNT ? &live_kinds[k] : NULL;
}

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

int live_edit_del(struct live_state *s, struct scsi_lun_map *map, uint32_t lun, struct scsi_lu *lu,
		  bool ro)
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

int live_edit_add(struct live_state *s, struct scsi_lun_map *map, uint32_t lun, struct scsi_lu *lu,
		  bool ro)
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

void live_edits_undo(struct live_state *s)
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

/* ---- the running objects ---- */
struct iscsi_tpg *live_rt_tpg(struct cfg_rt_target *rtt, uint16_t tag)
{
	uint8_t key[2];
	uintptr_t v;

	put_be16(key, tag);
	return hmap_get(&rtt->tpgs, key, sizeof(key), &v) ? (struct iscsi_tpg *)v : NULL;
}

void live_rt_tpg_forget(struct cfg_rt_target *rtt, uint16_t tag)
{
	uint8_t key[2];

	put_be16(key, tag);
	hmap_del(&rtt->tpgs, key, sizeof(key));
}

uintptr_t live_rt_unregister(struct hmap *h, const char *name)
{
	uintptr_t v = 0;

	if (hmap_get(h, name, strlen(name), &v))
		hmap_del(h, name, strlen(name));
	return v;
}

int live_rt_register_target(struct cfg_runtime *rt, struct cfg_rt_target *rtt)
{
	return hmap_put(&rt->targets, rtt->name, strlen(rtt->name), (uintptr_t)rtt);
}

struct scsi_lun_map *live_rt_acl_map(struct cfg_rt_target *rtt, const char *initiator)
{
	uintptr_t v = 0;

	if (!initiator || !hmap_get(&rtt->acls, initiator, strlen(initiator), &v))
		return NULL;
	return (struct scsi_lun_map *)v;
}

const struct cfg_target *live_tree_target(const struct cfg *c, const struct cfg_index *ix,
					  const char *name, size_t *ti)
{
	long i = cfg_ix_target(ix, name);

	if (i < 0)
		return NULL;
	*ti = (size_t)i;
	return &c->targets[i];
}

/* ---- dispatch ---- */
int cfg_live_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_chg *ch, struct cfg_err *err)
{
	const struct live_kind *k = live_kind(ch->kind);
	struct live_state *s = live_state(ch);
	int rc = 0;

	*err = (struct cfg_err){0};
	if (!s)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	if (ch->model_only)
		return 0;
	if (!k)
		rc = cfg_rt_err(err, -EINVAL, "unknown change");
	else if (k->prepare)
		rc = k->prepare(rt, c, ix, ch, s, err);
	if (rc)
		cfg_live_abort(rt, c, ch);
	return rc;
}

void cfg_live_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch)
{
	const struct live_kind *k = live_kind(ch->kind);
	struct live_state *s = ch->rt;

	if (!s)
		return;
	if (k && k->abort)
		k->abort(rt, c, ch, s);
	live_state_free(ch);
}

void cfg_live_release(struct cfg_chg *ch)
{
	live_state_free(ch);
}

/* The scope of the access policies a committed change makes stale. */
static enum live_policy live_policy_of(const struct cfg_chg *ch)
{
	const struct live_kind *k = live_kind(ch->kind);
	const struct live_state *s = ch->rt;

	switch (k ? k->policy : LIVE_POLICY_NONE) {
	case LIVE_POLICY_TARGET:
		return LIVE_POLICY_TARGET;
	case LIVE_POLICY_ADDR_MAP:
		return ch->initiator && ch->initiator[0] == '@' ? LIVE_POLICY_TARGET
								: LIVE_POLICY_NONE;
	case LIVE_POLICY_REOPENED:
		return s && s->new_lu ? LIVE_POLICY_REOPENED : LIVE_POLICY_NONE;
	case LIVE_POLICY_NONE:
		break;
	}
	return LIVE_POLICY_NONE;
}

static bool policy_dirty(const struct cfg_chg *ch)
{
	return live_policy_of(ch) == LIVE_POLICY_TARGET && ch->target;
}

static void live_policy(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			const char *target)
{
	struct cfg_rt_target *rtt = cfg_rt_target(rt, target);
	const struct cfg_target *t;
	struct cfg_err err;
	size_t ti = 0;

	t = live_tree_target(c, ix, target, &ti);
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
		const struct live_kind *k = live_kind(ch->kind);
		struct live_state *s = ch->rt;
		char what[512];

		if (!s || ch->model_only)
			continue;
		if (k && k->commit)
			k->commit(rt, c, ix, ch, s);
		/* the replaced entries' references (lun.*, acl.set, backstore.set) */
		for (size_t e = 0; e < s->nedits; e++)
			if (s->edits[e].old_lu) {
				scsi_lu_put(s->edits[e].old_lu);
				s->edits[e].old_lu = NULL;
			}
		s->nedits = 0;
		cfg_chg_describe(ch, what, sizeof(what));
		log_info("config: %s%s%s", what, s->effect ? "; " : "", s->effect ? s->effect : "");
	}
	/* a back-store re-opened: every target's policy */
	for (size_t i = 0; i < x->n; i++) {
		if (live_policy_of(x->v[i]) == LIVE_POLICY_REOPENED) {
			for (size_t t = 0; t < c->ntargets; t++)
				live_policy(rt, c, ix, c->targets[t].name);
			return;
		}
	}
	/* the fabric's access policies, once per target touched */
	for (size_t i = 0; i < x->n; i++) {
		bool seen = false;

		if (!policy_dirty(x->v[i]))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = policy_dirty(x->v[j]) && !strcmp(x->v[j]->target, x->v[i]->target);
		if (!seen)
			live_policy(rt, c, ix, x->v[i]->target);
	}
}
