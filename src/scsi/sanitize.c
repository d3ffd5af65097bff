/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sanitize.c: SANITIZE (SBC-4 5.24) and the sanitize state of a logical unit
 * (SBC-4 4.11); FORMAT UNIT (SBC-4 5.3), the same job with FORMAT IN
 * PROGRESS (see the FORMAT UNIT part below).
 *
 * Service actions: 01h OVERWRITE (the INITIALIZATION PATTERN written to
 * every block OVERWRITE COUNT times, alternately inverted with INVERT=1 so
 * that the last pass writes the pattern as given), 02h BLOCK ERASE (a thin
 * LU whose back-store deallocates is deallocated; otherwise zeroes are
 * written), 1Fh EXIT FAILURE MODE. 03h CRYPTOGRAPHIC ERASE is not in the
 * table: there is no media encryption key to change, so it is an
 * unsupported service action (INVALID FIELD IN CDB, and REPORT SUPPORTED
 * OPERATION CODES says so too).
 *
 * The operation is a job of its own (struct san_job), not of the command:
 * with IMMED=1 the command returns GOOD at once; with IMMED=0 the command
 * waits for the job, unless it is aborted (ABORT TASK, LU reset, I_T nexus
 * loss), in which case it completes (as aborted) and the job carries on:
 * SBC-4 4.11.1, a sanitize operation survives resets. While the job runs,
 * sbc_busy() makes the core answer NOT READY / SANITIZE IN PROGRESS with
 * the progress indication to every command without CDB_F_SANITIZE_OK. The
 * job takes an exclusive range lock over the whole medium, so it starts
 * after the medium accesses already in progress.
 *
 * The data writes of a sanitize (OVERWRITE, and BLOCK ERASE by writing
 * zeroes) are paced to SAN_WRITE_BYTES_PER_SEC (128 MiB/s): it is background work that
 * must not monopolise the back-store's device and the reactor at the
 * expense of the other logical units. Deallocation is not paced.
 *
 * A failure (a back-store error) leaves the LU in the sanitize failed state
 * (SBC-4 4.11.4): medium access commands end with MEDIUM ERROR / MEDIUM
 * FORMAT CORRUPTED until a SANITIZE completes without error, or, when the
 * failed one had AUSE=1, until SANITIZE EXIT FAILURE MODE. */
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/pi_format.h"
#include "scsi/sbc_internal.h"
#include "scsi/ua.h"

#define SA_OVERWRITE	     0x01
#define SA_BLOCK_ERASE	     0x02
#define SA_EXIT_FAILURE_MODE 0x1f

/* OVERWRITE parameter list (SBC-4 5.24.3.2) */
#define OW_HDR_LEN    4
#define OW_INVERT     0x80
#define OW_TEST_MASK  0x60
#define OW_COUNT_MASK 0x1f

/* BLOCK ERASE by deallocation: the medium in pieces of this size, so that
 * the progress indication moves */
#define SAN_DISCARD_BYTES (256ull << 20)
/* pace of the data writes (see above): a 1 GiB pass takes 8 s, long enough
 * to be seen in progress (libiscsi Sanitize.Reset looks after 3 s and again
 * after a reconnect), short enough that a waiting initiator's other
 * sessions are not left without NOP-In answers for a keepalive period */
#define SAN_WRITE_BYTES_PER_SEC (128ull << 20)

enum san_step_state {
	SAN_LOCK = 0,
	SAN_LOCKED,
	SAN_PI_SAVED, /* FORMAT UNIT: the new protection type is in its state file */
	SAN_IO,
	SAN_FLUSH,
};

