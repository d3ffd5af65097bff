/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: utarget, the command line tool of utargetd.
 *
 *   utarget [OPTIONS] OBJECT VERB [ARGUMENTS]   one command
 *   utarget [OPTIONS] shell                      the interactive tree shell
 *   utarget [OPTIONS]                            the shell, on a terminal
 *
 * Global options may appear anywhere on the line (before "--"); a command's
 * own options are parsed by cli_run() from the command's table row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/shell.h"

#ifndef UTARGET_VERSION
#define UTARGET_VERSION "unknown"
#endif

const struct cli_cmd *const cli_families[] = {
    cli_cmds_daemon, cli_cmds_backstore, cli_cmds_target, cli_cmds_lun,
    cli_cmds_acl,    cli_cmds_session,	 cli_cmds_import, NULL,
};

const struct cli_cmd *cli_find(const char *object, const char *verb)
{
	for (size_t f = 0; cli_families[f]; f++)
		for (const struct cli_cmd *cmd = cli_families[f]; cmd->verb; cmd++)
			if (strcmp(cmd->object, object) == 0 &&
			    (strcmp(cmd->verb, verb) == 0 ||
			     (cmd->alias && strcmp(cmd->alias, verb) == 0)))
				return cmd;
	return NULL;
}

static bool cli_is_object(const char *object)
{
	for (size_t f = 0; cli_families[f]; f++)
		for (const struct cli_cmd *cmd = cli_families[f]; cmd->verb; cmd++)
			if (cmd->object[0] && strcmp(cmd->object, object) == 0)
				return true;
	return false;
}

void cli_cmd_usage(const struct cli_cmd *cmd, FILE *f, bool full)
{
	fprintf(f, "Usage: utarget %s%s%s%s%s", cmd->object, cmd->object[0] ? " " : "", cmd->verb,
		cmd->usage[0] ? " " : "", cmd->usage);
	for (size_t i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++)
		fprintf(f, " [--%s%s%s]", cmd->opts[i].name, cmd->opts[i].has_arg ? " " : "",
			cmd->opts[i].has_arg ? cmd->opts[i].arg : "");
	fprintf(f, "\n");
	if (!full)
		return;
	fprintf(f, "%s\n", cmd->summary);
	if (cmd->help)
		fprintf(f, "\n%s\n", cmd->help);
	if (cmd->opts[0].name) {
		fprintf(f, "\nOptions:\n");
		for (size_t i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++) {
			char head[64];
			snprintf(head, sizeof(head), "%c%c%s--%s%s%s",
				 cmd->opts[i].short_name ? '-' : ' ',
				 cmd->opts[i].short_name ? cmd->opts[i].short_name : ' ',
				 cmd->opts[i].short_name ? ", " : "  ", cmd->opts[i].name,
				 cmd->opts[i].has_arg ? " " : "",
				 cmd->opts[i].has_arg ? cmd->opts[i].arg : "");
			fprintf(f, "  %-24s %s\n", head, cmd->opts[i].help);
		}
	}
	if (cmd->read)
		fprintf(f, "\n--json prints the daemon's answer as JSON.\n");
}

void cli_usage(FILE *f)
{
	fprintf(f,
		"Usage: utarget [OPTIONS] OBJECT VERB [ARGUMENTS]\n"
		"       utarget [OPTIONS] shell\n"
		"Manage utargetd, the utarget iSCSI target, through its control socket.\n"
		"Without a command on a terminal, utarget starts the interactive shell.\n\n"
		"Options (anywhere on the line):\n"
		"  -s, --socket PATH   utargetd's control socket (default: $UTARGET_SOCKET, else\n"
		"                      " CLI_DEFAULT_SOCKET ")\n"
		"      --json          print read results as JSON (the daemon's answer)\n"
		"  -q, --quiet         no confirmation line after a change\n"
		"      --timeout SEC   wait at most SEC seconds for an answer (default %d)\n"
		"  -h, --help          this text; after a command: that command's help\n"
		"  -V, --version       the version\n\n"
		"Commands:\n",
		CLI_DEFAULT_TIMEOUT);
	for (size_t f2 = 0; cli_families[f2]; f2++) {
		for (const struct cli_cmd *cmd = cli_families[f2]; cmd->verb; cmd++) {
			char head[96];
			snprintf(head, sizeof(head), "%s%s%s", cmd->object,
				 cmd->object[0] ? " " : "", cmd->verb);
			fprintf(f, "  %-22s %s\n", head, cmd->summary);
		}
	}
	fprintf(f, "\nFIELD=VALUE arguments use the config file's field names (docs/config.md,\n"
		   "utarget.json(5)); \"FIELD:=JSON\" passes a JSON value as written.\n\n"
		   "Exit status: 0 success, 1 usage error, 2 utargetd unreachable, 3 refused by\n"
		   "utargetd, 4 no such object, 5 the object exists, 6 import incomplete (see\n"
		   "--partial), 7 a local file cannot be read or is invalid, 8 internal error.\n");
}

