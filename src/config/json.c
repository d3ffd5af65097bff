/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c: the config file <-> the model tree (model.h), with jansson.
 *
 * Parsing is strict: every object accepts a fixed set of fields (an unknown
 * field is an error, so a typo is never silently ignored), every field has
 * one JSON type, integers are range-checked, duplicate keys are rejected.
 * Errors name the field by its JSON path and carry its line
 * (cfg_locate_line()). Cross-field rules live in validate.c.
 *
 * Dumping writes the same fields back (sorted, indent 2), omitting optional
 * ones that were absent (identity strings, iSCSI settings left at their
 * defaults), so parse(dump(tree)) == tree.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/fault.h"
#include "config/model.h"
#include "config/pctx.h"
#include "lib/compiler.h"
#include "lib/log.h"

/* ---- the "iscsi" section: one row per struct cfg_iscsi_settings field ---- */
enum cfg_field_kind { CFG_F_BOOL, CFG_F_U16, CFG_F_U32 };

struct cfg_iscsi_field {
	const char *name;
	size_t off;
	enum cfg_field_kind kind;
	uint32_t min, max;
};

#define ISF(name_, member_, kind_, min_, max_)                                                     \
	{                                                                                          \
		.name = (name_), .off = offsetof(struct cfg_iscsi_settings, member_),              \
		.kind = (kind_), .min = (min_), .max = (max_)                                      \
	}

/* Ranges: RFC 7143 section 13 for the negotiated keys, narrowed to what the
 * fabric implements (a value it would clamp is refused here instead):
 * MaxOutstandingR2T up to the R2Ts a task tracks (16), MaxConnections 1 (no
 * MC/S yet), queue_depth up to the CmdSN window bound (1024). Our own bounds
 * for the rest (docs/config.md). The index of a row is its bit in
 * iscsi_set. */
static const struct cfg_iscsi_field cfg_iscsi_fields[] = {
    ISF("max_recv_data_segment_length", max_recv_data_segment_length, CFG_F_U32, 512,
	16777215),							     /* 13.12 */
    ISF("max_burst_length", max_burst_length, CFG_F_U32, 512, 16777215),     /* 13.13 */
    ISF("first_burst_length", first_burst_length, CFG_F_U32, 512, 16777215), /* 13.14 */
    ISF("initial_r2t", initial_r2t, CFG_F_BOOL, 0, 1),			     /* 13.10 */
    ISF("immediate_data", immediate_data, CFG_F_BOOL, 0, 1),		     /* 13.11 */
    ISF("max_outstanding_r2t", max_outstanding_r2t, CFG_F_U16, 1, 16),	     /* 13.17 */
    ISF("max_connections", max_connections, CFG_F_U16, 1, 16),		     /* 13.2 */
    ISF("header_digest", header_digest, CFG_F_BOOL, 0, 1),		     /* 13.1 */
    ISF("data_digest", data_digest, CFG_F_BOOL, 0, 1),
    ISF("default_time2wait", default_time2wait, CFG_F_U32, 0, 3600),	 /* 13.15 */
    ISF("default_time2retain", default_time2retain, CFG_F_U32, 0, 3600), /* 13.16 */
    ISF("nop_in_interval", nop_in_interval_s, CFG_F_U32, 0, 3600),
    ISF("nop_in_timeout", nop_in_timeout_s, CFG_F_U32, 1, 3600),
    ISF("login_timeout", login_timeout_s, CFG_F_U32, 1, 3600),
    ISF("max_sessions", max_sessions, CFG_F_U32, 0, 1000000),
    ISF("max_logins_in_progress", max_logins_in_progress, CFG_F_U32, 1, 65535),
    ISF("max_logins_per_address", max_logins_per_address, CFG_F_U32, 1, 65535),
    ISF("max_discovery_sessions", max_discovery_sessions, CFG_F_U32, 1, 65535),
    ISF("max_discovery_sessions_per_address", max_discovery_sessions_per_address, CFG_F_U32, 1,
	65535),
    ISF("queue_depth", queue_depth, CFG_F_U32, 1, 1024),
    ISF("max_buffer_memory_mib", max_buffer_memory_mib, CFG_F_U32, 0, 1048576),
    ISF("max_session_data_mib", max_session_data_mib, CFG_F_U32, 0, 1048576),
    ISF("max_connection_data_mib", max_connection_data_mib, CFG_F_U32, 0, 1048576),
    ISF("session_reserve_kib", session_reserve_kib, CFG_F_U32, 0, 65536),
    ISF("max_session_send_queue_mib", max_session_send_queue_mib, CFG_F_U32, 1, 4096),
    ISF("max_connection_send_queue_mib", max_connection_send_queue_mib, CFG_F_U32, 1, 4096),
    ISF("data_out_timeout", data_out_timeout_s, CFG_F_U32, 0, 3600),
    ISF("error_recovery_level", error_recovery_level, CFG_F_U32, 0, 2), /* 13.20 */
    ISF("busy_poll_us", busy_poll_us, CFG_F_U32, 0, 10000),
    ISF("socket_uring", socket_uring, CFG_F_BOOL, 0, 1),
    ISF("spread_connections", spread_connections, CFG_F_BOOL, 0, 1),
};
static_assert(ARRAY_SIZE(cfg_iscsi_fields) <= 32, "iscsi_set is a 32-bit mask");

