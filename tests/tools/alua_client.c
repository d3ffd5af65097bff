/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua_client: ALUA end to end through libiscsi (tests/integration/alua.sh).
 *
 *   alua_client URL_A URL_B TRANSITION_MS
 *
 * URL_A and URL_B reach the same LUN through two target ports in two
 * target port groups that accept explicit transitions. Two sessions (two
 * initiator names), kept for the whole run (no automatic reconnection: a
 * dropped session fails the run):
 *   1. RTPG through A reports both groups active/optimized; each path's
 *      group comes from VPD 83h (target port group designator).
 *   2. SET TARGET PORT GROUPS through A: B's group to standby; it takes at
 *      least TRANSITION_MS.
 *   3. B: the next command gets UNIT ATTENTION 2A/06, READ(10) then NOT
 *      READY 04/0B, TEST UNIT READY too; A: READ(10) GOOD, no unit
 *      attention.
 *   4. RTPG through B (allowed in standby) reports both groups: A's
 *      active/optimized, B's standby with status "altered by SET TARGET
 *      PORT GROUPS".
 *   5. B sets its own group back to active/optimized; A gets the unit
 *      attention; both read again on the same sessions.
 * Prints one "ok:" line per check; exit status 0 when all passed. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define BLOCK 512

struct path {
	const char *label;
	struct iscsi_context *iscsi;
	int lun;
	uint16_t group;
};

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
	if (!ok)
		failures++;
}

