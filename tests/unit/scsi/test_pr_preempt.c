/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pr_preempt.c: persistent reservations (pr.c): PREEMPT, PREEMPT AND
 * ABORT (with the preempted I_T nexus' tasks running, waiting for Data-Out
 * and blocked, TAS 0 and 1), REGISTER AND MOVE, SPEC_I_PT and ALL_TG_PT
 * registrations, READ FULL STATUS and the registration cap.
 *
 *   p1 "iqn.test:a,i,0x000000000001" -- target port 1 --\
 *   p2 "iqn.test:b,i,0x000000000001" -- target port 1 ---+- target --- LUN 0: lu
 *   p3 "iqn.test:a,i,0x000000000001" -- target port 2 --/
 */
#include "pr_harness.h"

#include <stdio.h>

/* An iSCSI TransportID (SPC-4 7.6.4.6) of port name s, format 01b when it
 * holds ",i,0x", else 00b; returns its length. */
static size_t make_tid(uint8_t *buf, const char *s)
{
	size_t n = strlen(s) + 1, add = (n + 3) & ~(size_t)3;

	if (add < 20)
		add = 20;
	memset(buf, 0, 4 + add);
	buf[0] = (uint8_t)((strstr(s, ",i,0x") ? 0x40 : 0x00) | 0x05);
	put_be16(buf + 2, (uint16_t)add);
	memcpy(buf + 4, s, n - 1);
	return 4 + add;
}

/* PREEMPT without a reservation removes the registrations of the key
 * (libiscsi ProutPreempt.RemoveRegistration). */
static void test_preempt_registration(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint64_t keys[16];
	uint32_t g0, g;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &g0), 2);
	/* unregistered, wrong key, unknown key, SARK 0 */
	assert_int_equal(prout(ph->p3, PRO_PREEMPT, T_EA, 0, 0xa1, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xbb, 0xa1, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xb2, 0xcc, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xb2, 0, 0, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xb2, 0xa1, 0, &r), SAM_STAT_GOOD);
	/* (PR IN through p2: p1 has a unit attention pending) */
	assert_int_equal(pr_keys(ph->h.p2, keys, &g), 1);
	assert_int_equal(keys[0], 0xb2);
	assert_int_equal(g, g0 + 1);
	/* no reservation was made (SCOPE and TYPE ignored) */
	assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
	assert_int_equal(h_next_ua(ph->h.p1), 0x2a05);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
}

/* PREEMPT of the holder: the preempting I_T nexus reserves with the new
 * type; the preempted one hears REGISTRATIONS PREEMPTED, the remaining
 * registrants RESERVATIONS RELEASED (type changed). */
static void test_preempt_holder(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint64_t key;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->p3, 0, 0xc3), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_WE, 0xb2, 0xa1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p2, &key), T_WE);
	assert_int_equal(key, 0xb2);
	assert_int_equal(pr_keys(ph->h.p2, NULL, NULL), 2);
	assert_int_equal(h_next_ua(ph->h.p1), 0x2a05);
	assert_int_equal(h_next_ua(ph->p3), 0x2a04);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	/* the preempted I_T nexus is now unregistered: writes conflict */
	assert_int_equal(h_write1(ph->h.p1, &r), SAM_STAT_RESERVATION_CONFLICT);
	/* the holder preempting itself changes the type */
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA_RO, 0xb2, 0xb2, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p2, &key), T_EA_RO);
	assert_int_equal(pr_keys(ph->h.p2, NULL, NULL), 2);
	assert_int_equal(h_next_ua(ph->p3), 0x2a04);
}

/* An all registrants reservation, SARK 0: everybody else is preempted. */
static void test_preempt_all_registrants(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint64_t keys[16], key;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->p3, 0, 0xc3), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE_AR), SAM_STAT_GOOD);
	/* a non-zero SARK only removes that key; the reservation stays */
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xb2, 0xc3, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p1, NULL), T_WE_AR);
	assert_int_equal(h_next_ua(ph->p3), 0x2a05);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT, T_EA, 0xb2, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p2, keys, NULL), 1);
	assert_int_equal(keys[0], 0xb2);
	assert_int_equal(pr_resv(ph->h.p2, &key), T_EA);
	assert_int_equal(key, 0xb2);
	assert_int_equal(h_next_ua(ph->h.p1), 0x2a05);
	assert_int_equal(h_read1(ph->h.p1, &r), SAM_STAT_RESERVATION_CONFLICT);
}

static void set_tas(struct loop_port *p, bool tas)
{
	uint8_t data[16] = {0, 0, 0,	0,    0x0a, 0x0a, 0x02, 0x10, 0x00, tas ? 0x40 : 0,
			    0, 0, 0xff, 0xff, 0,    0};
	uint8_t cdb[6] = {0x15, 0x10, 0, 0, sizeof(data), 0};
	struct loop_result r;

	assert_int_equal(h_cmd(p, 0, cdb, 6, SCSI_DIR_WRITE, data, sizeof(data), &r),
			 SAM_STAT_GOOD);
}

