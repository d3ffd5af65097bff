/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/rpc/server.c: the control socket, framing, JSON-RPC
 * envelopes, batches, errors, the group commit and the order of answers.
 *
 * Set-up: the server on its reactor, listening on a socket in a fresh
 * directory, and one client connected to it; the reactor runs one
 * iteration at a time (pump()). The methods are a test table (methods.c
 * finds and checks them as it does the real ones): t.echo (answers its
 * parameters, counts calls), t.fail (an error of its own), t.add
 * (mutating: a back-store change, answered once committed), t.noop
 * (mutating, nothing to change), t.dry (a dry run), t.save (rewrites the
 * file once committed) and t.later (answers later, rpc_call_done()). The
 * config layer is tests/unit/rpc/fake_ctl.c: prepare and commit recorded,
 * failures on request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fake_ctl.h"
#include "rpc/server.c"
#include "ut_text.h"

/* ---- the test's methods ---- */
static int echoes;
static struct rpc_call *later[4];
static int nlater;

static int m_echo(struct rpc_call *call)
{
	echoes++;
	call->result = json_pack("{s:O}", "params", call->params);
	return 0;
}

static int m_fail(struct rpc_call *call)
{
	return rpc_fail(call, RPC_NOT_FOUND, json_pack("{s:s}", "kind", "thing"), "no such thing");
}

static json_t *add_finish(struct rpc_call *call)
{
	return json_pack("{s:s}", "added", rpc_str(call, "name"));
}

static int m_add(struct rpc_call *call)
{
	if (!rpc_chg(call, CFG_CHG_BS_ADD, NULL, NULL, rpc_str(call, "name")))
		return -1;
	call->finish = add_finish;
	return 0;
}

static json_t *noop_finish(struct rpc_call *call)
{
	return json_pack("{s:b}", "changed", false);
}

static int m_noop(struct rpc_call *call)
{
	call->finish = noop_finish;
	return 0;
}

static int m_dry(struct rpc_call *call)
{
	call->dry_run = true;
	return m_add(call);
}

static int m_save(struct rpc_call *call)
{
	call->compact = true;
	return m_add(call);
}

static int later_start(struct rpc_call *call)
{
	if (rpc_has(call, "refuse"))
		return rpc_fail(call, RPC_NOT_SUPPORTED, NULL, "refused at start");
	later[nlater++] = call;
	return 0;
}

static int m_later(struct rpc_call *call)
{
	call->start = later_start;
	return 0;
}

static const struct rpc_param p_echo[] = {{"x", RPC_T_ANY, false}, {0}};
static const struct rpc_param p_add[] = {{"name", RPC_T_STRING, true}, {0}};
static const struct rpc_param p_later[] = {{"refuse", RPC_T_BOOLEAN, false}, {0}};

const struct rpc_method rpc_methods_config[] = {
    {.name = "t.echo", .fn = m_echo, .params = p_echo},
    {.name = "t.fail", .fn = m_fail},
    {.name = "t.add", .fn = m_add, .mutating = true, .params = p_add},
    {.name = "t.noop", .fn = m_noop, .mutating = true},
    {.name = "t.dry", .fn = m_dry, .mutating = true, .params = p_add},
    {.name = "t.save", .fn = m_save, .mutating = true, .params = p_add},
    {0},
};
const struct rpc_method rpc_methods_session[] = {
    {.name = "t.later", .fn = m_later, .params = p_later},
    {0},
};
const struct rpc_method rpc_methods_backstore[] = {{0}};
const struct rpc_method rpc_methods_target[] = {{0}};
const struct rpc_method rpc_methods_alua[] = {{0}};
const struct rpc_method rpc_methods_reservation[] = {{0}};
const struct rpc_method rpc_methods_stats[] = {{0}};
const struct rpc_method rpc_methods_isns[] = {{0}};

