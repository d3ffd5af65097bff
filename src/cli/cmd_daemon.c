/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_daemon.c: the daemon and its configuration as a whole: daemon info,
 * config show|save|reload|check|apply, settings show|set, methods, call;
 * and the tool's own help, version, shell. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/import.h"
#include "cli/shell.h"
#include "config/config.h"

#ifndef UTARGET_VERSION
#define UTARGET_VERSION "unknown"
#endif

static int dm_info(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_show(c, "daemon.info", json_object());
}

/* ---- config ---- */
/* Whether a CHAP credential under v has its secret. */
static bool has_secret(json_t *v)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, e) if (has_secret(e)) return true;
		return false;
	}
	json_object_foreach(v, key, e)
	{
		if (strcmp(key, "secret") == 0 ? json_is_string(e) : has_secret(e))
			return true;
	}
	return false;
}

static int cf_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res;
	int rc = cli_call(c, "config.get", NULL, &res);

	if (rc)
		return rc;
	out_json(c, res); /* a config document: JSON either way */
	if (has_secret(res))
		fprintf(c->err, "utarget: note: this holds CHAP secrets in clear (no other command "
				"shows them): keep it mode 0600\n");
	json_decref(res);
	return CLI_OK;
}

static int cf_save(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res;
	int rc = cli_call(c, "config.save", NULL, &res);

	if (rc)
		return rc;
	if (c->json)
		out_json(c, res);
	else
		cli_done(c, "saved %s (%lld bytes)",
			 json_string_value(json_object_get(res, "file")) ?: "the config",
			 (long long)json_integer_value(json_object_get(res, "bytes")));
	json_decref(res);
	return CLI_OK;
}

/* {changes: [...], dry_run} */
static void cf_print_changes(struct cli *c, json_t *res, bool dry_run)
{
	json_t *ch = json_object_get(res, "changes"), *e;
	size_t i;

	if (c->json) {
		out_json(c, res);
		return;
	}
	if (json_array_size(ch) == 0) {
		fprintf(c->out, "no change\n");
		return;
	}
	fprintf(c->out, "%s:\n", dry_run ? "would change" : "changed");
	json_array_foreach(ch, i, e)
	{
		char buf[1024];
		out_text(e, buf, sizeof(buf));
		fprintf(c->out, "  %s\n", buf);
	}
}

static int cf_reload(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res, *p = json_object();
	int rc;

	if (p && a->set[0])
		json_object_set_new(p, "dry_run", json_true());
	rc = cli_call(c, "config.reload", p, &res);
	if (rc)
		return rc;
	cf_print_changes(c, res, a->set[0]);
	json_decref(res);
	return CLI_OK;
}

/* A config document from a local file: its text (for locating errors) and
 * JSON. CLI_OK, or an exit status after printing the error. */
