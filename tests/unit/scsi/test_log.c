/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_log.c: LOG SENSE and LOG SELECT (log.c): the supported pages, the
 * error counters, temperature and informational exceptions, logical block
 * provisioning, start-stop cycles, the empty self-test results page.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (2048 x 512)
 *   p2 "iqn.test:b" --/                                               */
#include <errno.h>

#include "common_setup.h"

static uint8_t log_sense(struct harness *h, uint8_t flags, uint8_t pc, uint8_t page, uint8_t sub,
			 uint16_t ptr, uint8_t *buf, uint16_t alloc, struct loop_result *r)
{
	uint8_t cdb[10] = {0x4d, flags, (uint8_t)(pc << 6 | page), sub, 0, 0, 0, 0, 0, 0};

	put_be16(cdb + 5, ptr);
	put_be16(cdb + 7, alloc);
	return h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, alloc, r);
}

static uint8_t log_select(struct harness *h, uint8_t flags, uint8_t pc, uint8_t page, uint8_t *data,
			  uint16_t len, struct loop_result *r)
{
	uint8_t cdb[10] = {0x4c, flags, (uint8_t)(pc << 6 | page), 0, 0, 0, 0, 0, 0, 0};

	put_be16(cdb + 7, len);
	return h_cmd(h->p1, 0, cdb, 10, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, data, len, r);
}

