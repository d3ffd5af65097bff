/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snack.c: SNACK Request (RFC 7143 11.16) at ErrorRecoveryLevel >= 1.
 *
 * The life of a SNACK: the initiator saw a gap (a DataSN, R2TSN or StatSN
 * it did not get, e.g. a PDU it discarded for a digest error) and names
 * the run it misses; the target sends the PDUs again, unchanged, from the
 * copies retain.c keeps (or, for R2Ts, from the task's open R2Ts).
 *
 *   Type 0 Data/R2T: ITT, BegRun = first DataSN (Data-In of a read) or
 *     R2TSN (open R2Ts of a write), RunLength (0: all from BegRun).
 *   Type 1 Status: BegRun = first StatSN, RunLength (0: all from BegRun).
 *   Type 2 DataACK: TTT and LUN of a Data-In with the A bit, BegRun = the
 *     next DataSN expected: frees the task's Data-In copies below it
 *     (dataack.c). A Data SNACK below it is then a protocol error.
 *   Type 3 R-Data: all of a finished read's unacknowledged data again, cut
 *     to the current MaxRecvDataSegmentLength, then a SCSI Response with
 *     the SNACK Tag (rdata.c).
 *
 * A run naming PDUs not yet sent, or already acknowledged by ExpStatSN, is
 * a protocol error (11.16: Reject 04h); one whose copies the cap evicted
 * (retain.h) cannot be served: Reject 03h (SNACK Reject). */
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"
#include "lib/log.h"

enum {
	SNACK_DATA_R2T = 0,
	SNACK_STATUS = 1,
	SNACK_DATA_ACK = 2,
	SNACK_RDATA = 3,
};
#define SNACK_TYPE_MASK 0x0fu

/* sn within [beg, beg + run) (run 0: from beg on) */
static bool in_run(uint32_t sn, uint32_t beg, uint32_t run)
{
	if (iscsi_sn_lt(sn, beg))
		return false;
	return run == 0 || sn - beg < run;
}

static int snack_status(struct iscsi_conn *c, const union iscsi_hdr *h, uint32_t beg, uint32_t run)
{
	struct iscsi_retained *r;
	unsigned n = 0;

	if (!iscsi_sn_lt(beg, c->stat_sn)) {
		iscsi_conn_proto_err(c, "Status SNACK for StatSN %u not sent yet", beg);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		return 0;
	}
	list_for_each_entry(r, &c->retained, node)
	{
		if (!r->status || !in_run(r->statsn, beg, run))
			continue;
		if (iscsi_retain_resend(c, r))
			break;
		n++;
	}
	if (!n) {
		bool acked = iscsi_sn_lt(beg, c->exp_stat_sn);

		iscsi_conn_proto_err(c, "Status SNACK for StatSN %u: %s", beg,
				     acked ? "already acknowledged" : "no longer retained");
		iscsi_reject(c, acked ? ISCSI_REJECT_PROTOCOL_ERROR : ISCSI_REJECT_SNACK, h);
	}
	return 0;
}

static int snack_r2t(struct iscsi_conn *c, const union iscsi_hdr *h, struct iscsi_task *t,
		     uint32_t beg, uint32_t run)
{
	unsigned n = 0;

	if (!iscsi_sn_lt(beg, t->r2tsn)) {
		iscsi_conn_proto_err(c, "R2T SNACK for R2TSN %u not sent yet", beg);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		return 0;
	}
	for (unsigned i = 0; i < ISCSI_R2T_MAX; i++) {
		if (!t->r2t[i].active || !in_run(t->r2t[i].r2tsn, beg, run))
			continue;
		iscsi_r2t_resend(t, &t->r2t[i]);
		n++;
	}
	if (!n) {
		/* every R2T of the run has had its data: nothing to ask again */
		iscsi_conn_proto_err(c, "R2T SNACK for R2TSN %u: no open R2T", beg);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
	}
	return 0;
}

static int snack_data(struct iscsi_conn *c, const union iscsi_hdr *h, uint32_t itt, uint32_t beg,
		      uint32_t run)
{
	struct iscsi_task *t = iscsi_task_by_itt(c, itt);
	struct iscsi_retained *r;
	unsigned n = 0;

	uint32_t acked;

	if (t && t->state == ISCSI_TASK_DATA_OUT && t->r2tsn)
		return snack_r2t(c, h, t, beg, run);
	acked = iscsi_dataack_acked(c, itt);
	if (beg == 0 && run == 0) {
		beg = acked; /* 11.16.4: 0 and 0, all unacknowledged PDUs */
	} else if (iscsi_sn_lt(beg, acked)) {
		/* 11.16: a SNACK for data already acknowledged (DataACK) */
		iscsi_conn_proto_err(c,
				     "Data SNACK for ITT 0x%08x DataSN %u: acknowledged below %u",
				     itt, beg, acked);
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		return 0;
	}
	list_for_each_entry(r, &c->retained, node)
	{
		if (!r->data_in || get_be32(r->hdr.data_in.itt) != itt ||
		    !in_run(get_be32(r->hdr.data_in.datasn), beg, run))
			continue;
		if (iscsi_retain_resend(c, r))
			break;
		n++;
	}
	if (!n) {
		iscsi_conn_proto_err(c, "Data SNACK for ITT 0x%08x DataSN %u: nothing retained",
				     itt, beg);
		iscsi_reject(c, t ? ISCSI_REJECT_PROTOCOL_ERROR : ISCSI_REJECT_SNACK, h);
	}
	return 0;
}

int iscsi_snack_rx(struct iscsi_conn *c, const union iscsi_hdr *h)
{
	const struct iscsi_bhs_snack *s = &h->snack;
	uint32_t beg = get_be32(s->begrun);
	uint32_t run = get_be32(s->runlength);

	if (!iscsi_erl1(c)) {
		/* RFC 7143 11.16: SNACK needs ErrorRecoveryLevel > 0 */
		iscsi_conn_proto_err(c, "SNACK at ErrorRecoveryLevel 0");
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, h);
		return 0;
	}
	iscsi_session_count(&c->sess->stat_snacks, 1);
	switch (s->flags & SNACK_TYPE_MASK) {
	case SNACK_STATUS:
		return snack_status(c, h, beg, run);
	case SNACK_DATA_R2T:
		return snack_data(c, h, get_be32(s->itt), beg, run);
	case SNACK_DATA_ACK:
		return iscsi_dataack_rx(c, h);
	case SNACK_RDATA:
		return iscsi_rdata_rx(c, h);
	default:
		iscsi_conn_proto_err(c, "SNACK of unknown type %u", s->flags & SNACK_TYPE_MASK);
		iscsi_reject(c, ISCSI_REJECT_INVALID_PDU_FIELD, h);
		return 0;
	}
}
