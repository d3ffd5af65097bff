/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_snack.c: ErrorRecoveryLevel 1 (RFC 7143 7.1-7.2, 11.16): SNACKs
 * answered from the retained copies (retain.c, snack.c), a retried command
 * after a data digest error on its immediate data (erl.c, scsi_cmd.c), a
 * header digest error that discards the PDU, R-Data with resegmentation
 * (rdata.c), and ERL 0 unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define F_R	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W	  (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)

static uint8_t data[1 << 16];
static uint8_t cdb[16];
static struct h_conn *hc;

static int setup_erl(unsigned erl)
{
	struct iscsi_settings s = h_settings();

	s.error_recovery_level = erl;
	h_setup(&s);
	for (unsigned i = 0; i < sizeof(fake.disk); i++)
		fake.disk[i] = (uint8_t)(i * 7 + i / 512);
	hc = h_conn_new();
	return 0;
}

static int setup1(void **state)
{
	(void)state;
	return setup_erl(1);
}

static int setup0(void **state)
{
	(void)state;
	return setup_erl(0);
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void snack_ttt(uint8_t type, uint32_t itt, uint32_t ttt, uint8_t lun1, uint32_t beg,
		      uint32_t run, uint32_t exp_statsn)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.snack.opcode = ISCSI_OP_SNACK_REQ;
	h.snack.flags = (uint8_t)(ISCSI_FLAG_FINAL | type);
	h.snack.lun[1] = lun1;
	put_be32(h.snack.itt, itt);
	put_be32(h.snack.ttt, ttt);
	put_be32(h.snack.exp_statsn, exp_statsn);
	put_be32(h.snack.begrun, beg);
	put_be32(h.snack.runlength, run);
	assert_int_equal(h_send(hc, &h, NULL, 0), 0);
}

static void snack(uint8_t type, uint32_t itt, uint32_t beg, uint32_t run, uint32_t exp_statsn)
{
	snack_ttt(type, itt, ISCSI_RSVD_TAG, 0, beg, run, exp_statsn);
}

static void expect_reject(uint8_t reason)
{
	union iscsi_hdr h;

	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, reason);
}

