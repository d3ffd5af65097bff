/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lu_stats.h: the statistics of every running LU, as stats.get and
 * /metrics read them (scsi_lu_stats() of each configured back-store's LU,
 * in config order). Reactor 0 only. */
#ifndef UT_RPC_LU_STATS_H
#define UT_RPC_LU_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/scsi.h"

/* fn(backstore, stats, arg) for each back-store with a running LU (only
 * that one when only is not NULL); st is valid during the call only. *found:
 * only names a configured back-store (true when only is NULL). Stops at the
 * first non-zero return of fn and returns it; -ENOMEM; else 0. */
int rpc_lu_stats_each(const char *only, bool *found,
		      int (*fn)(const char *backstore, const struct scsi_lu_stats *st, void *arg),
		      void *arg);
/* Latencies counted in a class's histogram (the sum of its buckets). */
uint64_t rpc_lu_hist_count(const uint64_t *lat);

#endif
