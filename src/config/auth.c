/* SPDX-License-Identifier: GPL-2.0-or-later */
/* auth.c: the access and authentication parts of the config
 * (docs/config.md): "auth" objects (CHAP credentials, the target's mutual
 * identity, algorithms) in targets, ACLs and "discovery"; ACL "addresses";
 * the discovery filter; a target's own "limits". Parse (types, lengths,
 * unknown fields), dump (absent stays absent: parse(dump(c)) == c), verify
 * (syntax of networks, uniqueness, RFC 7143 12.1.3 secret rules across the
 * whole file), free; and the warning about a config file with secrets that
 * others can read. auth_apply.c hands the result to the iSCSI fabric. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "config/model.h"
#include "config/pctx.h"
#include "lib/cidr.h"
#include "lib/compiler.h"
#include "lib/hmap.h"
#include "lib/log.h"

/* CHAP_A values by their name in the file (IANA PPP Authentication
 * Algorithms, RFC 7143 12.1.3). */
static const struct {
	const char *name;
	uint8_t alg;
} cfg_chap_algs[CFG_CHAP_ALGS] = {
    {.name = "MD5", .alg = 5},
    {.name = "SHA-1", .alg = 6},
    {.name = "SHA-256", .alg = 7},
    {.name = "SHA3-256", .alg = 8},
};

static const char *const cfg_df_names[] = {
    [CFG_DF_NONE] = "none",
    [CFG_DF_PORTAL] = "portal",
    [CFG_DF_PORTAL_NAME] = "portal-name",
    [CFG_DF_PORTAL_NAME_AUTH] = "portal-name-auth",
};

/* A target's "limits": one row per field, the bit of a row is its index. */
struct cfg_limit_field {
	const char *name;
	size_t off;
	uint32_t min, max;
};
#define LIMF(name_, member_, min_, max_)                                                           \
	{                                                                                          \
		.name = (name_), .off = offsetof(struct cfg_limits, member_), .min = (min_),       \
		.max = (max_)                                                                      \
	}
/* the ranges of the same fields of the "iscsi" section */
static const struct cfg_limit_field cfg_limit_fields[] = {
    LIMF("max_sessions", max_sessions, 0, 1000000),
    LIMF("max_connections", max_connections, 1, 16), /* MC/S: 13.2 */
    LIMF("queue_depth", queue_depth, 1, 1024),
    LIMF("login_timeout", login_timeout, 1, 3600),
    LIMF("nop_in_interval", nop_in_interval, 0, 3600),
    LIMF("nop_in_timeout", nop_in_timeout, 1, 3600),
};

const char *cfg_chap_alg_name(uint8_t alg)
{
	for (size_t i = 0; i < ARRAY_SIZE(cfg_chap_algs); i++)
		if (cfg_chap_algs[i].alg == alg)
			return cfg_chap_algs[i].name;
	return NULL;
}

const char *cfg_discovery_filter_name(uint8_t f)
{
	return f < ARRAY_SIZE(cfg_df_names) ? cfg_df_names[f] : NULL;
}

/* ---- parse ---- */

static int au_cred(struct cfg_pctx *x, json_t *o, struct cfg_chap_cred *c)
{
	static const char *const fields[] = {"user", "secret", "allow_short", NULL};
	int rc;

	if (!json_is_object(o))
		return cfg_perr(x, "expected an object {\"user\", \"secret\"}, found %s",
				cfg_type_name(o));
	if ((rc = cfg_check_keys(x, o, fields)) ||
	    (rc = cfg_get_str(x, o, "user", true, CFG_CHAP_USER_MAX, &c->user)) ||
	    (rc = cfg_get_str(x, o, "secret", true, CFG_CHAP_SECRET_MAX, &c->secret)) ||
	    (rc = cfg_get_bool(x, o, "allow_short", &c->allow_short)))
		return rc;
	return 0;
}

