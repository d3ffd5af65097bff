/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.c: the life cycle of a command in the device server (SAM-5 5, SPC-4
 * 5.14 order of checks), residuals against the fabric's Expected Data
 * Transfer Length (RFC 7143 11.4.5.2), completion and release.
 *
 * Threading: every step of a command runs on cmd->reactor. State shared with
 * other threads (task set, abort marks, posted messages) is under lu->lock;
 * TMFs from other threads reach a command only by reactor_post of
 * priv.msg, at most one in flight (priv.msg_posted). */
#include <errno.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/log.h"
#include "lib/safe_copy.h"
#include "scsi/alua.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/passthrough.h"
#include "scsi/pr.h"
#include "scsi/sbc.h"
#include "scsi/ua.h"

void scsi_cmd_init(struct scsi_cmd *cmd)
{
	cmd->write_len = 0;
	cmd->buf = NULL;
	cmd->lend_ok = false;
	cmd->data_in_src = NULL;
	cmd->status = 0;
	cmd->sense_len = 0;
	cmd->resid_kind = SCSI_RESID_NONE;
	cmd->suppress_response = false;
	cmd->resid = 0;
	cmd->data_in_len = 0;
	memset(&cmd->priv, 0, sizeof(cmd->priv));
	list_init(&cmd->priv.task_node);
	list_init(&cmd->priv.wait_node);
	atomic_init(&cmd->priv.aborted, false);
	cmd->priv.order_kind = ORDER_KIND_OUTSIDE;
	cmd->priv.msg.fn = cmd_kick;
}

static void setup_fail(struct scsi_cmd *cmd, enum sense_reason r, const struct sense_extra *sx)
{
	cmd->priv.reason = (uint16_t)r;
	if (sx)
		cmd->priv.sx = *sx;
	cmd->write_len = 0;
}

/* The data buffer: from the nexus' reserve when it fits in what is left of
 * it (outside the global cap), else from the capped pool. */
static uint8_t *cmd_buf_alloc(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	p->buf_reserved = p->buf_len && p->buf_len <= cmd->buf_reserve;
	return p->buf_reserved ? buf_alloc_reserved(p->buf_len) : buf_alloc(p->buf_len);
}

/* The data buffer is there: enter the LU's task set (SAM-5 8.6 ordering). */
static void setup_enter(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;

	if (lu) {
		bool conflict;

		p->order_class = p->desc->order_class;
		pthread_mutex_lock(&lu->lock);
		/* again under the lock that PREEMPT AND ABORT holds while it
		 * aborts the preempted tasks: a task checked before it ran is
		 * either in the task set now (and aborted) or refused here */
		conflict = pr_conflict_locked(lu, p->itn, p->desc, cmd->cdb);
		if (!conflict)
			order_enter_locked(lu, cmd);
		pthread_mutex_unlock(&lu->lock);
		if (conflict)
			setup_fail(cmd, SENSE_RESERVATION_CONFLICT, NULL);
	}
}

/* The buffer is there: enter the task set now, or when the fabric says
 * (enter_later, scsi_cmd_enter). */
static void setup_enter_or_defer(struct scsi_cmd *cmd)
{
	if (cmd->enter_later)
		cmd->priv.enter_due = true;
	else
		setup_enter(cmd);
}

/* SPC-4 5.14 and SBC-4 4.x: the checks a command passes before its own
 * parsing, in the order the standards give them precedence. Run again when
 * a command set up ahead of its turn enters the task set (enter_later,
 * scsi_cmd_enter): the initiator numbered it after the commands before it,
 * so a unit attention, an ALUA state, a sanitize, a medium removal or a
 * reservation they brought about is what it must see, as if it had arrived
 * then. */
