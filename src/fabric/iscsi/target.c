/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c: iSCSI target nodes and portal groups, the fabric's global state,
 * and the interface of iscsi.h (settings, init, shutdown). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/admission.h"
#include "fabric/iscsi/cmdsn.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/isns.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/bufpool.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "scsi/scsi.h"

#define DRAIN_WAIT_NS (3ull * 1000000000ull)

struct iscsi_global iscsi_global = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .conns_cv = PTHREAD_COND_INITIALIZER,
    .targets = LIST_INIT(iscsi_global.targets),
    .portals = LIST_INIT(iscsi_global.portals),
    .sessions = LIST_INIT(iscsi_global.sessions),
    .conns = LIST_INIT(iscsi_global.conns),
};

void iscsi_settings_default(struct iscsi_settings *s)
{
	*s = (struct iscsi_settings){
	    .max_recv_data_segment_length = 262144,
	    .max_burst_length = 1048576,
	    .first_burst_length = 65536,
	    .initial_r2t = false, /* accept unsolicited data when asked */
	    .immediate_data = true,
	    .max_outstanding_r2t = ISCSI_R2T_MAX,
	    .max_connections = 1,  /* MC/S offered only when configured */
	    .header_digest = true, /* accepted when the initiator asks */
	    .data_digest = true,
	    .default_time2wait = 2,
	    .default_time2retain = 0, /* ERL 0: nothing is retained */
	    .nop_in_interval_s = 30,
	    .nop_in_timeout_s = 30,
	    .login_timeout_s = 30,
	    .max_sessions = 1024,
	    .max_logins_in_progress = 64,
	    .max_logins_per_address = 16,
	    .max_discovery_sessions = 64,
	    .max_discovery_sessions_per_address = 4,
	    .queue_depth = 128,
	    .max_buffer_memory_mib = 1024,
	    .max_session_data_mib = 64,
	    .max_connection_data_mib = 64,
	    .session_reserve_kib = 1024,
	    .max_session_send_queue_mib = 8,
	    .max_connection_send_queue_mib = 8,
	    .data_out_timeout_s = 15,
	    .error_recovery_level = 0,
	    .busy_poll_us = 50,
	    .socket_uring = false,
	    .spread_connections = true,
	};
}

int iscsi_init(const struct iscsi_settings *s)
{
	struct iscsi_settings v = *s;

	if (v.queue_depth == 0 || v.queue_depth > ISCSI_CMDSN_DEPTH_MAX)
		v.queue_depth = v.queue_depth ? ISCSI_CMDSN_DEPTH_MAX : 1;
	if (v.max_outstanding_r2t > ISCSI_R2T_MAX)
		v.max_outstanding_r2t = ISCSI_R2T_MAX; /* what a task can track */
	if (v.max_connections == 0 || v.max_connections > ISCSI_MAX_CONNECTIONS)
		v.max_connections = v.max_connections ? ISCSI_MAX_CONNECTIONS : 1;
	if (v.error_recovery_level > 2)
		v.error_recovery_level = 2; /* 13.20: 0..2 (ERL 2: erl2.c) */
	if (v.nop_in_interval_s && !v.nop_in_timeout_s)
		v.nop_in_timeout_s = v.nop_in_interval_s;
	buf_set_cap((uint64_t)v.max_buffer_memory_mib << 20);
	reactor_set_busy_poll_ns((uint64_t)v.busy_poll_us * 1000u);
	pthread_mutex_lock(&iscsi_global.lock);
	iscsi_global.settings = v;
	iscsi_global.initialized = true;
	iscsi_counters_start();
	pthread_mutex_unlock(&iscsi_global.lock);
	return 0;
}

/* Drop every connection matching t (NULL: all) and wait (bounded) until
 * they are closed. Connections of the calling reactor are dropped inline. */
