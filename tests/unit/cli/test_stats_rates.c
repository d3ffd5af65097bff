/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/stats_rates.c: quantiles of the values counted
 * between two histograms (golden bounds, the nearest rank, the unbounded
 * last bucket, buckets that only the later answer has), and the rates of
 * two stats.get answers: per second over time_ns, objects new in the later
 * answer counted from zero, discovery sessions left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/stats_rates.h"

static json_t *J(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	if (!v)
		fail_msg("%s: %s", text, e.text);
	return v;
}

static void test_quantile(void **state)
{
	/* before: 10 values of 1024..; after: 10 more there, 89 at 4096, 1 unbounded */
	json_t *a = J("[[1088, 10]]"), *b = J("[[1088, 20], [4352, 89], [null, 1]]");

	(void)state;
	/* 100 values counted in between: rank 50 and 99 at 4352, rank 100 unbounded */
	assert_int_equal(rates_quantile(a, b, 0.5), 4352);
	assert_int_equal(rates_quantile(a, b, 0.99), 4352);
	assert_true(rates_quantile(a, b, 1.0) == UINT64_MAX);
	assert_int_equal(rates_quantile(a, b, 0.10), 1088);
	assert_int_equal(rates_quantile(a, b, 0.11), 4352);
	/* nothing in between */
	assert_int_equal(rates_quantile(b, b, 0.99), 0);
	/* no earlier answer: everything counts; 3 values, p99 is the largest */
	json_decref(b);
	b = J("[[1088, 2], [8704, 1]]");
	assert_int_equal(rates_quantile(NULL, b, 0.99), 8704);
	assert_int_equal(rates_quantile(NULL, b, 0.5), 1088);
	json_decref(a);
	json_decref(b);
}

static double real(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static void test_rates(void **state)
{
	json_t *a = J("{\"time_ns\": 1000000000,"
		      " \"luns\": [{\"backstore\": \"r0\", \"commands\": 100, \"read_bytes\": 0,"
		      "  \"write_bytes\": 0, \"errors\": 1, \"in_flight\": 0,"
		      "  \"classes\": {\"read\": {\"latency\": {\"buckets\": [[1088, 5]]}}}}],"
		      " \"sessions\": [{\"tsih\": 1, \"isid\": \"400000000000\", \"commands\": 7,"
		      "  \"read_bytes\": 0, \"write_bytes\": 0, \"digest_errors\": 0,"
		      "  \"format_errors\": 0, \"connection_timeouts\": 0}],"
		      " \"targets\": [{\"name\": \"t\", \"sessions\": 1,"
		      "  \"login\": {\"accepts\": 3, \"other_failures\": 1}}]}");
	json_t *b =
	    J("{\"time_ns\": 3000000000,"
	      " \"luns\": [{\"backstore\": \"r0\", \"commands\": 300, \"read_bytes\": 4000000,"
	      "  \"write_bytes\": 2000000, \"errors\": 5, \"in_flight\": 2,"
	      "  \"classes\": {\"read\": {\"latency\": {\"buckets\": [[1088, 5], [2176, 4]]}},"
	      "   \"write\": {\"latency\": {\"buckets\": []}}}},"
	      "  {\"backstore\": \"new\", \"commands\": 10, \"read_bytes\": 0,"
	      "   \"write_bytes\": 0, \"errors\": 0, \"in_flight\": 0}],"
	      " \"sessions\": [{\"tsih\": 1, \"isid\": \"400000000000\", \"commands\": 27,"
	      "  \"read_bytes\": 1000000, \"write_bytes\": 0, \"digest_errors\": 1,"
	      "  \"format_errors\": 2, \"connection_timeouts\": 0, \"target\": \"t\","
	      "  \"initiator\": \"i\"},"
	      "  {\"tsih\": 2, \"isid\": \"400000000001\", \"discovery\": true}],"
	      " \"targets\": [{\"name\": \"t\", \"sessions\": 2,"
	      "  \"login\": {\"accepts\": 4, \"other_failures\": 3, \"redirects\": 1}}]}");
	json_t *r, *lu, *s, *t;

	(void)state;
	r = rates_json(a, b);
	assert_non_null(r);
	assert_true(fabs(real(r, "interval_s") - 2.0) < 1e-9);
	lu = json_array_get(json_object_get(r, "luns"), 0);
	assert_string_equal(json_string_value(json_object_get(lu, "backstore")), "r0");
	assert_true(fabs(real(lu, "iops") - 100.0) < 1e-9);
	assert_true(fabs(real(lu, "read_mb_s") - 2.0) < 1e-9);
	assert_true(fabs(real(lu, "write_mb_s") - 1.0) < 1e-9);
	assert_true(fabs(real(lu, "errors_s") - 2.0) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(lu, "read_p99_ns")), 2176);
	assert_true(json_is_null(json_object_get(lu, "write_p99_ns")));
	assert_int_equal(json_integer_value(json_object_get(lu, "in_flight")), 2);
	/* new since the first answer: counted from zero */
	lu = json_array_get(json_object_get(r, "luns"), 1);
	assert_true(fabs(real(lu, "iops") - 5.0) < 1e-9);
	/* the discovery session is left out */
	assert_int_equal(json_array_size(json_object_get(r, "sessions")), 1);
	s = json_array_get(json_object_get(r, "sessions"), 0);
	assert_true(fabs(real(s, "iops") - 10.0) < 1e-9);
	assert_true(fabs(real(s, "read_mb_s") - 0.5) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(s, "errors")), 3);
	t = json_array_get(json_object_get(r, "targets"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "logins")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "login_failures")), 3);
	assert_int_equal(json_integer_value(json_object_get(t, "sessions")), 2);
	json_decref(r);
	/* time must advance */
	assert_null(rates_json(b, a));
	assert_null(rates_json(b, b));
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quantile),
	    cmocka_unit_test(test_rates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
