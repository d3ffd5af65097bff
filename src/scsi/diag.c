/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diag.c: SEND DIAGNOSTIC (SPC-4 6.32), RECEIVE DIAGNOSTIC RESULTS (SPC-4
 * 6.27) and the self-tests of a logical unit (SPC-4 5.6.3), whose results
 * the Self-Test Results log page reports (log.c, struct selftest_log).
 *
 * What the self-tests do: they read the medium through the back-store and
 * check only that every read succeeds (there is nothing to compare the
 * data with). A read error fails the test.
 *  - short (SELF-TEST CODE 001b background, 101b foreground) and the
 *    default self-test (SELFTEST=1, foreground): ST_SHORT_SAMPLES reads of
 *    ST_SAMPLE_BYTES (64 KiB, or the whole medium when smaller) spread
 *    evenly from the first logical block to the last: 1 MiB at most;
 *  - extended (010b background, 110b foreground): the whole medium, in
 *    chunks of SBC_CHUNK_BYTES (1 MiB), first block to last.
 * Both are one segment (segment 1); the progress indication (0..65535) is
 * the share of the reads done. The reads of the extended test are paced to
 * ST_READ_BYTES_PER_SEC (256 MiB/s): a test is background work that must
 * not take the back-store's device from the commands of the initiators.
 * The short test's 1 MiB is not worth pacing.
 *
 * A test is a job on the step engine of the block commands (sbc_op): the
 * reads go through the back-store's own asynchronous path (io_uring or the
 * worker pool, lib/workq.c), so the reactor never blocks on them.
 *  - Foreground (SPC-4 5.6.3.2): the command completes when the test ends:
 *    GOOD, or HARDWARE ERROR / LOGICAL UNIT FAILED SELF-TEST. Meanwhile
 *    every other command but INQUIRY, REPORT LUNS and REQUEST SENSE gets
 *    NOT READY / SELF-TEST IN PROGRESS with the progress indication
 *    (sbc_busy()). ABORT TASK (and the other ways a task is aborted) ends
 *    the test: SELF-TEST RESULTS 2h.
 *  - Background (SPC-4 5.6.3.3): the command completes at once and other
 *    commands run as usual. REQUEST SENSE reports NOT READY / SELF-TEST IN
 *    PROGRESS with the progress indication; a SEND DIAGNOSTIC that would
 *    start another test gets the same. SELF-TEST CODE 100b ends it
 *    (SELF-TEST RESULTS 1h), and so do FORMAT UNIT, SANITIZE, START STOP
 *    UNIT stopping the unit (the exception commands of SPC-4 5.6.3.3 that
 *    the target has) and a logical unit reset (2h). 100b with no background test is INVALID FIELD
 * IN CDB. A test of a stopped unit or of no medium is refused as a read would be. A test is
 * recorded in the results log when it starts (SELF-TEST RESULTS Fh, in progress) and updated when
 * it ends; the timestamp is the hours the logical unit has existed (its power-on hours), rounded up
 * (st_hours()).
 *
 * Diagnostic pages (PF=1): the Supported Diagnostic Pages page (00h) only.
 * SEND DIAGNOSTIC takes a parameter list of 00h pages (page length 0);
 * RECEIVE DIAGNOSTIC RESULTS returns page 00h for PCV=1 PAGE CODE 00h, and
 * for PCV=0 (the page a SEND DIAGNOSTIC can have prepared is 00h). Any
 * other page: INVALID FIELD IN CDB or IN PARAMETER LIST with its field
 * pointer; PF=0 with a parameter list (a vendor specific format) too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/core.h"
#include "scsi/sbc_internal.h"

#define ST_SHORT_SAMPLES      16u
#define ST_SAMPLE_BYTES	      (64u << 10)
#define ST_READ_BYTES_PER_SEC (256ull << 20)

/* SPC-4 6.32 SELF-TEST CODE */
enum {
	ST_CODE_DEFAULT = 0, /* SELFTEST=1: the default self-test */
	ST_CODE_BG_SHORT = 1,
	ST_CODE_BG_EXTENDED = 2,
	ST_CODE_ABORT = 4,
	ST_CODE_FG_SHORT = 5,
	ST_CODE_FG_EXTENDED = 6,
};