static int au_auth(struct cfg_pctx *x, json_t *o, struct cfg_auth **out)
{
	static const char *const fields[] = {"chap", "mutual", "algorithms", NULL};
	struct cfg_auth *a;
	json_t *v, *e;
	size_t i, old;
	int rc;

	if (!json_is_object(o))
		return cfg_perr(x, "expected an object, found %s", cfg_type_name(o));
	rc = cfg_check_keys(x, o, fields);
	if (rc)
		return rc;
	a = *out = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	v = json_object_get(o, "chap");
	old = cfg_push_key(x, "chap");
	if (!v)
		return cfg_perr(x, "required field missing (the CHAP credentials initiators use)");
	if (!json_is_array(v))
		return cfg_perr(x, "expected an array of {\"user\", \"secret\"}, found %s",
				cfg_type_name(v));
	if (!json_array_size(v))
		return cfg_perr(x, "at least one credential");
	a->chap = calloc(json_array_size(v), sizeof(*a->chap));
	if (!a->chap)
		return -ENOMEM;
	json_array_foreach(v, i, e)
	{
		size_t o2 = cfg_push_idx(x, i);

		rc = au_cred(x, e, &a->chap[a->nchap++]);
		if (rc)
			return rc;
		cfg_pop(x, o2);
	}
	cfg_pop(x, old);

	v = json_object_get(o, "mutual");
	if (v) {
		old = cfg_push_key(x, "mutual");
		a->mutual = calloc(1, sizeof(*a->mutual));
		if (!a->mutual)
			return -ENOMEM;
		rc = au_cred(x, v, a->mutual);
		if (rc)
			return rc;
		cfg_pop(x, old);
	}

	v = json_object_get(o, "algorithms");
	if (v) {
		old = cfg_push_key(x, "algorithms");
		if (!json_is_array(v))
			return cfg_perr(x, "expected an array of names, found %s",
					cfg_type_name(v));
		if (!json_array_size(v))
			return cfg_perr(x,
					"at least one algorithm (MD5, SHA-1, SHA-256, SHA3-256)");
		if (json_array_size(v) > CFG_CHAP_ALGS)
			return cfg_perr(x, "at most %u algorithms", CFG_CHAP_ALGS);
		json_array_foreach(v, i, e)
		{
			size_t o2 = cfg_push_idx(x, i), k;

			if (!json_is_string(e))
				return cfg_perr(x, "expected a string, found %s", cfg_type_name(e));
			for (k = 0; k < ARRAY_SIZE(cfg_chap_algs); k++)
				if (!strcmp(json_string_value(e), cfg_chap_algs[k].name))
					break;
			if (k == ARRAY_SIZE(cfg_chap_algs))
				return cfg_perr(x,
						"unknown algorithm \"%.32s\" (MD5, SHA-1, SHA-256, "
						"SHA3-256)",
						json_string_value(e));
			for (size_t j = 0; j < a->nalgs; j++)
				if (a->algs[j] == cfg_chap_algs[k].alg)
					return cfg_perr(x, "\"%s\" is listed twice",
							cfg_chap_algs[k].name);
			a->algs[a->nalgs++] = cfg_chap_algs[k].alg;
			cfg_pop(x, o2);
		}
		cfg_pop(x, old);
	}
	return 0;
}

static int au_limits(struct cfg_pctx *x, json_t *o, struct cfg_limits **out)
{
	const char *fields[ARRAY_SIZE(cfg_limit_fields) + 1];
	struct cfg_limits *l;
	int rc;

	if (!json_is_object(o))
		return cfg_perr(x, "expected an object, found %s", cfg_type_name(o));
	for (size_t i = 0; i < ARRAY_SIZE(cfg_limit_fields); i++)
		fields[i] = cfg_limit_fields[i].name;
	fields[ARRAY_SIZE(cfg_limit_fields)] = NULL;
	rc = cfg_check_keys(x, o, fields);
	if (rc)
		return rc;
	l = *out = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(cfg_limit_fields); i++) {
		const struct cfg_limit_field *f = &cfg_limit_fields[i];
		bool present = false;
		uint64_t v = 0;
		uint32_t w;

		rc = cfg_get_uint(x, o, f->name, false, f->min, f->max, &v, &present);
		if (rc)
			return rc;
		if (!present)
			continue;
		w = (uint32_t)v;
		memcpy((char *)l + f->off, &w, sizeof(w));
		l->set |= 1u << i;
	}
	return 0;
}

int cfg_auth_parse_target(struct json_t *o, struct cfg_target *t, const char *path,
			  struct cfg_err *err)
{
	struct cfg_pctx x = {.err = err};
	json_t *v;
	size_t old;
	int rc;

