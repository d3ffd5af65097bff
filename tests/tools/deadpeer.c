/* SPDX-License-Identifier: GPL-2.0-or-later */
/* deadpeer: the NOP-In keepalive against a peer that stops answering
 * (tests/hardening/keepalive.sh). Raw initiator (iscsi_raw.h).
 *
 *   deadpeer --addr HOST:PORT --target IQN --interval S --timeout S
 *
 *  1. initiator A logs in (a fixed ISID), clears its unit attention and
 *     takes an SPC-2 reservation of LUN 0 (RESERVE(6));
 *  2. initiator B logs in; its WRITE gets RESERVATION CONFLICT;
 *  3. A goes silent: it neither reads nor sends any more (a dead host whose
 *     TCP stack still holds the connection);
 *  4. B writes every 100 ms until a write succeeds: the target must have
 *     detected the dead peer (no NOP-Out answer within nop_in_timeout after
 *     a NOP-In sent nop_in_interval after the last PDU), ended A's session
 *     and released its reservation (I_T nexus loss, SPC-4 5.13.2 for the
 *     SPC-2 reservation; SAM-5 6.3.4);
 *  5. A's connection has been closed by the target; A logs in again with the
 *     same ISID (a new session) and its I/O works.
 * Prints "released_after_ms=N"; exit 0 when N is within
 * [interval + timeout - 1 s, interval + timeout + 3 s] and every step
 * behaved, 1 otherwise (with a reason). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iscsi_raw.h"

#define SAM_GOOD		 0x00
#define SAM_RESERVATION_CONFLICT 0x18
#define SAM_CHECK_CONDITION	 0x02

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int fail(const char *what, const struct ir_conn *c)
{
	fprintf(stderr, "deadpeer: FAIL: %s%s%s\n", what, c && c->err[0] ? ": " : "",
		c && c->err[0] ? c->err : "");
	return 1;
}

static int login(struct ir_conn *c, const char *host, const char *port, const char *iname,
		 const char *target, const uint8_t isid[6])
{
	struct ir_login_opts o = {.initiator_name = iname, .target_name = target};
	struct ir_scsi_result r;

	memcpy(o.isid, isid, 6);
	ir_conn_init(c);
	if (ir_connect(c, host, port, 5000) || ir_login(c, &o))
		return -1;
	/* the first command meets a unit attention (power on, nexus loss);
	 * under another initiator's SPC-2 reservation TEST UNIT READY is a
	 * reservation conflict (SPC-2 5.5.1) */
	for (int i = 0; i < 8; i++)
		if (ir_test_unit_ready(c, 0, &r) == 0 &&
		    (r.status == SAM_GOOD || r.status == SAM_RESERVATION_CONFLICT))
			return 0;
	return -1;
}

int main(int argc, char **argv)
{
	static const uint8_t isid_a[6] = {0x80, 0x00, 0x00, 0x00, 0xde, 0xad};
	static const uint8_t isid_b[6] = {0x80, 0x00, 0x00, 0x00, 0xbe, 0xef};
	static const struct option lo[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"interval", required_argument, NULL, 'i'},
	    {"timeout", required_argument, NULL, 'o'},
	    {NULL, 0, NULL, 0},
	};
	const char *addr = NULL, *target = NULL;
	unsigned interval = 0, timeout = 0;
	char host[256], port[16];
	struct ir_conn a, b, a2;
	struct ir_scsi_result r;
	uint8_t blk[512];
	uint8_t reserve6[6] = {0x16, 0, 0, 0, 0, 0};
	uint64_t t0, t1, lo_ms, hi_ms;
	uint8_t key = 0, asc = 0, ascq = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			target = optarg;
			break;
		case 'i':
			interval = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			timeout = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (!addr || !target || !interval || !timeout ||
	    ir_parse_addr(addr, host, sizeof(host), port, sizeof(port)))
		return 2;
	memset(blk, 0x6b, sizeof(blk));

	if (login(&a, host, port, "iqn.2026-12.org.example:dead", target, isid_a))
		return fail("initiator A cannot log in", &a);
	if (ir_scsi_cmd(&a, 0, reserve6, 6, IR_DIR_NONE, NULL, 0, NULL, 0, &r) ||
	    r.status != SAM_GOOD)
		return fail("RESERVE(6) by A", &a);
	if (login(&b, host, port, "iqn.2026-12.org.example:alive", target, isid_b))
		return fail("initiator B cannot log in", &b);
	if (ir_write16(&b, 0, 0, 1, 512, blk, false, &r) || r.status != SAM_RESERVATION_CONFLICT)
		return fail("B's write while A holds the reservation is not a conflict", &b);
	printf("A holds the reservation; B gets RESERVATION CONFLICT; A goes silent\n");
	fflush(stdout);

	/* A is silent from here on: nothing read, nothing sent */
	t0 = now_ms();
	for (;;) {
		struct timespec nap = {.tv_nsec = 100 * 1000000};

		if (ir_write16(&b, 0, 0, 1, 512, blk, false, &r))
			return fail("B's write failed at the transport level", &b);
		if (r.status == SAM_GOOD)
			break;
		if (r.status == SAM_CHECK_CONDITION && ir_sense_parse(&r, &key, &asc, &ascq) &&
		    key == 0x6) {
			/* a unit attention for B (e.g. RESERVATIONS RELEASED): again */
			printf("B: unit attention %02x/%02x\n", asc, ascq);
			continue;
		}
		if (r.status != SAM_RESERVATION_CONFLICT) {
			fprintf(stderr, "deadpeer: B's write: status 0x%02x sense %02x/%02x/%02x\n",
				r.status, ir_sense_parse(&r, &key, &asc, &ascq) ? key : 0, asc,
				ascq);
			return fail("B's write: unexpected status", &b);
		}
		if (now_ms() - t0 > (uint64_t)(interval + timeout + 20) * 1000u)
			return fail("A's session was never ended (reservation still held)", NULL);
		nanosleep(&nap, NULL);
	}
	t1 = now_ms();
	printf("released_after_ms=%llu\n", (unsigned long long)(t1 - t0));
	fflush(stdout);
	/* the target closed A's connection (what A had not read is discarded) */
	if (ir_wait_closed(&a, 2000, NULL))
		return fail("A's connection is still open after its session ended", &a);
	ir_close(&a);
	/* A's host comes back: the same ISID logs in again */
	if (login(&a2, host, port, "iqn.2026-12.org.example:dead", target, isid_a))
		return fail("A cannot log in again with the same ISID", &a2);
	if (ir_write16(&a2, 0, 1, 1, 512, blk, false, &r) || r.status != SAM_GOOD)
		return fail("A's write after the new login", &a2);
	printf("A logged in again with the same ISID; I/O works\n");
	ir_logout(&a2, NULL);
	ir_close(&a2);
	ir_logout(&b, NULL);
	ir_close(&b);
	lo_ms = (uint64_t)(interval + timeout) * 1000u - 1000u;
	hi_ms = (uint64_t)(interval + timeout + 3) * 1000u;
	if (t1 - t0 < lo_ms || t1 - t0 > hi_ms) {
		fprintf(stderr, "deadpeer: FAIL: released after %llu ms, want %llu..%llu\n",
			(unsigned long long)(t1 - t0), (unsigned long long)lo_ms,
			(unsigned long long)hi_ms);
		return 1;
	}
	printf("deadpeer: ok\n");
	return 0;
}
