/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_isns.c: iSNS (RFC 4171; the fabric's isns.c). isns.get answers
 * the config's "isns" object and the client's state; isns.set changes the
 * object (the given fields; "enabled": false turns it off) through a
 * settings change, so it applies live and is persisted like every change;
 * settings.set {"isns": {...}} does the same with the whole object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/change.h"
#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "rpc/rpc.h"

static json_t *isns_json(void)
{
	json_t *s = cfg_settings_to_json(cfg_ctl_tree()), *cfg, *dds = json_array(), *o;
	struct iscsi_isns_status st;

	iscsi_isns_status(&st);
	for (unsigned i = 0; dds && i < st.ndds; i++)
		json_array_append_new(
		    dds, json_pack("{s:i,s:s,s:i}", "id", (json_int_t)st.dds[i].id, "name",
				   st.dds[i].name, "members", (json_int_t)st.dds[i].members));
	cfg = s ? json_object_get(s, "isns") : NULL;
	o = json_pack("{s:O,s:{s:b,s:b,s:b,s:b,s:s,s:s,s:i,s:i,s:i,s:i,s:I,s:s,s:I,s:I,s:I,s:o}}",
		      "config", cfg ? cfg : json_null(), "status", "enabled", st.enabled,
		      "connected", st.connected, "registered", st.registered, "access_control",
		      st.access_control, "server", st.server, "entity", st.entity, "esi_port",
		      (json_int_t)st.esi_port, "targets", (json_int_t)st.targets, "portals",
		      (json_int_t)st.portals, "portal_groups", (json_int_t)st.portal_groups,
		      "last_registration", (json_int_t)st.last_registration, "last_error",
		      st.last_error, "registrations", (json_int_t)st.registrations, "esi_received",
		      (json_int_t)st.esi_received, "scn_received", (json_int_t)st.scn_received,
		      "discovery_domains", dds ? dds : json_array());
	json_decref(s);
	return o;
}

static int m_get(struct rpc_call *call)
{
	call->result = isns_json();
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static json_t *finish_set(struct rpc_call *call)
{
	return isns_json();
}

static int m_set(struct rpc_call *call)
{
	static const char *const keys[] = {"server", "entity", "esi_port", "access_control",
					   "enabled"};
	json_t *s = cfg_settings_to_json(cfg_ctl_tree()), *o;

	if (!s)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	json_object_del(s, "version");
	o = json_object_get(s, "isns");
	if (!o) {
		o = json_object();
		json_object_set_new(s, "isns", o);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(call->params, keys[i]);

		if (v)
			json_object_set(o, keys[i], v);
	}
	/* an empty entity: back to the default (the host name) */
	if (json_is_string(json_object_get(o, "entity")) &&
	    !json_string_length(json_object_get(o, "entity")))
		json_object_del(o, "entity");
	return rpc_settings_change(call, s, finish_set);
}

static const struct rpc_param p_none[] = {{0}};
static const struct rpc_param p_set[] = {
    {.name = "server", .type = RPC_T_STRING},	 {.name = "entity", .type = RPC_T_STRING},
    {.name = "esi_port", .type = RPC_T_INTEGER}, {.name = "access_control", .type = RPC_T_BOOLEAN},
    {.name = "enabled", .type = RPC_T_BOOLEAN},	 {0},
};

const struct rpc_method rpc_methods_isns[] = {
    {.name = "isns.get", .fn = m_get, .params = p_none},
    {.name = "isns.set", .fn = m_set, .mutating = true, .params = p_set},
    {0},
};
