/* SPDX-License-Identifier: GPL-2.0-or-later */
/* data_out.c: write data: unsolicited Data-Out, R2T (RFC 7143 11.8) and solicited
 * Data-Out (11.7), with DataPDUInOrder=Yes and DataSequenceInOrder=Yes (the
 * only values the target accepts): every burst arrives in offset order, each
 * PDU right after the previous one.
 *
 * A task wants t->want bytes at cmd->buf (the core's write_len, never more
 * than the Expected Data Transfer Length). Unsolicited data (immediate data
 * and, with InitialR2T=No, a first burst of Data-Out up to FirstBurstLength)
 * covers [0, uns_got); once the unsolicited burst is over (F bit), R2Ts of
 * at most MaxBurstLength each solicit the rest, up to MaxOutstandingR2T at a
 * time. Bytes beyond want are received and discarded. A sequence error
 * (DataSN, Buffer Offset, length, data digest) fails the task with CHECK
 * CONDITION once its outstanding bursts are over (ERL 0 has no recovery). */
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

static uint32_t new_ttt(struct iscsi_conn *c, const struct iscsi_task *t)
{
	uint32_t ttt;

	/* high half: a generation, low half: the task slot (iscsi_task_by_ttt) */
	do
		ttt = ((uint32_t)++c->ttt_gen << 16) | t->idx;
	while (ttt == ISCSI_RSVD_TAG);
	return ttt;
}

static void send_r2t(struct iscsi_task *t, struct iscsi_r2t *r, uint32_t r2tsn)
{
	struct iscsi_conn *c = t->conn;
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_r2t *h;

	if (!tx) {
		iscsi_conn_drop(c, "out of memory for an R2T");
		return;
	}
	h = &tx->hdr.r2t;
	h->opcode = ISCSI_OP_R2T;
	h->flags = ISCSI_FLAG_FINAL;
	memcpy(h->lun, t->lun, sizeof(h->lun));
	put_be32(h->itt, t->itt);
	put_be32(h->ttt, r->ttt);
	/* 11.8: StatSN carries the next StatSN and is not advanced */
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, false);
	put_be32(h->r2tsn, r2tsn);
	put_be32(h->buffer_offset, r->offset);
	put_be32(h->desired_len, r->len);
	iscsi_tx_queue(c, tx);
}

/* Open R2Ts while the window of outstanding ones allows and bytes remain. */
static void r2t_send_more(struct iscsi_task *t)
{
	const struct iscsi_params *p = &t->sess->params;
	unsigned max_open = UT_MIN((unsigned)p->max_outstanding_r2t, ISCSI_R2T_MAX);

	while (t->r2t_open < max_open && t->sol_next < t->want && !iscsi_conn_dead(t->conn)) {
		struct iscsi_r2t *r = NULL;

		for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
			if (!t->r2t[i].active) {
				r = &t->r2t[i];
				break;
			}
		if (!r)
			return;
		r->active = true;
		r->ttt = new_ttt(t->conn, t);
		r->offset = t->sol_next;
		r->len = UT_MIN(t->want - t->sol_next, p->max_burst_length);
		r->got = 0;
		r->datasn = 0;
		r->lost = false;
		t->sol_next += r->len;
		t->r2t_open++;
		/* ExpDataSN of the response counts R2Ts (11.4.8) */
		t->datasn++;
		r->r2tsn = t->r2tsn++;
		send_r2t(t, r, r->r2tsn);
	}
}

void iscsi_r2t_resend(struct iscsi_task *t, struct iscsi_r2t *r)
{
	/* 11.16 R2T SNACK: the same R2T; the initiator sends its burst from
	 * the start again */
	r->got = 0;
	r->datasn = 0;
	r->lost = false;
	iscsi_erl_count_r2t(t);
	send_r2t(t, r, r->r2tsn);
}

void iscsi_r2t_recovery(struct iscsi_task *t, struct iscsi_r2t *r)
{
	r->ttt = new_ttt(t->conn, t);
	r->datasn = 0;
	iscsi_erl_count_r2t(t);
	send_r2t(t, r, r->r2tsn);
}

void iscsi_r2t_stop(struct iscsi_task *t)
{
	for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
		t->r2t[i].active = false;
	t->r2t_open = 0;
}

