/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed_login.c: login-phase cases of the malformed-input suite (RFC
 * 7143 6, 11.12, 11.13, 13): oversize and exact-size login data, key and
 * value lengths, unknown and repeated keys, keys in the wrong stage,
 * FirstBurstLength above MaxBurstLength. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "lib/endian.h"
#include "malformed.h"

static struct mf_outcome raw_first_login(struct mf_ctx *x, const uint8_t *data, size_t len,
					 bool keep_len, uint32_t dsl)
{
	struct ir_conn c;
	struct ir_pdu p;
	struct mf_outcome o;

	if (mf_connect(x, &c))
		return mf_out(MF_ERROR, 0, 0, 0);
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
		o = mf_out(MF_DROP, 0, 0, 0);
	} else {
		o = mf_observe(x, &c, 5000);
	}
	if (o.kind == MF_GOOD) {
		NOTE(x, "the target accepted an oversize login PDU");
		o = mf_out(MF_GOOD, 0, 0, 0);
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

	mf_std_opts(x, &o);
	o.pad_first_to = n;
	rc = mf_login(x, &c, &o);
	if (rc == -EACCES)
		res = mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	else if (rc == -ECONNRESET)
		res = mf_out(MF_DROP, 0, 0, 0);
	else if (rc)
		res = mf_out(MF_ERROR, 0, 0, 0);
	else if (c.login_rsp_max_dsl > IR_LOGIN_DATA_MAX) {
		NOTE(x, "login response data segment %u > 8192", c.login_rsp_max_dsl);
		res = mf_out(MF_ERROR, 0, 0, 0);
	} else
		res =
		    mf_tur_good(&c, x->lun) ? mf_out(MF_ERROR, 0, 0, 0) : mf_out(MF_GOOD, 0, 0, 0);
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

	mf_std_opts(x, &o);
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
		res = mf_out(MF_ERROR, 0, 0, 0);
	} else if (rc == -EACCES) {
		res = mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	} else if (rc == -ECONNRESET) {
		res = mf_out(MF_DROP, 0, 0, 0);
	} else if (rc) {
		res = mf_out(MF_ERROR, 0, 0, 0);
	} else {
		res = mf_out(MF_GOOD, 0, 0, 0);
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

static struct mf_outcome c_login_continuation_flood(struct mf_ctx *x)
{
	struct ir_text t;
	struct mf_outcome o;
	char key[32], val[200];
	unsigned i;

	/* 256 KiB of distinct, well-formed unknown keys, sent as 32 Login
	 * Requests chained with the C bit (6.2): the target must bound what
	 * it accumulates and fail the login rather than grow without end */
	memset(val, 'c', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	ir_text_init(&t);
	for (i = 0; t.len < 256 * 1024; i++) {
		snprintf(key, sizeof(key), "X-org.utarget.flood%u", i);
		ir_text_add(&t, key, val);
	}
	o = login_with(x, &t, NULL, NULL);
	ir_text_free(&t);
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

	mf_std_opts(x, &o);
	o.max_burst = 16384;
	o.first_burst = 65536;
	o.initial_r2t = 0;
	rc = mf_login(x, &c, &o);
	if (rc == -EACCES) {
		res = mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	} else if (rc) {
		res = mf_out(rc == -ECONNRESET ? MF_DROP : MF_ERROR, 0, 0, 0);
	} else if (c.p.first_burst > c.p.max_burst) {
		/* 13.14: FirstBurstLength MUST NOT exceed MaxBurstLength */
		NOTE(x, "negotiated FirstBurstLength %u > MaxBurstLength %u", c.p.first_burst,
		     c.p.max_burst);
		res = mf_out(MF_ERROR, 0, 0, 0);
	} else {
		NOTE(x, "negotiated FirstBurstLength %u, MaxBurstLength %u", c.p.first_burst,
		     c.p.max_burst);
		res = mf_out(MF_GOOD, 0, 0, 0);
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
			o = mf_out(MF_ERROR, 0, 0, 0);
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
			o = mf_out(MF_ERROR, 0, 0, 0);
		}
		ir_close(&c);
	}
	return o;
}

/* clang-format off */
const struct mf_case mf_login_cases[] = {
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
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "login-data-65536",
		.clause = "RFC 7143 6.2, 13.12, 11.13.5",
		.expect_text = "login failure class 2, Reject 0x04, or drop",
		.run = c_login_65536,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY), OUT(MF_REJECT, .a = 4),
			    OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "login-dsl-2^24-1",
		.clause = "RFC 7143 11.2.1 (DataSegmentLength), 13.12, 7.13",
		.expect_text = "login failure class 2, Reject 0x04, or drop; no allocation",
		.run = c_login_dsl_max,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY), OUT(MF_REJECT, .a = 4),
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
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY) },
		.n_expect = 1,
	},
	{
		.name = "value-256-bytes",
		.clause = "RFC 7143 6.1 (simple values at most 255 bytes), 13.7 InitiatorAlias",
		.expect_text = "login failure class 2",
		.run = c_value_256,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY) },
		.n_expect = 1,
	},
	{
		.name = "value-8193-bytes",
		.clause = "RFC 7143 6.1 (no value exceeds 8192 bytes), 6.2 continuation",
		.expect_text = "login failure class 2 or 3 (out of resources)",
		.run = c_value_8193,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY),
			    OUT(MF_LOGIN_FAIL, .a = 3, .b = 2) },
		.n_expect = 2,
	},
	{
		.name = "login-continuation-256k",
		.clause = "RFC 7143 6.2 (text continuation with the C bit), 11.13.5 (02/00, or "
			  "03/02 out of resources)",
		.expect_text = "login failure class 2 or 03/02, or drop: the accumulation is bounded",
		.run = c_login_continuation_flood,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY),
			    OUT(MF_LOGIN_FAIL, .a = 3, .b = 2), OUT(MF_DROP) },
		.n_expect = 3,
	},
	{
		.name = "unknown-keys-1100",
		.clause = "RFC 7143 6.2.1 (NotUnderstood), 6.2 / 13.12 (answers continued with "
			  "the C bit, no PDU above 8192)",
		.expect_text = "login completes with every response PDU <= 8192 bytes, or "
			       "login failure class 2 (too many keys)",
		.run = c_unknown_keys_1170,
		.expect = { OUT(MF_GOOD), OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY) },
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
		.expect = { OUT(MF_GOOD), OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY) },
		.n_expect = 2,
	},
	{
		.name = "security-key-in-operational-stage",
		.clause = "RFC 7143 6.3, 12.1 (AuthMethod is a security-stage key)",
		.expect_text = "login failure class 2, or the key refused (Reject/Irrelevant)",
		.run = c_security_key_in_op,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY), OUT(MF_GOOD) },
		.n_expect = 2,
	},
	{
		.name = "ffp-key-in-login",
		.clause = "RFC 7143 13.3 (SendTargets: full feature phase only)",
		.expect_text = "login failure class 2, or SendTargets refused and not executed",
		.run = c_ffp_key_in_login,
		.expect = { OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY), OUT(MF_GOOD) },
		.n_expect = 2,
	},
};
/* clang-format on */

const size_t mf_login_cases_n = ARRAY_SIZE(mf_login_cases);
