/* SPDX-License-Identifier: GPL-2.0-or-later */
/* erl.c: within-command recovery of write data at ErrorRecoveryLevel >= 1
 * (RFC 7143 7.2.1, 7.8, 11.8).
 *
 * A Data-Out lost to a data digest error (rejected, 02h) or to a header
 * digest error (discarded, conn.c), or one that arrives out of place
 * because the one before it was lost, is not placed: its burst is marked
 * lost, the rest of that burst is received and discarded, and at its end
 * (the F bit, which the Data-Out's trusted header still shows) a recovery
 * R2T asks for the bytes from where the burst's in-order data stopped: a
 * new TTT (the old one's stray PDUs are then unknown and discarded) and the
 * next R2TSN. The same for the unsolicited burst: R2Ts solicit from where
 * its in-order data stopped. A PDU that repeats bytes already placed (a
 * retransmission) is discarded.
 *
 * Immediate data with a data digest error rejects the command PDU (7.8);
 * the task stays and waits for the initiator's retry of the command, same
 * ITT and CmdSN (6.2.1; scsi_cmd.c), bounded by data_out_timeout. */
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"

void iscsi_erl_count_r2t(struct iscsi_task *t)
{
	/* an R2T is a header alone: its wire bytes are the BHS and digest */
	iscsi_session_count(&t->sess->stat_retx_pdus, 1);
	iscsi_session_count(&t->sess->stat_retx_bytes,
			    ISCSI_BHS_LEN + (t->conn->hdigest ? ISCSI_DIGEST_LEN : 0));
}

void iscsi_erl_burst_recover(struct iscsi_task *t, struct iscsi_r2t *r)
{
	if (!r) {
		/* the rest of the unsolicited burst is solicited by R2Ts
		 * (iscsi_task_data_progress: from uns_got on) */
		t->uns_lost = false;
		t->uns_open = false;
		return;
	}
	r->offset += r->got;
	r->len -= r->got;
	r->got = 0;
	r->lost = false;
	if (!r->len) {
		r->active = false;
		t->r2t_open--;
		return;
	}
	/* ExpDataSN of the response counts R2Ts (11.4.8) */
	t->datasn++;
	r->r2tsn = t->r2tsn++;
	iscsi_r2t_recovery(t, r);
}
