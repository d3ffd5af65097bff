/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tmf.c: task management functions (tmf.c) with tasks on two reactor
 * threads: running tasks (back-store I/O held), blocked tasks (ordering)
 * and tasks held by the fabric before exec (Data-Out pending); target
 * resets only for initiators allowed them and only at the LUs they see.
 *
 *   p1 "iqn.test:a" (reactor thread 1) --\
 *                                         target --- LUN 0: lu (fake RAM)
 *   p2 "iqn.test:b" (reactor thread 2) --/                             */
#include "harness.h"

#include "scsi/core.h"

static int setup(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	h_teardown(h);
	free(h);
	return 0;
}

static struct loop_task *read_async(struct loop_port *p, uint8_t *buf, uint8_t attr, uint64_t tag)
{
	uint8_t cdb[10];

	h_cdb_rw10(cdb, 0x28, 0, 1);
	return loop_submit_async(p, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, attr, tag, 0);
}

/* ABORT TASK of a running task: the response waits for its I/O. */
static void test_abort_running_task(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 7);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 100);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK, 0, 7), SCSI_TMF_RESP_COMPLETE);
	/* the response came after the task ended */
	assert_true(loop_task_done(t));
	loop_wait(t, &r);
	assert_true(r.no_response);
	h_release_join(&rl);
	/* the nexus goes on */
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
}

/* ABORT TASK of a task the fabric holds for Data-Out (cmd_abort_pending). */
static void test_abort_pending_data(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS] = {0};
	struct loop_result r;
	struct loop_task *t;

	h_cdb_rw10(cdb, 0x2a, 0, 1);
	t = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, SCSI_ATTR_SIMPLE, 9,
			      LOOP_HOLD_DATA);
	loop_wait_setup(t);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK, 0, 9), SCSI_TMF_RESP_COMPLETE);
	loop_wait(t, &r);
	assert_true(r.no_response);
}

/* ABORT TASK of a task blocked behind an ORDERED task completes at once. */
static void test_abort_blocked_task(void **state)
{
	struct harness *h = *state;
	static const uint8_t tur[6] = {0};
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t1, *t2;

	fake_bs_hold(h->bs, true);
	t1 = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	t2 = loop_submit_async(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_ORDERED, 2, 0);
	h_settle();
	assert_false(loop_task_done(t2));
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK, 0, 2), SCSI_TMF_RESP_COMPLETE);
	loop_wait(t2, &r);
	assert_true(r.no_response);
	assert_false(loop_task_done(t1));
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t1, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

static void test_abort_unknown_and_queries(void **state)
{
	struct harness *h = *state;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK, 0, 1234),
			 SCSI_TMF_RESP_TASK_NOT_FOUND);
	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 5);
	h_wait_held(h->bs, 1);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_TASK, 0, 5), SCSI_TMF_RESP_SUCCEEDED);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_TASK, 0, 6), SCSI_TMF_RESP_COMPLETE);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_TASK_SET, 0, 0), SCSI_TMF_RESP_SUCCEEDED);
	/* the other nexus has no task there */
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_QUERY_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t, &r);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	/* SAM-5 7.3: CLEAR ACA without an ACA: FUNCTION COMPLETE */
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_LUN_RESET, lun_encode(9), 0),
			 SCSI_TMF_RESP_LUN_NOT_FOUND);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_ASYNC_EVENT, 0, 0), SCSI_TMF_RESP_COMPLETE);
}

/* QUERY ASYNCHRONOUS EVENT (SAM-5 7.8): SUCCEEDED with the pending unit
 * attention's sense key, ASC and ASCQ, which stays pending; COMPLETE with
 * nothing pending. */
static void test_query_async_event(void **state)
{
	struct harness *h = *state;
	struct loop_port *p3 = loop_create(h->t, 1, "iqn.test:qae");
	uint8_t info[3] = {0xff, 0xff, 0xff}, cdb[6] = {0};
	struct loop_result r;

	assert_non_null(p3);
	/* a new nexus: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED */
	assert_int_equal(loop_tmf_ex(p3, SCSI_TMF_QUERY_ASYNC_EVENT, 0, 0, info),
			 SCSI_TMF_RESP_SUCCEEDED);
	assert_int_equal(info[0], 0x06);
	assert_int_equal(info[1], 0x29);
	/* still pending: the next command gets it */
	h_cmd(p3, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x06, 0x29, info[2]);
	assert_int_equal(loop_tmf_ex(p3, SCSI_TMF_QUERY_ASYNC_EVENT, 0, 0, info),
			 SCSI_TMF_RESP_COMPLETE);
	assert_int_equal(info[0], 0);
	assert_int_equal(info[1], 0);
	assert_int_equal(info[2], 0);
	loop_destroy(p3);
}

/* LOGICAL UNIT RESET from p2 aborts p1's running task on the other reactor
 * (TAS=0: nothing is sent for it), and both nexuses get BUS DEVICE RESET. */
