/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_target.c: targets, portal groups and portals, LUN maps and
 * initiator ACLs (docs/rpc.md). Each method names its object by keys
 * (target name, portal group tag, initiator or ACL key, LUN) and changes it
 * through one change of the configuration (config/change.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/compiler.h"
#include "rpc/rpc.h"

/* ---- lookups ---- */
static const struct cfg_target *target_find(const char *name, size_t *ti)
{
	long i = name ? cfg_ix_target(cfg_ctl_index(), name) : -1;

	if (i < 0)
		return NULL;
	if (ti)
		*ti = (size_t)i;
	return &cfg_ctl_tree()->targets[i];
}

/* -32002 for a missing object: "no <kind> <name>" */
static int fail_nf(struct rpc_call *call, const char *kind, const char *name)
{
	return rpc_fail(call, RPC_NOT_FOUND,
			json_pack("{s:s,s:s}", "kind", kind, "name", name ? name : ""),
			"no %s \"%s\"", kind, name ? name : "");
}

static const struct cfg_target *need_target(struct rpc_call *call, const char *key)
{
	const char *name = rpc_str(call, key);
	const struct cfg_target *t = target_find(name, NULL);

	if (!t)
		fail_nf(call, "target", name);
	return t;
}

static const struct cfg_portal_group *tpg_find(const struct cfg_target *t, json_int_t tag)
{
	long g = tag > 0 && tag <= 65535 ? cfg_ix_tpg(cfg_ctl_index(), t->name, (uint16_t)tag) : -1;

	return g < 0 ? NULL : &t->tpgs[g];
}

static const struct cfg_acl *acl_find(const struct cfg_target *t, const char *key)
{
	long a = key ? cfg_ix_acl(cfg_ctl_index(), t->name, key) : -1;

	return a < 0 ? NULL : &t->acls[a];
}

static json_int_t p_int(const struct rpc_call *call, const char *key)
{
	return json_integer_value(json_object_get(call->params, key));
}

static unsigned target_sessions(const char *name)
{
	struct iscsi_session_info *s = NULL;
	size_t n = 0;
	unsigned k = 0;

	if (iscsi_session_list(&s, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		k += !s[i].discovery && strcmp(s[i].target, name) == 0;
	free(s);
	return k;
}

/* The finish of a change: the object as it is after the commit. */
enum obj_what { W_TARGET, W_TPG, W_ACL, W_LUN, W_EMPTY };
struct obj_ref {
	enum obj_what what;
	char target[CFG_ISCSI_NAME_MAX + 1];
	char key[CFG_ACL_KEY_MAX]; /* ACL key; LUN: the ACL (or "") */
	uint32_t num;		   /* tag / LUN */
	int dropped;		   /* W_EMPTY of target.delete: its sessions, else -1 */
};

/* What portal group g really listens on: its portals, or with --listen
 * the --listen addresses. */
static json_t *tpg_listening(const struct cfg_portal_group *g)
{
	const char *const *listen;
	size_t n = cfg_ctl_listen(&listen);
	json_t *a = json_array();

	if (!n) {
		listen = (const char *const *)g->portals;
		n = g->nportals;
	}
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(listen[i]));
	return a;
}

/* What the redirection's balance counts (redirect.c): the connections of
 * logged-in sessions per portal of the running group. */
static json_t *tpg_load(const char *target, uint16_t tag)
{
	struct iscsi_portal_load v[16];
	size_t n = cfg_ctl_tpg_load(target, tag, v, ARRAY_SIZE(v));
	json_t *a = json_array();

	for (size_t i = 0; a && i < n && i < ARRAY_SIZE(v); i++)
		json_array_append_new(a, json_pack("{s:s,s:I}", "portal", v[i].addr, "connections",
						   (json_int_t)v[i].conns));
	return a;
}

/* A portal group as the API shows it: the config's fields, "listening"
 * and "load". */
static json_t *tpg_json(const struct cfg_target *t, const struct cfg_portal_group *g)
{
	json_t *o = cfg_object_to_json(CFG_OBJ_PORTAL_GROUP, g);

	if (o) {
		json_object_set_new(o, "listening", tpg_listening(g));
		json_object_set_new(o, "load", tpg_load(t->name, g->tag));
	}
	return o;
}

static json_t *target_json(const struct cfg_target *t)
{
	json_t *o = cfg_object_to_json(CFG_OBJ_TARGET, t), *groups;

	if (!o)
		return NULL;
	json_object_set_new(o, "sessions", json_integer(target_sessions(t->name)));
	groups = json_object_get(o, "portal_groups");
	for (size_t g = 0; g < t->ntpgs && g < json_array_size(groups); g++)
		json_object_set_new(json_array_get(groups, g), "listening",
				    tpg_listening(&t->tpgs[g]));
	return o;
}

static json_t *acl_json(const struct cfg_acl *a)
{
	json_t *o = cfg_object_to_json(CFG_OBJ_ACL, a);
	char key[CFG_ACL_KEY_MAX];

	if (o && cfg_acl_key(a, key, sizeof(key)) == 0)
		json_object_set_new(o, "key", json_string(key));
	return o;
}

static json_t *finish_ref(struct rpc_call *call)
{
	const struct obj_ref *r = call->priv;
	const struct cfg_target *t = target_find(r->target, NULL);
	const struct cfg_lun_list *l;

	if (r->what == W_EMPTY && r->dropped >= 0)
		return json_pack("{s:i}", "sessions_dropped", (json_int_t)r->dropped);
	if (r->what == W_EMPTY || !t)
		return json_object();
	switch (r->what) {
	case W_TARGET:
		return target_json(t);
	case W_TPG: {
		const struct cfg_portal_group *g = tpg_find(t, r->num);
		return g ? tpg_json(t, g) : json_object();
	}
	case W_ACL: {
		const struct cfg_acl *a = acl_find(t, r->key);
		return a ? acl_json(a) : json_object();
	}
	case W_LUN: {
		long p = cfg_ix_lun(cfg_ctl_index(), t->name, r->key[0] ? r->key : NULL, r->num);
		const struct cfg_acl *a = r->key[0] ? acl_find(t, r->key) : NULL;

		l = a ? &a->luns : &t->luns;
		return p < 0 ? json_object() : cfg_object_to_json(CFG_OBJ_LUN, &l->v[p]);
	}
	default:
		return json_object();
	}
}

static int keep_ref(struct rpc_call *call, enum obj_what what, const char *target, const char *key,
		    uint32_t num)
{
	struct obj_ref *r = calloc(1, sizeof(*r));

	if (!r)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	r->what = what;
	snprintf(r->target, sizeof(r->target), "%s", target ? target : "");
	snprintf(r->key, sizeof(r->key), "%s", key ? key : "");
	r->num = num;
	r->dropped = -1;
	call->priv = r;
	call->finish = finish_ref;
	return 0;
}

/* ---- targets ---- */
static int m_target_list(struct rpc_call *call)
{
	const struct cfg *c = cfg_ctl_tree();
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->ntargets; i++)
		json_array_append_new(a, target_json(&c->targets[i]));
	call->result = a;
	return a ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static int m_target_get(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "name");

	if (!t)
		return -1;
	call->result = target_json(t);
	return 0;
}

/* The portals of a portal group created without any: the --listen
 * addresses (nothing else would be listened on), else the config's
 * "default_portals", else CFG_DEFAULT_PORTAL. */
static json_t *default_portals(void)
{
	const struct cfg *c = cfg_ctl_tree();
	const char *const *addrs;
	size_t n = cfg_ctl_listen(&addrs);
	json_t *a = json_array();

	if (!n && c->ndefault_portals) {
		addrs = (const char *const *)c->default_portals;
		n = c->ndefault_portals;
	}
	if (!n)
		return a && !json_array_append_new(a, json_string(CFG_DEFAULT_PORTAL)) ? a : NULL;
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(addrs[i]));
	return a;
}

