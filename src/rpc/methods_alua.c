/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_alua.c: ALUA target port groups (SPC-4 5.15) and their access
 * states. The groups are the config's "port_groups" (docs/config.md):
 * alua.list shows them with the states they have now (SET TARGET PORT
 * GROUPS included), alua.set_state changes one state through a settings
 * change (persisted like every change; live, sessions kept, ASYMMETRIC
 * ACCESS STATE CHANGED to the initiators). Defining, removing and
 * regrouping port groups is settings.set {"port_groups": [...]}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/change.h"
#include "config/config.h"
#include "config/ctl.h"
#include "rpc/rpc.h"

/* The settings with the running ALUA states folded in (a new reference). */
static json_t *settings_now(struct rpc_call *call)
{
	struct cfg_chg *ch = NULL;
	struct cfg_err err;
	json_t *cur = cfg_settings_to_json(cfg_ctl_tree()), *j, *out = NULL;

	j = cur ? json_pack("{s:s,s:O}", "op", "settings.set", "object", cur) : NULL;
	if (j && cfg_chg_from_json(j, &ch, &err) == 0 &&
	    cfg_port_groups_sync(ch->obj.settings) == 0) {
		out = cfg_settings_to_json(ch->obj.settings);
		if (out)
			json_object_del(out, "version");
	}
	cfg_chg_free(ch);
	json_decref(j);
	json_decref(cur);
	if (!out)
		rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	return out;
}

static int m_list(struct rpc_call *call)
{
	json_t *s = settings_now(call), *pgs;

	if (!s)
		return -1;
	pgs = json_object_get(s, "port_groups");
	call->result = pgs ? json_incref(pgs) : json_array();
	json_decref(s);
	return 0;
}

static json_t *finish_list(struct rpc_call *call)
{
	json_t *s = settings_now(call), *pgs, *r;

	if (!s)
		return NULL;
	pgs = json_object_get(s, "port_groups");
	r = pgs ? json_incref(pgs) : json_array();
	json_decref(s);
	return r;
}

static int m_set_state(struct rpc_call *call)
{
	json_int_t id = json_integer_value(json_object_get(call->params, "group"));
	const char *state = rpc_str(call, "state");
	const char *bs = rpc_str(call, "backstore");
	json_t *s, *pgs, *g = NULL, *pg;
	size_t i;

	s = settings_now(call);
	if (!s)
		return -1;
	pgs = json_object_get(s, "port_groups");
	json_array_foreach(pgs, i, pg)
	{
		if (json_integer_value(json_object_get(pg, "id")) == id)
			g = pg;
	}
	if (!g) {
		char what[16];

		json_decref(s);
		snprintf(what, sizeof(what), "%lld", (long long)id);
		return rpc_fail(
		    call, RPC_NOT_FOUND, json_pack("{s:s,s:s}", "kind", "port_group", "name", what),
		    "no port group %s in the configuration (define it: utarget alua create %s)",
		    what, what);
	}
	if (!bs) {
		json_object_set_new(g, "state", json_string(state));
	} else {
		json_t *lus = json_object_get(g, "lu_states"), *e, *found = NULL;

		if (!lus) {
			lus = json_array();
			json_object_set_new(g, "lu_states", lus);
		}
		json_array_foreach(lus, i, e)
		{
			const char *name = json_string_value(json_object_get(e, "backstore"));

			if (name && !strcmp(name, bs))
				found = e;
		}
		if (found)
			json_object_set_new(found, "state", json_string(state));
		else
			json_array_append_new(
			    lus, json_pack("{s:s,s:s}", "backstore", bs, "state", state));
	}
	return rpc_settings_change(call, s, finish_list);
}

static const struct rpc_param p_none[] = {{0}};
static const struct rpc_param p_set[] = {
    {.name = "group", .type = RPC_T_INTEGER, .required = true},
    {.name = "state", .type = RPC_T_STRING, .required = true},
    {.name = "backstore", .type = RPC_T_STRING},
    {0},
};

const struct rpc_method rpc_methods_alua[] = {
    {.name = "alua.list", .fn = m_list, .params = p_none},
    {.name = "alua.set_state", .fn = m_set_state, .mutating = true, .params = p_set},
    {0},
};
