/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redact.c: CHAP secrets leave the daemon through one method only.
 *
 * config.get (utarget config show) returns the configuration as a config
 * file, secrets included: it is the backup an administrator restores. Every
 * other answer (target.get/list, acl.list, settings.get, the object a change
 * returns, ...) carries each CHAP credential of an "auth" object as
 * {"user": U, "redacted": true}, without "secret".
 *
 * So that a read-modify-write of "auth" (utarget chap add/delete reads the
 * credentials, edits the list and writes it back) needs no secret, a change
 * that carries a credential without "secret" keeps the secret the same user
 * has now in the object it changes (user names compared byte for byte); a
 * user that has none there stays without one and the config's rules refuse
 * it ("secret" is required).
 *
 * The same holds for the CHAP secret an iscsi back-store's "url" carries
 * (iscsi://user%secret@host/...): answers show it as URL_REDACTED, and a
 * change whose url still holds URL_REDACTED gets the current url's secret
 * back when the rest of the url is the same. */
#include <stdio.h>
#include <string.h>

#include "rpc/rpc.h"

static void redact_cred(json_t *cred)
{
	if (json_is_object(cred) && json_object_get(cred, "secret")) {
		json_object_del(cred, "secret");
		json_object_set_new(cred, "redacted", json_true());
	}
}

static void redact_auth(json_t *auth)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(auth, "chap"), i, e) redact_cred(e);
	redact_cred(json_object_get(auth, "mutual"));
}

#define URL_REDACTED "(redacted)"

/* The span of the secret in an iscsi:// url: *at is the '@' that ends it,
 * the return value the '%' before it; NULL: no secret. */
static const char *url_secret(const char *url, const char **at)
{
	const char *host = strncmp(url, "iscsi://", 8) == 0 ? url + 8 : NULL, *pct;

	if (!host || !(*at = strchr(host, '@')))
		return NULL;
	pct = memchr(host, '%', (size_t)(*at - host));
	return pct;
}

static void redact_url(json_t *o)
{
	const char *url = json_string_value(json_object_get(o, "url")), *at, *pct;
	char buf[2048];

	if (!url || !(pct = url_secret(url, &at)))
		return;
	snprintf(buf, sizeof(buf), "%.*s%%" URL_REDACTED "%s", (int)(pct - url), url, at);
	json_object_set_new(o, "url", json_string(buf));
}

/* in's url as redact_url() shows cur's: cur's url */
static void unredact_url(json_t *in, json_t *cur)
{
	const char *url = json_string_value(json_object_get(in, "url"));
	json_t *have = json_object_get(cur, "url");
	json_t *shown;

	if (!url || !strstr(url, "%" URL_REDACTED "@") || !json_is_string(have))
		return;
	shown = json_pack("{s:O}", "url", have);
	if (!shown)
		return;
	redact_url(shown);
	if (strcmp(json_string_value(json_object_get(shown, "url")), url) == 0)
		json_object_set(in, "url", have);
	json_decref(shown);
}

void rpc_redact(json_t *v)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, e) rpc_redact(e);
		return;
	}
	json_object_foreach(v, key, e)
	{
		if (strcmp(key, "auth") == 0 && json_is_object(e))
			redact_auth(e);
		else
			rpc_redact(e);
	}
	if (json_is_object(v))
		redact_url(v);
}

/* The credential of user in the current auth (its mutual one for a mutual
 * credential, else one of its chap list); NULL if none. */
static json_t *cur_cred(json_t *cur, const char *user, bool mutual)
{
	json_t *e;
	size_t i;

	if (mutual) {
		e = json_object_get(cur, "mutual");
		return json_is_string(json_object_get(e, "user")) &&
			       strcmp(json_string_value(json_object_get(e, "user")), user) == 0
			   ? e
			   : NULL;
	}
	json_array_foreach(json_object_get(cur, "chap"), i, e)
	{
		const char *u = json_string_value(json_object_get(e, "user"));

		if (u && strcmp(u, user) == 0)
			return e;
	}
	return NULL;
}

static void unredact_cred(json_t *cred, json_t *cur, bool mutual)
{
	const char *user = json_string_value(json_object_get(cred, "user"));
	json_t *have;

	if (!json_is_object(cred))
		return;
	json_object_del(cred, "redacted");
	if (json_object_get(cred, "secret") || !user || !(have = cur_cred(cur, user, mutual)))
		return;
	if (json_object_get(have, "secret"))
		json_object_set(cred, "secret", json_object_get(have, "secret"));
	if (!json_object_get(cred, "allow_short") && json_object_get(have, "allow_short"))
		json_object_set(cred, "allow_short", json_object_get(have, "allow_short"));
}

void rpc_unredact(json_t *in, json_t *cur)
{
	const char *key;
	json_t *e, *cred;
	size_t i;

	unredact_url(in, cur);
	json_object_foreach(in, key, e)
	{
		json_t *c = json_object_get(cur, key);

		if (strcmp(key, "auth") == 0 && json_is_object(e)) {
			json_array_foreach(json_object_get(e, "chap"), i, cred)
			    unredact_cred(cred, c, false);
			unredact_cred(json_object_get(e, "mutual"), c, true);
		} else if (json_is_object(e) && json_is_object(c)) {
			rpc_unredact(e, c);
		}
	}
}
