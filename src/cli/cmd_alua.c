/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_alua.c: utarget alua list|state|create|delete|set: ALUA target port
 * groups (the config's "port_groups", docs/config.md; SPC-4 5.15).
 *
 * alua.list gives the groups with the states they have now (SET TARGET PORT
 * GROUPS included); alua.set_state changes one state live. Defining,
 * removing and regrouping groups rewrites the whole "port_groups" list
 * with settings.set: the commands read the list, change one group and
 * send the list back (the daemon checks it with the config rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "config/model.h"

/* A port group as a row of the list: members as TARGET:TAG, LU states as
 * BACKSTORE=STATE. */
static json_t *al_row(json_t *g)
{
	json_t *row = json_deep_copy(g), *ports = json_array(), *lus = json_array(), *e;
	size_t k;

	json_array_foreach(json_object_get(g, "members"), k, e)
	{
		char buf[300];
		snprintf(buf, sizeof(buf), "%s:%lld",
			 json_string_value(json_object_get(e, "target")) ?: "?",
			 (long long)json_integer_value(json_object_get(e, "tag")));
		json_array_append_new(ports, json_string(buf));
	}
	json_array_foreach(json_object_get(g, "lu_states"), k, e)
	{
		char buf[160];
		snprintf(buf, sizeof(buf), "%s=%s",
			 json_string_value(json_object_get(e, "backstore")) ?: "?",
			 json_string_value(json_object_get(e, "state")) ?: "?");
		json_array_append_new(lus, json_string(buf));
	}
	json_object_set_new(row, "ports", ports);
	json_object_set_new(row, "lus", lus);
	return row;
}

static int al_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"id",       "name",		"state", "preferred",
					   "explicit", "transition_ms", "ports", "lus"};
	static const char *const heads[] = {"ID",	"NAME",		 "STATE",   "PREF",
					    "EXPLICIT", "TRANSITION_MS", "MEMBERS", "LU_STATES"};

	return cmd_list(c, "alua.list", NULL, al_row, cols, heads, ARRAY_SIZE(cols));
}

static int al_state(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t id;
	json_t *p;
	int rc = cmd_uint(c, "GROUP", a->pos[0], 65535, &id);

	if (rc)
		return rc;
	p = json_pack("{s:I, s:s}", "group", id, "state", a->pos[1]);
	if (p && cli_opt(a, 0))
		json_object_set_new(p, "backstore", json_string(cli_opt(a, 0)));
	return cmd_change(c, "alua.set_state", p, "port group %lld%s%s: %s", (long long)id,
			  cli_opt(a, 0) ? ", back-store " : "", cli_opt(a, 0) ?: "", a->pos[1]);
}

/* "TARGET:TAG" (the target name itself holds ':' ; the tag follows the
 * last one) -> {target, tag}. */
static json_t *al_member(struct cli *c, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	json_int_t tag;
	char name[CFG_ISCSI_NAME_MAX + 1];

	if (!colon || colon == arg || (size_t)(colon - arg) > CFG_ISCSI_NAME_MAX) {
		cli_errorf(c, "%s: a member is TARGET:TAG", arg);
		return NULL;
	}
	if (cmd_uint(c, "TAG", colon + 1, 65535, &tag))
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)(colon - arg), arg);
	return json_pack("{s:s, s:I}", "target", name, "tag", tag);
}

/* The current groups (alua.list), the index of group id in *at (-1). */
static json_t *al_groups(struct cli *c, json_int_t id, long *at, int *rc)
{
	json_t *res = NULL, *g;
	size_t i;

	*at = -1;
	*rc = cli_call(c, "alua.list", NULL, &res);
	json_array_foreach(res, i, g)
	{
		if (json_integer_value(json_object_get(g, "id")) == id)
			*at = (long)i;
	}
	return res;
}

/* The current groups, *at the index of group id, which must exist (else
 * NULL, the error printed and *rc CLI_ENOTFOUND). */
static json_t *al_existing(struct cli *c, json_int_t id, long *at, int *rc)
{
	json_t *groups = al_groups(c, id, at, rc);

	if (*rc)
		return NULL;
	if (*at < 0) {
		json_decref(groups);
		cli_errorf(c, "no port group %lld", (long long)id);
		*rc = CLI_ENOTFOUND;
		return NULL;
	}
	return groups;
}

/* --member / --remove-member (options 0, 1) and FIELD=VALUE from pos[from]. */
static int al_edit(struct cli *c, const struct cli_args *a, json_t *g, size_t from)
{
	json_t *members = json_object_get(g, "members");
	int rc;

	if (!members) {
		members = json_array();
		json_object_set_new(g, "members", members);
	}
	for (size_t i = 0; i < a->nval[0]; i++) {
		json_t *m = al_member(c, a->val[0][i]);
		if (!m)
			return CLI_EUSAGE;
		json_array_append_new(members, m);
	}
	for (size_t i = 0; i < a->nval[1]; i++) {
		json_t *m = al_member(c, a->val[1][i]), *e;
		bool found = false;
		size_t k;
		if (!m)
			return CLI_EUSAGE;
		json_array_foreach(members, k, e)
		{
			if (json_equal(e, m)) {
				json_array_remove(members, k);
				found = true;
				break;
			}
		}
		json_decref(m);
		if (!found) {
			cli_errorf(c, "%s is not a member of group %lld", a->val[1][i],
				   (long long)json_integer_value(json_object_get(g, "id")));
			return CLI_ENOTFOUND;
		}
	}
	rc = cmd_fields(c, g, CLI_K_ALUA_GROUP, a, from);
	return rc;
}

