/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xcopy.c: the copy manager: EXTENDED COPY(LID1) (SPC-4 6.5) and
 * EXTENDED COPY(LID4) (SPC-4 6.4) with block-to-block segments, and
 * RECEIVE COPY STATUS(LID1) (6.25) and RECEIVE COPY OPERATING PARAMETERS
 * (6.22). RECEIVE COPY STATUS(LID4) and RECEIVE COPY DATA(LID4) of these
 * copies are copy_status.c's, from the results kept here.
 *
 * Parameter list (SPC-4 5.17.7.1): a header (16 bytes in LID1; 48 in LID4,
 * table 126: the LID1-compatible 16 bytes, then a 32-byte "header CSCD
 * descriptor" of type FFh that carries the 32-bit LIST IDENTIFIER and the
 * three list lengths), the CSCD (target) descriptors, the segment
 * descriptors, the inline data. Only the header differs: xc_hdr_lid1() and
 * xc_hdr_lid4() read it, everything after it is shared. Supported:
 * target descriptor E4h (identification descriptor, SPC-4 6.4.5.2) and
 * segment descriptor 02h (block device to block device, SPC-4 6.4.6.5);
 * no inline data, so no segment descriptor that holds data for the
 * application client (0Bh-0Fh: UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE,
 * and RECEIVE COPY DATA(LID4) never has held data). The whole list is validated, every target
 * resolved and every segment checked before the first block is copied.
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
 *   copy source block failing its     COPY ABORTED with LOGICAL BLOCK GUARD /
 *   protection information check      APPLICATION TAG / REFERENCE TAG CHECK
 *   (read as READ with RDPROTECT      FAILED 10/01-03 (sbc_pi_copy_source(),
 *   000b, SBC-4 4.22)                 before the chunk is written)
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

#define XC_HDR_LEN	16   /* LID1 parameter list header (SPC-4 6.5.2) */
#define XC_LID4_HDR_LEN 48   /* LID4 header, header CSCD descriptor included (6.4.2) */
#define XC_TGT_DESC_LEN 32   /* E4h and the other fixed-length target descriptors */
#define XC_SEG_B2B_LEN	28   /* 02h: 4-byte header + DESCRIPTOR LENGTH 0018h */
#define XC_TGT_IDENT	0xe4 /* identification descriptor target descriptor */
#define XC_SEG_B2B	0x02 /* block device to block device */
#define XC_DESIG_MAX	20   /* bytes 4-23 of an E4h target descriptor */

/* SERVICE ACTION of EXTENDED COPY (83h) */
enum { XC_SA_LID1 = 0x00, XC_SA_LID4 = 0x01 };

/* LIST ID USAGE (SPC-4 tables 128, 129) */
enum {
	XC_LIST_HOLD = 0,     /* 00b: results held for RECEIVE COPY RESULTS */
	XC_LIST_RESERVED = 1, /* 01b */
	XC_LIST_NO_HOLD = 2,  /* 10b: the list identifier is unique, results not held */
	XC_LIST_NONE = 3,     /* 11b: no list identifier (LIST IDENTIFIER shall be 0) */
};

/* COPY OPERATION STATUS (SPC-4 table 249), kept in the results; RECEIVE
 * COPY STATUS(LID1) reports "in progress" as 00h (table 254) */
enum {
	XC_STATUS_GOOD = 0x01,
	XC_STATUS_ERROR = 0x02,
	XC_STATUS_IN_PROGRESS = 0x11, /* in the foreground: status follows the copy */
	XC_LID1_IN_PROGRESS = 0x00,
};

/* The header fields the shared parse needs, from either format. */
struct xc_hdr {
	uint32_t len; /* header bytes: where the CSCD descriptors start */
	uint32_t tdl, sdl, inl;
	uint32_t list_id;
	uint8_t usage;
	unsigned list_id_byte, inl_byte; /* for the field pointers */
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
	XC_REF_LOCKED, /* by reference: range lock on the destination held */
	XC_REF,	       /* BS_OP_COPY submitted */
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
	uint8_t *pi;	 /* the source chunk's tuples (sbc_pi_copy_buf()) */
	size_t pi_len;	 /* bytes allocated at pi */
	uint8_t *tuples; /* pi while the chunk's source keeps tuples, else NULL */
	bool hold;	 /* LIST ID USAGE 00b: results held for RECEIVE COPY STATUS */
	bool recorded;	 /* the results slot is this copy's (in progress) */
	bool counted;	 /* counted in copies_running */
	bool no_ref;	 /* a BS_OP_COPY was refused: data copies from now on */
	uint8_t sa;	 /* XC_SA_LID1 or XC_SA_LID4 */
	uint32_t list_id;
	unsigned list_id_byte;
	uint32_t tgt_off, seg_off; /* where the descriptor lists start */
};

