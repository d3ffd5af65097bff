/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_acl.c: utarget acl list|add|delete|set (RPC acl.*): initiators
 * allowed to log in to a target. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* An ACL as a row of the list: its LUN map as LUN=BACKSTORE, whose CHAP. */
static json_t *acl_row(json_t *e)
{
	json_t *row = json_deep_copy(e), *luns = json_object_get(e, "luns"), *l;
	char map[512] = "";
	size_t k;

	if (!row)
		return NULL;
	if (!luns)
		snprintf(map, sizeof(map), "the target's");
	json_array_foreach(luns, k, l)
	{
		snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%lld=%s%s", k ? "," : "",
			 (long long)json_integer_value(json_object_get(l, "lun")),
			 json_string_value(json_object_get(l, "backstore")) ?: "?",
			 json_is_true(json_object_get(l, "read_only")) ? "(ro)" : "");
	}
	if (luns && !json_array_size(luns))
		snprintf(map, sizeof(map), "none");
	json_object_set_new(row, "map", json_string(map));
	json_object_set_new(row, "chap",
			    json_string(json_object_get(e, "auth") ? "own" : "the target's"));
	return row;
}

static int acl_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"initiator", "addresses", "map", "chap"};
	static const char *const heads[] = {"INITIATOR", "ADDRESSES", "LUNS", "CHAP"};

	return cmd_list(c, "acl.list", json_pack("{s:s}", "target", a->pos[0]), acl_row, cols,
			heads, ARRAY_SIZE(cols));
}

/* --lun LUN:BACKSTORE[:ro] (repeatable) -> an own LUN map */
static int acl_own_map(struct cli *c, const struct cli_args *a, size_t opt, json_t *p)
{
	json_t *luns;

	if (!a->set[opt])
		return CLI_OK;
	luns = json_array();
	if (!luns || json_object_set_new(p, "luns", luns))
		return CLI_EINTERNAL;
	for (size_t i = 0; i < a->nval[opt]; i++) {
		char buf[256], *bs, *ro;
		json_int_t lun;
		int rc;

		snprintf(buf, sizeof(buf), "%s", a->val[opt][i]);
		bs = strchr(buf, ':');
		if (!bs || !bs[1]) {
			cli_errorf(c, "--lun %s: expected LUN:BACKSTORE[:ro]", a->val[opt][i]);
			return CLI_EUSAGE;
		}
		*bs++ = '\0';
		ro = strchr(bs, ':');
		if (ro) {
			*ro++ = '\0';
			if (strcmp(ro, "ro") != 0) {
				cli_errorf(c, "--lun %s: the third part can only be \"ro\"",
					   a->val[opt][i]);
				return CLI_EUSAGE;
			}
		}
		rc = cmd_lun(c, buf, &lun);
		if (rc)
			return rc;
		json_array_append_new(luns, json_pack("{s:I, s:s, s:b}", "lun", lun, "backstore",
						      bs, "read_only", ro != NULL));
	}
	return CLI_OK;
}

static int acl_add(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	bool named = a->npos > 1 && !cli_is_field(a->pos[1]);
	json_t *p = json_pack("{s:s}", "target", a->pos[0]);
	char who[512];
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	if (!named && !a->nval[1]) {
		json_decref(p);
		cli_errorf(c, "an ACL names an INITIATOR, --address networks, or both");
		return CLI_EUSAGE;
	}
	if (named)
		json_object_set_new(p, "initiator", json_string(a->pos[1]));
	if (a->nval[1]) {
		json_t *nets = json_array();
		for (size_t i = 0; i < a->nval[1]; i++)
			json_array_append_new(nets, json_string(a->val[1][i]));
		json_object_set_new(p, "addresses", nets);
	}
	rc = acl_own_map(c, a, 0, p);
	if (rc == 0)
		rc = cmd_fields(c, p, CLI_K_ACL, a, named ? 2 : 1);
	if (rc) {
		json_decref(p);
		return rc;
	}
	if (named)
		snprintf(who, sizeof(who), "initiator %s%s", a->pos[1],
			 a->nval[1] ? " (from the given networks)" : "");
	else
		snprintf(who, sizeof(who), "any initiator from the given networks");
	return cmd_change(c, "acl.create", p, "%s may log in to %s", who, a->pos[0]);
}

