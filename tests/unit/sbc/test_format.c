/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_format.c: FORMAT UNIT (sanitize.c): FMTDATA=0 and the default
 * parameter list headers (short, long) leave every block reading as
 * zeroes, by deallocation, WRITE ZEROES or writes; IMMED with FORMAT IN
 * PROGRESS and its progress for the other commands; refused fields
 * (protection information, defect lists, initialization patterns) with
 * their field pointers; write protection and reservations; a failed
 * format leaving MEDIUM FORMAT CORRUPTED until a format succeeds.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0 on the test back-store, 2 MiB). */
#include "sbc_harness.h"

#include <errno.h>

#define LONGLIST 0x20
#define FMTDATA	 0x10
#define CMPLST	 0x08
#define FOV	 0x80
#define DCRT	 0x20
#define IP	 0x08
#define IMMED	 0x02

static const struct sh_opts thick_opts = {.caps = BS_CAP_FLUSH};
static const struct sh_opts thin_opts = {.caps = FSB_ALL_CAPS, .thin = true};
static const struct sh_opts wz_opts = {.caps = BS_CAP_FLUSH | BS_CAP_WRITE_ZEROES};
static const uint8_t tur[6] = {0};

/* FORMAT UNIT with byte 1 b1 and the parameter list (len bytes) */
static uint8_t format(struct loop_port *p, uint8_t b1, uint8_t *list, uint32_t len,
		      struct loop_result *r)
{
	uint8_t c[6] = {0x04, b1, 0, 0, 0, 0};

	return sh_cmd(p, 0, c, 6, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

static void expect_in_progress(const struct loop_result *r)
{
	sh_expect(r, 0x02, 0x04, 0x04);
	assert_true(r->sense[15] & 0x80); /* SKSV: progress indication */
}

static void wait_ready(struct sh *h)
{
	struct loop_result r;

	for (int i = 0; i < 400; i++) {
		if (sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r) == SAM_STAT_GOOD)
			return;
		usleep(5000);
	}
	sh_expect_good(&r);
}

/* FMTDATA=0: zeroes written through the zero chunk (no other primitive),
 * by WRITE ZEROES, or by deallocation (thin). */
static void test_fmtdata0(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;

	(void)state;
	sh_fill(h, 0, 0, 16, 'a');
	sh_fill(h, 0, h->blocks - 16, 16, 'a');
	fsb_reset_counts(h->bs[0]);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 2); /* 2 MiB in 1 MiB chunks */
	assert_true(sh_blocks_are(h, 0, 0, (uint32_t)h->blocks, 0));
	sh_teardown(h);

	h = sh_setup(&wz_opts);
	sh_fill(h, 0, 100, 16, 'a');
	fsb_reset_counts(h->bs[0]);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(fsb_count(h->bs[0], BS_OP_WRITE_ZEROES) >= 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	assert_true(sh_blocks_are(h, 0, 100, 16, 0));
	sh_teardown(h);

	h = sh_setup(&thin_opts);
	sh_fill(h, 0, 100, 16, 'a');
	fsb_reset_counts(h->bs[0]);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(fsb_count(h->bs[0], BS_OP_DISCARD) >= 1);
	assert_false(fsb_mapped(h->bs[0], 100 * 512));
	assert_true(sh_blocks_are(h, 0, 100, 16, 0));
	sh_teardown(h);
}

/* FMTDATA=1 with the defaults in a short and a long header; FOV with
 * DCRT changes nothing and is accepted. */
static void test_fmtdata1(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t l[8] = {0};

	(void)state;
	sh_fill(h, 0, 7, 1, 'b');
	format(h->p1, FMTDATA, l, 4, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 7, 1, 0));
	sh_fill(h, 0, 7, 1, 'b');
	format(h->p1, FMTDATA | LONGLIST, l, 8, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 7, 1, 0));
	l[1] = FOV | DCRT;
	format(h->p1, FMTDATA, l, 4, &r);
	sh_expect_good(&r);
	/* a DEFECT LIST FORMAT with an empty defect list */
	l[1] = 0;
	format(h->p1, FMTDATA | CMPLST | 0x05, l, 4, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* IMMED=1 returns at once; the others get NOT READY / FORMAT IN PROGRESS
 * with a moving progress indication, but INQUIRY, REPORT LUNS and REQUEST
 * SENSE, which reports the same. */
static void test_immed_progress(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t l[4] = {0, IMMED, 0, 0}, buf[512], d[64], s[18];
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0}, rs[6] = {0x03, 0, 0, 0, 18, 0};
	uint8_t sd[6] = {0x1d, 0x04, 0, 0, 0, 0}, ls[10] = {0x4d, 0, 0x40, 0, 0, 0, 0, 0, 64, 0};
	uint16_t p0;

	(void)state;
	sh_fill(h, 0, 0, 8, 'c');
	fsb_hold(h->bs[0], true);
	format(h->p1, FMTDATA, l, 4, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	p0 = get_be16(r.sense + 16);
	sh_read(h, h->p2, 0, 0, 1, buf, &r);
	expect_in_progress(&r);
	sh_write(h, h->p1, 0, 0, 1, buf, &r);
	expect_in_progress(&r);
	format(h->p2, 0, NULL, 0, &r);
	expect_in_progress(&r);
	sh_cmd(h->p2, 0, sd, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	sh_cmd(h->p2, 0, ls, 10, SCSI_DIR_READ, d, 64, &r);
	expect_in_progress(&r);
	sh_cmd(h->p2, 0, inq, 6, SCSI_DIR_READ, d, 36, &r);
	sh_expect_good(&r);
	sh_cmd(h->p2, 0, rs, 6, SCSI_DIR_READ, s, 18, &r);
	sh_expect_good(&r);
	assert_int_equal(s[2] & 0x0f, 0x02);
	assert_int_equal(s[12], 0x04);
	assert_int_equal(s[13], 0x04);
	assert_true(s[15] & 0x80);
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	assert_true(get_be16(r.sense + 16) > p0);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	wait_ready(h);
	assert_true(sh_blocks_are(h, 0, 0, 8, 0));
	sh_teardown(h);
}

/* Refused: FMTPINFO (usage mask), bytes 2-4, CMPLST or a DEFECT LIST
 * FORMAT without FMTDATA, DEFECT LIST FORMAT 111b, PROTECTION FIELD USAGE,
 * DPRY/DCRT/STPF/IP without FOV, IP, a defect list, P_I_INFORMATION. */
static void test_fields(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t l[8] = {0}, c[6];

	(void)state;
	format(h->p1, 0x80, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);
	/* FMTPINFO 01b, on any LU (SBC-4 5.3.2): the field's first bit */
	format(h->p1, 0x40 | FMTDATA, l, 4, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);
	for (int i = 2; i < 5; i++) {
		memcpy(c, (uint8_t[6]){0x04, 0, 0, 0, 0, 0}, 6);
		c[i] = 1;
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
		SH_INVALID_CDB(&r);
		sh_expect_fp(&r, true, (unsigned)i, 0);
	}
	format(h->p1, CMPLST, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 3);
	format(h->p1, 0x01, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 2);
	format(h->p1, FMTDATA | 0x07, l, 4, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 2);

	l[0] = 0x01; /* PROTECTION FIELD USAGE */
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 0, 2);
	l[0] = 0x08; /* reserved */
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 0, 7);
	l[0] = 0;
	l[1] = DCRT;
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 1, 6);
	l[1] = FOV | IP;
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 1, 3);
	l[1] = 0x01;
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 1, 0);
	l[1] = 0;
	l[3] = 8; /* DEFECT LIST LENGTH (short) */
	format(h->p1, FMTDATA, l, 4, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 2, -1);
	l[3] = 0x10; /* P_I_INFORMATION (long) */
	format(h->p1, FMTDATA | LONGLIST, l, 8, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 3, 7);
	l[3] = 0;
	l[7] = 8; /* DEFECT LIST LENGTH (long) */
	format(h->p1, FMTDATA | LONGLIST, l, 8, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 4, -1);
	sh_teardown(h);
}