static uint16_t be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int connect_path(struct path *p, const char *url, const char *initiator)
{
	struct iscsi_url *u;

	p->iscsi = iscsi_create_context(initiator);
	if (!p->iscsi)
		return -1;
	u = iscsi_parse_full_url(p->iscsi, url);
	if (!u) {
		fprintf(stderr, "%s: bad URL %s: %s\n", p->label, url, iscsi_get_error(p->iscsi));
		return -1;
	}
	iscsi_set_targetname(p->iscsi, u->target);
	iscsi_set_session_type(p->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(p->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	iscsi_set_noautoreconnect(p->iscsi, 1);
	p->lun = u->lun;
	if (iscsi_full_connect_sync(p->iscsi, u->portal, u->lun)) {
		fprintf(stderr, "%s: login failed: %s\n", p->label, iscsi_get_error(p->iscsi));
		iscsi_destroy_url(u);
		return -1;
	}
	iscsi_destroy_url(u);
	return 0;
}

/* Run a CDB; *out (when given) keeps the task for the caller to free. */
static struct scsi_task *run(struct path *p, unsigned char *cdb, int cdb_len, int dir, int xfer_len,
			     unsigned char *data_out)
{
	struct scsi_task *t = scsi_create_task(cdb_len, cdb, dir, xfer_len);
	struct iscsi_data d = {.size = (size_t)xfer_len, .data = data_out};

	if (!t)
		return NULL;
	if (!iscsi_scsi_command_sync(p->iscsi, p->lun, t, data_out ? &d : NULL)) {
		fprintf(stderr, "%s: command %02x failed at the transport: %s\n", p->label, cdb[0],
			iscsi_get_error(p->iscsi));
		scsi_free_scsi_task(t);
		return NULL;
	}
	return t;
}

/* status, and for CHECK CONDITION key/asc/ascq as 0xKKAAQQ; -1 transport */
static long outcome(struct scsi_task *t)
{
	long r;

	if (!t)
		return -1;
	r = t->status == SCSI_STATUS_CHECK_CONDITION
		? (long)t->sense.key << 16 | (long)(t->sense.ascq & 0xffff)
		: (t->status == SCSI_STATUS_GOOD ? 0 : 0x1000000 | t->status);
	return r;
}

static long tur(struct path *p)
{
	unsigned char cdb[6] = {0};
	struct scsi_task *t = run(p, cdb, 6, SCSI_XFER_NONE, 0, NULL);
	long r = outcome(t);

	if (t)
		scsi_free_scsi_task(t);
	return r;
}

static long read10(struct path *p)
{
	unsigned char cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
	struct scsi_task *t = run(p, cdb, 10, SCSI_XFER_READ, BLOCK, NULL);
	long r = outcome(t);

	if (t)
		scsi_free_scsi_task(t);
	return r;
}

/* Consume unit attentions (the login's power-on etc.). */
static void clear_ua(struct path *p)
{
	for (int i = 0; i < 16; i++) {
		long r = tur(p);

		if (r < 0 || (r >> 16) != SCSI_SENSE_UNIT_ATTENTION)
			return;
	}
}

/* The target port group of the path: VPD 83h designator type 5h. */
static int path_group(struct path *p)
{
	unsigned char cdb[6] = {0x12, 1, 0x83, 0, 255, 0};
	struct scsi_task *t = run(p, cdb, 6, SCSI_XFER_READ, 255, NULL);
	int group = -1;

	if (t && t->status == SCSI_STATUS_GOOD) {
		const unsigned char *b = t->datain.data;
		size_t n = (size_t)t->datain.size;

		for (size_t off = 4; off + 4 <= n && off + 4 + b[off + 3] <= n;
		     off += 4u + b[off + 3]) {
			if ((b[off + 1] & 0x3f) == 0x15 && b[off + 3] == 4)
				group = be16(b + off + 6);
		}
	}
	if (t)
		scsi_free_scsi_task(t);
	return group;
}

struct rtpg_group {
	int state, pref, status, nports;
};

/* REPORT TARGET PORT GROUPS (extended header): the descriptors of groups
 * ga and gb; returns the number of groups reported, -1 on error. */
static int rtpg(struct path *p, uint16_t ga, struct rtpg_group *a, uint16_t gb,
		struct rtpg_group *b, long *res)
{
	unsigned char cdb[12] = {0xa3, 0x20 | 0x0a, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0};
	struct scsi_task *t = run(p, cdb, 12, SCSI_XFER_READ, 1024, NULL);
	int n = 0;

	*res = outcome(t);
	a->state = b->state = -1;
	if (!t || t->status != SCSI_STATUS_GOOD) {
		if (t)
			scsi_free_scsi_task(t);
		return -1;
	}
	const unsigned char *d = t->datain.data;
	size_t len = (size_t)t->datain.size, end = 4 + be32(d);

	if (end > len)
		end = len;
	for (size_t off = 8; off + 8 <= end; off += 8u + 4u * d[off + 7], n++) {
		struct rtpg_group *g = NULL;

		if (be16(d + off + 2) == ga)
			g = a;
		else if (be16(d + off + 2) == gb)
			g = b;
		if (!g)
			continue;
		g->state = d[off] & 0x0f;
		g->pref = d[off] >> 7;
		g->status = d[off + 5];
		g->nports = d[off + 7];
	}
	scsi_free_scsi_task(t);
	return n;
}

static long stpg(struct path *p, uint8_t state, uint16_t group, double *secs)
{
	unsigned char cdb[12] = {0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
	unsigned char list[8] = {0, 0, 0, 0, state, 0, (uint8_t)(group >> 8), (uint8_t)group};
	struct timespec t0, t1;
	struct scsi_task *t;
	long r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = run(p, cdb, 12, SCSI_XFER_WRITE, 8, list);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	r = outcome(t);
	if (t)
		scsi_free_scsi_task(t);
	return r;
}

#define UA_ASYM	   0x062a06L /* UNIT ATTENTION, ASYMMETRIC ACCESS STATE CHANGED */
#define NR_STANDBY 0x02040bL /* NOT READY, LU NOT ACCESSIBLE, TARGET PORT IN STANDBY */

int main(int argc, char **argv)
{
	struct path a = {.label = "A"}, b = {.label = "B"};
	struct rtpg_group ra, rb;
	double secs, want;
	long r;
	int n, ga, gb;

	if (argc != 4) {
		fprintf(stderr, "usage: alua_client URL_A URL_B TRANSITION_MS\n");
		return 2;
	}
	want = atof(argv[3]) / 1000.0;
	if (connect_path(&a, argv[1], "iqn.2026-12.org.utarget:alua-a") ||
	    connect_path(&b, argv[2], "iqn.2026-12.org.utarget:alua-b"))
		return 1;
	clear_ua(&a);
	clear_ua(&b);

	ga = path_group(&a);
	gb = path_group(&b);
	check(ga > 0 && gb > 0 && ga != gb, "VPD 83h: path A in group %d, path B in group %d", ga,
	      gb);
	if (ga <= 0 || gb <= 0)
		return 1;

	n = rtpg(&a, (uint16_t)ga, &ra, (uint16_t)gb, &rb, &r);
	check(n == 2 && ra.state == 0 && rb.state == 0 && ra.nports == 1 && rb.nports == 1,
	      "RTPG through A: %d groups, A's %d, B's %d (want 2 groups, both active/optimized)", n,
	      ra.state, rb.state);

	r = stpg(&a, 0x2, (uint16_t)gb, &secs);
	check(r == 0, "SET TARGET PORT GROUPS through A: B's group %d -> standby (result %06lx)",
	      gb, r);
	check(secs + 0.02 >= want, "the transition took %.3f s (configured %.3f s)", secs, want);

	r = read10(&b);
	check(r == UA_ASYM, "B: READ(10) -> UNIT ATTENTION 2A/06 (got %06lx)", r);
	r = read10(&b);
	check(r == NR_STANDBY, "B: READ(10) -> NOT READY 04/0B (got %06lx)", r);
	r = tur(&b);
	check(r == NR_STANDBY, "B: TEST UNIT READY -> NOT READY 04/0B (got %06lx)", r);
	r = read10(&a);
	check(r == 0, "A: READ(10) -> GOOD, no unit attention for the sender (got %06lx)", r);

	n = rtpg(&b, (uint16_t)ga, &ra, (uint16_t)gb, &rb, &r);
	check(n == 2 && ra.state == 0 && rb.state == 2 && rb.status == 1,
	      "RTPG through B (standby): %d groups, A's %d, B's %d status %d (want active/"
	      "optimized, standby, altered by SET TARGET PORT GROUPS)",
	      n, ra.state, rb.state, rb.status);

	r = stpg(&b, 0x0, (uint16_t)gb, &secs);
	check(r == 0,
	      "SET TARGET PORT GROUPS through B: its group back to active/optimized "
	      "(result %06lx)",
	      r);
	r = read10(&a);
	check(r == UA_ASYM, "A: READ(10) -> UNIT ATTENTION 2A/06 (got %06lx)", r);
	check(read10(&a) == 0 && read10(&b) == 0,
	      "A and B read again on the sessions they logged in with");

	iscsi_logout_sync(a.iscsi);
	iscsi_logout_sync(b.iscsi);
	iscsi_destroy_context(a.iscsi);
	iscsi_destroy_context(b.iscsi);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
