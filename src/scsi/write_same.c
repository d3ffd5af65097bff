/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_same.c: WRITE SAME (10) and (16) (SBC-4 5.50, 5.51).
 *
 * One block from the Data-Out Buffer (or, NDOB=1, none: zeroes, since LBPRZ
 * is xx1b) is written to every LBA of the range. ANCHOR/UNMAP (SBC-4 table
 * 237): on a thin provisioned LU, UNMAP=1 deallocates the range (the blocks
 * then read as zeroes, LBPRZ, whatever the Data-Out held: libiscsi
 * WriteSame10.UnmapUntilEnd sends FFh blocks and reads zeroes back); a
 * back-store that cannot deallocate gets zeroes written. A fully provisioned
 * LU does not implement the UNMAP bit (LBPME=0, LBPWS/LBPWS10=0): the block
 * is written as with UNMAP=0. ANCHOR=1 is refused (ANC_SUP=0 in VPD B2h). A
 * NUMBER OF LOGICAL BLOCKS of zero (WSNZ=0) means up to the last LBA; every
 * range is limited to MAXIMUM WRITE SAME LENGTH (VPD B0h,
 * SBC_MAX_WRITE_SAME_BYTES).
 *
 * The range is written in chunks of at most SBC_CHUNK_BYTES from one
 * buffer holding the block repeated (all-zero writes use the shared zero
 * chunk, or BS_OP_WRITE_ZEROES when the back-store has it), under a shared
 * range lock held for the whole command; a back-store with
 * BS_CAP_WRITE_SAME (rbd: the OSDs replicate the block) gets the block and
 * the whole range in one BS_OP_WRITE_SAME instead. With the write cache
 * disabled a FLUSH ends the command. */
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "scsi/limits.h"
#include "scsi/sbc_internal.h"

enum ws_mode {
	WS_WRITE,   /* write the pattern chunk */
	WS_ZEROES,  /* BS_OP_WRITE_ZEROES */
	WS_DISCARD, /* BS_OP_DISCARD */
	WS_SAME,    /* BS_OP_WRITE_SAME of the Data-Out block */
};

enum ws_state {
	WSS_LOCK = 0,
	WSS_LOCKED,
	WSS_IO,
	WSS_FLUSH,
};

struct ws_op {
	struct sbc_op op;
	enum ws_state state;
	enum ws_mode mode;
	uint64_t start, lba, end;
	uint8_t *chunk; /* pattern chunk (NULL: the shared zero chunk) */
	uint32_t chunk_len;
	bool flush_after;
};

static void ws_free(struct scsi_cmd *cmd)
{
	struct ws_op *wo = cmd->priv.op;

	if (wo->chunk)
		buf_free(wo->chunk, wo->chunk_len);
	free(wo);
}

/* Common decode; nb_byte: first byte of NUMBER OF LOGICAL BLOCKS. */
static enum sense_reason ws_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n, unsigned nb_byte,
				  bool ndob)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint64_t cap = lu_nblocks(lu);
	uint64_t len = n;
	enum sense_reason r;

	/* SBC-4 table 237: ANCHOR=1 with UNMAP=0 is an error, with UNMAP=1 it
	 * needs ANC_SUP, which this device server does not have */
	if (cdb_write_same_anchor(cmd->cdb))
		return cdb_invalid_field(cmd, WRITE_SAME_FLAGS_BYTE, 4);
	if (lba > cap)
		return SENSE_LBA_OUT_OF_RANGE;
	/* WSNZ=0: zero blocks means from lba to the last LBA */
	if (n == 0)
		len = cap - lba;
	if (len > sbc_bytes_to_blocks(lu, SBC_MAX_WRITE_SAME_BYTES))
		return cdb_invalid_field(cmd, nb_byte, -1);
	r = sbc_check_range(lu, lba, len);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	p->nblocks = (uint32_t)len;
	p->io_flags = 0;
	p->data_len = ndob ? 0 : lu->block_size;
	p->data_dir = ndob ? SCSI_DIR_NONE : SCSI_DIR_WRITE;
	/* exactly one block of Data-Out: a shorter or longer Expected Data
	 * Transfer Length is refused (libiscsi WriteSame*.InvalidDataOutSize) */
	if (!ndob && cmd->exp_len != lu->block_size)
		return cdb_invalid_field(cmd, nb_byte, -1);
	return SENSE_OK;
}

/* WRITE SAME (10) 41h: byte 1 WRPROTECT, ANCHOR, UNMAP; LBA 2-5; GROUP
 * NUMBER 6; NUMBER OF LOGICAL BLOCKS 7-8. */
enum sense_reason sbc_parse_write_same10(struct scsi_cmd *cmd)
{
	return ws_setup(cmd, cdb10_lba(cmd->cdb), cdb10_length(cmd->cdb), CDB10_LENGTH_BYTE, false);
}

