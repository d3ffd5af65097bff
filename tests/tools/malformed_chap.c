/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed_chap.c: CHAP cases of the malformed-input suite (RFC 7143
 * 12.1.3, 6.1 binary values, 11.13.5 status): oversize, malformed and
 * out-of-range CHAP_R, CHAP_C, CHAP_N, CHAP_I and CHAP_A, reflection, keys
 * in the wrong step or order, skipped authentication; plus the encodings a
 * target must accept (odd hex digit counts, unpadded base64). Each runs a
 * hand-made login against --chap-target with the suite's CHAP credentials
 * (--chap-user/--chap-secret, --mutual-user/--mutual-secret). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/endian.h"
#include "malformed.h"

/* One CHAP login in progress. */
struct chap_login {
	struct ir_conn c;
	int alg;
	uint8_t id;
	uint8_t chal[IR_CHAP_MAX_BIN];
	int chal_len;
};

static bool have_chap(struct mf_ctx *x)
{
	if (x->chap_target && x->chap_user && x->chap_secret && x->mutual_user && x->mutual_secret)
		return true;
	NOTE(x, "CHAP cases need --chap-target, --chap-user, --chap-secret, --mutual-user, "
		"--mutual-secret");
	return false;
}

/* The outcome of a received Login Response (or of its absence). */
static struct mf_outcome rsp_outcome(int rc, const struct ir_pdu *p)
{
	if (rc == -ECONNRESET)
		return mf_out(MF_DROP, 0, 0, 0);
	if (rc == -ETIMEDOUT)
		return mf_out(MF_TIMEOUT, 0, 0, 0);
	if (rc || ir_pdu_opcode(p) != IR_OP_LOGIN_RSP)
		return mf_out(MF_ERROR, 0, 0, 0);
	if (p->bhs.login_rsp.status_class)
		return mf_out(MF_LOGIN_FAIL, p->bhs.login_rsp.status_class,
			      p->bhs.login_rsp.status_detail, 0);
	return mf_out(MF_GOOD, 0, 0, 0);
}

/* One login request (csg -> nsg) with the keys of t; the response in rsp. */
static int req(struct ir_conn *c, int csg, int nsg, bool transit, const struct ir_text *t,
	       struct ir_pdu *rsp)
{
	struct ir_pdu p;
	int rc;

	ir_build_login_req(c, &p, csg, nsg, transit, false);
	p.data = t ? t->buf : NULL;
	p.data_len = t ? (uint32_t)t->len : 0;
	rc = ir_send_pdu(c, &p);
	if (rc)
		return rc == -EPIPE ? -ECONNRESET : rc;
	return ir_recv_pdu(c, rsp, 5000);
}

static int rsp_get(const struct ir_pdu *p, const char *key, char *val, size_t size)
{
	return ir_text_get(p->data, p->data_len, key, val, size);
}

/* Connect, AuthMethod=CHAP, then CHAP_A=algs (algs NULL: only the
 * AuthMethod step). 0 when that went through (the challenge arrived), else
 * *o is the outcome so far. */
static int chap_begin(struct mf_ctx *x, struct chap_login *L, const char *algs,
		      struct mf_outcome *o)
{
	struct ir_text t;
	struct ir_pdu rsp;
	char v[2 * IR_CHAP_MAX_BIN + 8];
	int rc;