static void test_lun_reset_other_nexus(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 100);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_true(loop_task_done(t));
	loop_wait(t, &r);
	assert_true(r.no_response);
	h_release_join(&rl);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_QUERY_ASYNC_EVENT, 0, 0),
			 SCSI_TMF_RESP_SUCCEEDED);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x03);
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x03);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
}

/* A WRITE set up ahead of its turn (enter_later, as iSCSI sets up a command
 * ahead of CmdSN order) is not in the task set yet, so another nexus' LUN
 * RESET does not abort it; when it enters after the reset it sees the
 * reset's unit attention, as a command that arrived then would (SPC-4
 * 5.14), and writes nothing. */
static void test_enter_later_sees_ua(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], data[H_BS], back[H_BS];
	struct loop_result r;
	struct loop_task *t;

	memset(data, 0x5a, sizeof(data));
	h_cdb_rw10(cdb, 0x2a, 3, 1);
	t = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, data, H_BS, SCSI_ATTR_SIMPLE, 4,
			      LOOP_HOLD_DATA | LOOP_ENTER_LATER);
	loop_wait_setup(t);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_false(loop_task_done(t)); /* not in the task set: not aborted */
	loop_send_data(t);
	loop_wait(t, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x03);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD); /* reported once */
	h_cdb_rw10(cdb, 0x28, 3, 1);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, back, H_BS, &r), SAM_STAT_GOOD);
	assert_int_not_equal(back[0], 0x5a); /* the WRITE did not run */
}

/* CLEAR TASK SET with TAS=1: the other nexus' task ends with TASK ABORTED. */
static void test_clear_task_set_tas(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	atomic_store(&lu_core(h->lu)->mode.tas, true);
	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 50);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_CLEAR_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	loop_wait(t, &r);
	h_release_join(&rl);
	assert_false(r.no_response);
	assert_int_equal(r.status, SAM_STAT_TASK_ABORTED);
	/* with TAS=1 no COMMANDS CLEARED unit attention */
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	atomic_store(&lu_core(h->lu)->mode.tas, false);
}

/* CLEAR TASK SET with TAS=0: COMMANDS CLEARED BY ANOTHER INITIATOR. */
static void test_clear_task_set_no_tas(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 50);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_CLEAR_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	loop_wait(t, &r);
	h_release_join(&rl);
	assert_true(r.no_response);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x2f, 0x00);
	/* the issuer's own nexus is not told */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
}

/* ABORT TASK SET only touches the issuing nexus' tasks. */
static void test_abort_task_set_own_nexus(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t b1[H_BS], b2[H_BS];
	struct loop_task *t1, *t2;

	fake_bs_hold(h->bs, true);
	t1 = read_async(h->p1, b1, SCSI_ATTR_SIMPLE, 1);
	t2 = read_async(h->p2, b2, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 2);
	h_release_later(&rl, h->bs, 50);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	loop_wait(t1, &r);
	assert_true(r.no_response);
	loop_wait(t2, &r);
	assert_false(r.no_response);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	h_release_join(&rl);
}

/* I_T nexus loss with a running task; the initiator port's next nexus gets
 * I_T NEXUS LOSS OCCURRED. */
static void test_nexus_loss(void **state)
{
	struct harness *h = *state;
	struct h_releaser rl;
	struct loop_result r;
	uint8_t buf[H_BS];
	struct loop_task *t;

	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 50);
	loop_destroy(h->p1);
	loop_wait(t, &r);
	assert_true(r.no_response);
	h_release_join(&rl);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	assert_non_null(h->p1);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x07);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
}

/* I_T NEXUS RESET: own tasks aborted, I_T NEXUS LOSS for the nexus. */
static void test_it_nexus_reset(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_I_T_NEXUS_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x07);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);
}

/* Target resets (of initiators allowed them) reach the LU and release
 * reservations. */
