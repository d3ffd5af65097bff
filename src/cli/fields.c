/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fields.c: "FIELD=VALUE" command-line arguments -> the JSON parameters of
 * an RPC method. Field names are the config file's (docs/config.md); the
 * tables below give each known field its JSON type, so "serial=0042" stays
 * a string and "block_size=4096" becomes an integer. Fields the tables do
 * not know (those a newer daemon adds) are typed from the value: true,
 * false, null, an integer, else a string; "FIELD:=JSON" passes any JSON
 * value (lists, objects) as written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum cli_ftype { CLI_F_STR, CLI_F_BOOL, CLI_F_INT, CLI_F_SIZE, CLI_F_STRLIST };

struct cli_field {
	const char *name;
	enum cli_ftype type;
};

static const struct cli_field cli_f_backstore[] = {
    {.name = "name", .type = CLI_F_STR},       {.name = "type", .type = CLI_F_STR},
    {.name = "path", .type = CLI_F_STR},       {.name = "size", .type = CLI_F_SIZE},
    {.name = "create", .type = CLI_F_BOOL},    {.name = "read_only", .type = CLI_F_BOOL},
    {.name = "block_size", .type = CLI_F_INT}, {.name = "physical_block_size", .type = CLI_F_INT},
    {.name = "protection", .type = CLI_F_INT}, {.name = "thin", .type = CLI_F_BOOL},
    {.name = "removable", .type = CLI_F_BOOL}, {.name = "write_cache", .type = CLI_F_BOOL},
    {.name = "vendor", .type = CLI_F_STR},     {.name = "product", .type = CLI_F_STR},
    {.name = "revision", .type = CLI_F_STR},   {.name = "serial", .type = CLI_F_STR},
    {.name = "naa", .type = CLI_F_STR},	       {.name = "url", .type = CLI_F_STR},
    {.name = "handler", .type = CLI_F_STR},    {0},
};

static const struct cli_field cli_f_target[] = {
    {.name = "name", .type = CLI_F_STR},
    {.name = "alias", .type = CLI_F_STR},
    {.name = "demo_mode.enabled", .type = CLI_F_BOOL},
    {.name = "demo_mode.read_only", .type = CLI_F_BOOL},
    {.name = "demo_mode.target_reset", .type = CLI_F_BOOL},
    {.name = "require_header_digest", .type = CLI_F_BOOL},
    {.name = "require_data_digest", .type = CLI_F_BOOL},
    {.name = "async_events", .type = CLI_F_BOOL},
    {.name = "limits.max_sessions", .type = CLI_F_INT},
    {.name = "limits.max_connections", .type = CLI_F_INT},
    {.name = "limits.queue_depth", .type = CLI_F_INT},
    {.name = "limits.login_timeout", .type = CLI_F_INT},
    {.name = "limits.nop_in_interval", .type = CLI_F_INT},
    {.name = "limits.nop_in_timeout", .type = CLI_F_INT},
    {0},
};

static const struct cli_field cli_f_portal_group[] = {
    {.name = "tag", .type = CLI_F_INT},
    {.name = "portals", .type = CLI_F_STRLIST},
    {.name = "rel_port_id", .type = CLI_F_INT},
    {0},
};

static const struct cli_field cli_f_lun[] = {
    {.name = "lun", .type = CLI_F_INT},
    {.name = "backstore", .type = CLI_F_STR},
    {.name = "read_only", .type = CLI_F_BOOL},
    {0},
};

static const struct cli_field cli_f_acl[] = {
    {.name = "initiator", .type = CLI_F_STR},
    {.name = "addresses", .type = CLI_F_STRLIST},
    {.name = "target_reset", .type = CLI_F_BOOL},
    {.name = "require_header_digest", .type = CLI_F_BOOL},
    {.name = "require_data_digest", .type = CLI_F_BOOL},
    {0},
};

static const struct cli_field cli_f_alua_group[] = {
    {.name = "id", .type = CLI_F_INT},
    {.name = "name", .type = CLI_F_STR},
    {.name = "state", .type = CLI_F_STR},
    {.name = "preferred", .type = CLI_F_BOOL},
    {.name = "explicit", .type = CLI_F_BOOL},
    {.name = "transition_ms", .type = CLI_F_INT},
    {0},
};

