/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_stats.c: utarget stats (RPC stats.get): every logical unit's
 * counters since it was created and its read/write latency percentiles,
 * rounded for people; --json gives the API's answer, exact, histograms
 * included. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* A duration in ns as people read it: 850ns, 12.5us, 3.2ms, 1.05s. */
static void out_ns(json_t *v, char *buf, size_t size)
{
	double ns;

	if (!json_is_integer(v)) {
		snprintf(buf, size, "-");
		return;
	}
	ns = (double)json_integer_value(v);
	if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.3gms", ns / 1e6);
	else
		snprintf(buf, size, "%.3gs", ns / 1e9);
}

static json_t *class_get(json_t *lu, const char *cls, const char *key)
{
	return json_object_get(
	    json_object_get(json_object_get(json_object_get(lu, "classes"), cls), "latency"), key);
}

static json_t *st_row(json_t *lu)
{
	json_t *row = json_deep_copy(lu);
	char rd[32], wr[32], rp[32], wp[32];

	if (!row)
		return NULL;
	out_bytes((uint64_t)json_integer_value(json_object_get(lu, "read_bytes")), rd, sizeof(rd));
	out_bytes((uint64_t)json_integer_value(json_object_get(lu, "write_bytes")), wr, sizeof(wr));
	/* no command of the class: no percentile */
	if (json_integer_value(class_get(lu, "read", "count")))
		out_ns(class_get(lu, "read", "p99_ns"), rp, sizeof(rp));
	else
		snprintf(rp, sizeof(rp), "-");
	if (json_integer_value(class_get(lu, "write", "count")))
		out_ns(class_get(lu, "write", "p99_ns"), wp, sizeof(wp));
	else
		snprintf(wp, sizeof(wp), "-");
	json_object_set_new(row, "read", json_string(rd));
	json_object_set_new(row, "written", json_string(wr));
	json_object_set_new(row, "read_p99", json_string(rp));
	json_object_set_new(row, "write_p99", json_string(wp));
	return row;
}

static int st_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"backstore", "commands", "read",	"written",
					   "errors",	"aborted",  "read_p99", "write_p99"};
	static const char *const heads[] = {"BACKSTORE", "COMMANDS", "READ",	 "WRITTEN",
					    "ERRORS",	 "ABORTED",  "READ P99", "WRITE P99"};
	json_t *p = json_object(), *res, *rows, *e;
	size_t i;
	int rc;

	(void)cmd;
	if (p && a->npos)
		json_object_set_new(p, "backstore", json_string(a->pos[0]));
	rc = cmd_read(c, "stats.get", p, &res);
	if (rc || !res)
		return rc;
	rows = json_array();
	json_array_foreach(json_object_get(res, "luns"), i, e)
	{
		json_t *r = st_row(e);

		if (r)
			json_array_append_new(rows, r);
	}
	out_table(c, rows, cols, heads, ARRAY_SIZE(cols));
	json_decref(rows);
	json_decref(res);
	return CLI_OK;
}

const struct cli_cmd cli_cmds_stats[] = {
    {
	.object = "",
	.verb = "stats",
	.usage = "[BACKSTORE]",
	.summary = "statistics of every logical unit: commands, bytes, errors, latency",
	.help = "Counters since the logical unit was created. READ and WRITTEN: data read and\n"
		"written (rounded; K, M, G: powers of 1024); READ P99 and WRITE P99: the\n"
		"latency (command setup to completion) 99 % of the reads or writes stayed\n"
		"under, from histograms with buckets at most 1/16 wide. --json: the exact\n"
		"counters and the histograms of the read, write and other commands.",
	.max_pos = 1,
	.read = true,
	.run = st_show,
    },
    {0},
};
