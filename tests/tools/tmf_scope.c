/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmf_scope: who may send TARGET WARM/COLD RESET and what they reach, with
 * libiscsi (tests/integration/tmf_scope.sh).
 *
 *   tmf_scope PORTAL TARGET RESETTER PLAIN OTHER
 *
 *   RESETTER (ACL: target_reset, LUN 0 = d0) --\
 *   PLAIN    (ACL: no permission, LUN 0 = d0) ---+-- TARGET at PORTAL
 *   OTHER    (ACL: no permission, LUN 0 = d1) --/
 *
 * d0 and d1 delay every I/O (the config's fault.delay_us, about a second),
 * so a READ is still in the target while a reset is sent from another
 * session. Each session keeps its ISID across reconnections (the unit
 * attentions an initiator port finds are its own). Steps:
 *   1. REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS: TRS for RESETTER only.
 *   2. PLAIN's TARGET WARM RESET and TARGET COLD RESET: response 6
 *      ("Function authorization failed"), with READs of RESETTER and OTHER
 *      in flight: both complete GOOD, no session closed, no unit attention.
 *   3. RESETTER's TARGET WARM RESET with a READ of OTHER in flight: response
 *      0; PLAIN and RESETTER get BUS DEVICE RESET FUNCTION OCCURRED (29/03)
 *      on d0; OTHER's READ completes GOOD and OTHER has no unit attention
 *      (d1 is not RESETTER's).
 *   4. RESETTER's TARGET COLD RESET: response 0, then every session of the
 *      target is closed (RFC 7143 11.5.1); after logging in again PLAIN
 *      finds POWER ON (29/00) on d0, OTHER only I_T NEXUS LOSS (29/07) on
 *      d1, no reset.
 * Prints one "ok:" line per check; exit status 0 when all passed. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define BLOCK	   512
#define WAIT_MS	   15000 /* a response, or the end of a delayed READ */
#define UA_CLEAR_N 16

struct sess {
	const char *label;
	const char *initiator;
	uint32_t isid; /* the random part of the ISID, fixed per session */
	struct iscsi_context *iscsi;
};

struct pending {
	bool done;
	int status;	  /* SCSI status, or -1: the transport failed */
	uint32_t tmf_rsp; /* TMF: the response code */
};

static const char *portal, *target;
static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (!ok)
		failures++;
}

static int sess_connect(struct sess *s)
{
	s->iscsi = iscsi_create_context(s->initiator);
	if (!s->iscsi)
		return -1;
	iscsi_set_isid_random(s->iscsi, s->isid, 0);
	iscsi_set_targetname(s->iscsi, target);
	iscsi_set_session_type(s->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(s->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	iscsi_set_noautoreconnect(s->iscsi, 1);
	/* connect and log in only: iscsi_full_connect_sync() would also take
	 * the unit attentions (its TEST UNIT READYs) the test looks for */
	if (iscsi_connect_sync(s->iscsi, portal) || iscsi_login_sync(s->iscsi)) {
		fprintf(stderr, "%s: login failed: %s\n", s->label, iscsi_get_error(s->iscsi));
		iscsi_destroy_context(s->iscsi);
		s->iscsi = NULL;
		return -1;
	}
	return 0;
}

static void sess_close(struct sess *s)
{
	if (s->iscsi)
		iscsi_destroy_context(s->iscsi);
	s->iscsi = NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Service s until p is done (bounded): 0, or -1 on timeout / error. */
static int wait_for(struct sess *s, struct pending *p)
{
	int64_t end = now_ms() + WAIT_MS;

	while (!p->done) {
		struct pollfd pfd = {.fd = iscsi_get_fd(s->iscsi),
				     .events = (short)iscsi_which_events(s->iscsi)};
		int left = (int)(end - now_ms());

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, left < 100 ? left : 100) < 0 && errno != EINTR)
			return -1;
		if (iscsi_service(s->iscsi, pfd.revents) < 0) {
			p->done = true;
			p->status = -1;
		}
	}
	return 0;
}

static void cmd_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct pending *p = priv;

	(void)iscsi;
	p->done = true;
	p->status = status;
	scsi_free_scsi_task(command_data);
}

static void tmf_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct pending *p = priv;

	(void)iscsi;
	p->done = true;
	p->status = status;
	if (status == SCSI_STATUS_GOOD && command_data)
		p->tmf_rsp = *(uint32_t *)command_data;
}

