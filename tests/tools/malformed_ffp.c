/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed_ffp.c: full feature phase cases of the malformed-input suite:
 * framing (DataSegmentLength, AHS), command numbering, Data-Out sequencing
 * and bounds, residuals and direction mismatches, opcodes, SNACK at ERL 0,
 * digest errors, and connections dropped with tasks pending. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "lib/endian.h"
#include "malformed.h"

/* Logs in a normal session with the standard options (modifiable). */
static int mf_ffp_login(struct mf_ctx *x, struct ir_conn *c, struct ir_login_opts *o)
{
	int rc = mf_login(x, c, o);

	if (!rc)
		rc = mf_tur_good(c, x->lun);
	if (rc)
		NOTE(x, "setup login/TUR failed: %s %s", strerror(-rc > 0 ? -rc : EIO), c->err);
	return rc;
}

static struct mf_outcome nop_with_dsl(struct mf_ctx *x, uint32_t dsl, uint32_t send)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;
	uint8_t *buf;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (!dsl)
		dsl = c.p.target_mrdsl + 512;
	if (!send)
		send = dsl;
	buf = calloc(1, send);
	p.bhs.req.opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	p.bhs.req.flags = IR_FLAG_FINAL;
	put_be32(p.bhs.req.itt, ir_next_itt(&c));
	put_be32(p.bhs.req.ttt, IR_RSVD_TAG);
	put_be32(p.bhs.req.cmdsn, c.cmdsn);
	put_be32(p.bhs.req.exp_statsn, c.expstatsn);
	put_be24(p.bhs.common.data_seg_len, dsl);
	p.data = buf;
	p.data_len = send;
	if (ir_send_pdu_ex(&c, &p, IR_ENC_KEEP_LENGTHS))
		res = mf_out(MF_DROP, 0, 0, 0);
	else
		res = mf_then_maybe_drop(x, &c, mf_observe(x, &c, 5000));
	if (res.kind == MF_REJECT && ir_wait_closed(&c, 2000, NULL)) {
		NOTE(x, "Reject but the connection was kept: the stream is out of sync");
		res = mf_out(MF_ERROR, 0, 0, 0);
	}
	free(buf);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_dsl_over_mrdsl(struct mf_ctx *x)
{
	return nop_with_dsl(x, 0, 0);
}

static struct mf_outcome c_dsl_2p24(struct mf_ctx *x)
{
	/* announce 2^24-1 bytes, send 4096 of them */
	return nop_with_dsl(x, IR_MAX_DSL, 4096);
}

/* TEST UNIT READY built by hand, with an AHS. */
static struct mf_outcome tur_with_ahs(struct mf_ctx *x, const uint8_t *ahs, uint32_t ahs_len)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
	p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(x->lun, p.bhs.cmd.lun);
	put_be32(p.bhs.cmd.itt, ir_next_itt(&c));
	put_be32(p.bhs.cmd.cmdsn, c.cmdsn++);
	put_be32(p.bhs.cmd.exp_statsn, c.expstatsn);
	p.ahs = (uint8_t *)(uintptr_t)ahs;
	p.ahs_len = ahs_len;
	if (ir_send_pdu(&c, &p))
		res = mf_out(MF_DROP, 0, 0, 0);
	else
		res = mf_then_maybe_drop(x, &c, mf_observe(x, &c, 5000));
	ir_close(&c);
	return res;
}

static struct mf_outcome c_ahs_len_beyond_total(struct mf_ctx *x)
{
	/* TotalAHSLength 1 word; the AHS inside claims 200 bytes (11.2.2) */
	uint8_t ahs[4] = {0, 200, 1, 0};

	return tur_with_ahs(x, ahs, sizeof(ahs));
}

static struct mf_outcome c_ahs_total_255(struct mf_ctx *x)
{
	/* TotalAHSLength 255 words holding one Extended CDB AHS (type 1) whose
	 * AHSLength 1017 fills it exactly: a 1032-byte CDB, longer than any
	 * SCSI CDB (SPC-4 4.2.2: at most 260 bytes) */
	static uint8_t ahs[1020];

	memset(ahs, 0x5a, sizeof(ahs));
	put_be16(ahs, 1017);
	ahs[2] = 1;
	ahs[3] = 0;
	return tur_with_ahs(x, ahs, sizeof(ahs));
}

static struct mf_outcome tur_cmdsn(struct mf_ctx *x, int mode)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;
	uint32_t sn;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	/* below: an old CmdSN; above: MaxCmdSN + 1000 */
	sn = mode == 0 ? c.exp_cmdsn - 3 : c.max_cmdsn + 1000;
	p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
	p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(x->lun, p.bhs.cmd.lun);
	put_be32(p.bhs.cmd.itt, ir_next_itt(&c));
	put_be32(p.bhs.cmd.cmdsn, sn);
	put_be32(p.bhs.cmd.exp_statsn, c.expstatsn);
	if (ir_send_pdu(&c, &p)) {
		ir_close(&c);
		return mf_out(MF_DROP, 0, 0, 0);
	}
	res = mf_observe(x, &c, 1500);
	if (res.kind == MF_TIMEOUT) {
		/* silently ignored; the session must still work */
		res = mf_conn_alive(&c) && mf_tur_good(&c, x->lun) == 0
			  ? mf_out(MF_IGNORED, 0, 0, 0)
			  : mf_out(MF_ERROR, 0, 0, 0);
		if (res.kind == MF_ERROR)
			NOTE(x, "the session did not work after the ignored command: %s", c.err);
	}
	ir_close(&c);
	return res;
}

