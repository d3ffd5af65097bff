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

#include "harness.h"
#include "lib/endian.h"

static struct h_conn *hc;

static int teardown(void **state)
{
	(void)state;
	fake.buf_short = false;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

/* Let the retry timer (2 ms) fire. */
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
	nop_ping(0x77);
	for (int i = 0; i < 3; i++) {
		nanosleep(&ts, NULL);
		h_pump();
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_wait_for_memory, teardown),
	    cmocka_unit_test_teardown(test_give_up, teardown),
	    cmocka_unit_test_teardown(test_waiting_then_dropped, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
