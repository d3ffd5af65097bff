/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmf_query: the SAM-4/5 task management functions over iSCSI (RFC 7144),
 * through the project's raw initiator (iscsi_raw.h; libiscsi 1.19 neither
 * negotiates iSCSIProtocolLevel nor knows function codes 9-12).
 *
 *   tmf_query HOST:PORT TARGET
 *
 * LUN 0 must delay every I/O by about a second (fault.delay_us), so that a
 * READ is still in the task set while the queries run. Two sessions:
 *   level 1  (no iSCSIProtocolLevel key): QUERY TASK is "Function not
 *            supported" (5); REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS
 *            reports neither QTS nor QAES/QTSS/ITNRS
 *   level 2  (iSCSIProtocolLevel=2 offered, 2 answered):
 *            QUERY ASYNCHRONOUS EVENT: 7 (Function succeeded) with the
 *            pending POWER ON unit attention's 06/29/xx as the Additional
 *            Response Information, which stays pending (the next TEST UNIT
 *            READY gets it); then 0 (Function complete), nothing pending;
 *            RSTMF reports QTS and QAES QTSS ITNRS;
 *            QUERY TASK of an in-flight READ: 7; of an unknown tag: 0;
 *            QUERY TASK SET: 7 while the READ runs, 0 once it is done (its
 *            data arrives intact);
 *            I_T NEXUS RESET with a READ in flight: 0; the READ gets no
 *            response; the next command gets I_T NEXUS LOSS OCCURRED
 *            (06/29/07); the session keeps working.
 * Prints "ok: ..." per check; exit 0 when all passed, 1 on the first
 * failure, 2 on usage or connection errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

#define BS 512u

static const char *target;
static char host[256], port[16];

static void session(struct ir_conn *c, bool level2, const char *iname)
{
	static const uint8_t keys[] = "iSCSIProtocolLevel=2";
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	    .extra_keys = level2 ? keys : NULL,
	    .extra_keys_len = level2 ? sizeof(keys) : 0,
	};

	ir_conn_init(c);
	if (ir_connect(c, host, port, 5000) || ir_login(c, &o)) {
		fprintf(stderr, "tmf_query: login: %s\n", c->err);
		exit(2);
	}
}

static uint8_t tmf(struct ir_conn *c, int func, uint32_t ref_itt, uint8_t info[3])
{
	uint8_t rsp = 0xee;

	if (ir_tmf_ex(c, func, 0, ref_itt, 0, &rsp, info)) {
		fprintf(stderr, "tmf_query: TMF %d: %s\n", func, c->err);
		exit(2);
	}
	return rsp;
}

static void rstmf(struct ir_conn *c, uint8_t out[4])
{
	uint8_t cdb[12] = {0xa3, 0x0d};
	struct ir_scsi_result r;

	put_be32(cdb + 6, 4);
	for (int i = 0; i < 4; i++) {
		if (ir_scsi_cmd(c, 0, cdb, sizeof(cdb), IR_DIR_READ, NULL, 0, out, 4, &r)) {
			fprintf(stderr, "tmf_query: RSTMF: %s\n", c->err);
			exit(2);
		}
		if (r.status == 0)
			return;
	}
	IR_CHECK(false, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS answered status 0x%02x",
		 r.status);
}

/* TEST UNIT READY's sense key/ASC/ASCQ (0/0/0 for GOOD) */
static void tur(struct ir_conn *c, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	struct ir_scsi_result r;

	if (ir_test_unit_ready(c, 0, &r)) {
		fprintf(stderr, "tmf_query: TEST UNIT READY: %s\n", c->err);
		exit(2);
	}
	*key = *asc = *ascq = 0;
	if (r.status == 0x02)
		ir_sense_parse(&r, key, asc, ascq);
}

static uint32_t read_async(struct ir_conn *c, uint64_t lba)
{
	uint8_t cdb[16] = {0x88};
	uint32_t itt;

	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, 1);
	if (ir_scsi_send(c, 0, cdb, sizeof(cdb), IR_DIR_READ, BS, &itt)) {
		fprintf(stderr, "tmf_query: READ: %s\n", c->err);
		exit(2);
	}
	return itt;
}

/* Receives PDUs until the status of itt (true) or a timeout (false). */
static bool wait_status(struct ir_conn *c, uint32_t itt, int timeout_ms, uint32_t *bytes)
{
	*bytes = 0;
	for (;;) {
		struct ir_pdu p;
		bool done = false;

		if (ir_recv_pdu(c, &p, timeout_ms))
			return false;
		if (ir_pdu_itt(&p) == itt) {
			if (ir_pdu_opcode(&p) == IR_OP_DATA_IN) {
				*bytes += ir_pdu_dsl(&p);
				done = p.bhs.data.flags & 0x01; /* S */
			} else if (ir_pdu_opcode(&p) == IR_OP_SCSI_RSP) {
				done = true;
			}
		}
		ir_pdu_free(&p);
		if (done)
			return true;
	}
}

