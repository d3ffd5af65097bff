/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nop.c: NOP-Out (RFC 7143 11.18) and NOP-In (11.19): pings from the
 * initiator, and the target's keepalive ping every nop_in_interval_s that
 * must be answered within nop_in_timeout_s. */
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

int iscsi_nop_out_rx(struct iscsi_conn *c, const union iscsi_hdr *hu, const uint8_t *data,
		     uint32_t len)
{
	const struct iscsi_bhs_nop_out *h = &hu->nop_out;
	struct iscsi_session *s = c->sess;
	uint32_t itt = get_be32(h->itt);
	uint32_t ttt = get_be32(h->ttt);
	bool immediate = iscsi_hdr_immediate(hu);
	struct iscsi_tx *tx;
	struct iscsi_bhs_nop_in *r;

	c->exp_stat_sn = get_be32(h->exp_statsn);
	if (itt == ISCSI_RSVD_TAG) {
		/* 11.18.2: no reply wanted; the I bit must be set */
		if (!immediate) {
			iscsi_conn_proto_err(c, "NOP-Out with ITT 0xffffffff without the I bit");
			iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, hu);
			return 0;
		}
		if (ttt != ISCSI_RSVD_TAG) {
			/* the answer to our NOP-In */
			if (c->nop_outstanding && ttt == c->nop_ttt) {
				c->nop_outstanding = false;
				iscsi_nop_start(c);
			}
		}
		return 0;
	}
	if (!immediate && s) {
		if (iscsi_cmdsn_check(&s->cmdsn, get_be32(h->cmdsn)) == ISCSI_CMDSN_OUTSIDE)
			return 0; /* 3.2.2.1: silently ignored */
		if (iscsi_cmdsn_accept(&s->cmdsn, get_be32(h->cmdsn)))
			iscsi_tasks_cmdsn_advanced(s);
	}
	/* ping: echo the data (11.19.3), within the initiator's receive limit */
	tx = iscsi_tx_get(c);
	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a NOP-In");
		return -1;
	}
	r = &tx->hdr.nop_in;
	r->opcode = ISCSI_OP_NOP_IN;
	r->flags = ISCSI_FLAG_FINAL;
	memcpy(r->lun, h->lun, sizeof(r->lun));
	put_be32(r->itt, itt);
	put_be32(r->ttt, ISCSI_RSVD_TAG);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	if (len && iscsi_tx_set_data(tx, data, UT_MIN(len, c->max_send_dsl))) {
		iscsi_conn_drop(c, "out of memory for a NOP-In");
		return -1;
	}
	iscsi_tx_queue(c, tx);
	return 0;
}

void iscsi_nop_ping(struct iscsi_conn *c)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_nop_in *r;

	if (!tx)
		return;
	if (++c->nop_ttt == ISCSI_RSVD_TAG)
		c->nop_ttt = 1;
	r = &tx->hdr.nop_in;
	r->opcode = ISCSI_OP_NOP_IN;
	r->flags = ISCSI_FLAG_FINAL;
	put_be32(r->itt, ISCSI_RSVD_TAG);
	put_be32(r->ttt, c->nop_ttt);
	/* 11.19: StatSN of a target-initiated NOP-In is not advanced */
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, false);
	iscsi_tx_queue(c, tx);
}

static void nop_timer_cb(struct reactor_timer *tm)
{
	struct iscsi_conn *c = container_of(tm, struct iscsi_conn, nop_timer);
	struct iscsi_target_limits lim, *st = &lim;
	uint64_t now = reactor_now_ns();

	if (iscsi_conn_dead(c))
		return;
	iscsi_conn_limits(c, &lim); /* the target's keepalive, else the global one */
	if (c->nop_outstanding) {
		if (now - atomic_load_explicit(&c->last_rx_ns, memory_order_relaxed) >=
		    (uint64_t)st->nop_in_timeout_s * NS_PER_S) {
			log_notice("iscsi: %s: no answer to NOP-In within %u s", c->peer,
				   st->nop_in_timeout_s);
			iscsi_count_conn_error(c, ISCSI_FAIL_TIMEOUT);
			iscsi_conn_drop(c, "NOP-In timeout");
			return;
		}
		/* PDUs keep coming: the initiator is alive, ping again */
	}
	c->nop_outstanding = true;
	iscsi_nop_ping(c);
	reactor_timer_arm(c->r, &c->nop_timer, (uint64_t)st->nop_in_timeout_s * NS_PER_S);
}

void iscsi_nop_start(struct iscsi_conn *c)
{
	struct iscsi_target_limits lim, *st = &lim;

	iscsi_conn_limits(c, &lim);
	if (!st->nop_in_interval_s || iscsi_conn_dead(c))
		return;
	reactor_timer_cancel(&c->nop_timer);
	reactor_timer_init(&c->nop_timer, nop_timer_cb);
	reactor_timer_arm(c->r, &c->nop_timer, (uint64_t)st->nop_in_interval_s * NS_PER_S);
}