static int cf_read(struct cli *c, const char *file, char **text, json_t **doc)
{
	json_error_t jerr;
	size_t len;
	int rc = imp_read_file(file, text, &len);

	if (rc) {
		cli_errorf(c, "%s: %s", file, strerror(-rc));
		return CLI_EINPUT;
	}
	*doc = json_loadb(*text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*doc) {
		cli_errorf(c, "%s:%d: %s", file, jerr.line, jerr.text);
		free(*text);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* A config_invalid answer about a local file: "FILE:LINE: PATH: MESSAGE",
 * the line found in the local text. */
static int cf_call_doc(struct cli *c, const char *method, json_t *params, const char *file,
		       const char *text, json_t **res)
{
	struct rpc_error e = {0};
	int rc = cli_rpc(c, method, params, res, &e);

	if (rc == 0)
		return CLI_OK;
	/* a connection failure has no data: printed as cli_call does */
	if (json_string_value(json_object_get(e.data, "path")) && e.code != -32008) {
		const char *path = json_string_value(json_object_get(e.data, "path"));
		const char *msg = json_string_value(json_object_get(e.data, "message"));
		int line = path[0] ? cfg_locate_line(text, strlen(text), path) : 0;
		char where[64] = "";
		if (line > 0)
			snprintf(where, sizeof(where), ":%d", line);
		cli_errorf(c, "%s%s: %s%s%s", file, where, path, path[0] ? ": " : "",
			   msg ? msg : e.message);
	} else {
		cli_print_rpc_error(c, &e);
	}
	rc = rpc_error_exit(&e);
	rpc_error_clear(&e);
	return rc;
}

/* utargetd's own check, without a daemon: parse and verify. */
static int cf_check_local(struct cli *c, const char *file)
{
	struct cfg_iscsi_settings defaults;
	struct cfg_err err;
	char line[1024];
	struct cfg *cfg;
	int rc;

	cfg_iscsi_defaults(&defaults);
	rc = cfg_load(file, &defaults, &cfg, &err);
	if (rc) {
		cfg_err_format(&err, file, line, sizeof(line));
		cli_errorf(c, "%s", line);
		return CLI_EINPUT;
	}
	if (c->json) {
		json_t *o = json_pack("{s:b, s:I, s:I}", "ok", 1, "backstores",
				      (json_int_t)cfg->nbs, "targets", (json_int_t)cfg->ntargets);
		out_json(c, o);
		json_decref(o);
	} else {
		cli_done(c, "%s: valid (%zu back-store%s, %zu target%s; checked locally)", file,
			 cfg->nbs, cfg->nbs == 1 ? "" : "s", cfg->ntargets,
			 cfg->ntargets == 1 ? "" : "s");
	}
	cfg_free(cfg);
	return CLI_OK;
}

/* Relative paths of a file checked here resolve against this directory,
 * as "utargetd --check" run here would resolve them, not against the
 * daemon's: a relative (or absent) state_dir is made absolute. */
static void cf_state_dir_here(json_t *doc)
{
	const char *sd = json_string_value(json_object_get(doc, "state_dir"));
	char cwd[CFG_FULL_PATH_MAX], abs[CFG_FULL_PATH_MAX + CFG_PATH_MAX + 2];

	if ((sd && sd[0] == '/') || !getcwd(cwd, sizeof(cwd)))
		return;
	if (sd)
		snprintf(abs, sizeof(abs), "%s/%s", cwd, sd);
	else
		snprintf(abs, sizeof(abs), "%s", cwd);
	json_object_set_new(doc, "state_dir", json_string(abs));
}

static int cf_check(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	long long nb, nt;
	json_t *doc = NULL, *res;
	char *text = NULL;
	int rc;

	if (a->npos == 0) {
		if (a->set[0]) {
			cli_errorf(c, "--local needs a FILE");
			return CLI_EUSAGE;
		}
		rc = cli_call(c, "config.check", NULL, &res);
	} else if (a->set[0]) {
		return cf_check_local(c, a->pos[0]);
	} else {
		rc = cf_read(c, a->pos[0], &text, &doc);
		if (rc)
			return rc;
		cf_state_dir_here(doc);
		rc = cf_call_doc(c, "config.check", json_pack("{s:o}", "config", doc), a->pos[0],
				 text, &res);
		free(text);
	}
	if (rc)
		return rc;
	nb = (long long)json_integer_value(json_object_get(res, "backstores"));
	nt = (long long)json_integer_value(json_object_get(res, "targets"));
	if (c->json)
		out_json(c, res);
	else
		cli_done(c, "%s: valid (%lld back-store%s, %lld target%s)",
			 a->npos ? a->pos[0] : "the daemon's config file", nb, nb == 1 ? "" : "s",
			 nt, nt == 1 ? "" : "s");
	json_decref(res);
	return CLI_OK;
}

static int cf_apply(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *doc, *res, *p;
	char *text;
	int rc;

	rc = cf_read(c, a->pos[0], &text, &doc);
	if (rc)
		return rc;
	p = json_pack("{s:o, s:b}", "config", doc, "dry_run", a->set[0]);
	rc = cf_call_doc(c, "config.apply", p, a->pos[0], text, &res);
	free(text);
	if (rc)
		return rc;
	cf_print_changes(c, res, a->set[0]);
	json_decref(res);
	return CLI_OK;
}

/* ---- settings ---- */
static int st_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_show(c, "settings.get", json_object());
}

static int st_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_object();
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_fields(c, p, CLI_K_SETTINGS, a, 0);
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "settings.set", p, "settings changed");
}

