/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mode.c: MODE SENSE(6)/(10) and MODE SELECT(6)/(10) (mode.c).
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (2048 x 512, WCE 1)
 *   p2 "iqn.test:b" --/                                               */
#include "common_setup.h"

static uint8_t sense6(struct harness *h, uint8_t dbd, uint8_t pc, uint8_t page, uint8_t sub,
		      uint8_t *buf, uint8_t alloc, struct loop_result *r)
{
	uint8_t cdb[6] = {0x1a, dbd ? 0x08 : 0, (uint8_t)(pc << 6 | page), sub, alloc, 0};

	return h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, alloc, r);
}

/* find page in a MODE SENSE(6) response */
static const uint8_t *find_page(const uint8_t *buf, size_t n, uint8_t code)
{
	size_t off = 4 + buf[3];

	while (off + 2 <= n) {
		if ((buf[off] & 0x3f) == code)
			return buf + off;
		off += 2 + buf[off + 1];
	}
	return NULL;
}

static void test_sense_all_pages(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255];
	struct loop_result r;

	sense6(h, 0, 0, 0x3f, 0, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, buf[0] + 1);
	assert_int_equal(buf[3], 8);
	assert_int_equal(get_be32(buf + 4), H_BLOCKS);
	assert_int_equal(get_be24(buf + 9), H_BS);
	assert_int_equal(buf[2], 0x10); /* DPOFUA, not WP */
	assert_non_null(find_page(buf, r.data_in_len, 0x01));
	assert_non_null(find_page(buf, r.data_in_len, 0x08));
	assert_non_null(find_page(buf, r.data_in_len, 0x0a));
	assert_non_null(find_page(buf, r.data_in_len, 0x1c));
	assert_int_equal(find_page(buf, r.data_in_len, 0x08)[2] & 0x04, 0x04); /* WCE */
	assert_non_null(find_page(buf, r.data_in_len, 0x02));
	assert_non_null(find_page(buf, r.data_in_len, 0x1a));
	/* 3Fh/00h: page_0 pages only, no Control Extension subpage */
	for (size_t off = 4 + buf[3]; off < r.data_in_len; off += 2 + buf[off + 1])
		assert_int_equal(buf[off] & 0x40, 0);
	/* no saved values without a state directory: PS 0 everywhere */
	for (size_t off = 4 + buf[3]; off < r.data_in_len; off += 2 + buf[off + 1])
		assert_int_equal(buf[off] & 0x80, 0);
	/* a subpage that does not exist, of a page or of all pages */
	sense6(h, 0, 0, 0x08, 0x01, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	sense6(h, 0, 0, 0x3f, 0x01, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* page 08h with subpage FFh: page 08h alone */
	sense6(h, 1, 0, 0x08, 0xff, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 20);
	/* unknown page */
	sense6(h, 0, 0, 0x19, 0, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* saved values */
	sense6(h, 0, 3, 0x3f, 0, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x39, 0x00);
	/* short allocation: header only, no overflow */
	sense6(h, 0, 0, 0x3f, 0, buf, 4, &r);
	assert_int_equal(r.data_in_len, 4);
	assert_int_not_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
}

/* SPC-4 6.13 table 254: 3Fh/FFh every page and subpage, 0Ah/FFh the
 * Control page and its Control Extension subpage, 0Ah/01h that one. */
static void test_sense_subpages(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255];
	const uint8_t *x;
	struct loop_result r;
	unsigned n = 0, subs = 0;

	sense6(h, 1, 0, 0x3f, 0xff, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	for (size_t off = 4; off < r.data_in_len; n++) {
		if (buf[off] & 0x40) {
			subs++;
			off += 4 + get_be16(buf + off + 2);
		} else {
			off += 2 + buf[off + 1];
		}
	}
	assert_int_equal(n, 7);
	assert_int_equal(subs, 1);
	sense6(h, 1, 0, 0x0a, 0xff, buf, 255, &r);
	assert_int_equal(r.data_in_len, 4 + 12 + 32);
	assert_int_equal(buf[4], 0x0a);
	x = buf + 4 + 12;
	assert_int_equal(x[0], 0x4a);
	assert_int_equal(x[1], 0x01);
	assert_int_equal(get_be16(x + 2), 0x1c);
	/* SPC-4 7.5.10: IALUAE 1 (implicit transitions happen), TCMOS and
	 * SCSIP 0, no priority, no sense length limit */
	assert_int_equal(x[4], 0x01);
	assert_int_equal(x[5], 0);
	assert_int_equal(x[6], 0);
	sense6(h, 1, 0, 0x0a, 0x01, buf, 255, &r);
	assert_int_equal(r.data_in_len, 4 + 32);
	assert_int_equal(buf[4], 0x4a);
	/* nothing of it can be changed */
	sense6(h, 1, 1, 0x0a, 0x01, buf, 255, &r);
	for (size_t b = 4 + 4; b < 4 + 32; b++)
		assert_int_equal(buf[b], 0);
}

/* Disconnect-Reconnect (02h): for iSCSI every field is 0 and fixed; Power
 * Condition (1Ah): no timer, nothing changeable, CCF fields 01b. */
static void test_sense_disconnect_and_power(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255];
	struct loop_result r;

	sense6(h, 1, 0, 0x02, 0, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4 + 16);
	assert_int_equal(buf[4], 0x02);
	assert_int_equal(buf[5], 0x0e);
	for (size_t b = 6; b < 20; b++)
		assert_int_equal(buf[b], 0);
	sense6(h, 1, 1, 0x02, 0, buf, 255, &r);
	for (size_t b = 6; b < 20; b++)
		assert_int_equal(buf[b], 0);
	sense6(h, 1, 0, 0x1a, 0, buf, 255, &r);
	assert_int_equal(r.data_in_len, 4 + 40);
	assert_int_equal(buf[4], 0x1a);
	assert_int_equal(buf[5], 0x26);
	for (size_t b = 6; b < 4 + 39; b++)
		assert_int_equal(buf[b], 0);
	assert_int_equal(buf[4 + 39], 0x54);
	sense6(h, 1, 1, 0x1a, 0, buf, 255, &r);
	for (size_t b = 6; b < 4 + 40; b++)
		assert_int_equal(buf[b], 0);
}

/* MODE SELECT of a subpage (SPF 1): the Control Extension page as read is
 * accepted, a change of a fixed field refused with its field pointer. */
static void test_select_subpage(void **state)
{
	struct harness *h = *state;
	uint8_t data[4 + 32] = {0}, buf[255];
	uint8_t cdb[6] = {0x15, 0x10, 0, 0, sizeof(data), 0};
	struct loop_result r;

	sense6(h, 1, 0, 0x0a, 0x01, buf, 255, &r);
	memcpy(data + 4, buf + 4, 32);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_WRITE, data, sizeof(data), &r),
			 SAM_STAT_GOOD);
	data[4 + 6] = 0x20; /* MAXIMUM SENSE DATA LENGTH */
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_WRITE, data, sizeof(data), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(get_be16(r.sense + 16), 4 + 6);
	/* a subpage that does not exist */
	data[4 + 6] = 0;
	data[4 + 1] = 0x02;
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_WRITE, data, sizeof(data), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	/* nothing was applied: no UA for p2 */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
}