/* A target without portal_groups gets one, tag 1; a portal group without
 * portals gets the default ones. */
static void fill_portals(json_t *o)
{
	json_t *groups = json_object_get(o, "portal_groups"), *g;
	size_t i;

	if (!groups) {
		groups = json_pack("[{s:i}]", "tag", 1);
		json_object_set_new(o, "portal_groups", groups);
	}
	json_array_foreach(groups, i, g)
	{
		if (json_is_object(g) && !json_object_get(g, "portals"))
			json_object_set_new(g, "portals", default_portals());
	}
}

static int m_target_create(struct rpc_call *call)
{
	struct cfg_chg *ch = rpc_chg(call, CFG_CHG_TGT_ADD, NULL, NULL, NULL);
	json_t *o;

	if (!ch)
		return -1;
	o = json_deep_copy(call->params);
	if (o)
		fill_portals(o);
	if (rpc_chg_object(call, ch, CFG_OBJ_TARGET, o)) {
		json_decref(o);
		return -1;
	}
	json_decref(o);
	return keep_ref(call, W_TARGET, ch->obj.t.name, NULL, 0);
}

/* A target with sessions logged in is deleted only when asked with force:
 * its sessions are dropped, and the answer counts them. */
static int m_target_delete(struct rpc_call *call)
{
	const char *name = rpc_str(call, "name");
	unsigned n = name ? target_sessions(name) : 0;

	if (n && !json_is_true(json_object_get(call->params, "force")))
		return rpc_fail(call, RPC_IN_USE,
				json_pack("{s:s,s:s,s:i}", "kind", "target", "name", name,
					  "sessions", (json_int_t)n),
				"target %s has %u session%s logged in, which deleting it drops: "
				"confirm with --force (\"force\": true)",
				name, n, n == 1 ? "" : "s");
	if (!rpc_chg(call, CFG_CHG_TGT_DEL, name, NULL, NULL) ||
	    keep_ref(call, W_EMPTY, NULL, NULL, 0))
		return -1;
	((struct obj_ref *)call->priv)->dropped = (int)n;
	return 0;
}

