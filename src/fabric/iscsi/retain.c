/* SPDX-License-Identifier: GPL-2.0-or-later */
/* retain.c: copies kept for retransmission at ErrorRecoveryLevel >= 1
 * (RFC 7143 7.1, 11.16; retain.h). */
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

#define STATSN_OFF 24u /* StatSN of every target response BHS (11.*) */

bool iscsi_erl1(const struct iscsi_conn *c)
{
	return c->sess && c->sess->type == ISCSI_SESSION_NORMAL &&
	       c->sess->params.error_recovery_level >= 1 && c->state >= ISCSI_CONN_S5_LOGGED_IN;
}

void iscsi_retained_drop(struct iscsi_conn *c, struct iscsi_retained *r)
{
	list_del(&r->node);
	c->retained_bytes -= sizeof(*r) + r->len;
	free(r);
}

/* Does the unit advance StatSN (built with iscsi_conn_fill_sn(advance))? */
static bool status_bearing(const struct iscsi_conn *c, const union iscsi_hdr *h)
{
	switch (iscsi_hdr_opcode(h)) {
	case ISCSI_OP_DATA_IN:
		if (!(h->data_in.flags & ISCSI_DATAIN_F_STATUS))
			return false;
		break;
	case ISCSI_OP_SCSI_RSP:
	case ISCSI_OP_TMF_RSP:
	case ISCSI_OP_TEXT_RSP:
	case ISCSI_OP_LOGOUT_RSP:
	case ISCSI_OP_REJECT:
	case ISCSI_OP_ASYNC_MSG:
	case ISCSI_OP_NOP_IN:
		break;
	default:
		return false;
	}
	/* a NOP-In of our own (ITT reserved) carries the next StatSN, not
	 * advanced: only the PDUs that took a StatSN are status */
	return get_be32(h->raw + STATSN_OFF) == c->stat_sn - 1;
}

void iscsi_retain_tx(struct iscsi_conn *c, const struct iscsi_tx *tx)
{
	const union iscsi_hdr *h = &tx->hdr;
	bool data_in = iscsi_hdr_opcode(h) == ISCSI_OP_DATA_IN;
	bool status = status_bearing(c, h);
	struct iscsi_retained *r;

	if (!data_in && !status)
		return;
	r = malloc(sizeof(*r) + tx->len);
	if (!r) {
		/* no copy: a SNACK for it is refused (SNACK Reject) */
		iscsi_session_count(&c->sess->stat_retain_evicted, 1);
		return;
	}
	memcpy(&r->hdr, h, sizeof(r->hdr));
	r->ack_mark = false;
	r->acked_below = 0;
	r->status = status;
	r->data_in = data_in;
	/* a Data-In without status is acknowledged with its task's status,
	 * which the same completion sends next (scsi_cmd.c) */
	r->statsn = status ? get_be32(h->raw + STATSN_OFF) : c->stat_sn;
	r->len = tx->len;
	if (tx->len)
		memcpy(r->data, tx->data, tx->len);
	list_add_tail(&c->retained, &r->node);
	c->retained_bytes += sizeof(*r) + r->len;
	while (c->retained_bytes > ISCSI_RETAIN_MAX_BYTES && !list_empty(&c->retained)) {
		/* the cap: the oldest copies go first */
		iscsi_retained_drop(c, list_first_entry(&c->retained, struct iscsi_retained, node));
		iscsi_session_count(&c->sess->stat_retain_evicted, 1);
	}
}

void iscsi_retain_ack(struct iscsi_conn *c, uint32_t exp_statsn)
{
	/* an ExpStatSN beyond what was sent acknowledges nothing (7.1) */
	if (!iscsi_sn_le(exp_statsn, c->stat_sn))
		return;
	while (!list_empty(&c->retained)) {
		struct iscsi_retained *r =
		    list_first_entry(&c->retained, struct iscsi_retained, node);

		if (!iscsi_sn_lt(r->statsn, exp_statsn))
			break;
		iscsi_retained_drop(c, r);
	}
}

void iscsi_retain_free(struct iscsi_conn *c)
{
	while (!list_empty(&c->retained))
		iscsi_retained_drop(c, list_first_entry(&c->retained, struct iscsi_retained, node));
}

int iscsi_retx_queue(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		     uint32_t len)
{
	struct iscsi_tx *tx;

	if (iscsi_conn_dead(c))
		return -1;
	tx = iscsi_tx_get(c);
	if (!tx)
		return -1;
	memcpy(&tx->hdr, h, sizeof(tx->hdr));
	if (len && iscsi_tx_set_data(tx, data, len)) {
		iscsi_tx_put(c, tx);
		return -1;
	}
	tx->flags |= ISCSI_TX_F_RETX;
	iscsi_tx_queue(c, tx); /* sealed and on the queue: its length holds */
	iscsi_session_count(&c->sess->stat_retx_pdus, 1);
	iscsi_session_count(&c->sess->stat_retx_bytes, iscsi_tx_wire_len(tx));
	return 0;
}

int iscsi_retain_resend(struct iscsi_conn *c, const struct iscsi_retained *r)
{
	return iscsi_retx_queue(c, &r->hdr, r->data, r->len);
}

unsigned iscsi_retain_resend_task(struct iscsi_conn *c, uint32_t itt, uint32_t from)
{
	struct iscsi_retained *r;
	unsigned n = 0;

	list_for_each_entry(r, &c->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&r->hdr);

		if (r->ack_mark || get_be32(r->hdr.rsp.itt) != itt ||
		    (op != ISCSI_OP_DATA_IN && op != ISCSI_OP_SCSI_RSP))
			continue;
		if (r->data_in && !r->status && iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from))
			continue;
		if (iscsi_retain_resend(c, r))
			break;
		n++;
	}
	return n;
}

bool iscsi_retain_has_status(struct iscsi_conn *c, uint32_t itt)
{
	struct iscsi_retained *r;

	list_for_each_entry(r, &c->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&r->hdr);

		if (r->status && (op == ISCSI_OP_DATA_IN || op == ISCSI_OP_SCSI_RSP) &&
		    get_be32(r->hdr.rsp.itt) == itt)
			return true;
	}
	return false;
}
