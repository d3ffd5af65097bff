/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task_reporting.c: how the iSCSI layer reports the end of the tasks a task
 * management function aborts (RFC 7143 4.2.3, TaskReporting 13.23).
 *
 * Only TaskReporting=RFC3720 is negotiated (param.c: list_allowed), so the
 * multi-task abort semantics are those of RFC 7143 4.2.3.3. Its step a):
 * the target "MUST wait for responses on currently valid Target Transfer
 * Tags of the affected tasks from the issuing initiator" -- the initiator
 * goes on answering them (initiator step a) -- and "MAY wait" for those of
 * third-party initiators. An affected task of the issuing session that
 * still has a Data-Out burst open (an R2T not ended by its F bit, or the
 * unsolicited burst) keeps it until that F bit (no further R2T is sent);
 * only then does it end, and the TMF response, which the core sends once
 * every affected task has ended (SAM-5 7.1), follows it. A task of a third
 * party ends at once (its later Data-Out is discarded as for any ended
 * task). A Data-Out that never comes is ended by data_out_timeout_s
 * (data_out.c) as for any task. Step d), the StatSN acknowledgments before
 * the TMF response, is below. */
#include <assert.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/session.h"
#include "lib/compiler.h"
#include "lib/endian.h"

/* The task management functions that affect several tasks: RFC 7143 4.2.3.3
 * names ABORT TASK SET, CLEAR TASK SET, LOGICAL UNIT RESET, TARGET WARM
 * RESET and TARGET COLD RESET; I_T NEXUS RESET (RFC 7144, SAM-5 7.7) ends
 * every task of the issuing nexus alike. ABORT TASK, whose initiator stops
 * the task's Data-Out itself, and CLEAR ACA (one task at most) do not wait. */
static const bool multi_task_abort[] = {
    [SCSI_TMF_ABORT_TASK_SET] = true,	 [SCSI_TMF_CLEAR_TASK_SET] = true,
    [SCSI_TMF_LUN_RESET] = true,	 [SCSI_TMF_TARGET_WARM_RESET] = true,
    [SCSI_TMF_TARGET_COLD_RESET] = true, [SCSI_TMF_I_T_NEXUS_RESET] = true,
};

bool iscsi_abort_drains_data_out(const struct iscsi_task *t)
{
	const struct scsi_tmf *tmf = scsi_cmd_abort_tmf(&t->cmd);

	if (!tmf || tmf->nexus != t->cmd.nexus)
		return false; /* nexus loss, or a third party's task */
	return tmf->func < ARRAY_SIZE(multi_task_abort) && multi_task_abort[tmf->func];
}

/* ---- RFC 7143 4.2.3.3 d): the StatSNs sent before the TMF response ----
 * "MUST take note of the last-sent StatSN on each of the connections in the
 * iSCSI sessions (one or more) sharing the affected tasks, and then MUST
 * wait for acknowledgment of each StatSN (may solicit for acknowledgment by
 * way of a NOP-In)", then send the TMF response (e). The responses of the
 * issuing session's aborted tasks went out before it on every one of its
 * connections. Only the issuing session is waited for: its connections
 * share its reactor; third-party sessions (other reactors) are not (see
 * docs/architecture.md). A connection that leaves the session is not
 * waited for any longer. */

static_assert(ARRAY_SIZE(((struct iscsi_ack_wait *)0)->need) >= ISCSI_MAX_CONNECTIONS,
	      "a wait for every connection of a session");

static bool acked(const struct iscsi_conn *c, uint32_t statsn)
{
	return !iscsi_sn_lt(c->exp_stat_sn, statsn);
}

bool iscsi_ack_wait_start(struct iscsi_session *s, uint8_t scsi_tmf_func, struct iscsi_ack_wait *w)
{
	struct iscsi_conn *oc;

	if (scsi_tmf_func >= ARRAY_SIZE(multi_task_abort) || !multi_task_abort[scsi_tmf_func])
		return false;
	w->n = 0;
	list_for_each_entry(oc, &s->conns, sess_node)
	{
		/* StatSN stat_sn - 1 is the last one sent (queued); a
		 * connection not (or no longer) in full feature phase gets no
		 * NOP-In (11.19) and carries no task response to wait for */
		if (iscsi_conn_dead(oc) || iscsi_conn_state(oc) != ISCSI_CONN_S5_LOGGED_IN ||
		    acked(oc, oc->stat_sn) || w->n >= ARRAY_SIZE(w->need))
			continue;
		w->need[w->n].c = oc;
		w->need[w->n].statsn = oc->stat_sn;
		w->n++;
		iscsi_nop_ping(oc);
	}
	if (!w->n)
		return false;
	list_add_tail(&s->ack_waits, &w->node);
	return true;
}

/* Drop the entries met (or of c, when gone); run the waits now empty. */
static void ack_waits_update(struct iscsi_session *s, const struct iscsi_conn *gone)
{
	struct iscsi_ack_wait *w, *tmp;

	list_for_each_entry_safe(w, tmp, &s->ack_waits, node)
	{
		unsigned k = 0;

		for (unsigned i = 0; i < w->n; i++) {
			struct iscsi_conn *oc = w->need[i].c;

			if (oc == gone || iscsi_conn_dead(oc) || acked(oc, w->need[i].statsn))
				continue;
			w->need[k++] = w->need[i];
		}
		w->n = k;
		if (!k) {
			list_del(&w->node);
			w->done(w);
		}
	}
}

void iscsi_ack_waits_rx(struct iscsi_conn *c, const union iscsi_hdr *h)
{
	uint8_t op = iscsi_hdr_opcode(h);

	/* every request but Login carries ExpStatSN at bytes 28-31 (11.3,
	 * 11.5, 11.7, 11.10, 11.14, 11.16, 11.18) */
	if (op == ISCSI_OP_LOGIN_REQ)
		return;
	c->exp_stat_sn = get_be32(h->raw + 28);
	ack_waits_update(c->sess, NULL);
}

void iscsi_ack_waits_conn_gone(struct iscsi_session *s, struct iscsi_conn *c)
{
	if (!list_empty(&s->ack_waits))
		ack_waits_update(s, c);
}
