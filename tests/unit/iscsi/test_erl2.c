/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_erl2.c: ErrorRecoveryLevel 2, connection recovery (RFC 7143 7.2.2,
 * 11.5.1 TASK REASSIGN, 11.14/11.15 Logout reason 2; erl2.c).
 *
 *   hc  (CID 0) --\
 *                  +-- session (ERL 2, MaxConnections 4) -- target H_TARGET
 *   hc2 (CID 0/1) -/      (fake core, one LUN, FAKE_BLOCKS x 512 bytes)
 *
 * hc's connection fails (iscsi_conn_drop: S5 -> S8) or is removed by a
 * Logout reason 2; hc2 logs in to the same session (TSIH) and sends TASK
 * REASSIGN for hc's tasks: a finished read sends the same bytes again from
 * ExpDataSN and its status with a StatSN of hc2, a write cut mid-burst gets
 * an R2T for the bytes missing, a task of a live connection is 03h, an
 * unknown ITT 01h, ERL 1 04h; tasks not reassigned within Time2Wait +
 * Time2Retain end (tasks_expired) and the session with them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define F_R	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)
#define OPNEG_TO_FFP                                                                               \
	(ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE)
#define ERL2_KEYS                                                                                  \
	KEYS("ErrorRecoveryLevel=2", "MaxConnections=4", "MaxRecvDataSegmentLength=1024",          \
	     "DefaultTime2Wait=1", "DefaultTime2Retain=5", "InitialR2T=Yes", "ImmediateData=No")

static uint8_t data[1 << 16];
static uint8_t cdb[16];
static struct h_conn *hc, *hc2;

static int setup_erl(unsigned erl)
{
	struct iscsi_settings s = h_settings();

	s.error_recovery_level = erl;
	s.max_connections = 4;
	s.default_time2wait = 1;
	s.default_time2retain = 5;
	h_setup(&s);
	for (unsigned i = 0; i < sizeof(fake.disk); i++)
		fake.disk[i] = (uint8_t)(i * 7 + i / 512);
	hc = h_conn_new();
	hc2 = NULL;
	return 0;
}

static int setup2(void **state)
{
	(void)state;
	return setup_erl(2);
}

static int setup1(void **state)
{
	(void)state;
	return setup_erl(1);
}

static int teardown(void **state)
{
	(void)state;
	if (hc2)
		h_conn_free(hc2);
	h_conn_free(hc);
	h_teardown();
	return 0;
}

/* A further connection of hc's session with this CID and the
 * MaxRecvDataSegmentLength key mrdsl; its status. */
static int join_mrdsl(struct h_conn *j, uint16_t cid, const char *mrdsl)
{
	return h_join(j, hc, cid, KEYS(mrdsl));
}

static int join(struct h_conn *j, uint16_t cid)
{
	return join_mrdsl(j, cid, "MaxRecvDataSegmentLength=1024");
}

/* TASK REASSIGN (immediate) on j; the response code. */
static int reassign(struct h_conn *j, uint32_t rtt, uint32_t exp_datasn)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ | ISCSI_OP_IMMEDIATE;
	h.tmf_req.func = 0x80 | ISCSI_TMF_TASK_REASSIGN;
	put_be32(h.tmf_req.itt, 0x7700 + rtt);
	put_be32(h.tmf_req.ref_task_tag, rtt);
	put_be32(h.tmf_req.cmdsn, j->cmdsn);
	put_be32(h.tmf_req.exp_statsn, j->statsn + 1);
	put_be32(h.tmf_req.exp_datasn, exp_datasn);
	put_be32(h.tmf_req.ref_cmdsn, 0);
	h_send(j, &h, NULL, 0);
	h_expect(j, ISCSI_OP_TMF_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.tmf_rsp.itt), 0x7700 + rtt);
	return h.tmf_rsp.response;
}

