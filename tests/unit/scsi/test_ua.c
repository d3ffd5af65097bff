/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ua.c: unit attention bookkeeping (ua.c): priorities, one condition
 * per command, the reset class, and per-nexus establishment.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu
 *   p2 "iqn.test:b" --/                                               */
#include "common_setup.h"

#include "scsi/core.h"
#include "scsi/ua.h"

static void test_priority_order(void **state)
{
	(void)state;
	struct lu_itn itn = {0};

	atomic_init(&itn.ua, 0);
	assert_int_equal(ua_take(&itn), SENSE_OK);
	ua_set(&itn, UA_REPORTED_LUNS_CHANGED);
	ua_set(&itn, UA_MODE_PARAMS_CHANGED);
	ua_set(&itn, UA_CAPACITY_CHANGED);
	assert_true(ua_pending(&itn));
	assert_int_equal(ua_take(&itn), SENSE_UA_MODE_PARAMETERS_CHANGED);
	assert_int_equal(ua_take(&itn), SENSE_UA_CAPACITY_DATA_CHANGED);
	assert_int_equal(ua_take(&itn), SENSE_UA_REPORTED_LUNS_CHANGED);
	assert_false(ua_pending(&itn));
	/* reporting power on also reports the later resets and losses */
	ua_set(&itn, UA_I_T_NEXUS_LOSS);
	ua_set(&itn, UA_BUS_DEVICE_RESET);
	ua_set(&itn, UA_POWER_ON);
	ua_set(&itn, UA_MODE_PARAMS_CHANGED);
	assert_int_equal(ua_take(&itn), SENSE_UA_POWER_ON_RESET);
	assert_int_equal(ua_take(&itn), SENSE_UA_MODE_PARAMETERS_CHANGED);
	assert_int_equal(ua_take(&itn), SENSE_OK);
	ua_set(&itn, UA_COMMANDS_CLEARED);
	ua_clear(&itn, UA_COMMANDS_CLEARED);
	assert_false(ua_pending(&itn));
}

static void test_every_condition_has_a_ua_reason(void **state)
{
	(void)state;
	for (unsigned c = 0; c < UA_COUNT; c++) {
		enum sense_reason r = ua_reason[c];

		assert_int_not_equal(r, SENSE_OK);
		assert_int_equal(sense_table[r].key, SENSE_KEY_UNIT_ATTENTION);
	}
}

static void test_set_all_except(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	/* capacity change reaches every nexus; one command reports one UA */
	assert_int_equal(scsi_lu_resize(h->lu, (uint64_t)(H_BLOCKS + 8) * H_BS), 0);
	ua_set_all(h->lu, UA_MODE_PARAMS_CHANGED, NULL);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x01);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x09);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x01);
	assert_int_equal(h_clear_ua(h->p2, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_priority_order),
	    cmocka_unit_test(test_every_condition_has_a_ua_reason),
	    cmocka_unit_test_setup_teardown(test_set_all_except, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
