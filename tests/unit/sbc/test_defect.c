/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_defect.c: READ DEFECT DATA (10)/(12) (defect.c): an empty defect
 * list in the requested format, allocation length handling, the reserved
 * format refused. Set-up: sbc_harness.h (p1 -> LUN 0). */
#include "sbc_harness.h"

static const struct sh_opts opts = {.caps = BS_CAP_FLUSH};

static void test_rdd10(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t c[10], d[32];

	(void)state;
	for (uint8_t fmt = 0; fmt < 7; fmt++) {
		/* REQ_PLIST, REQ_GLIST, DEFECT LIST FORMAT */
		memset(c, 0, sizeof(c));
		c[0] = 0x37;
		c[2] = (uint8_t)(0x18 | fmt);
		put_be16(c + 7, 32);
		memset(d, 0xee, sizeof(d));
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, 32, &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, 4);
		assert_int_equal(d[0], 0);
		assert_int_equal(d[1], 0x18 | fmt);   /* PLISTV, GLISTV, format */
		assert_int_equal(get_be16(d + 2), 0); /* DEFECT LIST LENGTH */
	}
	/* only the grown list asked for */
	c[2] = 0x08;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	assert_int_equal(d[1], 0x08);
	/* allocation lengths 0 and 2 */
	put_be16(c + 7, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 0);
	put_be16(c + 7, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, 2, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 2);
	/* the reserved format 111b; a reserved bit */
	c[2] = 0x07;
	put_be16(c + 7, 32);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, 32, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 2, 2);
	c[2] = 0x20;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, 32, &r);
	SH_INVALID_CDB(&r);
	sh_teardown(h);
}

static void test_rdd12(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t c[12], d[32];

	(void)state;
	memset(c, 0, sizeof(c));
	c[0] = 0xb7;
	c[1] = 0x10 | 0x05; /* REQ_PLIST, physical sector format */
	put_be32(c + 6, 32);
	memset(d, 0xee, sizeof(d));
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 8);
	assert_int_equal(d[1], 0x15);
	assert_int_equal(get_be16(d + 2), 0); /* GENERATION CODE */
	assert_int_equal(get_be32(d + 4), 0); /* DEFECT LIST LENGTH */
	/* as libiscsi sends it: everything zero but the allocation length */
	c[1] = 0;
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	c[1] = 0x07;
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 32, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 2);
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdd10),
		cmocka_unit_test(test_rdd12),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
