/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_target.c: utarget target ..., tpg ... (portal groups) and portal ...
 * (RPC target.*, portal_group.*, portal.*). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* "ADDR (every IPv4 address), ..." of a portal group's "listening" (what
 * it really listens on): a wildcard address is said to be one. */
static void tg_listening(json_t *g, char *buf, size_t size)
{
	json_t *l = json_object_get(g, "listening"), *e;
	size_t n = 0, i;

	if (!l)
		l = json_object_get(g, "portals");
	buf[0] = '\0';
	json_array_foreach(l, i, e)
	{
		const char *a = json_string_value(e) ?: "?";
		const char *what = strncmp(a, "0.0.0.0:", 8) == 0 ? " (every IPv4 address)"
				   : strncmp(a, "[::]:", 5) == 0  ? " (every address)"
								  : "";
		int w = snprintf(buf + n, size - n, "%s%s%s", i ? ", " : "", a, what);

		if (w < 0 || (size_t)w >= size - n)
			return;
		n += (size_t)w;
	}
}

/* A change's answer is a portal group (or a target whose first one is
 * meant): its confirmation line says where it listens. */
static int tg_change_listening(struct cli *c, const char *method, json_t *p, const char *what)
{
	json_t *res, *g;
	char on[1024];
	int rc = cli_call(c, method, p, &res);

	if (rc)
		return rc;
	if (c->json) {
		out_json(c, res);
		json_decref(res);
		return CLI_OK;
	}
	g = json_object_get(res, "portal_groups")
		? json_array_get(json_object_get(res, "portal_groups"), 0)
		: res;
	tg_listening(g, on, sizeof(on));
	cli_done(c, "%s; portal group %lld listens on %s", what,
		 (long long)json_integer_value(json_object_get(g, "tag")), on[0] ? on : "nothing");
	json_decref(res);
	return CLI_OK;
}

/* ---- targets ---- */
/* A target as a row of the list: portals as TAG/ADDR, counts, demo mode. */
static json_t *tg_row(json_t *t)
{
	json_t *portals = json_array(), *g, *demo = json_object_get(t, "demo_mode");
	size_t k;

	json_array_foreach(json_object_get(t, "portal_groups"), k, g)
	{
		size_t j;
		json_t *p;
		json_array_foreach(json_object_get(g, "portals"), j, p)
		{
			char buf[128];
			snprintf(buf, sizeof(buf), "%lld/%s",
				 (long long)json_integer_value(json_object_get(g, "tag")),
				 json_string_value(p) ? json_string_value(p) : "?");
			json_array_append_new(portals, json_string(buf));
		}
	}
	return json_pack("{s:O*, s:O*, s:o, s:I, s:I, s:s, s:O*}", "name",
			 json_object_get(t, "name"), "alias", json_object_get(t, "alias"),
			 "portals", portals, "luns",
			 (json_int_t)json_array_size(json_object_get(t, "luns")), "acls",
			 (json_int_t)json_array_size(json_object_get(t, "acls")), "demo",
			 !json_is_true(json_object_get(demo, "enabled"))    ? "off"
			 : json_is_true(json_object_get(demo, "read_only")) ? "ro"
									    : "rw",
			 "sessions", json_object_get(t, "sessions"));
}

static int tg_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"name", "alias", "portals", "luns",
					   "acls", "demo",  "sessions"};
	static const char *const heads[] = {"NAME", "ALIAS", "PORTALS", "LUNS",
					    "ACLS", "DEMO",  "SESSIONS"};

	return cmd_list(c, "target.list", NULL, tg_row, cols, heads, ARRAY_SIZE(cols));
}

/* A portal group's "listening" differs from its portals only when
 * utargetd runs with --listen: say so where it is read. */
static void tg_listen_notes(struct cli *c, json_t *t)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(t, "portal_groups"), i, g)
	{
		json_t *listening = json_object_get(g, "listening");
		char on[512], conf[512];

		if (!listening || json_equal(listening, json_object_get(g, "portals")))
			continue;
		out_text(listening, on, sizeof(on));
		out_text(json_object_get(g, "portals"), conf, sizeof(conf));
		fprintf(c->out,
			"note: portal group %lld listens on %s (utargetd --listen), not on its "
			"portals %s\n",
			(long long)json_integer_value(json_object_get(g, "tag")), on, conf);
	}
}

static int tg_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res;
	int rc = cmd_read(c, "target.get", json_pack("{s:s}", "name", a->pos[0]), &res);

	if (rc || !res)
		return rc;
	out_object(c, res, 0);
	tg_listen_notes(c, res);
	json_decref(res);
	return CLI_OK;
}

