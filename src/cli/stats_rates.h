/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats_rates.h: rates between two stats.get answers (docs/rpc.md), for
 * `utarget stats --interval` and `utarget top`: per second over the
 * interval between their time_ns, and latency quantiles of the commands
 * that completed in it (the differences of the histograms' buckets). */
#ifndef UT_CLI_STATS_RATES_H
#define UT_CLI_STATS_RATES_H

#include <jansson.h>
#include <stdint.h>

/* The nearest-rank q-quantile (0..1) of the values counted in `after` and
 * not in `before` (stats.get bucket lists: [[bound_ns or null, count]...],
 * non-empty buckets in increasing order; before may be NULL): the bound
 * of the bucket that holds it, as stats_hist_quantile() computes it. 0:
 * nothing counted in between; UINT64_MAX: the last, unbounded bucket. */
uint64_t rates_quantile(json_t *before, json_t *after, double q);

/* The rates between answers a and b (b later), a new object:
 *   {"interval_s": S,
 *    "luns": [{"backstore", "iops", "read_mb_s", "write_mb_s", "errors_s",
 *              "read_p99_ns", "write_p99_ns" (null: no command of the
 *              class; -1: beyond the last bound), "in_flight"}],
 *    "sessions": [{"tsih", "target", "initiator", "isid", "iops",
 *                  "read_mb_s", "write_mb_s", "errors"}],
 *    "targets": [{"name", "logins", "login_failures", "sessions"}]}
 * MB is 10^6 bytes; "errors" of a session: digest and format errors and
 * timeouts in the interval; "logins"/"login_failures": in the interval.
 * An object in b and not in a (created in between) counts from zero. A
 * section absent from b is absent. NULL when a time_ns is missing or does
 * not advance, or out of memory. */
json_t *rates_json(json_t *a, json_t *b);

/* Helpers of the views built on these answers (cmd_stats.c, cmd_top.c): */
/* The element of arr whose member k equals v, or NULL. */
json_t *rates_find(json_t *arr, const char *k, json_t *v);
/* A session's errors: digest and format errors and timeouts. */
uint64_t rates_session_errors(json_t *session);
/* A login object's refusals and redirections. */
uint64_t rates_login_failures(json_t *login);
/* A rate for people: one decimal below 10, none above. */
void rates_fmt(double v, char *buf, size_t size);

#endif
