/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_keys.c: the key=value codec (RFC 7143 6.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/iscsi/keys.c"

static enum iscsi_keys_err parse(const void *p, size_t len, unsigned *n)
{
	static struct iscsi_kv kv[ISCSI_KEYS_MAX];

	return iscsi_keys_parse(p, len, kv, ISCSI_KEYS_MAX, n);
}

static void test_basic(void **state)
{
	static const uint8_t d[] = "A=1\0Key.b-c+d@e_f=some value\0Empty=\0";
	struct iscsi_kv kv[4];
	unsigned n;

	(void)state;
	assert_int_equal(iscsi_keys_parse(d, sizeof(d) - 1, kv, 4, &n), ISCSI_KEYS_OK);
	assert_int_equal(n, 3);
	assert_true(iscsi_kv_key_is(&kv[0], "A"));
	assert_true(iscsi_kv_val_is(&kv[0], "1"));
	assert_true(iscsi_kv_key_is(&kv[1], "Key.b-c+d@e_f"));
	assert_true(iscsi_kv_val_is(&kv[1], "some value"));
	assert_int_equal(kv[2].val_len, 0);
	/* '=' inside the value belongs to the value */
	assert_int_equal(iscsi_keys_parse((const uint8_t *)"X=a=b", 6, kv, 4, &n), ISCSI_KEYS_OK);
	assert_true(iscsi_kv_val_is(&kv[0], "a=b"));
}

static void test_errors(void **state)
{
	unsigned n;
	char name[80];

	(void)state;
	/* no NUL at all: the record is not terminated */
	assert_int_equal(parse("A=1", 3, &n), ISCSI_KEYS_ENOTERM);
	/* missing '=' */
	assert_int_equal(parse("A1\0", 3, &n), ISCSI_KEYS_ENOEQ);
	/* empty key name */
	assert_int_equal(parse("=1\0", 3, &n), ISCSI_KEYS_EKEYNAME);
	/* invalid character in the name */
	assert_int_equal(parse("A B=1\0", 6, &n), ISCSI_KEYS_EKEYNAME);
	/* embedded NUL splits a value into a record without '=' */
	assert_int_equal(parse("Key=val\0ue\0", 11, &n), ISCSI_KEYS_ENOEQ);
	/* an empty record followed by more data */
	assert_int_equal(parse("A=1\0\0B=2\0", 9, &n), ISCSI_KEYS_EEMPTYREC);
	/* trailing zero padding is fine */
	assert_int_equal(parse("A=1\0\0\0\0", 7, &n), ISCSI_KEYS_OK);
	assert_int_equal(n, 1);
	/* empty data segment: no key */
	assert_int_equal(parse("", 0, &n), ISCSI_KEYS_OK);
	assert_int_equal(n, 0);
	/* 63-byte name is fine, 64 is not */
	memset(name, 'K', sizeof(name));
	name[63] = '=';
	name[64] = 0;
	assert_int_equal(parse(name, 65, &n), ISCSI_KEYS_OK);
	memset(name, 'K', sizeof(name));
	name[64] = '=';
	name[65] = 0;
	assert_int_equal(parse(name, 66, &n), ISCSI_KEYS_EKEYNAME);
}

static void test_too_many(void **state)
{
	uint8_t buf[16 * (ISCSI_KEYS_MAX + 2)];
	struct iscsi_kv kv[ISCSI_KEYS_MAX];
	size_t len = 0;
	unsigned n;

	(void)state;
	for (unsigned i = 0; i < ISCSI_KEYS_MAX + 1; i++)
		len += (size_t)snprintf((char *)buf + len, sizeof(buf) - len, "K%u=v", i) + 1;
	assert_int_equal(iscsi_keys_parse(buf, len, kv, ISCSI_KEYS_MAX, &n), ISCSI_KEYS_ETOOMANY);
}

/* One record filling a data segment of len bytes exactly. */
static size_t fill(uint8_t *buf, size_t len)
{
	memcpy(buf, "X-Long=", 7);
	memset(buf + 7, 'v', len - 8);
	buf[len - 1] = 0;
	return len;
}

static void test_large_segments(void **state)
{
	uint8_t *buf = malloc(8200);
	struct iscsi_kv kv[2];
	unsigned n;

	(void)state;
	/* 8189..8192-byte data segments: values of 8181..8184 bytes */
	for (size_t len = 8189; len <= 8192; len++) {
		fill(buf, len);
		assert_int_equal(iscsi_keys_parse(buf, len, kv, 2, &n), ISCSI_KEYS_OK);
		assert_int_equal(n, 1);
		assert_int_equal(kv[0].val_len, len - 8);
		/* the same without the final NUL is rejected, never read past */
		assert_int_equal(iscsi_keys_parse(buf, len - 1, kv, 2, &n), ISCSI_KEYS_ENOTERM);
	}
	/* a value over the hard maximum */
	memcpy(buf, "K=", 2);
	memset(buf + 2, 'v', ISCSI_KEYS_VALUE_HARD_MAX + 1);
	buf[2 + ISCSI_KEYS_VALUE_HARD_MAX + 1] = 0;
	assert_int_equal(iscsi_keys_parse(buf, ISCSI_KEYS_VALUE_HARD_MAX + 4, kv, 2, &n),
			 ISCSI_KEYS_EVALLEN);
	free(buf);
}

static void test_numbers(void **state)
{
	uint64_t v;

	(void)state;
	assert_true(iscsi_parse_number((const uint8_t *)"8192", 4, UINT32_MAX, &v));
	assert_int_equal(v, 8192);
	assert_true(iscsi_parse_number((const uint8_t *)"0x2000", 6, UINT32_MAX, &v));
	assert_int_equal(v, 8192);
	assert_true(iscsi_parse_number((const uint8_t *)"0XfF", 4, UINT32_MAX, &v));
	assert_int_equal(v, 255);
	assert_true(iscsi_parse_number((const uint8_t *)"4294967295", 10, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"4294967296", 10, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"", 0, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"-1", 2, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"12a", 3, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)" 1", 2, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"0x", 2, UINT32_MAX, &v));
	assert_false(iscsi_parse_number((const uint8_t *)"10", 2, 9, &v));
}

static void test_kbuf(void **state)
{
	struct iscsi_kbuf b;

	(void)state;
	iscsi_kbuf_init(&b, 32);
	iscsi_kbuf_add(&b, "A", "B");
	iscsi_kbuf_add_num(&b, "N", 42);
	assert_int_equal(b.len, 4 + 5);
	assert_memory_equal(b.buf, "A=B\0N=42\0", 9);
	iscsi_kbuf_addn(&b, "KEY", 3, "0123456789012345678901234567", 28);
	assert_true(b.overflow);
	assert_int_equal(b.len, 9);
	iscsi_kbuf_reset(&b);
	assert_false(b.overflow);
	assert_int_equal(b.len, 0);
	iscsi_kbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_too_many), cmocka_unit_test(test_large_segments),
	    cmocka_unit_test(test_numbers),  cmocka_unit_test(test_kbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