	snprintf(x.path, sizeof(x.path), "%s", path);
	if ((v = json_object_get(o, "auth"))) {
		old = cfg_push_key(&x, "auth");
		rc = au_auth(&x, v, &t->auth);
		if (rc)
			return rc;
		cfg_pop(&x, old);
	}
	if ((v = json_object_get(o, "limits"))) {
		old = cfg_push_key(&x, "limits");
		rc = au_limits(&x, v, &t->limits);
		if (rc)
			return rc;
		cfg_pop(&x, old);
	}
	return 0;
}

int cfg_auth_parse_acl(struct json_t *o, struct cfg_acl *a, const char *path, struct cfg_err *err)
{
	struct cfg_pctx x = {.err = err};
	json_t *v, *e;
	size_t old, i;
	int rc;

	snprintf(x.path, sizeof(x.path), "%s", path);
	if ((v = json_object_get(o, "addresses"))) {
		old = cfg_push_key(&x, "addresses");
		if (!json_is_array(v))
			return cfg_perr(&x, "expected an array of addresses or networks, found %s",
					cfg_type_name(v));
		if (!json_array_size(v))
			return cfg_perr(&x, "at least one address or network");
		a->addresses = calloc(json_array_size(v), sizeof(*a->addresses));
		if (!a->addresses)
			return -ENOMEM;
		json_array_foreach(v, i, e)
		{
			size_t o2 = cfg_push_idx(&x, i), len;

			if (!json_is_string(e))
				return cfg_perr(&x, "expected a string, found %s",
						cfg_type_name(e));
			len = json_string_length(e);
			if (!len || len > CFG_NET_MAX || memchr(json_string_value(e), 0, len))
				return cfg_perr(&x, "bad address or network");
			a->addresses[a->naddresses] = strndup(json_string_value(e), len);
			if (!a->addresses[a->naddresses])
				return -ENOMEM;
			a->naddresses++;
			cfg_pop(&x, o2);
		}
		cfg_pop(&x, old);
	}
	if ((v = json_object_get(o, "auth"))) {
		old = cfg_push_key(&x, "auth");
		rc = au_auth(&x, v, &a->auth);
		if (rc)
			return rc;
		cfg_pop(&x, old);
	}
	if (!a->initiator && !a->naddresses) {
		cfg_push_key(&x, "initiator");
		return cfg_perr(&x, "required field missing (an ACL names an initiator, "
				    "\"addresses\", or both)");
	}
	return 0;
}

int cfg_auth_parse_root(struct json_t *root, struct cfg *c, struct cfg_err *err)
{
	static const char *const fields[] = {"auth", "filter", NULL};
	struct cfg_pctx x = {.err = err};
	json_t *o = json_object_get(root, "discovery"), *v;
	size_t old;
	int rc;

	if (!o)
		return 0;
	cfg_push_key(&x, "discovery");
	if (!json_is_object(o))
		return cfg_perr(&x, "expected an object, found %s", cfg_type_name(o));
	rc = cfg_check_keys(&x, o, fields);
	if (rc)
		return rc;
	c->discovery = calloc(1, sizeof(*c->discovery));
	if (!c->discovery)
		return -ENOMEM;
	if ((v = json_object_get(o, "auth"))) {
		old = cfg_push_key(&x, "auth");
		rc = au_auth(&x, v, &c->discovery->auth);
		if (rc)
			return rc;
		cfg_pop(&x, old);
	}
	if ((v = json_object_get(o, "filter"))) {
		size_t k;

		cfg_push_key(&x, "filter");
		if (!json_is_string(v))
			return cfg_perr(&x, "expected a string, found %s", cfg_type_name(v));
		for (k = 0; k < ARRAY_SIZE(cfg_df_names); k++)
			if (!strcmp(json_string_value(v), cfg_df_names[k]))
				break;
		if (k == ARRAY_SIZE(cfg_df_names))
			return cfg_perr(&x,
					"unknown filter \"%.32s\" (none, portal, portal-name, "
					"portal-name-auth)",
					json_string_value(v));
		c->discovery->filter = (uint8_t)k;
		c->discovery->has_filter = true;
	}
	return 0;
}

/* ---- dump ---- */
static int au_put(json_t *o, const char *key, json_t *v)
{
	return (v && json_object_set_new(o, key, v) == 0) ? 0 : -1;
}

