/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_write_same.c: WRITE SAME (10)/(16) (write_same.c): the pattern in
 * bounded chunks, zeroes through WRITE_ZEROES, UNMAP deallocation on thin
 * LUs, NDOB, ANCHOR, NUMBER OF LOGICAL BLOCKS zero (to the end, limited by
 * MAXIMUM WRITE SAME LENGTH), Data-Out size, errors.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0). */
#include "sbc_harness.h"

#include <errno.h>

#include "scsi/limits.h"

static uint8_t ws10(struct sh *h, uint8_t b1, uint32_t lba, uint16_t n, const uint8_t *blk,
		    uint32_t len, struct loop_result *r)
{
	uint8_t c[10];

	cdb10(c, 0x41, b1, lba, n);
	return sh_cmd(h->p1, 0, c, 10, blk ? SCSI_DIR_WRITE : SCSI_DIR_NONE, (void *)blk, len, r);
}

static uint8_t ws16(struct sh *h, uint8_t b1, uint64_t lba, uint32_t n, const uint8_t *blk,
		    uint32_t len, struct loop_result *r)
{
	uint8_t c[16];

	cdb16(c, 0x93, b1, lba, n);
	return sh_cmd(h->p1, 0, c, 16, blk ? SCSI_DIR_WRITE : SCSI_DIR_NONE, (void *)blk, len, r);
}

static void test_ws_pattern(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512], rb[512];

	(void)state;
	for (int i = 0; i < 512; i++)
		blk[i] = (uint8_t)i;
	ws10(h, 0, 10, 5, blk, 512, &r);
	sh_expect_good(&r);
	for (int i = 10; i < 15; i++) {
		sh_read(h, h->p1, 0, (uint64_t)i, 1, rb, &r);
		assert_memory_equal(rb, blk, 512);
	}
	assert_true(sh_blocks_are(h, 0, 15, 1, 0));
	/* a range of more than one chunk: several writes from one buffer */
	fsb_reset_counts(h->bs[0]);
	memset(blk, 0x42, sizeof(blk));
	ws16(h, 0, 100, 3000, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 2);
	assert_true(sh_blocks_are(h, 0, 100, 3000, 0x42));
	assert_true(sh_blocks_are(h, 0, 3100, 1, 0));
	/* zeroes without WRITE_ZEROES: written from the zero chunk */
	fsb_reset_counts(h->bs[0]);
	memset(blk, 0, sizeof(blk));
	ws16(h, 0, 100, 10, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 1);
	assert_true(sh_blocks_are(h, 0, 100, 10, 0));
	assert_true(sh_blocks_are(h, 0, 110, 1, 0x42));
	sh_teardown(h);
}

/* A back-store with BS_CAP_WRITE_SAME gets the block and the whole range
 * in one request; zeroes still take WRITE_ZEROES. */
static void test_ws_native(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH | BS_CAP_WRITE_SAME | BS_CAP_WRITE_ZEROES};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512], rb[512];

	(void)state;
	for (int i = 0; i < 512; i++)
		blk[i] = (uint8_t)(i * 7);
	fsb_reset_counts(h->bs[0]);
	ws16(h, 0, 100, 3000, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE_SAME), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	for (uint64_t i = 100; i < 3100; i += 999) {
		sh_read(h, h->p1, 0, i, 1, rb, &r);
		assert_memory_equal(rb, blk, 512);
	}
	sh_read(h, h->p1, 0, 3099, 1, rb, &r);
	assert_memory_equal(rb, blk, 512);
	assert_true(sh_blocks_are(h, 0, 3100, 1, 0));
	/* zeroes: WRITE_ZEROES, not WRITE_SAME */
	fsb_reset_counts(h->bs[0]);
	memset(blk, 0, sizeof(blk));
	ws10(h, 0, 100, 10, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE_ZEROES), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE_SAME), 0);
	assert_true(sh_blocks_are(h, 0, 100, 10, 0));
	sh_teardown(h);
}

