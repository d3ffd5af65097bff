/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_data_out.c: write data: R2T generation for FirstBurstLength /
 * MaxBurstLength / MaxOutstandingR2T settings, unsolicited data, Data-Out
 * sequence checks (RFC 7143 11.7, 11.8, 13.10-13.17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define F_W	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)
#define F_N_TUR	  (ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE)

static uint8_t pattern[FAKE_BLOCKS * FAKE_BS];
static uint8_t buf[65536];
static uint8_t cdb[16];
static struct h_conn *hc;

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	for (unsigned i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 31 + 7);
	hc = h_conn_new();
	return 0;
}

static int setup_mcs(void **state)
{
	struct iscsi_settings st = h_settings();

	(void)state;
	st.max_connections = 2;
	h_setup(&st);
	for (unsigned i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 31 + 7);
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

struct r2t {
	uint32_t ttt, r2tsn, off, len;
};

static struct r2t get_r2t_on(struct h_conn *c, uint32_t itt)
{
	union iscsi_hdr h;
	struct r2t r;

	h_expect(c, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.r2t.itt), itt);
	assert_int_not_equal(get_be32(h.r2t.ttt), ISCSI_RSVD_TAG);
	assert_int_equal(iscsi_hdr_dsl(&h), 0);
	r.ttt = get_be32(h.r2t.ttt);
	r.r2tsn = get_be32(h.r2t.r2tsn);
	r.off = get_be32(h.r2t.buffer_offset);
	r.len = get_be32(h.r2t.desired_len);
	return r;
}

static struct r2t get_r2t(uint32_t itt)
{
	return get_r2t_on(hc, itt);
}

/* Answer an R2T with Data-Out PDUs of at most seg bytes. */
static void answer(uint32_t itt, const struct r2t *r, const uint8_t *src, uint32_t seg)
{
	uint32_t sn = 0;

	for (uint32_t o = 0; o < r->len; o += seg) {
		uint32_t n = r->len - o < seg ? r->len - o : seg;

		h_data_out(hc, itt, r->ttt, sn++, r->off + o, src + r->off + o, n, o + n == r->len);
	}
}

static void expect_status(uint8_t status, uint8_t reason)
{
	union iscsi_hdr h;
	uint32_t len;

	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, buf, sizeof(buf), &len);
	assert_int_equal(h.rsp.status, status);
	if (reason)
		assert_int_equal(buf[2 + 12], reason);
}

static void test_sequential_r2t(void **state)
{
	uint32_t itt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No",
					  "MaxBurstLength=2048", "MaxOutstandingR2T=1")),
			 0);
	h_write10(cdb, 4, 16); /* 8192 bytes */
	itt = h_cmd(hc, F_W, 8192, cdb, NULL, 0);
	for (uint32_t i = 0; i < 4; i++) {
		struct r2t r = get_r2t(itt);

		assert_true(h_idle(hc)); /* one outstanding at a time */
		assert_int_equal(r.r2tsn, i);
		assert_int_equal(r.off, i * 2048);
		assert_int_equal(r.len, 2048);
		answer(itt, &r, pattern, 1000);
	}
	expect_status(SAM_STAT_GOOD, 0);
	assert_memory_equal(fake.disk + 4 * 512, pattern, 8192);
}

static void test_outstanding_r2t(void **state)
{
	struct r2t r[4];
	uint32_t itt;
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No",
					  "MaxBurstLength=4096", "MaxOutstandingR2T=3")),
			 0);
	h_write10(cdb, 0, 40); /* 20480 bytes: five bursts */
	itt = h_cmd(hc, F_W, 20480, cdb, NULL, 0);
	for (unsigned i = 0; i < 3; i++) {
		r[i] = get_r2t(itt);
		assert_int_equal(r[i].r2tsn, i);
		assert_int_equal(r[i].off, i * 4096);
	}
	assert_true(h_idle(hc)); /* MaxOutstandingR2T=3 */
	assert_int_not_equal(r[0].ttt, r[1].ttt);
	assert_int_not_equal(r[1].ttt, r[2].ttt);
	assert_int_not_equal(r[0].ttt, r[2].ttt);
	/* finishing one burst opens the next R2T */
	answer(itt, &r[0], pattern, 4096);
	r[3] = get_r2t(itt);
	assert_int_equal(r[3].r2tsn, 3);
	assert_int_equal(r[3].off, 12288);
	answer(itt, &r[2], pattern, 4096); /* bursts may finish in any order */
	r[0] = get_r2t(itt);
	assert_int_equal(r[0].off, 16384);
	assert_int_equal(r[0].len, 4096);
	answer(itt, &r[1], pattern, 2048);
	answer(itt, &r[3], pattern, 512);
	assert_true(h_idle(hc));
	answer(itt, &r[0], pattern, 4096);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, buf, sizeof(buf), NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	/* ExpDataSN counts the R2Ts */
	assert_int_equal(get_be32(h.rsp.exp_datasn), 5);
	assert_memory_equal(fake.disk, pattern, 20480);
}

