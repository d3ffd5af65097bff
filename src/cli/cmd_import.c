/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_import.c: utarget import tgt|lio FILE: another target's configuration
 * into utargetd (import_tgt.c, import_lio.c build the document).
 *
 * The report (what was not carried over, and notes) goes to stderr. When
 * something cannot be carried over, nothing is applied or written unless
 * --partial says so (exit status 6). Then:
 *   --dry-run        print the resulting config document, apply nothing;
 *   --output FILE    write it as a config file (0600), apply nothing;
 *   (default)        add it to the running configuration in one
 *                    config.transaction: settings.set for the iscsi section,
 *                    backstore.create and target.create for each object;
 *                    all or nothing (a name that exists fails the import);
 *   --replace        make the running configuration the imported one
 *                    (config.apply: other back-stores and targets are
 *                    removed; the daemon's own top-level settings such as
 *                    state_dir are kept). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/import.h"
#include "lib/atomic_file.h"

enum { IMP_O_DRY, IMP_O_OUTPUT, IMP_O_PARTIAL, IMP_O_REPLACE, IMP_O_PORTAL };

/* Write text to file atomically (lib/atomic_file.h), 0600: an imported
 * config may hold CHAP secrets. */
static int imp_write(const char *file, const char *text)
{
	return afile_write(file, text, strlen(text), 0600);
}

static json_t *imp_report_json(const struct imp_result *r)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < r->report.n; i++)
		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:s}", "level",
				   r->report.v[i].level == IMP_DROPPED ? "dropped" : "note",
				   "where", r->report.v[i].where, "what", r->report.v[i].what));
	return arr;
}

/* The daemon's ALUA groups stay: the imported ones are added, as one
 * settings.set of the whole list, the last request (they name targets of
 * the import). An imported id the daemon has already is refused. */
static int imp_port_groups(struct cli *c, json_t *pgs, json_t *reqs)
{
	json_t *cur = NULL, *all, *v, *g;
	size_t i, k;
	int rc = cli_call(c, "alua.list", NULL, &cur);

	if (rc)
		return rc;
	all = json_is_array(cur) ? json_deep_copy(cur) : json_array();
	json_decref(cur);
	if (!all)
		return CLI_EINTERNAL;
	json_array_foreach(pgs, i, v)
	{
		json_array_foreach(all, k, g)
		{
			if (json_equal(json_object_get(g, "id"), json_object_get(v, "id"))) {
				cli_errorf(c,
					   "ALUA port group %lld exists already; nothing was "
					   "imported",
					   (long long)json_integer_value(json_object_get(v, "id")));
				json_decref(all);
				return CLI_EEXISTS;
			}
		}
		json_array_append(all, v);
	}
	return json_array_append_new(reqs, json_pack("{s:s, s:{s:o}}", "method", "settings.set",
						     "params", "port_groups", all))
		   ? CLI_EINTERNAL
		   : CLI_OK;
}

/* Every address the created targets' portal groups listen on (each once,
 * from the daemon's answers: "listening"), joined by ", ". */
static void imp_listening(json_t *results, char *buf, size_t size)
{
	json_t *r, *g, *a;
	size_t i, k, j, n = 0;

	buf[0] = '\0';
	json_array_foreach(results, i, r)
	{
		json_array_foreach(json_object_get(r, "portal_groups"), k, g)
		{
			json_array_foreach(json_object_get(g, "listening"), j, a)
			{
				const char *s = json_string_value(a);
				size_t len = s ? strlen(s) : 0;
				bool seen = false;
				int w;

				for (const char *p = buf; s && (p = strstr(p, s)); p += len)
					seen |= (p == buf || p[-1] == ' ') &&
						(p[len] == ',' || p[len] == '\0');
				if (!s || seen)
					continue;
				w = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", s);
				if (w < 0 || (size_t)w >= size - n)
					return;
				n += (size_t)w;
			}
		}
	}
}

