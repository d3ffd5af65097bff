/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unmap.c: UNMAP (SBC-4 5.31) and GET LBA STATUS (SBC-4 5.7), the logical
 * block provisioning commands (SBC-4 4.7).
 *
 * UNMAP deallocates the ranges of its parameter list (BS_OP_DISCARD; a
 * back-store that cannot deallocate gets zeroes written instead, so that
 * LBPRZ holds either way). The whole list is validated before anything is
 * deallocated. Only a thin provisioned LU (LBPME=1, LBPU=1) supports it.
 *
 * GET LBA STATUS reports extents of mapped and deallocated blocks from the
 * back-store's BS_OP_MAP_STATUS; on a fully provisioned LU, or a back-store
 * without MAP_STATUS, every block is mapped. */
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "scsi/limits.h"
#include "scsi/sbc_internal.h"

/* UNMAP parameter list (SBC-4 5.31.2): 8-byte header, 16-byte descriptors */
#define UNMAP_HDR_LEN  8
#define UNMAP_DESC_LEN 16

struct unmap_op {
	struct sbc_op op;
	int state;    /* 0: next descriptor, 1: I/O of the current one done */
	unsigned idx; /* next descriptor */
	unsigned count;
	uint64_t lba, end; /* current descriptor's remaining range */
	bool discard;	   /* BS_OP_DISCARD, else WRITE_ZEROES or zero writes */
	bool flush_after;
};

static void unmap_free(struct scsi_cmd *cmd)
{
	free(cmd->priv.op);
}

/* UNMAP 42h: byte 1 ANCHOR; GROUP NUMBER 6; PARAMETER LIST LENGTH 7-8. */
enum sense_reason sbc_parse_unmap(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t len = cdb10_param_list_len(cmd->cdb);

	/* a fully provisioned LU has no UNMAP (LBPU=0): the command is not
	 * supported there (libiscsi Unmap.VPD) */
	if (!p->lu->attrs.thin)
		return SENSE_INVALID_OPCODE;
	/* ANCHOR=1 needs ANC_SUP (VPD B2h), which is zero */
	if (cdb_unmap_anchor(cmd->cdb))
		return cdb_invalid_field(cmd, UNMAP_ANCHOR_BYTE, 0);
	/* SBC-4 5.31.1: a PARAMETER LIST LENGTH of zero is not an error; one
	 * that cannot hold the header is */
	if (len > 0 && len < UNMAP_HDR_LEN)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	p->data_len = len;
	p->data_dir = len ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	return SENSE_OK;
}

/* Validate the parameter list (SBC-4 5.31.2): lengths, the descriptor count
 * and LBA count against VPD B0h, each range against the capacity.
 * *count: descriptors to process. */
static enum sense_reason unmap_validate(struct scsi_cmd *cmd, unsigned *count)
{
	struct scsi_lu *lu = cmd->priv.lu;
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len;
	uint32_t dl, bd_dl, n;
	uint64_t total = 0;
	uint64_t max_lbas =
	    UT_MIN(sbc_bytes_to_blocks(lu, SBC_MAX_UNMAP_BYTES), (uint64_t)SBC_UNMAP_LBA_COUNT_CAP);
	enum sense_reason r;

	if (cmd->write_len < len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	dl = get_be16(b);
	bd_dl = get_be16(b + 2);
	/* the header announces more than was transferred */
	if (dl + 2 > len || bd_dl + UNMAP_HDR_LEN > len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	/* UNMAP DATA LENGTH covers the rest of the header and the descriptors */
	if (dl < bd_dl + UNMAP_HDR_LEN - 2)
		return param_invalid_field(cmd, 0, -1);
	/* a trailing partial descriptor is ignored (SBC-4 5.31.2) */
	n = bd_dl / UNMAP_DESC_LEN;
	if (n > SBC_MAX_UNMAP_DESCRIPTORS)
		return param_invalid_field(cmd, 2, -1);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = b + UNMAP_HDR_LEN + i * UNMAP_DESC_LEN;
		uint64_t lba = get_be64(d);
		uint32_t nb = get_be32(d + 8);

		total += nb;
		/* MAXIMUM UNMAP LBA COUNT (VPD B0h) */
		if (total > max_lbas)
			return param_invalid_field(cmd, UNMAP_HDR_LEN + i * UNMAP_DESC_LEN + 8, -1);
		r = sbc_check_range(lu, lba, nb);
		if (r != SENSE_OK)
			return r;
	}
	*count = n;
	return SENSE_OK;
}

static enum sbc_step unmap_step(struct sbc_op *op)
{
	struct unmap_op *uo = container_of(op, struct unmap_op, op);
	struct scsi_lu *lu = op->lu;
	uint32_t shift = lu->block_shift;
	uint64_t n;