static void test_unsolicited(void **state)
{
	uint32_t itt;
	struct r2t r;
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=No", "ImmediateData=Yes",
					  "FirstBurstLength=4096", "MaxBurstLength=8192")),
			 0);
	/* 1024 immediate + 3072 unsolicited Data-Out, then R2T for 4096 */
	h_write10(cdb, 8, 16);
	{
		union iscsi_hdr c;

		h_scsi_cmd(&c, hc, ISCSI_CMD_F_WRITE, 8192, cdb); /* F=0: Data-Out follow */
		itt = get_be32(c.cmd.itt);
		h_send(hc, &c, pattern, 1024);
	}
	assert_true(h_idle(hc));
	h_data_out(hc, itt, ISCSI_RSVD_TAG, 0, 1024, pattern + 1024, 2048, false);
	assert_true(h_idle(hc));
	h_data_out(hc, itt, ISCSI_RSVD_TAG, 1, 3072, pattern + 3072, 1024, true);
	r = get_r2t(itt);
	assert_int_equal(r.off, 4096);
	assert_int_equal(r.len, 4096);
	assert_int_equal(r.r2tsn, 0);
	answer(itt, &r, pattern, 4096);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_memory_equal(fake.disk + 8 * 512, pattern, 8192);

	/* immediate data alone covers the whole write: no R2T */
	h_write10(cdb, 30, 2);
	h_cmd(hc, F_W, 1024, cdb, pattern, 1024);
	expect_status(SAM_STAT_GOOD, 0);
	/* unsolicited data beyond FirstBurstLength fails the task */
	h_write10(cdb, 40, 16);
	{
		union iscsi_hdr c;

		h_scsi_cmd(&c, hc, ISCSI_CMD_F_WRITE, 8192, cdb);
		itt = get_be32(c.cmd.itt);
		h_send(hc, &c, NULL, 0);
	}
	h_data_out(hc, itt, ISCSI_RSVD_TAG, 0, 0, pattern, 4096, false);
	h_data_out(hc, itt, ISCSI_RSVD_TAG, 1, 4096, pattern, 512, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_TOO_MUCH_WRITE_DATA);
}

/* RFC 7143 13.10, 13.11, 13.14: unsolicited data the session did not
 * negotiate is refused (11.4.7.2: UNEXPECTED UNSOLICITED DATA), never
 * written: immediate data with ImmediateData=No, Data-Out announced (F=0)
 * with InitialR2T=Yes, immediate data beyond FirstBurstLength. */
static void test_unsolicited_not_negotiated(void **state)
{
	static const uint8_t zero[1024];
	union iscsi_hdr c;
	uint32_t itt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No",
					  "FirstBurstLength=1024", "MaxBurstLength=8192")),
			 0);
	/* immediate data */
	h_write10(cdb, 2, 2);
	h_cmd(hc, F_W, 1024, cdb, pattern, 1024);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_UNEXPECTED_UNSOLICITED_DATA);
	assert_memory_equal(fake.disk + 2 * 512, zero, 1024);
	/* unsolicited Data-Out: drained until its F bit, then refused */
	h_write10(cdb, 4, 2);
	h_scsi_cmd(&c, hc, ISCSI_CMD_F_WRITE, 1024, cdb);
	itt = get_be32(c.cmd.itt);
	h_send(hc, &c, NULL, 0);
	assert_true(h_idle(hc)); /* no R2T for a refused task */
	h_data_out(hc, itt, ISCSI_RSVD_TAG, 0, 0, pattern, 1024, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_UNEXPECTED_UNSOLICITED_DATA);
	assert_memory_equal(fake.disk + 4 * 512, zero, 1024);
	/* the session goes on: a solicited write works */
	h_write10(cdb, 6, 2);
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	{
		struct r2t r = get_r2t(itt);

		answer(itt, &r, pattern, 1024);
	}
	expect_status(SAM_STAT_GOOD, 0);
	assert_memory_equal(fake.disk + 6 * 512, pattern, 1024);
}

