/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_medium.c: START STOP UNIT and PREVENT ALLOW MEDIUM REMOVAL
 * (medium.c), removable and fixed LUs (libiscsi StartStopUnit*,
 * PreventAllow* semantics), and the cycles START STOP UNIT counts.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (removable unless stated)
 *   p2 "iqn.test:b" --/                                               */
#include "harness.h"

static int setup_removable(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct scsi_lu_attrs a = h_attrs();

	a.removable = true;
	h_setup_attrs(h, &a);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int setup_fixed(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	h_teardown(h);
	free(h);
	return 0;
}

static uint8_t ssu(struct loop_port *p, uint8_t immed, uint8_t pc, uint8_t loej, uint8_t start,
		   struct loop_result *r)
{
	uint8_t cdb[6] = {0x1b, immed, 0, 0, (uint8_t)(pc << 4 | loej << 1 | start), 0};

	return h_cmd(p, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, r);
}

static uint8_t prevent(struct loop_port *p, uint8_t v, struct loop_result *r)
{
	uint8_t cdb[6] = {0x1e, 0, 0, 0, v, 0};

	return h_cmd(p, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, r);
}

static void test_eject_load(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;

	assert_int_equal(ssu(h->p1, 1, 0, 1, 0, &r), SAM_STAT_GOOD);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x2, 0x3a, 0x00);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r);
	h_expect_sense(&r, 0x2, 0x3a, 0x00);
	/* INQUIRY and MODE SENSE still work */
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
	assert_int_equal(h_cmd(h->p1, 0, inq, 6, SCSI_DIR_READ, buf, 36, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[1], 0x80); /* RMB */
	assert_int_equal(ssu(h->p1, 0, 0, 1, 1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	/* the other nexus learns that the medium may have changed */
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x28, 0x00);
	/* the Start-Stop Cycle Counter log page (0Eh) counts the unload and
	 * load as one load-unload cycle and one start-stop cycle (the eject
	 * stopped the unit); loading a loaded medium counts nothing */
	assert_int_equal(ssu(h->p1, 0, 0, 1, 1, &r), SAM_STAT_GOOD);
	{
		uint8_t ls[10] = {0x4d, 0, 0x4e, 0, 0, 0, 0, 0, 64, 0}, pg[64];

		assert_int_equal(h_cmd(h->p1, 0, ls, 10, SCSI_DIR_READ, pg, 64, &r), SAM_STAT_GOOD);
		assert_int_equal(get_be16(pg + 4), 0x0004);
		assert_int_equal(get_be32(pg + 8), 1);
		assert_int_equal(get_be16(pg + 12), 0x0006);
		assert_int_equal(get_be32(pg + 16), 1);
	}
}

static void test_stop_without_loej(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;

	assert_int_equal(ssu(h->p1, 0, 0, 0, 0, &r), SAM_STAT_GOOD);
	/* not ejected: TEST UNIT READY is fine, medium access is not */
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r);
	h_expect_sense(&r, 0x2, 0x04, 0x02);
	assert_int_equal(ssu(h->p1, 0, 0, 0, 1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r), SAM_STAT_GOOD);
	/* power conditions: no transition, START/LOEJ ignored */
	for (uint8_t pc = 1; pc < 16; pc++) {
		assert_int_equal(ssu(h->p1, 1, pc, 1, 0, &r), SAM_STAT_GOOD);
		assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	}
}

static void test_prevent_blocks_eject(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	assert_int_equal(prevent(h->p1, 1, &r), SAM_STAT_GOOD);
	ssu(h->p1, 0, 0, 1, 0, &r);
	h_expect_sense(&r, 0x5, 0x53, 0x02);
	/* another nexus cannot eject either */
	ssu(h->p2, 0, 0, 1, 0, &r);
	h_expect_sense(&r, 0x5, 0x53, 0x02);
	/* ALLOW from the other nexus does not clear p1's PREVENT */
	assert_int_equal(prevent(h->p2, 0, &r), SAM_STAT_GOOD);
	ssu(h->p2, 0, 0, 1, 0, &r);
	h_expect_sense(&r, 0x5, 0x53, 0x02);
	assert_int_equal(prevent(h->p1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(ssu(h->p2, 0, 0, 1, 0, &r), SAM_STAT_GOOD);
	/* loading is refused while prevented too */
	assert_int_equal(prevent(h->p2, 1, &r), SAM_STAT_GOOD);
	ssu(h->p2, 0, 0, 1, 1, &r);
	h_expect_sense(&r, 0x5, 0x53, 0x02);
	assert_int_equal(prevent(h->p2, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(ssu(h->p2, 0, 0, 1, 1, &r), SAM_STAT_GOOD);
	h_clear_ua(h->p1, 0);
	/* obsolete values */
	prevent(h->p1, 2, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

static void test_prevent_cleared_by_resets(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	assert_int_equal(prevent(h->p1, 1, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_clear_ua(h->p1, 0);
	assert_int_equal(ssu(h->p1, 0, 0, 1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(ssu(h->p1, 0, 0, 1, 1, &r), SAM_STAT_GOOD);

	/* nexus loss */
	assert_int_equal(prevent(h->p1, 1, &r), SAM_STAT_GOOD);
	loop_destroy(h->p1);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	assert_int_equal(ssu(h->p1, 0, 0, 1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(ssu(h->p1, 0, 0, 1, 1, &r), SAM_STAT_GOOD);

	/* target warm reset (p1 is allowed it) */
	h_port_target_reset(h, &h->p1, "iqn.test:a");
	h_clear_ua(h->p2, 0);
	assert_int_equal(prevent(h->p2, 1, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_TARGET_WARM_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_clear_ua(h->p1, 0);
	assert_int_equal(ssu(h->p1, 0, 0, 1, 0, &r), SAM_STAT_GOOD);
}

static void test_fixed_medium(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	/* nothing to eject or to prevent */
	ssu(h->p1, 0, 0, 1, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	prevent(h->p1, 1, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	assert_int_equal(prevent(h->p1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(ssu(h->p1, 0, 0, 0, 1, &r), SAM_STAT_GOOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_eject_load, setup_removable, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_without_loej, setup_removable, teardown),
	    cmocka_unit_test_setup_teardown(test_prevent_blocks_eject, setup_removable, teardown),
	    cmocka_unit_test_setup_teardown(test_prevent_cleared_by_resets, setup_removable,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_fixed_medium, setup_fixed, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
