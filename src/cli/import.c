/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import.c: what the tgt and LIO importers share: the report, back-store
 * naming, and the final check of the document by the config layer. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/import.h"
#include "lib/iname.h"
#include "config/config.h"

void imp_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void imp_result_init(struct imp_result *r)
{
	*r = (struct imp_result){0};
	r->config = json_object();
	if (r->config)
		json_object_set_new(r->config, "version", json_integer(CFG_VERSION));
}

void imp_result_free(struct imp_result *r)
{
	for (size_t i = 0; i < r->report.n; i++) {
		free(r->report.v[i].where);
		free(r->report.v[i].what);
	}
	free(r->report.v);
	json_decref(r->config);
	json_decref(r->seen);
	*r = (struct imp_result){0};
}

void imp_report(struct imp_result *r, enum imp_level level, const char *where, const char *fmt, ...)
{
	struct imp_report *rep = &r->report;
	char buf[1024], key[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* one entry per distinct item: a target-level directive applies to
	 * each LUN but is reported once */
	snprintf(key, sizeof(key), "%d|%s|%s", (int)level, where ? where : "", buf);
	if (!r->seen)
		r->seen = json_object();
	if (r->seen && json_object_get(r->seen, key))
		return;
	if (r->seen)
		json_object_set_new(r->seen, key, json_true());
	if (level == IMP_DROPPED)
		r->ndropped++;
	if (rep->n == rep->cap) {
		size_t cap = rep->cap ? rep->cap * 2 : 16;
		struct imp_item *v = realloc(rep->v, cap * sizeof(*v));
		if (!v)
			return; /* the count above still says something was dropped */
		rep->v = v;
		rep->cap = cap;
	}
	rep->v[rep->n] = (struct imp_item){
	    .level = level,
	    .where = strdup(where ? where : ""),
	    .what = strdup(buf),
	};
	if (!rep->v[rep->n].where || !rep->v[rep->n].what) {
		free(rep->v[rep->n].where);
		free(rep->v[rep->n].what);
		return;
	}
	rep->n++;
}

void imp_report_print(const struct imp_result *r, FILE *f)
{
	for (size_t i = 0; i < r->report.n; i++) {
		const struct imp_item *it = &r->report.v[i];
		fprintf(f, "%s: %s%s%s\n", it->level == IMP_DROPPED ? "dropped" : "note", it->where,
			it->where[0] ? ": " : "", it->what);
	}
}

int imp_finish(const struct imp_result *r, char **text, struct cfg_err *err)
{
	struct cfg_iscsi_settings defaults;
	struct cfg *c = NULL;
	char *doc;
	int rc;

	*text = NULL;
	*err = (struct cfg_err){0};
	doc = json_dumps(r->config, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!doc)
		return -ENOMEM;
	cfg_iscsi_defaults(&defaults);
	rc = cfg_parse(doc, strlen(doc), &defaults, &c, err);
	if (rc == 0) {
		rc = cfg_validate(c, err);
		if (rc)
			err->line = cfg_locate_line(doc, strlen(doc), err->path);
	}
	free(doc);
	if (rc == 0) {
		*text = cfg_dump(c);
		if (!*text)
			rc = -ENOMEM;
	}
	cfg_free(c);
	return rc;
}

json_t *imp_find_backstore(const struct imp_result *r, const char *name)
{
	json_t *arr = json_object_get(r->config, "backstores"), *b;
	size_t i;

	json_array_foreach(arr, i, b)
	{
		const char *n = json_string_value(json_object_get(b, "name"));
		if (n && strcmp(n, name) == 0)
			return b;
	}
	return NULL;
}

static bool imp_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '-';
}

