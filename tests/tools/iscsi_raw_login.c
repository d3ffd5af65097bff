/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_raw_login.c: login phase of the raw test initiator (RFC 7143 6.2,
 * 6.3, 11.12, 11.13), operational key negotiation (section 13) and CHAP
 * (12.1.3, RFC 1994; CHAP_A 5 MD5, 6 SHA-1, 7 SHA-256, 8 SHA3-256 from the
 * IANA PPP authentication algorithms registry that 12.1.3 refers to; binary
 * values in hex "0x" or base64 "0b" per 6.1). */
#include "iscsi_raw.h"

#include <errno.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/endian.h"

/* ---- CHAP math ---- */

static const EVP_MD *chap_md(int alg)
{
	switch (alg) {
	case IR_CHAP_MD5:
		return EVP_md5();
	case IR_CHAP_SHA1:
		return EVP_sha1();
	case IR_CHAP_SHA256:
		return EVP_sha256();
	case IR_CHAP_SHA3_256:
		return EVP_sha3_256();
	default:
		return NULL;
	}
}

size_t ir_chap_digest_len(int alg)
{
	const EVP_MD *md = chap_md(alg);

	return md ? (size_t)EVP_MD_get_size(md) : 0;
}

int ir_chap_response(int alg, uint8_t id, const void *secret, size_t secret_len,
		     const void *challenge, size_t chal_len, uint8_t out[IR_CHAP_MAX_DIGEST])
{
	const EVP_MD *md = chap_md(alg);
	EVP_MD_CTX *ctx;
	unsigned int len = 0;
	int ok;

	if (!md)
		return -EINVAL;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	/* RFC 1994 4.1: Response = H(Identifier || secret || Challenge) */
	ok = EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, &id, 1) &&
	     EVP_DigestUpdate(ctx, secret, secret_len) &&
	     EVP_DigestUpdate(ctx, challenge, chal_len) && EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
	return ok ? (int)len : -EIO;
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int ir_chap_encode(int enc, const uint8_t *bin, size_t len, char *out, size_t out_size)
{
	size_t o = 2, i;

	if (enc == IR_ENC_HEX) {
		if (out_size < 2 + 2 * len + 1)
			return -ENOSPC;
		out[0] = '0';
		out[1] = 'x';
		for (i = 0; i < len; i++) {
			out[o++] = "0123456789abcdef"[bin[i] >> 4];
			out[o++] = "0123456789abcdef"[bin[i] & 15];
		}
	} else {
		if (out_size < 2 + 4 * ((len + 2) / 3) + 1)
			return -ENOSPC;
		out[0] = '0';
		out[1] = 'b';
		for (i = 0; i < len; i += 3) {
			uint32_t v = (uint32_t)bin[i] << 16;
			size_t n = len - i;

			if (n > 1)
				v |= (uint32_t)bin[i + 1] << 8;
			if (n > 2)
				v |= bin[i + 2];
			out[o++] = b64chars[(v >> 18) & 63];
			out[o++] = b64chars[(v >> 12) & 63];
			out[o++] = n > 1 ? b64chars[(v >> 6) & 63] : '=';
			out[o++] = n > 2 ? b64chars[v & 63] : '=';
		}
	}
	out[o] = '\0';
	return (int)o;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int b64val(char ch)
{
	const char *p = ch ? memchr(b64chars, ch, 64) : NULL;

	return p ? (int)(p - b64chars) : -1;
}

int ir_chap_decode(const char *s, size_t slen, uint8_t *out, size_t out_size)
{
	size_t i, o = 0;

	if (slen < 3 || s[0] != '0')
		return -EINVAL;
	if (s[1] == 'x' || s[1] == 'X') {
		size_t nd = slen - 2;
		/* an odd digit count has an implied leading zero nibble */
		bool half = nd & 1;
		int acc = 0;

		if ((nd + 1) / 2 > out_size)
			return -ENOSPC;
		for (i = 2; i < slen; i++) {
			int v = hexval(s[i]);

			if (v < 0)
				return -EINVAL;
			if (half) {
				out[o++] = (uint8_t)(acc << 4 | v);
				half = false;
			} else {
				acc = v;
				half = true;
			}
		}
		return (int)o;
	}
	if (s[1] == 'b' || s[1] == 'B') {
		uint32_t acc = 0;
		int bits = 0;
		size_t pad = 0;

		for (i = 2; i < slen; i++) {
			int v;

			if (s[i] == '=') {
				pad++;
				continue;
			}
			if (pad)
				return -EINVAL; /* data after padding */
			v = b64val(s[i]);
			if (v < 0)
				return -EINVAL;
			acc = acc << 6 | (uint32_t)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (o >= out_size)
					return -ENOSPC;
				out[o++] = (uint8_t)(acc >> bits);
			}
		}
		if (pad > 2 || ((slen - 2) & 3))
			return -EINVAL;
		return (int)o;
	}
	return -EINVAL;
}

