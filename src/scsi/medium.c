/* SPDX-License-Identifier: GPL-2.0-or-later */
/* medium.c: medium state of a logical unit: START STOP UNIT (SBC-4 5.25)
 * and its cycle counts (the Start-Stop Cycle Counter log page, log.c),
 * PREVENT ALLOW MEDIUM REMOVAL (SBC-4 5.14, state per I_T nexus), and the
 * NOT READY check of the command path. */
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/sbc.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

enum sense_reason medium_check(struct scsi_lu *lu, const struct cdb_desc *d)
{
	struct lu_core_state *c = lu->core;

	if (atomic_load_explicit(&c->no_medium, memory_order_relaxed))
		return SENSE_MEDIUM_NOT_PRESENT;
	/* SBC-4 4.20: in the stopped state the medium cannot be accessed
	 * (commands of class ORDER_NONE, e.g. TEST UNIT READY and READ
	 * CAPACITY, do not access it) */
	if (atomic_load_explicit(&c->stopped, memory_order_relaxed) && d->order_class != ORDER_NONE)
		return SENSE_NOT_READY_INIT_REQUIRED;
	return SENSE_OK;
}

void medium_prevent_clear_locked(struct scsi_lu *lu, struct lu_itn *itn)
{
	if (itn->prevent) {
		itn->prevent = false;
		lu->core->prevent_count--;
	}
}

/* SBC-4 Start-Stop Cycle Counter log page: a cycle is counted when it
 * completes (a stopped unit started, an unloaded medium loaded); the
 * 4-byte count saturates (lu->lock held). */
static void count_cycle(_Atomic uint32_t *c)
{
	uint32_t v = atomic_load_explicit(c, memory_order_relaxed);

	if (v != UINT32_MAX)
		atomic_store_explicit(c, v + 1, memory_order_relaxed);
}

/* START STOP UNIT: byte 1 IMMED; byte 3 POWER CONDITION MODIFIER; byte 4
 * POWER CONDITION, NO_FLUSH, LOEJ, START. */
enum sense_reason spc_parse_start_stop_unit(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint8_t pc = cdb_ssu_power_condition(cmd->cdb);

	/* LOEJ on a non-removable medium: nothing to eject */
	if (pc == 0 && cdb_ssu_loej(cmd->cdb) && !lu->attrs.removable)
		return cdb_invalid_field(cmd, SSU_FLAGS_BYTE, 1);
	return spc_parse_no_data(cmd);
}

void spc_exec_start_stop_unit(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct lu_core_state *c = lu->core;
	uint8_t pc = cdb_ssu_power_condition(cmd->cdb);
	bool start = cdb_ssu_start(cmd->cdb), loej = cdb_ssu_loej(cmd->cdb), stopped;
	enum sense_reason r = SENSE_OK;

	/* SBC-4 5.25: with a POWER CONDITION other than START_VALID the START
	 * and LOEJ bits are ignored. The logical unit has a single, always
	 * active, power condition, so no transition takes place; every value
	 * is accepted (libiscsi StartStopUnit.PowerCondition sends all 15). */
	if (pc != 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	pthread_mutex_lock(&lu->lock);
	if (loej && c->prevent_count) {
		/* SBC-4 5.14: the medium is locked in place while any I_T nexus
		 * prevents removal: no eject, and no load either (libiscsi
		 * PreventAllow.Eject) */
		r = SENSE_MEDIUM_REMOVAL_PREVENTED;
	} else if (loej && !start) {
		atomic_store(&c->stopped, true);
		atomic_store(&c->no_medium, true);
	} else if (loej && start) {
		/* load and start */
		if (atomic_exchange(&c->no_medium, false)) {
			ua_set_all_locked(lu, UA_MEDIUM_CHANGED, cmd->priv.itn);
			count_cycle(&c->load_unload_cycles);
		}
		if (atomic_exchange(&c->stopped, false))
			count_cycle(&c->start_stop_cycles);
	} else if (!atomic_load(&c->no_medium)) {
		if (atomic_exchange(&c->stopped, !start) && start)
			count_cycle(&c->start_stop_cycles);
	}
	stopped = atomic_load(&c->stopped);
	pthread_mutex_unlock(&lu->lock);
	/* SPC-4 5.6.3.3: stopping the unit ends a background self-test */
	if (stopped)
		sbc_selftest_abort(lu);
	scsi_cmd_complete(cmd, r);
}

/* PREVENT ALLOW MEDIUM REMOVAL: byte 4 PREVENT (bits 1-0). */
enum sense_reason spc_parse_prevent_allow(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint8_t prevent = cdb_pamr_prevent(cmd->cdb);

	/* 10b/11b are obsolete (medium changer prevention) */
	if (prevent > 1)
		return cdb_invalid_field(cmd, PAMR_PREVENT_BYTE, 1);
	/* no removable medium: nothing to prevent */
	if (prevent && !lu->attrs.removable)
		return cdb_invalid_field(cmd, PAMR_PREVENT_BYTE, 0);
	return spc_parse_no_data(cmd);
}

void spc_exec_prevent_allow(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct lu_itn *itn = cmd->priv.itn;
	bool prevent = cdb_pamr_prevent(cmd->cdb) == 1; /* parse refused 10b and 11b */

	pthread_mutex_lock(&lu->lock);
	if (prevent && !itn->prevent) {
		itn->prevent = true;
		lu->core->prevent_count++;
	} else if (!prevent) {
		medium_prevent_clear_locked(lu, itn);
	}
	pthread_mutex_unlock(&lu->lock);
	scsi_cmd_complete(cmd, SENSE_OK);
}
