/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdata.c: the R-Data SNACK (RFC 7143 11.16.1 type 3, 11.16.3
 * Resegmentation) at ErrorRecoveryLevel >= 1.
 *
 * An initiator whose MaxRecvDataSegmentLength changed (a Text Request
 * declaring it, text.c) since a read's Data-In went out asks for all of
 * that read's unacknowledged data again with an R-Data SNACK: it has
 * discarded what it had not acknowledged, and expects the data cut to the
 * segment length it declares now.
 *
 *   - The Data-In are rebuilt from the retained copies (retain.c) of the
 *     task's data from the last DataACK's BegRun on (0 without one): as
 *     many bytes, from the same buffer offset, in segments of at most the
 *     current MaxRecvDataSegmentLength and sequences of at most
 *     MaxBurstLength. Their DataSN start at that BegRun and go up by one
 *     (11.16.3). No A bit and no status in them.
 *   - Then a SCSI Response carrying the SNACK Tag (the SNACK's TTT field)
 *     as the last response of the task, with the StatSN of the status sent
 *     first (11.16.3: every response of the task carries the same StatSN),
 *     the same status, residual and sense, and ExpDataSN one past the last
 *     DataSN sent now. When the status went in the last Data-In, this
 *     SCSI Response is new.
 *   - The retained copies are replaced by the new PDUs, so a later Data
 *     SNACK names the new DataSNs and a Status SNACK gets the response
 *     "with the latest content known to the target, including the last
 *     SNACK Tag" (11.16.3).
 *
 * Served only for a read whose status has been sent and whose data copies
 * are all still retained. BegRun and RunLength must be 0 (11.16.4: the
 * SNACK names all unacknowledged data); anything else, or an ITT with
 * nothing retained, is a protocol error (Reject 04h). A read still running,
 * or whose copies the cap evicted, cannot be served: Reject 03h (SNACK
 * Reject), the initiator recovers a level up (task abort). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"
#include "lib/log.h"

/* The status-bearing copy of itt's status (a SCSI Response or the last
 * Data-In with S). */
static struct iscsi_retained *status_copy(struct iscsi_conn *c, uint32_t itt)
{
	struct iscsi_retained *r;

	list_for_each_entry(r, &c->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&r->hdr);

		if (r->status && !r->ack_mark &&
		    (op == ISCSI_OP_DATA_IN || op == ISCSI_OP_SCSI_RSP) &&
		    get_be32(r->hdr.rsp.itt) == itt)
			return r;
	}
	return NULL;
}

/* A new retained copy, inserted before `at` (not yet sent). */
static struct iscsi_retained *copy_new(struct iscsi_conn *c, struct iscsi_retained *at,
				       const union iscsi_hdr *h, const uint8_t *p, uint32_t len)
{
	struct iscsi_retained *r = malloc(sizeof(*r) + len);

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	memcpy(&r->hdr, h, sizeof(r->hdr));
	r->data_in = iscsi_hdr_opcode(h) == ISCSI_OP_DATA_IN;
	r->statsn = at->statsn;
	r->len = len;
	if (len)
		memcpy(r->data, p, len);
	list_add_tail(&at->node, &r->node); /* before at */
	c->retained_bytes += sizeof(*r) + len;
	return r;
}

/* A read's data cut again (11.16.3), by both rebuilders: len bytes from
 * Buffer Offset off, in segments of at most seg and sequences of at most
 * burst, DataSN from sn on. */
struct reseg {
	uint32_t itt, off, len, done, seg, burst, in_burst, sn;
	uint8_t lun[8];
};

/* The next Data-In of g into h (no status; c's window fields): its length,
 * its data at buf + done before the call; 0 when all is cut. */