static struct mf_outcome c_cmdsn_below(struct mf_ctx *x)
{
	return tur_cmdsn(x, 0);
}

static struct mf_outcome c_cmdsn_above(struct mf_ctx *x)
{
	return tur_cmdsn(x, 1);
}

static struct mf_outcome c_cmdsn_wrap(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_scsi_result r;
	int i, rc;

	mf_std_opts(x, &o);
	if (mf_connect(x, &c))
		return mf_out(MF_ERROR, 0, 0, 0);
	c.cmdsn = 0xfffffffdu; /* the leading login sets the initial CmdSN */
	rc = ir_login(&c, &o);
	if (rc) {
		NOTE(x, "login with CmdSN 0xfffffffd: %s %s", strerror(-rc), c.err);
		ir_close(&c);
		return mf_out(rc == -EACCES ? MF_LOGIN_FAIL : MF_ERROR, c.login_class,
			      c.login_detail, 0);
	}
	for (i = 0; i < 8; i++) {
		rc = ir_test_unit_ready(&c, x->lun, &r);
		if (rc || (r.status && r.status != 2)) {
			NOTE(x, "command %d across the CmdSN wrap: %s %s", i,
			     rc ? strerror(-rc) : "bad status", c.err);
			ir_close(&c);
			return mf_out(rc == -ETIMEDOUT ? MF_TIMEOUT : MF_ERROR, 0, 0, 0);
		}
	}
	NOTE(x, "8 commands from CmdSN 0xfffffffd to 0x%08x", c.cmdsn - 1);
	ir_close(&c);
	return mf_out(MF_GOOD, 0, 0, 0);
}

/* Sends a WRITE(16) of `blocks` blocks with EDTL edtl, no immediate data,
 * then waits for the first R2T. Returns its offset/length and TTT. */
static int mf_write_until_r2t(struct mf_ctx *x, struct ir_conn *c, uint32_t blocks, uint32_t edtl,
			      uint32_t *itt, uint32_t *ttt, uint32_t *off, uint32_t *len)
{
	struct ir_pdu p = {0}, r;
	uint8_t *cdb = p.bhs.cmd.cdb;
	int rc;

	p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
	p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(x->lun, p.bhs.cmd.lun);
	*itt = ir_next_itt(c);
	put_be32(p.bhs.cmd.itt, *itt);
	put_be32(p.bhs.cmd.exp_xfer_len, edtl);
	put_be32(p.bhs.cmd.cmdsn, c->cmdsn++);
	put_be32(p.bhs.cmd.exp_statsn, c->expstatsn);
	cdb[0] = 0x8a;
	put_be64(cdb + 2, 8);
	put_be32(cdb + 10, blocks);
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc;
	rc = ir_recv_pdu(c, &r, -1);
	if (rc)
		return rc;
	if (ir_pdu_opcode(&r) != IR_OP_R2T) {
		snprintf(c->err, sizeof(c->err), "expected R2T, got %s",
			 ir_opcode_name(ir_pdu_opcode(&r)));
		ir_pdu_free(&r);
		return -EPROTO;
	}
	*ttt = get_be32(r.bhs.r2t.ttt);
	*off = get_be32(r.bhs.r2t.buffer_offset);
	*len = get_be32(r.bhs.r2t.desired_len);
	ir_pdu_free(&r);
	return 0;
}

static int mf_send_dout(struct ir_conn *c, const struct mf_ctx *x, uint32_t itt, uint32_t ttt,
			uint32_t datasn, uint32_t off, uint32_t len, bool final, unsigned flags)
{
	struct ir_pdu p = {0};
	uint8_t *buf = calloc(1, len ? len : 1);
	int rc;

	memset(buf, 0xd5, len);
	p.bhs.data.opcode = IR_OP_DATA_OUT;
	p.bhs.data.flags = final ? IR_FLAG_FINAL : 0;
	ir_lun_encode(x->lun, p.bhs.data.lun);
	put_be32(p.bhs.data.itt, itt);
	put_be32(p.bhs.data.ttt, ttt);
	put_be32(p.bhs.data.exp_statsn_or_cmdsn, c->expstatsn);
	put_be32(p.bhs.data.datasn, datasn);
	put_be32(p.bhs.data.buffer_offset, off);
	p.data = buf;
	p.data_len = len;
	rc = ir_send_pdu_ex(c, &p, flags);
	free(buf);
	return rc;
}

/* The next status-bearing event of a write: a Reject, a SCSI Response, a
 * drop or nothing. R2Ts met on the way are answered with the data asked for
 * (so a target doing recovery R2Ts reaches its status). */