/* Add the imported objects to the running configuration. */
static int imp_apply_add(struct cli *c, json_t *doc, json_t *report)
{
	json_t *reqs = json_array(), *v, *res;
	const char *key;
	size_t i;
	int rc;

	if (!reqs)
		return CLI_EINTERNAL;
	/* sections other than the lists: settings.set merges them field by
	 * field into the daemon's (ALUA port groups last: they name targets) */
	{
		json_t *settings = json_object();
		json_object_foreach(doc, key, v)
		{
			if (strcmp(key, "version") && strcmp(key, "backstores") &&
			    strcmp(key, "targets") && strcmp(key, "port_groups"))
				json_object_set(settings, key, v);
		}
		if (json_object_size(settings))
			json_array_append_new(reqs, json_pack("{s:s, s:o}", "method",
							      "settings.set", "params", settings));
		else
			json_decref(settings);
	}
	json_array_foreach(json_object_get(doc, "backstores"), i, v)
	{
		json_array_append_new(
		    reqs, json_pack("{s:s, s:O}", "method", "backstore.create", "params", v));
	}
	json_array_foreach(json_object_get(doc, "targets"), i, v)
	{
		json_array_append_new(
		    reqs, json_pack("{s:s, s:O}", "method", "target.create", "params", v));
	}
	if (json_array_size(json_object_get(doc, "port_groups"))) {
		rc = imp_port_groups(c, json_object_get(doc, "port_groups"), reqs);
		if (rc) {
			json_decref(reqs);
			return rc;
		}
	}
	rc = cli_call(c, "config.transaction", json_pack("{s:o}", "requests", reqs), &res);
	if (rc)
		return rc;
	if (c->json) {
		json_t *o =
		    json_pack("{s:O, s:O, s:O}", "config", doc, "result", res, "report", report);
		out_json(c, o);
		json_decref(o);
	} else {
		size_t nb = json_array_size(json_object_get(doc, "backstores"));
		size_t nt = json_array_size(json_object_get(doc, "targets"));
		char on[1024];

		imp_listening(json_object_get(res, "results"), on, sizeof(on));
		cli_done(c, "imported %zu back-store%s and %zu target%s%s%s%s", nb,
			 nb == 1 ? "" : "s", nt, nt == 1 ? "" : "s", on[0] ? " (listening on " : "",
			 on, on[0] ? ")" : "");
	}
	json_decref(res);
	return CLI_OK;
}

/* Replace the running configuration, keeping the daemon's own top-level
 * settings (state_dir, log_level, ...) unless the import sets them. */
static int imp_apply_replace(struct cli *c, json_t *doc, json_t *report)
{
	json_t *cur, *res, *merged;
	int rc = cli_call(c, "config.get", NULL, &cur);

	if (rc)
		return rc;
	merged = json_deep_copy(cur);
	json_decref(cur);
	if (!merged)
		return CLI_EINTERNAL;
	json_object_del(merged, "backstores");
	json_object_del(merged, "targets");
	json_object_del(merged, "port_groups"); /* they name the replaced targets */
	if (cli_json_merge(merged, doc)) {
		json_decref(merged);
		return CLI_EINTERNAL;
	}
	rc = cli_call(c, "config.apply", json_pack("{s:o}", "config", merged), &res);
	if (rc)
		return rc;
	if (c->json) {
		json_t *o = json_pack("{s:O, s:O}", "result", res, "report", report);
		out_json(c, o);
		json_decref(o);
	} else {
		json_t *ch = json_object_get(res, "changes"), *e;
		size_t i;
		cli_done(c, "running configuration replaced (%zu change%s)", json_array_size(ch),
			 json_array_size(ch) == 1 ? "" : "s");
		json_array_foreach(ch, i, e)
		{
			if (!c->quiet)
				fprintf(c->out, "  %s\n", json_string_value(e) ?: "?");
		}
	}
	json_decref(res);
	return CLI_OK;
}

