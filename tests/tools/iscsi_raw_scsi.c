/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_raw_scsi.c: full feature phase exchanges of the raw test initiator:
 * SCSI Command with immediate, unsolicited and solicited data (RFC 7143
 * 4.2.5, 11.3-11.8), NOP (11.18/11.19), TMF (11.5/11.6), Text (11.10/11.11)
 * and Logout (11.14/11.15). */
#include "iscsi_raw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/endian.h"

int ir_answer_nopin(struct ir_conn *c, const struct ir_pdu *in)
{
	struct ir_pdu out = {0};
	struct ir_bhs_req *r = &out.bhs.req;

	if (get_be32(in->bhs.rsp.ttt) == IR_RSVD_TAG)
		return 0;
	r->opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	r->flags = IR_FLAG_FINAL;
	memcpy(r->lun, in->bhs.rsp.lun, 8);
	put_be32(r->itt, IR_RSVD_TAG);
	memcpy(r->ttt, in->bhs.rsp.ttt, 4);
	put_be32(r->cmdsn, c->cmdsn);
	put_be32(r->exp_statsn, c->expstatsn);
	c->nopin_answered++;
	return ir_send_pdu(c, &out);
}

/* Receives the next PDU that is not an unsolicited NOP-In or Async Message
 * (those are answered/counted here). */
static int recv_relevant(struct ir_conn *c, struct ir_pdu *p)
{
	for (;;) {
		int rc = ir_recv_pdu(c, p, -1);

		if (rc)
			return rc;
		switch (ir_pdu_opcode(p)) {
		case IR_OP_NOP_IN:
			if (ir_pdu_itt(p) != IR_RSVD_TAG)
				return 0;
			rc = ir_answer_nopin(c, p);
			ir_pdu_free(p);
			if (rc)
				return rc;
			continue;
		case IR_OP_ASYNC_MSG:
			c->async_seen++;
			ir_pdu_free(p);
			continue;
		default:
			return 0;
		}
	}
}

/* RFC 7143 4.2.2.1: a non-immediate command may be sent only while CmdSN <=
 * MaxCmdSN. While the target keeps the window closed, wait for a PDU that
 * opens it (a NOP-In, answered if it asks; an Async Message); anything else
 * arriving while nothing is outstanding is a protocol error. */
static int wait_window(struct ir_conn *c)
{
	while (c->full_feature && ir_sn_lt(c->max_cmdsn, c->cmdsn)) {
		struct ir_pdu p;
		int rc = ir_recv_pdu(c, &p, -1);
		uint8_t op;

		if (rc)
			return rc;
		op = ir_pdu_opcode(&p);
		if (op == IR_OP_NOP_IN && ir_pdu_itt(&p) == IR_RSVD_TAG)
			rc = ir_answer_nopin(c, &p);
		else if (op == IR_OP_ASYNC_MSG)
			c->async_seen++;
		else
			rc = -EPROTO;
		if (rc == -EPROTO)
			snprintf(c->err, sizeof(c->err), "unexpected %s while the window is closed",
				 ir_opcode_name(op));
		ir_pdu_free(&p);
		if (rc)
			return rc;
	}
	return 0;
}

/* ITT of the PDU a Reject carries in its data segment (11.17.3), or 0xffffffff. */
static uint32_t rejected_itt(const struct ir_pdu *p, uint8_t *opcode)
{
	union ir_bhs h;

	if (p->data_len < IR_BHS_LEN) {
		*opcode = 0xff;
		return IR_RSVD_TAG;
	}
	memcpy(h.raw, p->data, IR_BHS_LEN);
	*opcode = h.common.opcode & IR_OP_MASK;
	return get_be32(h.common.itt);
}

