/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods.c: the method table, parameter checks against it (the table is
 * what docs/rpc-schema.json describes; tests/unit/rpc compares them), and
 * helpers shared by methods_*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/iname.h"
#include "rpc/rpc.h"

const struct rpc_method *const rpc_methods[] = {
    rpc_methods_config,	 rpc_methods_backstore, rpc_methods_target,
    rpc_methods_session, rpc_methods_alua,	rpc_methods_reservation,
    rpc_methods_stats,	 rpc_methods_isns,	NULL,
};

const struct rpc_method *rpc_method_find(const char *name)
{
	for (size_t t = 0; rpc_methods[t]; t++)
		for (const struct rpc_method *m = rpc_methods[t]; m->name; m++)
			if (strcmp(m->name, name) == 0)
				return m;
	return NULL;
}

static const char *const type_names[] = {
    [RPC_T_STRING] = "string", [RPC_T_INTEGER] = "integer", [RPC_T_BOOLEAN] = "boolean",
    [RPC_T_OBJECT] = "object", [RPC_T_ARRAY] = "array",	    [RPC_T_SIZE] = "size",
    [RPC_T_ANY] = "any",
};

static bool type_ok(enum rpc_type t, const json_t *v)
{
	switch (t) {
	case RPC_T_STRING:
		return json_is_string(v);
	case RPC_T_INTEGER:
		return json_is_integer(v);
	case RPC_T_BOOLEAN:
		return json_is_boolean(v);
	case RPC_T_OBJECT:
		return json_is_object(v);
	case RPC_T_ARRAY:
		return json_is_array(v);
	case RPC_T_SIZE:
		return json_is_integer(v) || json_is_string(v);
	case RPC_T_ANY:
		return true;
	}
	return false;
}

static bool in_list(const char *const *l, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (strcmp(l[i], s) == 0)
			return true;
	return false;
}

/* The config object fields method m takes as parameters. */
static bool object_field(const struct rpc_method *m, const char *key)
{
	return m->object && in_list(cfg_object_fields(m->kind), key) && !in_list(m->except, key);
}

static const struct rpc_param *param_of(const struct rpc_method *m, const char *key)
{
	for (const struct rpc_param *p = m->params; p && p->name; p++)
		if (strcmp(p->name, key) == 0)
			return p;
	return NULL;
}

/* RFC 3722: iSCSI names in parameters are compared in normalized form, as
 * the fabric and the config keep them; a value that is not an iSCSI name
 * (an initiator port "<name>,i,0x<ISID>", an address ACL's key) is left
 * as given for the method to read. */
static const char *const name_params[] = {"initiator", "target", NULL};

static int normalize_names(struct rpc_call *call)
{
	for (size_t i = 0; name_params[i]; i++) {
		json_t *v = json_object_get(call->params, name_params[i]);
		char norm[INAME_MAX + 1];
		const char *s;

		if (!json_is_string(v))
			continue;
		s = json_string_value(v);
		if (iname_normalize(s, json_string_length(v), norm, NULL) < 0 || !strcmp(norm, s))
			continue;
		if (json_object_set_new(call->params, name_params[i], json_string(norm)))
			return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	return 0;
}

int rpc_check_params(struct rpc_call *call)
{
	const struct rpc_method *m = call->m;
	const char *key;
	json_t *v;

	json_object_foreach(call->params, key, v)
	{
		const struct rpc_param *p = param_of(m, key);

		if (p) {
			if (!type_ok(p->type, v))
				return rpc_fail(call, RPC_INVALID_PARAMS,
						json_pack("{s:s,s:s}", "param", key, "expected",
							  type_names[p->type]),
						"parameter \"%s\" must be %s %s", key,
						p->type == RPC_T_INTEGER ||
							p->type == RPC_T_ARRAY ||
							p->type == RPC_T_OBJECT
						    ? "an"
						    : "a",
						type_names[p->type]);
			continue;
		}
		if (object_field(m, key))
			continue; /* checked by the config parser */
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", key),
				"unknown parameter \"%s\"", key);
	}
	for (const struct rpc_param *p = m->params; p && p->name; p++)
		if (p->required && !json_object_get(call->params, p->name))
			return rpc_fail(call, RPC_INVALID_PARAMS,
					json_pack("{s:s}", "param", p->name),
					"missing parameter \"%s\"", p->name);
	return normalize_names(call);
}

int rpc_call_run(struct rpc_call *call)
{
	if (rpc_check_params(call))
		return -1;
	return call->m->fn(call);
}

void rpc_call_clear(struct rpc_call *call)
{
	for (size_t i = 0; i < call->nsub; i++) {
		rpc_call_clear(call->sub[i]);
		free(call->sub[i]);
	}
	free(call->sub);
	cfg_txn_clear(&call->txn);
	json_decref(call->params);
	json_decref(call->result);
	json_decref(call->data);
	free(call->priv);
	*call = (struct rpc_call){0};
}

