/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for scsi/pi.c: the T10-DIF guard against the published check
 * value and a golden tuple, the PROTECT field tables, every check and its
 * escape, generation per type, and the interleaved <-> stored moves.
 *
 *   wire (interleaved):  D0 T0 D1 T1 D2 T2 ...   (bs + 8 bytes per block)
 *   stored:              D0 D1 D2 ...  |  T0 T1 T2 ...
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "scsi/pi.h"

#define BS 512u

/* CRC-16 T10-DIF: the catalogue check value of "123456789" is D0DBh */
static void test_crc_check_value(void **state)
{
	(void)state;
	assert_int_equal(t10pi_crc((const uint8_t *)"123456789", 9), 0xd0db);
	assert_int_equal(t10pi_crc((const uint8_t *)"", 0), 0x0000);
}

/* a 512-byte block of zeroes has guard 0000h; of FFh bytes E6A1h (computed
 * bit by bit, MSB first, polynomial 8BB7h, outside this code) */
static void test_golden_tuple(void **state)
{
	uint8_t data[BS], t[T10PI_TUPLE_LEN];
	static const uint8_t ones_lba5[T10PI_TUPLE_LEN] = {0xe6, 0xa1, 0x00, 0x00,
							   0x00, 0x00, 0x00, 0x05};
	struct pi_expect e = {.type = T10PI_TYPE1, .ref = 5};

	(void)state;
	memset(data, 0, sizeof(data));
	assert_int_equal(t10pi_crc(data, BS), 0x0000);
	memset(data, 0xff, sizeof(data));
	t10pi_generate(data, t, BS, 1, e.type, e.ref);
	assert_memory_equal(t, ones_lba5, T10PI_TUPLE_LEN);
	/* type 3: the reference tag is the application client's; generated
	 * as FFFFFFFFh */
	e.type = T10PI_TYPE3;
	t10pi_generate(data, t, BS, 1, e.type, e.ref);
	assert_int_equal(t[4] & t[5] & t[6] & t[7], 0xff);
}

static void test_protect_tables(void **state)
{
	struct pi_checks c;

	(void)state;
	/* 000b: nothing on the wire, guard and reference checked (type 1) */
	assert_true(pi_protect_checks(T10PI_TYPE1, 0, &c));
	assert_false(c.transfer);
	assert_true(c.guard && c.ref && !c.app);
	/* 001b and 101b: everything */
	for (uint8_t p = 1; p <= 5; p += 4) {
		assert_true(pi_protect_checks(T10PI_TYPE1, p, &c));
		assert_true(c.transfer && c.guard && c.app && c.ref);
	}
	assert_true(pi_protect_checks(T10PI_TYPE2, 2, &c));
	assert_true(c.transfer && !c.guard && c.app && c.ref);
	assert_true(pi_protect_checks(T10PI_TYPE1, 3, &c));
	assert_true(c.transfer && !c.guard && !c.app && !c.ref);
	assert_true(pi_protect_checks(T10PI_TYPE1, 4, &c));
	assert_true(c.transfer && c.guard && !c.app && !c.ref);
	/* type 3: the reference tag is never checked */
	assert_true(pi_protect_checks(T10PI_TYPE3, 1, &c));
	assert_true(c.guard && !c.ref);
	/* reserved values; no PI: only 000b */
	assert_false(pi_protect_checks(T10PI_TYPE1, 6, &c));
	assert_false(pi_protect_checks(T10PI_TYPE1, 7, &c));
	assert_false(pi_protect_checks(T10PI_NONE, 1, &c));
	assert_true(pi_protect_checks(T10PI_NONE, 0, &c));
	assert_false(c.transfer || c.guard || c.ref);
}