int ir_send_data_out(struct ir_conn *c, const uint8_t lun[8], uint32_t itt, uint32_t ttt,
		     const uint8_t *buf, uint32_t off, uint32_t len, uint32_t max_seg,
		     int (*send)(void *arg, struct ir_pdu *p), void *arg)
{
	uint32_t datasn = 0, done = 0;
	uint32_t max = c->p.target_mrdsl ? c->p.target_mrdsl : IR_DEFAULT_MRDSL;

	if (max_seg && max_seg < max)
		max = max_seg;
	while (done < len) {
		struct ir_pdu p = {0};
		struct ir_bhs_data *d = &p.bhs.data;
		uint32_t n = UT_MIN(len - done, max);
		int rc;

		d->opcode = IR_OP_DATA_OUT;
		d->flags = done + n == len ? IR_FLAG_FINAL : 0;
		memcpy(d->lun, lun, 8);
		put_be32(d->itt, itt);
		put_be32(d->ttt, ttt);
		put_be32(d->exp_statsn_or_cmdsn, c->expstatsn);
		put_be32(d->datasn, datasn++);
		put_be32(d->buffer_offset, off + done);
		p.data = (uint8_t *)(uintptr_t)(buf + off + done);
		p.data_len = n;
		rc = send ? send(arg, &p) : ir_send_pdu(c, &p);
		if (rc)
			return rc;
		done += n;
	}
	return 0;
}

int ir_datain_take(const struct ir_pdu *p, void *buf, uint32_t len, uint32_t *got)
{
	uint32_t off = get_be32(p->bhs.data.buffer_offset);

	if (off > len || p->data_len > len - off)
		return -EPROTO;
	/* a Data-In may carry no data (only the status): no copy from NULL */
	if (p->data_len)
		memcpy((uint8_t *)buf + off, p->data, p->data_len);
	*got += p->data_len;
	return 0;
}

static void parse_status(const struct ir_pdu *p, struct ir_scsi_result *res)
{
	const struct ir_bhs_scsi_rsp *r = &p->bhs.scsi_rsp;

	res->response = r->response;
	res->status = r->status;
	res->flags = r->flags & (IR_RSP_BIDI_OVERFLOW | IR_RSP_BIDI_UNDERFLOW | IR_RSP_OVERFLOW |
				 IR_RSP_UNDERFLOW);
	res->residual = get_be32(r->residual);
	/* 11.4.7: SenseLength (2 bytes) then the sense data */
	if (p->data_len >= 2) {
		uint32_t sl = get_be16(p->data);

		if (sl > p->data_len - 2)
			sl = p->data_len - 2;
		if (sl > sizeof(res->sense))
			sl = sizeof(res->sense);
		memcpy(res->sense, p->data + 2, sl);
		res->sense_len = sl;
	}
}

bool ir_sense_parse(const struct ir_scsi_result *r, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	uint8_t rc;

	if (r->sense_len < 4)
		return false;
	rc = r->sense[0] & 0x7f;
	if (rc == 0x70 || rc == 0x71) {
		if (r->sense_len < 14)
			return false;
		*key = r->sense[2] & 0x0f;
		*asc = r->sense[12];
		*ascq = r->sense[13];
		return true;
	}
	if (rc == 0x72 || rc == 0x73) {
		*key = r->sense[1] & 0x0f;
		*asc = r->sense[2];
		*ascq = r->sense[3];
		return true;
	}
	return false;
}

