/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/import_lio.c: LIO's saveconfig.json -> a utarget
 * config. The example files in tests/data/import/lio/ (<name>.saveconfig.json)
 * cover every key the importer maps and a sample of those it reports; each
 * has its expected config (.json) and report (.report). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "import_check.h"

#define LIO_DIR DATA_DIR "/lio"

static void import_file(const char *name)
{
	struct imp_result r;
	char path[4096], err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s.saveconfig.json", LIO_DIR, name);
	rc = imp_lio_load(path, NULL, &r, err, sizeof(err));
	if (rc)
		fail_msg("imp_lio_load %s: %d: %s", path, rc, err);
	expect_import(&r, LIO_DIR, name);
	imp_result_free(&r);
}

/* Every supported key: storage objects of each plugin, attributes,
 * identity, TPGs, LUNs, portals, ACLs with mapped LUNs, demo mode, CHAP,
 * parameters; and what is reported. */
static void test_full(void **state)
{
	(void)state;
	import_file("full");
}

/* ALUA groups: per storage object in LIO, file-wide in utarget. */
static void test_alua(void **state)
{
	(void)state;
	import_file("alua");
}

/* A file that is not JSON, or not an object, is an error naming it. */
static void test_errors(void **state)
{
	struct imp_result r;
	char err[512];

	(void)state;
	assert_int_equal(
	    imp_lio_parse("{\n  \"targets\": [\n", 16, "x.json", NULL, &r, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "x.json:"));
	imp_result_free(&r);
	assert_int_equal(imp_lio_parse("[]", 2, "y.json", NULL, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "y.json: not a JSON object"));
	imp_result_free(&r);
	assert_int_equal(imp_lio_load("/nonexistent/saveconfig.json", NULL, &r, err, sizeof(err)),
			 -ENOENT);
	imp_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_alua),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