static void test_sense10_llbaa_and_changeable(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10] = {0x5a, 0x10, 0x0a, 0, 0, 0, 0, 0, 255, 0}, buf[255];
	struct loop_result r;

	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[4] & 1, 1);
	assert_int_equal(get_be16(buf + 6), 16);
	assert_int_equal(get_be64(buf + 8), H_BLOCKS);
	assert_int_equal(get_be32(buf + 20), H_BS);
	assert_int_equal(buf[24], 0x0a);
	/* changeable control page: D_SENSE, SWP, TAS */
	cdb[1] = 0x08;
	cdb[2] = 0x40 | 0x0a;
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 255, &r);
	assert_int_equal(get_be16(buf + 6), 0);
	assert_int_equal(buf[8 + 2], 0x04);
	assert_int_equal(buf[8 + 4], 0x08);
	assert_int_equal(buf[8 + 5], 0x40);
}

static uint8_t select6(struct harness *h, struct loop_port *p, const uint8_t *page, size_t plen,
		       struct loop_result *r)
{
	uint8_t data[64] = {0};
	uint8_t cdb[6] = {0x15, 0x10, 0, 0, (uint8_t)(4 + plen), 0};

	memcpy(data + 4, page, plen);
	return h_cmd(p, 0, cdb, 6, SCSI_DIR_WRITE, data, (uint32_t)(4 + plen), r);
}

/* read, modify, write back: the Control page as MODE SENSE reports it,
 * EXTENDED SELF-TEST COMPLETION TIME (computed, 1 s here) included, is
 * accepted with SWP flipped, and the computed field stays computed */
