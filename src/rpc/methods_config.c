/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_config.c: introspection, the whole configuration (get, save,
 * reload, check, apply, transactions) and the global settings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "rpc/rpc.h"

static int m_methods(struct rpc_call *call)
{
	call->result = rpc_methods_json();
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static size_t count_luns(const struct cfg *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ntargets; i++)
		n += c->targets[i].luns.n;
	return n;
}

/* Every address listened on (each once), and the --listen addresses. */
static void info_listen(json_t *o, const struct cfg *c)
{
	const char *const *listen;
	size_t n = cfg_ctl_listen(&listen);
	json_t *all = json_array(), *given = json_array(), *seen = json_object();

	for (size_t i = 0; given && i < n; i++)
		json_array_append_new(given, json_string(listen[i]));
	for (size_t t = 0; all && seen && t < c->ntargets; t++)
		for (size_t g = 0; g < c->targets[t].ntpgs; g++) {
			const struct cfg_portal_group *pg = &c->targets[t].tpgs[g];
			const char *const *a = n ? listen : (const char *const *)pg->portals;
			size_t k = n ? n : pg->nportals;

			for (size_t i = 0; i < k; i++)
				if (!json_object_get(seen, a[i])) {
					json_object_set_new(seen, a[i], json_true());
					json_array_append_new(all, json_string(a[i]));
				}
		}
	json_decref(seen);
	if (n)
		json_object_set_new(o, "listen", given);
	else
		json_decref(given);
	json_object_set_new(o, "listening", all ? all : json_array());
}

static int m_info(struct rpc_call *call)
{
	const struct cfg *c = cfg_ctl_tree();
	struct iscsi_session_info *s = NULL;
	struct cfg_ctl_stats st;
	size_t ns = 0;

	cfg_ctl_stats(&st);
	if (iscsi_session_list(&s, &ns))
		ns = 0;
	free(s);
	call->result = json_pack(
	    "{s:s,s:i,s:s,s:s,s:f,s:i,s:i,s:i,s:i,s:{s:i,s:i},s:i}", "version",
	    rpc_server_version(), "pid", (int)getpid(), "config", st.file ? st.file : "", "socket",
	    rpc_server_path(), "uptime_s", rpc_server_uptime(), "backstores", (json_int_t)c->nbs,
	    "targets", (json_int_t)c->ntargets, "luns", (json_int_t)count_luns(c), "sessions",
	    (json_int_t)ns, "journal", "records", (json_int_t)st.journal_records, "bytes",
	    (json_int_t)st.journal_bytes, "config_bytes", (json_int_t)st.file_bytes);
	if (call->result)
		info_listen(call->result, c);
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static int m_get(struct rpc_call *call)
{
	call->result = cfg_object_to_json(CFG_OBJ_ROOT, cfg_ctl_tree());
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static int m_save(struct rpc_call *call)
{
	struct cfg_ctl_stats st;
	struct cfg_err err;
	int rc = cfg_ctl_save(&err);

	if (rc)
		return rpc_fail(call, RPC_PERSIST_FAILED,
				json_pack("{s:s,s:i}", "message", err.msg, "errno", -rc), "%s",
				err.msg);
	cfg_ctl_stats(&st);
	call->result = json_pack("{s:s,s:i}", "file", st.file, "bytes", (json_int_t)st.file_bytes);
	return 0;
}

static json_t *changes_json(const struct cfg_txn *x)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < x->n; i++) {
		char what[512];

		cfg_chg_describe(x->v[i], what, sizeof(what));
		json_array_append_new(a, json_string(what));
	}
	return a;
}

static json_t *finish_changes(struct rpc_call *call)
{
	return json_pack("{s:o,s:b}", "changes", changes_json(&call->txn), "dry_run", false);
}

/* reload and apply: a diff, then dry run or the change */
static int diff_common(struct rpc_call *call, int rc, const struct cfg_err *err)
{
	struct cfg_err e2;
	bool runtime;
	size_t failed;

	if (rc)
		return rpc_fail_cfg(call, rc, err, false);
	call->dry_run = json_is_true(json_object_get(call->params, "dry_run"));
	if (call->dry_run) {
		rc = cfg_ctl_prepare(&call->txn, true, &failed, &runtime, &e2);
		if (rc)
			return rpc_fail_cfg(call, rc, &e2, false);
		call->result =
		    json_pack("{s:o,s:b}", "changes", changes_json(&call->txn), "dry_run", true);
		return 0;
	}
	call->finish = finish_changes;
	return 0;
}

/* A refusal about a configuration file: as rpc_fail_cfg(), with the file
 * in data (the CLI then names it as "utargetd --check" does: FILE:LINE:
 * PATH: MESSAGE). */
