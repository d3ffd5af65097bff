/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_caw.c: COMPARE AND WRITE and ORWRITE (caw.c): match, miscompare with
 * the offset in INFORMATION, limits, and atomicity against writes from the
 * other initiator, whose commands run on another reactor thread.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0 on the test back-store). */
#include "sbc_harness.h"

#include <errno.h>
#include <pthread.h>

#include "scsi/limits.h"

static const struct sh_opts fake_opts = {.caps = BS_CAP_FLUSH};

static void cdb_caw(uint8_t *c, uint8_t b1, uint64_t lba, uint8_t n)
{
	memset(c, 0, 16);
	c[0] = 0x89;
	c[1] = b1;
	put_be64(c + 2, lba);
	c[13] = n;
}

/* verify data = v blocks of `cmp`, write data = n blocks of `wr` */
static uint8_t caw(struct sh *h, struct loop_port *p, uint64_t lba, uint8_t n, uint8_t cmp,
		   uint8_t wr, struct loop_result *r)
{
	size_t len = (size_t)n * h->bsz;
	uint8_t *b = malloc(2 * len + 1);
	uint8_t c[16];

	memset(b, cmp, len);
	memset(b + len, wr, len);
	cdb_caw(c, 0, lba, n);
	sh_cmd(p, 0, c, 16, n ? SCSI_DIR_WRITE : SCSI_DIR_NONE, b, (uint32_t)(2 * len), r);
	free(b);
	return r->status;
}

static void test_caw_match(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;

	(void)state;
	sh_fill(h, 0, 10, 4, 'A');
	caw(h, h->p1, 10, 4, 'A', 'B', &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 10, 4, 'B'));
	assert_true(sh_blocks_are(h, 0, 14, 1, 0));
	/* the last blocks of the medium, the maximum length */
	sh_fill(h, 0, h->blocks - SBC_MAX_CAW_BLOCKS, SBC_MAX_CAW_BLOCKS, 'C');
	caw(h, h->p2, h->blocks - SBC_MAX_CAW_BLOCKS, SBC_MAX_CAW_BLOCKS, 'C', 'D', &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, h->blocks - SBC_MAX_CAW_BLOCKS, SBC_MAX_CAW_BLOCKS, 'D'));
	sh_teardown(h);
}

static void test_caw_miscompare(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	const size_t offs[] = {0, 1, 511, 512, 3 * 512 + 100, 4 * 512 - 27};
	uint8_t b[8 * 512], c[16];

	(void)state;
	sh_fill(h, 0, 20, 4, 'A');
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		memset(b, 'A', 4 * 512);
		memset(b + 4 * 512, 'B', 4 * 512);
		b[offs[i]] = 'C';
		cdb_caw(c, 0, 20, 4);
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), &r);
		SH_MISCOMPARE(&r);
		/* SBC-4 5.3: INFORMATION = offset of the first differing byte */
		assert_int_equal(sh_info(&r), offs[i]);
		assert_true(sh_blocks_are(h, 0, 20, 4, 'A'));
	}
	/* unwritten (zero) blocks against another verify pattern */
	caw(h, h->p1, 200, 1, '%', 'B', &r);
	SH_MISCOMPARE(&r);
	assert_int_equal(sh_info(&r), 0);
	assert_true(sh_blocks_are(h, 0, 200, 1, 0));
	sh_teardown(h);
}

/* A back-store with its own compare-and-write (BS_CAP_COMPARE_WRITE, an
 * rbd image shared by gateways) gets the command in one request: nothing
 * read, the miscompare offset its own; one that cannot do the range
 * (-EOPNOTSUPP) gets the read-compare-write. */
