/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_nop.c: NOP-Out pings and the NOP-In keepalive (RFC 7143 11.18,
 * 11.19). */
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
static uint8_t rsp[16384];
static uint32_t rsp_len;

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void nop_out(uint32_t itt, uint32_t ttt, bool immediate, const void *data, uint32_t len)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | (immediate ? ISCSI_OP_IMMEDIATE : 0);
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	h.nop_out.lun[1] = 3;
	put_be32(h.nop_out.itt, itt);
	put_be32(h.nop_out.ttt, ttt);
	put_be32(h.nop_out.cmdsn, hc->cmdsn);
	h_send(hc, &h, data, len);
}

static void test_ping(void **state)
{
	union iscsi_hdr h;
	uint32_t statsn;

	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, KEYS("MaxRecvDataSegmentLength=1024")), 0);
	statsn = hc->statsn;
	/* libiscsi iSCSINop.Simple: data echoed, and no data */
	nop_out(5, ISCSI_RSVD_TAG, true, "nopping", 8);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(get_be32(h.nop_in.itt), 5);
	assert_int_equal(get_be32(h.nop_in.ttt), ISCSI_RSVD_TAG);
	assert_int_equal(h.nop_in.lun[1], 3);
	assert_int_equal(get_be32(h.nop_in.statsn), statsn + 1);
	assert_int_equal(rsp_len, 8);
	assert_memory_equal(rsp, "nopping", 8);
	nop_out(6, ISCSI_RSVD_TAG, true, NULL, 0);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(rsp_len, 0);
	/* a non-immediate ping takes a CmdSN */
	nop_out(7, ISCSI_RSVD_TAG, false, NULL, 0);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.exp_cmdsn), 2);
	/* the echo never exceeds the initiator's MaxRecvDataSegmentLength */
	{
		static uint8_t big[4096];

		memset(big, 'p', sizeof(big));
		nop_out(8, ISCSI_RSVD_TAG, true, big, sizeof(big));
		h_expect(hc, ISCSI_OP_NOP_IN, &h, rsp, sizeof(rsp), &rsp_len);
		assert_int_equal(rsp_len, 1024);
	}
	/* ITT 0xffffffff: no answer; without the I bit: rejected */
	nop_out(ISCSI_RSVD_TAG, ISCSI_RSVD_TAG, true, NULL, 0);
	assert_true(h_idle(hc));
	nop_out(ISCSI_RSVD_TAG, ISCSI_RSVD_TAG, false, NULL, 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
}

static void stop_cb(struct reactor_timer *t)
{
	reactor_stop(henv.r);
}

static void run_for(uint64_t ns)
{
	struct reactor_timer stop;

	reactor_timer_init(&stop, stop_cb);
	reactor_timer_arm(henv.r, &stop, ns);
	reactor_run(henv.r);
}

static void test_keepalive(void **state)
{
	struct iscsi_settings s = h_settings();
	union iscsi_hdr h;
	uint32_t ttt;

	(void)state;
	s.nop_in_interval_s = 1;
	s.nop_in_timeout_s = 1;
	h_setup(&s);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	run_for(1100000000ull);
	/* a target ping: ITT 0xffffffff, a TTT, StatSN not advanced */
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), ISCSI_RSVD_TAG);
	ttt = get_be32(h.nop_in.ttt);
	assert_int_not_equal(ttt, ISCSI_RSVD_TAG);
	assert_int_equal(get_be32(h.nop_in.statsn), hc->statsn);
	/* answered: the connection lives on */
	nop_out(ISCSI_RSVD_TAG, ttt, true, NULL, 0);
	run_for(500000000ull);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	/* not answered: dropped after nop_in_timeout_s */
	run_for(2600000000ull);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_ping, teardown),
	    cmocka_unit_test_teardown(test_keepalive, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
