/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tmf.c: Task Management Function Request/Response (RFC 7143 11.5,
 * 11.6): the RefCmdSN rules of ABORT TASK, response mapping, TASK REASSIGN
 * at ERL 0, TARGET COLD RESET closing the connections; target resets only
 * for sessions whose ACL (or demo mode) allows them, else "Function
 * authorization failed" and nothing reset or closed.
 *
 *   hc    H_INITIATOR, isid 1 --\
 *   other H_INITIATOR, isid 9 ---+-- target H_TARGET (fake core, one LUN)
 *   third "...:host3"         --/
 * admitted by demo mode (setup) or by an ACL rule / demo mode with
 * ISCSI_PERM_TARGET_RESET (setup_reset_ok). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

#define F_N (ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE)

static struct h_conn *hc;

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	return 0;
}

/* The target's policy: demo mode's sessions may reset the target. */
static int setup_reset_ok(void **state)
{
	struct iscsi_access *a;

	(void)state;
	h_setup(NULL);
	a = iscsi_access_new();
	assert_non_null(a);
	iscsi_access_set_demo_perms(a, ISCSI_PERM_TARGET_RESET);
	iscsi_target_set_access(henv.t, a);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	assert_true(fake.last_target_reset);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void tur(uint32_t cmdsn, uint32_t itt)
{
	static const uint8_t cdb[16];
	union iscsi_hdr h;

	h_scsi_cmd(&h, hc, F_N, 0, cdb);
	put_be32(h.cmd.cmdsn, cmdsn);
	put_be32(h.cmd.itt, itt);
	h_send(hc, &h, NULL, 0);
}

/* Send a TMF; returns the response code (-1: none). */
static int tmf(uint8_t func, uint32_t rtt, uint32_t cmdsn, uint32_t ref_cmdsn, bool immediate)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | (immediate ? ISCSI_OP_IMMEDIATE : 0);
	h.tmf_req.func = 0x80 | func;
	put_be32(h.tmf_req.itt, 0xa000 + func);
	put_be32(h.tmf_req.ref_task_tag, rtt);
	put_be32(h.tmf_req.cmdsn, cmdsn);
	put_be32(h.tmf_req.ref_cmdsn, ref_cmdsn);
	/* what it has received is acknowledged: a multi-task abort waits
	 * for that (RFC 7143 4.2.3.3 d), task_reporting.c) */
	put_be32(h.tmf_req.exp_statsn, hc->statsn + 1);
	h_send(hc, &h, NULL, 0);
	h_pump();
	if (!h_recv(hc, &h, NULL, 0, NULL))
		return -1;
	assert_int_equal(h.bhs.opcode, ISCSI_OP_TMF_RSP);
	assert_int_equal(get_be32(h.tmf_rsp.itt), 0xa000u + func);
	return h.tmf_rsp.response;
}

static void test_abort_task(void **state)
{
	union iscsi_hdr h;

	(void)state;
	fake.hold = true;
	tur(1, 0x10);
	/* a task the target holds: aborted by the core, no SCSI Response */
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK, 0x10, 2, 1, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_ABORT_TASK);
	assert_int_equal(fake.last_tmf_ref, 0x10);
	assert_int_equal(fake.live_cmds, 0);
	assert_true(h_idle(hc));
	/* 11.5.1 b): not received yet, RefCmdSN in the window and before the
	 * TMF's CmdSN (an immediate TMF carries the next CmdSN, 3, while 2
	 * has not arrived): considered received, "function complete" */
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK, 0x20, 3, 2, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(hc->c->sess->cmdsn.exp, 3); /* 2 consumed */
	tur(2, 0x20); /* the command arrives late: a duplicate, ignored */
	assert_true(h_idle(hc));
	/* 11.5.1 c): outside the window (long done): task does not exist */
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK, 0x30, 3, 1, true), ISCSI_TMF_RSP_NO_TASK);
	/* RefCmdSN not before the TMF's own CmdSN */
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK, 0x30, 3, 3, true), ISCSI_TMF_RSP_NO_TASK);
	fake.hold = false;
	tur(3, 0x40);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
}