struct san_job {
	struct sbc_op op;   /* op.cmd: the waiting command, NULL once detached */
	struct scsi_lu *lu; /* reference held by the job */
	enum san_step_state state;
	uint8_t sa;
	bool format; /* a FORMAT UNIT, not a SANITIZE */
	bool ause;
	bool invert;	       /* OVERWRITE INVERT */
	unsigned passes, pass; /* OVERWRITE COUNT */
	enum bs_op bop;	       /* WRITE, WRITE_ZEROES or DISCARD */
	uint64_t cap;	       /* blocks */
	uint64_t lba;	       /* next block of this pass */
	uint8_t *chunk;	       /* OVERWRITE: the pattern chunk */
	uint32_t chunk_len;
	uint64_t written;	   /* bytes written so far (pacing) */
	uint64_t start_ns;	   /* when the writes began */
	struct reactor *r;	   /* the job's reactor */
	struct reactor_timer pace; /* wakes the job when it is ahead of its pace */
	uint8_t block[4096];	   /* OVERWRITE: one block of the pattern, as given */
	/* FORMAT UNIT that changes the protection type (pi_format.c) */
	bool pi_change;
	struct pi_format_save pi_save;
	const struct lu_itn *itn; /* the issuer's (compared, never followed) */
};

bool sbc_busy(struct scsi_lu *lu, const struct scsi_cmd *cmd, enum sense_reason *r,
	      uint16_t *progress)
{
	struct sbc_lu_state *s = lu->sbc;
	const struct cdb_desc *d = cmd ? cmd->priv.desc : NULL;
	uint16_t flags = d ? d->flags : 0;

	*progress = 0;
	switch (atomic_load_explicit(&s->san_state, memory_order_acquire)) {
	case SBC_SAN_RUNNING:
		if (flags & CDB_F_SANITIZE_OK)
			break;
		*r = SENSE_NOT_READY_SANITIZE_IN_PROGRESS;
		*progress = (uint16_t)atomic_load_explicit(&s->san_progress, memory_order_relaxed);
		return true;
	case SBC_SAN_FORMATTING:
		if (flags & CDB_F_BUSY_OK)
			break;
		*r = SENSE_NOT_READY_FORMAT_IN_PROGRESS;
		*progress = (uint16_t)atomic_load_explicit(&s->san_progress, memory_order_relaxed);
		return true;
	case SBC_SAN_FAILED:
		/* SBC-4 4.11.4: medium access commands fail; SANITIZE and
		 * FORMAT UNIT are how the state is left */
		if (!d || (flags & CDB_F_SANITIZE_OK) || cdb_op(cmd->cdb) == OP_SANITIZE ||
		    cdb_op(cmd->cdb) == OP_FORMAT_UNIT)
			break;
		if (d->order_class == ORDER_READ || d->order_class == ORDER_WRITE) {
			*r = SENSE_MEDIUM_FORMAT_CORRUPTED;
			return true;
		}
		break;
	default:
		break;
	}
	switch (atomic_load_explicit(&s->st_state, memory_order_acquire)) {
	case SBC_ST_FOREGROUND:
		if (flags & CDB_F_BUSY_OK)
			return false;
		break;
	case SBC_ST_BACKGROUND:
		if (cmd)
			return false;
		break;
	default:
		return false;
	}
	*r = SENSE_NOT_READY_SELF_TEST_IN_PROGRESS;
	*progress = (uint16_t)atomic_load_explicit(&s->st_progress, memory_order_relaxed);
	return true;
}

/* SANITIZE 48h: byte 1 IMMED (7), AUSE (5), SERVICE ACTION (4-0); bytes 2-6
 * reserved; PARAMETER LIST LENGTH 7-8. */
