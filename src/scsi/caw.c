/* SPDX-License-Identifier: GPL-2.0-or-later */
/* caw.c: COMPARE AND WRITE (SBC-4 5.3) and ORWRITE (16) (SBC-4 5.8), the
 * read-modify-write commands.
 *
 * Atomicity: both run under an exclusive LBA range lock (sbc.c), which every
 * other medium access to an overlapping range (READ, WRITE, WRITE SAME,
 * UNMAP, WRITE ATOMIC, VERIFY, ... from any I_T nexus and reactor thread)
 * waits for, and which itself waits for those already in progress. So no
 * write can slip between the read and the write of a COMPARE AND WRITE, and
 * no read can see half of it (SBC-4 5.3: the compare and write operations
 * are performed as an uninterrupted series of actions).
 *
 * COMPARE AND WRITE: the Data-Out Buffer holds NUMBER OF LOGICAL BLOCKS
 * blocks of verify data followed by as many blocks of write data. The blocks
 * are read and compared; on the first difference the command ends with
 * MISCOMPARE / MISCOMPARE DURING VERIFY OPERATION and the INFORMATION field
 * set to the offset of that byte in the verify data, nothing written.
 * ORWRITE: the blocks are read, ORed with the Data-Out Buffer and written.
 *
 * Protection information (SBC-4 5.3, 4.22), COMPARE AND WRITE on an LU
 * formatted with it: the blocks are read with their tuples, checked as READ
 * with RDPROTECT 000b would check them (guard; reference tag on type 1).
 * WRPROTECT 000b: the Data-Out holds data only and the back-store generates
 * the written tuples. Otherwise each block of the verify instance and of
 * the write instance is followed by its tuple (2 x n x (bs + 8) bytes); the
 * tuples of both instances are checked as WRPROTECT asks (ABORTED COMMAND,
 * 10h/01h-03h, INFORMATION the LBA) before the medium is read, only the
 * user data of the verify instance is compared, and the write instance's
 * tuples are written with its data. This is the conservative reading: the
 * SBC-4 text on which checks apply to the verify instance's tuples and
 * whether they are compared could not be confirmed here; checking them and
 * comparing only the data refuses nothing a consistent initiator sends.
 * Type 2 takes WRPROTECT 000b only (no 32-byte COMPARE AND WRITE carries the
 * expected tags: sbc_pi_protect()).
 *
 * A back-store shared with other targets (rbd: several gateways to one
 * image) makes the range lock, which is this daemon's alone, not enough:
 * one with BS_CAP_COMPARE_WRITE does the compare and the write itself,
 * atomically for every client of the medium (BS_OP_COMPARE_WRITE), still
 * under the range lock. Where it cannot for a range (-EOPNOTSUPP) or with
 * protection information, the read-compare-write below runs instead. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "scsi/limits.h"
#include "scsi/pi.h"
#include "scsi/sbc_internal.h"

enum rmw_state {
	RMW_LOCK = 0,
	RMW_LOCKED,
	RMW_READ,
	RMW_WRITE,
	RMW_FLUSH,
	RMW_NATIVE,  /* BS_OP_COMPARE_WRITE in flight */
	RMW_EMULATE, /* read, compare, write (the range is locked) */
};

struct rmw_op {
	struct sbc_op op;
	enum rmw_state state;
	bool caw; /* COMPARE AND WRITE, else ORWRITE */
	bool flush_after;
	uint64_t lba;
	uint32_t nblocks;
	uint8_t *tmp; /* the blocks read */
	uint32_t tmp_len;
	uint8_t *pi;		 /* COMPARE AND WRITE on a PI LU: the tuples read, then the
				  * verify and write instances' (3 x nblocks x 8 bytes) */
	struct iovec caw_iov[2]; /* BS_OP_COMPARE_WRITE: verify, write data */
};

static void rmw_free(struct scsi_cmd *cmd)
{
	struct rmw_op *ro = cmd->priv.op;

	if (ro->tmp)
		buf_free(ro->tmp, ro->tmp_len);
	free(ro->pi);
	free(ro);
}

/* COMPARE AND WRITE 89h: byte 1 WRPROTECT, DPO, FUA, FUA_NV; LBA 2-9;
 * NUMBER OF LOGICAL BLOCKS 13; GROUP NUMBER 14. */
enum sense_reason sbc_parse_caw(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint64_t lba = cdb16_lba(cmd->cdb);
	uint32_t n = cdb_caw_nblocks(cmd->cdb);
	enum sense_reason r;

	/* SBC-4 5.3: beyond MAXIMUM COMPARE AND WRITE LENGTH (VPD B0h) */
	if (n > SBC_MAX_CAW_BLOCKS)
		return cdb_invalid_field(cmd, CAW_NBLOCKS_BYTE, -1);
	r = sbc_check_range(lu, lba, n);
	if (r != SENSE_OK)
		return r;
	/* WRPROTECT: without protection information only 000b (INVALID
	 * FIELD IN CDB), type 2 only 000b (sbc_pi_protect()) */
	r = sbc_pi_protect(cmd, cmd->cdb[1] >> 5, 1);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	p->nblocks = n;
	p->io_flags = sbc_io_flags(cmd->cdb);
	p->data_len = 2 * n * (lu->block_size + (p->pi.transfer ? T10PI_TUPLE_LEN : 0));
	p->data_dir = n ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	/* verify and write data come together: a Data-Out of another size
	 * than 2 x NUMBER OF LOGICAL BLOCKS cannot be split (libiscsi
	 * CompareAndWrite.InvalidDataOutSize; CompareAndWrite.Simple sends 256
	 * blocks, which the one-byte field turns into 0, with the Data-Out of
	 * 256) */
	if (cmd->exp_len != p->data_len)
		return cdb_invalid_field(cmd, CAW_NBLOCKS_BYTE, -1);
	return SENSE_OK;
}