/* ---- fixture: the server and a client ---- */
static char dir[32], sock[96];
static struct reactor *r;
static int cfd = -1;
static char in[1 << 16];
static size_t inlen;
static bool eof;

static void stop_msg(struct reactor_msg *m)
{
	reactor_stop(r);
	free(m);
}

/* One iteration of the server's reactor. */
static void pump(void)
{
	struct reactor_msg *m = calloc(1, sizeof(*m));

	m->fn = stop_msg;
	reactor_post(r, m);
	reactor_run(r);
}

static int client_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	pump(); /* accepted */
	return fd;
}

static int setup(void **state)
{
	struct rpc_server_opts o = {.path = sock, .version = "9.9"};

	(void)state;
	fake_ctl_reset();
	echoes = 0;
	nlater = 0;
	inlen = 0;
	eof = false;
	snprintf(dir, sizeof(dir), "/tmp/ut-rpc-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof(sock), "%s/run/rpc.sock", dir);
	assert_int_equal(reactor_create(&r, 0), 0);
	assert_int_equal(rpc_server_start(r, &o), 0);
	cfd = client_connect();
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (cfd >= 0)
		close(cfd);
	cfd = -1;
	pump();
	rpc_server_stop();
	reactor_destroy(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* JSON with ' for " */
static void put(const char *text)
{
	size_t n = strlen(text);
	char *d = ut_dq(text);

	assert_int_equal(write(cfd, d, n), (ssize_t)n);
	free(d);
}

/* Whatever the server sent by now. */
static void drain(void)
{
	for (;;) {
		ssize_t k = read(cfd, in + inlen, sizeof(in) - inlen);

		if (k > 0) {
			inlen += (size_t)k;
			continue;
		}
		if (k == 0)
			eof = true;
		break;
	}
}

/* The next answer line, parsed, after at most a few iterations; NULL:
 * none came. */
static json_t *get(void)
{
	for (int i = 0; i < 8; i++) {
		char *nl;

		drain();
		nl = memchr(in, '\n', inlen);
		if (nl) {
			size_t len = (size_t)(nl - in);
			json_t *j = json_loadb(in, len, 0, NULL);

			assert_non_null(j);
			memmove(in, nl + 1, inlen - len - 1);
			inlen -= len + 1;
			return j;
		}
		pump();
	}
	return NULL;
}

/* One request line, its answer. */
static json_t *call(const char *line)
{
	put(line);
	put("\n");
	return get();
}

static json_int_t err_code(const json_t *resp)
{
	return json_integer_value(json_object_get(json_object_get(resp, "error"), "code"));
}

static const char *err_msg(const json_t *resp)
{
	return json_string_value(json_object_get(json_object_get(resp, "error"), "message"));
}

static const json_t *result(const json_t *resp)
{
	return json_object_get(resp, "result");
}

/* ---- envelopes ---- */
static void test_request(void **state)
{
	json_t *a;

	(void)state;
	a = call("{'jsonrpc': '2.0', 'id': 1, 'method': 't.echo', 'params': {'x': [1, 2]}}");
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "jsonrpc")), "2.0");
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 1);
	assert_null(json_object_get(a, "error"));
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(result(a), "params"), "x")), 2);
	json_decref(a);
	/* no params: an empty object */
	a = call("{'jsonrpc': '2.0', 'id': 2, 'method': 't.echo'}");
	assert_int_equal(json_object_size(json_object_get(result(a), "params")), 0);
	json_decref(a);
	assert_int_equal(echoes, 2);
	assert_string_equal(rpc_server_path(), sock);
	assert_string_equal(rpc_server_version(), "9.9");
	assert_true(rpc_server_uptime() >= 0);
}

/* Ids: strings, numbers and null come back as given; others are an
 * invalid request answered with id null. */
