/* SPDX-License-Identifier: GPL-2.0-or-later */
/* erl2.c: ErrorRecoveryLevel 2, connection recovery (RFC 7143 7.1.4.3,
 * 7.2.2, 6.3.4, 11.5.1 TASK REASSIGN, 11.14/11.15 Logout reason 2).
 *
 * The life of a reassigned task:
 *  1. Its connection fails (socket error or EOF, a digest error that drops
 *     it, the NOP-In timeout: the T15/T17 transitions to S8), or a Logout
 *     reason 2 ("remove the connection for recovery", on it or on another
 *     connection of the session) or a login with its CID (the implicit
 *     logout of connection reinstatement, 6.3.4) removes it. At ERL 2 the
 *     session does not fail with it: the connection closes its socket and
 *     stays as a shell (session->recov) holding its tasks, as they were,
 *     and its retained copies (retain.c, within the 32 MiB cap of the
 *     connection): a write waiting for Data-Out keeps its buffer and its
 *     bursts' progress; a task the core runs completes normally and keeps
 *     its Data-In and status (scsi_cmd.c: erl2_done); a finished task
 *     whose status the initiator did not acknowledge has its copies.
 *     Counted in connection_recoveries.
 *  2. The initiator logs in a connection to the session (same ISID and
 *     TSIH; the failed CID or a new one) and sends TASK REASSIGN with the
 *     task's ITT as ReferencedTaskTag (11.5.1). The task's allegiance
 *     moves to that connection (scsi_cmd.c: iscsi_task_move), response 0,
 *     then: a read that finished sends its Data-In from the TMF's ExpDataSN
 *     (0: from what the initiator has not acknowledged with a DataACK)
 *     and its status, with a StatSN of the new connection (7.2.2: the
 *     status of a reassigned task goes on the new connection; StatSN is
 *     per connection); a write waiting for data gets recovery R2Ts (new
 *     TTTs) for what its open bursts had not received, then R2Ts for the
 *     rest, and its status when done; a task still running sends on the
 *     new connection when done. A task of the failed connection still
 *     allegiant to a live one: 03h; an ITT no connection nor shell knows:
 *     01h (the initiator issues the command again); below ERL 2: 04h.
 *     Counted in tasks_reassigned.
 *  3. Time2Wait + Time2Retain (the negotiated DefaultTime2Wait and
 *     DefaultTime2Retain, which the Logout Response carries, 11.15.2/3)
 *     after the failure, the tasks not reassigned end: the ones waiting
 *     for data are aborted, the finished ones released, the running ones
 *     released when the core completes them; the copies are freed and the
 *     shell goes (tasks_expired). The session lives on while it has a
 *     connection or a shell; with neither, it ends (session recovery is
 *     then the initiator's).
 * The session ends with its last connection (Logout reason 0, a failure
 * that is not recovered, reinstatement): the shells' tasks end with it.
 *
 * The RFC text itself was not at hand when this was written: the clauses
 * cited are where RFC 7143 puts these rules, the behaviour follows the
 * project's brief and matches what the Linux target does for TASK
 * REASSIGN (iscsit_tmr_task_reassign: the reassigned command's StatSN is
 * taken anew on the new connection, a read resends from ExpDataSN, a write
 * gets R2Ts for the data it lacks), except that the Linux target refuses
 * (255) a new connection with another MaxRecvDataSegmentLength where this
 * one segments the data again from the DataSN's offset: a task still
 * held from its buffer (iscsi_task_resend), a task already released from
 * its retained copies when they are longer than the new connection takes
 * (iscsi_rdata_reassign, rdata.c; as they were otherwise).
 * Where RFC 7143 left a choice: a TASK REASSIGN for a task already
 * allegiant to the requesting connection is 03h like any live connection's
 * (11.5.1: "the connection is still active"); Time2Wait is not enforced
 * on the initiator (a reconnection before it is accepted). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

bool iscsi_erl2(const struct iscsi_conn *c)
{
	return c->sess && c->sess->type == ISCSI_SESSION_NORMAL &&
	       c->sess->params.error_recovery_level >= 2;
}

bool iscsi_erl2_conn_closing(struct iscsi_conn *c, bool clean)
{
	struct iscsi_session *s = c->sess;

	if (c->recovering)
		return true;
	if (!iscsi_erl2(c) || c->login || c->leave_clean || s->ending ||
	    s->state != ISCSI_SESS_Q3_LOGGED_IN)
		return false;
	/* a failure (T15, T17: S8), or a removal for recovery; not a close
	 * the target chose (reinstatement, reset, shutdown: T8) nor a Logout
	 * reason 0/1 */
	if (!c->recov_requested && (clean || c->state != ISCSI_CONN_S8_CLEANUP_WAIT))
		return false;
	c->recovering = true;
	return true;
}