/* WRITE SAME (16) 93h: byte 1 WRPROTECT, ANCHOR, UNMAP, NDOB; LBA 2-9;
 * NUMBER OF LOGICAL BLOCKS 10-13; GROUP NUMBER 14. */
enum sense_reason sbc_parse_write_same16(struct scsi_cmd *cmd)
{
	return ws_setup(cmd, cdb16_lba(cmd->cdb), cdb16_length(cmd->cdb), CDB16_LENGTH_BYTE,
			cdb_write_same16_ndob(cmd->cdb));
}

static enum sbc_step ws_step(struct sbc_op *op)
{
	struct ws_op *wo = container_of(op, struct ws_op, op);
	uint32_t shift = op->lu->block_shift;
	uint64_t n;

	switch (wo->state) {
	case WSS_LOCK:
		wo->state = WSS_LOCKED;
		if (!sbc_range_lock(op->lu, &op->rl, wo->start, wo->end - wo->start, false))
			return SBC_STEP_WAIT;
		UT_FALLTHROUGH;
	case WSS_LOCKED:
		break;
	case WSS_IO:
		if (op->err)
			return sbc_op_bs_error(op, true);
		break;
	case WSS_FLUSH:
		if (op->err)
			return sbc_op_bs_error(op, true);
		return sbc_op_finish(op, SENSE_OK, NULL);
	}
	if (wo->lba == wo->end) {
		if (wo->flush_after) {
			wo->flush_after = false;
			sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
			wo->state = WSS_FLUSH;
			return SBC_STEP_IO;
		}
		return sbc_op_finish(op, SENSE_OK, NULL);
	}
	wo->state = WSS_IO;
	switch (wo->mode) {
	case WS_DISCARD:
	case WS_ZEROES:
		/* the whole range at once: it is bounded by MAXIMUM WRITE SAME
		 * LENGTH and needs no buffer */
		n = wo->end - wo->lba;
		sbc_op_io(op, wo->mode == WS_DISCARD ? BS_OP_DISCARD : BS_OP_WRITE_ZEROES,
			  wo->lba << shift, n << shift, NULL, 0);
		break;
	case WS_SAME:
		n = wo->end - wo->lba;
		sbc_op_io(op, BS_OP_WRITE_SAME, wo->lba << shift, n << shift, NULL, 0);
		op->iov[0] = (struct iovec){op->cmd->buf, op->lu->block_size};
		op->io.iov = op->iov;
		op->io.iovcnt = 1;
		break;
	case WS_WRITE:
	default:
		n = UT_MIN(wo->end - wo->lba, (uint64_t)(wo->chunk_len >> shift));
		sbc_op_io(op, BS_OP_WRITE, wo->lba << shift, n << shift,
			  wo->chunk ? wo->chunk : (void *)sbc_zero_chunk(), 0);
		break;
	}
	wo->lba += n;
	return SBC_STEP_IO;
}

void sbc_exec_write_same(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	uint32_t caps = lu->bs->caps;
	bool ndob = cdb_op(cmd->cdb) == OP_WRITE_SAME_16 && cdb_write_same16_ndob(cmd->cdb);
	bool unmap = cdb_write_same_unmap(cmd->cdb) && lu->attrs.thin;
	uint64_t n = p->nblocks;
	struct ws_op *wo;
	bool zero;

	if (n == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	/* deallocated or not, the blocks of an UNMAP read back as zeroes */
	zero = ndob || unmap || sbc_all_zero(cmd->buf, lu->block_size);
	wo = calloc(1, sizeof(*wo));
	if (!wo) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = wo;
	p->op_free = ws_free;
	wo->start = wo->lba = p->lba;
	wo->end = p->lba + n;
	if (unmap && (caps & BS_CAP_DISCARD)) {
		wo->mode = WS_DISCARD;
	} else if (zero && (caps & BS_CAP_WRITE_ZEROES)) {
		wo->mode = WS_ZEROES;
	} else if (zero) {
		wo->mode = WS_WRITE;
		wo->chunk_len = SBC_CHUNK_BYTES; /* the shared zero chunk */
	} else if (caps & BS_CAP_WRITE_SAME) {
		wo->mode = WS_SAME;
	} else {
		wo->mode = WS_WRITE;
		wo->chunk_len = (uint32_t)UT_MIN(n << lu->block_shift, (uint64_t)SBC_CHUNK_BYTES);
		wo->chunk = buf_alloc(wo->chunk_len);
		if (!wo->chunk) {
			scsi_cmd_complete(cmd, SENSE_BUSY);
			return;
		}
		for (uint32_t b = 0; b < wo->chunk_len; b += lu->block_size)
			memcpy(wo->chunk + b, cmd->buf, lu->block_size);
	}
	wo->flush_after = sbc_write_durable(lu, 0) && (caps & BS_CAP_FLUSH);
	sbc_op_init(&wo->op, cmd, cmd->reactor, ws_step);
	wo->state = WSS_LOCK;
	sbc_op_run(&wo->op);
}
