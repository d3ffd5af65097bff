/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_call.c: what every command does with the daemon: connect on first
 * use, call, and turn a JSON-RPC error into one line and an exit status. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "config/model.h"

void cli_errorf(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fputs("utarget: ", c->err);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
}

void cli_done(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet || c->json)
		return;
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

const char *cli_opt(const struct cli_args *a, size_t i)
{
	return a->set[i] && a->nval[i] ? a->val[i][a->nval[i] - 1] : NULL;
}

void cli_print_rpc_error(struct cli *c, const struct rpc_error *e)
{
	json_t *d = e->data;
	const char *path = json_string_value(json_object_get(d, "path"));
	const char *param = json_string_value(json_object_get(d, "param"));
	const char *feature = json_string_value(json_object_get(d, "feature"));
	json_t *used = json_object_get(d, "used_by"), *index = json_object_get(d, "index");
	const char *file = json_string_value(json_object_get(d, "file"));
	char extra[1024] = "";
	size_t n = 0;

	if (file && e->code != -32008) {
		/* a refusal about a config file: as "utargetd --check" says it */
		const char *msg = json_string_value(json_object_get(d, "message"));
		json_int_t line = json_integer_value(json_object_get(d, "line"));
		char where[32] = "";

		if (line > 0)
			snprintf(where, sizeof(where), ":%lld", (long long)line);
		cli_errorf(c, "%s%s: %s%s%s", file, where, path ? path : "",
			   path && path[0] ? ": " : "", msg ? msg : e->message);
		return;
	}
	if (json_is_integer(index))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " (request %lld)",
				      (long long)json_integer_value(index));
	if (path && !strstr(e->message, path))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " [at %s]", path);
	if (param && !strstr(e->message, param) && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " [parameter %s]", param);
	if (feature && !strstr(e->message, feature) && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " [%s]", feature);
	if (json_is_array(used) && json_array_size(used) && n < sizeof(extra)) {
		char list[512];
		out_text(used, list, sizeof(list));
		snprintf(extra + n, sizeof(extra) - n, " (used by %s)", list);
	}
	cli_errorf(c, "%s%s", e->message, extra);
}

int cli_rpc(struct cli *c, const char *method, json_t *params, json_t **result,
	    struct rpc_error *err)
{
	int rc;

	if (c->rpc.fd < 0) {
		rc = rpc_connect(&c->rpc, c->socket, err);
		if (rc) {
			json_decref(params);
			return rc;
		}
	}
	return rpc_call(&c->rpc, method, params, result, err);
}

int cli_call(struct cli *c, const char *method, json_t *params, json_t **result)
{
	struct rpc_error e = {0};
	json_t *res = NULL;
	int rc;

	/* a connection failure is a transport error: its message, exit status 2 */
	rc = cli_rpc(c, method, params, &res, &e);
	if (rc) {
		cli_print_rpc_error(c, &e);
		rc = rpc_error_exit(&e);
		rpc_error_clear(&e);
		return rc;
	}
	if (result)
		*result = res;
	else
		json_decref(res);
	return CLI_OK;
}

/* ---- helpers of the command families (cmd.h) ---- */
/* The call, its answer printed as JSON with --json (then *res is NULL),
 * else handed to the caller in *res. */
static int cmd_call_answer(struct cli *c, const char *method, json_t *params, json_t **res)
{
	int rc;

	*res = NULL;
	if (!params)
		return CLI_EINTERNAL;
	rc = cli_call(c, method, params, res);
	if (rc)
		return rc;
	if (c->json) {
		out_json(c, *res);
		json_decref(*res);
		*res = NULL;
	}
	return CLI_OK;
}

/* the answer as "key: value" lines */
int cmd_show(struct cli *c, const char *method, json_t *params)
{
	json_t *res;
	int rc = cmd_call_answer(c, method, params, &res);

	if (rc || !res)
		return rc;
	out_object(c, res, 0);
	json_decref(res);
	return CLI_OK;
}

int cmd_read(struct cli *c, const char *method, json_t *params, json_t **result)
{
	int rc = cli_call(c, method, params, result);

	if (rc == CLI_OK && c->json) {
		out_json(c, *result);
		json_decref(*result);
		*result = NULL;
	}
	return rc;
}