	if (uo->state == 1) {
		if (op->err)
			return sbc_op_bs_error(op, true);
		if (uo->lba == uo->end)
			sbc_range_unlock(&op->rl);
	} else if (uo->state == 2) {
		/* range lock granted after waiting */
		uo->state = 1;
	} else if (uo->state == 3) {
		/* final FLUSH done */
		if (op->err)
			return sbc_op_bs_error(op, true);
		return sbc_op_finish(op, SENSE_OK, NULL);
	}
	if (uo->state == 0 || uo->lba == uo->end) {
		/* next descriptor with blocks */
		for (;;) {
			const uint8_t *d;

			if (uo->idx == uo->count) {
				if (uo->flush_after) {
					sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
					uo->state = 3;
					return SBC_STEP_IO;
				}
				return sbc_op_finish(op, SENSE_OK, NULL);
			}
			d = op->cmd->buf + UNMAP_HDR_LEN + uo->idx++ * UNMAP_DESC_LEN;
			uo->lba = get_be64(d);
			uo->end = uo->lba + get_be32(d + 8);
			if (uo->end > uo->lba)
				break;
		}
		uo->state = 2;
		if (!sbc_range_lock(lu, &op->rl, uo->lba, uo->end - uo->lba, false))
			return SBC_STEP_WAIT;
		uo->state = 1;
	}
	if (uo->discard) {
		n = uo->end - uo->lba;
		sbc_op_io(op, BS_OP_DISCARD, uo->lba << shift, n << shift, NULL, 0);
	} else if (lu->bs->caps & BS_CAP_WRITE_ZEROES) {
		n = uo->end - uo->lba;
		sbc_op_io(op, BS_OP_WRITE_ZEROES, uo->lba << shift, n << shift, NULL, 0);
	} else {
		n = UT_MIN(uo->end - uo->lba, (uint64_t)(SBC_CHUNK_BYTES >> shift));
		sbc_op_io(op, BS_OP_WRITE, uo->lba << shift, n << shift, (void *)sbc_zero_chunk(),
			  0);
	}
	uo->lba += n;
	return SBC_STEP_IO;
}

void sbc_exec_unmap(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct unmap_op *uo;
	unsigned count = 0;
	enum sense_reason r;

	if (p->data_len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	r = unmap_validate(cmd, &count);
	if (r != SENSE_OK || count == 0) {
		scsi_cmd_complete_sx(cmd, r, &p->sx);
		return;
	}
	uo = calloc(1, sizeof(*uo));
	if (!uo) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = uo;
	p->op_free = unmap_free;
	uo->count = count;
	uo->discard = (lu->bs->caps & BS_CAP_DISCARD) != 0;
	uo->flush_after = sbc_write_durable(lu, 0) && (lu->bs->caps & BS_CAP_FLUSH);
	sbc_op_init(&uo->op, cmd, cmd->reactor, unmap_step);
	sbc_op_run(&uo->op);
}

/* ---- GET LBA STATUS ---- */

#define GLS_HDR_LEN  8
#define GLS_DESC_LEN 16
#define GLS_MAX_DESC 128u

enum gls_status { GLS_MAPPED = 0, GLS_DEALLOCATED = 1 };

struct gls_desc {
	uint64_t lba;
	uint64_t nblocks;
	uint8_t status;
};

struct gls_op {
	struct sbc_op op;
	bool querying;
	unsigned queries;
	unsigned max_desc;
	unsigned ndesc;
	uint64_t lba; /* next LBA to ask about */
	uint64_t cap;
	struct gls_desc desc[GLS_MAX_DESC];
};

static void gls_free(struct scsi_cmd *cmd)
{
	free(cmd->priv.op);
}

/* SERVICE ACTION IN (16) 9Eh / 12h: STARTING LOGICAL BLOCK ADDRESS 2-9;
 * ALLOCATION LENGTH 10-13; byte 14 (REPORT TYPE) reserved. */
enum sense_reason sbc_parse_get_lba_status(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint64_t lba = cdb16_lba(cmd->cdb);

	/* SBC-4 5.7: a starting LBA beyond the last one */
	if (lba >= lu_nblocks(p->lu))
		return SENSE_LBA_OUT_OF_RANGE;
	p->lba = lba;
	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb), GLS_HDR_LEN + GLS_MAX_DESC * GLS_DESC_LEN);
	return SENSE_OK;
}