static void xcopy_free(struct scsi_cmd *cmd)
{
	struct xcopy_op *xo = cmd->priv.op;

	for (unsigned i = 0; i < xo->ntgt; i++)
		scsi_lu_put(xo->tgt[i].lu);
	if (xo->buf)
		buf_free(xo->buf, xo->buf_len);
	free(xo->pi);
	free(xo);
}

/* ---- held results (lu->lock) ---- */

static bool result_is(const struct sbc_copy_result *c, const struct scsi_nexus *n, uint32_t list_id)
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
 * in progress the results are not held. A copy of the nexus with the same
 * list identifier still in progress refuses this one (SPC-4 5.17.4.2:
 * OPERATION IN PROGRESS; 6.4.3.2: INVALID FIELD IN PARAMETER LIST when it
 * came in the other parameter list format). */
static enum sense_reason result_begin(struct scsi_cmd *cmd, struct xcopy_op *xo)
{
	struct scsi_lu *lu = cmd->priv.lu;
	const struct scsi_nexus *n = cmd->nexus;
	struct sbc_lu_state *s = lu->sbc;
	struct sbc_copy_result *c = NULL;
	enum sense_reason r = SENSE_OK;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS && !c; i++)
		if (result_is(&s->copies[i], n, xo->list_id))
			c = &s->copies[i];
	if (c && c->status == XC_STATUS_IN_PROGRESS) {
		r = c->sa == xo->sa ? SENSE_OPERATION_IN_PROGRESS
				    : param_invalid_field(cmd, xo->list_id_byte, -1);
		pthread_mutex_unlock(&lu->lock);
		return r;
	}
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
	if (c && !result_is(c, n, xo->list_id)) {
		result_clear(c);
		c->port = strdup(n->port_name);
		if (!c->port)
			c = NULL;
	}
	if (c) {
		c->valid = true;
		c->list_id = xo->list_id;
		c->rel_port = n->tport->rel_port_id;
		c->sa = xo->sa;
		c->status = XC_STATUS_IN_PROGRESS;
		c->scsi_status = 0;
		c->sense_len = 0;
		c->segments = 0;
		c->bytes = 0;
		c->seq = ++s->copy_seq;
		xo->recorded = true;
	}
	pthread_mutex_unlock(&lu->lock);
	/* the token copies' results of this list identifier go (SPC-4 6.24) */
	rod_forget(cmd, xo->list_id);
	return r;
}

/* The end of a recorded copy: its status, and the sense data it ended with
 * (RECEIVE COPY STATUS(LID4) returns them, SPC-4 6.24). */
static void result_end(struct xcopy_op *xo, enum sense_reason r, uint16_t segments)
{
	struct scsi_cmd *cmd = xo->op.cmd;
	struct scsi_lu *lu = cmd->priv.lu;
	struct sbc_lu_state *s = lu->sbc;
	uint8_t sense[SBC_COPY_SENSE_MAX];
	size_t sl = 0;

	if (sense_status(r) == SAM_STAT_CHECK_CONDITION)
		sl = sense_build(sense, sizeof(sense), r, lu_d_sense(lu), NULL);
	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++) {
		struct sbc_copy_result *c = &s->copies[i];

		if (result_is(c, cmd->nexus, xo->list_id) && c->status == XC_STATUS_IN_PROGRESS) {
			c->status = r == SENSE_OK ? XC_STATUS_GOOD : XC_STATUS_ERROR;
			c->scsi_status = sense_status(r);
			c->sense_len = (uint8_t)sl;
			memcpy(c->sense, sense, sl);
			c->segments = segments;
			c->bytes = xo->total;
			break;
		}
	}
	pthread_mutex_unlock(&lu->lock);
}

void sbc_xcopy_forget(struct scsi_lu *lu, const struct scsi_nexus *n, uint32_t list_id)
{
	struct sbc_lu_state *s = lu->sbc;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++)
		if (result_is(&s->copies[i], n, list_id) &&
		    s->copies[i].status != XC_STATUS_IN_PROGRESS)
			result_clear(&s->copies[i]);
	pthread_mutex_unlock(&lu->lock);
}

