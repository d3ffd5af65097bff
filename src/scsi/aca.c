/* SPDX-License-Identifier: GPL-2.0-or-later */
/* aca.c: auto contingent allegiance (SAM-5 5.9): establishing it on a
 * CHECK CONDITION with NACA set, the task manager's handling of new
 * commands while it is in effect, holding the task set (QERR 00b) and
 * clearing it. The CLEAR ACA function itself is in tmf.c, the hold of
 * tasks in cmd.c and order.c; see aca.h. */
#include "scsi/aca.h"

#include "scsi/cdb.h"
#include "scsi/core.h"

bool aca_cdb_naca(const uint8_t *cdb, size_t len)
{
	size_t ctl;

	if (!len)
		return false;
	/* SPC-4 4.2.5.1: the GROUP CODE gives the CDB's length */
	switch (cdb[0] >> 5) {
	case 0:
		ctl = 5;
		break;
	case 1:
	case 2:
		ctl = 9;
		break;
	case 3:
		/* only 7Fh, the variable length CDB: CONTROL is byte 1 */
		if (cdb[0] != 0x7f)
			return false;
		ctl = 1;
		break;
	case 4:
		ctl = 15;
		break;
	case 5:
		ctl = 11;
		break;
	default:
		return false; /* vendor specific: no CONTROL byte known */
	}
	return ctl < len && (cdb[ctl] & CDB_CONTROL_NACA);
}

static void aca_set_locked(struct aca_state *a, struct lu_itn *faulted)
{
	a->faulted = faulted;
	atomic_store(&a->active, faulted != NULL);
}

enum sense_reason aca_admit(struct scsi_lu *lu, struct scsi_cmd *cmd)
{
	struct aca_state *a = &lu->core->aca;
	struct scsi_cmd_priv *p = &cmd->priv;
	bool aca_attr = cmd->attr == SCSI_ATTR_ACA;
	enum sense_reason r = SENSE_OK;

	if (!aca_attr && !atomic_load(&a->active))
		return SENSE_OK;
	pthread_mutex_lock(&lu->lock);
	if (!a->faulted) {
		/* SAM-5 8.6.5: the ACA attribute needs an ACA condition; there
		 * is none: a field of the command IU is invalid */
		if (aca_attr)
			r = SENSE_ABORTED_INVALID_FIELD_IN_CIU;
	} else if (p->itn && p->itn == a->faulted) {
		/* SAM-5 5.9 (new commands from the faulted I_T nexus while
		 * ACA is in effect), TMF_ONLY 0: only a command with the ACA
		 * attribute is processed, one at a time; the others end with
		 * ACA ACTIVE */
		if (!aca_attr || a->task) {
			r = SENSE_ACA_ACTIVE;
		} else {
			a->task = cmd;
			p->aca_admitted = true;
		}
	} else if (aca_attr || aca_cdb_naca(cmd->cdb, cmd->cdb_len)) {
		/* SAM-5 5.9 (new commands from non-faulted I_T nexuses while
		 * ACA is in effect), TST 000b, QERR 00b: the ACA attribute
		 * belongs to the faulted I_T nexus alone, and a command with
		 * NACA set ends with ACA ACTIVE ... */
		r = SENSE_ACA_ACTIVE;
	} else {
		/* ... one with NACA 0 with BUSY (UA_INTLCK_CTRL 00b: no unit
		 * attention for it) */
		r = SENSE_BUSY;
	}
	pthread_mutex_unlock(&lu->lock);
	return r;
}

bool aca_holds_locked(struct scsi_lu *lu, const struct scsi_cmd *cmd)
{
	const struct aca_state *a = &lu->core->aca;

	return a->faulted && a->task != cmd;
}

void aca_complete_locked(struct scsi_lu *lu, struct scsi_cmd *cmd, bool check_condition,
			 struct list_node *ready)
{
	struct aca_state *a = &lu->core->aca;
	struct scsi_cmd_priv *p = &cmd->priv;
	bool was_aca_task = p->aca_admitted && a->task == cmd;
	bool naca;

	if (p->aca_admitted && a->task == cmd)
		a->task = NULL;
	p->aca_admitted = false;
	if (!check_condition)
		return;
	naca = aca_cdb_naca(cmd->cdb, cmd->cdb_len);
	if (!a->faulted) {
		/* SAM-5 5.9: CHECK CONDITION with NACA 1 establishes an ACA on
		 * the command's I_T nexus; with NACA 0 none (contingent
		 * allegiance: the sense data went with the status) */
		if (naca && p->itn)
			aca_set_locked(a, p->itn);
		return;
	}
	if (!was_aca_task)
		return; /* the task set has its ACA already (TST 000b: one) */
	/* SAM-5 5.9 (clearing an ACA condition): the command with the ACA
	 * attribute failed. NACA 1: a new ACA replaces the old one, on the
	 * same I_T nexus; NACA 0: the ACA is cleared */
	if (!naca)
		aca_clear_locked(lu, ready);
}

void aca_clear_locked(struct scsi_lu *lu, struct list_node *ready)
{
	struct order_state *o = &lu->core->order;
	struct aca_state *a = &lu->core->aca;
	struct list_node *node;

	if (!a->faulted)
		return;
	aca_set_locked(a, NULL);
	a->task = NULL;
	/* QERR 00b: the held tasks resume (SPC-4 7.5.8 table 460); those
	 * still waiting for older tasks stay for order.c */
	for (node = o->tasks.next; node != &o->tasks; node = node->next) {
		struct scsi_cmd_priv *tp = container_of(node, struct scsi_cmd_priv, task_node);

		if (tp->state != SCSI_CMD_BLOCKED || tp->waiting || tp->msg_posted ||
		    atomic_load(&tp->aborted))
			continue;
		tp->state = SCSI_CMD_READY;
		tp->msg_posted = true;
		list_add_tail(ready, &tp->wait_node);
	}
}

void aca_clear_itn_locked(struct scsi_lu *lu, const struct lu_itn *itn, struct list_node *ready)
{
	if (itn && lu->core->aca.faulted == itn)
		aca_clear_locked(lu, ready);
}

void aca_release(struct scsi_lu *lu, struct scsi_cmd *cmd)
{
	struct aca_state *a = &lu->core->aca;

	if (!cmd->priv.aca_admitted)
		return;
	pthread_mutex_lock(&lu->lock);
	if (a->task == cmd)
		a->task = NULL;
	cmd->priv.aca_admitted = false;
	pthread_mutex_unlock(&lu->lock);
}