void imp_backstore_name(const struct imp_result *r, const char *hint, char *buf, size_t size)
{
	char base[CFG_BS_NAME_MAX + 1];
	size_t n = 0;

	for (const char *p = hint; *p && n < CFG_BS_NAME_MAX - 8; p++)
		base[n++] = imp_name_char(*p) ? *p : '_';
	if (n == 0)
		base[n++] = 'd';
	base[n] = '\0';
	snprintf(buf, size, "%s", base);
	for (unsigned k = 2; imp_find_backstore(r, buf); k++)
		snprintf(buf, size, "%s-%u", base, k);
}

int imp_append(json_t *obj, const char *key, json_t *v)
{
	json_t *arr = json_object_get(obj, key);

	if (!v)
		return -ENOMEM;
	if (!arr) {
		arr = json_array();
		if (!arr || json_object_set_new(obj, key, arr)) {
			json_decref(v);
			return -ENOMEM;
		}
	}
	return json_array_append_new(arr, v) ? -ENOMEM : 0;
}

int imp_read_file(const char *file, char **text, size_t *len)
{
	return cfg_read_file(file, CFG_FILE_MAX, text, len);
}

bool imp_iscsi_name(const char *in, char *out, size_t size, const char **why)
{
	char norm[INAME_MAX + 1];
	int n;

	/* RFC 3722: names compare in normalized form; utarget keeps that
	 * form (lib/iname.h) */
	n = iname_normalize(in, strlen(in), norm, why);
	if (n < 0)
		return false;
	if ((size_t)n >= size) {
		*why = "longer than 223 bytes";
		return false;
	}
	memcpy(out, norm, (size_t)n + 1);
	return cfg_iscsi_name_valid(out, why);
}

/* One credential, checked as the config layer will (auth.c): user and
 * secret 1..255 bytes, no control characters in the user. */
static bool imp_cred_ok(struct imp_result *r, const struct imp_chap *c, const char *what)
{
	if (!c->user || !c->user[0] || !c->secret || !c->secret[0]) {
		imp_report(r, IMP_DROPPED, c->where, "%s %s: without a user or a secret", what,
			   c->user ? c->user : "(none)");
		return false;
	}
	if (strlen(c->user) > CFG_CHAP_USER_MAX || strlen(c->secret) > CFG_CHAP_SECRET_MAX) {
		imp_report(r, IMP_DROPPED, c->where, "%s %s: user or secret longer than %d bytes",
			   what, c->user, CFG_CHAP_SECRET_MAX);
		return false;
	}
	for (const char *p = c->user; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			imp_report(r, IMP_DROPPED, c->where, "%s: control characters in the user",
				   what);
			return false;
		}
	}
	return true;
}

/* An "auth" object ({chap, mutual}) from credentials, or NULL when none
 * carries over (reported). */
static json_t *imp_auth_obj(struct imp_result *r, const struct imp_chap *chap, size_t nchap,
			    const struct imp_chap *mutual, const char *what)
{
	json_t *auth, *arr = json_array();
	char mwhat[64];

	if (!arr)
		return NULL;
	for (size_t i = 0; i < nchap; i++) {
		bool dup = false;
		size_t k;
		json_t *e;

		if (!imp_cred_ok(r, &chap[i], what))
			continue;
		json_array_foreach(arr, k, e)
		{
			dup |= strcmp(json_string_value(json_object_get(e, "user")),
				      chap[i].user) == 0;
		}
		if (dup) {
			imp_report(r, IMP_DROPPED, chap[i].where,
				   "%s %s: the same user twice; the first applies", what,
				   chap[i].user);
			continue;
		}
		json_array_append_new(
		    arr, json_pack("{s:s, s:s}", "user", chap[i].user, "secret", chap[i].secret));
	}
	snprintf(mwhat, sizeof(mwhat), "mutual %s", what);
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		if (mutual)
			imp_report(r, IMP_DROPPED, mutual->where,
				   "%s %s: mutual CHAP needs the initiator's credentials too",
				   mwhat, mutual->user ? mutual->user : "(none)");
		return NULL;
	}
	auth = json_pack("{s:o}", "chap", arr);
	if (auth && mutual && imp_cred_ok(r, mutual, mwhat))
		json_object_set_new(
		    auth, "mutual",
		    json_pack("{s:s, s:s}", "user", mutual->user, "secret", mutual->secret));
	return auth;
}

