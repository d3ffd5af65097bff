/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memload: many large writes in flight at once through libiscsi, for the
 * buffer memory cap test (tests/integration/memcap.sh).
 *
 *   memload URL DEPTH XFER_KIB ROUNDS [imm|r2t]
 *
 * Keeps DEPTH WRITE(16)s of XFER_KIB each in flight (asynchronous, one
 * session), ROUNDS times over DEPTH distinct regions, each block tagged
 * with (round, region, block); BUSY and TASK SET FULL are retried as an
 * initiator's midlayer would (and counted). Then reads every region back
 * and checks the last round's data. "imm" negotiates ImmediateData=Yes,
 * InitialR2T=No (the default of libiscsi is kept otherwise: "r2t" asks for
 * InitialR2T=Yes, ImmediateData=No: all data solicited).
 * Prints "writes=N busy=N errors=N verify_errors=N ms=N"; exit 0 when no
 * command failed (other than retried BUSY) and every block verified. */
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define BS 512u

struct slot {
	uint32_t region;
	uint32_t round;
	unsigned char *buf;
	bool busy;
};

static struct iscsi_context *iscsi;
static int lun;
static uint32_t xfer, depth, rounds;
static unsigned long writes, busy, errors, inflight;

static void fill(unsigned char *b, uint32_t region, uint32_t round)
{
	for (uint32_t i = 0; i < xfer / BS; i++) {
		unsigned char *p = b + (size_t)i * BS;

		memset(p, (int)(round * 31 + region), BS);
		memcpy(p, &round, 4);
		memcpy(p + 4, &region, 4);
		memcpy(p + 8, &i, 4);
	}
}

static void submit(struct slot *s);

static void write_cb(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct slot *s = priv;
	struct scsi_task *task = data;

	(void)ctx;
	inflight--;
	if (status == SCSI_STATUS_BUSY || status == SCSI_STATUS_TASK_SET_FULL) {
		busy++;
		scsi_free_scsi_task(task);
		submit(s); /* retry the same write */
		return;
	}
	if (status != SCSI_STATUS_GOOD) {
		errors++;
		fprintf(stderr, "memload: write region %u round %u: status 0x%x %s\n", s->region,
			s->round, (unsigned)status, iscsi_get_error(iscsi));
	}
	writes++;
	scsi_free_scsi_task(task);
	if (++s->round < rounds)
		submit(s);
}

static void submit(struct slot *s)
{
	fill(s->buf, s->region, s->round);
	if (!iscsi_write16_task(iscsi, lun, (uint64_t)s->region * (xfer / BS), s->buf, xfer, BS, 0,
				0, 0, 0, 0, write_cb, s)) {
		fprintf(stderr, "memload: cannot queue a write: %s\n", iscsi_get_error(iscsi));
		exit(2);
	}
	inflight++;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int main(int argc, char **argv)
{
	struct iscsi_url *url;
	struct slot *slots;
	unsigned long verify_errors = 0;
	unsigned char *expect;
	uint64_t t0;

	if (argc < 5) {
		fprintf(stderr, "usage: memload URL DEPTH XFER_KIB ROUNDS [imm|r2t]\n");
		return 2;
	}
	depth = (uint32_t)strtoul(argv[2], NULL, 0);
	xfer = (uint32_t)strtoul(argv[3], NULL, 0) * 1024u;
	rounds = (uint32_t)strtoul(argv[4], NULL, 0);
	if (!depth || depth > 1024 || !xfer || xfer > (16u << 20) || !rounds)
		return 2;
	iscsi = iscsi_create_context("iqn.2026-12.org.example:memload");
	url = iscsi ? iscsi_parse_full_url(iscsi, argv[1]) : NULL;
	if (!url)
		return 2;
	lun = url->lun;
	iscsi_set_targetname(iscsi, url->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE);
	if (argc > 5 && !strcmp(argv[5], "imm")) {
		iscsi_set_immediate_data(iscsi, ISCSI_IMMEDIATE_DATA_YES);
		iscsi_set_initial_r2t(iscsi, ISCSI_INITIAL_R2T_NO);
	} else if (argc > 5 && !strcmp(argv[5], "r2t")) {
		iscsi_set_immediate_data(iscsi, ISCSI_IMMEDIATE_DATA_NO);
		iscsi_set_initial_r2t(iscsi, ISCSI_INITIAL_R2T_YES);
	}
	if (iscsi_full_connect_sync(iscsi, url->portal, url->lun) != 0) {
		fprintf(stderr, "memload: login: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	/* the first command after login meets the power-on unit attention */
	{
		struct scsi_task *t = iscsi_testunitready_sync(iscsi, lun);

		if (t)
			scsi_free_scsi_task(t);
	}
	slots = calloc(depth, sizeof(*slots));
	expect = malloc(xfer);
	if (!slots || !expect)
		return 2;
	t0 = now_ms();
	for (uint32_t i = 0; i < depth; i++) {
		slots[i].region = i;
		slots[i].buf = malloc(xfer);
		if (!slots[i].buf)
			return 2;
		submit(&slots[i]);
	}
	while (inflight) {
		struct pollfd pfd = {.fd = iscsi_get_fd(iscsi),
				     .events = iscsi_which_events(iscsi)};

		if (poll(&pfd, 1, 30000) <= 0) {
			fprintf(stderr, "memload: no progress for 30 s (%lu in flight)\n",
				inflight);
			return 1;
		}
		if (iscsi_service(iscsi, pfd.revents) < 0) {
			fprintf(stderr, "memload: %s\n", iscsi_get_error(iscsi));
			return 1;
		}
	}
	for (uint32_t i = 0; i < depth; i++) {
		struct scsi_task *t = iscsi_read16_sync(iscsi, lun, (uint64_t)i * (xfer / BS), xfer,
							BS, 0, 0, 0, 0, 0);

		fill(expect, i, rounds - 1);
		if (!t || t->status != SCSI_STATUS_GOOD || t->datain.size != (int)xfer ||
		    memcmp(t->datain.data, expect, xfer))
			verify_errors++;
		if (t)
			scsi_free_scsi_task(t);
		free(slots[i].buf);
	}
	printf("writes=%lu busy=%lu errors=%lu verify_errors=%lu ms=%" PRIu64 "\n", writes, busy,
	       errors, verify_errors, now_ms() - t0);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	free(slots);
	free(expect);
	return errors || verify_errors ? 1 : 0;
}
