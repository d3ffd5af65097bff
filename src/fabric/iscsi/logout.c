/* SPDX-License-Identifier: GPL-2.0-or-later */
/* logout.c: Logout Request/Response (RFC 7143 11.14, 11.15). */
#include <pthread.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* close: the Logout closes c (T13 once the response is out); a Logout
 * that closed another connection of the session leaves c open. */
static void send_logout_rsp_on(struct iscsi_conn *c, uint32_t itt, uint8_t response, bool close)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_logout_rsp *r;

	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a Logout Response");
		return;
	}
	r = &tx->hdr.logout_rsp;
	r->opcode = ISCSI_OP_LOGOUT_RSP;
	r->flags = ISCSI_FLAG_FINAL;
	r->response = response;
	put_be32(r->itt, itt);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	if (c->sess) {
		/* 11.15.2, 11.15.3: meaningful at ERL 2 only; the negotiated
		 * defaults are reported */
		put_be16(r->time2wait, c->sess->params.default_time2wait);
		put_be16(r->time2retain, c->sess->params.default_time2retain);
	}
	if (response == ISCSI_LOGOUT_RSP_CLOSED && close) {
		/* T13: closed once the response is out */
		tx->flags |= ISCSI_TX_F_CLOSE;
		c->close_ev = ISCSI_CEV_LOGOUT_SENT;
	}
	iscsi_tx_queue(c, tx);
}

static void send_logout_rsp(struct iscsi_conn *c, uint32_t itt, uint8_t response)
{
	send_logout_rsp_on(c, itt, response, true);
}

/* MC/S, reason 1 naming another connection of the session (RFC 7143
 * 11.14.1: "close the connection" with that CID): it is closed -- at ERL 0
 * its tasks are terminated (conn.c: iscsi_tasks_terminate) -- and the
 * session stays with the others; c answers and stays. Reason 0 ("close the
 * session"): every other connection is closed now, c once its response is
 * out. Under iscsi_global.lock. The connections closed this way leave
 * cleanly (session.c: not a connection failure). Returns false when no
 * connection of the session has that CID. */
static bool logout_close_others_locked(struct iscsi_session *s, struct iscsi_conn *c, bool all,
				       uint16_t cid)
{
	struct iscsi_conn *oc;
	bool found = false;

	if (all)
		s->ending = true; /* no connection joins a session being closed */
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		if (oc == c || (!all && oc->cid != cid))
			continue;
		found = true;
		oc->leave_clean = true;
		iscsi_conn_drop_async(oc);
	}
	return found;
}

void iscsi_logout_tasks_drained(struct iscsi_conn *c)
{
	if (!c->logout_pending)
		return;
	c->logout_pending = false;
	if (!iscsi_conn_dead(c))
		send_logout_rsp(c, c->logout_itt, c->logout_rsp);
}

int iscsi_logout_rx(struct iscsi_conn *c, const union iscsi_hdr *hu)
{
	const struct iscsi_bhs_logout_req *h = &hu->logout_req;
	struct iscsi_session *s = c->sess;
	uint8_t reason = h->reason & ISCSI_LOGOUT_REASON_MASK;
	uint32_t itt = get_be32(h->itt);

	iscsi_count_logout(c, reason);
	c->exp_stat_sn = get_be32(h->exp_statsn);
	if (!iscsi_hdr_immediate(hu) && s) {
		uint32_t cmdsn = get_be32(h->cmdsn);

		if (iscsi_cmdsn_check(&s->cmdsn, cmdsn) == ISCSI_CMDSN_OUTSIDE)
			return 0; /* 3.2.2.1: silently ignored */
		if (iscsi_cmdsn_accept(&s->cmdsn, cmdsn))
			iscsi_tasks_cmdsn_advanced(s);
	}
	if (c->state != ISCSI_CONN_S5_LOGGED_IN) {
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, hu);
		return 0;
	}
	switch (reason) {
	case ISCSI_LOGOUT_CLOSE_SESSION:
		if (s) {
			pthread_mutex_lock(&iscsi_global.lock);
			logout_close_others_locked(s, c, true, 0);
			pthread_mutex_unlock(&iscsi_global.lock);
		}
		break;
	case ISCSI_LOGOUT_CLOSE_CONNECTION:
		if (get_be16(h->cid) != c->cid) {
			bool found = false;

			if (s) {
				pthread_mutex_lock(&iscsi_global.lock);
				found = logout_close_others_locked(s, c, false, get_be16(h->cid));
				pthread_mutex_unlock(&iscsi_global.lock);
			}
			send_logout_rsp_on(c, itt,
					   found ? ISCSI_LOGOUT_RSP_CLOSED
						 : ISCSI_LOGOUT_RSP_CID_NOT_FOUND,
					   false);
			return 0;
		}
		break;
	case ISCSI_LOGOUT_REMOVE_FOR_RECOVERY: {
		bool self = false;

		/* 11.14.1: connection recovery needs ErrorRecoveryLevel 2 */
		if (!iscsi_erl2(c)) {
			send_logout_rsp(c, itt, ISCSI_LOGOUT_RSP_RECOVERY_UNSUPPORTED);
			return 0;
		}
		/* ERL 2 (erl2.c): the connection named goes, its tasks stay
		 * for TASK REASSIGN; the response carries Time2Wait and
		 * Time2Retain (11.15.2, 11.15.3) */
		if (iscsi_erl2_logout_remove(c, get_be16(h->cid), &self) < 0) {
			send_logout_rsp_on(c, itt, ISCSI_LOGOUT_RSP_CID_NOT_FOUND, false);
			return 0;
		}
		if (!self) {
			send_logout_rsp_on(c, itt, ISCSI_LOGOUT_RSP_CLOSED, false);
			return 0;
		}
		/* c itself: T10, then closed once the response is out (T13);
		 * its tasks are not waited for, they wait for reassignment */
		iscsi_conn_event(c, ISCSI_CEV_LOGOUT_REQ);
		send_logout_rsp(c, itt, ISCSI_LOGOUT_RSP_CLOSED);
		return 0;
	}
	default:
		iscsi_reject(c, ISCSI_REJECT_INVALID_PDU_FIELD, hu);
		return 0;
	}
	iscsi_conn_event(c, ISCSI_CEV_LOGOUT_REQ); /* T10: S5 -> S6 */
	if (c->live_tasks == 0) {
		send_logout_rsp(c, itt, ISCSI_LOGOUT_RSP_CLOSED);
		return 0;
	}
	/* Tasks still active: the logout terminates them (11.14: they cannot
	 * outlive the session at ERL 0); the response follows their end. */
	c->logout_pending = true;
	c->logout_itt = itt;
	c->logout_rsp = ISCSI_LOGOUT_RSP_CLOSED;
	if (reason == ISCSI_LOGOUT_CLOSE_CONNECTION && s && s->nconns > 1) {
		/* MC/S: only this connection's tasks end. Those not in the
		 * core yet (waiting for Data-Out or CmdSN order) are ended as
		 * aborted; those the core runs end on their own (aborting them
		 * one by one would be a TMF; the others' tasks must not be
		 * touched), and the response follows them. */
		iscsi_tasks_terminate(c);
		return 0;
	}
	if (s && s->nexus && !s->nexus_lost) {
		s->nexus_lost = true;
		scsi_nexus_loss(s->nexus);
	}
	return 0;
}