static struct mf_outcome mf_status_after(struct mf_ctx *x, struct ir_conn *c)
{
	for (;;) {
		struct ir_pdu p;
		int rc = ir_recv_pdu(c, &p, 5000);
		struct mf_outcome o;

		if (rc == -ECONNRESET)
			return mf_out(MF_DROP, 0, 0, 0);
		if (rc == -ETIMEDOUT)
			return mf_out(MF_TIMEOUT, 0, 0, 0);
		if (rc) {
			NOTE(x, "receive: %s", strerror(-rc));
			return mf_out(MF_ERROR, 0, 0, 0);
		}
		if (ir_pdu_opcode(&p) == IR_OP_R2T) {
			uint32_t itt = ir_pdu_itt(&p), ttt = get_be32(p.bhs.r2t.ttt);
			uint32_t off = get_be32(p.bhs.r2t.buffer_offset);
			uint32_t len = get_be32(p.bhs.r2t.desired_len);

			ir_pdu_free(&p);
			if (len > (1u << 20) || mf_send_dout(c, x, itt, ttt, 0, off, len, true, 0))
				return mf_out(MF_DROP, 0, 0, 0);
			continue;
		}
		if (ir_pdu_opcode(&p) == IR_OP_SCSI_RSP) {
			struct ir_scsi_result r = {0};
			uint8_t k = 0, a = 0, q = 0;

			r.status = p.bhs.scsi_rsp.status;
			if (p.data_len >= 2) {
				r.sense_len = UT_MIN(get_be16(p.data), (uint32_t)sizeof(r.sense));
				r.sense_len = UT_MIN(r.sense_len, p.data_len - 2);
				memcpy(r.sense, p.data + 2, r.sense_len);
			}
			ir_pdu_free(&p);
			if (r.status == 2 && ir_sense_parse(&r, &k, &a, &q))
				return mf_out(MF_CHECK, k, a, q);
			return r.status ? mf_out(MF_CHECK, MF_ANY, r.status, 0)
					: mf_out(MF_GOOD, 0, 0, 0);
		}
		if (ir_pdu_opcode(&p) == IR_OP_REJECT) {
			o = mf_out(MF_REJECT, p.bhs.reject.reason, 0, 0);
			ir_pdu_free(&p);
			return o;
		}
		NOTE(x, "unexpected %s", ir_opcode_name(ir_pdu_opcode(&p)));
		ir_pdu_free(&p);
		return mf_out(MF_ERROR, 0, 0, 0);
	}
}

static struct mf_outcome write_case(struct mf_ctx *x, int mode)
{
	struct ir_login_opts o;
	struct ir_conn c;
	uint32_t itt, ttt, off, len, bs = x->block_size;
	struct mf_outcome res;
	int rc;

	mf_std_opts(x, &o);
	o.immediate_data = 0;
	o.initial_r2t = 1;
	if (mode == 1)
		o.max_burst = 512; /* R2Ts of 512 bytes: data can go beyond one */
	o.max_recv_dsl = 512;
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	rc = mf_write_until_r2t(x, &c, 4, 4 * bs, &itt, &ttt, &off, &len);
	if (rc) {
		NOTE(x, "WRITE setup: %s %s", strerror(-rc), c.err);
		ir_close(&c);
		return mf_out(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	}
	switch (mode) {
	case 0: /* DataSN gap: 0 then 2 */
		rc = mf_send_dout(&c, x, itt, ttt, 0, off, 512, false, 0);
		if (!rc)
			rc = mf_send_dout(&c, x, itt, ttt, 2, off + 512, len - 512, true, 0);
		break;
	case 1: /* Data-Out past the R2T window (R2T length <= 512) */
		rc = mf_send_dout(&c, x, itt, ttt, 0, off, len + 1024, true, 0);
		break;
	case 2: /* Data-Out beyond the Expected Data Transfer Length */
		rc = mf_send_dout(&c, x, itt, ttt, 0, 4 * bs, 512, true, 0);
		break;
	}
	if (rc) {
		ir_close(&c);
		return mf_out(MF_DROP, 0, 0, 0);
	}
	res = mf_then_maybe_drop(x, &c, mf_status_after(x, &c));
	ir_close(&c);
	return res;
}

static struct mf_outcome c_datasn_gap(struct mf_ctx *x)
{
	return write_case(x, 0);
}

static struct mf_outcome c_dataout_beyond_r2t(struct mf_ctx *x)
{
	return write_case(x, 1);
}

static struct mf_outcome c_dataout_beyond_edtl(struct mf_ctx *x)
{
	return write_case(x, 2);
}

static struct mf_outcome c_unsolicited_beyond_fb(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	uint32_t itt, bs = x->block_size;
	uint8_t *cdb = p.bhs.cmd.cdb;
	struct mf_outcome res;
	int rc;

	mf_std_opts(x, &o);
	o.immediate_data = 0;
	o.initial_r2t = 0;
	o.first_burst = 512;
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	/* 4 blocks, F=0: unsolicited Data-Out follows, 4 * bs > FirstBurstLength */
	p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
	p.bhs.cmd.flags = IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(x->lun, p.bhs.cmd.lun);
	itt = ir_next_itt(&c);
	put_be32(p.bhs.cmd.itt, itt);
	put_be32(p.bhs.cmd.exp_xfer_len, 4 * bs);
	put_be32(p.bhs.cmd.cmdsn, c.cmdsn++);
	put_be32(p.bhs.cmd.exp_statsn, c.expstatsn);
	cdb[0] = 0x8a;
	put_be64(cdb + 2, 16);
	put_be32(cdb + 10, 4);
	rc = ir_send_pdu(&c, &p);
	if (!rc)
		rc = mf_send_dout(&c, x, itt, IR_RSVD_TAG, 0, 0, UT_MIN(4 * bs, c.p.target_mrdsl),
				  true, 0);
	if (rc) {
		ir_close(&c);
		return mf_out(MF_DROP, 0, 0, 0);
	}
	NOTE(x, "negotiated FirstBurstLength %u InitialR2T %s, sent %u unsolicited bytes",
	     c.p.first_burst, c.p.initial_r2t ? "Yes" : "No", UT_MIN(4 * bs, c.p.target_mrdsl));
	res = mf_then_maybe_drop(x, &c, mf_status_after(x, &c));
	ir_close(&c);
	return res;
}

/* READ/WRITE(16) with an Expected Data Transfer Length that disagrees. */
static struct mf_outcome rw_edtl(struct mf_ctx *x, bool write, uint32_t blocks, uint32_t edtl)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_scsi_result r;
	struct ir_cmd_opts co = {.edtl_override_set = 1, .edtl_override = edtl};
	uint8_t cdb[16] = {write ? 0x8a : 0x88};
	uint32_t bs = x->block_size, buflen = UT_MAX(edtl, blocks * bs);
	uint8_t *buf = calloc(1, buflen);
	struct mf_outcome res;
	int rc;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o)) {
		free(buf);
		return mf_out(MF_ERROR, 0, 0, 0);
	}
	put_be64(cdb + 2, 32);
	put_be32(cdb + 10, blocks);
	if (write)
		rc = ir_scsi_cmd_ex(&c, x->lun, cdb, 16, IR_DIR_WRITE, buf, edtl, NULL, 0, &co, &r);
	else
		rc = ir_scsi_cmd_ex(&c, x->lun, cdb, 16, IR_DIR_READ, NULL, 0, buf, edtl, &co, &r);
	res = mf_scsi_outcome(x, &c, rc, &r);
	if (!write && res.kind == MF_RESIDUAL && r.data_in_len > edtl) {
		NOTE(x, "%u bytes of Data-In for EDTL %u", r.data_in_len, edtl);
		res = mf_out(MF_ERROR, 0, 0, 0);
	}
	if (res.kind == MF_RESIDUAL && !mf_conn_alive(&c)) {
		NOTE(x, "connection unusable after the command");
		res = mf_out(MF_ERROR, 0, 0, 0);
	}
	free(buf);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_read_edtl_short(struct mf_ctx *x)
{
	return rw_edtl(x, false, 2, x->block_size);
}