/* RFC 7143 3.2.2.1: a non-immediate TMF is delivered in CmdSN order, as a
 * command. ExpCmdSN 2; arriving in this order:
 *
 *   CmdSN 3  ABORT TASK SET     -> waits (2 missing)
 *   CmdSN 4  TEST UNIT READY    -> set up ahead, not in the task set
 *   CmdSN 2  TEST UNIT READY    -> enters; the TMF runs and aborts it
 *                                  (and 1, held); then 4 enters and runs
 *
 * An immediate TMF instead acts at once on every task received. */
static void test_tmf_cmdsn_order(void **state)
{
	union iscsi_hdr h;
	unsigned e0 = fake.nentered;

	(void)state;
	fake.hold = true;
	tur(1, 0x10);
	h_pump();
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK_SET, 0, 3, 0, false), -1);
	assert_int_equal(fake.tmfs, 0);
	fake.hold = false;
	tur(4, 0x40);
	h_pump();
	assert_true(h_idle(hc));
	assert_int_equal(fake.nentered, e0 + 1); /* 0x10 only */
	tur(2, 0x20);
	h_pump();
	/* the TMF's response; 1 and 2 aborted (no SCSI Response); then 4's */
	h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.tmf_rsp.response, ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.tmfs, 1);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_ABORT_TASK_SET);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 0x40);
	assert_int_equal(h.rsp.status, 0);
	assert_true(h_idle(hc));
	assert_int_equal(fake.nentered, e0 + 3);
	assert_int_equal(fake.entered[e0 + 1], 0x20);
	assert_int_equal(fake.entered[e0 + 2], 0x40);
	assert_int_equal(fake.live_cmds, 0);

	/* immediate, with CmdSN 6 and 5 missing: 6 (ahead) is aborted too */
	fake.hold = true;
	tur(6, 0x60);
	h_pump();
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK_SET, 0, 5, 0, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.live_cmds, 0);
	assert_true(h_idle(hc));
}

