/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed: the malformed-input suite. Each case of mf_cases[] sends one
 * kind of malformed or out-of-contract input over a fresh connection and
 * compares what the target does with the outcomes RFC 7143 (and SPC-4/SAM-5
 * for residuals) allow, cited next to the case. After every case a new
 * session must log in and complete a command ("daemon still serving"), and
 * the daemon's process (--pid) must still be alive.
 *
 * usage: malformed --addr HOST:PORT --target IQN [--lun N] [--pid PID]
 *                  [--repeat N] [--case NAME]... [--list] [-v]
 * Exit status 0 when every case matched, 1 otherwise, 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

#define ANY (-1)

/* What the target did, as seen by the initiator. */
enum mf_kind {
	MF_GOOD,       /* GOOD status / login completed / request answered */
	MF_RESIDUAL,   /* GOOD with a residual: a = flag (O 0x04/U 0x02), b = count */
	MF_CHECK,      /* CHECK CONDITION: a = key, b = ASC, c = ASCQ */
	MF_REJECT,     /* Reject PDU: a = reason */
	MF_LOGIN_FAIL, /* Login Response: a = status class, b = detail */
	MF_DROP,       /* the target closed the connection */
	MF_IGNORED,    /* no answer, and the connection still works afterwards */
	MF_TIMEOUT,    /* no answer (never acceptable) */
	MF_ERROR,      /* the target violated the protocol; never acceptable */
};

/* clang-format off */
static const char *const kind_names[] = {
	[MF_GOOD] = "GOOD",
	[MF_RESIDUAL] = "RESIDUAL",
	[MF_CHECK] = "CHECK-CONDITION",
	[MF_REJECT] = "REJECT",
	[MF_LOGIN_FAIL] = "LOGIN-FAIL",
	[MF_DROP] = "DROP",
	[MF_IGNORED] = "IGNORED",
	[MF_TIMEOUT] = "TIMEOUT",
	[MF_ERROR] = "ERROR",
};
/* clang-format on */

struct mf_outcome {
	enum mf_kind kind;
	int a, b, c;
};

/* clang-format off */
#define OUT(k, ...) { .kind = (k), __VA_ARGS__ }
/* clang-format on */

struct mf_ctx {
	const char *host, *port, *target, *initiator;
	uint64_t lun;
	uint32_t block_size;
	uint64_t blocks;
	int verbose;
	unsigned repeat; /* sessions per disconnect case (> the target's max_sessions) */
	char note[512];	 /* per-case detail for the report */
};

struct mf_case {
	const char *name;
	const char *clause; /* where the expectation comes from */
	const char *expect_text;
	struct mf_outcome (*run)(struct mf_ctx *x);
	struct mf_outcome expect[6]; /* the acceptable outcomes (n_expect of them) */
	int n_expect;
};

#define NOTE(x, ...) snprintf((x)->note, sizeof((x)->note), __VA_ARGS__)

static struct mf_outcome out_of(enum mf_kind k, int a, int b, int c)
{
	struct mf_outcome o = {.kind = k, .a = a, .b = b, .c = c};

	return o;
}

/* ---- helpers ---- */

static void std_opts(const struct mf_ctx *x, struct ir_login_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->initiator_name = x->initiator;
	o->target_name = x->target;
	o->initial_r2t = -1;
	o->immediate_data = -1;
}

static int mf_connect(struct mf_ctx *x, struct ir_conn *c)
{
	int rc;

	ir_conn_init(c);
	c->timeout_ms = 5000;
	rc = ir_connect(c, x->host, x->port, 3000);
	if (rc)
		NOTE(x, "connect: %s", strerror(-rc));
	return rc;
}

static int mf_login(struct mf_ctx *x, struct ir_conn *c, const struct ir_login_opts *o)
{
	int rc = mf_connect(x, c);

	if (rc)
		return rc;
	rc = ir_login(c, o);
	if (rc)
		NOTE(x, "login: %s (%s) status %02x/%02x", strerror(-rc), c->err, c->login_class,
		     c->login_detail);
	return rc;
}

/* TEST UNIT READY until GOOD, tolerating unit attentions (SPC-4 5.14). */
static int tur_good(struct ir_conn *c, uint64_t lun)
{
	struct ir_scsi_result r;
	int i, rc;

	for (i = 0; i < 4; i++) {
		rc = ir_test_unit_ready(c, lun, &r);
		if (rc)
			return rc;
		if (r.status == 0)
			return 0;
	}
	return -EIO;
}

/* Classifies the next PDU (or its absence) on c. */
static struct mf_outcome observe(struct mf_ctx *x, struct ir_conn *c, int wait_ms)
{
	struct ir_pdu p;
	int rc = ir_recv_pdu(c, &p, wait_ms);
	struct mf_outcome o;