/* PREEMPT AND ABORT: the preempted I_T nexus' tasks (one running with its
 * I/O held, one waiting for Data-Out, one blocked behind an ordered task)
 * are aborted, and the PERSISTENT RESERVE OUT completes only after the
 * running one has ended (SPC-4 5.13.11.2.4). tas selects silent abort +
 * COMMANDS CLEARED BY ANOTHER INITIATOR or TASK ABORTED status. */
static void preempt_and_abort(struct pr_harness *ph, bool tas)
{
	uint8_t rd[10], wr[10], tur[6] = {0}, rbuf[H_BS], wbuf[H_BS] = {1}, mine[H_BS];
	struct loop_task *t_run, *t_data, *t_blocked, *t_ordered, *t_mine;
	struct loop_result r, rr;
	struct h_releaser rl;
	uint64_t key;

	set_tas(ph->h.p1, tas);
	h_clear_ua(ph->h.p2, 0);
	h_clear_ua(ph->p3, 0);
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE), SAM_STAT_GOOD);
	/* the victim's tasks */
	h_cdb_rw10(rd, 0x28, 0, 1);
	h_cdb_rw10(wr, 0x2a, 2, 1);
	fake_bs_hold(ph->h.bs, true);
	t_run = loop_submit_async(ph->h.p1, 0, rd, 10, SCSI_DIR_READ, rbuf, H_BS, SCSI_ATTR_SIMPLE,
				  1, 0);
	h_wait_held(ph->h.bs, 1);
	t_data = loop_submit_async(ph->h.p1, 0, wr, 10, SCSI_DIR_WRITE, wbuf, H_BS,
				   SCSI_ATTR_SIMPLE, 2, LOOP_HOLD_DATA);
	loop_wait_setup(t_data);
	/* a task of the preempting nexus survives (read held too) */
	t_mine = loop_submit_async(ph->h.p2, 0, rd, 10, SCSI_DIR_READ, mine, H_BS, SCSI_ATTR_SIMPLE,
				   5, 0);
	h_wait_held(ph->h.bs, 2);
	t_ordered =
	    loop_submit_async(ph->h.p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_ORDERED, 3, 0);
	t_blocked = loop_submit_async(ph->h.p1, 0, rd, 10, SCSI_DIR_READ, rbuf, H_BS,
				      SCSI_ATTR_SIMPLE, 4, 0);
	h_settle();
	assert_false(loop_task_done(t_ordered));
	assert_false(loop_task_done(t_blocked));

	h_release_later(&rl, ph->h.bs, 150);
	assert_int_equal(prout(ph->h.p2, PRO_PREEMPT_AND_ABORT, T_EA, 0xb2, 0xa1, 0, &r),
			 SAM_STAT_GOOD);
	/* every aborted task had ended before the PR OUT completed */
	assert_true(loop_task_done(t_run));
	assert_true(loop_task_done(t_data));
	assert_true(loop_task_done(t_ordered));
	assert_true(loop_task_done(t_blocked));
	h_release_join(&rl);
	loop_wait(t_mine, &rr);
	assert_int_equal(rr.status, SAM_STAT_GOOD);
	struct loop_task *victims[] = {t_run, t_data, t_ordered, t_blocked};
	for (size_t i = 0; i < 4; i++) {
		loop_wait(victims[i], &rr);
		if (tas) {
			assert_false(rr.no_response);
			assert_int_equal(rr.status, SAM_STAT_TASK_ABORTED);
		} else {
			assert_true(rr.no_response);
		}
	}
	assert_int_equal(pr_resv(ph->h.p2, &key), T_EA);
	assert_int_equal(key, 0xb2);
	/* the victim hears it: REGISTRATIONS PREEMPTED, then (TAS 0)
	 * COMMANDS CLEARED BY ANOTHER INITIATOR */
	assert_int_equal(h_next_ua(ph->h.p1), 0x2a05);
	assert_int_equal(h_next_ua(ph->h.p1), tas ? 0 : 0x2f00);
	assert_int_equal(h_read1(ph->h.p1, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
}

static void test_preempt_and_abort_tas0(void **state)
{
	preempt_and_abort(*state, false);
}

static void test_preempt_and_abort_tas1(void **state)
{
	preempt_and_abort(*state, true);
}

/* REGISTER AND MOVE (SPC-4 5.13.8): to an unregistered I_T nexus named by
 * TransportID and relative target port, then back with UNREG. */
static void test_register_and_move(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t list[24 + 64] = {0};
	struct loop_result r;
	uint64_t keys[16], key;
	size_t tl;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	tl = make_tid(list + 24, "iqn.test:b,i,0x000000000001");
	put_be64(list, 0xa1);
	put_be64(list + 8, 0xb2);
	put_be16(list + 18, 1);
	put_be32(list + 20, (uint32_t)tl);
	/* a non-holder cannot move it */
	assert_int_equal(prout_raw(ph->p3, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + tl, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	/* unknown target port, list too short */
	put_be16(list + 18, 99);
	prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + tl, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	put_be16(list + 18, 1);
	prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + 8, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* to itself */
	make_tid(list + 24, "iqn.test:a,i,0x000000000001");
	prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + tl, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	make_tid(list + 24, "iqn.test:b,i,0x000000000001");
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + tl, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p1, &key), T_EA);
	assert_int_equal(key, 0xb2);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 2);
	/* p1 is a registrant, not the holder any more */
	assert_int_equal(h_read1(ph->h.p1, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_read1(ph->h.p2, &r), SAM_STAT_GOOD);
	/* back to p1 (registered: its key stays) and p2 unregisters */
	make_tid(list + 24, "iqn.test:a,i,0x000000000001");
	put_be64(list, 0xb2);
	put_be64(list + 8, 0xdd);
	list[17] = 0x02; /* UNREG */
	assert_int_equal(prout_raw(ph->h.p2, PRO_REGISTER_AND_MOVE, T_WE, list, 24 + tl, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 1);
	assert_int_equal(keys[0], 0xa1);
	assert_int_equal(pr_resv(ph->h.p1, &key), T_WE);
	assert_int_equal(key, 0xa1);
	/* all registrants reservations cannot be moved */
	assert_int_equal(prout(ph->h.p1, PRO_RELEASE, T_WE, 0xa1, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE_AR), SAM_STAT_GOOD);
	make_tid(list + 24, "iqn.test:b,i,0x000000000001");
	put_be64(list, 0xa1);
	list[17] = 0;
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_WE, list, 24 + tl, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
}

/* REGISTER AND MOVE to an I_T nexus that does not exist yet: initiator b
 * through target port 2 (b is logged in through port 1 only). */
static void test_register_and_move_no_nexus(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t list[24 + 64] = {0}, buf[256];
	struct loop_result r;
	size_t tl;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	tl = make_tid(list + 24, "iqn.test:b,i,0x000000000001");
	put_be64(list, 0xa1);
	put_be64(list + 8, 0xb2);
	list[17] = 0x02; /* UNREG */
	put_be16(list + 18, 2);
	put_be32(list + 20, (uint32_t)tl);
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, 24 + tl, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(prin(ph->h.p2, PRI_READ_FULL_STATUS, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf + 4), 24 + tl);
	assert_int_equal(get_be64(buf + 8), 0xb2);
	assert_int_equal(buf[8 + 12], 0x01); /* R_HOLDER */
	assert_int_equal(get_be16(buf + 8 + 18), 2);
	/* b through port 1 is another I_T nexus: not registered */
	assert_int_equal(h_read1(ph->h.p2, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_read1(ph->h.p1, &r), SAM_STAT_RESERVATION_CONFLICT);
}

/* REGISTER with SPEC_I_PT: the requester and every TransportID's initiator
 * port (a port, format 01b, and a device, 00b), all or nothing. */
static void test_spec_i_pt(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t list[28 + 3 * 64] = {0};
	struct loop_result r;
	uint64_t keys[16];
	size_t n = 28;

	put_be64(list + 8, 0x5a);
	list[20] = B20_SPEC_I_PT;
	n += make_tid(list + n, "iqn.test:b,i,0x000000000001");
	n += make_tid(list + n, "iqn.test:c");
	put_be32(list + 24, (uint32_t)(n - 28));
	/* TRANSPORTID PARAMETER DATA LENGTH beyond the list */
	prout_raw(ph->h.p1, PRO_REGISTER, 0, list, (uint32_t)n - 4, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* a malformed TransportID (protocol not iSCSI): nothing registered */
	list[28] = 0x41;
	prout_raw(ph->h.p1, PRO_REGISTER, 0, list, (uint32_t)n, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 0);
	list[28] = 0x45;
	/* a TransportID of an I_T nexus registered already: nothing either */
	assert_int_equal(pr_register(ph->h.p2, 0, 0x22), SAM_STAT_GOOD);
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER, 0, list, (uint32_t)n, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 1);
	assert_int_equal(pr_register(ph->h.p2, 0x22, 0), SAM_STAT_GOOD);
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER, 0, list, (uint32_t)n, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 3);
	/* p2 was registered by p1: it may reserve with that key */
	assert_int_equal(pr_reserve(ph->h.p2, 0x5a, T_WE), SAM_STAT_GOOD);
	/* a registered I_T nexus may not use SPEC_I_PT */
	put_be64(list, 0x5a);
	prout_raw(ph->h.p1, PRO_REGISTER, 0, list, (uint32_t)n, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 3);
}

/* A SPEC_I_PT list over 4 KiB (200 TransportIDs of initiator devices):
 * every one registered. */
static void test_spec_i_pt_large(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t *list = calloc(1, 28 + 200 * 28), buf[8];
	struct loop_result r;
	uint32_t n = 28;

	assert_non_null(list);
	put_be64(list + 8, 0x77);
	list[20] = B20_SPEC_I_PT;
	for (int i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "iqn.test:host%03d", i);
		n += (uint32_t)make_tid(list + n, name);
	}
	put_be32(list + 24, n - 28);
	assert_true(n > 4096);
	assert_int_equal(prout_raw(ph->h.p1, PRO_REGISTER, 0, list, n, &r), SAM_STAT_GOOD);
	assert_int_equal(prin(ph->h.p2, PRI_READ_KEYS, buf, 8, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf + 4), 8 * 201);
	free(list);
}

/* ALL_TG_PT: one registration for the initiator port through every target
 * port (p1 and p3); READ FULL STATUS shows it once, with the bit. */
static void test_all_tg_pt_and_full_status(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t buf[256], tid[64];
	struct loop_result r;
	size_t tl;

	assert_int_equal(prout(ph->h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_ALL_TG_PT, &r),
			 SAM_STAT_GOOD);
	/* p3 is the same initiator port: registered through port 2 too */
	assert_int_equal(pr_reserve(ph->p3, 0xa1, T_EA), SAM_STAT_GOOD);
	assert_int_equal(h_write1(ph->h.p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_write1(ph->h.p2, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(prin(ph->h.p2, PRI_READ_FULL_STATUS, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	tl = make_tid(tid, "iqn.test:a,i,0x000000000001");
	assert_int_equal(get_be32(buf + 4), 24 + tl + 24 + tl);
	/* p1/p3's registration: ALL_TG_PT, R_HOLDER, EA */
	assert_int_equal(get_be64(buf + 8), 0xa1);
	assert_int_equal(buf[8 + 12], 0x03);
	assert_int_equal(buf[8 + 13], T_EA);
	assert_int_equal(get_be32(buf + 8 + 20), tl);
	assert_memory_equal(buf + 8 + 24, tid, tl);
	/* p2's: relative target port 1, not a holder */
	assert_int_equal(get_be64(buf + 8 + 24 + tl), 0xb2);
	assert_int_equal(buf[8 + 24 + tl + 12], 0x00);
	assert_int_equal(get_be16(buf + 8 + 24 + tl + 18), 1);
	/* truncated: ADDITIONAL LENGTH still the whole */
	assert_int_equal(prin(ph->h.p2, PRI_READ_FULL_STATUS, buf, 12, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 12);
	assert_int_equal(get_be32(buf + 4), 24 + tl + 24 + tl);
}

/* INSUFFICIENT REGISTRATION RESOURCES beyond the LU's cap. */
static void test_registration_cap(void **state)
{
	struct pr_harness *ph = calloc(1, sizeof(*ph));
	struct scsi_lu_attrs a = h_attrs();
	struct loop_result r;

	(void)state;
	a.pr_max_registrations = 2;
	prh_setup_attrs(ph, &a);
	assert_int_equal(pr_register(ph->h.p1, 0, 1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 2), SAM_STAT_GOOD);
	prout(ph->p3, PRO_REGISTER, 0, 0, 3, 0, &r);
	h_expect_sense(&r, 0x5, 0x55, 0x04);
	/* a key change needs no room */
	assert_int_equal(pr_register(ph->h.p2, 2, 4), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 2);
	/* SPEC_I_PT: room for the requester and every TransportID, or none */
	assert_int_equal(pr_register(ph->h.p2, 4, 0), SAM_STAT_GOOD);
	uint8_t list[28 + 24] = {0};
	put_be64(list + 8, 5);
	list[20] = B20_SPEC_I_PT;
	put_be32(list + 24, (uint32_t)make_tid(list + 28, "iqn.test:c"));
	prout_raw(ph->p3, PRO_REGISTER, 0, list, sizeof(list), &r);
	h_expect_sense(&r, 0x5, 0x55, 0x04);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 1);
	prh_teardown(ph);
	free(ph);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_preempt_registration, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_preempt_holder, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_preempt_all_registrants, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_preempt_and_abort_tas0, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_preempt_and_abort_tas1, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_register_and_move, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_register_and_move_no_nexus, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_spec_i_pt, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_spec_i_pt_large, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_all_tg_pt_and_full_status, pr_setup, pr_teardown),
	    cmocka_unit_test(test_registration_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