static json_t *au_dump_cred(const struct cfg_chap_cred *c)
{
	json_t *o = json_pack("{s:s, s:s}", "user", c->user, "secret", c->secret);

	if (o && c->allow_short && json_object_set_new(o, "allow_short", json_true())) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *au_dump_auth(const struct cfg_auth *a)
{
	json_t *o = json_object(), *chap = json_array(), *algs = NULL;
	int bad = !o || !chap;

	for (size_t i = 0; !bad && i < a->nchap; i++)
		bad |= json_array_append_new(chap, au_dump_cred(&a->chap[i]));
	bad |= au_put(o, "chap", chap);
	chap = NULL;
	if (!bad && a->mutual)
		bad |= au_put(o, "mutual", au_dump_cred(a->mutual));
	if (!bad && a->nalgs) {
		algs = json_array();
		bad |= !algs;
		for (size_t i = 0; !bad && i < a->nalgs; i++)
			bad |=
			    json_array_append_new(algs, json_string(cfg_chap_alg_name(a->algs[i])));
		bad |= au_put(o, "algorithms", algs);
	}
	json_decref(chap);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int cfg_auth_dump_target(struct json_t *o, const struct cfg_target *t)
{
	int bad = 0;

	if (t->auth)
		bad |= au_put(o, "auth", au_dump_auth(t->auth));
	if (t->limits) {
		json_t *l = json_object();

		bad |= !l;
		for (size_t i = 0; !bad && i < ARRAY_SIZE(cfg_limit_fields); i++) {
			uint32_t w;

			if (!(t->limits->set & (1u << i)))
				continue;
			memcpy(&w, (const char *)t->limits + cfg_limit_fields[i].off, sizeof(w));
			bad |= au_put(l, cfg_limit_fields[i].name, json_integer(w));
		}
		bad |= au_put(o, "limits", l);
	}
	return bad ? -1 : 0;
}

int cfg_auth_dump_acl(struct json_t *o, const struct cfg_acl *a)
{
	int bad = 0;

	if (a->naddresses) {
		json_t *arr = json_array();

		bad |= !arr;
		for (size_t i = 0; !bad && i < a->naddresses; i++)
			bad |= json_array_append_new(arr, json_string(a->addresses[i]));
		bad |= au_put(o, "addresses", arr);
	}
	if (!bad && a->auth)
		bad |= au_put(o, "auth", au_dump_auth(a->auth));
	return bad ? -1 : 0;
}

int cfg_auth_dump_root(struct json_t *root, const struct cfg *c)
{
	json_t *d;
	int bad = 0;

	if (!c->discovery)
		return 0;
	d = json_object();
	bad |= !d;
	if (!bad && c->discovery->auth)
		bad |= au_put(d, "auth", au_dump_auth(c->discovery->auth));
	if (!bad && c->discovery->has_filter)
		bad |= au_put(d, "filter", json_string(cfg_df_names[c->discovery->filter]));
	bad |= au_put(root, "discovery", d);
	return bad ? -1 : 0;
}

/* ---- free ---- */
static void au_cred_clear(struct cfg_chap_cred *c)
{
	free(c->user);
	if (c->secret)
		memset(c->secret, 0, strlen(c->secret));
	free(c->secret);
}

void cfg_auth_free(struct cfg_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nchap; i++)
		au_cred_clear(&a->chap[i]);
	free(a->chap);
	if (a->mutual)
		au_cred_clear(a->mutual);
	free(a->mutual);
	free(a);
}

void cfg_auth_clear_acl(struct cfg_acl *a)
{
	for (size_t i = 0; i < a->naddresses; i++)
		free(a->addresses[i]);
	free(a->addresses);
	cfg_auth_free(a->auth);
	a->addresses = NULL;
	a->naddresses = 0;
	a->auth = NULL;
}

void cfg_auth_clear_target(struct cfg_target *t)
{
	cfg_auth_free(t->auth);
	free(t->limits);
	t->auth = NULL;
	t->limits = NULL;
}

void cfg_auth_clear_root(struct cfg *c)
{
	if (c->discovery)
		cfg_auth_free(c->discovery->auth);
	free(c->discovery);
	c->discovery = NULL;
}

/* ---- verify ---- */
UT_PRINTF(4, 5)
static int au_verr(struct cfg_err *err, const char *base, const char *rel, const char *fmt, ...)
{
	char path[CFG_ERR_PATH_MAX];
	va_list ap;
	int rc;

	snprintf(path, sizeof(path), "%s%s", base, rel);
	va_start(ap, fmt);
	rc = cfg_err_vset(err, -EINVAL, path, fmt, ap);
	va_end(ap);
	return rc;
}

int cfg_net_parse(const char *s, struct cfg_net *out, const char **why)
{
	memset(out, 0, sizeof(*out));
	return cidr_parse(s, &out->family, out->addr, &out->prefix, why);
}

static bool au_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* RFC 7143 12.1.3: a secret of fewer than 96 bits is refused unless its
 * credential says "allow_short" (a legacy initiator's, kept on purpose). */
static int au_verify_length(const struct cfg_chap_cred *cr, const char *base, const char *rel,
			    struct cfg_err *err)
{
	size_t n = strlen(cr->secret);

	if (n >= CFG_CHAP_SECRET_MIN || cr->allow_short)
		return 0;
	return au_verr(err, base, rel,
		       "the secret of \"%s\" has %zu byte%s: CHAP secrets need at least %d "
		       "(RFC 7143 12.1.3: 96 random bits); to keep a shorter one, set "
		       "\"allow_short\": true beside it (utarget chap add|mutual --force)",
		       cr->user, n, n == 1 ? "" : "s", CFG_CHAP_SECRET_MIN);
}

static int au_verify_auth(const struct cfg_auth *a, const char *base, struct cfg_err *err)
{
	char rel[64];
	int rc;

	for (size_t i = 0; i < a->nchap; i++) {
		snprintf(rel, sizeof(rel), ".chap[%zu].user", i);
		if (!au_printable(a->chap[i].user))
			return au_verr(err, base, rel, "control characters are not allowed");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(a->chap[j].user, a->chap[i].user))
				return au_verr(err, base, rel, "user \"%s\" is already chap[%zu]",
					       a->chap[i].user, j);
		snprintf(rel, sizeof(rel), ".chap[%zu].secret", i);
		if ((rc = au_verify_length(&a->chap[i], base, rel, err)))
			return rc;
	}
	if (a->mutual && !au_printable(a->mutual->user))
		return au_verr(err, base, ".mutual.user", "control characters are not allowed");
	if (a->mutual && (rc = au_verify_length(a->mutual, base, ".mutual.secret", err)))
		return rc;
	return 0;
}

int cfg_auth_validate_acl(const struct cfg_acl *a, const char *base, struct cfg_err *err)
{
	char rel[64];
	const char *why;
	struct cfg_net n;

	for (size_t i = 0; i < a->naddresses; i++) {
		snprintf(rel, sizeof(rel), ".addresses[%zu]", i);
		if (cfg_net_parse(a->addresses[i], &n, &why))
			return au_verr(err, base, rel, "bad address or network \"%s\": %s",
				       a->addresses[i], why);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(a->addresses[j], a->addresses[i]))
				return au_verr(err, base, rel, "listed twice");
	}
	if (a->auth) {
		char p[CFG_ERR_PATH_MAX];

		snprintf(p, sizeof(p), "%s.auth", base);
		return au_verify_auth(a->auth, p, err);
	}
	return 0;
}

