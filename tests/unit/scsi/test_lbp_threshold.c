/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lbp_threshold.c: logical block provisioning soft thresholds
 * (lbp_threshold.c) configured through the Logical Block Provisioning mode
 * page (1Ch/02h) and reported as THIN PROVISIONING SOFT THRESHOLD REACHED.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: thin lu (2048 x 512) over the fake
 *   p2 "iqn.test:b" --/          back-store, whose space the test sets
 *
 * Counts are in threshold sets of 1 MiB (THRESHOLD EXPONENT 11 for 512-byte
 * blocks, VPD B2h). */
#include <errno.h>
#include <unistd.h>

#include "common_setup.h"
#include "scsi/lbp_threshold.h"

#define MIB (1ull << 20)

static int setup_thin(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct scsi_lu_attrs a = h_attrs();

	a.thin = true;
	h_setup_attrs(h, &a);
	fake_bs_set_space(h->bs, 100 * MIB, 900 * MIB);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static uint8_t mode_sense_lbp(struct loop_port *p, uint8_t pc, uint8_t *buf, struct loop_result *r)
{
	uint8_t cdb[10] = {0x5a, 0x08 /* DBD */, (uint8_t)(pc << 6 | 0x1c), 0x02, 0, 0, 0, 0, 255,
			   0};

	return h_cmd(p, 0, cdb, 10, SCSI_DIR_READ, buf, 255, r);
}

/* MODE SELECT(10), PF=1, one page */
static uint8_t mode_select(struct loop_port *p, const uint8_t *page, size_t len,
			   struct loop_result *r)
{
	uint8_t cdb[10] = {0x55, 0x10, 0, 0, 0, 0, 0, 0, 0, 0}, data[8 + 64];

	memset(data, 0, 8);
	memcpy(data + 8, page, len);
	put_be16(cdb + 7, (uint16_t)(8 + len));
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_WRITE, data, (uint32_t)(8 + len), r);
}

/* the current page with descriptor i (0: available, 1: used) set */
static void set_threshold(struct harness *h, unsigned i, bool enabled, bool increasing,
			  uint32_t count, bool situa)
{
	uint8_t buf[255], page[32];
	struct loop_result r;

	assert_int_equal(mode_sense_lbp(h->p1, 0, buf, &r), SAM_STAT_GOOD);
	memcpy(page, buf + 8, sizeof(page));
	page[0] &= 0x7f; /* PS is reserved in MODE SELECT */
	page[4] = situa ? 0x01 : 0x00;
	page[16 + 8 * i] = (uint8_t)((enabled ? 0x80 : 0) | (increasing ? 0x01 : 0));
	put_be32(page + 16 + 8 * i + 4, count);
	assert_int_equal(mode_select(h->p1, page, sizeof(page), &r), SAM_STAT_GOOD);
	/* the other nexus hears of the change */
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x01);
}

static uint8_t write1(struct loop_port *p, struct loop_result *r)
{
	uint8_t cdb[10], data[H_BS];

	memset(data, 0x5a, sizeof(data));
	h_cdb_rw10(cdb, 0x2a, 7, 1);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_WRITE, data, sizeof(data), r);
}

/* the next evaluation may run: past LBP_THRESHOLD_CHECK_NS */
static void next_interval(void)
{
	usleep((useconds_t)(LBP_THRESHOLD_CHECK_NS / 1000 + 20000));
}

static void expect_threshold_ua(struct loop_port *p)
{
	struct loop_result r;

	h_tur(p, &r);
	h_expect_sense(&r, 0x6, 0x38, 0x07);
	assert_int_equal(h_tur(p, &r), SAM_STAT_GOOD);
}