json_t *rpc_methods_json(void)
{
	json_t *all = json_object();

	for (size_t t = 0; all && rpc_methods[t]; t++)
		for (const struct rpc_method *m = rpc_methods[t]; m->name; m++) {
			json_t *o = json_object(), *ps = json_object();

			if (!o || !ps) {
				json_decref(o);
				json_decref(ps);
				json_decref(all);
				return NULL;
			}
			for (const struct rpc_param *p = m->params; p && p->name; p++)
				json_object_set_new(ps, p->name,
						    json_pack("{s:s,s:b}", "type",
							      type_names[p->type], "required",
							      p->required));
			json_object_set_new(o, "params", ps);
			json_object_set_new(o, "mutating", json_boolean(m->mutating));
			if (m->object) {
				static const char *const kinds[] = {
				    [CFG_OBJ_ROOT] = "settings",
				    [CFG_OBJ_BACKSTORE] = "backstore",
				    [CFG_OBJ_TARGET] = "target",
				    [CFG_OBJ_PORTAL_GROUP] = "portal_group",
				    [CFG_OBJ_ACL] = "acl",
				    [CFG_OBJ_LUN] = "lun",
				};
				const char *const *f = cfg_object_fields(m->kind);
				json_t *fa = json_array();

				for (size_t i = 0; fa && f && f[i]; i++)
					if (!in_list(m->except, f[i]) && !param_of(m, f[i]))
						json_array_append_new(fa, json_string(f[i]));
				json_object_set_new(o, "object", json_string(kinds[m->kind]));
				json_object_set_new(o, "fields", fa);
			}
			json_object_set_new(all, m->name, o);
		}
	return all ? json_pack("{s:o}", "methods", all) : NULL;
}

/* ---- helpers ---- */
const char *rpc_str(const struct rpc_call *call, const char *key)
{
	return json_string_value(json_object_get(call->params, key));
}

bool rpc_has(const struct rpc_call *call, const char *key)
{
	json_t *v = json_object_get(call->params, key);

	return v && !json_is_null(v);
}

struct cfg_chg *rpc_chg(struct rpc_call *call, enum cfg_chg_kind kind, const char *target,
			const char *initiator, const char *name)
{
	struct cfg_chg *ch = cfg_chg_new(kind, target, initiator, name);

	if (!ch || cfg_txn_add(&call->txn, ch)) {
		rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
		return NULL;
	}
	return ch;
}

int rpc_chg_object(struct rpc_call *call, struct cfg_chg *ch, enum cfg_obj_kind kind, json_t *o)
{
	struct cfg_err err;
	int rc;

	if (!o)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	ch->has_obj = true;
	rc = cfg_object_from_json(kind, o, &ch->obj, &err);
	if (rc == -ENOMEM)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	if (rc) {
		/* the parser's path is relative to the object: a parameter */
		const char *dot = strchr(err.path, '.');
		char param[CFG_ERR_PATH_MAX];

		snprintf(param, sizeof(param), "%.*s",
			 (int)(dot ? (size_t)(dot - err.path) : strcspn(err.path, "[")), err.path);
		return rpc_fail(call, RPC_INVALID_PARAMS,
				json_pack("{s:s,s:s,s:s}", "param", param, "path", err.path,
					  "message", err.msg),
				"%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
	}
	return 0;
}

/* Replace the settings with s (reference stolen): one settings.set change
 * into call->txn, answered by finish. */
int rpc_settings_change(struct rpc_call *call, json_t *s, rpc_finish finish)
{
	json_t *j = s ? json_pack("{s:s,s:o}", "op", "settings.set", "object", s) : NULL;
	struct cfg_chg *ch = NULL;
	struct cfg_err err;
	int rc;

	rc = j ? cfg_chg_from_json(j, &ch, &err) : -ENOMEM;
	json_decref(j);
	if (rc == -ENOMEM)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	if (rc)
		return rpc_fail(call, RPC_INVALID_PARAMS,
				json_pack("{s:s,s:s}", "path", err.path, "message", err.msg),
				"%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
	json_decref(ch->json); /* made again from the object */
	ch->json = NULL;
	if (cfg_txn_add(&call->txn, ch))
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	call->finish = finish;
	return 0;
}

json_t *rpc_params_without(const struct rpc_call *call, const char *const *drop)
{
	json_t *o = json_deep_copy(call->params);

	for (size_t i = 0; o && drop && drop[i]; i++)
		json_object_del(o, drop[i]);
	return o;
}

json_t *rpc_merge(json_t *cur, const struct rpc_call *call, const char *const *drop)
{
	const char *key;
	json_t *v;

	if (!cur)
		return NULL;
	rpc_unredact(call->params, cur);
	json_object_foreach(call->params, key, v)
	{
		json_t *old = json_object_get(cur, key);

		if (in_list(drop, key))
			continue;
		if (json_is_null(v)) {
			json_object_del(cur, key);
		} else if (json_is_object(v) && json_is_object(old)) {
			/* a section ("iscsi", "demo_mode", "limits"): field by field */
			const char *k2;
			json_t *v2;

			json_object_foreach(v, k2, v2)
			{
				if (json_is_null(v2))
					json_object_del(old, k2);
				else
					json_object_set(old, k2, v2);
			}
		} else {
			json_object_set(cur, key, v);
		}
	}
	return cur;
}

int rpc_size(struct rpc_call *call, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(call->params, key);

	if (json_is_integer(v) && json_integer_value(v) > 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) &&
	    cfg_parse_size(json_string_value(v), json_string_length(v), out) == 0)
		return 0;
	return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", key),
			"parameter \"%s\": a size (bytes, or a number with K, M, G or T)", key);
}