/* PERSISTENT RESERVE OUT service action sa, TYPE type, RESERVATION KEY
 * key, SERVICE ACTION RESERVATION KEY sakey */
static void pr_out(struct loop_port *p, uint8_t sa, uint8_t type, uint64_t key, uint64_t sakey,
		   struct loop_result *r)
{
	uint8_t c[10] = {0x5f, sa, type, 0, 0, 0, 0, 0, 24, 0}, l[24] = {0};

	put_be64(l, key);
	put_be64(l + 8, sakey);
	sh_cmd(p, 0, c, 10, SCSI_DIR_WRITE, l, 24, r);
}

/* DATA PROTECT on a write-protected LUN; RESERVATION CONFLICT under
 * another I_T nexus' SPC-2 or persistent reservation (SBC-4 table 13: as
 * a write). */
static void test_protect_and_reservations(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .read_only = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t c[6] = {0x16, 0, 0, 0, 0, 0};

	(void)state;
	format(h->p1, 0, NULL, 0, &r);
	SH_WRITE_PROTECTED(&r);
	sh_teardown(h);

	h = sh_setup(&thick_opts);
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	format(h->p2, 0, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_RESERVATION_CONFLICT);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	c[0] = 0x17; /* RELEASE(6) */
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);

	/* a persistent reservation, Write Exclusive, of p1: p2 conflicts,
	 * the holder formats */
	pr_out(h->p1, 0x00, 0, 0, 0x1234, &r); /* REGISTER */
	sh_expect_good(&r);
	pr_out(h->p1, 0x01, 0x01, 0x1234, 0, &r); /* RESERVE, Write Exclusive */
	sh_expect_good(&r);
	format(h->p2, 0, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_RESERVATION_CONFLICT);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	pr_out(h->p1, 0x03, 0, 0x1234, 0, &r); /* CLEAR */
	sh_expect_good(&r);
	format(h->p2, 0, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* A failed format: MEDIUM ERROR / FORMAT COMMAND FAILED, then MEDIUM
 * FORMAT CORRUPTED for reads and writes until a format succeeds. */
static void test_failure(void **state)
{
	struct sh *h = sh_setup(&wz_opts);
	struct loop_result r;
	uint8_t buf[512] = {0};

	(void)state;
	fsb_fail(h->bs[0], BS_OP_WRITE_ZEROES, -EIO, 1, 0);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect(&r, 0x03, 0x31, 0x01);
	sh_read(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect(&r, 0x03, 0x31, 0x00);
	sh_write(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect(&r, 0x03, 0x31, 0x00);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	format(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	sh_read(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fmtdata0),
	    cmocka_unit_test(test_fmtdata1),
	    cmocka_unit_test(test_immed_progress),
	    cmocka_unit_test(test_fields),
	    cmocka_unit_test(test_protect_and_reservations),
	    cmocka_unit_test(test_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
