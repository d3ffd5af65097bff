/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/crc32c.c: RFC 3720 B.4 vectors, hardware vs table
 * agreement over every length 0..1024 and start alignment (from 256 bytes
 * crc32c() goes through ISA-L: the same checks hold it to the table and the
 * bit-at-a-time reference), and chaining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/compiler.h"
#include "lib/crc32c.c"

/* RFC 3720 B.4: an iSCSI SCSI Read (10) Command PDU. */
static const uint8_t rfc3720_read10[48] = {
    0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
    0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* Deterministic pseudo-random bytes (xorshift64). */
static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
}

static uint32_t sw_digest(const void *p, size_t n)
{
	return ~crc32c_sw(CRC32C_INIT, p, n);
}

/* Bit-at-a-time reference, independent of every table. */
static uint32_t bitwise_digest(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

static void test_rfc3720_vectors(void **state)
{
	uint8_t buf[32];

	memset(buf, 0x00, sizeof(buf));
	assert_int_equal(crc32c(buf, sizeof(buf)), 0x8a9136aa);
	assert_int_equal(sw_digest(buf, sizeof(buf)), 0x8a9136aa);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(crc32c(buf, sizeof(buf)), 0x62a8ab43);
	assert_int_equal(sw_digest(buf, sizeof(buf)), 0x62a8ab43);
	for (unsigned i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(crc32c(buf, sizeof(buf)), 0x46dd794e);
	assert_int_equal(sw_digest(buf, sizeof(buf)), 0x46dd794e);
	for (unsigned i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(crc32c(buf, sizeof(buf)), 0x113fdb5c);
	assert_int_equal(sw_digest(buf, sizeof(buf)), 0x113fdb5c);
	assert_int_equal(crc32c(rfc3720_read10, sizeof(rfc3720_read10)), 0xd9963a56);
	assert_int_equal(sw_digest(rfc3720_read10, sizeof(rfc3720_read10)), 0xd9963a56);
	/* The catalogue check value of CRC-32C. */
	assert_int_equal(crc32c("123456789", 9), 0xe3069283);
	assert_int_equal(crc32c(NULL, 0), 0);
}

static void test_impl_selected(void **state)
{
	const char *impl = crc32c_impl();

#if defined(__x86_64__)
	__builtin_cpu_init();
	assert_string_equal(impl, __builtin_cpu_supports("sse4.2") ? "sse4.2" : "table");
#elif defined(__aarch64__)
	assert_string_equal(impl, (getauxval(AT_HWCAP) & HWCAP_CRC32) ? "armv8" : "table");
#else
	assert_string_equal(impl, "table");
#endif
}

/* The dispatched implementation (hardware where present) and the table
 * agree with the bitwise reference for every length 0..1024 at every start
 * alignment 0..15. */
static void test_hw_matches_table(void **state)
{
	enum { MAXLEN = 1024, ALIGNS = 16 };
	uint8_t *buf = malloc(MAXLEN + ALIGNS);

	assert_non_null(buf);
	fill_random(buf, MAXLEN + ALIGNS, 0x1234567);
	for (size_t a = 0; a < ALIGNS; a++)
		for (size_t len = 0; len <= MAXLEN; len++) {
			const uint8_t *p = buf + a;
			uint32_t want = sw_digest(p, len);

			if (crc32c(p, len) != want)
				fail_msg("dispatch mismatch at align %zu len %zu", a, len);
#ifdef CRC32C_HAVE_SSE42
			if (__builtin_cpu_supports("sse4.2") &&
			    ~crc32c_sse42(CRC32C_INIT, p, len) != want)
				fail_msg("sse4.2 mismatch at align %zu len %zu", a, len);
#endif
			if ((len & 63) == 0 || len < 64)
				assert_int_equal(bitwise_digest(p, len), want);
		}
	free(buf);
}

/* Long buffers go through the 3-way interleaved loops (both stream sizes)
 * and their merge tables. */
static void test_long_buffers(void **state)
{
	static const size_t lens[] = {
	    3 * CRC32C_SHORT - 1, 3 * CRC32C_SHORT, 3 * CRC32C_SHORT + 7,
	    3 * CRC32C_LONG - 8,  3 * CRC32C_LONG,  3 * CRC32C_LONG + 3 * CRC32C_SHORT + 5,
	    262144 + 13,	  1048576,
	};
	uint8_t *buf = malloc(1048576 + 8);

	assert_non_null(buf);
	fill_random(buf, 1048576 + 8, 42);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++)
		for (size_t a = 0; a < 8; a += 3) {
			uint32_t want = bitwise_digest(buf + a, lens[i]);

			assert_int_equal(crc32c(buf + a, lens[i]), want);
			assert_int_equal(sw_digest(buf + a, lens[i]), want);
		}
	free(buf);
}

/* crc32c_update over pieces == one shot, for every split point. */
static void test_incremental(void **state)
{
	enum { LEN = 3000 };
	uint8_t *buf = malloc(LEN);

	assert_non_null(buf);
	fill_random(buf, LEN, 7);
	uint32_t whole = crc32c(buf, LEN);

	for (size_t cut = 0; cut <= LEN; cut += 37) {
		uint32_t s = CRC32C_INIT;

		s = crc32c_update(s, buf, cut);
		s = crc32c_update(s, buf + cut, LEN - cut);
		assert_int_equal(crc32c_final(s), whole);
	}
	/* Many small irregular pieces. */
	uint32_t s = CRC32C_INIT;
	size_t off = 0, step = 1;

	while (off < LEN) {
		size_t n = UT_MIN(step, (size_t)LEN - off);

		s = crc32c_update(s, buf + off, n);
		off += n;
		step = step * 3 % 101 + 1;
	}
	assert_int_equal(crc32c_final(s), whole);
	/* The RFC PDU in the five pieces an initiator might hash. */
	s = CRC32C_INIT;
	s = crc32c_update(s, rfc3720_read10, 11);
	s = crc32c_update(s, rfc3720_read10 + 11, 13);
	s = crc32c_update(s, rfc3720_read10 + 24, 4);
	s = crc32c_update(s, rfc3720_read10 + 28, 20);
	assert_int_equal(crc32c_final(s), 0xd9963a56);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc3720_vectors),  cmocka_unit_test(test_impl_selected),
	    cmocka_unit_test(test_hw_matches_table), cmocka_unit_test(test_long_buffers),
	    cmocka_unit_test(test_incremental),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
