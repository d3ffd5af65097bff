/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmf.c: Task Management Function Request/Response (RFC 7143 11.5, 11.6). */
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

struct iscsi_tmf {
	struct scsi_tmf tmf;		 /* container_of in tmf_done */
	struct iscsi_ack_wait ack;	 /* task_reporting.c: StatSNs before the response */
	struct iscsi_fence_waiter fence; /* ... and the fence of the one before */
	struct iscsi_conn *conn;
	struct iscsi_session *sess;
	uint32_t itt;
	uint8_t func; /* enum iscsi_tmf_func */
};

/* iSCSI function -> SAM task management function. */
static const uint8_t tmf_func_map[] = {
    [ISCSI_TMF_ABORT_TASK] = SCSI_TMF_ABORT_TASK,
    [ISCSI_TMF_ABORT_TASK_SET] = SCSI_TMF_ABORT_TASK_SET,
    [ISCSI_TMF_CLEAR_ACA] = SCSI_TMF_CLEAR_ACA,
    [ISCSI_TMF_CLEAR_TASK_SET] = SCSI_TMF_CLEAR_TASK_SET,
    [ISCSI_TMF_LUN_RESET] = SCSI_TMF_LUN_RESET,
    [ISCSI_TMF_TARGET_WARM_RESET] = SCSI_TMF_TARGET_WARM_RESET,
    [ISCSI_TMF_TARGET_COLD_RESET] = SCSI_TMF_TARGET_COLD_RESET,
    [ISCSI_TMF_QUERY_TASK] = SCSI_TMF_QUERY_TASK,
    [ISCSI_TMF_QUERY_TASK_SET] = SCSI_TMF_QUERY_TASK_SET,
    [ISCSI_TMF_I_T_NEXUS_RESET] = SCSI_TMF_I_T_NEXUS_RESET,
    [ISCSI_TMF_QUERY_ASYNC_EVENT] = SCSI_TMF_QUERY_ASYNC_EVENT,
};

/* enum scsi_tmf_response -> iSCSI response (11.6.1). A target reset the
 * session's ACL does not allow (the core refuses it: scsi.h) is "Function
 * authorization failed" (6), not "Function rejected" (255): 11.5.1 makes
 * TARGET WARM RESET "subject to SCSI access controls on the requesting
 * initiator" and, "when authorization fails at the target", wants the
 * response 11.6 defines for it, which is 6; TARGET COLD RESET's "execution
 * privileges may be managed by iSCSI mechanisms such as login
 * authentication", which is what the session's ACL is (the Linux target
 * answers both with 6 too). */
static const uint8_t tmf_rsp_map[] = {
    [SCSI_TMF_RESP_COMPLETE] = ISCSI_TMF_RSP_COMPLETE,
    [SCSI_TMF_RESP_SUCCEEDED] = ISCSI_TMF_RSP_SUCCEEDED,
    [SCSI_TMF_RESP_TASK_NOT_FOUND] = ISCSI_TMF_RSP_NO_TASK,
    [SCSI_TMF_RESP_LUN_NOT_FOUND] = ISCSI_TMF_RSP_NO_LUN,
    [SCSI_TMF_RESP_NOT_SUPPORTED] = ISCSI_TMF_RSP_NOT_SUPPORTED,
    [SCSI_TMF_RESP_REJECTED] = ISCSI_TMF_RSP_REJECTED,
    [SCSI_TMF_RESP_UNAUTHORIZED] = ISCSI_TMF_RSP_AUTH_FAILED,
};

static void send_tmf_rsp(struct iscsi_conn *c, uint32_t itt, uint8_t response, bool close_after,
			 const uint8_t *add_info)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_tmf_rsp *r;

	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a TMF response");
		return;
	}
	r = &tx->hdr.tmf_rsp;
	r->opcode = ISCSI_OP_TMF_RSP;
	r->flags = ISCSI_FLAG_FINAL;
	r->response = response;
	if (add_info)
		memcpy(r->add_info, add_info, sizeof(r->add_info));
	put_be32(r->itt, itt);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	if (close_after) {
		tx->flags |= ISCSI_TX_F_CLOSE;
		c->close_ev = ISCSI_CEV_DROP;
	}
	iscsi_tx_queue(c, tx);
}