static void test_target_resets(void **state)
{
	struct harness *h = *state;
	uint8_t rsv[6] = {0x16};
	struct loop_result r;

	h_port_target_reset(h, &h->p1, "iqn.test:a");
	h_port_target_reset(h, &h->p2, "iqn.test:b");
	assert_int_equal(h_cmd(h->p1, 0, rsv, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_TARGET_WARM_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x03);
	assert_int_equal(h_cmd(h->p2, 0, rsv, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_TARGET_COLD_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x00);
	/* cold reset released p2's reservation */
	assert_int_equal(h_cmd(h->p1, 0, rsv, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
}

/* ---- target resets: who may, and what they reach ----
 *
 *   p1 "iqn.test:a" (target_reset allowed) --\    default map: LUN 0 = lu  (bs)
 *   p2 "iqn.test:b" (not allowed)          ---+-- target "iqn.test:t"
 *   p3 "iqn.test:c" (not allowed)          --/    c's ACL map: LUN 0 = lu1 (bs1)
 *
 * lu1 is mapped only for c: no reset from a or b may reach it. */
struct scope {
	struct harness *h;
	struct bs_dev *bs1;
	struct scsi_lu *lu1;
	struct scsi_lun_map *cmap;
	struct loop_port *p3;
};

static void scope_setup(struct scope *s, struct harness *h)
{
	struct scsi_lu_attrs a = h_attrs();

	s->h = h;
	a.naa[15] = 0x78;
	a.serial[9] = '2';
	s->bs1 = fake_bs_create((uint64_t)H_BLOCKS * H_BS, BS_CAP_FLUSH);
	assert_non_null(s->bs1);
	assert_int_equal(scsi_lu_create("lu1", s->bs1, &a, &s->lu1), 0);
	s->cmap = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(s->cmap, 0, s->lu1, false), 0);
	assert_int_equal(scsi_target_acl_set(h->t, "iqn.test:c", s->cmap), 0);
	s->p3 = loop_create(h->t, 1, "iqn.test:c");
	assert_non_null(s->p3);
	h_clear_ua(s->p3, 0);
	h_port_target_reset(h, &h->p1, "iqn.test:a");
	h_clear_ua(h->p2, 0);
}

static void scope_teardown(struct scope *s)
{
	fake_bs_hold(s->bs1, false);
	fake_bs_release(s->bs1);
	loop_destroy(s->p3);
	scsi_lun_map_put(s->cmap);
	scsi_lu_put(s->lu1);
}

/* An initiator whose ACL does not allow target resets: both are refused
 * (SCSI_TMF_RESP_UNAUTHORIZED) and nothing happens anywhere: no task
 * aborted, no reservation released, no unit attention. */
static void test_target_reset_refused(void **state)
{
	struct harness *h = *state;
	uint8_t rsv[6] = {0x16}, buf[H_BS];
	struct h_releaser rl;
	struct loop_result r;
	struct loop_task *t;
	struct scope s;
	uint8_t w, c;

	scope_setup(&s, h);
	assert_int_equal(h_cmd(h->p1, 0, rsv, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	fake_bs_hold(h->bs, true);
	t = read_async(h->p1, buf, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	/* released in a second: a reset that aborted the task would have
	 * waited for it and find it done */
	h_release_later(&rl, h->bs, 1000);
	w = (uint8_t)loop_tmf(h->p2, SCSI_TMF_TARGET_WARM_RESET, 0, 0);
	c = (uint8_t)loop_tmf(s.p3, SCSI_TMF_TARGET_COLD_RESET, 0, 0);
	assert_false(loop_task_done(t));
	assert_int_equal(w, SCSI_TMF_RESP_UNAUTHORIZED);
	assert_int_equal(c, SCSI_TMF_RESP_UNAUTHORIZED);
	h_release_join(&rl);
	loop_wait(t, &r);
	assert_false(r.no_response);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(h_tur(h->p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_tur(s.p3, &r), SAM_STAT_GOOD);
	/* p1's reservation stands */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_RESERVATION_CONFLICT);
	/* the LU functions keep their scope for everyone */
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_ABORT_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	scope_teardown(&s);
}

/* A target reset of an initiator allowed it reaches the LUs of its own LUN
 * map only: lu1, mapped only for c, keeps its running task, its
 * reservation and has no unit attention; lu's other nexus gets BUS DEVICE
 * RESET (warm) or POWER ON (cold). */
static void test_target_reset_scope(void **state)
{
	struct harness *h = *state;
	uint8_t rsv[6] = {0x16}, buf[H_BS];
	struct h_releaser rl;
	struct loop_result r;
	struct loop_task *t;
	struct scope s;

	scope_setup(&s, h);
	assert_int_equal(h_cmd(s.p3, 0, rsv, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	fake_bs_hold(s.bs1, true);
	t = read_async(s.p3, buf, SCSI_ATTR_SIMPLE, 3);
	h_wait_held(s.bs1, 1);
	/* released in a second: a reset that reached lu1 would have waited
	 * for the task and find it done */
	h_release_later(&rl, s.bs1, 1000);
	for (int cold = 0; cold < 2; cold++) {
		assert_int_equal(
		    loop_tmf(h->p1, cold ? SCSI_TMF_TARGET_COLD_RESET : SCSI_TMF_TARGET_WARM_RESET,
			     0, 0),
		    SCSI_TMF_RESP_COMPLETE);
		h_tur(h->p2, &r);
		h_expect_sense(&r, 0x6, 0x29, cold ? 0x00 : 0x03);
		h_clear_ua(h->p1, 0);
		/* lu1: its task runs on, no unit attention, still reserved */
		assert_false(loop_task_done(t));
		assert_true(atomic_load(&lu_core(s.lu1)->resv_holder) != NULL);
		assert_int_equal(h_tur(s.p3, &r), SAM_STAT_GOOD);
	}
	h_release_join(&rl);
	loop_wait(t, &r);
	assert_false(r.no_response);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	scope_teardown(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_abort_running_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_pending_data, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_blocked_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_unknown_and_queries, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_query_async_event, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lun_reset_other_nexus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_enter_later_sees_ua, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_clear_task_set_tas, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_clear_task_set_no_tas, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_task_set_own_nexus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nexus_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_it_nexus_reset, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_resets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_reset_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_reset_scope, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