static struct iscsi_session *login_erl2(void)
{
	assert_int_equal(h_login(hc, ERL2_KEYS), 0);
	assert_int_equal(hc->c->sess->params.error_recovery_level, 2);
	return hc->c->sess;
}

/* A read of 2048 bytes (2 Data-In of 1024) finished and sent; hc fails
 * before acknowledging its status; hc2 (same CID: the reinstatement is an
 * implicit logout for recovery) reassigns it: from ExpDataSN 1, the second
 * Data-In again, byte for byte, with the status (S) and hc2's StatSN. */
static void test_reassign_finished_read(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t first[1024], second[1024];
	union iscsi_hdr h, old;
	uint32_t itt, len, statsn;

	(void)state;
	h_read10(cdb, 8, 4);
	itt = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, first, sizeof(first), &len);
	assert_int_equal(len, 1024);
	h_expect(hc, ISCSI_OP_DATA_IN, &old, second, sizeof(second), &len);
	assert_true(old.data_in.flags & ISCSI_DATAIN_F_STATUS);
	assert_memory_equal(first, fake.disk + 8 * 512, 1024);
	assert_memory_equal(second, fake.disk + 8 * 512 + 1024, 1024);

	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	assert_int_equal(s->nconns, 0);
	assert_int_equal(s->nrecov, 1);
	assert_int_equal(s->stat_conn_recoveries, 1);
	/* RFC 7143 8.3.2: no connection left, a task waits: Q4 FAILED (N5),
	 * not cleaned while Time2Wait + Time2Retain run */
	assert_int_equal(s->state, ISCSI_SESS_Q4_FAILED);

	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 0), 0);
	assert_ptr_equal(hc2->c->sess, s);
	/* the login was a session continuation: Q4 -> Q5 -> Q3 */
	assert_int_equal(s->state, ISCSI_SESS_Q3_LOGGED_IN);
	statsn = hc2->statsn; /* the login response's */
	assert_int_equal(reassign(hc2, itt, 1), ISCSI_TMF_RSP_COMPLETE);
	assert_int_equal(hc2->statsn, statsn + 1);
	h_expect(hc2, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(len, 1024);
	/* golden: the retransmitted PDU is the old one, StatSN and the
	 * window fields apart (hc2's numbering) */
	assert_int_equal(h.data_in.flags, old.data_in.flags);
	assert_int_equal(get_be32(h.data_in.datasn), 1);
	assert_int_equal(get_be32(h.data_in.buffer_offset), 1024);
	assert_int_equal(get_be32(h.data_in.itt), itt);
	assert_int_equal(get_be32(h.data_in.statsn), statsn + 2);
	assert_memory_equal(h.raw, old.raw, 24);
	assert_memory_equal(data, second, 1024);
	assert_true(h_idle(hc2));
	assert_int_equal(s->stat_tasks_reassigned, 1);
	/* nothing left to reassign: the shell went */
	assert_int_equal(s->nrecov, 0);
	/* a second reassign of it: the task no longer exists */
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_NO_TASK);
}

/* The read of test_reassign_finished_read (2 Data-In of 1024, the status
 * in the second, released), reassigned from ExpDataSN 1 to a connection
 * that takes 512-byte segments: the 1024 bytes of DataSN 1 come again cut
 * in two, DataSN 1 and 2 from Buffer Offset 1024, the status (S, GOOD)
 * in the last with hc2's next StatSN; then, for a read whose status came
 * in a SCSI Response (CHECK CONDITION with sense), that response with
 * ExpDataSN one past the last DataSN. */
