/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cmdsn.c: the CmdSN window with serial number arithmetic (RFC 7143
 * 4.2.2.1, RFC 1982), including the 2^32 wrap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/iscsi/cmdsn.c"

static void test_serial(void **state)
{
	(void)state;
	assert_true(iscsi_sn_lt(1, 2));
	assert_false(iscsi_sn_lt(2, 1));
	assert_false(iscsi_sn_lt(5, 5));
	assert_true(iscsi_sn_le(5, 5));
	/* across the wrap */
	assert_true(iscsi_sn_lt(0xffffffffu, 0));
	assert_true(iscsi_sn_lt(0xfffffff0u, 0x10));
	assert_false(iscsi_sn_lt(0x10, 0xfffffff0u));
	assert_true(iscsi_sn_lt(0, 0x7fffffffu));
	assert_false(iscsi_sn_lt(0, 0x80000001u)); /* more than 2^31 ahead: behind */
}

static void check_window(uint32_t first)
{
	struct iscsi_cmdsn w;

	iscsi_cmdsn_init(&w, first, 4);
	assert_int_equal(w.exp, first);
	assert_int_equal(iscsi_cmdsn_max(&w), first + 3);
	/* in order */
	assert_int_equal(iscsi_cmdsn_check(&w, first), ISCSI_CMDSN_IN_ORDER);
	assert_true(iscsi_cmdsn_accept(&w, first));
	w.busy++;
	assert_int_equal(w.exp, first + 1);
	/* MaxCmdSN stays: the busy command took the slot ExpCmdSN gave up */
	assert_int_equal(iscsi_cmdsn_max(&w), first + 3);
	/* a duplicate (below ExpCmdSN) and one beyond MaxCmdSN are outside */
	assert_int_equal(iscsi_cmdsn_check(&w, first), ISCSI_CMDSN_OUTSIDE);
	assert_int_equal(iscsi_cmdsn_check(&w, first + 4), ISCSI_CMDSN_OUTSIDE);
	/* ahead, then the gap filled */
	assert_int_equal(iscsi_cmdsn_check(&w, first + 3), ISCSI_CMDSN_AHEAD);
	assert_false(iscsi_cmdsn_accept(&w, first + 3));
	w.busy++;
	assert_int_equal(iscsi_cmdsn_check(&w, first + 3), ISCSI_CMDSN_OUTSIDE); /* dup */
	assert_false(iscsi_cmdsn_reached(&w, first + 3));
	assert_true(iscsi_cmdsn_accept(&w, first + 1));
	w.busy++;
	assert_int_equal(w.exp, first + 2);
	assert_true(iscsi_cmdsn_accept(&w, first + 2));
	w.busy++;
	/* first+2 and the early first+3 */
	assert_int_equal(w.exp, first + 4);
	assert_true(iscsi_cmdsn_reached(&w, first + 3));
	/* window closed: MaxCmdSN = ExpCmdSN - 1 */
	assert_int_equal(iscsi_cmdsn_max(&w), first + 3);
	assert_int_equal(iscsi_cmdsn_check(&w, first + 4), ISCSI_CMDSN_OUTSIDE);
	/* commands released: it reopens, never moving back */
	w.busy -= 2;
	assert_int_equal(iscsi_cmdsn_max(&w), first + 5);
	w.busy += 1;
	assert_int_equal(iscsi_cmdsn_max(&w), first + 5);
	assert_int_equal(iscsi_cmdsn_check(&w, first + 5), ISCSI_CMDSN_AHEAD);
}

static void test_window(void **state)
{
	(void)state;
	check_window(1);
	check_window(0x7ffffffeu);
	/* the window spans 2^32 - 1 -> 0 */
	check_window(0xfffffffeu);
	check_window(0xffffffffu);
}

static void test_depth_bound(void **state)
{
	struct iscsi_cmdsn w;

	(void)state;
	iscsi_cmdsn_init(&w, 10, 100000);
	assert_int_equal(w.depth, ISCSI_CMDSN_DEPTH_MAX);
	iscsi_cmdsn_init(&w, 10, 0);
	assert_int_equal(w.depth, 1);
	/* a full window received out of order, then the gap */
	iscsi_cmdsn_init(&w, 0xfffffc00u, ISCSI_CMDSN_DEPTH_MAX);
	for (uint32_t i = 1; i < ISCSI_CMDSN_DEPTH_MAX; i++) {
		assert_int_equal(iscsi_cmdsn_check(&w, 0xfffffc00u + i), ISCSI_CMDSN_AHEAD);
		iscsi_cmdsn_accept(&w, 0xfffffc00u + i);
	}
	assert_true(iscsi_cmdsn_accept(&w, 0xfffffc00u));
	assert_int_equal(w.exp, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_serial),
	    cmocka_unit_test(test_window),
	    cmocka_unit_test(test_depth_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
