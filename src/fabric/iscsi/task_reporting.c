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
 * (data_out.c) as for any task. */
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "lib/compiler.h"

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
