/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c: VERIFY (10/12/16) (SBC-4 5.33-5.35) and WRITE AND VERIFY
 * (10/12/16) (SBC-4 5.44-5.46).
 *
 * BYTCHK (byte 1 bits 2-1):
 *   00b  medium verification only: every block of the range is read back
 *        (a medium error fails the command); no Data-Out for VERIFY
 *   01b  byte-by-byte comparison with the Data-Out Buffer (VERIFICATION /
 *        TRANSFER LENGTH blocks)
 *   10b  reserved: INVALID FIELD IN CDB
 *   11b  the Data-Out Buffer holds one block, compared with (VERIFY) or
 *        written to and then compared with (WRITE AND VERIFY) every block
 *        of the range
 * A mismatch ends the command with MISCOMPARE / MISCOMPARE DURING VERIFY
 * OPERATION, the INFORMATION field holding the offset of the first
 * differing byte from the start of the compared data (for 11b: from the
 * start of the range, as if the block were repeated).
 *
 * Protection information (SBC-4 5.33 tables "VRPROTECT field with BYTCHK
 * field set to ..."), VERIFY only (WRITE AND VERIFY's WRPROTECT is refused
 * by its usage mask), on an LU whose back-store keeps tuples:
 *   BYTCHK 00b: the tuples read with each chunk are checked against its
 *        data as VRPROTECT asks (pi_protect_checks(), as RDPROTECT):
 *        ABORTED COMMAND, LOGICAL BLOCK GUARD / APPLICATION TAG /
 *        REFERENCE TAG CHECK FAILED, INFORMATION the LBA;
 *   BYTCHK 01b, VRPROTECT 000b: the same medium checks, and the data
 *        compared as above;
 *   BYTCHK 01b, VRPROTECT other: the Data-Out holds a tuple after each
 *        block (sbc_xfer_unit()); those tuples are checked against the
 *        Data-Out's data first (ABORTED COMMAND as for a WRITE), then the
 *        data compared, then the fields VRPROTECT selects compared byte by
 *        byte with the stored tuple: MISCOMPARE with the PI check's ASC
 *        and the LBA; the medium's own tuples are not checked then;
 *   BYTCHK 11b with VRPROTECT other than 000b is not supported (INVALID
 *        FIELD IN CDB at VRPROTECT): its one block's tuple would have to
 *        be repeated with reference tags as WRITE SAME makes them.
 * Type 2 takes VRPROTECT other than 000b only in VERIFY(32) (sbc_pi_protect()).
 *
 * The range is read back in chunks of SBC_CHUNK_BYTES, so a VERIFY of any
 * length uses a bounded buffer. VERIFY holds a shared range lock, WRITE AND
 * VERIFY an exclusive one (nothing may change the blocks between the write
 * and the comparison). */
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/sbc_internal.h"

enum vstate {
	VS_LOCK = 0, /* take the range lock */
	VS_LOCKED,   /* the range lock is held (or was just granted) */
	VS_WRITE,    /* (WRITE AND VERIFY) writes submitted, chunk by chunk */
	VS_FLUSH,    /* (WRITE AND VERIFY) FLUSH submitted */
	VS_READ,     /* read-back of a chunk submitted */
};

struct verify_op {
	struct sbc_op op;
	enum vstate state;
	uint8_t bytchk;
	bool write;	  /* WRITE AND VERIFY */
	bool flush_after; /* durability by FLUSH (no BS_CAP_FUA) */
	uint8_t wflags;	  /* BS_IO_FUA or 0 */
	uint64_t start;	  /* first LBA */
	uint64_t end;	  /* LBA after the range */
	uint64_t lba;	  /* next LBA of the current pass */
	uint64_t chunk_lba;
	uint32_t chunk_blocks;
	uint8_t *buf; /* read-back (and 11b write pattern) chunk */
	uint32_t buf_len;
	uint8_t *pattern; /* 11b: chunk filled with the block, for writing */
	uint32_t pattern_len;
	/* protection information (VERIFY on a BS_CAP_PI LU) */
	uint8_t *tuples;     /* the tuples of the chunk read (io.pi) */
	uint8_t *out_tuples; /* VRPROTECT != 000b, BYTCHK 01b: the Data-Out's */
	struct pi_expect expect;
};

static void verify_free(struct scsi_cmd *cmd)
{
	struct verify_op *vo = cmd->priv.op;

	if (vo->buf)
		buf_free(vo->buf, vo->buf_len);
	if (vo->pattern)
		buf_free(vo->pattern, vo->pattern_len);
	free(vo->tuples);
	free(vo->out_tuples);
	free(vo);
}