enum sense_reason sbc_parse_sanitize(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint8_t sa = cdb_sa(cmd->cdb);
	uint32_t len = cdb10_param_list_len(cmd->cdb);

	p->io_flags = cdb_sanitize_immed(cmd->cdb) ? CMD_IOF_IMMED : 0;
	p->data_len = 0;
	p->data_dir = SCSI_DIR_NONE;
	if (sa == SA_OVERWRITE) {
		/* SBC-4 5.24.3.1: the list holds the 4-byte header and a
		 * pattern of 1 .. logical block length bytes */
		if (len <= OW_HDR_LEN || len > lu->block_size + OW_HDR_LEN)
			return cdb_invalid_field(cmd, CDB10_LENGTH_BYTE, -1);
		p->data_len = len;
		p->data_dir = SCSI_DIR_WRITE;
	} else if (len != 0) {
		/* BLOCK ERASE and EXIT FAILURE MODE have no parameter list */
		return cdb_invalid_field(cmd, CDB10_LENGTH_BYTE, -1);
	}
	return SENSE_OK;
}

static void san_job_free(struct san_job *j)
{
	if (j->chunk)
		buf_free(j->chunk, j->chunk_len);
	scsi_lu_put(j->lu);
	free(j);
}

/* Fill the chunk with the pattern block, inverted or not. */
static void san_fill(struct san_job *j, bool inverted)
{
	uint32_t bs = j->lu->block_size;

	for (uint32_t b = 0; b < j->chunk_len; b += bs) {
		memcpy(j->chunk + b, j->block, bs);
		if (inverted)
			for (uint32_t i = 0; i < bs; i++)
				j->chunk[b + i] ^= 0xff;
	}
}

/* SBC-4 5.24.3.2: with INVERT=1 the passes alternate, the last one writing
 * the pattern as given. */
static bool san_pass_inverted(const struct san_job *j, unsigned pass)
{
	return j->invert && ((j->passes - 1 - pass) & 1);
}

static void san_progress(struct san_job *j)
{
	struct sbc_lu_state *s = j->lu->sbc;
	uint64_t total = (uint64_t)j->passes * j->cap;
	uint64_t done = (uint64_t)j->pass * j->cap + j->lba;
	unsigned v = total ? (unsigned)((done * 65535u) / total) : 0;

	atomic_store_explicit(&s->san_progress, v, memory_order_relaxed);
}

static const char *san_name(const struct san_job *j)
{
	if (j->format)
		return "FORMAT UNIT";
	return j->sa == SA_OVERWRITE ? "SANITIZE OVERWRITE" : "SANITIZE BLOCK ERASE";
}

/* The end of the job: the LU's state, then the waiting command if any.
 * !ok && untouched: it failed before the medium was touched (the format's
 * state file could not be written): the command fails, the medium stays as
 * it was. */
static enum sbc_step san_end_as(struct san_job *j, bool ok, bool untouched)
{
	struct scsi_lu *lu = j->lu;
	struct sbc_lu_state *s = lu->sbc;
	struct scsi_cmd *cmd = j->op.cmd;
	bool format = j->format;

	sbc_range_unlock(&j->op.rl);
	pthread_mutex_lock(&lu->lock);
	s->san_failed_ause = !ok && j->ause;
	atomic_store_explicit(&s->san_state, ok || untouched ? SBC_SAN_IDLE : SBC_SAN_FAILED,
			      memory_order_release);
	atomic_store_explicit(&s->san_progress, 0, memory_order_relaxed);
	pthread_mutex_unlock(&lu->lock);
	if (!ok && !untouched)
		log_err("%s: %s failed (error %d): medium format corrupted", scsi_lu_name(lu),
			san_name(j), j->op.err);
	san_job_free(j);
	/* SBC-4 5.24.1: a failed sanitize ends the command with MEDIUM ERROR
	 * / SANITIZE COMMAND FAILED; SBC-4 5.3.1: a failed format with MEDIUM
	 * ERROR / FORMAT COMMAND FAILED */
	if (cmd)
		scsi_cmd_complete(cmd, ok	? SENSE_OK
				       : format ? SENSE_FORMAT_FAILED
						: SENSE_SANITIZE_FAILED);
	return SBC_STEP_DONE;
}

static enum sbc_step san_end(struct san_job *j, bool ok)
{
	return san_end_as(j, ok, false);
}