/* Options every command takes (in the shell too). 1: handled, 0: not a
 * global option, -1: error (printed). */
static int cli_common_opt(struct cli *c, const char *arg, bool *help)
{
	if (strcmp(arg, "--json") == 0) {
		c->json = true;
		return 1;
	}
	if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
		c->quiet = true;
		return 1;
	}
	if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
		*help = true;
		return 1;
	}
	return 0;
}

int cli_run(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv)
{
	struct cli_args a = {0};
	bool help = false, dashdash = false;
	int rc;

	a.pos = calloc((size_t)argc + 1, sizeof(*a.pos));
	if (!a.pos)
		return CLI_EINTERNAL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		const char *name, *val = NULL;
		size_t k, nlen;

		if (dashdash || arg[0] != '-' || arg[1] == '\0') {
			a.pos[a.npos++] = argv[i];
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			dashdash = true;
			continue;
		}
		if (cli_common_opt(c, arg, &help))
			continue;
		/* --name, --name=value, -x */
		name = arg + (arg[1] == '-' ? 2 : 1);
		nlen = strcspn(name, "=");
		for (k = 0; k < CLI_MAX_OPTS && cmd->opts[k].name; k++) {
			const struct cli_opt *o = &cmd->opts[k];
			if (arg[1] == '-'
				? (strlen(o->name) == nlen && strncmp(o->name, name, nlen) == 0)
				: (o->short_name && name[0] == o->short_name && !name[1]))
				break;
		}
		if (k == CLI_MAX_OPTS || !cmd->opts[k].name) {
			cli_errorf(c, "%s: unknown option for \"%s%s%s\"", arg, cmd->object,
				   cmd->object[0] ? " " : "", cmd->verb);
			cli_cmd_usage(cmd, c->err, false);
			free(a.pos);
			return CLI_EUSAGE;
		}
		if (cmd->opts[k].has_arg) {
			if (name[nlen] == '=')
				val = name + nlen + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				cli_errorf(c, "%s needs a value (%s)", arg, cmd->opts[k].arg);
				free(a.pos);
				return CLI_EUSAGE;
			}
		} else if (name[nlen] == '=') {
			cli_errorf(c, "%s takes no value", arg);
			free(a.pos);
			return CLI_EUSAGE;
		}
		if ((a.set[k] && !cmd->opts[k].repeat) || a.nval[k] == CLI_MAX_MULTI) {
			cli_errorf(c, "--%s given too many times", cmd->opts[k].name);
			free(a.pos);
			return CLI_EUSAGE;
		}
		a.set[k] = true;
		if (val)
			a.val[k][a.nval[k]++] = val;
	}
	if (help) {
		cli_cmd_usage(cmd, c->out, true);
		free(a.pos);
		return CLI_OK;
	}
	if (a.npos < cmd->min_pos || (cmd->max_pos != CLI_ANY && a.npos > cmd->max_pos)) {
		cli_errorf(c, "\"%s%s%s\" takes %s", cmd->object, cmd->object[0] ? " " : "",
			   cmd->verb, cmd->usage[0] ? cmd->usage : "no arguments");
		cli_cmd_usage(cmd, c->err, false);
		free(a.pos);
		return CLI_EUSAGE;
	}
	rc = cmd->run(c, cmd, &a);
	free(a.pos);
	return rc;
}