/* ---- login ---- */

/* RFC 7143 11.13.5: a redirection carries TargetAddress=... */
static void login_redirect_address(struct ir_conn *c, const struct ir_pdu *rsp)
{
	static const char key[] = "TargetAddress=";
	size_t off = 0;

	c->login_target_address[0] = '\0';
	while (off < rsp->data_len) {
		const char *kv = (const char *)rsp->data + off;
		size_t len = strnlen(kv, rsp->data_len - off);

		if (len > sizeof(key) - 1 && memcmp(kv, key, sizeof(key) - 1) == 0)
			snprintf(c->login_target_address, sizeof(c->login_target_address), "%.*s",
				 (int)(len - (sizeof(key) - 1)), kv + sizeof(key) - 1);
		off += len + 1;
	}
}

void ir_build_login_req(struct ir_conn *c, struct ir_pdu *p, int csg, int nsg, bool transit,
			bool cont)
{
	struct ir_bhs_login_req *l = &p->bhs.login_req;

	memset(p, 0, sizeof(*p));
	l->opcode = IR_OP_IMMEDIATE | IR_OP_LOGIN_REQ;
	l->flags = (uint8_t)((transit ? IR_LOGIN_TRANSIT : 0) | (cont ? IR_LOGIN_CONTINUE : 0) |
			     (csg & 3) << IR_LOGIN_CSG_SHIFT | (transit ? (nsg & 3) : 0));
	l->version_max = 0;
	l->version_min = 0;
	memcpy(l->isid, c->isid, sizeof(l->isid));
	put_be16(l->tsih, c->tsih);
	put_be32(l->itt, c->itt_next);
	put_be16(l->cid, c->cid);
	put_be32(l->cmdsn, c->cmdsn);
	put_be32(l->exp_statsn, c->expstatsn);
}

/* The state of one login attempt. */
struct login_state {
	const struct ir_login_opts *o;
	struct ir_params p;
	bool answered[16];
	/* CHAP */
	int chap_alg;
	uint8_t chap_id;
	uint8_t chap_chal[IR_CHAP_MAX_BIN];
	int chap_chal_len;
	bool chap_got_challenge;
	uint8_t my_id;
	uint8_t my_chal[32];
	bool chap_sent_response;
	bool mutual_verified;
	bool target_chap_r;
	char target_chap_n[256];
	uint8_t target_chap_rv[IR_CHAP_MAX_BIN];
	int target_chap_rlen;
	int err;
};

static bool val_is(const uint8_t *v, size_t vlen, const char *s)
{
	return v && vlen == strlen(s) && !memcmp(v, s, vlen);
}

static bool key_is(const uint8_t *k, size_t klen, const char *s)
{
	return klen == strlen(s) && !memcmp(k, s, klen);
}