static void test_caw_native(void **state)
{
	static const struct sh_opts o = {.caps = BS_CAP_FLUSH | BS_CAP_COMPARE_WRITE};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t b[8 * 512], c[16];

	(void)state;
	sh_fill(h, 0, 10, 4, 'A');
	fsb_reset_counts(h->bs[0]);
	caw(h, h->p1, 10, 4, 'A', 'B', &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_COMPARE_WRITE), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 0);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	assert_true(sh_blocks_are(h, 0, 10, 4, 'B'));
	/* a miscompare: INFORMATION from the back-store's offset */
	memset(b, 'B', 4 * 512);
	memset(b + 4 * 512, 'C', 4 * 512);
	b[3 * 512 + 7] = 'X';
	cdb_caw(c, 0, 10, 4);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), &r);
	SH_MISCOMPARE(&r);
	assert_int_equal(sh_info(&r), 3 * 512 + 7);
	assert_true(sh_blocks_are(h, 0, 10, 4, 'B'));
	/* refused for this range: emulated, same result */
	fsb_reset_counts(h->bs[0]);
	fsb_fail(h->bs[0], BS_OP_COMPARE_WRITE, -EOPNOTSUPP, 1, 0);
	caw(h, h->p1, 10, 4, 'B', 'D', &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_COMPARE_WRITE), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 1);
	assert_true(sh_blocks_are(h, 0, 10, 4, 'D'));
	/* another error of the back-store: the command fails with it */
	fsb_fail(h->bs[0], BS_OP_COMPARE_WRITE, -EIO, 1, 512);
	caw(h, h->p1, 10, 4, 'D', 'E', &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);       /* MEDIUM ERROR, WRITE ERROR */
	assert_int_equal(sh_info(&r), 10 + 1); /* the LBA of bad_off */
	assert_true(sh_blocks_are(h, 0, 10, 4, 'D'));
	sh_teardown(h);
}

static void test_caw_fields(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t b[8 * 512] = {0}, c[16];

	(void)state;
	/* zero blocks: nothing read or written */
	fsb_reset_counts(h->bs[0]);
	caw(h, h->p1, 0, 0, 0, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 0);
	/* out of range */
	caw(h, h->p1, h->blocks - 1, 2, 0, 0, &r);
	SH_LBA_OOB(&r);
	caw(h, h->p1, UINT64_MAX, 1, 0, 0, &r);
	SH_LBA_OOB(&r);
	/* a Data-Out that is not 2 x NUMBER OF LOGICAL BLOCKS */
	cdb_caw(c, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 4 * 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 13, -1);
	cdb_caw(c, 0, 0, 3);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 4 * 512, &r);
	sh_expect(&r, SH_ILLEGAL, 0x24, 0x00);
	/* 256 blocks: the field holds 0 but 512 blocks of Data-Out come
	 * (libiscsi CompareAndWrite.Simple beyond MAXIMUM COMPARE AND WRITE
	 * LENGTH) */
	{
		uint8_t *big = calloc(1, 512 * 512);

		cdb_caw(c, 0, 0, 0);
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, big, 512 * 512, &r);
		SH_INVALID_CDB(&r);
		free(big);
	}
	/* WRPROTECT without protection information (the field's first bit,
	 * as WRITE's: sbc_pi_protect()), reserved bytes */
	cdb_caw(c, 0x20, 0, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 1024, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);
	cdb_caw(c, 0, 0, 1);
	c[11] = 1;
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 1024, &r);
	SH_INVALID_CDB(&r);
	/* DPO/FUA accepted; FUA without BS_CAP_FUA adds a FLUSH */
	fsb_reset_counts(h->bs[0]);
	cdb_caw(c, 0x18, 0, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, 1024, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	/* a read error */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 512);
	caw(h, h->p1, 30, 2, 0, 1, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	assert_int_equal(sh_info(&r), 31);
	/* the lock is free again */
	caw(h, h->p2, 30, 2, 0, 1, &r);
	sh_expect_good(&r);
	sh_teardown(h);

	{
		struct sh_opts o = {.caps = BS_CAP_FLUSH, .read_only = true};

		h = sh_setup(&o);
		caw(h, h->p1, 0, 1, 0, 1, &r);
		SH_WRITE_PROTECTED(&r);
		sh_teardown(h);
	}
}