int cfg_auth_validate_target(const struct cfg_target *t, size_t ti, struct cfg_err *err)
{
	char base[CFG_ERR_PATH_MAX];
	struct hmap nets = HMAP_INIT;
	int rc = 0;

	if (t->auth) {
		snprintf(base, sizeof(base), "targets[%zu].auth", ti);
		rc = au_verify_auth(t->auth, base, err);
	}
	/* address-only ACLs: a network in one of them only (the most specific
	 * one decides, so two equal ones would be ambiguous) */
	for (size_t a = 0; !rc && a < t->nacls; a++) {
		const struct cfg_acl *acl = &t->acls[a];

		if (acl->initiator)
			continue;
		for (size_t i = 0; !rc && i < acl->naddresses; i++) {
			struct cfg_net n;
			const char *why;
			uintptr_t j;

			if (cfg_net_parse(acl->addresses[i], &n, &why))
				continue; /* cfg_auth_validate_acl reports it */
			if (hmap_get(&nets, &n, sizeof(n), &j)) {
				snprintf(base, sizeof(base), "targets[%zu].acls[%zu]", ti, a);
				rc = au_verr(err, base, "", "network %s is already in acls[%zu]",
					     acl->addresses[i], (size_t)j);
			} else if (hmap_put(&nets, &n, sizeof(n), a)) {
				rc = -ENOMEM;
			}
		}
	}
	hmap_clear(&nets);
	if (rc == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	return rc;
}

/* Every "auth" of the file, with its path. */
static void au_each(const struct cfg *c,
		    void (*fn)(void *arg, const struct cfg_auth *a, const char *path), void *arg)
{
	char p[CFG_ERR_PATH_MAX];

	if (c->discovery && c->discovery->auth)
		fn(arg, c->discovery->auth, "discovery.auth");
	for (size_t t = 0; t < c->ntargets; t++) {
		const struct cfg_target *tg = &c->targets[t];

		if (tg->auth) {
			snprintf(p, sizeof(p), "targets[%zu].auth", t);
			fn(arg, tg->auth, p);
		}
		for (size_t a = 0; a < tg->nacls; a++) {
			if (!tg->acls[a].auth)
				continue;
			snprintf(p, sizeof(p), "targets[%zu].acls[%zu].auth", t, a);
			fn(arg, tg->acls[a].auth, p);
		}
	}
}

struct au_secrets {
	struct hmap initiator; /* secret -> 1: used to authenticate an initiator */
	int rc;
	struct cfg_err *err;
};

static void au_collect(void *arg, const struct cfg_auth *a, const char *path)
{
	struct au_secrets *s = arg;

	for (size_t i = 0; i < a->nchap && !s->rc; i++)
		if (hmap_put(&s->initiator, a->chap[i].secret, strlen(a->chap[i].secret), 1))
			s->rc = -ENOMEM;
}

static void au_check_mutual(void *arg, const struct cfg_auth *a, const char *path)
{
	struct au_secrets *s = arg;
	uintptr_t v;

	if (s->rc || !a->mutual)
		return;
	/* RFC 7143 12.1.3: "Any CHAP secret used for initiator authentication
	 * MUST NOT be configured for authentication of any target" */
	if (hmap_get(&s->initiator, a->mutual->secret, strlen(a->mutual->secret), &v))
		s->rc = au_verr(s->err, path, ".mutual.secret",
				"the target's secret equals an initiator's secret (RFC 7143 "
				"12.1.3: each direction needs its own secret)");
}

int cfg_auth_validate(const struct cfg *c, struct cfg_err *err)
{
	struct au_secrets s = {.initiator = HMAP_INIT, .err = err};

	if (c->discovery && c->discovery->auth) {
		int rc = au_verify_auth(c->discovery->auth, "discovery.auth", err);

		if (rc)
			return rc;
	}
	au_each(c, au_collect, &s);
	if (!s.rc)
		au_each(c, au_check_mutual, &s);
	hmap_clear(&s.initiator);
	if (s.rc == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	return s.rc;
}

/* ---- warnings ---- */
static void au_warn_lengths(void *arg, const struct cfg_auth *a, const char *path)
{
	for (size_t i = 0; i <= a->nchap; i++) {
		const struct cfg_chap_cred *cr = i < a->nchap ? &a->chap[i] : a->mutual;
		size_t n;

		if (!cr)
			continue;
		n = strlen(cr->secret);
		/* RFC 7143 12.1.3 wants at least 96 random bits (shorter ones
		 * need allow_short); Microsoft's initiator takes 12 to 16 bytes */
		if (n < CFG_CHAP_SECRET_MIN || n > CFG_CHAP_SECRET_MS_MAX)
			log_warn("config: %s: the CHAP secret of \"%s\" has %zu bytes: initiators "
				 "such as Microsoft's accept %d to %d%s",
				 path, cr->user, n, CFG_CHAP_SECRET_MIN, CFG_CHAP_SECRET_MS_MAX,
				 n < CFG_CHAP_SECRET_MIN
				     ? " (and fewer than 12 random bytes is weak: RFC 7143 "
				       "12.1.3; allowed by allow_short)"
				     : "");
	}
}

void cfg_auth_warn(const struct cfg *c)
{
	au_each(c, au_warn_lengths, NULL);
}

static void au_any(void *arg, const struct cfg_auth *a, const char *path)
{
	*(bool *)arg = true;
}

bool cfg_has_secrets(const struct cfg *c)
{
	bool any = false;

	au_each(c, au_any, &any);
	return any;
}

void cfg_auth_check_file_mode(const char *file, const struct cfg *c)
{
	struct stat st;

	if (!cfg_has_secrets(c) || stat(file, &st) || !(st.st_mode & 077))
		return;
	log_warn("config: %s holds CHAP secrets and is readable by %s (mode %03o): chmod 600 %s",
		 file, (st.st_mode & 007) ? "everyone" : "its group", (unsigned)(st.st_mode & 0777),
		 file);
}
