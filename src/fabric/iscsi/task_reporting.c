/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task_reporting.c: how the iSCSI layer reports the end of the tasks a task
 * management function aborts (RFC 7143 4.2.3, TaskReporting 13.23).
 *
 * TaskReporting is a list key: the target answers the first of RFC3720,
 * ResponseFence and FastAbort the initiator offers (param.c). 13.23:
 * "RFC3720: Response fencing is not guaranteed, and fast completion of
 * multi-task aborting is not supported"; "ResponseFence: Response Fence
 * semantics MUST be supported in reporting task completions"; "FastAbort:
 * updated fast multi-task abort semantics ... Support for the Response
 * Fence is implied"; "When TaskReporting is not negotiated to FastAbort,
 * the standard multi-task abort semantics MUST be used".
 *
 * Standard multi-task abort semantics (4.2.3.3), for RFC3720 and
 * ResponseFence. Its step a): the target "MUST wait for responses on
 * currently valid Target Transfer Tags of the affected tasks from the
 * issuing initiator" -- the initiator goes on answering them (initiator
 * step a) -- and "MAY wait" for those of third-party initiators. An
 * affected task of the issuing session that still has a Data-Out burst open
 * (an R2T not ended by its F bit, or the unsolicited burst) keeps it until
 * that F bit (no further R2T is sent); only then does it end, and the TMF
 * response, which the core sends once every affected task has ended (SAM-5
 * 7.1), follows it. A task of a third party ends at once (its later
 * Data-Out is discarded as for any ended task). A Data-Out that never
 * comes is ended by data_out_timeout_s (data_out.c) as for any task. Step
 * d), the StatSN acknowledgments before the TMF response, is below.
 *
 * FastAbort semantics (4.2.3.4): the initiator sends no more Data-Out for
 * the affected tasks on the issuing connection once it sent the TMF, and
 * answers an Asynchronous Message with AsyncEvent 5 (11.9.1: "all active
 * tasks for a LU with a matching LUN field ... are being terminated") by
 * stopping the Data-Out of that LU's TTTs on that connection, then
 * acknowledging the message's StatSN with a NOP-Out (ITT 0xffffffff, the
 * LUN copied). So no affected task waits for its bursts: it ends at once,
 * and every connection other than the issuing one on which an affected
 * task had a burst open -- of the issuing session or of a third party that
 * negotiated FastAbort -- gets one AsyncEvent 5 per LUN. The TMF response
 * waits, as in step d) below, for the acknowledgment of every StatSN sent
 * on the issuing session's connections, the AsyncEvent 5s included: that
 * is their NOP-Outs. Data-Out that was already under way for an ended
 * task is discarded (data_out.c). A third party's NOP-Outs are waited for
 * with its other acknowledgments (step d) below).
 *
 * Response Fence (ResponseFence and FastAbort): a fenced response is
 * delivered after every response sent before it and before every response
 * sent after it. On one connection TCP keeps that order; across the
 * connections of an MC/S session the response of a multi-task abort is
 * fenced: step d) below delivers the ones before it (acknowledged), and
 * while it is not acknowledged the session's other connections send
 * nothing (iscsi_conn_flush: s->fence_conn), a NOP-In asking for the
 * acknowledgment at once. One fence at a time per session: a second
 * fenced TMF response waits for the first to be acknowledged. The first
 * status a third party's session (ResponseFence or FastAbort) sends after
 * another initiator's multi-task abort is fenced too
 * (iscsi_fence_first_response, at the end of this file). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

/* The task management functions that affect several tasks: RFC 7143 4.2.3.3
 * names ABORT TASK SET, CLEAR TASK SET, LOGICAL UNIT RESET, TARGET WARM
 * RESET and TARGET COLD RESET; I_T NEXUS RESET (RFC 7144, SAM-5 7.7) ends
 * every task of the issuing nexus alike. ABORT TASK, whose initiator stops
 * the task's Data-Out itself, and CLEAR ACA (one task at most) do not wait. */
static const bool multi_task_abort[] = {
    [SCSI_TMF_ABORT_TASK_SET] = true,	 [SCSI_TMF_CLEAR_TASK_SET] = true,
    [SCSI_TMF_LUN_RESET] = true,	 [SCSI_TMF_TARGET_WARM_RESET] = true,
    [SCSI_TMF_TARGET_COLD_RESET] = true, [SCSI_TMF_I_T_NEXUS_RESET] = true,
};