static void test_ids(void **state)
{
	static const char *const ok[] = {"'abc'", "-7", "1.5", "null", "''"};
	static const char *const bad[] = {"{}", "[1]", "true"};
	char line[256];
	json_t *a;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		json_t *want;
		char *w = ut_dq(ok[i]);

		want = json_loads(w, JSON_DECODE_ANY, NULL);
		snprintf(line, sizeof(line), "{'jsonrpc': '2.0', 'id': %s, 'method': 't.echo'}",
			 ok[i]);
		a = call(line);
		assert_non_null(a);
		assert_true(json_equal(json_object_get(a, "id"), want));
		assert_non_null(result(a));
		json_decref(a);
		json_decref(want);
		free(w);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc': '2.0', 'id': %s, 'method': 't.echo'}",
			 bad[i]);
		a = call(line);
		assert_int_equal(err_code(a), RPC_INVALID_REQUEST);
		assert_true(json_is_null(json_object_get(a, "id")));
		json_decref(a);
	}
	assert_int_equal(echoes, 5);
}

static void test_invalid(void **state)
{
	static const struct {
		const char *line;
		int code;
		json_int_t id;		     /* 0: null */
		const char *msg;	     /* its start; NULL: not checked */
		const char *data_key, *data; /* error.data[data_key] */
	} t[] = {
	    {"{'jsonrpc': '2.0', 'id': 1, 'method': ", RPC_PARSE_ERROR, 0, "parse error: "},
	    /* duplicate keys are refused (which one would count?) */
	    {"{'jsonrpc': '2.0', 'id': 1, 'method': 't.echo', 'method': 't.fail'}",
	     RPC_PARSE_ERROR},
	    /* a line is an object or a batch: nothing else parses */
	    {"42", RPC_PARSE_ERROR},
	    /* the envelope: its id when it has a valid one */
	    {"{'jsonrpc': '1.0', 'id': 3, 'method': 't.echo'}", RPC_INVALID_REQUEST, 3,
	     "a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\" and a string \"method\""},
	    {"{'id': 4, 'method': 't.echo'}", RPC_INVALID_REQUEST, 4},
	    {"{'jsonrpc': '2.0', 'id': 5, 'method': 7}", RPC_INVALID_REQUEST, 5},
	    {"{'jsonrpc': '2.0', 'id': 6, 'method': 't.nosuch'}", RPC_METHOD_NOT_FOUND, 6,
	     "method not found"},
	    {"{'jsonrpc': '2.0', 'id': 7, 'method': 't.echo', 'params': [1]}", RPC_INVALID_PARAMS,
	     7, "params must be an object (by name)"},
	    /* the method's parameters are checked (methods.c) */
	    {"{'jsonrpc': '2.0', 'id': 8, 'method': 't.echo', 'params': {'y': 1}}",
	     RPC_INVALID_PARAMS, 8, "unknown parameter \"y\"", "param", "y"},
	    /* a method's own error, with its data */
	    {"{'jsonrpc': '2.0', 'id': 9, 'method': 't.fail'}", RPC_NOT_FOUND, 9, "no such thing",
	     "kind", "thing"},
	};
	json_t *a;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		a = call(t[i].line);
		if (!a || err_code(a) != t[i].code)
			fail_msg("%s: code %lld, want %d", t[i].line,
				 a ? (long long)err_code(a) : 0, t[i].code);
		if (t[i].id)
			assert_int_equal(json_integer_value(json_object_get(a, "id")), t[i].id);
		else
			assert_true(json_is_null(json_object_get(a, "id")));
		if (t[i].msg)
			assert_memory_equal(err_msg(a), t[i].msg, strlen(t[i].msg));
		if (t[i].data_key)
			assert_string_equal(
			    json_string_value(json_object_get(
				json_object_get(json_object_get(a, "error"), "data"),
				t[i].data_key)),
			    t[i].data);
		json_decref(a);
	}
	assert_int_equal(echoes, 0);
	/* the connection is still good */
	a = call("{'jsonrpc': '2.0', 'id': 10, 'method': 't.echo'}");
	assert_non_null(result(a));
	json_decref(a);
}