/* Decimal value of a key (RFC 7143 6.1: numerical values); -1 on error. */
static int64_t val_num(const uint8_t *v, size_t vlen)
{
	char tmp[32];
	char *end;
	unsigned long long n;

	if (!v || !vlen || vlen >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, vlen);
	tmp[vlen] = '\0';
	errno = 0;
	n = strtoull(tmp, &end, 0);
	if (errno || *end || n > UINT32_MAX)
		return -1;
	return (int64_t)n;
}

static bool val_special(const uint8_t *v, size_t vlen)
{
	return val_is(v, vlen, "Reject") || val_is(v, vlen, "Irrelevant") ||
	       val_is(v, vlen, "NotUnderstood");
}

static int login_rsp_key(void *arg, const uint8_t *k, size_t klen, const uint8_t *v, size_t vlen)
{
	struct login_state *ls = arg;
	struct ir_params *p = &ls->p;
	int64_t n;

	if (val_special(v, vlen))
		return 0; /* keep the default */
	n = val_num(v, vlen);
	if (key_is(k, klen, "HeaderDigest")) {
		p->hdigest = val_is(v, vlen, "CRC32C");
	} else if (key_is(k, klen, "DataDigest")) {
		p->ddigest = val_is(v, vlen, "CRC32C");
	} else if (key_is(k, klen, "MaxRecvDataSegmentLength")) {
		if (n < 512 || n > IR_MAX_DSL) {
			ls->err = -EPROTO;
			return 1;
		}
		p->target_mrdsl = (uint32_t)n;
	} else if (key_is(k, klen, "MaxBurstLength")) {
		if (n >= 512)
			p->max_burst = (uint32_t)n;
	} else if (key_is(k, klen, "FirstBurstLength")) {
		if (n >= 512)
			p->first_burst = (uint32_t)n;
	} else if (key_is(k, klen, "InitialR2T")) {
		p->initial_r2t = val_is(v, vlen, "Yes");
	} else if (key_is(k, klen, "ImmediateData")) {
		p->immediate_data = val_is(v, vlen, "Yes");
	} else if (key_is(k, klen, "MaxOutstandingR2T")) {
		if (n >= 1)
			p->max_outstanding_r2t = (uint32_t)n;
	} else if (key_is(k, klen, "ErrorRecoveryLevel")) {
		if (n >= 0)
			p->erl = (uint32_t)n;
	} else if (key_is(k, klen, "CHAP_A")) {
		ls->chap_alg = (int)n;
	} else if (key_is(k, klen, "CHAP_I")) {
		if (n < 0 || n > 255) {
			ls->err = -EPROTO;
			return 1;
		}
		ls->chap_id = (uint8_t)n;
	} else if (key_is(k, klen, "CHAP_C")) {
		ls->chap_chal_len =
		    ir_chap_decode((const char *)v, vlen, ls->chap_chal, sizeof(ls->chap_chal));
		if (ls->chap_chal_len <= 0) {
			ls->err = -EPROTO;
			return 1;
		}
		ls->chap_got_challenge = true;
	} else if (key_is(k, klen, "CHAP_N")) {
		size_t m = UT_MIN(vlen, sizeof(ls->target_chap_n) - 1);

		memcpy(ls->target_chap_n, v, m);
		ls->target_chap_n[m] = '\0';
	} else if (key_is(k, klen, "CHAP_R")) {
		ls->target_chap_rlen = ir_chap_decode((const char *)v, vlen, ls->target_chap_rv,
						      sizeof(ls->target_chap_rv));
		ls->target_chap_r = true;
	}
	return 0;
}

static void fmt_u32(char *buf, size_t n, uint32_t v)
{
	snprintf(buf, n, "%u", v);
}

