/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/isns.c: the "isns" object through
 * cfg_parse/cfg_validate/cfg_dump: every field read and written back, the
 * server syntax (host, host:port, [IPv6], [IPv6]:port), and every refusal
 * with its path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/model.h"

#define HEAD "{\"version\": 1, "

static struct cfg *load_ok(const char *text)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), NULL, &c, &e);

	if (!rc)
		rc = cfg_validate(c, &e);
	if (rc)
		fail_msg("unexpected error %d: line %d: %s: %s", rc, e.line, e.path, e.msg);
	return c;
}

/* A parse error at path with msg in it. */
static void load_err(const char *text, const char *path, const char *msg)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), NULL, &c, &e);

	cfg_free(c);
	if (!rc)
		fail_msg("parsed (want an error at %s)", path);
	if (strcmp(e.path, path) || !strstr(e.msg, msg))
		fail_msg("got path \"%s\" msg \"%s\"; want path \"%s\" msg ~\"%s\"", e.path, e.msg,
			 path, msg);
}

static void test_absent(void **state)
{
	struct cfg *c = load_ok(HEAD "\"log_level\": \"info\"}");
	char *text;

	(void)state;
	assert_null(c->isns);
	text = cfg_dump(c);
	assert_null(strstr(text, "isns"));
	free(text);
	cfg_free(c);
}

static void test_full(void **state)
{
	struct cfg *c = load_ok(HEAD "\"isns\": {\"server\": \"isns.example:3206\", \"entity\": "
				     "\"utarget.example\", \"esi_port\": 3207, "
				     "\"access_control\": true}}");

	(void)state;
	assert_non_null(c->isns);
	assert_true(c->isns->enabled);
	assert_string_equal(c->isns->server, "isns.example:3206");
	assert_string_equal(c->isns->entity, "utarget.example");
	assert_true(c->isns->has_esi_port);
	assert_int_equal(c->isns->esi_port, 3207);
	assert_true(c->isns->access_control);
	cfg_free(c);
}

/* Defaults stay absent in the dump; what was written comes back. */
static void test_dump_round_trip(void **state)
{
	static const char *const in[] = {
	    HEAD "\"isns\": {\"server\": \"192.0.2.1\"}}",
	    HEAD "\"isns\": {\"server\": \"[2001:db8::1]:3205\", \"esi_port\": 0, "
		 "\"access_control\": true}}",
	    HEAD "\"isns\": {\"enabled\": false}}",
	    HEAD "\"isns\": {\"server\": \"h\", \"entity\": \"e\", \"enabled\": false}}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct cfg *c = load_ok(in[i]), *c2;
		char *t1 = cfg_dump(c), *t2;

		assert_non_null(t1);
		c2 = load_ok(t1);
		t2 = cfg_dump(c2);
		assert_string_equal(t1, t2);
		assert_int_equal(c->isns->enabled, c2->isns->enabled);
		assert_int_equal(c->isns->access_control, c2->isns->access_control);
		assert_int_equal(c->isns->has_esi_port, c2->isns->has_esi_port);
		if (i == 0) {
			assert_null(strstr(t1, "esi_port"));
			assert_null(strstr(t1, "access_control"));
			assert_null(strstr(t1, "enabled"));
			assert_null(strstr(t1, "entity"));
		}
		free(t1);
		free(t2);
		cfg_free(c);
		cfg_free(c2);
	}
}

static void test_server_syntax(void **state)
{
	static const struct {
		const char *in, *host;
		uint16_t port;
	} ok[] = {
	    {"isns.example", "isns.example", 0},
	    {"isns.example:3206", "isns.example", 3206},
	    {"192.0.2.1:1", "192.0.2.1", 1},
	    {"[2001:db8::1]", "2001:db8::1", 0},
	    {"[2001:db8::1]:65535", "2001:db8::1", 65535},
	    {"2001:db8::1", "2001:db8::1", 0}, /* bare IPv6: no port */
	};
	static const char *const bad[] = {
	    "",	       ":3205",	 "h:",	   "h:0",   "h:65536", "h:12x", "[::1",
	    "[]:3205", "[::1]x", "[::1]:", "a b:1", "a/b",     "h:-1",
	};
	char host[64];
	uint16_t port;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(cfg_isns_server_parse(ok[i].in, host, sizeof(host), &port), 0);
		assert_string_equal(host, ok[i].host);
		assert_int_equal(port, ok[i].port);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!cfg_isns_server_parse(bad[i], host, sizeof(host), &port))
			fail_msg("\"%s\" accepted", bad[i]);
	/* a host longer than the room */
	assert_int_equal(cfg_isns_server_parse("abcdefgh", host, 8, &port), -EINVAL);
}

static void test_refusals(void **state)
{
	(void)state;
	load_err(HEAD "\"isns\": \"h\"}", "isns", "expected an object");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"port\": 1}}", "isns.port", "");
	load_err(HEAD "\"isns\": {}}", "isns.server", "");
	load_err(HEAD "\"isns\": {\"server\": 5}}", "isns.server", "");
	load_err(HEAD "\"isns\": {\"server\": \"h:99999\"}}", "isns.server", "bad server");
	load_err(HEAD "\"isns\": {\"server\": \"[::1\"}}", "isns.server", "bad server");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"esi_port\": 65536}}", "isns.esi_port", "");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"esi_port\": -1}}", "isns.esi_port", "");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"access_control\": 1}}",
		 "isns.access_control", "");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"enabled\": \"yes\"}}", "isns.enabled", "");
	load_err(HEAD "\"isns\": {\"server\": \"h\", \"entity\": \"\"}}", "isns.entity", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_absent),	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_dump_round_trip), cmocka_unit_test(test_server_syntax),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