static void test_immediate_beyond_first_burst(void **state)
{
	static const uint8_t zero[2048];

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=Yes",
					  "FirstBurstLength=1024", "MaxBurstLength=8192")),
			 0);
	h_write10(cdb, 2, 4);
	h_cmd(hc, F_W, 2048, cdb, pattern, 2048);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_UNEXPECTED_UNSOLICITED_DATA);
	assert_memory_equal(fake.disk + 2 * 512, zero, 2048);
}

/* A WRITE whose Data-Out does not come within data_out_timeout ends with
 * INITIATOR RESPONSE TIMEOUT and frees its buffer; Data-Out that comes
 * later is discarded; the session goes on. Before, the buffer stayed
 * pinned for as long as the connection lived. */
static void stop_cb(struct reactor_timer *t)
{
	(void)t;
	reactor_stop(henv.r);
}

static void test_data_out_timeout(void **state)
{
	struct iscsi_settings st = h_settings();
	static const uint8_t zero[1024];
	struct reactor_timer stop;
	struct r2t r;
	uint32_t itt;

	(void)state;
	h_conn_free(hc);
	h_teardown();
	st.data_out_timeout_s = 1;
	h_setup(&st);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No")), 0);
	h_write10(cdb, 2, 2);
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	assert_int_equal(fake.live_cmds, 1);
	/* half a second: some data, which restarts the clock */
	reactor_timer_init(&stop, stop_cb);
	reactor_timer_arm(henv.r, &stop, 600000000ull);
	reactor_run(henv.r);
	h_data_out(hc, itt, r.ttt, 0, 0, pattern, 512, false);
	reactor_timer_arm(henv.r, &stop, 600000000ull);
	reactor_run(henv.r);
	assert_true(h_idle(hc)); /* 1.2 s in all, 0.6 s since the last Data-Out */
	reactor_timer_arm(henv.r, &stop, 700000000ull);
	reactor_run(henv.r);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_INITIATOR_RESPONSE_TIMEOUT);
	assert_int_equal(fake.live_cmds, 0); /* buffer freed */
	assert_int_equal(hc->c->data_bytes, 0);
	/* the rest of the burst, late: discarded */
	h_data_out(hc, itt, r.ttt, 1, 512, pattern + 512, 512, true);
	assert_true(h_idle(hc));
	assert_memory_equal(fake.disk + 2 * 512, zero, sizeof(zero));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	/* the session goes on */
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	answer(itt, &r, pattern, 1024);
	expect_status(SAM_STAT_GOOD, 0);
}

static void test_sequence_errors(void **state)
{
	uint32_t itt;
	struct r2t r;

	(void)state;
	assert_int_equal(
	    h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No", "MaxBurstLength=65536")), 0);
	/* DataSN 0 twice */
	h_write10(cdb, 0, 2);
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	h_data_out(hc, itt, r.ttt, 0, 0, pattern, 512, false);
	h_data_out(hc, itt, r.ttt, 0, 512, pattern + 512, 512, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_DATA_OFFSET_ERROR);
	/* DataSN 27 */
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	h_data_out(hc, itt, r.ttt, 27, 0, pattern, 1024, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_DATA_OFFSET_ERROR);
	/* Buffer Offset out of order */
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	h_data_out(hc, itt, r.ttt, 0, 512, pattern, 512, false);
	h_data_out(hc, itt, r.ttt, 1, 0, pattern, 512, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_DATA_OFFSET_ERROR);
	/* more than the R2T asked for */
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	h_data_out(hc, itt, r.ttt, 0, 0, pattern, 1536, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_TOO_MUCH_WRITE_DATA);
	/* F before the burst is complete */
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	h_data_out(hc, itt, r.ttt, 0, 0, pattern, 512, true);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_DATA_OFFSET_ERROR);
	/* an unknown TTT is dropped, the connection goes on */
	h_data_out(hc, itt, 0x12345678, 0, 0, pattern, 512, true);
	assert_true(h_idle(hc));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	answer(itt, &r, pattern, 1024);
	expect_status(SAM_STAT_GOOD, 0);
	assert_int_equal(fake.live_cmds, 0);
}