/* ORWRITE (16) 8Bh: byte 1 ORPROTECT, DPO, FUA, FUA_NV; LBA 2-9; TRANSFER
 * LENGTH 10-13; GROUP NUMBER 14. */
enum sense_reason sbc_parse_orwrite16(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint64_t lba = cdb16_lba(cmd->cdb);
	uint32_t n = cdb16_transfer_length(cmd->cdb);
	enum sense_reason r;

	if (n > sbc_max_xfer_blocks(lu))
		return cdb_invalid_field(cmd, CDB16_LENGTH_BYTE, -1);
	r = sbc_check_range(lu, lba, n);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	p->nblocks = n;
	p->io_flags = sbc_io_flags(cmd->cdb);
	p->data_len = n << lu->block_shift;
	p->data_dir = n ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	return SENSE_OK;
}

/* The tuples read from the medium, as READ with RDPROTECT 000b checks
 * them (SBC-4 4.22: guard, and the LBA's low 32 bits as the reference tag
 * on type 1; escape tuples unchecked). */
static enum sense_reason caw_check_medium(struct rmw_op *ro, uint64_t *bad_lba)
{
	struct scsi_lu *lu = ro->op.lu;
	uint8_t type = lu_pi_type(lu);
	struct pi_expect e = {.type = type, .ref = (uint32_t)ro->lba};
	struct pi_checks c;
	enum sense_reason r;
	uint64_t bad = 0;

	if (!pi_protect_checks(type, 0, &c))
		return SENSE_OK;
	c.ref = c.ref && type == T10PI_TYPE1;
	r = pi_verify(ro->tmp, ro->pi, lu->block_size, ro->nblocks, &e, &c, &bad);
	*bad_lba = ro->lba + bad;
	return r;
}

/* WRPROTECT other than 000b: split both instances' tuples off in place
 * (the verify instance's data then at buf, the write instance's at
 * buf + n x (bs + 8)) and check them as WRPROTECT asks. */
static enum sense_reason caw_split_check(struct scsi_cmd *cmd, struct rmw_op *ro, uint64_t *bad_lba)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t bs = p->lu->block_size;
	size_t unit = (size_t)bs + T10PI_TUPLE_LEN;
	struct pi_expect e = sbc_pi_expect(p);
	uint8_t *vt = ro->pi + (size_t)ro->nblocks * T10PI_TUPLE_LEN;
	uint8_t *wt = vt + (size_t)ro->nblocks * T10PI_TUPLE_LEN;
	enum sense_reason r;
	uint64_t bad = 0;

	t10pi_split(cmd->buf, vt, bs, ro->nblocks);
	t10pi_split(cmd->buf + ro->nblocks * unit, wt, bs, ro->nblocks);
	r = pi_verify(cmd->buf, vt, bs, ro->nblocks, &e, &p->pi, &bad);
	if (r == SENSE_OK)
		r = pi_verify(cmd->buf + ro->nblocks * unit, wt, bs, ro->nblocks, &e, &p->pi, &bad);
	*bad_lba = p->lba + bad;
	return r;
}

/* The blocks are written: flush them when the write must be durable and
 * the back-store has no FUA of its own. */
static enum sbc_step rmw_step_written(struct sbc_op *op, struct rmw_op *ro)
{
	if (ro->flush_after) {
		sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
		ro->state = RMW_FLUSH;
		return SBC_STEP_IO;
	}
	return sbc_op_finish(op, SENSE_OK, NULL);
}

static enum sbc_step rmw_step(struct sbc_op *op)
{
	struct rmw_op *ro = container_of(op, struct rmw_op, op);
	struct scsi_cmd *cmd = op->cmd;
	uint32_t shift = op->lu->block_shift;
	size_t len = (size_t)ro->nblocks << shift;
	bool flush;
	uint8_t wflags;
	const uint8_t *wdata;
	uint64_t bad;

