/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_scsi_cmd.c: SCSI Command, Data-In, SCSI Response, command numbering
 * (RFC 7143 11.3, 11.4, 11.7, 3.2.2.1) against the fake core. */
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
#include "lib/crc32c.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define F_R	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)
#define F_N	  (ISCSI_FLAG_FINAL | ISCSI_ATTR_SIMPLE)

static uint8_t data[1 << 20];
static struct h_conn *hc;

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	for (unsigned i = 0; i < sizeof(fake.disk); i++)
		fake.disk[i] = (uint8_t)(i * 13 + i / 512);
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

static void login(const char *const *keys)
{
	assert_int_equal(h_login(hc, keys), 0);
}

static uint8_t cdb[16];

static void test_read_split(void **state)
{
	union iscsi_hdr h;
	uint32_t len, itt, statsn;

	(void)state;
	login(KEYS("MaxRecvDataSegmentLength=1024", "MaxBurstLength=2048"));
	statsn = hc->statsn;
	h_read10(cdb, 2, 8);
	itt = h_cmd(hc, F_R, 4096, cdb, NULL, 0);
	for (unsigned i = 0; i < 4; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data + i * 1024, 1024, &len);
		assert_int_equal(len, 1024);
		assert_int_equal(get_be32(h.data_in.itt), itt);
		assert_int_equal(get_be32(h.data_in.ttt), ISCSI_RSVD_TAG);
		assert_int_equal(get_be32(h.data_in.datasn), i);
		assert_int_equal(get_be32(h.data_in.buffer_offset), i * 1024);
		/* F at the end of each MaxBurstLength sequence; status at the end */
		assert_int_equal(!!(h.data_in.flags & ISCSI_FLAG_FINAL), i == 1 || i == 3);
		assert_int_equal(!!(h.data_in.flags & ISCSI_DATAIN_F_STATUS), i == 3);
		assert_int_equal(get_be32(h.data_in.exp_cmdsn), 2);
	}
	assert_int_equal(h.data_in.status, SAM_STAT_GOOD);
	assert_int_equal(get_be32(h.data_in.statsn), statsn + 1);
	assert_int_equal(h.data_in.flags & (ISCSI_DATAIN_F_OVERFLOW | ISCSI_DATAIN_F_UNDERFLOW), 0);
	assert_memory_equal(data, fake.disk + 2 * 512, 4096);
	assert_true(h_idle(hc));
	assert_int_equal(fake.live_cmds, 0);
}

static void test_residuals(void **state)
{
	union iscsi_hdr h;
	uint32_t len;

	(void)state;
	login(NULL);
	/* underflow: EDTL 3 blocks for a 2-block READ */
	h_read10(cdb, 0, 2);
	h_cmd(hc, F_R, 1536, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(len, 1024);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_UNDERFLOW);
	assert_int_equal(get_be32(h.data_in.resid), 512);
	/* overflow: EDTL 1 block for a 2-block READ */
	h_cmd(hc, F_R, 512, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(len, 512);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_OVERFLOW);
	assert_int_equal(get_be32(h.data_in.resid), 512);
	/* no data at all with EDTL 0: a SCSI Response with the residual */
	h_cmd(hc, F_R, 0, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(len, 0);
	assert_true(h.rsp.flags & ISCSI_RSP_F_OVERFLOW);
	assert_int_equal(get_be32(h.rsp.resid), 1024);
	assert_true(h_idle(hc));
}

static void test_response_with_sense(void **state)
{
	union iscsi_hdr h;
	uint32_t len, itt;

	(void)state;
	login(NULL);
	/* LBA out of range in the fake: CHECK CONDITION, sense in the response */
	h_read10(cdb, FAKE_BLOCKS, 1);
	itt = h_cmd(hc, F_R, 512, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.rsp.itt), itt);
	assert_int_equal(h.rsp.response, ISCSI_RESPONSE_COMPLETED);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(len, 2 + 18);
	assert_int_equal(get_be16(data), 18); /* 11.4.7: SenseLength */
	assert_int_equal(data[2], 0x70);
	assert_int_equal(data[2 + 12], SENSE_LBA_OUT_OF_RANGE);
	assert_int_equal(get_be32(h.rsp.exp_datasn), 0);
	/* no data: TEST UNIT READY */
	memset(cdb, 0, sizeof(cdb));
	h_cmd(hc, F_N, 0, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_int_equal(len, 0);
	assert_int_equal(h.rsp.flags, ISCSI_FLAG_FINAL);
}

static void test_immediate_data(void **state)
{
	union iscsi_hdr h;
	uint32_t len;

	(void)state;
	login(KEYS("ImmediateData=Yes", "InitialR2T=Yes"));
	for (unsigned i = 0; i < 1024; i++)
		data[i] = (uint8_t)(0x5a ^ i);
	h_write10(cdb, 10, 2);
	h_cmd(hc, F_W, 1024, cdb, data, 1024);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, &len);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_memory_equal(fake.disk + 10 * 512, data, 1024);
	/* immediate data beyond what the command writes is discarded */
	h_write10(cdb, 20, 1);
	h_cmd(hc, F_W, 1024, cdb, data, 1024);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, &len);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_true(h.rsp.flags & ISCSI_RSP_F_UNDERFLOW);
	assert_memory_equal(fake.disk + 20 * 512, data, 512);
	assert_memory_not_equal(fake.disk + 21 * 512, data + 512, 512);
}