static void test_ws_zeroes_and_unmap(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t zero[512] = {0}, ff[512];

	(void)state;
	memset(ff, 0xff, sizeof(ff));
	/* UNMAP=0, zeroes: BS_OP_WRITE_ZEROES, the blocks stay mapped */
	sh_fill(h, 0, 0, 64, 0xff);
	fsb_reset_counts(h->bs[0]);
	ws16(h, 0, 0, 16, zero, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE_ZEROES), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	assert_true(fsb_mapped(h->bs[0], 0));
	assert_true(sh_blocks_are(h, 0, 0, 16, 0));
	/* UNMAP=1, zeroes: deallocated (reads back zeroes, LBPRZ) */
	fsb_reset_counts(h->bs[0]);
	ws10(h, 0x08, 20, 8, zero, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_DISCARD), 1);
	assert_false(fsb_mapped(h->bs[0], 20 * 512));
	assert_false(fsb_mapped(h->bs[0], 27 * 512));
	assert_true(fsb_mapped(h->bs[0], 28 * 512));
	assert_true(sh_blocks_are(h, 0, 20, 8, 0));
	/* UNMAP=1 with a non-zero block: deallocated all the same, reads back
	 * as zeroes (WriteSame10.UnmapUntilEnd) */
	sh_fill(h, 0, 30, 4, 0x11);
	fsb_reset_counts(h->bs[0]);
	ws16(h, 0x08, 30, 4, ff, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_DISCARD), 1);
	assert_false(fsb_mapped(h->bs[0], 30 * 512));
	assert_true(sh_blocks_are(h, 0, 30, 4, 0));
	/* NDOB (no Data-Out) with UNMAP: deallocated */
	ws16(h, 0x09, 40, 4, NULL, 0, &r);
	sh_expect_good(&r);
	assert_false(fsb_mapped(h->bs[0], 40 * 512));
	assert_true(sh_blocks_are(h, 0, 40, 4, 0));
	/* NDOB without UNMAP: zeroes written (mapped) */
	ws16(h, 0x01, 50, 2, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(fsb_mapped(h->bs[0], 50 * 512));
	assert_true(sh_blocks_are(h, 0, 50, 2, 0));
	sh_teardown(h);
}

/* On the RAM back-store: WRITE SAME UNMAP reads back as zeroes. */
static void test_ws_unmap_ram(void **state)
{
	struct sh_opts o = {.ram = true, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t zero[512] = {0};

	(void)state;
	for (uint16_t i = 1; i <= 256; i += 51) {
		sh_fill(h, 0, 0, i, 0xff);
		ws10(h, 0x08, 0, i, zero, 512, &r);
		sh_expect_good(&r);
		assert_true(sh_blocks_are(h, 0, 0, i, 0));
		sh_fill(h, 0, h->blocks - i, i, 0xff);
		/* NUMBER OF LOGICAL BLOCKS 0: to the end */
		ws10(h, 0x08, (uint32_t)(h->blocks - i), 0, zero, 512, &r);
		sh_expect_good(&r);
		assert_true(sh_blocks_are(h, 0, h->blocks - i, i, 0));
	}
	sh_teardown(h);
}

static void test_ws_fields(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[2 * 512] = {0};

	(void)state;
	/* ANCHOR: an error with UNMAP=0, and without ANC_SUP with UNMAP=1 */
	ws10(h, 0x10, 0, 1, blk, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 4);
	ws16(h, 0x18, 0, 1, blk, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 4);
	/* WRPROTECT */
	for (uint8_t p = 1; p < 8; p++) {
		ws10(h, (uint8_t)(p << 5), 0, 1, blk, 512, &r);
		SH_INVALID_CDB(&r);
	}
	/* a Data-Out that is not one block (WriteSame10.InvalidDataOutSize) */
	ws10(h, 0x08, 0, 1, blk, 256, &r);
	sh_expect(&r, SH_ILLEGAL, 0x24, 0x00);
	ws10(h, 0x08, 0, 1, blk, 1024, &r);
	sh_expect(&r, SH_ILLEGAL, 0x24, 0x00);
	/* ranges */
	ws10(h, 0, (uint32_t)h->blocks - 1, 2, blk, 512, &r);
	SH_LBA_OOB(&r);
	ws10(h, 0, (uint32_t)h->blocks + 1, 0, blk, 512, &r);
	SH_LBA_OOB(&r);
	ws16(h, 0, UINT64_MAX, 1, blk, 512, &r);
	SH_LBA_OOB(&r);
	ws16(h, 0, 1ull << 63, 0, blk, 512, &r);
	SH_LBA_OOB(&r);
	/* zero blocks at the capacity: nothing to write */
	ws16(h, 0, h->blocks, 0, blk, 512, &r);
	sh_expect_good(&r);
	/* beyond MAXIMUM WRITE SAME LENGTH */
	ws16(h, 0, 0, (uint32_t)(SBC_MAX_WRITE_SAME_BYTES / 512) + 1, blk, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 10, -1);
	/* a write error: INFORMATION = the failing LBA */
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 512);
	blk[0] = 1;
	ws10(h, 0, 60, 4, blk, 512, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	assert_int_equal(sh_info(&r), 61);
	sh_teardown(h);
}

/* UNMAP=1 on a fully provisioned LU (LBPWS/LBPWS10 = 0): the bit is not
 * implemented, the block is written; write protection first (ReadOnlySBC). */
static void test_ws_unmap_not_thin(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512];

	(void)state;
	memset(blk, 0x5e, sizeof(blk));
	ws10(h, 0x08, 0, 3, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_DISCARD), 0);
	assert_true(sh_blocks_are(h, 0, 0, 3, 0x5e));
	/* NDOB with UNMAP: zeroes, still mapped */
	ws16(h, 0x09, 0, 2, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(fsb_mapped(h->bs[0], 0));
	assert_true(sh_blocks_are(h, 0, 0, 2, 0));
	assert_true(sh_blocks_are(h, 0, 2, 1, 0x5e));
	sh_teardown(h);

	o.read_only = true;
	h = sh_setup(&o);
	ws10(h, 0x08, 0, 1, NULL, 0, &r);
	SH_WRITE_PROTECTED(&r);
	ws10(h, 0, 0, 1, blk, 512, &r);
	SH_WRITE_PROTECTED(&r);
	sh_teardown(h);
}

