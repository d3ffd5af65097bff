/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shell.c: the interactive tree shell: `utarget shell` (or utarget on a
 * terminal without a command).
 *
 * A line is "[PATH] VERB [ARGUMENTS]" or any one-shot utarget command
 * ("backstore list", "config save"). Verbs act on the current node (or on
 * PATH): cd, ls, pwd, create, delete, set, get, info, resize, help, exit.
 * create/delete/set/get turn into the one-shot commands of cmd_*.c for that
 * node (one implementation of every command), so errors and exit statuses
 * are the same. Line editing, history (~/.utarget_history) and Tab
 * completion (verbs, paths, field names, child names; all from the live
 * tree) come from libedit. Without a terminal on stdin the shell reads
 * commands from it, without prompt or history (scripts). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli/shell.h"

#define SH_MAX_WORDS	 128
#define SH_HISTORY_LINES 1000

static const char *const sh_verbs[] = {
    "cd",     "ls",    "pwd",  "create", "delete", "set",  "get", "info",
    "resize", "state", "tree", "help",	 "exit",   "quit", NULL,
};

/* The state completion needs (libedit calls back without a context). */
static struct {
	struct cli *c;
	struct sh_path *cwd;
	json_t *cands; /* strings */
} sh_comp;

/* ---- words ---- */
/* Split line into words: blanks separate, '...' and "..." quote, a
 * backslash escapes the next character. Returns the count, -1 when a
 * quote is not closed. The words point into line (modified). */