/* Notifications (no id) are run and never answered, errors included. */
static void test_notifications(void **state)
{
	json_t *a;

	(void)state;
	put("{'jsonrpc': '2.0', 'method': 't.echo'}\n");
	put("{'jsonrpc': '2.0', 'method': 't.nosuch'}\n");
	put("{'jsonrpc': '2.0', 'method': 't.echo', 'params': [1]}\n");
	put("{'jsonrpc': '2.0', 'method': 't.add', 'params': {'name': 'n'}}\n");
	/* an empty line and a CR LF line end */
	put("\n\r\n");
	put("{'jsonrpc': '2.0', 'id': 'last', 'method': 't.echo'}\r\n");
	a = get();
	assert_string_equal(json_string_value(json_object_get(a, "id")), "last");
	json_decref(a);
	assert_int_equal(echoes, 2);
	/* the notification's change was committed all the same */
	assert_string_equal(fctl.log, "prepare 1\ncommit 1\n");
	assert_null(get());
}

/* ---- batches ---- */
static void test_batch(void **state)
{
	json_t *a;

	(void)state;
	a = call("[{'jsonrpc': '2.0', 'id': 1, 'method': 't.echo'},"
		 " {'jsonrpc': '2.0', 'method': 't.echo'},"
		 " 42,"
		 " {'jsonrpc': '2.0', 'id': 2, 'method': 't.fail'}]");
	assert_true(json_is_array(a));
	/* the notification has no slot; the others in order */
	assert_int_equal(json_array_size(a), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "id")), 1);
	assert_int_equal(err_code(json_array_get(a, 1)), RPC_INVALID_REQUEST);
	assert_string_equal(err_msg(json_array_get(a, 1)), "not a request object");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 2), "id")), 2);
	assert_int_equal(err_code(json_array_get(a, 2)), RPC_NOT_FOUND);
	json_decref(a);
	assert_int_equal(echoes, 2);
	a = call("[]");
	assert_int_equal(err_code(a), RPC_INVALID_REQUEST);
	assert_string_equal(err_msg(a), "empty batch");
	json_decref(a);
	/* notifications only: nothing at all is sent */
	put("[{'jsonrpc': '2.0', 'method': 't.echo'}, {'jsonrpc': '2.0', 'method': 't.echo'}]\n");
	assert_null(get());
	assert_int_equal(echoes, 4);
}

/* A change and then a read in one batch: the read commits what is
 * pending first (it must see durable state); the slots keep their order. */
static void test_batch_change_then_read(void **state)
{
	json_t *a;

	(void)state;
	a = call("[{'jsonrpc': '2.0', 'id': 1, 'method': 't.add', 'params': {'name': 'd'}},"
		 " {'jsonrpc': '2.0', 'id': 2, 'method': 't.echo'},"
		 " {'jsonrpc': '2.0', 'id': 3, 'method': 't.add', 'params': {'name': 'e'}}]");
	assert_int_equal(json_array_size(a), 3);
	assert_string_equal(
	    json_string_value(json_object_get(result(json_array_get(a, 0)), "added")), "d");
	assert_non_null(result(json_array_get(a, 1)));
	assert_string_equal(
	    json_string_value(json_object_get(result(json_array_get(a, 2)), "added")), "e");
	assert_string_equal(fctl.log, "prepare 1\ncommit 1\nprepare 1\ncommit 1\n");
	json_decref(a);
}

/* ---- group commit ---- */

/* Changes read in one iteration: prepared as read, made durable with one
 * commit, answered after it in order, with the effects on sessions. */
