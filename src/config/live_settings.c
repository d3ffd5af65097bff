/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_settings.c: the global settings changed while running (live.c's
 * settings row): the ALUA port groups at prepare (undone at abort), the
 * iSCSI settings, log level, discovery policy and iSNS at commit, and the portal
 * groups whose target port group changed moved there. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "config/auth_apply.h"
#include "config/live_int.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "scsi/alua.h"

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

		rc = cfg_rt_define_group(g, i, err);
		if (rc)
			break;
		defs[i] = g->id;
		/* per-LU states the new config no longer lists: back to the default */
		if (o && o->nlus && (rc = scsi_alua_set_state(g->id, NULL, g->state))) {
			cfg_rt_err(err, rc, "cannot reset the states of port group %u: %s", g->id,
				   strerror(-rc));
			break;
		}
		rc = cfg_rt_group_states(g, i, err);
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

int live_settings_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			  struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
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

void live_settings_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
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
			struct iscsi_tpg *tpg = rtt ? live_rt_tpg(rtt, tag) : NULL;
			struct cfg_err err;

			if (!tpg || now[k] == before[k])
				continue;
			if (iscsi_tpg_set_port_group(tpg, now[k]) == 0) {
				log_notice("config: %s portal group %u moved to target port group "
					   "%u (its sessions stay)",
					   c->targets[i].name, tag, now[k]);
				continue;
			}
			live_rt_tpg_forget(rtt, tag); /* out of memory: rebuilt in the new group */
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

void live_settings_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			  struct cfg_chg *ch, struct live_state *s)
{
	struct cfg_err err;

	/* new logins and connections take the new values */
	cfg_apply_iscsi_settings(c); /* iscsi_init() */
	if (!rt->log_level_fixed && c->log_level)
		log_set_level(log_level_parse(c->log_level));
	if (cfg_auth_apply_discovery(c, &err))
		log_err("config: discovery settings: %s", err.msg);
	cfg_apply_isns(c); /* iSNS: unchanged settings change nothing */
	if (s->rebuild)
		live_regroup(rt, c, ch->obj.settings);
}
