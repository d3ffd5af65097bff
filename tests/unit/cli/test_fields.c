/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/fields.c: FIELD=VALUE arguments -> JSON, typed by
 * the config's field tables (a serial stays a string, a block size becomes
 * an integer), guessed for unknown fields, raw JSON with ":=", dotted
 * fields as nested objects; and the deep merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void expect(enum cli_kind kind, const char *const *args, const char *want)
{
	json_t *o = json_object();
	char err[256], *got;

	for (size_t i = 0; args[i]; i++)
		if (cli_field_set(o, kind, args[i], err, sizeof(err)))
			fail_msg("%s: %s", args[i], err);
	got = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (strcmp(got, want) != 0)
		fail_msg("got %s, want %s", got, want);
	free(got);
	json_decref(o);
}

static void expect_err(enum cli_kind kind, const char *arg, const char *msg)
{
	json_t *o = json_object();
	char err[256] = "";

	assert_int_equal(cli_field_set(o, kind, arg, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg))
		fail_msg("%s: \"%s\" does not contain \"%s\"", arg, err, msg);
	json_decref(o);
}

static void test_typed(void **state)
{
	expect(CLI_K_BACKSTORE,
	       (const char *const[]){"serial=0042", "block_size=4096", "thin=yes", "size=10G",
				     "size=1048576", "vendor=ACME", NULL},
	       "{\"block_size\":4096,\"serial\":\"0042\",\"size\":1048576,\"thin\":true,"
	       "\"vendor\":\"ACME\"}");
	expect(CLI_K_BACKSTORE, (const char *const[]){"size=10G", NULL}, "{\"size\":\"10G\"}");
	expect(CLI_K_TARGET,
	       (const char *const[]){"alias=my target", "demo_mode.enabled=true",
				     "demo_mode.read_only=off", NULL},
	       "{\"alias\":\"my target\",\"demo_mode\":{\"enabled\":true,\"read_only\":false}}");
	expect(CLI_K_PORTAL_GROUP, (const char *const[]){"portals=127.0.0.1:3260,[::1]:3260", NULL},
	       "{\"portals\":[\"127.0.0.1:3260\",\"[::1]:3260\"]}");
	expect(CLI_K_SETTINGS,
	       (const char *const[]){"iscsi.queue_depth=64", "iscsi.header_digest=false",
				     "log_level=info", NULL},
	       "{\"iscsi\":{\"header_digest\":false,\"queue_depth\":64},\"log_level\":\"info\"}");
	/* null restores a default */
	expect(CLI_K_BACKSTORE, (const char *const[]){"vendor=null", NULL}, "{\"vendor\":null}");
}

static void test_guessed_and_raw(void **state)
{
	expect(CLI_K_ANY,
	       (const char *const[]){"a=true", "b=12", "c=text", "d=-3", "e=1", "f=null", NULL},
	       "{\"a\":true,\"b\":12,\"c\":\"text\",\"d\":-3,\"e\":1,\"f\":null}");
	expect(CLI_K_ACL,
	       (const char *const[]){"auth:={\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}]}",
				     "addresses:=[\"10.0.0.0/8\"]", NULL},
	       "{\"addresses\":[\"10.0.0.0/8\"],\"auth\":{\"chap\":[{\"secret\":\"s\",\"user\":"
	       "\"u\"}]}}");
	/* a dotted field over a raw object merges into it */
	expect(CLI_K_TARGET,
	       (const char *const[]){"limits:={\"max_sessions\": 4}", "limits.queue_depth=8", NULL},
	       "{\"limits\":{\"max_sessions\":4,\"queue_depth\":8}}");
}

static void test_refused(void **state)
{
	expect_err(CLI_K_BACKSTORE, "block_size=big", "expected an integer");
	expect_err(CLI_K_BACKSTORE, "thin=maybe", "expected true or false");
	expect_err(CLI_K_ANY, "x:={bad", "not JSON");
	expect_err(CLI_K_ANY, "a..b=1", "empty field name");
	expect_err(CLI_K_ANY, "a.=1", "empty field name");
	expect_err(CLI_K_ANY, "=1", "not FIELD=VALUE");
	assert_false(cli_is_field("/srv/disk.img"));
	assert_false(cli_is_field("10G"));
	assert_false(cli_is_field("a-b=1"));
	assert_true(cli_is_field("read_only=true"));
	assert_true(cli_is_field("auth:={}"));
}

static void test_merge(void **state)
{
	json_t *a = json_loads("{\"x\": {\"p\": 1, \"q\": 2}, \"y\": 1}", 0, NULL);
	json_t *b = json_loads("{\"x\": {\"q\": 3}, \"z\": [1]}", 0, NULL);
	char *s;

	assert_int_equal(cli_json_merge(a, b), 0);
	s = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "{\"x\":{\"p\":1,\"q\":3},\"y\":1,\"z\":[1]}");
	free(s);
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_typed),
	    cmocka_unit_test(test_guessed_and_raw),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