/* BYTCHK: byte 1, or byte 10 of VERIFY(32) */
static uint8_t verify_bytchk(const struct scsi_cmd *cmd)
{
	if (cdb_op(cmd->cdb) == OP_VARIABLE_LENGTH)
		return cdb32_bytchk(cmd->cdb);
	return cdb_verify_bytchk(cmd->cdb);
}

enum sense_reason sbc_verify_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n,
				   unsigned len_byte, bool write, uint8_t protect,
				   unsigned protect_byte, uint8_t bytchk, uint8_t io_flags)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	enum sense_reason r;

	if (bytchk == 2)
		return cdb_invalid_field(cmd, protect_byte, 2);
	r = sbc_pi_protect(cmd, protect, protect_byte);
	if (r != SENSE_OK)
		return r;
	/* the tuples travel only with a Data-Out of blocks (BYTCHK 01b) */
	if (bytchk == 3 && p->pi.transfer)
		return cdb_invalid_field(cmd, protect_byte, 7);
	if (bytchk != 1)
		p->pi.transfer = false;
	if (bytchk == 3) {
		/* a write of the range from one block: bounded like WRITE SAME
		 * (VPD B0h MAXIMUM WRITE SAME LENGTH); a comparison of any length */
		if (write && n > sbc_bytes_to_blocks(lu, SBC_MAX_WRITE_SAME_BYTES))
			return cdb_invalid_field(cmd, len_byte, -1);
	} else if ((write || bytchk == 1) && n > sbc_max_xfer_blocks(lu)) {
		return cdb_invalid_field(cmd, len_byte, -1);
	}
	r = sbc_check_range(lu, lba, n);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	p->nblocks = n;
	p->io_flags = io_flags; /* DPO: the usage mask refuses FUA */
	if (n == 0 || (bytchk == 0 && !write))
		p->data_len = 0;
	else if (bytchk == 3)
		p->data_len = lu->block_size;
	else
		p->data_len = n * sbc_xfer_unit(p);
	p->data_dir = p->data_len ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	return SENSE_OK;
}

/* The 10-, 12- and 16-byte forms: VRPROTECT, DPO and BYTCHK in byte 1
 * (WRITE AND VERIFY's WRPROTECT is refused by its usage mask). */
static enum sense_reason verify_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n,
				      unsigned len_byte, bool write)
{
	return sbc_verify_setup(cmd, lba, n, len_byte, write, write ? 0 : cdb_protect(cmd->cdb),
				CDB_DPO_FUA_BYTE, cdb_verify_bytchk(cmd->cdb),
				sbc_io_flags(cmd->cdb));
}

/* VERIFY(10) 2Fh: LBA 2-5, VERIFICATION LENGTH 7-8 */
enum sense_reason sbc_parse_verify10(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb10_lba(cmd->cdb), cdb10_length(cmd->cdb), CDB10_LENGTH_BYTE,
			    false);
}

/* VERIFY(12) AFh: LBA 2-5, VERIFICATION LENGTH 6-9 */
enum sense_reason sbc_parse_verify12(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb12_lba(cmd->cdb), cdb12_length(cmd->cdb), CDB12_LENGTH_BYTE,
			    false);
}

/* VERIFY(16) 8Fh: LBA 2-9, VERIFICATION LENGTH 10-13 */
enum sense_reason sbc_parse_verify16(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb16_lba(cmd->cdb), cdb16_length(cmd->cdb), CDB16_LENGTH_BYTE,
			    false);
}

/* WRITE AND VERIFY (10/12/16) 2Eh/AEh/8Eh: as VERIFY, TRANSFER LENGTH */
enum sense_reason sbc_parse_write_verify10(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb10_lba(cmd->cdb), cdb10_transfer_length(cmd->cdb),
			    CDB10_LENGTH_BYTE, true);
}

enum sense_reason sbc_parse_write_verify12(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb12_lba(cmd->cdb), cdb12_transfer_length(cmd->cdb),
			    CDB12_LENGTH_BYTE, true);
}

enum sense_reason sbc_parse_write_verify16(struct scsi_cmd *cmd)
{
	return verify_setup(cmd, cdb16_lba(cmd->cdb), cdb16_transfer_length(cmd->cdb),
			    CDB16_LENGTH_BYTE, true);
}

/* Compare the chunk just read with the expected data; on a mismatch the
 * offset of its first differing byte (from the start of the compared data)
 * goes to *off. */
static bool verify_compare(struct verify_op *vo, uint64_t *off)
{
	struct scsi_cmd *cmd = vo->op.cmd;
	uint32_t shift = vo->op.lu->block_shift;
	uint32_t bs = 1u << shift;
	uint64_t base = (vo->chunk_lba - vo->start) << shift;
	size_t len = (size_t)vo->chunk_blocks << shift;
	size_t d;

	if (vo->bytchk == 1) {
		d = sbc_first_diff(vo->buf, cmd->buf + base, len);
		if (d < len) {
			*off = base + d;
			return false;
		}
		return true;
	}
	for (size_t b = 0; b < len; b += bs) {
		d = sbc_first_diff(vo->buf + b, cmd->buf, bs);
		if (d < bs) {
			*off = base + b + d;
			return false;
		}
	}
	return true;
}

