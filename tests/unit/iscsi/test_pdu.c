/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pdu.c: the PDU receive machine fed byte by byte and in random
 * splits (with digests, padding, AHS, discarded tails, direct reads), and
 * the transmit unit layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/iscsi/pdu.c"

/* what the callbacks saw */
static struct {
	unsigned headers, pdus, bad_ddigest, hdigest_errors;
	uint8_t dst[8192];
	uint32_t keep; /* how much to keep of each segment */
	uint8_t last_op;
	uint32_t last_dsl;
	uint32_t last_ahs;
	uint8_t ahs[64];
	uint8_t kept[8192];
	uint32_t kept_len;
	int pause_after;  /* pause after this many PDUs (0: never) */
	bool hold_header; /* the header callback pauses before the data segment */
} seen;

static int cb_header(struct iscsi_rx *rx)
{
	seen.headers++;
	seen.last_op = rx->hdr.bhs.opcode;
	seen.last_dsl = rx->dsl;
	seen.last_ahs = rx->ahs_len;
	memcpy(seen.ahs, rx->ahs, rx->ahs_len < 64 ? rx->ahs_len : 64);
	if (seen.hold_header) {
		/* no room yet: the owner sets dst/keep before resuming */
		seen.hold_header = false;
		return 1;
	}
	rx->dst = seen.dst;
	rx->keep = seen.keep;
	return 0;
}

static int cb_pdu(struct iscsi_rx *rx, bool ok)
{
	seen.pdus++;
	if (!ok)
		seen.bad_ddigest++;
	seen.kept_len = rx->keep;
	memcpy(seen.kept, seen.dst, rx->keep);
	if (seen.pause_after && (int)seen.pdus == seen.pause_after)
		return 1;
	return 0;
}

static int cb_hdigest(struct iscsi_rx *rx)
{
	seen.hdigest_errors++;
	return -EBADMSG;
}

static const struct iscsi_rx_ops ops = {
    .header = cb_header,
    .pdu = cb_pdu,
    .header_digest_error = cb_hdigest,
};

/* Build a PDU: opcode, AHS of ahs_len bytes, data of dsl bytes. */
static size_t build(uint8_t *w, uint8_t op, uint32_t ahs_len, uint32_t dsl, bool hd, bool dd,
		    uint8_t seed)
{
	union iscsi_hdr h = {0};
	size_t n = 0;

	h.bhs.opcode = op;
	h.bhs.total_ahs_len = (uint8_t)(ahs_len / 4);
	put_be24(h.bhs.dsl, dsl);
	memcpy(w, h.raw, 48);
	n = 48;
	for (uint32_t i = 0; i < ahs_len; i++)
		w[n++] = (uint8_t)(0xa0 + i);
	if (hd) {
		put_le32(w + n, crc32c(w, n));
		n += 4;
	}
	for (uint32_t i = 0; i < dsl; i++)
		w[n + i] = (uint8_t)(seed + i * 7);
	memset(w + n + dsl, 0, ISCSI_PAD(dsl));
	if (dsl) {
		n += dsl + ISCSI_PAD(dsl);
		if (dd) {
			put_le32(w + n, crc32c(w + n - dsl - ISCSI_PAD(dsl), dsl + ISCSI_PAD(dsl)));
			n += 4;
		}
	}
	return n;
}

static void reset(void)
{
	memset(&seen, 0, sizeof(seen));
}

static void feed_split(struct iscsi_rx *rx, const uint8_t *w, size_t n, unsigned seed,
		       bool bytewise)
{
	size_t off = 0;

	srand(seed);
	while (off < n) {
		size_t k = bytewise ? 1 : 1 + (size_t)rand() % 97;
		ssize_t r;

		if (k > n - off)
			k = n - off;
		r = iscsi_rx_feed(rx, w + off, k);
		assert_int_equal(r, (ssize_t)k);
		off += k;
	}
}

static void test_splits(void **state)
{
	static uint8_t w[65536];
	struct iscsi_rx rx;

	(void)state;
	for (int dig = 0; dig < 4; dig++) {
		bool hd = dig & 1, dd = dig & 2;

		for (int mode = 0; mode < 2; mode++) {
			size_t n = 0;

			reset();
			iscsi_rx_init(&rx, &ops);
			rx.hdigest = hd;
			rx.ddigest = dd;
			seen.keep = 4000;
			/* a mix: no data, odd lengths (padding), AHS */
			n += build(w + n, 0x01, 0, 0, hd, dd, 1);
			n += build(w + n, 0x05, 0, 1, hd, dd, 2);
			n += build(w + n, 0x05, 0, 4093, hd, dd, 3);
			n += build(w + n, 0x01, 20, 7, hd, dd, 4);
			n += build(w + n, 0x04, 0, 8192, hd, dd, 5);
			feed_split(&rx, w, n, 7 + (unsigned)dig, mode == 0);
			assert_int_equal(seen.headers, 5);
			assert_int_equal(seen.pdus, 5);
			assert_int_equal(seen.bad_ddigest, 0);
			assert_int_equal(seen.hdigest_errors, 0);
			/* the last one: 8192 bytes, the first 4000 kept */
			assert_int_equal(seen.last_dsl, 8192);
			assert_int_equal(seen.kept_len, 4000);
			for (uint32_t i = 0; i < 4000; i++)
				assert_int_equal(seen.kept[i], (uint8_t)(5 + i * 7));
			assert_int_equal(rx.state, ISCSI_RX_BHS);
		}
	}
}