static enum sense_reason setup_checks(struct scsi_cmd *cmd, struct sense_extra *sx)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint16_t flags = p->desc->flags;
	enum sense_reason r;
	uint16_t progress;

	if (!lu)
		return SENSE_OK;
	/* SBC-4 4.6: a medium resized underneath (lu.c) */
	if (lu->bs->ops->medium_size)
		lu_capacity_poll(lu, p->start_ns);
	/* SPC-4 5.14: a pending unit attention fails every command but
	 * INQUIRY, REPORT LUNS and REQUEST SENSE */
	if (!(flags & CDB_F_UA_OK) && p->itn && ua_pending(p->itn)) {
		r = ua_report(lu, p->itn);
		if (r != SENSE_OK)
			return r;
	}
	/* SPC-4 5.15.2.4: the ALUA access state through this target port */
	r = alua_check(cmd);
	if (r != SENSE_OK)
		return r;
	/* SBC-4 4.11.2, 5.3.1, SPC-4 5.6.3.2: sanitize, format or foreground
	 * self-test in progress (sbc_busy()) */
	if (sbc_busy(lu, cmd, &r, &progress)) {
		if (sense_table[r].key == SENSE_KEY_NOT_READY) {
			sx->progress_valid = true;
			sx->progress = progress;
		}
		return r;
	}
	/* medium removed or unit stopped (medium.c) */
	if (!(flags & CDB_F_NO_MEDIUM_OK)) {
		r = medium_check(lu, p->desc);
		if (r != SENSE_OK)
			return r;
	}
	/* SPC-2 5.5.1: RESERVE(6)/(10) held by another I_T nexus */
	if (!(flags & CDB_F_SPC2_RESV_OK) && resv_conflict(lu, p->itn))
		return SENSE_RESERVATION_CONFLICT;
	/* SPC-4 5.13.1: persistent reservation held by another I_T nexus,
	 * by the command's PR conflict class (pr.c) */
	if (pr_conflict(lu, p->itn, p->desc, cmd->cdb))
		return SENSE_RESERVATION_CONFLICT;
	if ((flags & CDB_F_WRITES) && lu_write_protected(lu, cmd))
		return SENSE_WRITE_PROTECTED;
	return SENSE_OK;
}

/* Expected Data Transfer Length in the direction dir: the initiator
 * declared a data phase only in fabric_dir (RFC 7143 11.4.5: the R and W
 * bits qualify Expected Data Transfer Length). */
static uint32_t exp_len_dir(const struct scsi_cmd *cmd, uint8_t dir)
{
	return cmd->fabric_dir == dir ? cmd->exp_len : 0;
}

/* RFC 7143 11.4.5.2 / SAM-5 5.4.3: reconcile the CDB's transfer with the
 * fabric's direction and Expected Data Transfer Length; decide write_len.
 * A data phase declared the other way round than the CDB's counts as an
 * Expected Data Transfer Length of 0 in the CDB's direction: the command
 * runs, moves nothing and reports the overflow (libiscsi Read10Invalid
 * expects GOOD for a READ(10) sent with the W bit); the Data-Out sent with
 * it is discarded. */
/* Does the CDB move whole logical blocks (READ, WRITE), rather than a
 * parameter list or parameter data? */
static bool block_transfer(const struct scsi_cmd_priv *p, uint32_t len)
{
	return p->lu && p->nblocks && (uint64_t)p->nblocks * sbc_xfer_unit(p) == len;
}

/* Data-In beyond the Expected Data Transfer Length never reaches the
 * initiator (RFC 7143 11.4.5.2: an overflow residual), so the buffer holds
 * at most what can be sent: a READ with a small Expected Data Transfer
 * Length and a large TRANSFER LENGTH pins only what it delivers. A block
 * transfer reads the whole blocks that hold those bytes; parameter data is
 * built into the shorter buffer, and data_in_full keeps what the device
 * server produced for the residual. */
static void setup_data_in(struct scsi_cmd *cmd, uint32_t len)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t exp_in = exp_len_dir(cmd, SCSI_DIR_READ);
	uint32_t unit;

	p->buf_len = len;
	if (exp_in >= len)
		return;
	if (block_transfer(p, len)) {
		unit = sbc_xfer_unit(p);
		p->nblocks = (uint32_t)(((uint64_t)exp_in + unit - 1) / unit);
		p->data_len = p->nblocks * unit;
		p->buf_len = p->data_len;
		p->data_in_full = len;
	} else {
		p->buf_len = exp_in;
	}
}