static void test_lengths(void **state)
{
	uint32_t itt;
	struct r2t r;
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=Yes")), 0);
	/* EDTL above the command's transfer: solicit what it writes */
	h_write10(cdb, 0, 1);
	itt = h_cmd(hc, F_W, 2048, cdb, NULL, 0);
	r = get_r2t(itt);
	assert_int_equal(r.len, 512);
	answer(itt, &r, pattern, 512);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_true(h.rsp.flags & ISCSI_RSP_F_UNDERFLOW);
	assert_int_equal(get_be32(h.rsp.resid), 1536);
	/* EDTL below it: never ask for more than the initiator has */
	h_write10(cdb, 0, 2);
	itt = h_cmd(hc, F_W, 512, cdb, NULL, 0);
	r = get_r2t(itt);
	assert_int_equal(r.len, 512);
	answer(itt, &r, pattern, 512);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_true(h.rsp.flags & ISCSI_RSP_F_OVERFLOW);
	/* no Data-Out wanted (W set, a non-write CDB): immediate data
	 * drained, no R2T */
	memset(cdb, 0, sizeof(cdb));
	h_cmd(hc, F_W, 512, cdb, pattern, 512);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_true(h_idle(hc));
}

static void test_data_digest(void **state)
{
	uint8_t wire[4096];
	union iscsi_hdr h;
	uint32_t itt;
	struct r2t r;
	size_t n;

	(void)state;
	assert_int_equal(
	    h_login(hc, KEYS("DataDigest=CRC32C", "InitialR2T=Yes", "ImmediateData=No")), 0);
	h_write10(cdb, 0, 1);
	itt = h_cmd(hc, F_W, 512, cdb, NULL, 0);
	r = get_r2t(itt);
	memset(&h, 0, sizeof(h));
	h.data_out.opcode = ISCSI_OP_DATA_OUT;
	h.data_out.flags = ISCSI_FLAG_FINAL;
	put_be32(h.data_out.itt, itt);
	put_be32(h.data_out.ttt, r.ttt);
	n = h_build(hc, wire, sizeof(wire), &h, NULL, 0, pattern, 512, true);
	wire[n - 2] ^= 0x40;
	iscsi_conn_feed(hc->c, wire, n);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_DATA_DIGEST);
	expect_status(SAM_STAT_CHECK_CONDITION, SENSE_ABORTED_PROTOCOL_CRC_ERROR);
}

static void test_abort_while_collecting(void **state)
{
	union iscsi_hdr h;
	uint32_t itt;
	struct r2t r;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No")), 0);
	h_write10(cdb, 0, 2);
	itt = h_cmd(hc, F_W, 1024, cdb, NULL, 0);
	r = get_r2t(itt);
	/* ABORT TASK: the core calls cmd_abort_pending; no response for the
	 * task, "function complete" for the TMF; late Data-Out is dropped */
	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
	h.tmf_req.func = 0x80 | ISCSI_TMF_ABORT_TASK;
	put_be32(h.tmf_req.itt, 0x9999);
	put_be32(h.tmf_req.ref_task_tag, itt);
	put_be32(h.tmf_req.cmdsn, hc->cmdsn);
	put_be32(h.tmf_req.ref_cmdsn, hc->cmdsn - 1);
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.tmf_rsp.response, ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(fake.live_cmds, 0);
	answer(itt, &r, pattern, 1024);
	assert_true(h_idle(hc));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
}

/* RFC 7143 4.2.3.3 a) (TaskReporting=RFC3720): a multi-task abort (ABORT
 * TASK SET, LOGICAL UNIT RESET) of the issuing session waits for the
 * Data-Out of the R2Ts still open (their F bit); no further R2T is sent and
 * the task ends without a response (the core sends the TMF response once
 * it has ended, SAM-5 7.1; this fake core answers at once). */
