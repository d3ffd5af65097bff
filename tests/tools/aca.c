/* SPDX-License-Identifier: GPL-2.0-or-later */
/* aca: auto contingent allegiance (SAM-5 5.9) over iSCSI, through the
 * project's raw initiator (iscsi_raw.h: libiscsi sends no ACA task
 * attribute).
 *
 *   aca HOST:PORT TARGET
 *
 * Two sessions of two initiators (A, B) on LUN 0 of TARGET (at most
 * 0xfffffff0 blocks):
 *   INQUIRY reports NormACA, REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS
 *   CACAS; a READ past the end with NACA 0 gives CHECK CONDITION and no
 *   ACA; with NACA 1 it establishes an ACA on A: A's SIMPLE TEST UNIT READY
 *   gets ACA ACTIVE, its TEST UNIT READY and REQUEST SENSE with the ACA
 *   attribute (iSCSI ATTR 4) GOOD; B gets BUSY (NACA 0) or ACA ACTIVE (NACA
 *   1, ACA attribute), also for a WRITE whose Data-Out is then discarded
 *   (the sessions go on), and its CLEAR ACA (function 3) leaves A's ACA; A's
 *   CLEAR ACA: Function complete, then GOOD for both; CLEAR ACA without an
 *   ACA: Function complete; LOGICAL UNIT RESET from B and the end of A's
 *   session clear an ACA.
 * Prints "ok: ..." or "FAIL: ..." per check; exit 0 when all passed, 1 when
 * any failed, 2 on usage or connection errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

#define ATTR_SIMPLE 1
#define ATTR_ACA    4 /* RFC 7143 11.3.1.1 */
#define NACA	    0x04
#define ST_GOOD	    0x00
#define ST_CC	    0x02
#define ST_BUSY	    0x08
#define ST_ACA	    0x30

static const char *target;
static char host[256], port[16];
static int failures;

static void check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", cond ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failures++;
}

static void session(struct ir_conn *c, const char *iname)
{
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};

	ir_conn_init(c);
	if (ir_connect(c, host, port, 5000) || ir_login(c, &o)) {
		fprintf(stderr, "aca: login %s: %s\n", iname, c->err);
		exit(2);
	}
}

/* One command with CONTROL byte ctl (the last CDB byte) and task
 * attribute attr; returns the status. */
static uint8_t cmd(struct ir_conn *c, uint8_t *cdb, size_t len, uint8_t ctl, uint8_t attr, void *in,
		   uint32_t in_len, struct ir_scsi_result *r)
{
	struct ir_cmd_opts o = {.attr = attr};

	cdb[len - 1] = ctl;
	if (ir_scsi_cmd_ex(c, 0, cdb, len, in_len ? IR_DIR_READ : IR_DIR_NONE, NULL, 0, in, in_len,
			   &o, r)) {
		fprintf(stderr, "aca: command %02xh: %s\n", cdb[0], c->err);
		exit(2);
	}
	return r->status;
}

static uint8_t tur(struct ir_conn *c, uint8_t ctl, uint8_t attr)
{
	uint8_t cdb[6] = {0x00};
	struct ir_scsi_result r;

	return cmd(c, cdb, sizeof(cdb), ctl, attr, NULL, 0, &r);
}

/* TEST UNIT READY until GOOD (the unit attentions of a new nexus or a
 * reset); the last status. */
static uint8_t tur_until_good(struct ir_conn *c)
{
	uint8_t st = ST_CC;

	for (int i = 0; i < 8 && st == ST_CC; i++)
		st = tur(c, 0, ATTR_SIMPLE);
	return st;
}