/* SPC-4 7.3.18 SELF-TEST RESULTS */
enum {
	ST_RESULT_OK = 0x0,
	ST_RESULT_ABORTED = 0x1,       /* by SEND DIAGNOSTIC SELF-TEST CODE 100b */
	ST_RESULT_ABORTED_OTHER = 0x2, /* by the application client otherwise */
	ST_RESULT_SEGMENT_1 = 0x5,     /* the first segment failed */
	ST_RESULT_IN_PROGRESS = 0xf,
};

/* the segment of both tests: the reads */
#define ST_SEGMENT_READS 1

/* the Supported Diagnostic Pages page (SPC-4 7.2.2) */
#define DIAG_HDR_LEN	    4
#define DIAG_PAGE_SUPPORTED 0x00

struct st_job {
	struct sbc_op op;   /* op.cmd: the foreground command, NULL in the background */
	struct scsi_lu *lu; /* reference held by the job */
	uint8_t code;
	bool extended;
	bool reading;
	atomic_bool detached; /* ended by an abort, which recorded it */
	uint64_t cap;	      /* blocks */
	uint64_t lba;	      /* extended: the next block */
	uint64_t cur_lba;     /* the read in flight */
	unsigned sample;      /* short: the next sample */
	uint32_t buf_len;
	uint8_t *buf;
	uint64_t read_bytes, start_ns; /* pacing */
	struct reactor *r;
	struct reactor_timer pace;
};

/* ACCUMULATED POWER ON HOURS: the hour of the LU's life the test is in,
 * counted from 1 (rounded up). An entry of SELF-TEST CODE 000b, RESULTS 0h
 * and 0 hours is an unused one to sg_logs and smartctl: a default test that
 * passed in the first hour would vanish. */
static uint16_t st_hours(struct scsi_lu *lu)
{
	const uint64_t hour_ns = 3600ull * 1000000000ull;
	uint64_t h = (reactor_now_ns() - lu->sbc->created_ns) / hour_ns + 1;

	return h > 0xffff ? 0xffff : (uint16_t)h;
}

/* A new newest entry (lu->lock held). */
static void st_log_push_locked(struct scsi_lu *lu, uint8_t code)
{
	struct selftest_log *l = &lu->core->selftest;

	memmove(&l->v[1], &l->v[0], sizeof(l->v[0]) * (SELFTEST_LOG_LEN - 1));
	l->v[0] = (struct selftest_result){
	    .code = code,
	    .result = ST_RESULT_IN_PROGRESS,
	    .hours = st_hours(lu),
	    .first_failure = UINT64_MAX,
	};
	if (l->n < SELFTEST_LOG_LEN)
		l->n++;
}

/* The running test's entry (the newest) gets its result (lu->lock held). */
static struct selftest_result *st_log_end_locked(struct scsi_lu *lu, uint8_t result)
{
	struct selftest_result *e = &lu->core->selftest.v[0];

	e->result = result;
	e->hours = st_hours(lu);
	return e;
}

static void st_job_free(struct st_job *j)
{
	if (j->buf)
		buf_free(j->buf, j->buf_len);
	scsi_lu_put(j->lu);
	free(j);
}

static void st_idle_locked(struct sbc_lu_state *s)
{
	s->st_job = NULL;
	atomic_store_explicit(&s->st_progress, 0, memory_order_relaxed);
	atomic_store_explicit(&s->st_state, SBC_ST_IDLE, memory_order_release);
}

/* The end of the test: its result, the LU's state, then the foreground
 * command. fail: the back-store error of the read at cur_lba. */
static enum sbc_step st_end(struct st_job *j, uint8_t result, bool fail)
{
	struct scsi_lu *lu = j->lu;
	struct scsi_cmd *cmd = j->op.cmd;
	struct selftest_result *e;
	uint64_t first_failure = 0;
	enum sense_reason r;

