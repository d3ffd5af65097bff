/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/rpc_client.c against a fake daemon (fake_rpcd.h):
 * the request on the wire, results, JSON-RPC errors and their exit codes,
 * answers split in pieces, and every transport failure (no socket, closed
 * connection, not JSON, wrong id, no answer in time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "fake_rpcd.h"

static struct fake_rpcd fake;

static int setup(void **state)
{
	fake_start(&fake);
	return 0;
}

static int teardown(void **state)
{
	fake_stop(&fake);
	return 0;
}

static void connect_fake(struct rpc_client *c, int timeout_ms)
{
	struct rpc_error e = {0};

	rpc_client_init(c, timeout_ms);
	assert_int_equal(rpc_connect(c, fake.path, &e), 0);
}

static void test_result_and_request(void **state)
{
	struct rpc_client c;
	struct rpc_error e = {0};
	json_t *res;
	char *req;

	fake.mode = FAKE_NORMAL;
	fake_set(&fake, "backstore.get", "{\"result\": {\"name\": \"d\", \"size\": \"1G\"}}");
	connect_fake(&c, 5000);
	assert_int_equal(rpc_call(&c, "backstore.get", json_pack("{s:s}", "name", "d"), &res, &e),
			 0);
	assert_string_equal(json_string_value(json_object_get(res, "size")), "1G");
	json_decref(res);
	req = fake_request(&fake, fake_count(&fake) - 1);
	assert_string_equal(req, "{\"method\":\"backstore.get\",\"params\":{\"name\":\"d\"}}");
	free(req);
	/* a second call on the same connection; NULL params are {} */
	assert_int_equal(rpc_call(&c, "daemon.info", NULL, &res, &e), 0);
	json_decref(res);
	req = fake_request(&fake, fake_count(&fake) - 1);
	assert_string_equal(req, "{\"method\":\"daemon.info\",\"params\":{}}");
	free(req);
	rpc_close(&c);
}

static void test_errors_and_exit_codes(void **state)
{
	static const struct {
		int code;
		enum cli_exit exit;
	} map[] = {
	    {-32002, CLI_ENOTFOUND},	{-32003, CLI_EEXISTS},	 {-32001, CLI_EREJECTED},
	    {-32004, CLI_EREJECTED},	{-32602, CLI_EREJECTED}, {-32601, CLI_EREJECTED},
	    {-32008, CLI_EUNREACHABLE},
	};
	struct rpc_client c;
	json_t *res;

	fake.mode = FAKE_NORMAL;
	connect_fake(&c, 5000);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct rpc_error e = {0};
		char answer[256];

		snprintf(answer, sizeof(answer),
			 "{\"error\": {\"code\": %d, \"message\": \"no\", \"data\": "
			 "{\"kind\": \"target\", \"name\": \"t\"}}}",
			 map[i].code);
		fake_set(&fake, "x.y", answer);
		assert_int_equal(rpc_call(&c, "x.y", NULL, &res, &e), 1);
		assert_int_equal(e.code, map[i].code);
		assert_string_equal(e.message, "no");
		assert_string_equal(json_string_value(json_object_get(e.data, "name")), "t");
		assert_int_equal(rpc_error_exit(&e), map[i].exit);
		rpc_error_clear(&e);
	}
	rpc_close(&c);
}

/* The answer arrives one byte at a time; a 1 MiB answer. */
static void test_split_and_large(void **state)
{
	struct rpc_client c;
	struct rpc_error e = {0};
	size_t big = 1u << 20;
	char *answer = malloc(big + 64);
	json_t *res;

	fake.mode = FAKE_SPLIT;
	fake_set(&fake, "a.b", "{\"result\": [1, 2, 3]}");
	connect_fake(&c, 5000);
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), 0);
	assert_int_equal(json_array_size(res), 3);
	json_decref(res);
	fake.mode = FAKE_NORMAL;
	memcpy(answer, "{\"result\": \"", 12);
	memset(answer + 12, 'x', big);
	memcpy(answer + 12 + big, "\"}", 3);
	fake_set(&fake, "a.c", answer);
	assert_int_equal(rpc_call(&c, "a.c", NULL, &res, &e), 0);
	assert_int_equal(json_string_length(res), big);
	json_decref(res);
	free(answer);
	rpc_close(&c);
}

static void test_transport_failures(void **state)
{
	struct rpc_client c;
	struct rpc_error e = {0};
	json_t *res = NULL;

	/* no daemon */
	rpc_client_init(&c, 1000);
	assert_int_equal(rpc_connect(&c, "/tmp/utarget-no-such.sock", &e), -ENOENT);
	assert_non_null(strstr(e.message, "cannot reach utargetd"));
	assert_int_equal(rpc_error_exit(&e), CLI_EUNREACHABLE);
	/* not connected */
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), -ENOTCONN);

	/* the daemon closes without answering */
	fake.mode = FAKE_CLOSE;
	connect_fake(&c, 5000);
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), -ECONNRESET);
	assert_int_equal(rpc_error_exit(&e), CLI_EUNREACHABLE);
	assert_int_equal(c.fd, -1);

	/* not JSON; the wrong id: protocol errors */
	fake.mode = FAKE_GARBAGE;
	connect_fake(&c, 5000);
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), -EPROTO);
	assert_int_equal(rpc_error_exit(&e), CLI_EINTERNAL);
	rpc_close(&c);
	fake.mode = FAKE_WRONG_ID;
	connect_fake(&c, 5000);
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), -EPROTO);
	assert_int_equal(rpc_error_exit(&e), CLI_EINTERNAL);
	rpc_close(&c);

	/* no answer within the timeout */
	fake.mode = FAKE_SILENT;
	connect_fake(&c, 200);
	assert_int_equal(rpc_call(&c, "a.b", NULL, &res, &e), -ETIMEDOUT);
	assert_non_null(strstr(e.message, "did not answer in time"));
	assert_null(res);
	fake.mode = FAKE_NORMAL;
	rpc_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result_and_request),
	    cmocka_unit_test(test_errors_and_exit_codes),
	    cmocka_unit_test(test_split_and_large),
	    cmocka_unit_test(test_transport_failures),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
