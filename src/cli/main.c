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
