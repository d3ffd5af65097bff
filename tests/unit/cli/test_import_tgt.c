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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