/* READ(10) of block 0, left in flight (finish with wait_for). */
static int read_start(struct sess *s, struct pending *p)
{
	unsigned char cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
	struct scsi_task *t = scsi_create_task(10, cdb, SCSI_XFER_READ, BLOCK);

	memset(p, 0, sizeof(*p));
	if (!t)
		return -1;
	if (iscsi_scsi_command_async(s->iscsi, 0, t, cmd_cb, NULL, p)) {
		scsi_free_scsi_task(t);
		return -1;
	}
	/* send it now: the other sessions are not serviced meanwhile */
	for (int i = 0; i < 50 && (iscsi_which_events(s->iscsi) & POLLOUT); i++)
		iscsi_service(s->iscsi, POLLOUT);
	return 0;
}

/* TARGET WARM (cold false) or COLD RESET: the response code, -1 none. */
static long target_reset(struct sess *s, bool cold)
{
	struct pending p = {0};
	int rc = cold ? iscsi_task_mgmt_target_cold_reset_async(s->iscsi, tmf_cb, &p)
		      : iscsi_task_mgmt_target_warm_reset_async(s->iscsi, tmf_cb, &p);

	if (rc || wait_for(s, &p) || p.status != SCSI_STATUS_GOOD)
		return -1;
	return p.tmf_rsp;
}

/* GOOD 0, CHECK CONDITION 0xKKAAQQ, other status 0x1000000 | status, -1:
 * the transport failed. */
static long run_sync(struct sess *s, unsigned char *cdb, int len, int dir, int xfer,
		     unsigned char *out)
{
	struct scsi_task *t = scsi_create_task(len, cdb, dir, xfer);
	long r;

	if (!t)
		return -1;
	if (!iscsi_scsi_command_sync(s->iscsi, 0, t, NULL)) {
		scsi_free_scsi_task(t);
		return -1;
	}
	r = t->status == SCSI_STATUS_CHECK_CONDITION
		? (long)t->sense.key << 16 | (long)(t->sense.ascq & 0xffff)
		: (t->status == SCSI_STATUS_GOOD ? 0 : 0x1000000 | t->status);
	if (out && t->status == SCSI_STATUS_GOOD && t->datain.size > 0)
		memcpy(out, t->datain.data,
		       (size_t)t->datain.size < 4 ? (size_t)t->datain.size : 4);
	scsi_free_scsi_task(t);
	return r;
}

static long tur(struct sess *s)
{
	unsigned char cdb[6] = {0};

	return run_sync(s, cdb, 6, SCSI_XFER_NONE, 0, NULL);
}

/* The outcome of a TEST UNIT READY: the first unit attention pending (the
 * others are then taken too, until none is left), else GOOD or an error. */
static long first_ua(struct sess *s)
{
	long first = tur(s), r = first;

	for (int i = 0; i < UA_CLEAR_N && (r >> 16) == SCSI_SENSE_UNIT_ATTENTION; i++)
		r = tur(s);
	return first;
}

/* REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS: the TRS bit, or -1. */
static int trs(struct sess *s)
{
	unsigned char cdb[12] = {0xa3, 0x0d, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0}, d[4] = {0};

	if (run_sync(s, cdb, 12, SCSI_XFER_READ, 4, d))
		return -1;
	return (d[0] >> 1) & 1;
}

static const char *name_of(long r)
{
	static char buf[32];

	if (r == 0)
		return "GOOD";
	if (r < 0)
		return "transport failure";
	snprintf(buf, sizeof(buf), "%lx/%02lx/%02lx", r >> 16, (r >> 8) & 0xff, r & 0xff);
	return buf;
}

#define UA(asc, ascq) ((long)SCSI_SENSE_UNIT_ATTENTION << 16 | (asc) << 8 | (ascq))