/* ---- Data-Out that does not come ----
 * A task waiting for Data-Out pins its buffer until the data arrives. An
 * initiator that never sends it (or stalls half way) is not answered by
 * the CmdSN window alone, so a task that receives none of its awaited data
 * for data_out_timeout seconds ends with CHECK CONDITION, ABORTED COMMAND,
 * INITIATOR RESPONSE TIMEOUT (SPC-4 4B/06) and its buffer is freed; a
 * Data-Out for it that comes later finds no task and is discarded. One
 * timer per connection, armed while any of its tasks waits. */
static bool waits_for_data(const struct iscsi_task *t)
{
	return t->state == ISCSI_TASK_DATA_OUT && (t->uns_open || t->r2t_open || t->retry_wait) &&
	       t != t->conn->rx_task;
}

static void dataout_timer_cb(struct reactor_timer *tm)
{
	struct iscsi_conn *c = container_of(tm, struct iscsi_conn, dataout_timer);
	uint64_t limit = (uint64_t)iscsi_global.settings.data_out_timeout_s * NS_PER_S;
	uint64_t now = reactor_now_ns(), next = UINT64_MAX;
	bool again = true;

	if (iscsi_conn_dead(c) || !limit)
		return;
	iscsi_conn_get(c);
	while (again && !iscsi_conn_dead(c)) {
		again = false;
		for (struct list_node *n = c->tasks.next; n != &c->tasks; n = n->next) {
			struct iscsi_task *t = list_entry(n, struct iscsi_task, node);

			if (!waits_for_data(t))
				continue;
			if (now - t->data_wait_ns < limit) {
				next = UT_MIN(next, t->data_wait_ns + limit - now);
				continue;
			}
			iscsi_conn_proto_err(c, "no Data-Out for ITT 0x%08x within %u s: ended",
					     t->itt, iscsi_global.settings.data_out_timeout_s);
			if (!t->fabric_error)
				t->fabric_error = SENSE_ABORTED_INITIATOR_RESPONSE_TIMEOUT;
			t->uns_open = false;
			t->retry_wait = false;
			iscsi_r2t_stop(t);
			iscsi_task_data_progress(t); /* may release t: rescan */
			again = true;
			break;
		}
	}
	if (next != UINT64_MAX && !iscsi_conn_dead(c))
		reactor_timer_arm(c->r, &c->dataout_timer, next);
	iscsi_conn_flush(c);
	iscsi_conn_put(c);
}

static void iscsi_dataout_watch(struct iscsi_task *t)
{
	struct iscsi_conn *c = t->conn;
	uint32_t secs = iscsi_global.settings.data_out_timeout_s;

	t->data_wait_ns = reactor_now_ns();
	if (!secs || !c->r || reactor_timer_armed(&c->dataout_timer))
		return;
	reactor_timer_init(&c->dataout_timer, dataout_timer_cb);
	reactor_timer_arm(c->r, &c->dataout_timer, (uint64_t)secs * NS_PER_S);
}

void iscsi_task_data_progress(struct iscsi_task *t)
{
	if (t->state != ISCSI_TASK_DATA_OUT)
		return;
	if (t->aborted) {
		/* cmd_abort_pending came: the bursts it kept open end with
		 * their F bit (task_reporting.c), no R2T follows */
		if (t->uns_open || t->r2t_open) {
			iscsi_dataout_watch(t);
			return;
		}
		iscsi_task_exec(t);
		return;
	}
	if (t->uns_open || t->retry_wait) {
		/* the unsolicited burst goes on until its F bit; a command
		 * whose immediate data was lost waits for its retry (erl.c) */
		iscsi_dataout_watch(t);
		return;
	}
	if (t->sol_next < t->uns_got)
		t->sol_next = t->uns_got;
	if (!t->fabric_error)
		r2t_send_more(t);
	if (t->r2t_open == 0 && (t->sol_next >= t->want || t->fabric_error))
		iscsi_task_data_complete(t);
	else if (t->r2t_open)
		iscsi_dataout_watch(t);
}

static void fail_task(struct iscsi_task *t, enum sense_reason r)
{
	if (!t->fabric_error)
		t->fabric_error = (uint16_t)r;
}

/* MC/S, connection allegiance (RFC 7143: the PDUs related to a request go
 * over the connection it was issued on; only ERL 2 reassigns a task, 7.2.2):
 * a task's Data-Out belongs on the connection its command came on.
 * Data-Out naming a task of another connection of the session is a protocol
 * error: rejected (11.17.1, reason 04h) and its data discarded; the task
 * waits on for its own. True when that is the case (answered). */
