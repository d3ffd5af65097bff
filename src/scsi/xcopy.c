/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xcopy.c: the copy manager: EXTENDED COPY (LID1) (SPC-4 6.4) with
 * block-to-block segments, and RECEIVE COPY RESULTS (SPC-4 6.23) COPY
 * STATUS and OPERATING PARAMETERS.
 *
 * Parameter list (SPC-4 6.4.3): a 16-byte header, TARGET DESCRIPTOR LIST
 * LENGTH bytes of target descriptors, SEGMENT DESCRIPTOR LIST LENGTH bytes
 * of segment descriptors, INLINE DATA LENGTH bytes of inline data. Supported:
 * target descriptor E4h (identification descriptor, SPC-4 6.4.5.2) and
 * segment descriptor 02h (block device to block device, SPC-4 6.4.6.5);
 * no inline data. The whole list is validated, every target resolved and
 * every segment checked before the first block is copied.
 *
 * Security (CVE-2020-28374): a target descriptor names a logical unit by a
 * designator of its Device Identification VPD page; it is resolved ONLY
 * among the logical units of the issuing I_T nexus' LUN map
 * (nexus_resolve_designator), never among all logical units of the
 * target or the process. A logical unit the nexus cannot see is "not
 * reachable": COPY ABORTED / COPY TARGET DEVICE NOT REACHABLE.
 *
 * Access: the copy manager reads each copy source and writes each copy
 * destination as if the requester had sent READ(16) / WRITE(16) to it
 * itself, through its own I_T nexus and target port (xc_access: the CDB
 * table's descriptors of those commands, the requester's I_T nexus record
 * at that LU): the ALUA access state through the port, the SPC-2 and the
 * persistent reservations, write protection. Checked for every segment
 * before the first block moves, and again before each chunk (a reservation
 * taken meanwhile stops the copy there). The outcome is that of a copy
 * target refusing the copy manager's command (SPC-2 7.2.3, "errors detected
 * during processing of segment descriptors", the LID1 model SPC-4 6.4
 * keeps: unavailable copy targets and errors reported by copy target
 * devices end the command with the sense key COPY ABORTED):
 *   ALUA state allows no READ/WRITE   COPY TARGET DEVICE NOT REACHABLE 0D/02
 *                                     (as for a medium or sanitize state)
 *   RESERVATION CONFLICT (SPC-2, PR)  THIRD PARTY DEVICE FAILURE 0D/01
 *   write protected destination       DATA PROTECT / WRITE PROTECTED 27/00
 *                                     (as before: a condition of the copy
 *                                     manager's own mapping)
 *
 * The copy reads and writes through the back-stores in chunks of at most
 * SBC_CHUNK_BYTES, under the same shared LBA range locks as READ and WRITE
 * (one at a time, so a copy between two ranges cannot deadlock). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "scsi/alua.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/pr.h"
#include "scsi/sbc_internal.h"

#define XC_HDR_LEN	16
#define XC_TGT_DESC_LEN 32   /* E4h and the other fixed-length target descriptors */
#define XC_SEG_B2B_LEN	28   /* 02h: 4-byte header + DESCRIPTOR LENGTH 0018h */
#define XC_TGT_IDENT	0xe4 /* identification descriptor target descriptor */
#define XC_SEG_B2B	0x02 /* block device to block device */
#define XC_DESIG_MAX	20   /* bytes 4-23 of an E4h target descriptor */

/* LIST ID USAGE (SPC-4 table 100) */
enum {
	XC_LIST_HOLD = 0,     /* 00b: results held for RECEIVE COPY RESULTS */
	XC_LIST_RESERVED = 1, /* 01b */
	XC_LIST_NO_HOLD = 2,  /* 10b: the list identifier is unique, results not held */
	XC_LIST_NONE = 3,     /* 11b: no list identifier (LIST IDENTIFIER shall be 0) */
};

/* COPY MANAGER STATUS (SPC-4 6.23.3) */
enum {
	XC_STATUS_IN_PROGRESS = 0x00,
	XC_STATUS_GOOD = 0x01,
	XC_STATUS_ERROR = 0x02,
};

struct xc_target {
	struct scsi_lu *lu; /* reference */
	struct lu_itn *itn; /* the requester's I_T nexus record at lu */
	bool ro;	    /* the nexus' mapping is write protected */
};

struct xc_seg {
	uint16_t src, dst; /* target descriptor indexes */
	uint64_t src_off;  /* bytes */
	uint64_t dst_off;
	uint64_t bytes;
};

enum xc_state {
	XC_NEXT = 0,   /* start the next chunk (or segment) */
	XC_SRC_LOCKED, /* range lock on the source held */
	XC_READ,       /* read submitted */
	XC_DST_LOCKED, /* range lock on the destination held */
	XC_WRITE,      /* write submitted */
	XC_FLUSH,      /* FLUSH of the segment's destination submitted */
};

struct xcopy_op {
	struct sbc_op op;
	enum xc_state state;
	unsigned ntgt, nseg;
	struct xc_target tgt[XCOPY_MAX_TARGET_DESCRIPTORS];
	struct xc_seg seg[XCOPY_MAX_SEGMENT_DESCRIPTORS];
	unsigned cur;	/* current segment */
	uint64_t done;	/* bytes of the current segment copied */
	uint32_t chunk; /* bytes of the current chunk */
	uint64_t total; /* bytes copied by the command */
	uint8_t *buf;
	uint32_t buf_len;
	bool hold;    /* results held for RECEIVE COPY RESULTS */
	bool counted; /* counted in copies_running */
	uint8_t list_id;
};

static void xcopy_free(struct scsi_cmd *cmd)
{
	struct xcopy_op *xo = cmd->priv.op;

	for (unsigned i = 0; i < xo->ntgt; i++)
		scsi_lu_put(xo->tgt[i].lu);
	if (xo->buf)
		buf_free(xo->buf, xo->buf_len);
	free(xo);
}

/* ---- held results (lu->lock) ---- */

static bool result_is(const struct sbc_copy_result *c, const struct scsi_nexus *n, uint8_t list_id)
{
	return c->valid && c->list_id == list_id && c->rel_port == n->tport->rel_port_id &&
	       c->port && !strcmp(c->port, n->port_name);
}

static void result_clear(struct sbc_copy_result *c)
{
	free(c->port);
	memset(c, 0, sizeof(*c));
}

/* Record the start of a held copy in the slot of (nexus, list id), else a
 * free one, else the oldest finished one. With every slot taken by a copy
 * in progress the results are not held. */
static void result_begin(struct scsi_lu *lu, const struct scsi_nexus *n, uint8_t list_id)
{
	struct sbc_lu_state *s = lu->sbc;
	struct sbc_copy_result *c = NULL;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS && !c; i++)
		if (result_is(&s->copies[i], n, list_id))
			c = &s->copies[i];
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS && !c; i++)
		if (!s->copies[i].valid)
			c = &s->copies[i];
	if (!c) {
		for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++) {
			struct sbc_copy_result *o = &s->copies[i];

			if (o->status != XC_STATUS_IN_PROGRESS && (!c || o->seq < c->seq))
				c = o;
		}
	}
	if (c && !result_is(c, n, list_id)) {
		result_clear(c);
		c->port = strdup(n->port_name);
		if (!c->port)
			c = NULL;
	}
	if (c) {
		c->valid = true;
		c->list_id = list_id;
		c->rel_port = n->tport->rel_port_id;
		c->status = XC_STATUS_IN_PROGRESS;
		c->segments = 0;
		c->bytes = 0;
		c->seq = ++s->copy_seq;
	}
	pthread_mutex_unlock(&lu->lock);
}