static void test_page_layout(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], vpd[64];
	static const uint8_t def[32] = {0x5c, 0x02, 0x00, 0x1c, [17] = 0x01, [25] = 0x02};
	static const uint8_t chg[32] = {
	    0x5c, 0x02, 0x00,	     0x1c, 0x01, [16] = 0x81, 0,    0,	  0,	0xff, 0xff,
	    0xff, 0xff, [24] = 0x81, 0,	   0,	 0,	      0xff, 0xff, 0xff, 0xff,
	};
	uint8_t cdb[6] = {0x12, 0x01, 0xb2, 0, 64, 0};
	struct loop_result r;

	assert_int_equal(mode_sense_lbp(h->p1, 2, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be16(buf), 6 + 32);
	buf[8] &= 0x7f; /* PS depends on a state directory */
	assert_memory_equal(buf + 8, def, sizeof(def));
	assert_int_equal(mode_sense_lbp(h->p1, 1, buf, &r), SAM_STAT_GOOD);
	buf[8] &= 0x7f;
	assert_memory_equal(buf + 8, chg, sizeof(chg));
	/* VPD B2h: THRESHOLD EXPONENT 11 (1 MiB sets of 512-byte blocks) */
	assert_int_equal(h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, vpd, 64, &r), SAM_STAT_GOOD);
	assert_int_equal(vpd[4], 11);
}

static void test_refused_fields(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], page[32];
	struct loop_result r;

	mode_sense_lbp(h->p1, 0, buf, &r);
	memcpy(page, buf + 8, sizeof(page));
	page[0] &= 0x7f;
	/* THRESHOLD TYPE 001b, ARMING 010b, THRESHOLD RESOURCE: not changeable */
	page[16] = 0x88;
	mode_select(h->p1, page, sizeof(page), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(get_be16(r.sense + 16), 8 + 16);
	page[16] = 0x82;
	mode_select(h->p1, page, sizeof(page), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	page[16] = 0x80;
	page[17] = 0x02;
	mode_select(h->p1, page, sizeof(page), &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(get_be16(r.sense + 16), 8 + 17);
}

/* used resources, armed increasing: once per crossing, to every nexus */
static void test_increasing(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	set_threshold(h, 1, true, true, 300, false);
	/* the first write after MODE SELECT evaluates: 100 MiB used, below */
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);

	fake_bs_set_space(h->bs, 301 * MIB, 699 * MIB);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	expect_threshold_ua(h->p1);
	expect_threshold_ua(h->p2);

	/* still above: no second notification */
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);

	/* back below (UNMAP freed space): re-armed; above again: notified */
	fake_bs_set_space(h->bs, 200 * MIB, 800 * MIB);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
	fake_bs_set_space(h->bs, 400 * MIB, 600 * MIB);
	next_interval();
	assert_int_equal(write1(h->p2, &r), SAM_STAT_GOOD);
	expect_threshold_ua(h->p1);
	expect_threshold_ua(h->p2);
}

/* available resources, armed decreasing; SITUA: reported once for all */
static void test_decreasing_situa(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	set_threshold(h, 0, true, false, 500, true);
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);

	fake_bs_set_space(h->bs, 600 * MIB, 499 * MIB);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	expect_threshold_ua(h->p2);
	/* p2 was told: p1 is not */
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
}

/* the evaluation waits for the interval; a disabled descriptor is silent */
static void test_rate_limit_and_disable(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	set_threshold(h, 1, true, true, 300, false);
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD); /* evaluates: below */
	fake_bs_set_space(h->bs, 400 * MIB, 600 * MIB);
	/* within the interval: not evaluated yet */
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	expect_threshold_ua(h->p1);
	h_clear_ua(h->p2, 0);

	set_threshold(h, 1, false, true, 300, false);
	fake_bs_set_space(h->bs, 100 * MIB, 900 * MIB);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	fake_bs_set_space(h->bs, 500 * MIB, 500 * MIB);
	next_interval();
	assert_int_equal(write1(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
}

/* a thick LU, or one whose back-store cannot tell its space, has no
 * thresholds: no page, THRESHOLD EXPONENT 0 */
static void test_thick(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], vpd[64], cdb[6] = {0x12, 0x01, 0xb2, 0, 64, 0};
	struct loop_result r;

	mode_sense_lbp(h->p1, 0, buf, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, vpd, 64, &r), SAM_STAT_GOOD);
	assert_int_equal(vpd[4], 0);
}

static int setup_thick(void **state)
{
	setup(state);
	fake_bs_set_space(((struct harness *)*state)->bs, 100 * MIB, 900 * MIB);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_page_layout, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_fields, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_increasing, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_decreasing_situa, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_rate_limit_and_disable, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_thick, setup_thick, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