/* the value of parameter code in a counter page, or -1 if absent */
static int64_t param(const uint8_t *buf, uint16_t code)
{
	size_t end = 4 + get_be16(buf + 2);

	for (size_t off = 4; off + 4 <= end; off += 4 + buf[off + 3])
		if (get_be16(buf + off) == code)
			return (int64_t)get_be64(buf + off + 4);
	return -1;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* SPC-4 4.5.2.4.2: SKSV, C/D 1 and the bit pointer, then the byte */
static void expect_cdb_field(const struct loop_result *r, uint8_t bitp, uint16_t byte)
{
	h_expect_sense(r, 0x5, 0x24, 0x00);
	assert_int_equal(r->sense[15], 0x80 | 0x40 | 0x08 | bitp);
	assert_int_equal(get_be16(r->sense + 16), byte);
}

static void test_supported_pages(void **state)
{
	struct harness *h = *state;
	static const uint8_t pages[] = {0x00, 0x02, 0x03, 0x05, 0x06, 0x0d, 0x0e, 0x10, 0x2f};
	static const uint8_t subpages[] = {0x00, 0x00, 0x00, 0xff, 0x02, 0x00, 0x03,
					   0x00, 0x05, 0x00, 0x06, 0x00, 0x0d, 0x00,
					   0x0e, 0x00, 0x10, 0x00, 0x2f, 0x00};
	uint8_t buf[256];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x00, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x00);
	assert_int_equal(buf[1], 0x00);
	assert_int_equal(get_be16(buf + 2), sizeof(pages));
	assert_memory_equal(buf + 4, pages, sizeof(pages));
	assert_int_equal(r.data_in_len, 4 + sizeof(pages));

	assert_int_equal(log_sense(h, 0, 1, 0x00, 0xff, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x40); /* SPF */
	assert_int_equal(buf[1], 0xff);
	assert_int_equal(get_be16(buf + 2), sizeof(subpages));
	assert_memory_equal(buf + 4, subpages, sizeof(subpages));

	/* ALLOCATION LENGTH truncates */
	assert_int_equal(log_sense(h, 0, 1, 0x00, 0x00, 0, buf, 6, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 6);
	assert_int_equal(get_be16(buf + 2), sizeof(pages));
}

static void test_refused_fields(void **state)
{
	struct harness *h = *state;
	uint8_t buf[256];
	struct loop_result r;

	/* unsupported page: the pointer at PAGE CODE */
	log_sense(h, 0, 1, 0x07, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 5, 2);
	log_sense(h, 0, 1, 0x30, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 5, 2);
	/* a supported page with an unsupported subpage: at SUBPAGE CODE */
	log_sense(h, 0, 1, 0x02, 0x01, 0, buf, 256, &r);
	expect_cdb_field(&r, 7, 3);
	log_sense(h, 0, 1, 0x0d, 0xff, 0, buf, 256, &r);
	expect_cdb_field(&r, 7, 3);
	/* PPC=1, SP=1: outside the usage mask */
	log_sense(h, 0x02, 1, 0x03, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 1, 1);
	log_sense(h, 0x01, 1, 0x03, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 0, 1);
	/* thresholds: no page keeps them */
	log_sense(h, 0, 0, 0x03, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 7, 2);
	log_sense(h, 0, 2, 0x02, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 7, 2);
	/* PARAMETER POINTER above the largest parameter code */
	log_sense(h, 0, 1, 0x03, 0x00, 0x0007, buf, 256, &r);
	expect_cdb_field(&r, 7, 5);
	log_sense(h, 0, 1, 0x00, 0x00, 0x0001, buf, 256, &r);
	expect_cdb_field(&r, 7, 5);
}

static void test_error_counters(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], data[4 * H_BS], buf[256];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x80 | 0x03); /* DS: not saveable */
	assert_int_equal(get_be16(buf + 2), 24);
	assert_int_equal(param(buf, 0x0005), 0);
	assert_int_equal(param(buf, 0x0006), 0);
	assert_int_equal(param(buf, 0x0000), -1); /* nothing is corrected */

	memset(data, 0xa5, sizeof(data));
	h_cdb_rw10(cdb, 0x2a, 0, 4);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, data, sizeof(data), &r),
			 SAM_STAT_GOOD);
	h_cdb_rw10(cdb, 0x28, 0, 2);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, data, 2 * H_BS, &r),
			 SAM_STAT_GOOD);
	/* a medium error of the back-store: uncorrected */
	fake_bs_fail_next(h->bs, -EIO);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, data, 2 * H_BS, &r);
	h_expect_sense(&r, 0x3, 0x11, 0x00);

	log_sense(h, 0, 1, 0x02, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 4 * H_BS);
	assert_int_equal(param(buf, 0x0006), 0);
	log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 2 * H_BS);
	assert_int_equal(param(buf, 0x0006), 1);
	/* PC 11b: the default cumulative values */
	log_sense(h, 0, 3, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 0);
	assert_int_equal(param(buf, 0x0006), 0);
	/* PARAMETER POINTER 0006h: from that parameter on */
	log_sense(h, 0, 1, 0x03, 0x00, 0x0006, buf, 256, &r);
	assert_int_equal(get_be16(buf + 2), 12);
	assert_int_equal(param(buf, 0x0006), 1);

	/* VERIFY(10) BYTCHK 0 reads 4 blocks back; its medium error is a
	 * verify error, not a read error */
	h_cdb_rw10(cdb, 0x2f, 0, 4);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	fake_bs_fail_next(h->bs, -EIO);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x3, 0x11, 0x00);
	log_sense(h, 0, 1, 0x05, 0x00, 0, buf, 256, &r);
	assert_int_equal(buf[0], 0x80 | 0x05);
	assert_int_equal(param(buf, 0x0005), 4 * H_BS);
	assert_int_equal(param(buf, 0x0006), 1);
	log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0006), 1);

	/* LOG SELECT PCR=1 of page 02h resets the write counters only */
	assert_int_equal(log_select(h, 0x02, 1, 0x02, NULL, 0, &r), SAM_STAT_GOOD);
	log_sense(h, 0, 1, 0x02, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 0);
	log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 2 * H_BS);
	/* page 00h: every page */
	assert_int_equal(log_select(h, 0x02, 1, 0, NULL, 0, &r), SAM_STAT_GOOD);
	log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 0);
	assert_int_equal(param(buf, 0x0006), 0);
	log_sense(h, 0, 1, 0x02, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 0);
	log_sense(h, 0, 1, 0x05, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0005), 0);
	assert_int_equal(param(buf, 0x0006), 0);
}