static int acl_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_change(c, "acl.delete",
			  json_pack("{s:s, s:s}", "target", a->pos[0], "initiator", a->pos[1]),
			  "ACL of %s on %s deleted", a->pos[1], a->pos[0]);
}

static int acl_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_pack("{s:s, s:s}", "target", a->pos[0], "initiator", a->pos[1]);
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = acl_own_map(c, a, 0, p);
	if (rc == 0 && a->set[1])
		json_object_set_new(p, "luns", json_null());
	if (rc == 0)
		rc = cmd_fields(c, p, CLI_K_ACL, a, 2);
	if (rc == 0 && a->npos == 2 && !a->set[0] && !a->set[1]) {
		cli_errorf(c, "nothing to change (FIELD=VALUE, --lun or --target-map)");
		rc = CLI_EUSAGE;
	}
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "acl.set", p, "ACL of %s on %s changed", a->pos[1], a->pos[0]);
}

#define ACL_OPT_LUN                                                                                \
	{                                                                                          \
		.name = "lun", .short_name = 'l', .has_arg = true, .repeat = true,                 \
		.arg = "LUN:BACKSTORE[:ro]",                                                       \
		.help = "an entry of the initiator's own LUN map (repeatable)"                     \
	}

const struct cli_cmd cli_cmds_acl[] = {
    {
	.object = "acl",
	.verb = "list",
	.alias = "ls",
	.usage = "TARGET",
	.summary = "list the initiators allowed on a target",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = acl_list,
    },
    {
	.object = "acl",
	.verb = "add",
	.alias = "create",
	.usage = "TARGET [INITIATOR] [FIELD=VALUE...]",
	.summary = "allow an initiator, or networks (with the target's LUN map, or --lun)",
	.help = "Access is denied by default: an initiator needs an ACL (or the target's\n"
		"demo mode). Example:\n"
		"  utarget acl add iqn.2026-12.org.example:t1 iqn.1994-05.com.redhat:host1\n"
		"  utarget acl add iqn.2026-12.org.example:t1 iqn.1994-05.com.redhat:backup \\\n"
		"      --lun 0:disk1:ro\n"
		"  utarget acl add iqn.2026-12.org.example:t1 --address 192.0.2.0/24\n"
		"  utarget acl add iqn.2026-12.org.example:t1 iqn.1994-05.com.redhat:admin \\\n"
		"      target_reset=true   (may send TARGET WARM/COLD RESET)\n"
		"An ACL with networks only is named \"@NET[,NET...]\" in acl delete/set and\n"
		"lun --initiator.",
	.opts = {ACL_OPT_LUN,
		 {.name = "address",
		  .short_name = 'a',
		  .has_arg = true,
		  .repeat = true,
		  .arg = "NET",
		  .help = "a network the initiator may connect from (10.0.0.0/8, fd00::/8; "
			  "repeatable)"}},
	.min_pos = 1,
	.max_pos = CLI_ANY,
	.run = acl_add,
    },
    {
	.object = "acl",
	.verb = "delete",
	.alias = "rm",
	.usage = "TARGET INITIATOR",
	.summary = "remove an initiator's ACL (its sessions on the target are dropped)",
	.min_pos = 2,
	.max_pos = 2,
	.run = acl_delete,
    },
    {
	.object = "acl",
	.verb = "set",
	.usage = "TARGET INITIATOR [FIELD=VALUE...]",
	.summary = "change an ACL: its own LUN map (--lun), or back to the target's",
	.opts = {ACL_OPT_LUN,
		 {.name = "target-map",
		  .help = "drop the own map: the initiator gets the target's LUNs"}},
	.min_pos = 2,
	.max_pos = CLI_ANY,
	.run = acl_set,
    },
    {0},
};