bool sbc_xcopy_status(const struct scsi_cmd *cmd, uint32_t list_id, struct sbc_copy_status *st)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct sbc_lu_state *s = lu->sbc;
	bool found = false;

	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS && !found; i++) {
		const struct sbc_copy_result *c = &s->copies[i];

		if (!result_is(c, cmd->nexus, list_id))
			continue;
		found = true;
		memset(st, 0, sizeof(*st));
		st->sa = c->sa;
		st->status = c->status;
		st->scsi_status = c->scsi_status;
		st->units = 0x00; /* bytes: the 64-bit TRANSFER COUNT holds them */
		st->count = c->bytes;
		st->segments = c->segments;
		st->sense_len = c->sense_len;
		memcpy(st->sense, c->sense, c->sense_len);
	}
	pthread_mutex_unlock(&lu->lock);
	return found;
}

/* ---- EXTENDED COPY ---- */

static uint32_t xc_hdr_len(const struct scsi_cmd *cmd)
{
	return cdb_sa(cmd->cdb) == XC_SA_LID4 ? XC_LID4_HDR_LEN : XC_HDR_LEN;
}

/* EXTENDED COPY 83h / 00h (LID1) and 01h (LID4): PARAMETER LIST LENGTH
 * 10-13 in both. */
enum sense_reason sbc_parse_xcopy(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t len = cdb16_param_list_len(cmd->cdb);

	/* SPC-4 6.4.1, 6.5.1: zero transfers nothing and is not an error;
	 * more than a header and the largest descriptor lists (no inline
	 * data) cannot be a valid list */
	if (len > xc_hdr_len(cmd) + XCOPY_MAX_DESCRIPTOR_LIST_BYTES)
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

/* The LID1 header (SPC-4 6.5.2): LIST IDENTIFIER 0, STR / LIST ID USAGE /
 * PRIORITY 1, CSCD DESCRIPTOR LIST LENGTH 2-3, reserved 4-7, SEGMENT
 * DESCRIPTOR LIST LENGTH 8-11, INLINE DATA LENGTH 12-15. */
static enum sense_reason xc_hdr_lid1(struct scsi_cmd *cmd, struct xc_hdr *h)
{
	const uint8_t *b = cmd->buf;

	h->len = XC_HDR_LEN;
	h->list_id = b[0];
	h->list_id_byte = 0;
	h->usage = (b[1] >> 3) & 0x03;
	h->tdl = get_be16(b + 2);
	h->sdl = get_be32(b + 8);
	h->inl = get_be32(b + 12);
	h->inl_byte = 12;
	if (b[4] || b[5] || b[6] || b[7])
		return param_invalid_field(cmd, 4, -1);
	return SENSE_OK;
}

/* The LID4 header (SPC-4 6.4.2, table 126): PARAMETER LIST FORMAT 0 (01h),
 * STR / LIST ID USAGE / PRIORITY 1, HEADER CSCD DESCRIPTOR LIST LENGTH 2-3
 * (0020h), G_SENSE / IMMED 15, HEADER CSCD DESCRIPTOR TYPE CODE 16 (FFh),
 * LIST IDENTIFIER 20-23, CSCD DESCRIPTOR LIST LENGTH 42-43, SEGMENT
 * DESCRIPTOR LIST LENGTH 44-45, INLINE DATA LENGTH 46-47; the rest
 * reserved. IMMED is accepted (status follows the copy either way, as for
 * the token copies); G_SENSE is not: GOOD status carries no sense data
 * here, so the list is refused rather than run without what it asks for. */
static enum sense_reason xc_hdr_lid4(struct scsi_cmd *cmd, struct xc_hdr *h)
{
	static const uint8_t resv[][2] = {{4, 14}, {17, 19}, {24, 41}};
	const uint8_t *b = cmd->buf;
	bool immed = b[15] & 0x01, g_sense = b[15] & 0x02;

	h->len = XC_LID4_HDR_LEN;
	h->list_id = get_be32(b + 20);
	h->list_id_byte = 20;
	h->usage = (b[1] >> 3) & 0x03;
	h->tdl = get_be16(b + 42);
	h->sdl = get_be16(b + 44);
	h->inl = get_be16(b + 46);
	h->inl_byte = 46;
	if (b[0] != 0x01)
		return param_invalid_field(cmd, 0, -1);
	if (get_be16(b + 2) != XC_TGT_DESC_LEN)
		return param_invalid_field(cmd, 2, -1);
	if (b[16] != 0xff)
		return param_invalid_field(cmd, 16, -1);
	for (size_t i = 0; i < sizeof(resv) / sizeof(resv[0]); i++)
		for (unsigned j = resv[i][0]; j <= resv[i][1]; j++)
			if (b[j])
				return param_invalid_field(cmd, j, -1);
	if (b[15] & 0xfc)
		return param_invalid_field(cmd, 15, -1);
	/* SPC-4 6.4.2: IMMED with G_SENSE, or with no list identifier to ask
	 * for the status by, is INVALID FIELD IN CDB (sic: the fields are in
	 * the parameter list, so no field pointer) */
	if (immed && (g_sense || h->usage == XC_LIST_NONE)) {
		memset(&cmd->priv.sx, 0, sizeof(cmd->priv.sx));
		return SENSE_INVALID_FIELD_IN_CDB;
	}
	if (g_sense)
		return param_invalid_field(cmd, 15, 1);
	return SENSE_OK;
}

/* Parameter list header and descriptor lists: sizes, counts, type codes
 * (SPC-4 6.4.3, 6.4.5, 6.4.6), the same for both formats once the header
 * is read. Fills ntgt/nseg, the list identifier and where the lists are. */
static enum sense_reason xc_parse_list(struct scsi_cmd *cmd, struct xcopy_op *xo)
{
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len;
	struct xc_hdr h;
	uint32_t off, end;
	enum sense_reason r;

	if (cmd->write_len < len || len < xc_hdr_len(cmd))
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	r = xo->sa == XC_SA_LID4 ? xc_hdr_lid4(cmd, &h) : xc_hdr_lid1(cmd, &h);
	if (r != SENSE_OK)
		return r;
	/* the lists must be inside the parameter list, and not longer than
	 * MAXIMUM DESCRIPTOR LIST LENGTH */
	if ((uint64_t)h.len + h.tdl + h.sdl + h.inl > len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if ((uint64_t)h.tdl + h.sdl > XCOPY_MAX_DESCRIPTOR_LIST_BYTES)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	/* MAXIMUM INLINE DATA LENGTH is zero */
	if (h.inl)
		return xc_fail(cmd, SENSE_INLINE_DATA_LENGTH_EXCEEDED, h.inl_byte, -1);
	if (h.usage == XC_LIST_RESERVED)
		return param_invalid_field(cmd, 1, 4);
	if (h.usage == XC_LIST_NONE && h.list_id)
		return param_invalid_field(cmd, h.list_id_byte, -1);
	xo->hold = h.usage == XC_LIST_HOLD;
	xo->list_id = h.list_id;
	xo->list_id_byte = h.list_id_byte;
	xo->tgt_off = h.len;
	xo->seg_off = h.len + h.tdl;

	/* target descriptors */
	off = h.len;
	end = h.len + h.tdl;
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

	/* segment descriptors: only 02h; a type that holds data for the
	 * application client (SPC-4 6.4.6) is one of the unsupported ones */
	end = h.len + h.tdl + h.sdl;
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
		unsigned off = xo->tgt_off + i * XC_TGT_DESC_LEN;
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
static enum sense_reason xc_check_segments(struct scsi_cmd *cmd, struct xcopy_op *xo)
{
	const uint8_t *b = cmd->buf;

	for (unsigned i = 0; i < xo->nseg; i++) {
		unsigned off = xo->seg_off + i * XC_SEG_B2B_LEN;
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

	/* SEGMENTS PROCESSED counts the segment being processed (SPC-4 6.24) */
	if (xo->recorded)
		result_end(xo, r,
			   (uint16_t)(r == SENSE_OK ? xo->cur : UT_MIN(xo->cur + 1, xo->nseg)));
	if (xo->counted) {
		pthread_mutex_lock(&lu->lock);
		lu->sbc->copies_running--;
		pthread_mutex_unlock(&lu->lock);
		xo->counted = false;
	}
	/* a field pointer only for the list identifier (result_begin) */
	return sbc_op_finish(&xo->op, r,
			     r == SENSE_INVALID_FIELD_IN_PARAM_LIST ? &cmd->priv.sx : NULL);
}

/* Whether the chunk can be a reference copy (BS_OP_COPY): both media of
 * one type that copies so (a dedup store), no protection information to
 * check or carry. */
static bool xc_by_reference(const struct xcopy_op *xo, const struct scsi_lu *src,
			    const struct scsi_lu *dst)
{
	return !xo->no_ref && (src->bs->caps & dst->bs->caps & BS_CAP_COPY) &&
	       !(src->bs->caps & BS_CAP_PI) && !(dst->bs->caps & BS_CAP_PI) &&
	       src->bs->ops == dst->bs->ops;
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
			if (xc_by_reference(xo, src, dst)) {
				r = xc_access(op->cmd, &xo->tgt[s->dst], true);
				if (r != SENSE_OK)
					return xc_finish(xo, r);
				xo->state = XC_REF_LOCKED;
				if (!sbc_range_lock(dst, &op->rl,
						    (s->dst_off + xo->done) >> dst->block_shift,
						    xo->chunk >> dst->block_shift, false))
					return SBC_STEP_WAIT;
				continue;
			}
			xo->state = XC_SRC_LOCKED;
			if (!sbc_range_lock(src, &op->rl,
					    (s->src_off + xo->done) >> src->block_shift,
					    xo->chunk >> src->block_shift, false))
				return SBC_STEP_WAIT;
			continue;
		case XC_SRC_LOCKED: {
			bool nomem;

			/* a source with protection information is read with
			 * its tuples, checked below (sbc_pi_copy_source()) */
			xo->tuples = sbc_pi_copy_buf(src, xo->chunk >> src->block_shift, &xo->pi,
						     &xo->pi_len, &nomem);
			if (nomem)
				return xc_finish(xo, SENSE_ABORTED_INSUFFICIENT_RESOURCES);
			op->lu = src;
			sbc_op_io(op, BS_OP_READ, s->src_off + xo->done, xo->chunk, xo->buf, 0);
			op->io.pi = xo->tuples;
			xo->state = XC_READ;
			return SBC_STEP_IO;
		}
		case XC_READ: {
			uint64_t bad;

			sbc_range_unlock(&op->rl);
			if (op->err)
				return xc_finish(xo, SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE);
			/* a failed check ends the copy before this chunk is
			 * written (COPY ABORTED, 10/0x) */
			r = sbc_pi_copy_source(src, (s->src_off + xo->done) >> src->block_shift,
					       xo->buf, xo->tuples, xo->chunk >> src->block_shift,
					       &bad);
			if (r != SENSE_OK)
				return xc_finish(xo, r);
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
		}
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
		case XC_REF_LOCKED:
			op->lu = dst;
			sbc_op_io(op, BS_OP_COPY, s->dst_off + xo->done, xo->chunk, NULL, 0);
			op->io.src = src->bs;
			op->io.src_off = s->src_off + xo->done;
			xo->state = XC_REF;
			return SBC_STEP_IO;
		case XC_REF:
			if (op->err == -EXDEV || op->err == -EOPNOTSUPP) {
				/* not between these two: the same chunk by data */
				sbc_range_unlock(&op->rl);
				xo->no_ref = true;
				xo->state = XC_NEXT;
				continue;
			}
			xo->state = XC_WRITE; /* done as a write is */
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
	xo->sa = cdb_sa(cmd->cdb);

	r = xc_parse_list(cmd, xo);
	if (r == SENSE_OK) {
		ntgt = xo->ntgt;
		xo->ntgt = 0; /* counts the references taken from here on */
		r = xc_resolve_targets(cmd, xo, ntgt);
	}
	if (r == SENSE_OK)
		r = xc_check_segments(cmd, xo);
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
	if (xo->hold) {
		r = result_begin(cmd, xo);
		if (r != SENSE_OK) {
			xc_finish(xo, r);
			return;
		}
	}
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

/* RECEIVE COPY STATUS(LID1) (SPC-4 6.25) of the issuing I_T nexus' copy
 * with LIST IDENTIFIER (an EXTENDED COPY of either format: list
 * identifiers are 32-bit, 5.17.4.2); none held: INVALID FIELD IN CDB
 * (libiscsi ReceiveCopyResults.CopyStatus). The results of a finished
 * LID1 copy are discarded once returned (6.25 a); a LID4 copy's stay for
 * RECEIVE COPY STATUS(LID4) and RECEIVE COPY DATA(LID4). */
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
		if (c->status != XC_STATUS_IN_PROGRESS && c->sa == XC_SA_LID1)
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
	/* HDD 0: no held data; COPY COMMAND STATUS (table 254) */
	d[4] = res.status == XC_STATUS_IN_PROGRESS ? XC_LID1_IN_PROGRESS : res.status;
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