/* SPC-4 7.3 non-medium error log page: back-store errors that are not
 * medium errors count; out of space and medium errors do not */
static void test_non_medium_errors(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], data[2 * H_BS], buf[256];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x06, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x80 | 0x06);
	assert_int_equal(get_be16(buf + 2), 12);
	assert_int_equal(param(buf, 0x0000), 0);

	h_cdb_rw10(cdb, 0x28, 0, 2);
	fake_bs_fail_next(h->bs, -ENODEV); /* the back-store is gone */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, data, sizeof(data), &r);
	h_expect_sense(&r, 0x4, 0x08, 0x00);
	fake_bs_fail_next(h->bs, -EINVAL); /* a failure it cannot name */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, data, sizeof(data), &r);
	h_expect_sense(&r, 0x4, 0x44, 0x00);
	fake_bs_fail_next(h->bs, -EIO); /* a medium error: page 03h */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, data, sizeof(data), &r);
	h_expect_sense(&r, 0x3, 0x11, 0x00);
	h_cdb_rw10(cdb, 0x2a, 0, 2);
	fake_bs_fail_next(h->bs, -ENOSPC); /* out of space: a condition */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, data, sizeof(data), &r);
	h_expect_sense(&r, 0x7, 0x27, 0x07);

	log_sense(h, 0, 1, 0x06, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0000), 2);
	log_sense(h, 0, 3, 0x06, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0000), 0);
	log_sense(h, 0, 1, 0x06, 0x00, 0x0001, buf, 256, &r);
	expect_cdb_field(&r, 7, 5);
	/* LOG SELECT PCR=1 of page 06h resets it, not the read counters */
	assert_int_equal(log_select(h, 0x02, 1, 0x06, NULL, 0, &r), SAM_STAT_GOOD);
	log_sense(h, 0, 1, 0x06, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0000), 0);
	log_sense(h, 0, 1, 0x03, 0x00, 0, buf, 256, &r);
	assert_int_equal(param(buf, 0x0006), 1);
}

