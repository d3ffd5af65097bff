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

#endif