int ir_scsi_cmd_ex(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		   enum ir_dir dir, const void *out, uint32_t out_len, void *in, uint32_t in_len,
		   const struct ir_cmd_opts *opts, struct ir_scsi_result *res)
{
	static const struct ir_cmd_opts no_opts;
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;
	uint8_t ahs[4 + 260];
	uint32_t itt = ir_next_itt(c);
	uint32_t imm = 0, unsol = 0, next_datasn = 0;
	const uint8_t *obuf = out;
	int rc;

	if (!opts)
		opts = &no_opts;
	memset(res, 0, sizeof(*res));
	if (cdb_len > 16 + 256 || !cdb_len)
		return -EINVAL;
	rc = wait_window(c);
	if (rc)
		return rc;
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = (uint8_t)(opts->attr ? opts->attr : IR_CMD_ATTR_SIMPLE);
	if (dir == IR_DIR_READ)
		h->flags |= IR_CMD_READ;
	if (dir == IR_DIR_WRITE)
		h->flags |= IR_CMD_WRITE;
	ir_lun_encode(lun, h->lun);
	put_be32(h->itt, itt);
	put_be32(h->exp_xfer_len, opts->edtl_override_set ? opts->edtl_override
				  : dir == IR_DIR_WRITE	  ? out_len
				  : dir == IR_DIR_READ	  ? in_len
							  : 0);
	put_be32(h->cmdsn, c->cmdsn++);
	put_be32(h->exp_statsn, c->expstatsn);
	memcpy(h->cdb, cdb, UT_MIN(cdb_len, (size_t)16));
	if (cdb_len > 16) {
		/* 11.2.2.3: Extended CDB AHS; AHSLength counts the reserved byte */
		size_t rest = cdb_len - 16;

		memset(ahs, 0, sizeof(ahs));
		put_be16(ahs, (uint16_t)(rest + 1));
		ahs[2] = 1;
		memcpy(ahs + 4, cdb + 16, rest);
		p.ahs = ahs;
		p.ahs_len = (uint32_t)((4 + rest + 3) & ~3u);
	}
	if (dir == IR_DIR_WRITE && out_len) {
		uint32_t fb = c->p.first_burst;

		if (c->p.immediate_data && !opts->no_immediate)
			imm = UT_MIN(UT_MIN(out_len, fb), c->p.target_mrdsl);
		if (!c->p.initial_r2t && !opts->no_unsolicited)
			unsol = UT_MIN(out_len, fb);
		if (unsol < imm)
			unsol = imm;
	}
	/* 11.3.1: F is set when no unsolicited Data-Out PDUs follow. */
	if (unsol <= imm)
		h->flags |= IR_FLAG_FINAL;
	p.data = (uint8_t *)(uintptr_t)obuf;
	p.data_len = imm;
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc;
	if (unsol > imm) {
		rc = ir_send_data_out(c, h->lun, itt, IR_RSVD_TAG, obuf + 0, imm, unsol - imm, 0,
				      NULL, NULL);
		if (rc)
			return rc;
	}
	for (;;) {
		struct ir_pdu r;
		uint8_t op, rop;

		rc = recv_relevant(c, &r);
		if (rc)
			return rc;
		op = ir_pdu_opcode(&r);
		if (op == IR_OP_REJECT) {
			uint32_t ritt = rejected_itt(&r, &rop);

			c->rejects_seen++;
			res->rejected = true;
			res->reject_reason = r.bhs.reject.reason;
			ir_pdu_free(&r);
			if (ritt == itt && rop == IR_OP_SCSI_CMD)
				return 0; /* the command was not executed */
			continue;
		}
		if (ir_pdu_itt(&r) != itt) {
			snprintf(c->err, sizeof(c->err), "unexpected %s itt 0x%x (want 0x%x)",
				 ir_opcode_name(op), ir_pdu_itt(&r), itt);
			ir_pdu_free(&r);
			return -EPROTO;
		}
		if (op == IR_OP_R2T) {
			uint32_t off = get_be32(r.bhs.r2t.buffer_offset);
			uint32_t len = get_be32(r.bhs.r2t.desired_len);
			uint32_t ttt = get_be32(r.bhs.r2t.ttt);

			ir_pdu_free(&r);
			/* 11.8.4: the R2T stays inside the expected transfer */
			if (dir != IR_DIR_WRITE || off > out_len || len > out_len - off || !len) {
				snprintf(c->err, sizeof(c->err),
					 "R2T outside the buffer: off %u len %u of %u", off, len,
					 out_len);
				return -EPROTO;
			}
			rc = ir_send_data_out(c, h->lun, itt, ttt, obuf, off, len, 0, NULL, NULL);
			if (rc)
				return rc;
			continue;
		}
		if (op == IR_OP_DATA_IN) {
			uint32_t off = get_be32(r.bhs.data.buffer_offset);
			uint32_t sn = get_be32(r.bhs.data.datasn);

			if (dir != IR_DIR_READ || sn != next_datasn ||
			    ir_datain_take(&r, in, in_len, &res->data_in_len)) {
				snprintf(c->err, sizeof(c->err),
					 "bad Data-In: off %u len %u of %u datasn %u want %u", off,
					 r.data_len, in_len, sn, next_datasn);
				ir_pdu_free(&r);
				return -EPROTO;
			}
			next_datasn++;
			if (r.bhs.data.flags & IR_DATAIN_STATUS) {
				res->status = r.bhs.data.status;
				res->flags =
				    r.bhs.data.flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW);
				res->residual = get_be32(r.bhs.data.residual);
				ir_pdu_free(&r);
				return 0;
			}
			ir_pdu_free(&r);
			continue;
		}
		if (op == IR_OP_SCSI_RSP) {
			parse_status(&r, res);
			ir_pdu_free(&r);
			return 0;
		}
		snprintf(c->err, sizeof(c->err), "unexpected %s for a SCSI command",
			 ir_opcode_name(op));
		ir_pdu_free(&r);
		return -EPROTO;
	}
}