	pthread_mutex_lock(&lu->lock);
	if (atomic_load(&j->detached)) {
		/* an abort ended it and recorded it */
		pthread_mutex_unlock(&lu->lock);
		st_job_free(j);
		return SBC_STEP_DONE;
	}
	e = st_log_end_locked(lu, result);
	if (fail) {
		/* the sense the read would have had (SPC-4 7.3.18: SENSE KEY,
		 * ADDITIONAL SENSE CODE and QUALIFIER of the failure) */
		int err = j->op.err;

		r = err == -EIO				? SENSE_UNRECOVERED_READ_ERROR
		    : (err == -ENODEV || err == -ENXIO) ? SENSE_LU_COMMUNICATION_FAILURE
							: SENSE_INTERNAL_TARGET_FAILURE;
		e->segment = ST_SEGMENT_READS;
		e->first_failure = j->op.io.bad_off != UINT64_MAX && err == -EIO
				       ? j->op.io.bad_off >> lu->block_shift
				       : j->cur_lba;
		e->key = sense_table[r].key;
		e->asc = sense_table[r].asc;
		e->ascq = sense_table[r].ascq;
		first_failure = e->first_failure;
	}
	st_idle_locked(lu->sbc);
	pthread_mutex_unlock(&lu->lock);
	if (fail)
		log_err("%s: self-test failed at LBA %llu (error %d)", scsi_lu_name(lu),
			(unsigned long long)first_failure, j->op.err);
	st_job_free(j);
	if (cmd)
		scsi_cmd_complete(cmd, result == ST_RESULT_OK ? SENSE_OK
				       : result == ST_RESULT_ABORTED_OTHER
					   ? SENSE_TASK_ABORTED
					   : SENSE_LU_FAILED_SELF_TEST);
	return SBC_STEP_DONE;
}

static void st_pace_fired(struct reactor_timer *t)
{
	sbc_op_run(&container_of(t, struct st_job, pace)->op);
}

uint16_t sbc_selftest_extended_seconds(struct scsi_lu *lu)
{
	uint64_t bytes = lu_nblocks(lu) << lu->block_shift;
	uint64_t s = (bytes + ST_READ_BYTES_PER_SEC - 1) / ST_READ_BYTES_PER_SEC;

	return s > 0xffff ? 0xffff : (uint16_t)s;
}

/* An extended test ahead of ST_READ_BYTES_PER_SEC: arm the timer, true. */
static bool st_pace(struct st_job *j)
{
	uint64_t due_ns, now = reactor_now_ns();

	if (!j->extended)
		return false;
	if (!j->read_bytes || !j->r) {
		j->start_ns = now;
		return false;
	}
	due_ns = j->start_ns + j->read_bytes * 1000000000ull / ST_READ_BYTES_PER_SEC;
	if (now >= due_ns)
		return false;
	reactor_timer_arm(j->r, &j->pace, due_ns - now);
	return true;
}

static enum sbc_step st_step(struct sbc_op *op)
{
	struct st_job *j = container_of(op, struct st_job, op);
	struct scsi_lu *lu = j->lu;
	uint64_t n, max = j->buf_len >> lu->block_shift, done, total;

	if (atomic_load(&j->detached))
		return st_end(j, ST_RESULT_ABORTED, false);
	/* SPC-4 5.6.3.2: an aborted foreground test ends */
	if (op->cmd && atomic_load(&op->cmd->priv.aborted))
		return st_end(j, ST_RESULT_ABORTED_OTHER, false);
	if (j->reading) {
		j->reading = false;
		if (op->err)
			return st_end(j, ST_RESULT_SEGMENT_1, true);
	}
	if (j->extended) {
		done = j->lba;
		total = j->cap;
	} else {
		done = j->sample;
		total = ST_SHORT_SAMPLES;
	}
	/* (an abort may detach the job meanwhile: then the next step ends
	 * it, and a test started since may briefly see this progress) */
	atomic_store_explicit(&lu->sbc->st_progress, (unsigned)(done * 65535u / total),
			      memory_order_relaxed);
	if (done == total)
		return st_end(j, ST_RESULT_OK, false);
	if (st_pace(j))
		return SBC_STEP_WAIT; /* st_pace_fired() runs the next step */
	n = UT_MIN(max, j->cap);
	if (j->extended) {
		n = UT_MIN(n, j->cap - j->lba);
		j->cur_lba = j->lba;
		j->lba += n;
	} else {
		/* sample i of ST_SHORT_SAMPLES at i/(samples-1) of the way */
		j->cur_lba = (j->cap - n) * j->sample / (ST_SHORT_SAMPLES - 1);
		j->sample++;
	}
	j->read_bytes += n << lu->block_shift;
	sbc_op_io(op, BS_OP_READ, j->cur_lba << lu->block_shift, n << lu->block_shift, j->buf, 0);
	j->reading = true;
	return SBC_STEP_IO;
}