static enum sense_reason setup_transfer(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t len = p->data_len, exp_out;

	if (len > SCSI_MAX_XFER_BYTES)
		return cdb_invalid_field(cmd, 0, -1);
	p->cdb_xfer_len = len;
	p->buf_len = len;
	/* no bidirectional commands */
	if (p->data_dir == SCSI_DIR_BIDI || cmd->fabric_dir == SCSI_DIR_BIDI)
		return SENSE_ABORTED_INVALID_FIELD_IN_CIU;
	if (len == 0)
		p->data_dir = SCSI_DIR_NONE;
	if (p->data_dir == SCSI_DIR_READ)
		setup_data_in(cmd, len);
	if (p->data_dir != SCSI_DIR_WRITE)
		return SENSE_OK;
	exp_out = exp_len_dir(cmd, SCSI_DIR_WRITE);
	if (exp_out >= len) {
		/* underflow: the initiator offers more than the CDB says; the
		 * fabric discards Data-Out beyond write_len */
		cmd->write_len = len;
		return SENSE_OK;
	}
	/* overflow: only exp_out bytes will come. A block transfer writes the
	 * whole blocks among them (libiscsi Write*Residuals), and the buffer
	 * holds those; a parameter list cannot be cut short. */
	if (block_transfer(p, len)) {
		p->nblocks = exp_out / sbc_xfer_unit(p);
		p->data_len = p->nblocks * sbc_xfer_unit(p);
		p->buf_len = exp_out; /* every byte that comes is placed */
		cmd->write_len = exp_out;
		return SENSE_OK;
	}
	return cdb_invalid_field(cmd, 0, -1);
}

void scsi_cmd_setup(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct sense_extra sx = {0};
	const struct cdb_desc *desc;
	enum sense_reason r = SENSE_OK;
	struct scsi_lu *lu = NULL;
	struct lu_itn *itn = NULL;
	bool ro = false;
	uint32_t xfer;
	int rc;

	p->state = SCSI_CMD_SETUP;
	p->start_ns = reactor_now_ns();
	cmd->write_len = 0;

	desc = cdb_lookup(cmd->cdb, cmd->cdb_len, &r, &sx);
	rc = nexus_resolve(cmd->nexus, cmd->lun, &lu, &itn, &ro);
	if (rc == -ENOMEM) {
		setup_fail(cmd, SENSE_BUSY, NULL);
		return;
	}
	p->lu = lu;
	p->itn = itn;
	p->map_read_only = ro;
	if (lu)
		stats_add_word(&lu->core->stats, LU_ST_STARTED, 1); /* lu_count() ends it */
	if (!lu) {
		/* SPC-4 8.2: the REPORT LUNS well known LU also answers TEST
		 * UNIT READY; other unmapped LUNs only the CDB_F_NO_LUN_OK
		 * commands */
		bool wlun_tur = cmd->lun == LUN_WLUN_REPORT_LUNS && cmd->cdb_len &&
				cdb_op(cmd->cdb) == OP_TEST_UNIT_READY;
		if (!wlun_tur && (!desc || !(desc->flags & CDB_F_NO_LUN_OK))) {
			setup_fail(cmd, SENSE_LUN_NOT_SUPPORTED, NULL);
			return;
		}
	}
	/* SAM-5 5.9: while an ACA is in effect the task manager decides
	 * first whether a new command enters the task set at all (aca.c) */
	if (lu) {
		enum sense_reason ar = aca_admit(lu, cmd);

		if (ar != SENSE_OK) {
			setup_fail(cmd, ar, NULL);
			return;
		}
	}
	/* an LU over a SCSI device: the device answers what the core does
	 * not keep (passthrough.c); its own rules for the CDB's fields */
	if (lu && (lu->bs->caps & BS_CAP_PASSTHROUGH) && pt_forwarded(cmd->cdb, cmd->cdb_len)) {
		p->forward = true;
		if (!desc || cmd->cdb_len < desc->len || !cdb_desc_on_lu(desc, lu))
			desc = &pt_generic_desc;
		memset(&sx, 0, sizeof(sx));
	}
	if (!desc) {
		setup_fail(cmd, r, &sx);
		return;
	}
	p->desc = desc;
	if (cmd->cdb_len < desc->len || !cdb_desc_on_lu(desc, lu)) {
		setup_fail(cmd, SENSE_INVALID_OPCODE, NULL);
		return;
	}
	r = p->forward ? SENSE_OK : cdb_check_usage(desc, cmd->cdb, &sx);
	if (r == SENSE_OK)
		r = setup_checks(cmd, &sx);
	if (r == SENSE_OK)
		r = desc->parse(cmd);
	xfer = p->data_len;
	if (r == SENSE_OK)
		r = setup_transfer(cmd);
	/* a transfer cut to the Expected Data Transfer Length would no longer
	 * match the CDB the device gets: the core runs it on the primitives */
	if (p->forward && desc != &pt_generic_desc &&
	    (p->data_len != xfer || p->buf_len != xfer || p->data_dir != cmd->fabric_dir))
		p->forward = false;
	if (r != SENSE_OK) {
		/* parse-time field pointers were recorded in p->sx already */
		if (sx.fp_valid || sx.progress_valid || sx.info_valid)
			p->sx = sx;
		setup_fail(cmd, r, NULL);
		return;
	}
	if (cmd->buf_budget && p->buf_len > cmd->buf_budget) {
		/* the fabric's share for this I_T nexus is taken */
		setup_fail(cmd, SENSE_TASK_SET_FULL, NULL);
		return;
	}
	cmd->buf = cmd_buf_alloc(cmd);
	if (!cmd->buf) {
		/* back-pressure, never a crash: a fabric that can wait retries
		 * (scsi_cmd_buf_retry), for the others the initiator retries */
		if (cmd->buf_wait_ok) {
			p->buf_wait = true;
			return;
		}
		setup_fail(cmd, SENSE_BUSY, NULL);
		return;
	}
	setup_enter_or_defer(cmd);
}

