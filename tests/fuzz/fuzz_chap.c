/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_chap.c: libFuzzer harness (3): CHAP in the security stage
 * (src/fabric/iscsi/chap.c): the exchange (iscsi_chap_step) with every
 * algorithm (MD5, SHA-1, SHA-256, SHA3-256), hex and base64 values, one-way
 * and mutual, and the binary value codec (iscsi_chap_decode/encode).
 *
 * The target's challenge is random, so the harness can answer it itself:
 * with bit 1 of the mode byte it reads CHAP_A/CHAP_I/CHAP_C from the
 * target's answer and appends CHAP_N and a correct CHAP_R (of credential 0,
 * hex or base64 by bit 2) to the next request, so the fuzzer reaches the
 * success and mutual paths too, with its own keys around them.
 *
 * Input: mode byte (bit 0 a mutual credential is configured, bit 1 the
 * harness answers the challenge, bit 2 base64 answers, bits 3-4 the allowed
 * algorithms: all, MD5 only, SHA-256 and SHA3-256, SHA-1), then up to 4
 * requests: 16-bit big-endian length + key data (the last takes the rest).
 * Checked: answers stay within their cap and parse as key data; every
 * CHAP_* binary value of the input that decodes re-encodes in both forms
 * and decodes back to the same bytes; a mutual success answers with
 * CHAP_N/CHAP_R of the target's credential. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_env.h"
#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"
#include "fabric/iscsi/keys.h"

#define CHAP_REQ_MAX 4

static void chap_fail_check(const char *what)
{
	fprintf(stderr, "fuzz_chap: %s\n", what);
	abort();
}

static void chap_cred(struct iscsi_auth_cred *c, const char *user, const char *secret)
{
	memset(c, 0, sizeof(*c));
	c->user_len = (uint16_t)strlen(user);
	memcpy(c->user, user, c->user_len);
	c->secret_len = (uint16_t)strlen(secret);
	memcpy(c->secret, secret, c->secret_len);
}

/* decode -> encode (hex and base64) -> decode gives the same bytes. */
static void chap_codec(const uint8_t *v, size_t len)
{
	static uint8_t a[ISCSI_CHAP_BIN_MAX], b[ISCSI_CHAP_BIN_MAX];
	static char s[ISCSI_CHAP_VALUE_MAX + 8];
	int n = iscsi_chap_decode(v, len, a, sizeof(a), NULL);

	if (n < 0)
		return;
	if (n < 1 || (size_t)n > sizeof(a))
		chap_fail_check("decode returned a length outside 1..cap");
	for (int e = ISCSI_CHAP_ENC_HEX; e <= ISCSI_CHAP_ENC_BASE64; e++) {
		int k = iscsi_chap_encode((enum iscsi_chap_enc)e, a, (size_t)n, s, sizeof(s));
		int m;

		if (k < 0 || (size_t)k >= sizeof(s))
			chap_fail_check("a decoded value does not re-encode");
		m = iscsi_chap_decode((const uint8_t *)s, (size_t)k, b, sizeof(b), NULL);
		if (m != n || memcmp(a, b, (size_t)n))
			chap_fail_check("encode/decode round trip differs");
	}
}

static const struct iscsi_kv *kv_find(const struct iscsi_kv *kv, unsigned n, const char *key)
{
	for (unsigned i = 0; i < n; i++)
		if (iscsi_kv_key_is(&kv[i], key))
			return &kv[i];
	return NULL;
}