/* Next write of WRITE AND VERIFY: the Data-Out (00b/01b) at once, or the
 * repeated block (11b) chunk by chunk. */
static enum sbc_step verify_next_write(struct verify_op *vo)
{
	struct sbc_op *op = &vo->op;
	uint32_t shift = op->lu->block_shift;
	uint64_t n;

	if (vo->bytchk != 3) {
		n = vo->end - vo->start;
		sbc_op_io(op, BS_OP_WRITE, vo->start << shift, n << shift, op->cmd->buf,
			  vo->wflags);
	} else {
		n = UT_MIN(vo->end - vo->lba, (uint64_t)(vo->pattern_len >> shift));
		sbc_op_io(op, BS_OP_WRITE, vo->lba << shift, n << shift, vo->pattern, vo->wflags);
	}
	vo->lba += n;
	vo->state = VS_WRITE;
	return SBC_STEP_IO;
}

static enum sbc_step verify_next_read(struct verify_op *vo)
{
	struct sbc_op *op = &vo->op;
	uint32_t shift = op->lu->block_shift;
	uint64_t n = UT_MIN(vo->end - vo->lba, (uint64_t)(vo->buf_len >> shift));

	vo->chunk_lba = vo->lba;
	vo->chunk_blocks = (uint32_t)n;
	sbc_op_io(op, BS_OP_READ, vo->lba << shift, n << shift, vo->buf, 0);
	op->io.pi = vo->tuples; /* NULL: no protection information asked */
	vo->lba += n;
	vo->state = VS_READ;
	return SBC_STEP_IO;
}

static enum sbc_step verify_start_reads(struct verify_op *vo)
{
	vo->lba = vo->start;
	return verify_next_read(vo);
}

/* SBC-4 5.33 tables 210/211 (VRPROTECT other than 000b, BYTCHK 01b): the
 * fields VRPROTECT selects, compared byte by byte between the Data-Out's
 * tuples and the stored ones of the chunk just read. */
static enum sense_reason verify_compare_tuples(struct verify_op *vo, uint64_t *bad)
{
	const struct pi_checks *c = &vo->op.cmd->priv.pi;
	const uint8_t *out = vo->out_tuples + (vo->chunk_lba - vo->start) * T10PI_TUPLE_LEN;

	for (uint32_t i = 0; i < vo->chunk_blocks; i++) {
		const uint8_t *m = vo->tuples + (size_t)i * T10PI_TUPLE_LEN;
		const uint8_t *o = out + (size_t)i * T10PI_TUPLE_LEN;

		*bad = vo->chunk_lba + i;
		if (c->guard && memcmp(m, o, 2))
			return SENSE_MISCOMPARE_PI_GUARD;
		if (c->app && memcmp(m + 2, o + 2, 2))
			return SENSE_MISCOMPARE_PI_APP_TAG;
		if (c->ref && memcmp(m + 4, o + 4, 4))
			return SENSE_MISCOMPARE_PI_REF_TAG;
	}
	return SENSE_OK;
}

/* The tuples of the chunk just read against its data (BYTCHK 00b, or
 * VRPROTECT 000b), as VRPROTECT asks; the expected reference tag of the
 * chunk's first block is the command's + its distance from the start. */
static enum sense_reason verify_medium_tuples(struct verify_op *vo, uint64_t *bad)
{
	const struct scsi_cmd_priv *p = &vo->op.cmd->priv;
	struct pi_expect e = vo->expect;
	enum sense_reason r;
	uint64_t i;

	e.ref += (uint32_t)(vo->chunk_lba - vo->start);
	r = pi_verify(vo->buf, vo->tuples, vo->op.lu->block_size, vo->chunk_blocks, &e, &p->pi, &i);
	*bad = vo->chunk_lba + i;
	return r;
}

static enum sbc_step verify_step(struct sbc_op *op)
{
	struct verify_op *vo = container_of(op, struct verify_op, op);
	uint64_t off;

