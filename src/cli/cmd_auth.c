/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_auth.c: utarget chap ...: the CHAP credentials ("auth" objects of the
 * config: docs/config.md) of a target, of one ACL (--initiator) or of
 * discovery sessions (--discovery), edited one credential at a time.
 *
 * Each command reads the object's current "auth" (target.get, acl.list,
 * settings.get), changes it and writes it back with the object's set
 * method (target.set, acl.set, settings.set): the daemon checks the result
 * with the config rules (RFC 7143 12.1.3: unique users, a target secret
 * different from every initiator secret) before anything changes.
 * A SECRET of "-" is read from standard input (one line), so that it does
 * not appear in the process list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "config/model.h"

enum { AU_O_INITIATOR, AU_O_DISCOVERY, AU_O_FORCE };

/* A credential {user, secret}: with --force, a secret shorter than RFC
 * 7143 12.1.3's 96 bits is kept on purpose ("allow_short"; the daemon
 * refuses it otherwise). */
static json_t *au_cred(const struct cli_args *a, const char *user, const char *secret)
{
	json_t *o = json_pack("{s:s, s:s}", "user", user, "secret", secret);

	if (o && a->set[AU_O_FORCE] && strlen(secret) < CFG_CHAP_SECRET_MIN)
		json_object_set_new(o, "allow_short", json_true());
	return o;
}

/* Remove member key of auth. A target's or an ACL's "auth" is merged
 * member by member into the current one (target.set, acl.set: docs/rpc.md),
 * so a member left out would stay: it is written null. Discovery's is
 * replaced as a whole (settings.set merges "discovery" one level up). */
static void au_remove(const struct cli_args *a, json_t *auth, const char *key)
{
	if (a->set[AU_O_DISCOVERY])
		json_object_del(auth, key);
	else
		json_object_set_new(auth, key, json_null());
}

/* After a secret was taken: one it may not suit. */
static void au_warn_long(struct cli *c, const char *secret)
{
	size_t n = strlen(secret);

	if (n > CFG_CHAP_SECRET_MS_MAX && !c->quiet)
		fprintf(c->err,
			"utarget: warning: the secret has %zu bytes: Microsoft's initiator "
			"accepts %d to %d only\n",
			n, CFG_CHAP_SECRET_MIN, CFG_CHAP_SECRET_MS_MAX);
}

/* The key the API names an ACL by: its initiator, or "@" and its networks
 * (config/index.c cfg_acl_key). */
