/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_lun.c: utarget lun list|add|delete|set (RPC lun.*): the LUN map of a
 * target, or with --initiator the own LUN map of one ACL. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* option 0 of every lun command is --initiator */
static json_t *lun_params(const struct cli_args *a)
{
	json_t *p = json_pack("{s:s}", "target", a->pos[0]);

	if (p && cli_opt(a, 0))
		json_object_set_new(p, "initiator", json_string(cli_opt(a, 0)));
	return p;
}

static void lun_whose(const struct cli_args *a, char *buf, size_t size)
{
	if (cli_opt(a, 0))
		snprintf(buf, size, "%s (initiator %s)", a->pos[0], cli_opt(a, 0));
	else
		snprintf(buf, size, "%s", a->pos[0]);
}

static int lun_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"lun", "backstore", "read_only"};
	static const char *const heads[] = {"LUN", "BACKSTORE", "READ_ONLY"};

	return cmd_list(c, "lun.list", lun_params(a), NULL, cols, heads, ARRAY_SIZE(cols));
}

static int lun_add(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = lun_params(a), *res;
	char whose[512];
	json_int_t lun;
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	json_object_set_new(p, "backstore", json_string(a->pos[1]));
	if (a->npos > 2) {
		rc = cmd_lun(c, a->pos[2], &lun);
		if (rc) {
			json_decref(p);
			return rc;
		}
		json_object_set_new(p, "lun", json_integer(lun));
	}
	if (a->set[1])
		json_object_set_new(p, "read_only", json_true());
	rc = cli_call(c, "lun.add", p, &res);
	if (rc)
		return rc;
	lun_whose(a, whose, sizeof(whose));
	if (c->json)
		out_json(c, res);
	else
		cli_done(c, "LUN %lld of %s: backstore %s%s",
			 (long long)json_integer_value(json_object_get(res, "lun")), whose,
			 a->pos[1],
			 json_is_true(json_object_get(res, "read_only")) ? " (read-only)" : "");
	json_decref(res);
	return CLI_OK;
}

/* lun delete|set TARGET LUN [FIELD=VALUE...]: the FIELDs (set only: delete
 * takes no more arguments) and the LUN, "LUN n of TARGET done". */
static int lun_change(struct cli *c, const struct cli_args *a, const char *method, const char *done)
{
	json_t *p = lun_params(a);
	char whose[512];
	json_int_t lun;
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_lun(c, a->pos[1], &lun);
	if (rc == 0)
		rc = cmd_fields(c, p, CLI_K_LUN, a, 2);
	if (rc) {
		json_decref(p);
		return rc;
	}
	json_object_set_new(p, "lun", json_integer(lun));
	lun_whose(a, whose, sizeof(whose));
	return cmd_change(c, method, p, "LUN %lld of %s %s", (long long)lun, whose, done);
}

static int lun_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return lun_change(c, a, "lun.delete", "deleted");
}

static int lun_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return lun_change(c, a, "lun.set", "changed");
}

#define LUN_OPT_INITIATOR                                                                          \
	{                                                                                          \
		.name = "initiator", .short_name = 'i', .has_arg = true, .arg = "IQN",             \
		.help = "the LUN map of this initiator's ACL (its own map) instead of the "        \
			"target's"                                                                 \
	}

const struct cli_cmd cli_cmds_lun[] = {
    {
	.object = "lun",
	.verb = "list",
	.alias = "ls",
	.usage = "TARGET",
	.summary = "list a target's LUN map (or an ACL's own map)",
	.opts = {LUN_OPT_INITIATOR},
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = lun_list,
    },
    {
	.object = "lun",
	.verb = "add",
	.alias = "create",
	.usage = "TARGET BACKSTORE [LUN]",
	.summary = "map a back-store at a LUN (default: the lowest free one); live",
	.help = "Initiators logged in see the new LUN (REPORTED LUNS DATA HAS CHANGED).\n"
		"Example: utarget lun add iqn.2026-12.org.example:t1 disk1 0",
	.opts = {LUN_OPT_INITIATOR,
		 {.name = "read-only",
		  .short_name = 'r',
		  .help = "write protect this mapping (the LU stays writable elsewhere)"}},
	.min_pos = 2,
	.max_pos = 3,
	.run = lun_add,
    },
    {
	.object = "lun",
	.verb = "delete",
	.alias = "rm",
	.usage = "TARGET LUN",
	.summary = "unmap a LUN; live",
	.opts = {LUN_OPT_INITIATOR},
	.min_pos = 2,
	.max_pos = 2,
	.run = lun_delete,
    },
    {
	.object = "lun",
	.verb = "set",
	.usage = "TARGET LUN FIELD=VALUE...",
	.summary = "change a mapping's back-store or write protection; live",
	.help = "FIELDs: backstore, read_only.",
	.opts = {LUN_OPT_INITIATOR},
	.min_pos = 3,
	.max_pos = CLI_ANY,
	.run = lun_set,
    },
    {0},
};
