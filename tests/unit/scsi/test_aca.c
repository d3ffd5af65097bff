/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_aca.c: auto contingent allegiance (aca.c, SAM-5 5.9): a CHECK
 * CONDITION with NACA 1 establishes it on the command's I_T nexus (NACA 0
 * does not); the faulted nexus then runs one command with the ACA attribute
 * at a time and gets ACA ACTIVE for the others; the other nexus gets BUSY
 * (NACA 0) or ACA ACTIVE (NACA 1, ACA attribute); tasks already in the task
 * set stay held until CLEAR ACA (QERR 00b); CLEAR ACA, LOGICAL UNIT RESET,
 * I_T NEXUS RESET and nexus loss clear it; ABORT TASK SET and CLEAR TASK
 * SET do not.
 *
 *   p1 "iqn.test:a" (reactor thread 1, the faulted nexus) --\
 *                                                            target --- LUN 0: lu (fake RAM)
 *   p2 "iqn.test:b" (reactor thread 2)                     --/                             */
#include "harness.h"

#include "scsi/aca.h"
#include "scsi/core.h"

#define NACA 0x04

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

/* TEST UNIT READY with the CONTROL byte ctl and task attribute attr. */
static uint8_t tur(struct loop_port *p, uint8_t ctl, uint8_t attr, struct loop_result *r)
{
	uint8_t cdb[6] = {0x00, 0, 0, 0, 0, ctl};

	assert_int_equal(loop_submit(p, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, attr, r), 0);
	return r->status;
}

/* READ(10) of the block past the last one: CHECK CONDITION, ILLEGAL
 * REQUEST, LOGICAL BLOCK ADDRESS OUT OF RANGE. */
static void read_past_end(struct loop_port *p, uint8_t ctl, uint8_t attr)
{
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;

	h_cdb_rw10(cdb, 0x28, H_BLOCKS, 1);
	cdb[9] = ctl;
	assert_int_equal(loop_submit(p, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, attr, &r), 0);
	h_expect_sense(&r, 0x5, 0x21, 0x00);
}

static bool aca_faulted(struct harness *h)
{
	bool v;

	pthread_mutex_lock(&h->lu->lock);
	v = lu_core(h->lu)->aca.faulted != NULL;
	pthread_mutex_unlock(&h->lu->lock);
	return v;
}

/* The ACA of p1, established the way an initiator does it. */
static void establish(struct harness *h)
{
	read_past_end(h->p1, NACA, SCSI_ATTR_SIMPLE);
	assert_true(aca_faulted(h));
}

/* The CONTROL byte by CDB group (SPC-4 4.2.5.1). */
static void test_cdb_naca(void **state)
{
	uint8_t c[32] = {0};

	(void)state;
	c[0] = 0x00; /* 6-byte: byte 5 */
	c[5] = NACA;
	assert_true(aca_cdb_naca(c, 6));
	assert_false(aca_cdb_naca(c, 5));
	c[5] = 0x01; /* LINK is not NACA */
	assert_false(aca_cdb_naca(c, 6));
	memset(c, 0, sizeof(c));
	c[0] = 0x28; /* 10-byte: byte 9 */
	c[9] = NACA;
	assert_true(aca_cdb_naca(c, 10));
	c[0] = 0x88; /* 16-byte: byte 15 */
	c[9] = 0;
	c[15] = NACA;
	assert_true(aca_cdb_naca(c, 16));
	c[0] = 0xa0; /* 12-byte: byte 11 */
	c[15] = 0;
	c[11] = NACA;
	assert_true(aca_cdb_naca(c, 12));
	c[0] = 0x7f; /* variable length: byte 1 */
	c[11] = 0;
	c[1] = NACA;
	assert_true(aca_cdb_naca(c, 32));
	c[0] = 0xc0; /* vendor specific: unknown */
	c[5] = c[9] = c[11] = c[15] = NACA;
	assert_false(aca_cdb_naca(c, 16));
	assert_false(aca_cdb_naca(c, 0));
}