void scsi_cmd_enter(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	cmd->enter_later = false; /* a buffer that comes later enters it */
	if (!p->enter_due)
		return;
	p->enter_due = false;
	if (p->lu) {
		struct sense_extra sx = {0};
		enum sense_reason r = SENSE_OK;

		/* SAM-5 5.9: the task manager admits a command entering now as
		 * a new one, so an ACA established since its set-up (by a
		 * command numbered before it) refuses it with ACA ACTIVE or
		 * BUSY rather than holding it until CLEAR ACA; the ACA task
		 * admitted at set-up keeps its place */
		if (!p->aca_admitted)
			r = aca_admit(p->lu, cmd);
		if (r == SENSE_OK)
			r = setup_checks(cmd, &sx);
		if (r != SENSE_OK) {
			setup_fail(cmd, r, &sx);
			return;
		}
	}
	setup_enter(cmd);
}

bool scsi_cmd_buf_pending(const struct scsi_cmd *cmd)
{
	return cmd->priv.buf_wait;
}

int scsi_cmd_buf_retry(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	if (!p->buf_wait)
		return 0;
	cmd->buf = cmd_buf_alloc(cmd);
	if (!cmd->buf)
		return -ENOMEM;
	p->buf_wait = false;
	setup_enter_or_defer(cmd);
	return 0;
}

uint32_t scsi_cmd_buf_bytes(const struct scsi_cmd *cmd)
{
	return cmd->buf ? cmd->priv.buf_len : 0;
}

bool scsi_cmd_buf_reserved(const struct scsi_cmd *cmd)
{
	return cmd->buf && cmd->priv.buf_reserved;
}

const struct scsi_tmf *scsi_cmd_abort_tmf(const struct scsi_cmd *cmd)
{
	/* set under lu->lock before the kick that runs cmd_abort_pending was
	 * posted to this reactor */
	return cmd->priv.abort_tmf;
}

void scsi_cmd_set_fabric_error(struct scsi_cmd *cmd, enum sense_reason r)
{
	if (cmd->priv.reason == SENSE_OK)
		cmd->priv.reason = (uint16_t)r;
}