static struct mf_outcome c_read_edtl_long(struct mf_ctx *x)
{
	return rw_edtl(x, false, 1, 10000);
}

static struct mf_outcome c_write_edtl_short(struct mf_ctx *x)
{
	return rw_edtl(x, true, 2, x->block_size);
}

static struct mf_outcome c_write_edtl_long(struct mf_ctx *x)
{
	return rw_edtl(x, true, 1, 2 * x->block_size);
}

/* A READ(16) sent with the W bit and write data (write = true), or a
 * WRITE(16) sent with the R bit: nothing may move in the wrong direction and
 * the medium must not change. */
static struct mf_outcome dir_mismatch(struct mf_ctx *x, bool read_as_write)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_scsi_result r;
	uint8_t cdb[16] = {read_as_write ? 0x88 : 0x8a};
	uint32_t bs = x->block_size;
	uint8_t *buf = malloc(bs), *before = malloc(bs), *after = malloc(bs);
	struct mf_outcome res;
	int rc;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o) || ir_read16(&c, x->lun, 40, 1, bs, before, &r) || r.status) {
		res = mf_out(MF_ERROR, 0, 0, 0);
		goto out;
	}
	put_be64(cdb + 2, 40);
	put_be32(cdb + 10, 1);
	memset(buf, 0xa5, bs);
	if (read_as_write)
		rc = ir_scsi_cmd(&c, x->lun, cdb, 16, IR_DIR_WRITE, buf, bs, NULL, 0, &r);
	else
		rc = ir_scsi_cmd(&c, x->lun, cdb, 16, IR_DIR_READ, NULL, 0, buf, bs, &r);
	res = mf_scsi_outcome(x, &c, rc, &r);
	if (res.kind == MF_RESIDUAL || res.kind == MF_GOOD || res.kind == MF_CHECK) {
		if (!read_as_write && r.data_in_len) {
			NOTE(x, "%u bytes of Data-In for a WRITE", r.data_in_len);
			res = mf_out(MF_ERROR, 0, 0, 0);
		} else if (ir_read16(&c, x->lun, 40, 1, bs, after, &r) || r.status ||
			   memcmp(before, after, bs)) {
			NOTE(x, "the medium changed (or could not be read back)");
			res = mf_out(MF_ERROR, 0, 0, 0);
		}
	}
out:
	free(buf);
	free(before);
	free(after);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_dir_read_as_write(struct mf_ctx *x)
{
	return dir_mismatch(x, true);
}

static struct mf_outcome c_dir_write_as_read(struct mf_ctx *x)
{
	return dir_mismatch(x, false);
}

/* Text Requests chained with the C bit (11.10.2) carrying 512 KiB of key
 * data: the target bounds the accumulation (Reject, drop) or answers; it
 * must not hang or fall over. Each part is acknowledged by a Text Response
 * (11.11) whose Target Transfer Tag the next part carries. */
