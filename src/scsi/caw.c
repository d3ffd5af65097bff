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
 * ORWRITE: the blocks are read, ORed with the Data-Out Buffer and written. */
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "scsi/limits.h"
#include "scsi/sbc_internal.h"

enum rmw_state {
	RMW_LOCK = 0,
	RMW_LOCKED,
	RMW_READ,
	RMW_WRITE,
	RMW_FLUSH,
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
};

static void rmw_free(struct scsi_cmd *cmd)
{
	struct rmw_op *ro = cmd->priv.op;

	if (ro->tmp)
		buf_free(ro->tmp, ro->tmp_len);
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
	p->lba = lba;
	p->nblocks = n;
	p->io_flags = sbc_io_flags(cmd->cdb);
	p->data_len = (2 * n) << lu->block_shift;
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

static enum sbc_step rmw_step(struct sbc_op *op)
{
	struct rmw_op *ro = container_of(op, struct rmw_op, op);
	struct scsi_cmd *cmd = op->cmd;
	uint32_t shift = op->lu->block_shift;
	size_t len = (size_t)ro->nblocks << shift;
	bool flush;
	uint8_t wflags;
	const uint8_t *wdata;

	switch (ro->state) {
	case RMW_LOCK:
		ro->state = RMW_LOCKED;
		if (!sbc_range_lock(op->lu, &op->rl, ro->lba, ro->nblocks, true))
			return SBC_STEP_WAIT;
		UT_FALLTHROUGH;
	case RMW_LOCKED:
		sbc_op_io(op, BS_OP_READ, ro->lba << shift, len, ro->tmp, 0);
		ro->state = RMW_READ;
		return SBC_STEP_IO;
	case RMW_READ:
		if (op->err)
			return sbc_op_bs_error(op, false);
		if (ro->caw) {
			size_t d = sbc_first_diff(ro->tmp, cmd->buf, len);

			if (d < len) {
				struct sense_extra sx = {.info_valid = true, .info = d};

				return sbc_op_finish(op, SENSE_MISCOMPARE_DURING_VERIFY, &sx);
			}
			wdata = cmd->buf + len;
		} else {
			for (size_t i = 0; i < len; i++)
				ro->tmp[i] |= cmd->buf[i];
			wdata = ro->tmp;
		}
		wflags =
		    sbc_fua_flags(op->lu, sbc_write_durable(op->lu, cmd->priv.io_flags), &flush);
		ro->flush_after = flush;
		sbc_op_io(op, BS_OP_WRITE, ro->lba << shift, len, (void *)wdata, wflags);
		ro->state = RMW_WRITE;
		return SBC_STEP_IO;
	case RMW_WRITE:
		if (op->err)
			return sbc_op_bs_error(op, true);
		if (ro->flush_after) {
			sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
			ro->state = RMW_FLUSH;
			return SBC_STEP_IO;
		}
		return sbc_op_finish(op, SENSE_OK, NULL);
	case RMW_FLUSH:
		if (op->err)
			return sbc_op_bs_error(op, true);
		return sbc_op_finish(op, SENSE_OK, NULL);
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