static uint32_t reseg_next(struct iscsi_conn *c, struct reseg *g, union iscsi_hdr *h)
{
	uint32_t n = UT_MIN(g->len - g->done, UT_MIN(g->seg, g->burst - g->in_burst));
	struct iscsi_bhs_data_in *d = &h->data_in;
	uint8_t rsvd[4];

	if (!n)
		return 0;
	memset(h, 0, sizeof(*h));
	d->opcode = ISCSI_OP_DATA_IN;
	memcpy(d->lun, g->lun, sizeof(d->lun));
	put_be32(d->itt, g->itt);
	put_be32(d->ttt, ISCSI_RSVD_TAG);
	g->in_burst += n;
	if (g->done + n == g->len || g->in_burst == g->burst) {
		d->flags |= ISCSI_FLAG_FINAL; /* 11.7.1: sequence ends */
		g->in_burst = 0;
	}
	iscsi_conn_fill_sn(c, rsvd, d->exp_cmdsn, d->max_cmdsn, false);
	put_be32(d->datasn, g->sn++);
	put_be32(d->buffer_offset, g->off + g->done);
	g->done += n;
	return n;
}

/* The task's data from DataSN `from` on, to be cut for c: its copies on o
 * in send order, checked to be complete and contiguous, gathered into one
 * buffer; g set up (its offset, length and LUN from the copies). NULL with
 * *err set: -ENOENT none, -ESRCH a gap (evicted), -ENOMEM. */
static uint8_t *gather(struct iscsi_conn *c, struct iscsi_conn *o, uint32_t itt, uint32_t from,
		       struct reseg *g, int *err)
{
	struct iscsi_retained *r;
	uint32_t next_sn = from, total = 0, start = 0;
	bool any = false;
	uint8_t *buf;

	list_for_each_entry(r, &o->retained, node)
	{
		if (!r->data_in || r->ack_mark || get_be32(r->hdr.data_in.itt) != itt ||
		    iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from))
			continue;
		if (get_be32(r->hdr.data_in.datasn) != next_sn ||
		    (any && get_be32(r->hdr.data_in.buffer_offset) != start + total)) {
			*err = -ESRCH;
			return NULL;
		}
		if (!any) {
			start = get_be32(r->hdr.data_in.buffer_offset);
			memcpy(g->lun, r->hdr.data_in.lun, sizeof(g->lun));
		}
		any = true;
		next_sn++;
		total += r->len;
	}
	if (!any) {
		*err = -ENOENT;
		return NULL;
	}
	buf = malloc(total ? total : 1);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	total = 0;
	list_for_each_entry(r, &o->retained, node)
	{
		if (!r->data_in || r->ack_mark || get_be32(r->hdr.data_in.itt) != itt ||
		    iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from))
			continue;
		memcpy(buf + total, r->data, r->len);
		total += r->len;
	}
	g->itt = itt;
	g->off = start;
	g->len = total;
	g->done = 0;
	g->seg = c->max_send_dsl;
	g->burst = c->sess->params.max_burst_length;
	g->in_burst = 0;
	g->sn = from;
	return buf;
}

/* Drop itt's Data-In copies from DataSN `from` on. */
static void drop_data(struct iscsi_conn *c, uint32_t itt, uint32_t from)
{
	struct iscsi_retained *r, *n;

	list_for_each_entry_safe(r, n, &c->retained, node)
	{
		if (r->data_in && !r->ack_mark && !r->status &&
		    get_be32(r->hdr.data_in.itt) == itt &&
		    !iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from))
			iscsi_retained_drop(c, r);
	}
}

/* The SCSI Response that ends the task after an R-Data SNACK, from its
 * status copy st (11.4: flags, status, residual and sense as first sent). */
