/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.c: Text Request/Response in full feature phase (RFC 7143 11.10,
 * 11.11): C-bit continuation of requests (accumulated up to
 * ISCSI_KEYS_ACCUM_MAX bytes) and of responses (each PDU within the
 * initiator's MaxRecvDataSegmentLength, continued with a Target Transfer
 * Tag), key negotiation through param.c, SendTargets through discovery.c. */
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/param.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

#define TEXT_RSP_CAP (1u << 20)

struct iscsi_text {
	uint32_t itt;
	uint32_t ttt; /* ours, while the exchange continues */
	uint8_t lun[8];
	uint8_t *acc;
	uint32_t acc_len;
	struct iscsi_kbuf rsp;
	uint32_t rsp_off;
	bool answering; /* rsp is being sent in pieces */
};

void iscsi_text_free(struct iscsi_conn *c)
{
	struct iscsi_text *x = c->text;

	if (!x)
		return;
	free(x->acc);
	iscsi_kbuf_free(&x->rsp);
	free(x);
	c->text = NULL;
}

static uint32_t text_ttt(struct iscsi_conn *c)
{
	uint32_t ttt;

	/* distinct from R2T tags (those carry a task slot below 0x8000) */
	do
		ttt = 0x80000000u | ((uint32_t)++c->ttt_gen << 16) | 0x8000u;
	while (ttt == ISCSI_RSVD_TAG);
	return ttt;
}

/* One Text Response: a piece of the answer (or an empty one). */
static void send_piece(struct iscsi_conn *c, struct iscsi_text *x)
{
	uint32_t left = x->rsp.len - x->rsp_off;
	uint32_t n = UT_MIN(left, c->max_send_dsl);
	bool last = n == left;
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_text_rsp *r;

	if (!tx || (n && iscsi_tx_set_data(tx, x->rsp.buf + x->rsp_off, n))) {
		if (tx)
			iscsi_tx_put(c, tx);
		iscsi_conn_drop(c, "out of memory for a Text Response");
		return;
	}
	r = &tx->hdr.text_rsp;
	r->opcode = ISCSI_OP_TEXT_RSP;
	memcpy(r->lun, x->lun, sizeof(r->lun));
	put_be32(r->itt, x->itt);
	if (last) {
		/* 11.11.1: F=1 ends the exchange; the TTT is then reserved */
		r->flags = ISCSI_FLAG_FINAL;
		put_be32(r->ttt, ISCSI_RSVD_TAG);
	} else {
		r->flags = ISCSI_FLAG_CONTINUE;
		x->ttt = text_ttt(c);
		put_be32(r->ttt, x->ttt);
	}
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	x->rsp_off += n;
	iscsi_tx_queue(c, tx);
	if (last)
		iscsi_text_free(c);
}

/* The initiator's C-bit request: an empty answer with a TTT to continue. */
static void send_continue(struct iscsi_conn *c, struct iscsi_text *x)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_text_rsp *r;

	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a Text Response");
		return;
	}
	r = &tx->hdr.text_rsp;
	r->opcode = ISCSI_OP_TEXT_RSP;
	memcpy(r->lun, x->lun, sizeof(r->lun));
	put_be32(r->itt, x->itt);
	x->ttt = text_ttt(c);
	put_be32(r->ttt, x->ttt);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	iscsi_tx_queue(c, tx);
}

static void text_answer(struct iscsi_conn *c, struct iscsi_text *x, const union iscsi_hdr *h,
			const uint8_t *data, uint32_t len)
{
	struct iscsi_kv kv[ISCSI_KEYS_MAX];
	struct iscsi_neg n;
	enum iscsi_neg_result nr;
	enum iscsi_keys_err ke;
	unsigned nkv;

	ke = iscsi_keys_parse(data, len, kv, ISCSI_KEYS_MAX, &nkv);
	if (ke) {
		iscsi_conn_proto_err(c, "text keys: %s", iscsi_keys_strerror(ke));
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		iscsi_text_free(c);
		return;
	}
	/* each exchange negotiates afresh against the session's values */
	iscsi_neg_init(&n, &iscsi_global.settings);
	n.active = c->sess->params;
	nr = iscsi_neg_request(&n, ISCSI_NEG_FFP, kv, nkv, &x->rsp);
	if (nr) {
		iscsi_conn_proto_err(c, "text negotiation: %s", iscsi_neg_strerror(nr));
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		iscsi_text_free(c);
		return;
	}
	if (n.cur & (1u << ISCSI_KEY_MAX_RECV_DSL)) {
		pthread_mutex_lock(&iscsi_global.lock); /* session.list reads it */
		c->max_send_dsl = n.peer.max_recv_dsl;	/* 13.12: use ALL */
		pthread_mutex_unlock(&iscsi_global.lock);
	}
	if (n.send_targets)
		iscsi_send_targets(c, &n, &x->rsp);
	if (x->rsp.overflow) {
		iscsi_conn_proto_err(c, "text response over %u bytes", TEXT_RSP_CAP);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		iscsi_text_free(c);
		return;
	}
	x->answering = true;
	x->rsp_off = 0;
	send_piece(c, x);
}