/* The format's new protection type is durable (or not): resume the job. */
static void san_pi_saved(struct pi_format_save *s)
{
	sbc_op_run(&container_of(s, struct san_job, pi_save)->op);
}

/* SBC-4 5.3.2: the medium is formatted with the new protection type from
 * here on; its READ CAPACITY(16) data changes (P_TYPE, PROT_EN), which the
 * other I_T nexuses learn from CAPACITY DATA HAS CHANGED (SBC-4 4.6). */
static void san_pi_apply(struct san_job *j)
{
	pi_format_apply(j->lu, j->pi_save.type);
	ua_set_all(j->lu, UA_CAPACITY_CHANGED, j->itn);
	log_notice("%s: formatted with protection type %u", scsi_lu_name(j->lu), j->pi_save.type);
}

static void san_pace_fired(struct reactor_timer *t)
{
	sbc_op_run(&container_of(t, struct san_job, pace)->op);
}

/* Ahead of SAN_WRITE_BYTES_PER_SEC: arm the timer, true. */
static bool san_pace(struct san_job *j)
{
	uint64_t due_ns, now;

	if (j->bop != BS_OP_WRITE || !j->r)
		return false;
	now = reactor_now_ns();
	if (!j->written) {
		j->start_ns = now;
		return false;
	}
	due_ns = j->start_ns + j->written * 1000000000ull / SAN_WRITE_BYTES_PER_SEC;
	if (now >= due_ns)
		return false;
	reactor_timer_arm(j->r, &j->pace, due_ns - now);
	return true;
}

static enum sbc_step san_step(struct sbc_op *op)
{
	struct san_job *j = container_of(op, struct san_job, op);
	uint32_t shift = j->lu->block_shift;
	uint64_t n, max;

	/* an aborted waiting command completes now; the job goes on */
	if (op->cmd && atomic_load(&op->cmd->priv.aborted)) {
		struct scsi_cmd *cmd = op->cmd;

		op->cmd = NULL;
		cmd->priv.op = NULL;
		scsi_cmd_complete(cmd, SENSE_TASK_ABORTED);
	}
	switch (j->state) {
	case SAN_LOCK:
		j->state = SAN_LOCKED;
		if (!sbc_range_lock(j->lu, &op->rl, 0, j->cap, true))
			return SBC_STEP_WAIT;
		UT_FALLTHROUGH;
	case SAN_LOCKED:
		if (j->pi_change) {
			/* no medium access in flight: the type state first,
			 * so a crash never leaves tuples of the new type read
			 * as the old one */
			j->state = SAN_PI_SAVED;
			j->pi_save.done = san_pi_saved;
			pi_format_save(&j->pi_save);
			return SBC_STEP_WAIT;
		}
		if (j->bop == BS_OP_WRITE && j->chunk)
			san_fill(j, san_pass_inverted(j, 0));
		break;
	case SAN_PI_SAVED:
		if (j->pi_save.err)
			return san_end_as(j, false, true);
		san_pi_apply(j);
		break;
	case SAN_IO:
		if (op->err)
			return san_end(j, false);
		break;
	case SAN_FLUSH:
		return san_end(j, op->err == 0);
	}
	if (j->lba == j->cap && j->pass + 1 < j->passes) {
		j->pass++;
		j->lba = 0;
		if (j->invert)
			san_fill(j, san_pass_inverted(j, j->pass));
	}
	san_progress(j);
	if (j->lba == j->cap) {
		if (j->lu->bs->caps & BS_CAP_FLUSH) {
			sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
			j->state = SAN_FLUSH;
			return SBC_STEP_IO;
		}
		return san_end(j, true);
	}
	if (j->bop == BS_OP_WRITE)
		max = j->chunk_len >> shift;
	else
		max = SAN_DISCARD_BYTES >> shift;
	if (san_pace(j))
		return SBC_STEP_WAIT; /* san_pace_fired() runs the next step */
	n = UT_MIN(j->cap - j->lba, max);
	if (j->bop == BS_OP_WRITE)
		j->written += n << shift;
	sbc_op_io(op, j->bop, j->lba << shift, n << shift,
		  j->bop == BS_OP_WRITE ? (j->chunk ? j->chunk : (void *)sbc_zero_chunk()) : NULL,
		  0);
	j->lba += n;
	j->state = SAN_IO;
	return SBC_STEP_IO;
}