void scsi_cmd_exec(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;

	if (p->buf_wait) {
		/* the fabric gave up waiting for a buffer */
		p->buf_wait = false;
		setup_fail(cmd, SENSE_BUSY, NULL);
	}
	/* run before the fabric let it enter (an aborted task, a connection
	 * gone): one that is to run enters now, so that it runs in order; one
	 * that failed ends without (as one whose set-up failed) */
	if (p->reason != SENSE_OK)
		p->enter_due = false;
	else if (p->enter_due)
		scsi_cmd_enter(cmd);
	if (p->reason != SENSE_OK) {
		scsi_cmd_complete_sx(cmd, p->reason, &p->sx);
		return;
	}
	if (p->order_kind != ORDER_KIND_OUTSIDE) {
		pthread_mutex_lock(&lu->lock);
		if (atomic_load(&p->aborted)) {
			p->state = SCSI_CMD_RUNNING;
			pthread_mutex_unlock(&lu->lock);
			scsi_cmd_complete(cmd, SENSE_TASK_ABORTED);
			return;
		}
		if (p->waiting || aca_holds_locked(lu, cmd)) {
			/* SAM-5 8.6: wait for older tasks; order.c starts it.
			 * SAM-5 5.9, QERR 00b: an ACA holds the task set;
			 * aca.c starts it when the ACA is cleared */
			p->state = SCSI_CMD_BLOCKED;
			pthread_mutex_unlock(&lu->lock);
			return;
		}
		p->state = SCSI_CMD_RUNNING;
		pthread_mutex_unlock(&lu->lock);
	} else {
		p->state = SCSI_CMD_RUNNING;
	}
	if (p->forward)
		pt_exec(cmd);
	else
		p->desc->exec(cmd);
}

/* RFC 7143 11.4.5.2: residuals. Data-In commands compare what was produced
 * with the Expected Data Transfer Length for Data-In; Data-Out commands what
 * the CDB asked for with the one for Data-Out; commands without data the
 * Expected Data Transfer Length (all of it is residual). */
static void cmd_residual(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t want, exp;

	switch (p->data_dir) {
	case SCSI_DIR_READ:
		exp = exp_len_dir(cmd, SCSI_DIR_READ);
		want = p->data_in_full > cmd->data_in_len ? p->data_in_full : cmd->data_in_len;
		if (cmd->data_in_len > exp)
			cmd->data_in_len = exp;
		break;
	case SCSI_DIR_WRITE:
		exp = exp_len_dir(cmd, SCSI_DIR_WRITE);
		want = p->cdb_xfer_len;
		break;
	default:
		exp = cmd->exp_len;
		want = 0;
		cmd->data_in_len = 0;
		break;
	}
	if (want > exp) {
		cmd->resid_kind = SCSI_RESID_OVERFLOW;
		cmd->resid = want - exp;
	} else if (want < exp) {
		cmd->resid_kind = SCSI_RESID_UNDERFLOW;
		cmd->resid = exp - want;
	} else {
		cmd->resid_kind = SCSI_RESID_NONE;
		cmd->resid = 0;
	}
}

/* The LU's statistics (enum lu_stat): one shard of the completing
 * thread's (lib/stats.h), no shared cache line. */
static void lu_count(struct scsi_cmd *cmd, struct scsi_lu *lu, uint64_t lat_ns)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	bool good = cmd->status == SAM_STAT_GOOD || cmd->status == SAM_STAT_CONDITION_MET;
	unsigned slot, c = SCSI_OP_OTHER;
	_Atomic uint64_t *w = stats_shard(&lu->core->stats, &slot);

	if (unlikely(!w))
		return;
	if (p->desc && (p->desc->flags & CDB_F_WRITES))
		c = SCSI_OP_WRITE;
	else if (p->desc && p->desc->order_class == ORDER_READ)
		c = SCSI_OP_READ;
	stats_word_add(w, slot, LU_ST_CMDS, 1);
	stats_word_add(w, slot, LU_ST_CLASS_CMDS + c, 1);
	stats_hist_add(w, slot, LU_ST_HIST + c * STATS_HIST_WORDS, lat_ns);
	if (cmd->data_in_len)
		stats_word_add(w, slot, LU_ST_READ_BYTES, cmd->data_in_len);
	if (p->data_dir == SCSI_DIR_WRITE && good)
		stats_word_add(w, slot, LU_ST_WRITE_BYTES, cmd->write_len);
	if (atomic_load_explicit(&p->aborted, memory_order_relaxed))
		stats_word_add(w, slot, LU_ST_ABORTED, 1);
	else if (!good)
		stats_word_add(w, slot, LU_ST_ERRORS, 1);
	if (cmd->status == SAM_STAT_BUSY || cmd->status == SAM_STAT_TASK_SET_FULL)
		stats_word_add(w, slot, LU_ST_BUSY, 1);
}