static void test_multi_task_abort_drains(void **state)
{
	static const uint8_t funcs[] = {ISCSI_TMF_ABORT_TASK_SET, ISCSI_TMF_LUN_RESET};
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No",
					  "MaxBurstLength=2048", "MaxOutstandingR2T=1")),
			 0);
	for (unsigned i = 0; i < ARRAY_SIZE(funcs); i++) {
		struct r2t r;
		uint32_t itt;

		h_write10(cdb, 0, 8); /* 4096 bytes: two bursts */
		itt = h_cmd(hc, F_W, 4096, cdb, NULL, 0);
		r = get_r2t(itt);
		h_data_out(hc, itt, r.ttt, 0, r.off, pattern, 1024, false);
		memset(&h, 0, sizeof(h));
		h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
		h.tmf_req.func = 0x80 | funcs[i];
		put_be32(h.tmf_req.itt, 0x9990 + i);
		put_be32(h.tmf_req.ref_task_tag, ISCSI_RSVD_TAG);
		put_be32(h.tmf_req.cmdsn, hc->cmdsn);
		put_be32(h.tmf_req.exp_statsn, hc->statsn + 1);
		h_send(hc, &h, NULL, 0);
		h_pump();
		/* the task still waits for its burst: not ended, no R2T */
		assert_int_equal(fake.live_cmds, 1);
		h_data_out(hc, itt, r.ttt, 1, r.off + 1024, pattern + 1024, 1024, true);
		assert_int_equal(fake.live_cmds, 0);
		/* the second burst is never solicited, the aborted task gets
		 * no response: the TMF response is all that comes */
		h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
		assert_int_equal(get_be32(h.tmf_rsp.itt), 0x9990 + i);
		assert_true(h_idle(hc));
	}
}

/* A LOGICAL UNIT RESET, immediate, on c. */
static void lun_reset(struct h_conn *c, uint32_t itt)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
	h.tmf_req.func = 0x80 | ISCSI_TMF_LUN_RESET;
	put_be32(h.tmf_req.itt, itt);
	put_be32(h.tmf_req.ref_task_tag, ISCSI_RSVD_TAG);
	put_be32(h.tmf_req.cmdsn, c->cmdsn);
	put_be32(h.tmf_req.exp_statsn, c->statsn + 1);
	h_send(c, &h, NULL, 0);
}

/* A NOP-Out on c acknowledging StatSNs below exp_statsn: the answer to a
 * NOP-In ping (ttt) or, with ttt 0xffffffff, to AsyncEvent 5 (lun). */
static void nop_ack(struct h_conn *c, uint32_t ttt, uint32_t exp_statsn, const uint8_t *lun)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	if (lun)
		memcpy(h.nop_out.lun, lun, 8);
	put_be32(h.nop_out.itt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.ttt, ttt);
	put_be32(h.nop_out.cmdsn, c->cmdsn);
	put_be32(h.nop_out.exp_statsn, exp_statsn);
	h_send(c, &h, NULL, 0);
}

/* RFC 7143 4.2.3.4 (TaskReporting=FastAbort) on a session of two
 * connections, each with a WRITE whose R2T burst is half sent; LOGICAL UNIT
 * RESET on hc:
 *   - no task waits for its burst (both end at once);
 *   - j, which had an affected burst open, gets AsyncEvent 5 (11.9.1) with
 *     the LUN field, ITT 0xffffffff and its next StatSN, then a NOP-In
 *     ping; hc (the initiator stops its Data-Out there itself) nothing;
 *   - Data-Out still coming on j for the ended task is discarded;
 *   - the TMF response waits for j's NOP-Out acknowledging AsyncEvent 5;
 * then the Response Fence (task_reporting.c): until hc acknowledges the
 * TMF response (answering the NOP-In ping after it), j sends nothing: the
 * status of a TEST UNIT READY on j comes only then. */