static int fail_file(struct rpc_call *call, int rc, const struct cfg_err *err, const char *file,
		     bool runtime)
{
	rpc_fail_cfg(call, rc, err, runtime);
	if (call->data && file)
		json_object_set_new(call->data, "file", json_string(file));
	return -1;
}

/* A reload through the control socket is logged as SIGHUP's is (the
 * daemon's log tells every reload, whoever asked for it). */
static int reload_refused(struct rpc_call *call, int rc, const struct cfg_err *err, bool runtime)
{
	char line[CFG_ERR_PATH_MAX + CFG_ERR_MSG_MAX + 4200];

	cfg_err_format(err, cfg_ctl_file(), line, sizeof(line));
	log_err("config.reload refused, nothing changed: %s", line);
	return fail_file(call, rc, err, cfg_ctl_file(), runtime);
}

static json_t *finish_reload(struct rpc_call *call)
{
	log_notice("config.reload: %zu change(s) applied", call->txn.n);
	return finish_changes(call);
}

static int m_reload(struct rpc_call *call)
{
	struct cfg_err err;
	bool runtime = false;
	size_t failed;
	int rc = cfg_ctl_diff_file(NULL, &call->txn, &err);

	call->dry_run = json_is_true(json_object_get(call->params, "dry_run"));
	if (rc)
		return call->dry_run ? fail_file(call, rc, &err, cfg_ctl_file(), false)
				     : reload_refused(call, rc, &err, false);
	if (call->dry_run)
		return diff_common(call, 0, &err);
	log_notice("config.reload: reloading %s", cfg_ctl_file());
	call->compact = true;
	call->finish = finish_reload;
	if (!call->txn.n) {
		if (cfg_ctl_save(&err)) /* the journal's base: the file read */
			return rpc_fail(call, RPC_PERSIST_FAILED, NULL, "%s", err.msg);
		return 0;
	}
	/* prepared here, so that a refusal is logged with its reason */
	rc = cfg_ctl_prepare(&call->txn, false, &failed, &runtime, &err);
	if (rc) {
		reload_refused(call, rc, &err, runtime);
		if (failed < call->txn.n && call->data) {
			char what[512];

			cfg_chg_describe(call->txn.v[failed], what, sizeof(what));
			json_object_set_new(call->data, "change", json_string(what));
		}
		return -1;
	}
	call->prepared = true;
	return 0;
}

static int m_apply(struct rpc_call *call)
{
	struct cfg_err err;
	int rc = cfg_ctl_diff_doc(json_object_get(call->params, "config"), &call->txn, &err);

	return diff_common(call, rc, &err);
}

static int m_check(struct rpc_call *call)
{
	const char *path = rpc_str(call, "path");
	json_t *doc = json_object_get(call->params, "config");
	size_t nbs = 0, nt = 0;
	struct cfg_err err;
	int rc;

	if (path && doc)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "config"),
				"give path or config, not both");
	if (doc)
		rc = cfg_ctl_check_doc(doc, &nbs, &nt, &err);
	else
		rc = cfg_ctl_check_file(path ? path : cfg_ctl_file(), &nbs, &nt, &err);
	if (rc)
		return fail_file(call, rc, &err, doc ? NULL : path ? path : cfg_ctl_file(), false);
	call->result = json_pack("{s:b,s:i,s:i}", "ok", true, "backstores", (json_int_t)nbs,
				 "targets", (json_int_t)nt);
	return 0;
}

/* config.transaction: each request prepared in turn (it sees the ones
 * before it), all made durable and committed together. */
static json_t *finish_transaction(struct rpc_call *call)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < call->nsub; i++) {
		struct rpc_call *sub = call->sub[i];
		json_t *r = sub->finish ? sub->finish(sub) : json_object();

		json_array_append_new(a, r ? r : json_null());
	}
	return a ? json_pack("{s:o}", "results", a) : NULL;
}

