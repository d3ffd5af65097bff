/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_diag.c: SEND DIAGNOSTIC, RECEIVE DIAGNOSTIC RESULTS and the
 * self-tests (diag.c): the default self-test, every SELF-TEST CODE
 * (background and foreground, short and extended), the abort (100b, LU
 * reset, ABORT TASK, FORMAT UNIT), the failure path over the fault
 * back-store and the test back-store, the Self-Test Results log page (10h)
 * bytes, REQUEST SENSE progress, refused fields and reservations.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0 on the test back-store, 2 MiB =
 * 4096 blocks of 512 bytes); the failure tests put the fault back-store
 * (src/backstore/fault.c) between the LU and the test back-store:
 *
 *   p1, p2 --> target --> LUN 0 --> fault wrapper (read_error_lbas) --> test back-store
 */
#include "sbc_harness.h"

#include <errno.h>
#include <pthread.h>

#include "backstore/fault.h"

#define ST_DEFAULT     0x04 /* SELFTEST=1 */
#define ST_BG_SHORT    (1 << 5)
#define ST_BG_EXTENDED (2 << 5)
#define ST_ABORT       (4 << 5)
#define ST_FG_SHORT    (5 << 5)
#define ST_FG_EXTENDED (6 << 5)
#define PF	       0x10

static const struct sh_opts opts = {.caps = BS_CAP_FLUSH};
static const uint8_t tur[6] = {0};

static uint8_t senddiag(struct loop_port *p, uint8_t b1, void *list, uint16_t len,
			struct loop_result *r)
{
	uint8_t c[6] = {0x1d, b1, 0, (uint8_t)(len >> 8), (uint8_t)len, 0};

	return sh_cmd(p, 0, c, 6, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

/* REQUEST SENSE (fixed format) into s[18]: key, ASC/ASCQ */
static void request_sense(struct loop_port *p, uint8_t *s)
{
	uint8_t c[6] = {0x03, 0, 0, 0, 18, 0};
	struct loop_result r;

	memset(s, 0, 18);
	sh_cmd(p, 0, c, 6, SCSI_DIR_READ, s, 18, &r);
	sh_expect_good(&r);
}

static void expect_st_in_progress(const struct loop_result *r)
{
	sh_expect(r, 0x02, 0x04, 0x09);
	assert_true(r->sense[15] & 0x80); /* SKSV: progress indication */
}

/* Self-Test Results log page (10h) into b (4 + 20 * 20 bytes). */
static void st_log(struct sh *h, uint8_t *b)
{
	uint8_t c[10] = {0x4d, 0, 0x50, 0, 0, 0, 0, 0x02, 0x00, 0};
	struct loop_result r;

	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, b, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 404);
}

/* parameter data (16 bytes) of self-test result n (1 = the newest) */
static const uint8_t *entry(const uint8_t *b, unsigned n)
{
	const uint8_t *p = b + 4 + 20 * (n - 1);

	assert_int_equal(get_be16(p), n);
	assert_int_equal(p[3], 0x10);
	return p + 4;
}

static void expect_entry(const uint8_t *b, unsigned n, uint8_t code, uint8_t result)
{
	const uint8_t *e = entry(b, n);

	if (e[0] != (uint8_t)(code << 5 | result))
		fail_msg("entry %u: %02x, expected code %u result %xh", n, e[0], code, result);
}

/* REQUEST SENSE says NO SENSE once no self-test runs (bounded: 2 s) */
static void wait_idle(struct loop_port *p)
{
	uint8_t s[18];

	for (int i = 0; i < 400; i++) {
		request_sense(p, s);
		if ((s[2] & 0x0f) == 0 && s[12] == 0)
			return;
		usleep(5000);
	}
	fail_msg("the self-test does not end (sense %x/%02x/%02x)", s[2] & 0x0f, s[12], s[13]);
}

/* SPC-4 6.32.1: the default self-test runs in the foreground, reads 16
 * samples of 64 KiB and is recorded (code 000b, result 0h, no failure:
 * ADDRESS OF FIRST FAILURE all ones, no sense). */
static void test_default(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t b[512];
	const uint8_t *e;

	(void)state;
	fsb_reset_counts(h->bs[0]);
	senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 16);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	st_log(h, b);
	e = entry(b, 1);
	assert_int_equal(e[0], 0x00);		       /* code 000b, result 0h */
	assert_int_equal(e[1], 0);		       /* segment */
	assert_int_equal(get_be16(e + 2), 1);	       /* the first hour */
	assert_int_equal(get_be64(e + 4), UINT64_MAX); /* no failure */
	assert_int_equal(e[12] | e[13] | e[14], 0);
	/* the other 19 are unused: zero */
	for (unsigned n = 2; n <= 20; n++) {
		e = entry(b, n);
		for (int i = 0; i < 16; i++)
			assert_int_equal(e[i], 0);
	}
	/* a medium smaller than a sample is read whole, 16 times */
	sh_teardown(h);
	{
		struct sh_opts o = {.caps = BS_CAP_FLUSH, .blocks = 8};

		h = sh_setup(&o);
		fsb_reset_counts(h->bs[0]);
		senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
		sh_expect_good(&r);
		assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 16);
		sh_teardown(h);
	}
}

