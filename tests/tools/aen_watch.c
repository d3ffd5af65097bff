/* SPDX-License-Identifier: GPL-2.0-or-later */
/* aen_watch: the SCSI asynchronous events (RFC 7143 11.9, AsyncEvent 0) a
 * target sends a session, watched with the project's raw initiator while a
 * test script changes the target around it.
 *
 *   aen_watch HOST:PORT TARGET INITIATOR STOPFILE MAX_SECONDS [KEY]
 *
 * Logs in, sends INQUIRY to LUN 0 (the I_T nexus' record of the LU exists
 * from its first command on: its POWER ON condition is pending from then);
 * with KEY (hex), registers it with PERSISTENT RESERVE OUT (REGISTER, sent
 * again while it meets a UNIT ATTENTION: the POWER ON is then reported
 * there) and prints "registered"; prints "ready", then, sending no command,
 * prints every Asynchronous
 * Message as it arrives:
 *   "event 0 lun N sense KK/AA/QQ len L"   (AsyncEvent 0: LUN field's
 *                                           single-level LUN, the sense data)
 *   "event E param1 P param2 P param3 P"   (any other AsyncEvent)
 * AsyncEvent 4 (renegotiation) is answered with an empty Text Request
 * ("text answered" once its Text Response came); AsyncEvent 1 (logout
 * request) is not answered. After AsyncEvent 2 or 3 the target closes the
 * connection: "closed", exit 0. Otherwise until STOPFILE exists (or
 * MAX_SECONDS pass: exit 1). Then TEST UNIT READY
 * to LUN 0: "tur GOOD" or "tur CHECK CONDITION KK/AA/QQ" (a condition the
 * events reported is not reported again), a Logout, "done". A PDU other
 * than an Async Message while no command is outstanding is an error (exit
 * 1; the target must run without NOP-In keepalives). Usage and login errors
 * exit 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* AsyncEvent 0's data segment: SenseLength (2 bytes) and the sense data. */
static void print_event(const struct ir_pdu *p)
{
	const struct ir_bhs_async *a = &p->bhs.async;
	struct ir_scsi_result r = {0};
	uint8_t key = 0, asc = 0, ascq = 0;
	uint32_t slen;

	if (a->async_event != 0) {
		printf("event %u param1 %u param2 %u param3 %u\n", a->async_event,
		       get_be16(a->param1), get_be16(a->param2), get_be16(a->param3));
		return;
	}
	slen = p->data_len >= 2 ? get_be16(p->data) : 0;
	if (slen + 2 > p->data_len || slen > sizeof(r.sense)) {
		printf("event 0 bad sense length %u in %u bytes\n", slen, p->data_len);
		return;
	}
	memcpy(r.sense, p->data + 2, slen);
	r.sense_len = slen;
	ir_sense_parse(&r, &key, &asc, &ascq);
	/* SAM-5 4.7.7: peripheral (00b) or flat (01b) single-level LUN */
	printf("event 0 lun %u sense %02x/%02x/%02x len %u\n", get_be16(a->lun) & 0x3fff, key, asc,
	       ascq, slen);
}