/* OVERWRITE parameter list checks (SBC-4 5.24.3.2); fills j->block. */
static enum sense_reason san_overwrite_params(struct scsi_cmd *cmd, struct san_job *j)
{
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len;
	uint32_t bs = j->lu->block_size;
	uint32_t ipl;

	if (cmd->write_len < len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if ((b[0] & OW_COUNT_MASK) == 0)
		return param_invalid_field(cmd, 0, 4);
	/* TEST is for vendor specific test modes: none */
	if (b[0] & OW_TEST_MASK)
		return param_invalid_field(cmd, 0, 6);
	if (b[1])
		return param_invalid_field(cmd, 1, 7);
	ipl = get_be16(b + 2);
	if (ipl == 0 || ipl > bs || ipl + OW_HDR_LEN != len)
		return param_invalid_field(cmd, 2, -1);
	/* a pattern shorter than a block is repeated to fill it */
	for (uint32_t i = 0; i < bs; i += ipl)
		memcpy(j->block + i, b + OW_HDR_LEN, UT_MIN(ipl, bs - i));
	j->passes = b[0] & OW_COUNT_MASK;
	j->invert = b[0] & OW_INVERT;
	return SENSE_OK;
}

/* BLOCK ERASE and FORMAT UNIT: every block reads as zeroes afterwards; a
 * thin LU whose back-store deallocates is deallocated (LBPRZ), else zeroes
 * are written (WRITE_ZEROES, or the shared zero chunk). */
static void san_zero_method(struct san_job *j)
{
	struct scsi_lu *lu = j->lu;

	if (lu->attrs.thin && (lu->bs->caps & BS_CAP_DISCARD)) {
		j->bop = BS_OP_DISCARD;
	} else if (lu->bs->caps & BS_CAP_WRITE_ZEROES) {
		j->bop = BS_OP_WRITE_ZEROES;
	} else {
		j->bop = BS_OP_WRITE;
		j->chunk_len = SBC_CHUNK_BYTES; /* the shared zero chunk */
	}
}

static struct san_job *san_job_new(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct san_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	scsi_lu_get(lu);
	j->lu = lu;
	j->cap = lu_nblocks(lu);
	j->passes = 1;
	sbc_op_init(&j->op, cmd, cmd->reactor, san_step);
	j->op.lu = lu;
	j->r = cmd->reactor;
	reactor_timer_init(&j->pace, san_pace_fired);
	return j;
}

/* The operation begins: from here on other commands see it (SANITIZE IN
 * PROGRESS or FORMAT IN PROGRESS). A background self-test ends first
 * (SPC-4 5.6.3.3: FORMAT UNIT, and a sanitize, abort it). */
static void san_start(struct scsi_cmd *cmd, struct san_job *j, bool immed)
{
	struct scsi_lu *lu = j->lu;
	struct sbc_lu_state *s = lu->sbc;
	int state;

	sbc_selftest_abort(lu);
	pthread_mutex_lock(&lu->lock);
	state = atomic_load(&s->san_state);
	if (state == SBC_SAN_RUNNING || state == SBC_SAN_FORMATTING) {
		/* another SANITIZE or FORMAT UNIT got here first */
		pthread_mutex_unlock(&lu->lock);
		san_job_free(j);
		scsi_cmd_complete(cmd, state == SBC_SAN_RUNNING
					   ? SENSE_NOT_READY_SANITIZE_IN_PROGRESS
					   : SENSE_NOT_READY_FORMAT_IN_PROGRESS);
		return;
	}
	atomic_store(&s->san_progress, 0);
	atomic_store_explicit(&s->san_state, j->format ? SBC_SAN_FORMATTING : SBC_SAN_RUNNING,
			      memory_order_release);
	pthread_mutex_unlock(&lu->lock);
	log_notice("%s: %s started%s", scsi_lu_name(lu), san_name(j), immed ? " (IMMED)" : "");

	if (immed) {
		/* SBC-4 5.24.1, 5.3.1: IMMED=1 returns status once the CDB
		 * and the parameter list are validated */
		j->op.cmd = NULL;
		scsi_cmd_complete(cmd, SENSE_OK);
	}
	j->state = SAN_LOCK;
	sbc_op_run(&j->op);
}

void sbc_exec_sanitize(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct sbc_lu_state *s = lu->sbc;
	uint8_t sa = cdb_sa(cmd->cdb);
	bool immed = p->io_flags & CMD_IOF_IMMED;
	bool ause = cdb_sanitize_ause(cmd->cdb);
	enum sense_reason r;
	struct san_job *j;
	int state;

	pthread_mutex_lock(&lu->lock);
	state = atomic_load(&s->san_state);
	if (sa == SA_EXIT_FAILURE_MODE) {
		/* SBC-4 5.24.4: only a failure in the unrestricted completion
		 * mode (AUSE=1) can be left this way */
		if (state == SBC_SAN_FAILED && !s->san_failed_ause) {
			pthread_mutex_unlock(&lu->lock);
			scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, SANITIZE_FLAGS_BYTE, 4),
					     &p->sx);
			return;
		}
		if (state == SBC_SAN_FAILED)
			atomic_store(&s->san_state, SBC_SAN_IDLE);
		pthread_mutex_unlock(&lu->lock);
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (state == SBC_SAN_RUNNING) {
		pthread_mutex_unlock(&lu->lock);
		scsi_cmd_complete_sx(cmd, SENSE_NOT_READY_SANITIZE_IN_PROGRESS, NULL);
		return;
	}
	/* SBC-4 4.11.3: after a failure in the restricted mode (AUSE=0) a new
	 * sanitize may not ask for the unrestricted one */
	if (state == SBC_SAN_FAILED && !s->san_failed_ause && ause) {
		pthread_mutex_unlock(&lu->lock);
		scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, SANITIZE_FLAGS_BYTE, 5), &p->sx);
		return;
	}
	pthread_mutex_unlock(&lu->lock);

	j = san_job_new(cmd);
	if (!j) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	j->sa = sa;
	j->ause = ause;
	if (sa == SA_OVERWRITE) {
		r = san_overwrite_params(cmd, j);
		if (r != SENSE_OK) {
			san_job_free(j);
			scsi_cmd_complete_sx(cmd, r, &p->sx);
			return;
		}
		j->bop = BS_OP_WRITE;
		j->chunk_len =
		    (uint32_t)UT_MIN(j->cap << lu->block_shift, (uint64_t)SBC_CHUNK_BYTES);
		if (j->chunk_len) {
			j->chunk = buf_alloc(j->chunk_len);
			if (!j->chunk) {
				san_job_free(j);
				scsi_cmd_complete(cmd, SENSE_BUSY);
				return;
			}
		}
	} else {
		san_zero_method(j);
	}
	san_start(cmd, j, immed);
}

