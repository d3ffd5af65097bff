/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/model.c: defaults, path resolution against the
 * state directory, freeing partial trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config/model.c"
#include "fabric/iscsi/iscsi.h"
#include "iscsi_fields.h"

static void test_defaults(void **state)
{
	struct cfg_backstore b;

	(void)state;
	memset(&b, 0xa5, sizeof(b));
	cfg_backstore_defaults(&b);
	assert_int_equal(b.block_size, 512);
	assert_true(b.write_cache);
	assert_false(b.thin);
	assert_false(b.create);
	assert_false(b.read_only);
	assert_false(b.removable);
	assert_int_equal(b.size, 0);
	assert_null(b.name);
	assert_null(b.naa);
}

/* The config owns the defaults of its "iscsi" section (so that its file
 * side and the CLI need nothing of the fabric); they are the fabric's own,
 * member for member (this binary links the fabric for the comparison). */
static void test_iscsi_defaults(void **state)
{
	struct cfg_iscsi_settings c;
	struct iscsi_settings f;

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	cfg_iscsi_defaults(&c);
	iscsi_settings_default(&f);
#define SAME(m) assert_int_equal(c.m, f.m);
	ISCSI_FIELDS(SAME)
#undef SAME
	assert_int_equal(sizeof(c), sizeof(f));
}

static void test_paths(void **state)
{
	struct cfg c = {0};
	struct cfg_backstore b = {0};
	char cwd[PATH_MAX], buf[CFG_FULL_PATH_MAX], want[CFG_FULL_PATH_MAX + 64];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));

	/* no state_dir: the current directory */
	assert_int_equal(cfg_state_dir_path(&c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, cwd);
	b.path = "d.img";
	assert_int_equal(cfg_bs_path(&c, &b, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/d.img", cwd);
	assert_string_equal(buf, want);

	/* relative state_dir: against the current directory */
	c.state_dir = "state";
	assert_int_equal(cfg_state_dir_path(&c, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/state", cwd);
	assert_string_equal(buf, want);
	assert_int_equal(cfg_bs_path(&c, &b, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/state/d.img", cwd);
	assert_string_equal(buf, want);

	/* absolute state_dir */
	c.state_dir = "/var/lib/ut";
	assert_int_equal(cfg_bs_path(&c, &b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/lib/ut/d.img");
	assert_int_equal(cfg_state_dir_path(&c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/lib/ut");

	/* absolute back-store path ignores state_dir */
	b.path = "/dev/sdz";
	assert_int_equal(cfg_bs_path(&c, &b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/sdz");

	/* too long */
	char small[8];
	assert_int_equal(cfg_bs_path(&c, &b, small, sizeof(small)), -ENAMETOOLONG);
}

static void test_free_partial(void **state)
{
	struct cfg *c = calloc(1, sizeof(*c));

	(void)state;
	/* a tree cut short by a parse error: counts cover only filled slots */
	c->bs = calloc(3, sizeof(*c->bs));
	c->bs[0].name = strdup("a");
	c->nbs = 1;
	c->targets = calloc(2, sizeof(*c->targets));
	c->targets[0].name = strdup("t");
	c->targets[0].tpgs = calloc(1, sizeof(*c->targets[0].tpgs));
	c->targets[0].tpgs[0].portals = calloc(2, sizeof(char *));
	c->targets[0].tpgs[0].portals[0] = strdup("127.0.0.1:1");
	c->targets[0].tpgs[0].nportals = 1;
	c->targets[0].ntpgs = 1;
	c->ntargets = 1;
	cfg_free(c);
	cfg_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_iscsi_defaults),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_free_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
