/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for what the control API lists of the running side
 * (src/rpc/methods_backstore.c, methods_session.c), against fakes of what
 * those read through the public interfaces:
 *   - backstore.list / backstore.get: current_size, the logical unit's size,
 *     and medium, the back-store's facts of its medium
 *     now (scsi_lu_size() of cfg_ctl_lu()), also for a file back-store
 *     without a configured size; none for a back-store nothing runs;
 *   - session.list: the login time (ISO 8601, UTC), the negotiated
 *     session-wide values, the counters, and per connection the digests
 *     and each side's MaxRecvDataSegmentLength; the target filter.
 *
 * Set-up: the real method tables of those two files, the other tables
 * empty; the config tree parsed from text with its index (config/ctl.h's
 * cfg_ctl_tree() and cfg_ctl_index() answer them), fake_ctl.c for the
 * server's side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"
#include "ut_text.h"

const struct rpc_method rpc_methods_config[] = {{0}};
const struct rpc_method rpc_methods_target[] = {{0}};
const struct rpc_method rpc_methods_alua[] = {{0}};
const struct rpc_method rpc_methods_reservation[] = {{0}};
const struct rpc_method rpc_methods_stats[] = {{0}};
const struct rpc_method rpc_methods_isns[] = {{0}};

/* ---- the config's running side (config/ctl.h) and the core ---- */
static struct cfg *tree;
static struct cfg_index *ix;
static struct scsi_lu *const imp_lu = (struct scsi_lu *)&tree; /* any address */

const struct cfg *cfg_ctl_tree(void)
{
	return tree;
}

const struct cfg_index *cfg_ctl_index(void)
{
	return ix;
}

/* "imp" runs (its image's size: 3 MiB + 512), "idle" does not */
struct scsi_lu *cfg_ctl_lu(const char *backstore)
{
	return backstore && !strcmp(backstore, "imp") ? imp_lu : NULL;
}

uint64_t scsi_lu_size(const struct scsi_lu *lu)
{
	assert_ptr_equal(lu, imp_lu);
	return 3146240;
}

/* the medium's facts (an rbd image's, say) */
size_t scsi_lu_medium_facts(struct scsi_lu *lu, struct bs_fact *f, size_t max)
{
	assert_ptr_equal(lu, imp_lu);
	assert_int_equal(max, BS_FACTS_MAX);
	f[0].key = "object_size";
	snprintf(f[0].value, sizeof(f[0].value), "4194304");
	f[1].key = "features";
	snprintf(f[1].value, sizeof(f[1].value), "layering,exclusive-lock");
	return 2;
}

/* a medium's consistency check (a dedup store's fsck) */
int scsi_lu_medium_check(struct scsi_lu *lu, struct bs_fact *f, size_t max, size_t *n)
{
	assert_ptr_equal(lu, imp_lu);
	assert_int_equal(max, BS_FACTS_MAX);
	f[0].key = "leaked";
	snprintf(f[0].value, sizeof(f[0].value), "0");
	f[1].key = "store";
	snprintf(f[1].value, sizeof(f[1].value), "/var/lib/d1");
	*n = 2;
	return 0;
}

/* ---- the fabric's sessions (fabric/iscsi/iscsi.h) ---- */
static struct iscsi_session_info sessions[2];

int iscsi_session_list(struct iscsi_session_info **out, size_t *n)
{
	*out = malloc(sizeof(sessions));
	assert_non_null(*out);
	memcpy(*out, sessions, sizeof(sessions));
	*n = 2;
	return 0;
}

/* iscsi_stats.c's other readers (stats.get, not called here) */
void iscsi_instance_stats(struct iscsi_instance_stats *out)
{
	*out = (struct iscsi_instance_stats){0};
}

int iscsi_target_stats_list(const char *name, struct iscsi_target_stats **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	return name ? -ENOENT : 0;
}

void iscsi_target_stats_free(struct iscsi_target_stats *v, size_t n)
{
	free(v);
}

int iscsi_session_drop(uint16_t tsih, int cid)
{
	return -ENOENT;
}

int iscsi_session_logout(uint16_t tsih, int cid, uint16_t seconds)
{
	return -ENOENT;
}

/* what session.close / session.renegotiate asked the fabric (TSIH 7 exists) */
static struct {
	int announced, renegotiated, cid;
	uint16_t wait;
} asked;

int iscsi_session_drop_announced(uint16_t tsih, int cid, uint16_t time2wait)
{
	if (tsih != 7)
		return -ENOENT;
	asked.announced++;
	asked.cid = cid;
	asked.wait = time2wait;
	return 0;
}

int iscsi_session_renegotiate(uint16_t tsih, int cid)
{
	if (tsih != 7)
		return -ENOENT;
	asked.renegotiated++;
	asked.cid = cid;
	return 0;
}