static int add_op_keys(struct ir_text *t, const struct ir_login_opts *o, const struct ir_params *p)
{
	char num[16];
	int rc = 0;
	bool normal = o->target_name != NULL;
	const char *hd = o->header_digest ? (o->digest_only ? "CRC32C" : "CRC32C,None") : "None";
	const char *dd = o->data_digest ? (o->digest_only ? "CRC32C" : "CRC32C,None") : "None";

	rc |= ir_text_add(t, "HeaderDigest", hd);
	rc |= ir_text_add(t, "DataDigest", dd);
	fmt_u32(num, sizeof(num), p->our_mrdsl);
	rc |= ir_text_add(t, "MaxRecvDataSegmentLength", num);
	if (normal && !o->non_leading) {
		rc |= ir_text_add(t, "InitialR2T", o->initial_r2t == 0 ? "No" : "Yes");
		rc |= ir_text_add(t, "ImmediateData", o->immediate_data == 0 ? "No" : "Yes");
		fmt_u32(num, sizeof(num), o->max_burst ? o->max_burst : 262144);
		rc |= ir_text_add(t, "MaxBurstLength", num);
		fmt_u32(num, sizeof(num), o->first_burst ? o->first_burst : 65536);
		rc |= ir_text_add(t, "FirstBurstLength", num);
		fmt_u32(num, sizeof(num), o->max_outstanding_r2t ? o->max_outstanding_r2t : 1);
		rc |= ir_text_add(t, "MaxOutstandingR2T", num);
		fmt_u32(num, sizeof(num), o->max_connections ? o->max_connections : 1);
		rc |= ir_text_add(t, "MaxConnections", num);
		rc |= ir_text_add(t, "DataPDUInOrder", "Yes");
		rc |= ir_text_add(t, "DataSequenceInOrder", "Yes");
		fmt_u32(num, sizeof(num), o->times_set ? o->time2wait : 2);
		rc |= ir_text_add(t, "DefaultTime2Wait", num);
		fmt_u32(num, sizeof(num), o->times_set ? o->time2retain : 0);
		rc |= ir_text_add(t, "DefaultTime2Retain", num);
	}
	fmt_u32(num, sizeof(num), (uint32_t)(o->erl > 0 ? o->erl : 0));
	if (!o->non_leading)
		rc |= ir_text_add(t, "ErrorRecoveryLevel", num);
	if (o->extra_keys_len)
		rc |= ir_text_add_raw(t, o->extra_keys, o->extra_keys_len);
	return rc ? -ENOMEM : 0;
}

static int chap_step(struct ir_conn *c, struct login_state *ls, struct ir_text *t)
{
	const struct ir_chap_opts *ch = ls->o->chap;
	uint8_t r[IR_CHAP_MAX_DIGEST];
	char enc[2 * IR_CHAP_MAX_BIN + 8];
	int rl, rc = 0;
	bool known = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ch->algs); i++)
		if (ch->algs[i] == ls->chap_alg || (!ch->algs[0] && ls->chap_alg == IR_CHAP_MD5))
			known = true;
	if (!known || !ir_chap_digest_len(ls->chap_alg))
		return -EPROTO; /* the target chose an algorithm we did not offer */
	rl = ir_chap_response(ls->chap_alg, ls->chap_id, ch->secret, strlen(ch->secret),
			      ls->chap_chal, (size_t)ls->chap_chal_len, r);
	if (rl < 0)
		return rl;
	rc |= ir_text_add(t, "CHAP_N", ch->user);
	if (ir_chap_encode(ch->encoding, r, (size_t)rl, enc, sizeof(enc)) < 0)
		return -ENOSPC;
	rc |= ir_text_add(t, "CHAP_R", enc);
	if (ch->mutual_user) {
		char id[8];

		if (RAND_bytes(&ls->my_id, 1) != 1 ||
		    RAND_bytes(ls->my_chal, sizeof(ls->my_chal)) != 1)
			return -EIO;
		snprintf(id, sizeof(id), "%u", ls->my_id);
		rc |= ir_text_add(t, "CHAP_I", id);
		ir_chap_encode(ch->encoding, ls->my_chal, sizeof(ls->my_chal), enc, sizeof(enc));
		rc |= ir_text_add(t, "CHAP_C", enc);
	}
	ls->chap_sent_response = true;
	return rc ? -ENOMEM : 0;
}

