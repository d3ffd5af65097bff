/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_spc.c: INQUIRY, TEST UNIT READY, REQUEST SENSE, REPORT LUNS, REPORT
 * SUPPORTED OPERATION CODES and REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS
 * (spc.c) through the loop fabric.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu, LUN 300: lu2 (added by tests)
 *   p2 "iqn.test:b" --/                                               */
#include "common_setup.h"

#include "scsi/core.h"

static void test_inquiry_standard(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[6] = {0x12, 0, 0, 0, 255, 0}, buf[255];
	struct loop_result r;

	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 96);
	assert_int_equal(buf[0], 0x00);
	assert_int_equal(buf[2], 0x06);
	assert_int_equal(buf[3], 0x32); /* NORMACA HISUP, format 2 */
	assert_int_equal(buf[4], 91);
	assert_int_equal(buf[7] & 0x02, 0x02);
	assert_memory_equal(buf + 8, "UTARGET TEST DISK       0001", 28);
	assert_int_equal(get_be16(buf + 58), 0x00a0);
	assert_int_equal(get_be16(buf + 62), 0x0460);
	/* truncation to the allocation length; EVPD 0 with a page code */
	cdb[4] = 5;
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, 5, &r);
	assert_int_equal(r.data_in_len, 5);
	cdb[4] = 255;
	cdb[2] = 0x80;
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* unsupported VPD page */
	cdb[1] = 1;
	cdb[2] = 0xc7;
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

static void test_inquiry_ignores_ua(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[6] = {0x12, 0, 0, 0, 36, 0}, buf[36];
	struct loop_port *p3 = loop_create(h->t, 3, "iqn.test:c");
	struct loop_result r;

	assert_int_equal(h_cmd(p3, 0, cdb, 6, SCSI_DIR_READ, buf, 36, &r), SAM_STAT_GOOD);
	/* the UA is still there for the next command */
	h_tur(p3, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x00);
	loop_destroy(p3);
}

static void test_request_sense(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[6] = {0x03, 0, 0, 0, 252, 0}, buf[252];
	struct loop_port *p3 = loop_create(h->t, 3, "iqn.test:c");
	struct loop_result r;

	/* returns and clears the pending UA, with GOOD status */
	h_cmd(p3, 0, cdb, 6, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 18);
	assert_int_equal(buf[0], 0x70);
	assert_int_equal(buf[2], 0x06);
	assert_int_equal(buf[12], 0x29);
	assert_int_equal(h_tur(p3, &r), SAM_STAT_GOOD);
	/* nothing pending: NO SENSE; DESC=1: descriptor format */
	cdb[1] = 1;
	h_cmd(p3, 0, cdb, 6, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 8);
	assert_int_equal(buf[0], 0x72);
	assert_int_equal(buf[1], 0x00);
	/* unmapped LUN: LOGICAL UNIT NOT SUPPORTED as sense data */
	cdb[1] = 0;
	h_cmd(p3, lun_encode(44), cdb, 6, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[2], 0x05);
	assert_int_equal(buf[12], 0x25);
	loop_destroy(p3);
}

