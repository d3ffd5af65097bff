/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_keys.c: libFuzzer harness (2): the login/text key=value codec
 * (iscsi_keys_parse, iscsi_parse_number), the negotiation table
 * (iscsi_neg_request, iscsi_neg_declare) and the response builder (struct
 * iscsi_kbuf), without a connection.
 *
 * Input: byte 0 = target settings (bit 0 header digest offered, bit 1 data
 * digest, bit 2 InitialR2T, bit 3 ImmediateData, bits 4-5 the stage of the
 * first request: security, operational, full feature Text; bit 6 CHAP
 * allowed besides None, bit 7 a small answer cap of 512 bytes instead of
 * 8192), then up to 8 requests, each a 16-bit big-endian length and that
 * many bytes of key data (the last one takes what is left). Each request is
 * split into records and negotiated on the same struct iscsi_neg, as the
 * PDUs of one login; a request that fails ends the negotiation, as the login
 * would. A request of the operational stage also gets the target's
 * declarations.
 *
 * Checked on every input (a violation aborts):
 *  - the answer never exceeds its cap (RFC 7143 6.1: MaxRecvDataSegmentLength
 *    of the initiator bounds the answer) and is itself well-formed key data
 *    that iscsi_keys_parse accepts, with at most one answer per request key
 *    plus the declarations;
 *  - negotiated numbers stay inside the key table's ranges;
 *  - iscsi_parse_number agrees with a reference decimal/hex reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_env.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/keys.h"
#include "fabric/iscsi/param.h"

#define KEYS_REQ_MAX 8

static void keys_fail(const char *what)
{
	fprintf(stderr, "fuzz_keys: %s\n", what);
	abort();
}

/* Reference reading of RFC 7143 6.1 numbers for the cross-check. */
static bool ref_number(const uint8_t *p, size_t len, uint64_t max, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned d;

		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (base == 16 && p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (base == 16 && p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return false;
		if (v > (max - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static void keys_check_numbers(const struct iscsi_kv *kv, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = 0, b = 0;
		bool ok = iscsi_parse_number(kv[i].val, kv[i].val_len, UINT32_MAX, &a);
		bool rok = ref_number(kv[i].val, kv[i].val_len, UINT32_MAX, &b);

		/* the codec may be stricter (leading zeros, "0x" alone), never
		 * looser, and never reads a different value */
		if (ok && (!rok || a != b))
			keys_fail("iscsi_parse_number accepted what the reference reads otherwise");
	}
}

static void keys_check_answer(const struct iscsi_kbuf *out, unsigned nreq)
{
	struct iscsi_kv *kv;
	unsigned n = 0;

	if (out->len > out->cap)
		keys_fail("answer longer than its cap");
	if (!out->len)
		return;
	kv = calloc(ISCSI_KEYS_MAX * 2 + 8, sizeof(*kv));
	if (!kv)
		abort();
	if (iscsi_keys_parse(out->buf, out->len, kv, ISCSI_KEYS_MAX * 2 + 8, &n) != ISCSI_KEYS_OK &&
	    !out->overflow)
		keys_fail("the answer is not well-formed key data");
	if (!out->overflow && n > nreq + ISCSI_KEY_COUNT)
		keys_fail("more answers than keys asked plus declarations");
	free(kv);
}

static void keys_check_ranges(const struct iscsi_params *p)
{
	for (unsigned k = 0; k < ISCSI_KEY_COUNT; k++) {
		const struct iscsi_key_desc *d = &iscsi_key_table[k];
		uint32_t v;

		if (!d->width || (d->kind != ISCSI_KT_NUM_MIN && d->kind != ISCSI_KT_NUM_MAX))
			continue;
		v = iscsi_param_get(p, (enum iscsi_key_id)k);
		if (v < d->min || v > d->max) {
			fprintf(stderr, "fuzz_keys: %s = %u outside [%u, %u]\n", d->name, v, d->min,
				d->max);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {.p = data, .len = size};
	struct iscsi_settings s;
	struct iscsi_neg *n;
	struct iscsi_kv kv[ISCSI_KEYS_MAX + 1];
	uint8_t cfg;
	unsigned stage;

	if (size < 1)
		return 0;
	fz_init();
	cfg = fz_u8(&in);
	iscsi_settings_default(&s);
	s.header_digest = cfg & 1u;
	s.data_digest = cfg & 2u;
	s.initial_r2t = cfg & 4u;
	s.immediate_data = cfg & 8u;
	stage = (cfg >> 4) & 3u;
	if (stage > ISCSI_NEG_FFP)
		stage = ISCSI_NEG_OPERATIONAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	iscsi_neg_init(n, &s);
	if (cfg & 64u)
		n->auth_allowed |= 1u << ISCSI_AUTH_CHAP;

	for (unsigned r = 0; r < KEYS_REQ_MAX && fz_left(&in); r++) {
		size_t want = r + 1 < KEYS_REQ_MAX ? fz_u16(&in) : fz_left(&in), got;
		const uint8_t *req = fz_bytes(&in, want, &got);
		struct iscsi_kbuf out;
		enum iscsi_neg_result nr;
		unsigned nkv = 0;

		if (iscsi_keys_parse(req, got, kv, ISCSI_KEYS_MAX + 1, &nkv) != ISCSI_KEYS_OK)
			continue; /* the login answers with an initiator error */
		keys_check_numbers(kv, nkv);
		iscsi_kbuf_init(&out, (cfg & 128u) ? 512 : 8192);
		nr = iscsi_neg_request(n, (enum iscsi_neg_stage)stage, kv, nkv, &out);
		if (nr == ISCSI_NEG_OK && stage == ISCSI_NEG_OPERATIONAL)
			iscsi_neg_declare(n, &out);
		(void)iscsi_neg_strerror(nr);
		keys_check_answer(&out, nkv);
		iscsi_kbuf_free(&out);
		if (nr != ISCSI_NEG_OK)
			break;
		keys_check_ranges(&n->active);
		/* the next request moves on the way a login does */
		if (stage == ISCSI_NEG_SECURITY && (r & 1u))
			stage = ISCSI_NEG_OPERATIONAL;
	}
	free(n);
	return 0;
}