static int sh_split(char *line, char **words, int max)
{
	int n = 0;
	char *r = line, *w = line;

	for (;;) {
		char quote = 0;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			break;
		if (n == max)
			return -1;
		words[n++] = w;
		while (*r && (quote || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
			if (quote && *r == quote) {
				quote = 0;
				r++;
			} else if (!quote && (*r == '\'' || *r == '"')) {
				quote = *r++;
			} else if (*r == '\\' && r[1] && quote != '\'') {
				r++;
				*w++ = *r++;
			} else {
				*w++ = *r++;
			}
		}
		if (quote)
			return -1;
		if (*r)
			r++;
		*w++ = '\0';
	}
	return n;
}

/* Run the one-shot command OBJECT VERB with argv. */
static int sh_run(struct cli *c, const char *object, const char *verb, int argc, char **argv)
{
	const struct cli_cmd *cmd = cli_find(object, verb);

	if (!cmd) {
		cli_errorf(c, "no command \"%s %s\"", object, verb);
		return CLI_EUSAGE;
	}
	return cli_run(c, cmd, argc, argv);
}

/* argv = fixed[] followed by rest[] */
static int sh_runv(struct cli *c, const char *object, const char *verb, const char *const *fixed,
		   int nfixed, int nrest, char **rest)
{
	char *argv[SH_MAX_WORDS + 8];
	int n = 0;

	for (int i = 0; i < nfixed && n < (int)ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = (char *)fixed[i];
	for (int i = 0; i < nrest && n < (int)ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = rest[i];
	argv[n] = NULL;
	return sh_run(c, object, verb, n, argv);
}

static void sh_tagstr(const struct sh_path *p, char *buf, size_t size)
{
	snprintf(buf, size, "%u", p->tag);
}

/* ---- verbs ---- */
static int sh_ls(struct cli *c, const struct sh_path *p)
{
	json_t *kids, *e;
	size_t i, w = 0;

	if (p->kind == SH_BS || p->kind == SH_LUN || p->kind == SH_SESSION ||
	    p->kind == SH_SETTINGS || p->kind == SH_PORTAL || p->kind == SH_ALUA_GROUP)
		return -1; /* a leaf: the caller shows it */
	kids = sh_children(c, p);
	if (!kids)
		return CLI_EINTERNAL;
	if (p->kind != SH_ROOT && p->kind != SH_BACKSTORES && p->kind != SH_TPG && c->rpc.fd < 0) {
		json_decref(kids);
		cli_errorf(c, "cannot reach utargetd at %s", c->socket);
		return CLI_EUNREACHABLE;
	}
	if (c->json) {
		out_json(c, kids);
		json_decref(kids);
		return CLI_OK;
	}
	json_array_foreach(kids, i, e)
	{
		size_t n = strlen(json_string_value(json_object_get(e, "name"))) +
			   json_is_true(json_object_get(e, "dir"));
		if (n > w)
			w = n;
	}
	json_array_foreach(kids, i, e)
	{
		char name[SH_PATH_MAX], safe[512];
		snprintf(name, sizeof(name), "%s%s", json_string_value(json_object_get(e, "name")),
			 json_is_true(json_object_get(e, "dir")) ? "/" : "");
		out_text(json_object_get(e, "info"), safe, sizeof(safe));
		if (json_string_value(json_object_get(e, "info"))[0])
			fprintf(c->out, "%-*s  %s\n", (int)w, name, safe);
		else
			fprintf(c->out, "%s\n", name);
	}
	json_decref(kids);
	return CLI_OK;
}

/* The subtree below p, targetcli's way: "o- name ... [info]", indented. */
static void sh_tree(struct cli *c, const struct sh_path *p, int depth, int max)
{
	json_t *kids, *e;
	size_t i;

	if (depth >= max)
		return;
	kids = sh_children(c, p);
	json_array_foreach(kids, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		char info[512];
		struct sh_path child;
		const char *why;

		out_text(json_object_get(e, "info"), info, sizeof(info));
		fprintf(c->out, "%*so- %s%s%s%s\n", 2 * depth, "", name,
			json_string_value(json_object_get(e, "info"))[0] ? " [" : "",
			json_string_value(json_object_get(e, "info"))[0] ? info : "",
			json_string_value(json_object_get(e, "info"))[0] ? "]" : "");
		/* tpg<N>/luns and acls repeat the target's: shown once */
		if (p->kind == SH_TPG && (strcmp(name, "luns") == 0 || strcmp(name, "acls") == 0))
			continue;
		if (json_is_true(json_object_get(e, "dir")) && !sh_resolve(p, name, &child, &why))
			sh_tree(c, &child, depth + 1, max);
	}
	json_decref(kids);
}

/* The object of a node, as the daemon describes it (NULL: printed error). */
static json_t *sh_object(struct cli *c, const struct sh_path *p, int *rc)
{
	json_t *res = NULL, *e, *found = NULL;
	size_t i;

	*rc = CLI_OK;
	switch (p->kind) {
	case SH_ROOT:
		*rc = cli_call(c, "daemon.info", NULL, &res);
		return res;
	case SH_BS:
		*rc = cli_call(c, "backstore.get", json_pack("{s:s}", "name", p->name), &res);
		return res;
	case SH_TARGET:
		*rc = cli_call(c, "target.get", json_pack("{s:s}", "name", p->name), &res);
		return res;
	case SH_SETTINGS:
		*rc = cli_call(c, "settings.get", NULL, &res);
		return res;
	case SH_TPG:
	case SH_PORTALS:
		*rc = cli_call(c, "portal_group.list", json_pack("{s:s}", "target", p->name), &res);
		json_array_foreach(res, i, e)
		{
			if (json_integer_value(json_object_get(e, "tag")) == p->tag)
				found = json_incref(e);
		}
		break;
	case SH_LUN: {
		json_t *params = json_pack("{s:s}", "target", p->name);
		if (p->initiator[0])
			json_object_set_new(params, "initiator", json_string(p->initiator));
		*rc = cli_call(c, "lun.list", params, &res);
		json_array_foreach(res, i, e)
		{
			if (json_integer_value(json_object_get(e, "lun")) == p->lun)
				found = json_incref(e);
		}
		break;
	}
	case SH_ACL:
		*rc = cli_call(c, "acl.list", json_pack("{s:s}", "target", p->name), &res);
		json_array_foreach(res, i, e)
		{
			if (strcmp(json_string_value(json_object_get(e, "initiator")) ?: "",
				   p->initiator) == 0)
				found = json_incref(e);
		}
		break;
	case SH_SESSION:
		*rc = cli_call(c, "session.list", NULL, &res);
		json_array_foreach(res, i, e)
		{
			if (json_integer_value(json_object_get(e, "tsih")) == p->tsih)
				found = json_incref(e);
		}
		break;
	default:
		cli_errorf(c, "nothing to show here: ls lists the objects below");
		*rc = CLI_EUSAGE;
		return NULL;
	}
	json_decref(res);
	if (!found && *rc == CLI_OK) {
		char path[SH_PATH_MAX];
		sh_format(p, path, sizeof(path));
		cli_errorf(c, "%s: no such object", path);
		*rc = CLI_ENOTFOUND;
	}
	return found;
}

static int sh_get_fields(struct cli *c, const struct sh_path *p, int argc, char **argv)
{
	int rc;
	json_t *obj = sh_object(c, p, &rc);

	if (!obj)
		return rc;
	if (argc > 0) {
		json_t *sel = json_object();
		for (int i = 0; i < argc; i++) {
			json_t *v = json_object_get(obj, argv[i]);
			if (!v) {
				cli_errorf(c, "%s: no such field here", argv[i]);
				rc = CLI_EUSAGE;
				continue;
			}
			json_object_set(sel, argv[i], v);
		}
		json_decref(obj);
		obj = sel;
	}
	if (c->json)
		out_json(c, obj);
	else
		out_object(c, obj, 0);
	json_decref(obj);
	return rc;
}

static int sh_set(struct cli *c, const struct sh_path *p, int argc, char **argv)
{
	char tag[16], lun[16];
	const char *fixed[6] = {0};

	sh_tagstr(p, tag, sizeof(tag));
	snprintf(lun, sizeof(lun), "%u", p->lun);
	switch (p->kind) {
	case SH_BS:
		fixed[0] = p->name;
		return sh_runv(c, "backstore", "set", fixed, 1, argc, argv);
	case SH_TARGET:
		fixed[0] = p->name;
		return sh_runv(c, "target", "set", fixed, 1, argc, argv);
	case SH_TPG:
		fixed[0] = p->name;
		fixed[1] = tag;
		return sh_runv(c, "tpg", "set", fixed, 2, argc, argv);
	case SH_LUN:
		fixed[0] = p->name;
		fixed[1] = lun;
		if (p->initiator[0]) {
			fixed[2] = "--initiator";
			fixed[3] = p->initiator;
		}
		return sh_runv(c, "lun", "set", fixed, p->initiator[0] ? 4 : 2, argc, argv);
	case SH_ACL:
		fixed[0] = p->name;
		fixed[1] = p->initiator;
		return sh_runv(c, "acl", "set", fixed, 2, argc, argv);
	case SH_SETTINGS:
		return sh_runv(c, "settings", "set", fixed, 0, argc, argv);
	case SH_ALUA_GROUP:
		snprintf(tag, sizeof(tag), "%u", p->group);
		fixed[0] = tag;
		return sh_runv(c, "alua", "set", fixed, 1, argc, argv);
	default:
		cli_errorf(c, "set: nothing to set here (back-stores, targets, tpg<N>, LUNs, ACLs "
			      "and /settings have fields)");
		return CLI_EUSAGE;
	}
}

static int sh_create(struct cli *c, const struct sh_path *p, int argc, char **argv)
{
	char tag[16];
	const char *fixed[4] = {0};

	sh_tagstr(p, tag, sizeof(tag));
	switch (p->kind) {
	case SH_BACKSTORES:
		return sh_runv(c, "backstore", "create", fixed, 0, argc, argv);
	case SH_BS_TYPE:
		fixed[0] = p->type;
		return sh_runv(c, "backstore", "create", fixed, 1, argc, argv);
	case SH_ISCSI:
		return sh_runv(c, "target", "create", fixed, 0, argc, argv);
	case SH_TARGET:
		fixed[0] = p->name;
		return sh_runv(c, "tpg", "create", fixed, 1, argc, argv);
	case SH_PORTALS:
		fixed[0] = p->name;
		fixed[1] = tag;
		return sh_runv(c, "portal", "add", fixed, 2, argc, argv);
	case SH_LUNS:
		fixed[0] = p->name;
		return sh_runv(c, "lun", "add", fixed, 1, argc, argv);
	case SH_ACLS:
		fixed[0] = p->name;
		return sh_runv(c, "acl", "add", fixed, 1, argc, argv);
	case SH_ACL:
		fixed[0] = "--initiator";
		fixed[1] = p->initiator;
		fixed[2] = p->name;
		return sh_runv(c, "lun", "add", fixed, 3, argc, argv);
	case SH_ALUA:
		return sh_runv(c, "alua", "create", fixed, 0, argc, argv);
	default:
		cli_errorf(c, "create: nothing is created here (try help)");
		return CLI_EUSAGE;
	}
}

/* delete NAME (a child of p), or delete with no argument: p itself;
 * --force (a target with sessions logged in) goes to the command. */
static int sh_delete(struct cli *c, struct sh_path *p, int argc, char **argv)
{
	struct sh_path t = *p;
	const char *why, *fixed[5] = {0};
	char tag[16], lun[16], tsih[16], *force[1] = {"--force"};
	bool forced = false;
	int rc;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--force") == 0 || strcmp(argv[i], "-f") == 0) {
			forced = true;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(*argv));
			argc--;
			i--;
		}
	}
	if (argc > 1) {
		cli_errorf(c, "delete takes one name (or none: this object)");
		return CLI_EUSAGE;
	}
	if (argc == 1 && sh_resolve(p, argv[0], &t, &why)) {
		cli_errorf(c, "%s: %s", argv[0], why);
		return CLI_EUSAGE;
	}
	if (argc == 1 && p->kind == SH_BACKSTORES) {
		/* "delete NAME" at /backstores: any type */
		fixed[0] = argv[0];
		return sh_runv(c, "backstore", "delete", fixed, 1, 0, NULL);
	}
	sh_tagstr(&t, tag, sizeof(tag));
	snprintf(lun, sizeof(lun), "%u", t.lun);
	snprintf(tsih, sizeof(tsih), "%u", t.tsih);
	switch (t.kind) {
	case SH_BS:
		fixed[0] = t.name;
		rc = sh_runv(c, "backstore", "delete", fixed, 1, 0, NULL);
		break;
	case SH_TARGET:
		fixed[0] = t.name;
		rc = sh_runv(c, "target", "delete", fixed, 1, forced ? 1 : 0, force);
		break;
	case SH_TPG:
		fixed[0] = t.name;
		fixed[1] = tag;
		rc = sh_runv(c, "tpg", "delete", fixed, 2, 0, NULL);
		break;
	case SH_PORTAL:
		fixed[0] = t.name;
		fixed[1] = tag;
		fixed[2] = t.portal;
		rc = sh_runv(c, "portal", "delete", fixed, 3, 0, NULL);
		break;
	case SH_LUN:
		fixed[0] = t.name;
		fixed[1] = lun;
		fixed[2] = "--initiator";
		fixed[3] = t.initiator;
		rc = sh_runv(c, "lun", "delete", fixed, t.initiator[0] ? 4 : 2, 0, NULL);
		break;
	case SH_ACL:
		fixed[0] = t.name;
		fixed[1] = t.initiator;
		rc = sh_runv(c, "acl", "delete", fixed, 2, 0, NULL);
		break;
	case SH_SESSION:
		fixed[0] = tsih;
		rc = sh_runv(c, "session", "close", fixed, 1, 0, NULL);
		break;
	case SH_ALUA_GROUP:
		snprintf(tsih, sizeof(tsih), "%u", t.group);
		fixed[0] = tsih;
		rc = sh_runv(c, "alua", "delete", fixed, 1, 0, NULL);
		break;
	default:
		cli_errorf(c, "delete: this cannot be deleted");
		return CLI_EUSAGE;
	}
	/* deleting the current node (or one above it) leaves it */
	if (rc == CLI_OK && argc == 0) {
		struct sh_path up = *p;
		sh_resolve(p, "..", &up, &why);
		*p = up;
	}
	return rc;
}