static void au_acl_key(json_t *acl, char *buf, size_t size)
{
	const char *ini = json_string_value(json_object_get(acl, "initiator"));
	json_t *e;
	size_t i, n;

	if (ini) {
		snprintf(buf, size, "%s", ini);
		return;
	}
	n = (size_t)snprintf(buf, size, "@");
	json_array_foreach(json_object_get(acl, "addresses"), i, e)
	{
		int k =
		    snprintf(buf + n, size - n, "%s%s", i ? "," : "", json_string_value(e) ?: "");
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
}

/* The current "auth" of the object the options name (a new reference, or
 * NULL when it has none); *rc an exit status. */
static json_t *au_get(struct cli *c, const struct cli_args *a, const char *target, int *rc)
{
	json_t *res = NULL, *auth = NULL, *e;
	size_t i;

	if (a->set[AU_O_DISCOVERY]) {
		*rc = cli_call(c, "settings.get", NULL, &res);
		auth = json_object_get(json_object_get(res, "discovery"), "auth");
	} else if (cli_opt(a, AU_O_INITIATOR)) {
		bool found = false;
		*rc = cli_call(c, "acl.list", json_pack("{s:s}", "target", target), &res);
		json_array_foreach(res, i, e)
		{
			char key[1024];
			au_acl_key(e, key, sizeof(key));
			if (strcmp(key, cli_opt(a, AU_O_INITIATOR)) == 0) {
				auth = json_object_get(e, "auth");
				found = true;
			}
		}
		if (*rc == CLI_OK && !found) {
			cli_errorf(c, "%s has no ACL for %s", target, cli_opt(a, AU_O_INITIATOR));
			*rc = CLI_ENOTFOUND;
		}
	} else {
		*rc = cli_call(c, "target.get", json_pack("{s:s}", "name", target), &res);
		auth = json_object_get(res, "auth");
	}
	auth = json_is_object(auth) ? json_deep_copy(auth) : NULL;
	json_decref(res);
	return auth;
}

/* Write auth (NULL: none) back; consumes it. */
static int au_put(struct cli *c, const struct cli_args *a, const char *target, json_t *auth,
		  const char *done)
{
	json_t *v = auth ? auth : json_null();
	char whose[512];

	if (a->set[AU_O_DISCOVERY]) {
		snprintf(whose, sizeof(whose), "discovery sessions");
		return cmd_change(c, "settings.set", json_pack("{s:{s:o}}", "discovery", "auth", v),
				  "%s: %s", whose, done);
	}
	if (cli_opt(a, AU_O_INITIATOR)) {
		snprintf(whose, sizeof(whose), "initiator %s on %s", cli_opt(a, AU_O_INITIATOR),
			 target);
		return cmd_change(c, "acl.set",
				  json_pack("{s:s, s:s, s:o}", "target", target, "initiator",
					    cli_opt(a, AU_O_INITIATOR), "auth", v),
				  "%s: %s", whose, done);
	}
	snprintf(whose, sizeof(whose), "target %s", target);
	return cmd_change(c, "target.set", json_pack("{s:s, s:o}", "name", target, "auth", v),
			  "%s: %s", whose, done);
}

/* The target argument, or none with --discovery; usage errors printed. */
static int au_args(struct cli *c, const struct cli_args *a, size_t want, const char **target)
{
	size_t have = a->npos - (a->set[AU_O_DISCOVERY] ? 0 : 1);

	*target = NULL;
	if (a->set[AU_O_DISCOVERY] && cli_opt(a, AU_O_INITIATOR)) {
		cli_errorf(c, "--discovery and --initiator exclude each other");
		return CLI_EUSAGE;
	}
	if (!a->set[AU_O_DISCOVERY] && a->npos == 0) {
		cli_errorf(c, "a TARGET (or --discovery) is needed");
		return CLI_EUSAGE;
	}
	if (have != want) {
		cli_errorf(c, "expected %zu argument%s after %s", want, want == 1 ? "" : "s",
			   a->set[AU_O_DISCOVERY] ? "--discovery" : "TARGET");
		return CLI_EUSAGE;
	}
	if (!a->set[AU_O_DISCOVERY])
		*target = a->pos[0];
	return CLI_OK;
}

/* A secret argument; "-" reads one line from stdin. */
static int au_secret(struct cli *c, const char *arg, char *buf, size_t size)
{
	size_t n;

	if (strcmp(arg, "-") != 0) {
		if (strlen(arg) >= size) {
			cli_errorf(c, "the secret is longer than %zu bytes", size - 1);
			return CLI_EUSAGE;
		}
		memcpy(buf, arg, strlen(arg) + 1);
		return CLI_OK;
	}
	if (!fgets(buf, (int)size, stdin)) {
		cli_errorf(c, "no secret on standard input");
		return CLI_EUSAGE;
	}
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (!n) {
		cli_errorf(c, "an empty secret");
		return CLI_EUSAGE;
	}
	return CLI_OK;
}

static int au_add(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *target;
	char secret[512];
	size_t off, i;
	json_t *auth, *chap, *e;
	int rc = au_args(c, a, 2, &target);

	if (rc)
		return rc;
	off = target ? 1 : 0;
	rc = au_secret(c, a->pos[off + 1], secret, sizeof(secret));
	if (rc)
		return rc;
	auth = au_get(c, a, target, &rc);
	if (rc)
		return rc;
	if (!auth)
		auth = json_pack("{s:[]}", "chap");
	chap = json_object_get(auth, "chap");
	json_array_foreach(chap, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "user")) ?: "", a->pos[off]) == 0) {
			/* a new secret for the same user */
			json_array_remove(chap, i);
			break;
		}
	}
	json_array_append_new(chap, au_cred(a, a->pos[off], secret));
	rc = au_put(c, a, target, auth, "CHAP user added");
	if (rc == CLI_OK)
		au_warn_long(c, secret);
	memset(secret, 0, sizeof(secret));
	return rc;
}