	if (rc == -ECONNRESET)
		return out_of(MF_DROP, 0, 0, 0);
	if (rc == -ETIMEDOUT)
		return out_of(MF_TIMEOUT, 0, 0, 0);
	if (rc) {
		NOTE(x, "receive: %s", strerror(-rc));
		return out_of(MF_ERROR, 0, 0, 0);
	}
	switch (ir_pdu_opcode(&p)) {
	case IR_OP_REJECT:
		o = out_of(MF_REJECT, p.bhs.reject.reason, 0, 0);
		break;
	case IR_OP_LOGIN_RSP:
		o = p.bhs.login_rsp.status_class
			? out_of(MF_LOGIN_FAIL, p.bhs.login_rsp.status_class,
				 p.bhs.login_rsp.status_detail, 0)
			: out_of(MF_GOOD, 0, 0, 0);
		break;
	case IR_OP_SCSI_RSP: {
		struct ir_scsi_result r = {0};
		uint8_t k = 0, a = 0, q = 0;

		r.status = p.bhs.scsi_rsp.status;
		if (p.data_len >= 2) {
			r.sense_len = UT_MIN(get_be16(p.data), (uint32_t)sizeof(r.sense));
			r.sense_len = UT_MIN(r.sense_len, p.data_len - 2);
			memcpy(r.sense, p.data + 2, r.sense_len);
		}
		if (r.status == 2 && ir_sense_parse(&r, &k, &a, &q))
			o = out_of(MF_CHECK, k, a, q);
		else if (r.status == 0)
			o = out_of(MF_GOOD, 0, 0, 0);
		else
			o = out_of(MF_CHECK, ANY, r.status, 0);
		break;
	}
	case IR_OP_NOP_IN:
		NOTE(x, "the target answered with a NOP-In (accepted the PDU)");
		o = out_of(MF_GOOD, 0, 0, 0);
		break;
	default:
		NOTE(x, "unexpected %s", ir_opcode_name(ir_pdu_opcode(&p)));
		o = out_of(MF_ERROR, 0, 0, 0);
	}
	ir_pdu_free(&p);
	return o;
}

/* After a Reject the connection may be closed by the target; DROP within a
 * short time is then also part of the same outcome (and not an error). */
static struct mf_outcome then_maybe_drop(struct mf_ctx *x, struct ir_conn *c, struct mf_outcome o)
{
	(void)x;
	if (o.kind == MF_REJECT)
		ir_wait_closed(c, 300, NULL);
	return o;
}

/* Outcome of a completed SCSI exchange. */
static struct mf_outcome scsi_outcome(struct mf_ctx *x, struct ir_conn *c, int rc,
				      const struct ir_scsi_result *r)
{
	uint8_t k, a, q;

	if (rc == -ECONNRESET)
		return out_of(MF_DROP, 0, 0, 0);
	if (rc == -ETIMEDOUT)
		return out_of(MF_TIMEOUT, 0, 0, 0);
	if (rc) {
		NOTE(x, "%s: %s", strerror(-rc), c->err);
		return out_of(MF_ERROR, 0, 0, 0);
	}
	if (r->rejected)
		return out_of(MF_REJECT, r->reject_reason, 0, 0);
	if (r->status == 2) {
		if (ir_sense_parse(r, &k, &a, &q))
			return out_of(MF_CHECK, k, a, q);
		return out_of(MF_CHECK, ANY, 0, 0);
	}
	if (r->status)
		return out_of(MF_CHECK, ANY, r->status, 0);
	if (r->flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW))
		return out_of(MF_RESIDUAL, r->flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW),
			      (int)r->residual, 0);
	return out_of(MF_GOOD, 0, 0, 0);
}

/* A NOP ping proves the connection still works. */
static bool conn_alive(struct ir_conn *c)
{
	static const char ping[] = "still-there";

	return ir_nop_ping(c, ping, sizeof(ping)) == 0;
}

/* Sends a hand-made first Login Request with data (one PDU, any length). */
static struct mf_outcome raw_first_login(struct mf_ctx *x, const uint8_t *data, size_t len,
					 bool keep_len, uint32_t dsl)
{
	struct ir_conn c;
	struct ir_pdu p;
	struct mf_outcome o;

	if (mf_connect(x, &c))
		return out_of(MF_ERROR, 0, 0, 0);
	c.isid[0] = 0x80;
	c.isid[5] = 0x42;
	c.cmdsn = 1;
	ir_build_login_req(&c, &p, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, true, false);
	p.data = (uint8_t *)(uintptr_t)data;
	p.data_len = (uint32_t)len;
	if (keep_len)
		put_be24(p.bhs.common.data_seg_len, dsl);
	if (ir_send_pdu_ex(&c, &p, keep_len ? IR_ENC_KEEP_LENGTHS : 0)) {
		/* the target may close while we are still sending */
		o = out_of(MF_DROP, 0, 0, 0);
	} else {
		o = observe(x, &c, 5000);
	}
	if (o.kind == MF_GOOD) {
		NOTE(x, "the target accepted an oversize login PDU");
		o = out_of(MF_GOOD, 0, 0, 0);
	}
	ir_close(&c);
	return o;
}

static void base_login_keys(struct mf_ctx *x, struct ir_text *t)
{
	ir_text_add(t, "InitiatorName", x->initiator);
	ir_text_add(t, "SessionType", "Normal");
	ir_text_add(t, "TargetName", x->target);
	ir_text_add(t, "AuthMethod", "None");
}

/* ---- login-phase cases ---- */

static struct mf_outcome login_data_over(struct mf_ctx *x, size_t total)
{
	struct ir_text t;
	struct mf_outcome o;
	char val[256];
	unsigned i = 0;

