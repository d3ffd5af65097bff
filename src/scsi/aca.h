/* SPDX-License-Identifier: GPL-2.0-or-later */
/* aca.h: auto contingent allegiance (SAM-5 5.9) of a logical unit's task
 * set. The LU reports NormACA (SPC-4 6.6.2) and one task set for all I_T
 * nexuses (Control mode page TST 000b, QERR 00b, TMF_ONLY 0): a command with
 * NACA set in its CONTROL byte that ends with CHECK CONDITION establishes an
 * ACA on its I_T nexus (the faulted I_T nexus), which holds the whole task
 * set until CLEAR ACA, a logical unit reset or the loss of that nexus.
 *
 * State: struct aca_state in the LU's core state, under lu->lock (active
 * also readable without it); O(1) memory. */
#ifndef UT_SCSI_ACA_H
#define UT_SCSI_ACA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/list.h"
#include "scsi/sense.h"

struct scsi_lu;
struct scsi_cmd;
struct lu_itn;

struct aca_state {
	/* the faulted I_T nexus' record, NULL while no ACA is established */
	struct lu_itn *faulted;
	/* the command with the ACA attribute admitted on the faulted I_T
	 * nexus (at most one, SAM-5 5.9), until it completes */
	struct scsi_cmd *task;
	/* faulted != NULL, for the lock-free test of every new command */
	atomic_bool active;
};

/* NACA of the CDB's CONTROL byte (SAM-5 5.2), located by the operation
 * code's group (SPC-4 4.2.5.1): false for the vendor specific groups and
 * a CDB too short to hold it. */
bool aca_cdb_naca(const uint8_t *cdb, size_t len);

/* The task manager's verdict on a new command of lu (SAM-5 5.9, takes
 * lu->lock when an ACA is established or the command has the ACA
 * attribute): SENSE_OK (enter the task set; a command with the ACA
 * attribute is recorded as aca_state.task), SENSE_ACA_ACTIVE, SENSE_BUSY,
 * or SENSE_ABORTED_INVALID_FIELD_IN_CIU for the ACA attribute without an
 * ACA. */
enum sense_reason aca_admit(struct scsi_lu *lu, struct scsi_cmd *cmd);

/* Is cmd, a task of lu's task set, held by the ACA (lu->lock held)? Every
 * task but the ACA task is while an ACA is established (QERR 00b: they
 * resume when it is cleared). */
bool aca_holds_locked(struct scsi_lu *lu, const struct scsi_cmd *cmd);

/* cmd completes (lu->lock held); check_condition: with CHECK CONDITION.
 * Establishes, replaces or clears the ACA (SAM-5 5.9); tasks it releases
 * are appended to ready (order_post_ready()). */
void aca_complete_locked(struct scsi_lu *lu, struct scsi_cmd *cmd, bool check_condition,
			 struct list_node *ready);

/* Clear the ACA (lu->lock held): the held tasks are appended to ready. The
 * _itn variant only when itn is the faulted I_T nexus (its loss, I_T NEXUS
 * RESET, the end of its mapping of the LU). */
void aca_clear_locked(struct scsi_lu *lu, struct list_node *ready);
void aca_clear_itn_locked(struct scsi_lu *lu, const struct lu_itn *itn, struct list_node *ready);

/* A command set up but never completed is released (lu->lock not held). */
void aca_release(struct scsi_lu *lu, struct scsi_cmd *cmd);

#endif