static void test_group_commit(void **state)
{
	json_t *a, *e;

	(void)state;
	put("{'jsonrpc': '2.0', 'id': 1, 'method': 't.add', 'params': {'name': 'd'}}\n"
	    "{'jsonrpc': '2.0', 'id': 2, 'method': 't.add', 'params': {'name': 'busy'}}\n"
	    "{'jsonrpc': '2.0', 'id': 3, 'method': 't.noop'}\n");
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 1);
	assert_string_equal(json_string_value(json_object_get(result(a), "added")), "d");
	assert_null(json_object_get(result(a), "effects"));
	json_decref(a);
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 2);
	e = json_object_get(result(a), "effects");
	assert_int_equal(json_array_size(e), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(e, 0), "change")),
			    "backstore busy: created");
	assert_string_equal(json_string_value(json_object_get(json_array_get(e, 0), "effect")),
			    "its sessions were dropped");
	json_decref(a);
	/* nothing to change: answered at once (before the commit's answers
	 * could be, it still comes after them: its line is later) */
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 3);
	assert_false(json_boolean_value(json_object_get(result(a), "changed")));
	json_decref(a);
	assert_string_equal(fctl.log, "prepare 1\nprepare 1\ncommit 1 1\n");
	assert_int_equal(fctl.compactions, 1); /* after a commit: if grown enough */
	assert_int_equal(fctl.saves, 0);
}

/* Not durable: every change of the commit rolled back and answered so. */
static void test_commit_fails(void **state)
{
	json_t *a, *data;

	(void)state;
	fctl.commit_rc = -EIO;
	put("{'jsonrpc': '2.0', 'id': 1, 'method': 't.add', 'params': {'name': 'd'}}\n"
	    "{'jsonrpc': '2.0', 'id': 2, 'method': 't.add', 'params': {'name': 'e'}}\n");
	for (int id = 1; id <= 2; id++) {
		a = get();
		assert_int_equal(json_integer_value(json_object_get(a, "id")), id);
		assert_int_equal(err_code(a), RPC_PERSIST_FAILED);
		assert_string_equal(err_msg(a),
				    "not made durable, rolled back: cannot write the journal");
		data = json_object_get(json_object_get(a, "error"), "data");
		assert_int_equal(json_integer_value(json_object_get(data, "errno")), EIO);
		json_decref(a);
	}
	assert_string_equal(fctl.log, "prepare 1\nprepare 1\ncommit 1 1\nrollback 1\nrollback 1\n");
	assert_int_equal(fctl.compactions, 0);
}

/* The config layer refuses a change: the code by errno, the change named. */
static void test_prepare_fails(void **state)
{
	json_t *a, *data;

	(void)state;
	fctl.prepare_rc = -EEXIST;
	a = call("{'jsonrpc': '2.0', 'id': 1, 'method': 't.add', 'params': {'name': 'd'}}");
	assert_int_equal(err_code(a), RPC_EXISTS);
	assert_string_equal(err_msg(a), "backstores[1]: refused by the fake");
	data = json_object_get(json_object_get(a, "error"), "data");
	assert_string_equal(json_string_value(json_object_get(data, "path")), "backstores[1]");
	assert_string_equal(json_string_value(json_object_get(data, "message")),
			    "refused by the fake");
	assert_string_equal(json_string_value(json_object_get(data, "change")),
			    "backstore d: created");
	assert_null(json_object_get(data, "errno"));
	json_decref(a);
	/* the running side: its errno too */
	fctl.prepare_rc = -ENOENT;
	fctl.runtime = true;
	a = call("{'jsonrpc': '2.0', 'id': 2, 'method': 't.add', 'params': {'name': 'd'}}");
	assert_int_equal(err_code(a), RPC_APPLY_FAILED);
	data = json_object_get(json_object_get(a, "error"), "data");
	assert_int_equal(json_integer_value(json_object_get(data, "errno")), ENOENT);
	json_decref(a);
	assert_int_equal(fctl.commits, 0);
}

