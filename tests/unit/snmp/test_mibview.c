/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for tools/snmp/mibview.c: utargetd's answers (as docs/rpc.md
 * gives them) to SCSI-MIB and ISCSI-MIB variables: the indexes (targets by
 * name, port by rel_port_id, LU by LUN + 1, session by TSIH, connection by
 * CID + 1), the types (Counter32 wraps, Counter64 does not, MegaBytes are
 * MiB), columns left out when the answer lacks them, discovery sessions
 * left out, IPv6 portals, the LUN encoding, and GET/GETNEXT order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "mibview.h"

#define MIB2 1, 3, 6, 1, 2, 1

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("fixture: %s at %d", e.text, e.line);
	return j;
}

static const char *TARGETS =
    "[{\"name\": \"iqn.2026-12.org.utarget:z\", \"luns\": [], \"portal_groups\": []},"
    " {\"name\": \"iqn.2026-12.org.utarget:a\", \"alias\": \"A\","
    "  \"acls\": [{\"initiator\": \"iqn.x:client\"}, {\"addresses\": [\"10.0.0.0/8\"]}],"
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"r0\"}, {\"lun\": 300, \"backstore\": \"r1\"}],"
    "  \"portal_groups\": [{\"tag\": 2, \"rel_port_id\": 7,"
    "    \"listening\": [\"127.0.0.1:3260\", \"[::1]:3260\"]}]}]";
static const char *BACKSTORES =
    "[{\"name\": \"r0\", \"identity\": {\"naa\": \"6001405986cc767deef541edd6cde931\","
    "  \"vendor\": \"UTARGET\", \"product\": \"utarget disk\", \"revision\": \"0.1\"}},"
    " {\"name\": \"r1\", \"identity\": {}}]";
static const char *SESSIONS =
    "[{\"target\": \"iqn.2026-12.org.utarget:a\", \"tsih\": 9, \"initiator_alias\": \"cl\","
    "  \"negotiated\": {\"initial_r2t\": false, \"immediate_data\": true,"
    "    \"first_burst_length\": 65536},"
    "  \"connections\": [{\"cid\": 3, \"max_recv_data_segment_length\":"
    "    {\"target\": 262144, \"initiator\": 8192}}]}]";
static const char *STATS =
    "{\"instance\": {\"session_failures\": 4, \"digest_errors\": 1,"
    "   \"last_failure\": {\"type\": \"timeout\", \"initiator\": \"iqn.x:bad\"}},"
    " \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
    "   \"login\": {\"accepts\": 5, \"authentication_failures\": 1, \"other_failures\": 2,"
    "     \"last_failure\": {\"type\": \"authentication\", \"address\": \"::1\"}},"
    "   \"logout\": {\"normal\": 3, \"other\": 1},"
    "   \"portal_groups\": [{\"tag\": 2, \"commands\": 4294967301,"
    "     \"read_bytes\": 3145728, \"write_bytes\": 1048575}]}],"
    " \"sessions\": ["
    "  {\"target\": \"iqn.2026-12.org.utarget:a\", \"tsih\": 9, \"initiator\": \"iqn.x:client\","
    "   \"isid\": \"400001370000\", \"tpgt\": 2, \"discovery\": false,"
    "   \"tx_data_bytes\": 4294967297, \"command_pdus\": 6,"
    "   \"connections\": [{\"cid\": 3, \"state\": \"logged_in\", \"local\": \"[::1]:3260\","
    "     \"peer\": \"[::1]:40000\", \"header_digest\": \"CRC32C\", \"data_digest\": \"None\"}]},"
    "  {\"target\": \"\", \"tsih\": 10, \"initiator\": \"iqn.x:disc\", \"discovery\": true,"
    "   \"connections\": []}],"
    " \"luns\": [{\"backstore\": \"r0\", \"commands\": 4294967297, \"busy\": 2,"
    "   \"read_bytes\": 5242880, \"write_bytes\": 0}]}";

