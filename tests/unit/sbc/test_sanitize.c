/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sanitize.c: SANITIZE (sanitize.c): OVERWRITE (pattern, repeat,
 * INVERT), BLOCK ERASE (deallocate or zero), CRYPTOGRAPHIC ERASE refused,
 * EXIT FAILURE MODE and AUSE, parameter checks, the in-progress state seen
 * by other commands (NOT READY / SANITIZE IN PROGRESS with progress), IMMED,
 * an aborted or reset SANITIZE that carries on, and a failed one leaving
 * MEDIUM FORMAT CORRUPTED.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0 on the test back-store, 2 MiB). */
#include "sbc_harness.h"

#include <errno.h>
#include <pthread.h>

#include "lib/reactor.h"

#define SA_OVERWRITE	0x01
#define SA_BLOCK_ERASE	0x02
#define SA_CRYPTO_ERASE 0x03
#define SA_EXIT		0x1f
#define IMMED		0x80
#define AUSE		0x20

static const struct sh_opts thin_opts = {.caps = FSB_ALL_CAPS, .thin = true};
static const struct sh_opts thick_opts = {.caps = BS_CAP_FLUSH};

static void cdb_san(uint8_t *c, uint8_t b1, uint16_t len)
{
	memset(c, 0, 10);
	c[0] = 0x48;
	c[1] = b1;
	put_be16(c + 7, len);
}

/* OVERWRITE parameter list: byte 0 INVERT/TEST/COUNT, pattern of ipl bytes */
static uint32_t ow_list(uint8_t *b, uint8_t b0, const uint8_t *pat, uint16_t ipl)
{
	b[0] = b0;
	b[1] = 0;
	put_be16(b + 2, ipl);
	memcpy(b + 4, pat, ipl);
	return 4u + ipl;
}

static uint8_t sanitize(struct sh *h, struct loop_port *p, uint8_t b1, uint8_t *list, uint32_t len,
			struct loop_result *r)
{
	uint8_t c[10];

	cdb_san(c, b1, (uint16_t)len);
	return sh_cmd(p, 0, c, 10, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

static void expect_in_progress(const struct loop_result *r)
{
	sh_expect(r, 0x02, 0x04, 0x1b);
	/* SENSE KEY SPECIFIC: progress indication */
	assert_true(r->sense[15] & 0x80);
}

static void test_overwrite(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t b[4 + 512], pat[512], rb[512];

	(void)state;
	sh_fill(h, 0, 0, 256, 'a');
	memset(pat, 0xaa, sizeof(pat));
	/* one pass of a full-block pattern over the whole medium */
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 1, pat, 512), &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, (uint32_t)h->blocks, 0xaa));
	/* a 4-byte pattern repeats through each block; 3 passes */
	fsb_reset_counts(h->bs[0]);
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 3, (const uint8_t *)"abcd", 4), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 3 * 2); /* 2 MiB in 1 MiB chunks */
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	sh_read(h, h->p1, 0, h->blocks - 1, 1, rb, &r);
	for (int i = 0; i < 512; i++)
		assert_int_equal(rb[i], "abcd"[i % 4]);
	/* a pattern of half a block repeats too */
	for (int i = 0; i < 256; i++)
		pat[i] = (uint8_t)i;
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 1, pat, 256), &r);
	sh_expect_good(&r);
	sh_read(h, h->p1, 0, 7, 1, rb, &r);
	assert_memory_equal(rb, pat, 256);
	assert_memory_equal(rb + 256, pat, 256);
	sh_teardown(h);
}

/* INVERT: the passes alternate, the last one writes the pattern as given.
 * Two passes; the second fails, so the medium shows the first: inverted. */
static void test_overwrite_invert(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t b[4 + 512], pat[512];

	(void)state;
	memset(pat, 0x0f, sizeof(pat));
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 0x80 | 2, pat, 512), &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, (uint32_t)h->blocks, 0x0f));
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 0);
	fsb_fail_skip(h->bs[0], 2); /* the first pass's two chunks pass */
	sanitize(h, h->p1, SA_OVERWRITE | AUSE, b, ow_list(b, 0x80 | 2, pat, 512), &r);
	sh_expect(&r, 0x03, 0x31, 0x03); /* SANITIZE COMMAND FAILED */
	/* AUSE=1: EXIT FAILURE MODE gets the medium back */
	sanitize(h, h->p1, SA_EXIT, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, (uint32_t)h->blocks, 0xf0));
	sh_teardown(h);
}