static int al_put(struct cli *c, json_t *groups, const char *what, json_int_t id)
{
	return cmd_change(c, "settings.set", json_pack("{s:o}", "port_groups", groups),
			  "port group %lld %s", (long long)id, what);
}

static int al_create(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *groups, *g;
	json_int_t id;
	long at;
	int rc = cmd_uint(c, "ID", a->pos[0], 65535, &id);

	if (rc)
		return rc;
	groups = al_groups(c, id, &at, &rc);
	if (rc)
		return rc;
	if (at >= 0) {
		json_decref(groups);
		cli_errorf(c, "port group %lld exists", (long long)id);
		return CLI_EEXISTS;
	}
	g = json_pack("{s:I}", "id", id);
	rc = al_edit(c, a, g, 1);
	if (rc) {
		json_decref(g);
		json_decref(groups);
		return rc;
	}
	json_array_append_new(groups, g);
	return al_put(c, groups, "created", id);
}

static int al_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *groups;
	json_int_t id;
	long at;
	int rc = cmd_uint(c, "ID", a->pos[0], 65535, &id);

	if (rc)
		return rc;
	groups = al_existing(c, id, &at, &rc);
	if (rc)
		return rc;
	json_array_remove(groups, (size_t)at);
	return al_put(c, groups, "deleted", id);
}

static int al_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *groups;
	json_int_t id;
	long at;
	int rc = cmd_uint(c, "ID", a->pos[0], 65535, &id);

	if (rc)
		return rc;
	if (a->npos == 1 && !a->nval[0] && !a->nval[1]) {
		cli_errorf(c, "nothing to change (FIELD=VALUE, --member, --remove-member)");
		return CLI_EUSAGE;
	}
	groups = al_existing(c, id, &at, &rc);
	if (rc)
		return rc;
	rc = al_edit(c, a, json_array_get(groups, (size_t)at), 1);
	if (rc) {
		json_decref(groups);
		return rc;
	}
	return al_put(c, groups, "changed", id);
}

#define AL_MEMBER_OPTS                                                                             \
	{.name = "member",                                                                         \
	 .short_name = 'm',                                                                        \
	 .has_arg = true,                                                                          \
	 .repeat = true,                                                                           \
	 .arg = "TARGET:TAG",                                                                      \
	 .help = "a portal group of a target joins (repeatable)"},                                 \
	{                                                                                          \
		.name = "remove-member", .has_arg = true, .repeat = true, .arg = "TARGET:TAG",     \
		.help = "a portal group leaves (repeatable)"                                       \
	}

const struct cli_cmd cli_cmds_alua[] = {
    {
	.object = "alua",
	.verb = "list",
	.alias = "ls",
	.usage = "",
	.summary = "ALUA target port groups with their current access states",
	.read = true,
	.run = al_list,
    },
    {
	.object = "alua",
	.verb = "state",
	.usage = "GROUP STATE",
	.summary = "change a port group's access state live (for one LU with --backstore)",
	.help = "STATE: active/optimized, active/non-optimized, standby, unavailable,\n"
		"offline, transitioning. Sessions are kept; initiators get ASYMMETRIC ACCESS\n"
		"STATE CHANGED. The state is persisted like any change.",
	.opts = {{.name = "backstore",
		  .short_name = 'b',
		  .has_arg = true,
		  .arg = "NAME",
		  .help = "only this LU's state through the group (lu_states)"}},
	.min_pos = 2,
	.max_pos = 2,
	.run = al_state,
    },
    {
	.object = "alua",
	.verb = "create",
	.alias = "add",
	.usage = "ID [FIELD=VALUE...]",
	.summary = "define a port group (ID 1..65535) with --member TARGET:TAG ports",
	.help = "FIELDs: name, state, preferred, explicit, transition_ms (utarget.json(5)).\n"
		"Example: utarget alua create 2 --member iqn.2026-12.org.example:vm1:2 \\\n"
		"             name=site-b state=standby explicit=true",
	.opts = {AL_MEMBER_OPTS},
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.run = al_create,
    },
    {
	.object = "alua",
	.verb = "delete",
	.alias = "rm",
	.usage = "ID",
	.summary = "remove a port group (its ports get groups of their own)",
	.min_pos = 1,
	.max_pos = 1,
	.run = al_delete,
    },
    {
	.object = "alua",
	.verb = "set",
	.usage = "ID [FIELD=VALUE...]",
	.summary = "change a port group's fields or members",
	.opts = {AL_MEMBER_OPTS},
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.run = al_set,
    },
    {0},
};