int iscsi_text_rx(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data, uint32_t len)
{
	const struct iscsi_bhs_text_req *q = &h->text_req;
	struct iscsi_session *s = c->sess;
	uint32_t itt = get_be32(q->itt);
	uint32_t ttt = get_be32(q->ttt);
	bool cont = q->flags & ISCSI_FLAG_CONTINUE;
	struct iscsi_text *x = c->text;

	c->exp_stat_sn = get_be32(q->exp_statsn);
	if (c->reneg_requested) {
		/* RFC 7143 11.9.1: the answer to AsyncEvent 4 */
		c->reneg_requested = false;
		log_info("iscsi: %s: Text Request after the target's renegotiation request",
			 c->peer);
	}
	if (!s || c->state != ISCSI_CONN_S5_LOGGED_IN) {
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		return 0;
	}
	if (!iscsi_hdr_immediate(h)) {
		uint32_t cmdsn = get_be32(q->cmdsn);

		if (iscsi_cmdsn_check(&s->cmdsn, cmdsn) == ISCSI_CMDSN_OUTSIDE)
			return 0; /* 3.2.2.1: silently ignored */
		if (iscsi_cmdsn_accept(&s->cmdsn, cmdsn))
			iscsi_tasks_cmdsn_advanced(s);
	}
	if (itt == ISCSI_RSVD_TAG || (cont && (q->flags & ISCSI_FLAG_FINAL))) {
		/* 11.10.2: C=1 requires F=0 */
		iscsi_reject(c, ISCSI_REJECT_INVALID_PDU_FIELD, h);
		return 0;
	}
	if (ttt != ISCSI_RSVD_TAG) {
		/* continuing an exchange: the TTT we gave */
		if (!x || x->ttt != ttt || x->itt != itt) {
			iscsi_conn_proto_err(c, "Text Request with unknown TTT 0x%08x", ttt);
			iscsi_reject(c, ISCSI_REJECT_INVALID_PDU_FIELD, h);
			iscsi_text_free(c);
			return 0;
		}
		if (x->answering) {
			if (len) {
				iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
				iscsi_text_free(c);
				return 0;
			}
			send_piece(c, x);
			return 0;
		}
	} else {
		/* 11.10.4: a new exchange (TTT 0xffffffff) ends any older one */
		iscsi_text_free(c);
		x = c->text = calloc(1, sizeof(*x));
		if (!x) {
			iscsi_reject(c, ISCSI_REJECT_LONG_OP, h);
			return 0;
		}
		x->itt = itt;
		x->ttt = ISCSI_RSVD_TAG;
		memcpy(x->lun, q->lun, sizeof(x->lun));
		iscsi_kbuf_init(&x->rsp, TEXT_RSP_CAP);
	}
	if (cont || x->acc_len) {
		uint8_t *acc;

		if (len > ISCSI_KEYS_ACCUM_MAX - x->acc_len) {
			iscsi_conn_proto_err(c, "text request over %u bytes", ISCSI_KEYS_ACCUM_MAX);
			iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
			iscsi_text_free(c);
			return 0;
		}
		acc = realloc(x->acc, x->acc_len + len + 1);
		if (!acc) {
			iscsi_reject(c, ISCSI_REJECT_LONG_OP, h);
			iscsi_text_free(c);
			return 0;
		}
		x->acc = acc;
		if (len)
			memcpy(x->acc + x->acc_len, data, len);
		x->acc_len += len;
		if (cont) {
			send_continue(c, x);
			return 0;
		}
		data = x->acc;
		len = x->acc_len;
	}
	text_answer(c, x, h, data, len);
	return 0;
}