/* The target port's counters (enum tport_stat): a shard as for the LU's. */
static void tport_count(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	unsigned slot;
	_Atomic uint64_t *w = stats_shard(&cmd->nexus->tport->stats, &slot);

	if (unlikely(!w))
		return;
	stats_word_add(w, slot, TP_ST_CMDS, 1);
	if (cmd->data_in_len)
		stats_word_add(w, slot, TP_ST_READ_BYTES, cmd->data_in_len);
	if (p->data_dir == SCSI_DIR_WRITE &&
	    (cmd->status == SAM_STAT_GOOD || cmd->status == SAM_STAT_CONDITION_MET))
		stats_word_add(w, slot, TP_ST_WRITE_BYTES, cmd->write_len);
}

/* Hand the finished command to the fabric, then let a waiting TMF go on.
 * The fabric may release (and reuse) cmd inside cmd_done. */
static void cmd_deliver(struct scsi_cmd *cmd, struct scsi_tmf *tmf)
{
	cmd->nexus->ops->cmd_done(cmd);
	if (tmf)
		tmf_task_done(tmf);
}

/* What a device behind a pass-through LU answered (scsi_cmd_complete_raw). */
struct cmd_raw_status {
	uint8_t status;
	const uint8_t *sense;
	size_t sense_len;
};

static void cmd_finish(struct scsi_cmd *cmd, enum sense_reason r, const struct sense_extra *sx,
		       const struct cmd_raw_status *raw)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct scsi_tmf *tmf = NULL;
	struct list_node ready;
	bool deferred = false, aborted, cc;
	uint64_t lat_ns;

	list_init(&ready);
	if ((unsigned)r >= SENSE_REASON_COUNT)
		r = SENSE_INTERNAL_TARGET_FAILURE;
	/* CHECK CONDITION goes out (an aborted task ends without status, or
	 * with TASK ABORTED); the abort mark is read under the lock that sets
	 * it, and a task outside the task set is never marked */
	cc = (raw ? raw->status : sense_status(r)) == SAM_STAT_CHECK_CONDITION;
	if (p->order_kind != ORDER_KIND_OUTSIDE) {
		pthread_mutex_lock(&lu->lock);
		order_leave_locked(lu, cmd, &ready);
		cc = cc && !atomic_load(&p->aborted);
		aca_complete_locked(lu, cmd, cc, &ready);
		tmf = p->abort_tmf;
		deferred = p->msg_posted;
		p->state = SCSI_CMD_DONE;
		pthread_mutex_unlock(&lu->lock);
	} else {
		/* outside the task set (refused at setup): the lock only when
		 * the ACA may change */
		if (lu && (p->aca_admitted || (cc && aca_cdb_naca(cmd->cdb, cmd->cdb_len)))) {
			pthread_mutex_lock(&lu->lock);
			aca_complete_locked(lu, cmd, cc, &ready);
			pthread_mutex_unlock(&lu->lock);
		}
		p->state = SCSI_CMD_DONE;
	}
	aborted = atomic_load(&p->aborted);

	cmd->sense_len = 0;
	if (aborted) {
		/* SAM-5 5.6 / Control page TAS: tasks of other nexuses end with
		 * TASK ABORTED when TAS=1; otherwise nothing is sent */
		cmd->data_in_len = 0;
		if (p->abort_other_nexus && lu && lu_tas(lu))
			cmd->status = SAM_STAT_TASK_ABORTED;
		else
			cmd->suppress_response = true;
	} else if (raw) {
		/* the device's status and sense, intact */
		cmd->status = raw->status;
		if (raw->sense_len) {
			size_t n = raw->sense_len < sizeof(cmd->sense) ? raw->sense_len
								       : sizeof(cmd->sense);

			if (raw->sense != cmd->sense)
				memmove(cmd->sense, raw->sense, n);
			cmd->sense_len = (uint8_t)n;
		}
		if (cmd->status != SAM_STAT_GOOD && cmd->status != SAM_STAT_CONDITION_MET)
			cmd->data_in_len = 0;
	} else {
		cmd->status = sense_status(r);
		if (cmd->status == SAM_STAT_CHECK_CONDITION) {
			cmd->sense_len = (uint8_t)sense_build(cmd->sense, sizeof(cmd->sense), r,
							      lu ? lu_d_sense(lu) : false, sx);
		}
		if (cmd->status != SAM_STAT_GOOD && cmd->status != SAM_STAT_CONDITION_MET)
			cmd->data_in_len = 0;
	}
	cmd_residual(cmd);
	lat_ns = reactor_now_ns() - p->start_ns;
	if (lu) {
		lu_count(cmd, lu, lat_ns);
		/* SBC-4 4.7.3.8: the mapping resources may have changed */
		if (p->desc && (p->desc->flags & CDB_F_WRITES))
			lbp_threshold_note_write(lu, p->start_ns + lat_ns);
	}
	tport_count(cmd);
	order_post_ready(&ready);
	if (!deferred)
		cmd_deliver(cmd, tmf);
}

