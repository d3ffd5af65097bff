/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_alua_sync.c: cfg_port_groups_sync() folds the running ALUA states
 * (the real core, scsi/alua.c; no ports needed) into the config tree, and
 * the dump writes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "scsi/alua.h"

static const char text[] =
    "{\"version\": 1, \"backstores\": [{\"name\": \"r\", \"type\": \"ram\", \"size\": \"1M\"},\n"
    " {\"name\": \"s\", \"type\": \"ram\", \"size\": \"1M\"}],\n"
    "\"port_groups\": [{\"id\": 7, \"explicit\": true,\n"
    "  \"lu_states\": [{\"backstore\": \"s\", \"state\": \"standby\"}]},\n"
    " {\"id\": 8}]}\n";

static void test_sync(void **state)
{
	struct scsi_alua_group_attrs a = {.state = SCSI_ALUA_ACTIVE_OPTIMIZED, .explicit_ok = true};
	struct cfg *c = NULL;
	struct cfg_err e;
	char *out;

	(void)state;
	if (cfg_parse(text, strlen(text), NULL, &c, &e) || cfg_validate(c, &e))
		fail_msg("%s: %s", e.path, e.msg);
	/* group 8 is not running: left alone */
	assert_int_equal(scsi_alua_group_define(7, &a), 0);
	assert_int_equal(scsi_alua_set_state(7, "s", SCSI_ALUA_STANDBY), 0);
	/* what initiators and the control plane changed since */
	assert_int_equal(scsi_alua_set_state(7, "r", SCSI_ALUA_UNAVAILABLE), 0);
	assert_int_equal(scsi_alua_set_state(7, "s", SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
	assert_int_equal(cfg_port_groups_sync(c), 0);
	assert_int_equal(c->pgs[0].state, SCSI_ALUA_ACTIVE_OPTIMIZED);
	/* s is back to the group's state: no entry of its own */
	assert_int_equal(c->pgs[0].nlus, 1);
	assert_string_equal(c->pgs[0].lus[0].backstore, "r");
	assert_int_equal(c->pgs[0].lus[0].state, SCSI_ALUA_UNAVAILABLE);
	assert_int_equal(c->pgs[1].nlus, 0);
	out = cfg_dump(c);
	assert_non_null(strstr(out, "\"unavailable\""));
	assert_null(strstr(out, "\"standby\""));
	free(out);

	/* the group's default changes too */
	assert_int_equal(scsi_alua_set_state(7, NULL, SCSI_ALUA_STANDBY), 0);
	assert_int_equal(cfg_port_groups_sync(c), 0);
	assert_int_equal(c->pgs[0].state, SCSI_ALUA_STANDBY);
	assert_int_equal(c->pgs[0].nlus, 0);
	cfg_free(c);
	assert_int_equal(scsi_alua_group_undefine(7), 0);
	assert_int_equal(scsi_alua_group_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
