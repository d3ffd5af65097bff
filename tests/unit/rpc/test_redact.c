/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/rpc/redact.c: no CHAP secret in an answer but
 * config.get's, and a change that sends a credential back without its
 * secret keeps the secret it had (issue 18, item 4).
 *
 *   answer:  {"auth": {"chap": [{"user": "u", "secret": S}]}}
 *        ->  {"auth": {"chap": [{"user": "u", "redacted": true}]}}
 *   change:  in  {"auth": {"chap": [{"user": "u", "redacted": true}, NEW]}}
 *            cur {"auth": {"chap": [{"user": "u", "secret": S}]}}
 *        ->  in  {"auth": {"chap": [{"user": "u", "secret": S}, NEW]}} */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpc/redact.c"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *v = json_loads(s, 0, &e);

	if (!v)
		fail_msg("bad test JSON: %s: %s", s, e.text);
	return v;
}

static void assert_json(json_t *v, const char *want)
{
	json_t *w = parse(want);
	char *got = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);

	if (!json_equal(v, w))
		fail_msg("got  %s\nwant %s", got, want);
	free(got);
	json_decref(w);
}

/* Everywhere an "auth" object appears (a target, its ACLs, the discovery
 * settings, a list of targets), every credential loses its secret; nothing
 * else changes. */
static void test_redact_everywhere(void **state)
{
	json_t *v = parse("[{\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", \"secret\": "
			  "\"0123456789ab\"}, {\"user\": \"b\", \"secret\": \"short\", "
			  "\"allow_short\": true}], \"mutual\": {\"user\": \"t\", \"secret\": "
			  "\"target-secret\"}, \"algorithms\": [\"SHA-256\"]}, \"acls\": "
			  "[{\"initiator\": \"i\", \"auth\": {\"chap\": [{\"user\": \"c\", "
			  "\"secret\": \"acl-secret-1\"}]}}], \"secret\": \"not a credential\"},"
			  " {\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", \"secret\": "
			  "\"disc-secret-1\"}]}}}]");

	(void)state;
	rpc_redact(v);
	assert_json(v, "[{\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", \"redacted\": "
		       "true}, {\"user\": \"b\", \"redacted\": true, \"allow_short\": true}], "
		       "\"mutual\": {\"user\": \"t\", \"redacted\": true}, \"algorithms\": "
		       "[\"SHA-256\"]}, \"acls\": [{\"initiator\": \"i\", \"auth\": {\"chap\": "
		       "[{\"user\": \"c\", \"redacted\": true}]}}], \"secret\": \"not a "
		       "credential\"}, {\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", "
		       "\"redacted\": true}]}}}]");
	json_decref(v);
}

/* A read-modify-write: the redacted credential gets its secret (and
 * allow_short) back, the new one keeps its own, "redacted" goes. */
static void test_unredact_keeps_secret(void **state)
{
	json_t *cur = parse("{\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", \"secret\": "
			    "\"short\", \"allow_short\": true}], \"mutual\": {\"user\": \"t\", "
			    "\"secret\": \"target-secret\"}}}");
	json_t *in =
	    parse("{\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", \"redacted\": "
		  "true}, {\"user\": \"n\", \"secret\": \"new-secret-12\"}], \"mutual\": "
		  "{\"user\": \"t\", \"redacted\": true}}}");

	(void)state;
	rpc_unredact(in, cur);
	assert_json(in, "{\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", \"secret\": "
			"\"short\", \"allow_short\": true}, {\"user\": \"n\", \"secret\": "
			"\"new-secret-12\"}], \"mutual\": {\"user\": \"t\", \"secret\": "
			"\"target-secret\"}}}");
	json_decref(in);
	json_decref(cur);
}

/* Nested sections (settings.set's "discovery") are followed. */
static void test_unredact_nested(void **state)
{
	json_t *cur = parse("{\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", \"secret\": "
			    "\"disc-secret-1\"}]}}}");
	json_t *in = parse("{\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\"}]}}}");

	(void)state;
	rpc_unredact(in, cur);
	assert_json(in, "{\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", \"secret\": "
			"\"disc-secret-1\"}]}}}");
	json_decref(in);
	json_decref(cur);
}

/* No secret is borrowed from elsewhere: another user, a user named with
 * another case (byte for byte), the chap list for a mutual credential,
 * or another object; such a credential stays without a secret, for the
 * config's rules to refuse. */
static void test_unredact_only_same_user_same_place(void **state)
{
	json_t *cur = parse("{\"auth\": {\"chap\": [{\"user\": \"a\", \"secret\": "
			    "\"secret-of-a1\"}, {\"user\": \"t\", \"secret\": \"secret-of-t1\"}]}, "
			    "\"other\": {\"auth\": {\"chap\": [{\"user\": \"z\", \"secret\": "
			    "\"secret-of-z1\"}]}}}");
	json_t *in = parse("{\"auth\": {\"chap\": [{\"user\": \"A\", \"redacted\": true}, "
			   "{\"user\": \"z\", \"redacted\": true}], \"mutual\": {\"user\": \"t\", "
			   "\"redacted\": true}}}");

	(void)state;
	rpc_unredact(in, cur);
	assert_json(in, "{\"auth\": {\"chap\": [{\"user\": \"A\"}, {\"user\": \"z\"}], "
			"\"mutual\": {\"user\": \"t\"}}}");
	json_decref(in);
	json_decref(cur);
}

/* A change of an object that had no auth at all. */
static void test_unredact_no_current(void **state)
{
	json_t *cur = parse("{\"name\": \"t\"}");
	json_t *in = parse("{\"auth\": {\"chap\": [{\"user\": \"a\", \"redacted\": true}]}}");

	(void)state;
	rpc_unredact(in, cur);
	assert_json(in, "{\"auth\": {\"chap\": [{\"user\": \"a\"}]}}");
	json_decref(in);
	json_decref(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_redact_everywhere),
	    cmocka_unit_test(test_unredact_keeps_secret),
	    cmocka_unit_test(test_unredact_nested),
	    cmocka_unit_test(test_unredact_only_same_user_same_place),
	    cmocka_unit_test(test_unredact_no_current),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
