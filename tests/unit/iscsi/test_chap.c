/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_chap.c: CHAP (RFC 7143 12.1.3, RFC 1994): digests against vectors
 * computed independently (Python hashlib), the binary value codec (RFC 7143
 * 6.1) at its bounds, challenge uniqueness, and the exchange state machine
 * with every failure. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"

/* ---- helpers ---- */
static void hex2bin(const char *hex, uint8_t *out)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* "key=value" C strings -> kv (pointing into them). */
static unsigned mkkv(struct iscsi_kv *kv, const char *const *recs)
{
	unsigned n = 0;

	for (; recs[n]; n++) {
		const char *eq = strchr(recs[n], '=');

		kv[n].key = (const uint8_t *)recs[n];
		kv[n].key_len = (uint32_t)(eq - recs[n]);
		kv[n].val = (const uint8_t *)eq + 1;
		kv[n].val_len = (uint32_t)strlen(eq + 1);
	}
	return n;
}

/* The value of key in an answer block, NUL-terminated into val; false if
 * absent. */
static bool answer(const struct iscsi_kbuf *b, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);

	for (uint32_t off = 0; off < b->len;) {
		const char *rec = (const char *)b->buf + off;
		size_t rlen = strnlen(rec, b->len - off);

		if (rlen > klen && !memcmp(rec, key, klen) && rec[klen] == '=') {
			snprintf(val, size, "%.*s", (int)(rlen - klen - 1), rec + klen + 1);
			return true;
		}
		off += (uint32_t)rlen + 1;
	}
	return false;
}

#define RECS(...) ((const char *const[]){__VA_ARGS__, NULL})