static int au_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *target, *user;
	json_t *auth, *chap, *e;
	bool found = false;
	size_t i;
	int rc = au_args(c, a, 1, &target);

	if (rc)
		return rc;
	user = a->pos[target ? 1 : 0];
	auth = au_get(c, a, target, &rc);
	if (rc)
		return rc;
	chap = json_object_get(auth, "chap");
	json_array_foreach(chap, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "user")) ?: "", user) == 0) {
			json_array_remove(chap, i);
			found = true;
			break;
		}
	}
	if (!found) {
		json_decref(auth);
		cli_errorf(c, "no CHAP user %s there", user);
		return CLI_ENOTFOUND;
	}
	if (json_array_size(chap) == 0) {
		/* no credential left: no authentication */
		json_decref(auth);
		return au_put(c, a, target, NULL, "CHAP user removed; no CHAP any more");
	}
	return au_put(c, a, target, auth, "CHAP user removed");
}

static int au_mutual(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *target;
	char secret[512];
	json_t *auth;
	size_t off;
	bool clear = a->npos == (a->set[AU_O_DISCOVERY] ? 1u : 2u) &&
		     strcmp(a->pos[a->npos - 1], "none") == 0;
	int rc = au_args(c, a, clear ? 1 : 2, &target);

	if (rc)
		return rc;
	off = target ? 1 : 0;
	if (!clear && (rc = au_secret(c, a->pos[off + 1], secret, sizeof(secret))))
		return rc;
	auth = au_get(c, a, target, &rc);
	if (rc)
		return rc;
	if (!auth) {
		cli_errorf(c, "mutual CHAP needs initiator credentials first (utarget chap add)");
		return CLI_EUSAGE;
	}
	if (clear) {
		au_remove(a, auth, "mutual");
		return au_put(c, a, target, auth, "mutual CHAP removed");
	}
	json_object_set_new(auth, "mutual", au_cred(a, a->pos[off], secret));
	rc = au_put(c, a, target, auth, "mutual CHAP set");
	if (rc == CLI_OK)
		au_warn_long(c, secret);
	memset(secret, 0, sizeof(secret));
	return rc;
}

static int au_algorithms(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *target, *list;
	json_t *auth, *algs;
	int rc = au_args(c, a, 1, &target);

	if (rc)
		return rc;
	list = a->pos[target ? 1 : 0];
	auth = au_get(c, a, target, &rc);
	if (rc)
		return rc;
	if (!auth) {
		cli_errorf(c, "no CHAP there (utarget chap add first)");
		return CLI_EUSAGE;
	}
	if (strcmp(list, "all") == 0) {
		au_remove(a, auth, "algorithms");
	} else {
		algs = json_array();
		for (const char *p = list; *p;) {
			size_t k = strcspn(p, ",");
			if (k)
				json_array_append_new(algs, json_stringn(p, k));
			p += k;
			if (*p == ',')
				p++;
		}
		json_object_set_new(auth, "algorithms", algs);
	}
	return au_put(c, a, target, auth, "CHAP algorithms set");
}