static void result_end(struct scsi_lu *lu, const struct scsi_nexus *n, uint8_t list_id,
		       uint8_t status, uint16_t segments, uint64_t bytes)
{
	struct sbc_lu_state *s = lu->sbc;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++) {
		struct sbc_copy_result *c = &s->copies[i];

		if (result_is(c, n, list_id) && c->status == XC_STATUS_IN_PROGRESS) {
			c->status = status;
			c->segments = segments;
			c->bytes = bytes;
			break;
		}
	}
	pthread_mutex_unlock(&lu->lock);
}

/* ---- EXTENDED COPY ---- */

/* EXTENDED COPY 83h / 00h (LID1): PARAMETER LIST LENGTH 10-13. */
enum sense_reason sbc_parse_xcopy(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t len = cdb16_param_list_len(cmd->cdb);

	/* SPC-4 6.4.1: zero transfers nothing and is not an error; more than
	 * a header and the largest descriptor lists (no inline data) cannot
	 * be a valid list */
	if (len > XC_HDR_LEN + XCOPY_MAX_DESCRIPTOR_LIST_BYTES)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	p->data_len = len;
	p->data_dir = len ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	return SENSE_OK;
}

/* A sense reason with a field pointer into the parameter list. */
static enum sense_reason xc_fail(struct scsi_cmd *cmd, enum sense_reason r, unsigned byte, int bit)
{
	struct sense_extra *sx = &cmd->priv.sx;