static bool data_out_misdirected(struct iscsi_conn *c, const struct iscsi_rx *rx, uint32_t itt)
{
	struct iscsi_conn *oc;

	list_for_each_entry(oc, &c->sess->conns, sess_node)
	{
		if (oc == c || !iscsi_task_by_itt(oc, itt))
			continue;
		iscsi_conn_proto_err(c, "Data-Out for ITT 0x%08x of connection cid %u", itt,
				     oc->cid);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, &rx->hdr);
		return true;
	}
	return false;
}

int iscsi_data_out_rx_header(struct iscsi_conn *c, struct iscsi_rx *rx)
{
	const struct iscsi_bhs_data_out *h = &rx->hdr.data_out;
	uint32_t itt = get_be32(h->itt);
	uint32_t ttt = get_be32(h->ttt);
	uint32_t datasn = get_be32(h->datasn);
	uint32_t off = get_be32(h->buffer_offset);
	uint32_t len = rx->dsl;
	struct iscsi_task *t;

	c->rx_task = NULL;
	c->rx_r2t = -1;
	c->rx_drop_data = false;
	if (!c->sess || c->sess->type != ISCSI_SESSION_NORMAL) {
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, &rx->hdr);
		c->rx_discard = true;
		return 0;
	}
	c->exp_stat_sn = get_be32(h->exp_statsn);
	if (ttt != ISCSI_RSVD_TAG) {
		struct iscsi_r2t *r = NULL;

		t = iscsi_task_by_ttt(c, ttt);
		if (t)
			for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
				if (t->r2t[i].active && t->r2t[i].ttt == ttt) {
					r = &t->r2t[i];
					c->rx_r2t = (int)i;
				}
		if ((!t || !r || t->itt != itt) && data_out_misdirected(c, rx, itt)) {
			c->rx_discard = true;
			return 0;
		}
		if (!t || !r || t->itt != itt) {
			/* a burst of a task that ended (aborted, failed) or a
			 * stray PDU: nothing to put it in; under FastAbort
			 * one on its way when the task ended is no error */
			if (!iscsi_fast_abort_stray(c))
				iscsi_conn_proto_err(
				    c, "Data-Out for unknown TTT 0x%08x ITT 0x%08x", ttt, itt);
			c->rx_discard = true;
			return 0;
		}
		c->rx_task = t;
		if (t->fabric_error)
			return 0; /* draining a failed task */
		if (iscsi_erl1(c) &&
		    (r->lost || datasn != r->datasn || off != r->offset + r->got)) {
			/* ERL 1 (erl.c): a PDU before it was lost, or it
			 * repeats placed bytes: not placed */
			if ((uint64_t)off + len > r->offset + r->got)
				r->lost = true;
			c->rx_drop_data = true;
			return 0;
		}
		if (datasn != r->datasn) {
			iscsi_conn_proto_err(c, "DataSN %u, expected %u (ITT 0x%08x)", datasn,
					     r->datasn, itt);
			fail_task(t, SENSE_ABORTED_DATA_OFFSET_ERROR);
			return 0;
		}
		if (off != r->offset + r->got) {
			iscsi_conn_proto_err(c, "Buffer Offset %u, expected %u (ITT 0x%08x)", off,
					     r->offset + r->got, itt);
			fail_task(t, SENSE_ABORTED_DATA_OFFSET_ERROR);
			return 0;
		}
		if (len > r->len - r->got) {
			iscsi_conn_proto_err(c, "Data-Out beyond the R2T (ITT 0x%08x)", itt);
			fail_task(t, SENSE_ABORTED_TOO_MUCH_WRITE_DATA);
			return 0;
		}
		/* within [r->offset, r->offset + r->len) which is within want */
		rx->dst = t->cmd.buf + off;
		rx->keep = len;
		return 0;
	}

	/* unsolicited Data-Out (InitialR2T=No) */
	t = iscsi_task_by_itt(c, itt);
	if (!t && data_out_misdirected(c, rx, itt)) {
		c->rx_discard = true;
		return 0;
	}
	if (t && t->state == ISCSI_TASK_DATA_OUT && t->retry_wait) {
		/* ERL 1: its command was rejected (erl.c): so is its data */
		c->rx_task = t;
		c->rx_drop_data = true;
		return 0;
	}
	if (!t || t->state != ISCSI_TASK_DATA_OUT || !t->uns_open) {
		iscsi_conn_proto_err(c, "unsolicited Data-Out for ITT 0x%08x not expected", itt);
		c->rx_discard = true;
		return 0;
	}
	c->rx_task = t;
	if (t->fabric_error)
		return 0;
	if (iscsi_erl1(c) &&
	    (t->retry_wait || t->uns_lost || datasn != t->uns_datasn || off != t->uns_got)) {
		/* ERL 1 (erl.c): lost before, or a repeat: not placed */
		if (!t->retry_wait && (uint64_t)off + len > t->uns_got)
			t->uns_lost = true;
		c->rx_drop_data = true;
		return 0;
	}
	if (datasn != t->uns_datasn || off != t->uns_got) {
		iscsi_conn_proto_err(c, "unsolicited DataSN %u / offset %u, expected %u / %u",
				     datasn, off, t->uns_datasn, t->uns_got);
		fail_task(t, SENSE_ABORTED_DATA_OFFSET_ERROR);
		return 0;
	}
	if ((uint64_t)off + len > UT_MIN(t->edtl, t->sess->params.first_burst_length)) {
		/* 13.14: unsolicited data is bounded by FirstBurstLength */
		iscsi_conn_proto_err(c, "unsolicited data beyond FirstBurstLength (ITT 0x%08x)",
				     itt);
		fail_task(t, SENSE_ABORTED_TOO_MUCH_WRITE_DATA);
		return 0;
	}
	if (off < t->want) {
		rx->dst = t->cmd.buf + off;
		rx->keep = UT_MIN(len, t->want - off);
	}
	return 0;
}