static void test_long_cdb(void **state)
{
	uint8_t ahs[4 + 20];
	uint8_t wire[256];
	union iscsi_hdr h;
	uint32_t len;
	size_t n;

	(void)state;
	login(NULL);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x7f; /* variable length CDB of 36 bytes: 20 in the AHS */
	h_scsi_cmd(&h, hc, F_N, 0, cdb);
	memset(ahs, 0, sizeof(ahs));
	put_be16(ahs, 21); /* reserved byte + 20 CDB bytes */
	ahs[2] = ISCSI_AHS_EXTENDED_CDB;
	n = h_build(hc, wire, sizeof(wire), &h, ahs, sizeof(ahs), NULL, 0, true);
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(data[2 + 12], SENSE_INVALID_FIELD_IN_CDB);
	/* 32 bytes fit: no error from the fabric */
	put_be16(ahs, 17);
	h_scsi_cmd(&h, hc, F_N, 0, cdb);
	n = h_build(hc, wire, sizeof(wire), &h, ahs, 20, NULL, 0, true);
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
}

static void tur(uint32_t cmdsn, uint32_t itt, bool immediate)
{
	union iscsi_hdr h;

	memset(cdb, 0, sizeof(cdb));
	h_scsi_cmd(&h, hc, F_N, 0, cdb);
	put_be32(h.cmd.cmdsn, cmdsn);
	put_be32(h.cmd.itt, itt);
	if (immediate)
		h.cmd.opcode |= ISCSI_OP_IMMEDIATE;
	h_send(hc, &h, NULL, 0);
}

static void test_cmdsn_order(void **state)
{
	union iscsi_hdr h;

	(void)state;
	login(NULL);
	/* 2 before 1: held until 1 arrives, then both in order */
	tur(2, 0x22, false);
	assert_true(h_idle(hc));
	tur(1, 0x11, false);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 0x11);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 0x22);
	assert_int_equal(get_be32(h.rsp.exp_cmdsn), 3);
	/* outside the window: silently ignored, the connection kept */
	tur(2, 0x44, false);				 /* duplicate */
	tur(get_be32(h.rsp.max_cmdsn) + 1, 0x55, false); /* above MaxCmdSN */
	tur(0x80000000u, 0x66, false);			 /* far away */
	assert_true(h_idle(hc));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	/* immediate: delivered at once, ExpCmdSN not advanced */
	tur(3, 0x77, true);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 0x77);
	assert_int_equal(get_be32(h.rsp.exp_cmdsn), 3);
	tur(3, 0x88, false);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.exp_cmdsn), 4);
	assert_int_equal(fake.live_cmds, 0);
}

static void test_window_backpressure(void **state)
{
	struct iscsi_settings s = h_settings();
	union iscsi_hdr h;

	(void)state;
	teardown(NULL);
	s.queue_depth = 4;
	h_setup(&s);
	hc = h_conn_new();
	login(NULL);
	fake.hold = true;
	for (uint32_t i = 0; i < 4; i++)
		tur(1 + i, 0x100 + i, false);
	/* a fifth is outside the closed window */
	tur(5, 0x200, false);
	assert_true(h_idle(hc));
	assert_int_equal(hc->c->sess->cmdsn.exp, 5);
	assert_int_equal(iscsi_cmdsn_max(&hc->c->sess->cmdsn), 4); /* closed */
	assert_int_equal(fake_complete_held(), 4);
	h_pump(); /* the deferred flush */
	for (uint32_t i = 0; i < 4; i++) {
		h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
		assert_int_equal(get_be32(h.rsp.itt), 0x100 + i);
		/* each status reopens one slot */
		assert_int_equal(get_be32(h.rsp.max_cmdsn), 5 + i);
	}
	fake.hold = false;
	tur(5, 0x300, false);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.itt), 0x300);
}

static void test_itt_in_use(void **state)
{
	union iscsi_hdr h;
	uint8_t rej[64];
	uint32_t len;

	(void)state;
	login(NULL);
	fake.hold = true;
	tur(1, 0x42, false);
	tur(2, 0x42, false);
	h_expect(hc, ISCSI_OP_REJECT, &h, rej, sizeof(rej), &len);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_TASK_IN_PROGRESS);
	assert_int_equal(len, 48);
	assert_int_equal(get_be32(rej + 16), 0x42); /* the rejected header */
	assert_int_equal(get_be32(h.reject.itt), ISCSI_RSVD_TAG);
	fake_complete_held();
	h_pump();
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	fake.hold = false;
	/* the reserved ITT */
	tur(3, ISCSI_RSVD_TAG, false);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_INVALID_PDU_FIELD);
}

