/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_stats.c: utarget stats (RPC stats.get): every logical unit's
 * counters since it was created and its read/write latency percentiles,
 * rounded for people, then the rates over --interval seconds (two answers,
 * stats_rates.c); without a back-store, the sessions and the targets too.
 * --json gives the API's second answer, exact, histograms included, with
 * the rates as its member "rates". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/stats_rates.h"

/* A duration in ns as people read it: 850ns, 12.5us, 3.2ms, 1.05s (cli.h). */
void stats_out_ns(json_t *v, char *buf, size_t size)
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
		stats_out_ns(class_get(lu, "read", "p99_ns"), rp, sizeof(rp));
	else
		snprintf(rp, sizeof(rp), "-");
	if (json_integer_value(class_get(lu, "write", "count")))
		stats_out_ns(class_get(lu, "write", "p99_ns"), wp, sizeof(wp));
	else
		snprintf(wp, sizeof(wp), "-");
	json_object_set_new(row, "read", json_string(rd));
	json_object_set_new(row, "written", json_string(wr));
	json_object_set_new(row, "read_p99", json_string(rp));
	json_object_set_new(row, "write_p99", json_string(wp));
	return row;
}

/* The rates' row of the LU (or session) named like row, merged into row. */
static void st_add_rates(json_t *row, json_t *rates)
{
	char iops[32], mbs[32];

	if (!rates) {
		json_object_set_new(row, "iops_text", json_string("-"));
		json_object_set_new(row, "mbs_text", json_string("-"));
		return;
	}
	rates_fmt(json_real_value(json_object_get(rates, "iops")), iops, sizeof(iops));
	rates_fmt(json_real_value(json_object_get(rates, "read_mb_s")) +
		      json_real_value(json_object_get(rates, "write_mb_s")),
		  mbs, sizeof(mbs));
	json_object_set_new(row, "iops_text", json_string(iops));
	json_object_set_new(row, "mbs_text", json_string(mbs));
}