	memset(L, 0, sizeof(*L));
	if (mf_connect(x, &L->c)) {
		*o = mf_out(MF_ERROR, 0, 0, 0);
		return -1;
	}
	L->c.isid[0] = 0x80;
	L->c.isid[5] = 0x5c;
	L->c.cmdsn = 1;
	L->c.itt_next = 1;
	ir_text_init(&t);
	ir_text_add(&t, "InitiatorName", x->initiator);
	ir_text_add(&t, "SessionType", "Normal");
	ir_text_add(&t, "TargetName", x->chap_target);
	ir_text_add(&t, "AuthMethod", "CHAP");
	rc = req(&L->c, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, false, &t, &rsp);
	ir_text_free(&t);
	*o = rsp_outcome(rc, &rsp);
	if (o->kind != MF_GOOD) {
		ir_pdu_free(&rsp);
		return -1;
	}
	if (rsp_get(&rsp, "AuthMethod", v, sizeof(v)) < 0 || strcmp(v, "CHAP")) {
		NOTE(x, "the target did not choose AuthMethod=CHAP");
		*o = mf_out(MF_ERROR, 0, 0, 0);
		ir_pdu_free(&rsp);
		return -1;
	}
	ir_pdu_free(&rsp);
	if (!algs)
		return 0;
	ir_text_init(&t);
	ir_text_add(&t, "CHAP_A", algs);
	rc = req(&L->c, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, false, &t, &rsp);
	ir_text_free(&t);
	*o = rsp_outcome(rc, &rsp);
	if (o->kind != MF_GOOD) {
		ir_pdu_free(&rsp);
		return -1;
	}
	if (rsp_get(&rsp, "CHAP_A", v, sizeof(v)) < 0 || !ir_chap_digest_len(atoi(v))) {
		NOTE(x, "no usable CHAP_A in the answer");
		*o = mf_out(MF_ERROR, 0, 0, 0);
		ir_pdu_free(&rsp);
		return -1;
	}
	L->alg = atoi(v);
	if (rsp_get(&rsp, "CHAP_I", v, sizeof(v)) < 0)
		v[0] = '\0';
	L->id = (uint8_t)atoi(v);
	L->chal_len = rsp_get(&rsp, "CHAP_C", v, sizeof(v)) < 0
			  ? -1
			  : ir_chap_decode(v, strlen(v), L->chal, sizeof(L->chal));
	ir_pdu_free(&rsp);
	if (L->chal_len <= 0) {
		NOTE(x, "no usable CHAP_C in the answer");
		*o = mf_out(MF_ERROR, 0, 0, 0);
		return -1;
	}
	return 0;
}

/* Send the keys of the response step (T=1) and classify the answer; on
 * GOOD finish the login (operational stage) and log out. */
static struct mf_outcome chap_finish(struct mf_ctx *x, struct chap_login *L,
				     const struct ir_text *t, bool transit)
{
	struct ir_pdu rsp;
	struct ir_text op;
	struct mf_outcome o;
	uint8_t r = 0xff;
	int rc = req(&L->c, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, transit, t, &rsp);

	o = rsp_outcome(rc, &rsp);
	if (o.kind == MF_GOOD && !(rsp.bhs.login_rsp.flags & IR_LOGIN_TRANSIT)) {
		NOTE(x, "authentication step answered without transit");
		ir_pdu_free(&rsp);
		return o; /* callers that expect that check it */
	}
	ir_pdu_free(&rsp);
	if (o.kind != MF_GOOD)
		return o;
	ir_text_init(&op);
	ir_text_add(&op, "HeaderDigest", "None");
	ir_text_add(&op, "DataDigest", "None");
	rc = req(&L->c, IR_STAGE_OPERATIONAL, IR_STAGE_FFP, true, &op, &rsp);
	ir_text_free(&op);
	o = rsp_outcome(rc, &rsp);
	if (o.kind == MF_GOOD && (rsp.bhs.login_rsp.flags & (IR_LOGIN_TRANSIT | 3)) !=
				     (IR_LOGIN_TRANSIT | IR_STAGE_FFP)) {
		NOTE(x, "no transit to full feature phase");
		o = mf_out(MF_ERROR, 0, 0, 0);
	}
	ir_pdu_free(&rsp);
	if (o.kind == MF_GOOD) {
		L->c.full_feature = true;
		L->c.itt_next++;
		if (ir_logout(&L->c, &r) || r) {
			NOTE(x, "logout after the CHAP login failed");
			o = mf_out(MF_ERROR, 0, 0, 0);
		}
	}
	return o;
}