static int setup(void **state)
{
	static const char text[] =
	    "{\"version\": 1, \"state_dir\": \"/tmp\", \"backstores\": ["
	    "{\"name\": \"imp\", \"type\": \"file\", \"path\": \"/srv/imp.img\"},"
	    "{\"name\": \"idle\", \"type\": \"ram\", \"size\": \"8M\"}]}";
	struct cfg_err err;
	struct iscsi_session_info *s = &sessions[0];

	(void)state;
	assert_int_equal(cfg_parse(text, strlen(text), NULL, &tree, &err), 0);
	assert_int_equal(cfg_index_build(tree, &ix), 0);
	memset(sessions, 0, sizeof(sessions));
	*s = (struct iscsi_session_info){
	    .tsih = 7,
	    .logged_in = true,
	    .tpgt = 1,
	    .isid = {0x80, 0x12, 0x34, 0x56, 0x00, 0x01},
	    .login_time = 1777636800, /* 2026-05-01 12:00:00 UTC */
	    .max_burst_length = 262144,
	    .first_burst_length = 65536,
	    .initial_r2t = false,
	    .immediate_data = true,
	    .error_recovery_level = 0,
	    .max_connections = 1,
	    .commands = 5000000000ull, /* more than 32 bits */
	    .read_bytes = 1ull << 40,
	    .write_bytes = 512,
	    .command_pdus = 4999999999ull,
	    .response_pdus = 5000000001ull,
	    .tx_data_bytes = (1ull << 40) + 96,
	    .rx_data_bytes = 1024,
	    .digest_errors = 3,
	    .connection_timeouts = 2,
	    .format_errors = 1,
	    .nconns = 1,
	};
	snprintf(s->target, sizeof(s->target), "iqn.2026-12.org.example:t1");
	snprintf(s->initiator, sizeof(s->initiator), "iqn.2026-12.org.example:h");
	s->conns[0] = (struct iscsi_conn_info){
	    .cid = 0,
	    .state = "logged_in",
	    .header_digest = true,
	    .data_digest = false,
	    .max_recv_dsl = 262144,
	    .max_send_dsl = 65536,
	};
	snprintf(s->conns[0].peer, sizeof(s->conns[0].peer), "127.0.0.1:40000");
	snprintf(s->conns[0].local, sizeof(s->conns[0].local), "127.0.0.1:3260");
	s = &sessions[1];
	*s = (struct iscsi_session_info){.tsih = 9, .discovery = true, .login_time = 0};
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cfg_index_free(ix);
	cfg_free(tree);
	return 0;
}

/* The answer of method with params (JSON, ' for "); a new reference. */
static json_t *call(const char *method, const char *params)
{
	struct rpc_call c = {.m = rpc_method_find(method)};
	char *text = ut_dq(params);
	json_t *res;

	assert_non_null(c.m);
	c.params = json_loads(text, 0, NULL);
	assert_non_null(c.params);
	free(text);
	assert_int_equal(rpc_check_params(&c), 0);
	assert_int_equal(rpc_call_run(&c), 0);
	res = json_incref(c.result);
	rpc_call_clear(&c); /* drops params too */
	assert_non_null(res);
	return res;
}

static json_int_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

/* The answer's error code of method with params (0: none). */
static int call_code(const char *method, const char *params)
{
	struct rpc_call c = {.m = rpc_method_find(method)};
	char *text = ut_dq(params);
	int code;

	c.params = json_loads(text, 0, NULL);
	free(text);
	if (rpc_check_params(&c) == 0)
		rpc_call_run(&c);
	code = c.code;
	rpc_call_clear(&c);
	return code;
}

/* mode "announce" and session.renegotiate reach the fabric with their
 * values; bad values and unknown sessions are refused */
static void test_session_async(void **state)
{
	json_t *r;

	(void)state;
	r = call("session.close", "{'tsih': 7, 'mode': 'announce', 'wait': 30}");
	assert_string_equal(jstr(r, "action"), "drop announced");
	assert_int_equal(jint(r, "wait"), 30);
	assert_int_equal(asked.announced, 1);
	assert_int_equal(asked.cid, -1);
	assert_int_equal(asked.wait, 30);
	json_decref(r);
	r = call("connection.close", "{'tsih': 7, 'cid': 3, 'mode': 'announce'}");
	assert_int_equal(asked.cid, 3);
	assert_int_equal(asked.wait, 2); /* DefaultTime2Wait's default */
	json_decref(r);
	r = call("session.renegotiate", "{'tsih': 7}");
	assert_string_equal(jstr(r, "action"), "parameter negotiation requested");
	assert_int_equal(asked.renegotiated, 1);
	assert_int_equal(asked.cid, -1);
	json_decref(r);
	assert_int_equal(
	    call_code("session.close", "{'tsih': 7, 'mode': 'announce', 'wait': 3601}"),
	    RPC_INVALID_PARAMS);
	assert_int_equal(call_code("session.close", "{'tsih': 7, 'mode': 'shout'}"),
			 RPC_INVALID_PARAMS);
	assert_int_equal(call_code("session.renegotiate", "{'tsih': 8}"), RPC_NOT_FOUND);
	assert_int_equal(call_code("session.renegotiate", "{'tsih': 7, 'cid': 70000}"),
			 RPC_INVALID_PARAMS);
	assert_int_equal(asked.announced, 2);
	assert_int_equal(asked.renegotiated, 1);
}