static void test_select_read_modify_write(void **state)
{
	struct harness *h = *state;
	uint8_t cdb6[6] = {0x1a, 0x08, 0x0a, 0, 255, 0}, buf[255], ctl[12];
	struct loop_result r;

	assert_int_equal(h_cmd(h->p1, 0, cdb6, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	memcpy(ctl, buf + 4, sizeof(ctl));
	assert_int_equal(get_be16(ctl + 10), 1);
	ctl[0] &= 0x7f;
	ctl[4] |= 0x08; /* SWP */
	assert_int_equal(select6(h, h->p1, ctl, sizeof(ctl), &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p1, 0, cdb6, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[4 + 4] & 0x08, 0x08);
	assert_int_equal(get_be16(buf + 4 + 10), 1);
	/* another value there is refused, at that byte */
	ctl[11] = 0x07;
	select6(h, h->p1, ctl, sizeof(ctl), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(get_be16(r.sense + 16), 4 + 11);
}

static void test_select_swp_write_protects(void **state)
{
	struct harness *h = *state;
	uint8_t ctl[12] = {0x0a, 0x0a, 0x02, 0x10, 0x08, 0, 0, 0, 0xff, 0xff, 0, 0};
	uint8_t cdb[10], blk[H_BS] = {0}, buf[255];
	struct loop_result r;

	assert_int_equal(select6(h, h->p1, ctl, sizeof(ctl), &r), SAM_STAT_GOOD);
	h_cdb_rw10(cdb, 0x2a, 0, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, blk, H_BS, &r);
	h_expect_sense(&r, 0x7, 0x27, 0x00);
	/* WP in the device-specific parameter */
	sense6(h, 1, 0, 0x0a, 0, buf, 255, &r);
	assert_int_equal(buf[2] & 0x80, 0x80);
	/* the other nexus learns of the change */
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x01);
	ctl[4] = 0;
	assert_int_equal(select6(h, h->p1, ctl, sizeof(ctl), &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, blk, H_BS, &r), SAM_STAT_GOOD);
}

static void test_select_invalid(void **state)
{
	struct harness *h = *state;
	uint8_t ctl[12] = {0x0a, 0x0a, 0x02, 0x10, 0x00, 0, 0, 0, 0xff, 0xff, 0, 0};
	uint8_t cache[20] = {0x08, 0x12, 0x04 | 0x01 /* RCD not changeable */};
	struct loop_result r;

	/* QAM is not changeable: field pointer to byte 4+3, bit 4 */
	ctl[3] = 0x00;
	select6(h, h->p1, ctl, sizeof(ctl), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(r.sense[15], 0x80 | 0x08 | 4);
	assert_int_equal(get_be16(r.sense + 16), 7);
	select6(h, h->p1, cache, sizeof(cache), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	/* wrong page length */
	ctl[3] = 0x10;
	ctl[1] = 0x08;
	select6(h, h->p1, ctl, 10, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	/* SP=1 */
	uint8_t cdb[6] = {0x15, 0x11, 0, 0, 0, 0};
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* parameter list shorter than the header */
	uint8_t d[2] = {0};
	uint8_t cdb2[6] = {0x15, 0x10, 0, 0, 2, 0};
	h_cmd(h->p1, 0, cdb2, 6, SCSI_DIR_WRITE, d, 2, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* nothing was applied: WCE still set, no UA for p2 */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
}

static void test_select10_wce_and_block_descriptor(void **state)
{
	struct harness *h = *state;
	uint8_t data[8 + 8 + 20] = {0};
	uint8_t cdb[10] = {0x55, 0x10, 0, 0, 0, 0, 0, 0, sizeof(data), 0};
	struct loop_result r;
	uint8_t buf[255];

	put_be16(data + 6, 8);
	put_be32(data + 8, 0);
	put_be24(data + 13, H_BS);
	data[16] = 0x08;
	data[17] = 0x12;
	data[18] = 0x00; /* WCE off */
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, data, sizeof(data), &r),
			 SAM_STAT_GOOD);
	sense6(h, 1, 0, 0x08, 0, buf, 255, &r);
	assert_int_equal(buf[4 + 2] & 0x04, 0);
	/* a different block length is refused */
	put_be24(data + 13, 4096);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, data, sizeof(data), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sense_all_pages, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sense_subpages, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sense_disconnect_and_power, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select_subpage, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sense10_llbaa_and_changeable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select_read_modify_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select_swp_write_protects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select10_wce_and_block_descriptor, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