static void test_reassign_released_reseg(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t first[1024], second[1024];
	union iscsi_hdr h;
	uint32_t itt, itt2, len, statsn;

	(void)state;
	h_read10(cdb, 8, 4);
	itt = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, first, sizeof(first), &len);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, second, sizeof(second), &len);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	/* beyond the medium: CHECK CONDITION in a SCSI Response, no data */
	h_read10(cdb, FAKE_BLOCKS - 1, 4);
	itt2 = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(fake.live_cmds, 0); /* both released, copies kept */

	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	hc2 = h_conn_new();
	assert_int_equal(join_mrdsl(hc2, 0, "MaxRecvDataSegmentLength=512"), 0);
	statsn = hc2->statsn;
	assert_int_equal(reassign(hc2, itt, 1), ISCSI_TMF_RSP_COMPLETE);
	for (unsigned i = 0; i < 2; i++) {
		h_expect(hc2, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		assert_int_equal(len, 512);
		assert_int_equal(get_be32(h.data_in.itt), itt);
		assert_int_equal(get_be32(h.data_in.datasn), 1 + i);
		assert_int_equal(get_be32(h.data_in.buffer_offset), 1024 + 512 * i);
		assert_memory_equal(data, second + 512 * i, 512);
	}
	assert_int_equal(h.data_in.flags,
			 ISCSI_FLAG_FINAL | ISCSI_DATAIN_F_STATUS); /* golden: F, S; GOOD */
	assert_int_equal(h.data_in.status, 0);
	assert_int_equal(get_be32(h.data_in.statsn), statsn + 2);
	assert_true(h_idle(hc2));

	assert_int_equal(reassign(hc2, itt2, 0), ISCSI_TMF_RSP_COMPLETE);
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.rsp.itt), itt2);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_true(len > 0); /* the sense, as first sent */
	assert_int_equal(get_be32(h.rsp.statsn), statsn + 4);
	assert_true(h_idle(hc2));
	assert_int_equal(s->stat_tasks_reassigned, 2);
	assert_int_equal(s->nrecov, 0);
}

/* A read the core was still running when hc failed: it completes, keeps
 * its data, and a reassign with ExpDataSN 0 sends all of it and the
 * status on hc2. */
static void test_reassign_running_read(void **state)
{
	struct iscsi_session *s = login_erl2();
	union iscsi_hdr h;
	uint32_t itt, len;

	(void)state;
	fake.hold = true;
	h_read10(cdb, 20, 4);
	itt = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	assert_int_equal(fake_complete_held(), 1);
	assert_int_equal(fake.live_cmds, 1); /* kept for the reassign */
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_COMPLETE);
	for (unsigned i = 0; i < 2; i++) {
		h_expect(hc2, ISCSI_OP_DATA_IN, &h, data + i * 1024, 1024, &len);
		assert_int_equal(get_be32(h.data_in.datasn), i);
	}
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	assert_int_equal(h.data_in.status, 0);
	assert_memory_equal(data, fake.disk + 20 * 512, 2048);
	h_pump();
	assert_int_equal(fake.live_cmds, 0);
	assert_int_equal(s->stat_tasks_reassigned, 1);
}

/* A write (InitialR2T=Yes) of 2048 bytes got 1024 of its R2T's burst when
 * hc failed; on hc2 the reassign sends an R2T for [1024, 2048) (a new TTT,
 * the next R2TSN), the data completes it, the status comes on hc2. */
static void test_reassign_write_mid_burst(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t wdata[2048];
	union iscsi_hdr h;
	uint32_t itt, ttt;

	(void)state;
	for (unsigned i = 0; i < sizeof(wdata); i++)
		wdata[i] = (uint8_t)(0xa5 ^ i);
	h_write10(cdb, 40, 4);
	itt = h_cmd(hc, F_W, 2048, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	ttt = get_be32(h.r2t.ttt);
	assert_int_equal(get_be32(h.r2t.buffer_offset), 0);
	assert_int_equal(get_be32(h.r2t.desired_len), 2048);
	h_data_out(hc, itt, ttt, 0, 0, wdata, 1024, false);
	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();

	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 0), 0);
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_COMPLETE);
	h_expect(hc2, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.r2t.itt), itt);
	assert_int_not_equal(get_be32(h.r2t.ttt), ttt);
	assert_int_equal(get_be32(h.r2t.r2tsn), 1);
	assert_int_equal(get_be32(h.r2t.buffer_offset), 1024);
	assert_int_equal(get_be32(h.r2t.desired_len), 1024);
	ttt = get_be32(h.r2t.ttt);
	h_data_out(hc2, itt, ttt, 0, 1024, wdata + 1024, 1024, true);
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt);
	assert_int_equal(h.rsp.status, 0);
	assert_memory_equal(fake.disk + 40 * 512, wdata, sizeof(wdata));
	assert_int_equal(s->stat_tasks_reassigned, 1);
	assert_int_equal(s->nrecov, 0);
}