static void test_block_erase(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	uint8_t c[16], d[64];

	(void)state;
	sh_fill(h, 0, 0, 256, 'a');
	sh_fill(h, 0, h->blocks - 256, 256, 'a');
	fsb_reset_counts(h->bs[0]);
	sanitize(h, h->p1, SA_BLOCK_ERASE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_true(fsb_count(h->bs[0], BS_OP_DISCARD) >= 1);
	assert_true(sh_blocks_are(h, 0, 0, 256, 0));
	assert_true(sh_blocks_are(h, 0, h->blocks - 256, 256, 0));
	/* every block deallocated: one GET LBA STATUS descriptor */
	cdb16(c, 0x9e, 0x12, 0, 256);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_int_equal(get_be32(d), 20);
	assert_int_equal(get_be32(d + 16), h->blocks);
	assert_int_equal(d[20] & 0x0f, 1);
	sh_teardown(h);

	/* fully provisioned without WRITE_ZEROES: zeroes are written */
	h = sh_setup(&thick_opts);
	sh_fill(h, 0, 100, 10, 'z');
	sanitize(h, h->p1, SA_BLOCK_ERASE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_DISCARD), 0);
	assert_true(sh_blocks_are(h, 0, 100, 10, 0));
	sh_teardown(h);
}

static void test_fields(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t b[4 + 520] = {0}, pat[520], c[10];

	(void)state;
	memset(pat, 1, sizeof(pat));
	/* CRYPTOGRAPHIC ERASE and the other service actions: not supported */
	for (uint8_t sa = 0; sa < 0x1f; sa++) {
		if (sa == SA_OVERWRITE || sa == SA_BLOCK_ERASE)
			continue;
		sanitize(h, h->p1, sa, NULL, 0, &r);
		SH_INVALID_CDB(&r);
		sh_expect_fp(&r, true, 1, 4);
	}
	/* reserved bit in byte 1, reserved bytes 2-6 */
	sanitize(h, h->p1, 0x40 | SA_BLOCK_ERASE, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	for (int i = 2; i < 7; i++) {
		cdb_san(c, SA_BLOCK_ERASE, 0);
		c[i] = (uint8_t)i;
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
		SH_INVALID_CDB(&r);
	}
	/* no parameter list for BLOCK ERASE and EXIT FAILURE MODE */
	sanitize(h, h->p1, SA_BLOCK_ERASE, b, 8, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 7, -1);
	sanitize(h, h->p1, SA_EXIT, b, 8, &r);
	SH_INVALID_CDB(&r);
	/* OVERWRITE: 5 .. block size + 4 bytes */
	for (uint32_t l = 0; l < 5; l++) {
		sanitize(h, h->p1, SA_OVERWRITE, b, l, &r);
		SH_INVALID_CDB(&r);
	}
	sanitize(h, h->p1, SA_OVERWRITE, b, 512 + 5, &r);
	SH_INVALID_CDB(&r);
	/* OVERWRITE COUNT 0, INITIALIZATION PATTERN LENGTH 0 or too long or
	 * not the list's, TEST, reserved byte 1 */
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 0, pat, 512), &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 0, 4);
	ow_list(b, 1, pat, 512);
	put_be16(b + 2, 0);
	sanitize(h, h->p1, SA_OVERWRITE, b, 4 + 512, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 2, -1);
	put_be16(b + 2, 512 + 4);
	sanitize(h, h->p1, SA_OVERWRITE, b, 4 + 512, &r);
	SH_INVALID_PARAM(&r);
	put_be16(b + 2, 100);
	sanitize(h, h->p1, SA_OVERWRITE, b, 4 + 512, &r);
	SH_INVALID_PARAM(&r);
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 0x21, pat, 512), &r);
	SH_INVALID_PARAM(&r);
	ow_list(b, 1, pat, 512);
	b[1] = 1;
	sanitize(h, h->p1, SA_OVERWRITE, b, 4 + 512, &r);
	SH_INVALID_PARAM(&r);
	/* EXIT FAILURE MODE with no failure: nothing to do */
	sanitize(h, h->p1, SA_EXIT, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);

	{
		struct sh_opts o = {.caps = BS_CAP_FLUSH, .read_only = true};

		h = sh_setup(&o);
		sanitize(h, h->p1, SA_BLOCK_ERASE, NULL, 0, &r);
		SH_WRITE_PROTECTED(&r);
		sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 1, pat, 512), &r);
		SH_WRITE_PROTECTED(&r);
		sh_teardown(h);
	}
}

/* SBC-4 4.11: while it runs, other commands get NOT READY / SANITIZE IN
 * PROGRESS, INQUIRY still works; IMMED=1 returns at once. */