void iscsi_tmf_send_rsp(struct iscsi_conn *c, uint32_t itt, uint8_t response)
{
	send_tmf_rsp(c, itt, response, false, NULL);
}

static void tmf_respond(struct iscsi_tmf *it);

static void tmf_acked(struct iscsi_ack_wait *w)
{
	tmf_respond(container_of(w, struct iscsi_tmf, ack));
}

static void tmf_unfenced(struct iscsi_fence_waiter *w)
{
	tmf_respond(container_of(w, struct iscsi_tmf, fence));
}

struct iscsi_conn *iscsi_tmf_conn(const struct scsi_tmf *tmf)
{
	return container_of(tmf, const struct iscsi_tmf, tmf)->conn;
}

void iscsi_tmf_done(struct scsi_tmf *tmf)
{
	struct iscsi_tmf *it = container_of(tmf, struct iscsi_tmf, tmf);

	/* RFC 7143 4.2.3.3 d), e): a multi-task abort is answered once the
	 * StatSNs sent before it are acknowledged (task_reporting.c) */
	it->ack.done = tmf_acked;
	it->fence.run = tmf_unfenced;
	if (!iscsi_conn_dead(it->conn) && iscsi_ack_wait_start(it->sess, tmf->func, &it->ack))
		return;
	tmf_respond(it);
}

static void tmf_respond(struct iscsi_tmf *it)
{
	struct scsi_tmf *tmf = &it->tmf;
	struct iscsi_conn *c = it->conn;
	uint8_t rsp = tmf->response < ARRAY_SIZE(tmf_rsp_map) ? tmf_rsp_map[tmf->response]
							      : ISCSI_TMF_RSP_REJECTED;
	bool cold = it->func == ISCSI_TMF_TARGET_COLD_RESET && rsp == ISCSI_TMF_RSP_COMPLETE;
	bool fence = iscsi_fence_wanted(it->sess, tmf->func);

	if (!iscsi_conn_dead(c) && fence && !iscsi_fence_ready(it->sess, &it->fence))
		return; /* after the fenced response before it (task_reporting.c) */

	/* a refused target reset is worth a line (rate-limited per session:
	 * the initiator's error recovery may repeat it) */
	if (rsp == ISCSI_TMF_RSP_AUTH_FAILED && log_ratelimit_ok(&it->sess->rl)) {
		char iname[96];

		log_escape(iname, sizeof(iname), it->sess->initiator_name,
			   strlen(it->sess->initiator_name));
		log_notice("iscsi: %s: initiator %s: %s refused: its ACL does not allow target "
			   "resets",
			   c->peer, iname,
			   it->func == ISCSI_TMF_TARGET_COLD_RESET ? "TARGET COLD RESET"
								   : "TARGET WARM RESET");
	}
	log_info("iscsi: %s: TMF %u (ITT 0x%08x): response %u", c->peer, it->func, it->itt, rsp);
	if (!iscsi_conn_dead(c)) {
		/* 11.5.1: TARGET COLD RESET closes every connection of the
		 * target once the response is sent (the LUs reset were only
		 * the requester's: scsi_tmf_exec) */
		send_tmf_rsp(c, it->itt, rsp, cold, tmf->add_info);
		if (cold && it->sess->target)
			iscsi_sessions_drop_target(it->sess->target, c);
		else if (fence)
			iscsi_fence_after(c);
	}
	iscsi_session_task_released(it->sess);
	iscsi_conn_put(c);
	free(it);
}

/* RFC 7143 11.5.1 b), c): ABORT TASK for a task the target does not hold. */
static uint8_t abort_unknown_task(struct iscsi_session *s, uint32_t ref_cmdsn, uint32_t cmdsn)
{
	/* b) RefCmdSN not received yet, in the window and before the TMF's
	 * own CmdSN: consider it received (the command, if it comes, is a
	 * duplicate) and report success */
	if (iscsi_cmdsn_check(&s->cmdsn, ref_cmdsn) != ISCSI_CMDSN_OUTSIDE &&
	    iscsi_sn_lt(ref_cmdsn, cmdsn)) {
		if (iscsi_cmdsn_accept(&s->cmdsn, ref_cmdsn))
			iscsi_tasks_cmdsn_advanced(s);
		return ISCSI_TMF_RSP_COMPLETE;
	}
	/* c) outside the window: the task does not exist */
	return ISCSI_TMF_RSP_NO_TASK;
}