/* 03h: the task's connection is still logged in; 01h: no such ITT. */
static void test_still_allegiant_and_unknown(void **state)
{
	static const uint8_t tur[16];
	uint32_t itt;

	(void)state;
	login_erl2();
	fake.hold = true;
	itt = h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE, 0, tur, NULL, 0);
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_TASK_ALLEGIANT);
	assert_int_equal(reassign(hc2, 0x4242, 0), ISCSI_TMF_RSP_NO_TASK);
	assert_int_equal(hc->c->sess->stat_tasks_reassigned, 0);
	fake_complete_held();
}

/* At ERL 1: TASK REASSIGN is 04h, Logout reason 2 is 02h. */
static void test_erl1_refuses(void **state)
{
	static const uint8_t tur[16];
	union iscsi_hdr h;
	uint32_t itt;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=2", "MaxConnections=4")), 0);
	assert_int_equal(hc->c->sess->params.error_recovery_level, 1);
	itt = h_cmd(hc, ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE, 0, tur, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(reassign(hc, itt, 0), ISCSI_TMF_RSP_NO_REASSIGN);
	memset(&h, 0, sizeof(h));
	h.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	h.logout_req.reason = 0x80 | ISCSI_LOGOUT_REMOVE_FOR_RECOVERY;
	put_be32(h.logout_req.itt, 0x55);
	put_be32(h.logout_req.cmdsn, hc->cmdsn);
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_RECOVERY_UNSUPPORTED);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
}

/* Logout reason 2 on hc2 naming hc's CID 0: response 0 with the
 * negotiated Time2Wait (1) and Time2Retain (5) (11.15.2, 11.15.3); hc goes,
 * its running task waits; hc2 reassigns it. Golden bytes of the response
 * BHS (StatSN and the window fields apart). */