int ir_scsi_cmd(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		enum ir_dir dir, const void *out, uint32_t out_len, void *in, uint32_t in_len,
		struct ir_scsi_result *res)
{
	return ir_scsi_cmd_ex(c, lun, cdb, cdb_len, dir, out, out_len, in, in_len, NULL, res);
}

int ir_read16(struct ir_conn *c, uint64_t lun, uint64_t lba, uint32_t blocks, uint32_t bs,
	      void *buf, struct ir_scsi_result *res)
{
	uint8_t cdb[16] = {0x88};

	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, blocks);
	return ir_scsi_cmd(c, lun, cdb, sizeof(cdb), IR_DIR_READ, NULL, 0, buf, blocks * bs, res);
}

int ir_write16(struct ir_conn *c, uint64_t lun, uint64_t lba, uint32_t blocks, uint32_t bs,
	       const void *buf, bool fua, struct ir_scsi_result *res)
{
	uint8_t cdb[16] = {0x8a};

	if (fua)
		cdb[1] = 0x08; /* SBC-4 5.41: FUA */
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, blocks);
	return ir_scsi_cmd(c, lun, cdb, sizeof(cdb), IR_DIR_WRITE, buf, blocks * bs, NULL, 0, res);
}

int ir_sync_cache16(struct ir_conn *c, uint64_t lun, struct ir_scsi_result *res)
{
	uint8_t cdb[16] = {0x91};

	return ir_scsi_cmd(c, lun, cdb, sizeof(cdb), IR_DIR_NONE, NULL, 0, NULL, 0, res);
}

int ir_read_capacity16(struct ir_conn *c, uint64_t lun, uint64_t *blocks, uint32_t *bs,
		       struct ir_scsi_result *res)
{
	uint8_t cdb[16] = {0x9e, 0x10};
	uint8_t buf[32];
	int rc;