	memset(sx, 0, sizeof(*sx));
	sx->fp_valid = true;
	sx->fp_cdb = false;
	sx->fp_byte = (uint16_t)byte;
	sx->fp_bit_valid = bit >= 0;
	sx->fp_bit = bit >= 0 ? (uint8_t)bit : 0;
	return r;
}

/* Parameter list header and descriptor lists: sizes, counts, type codes
 * (SPC-4 6.4.3, 6.4.5, 6.4.6). Fills ntgt/nseg and the segment table. */
static enum sense_reason xc_parse_list(struct scsi_cmd *cmd, struct xcopy_op *xo)
{
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len;
	uint32_t tdl, sdl, inl, off, end;
	uint8_t usage;

	if (cmd->write_len < len || len < XC_HDR_LEN)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	xo->list_id = b[0];
	usage = (b[1] >> 3) & 0x03;
	tdl = get_be16(b + 2);
	sdl = get_be32(b + 8);
	inl = get_be32(b + 12);
	/* the lists must be inside the parameter list, and not longer than
	 * MAXIMUM DESCRIPTOR LIST LENGTH */
	if ((uint64_t)XC_HDR_LEN + tdl + sdl + inl > len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if ((uint64_t)tdl + sdl > XCOPY_MAX_DESCRIPTOR_LIST_BYTES)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	/* MAXIMUM INLINE DATA LENGTH is zero */
	if (inl)
		return xc_fail(cmd, SENSE_INLINE_DATA_LENGTH_EXCEEDED, 12, -1);
	if (b[4] || b[5] || b[6] || b[7])
		return param_invalid_field(cmd, 4, -1);
	if (usage == XC_LIST_RESERVED)
		return param_invalid_field(cmd, 1, 4);
	if (usage == XC_LIST_NONE && xo->list_id)
		return param_invalid_field(cmd, 0, -1);
	xo->hold = usage == XC_LIST_HOLD;

	/* target descriptors */
	off = XC_HDR_LEN;
	end = XC_HDR_LEN + tdl;
	while (off < end) {
		if (b[off] != XC_TGT_IDENT)
			return xc_fail(cmd, SENSE_UNSUPPORTED_TARGET_DESCRIPTOR_TYPE, off, 7);
		if (off + XC_TGT_DESC_LEN > end)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (xo->ntgt == XCOPY_MAX_TARGET_DESCRIPTORS)
			return xc_fail(cmd, SENSE_TOO_MANY_TARGET_DESCRIPTORS, off, -1);
		xo->ntgt++;
		off += XC_TGT_DESC_LEN;
	}

	/* segment descriptors */
	end = XC_HDR_LEN + tdl + sdl;
	while (off < end) {
		const uint8_t *d = b + off;

		if (off + 4 > end)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (d[0] != XC_SEG_B2B)
			return xc_fail(cmd, SENSE_UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE, off, 7);
		if (get_be16(d + 2) != XC_SEG_B2B_LEN - 4)
			return param_invalid_field(cmd, off + 2, -1);
		if (off + XC_SEG_B2B_LEN > end)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (xo->nseg == XCOPY_MAX_SEGMENT_DESCRIPTORS)
			return xc_fail(cmd, SENSE_TOO_MANY_SEGMENT_DESCRIPTORS, off, -1);
		xo->nseg++;
		off += XC_SEG_B2B_LEN;
	}
	return SENSE_OK;
}

/* Resolve every E4h target descriptor through the nexus' LUN map. */
static enum sense_reason xc_resolve_targets(struct scsi_cmd *cmd, struct xcopy_op *xo,
					    unsigned count)
{
	const uint8_t *b = cmd->buf;

	for (unsigned i = 0; i < count; i++) {
		unsigned off = XC_HDR_LEN + i * XC_TGT_DESC_LEN;
		const uint8_t *d = b + off;
		const uint8_t *desig = d + 4;
		size_t dlen = 4 + (size_t)desig[3];
		struct scsi_lu *lu;
		struct lu_itn *itn;
		bool ro = false;
		int rc;

		/* byte 1: LU ID TYPE (ignored in SPC-4: the designator names
		 * the LU), NUL (obsolete), PERIPHERAL DEVICE TYPE: a block
		 * device for a block-to-block segment */
		if (d[1] & 0x1f)
			return param_invalid_field(cmd, off + 1, 4);
		if (dlen > XC_DESIG_MAX)
			return param_invalid_field(cmd, off + 7, -1);
		rc = nexus_resolve_designator(cmd->nexus, desig, dlen, &lu, &itn, &ro);
		if (rc == -ENOMEM)
			return SENSE_BUSY;
		if (rc)
			return SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
		xo->tgt[xo->ntgt] = (struct xc_target){.lu = lu, .itn = itn, .ro = ro};
		xo->ntgt++;
		/* DISK BLOCK LENGTH (bytes 29-31) must be the LU's */
		if (get_be24(d + 29) != lu->block_size)
			return param_invalid_field(cmd, off + 29, -1);
		/* a logical unit that cannot be accessed now (medium, sanitize)
		 * cannot take part in a copy */
		if (medium_check(lu, cmd->priv.desc) != SENSE_OK ||
		    atomic_load(&lu->sbc->san_state) != SBC_SAN_IDLE)
			return SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
	}
	return SENSE_OK;
}

/* The commands the copy manager acts as: READ(16) for a copy source,
 * WRITE(16) for a copy destination. */
static const uint8_t xc_read_cdb[CDB16_LEN] = {OP_READ_16};
static const uint8_t xc_write_cdb[CDB16_LEN] = {OP_WRITE_16};

/* May the requester read (write) lu as with its own READ(16) (WRITE(16))?
 * The checks scsi_cmd_setup() gives those commands after the unit
 * attention, medium and sanitize ones (cmd.c setup_checks, SPC-4 5.14),
 * through the requester's target port and its I_T nexus record itn at lu
 * (ro: its mapping of lu is write protected); the outcome as the copy
 * manager reports it (see the top). Shared with the token copies (rod.c). */
enum sense_reason sbc_copy_access(const struct scsi_cmd *cmd, struct scsi_lu *lu,
				  struct lu_itn *itn, bool ro, bool write)
{
	const uint8_t *cdb = write ? xc_write_cdb : xc_read_cdb;
	const struct cdb_desc *d = cdb_opcode(cdb_op(cdb));