static bool multi(uint8_t scsi_tmf_func)
{
	return scsi_tmf_func < ARRAY_SIZE(multi_task_abort) && multi_task_abort[scsi_tmf_func];
}

static bool acked(const struct iscsi_conn *c, uint32_t statsn)
{
	return !iscsi_sn_lt(c->exp_stat_sn, statsn);
}

/* 11.9.1 AsyncEvent 5 on c for the LUN field lun, once per TMF and LUN. */
static void task_termination(struct iscsi_conn *c, const struct scsi_tmf *tmf, const uint8_t *lun)
{
	if (iscsi_conn_dead(c) || iscsi_conn_state(c) != ISCSI_CONN_S5_LOGGED_IN)
		return; /* a shell (ERL 2) or leaving: no Data-Out comes there */
	if (c->fa_tmf == tmf->seq && !memcmp(c->fa_lun, lun, sizeof(c->fa_lun)))
		return;
	if (iscsi_async_task_termination(c, lun))
		return; /* out of memory (logged): its Data-Out is discarded */
	c->fa_tmf = tmf->seq;
	memcpy(c->fa_lun, lun, sizeof(c->fa_lun));
	c->fa_statsn = c->stat_sn - 1;
}

bool iscsi_fast_abort_stray(const struct iscsi_conn *c)
{
	/* its ExpStatSN (just taken from it) does not cover the message */
	return c->fa_tmf && !acked(c, c->fa_statsn + 1);
}

bool iscsi_abort_drains_data_out(struct iscsi_task *t)
{
	const struct scsi_tmf *tmf = scsi_cmd_abort_tmf(&t->cmd);
	struct iscsi_conn *c = t->conn;
	bool own;

	if (!tmf || !multi(tmf->func))
		return false;		  /* nexus loss, ABORT TASK, CLEAR ACA */
	own = tmf->nexus == t->cmd.nexus; /* else a third party's task */
	if (!c->sess || c->sess->params.task_reporting != ISCSI_TASKREP_FAST_ABORT)
		return own;
	/* FastAbort (4.2.3.4): the issuing connection sends no more Data-Out
	 * for it; any other is told with AsyncEvent 5 */
	if ((t->uns_open || t->r2t_open) && !(own && c == iscsi_tmf_conn(tmf)))
		task_termination(c, tmf, t->lun);
	return false;
}

/* ---- RFC 7143 4.2.3.3 d): the StatSNs sent before the TMF response ----
 * "MUST take note of the last-sent StatSN on each of the connections in the
 * iSCSI sessions (one or more) sharing the affected tasks, and then MUST
 * wait for acknowledgment of each StatSN (may solicit for acknowledgment by
 * way of a NOP-In)", then send the TMF response (e). The responses of the
 * issuing session's aborted tasks went out before it on every one of its
 * connections. A third party's session (any reactor) whose task the TMF
 * aborted does the same on its reactor (iscsi_third_party_aborted), holding
 * the TMF's tmf_done meanwhile (scsi_tmf_hold), at most
 * THIRD_PARTY_WAIT_S: another initiator that does not answer its pings
 * must not hold this one's TMF for ever. A connection that leaves its
 * session is not waited for any longer. */

#define THIRD_PARTY_WAIT_S 5

/* The issuing session's own waits (a TMF response's step d), a fence, a
 * first status' step 2) are capped too, but not by giving up: the
 * initiator MUST be waited for, and it is the one that does not answer. A
 * connection whose StatSN is still not acknowledged nop_in_timeout after
 * the NOP-In asking for it is dropped, as the keepalive drops one that
 * does not answer its ping (nop.c); the wait then goes on without it
 * (iscsi_ack_waits_conn_gone), or ends with the session (ERL 0). So a
 * fence held by a silent connection does not stop the session's others
 * for ever. */
