/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_verify.c: VERIFY (10/12/16) and WRITE AND VERIFY (10/12/16)
 * (verify.c) with BYTCHK 00b, 01b, 11b: real comparisons, miscompare
 * offsets, ranges longer than one chunk, limits and errors.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0 on the test back-store). */
#include "sbc_harness.h"

#include <errno.h>

#include "scsi/limits.h"

static const struct sh_opts fake_opts = {.caps = BS_CAP_FLUSH};

#define BYTCHK(v) ((uint8_t)((v) << 1))

static void pattern(uint8_t *b, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 31 + seed);
}

/* Write a pattern to n blocks at lba and return it (malloc). */
static uint8_t *put_pattern(struct sh *h, uint64_t lba, uint32_t n, unsigned seed)
{
	struct loop_result r;
	uint8_t *b = malloc((size_t)n * h->bsz);

	pattern(b, (size_t)n * h->bsz, seed);
	sh_write(h, h->p1, 0, lba, n, b, &r);
	sh_expect_good(&r);
	return b;
}

static void test_verify_bytchk1(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t *b = put_pattern(h, 100, 16, 7);
	uint8_t c[16];

	(void)state;
	cdb10(c, 0x2f, BYTCHK(1), 100, 16);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 16 * 512, &r);
	sh_expect_good(&r);
	cdb12(c, 0xaf, BYTCHK(1), 100, 16);
	sh_cmd(h->p2, 0, c, 12, SCSI_DIR_WRITE, b, 16 * 512, &r);
	sh_expect_good(&r);
	cdb16(c, 0x8f, BYTCHK(1) | 0x10, 100, 16); /* DPO */
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 16 * 512, &r);
	sh_expect_good(&r);
	/* one byte flipped: MISCOMPARE, INFORMATION = its offset */
	for (size_t off = 0; off < 16 * 512; off += 1237) {
		b[off] ^= 'X';
		cdb10(c, 0x2f, BYTCHK(1), 100, 16);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 16 * 512, &r);
		SH_MISCOMPARE(&r);
		assert_int_equal(sh_info(&r), off);
		b[off] ^= 'X';
	}
	free(b);
	sh_teardown(h);
}

/* A range of more than one chunk (SBC_CHUNK_BYTES): the second chunk's
 * difference is found at its offset from the start of the data. */
static void test_verify_chunks(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint32_t n = 3000; /* 1.5 MiB */
	uint8_t *b = put_pattern(h, 0, n, 3);
	size_t off = (size_t)2500 * 512 + 17;
	uint8_t c[16];

	(void)state;
	fsb_reset_counts(h->bs[0]);
	cdb16(c, 0x8f, BYTCHK(1), 0, n);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, n * 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 2);
	b[off] ^= 1;
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, n * 512, &r);
	SH_MISCOMPARE(&r);
	assert_int_equal(sh_info(&r), off);
	free(b);
	sh_teardown(h);
}

static void test_verify_bytchk0(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t c[16];

	(void)state;
	/* medium verification: no Data-Out, the blocks are read */
	fsb_reset_counts(h->bs[0]);
	cdb16(c, 0x8f, 0, 0, (uint32_t)h->blocks);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 2); /* 2 MiB in 1 MiB chunks */
	/* a medium error: INFORMATION = the failing LBA */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 3 * 512);
	cdb10(c, 0x2f, 0, 50, 10);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	assert_int_equal(sh_info(&r), 53);
	sh_teardown(h);
}

static void test_verify_bytchk3(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t blk[512], c[16];

	(void)state;
	/* one block of Data-Out compared with every block of the range */
	sh_fill(h, 0, 10, 2500, 0x3c);
	memset(blk, 0x3c, sizeof(blk));
	cdb16(c, 0x8f, BYTCHK(3), 10, 2500);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, blk, 512, &r);
	sh_expect_good(&r);
	/* block 10 + 2100 differs at its byte 9 */
	sh_fill(h, 0, 2110, 1, 0x3d);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, blk, 512, &r);
	SH_MISCOMPARE(&r);
	assert_int_equal(sh_info(&r), 2100 * 512);
	sh_teardown(h);
}