static int tg_create(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p, *portals = json_array();
	char what[512];
	json_int_t tag = 1;
	int rc;

	if (cli_opt(a, 1) && (rc = cmd_uint(c, "--tag", cli_opt(a, 1), 65535, &tag))) {
		json_decref(portals);
		return rc;
	}
	for (size_t i = 0; i < a->nval[0]; i++)
		json_array_append_new(portals, json_string(a->val[0][i]));
	/* without --portal the daemon gives the default portals (settings
	 * "default_portals", or its --listen addresses) */
	if (a->nval[0] == 0)
		p = json_pack("{s:s, s:[{s:I}]}", "name", a->pos[0], "portal_groups", "tag", tag);
	else
		p = json_pack("{s:s, s:[{s:I, s:O}]}", "name", a->pos[0], "portal_groups", "tag",
			      tag, "portals", portals);
	json_decref(portals);
	if (!p)
		return CLI_EINTERNAL;
	if (cli_opt(a, 2))
		json_object_set_new(p, "alias", json_string(cli_opt(a, 2)));
	rc = cmd_fields(c, p, CLI_K_TARGET, a, 1);
	if (rc) {
		json_decref(p);
		return rc;
	}
	snprintf(what, sizeof(what), "target %s created", a->pos[0]);
	return tg_change_listening(c, "target.create", p, what);
}

/* With sessions logged in only with --force; the confirmation counts the
 * sessions dropped. */
static int tg_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_pack("{s:s}", "name", a->pos[0]), *res;
	json_int_t n;
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	if (a->set[0])
		json_object_set_new(p, "force", json_true());
	rc = cmd_read(c, "target.delete", p, &res);
	if (rc || !res)
		return rc;
	n = json_integer_value(json_object_get(res, "sessions_dropped"));
	if (c->quiet)
		;
	else if (n)
		fprintf(c->out, "target %s deleted; %lld session%s dropped\n", a->pos[0],
			(long long)n, n == 1 ? "" : "s");
	else
		fprintf(c->out, "target %s deleted\n", a->pos[0]);
	json_decref(res);
	return CLI_OK;
}

static int tg_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_pack("{s:s}", "name", a->pos[0]);
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_fields(c, p, CLI_K_TARGET, a, 1);
	if (rc == 0)
		rc = cmd_merge_nested(c, p, "target.get", json_pack("{s:s}", "name", a->pos[0]));
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "target.set", p, "target %s changed", a->pos[0]);
}

/* ---- portal groups ---- */
static int tpg_tag(struct cli *c, const char *text, json_int_t *tag)
{
	if (strncmp(text, "tpg", 3) == 0)
		text += 3;
	return cmd_uint(c, "TAG", text, 65535, tag);
}

static int tpg_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"tag", "rel_port_id", "portals"};
	static const char *const heads[] = {"TAG", "REL_PORT_ID", "PORTALS"};

	return cmd_list(c, "portal_group.list", json_pack("{s:s}", "target", a->pos[0]), NULL, cols,
			heads, ARRAY_SIZE(cols));
}

static int tpg_create(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p, *portals;
	char what[512];
	json_int_t tag;
	size_t i = 2;
	int rc;

	rc = tpg_tag(c, a->pos[1], &tag);
	if (rc)
		return rc;
	portals = json_array();
	for (; i < a->npos && !cli_is_field(a->pos[i]); i++)
		json_array_append_new(portals, json_string(a->pos[i]));
	p = json_pack("{s:s, s:I, s:o}", "target", a->pos[0], "tag", tag, "portals", portals);
	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_fields(c, p, CLI_K_PORTAL_GROUP, a, i);
	if (rc) {
		json_decref(p);
		return rc;
	}
	snprintf(what, sizeof(what), "portal group %lld of %s created", (long long)tag, a->pos[0]);
	return tg_change_listening(c, "portal_group.create", p, what);
}

static int tpg_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tag;
	int rc = tpg_tag(c, a->pos[1], &tag);

	if (rc)
		return rc;
	return cmd_change(c, "portal_group.delete",
			  json_pack("{s:s, s:I}", "target", a->pos[0], "tag", tag),
			  "portal group %lld of %s deleted", (long long)tag, a->pos[0]);
}

static int tpg_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tag;
	json_t *p;
	int rc = tpg_tag(c, a->pos[1], &tag);

	if (rc)
		return rc;
	p = json_pack("{s:s, s:I}", "target", a->pos[0], "tag", tag);
	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_fields(c, p, CLI_K_PORTAL_GROUP, a, 2);
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "portal_group.set", p, "portal group %lld of %s changed",
			  (long long)tag, a->pos[0]);
}

