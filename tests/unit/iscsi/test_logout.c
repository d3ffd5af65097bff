/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_logout.c: Logout Request/Response (RFC 7143 11.14, 11.15). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static struct h_conn *hc;

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void logout(uint8_t reason, uint16_t cid)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	h.logout_req.reason = 0x80 | reason;
	put_be32(h.logout_req.itt, 0x55);
	put_be16(h.logout_req.cid, cid);
	put_be32(h.logout_req.cmdsn, hc->cmdsn);
	h_send(hc, &h, NULL, 0);
}

static void test_close_session(void **state)
{
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("DefaultTime2Wait=4", "DefaultTime2Retain=0")), 0);
	logout(ISCSI_LOGOUT_CLOSE_SESSION, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_int_equal(get_be32(h.logout_rsp.itt), 0x55);
	assert_int_equal(get_be16(h.logout_rsp.time2wait), 4);
	assert_int_equal(get_be16(h.logout_rsp.time2retain), 0);
	/* T13: closed once sent; a clean end is not an I_T nexus loss */
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	assert_int_equal(fake.nexus_lost, 0);
	assert_int_equal(fake.nexus_destroyed, 1);
}

static void test_reasons(void **state)
{
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, NULL), 0);
	/* ERL 0: no connection recovery */
	logout(ISCSI_LOGOUT_REMOVE_FOR_RECOVERY, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_RECOVERY_UNSUPPORTED);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	/* another CID: none */
	logout(ISCSI_LOGOUT_CLOSE_CONNECTION, 7);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CID_NOT_FOUND);
	/* a reserved reason */
	logout(9, 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	/* this connection */
	logout(ISCSI_LOGOUT_CLOSE_CONNECTION, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_with_tasks(void **state)
{
	static const uint8_t cdb[16];
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, NULL), 0);
	fake.hold = true;
	h_cmd(hc, ISCSI_FLAG_FINAL, 0, cdb, NULL, 0);
	h_cmd(hc, ISCSI_FLAG_FINAL, 0, cdb, NULL, 0);
	/* the tasks end with the session (aborted: no SCSI Response), then
	 * the Logout Response */
	logout(ISCSI_LOGOUT_CLOSE_SESSION, 0);
	h_pump();
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_true(h_idle(hc));
	assert_int_equal(fake.nexus_lost, 1);
	assert_int_equal(fake.live_cmds, 0);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_discovery_logout(void **state)
{
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("SessionType=Discovery")), 0);
	logout(ISCSI_LOGOUT_CLOSE_SESSION, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_close_session, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reasons, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_with_tasks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discovery_logout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