static void sh_help(struct cli *c, const struct sh_path *p)
{
	char path[SH_PATH_MAX];

	sh_format(p, path, sizeof(path));
	fprintf(c->out,
		"At %s:\n"
		"  cd [PATH]        go to PATH (/, .., backstores, iscsi/<target>/tpg1, ...)\n"
		"  ls [PATH]        the objects below\n"
		"  tree [PATH]      everything below, as a tree\n"
		"  pwd              the current path\n",
		path);
	switch (p->kind) {
	case SH_BACKSTORES:
		fprintf(c->out, "  create TYPE NAME [PATH] [SIZE] [FIELD=VALUE...]\n"
				"  delete NAME\n");
		break;
	case SH_BS_TYPE:
		fprintf(c->out, "  create NAME %s [FIELD=VALUE...]\n  delete NAME\n",
			strcmp(p->type, "file") == 0	 ? "PATH [SIZE]"
			: strcmp(p->type, "block") == 0	 ? "DEVICE"
			: strcmp(p->type, "sg") == 0	 ? "DEVICE"
			: strcmp(p->type, "iscsi") == 0	 ? "URL"
			: strcmp(p->type, "plugin") == 0 ? "HANDLER [KEY=VALUE...]"
							 : "SIZE");
		break;
	case SH_BS:
		fprintf(c->out, "  get [FIELD...]   set FIELD=VALUE...   resize SIZE [--force]   "
				"delete\n"
				"  reservation [get]   reservation clear [--initiator NAME]   "
				"(persistent reservations)\n");
		break;
	case SH_ISCSI:
		fprintf(c->out, "  create IQN [--portal ADDR:PORT]... [--tag N]\n"
				"  delete IQN [--force]   (--force: it has sessions, drop them)\n");
		break;
	case SH_TARGET:
		fprintf(c->out, "  get [FIELD...]   set FIELD=VALUE... (alias, demo_mode.enabled, "
				"demo_mode.read_only)\n"
				"  create TAG PORTAL...   (a portal group)   delete tpg<TAG>\n");
		break;
	case SH_TPG:
		fprintf(c->out, "  get   set FIELD=VALUE... (portals=A,B, rel_port_id)   delete\n");
		break;
	case SH_PORTALS:
		fprintf(c->out, "  create ADDR:PORT   delete ADDR:PORT\n");
		break;
	case SH_LUNS:
		fprintf(c->out, "  create BACKSTORE [LUN] [--read-only]   delete lun<N>\n");
		break;
	case SH_LUN:
		fprintf(c->out, "  get   set FIELD=VALUE... (backstore, read_only)   delete\n");
		break;
	case SH_ACLS:
		fprintf(c->out,
			"  create INITIATOR [--lun LUN:BACKSTORE[:ro]]...   delete INITIATOR\n");
		break;
	case SH_ACL:
		fprintf(c->out,
			"  get   set [--lun ...] [--target-map]   delete\n"
			"  create BACKSTORE [LUN] [--read-only]   (the initiator's own map)\n"
			"  delete lun<N>\n");
		break;
	case SH_SESSIONS:
		fprintf(c->out, "  delete TSIH   (ends the session)\n");
		break;
	case SH_SESSION:
		fprintf(c->out, "  get   delete   (ends the session)\n");
		break;
	case SH_SETTINGS:
		fprintf(c->out,
			"  get [FIELD...]   set FIELD=VALUE... (log_level, iscsi.queue_depth, "
			"...)\n");
		break;
	default:
		fprintf(c->out, "  info             the daemon\n");
	}
	fprintf(c->out,
		"  exit             leave the shell\n"
		"Every utarget command works here too (\"backstore list\", \"config save\",\n"
		"\"session list\", \"import tgt FILE\"); \"help COMMAND\" for one of them.\n");
}