static const struct cli_field cli_f_settings[] = {
    {.name = "log_level", .type = CLI_F_STR},
    {.name = "default_portals", .type = CLI_F_STRLIST},
    {.name = "iscsi.max_recv_data_segment_length", .type = CLI_F_INT},
    {.name = "iscsi.max_burst_length", .type = CLI_F_INT},
    {.name = "iscsi.first_burst_length", .type = CLI_F_INT},
    {.name = "iscsi.initial_r2t", .type = CLI_F_BOOL},
    {.name = "iscsi.immediate_data", .type = CLI_F_BOOL},
    {.name = "iscsi.max_outstanding_r2t", .type = CLI_F_INT},
    {.name = "iscsi.max_connections", .type = CLI_F_INT},
    {.name = "iscsi.header_digest", .type = CLI_F_BOOL},
    {.name = "iscsi.data_digest", .type = CLI_F_BOOL},
    {.name = "iscsi.default_time2wait", .type = CLI_F_INT},
    {.name = "iscsi.default_time2retain", .type = CLI_F_INT},
    {.name = "iscsi.nop_in_interval", .type = CLI_F_INT},
    {.name = "iscsi.nop_in_timeout", .type = CLI_F_INT},
    {.name = "iscsi.login_timeout", .type = CLI_F_INT},
    {.name = "iscsi.max_sessions", .type = CLI_F_INT},
    {.name = "iscsi.max_logins_in_progress", .type = CLI_F_INT},
    {.name = "iscsi.max_logins_per_address", .type = CLI_F_INT},
    {.name = "iscsi.max_discovery_sessions", .type = CLI_F_INT},
    {.name = "iscsi.max_discovery_sessions_per_address", .type = CLI_F_INT},
    {.name = "iscsi.queue_depth", .type = CLI_F_INT},
    {.name = "iscsi.max_buffer_memory_mib", .type = CLI_F_INT},
    {.name = "iscsi.max_session_data_mib", .type = CLI_F_INT},
    {.name = "iscsi.max_connection_data_mib", .type = CLI_F_INT},
    {.name = "iscsi.session_reserve_kib", .type = CLI_F_INT},
    {.name = "iscsi.max_session_send_queue_mib", .type = CLI_F_INT},
    {.name = "iscsi.max_connection_send_queue_mib", .type = CLI_F_INT},
    {.name = "iscsi.data_out_timeout", .type = CLI_F_INT},
    {.name = "iscsi.error_recovery_level", .type = CLI_F_INT},
    {.name = "iscsi.busy_poll_us", .type = CLI_F_INT},
    {.name = "iscsi.socket_uring", .type = CLI_F_BOOL},
    {.name = "iscsi.spread_connections", .type = CLI_F_BOOL},
    {.name = "discovery.filter", .type = CLI_F_STR},
    {0},
};

static const struct cli_field *const cli_kind_table[] = {
    [CLI_K_SETTINGS] = cli_f_settings,
    [CLI_K_BACKSTORE] = cli_f_backstore,
    [CLI_K_TARGET] = cli_f_target,
    [CLI_K_PORTAL_GROUP] = cli_f_portal_group,
    [CLI_K_LUN] = cli_f_lun,
    [CLI_K_ACL] = cli_f_acl,
    [CLI_K_ALUA_GROUP] = cli_f_alua_group,
    [CLI_K_ANY] = NULL,
};

const char *const *cli_kind_fields(enum cli_kind kind)
{
	/* built once per kind: the names of the table rows */
	static const char *names[CLI_K_ANY + 1][32];
	const struct cli_field *t = cli_kind_table[kind];

	if (!t)
		return names[CLI_K_ANY];
	if (!names[kind][0])
		for (size_t i = 0; t[i].name && i < 31; i++)
			names[kind][i] = t[i].name;
	return names[kind];
}

bool cli_is_field(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return false;
	/* a field name: letters, digits, '_', '.', then '=' or ':=' */
	for (const char *p = arg; p < eq; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
			  (*p == ':' && p + 1 == eq);
		if (!ok)
			return false;
	}
	return true;
}

