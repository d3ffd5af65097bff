/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr.h: persistent reservations (SPC-4 5.13; PERSISTENT RESERVE IN 6.15,
 * PERSISTENT RESERVE OUT 6.16) as the rest of the core sees them: set-up and
 * tear-down with the logical unit, the RESERVATION CONFLICT check of the
 * command path and the handlers of the CDB table. The state machine is in
 * pr.c, the PR IN data in pr_in.c, APTPL persistence in pr_store.c. */
#ifndef UT_SCSI_PR_H
#define UT_SCSI_PR_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/sense.h"

struct scsi_lu;
struct scsi_cmd;
struct lu_itn;
struct cdb_desc;

/* lu.c: at creation (0 or -ENOMEM) and at the last put. */
int pr_lu_init(struct scsi_lu *lu);
void pr_lu_fini(struct scsi_lu *lu);

/* cmd.c: does command d (CDB cdb) from the I_T nexus itn conflict with the
 * persistent reservation of lu (SPC-4 5.13.1 table 58, SBC-4 4.17 table
 * 13; the command's class is cdb_desc.pr_class)? Atomic loads only while
 * lu has no reservation; then pr_conflict() takes lu->lock, the _locked
 * variant needs it held. */
bool pr_conflict(struct scsi_lu *lu, struct lu_itn *itn, const struct cdb_desc *d,
		 const uint8_t *cdb);
bool pr_conflict_locked(struct scsi_lu *lu, struct lu_itn *itn, const struct cdb_desc *d,
			const uint8_t *cdb);
/* reserve.c: is any I_T nexus registered (lu->lock held)? */
bool pr_registered_any_locked(struct scsi_lu *lu);

/* spc_cmds.c: PERSISTENT RESERVE IN (5Eh) and OUT (5Fh). */
enum sense_reason pr_parse_in(struct scsi_cmd *cmd);
void pr_exec_in(struct scsi_cmd *cmd);
enum sense_reason pr_parse_out(struct scsi_cmd *cmd);
void pr_exec_out(struct scsi_cmd *cmd);

#endif