	/* SPC-4 5.15.2.4: the access state through the requester's port */
	if (alua_check_access(cmd->nexus->tport, lu, d->flags) != SENSE_OK)
		return SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
	/* SPC-2 5.5.1: RESERVE held by another I_T nexus */
	if (!(d->flags & CDB_F_SPC2_RESV_OK) && resv_conflict(lu, itn))
		return SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE;
	/* SPC-4 5.13.1: persistent reservation, by READ's / WRITE's class */
	if (pr_conflict(lu, itn, d, cdb))
		return SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE;
	if ((d->flags & CDB_F_WRITES) && lu_wp(lu, ro))
		return SENSE_WRITE_PROTECTED;
	return SENSE_OK;
}

static enum sense_reason xc_access(const struct scsi_cmd *cmd, const struct xc_target *t,
				   bool write)
{
	return sbc_copy_access(cmd, t->lu, t->itn, t->ro, write);
}

/* Block-to-block segment descriptors (SPC-4 6.4.6.5): byte 1 DC, CAT;
 * SOURCE / DESTINATION TARGET DESCRIPTOR INDEX 4-5 / 6-7; BLOCK DEVICE
 * NUMBER OF BLOCKS 10-11; SOURCE LBA 12-19; DESTINATION LBA 20-27. */
static enum sense_reason xc_check_segments(struct scsi_cmd *cmd, struct xcopy_op *xo, uint32_t tdl)
{
	const uint8_t *b = cmd->buf;