static void ack_wait_cap(struct reactor_timer *t)
{
	struct iscsi_ack_wait *w = container_of(t, struct iscsi_ack_wait, cap);
	struct iscsi_conn *late[ARRAY_SIZE(w->need)];
	uint32_t statsn[ARRAY_SIZE(w->need)];
	unsigned n = 0;

	for (unsigned i = 0; i < w->n; i++) {
		struct iscsi_conn *oc = w->need[i].c;

		if (iscsi_conn_dead(oc) || acked(oc, w->need[i].statsn))
			continue;
		iscsi_conn_get(oc);
		statsn[n] = w->need[i].statsn - 1;
		late[n++] = oc;
	}
	/* the first drop may end the wait (w freed), or the session */
	for (unsigned i = 0; i < n; i++) {
		struct iscsi_conn *oc = late[i];

		if (!iscsi_conn_dead(oc)) {
			struct iscsi_target_limits lim;

			iscsi_conn_limits(oc, &lim);
			log_notice(
			    "iscsi: %s: StatSN %u not acknowledged within %u s of the NOP-In "
			    "asking for it (RFC 7143 4.2.3.3 d), Response Fence): connection "
			    "dropped",
			    oc->peer, statsn[i], lim.nop_in_timeout_s);
			iscsi_count_conn_error(oc, ISCSI_FAIL_TIMEOUT);
			iscsi_conn_drop(oc, "StatSN not acknowledged");
		}
		iscsi_conn_put(oc);
	}
}

static void ack_wait_arm(struct iscsi_session *s, struct iscsi_ack_wait *w)
{
	struct iscsi_target_limits lim;

	iscsi_conn_limits(w->need[0].c, &lim);
	reactor_timer_init(&w->cap, ack_wait_cap);
	reactor_timer_arm(s->r, &w->cap, (uint64_t)lim.nop_in_timeout_s * NS_PER_S);
}

static_assert(ARRAY_SIZE(((struct iscsi_ack_wait *)0)->need) >= ISCSI_MAX_CONNECTIONS,
	      "a wait for every connection of a session");

/* Note the last StatSN sent on each connection of s not yet acknowledged
 * and ping it; false when there is none (w->done is not called). own: s
 * is the session that waits (capped: ack_wait_cap), not a third party. */
static bool ack_wait_begin(struct iscsi_session *s, struct iscsi_ack_wait *w,
			   const struct iscsi_conn *except, bool own)
{
	struct iscsi_conn *oc;

	w->n = 0;
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		/* StatSN stat_sn - 1 is the last one sent (queued); a
		 * connection not (or no longer) in full feature phase gets no
		 * NOP-In (11.19) and carries no task response to wait for */
		if (oc == except || iscsi_conn_dead(oc) ||
		    iscsi_conn_state(oc) != ISCSI_CONN_S5_LOGGED_IN || acked(oc, oc->stat_sn) ||
		    w->n >= ARRAY_SIZE(w->need))
			continue;
		w->need[w->n].c = oc;
		w->need[w->n].statsn = oc->stat_sn;
		w->n++;
		iscsi_nop_ping(oc);
	}
	if (!w->n)
		return false;
	list_add_tail(&s->ack_waits, &w->node);
	if (own)
		ack_wait_arm(s, w);
	return true;
}

bool iscsi_ack_wait_start(struct iscsi_session *s, uint8_t scsi_tmf_func, struct iscsi_ack_wait *w)
{
	return multi(scsi_tmf_func) && ack_wait_begin(s, w, NULL, true);
}

/* Drop the entries met (or of c, when gone); run the waits now empty. */
static void ack_waits_update(struct iscsi_session *s, const struct iscsi_conn *gone)
{
	struct iscsi_ack_wait *w, *tmp;

	list_for_each_entry_safe(w, tmp, &s->ack_waits, node)
	{
		unsigned k = 0;

		for (unsigned i = 0; i < w->n; i++) {
			struct iscsi_conn *oc = w->need[i].c;

			if (oc == gone || iscsi_conn_dead(oc) || acked(oc, w->need[i].statsn))
				continue;
			w->need[k++] = w->need[i];
		}
		w->n = k;
		if (!k) {
			list_del(&w->node);
			reactor_timer_cancel(&w->cap);
			w->done(w);
		}
	}
}

void iscsi_ack_waits_rx(struct iscsi_conn *c, const union iscsi_hdr *h)
{
	uint8_t op = iscsi_hdr_opcode(h);

	/* every request but Login carries ExpStatSN at bytes 28-31 (11.3,
	 * 11.5, 11.7, 11.10, 11.14, 11.16, 11.18) */
	if (op == ISCSI_OP_LOGIN_REQ)
		return;
	c->exp_stat_sn = get_be32(h->raw + 28);
	ack_waits_update(c->sess, NULL);
}