static void test_ahs(void **state)
{
	static uint8_t w[2048];
	struct iscsi_rx rx;
	size_t n;

	(void)state;
	reset();
	iscsi_rx_init(&rx, &ops);
	/* the largest AHS (255 words) with a 3-byte data segment */
	n = build(w, 0x01, 1020, 3, false, false, 9);
	assert_int_equal(iscsi_rx_feed(&rx, w, 48), 48);
	assert_int_equal(seen.headers, 0);
	assert_int_equal(iscsi_rx_feed(&rx, w + 48, n - 48), (ssize_t)(n - 48));
	assert_int_equal(seen.headers, 1);
	assert_int_equal(seen.last_ahs, 1020);
	assert_int_equal(seen.ahs[0], 0xa0);
	assert_int_equal(seen.pdus, 1);
}

static void test_digest_errors(void **state)
{
	uint8_t w[256];
	struct iscsi_rx rx;
	size_t n;

	(void)state;
	/* data digest mismatch: reported, machine goes on */
	reset();
	iscsi_rx_init(&rx, &ops);
	rx.hdigest = rx.ddigest = true;
	seen.keep = 16;
	n = build(w, 0x05, 0, 10, true, true, 1);
	w[n - 1] ^= 1;
	assert_int_equal(iscsi_rx_feed(&rx, w, n), (ssize_t)n);
	assert_int_equal(seen.pdus, 1);
	assert_int_equal(seen.bad_ddigest, 1);
	/* a padding byte is covered by the digest too */
	reset();
	seen.keep = 16;
	n = build(w, 0x05, 0, 10, true, true, 1);
	w[48 + 4 + 10] = 0xff;
	assert_int_equal(iscsi_rx_feed(&rx, w, n), (ssize_t)n);
	assert_int_equal(seen.bad_ddigest, 1);
	/* header digest mismatch: stop */
	reset();
	n = build(w, 0x05, 0, 10, true, true, 1);
	w[48] ^= 1;
	assert_true(iscsi_rx_feed(&rx, w, n) < 0);
	assert_int_equal(seen.hdigest_errors, 1);
	assert_int_equal(seen.headers, 0);
	/* empty data segment: no data digest on the wire */
	reset();
	iscsi_rx_init(&rx, &ops);
	rx.hdigest = rx.ddigest = true;
	n = build(w, 0x00, 0, 0, true, true, 1);
	assert_int_equal(n, 52);
	assert_int_equal(iscsi_rx_feed(&rx, w, n), 52);
	assert_int_equal(seen.pdus, 1);
	assert_int_equal(seen.bad_ddigest, 0);
}

static void test_pause(void **state)
{
	uint8_t w[512];
	struct iscsi_rx rx;
	size_t n = 0, a;

	(void)state;
	reset();
	iscsi_rx_init(&rx, &ops);
	seen.pause_after = 1;
	n += build(w + n, 0x00, 0, 5, false, false, 1);
	a = n;
	n += build(w + n, 0x00, 0, 6, false, false, 2);
	/* paused right after the first PDU: the rest is left */
	assert_int_equal(iscsi_rx_feed(&rx, w, n), (ssize_t)a);
	assert_int_equal(seen.pdus, 1);
	assert_int_equal(iscsi_rx_feed(&rx, w + a, n - a), (ssize_t)(n - a));
	assert_int_equal(seen.pdus, 2);
}

/* The header callback pauses before the data segment (mempress.c: no
 * buffer yet); feeding resumes with the destination set then, with bytes or
 * with none (a PDU without data completes at once). */
static void test_header_pause(void **state)
{
	uint8_t w[512];
	struct iscsi_rx rx;
	size_t n = 0, a, b;

	(void)state;
	for (int dd = 0; dd < 2; dd++) {
		reset();
		iscsi_rx_init(&rx, &ops);
		rx.ddigest = dd;
		seen.keep = 7;
		n = build(w, 0x01, 0, 7, false, dd, 3);
		a = n;
		n += build(w + n, 0x01, 0, 0, false, dd, 4);
		b = n;
		n += build(w + n, 0x00, 0, 5, false, dd, 5);
		/* first PDU: paused after its 48-byte header */
		seen.hold_header = true;
		assert_int_equal(iscsi_rx_feed(&rx, w, n), 48);
		assert_true(rx.held);
		assert_int_equal(seen.pdus, 0);
		rx.dst = seen.dst;
		rx.keep = 7;
		assert_int_equal(iscsi_rx_feed(&rx, w + 48, a - 48), (ssize_t)(a - 48));
		assert_false(rx.held);
		assert_int_equal(seen.pdus, 1);
		assert_int_equal(seen.bad_ddigest, 0);
		assert_int_equal(seen.kept_len, 7);
		assert_memory_equal(seen.kept, w + 48, 7);
		/* second PDU has no data segment: paused, then resumed with no
		 * bytes at all completes it */
		seen.hold_header = true;
		assert_int_equal(iscsi_rx_feed(&rx, w + a, n - a), 48);
		assert_int_equal(seen.pdus, 1);
		assert_int_equal(iscsi_rx_feed(&rx, NULL, 0), 0);
		assert_int_equal(seen.pdus, 2);
		/* the third goes through unpaused */
		assert_int_equal(iscsi_rx_feed(&rx, w + b, n - b), (ssize_t)(n - b));
		assert_int_equal(seen.pdus, 3);
		assert_int_equal(seen.headers, 3);
	}
}

