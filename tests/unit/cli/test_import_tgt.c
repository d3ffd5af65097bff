/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/import_tgt.c and tgt_conf.c: tgt's targets.conf ->
 * a utarget config. The example files in tests/data/import/tgt/ cover every
 * directive the importer maps and a sample of those it reports; each has
 * its expected config (.json) and report (.report). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <unistd.h>

#include "import_check.h"

#define TGT_DIR DATA_DIR "/tgt"

static void import_file(const char *name)
{
	struct imp_result r;
	char path[4096], err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s.conf", TGT_DIR, name);
	rc = imp_tgt_load(path, NULL, &r, err, sizeof(err));
	if (rc)
		fail_msg("imp_tgt_load %s: %d: %s", path, rc, err);
	expect_import(&r, TGT_DIR, name);
	imp_result_free(&r);
}

/* Every supported directive, includes, comments, merged blocks. */
static void test_full(void **state)
{
	(void)state;
	import_file("full");
}

/* initiator-name AND initiator-address, ALL, CHAP edge cases. */
static void test_access(void **state)
{
	(void)state;
	import_file("access");
}

/* Syntax errors name the file and line; a missing file is an error. */
static void test_errors(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
	    {.text = "<target iqn.2026-12.org.example:x>\n  backing-store /a\n",
	     .msg = ":1: <target> is never closed"},
	    {.text = "</target>\n", .msg = ":1: </target> closes no block"},
	    {.text = "<target iqn.2026-12.org.example:x>\n</backing-store>\n",
	     .msg = ":2: </backing-store> closes <target> opened at"},
	    {.text = "key <<EOF\nx\nEOF\n", .msg = ":1: here-documents"},
	    {.text = "include /nonexistent/file.conf\n",
	     .msg = ":1: include /nonexistent/file.conf: No such file"},
	};
	char path[] = "/tmp/utarget-tgt-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct imp_result r;
		char err[512];
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(cases[i].text, f);
		fclose(f);
		assert_true(imp_tgt_load(path, NULL, &r, err, sizeof(err)) < 0);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" does not contain \"%s\"", i, err, cases[i].msg);
		imp_result_free(&r);
	}
	unlink(path);
	{
		struct imp_result r;
		char err[512];
		assert_int_equal(
		    imp_tgt_load("/nonexistent/targets.conf", NULL, &r, err, sizeof(err)), -ENOENT);
		assert_non_null(strstr(err, "/nonexistent/targets.conf"));
		imp_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_access),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