static const uint8_t vec_chal[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* ---- digests ---- */
static void test_digest_vectors(void **state)
{
	static const struct {
		unsigned alg;
		const char *hex;
	} v[] = {
	    {ISCSI_CHAP_MD5, "abc5cd425b0c22b8d1fa813558750e83"},
	    {ISCSI_CHAP_SHA1, "a8d3fa125370c3d0864f2b0c9de2e7225934e815"},
	    {ISCSI_CHAP_SHA256, "32d2fe3ed0886ba2aadb14ace1e99c9b90f84dc0fe43ee43038350ef316283b0"},
	    {ISCSI_CHAP_SHA3_256,
	     "78e059373e0eaea7ebd0a7048ebddd793e1cdc1389a8c24d487bd376ef19bfab"},
	};
	uint8_t out[ISCSI_CHAP_DIGEST_MAX], want[ISCSI_CHAP_DIGEST_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = strlen(v[i].hex) / 2;

		hex2bin(v[i].hex, want);
		/* H(0x2a || "twelve-bytes" || 00..0f) */
		assert_int_equal(iscsi_chap_digest(v[i].alg, 0x2a, (const uint8_t *)"twelve-bytes",
						   12, vec_chal, sizeof(vec_chal), out),
				 (int)n);
		assert_memory_equal(out, want, n);
		assert_int_equal(iscsi_chap_digest_len(v[i].alg), n);
	}
	assert_int_equal(iscsi_chap_digest(4, 0, (const uint8_t *)"x", 1, vec_chal, 16, out),
			 -EINVAL);
	assert_int_equal(iscsi_chap_digest_len(9), 0);
	assert_int_equal(iscsi_chap_digest_len(0), 0);
}

/* ---- codec ---- */
static int dec(const char *s, uint8_t *out, size_t cap, enum iscsi_chap_enc *e)
{
	return iscsi_chap_decode((const uint8_t *)s, strlen(s), out, cap, e);
}

static void test_decode_hex(void **state)
{
	uint8_t out[8];
	enum iscsi_chap_enc e = ISCSI_CHAP_ENC_BASE64;

	(void)state;
	assert_int_equal(dec("0xdeadBEEF", out, sizeof(out), &e), 4);
	assert_int_equal(e, ISCSI_CHAP_ENC_HEX);
	assert_memory_equal(out, "\xde\xad\xbe\xef", 4);
	assert_int_equal(dec("0X00ff", out, sizeof(out), NULL), 2);
	assert_memory_equal(out, "\x00\xff", 2);
	/* RFC 7143 6.1: n digits are (n+1)/2 bytes: an implied leading 0 */
	assert_int_equal(dec("0xabc", out, sizeof(out), NULL), 2);
	assert_memory_equal(out, "\x0a\xbc", 2);
	assert_int_equal(dec("0x1", out, sizeof(out), NULL), 1);
	assert_int_equal(out[0], 1);
	/* malformed */
	assert_int_equal(dec("0x", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("0xabg0", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("0x 12", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("1x12", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("0y12", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("1234", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("", out, sizeof(out), NULL), -EINVAL);
	/* over the caller's buffer: refused before decoding (the digits
	 * after the limit are not even looked at) */
	assert_int_equal(dec("0x112233445566778899", out, sizeof(out), NULL), -E2BIG);
	assert_int_equal(dec("0x11223344556677zz9", out, sizeof(out), NULL), -E2BIG);
	assert_int_equal(dec("0x1122334455667788", out, sizeof(out), NULL), 8);
}

static void test_decode_hex_limit(void **state)
{
	size_t n = ISCSI_CHAP_VALUE_MAX;
	char *v = malloc(n + 2);
	uint8_t *out = malloc(ISCSI_CHAP_BIN_MAX + 1);

	(void)state;
	/* 1024 bytes: the RFC 7143 12.1.3 maximum */
	v[0] = '0';
	v[1] = 'x';
	memset(v + 2, 'a', n - 2);
	assert_int_equal(iscsi_chap_decode((uint8_t *)v, n, out, ISCSI_CHAP_BIN_MAX, NULL),
			 (int)ISCSI_CHAP_BIN_MAX);
	/* one digit more: over the encoded bound, whatever the buffer */
	v[n] = 'a';
	assert_int_equal(iscsi_chap_decode((uint8_t *)v, n + 1, out, ISCSI_CHAP_BIN_MAX + 1, NULL),
			 -E2BIG);
	free(v);
	free(out);
}

static void test_decode_base64(void **state)
{
	uint8_t out[8];
	enum iscsi_chap_enc e = ISCSI_CHAP_ENC_HEX;

	(void)state;
	assert_int_equal(dec("0b3q2+7wE=", out, sizeof(out), &e), 5);
	assert_int_equal(e, ISCSI_CHAP_ENC_BASE64);
	assert_memory_equal(out, "\xde\xad\xbe\xef\x01", 5);
	/* 6.1: pad digits are optional */
	assert_int_equal(dec("0B3q2+7wE", out, sizeof(out), NULL), 5);
	assert_memory_equal(out, "\xde\xad\xbe\xef\x01", 5);
	assert_int_equal(dec("0bAA==", out, sizeof(out), NULL), 1);
	assert_int_equal(dec("0b/w", out, sizeof(out), NULL), 1);
	assert_int_equal(out[0], 0xff);
	/* malformed */
	assert_int_equal(dec("0b", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("0b=", out, sizeof(out), NULL), -EINVAL);
	assert_int_equal(dec("0bA", out, sizeof(out), NULL), -EINVAL);	   /* 6 bits */
	assert_int_equal(dec("0bAAAAA", out, sizeof(out), NULL), -EINVAL); /* 4n+1 */
	assert_int_equal(dec("0bAB==", out, sizeof(out), NULL), -EINVAL);  /* bits left */
	assert_int_equal(dec("0bAA=A", out, sizeof(out), NULL), -EINVAL);  /* '=' inside */
	assert_int_equal(dec("0bAA===", out, sizeof(out), NULL), -EINVAL); /* 3 pads */
	assert_int_equal(dec("0bAAA==", out, sizeof(out), NULL), -EINVAL); /* bad padding */
	assert_int_equal(dec("0bAA-A", out, sizeof(out), NULL), -EINVAL);  /* not RFC 4648 4 */
	assert_int_equal(dec("0bAAAAAAAAAAAA", out, sizeof(out), NULL), -E2BIG); /* 9 > 8 */
}

static void test_encode(void **state)
{
	static const uint8_t bin[5] = {0xde, 0xad, 0xbe, 0xef, 0x01};
	char buf[32];
	uint8_t back[8];

	(void)state;
	assert_int_equal(iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, bin, 5, buf, sizeof(buf)), 12);
	assert_string_equal(buf, "0xdeadbeef01");
	assert_int_equal(iscsi_chap_encode(ISCSI_CHAP_ENC_BASE64, bin, 5, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "0b3q2+7wE=");
	for (size_t n = 1; n <= 5; n++) {
		iscsi_chap_encode(ISCSI_CHAP_ENC_BASE64, bin, n, buf, sizeof(buf));
		assert_int_equal(dec(buf, back, sizeof(back), NULL), (int)n);
		assert_memory_equal(back, bin, n);
	}
	assert_int_equal(iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, bin, 5, buf, 12), -ENOSPC);
	assert_int_equal(iscsi_chap_encode(ISCSI_CHAP_ENC_BASE64, bin, 5, buf, 10), -ENOSPC);
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void test_challenge_unique(void **state)
{
	enum { N = 20000 };
	uint8_t(*c)[16] = malloc(N * 16);
	uint8_t big[ISCSI_CHAP_BIN_MAX];

	(void)state;
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(iscsi_chap_challenge(c[i], 16), 0);
	qsort(c, N, 16, cmp16);
	for (unsigned i = 1; i < N; i++)
		assert_int_not_equal(memcmp(c[i - 1], c[i], 16), 0);
	assert_int_equal(iscsi_chap_challenge(big, sizeof(big)), 0);
	assert_int_equal(iscsi_chap_challenge(big, 0), -EINVAL);
	assert_int_equal(iscsi_chap_challenge(big, ISCSI_CHAP_BIN_MAX + 1), -EINVAL);
	free(c);
}

/* ---- the exchange ---- */
static struct iscsi_auth_cred creds[2] = {
    {.user = "alice", .user_len = 5, .secret = "alice-secret-1", .secret_len = 14},
    {.user = "bob", .user_len = 3, .secret = "bob-secret-123", .secret_len = 14},
};
static struct iscsi_auth_set auth;
static struct iscsi_chap ch;
static struct iscsi_kbuf out;

static int setup(void **state)
{
	(void)state;
	auth = (struct iscsi_auth_set){
	    .chap = creds,
	    .nchap = 2,
	    .has_mutual = true,
	    .mutual = {.user = "target-id",
		       .user_len = 9,
		       .secret = "target-secret!",
		       .secret_len = 14},
	    .algs = (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8),
	};
	iscsi_chap_init(&ch, &auth);
	iscsi_kbuf_init(&out, 65536);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	iscsi_kbuf_free(&out);
	return 0;
}

static enum iscsi_auth_result step(const char *const *recs)
{
	struct iscsi_kv kv[16];
	unsigned n = mkkv(kv, recs);

	iscsi_kbuf_reset(&out);
	return iscsi_chap_step(&ch, kv, n, &out);
}

/* Run CHAP_A=algs and check the challenge; the chosen algorithm. */
static unsigned challenge(const char *algs)
{
	char rec[64], v[128];
	uint8_t c[64];

	snprintf(rec, sizeof(rec), "CHAP_A=%s", algs);
	assert_int_equal(step(RECS(rec)), ISCSI_AUTH_CONTINUE);
	assert_int_equal(ch.state, ISCSI_CHAP_WAIT_NR);
	assert_true(answer(&out, "CHAP_A", v, sizeof(v)));
	assert_int_equal(atoi(v), ch.alg);
	assert_true(answer(&out, "CHAP_I", v, sizeof(v)));
	assert_int_equal(atoi(v), ch.id);
	assert_true(answer(&out, "CHAP_C", v, sizeof(v)));
	assert_int_equal(dec(v, c, sizeof(c), NULL), ch.chal_len);
	assert_memory_equal(c, ch.chal, ch.chal_len);
	assert_true(ch.chal_len >= 16 && ch.chal_len >= iscsi_chap_digest_len(ch.alg));
	return ch.alg;
}

/* "CHAP_R=<encoded response of secret to the target's challenge>" */
static void response(char *rec, size_t size, const char *secret, enum iscsi_chap_enc e)
{
	uint8_t r[ISCSI_CHAP_DIGEST_MAX];
	int n = iscsi_chap_digest(ch.alg, ch.id, (const uint8_t *)secret, strlen(secret), ch.chal,
				  ch.chal_len, r);

	assert_true(n > 0);
	memcpy(rec, "CHAP_R=", 7);
	iscsi_chap_encode(e, r, (size_t)n, rec + 7, size - 7);
}

static void test_one_way_every_alg(void **state)
{
	static const char *const offers[] = {"5", "6", "7", "8"};
	char r[128];

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		for (int e = ISCSI_CHAP_ENC_HEX; e <= ISCSI_CHAP_ENC_BASE64; e++) {
			iscsi_chap_init(&ch, &auth);
			assert_int_equal(challenge(offers[i]), 5 + i);
			response(r, sizeof(r), "bob-secret-123", (enum iscsi_chap_enc)e);
			assert_int_equal(step(RECS("CHAP_N=bob", r)), ISCSI_AUTH_DONE);
			assert_int_equal(ch.state, ISCSI_CHAP_DONE);
			assert_int_equal(ch.cred, 1);
			assert_false(ch.mutual);
			assert_int_equal(out.len, 0); /* nothing to say back */
			/* an empty request after the end: still done */
			assert_int_equal(step(RECS("X=1") + 1), ISCSI_AUTH_DONE);
		}
	}
}

static void test_alg_choice(void **state)
{
	(void)state;
	/* 6.2.2: the first of the initiator's list that the target allows */
	assert_int_equal(challenge("99,8,5"), 8);
	iscsi_chap_init(&ch, &auth);
	assert_int_equal(challenge("0x6,7"), 6);
	auth.algs = 1u << 5;
	iscsi_chap_init(&ch, &auth);
	assert_int_equal(challenge("7,8,5"), 5);
	/* none in common: CHAP_A=Reject, then failure */
	iscsi_chap_init(&ch, &auth);
	assert_int_equal(step(RECS("CHAP_A=7,8")), ISCSI_AUTH_FAIL);
	assert_true(answer(&out, "CHAP_A", (char[16]){0}, 16));
	assert_int_equal(ch.state, ISCSI_CHAP_FAILED);
	assert_non_null(ch.why);
	/* a failed exchange stays failed */
	assert_int_equal(step(RECS("CHAP_A=5")), ISCSI_AUTH_FAIL);
	/* malformed lists */
	static const char *const bad[] = {"CHAP_A=5,,6", "CHAP_A=",   "CHAP_A=md5",
					  "CHAP_A=5,",	 "CHAP_A=-5", "CHAP_A=256"};
	for (unsigned i = 0; i < 6; i++) {
		iscsi_chap_init(&ch, &auth);
		assert_int_equal(step(RECS(bad[i])), ISCSI_AUTH_FAIL);
	}
}

static void test_mutual(void **state)
{
	uint8_t want[ISCSI_CHAP_DIGEST_MAX], got[64];
	char r[128], v[128];

	(void)state;
	challenge("7");
	response(r, sizeof(r), "alice-secret-1", ISCSI_CHAP_ENC_HEX);
	/* the initiator's challenge in base64: the target answers in base64 */
	assert_int_equal(step(RECS("CHAP_N=alice", r, "CHAP_I=200", "CHAP_C=0b3q2+7wE=")),
			 ISCSI_AUTH_DONE);
	assert_true(ch.mutual);
	assert_int_equal(ch.cred, 0);
	assert_true(answer(&out, "CHAP_N", v, sizeof(v)));
	assert_string_equal(v, "target-id");
	assert_true(answer(&out, "CHAP_R", v, sizeof(v)));
	assert_memory_equal(v, "0b", 2);
	assert_int_equal(dec(v, got, sizeof(got), NULL), 32);
	iscsi_chap_digest(7, 200, (const uint8_t *)"target-secret!", 14,
			  (const uint8_t *)"\xde\xad\xbe\xef\x01", 5, want);
	assert_memory_equal(got, want, 32);

	/* and in hex when the challenge came in hex */
	iscsi_chap_init(&ch, &auth);
	challenge("5");
	response(r, sizeof(r), "alice-secret-1", ISCSI_CHAP_ENC_BASE64);
	assert_int_equal(step(RECS("CHAP_N=alice", r, "CHAP_I=0x0", "CHAP_C=0x0102")),
			 ISCSI_AUTH_DONE);
	assert_true(answer(&out, "CHAP_R", v, sizeof(v)));
	assert_memory_equal(v, "0x", 2);
	assert_int_equal(strlen(v), 2 + 32);
}

struct fail_case {
	const char *const *recs; /* the second request (after the challenge) */
	const char *why;	 /* substring of the reason */
};

static void test_failures(void **state)
{
	char good[128], r_alice_wrong[128], r_short[128], r_long[160], r_odd[160], c_refl[128];
	char big_c[ISCSI_CHAP_VALUE_MAX + 16];
	uint8_t d[ISCSI_CHAP_DIGEST_MAX];

	(void)state;
	/* every case starts from a fresh challenge with MD5 */
	for (unsigned i = 0;; i++) {
		iscsi_chap_init(&ch, &auth);
		challenge("5");
		response(good, sizeof(good), "bob-secret-123", ISCSI_CHAP_ENC_HEX);
		response(r_alice_wrong, sizeof(r_alice_wrong), "bob-secret-123",
			 ISCSI_CHAP_ENC_HEX);
		/* a 15-byte and a 17-byte response */
		iscsi_chap_digest(5, ch.id, (const uint8_t *)"bob-secret-123", 14, ch.chal,
				  ch.chal_len, d);
		memcpy(r_short, "CHAP_R=", 7);
		iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, d, 15, r_short + 7, sizeof(r_short) - 7);
		snprintf(r_long, sizeof(r_long), "%s00", good);
		/* 33 hex digits: 17 bytes (leading half byte) */
		snprintf(r_odd, sizeof(r_odd), "CHAP_R=0x0%s", good + 9);
		memcpy(c_refl, "CHAP_C=", 7);
		iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, ch.chal, ch.chal_len, c_refl + 7,
				  sizeof(c_refl) - 7);
		memcpy(big_c, "CHAP_C=0x", 9);
		memset(big_c + 9, 'a', 2 * (ISCSI_CHAP_BIN_MAX + 1));
		big_c[9 + 2 * (ISCSI_CHAP_BIN_MAX + 1)] = '\0';

		const struct fail_case cases[] = {
		    {RECS("CHAP_N=bob"), "missing"},
		    {RECS(good), "missing"},
		    {RECS("CHAP_N=carol", good), "unknown CHAP_N"},
		    {RECS("CHAP_N=alice", r_alice_wrong), "wrong CHAP_R"},
		    {RECS("CHAP_N=bob", r_short), "wrong length"},
		    {RECS("CHAP_N=bob", r_long), "wrong length"},
		    {RECS("CHAP_N=bob", r_odd), "wrong length"},
		    {RECS("CHAP_N=bob", "CHAP_R=0xzz"), "malformed CHAP_R"},
		    {RECS("CHAP_N=bob", "CHAP_R=0b!!!!"), "malformed CHAP_R"},
		    {RECS("CHAP_N=bob", "CHAP_R=12345"), "malformed CHAP_R"},
		    {RECS("CHAP_N=bob", good, "CHAP_A=5"), "CHAP_A after"},
		    {RECS("CHAP_N=bob", good, "CHAP_N=bob"), "twice"},
		    {RECS("CHAP_N=bob", good, "CHAP_X=1"), "unknown CHAP key"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=1"), "CHAP_I without"},
		    {RECS("CHAP_N=bob", good, "CHAP_C=0x01"), "CHAP_I without"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=256", "CHAP_C=0x01"), "CHAP_I is not"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=x", "CHAP_C=0x01"), "CHAP_I is not"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=1", "CHAP_C=0x"), "malformed CHAP_C"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=1", big_c), "over 1024"},
		    {RECS("CHAP_N=bob", good, "CHAP_I=1", c_refl), "reflected"},
		    {RECS("CHAP_N=", good), "CHAP_N empty"},
		};
		if (i == sizeof(cases) / sizeof(cases[0]))
			break;
		assert_int_equal(step(cases[i].recs), ISCSI_AUTH_FAIL);
		assert_int_equal(ch.state, ISCSI_CHAP_FAILED);
		assert_non_null(ch.why);
		if (!strstr(ch.why, cases[i].why))
			fail_msg("case %u: reason \"%s\", want \"%s\"", i, ch.why, cases[i].why);
	}
}

static void test_wrong_step(void **state)
{
	char r[128];

	(void)state;
	/* nothing in the first request: wait */
	assert_int_equal(step(RECS("X=1") + 1), ISCSI_AUTH_CONTINUE);
	assert_int_equal(ch.state, ISCSI_CHAP_WAIT_A);
	/* CHAP_N/CHAP_R before the challenge */
	assert_int_equal(step(RECS("CHAP_N=bob", "CHAP_R=0x00")), ISCSI_AUTH_FAIL);
	iscsi_chap_init(&ch, &auth);
	assert_int_equal(step(RECS("CHAP_A=5", "CHAP_N=bob")), ISCSI_AUTH_FAIL);
	/* keys after the end */
	iscsi_chap_init(&ch, &auth);
	challenge("5");
	response(r, sizeof(r), "bob-secret-123", ISCSI_CHAP_ENC_HEX);
	assert_int_equal(step(RECS("CHAP_N=bob", r)), ISCSI_AUTH_DONE);
	assert_int_equal(step(RECS("CHAP_A=5")), ISCSI_AUTH_FAIL);
}

static void test_mutual_not_configured(void **state)
{
	char r[128];

	(void)state;
	auth.has_mutual = false;
	iscsi_chap_init(&ch, &auth);
	challenge("5");
	response(r, sizeof(r), "bob-secret-123", ISCSI_CHAP_ENC_HEX);
	assert_int_equal(step(RECS("CHAP_N=bob", r, "CHAP_I=1", "CHAP_C=0x0102030405060708")),
			 ISCSI_AUTH_FAIL);
	assert_non_null(strstr(ch.why, "mutual"));
}

static void test_same_secret_both_ways(void **state)
{
	char r[128];

	(void)state;
	/* RFC 7143 12.1.3: a response equal to what the target's own secret
	 * gives is a failure (the configuration check is bypassed here) */
	memcpy(auth.mutual.secret, "bob-secret-123", 14);
	iscsi_chap_init(&ch, &auth);
	challenge("6");
	response(r, sizeof(r), "bob-secret-123", ISCSI_CHAP_ENC_HEX);
	assert_int_equal(step(RECS("CHAP_N=bob", r)), ISCSI_AUTH_FAIL);
	assert_non_null(strstr(ch.why, "equals"));
}

static void test_challenges_differ(void **state)
{
	uint8_t first[ISCSI_CHAP_CHAL_MAX];

	(void)state;
	challenge("8");
	memcpy(first, ch.chal, ch.chal_len);
	iscsi_chap_init(&ch, &auth);
	challenge("8");
	assert_int_equal(ch.chal_len, 32);
	assert_memory_not_equal(first, ch.chal, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_digest_vectors),
	    cmocka_unit_test(test_decode_hex),
	    cmocka_unit_test(test_decode_hex_limit),
	    cmocka_unit_test(test_decode_base64),
	    cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_challenge_unique),
	    cmocka_unit_test_setup_teardown(test_one_way_every_alg, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_alg_choice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mutual, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wrong_step, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mutual_not_configured, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_same_secret_both_ways, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_challenges_differ, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