/* 101b and 110b: foreground. Other commands get NOT READY / SELF-TEST IN
 * PROGRESS with the progress, but INQUIRY, REPORT LUNS and REQUEST SENSE;
 * the extended test reads the whole medium in 1 MiB chunks. */
static void test_foreground(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t c[6] = {0x1d, ST_FG_EXTENDED, 0, 0, 0, 0}, b[512], s[18], d[64];
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0}, rl[12] = {0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0};
	struct loop_task *t;

	(void)state;
	fsb_reset_counts(h->bs[0]);
	fsb_hold(h->bs[0], true);
	t = loop_submit_async(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, 1, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	assert_false(loop_task_done(t));
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_st_in_progress(&r);
	assert_int_equal(get_be16(r.sense + 16), 0);
	sh_read(h, h->p2, 0, 0, 1, b, &r);
	expect_st_in_progress(&r);
	senddiag(h->p2, ST_DEFAULT, NULL, 0, &r);
	expect_st_in_progress(&r);
	/* 100b cannot abort a foreground test */
	senddiag(h->p2, ST_ABORT, NULL, 0, &r);
	expect_st_in_progress(&r);
	sh_cmd(h->p2, 0, inq, 6, SCSI_DIR_READ, d, 36, &r);
	sh_expect_good(&r);
	sh_cmd(h->p2, 0, rl, 12, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	request_sense(h->p2, s);
	assert_int_equal(s[2] & 0x0f, 0x02);
	assert_int_equal(s[12], 0x04);
	assert_int_equal(s[13], 0x09);
	/* the first of two chunks is done: half way */
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	request_sense(h->p2, s);
	assert_true(s[15] & 0x80);
	assert_int_equal(get_be16(s + 16), 0x7fff);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 2);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	/* 101b: short, 16 reads */
	fsb_reset_counts(h->bs[0]);
	senddiag(h->p1, ST_FG_SHORT, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 16);
	st_log(h, b);
	expect_entry(b, 1, 5, 0x0);
	expect_entry(b, 2, 6, 0x0);
	sh_teardown(h);
}

/* 001b and 010b: background. The command returns at once, other commands
 * run (TEST UNIT READY is GOOD), REQUEST SENSE reports the progress, the
 * log shows the test in progress (Fh), another self-test is refused. */
static void test_background(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t b[512], s[18];

	(void)state;
	fsb_reset_counts(h->bs[0]);
	fsb_hold(h->bs[0], true);
	senddiag(h->p1, ST_BG_EXTENDED, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	request_sense(h->p2, s);
	assert_int_equal(s[2] & 0x0f, 0x02);
	assert_int_equal(s[12], 0x04);
	assert_int_equal(s[13], 0x09);
	assert_true(s[15] & 0x80);
	st_log(h, b);
	expect_entry(b, 1, 2, 0xf);
	assert_int_equal(get_be64(entry(b, 1) + 4), UINT64_MAX);
	senddiag(h->p2, ST_BG_SHORT, NULL, 0, &r);
	expect_st_in_progress(&r);
	senddiag(h->p2, ST_DEFAULT, NULL, 0, &r);
	expect_st_in_progress(&r);
	senddiag(h->p2, ST_FG_SHORT, NULL, 0, &r);
	expect_st_in_progress(&r);
	/* a page list is no self-test: it goes through */
	senddiag(h->p2, PF, NULL, 0, &r);
	sh_expect_good(&r);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	wait_idle(h->p2);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 2);
	st_log(h, b);
	expect_entry(b, 1, 2, 0x0);
	/* 001b */
	fsb_reset_counts(h->bs[0]);
	senddiag(h->p1, ST_BG_SHORT, NULL, 0, &r);
	sh_expect_good(&r);
	wait_idle(h->p2);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 16);
	st_log(h, b);
	expect_entry(b, 1, 1, 0x0);
	expect_entry(b, 2, 2, 0x0);
	sh_teardown(h);
}