	for (unsigned i = 0; i < xo->nseg; i++) {
		unsigned off = XC_HDR_LEN + tdl + i * XC_SEG_B2B_LEN;
		const uint8_t *d = b + off;
		struct xc_seg *s = &xo->seg[i];
		struct scsi_lu *src, *dst;
		uint64_t n = get_be16(d + 10);
		uint64_t src_lba = get_be64(d + 12), dst_lba = get_be64(d + 20);

		s->src = get_be16(d + 4);
		s->dst = get_be16(d + 6);
		/* an index with no target descriptor: nothing to reach */
		if (s->src >= xo->ntgt || s->dst >= xo->ntgt)
			return SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
		src = xo->tgt[s->src].lu;
		dst = xo->tgt[s->dst].lu;
		/* DC=1: the count is in destination blocks */
		s->bytes = n << ((d[1] & 0x02) ? dst->block_shift : src->block_shift);
		if (s->bytes % src->block_size || s->bytes % dst->block_size)
			return param_invalid_field(cmd, off + 10, -1);
		if (s->bytes > XCOPY_MAX_SEGMENT_BYTES)
			return param_invalid_field(cmd, off + 10, -1);
		/* a range beyond a copy target's capacity cannot be reached on
		 * it (libiscsi ExtendedCopy.ValidSegDescr expects COPY ABORTED) */
		if (sbc_check_range(src, src_lba, s->bytes >> src->block_shift) != SENSE_OK ||
		    sbc_check_range(dst, dst_lba, s->bytes >> dst->block_shift) != SENSE_OK)
			return SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
		if (s->bytes) {
			enum sense_reason r = xc_access(cmd, &xo->tgt[s->src], false);

			if (r == SENSE_OK)
				r = xc_access(cmd, &xo->tgt[s->dst], true);
			if (r != SENSE_OK)
				return r;
		}
		s->src_off = src_lba << src->block_shift;
		s->dst_off = dst_lba << dst->block_shift;
	}
	return SENSE_OK;
}

static enum sbc_step xc_finish(struct xcopy_op *xo, enum sense_reason r)
{
	struct scsi_cmd *cmd = xo->op.cmd;
	struct scsi_lu *lu = cmd->priv.lu;

	if (xo->hold)
		result_end(lu, cmd->nexus, xo->list_id,
			   r == SENSE_OK ? XC_STATUS_GOOD : XC_STATUS_ERROR, (uint16_t)xo->cur,
			   xo->total);
	if (xo->counted) {
		pthread_mutex_lock(&lu->lock);
		lu->sbc->copies_running--;
		pthread_mutex_unlock(&lu->lock);
		xo->counted = false;
	}
	return sbc_op_finish(&xo->op, r, NULL);
}

static enum sbc_step xc_step(struct sbc_op *op)
{
	struct xcopy_op *xo = container_of(op, struct xcopy_op, op);
	struct xc_seg *s;
	struct scsi_lu *src, *dst;
	enum sense_reason r;