/* The fields each object accepts (NULL-terminated); cfg_object_fields()
 * hands them to the control plane (its method schema and "set" methods). */
static const char *const cfg_fields_root[] = {
    "version", "state_dir",   "log_level", "rpc_socket", "default_portals", "iscsi", "backstores",
    "targets", "port_groups", "discovery", "metrics",	 "plugin_dir",	    "isns",  NULL,
};
static const char *const cfg_fields_metrics[] = {"listen", NULL};
static const char *const cfg_fields_backstore[] = {
    "name",	  "type",
    "path",	  "size",
    "create",	  "read_only",
    "block_size", "thin",
    "removable",  "write_cache",
    "vendor",	  "product",
    "revision",	  "serial",
    "naa",	  "physical_block_size",
    "fault",	  "pr_max_registrations",
    "protection", "url",
    "handler",	  "options",
    NULL,
};
static const char *const cfg_fields_lun[] = {"lun", "backstore", "read_only", NULL};
static const char *const cfg_fields_tpg[] = {"tag", "portals", "rel_port_id", "redirect", NULL};
static const char *const cfg_fields_target[] = {
    "name",
    "alias",
    "portal_groups",
    "luns",
    "acls",
    "demo_mode",
    "auth",
    "limits",
    "require_header_digest",
    "require_data_digest",
    "redirect",
    "async_events",
    NULL,
};
static const char *const cfg_fields_acl[] = {
    "initiator",	   "luns", "addresses", "auth", "target_reset", "require_header_digest",
    "require_data_digest", NULL,
};

bool cfg_iscsi_is_set(const struct cfg *c, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cfg_iscsi_fields); i++)
		if (strcmp(cfg_iscsi_fields[i].name, name) == 0)
			return (c->iscsi_set >> i) & 1;
	return false;
}

