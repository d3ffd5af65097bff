/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_isns.c: `utarget isns set|off|show`: the iSNS server the daemon
 * registers with (RPC isns.set / isns.get; live and persisted). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "config/model.h"

enum { O_ENTITY, O_ESI_PORT, O_AC, O_NO_AC };

static int is_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	char host[CFG_ISNS_SERVER_MAX + 1];
	json_t *p = json_object();
	uint16_t port;

	if (!p)
		return CLI_EREJECTED;
	if (cfg_isns_server_parse(a->pos[0], host, sizeof(host), &port)) {
		json_decref(p);
		cli_errorf(c, "bad server \"%s\" (HOST, HOST:PORT, [IPv6] or [IPv6]:PORT)",
			   a->pos[0]);
		return CLI_EUSAGE;
	}
	json_object_set_new(p, "server", json_string(a->pos[0]));
	json_object_set_new(p, "enabled", json_true());
	if (a->set[O_ENTITY])
		json_object_set_new(p, "entity", json_string(a->val[O_ENTITY][0]));
	if (a->set[O_ESI_PORT]) {
		json_int_t n;
		int rc = cmd_uint(c, "--esi-port", a->val[O_ESI_PORT][0], 65535, &n);

		if (rc) {
			json_decref(p);
			return rc;
		}
		json_object_set_new(p, "esi_port", json_integer(n));
	}
	if (a->set[O_AC] && a->set[O_NO_AC]) {
		json_decref(p);
		cli_errorf(c, "--access-control and --no-access-control exclude each other");
		return CLI_EUSAGE;
	}
	if (a->set[O_AC] || a->set[O_NO_AC])
		json_object_set_new(p, "access_control", json_boolean(a->set[O_AC]));
	return cmd_change(c, "isns.set", p, "iSNS server %s set", a->pos[0]);
}

static int is_off(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_change(c, "isns.set", json_pack("{s:b}", "enabled", false),
			  "iSNS off (the entity, if registered, was deregistered)");
}

static int is_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *r = NULL, *st;
	int rc = cmd_read(c, "isns.get", json_object(), &r);

	if (rc || !r)
		return rc;
	st = json_object_get(r, "status");
	if (!json_is_true(json_object_get(st, "enabled"))) {
		fprintf(c->out, "iSNS: off\n");
	} else {
		json_t *dds = json_object_get(st, "discovery_domains"), *d;
		json_int_t last = json_integer_value(json_object_get(st, "last_registration"));
		const char *err = json_string_value(json_object_get(st, "last_error"));
		size_t i;

		fprintf(c->out, "server: %s\n", json_string_value(json_object_get(st, "server")));
		fprintf(c->out, "entity: %s\n", json_string_value(json_object_get(st, "entity")));
		fprintf(c->out, "esi_port: %lld\n",
			(long long)json_integer_value(json_object_get(st, "esi_port")));
		fprintf(c->out, "connected: %s\n",
			json_is_true(json_object_get(st, "connected")) ? "yes" : "no");
		fprintf(c->out, "registered: %s (%lld targets, %lld portals, %lld portal groups)\n",
			json_is_true(json_object_get(st, "registered")) ? "yes" : "no",
			(long long)json_integer_value(json_object_get(st, "targets")),
			(long long)json_integer_value(json_object_get(st, "portals")),
			(long long)json_integer_value(json_object_get(st, "portal_groups")));
		if (last) {
			char when[64];
			time_t t = (time_t)last;
			struct tm tm;

			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
			fprintf(c->out, "last_registration: %s\n", when);
		} else {
			fprintf(c->out, "last_registration: never\n");
		}
		fprintf(c->out, "access_control: %s\n",
			json_is_true(json_object_get(st, "access_control")) ? "on" : "off");
		json_array_foreach(dds, i, d)
		    fprintf(c->out, "discovery_domain: %lld %s (%lld members)\n",
			    (long long)json_integer_value(json_object_get(d, "id")),
			    json_string_value(json_object_get(d, "name")),
			    (long long)json_integer_value(json_object_get(d, "members")));
		fprintf(c->out, "esi_received: %lld, scn_received: %lld\n",
			(long long)json_integer_value(json_object_get(st, "esi_received")),
			(long long)json_integer_value(json_object_get(st, "scn_received")));
		if (err && *err)
			fprintf(c->out, "last_error: %s\n", err);
	}
	json_decref(r);
	return CLI_OK;
}

const struct cli_cmd cli_cmds_isns[] = {
    {
	.object = "isns",
	.verb = "set",
	.usage = "HOST[:PORT]",
	.summary = "register with an iSNS server (RFC 4171; port 3205 by default)",
	.help = "Applied live and persisted (the config's \"isns\" object). The entity, its\n"
		"portals, targets and portal groups are registered at once and on every\n"
		"change; with --access-control a target is seen and reached only by the\n"
		"initiators that share a discovery domain with it.",
	.opts = {{.name = "entity",
		  .has_arg = true,
		  .arg = "EID",
		  .help = "the Entity Identifier (default: the host name; \"\" resets)"},
		 {.name = "esi-port",
		  .has_arg = true,
		  .arg = "PORT",
		  .help = "TCP port for the server's ESI and SCN messages (0: any)"},
		 {.name = "access-control",
		  .help = "discovery domains decide what initiators see and reach"},
		 {.name = "no-access-control", .help = "discovery domains decide nothing"}},
	.min_pos = 1,
	.max_pos = 1,
	.run = is_set,
    },
    {
	.object = "isns",
	.verb = "off",
	.usage = "",
	.summary = "deregister and stop using iSNS (the server setting is kept)",
	.run = is_off,
    },
    {
	.object = "isns",
	.verb = "show",
	.usage = "",
	.summary = "the iSNS server, connection, registration and discovery domains",
	.read = true,
	.run = is_show,
    },
    {0},
};