static void test_direct(void **state)
{
	static uint8_t w[20000];
	struct iscsi_rx rx;
	uint8_t *p = NULL;
	size_t n, dlen = 0;

	(void)state;
	for (int dd = 0; dd < 2; dd++) {
		reset();
		iscsi_rx_init(&rx, &ops);
		rx.ddigest = dd;
		seen.keep = 8192;
		n = build(w, 0x05, 0, 8192, false, dd, 3);
		n += build(w + n, 0x00, 0, 0, false, dd, 0);
		/* header and 100 data bytes through the buffer */
		assert_int_equal(iscsi_rx_feed(&rx, w, 148), 148);
		assert_false(iscsi_rx_direct(&rx, 1u << 20, &p, &dlen));
		assert_true(iscsi_rx_direct(&rx, 4096, &p, &dlen));
		assert_ptr_equal(p, seen.dst + 100);
		assert_int_equal(dlen, 8092);
		/* "readv" part of it straight in, then the rest */
		memcpy(p, w + 148, 5000);
		assert_int_equal(iscsi_rx_direct_done(&rx, 5000), 0);
		assert_true(iscsi_rx_direct(&rx, 1, &p, &dlen));
		assert_int_equal(dlen, 3092);
		memcpy(p, w + 5148, dlen);
		assert_int_equal(iscsi_rx_direct_done(&rx, dlen), 0);
		assert_int_equal(seen.pdus, dd ? 0 : 1); /* the digest is still to come */
		assert_int_equal(iscsi_rx_feed(&rx, w + 48 + 8192, n - 48 - 8192),
				 (ssize_t)(n - 48 - 8192));
		assert_int_equal(seen.pdus, 2);
		assert_int_equal(seen.bad_ddigest, 0);
		assert_int_equal(iscsi_rx_direct_done(&rx, 1), -EINVAL);
	}
}

static void test_tx(void **state)
{
	static const uint8_t data[5] = {1, 2, 3, 4, 5};
	struct iscsi_tx tx = {0};
	struct iovec iov[8];
	uint8_t wire[128];
	size_t n = 0;
	int k;

	(void)state;
	tx.hdr.bhs.opcode = ISCSI_OP_NOP_IN;
	tx.data = data;
	tx.len = 5;
	tx.flags = ISCSI_TX_F_HDIGEST | ISCSI_TX_F_DDIGEST;
	iscsi_tx_seal(&tx);
	assert_int_equal(iscsi_hdr_dsl(&tx.hdr), 5);
	assert_int_equal(iscsi_tx_wire_len(&tx), 48 + 4 + 5 + 3 + 4);
	k = iscsi_tx_iov(&tx, iov, 8);
	assert_int_equal(k, 5);
	for (int i = 0; i < k; i++) {
		memcpy(wire + n, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	assert_int_equal(n, 64);
	assert_int_equal(get_le32(wire + 48), crc32c(wire, 48));
	assert_int_equal(get_le32(wire + 60), crc32c(wire + 52, 8));
	/* it parses back */
	reset();
	{
		struct iscsi_rx rx;

		iscsi_rx_init(&rx, &ops);
		rx.hdigest = rx.ddigest = true;
		seen.keep = 5;
		assert_int_equal(iscsi_rx_feed(&rx, wire, n), (ssize_t)n);
		assert_int_equal(seen.pdus, 1);
		assert_int_equal(seen.bad_ddigest, 0);
		assert_memory_equal(seen.kept, data, 5);
	}
	/* resume after a partial write */
	tx.sent = 50;
	k = iscsi_tx_iov(&tx, iov, 8);
	assert_int_equal(k, 4);
	assert_int_equal(iov[0].iov_len, 2);
	tx.sent = 60;
	k = iscsi_tx_iov(&tx, iov, 8);
	assert_int_equal(k, 1);
	assert_int_equal(iov[0].iov_len, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_splits),
	    cmocka_unit_test(test_ahs),
	    cmocka_unit_test(test_digest_errors),
	    cmocka_unit_test(test_pause),
	    cmocka_unit_test(test_header_pause),
	    cmocka_unit_test(test_direct),
	    cmocka_unit_test(test_tx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