int shell_line(struct cli *c, struct sh_path *cwd, char *line, bool *quit)
{
	char *words[SH_MAX_WORDS];
	struct sh_path at = *cwd;
	bool saved_json = c->json, saved_quiet = c->quiet, elsewhere = false;
	const char *why, *verb;
	int n = sh_split(line, words, SH_MAX_WORDS), rc = CLI_OK, argc;
	char **argv;

	if (n < 0) {
		cli_errorf(c, "unbalanced quotes (or too many words)");
		return CLI_EUSAGE;
	}
	if (n == 0)
		return CLI_OK;
	/* "PATH VERB ...": the verb acts at PATH */
	if ((words[0][0] == '/' || words[0][0] == '.') && n > 1) {
		if (sh_resolve(cwd, words[0], &at, &why)) {
			cli_errorf(c, "%s: %s", words[0], why);
			return CLI_EUSAGE;
		}
		elsewhere = true;
		words[0] = words[1];
		memmove(&words[1], &words[2], (size_t)(n - 2) * sizeof(*words));
		n--;
	}
	verb = words[0];
	argv = words + 1;
	argc = n - 1;
	/* --json / -q apply to this line */
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-q") == 0) {
			if (argv[i][1] == '-')
				c->json = true;
			else
				c->quiet = true;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(*argv));
			argc--;
			i--;
		}
	}
	if (strcmp(verb, "exit") == 0 || strcmp(verb, "quit") == 0) {
		*quit = true;
	} else if (strcmp(verb, "pwd") == 0) {
		char path[SH_PATH_MAX];
		sh_format(&at, path, sizeof(path));
		fprintf(c->out, "%s\n", path);
	} else if (strcmp(verb, "cd") == 0) {
		struct sh_path to = {.kind = SH_ROOT};
		if (argc > 1) {
			cli_errorf(c, "cd takes one path");
			rc = CLI_EUSAGE;
		} else if (argc == 1 && sh_resolve(&at, argv[0], &to, &why)) {
			cli_errorf(c, "%s: %s", argv[0], why);
			rc = CLI_EUSAGE;
		} else if (!sh_exists(c, &to)) {
			char path[SH_PATH_MAX];
			sh_format(&to, path, sizeof(path));
			cli_errorf(c, "%s: no such object", path);
			rc = CLI_ENOTFOUND;
		} else {
			*cwd = to;
		}
	} else if (strcmp(verb, "ls") == 0) {
		struct sh_path to = at;
		if (argc > 1 || (argc == 1 && sh_resolve(&at, argv[0], &to, &why))) {
			cli_errorf(c, "%s: %s", argc ? argv[0] : "ls", argc > 1 ? "one path" : why);
			rc = CLI_EUSAGE;
		} else {
			rc = sh_ls(c, &to);
			if (rc == -1)
				rc = sh_get_fields(c, &to, 0, NULL);
		}
	} else if (strcmp(verb, "tree") == 0) {
		struct sh_path to = at;
		if (argc > 1 || (argc == 1 && sh_resolve(&at, argv[0], &to, &why))) {
			cli_errorf(c, "%s: %s", argc ? argv[0] : "tree",
				   argc > 1 ? "one path" : why);
			rc = CLI_EUSAGE;
		} else {
			char path[SH_PATH_MAX];
			sh_format(&to, path, sizeof(path));
			fprintf(c->out, "o- %s\n", path);
			sh_tree(c, &to, 1, 8);
		}
	} else if (strcmp(verb, "get") == 0 || strcmp(verb, "info") == 0 ||
		   strcmp(verb, "show") == 0) {
		rc = sh_get_fields(c, &at, argc, argv);
	} else if (strcmp(verb, "set") == 0) {
		rc = sh_set(c, &at, argc, argv);
	} else if (strcmp(verb, "create") == 0 || strcmp(verb, "add") == 0) {
		rc = sh_create(c, &at, argc, argv);
	} else if (strcmp(verb, "delete") == 0 || strcmp(verb, "rm") == 0) {
		rc = sh_delete(c, elsewhere ? &at : cwd, argc, argv);
	} else if (strcmp(verb, "state") == 0 && at.kind == SH_ALUA_GROUP) {
		char id[16];
		const char *fixed[1] = {id};
		snprintf(id, sizeof(id), "%u", at.group);
		rc = sh_runv(c, "alua", "state", fixed, 1, argc, argv);
	} else if (strcmp(verb, "resize") == 0 && at.kind == SH_BS) {
		const char *fixed[1] = {at.name};
		rc = sh_runv(c, "backstore", "resize", fixed, 1, argc, argv);
	} else if (strcmp(verb, "reservation") == 0 && at.kind == SH_BS) {
		/* "reservation [get]", "reservation clear [--initiator NAME]":
		 * the back-store is this node's */
		const char *fixed[1] = {at.name};
		rc = sh_runv(c, "reservation", argc ? argv[0] : "get", fixed, 1,
			     argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	} else if (strcmp(verb, "help") == 0 && argc == 0) {
		sh_help(c, &at);
	} else if (strcmp(verb, "shell") == 0) {
		cli_errorf(c, "already in the shell");
		rc = CLI_EUSAGE;
	} else {
		/* a one-shot command: top-level ("config ..." is OBJECT VERB) */
		const struct cli_cmd *cmd = cli_find("", verb);
		if (cmd)
			rc = cli_run(c, cmd, argc, argv);
		else if (argc >= 1 && (cmd = cli_find(verb, argv[0])))
			rc = cli_run(c, cmd, argc - 1, argv + 1);
		else {
			cli_errorf(c, "%s: unknown here (help lists what works)", verb);
			rc = CLI_EUSAGE;
		}
	}
	c->json = saved_json;
	c->quiet = saved_quiet;
	return rc;
}