static const char *const target_children[] = {"name", "portal_groups", "luns", "acls", NULL};

/* A "redirect" given replaces the old one whole (it is one choice, not a
 * section merged field by field: {"balance": true} after an address). */
static json_t *redirect_whole(json_t *cur, const struct rpc_call *call)
{
	if (cur && json_object_get(call->params, "redirect"))
		json_object_del(cur, "redirect");
	return cur;
}

static int m_target_set(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "name");
	struct cfg_target own;
	struct cfg_chg *ch;
	json_t *o;

	if (!t)
		return -1;
	own = *t;
	own.tpgs = NULL;
	own.ntpgs = 0;
	own.luns = (struct cfg_lun_list){0};
	own.acls = NULL;
	own.nacls = 0;
	o = rpc_merge(redirect_whole(cfg_object_to_json(CFG_OBJ_TARGET, &own), call), call,
		      target_children);
	ch = rpc_chg(call, CFG_CHG_TGT_SET, t->name, NULL, NULL);
	if (!o || !ch || rpc_chg_object(call, ch, CFG_OBJ_TARGET, o)) {
		json_decref(o);
		return call->code ? -1 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	json_decref(o);
	return keep_ref(call, W_TARGET, t->name, NULL, 0);
}

/* ---- portal groups ---- */
static int m_tpg_list(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	json_t *a;

	if (!t)
		return -1;
	a = json_array();
	for (size_t g = 0; a && g < t->ntpgs; g++)
		json_array_append_new(a, tpg_json(t, &t->tpgs[g]));
	call->result = a;
	return 0;
}

static const char *const ctx_target[] = {"target", NULL};

static int m_tpg_create(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	struct cfg_chg *ch;
	json_t *o;

	if (!t)
		return -1;
	ch = rpc_chg(call, CFG_CHG_TPG_ADD, t->name, NULL, NULL);
	o = rpc_params_without(call, ctx_target);
	if (!ch || rpc_chg_object(call, ch, CFG_OBJ_PORTAL_GROUP, o)) {
		json_decref(o);
		return -1;
	}
	json_decref(o);
	return keep_ref(call, W_TPG, t->name, NULL, ch->obj.g.tag);
}

static int m_tpg_delete(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	struct cfg_chg *ch;

	if (!t)
		return -1;
	ch = rpc_chg(call, CFG_CHG_TPG_DEL, t->name, NULL, NULL);
	if (!ch)
		return -1;
	ch->tag = (uint16_t)p_int(call, "tag");
	if (p_int(call, "tag") < 1 || p_int(call, "tag") > 65535)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "tag"),
				"tag: 1..65535");
	return keep_ref(call, W_EMPTY, NULL, NULL, 0);
}