/* Remove the global options from argv (they may be anywhere before
 * "--"); the rest keeps its order. 1: exit with *status. */
static int cli_globals(struct cli *c, int *argc, char **argv, int *status, bool *help)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *arg = argv[i], *val = NULL;

		if (strcmp(arg, "--") == 0) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (strcmp(arg, "-s") == 0 || strcmp(arg, "--socket") == 0 ||
		    strcmp(arg, "--timeout") == 0) {
			if (i + 1 == *argc) {
				cli_errorf(c, "%s needs a value", arg);
				*status = CLI_EUSAGE;
				return 1;
			}
			val = argv[++i];
		} else if (strncmp(arg, "--socket=", 9) == 0) {
			val = arg + 9;
			arg = "--socket";
		} else if (strncmp(arg, "--timeout=", 10) == 0) {
			val = arg + 10;
			arg = "--timeout";
		} else if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
			fprintf(c->out, "utarget %s\n", UTARGET_VERSION);
			*status = CLI_OK;
			return 1;
		} else if (strcmp(arg, "--json") == 0 || strcmp(arg, "-q") == 0 ||
			   strcmp(arg, "--quiet") == 0) {
			cli_common_opt(c, arg, help);
			continue;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			*help = true;
			continue;
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (strcmp(arg, "--timeout") == 0) {
			char *end;
			long v;
			errno = 0;
			v = strtol(val, &end, 10);
			if (errno || *end || v < 1 || v > 86400) {
				cli_errorf(c, "--timeout %s: seconds, 1..86400", val);
				*status = CLI_EUSAGE;
				return 1;
			}
			c->timeout_ms = (int)v * 1000;
			c->rpc.timeout_ms = c->timeout_ms;
		} else {
			c->socket = val;
		}
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = {
	    .socket = getenv("UTARGET_SOCKET") && getenv("UTARGET_SOCKET")[0]
			  ? getenv("UTARGET_SOCKET")
			  : CLI_DEFAULT_SOCKET,
	    .timeout_ms = CLI_DEFAULT_TIMEOUT * 1000,
	    .out = stdout,
	    .err = stderr,
	};
	const struct cli_cmd *cmd;
	int status = CLI_OK, skip;
	bool help = false;

	rpc_client_init(&c.rpc, c.timeout_ms);
	if (cli_globals(&c, &argc, argv, &status, &help))
		return status;
	if (argc < 2) {
		if (help) {
			cli_usage(c.out);
			return CLI_OK;
		}
		if (isatty(STDIN_FILENO))
			return shell_main(&c);
		cli_usage(c.err);
		return CLI_EUSAGE;
	}
	/* a top-level command ("shell", "help", ...) or OBJECT VERB */
	cmd = cli_find("", argv[1]);
	skip = 2;
	if (!cmd) {
		if (!cli_is_object(argv[1])) {
			cli_errorf(&c, "unknown command \"%s\" (utarget --help lists them)",
				   argv[1]);
			return CLI_EUSAGE;
		}
		if (argc < 3) {
			/* "utarget backstore": its verbs */
			fprintf(help ? c.out : c.err, "Commands of \"%s\":\n", argv[1]);
			for (size_t f = 0; cli_families[f]; f++)
				for (const struct cli_cmd *k = cli_families[f]; k->verb; k++)
					if (strcmp(k->object, argv[1]) == 0)
						fprintf(help ? c.out : c.err, "  %s %-10s %s\n",
							k->object, k->verb, k->summary);
			return help ? CLI_OK : CLI_EUSAGE;
		}
		cmd = cli_find(argv[1], argv[2]);
		if (!cmd) {
			cli_errorf(&c, "\"%s\" has no verb \"%s\" (utarget %s --help lists them)",
				   argv[1], argv[2], argv[1]);
			return CLI_EUSAGE;
		}
		skip = 3;
	}
	if (help) {
		cli_cmd_usage(cmd, c.out, true);
		return CLI_OK;
	}
	status = cli_run(&c, cmd, argc - skip, argv + skip);
	rpc_close(&c.rpc);
	return status;
}