void scsi_cmd_complete_sx(struct scsi_cmd *cmd, enum sense_reason r, const struct sense_extra *sx)
{
	cmd_finish(cmd, r, sx, NULL);
}

void scsi_cmd_complete_raw(struct scsi_cmd *cmd, uint8_t status, const uint8_t *sense,
			   size_t sense_len)
{
	struct cmd_raw_status raw = {.status = status, .sense = sense, .sense_len = sense_len};

	cmd_finish(cmd, SENSE_OK, NULL, &raw);
}

void scsi_cmd_complete(struct scsi_cmd *cmd, enum sense_reason r)
{
	scsi_cmd_complete_sx(cmd, r, NULL);
}

void scsi_cmd_complete_info(struct scsi_cmd *cmd, enum sense_reason r, uint64_t info)
{
	struct sense_extra sx = {.info_valid = true, .info = info};

	scsi_cmd_complete_sx(cmd, r, &sx);
}

void scsi_cmd_complete_bs_error(struct scsi_cmd *cmd, int err, uint64_t bad_off, bool is_write)
{
	struct scsi_lu *lu = cmd->priv.lu;
	enum sense_reason r;

	switch (err) {
	case 0:
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	case -EIO:
		r = is_write ? SENSE_WRITE_ERROR : SENSE_UNRECOVERED_READ_ERROR;
		if (lu)
			log_count_medium_error(lu, cmd, is_write);
		if (bad_off != UINT64_MAX && lu) {
			scsi_cmd_complete_info(cmd, r, bad_off >> lu->block_shift);
			return;
		}
		break;
	case -ENOSPC:
		r = SENSE_SPACE_ALLOCATION_FAILED;
		break;
	case -EROFS:
	case -EPERM:
	case -EACCES:
		r = SENSE_WRITE_PROTECTED;
		break;
	case -ENOMEM:
	case -EAGAIN:
		r = SENSE_BUSY;
		break;
	case -ENODEV:
	case -ENXIO:
		r = SENSE_LU_COMMUNICATION_FAILURE;
		if (lu)
			log_count_non_medium_error(lu);
		break;
	default:
		r = SENSE_INTERNAL_TARGET_FAILURE;
		if (lu)
			log_count_non_medium_error(lu);
		break;
	}
	scsi_cmd_complete(cmd, r);
}

enum sense_reason cdb_invalid_field(struct scsi_cmd *cmd, unsigned byte, int bit)
{
	struct sense_extra *sx = &cmd->priv.sx;

	memset(sx, 0, sizeof(*sx));
	sx->fp_valid = true;
	sx->fp_cdb = true;
	sx->fp_byte = (uint16_t)byte;
	sx->fp_bit_valid = bit >= 0;
	sx->fp_bit = bit >= 0 ? (uint8_t)bit : 0;
	return SENSE_INVALID_FIELD_IN_CDB;
}