int main(int argc, char **argv)
{
	struct sess r = {.label = "resetter", .isid = 0x1001},
		    p = {.label = "plain", .isid = 0x1002}, o = {.label = "other", .isid = 0x1003};
	struct sess *all[3] = {&r, &p, &o};
	struct pending rd_r, rd_o;
	long rsp, v;

	if (argc != 6) {
		fprintf(stderr, "usage: tmf_scope PORTAL TARGET RESETTER PLAIN OTHER\n");
		return 2;
	}
	portal = argv[1];
	target = argv[2];
	r.initiator = argv[3];
	p.initiator = argv[4];
	o.initiator = argv[5];
	for (int i = 0; i < 3; i++) {
		if (sess_connect(all[i]))
			return 1;
		first_ua(all[i]);
	}

	/* 1. REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS */
	check(trs(&r) == 1, "REPORT SUPPORTED TMF: TRS for the initiator allowed target resets");
	check(trs(&p) == 0 && trs(&o) == 0, "REPORT SUPPORTED TMF: no TRS for the others");

	/* 2. refused */
	if (read_start(&r, &rd_r) || read_start(&o, &rd_o))
		return 1;
	rsp = target_reset(&p, false);
	check(rsp == ISCSI_TMR_FUNC_AUTH_FAILED,
	      "TARGET WARM RESET without the permission: response %ld (6, function "
	      "authorization failed)",
	      rsp);
	rsp = target_reset(&p, true);
	check(rsp == ISCSI_TMR_FUNC_AUTH_FAILED,
	      "TARGET COLD RESET without the permission: response %ld (6)", rsp);
	check(!wait_for(&r, &rd_r) && rd_r.status == SCSI_STATUS_GOOD,
	      "a READ of another initiator in flight on the same LU completed GOOD");
	check(!wait_for(&o, &rd_o) && rd_o.status == SCSI_STATUS_GOOD,
	      "a READ in flight on another LU completed GOOD");
	for (int i = 0; i < 3; i++) {
		v = tur(all[i]);
		check(v == 0, "%s: session up, no unit attention after the refusals (%s)",
		      all[i]->label, name_of(v));
	}

	/* 3. warm reset by the initiator allowed it */
	if (read_start(&o, &rd_o))
		return 1;
	rsp = target_reset(&r, false);
	check(rsp == ISCSI_TMR_FUNC_COMPLETE, "TARGET WARM RESET with the permission: response %ld",
	      rsp);
	v = first_ua(&p);
	check(v == UA(0x29, 0x03),
	      "the other initiator of the reset LU: BUS DEVICE RESET FUNCTION OCCURRED (%s)",
	      name_of(v));
	v = first_ua(&r);
	check(v == UA(0x29, 0x03), "the resetter itself: 29/03 (%s)", name_of(v));
	check(!wait_for(&o, &rd_o) && rd_o.status == SCSI_STATUS_GOOD,
	      "a READ in flight on an LU only another ACL maps was not aborted");
	v = tur(&o);
	check(v == 0, "and that LU got no unit attention (%s)", name_of(v));

	/* 4. cold reset: the reset LUs as above, then every session closes */
	rsp = target_reset(&r, true);
	check(rsp == ISCSI_TMR_FUNC_COMPLETE, "TARGET COLD RESET with the permission: response %ld",
	      rsp);
	{
		int64_t end = now_ms() + WAIT_MS;
		bool closed = false;

		/* the target closes the connections right after the response */
		while (!closed && now_ms() < end) {
			struct pollfd pfd = {.fd = iscsi_get_fd(p.iscsi), .events = POLLIN};

			if (poll(&pfd, 1, 100) > 0 && iscsi_service(p.iscsi, pfd.revents) < 0)
				closed = true;
			if (!iscsi_is_logged_in(p.iscsi))
				closed = true;
		}
		check(closed, "the cold reset closed the other initiators' sessions");
	}
	for (int i = 0; i < 3; i++) {
		sess_close(all[i]);
		if (sess_connect(all[i]))
			return 1;
	}
	v = first_ua(&p);
	check(v == UA(0x29, 0x00), "after logging in again, the reset LU: POWER ON (%s)",
	      name_of(v));
	v = first_ua(&o);
	check(v == UA(0x29, 0x07),
	      "the LU only another ACL maps: I_T NEXUS LOSS only, no reset (%s)", name_of(v));
	for (int i = 0; i < 3; i++)
		sess_close(all[i]);
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