	for (;;) {
		if (xo->cur == xo->nseg)
			return xc_finish(xo, SENSE_OK);
		s = &xo->seg[xo->cur];
		src = xo->tgt[s->src].lu;
		dst = xo->tgt[s->dst].lu;
		switch (xo->state) {
		case XC_NEXT:
			if (xo->done == s->bytes) {
				/* the segment is complete */
				xo->cur++;
				xo->done = 0;
				continue;
			}
			xo->chunk = (uint32_t)UT_MIN(s->bytes - xo->done, (uint64_t)xo->buf_len);
			/* each chunk as a READ of the requester's own */
			r = xc_access(op->cmd, &xo->tgt[s->src], false);
			if (r != SENSE_OK)
				return xc_finish(xo, r);
			xo->state = XC_SRC_LOCKED;
			if (!sbc_range_lock(src, &op->rl,
					    (s->src_off + xo->done) >> src->block_shift,
					    xo->chunk >> src->block_shift, false))
				return SBC_STEP_WAIT;
			continue;
		case XC_SRC_LOCKED:
			op->lu = src;
			sbc_op_io(op, BS_OP_READ, s->src_off + xo->done, xo->chunk, xo->buf, 0);
			xo->state = XC_READ;
			return SBC_STEP_IO;
		case XC_READ:
			sbc_range_unlock(&op->rl);
			if (op->err)
				return xc_finish(xo, SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE);
			/* and as a WRITE of its own */
			r = xc_access(op->cmd, &xo->tgt[s->dst], true);
			if (r != SENSE_OK)
				return xc_finish(xo, r);
			xo->state = XC_DST_LOCKED;
			if (!sbc_range_lock(dst, &op->rl,
					    (s->dst_off + xo->done) >> dst->block_shift,
					    xo->chunk >> dst->block_shift, false))
				return SBC_STEP_WAIT;
			continue;
		case XC_DST_LOCKED:
			op->lu = dst;
			sbc_op_io(op, BS_OP_WRITE, s->dst_off + xo->done, xo->chunk, xo->buf, 0);
			xo->state = XC_WRITE;
			return SBC_STEP_IO;
		case XC_WRITE:
			sbc_range_unlock(&op->rl);
			if (op->err)
				return xc_finish(xo, SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE);
			xo->done += xo->chunk;
			xo->total += xo->chunk;
			xo->state = XC_NEXT;
			/* the segment's writes are durable before the next one
			 * when the destination's write cache is off */
			if (xo->done == s->bytes && sbc_write_durable(dst, 0) &&
			    (dst->bs->caps & BS_CAP_FLUSH)) {
				op->lu = dst;
				sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
				xo->state = XC_FLUSH;
				return SBC_STEP_IO;
			}
			continue;
		case XC_FLUSH:
			if (op->err)
				return xc_finish(xo, SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE);
			xo->state = XC_NEXT;
			continue;
		}
	}
}

void sbc_exec_xcopy(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct xcopy_op *xo;
	enum sense_reason r;
	unsigned ntgt;
	uint64_t max_seg = 0;
	bool busy;

	if (p->data_len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	xo = calloc(1, sizeof(*xo));
	if (!xo) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = xo;
	p->op_free = xcopy_free;
	sbc_op_init(&xo->op, cmd, cmd->reactor, xc_step);

	r = xc_parse_list(cmd, xo);
	if (r == SENSE_OK) {
		ntgt = xo->ntgt;
		xo->ntgt = 0; /* counts the references taken from here on */
		r = xc_resolve_targets(cmd, xo, ntgt);
	}
	if (r == SENSE_OK)
		r = xc_check_segments(cmd, xo, get_be16(cmd->buf + 2));
	if (r != SENSE_OK) {
		scsi_cmd_complete_sx(cmd, r, &p->sx);
		return;
	}
	/* TOTAL CONCURRENT COPIES (OPERATING PARAMETERS) */
	pthread_mutex_lock(&lu->lock);
	busy = lu->sbc->copies_running >= XCOPY_MAX_CONCURRENT;
	if (!busy)
		lu->sbc->copies_running++;
	pthread_mutex_unlock(&lu->lock);
	if (busy) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	xo->counted = true;
	for (unsigned i = 0; i < xo->nseg; i++)
		max_seg = UT_MAX(max_seg, xo->seg[i].bytes);
	if (max_seg) {
		xo->buf_len = (uint32_t)UT_MIN(max_seg, (uint64_t)SBC_CHUNK_BYTES);
		xo->buf = buf_alloc(xo->buf_len);
		if (!xo->buf) {
			xc_finish(xo, SENSE_BUSY);
			return;
		}
	}
	if (xo->hold)
		result_begin(lu, cmd->nexus, xo->list_id);
	xo->state = XC_NEXT;
	sbc_op_run(&xo->op);
}

/* ---- RECEIVE COPY RESULTS ---- */

/* RECEIVE COPY RESULTS 84h: SERVICE ACTION 1 (4-0); LIST IDENTIFIER 2;
 * ALLOCATION LENGTH 10-13. */
enum sense_reason sbc_parse_rcr(struct scsi_cmd *cmd)
{
	bool op_params = cdb_sa(cmd->cdb) == SA_RCR_OPERATING_PARAMETERS;

	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb), op_params ? 46 : 12);
	return SENSE_OK;
}