static void test_backstore_current_size(void **state)
{
	json_t *a, *b;

	(void)state;
	a = call("backstore.list", "{}");
	assert_int_equal(json_array_size(a), 2);
	/* no size in the config: the running LU's */
	b = json_array_get(a, 0);
	assert_string_equal(jstr(b, "name"), "imp");
	assert_null(json_object_get(b, "size"));
	assert_int_equal(jint(b, "current_size"), 3146240);
	/* and what the back-store says of its medium */
	assert_string_equal(jstr(json_object_get(b, "medium"), "object_size"), "4194304");
	assert_string_equal(jstr(json_object_get(b, "medium"), "features"),
			    "layering,exclusive-lock");
	/* nothing runs it: the configured size only */
	b = json_array_get(a, 1);
	assert_string_equal(jstr(b, "size"), "8M");
	assert_null(json_object_get(b, "current_size"));
	assert_null(json_object_get(b, "medium"));
	json_decref(a);
	b = call("backstore.get", "{'name': 'imp'}");
	assert_int_equal(jint(b, "current_size"), 3146240);
	json_decref(b);
}

/* backstore.check: numbers as JSON integers, other findings as strings */
static void test_backstore_check(void **state)
{
	json_t *b, *o;

	(void)state;
	b = call("backstore.check", "{'name': 'imp'}");
	assert_string_equal(jstr(b, "name"), "imp");
	o = json_object_get(b, "check");
	assert_int_equal(jint(o, "leaked"), 0);
	assert_string_equal(jstr(o, "store"), "/var/lib/d1");
	assert_int_equal(json_object_size(o), 2);
	json_decref(b);
}

static void test_session_list(void **state)
{
	json_t *a, *s, *o, *c;

	(void)state;
	a = call("session.list", "{}");
	assert_int_equal(json_array_size(a), 2);
	s = json_array_get(a, 0);
	assert_int_equal(jint(s, "tsih"), 7);
	assert_string_equal(jstr(s, "isid"), "801234560001");
	assert_string_equal(jstr(s, "login_time"), "2026-05-01T12:00:00Z");
	o = json_object_get(s, "negotiated");
	assert_int_equal(jint(o, "max_burst_length"), 262144);
	assert_int_equal(jint(o, "first_burst_length"), 65536);
	assert_true(json_is_false(json_object_get(o, "initial_r2t")));
	assert_true(json_is_true(json_object_get(o, "immediate_data")));
	assert_int_equal(jint(o, "error_recovery_level"), 0);
	assert_int_equal(jint(o, "max_connections"), 1);
	assert_int_equal(json_object_size(o), 6);
	o = json_object_get(s, "stats");
	assert_int_equal(jint(o, "commands"), 5000000000ll);
	assert_int_equal(jint(o, "read_bytes"), 1ll << 40);
	assert_int_equal(jint(o, "write_bytes"), 512);
	assert_int_equal(jint(o, "command_pdus"), 4999999999ll);
	assert_int_equal(jint(o, "response_pdus"), 5000000001ll);
	assert_int_equal(jint(o, "tx_data_bytes"), (1ll << 40) + 96);
	assert_int_equal(jint(o, "rx_data_bytes"), 1024);
	assert_int_equal(jint(o, "digest_errors"), 3);
	assert_int_equal(jint(o, "connection_timeouts"), 2);
	assert_int_equal(jint(o, "format_errors"), 1);
	assert_int_equal(jint(o, "snacks"), 0);
	assert_int_equal(jint(o, "retransmitted_bytes"), 0);
	assert_int_equal(jint(o, "connection_recoveries"), 0);
	assert_int_equal(jint(o, "tasks_reassigned"), 0);
	assert_int_equal(jint(o, "tasks_expired"), 0);
	assert_int_equal(json_object_size(o), 19);
	c = json_array_get(json_object_get(s, "connections"), 0);
	assert_string_equal(jstr(c, "header_digest"), "CRC32C");
	assert_string_equal(jstr(c, "data_digest"), "None");
	o = json_object_get(c, "max_recv_data_segment_length");
	assert_int_equal(jint(o, "target"), 262144);
	assert_int_equal(jint(o, "initiator"), 65536);
	assert_string_equal(jstr(c, "peer"), "127.0.0.1:40000");
	/* a discovery session: the same members, zero counters */
	s = json_array_get(a, 1);
	assert_string_equal(jstr(s, "type"), "discovery");
	assert_string_equal(jstr(s, "login_time"), "1970-01-01T00:00:00Z");
	assert_int_equal(jint(json_object_get(s, "stats"), "commands"), 0);
	assert_int_equal(json_array_size(json_object_get(s, "connections")), 0);
	json_decref(a);
	/* the target filter */
	a = call("session.list", "{'target': 'iqn.2026-12.org.example:t1'}");
	assert_int_equal(json_array_size(a), 1);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backstore_current_size),
	    cmocka_unit_test(test_backstore_check),
	    cmocka_unit_test(test_session_list),
	    cmocka_unit_test(test_session_async),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