/* ---- FORMAT UNIT (SBC-4 5.3) ----
 * FMTDATA=0, or FMTDATA=1 with a parameter list header that asks for
 * nothing but the defaults (and perhaps IMMED): the medium is initialised
 * as by SANITIZE BLOCK ERASE (san_zero_method()): every block reads as
 * zeroes afterwards. The job is the sanitize job; while it runs every
 * command but INQUIRY, REPORT LUNS and REQUEST SENSE (CDB_F_BUSY_OK) gets
 * NOT READY / FORMAT IN PROGRESS with the progress indication. A failure
 * leaves the medium format corrupted (as a failed sanitize) until a FORMAT
 * UNIT or SANITIZE succeeds; the command ends with MEDIUM ERROR / FORMAT
 * COMMAND FAILED.
 * Protection information (SBC-4 5.3.2, table "FMTPINFO field and
 * PROTECTION FIELD USAGE field"): FMTPINFO with PROTECTION FIELD USAGE
 * (000b without a parameter list) chooses the type, fmt_pi_type(); on an
 * LU that can keep protection information (PROTECT 1) among the types of
 * its SPT (pi_format.c), else type 0 only. A new type is written to the LU's
 * format state file before the medium is touched, then every tuple becomes
 * FFFF_FFFF_FFFF_FFFFh with the data's zeroes (the back-store's DISCARD or
 * WRITE ZEROES: backstore/pi.h). P_I_INFORMATION and PROTECTION INTERVAL
 * EXPONENT must be zero (one tuple per logical block).
 * Refused: a defect list (a virtual
 * disk has no defects to list: DEFECT LIST LENGTH must be zero), an
 * initialization pattern (IP=1), and FMTDATA=0 with CMPLST or a DEFECT
 * LIST FORMAT (SBC-4 table 39: no such combination). FOV=1 with DPRY,
 * DCRT or STPF is accepted: with no defect list and nothing to certify
 * they change nothing. */