static void build_response(struct iscsi_conn *c, const struct iscsi_retained *st, uint32_t tag,
			   uint32_t exp_datasn, union iscsi_hdr *h)
{
	struct iscsi_bhs_scsi_rsp *r = &h->rsp;
	uint8_t rsvd[4];

	memset(h, 0, sizeof(*h));
	if (iscsi_hdr_opcode(&st->hdr) == ISCSI_OP_SCSI_RSP) {
		memcpy(h, &st->hdr, sizeof(*h));
	} else {
		const struct iscsi_bhs_data_in *d = &st->hdr.data_in;

		r->opcode = ISCSI_OP_SCSI_RSP;
		/* Data-In's O and U sit where the SCSI Response's do */
		r->flags = (uint8_t)(ISCSI_FLAG_FINAL |
				     (d->flags & (ISCSI_RSP_F_OVERFLOW | ISCSI_RSP_F_UNDERFLOW)));
		r->response = ISCSI_RESPONSE_COMPLETED;
		r->status = d->status;
		memcpy(r->itt, d->itt, sizeof(r->itt));
		memcpy(r->statsn, d->statsn, sizeof(r->statsn));
		memcpy(r->resid, d->resid, sizeof(r->resid));
	}
	put_be32(r->snack_tag, tag);
	put_be32(r->exp_datasn, exp_datasn);
	iscsi_conn_fill_sn(c, rsvd, r->exp_cmdsn, r->max_cmdsn, false);
}

static void refuse(struct iscsi_conn *c, const union iscsi_hdr *h, uint8_t reason, const char *why,
		   uint32_t itt)
{
	iscsi_conn_proto_err(c, "R-Data SNACK for ITT 0x%08x: %s", itt, why);
	iscsi_reject(c, reason, h);
}

int iscsi_rdata_rx(struct iscsi_conn *c, const union iscsi_hdr *h)
{
	const struct iscsi_bhs_snack *s = &h->snack;
	uint32_t itt = get_be32(s->itt), tag = get_be32(s->ttt);
	uint32_t from = iscsi_dataack_acked(c, itt), n;
	struct iscsi_retained *st, *at, *nst;
	union iscsi_hdr dh, rsp;
	struct reseg g;
	bool st_rsp;
	uint8_t *buf;
	int err = 0;

	if (get_be32(s->begrun) || get_be32(s->runlength)) {
		refuse(c, h, ISCSI_REJECT_PROTOCOL_ERROR, "BegRun and RunLength must be 0", itt);
		return 0;
	}
	st = status_copy(c, itt);
	if (!st) {
		if (iscsi_task_by_itt(c, itt))
			refuse(c, h, ISCSI_REJECT_SNACK, "the read has not ended", itt);
		else
			refuse(c, h, ISCSI_REJECT_PROTOCOL_ERROR, "no status retained", itt);
		return 0;
	}
	buf = gather(c, c, itt, from, &g, &err);
	if (!buf) {
		if (err == -ENOMEM) {
			iscsi_conn_drop(c, "out of memory for an R-Data SNACK");
			return -1;
		}
		refuse(c, h, err == -ENOENT ? ISCSI_REJECT_PROTOCOL_ERROR : ISCSI_REJECT_SNACK,
		       err == -ENOENT ? "no Data-In retained" : "Data-In no longer retained", itt);
		return 0;
	}
	/* the old data go (their bytes are in buf); the new copies go where
	 * the status copy is */
	drop_data(c, itt, from);
	at = st;
	while ((n = reseg_next(c, &g, &dh)))
		if (!copy_new(c, at, &dh, buf + g.done - n, n))
			err = -ENOMEM;
	free(buf);
	build_response(c, st, tag, g.sn, &rsp);
	st_rsp = iscsi_hdr_opcode(&st->hdr) == ISCSI_OP_SCSI_RSP; /* sense data */
	nst = err ? NULL : copy_new(c, at, &rsp, st_rsp ? st->data : NULL, st_rsp ? st->len : 0);
	if (!nst) {
		iscsi_conn_drop(c, "out of memory for an R-Data SNACK");
		return -1;
	}
	/* the new response is the task's status copy now */
	nst->status = true;
	iscsi_retained_drop(c, st);
	/* send the new copies: the task's Data-In from `from`, then status */
	list_for_each_entry(at, &c->retained, node)
	{
		uint8_t op = iscsi_hdr_opcode(&at->hdr);

		if (at->ack_mark || get_be32(at->hdr.rsp.itt) != itt ||
		    (op != ISCSI_OP_DATA_IN && op != ISCSI_OP_SCSI_RSP))
			continue;
		if (op == ISCSI_OP_DATA_IN && iscsi_sn_lt(get_be32(at->hdr.data_in.datasn), from))
			continue;
		if (iscsi_retain_resend(c, at))
			return -1;
	}
	return 0;
}