struct fx {
	json_t *j[6];
	struct mv_input in;
	struct mv_view mv;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->j[0] = load("{\"version\": \"9.9\"}");
	f->j[1] = load("{\"iscsi\": {\"max_recv_data_segment_length\": 262144, "
		       "\"initial_r2t\": true, \"max_connections\": 1}}");
	f->j[2] = load(TARGETS);
	f->j[3] = load(BACKSTORES);
	f->j[4] = load(SESSIONS);
	f->j[5] = load(STATS);
	f->in = (struct mv_input){f->j[0], f->j[1], f->j[2], f->j[3], f->j[4], f->j[5]};
	assert_int_equal(mv_build(&f->mv, &f->in), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	mv_free(&f->mv);
	for (int i = 0; i < 6; i++)
		json_decref(f->j[i]);
	free(f);
	return 0;
}

#define GET(f, ...)                                                                                \
	mv_get(&(f)->mv, (const uint32_t[]){__VA_ARGS__},                                          \
	       sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static void want_num(const struct mv_var *v, enum mv_type t, uint64_t n)
{
	assert_non_null(v);
	assert_int_equal(v->type, t);
	assert_true(v->num == n);
}

static void want_str(const struct mv_var *v, const char *s)
{
	assert_non_null(v);
	assert_int_equal(v->type, MV_OCTETS);
	assert_int_equal(v->buflen, strlen(s));
	assert_memory_equal(v->buf, s, strlen(s));
}

static void test_targets_by_name(void **state)
{
	struct fx *f = *state;

	/* iqn...:a is node/device 1 though target.list gives it second */
	want_str(GET(f, MIB2, 142, 1, 5, 1, 1, 2, 1, 1), "iqn.2026-12.org.utarget:a");
	want_str(GET(f, MIB2, 142, 1, 5, 1, 1, 2, 1, 2), "iqn.2026-12.org.utarget:z");
	want_str(GET(f, MIB2, 139, 2, 1, 2, 1, 2, 1, 1), "A");		  /* scsiDeviceAlias */
	assert_null(GET(f, MIB2, 139, 2, 1, 2, 1, 2, 1, 2));		  /* z has no alias */
	want_num(GET(f, MIB2, 139, 2, 3, 1, 1, 1, 1, 1), MV_UNSIGNED, 2); /* NumberOfLUs */
	want_num(GET(f, MIB2, 139, 2, 3, 1, 1, 1, 1, 2), MV_UNSIGNED, 0);
	want_str(GET(f, MIB2, 139, 2, 1, 1, 1, 4, 1), "9.9"); /* scsiInstVendorVersion */
	/* the transport row and the pointers to it */
	want_str(GET(f, MIB2, 139, 2, 1, 5, 1, 4, 1, 1, 1), "iqn.2026-12.org.utarget:a");
	const struct mv_var *v = GET(f, MIB2, 142, 1, 5, 1, 1, 5, 1, 1);
	static const uint32_t ptr[] = {MIB2, 139, 2, 1, 5, 1, 2, 1, 1, 1};
	assert_non_null(v);
	assert_int_equal(v->type, MV_OID);
	assert_int_equal(v->buflen, 15);
	assert_memory_equal(v->buf, ptr, sizeof(ptr));
	assert_non_null(GET(f, MIB2, 139, 2, 1, 3, 1, 3, 1, 1, 7)); /* scsiPortTransportPtr */
}

static void test_port_and_lu_counters(void **state)
{
	struct fx *f = *state;

	/* port index = rel_port_id 7; Counter32 wraps, Counter64 not */
	want_str(GET(f, MIB2, 139, 2, 3, 2, 1, 1, 1, 1, 7), "iqn.2026-12.org.utarget:a,t,0x0002");
	want_num(GET(f, MIB2, 139, 2, 3, 2, 1, 3, 1, 1, 7), MV_COUNTER32, 5);
	want_num(GET(f, MIB2, 139, 2, 3, 2, 1, 6, 1, 1, 7), MV_COUNTER64, 4294967301ull);
	want_num(GET(f, MIB2, 139, 2, 3, 2, 1, 4, 1, 1, 7), MV_COUNTER32, 0); /* < 1 MiB */
	want_num(GET(f, MIB2, 139, 2, 3, 2, 1, 5, 1, 1, 7), MV_COUNTER32, 3);
	/* LU index = LUN + 1 */
	want_num(GET(f, MIB2, 139, 2, 4, 1, 1, 10, 1, 1, 1), MV_COUNTER32, 1);
	want_num(GET(f, MIB2, 139, 2, 4, 1, 1, 15, 1, 1, 1), MV_COUNTER64, 4294967297ull);
	want_num(GET(f, MIB2, 139, 2, 4, 1, 1, 11, 1, 1, 1), MV_COUNTER32, 5);
	want_num(GET(f, MIB2, 139, 2, 4, 1, 1, 14, 1, 1, 1), MV_COUNTER32, 2);
	want_str(GET(f, MIB2, 139, 2, 4, 1, 1, 4, 1, 1, 1), "UTARGET");
	/* r1 (LUN 300): no statistics, no identity: those columns absent */
	assert_null(GET(f, MIB2, 139, 2, 4, 1, 1, 10, 1, 1, 301));
	assert_null(GET(f, MIB2, 139, 2, 4, 1, 1, 4, 1, 1, 301));
	const struct mv_var *v = GET(f, MIB2, 139, 2, 4, 1, 1, 2, 1, 1, 301);
	assert_non_null(v);
	assert_int_equal(v->buflen, 8);
	assert_int_equal(v->buf[0], 0x41); /* flat addressing of LUN 300 */
	assert_int_equal(v->buf[1], 0x2c);
	/* the NAA designator */
	v = GET(f, MIB2, 139, 2, 4, 2, 1, 5, 1, 1, 1, 1);
	assert_non_null(v);
	assert_int_equal(v->buflen, 16);
	assert_int_equal(v->buf[0], 0x60);
}

static void test_acls_and_attached(void **state)
{
	struct fx *f = *state;

	want_str(GET(f, MIB2, 139, 2, 3, 3, 1, 1, 4, 1, 1, 0, 1), "iqn.x:client");
	/* the ACL by address names no initiator: no row */
	assert_null(GET(f, MIB2, 139, 2, 3, 3, 1, 1, 4, 1, 1, 0, 2));
	want_str(GET(f, MIB2, 139, 2, 3, 3, 2, 1, 3, 1, 1, 7, 1), "iqn.x:client,i,0x400001370000");
	want_num(GET(f, MIB2, 139, 2, 3, 3, 2, 1, 2, 1, 1, 7, 1), MV_UNSIGNED, 1);
}

static void test_iscsi_counters(void **state)
{
	struct fx *f = *state;
	const struct mv_var *v;

	want_num(GET(f, MIB2, 142, 1, 6, 2, 1, 1, 1, 1), MV_COUNTER32, 5); /* accepts */
	want_num(GET(f, MIB2, 142, 1, 6, 1, 1, 1, 1, 1), MV_COUNTER32, 3); /* failures */
	want_num(GET(f, MIB2, 142, 1, 6, 3, 1, 1, 1, 1), MV_COUNTER32, 3); /* normal logouts */
	/* last failure: authentication -> iscsiTgtLoginAuthenticateFails; ::1 */
	v = GET(f, MIB2, 142, 1, 6, 1, 1, 3, 1, 1);
	assert_non_null(v);
	assert_int_equal(v->buflen, 12);
	assert_int_equal(((const uint32_t *)(const void *)v->buf)[11], 5);
	want_num(GET(f, MIB2, 142, 1, 6, 1, 1, 5, 1, 1), MV_INTEGER, 2); /* ipv6 */
	/* z has no stats: no login rows */
	assert_null(GET(f, MIB2, 142, 1, 6, 2, 1, 1, 1, 2));
	/* instance */
	want_num(GET(f, MIB2, 142, 1, 1, 1, 1, 10, 1), MV_COUNTER32, 4);
	want_num(GET(f, MIB2, 142, 1, 1, 1, 1, 9, 1), MV_UNSIGNED, 1); /* one session row */
	want_num(GET(f, MIB2, 142, 1, 1, 1, 1, 7, 1), MV_UNSIGNED, 2); /* two portals */
	want_str(GET(f, MIB2, 142, 1, 1, 1, 1, 12, 1), "iqn.x:bad");
	v = GET(f, MIB2, 142, 1, 1, 1, 1, 11, 1);
	assert_non_null(v);
	assert_int_equal(((const uint32_t *)(const void *)v->buf)[v->buflen - 1], 2); /* timeout */
	/* portal 2: [::1]:3260 */
	want_num(GET(f, MIB2, 142, 1, 2, 1, 1, 4, 1, 2), MV_INTEGER, 2);
	want_num(GET(f, MIB2, 142, 1, 3, 1, 1, 3, 1, 2, 1), MV_UNSIGNED, 2); /* tag */
	want_num(GET(f, MIB2, 142, 1, 3, 1, 1, 2, 1, 2, 1), MV_UNSIGNED, 3260);
}

static void test_sessions(void **state)
{
	struct fx *f = *state;
	const struct mv_var *v;

	want_str(GET(f, MIB2, 142, 1, 10, 1, 1, 4, 1, 1, 9), "iqn.x:client");
	want_str(GET(f, MIB2, 142, 1, 10, 1, 1, 8, 1, 1, 9), "cl");
	want_num(GET(f, MIB2, 142, 1, 10, 1, 1, 10, 1, 1, 9), MV_INTEGER, 2); /* false */
	want_num(GET(f, MIB2, 142, 1, 10, 1, 1, 11, 1, 1, 9), MV_INTEGER, 1); /* true */
	v = GET(f, MIB2, 142, 1, 10, 1, 1, 7, 1, 1, 9);
	assert_non_null(v);
	assert_int_equal(v->buflen, 6);
	assert_int_equal(v->buf[0], 0x40);
	want_num(GET(f, MIB2, 142, 1, 10, 2, 1, 3, 1, 1, 9), MV_COUNTER64, 4294967297ull);
	want_num(GET(f, MIB2, 142, 1, 10, 2, 1, 5, 1, 1, 9), MV_COUNTER32, 1);
	assert_null(GET(f, MIB2, 142, 1, 10, 2, 1, 4, 1, 1, 9)); /* no rx_data_bytes */
	/* connection CID 3 -> index 4 */
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 2, 1, 1, 9, 4), MV_UNSIGNED, 3);
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 3, 1, 1, 9, 4), MV_INTEGER, 2); /* full */
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 9, 1, 1, 9, 4), MV_UNSIGNED, 40000);
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 11, 1, 1, 9, 4), MV_UNSIGNED, 8192);
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 12, 1, 1, 9, 4), MV_INTEGER, 4); /* crc32c */
	want_num(GET(f, MIB2, 142, 1, 11, 1, 1, 13, 1, 1, 9, 4), MV_INTEGER, 3); /* noDigest */
	/* the discovery session has no row */
	assert_null(GET(f, MIB2, 142, 1, 10, 1, 1, 4, 1, 0, 10));
}

