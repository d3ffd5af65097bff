/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reserve.c: SPC-2 RESERVE(6)/(10) and RELEASE(6)/(10) (SPC-2 7.21, 7.24):
 * one holder I_T nexus per logical unit, no third-party or extent
 * reservations. Released by RELEASE from the holder, logical unit reset,
 * target reset and the holder's I_T nexus loss (SPC-2 5.5.1). */
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/pr.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

bool resv_conflict(struct scsi_lu *lu, const struct lu_itn *itn)
{
	struct lu_itn *holder = atomic_load_explicit(&lu->core->resv_holder, memory_order_acquire);

	return holder && holder != itn;
}

void resv_clear_locked(struct scsi_lu *lu)
{
	/* the holder learns of it through the reset unit attention the
	 * caller establishes */
	atomic_store(&lu->core->resv_holder, NULL);
}

void resv_release_itn_locked(struct scsi_lu *lu, struct lu_itn *itn)
{
	struct lu_itn *expected = itn;

	atomic_compare_exchange_strong(&lu->core->resv_holder, &expected, NULL);
}

void spc_exec_reserve(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct lu_itn *itn = cmd->priv.itn;
	enum sense_reason r = SENSE_OK;
	struct lu_itn *holder;

	pthread_mutex_lock(&lu->lock);
	holder = atomic_load(&lu->core->resv_holder);
	/* SPC-4 5.13.3 (CRH 0): no RESERVE while any I_T nexus is
	 * registered; checked again here under the lock REGISTER takes */
	if ((holder && holder != itn) || pr_registered_any_locked(lu))
		r = SENSE_RESERVATION_CONFLICT;
	else
		atomic_store(&lu->core->resv_holder, itn);
	pthread_mutex_unlock(&lu->lock);
	scsi_cmd_complete(cmd, r);
}

void spc_exec_release(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	enum sense_reason r = SENSE_OK;

	/* SPC-2 7.21: a RELEASE from a nexus that holds no reservation
	 * completes with GOOD and changes nothing; SPC-4 5.13.3 (CRH 0):
	 * RESERVATION CONFLICT while any I_T nexus is registered */
	pthread_mutex_lock(&lu->lock);
	if (pr_registered_any_locked(lu))
		r = SENSE_RESERVATION_CONFLICT;
	else
		resv_release_itn_locked(lu, cmd->priv.itn);
	pthread_mutex_unlock(&lu->lock);
	scsi_cmd_complete(cmd, r);
}
