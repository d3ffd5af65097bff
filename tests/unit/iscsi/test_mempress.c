/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mempress.c: back-pressure on buffer memory (mempress.c, RFC 7143
 * 3.2.2.1) against the fake core's buf_short knob: a SCSI Command whose
 * buffer cannot be had waits before its data segment with reading stopped
 * (nothing behind it is answered), MaxCmdSN stops advancing meanwhile, and
 * once memory is back the command completes with its immediate data in
 * place, the PDUs behind it are processed, and a NOP-In announces the
 * window again. A command that waits too long ends (BUSY) and reading goes
 * on. A waiting command whose connection goes is ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "fabric/iscsi/session.h"
#include "harness.h"
#include "lib/endian.h"

static struct h_conn *hc;

static int teardown(void **state)
{
	(void)state;
	fake.buf_short = false;
	h_write_blocked = false;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

/* Let the retry timer (2 ms) fire. */
static long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000L + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

static void wait_retry(void)
{
	const struct timespec ts = {.tv_nsec = 5 * 1000000};

	nanosleep(&ts, NULL);
	h_pump();
}

static void nop_ping(uint32_t itt)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	put_be32(h.nop_out.itt, itt);
	put_be32(h.nop_out.ttt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.cmdsn, hc->cmdsn);
	h_send(hc, &h, NULL, 0);
}

static void test_wait_for_memory(void **state)
{
	static uint8_t blk[2 * FAKE_BS];
	uint8_t cdb[16];
	union iscsi_hdr h;
	uint32_t itt, max_before, max_held, statsn;

	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	/* a first command: its response tells the current window */
	h_read10(cdb, 0, 1);
	h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ, FAKE_BS, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
	max_before = get_be32(h.data_in.max_cmdsn);

	/* memory short: a WRITE with immediate data waits; a READ held in
	 * the core completes meanwhile and its response holds MaxCmdSN */
	fake.hold = true;
	h_read10(cdb, 1, 1);
	h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ, FAKE_BS, cdb, NULL, 0);
	fake.hold = false;
	fake.buf_short = true;
	memset(blk, 0xc3, sizeof(blk));
	h_write10(cdb, 10, 2);
	itt = h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE, sizeof(blk), cdb, blk, sizeof(blk));
	nop_ping(0x4242); /* behind the waiting command: not read yet */
	h_pump();
	assert_true(iscsi_conn_state(hc->c) == ISCSI_CONN_S5_LOGGED_IN);
	assert_true(hc->c->mem_wait);
	assert_true(hc->c->rx_paused);
	assert_int_equal(fake_complete_held(), 1);
	h_pump();
	h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
	max_held = get_be32(h.data_in.max_cmdsn);
	/* the READ's slot was freed, yet the window did not move */
	assert_int_equal(max_held, max_before);
	wait_retry();
	wait_retry();
	assert_true(h_idle(hc)); /* still waiting: the NOP-Out was not read */

	/* memory back: the write completes with its data, then the ping */
	fake.buf_short = false;
	wait_retry();
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_memory_equal(fake.disk + 10 * FAKE_BS, blk, sizeof(blk));
	assert_false(hc->c->mem_wait);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), 0x4242);
	/* then the window announcement (ITT/TTT reserved), advanced; its
	 * StatSN is the next one, not consumed (11.19) */
	statsn = hc->statsn;
	wait_retry();
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), ISCSI_RSVD_TAG);
	assert_int_equal(get_be32(h.nop_in.ttt), ISCSI_RSVD_TAG);
	assert_true(get_be32(h.nop_in.max_cmdsn) > max_held);
	assert_int_equal(get_be32(h.nop_in.statsn), statsn + 1);
	assert_true(h_idle(hc));
	/* the next response carries that same StatSN */
	nop_ping(0x4343);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.statsn), statsn + 1);
}

/* Memory that never comes back (held by commands waiting for Data-Out
 * behind a stopped connection): after 1 s the command ends (BUSY in the
 * core; the fake core reports any refusal as CHECK CONDITION) and reading
 * goes on. */
static void test_give_up(void **state)
{
	static uint8_t blk[FAKE_BS];
	const struct timespec ts = {.tv_nsec = 300 * 1000000};
	struct timespec t0, t1;
	uint8_t cdb[16];
	union iscsi_hdr h;
	uint32_t itt;

	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	fake.buf_short = true;
	h_write10(cdb, 3, 1);
	itt = h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE, sizeof(blk), cdb, blk, sizeof(blk));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nop_ping(0x77);
	for (int i = 0; i < 3; i++) {
		nanosleep(&ts, NULL);
		/* read the clock before pumping: a loaded machine may have
		 * slept past the 1 s limit, and then the answer is due */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		h_pump();
		if (ms_between(&t0, &t1) < 950)
			assert_true(h_idle(hc));
	}
	nanosleep(&ts, NULL);
	wait_retry();
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(fake.last_fabric_error, 0); /* the core's BUSY, not a fabric error */
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), 0x77);
	assert_false(hc->c->mem_wait);
}

