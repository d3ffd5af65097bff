/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chap.h: CHAP in the iSCSI security stage (RFC 7143 12.1.3, RFC 1994),
 * target side.
 *
 * The exchange, one request of the initiator per step:
 *   I: CHAP_A=<A1,A2,...>          T: CHAP_A=<A> CHAP_I=<I> CHAP_C=<C>
 *   I: CHAP_N=<N> CHAP_R=<R>       T: (done)
 *      [CHAP_I=<I'> CHAP_C=<C'>]   T: [CHAP_N=<N'> CHAP_R=<R'>]   (mutual)
 * R = H(I || secret || C) with H the algorithm A (MD5, SHA-1, SHA-256,
 * SHA3-256 through OpenSSL EVP). C and R are binary values in hex ("0x") or
 * base64 ("0b") (RFC 7143 6.1), at most 1024 bytes each; every length is
 * checked on the encoded form before anything is decoded. Challenges come
 * from the kernel's random source and never repeat within the process (the
 * first 16 bytes are a per-process counter encrypted with a random AES key:
 * a permutation, so two challenges never collide). Responses are compared
 * in constant time; a reflected challenge or a response equal to the one
 * the target's own secret gives is an authentication failure.
 *
 * Any failure ends the login with 02/01 (authentication failure); the
 * reason is kept for the log line. */
#ifndef UT_ISCSI_CHAP_H
#define UT_ISCSI_CHAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/iscsi/keys.h"
#include "fabric/iscsi/login.h"

struct iscsi_auth_set;

#define ISCSI_CHAP_BIN_MAX    1024u /* RFC 7143 12.1.3: binary length of C and R */
#define ISCSI_CHAP_DIGEST_MAX 32u
#define ISCSI_CHAP_CHAL_MAX   32u /* the target's challenge: the digest length, >= 16 */
/* the longest encoded C or R: "0x" + two hex digits per byte */
#define ISCSI_CHAP_VALUE_MAX (2u + 2u * ISCSI_CHAP_BIN_MAX)

enum iscsi_chap_enc {
	ISCSI_CHAP_ENC_HEX,
	ISCSI_CHAP_ENC_BASE64,
};

/* ---- algorithms ---- */
/* Digest length of a CHAP_A value, 0 when unknown. */
size_t iscsi_chap_digest_len(unsigned alg);
/* RFC 1994 4.1: out = H(id || secret || challenge). The digest length, or
 * -EINVAL (unknown algorithm) / -EIO (libcrypto). */
int iscsi_chap_digest(unsigned alg, uint8_t id, const uint8_t *secret, size_t secret_len,
		      const uint8_t *chal, size_t chal_len, uint8_t out[ISCSI_CHAP_DIGEST_MAX]);
/* len (1..ISCSI_CHAP_BIN_MAX) never-repeating random bytes. 0 or -EIO. */
int iscsi_chap_challenge(uint8_t *out, size_t len);

/* ---- binary values (RFC 7143 6.1) ---- */
/* Decode "0x"/"0X" hex (an odd digit count has an implied leading zero
 * nibble) or "0b"/"0B" base64 (RFC 4648 alphabet, padding optional, unused
 * bits zero). The value is a wire buffer of len bytes (not a C string).
 * Returns the byte count (>= 1), -EINVAL when malformed, -E2BIG when it
 * would exceed cap bytes (checked before decoding). *enc (may be NULL) gets
 * the encoding. */
int iscsi_chap_decode(const uint8_t *v, size_t len, uint8_t *out, size_t cap,
		      enum iscsi_chap_enc *enc);
/* Encode into out (NUL-terminated): the length without the NUL, or
 * -ENOSPC. */
int iscsi_chap_encode(enum iscsi_chap_enc enc, const uint8_t *bin, size_t len, char *out,
		      size_t size);

/* ---- the exchange ---- */
enum iscsi_chap_state {
	ISCSI_CHAP_WAIT_A,  /* expecting CHAP_A */
	ISCSI_CHAP_WAIT_NR, /* challenge sent, expecting CHAP_N and CHAP_R */
	ISCSI_CHAP_DONE,    /* the initiator (and, if asked, the target) authenticated */
	ISCSI_CHAP_FAILED,
};

struct iscsi_chap {
	const struct iscsi_auth_set *auth; /* borrowed: outlives the exchange */
	uint8_t state;			   /* enum iscsi_chap_state */
	uint8_t alg;
	uint8_t id;
	uint8_t chal_len;
	uint8_t chal[ISCSI_CHAP_CHAL_MAX];
	int cred;	 /* index of the credential that verified, -1 */
	bool mutual;	 /* the target authenticated itself */
	const char *why; /* reason of a failure (static text) */
};

void iscsi_chap_init(struct iscsi_chap *ch, const struct iscsi_auth_set *auth);
/* One security-stage request: its CHAP_* keys (possibly none), answers
 * appended to out. */
enum iscsi_auth_result iscsi_chap_step(struct iscsi_chap *ch, const struct iscsi_kv *kv,
				       unsigned nkv, struct iscsi_kbuf *out);

/* The login's authentication module for AuthMethod=CHAP (login.c). */
extern const struct iscsi_auth_module iscsi_chap_module;
/* After a successful CHAP login: the initiator's CHAP name and the SHA-256
 * of its secret (for the discovery filter). false when l did not use CHAP. */
bool iscsi_chap_identity(const struct iscsi_login *l, char *user, size_t size,
			 uint8_t secret_sha256[32]);

#endif
