/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h: the utarget command line tool: one-shot commands, the interactive
 * shell, the importers. It talks to utargetd only through the JSON-RPC
 * socket (docs/rpc.md); every command is one or a few RPC calls.
 *
 * A command is a row of a family's table (cmd_*.c): object, verb, usage,
 * help, options, and a run function that receives the parsed arguments.
 * main.c dispatches argv to it; shell.c builds the same arguments from a
 * tree path and a shell verb, so both interfaces share every command.
 *
 * Exit statuses (stable; utarget(8)):
 */
#ifndef UT_CLI_CLI_H
#define UT_CLI_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli/rpc_client.h"
#include "lib/compiler.h"

enum cli_exit {
	CLI_OK = 0,
	CLI_EUSAGE = 1,	      /* bad command line */
	CLI_EUNREACHABLE = 2, /* cannot reach utargetd (socket, permission, timeout) */
	CLI_EREJECTED = 3,    /* utargetd refused the request (invalid, in use, not supported...) */
	CLI_ENOTFOUND = 4,    /* no such object */
	CLI_EEXISTS = 5,      /* the object already exists */
	CLI_EPARTIAL = 6,     /* import: something cannot be carried over (see --partial) */
	CLI_EINPUT = 7,	      /* a local file cannot be read or is invalid */
	CLI_EINTERNAL = 8,    /* an answer the tool does not understand, out of memory */
};

/* ---- rpc_client.c: JSON-RPC 2.0 over the daemon's Unix socket ---- */
/* The exit status for an error (not_found -> 4, exists -> 5, others -> 3;
 * transport errors -> 2). */
enum cli_exit rpc_error_exit(const struct rpc_error *err);

/* ---- the command model ---- */
#define CLI_MAX_OPTS  8
#define CLI_MAX_MULTI 64 /* repeated values of one option */

struct cli_opt {
	const char *name; /* long name, "--name" */
	char short_name;  /* 0: none */
	bool has_arg;
	bool repeat;	 /* may be given several times */
	const char *arg; /* name of the argument in the help, e.g. "ADDR" */
	const char *help;
};

struct cli_args {
	char **pos; /* positional arguments (after object and verb) */
	size_t npos;
	bool set[CLI_MAX_OPTS];
	const char *val[CLI_MAX_OPTS][CLI_MAX_MULTI];
	size_t nval[CLI_MAX_OPTS];
};

struct cli;

struct cli_cmd {
	const char *object; /* "backstore" ("" for top-level commands) */
	const char *verb;   /* "create" */
	const char *alias;  /* another verb for it ("add", "ls"), or NULL */
	const char
	    *usage; /* positional arguments, e.g. "TYPE NAME [PATH] [SIZE] [FIELD=VALUE...]" */
	const char *summary;
	const char *help; /* more lines for --help, or NULL */
	struct cli_opt opts[CLI_MAX_OPTS];
	unsigned min_pos, max_pos; /* max_pos 0xffff: any */
	bool read;		   /* reads only (--json prints the daemon's answer) */
	int (*run)(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a);
};

#define CLI_ANY 0xffffu

struct cli {
	const char *socket;
	int timeout_ms;
	bool json;  /* machine output */
	bool quiet; /* no confirmation lines for changes */
	bool in_shell;
	struct rpc_client rpc;
	FILE *out, *err;
};

/* Every family's table (NULL-verb terminated). */
extern const struct cli_cmd cli_cmds_daemon[];
extern const struct cli_cmd cli_cmds_backstore[];
extern const struct cli_cmd cli_cmds_target[];
extern const struct cli_cmd cli_cmds_lun[];
extern const struct cli_cmd cli_cmds_acl[];
extern const struct cli_cmd cli_cmds_auth[];
extern const struct cli_cmd cli_cmds_alua[];
extern const struct cli_cmd cli_cmds_isns[];
extern const struct cli_cmd cli_cmds_session[];
extern const struct cli_cmd cli_cmds_reservation[];
extern const struct cli_cmd cli_cmds_import[];
extern const struct cli_cmd cli_cmds_stats[];
extern const struct cli_cmd cli_cmds_top[];

/* ---- cli_dispatch.c ---- */
/* All command tables, NULL terminated. */
extern const struct cli_cmd *const cli_families[];
/* The command for object/verb (or alias), NULL when none. */
const struct cli_cmd *cli_find(const char *object, const char *verb);
/* Is object the first word of some command ("backstore", "lun", ...)? */
bool cli_is_object(const char *object);
/* Parse argv (after object and verb) for cmd and run it. Prints usage
 * errors and returns the exit status. */
