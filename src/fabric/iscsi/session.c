/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.c: sessions, the registry, TSIH allocation and reinstatement
 * (RFC 7143 4.4, 6.3.5, 8.3). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/login.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* ---- RFC 7143 8.3.2: target session state transitions. Below ERL 2 a
 * session that fails is cleaned up at once (nothing outlives its last
 * connection). At ERL 2 a session whose last connection failed for
 * recovery (its tasks wait in shells for TASK REASSIGN, erl2.c) stays in
 * Q4 FAILED, joinable by TSIH, until the shells are reassigned or expire
 * (Time2Wait + Time2Retain: N6); a login with its TSIH is a session
 * continuation, Q4 -> Q5 -> Q3. The continuation's two transitions carry
 * no N-number here: the RFC text was not at hand to check them. ---- */
struct sess_transition {
	uint8_t next;
	const char *label;
};

/* clang-format off */
static const struct sess_transition sess_fsm[ISCSI_SESS_Q5_IN_CONTINUE + 1][ISCSI_SEV_COUNT] = {
	[ISCSI_SESS_Q1_FREE] = {
		[ISCSI_SEV_LEADING_LOGIN] = { ISCSI_SESS_Q2_ACTIVE, "N1" },
	},
	[ISCSI_SESS_Q2_ACTIVE] = {
		[ISCSI_SEV_LOGGED_IN] = { ISCSI_SESS_Q3_LOGGED_IN, "N2" },
		[ISCSI_SEV_LOGIN_FAILED] = { ISCSI_SESS_Q1_FREE, "N9" },
		[ISCSI_SEV_CLOSED] = { ISCSI_SESS_Q1_FREE, "N9" },
		[ISCSI_SEV_FAILED] = { ISCSI_SESS_Q1_FREE, "N9" },
	},
	[ISCSI_SESS_Q3_LOGGED_IN] = {
		[ISCSI_SEV_CLOSED] = { ISCSI_SESS_Q1_FREE, "N3" },
		[ISCSI_SEV_FAILED] = { ISCSI_SESS_Q4_FAILED, "N5" },
	},
	[ISCSI_SESS_Q4_FAILED] = {
		/* session state timeout, or reinstatement: below ERL 2
		 * nothing is retained, at once */
		[ISCSI_SEV_CLEANED] = { ISCSI_SESS_Q1_FREE, "N6" },
		[ISCSI_SEV_CONTINUE] = { ISCSI_SESS_Q5_IN_CONTINUE, "continuation" },
	},
	[ISCSI_SESS_Q5_IN_CONTINUE] = {
		[ISCSI_SEV_CONTINUED] = { ISCSI_SESS_Q3_LOGGED_IN, "continued" },
	},
};
/* clang-format on */

void iscsi_session_event(struct iscsi_session *s, enum iscsi_session_event ev)
{
	const struct sess_transition *t = &sess_fsm[s->state][ev];
	uint8_t from = s->state;

	if (!t->next) {
		log_warn("iscsi: session %s tsih %u: event %d illegal in Q%u", s->initiator_port,
			 s->tsih, (int)ev, from);
		return;
	}
	s->state = t->next;
	log_debug("iscsi: session %s tsih %u: Q%u -> Q%u (%s)", s->initiator_port, s->tsih, from,
		  s->state, t->label);
	/* nothing waits for reassignment, or the session ends anyway */
	if (s->state == ISCSI_SESS_Q4_FAILED && (!s->nrecov || s->ending))
		iscsi_session_event(s, ISCSI_SEV_CLEANED);
}

struct iscsi_session *iscsi_session_new(struct iscsi_conn *c)
{
	struct iscsi_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->r = c->r;
	s->state = ISCSI_SESS_Q1_FREE;
	list_init(&s->reg_node);
	list_init(&s->conns);
	list_init(&s->held);
	list_init(&s->unentered);
	list_init(&s->tmf_held);
	list_init(&s->waiters);
	list_init(&s->ack_waits);
	list_init(&s->fence_waiters);
	list_init(&s->recov);
	s->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10ull * 1000000000ull, 5);
	iscsi_session_event(s, ISCSI_SEV_LEADING_LOGIN);
	return s;
}

static bool tsih_in_use_locked(uint16_t tsih)
{
	struct iscsi_session *s;

	list_for_each_entry(s, &iscsi_global.sessions, reg_node) if (s->tsih == tsih) return true;
	return false;
}

static uint16_t tsih_random(void)
{
	uint16_t t = 0;

	/* getrandom(2) of two bytes does not block once the pool is ready
	 * and is not interrupted; a failure leaves a start of 0 */
	if (getrandom(&t, sizeof(t), 0) != (ssize_t)sizeof(t))
		t = 0;
	return t;
}