/* NACA 0: a contingent allegiance only, the next command runs. */
static void test_naca0_no_aca(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	read_past_end(h->p1, 0, SCSI_ATTR_SIMPLE);
	assert_false(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* The ACA attribute without an ACA: refused as before. */
static void test_aca_attr_without_aca(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	tur(h->p1, 0, SCSI_ATTR_ACA, &r);
	h_expect_sense(&r, 0xb, 0x0e, 0x03);
	assert_false(aca_faulted(h));
}

/* The faulted nexus: ACA ACTIVE for other attributes, the ACA attribute
 * runs; CLEAR ACA clears it. */
static void test_faulted_nexus(void **state)
{
	struct harness *h = *state;
	uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0}, sense[18];
	struct loop_result r;

	establish(h);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(r.sense_len, 0);
	assert_int_equal(tur(h->p1, NACA, SCSI_ATTR_ORDERED, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_HEAD_OF_QUEUE, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_ACA, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_submit(h->p1, 0, rs, 6, SCSI_DIR_READ, sense, 18, SCSI_ATTR_ACA, &r),
			 0);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_true(aca_faulted(h));
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_false(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
	/* and the ACA attribute is refused again */
	tur(h->p1, 0, SCSI_ATTR_ACA, &r);
	assert_int_equal(r.status, SAM_STAT_CHECK_CONDITION);
}

/* Another nexus (TST 000b, QERR 00b): BUSY with NACA 0, ACA ACTIVE with
 * NACA 1 or the ACA attribute; its CLEAR ACA leaves p1's ACA alone. */
static void test_other_nexus(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	establish(h);
	assert_int_equal(tur(h->p2, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_BUSY);
	assert_int_equal(tur(h->p2, NACA, SCSI_ATTR_SIMPLE, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(tur(h->p2, 0, SCSI_ATTR_ACA, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_true(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_int_equal(tur(h->p2, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* One command with the ACA attribute at a time: a second one while the
 * first runs gets ACA ACTIVE; after it ended another one may run. */
static void test_one_aca_task(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;
	struct loop_task *t;

	establish(h);
	fake_bs_hold(h->bs, true);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	t = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, SCSI_ATTR_ACA, 1, 0);
	assert_non_null(t);
	h_wait_held(h->bs, 1);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_ACA, &r), SAM_STAT_ACA_ACTIVE);
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_ACA, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
}

/* Tasks in the task set when the ACA is established stay blocked (QERR
 * 00b) and resume after CLEAR ACA; the ACA task does not wait behind them;
 * a running task completes. */
static void test_held_tasks_resume(void **state)
{
	struct harness *h = *state;
	static const uint8_t tur_cdb[6] = {0};
	uint8_t cdb[10], buf[H_BS];
	struct loop_task *running, *blocked;
	struct loop_result r;

	fake_bs_hold(h->bs, true);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	running =
	    loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, SCSI_ATTR_SIMPLE, 1, 0);
	h_wait_held(h->bs, 1);
	/* an ORDERED task of the other nexus waits for the read */
	blocked = loop_submit_async(h->p2, 0, tur_cdb, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_ORDERED,
				    2, 0);
	h_settle();
	assert_false(loop_task_done(blocked));
	establish(h);
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(running, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	/* its older task ended, but the ACA holds it */
	h_settle();
	assert_false(loop_task_done(blocked));
	/* the ACA task runs although a blocked task is older */
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_ACA, &r), SAM_STAT_GOOD);
	assert_false(loop_task_done(blocked));
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	loop_wait(blocked, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

/* Commands set up ahead of their turn (enter_later, as iSCSI sets up one
 * ahead of CmdSN order) and entering after the ACA was established are
 * admitted then, as new commands (SAM-5 5.9): the faulted nexus' WRITE ends
 * with ACA ACTIVE and writes nothing, the other nexus' with BUSY; they are
 * not held until CLEAR ACA and run then. One set up as the ACA task while
 * the ACA was in effect keeps its admission and runs. */
static void test_enter_later_admitted_at_entry(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], d1[H_BS], d2[H_BS], back[H_BS];
	struct loop_task *t1, *t2, *ta;
	struct loop_result r;

	memset(d1, 0x5a, sizeof(d1));
	memset(d2, 0xa5, sizeof(d2));
	h_cdb_rw10(cdb, 0x2a, 5, 1);
	t1 = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, d1, H_BS, SCSI_ATTR_SIMPLE, 4,
			       LOOP_HOLD_DATA | LOOP_ENTER_LATER);
	h_cdb_rw10(cdb, 0x2a, 6, 1);
	t2 = loop_submit_async(h->p2, 0, cdb, 10, SCSI_DIR_WRITE, d2, H_BS, SCSI_ATTR_SIMPLE, 5,
			       LOOP_HOLD_DATA | LOOP_ENTER_LATER);
	loop_wait_setup(t1);
	loop_wait_setup(t2);
	establish(h);
	loop_send_data(t1);
	h_settle();
	assert_true(loop_task_done(t1)); /* not held for CLEAR ACA */
	loop_wait(t1, &r);
	assert_int_equal(r.status, SAM_STAT_ACA_ACTIVE);
	loop_send_data(t2);
	h_settle();
	assert_true(loop_task_done(t2)); /* not held for CLEAR ACA */
	loop_wait(t2, &r);
	assert_int_equal(r.status, SAM_STAT_BUSY);
	/* the ACA task: admitted at set-up, enters and runs */
	h_cdb_rw10(cdb, 0x2a, 7, 1);
	ta = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, d1, H_BS, SCSI_ATTR_ACA, 6,
			       LOOP_HOLD_DATA | LOOP_ENTER_LATER);
	loop_wait_setup(ta);
	loop_send_data(ta);
	loop_wait(ta, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	h_settle();
	/* nothing was held to run after CLEAR ACA: blocks 5 and 6 unwritten */
	h_cdb_rw10(cdb, 0x28, 5, 1);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, back, H_BS, &r), SAM_STAT_GOOD);
	assert_int_not_equal(back[0], 0x5a);
	h_cdb_rw10(cdb, 0x28, 6, 1);
	assert_int_equal(h_cmd(h->p2, 0, cdb, 10, SCSI_DIR_READ, back, H_BS, &r), SAM_STAT_GOOD);
	assert_int_not_equal(back[0], 0xa5);
	h_cdb_rw10(cdb, 0x28, 7, 1);
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, back, H_BS, &r), SAM_STAT_GOOD);
	assert_int_equal(back[0], 0x5a);
}

/* CLEAR ACA aborts the running ACA task; the response follows its end. */
static void test_clear_aca_aborts_aca_task(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct h_releaser rl;
	struct loop_result r;
	struct loop_task *t;

	establish(h);
	fake_bs_hold(h->bs, true);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	t = loop_submit_async(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, SCSI_ATTR_ACA, 3, 0);
	h_wait_held(h->bs, 1);
	h_release_later(&rl, h->bs, 100);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_true(loop_task_done(t));
	loop_wait(t, &r);
	assert_true(r.no_response);
	h_release_join(&rl);
	assert_false(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* The ACA task fails: with NACA 1 a new ACA replaces the old one, with NACA
 * 0 the ACA is cleared. */
static void test_aca_task_check_condition(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	establish(h);
	read_past_end(h->p1, NACA, SCSI_ATTR_ACA);
	assert_true(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_ACA_ACTIVE);
	/* the new ACA admits a new ACA task */
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_ACA, &r), SAM_STAT_GOOD);
	read_past_end(h->p1, 0, SCSI_ATTR_ACA);
	assert_false(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* SAM-5 7.2, 7.4: ABORT TASK SET and CLEAR TASK SET keep the ACA. */
static void test_task_set_tmfs_keep_aca(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	establish(h);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_ABORT_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_TASK_SET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_true(aca_faulted(h));
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_ACA_ACTIVE);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_CLEAR_ACA, 0, 0), SCSI_TMF_RESP_COMPLETE);
}

/* SAM-5 5.9: a logical unit reset clears the ACA (the other nexus may
 * reset it). */
static void test_lu_reset_clears(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	establish(h);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_false(aca_faulted(h));
	assert_true(h_clear_ua(h->p1, 0) >= 1);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* I_T NEXUS RESET of the faulted nexus clears it; of another one not. */
static void test_it_nexus_reset_clears(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	establish(h);
	assert_int_equal(loop_tmf(h->p2, SCSI_TMF_I_T_NEXUS_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_true(aca_faulted(h));
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_I_T_NEXUS_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	assert_false(aca_faulted(h));
	assert_true(h_clear_ua(h->p1, 0) >= 1);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

/* The loss of the faulted nexus clears the ACA: the other nexus' held task
 * resumes and its new commands run. */
static void test_nexus_loss_clears(void **state)
{
	struct harness *h = *state;
	static const uint8_t tur_cdb[6] = {0};
	uint8_t cdb[10], buf[H_BS];
	struct loop_task *running, *blocked;
	struct loop_result r;

	fake_bs_hold(h->bs, true);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	running =
	    loop_submit_async(h->p2, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, SCSI_ATTR_SIMPLE, 1, 0);
	h_wait_held(h->bs, 1);
	blocked = loop_submit_async(h->p2, 0, tur_cdb, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_ORDERED,
				    2, 0);
	/* in the task set before the ACA (after it: BUSY) */
	h_settle();
	assert_false(loop_task_done(blocked));
	establish(h);
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(running, &r);
	h_settle();
	assert_false(loop_task_done(blocked));
	loop_destroy(h->p1);
	h->p1 = NULL;
	loop_wait(blocked, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_false(aca_faulted(h));
	assert_int_equal(tur(h->p2, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
	/* the initiator port's next nexus: I_T NEXUS LOSS, then GOOD */
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	assert_non_null(h->p1);
	assert_true(h_clear_ua(h->p1, 0) >= 1);
	assert_int_equal(tur(h->p1, 0, SCSI_ATTR_SIMPLE, &r), SAM_STAT_GOOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cdb_naca),
	    cmocka_unit_test_setup_teardown(test_naca0_no_aca, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_aca_attr_without_aca, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_faulted_nexus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_nexus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_aca_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_held_tasks_resume, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_enter_later_admitted_at_entry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_clear_aca_aborts_aca_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_aca_task_check_condition, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_task_set_tmfs_keep_aca, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lu_reset_clears, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_it_nexus_reset_clears, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nexus_loss_clears, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
