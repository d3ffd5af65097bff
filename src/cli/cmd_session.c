/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_session.c: utarget session list|close, connection close (RPC
 * session.*, connection.close). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* A session as a row of the list: its connections as CID:PEER. */
static json_t *ses_row(json_t *s)
{
	json_t *row = json_deep_copy(s), *peers = json_array(), *conn;
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
	return row;
}

static int ses_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"tsih", "type", "target", "tpgt", "initiator", "peers"};
	static const char *const heads[] = {"TSIH", "TYPE",	 "TARGET",
					    "TPGT", "INITIATOR", "CONNECTIONS"};
	json_t *p = json_object();

	if (p && a->npos)
		json_object_set_new(p, "target", json_string(a->pos[0]));
	return cmd_list(c, "session.list", p, ses_row, cols, heads, ARRAY_SIZE(cols));
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
	.max_pos = 1,
	.read = true,
	.run = ses_list,
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
