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
 * it ("secret" is required). */
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