/* ---- completion ---- */
static void sh_cand(const char *s)
{
	json_array_append_new(sh_comp.cands, json_string(s));
}

static char *sh_generator(const char *text, int state)
{
	static size_t i;

	if (!state)
		i = 0;
	while (i < json_array_size(sh_comp.cands)) {
		const char *s = json_string_value(json_array_get(sh_comp.cands, i++));
		if (strncmp(s, text, strlen(text)) == 0)
			return strdup(s);
	}
	return NULL;
}

/* Children of the directory part of text ("a/b/c" -> children of a/b,
 * written "a/b/<child>"). */
static void sh_complete_path(const char *text)
{
	char dir[SH_PATH_MAX];
	const char *slash = strrchr(text, '/'), *why;
	struct sh_path p = *sh_comp.cwd;
	json_t *kids, *e;
	size_t i, dlen = slash ? (size_t)(slash - text) + 1 : 0;

	if (dlen >= sizeof(dir))
		return;
	memcpy(dir, text, dlen);
	dir[dlen] = '\0';
	if (dlen && sh_resolve(sh_comp.cwd, dir, &p, &why))
		return;
	kids = sh_children(sh_comp.c, &p);
	json_array_foreach(kids, i, e)
	{
		char cand[SH_PATH_MAX];
		snprintf(cand, sizeof(cand), "%s%s%s", dir,
			 json_string_value(json_object_get(e, "name")),
			 json_is_true(json_object_get(e, "dir")) ? "/" : "");
		sh_cand(cand);
	}
	if (!slash) {
		sh_cand("..");
		sh_cand("/");
	}
	json_decref(kids);
}

