/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chap.c: CHAP in the iSCSI security stage (RFC 7143 12.1.3, RFC 1994). */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"
#include "lib/compiler.h"
#include "lib/endian.h"

/* ---- algorithms (IANA PPP Authentication Algorithms, the CHAP_A values
 * RFC 7143 12.1.3 refers to) ---- */
struct chap_alg_desc {
	const EVP_MD *(*md)(void);
	uint8_t digest_len;
};

static const struct chap_alg_desc chap_algs[] = {
    [ISCSI_CHAP_MD5] = {.md = EVP_md5, .digest_len = 16},
    [ISCSI_CHAP_SHA1] = {.md = EVP_sha1, .digest_len = 20},
    [ISCSI_CHAP_SHA256] = {.md = EVP_sha256, .digest_len = 32},
    [ISCSI_CHAP_SHA3_256] = {.md = EVP_sha3_256, .digest_len = 32},
};

static const struct chap_alg_desc *chap_alg(unsigned alg)
{
	if (alg >= ARRAY_SIZE(chap_algs) || !chap_algs[alg].md)
		return NULL;
	return &chap_algs[alg];
}

size_t iscsi_chap_digest_len(unsigned alg)
{
	const struct chap_alg_desc *d = chap_alg(alg);

	return d ? d->digest_len : 0;
}

int iscsi_chap_digest(unsigned alg, uint8_t id, const uint8_t *secret, size_t secret_len,
		      const uint8_t *chal, size_t chal_len, uint8_t out[ISCSI_CHAP_DIGEST_MAX])
{
	const struct chap_alg_desc *d = chap_alg(alg);
	unsigned int len = 0;
	EVP_MD_CTX *ctx;
	int ok;

	if (!d)
		return -EINVAL;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -EIO;
	/* RFC 1994 4.1: the Identifier, then the secret, then the Challenge */
	ok = EVP_DigestInit_ex(ctx, d->md(), NULL) && EVP_DigestUpdate(ctx, &id, 1) &&
	     EVP_DigestUpdate(ctx, secret, secret_len) && EVP_DigestUpdate(ctx, chal, chal_len) &&
	     EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
	if (!ok || len != d->digest_len)
		return -EIO;
	return (int)len;
}

/* ---- challenges ----
 * Bytes 0..15: AES-128(key, counter) with a random per-process key: AES is
 * a permutation, so distinct counters never give equal blocks, and without
 * the key the block is indistinguishable from random. The rest (and the
 * key) come from getrandom(2), the kernel's random source. */
static struct {
	pthread_once_t once;
	uint8_t key[16];
	bool ok;
	atomic_uint_fast64_t counter;
} chal_gen = {.once = PTHREAD_ONCE_INIT};