static int chap_verify_target(struct login_state *ls)
{
	const struct ir_chap_opts *ch = ls->o->chap;
	uint8_t want[IR_CHAP_MAX_DIGEST];
	int wl;

	if (!ls->target_chap_r || strcmp(ls->target_chap_n, ch->mutual_user))
		return -EPERM;
	wl = ir_chap_response(ls->chap_alg, ls->my_id, ch->mutual_secret, strlen(ch->mutual_secret),
			      ls->my_chal, sizeof(ls->my_chal), want);
	if (wl < 0 || wl != ls->target_chap_rlen || memcmp(want, ls->target_chap_rv, (size_t)wl))
		return -EPERM;
	ls->mutual_verified = true;
	return 0;
}

/* Sends one login request carrying data (split with the C bit into 8192-byte
 * PDUs, RFC 7143 6.2 / 11.12.2), then receives the whole response (following
 * the target's C bit with empty requests). rsp_data/len: all key data. */
static int login_round(struct ir_conn *c, int csg, int nsg, bool transit, const uint8_t *data,
		       size_t len, struct ir_pdu *rsp, uint8_t **rsp_data, size_t *rsp_len)
{
	struct ir_text acc;
	size_t off = 0;
	int rc;

	ir_text_init(&acc);
	memset(rsp, 0, sizeof(*rsp));
	*rsp_data = NULL;
	*rsp_len = 0;
	for (;;) {
		struct ir_pdu req;
		size_t n = UT_MIN(len - off, (size_t)IR_LOGIN_DATA_MAX);
		bool more = off + n < len;

		ir_build_login_req(c, &req, csg, nsg, transit && !more, more);
		req.data = (uint8_t *)(uintptr_t)(data + off);
		req.data_len = (uint32_t)n;
		rc = ir_send_pdu(c, &req);
		if (rc)
			goto out;
		off += n;
		rc = ir_recv_pdu(c, rsp, -1);
		if (rc)
			goto out;
		if (ir_pdu_opcode(rsp) != IR_OP_LOGIN_RSP) {
			rc = -EPROTO;
			goto out;
		}
		c->login_class = rsp->bhs.login_rsp.status_class;
		c->login_detail = rsp->bhs.login_rsp.status_detail;
		c->login_rsp_pdus++;
		c->login_rsp_max_dsl = UT_MAX(c->login_rsp_max_dsl, rsp->data_len);
		if (c->login_class) {
			if (c->login_class == 1)
				login_redirect_address(c, rsp);
			rc = -EACCES;
			goto out;
		}
		if (!more)
			break;
		ir_pdu_free(rsp);
	}
	/* The target continues its response with the C bit (6.2). */
	for (;;) {
		if (ir_text_add_raw(&acc, rsp->data, rsp->data_len)) {
			rc = -ENOMEM;
			goto out;
		}
		if (!(rsp->bhs.login_rsp.flags & IR_LOGIN_CONTINUE))
			break;
		struct ir_pdu req;

		ir_pdu_free(rsp);
		ir_build_login_req(c, &req, csg, nsg, false, false);
		rc = ir_send_pdu(c, &req);
		if (!rc)
			rc = ir_recv_pdu(c, rsp, -1);
		if (rc)
			goto out;
		if (ir_pdu_opcode(rsp) != IR_OP_LOGIN_RSP) {
			rc = -EPROTO;
			goto out;
		}
		c->login_rsp_pdus++;
		c->login_rsp_max_dsl = UT_MAX(c->login_rsp_max_dsl, rsp->data_len);
		if (rsp->bhs.login_rsp.status_class) {
			c->login_class = rsp->bhs.login_rsp.status_class;
			c->login_detail = rsp->bhs.login_rsp.status_detail;
			rc = -EACCES;
			goto out;
		}
	}
	*rsp_data = acc.buf;
	*rsp_len = acc.len;
	return 0;
out:
	ir_text_free(&acc);
	ir_pdu_free(rsp); /* the caller gets no response on failure */
	return rc;
}

