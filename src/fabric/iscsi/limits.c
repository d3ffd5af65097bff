/* SPDX-License-Identifier: GPL-2.0-or-later */
/* limits.c: per-target limits over the global iSCSI settings (sessions per
 * target, queue depth, login timeout, NOP-In keepalive). A value a target
 * leaves at 0 is the global setting; every reader takes the effective value
 * through the functions here, under iscsi_global.lock. */
#include <string.h>

#include "fabric/iscsi/cmdsn.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"

void iscsi_target_set_limits(struct iscsi_target *t, const struct iscsi_target_limits *l)
{
	pthread_mutex_lock(&iscsi_global.lock);
	t->limits = l ? *l : (struct iscsi_target_limits){0};
	pthread_mutex_unlock(&iscsi_global.lock);
}

void iscsi_limits_effective(const struct iscsi_target *t, struct iscsi_target_limits *out)
{
	const struct iscsi_settings *g = &iscsi_global.settings;
	struct iscsi_target_limits l = {0};

	pthread_mutex_lock(&iscsi_global.lock);
	if (t)
		l = t->limits;
	pthread_mutex_unlock(&iscsi_global.lock);
	out->max_sessions = l.max_sessions;
	out->max_connections = UT_MIN(l.max_connections ? l.max_connections : g->max_connections,
				      (uint16_t)ISCSI_MAX_CONNECTIONS);
	out->queue_depth =
	    UT_MIN(l.queue_depth ? l.queue_depth : g->queue_depth, (uint32_t)ISCSI_CMDSN_DEPTH_MAX);
	out->login_timeout_s = l.login_timeout_s ? l.login_timeout_s : g->login_timeout_s;
	out->nop_in_interval_set = true;
	out->nop_in_interval_s = l.nop_in_interval_set ? l.nop_in_interval_s : g->nop_in_interval_s;
	out->nop_in_timeout_s = l.nop_in_timeout_s ? l.nop_in_timeout_s : g->nop_in_timeout_s;
	if (out->nop_in_interval_s && !out->nop_in_timeout_s)
		out->nop_in_timeout_s = out->nop_in_interval_s;
}

void iscsi_conn_limits(const struct iscsi_conn *c, struct iscsi_target_limits *out)
{
	const struct iscsi_target *t = c->sess ? c->sess->target : c->target;

	iscsi_limits_effective(t, out);
}