static int fill_random(uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void chal_gen_init(void)
{
	uint8_t seed[8];

	chal_gen.ok =
	    !fill_random(chal_gen.key, sizeof(chal_gen.key)) && !fill_random(seed, sizeof(seed));
	if (chal_gen.ok)
		atomic_init(&chal_gen.counter, get_be64(seed));
}

int iscsi_chap_challenge(uint8_t *out, size_t len)
{
	uint8_t block[16], enc[32];
	EVP_CIPHER_CTX *ctx;
	int n1 = 0, ok;

	if (!len || len > ISCSI_CHAP_BIN_MAX)
		return -EINVAL;
	pthread_once(&chal_gen.once, chal_gen_init);
	if (!chal_gen.ok)
		return -EIO;
	memset(block, 0, 8);
	put_be64(block + 8, atomic_fetch_add(&chal_gen.counter, 1));
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -EIO;
	ok = EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, chal_gen.key, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
	     EVP_EncryptUpdate(ctx, enc, &n1, block, sizeof(block)) && n1 == 16;
	EVP_CIPHER_CTX_free(ctx);
	if (!ok)
		return -EIO;
	memcpy(out, enc, UT_MIN(len, (size_t)16));
	if (len > 16 && fill_random(out + 16, len - 16))
		return -EIO;
	return 0;
}

/* ---- binary values (RFC 7143 6.1) ---- */
static int hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* RFC 4648 table 1 */
static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_digit(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int decode_hex(const uint8_t *d, size_t nd, uint8_t *out, size_t cap)
{
	/* "a hex-constant of n hexadecimal digits has a byte-length of (the
	 * integral part of) (n+1)/2": an odd count starts with a half byte */
	size_t nbytes = (nd + 1) / 2, o = 0, i = 0;

	if (nbytes > cap)
		return -E2BIG;
	if (nd & 1) {
		int v = hex_digit(d[0]);

		if (v < 0)
			return -EINVAL;
		out[o++] = (uint8_t)v;
		i = 1;
	}
	for (; i < nd; i += 2) {
		int hi = hex_digit(d[i]), lo = hex_digit(d[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[o++] = (uint8_t)(hi << 4 | lo);
	}
	return (int)o;
}

static int decode_b64(const uint8_t *d, size_t nd, uint8_t *out, size_t cap)
{
	size_t n = nd, pad = 0, o = 0, nbytes;
	uint32_t acc = 0;
	unsigned bits = 0;

	/* 6.1: "may be optionally followed by pad digits" (at most two) */
	while (n && d[n - 1] == '=' && pad < 2) {
		n--;
		pad++;
	}
	if (n == 0 || n % 4 == 1 || (pad && (n + pad) % 4))
		return -EINVAL;
	nbytes = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
	if (nbytes > cap)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		int v = b64_digit(d[i]);

		if (v < 0)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc) /* RFC 4648 3.5: the unused bits of the last digit are zero */
		return -EINVAL;
	return (int)o;
}

int iscsi_chap_decode(const uint8_t *v, size_t len, uint8_t *out, size_t cap,
		      enum iscsi_chap_enc *enc)
{
	if (len < 3 || v[0] != '0')
		return -EINVAL;
	/* bound the encoded form before looking at the digits */
	if (len > ISCSI_CHAP_VALUE_MAX)
		return -E2BIG;
	if (v[1] == 'x' || v[1] == 'X') {
		if (enc)
			*enc = ISCSI_CHAP_ENC_HEX;
		return decode_hex(v + 2, len - 2, out, cap);
	}
	if (v[1] == 'b' || v[1] == 'B') {
		if (enc)
			*enc = ISCSI_CHAP_ENC_BASE64;
		return decode_b64(v + 2, len - 2, out, cap);
	}
	return -EINVAL;
}

int iscsi_chap_encode(enum iscsi_chap_enc enc, const uint8_t *bin, size_t len, char *out,
		      size_t size)
{
	size_t o = 2;

	if (enc == ISCSI_CHAP_ENC_HEX) {
		if (size < 3 + 2 * len)
			return -ENOSPC;
		out[0] = '0';
		out[1] = 'x';
		for (size_t i = 0; i < len; i++) {
			out[o++] = "0123456789abcdef"[bin[i] >> 4];
			out[o++] = "0123456789abcdef"[bin[i] & 15];
		}
	} else {
		if (size < 3 + 4 * ((len + 2) / 3))
			return -ENOSPC;
		out[0] = '0';
		out[1] = 'b';
		for (size_t i = 0; i < len; i += 3) {
			size_t left = len - i;
			uint32_t w = (uint32_t)bin[i] << 16;

			if (left > 1)
				w |= (uint32_t)bin[i + 1] << 8;
			if (left > 2)
				w |= bin[i + 2];
			out[o++] = b64_alphabet[w >> 18 & 63];
			out[o++] = b64_alphabet[w >> 12 & 63];
			out[o++] = left > 1 ? b64_alphabet[w >> 6 & 63] : '=';
			out[o++] = left > 2 ? b64_alphabet[w & 63] : '=';
		}
	}
	out[o] = '\0';
	return (int)o;
}

/* ---- the exchange ---- */
enum chap_key {
	CK_A,
	CK_I,
	CK_C,
	CK_N,
	CK_R,
	CK_COUNT,
};

static const char *const chap_key_names[CK_COUNT] = {
    [CK_A] = "CHAP_A", [CK_I] = "CHAP_I", [CK_C] = "CHAP_C", [CK_N] = "CHAP_N", [CK_R] = "CHAP_R",
};

void iscsi_chap_init(struct iscsi_chap *ch, const struct iscsi_auth_set *auth)
{
	memset(ch, 0, sizeof(*ch));
	ch->auth = auth;
	ch->state = ISCSI_CHAP_WAIT_A;
	ch->cred = -1;
}

static enum iscsi_auth_result chap_fail(struct iscsi_chap *ch, const char *why)
{
	ch->state = ISCSI_CHAP_FAILED;
	ch->why = why;
	return ISCSI_AUTH_FAIL;
}

/* CHAP_A=<A1,A2,...>: the first value of the initiator's list that is
 * allowed (RFC 7143 6.2.2 list negotiation); 0 when none is. -1 when the
 * list is malformed. */
static int pick_alg(const struct iscsi_auth_set *auth, const struct iscsi_kv *kv)
{
	size_t s = 0;
	int pick = 0;

	for (;;) {
		const uint8_t *comma = memchr(kv->val + s, ',', kv->val_len - s);
		size_t e = comma ? (size_t)(comma - kv->val) : kv->val_len;
		uint64_t a;

		/* every item is checked: a malformed list is refused whole */
		if (!iscsi_parse_number(kv->val + s, e - s, 255, &a))
			return -1; /* empty or not a number */
		if (!pick && iscsi_chap_digest_len((unsigned)a) && (auth->algs & (1u << a)))
			pick = (int)a;
		if (!comma)
			return pick;
		s = e + 1;
	}
}

static enum iscsi_auth_result chap_challenge(struct iscsi_chap *ch, const struct iscsi_kv *a,
					     struct iscsi_kbuf *out)
{
	char enc[2 * ISCSI_CHAP_CHAL_MAX + 3];
	int alg = pick_alg(ch->auth, a);
	uint8_t id;

	if (alg < 0)
		return chap_fail(ch, "malformed CHAP_A");
	if (alg == 0) {
		iscsi_kbuf_add(out, "CHAP_A", "Reject");
		return chap_fail(ch, "no CHAP algorithm in common");
	}
	ch->alg = (uint8_t)alg;
	ch->chal_len = (uint8_t)UT_MAX(iscsi_chap_digest_len((unsigned)alg), (size_t)16);
	if (iscsi_chap_challenge(ch->chal, ch->chal_len) || fill_random(&id, 1))
		return chap_fail(ch, "no random bytes for the challenge");
	ch->id = id;
	iscsi_kbuf_add_num(out, "CHAP_A", ch->alg);
	iscsi_kbuf_add_num(out, "CHAP_I", ch->id);
	/* hex: every initiator decodes it (libiscsi reads hex only) */
	iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, ch->chal, ch->chal_len, enc, sizeof(enc));
	iscsi_kbuf_add(out, "CHAP_C", enc);
	ch->state = ISCSI_CHAP_WAIT_NR;
	return ISCSI_AUTH_CONTINUE;
}

/* The credential named n (length-exact), or -1. */
static int find_cred(const struct iscsi_auth_set *auth, const struct iscsi_kv *n)
{
	for (unsigned i = 0; i < auth->nchap; i++)
		if (auth->chap[i].user_len == n->val_len &&
		    !memcmp(auth->chap[i].user, n->val, n->val_len))
			return (int)i;
	return -1;
}

/* The initiator asks the target to authenticate itself (CHAP_I, CHAP_C):
 * answer CHAP_N and CHAP_R in the encoding of its challenge. */
static enum iscsi_auth_result chap_mutual(struct iscsi_chap *ch, const struct iscsi_kv *ki,
					  const struct iscsi_kv *kc, struct iscsi_kbuf *out)
{
	const struct iscsi_auth_set *auth = ch->auth;
	uint8_t c[ISCSI_CHAP_BIN_MAX], r[ISCSI_CHAP_DIGEST_MAX];
	char enc[2 * ISCSI_CHAP_DIGEST_MAX + 3];
	enum iscsi_chap_enc e;
	uint64_t id;
	int clen, rlen;

	if (!auth->has_mutual)
		return chap_fail(ch, "the initiator asks for mutual CHAP: no target credential");
	if (!iscsi_parse_number(ki->val, ki->val_len, 255, &id))
		return chap_fail(ch, "CHAP_I is not a number 0..255");
	clen = iscsi_chap_decode(kc->val, kc->val_len, c, sizeof(c), &e);
	if (clen == -E2BIG)
		return chap_fail(ch, "CHAP_C over 1024 bytes");
	if (clen < 0)
		return chap_fail(ch, "malformed CHAP_C");
	/* 12.1.3: "Originators MUST NOT reuse the CHAP challenge sent by the
	 * Responder for the other direction"; responders check it */
	if ((size_t)clen == ch->chal_len && !CRYPTO_memcmp(c, ch->chal, ch->chal_len))
		return chap_fail(ch, "the initiator reflected the target's challenge");
	rlen = iscsi_chap_digest(ch->alg, (uint8_t)id, auth->mutual.secret, auth->mutual.secret_len,
				 c, (size_t)clen, r);
	if (rlen < 0)
		return chap_fail(ch, "digest failure");
	iscsi_kbuf_addn(out, "CHAP_N", 6, auth->mutual.user, auth->mutual.user_len);
	iscsi_chap_encode(e, r, (size_t)rlen, enc, sizeof(enc));
	iscsi_kbuf_add(out, "CHAP_R", enc);
	ch->mutual = true;
	return ISCSI_AUTH_DONE;
}

static enum iscsi_auth_result chap_verify(struct iscsi_chap *ch, const struct iscsi_kv *const *k,
					  struct iscsi_kbuf *out)
{
	static const uint8_t no_secret[1];
	const struct iscsi_auth_set *auth = ch->auth;
	uint8_t r[ISCSI_CHAP_DIGEST_MAX], want[ISCSI_CHAP_DIGEST_MAX];
	size_t dlen = iscsi_chap_digest_len(ch->alg);
	const uint8_t *secret = no_secret;
	size_t secret_len = sizeof(no_secret);
	int rlen, cred;
	bool ok;

	if (k[CK_A])
		return chap_fail(ch, "CHAP_A after the challenge");
	if (!k[CK_N] || !k[CK_R])
		return chap_fail(ch, "CHAP_N or CHAP_R missing");
	if (!k[CK_I] != !k[CK_C])
		return chap_fail(ch, "CHAP_I without CHAP_C or CHAP_C without CHAP_I");
	if (k[CK_N]->val_len == 0 || k[CK_N]->val_len > ISCSI_CHAP_USER_MAX)
		return chap_fail(ch, "CHAP_N empty or over 255 bytes");
	rlen = iscsi_chap_decode(k[CK_R]->val, k[CK_R]->val_len, r, sizeof(r), NULL);
	if (rlen == -E2BIG || (rlen > 0 && (size_t)rlen != dlen))
		return chap_fail(ch, "CHAP_R of the wrong length for the algorithm");
	if (rlen < 0)
		return chap_fail(ch, "malformed CHAP_R");
	cred = find_cred(auth, k[CK_N]);
	if (cred >= 0) {
		secret = auth->chap[cred].secret;
		secret_len = auth->chap[cred].secret_len;
	}
	/* an unknown name costs the same digest as a known one */
	if (iscsi_chap_digest(ch->alg, ch->id, secret, secret_len, ch->chal, ch->chal_len, want) <
	    0)
		return chap_fail(ch, "digest failure");
	ok = !CRYPTO_memcmp(want, r, dlen) && cred >= 0;
	if (!ok)
		return chap_fail(ch, cred >= 0 ? "wrong CHAP_R" : "unknown CHAP_N");
	if (auth->has_mutual) {
		/* 12.1.3: a response equal to the one the target's own secret
		 * gives means both directions share a secret */
		if (iscsi_chap_digest(ch->alg, ch->id, auth->mutual.secret, auth->mutual.secret_len,
				      ch->chal, ch->chal_len, want) < 0)
			return chap_fail(ch, "digest failure");
		if (!CRYPTO_memcmp(want, r, dlen))
			return chap_fail(ch, "the initiator's secret equals the target's");
	}
	ch->cred = cred;
	if (k[CK_I])
		return chap_mutual(ch, k[CK_I], k[CK_C], out);
	return ISCSI_AUTH_DONE;
}

enum iscsi_auth_result iscsi_chap_step(struct iscsi_chap *ch, const struct iscsi_kv *kv,
				       unsigned nkv, struct iscsi_kbuf *out)
{
	const struct iscsi_kv *k[CK_COUNT] = {0};
	enum iscsi_auth_result ar;
	unsigned n = 0;

	if (ch->state == ISCSI_CHAP_FAILED)
		return ISCSI_AUTH_FAIL;
	for (unsigned i = 0; i < nkv; i++) {
		unsigned j;

		for (j = 0; j < CK_COUNT; j++)
			if (iscsi_kv_key_is(&kv[i], chap_key_names[j]))
				break;
		if (j == CK_COUNT)
			return chap_fail(ch, "unknown CHAP key");
		if (k[j])
			return chap_fail(ch, "a CHAP key twice in one request");
		k[j] = &kv[i];
		n++;
	}
	switch ((enum iscsi_chap_state)ch->state) {
	case ISCSI_CHAP_WAIT_A:
		if (!n)
			return ISCSI_AUTH_CONTINUE;
		if (!k[CK_A] || n != 1)
			return chap_fail(ch, "CHAP keys before CHAP_A");
		return chap_challenge(ch, k[CK_A], out);
	case ISCSI_CHAP_WAIT_NR:
		if (!n)
			return ISCSI_AUTH_CONTINUE;
		ar = chap_verify(ch, k, out);
		if (ar == ISCSI_AUTH_DONE)
			ch->state = ISCSI_CHAP_DONE;
		return ar;
	case ISCSI_CHAP_DONE:
		if (n)
			return chap_fail(ch, "CHAP keys after the exchange ended");
		return ISCSI_AUTH_DONE;
	case ISCSI_CHAP_FAILED:
		break;
	}
	return ISCSI_AUTH_FAIL;
}

/* ---- the login's authentication module ---- */
static enum iscsi_auth_result chap_module_step(struct iscsi_login *l, const struct iscsi_kv *kv,
					       unsigned nkv, struct iscsi_kbuf *out)
{
	struct iscsi_chap *ch = l->auth_priv;
	enum iscsi_auth_result ar;

	if (!ch) {
		if (!l->grant.auth || !l->grant.auth->nchap) {
			l->fail_why = "CHAP without credentials";
			return ISCSI_AUTH_FAIL;
		}
		ch = calloc(1, sizeof(*ch));
		if (!ch) {
			l->fail_why = "out of memory";
			return ISCSI_AUTH_FAIL;
		}
		iscsi_chap_init(ch, l->grant.auth);
		l->auth_priv = ch;
	}
	ar = iscsi_chap_step(ch, kv, nkv, out);
	if (ar == ISCSI_AUTH_FAIL)
		l->fail_why = ch->why;
	return ar;
}

static void chap_module_free(struct iscsi_login *l)
{
	if (l->auth_priv)
		OPENSSL_cleanse(l->auth_priv, sizeof(struct iscsi_chap));
	free(l->auth_priv);
	l->auth_priv = NULL;
}

const struct iscsi_auth_module iscsi_chap_module = {
    .method = ISCSI_AUTH_CHAP,
    .key_prefix = "CHAP_",
    .step = chap_module_step,
    .free = chap_module_free,
};

bool iscsi_chap_identity(const struct iscsi_login *l, char *user, size_t size,
			 uint8_t secret_sha256[32])
{
	const struct iscsi_chap *ch = l->auth == &iscsi_chap_module ? l->auth_priv : NULL;
	const struct iscsi_auth_cred *cr;
	unsigned int n = 0;

	if (!ch || ch->state != ISCSI_CHAP_DONE || ch->cred < 0)
		return false;
	cr = &ch->auth->chap[ch->cred];
	snprintf(user, size, "%s", cr->user);
	return EVP_Digest(cr->secret, cr->secret_len, secret_sha256, &n, EVP_sha256(), NULL) &&
	       n == 32;
}