int imp_chap(struct imp_result *r, json_t *obj, bool is_acl, const struct imp_chap *chap,
	     size_t nchap, const struct imp_chap *mutual)
{
	json_t *auth = imp_auth_obj(r, chap, is_acl && nchap > 1 ? 1 : nchap, mutual, "CHAP user");

	if (!auth)
		return 0;
	return json_object_set_new(obj, "auth", auth) ? -ENOMEM : 0;
}

/* An address or network of tgt's initiator-address, as the config reads
 * it. */
static bool imp_net_ok(const char *s, const char **why)
{
	struct cfg_net n;

	if (strlen(s) > CFG_NET_MAX) {
		*why = "too long";
		return false;
	}
	return cfg_net_parse(s, &n, why) == 0;
}

int imp_access(struct imp_result *r, json_t *t, const char *where, const struct imp_access *a)
{
	json_t *addrs = NULL;
	int rc = 0;

	if (a->nnames == 0 && a->any_address) {
		imp_report(r, IMP_NOTE, where,
			   "no initiator-name or initiator-address: any initiator may log in, "
			   "read-write (imported as demo_mode enabled)");
		if (json_object_set_new(t, "demo_mode",
					json_pack("{s:b, s:b}", "enabled", 1, "read_only", 0)))
			return -ENOMEM;
	}
	/* tgt admits an initiator whose name is listed (when any is) AND whose
	 * address is listed (unless "ALL" or none): ACLs with both */
	if (!a->any_address) {
		addrs = json_array();
		if (!addrs)
			return -ENOMEM;
		for (size_t i = 0; i < a->naddrs; i++) {
			const char *why;
			bool dup = false;
			size_t k;
			json_t *e;

			if (!imp_net_ok(a->addrs[i], &why)) {
				imp_report(r, IMP_DROPPED, a->addrs_where[i],
					   "initiator-address %s: %s", a->addrs[i], why);
				continue;
			}
			json_array_foreach(addrs, k, e)
			{
				dup |= strcmp(json_string_value(e), a->addrs[i]) == 0;
			}
			if (!dup)
				json_array_append_new(addrs, json_string(a->addrs[i]));
		}
		if (json_array_size(addrs) == 0) {
			imp_report(r, IMP_DROPPED, where,
				   "no initiator-address carries over: no initiator may log in");
			json_decref(addrs);
			return 0;
		}
	}
	if (a->nnames == 0 && addrs)
		rc = imp_append(t, "acls", json_pack("{s:O}", "addresses", addrs));
	for (size_t i = 0; i < a->nnames && rc == 0; i++) {
		char name[CFG_ISCSI_NAME_MAX + 1];
		const char *why;
		bool dup = false;
		json_t *acls = json_object_get(t, "acls"), *e, *acl;
		size_t k;

		if (!imp_iscsi_name(a->names[i], name, sizeof(name), &why)) {
			imp_report(r, IMP_DROPPED, a->names_where[i], "initiator-name %s: %s",
				   a->names[i], why);
			continue;
		}
		if (strcmp(name, a->names[i]) != 0)
			imp_report(r, IMP_NOTE, a->names_where[i],
				   "initiator-name %s: written in lowercase (RFC 3722)",
				   a->names[i]);
		json_array_foreach(acls, k, e)
		{
			dup |=
			    strcmp(json_string_value(json_object_get(e, "initiator")), name) == 0;
		}
		if (dup)
			continue;
		acl = json_pack("{s:s}", "initiator", name);
		if (acl && addrs)
			json_object_set(acl, "addresses", addrs);
		rc = imp_append(t, "acls", acl);
	}
	json_decref(addrs);
	if (rc == 0)
		rc = imp_chap(r, t, false, a->chap, a->nchap, a->has_mutual ? &a->mutual : NULL);
	if (rc == 0 && (a->nchap || a->nchap_asked) && !json_object_get(t, "auth")) {
		/* CHAP was asked for and none of it carries over: admitting
		 * initiators without it would widen access */
		imp_report(r, IMP_DROPPED, where,
			   "no incominguser carries over: CHAP cannot be required, so no "
			   "initiator may log in");
		json_object_del(t, "acls");
		json_object_del(t, "demo_mode");
	}
	return rc;
}