	put_be32(cdb + 10, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	rc = ir_scsi_cmd(c, lun, cdb, sizeof(cdb), IR_DIR_READ, NULL, 0, buf, sizeof(buf), res);
	if (rc || res->status)
		return rc;
	if (res->data_in_len < 12)
		return -EPROTO;
	*blocks = get_be64(buf) + 1;
	*bs = get_be32(buf + 8);
	return 0;
}

int ir_test_unit_ready(struct ir_conn *c, uint64_t lun, struct ir_scsi_result *res)
{
	uint8_t cdb[6] = {0};

	return ir_scsi_cmd(c, lun, cdb, sizeof(cdb), IR_DIR_NONE, NULL, 0, NULL, 0, res);
}

int ir_nop_ping(struct ir_conn *c, const void *data, uint32_t len)
{
	struct ir_pdu p = {0};
	struct ir_bhs_req *r = &p.bhs.req;
	uint32_t itt = ir_next_itt(c);
	int rc;

	r->opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	r->flags = IR_FLAG_FINAL;
	put_be32(r->itt, itt);
	put_be32(r->ttt, IR_RSVD_TAG);
	put_be32(r->cmdsn, c->cmdsn);
	put_be32(r->exp_statsn, c->expstatsn);
	p.data = (uint8_t *)(uintptr_t)data;
	p.data_len = len;
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc;
	for (;;) {
		struct ir_pdu in;

		rc = recv_relevant(c, &in);
		if (rc)
			return rc;
		if (ir_pdu_opcode(&in) == IR_OP_NOP_IN && ir_pdu_itt(&in) == itt) {
			/* 11.19.1: the NOP-In echoes the ping data */
			rc = in.data_len == len && (!len || !memcmp(in.data, data, len)) ? 0
											 : -EPROTO;
			if (rc)
				snprintf(c->err, sizeof(c->err), "NOP-In echo differs");
			ir_pdu_free(&in);
			return rc;
		}
		if (ir_pdu_opcode(&in) == IR_OP_REJECT) {
			c->rejects_seen++;
			ir_pdu_free(&in);
			return -ECANCELED;
		}
		snprintf(c->err, sizeof(c->err), "unexpected %s waiting for NOP-In",
			 ir_opcode_name(ir_pdu_opcode(&in)));
		ir_pdu_free(&in);
		return -EPROTO;
	}
}

int ir_logout(struct ir_conn *c, uint8_t *response)
{
	return ir_logout_ex(c, IR_LOGOUT_SESSION, c->cid, response);
}

int ir_logout_ex(struct ir_conn *c, int reason, uint16_t cid, uint8_t *response)
{
	struct ir_pdu p = {0};
	struct ir_bhs_logout_req *l = &p.bhs.logout_req;
	uint32_t itt = ir_next_itt(c);
	int rc;

	l->opcode = IR_OP_IMMEDIATE | IR_OP_LOGOUT_REQ;
	l->reason = (uint8_t)(IR_FLAG_FINAL | (reason & 0x7f));
	put_be32(l->itt, itt);
	put_be16(l->cid, cid);
	put_be32(l->cmdsn, c->cmdsn);
	put_be32(l->exp_statsn, c->expstatsn);
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc;
	for (;;) {
		struct ir_pdu in;

		rc = recv_relevant(c, &in);
		if (rc)
			return rc;
		if (ir_pdu_opcode(&in) == IR_OP_LOGOUT_RSP && ir_pdu_itt(&in) == itt) {
			if (response)
				*response = in.bhs.logout_rsp.response;
			ir_pdu_free(&in);
			return 0;
		}
		ir_pdu_free(&in);
	}
}

int ir_tmf(struct ir_conn *c, int function, uint64_t lun, uint32_t ref_itt, uint32_t ref_cmdsn,
	   uint8_t *response)
{
	return ir_tmf_ex(c, function, lun, ref_itt, ref_cmdsn, response, NULL);
}

int ir_scsi_send(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		 enum ir_dir dir, uint32_t edtl, uint32_t *itt)
{
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	if (cdb_len > sizeof(h->cdb) || dir == IR_DIR_WRITE)
		return -EINVAL;
	*itt = ir_next_itt(c);
	h->opcode = IR_OP_SCSI_CMD;
	h->flags =
	    (uint8_t)(IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE | (dir == IR_DIR_READ ? IR_CMD_READ : 0));
	ir_lun_encode(lun, h->lun);
	put_be32(h->itt, *itt);
	put_be32(h->exp_xfer_len, edtl);
	put_be32(h->cmdsn, c->cmdsn++);
	put_be32(h->exp_statsn, c->expstatsn);
	memcpy(h->cdb, cdb, cdb_len);
	return ir_send_pdu(c, &p);
}

int ir_tmf_ex(struct ir_conn *c, int function, uint64_t lun, uint32_t ref_itt, uint32_t ref_cmdsn,
	      uint8_t *response, uint8_t add_info[3])
{
	struct ir_pdu p = {0};
	struct ir_bhs_tmf_req *t = &p.bhs.tmf_req;
	uint32_t itt = ir_next_itt(c);
	int rc;

	t->opcode = IR_OP_IMMEDIATE | IR_OP_TMF_REQ;
	t->function = (uint8_t)(IR_FLAG_FINAL | (function & 0x7f));
	ir_lun_encode(lun, t->lun);
	put_be32(t->itt, itt);
	put_be32(t->ref_task_tag, ref_itt);
	put_be32(t->cmdsn, c->cmdsn);
	put_be32(t->exp_statsn, c->expstatsn);
	put_be32(t->ref_cmdsn, ref_cmdsn);
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc;
	for (;;) {
		struct ir_pdu in;

		rc = recv_relevant(c, &in);
		if (rc)
			return rc;
		if (ir_pdu_opcode(&in) == IR_OP_TMF_RSP && ir_pdu_itt(&in) == itt) {
			if (response)
				*response = in.bhs.tmf_rsp.response;
			if (add_info)
				memcpy(add_info, in.bhs.tmf_rsp.add_info, 3);
			ir_pdu_free(&in);
			return 0;
		}
		if (ir_pdu_opcode(&in) == IR_OP_REJECT) {
			uint8_t rop;

			if (rejected_itt(&in, &rop) == itt) {
				ir_pdu_free(&in);
				return -ECANCELED;
			}
		}
		/* responses of aborted tasks may arrive first */
		ir_pdu_free(&in);
	}
}

int ir_text_exchange(struct ir_conn *c, const uint8_t *req, size_t req_len, uint8_t **rsp,
		     size_t *rsp_len)
{
	struct ir_text acc;
	uint32_t itt = ir_next_itt(c);
	uint32_t ttt = IR_RSVD_TAG;
	bool first = true;
	int rc;

	ir_text_init(&acc);
	for (;;) {
		struct ir_pdu p = {0};
		struct ir_bhs_req *r = &p.bhs.req;
		struct ir_pdu in;

		r->opcode = IR_OP_TEXT_REQ;
		r->flags = IR_FLAG_FINAL;
		put_be32(r->itt, itt);
		put_be32(r->ttt, ttt);
		put_be32(r->cmdsn, c->cmdsn++);
		put_be32(r->exp_statsn, c->expstatsn);
		if (first) {
			p.data = (uint8_t *)(uintptr_t)req;
			p.data_len = (uint32_t)req_len;
		}
		first = false;
		rc = ir_send_pdu(c, &p);
		if (!rc)
			rc = recv_relevant(c, &in);
		if (rc)
			goto fail;
		if (ir_pdu_opcode(&in) != IR_OP_TEXT_RSP || ir_pdu_itt(&in) != itt) {
			snprintf(c->err, sizeof(c->err), "unexpected %s for a Text Request",
				 ir_opcode_name(ir_pdu_opcode(&in)));
			rc = ir_pdu_opcode(&in) == IR_OP_REJECT ? -ECANCELED : -EPROTO;
			ir_pdu_free(&in);
			goto fail;
		}
		rc = ir_text_add_raw(&acc, in.data, in.data_len);
		ttt = get_be32(in.bhs.rsp.ttt);
		/* 11.11.1: C=1 means more text follows; F=1 ends the exchange */
		bool done =
		    (in.bhs.rsp.flags & IR_FLAG_FINAL) && !(in.bhs.rsp.flags & IR_TEXT_CONTINUE);
		ir_pdu_free(&in);
		if (rc)
			goto fail;
		if (done)
			break;
		if (acc.len > (64u << 20)) {
			rc = -EMSGSIZE;
			goto fail;
		}
	}
	*rsp = acc.buf;
	*rsp_len = acc.len;
	return 0;
fail:
	ir_text_free(&acc);
	return rc;
}

int ir_sendtargets(struct ir_conn *c, uint8_t **rsp, size_t *rsp_len)
{
	static const char key[] = "SendTargets=All";

	/* sizeof includes the NUL that terminates the pair */
	return ir_text_exchange(c, (const uint8_t *)key, sizeof(key), rsp, rsp_len);
}