static void test_checks(void **state)
{
	uint8_t data[3 * BS], t[3 * T10PI_TUPLE_LEN];
	struct pi_expect e = {.type = T10PI_TYPE1, .ref = 0x100};
	struct pi_checks all;
	uint64_t bad = 99;

	(void)state;
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	t10pi_generate(data, t, BS, 3, e.type, e.ref);
	assert_true(pi_protect_checks(T10PI_TYPE1, 1, &all));
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_OK);

	/* a flipped data bit of block 1: guard */
	data[BS + 3] ^= 0x10;
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_PI_GUARD_CHECK_FAILED);
	assert_int_equal(bad, 1);
	/* ... not seen with 010b (no guard check) */
	struct pi_checks noguard;
	assert_true(pi_protect_checks(T10PI_TYPE1, 2, &noguard));
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &noguard, &bad), SENSE_OK);
	/* ... nor when the application tag is FFFFh (escape) */
	t[T10PI_TUPLE_LEN + 2] = 0xff;
	t[T10PI_TUPLE_LEN + 3] = 0xff;
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_OK);
	data[BS + 3] ^= 0x10;
	t10pi_generate(data, t, BS, 3, e.type, e.ref);

	/* reference tag of block 2 off by one */
	t[2 * T10PI_TUPLE_LEN + 7] ^= 0x01;
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_PI_REF_TAG_CHECK_FAILED);
	assert_int_equal(bad, 2);
	/* type 3 ignores it; its escape needs both tags all ones */
	e.type = T10PI_TYPE3;
	struct pi_checks t3;
	assert_true(pi_protect_checks(T10PI_TYPE3, 1, &t3));
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &t3, &bad), SENSE_OK);
	data[5] ^= 1;
	t[2] = t[3] = 0xff;
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &t3, &bad), SENSE_PI_GUARD_CHECK_FAILED);
	assert_int_equal(bad, 0);
	memset(t + 4, 0xff, 4);
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &t3, &bad), SENSE_OK);
	data[5] ^= 1;

	/* the application tag, under its mask, only when one is expected */
	e = (struct pi_expect){.type = T10PI_TYPE2, .ref = 7, .app = 0x1234, .app_mask = 0xff00};
	t10pi_generate(data, t, BS, 3, e.type, e.ref); /* application tag 0000h */
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_PI_APP_TAG_CHECK_FAILED);
	assert_int_equal(bad, 0);
	for (unsigned i = 0; i < 3; i++)
		t[i * T10PI_TUPLE_LEN + 2] = 0x12; /* 12xxh matches under FF00h */
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_OK);
	e.app_mask = 0;
	t[2] = 0x99;
	assert_int_equal(pi_verify(data, t, BS, 3, &e, &all, &bad), SENSE_OK);
}

static void test_split_merge(void **state)
{
	uint8_t wire[3 * (BS + T10PI_TUPLE_LEN)], buf[sizeof(wire)], t[3 * T10PI_TUPLE_LEN];

	(void)state;
	for (unsigned b = 0; b < 3; b++) {
		memset(wire + b * (BS + T10PI_TUPLE_LEN), 0xa0 + b, BS);
		memset(wire + b * (BS + T10PI_TUPLE_LEN) + BS, 0x10 + b, T10PI_TUPLE_LEN);
	}
	memcpy(buf, wire, sizeof(wire));
	t10pi_split(buf, t, BS, 3);
	for (unsigned b = 0; b < 3; b++) {
		for (unsigned i = 0; i < BS; i++)
			assert_int_equal(buf[b * BS + i], 0xa0 + b);
		for (unsigned i = 0; i < T10PI_TUPLE_LEN; i++)
			assert_int_equal(t[b * T10PI_TUPLE_LEN + i], 0x10 + b);
	}
	t10pi_merge(buf, t, BS, 3);
	assert_memory_equal(buf, wire, sizeof(wire));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc_check_value), cmocka_unit_test(test_golden_tuple),
	    cmocka_unit_test(test_protect_tables),  cmocka_unit_test(test_checks),
	    cmocka_unit_test(test_split_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