	switch (vo->state) {
	case VS_LOCK:
		vo->state = VS_LOCKED;
		if (!sbc_range_lock(op->lu, &op->rl, vo->start, vo->end - vo->start, vo->write))
			return SBC_STEP_WAIT; /* the grant runs this step again */
		UT_FALLTHROUGH;
	case VS_LOCKED:
		if (!vo->write)
			return verify_start_reads(vo);
		vo->lba = vo->start;
		return verify_next_write(vo);
	case VS_WRITE:
		if (op->err)
			return sbc_op_bs_error(op, true);
		if (vo->lba < vo->end)
			return verify_next_write(vo);
		if (vo->flush_after) {
			sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
			vo->state = VS_FLUSH;
			return SBC_STEP_IO;
		}
		return verify_start_reads(vo);
	case VS_FLUSH:
		if (op->err)
			return sbc_op_bs_error(op, true);
		return verify_start_reads(vo);
	case VS_READ:
		if (op->err)
			return sbc_op_bs_error(op, false);
		/* the verify error counter log page's TOTAL BYTES PROCESSED */
		log_count_verify_bytes(op->lu, (uint64_t)vo->chunk_blocks << op->lu->block_shift);
		if (vo->tuples && !vo->out_tuples) {
			enum sense_reason r = verify_medium_tuples(vo, &off);
			struct sense_extra sx = {.info_valid = true, .info = off};

			if (r != SENSE_OK)
				return sbc_op_finish(op, r, &sx);
		}
		if (vo->bytchk && !verify_compare(vo, &off)) {
			struct sense_extra sx = {.info_valid = true, .info = off};

			return sbc_op_finish(op, SENSE_MISCOMPARE_DURING_VERIFY, &sx);
		}
		if (vo->out_tuples) {
			enum sense_reason r = verify_compare_tuples(vo, &off);
			struct sense_extra sx = {.info_valid = true, .info = off};

			if (r != SENSE_OK)
				return sbc_op_finish(op, r, &sx);
		}
		if (vo->lba < vo->end)
			return verify_next_read(vo);
		return sbc_op_finish(op, SENSE_OK, NULL);
	}
	return sbc_op_finish(op, SENSE_INTERNAL_TARGET_FAILURE, NULL);
}

static void verify_start(struct scsi_cmd *cmd, bool write)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint8_t bytchk = verify_bytchk(cmd);
	bool pi = !write && (lu->bs->caps & BS_CAP_PI);
	uint64_t n = p->nblocks, bad;
	struct verify_op *vo;
	enum sense_reason r;

	/* Data-Out of the block forms: only whole blocks received count */
	if ((write || bytchk == 1) && bytchk != 3)
		n = sbc_blocks_received(cmd);
	if (bytchk == 3 && cmd->write_len < lu->block_size)
		n = 0;
	/* SBC-4 5.33, 5.44: a length of zero is not an error */
	if (n == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	vo = calloc(1, sizeof(*vo));
	if (!vo) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = vo;
	p->op_free = verify_free;
	vo->bytchk = bytchk;
	vo->write = write;
	vo->start = p->lba;
	vo->end = p->lba + n;
	vo->buf_len = (uint32_t)UT_MIN(n << lu->block_shift, (uint64_t)SBC_CHUNK_BYTES);
	vo->buf = buf_alloc(vo->buf_len);
	if (write && bytchk == 3) {
		vo->pattern_len = vo->buf_len;
		vo->pattern = buf_alloc(vo->pattern_len);
		for (uint32_t b = 0; vo->pattern && b < vo->pattern_len; b += lu->block_size)
			memcpy(vo->pattern + b, cmd->buf, lu->block_size);
	}
	if (pi) {
		vo->expect = sbc_pi_expect(p);
		vo->tuples = malloc((vo->buf_len >> lu->block_shift) * T10PI_TUPLE_LEN);
		if (vo->tuples && p->pi.transfer)
			vo->out_tuples = malloc(n * T10PI_TUPLE_LEN);
	}
	if (!vo->buf || (write && bytchk == 3 && !vo->pattern) || (pi && !vo->tuples) ||
	    (pi && p->pi.transfer && !vo->out_tuples)) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	if (vo->out_tuples) {
		/* SBC-4 5.33 table 210: the Data-Out's tuples against its data,
		 * before anything is read; then the data alone is compared */
		t10pi_split(cmd->buf, vo->out_tuples, lu->block_size, n);
		r = pi_verify(cmd->buf, vo->out_tuples, lu->block_size, n, &vo->expect, &p->pi,
			      &bad);
		if (r != SENSE_OK) {
			scsi_cmd_complete_info(cmd, r, p->lba + bad);
			return;
		}
	}
	/* SBC-4 5.44: the data is on the medium before it is verified */
	vo->wflags = sbc_fua_flags(lu, true, &vo->flush_after);
	sbc_op_init(&vo->op, cmd, cmd->reactor, verify_step);
	vo->state = VS_LOCK;
	sbc_op_run(&vo->op);
}

void sbc_exec_verify(struct scsi_cmd *cmd)
{
	verify_start(cmd, false);
}

void sbc_exec_write_verify(struct scsi_cmd *cmd)
{
	verify_start(cmd, true);
}