/* portal_group.set / portal.add / portal.delete: a changed copy */
static int tpg_change(struct rpc_call *call, const struct cfg_target *t, json_t *o)
{
	struct cfg_chg *ch = rpc_chg(call, CFG_CHG_TPG_SET, t->name, NULL, NULL);
	json_int_t tag = p_int(call, "tag");

	if (!o || !ch || rpc_chg_object(call, ch, CFG_OBJ_PORTAL_GROUP, o)) {
		json_decref(o);
		return call->code ? -1 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	json_decref(o);
	ch->tag = (uint16_t)tag;
	return keep_ref(call, W_TPG, t->name, NULL, (uint32_t)tag);
}

static const struct cfg_portal_group *need_tpg(struct rpc_call *call, const struct cfg_target *t)
{
	const struct cfg_portal_group *g = tpg_find(t, p_int(call, "tag"));
	char what[32];

	if (!g) {
		snprintf(what, sizeof(what), "%lld", (long long)p_int(call, "tag"));
		fail_nf(call, "portal_group", what);
	}
	return g;
}

static const char *const tpg_drop[] = {"target", "tag", NULL};

static int m_tpg_set(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	const struct cfg_portal_group *g = t ? need_tpg(call, t) : NULL;

	if (!g)
		return -1;
	return tpg_change(
	    call, t,
	    rpc_merge(redirect_whole(cfg_object_to_json(CFG_OBJ_PORTAL_GROUP, g), call), call,
		      tpg_drop));
}

static int m_portal(struct rpc_call *call, bool add)
{
	const struct cfg_target *t = need_target(call, "target");
	const struct cfg_portal_group *g = t ? need_tpg(call, t) : NULL;
	const char *addr = rpc_str(call, "portal");
	json_t *o, *arr;
	bool found = false;

	if (!g)
		return -1;
	for (size_t p = 0; p < g->nportals; p++)
		found |= strcmp(g->portals[p], addr) == 0;
	if (add && found)
		return rpc_fail(call, RPC_EXISTS,
				json_pack("{s:s,s:s}", "kind", "portal", "name", addr),
				"portal group %u already listens on %s", g->tag, addr);
	if (!add && !found)
		return fail_nf(call, "portal", addr);
	o = cfg_object_to_json(CFG_OBJ_PORTAL_GROUP, g);
	arr = json_array();
	for (size_t p = 0; arr && p < g->nportals; p++)
		if (add || strcmp(g->portals[p], addr))
			json_array_append_new(arr, json_string(g->portals[p]));
	if (add && arr)
		json_array_append_new(arr, json_string(addr));
	if (o && arr)
		json_object_set_new(o, "portals", arr);
	else
		json_decref(arr);
	return tpg_change(call, t, o);
}

static int m_portal_add(struct rpc_call *call)
{
	return m_portal(call, true);
}

static int m_portal_delete(struct rpc_call *call)
{
	return m_portal(call, false);
}

/* ---- LUNs ---- */

/* The LUN list the call names: the target's, or an ACL's own. */
static const struct cfg_lun_list *lun_list(struct rpc_call *call, const struct cfg_target *t)
{
	const char *ini = rpc_str(call, "initiator");
	const struct cfg_acl *a;

	if (!ini)
		return &t->luns;
	a = acl_find(t, ini);
	if (!a) {
		fail_nf(call, "acl", ini);
		return NULL;
	}
	if (!a->has_luns) {
		rpc_fail(call, RPC_CONFIG_INVALID, json_pack("{s:s}", "message", "no own map"),
			 "the ACL of \"%s\" uses the target's LUN map (give it its own: "
			 "utarget acl set %s %s --lun LUN:BACKSTORE)",
			 ini, t->name, ini);
		return NULL;
	}
	return &a->luns;
}

static int m_lun_list(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	const struct cfg_lun_list *l = t ? lun_list(call, t) : NULL;
	json_t *a;

	if (!l)
		return -1;
	a = json_array();
	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, cfg_object_to_json(CFG_OBJ_LUN, &l->v[i]));
	call->result = a;
	return 0;
}

static int m_lun_add(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	const char *ini = rpc_str(call, "initiator");
	const struct cfg_lun_list *l = t ? lun_list(call, t) : NULL;
	struct cfg_chg *ch;
	json_int_t lun;
	json_t *o;

	if (!l)
		return -1;
	if (rpc_has(call, "lun")) {
		lun = p_int(call, "lun");
	} else {
		/* the lowest free LUN (O(1) per LUN tried) */
		for (lun = 0; lun <= CFG_MAX_LUN; lun++)
			if (cfg_ix_lun(cfg_ctl_index(), t->name, ini, (uint32_t)lun) < 0)
				break;
		if (lun > CFG_MAX_LUN)
			return rpc_fail(call, RPC_CONFIG_INVALID, NULL, "every LUN is mapped");
	}
	o = json_pack("{s:I,s:s,s:b}", "lun", lun, "backstore", rpc_str(call, "backstore"),
		      "read_only", json_is_true(json_object_get(call->params, "read_only")));
	ch = rpc_chg(call, CFG_CHG_LUN_ADD, t->name, ini, NULL);
	if (!ch || rpc_chg_object(call, ch, CFG_OBJ_LUN, o)) {
		json_decref(o);
		return -1;
	}
	json_decref(o);
	return keep_ref(call, W_LUN, t->name, ini, (uint32_t)lun);
}