static void test_waiting_then_dropped(void **state)
{
	static uint8_t blk[FAKE_BS];
	uint8_t cdb[16];

	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	fake.buf_short = true;
	h_write10(cdb, 3, 1);
	h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE, sizeof(blk), cdb, blk, sizeof(blk));
	h_pump();
	assert_true(hc->c->mem_wait);
	assert_int_equal(fake.live_cmds, 1);
	/* the connection goes while the command waits: the task is ended
	 * and released, the timer stops (teardown checks nothing is left) */
	iscsi_conn_drop(hc->c, "test");
	h_pump();
	assert_int_equal(fake.live_cmds, 0);
	wait_retry();
}

/* ---- the shares of one session (max_session_data_mib) ----
 *
 *   hc -- session (share 1 MiB) -- fake LU (256 x 512 B)
 *
 * Eight WRITEs of the whole disk (128 KiB each) wait for Data-Out after
 * their R2T: 1 MiB pinned, the share. The window stops at 7/8; the ninth
 * WRITE ends with TASK SET FULL without a buffer; once the data comes and
 * the writes complete, the window opens again (NOP-In). Before, one
 * session could pin the whole global cap. */
static void test_session_share(void **state)
{
	struct iscsi_settings st = h_settings();
	static uint8_t disk[FAKE_BLOCKS * FAKE_BS];
	uint32_t itt[9], ttt[8], max[8], held;
	uint8_t cdb[16];
	union iscsi_hdr h;

	(void)state;
	st.max_session_data_mib = 1;
	st.max_connection_data_mib = 0;
	h_setup(&st);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, (const char *const[]){"InitialR2T=Yes", "ImmediateData=No",
							   "MaxBurstLength=262144", NULL}),
			 0);
	assert_int_equal(iscsi_mem_budget(hc->c), 0); /* nothing pinned: no limit */
	memset(disk, 0x6b, sizeof(disk));
	h_write10(cdb, 0, FAKE_BLOCKS);
	for (unsigned i = 0; i < 8; i++) {
		itt[i] =
		    h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE, sizeof(disk), cdb, NULL, 0);
		h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
		ttt[i] = get_be32(h.r2t.ttt);
		max[i] = get_be32(h.r2t.max_cmdsn);
	}
	assert_int_equal(hc->c->sess->data_bytes, 1u << 20);
	/* from 7/8 of the share the window stands still */
	assert_int_equal(max[7], max[6]);
	assert_true(max[6] > max[5] || max[5] == max[6]);
	held = max[7];
	itt[8] = h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE, sizeof(disk), cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt[8]);
	assert_int_equal(h.rsp.status, SAM_STAT_TASK_SET_FULL);
	assert_int_equal(get_be32(h.rsp.max_cmdsn), held);
	assert_int_equal(hc->c->sess->data_bytes, 1u << 20);
	/* the data comes: the writes complete, the share is free again */
	for (unsigned i = 0; i < 8; i++) {
		h_data_out(hc, itt[i], ttt[i], 0, 0, disk, sizeof(disk), true);
		h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
		assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	}
	assert_int_equal(hc->c->sess->data_bytes, 0);
	assert_memory_equal(fake.disk, disk, sizeof(disk));
	wait_retry();
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), ISCSI_RSVD_TAG);
	assert_true(get_be32(h.nop_in.max_cmdsn) > held);
}

/* ---- the send queue (max_connection_send_queue_mib) ----
 * An initiator that does not read its Data-In: once more than the cap is
 * queued, the connection stops reading (TCP pushes back) and the window
 * stands still; reading goes on once half of it is sent. */
static void test_send_queue_cap(void **state)
{
	struct iscsi_settings st = h_settings();
	uint8_t cdb[16];
	union iscsi_hdr h;
	unsigned n = 0;

	(void)state;
	st.max_connection_send_queue_mib = 1;
	st.max_session_send_queue_mib = 1;
	h_setup(&st);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	h_write_blocked = true; /* the initiator does not read */
	h_read10(cdb, 0, FAKE_BLOCKS);
	while (!hc->c->rx_paused && n < 16) {
		h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ, FAKE_BLOCKS * FAKE_BS, cdb, NULL, 0);
		n++;
	}
	assert_true(hc->c->rx_paused);
	assert_true(n >= 8 && n <= 9); /* 128 KiB each: over 1 MiB after eight */
	assert_true(hc->c->txq_bytes > (1u << 20));
	assert_int_equal(hc->c->sess->txq_bytes, hc->c->txq_bytes);
	h_write_blocked = false;
	iscsi_conn_flush(hc->c);
	assert_false(hc->c->rx_paused);
	assert_int_equal(hc->c->sess->txq_bytes, 0);
	for (unsigned i = 0; i < n; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
		while (!(h.data_in.flags & ISCSI_DATAIN_F_STATUS))
			h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_wait_for_memory, teardown),
	    cmocka_unit_test_teardown(test_give_up, teardown),
	    cmocka_unit_test_teardown(test_waiting_then_dropped, teardown),
	    cmocka_unit_test_teardown(test_session_share, teardown),
	    cmocka_unit_test_teardown(test_send_queue_cap, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