static void test_snacks(void **state)
{
	union iscsi_hdr h;
	uint32_t len, itt, statsn;
	struct iscsi_session *s;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=1", "MaxRecvDataSegmentLength=1024")),
			 0);
	s = hc->c->sess;
	assert_int_equal(s->params.error_recovery_level, 1);
	h_read10(cdb, 1, 4);
	itt = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	for (unsigned i = 0; i < 2; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		/* one sequence: acknowledged with the status, no A bit */
		assert_false(h.data_in.flags & ISCSI_DATAIN_F_ACK);
	}
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	statsn = get_be32(h.data_in.statsn);
	/* Data SNACK for DataSN 0: the same PDU again */
	snack(0, itt, 0, 1, statsn);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.data_in.datasn), 0);
	assert_int_equal(len, 1024);
	assert_memory_equal(data, fake.disk + 512, 1024);
	assert_false(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	/* Status SNACK for its StatSN: the Data-In that carried it */
	snack(1, ISCSI_RSVD_TAG, statsn, 1, statsn);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.data_in.datasn), 1);
	assert_int_equal(get_be32(h.data_in.statsn), statsn);
	assert_memory_equal(data, fake.disk + 1536, 1024);
	/* a StatSN not sent yet: protocol error */
	snack(1, ISCSI_RSVD_TAG, statsn + 5, 0, statsn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
	/* DataACK (no A bit sent: Invalid data ack), R-Data with a BegRun
	 * (11.16.4: it names all unacknowledged data, 0 and 0) */
	snack(2, ISCSI_RSVD_TAG, 0, 0, statsn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	snack(3, itt, 1, 0, statsn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
	assert_true(hc->c->retained_bytes > 0);
	/* ExpStatSN past everything: the copies are freed; a SNACK for them
	 * is a protocol error now */
	snack(1, ISCSI_RSVD_TAG, statsn, 1, hc->c->stat_sn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
	/* only the copy of that Reject (status-bearing) is left */
	assert_true(hc->c->retained_bytes > 0 && hc->c->retained_bytes < 1024);
	assert_int_equal(s->stat_snacks, 6);
	assert_int_equal(s->stat_retx_pdus, 2);
	assert_true(h_idle(hc));
}

/* A read of 4 x 1024 bytes in sequences of 2048: the A bit, a TTT and the
 * LUN on the end of the first sequence only (RFC 7143 11.7.2, 11.7.4); a
 * DataACK frees the copies below BegRun; a Data SNACK below it is a
 * protocol error; invalid DataACKs get 08h. */
static void test_dataack(void **state)
{
	static const uint8_t flags[4] = {0x00, 0xc0, 0x00, 0x81}; /* F A . S */
	const uint32_t copy = (uint32_t)sizeof(struct iscsi_retained) + 1024;
	union iscsi_hdr h;
	uint32_t len, itt, ttt = 0, statsn = 0;
	uint64_t before;
	struct iscsi_session *s;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=1", "MaxRecvDataSegmentLength=1024",
					  "MaxBurstLength=2048", "FirstBurstLength=2048")),
			 0);
	s = hc->c->sess;
	assert_int_equal(s->params.max_burst_length, 2048);
	h_read10(cdb, 0, 8);
	itt = h_cmd(hc, F_R, 4096, cdb, NULL, 0);
	for (uint32_t i = 0; i < 4; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		assert_int_equal(get_be32(h.data_in.datasn), i);
		assert_int_equal(h.data_in.flags, flags[i]);
		assert_int_equal(len, 1024);
		assert_memory_equal(data, fake.disk + i * 1024, 1024);
		if (i == 1) {
			ttt = get_be32(h.data_in.ttt);
			assert_true(ttt != ISCSI_RSVD_TAG);
		} else {
			assert_int_equal(get_be32(h.data_in.ttt), ISCSI_RSVD_TAG);
		}
		if (i == 3)
			statsn = get_be32(h.data_in.statsn);
	}
	/* the DataACK for the first sequence: DataSN 0 and 1 freed (one
	 * record in their place), nothing answered */
	before = hc->c->retained_bytes;
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 2, 0, statsn);
	assert_true(h_idle(hc));
	assert_int_equal(hc->c->retained_bytes, before - 2 * copy + sizeof(struct iscsi_retained));
	assert_int_equal(s->stat_data_acks, 1);
	/* a Data SNACK for acknowledged data: protocol error (11.16) */
	snack(0, itt, 1, 1, statsn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
	/* above it: served; 0/0 means all unacknowledged: DataSN 2 and 3 */
	snack(0, itt, 2, 1, statsn);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.data_in.datasn), 2);
	assert_memory_equal(data, fake.disk + 2048, 1024);
	snack(0, itt, 0, 0, statsn);
	for (uint32_t i = 2; i < 4; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		assert_int_equal(get_be32(h.data_in.datasn), i);
		assert_int_equal(h.data_in.flags, flags[i]);
		assert_memory_equal(data, fake.disk + i * 1024, 1024);
	}
	/* invalid DataACKs: unknown TTT, another LUN, BegRun past the last
	 * DataSN sent, RunLength not 0 */
	snack_ttt(2, ISCSI_RSVD_TAG, ttt + 1, 0, 2, 0, statsn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 1, 2, 0, statsn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 5, 0, statsn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 2, 1, statsn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	/* the whole data (the status stays for ExpStatSN): DataSN 2 freed */
	before = hc->c->retained_bytes;
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 4, 0, statsn);
	assert_true(h_idle(hc));
	assert_int_equal(hc->c->retained_bytes, before - copy);
	assert_int_equal(s->stat_data_acks, 2);
	/* DataSN 3 is acknowledged as data; its copy stays as the status
	 * (11.16: a Status SNACK still gets it) */
	snack(0, itt, 3, 1, statsn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
	snack(1, ISCSI_RSVD_TAG, statsn, 1, statsn);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(h.data_in.flags, flags[3]);
	assert_memory_equal(data, fake.disk + 3072, 1024);
	/* the status acknowledged: the record goes with it, the TTT is
	 * unknown now */
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 4, 0, hc->c->stat_sn);
	expect_reject(ISCSI_REJECT_INVALID_DATA_ACK);
	assert_true(hc->c->retained_bytes < 1024);
	assert_int_equal(s->stat_data_acks, 2);
	assert_true(h_idle(hc));
}

/* An R-Data SNACK (RFC 7143 11.16.3) after the initiator's
 * MaxRecvDataSegmentLength went from 1024 to 512: the unacknowledged data
 * again in 512-byte Data-In numbered from the last DataACK's BegRun, then
 * a SCSI Response with the SNACK Tag, the first status' StatSN, its
 * underflow residual and ExpDataSN one past the last DataSN; the copies
 * replaced, so a Data SNACK and a Status SNACK get the new PDUs. */