	ir_text_init(&t);
	base_login_keys(x, &t);
	memset(val, 'b', 200);
	val[200] = '\0';
	while (t.len < total) {
		char key[32];

		snprintf(key, sizeof(key), "X-org.utarget.big%u", i++);
		ir_text_add(&t, key, val);
	}
	t.len = total; /* cut the last pair: the length is what matters */
	o = raw_first_login(x, t.buf, t.len, false, 0);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome c_login_8193(struct mf_ctx *x)
{
	return login_data_over(x, 8193);
}

static struct mf_outcome c_login_65536(struct mf_ctx *x)
{
	return login_data_over(x, 65536);
}

static struct mf_outcome c_login_dsl_max(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;

	ir_text_init(&t);
	base_login_keys(x, &t);
	/* DataSegmentLength 2^24-1 announced, only the keys sent */
	o = raw_first_login(x, t.buf, t.len, true, IR_MAX_DSL);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome login_exact(struct mf_ctx *x, uint32_t n)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct mf_outcome res;
	int rc;

	std_opts(x, &o);
	o.pad_first_to = n;
	rc = mf_login(x, &c, &o);
	if (rc == -EACCES)
		res = out_of(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	else if (rc == -ECONNRESET)
		res = out_of(MF_DROP, 0, 0, 0);
	else if (rc)
		res = out_of(MF_ERROR, 0, 0, 0);
	else if (c.login_rsp_max_dsl > IR_LOGIN_DATA_MAX) {
		NOTE(x, "login response data segment %u > 8192", c.login_rsp_max_dsl);
		res = out_of(MF_ERROR, 0, 0, 0);
	} else
		res = tur_good(&c, x->lun) ? out_of(MF_ERROR, 0, 0, 0) : out_of(MF_GOOD, 0, 0, 0);
	ir_close(&c);
	return res;
}

static struct mf_outcome c_login_8189(struct mf_ctx *x)
{
	return login_exact(x, 8189);
}
static struct mf_outcome c_login_8190(struct mf_ctx *x)
{
	return login_exact(x, 8190);
}
static struct mf_outcome c_login_8191(struct mf_ctx *x)
{
	return login_exact(x, 8191);
}
static struct mf_outcome c_login_8192(struct mf_ctx *x)
{
	return login_exact(x, 8192);
}

/* A login with extra raw keys in the first PDU or the operational PDU. */
static struct mf_outcome login_with(struct mf_ctx *x, const struct ir_text *first,
				    const struct ir_text *op, struct ir_conn *keep)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct mf_outcome res;
	int rc;

	std_opts(x, &o);
	if (first) {
		o.first_keys = first->buf;
		o.first_keys_len = first->len;
	}
	if (op) {
		o.extra_keys = op->buf;
		o.extra_keys_len = op->len;
	}
	rc = mf_login(x, &c, &o);
	if (c.login_rsp_max_dsl > IR_LOGIN_DATA_MAX) {
		NOTE(x, "a Login Response carried %u bytes > MaxRecvDataSegmentLength 8192",
		     c.login_rsp_max_dsl);
		res = out_of(MF_ERROR, 0, 0, 0);
	} else if (rc == -EACCES) {
		res = out_of(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	} else if (rc == -ECONNRESET) {
		res = out_of(MF_DROP, 0, 0, 0);
	} else if (rc) {
		res = out_of(MF_ERROR, 0, 0, 0);
	} else {
		res = out_of(MF_GOOD, 0, 0, 0);
		NOTE(x, "login answered in %u PDUs, largest data segment %u", c.login_rsp_pdus,
		     c.login_rsp_max_dsl);
	}
	if (keep && !rc)
		*keep = c;
	else
		ir_close(&c);
	return res;
}

static struct mf_outcome c_key_name_64(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;
	char key[65];

	memset(key, 'k', 64);
	memcpy(key, "X-", 2);
	key[64] = '\0';
	ir_text_init(&t);
	ir_text_add(&t, key, "1");
	o = login_with(x, &t, NULL, NULL);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome c_value_256(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;
	char val[257];

	memset(val, 'v', 256);
	val[256] = '\0';
	ir_text_init(&t);
	ir_text_add(&t, "InitiatorAlias", val);
	o = login_with(x, &t, NULL, NULL);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome c_value_8193(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;
	char *val = malloc(8194);

	/* one value longer than any key may carry; the login PDUs are split
	 * with the C bit (RFC 7143 6.2 text continuation) */
	memset(val, 'v', 8193);
	val[8193] = '\0';
	ir_text_init(&t);
	ir_text_add(&t, "X-org.utarget.huge", val);
	o = login_with(x, &t, NULL, NULL);
	ir_text_free(&t);
	free(val);
	return o;
}

static struct mf_outcome c_unknown_keys_1170(struct mf_ctx *x)
{
	static const char alnum[] =
	    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	struct ir_text t;
	struct mf_outcome o;
	unsigned i;

	/* X-ab=1: 7 bytes each, 1170 distinct keys in one 8192-byte PDU with
	 * the base keys; each answer "X-ab=NotUnderstood" is longer than the
	 * key, so the answer needs Login Response continuation (C bit). */
	ir_text_init(&t);
	for (i = 0; i < 1100; i++) {
		char key[8] = {'X', '-', alnum[i / 62], alnum[i % 62], 0};

		ir_text_add(&t, key, "1");
	}
	o = login_with(x, &t, NULL, NULL);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome c_repeated_key(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;

	ir_text_init(&t);
	ir_text_add(&t, "MaxBurstLength", "65536");
	ir_text_add(&t, "MaxBurstLength", "131072");
	o = login_with(x, NULL, &t, NULL);
	ir_text_free(&t);
	return o;
}

static struct mf_outcome c_first_burst_gt_max(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct mf_outcome res;
	int rc;

	std_opts(x, &o);
	o.max_burst = 16384;
	o.first_burst = 65536;
	o.initial_r2t = 0;
	rc = mf_login(x, &c, &o);
	if (rc == -EACCES) {
		res = out_of(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	} else if (rc) {
		res = out_of(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	} else if (c.p.first_burst > c.p.max_burst) {
		/* 13.14: FirstBurstLength MUST NOT exceed MaxBurstLength */
		NOTE(x, "negotiated FirstBurstLength %u > MaxBurstLength %u", c.p.first_burst,
		     c.p.max_burst);
		res = out_of(MF_ERROR, 0, 0, 0);
	} else {
		NOTE(x, "negotiated FirstBurstLength %u, MaxBurstLength %u", c.p.first_burst,
		     c.p.max_burst);
		res = out_of(MF_GOOD, 0, 0, 0);
	}
	ir_close(&c);
	return res;
}

/* A key answered NotUnderstood/Irrelevant/Reject is not acted upon. */
static bool answered_refusal(struct ir_conn *c, const char *key)
{
	char v[64];

	if (ir_login_answer(c, key, v, sizeof(v)) < 0)
		return true; /* not answered: ignored */
	return !strcmp(v, "Reject") || !strcmp(v, "Irrelevant") || !strcmp(v, "NotUnderstood");
}

static struct mf_outcome c_security_key_in_op(struct mf_ctx *x)
{
	struct ir_text t;
	struct ir_conn c;
	struct mf_outcome o;

	ir_text_init(&t);
	ir_text_add(&t, "AuthMethod", "None");
	o = login_with(x, NULL, &t, &c);
	ir_text_free(&t);
	if (o.kind == MF_GOOD) {
		char v[64];

		if (!answered_refusal(&c, "AuthMethod")) {
			ir_login_answer(&c, "AuthMethod", v, sizeof(v));
			NOTE(x, "AuthMethod accepted in the operational stage: %s", v);
			o = out_of(MF_ERROR, 0, 0, 0);
		}
		ir_close(&c);
	}
	return o;
}

static struct mf_outcome c_ffp_key_in_login(struct mf_ctx *x)
{
	struct ir_text t;
	struct ir_conn c;
	struct mf_outcome o;
	char v[256];

	ir_text_init(&t);
	ir_text_add(&t, "SendTargets", "All");
	o = login_with(x, NULL, &t, &c);
	ir_text_free(&t);
	if (o.kind == MF_GOOD) {
		/* 13.3 SendTargets is FFPO: no target list during login */
		if (ir_login_answer(&c, "TargetAddress", v, sizeof(v)) >= 0 ||
		    !answered_refusal(&c, "SendTargets")) {
			NOTE(x, "SendTargets was executed during login");
			o = out_of(MF_ERROR, 0, 0, 0);
		}
		ir_close(&c);
	}
	return o;
}

/* ---- full feature phase cases ---- */

/* Logs in a normal session with the standard options (modifiable). */
static int ffp_login(struct mf_ctx *x, struct ir_conn *c, struct ir_login_opts *o)
{
	int rc = mf_login(x, c, o);

	if (!rc)
		rc = tur_good(c, x->lun);
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

	std_opts(x, &o);
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
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
		res = out_of(MF_DROP, 0, 0, 0);
	else
		res = then_maybe_drop(x, &c, observe(x, &c, 5000));
	if (res.kind == MF_REJECT && ir_wait_closed(&c, 2000, NULL)) {
		NOTE(x, "Reject but the connection was kept: the stream is out of sync");
		res = out_of(MF_ERROR, 0, 0, 0);
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

	std_opts(x, &o);
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
	p.bhs.cmd.opcode = IR_OP_SCSI_CMD;
	p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(x->lun, p.bhs.cmd.lun);
	put_be32(p.bhs.cmd.itt, ir_next_itt(&c));
	put_be32(p.bhs.cmd.cmdsn, c.cmdsn++);
	put_be32(p.bhs.cmd.exp_statsn, c.expstatsn);
	p.ahs = (uint8_t *)(uintptr_t)ahs;
	p.ahs_len = ahs_len;
	if (ir_send_pdu(&c, &p))
		res = out_of(MF_DROP, 0, 0, 0);
	else
		res = then_maybe_drop(x, &c, observe(x, &c, 5000));
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

	std_opts(x, &o);
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
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
		return out_of(MF_DROP, 0, 0, 0);
	}
	res = observe(x, &c, 1500);
	if (res.kind == MF_TIMEOUT) {
		/* silently ignored; the session must still work */
		res = conn_alive(&c) && tur_good(&c, x->lun) == 0 ? out_of(MF_IGNORED, 0, 0, 0)
								  : out_of(MF_ERROR, 0, 0, 0);
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

	std_opts(x, &o);
	if (mf_connect(x, &c))
		return out_of(MF_ERROR, 0, 0, 0);
	c.cmdsn = 0xfffffffdu; /* the leading login sets the initial CmdSN */
	rc = ir_login(&c, &o);
	if (rc) {
		NOTE(x, "login with CmdSN 0xfffffffd: %s %s", strerror(-rc), c.err);
		ir_close(&c);
		return out_of(rc == -EACCES ? MF_LOGIN_FAIL : MF_ERROR, c.login_class,
			      c.login_detail, 0);
	}
	for (i = 0; i < 8; i++) {
		rc = ir_test_unit_ready(&c, x->lun, &r);
		if (rc || (r.status && r.status != 2)) {
			NOTE(x, "command %d across the CmdSN wrap: %s %s", i,
			     rc ? strerror(-rc) : "bad status", c.err);
			ir_close(&c);
			return out_of(rc == -ETIMEDOUT ? MF_TIMEOUT : MF_ERROR, 0, 0, 0);
		}
	}
	NOTE(x, "8 commands from CmdSN 0xfffffffd to 0x%08x", c.cmdsn - 1);
	ir_close(&c);
	return out_of(MF_GOOD, 0, 0, 0);
}

/* Sends a WRITE(16) of `blocks` blocks with EDTL edtl, no immediate data,
 * then waits for the first R2T. Returns its offset/length and TTT. */
static int write_until_r2t(struct mf_ctx *x, struct ir_conn *c, uint32_t blocks, uint32_t edtl,
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

static int send_dout(struct ir_conn *c, const struct mf_ctx *x, uint32_t itt, uint32_t ttt,
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
static struct mf_outcome status_after(struct mf_ctx *x, struct ir_conn *c)
{
	for (;;) {
		struct ir_pdu p;
		int rc = ir_recv_pdu(c, &p, 5000);
		struct mf_outcome o;

		if (rc == -ECONNRESET)
			return out_of(MF_DROP, 0, 0, 0);
		if (rc == -ETIMEDOUT)
			return out_of(MF_TIMEOUT, 0, 0, 0);
		if (rc) {
			NOTE(x, "receive: %s", strerror(-rc));
			return out_of(MF_ERROR, 0, 0, 0);
		}
		if (ir_pdu_opcode(&p) == IR_OP_R2T) {
			uint32_t itt = ir_pdu_itt(&p), ttt = get_be32(p.bhs.r2t.ttt);
			uint32_t off = get_be32(p.bhs.r2t.buffer_offset);
			uint32_t len = get_be32(p.bhs.r2t.desired_len);

			ir_pdu_free(&p);
			if (len > (1u << 20) || send_dout(c, x, itt, ttt, 0, off, len, true, 0))
				return out_of(MF_DROP, 0, 0, 0);
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
				return out_of(MF_CHECK, k, a, q);
			return r.status ? out_of(MF_CHECK, ANY, r.status, 0)
					: out_of(MF_GOOD, 0, 0, 0);
		}
		if (ir_pdu_opcode(&p) == IR_OP_REJECT) {
			o = out_of(MF_REJECT, p.bhs.reject.reason, 0, 0);
			ir_pdu_free(&p);
			return o;
		}
		NOTE(x, "unexpected %s", ir_opcode_name(ir_pdu_opcode(&p)));
		ir_pdu_free(&p);
		return out_of(MF_ERROR, 0, 0, 0);
	}
}

static struct mf_outcome write_case(struct mf_ctx *x, int mode)
{
	struct ir_login_opts o;
	struct ir_conn c;
	uint32_t itt, ttt, off, len, bs = x->block_size;
	struct mf_outcome res;
	int rc;

	std_opts(x, &o);
	o.immediate_data = 0;
	o.initial_r2t = 1;
	if (mode == 1)
		o.max_burst = 512; /* R2Ts of 512 bytes: data can go beyond one */
	o.max_recv_dsl = 512;
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
	rc = write_until_r2t(x, &c, 4, 4 * bs, &itt, &ttt, &off, &len);
	if (rc) {
		NOTE(x, "WRITE setup: %s %s", strerror(-rc), c.err);
		ir_close(&c);
		return out_of(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	}
	switch (mode) {
	case 0: /* DataSN gap: 0 then 2 */
		rc = send_dout(&c, x, itt, ttt, 0, off, 512, false, 0);
		if (!rc)
			rc = send_dout(&c, x, itt, ttt, 2, off + 512, len - 512, true, 0);
		break;
	case 1: /* Data-Out past the R2T window (R2T length <= 512) */
		rc = send_dout(&c, x, itt, ttt, 0, off, len + 1024, true, 0);
		break;
	case 2: /* Data-Out beyond the Expected Data Transfer Length */
		rc = send_dout(&c, x, itt, ttt, 0, 4 * bs, 512, true, 0);
		break;
	}
	if (rc) {
		ir_close(&c);
		return out_of(MF_DROP, 0, 0, 0);
	}
	res = then_maybe_drop(x, &c, status_after(x, &c));
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

	std_opts(x, &o);
	o.immediate_data = 0;
	o.initial_r2t = 0;
	o.first_burst = 512;
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
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
		rc = send_dout(&c, x, itt, IR_RSVD_TAG, 0, 0, UT_MIN(4 * bs, c.p.target_mrdsl),
			       true, 0);
	if (rc) {
		ir_close(&c);
		return out_of(MF_DROP, 0, 0, 0);
	}
	NOTE(x, "negotiated FirstBurstLength %u InitialR2T %s, sent %u unsolicited bytes",
	     c.p.first_burst, c.p.initial_r2t ? "Yes" : "No", UT_MIN(4 * bs, c.p.target_mrdsl));
	res = then_maybe_drop(x, &c, status_after(x, &c));
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

	std_opts(x, &o);
	if (ffp_login(x, &c, &o)) {
		free(buf);
		return out_of(MF_ERROR, 0, 0, 0);
	}
	put_be64(cdb + 2, 32);
	put_be32(cdb + 10, blocks);
	if (write)
		rc = ir_scsi_cmd_ex(&c, x->lun, cdb, 16, IR_DIR_WRITE, buf, edtl, NULL, 0, &co, &r);
	else
		rc = ir_scsi_cmd_ex(&c, x->lun, cdb, 16, IR_DIR_READ, NULL, 0, buf, edtl, &co, &r);
	res = scsi_outcome(x, &c, rc, &r);
	if (!write && res.kind == MF_RESIDUAL && r.data_in_len > edtl) {
		NOTE(x, "%u bytes of Data-In for EDTL %u", r.data_in_len, edtl);
		res = out_of(MF_ERROR, 0, 0, 0);
	}
	if (res.kind == MF_RESIDUAL && !conn_alive(&c)) {
		NOTE(x, "connection unusable after the command");
		res = out_of(MF_ERROR, 0, 0, 0);
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

	std_opts(x, &o);
	if (ffp_login(x, &c, &o) || ir_read16(&c, x->lun, 40, 1, bs, before, &r) || r.status) {
		res = out_of(MF_ERROR, 0, 0, 0);
		goto out;
	}
	put_be64(cdb + 2, 40);
	put_be32(cdb + 10, 1);
	memset(buf, 0xa5, bs);
	if (read_as_write)
		rc = ir_scsi_cmd(&c, x->lun, cdb, 16, IR_DIR_WRITE, buf, bs, NULL, 0, &r);
	else
		rc = ir_scsi_cmd(&c, x->lun, cdb, 16, IR_DIR_READ, NULL, 0, buf, bs, &r);
	res = scsi_outcome(x, &c, rc, &r);
	if (res.kind == MF_RESIDUAL || res.kind == MF_GOOD || res.kind == MF_CHECK) {
		if (!read_as_write && r.data_in_len) {
			NOTE(x, "%u bytes of Data-In for a WRITE", r.data_in_len);
			res = out_of(MF_ERROR, 0, 0, 0);
		} else if (ir_read16(&c, x->lun, 40, 1, bs, after, &r) || r.status ||
			   memcmp(before, after, bs)) {
			NOTE(x, "the medium changed (or could not be read back)");
			res = out_of(MF_ERROR, 0, 0, 0);
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

static struct mf_outcome raw_opcode(struct mf_ctx *x, uint8_t opcode)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_pdu p = {0};
	struct mf_outcome res;

	std_opts(x, &o);
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
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
		return out_of(MF_DROP, 0, 0, 0);
	}
	res = observe(x, &c, 3000);
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

	std_opts(x, &o);
	o.header_digest = true;
	o.digest_only = true;
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
	if (!c.hdigest) {
		NOTE(x, "the target did not accept HeaderDigest=CRC32C");
		ir_close(&c);
		return out_of(MF_ERROR, 0, 0, 0);
	}
	p.bhs.req.opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	p.bhs.req.flags = IR_FLAG_FINAL;
	put_be32(p.bhs.req.itt, ir_next_itt(&c));
	put_be32(p.bhs.req.ttt, IR_RSVD_TAG);
	put_be32(p.bhs.req.cmdsn, c.cmdsn);
	put_be32(p.bhs.req.exp_statsn, c.expstatsn);
	if (ir_send_pdu_ex(&c, &p, IR_ENC_BAD_HDIGEST))
		res = out_of(MF_DROP, 0, 0, 0);
	else
		res = observe(x, &c, 5000);
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

	std_opts(x, &o);
	o.data_digest = true;
	o.digest_only = true;
	o.immediate_data = 0;
	if (ffp_login(x, &c, &o))
		return out_of(MF_ERROR, 0, 0, 0);
	if (!c.ddigest) {
		NOTE(x, "the target did not accept DataDigest=CRC32C");
		ir_close(&c);
		return out_of(MF_ERROR, 0, 0, 0);
	}
	rc = write_until_r2t(x, &c, 1, x->block_size, &itt, &ttt, &off, &len);
	if (!rc)
		rc = send_dout(&c, x, itt, ttt, 0, off, len, true, IR_ENC_BAD_DDIGEST);
	if (rc) {
		ir_close(&c);
		return out_of(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	}
	res = status_after(x, &c);
	if (res.kind == MF_REJECT && res.a == IR_REJ_DATA_DIGEST) {
		/* 7.8: the task then ends with CHECK CONDITION (protocol service
		 * CRC error) once all data arrived, or a recovery R2T (answered
		 * by status_after) leads to GOOD */
		struct mf_outcome st = status_after(x, &c);

		NOTE(x, "after Reject 0x02: %s", kind_names[st.kind]);
		res = st.kind == MF_REJECT ? out_of(MF_ERROR, 0, 0, 0) : st;
	} else if (res.kind != MF_DROP) {
		NOTE(x, "%s without a Reject 0x02 first", kind_names[res.kind]);
		res = out_of(MF_ERROR, 0, 0, 0);
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

		std_opts(x, &o);
		o.immediate_data = 0;
		if (mode == 3)
			o.initial_r2t = 0;
		rc = mf_login(x, &c, &o);
		if (rc) {
			struct mf_outcome res =
			    rc == -EACCES ? out_of(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0)
					  : out_of(MF_ERROR, 0, 0, 0);

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
	return out_of(MF_GOOD, 0, 0, 0);
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

/* ---- the case table ---- */

/* clang-format off */
static const struct mf_case mf_cases[] = {
	/* Login phase. RFC 7143 6.2/13.12: during login the receiver accepts
	 * at most 8192 bytes of data per PDU; 11.13.5: a login that breaks
	 * the rules ends with status class 2 (initiator error), and the
	 * connection is closed; closing without an answer is tolerated for
	 * framing violations (7.13: the stream may be out of sync). */
	{
		.name = "login-data-8193",
		.clause = "RFC 7143 6.2, 13.12 (login MaxRecvDataSegmentLength 8192), 11.13.5",
		.expect_text = "login failure class 2, Reject 0x04, or drop",
		.run = c_login_8193,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "login-data-65536",
		.clause = "RFC 7143 6.2, 13.12, 11.13.5",
		.expect_text = "login failure class 2, Reject 0x04, or drop",
		.run = c_login_65536,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "login-dsl-2^24-1",
		.clause = "RFC 7143 11.2.1 (DataSegmentLength), 13.12, 7.13",
		.expect_text = "login failure class 2, Reject 0x04, or drop; no allocation",
		.run = c_login_dsl_max,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "login-data-8189",
		.clause = "RFC 7143 6.2 (8192 bytes per login PDU are allowed), 11.2.1 padding",
		.expect_text = "login completes, TEST UNIT READY GOOD",
		.run = c_login_8189,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "login-data-8190",
		.clause = "RFC 7143 6.2, 11.2.1 padding",
		.expect_text = "login completes, TEST UNIT READY GOOD",
		.run = c_login_8190,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "login-data-8191",
		.clause = "RFC 7143 6.2, 11.2.1 padding",
		.expect_text = "login completes, TEST UNIT READY GOOD",
		.run = c_login_8191,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "login-data-8192",
		.clause = "RFC 7143 6.2",
		.expect_text = "login completes, TEST UNIT READY GOOD",
		.run = c_login_8192,
		.expect = { OUT(MF_GOOD) },
		.n_expect = 1,
	},
	{
		.name = "key-name-64-bytes",
		.clause = "RFC 7143 6.1 (key names at most 63 bytes), 11.13.5 02/00",
		.expect_text = "login failure class 2",
		.run = c_key_name_64,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY) },
		.n_expect = 1,
	},
	{
		.name = "value-256-bytes",
		.clause = "RFC 7143 6.1 (simple values at most 255 bytes), 13.7 InitiatorAlias",
		.expect_text = "login failure class 2",
		.run = c_value_256,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY) },
		.n_expect = 1,
	},
	{
		.name = "value-8193-bytes",
		.clause = "RFC 7143 6.1 (no value exceeds 8192 bytes), 6.2 continuation",
		.expect_text = "login failure class 2 or 3 (out of resources)",
		.run = c_value_8193,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY),
			    OUT(MF_LOGIN_FAIL, .a = 3, .b = 2) },
		.n_expect = 2,
	},
	{
		.name = "unknown-keys-1100",
		.clause = "RFC 7143 6.2.1 (NotUnderstood), 6.2 / 13.12 (answers continued with "
			  "the C bit, no PDU above 8192)",
		.expect_text = "login completes with every response PDU <= 8192 bytes, or "
			       "login failure class 2 (too many keys)",
		.run = c_unknown_keys_1170,
		.expect = { OUT(MF_GOOD), OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY) },
		.n_expect = 2,
	},
	{
		.name = "repeated-key",
		.clause = "RFC 7143 6.2 (a key negotiated twice: login reject, initiator error), "
			  "11.13.5 02/00",
		.expect_text = "login failure 02/00",
		.run = c_repeated_key,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = 0) },
		.n_expect = 1,
	},
	{
		.name = "first-burst-gt-max-burst",
		.clause = "RFC 7143 13.14 (FirstBurstLength MUST NOT exceed MaxBurstLength)",
		.expect_text = "login completes with FirstBurstLength <= MaxBurstLength, or "
			       "login failure class 2",
		.run = c_first_burst_gt_max,
		.expect = { OUT(MF_GOOD), OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY) },
		.n_expect = 2,
	},
	{
		.name = "security-key-in-operational-stage",
		.clause = "RFC 7143 6.3, 12.1 (AuthMethod is a security-stage key)",
		.expect_text = "login failure class 2, or the key refused (Reject/Irrelevant)",
		.run = c_security_key_in_op,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY), OUT(MF_GOOD) },
		.n_expect = 2,
	},
	{
		.name = "ffp-key-in-login",
		.clause = "RFC 7143 13.3 (SendTargets: full feature phase only)",
		.expect_text = "login failure class 2, or SendTargets refused and not executed",
		.run = c_ffp_key_in_login,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = ANY), OUT(MF_GOOD) },
		.n_expect = 2,
	},
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
			    OUT(MF_CHECK, .a = ANY, .b = 0x0e, .c = ANY) },
		.n_expect = 4,
	},
	{
		.name = "ahs-total-255-cdb-1032",
		.clause = "RFC 7143 11.2.2 / 11.3.5 (Extended CDB AHS), SPC-4 4.2.2 (CDB length)",
		.expect_text = "CHECK CONDITION ILLEGAL REQUEST or ASC 0Eh, Reject 0x04/0x09, or "
			       "drop",
		.run = c_ahs_total_255,
		.expect = { OUT(MF_REJECT, .a = 4), OUT(MF_REJECT, .a = 9), OUT(MF_DROP),
			    OUT(MF_CHECK, .a = 5, .b = ANY, .c = ANY),
			    OUT(MF_CHECK, .a = ANY, .b = 0x0e, .c = ANY) },
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
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = ANY, .c = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "dataout-beyond-r2t",
		.clause = "RFC 7143 11.8 (R2T offset + length bound the Data-Out), 11.7",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_dataout_beyond_r2t,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = ANY, .c = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "dataout-beyond-edtl",
		.clause = "RFC 7143 11.3.4 (Expected Data Transfer Length bounds the data)",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_dataout_beyond_edtl,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = ANY, .c = ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_REJECT, .a = 9), OUT(MF_DROP) },
		.n_expect = 4,
	},
	{
		.name = "unsolicited-beyond-first-burst",
		.clause = "RFC 7143 13.14 (unsolicited data <= FirstBurstLength), 13.10 InitialR2T",
		.expect_text = "CHECK CONDITION (ABORTED COMMAND), Reject 0x04/0x09, or drop",
		.run = c_unsolicited_beyond_fb,
		.expect = { OUT(MF_CHECK, .a = 0x0b, .b = ANY, .c = ANY), OUT(MF_REJECT, .a = 4),
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
		.expect = { OUT(MF_CHECK, .a = ANY, .b = ANY, .c = ANY),
			    OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 2,
	},
	{
		.name = "write-sent-as-read",
		.clause = "RFC 7143 11.3.1 (R/W bits), 11.4.5.2",
		.expect_text = "CHECK CONDITION, or GOOD with overflow of the whole transfer; "
			       "no Data-In, no R2T, the medium unchanged",
		.run = c_dir_write_as_read,
		.expect = { OUT(MF_CHECK, .a = ANY, .b = ANY, .c = ANY),
			    OUT(MF_RESIDUAL, .a = IR_RSP_OVERFLOW, .b = -2) },
		.n_expect = 2,
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

/* Expected residual counts are relative to the block size: -2 = one block,
 * -3 = 10000 minus one block. */
static bool matches(const struct mf_ctx *x, const struct mf_outcome *want,
		    const struct mf_outcome *got)
{
	int b = want->b;

	if (want->kind != got->kind)
		return false;
	if (want->kind == MF_RESIDUAL) {
		if (b == -2)
			b = (int)x->block_size;
		else if (b == -3)
			b = 10000 - (int)x->block_size;
	}
	return (want->a == ANY || want->a == got->a) && (b == ANY || b == got->b) &&
	       (want->c == ANY || want->c == got->c);
}

static const char *fmt_outcome(const struct mf_outcome *o, char *buf, size_t n)
{
	switch (o->kind) {
	case MF_CHECK:
		snprintf(buf, n, "CHECK-CONDITION %02x/%02x/%02x", o->a & 0xff, o->b, o->c);
		break;
	case MF_REJECT:
		snprintf(buf, n, "REJECT 0x%02x", o->a);
		break;
	case MF_LOGIN_FAIL:
		snprintf(buf, n, "LOGIN-FAIL %02x/%02x", o->a, o->b);
		break;
	case MF_RESIDUAL:
		snprintf(buf, n, "RESIDUAL %s %d", o->a == IR_RSP_OVERFLOW ? "O" : "U", o->b);
		break;
	default:
		snprintf(buf, n, "%s", kind_names[o->kind]);
	}
	return buf;
}

/* A fresh session logs in and completes a command. */
static bool still_serving(struct mf_ctx *x, pid_t pid, char *why, size_t n)
{
	struct ir_login_opts o;
	struct ir_conn c;
	uint8_t resp = 0xff;
	int rc;

	if (pid > 0 && kill(pid, 0) != 0) {
		snprintf(why, n, "daemon pid %d is gone", (int)pid);
		return false;
	}
	char saved[sizeof(x->note)];

	memcpy(saved, x->note, sizeof(saved));
	std_opts(x, &o);
	rc = mf_login(x, &c, &o);
	if (!rc)
		rc = tur_good(&c, x->lun);
	if (!rc)
		rc = ir_logout(&c, &resp);
	ir_close(&c);
	if (rc)
		snprintf(why, n, "a new session failed: %s (%s)", strerror(-rc > 0 ? -rc : EIO),
			 x->note);
	memcpy(x->note, saved, sizeof(saved));
	return rc == 0;
}

static int probe_lu(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_scsi_result r;
	int rc;

	std_opts(x, &o);
	rc = mf_login(x, &c, &o);
	if (!rc)
		rc = tur_good(&c, x->lun);
	if (!rc)
		rc = ir_read_capacity16(&c, x->lun, &x->blocks, &x->block_size, &r);
	if (!rc && (r.status || !x->block_size))
		rc = -EIO;
	ir_close(&c);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: malformed --addr HOST:PORT --target IQN [--lun N] [--pid PID] "
			"[--initiator IQN] [--repeat N] [--case NAME]... [--list] [-v]\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},	 {"target", required_argument, NULL, 't'},
	    {"initiator", required_argument, NULL, 'i'}, {"lun", required_argument, NULL, 'l'},
	    {"pid", required_argument, NULL, 'p'},	 {"case", required_argument, NULL, 'c'},
	    {"repeat", required_argument, NULL, 'r'},	 {"list", no_argument, NULL, 'L'},
	    {"verbose", no_argument, NULL, 'v'},	 {0},
	};
	struct mf_ctx x = {.initiator = "iqn.2026-12.org.utarget:malformed", .repeat = 48};
	char host[256], port[16];
	const char *addr = NULL, *only[64];
	int n_only = 0, ch, failed = 0, passed = 0;
	pid_t pid = 0;
	size_t i;

	while ((ch = getopt_long(argc, argv, "a:t:i:l:p:c:r:Lv", lopts, NULL)) != -1) {
		char *end;

		switch (ch) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			x.target = optarg;
			break;
		case 'i':
			x.initiator = optarg;
			break;
		case 'l':
			x.lun = strtoull(optarg, &end, 0);
			if (*end)
				return usage(), 2;
			break;
		case 'p':
			pid = (pid_t)strtol(optarg, &end, 10);
			if (*end)
				return usage(), 2;
			break;
		case 'c':
			if (n_only < (int)ARRAY_SIZE(only))
				only[n_only++] = optarg;
			break;
		case 'r':
			x.repeat = (unsigned)strtoul(optarg, &end, 0);
			if (*end || !x.repeat)
				return usage(), 2;
			break;
		case 'L':
			for (i = 0; i < ARRAY_SIZE(mf_cases); i++)
				printf("%-36s %s\n    expect: %s\n", mf_cases[i].name,
				       mf_cases[i].clause, mf_cases[i].expect_text);
			return 0;
		case 'v':
			x.verbose++;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!addr || !x.target || ir_parse_addr(addr, host, sizeof(host), port, sizeof(port))) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	x.host = host;
	x.port = port;
	if (probe_lu(&x)) {
		fprintf(stderr, "malformed: cannot log in to %s at %s: %s\n", x.target, addr,
			x.note);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("malformed: %s lun %llu, %llu blocks of %u bytes\n", x.target,
	       (unsigned long long)x.lun, (unsigned long long)x.blocks, x.block_size);
	for (i = 0; i < ARRAY_SIZE(mf_cases); i++) {
		const struct mf_case *k = &mf_cases[i];
		struct mf_outcome got;
		char gbuf[64], why[600];
		bool ok = false;
		int j;

		if (n_only) {
			bool sel = false;

			for (j = 0; j < n_only; j++)
				sel |= !strcmp(only[j], k->name);
			if (!sel)
				continue;
		}
		x.note[0] = '\0';
		got = k->run(&x);
		for (j = 0; j < k->n_expect; j++)
			ok |= matches(&x, &k->expect[j], &got);
		why[0] = '\0';
		if (!still_serving(&x, pid, why, sizeof(why)))
			ok = false;
		printf("%s %-36s got %-24s expect %s%s%s%s%s\n", ok ? "PASS" : "FAIL", k->name,
		       fmt_outcome(&got, gbuf, sizeof(gbuf)), k->expect_text,
		       x.note[0] ? " | " : "", x.note, why[0] ? " | NOT SERVING: " : "", why);
		if (x.verbose)
			printf("     clause: %s\n", k->clause);
		if (ok)
			passed++;
		else
			failed++;
		if (why[0] && pid > 0 && kill(pid, 0) != 0)
			break; /* the daemon died: nothing more to learn */
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