static void test_logout_reason2(void **state)
{
	static const uint8_t golden[48] = {
	    0x26, 0x80, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0x00, 0x00, 0x00, 0x55, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0,	  0,	0,    0,    0, 0, 0, 0, 0, 1, 0, 5, 0, 0, 0, 0,
	};
	struct iscsi_session *s = login_erl2();
	union iscsi_hdr h;
	uint32_t itt, len;

	(void)state;
	fake.hold = true;
	h_read10(cdb, 60, 1);
	itt = h_cmd(hc, F_R, 512, cdb, NULL, 0);
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	memset(&h, 0, sizeof(h));
	h.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	h.logout_req.reason = 0x80 | ISCSI_LOGOUT_REMOVE_FOR_RECOVERY;
	put_be32(h.logout_req.itt, 0x55);
	put_be16(h.logout_req.cid, 0);
	put_be32(h.logout_req.cmdsn, hc2->cmdsn);
	h_send(hc2, &h, NULL, 0);
	h_expect(hc2, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	memset(h.raw + 24, 0, 12); /* StatSN, ExpCmdSN, MaxCmdSN */
	assert_memory_equal(h.raw, golden, 48);
	h_pump();
	assert_int_equal(s->nrecov, 1);
	assert_int_equal(s->nconns, 1);
	assert_int_equal(fake_complete_held(), 1);
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_COMPLETE);
	h_expect(hc2, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	assert_memory_equal(data, fake.disk + 60 * 512, 512);
}

/* Logout reason 2 naming its own connection: answered 0 (Time2Wait 1,
 * Time2Retain 5), the connection closes without waiting for its task,
 * which hc2 then reassigns: the write's R2T comes again there. */
static void test_logout_reason2_self(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t wdata[512];
	union iscsi_hdr h;
	uint32_t itt;

	(void)state;
	memset(wdata, 0x3c, sizeof(wdata));
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	hc->cmdsn = hc2->cmdsn;
	h_write10(cdb, 90, 1);
	itt = h_cmd(hc, F_W, 512, cdb, NULL, 0);
	hc2->cmdsn = hc->cmdsn;
	h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	memset(&h, 0, sizeof(h));
	h.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	h.logout_req.reason = 0x80 | ISCSI_LOGOUT_REMOVE_FOR_RECOVERY;
	put_be32(h.logout_req.itt, 0x56);
	put_be16(h.logout_req.cid, 0);
	put_be32(h.logout_req.cmdsn, hc->cmdsn);
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_int_equal(get_be16(h.logout_rsp.time2wait), 1);
	assert_int_equal(get_be16(h.logout_rsp.time2retain), 5);
	h_pump();
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	assert_int_equal(s->nrecov, 1);
	assert_int_equal(s->stat_conn_recoveries, 1);
	assert_int_equal(reassign(hc2, itt, 0), ISCSI_TMF_RSP_COMPLETE);
	h_expect(hc2, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.r2t.buffer_offset), 0);
	assert_int_equal(get_be32(h.r2t.desired_len), 512);
	h_data_out(hc2, itt, get_be32(h.r2t.ttt), 0, 0, wdata, 512, true);
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, 0);
	assert_memory_equal(fake.disk + 90 * 512, wdata, 512);
}

/* Not reassigned within Time2Wait + Time2Retain: the tasks end (a write
 * waiting for data, a finished read's copies), counted in tasks_expired;
 * with no connection left the session ends, its nexus destroyed. */
static void test_expiry(void **state)
{
	struct iscsi_session *s = login_erl2();
	union iscsi_hdr h;
	struct iscsi_conn *o;
	unsigned destroyed = fake.nexus_destroyed;

	(void)state;
	h_write10(cdb, 70, 1);
	h_cmd(hc, F_W, 512, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	assert_int_equal(fake.live_cmds, 1);
	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	assert_int_equal(s->nrecov, 1);
	assert_int_equal(s->state, ISCSI_SESS_Q4_FAILED);
	o = list_first_entry(&s->recov, struct iscsi_conn, recov_node);
	assert_true(o->recov_deadline_ns > reactor_now_ns() + 5ull * 1000000000ull);
	assert_true(reactor_timer_armed(&s->recov_timer));
	/* the time passes */
	o->recov_deadline_ns = 0;
	s->recov_timer.fn(&s->recov_timer);
	h_pump();
	assert_int_equal(fake.live_cmds, 0);
	assert_int_equal(fake.nexus_destroyed, destroyed + 1);
	/* the session is gone: a login with its TSIH finds none */
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 0), 0x020a);
}

/* A session whose only connection failed with a task waiting for
 * reassignment is reinstated by a new leading login (same ISID): the task
 * ends at once (not after Time2Retain), the session goes, the login goes
 * on with a new session. */
static void test_reinstate_shells_only(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t buf[512], rsp[512];
	union iscsi_hdr h;
	uint32_t n, len;
	unsigned created = fake.nexus_created;

	(void)state;
	h_write10(cdb, 80, 1);
	h_cmd(hc, F_W, 512, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	assert_int_equal(s->nrecov, 1);
	hc2 = h_conn_new();
	n = h_keys(buf, sizeof(buf), KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET));
	h_login_hdr(&h, OPNEG_TO_FFP, 0, 9, 1);
	h_send(hc2, &h, buf, n);
	assert_false(h_recv(hc2, &h, rsp, sizeof(rsp), &len)); /* waiting */
	h_pump(); /* the shell ends, the session goes, hc2 resumes */
	h_pump();
	iscsi_conn_flush(hc2->c);
	assert_true(h_recv(hc2, &h, rsp, sizeof(rsp), &len));
	assert_int_equal(h.login_rsp.status_class, 0);
	assert_int_equal(fake.nexus_created, created + 1);
	assert_int_equal(fake.live_cmds, 0);
}