/* End the background test as aborted with result; false when none runs. */
static bool st_abort(struct scsi_lu *lu, uint8_t result)
{
	struct sbc_lu_state *s = lu->sbc;
	struct st_job *j;

	pthread_mutex_lock(&lu->lock);
	j = s->st_job;
	if (!j || atomic_load(&s->st_state) != SBC_ST_BACKGROUND) {
		pthread_mutex_unlock(&lu->lock);
		return false;
	}
	st_log_end_locked(lu, result);
	/* the job frees itself at its next step, on its reactor */
	atomic_store(&j->detached, true);
	st_idle_locked(s);
	pthread_mutex_unlock(&lu->lock);
	log_notice("%s: background self-test aborted", scsi_lu_name(lu));
	return true;
}

void sbc_selftest_abort(struct scsi_lu *lu)
{
	st_abort(lu, ST_RESULT_ABORTED_OTHER);
}

/* ---- SEND DIAGNOSTIC ---- */

/* SEND DIAGNOSTIC 1Dh: byte 1 SELF-TEST CODE, PF, SELFTEST, DEVOFFL,
 * UNITOFFL; PARAMETER LIST LENGTH 3-4. */
enum sense_reason sbc_parse_send_diagnostic(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint8_t code = cdb_senddiag_selftest_code(cmd->cdb);
	uint16_t len = cdb_senddiag_param_list_len(cmd->cdb);

	p->data_dir = SCSI_DIR_NONE;
	p->data_len = 0;
	/* SPC-4 6.32.1: the default self-test has SELF-TEST CODE 000b; a
	 * self-test takes no parameter list */
	if (cdb_senddiag_selftest(cmd->cdb) && code)
		return cdb_invalid_field(cmd, SENDDIAG_FLAGS_BYTE, 7);
	if (cdb_senddiag_selftest(cmd->cdb) || code) {
		if (code != ST_CODE_DEFAULT && code != ST_CODE_BG_SHORT &&
		    code != ST_CODE_BG_EXTENDED && code != ST_CODE_ABORT &&
		    code != ST_CODE_FG_SHORT && code != ST_CODE_FG_EXTENDED)
			return cdb_invalid_field(cmd, SENDDIAG_FLAGS_BYTE, 7);
		if (len)
			return cdb_invalid_field(cmd, SENDDIAG_LENGTH_BYTE, -1);
		return SENSE_OK;
	}
	/* a diagnostic page list: in the page format only */
	if (len && !cdb_senddiag_pf(cmd->cdb))
		return cdb_invalid_field(cmd, SENDDIAG_FLAGS_BYTE, 4);
	p->data_dir = len ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	p->data_len = len;
	return SENSE_OK;
}

/* SPC-4 6.32.1 with SELFTEST=0, SELF-TEST CODE 000b: each page of the list
 * is a Supported Diagnostic Pages page (00h) with no page data. */
static enum sense_reason diag_pages(struct scsi_cmd *cmd)
{
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len, off = 0;

	if (cmd->write_len < len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	while (off < len) {
		if (len - off < DIAG_HDR_LEN)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (b[off] != DIAG_PAGE_SUPPORTED)
			return param_invalid_field(cmd, off, 7);
		if (get_be16(b + off + 2))
			return param_invalid_field(cmd, off + 2, -1);
		off += DIAG_HDR_LEN;
	}
	return SENSE_OK;
}

static void st_start(struct scsi_cmd *cmd, uint8_t code, bool foreground, bool extended)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct sbc_lu_state *s = lu->sbc;
	struct st_job *j;
	uint64_t bytes;