static void test_verify_fields(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t b[2 * 512] = {0}, c[16];

	(void)state;
	/* BYTCHK 10b is reserved */
	cdb10(c, 0x2f, BYTCHK(2), 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 2);
	/* VRPROTECT */
	for (uint8_t p = 1; p < 8; p++) {
		cdb10(c, 0x2f, (uint8_t)(p << 5) | BYTCHK(1), 0, 1);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
		SH_INVALID_CDB(&r);
	}
	/* zero blocks, ranges */
	cdb10(c, 0x2f, BYTCHK(1), 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	cdb10(c, 0x2f, BYTCHK(1), (uint32_t)h->blocks + 1, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb10(c, 0x2f, BYTCHK(1), (uint32_t)h->blocks - 1, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 1024, &r);
	SH_LBA_OOB(&r);
	cdb16(c, 0x8f, 0, UINT64_MAX, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	/* BYTCHK=1 beyond the maximum transfer length */
	cdb16(c, 0x8f, BYTCHK(1), 0, SCSI_MAX_XFER_BYTES / 512 + 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 10, -1);
	sh_teardown(h);
}

/* ---- WRITE AND VERIFY ---- */

static void test_write_verify(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t b[8 * 512], c[16];

	(void)state;
	pattern(b, sizeof(b), 11);
	/* BYTCHK=1: written, read back, compared; durable before the read */
	fsb_reset_counts(h->bs[0]);
	cdb10(c, 0x2e, BYTCHK(1), 40, 8);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, sizeof(b), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 1);
	{
		uint8_t rb[8 * 512];

		sh_read(h, h->p1, 0, 40, 8, rb, &r);
		assert_memory_equal(rb, b, sizeof(b));
	}
	/* BYTCHK=0 (12) and (16) */
	pattern(b, sizeof(b), 12);
	cdb12(c, 0xae, 0, 60, 8);
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_WRITE, b, sizeof(b), &r);
	sh_expect_good(&r);
	cdb16(c, 0x8e, BYTCHK(1) | 0x10, h->blocks - 8, 8);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), &r);
	sh_expect_good(&r);
	/* BYTCHK=11b: one block written to each block of the range */
	memset(b, 0x6d, 512);
	cdb16(c, 0x8e, BYTCHK(3), 300, 2300);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 512, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 300, 2300, 0x6d));
	assert_true(sh_blocks_are(h, 0, 2600, 1, 0));
	/* the read-back fails */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 0);
	cdb10(c, 0x2e, BYTCHK(1), 40, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	assert_int_equal(sh_info(&r), 40);
	/* the write fails */
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 0);
	cdb10(c, 0x2e, BYTCHK(1), 41, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	assert_int_equal(sh_info(&r), 41);
	sh_teardown(h);
}

static void test_write_verify_fields(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t b[2 * 512], c[16];

	(void)state;
	memset(b, 'b', sizeof(b));
	/* zero blocks, ranges, WRPROTECT, BYTCHK 10b */
	cdb10(c, 0x2e, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	cdb10(c, 0x2e, 0, (uint32_t)h->blocks + 1, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb10(c, 0x2e, BYTCHK(1), (uint32_t)h->blocks - 1, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, sizeof(b), &r);
	SH_LBA_OOB(&r);
	cdb10(c, 0x2e, 0x20 | BYTCHK(1), 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
	SH_INVALID_CDB(&r);
	cdb10(c, 0x2e, BYTCHK(2), 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
	SH_INVALID_CDB(&r);
	/* Expected Data Transfer Length of one block for two: one written
	 * (WriteVerify10.Residuals) */
	sh_fill(h, 0, 0, 2, 'a');
	cdb10(c, 0x2e, BYTCHK(1), 0, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 1, 'b'));
	assert_true(sh_blocks_are(h, 0, 1, 1, 'a'));
	sh_teardown(h);

	{
		struct sh_opts o = {.caps = BS_CAP_FLUSH, .read_only = true};

		h = sh_setup(&o);
		cdb10(c, 0x2e, BYTCHK(1), 0, 1);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, b, 512, &r);
		SH_WRITE_PROTECTED(&r);
		/* VERIFY only reads: allowed */
		cdb10(c, 0x2f, 0, 0, 1);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
		sh_expect_good(&r);
		sh_teardown(h);
	}
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_bytchk1),
		cmocka_unit_test(test_verify_chunks),
		cmocka_unit_test(test_verify_bytchk0),
		cmocka_unit_test(test_verify_bytchk3),
		cmocka_unit_test(test_verify_fields),
		cmocka_unit_test(test_write_verify),
		cmocka_unit_test(test_write_verify_fields),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