/* ErrorRecoveryLevel: the smaller of the setting and the offer; 2 never
 * above the setting. */
static void test_erl_offer(void **state)
{
	(void)state;
	for (unsigned set = 0; set <= 2; set++) {
		h_conn_free(hc);
		h_teardown();
		setup_erl(set);
		assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=2")), 0);
		assert_int_equal(hc->c->sess->params.error_recovery_level, set);
	}
	h_conn_free(hc);
	h_teardown();
	setup_erl(2);
	assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=1")), 0);
	assert_int_equal(hc->c->sess->params.error_recovery_level, 1);
}

/* Commands ahead of ExpCmdSN do not stop their connection: after a
 * connection failed, the initiator sends again, on a connection where newer
 * commands already went, the ones the target never got (RFC 7143 3.2.2.1:
 * a retry keeps its CmdSN, below the newer ones). On hc2, in this order:
 *
 *   CmdSN n+1  WRITE 1024, ORDERED  -> R2T at once, its data is received
 *   CmdSN n+2  READ 1024            -> nothing yet
 *   CmdSN n    READ 1024 (resent)   -> n runs, then n+1, then n+2
 *
 * The commands enter the task set in CmdSN order (n, n+1, n+2): the ORDERED
 * write waits for n, and n+2 for it, as numbered, not as received. */
static void test_resend_behind_newer(void **state)
{
	struct iscsi_session *s = login_erl2();
	uint8_t in[1024], out[1024];
	union iscsi_hdr h;
	uint32_t n, itt_w, itt_r2, itt_r0, len;
	unsigned entered0;

	(void)state;
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	assert_int_equal(s->nconns, 2);
	n = hc->cmdsn; /* the command the target never got */
	entered0 = fake.nentered;
	for (unsigned i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(0xa5 ^ i);

	hc2->cmdsn = n + 1;
	h_write10(cdb, 40, 2);
	itt_w = h_cmd(hc2, ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_ORDERED, 1024, cdb,
		      NULL, 0);
	/* set up ahead: its data is asked for, it is not in the task set */
	h_expect(hc2, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.r2t.itt), itt_w);
	assert_int_equal(get_be32(h.r2t.desired_len), 1024);
	h_data_out(hc2, itt_w, get_be32(h.r2t.ttt), 0, 0, out, sizeof(out), true);
	h_read10(cdb, 40, 2);
	itt_r2 = h_cmd(hc2, F_R, 1024, cdb, NULL, 0);
	h_pump();
	assert_true(h_idle(hc2));
	assert_int_equal(fake.nentered, entered0);
	assert_int_equal(fake.live_cmds, 2);

	/* the resend, behind them on the same connection */
	hc2->cmdsn = n;
	h_read10(cdb, 40, 2);
	itt_r0 = h_cmd(hc2, F_R, 1024, cdb, NULL, 0);
	h_pump();
	assert_int_equal(fake.nentered, entered0 + 3);
	assert_int_equal(fake.entered[entered0], itt_r0);
	assert_int_equal(fake.entered[entered0 + 1], itt_w);
	assert_int_equal(fake.entered[entered0 + 2], itt_r2);
	/* n read the blocks before the write, n+2 after it */
	h_expect(hc2, ISCSI_OP_DATA_IN, &h, in, sizeof(in), &len);
	assert_int_equal(get_be32(h.data_in.itt), itt_r0);
	assert_int_equal(len, 1024);
	assert_memory_not_equal(in, out, sizeof(out));
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt_w);
	assert_int_equal(h.rsp.status, 0);
	h_expect(hc2, ISCSI_OP_DATA_IN, &h, in, sizeof(in), &len);
	assert_int_equal(get_be32(h.data_in.itt), itt_r2);
	assert_memory_equal(in, out, sizeof(out));
	assert_int_equal(get_be32(h.data_in.exp_cmdsn), n + 3);
	assert_int_equal(fake.live_cmds, 0);
}