/* 100b ends a background test at once (result 1h); without one it is
 * INVALID FIELD IN CDB. A LU reset, FORMAT UNIT and START STOP UNIT
 * stopping the unit end one too (2h). */
static void test_abort(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t b[512], s[18], fmt[6] = {0x04, 0, 0, 0, 0, 0}, ssu[6] = {0x1b, 0, 0, 0, 0, 0};

	(void)state;
	senddiag(h->p1, ST_ABORT, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);

	fsb_hold(h->bs[0], true);
	senddiag(h->p1, ST_BG_EXTENDED, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	senddiag(h->p2, ST_ABORT, NULL, 0, &r);
	sh_expect_good(&r);
	request_sense(h->p2, s);
	assert_int_equal(s[2] & 0x0f, 0);
	assert_int_equal(s[12], 0);
	st_log(h, b);
	expect_entry(b, 1, 2, 0x1);
	senddiag(h->p2, ST_ABORT, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	/* the job ends at its next step: one read only */
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	sh_settle();

	/* a logical unit reset */
	fsb_hold(h->bs[0], true);
	senddiag(h->p1, ST_BG_SHORT, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	sh_clear_ua(h->p1, 0);
	sh_clear_ua(h->p2, 0);
	request_sense(h->p2, s);
	assert_int_equal(s[2] & 0x0f, 0);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	sh_settle();
	st_log(h, b);
	expect_entry(b, 1, 1, 0x2);
	expect_entry(b, 2, 2, 0x1);

	/* FORMAT UNIT */
	fsb_hold(h->bs[0], true);
	senddiag(h->p1, ST_BG_EXTENDED, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	fsb_hold(h->bs[0], false);
	{
		struct loop_task *t = loop_submit_async(h->p2, 0, fmt, 6, SCSI_DIR_NONE, NULL, 0,
							SCSI_ATTR_SIMPLE, 5, 0);

		sh_settle();
		fsb_release(h->bs[0]);
		loop_wait(t, &r);
		sh_expect_good(&r);
	}
	sh_settle();
	st_log(h, b);
	expect_entry(b, 1, 2, 0x2);

	/* START STOP UNIT stopping the unit */
	fsb_hold(h->bs[0], true);
	senddiag(h->p1, ST_BG_SHORT, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	sh_settle();
	st_log(h, b);
	expect_entry(b, 1, 1, 0x2);
	ssu[4] = 0x01;
	sh_cmd(h->p2, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

struct tmf_arg {
	struct loop_port *lp;
	uint64_t tag;
	int resp;
};

static void *tmf_thread(void *a)
{
	struct tmf_arg *t = a;

	t->resp = loop_tmf(t->lp, SCSI_TMF_ABORT_TASK, 0, t->tag);
	return NULL;
}

/* ABORT TASK of a foreground self-test ends it (2h) at its next read. */
static void test_abort_task(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t c[6] = {0x1d, ST_FG_EXTENDED, 0, 0, 0, 0}, b[512];
	struct tmf_arg ta = {.tag = 9};
	struct loop_task *t;
	pthread_t th;

	(void)state;
	fsb_hold(h->bs[0], true);
	t = loop_submit_async(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, 9, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	ta.lp = h->p1;
	assert_int_equal(pthread_create(&th, NULL, tmf_thread, &ta), 0);
	sh_settle();
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	pthread_join(th, NULL);
	assert_int_equal(ta.resp, SCSI_TMF_RESP_COMPLETE);
	loop_wait(t, &r);
	assert_true(r.no_response);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	st_log(h, b);
	expect_entry(b, 1, 6, 0x2);
	sh_teardown(h);
}

/* LUN 0 over the fault back-store: reads of the listed LBAs fail with a
 * medium error. */
static struct sh *setup_fault(const uint64_t *lbas, size_t n)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH};
	struct sh *h = calloc(1, sizeof(*h));
	struct bs_fault_params fp = {
	    .read_error_lbas = lbas, .nread = n, .error = BS_FAULT_MEDIUM, .block_size = 512};
	struct scsi_lu_attrs a = sh_attrs(&o, 0);
	struct bs_dev *w;

	assert_non_null(h);
	h->bsz = 512;
	h->blocks = 4096;
	h->t = scsi_target_create("iqn.test:t");
	h->map = scsi_lun_map_create();
	h->bs[0] = fsb_create(h->blocks * h->bsz, o.caps);
	assert_non_null(h->bs[0]);
	assert_int_equal(bs_fault_wrap(h->bs[0], &fp, &w), 0);
	assert_int_equal(scsi_lu_create("lu0", w, &a, &h->lu[0]), 0);
	assert_int_equal(scsi_lun_map_add(h->map, 0, h->lu[0], false), 0);
	scsi_target_set_default_map(h->t, h->map, true);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h->p2 = loop_create(h->t, 1, "iqn.test:b");
	assert_non_null(h->p1);
	assert_non_null(h->p2);
	sh_clear_ua(h->p1, 0);
	sh_clear_ua(h->p2, 0);
	return h;
}

/* A failing read fails the test: HARDWARE ERROR / LOGICAL UNIT FAILED
 * SELF-TEST in the foreground, and in the log result 5h (the first
 * segment), segment 1, the failing LBA and the read's sense (MEDIUM ERROR
 * / UNRECOVERED READ ERROR). The short test finds an error in its last
 * sample (LBA 4095), the extended one anywhere (LBA 3100). */
static void test_failure(void **state)
{
	static const uint64_t bad[] = {3100, 4095};
	struct sh *h = setup_fault(bad, 2);
	struct loop_result r;
	uint8_t b[512];
	const uint8_t *e;

	(void)state;
	senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
	sh_expect(&r, 0x04, 0x3e, 0x03);
	st_log(h, b);
	e = entry(b, 1);
	assert_int_equal(e[0], 0x05);
	assert_int_equal(e[1], 1);
	assert_int_equal(get_be64(e + 4), 4095);
	assert_int_equal(e[12], 0x03);
	assert_int_equal(e[13], 0x11);
	assert_int_equal(e[14], 0x00);
	senddiag(h->p1, ST_FG_EXTENDED, NULL, 0, &r);
	sh_expect(&r, 0x04, 0x3e, 0x03);
	/* background: GOOD, the failure is in the log */
	senddiag(h->p1, ST_BG_EXTENDED, NULL, 0, &r);
	sh_expect_good(&r);
	wait_idle(h->p2);
	st_log(h, b);
	expect_entry(b, 1, 2, 0x5);
	assert_int_equal(get_be64(entry(b, 1) + 4), 3100);
	expect_entry(b, 2, 6, 0x5);
	assert_int_equal(get_be64(entry(b, 2) + 4), 3100);
	expect_entry(b, 3, 0, 0x5);
	/* the LU goes on working */
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);

	/* a hardware error of the back-store: HARDWARE ERROR / INTERNAL
	 * TARGET FAILURE in the log, LBA of the failing read */
	h = sh_setup(&opts);
	fsb_fail(h->bs[0], BS_OP_READ, -EREMOTEIO, 1, 0);
	fsb_fail_skip(h->bs[0], 1);
	senddiag(h->p1, ST_FG_EXTENDED, NULL, 0, &r);
	sh_expect(&r, 0x04, 0x3e, 0x03);
	st_log(h, b);
	e = entry(b, 1);
	assert_int_equal(e[0], 6 << 5 | 0x5);
	assert_int_equal(get_be64(e + 4), 2048);
	assert_int_equal(e[12], 0x04);
	assert_int_equal(e[13], 0x44);
	sh_teardown(h);
}

/* 20 results are kept, the newest first. */
static void test_log_wraps(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .blocks = 64};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t b[512];

	(void)state;
	for (int i = 0; i < 21; i++) {
		senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
		sh_expect_good(&r);
	}
	senddiag(h->p1, ST_FG_SHORT, NULL, 0, &r);
	sh_expect_good(&r);
	st_log(h, b);
	expect_entry(b, 1, 5, 0);
	for (unsigned n = 2; n <= 20; n++) {
		expect_entry(b, n, 0, 0);
		assert_int_equal(get_be64(entry(b, n) + 4), UINT64_MAX);
	}
	sh_teardown(h);
}

/* CDB and parameter list checks (field pointers), the page list, a
 * stopped unit, reservations. */
static void test_fields(void **state)
{
	struct sh *h = sh_setup(&opts);
	struct loop_result r;
	uint8_t c[6], list[8] = {0};

	(void)state;
	/* SELFTEST=1 with a SELF-TEST CODE; reserved codes 011b, 111b */
	senddiag(h->p1, ST_DEFAULT | ST_BG_SHORT, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);
	senddiag(h->p1, 3 << 5, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 7);
	senddiag(h->p1, 7 << 5, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	/* a self-test takes no parameter list */
	senddiag(h->p1, ST_DEFAULT, list, 4, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 3, -1);
	senddiag(h->p1, ST_BG_SHORT | PF, list, 4, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 3, -1);
	/* reserved bit 3 of byte 1, byte 2 */
	senddiag(h->p1, 0x08, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 3);
	memcpy(c, (uint8_t[6]){0x1d, ST_DEFAULT, 1, 0, 0, 0}, 6);
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 2, 0);
	/* no list, SELFTEST=0: nothing to do */
	senddiag(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	/* PF=0: a vendor specific list */
	senddiag(h->p1, 0, list, 4, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 4);
	/* page 00h, twice; 01h and a page length are refused */
	senddiag(h->p1, PF, list, 8, &r);
	sh_expect_good(&r);
	list[4] = 0x01;
	senddiag(h->p1, PF, list, 8, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 4, 7);
	list[4] = 0;
	list[3] = 4;
	senddiag(h->p1, PF, list, 8, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 2, -1);
	list[3] = 0;
	senddiag(h->p1, PF, list, 6, &r);
	SH_PARAM_LEN(&r);

	/* RECEIVE DIAGNOSTIC RESULTS: PCV=1 page 00h, PCV=0, other pages */
	{
		uint8_t d[16], want[5] = {0, 0, 0, 1, 0};

		memcpy(c, (uint8_t[6]){0x1c, 0x01, 0x00, 0, 16, 0}, 6);
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, 16, &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, 5);
		assert_memory_equal(d, want, 5);
		c[1] = 0;
		c[2] = 0x40; /* PCV=0: the page code is not looked at */
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, 16, &r);
		sh_expect_good(&r);
		assert_memory_equal(d, want, 5);
		c[1] = 0x01;
		c[2] = 0x80;
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, 16, &r);
		SH_INVALID_CDB(&r);
		sh_expect_fp(&r, true, 2, 7);
		c[1] = 0x03;
		c[2] = 0;
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, 16, &r);
		SH_INVALID_CDB(&r);
		sh_expect_fp(&r, true, 1, 1);
		/* ALLOCATION LENGTH 2 */
		memcpy(c, (uint8_t[6]){0x1c, 0x01, 0x00, 0, 2, 0}, 6);
		sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, 2, &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, 2);
	}

	/* a stopped unit: no self-test (a read would fail the same way) */
	memcpy(c, (uint8_t[6]){0x1b, 0, 0, 0, 0x00, 0}, 6);
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
	sh_expect(&r, 0x02, 0x04, 0x02);
	senddiag(h->p1, PF, list, 4, &r);
	sh_expect_good(&r);
	c[4] = 0x01;
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);

	/* SPC-2 RESERVE of p1: p2's SEND DIAGNOSTIC and RECEIVE DIAGNOSTIC
	 * RESULTS conflict, p1's run */
	memcpy(c, (uint8_t[6]){0x16, 0, 0, 0, 0, 0}, 6);
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	senddiag(h->p2, ST_DEFAULT, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_RESERVATION_CONFLICT);
	{
		uint8_t d[8], rdr[6] = {0x1c, 0x01, 0, 0, 8, 0};

		sh_cmd(h->p2, 0, rdr, 6, SCSI_DIR_READ, d, 8, &r);
		assert_int_equal(r.status, SAM_STAT_RESERVATION_CONFLICT);
	}
	senddiag(h->p1, ST_DEFAULT, NULL, 0, &r);
	sh_expect_good(&r);
	c[0] = 0x17;
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default),    cmocka_unit_test(test_foreground),
	    cmocka_unit_test(test_background), cmocka_unit_test(test_abort),
	    cmocka_unit_test(test_abort_task), cmocka_unit_test(test_failure),
	    cmocka_unit_test(test_log_wraps),  cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