static int au_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *target;
	json_t *auth, *e;
	size_t i;
	int rc = au_args(c, a, 0, &target);

	if (rc)
		return rc;
	auth = au_get(c, a, target, &rc);
	if (rc)
		return rc;
	if (c->json) {
		out_json(c, auth ? auth : json_null());
	} else if (!auth) {
		fprintf(c->out, "no CHAP (AuthMethod None)%s\n",
			cli_opt(a, AU_O_INITIATOR) ? " of its own: the target's applies" : "");
	} else {
		/* users only: secrets are for --json (and config show) */
		json_array_foreach(json_object_get(auth, "chap"), i, e)
		{
			fprintf(c->out, "user     %s\n",
				json_string_value(json_object_get(e, "user")) ?: "?");
		}
		if (json_object_get(auth, "mutual"))
			fprintf(c->out, "mutual   %s\n",
				json_string_value(
				    json_object_get(json_object_get(auth, "mutual"), "user"))
				    ?: "?");
		if (json_object_get(auth, "algorithms")) {
			char buf[128];
			out_text(json_object_get(auth, "algorithms"), buf, sizeof(buf));
			fprintf(c->out, "algorithms %s\n", buf);
		}
	}
	json_decref(auth);
	return CLI_OK;
}

#define AU_OPT_TARGETS                                                                             \
	[AU_O_INITIATOR] = {.name = "initiator",                                                   \
			    .short_name = 'i',                                                     \
			    .has_arg = true,                                                       \
			    .arg = "IQN",                                                          \
			    .help = "the credentials of this initiator's ACL"},                    \
	[AU_O_DISCOVERY] = {.name = "discovery",                                                   \
			    .help = "discovery sessions' credentials (no TARGET)"}
#define AU_OPTS                                                                                    \
	{                                                                                          \
		AU_OPT_TARGETS                                                                     \
	}
/* ... and --force for the commands that take a secret */
#define AU_OPTS_SECRET                                                                             \
	{                                                                                          \
		AU_OPT_TARGETS,                                                                    \
		    [AU_O_FORCE] = {.name = "force",                                               \
				    .short_name = 'f',                                             \
				    .help = "keep a secret shorter than 12 bytes (allow_short)"},  \
	}

const struct cli_cmd cli_cmds_auth[] = {
    {
	.object = "chap",
	.verb = "show",
	.alias = "get",
	.usage = "[TARGET]",
	.summary = "CHAP users of a target, an ACL (--initiator) or discovery (--discovery)",
	.help = "Secrets are printed with --json only.",
	.opts = AU_OPTS,
	.max_pos = 1,
	.read = true,
	.run = au_show,
    },
    {
	.object = "chap",
	.verb = "add",
	.alias = "set",
	.usage = "[TARGET] USER SECRET",
	.summary = "add (or change the secret of) a CHAP user: CHAP becomes required",
	.help = "SECRET \"-\" reads it from standard input. Secrets of 12 to 16 bytes suit\n"
		"every initiator (Microsoft's accepts no other length). A shorter one is\n"
		"refused (RFC 7143 12.1.3: 96 random bits) unless --force is given; a\n"
		"longer one is taken with a warning.\n"
		"Example: utarget chap add iqn.2026-12.org.example:t1 host1 - < secret-file",
	.opts = AU_OPTS_SECRET,
	.min_pos = 2,
	.max_pos = 3,
	.run = au_add,
    },
    {
	.object = "chap",
	.verb = "delete",
	.alias = "rm",
	.usage = "[TARGET] USER",
	.summary = "remove a CHAP user (the last one: no CHAP any more)",
	.opts = AU_OPTS,
	.min_pos = 1,
	.max_pos = 2,
	.run = au_delete,
    },
    {
	.object = "chap",
	.verb = "mutual",
	.usage = "[TARGET] USER SECRET | [TARGET] none",
	.summary = "the target's own credentials for mutual CHAP (none: remove them)",
	.help = "The target's secret must differ from every initiator secret (RFC 7143\n"
		"12.1.3) and have at least 12 bytes (--force: fewer). SECRET \"-\" reads\n"
		"it from standard input.",
	.opts = AU_OPTS_SECRET,
	.min_pos = 1,
	.max_pos = 3,
	.run = au_mutual,
    },
    {
	.object = "chap",
	.verb = "algorithms",
	.usage = "[TARGET] LIST|all",
	.summary = "the CHAP algorithms allowed: MD5,SHA-1,SHA-256,SHA3-256 (all: every one)",
	.opts = AU_OPTS,
	.min_pos = 1,
	.max_pos = 2,
	.run = au_algorithms,
    },
    {0},
};
