/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_in.c: PERSISTENT RESERVE IN (SPC-4 6.15): READ KEYS, READ RESERVATION,
 * REPORT CAPABILITIES and READ FULL STATUS. The data is one consistent
 * snapshot built under lu->lock straight into the command's buffer,
 * truncated to the allocation length; the length fields always give the
 * full length (SPC-4 4.2.5.6). */
#include <string.h>

#include "lib/endian.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/pr_priv.h"
#include "scsi/spc.h"

/* SPC-4 6.15.1 table 201: PERSISTENT RESERVE IN service actions */
enum {
	PRI_READ_KEYS = 0x00,
	PRI_READ_RESERVATION = 0x01,
	PRI_REPORT_CAPABILITIES = 0x02,
	PRI_READ_FULL_STATUS = 0x03,
};

/* PERSISTENT RESERVE IN ALLOCATION LENGTH is 16 bits (bytes 7-8) */
#define PRI_MAX_LEN 0xffffu

/* Response being built: bytes beyond cap are counted, not written. */
struct pri_out {
	uint8_t *p;
	size_t cap, n;
};

static void out(struct pri_out *o, const void *src, size_t len)
{
	if (o->n < o->cap) {
		size_t k = o->cap - o->n < len ? o->cap - o->n : len;

		memcpy(o->p + o->n, src, k);
	}
	o->n += len;
}

static void out_header(struct pri_out *o, uint32_t generation, uint32_t add_len)
{
	uint8_t h[8];

	put_be32(h, generation);
	put_be32(h + 4, add_len);
	out(o, h, sizeof(h));
}

enum sense_reason pr_parse_in(struct scsi_cmd *cmd)
{
	spc_data_in(cmd, cdb10_alloc_len(cmd->cdb), PRI_MAX_LEN);
	return SENSE_OK;
}

/* 6.15.2: PRGENERATION, ADDITIONAL LENGTH, the reservation keys */
static void read_keys(const struct pr_state *pr, struct pri_out *o)
{
	const struct pr_reg *r;

	out_header(o, pr->generation, 8 * pr->nregs);
	list_for_each_entry(r, &pr->regs, node)
	{
		uint8_t k[8];

		put_be64(k, r->key);
		out(o, k, sizeof(k));
	}
}

/* 6.15.3: the reservation, if any (key 0 for all registrants types) */
static void read_reservation(const struct pr_state *pr, struct pri_out *o)
{
	uint8_t d[16] = {0};

	if (pr->type == PR_TYPE_NONE) {
		out_header(o, pr->generation, 0);
		return;
	}
	out_header(o, pr->generation, sizeof(d));
	put_be64(d, pr->holder ? pr->holder->key : 0);
	d[13] = (uint8_t)(PR_SCOPE_LU << 4 | pr->type);
	out(o, d, sizeof(d));
}

/* 6.15.4 table 206 */
static void report_capabilities(const struct pr_state *pr, struct pri_out *o)
{
	uint8_t d[8] = {0};

	put_be16(d, sizeof(d));
	/* CRH 0 (RESERVE/RELEASE conflict while registered), SIP_C, ATP_C,
	 * PTPL_C when a state directory is configured */
	d[2] = 0x08 | 0x04 | (pr->store ? 0x01 : 0x00);
	/* TMV 1; ALLOW COMMANDS 011b: TEST UNIT READY allowed under Write
	 * Exclusive and Exclusive Access, MODE SENSE, REPORT SUPPORTED
	 * OPERATION CODES and the like under Write Exclusive only; PTPL_A */
	d[3] = (uint8_t)(0x80 | (0x3 << 4) | (pr->aptpl ? 0x01 : 0x00));
	/* PERSISTENT RESERVATION TYPE MASK: WR_EX_AR EX_AC_RO WR_EX_RO EX_AC
	 * WR_EX, and EX_AC_AR */
	d[4] = 0x80 | 0x40 | 0x20 | 0x08 | 0x02;
	d[5] = 0x01;
	out(o, d, sizeof(d));
}

/* 6.15.5: one descriptor (table 208) per registration */
static void read_full_status(const struct pr_state *pr, struct pri_out *o)
{
	uint8_t tid[TID_MAX_LEN];
	const struct pr_reg *r;
	uint32_t add = 0;

	list_for_each_entry(r, &pr->regs, node) add +=
	    24 + (uint32_t)tid_build(&r->port, tid, sizeof(tid));
	out_header(o, pr->generation, add);
	list_for_each_entry(r, &pr->regs, node)
	{
		size_t tl = tid_build(&r->port, tid, sizeof(tid));
		uint8_t d[24] = {0};

		put_be64(d, r->key);
		d[12] = (uint8_t)((r->all_tg_pt ? 0x02 : 0) | (pr_is_holder(pr, r) ? 0x01 : 0));
		if (pr_is_holder(pr, r))
			d[13] = (uint8_t)(PR_SCOPE_LU << 4 | pr->type);
		put_be16(d + 18, r->all_tg_pt ? 0 : r->rel_port);
		put_be32(d + 20, (uint32_t)tl);
		out(o, d, sizeof(d));
		out(o, tid, tl);
	}
}

void pr_exec_in(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct pr_state *pr = lu->core->pr;
	struct pri_out o = {.p = cmd->buf, .cap = cmd->priv.buf_len};

	pthread_mutex_lock(&lu->lock);
	switch (cdb_sa(cmd->cdb)) {
	case PRI_READ_KEYS:
		read_keys(pr, &o);
		break;
	case PRI_READ_RESERVATION:
		read_reservation(pr, &o);
		break;
	case PRI_REPORT_CAPABILITIES:
		report_capabilities(pr, &o);
		break;
	default: /* PRI_READ_FULL_STATUS: the CDB table admits nothing else */
		read_full_status(pr, &o);
		break;
	}
	pthread_mutex_unlock(&lu->lock);
	/* built into the buffer, which the Expected Data Transfer Length may
	 * have made shorter than the allocation length (cmd.c) */
	cmd->data_in_len = (uint32_t)(o.n < o.cap ? o.n : o.cap);
	cmd->priv.data_in_full =
	    (uint32_t)(o.n < cmd->priv.cdb_xfer_len ? o.n : cmd->priv.cdb_xfer_len);
	scsi_cmd_complete(cmd, SENSE_OK);
}
