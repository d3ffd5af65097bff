/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_stats.h: the iSCSI fabric's statistics in the answers' JSON form
 * (docs/rpc.md, stats.get: "instance", "targets", "sessions"; session.list's
 * "stats"). Reactor 0. */
#ifndef UT_RPC_ISCSI_STATS_H
#define UT_RPC_ISCSI_STATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/iscsi/iscsi.h"

/* Seconds since the Epoch as ISO 8601 UTC ("2026-05-01T12:00:03Z"). */
void rpc_iso8601(int64_t t, char *buf, size_t size);
/* A session's counters since its login (flat object of integers). */
json_t *rpc_session_counters_json(const struct iscsi_session_info *s);
json_t *rpc_iscsi_instance_json(void);
/* Every target's statistics, or only's (NULL with *rc = -ENOENT when it
 * does not exist; -ENOMEM). */
json_t *rpc_iscsi_targets_json(const char *only, int *rc);
/* Every session's statistics, or those of target only's. NULL: no memory. */
json_t *rpc_iscsi_sessions_json(const char *only);

#endif
