/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_port_groups.c: the "port_groups" section (port_groups.c): parse,
 * defaults, dump round trip, the errors verify reports, and the target
 * port group identifier of every portal group. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/model.h"
#include "scsi/alua.h"

#define HEAD                                                                                       \
	"{\"version\": 1, \"backstores\": [{\"name\": \"r\", \"type\": \"ram\", \"size\": "        \
	"\"1M\"}],\n"                                                                              \
	"\"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\", \"portal_groups\": [\n"           \
	"  {\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]},\n"                                     \
	"  {\"tag\": 2, \"portals\": [\"127.0.0.1:3261\"]}]},\n"                                   \
	" {\"name\": \"iqn.2026-12.org.utarget:b\", \"portal_groups\": [\n"                        \
	"  {\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]}],\n"

static const char good[] =
    HEAD "\"port_groups\": [\n"
	 "  {\"id\": 1, \"name\": \"a\", \"preferred\": true, \"explicit\": true,\n"
	 "   \"transition_ms\": 1500, \"members\": [{\"target\": \"iqn.2026-12.org.utarget:a\","
	 " \"tag\": 2}, {\"target\": \"iqn.2026-12.org.utarget:b\", \"tag\": 1}]},\n"
	 "  {\"id\": 2, \"state\": \"standby\",\n"
	 "   \"lu_states\": [{\"backstore\": \"r\", \"state\": \"active/non-optimized\"}]}]}\n";

static struct cfg *parse_ok(const char *text)
{
	struct cfg *c = NULL;
	struct cfg_err e;

	if (cfg_parse(text, strlen(text), NULL, &c, &e) || cfg_validate(c, &e))
		fail_msg("line %d %s: %s", e.line, e.path, e.msg);
	return c;
}

static void test_parse_and_defaults(void **state)
{
	struct cfg *c = parse_ok(good);

	(void)state;
	assert_int_equal(c->npgs, 2);
	assert_int_equal(c->pgs[0].id, 1);
	assert_string_equal(c->pgs[0].name, "a");
	assert_true(c->pgs[0].preferred && c->pgs[0].explicit_ok);
	assert_int_equal(c->pgs[0].transition_ms, 1500);
	assert_int_equal(c->pgs[0].state, SCSI_ALUA_ACTIVE_OPTIMIZED);
	assert_int_equal(c->pgs[0].nmembers, 2);
	assert_int_equal(c->pgs[0].members[1].tag, 1);
	/* defaults */
	assert_null(c->pgs[1].name);
	assert_false(c->pgs[1].preferred || c->pgs[1].explicit_ok);
	assert_int_equal(c->pgs[1].transition_ms, 0);
	assert_int_equal(c->pgs[1].state, SCSI_ALUA_STANDBY);
	assert_int_equal(c->pgs[1].nlus, 1);
	assert_int_equal(c->pgs[1].lus[0].state, SCSI_ALUA_ACTIVE_NON_OPTIMIZED);
	cfg_free(c);
}

static void test_dump_round_trip(void **state)
{
	struct cfg *c = parse_ok(good), *c2;
	char *text = cfg_dump(c), *text2;

	(void)state;
	assert_non_null(text);
	assert_non_null(strstr(text, "\"port_groups\""));
	assert_non_null(strstr(text, "\"active/non-optimized\""));
	c2 = parse_ok(text);
	text2 = cfg_dump(c2);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	cfg_free(c2);
	cfg_free(c);
	/* absent stays absent */
	c = parse_ok(HEAD "\"iscsi\": {}}");
	text = cfg_dump(c);
	assert_null(strstr(text, "port_groups"));
	free(text);
	cfg_free(c);
}

static void test_group_ids(void **state)
{
	struct cfg *c = parse_ok(good);
	uint16_t ids[3];

	(void)state;
	assert_int_equal(cfg_count_portal_groups(c), 3);
	assert_int_equal(cfg_assign_group_ids(c, ids, 3), 0);
	/* a:1 is in no group: the smallest id no group uses (3) */
	assert_int_equal(ids[0], 3);
	assert_int_equal(ids[1], 1);
	assert_int_equal(ids[2], 1);
	cfg_free(c);
	/* without port groups: 1, 2, 3 in file order */
	c = parse_ok(HEAD "\"iscsi\": {}}");
	assert_int_equal(cfg_assign_group_ids(c, ids, 3), 0);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 2);
	assert_int_equal(ids[2], 3);
	cfg_free(c);
}

struct bad_case {
	const char *pgs;
	const char *path;
	const char *msg;
};

static void test_errors(void **state)
{
	static const struct bad_case cases[] = {
	    {"[{\"name\": \"x\"}]", "port_groups[0].id", "required field missing"},
	    {"[{\"id\": 0}]", "port_groups[0].id", "out of range"},
	    {"[{\"id\": 1, \"state\": \"sleeping\"}]", "port_groups[0].state", "expected one of"},
	    {"[{\"id\": 1, \"prefered\": true}]", "port_groups[0].prefered",
	     "unknown field (did you mean \"preferred\"?)"},
	    {"[{\"id\": 1, \"transition_ms\": 300000}]", "port_groups[0].transition_ms",
	     "out of range"},
	    {"[{\"id\": 1}, {\"id\": 1}]", "port_groups[1].id", "already used"},
	    {"[{\"id\": 1, \"members\": [{\"target\": \"iqn.2026-12.org.utarget:z\", \"tag\": "
	     "1}]}]",
	     "port_groups[0].members[0].target", "no target named"},
	    {"[{\"id\": 1, \"members\": [{\"target\": \"iqn.2026-12.org.utarget:b\", \"tag\": "
	     "2}]}]",
	     "port_groups[0].members[0].tag", "has no portal group 2"},
	    {"[{\"id\": 1, \"members\": [{\"target\": \"iqn.2026-12.org.utarget:b\", \"tag\": 1}]},"
	     " {\"id\": 2, \"members\": [{\"target\": \"iqn.2026-12.org.utarget:b\", \"tag\": "
	     "1}]}]",
	     "port_groups[1].members[0].tag", "already in port_groups[0]"},
	    {"[{\"id\": 1, \"lu_states\": [{\"backstore\": \"q\", \"state\": \"standby\"}]}]",
	     "port_groups[0].lu_states[0].backstore", "no back-store named"},
	    {"[{\"id\": 1, \"lu_states\": [{\"backstore\": \"r\"}]}]",
	     "port_groups[0].lu_states[0].state", "required field missing"},
	    {"{}", "port_groups", "expected an array"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		struct cfg *c = NULL;
		struct cfg_err e;
		int rc;

		snprintf(text, sizeof(text), HEAD "\"port_groups\": %s}", cases[i].pgs);
		rc = cfg_parse(text, strlen(text), NULL, &c, &e);
		if (!rc) {
			rc = cfg_validate(c, &e);
			cfg_free(c);
		}
		assert_int_equal(rc, -EINVAL);
		if (strcmp(e.path, cases[i].path) != 0 || !strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: got %s: %s", i, e.path, e.msg);
		/* the path names a place in the text (verify leaves the line to
		 * cfg_load(), which locates it like this) */
		assert_true(e.line > 0 || cfg_locate_line(text, strlen(text), e.path) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_and_defaults),
	    cmocka_unit_test(test_dump_round_trip),
	    cmocka_unit_test(test_group_ids),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
