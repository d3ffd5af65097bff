/* SPDX-License-Identifier: GPL-2.0-or-later */
/* logout.c: Logout Request/Response (RFC 7143 11.14, 11.15). */
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

static void send_logout_rsp(struct iscsi_conn *c, uint32_t itt, uint8_t response)
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
	if (response == ISCSI_LOGOUT_RSP_CLOSED) {
		/* T13: closed once the response is out */
		tx->flags |= ISCSI_TX_F_CLOSE;
		c->close_ev = ISCSI_CEV_LOGOUT_SENT;
	}
	iscsi_tx_queue(c, tx);
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
		break;
	case ISCSI_LOGOUT_CLOSE_CONNECTION:
		if (get_be16(h->cid) != c->cid) {
			/* one connection per session: no other CID exists */
			send_logout_rsp(c, itt, ISCSI_LOGOUT_RSP_CID_NOT_FOUND);
			return 0;
		}
		break;
	case ISCSI_LOGOUT_REMOVE_FOR_RECOVERY:
		/* 11.14.1: connection recovery needs ErrorRecoveryLevel 2 */
		send_logout_rsp(c, itt, ISCSI_LOGOUT_RSP_RECOVERY_UNSUPPORTED);
		return 0;
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
	if (s && s->nexus && !s->nexus_lost) {
		s->nexus_lost = true;
		scsi_nexus_loss(s->nexus);
	}
	return 0;
}