static void test_functions(void **state)
{
	(void)state;
	fake.hold = true;
	tur(1, 1);
	tur(2, 2);
	assert_int_equal(tmf(ISCSI_TMF_LUN_RESET, ISCSI_RSVD_TAG, 3, 0, true),
			 ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_LUN_RESET);
	assert_int_equal(fake.live_cmds, 0);
	assert_true(h_idle(hc));
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK_SET, 0, 3, 0, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_ABORT_TASK_SET);
	assert_int_equal(tmf(ISCSI_TMF_CLEAR_ACA, 0, 3, 0, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_CLEAR_ACA);
	assert_int_equal(tmf(ISCSI_TMF_CLEAR_TASK_SET, 0, 3, 0, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(tmf(ISCSI_TMF_TARGET_WARM_RESET, 0, 3, 0, true), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_TARGET_WARM_RESET);
	/* ERL 0: no task reassignment */
	assert_int_equal(tmf(ISCSI_TMF_TASK_REASSIGN, 1, 3, 0, true), ISCSI_TMF_RSP_NO_REASSIGN);
	/* unknown functions */
	assert_int_equal(tmf(0, 0, 3, 0, true), ISCSI_TMF_RSP_NOT_SUPPORTED);
	assert_int_equal(tmf(9, 0, 3, 0, true), ISCSI_TMF_RSP_NOT_SUPPORTED);
	/* responses mapped from the core's */
	fake.tmf_response = SCSI_TMF_RESP_LUN_NOT_FOUND;
	assert_int_equal(tmf(ISCSI_TMF_LUN_RESET, 0, 3, 0, true), ISCSI_TMF_RSP_NO_LUN);
	fake.tmf_response = SCSI_TMF_RESP_NOT_SUPPORTED;
	assert_int_equal(tmf(ISCSI_TMF_CLEAR_ACA, 0, 3, 0, true), ISCSI_TMF_RSP_NOT_SUPPORTED);
	fake.tmf_response = SCSI_TMF_RESP_REJECTED;
	assert_int_equal(tmf(ISCSI_TMF_CLEAR_ACA, 0, 3, 0, true), ISCSI_TMF_RSP_REJECTED);
	fake.tmf_response = SCSI_TMF_RESP_TASK_NOT_FOUND;
	tur(3, 3);
	assert_int_equal(tmf(ISCSI_TMF_ABORT_TASK, 3, 4, 3, true), ISCSI_TMF_RSP_NO_TASK);
	fake.tmf_response = 0;
	/* a non-immediate TMF outside the window is ignored */
	assert_int_equal(tmf(ISCSI_TMF_LUN_RESET, 0, 1000, 0, false), -1);
}

/* Without the permission (demo mode's default): both target resets are
 * answered "Function authorization failed" (11.6.1 response 6), the held
 * task is not aborted, and a cold reset closes no connection. */
static void test_target_reset_refused(void **state)
{
	struct h_conn *other = h_conn_new();
	static const uint8_t isid2[6] = {0x80, 0, 0, 0, 0, 9};
	union iscsi_hdr h;

	(void)state;
	assert_false(fake.last_target_reset);
	assert_int_equal(h_login_isid(other, NULL, isid2), 0);
	fake.hold = true;
	tur(1, 1);
	assert_int_equal(fake.live_cmds, 1);
	assert_int_equal(tmf(ISCSI_TMF_TARGET_WARM_RESET, 0, 2, 0, true),
			 ISCSI_TMF_RSP_AUTH_FAILED);
	assert_int_equal(fake.last_tmf_func, SCSI_TMF_TARGET_WARM_RESET);
	assert_int_equal(tmf(ISCSI_TMF_TARGET_COLD_RESET, 0, 2, 0, true),
			 ISCSI_TMF_RSP_AUTH_FAILED);
	h_pump();
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(iscsi_conn_state(other->c), ISCSI_CONN_S5_LOGGED_IN);
	/* the task lives on and completes */
	assert_int_equal(fake.live_cmds, 1);
	assert_int_equal(fake_complete_held(), 1);
	h_pump();
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 1);
	/* the other functions are not affected */
	assert_int_equal(tmf(ISCSI_TMF_LUN_RESET, 0, 2, 0, true), ISCSI_TMF_RSP_COMPLETE);
	h_conn_free(other);
}

/* The permission comes from the ACL rule that admitted the session: the
 * initiator's rule without ISCSI_PERM_TARGET_RESET gives none (refused),
 * with it the reset runs. (Which rule admits whom: test_access.c.) */
static void test_target_reset_by_acl(void **state)
{
	struct iscsi_access *a;

	(void)state;
	fake.acl_name = H_INITIATOR;
	for (unsigned perms = 0; perms <= ISCSI_PERM_TARGET_RESET;
	     perms += ISCSI_PERM_TARGET_RESET) {
		a = iscsi_access_new();
		assert_int_equal(
		    iscsi_access_add_rule(
			a, &(struct iscsi_rule){.initiator = H_INITIATOR, .perms = perms}),
		    0);
		iscsi_target_set_access(henv.t, a);
		h_conn_free(hc);
		hc = h_conn_new();
		assert_int_equal(h_login(hc, NULL), 0);
		assert_int_equal(fake.last_target_reset, perms != 0);
		assert_int_equal(tmf(ISCSI_TMF_TARGET_WARM_RESET, 0, 1, 0, true),
				 perms ? ISCSI_TMF_RSP_COMPLETE : ISCSI_TMF_RSP_AUTH_FAILED);
	}
	fake.acl_name = NULL;
}

static void test_cold_reset(void **state)
{
	struct h_conn *other = h_conn_new();
	static const uint8_t isid2[6] = {0x80, 0, 0, 0, 0, 9};

	(void)state;
	assert_int_equal(h_login_isid(other, NULL, isid2), 0);
	/* the response first, then every connection of the target closes */
	assert_int_equal(tmf(ISCSI_TMF_TARGET_COLD_RESET, 0, 1, 0, true), ISCSI_TMF_RSP_COMPLETE);
	h_pump();
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	assert_int_equal(iscsi_conn_state(other->c), ISCSI_CONN_S1_FREE);
	h_conn_free(other);
}

/* RFC 7143 4.2.3.3 d), e): before the response of a multi-task abort the
 * StatSNs sent are acknowledged; a TMF whose ExpStatSN does not cover the
 * last status gets a NOP-In ping first (ITT 0xffffffff, a TTT, StatSN not
 * advanced: 11.19), its response only once the NOP-Out answer brings
 * ExpStatSN. ABORT TASK is answered at once. */
static void test_statsn_ack_wait(void **state)
{
	union iscsi_hdr h;
	uint32_t statsn, ttt;

	(void)state;
	tur(1, 0x10);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	statsn = get_be32(h.rsp.statsn);
	/* ABORT TASK, ExpStatSN not covering the status: answered at once */
	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
	h.tmf_req.func = 0x80 | ISCSI_TMF_ABORT_TASK;
	put_be32(h.tmf_req.itt, 0xb001);
	put_be32(h.tmf_req.ref_task_tag, 0x77);
	put_be32(h.tmf_req.cmdsn, 2);
	put_be32(h.tmf_req.exp_statsn, statsn);
	h_send(hc, &h, NULL, 0);
	h_pump();
	h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.tmf_rsp.itt), 0xb001);
	/* the TMF response took a StatSN the initiator has not acknowledged
	 * either: LOGICAL UNIT RESET waits for both */
	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
	h.tmf_req.func = 0x80 | ISCSI_TMF_LUN_RESET;
	put_be32(h.tmf_req.itt, 0xb002);
	put_be32(h.tmf_req.ref_task_tag, ISCSI_RSVD_TAG);
	put_be32(h.tmf_req.cmdsn, 2);
	put_be32(h.tmf_req.exp_statsn, statsn);
	h_send(hc, &h, NULL, 0);
	h_pump();
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(h.bhs.flags, ISCSI_FLAG_FINAL);
	assert_int_equal(get_be32(h.nop_in.itt), ISCSI_RSVD_TAG);
	ttt = get_be32(h.nop_in.ttt);
	assert_int_not_equal(ttt, ISCSI_RSVD_TAG);
	assert_int_equal(get_be32(h.nop_in.statsn), statsn + 2);
	assert_true(h_idle(hc)); /* no TMF response yet */
	/* a NOP-Out acknowledging only the SCSI Response: still waiting */
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	put_be32(h.nop_out.itt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.ttt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.cmdsn, 2);
	put_be32(h.nop_out.exp_statsn, statsn + 1);
	h_send(hc, &h, NULL, 0);
	h_pump();
	assert_true(h_idle(hc));
	/* the answer to the ping, acknowledging both */
	put_be32(h.nop_out.ttt, ttt);
	put_be32(h.nop_out.exp_statsn, statsn + 2);
	h_send(hc, &h, NULL, 0);
	h_pump();
	h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.tmf_rsp.itt), 0xb002);
	assert_int_equal(h.tmf_rsp.response, ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(get_be32(h.tmf_rsp.statsn), statsn + 2);
	assert_true(h_idle(hc));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_abort_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tmf_cmdsn_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_functions, setup_reset_ok, teardown),
	    cmocka_unit_test_setup_teardown(test_cold_reset, setup_reset_ok, teardown),
	    cmocka_unit_test_setup_teardown(test_target_reset_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_reset_by_acl, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_statsn_ack_wait, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
