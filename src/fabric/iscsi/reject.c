/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reject.c: Reject (RFC 7143 11.17): the reason and the rejected header in
 * the data segment. */
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "lib/endian.h"

void iscsi_reject(struct iscsi_conn *c, uint8_t reason, const union iscsi_hdr *h)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_reject *r;

	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a Reject");
		return;
	}
	r = &tx->hdr.reject;
	r->opcode = ISCSI_OP_REJECT;
	r->flags = ISCSI_FLAG_FINAL;
	r->reason = reason;
	put_be32(r->itt, ISCSI_RSVD_TAG);
	/* 11.17: a Reject is a status-bearing PDU: StatSN advances */
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	/* DataSN/R2TSN: only for SNACK rejects at ERL > 0 */
	memcpy(tx->small, h->raw, ISCSI_BHS_LEN);
	tx->data = tx->small;
	tx->len = ISCSI_BHS_LEN;
	iscsi_tx_queue(c, tx);
}