/* ---- introspection, raw calls ---- */
static int dm_methods(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res, *methods, *m, *rows;
	const char *name;
	int rc = cmd_read(c, "rpc.methods", NULL, &res);

	if (rc || !res)
		return rc;
	methods = json_object_get(res, "methods");
	rows = json_array();
	json_object_foreach(methods, name, m)
	{
		char params[512] = "";
		const char *pn;
		json_t *pv;
		json_object_foreach(json_object_get(m, "params"), pn, pv)
		{
			snprintf(params + strlen(params), sizeof(params) - strlen(params), "%s%s%s",
				 params[0] ? " " : "", pn,
				 json_is_true(json_object_get(pv, "required")) ? "*" : "");
		}
		if (json_object_get(m, "object"))
			snprintf(params + strlen(params), sizeof(params) - strlen(params),
				 "%s+%s fields", params[0] ? " " : "",
				 json_string_value(json_object_get(m, "object")) ?: "?");
		json_array_append_new(
		    rows,
		    json_pack("{s:s, s:s, s:s}", "method", name, "kind",
			      json_is_true(json_object_get(m, "mutating")) ? "change" : "read",
			      "params", params[0] ? params : "-"));
	}
	{
		static const char *const cols[] = {"method", "kind", "params"};
		static const char *const heads[] = {"METHOD", "KIND", "PARAMETERS (* required)"};
		/* sorted by name */
		size_t n = json_array_size(rows);
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0; j--) {
				json_t *x = json_array_get(rows, j - 1),
				       *y = json_array_get(rows, j);
				if (strcmp(json_string_value(json_object_get(x, "method")),
					   json_string_value(json_object_get(y, "method"))) <= 0)
					break;
				json_incref(x);
				json_array_set(rows, j - 1, y);
				json_array_set_new(rows, j, x);
			}
		out_table(c, rows, cols, heads, ARRAY_SIZE(cols));
	}
	json_decref(rows);
	json_decref(res);
	return CLI_OK;
}

static int dm_call(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p, *res;
	int rc;

	if (a->npos == 2 && (a->pos[1][0] == '{')) {
		json_error_t jerr;
		p = json_loads(a->pos[1], 0, &jerr);
		if (!json_is_object(p)) {
			json_decref(p);
			cli_errorf(c, "parameters: not a JSON object: %s", jerr.text);
			return CLI_EUSAGE;
		}
	} else {
		p = json_object();
		if (!p)
			return CLI_EINTERNAL;
		rc = cmd_fields(c, p, CLI_K_ANY, a, 1);
		if (rc) {
			json_decref(p);
			return rc;
		}
	}
	rc = cli_call(c, a->pos[0], p, &res);
	if (rc)
		return rc;
	out_json(c, res);
	json_decref(res);
	return CLI_OK;
}

/* ---- the tool itself ---- */
static int dm_help(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const struct cli_cmd *k;

	if (a->npos == 0) {
		cli_usage(c->out);
		return CLI_OK;
	}
	k = a->npos == 1 ? cli_find("", a->pos[0]) : cli_find(a->pos[0], a->pos[1]);
	if (k) {
		cli_cmd_usage(k, c->out, true);
		return CLI_OK;
	}
	if (a->npos == 1) {
		bool any = false;
		for (size_t f = 0; cli_families[f]; f++)
			for (k = cli_families[f]; k->verb; k++)
				if (strcmp(k->object, a->pos[0]) == 0) {
					if (!any)
						fprintf(c->out, "Commands of \"%s\":\n", a->pos[0]);
					any = true;
					fprintf(c->out, "  %s %-10s %s\n", k->object, k->verb,
						k->summary);
				}
		if (any)
			return CLI_OK;
	}
	cli_errorf(c, "no such command");
	return CLI_EUSAGE;
}