static int m_lun_delete(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	struct cfg_chg *ch;

	if (!t || !lun_list(call, t))
		return -1;
	ch = rpc_chg(call, CFG_CHG_LUN_DEL, t->name, rpc_str(call, "initiator"), NULL);
	if (!ch)
		return -1;
	ch->lun = (uint32_t)p_int(call, "lun");
	return keep_ref(call, W_EMPTY, NULL, NULL, 0);
}

static int m_lun_set(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	const char *ini = rpc_str(call, "initiator");
	const struct cfg_lun_list *l = t ? lun_list(call, t) : NULL;
	static const char *const drop[] = {"target", "initiator", "lun", NULL};
	json_int_t lun = p_int(call, "lun");
	struct cfg_chg *ch;
	json_t *o;
	long p;

	if (!l)
		return -1;
	p = lun >= 0 && lun <= CFG_MAX_LUN
		? cfg_ix_lun(cfg_ctl_index(), t->name, ini, (uint32_t)lun)
		: -1;
	if (p < 0) {
		char what[32];

		snprintf(what, sizeof(what), "%lld", (long long)lun);
		return fail_nf(call, "lun", what);
	}
	o = rpc_merge(cfg_object_to_json(CFG_OBJ_LUN, &l->v[p]), call, drop);
	ch = rpc_chg(call, CFG_CHG_LUN_SET, t->name, ini, NULL);
	if (!o || !ch || rpc_chg_object(call, ch, CFG_OBJ_LUN, o)) {
		json_decref(o);
		return call->code ? -1 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	json_decref(o);
	ch->lun = (uint32_t)lun;
	return keep_ref(call, W_LUN, t->name, ini, (uint32_t)lun);
}

/* ---- ACLs ---- */
static int m_acl_list(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	json_t *a;

	if (!t)
		return -1;
	a = json_array();
	for (size_t i = 0; a && i < t->nacls; i++)
		json_array_append_new(a, acl_json(&t->acls[i]));
	call->result = a;
	return 0;
}

static int m_acl_create(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	char key[CFG_ACL_KEY_MAX];
	struct cfg_chg *ch;
	json_t *o;

	if (!t)
		return -1;
	ch = rpc_chg(call, CFG_CHG_ACL_ADD, t->name, NULL, NULL);
	o = rpc_params_without(call, ctx_target);
	if (!ch || rpc_chg_object(call, ch, CFG_OBJ_ACL, o)) {
		json_decref(o);
		return -1;
	}
	json_decref(o);
	if (cfg_acl_key(&ch->obj.a, key, sizeof(key)))
		return rpc_fail(call, RPC_INVALID_PARAMS, NULL, "the ACL's addresses are too long");
	return keep_ref(call, W_ACL, t->name, key, 0);
}

static const struct cfg_acl *need_acl(struct rpc_call *call, const struct cfg_target *t)
{
	const char *key = rpc_str(call, "initiator");
	const struct cfg_acl *a = acl_find(t, key);

	if (!a)
		fail_nf(call, "acl", key);
	return a;
}

static int m_acl_delete(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");

	if (!t || !need_acl(call, t))
		return -1;
	if (!rpc_chg(call, CFG_CHG_ACL_DEL, t->name, rpc_str(call, "initiator"), NULL))
		return -1;
	return keep_ref(call, W_EMPTY, NULL, NULL, 0);
}

static int m_acl_set(struct rpc_call *call)
{
	const struct cfg_target *t = need_target(call, "target");
	const struct cfg_acl *a = t ? need_acl(call, t) : NULL;
	static const char *const drop[] = {"target", "initiator", NULL};
	const char *key = rpc_str(call, "initiator");
	struct cfg_chg *ch;
	json_t *o;

	if (!a)
		return -1;
	o = rpc_merge(cfg_object_to_json(CFG_OBJ_ACL, a), call, drop);
	ch = rpc_chg(call, CFG_CHG_ACL_SET, t->name, key, NULL);
	if (!o || !ch || rpc_chg_object(call, ch, CFG_OBJ_ACL, o)) {
		json_decref(o);
		return call->code ? -1 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	json_decref(o);
	return keep_ref(call, W_ACL, t->name, key, 0);
}

/* ---- the table ---- */
static const struct rpc_param p_none[] = {{0}};
static const struct rpc_param p_name[] = {
    {.name = "name", .type = RPC_T_STRING, .required = true},
    {0},
};
static const struct rpc_param p_target_delete[] = {
    {.name = "name", .type = RPC_T_STRING, .required = true},
    {.name = "force", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_target[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {0},
};
static const struct rpc_param p_tpg[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "tag", .type = RPC_T_INTEGER, .required = true},
    {0},
};
static const struct rpc_param p_portal[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "tag", .type = RPC_T_INTEGER, .required = true},
    {.name = "portal", .type = RPC_T_STRING, .required = true},
    {0},
};
static const struct rpc_param p_lun_list[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING},
    {0},
};
static const struct rpc_param p_lun_add[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING},
    {.name = "lun", .type = RPC_T_INTEGER},
    {.name = "backstore", .type = RPC_T_STRING, .required = true},
    {.name = "read_only", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_lun_del[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING},
    {.name = "lun", .type = RPC_T_INTEGER, .required = true},
    {0},
};
static const struct rpc_param p_lun_set[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING},
    {.name = "lun", .type = RPC_T_INTEGER, .required = true},
    {.name = "backstore", .type = RPC_T_STRING},
    {.name = "read_only", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_acl[] = {
    {.name = "target", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING, .required = true},
    {0},
};
static const char *const none_except[] = {NULL};
static const char *const tpg_except[] = {"tag", NULL};
static const char *const acl_except[] = {"initiator", NULL};

const struct rpc_method rpc_methods_target[] = {
    {.name = "target.list", .fn = m_target_list, .params = p_none},
    {.name = "target.get", .fn = m_target_get, .params = p_name},
    {.name = "target.create",
     .fn = m_target_create,
     .mutating = true,
     .params = p_none,
     .object = true,
     .kind = CFG_OBJ_TARGET,
     .except = none_except},
    {.name = "target.delete", .fn = m_target_delete, .mutating = true, .params = p_target_delete},
    {.name = "target.set",
     .fn = m_target_set,
     .mutating = true,
     .params = p_name,
     .object = true,
     .kind = CFG_OBJ_TARGET,
     .except = target_children},
    {.name = "portal_group.list", .fn = m_tpg_list, .params = p_target},
    {.name = "portal_group.create",
     .fn = m_tpg_create,
     .mutating = true,
     .params = p_target,
     .object = true,
     .kind = CFG_OBJ_PORTAL_GROUP,
     .except = none_except},
    {.name = "portal_group.delete", .fn = m_tpg_delete, .mutating = true, .params = p_tpg},
    {.name = "portal_group.set",
     .fn = m_tpg_set,
     .mutating = true,
     .params = p_tpg,
     .object = true,
     .kind = CFG_OBJ_PORTAL_GROUP,
     .except = tpg_except},
    {.name = "portal.add", .fn = m_portal_add, .mutating = true, .params = p_portal},
    {.name = "portal.delete", .fn = m_portal_delete, .mutating = true, .params = p_portal},
    {.name = "lun.list", .fn = m_lun_list, .params = p_lun_list},
    {.name = "lun.add", .fn = m_lun_add, .mutating = true, .params = p_lun_add},
    {.name = "lun.delete", .fn = m_lun_delete, .mutating = true, .params = p_lun_del},
    {.name = "lun.set", .fn = m_lun_set, .mutating = true, .params = p_lun_set},
    {.name = "acl.list", .fn = m_acl_list, .params = p_target},
    {.name = "acl.create",
     .fn = m_acl_create,
     .mutating = true,
     .params = p_target,
     .object = true,
     .kind = CFG_OBJ_ACL,
     .except = none_except},
    {.name = "acl.delete", .fn = m_acl_delete, .mutating = true, .params = p_acl},
    {.name = "acl.set",
     .fn = m_acl_set,
     .mutating = true,
     .params = p_acl,
     .object = true,
     .kind = CFG_OBJ_ACL,
     .except = acl_except},
    {0},
};