static void test_rdata(void **state)
{
	const uint32_t tag = 0xabcd0001;
	union iscsi_hdr h;
	uint32_t len, itt, ttt, statsn, stat_sn;
	struct iscsi_session *s;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("ErrorRecoveryLevel=1", "MaxRecvDataSegmentLength=1024",
					  "MaxBurstLength=1024", "FirstBurstLength=1024")),
			 0);
	s = hc->c->sess;
	/* READ of 4 blocks into a 4096-byte buffer: 2048 bytes, underflow */
	h_read10(cdb, 2, 4);
	itt = h_cmd(hc, F_R, 4096, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(h.data_in.flags, 0xc0); /* F A: end of sequence 1 */
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(h.data_in.flags, 0x83); /* F U S */
	assert_int_equal(get_be32(h.data_in.resid), 2048);
	statsn = get_be32(h.data_in.statsn);
	/* an R-Data SNACK for another ITT: nothing retained for it */
	snack_ttt(3, itt + 100, tag, 0, 0, 0, statsn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);

	/* no DataACK yet: all of it, from DataSN 0, in 512-byte segments */
	hc->c->max_send_dsl = 512; /* as a Text Request declaring it does (text.c) */
	stat_sn = hc->c->stat_sn;
	snack_ttt(3, itt, tag, 0, 0, 0, statsn);
	for (uint32_t i = 0; i < 4; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		assert_int_equal(get_be32(h.data_in.datasn), i);
		assert_int_equal(get_be32(h.data_in.buffer_offset), i * 512);
		/* F ends each 1024-byte sequence; no A bit, no status */
		assert_int_equal(h.data_in.flags, i % 2 ? ISCSI_FLAG_FINAL : 0);
		assert_int_equal(get_be32(h.data_in.ttt), ISCSI_RSVD_TAG);
		assert_int_equal(len, 512);
		assert_memory_equal(data, fake.disk + 1024 + i * 512, 512);
	}
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	/* golden bytes 0..3: opcode 21h, F and U, Response 0, GOOD */
	assert_int_equal(h.raw[0], 0x21);
	assert_int_equal(h.raw[1], 0x82);
	assert_int_equal(h.raw[2], 0x00);
	assert_int_equal(h.raw[3], 0x00);
	assert_int_equal(len, 0);
	assert_int_equal(get_be32(h.rsp.itt), itt);
	assert_int_equal(get_be32(h.rsp.snack_tag), tag);
	assert_int_equal(get_be32(h.rsp.statsn), statsn); /* 11.16.3: the same */
	assert_int_equal(get_be32(h.rsp.exp_datasn), 4);
	assert_int_equal(get_be32(h.rsp.resid), 2048);
	assert_int_equal(hc->c->stat_sn, stat_sn); /* no StatSN taken */
	assert_int_equal(s->stat_retx_pdus, 5);
	/* the copies are the new PDUs: Data SNACK for DataSN 3, Status SNACK */
	snack(0, itt, 3, 1, statsn);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(get_be32(h.data_in.buffer_offset), 1536);
	assert_int_equal(len, 512);
	snack(1, ISCSI_RSVD_TAG, statsn, 1, statsn);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(get_be32(h.rsp.snack_tag), tag);
	/* the status acknowledged: nothing left to send again */
	snack_ttt(3, itt, tag + 1, 0, 0, 0, hc->c->stat_sn);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);

	/* a second read, its first sequence acknowledged (DataACK BegRun 1):
	 * R-Data from DataSN 1 (11.16.3: the last DataACK's BegRun), the bytes
	 * from offset 1024 */
	hc->c->max_send_dsl = 1024;
	h_read10(cdb, 8, 4);
	itt = h_cmd(hc, F_R, 2048, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	ttt = get_be32(h.data_in.ttt);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	statsn = get_be32(h.data_in.statsn);
	snack_ttt(2, ISCSI_RSVD_TAG, ttt, 0, 1, 0, statsn);
	assert_true(h_idle(hc));
	hc->c->max_send_dsl = 512;
	snack_ttt(3, itt, tag + 2, 0, 0, 0, statsn);
	for (uint32_t i = 1; i < 3; i++) {
		h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
		assert_int_equal(get_be32(h.data_in.datasn), i);
		assert_int_equal(get_be32(h.data_in.buffer_offset), 512 + i * 512);
		assert_int_equal(h.data_in.flags, i == 2 ? ISCSI_FLAG_FINAL : 0);
		assert_int_equal(len, 512);
		assert_memory_equal(data, fake.disk + 8 * 512 + 512 + i * 512, 512);
	}
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.flags, ISCSI_FLAG_FINAL); /* no residual */
	assert_int_equal(get_be32(h.rsp.snack_tag), tag + 2);
	assert_int_equal(get_be32(h.rsp.exp_datasn), 3);
	assert_int_equal(get_be32(h.rsp.statsn), statsn);
	assert_true(h_idle(hc));
}