int main(int argc, char **argv)
{
	uint8_t info[3], sup[4], key, asc, ascq;
	char level[16] = "";
	struct ir_conn c1, c2;
	uint32_t itt, bytes;

	if (argc != 3 || ir_parse_addr(argv[1], host, sizeof(host), port, sizeof(port))) {
		fprintf(stderr, "usage: tmf_query HOST:PORT TARGET\n");
		return 2;
	}
	target = argv[2];

	/* ---- level 1: no query functions ---- */
	session(&c1, false, "iqn.2026-12.org.utarget:tmfq1");
	IR_CHECK(ir_login_answer(&c1, "iSCSIProtocolLevel", level, sizeof(level)) == -ENOENT,
		 "level 1: the target declares no iSCSIProtocolLevel unasked");
	IR_CHECK(tmf(&c1, IR_TMF_QUERY_TASK, 0x1234, NULL) == 5,
		 "level 1: QUERY TASK is Function not supported (5)");
	IR_CHECK(tmf(&c1, IR_TMF_I_T_NEXUS_RESET, 0, NULL) == 5,
		 "level 1: I_T NEXUS RESET is Function not supported (5)");
	rstmf(&c1, sup);
	IR_CHECK((sup[0] & 0x04) == 0 && sup[1] == 0,
		 "level 1: RSTMF reports no QTS, QAES, QTSS, ITNRS (%02x %02x)", sup[0], sup[1]);

	/* ---- level 2 ---- */
	session(&c2, true, "iqn.2026-12.org.utarget:tmfq2");
	IR_CHECK(ir_login_answer(&c2, "iSCSIProtocolLevel", level, sizeof(level)) > 0 &&
		     !strcmp(level, "2"),
		 "level 2: iSCSIProtocolLevel=2 answered %s", level);
	memset(info, 0xff, sizeof(info));
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_ASYNC_EVENT, 0, info) == 7 && (info[0] & 0x0f) == 0x06 &&
		     info[1] == 0x29,
		 "QUERY ASYNCHRONOUS EVENT: Function succeeded, %02x/%02x/%02x pending", info[0],
		 info[1], info[2]);
	tur(&c2, &key, &asc, &ascq);
	IR_CHECK(key == 0x06 && asc == 0x29 && ascq == info[2],
		 "the unit attention stayed pending: TEST UNIT READY gets %x/%02x/%02x", key, asc,
		 ascq);
	tur(&c2, &key, &asc, &ascq);
	IR_CHECK(key == 0, "then TEST UNIT READY is GOOD");
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_ASYNC_EVENT, 0, info) == 0 && !info[0] && !info[1] &&
		     !info[2],
		 "QUERY ASYNCHRONOUS EVENT: Function complete, nothing pending");
	rstmf(&c2, sup);
	IR_CHECK((sup[0] & 0x04) && sup[1] == 0x07,
		 "level 2: RSTMF reports QTS and QAES QTSS ITNRS (%02x %02x)", sup[0], sup[1]);

	itt = read_async(&c2, 8);
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_TASK, itt, NULL) == 7,
		 "QUERY TASK of the READ in flight: Function succeeded");
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_TASK, itt + 1000, NULL) == 0,
		 "QUERY TASK of an unknown tag: Function complete");
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_TASK_SET, 0, NULL) == 7,
		 "QUERY TASK SET with the READ in flight: Function succeeded");
	IR_CHECK(wait_status(&c2, itt, 10000, &bytes) && bytes == BS,
		 "the READ completed with its %u bytes", bytes);
	IR_CHECK(tmf(&c2, IR_TMF_QUERY_TASK_SET, 0, NULL) == 0,
		 "QUERY TASK SET once it is done: Function complete");

	itt = read_async(&c2, 16);
	IR_CHECK(tmf(&c2, IR_TMF_I_T_NEXUS_RESET, 0, NULL) == 0,
		 "I_T NEXUS RESET with a READ in flight: Function complete");
	IR_CHECK(!wait_status(&c2, itt, 2500, &bytes), "the READ it aborted got no response");
	tur(&c2, &key, &asc, &ascq);
	IR_CHECK(key == 0x06 && asc == 0x29 && ascq == 0x07,
		 "the next command gets I_T NEXUS LOSS OCCURRED (%x/%02x/%02x)", key, asc, ascq);
	tur(&c2, &key, &asc, &ascq);
	IR_CHECK(key == 0, "and the session keeps working");
	ir_close(&c1);
	ir_close(&c2);
	printf("PASS tmf_query\n");
	return 0;
}
