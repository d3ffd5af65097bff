/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_reservation.c: utarget reservation get|clear (RPC reservation.*): the
 * persistent reservations initiators hold on a back-store's logical unit
 * (SPC-4 5.13), read out and cleared by the administrator. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* "iqn...,i,0x<isid>" when the registration is for one initiator port */
static void resv_port(json_t *reg, char *buf, size_t size)
{
	const char *ini = json_string_value(json_object_get(reg, "initiator"));
	const char *isid = json_string_value(json_object_get(reg, "isid"));

	snprintf(buf, size, "%s%s%s", ini ? ini : "?", isid && isid[0] ? ",i,0x" : "",
		 isid ? isid : "");
}

static int resv_get(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"key", "port", "target_port", "holder"};
	static const char *const heads[] = {"KEY", "INITIATOR PORT", "TARGET PORT", "HOLDER"};
	json_t *res, *rows, *reg, *resv;
	char who[512];
	size_t i;
	int rc;

	(void)cmd;
	rc = cmd_read(c, "reservation.get", json_pack("{s:s}", "backstore", a->pos[0]), &res);
	if (rc || !res)
		return rc;
	resv = json_object_get(res, "reservation");
	fprintf(c->out, "generation: %lld\naptpl: %s\n",
		(long long)json_integer_value(json_object_get(res, "generation")),
		json_is_true(json_object_get(res, "aptpl")) ? "yes (persists across restarts)"
							    : "no");
	if (json_is_object(resv)) {
		char name[128];
		json_t *h = json_object_get(resv, "holder");

		out_text(json_object_get(resv, "name"), name, sizeof(name));
		if (json_is_object(h))
			resv_port(h, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "every registrant");
		fprintf(c->out, "reservation: %s (type %lld), held by %s\n", name,
			(long long)json_integer_value(json_object_get(resv, "type")), who);
	} else {
		fprintf(c->out, "reservation: none\n");
	}
	if (!json_array_size(json_object_get(res, "registrations"))) {
		fprintf(c->out, "registrations: none\n");
		json_decref(res);
		return CLI_OK;
	}
	rows = json_array();
	json_array_foreach(json_object_get(res, "registrations"), i, reg)
	{
		json_t *row = json_deep_copy(reg);

		if (!row)
			continue;
		resv_port(reg, who, sizeof(who));
		json_object_set_new(row, "port", json_string(who));
		json_object_set_new(row, "target_port",
				    json_is_true(json_object_get(reg, "all_tg_pt"))
					? json_string("all")
					: json_incref(json_object_get(reg, "rel_port")));
		json_array_append_new(rows, row);
	}
	fprintf(c->out, "registrations:\n");
	out_table(c, rows, cols, heads, ARRAY_SIZE(cols));
	json_decref(rows);
	json_decref(res);
	return CLI_OK;
}

static int resv_clear(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *ini = cli_opt(a, 0);
	json_t *p = json_pack("{s:s}", "backstore", a->pos[0]), *res;
	int rc;

	(void)cmd;
	if (!p)
		return CLI_EINTERNAL;
	if (ini)
		json_object_set_new(p, "initiator", json_string(ini));
	rc = cli_call(c, "reservation.clear", p, &res);
	if (rc)
		return rc;
	if (c->json) {
		out_json(c, res);
	} else if (!c->quiet) {
		long long n = (long long)json_integer_value(json_object_get(res, "removed"));

		fprintf(c->out, "%s: %lld registration%s%s%s removed%s\n", a->pos[0], n,
			n == 1 ? "" : "s", ini ? " of " : "", ini ? ini : "",
			json_is_true(json_object_get(res, "released")) ? ", reservation released"
								       : "");
	}
	json_decref(res);
	return CLI_OK;
}

const struct cli_cmd cli_cmds_reservation[] = {
    {
	.object = "reservation",
	.verb = "get",
	.alias = "show",
	.usage = "BACKSTORE",
	.summary = "the persistent reservations of a back-store's LU: registrations, holder",
	.help = "What initiators registered and reserved with PERSISTENT RESERVE OUT: each\n"
		"registration's key, initiator port (\"<name>,i,0x<ISID>\", or the name alone:\n"
		"every port of it) and target port (relative id, or \"all\"), the reservation\n"
		"and its holder, the generation, and whether it persists across restarts\n"
		"(APTPL).",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = resv_get,
    },
    {
	.object = "reservation",
	.verb = "clear",
	.usage = "BACKSTORE",
	.summary = "remove persistent reservations: all, or one initiator's registrations",
	.help = "Without --initiator: every registration and the reservation, as an\n"
		"initiator's PERSISTENT RESERVE OUT CLEAR (every registrant is told:\n"
		"RESERVATIONS PREEMPTED). With --initiator: the registrations of that\n"
		"initiator (NAME: every port of it; NAME,i,0xISID: one port) are removed\n"
		"(REGISTRATIONS PREEMPTED), and the reservation when it ends with them.\n"
		"Not a configuration change; with APTPL the daemon's state file is\n"
		"rewritten before it answers. Exit status 4 when that initiator has no\n"
		"registration.",
	.opts = {{.name = "initiator",
		  .short_name = 'i',
		  .has_arg = true,
		  .arg = "NAME",
		  .help = "only this initiator's registrations"}},
	.min_pos = 1,
	.max_pos = 1,
	.run = resv_clear,
    },
    {0},
};
