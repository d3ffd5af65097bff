/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lu_stats.c: every running LU's statistics, one at a time (lu_stats.h):
 * one snapshot buffer (about 10 KiB) is reused, so a daemon with thousands
 * of LUs does not hold them all at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "rpc/lu_stats.h"

int rpc_lu_stats_each(const char *only, bool *found,
		      int (*fn)(const char *backstore, const struct scsi_lu_stats *st, void *arg),
		      void *arg)
{
	const struct cfg *c = cfg_ctl_tree();
	struct scsi_lu_stats *st = malloc(sizeof(*st));
	int rc = 0;

	*found = !only;
	if (!st)
		return -ENOMEM;
	for (size_t i = 0; c && !rc && i < c->nbs; i++) {
		struct scsi_lu *lu;

		if (only && strcmp(only, c->bs[i].name) != 0)
			continue;
		*found = true;
		lu = cfg_ctl_lu(c->bs[i].name);
		if (!lu)
			continue;
		scsi_lu_stats(lu, st);
		rc = fn(c->bs[i].name, st, arg);
	}
	free(st);
	return rc;
}

uint64_t rpc_lu_hist_count(const uint64_t *lat)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < STATS_HIST_BUCKETS; b++)
		n += lat[b];
	return n;
}