/* SBC-4 5.3: nothing slips between the compare and the write. A COMPARE
 * AND WRITE is in flight (its read held in the back-store); a WRITE from
 * the other initiator to the same block waits until the COMPARE AND WRITE
 * has written, so it lands after it. */
static void test_caw_atomic_against_write(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r1, r2;
	uint8_t cw[2 * 512], w[512], c1[16], c2[16];
	struct loop_task *t1, *t2;

	(void)state;
	sh_fill(h, 0, 5, 1, 'A');
	memset(cw, 'A', 512);
	memset(cw + 512, 'B', 512);
	memset(w, 'C', sizeof(w));
	fsb_reset_counts(h->bs[0]);
	fsb_hold(h->bs[0], true);
	cdb_caw(c1, 0, 5, 1);
	t1 = loop_submit_async(h->p1, 0, c1, 16, SCSI_DIR_WRITE, cw, sizeof(cw), SCSI_ATTR_SIMPLE,
			       1, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1); /* the compare read */
	cdb16(c2, 0x8a, 0, 5, 1);
	t2 = loop_submit_async(h->p2, 0, c2, 16, SCSI_DIR_WRITE, w, sizeof(w), SCSI_ATTR_SIMPLE, 2,
			       0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	/* the read completes: the COMPARE AND WRITE's write goes, not the WRITE */
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 1);
	assert_false(loop_task_done(t2));
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t1, &r1);
	loop_wait(t2, &r2);
	sh_expect_good(&r1);
	sh_expect_good(&r2);
	assert_true(sh_blocks_are(h, 0, 5, 1, 'C'));
	sh_teardown(h);
}

/* The other way round: a WRITE in flight; the COMPARE AND WRITE waits for
 * it and compares against what it wrote. */
static void test_caw_waits_for_write(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r1, r2;
	uint8_t cw[2 * 512], w[512], c1[16], c2[16];
	struct loop_task *t1, *t2;

	(void)state;
	sh_fill(h, 0, 5, 1, 'A');
	memset(w, 'C', sizeof(w));
	memset(cw, 'C', 512);
	memset(cw + 512, 'D', 512);
	fsb_hold(h->bs[0], true);
	cdb16(c2, 0x8a, 0, 5, 1);
	t2 = loop_submit_async(h->p2, 0, c2, 16, SCSI_DIR_WRITE, w, sizeof(w), SCSI_ATTR_SIMPLE, 2,
			       0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	cdb_caw(c1, 0, 5, 1);
	t1 = loop_submit_async(h->p1, 0, c1, 16, SCSI_DIR_WRITE, cw, sizeof(cw), SCSI_ATTR_SIMPLE,
			       1, 0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1); /* no compare read yet */
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t2, &r2);
	loop_wait(t1, &r1);
	sh_expect_good(&r2);
	sh_expect_good(&r1); /* compared 'C' = 'C' */
	assert_true(sh_blocks_are(h, 0, 5, 1, 'D'));
	sh_teardown(h);
}

/* Two initiators race COMPARE AND WRITE 0 -> 1 on the same block, on two
 * reactor threads, with no held I/O: exactly one of each pair wins. */
static void test_caw_race(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r1, r2;
	uint8_t cw[2 * 512], c[16];
	int good = 0, mis = 0;

	(void)state;
	memset(cw, 0, 512);
	memset(cw + 512, 1, 512);
	cdb_caw(c, 0, 7, 1);
	for (int i = 0; i < 200; i++) {
		struct loop_task *t1, *t2;

		sh_fill(h, 0, 7, 1, 0);
		t1 = loop_submit_async(h->p1, 0, c, 16, SCSI_DIR_WRITE, cw, sizeof(cw),
				       SCSI_ATTR_SIMPLE, 1, 0);
		t2 = loop_submit_async(h->p2, 0, c, 16, SCSI_DIR_WRITE, cw, sizeof(cw),
				       SCSI_ATTR_SIMPLE, 2, 0);
		loop_wait(t1, &r1);
		loop_wait(t2, &r2);
		good += (r1.status == SAM_STAT_GOOD) + (r2.status == SAM_STAT_GOOD);
		mis += (r1.status == SAM_STAT_CHECK_CONDITION) +
		       (r2.status == SAM_STAT_CHECK_CONDITION);
		assert_true(sh_blocks_are(h, 0, 7, 1, 1));
	}
	assert_int_equal(good, 200);
	assert_int_equal(mis, 200);
	sh_teardown(h);
}