/* ---- TASK REASSIGN of a read already released (erl2.c) ----
 *
 * Its Data-In from DataSN from on and its status are sent on c from the
 * copies shell o retained. When one of those Data-In is longer than c's
 * MaxRecvDataSegmentLength (the initiator declared a smaller one on the
 * new connection), they are cut again as the R-Data SNACK does, as a task
 * still held is (iscsi_task_resend): the same bytes from the same Buffer
 * Offset, segments of at most the new length, sequences of at most
 * MaxBurstLength, DataSN from `from` on; the status follows with a new
 * StatSN of c, in the last Data-In when it went in one (phase collapse),
 * else in a SCSI Response (with its sense) whose ExpDataSN is one past the
 * last DataSN. */

/* Is a Data-In copy of itt from DataSN from on longer than seg? */
bool iscsi_rdata_needs_reseg(struct iscsi_conn *o, uint32_t itt, uint32_t from, uint32_t seg)
{
	struct iscsi_retained *r;

	list_for_each_entry(r, &o->retained, node)
	{
		if (r->data_in && !r->ack_mark && get_be32(r->hdr.data_in.itt) == itt &&
		    !iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), from) && r->len > seg)
			return true;
	}
	return false;
}

int iscsi_rdata_reassign(struct iscsi_conn *c, struct iscsi_conn *o, uint32_t itt, uint32_t from)
{
	struct iscsi_retained *st = status_copy(o, itt);
	struct reseg g = {.sn = from};
	union iscsi_hdr h;
	bool collapse;
	uint8_t *buf;
	uint32_t k;
	int err = 0, n = 0;

	if (!st)
		return -ENOENT;
	buf = gather(c, o, itt, from, &g, &err);
	if (!buf && err != -ENOENT)
		return err; /* -ESRCH: a copy is missing, -ENOMEM */
	collapse = buf && g.len && iscsi_hdr_opcode(&st->hdr) == ISCSI_OP_DATA_IN;
	while (buf && (k = reseg_next(c, &g, &h))) {
		struct iscsi_bhs_data_in *d = &h.data_in;

		if (collapse && g.done == g.len) {
			/* the status as it went: S, status, O/U and residual */
			d->flags |= (uint8_t)(ISCSI_DATAIN_F_STATUS |
					      (st->hdr.data_in.flags & (ISCSI_DATAIN_F_OVERFLOW |
									ISCSI_DATAIN_F_UNDERFLOW)));
			d->status = st->hdr.data_in.status;
			memcpy(d->resid, st->hdr.data_in.resid, sizeof(d->resid));
			iscsi_conn_fill_sn(c, d->statsn, d->exp_cmdsn, d->max_cmdsn, true);
		}
		if (iscsi_retx_queue(c, &h, buf + g.done - k, k)) {
			free(buf);
			return -ENOMEM;
		}
		n++;
	}
	free(buf);
	if (!collapse) {
		bool st_rsp = iscsi_hdr_opcode(&st->hdr) == ISCSI_OP_SCSI_RSP; /* sense data */

		build_response(c, st, 0, g.sn, &h);
		iscsi_conn_fill_sn(c, h.rsp.statsn, h.rsp.exp_cmdsn, h.rsp.max_cmdsn, true);
		if (iscsi_retx_queue(c, &h, st_rsp ? st->data : NULL, st_rsp ? st->len : 0))
			return -ENOMEM;
		n++;
	}
	return n;
}