void iscsi_ack_waits_conn_gone(struct iscsi_session *s, struct iscsi_conn *c)
{
	if (!list_empty(&s->ack_waits))
		ack_waits_update(s, c);
}

/* One third-party session's part of one TMF: started once the reactor is
 * done with what it is doing, so that the TASK ABORTED responses of that
 * turn are among the StatSNs noted. */
struct third_party_wait {
	struct iscsi_ack_wait ack;
	struct reactor_defer start;
	struct reactor_timer cap;
	struct iscsi_session *s;
	const struct scsi_tmf *tmf;
	uint64_t seq;
};

static void third_party_end(struct third_party_wait *w)
{
	struct iscsi_session *s = w->s;

	reactor_timer_cancel(&w->cap);
	if (s->tp_wait == w)
		s->tp_wait = NULL;
	/* the first status after the abort is fenced (Response Fence) */
	if (s->params.task_reporting != ISCSI_TASKREP_RFC3720)
		s->fence_next = true;
	scsi_tmf_release(w->tmf);
	free(w);
	iscsi_session_task_released(s);
}

static void third_party_acked(struct iscsi_ack_wait *a)
{
	third_party_end(container_of(a, struct third_party_wait, ack));
}

static void third_party_cap(struct reactor_timer *tm)
{
	struct third_party_wait *w = container_of(tm, struct third_party_wait, cap);

	log_notice("iscsi: session of %s: StatSNs not acknowledged within %u s after another "
		   "initiator's task management function: no longer waited for",
		   w->s->initiator_port, THIRD_PARTY_WAIT_S);
	list_del(&w->ack.node);
	third_party_end(w);
}

static void third_party_start(struct reactor_defer *d)
{
	struct third_party_wait *w = container_of(d, struct third_party_wait, start);

	if (w->s->tp_wait == w)
		w->s->tp_wait = NULL; /* a task ending later needs a wait of its own */
	if (!ack_wait_begin(w->s, &w->ack, NULL, false)) {
		third_party_end(w);
		return;
	}
	reactor_timer_arm(w->s->r, &w->cap, (uint64_t)THIRD_PARTY_WAIT_S * 1000000000ull);
}

void iscsi_third_party_aborted(struct iscsi_session *s, const struct scsi_tmf *tmf)
{
	struct third_party_wait *w;

	if (!multi(tmf->func) || s->type != ISCSI_SESSION_NORMAL)
		return;
	if (s->tp_wait && s->tp_wait->seq == tmf->seq)
		return; /* its wait starts after this turn: it covers this task */
	w = calloc(1, sizeof(*w));
	if (!w) {
		log_warn("iscsi: session of %s: out of memory: another initiator's TMF response "
			 "does not wait for this session's StatSNs",
			 s->initiator_port);
		return;
	}
	w->s = s;
	w->tmf = tmf;
	w->seq = tmf->seq;
	w->ack.done = third_party_acked;
	reactor_timer_init(&w->cap, third_party_cap);
	reactor_defer_init(&w->start, third_party_start);
	scsi_tmf_hold(tmf); /* before the task's own count drops */
	s->tasks++;	    /* s stays until the wait ends */
	s->tp_wait = w;
	reactor_defer(s->r, &w->start);
}

/* ---- Response Fence ---- */

struct iscsi_fence {
	struct iscsi_ack_wait ack; /* the fenced response's acknowledgment */
	struct iscsi_session *s;
};

bool iscsi_fence_wanted(const struct iscsi_session *s, uint8_t scsi_tmf_func)
{
	return multi(scsi_tmf_func) && s->params.task_reporting != ISCSI_TASKREP_RFC3720;
}

bool iscsi_fence_ready(struct iscsi_session *s, struct iscsi_fence_waiter *w)
{
	if (!s->fence_conn)
		return true;
	list_add_tail(&s->fence_waiters, &w->node);
	return false;
}

/* No fence holds s: the next waiter's turn. Also when a waiter's turn
 * ended without a fence of its own (its connection alone or gone), or the
 * ones after it would wait for a fence that never comes. */
static void fence_run_next(struct iscsi_session *s)
{
	if (!s->fence_conn && !list_empty(&s->fence_waiters)) {
		struct iscsi_fence_waiter *next =
		    list_first_entry(&s->fence_waiters, struct iscsi_fence_waiter, node);

		list_del(&next->node);
		next->run(next);
	}
}