enum sense_reason param_invalid_field(struct scsi_cmd *cmd, unsigned byte, int bit)
{
	struct sense_extra *sx = &cmd->priv.sx;

	memset(sx, 0, sizeof(*sx));
	sx->fp_valid = true;
	sx->fp_cdb = false;
	sx->fp_byte = (uint16_t)byte;
	sx->fp_bit_valid = bit >= 0;
	sx->fp_bit = bit >= 0 ? (uint8_t)bit : 0;
	return SENSE_INVALID_FIELD_IN_PARAM_LIST;
}

void scsi_cmd_set_data_in(struct scsi_cmd *cmd, const void *src, size_t len)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	/* the allocation length cuts what the device server transfers, the
	 * buffer (no larger than the Expected Data Transfer Length) what the
	 * initiator receives */
	p->data_in_full = (uint32_t)(len < p->cdb_xfer_len ? len : p->cdb_xfer_len);
	if (len > p->buf_len)
		len = p->buf_len;
	if (len)
		memcpy(cmd->buf, src, len);
	cmd->data_in_len = (uint32_t)len;
}

/* Runs on cmd->reactor for every message posted to a command: a TMF's abort
 * or the start of a task that no longer waits for older ones. */
void cmd_kick(struct reactor_msg *m)
{
	struct scsi_cmd *cmd = container_of(m, struct scsi_cmd, priv.msg);
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct scsi_tmf *tmf;
	uint8_t state;
	bool aborted;

	pthread_mutex_lock(&lu->lock);
	p->msg_posted = false;
	state = p->state;
	aborted = atomic_load(&p->aborted);
	tmf = p->abort_tmf;
	if (state == SCSI_CMD_READY) {
		if (!aborted && aca_holds_locked(lu, cmd)) {
			/* an ACA established since it was started holds it:
			 * aca.c starts it again when the ACA is cleared */
			p->state = SCSI_CMD_BLOCKED;
			state = SCSI_CMD_BLOCKED;
		} else {
			p->state = SCSI_CMD_RUNNING;
		}
	}
	pthread_mutex_unlock(&lu->lock);

	switch (state) {
	case SCSI_CMD_SETUP:
		/* the fabric holds it for Data-Out: it stops and calls exec */
		if (!aborted)
			break;
		if (cmd->nexus->ops->cmd_abort_pending)
			cmd->nexus->ops->cmd_abort_pending(cmd);
		break;
	case SCSI_CMD_BLOCKED:
		if (aborted)
			scsi_cmd_complete(cmd, SENSE_TASK_ABORTED);
		break;
	case SCSI_CMD_READY:
		if (aborted)
			scsi_cmd_complete(cmd, SENSE_TASK_ABORTED);
		else
			p->desc->exec(cmd);
		break;
	case SCSI_CMD_DONE:
		/* completed while this message was in flight */
		cmd_deliver(cmd, tmf);
		break;
	default:
		break;
	}
}

int scsi_cmd_unlend(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	int rc;

	if (!cmd->data_in_src)
		return 0;
	/* a file's mapping past a shrunk end faults: EFAULT, not SIGBUS */
	rc = safe_copy(cmd->buf, cmd->data_in_src, cmd->data_in_len);
	if (p->op_free) /* the back-store's hold ends (sbc.c rw_lent_free) */
		p->op_free(cmd);
	p->op_free = NULL;
	cmd->data_in_src = NULL;
	return rc ? -EFAULT : 0;
}

void scsi_cmd_release(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	if (p->op_free)
		p->op_free(cmd);
	p->op = NULL;
	p->op_free = NULL;
	if (cmd->buf)
		(p->buf_reserved ? buf_free_reserved : buf_free)(cmd->buf, p->buf_len);
	cmd->buf = NULL;
	if (p->lu) {
		aca_release(p->lu, cmd);
		scsi_lu_put(p->lu);
	}
	p->lu = NULL;
	p->itn = NULL;
	p->state = SCSI_CMD_FREE;
}