/* errno -> code (docs/rpc.md) */
static void test_fail_cfg_codes(void **state)
{
	static const struct {
		int rc;
		bool runtime;
		int code;
	} t[] = {
	    {-ENOENT, false, RPC_NOT_FOUND},	 {-ENOENT, true, RPC_APPLY_FAILED},
	    {-EEXIST, false, RPC_EXISTS},	 {-EBUSY, false, RPC_IN_USE},
	    {-ENOMEM, true, RPC_INTERNAL_ERROR}, {-EOPNOTSUPP, true, RPC_NOT_SUPPORTED},
	    {-EPERM, true, RPC_CONFIG_INVALID},	 {-EINVAL, false, RPC_CONFIG_INVALID},
	    {-EINVAL, true, RPC_APPLY_FAILED},	 {-EADDRINUSE, true, RPC_APPLY_FAILED},
	};
	struct cfg_err err = {.line = 12, .path = "targets[0]"};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rpc_call c = {0};

		assert_int_equal(rpc_fail_cfg(&c, t[i].rc, &err, t[i].runtime), -1);
		if (c.code != t[i].code)
			fail_msg("errno %d (runtime %d): code %d, want %d", -t[i].rc, t[i].runtime,
				 c.code, t[i].code);
		/* no message of its own: strerror */
		assert_string_equal(c.msg + strlen("targets[0]: "), strerror(-t[i].rc));
		assert_int_equal(json_integer_value(json_object_get(c.data, "line")), 12);
		rpc_call_clear(&c);
	}
}

/* Mutating methods that change nothing now: answered at once. */
static void test_dry_run_and_save(void **state)
{
	json_t *a;

	(void)state;
	a = call("{'jsonrpc': '2.0', 'id': 1, 'method': 't.dry', 'params': {'name': 'd'}}");
	assert_string_equal(json_string_value(json_object_get(result(a), "added")), "d");
	assert_string_equal(fctl.log, "");
	json_decref(a);
	/* a reload's compaction: the file rewritten once committed */
	a = call("{'jsonrpc': '2.0', 'id': 2, 'method': 't.save', 'params': {'name': 'd'}}");
	assert_non_null(result(a));
	assert_int_equal(fctl.saves, 1);
	assert_int_equal(fctl.compactions, 0);
	json_decref(a);
}

/* Answers that come later keep their place in the connection's order. */
static void test_answer_later(void **state)
{
	json_t *a;

	(void)state;
	put("{'jsonrpc': '2.0', 'id': 1, 'method': 't.later'}\n"
	    "{'jsonrpc': '2.0', 'id': 2, 'method': 't.echo'}\n"
	    "[{'jsonrpc': '2.0', 'id': 3, 'method': 't.echo'},"
	    " {'jsonrpc': '2.0', 'id': 4, 'method': 't.later'}]\n");
	assert_null(get());
	assert_int_equal(nlater, 2);
	assert_int_equal(echoes, 2);
	/* the second finishes first: still nothing (the first is before it) */
	later[1]->result = json_pack("{s:i}", "n", 4);
	rpc_call_done(later[1]);
	assert_null(get());
	later[0]->result = json_pack("{s:i}", "n", 1);
	rpc_call_done(later[0]);
	a = get();
	assert_int_equal(json_integer_value(json_object_get(result(a), "n")), 1);
	json_decref(a);
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 2);
	json_decref(a);
	a = get();
	assert_int_equal(json_array_size(a), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "id")), 3);
	assert_int_equal(json_integer_value(json_object_get(result(json_array_get(a, 1)), "n")), 4);
	json_decref(a);
	/* refused at start: answered at once; no result and no error: an
	 * internal error */
	a = call("{'jsonrpc': '2.0', 'id': 5, 'method': 't.later', 'params': {'refuse': true}}");
	assert_int_equal(err_code(a), RPC_NOT_SUPPORTED);
	json_decref(a);
	put("{'jsonrpc': '2.0', 'id': 6, 'method': 't.later'}\n");
	assert_null(get());
	rpc_call_done(later[2]);
	a = get();
	assert_int_equal(err_code(a), RPC_INTERNAL_ERROR);
	json_decref(a);
}