/* A non-immediate TMF held for CmdSN order (3.2.2.1, tmf.c) whose
 * connection fails before its turn is dropped: it never runs and is never
 * answered, as the Linux target frees every request but a SCSI Command or
 * NOP-Out of a failed connection (iscsit_prepare_cmds_for_reallegiance):
 * TASK REASSIGN moves tasks, not TMFs, and a TMF's response has the
 * allegiance of its connection. Its CmdSN stays consumed, so the commands
 * numbered around it complete on the other connection:
 *
 *   hc  CmdSN n+1 ABORT TASK SET (n missing: held), then hc fails
 *   hc2 CmdSN n   TEST UNIT READY  -> GOOD, not aborted
 *   hc2 CmdSN n+2 TEST UNIT READY  -> GOOD (ExpCmdSN passed n+1) */
static void test_held_tmf_of_failed_conn(void **state)
{
	static const uint8_t tur[16];
	struct iscsi_session *s = login_erl2();
	union iscsi_hdr h;
	uint32_t n, itt0, itt2;
	unsigned tmfs0;

	(void)state;
	hc2 = h_conn_new();
	assert_int_equal(join(hc2, 1), 0);
	n = hc->cmdsn;
	tmfs0 = fake.tmfs;
	memset(&h, 0, sizeof(h));
	h.tmf_req.opcode = ISCSI_OP_TMF_REQ;
	h.tmf_req.func = 0x80 | ISCSI_TMF_ABORT_TASK_SET;
	put_be32(h.tmf_req.itt, 0x7a00);
	put_be32(h.tmf_req.ref_task_tag, 0xffffffff);
	put_be32(h.tmf_req.cmdsn, n + 1);
	put_be32(h.tmf_req.exp_statsn, hc->statsn + 1);
	h_send(hc, &h, NULL, 0);
	h_pump();
	assert_true(h_idle(hc)); /* held: no response yet */
	assert_int_equal(s->cmdsn.exp, n);
	iscsi_conn_drop(hc->c, "test: the connection fails");
	h_pump();
	assert_int_equal(s->nconns, 1);

	hc2->cmdsn = n;
	itt0 = h_cmd(hc2, ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE, 0, tur, NULL, 0);
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt0);
	assert_int_equal(h.rsp.status, 0);
	assert_int_equal(fake.tmfs, tmfs0); /* the TMF did not run */
	assert_int_equal(s->cmdsn.exp, n + 2);
	hc2->cmdsn = n + 2;
	itt2 = h_cmd(hc2, ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE, 0, tur, NULL, 0);
	h_expect(hc2, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), itt2);
	assert_int_equal(h.rsp.status, 0);
	assert_int_equal(get_be32(h.rsp.exp_cmdsn), n + 3);
	assert_int_equal(fake.tmfs, tmfs0);
	assert_true(h_idle(hc2));
	assert_int_equal(fake.live_cmds, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_reassign_finished_read, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_reassign_running_read, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_reassign_write_mid_burst, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_still_allegiant_and_unknown, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_erl1_refuses, setup1, teardown),
	    cmocka_unit_test_setup_teardown(test_logout_reason2, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_logout_reason2_self, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_expiry, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_reinstate_shells_only, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_erl_offer, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_resend_behind_newer, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_held_tmf_of_failed_conn, setup2, teardown),
	    cmocka_unit_test_setup_teardown(test_reassign_released_reseg, setup2, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
