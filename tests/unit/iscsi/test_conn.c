/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_conn.c: the connection: RFC 7143 8.1 state machine, a whole
 * exchange fed byte by byte and in random splits through iscsi_conn_feed
 * (the fuzzing entry point), partial writes of the send queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "lib/endian.h"

#define F_R (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	h_write_max = 0;
	h_write_eagain = false;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_write_max = 0;
	h_write_eagain = false;
	h_teardown();
	return 0;
}

static void test_fsm(void **state)
{
	struct h_conn *hc;

	(void)state;
	/* S3 -> S4 on the first Login Request; an event with no transition
	 * from the current state drops the connection */
	hc = h_conn_new();
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S3_XPT_UP);
	iscsi_conn_event(hc->c, ISCSI_CEV_LOGIN_OK);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);

	hc = h_conn_new();
	iscsi_conn_event(hc->c, ISCSI_CEV_LOGIN_REQ);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S4_IN_LOGIN);
	iscsi_conn_event(hc->c, ISCSI_CEV_LOGOUT_REQ);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	/* nothing happens to a freed connection */
	iscsi_conn_event(hc->c, ISCSI_CEV_LOGIN_REQ);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	assert_true(iscsi_conn_feed(hc->c, "x", 1) < 0);
	h_conn_free(hc);

	/* S5: a transport failure goes through S8 CLEANUP_WAIT to S1 */
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	iscsi_conn_event(hc->c, ISCSI_CEV_TRANSPORT);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	assert_int_equal(fake.nexus_lost, 1);
	h_conn_free(hc);
}

/* A whole conversation as one byte stream. */
static size_t script(struct h_conn *hc, uint8_t *w, size_t cap)
{
	static const char *const keys[] = {"InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					   "ImmediateData=Yes", NULL};
	uint8_t kb[256], cdb[16], blk[512];
	union iscsi_hdr h;
	size_t n = 0;
	uint32_t kl = h_keys(kb, sizeof(kb), keys);

	h_login_hdr(&h, ISCSI_LOGIN_F_TRANSIT | (1 << 2) | 3, 0, 1, 1);
	n += h_build(hc, w + n, cap - n, &h, NULL, 0, kb, kl, false);
	memset(blk, 0xc3, sizeof(blk));
	h_write10(cdb, 9, 1);
	h_scsi_cmd(&h, hc, F_W, 512, cdb);
	n += h_build(hc, w + n, cap - n, &h, NULL, 0, blk, 512, false);
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	put_be32(h.nop_out.itt, 0x42);
	put_be32(h.nop_out.ttt, ISCSI_RSVD_TAG);
	n += h_build(hc, w + n, cap - n, &h, NULL, 0, "abc", 3, false);
	h_read10(cdb, 9, 1);
	h_scsi_cmd(&h, hc, F_R, 512, cdb);
	n += h_build(hc, w + n, cap - n, &h, NULL, 0, NULL, 0, false);
	return n;
}

static void check_replies(struct h_conn *hc)
{
	uint8_t d[1024];
	union iscsi_hdr h;
	uint32_t len;

	h_expect(hc, ISCSI_OP_LOGIN_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.login_rsp.status_class, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	/* 511 bytes of immediate data for a 512-byte write: residual */
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, d, sizeof(d), &len);
	assert_int_equal(len, 3);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, d, sizeof(d), &len);
	assert_int_equal(len, 512);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	for (unsigned i = 0; i < 512; i++)
		assert_int_equal(d[i], 0xc3);
	assert_true(h_idle(hc));
}

static void test_feed_splits(void **state)
{
	static uint8_t w[8192];

	(void)state;
	for (unsigned mode = 0; mode < 6; mode++) {
		struct h_conn *hc = h_conn_new();
		size_t n = script(hc, w, sizeof(w)), off = 0;

		srand(mode);
		while (off < n) {
			size_t k = mode == 0 ? 1 : 1 + (size_t)rand() % (mode * 40);

			if (k > n - off)
				k = n - off;
			assert_int_equal(iscsi_conn_feed(hc->c, w + off, k), 0);
			off += k;
		}
		check_replies(hc);
		h_conn_free(hc);
	}
}

static void test_partial_writes(void **state)
{
	static uint8_t w[8192];
	struct h_conn *hc;
	size_t n;

	(void)state;
	h_write_max = 7;
	h_write_eagain = true;
	hc = h_conn_new();
	n = script(hc, w, sizeof(w));
	assert_int_equal(iscsi_conn_feed(hc->c, w, n), 0);
	for (unsigned i = 0; i < 2000 && hc->c->txq_bytes; i++)
		iscsi_conn_flush(hc->c);
	assert_int_equal(hc->c->txq_bytes, 0);
	check_replies(hc);
	h_conn_free(hc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_fsm, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_feed_splits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_partial_writes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