/* The client goes away while an answer is pending: it is freed once the
 * answer is done, nothing is sent. */
static void test_client_gone(void **state)
{
	(void)state;
	put("{'jsonrpc': '2.0', 'id': 1, 'method': 't.later'}\n");
	assert_null(get());
	close(cfd);
	cfd = -1;
	pump();
	later[0]->result = json_object();
	rpc_call_done(later[0]);
	pump();
	cfd = client_connect(); /* the server still serves */
	json_t *a = call("{'jsonrpc': '2.0', 'id': 2, 'method': 't.echo'}");
	assert_non_null(result(a));
	json_decref(a);
}

/* ---- framing ---- */

/* A half-close: what was asked is answered, then the connection closes. */
static void test_half_close(void **state)
{
	json_t *a;

	(void)state;
	put("{'jsonrpc': '2.0', 'id': 1, 'method': 't.echo'}\n"
	    "{'jsonrpc': '2.0', 'id': 2, 'method': 't.add', 'params': {'name': 'd'}}\n");
	shutdown(cfd, SHUT_WR);
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 1);
	json_decref(a);
	a = get();
	assert_int_equal(json_integer_value(json_object_get(a, "id")), 2);
	json_decref(a);
	for (int i = 0; i < 4 && !eof; i++) {
		pump();
		drain();
	}
	assert_true(eof);
}

/* A line too long to find its end: answered once, then closed. */
static void test_oversize(void **state)
{
	size_t chunk = 1 << 20, sent = 0, total = RPC_MAX_REQUEST + 4 * chunk;
	char *junk = malloc(chunk);
	json_t *a;

	(void)state;
	memset(junk, ' ', chunk);
	while (sent < total) {
		ssize_t k = send(cfd, junk, chunk, MSG_NOSIGNAL);

		if (k < 0 && errno == EAGAIN) {
			pump();
			drain();
			if (eof || inlen)
				break;
			continue;
		}
		if (k < 0)
			break; /* the server closed */
		sent += (size_t)k;
	}
	free(junk);
	a = get();
	assert_non_null(a);
	assert_int_equal(err_code(a), RPC_INVALID_REQUEST);
	assert_string_equal(err_msg(a), "request too large (16 MiB per line)");
	json_decref(a);
	for (int i = 0; i < 4 && !eof; i++) {
		pump();
		drain();
	}
	assert_true(eof);
	assert_true(sent > RPC_MAX_REQUEST);
}

/* The socket: 0600 in a directory created 0700; a second server on the
 * same path is refused while the first lives. */
static void test_socket(void **state)
{
	struct rpc_server_opts o = {.path = sock};
	struct stat st;
	char d[160];

	(void)state;
	assert_int_equal(stat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(d, sizeof(d), "%s/run", dir);
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_ptr_equal(fctl.flush, server_commit);
	/* connect() answers: in use (and the live one is not disturbed) */
	assert_int_equal(rpc_server_start(r, &o), -EADDRINUSE);
	assert_int_equal(stat(sock, &st), 0);
	json_t *a = call("{'jsonrpc': '2.0', 'id': 1, 'method': 't.echo'}");
	assert_non_null(result(a));
	json_decref(a);
}

int main(void)
{
#define TC(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TC(test_request),
	    TC(test_ids),
	    TC(test_invalid),
	    TC(test_notifications),
	    TC(test_batch),
	    TC(test_batch_change_then_read),
	    TC(test_group_commit),
	    TC(test_commit_fails),
	    TC(test_prepare_fails),
	    TC(test_fail_cfg_codes),
	    TC(test_dry_run_and_save),
	    TC(test_answer_later),
	    TC(test_client_gone),
	    TC(test_half_close),
	    TC(test_oversize),
	    TC(test_socket),
	};
#undef TC
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