static void test_report_luns(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[12] = {0xa0}, buf[256];
	struct loop_result r;

	put_be32(cdb + 6, sizeof(buf));
	assert_int_equal(scsi_lun_map_add(h->map, 300, h->lu, false), 0);
	/* the map change raised REPORTED LUNS DATA HAS CHANGED ... */
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x3f, 0x0e);
	h_cmd(h->p2, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf), 16);
	assert_int_equal(get_be64(buf + 8), 0);
	/* LUN 300: flat space addressing */
	assert_int_equal(get_be64(buf + 16), 0x412c000000000000ull);
	/* ... which REPORT LUNS cleared for p2 */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
	/* well known LUs only, and all */
	cdb[2] = 1;
	h_cmd(h->p2, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(get_be32(buf), 8);
	assert_int_equal(get_be64(buf + 8), LUN_WLUN_REPORT_LUNS);
	cdb[2] = 2;
	h_cmd(h->p2, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(get_be32(buf), 24);
	cdb[2] = 3;
	h_cmd(h->p2, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* addressed to the REPORT LUNS well known LU */
	cdb[2] = 0;
	h_cmd(h->p2, LUN_WLUN_REPORT_LUNS, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p2, LUN_WLUN_REPORT_LUNS, (const uint8_t[6]){0}, 6, SCSI_DIR_NONE,
			       NULL, 0, &r),
			 SAM_STAT_GOOD);
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
	h_cmd(h->p2, LUN_WLUN_REPORT_LUNS, inq, 6, SCSI_DIR_READ, buf, 36, &r);
	assert_int_equal(buf[0], 0x1e);
	assert_int_equal(scsi_lun_map_del(h->map, 300), 0);
}

static void test_rsoc_all_and_one(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[12] = {0xa3, 0x0c}, buf[8192];
	struct loop_result r;
	uint32_t len;
	bool saw_inquiry = false, saw_rsoc = false;

	put_be32(cdb + 6, sizeof(buf));
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	len = get_be32(buf);
	assert_int_equal(len % 8, 0);
	for (uint32_t off = 4; off < 4 + len; off += 8) {
		const uint8_t *d = buf + off;

		assert_int_equal(d[5] & 0x02, 0); /* no CTDP without RCTD */
		if (!(d[5] & 0x01))
			assert_int_equal(get_be16(d + 2), 0);
		if (d[0] == 0x12)
			saw_inquiry = true;
		if (d[0] == 0xa3 && get_be16(d + 2) == 0x0c && (d[5] & 1))
			saw_rsoc = true;
	}
	assert_true(saw_inquiry);
	assert_true(saw_rsoc);
	/* RCTD: 20-byte descriptors with a 0Ah timeouts descriptor */
	cdb[2] = 0x80;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(get_be32(buf) % 20, 0);
	assert_int_equal(buf[4 + 5] & 0x02, 0x02);
	assert_int_equal(get_be16(buf + 4 + 8), 0x0a);
	/* one command: INQUIRY */
	cdb[2] = 1;
	cdb[3] = 0x12;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[1] & 0x07, 0x03);
	assert_int_equal(get_be16(buf + 2), 6);
	/* CONTROL: NACA (SAM-5 5.2) */
	assert_memory_equal(buf + 4, ((const uint8_t[]){0x12, 0x01, 0xff, 0xff, 0xff, 0x04}), 6);
	/* option 1 on an opcode with service actions: INVALID FIELD IN CDB */
	cdb[3] = 0xa3;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* option 2: service action 0Ch of A3h, usage data shows the SA */
	cdb[2] = 2;
	put_be16(cdb + 4, 0x0c);
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[4], 0xa3);
	assert_int_equal(buf[5], 0x0c);
	/* option 2 on an opcode without service actions */
	cdb[3] = 0x12;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* unsupported opcode: SUPPORT 001b */
	cdb[2] = 1;
	cdb[3] = 0xff;
	put_be16(cdb + 4, 0);
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[1] & 0x07, 0x01);
	/* reserved reporting option */
	cdb[2] = 7;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

static void test_rstmf(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[12] = {0xa3, 0x0d}, buf[16];
	struct loop_port_opts opts = {0};
	struct loop_result r;
	struct loop_port *p3;

	put_be32(cdb + 6, sizeof(buf));
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4);
	/* ATS ATSS CACAS CTSS LURS QTS; no TRS: p1 may not reset the target */
	assert_int_equal(buf[0], 0xfc);
	assert_int_equal(buf[1], 0x07);
	/* TRS for an I_T nexus that may */
	opts.target_reset = true;
	p3 = loop_create_opts(h->t, 1, "iqn.test:c", &opts);
	assert_non_null(p3);
	h_clear_ua(p3, 0);
	h_cmd(p3, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0xfe);
	loop_destroy(p3);
	/* a transport without the query functions (iSCSI below protocol
	 * level 2): neither QTS nor QAES QTSS ITNRS */
	opts = (struct loop_port_opts){.no_query_tmfs = true};
	p3 = loop_create_opts(h->t, 1, "iqn.test:d", &opts);
	assert_non_null(p3);
	h_clear_ua(p3, 0);
	h_cmd(p3, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0xf8);
	assert_int_equal(buf[1], 0x00);
	loop_destroy(p3);
	cdb[2] = 0x80;
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.data_in_len, 16);
	assert_int_equal(buf[3], 0x0c);
	put_be32(cdb + 6, 3);
	h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_READ, buf, 3, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_inquiry_standard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inquiry_ignores_ua, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_request_sense, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_report_luns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rsoc_all_and_one, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rstmf, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