int imp_discovery_auth(struct imp_result *r, const struct imp_access *a)
{
	json_t *auth = imp_auth_obj(r, a->chap, a->nchap, a->has_mutual ? &a->mutual : NULL,
				    "discovery CHAP user");

	if (!auth)
		return 0;
	return json_object_set_new(r->config, "discovery", json_pack("{s:o}", "auth", auth))
		   ? -ENOMEM
		   : 0;
}

/* RFC 7143 12.1.3: a secret that authenticates initiators must not
 * authenticate the target (the config refuses it, file-wide): such a
 * mutual credential is dropped. */
static void imp_secrets_collect(json_t *auth, json_t *set)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(auth, "chap"), i, e)
	{
		json_object_set_new(set, json_string_value(json_object_get(e, "secret")),
				    json_true());
	}
}

/* RFC 7143 12.1.3 wants 96 random bits: utarget refuses a shorter secret
 * unless its credential says "allow_short". The other target took it, so
 * it is carried over (initiators keep working) with that flag, and said. */
static void imp_secret_short(struct imp_result *r, json_t *cred, const char *what,
			     const char *where)
{
	const char *s = json_string_value(json_object_get(cred, "secret"));

	if (!s || strlen(s) >= CFG_CHAP_SECRET_MIN)
		return;
	json_object_set_new(cred, "allow_short", json_true());
	imp_report(r, IMP_NOTE, where,
		   "%s %s: a secret of %zu bytes, shorter than the %d RFC 7143 12.1.3 asks for: "
		   "imported with \"allow_short\" (change it: utarget chap add)",
		   what, json_string_value(json_object_get(cred, "user")) ?: "?", strlen(s),
		   CFG_CHAP_SECRET_MIN);
}

static void imp_secrets_check(struct imp_result *r, json_t *auth, json_t *set, const char *where)
{
	json_t *m = json_object_get(auth, "mutual"), *e;
	const char *s = json_string_value(json_object_get(m, "secret"));
	size_t i;

	json_array_foreach(json_object_get(auth, "chap"), i, e)
	{
		imp_secret_short(r, e, "CHAP user", where);
	}
	if (m && (!s || !json_object_get(set, s)))
		imp_secret_short(r, m, "mutual CHAP user", where);
	if (!s || !json_object_get(set, s))
		return;
	imp_report(r, IMP_DROPPED, where,
		   "mutual CHAP user %s: its secret is also an initiator's secret; RFC 7143 "
		   "12.1.3 wants one secret per direction",
		   json_string_value(json_object_get(m, "user")));
	json_object_del(auth, "mutual");
}

void imp_check_secrets(struct imp_result *r)
{
	json_t *set = json_object(), *t, *acl;
	size_t i, k;
	char where[IMP_WHERE_MAX];

	if (!set)
		return;
	imp_secrets_collect(json_object_get(json_object_get(r->config, "discovery"), "auth"), set);
	json_array_foreach(json_object_get(r->config, "targets"), i, t)
	{
		imp_secrets_collect(json_object_get(t, "auth"), set);
		json_array_foreach(json_object_get(t, "acls"), k, acl)
		{
			imp_secrets_collect(json_object_get(acl, "auth"), set);
		}
	}
	imp_secrets_check(r, json_object_get(json_object_get(r->config, "discovery"), "auth"), set,
			  "discovery");
	json_array_foreach(json_object_get(r->config, "targets"), i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		imp_fmt(where, sizeof(where), "target %s", name);
		imp_secrets_check(r, json_object_get(t, "auth"), set, where);
		json_array_foreach(json_object_get(t, "acls"), k, acl)
		{
			imp_fmt(where, sizeof(where), "target %s, ACL %s", name,
				json_string_value(json_object_get(acl, "initiator"))
				    ?: "(addresses)");
			imp_secrets_check(r, json_object_get(acl, "auth"), set, where);
		}
	}
	json_decref(set);
}