int cfg_parse_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	if (len == 0 || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len) {
		switch (s[i]) {
		case 'k':
		case 'K':
			mult = 1ull << 10;
			break;
		case 'm':
		case 'M':
			mult = 1ull << 20;
			break;
		case 'g':
		case 'G':
			mult = 1ull << 30;
			break;
		case 't':
		case 'T':
			mult = 1ull << 40;
			break;
		default:
			return -EINVAL;
		}
		if (++i != len)
			return -EINVAL;
	}
	if (v == 0 || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

void cfg_format_size(uint64_t v, char *buf, size_t size)
{
	static const struct {
		char suffix;
		unsigned shift;
	} units[] = {
	    {.suffix = 'T', .shift = 40},
	    {.suffix = 'G', .shift = 30},
	    {.suffix = 'M', .shift = 20},
	    {.suffix = 'K', .shift = 10},
	};

	for (size_t i = 0; v && i < ARRAY_SIZE(units); i++) {
		if ((v & ((1ull << units[i].shift) - 1)) == 0) {
			snprintf(buf, size, "%llu%c", (unsigned long long)(v >> units[i].shift),
				 units[i].suffix);
			return;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* A size: an integer number of bytes or a string with a K/M/G/T suffix. */
static int cfg_get_size(struct cfg_pctx *x, json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	size_t old;

	if (!v)
		return 0;
	old = cfg_push_key(x, key);
	if (json_is_integer(v)) {
		if (json_integer_value(v) <= 0)
			return cfg_perr(x, "size must be positive");
		*out = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v)) {
		if (cfg_parse_size(json_string_value(v), json_string_length(v), out))
			return cfg_perr(x,
					"bad size \"%.32s\" (bytes, or a number with K, M, G "
					"or T: powers of 1024)",
					json_string_value(v));
	} else {
		return cfg_perr(x, "expected a size (integer or string), found %s",
				cfg_type_name(v));
	}
	cfg_pop(x, old);
	return 0;
}

/* ---- sections ---- */
static int cfg_parse_iscsi(struct cfg_pctx *x, json_t *o, struct cfg *c)
{
	const char *allowed[ARRAY_SIZE(cfg_iscsi_fields) + 1];
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(cfg_iscsi_fields); i++)
		allowed[i] = cfg_iscsi_fields[i].name;
	allowed[ARRAY_SIZE(cfg_iscsi_fields)] = NULL;
	rc = cfg_check_keys(x, o, allowed);
	if (rc)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(cfg_iscsi_fields); i++) {
		const struct cfg_iscsi_field *f = &cfg_iscsi_fields[i];
		char *p = (char *)&c->iscsi + f->off;
		bool present = false;
		uint64_t v = 0;

		if (f->kind == CFG_F_BOOL) {
			bool b;
			if (!json_object_get(o, f->name))
				continue;
			rc = cfg_get_bool(x, o, f->name, &b);
			if (rc)
				return rc;
			memcpy(p, &b, sizeof(b));
		} else {
			rc = cfg_get_uint(x, o, f->name, false, f->min, f->max, &v, &present);
			if (rc)
				return rc;
			if (!present)
				continue;
			if (f->kind == CFG_F_U16) {
				uint16_t w = (uint16_t)v;
				memcpy(p, &w, sizeof(w));
			} else {
				uint32_t w = (uint32_t)v;
				memcpy(p, &w, sizeof(w));
			}
		}
		c->iscsi_set |= 1u << i;
	}
	return 0;
}

/* "fault": fault injection (config/fault.c). */
static int cfg_get_fault(struct cfg_pctx *x, json_t *o, struct cfg_backstore *b)
{
	json_t *f = json_object_get(o, "fault");
	char member[32], msg[CFG_ERR_MSG_MAX];
	size_t old;
	int rc;

	if (!f)
		return 0;
	old = cfg_push_key(x, "fault");
	rc = cfg_fault_parse(f, &b->fault, member, sizeof(member), msg, sizeof(msg));
	if (rc == -EINVAL) {
		if (member[0])
			cfg_push_key(x, member);
		return cfg_perr(x, "%s", msg);
	}
	if (rc)
		return rc;
	cfg_pop(x, old);
	return 0;
}

/* "options": an object of at most CFG_BS_OPTIONS_MAX string values, keys
 * of [A-Za-z0-9_.-]; kept in the file's order. */
static int cfg_parse_bs_options(struct cfg_pctx *x, json_t *o, struct cfg_backstore *b)
{
	json_t *opts, *v;
	const char *key;
	size_t old;
	int rc;

	opts = cfg_get_typed(x, o, "options", JSON_OBJECT, &rc);
	if (rc || !opts)
		return rc;
	old = cfg_push_key(x, "options");
	if (json_object_size(opts) > CFG_BS_OPTIONS_MAX)
		return cfg_perr(x, "%zu settings, at most %d", json_object_size(opts),
				CFG_BS_OPTIONS_MAX);
	b->options = calloc(json_object_size(opts) + 1, sizeof(*b->options));
	if (!b->options)
		return -ENOMEM;
	json_object_foreach(opts, key, v)
	{
		struct cfg_kv *kv = &b->options[b->noptions];
		size_t klen = strlen(key);

		if (klen == 0 || klen > CFG_BS_OPTION_KEY_MAX ||
		    strspn(key,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			klen)
			return cfg_perr(x,
					"bad key \"%.64s\": 1..%d of A-Z, a-z, 0-9, '_', '.', '-'",
					key, CFG_BS_OPTION_KEY_MAX);
		kv->key = strdup(key);
		if (!kv->key)
			return -ENOMEM;
		b->noptions++;
		if ((rc = cfg_get_str(x, opts, key, true, CFG_BS_OPTION_VALUE_MAX, &kv->value)))
			return rc;
	}
	cfg_pop(x, old);
	return 0;
}

/* A medium with a block size of its own (a device, a remote LUN, a
 * handler's): an absent block_size is the medium's. */
static bool cfg_bs_has_geometry(const char *type)
{
	return strcmp(type, "block") == 0 || strcmp(type, "iscsi") == 0 ||
	       strcmp(type, "plugin") == 0 || strcmp(type, "rbd") == 0 || strcmp(type, "sg") == 0;
}

/* The element readers (cfg_elem_fn): o is an object. */
static int cfg_parse_backstore(struct cfg_pctx *x, json_t *o, void *out)
{
	const char *const *allowed = cfg_fields_backstore;
	struct cfg_backstore *b = out;
	uint64_t v;
	int rc;

	cfg_backstore_defaults(b);
	if ((rc = cfg_check_keys(x, o, allowed)) ||
	    (rc = cfg_get_str(x, o, "name", true, CFG_BS_NAME_MAX, &b->name)) ||
	    (rc = cfg_get_str(x, o, "type", true, 15, &b->type)) ||
	    (rc = cfg_get_str(x, o, "path", false, CFG_PATH_MAX, &b->path)) ||
	    (rc = cfg_get_size(x, o, "size", &b->size)) ||
	    (rc = cfg_get_bool(x, o, "create", &b->create)) ||
	    (rc = cfg_get_bool(x, o, "read_only", &b->read_only)) ||
	    (rc = cfg_get_bool(x, o, "thin", &b->thin)) ||
	    (rc = cfg_get_bool(x, o, "removable", &b->removable)) ||
	    (rc = cfg_get_bool(x, o, "write_cache", &b->write_cache)) ||
	    (rc = cfg_get_str(x, o, "vendor", false, CFG_VENDOR_MAX, &b->vendor)) ||
	    (rc = cfg_get_str(x, o, "product", false, CFG_PRODUCT_MAX, &b->product)) ||
	    (rc = cfg_get_str(x, o, "revision", false, CFG_REVISION_MAX, &b->revision)) ||
	    (rc = cfg_get_str(x, o, "serial", false, CFG_SERIAL_MAX, &b->serial)) ||
	    (rc = cfg_get_str(x, o, "naa", false, CFG_NAA_HEX, &b->naa)) ||
	    (rc = cfg_get_str(x, o, "url", false, CFG_BS_URL_MAX, &b->url)) ||
	    (rc = cfg_get_str(x, o, "handler", false, CFG_BS_HANDLER_MAX, &b->handler)) ||
	    (rc = cfg_parse_bs_options(x, o, b)))
		return rc;
	if (cfg_bs_has_geometry(b->type) && !json_object_get(o, "block_size"))
		b->block_size = 0;
	v = b->block_size;
	rc = cfg_get_uint(x, o, "block_size", false, 1, 65536, &v, NULL);
	b->block_size = (uint32_t)v;
	if (rc)
		return rc;
	v = b->physical_block_size;
	rc = cfg_get_uint(x, o, "physical_block_size", false, 0, 1u << 27, &v, NULL);
	b->physical_block_size = (uint32_t)v;
	if (rc)
		return rc;
	v = b->pr_max_registrations;
	rc = cfg_get_uint(x, o, "pr_max_registrations", false, 1, 65536, &v, NULL);
	b->pr_max_registrations = (uint32_t)v;
	if (rc)
		return rc;
	v = b->protection;
	rc = cfg_get_uint(x, o, "protection", false, 0, 3, &v, NULL);
	b->protection = (uint8_t)v;
	if (rc)
		return rc;
	return cfg_get_fault(x, o, b);
}

static int cfg_parse_lun(struct cfg_pctx *x, json_t *e, void *out)
{
	struct cfg_lun *lun = out;
	uint64_t v = 0;
	int rc;

	if ((rc = cfg_check_keys(x, e, cfg_fields_lun)) ||
	    (rc = cfg_get_uint(x, e, "lun", true, 0, CFG_MAX_LUN, &v, NULL)) ||
	    (rc = cfg_get_str(x, e, "backstore", true, CFG_BS_NAME_MAX, &lun->backstore)) ||
	    (rc = cfg_get_bool(x, e, "read_only", &lun->read_only)))
		return rc;
	lun->lun = (uint32_t)v;
	return 0;
}

/* The "luns" of a target or an ACL; has: whether there are (absent: NULL) */
static int cfg_get_luns(struct cfg_pctx *x, json_t *o, struct cfg_lun_list *l, bool *has)
{
	if (has)
		*has = json_object_get(o, "luns") != NULL;
	return cfg_get_objects(x, o, "luns", sizeof(*l->v), (void **)&l->v, &l->n, cfg_parse_lun);
}

static int cfg_parse_tpg(struct cfg_pctx *x, json_t *o, void *out)
{
	const char *const *allowed = cfg_fields_tpg;
	struct cfg_portal_group *g = out;
	uint64_t tag = 0, rpi = 0;
	json_t *arr, *e;
	size_t i, old;
	int rc;

	if ((rc = cfg_check_keys(x, o, allowed)) ||
	    (rc = cfg_get_uint(x, o, "tag", true, 1, 65535, &tag, NULL)) ||
	    (rc = cfg_get_uint(x, o, "rel_port_id", false, 1, 65535, &rpi, NULL)))
		return rc;
	g->tag = (uint16_t)tag;
	g->rel_port_id = (uint16_t)rpi;
	arr = cfg_get_typed(x, o, "portals", JSON_ARRAY, &rc);
	if (rc)
		return rc;
	old = cfg_push_key(x, "portals");
	if (!arr)
		return cfg_perr(x, "required field missing");
	g->portals = calloc(json_array_size(arr) ? json_array_size(arr) : 1, sizeof(*g->portals));
	if (!g->portals)
		return -ENOMEM;
	json_array_foreach(arr, i, e)
	{
		size_t o2 = cfg_push_idx(x, i);
		size_t len;

		if (!json_is_string(e))
			return cfg_perr(x, "expected a string \"address:port\", found %s",
					cfg_type_name(e));
		len = json_string_length(e);
		if (len == 0 || len > 64 || memchr(json_string_value(e), '\0', len))
			return cfg_perr(x, "bad portal address");
		g->portals[g->nportals] = strndup(json_string_value(e), len);
		if (!g->portals[g->nportals])
			return -ENOMEM;
		g->nportals++;
		cfg_pop(x, o2);
	}
	cfg_pop(x, old);
	return cfg_redirect_parse(o, g, &g->redirect, x->path, x->err);
}

static int cfg_parse_acl(struct cfg_pctx *x, json_t *e, void *out)
{
	struct cfg_acl *a = out;
	int rc;

	if ((rc = cfg_check_keys(x, e, cfg_fields_acl)) ||
	    (rc = cfg_get_iname(x, e, "initiator", false, &a->initiator)) ||
	    (rc = cfg_get_luns(x, e, &a->luns, &a->has_luns)) ||
	    (rc = cfg_get_bool(x, e, "target_reset", &a->target_reset)) ||
	    (rc = cfg_get_bool(x, e, "require_header_digest", &a->require_header_digest)) ||
	    (rc = cfg_get_bool(x, e, "require_data_digest", &a->require_data_digest)))
		return rc;
	/* addresses, auth (auth.c) */
	return cfg_auth_parse_acl(e, a, x->path, x->err);
}

static int cfg_parse_target(struct cfg_pctx *x, json_t *o, void *out)
{
	const char *const *allowed = cfg_fields_target;
	static const char *const demo_allowed[] = {"enabled", "read_only", "target_reset", NULL};
	struct cfg_target *t = out;
	json_t *demo;
	size_t old;
	int rc;

	if ((rc = cfg_check_keys(x, o, allowed)) ||
	    (rc = cfg_get_iname(x, o, "name", true, &t->name)) ||
	    (rc = cfg_get_str(x, o, "alias", false, CFG_ALIAS_MAX, &t->alias)) ||
	    (rc = cfg_get_objects(x, o, "portal_groups", sizeof(*t->tpgs), (void **)&t->tpgs,
				  &t->ntpgs, cfg_parse_tpg)) ||
	    (rc = cfg_get_luns(x, o, &t->luns, NULL)) ||
	    (rc = cfg_get_objects(x, o, "acls", sizeof(*t->acls), (void **)&t->acls, &t->nacls,
				  cfg_parse_acl)) ||
	    (rc = cfg_get_bool(x, o, "require_header_digest", &t->require_header_digest)) ||
	    (rc = cfg_get_bool(x, o, "require_data_digest", &t->require_data_digest)) ||
	    (rc = cfg_get_bool(x, o, "async_events", &t->async_events)))
		return rc;

	demo = cfg_get_typed(x, o, "demo_mode", JSON_OBJECT, &rc);
	if (rc)
		return rc;
	if (demo) {
		old = cfg_push_key(x, "demo_mode");
		/* demo mode is read-only unless said otherwise (issue 4) */
		t->demo_read_only = true;
		if ((rc = cfg_check_keys(x, demo, demo_allowed)) ||
		    (rc = cfg_get_bool(x, demo, "enabled", &t->demo)) ||
		    (rc = cfg_get_bool(x, demo, "read_only", &t->demo_read_only)) ||
		    (rc = cfg_get_bool(x, demo, "target_reset", &t->demo_target_reset)))
			return rc;
		cfg_pop(x, old);
	}
	rc = cfg_redirect_parse(o, NULL, &t->redirect, x->path, x->err);
	if (rc)
		return rc;
	/* auth, limits (auth.c) */
	return cfg_auth_parse_target(o, t, x->path, x->err);
}

/* "default_portals": what a portal group created without portals listens
 * on (target.create without portal_groups); checked here, since nothing
 * else in the file refers to them. */
static int cfg_parse_default_portals(struct cfg_pctx *x, json_t *root, struct cfg *c)
{
	json_t *arr, *e;
	size_t i, old;
	int rc;

	arr = cfg_get_typed(x, root, "default_portals", JSON_ARRAY, &rc);
	if (rc || !arr)
		return rc;
	old = cfg_push_key(x, "default_portals");
	if (!json_array_size(arr))
		return cfg_perr(x, "at least one portal (absent: %s)", CFG_DEFAULT_PORTAL);
	c->default_portals = calloc(json_array_size(arr), sizeof(*c->default_portals));
	if (!c->default_portals)
		return -ENOMEM;
	json_array_foreach(arr, i, e)
	{
		size_t o2 = cfg_push_idx(x, i);
		const char *why;

		if (!json_is_string(e))
			return cfg_perr(x, "expected a string \"address:port\", found %s",
					cfg_type_name(e));
		if (!cfg_portal_valid(json_string_value(e), &why))
			return cfg_perr(x, "bad portal \"%.64s\": %s", json_string_value(e), why);
		for (size_t j = 0; j < c->ndefault_portals; j++)
			if (!strcmp(c->default_portals[j], json_string_value(e)))
				return cfg_perr(x, "listed twice");
		c->default_portals[c->ndefault_portals] = strdup(json_string_value(e));
		if (!c->default_portals[c->ndefault_portals])
			return -ENOMEM;
		c->ndefault_portals++;
		cfg_pop(x, o2);
	}
	cfg_pop(x, old);
	return 0;
}

/* "metrics": {"listen": "ADDR:PORT"}: the Prometheus endpoint (off when
 * absent). */
static int cfg_parse_metrics(struct cfg_pctx *x, json_t *root, struct cfg *c)
{
	const char *why;
	size_t old;
	json_t *o;
	int rc;

	o = cfg_get_typed(x, root, "metrics", JSON_OBJECT, &rc);
	if (rc || !o)
		return rc;
	old = cfg_push_key(x, "metrics");
	if ((rc = cfg_check_keys(x, o, cfg_fields_metrics)) ||
	    (rc = cfg_get_str(x, o, "listen", true, 64, &c->metrics_listen)))
		return rc;
	if (!cfg_portal_valid(c->metrics_listen, &why)) {
		cfg_push_key(x, "listen");
		return cfg_perr(x, "bad address \"%.64s\": %s", c->metrics_listen, why);
	}
	cfg_pop(x, old);
	return 0;
}

static int cfg_parse_root(struct cfg_pctx *x, json_t *root, struct cfg *c)
{
	const char *const *allowed = cfg_fields_root;
	uint64_t version = 0;
	json_t *o;
	size_t old;
	int rc;

	if (!json_is_object(root))
		return cfg_perr(x, "the config must be a JSON object, found %s",
				cfg_type_name(root));
	if ((rc = cfg_check_keys(x, root, allowed)) ||
	    (rc = cfg_get_uint(x, root, "version", true, 0, INT32_MAX, &version, NULL)))
		return rc;
	if (version != CFG_VERSION) {
		old = cfg_push_key(x, "version");
		return cfg_perr(x, "unsupported version %llu (this utargetd reads version %d)",
				(unsigned long long)version, CFG_VERSION);
	}
	c->version = (int)version;
	if ((rc = cfg_get_str(x, root, "state_dir", false, CFG_PATH_MAX, &c->state_dir)) ||
	    (rc = cfg_get_str(x, root, "log_level", false, 16, &c->log_level)) ||
	    (rc = cfg_get_str(x, root, "rpc_socket", false, CFG_SOCKET_PATH_MAX, &c->rpc_socket)) ||
	    (rc = cfg_get_str(x, root, "plugin_dir", false, CFG_PATH_MAX, &c->plugin_dir)))
		return rc;
	if (c->log_level && log_level_parse(c->log_level) < 0) {
		cfg_push_key(x, "log_level");
		return cfg_perr(x, "unknown level \"%s\" (err, warn, notice, info, debug)",
				c->log_level);
	}
	if ((rc = cfg_parse_default_portals(x, root, c)) || (rc = cfg_parse_metrics(x, root, c)))
		return rc;

	o = cfg_get_typed(x, root, "iscsi", JSON_OBJECT, &rc);
	if (rc)
		return rc;
	if (o) {
		old = cfg_push_key(x, "iscsi");
		if ((rc = cfg_parse_iscsi(x, o, c)))
			return rc;
		cfg_pop(x, old);
	}

	if ((rc = cfg_get_objects(x, root, "backstores", sizeof(*c->bs), (void **)&c->bs, &c->nbs,
				  cfg_parse_backstore)) ||
	    (rc = cfg_get_objects(x, root, "targets", sizeof(*c->targets), (void **)&c->targets,
				  &c->ntargets, cfg_parse_target)))
		return rc;
	/* discovery sessions (auth.c) */
	rc = cfg_auth_parse_root(root, c, x->err);
	if (rc)
		return rc;
	/* iSNS (isns.c) */
	rc = cfg_isns_parse_root(root, c, x->err);
	if (rc)
		return rc;
	/* ALUA target port groups (port_groups.c) */
	o = json_object_get(root, "port_groups");
	if (o && (rc = cfg_parse_port_groups(o, c, x->err)))
		return rc;
	return 0;
}

int cfg_parse(const char *text, size_t len, const struct cfg_iscsi_settings *defaults,
	      struct cfg **out, struct cfg_err *err)
{
	struct cfg_pctx x = {.err = err};
	json_error_t jerr;
	struct cfg *c;
	json_t *root;
	int rc;

	*err = (struct cfg_err){0};
	*out = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		err->line = jerr.line > 0 ? jerr.line : 0;
		snprintf(err->msg, sizeof(err->msg), "%s", jerr.text);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		json_decref(root);
		return -ENOMEM;
	}
	if (defaults)
		c->iscsi = *defaults;
	rc = cfg_parse_root(&x, root, c);
	json_decref(root);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		else
			err->line = cfg_locate_line(text, len, err->path);
		cfg_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ---- dump ---- */
static int cfg_put(json_t *o, const char *key, json_t *v)
{
	return (v && json_object_set_new(o, key, v) == 0) ? 0 : -1;
}

static int cfg_put_str(json_t *o, const char *key, const char *s)
{
	return s ? cfg_put(o, key, json_string(s)) : 0;
}

/* Required digests, written only when required (the default is none). */
static int cfg_put_digests(json_t *o, bool header, bool data)
{
	return (header ? cfg_put(o, "require_header_digest", json_true()) : 0) |
	       (data ? cfg_put(o, "require_data_digest", json_true()) : 0);
}

static int cfg_put_size(json_t *o, const char *key, uint64_t v)
{
	char buf[32];

	if (!v)
		return 0;
	cfg_format_size(v, buf, sizeof(buf));
	if (buf[strlen(buf) - 1] >= '0' && buf[strlen(buf) - 1] <= '9' && v <= INT64_MAX)
		return cfg_put(o, key, json_integer((json_int_t)v));
	return cfg_put(o, key, json_string(buf));
}

static json_t *cfg_dump_luns(const struct cfg_lun_list *l)
{
	json_t *arr = json_array();
	int bad = !arr;

	for (size_t i = 0; !bad && i < l->n; i++) {
		json_t *o = json_object();
		bad |= !o;
		if (bad)
			break;
		bad |= cfg_put(o, "lun", json_integer(l->v[i].lun));
		bad |= cfg_put_str(o, "backstore", l->v[i].backstore);
		bad |= cfg_put(o, "read_only", json_boolean(l->v[i].read_only));
		bad |= json_array_append_new(arr, o);
	}
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static json_t *cfg_dump_backstore(const struct cfg_backstore *b)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= cfg_put_str(o, "name", b->name);
	bad |= cfg_put_str(o, "type", b->type);
	bad |= cfg_put_str(o, "path", b->path);
	bad |= cfg_put_size(o, "size", b->size);
	bad |= cfg_put(o, "create", json_boolean(b->create));
	bad |= cfg_put(o, "read_only", json_boolean(b->read_only));
	bad |= cfg_put_str(o, "url", b->url);
	bad |= cfg_put_str(o, "handler", b->handler);
	if (b->noptions) {
		json_t *opts = json_object();

		bad |= !opts;
		for (size_t i = 0; !bad && i < b->noptions; i++)
			bad |= cfg_put(opts, b->options[i].key, json_string(b->options[i].value));
		bad |= cfg_put(o, "options", opts);
	}
	if (b->block_size)
		bad |= cfg_put(o, "block_size", json_integer(b->block_size));
	if (b->physical_block_size)
		bad |= cfg_put(o, "physical_block_size", json_integer(b->physical_block_size));
	if (b->pr_max_registrations)
		bad |= cfg_put(o, "pr_max_registrations", json_integer(b->pr_max_registrations));
	if (b->protection)
		bad |= cfg_put(o, "protection", json_integer(b->protection));
	bad |= cfg_put(o, "thin", json_boolean(b->thin));
	bad |= cfg_put(o, "removable", json_boolean(b->removable));
	bad |= cfg_put(o, "write_cache", json_boolean(b->write_cache));
	bad |= cfg_put_str(o, "vendor", b->vendor);
	bad |= cfg_put_str(o, "product", b->product);
	bad |= cfg_put_str(o, "revision", b->revision);
	bad |= cfg_put_str(o, "serial", b->serial);
	bad |= cfg_put_str(o, "naa", b->naa);
	if (b->fault)
		bad |= cfg_put(o, "fault", cfg_fault_dump(b->fault));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *cfg_dump_target(const struct cfg_target *t)
{
	json_t *o = json_object(), *tpgs = json_array(), *acls = json_array(),
	       *demo = json_object();
	int bad = !o || !tpgs || !acls || !demo;

	for (size_t i = 0; !bad && i < t->ntpgs; i++) {
		const struct cfg_portal_group *g = &t->tpgs[i];
		json_t *go = json_object(), *portals = json_array();
		bad |= !go || !portals;
		for (size_t j = 0; !bad && j < g->nportals; j++)
			bad |= json_array_append_new(portals, json_string(g->portals[j]));
		if (bad) {
			json_decref(go);
			json_decref(portals);
			break;
		}
		bad |= cfg_put(go, "tag", json_integer(g->tag));
		if (g->rel_port_id)
			bad |= cfg_put(go, "rel_port_id", json_integer(g->rel_port_id));
		bad |= cfg_put(go, "portals", portals);
		bad |= cfg_redirect_dump(go, g->redirect);
		bad |= json_array_append_new(tpgs, go);
	}
	for (size_t i = 0; !bad && i < t->nacls; i++) {
		json_t *ao = json_object();
		bad |= !ao;
		if (bad)
			break;
		bad |= cfg_put_str(ao, "initiator", t->acls[i].initiator);
		if (t->acls[i].has_luns)
			bad |= cfg_put(ao, "luns", cfg_dump_luns(&t->acls[i].luns));
		bad |= cfg_auth_dump_acl(ao, &t->acls[i]);
		bad |= cfg_put(ao, "target_reset", json_boolean(t->acls[i].target_reset));
		bad |= cfg_put_digests(ao, t->acls[i].require_header_digest,
				       t->acls[i].require_data_digest);
		bad |= json_array_append_new(acls, ao);
	}
	if (!bad) {
		bad |= cfg_put(demo, "enabled", json_boolean(t->demo));
		bad |= cfg_put(demo, "read_only", json_boolean(t->demo_read_only));
		bad |= cfg_put(demo, "target_reset", json_boolean(t->demo_target_reset));
		bad |= cfg_put_str(o, "name", t->name);
		bad |= cfg_put_str(o, "alias", t->alias);
		bad |= cfg_put(o, "portal_groups", tpgs);
		tpgs = NULL;
		bad |= cfg_put(o, "luns", cfg_dump_luns(&t->luns));
		bad |= cfg_put(o, "acls", acls);
		acls = NULL;
		bad |= cfg_put(o, "demo_mode", demo);
		demo = NULL;
		bad |= cfg_auth_dump_target(o, t);
		bad |= cfg_put_digests(o, t->require_header_digest, t->require_data_digest);
		bad |= cfg_redirect_dump(o, t->redirect);
		if (t->async_events)
			bad |= cfg_put(o, "async_events", json_true());
	}
	json_decref(tpgs);
	json_decref(acls);
	json_decref(demo);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *cfg_dump(const struct cfg *c)
{
	json_t *root = json_object(), *iscsi = json_object(), *bs = json_array(),
	       *targets = json_array();
	int bad = !root || !iscsi || !bs || !targets;
	char *text = NULL, *out = NULL;

	for (size_t i = 0; !bad && i < ARRAY_SIZE(cfg_iscsi_fields); i++) {
		const struct cfg_iscsi_field *f = &cfg_iscsi_fields[i];
		const char *p = (const char *)&c->iscsi + f->off;

		if (!(c->iscsi_set & (1u << i)))
			continue;
		if (f->kind == CFG_F_BOOL) {
			bool b;
			memcpy(&b, p, sizeof(b));
			bad |= cfg_put(iscsi, f->name, json_boolean(b));
		} else if (f->kind == CFG_F_U16) {
			uint16_t w;
			memcpy(&w, p, sizeof(w));
			bad |= cfg_put(iscsi, f->name, json_integer(w));
		} else {
			uint32_t w;
			memcpy(&w, p, sizeof(w));
			bad |= cfg_put(iscsi, f->name, json_integer(w));
		}
	}
	for (size_t i = 0; !bad && i < c->nbs; i++)
		bad |= json_array_append_new(bs, cfg_dump_backstore(&c->bs[i]));
	for (size_t i = 0; !bad && i < c->ntargets; i++)
		bad |= json_array_append_new(targets, cfg_dump_target(&c->targets[i]));
	if (!bad) {
		bad |= cfg_put(root, "version", json_integer(c->version));
		bad |= cfg_put_str(root, "state_dir", c->state_dir);
		bad |= cfg_put_str(root, "log_level", c->log_level);
		bad |= cfg_put_str(root, "rpc_socket", c->rpc_socket);
		bad |= cfg_put_str(root, "plugin_dir", c->plugin_dir);
		if (c->metrics_listen)
			bad |= cfg_put(root, "metrics",
				       json_pack("{s:s}", "listen", c->metrics_listen));
		if (c->ndefault_portals) {
			json_t *dp = json_array();

			bad |= !dp;
			for (size_t i = 0; !bad && i < c->ndefault_portals; i++)
				bad |=
				    json_array_append_new(dp, json_string(c->default_portals[i]));
			bad |= cfg_put(root, "default_portals", dp);
		}
		if (c->iscsi_set)
			bad |= cfg_put(root, "iscsi", iscsi);
		else
			json_decref(iscsi);
		iscsi = NULL;
		bad |= cfg_put(root, "backstores", bs);
		bs = NULL;
		bad |= cfg_put(root, "targets", targets);
		targets = NULL;
		if (c->npgs)
			bad |= cfg_put(root, "port_groups", cfg_dump_port_groups(c));
		bad |= cfg_auth_dump_root(root, c);
		bad |= cfg_isns_dump_root(root, c);
	}
	json_decref(iscsi);
	json_decref(bs);
	json_decref(targets);
	if (!bad)
		text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (text) {
		size_t n = strlen(text);
		out = malloc(n + 2);
		if (out) {
			memcpy(out, text, n);
			out[n] = '\n';
			out[n + 1] = '\0';
		}
		free(text);
	}
	return out;
}

/* ---- single objects, for the control plane ---- */
const char *const *cfg_object_fields(enum cfg_obj_kind kind)
{
	switch (kind) {
	case CFG_OBJ_ROOT:
		return cfg_fields_root;
	case CFG_OBJ_BACKSTORE:
		return cfg_fields_backstore;
	case CFG_OBJ_TARGET:
		return cfg_fields_target;
	case CFG_OBJ_PORTAL_GROUP:
		return cfg_fields_tpg;
	case CFG_OBJ_ACL:
		return cfg_fields_acl;
	case CFG_OBJ_LUN:
		return cfg_fields_lun;
	}
	return NULL;
}

json_t *cfg_object_to_json(enum cfg_obj_kind kind, const void *obj)
{
	switch (kind) {
	case CFG_OBJ_BACKSTORE:
		return cfg_dump_backstore(obj);
	case CFG_OBJ_TARGET:
		return cfg_dump_target(obj);
	case CFG_OBJ_PORTAL_GROUP: {
		/* the same shape as inside a target */
		const struct cfg_portal_group *g = obj;
		struct cfg_target t = {.tpgs = (struct cfg_portal_group *)g, .ntpgs = 1};
		json_t *o = cfg_dump_target(&t),
		       *arr = o ? json_object_get(o, "portal_groups") : NULL;
		json_t *r = arr ? json_incref(json_array_get(arr, 0)) : NULL;
		json_decref(o);
		return r;
	}
	case CFG_OBJ_ACL: {
		const struct cfg_acl *a = obj;
		struct cfg_target t = {.acls = (struct cfg_acl *)a, .nacls = 1};
		json_t *o = cfg_dump_target(&t), *arr = o ? json_object_get(o, "acls") : NULL;
		json_t *r = arr ? json_incref(json_array_get(arr, 0)) : NULL;
		json_decref(o);
		return r;
	}
	case CFG_OBJ_LUN: {
		struct cfg_lun_list l = {.v = (struct cfg_lun *)obj, .n = 1};
		json_t *arr = cfg_dump_luns(&l);
		json_t *r = arr ? json_incref(json_array_get(arr, 0)) : NULL;
		json_decref(arr);
		return r;
	}
	case CFG_OBJ_ROOT: {
		char *text = cfg_dump(obj);
		json_t *r = text ? json_loads(text, 0, NULL) : NULL;
		free(text);
		return r;
	}
	}
	return NULL;
}

int cfg_object_from_json(enum cfg_obj_kind kind, json_t *o, void *obj, struct cfg_err *err)
{
	struct cfg_pctx x = {.err = err};
	int rc = -EINVAL;

	*err = (struct cfg_err){0};
	if (kind != CFG_OBJ_ROOT && !json_is_object(o))
		return cfg_perr(&x, "expected an object, found %s", cfg_type_name(o));
	switch (kind) {
	case CFG_OBJ_BACKSTORE:
		rc = cfg_parse_backstore(&x, o, obj);
		break;
	case CFG_OBJ_TARGET:
		rc = cfg_parse_target(&x, o, obj);
		break;
	case CFG_OBJ_PORTAL_GROUP:
		rc = cfg_parse_tpg(&x, o, obj);
		break;
	case CFG_OBJ_ACL:
		rc = cfg_parse_acl(&x, o, obj);
		break;
	case CFG_OBJ_LUN:
		rc = cfg_parse_lun(&x, o, obj);
		break;
	case CFG_OBJ_ROOT:
		return -EINVAL; /* cfg_parse() reads whole documents */
	}
	if (rc == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	return rc;
}