int iscsi_data_out_rx_end(struct iscsi_conn *c, struct iscsi_rx *rx, bool ddigest_ok)
{
	const struct iscsi_bhs_data_out *h = &rx->hdr.data_out;
	struct iscsi_task *t = c->rx_task;
	bool final = h->flags & ISCSI_FLAG_FINAL;

	c->rx_task = NULL;
	if (!t)
		return 0;
	if (iscsi_erl1(c) && (!ddigest_ok || c->rx_drop_data) && !t->fabric_error) {
		/* RFC 7143 7.8, 7.2.1: rejected and discarded; the rest of
		 * its burst is asked again at its end (erl.c) */
		if (!ddigest_ok) {
			iscsi_conn_digest_err(c, "data digest error in Data-Out (ITT 0x%08x)",
					      t->itt);
			iscsi_reject(c, ISCSI_REJECT_DATA_DIGEST, &rx->hdr);
		}
		c->rx_drop_data = false;
		if (c->rx_r2t >= 0) {
			struct iscsi_r2t *r = &t->r2t[c->rx_r2t];

			if (r->active && !ddigest_ok)
				r->lost = true;
			if (r->active && final && r->lost)
				iscsi_erl_burst_recover(t, r);
		} else if (t->retry_wait) {
			if (final)
				t->uns_open = false;
		} else if (t->uns_open) {
			if (!ddigest_ok)
				t->uns_lost = true;
			if (final)
				iscsi_erl_burst_recover(t, NULL);
		}
		goto progress;
	}
	if (!ddigest_ok) {
		/* RFC 7143 7.8 at ERL 0: reject, fail the task */
		iscsi_conn_digest_err(c, "data digest error in Data-Out (ITT 0x%08x)", t->itt);
		iscsi_reject(c, ISCSI_REJECT_DATA_DIGEST, &rx->hdr);
		fail_task(t, SENSE_ABORTED_PROTOCOL_CRC_ERROR);
	}
	if (c->rx_r2t >= 0) {
		struct iscsi_r2t *r = &t->r2t[c->rx_r2t];

		if (!r->active)
			goto progress; /* stopped while the PDU came in */
		r->got += rx->dsl;
		r->datasn++;
		if (r->got > r->len)
			r->got = r->len;
		if (final) {
			/* 11.7.1: F ends the burst; all of it must be there */
			if (r->got < r->len)
				fail_task(t, SENSE_ABORTED_DATA_OFFSET_ERROR);
			r->active = false;
			t->r2t_open--;
		}
	} else if (t->uns_open) {
		t->uns_got += rx->dsl;
		t->uns_datasn++;
		if (final)
			t->uns_open = false;
	}
progress:
	iscsi_task_data_progress(t);
	return c->rx_paused ? 1 : 0;
}