/* ---- login redirection (RFC 7143 11.13.5) ---- */
/* The "redirect" value from ADDRESS / --permanent (option 0) / --off
 * (option 1) / --balance (portal groups, option 2); the daemon replaces
 * the old value whole. NULL: usage error. */
static json_t *redirect_value(struct cli *c, const struct cli_args *a, size_t addr_pos, bool tpg)
{
	const char *addr = a->npos > addr_pos ? a->pos[addr_pos] : NULL;
	bool perm = a->set[0], off = a->set[1], balance = tpg && a->set[2];

	if (off && !addr && !perm && !balance)
		return json_null();
	if (balance && !addr && !perm && !off)
		return json_pack("{s:b}", "balance", 1);
	if (addr && !off && !balance)
		return json_pack("{s:s,s:b}", "address", addr, "permanent", perm);
	cli_errorf(c, tpg ? "give ADDRESS [--permanent], --balance or --off"
			  : "give ADDRESS [--permanent] or --off");
	return NULL;
}

static void redirect_said(const json_t *v, char *buf, size_t size)
{
	if (json_is_null(v))
		snprintf(buf, size, "logins are no longer redirected");
	else if (json_is_true(json_object_get(v, "balance")))
		snprintf(buf, size, "new sessions go to the least-loaded portal");
	else
		snprintf(buf, size, "logins are redirected %s to %s",
			 json_is_true(json_object_get(v, "permanent")) ? "permanently"
								       : "temporarily",
			 json_string_value(json_object_get(v, "address")));
}

static int tg_redirect(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *v = redirect_value(c, a, 1, false);
	char said[400];

	if (!v)
		return CLI_EUSAGE;
	redirect_said(v, said, sizeof(said));
	return cmd_change(c, "target.set",
			  json_pack("{s:s, s:o}", "name", a->pos[0], "redirect", v),
			  "target %s: %s", a->pos[0], said);
}

static int tpg_redirect(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tag;
	json_t *v;
	char said[400];
	int rc = tpg_tag(c, a->pos[1], &tag);

	if (rc)
		return rc;
	v = redirect_value(c, a, 2, true);
	if (!v)
		return CLI_EUSAGE;
	redirect_said(v, said, sizeof(said));
	return cmd_change(
	    c, "portal_group.set",
	    json_pack("{s:s, s:I, s:o}", "target", a->pos[0], "tag", tag, "redirect", v),
	    "portal group %lld of %s: %s", (long long)tag, a->pos[0], said);
}

static int portal_cmd(struct cli *c, const struct cli_args *a, const char *method, const char *done)
{
	json_int_t tag;
	char what[512];
	int rc = tpg_tag(c, a->pos[1], &tag);

	if (rc)
		return rc;
	snprintf(what, sizeof(what), "portal %s %s portal group %lld of %s", a->pos[2], done,
		 (long long)tag, a->pos[0]);
	return tg_change_listening(
	    c, method,
	    json_pack("{s:s, s:I, s:s}", "target", a->pos[0], "tag", tag, "portal", a->pos[2]),
	    what);
}

static int portal_add(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return portal_cmd(c, a, "portal.add", "added to");
}

static int portal_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return portal_cmd(c, a, "portal.delete", "removed from");
}