/* Does a connection of s hold a task with this ITT? ITTs name tasks
 * session-wide (RFC 7143 11.2.1.8): with MC/S an ABORT TASK may come on
 * another connection than its task's (the task's own connection ends it:
 * cmd_abort_pending / cmd_done there). The connections are all on s's
 * reactor, which only changes the list. */
static bool session_has_task(struct iscsi_session *s, uint32_t itt)
{
	struct iscsi_conn *oc;

	list_for_each_entry(oc, &s->conns, sess_node) if (iscsi_task_by_itt(oc, itt)) return true;
	return false;
}

/* A non-immediate TMF waiting for its CmdSN's turn (session->tmf_held, in
 * CmdSN order). */
struct iscsi_tmf_held {
	struct list_node node;
	struct iscsi_conn *conn; /* a reference; still in the session */
	uint32_t cmdsn;
	struct iscsi_bhs_tmf_req hdr;
};

static void tmf_run(struct iscsi_conn *c, const struct iscsi_bhs_tmf_req *h, bool immediate);

int iscsi_tmf_rx(struct iscsi_conn *c, const union iscsi_hdr *hu)
{
	const struct iscsi_bhs_tmf_req *h = &hu->tmf_req;
	struct iscsi_session *s = c->sess;
	uint32_t cmdsn = get_be32(h->cmdsn);
	struct iscsi_tmf_held *held, *o;
	struct list_node *pos;

	if (!s || s->type != ISCSI_SESSION_NORMAL) {
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, hu);
		return 0;
	}
	c->exp_stat_sn = get_be32(h->exp_statsn);
	if (iscsi_hdr_immediate(hu)) {
		tmf_run(c, h, true);
		return 0;
	}
	if (iscsi_cmdsn_check(&s->cmdsn, cmdsn) == ISCSI_CMDSN_OUTSIDE)
		return 0; /* 3.2.2.1: silently ignored */
	/* RFC 7143 3.2.2.1: a non-immediate request is delivered in CmdSN
	 * order, a TMF as a command: it acts after every command numbered
	 * before it has entered its task set, and before any numbered after
	 * it (an ABORT TASK SET does not reach a later command, and does
	 * reach an earlier one that was still on another connection). It
	 * waits in CmdSN order beside the tasks set up ahead
	 * (scsi_cmd.c: enter_first runs both) */
	held = calloc(1, sizeof(*held));
	if (!held) {
		iscsi_cmdsn_accept(&s->cmdsn, cmdsn);
		send_tmf_rsp(c, get_be32(h->itt), ISCSI_TMF_RSP_REJECTED, false, NULL);
		iscsi_tasks_cmdsn_advanced(s);
		return 0;
	}
	held->conn = c;
	held->cmdsn = cmdsn;
	held->hdr = *h;
	iscsi_conn_get(c);
	s->tasks++; /* until it ran or its connection left (iscsi_tmf_held_conn_gone) */
	pos = &s->tmf_held;
	list_for_each_entry(o, &s->tmf_held, node)
	{
		if (iscsi_sn_lt(cmdsn, o->cmdsn)) {
			pos = &o->node;
			break;
		}
	}
	list_add_tail(pos, &held->node); /* before pos */
	iscsi_cmdsn_accept(&s->cmdsn, cmdsn);
	iscsi_tasks_cmdsn_advanced(s); /* runs it when its turn came */
	return 0;
}

bool iscsi_tmf_held_first(struct iscsi_session *s, uint32_t *cmdsn)
{
	if (list_empty(&s->tmf_held))
		return false;
	*cmdsn = list_first_entry(&s->tmf_held, struct iscsi_tmf_held, node)->cmdsn;
	return true;
}