/* ---- the global "iscsi" section from per-target negotiation keys ---- */
enum imp_pkind { IMP_P_UINT, IMP_P_BOOL, IMP_P_DIGEST, IMP_P_ONLY };

struct imp_param {
	const char *key;     /* the RFC 7143 key */
	const char *field;   /* utarget's "iscsi" field; NULL: none */
	enum imp_pkind kind; /* IMP_P_ONLY: only `only` carries over */
	unsigned long min, max;
	const char *only; /* the one value utarget implements */
	const char *why;  /* why other values do not carry over */
};

static const struct imp_param imp_params[] = {
    {.key = "MaxRecvDataSegmentLength",
     .field = "max_recv_data_segment_length",
     .kind = IMP_P_UINT,
     .min = 512,
     .max = 16777215},
    {.key = "MaxBurstLength",
     .field = "max_burst_length",
     .kind = IMP_P_UINT,
     .min = 512,
     .max = 16777215},
    {.key = "FirstBurstLength",
     .field = "first_burst_length",
     .kind = IMP_P_UINT,
     .min = 512,
     .max = 16777215},
    {.key = "MaxOutstandingR2T",
     .field = "max_outstanding_r2t",
     .kind = IMP_P_UINT,
     .min = 1,
     .max = 16},
    {.key = "DefaultTime2Wait",
     .field = "default_time2wait",
     .kind = IMP_P_UINT,
     .min = 0,
     .max = 3600},
    {.key = "DefaultTime2Retain",
     .field = "default_time2retain",
     .kind = IMP_P_UINT,
     .min = 0,
     .max = 3600},
    {.key = "InitialR2T", .field = "initial_r2t", .kind = IMP_P_BOOL},
    {.key = "ImmediateData", .field = "immediate_data", .kind = IMP_P_BOOL},
    {.key = "HeaderDigest", .field = "header_digest", .kind = IMP_P_DIGEST},
    {.key = "DataDigest", .field = "data_digest", .kind = IMP_P_DIGEST},
    {.key = "MaxConnections",
     .kind = IMP_P_ONLY,
     .only = "1",
     .why = "utarget offers one connection per session"},
    {.key = "ErrorRecoveryLevel",
     .kind = IMP_P_ONLY,
     .only = "0",
     .why = "utarget implements error recovery level 0"},
    {.key = "IFMarker", .kind = IMP_P_ONLY, .only = "No", .why = "markers are not supported"},
    {.key = "OFMarker", .kind = IMP_P_ONLY, .only = "No", .why = "markers are not supported"},
    {.key = "IFMarkInt", .kind = IMP_P_ONLY, .only = "Reject", .why = "markers are not supported"},
    {.key = "OFMarkInt", .kind = IMP_P_ONLY, .only = "Reject", .why = "markers are not supported"},
    {.key = "DataPDUInOrder",
     .kind = IMP_P_ONLY,
     .only = "Yes",
     .why = "utarget sends data in order (DataPDUInOrder=Yes)"},
    {.key = "DataSequenceInOrder",
     .kind = IMP_P_ONLY,
     .only = "Yes",
     .why = "utarget sends data in order (DataSequenceInOrder=Yes)"},
    {.key = "MaxXmitDataSegmentLength",
     .kind = IMP_P_ONLY,
     .only = NULL,
     .why = "utarget sends data segments up to the initiator's MaxRecvDataSegmentLength"},
    {.key = "state",
     .kind = IMP_P_ONLY,
     .only = "ready",
     .why = "a target that is not ready (offline) is not supported"},
};