/* parameter list header (SBC-4 5.3.2): short (4 bytes) or long (8) */
#define FMT_SHORT_HDR	 4
#define FMT_LONG_HDR	 8
#define FMT_PFU_MASK	 0x07 /* byte 0: PROTECTION FIELD USAGE */
#define FMT_FOV		 0x80 /* byte 1 */
#define FMT_FOV_BITS	 0x70 /* byte 1: DPRY, DCRT, STPF */
#define FMT_IP		 0x08
#define FMT_IMMED	 0x02
#define FMT_DLF_RESERVED 0x07

enum sense_reason sbc_parse_format_unit(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	p->io_flags = 0;
	p->data_len = 0;
	p->data_dir = SCSI_DIR_NONE;
	if (!cdb_format_fmtdata(cmd->cdb)) {
		if (cdb_format_cmplst(cmd->cdb))
			return cdb_invalid_field(cmd, FORMAT_FLAGS_BYTE, 3);
		if (cdb_format_defect_list_format(cmd->cdb))
			return cdb_invalid_field(cmd, FORMAT_FLAGS_BYTE, 2);
		return SENSE_OK;
	}
	if (cdb_format_defect_list_format(cmd->cdb) == FMT_DLF_RESERVED)
		return cdb_invalid_field(cmd, FORMAT_FLAGS_BYTE, 2);
	/* the list is the header: an initialization pattern or a defect
	 * list, which would follow it, is refused (exec) */
	p->data_len = cdb_format_longlist(cmd->cdb) ? FMT_LONG_HDR : FMT_SHORT_HDR;
	p->data_dir = SCSI_DIR_WRITE;
	return SENSE_OK;
}

/* The protection type FMTPINFO and PROTECTION FIELD USAGE ask for (SBC-4
 * 5.3.2 table; SPC-4 7.8.7 SPT): into *type, or INVALID FIELD IN CDB
 * (FMTPINFO) / IN PARAMETER LIST (PROTECTION FIELD USAGE). */
