/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns.c: the "isns" object of the config (docs/config.md "iSNS"):
 *   {"server": "host[:port]", "entity": "...", "esi_port": N,
 *    "access_control": bool, "enabled": bool}
 * server is required unless enabled is false; port 3205 by default;
 * entity: 1..255 bytes (default: the host name); esi_port 0..65535 (0 or
 * absent: ephemeral). Dumped back as written (defaults stay absent, but
 * "enabled": false and "access_control": true). apply.c hands it to the
 * fabric (cfg_apply_isns()). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/model.h"
#include "config/pctx.h"

void cfg_isns_free(struct cfg_isns *i)
{
	if (!i)
		return;
	free(i->server);
	free(i->entity);
	free(i);
}

int cfg_isns_server_parse(const char *s, char *host, size_t size, uint16_t *port)
{
	const char *end, *colon;
	size_t n;

	*port = 0;
	if (!s || !*s)
		return -EINVAL;
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end || end == s + 1)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		s++;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* a bare IPv6 address */
		n = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (!n || n >= size)
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = 0;
	if (strpbrk(host, " \t/[]"))
		return -EINVAL;
	if (colon) {
		char *e;
		unsigned long p = strtoul(colon + 1, &e, 10);

		if (!colon[1] || *e || p == 0 || p > 65535)
			return -EINVAL;
		*port = (uint16_t)p;
	}
	return 0;
}

int cfg_isns_parse_root(json_t *root, struct cfg *c, struct cfg_err *err)
{
	static const char *const fields[] = {"server",	       "entity",  "esi_port",
					     "access_control", "enabled", NULL};
	struct cfg_pctx x = {.err = err};
	json_t *o = json_object_get(root, "isns");
	struct cfg_isns *i;
	uint64_t port = 0;
	int rc;

	if (!o)
		return 0;
	cfg_push_key(&x, "isns");
	if (!json_is_object(o))
		return cfg_perr(&x, "expected an object, found %s", cfg_type_name(o));
	rc = cfg_check_keys(&x, o, fields);
	if (rc)
		return rc;
	i = c->isns = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->enabled = true;
	if ((rc = cfg_get_bool(&x, o, "enabled", &i->enabled)) ||
	    (rc = cfg_get_bool(&x, o, "access_control", &i->access_control)) ||
	    (rc = cfg_get_str(&x, o, "server", i->enabled, CFG_ISNS_SERVER_MAX, &i->server)) ||
	    (rc = cfg_get_str(&x, o, "entity", false, 255, &i->entity)) ||
	    (rc = cfg_get_uint(&x, o, "esi_port", false, 0, 65535, &port, &i->has_esi_port)))
		return rc;
	i->esi_port = (uint16_t)port;
	if (i->server) {
		char host[CFG_ISNS_SERVER_MAX + 1];
		uint16_t p;

		if (cfg_isns_server_parse(i->server, host, sizeof(host), &p)) {
			cfg_push_key(&x, "server");
			return cfg_perr(&x,
					"bad server \"%.64s\" (host, host:port, [IPv6] or "
					"[IPv6]:port)",
					i->server);
		}
	}
	return 0;
}

int cfg_isns_dump_root(json_t *root, const struct cfg *c)
{
	const struct cfg_isns *i = c->isns;
	json_t *o;
	int bad = 0;

	if (!i)
		return 0;
	o = json_object();
	if (!o)
		return -1;
	if (i->server)
		bad |= json_object_set_new(o, "server", json_string(i->server));
	if (i->entity)
		bad |= json_object_set_new(o, "entity", json_string(i->entity));
	if (i->has_esi_port)
		bad |= json_object_set_new(o, "esi_port", json_integer(i->esi_port));
	if (i->access_control)
		bad |= json_object_set_new(o, "access_control", json_true());
	if (!i->enabled)
		bad |= json_object_set_new(o, "enabled", json_false());
	bad |= json_object_set_new(root, "isns", o);
	return bad ? -1 : 0;
}