static void test_digests(void **state)
{
	union iscsi_hdr h;
	uint8_t wire[2048];
	uint32_t len;
	size_t n;

	(void)state;
	login(KEYS("HeaderDigest=CRC32C", "DataDigest=CRC32C"));
	assert_true(hc->hdigest && hc->ddigest);
	/* a data digest error on immediate data: Reject 02h, then the task
	 * ends with CHECK CONDITION (PROTOCOL SERVICE CRC ERROR) */
	h_write10(cdb, 3, 1);
	h_scsi_cmd(&h, hc, F_W, 512, cdb);
	memset(data, 0xab, 512);
	n = h_build(hc, wire, sizeof(wire), &h, NULL, 0, data, 512, true);
	wire[n - 1] ^= 0xff;
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_DATA_DIGEST);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(data[2 + 12], SENSE_ABORTED_PROTOCOL_CRC_ERROR);
	/* a READ with digests on every Data-In (checked by the harness) */
	h_read10(cdb, 0, 3);
	h_cmd(hc, F_R, 1536, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_memory_equal(data, fake.disk, 1536);
	/* a header digest error drops the connection (ERL 0) */
	memset(cdb, 0, sizeof(cdb));
	h_scsi_cmd(&h, hc, F_N, 0, cdb);
	n = h_build(hc, wire, sizeof(wire), &h, NULL, 0, NULL, 0, true);
	wire[50] ^= 1;
	assert_true(iscsi_conn_feed(hc->c, wire, n) < 0);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_oversize_segment(void **state)
{
	union iscsi_hdr h;
	uint8_t wire[64];

	(void)state;
	login(NULL);
	/* above our MaxRecvDataSegmentLength: Reject, connection dropped,
	 * nothing allocated for the segment */
	h_write10(cdb, 0, 1);
	h_scsi_cmd(&h, hc, F_W, 512, cdb);
	put_be24(h.bhs.dsl, hc->c->max_recv_dsl + 1);
	memcpy(wire, h.raw, 48);
	assert_true(iscsi_conn_feed(hc->c, wire, 48) < 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_PROTOCOL_ERROR);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_unsupported_opcodes(void **state)
{
	union iscsi_hdr h;

	(void)state;
	login(NULL);
	memset(&h, 0, sizeof(h));
	h.bhs.opcode = 0x1c; /* not an initiator opcode */
	h_send(hc, &h, "xyz", 3);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_CMD_NOT_SUPPORTED);
	memset(&h, 0, sizeof(h));
	h.snack.opcode = ISCSI_OP_SNACK_REQ;
	h.snack.flags = 0x80;
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_PROTOCOL_ERROR);
	/* a Login Request in full feature phase */
	h_login_hdr(&h, 0, hc->tsih, 5, 1);
	assert_true(h_send(hc, &h, NULL, 0) < 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_drop_aborts(void **state)
{
	(void)state;
	login(NULL);
	fake.hold = true;
	tur(1, 1, false);
	tur(2, 2, false);
	assert_int_equal(fake.live_cmds, 2);
	/* connection loss: scsi_nexus_loss, tasks released, nexus destroyed */
	iscsi_conn_drop(hc->c, "test");
	assert_int_equal(fake.nexus_lost, 1);
	assert_int_equal(fake.live_cmds, 0);
	assert_int_equal(fake.nexus_destroyed, 1);
}

static void test_drop_held(void **state)
{
	(void)state;
	login(KEYS("InitialR2T=Yes", "ImmediateData=No"));
	/* a command held for CmdSN order and a WRITE waiting for its R2T's
	 * data: the core's nexus loss does not see them (outside its task
	 * set), the fabric ends them itself */
	fake.loss_skips_setup = true;
	tur(3, 0x20, false); /* 2 never comes */
	h_write10(cdb, 0, 4);
	{
		union iscsi_hdr h;

		h_scsi_cmd(&h, hc, F_W, 2048, cdb);
		put_be32(h.cmd.cmdsn, 1);
		h_send(hc, &h, NULL, 0);
		h_expect(hc, ISCSI_OP_R2T, &h, NULL, 0, NULL);
	}
	assert_int_equal(fake.live_cmds, 2);
	iscsi_conn_drop(hc->c, "test");
	assert_int_equal(fake.live_cmds, 0);
	assert_int_equal(fake.nexus_destroyed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_read_split, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_residuals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_response_with_sense, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_immediate_data, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_long_cdb, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cmdsn_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_window_backpressure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_itt_in_use, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_digests, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_oversize_segment, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsupported_opcodes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drop_aborts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drop_held, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