int iscsi_session_register(struct iscsi_session *s)
{
	uint16_t tsih;
	int rc = 0;

	pthread_mutex_lock(&iscsi_global.lock);
	/* discovery sessions are counted apart and capped by admission.c
	 * (max_discovery_sessions): max_sessions is for normal sessions */
	if (s->type == ISCSI_SESSION_NORMAL && iscsi_global.settings.max_sessions &&
	    iscsi_global.nsessions - iscsi_global.ndiscovery >=
		iscsi_global.settings.max_sessions) {
		rc = -EBUSY;
		goto out;
	}
	if (s->target && s->target->limits.max_sessions &&
	    s->target->nsessions >= s->target->limits.max_sessions) {
		rc = -EDQUOT;
		goto out;
	}
	/* RFC 7143 11.12.6: TSIH 0 is reserved; unique among live sessions.
	 * Drawn at random: a TSIH names a session in a login (TSIH != 0), so
	 * the next one must not follow from the last one handed out. From the
	 * random start the first free value is taken. */
	tsih = tsih_random();
	for (unsigned tries = 0; tries < 65536; tries++, tsih++) {
		if (tsih && !tsih_in_use_locked(tsih)) {
			s->tsih = tsih;
			break;
		}
	}
	if (!s->tsih) {
		rc = -ENOSPC;
		goto out;
	}
	list_add_tail(&iscsi_global.sessions, &s->reg_node);
	iscsi_global.nsessions++;
	if (s->target)
		s->target->nsessions++;
	s->registered = true;
	if (s->type == ISCSI_SESSION_DISCOVERY)
		iscsi_global.ndiscovery++;
out:
	pthread_mutex_unlock(&iscsi_global.lock);
	return rc;
}

/* SPC-4 7.6.4.6: iSCSI TransportID, format 01b (initiator port name:
 * "<name>,i,0x<ISID>"), NUL terminated and padded to a multiple of 4. */
static size_t build_transport_id(uint8_t *buf, size_t size, const char *port_name)
{
	size_t n = strlen(port_name) + 1;
	size_t padded = UT_ALIGN_UP(n, (size_t)4);

	if (padded < 20)
		padded = 20; /* at least 24 bytes in all */
	if (4 + padded > size)
		return 0;
	memset(buf, 0, 4 + padded);
	buf[0] = 0x40 | 0x05; /* FORMAT CODE 01b, PROTOCOL IDENTIFIER 5h (iSCSI) */
	put_be16(buf + 2, (uint16_t)padded);
	memcpy(buf + 4, port_name, n);
	return 4 + padded;
}

int iscsi_session_nexus(struct iscsi_session *s, struct scsi_lun_map *map)
{
	uint8_t tid[ISCSI_NAME_MAX + 64];
	struct scsi_nexus_info info = {
	    .initiator_name = s->initiator_name,
	    .initiator_port_name = s->initiator_port,
	    .transport_id = tid,
	    .ops = &iscsi_fabric_ops,
	    .fabric_priv = s,
	    .target_reset = s->perms & ISCSI_PERM_TARGET_RESET,
	    /* RFC 7144 4.2: the function codes exist from level 2 on */
	    .query_tmfs = s->params.protocol_level >= 2,
	};

	info.transport_id_len = build_transport_id(tid, sizeof(tid), s->initiator_port);
	s->nexus = scsi_nexus_create(s->tpg->tport, map, &info);
	scsi_lun_map_put(map); /* the nexus holds its own reference */
	return s->nexus ? 0 : -ENOMEM;
}

void iscsi_session_add_conn(struct iscsi_session *s, struct iscsi_conn *c)
{
	pthread_mutex_lock(&iscsi_global.lock);
	list_add_tail(&s->conns, &c->sess_node);
	s->nconns++;
	c->sess = s;
	pthread_mutex_unlock(&iscsi_global.lock);
}

static void session_waiter_resume(struct reactor_msg *m)
{
	struct iscsi_conn *c = container_of(m, struct iscsi_conn, resume_msg);

	if (!iscsi_conn_dead(c))
		iscsi_login_resume(c);
	iscsi_conn_put(c);
}