static int m_transaction(struct rpc_call *call)
{
	json_t *reqs = json_object_get(call->params, "requests"), *req;
	size_t i;

	call->sub = calloc(json_array_size(reqs) ? json_array_size(reqs) : 1, sizeof(*call->sub));
	if (!call->sub)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	json_array_foreach(reqs, i, req)
	{
		const char *name = json_string_value(json_object_get(req, "method"));
		json_t *params = json_object_get(req, "params");
		struct rpc_call *sub = calloc(1, sizeof(*sub));
		struct cfg_err err;
		bool runtime;
		size_t failed;
		int rc;

		if (!sub) {
			rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
			goto fail;
		}
		call->sub[call->nsub++] = sub;
		sub->m = name ? rpc_method_find(name) : NULL;
		if (!json_is_object(req) || !sub->m || !sub->m->mutating ||
		    !strncmp(name, "config.", 7) || (params && !json_is_object(params))) {
			rpc_fail(
			    call, RPC_INVALID_PARAMS,
			    json_pack("{s:s,s:i}", "param", "requests", "index", (json_int_t)i),
			    "requests[%zu]: a {method, params} of a method that changes "
			    "objects",
			    i);
			goto fail;
		}
		sub->params = params ? json_incref(params) : json_object();
		if (rpc_call_run(sub) ||
		    (rc = cfg_ctl_prepare(&sub->txn, false, &failed, &runtime, &err),
		     rc && rpc_fail_cfg(sub, rc, &err, runtime))) {
			rpc_fail(call, sub->code, json_incref(sub->data), "requests[%zu] (%s): %s",
				 i, name, sub->msg);
			if (call->data)
				json_object_set_new(call->data, "index",
						    json_integer((json_int_t)i));
			else
				call->data = json_pack("{s:i}", "index", (json_int_t)i);
			goto fail;
		}
		/* its changes join the transaction (already prepared) */
		for (size_t k = 0; k < sub->txn.n; k++) {
			if (cfg_txn_add(&call->txn, sub->txn.v[k])) {
				sub->txn.v[k] = NULL;
				rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
				goto fail;
			}
			sub->txn.v[k] = NULL;
			call->txn.applied = call->txn.n;
		}
		sub->txn.n = 0;
		sub->txn.applied = 0;
	}
	call->prepared = true;
	call->finish = finish_transaction;
	return 0;
fail:
	/* roll back everything prepared, newest first */
	for (size_t k = call->nsub; k-- > 0;)
		cfg_ctl_rollback(&call->sub[k]->txn);
	cfg_ctl_rollback(&call->txn);
	return -1;
}

/* ---- settings ---- */
static json_t *settings_json(bool effective)
{
	struct cfg shell = *cfg_ctl_tree();
	json_t *o;

	shell.bs = NULL;
	shell.nbs = 0;
	shell.targets = NULL;
	shell.ntargets = 0;
	if (effective) {
		static char *const defaults[] = {CFG_DEFAULT_PORTAL};

		shell.iscsi_set = ~0u; /* every field with its value */
		if (!shell.ndefault_portals) {
			shell.default_portals = (char **)defaults;
			shell.ndefault_portals = 1;
		}
	}
	o = cfg_object_to_json(CFG_OBJ_ROOT, &shell);
	if (o) {
		json_object_del(o, "backstores");
		json_object_del(o, "targets");
		json_object_del(o, "version");
	}
	return o;
}

static int m_settings_get(struct rpc_call *call)
{
	call->result = settings_json(true);
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static json_t *finish_settings(struct rpc_call *call)
{
	return settings_json(true);
}

static const char *const settings_except[] = {"version",    "backstores", "targets",	"state_dir",
					      "rpc_socket", "metrics",	  "plugin_dir", NULL};

static int m_settings_set(struct rpc_call *call)
{
	json_t *cur = settings_json(false);

	if (!rpc_merge(cur, call, settings_except)) {
		json_decref(cur);
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	return rpc_settings_change(call, cur, finish_settings);
}

static const struct rpc_param p_none[] = {{0}};
static const struct rpc_param p_reload[] = {
    {.name = "dry_run", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_check[] = {
    {.name = "path", .type = RPC_T_STRING},
    {.name = "config", .type = RPC_T_OBJECT},
    {0},
};
static const struct rpc_param p_apply[] = {
    {.name = "config", .type = RPC_T_OBJECT, .required = true},
    {.name = "dry_run", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_txn[] = {
    {.name = "requests", .type = RPC_T_ARRAY, .required = true},
    {0},
};

const struct rpc_method rpc_methods_config[] = {
    {.name = "rpc.methods", .fn = m_methods, .params = p_none},
    {.name = "daemon.info", .fn = m_info, .params = p_none},
    {.name = "config.get", .fn = m_get, .params = p_none, .secrets = true},
    {.name = "config.save", .fn = m_save, .params = p_none},
    {.name = "config.reload", .fn = m_reload, .mutating = true, .params = p_reload},
    {.name = "config.check", .fn = m_check, .params = p_check},
    {.name = "config.apply", .fn = m_apply, .mutating = true, .params = p_apply},
    {.name = "config.transaction", .fn = m_transaction, .mutating = true, .params = p_txn},
    {.name = "settings.get", .fn = m_settings_get, .params = p_none},
    {.name = "settings.set",
     .fn = m_settings_set,
     .mutating = true,
     .params = p_none,
     .object = true,
     .kind = CFG_OBJ_ROOT,
     .except = settings_except},
    {0},
};