static void recov_timer_cb(struct reactor_timer *tm);

static void recov_timer_arm(struct iscsi_session *s)
{
	uint64_t next = UINT64_MAX, now = reactor_now_ns();
	struct iscsi_conn *o;

	list_for_each_entry(o, &s->recov, recov_node) next = UT_MIN(next, o->recov_deadline_ns);
	reactor_timer_cancel(&s->recov_timer);
	if (next == UINT64_MAX || !s->r)
		return;
	reactor_timer_init(&s->recov_timer, recov_timer_cb);
	reactor_timer_arm(s->r, &s->recov_timer, next > now ? next - now : 0);
}

void iscsi_erl2_park(struct iscsi_session *s, struct iscsi_conn *c)
{
	uint64_t secs = (uint64_t)s->params.default_time2wait + s->params.default_time2retain;

	iscsi_conn_get(c); /* the shell's */
	c->recov_deadline_ns = reactor_now_ns() + secs * NS_PER_S;
	list_add_tail(&s->recov, &c->recov_node);
	s->nrecov++;
	iscsi_session_count(&s->stat_conn_recoveries, 1);
	log_notice("iscsi: session %s tsih %u: connection cid %u from %s %s: %u task%s wait for "
		   "reassignment (Time2Wait %u s + Time2Retain %u s), %u connection%s left",
		   s->initiator_port, s->tsih, c->cid, c->peer,
		   c->recov_requested ? "removed for recovery" : "failed", c->live_tasks,
		   c->live_tasks == 1 ? "" : "s", s->params.default_time2wait,
		   s->params.default_time2retain, s->nconns, s->nconns == 1 ? "" : "s");
	recov_timer_arm(s);
}

/* The shell goes: its tasks end (counted in tasks_expired when expired),
 * its copies are freed. */
static void shell_end(struct iscsi_session *s, struct iscsi_conn *o, bool expired)
{
	bool again = true;
	unsigned n = 0;

	o->recov_expired = true;
	list_del(&o->recov_node);
	s->nrecov--;
	iscsi_retain_free(o);
	for (struct list_node *p = o->tasks.next; p != &o->tasks; p = p->next)
		n++;
	while (again) {
		again = false;
		for (struct list_node *p = o->tasks.next; p != &o->tasks; p = p->next) {
			struct iscsi_task *t = list_entry(p, struct iscsi_task, node);

			if (t->erl2_done) {
				iscsi_task_put(t);
				again = true;
				break;
			}
			if (t->state != ISCSI_TASK_DATA_OUT || t->aborted)
				continue;
			/* as iscsi_tasks_terminate: ended as aborted; the core
			 * completes it (cmd_done releases it: recov_expired) */
			t->aborted = true;
			t->uns_open = false;
			t->retry_wait = false;
			iscsi_r2t_stop(t);
			scsi_cmd_set_fabric_error(&t->cmd, SENSE_TASK_ABORTED);
			iscsi_task_exec(t);
			again = true;
			break;
		}
	}
	if (expired && n) {
		iscsi_session_count(&s->stat_tasks_expired, n);
		log_notice(
		    "iscsi: session %s tsih %u: %u task%s of connection cid %u not reassigned "
		    "within Time2Wait + Time2Retain: ended",
		    s->initiator_port, s->tsih, n, n == 1 ? "" : "s", o->cid);
	}
	iscsi_conn_put(o);
}

static void recov_timer_cb(struct reactor_timer *tm)
{
	struct iscsi_session *s = container_of(tm, struct iscsi_session, recov_timer);
	uint64_t now = reactor_now_ns();
	struct iscsi_conn *o, *tmp;

	s->tasks++; /* s stays while its tasks end */
	list_for_each_entry_safe(o, tmp, &s->recov, recov_node)
	{
		if (o->recov_deadline_ns <= now)
			shell_end(s, o, true);
	}
	recov_timer_arm(s);
	s->tasks--;
	if (!s->nconns && !s->nrecov)
		iscsi_session_recovery_over(s);
}

void iscsi_erl2_end_all(struct iscsi_session *s)
{
	struct iscsi_conn *o, *tmp;

	list_for_each_entry_safe(o, tmp, &s->recov, recov_node) shell_end(s, o, false);
	reactor_timer_cancel(&s->recov_timer);
}