static void test_in_progress_immed(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0}, d[36], buf[512];

	(void)state;
	fsb_hold(h->bs[0], true);
	sanitize(h, h->p1, IMMED | SA_BLOCK_ERASE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	{
		static const uint8_t tur[6] = {0};

		sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
		expect_in_progress(&r);
	}
	sh_read(h, h->p1, 0, 0, 1, buf, &r);
	expect_in_progress(&r);
	sh_write(h, h->p2, 0, 0, 1, buf, &r);
	expect_in_progress(&r);
	/* a second SANITIZE too */
	sanitize(h, h->p2, SA_BLOCK_ERASE, NULL, 0, &r);
	expect_in_progress(&r);
	sh_cmd(h->p2, 0, inq, 6, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	for (int i = 0; i < 200; i++) {
		static const uint8_t tur[6] = {0};

		if (sh_cmd(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r) == SAM_STAT_GOOD)
			break;
		usleep(5000);
	}
	sh_expect_good(&r);
	sh_read(h, h->p1, 0, 0, 1, buf, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* The progress indication moves as the medium is overwritten. */
static void test_progress(void **state)
{
	struct sh *h = sh_setup(&thick_opts);
	struct loop_result r;
	uint8_t b[4 + 512], pat[512];
	static const uint8_t tur[6] = {0};
	uint16_t p0, p1;

	(void)state;
	memset(pat, 3, sizeof(pat));
	fsb_hold(h->bs[0], true);
	sanitize(h, h->p1, IMMED | SA_OVERWRITE, b, ow_list(b, 2, pat, 512), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	p0 = get_be16(r.sense + 16);
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	p1 = get_be16(r.sense + 16);
	assert_true(p1 > p0);
	assert_true(p1 >= 0x7fff - 1 && p1 <= 0x8000); /* 2 of 4 chunks */
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	for (int i = 0; i < 200 && sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r); i++)
		usleep(5000);
	sh_expect_good(&r);
	sh_teardown(h);
}

struct tmf_arg {
	struct loop_port *lp;
	uint8_t func;
	uint64_t tag;
	int resp;
};

static void *tmf_thread(void *a)
{
	struct tmf_arg *t = a;

	t->resp = loop_tmf(t->lp, t->func, 0, t->tag);
	return NULL;
}

/* IMMED=0: the command waits for the operation; ABORT TASK ends the command
 * but not the operation (SBC-4 4.11.1), and neither does a LU reset. */
static void test_abort_and_reset(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	static const uint8_t tur[6] = {0};
	uint8_t c[10];
	struct loop_task *t;
	struct tmf_arg ta = {.func = SCSI_TMF_ABORT_TASK, .tag = 77};
	pthread_t th;

	(void)state;
	sh_fill(h, 0, 0, 8, 'k');
	fsb_hold(h->bs[0], true);
	cdb_san(c, SA_BLOCK_ERASE, 0);
	t = loop_submit_async(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, 77, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	assert_false(loop_task_done(t));
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	ta.lp = h->p1;
	assert_int_equal(pthread_create(&th, NULL, tmf_thread, &ta), 0);
	sh_settle();
	/* the abort is seen at the next step of the operation */
	fsb_release(h->bs[0]);
	pthread_join(th, NULL);
	assert_int_equal(ta.resp, SCSI_TMF_RESP_COMPLETE);
	loop_wait(t, &r);
	assert_true(r.no_response);
	/* still running */
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	/* a LU reset does not stop it either */
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	sh_clear_ua(h->p2, 0);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	expect_in_progress(&r);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	for (int i = 0; i < 200; i++) {
		sh_cmd(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
		if (r.status == SAM_STAT_GOOD)
			break;
		usleep(5000);
	}
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 8, 0));
	sh_teardown(h);
}

/* A failed sanitize in the restricted completion mode (AUSE=0): MEDIUM
 * FORMAT CORRUPTED for medium access; EXIT FAILURE MODE and a new
 * sanitize with AUSE=1 refused; a successful sanitize ends it. */
static void test_failure_restricted(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	static const uint8_t tur[6] = {0};
	uint8_t buf[512] = {0};

	(void)state;
	fsb_fail(h->bs[0], BS_OP_DISCARD, -EIO, 1, 0);
	sanitize(h, h->p1, SA_BLOCK_ERASE, NULL, 0, &r);
	sh_expect(&r, 0x03, 0x31, 0x03);
	sh_read(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect(&r, 0x03, 0x31, 0x00);
	sh_write(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect(&r, 0x03, 0x31, 0x00);
	sh_cmd(h->p2, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	sanitize(h, h->p1, SA_EXIT, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sanitize(h, h->p1, AUSE | SA_BLOCK_ERASE, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 5);
	sanitize(h, h->p1, SA_BLOCK_ERASE, NULL, 0, &r);
	sh_expect_good(&r);
	sh_read(h, h->p2, 0, 0, 1, buf, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* The data writes are paced (128 MiB/s): 64 MiB take at least 63/128 s
 * (the first chunk goes at once). */
static void test_pacing(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .blocks = 64 * 2048};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t b[4 + 512], pat[512];
	uint64_t t0;

	(void)state;
	memset(pat, 0x44, sizeof(pat));
	t0 = reactor_now_ns();
	sanitize(h, h->p1, SA_OVERWRITE, b, ow_list(b, 1, pat, 512), &r);
	sh_expect_good(&r);
	assert_true(reactor_now_ns() - t0 >= 63ull * 1000000000ull / 128);
	assert_true(sh_blocks_are(h, 0, 0, 2048, 0x44));
	assert_true(sh_blocks_are(h, 0, h->blocks - 2048, 2048, 0x44));
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overwrite),
		cmocka_unit_test(test_overwrite_invert),
		cmocka_unit_test(test_block_erase),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_in_progress_immed),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_abort_and_reset),
		cmocka_unit_test(test_failure_restricted),
		cmocka_unit_test(test_pacing),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