/* READ(10) of the last possible LBA: ILLEGAL REQUEST, LBA OUT OF RANGE. */
static bool read_past_end(struct ir_conn *c, uint8_t ctl, uint8_t attr)
{
	uint8_t cdb[10] = {0x28}, buf[512], key = 0, asc = 0, ascq = 0;
	struct ir_scsi_result r;

	put_be32(cdb + 2, 0xfffffff0u);
	put_be16(cdb + 7, 1);
	if (cmd(c, cdb, sizeof(cdb), ctl, attr, buf, sizeof(buf), &r) != ST_CC)
		return false;
	ir_sense_parse(&r, &key, &asc, &ascq);
	return key == 0x05 && asc == 0x21 && ascq == 0x00;
}

/* WRITE(10) of 64 KiB at LBA 0 (immediate, unsolicited and solicited
 * Data-Out as negotiated); returns the status. */
static uint8_t write64k(struct ir_conn *c)
{
	static uint8_t data[65536];
	uint8_t cdb[10] = {0x2a};
	struct ir_scsi_result r;

	put_be16(cdb + 7, sizeof(data) / 512);
	if (ir_scsi_cmd(c, 0, cdb, sizeof(cdb), IR_DIR_WRITE, data, sizeof(data), NULL, 0, &r)) {
		fprintf(stderr, "aca: WRITE(10): %s\n", c->err);
		exit(2);
	}
	return r.status;
}

static uint8_t tmf(struct ir_conn *c, int func)
{
	uint8_t rsp = 0xee;

	if (ir_tmf(c, func, 0, IR_RSVD_TAG, 0, &rsp)) {
		fprintf(stderr, "aca: TMF %d: %s\n", func, c->err);
		exit(2);
	}
	return rsp;
}

