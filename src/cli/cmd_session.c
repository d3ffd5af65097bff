/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_session.c: utarget session list|show|close, connection close (RPC
 * session.*, connection.close). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* A session as a row of the list: its connections as CID:PEER, how long
 * it has been logged in, its counters rounded for people (session show
 * and --json give everything, exact). */
static json_t *ses_row(json_t *s)
{
	json_t *row = json_deep_copy(s), *peers = json_array(), *conn;
	json_t *stats = json_object_get(s, "stats");
	char age[32], rd[32], wr[32];
	size_t k;

	json_array_foreach(json_object_get(s, "connections"), k, conn)
	{
		char buf[160];
		snprintf(buf, sizeof(buf), "%lld:%s",
			 (long long)json_integer_value(json_object_get(conn, "cid")),
			 json_string_value(json_object_get(conn, "peer"))
			     ? json_string_value(json_object_get(conn, "peer"))
			     : "?");
		json_array_append_new(peers, json_string(buf));
	}
	if (!row) {
		json_decref(peers);
		return NULL;
	}
	json_object_set_new(row, "peers", peers);
	out_age(json_string_value(json_object_get(s, "login_time")), time(NULL), age, sizeof(age));
	json_object_set_new(row, "age", json_string(age));
	snprintf(rd, sizeof(rd), "-");
	snprintf(wr, sizeof(wr), "-");
	if (json_is_integer(json_object_get(stats, "read_bytes")))
		out_bytes((uint64_t)json_integer_value(json_object_get(stats, "read_bytes")), rd,
			  sizeof(rd));
	if (json_is_integer(json_object_get(stats, "write_bytes")))
		out_bytes((uint64_t)json_integer_value(json_object_get(stats, "write_bytes")), wr,
			  sizeof(wr));
	json_object_set_new(row, "read", json_string(rd));
	json_object_set_new(row, "written", json_string(wr));
	return row;
}

static int ses_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"tsih",  "type", "target",	      "tpgt", "initiator",
					   "peers", "age",  "stats.commands", "read", "written"};
	static const char *const heads[] = {"TSIH",	   "TYPE", "TARGET",   "TPGT", "INITIATOR",
					    "CONNECTIONS", "AGE",  "COMMANDS", "READ", "WRITTEN"};
	json_t *p = json_object();

	if (p && a->npos)
		json_object_set_new(p, "target", json_string(a->pos[0]));
	return cmd_list(c, "session.list", p, ses_row, cols, heads, ARRAY_SIZE(cols));
}

/* One session: everything session.list says of it, as "key: value"
 * lines (what it negotiated, per connection too; when it logged in; its
 * counters, exact). */
static int ses_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih;
	json_t *res, *e, *found = NULL;
	size_t i;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc)
		return rc;
	rc = cli_call(c, "session.list", json_object(), &res);
	if (rc)
		return rc;
	json_array_foreach(res, i, e)
	{
		if (json_integer_value(json_object_get(e, "tsih")) == tsih)
			found = e;
	}
	if (!found) {
		json_decref(res);
		cli_errorf(c, "no session with TSIH %lld", (long long)tsih);
		return CLI_ENOTFOUND;
	}
	if (c->json)
		out_json(c, found);
	else
		out_object(c, found, 0);
	json_decref(res);
	return CLI_OK;
}

static int ses_close(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc)
		return rc;
	return cmd_change(c, "session.close", json_pack("{s:I}", "tsih", tsih),
			  "session %lld closed", (long long)tsih);
}

static int conn_close(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih, cid;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc == 0)
		rc = cmd_uint(c, "CID", a->pos[1], 65535, &cid);
	if (rc)
		return rc;
	return cmd_change(c, "connection.close", json_pack("{s:I, s:I}", "tsih", tsih, "cid", cid),
			  "connection %lld of session %lld closed", (long long)cid,
			  (long long)tsih);
}

const struct cli_cmd cli_cmds_session[] = {
    {
	.object = "session",
	.verb = "list",
	.alias = "ls",
	.usage = "[TARGET]",
	.summary = "list sessions (normal and discovery) and their connections",
	.help = "AGE: time since the login; COMMANDS: SCSI commands completed; READ and\n"
		"WRITTEN: data read and written by the initiator (rounded; K, M, G: powers\n"
		"of 1024). \"session show TSIH\" or --json: what each session negotiated\n"
		"(digests, MaxRecvDataSegmentLength, burst lengths, ErrorRecoveryLevel...),\n"
		"its login time (ISO 8601, UTC) and the exact counters.",
	.max_pos = 1,
	.read = true,
	.run = ses_list,
    },
    {
	.object = "session",
	.verb = "show",
	.alias = "get",
	.usage = "TSIH",
	.summary = "one session: negotiated parameters, login time, counters, connections",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = ses_show,
    },
    {
	.object = "session",
	.verb = "close",
	.alias = "rm",
	.usage = "TSIH",
	.summary = "end a session (its connections are dropped)",
	.min_pos = 1,
	.max_pos = 1,
	.run = ses_close,
    },
    {
	.object = "connection",
	.verb = "close",
	.alias = "rm",
	.usage = "TSIH CID",
	.summary = "drop one connection of a session",
	.min_pos = 2,
	.max_pos = 2,
	.run = conn_close,
    },
    {0},
};