static void test_order(void **state)
{
	struct fx *f = *state;
	static const uint32_t scsi[] = {MIB2, 139}, end[] = {MIB2, 143};
	const struct mv_var *v;
	size_t i;

	for (i = 1; i < f->mv.n; i++)
		assert_true(mv_oid_cmp(f->mv.v[i - 1].oid, f->mv.v[i - 1].len, f->mv.v[i].oid,
				       f->mv.v[i].len) < 0);
	v = mv_next(&f->mv, scsi, 7);
	assert_ptr_equal(v, &f->mv.v[0]);
	for (i = 0; i + 1 < f->mv.n; i++)
		assert_ptr_equal(mv_next(&f->mv, f->mv.v[i].oid, f->mv.v[i].len), &f->mv.v[i + 1]);
	assert_null(mv_next(&f->mv, f->mv.v[f->mv.n - 1].oid, f->mv.v[f->mv.n - 1].len));
	assert_null(mv_next(&f->mv, end, 7));
	assert_null(mv_get(&f->mv, scsi, 7));
}

static void test_nothing(void **state)
{
	struct mv_input in = {0};
	struct mv_view mv = {0};

	assert_int_equal(mv_build(&mv, &in), 0);
	/* the instance rows' gauges only: no target, no session */
	for (size_t i = 0; i < mv.n; i++)
		assert_true(mv.v[i].oid[6] == 142 || mv.v[i].oid[6] == 139);
	assert_true(mv.n <= 4);
	mv_free(&mv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_targets_by_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_and_lu_counters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acls_and_attached, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_iscsi_counters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sessions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_order, setup, teardown),
	    cmocka_unit_test(test_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