static struct mf_outcome c_text_continuation_flood(struct mf_ctx *x)
{
	static const char pat[] = "X-org.utarget.t=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv";
	struct ir_login_opts o;
	struct ir_conn c;
	struct mf_outcome res = mf_out(MF_ERROR, 0, 0, 0);
	uint8_t chunk[8192];
	uint32_t itt, ttt = IR_RSVD_TAG, i, n, len;
	size_t off = 0;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	itt = ir_next_itt(&c);
	len = UT_MIN(c.p.target_mrdsl, (uint32_t)sizeof(chunk));
	n = 512 * 1024 / len;
	for (i = 0; i < n; i++) {
		struct ir_pdu p = {0}, r;
		uint32_t k;
		int rc;

		/* "X-org.utarget.t=vvv...\0" pairs, cut anywhere by the PDU
		 * boundary (allowed with the C bit) */
		for (k = 0; k < len; k++, off++) {
			size_t m = off % sizeof(pat);

			chunk[k] = m == sizeof(pat) - 1 ? 0 : (uint8_t)pat[m];
		}
		p.bhs.req.opcode = IR_OP_TEXT_REQ;
		p.bhs.req.flags = i + 1 == n ? IR_FLAG_FINAL : IR_TEXT_CONTINUE;
		put_be32(p.bhs.req.itt, itt);
		put_be32(p.bhs.req.ttt, ttt);
		put_be32(p.bhs.req.cmdsn, c.cmdsn++);
		put_be32(p.bhs.req.exp_statsn, c.expstatsn);
		p.data = chunk;
		p.data_len = len;
		if (ir_send_pdu(&c, &p)) {
			res = mf_out(MF_DROP, 0, 0, 0);
			break;
		}
		rc = ir_recv_pdu(&c, &r, 5000);
		if (rc) {
			res = mf_out(rc == -ECONNRESET	? MF_DROP
				     : rc == -ETIMEDOUT ? MF_TIMEOUT
							: MF_ERROR,
				     0, 0, 0);
			break;
		}
		if (ir_pdu_opcode(&r) == IR_OP_REJECT) {
			res = mf_out(MF_REJECT, r.bhs.reject.reason, 0, 0);
			ir_pdu_free(&r);
			break;
		}
		if (ir_pdu_opcode(&r) != IR_OP_TEXT_RSP || ir_pdu_itt(&r) != itt) {
			NOTE(x, "unexpected %s", ir_opcode_name(ir_pdu_opcode(&r)));
			ir_pdu_free(&r);
			res = mf_out(MF_ERROR, 0, 0, 0);
			break;
		}
		ttt = get_be32(r.bhs.rsp.ttt);
		res = (r.bhs.rsp.flags & IR_FLAG_FINAL) ? mf_out(MF_GOOD, 0, 0, 0)
							: mf_out(MF_ERROR, 0, 0, 0);
		ir_pdu_free(&r);
		if (res.kind == MF_GOOD)
			break; /* the target ended the exchange */
	}
	if (res.kind == MF_ERROR && !x->note[0])
		NOTE(x, "the exchange never ended");
	else if (!x->note[0])
		NOTE(x, "%u Text Requests of %u bytes sent", i + (i < n), len);
	if (res.kind == MF_REJECT)
		res = mf_then_maybe_drop(x, &c, res);
	ir_close(&c);
	return res;
}

static struct mf_outcome raw_opcode(struct mf_ctx *x, uint8_t opcode)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;

	mf_std_opts(x, &o);
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	p.bhs.common.opcode = opcode;
	p.bhs.common.flags = IR_FLAG_FINAL;
	put_be32(p.bhs.common.itt, ir_next_itt(&c));
	put_be32(p.bhs.req.cmdsn, c.cmdsn);
	put_be32(p.bhs.req.exp_statsn, c.expstatsn);
	if (opcode == IR_OP_SNACK_REQ) {
		put_be32(p.bhs.snack.ttt, IR_RSVD_TAG);
		put_be32(p.bhs.snack.begrun, 0);
		put_be32(p.bhs.snack.run_length, 0);
	}
	if (ir_send_pdu(&c, &p)) {
		ir_close(&c);
		return mf_out(MF_DROP, 0, 0, 0);
	}
	res = mf_observe(x, &c, 3000);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_unknown_opcode(struct mf_ctx *x)
{
	return raw_opcode(x, 0x1a);
}

static struct mf_outcome c_vendor_opcode(struct mf_ctx *x)
{
	return raw_opcode(x, 0x1c);
}

static struct mf_outcome c_snack_erl0(struct mf_ctx *x)
{
	return raw_opcode(x, IR_OP_SNACK_REQ);
}