static const struct imp_param *imp_param_find(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(imp_params); i++)
		if (strcmp(imp_params[i].key, key) == 0)
			return &imp_params[i];
	return NULL;
}

/* Set field of the global "iscsi" section; the first value set wins, a
 * different later one is reported. seen: field -> where it was set. */
int imp_iscsi_setting(struct imp_result *r, json_t *seen, const char *field, json_t *v,
		      const char *where, const char *key)
{
	json_t *iscsi = json_object_get(r->config, "iscsi");
	json_t *old;

	if (!v)
		return -ENOMEM;
	if (!iscsi) {
		iscsi = json_object();
		if (!iscsi || json_object_set_new(r->config, "iscsi", iscsi)) {
			json_decref(v);
			return -ENOMEM;
		}
	}
	old = json_object_get(iscsi, field);
	if (old && !json_equal(old, v)) {
		imp_report(r, IMP_DROPPED, where,
			   "%s: differs from the value set at %s; utarget's iSCSI settings apply "
			   "to all targets: the first value is kept",
			   key, json_string_value(json_object_get(seen, field)));
		json_decref(v);
		return 0;
	}
	if (!old) {
		imp_report(r, IMP_NOTE, where,
			   "%s: set for every target (utarget's iSCSI settings are global)", key);
		json_object_set_new(seen, field, json_string(where));
	}
	return json_object_set_new(iscsi, field, v) ? -ENOMEM : 0;
}

bool imp_iscsi_param_known(const char *key)
{
	return imp_param_find(key) != NULL;
}

int imp_iscsi_param(struct imp_result *r, json_t *seen, const char *key, const char *v,
		    const char *where)
{
	const struct imp_param *p = imp_param_find(key);
	unsigned long u;
	char *end;

	if (!p)
		return 0;
	switch (p->kind) {
	case IMP_P_UINT:
		errno = 0;
		u = (v[0] >= '0' && v[0] <= '9') ? strtoul(v, &end, 10) : 0;
		if (v[0] < '0' || v[0] > '9' || errno || *end || u < p->min || u > p->max) {
			imp_report(r, IMP_DROPPED, where, "%s %s: utarget accepts %lu..%lu", p->key,
				   v, p->min, p->max);
			return 0;
		}
		return imp_iscsi_setting(r, seen, p->field, json_integer((json_int_t)u), where,
					 p->key);
	case IMP_P_BOOL:
		if (strcasecmp(v, "Yes") != 0 && strcasecmp(v, "No") != 0) {
			imp_report(r, IMP_DROPPED, where, "%s %s: not Yes or No", p->key, v);
			return 0;
		}
		return imp_iscsi_setting(r, seen, p->field, json_boolean(strcasecmp(v, "Yes") == 0),
					 where, p->key);
	case IMP_P_DIGEST: {
		/* "None", "CRC32C", or a list: utarget accepts CRC32C when the
		 * initiator asks (true) or never (false) */
		bool crc = strcasestr(v, "CRC32C") != NULL;
		bool none = strcasestr(v, "None") != NULL;
		if (!crc && !none) {
			imp_report(r, IMP_DROPPED, where, "%s %s: not CRC32C or None", p->key, v);
			return 0;
		}
		if (crc && !none)
			imp_report(r, IMP_NOTE, where,
				   "%s %s: utarget accepts CRC32C when the initiator offers it "
				   "but does not require it",
				   p->key, v);
		return imp_iscsi_setting(r, seen, p->field, json_boolean(crc), where, p->key);
	}
	case IMP_P_ONLY:
		if (p->only && strcasecmp(v, p->only) == 0)
			return 0; /* what utarget does anyway */
		imp_report(r, IMP_DROPPED, where, "%s %s: %s", p->key, v, p->why);
		return 0;
	}
	return 0;
}