/* ---- ORWRITE (16) ---- */

static uint8_t orwrite(struct sh *h, uint64_t lba, uint32_t n, uint8_t v, uint8_t b1,
		       struct loop_result *r)
{
	size_t len = (size_t)n * h->bsz;
	uint8_t *b = malloc(len + 1);
	uint8_t c[16];

	memset(b, v, len);
	cdb16(c, 0x8b, b1, lba, n);
	sh_cmd(h->p1, 0, c, 16, n ? SCSI_DIR_WRITE : SCSI_DIR_NONE, b, (uint32_t)len, r);
	free(b);
	return r->status;
}

static void test_orwrite(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;

	(void)state;
	sh_fill(h, 0, 0, 256, 0);
	orwrite(h, 0, 256, 0xa5, 0, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 256, 0xa5));
	orwrite(h, 0, 256, 0x5a, 0, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 256, 0xff));
	assert_true(sh_blocks_are(h, 0, 256, 1, 0x00));
	/* end of the medium, DPO/FUA */
	orwrite(h, h->blocks - 2, 2, 0x01, 0x18, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, h->blocks - 2, 2, 0x01));
	/* zero blocks, out of range, ORPROTECT */
	orwrite(h, 0, 0, 0, 0, &r);
	sh_expect_good(&r);
	orwrite(h, h->blocks - 1, 2, 0, 0, &r);
	SH_LBA_OOB(&r);
	orwrite(h, 1ull << 63, 1, 0, 0, &r);
	SH_LBA_OOB(&r);
	orwrite(h, 0, 1, 0, 0x40, &r);
	SH_INVALID_CDB(&r);
	/* errors of the read and of the write */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 0);
	orwrite(h, 3, 1, 0, 0, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 0);
	orwrite(h, 4, 1, 0, 0, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	assert_int_equal(sh_info(&r), 4);
	sh_teardown(h);
}

/* ORWRITE is a read-modify-write under the same exclusive lock: a WRITE
 * arriving while its read is in flight lands after it. */
static void test_orwrite_atomic(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r1, r2;
	uint8_t o[512], w[512], c1[16], c2[16];
	struct loop_task *t1, *t2;

	(void)state;
	sh_fill(h, 0, 9, 1, 0x0f);
	memset(o, 0xf0, sizeof(o));
	memset(w, 0x11, sizeof(w));
	fsb_hold(h->bs[0], true);
	cdb16(c1, 0x8b, 0, 9, 1);
	t1 = loop_submit_async(h->p1, 0, c1, 16, SCSI_DIR_WRITE, o, sizeof(o), SCSI_ATTR_SIMPLE, 1,
			       0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	cdb16(c2, 0x8a, 0, 9, 1);
	t2 = loop_submit_async(h->p2, 0, c2, 16, SCSI_DIR_WRITE, w, sizeof(w), SCSI_ATTR_SIMPLE, 2,
			       0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t1, &r1);
	loop_wait(t2, &r2);
	sh_expect_good(&r1);
	sh_expect_good(&r2);
	assert_true(sh_blocks_are(h, 0, 9, 1, 0x11));
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caw_match),
		cmocka_unit_test(test_caw_miscompare),
		cmocka_unit_test(test_caw_native),
		cmocka_unit_test(test_caw_fields),
		cmocka_unit_test(test_caw_atomic_against_write),
		cmocka_unit_test(test_caw_waits_for_write),
		cmocka_unit_test(test_caw_race),
		cmocka_unit_test(test_orwrite),
		cmocka_unit_test(test_orwrite_atomic),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
