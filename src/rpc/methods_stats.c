/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_stats.c: statistics (docs/rpc.md): stats.get answers every
 * logical unit's counters and latency histograms (scsi_lu_stats(): the
 * per-reactor shards summed), or one back-store's. Counters count since the
 * LU was created (a daemon start, or the back-store's creation); a client
 * computes rates from two answers and their "time_ns" (CLOCK_MONOTONIC).
 *
 * A histogram is given by its non-empty buckets, [bound, count] with bound
 * the first nanosecond value above the bucket (lib/stats.h: 16 buckets per
 * power of two, at most 1/16 wide; null for the last, unbounded one), and
 * its p50/p99 (the bound of the bucket holding the quantile). The LUs are
 * read by rpc_lu_stats_each() (lu_stats.c), as /metrics reads them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/iscsi_stats.h"
#include "rpc/lu_stats.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"

static const char *const class_names[SCSI_OP_CLASSES] = {
    [SCSI_OP_READ] = "read",
    [SCSI_OP_WRITE] = "write",
    [SCSI_OP_OTHER] = "other",
};

static json_t *bound_json(unsigned b)
{
	uint64_t v = stats_hist_bound(b);

	return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

static json_t *latency_json(const uint64_t *lat, uint64_t count, uint64_t sum)
{
	json_t *buckets = json_array(), *o;

	for (unsigned b = 0; buckets && b < STATS_HIST_BUCKETS; b++)
		if (lat[b])
			json_array_append_new(
			    buckets, json_pack("[o,I]", bound_json(b), (json_int_t)lat[b]));
	o = json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)count, "sum_ns", (json_int_t)sum,
		      "p50_ns", (json_int_t)stats_hist_quantile(lat, 0.50), "p99_ns",
		      (json_int_t)stats_hist_quantile(lat, 0.99));
	if (o)
		json_object_set_new(o, "buckets", buckets ? buckets : json_array());
	else
		json_decref(buckets);
	return o;
}

static json_t *lu_json(const char *name, const struct scsi_lu_stats *st)
{
	json_t *o, *classes = json_object();

	for (unsigned c = 0; classes && c < SCSI_OP_CLASSES; c++)
		json_object_set_new(
		    classes, class_names[c],
		    json_pack("{s:I,s:o}", "commands", (json_int_t)st->op[c].cmds, "latency",
			      latency_json(st->op[c].lat, rpc_lu_hist_count(st->op[c].lat),
					   st->op[c].lat_sum_ns)));
	o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "backstore", name, "commands",
		      (json_int_t)st->cmds, "errors", (json_int_t)st->errors, "aborted",
		      (json_int_t)st->aborted, "busy", (json_int_t)st->busy, "read_bytes",
		      (json_int_t)st->read_bytes, "write_bytes", (json_int_t)st->write_bytes,
		      "in_flight", (json_int_t)st->in_flight);
	if (o)
		json_object_set_new(o, "classes", classes ? classes : json_object());
	else
		json_decref(classes);
	return o;
}

static int lu_add(const char *name, const struct scsi_lu_stats *st, void *arg)
{
	json_array_append_new(arg, lu_json(name, st));
	return 0;
}

/* The LUs' section: every LU, or only's (NULL with *found false when it
 * is not a configured back-store). */
static json_t *luns_json(const char *only, bool *found)
{
	json_t *luns = json_array();

	if (!luns || rpc_lu_stats_each(only, found, lu_add, luns)) {
		json_decref(luns);
		return NULL;
	}
	return luns;
}

static int m_get(struct rpc_call *call)
{
	const char *bs = json_string_value(json_object_get(call->params, "backstore"));
	const char *tgt = json_string_value(json_object_get(call->params, "target"));
	json_t *r;
	bool found = true;
	int rc = 0;

	if (bs && tgt)
		return rpc_fail(call, RPC_INVALID_PARAMS, NULL,
				"\"backstore\" and \"target\" exclude each other");
	r = json_pack("{s:I,s:o}", "time_ns", (json_int_t)reactor_now_ns(), "instance",
		      rpc_iscsi_instance_json());
	if (r && !bs) {
		json_t *t = rpc_iscsi_targets_json(tgt, &rc);

		if (rc == -ENOENT) {
			json_decref(r);
			return rpc_fail(call, RPC_NOT_FOUND,
					json_pack("{s:s,s:s}", "kind", "target", "name", tgt),
					"no target named \"%s\"", tgt);
		}
		json_object_set_new(r, "targets", t);
		json_object_set_new(r, "sessions", rpc_iscsi_sessions_json(tgt));
	}
	if (r && !tgt) {
		json_t *luns = luns_json(bs, &found);

		if (!found) {
			json_decref(luns);
			json_decref(r);
			return rpc_fail(call, RPC_NOT_FOUND,
					json_pack("{s:s,s:s}", "kind", "backstore", "name", bs),
					"no back-store named \"%s\"", bs);
		}
		json_object_set_new(r, "luns", luns);
	}
	/* a section that could not be built is absent: no memory */
	if (!r || !json_object_get(r, "instance") ||
	    (!bs && (!json_is_array(json_object_get(r, "targets")) ||
		     !json_is_array(json_object_get(r, "sessions")))) ||
	    (!tgt && !json_is_array(json_object_get(r, "luns")))) {
		json_decref(r);
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	}
	call->result = r;
	return 0;
}

static const struct rpc_param p_get[] = {
    {.name = "backstore", .type = RPC_T_STRING},
    {.name = "target", .type = RPC_T_STRING},
    {0},
};

const struct rpc_method rpc_methods_stats[] = {
    {.name = "stats.get", .fn = m_get, .params = p_get},
    {0},
};