static void drop_conns(struct iscsi_target *t)
{
	struct reactor *self = reactor_self();
	struct iscsi_conn **mine = NULL, *c;
	unsigned nmine = 0, cap = 0;
	struct timespec deadline;
	bool left;

	/* ERL 2: sessions whose connections are all gone end without
	 * waiting for Time2Retain (erl2.c) */
	iscsi_erl2_end_target(t);
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(c, &iscsi_global.conns, all_node)
	{
		if (t && c->target != t)
			continue;
		if (c->r == self || !self) {
			if (nmine == cap) {
				unsigned ncap = cap ? cap * 2 : 16;
				struct iscsi_conn **n = realloc(mine, ncap * sizeof(*n));

				if (!n)
					continue;
				mine = n;
				cap = ncap;
			}
			iscsi_conn_get(c);
			mine[nmine++] = c;
		} else {
			iscsi_conn_drop_async(c);
		}
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	for (unsigned i = 0; i < nmine; i++) {
		iscsi_conn_event(mine[i], ISCSI_CEV_DROP);
		iscsi_conn_put(mine[i]);
	}
	free(mine);

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += DRAIN_WAIT_NS / 1000000000ull;
	pthread_mutex_lock(&iscsi_global.lock);
	for (;;) {
		left = false;
		list_for_each_entry(c, &iscsi_global.conns, all_node) if (!t || c->target == t)
		    left = true;
		if (!left ||
		    pthread_cond_timedwait(&iscsi_global.conns_cv, &iscsi_global.lock, &deadline))
			break;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (left)
		log_warn("iscsi: connections still closing after %llu s",
			 (unsigned long long)(DRAIN_WAIT_NS / 1000000000ull));
}

void iscsi_shutdown(void)
{
	if (!iscsi_global.initialized)
		return;
	iscsi_isns_shutdown(); /* the entity leaves the server first */
	iscsi_portals_close_all();
	drop_conns(NULL);
	iscsi_adm_report(); /* the evictions not reported yet */
}

void iscsi_target_get(struct iscsi_target *t)
{
	atomic_fetch_add(&t->refs, 1);
}

void iscsi_target_put(struct iscsi_target *t)
{
	struct iscsi_tpg *tpg, *tmp;

	if (atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	iscsi_access_put(t->access);
	list_for_each_entry_safe(tpg, tmp, &t->tpgs, node)
	{
		list_del(&tpg->node);
		free(tpg);
	}
	free(t);
}

struct iscsi_target *iscsi_target_add(struct scsi_target *st, const char *alias)
{
	const char *name = scsi_target_name(st);
	struct iscsi_target *t;

	if (!name || strlen(name) > ISCSI_NAME_MAX || (alias && strlen(alias) > ISCSI_ALIAS_MAX))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->st = st;
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (alias)
		snprintf(t->alias, sizeof(t->alias), "%s", alias);
	list_init(&t->tpgs);
	atomic_init(&t->refs, 1);
	pthread_mutex_lock(&iscsi_global.lock);
	list_add_tail(&iscsi_global.targets, &t->node);
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_isns_changed();
	return t;
}

void iscsi_target_del(struct iscsi_target *t)
{
	struct iscsi_tpg *tpg;

	pthread_mutex_lock(&iscsi_global.lock);
	t->removed = true;
	list_del(&t->node);
	pthread_mutex_unlock(&iscsi_global.lock);
	list_for_each_entry(tpg, &t->tpgs, node) iscsi_tpg_unbind_all(tpg);
	drop_conns(t);
	iscsi_target_put(t);
	iscsi_isns_changed();
}

struct iscsi_tpg *iscsi_tpg_add(struct iscsi_target *t, uint16_t tag, uint16_t rel_port_id,
				uint16_t port_group)
{
	char port_name[ISCSI_NAME_MAX + 16];
	struct iscsi_tpg *tpg;

	if (tag == 0)
		return NULL;
	list_for_each_entry(tpg, &t->tpgs, node) if (tpg->tag == tag && !tpg->removed) return NULL;
	tpg = calloc(1, sizeof(*tpg));
	if (!tpg)
		return NULL;
	/* SPC-4 7.6.4.7 / RFC 7143 4.4.1: "<iqn>,t,0x<tpgt>" */
	snprintf(port_name, sizeof(port_name), "%s,t,0x%04x", t->name, tag);
	tpg->tport = scsi_tport_create(t->st, port_name, rel_port_id, port_group);
	if (!tpg->tport) {
		free(tpg);
		return NULL;
	}
	tpg->target = t;
	tpg->tag = tag;
	list_init(&tpg->binds);
	pthread_mutex_lock(&iscsi_global.lock);
	list_add_tail(&t->tpgs, &tpg->node);
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_isns_changed();
	return tpg;
}

struct iscsi_target *iscsi_target_find_locked(const char *name)
{
	struct iscsi_target *t;

	list_for_each_entry(t, &iscsi_global.targets, node) if (!strcmp(t->name, name)) return t;
	return NULL;
}

struct iscsi_tpg *iscsi_tpg_find_locked(struct iscsi_target *t, const struct iscsi_portal *portal)
{
	struct iscsi_tpg *tpg;

	list_for_each_entry(tpg, &t->tpgs, node)
	{
		struct iscsi_bind *b;

		list_for_each_entry(b, &tpg->binds, tpg_node) if (b->portal == portal) return tpg;
	}
	return NULL;
}