const struct cli_cmd cli_cmds_target[] = {
    {
	.object = "target",
	.verb = "list",
	.alias = "ls",
	.usage = "",
	.summary = "list the targets",
	.max_pos = 0,
	.read = true,
	.run = tg_list,
    },
    {
	.object = "target",
	.verb = "show",
	.alias = "get",
	.usage = "NAME",
	.summary = "one target: portal groups, LUNs, ACLs, demo mode, sessions",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = tg_show,
    },
    {
	.object = "target",
	.verb = "create",
	.alias = "add",
	.usage = "NAME [FIELD=VALUE...]",
	.summary = "create a target with one portal group",
	.help = "NAME is an iSCSI name (iqn.yyyy-mm.reversed.domain[:id], eui., naa.).\n"
		"Without --portal the portal group listens on the daemon's default portals\n"
		"(settings default_portals; absent: 0.0.0.0:3260, every IPv4 address; with\n"
		"utargetd --listen, its addresses); the confirmation says where it listens.\n"
		"FIELDs: alias, demo_mode.enabled, demo_mode.read_only.\n"
		"Example: utarget target create iqn.2026-12.org.example:t1 --portal 192.0.2.1:3260",
	.opts = {{.name = "portal",
		  .short_name = 'p',
		  .has_arg = true,
		  .repeat = true,
		  .arg = "ADDR:PORT",
		  .help = "listen here (repeatable; IPv6 as [addr]:port)"},
		 {.name = "tag",
		  .has_arg = true,
		  .arg = "TAG",
		  .help = "the portal group tag (default 1)"},
		 {.name = "alias", .has_arg = true, .arg = "ALIAS", .help = "TargetAlias"}},
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.run = tg_create,
    },
    {
	.object = "target",
	.verb = "delete",
	.alias = "rm",
	.usage = "NAME",
	.summary = "delete a target (with sessions logged in: --force, which drops them)",
	.opts = {{.name = "force", .short_name = 'f', .help = "drop its sessions"}},
	.min_pos = 1,
	.max_pos = 1,
	.run = tg_delete,
    },
    {
	.object = "target",
	.verb = "set",
	.usage = "NAME FIELD=VALUE...",
	.summary = "change a target's alias or demo mode",
	.help = "Example: utarget target set iqn.2026-12.org.example:t1 demo_mode.enabled=true",
	.min_pos = 2,
	.max_pos = CLI_ANY,
	.run = tg_set,
    },
    {
	.object = "target",
	.verb = "redirect",
	.usage = "NAME [ADDRESS]",
	.summary = "redirect logins to the target elsewhere (or --off)",
	.help = "ADDRESS is what the Login Response's TargetAddress carries:\n"
		"host[:port][,tag] (IPv6 in brackets). Temporary (01/01) unless --permanent\n"
		"(01/02). Initiators the target's ACLs do not admit are refused, not\n"
		"redirected. Example: utarget target redirect iqn.2026-12.org.example:t1 "
		"192.0.2.8:3260,1",
	.opts = {{.name = "permanent", .help = "\"target moved permanently\" (01/02)"},
		 {.name = "off", .help = "stop redirecting"}},
	.min_pos = 1,
	.max_pos = 2,
	.run = tg_redirect,
    },
    {
	.object = "tpg",
	.verb = "list",
	.alias = "ls",
	.usage = "TARGET",
	.summary = "list a target's portal groups",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = tpg_list,
    },
    {
	.object = "tpg",
	.verb = "create",
	.alias = "add",
	.usage = "TARGET TAG PORTAL... [FIELD=VALUE...]",
	.summary = "add a portal group (a SCSI target port) listening on PORTALs",
	.help = "FIELDs: rel_port_id.",
	.min_pos = 3,
	.max_pos = CLI_ANY,
	.run = tpg_create,
    },
    {
	.object = "tpg",
	.verb = "delete",
	.alias = "rm",
	.usage = "TARGET TAG",
	.summary = "remove a portal group (its sessions are dropped)",
	.min_pos = 2,
	.max_pos = 2,
	.run = tpg_delete,
    },
    {
	.object = "tpg",
	.verb = "set",
	.usage = "TARGET TAG FIELD=VALUE...",
	.summary = "change a portal group (portals=A,B replaces them; rel_port_id)",
	.min_pos = 3,
	.max_pos = CLI_ANY,
	.run = tpg_set,
    },
    {
	.object = "tpg",
	.verb = "redirect",
	.usage = "TARGET TAG [ADDRESS]",
	.summary = "redirect logins through a portal group (or --balance, --off)",
	.help = "A portal group's redirection comes before the target's. --balance sends\n"
		"each new session temporarily to the group's portal with the fewest\n"
		"connections of logged-in sessions (portals with an address of their own);\n"
		"a login through that portal stays. `utarget tpg list TARGET --json` shows\n"
		"the load per portal.",
	.opts = {{.name = "permanent", .help = "\"target moved permanently\" (01/02)"},
		 {.name = "off", .help = "stop redirecting"},
		 {.name = "balance", .help = "to the least-loaded portal of the group"}},
	.min_pos = 2,
	.max_pos = 3,
	.run = tpg_redirect,
    },
    {
	.object = "portal",
	.verb = "add",
	.alias = "create",
	.usage = "TARGET TAG ADDR:PORT",
	.summary = "listen on one more address for a portal group",
	.min_pos = 3,
	.max_pos = 3,
	.run = portal_add,
    },
    {
	.object = "portal",
	.verb = "delete",
	.alias = "rm",
	.usage = "TARGET TAG ADDR:PORT",
	.summary = "stop listening on an address (established sessions stay)",
	.min_pos = 3,
	.max_pos = 3,
	.run = portal_delete,
    },
    {0},
};
