/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_rpc.c: libFuzzer harness (5b): JSON-RPC requests of the control API
 * (src/rpc, docs/rpc.md) as the server handles a request line: the JSON-RPC
 * 2.0 envelope, batches, method lookup, parameter checks (rpc_check_params),
 * each method's handler (object parsing, sizes, names), and for a change
 * the whole preparation against the configuration tree (cfg_ctl_prepare:
 * check, apply to the tree, verify) in dry-run mode, undone at once.
 *
 * The control plane is loaded once from a small config (two back-stores, a
 * target with a portal group, an ACL) without being applied: nothing
 * listens and nothing runs, and since every change is a dry run the tree is
 * the same for every input (deterministic). So only the changes (every
 * mutating method but config.reload, which reads the file) and the reads of
 * the tree (rpc.methods, config.get, config.check, settings.get) are run;
 * config.check/config.apply with "path" (a file named by the request) and
 * the reads of running objects (sessions, LUs, ALUA) are skipped. Checked: every request gets
 * exactly one response object (or none for a notification) holding either a result or an error with
 * an integer code and a message. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_env.h"
#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "rpc/rpc.h"

static const char rpc_config[] =
    "{ \"version\": 1,\n"
    "  \"backstores\": [ { \"name\": \"r0\", \"type\": \"ram\", \"size\": \"1M\" },\n"
    "                  { \"name\": \"n1\", \"type\": \"null\", \"size\": \"1M\" } ],\n"
    "  \"targets\": [ { \"name\": \"iqn.2026-12.org.utarget:rpc\",\n"
    "      \"portal_groups\": [ { \"tag\": 1, \"portals\": [\"127.0.0.1:3999\"] } ],\n"
    "      \"luns\": [ { \"lun\": 0, \"backstore\": \"r0\" } ],\n"
    "      \"acls\": [ { \"initiator\": \"iqn.2026-12.org.example:a\" } ] } ] }\n";

static char rpc_dir[64];
static char rpc_file[128];
static struct cfg_iscsi_settings rpc_defaults;

static void rpc_fail_check(const char *what)
{
	fprintf(stderr, "fuzz_rpc: %s\n", what);
	abort();
}

static int rpc_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The temporary directory goes at exit. */
static void rpc_cleanup(void)
{
	cfg_ctl_stop();
	nftw(rpc_dir, rpc_rm, 8, FTW_DEPTH | FTW_PHYS);
}

static void rpc_init(void)
{
	struct cfg_ctl_opts o = {0};
	struct cfg_err err;
	FILE *f;

	if (rpc_dir[0])
		return;
	snprintf(rpc_dir, sizeof(rpc_dir), "/tmp/utarget-fuzz-rpc.XXXXXX");
	if (!mkdtemp(rpc_dir))
		abort();
	snprintf(rpc_file, sizeof(rpc_file), "%s/rpc.json", rpc_dir);
	f = fopen(rpc_file, "w");
	if (!f || fputs(rpc_config, f) < 0 || fclose(f))
		abort();
	cfg_iscsi_defaults(&rpc_defaults);
	o.file = rpc_file;
	o.defaults = &rpc_defaults;
	if (cfg_ctl_load(&o, &err)) {
		fprintf(stderr, "fuzz_rpc: cannot load the control plane: %s: %s\n", err.path,
			err.msg);
		abort();
	}
	atexit(rpc_cleanup);
}

/* Reads that only look at the tree (the others read the running objects,
 * which this harness does not build). */
static const char *const rpc_reads[] = {"rpc.methods", "config.get", "config.check",
					"settings.get"};

static bool rpc_denied(const struct rpc_method *m, const json_t *params)
{
	bool read_ok = false;

	if (!strcmp(m->name, "config.reload"))
		return true;
	for (size_t i = 0; i < sizeof(rpc_reads) / sizeof(rpc_reads[0]); i++)
		read_ok |= !strcmp(m->name, rpc_reads[i]);
	if (!m->mutating && !read_ok)
		return true;
	return (!strcmp(m->name, "config.check") || !strcmp(m->name, "config.apply")) &&
	       json_is_object(params) && json_object_get(params, "path");
}

static void rpc_check_response(json_t *id, const struct rpc_call *call)
{
	if (call->result && call->code)
		rpc_fail_check("a response with both a result and an error");
	if (!call->result && (!call->code || !call->msg[0]))
		rpc_fail_check("an error without a code or a message");
	(void)id;
}

/* One request object, as server.c's handle_request. */
static void rpc_one(json_t *req)
{
	struct rpc_call call = {0};
	json_t *id, *method, *params, *jv;
	const char *mname;

	if (!json_is_object(req))
		return;
	id = json_object_get(req, "id");
	method = json_object_get(req, "method");
	params = json_object_get(req, "params");
	jv = json_object_get(req, "jsonrpc");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0") || !json_is_string(method))
		return;
	mname = json_string_value(method);
	call.m = rpc_method_find(mname);
	if (!call.m || rpc_denied(call.m, params) || (params && !json_is_object(params)))
		return;
	call.params = params ? json_incref(params) : json_object();
	if (!call.params)
		abort();
	if (rpc_call_run(&call) == 0) {
		if (call.txn.n) {
			struct cfg_err err;
			size_t failed = 0;
			bool runtime = false;
			int rc;

			if (call.prepared) {
				/* prepared by the method itself: undo */
				cfg_ctl_rollback(&call.txn);
			} else {
				rc = cfg_ctl_prepare(&call.txn, true, &failed, &runtime, &err);
				if (rc)
					rpc_fail_cfg(&call, rc, &err, runtime);
				else
					call.result = json_pack("{s:b}", "dry_run", 1);
			}
		} else if (call.finish && !call.result) {
			call.result = call.finish(&call);
		}
		if (!call.result && !call.code)
			call.result = json_object(); /* a change with nothing to do */
	}
	rpc_check_response(id, &call);
	if (call.result) {
		char *s = json_dumps(call.result, JSON_COMPACT);

		free(s);
	}
	rpc_call_clear(&call);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *doc;

	fz_init();
	rpc_init();
	doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return 0;
	if (json_is_array(doc)) {
		size_t i;
		json_t *req;

		json_array_foreach(doc, i, req) rpc_one(req);
	} else {
		rpc_one(doc);
	}
	json_decref(doc);
	return 0;
}