static void session_maybe_free(struct iscsi_session *s)
{
	struct iscsi_conn *w, *tmp;

	if (s->nconns || s->tasks || s->nrecov)
		return;
	reactor_timer_cancel(&s->recov_timer);
	if (s->nexus) {
		scsi_nexus_destroy(s->nexus);
		s->nexus = NULL;
	}
	pthread_mutex_lock(&iscsi_global.lock);
	if (s->registered) {
		list_del(&s->reg_node);
		iscsi_global.nsessions--;
		if (s->type == ISCSI_SESSION_DISCOVERY)
			iscsi_global.ndiscovery--;
		if (s->target)
			s->target->nsessions--;
		s->registered = false;
	}
	/* logins waiting for this session to be gone (reinstatement) */
	list_for_each_entry_safe(w, tmp, &s->waiters, reinstate_node)
	{
		list_del(&w->reinstate_node);
		w->resume_msg.fn = session_waiter_resume;
		reactor_post(w->r, &w->resume_msg); /* carries the waiter's reference */
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	log_debug("iscsi: session %s tsih %u freed", s->initiator_port, s->tsih);
	if (s->target)
		iscsi_target_put(s->target);
	free(s);
}

/* A connection of a session that keeps others fails (MC/S). RFC 7143
 * 7.1.5 (error recovery hierarchy): at ErrorRecoveryLevel 0 the only
 * recovery class is session recovery (7.1.4.4); within-connection recovery
 * needs ERL 1 (erl.c, snack.c: it does not help here), connection recovery (7.1.4.3: task
 * reassignment to another connection, 7.2.2, Logout reason 2) ERL 2. A failed connection's tasks
 * are terminated (7.14), and with them the CmdSNs it carried that never
 * arrived: the session's ExpCmdSN would stop
 * at the first of them for good, and every command of the other
 * connections after it would wait in the held list forever (4.2.2.1: the
 * target delivers in CmdSN order). The initiator cannot fill the hole
 * either: retrying a command on another connection is task reassignment.
 * So the session fails with the connection: its other connections are
 * closed and the initiator recovers the session (a new leading login or
 * a reinstatement), as it would after the failure of a single-connection
 * session. A connection removed by a Logout (reason 1) is no failure:
 * the session stays with the others. */
static void session_conn_failed_locked(struct iscsi_session *s, struct iscsi_conn *c)
{
	struct iscsi_conn *oc;

	if (s->ending)
		return; /* already failing, or closing */
	s->ending = true;
	list_for_each_entry(oc, &s->conns, sess_node) iscsi_conn_drop_async(oc);
	log_notice("iscsi: session %s tsih %u: connection cid %u from %s failed: the session "
		   "fails with it (ErrorRecoveryLevel %u%s), %u connection%s closed",
		   s->initiator_port, s->tsih, c->cid, c->peer,
		   (unsigned)s->params.error_recovery_level,
		   s->params.error_recovery_level < 2 ? ", below 2" : ": closed by the target",
		   s->nconns, s->nconns == 1 ? "" : "s");
}

void iscsi_session_remove_conn(struct iscsi_session *s, struct iscsi_conn *c, bool clean)
{
	bool last;

	/* no acknowledgment comes from it (task_reporting.c); while c still
	 * counts, so that a TMF ended here does not free s */
	iscsi_ack_waits_conn_gone(s, c);
	iscsi_tmf_held_conn_gone(s, c);
	if (c->recovering) {
		/* ERL 2 connection recovery (erl2.c): no failure of the
		 * session; c stays as a shell holding its tasks for TASK
		 * REASSIGN, the session with it, even with no connection */
		pthread_mutex_lock(&iscsi_global.lock);
		list_del(&c->sess_node);
		s->nconns--;
		pthread_mutex_unlock(&iscsi_global.lock);
		iscsi_erl2_park(s, c);
		if (!s->nconns && s->state == ISCSI_SESS_Q3_LOGGED_IN)
			iscsi_session_event(s, ISCSI_SEV_FAILED); /* N5: Q4, shells wait */
		return;
	}
	pthread_mutex_lock(&iscsi_global.lock);
	list_del(&c->sess_node);
	s->nconns--;
	last = s->nconns == 0;
	if (last)
		s->ending = true; /* read by other reactors' logins under the lock */
	else if (!clean)
		session_conn_failed_locked(s, c);
	pthread_mutex_unlock(&iscsi_global.lock);
	if (!last) {
		log_info("iscsi: session %s tsih %u: connection cid %u from %s %s, %u left",
			 s->initiator_port, s->tsih, c->cid, c->peer,
			 clean ? "logged out" : "closed", s->nconns);
		return;
	}
	if (s->state == ISCSI_SESS_Q3_LOGGED_IN && !clean)
		iscsi_count_session_failed(s, c);
	if (s->state == ISCSI_SESS_Q3_LOGGED_IN) {
		char iname[96];

		/* the same I_T nexus fields as the login line */
		log_escape(iname, sizeof(iname), s->initiator_name, strlen(s->initiator_name));
		log_notice("iscsi: %s: initiator %s isid 0x%02x%02x%02x%02x%02x%02x -> %s tpgt %u: "
			   "%s session tsih %u, from %s to %s%s",
			   clean ? "logout" : "session closed", iname, s->isid[0], s->isid[1],
			   s->isid[2], s->isid[3], s->isid[4], s->isid[5],
			   s->target ? s->target->name : "(discovery)", s->tpg ? s->tpg->tag : 0,
			   s->type == ISCSI_SESSION_NORMAL ? "normal" : "discovery", s->tsih,
			   c->peer, c->local, clean ? "" : " (connection lost)");
	}
	iscsi_session_event(s, clean ? ISCSI_SEV_CLOSED : ISCSI_SEV_FAILED);
	if (s->nrecov) {
		/* ERL 2: the session ends: the tasks waiting for reassignment
		 * with it (erl2.c) */
		s->tasks++;
		iscsi_erl2_end_all(s);
		s->tasks--;
	}
	if (s->nexus && !s->nexus_lost && (!clean || s->tasks)) {
		/* SAM-5 6.3.4: the core aborts the tasks of the nexus; their
		 * completions come back through cmd_done/cmd_abort_pending */
		s->nexus_lost = true;
		s->tasks++; /* completions inside must not free s under us */
		scsi_nexus_loss(s->nexus);
		s->tasks--;
	}
	session_maybe_free(s);
}

void iscsi_session_recovery_over(struct iscsi_session *s)
{
	if (s->nconns || s->nrecov || s->ending)
		return;
	pthread_mutex_lock(&iscsi_global.lock);
	s->ending = true; /* no connection joins it any more */
	pthread_mutex_unlock(&iscsi_global.lock);
	log_notice("iscsi: session %s tsih %u: no connection left and no task to reassign: the "
		   "session ends",
		   s->initiator_port, s->tsih);
	if (s->state == ISCSI_SESS_Q3_LOGGED_IN)
		iscsi_session_event(s, ISCSI_SEV_FAILED); /* N5, N6 */
	else if (s->state == ISCSI_SESS_Q4_FAILED)
		iscsi_session_event(s, ISCSI_SEV_CLEANED); /* N6 */
	if (s->nexus && !s->nexus_lost && s->tasks) {
		s->nexus_lost = true;
		s->tasks++;
		scsi_nexus_loss(s->nexus);
		s->tasks--;
	}
	session_maybe_free(s);
}

void iscsi_session_abandon(struct iscsi_session *s)
{
	s->ending = true;
	iscsi_session_event(s, ISCSI_SEV_LOGIN_FAILED);
	session_maybe_free(s);
}

void iscsi_session_task_released(struct iscsi_session *s)
{
	s->tasks--;
	if (s->ending)
		session_maybe_free(s);
}

int iscsi_session_reinstate(struct iscsi_conn *c, const uint8_t *isid, const char *iname,
			    struct iscsi_target *t)
{
	struct iscsi_session *s, *found = NULL;
	struct iscsi_conn *oc;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(s, &iscsi_global.sessions, reg_node)
	{
		if (s->target == t && memcmp(s->isid, isid, ISCSI_ISID_LEN) == 0 &&
		    strcmp(s->initiator_name, iname) == 0) {
			found = s;
			break;
		}
	}
	if (!found) {
		pthread_mutex_unlock(&iscsi_global.lock);
		return 0;
	}
	if (found->state == ISCSI_SESS_Q2_ACTIVE && !found->ending) {
		pthread_mutex_unlock(&iscsi_global.lock);
		return -EBUSY;
	}
	iscsi_conn_get(c);
	list_add_tail(&found->waiters, &c->reinstate_node);
	list_for_each_entry(oc, &found->conns, sess_node) iscsi_conn_drop_async(oc);
	/* ERL 2: no connection left, tasks waiting for reassignment: they
	 * end now, not after Time2Retain (erl2.c) */
	iscsi_erl2_end_async_locked(found);
	pthread_mutex_unlock(&iscsi_global.lock);
	log_notice("iscsi: %s: reinstating session %s tsih %u", c->peer, found->initiator_port,
		   found->tsih);
	return 1;
}

struct iscsi_session *iscsi_session_find_tsih_locked(uint16_t tsih)
{
	struct iscsi_session *s;

	list_for_each_entry(s, &iscsi_global.sessions, reg_node) if (s->tsih == tsih) return s;
	return NULL;
}

void iscsi_sessions_drop_target(struct iscsi_target *t, struct iscsi_conn *except)
{
	struct iscsi_conn *c;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(c, &iscsi_global.conns, all_node) if (c != except && c->target == t)
	    iscsi_conn_drop_async(c);
	pthread_mutex_unlock(&iscsi_global.lock);
}