static void fence_done(struct iscsi_ack_wait *w)
{
	struct iscsi_fence *f = container_of(w, struct iscsi_fence, ack);
	struct iscsi_session *s = f->s;
	struct iscsi_conn *oc;

	s->fence_conn = NULL;
	free(f);
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		if (!iscsi_conn_dead(oc) && oc->r && !list_empty(&oc->txq))
			reactor_defer(oc->r, &oc->flush);
	}
	fence_run_next(s);
}

void iscsi_fence_after(struct iscsi_conn *c)
{
	struct iscsi_session *s = c->sess;
	struct iscsi_conn *oc;
	struct iscsi_fence *f;
	bool others = false;

	if (s->fence_conn)
		return; /* c's sends wait for that fence (the callers check) */
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		if (oc != c && !iscsi_conn_dead(oc))
			others = true;
	}
	if (!others || iscsi_conn_dead(c)) {
		fence_run_next(s); /* one connection: TCP keeps the order */
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		log_warn("iscsi: %s: out of memory for a response fence", c->peer);
		return;
	}
	f->s = s;
	f->ack.n = 1;
	f->ack.need[0].c = c;
	f->ack.need[0].statsn = c->stat_sn; /* the fenced response's StatSN + 1 */
	f->ack.done = fence_done;
	s->fence_conn = c;
	list_add_tail(&s->ack_waits, &f->ack.node);
	ack_wait_arm(s, &f->ack);
	iscsi_nop_ping(c);
}

/* The first status of a third party's session after a multi-task abort is
 * fenced like a TMF response, in three steps (fence_first_step):
 *  1. a fence under way on the session (s->fence_conn) ends first: c's
 *     sends wait for it anyway, and the status waits its turn among the
 *     fence's waiters;
 *  2. the StatSNs sent before it on the other connections are acknowledged
 *     (c holds its sends meanwhile: fence_pre);
 *  3. if another fence started during 2, its end again; then c's status is
 *     fenced (iscsi_fence_after): the other connections send nothing until
 *     c's acknowledgment.
 * It holds a task count of the session (the session stays) and a reference
 * to c; a step that finds c gone ends it and lets the next waiter go. */
struct fence_first {
	struct iscsi_ack_wait ack;	/* step 2 */
	struct iscsi_fence_waiter turn; /* steps 1 and 3 */
	struct iscsi_session *s;
	struct iscsi_conn *c;
	bool acked; /* step 2 is done */
};

static void fence_first_end(struct fence_first *f)
{
	struct iscsi_session *s = f->s;

	iscsi_conn_put(f->c);
	free(f);
	iscsi_session_task_released(s);
}

static void fence_first_step(struct fence_first *f)
{
	struct iscsi_session *s = f->s;
	struct iscsi_conn *c = f->c;

	if (iscsi_conn_dead(c) || c->sess != s) {
		fence_run_next(s);
		fence_first_end(f);
		return;
	}
	if (s->fence_conn) {
		list_add_tail(&s->fence_waiters, &f->turn.node); /* steps 1, 3 */
		return;
	}
	if (!f->acked) {
		f->acked = true;
		if (ack_wait_begin(s, &f->ack, c, true)) {
			c->fence_pre = true; /* step 2 */
			return;
		}
	}
	iscsi_fence_after(c);
	if (c->r)
		reactor_defer(c->r, &c->flush);
	fence_first_end(f);
}

static void fence_first_acked(struct iscsi_ack_wait *w)
{
	struct fence_first *f = container_of(w, struct fence_first, ack);

	f->c->fence_pre = false;
	fence_first_step(f);
}

static void fence_first_turn(struct iscsi_fence_waiter *w)
{
	fence_first_step(container_of(w, struct fence_first, turn));
}

void iscsi_fence_first_response(struct iscsi_conn *c)
{
	struct iscsi_session *s = c->sess;
	struct fence_first *f;

	s->fence_next = false;
	if (c->fence_pre)
		return; /* c's own is in step 2: this status is behind it */
	f = calloc(1, sizeof(*f));
	if (!f) {
		log_warn("iscsi: %s: out of memory for a response fence", c->peer);
		return;
	}
	f->s = s;
	f->c = c;
	f->ack.done = fence_first_acked;
	f->turn.run = fence_first_turn;
	iscsi_conn_get(c);
	s->tasks++; /* s stays until the fence is set up */
	fence_first_step(f);
}
