/* SPDX-License-Identifier: GPL-2.0-or-later */
/* liveio: one libiscsi session doing I/O while the control API changes the
 * target under it (tests/integration/rpc_live.sh). Unlike holdsession it
 * expects the unit attentions live changes raise (REPORTED LUNS DATA HAS
 * CHANGED 3F/0E, CAPACITY DATA HAS CHANGED 2A/09, ASYMMETRIC ACCESS STATE
 * CHANGED 2A/06, INQUIRY DATA HAS CHANGED 3F/03), counts them and retries
 * the command; anything else (a dropped connection, another error) is a
 * failure.
 *
 *   liveio [-i INITIATOR] URL STOPFILE MAX_SECONDS
 *
 * Writes then reads back block 1 (a counter in it) every 10 ms until
 * STOPFILE exists or MAX_SECONDS pass; then REPORT LUNS. Prints "ready"
 * after the first write+read, and at the end one line
 *   "ok commands=N ua_luns=N ua_capacity=N ua_alua=N ua_inquiry=N ua_other=N
 *   luns=L0,L1,..." (exit 0) or
 *   "FAIL after N commands: WHY" (exit 1). Usage and login errors exit 2. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

struct live {
	struct iscsi_context *iscsi;
	int lun;
	unsigned long commands, ua_luns, ua_capacity, ua_alua, ua_inquiry, ua_other;
	char why[512];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 0: GOOD; 1: a unit attention (counted, retry); -1: failure (why set). */
static int check(struct live *lv, struct scsi_task *t, const char *what)
{
	if (!t) {
		snprintf(lv->why, sizeof(lv->why), "%s: %s", what, iscsi_get_error(lv->iscsi));
		return -1;
	}
	if (t->status == SCSI_STATUS_GOOD)
		return 0;
	if (t->status == SCSI_STATUS_CHECK_CONDITION && t->sense.key == SCSI_SENSE_UNIT_ATTENTION) {
		if (t->sense.ascq == 0x3f0e) /* REPORTED LUNS DATA HAS CHANGED */
			lv->ua_luns++;
		else if (t->sense.ascq == 0x2a09) /* CAPACITY DATA HAS CHANGED */
			lv->ua_capacity++;
		else if (t->sense.ascq == 0x2a06) /* ASYMMETRIC ACCESS STATE CHANGED */
			lv->ua_alua++;
		else if (t->sense.ascq == 0x3f03) /* INQUIRY DATA HAS CHANGED */
			lv->ua_inquiry++;
		else
			lv->ua_other++;
		return 1;
	}
	snprintf(lv->why, sizeof(lv->why), "%s: status 0x%02x sense %x/%02x/%02x", what, t->status,
		 t->sense.key, t->sense.ascq >> 8, t->sense.ascq & 0xff);
	return -1;
}

/* A command retried past unit attentions (a few at most). */
static int one(struct live *lv, uint32_t counter)
{
	unsigned char buf[512];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &counter, sizeof(counter));
	for (int tries = 0; tries < 8; tries++) {
		struct scsi_task *t =
		    iscsi_write10_sync(lv->iscsi, lv->lun, 1, buf, sizeof(buf), 512, 0, 0, 0, 0, 0);
		int rc = check(lv, t, "WRITE(10)");

		if (t)
			scsi_free_scsi_task(t);
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
	}
	for (int tries = 0; tries < 8; tries++) {
		struct scsi_task *t =
		    iscsi_read10_sync(lv->iscsi, lv->lun, 1, 512, 512, 0, 0, 0, 0, 0);
		int rc = check(lv, t, "READ(10)");

		if (rc == 0 && (t->datain.size < 4 || memcmp(t->datain.data, &counter, 4))) {
			snprintf(lv->why, sizeof(lv->why), "READ(10): block 1 does not hold %u",
				 counter);
			rc = -1;
		}
		if (t)
			scsi_free_scsi_task(t);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			lv->commands += 2;
			return 0;
		}
	}
	snprintf(lv->why, sizeof(lv->why), "unit attentions do not stop");
	return -1;
}

static void report_luns(struct live *lv, char *out, size_t size)
{
	struct scsi_task *t = NULL;
	struct scsi_reportluns_list *l;
	size_t n = 0;

	out[0] = '\0';
	for (int tries = 0; tries < 8; tries++) {
		t = iscsi_reportluns_sync(lv->iscsi, 0, 16384);
		if (check(lv, t, "REPORT LUNS") != 1)
			break;
		scsi_free_scsi_task(t);
		t = NULL;
	}
	if (!t || t->status != SCSI_STATUS_GOOD) {
		snprintf(out, size, "?");
		if (t)
			scsi_free_scsi_task(t);
		return;
	}
	l = scsi_datain_unmarshall(t);
	for (uint32_t i = 0; l && i < l->num && n + 8 < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%u", i ? "," : "", l->luns[i]);
	scsi_free_scsi_task(t);
}

int main(int argc, char **argv)
{
	const char *initiator = "iqn.2026-12.org.utarget.test:liveio";
	struct live lv = {0};
	struct iscsi_url *url;
	char luns[1024];
	uint32_t counter = 1;
	double end;
	int opt;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i') {
			fprintf(stderr, "usage: liveio [-i INITIATOR] URL STOPFILE SECONDS\n");
			return 2;
		}
		initiator = optarg;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: liveio [-i INITIATOR] URL STOPFILE SECONDS\n");
		return 2;
	}
	end = now_s() + atof(argv[optind + 2]);
	lv.iscsi = iscsi_create_context(initiator);
	if (!lv.iscsi)
		return 2;
	url = iscsi_parse_full_url(lv.iscsi, argv[optind]);
	if (!url) {
		fprintf(stderr, "liveio: %s\n", iscsi_get_error(lv.iscsi));
		return 2;
	}
	lv.lun = url->lun;
	iscsi_set_noautoreconnect(lv.iscsi, 1);
	iscsi_set_session_type(lv.iscsi, ISCSI_SESSION_NORMAL);
	if (iscsi_full_connect_sync(lv.iscsi, url->portal, url->lun)) {
		fprintf(stderr, "liveio: login: %s\n", iscsi_get_error(lv.iscsi));
		return 2;
	}
	if (one(&lv, counter++)) {
		printf("FAIL after 0 commands: %s\n", lv.why);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (access(argv[optind + 1], F_OK) != 0 && now_s() < end) {
		usleep(10000);
		if (one(&lv, counter++)) {
			printf("FAIL after %lu commands: %s\n", lv.commands, lv.why);
			return 1;
		}
	}
	report_luns(&lv, luns, sizeof(luns));
	printf(
	    "ok commands=%lu ua_luns=%lu ua_capacity=%lu ua_alua=%lu ua_inquiry=%lu ua_other=%lu "
	    "luns=%s\n",
	    lv.commands, lv.ua_luns, lv.ua_capacity, lv.ua_alua, lv.ua_inquiry, lv.ua_other, luns);
	iscsi_logout_sync(lv.iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(lv.iscsi);
	return 0;
}