static struct mf_outcome c_header_digest_error(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;

	mf_std_opts(x, &o);
	o.header_digest = true;
	o.digest_only = true;
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (!c.hdigest) {
		NOTE(x, "the target did not accept HeaderDigest=CRC32C");
		ir_close(&c);
		return mf_out(MF_ERROR, 0, 0, 0);
	}
	p.bhs.req.opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	p.bhs.req.flags = IR_FLAG_FINAL;
	put_be32(p.bhs.req.itt, ir_next_itt(&c));
	put_be32(p.bhs.req.ttt, IR_RSVD_TAG);
	put_be32(p.bhs.req.cmdsn, c.cmdsn);
	put_be32(p.bhs.req.exp_statsn, c.expstatsn);
	if (ir_send_pdu_ex(&c, &p, IR_ENC_BAD_HDIGEST))
		res = mf_out(MF_DROP, 0, 0, 0);
	else
		res = mf_observe(x, &c, 5000);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_data_digest_error(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	uint32_t itt, ttt, off, len;
	struct mf_outcome res;
	int rc;

	mf_std_opts(x, &o);
	o.data_digest = true;
	o.digest_only = true;
	o.immediate_data = 0;
	if (mf_ffp_login(x, &c, &o))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (!c.ddigest) {
		NOTE(x, "the target did not accept DataDigest=CRC32C");
		ir_close(&c);
		return mf_out(MF_ERROR, 0, 0, 0);
	}
	rc = mf_write_until_r2t(x, &c, 1, x->block_size, &itt, &ttt, &off, &len);
	if (!rc)
		rc = mf_send_dout(&c, x, itt, ttt, 0, off, len, true, IR_ENC_BAD_DDIGEST);
	if (rc) {
		ir_close(&c);
		return mf_out(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	}
	res = mf_status_after(x, &c);
	if (res.kind == MF_REJECT && res.a == IR_REJ_DATA_DIGEST) {
		/* 7.8: the task then ends with CHECK CONDITION (protocol service
		 * CRC error) once all data arrived, or a recovery R2T (answered
		 * by status_after) leads to GOOD */
		struct mf_outcome st = mf_status_after(x, &c);

		NOTE(x, "after Reject 0x02: %s", mf_kind_names[st.kind]);
		res = st.kind == MF_REJECT ? mf_out(MF_ERROR, 0, 0, 0) : st;
	} else if (res.kind != MF_DROP) {
		NOTE(x, "%s without a Reject 0x02 first", mf_kind_names[res.kind]);
		res = mf_out(MF_ERROR, 0, 0, 0);
	}
	ir_close(&c);
	return res;
}

/* Sessions that end while a task is pending must be freed (RFC 7143 7.14,
 * 8.2: a connection failure at ERL 0 ends the session and its tasks; SAM-5
 * I_T nexus loss). Each iteration logs in, leaves one task pending and
 * drops the connection; with more iterations than the target's max_sessions
 * (malformed.sh configures 32, --repeat 48), a leaked session shows as a
 * refused login (03/02 out of resources). */
static struct mf_outcome disconnect_pending(struct mf_ctx *x, int mode)
{
	unsigned i;

	for (i = 0; i < x->repeat; i++) {
		struct ir_login_opts o;
		struct ir_conn c;
		struct ir_pdu p = {0};
		uint8_t *cdb = p.bhs.cmd.cdb;
		int rc;

		mf_std_opts(x, &o);
		o.immediate_data = 0;
		if (mode == 3)
			o.initial_r2t = 0;
		/* sessions end asynchronously: a refusal for want of resources
		 * (03/02) is retried for up to 2 s before it counts as a leak */
		for (int t = 0;; t++) {
			rc = mf_login(x, &c, &o);
			if (rc != -EACCES || c.login_class != 3 || t == 20)
				break;
			ir_close(&c);
			usleep(100000);
		}
		if (rc) {
			struct mf_outcome res =
			    rc == -EACCES ? mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0)
					  : mf_out(MF_ERROR, 0, 0, 0);

			NOTE(x, "login %u of %u refused: %s (status %02x/%02x): sessions leak",
			     i + 1, x->repeat, strerror(-rc), c.login_class, c.login_detail);
			ir_close(&c);
			return res;
		}
		p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
		p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE;
		ir_lun_encode(x->lun, p.bhs.cmd.lun);
		put_be32(p.bhs.cmd.itt, ir_next_itt(&c));
		put_be32(p.bhs.cmd.exp_statsn, c.expstatsn);
		if (mode == 0) {
			/* CmdSN one ahead: held until the gap fills (4.2.2.1) */
			put_be32(p.bhs.cmd.cmdsn, c.cmdsn + 1);
		} else if (mode == 1 || mode == 3) {
			/* WRITE(16) of 8 blocks: the target sends an R2T and waits
			 * (mode 1), or, with InitialR2T=No and F=0, waits for the
			 * unsolicited Data-Out that never comes (mode 3) */
			p.bhs.cmd.flags |= IR_CMD_WRITE;
			if (mode == 3 && !c.p.initial_r2t)
				p.bhs.cmd.flags &= (uint8_t)~IR_FLAG_FINAL;
			cdb[0] = 0x8a;
			put_be64(cdb + 2, 64);
			put_be32(cdb + 10, 8);
			put_be32(p.bhs.cmd.exp_xfer_len, 8 * x->block_size);
			put_be32(p.bhs.cmd.cmdsn, c.cmdsn);
		} else {
			/* READ(16) of 256 blocks, not read */
			p.bhs.cmd.flags |= IR_CMD_READ;
			cdb[0] = 0x88;
			put_be64(cdb + 2, 0);
			put_be32(cdb + 10, 256);
			put_be32(p.bhs.cmd.exp_xfer_len, 256 * x->block_size);
			put_be32(p.bhs.cmd.cmdsn, c.cmdsn);
		}
		ir_send_pdu(&c, &p);
		if (mode == 1) {
			struct ir_pdu r;

			/* wait for the R2T so the task is surely pending */
			if (!ir_recv_pdu(&c, &r, 2000))
				ir_pdu_free(&r);
		}
		ir_abort(&c, i & 1);
		usleep(2000);
	}
	NOTE(x, "%u sessions, each dropped with a pending task", x->repeat);
	return mf_out(MF_GOOD, 0, 0, 0);
}

static struct mf_outcome c_disc_held(struct mf_ctx *x)
{
	return disconnect_pending(x, 0);
}

static struct mf_outcome c_disc_r2t(struct mf_ctx *x)
{
	return disconnect_pending(x, 1);
}

static struct mf_outcome c_disc_read(struct mf_ctx *x)
{
	return disconnect_pending(x, 2);
}

static struct mf_outcome c_disc_unsolicited(struct mf_ctx *x)
{
	return disconnect_pending(x, 3);
}

/* clang-format off */
const struct mf_case mf_ffp_cases[] = {
	/* Full feature phase framing. */
	{
		.name = "dsl-above-mrdsl",
		.clause = "RFC 7143 13.12 (never above the receiver's MaxRecvDataSegmentLength), "
			  "7.13 / 11.17.1 Reject 0x04",
		.expect_text = "Reject 0x04 and the connection closed, or closed",
		.run = c_dsl_over_mrdsl,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_DROP) },
		.n_expect = 2,
	},
	{
		.name = "dsl-2^24-1",
		.clause = "RFC 7143 11.2.1, 13.12, 7.13",
		.expect_text = "Reject 0x04 and the connection closed, or closed (no allocation)",
		.run = c_dsl_2p24,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_DROP) },
		.n_expect = 2,
	},
	{
		.name = "ahs-longer-than-total",
		.clause = "RFC 7143 11.2.2 (AHSLength inside TotalAHSLength), 11.17.1",
		.expect_text = "Reject 0x04/0x09, drop, or CHECK CONDITION with ASC 0Eh (invalid "
			       "information unit, SPC-4)",
		.run = c_ahs_len_beyond_total,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_REJECT, .a = 9), OUT(MF_DROP),
			    OUT(MF_CHECK, .a = MF_ANY, .b = 0x0e, .c = MF_ANY) },
		.n_expect = 4,
	},
	{
		.name = "ahs-total-255-cdb-1032",
		.clause = "RFC 7143 11.2.2 / 11.3.5 (Extended CDB AHS), SPC-4 4.2.2 (CDB length)",
		.expect_text = "CHECK CONDITION ILLEGAL REQUEST or ASC 0Eh, Reject 0x04/0x09, or "
			       "drop",
		.run = c_ahs_total_255,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_REJECT, .a = 9), OUT(MF_DROP),
			    OUT(MF_CHECK, .a = 5, .b = MF_ANY, .c = MF_ANY),
			    OUT(MF_CHECK, .a = MF_ANY, .b = 0x0e, .c = MF_ANY) },
		.n_expect = 5,
	},
	/* Command numbering. */
	{
		.name = "cmdsn-below-window",
		.clause = "RFC 7143 4.2.2.1 (RFC 3720 3.2.2.1): commands outside [ExpCmdSN, "
			  "MaxCmdSN] are silently ignored",
		.expect_text = "no answer; the session keeps working",
		.run = c_cmdsn_below,
		.expect = { OUT(MF_IGNORED) },
		.n_expect = 1,
	},
	{
		.name = "cmdsn-above-window",
		.clause = "RFC 7143 4.2.2.1",
		.expect_text = "no answer; the session keeps working",
		.run = c_cmdsn_above,
		.expect = { OUT(MF_IGNORED) },
		.n_expect = 1,
	},
	{
		.name = "cmdsn-wrap-2^32",
		.clause = "RFC 7143 4.2.2.1 (serial number arithmetic, RFC 1982)",
		.expect_text = "every command across the wrap completes",
		.run = c_cmdsn_wrap,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	/* Data-Out. ERL 0: no within-command recovery (7.1.5, 7.9), the task
	 * ends with CHECK CONDITION, or the PDU is rejected, or the connection
	 * is dropped (session recovery). GOOD or no answer is a failure. */
	{
		.name = "datasn-gap",
		.clause = "RFC 7143 11.7 (DataSN), 7.9 (sequence errors), 7.1.5 (ERL 0)",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_datasn_gap,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = MF_ANY, .c = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "dataout-beyond-r2t",
		.clause = "RFC 7143 11.8 (R2T offset + length bound the Data-Out), 11.7",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_dataout_beyond_r2t,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = MF_ANY, .c = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "dataout-beyond-edtl",
		.clause = "RFC 7143 11.3.4 (Expected Data Transfer Length bounds the data)",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_dataout_beyond_edtl,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = MF_ANY, .c = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "unsolicited-beyond-first-burst",
		.clause = "RFC 7143 13.14 (unsolicited data <= FirstBurstLength), 13.10 InitialR2T",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_unsolicited_beyond_fb,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = MF_ANY, .c = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	/* Residuals: RFC 7143 11.4.5.1-2; the target moves min(EDTL, CDB
	 * length) and reports the difference (libiscsi iSCSIResiduals). */
	{
		.name = "read-edtl-below-cdb",
		.clause = "RFC 7143 11.4.5.2 (Residual Overflow)",
		.expect_text = "GOOD, O bit, residual = one block, at most EDTL bytes of Data-In",
		.run = c_read_edtl_short,
		.expect = { OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 1,
	},
	{
		.name = "read-edtl-above-cdb",
		.clause = "RFC 7143 11.4.5.2 (Residual Underflow)",
		.expect_text = "GOOD, U bit, residual = 10000 - one block",
		.run = c_read_edtl_long,
		.expect = { OUT(MF_RESIDUAL, .a = IR_RSP_UNDERFLOW, .b = -3) },
		.n_expect = 1,
	},
	{
		.name = "write-edtl-below-cdb",
		.clause = "RFC 7143 11.4.5.2 (Residual Overflow)",
		.expect_text = "GOOD, O bit, residual = one block",
		.run = c_write_edtl_short,
		.expect = { OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 1,
	},
	{
		.name = "write-edtl-above-cdb",
		.clause = "RFC 7143 11.4.5.2 (Residual Underflow)",
		.expect_text = "GOOD, U bit, residual = one block",
		.run = c_write_edtl_long,
		.expect = { OUT(MF_RESIDUAL, .a = IR_RSP_UNDERFLOW, .b = -2) },
		.n_expect = 1,
	},
	{
		.name = "read-sent-as-write",
		.clause = "RFC 7143 11.3.1 (R/W bits), 11.4.5.2; libiscsi Read10Invalid expects "
			  "GOOD",
		.expect_text = "CHECK CONDITION, or GOOD with overflow of the whole transfer; "
			       "no Data-In, the medium unchanged",
		.run = c_dir_read_as_write,
		.expect = { OUT(MF_CHECK, .a = MF_ANY, .b = MF_ANY, .c = MF_ANY),
			    OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 2,
	},
	{
		.name = "write-sent-as-read",
		.clause = "RFC 7143 11.3.1 (R/W bits), 11.4.5.2",
		.expect_text = "CHECK CONDITION, or GOOD with overflow of the whole transfer; "
			       "no Data-In, no R2T, the medium unchanged",
		.run = c_dir_write_as_read,
		.expect = { OUT(MF_CHECK, .a = MF_ANY, .b = MF_ANY, .c = MF_ANY),
			    OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 2,
	},
	{
		.name = "text-continuation-512k",
		.clause = "RFC 7143 11.10.2 (C bit), 6.2 (bounded key data), 11.17.1",
		.expect_text = "Reject 0x04/0x09 or drop (bounded), or a Text Response; no hang",
		.run = c_text_continuation_flood,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_REJECT, .a = 9), OUT(MF_DROP),
			    OUT(MF_GOOD) },
		.n_expect = 4,
	},
	/* Opcodes. */
	{
		.name = "unknown-opcode-0x1a",
		.clause = "RFC 7143 11.17.1 (0x05 Command not supported)",
		.expect_text = "Reject 0x05",
		.run = c_unknown_opcode,
		.expect = { OUT(MF_REJECT, .a = 5) },
		.n_expect = 1,
	},
	{
		.name = "vendor-opcode-0x1c",
		.clause = "RFC 7143 11.2.1.2 (vendor opcodes), 11.17.1 0x05",
		.expect_text = "Reject 0x05",
		.run = c_vendor_opcode,
		.expect = { OUT(MF_REJECT, .a = 5) },
		.n_expect = 1,
	},
	{
		.name = "snack-at-erl0",
		.clause = "RFC 7143 11.16 (SNACK needs ErrorRecoveryLevel > 0), 11.17.1",
		.expect_text = "Reject 0x04 (protocol error) or 0x05 (not supported)",
		.run = c_snack_erl0,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_REJECT, .a = 5) },
		.n_expect = 2,
	},
	/* Digests. */
	{
		.name = "header-digest-error",
		.clause = "RFC 7143 7.8 (header digest error without sync and steering: close "
			  "the connection)",
		.expect_text = "drop",
		.run = c_header_digest_error,
		.expect = { OUT(MF_DROP) },
		.n_expect = 1,
	},
	{
		.name = "data-digest-error",
		.clause = "RFC 7143 7.8 (Reject 0x02, then recovery R2T or CHECK CONDITION "
			  "PROTOCOL SERVICE CRC ERROR 0B/47/05, SPC-4 ASC 47h/05h)",
		.expect_text = "Reject 0x02 then CHECK CONDITION 0B/47/05 (or a recovery R2T "
			       "and GOOD), or drop",
		.run = c_data_digest_error,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = 0x47, .c = 0x05), OUT(MF_GOOD),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	/* Connection loss with pending tasks. */
	{
		.name = "disconnect-with-held-command",
		.clause = "RFC 7143 4.2.2.1 (held out-of-order command), 7.14 / 8.2 (connection "
			  "failure at ERL 0 ends the session), SAM-5 I_T nexus loss",
		.expect_text = "every one of --repeat logins succeeds (no session leaks)",
		.run = c_disc_held,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "disconnect-awaiting-data-out",
		.clause = "RFC 7143 7.14 / 8.2, SAM-5 I_T nexus loss (a task waiting on its R2T)",
		.expect_text = "every one of --repeat logins succeeds (no session leaks)",
		.run = c_disc_r2t,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "disconnect-awaiting-unsolicited-data",
		.clause = "RFC 7143 7.14 / 8.2, 13.10 (InitialR2T=No, F=0: unsolicited Data-Out "
			  "announced), SAM-5 I_T nexus loss",
		.expect_text = "every one of --repeat logins succeeds (no session leaks)",
		.run = c_disc_unsolicited,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "disconnect-during-read",
		.clause = "RFC 7143 7.14 / 8.2, SAM-5 I_T nexus loss (Data-In not read)",
		.expect_text = "every one of --repeat logins succeeds (no session leaks)",
		.run = c_disc_read,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
};
/* clang-format on */

const size_t mf_ffp_cases_n = ARRAY_SIZE(mf_ffp_cases);