static void test_fast_abort(void **state)
{
	static const uint8_t tur[16];
	struct h_conn *j = h_conn_new();
	union iscsi_hdr h;
	struct r2t ra, rb;
	uint32_t a, b, aen_statsn, ttt;
	uint8_t lun[8];

	(void)state;
	assert_int_equal(
	    h_login(hc, KEYS("InitialR2T=Yes", "ImmediateData=No", "MaxBurstLength=2048",
			     "MaxOutstandingR2T=1", "MaxConnections=2",
			     "TaskReporting=FastAbort,ResponseFence,RFC3720")),
	    0);
	assert_int_equal(hc->c->sess->params.task_reporting, ISCSI_TASKREP_FAST_ABORT);
	assert_int_equal(h_join(j, hc, 1, NULL), 0);
	h_write10(cdb, 0, 8);
	a = h_cmd(hc, F_W, 4096, cdb, NULL, 0);
	ra = get_r2t_on(hc, a);
	h_data_out(hc, a, ra.ttt, 0, ra.off, pattern, 1024, false);
	j->cmdsn = hc->cmdsn;
	h_write10(cdb, 8, 8);
	b = h_cmd(j, F_W, 4096, cdb, NULL, 0);
	hc->cmdsn = j->cmdsn;
	rb = get_r2t_on(j, b);
	h_data_out(j, b, rb.ttt, 0, rb.off, pattern, 1024, false);
	assert_int_equal(fake.live_cmds, 2);

	lun_reset(hc, 0x9a00);
	h_pump();
	assert_int_equal(fake.live_cmds, 0); /* no burst waited for */
	assert_true(h_idle(hc));
	h_expect(j, ISCSI_OP_ASYNC_MSG, &h, NULL, 0, NULL);
	assert_int_equal(h.async.event, ISCSI_ASYNC_TASK_TERMINATION);
	assert_int_equal(get_be32(h.async.itt), ISCSI_RSVD_TAG);
	assert_int_equal(h.async.flags, ISCSI_FLAG_FINAL);
	aen_statsn = get_be32(h.async.statsn);
	assert_int_equal(aen_statsn, j->statsn + 1);
	memcpy(lun, h.async.lun, 8);
	assert_memory_equal(lun, (uint8_t[8]){0}, 8); /* LUN 0, as the WRITE's */
	h_expect(j, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	ttt = get_be32(h.nop_in.ttt);
	assert_true(h_idle(j));
	/* the rest of the burst was already under way (its ExpStatSN does not
	 * cover AsyncEvent 5): discarded, not a protocol error */
	j->statsn = aen_statsn - 1;
	h_data_out(j, b, rb.ttt, 1, rb.off + 1024, pattern + 1024, 1024, true);
	assert_true(h_idle(j));
	assert_int_equal(iscsi_conn_state(j->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(atomic_load(&hc->c->sess->stat_format_errors), 0);
	assert_true(h_idle(hc)); /* the TMF response waits for the NOP-Out */
	nop_ack(j, ISCSI_RSVD_TAG, aen_statsn + 1, lun);
	h_pump();
	h_expect(hc, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.tmf_rsp.itt), 0x9a00);
	assert_int_equal(h.tmf_rsp.response, ISCSI_TMF_RSP_COMPLETE);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL); /* the fence's ping */
	assert_true(h_idle(hc));

	/* the fence: j's status waits for hc's acknowledgment */
	j->cmdsn = hc->cmdsn;
	h_cmd(j, F_N_TUR, 0, tur, NULL, 0);
	hc->cmdsn = j->cmdsn;
	h_pump();
	assert_true(h_idle(j));
	nop_ack(hc, get_be32(h.nop_in.ttt), hc->statsn + 1, NULL);
	h_pump();
	h_expect(j, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	(void)ttt;
	h_conn_free(j);
}

/* A TEST UNIT READY on c of the session of hc and j (shared CmdSN). */
static uint32_t tur_on(struct h_conn *c)
{
	static const uint8_t tur[16];
	uint32_t itt;

	c->cmdsn = hc->cmdsn;
	itt = h_cmd(c, F_N_TUR, 0, tur, NULL, 0);
	hc->cmdsn = c->cmdsn;
	h_pump();
	return itt;
}

/* A NOP-In ping must be next on c: its TTT. */
static uint32_t expect_ping(struct h_conn *c)
{
	union iscsi_hdr h;

	h_expect(c, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), ISCSI_RSVD_TAG);
	assert_int_not_equal(get_be32(h.nop_in.ttt), ISCSI_RSVD_TAG);
	/* 11.19: its StatSN is the next one, not a status received (the
	 * harness took it as one) */
	c->statsn = get_be32(h.nop_in.statsn) - 1;
	return get_be32(h.nop_in.ttt);
}

/* The status of itt is held on held until acker answers its ping (ttt),
 * acknowledging every StatSN it received; then it comes. */
static void released_by_ack(struct h_conn *held, uint32_t itt, struct h_conn *acker, uint32_t ttt)
{
	union iscsi_hdr h;

	assert_true(h_idle(held));
	nop_ack(acker, ttt, acker->statsn + 1, NULL);
	h_pump();
	h_expect(held, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt);
}

/* RFC 7143 4.2.3.3 d) for a third party: another nexus' LOGICAL UNIT
 * RESET aborted a task of this session (iscsi_third_party_aborted, as the
 * fabric's cmd_done calls it): the TMF is held (scsi_tmf_hold) until the
 * session's unacknowledged StatSN is acknowledged (a NOP-In ping asks).
 * With ResponseFence the session's first status after that is fenced: it
 * waits for the other connection's acknowledgment (ping there), then the
 * other connection sends nothing until it is acknowledged. */
static void test_third_party_fence(void **state)
{
	struct h_conn *j = h_conn_new();
	struct scsi_tmf tmf = {.func = SCSI_TMF_LUN_RESET, .seq = 1000};
	struct iscsi_session *s;
	union iscsi_hdr h;
	uint32_t ttt, jitt, hitt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("MaxConnections=2", "TaskReporting=ResponseFence")), 0);
	s = hc->c->sess;
	assert_int_equal(h_join(j, hc, 1, NULL), 0);
	tur_on(hc);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL); /* not acknowledged */
	nop_ack(j, ISCSI_RSVD_TAG, j->statsn + 1, NULL);    /* j: all acknowledged */
	h_pump();

	iscsi_third_party_aborted(s, &tmf);
	iscsi_third_party_aborted(s, &tmf); /* a second task: the same wait */
	assert_int_equal(fake.tmf_holds, 1);
	h_pump(); /* the wait starts after this turn */
	ttt = expect_ping(hc);
	assert_true(h_idle(j));
	assert_int_equal(fake.tmf_holds, 1);
	nop_ack(hc, ttt, hc->statsn + 1, NULL);
	h_pump();
	assert_int_equal(fake.tmf_holds, 0); /* released: the TMF may answer */
	assert_true(s->fence_next);

	/* hc's NOP-In answer to a ping (StatSN advanced, 11.19) stays
	 * unacknowledged; j's first status is the fenced one: held until hc
	 * acknowledges (ping on hc) */
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	put_be32(h.nop_out.itt, 0x5151);
	put_be32(h.nop_out.ttt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.cmdsn, hc->cmdsn);
	put_be32(h.nop_out.exp_statsn, hc->statsn + 1);
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_NOP_IN, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.nop_in.itt), 0x5151);
	jitt = tur_on(j);
	assert_false(s->fence_next);
	ttt = expect_ping(hc);
	released_by_ack(j, jitt, hc, ttt);
	ttt = expect_ping(j); /* the fence asks for its acknowledgment */
	/* hc sends nothing until j acknowledges */
	hitt = tur_on(hc);
	released_by_ack(hc, hitt, j, ttt);
	assert_true(h_idle(hc) && h_idle(j));
	h_conn_free(j);
}