/* A shell with nothing left to reassign goes before its time. */
static void shell_maybe_done(struct iscsi_session *s, struct iscsi_conn *o)
{
	struct iscsi_retained *r;

	if (o->live_tasks)
		return;
	list_for_each_entry(r, &o->retained, node) if (r->status) return;
	shell_end(s, o, false);
	recov_timer_arm(s);
}

int iscsi_erl2_logout_remove(struct iscsi_conn *c, uint16_t cid, bool *self)
{
	struct iscsi_session *s = c->sess;
	struct iscsi_conn *oc;
	int rc = -ENOENT;

	*self = cid == c->cid;
	if (*self) {
		c->recov_requested = true;
		return 0;
	}
	list_for_each_entry(oc, &s->recov, recov_node) if (oc->cid == cid) rc = 0;
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		if (oc == c || oc->cid != cid)
			continue;
		oc->recov_requested = true;
		iscsi_conn_drop_async(oc);
		rc = 0;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	return rc;
}

/* Free o's copies of task itt. */
static void retained_drop_task(struct iscsi_conn *o, uint32_t itt)
{
	struct iscsi_retained *r, *tmp;

	list_for_each_entry_safe(r, tmp, &o->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&r->hdr);

		if ((op == ISCSI_OP_DATA_IN || op == ISCSI_OP_SCSI_RSP) &&
		    get_be32(r->hdr.rsp.itt) == itt)
			iscsi_retained_drop(o, r);
	}
}

/* Send again, on c, a finished task's retained Data-In from DataSN from on
 * and its status (a new StatSN of c), from shell o; the copies go from o.
 * The number of PDUs queued, -1 on a failure (c dropped). */
static int resend_retained(struct iscsi_conn *c, struct iscsi_conn *o, uint32_t itt, uint32_t from)
{
	struct iscsi_retained *r, *tmp;
	int n = 0;

	if (!from)
		from = iscsi_dataack_acked(o, itt);
	if (iscsi_rdata_needs_reseg(o, itt, from, c->max_send_dsl)) {
		/* c takes shorter segments than o did: cut again (rdata.c) */
		n = iscsi_rdata_reassign(c, o, itt, from);
		if (n == -ENOMEM) {
			iscsi_conn_drop(c, "out of memory for a reassigned task");
			return -1;
		}
		if (n >= 0) {
			retained_drop_task(o, itt);
			return n;
		}
		/* a copy missing (-ESRCH): what is there goes as it was */
		n = 0;
	}
	list_for_each_entry_safe(r, tmp, &o->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&r->hdr);
		union iscsi_hdr h;

		if (get_be32(r->hdr.rsp.itt) != itt ||
		    (op != ISCSI_OP_DATA_IN && op != ISCSI_OP_SCSI_RSP))
			continue;
		if (r->ack_mark || (r->data_in && !r->status &&
				    iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from))) {
			iscsi_retained_drop(o, r);
			continue;
		}
		memcpy(&h, &r->hdr, sizeof(h));
		if (r->status)
			iscsi_conn_fill_sn(c, h.rsp.statsn, h.rsp.exp_cmdsn, h.rsp.max_cmdsn, true);
		else
			iscsi_conn_fill_sn(c, (uint8_t[4]){0}, h.data_in.exp_cmdsn,
					   h.data_in.max_cmdsn, false);
		if (op == ISCSI_OP_DATA_IN && (h.data_in.flags & ISCSI_DATAIN_F_ACK)) {
			/* no DataACK is asked on c for o's sequences */
			h.data_in.flags &= (uint8_t)~ISCSI_DATAIN_F_ACK;
			put_be32(h.data_in.ttt, ISCSI_RSVD_TAG);
		}
		if (iscsi_retx_queue(c, &h, r->data, r->len)) {
			iscsi_conn_drop(c, "out of memory for a reassigned task");
			return -1;
		}
		iscsi_retained_drop(o, r);
		n++;
	}
	return n;
}