static const struct cli_field *cli_field_find(enum cli_kind kind, const char *name)
{
	const struct cli_field *t = cli_kind_table[kind];

	for (size_t i = 0; t && t[i].name; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static bool cli_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcmp(v, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcmp(v, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool cli_parse_int(const char *v, json_int_t *out)
{
	char *end;
	long long n;

	if (!v[0] || (v[0] != '-' && (v[0] < '0' || v[0] > '9')))
		return false;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end)
		return false;
	*out = n;
	return true;
}

/* The value of a field as JSON, by the field's type (or guessed). */
static json_t *cli_field_value(const struct cli_field *f, const char *v, char *err, size_t errsize)
{
	json_int_t n;
	bool b;

	if (strcmp(v, "null") == 0)
		return json_null(); /* "restore the default" in set methods */
	if (!f) {
		if (cli_parse_bool(v, &b) && (strcmp(v, "1") != 0 && strcmp(v, "0") != 0))
			return json_boolean(b);
		if (cli_parse_int(v, &n))
			return json_integer(n);
		return json_string(v);
	}
	switch (f->type) {
	case CLI_F_STR:
		return json_string(v);
	case CLI_F_BOOL:
		if (cli_parse_bool(v, &b))
			return json_boolean(b);
		snprintf(err, errsize, "%s: expected true or false, not \"%s\"", f->name, v);
		return NULL;
	case CLI_F_INT:
		if (cli_parse_int(v, &n))
			return json_integer(n);
		snprintf(err, errsize, "%s: expected an integer, not \"%s\"", f->name, v);
		return NULL;
	case CLI_F_SIZE:
		/* the daemon reads "10G" as the config file does */
		if (cli_parse_int(v, &n))
			return json_integer(n);
		return json_string(v);
	case CLI_F_STRLIST: {
		json_t *arr = json_array();
		const char *p = v;
		while (arr && *p) {
			size_t k = strcspn(p, ",");
			if (k)
				json_array_append_new(arr, json_stringn(p, k));
			p += k;
			if (*p == ',')
				p++;
		}
		return arr;
	}
	}
	return NULL;
}

int cli_json_merge(json_t *dst, json_t *src)
{
	const char *key;
	json_t *v;

	json_object_foreach(src, key, v)
	{
		json_t *d = json_object_get(dst, key);
		if (json_is_object(d) && json_is_object(v)) {
			if (cli_json_merge(d, v))
				return -ENOMEM;
		} else if (json_object_set(dst, key, v)) {
			return -ENOMEM;
		}
	}
	return 0;
}

int cli_field_set(json_t *obj, enum cli_kind kind, const char *arg, char *err, size_t errsize)
{
	const char *eq = strchr(arg, '=');
	bool raw = eq > arg && eq[-1] == ':';
	char name[256];
	size_t nlen = (size_t)(eq - arg) - (raw ? 1 : 0);
	json_t *v, *parent = obj;
	char *dot, *seg;

	if (!cli_is_field(arg) || nlen == 0 || nlen >= sizeof(name)) {
		snprintf(err, errsize, "\"%s\": not FIELD=VALUE", arg);
		return -EINVAL;
	}
	memcpy(name, arg, nlen);
	name[nlen] = '\0';
	if (raw) {
		json_error_t jerr;
		v = json_loads(eq + 1, JSON_DECODE_ANY, &jerr);
		if (!v) {
			snprintf(err, errsize, "%s: not JSON: %s", name, jerr.text);
			return -EINVAL;
		}
	} else {
		v = cli_field_value(cli_field_find(kind, name), eq + 1, err, errsize);
		if (!v)
			return -EINVAL;
	}
	/* "a.b.c": objects a and a.b, member c */
	seg = name;
	while ((dot = strchr(seg, '.'))) {
		json_t *child;
		*dot = '\0';
		if (!seg[0]) {
			json_decref(v);
			snprintf(err, errsize, "\"%s\": empty field name", arg);
			return -EINVAL;
		}
		child = json_object_get(parent, seg);
		if (!json_is_object(child)) {
			child = json_object();
			if (!child || json_object_set_new(parent, seg, child)) {
				json_decref(v);
				return -ENOMEM;
			}
		}
		parent = child;
		seg = dot + 1;
	}
	if (!seg[0]) {
		json_decref(v);
		snprintf(err, errsize, "\"%s\": empty field name", arg);
		return -EINVAL;
	}
	return json_object_set_new(parent, seg, v) ? -ENOMEM : 0;
}