/* Appends X-org.utarget.padN=aaa... pairs (values <= 255 bytes, RFC 7143
 * 6.1) so that t holds exactly want bytes. */
static int pad_text(struct ir_text *t, size_t want)
{
	static const char prefix[] = "X-org.utarget.pad";
	char key[32], val[256];
	unsigned n = 0;

	if (want > IR_LOGIN_DATA_MAX)
		return -EINVAL;
	while (t->len < want) {
		size_t room = want - t->len;
		int kl = snprintf(key, sizeof(key), "%s%u", prefix, n++);
		size_t fixed = (size_t)kl + 2; /* '=' and NUL */
		size_t vl;

		if (room < fixed + 1)
			return -EINVAL; /* cannot land exactly: caller's base too big */
		if (room - fixed <= 255) {
			vl = room - fixed; /* the last pair lands exactly */
		} else {
			/* leave at least one more whole pair (key <= 22 bytes + 1) */
			vl = room - fixed - 255 >= 24 ? 255 : room - fixed - 24;
		}
		memset(val, 'a', vl);
		val[vl] = '\0';
		if (ir_text_add(t, key, val))
			return -ENOMEM;
	}
	return t->len == want ? 0 : -EINVAL;
}

int ir_login_answer(const struct ir_conn *c, const char *key, char *val, size_t val_size)
{
	return ir_text_get(c->login_answers.buf, c->login_answers.len, key, val, val_size);
}