static void test_temperature_and_ie(void **state)
{
	struct harness *h = *state;
	static const uint8_t temp[] = {0x8d, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x23, 0x02,
				       0x00, 0xff, 0x00, 0x01, 0x23, 0x02, 0x00, 0xff};
	static const uint8_t ie[] = {0xaf, 0x00, 0x00, 0x07, 0x00, 0x00,
				     0x23, 0x03, 0x00, 0x00, 0xff};
	uint8_t buf[256];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x0d, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(temp));
	assert_memory_equal(buf, temp, sizeof(temp));
	/* list parameters: PC does not apply */
	assert_int_equal(log_sense(h, 0, 0, 0x0d, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_memory_equal(buf, temp, sizeof(temp));
	/* PARAMETER POINTER 0001h: REFERENCE TEMPERATURE only */
	assert_int_equal(log_sense(h, 0, 1, 0x0d, 0x00, 1, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 6);
	assert_memory_equal(buf + 4, temp + 10, 6);
	assert_int_equal(log_sense(h, 0, 1, 0x2f, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(ie));
	assert_memory_equal(buf, ie, sizeof(ie));
}

static void test_select(void **state)
{
	struct harness *h = *state;
	uint8_t list[16] = {0x02, 0x00, 0x00, 0x0c, 0x00, 0x05, 0x20, 0x08};
	uint8_t cdb[10] = {0x4c, 0x01, 0x40, 0, 0, 0, 0, 0, 0, 0};
	struct loop_result r;

	/* zero length, PCR=0: nothing to do */
	assert_int_equal(log_select(h, 0, 1, 0, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(log_select(h, 0, 3, 0x03, NULL, 0, &r), SAM_STAT_GOOD);
	/* zero length naming an unsupported page or subpage */
	log_select(h, 0, 1, 0x07, NULL, 0, &r);
	expect_cdb_field(&r, 5, 2);
	uint8_t cdb_sub[10] = {0x4c, 0x02, 0x43, 0x01, 0, 0, 0, 0, 0, 0};
	h_cmd(h->p1, 0, cdb_sub, 10, SCSI_DIR_NONE, NULL, 0, &r);
	expect_cdb_field(&r, 7, 3);
	/* SP=1: nothing is saveable */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_NONE, NULL, 0, &r);
	expect_cdb_field(&r, 0, 1);
	/* PCR=1 with a parameter list */
	log_select(h, 0x02, 1, 0, list, sizeof(list), &r);
	expect_cdb_field(&r, 7, 7);
	/* a parameter list names the page itself: PAGE CODE in the CDB 0 */
	log_select(h, 0, 1, 0x02, list, sizeof(list), &r);
	expect_cdb_field(&r, 5, 2);
	/* no page can be changed */
	log_select(h, 0, 1, 0, list, sizeof(list), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(r.sense[15], 0x80 | 0x08 | 5);
	assert_int_equal(get_be16(r.sense + 16), 0);
	/* shorter than a page header */
	log_select(h, 0, 1, 0, list, 2, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
}

static int setup_thin(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct scsi_lu_attrs a = h_attrs();

	a.thin = true;
	h_setup_attrs(h, &a);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static void test_provisioning(void **state)
{
	struct harness *h = *state;
	static const uint8_t pages[] = {0x00, 0x02, 0x03, 0x05, 0x06, 0x0c, 0x0d, 0x0e, 0x10, 0x2f};
	uint8_t buf[256];
	struct loop_result r;

	/* a back-store that cannot tell its space: no page 0Ch */
	log_sense(h, 0, 1, 0x0c, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 5, 2);

	/* 300 MiB allocated, 1000 MiB free in a shared file system; the
	 * counts are in threshold sets of 1 MiB (THRESHOLD EXPONENT, VPD B2) */
	fake_bs_set_space(h->bs, 300ull << 20, 1000ull << 20);
	assert_int_equal(log_sense(h, 0, 1, 0x00, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be16(buf + 2), sizeof(pages));
	assert_memory_equal(buf + 4, pages, sizeof(pages));
	assert_int_equal(log_sense(h, 0, 1, 0x0c, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x80 | 0x0c);
	assert_int_equal(get_be16(buf + 2), 24);
	/* AVAILABLE LBA MAPPING RESOURCE COUNT, SCOPE 10b (shared) */
	assert_int_equal(get_be16(buf + 4), 0x0001);
	assert_int_equal(buf[7], 8);
	assert_int_equal(get_be32(buf + 8), 1000);
	assert_int_equal(buf[12] & 0x03, 0x02);
	/* USED LBA MAPPING RESOURCE COUNT, SCOPE 01b (dedicated) */
	assert_int_equal(get_be16(buf + 16), 0x0002);
	assert_int_equal(get_be32(buf + 20), 300);
	assert_int_equal(buf[24] & 0x03, 0x01);
	/* PARAMETER POINTER 0002h */
	assert_int_equal(log_sense(h, 0, 1, 0x0c, 0x00, 2, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be16(buf + 2), 12);
	assert_int_equal(get_be16(buf + 4), 0x0002);
	log_sense(h, 0, 1, 0x0c, 0x00, 3, buf, 256, &r);
	expect_cdb_field(&r, 7, 5);
}

/* SBC-4 Start-Stop Cycle Counter (0Eh): ACCUMULATED START-STOP CYCLES
 * counts a stopped unit started; ACCUMULATED LOAD-UNLOAD CYCLES stays 0
 * (the LU is not removable). */
static void test_start_stop_cycles(void **state)
{
	struct harness *h = *state;
	static const uint8_t zero[] = {0x8e, 0x00, 0x00, 0x10, 0x00, 0x04, 0x23, 0x04, 0x00, 0x00,
				       0x00, 0x00, 0x00, 0x06, 0x23, 0x04, 0x00, 0x00, 0x00, 0x00};
	uint8_t ssu[6] = {0x1b, 0, 0, 0, 0, 0}, buf[256];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x0e, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(zero));
	assert_memory_equal(buf, zero, sizeof(zero));
	/* start a started unit: no cycle; stop, start: one; stop, stop,
	 * start: two */
	ssu[4] = 0x01;
	assert_int_equal(h_cmd(h->p1, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	for (int i = 0; i < 2; i++) {
		ssu[4] = 0x00;
		assert_int_equal(h_cmd(h->p1, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r),
				 SAM_STAT_GOOD);
		if (i)
			assert_int_equal(h_cmd(h->p1, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r),
					 SAM_STAT_GOOD);
		ssu[4] = 0x01;
		assert_int_equal(h_cmd(h->p1, 0, ssu, 6, SCSI_DIR_NONE, NULL, 0, &r),
				 SAM_STAT_GOOD);
	}
	assert_int_equal(log_sense(h, 0, 1, 0x0e, 0x00, 0, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be16(buf + 4), 0x0004);
	assert_int_equal(get_be32(buf + 8), 2);
	assert_int_equal(get_be32(buf + 16), 0);
	/* PARAMETER POINTER 0005h: load-unload cycles only; 0007h: too far */
	assert_int_equal(log_sense(h, 0, 1, 0x0e, 0x00, 5, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 8);
	assert_int_equal(get_be16(buf + 4), 0x0006);
	log_sense(h, 0, 1, 0x0e, 0x00, 7, buf, 256, &r);
	expect_cdb_field(&r, 7, 5);
}

/* SPC-4 7.3.18 Self-Test Results (10h) before any self-test: 20 parameters
 * of 16 zero bytes, binary list (TSD: not saved). The results themselves:
 * tests/unit/sbc/test_diag.c. */
static void test_selftest_results_empty(void **state)
{
	struct harness *h = *state;
	uint8_t buf[512];
	struct loop_result r;

	assert_int_equal(log_sense(h, 0, 1, 0x10, 0x00, 0, buf, 512, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 20 * 20);
	assert_int_equal(buf[0], 0x80 | 0x10);
	assert_int_equal(get_be16(buf + 2), 20 * 20);
	for (unsigned i = 0; i < 20; i++) {
		const uint8_t *p = buf + 4 + 20 * i;

		assert_int_equal(get_be16(p), i + 1);
		assert_int_equal(p[2], 0x23);
		assert_int_equal(p[3], 0x10);
		assert_true(all_zero(p + 4, 16));
	}
	/* PARAMETER POINTER 0014h: the last one; 0015h: too far */
	assert_int_equal(log_sense(h, 0, 1, 0x10, 0x00, 20, buf, 512, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 20);
	assert_int_equal(get_be16(buf + 4), 20);
	log_sense(h, 0, 1, 0x10, 0x00, 21, buf, 512, &r);
	expect_cdb_field(&r, 7, 5);
}

static void test_provisioning_thick(void **state)
{
	struct harness *h = *state;
	uint8_t buf[256];
	struct loop_result r;

	/* a fully provisioned LU has no logical block provisioning page */
	fake_bs_set_space(h->bs, 300 * H_BS, 1000 * H_BS);
	log_sense(h, 0, 1, 0x0c, 0x00, 0, buf, 256, &r);
	expect_cdb_field(&r, 5, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_supported_pages, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_fields, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_error_counters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_non_medium_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_temperature_and_ie, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_provisioning, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_provisioning_thick, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start_stop_cycles, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_selftest_results_empty, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