/* A fence on hc of the session of hc and j: a status there, fenced as a
 * TMF response is (task_reporting.c); the ping asking for its
 * acknowledgment is next on hc: its TTT. */
static uint32_t fence_on(struct h_conn *c)
{
	union iscsi_hdr h;

	tur_on(c);
	h_expect(c, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	iscsi_fence_after(c->c);
	h_pump();
	return expect_ping(c);
}

/* The third party's first status (s->fence_next) comes on j while a fence
 * of hc holds the session: it waits for that fence (step 1), and is then
 * fenced on its own (step 3): hc sends nothing more until j acknowledges. */
static void test_third_party_fence_during_fence(void **state)
{
	struct h_conn *j = h_conn_new();
	struct iscsi_session *s;
	uint32_t ttt, jitt, hitt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("MaxConnections=2", "TaskReporting=ResponseFence")), 0);
	s = hc->c->sess;
	assert_int_equal(h_join(j, hc, 1, NULL), 0);
	ttt = fence_on(hc);
	s->fence_next = true; /* a third party's wait just ended */
	jitt = tur_on(j);
	assert_false(s->fence_next);
	released_by_ack(j, jitt, hc, ttt); /* hc's fence first */
	ttt = expect_ping(j);		   /* then j's status is fenced */
	hitt = tur_on(hc);
	released_by_ack(hc, hitt, j, ttt);
	assert_true(h_idle(hc) && h_idle(j));
	assert_null(s->fence_conn);
	h_conn_free(j);
}

static unsigned fence_waiter_runs;

static void fence_waiter_run(struct iscsi_fence_waiter *w)
{
	(void)w;
	fence_waiter_runs++;
}

/* as tmf_respond does once its turn came: a response on hc, fenced */
static void fence_waiter_fence(struct iscsi_fence_waiter *w)
{
	fence_waiter_run(w);
	iscsi_fence_after(hc->c);
}