int main(int argc, char **argv)
{
	static const uint8_t inquiry[6] = {0x12, 0, 0, 0, 96, 0};
	char host[256], port[16];
	struct ir_scsi_result res;
	struct ir_conn c;
	uint8_t buf[96], rsp = 0;
	double end;
	int last_event = -1, ret = 1;

	if ((argc != 6 && argc != 7) ||
	    ir_parse_addr(argv[1], host, sizeof(host), port, sizeof(port))) {
		fprintf(stderr,
			"usage: aen_watch HOST:PORT TARGET INITIATOR STOPFILE MAX_SECONDS [KEY]\n");
		return 2;
	}
	struct ir_login_opts o = {
	    .initiator_name = argv[3],
	    .target_name = argv[2],
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	ir_conn_init(&c);
	if (ir_connect(&c, host, port, 5000) || ir_login(&c, &o)) {
		fprintf(stderr, "aen_watch: login: %s\n", c.err);
		return 2;
	}
	if (ir_scsi_cmd(&c, 0, inquiry, sizeof(inquiry), IR_DIR_READ, NULL, 0, buf, sizeof(buf),
			&res) ||
	    res.status) {
		fprintf(stderr, "aen_watch: INQUIRY failed: %s\n", c.err);
		return 2;
	}
	if (argc == 7) {
		/* SPC-4 6.16: REGISTER, parameter list of 24 bytes with the
		 * service action reservation key at bytes 8-15 */
		static const uint8_t prout[10] = {0x5f, 0x00, 0, 0, 0, 0, 0, 0, 24, 0};
		uint8_t par[24] = {0}, key = 0, asc, ascq;
		int tries = 0;

		put_be64(par + 8, strtoull(argv[6], NULL, 16));
		do {
			if (ir_scsi_cmd(&c, 0, prout, sizeof(prout), IR_DIR_WRITE, par, sizeof(par),
					NULL, 0, &res)) {
				fprintf(stderr, "aen_watch: PERSISTENT RESERVE OUT: %s\n", c.err);
				return 2;
			}
			key = 0;
			if (res.status == 2)
				ir_sense_parse(&res, &key, &asc, &ascq);
		} while (key == 6 && ++tries < 4);
		if (res.status) {
			fprintf(stderr, "aen_watch: PERSISTENT RESERVE OUT: status 0x%02x\n",
				res.status);
			return 2;
		}
		printf("registered\n");
	}
	printf("ready\n");
	fflush(stdout);
	end = now_s() + atof(argv[5]);
	while (access(argv[4], F_OK) != 0) {
		struct ir_pdu p;
		int rc;

		if (now_s() > end) {
			printf("FAIL: no stop file within %s s\n", argv[5]);
			ret = 1;
			goto out;
		}
		rc = ir_recv_pdu(&c, &p, 100);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc && (last_event == 2 || last_event == 3)) {
			printf("closed\n"); /* as announced */
			ret = 0;
			goto out;
		}
		if (rc) {
			printf("FAIL: receive: %s\n", c.err);
			ret = 1;
			goto out;
		}
		if (ir_pdu_opcode(&p) == IR_OP_ASYNC_MSG) {
			print_event(&p);
			last_event = p.bhs.async.async_event;
			if (last_event == 4) {
				uint8_t *txt = NULL;
				size_t rsp_len = 0;

				fflush(stdout);
				if (ir_text_exchange(&c, NULL, 0, &txt, &rsp_len)) {
					printf("FAIL: Text Request: %s\n", c.err);
					ret = 1;
					goto out;
				}
				free(txt);
				printf("text answered\n");
			}
		} else if (ir_pdu_opcode(&p) != IR_OP_NOP_IN || ir_pdu_itt(&p) != IR_RSVD_TAG) {
			printf("FAIL: unexpected %s with no command outstanding\n",
			       ir_opcode_name(ir_pdu_opcode(&p)));
			ret = 1;
			goto out;
		} else {
			printf("FAIL: a NOP-In (run the target with nop_in_interval 0)\n");
			ret = 1;
			goto out;
		}
		ir_pdu_free(&p);
		fflush(stdout);
	}
	if (ir_test_unit_ready(&c, 0, &res)) {
		printf("FAIL: TEST UNIT READY: %s\n", c.err);
		ret = 1;
		goto out;
	}
	if (res.status == 0) {
		printf("tur GOOD\n");
	} else {
		uint8_t key = 0, asc = 0, ascq = 0;

		ir_sense_parse(&res, &key, &asc, &ascq);
		printf("tur CHECK CONDITION %02x/%02x/%02x\n", key, asc, ascq);
	}
	ir_logout(&c, &rsp);
	printf("done\n");
	ret = 0;
out:
	ir_close(&c);
	return ret;
}