static int imp_run(struct cli *c, const struct cli_args *a, const char *kind)
{
	const char *file = a->pos[0];
	struct imp_opts o = {.portals = a->val[IMP_O_PORTAL], .nportals = a->nval[IMP_O_PORTAL]};
	struct imp_result r;
	struct cfg_err cerr;
	char err[1024], *text = NULL;
	json_t *doc = NULL;
	int rc;

	if (a->set[IMP_O_OUTPUT] + a->set[IMP_O_DRY] + a->set[IMP_O_REPLACE] > 1) {
		cli_errorf(c, "--dry-run, --output and --replace exclude each other");
		return CLI_EUSAGE;
	}
	for (size_t i = 0; i < o.nportals; i++) {
		const char *why;
		if (!cfg_portal_valid(o.portals[i], &why)) {
			cli_errorf(c, "--portal %s: %s", o.portals[i], why);
			return CLI_EUSAGE;
		}
	}
	if (strcmp(kind, "tgt") == 0)
		rc = imp_tgt_load(file, &o, &r, err, sizeof(err));
	else
		rc = imp_lio_load(file, &o, &r, err, sizeof(err));
	if (rc) {
		cli_errorf(c, "%s", err);
		imp_result_free(&r);
		return rc == -ENOMEM ? CLI_EINTERNAL : CLI_EINPUT;
	}
	rc = imp_finish(&r, &text, &cerr);
	if (rc) {
		/* the importer built something the config layer refuses: a bug
		 * of the importer, reported as such */
		cli_errorf(c, "import produced an invalid config: %s: %s (please report)",
			   cerr.path, cerr.msg);
		imp_result_free(&r);
		return CLI_EINTERNAL;
	}
	if (!c->json)
		imp_report_print(&r, c->err);
	if (a->set[IMP_O_DRY] || c->json) {
		json_error_t jerr;
		doc = json_loads(text, 0, &jerr);
	}
	if (c->json &&
	    (a->set[IMP_O_DRY] || a->set[IMP_O_OUTPUT] || (r.ndropped && !a->set[IMP_O_PARTIAL]))) {
		json_t *o2 = json_pack("{s:O, s:o, s:I}", "config", doc, "report",
				       imp_report_json(&r), "dropped", (json_int_t)r.ndropped);
		out_json(c, o2);
		json_decref(o2);
	} else if (a->set[IMP_O_DRY]) {
		fputs(text, c->out);
	}
	rc = CLI_OK;
	if (r.ndropped && !a->set[IMP_O_PARTIAL]) {
		cli_errorf(c, "%u item%s cannot be carried over (listed above); %s", r.ndropped,
			   r.ndropped == 1 ? "" : "s",
			   a->set[IMP_O_DRY] ? "--partial would import the rest"
					     : "nothing was imported (--partial imports the rest)");
		rc = CLI_EPARTIAL;
	} else if (a->set[IMP_O_OUTPUT]) {
		int wrc = imp_write(a->val[IMP_O_OUTPUT][0], text);
		if (wrc) {
			cli_errorf(c, "%s: %s", a->val[IMP_O_OUTPUT][0], strerror(-wrc));
			rc = CLI_EINPUT;
		} else {
			cli_done(c, "wrote %s", a->val[IMP_O_OUTPUT][0]);
		}
	} else if (!a->set[IMP_O_DRY]) {
		json_error_t jerr;
		json_t *d = json_loads(text, 0, &jerr), *rep = imp_report_json(&r);
		if (!d || !rep)
			rc = CLI_EINTERNAL;
		else if (a->set[IMP_O_REPLACE])
			rc = imp_apply_replace(c, d, rep);
		else
			rc = imp_apply_add(c, d, rep);
		json_decref(d);
		json_decref(rep);
	}
	json_decref(doc);
	free(text);
	imp_result_free(&r);
	return rc;
}

static int imp_tgt(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return imp_run(c, a, "tgt");
}

static int imp_lio(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return imp_run(c, a, "lio");
}

#define IMP_OPTS                                                                                   \
	{                                                                                          \
		[IMP_O_DRY] = {.name = "dry-run",                                                  \
			       .short_name = 'n',                                                  \
			       .help = "print the resulting config, apply nothing"},               \
		[IMP_O_OUTPUT] = {.name = "output",                                                \
				  .short_name = 'o',                                               \
				  .has_arg = true,                                                 \
				  .arg = "FILE",                                                   \
				  .help = "write the resulting config file (0600), apply "         \
					  "nothing"},                                              \
		[IMP_O_PARTIAL] = {.name = "partial",                                              \
				   .help = "import even when some items cannot be carried "        \
					   "over"},                                                \
		[IMP_O_REPLACE] = {.name = "replace",                                              \
				   .help = "replace the running back-stores and targets "          \
					   "instead of adding to them"},                           \
		[IMP_O_PORTAL] = {.name = "portal",                                                \
				  .short_name = 'p',                                               \
				  .has_arg = true,                                                 \
				  .repeat = true,                                                  \
				  .arg = "ADDR:PORT",                                              \
				  .help = "tgt: the portal of every imported target "              \
					  "(repeatable)"},                                         \
	}

const struct cli_cmd cli_cmds_import[] = {
    {
	.object = "import",
	.verb = "tgt",
	.usage = "FILE",
	.summary = "import tgt's targets.conf (tgt-admin's format, with includes)",
	.help = "Everything that cannot be carried over is listed by name on stderr; then\n"
		"nothing is imported unless --partial is given (exit status 6).\n"
		"tgtd listens on every address: imported targets get the portals\n"
		"0.0.0.0:3260 and [::]:3260 unless --portal says otherwise.",
	.opts = IMP_OPTS,
	.min_pos = 1,
	.max_pos = 1,
	.run = imp_tgt,
    },
    {
	.object = "import",
	.verb = "lio",
	.usage = "FILE",
	.summary = "import LIO's saveconfig.json (targetcli's saveconfig)",
	.help = "Everything that cannot be carried over is listed by name on stderr; then\n"
		"nothing is imported unless --partial is given (exit status 6).\n"
		"LU identities (serial, NAA designator) and INQUIRY strings are kept as LIO\n"
		"reported them, so initiators and multipath see the same devices.",
	.opts = IMP_OPTS,
	.min_pos = 1,
	.max_pos = 1,
	.run = imp_lio,
    },
    {0},
};