int cli_run(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv);
/* Options every command takes (in the shell too): --json, -q/--quiet,
 * -h/--help (*help set). 1: handled, 0: not a global option, -1: error
 * (printed). */
int cli_common_opt(struct cli *c, const char *arg, bool *help);
void cli_cmd_usage(const struct cli_cmd *cmd, FILE *f, bool full);
void cli_usage(FILE *f);

/* ---- cli_call.c: calling the daemon from a command ---- */
/* Connect when needed and call, printing nothing: rpc_call's result (0,
 * 1 with a JSON-RPC error in *err, or -errno), a connection failure as a
 * transport error. params consumed; err->data released by the caller
 * (rpc_error_clear). */
int cli_rpc(struct cli *c, const char *method, json_t *params, json_t **result,
	    struct rpc_error *err);
/* Connect when needed, call, print a JSON-RPC error ("utarget: MESSAGE")
 * and return its exit status, or CLI_OK with *result (may be NULL to
 * discard it). params is consumed. */
int cli_call(struct cli *c, const char *method, json_t *params, json_t **result);
/* The error line for a JSON-RPC error: the message and, when data says
 * more (path, kind/name, used_by), that too. */
void cli_print_rpc_error(struct cli *c, const struct rpc_error *e);
UT_PRINTF(2, 3) void cli_errorf(struct cli *c, const char *fmt, ...);
/* A confirmation line for a change (not with --quiet or --json). */
UT_PRINTF(2, 3) void cli_done(struct cli *c, const char *fmt, ...);
/* The value of option i of cmd (its last occurrence) or NULL. */
const char *cli_opt(const struct cli_args *a, size_t i);

/* ---- fields.c: FIELD=VALUE arguments -> JSON parameters ---- */
/* The object kinds of the config (docs/config.md), for value types. */
enum cli_kind {
	CLI_K_SETTINGS,
	CLI_K_BACKSTORE,
	CLI_K_TARGET,
	CLI_K_PORTAL_GROUP,
	CLI_K_LUN,
	CLI_K_ACL,
	CLI_K_ALUA_GROUP,
	CLI_K_ANY,
};
/* Is arg a FIELD=VALUE (or FIELD:=JSON) argument? */
bool cli_is_field(const char *arg);
/* Merge "FIELD=VALUE" into obj: dotted fields make nested objects
 * ("demo_mode.enabled=true"), the value is typed from the field's kind
 * (boolean, integer, size, string, list) or, for unknown fields, read as
 * true/false/null/integer/string; "FIELD:=JSON" takes JSON as it is.
 * 0, or -EINVAL with a message in err. */
int cli_field_set(json_t *obj, enum cli_kind kind, const char *arg, char *err, size_t errsize);
/* The field names of a kind (for completion and help), NULL terminated. */
const char *const *cli_kind_fields(enum cli_kind kind);
/* Deep-merge src into dst (objects merged member by member). */
int cli_json_merge(json_t *dst, json_t *src);

/* ---- output.c ---- */
/* Pretty JSON (indent 2, sorted keys) on c->out. */
void out_json(struct cli *c, json_t *v);
/* A value as display text ("-" for null/absent; lists joined with ","). */
void out_text(json_t *v, char *buf, size_t size);
/* A table: one row per element of rows (objects); columns[i] is a member
 * name ("a.b" for nested members) shown under heads[i]. */
void out_table(struct cli *c, json_t *rows, const char *const *columns, const char *const *heads,
	       size_t ncols);
/* An object as "key: value" lines, nested objects and lists of objects
 * indented below their key. */
void out_object(struct cli *c, json_t *obj, int indent);
/* A size as the config file writes one: the largest unit of K, M, G, T
 * (powers of 1024) that divides it, else bytes ("3M", "3146240"). */
void out_size(uint64_t bytes, char *buf, size_t size);
/* A byte count, rounded for people: "512", "49.5K", "1.2G". */
void out_bytes(uint64_t bytes, char *buf, size_t size);
/* Time since an ISO 8601 UTC time ("2026-05-01T12:00:03Z") at now: "45s",
 * "5m12s", "2h05m", "3d04h" ("0s" for a time ahead of now, "-" when it
 * cannot be read). */
void out_age(const char *iso, time_t now, char *buf, size_t size);
/* A back-store's size as listed: its current size when the daemon knows
 * it (current_size: an image used at its own size has no configured
 * one), else the configured size. */
void out_bs_size(json_t *bs, char *buf, size_t size);

#endif