static enum sense_reason fmt_pi_type(struct scsi_cmd *cmd, uint8_t pfu, uint8_t *type)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint8_t fmtpinfo = cdb_format_fmtpinfo(cmd->cdb);

	if (fmtpinfo == 0) {
		*type = T10PI_NONE;
		return pfu ? param_invalid_field(cmd, 0, 2) : SENSE_OK;
	}
	/* PROTECT 0, and FMTPINFO 01b: the CDB is wrong */
	if (!(lu->bs->caps & BS_CAP_PI) || fmtpinfo == 1)
		return cdb_invalid_field(cmd, FORMAT_FLAGS_BYTE, 7);
	if (fmtpinfo == 2)
		*type = T10PI_TYPE1;
	else if (pfu == 0)
		*type = T10PI_TYPE2;
	else
		*type = T10PI_TYPE3;
	/* 10b with PFU > 000b, 11b with PFU > 001b, and a type outside SPT:
	 * the parameter list is wrong */
	if (pfu > (fmtpinfo == 2 ? 0 : 1) || !pi_format_can_keep(lu, *type))
		return param_invalid_field(cmd, 0, 2);
	return SENSE_OK;
}

/* The parameter list header; IMMED into *immed, its PROTECTION FIELD
 * USAGE into *pfu. */
static enum sense_reason fmt_header(struct scsi_cmd *cmd, bool *immed, uint8_t *pfu)
{
	const uint8_t *b = cmd->buf;
	bool longlist = cdb_format_longlist(cmd->cdb);
	uint32_t dll;

	if (cmd->write_len < cmd->priv.data_len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if (b[0] & ~FMT_PFU_MASK)
		return param_invalid_field(cmd, 0, 7);
	*pfu = b[0] & FMT_PFU_MASK;
	/* SBC-4 5.3.2: with FOV=0 DPRY, DCRT, STPF and IP are zero */
	if (!(b[1] & FMT_FOV) && (b[1] & (FMT_FOV_BITS | FMT_IP)))
		return param_invalid_field(cmd, 1, 6);
	if (b[1] & FMT_IP)
		return param_invalid_field(cmd, 1, 3);
	/* obsolete (bit 2) and vendor specific (bit 0) */
	if (b[1] & 0x05)
		return param_invalid_field(cmd, 1, b[1] & 0x04 ? 2 : 0);
	if (longlist) {
		if (b[2])
			return param_invalid_field(cmd, 2, 7);
		/* P_I_INFORMATION, PROTECTION INTERVAL EXPONENT */
		if (b[3])
			return param_invalid_field(cmd, 3, 7);
		dll = get_be32(b + 4);
	} else {
		dll = get_be16(b + 2);
	}
	if (dll)
		return param_invalid_field(cmd, longlist ? 4 : 2, -1);
	*immed = b[1] & FMT_IMMED;
	return SENSE_OK;
}

void sbc_exec_format_unit(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct sbc_lu_state *s = lu->sbc;
	bool immed = false;
	uint8_t pfu = 0, type = T10PI_NONE;
	enum sense_reason r = SENSE_OK;
	struct san_job *j;

	if (cdb_format_fmtdata(cmd->cdb))
		r = fmt_header(cmd, &immed, &pfu);
	if (r == SENSE_OK)
		r = fmt_pi_type(cmd, pfu, &type);
	/* a new type needs its state file (pi_format.c): without it the
	 * type would not outlive a restart */
	if (r == SENSE_OK && type != lu_pi_type(lu) && !pi_format_changeable(lu))
		r = cdb_invalid_field(cmd, FORMAT_FLAGS_BYTE, 7);
	if (r != SENSE_OK) {
		scsi_cmd_complete_sx(cmd, r, &p->sx);
		return;
	}
	if (atomic_load(&s->san_state) == SBC_SAN_RUNNING) {
		scsi_cmd_complete(cmd, SENSE_NOT_READY_SANITIZE_IN_PROGRESS);
		return;
	}
	j = san_job_new(cmd);
	if (!j) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	j->format = true;
	j->itn = p->itn;
	if (type != lu_pi_type(lu)) {
		j->pi_change = true;
		j->pi_save.lu = lu;
		j->pi_save.type = type;
	}
	san_zero_method(j);
	san_start(cmd, j, immed);
}