/* A task moved to c goes on there (11.5.1). */
static void task_resume(struct iscsi_conn *c, struct iscsi_task *t, uint32_t from, uint32_t old_seg)
{
	if (t->erl2_done) {
		if (iscsi_task_resend(t, from, old_seg)) {
			iscsi_conn_drop(c, "out of memory for a reassigned task");
			iscsi_task_put(t);
		}
		return;
	}
	if (t->state != ISCSI_TASK_DATA_OUT || t->exec_pending || t->retry_wait)
		return; /* running (sends here when done), held for CmdSN order,
			 * or waiting for its command again (erl.c) */
	/* the open bursts: recovery R2Ts for what each had not received */
	for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
		if (t->r2t[i].active)
			iscsi_erl_burst_recover(t, &t->r2t[i]);
	if (t->uns_open)
		iscsi_erl_burst_recover(t, NULL); /* the rest solicited by R2Ts */
	iscsi_task_data_progress(t);
}

void iscsi_erl2_reassign(struct iscsi_conn *c, uint32_t itt, uint32_t rtt, uint32_t exp_datasn)
{
	struct iscsi_session *s = c->sess;
	struct iscsi_conn *oc, *o;
	struct iscsi_task *t = NULL;

	if (!iscsi_erl2(c)) {
		/* 11.5.1: reassignment needs ErrorRecoveryLevel 2 */
		iscsi_tmf_send_rsp(c, itt, ISCSI_TMF_RSP_NO_REASSIGN);
		return;
	}
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		if (iscsi_task_by_itt(oc, rtt)) {
			/* 11.5.1: its connection is still logged in */
			iscsi_tmf_send_rsp(c, itt, ISCSI_TMF_RSP_TASK_ALLEGIANT);
			return;
		}
	}
	list_for_each_entry(o, &s->recov, recov_node)
	{
		t = iscsi_task_by_itt(o, rtt);
		if (t || iscsi_retain_has_status(o, rtt))
			break;
	}
	if (&o->recov_node == &s->recov) {
		iscsi_tmf_send_rsp(c, itt, ISCSI_TMF_RSP_NO_TASK);
		return;
	}
	iscsi_conn_get(o);
	iscsi_session_count(&s->stat_tasks_reassigned, 1);
	log_debug("iscsi: %s: ITT 0x%08x reassigned from connection cid %u", c->peer, rtt, o->cid);
	/* the response first, then what the task sends on c */
	iscsi_tmf_send_rsp(c, itt, ISCSI_TMF_RSP_COMPLETE);
	if (t) {
		uint32_t from = exp_datasn ? exp_datasn : iscsi_dataack_acked(o, rtt);

		/* its copies on o are superseded by what c sends now */
		retained_drop_task(o, rtt);
		iscsi_task_move(t, c);
		task_resume(c, t, from, o->max_send_dsl);
	} else {
		resend_retained(c, o, rtt, exp_datasn);
	}
	if (!o->recov_expired)
		shell_maybe_done(s, o);
	iscsi_conn_put(o);
}

/* ---- sessions left with shells only, ended from another thread ----
 * A reinstatement (a new leading login of the same I_T nexus), the removal
 * of the target or the shutdown must not wait Time2Wait + Time2Retain for
 * a session whose connections are all gone: a message to its reactor ends
 * its shells there. It names the session by TSIH and address, looked up
 * again on arrival (the session may have ended meanwhile: sessions are
 * freed on their reactor only, so one found there stays while it runs). */
struct erl2_end_msg {
	struct reactor_msg m;
	struct iscsi_session *s;
	uint16_t tsih;
};

static void end_msg(struct reactor_msg *m)
{
	struct erl2_end_msg *e = container_of(m, struct erl2_end_msg, m);
	struct iscsi_session *s;

	pthread_mutex_lock(&iscsi_global.lock);
	s = iscsi_session_find_tsih_locked(e->tsih);
	pthread_mutex_unlock(&iscsi_global.lock);
	if (s == e->s && s->nrecov && !s->nconns) {
		s->tasks++;
		iscsi_erl2_end_all(s);
		s->tasks--;
		iscsi_session_recovery_over(s);
	}
	free(e);
}

void iscsi_erl2_end_async_locked(struct iscsi_session *s)
{
	struct erl2_end_msg *e;

	if (s->type != ISCSI_SESSION_NORMAL || s->params.error_recovery_level < 2 || s->nconns ||
	    !s->r)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return; /* its shells expire on their own */
	e->s = s;
	e->tsih = s->tsih;
	e->m.fn = end_msg;
	reactor_post(s->r, &e->m);
}

void iscsi_erl2_end_target(struct iscsi_target *t)
{
	struct iscsi_session *s;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(s, &iscsi_global.sessions, reg_node) if (!t || s->target == t)
	    iscsi_erl2_end_async_locked(s);
	pthread_mutex_unlock(&iscsi_global.lock);
}