void iscsi_tmf_run_first(struct iscsi_session *s)
{
	struct iscsi_tmf_held *held = list_first_entry(&s->tmf_held, struct iscsi_tmf_held, node);
	struct iscsi_conn *c = held->conn;

	list_del(&held->node);
	if (!iscsi_conn_dead(c))
		tmf_run(c, &held->hdr, false);
	/* its connection is still in the session (conn_gone drops the TMFs
	 * of one that leaves): s outlives this */
	s->tasks--;
	iscsi_conn_put(c);
	free(held);
}

void iscsi_tmf_held_conn_gone(struct iscsi_session *s, struct iscsi_conn *c)
{
	struct iscsi_tmf_held *held, *tmp;

	list_for_each_entry_safe(held, tmp, &s->tmf_held, node)
	{
		if (held->conn != c)
			continue;
		/* nobody to answer: it is dropped unrun, its CmdSN consumed.
		 * A TMF's response has its connection's allegiance and TASK
		 * REASSIGN moves tasks, not TMFs; the Linux target frees every
		 * request but a SCSI Command or NOP-Out of a failed connection
		 * the same way. At ERL 2 the initiator issues it again on
		 * another connection (test_erl2: held_tmf_of_failed_conn) */
		list_del(&held->node);
		s->tasks--;
		iscsi_conn_put(c);
		free(held);
	}
}

static void tmf_run(struct iscsi_conn *c, const struct iscsi_bhs_tmf_req *h, bool immediate)
{
	struct iscsi_session *s = c->sess;
	uint8_t func = h->func & ISCSI_TMF_FUNC_MASK;
	uint32_t itt = get_be32(h->itt);
	uint32_t cmdsn = get_be32(h->cmdsn);
	struct iscsi_tmf *it;

	if (func == ISCSI_TMF_TASK_REASSIGN) {
		/* 11.5.1: task reassignment needs ErrorRecoveryLevel 2 (erl2.c
		 * answers 04h below it) */
		iscsi_erl2_reassign(c, itt, get_be32(h->ref_task_tag), get_be32(h->exp_datasn));
		return;
	}
	/* RFC 7144 4.2: functions 9-12 exist only from iSCSIProtocolLevel 2
	 * on; below it they are not supported, as any unknown function */
	if (func == 0 || func >= ARRAY_SIZE(tmf_func_map) ||
	    (func >= ISCSI_TMF_QUERY_TASK && s->params.protocol_level < 2)) {
		send_tmf_rsp(c, itt, ISCSI_TMF_RSP_NOT_SUPPORTED, false, NULL);
		return;
	}
	if (func == ISCSI_TMF_ABORT_TASK) {
		uint32_t rtt = get_be32(h->ref_task_tag);

		if (!session_has_task(s, rtt)) {
			send_tmf_rsp(c, itt, abort_unknown_task(s, get_be32(h->ref_cmdsn), cmdsn),
				     false, NULL);
			return;
		}
	}
	it = calloc(1, sizeof(*it));
	if (!it) {
		send_tmf_rsp(c, itt, ISCSI_TMF_RSP_REJECTED, false, NULL);
		return;
	}
	it->conn = c;
	it->sess = s;
	it->itt = itt;
	it->func = func;
	it->tmf.nexus = s->nexus;
	it->tmf.reactor = c->r;
	it->tmf.func = tmf_func_map[func];
	it->tmf.lun = get_be64(h->lun);
	it->tmf.ref_tag = get_be32(h->ref_task_tag);
	iscsi_conn_get(c);
	s->tasks++; /* the session stays until tmf_done */
	log_info("iscsi: %s: TMF %u (ITT 0x%08x, LUN 0x%016llx, RTT 0x%08x)", c->peer, func, itt,
		 (unsigned long long)it->tmf.lun, get_be32(h->ref_task_tag));
	/* the core sees only tasks in its task sets: an immediate TMF acts on
	 * every task received, so those set up ahead of CmdSN order enter now
	 * (an abort or a reset reaches them, a query counts them); a TMF in
	 * CmdSN order runs after those numbered before it entered, and the
	 * ones after it enter after it */
	if (immediate)
		iscsi_tasks_enter_all(s);
	/* tmf_done follows once every affected task is gone (SAM-5 7.1) */
	scsi_tmf_exec(&it->tmf);
}
