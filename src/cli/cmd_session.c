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

/* How to end it (options 0..3 of both close commands): --drop, --announce,
 * --wait S, --within S into the parameters p. */
static int close_how(struct cli *c, const struct cli_args *a, json_t *p, char *how, size_t size)
{
	json_int_t v;
	int rc;

	if (a->set[0] && a->set[1]) {
		cli_errorf(c, "--drop or --announce, not both");
		return CLI_EUSAGE;
	}
	if (cli_opt(a, 2) && !a->set[1]) {
		cli_errorf(c, "--wait goes with --announce (Time2Wait of AsyncEvent 2/3)");
		return CLI_EUSAGE;
	}
	if (cli_opt(a, 3) && (a->set[0] || a->set[1])) {
		cli_errorf(c, "--within goes with the logout request (the default)");
		return CLI_EUSAGE;
	}
	if (a->set[0] || a->set[1]) /* else the daemon's default: a logout request */
		json_object_set_new(p, "mode", json_string(a->set[0] ? "drop" : "announce"));
	if (cli_opt(a, 2)) {
		rc = cmd_uint(c, "--wait", cli_opt(a, 2), 3600, &v);
		if (rc)
			return rc;
		json_object_set_new(p, "wait", json_integer(v));
	}
	if (cli_opt(a, 3)) {
		rc = cmd_uint(c, "--within", cli_opt(a, 3), 3600, &v);
		if (rc)
			return rc;
		json_object_set_new(p, "timeout", json_integer(v));
	}
	snprintf(how, size, "%s",
		 a->set[0]   ? "dropped"
		 : a->set[1] ? "told it will be dropped (AsyncEvent 3/2), then dropped"
			     : "asked to log out (AsyncEvent 1)");
	return CLI_OK;
}

static int ses_close(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih;
	char how[96];
	json_t *p;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc)
		return rc;
	p = json_pack("{s:I}", "tsih", tsih);
	rc = p ? close_how(c, a, p, how, sizeof(how)) : CLI_EINTERNAL;
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "session.close", p, "session %lld %s", (long long)tsih, how);
}

static int conn_close(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih, cid;
	char how[96];
	json_t *p;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc == 0)
		rc = cmd_uint(c, "CID", a->pos[1], 65535, &cid);
	if (rc)
		return rc;
	p = json_pack("{s:I, s:I}", "tsih", tsih, "cid", cid);
	rc = p ? close_how(c, a, p, how, sizeof(how)) : CLI_EINTERNAL;
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "connection.close", p, "connection %lld of session %lld %s",
			  (long long)cid, (long long)tsih, how);
}

static int ses_renegotiate(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_int_t tsih, cid = -1;
	int rc = cmd_uint(c, "TSIH", a->pos[0], 65535, &tsih);

	if (rc == 0 && a->npos > 1)
		rc = cmd_uint(c, "CID", a->pos[1], 65535, &cid);
	if (rc)
		return rc;
	return cmd_change(c, "session.renegotiate",
			  cid < 0 ? json_pack("{s:I}", "tsih", tsih)
				  : json_pack("{s:I, s:I}", "tsih", tsih, "cid", cid),
			  "session %lld asked to renegotiate its parameters (AsyncEvent 4)",
			  (long long)tsih);
}

/* clang-format off */
#define CLOSE_OPTS                                                                          \
	{                                                                                   \
		{.name = "drop", .help = "drop at once (the initiator sees the transport go)"},   \
		{.name = "announce",                                                        \
		 .help = "tell the initiator first (AsyncEvent 3, or 2 for one connection), then drop"}, \
		{.name = "wait", .has_arg = true, .arg = "S",                               \
		 .help = "with --announce: Time2Wait, the seconds before it may reconnect (default 2)"}, \
		{.name = "within", .has_arg = true, .arg = "S",                             \
		 .help = "the logout request's time to log out, else dropped (default 10)"}, \
	}
/* clang-format on */

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
	.summary = "end a session: ask it to log out (default), --announce or --drop",
	.help = "By default the target asks the initiator to log out (RFC 7143 AsyncEvent 1)\n"
		"within --within seconds (default 10) and drops it if it has not by then:\n"
		"the way to empty a target before maintenance. --announce tells the\n"
		"initiator the target drops the session (AsyncEvent 3, Time2Wait --wait)\n"
		"and drops it once told.",
	.opts = CLOSE_OPTS,
	.min_pos = 1,
	.max_pos = 1,
	.run = ses_close,
    },
    {
	.object = "session",
	.verb = "renegotiate",
	.usage = "TSIH [CID]",
	.summary = "ask a session to renegotiate its parameters (AsyncEvent 4)",
	.help = "The initiator must send a Text Request on the connection (RFC 7143 11.9.1);\n"
		"utargetd logs when it does.",
	.min_pos = 1,
	.max_pos = 2,
	.run = ses_renegotiate,
    },
    {
	.object = "connection",
	.verb = "close",
	.alias = "rm",
	.usage = "TSIH CID",
	.summary = "end one connection of a session, as session close",
	.opts = CLOSE_OPTS,
	.min_pos = 2,
	.max_pos = 2,
	.run = conn_close,
    },
    {0},
};