/* Append CHAP_N / CHAP_R answering the challenge in the target's answer. */
static size_t chap_answer(const struct iscsi_kbuf *ans, const struct iscsi_auth_cred *cred,
			  bool b64, uint8_t *out, size_t cap)
{
	struct iscsi_kv kv[16];
	const struct iscsi_kv *a, *i, *c;
	uint8_t chal[ISCSI_CHAP_BIN_MAX], dig[ISCSI_CHAP_DIGEST_MAX];
	char enc[2 * ISCSI_CHAP_DIGEST_MAX + 8];
	uint64_t alg, id;
	unsigned n = 0;
	int clen, dlen, elen;
	size_t off = 0;

	if (iscsi_keys_parse(ans->buf, ans->len, kv, 16, &n) != ISCSI_KEYS_OK)
		return 0;
	a = kv_find(kv, n, "CHAP_A");
	i = kv_find(kv, n, "CHAP_I");
	c = kv_find(kv, n, "CHAP_C");
	if (!a || !i || !c || !iscsi_parse_number(a->val, a->val_len, 255, &alg) ||
	    !iscsi_parse_number(i->val, i->val_len, 255, &id))
		return 0;
	clen = iscsi_chap_decode(c->val, c->val_len, chal, sizeof(chal), NULL);
	if (clen < 0)
		return 0;
	dlen = iscsi_chap_digest((unsigned)alg, (uint8_t)id, cred->secret, cred->secret_len, chal,
				 (size_t)clen, dig);
	if (dlen < 0)
		return 0;
	elen = iscsi_chap_encode(b64 ? ISCSI_CHAP_ENC_BASE64 : ISCSI_CHAP_ENC_HEX, dig,
				 (size_t)dlen, enc, sizeof(enc));
	if (elen < 0 || cap < 16 + cred->user_len + (size_t)elen)
		return 0;
	memcpy(out + off, "CHAP_N=", 7);
	off += 7;
	memcpy(out + off, cred->user, cred->user_len);
	off += cred->user_len;
	out[off++] = 0;
	memcpy(out + off, "CHAP_R=", 7);
	off += 7;
	memcpy(out + off, enc, (size_t)elen);
	off += (size_t)elen;
	out[off++] = 0;
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t algs[4] = {
	    (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8),
	    1u << 5,
	    (1u << 7) | (1u << 8),
	    1u << 6,
	};
	struct fz_in in = {.p = data, .len = size};
	struct iscsi_auth_cred creds[2];
	struct iscsi_auth_set auth = {.chap = creds, .nchap = 2};
	struct iscsi_chap ch;
	struct iscsi_kbuf prev = {0};
	struct iscsi_kv kv[ISCSI_KEYS_MAX + 1];
	uint8_t *req = NULL;
	uint8_t mode;

	if (size < 1)
		return 0;
	fz_init();
	mode = fz_u8(&in);
	chap_cred(&creds[0], "iqn.2026-12.org.example:fuzzer", "secret-of-16-bytes");
	chap_cred(&creds[1], "user2", "another secret 123");
	if (mode & 1u) {
		auth.has_mutual = true;
		chap_cred(&auth.mutual, "iqn.2026-12.org.utarget:fuzz", "target secret 4567");
	}
	auth.algs = algs[(mode >> 3) & 3u];
	iscsi_chap_init(&ch, &auth);
	iscsi_kbuf_init(&prev, 8192);

	for (unsigned r = 0; r < CHAP_REQ_MAX && fz_left(&in); r++) {
		size_t want = r + 1 < CHAP_REQ_MAX ? fz_u16(&in) : fz_left(&in), got, len;
		const uint8_t *p = fz_bytes(&in, want, &got);
		struct iscsi_kbuf out;
		enum iscsi_auth_result res;
		unsigned nkv = 0;

		free(req);
		req = malloc(got + 2 * ISCSI_CHAP_DIGEST_MAX + 600);
		if (!req)
			abort();
		memcpy(req, p, got);
		len = got;
		if ((mode & 2u) && ch.state == ISCSI_CHAP_WAIT_NR)
			len += chap_answer(&prev, &creds[0], mode & 4u, req + len, 600 + 64);
		if (iscsi_keys_parse(req, len, kv, ISCSI_KEYS_MAX + 1, &nkv) != ISCSI_KEYS_OK)
			continue;
		for (unsigned k = 0; k < nkv; k++)
			if (kv[k].key_len > 5 && !memcmp(kv[k].key, "CHAP_", 5))
				chap_codec(kv[k].val, kv[k].val_len);
		iscsi_kbuf_init(&out, 8192);
		res = iscsi_chap_step(&ch, kv, nkv, &out);
		if (out.len > out.cap)
			chap_fail_check("answer longer than its cap");
		if (out.len && !out.overflow) {
			unsigned m = 0;

			if (iscsi_keys_parse(out.buf, out.len, kv, ISCSI_KEYS_MAX + 1, &m) !=
			    ISCSI_KEYS_OK)
				chap_fail_check("the answer is not well-formed key data");
			if (res == ISCSI_AUTH_DONE && ch.mutual && !kv_find(kv, m, "CHAP_R"))
				chap_fail_check("mutual success without the target's CHAP_R");
		}
		iscsi_kbuf_free(&prev);
		prev = out;
		if (res != ISCSI_AUTH_CONTINUE)
			break;
	}
	iscsi_kbuf_free(&prev);
	free(req);
	return 0;
}