/* Append an extent, merged with the previous descriptor when it has the same
 * status; false when the descriptor list is full. */
static bool gls_add(struct gls_op *go, uint64_t lba, uint64_t n, uint8_t status)
{
	while (n) {
		struct gls_desc *last = go->ndesc ? &go->desc[go->ndesc - 1] : NULL;
		uint64_t k;

		if (last && last->status == status && last->nblocks < UINT32_MAX) {
			k = UT_MIN(n, UINT32_MAX - last->nblocks);
			last->nblocks += k;
		} else {
			if (go->ndesc == go->max_desc)
				return false;
			k = UT_MIN(n, (uint64_t)UINT32_MAX);
			go->desc[go->ndesc++] =
			    (struct gls_desc){.lba = lba, .nblocks = k, .status = status};
		}
		lba += k;
		n -= k;
	}
	return true;
}

static void gls_reply(struct gls_op *go)
{
	struct scsi_cmd *cmd = go->op.cmd;
	uint8_t d[GLS_HDR_LEN + GLS_MAX_DESC * GLS_DESC_LEN];
	size_t len = GLS_HDR_LEN + (size_t)go->ndesc * GLS_DESC_LEN;

	memset(d, 0, len);
	/* PARAMETER DATA LENGTH: the bytes after this field */
	put_be32(d, (uint32_t)(len - 4));
	for (unsigned i = 0; i < go->ndesc; i++) {
		uint8_t *e = d + GLS_HDR_LEN + i * GLS_DESC_LEN;

		put_be64(e, go->desc[i].lba);
		put_be32(e + 8, (uint32_t)go->desc[i].nblocks);
		e[12] = go->desc[i].status; /* PROVISIONING STATUS */
	}
	scsi_cmd_set_data_in(cmd, d, len);
}

static enum sbc_step gls_step(struct sbc_op *op)
{
	struct gls_op *go = container_of(op, struct gls_op, op);
	uint32_t shift = op->lu->block_shift;

	if (go->querying) {
		uint64_t left = go->cap - go->lba;
		uint8_t status;
		uint64_t n;

		go->querying = false;
		if (op->err)
			return sbc_op_bs_error(op, false);
		if (op->io.mapped) {
			/* a partly mapped block is mapped */
			n = (op->io.map_len + (1u << shift) - 1) >> shift;
			status = GLS_MAPPED;
		} else {
			n = op->io.map_len >> shift;
			status = GLS_DEALLOCATED;
		}
		if (n == 0) {
			/* a deallocated extent shorter than a block (the rest of
			 * the block holds data), or an empty answer */
			n = 1;
			status = GLS_MAPPED;
		}
		if (n > left)
			n = left; /* a back-store answering past the end */
		if (!gls_add(go, go->lba, n, status))
			n = left; /* no room for more descriptors: stop */
		go->lba += n;
	}
	if (go->lba < go->cap && go->queries < SBC_LBA_STATUS_MAX_QUERIES) {
		go->queries++;
		go->querying = true;
		sbc_op_io(op, BS_OP_MAP_STATUS, go->lba << shift, (go->cap - go->lba) << shift,
			  NULL, 0);
		return SBC_STEP_IO;
	}
	gls_reply(go);
	return sbc_op_finish(op, SENSE_OK, NULL);
}

void sbc_exec_get_lba_status(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct gls_op *go = calloc(1, sizeof(*go));
	uint32_t room;

	if (!go) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = go;
	p->op_free = gls_free;
	go->cap = lu_nblocks(lu);
	go->lba = p->lba;
	/* as many descriptors as the allocation length holds, at least one
	 * (the data is then truncated, which is not an error) */
	room = p->data_len > GLS_HDR_LEN ? (p->data_len - GLS_HDR_LEN) / GLS_DESC_LEN : 0;
	go->max_desc = UT_MAX(1u, UT_MIN(room, GLS_MAX_DESC));
	sbc_op_init(&go->op, cmd, cmd->reactor, gls_step);
	if (go->lba >= go->cap) {
		/* the LU shrank since parse */
		sbc_op_finish(&go->op, SENSE_LBA_OUT_OF_RANGE, NULL);
		return;
	}
	if (!lu->attrs.thin || !(lu->bs->caps & BS_CAP_MAP_STATUS)) {
		/* SBC-4 4.7.2: every LBA of a fully provisioned LU is mapped */
		gls_add(go, go->lba, go->cap - go->lba, GLS_MAPPED);
		gls_reply(go);
		sbc_op_finish(&go->op, SENSE_OK, NULL);
		return;
	}
	sbc_op_run(&go->op);
}
