/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_dispatch.c: the command tables, finding a command, parsing its
 * arguments and options (cli_run), and the help texts. Shared by main.c
 * (one command per invocation) and shell.c (one per line). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

const struct cli_cmd *const cli_families[] = {
    cli_cmds_daemon,  cli_cmds_backstore,
    cli_cmds_target,  cli_cmds_lun,
    cli_cmds_acl,     cli_cmds_auth,
    cli_cmds_alua,    cli_cmds_isns,
    cli_cmds_session, cli_cmds_reservation,
    cli_cmds_import,  cli_cmds_stats,
    cli_cmds_top,     NULL,
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

bool cli_is_object(const char *object)
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

int cli_common_opt(struct cli *c, const char *arg, bool *help)
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
