/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dataack.c: the A bit of Data-In and SNACK type 2 DataACK at
 * ErrorRecoveryLevel >= 1 (RFC 7143 11.7.2, 11.7.4, 11.16).
 *
 * Without it every Data-In copy of a read is kept until ExpStatSN
 * acknowledges the task's status (retain.h), so a long read holds all its
 * data. With it the target asks for an acknowledgement at the end of each
 * data sequence (MaxBurstLength bytes, the F bit) but the last one: 11.7.2
 * lets it set the A bit "once every MaxBurstLength bytes, or on the last
 * Data-In PDU that concludes the entire requested read data transfer", and
 * it MUST NOT more often. The last sequence is acknowledged with the status
 * (11.7.2: a status acknowledgement is an implicit one of the Data-In), so
 * reads of one sequence never carry the A bit. A PDU with A carries a
 * Target Transfer Tag and the command's LUN (11.7.4), one TTT per task.
 *
 * The initiator answers with a DataACK (11.16): ITT reserved, TTT and LUN
 * of that Data-In, BegRun = the next DataSN it expects, RunLength 0. The
 * target frees the task's Data-In copies below BegRun and keeps a record of
 * it in their place (a mark: no PDU, freed with the task's status like the
 * copies) so that a Data SNACK asking for an acknowledged DataSN gets the
 * Reject "Protocol error" 11.16 requires. A DataACK naming no retained
 * A-bit Data-In (unknown TTT or LUN, or its copies already acknowledged by
 * ExpStatSN), with RunLength not 0, or with a BegRun past the task's last
 * Data-In sent, gets Reject 08h (Invalid data ack, 11.17.1). */
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

uint32_t iscsi_dataack_ttt(struct iscsi_conn *c, const struct iscsi_task *t, uint32_t len)
{
	uint32_t ttt;

	if (!iscsi_erl1(c) || len <= t->sess->params.max_burst_length)
		return ISCSI_RSVD_TAG; /* one sequence: the status acknowledges it */
	do
		ttt = ((uint32_t)++c->ttt_gen << 16) | t->idx;
	while (ttt == ISCSI_RSVD_TAG);
	return ttt;
}

static bool names(const struct iscsi_retained *r, uint32_t ttt, const uint8_t *lun)
{
	return get_be32(r->hdr.data_in.ttt) == ttt && !memcmp(r->hdr.data_in.lun, lun, 8);
}

static struct iscsi_retained *mark_of(struct iscsi_conn *c, uint32_t itt)
{
	struct iscsi_retained *r;

	list_for_each_entry(r, &c->retained, node)
	{
		if (r->ack_mark && get_be32(r->hdr.data_in.itt) == itt)
			return r;
	}
	return NULL;
}

uint32_t iscsi_dataack_acked(struct iscsi_conn *c, uint32_t itt)
{
	struct iscsi_retained *m = mark_of(c, itt);

	return m ? m->acked_below : 0;
}

static int invalid(struct iscsi_conn *c, const union iscsi_hdr *h, const char *why)
{
	iscsi_conn_proto_err(c, "DataACK for TTT 0x%08x: %s", get_be32(h->snack.ttt), why);
	iscsi_reject(c, ISCSI_REJECT_INVALID_DATA_ACK, h);
	return 0;
}

int iscsi_dataack_rx(struct iscsi_conn *c, const union iscsi_hdr *h)
{
	const struct iscsi_bhs_snack *s = &h->snack;
	uint32_t ttt = get_be32(s->ttt);
	uint32_t beg = get_be32(s->begrun);
	struct iscsi_retained *r, *tmp, *m = NULL;
	bool known = false, sent = false;
	uint32_t itt = 0, next = 0;

	if (get_be32(s->runlength))
		return invalid(c, h, "RunLength not 0"); /* 11.16.5: MUST be 0 */
	if (ttt == ISCSI_RSVD_TAG)
		return invalid(c, h, "reserved TTT");
	list_for_each_entry(r, &c->retained, node)
	{
		if (((r->data_in && (r->hdr.data_in.flags & ISCSI_DATAIN_F_ACK)) || r->ack_mark) &&
		    names(r, ttt, s->lun)) {
			known = true;
			itt = get_be32(r->hdr.data_in.itt);
			break;
		}
	}
	if (!known)
		return invalid(c, h, "no Data-In with the A bit retained");
	m = mark_of(c, itt);
	if (m)
		next = m->acked_below, sent = true;
	list_for_each_entry(r, &c->retained, node)
	{
		uint32_t sn;

		if (!r->data_in || get_be32(r->hdr.data_in.itt) != itt)
			continue;
		sn = get_be32(r->hdr.data_in.datasn) + 1;
		if (!sent || iscsi_sn_lt(next, sn))
			next = sn;
		sent = true;
	}
	if (iscsi_sn_lt(next, beg))
		return invalid(c, h, "BegRun past the last Data-In sent");
	iscsi_session_count(&c->sess->stat_data_acks, 1);
	list_for_each_entry_safe(r, tmp, &c->retained, node)
	{
		if (!r->data_in || r->status || get_be32(r->hdr.data_in.itt) != itt ||
		    !iscsi_sn_lt(get_be32(r->hdr.data_in.datasn), beg))
			continue;
		if (!m) {
			/* the record takes the place of the first copy freed:
			 * the list stays in StatSN order (retain.c) */
			m = calloc(1, sizeof(*m));
			if (m) {
				m->ack_mark = true;
				m->statsn = r->statsn;
				put_be32(m->hdr.data_in.itt, itt);
				put_be32(m->hdr.data_in.ttt, ttt);
				memcpy(m->hdr.data_in.lun, s->lun, sizeof(m->hdr.data_in.lun));
				list_add_tail(&r->node, &m->node); /* before r */
				c->retained_bytes += sizeof(*m);
			}
		}
		iscsi_retained_drop(c, r);
	}
	if (m && iscsi_sn_lt(m->acked_below, beg))
		m->acked_below = beg;
	return 0;
}