int main(int argc, char **argv)
{
	uint8_t inq[6] = {0x12, 0, 0, 0, 36}, rstmf[12] = {0xa3, 0x0d}, rs[6] = {0x03, 0, 0, 0, 18};
	uint8_t buf[64], st;
	struct ir_scsi_result r;
	struct ir_conn a, b, a2;

	if (argc != 3 || ir_parse_addr(argv[1], host, sizeof(host), port, sizeof(port))) {
		fprintf(stderr, "usage: aca HOST:PORT TARGET\n");
		return 2;
	}
	target = argv[2];
	session(&a, "iqn.2026-12.org.utarget:aca-a");
	session(&b, "iqn.2026-12.org.utarget:aca-b");
	check(tur_until_good(&a) == ST_GOOD, "A: TEST UNIT READY GOOD after the unit attentions");
	check(tur_until_good(&b) == ST_GOOD, "B: TEST UNIT READY GOOD after the unit attentions");

	/* what the LU reports */
	memset(buf, 0, sizeof(buf));
	st = cmd(&a, inq, sizeof(inq), 0, ATTR_SIMPLE, buf, 36, &r);
	check(st == ST_GOOD && (buf[3] & 0x20), "INQUIRY: NormACA set (byte 3 = %02x)", buf[3]);
	memset(buf, 0, sizeof(buf));
	put_be32(rstmf + 6, 4);
	st = cmd(&a, rstmf, sizeof(rstmf), 0, ATTR_SIMPLE, buf, 4, &r);
	check(st == ST_GOOD && (buf[0] & 0x20), "RSTMF: CACAS set (byte 0 = %02x)", buf[0]);

	/* NACA 0: no ACA */
	check(read_past_end(&a, 0, ATTR_SIMPLE), "A: READ past the end, NACA 0: CHECK CONDITION");
	check(tur(&a, 0, ATTR_SIMPLE) == ST_GOOD, "A: then TEST UNIT READY GOOD (no ACA)");
	check(tur(&a, 0, ATTR_ACA) == ST_CC,
	      "A: the ACA attribute without an ACA: CHECK CONDITION");

	/* NACA 1: ACA on A */
	check(read_past_end(&a, NACA, ATTR_SIMPLE),
	      "A: READ past the end, NACA 1: CHECK CONDITION");
	st = tur(&a, 0, ATTR_SIMPLE);
	check(st == ST_ACA, "A: SIMPLE TEST UNIT READY: ACA ACTIVE (%02xh)", st);
	st = tur(&a, 0, ATTR_ACA);
	check(st == ST_GOOD, "A: TEST UNIT READY with the ACA attribute: GOOD (%02xh)", st);
	st = cmd(&a, rs, sizeof(rs), 0, ATTR_ACA, buf, 18, &r);
	check(st == ST_GOOD, "A: REQUEST SENSE with the ACA attribute: GOOD (%02xh)", st);
	st = tur(&b, 0, ATTR_SIMPLE);
	check(st == ST_BUSY, "B: TEST UNIT READY, NACA 0: BUSY (%02xh)", st);
	st = tur(&b, NACA, ATTR_SIMPLE);
	check(st == ST_ACA, "B: TEST UNIT READY, NACA 1: ACA ACTIVE (%02xh)", st);
	st = tur(&b, 0, ATTR_ACA);
	check(st == ST_ACA, "B: TEST UNIT READY with the ACA attribute: ACA ACTIVE (%02xh)", st);
	st = write64k(&b);
	check(st == ST_BUSY, "B: WRITE(10) of 64 KiB: BUSY, its Data-Out discarded (%02xh)", st);
	st = write64k(&a);
	check(st == ST_ACA, "A: SIMPLE WRITE(10) of 64 KiB: ACA ACTIVE (%02xh)", st);
	check(tmf(&b, IR_TMF_CLEAR_ACA) == 0, "B: CLEAR ACA: Function complete");
	st = tur(&a, 0, ATTR_SIMPLE);
	check(st == ST_ACA, "A: the ACA stays after B's CLEAR ACA (%02xh)", st);
	check(tmf(&a, IR_TMF_CLEAR_ACA) == 0, "A: CLEAR ACA: Function complete");
	st = tur(&a, 0, ATTR_SIMPLE);
	check(st == ST_GOOD, "A: then SIMPLE TEST UNIT READY GOOD (%02xh)", st);
	st = tur(&b, 0, ATTR_SIMPLE);
	check(st == ST_GOOD, "B: then TEST UNIT READY GOOD (%02xh)", st);
	st = write64k(&b);
	check(st == ST_GOOD, "B: then WRITE(10) of 64 KiB GOOD (%02xh)", st);
	check(tmf(&a, IR_TMF_CLEAR_ACA) == 0, "A: CLEAR ACA without an ACA: Function complete");

	/* a logical unit reset clears it */
	check(read_past_end(&a, NACA, ATTR_SIMPLE), "A: NACA 1 failure again");
	check(tur(&b, 0, ATTR_SIMPLE) == ST_BUSY, "B: BUSY while the ACA is in effect");
	check(tmf(&b, IR_TMF_LUN_RESET) == 0, "B: LOGICAL UNIT RESET: Function complete");
	st = tur_until_good(&a);
	check(st == ST_GOOD, "A: after the reset's unit attention, GOOD (%02xh)", st);
	check(tur_until_good(&b) == ST_GOOD, "B: after the reset's unit attention, GOOD");

	/* the end of the faulted nexus clears it */
	session(&a2, "iqn.2026-12.org.utarget:aca-a2");
	check(tur_until_good(&a2) == ST_GOOD, "A2: new session ready");
	check(read_past_end(&a2, NACA, ATTR_SIMPLE), "A2: NACA 1 failure");
	check(tur(&b, 0, ATTR_SIMPLE) == ST_BUSY, "B: BUSY while A2's ACA is in effect");
	{
		uint8_t lrsp = 0xee;

		check(ir_logout(&a2, &lrsp) == 0 && lrsp == 0, "A2: logout (session closed)");
	}
	ir_close(&a2);
	st = ST_BUSY;
	for (int i = 0; i < 50 && st == ST_BUSY; i++) {
		st = tur(&b, 0, ATTR_SIMPLE);
		if (st == ST_BUSY)
			usleep(100 * 1000);
	}
	check(st == ST_GOOD, "B: GOOD once A2's session ended (%02xh)", st);

	ir_close(&a);
	ir_close(&b);
	printf("%s aca: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
