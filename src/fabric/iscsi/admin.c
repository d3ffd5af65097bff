/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admin.c: control-plane operations on the running fabric (iscsi.h, "live
 * changes"): remove a portal group or one of its portals, change a target's
 * alias, end the sessions of one initiator, list sessions and connections
 * and end them.
 *
 * Ending a session: either a target-initiated logout (RFC 7143 11.9.1: an
 * Asynchronous Message with AsyncEvent 1 asks the initiator to log out
 * within Parameter3 seconds; the connection is dropped if it has not by
 * then), or a drop (the connections are closed and the initiator sees the
 * transport go; ERL 0: the session goes with its last connection, its tasks
 * are aborted as for I_T nexus loss). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/isns.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

#define ADMIN_DRAIN_S 3

typedef bool (*conn_match_fn)(const struct iscsi_conn *c, const void *arg);

/* Drop every connection matching, then wait (bounded) until they are gone.
 * Connections of the calling reactor are dropped inline (a message to
 * ourselves would only run after the wait). Under iscsi_global.lock the
 * match may read c->target, c->tpg and c->sess (set under it by login). */
static unsigned admin_drop(conn_match_fn match, const void *arg)
{
	struct reactor *self = reactor_self();
	struct iscsi_conn **mine = NULL, *c;
	unsigned nmine = 0, cap = 0, n = 0;
	struct timespec deadline;
	bool left;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(c, &iscsi_global.conns, all_node)
	{
		if (!match(c, arg))
			continue;
		n++;
		if (c->r != self) {
			iscsi_conn_drop_async(c);
			continue;
		}
		if (nmine == cap) {
			unsigned ncap = cap ? cap * 2 : 8;
			struct iscsi_conn **v = realloc(mine, ncap * sizeof(*v));

			if (!v) {
				iscsi_conn_drop_async(c); /* later, but dropped */
				continue;
			}
			mine = v;
			cap = ncap;
		}
		iscsi_conn_get(c);
		mine[nmine++] = c;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	for (unsigned i = 0; i < nmine; i++) {
		iscsi_conn_event(mine[i], ISCSI_CEV_DROP);
		iscsi_conn_put(mine[i]);
	}
	free(mine);
	if (!n)
		return 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += ADMIN_DRAIN_S;
	pthread_mutex_lock(&iscsi_global.lock);
	for (;;) {
		left = false;
		list_for_each_entry(c, &iscsi_global.conns, all_node) left |= match(c, arg);
		if (!left ||
		    pthread_cond_timedwait(&iscsi_global.conns_cv, &iscsi_global.lock, &deadline))
			break;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (left)
		log_warn("iscsi: connections still closing after %d s", ADMIN_DRAIN_S);
	return n;
}

static bool match_tpg(const struct iscsi_conn *c, const void *arg)
{
	return c->tpg == arg;
}

struct match_ini {
	const struct iscsi_target *t;
	const char *name;
};

static bool match_initiator(const struct iscsi_conn *c, const void *arg)
{
	const struct match_ini *m = arg;

	return c->target == m->t && c->sess && strcmp(c->sess->initiator_name, m->name) == 0;
}

void iscsi_tpg_del(struct iscsi_tpg *tpg)
{
	/* no new logins: gone from discovery and from its portals */
	iscsi_tpg_unbind_all(tpg);
	pthread_mutex_lock(&iscsi_global.lock);
	tpg->removed = true;
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_isns_changed();
	admin_drop(match_tpg, tpg);
	/* the SCSI target port leaves its ALUA group; the structures stay
	 * until the target goes (sessions still ending point at them) */
	if (tpg->tport)
		scsi_tport_retire(tpg->tport);
	log_info("iscsi: %s: portal group %u removed", tpg->target->name, tpg->tag);
}

int iscsi_tpg_set_port_group(struct iscsi_tpg *tpg, uint16_t port_group)
{
	int rc = tpg->tport ? scsi_tport_set_port_group(tpg->tport, port_group) : -ENOENT;

	if (!rc)
		log_info("iscsi: %s: portal group %u is in target port group %u", tpg->target->name,
			 tpg->tag, port_group);
	return rc;
}

void iscsi_target_set_alias(struct iscsi_target *t, const char *alias)
{
	pthread_mutex_lock(&iscsi_global.lock);
	snprintf(t->alias, sizeof(t->alias), "%s", alias ? alias : "");
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_isns_changed();
}

unsigned iscsi_target_drop_initiator(struct iscsi_target *t, const char *initiator)
{
	struct match_ini m = {.t = t, .name = initiator};

	return admin_drop(match_initiator, &m);
}

/* ---- sessions ---- */
static const char *const admin_conn_states[] = {
    [ISCSI_CONN_S1_FREE] = "free",
    [ISCSI_CONN_S3_XPT_UP] = "xpt_up",
    [ISCSI_CONN_S4_IN_LOGIN] = "in_login",
    [ISCSI_CONN_S5_LOGGED_IN] = "logged_in",
    [ISCSI_CONN_S6_IN_LOGOUT] = "in_logout",
    [ISCSI_CONN_S7_LOGOUT_REQUESTED] = "logout_requested",
    [ISCSI_CONN_S8_CLEANUP_WAIT] = "cleanup_wait",
};

static const char *const admin_sess_states[] = {
    [ISCSI_SESS_Q1_FREE] = "free",
    [ISCSI_SESS_Q2_ACTIVE] = "active",
    [ISCSI_SESS_Q3_LOGGED_IN] = "logged_in",
    [ISCSI_SESS_Q4_FAILED] = "failed",
    [ISCSI_SESS_Q5_IN_CONTINUE] = "in_continue",
};

static void admin_fill(struct iscsi_session_info *si, const struct iscsi_session *s)
{
	const struct iscsi_conn *c;
	size_t k = 0;

	*si = (struct iscsi_session_info){
	    .tsih = s->tsih,
	    .discovery = s->type != ISCSI_SESSION_NORMAL,
	    .tpgt = s->tpg ? s->tpg->tag : 0,
	};
	snprintf(si->target, sizeof(si->target), "%s", s->target ? s->target->name : "");
	snprintf(si->initiator, sizeof(si->initiator), "%s", s->initiator_name);
	snprintf(si->initiator_alias, sizeof(si->initiator_alias), "%s", s->initiator_alias);
	memcpy(si->isid, s->isid, sizeof(si->isid));
	si->logged_in = s->state == ISCSI_SESS_Q3_LOGGED_IN;
	si->state = s->state < ARRAY_SIZE(admin_sess_states) && admin_sess_states[s->state]
			? admin_sess_states[s->state]
			: "free";
	/* set before the session was registered, fixed since */
	si->login_time = s->login_time;
	si->max_burst_length = s->params.max_burst_length;
	si->first_burst_length = s->params.first_burst_length;
	si->initial_r2t = s->params.initial_r2t;
	si->immediate_data = s->params.immediate_data;
	si->error_recovery_level = s->params.error_recovery_level;
	si->max_connections = s->params.max_connections;
	/* written by the session's reactor (iscsi_session_count()) */
	si->commands = atomic_load_explicit(&s->stat_cmds, memory_order_relaxed);
	si->read_bytes = atomic_load_explicit(&s->stat_read_bytes, memory_order_relaxed);
	si->write_bytes = atomic_load_explicit(&s->stat_write_bytes, memory_order_relaxed);
	si->command_pdus = atomic_load_explicit(&s->stat_cmd_pdus, memory_order_relaxed);
	si->response_pdus = atomic_load_explicit(&s->stat_rsp_pdus, memory_order_relaxed);
	si->tx_data_bytes = atomic_load_explicit(&s->stat_tx_data, memory_order_relaxed);
	si->rx_data_bytes = atomic_load_explicit(&s->stat_rx_data, memory_order_relaxed);
	si->digest_errors = atomic_load_explicit(&s->stat_digest_errors, memory_order_relaxed);
	si->connection_timeouts = atomic_load_explicit(&s->stat_cxn_timeouts, memory_order_relaxed);
	si->format_errors = atomic_load_explicit(&s->stat_format_errors, memory_order_relaxed);
	si->snacks = atomic_load_explicit(&s->stat_snacks, memory_order_relaxed);
	si->retransmitted_pdus = atomic_load_explicit(&s->stat_retx_pdus, memory_order_relaxed);
	si->retransmitted_bytes = atomic_load_explicit(&s->stat_retx_bytes, memory_order_relaxed);
	si->retried_commands = atomic_load_explicit(&s->stat_retried_cmds, memory_order_relaxed);
	si->retain_evicted = atomic_load_explicit(&s->stat_retain_evicted, memory_order_relaxed);
	si->data_acks = atomic_load_explicit(&s->stat_data_acks, memory_order_relaxed);
	si->connection_recoveries =
	    atomic_load_explicit(&s->stat_conn_recoveries, memory_order_relaxed);
	si->tasks_reassigned =
	    atomic_load_explicit(&s->stat_tasks_reassigned, memory_order_relaxed);
	si->tasks_expired = atomic_load_explicit(&s->stat_tasks_expired, memory_order_relaxed);
	list_for_each_entry(c, &s->conns, sess_node)
	{
		struct iscsi_conn_info *ci;
		uint8_t st = c->state;

		if (k == ISCSI_INFO_CONNS_MAX)
			break;
		ci = &si->conns[k++];
		ci->cid = c->cid;
		snprintf(ci->peer, sizeof(ci->peer), "%s", c->peer);
		snprintf(ci->local, sizeof(ci->local), "%s", c->local);
		ci->state = st < ARRAY_SIZE(admin_conn_states) && admin_conn_states[st]
				? admin_conn_states[st]
				: "unknown";
		/* written under iscsi_global.lock (login.c, text.c) */
		ci->header_digest = c->hdigest;
		ci->data_digest = c->ddigest;
		ci->max_recv_dsl = c->max_recv_dsl;
		ci->max_send_dsl = c->max_send_dsl;
		/* written by the connection's reactor */
		ci->rx_pdus = atomic_load_explicit(&c->stat_rx_pdus, memory_order_relaxed);
		ci->tx_pdus = atomic_load_explicit(&c->stat_tx_pdus, memory_order_relaxed);
		ci->rx_bytes = atomic_load_explicit(&c->stat_rx_bytes, memory_order_relaxed);
		ci->tx_bytes = atomic_load_explicit(&c->stat_tx_bytes, memory_order_relaxed);
		/* c->r and sock_reactor are written under iscsi_global.lock */
		ci->reactor = c->r ? reactor_id(c->r) : 0;
		ci->socket_reactor = c->sock_reactor >= 0 ? (unsigned)c->sock_reactor : ci->reactor;
	}
	si->nconns = k;
}

int iscsi_session_list(struct iscsi_session_info **out, size_t *n)
{
	struct iscsi_session_info *v;
	struct iscsi_session *s;
	size_t cap, k = 0;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&iscsi_global.lock);
	cap = iscsi_global.nsessions;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v) {
		pthread_mutex_unlock(&iscsi_global.lock);
		return -ENOMEM;
	}
	list_for_each_entry(s, &iscsi_global.sessions, reg_node)
	{
		if (k == cap)
			break;
		admin_fill(&v[k++], s);
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	*out = v;
	*n = k;
	return 0;
}

struct match_sess {
	uint16_t tsih;
	int cid; /* -1: every connection */
};

static bool match_session(const struct iscsi_conn *c, const void *arg)
{
	const struct match_sess *m = arg;

	return c->sess && c->sess->registered && c->sess->tsih == m->tsih &&
	       (m->cid < 0 || c->cid == (uint16_t)m->cid);
}

/* ---- target-initiated logout (RFC 7143 11.9.1, AsyncEvent 1) ---- */

/* One request on one connection, on its reactor: the Async Message now,
 * the drop if the initiator has not logged out by the deadline. */
struct logout_req {
	struct reactor_msg msg;
	struct reactor_timer timer;
	struct iscsi_conn *c; /* referenced */
	uint16_t seconds;
	uint64_t deadline_ns;
};

#define LOGOUT_TICK_NS (50ull * 1000000ull)

/* Every 50 ms until the connection is gone (the request is freed soon
 * after a Logout) or the deadline passes (then it is dropped). */
static void logout_tick(struct reactor_timer *t)
{
	struct logout_req *lr = container_of(t, struct logout_req, timer);
	struct iscsi_conn *c = lr->c;

	if (!iscsi_conn_dead(c) && reactor_now_ns() < lr->deadline_ns) {
		reactor_timer_arm(c->r, &lr->timer, LOGOUT_TICK_NS);
		return;
	}
	if (!iscsi_conn_dead(c)) {
		log_notice("iscsi: %s: no Logout within %u s of the target's request: dropped",
			   c->peer, lr->seconds);
		/* 11.9.1: "the target should send an Async PDU with iSCSI event
		 * code 'Dropped the connection' if possible" */
		iscsi_async_drop(c, ISCSI_ASYNC_DROP_CONNECTION, 0);
	}
	iscsi_conn_put(c);
	free(lr);
}

static void logout_send(struct reactor_msg *m)
{
	struct logout_req *lr = container_of(m, struct logout_req, msg);
	struct iscsi_conn *c = lr->c;
	struct iscsi_bhs_async *h;
	struct iscsi_tx *tx;

	if (iscsi_conn_dead(c) || c->state != ISCSI_CONN_S5_LOGGED_IN || !(tx = iscsi_tx_get(c))) {
		/* not in full feature phase (or no memory): a drop instead */
		if (!iscsi_conn_dead(c))
			iscsi_conn_drop(c, "logout requested outside full feature phase");
		iscsi_conn_put(c);
		free(lr);
		return;
	}
	h = &tx->hdr.async;
	h->opcode = ISCSI_OP_ASYNC_MSG;
	h->flags = ISCSI_FLAG_FINAL;
	put_be32(h->itt, ISCSI_RSVD_TAG);
	/* 11.9: a status-bearing PDU (StatSN advances) */
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, true);
	h->event = ISCSI_ASYNC_LOGOUT_REQUEST;
	/* 11.9.1: Parameter3, the time allowed for the Logout */
	put_be16(h->param3, lr->seconds);
	iscsi_tx_queue(c, tx);
	log_info("iscsi: %s: Logout requested (AsyncEvent 1, within %u s)", c->peer, lr->seconds);
	/* the initiator's answer has its time; the drop follows if it does not come */
	lr->deadline_ns = reactor_now_ns() + ((uint64_t)lr->seconds + 1) * 1000000000ull;
	reactor_timer_init(&lr->timer, logout_tick);
	reactor_timer_arm(c->r, &lr->timer, LOGOUT_TICK_NS);
}

int iscsi_session_logout(uint16_t tsih, int cid, uint16_t seconds)
{
	struct match_sess m = {.tsih = tsih, .cid = cid};
	struct iscsi_conn *c;
	unsigned n = 0;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(c, &iscsi_global.conns, all_node)
	{
		struct logout_req *lr;

		if (!match_session(c, &m) || c->drop_posted)
			continue;
		lr = calloc(1, sizeof(*lr));
		if (!lr) {
			iscsi_conn_drop_async(c); /* no memory: a drop instead */
			n++;
			continue;
		}
		iscsi_conn_get(c);
		lr->c = c;
		lr->seconds = seconds ? seconds : 1;
		lr->msg.fn = logout_send;
		reactor_post(c->r, &lr->msg);
		n++;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	return n ? 0 : -ENOENT;
}

/* ---- the target's other Asynchronous Messages (RFC 7143 11.9.1) ---- */
struct async_req {
	struct reactor_msg msg;
	struct iscsi_conn *c; /* referenced */
	uint8_t event;	      /* ISCSI_ASYNC_DROP_CONNECTION, _DROP_ALL_CONNECTIONS, _RENEGOTIATE */
	uint16_t time2wait;
};

static void async_send(struct reactor_msg *m)
{
	struct async_req *ar = container_of(m, struct async_req, msg);
	struct iscsi_conn *c = ar->c;

	if (ar->event == ISCSI_ASYNC_RENEGOTIATE) {
		if (iscsi_async_renegotiate(c))
			log_notice("iscsi: %s: renegotiation not requested (not in full feature "
				   "phase)",
				   c->peer);
	} else {
		iscsi_async_drop(c, ar->event, ar->time2wait);
	}
	iscsi_conn_put(c);
	free(ar);
}

/* One message per matching connection, sent on its reactor. */
static int post_async(uint16_t tsih, int cid, uint8_t event, uint16_t time2wait)
{
	struct match_sess m = {.tsih = tsih, .cid = cid};
	struct iscsi_conn *c;
	unsigned n = 0;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(c, &iscsi_global.conns, all_node)
	{
		struct async_req *ar;

		if (!match_session(c, &m) || c->drop_posted)
			continue;
		n++;
		ar = calloc(1, sizeof(*ar));
		if (!ar) {
			if (event != ISCSI_ASYNC_RENEGOTIATE)
				iscsi_conn_drop_async(c); /* no memory: a drop without notice */
			continue;
		}
		iscsi_conn_get(c);
		ar->c = c;
		ar->event = event;
		ar->time2wait = time2wait;
		ar->msg.fn = async_send;
		reactor_post(c->r, &ar->msg);
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	return n ? 0 : -ENOENT;
}

int iscsi_session_drop_announced(uint16_t tsih, int cid, uint16_t time2wait)
{
	int rc = post_async(
	    tsih, cid, cid < 0 ? ISCSI_ASYNC_DROP_ALL_CONNECTIONS : ISCSI_ASYNC_DROP_CONNECTION,
	    time2wait);

	if (!rc)
		log_notice("iscsi: session tsih %u%s: drop announced (Time2Wait %u s)", tsih,
			   cid >= 0 ? " (one connection)" : "", time2wait);
	return rc;
}

int iscsi_session_renegotiate(uint16_t tsih, int cid)
{
	return post_async(tsih, cid, ISCSI_ASYNC_RENEGOTIATE, 0);
}

int iscsi_session_drop(uint16_t tsih, int cid)
{
	struct match_sess m = {.tsih = tsih, .cid = cid};

	if (!admin_drop(match_session, &m))
		return -ENOENT;
	log_notice("iscsi: session tsih %u%s dropped by the administrator", tsih,
		   cid >= 0 ? " (one connection)" : "");
	return 0;
}