int stats_sample(struct cli *c, json_t *params, double interval_s, json_t **snap, json_t **rates)
{
	json_t *a = NULL;
	int rc;

	*snap = *rates = NULL;
	if (interval_s > 0) {
		struct timespec ts = {.tv_sec = (time_t)interval_s,
				      .tv_nsec =
					  (long)((interval_s - (double)(time_t)interval_s) * 1e9)};

		rc = cli_call(c, "stats.get", json_incref(params), &a);
		if (rc) {
			json_decref(params);
			return rc;
		}
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	rc = cli_call(c, "stats.get", params, snap);
	if (!rc && a)
		*rates = rates_json(a, *snap);
	json_decref(a);
	return rc;
}

int stats_interval(struct cli *c, const char *text, double *out)
{
	char *end;
	double v;

	*out = 1;
	if (!text)
		return CLI_OK;
	v = strtod(text, &end);
	if (end == text || *end || v < 0 || v > 3600) {
		cli_errorf(c, "--interval: \"%s\" is not a number of seconds from 0 to 3600", text);
		return CLI_EUSAGE;
	}
	*out = v;
	return CLI_OK;
}

static void st_sessions(struct cli *c, json_t *res, json_t *rates)
{
	static const char *const cols[] = {"tsih",   "initiator", "target",  "commands",
					   "errors", "iops_text", "mbs_text"};
	static const char *const heads[] = {"TSIH",   "INITIATOR", "TARGET", "COMMANDS",
					    "ERRORS", "IOPS",	   "MB/S"};
	json_t *rows = json_array(), *e;
	size_t i;

	json_array_foreach(json_object_get(res, "sessions"), i, e)
	{
		json_t *row;

		if (json_is_true(json_object_get(e, "discovery")))
			continue;
		row = json_pack("{s:O,s:O,s:O,s:O,s:I}", "tsih", json_object_get(e, "tsih"),
				"initiator", json_object_get(e, "initiator"), "target",
				json_object_get(e, "target"), "commands",
				json_object_get(e, "commands"), "errors",
				(json_int_t)rates_session_errors(e));
		if (!row)
			continue;
		st_add_rates(row, rates_find(json_object_get(rates, "sessions"), "tsih",
					     json_object_get(e, "tsih")));
		json_array_append_new(rows, row);
	}
	if (json_array_size(rows)) {
		fputc('\n', c->out);
		out_table(c, rows, cols, heads, ARRAY_SIZE(cols));
	}
	json_decref(rows);
}

static void st_targets(struct cli *c, json_t *res)
{
	static const char *const cols[] = {"name", "sessions", "login.accepts", "failed",
					   "logout.normal"};
	static const char *const heads[] = {"TARGET", "SESSIONS", "LOGINS", "LOGIN FAILURES",
					    "LOGOUTS"};
	json_t *rows = json_array(), *e;
	size_t i;

	json_array_foreach(json_object_get(res, "targets"), i, e)
	{
		json_t *row = json_deep_copy(e);

		if (!row)
			continue;
		json_object_set_new(
		    row, "failed",
		    json_integer((json_int_t)rates_login_failures(json_object_get(e, "login"))));
		json_array_append_new(rows, row);
	}
	if (json_array_size(rows)) {
		fputc('\n', c->out);
		out_table(c, rows, cols, heads, ARRAY_SIZE(cols));
	}
	json_decref(rows);
}

static int st_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"backstore", "commands",  "read",	 "written",
					   "errors",	"aborted",   "read_p99", "write_p99",
					   "in_flight", "iops_text", "mbs_text"};
	static const char *const heads[] = {"BACKSTORE", "COMMANDS", "READ",	 "WRITTEN",
					    "ERRORS",	 "ABORTED",  "READ P99", "WRITE P99",
					    "IN FLIGHT", "IOPS",     "MB/S"};
	json_t *p = json_object(), *res, *rates, *rows, *e;
	double interval;
	size_t i;
	int rc;

	(void)cmd;
	rc = stats_interval(c, cli_opt(a, 0), &interval);
	if (rc) {
		json_decref(p);
		return rc;
	}
	if (p && a->npos)
		json_object_set_new(p, "backstore", json_string(a->pos[0]));
	rc = stats_sample(c, p, interval, &res, &rates);
	if (rc)
		return rc;
	if (c->json) {
		if (rates)
			json_object_set(res, "rates", rates);
		out_json(c, res);
		json_decref(rates);
		json_decref(res);
		return CLI_OK;
	}
	rows = json_array();
	json_array_foreach(json_object_get(res, "luns"), i, e)
	{
		json_t *r = st_row(e);

		if (!r)
			continue;
		if (interval > 0)
			st_add_rates(r, rates_find(json_object_get(rates, "luns"), "backstore",
						   json_object_get(e, "backstore")));
		json_array_append_new(rows, r);
	}
	out_table(c, rows, cols, heads, ARRAY_SIZE(cols) - (interval > 0 ? 0 : 2));
	json_decref(rows);
	if (!a->npos) {
		st_sessions(c, res, rates);
		st_targets(c, res);
	}
	json_decref(rates);
	json_decref(res);
	return CLI_OK;
}

const struct cli_cmd cli_cmds_stats[] = {
    {
	.object = "",
	.verb = "stats",
	.usage = "[BACKSTORE]",
	.summary = "statistics: logical units, sessions, targets; counters and rates",
	.help = "Counters since the logical unit was created. READ and WRITTEN: data read and\n"
		"written (rounded; K, M, G: powers of 1024); READ P99 and WRITE P99: the\n"
		"latency (command setup to completion) 99 % of the reads or writes stayed\n"
		"under, from histograms with buckets at most 1/16 wide; IN FLIGHT: commands\n"
		"not yet completed. IOPS and MB/S (10^6 bytes, read and written): the rates\n"
		"over --interval seconds (default 1; 0: no rates, no wait). Without\n"
		"BACKSTORE, the sessions (their commands, errors: digest, format, timeouts,\n"
		"and rates) and the targets (logins accepted and refused, logouts) follow.\n"
		"--json: the exact answer of stats.get (histograms included) with \"rates\":\n"
		"per second over the interval, p99 of the interval (docs/rpc.md).",
	.opts = {{.name = "interval",
		  .has_arg = true,
		  .arg = "SECONDS",
		  .help = "measure the rates over SECONDS (default 1; 0: none)"}},
	.max_pos = 1,
	.read = true,
	.run = st_show,
    },
    {0},
};
