/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h: helpers shared by the command families (cmd_*.c). Each returns an
 * exit status (enum cli_exit) after printing any error. */
#ifndef UT_CLI_CMD_H
#define UT_CLI_CMD_H

#include "cli/cli.h"

/* Call a read method and print its answer: JSON with --json, else as a
 * "key: value" block. params consumed. */
int cmd_show(struct cli *c, const char *method, json_t *params);
/* Call a read method: with --json its answer is printed and *result is
 * NULL (nothing more to print), else *result is the answer (a new
 * reference). params consumed. */
int cmd_read(struct cli *c, const char *method, json_t *params, json_t **result);
/* Call a list method and print its answer: JSON with --json, else a table
 * (out_table) of one row per element of the answer, made by row() (a new
 * reference; NULL leaves the element out), or of the elements themselves
 * when row is NULL. params consumed (NULL: {}). */
int cmd_list(struct cli *c, const char *method, json_t *params, json_t *(*row)(json_t *elem),
	     const char *const *cols, const char *const *heads, size_t ncols);
/* Call a mutating method; with --json print its answer, else the
 * confirmation line fmt. params consumed. */
UT_PRINTF(4, 5)
int cmd_change(struct cli *c, const char *method, json_t *params, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Positional arguments from index `from` on are FIELD=VALUE: merge them
 * into obj. */
int cmd_fields(struct cli *c, json_t *obj, enum cli_kind kind, const struct cli_args *a,
	       size_t from);
/* A size argument ("10G", "4096") checked here, set as key of obj. */
int cmd_size(struct cli *c, json_t *obj, const char *key, const char *text);
/* An integer argument in [min, max]. */
int cmd_uint(struct cli *c, const char *what, const char *text, unsigned long max, json_int_t *out);
/* For a "set" with dotted fields (demo_mode.enabled=true): the daemon
 * replaces a nested object as a whole, so merge the current one (from
 * get_method) under the new fields first. get_params consumed. */
int cmd_merge_nested(struct cli *c, json_t *params, const char *get_method, json_t *get_params);
/* A LUN argument: "3" or "lun3". */
int cmd_lun(struct cli *c, const char *text, json_int_t *out);

/* ---- statistics (cmd_stats.c; utarget stats and utarget top) ---- */
/* A duration in ns as people read it (850ns, 12.5us, 3.2ms); "-" for a
 * non-integer. */
void stats_out_ns(json_t *v, char *buf, size_t size);
/* --interval's value (NULL: 1 s), in seconds from 0 to 3600. */
int stats_interval(struct cli *c, const char *text, double *out);
/* stats.get with params (consumed), twice interval_s apart when it is
 * above 0: *snap the last answer, *rates their rates (stats_rates.h; NULL
 * without an interval). */
int stats_sample(struct cli *c, json_t *params, double interval_s, json_t **snap, json_t **rates);

#endif