static void test_retry_and_header_digest(void **state)
{
	union iscsi_hdr h, cmd;
	uint8_t wire[4096];
	size_t n;

	(void)state;
	assert_int_equal(
	    h_login(hc, KEYS("ErrorRecoveryLevel=1", "HeaderDigest=CRC32C", "DataDigest=CRC32C")),
	    0);
	assert_true(hc->hdigest && hc->ddigest);
	/* immediate data with a data digest error: Reject 02h, the task
	 * waits; the retry (same ITT, CmdSN) completes it once */
	h_write10(cdb, 3, 1);
	h_scsi_cmd(&cmd, hc, F_W, 512, cdb);
	memset(data, 0xab, 512);
	n = h_build(hc, wire, sizeof(wire), &cmd, NULL, 0, data, 512, true);
	wire[n - 1] ^= 0xff;
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	expect_reject(ISCSI_REJECT_DATA_DIGEST);
	assert_true(h_idle(hc));
	n = h_build(hc, wire, sizeof(wire), &cmd, NULL, 0, data, 512, true);
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_memory_equal(fake.disk + 3 * 512, data, 512);
	assert_int_equal(hc->c->sess->stat_retried_cmds, 1);
	/* the same command once more: not executed again, its retained
	 * status is sent again */
	memset(fake.disk + 3 * 512, 0, 512);
	n = h_build(hc, wire, sizeof(wire), &cmd, NULL, 0, data, 512, true);
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	assert_int_equal(fake.disk[3 * 512], 0);
	/* a header digest error: the PDU is skipped by its length, the
	 * connection goes on */
	h_read10(cdb, 0, 1);
	h_scsi_cmd(&h, hc, F_R, 512, cdb);
	n = h_build(hc, wire, sizeof(wire), &h, NULL, 0, NULL, 0, true);
	wire[50] ^= 1;
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_true(h_idle(hc));
	/* sent again: served */
	wire[50] ^= 1;
	assert_int_equal(iscsi_conn_feed(hc->c, wire, n), 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, data, sizeof(data), NULL);
	assert_memory_equal(data, fake.disk, 512);
	/* two header digest errors in a row: the framing is lost */
	wire[50] ^= 1;
	memcpy(wire + n, wire, n);
	assert_true(iscsi_conn_feed(hc->c, wire, 2 * n) < 0);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
}

static void test_erl0(void **state)
{
	(void)state;
	/* the target offers 0: the session gets 0, a SNACK is a protocol
	 * error and nothing is retained */
	union iscsi_hdr h;

	assert_int_equal(
	    h_login(hc, KEYS("ErrorRecoveryLevel=1", "MaxBurstLength=512", "FirstBurstLength=512")),
	    0);
	assert_int_equal(hc->c->sess->params.error_recovery_level, 0);
	/* two sequences: no A bit at ERL 0 (11.7.2: MUST NOT) */
	h_read10(cdb, 0, 2);
	h_cmd(hc, F_R, 1024, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
	assert_int_equal(h.data_in.flags, ISCSI_FLAG_FINAL);
	assert_int_equal(get_be32(h.data_in.ttt), ISCSI_RSVD_TAG);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, NULL, 0, NULL);
	assert_int_equal(h.data_in.flags, ISCSI_FLAG_FINAL | ISCSI_DATAIN_F_STATUS);
	assert_int_equal(hc->c->retained_bytes, 0);
	snack(1, ISCSI_RSVD_TAG, 0, 0, 0);
	expect_reject(ISCSI_REJECT_PROTOCOL_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_snacks, setup1, teardown),
	    cmocka_unit_test_setup_teardown(test_dataack, setup1, teardown),
	    cmocka_unit_test_setup_teardown(test_rdata, setup1, teardown),
	    cmocka_unit_test_setup_teardown(test_retry_and_header_digest, setup1, teardown),
	    cmocka_unit_test_setup_teardown(test_erl0, setup0, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