/* The fence of j ends because j leaves (Logout reason 1 whose ExpStatSN
 * does not acknowledge the fenced status): the third party's first status
 * on hc, waiting for it, goes (hc is alone now: TCP keeps its order, no
 * fence of its own), and the two fence waiters behind it (as TMF responses
 * would be, the first fencing its response on hc) run too instead of
 * waiting for a fence that never comes. */
static void test_fence_waiters_when_alone(void **state)
{
	struct h_conn *j = h_conn_new();
	struct iscsi_fence_waiter w1 = {.run = fence_waiter_fence}, w2 = {.run = fence_waiter_run};
	struct iscsi_session *s;
	union iscsi_hdr h;
	uint32_t hitt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("MaxConnections=2", "TaskReporting=ResponseFence")), 0);
	s = hc->c->sess;
	assert_int_equal(h_join(j, hc, 1, NULL), 0);
	fence_on(j);
	s->fence_next = true;
	hitt = tur_on(hc);
	assert_true(h_idle(hc));
	fence_waiter_runs = 0;
	assert_false(iscsi_fence_ready(s, &w1));
	assert_false(iscsi_fence_ready(s, &w2));

	memset(&h, 0, sizeof(h));
	h.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	h.logout_req.reason = 0x80 | ISCSI_LOGOUT_CLOSE_CONNECTION;
	put_be32(h.logout_req.itt, 0x77);
	put_be16(h.logout_req.cid, 1);
	put_be32(h.logout_req.cmdsn, hc->cmdsn);
	put_be32(h.logout_req.exp_statsn, j->statsn); /* the fenced status: not acknowledged */
	h_send(j, &h, NULL, 0);
	h_pump();
	h_expect(j, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	h_pump();
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), hitt);
	assert_int_equal(fence_waiter_runs, 2);
	assert_null(s->fence_conn);
	assert_true(h_idle(hc));
	h_conn_free(j);
}

/* A fence whose connection never acknowledges (ERL 2, nop_in_timeout 1):
 * the session's other connection is held, and 1 s after the ping the
 * silent connection is dropped as a keepalive timeout (counted); the
 * fence ends with it and the held status goes out. */
static void test_fence_capped(void **state)
{
	struct iscsi_settings st = h_settings();
	struct h_conn *j;
	struct reactor_timer stop;
	struct iscsi_session *s;
	union iscsi_hdr h;
	uint32_t jitt;

	(void)state;
	h_conn_free(hc);
	h_teardown();
	st.max_connections = 2;
	st.error_recovery_level = 2;
	st.nop_in_timeout_s = 1;
	h_setup(&st);
	hc = h_conn_new();
	j = h_conn_new();
	assert_int_equal(h_login(hc, KEYS("MaxConnections=2", "ErrorRecoveryLevel=2",
					  "TaskReporting=ResponseFence")),
			 0);
	s = hc->c->sess;
	assert_int_equal(s->params.error_recovery_level, 2);
	assert_int_equal(h_join(j, hc, 1, NULL), 0);
	fence_on(hc);
	jitt = tur_on(j);
	reactor_timer_init(&stop, stop_cb);
	reactor_timer_arm(henv.r, &stop, 600000000ull);
	reactor_run(henv.r);
	assert_true(h_idle(j)); /* 0.6 s: still held */
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	reactor_timer_arm(henv.r, &stop, 600000000ull);
	reactor_run(henv.r);
	assert_true(iscsi_conn_dead(hc->c));
	assert_int_equal(atomic_load(&s->stat_cxn_timeouts), 1);
	h_expect(j, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), jitt);
	assert_int_equal(iscsi_conn_state(j->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_null(s->fence_conn);
	h_conn_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sequential_r2t, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outstanding_r2t, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsolicited, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsolicited_not_negotiated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_immediate_beyond_first_burst, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_data_out_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sequence_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lengths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_data_digest, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_while_collecting, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multi_task_abort_drains, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fast_abort, setup_mcs, teardown),
	    cmocka_unit_test_setup_teardown(test_third_party_fence, setup_mcs, teardown),
	    cmocka_unit_test_setup_teardown(test_third_party_fence_during_fence, setup_mcs,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_fence_waiters_when_alone, setup_mcs, teardown),
	    cmocka_unit_test_setup_teardown(test_fence_capped, setup_mcs, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