/* CHAP_R=<encoded response of secret> */
static void add_response(struct ir_text *t, const struct chap_login *L, const char *secret, int enc)
{
	uint8_t r[IR_CHAP_MAX_DIGEST];
	char v[2 * IR_CHAP_MAX_DIGEST + 8];
	int n = ir_chap_response(L->alg, L->id, secret, strlen(secret), L->chal,
				 (size_t)L->chal_len, r);

	ir_chap_encode(enc, r, (size_t)(n > 0 ? n : 0), v, sizeof(v));
	ir_text_add(t, "CHAP_R", v);
}

/* A whole CHAP login whose response step carries these raw records
 * ("k=v\0" ...) after CHAP_N (when with_n). */
static struct mf_outcome chap_case(struct mf_ctx *x, const char *algs, bool with_n,
				   const char *recs, size_t recs_len)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, algs, &o) == 0) {
		ir_text_init(&t);
		if (with_n)
			ir_text_add(&t, "CHAP_N", x->chap_user);
		ir_text_add_raw(&t, recs, recs_len);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

/* "CHAP_R=0x" + n bytes of 0x5a, and any other key, as a record. */
static char *big_value(const char *key, const char *prefix, size_t digits, size_t *len)
{
	size_t kl = strlen(key), pl = strlen(prefix);
	char *s = malloc(kl + 1 + pl + digits + 1);

	memcpy(s, key, kl);
	s[kl] = '=';
	memcpy(s + kl + 1, prefix, pl);
	memset(s + kl + 1 + pl, '5', digits);
	*len = kl + 1 + pl + digits + 1;
	s[*len - 1] = '\0';
	return s;
}

static struct mf_outcome c_chap_r_1025(struct mf_ctx *x)
{
	size_t n;
	char *r = big_value("CHAP_R", "0x", 2 * 1025, &n);
	struct mf_outcome o = chap_case(x, "5", true, r, n);

	free(r);
	return o;
}

static struct mf_outcome c_chap_c_1025(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;
	size_t n;
	char *cc;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "5", &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		add_response(&t, &L, x->chap_secret, IR_ENC_HEX);
		ir_text_add(&t, "CHAP_I", "7");
		cc = big_value("CHAP_C", "0x", 2 * 1025, &n);
		ir_text_add_raw(&t, cc, n);
		free(cc);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

/* The response step with a correct CHAP_R and these extra records. */
static struct mf_outcome good_r_plus(struct mf_ctx *x, const char *algs, const char *extra,
				     size_t extra_len, int enc)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, algs, &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		add_response(&t, &L, x->chap_secret, enc);
		if (extra_len)
			ir_text_add_raw(&t, extra, extra_len);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

#define RECS(s) (s), sizeof(s)

static struct mf_outcome c_chap_r_bad_hex(struct mf_ctx *x)
{
	return chap_case(x, "5", true, RECS("CHAP_R=0x0123456789abcdefghij0123456789ab"));
}

static struct mf_outcome c_chap_r_bad_base64(struct mf_ctx *x)
{
	return chap_case(x, "5", true, RECS("CHAP_R=0bAAAA!!!!AAAAAAAAAAAAAAAAAAAA"));
}

static struct mf_outcome c_chap_r_empty(struct mf_ctx *x)
{
	return chap_case(x, "5", true, RECS("CHAP_R="));
}

static struct mf_outcome c_chap_r_decimal(struct mf_ctx *x)
{
	return chap_case(x, "5", true, RECS("CHAP_R=1234567890"));
}

static struct mf_outcome c_chap_r_wrong_len(struct mf_ctx *x)
{
	/* 15 bytes where MD5 gives 16; 32 where SHA-1 gives 20 */
	struct mf_outcome o =
	    chap_case(x, "5", true, RECS("CHAP_R=0x00112233445566778899aabbccddee"));

	if (o.kind == MF_LOGIN_FAIL)
		o = chap_case(
		    x, "6", true,
		    RECS("CHAP_R="
			 "0x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"));
	return o;
}

static struct mf_outcome c_chap_wrong_secret(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "7", &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		add_response(&t, &L, "not-the-secret", IR_ENC_HEX);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome c_chap_unknown_user(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "8", &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", "nobody-by-that-name");
		add_response(&t, &L, x->chap_secret, IR_ENC_HEX);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome c_chap_n_256(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;
	char n[257];

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	memset(n, 'n', 256);
	n[256] = '\0';
	if (chap_begin(x, &L, "5", &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", n);
		add_response(&t, &L, x->chap_secret, IR_ENC_HEX);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

/* 6.1: n hex digits are (n+1)/2 bytes; a response whose first byte is
 * below 0x10 may be written with an odd digit count. Challenges are
 * abandoned until the response has such a first byte (1 in 16). */
static struct mf_outcome c_chap_r_odd_hex(struct mf_ctx *x)
{
	struct mf_outcome o = mf_out(MF_ERROR, 0, 0, 0);

	if (!have_chap(x))
		return o;
	for (int tries = 0; tries < 400; tries++) {
		struct chap_login L;
		uint8_t r[IR_CHAP_MAX_DIGEST];
		char v[2 * IR_CHAP_MAX_DIGEST + 16];
		struct ir_text t;
		int n;

		if (chap_begin(x, &L, "5", &o)) {
			ir_close(&L.c);
			return o;
		}
		n = ir_chap_response(L.alg, L.id, x->chap_secret, strlen(x->chap_secret), L.chal,
				     (size_t)L.chal_len, r);
		if (n <= 0 || r[0] >= 0x10) {
			ir_close(&L.c);
			continue;
		}
		ir_chap_encode(IR_ENC_HEX, r, (size_t)n, v, sizeof(v));
		memmove(v + 2, v + 3, strlen(v + 3) + 1); /* drop the leading 0 digit */
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		ir_text_add(&t, "CHAP_R", v);
		o = chap_finish(x, &L, &t, true);
		NOTE(x, "CHAP_R with %zu hex digits after %d abandoned challenges", strlen(v) - 2,
		     tries);
		ir_text_free(&t);
		ir_close(&L.c);
		return o;
	}
	NOTE(x, "no response below 0x10 in 400 challenges");
	return mf_out(MF_ERROR, 0, 0, 0);
}

/* 6.1: base64 pad digits are optional */
static struct mf_outcome c_chap_r_base64_unpadded(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;
	uint8_t r[IR_CHAP_MAX_DIGEST];
	char v[2 * IR_CHAP_MAX_DIGEST + 16];
	int n;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "5", &o) == 0) {
		n = ir_chap_response(L.alg, L.id, x->chap_secret, strlen(x->chap_secret), L.chal,
				     (size_t)L.chal_len, r);
		ir_chap_encode(IR_ENC_BASE64, r, (size_t)n, v, sizeof(v));
		while (v[strlen(v) - 1] == '=') /* 16 bytes: two pad digits */
			v[strlen(v) - 1] = '\0';
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		ir_text_add(&t, "CHAP_R", v);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome c_chap_i_256(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_I=256\0CHAP_C=0x0102030405060708090a0b0c0d0e0f10"),
			   IR_ENC_HEX);
}

static struct mf_outcome c_chap_i_text(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_I=one\0CHAP_C=0x0102030405060708090a0b0c0d0e0f10"),
			   IR_ENC_HEX);
}

static struct mf_outcome c_chap_i_without_c(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_I=1"), IR_ENC_HEX);
}

static struct mf_outcome c_chap_c_malformed(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_I=1\0CHAP_C=0x01g2"), IR_ENC_HEX);
}

static struct mf_outcome c_chap_duplicate_key(struct mf_ctx *x)
{
	char dup[64];
	int n = snprintf(dup, sizeof(dup), "CHAP_N=%s", x->chap_user ? x->chap_user : "");

	return good_r_plus(x, "5", dup, (size_t)n + 1, IR_ENC_HEX);
}

static struct mf_outcome c_chap_unknown_key(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_X=1"), IR_ENC_HEX);
}

/* 12.1.3: the initiator sends back the target's own challenge */
static struct mf_outcome c_chap_c_reflected(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;
	char v[2 * IR_CHAP_MAX_BIN + 8];

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "7", &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		add_response(&t, &L, x->chap_secret, IR_ENC_HEX);
		snprintf(v, sizeof(v), "%u", L.id);
		ir_text_add(&t, "CHAP_I", v);
		ir_chap_encode(IR_ENC_HEX, L.chal, (size_t)L.chal_len, v, sizeof(v));
		ir_text_add(&t, "CHAP_C", v);
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

/* The response step repeats CHAP_A. */
static struct mf_outcome c_chap_a_again(struct mf_ctx *x)
{
	return good_r_plus(x, "5", RECS("CHAP_A=5"), IR_ENC_HEX);
}

/* CHAP_N/CHAP_R where CHAP_A belongs */
static struct mf_outcome c_chap_r_before_a(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_text t;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, NULL, &o) == 0) {
		ir_text_init(&t);
		ir_text_add(&t, "CHAP_N", x->chap_user);
		ir_text_add(&t, "CHAP_R", "0x00112233445566778899aabbccddeeff");
		o = chap_finish(x, &L, &t, true);
		ir_text_free(&t);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome algs_case(struct mf_ctx *x, const char *algs)
{
	struct chap_login L;
	struct mf_outcome o;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, algs, &o) == 0) {
		NOTE(x, "CHAP_A=%s was answered with a challenge (algorithm %d)", algs, L.alg);
		o = mf_out(MF_GOOD, 0, 0, 0);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome c_chap_a_unknown(struct mf_ctx *x)
{
	return algs_case(x, "99,200");
}

static struct mf_outcome c_chap_a_malformed(struct mf_ctx *x)
{
	return algs_case(x, "5,,7");
}

/* CHAP_A in the first request, before AuthMethod was agreed */
static struct mf_outcome c_chap_before_authmethod(struct mf_ctx *x)
{
	struct ir_conn c;
	struct ir_text t;
	struct ir_pdu rsp;
	struct mf_outcome o;
	int rc;

	if (!have_chap(x) || mf_connect(x, &c))
		return mf_out(MF_ERROR, 0, 0, 0);
	c.isid[0] = 0x80;
	c.cmdsn = 1;
	ir_text_init(&t);
	ir_text_add(&t, "InitiatorName", x->initiator);
	ir_text_add(&t, "SessionType", "Normal");
	ir_text_add(&t, "TargetName", x->chap_target);
	ir_text_add(&t, "CHAP_A", "5");
	rc = req(&c, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, false, &t, &rsp);
	ir_text_free(&t);
	o = rsp_outcome(rc, &rsp);
	ir_pdu_free(&rsp);
	ir_close(&c);
	return o;
}

/* AuthMethod=None, or no security stage at all, to a target that
 * requires CHAP */
static struct mf_outcome skip_auth(struct mf_ctx *x, bool skip_security)
{
	struct ir_login_opts lo;
	struct ir_conn c;
	int rc;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	mf_std_opts(x, &lo);
	lo.target_name = x->chap_target;
	lo.skip_security = skip_security;
	rc = mf_login(x, &c, &lo);
	ir_close(&c);
	if (rc == -EACCES)
		return mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
	if (rc == -ECONNRESET)
		return mf_out(MF_DROP, 0, 0, 0);
	return mf_out(rc ? MF_ERROR : MF_GOOD, 0, 0, 0);
}

static struct mf_outcome c_chap_none_offered(struct mf_ctx *x)
{
	return skip_auth(x, false);
}

static struct mf_outcome c_chap_skip_security(struct mf_ctx *x)
{
	return skip_auth(x, true);
}

/* T=1 after the challenge without a response: no transit may follow */
static struct mf_outcome c_chap_transit_without_r(struct mf_ctx *x)
{
	struct chap_login L;
	struct mf_outcome o;
	struct ir_pdu rsp;
	int rc;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	if (chap_begin(x, &L, "5", &o) == 0) {
		rc = req(&L.c, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, true, NULL, &rsp);
		o = rsp_outcome(rc, &rsp);
		if (o.kind == MF_GOOD && (rsp.bhs.login_rsp.flags & IR_LOGIN_TRANSIT)) {
			NOTE(x, "the target left the security stage without a CHAP response");
			o = mf_out(MF_ERROR, 0, 0, 0);
		}
		ir_pdu_free(&rsp);
	}
	ir_close(&L.c);
	return o;
}

static struct mf_outcome c_chap_mutual_ok(struct mf_ctx *x)
{
	struct ir_chap_opts ch = {0};
	struct ir_login_opts lo;
	struct ir_conn c;
	int rc;

	if (!have_chap(x))
		return mf_out(MF_ERROR, 0, 0, 0);
	/* the well-formed exchange, every algorithm in turn: the baseline of
	 * the cases above */
	for (int alg = 5; alg <= 8; alg++) {
		ch = (struct ir_chap_opts){.user = x->chap_user,
					   .secret = x->chap_secret,
					   .mutual_user = x->mutual_user,
					   .mutual_secret = x->mutual_secret,
					   .algs = {alg},
					   .encoding = alg & 1 ? IR_ENC_HEX : IR_ENC_BASE64};
		mf_std_opts(x, &lo);
		lo.target_name = x->chap_target;
		lo.chap = &ch;
		rc = mf_login(x, &c, &lo);
		ir_close(&c);
		if (rc == -EACCES)
			return mf_out(MF_LOGIN_FAIL, c.login_class, c.login_detail, 0);
		if (rc) {
			NOTE(x, "CHAP_A=%d: %s %s", alg, strerror(-rc), c.err);
			return mf_out(MF_ERROR, 0, 0, 0);
		}
	}
	return mf_out(MF_GOOD, 0, 0, 0);
}

#define AUTH_FAIL                                                                                  \
	.expect = {OUT(MF_LOGIN_FAIL, .a = 2, .b = 1)}, .n_expect = 1,                             \
	.expect_text = "login failure 02/01 (authentication failure)"
#define AUTH_FAIL_OR_DROP                                                                          \
	.expect = {OUT(MF_LOGIN_FAIL, .a = 2, .b = 1), OUT(MF_DROP)}, .n_expect = 2,               \
	.expect_text = "login failure 02/01, or the connection closed"

/* clang-format off */
const struct mf_case mf_chap_cases[] = {
	{ .name = "chap-mutual-every-alg", .run = c_chap_mutual_ok,
	  .clause = "RFC 7143 12.1.3 (CHAP_A 5/6/7/8, hex and base64, mutual)",
	  .expect = { OUT(MF_GOOD) }, .n_expect = 1,
	  .expect_text = "login completes, the target's CHAP_R verifies" },
	{ .name = "chap-r-1025-bytes", .run = c_chap_r_1025, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (C and R: at most 1024 bytes), 11.13.5" },
	{ .name = "chap-c-1025-bytes", .run = c_chap_c_1025, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (C and R: at most 1024 bytes)" },
	{ .name = "chap-r-bad-hex", .run = c_chap_r_bad_hex, AUTH_FAIL,
	  .clause = "RFC 7143 6.1 (hex-constant), 12.1.3" },
	{ .name = "chap-r-bad-base64", .run = c_chap_r_bad_base64, AUTH_FAIL,
	  .clause = "RFC 7143 6.1 (base64-constant, RFC 4648), 12.1.3" },
	{ .name = "chap-r-empty", .run = c_chap_r_empty, AUTH_FAIL,
	  .clause = "RFC 7143 6.1, 12.1.3" },
	{ .name = "chap-r-decimal", .run = c_chap_r_decimal, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (R is a binary value: hex or base64)" },
	{ .name = "chap-r-wrong-length", .run = c_chap_r_wrong_len, AUTH_FAIL,
	  .clause = "RFC 1994 4.1 (the response is the digest), RFC 7143 12.1.3" },
	{ .name = "chap-r-odd-hex-digits", .run = c_chap_r_odd_hex,
	  .clause = "RFC 7143 6.1 (n hex digits are (n+1)/2 bytes)",
	  .expect = { OUT(MF_GOOD) }, .n_expect = 1,
	  .expect_text = "login completes" },
	{ .name = "chap-r-base64-unpadded", .run = c_chap_r_base64_unpadded,
	  .clause = "RFC 7143 6.1 (base64 pad digits are optional)",
	  .expect = { OUT(MF_GOOD) }, .n_expect = 1,
	  .expect_text = "login completes" },
	{ .name = "chap-wrong-secret", .run = c_chap_wrong_secret, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3, 11.13.5 02/01" },
	{ .name = "chap-unknown-user", .run = c_chap_unknown_user, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3, 11.13.5 02/01" },
	{ .name = "chap-n-256-bytes", .run = c_chap_n_256, AUTH_FAIL,
	  .clause = "RFC 7143 6.1 (simple values at most 255 bytes), 12.1.3" },
	{ .name = "chap-i-256", .run = c_chap_i_256, AUTH_FAIL,
	  .clause = "RFC 1994 4.1 (the Identifier is one octet), RFC 7143 12.1.3" },
	{ .name = "chap-i-not-a-number", .run = c_chap_i_text, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (I is a number)" },
	{ .name = "chap-i-without-c", .run = c_chap_i_without_c, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (CHAP_I and CHAP_C together)" },
	{ .name = "chap-c-malformed", .run = c_chap_c_malformed, AUTH_FAIL,
	  .clause = "RFC 7143 6.1, 12.1.3" },
	{ .name = "chap-c-reflected", .run = c_chap_c_reflected, AUTH_FAIL_OR_DROP,
	  .clause = "RFC 7143 12.1.3 (responders MUST check for a reused challenge and "
		    "close the connection)" },
	{ .name = "chap-key-twice", .run = c_chap_duplicate_key, AUTH_FAIL,
	  .clause = "RFC 7143 6.2 (a key once per request), 12.1.3" },
	{ .name = "chap-unknown-chap-key", .run = c_chap_unknown_key, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (the CHAP keys)" },
	{ .name = "chap-a-in-response-step", .run = c_chap_a_again, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (CHAP_A, then CHAP_N/CHAP_R)" },
	{ .name = "chap-r-before-a", .run = c_chap_r_before_a, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (CHAP_A comes first)" },
	{ .name = "chap-a-unknown", .run = c_chap_a_unknown, AUTH_FAIL,
	  .clause = "RFC 7143 12.1.3 (no algorithm in common), 11.13.5" },
	{ .name = "chap-a-malformed", .run = c_chap_a_malformed, AUTH_FAIL,
	  .clause = "RFC 7143 6.1 (list-of-values), 12.1.3" },
	{ .name = "chap-before-authmethod", .run = c_chap_before_authmethod, AUTH_FAIL,
	  .clause = "RFC 7143 6.3, 12 (AuthMethod first)" },
	{ .name = "chap-target-authmethod-none", .run = c_chap_none_offered, AUTH_FAIL,
	  .clause = "RFC 7143 12 (the target requires CHAP), 11.13.5 02/01" },
	{ .name = "chap-target-skip-security", .run = c_chap_skip_security, AUTH_FAIL,
	  .clause = "RFC 7143 6.3.1 (no security stage only when none is required)" },
	{ .name = "chap-transit-without-response", .run = c_chap_transit_without_r,
	  .clause = "RFC 7143 6.3 (no transit before authentication), 12.1.3",
	  .expect = { OUT(MF_GOOD), OUT(MF_LOGIN_FAIL, .a = 2, .b = MF_ANY) }, .n_expect = 2,
	  .expect_text = "answered without transit, or login failure class 2" },
};
/* clang-format on */

const size_t mf_chap_cases_n = ARRAY_SIZE(mf_chap_cases);