/* Without DISCARD, UNMAP writes zeroes (WRITE_ZEROES, else the zero
 * chunk), whatever the block. */
static void test_ws_unmap_fallback(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512];

	(void)state;
	memset(blk, 0x77, sizeof(blk));
	sh_fill(h, 0, 0, 8, 1);
	ws10(h, 0x08, 0, 8, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_DISCARD), 0);
	assert_true(sh_blocks_are(h, 0, 0, 8, 0));
	sh_teardown(h);
}

/* WSNZ=0: NUMBER OF LOGICAL BLOCKS 0 writes to the end of the medium,
 * refused when that is more than MAXIMUM WRITE SAME LENGTH
 * (WriteSame10.0Blocks). The RAM back-store allocates on write only. */
static void test_ws_to_end_limit(void **state)
{
	uint64_t max = SBC_MAX_WRITE_SAME_BYTES / 512;
	struct sh_opts o = {.ram = true, .blocks = max + 64};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512];

	(void)state;
	memset(blk, 0x2b, sizeof(blk));
	ws10(h, 0, 0, 0, blk, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 7, -1);
	ws16(h, 0, h->blocks - (max + 1), 0, blk, 512, &r);
	SH_INVALID_CDB(&r);
	ws16(h, 0, h->blocks - 100, 0, blk, 512, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, h->blocks - 100, 100, 0x2b));
	assert_true(sh_blocks_are(h, 0, h->blocks - 101, 1, 0));
	sh_teardown(h);
}

/* With the write cache off the command ends with a FLUSH. */
static void test_ws_durable(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .no_wce = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t blk[512];

	(void)state;
	memset(blk, 9, sizeof(blk));
	fsb_reset_counts(h->bs[0]);
	ws10(h, 0, 0, 8, blk, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ws_pattern),
		cmocka_unit_test(test_ws_native),
		cmocka_unit_test(test_ws_zeroes_and_unmap),
		cmocka_unit_test(test_ws_unmap_ram),
		cmocka_unit_test(test_ws_fields),
		cmocka_unit_test(test_ws_unmap_not_thin),
		cmocka_unit_test(test_ws_unmap_fallback),
		cmocka_unit_test(test_ws_to_end_limit),
		cmocka_unit_test(test_ws_durable),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