static void sh_complete_fields(const struct sh_path *p)
{
	enum cli_kind k = p->kind == SH_BS	     ? CLI_K_BACKSTORE
			  : p->kind == SH_TARGET     ? CLI_K_TARGET
			  : p->kind == SH_TPG	     ? CLI_K_PORTAL_GROUP
			  : p->kind == SH_LUN	     ? CLI_K_LUN
			  : p->kind == SH_ACL	     ? CLI_K_ACL
			  : p->kind == SH_SETTINGS   ? CLI_K_SETTINGS
			  : p->kind == SH_ALUA_GROUP ? CLI_K_ALUA_GROUP
						     : CLI_K_ANY;
	const char *const *names = cli_kind_fields(k);

	for (size_t i = 0; names[i]; i++) {
		char cand[128];
		if (strcmp(names[i], "name") == 0 || strcmp(names[i], "type") == 0)
			continue;
		snprintf(cand, sizeof(cand), "%s=", names[i]);
		sh_cand(cand);
	}
}

static char **sh_complete(const char *text, int start, int end)
{
	char buf[SH_PATH_MAX], *words[SH_MAX_WORDS];
	int n;
	size_t len = (size_t)start < sizeof(buf) ? (size_t)start : sizeof(buf) - 1;
	struct sh_path at = *sh_comp.cwd;
	char **m;

	(void)end;
	rl_attempted_completion_over = 1; /* never file names */
	json_decref(sh_comp.cands);
	sh_comp.cands = json_array();
	memcpy(buf, rl_line_buffer, len);
	buf[len] = '\0';
	n = sh_split(buf, words, SH_MAX_WORDS);
	if (n < 0)
		return NULL;
	if (n >= 1 && (words[0][0] == '/' || words[0][0] == '.')) {
		const char *why;
		if (sh_resolve(sh_comp.cwd, words[0], &at, &why))
			return NULL;
		memmove(&words[0], &words[1], (size_t)(n - 1) * sizeof(*words));
		n--;
	}
	if (n == 0) {
		for (size_t i = 0; sh_verbs[i]; i++)
			sh_cand(sh_verbs[i]);
		for (size_t f = 0; cli_families[f]; f++)
			for (const struct cli_cmd *cmd = cli_families[f]; cmd->verb; cmd++) {
				const char *w = cmd->object[0] ? cmd->object : cmd->verb;
				bool dup = false;
				for (size_t i = 0; i < json_array_size(sh_comp.cands) && !dup; i++)
					dup = strcmp(json_string_value(
							 json_array_get(sh_comp.cands, i)),
						     w) == 0;
				if (!dup)
					sh_cand(w);
			}
		if (text[0] == '/' || text[0] == '.')
			sh_complete_path(text);
	} else if (strcmp(words[0], "cd") == 0 || strcmp(words[0], "ls") == 0) {
		sh_complete_path(text);
	} else if (strcmp(words[0], "delete") == 0 || strcmp(words[0], "rm") == 0) {
		json_t *kids = sh_children(sh_comp.c, &at), *e;
		size_t i;
		json_array_foreach(kids, i, e)
		{
			sh_cand(json_string_value(json_object_get(e, "name")));
		}
		json_decref(kids);
	} else if (strcmp(words[0], "set") == 0 || strcmp(words[0], "get") == 0) {
		sh_complete_fields(&at);
	} else if ((strcmp(words[0], "create") == 0 && n == 1 &&
		    (at.kind == SH_LUNS || at.kind == SH_ACL))) {
		/* the back-store to map */
		json_t *bs = NULL, *e;
		struct rpc_error err = {0};
		size_t i;
		if (sh_comp.c->rpc.fd >= 0 ||
		    !rpc_connect(&sh_comp.c->rpc, sh_comp.c->socket, &err))
			if (rpc_call(&sh_comp.c->rpc, "backstore.list", NULL, &bs, &err))
				rpc_error_clear(&err);
		json_array_foreach(bs, i, e)
		{
			sh_cand(json_string_value(json_object_get(e, "name")));
		}
		json_decref(bs);
	} else if (strcmp(words[0], "help") == 0 && n == 1) {
		for (size_t f = 0; cli_families[f]; f++)
			for (const struct cli_cmd *cmd = cli_families[f]; cmd->verb; cmd++)
				sh_cand(cmd->object[0] ? cmd->object : cmd->verb);
	} else if (n == 1) {
		/* OBJECT VERB: the verbs of the object */
		for (size_t f = 0; cli_families[f]; f++)
			for (const struct cli_cmd *cmd = cli_families[f]; cmd->verb; cmd++)
				if (strcmp(cmd->object, words[0]) == 0)
					sh_cand(cmd->verb);
	}
	/* a directory path or "field=" continues without a blank */
	rl_completion_append_character = ' ';
	{
		const char *only = NULL;
		size_t nmatch = 0;
		for (size_t i = 0; i < json_array_size(sh_comp.cands); i++) {
			const char *s = json_string_value(json_array_get(sh_comp.cands, i));
			if (strncmp(s, text, strlen(text)) == 0) {
				only = s;
				nmatch++;
			}
		}
		if (nmatch == 1 && only[0] &&
		    (only[strlen(only) - 1] == '/' || only[strlen(only) - 1] == '='))
			rl_completion_append_character = '\0';
	}
	m = rl_completion_matches(text, sh_generator);
	return m;
}