int cmd_list(struct cli *c, const char *method, json_t *params, json_t *(*row)(json_t *elem),
	     const char *const *cols, const char *const *heads, size_t ncols)
{
	json_t *res, *rows, *e;
	size_t i;
	int rc = cmd_read(c, method, params, &res);

	if (rc || !res)
		return rc;
	if (!row) {
		out_table(c, res, cols, heads, ncols);
	} else {
		rows = json_array();
		json_array_foreach(res, i, e)
		{
			json_t *r = row(e);
			if (r)
				json_array_append_new(rows, r);
		}
		out_table(c, rows, cols, heads, ncols);
		json_decref(rows);
	}
	json_decref(res);
	return CLI_OK;
}

/* the confirmation line fmt, not with --quiet */
int cmd_change(struct cli *c, const char *method, json_t *params, const char *fmt, ...)
{
	json_t *res;
	va_list ap;
	int rc = cmd_call_answer(c, method, params, &res);

	if (rc || !res)
		return rc;
	if (!c->quiet) {
		va_start(ap, fmt);
		vfprintf(c->out, fmt, ap);
		va_end(ap);
		fputc('\n', c->out);
	}
	json_decref(res);
	return CLI_OK;
}

int cmd_fields(struct cli *c, json_t *obj, enum cli_kind kind, const struct cli_args *a,
	       size_t from)
{
	char err[512];

	for (size_t i = from; i < a->npos; i++) {
		if (!cli_is_field(a->pos[i])) {
			cli_errorf(c, "\"%s\": expected FIELD=VALUE", a->pos[i]);
			return CLI_EUSAGE;
		}
		if (cli_field_set(obj, kind, a->pos[i], err, sizeof(err))) {
			cli_errorf(c, "%s", err);
			return CLI_EUSAGE;
		}
	}
	return CLI_OK;
}

int cmd_size(struct cli *c, json_t *obj, const char *key, const char *text)
{
	uint64_t v;
	size_t n = strlen(text);

	if (cfg_parse_size(text, n, &v)) {
		cli_errorf(c, "\"%s\": not a size (bytes, or a number with K, M, G or T)", text);
		return CLI_EUSAGE;
	}
	/* plain digits go as an integer, suffixed sizes as written */
	if (text[n - 1] >= '0' && text[n - 1] <= '9' && v <= INT64_MAX)
		return json_object_set_new(obj, key, json_integer((json_int_t)v)) ? CLI_EINTERNAL
										  : CLI_OK;
	return json_object_set_new(obj, key, json_string(text)) ? CLI_EINTERNAL : CLI_OK;
}

int cmd_uint(struct cli *c, const char *what, const char *text, unsigned long max, json_int_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || errno || *end || v > max) {
		cli_errorf(c, "%s \"%s\": expected an integer 0..%lu", what, text, max);
		return CLI_EUSAGE;
	}
	*out = (json_int_t)v;
	return CLI_OK;
}

int cmd_lun(struct cli *c, const char *text, json_int_t *out)
{
	if (strncmp(text, "lun", 3) == 0)
		text += 3;
	return cmd_uint(c, "LUN", text, CFG_MAX_LUN, out);
}

int cmd_merge_nested(struct cli *c, json_t *params, const char *get_method, json_t *get_params)
{
	const char *key;
	json_t *v, *cur = NULL;
	bool nested = false;
	int rc;

	json_object_foreach(params, key, v)
	{
		nested |= json_is_object(v);
	}
	if (!nested) {
		json_decref(get_params);
		return CLI_OK;
	}
	rc = cli_call(c, get_method, get_params, &cur);
	if (rc)
		return rc;
	json_object_foreach(params, key, v)
	{
		json_t *old = json_object_get(cur, key), *merged;
		if (!json_is_object(v) || !json_is_object(old))
			continue;
		merged = json_deep_copy(old);
		if (!merged || cli_json_merge(merged, v) ||
		    json_object_set_new(params, key, merged)) {
			json_decref(cur);
			return CLI_EINTERNAL;
		}
	}
	json_decref(cur);
	return CLI_OK;
}

enum cli_exit rpc_error_exit(const struct rpc_error *err)
{
	switch (err->code) {
	case 0:
		return CLI_EUNREACHABLE;
	case RPC_ERR_PROTOCOL:
		return CLI_EINTERNAL;
	case -32002:
		return CLI_ENOTFOUND;
	case -32003:
		return CLI_EEXISTS;
	case -32008:
		return CLI_EUNREACHABLE;
	default:
		return CLI_EREJECTED;
	}
}