int ir_login(struct ir_conn *c, const struct ir_login_opts *o)
{
	struct login_state ls = {.o = o};
	static const uint8_t zero_isid[6];
	int stage = o->skip_security ? IR_STAGE_OPERATIONAL : IR_STAGE_SECURITY;
	bool first = true, op_sent = false;
	int chap_phase = 0; /* 0 AuthMethod, 1 CHAP_A sent, 2 response sent */
	int rounds, rc = 0;

	ls.p = c->p;
	ls.p.our_mrdsl = o->max_recv_dsl ? o->max_recv_dsl : 262144;
	ls.p.target_mrdsl = IR_DEFAULT_MRDSL;
	ls.p.max_burst = 262144;
	ls.p.first_burst = 65536;
	ls.p.initial_r2t = true;
	ls.p.immediate_data = true;
	ls.p.max_outstanding_r2t = 1;
	ls.p.erl = 0;
	ls.p.hdigest = ls.p.ddigest = false;
	if (!memcmp(o->isid, zero_isid, 6)) {
		/* RFC 7143 11.12.5: T=10b random ISID */
		if (RAND_bytes(c->isid, 6) != 1)
			return -EIO;
		c->isid[0] = (uint8_t)(0x80 | (c->isid[0] & 0x3f));
	} else {
		memcpy(c->isid, o->isid, 6);
	}
	c->tsih = o->tsih;
	c->cid = o->cid;
	c->hdigest = c->ddigest = false;
	c->full_feature = false;
	if (!c->cmdsn)
		c->cmdsn = 1;
	c->itt_next = c->itt_next ? c->itt_next : 1;
	c->login_class = c->login_detail = 0;
	c->login_rsp_max_dsl = c->login_rsp_pdus = 0;
	ir_text_free(&c->login_answers);

	for (rounds = 0; rounds < 16; rounds++) {
		struct ir_text t;
		struct ir_pdu rsp;
		uint8_t *rdata;
		size_t rlen;
		bool transit;
		int nsg;

		ir_text_init(&t);
		if (first) {
			ir_text_add(&t, "InitiatorName", o->initiator_name);
			ir_text_add(&t, "SessionType", o->target_name ? "Normal" : "Discovery");
			if (o->target_name)
				ir_text_add(&t, "TargetName", o->target_name);
			if (o->first_keys_len)
				ir_text_add_raw(&t, o->first_keys, o->first_keys_len);
		}
		if (stage == IR_STAGE_SECURITY) {
			nsg = IR_STAGE_OPERATIONAL;
			if (!o->chap) {
				if (first)
					ir_text_add(&t, "AuthMethod", "None");
				transit = true;
			} else if (chap_phase == 0) {
				ir_text_add(&t, "AuthMethod", "CHAP");
				transit = false;
			} else if (chap_phase == 1) {
				char algs[32];
				size_t i, n = 0;

				for (i = 0; i < ARRAY_SIZE(o->chap->algs) && o->chap->algs[i]; i++)
					n += (size_t)snprintf(algs + n, sizeof(algs) - n, "%s%d",
							      i ? "," : "", o->chap->algs[i]);
				if (!n)
					snprintf(algs, sizeof(algs), "5");
				ir_text_add(&t, "CHAP_A", algs);
				transit = false;
			} else {
				if (!ls.chap_got_challenge) {
					rc = -EPROTO;
					ir_text_free(&t);
					goto out;
				}
				rc = ls.chap_sent_response ? 0 : chap_step(c, &ls, &t);
				if (rc) {
					ir_text_free(&t);
					goto out;
				}
				transit = true;
			}
		} else {
			nsg = IR_STAGE_FFP;
			if (!op_sent) {
				rc = add_op_keys(&t, o, &ls.p);
				if (rc) {
					ir_text_free(&t);
					goto out;
				}
				op_sent = true;
			}
			transit = true;
		}
		if (first && o->pad_first_to) {
			rc = pad_text(&t, o->pad_first_to);
			if (rc) {
				ir_text_free(&t);
				goto out;
			}
		}
		rc = login_round(c, stage, nsg, transit, t.buf, t.len, &rsp, &rdata, &rlen);
		ir_text_free(&t);
		if (rc)
			goto out;
		first = false;
		if (stage == IR_STAGE_SECURITY && o->chap && chap_phase == 0) {
			char am[64];

			if (ir_text_get(rdata, rlen, "AuthMethod", am, sizeof(am)) < 0 ||
			    strcmp(am, "CHAP")) {
				rc = -EPROTO;
				snprintf(c->err, sizeof(c->err), "target answered AuthMethod=%s",
					 am);
				free(rdata);
				ir_pdu_free(&rsp);
				goto out;
			}
			chap_phase = 1;
		} else if (stage == IR_STAGE_SECURITY && o->chap && chap_phase == 1) {
			chap_phase = 2;
		}
		ir_text_foreach(rdata, rlen, login_rsp_key, &ls);
		ir_text_add_raw(&c->login_answers, rdata, rlen);
		free(rdata);
		if (ls.err) {
			rc = ls.err;
			ir_pdu_free(&rsp);
			goto out;
		}
		c->tsih = get_be16(rsp.bhs.login_rsp.tsih);
		if (rsp.bhs.login_rsp.flags & IR_LOGIN_TRANSIT) {
			int rnsg = rsp.bhs.login_rsp.flags & 3;

			if (stage == IR_STAGE_SECURITY && o->chap && o->chap->mutual_user) {
				rc = chap_verify_target(&ls);
				if (rc) {
					snprintf(c->err, sizeof(c->err),
						 "mutual CHAP: target response did not verify");
					ir_pdu_free(&rsp);
					goto out;
				}
			}
			if (rnsg == IR_STAGE_FFP) {
				ir_pdu_free(&rsp);
				break;
			}
			stage = rnsg;
		}
		ir_pdu_free(&rsp);
	}
	if (rounds == 16) {
		rc = -EPROTO;
		goto out;
	}
	/* RFC 7143 6.2.3/13.1: digests start with the first PDU after the
	 * final Login Response. */
	c->p = ls.p;
	c->hdigest = ls.p.hdigest;
	c->ddigest = ls.p.ddigest;
	c->full_feature = true;
	c->itt_next++;
	return 0;
out:
	if (rc == -EACCES && !c->err[0])
		snprintf(c->err, sizeof(c->err), "login failed: status %02x/%02x", c->login_class,
			 c->login_detail);
	return rc;
}