	switch (ro->state) {
	case RMW_LOCK:
		ro->state = RMW_LOCKED;
		if (!sbc_range_lock(op->lu, &op->rl, ro->lba, ro->nblocks, true))
			return SBC_STEP_WAIT;
		UT_FALLTHROUGH;
	case RMW_LOCKED:
		if (ro->caw && !ro->pi && (op->lu->bs->caps & BS_CAP_COMPARE_WRITE)) {
			wflags = sbc_fua_flags(
			    op->lu, sbc_write_durable(op->lu, cmd->priv.io_flags), &flush);
			ro->flush_after = flush;
			sbc_op_io(op, BS_OP_COMPARE_WRITE, ro->lba << shift, len, NULL, wflags);
			ro->caw_iov[0] = (struct iovec){cmd->buf, len};
			ro->caw_iov[1] = (struct iovec){cmd->buf + len, len};
			op->io.iov = ro->caw_iov;
			op->io.iovcnt = 2;
			ro->state = RMW_NATIVE;
			return SBC_STEP_IO;
		}
		UT_FALLTHROUGH;
	case RMW_EMULATE:
		sbc_op_io(op, BS_OP_READ, ro->lba << shift, len, ro->tmp, 0);
		op->io.pi = ro->pi; /* the stored tuples, checked below */
		ro->state = RMW_READ;
		return SBC_STEP_IO;
	case RMW_READ:
		if (op->err)
			return sbc_op_bs_error(op, false);
		if (ro->caw) {
			size_t d;

			if (ro->pi) {
				enum sense_reason r = caw_check_medium(ro, &bad);

				if (r != SENSE_OK) {
					struct sense_extra sx = {.info_valid = true, .info = bad};

					return sbc_op_finish(op, r, &sx);
				}
			}
			d = sbc_first_diff(ro->tmp, cmd->buf, len);

			if (d < len) {
				struct sense_extra sx = {.info_valid = true, .info = d};

				return sbc_op_finish(op, SENSE_MISCOMPARE_DURING_VERIFY, &sx);
			}
			wdata = cmd->buf + (cmd->priv.pi.transfer
						? len + (size_t)ro->nblocks * T10PI_TUPLE_LEN
						: len);
		} else {
			for (size_t i = 0; i < len; i++)
				ro->tmp[i] |= cmd->buf[i];
			wdata = ro->tmp;
		}
		wflags =
		    sbc_fua_flags(op->lu, sbc_write_durable(op->lu, cmd->priv.io_flags), &flush);
		ro->flush_after = flush;
		sbc_op_io(op, BS_OP_WRITE, ro->lba << shift, len, (void *)wdata, wflags);
		/* the write instance's tuples, else generated (backstore/pi.h) */
		if (ro->caw && ro->pi && cmd->priv.pi.transfer)
			op->io.pi = ro->pi + 2 * (size_t)ro->nblocks * T10PI_TUPLE_LEN;
		ro->state = RMW_WRITE;
		return SBC_STEP_IO;
	case RMW_WRITE:
		if (op->err)
			return sbc_op_bs_error(op, true);
		return rmw_step_written(op, ro);
	case RMW_FLUSH:
		if (op->err)
			return sbc_op_bs_error(op, true);
		return sbc_op_finish(op, SENSE_OK, NULL);
	case RMW_NATIVE:
		if (op->err == -EOPNOTSUPP) {
			ro->state = RMW_EMULATE;
			return rmw_step(op);
		}
		if (op->err == -EILSEQ) {
			struct sense_extra sx = {.info_valid = true, .info = op->io.bad_off};

			return sbc_op_finish(op, SENSE_MISCOMPARE_DURING_VERIFY, &sx);
		}
		if (op->err)
			return sbc_op_bs_error(op, true);
		return rmw_step_written(op, ro);
	}
	return sbc_op_finish(op, SENSE_INTERNAL_TARGET_FAILURE, NULL);
}

static void rmw_start(struct scsi_cmd *cmd, bool caw)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t n = caw ? p->nblocks : sbc_blocks_received(cmd);
	struct rmw_op *ro;

	/* SBC-4 5.3, 5.8: zero blocks is not an error; nothing is read */
	if (n == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	ro = calloc(1, sizeof(*ro));
	if (!ro) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = ro;
	p->op_free = rmw_free;
	ro->caw = caw;
	ro->lba = p->lba;
	ro->nblocks = n;
	ro->tmp_len = n << p->lu->block_shift;
	ro->tmp = buf_alloc(ro->tmp_len);
	if (!ro->tmp) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	sbc_op_init(&ro->op, cmd, cmd->reactor, rmw_step);
	if (caw && lu_pi_type(p->lu) && (p->lu->bs->caps & BS_CAP_PI)) {
		ro->pi = malloc(3 * (size_t)n * T10PI_TUPLE_LEN);
		if (!ro->pi) {
			scsi_cmd_complete(cmd, SENSE_BUSY);
			return;
		}
		if (p->pi.transfer) {
			uint64_t bad;
			enum sense_reason r = caw_split_check(cmd, ro, &bad);

			if (r != SENSE_OK) {
				struct sense_extra sx = {.info_valid = true, .info = bad};

				scsi_cmd_complete_sx(cmd, r, &sx);
				return;
			}
		}
	}
	ro->state = RMW_LOCK;
	sbc_op_run(&ro->op);
}

void sbc_exec_caw(struct scsi_cmd *cmd)
{
	rmw_start(cmd, true);
}

void sbc_exec_orwrite(struct scsi_cmd *cmd)
{
	rmw_start(cmd, false);
}