/* ---- the loop ---- */
static void sh_history_path(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	buf[0] = '\0';
	if (home && home[0])
		snprintf(buf, size, "%s/.utarget_history", home);
}

int shell_main(struct cli *c)
{
	struct sh_path cwd = {.kind = SH_ROOT};
	bool tty = isatty(STDIN_FILENO), quit = false;
	char hist[4096];
	int rc = CLI_OK;

	c->in_shell = true;
	sh_comp.c = c;
	sh_comp.cwd = &cwd;
	if (tty) {
		rl_readline_name = "utarget";
		rl_attempted_completion_function = sh_complete;
		rl_completer_word_break_characters = (char *)" \t\n";
		sh_history_path(hist, sizeof(hist));
		using_history();
		stifle_history(SH_HISTORY_LINES);
		if (hist[0])
			read_history(hist);
		fprintf(c->out, "utarget shell: help lists the commands, Tab completes, exit "
				"leaves.\n");
	}
	while (!quit) {
		char prompt[SH_PATH_MAX + 16], path[SH_PATH_MAX], *line = NULL;
		size_t cap = 0;

		if (tty) {
			sh_format(&cwd, path, sizeof(path));
			/* keep the prompt short: the end of a long path */
			snprintf(prompt, sizeof(prompt), "utarget %s%s> ",
				 strlen(path) > 48 ? "..." : "",
				 strlen(path) > 48 ? path + strlen(path) - 45 : path);
			line = readline(prompt);
			if (!line) {
				fputc('\n', c->out);
				break;
			}
			if (line[strspn(line, " \t")])
				add_history(line);
		} else if (getline(&line, &cap, stdin) < 0) {
			free(line);
			break;
		}
		rc = shell_line(c, &cwd, line, &quit);
		free(line);
		fflush(c->out);
	}
	if (tty && hist[0])
		write_history(hist);
	json_decref(sh_comp.cands);
	sh_comp.cands = NULL;
	rpc_close(&c->rpc);
	return quit ? CLI_OK : rc;
}