static int dm_version(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	fprintf(c->out, "utarget %s\n", UTARGET_VERSION);
	return CLI_OK;
}

static int dm_shell(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return shell_main(c);
}

const struct cli_cmd cli_cmds_daemon[] = {
    {
	.object = "daemon",
	.verb = "info",
	.alias = "show",
	.usage = "",
	.summary = "version, pid, config file, uptime, object and session counts",
	.read = true,
	.run = dm_info,
    },
    {
	.object = "config",
	.verb = "show",
	.alias = "get",
	.usage = "",
	.summary = "the running configuration as a config file (JSON, secrets included)",
	.help = "The only command that shows CHAP secrets; it says so on standard error.",
	.read = true,
	.run = cf_show,
    },
    {
	.object = "config",
	.verb = "save",
	.usage = "",
	.summary = "rewrite the config file now (every change is already persisted)",
	.run = cf_save,
    },
    {
	.object = "config",
	.verb = "reload",
	.usage = "",
	.summary = "re-read the config file and apply only the difference (as SIGHUP)",
	.help = "Sessions of targets the difference does not touch keep working.",
	.opts = {{.name = "dry-run", .short_name = 'n', .help = "list the changes only"}},
	.run = cf_reload,
    },
    {
	.object = "config",
	.verb = "check",
	.usage = "[FILE]",
	.summary = "validate a config file (default: the daemon's own) without applying it",
	.help = "Errors name the file, the line and the field, as utargetd --check does.\n"
		"Relative paths in FILE resolve against the current directory, as for\n"
		"utargetd --check run here.",
	.opts = {{.name = "local",
		  .help = "check FILE here, without utargetd (syntax and rules; not whether "
			  "files and portals can be opened)"}},
	.max_pos = 1,
	.read = true,
	.run = cf_check,
    },
    {
	.object = "config",
	.verb = "apply",
	.usage = "FILE",
	.summary = "make the running configuration equal to FILE (only the difference)",
	.help = "All or nothing: on any error nothing changes. Sessions of targets the\n"
		"difference does not touch keep working.",
	.opts = {{.name = "dry-run", .short_name = 'n', .help = "list the changes only"}},
	.min_pos = 1,
	.max_pos = 1,
	.run = cf_apply,
    },
    {
	.object = "settings",
	.verb = "show",
	.alias = "get",
	.usage = "",
	.summary = "global settings: log level, iSCSI limits, timeouts and negotiation",
	.read = true,
	.run = st_show,
    },
    {
	.object = "settings",
	.verb = "set",
	.usage = "FIELD=VALUE...",
	.summary = "change global settings (VALUE null restores the default)",
	.help = "Example: utarget settings set iscsi.queue_depth=64 log_level=info",
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.run = st_set,
    },
    {
	.object = "",
	.verb = "methods",
	.usage = "",
	.summary = "the API methods this utargetd implements, with their parameters",
	.read = true,
	.run = dm_methods,
    },
    {
	.object = "",
	.verb = "call",
	.usage = "METHOD [JSON-OBJECT | FIELD=VALUE...]",
	.summary = "call any API method and print its answer (JSON)",
	.help = "Example: utarget call lun.list target=iqn.2026-12.org.example:t1\n"
		"         utarget call target.get '{\"name\": \"iqn.2026-12.org.example:t1\"}'",
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.read = true,
	.run = dm_call,
    },
    {
	.object = "",
	.verb = "shell",
	.usage = "",
	.summary = "the interactive shell (a tree: /backstores, /iscsi, /sessions, /settings)",
	.run = dm_shell,
    },
    {
	.object = "",
	.verb = "help",
	.usage = "[OBJECT [VERB]]",
	.summary = "help on the commands",
	.max_pos = 2,
	.run = dm_help,
    },
    {
	.object = "",
	.verb = "version",
	.usage = "",
	.summary = "the version of this tool",
	.run = dm_version,
    },
    {0},
};