	j = calloc(1, sizeof(*j));
	if (!j) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	scsi_lu_get(lu);
	j->lu = lu;
	j->code = code;
	j->extended = extended;
	j->cap = lu_nblocks(lu);
	atomic_init(&j->detached, false);
	bytes = j->cap << lu->block_shift;
	j->buf_len =
	    (uint32_t)UT_MIN(bytes, (uint64_t)(extended ? SBC_CHUNK_BYTES : ST_SAMPLE_BYTES));
	j->buf = j->buf_len ? buf_alloc(j->buf_len) : NULL;
	if (!j->buf) {
		st_job_free(j);
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	sbc_op_init(&j->op, foreground ? cmd : NULL, cmd->reactor, st_step);
	j->op.lu = lu;
	j->r = cmd->reactor;
	reactor_timer_init(&j->pace, st_pace_fired);

	pthread_mutex_lock(&lu->lock);
	if (atomic_load(&s->st_state) != SBC_ST_IDLE) {
		/* another test got here first */
		pthread_mutex_unlock(&lu->lock);
		st_job_free(j);
		scsi_cmd_complete(cmd, SENSE_NOT_READY_SELF_TEST_IN_PROGRESS);
		return;
	}
	s->st_job = j;
	atomic_store_explicit(&s->st_progress, 0, memory_order_relaxed);
	atomic_store_explicit(&s->st_state, foreground ? SBC_ST_FOREGROUND : SBC_ST_BACKGROUND,
			      memory_order_release);
	st_log_push_locked(lu, code);
	pthread_mutex_unlock(&lu->lock);
	/* SPC-4 5.6.3.3: a background test's command completes once the CDB
	 * is validated */
	if (!foreground)
		scsi_cmd_complete(cmd, SENSE_OK);
	sbc_op_run(&j->op);
}

void sbc_exec_send_diagnostic(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct sbc_lu_state *s = lu->sbc;
	uint8_t code = cdb_senddiag_selftest_code(cmd->cdb);
	bool selftest = cdb_senddiag_selftest(cmd->cdb);
	struct sense_extra sx = {0};
	enum sense_reason r;

	if (code == ST_CODE_ABORT) {
		/* SPC-4 6.32.1: 100b with no background self-test running */
		if (!st_abort(lu, ST_RESULT_ABORTED)) {
			scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, SENDDIAG_FLAGS_BYTE, 7),
					     &p->sx);
			return;
		}
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (!selftest && code == ST_CODE_DEFAULT) {
		r = p->data_len ? diag_pages(cmd) : SENSE_OK;
		scsi_cmd_complete_sx(cmd, r, &p->sx);
		return;
	}
	/* SPC-4 5.6.3.3: another self-test while one runs in the background */
	if (atomic_load(&s->st_state) != SBC_ST_IDLE) {
		sx.progress_valid = true;
		sx.progress = (uint16_t)atomic_load(&s->st_progress);
		scsi_cmd_complete_sx(cmd, SENSE_NOT_READY_SELF_TEST_IN_PROGRESS, &sx);
		return;
	}
	/* the tests read the medium: not of a stopped unit, nor without one */
	r = medium_check(lu, cdb_opcode(OP_READ_16));
	if (r != SENSE_OK) {
		scsi_cmd_complete(cmd, r);
		return;
	}
	st_start(cmd, code, selftest || code == ST_CODE_FG_SHORT || code == ST_CODE_FG_EXTENDED,
		 code == ST_CODE_BG_EXTENDED || code == ST_CODE_FG_EXTENDED);
}

/* ---- RECEIVE DIAGNOSTIC RESULTS ---- */

/* RECEIVE DIAGNOSTIC RESULTS 1Ch: byte 1 PCV, PAGE CODE 2, ALLOCATION
 * LENGTH 3-4. */
enum sense_reason sbc_parse_receive_diagnostic(struct scsi_cmd *cmd)
{
	if (cdb_rdr_pcv(cmd->cdb) && cdb_rdr_page_code(cmd->cdb) != DIAG_PAGE_SUPPORTED)
		return cdb_invalid_field(cmd, RDR_PAGE_BYTE, 7);
	sbc_data_in(cmd, cdb_rdr_alloc_len(cmd->cdb), DIAG_HDR_LEN + 1);
	return SENSE_OK;
}

/* SPC-4 7.2.2 Supported Diagnostic Pages: PAGE CODE 00h, PAGE LENGTH, the
 * page codes supported: 00h. */
void sbc_exec_receive_diagnostic(struct scsi_cmd *cmd)
{
	uint8_t b[DIAG_HDR_LEN + 1] = {DIAG_PAGE_SUPPORTED, 0, 0, 1, DIAG_PAGE_SUPPORTED};

	scsi_cmd_set_data_in(cmd, b, sizeof(b));
	scsi_cmd_complete(cmd, SENSE_OK);
}