/* COPY STATUS (SPC-4 6.23.3) of the issuing I_T nexus' copy with LIST
 * IDENTIFIER; none held: INVALID FIELD IN CDB (libiscsi
 * ReceiveCopyResults.CopyStatus). The results of a finished copy are
 * discarded once returned. */
void sbc_exec_rcr_copy_status(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct sbc_lu_state *s = lu->sbc;
	uint8_t list_id = cdb_rcr_list_id(cmd->cdb);
	struct sbc_copy_result res = {0};
	uint8_t d[12];
	bool found = false;
	uint64_t count;
	uint8_t units = 0;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++) {
		struct sbc_copy_result *c = &s->copies[i];

		if (!result_is(c, cmd->nexus, list_id))
			continue;
		res = *c;
		res.port = NULL;
		found = true;
		if (c->status != XC_STATUS_IN_PROGRESS)
			result_clear(c);
		break;
	}
	pthread_mutex_unlock(&lu->lock);
	if (!found) {
		scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, RCR_LIST_ID_BYTE, -1),
				     &cmd->priv.sx);
		return;
	}
	/* TRANSFER COUNT UNITS: bytes, or the smallest binary multiple that
	 * fits the 32-bit TRANSFER COUNT */
	count = res.bytes;
	while (count > UINT32_MAX) {
		count >>= 10;
		units++;
	}
	memset(d, 0, sizeof(d));
	put_be32(d, sizeof(d) - 4); /* AVAILABLE DATA */
	d[4] = res.status;	    /* HDD 0: no held data */
	put_be16(d + 5, res.segments);
	d[7] = units;
	put_be32(d + 8, (uint32_t)count);
	scsi_cmd_set_data_in(cmd, d, sizeof(d));
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* OPERATING PARAMETERS (SPC-4 6.23.5), from limits.h. */
void sbc_exec_rcr_op_params(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint8_t d[46];

	memset(d, 0, sizeof(d));
	put_be32(d, sizeof(d) - 4); /* AVAILABLE DATA */
	d[4] = 0x01;		    /* SNLID: LIST ID USAGE 11b supported */
	put_be16(d + 8, XCOPY_MAX_TARGET_DESCRIPTORS);
	put_be16(d + 10, XCOPY_MAX_SEGMENT_DESCRIPTORS);
	put_be32(d + 12, XCOPY_MAX_DESCRIPTOR_LIST_BYTES);
	put_be32(d + 16, XCOPY_MAX_SEGMENT_BYTES);
	put_be32(d + 20, 0); /* MAXIMUM INLINE DATA LENGTH */
	put_be32(d + 24, 0); /* HELD DATA LIMIT: no held data */
	put_be32(d + 28, 0); /* MAXIMUM STREAM DEVICE TRANSFER SIZE: no streams */
	put_be16(d + 34, XCOPY_MAX_CONCURRENT);		     /* TOTAL CONCURRENT COPIES */
	d[36] = (uint8_t)UT_MIN(XCOPY_MAX_CONCURRENT, 255u); /* MAXIMUM CONCURRENT COPIES */
	d[37] = (uint8_t)lu->block_shift; /* DATA SEGMENT GRANULARITY (log2 bytes) */
	d[38] = 0;			  /* INLINE DATA GRANULARITY */
	d[39] = 0;			  /* HELD DATA GRANULARITY */
	d[43] = 2;			  /* IMPLEMENTED DESCRIPTOR LIST LENGTH */
	d[44] = XC_SEG_B2B;
	d[45] = XC_TGT_IDENT;
	scsi_cmd_set_data_in(cmd, d, sizeof(d));
	scsi_cmd_complete(cmd, SENSE_OK);
}
