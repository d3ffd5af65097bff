/* SPDX-License-Identifier: GPL-2.0-or-later */
/* holdsession: one libiscsi session kept busy while the target is changed
 * around it (tests/integration/cli_*.sh: a reload must not disturb the
 * sessions of targets it does not touch).
 *
 *   holdsession [-i INITIATOR] URL STOPFILE MAX_SECONDS
 *
 * Logs in to URL (iscsi://[user%secret@]host:port/iqn/lun[?target_user=..&
 * target_password=..]) with automatic reconnection off, prints "ready" once
 * the first READ(10) succeeded, then reads block 0 every 20 ms until
 * STOPFILE exists (or MAX_SECONDS pass). A dropped connection, a failed
 * command or a CHECK CONDITION ends it at once. Prints one line
 * "ok commands=N" (exit 0) or "FAIL after N commands: WHY" (exit 1); usage
 * and login errors exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One READ(10) of block 0: NULL when it succeeded, else why. */
static const char *read_once(struct iscsi_context *iscsi, int lun, char *why, size_t size)
{
	struct scsi_task *t = iscsi_read10_sync(iscsi, lun, 0, 512, 512, 0, 0, 0, 0, 0);

	if (!t) {
		snprintf(why, size, "%s", iscsi_get_error(iscsi));
		return why;
	}
	if (t->status == SCSI_STATUS_CHECK_CONDITION) {
		snprintf(why, size, "CHECK CONDITION (sense key 0x%x asc 0x%02x ascq 0x%02x)",
			 t->sense.key, t->sense.ascq >> 8, t->sense.ascq & 0xff);
		scsi_free_scsi_task(t);
		return why;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		/* libiscsi's own statuses (connection lost, cancelled) */
		snprintf(why, size, "status 0x%x: %s", (unsigned)t->status, iscsi_get_error(iscsi));
		scsi_free_scsi_task(t);
		return why;
	}
	scsi_free_scsi_task(t);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *initiator = "iqn.2026-12.org.utarget.test:holdsession";
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	unsigned long n = 0;
	double end;
	char why[512];
	int opt, rc;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i') {
			fprintf(stderr, "usage: holdsession [-i INITIATOR] URL STOPFILE SECONDS\n");
			return 2;
		}
		initiator = optarg;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: holdsession [-i INITIATOR] URL STOPFILE SECONDS\n");
		return 2;
	}
	end = now_s() + atof(argv[optind + 2]);
	iscsi = iscsi_create_context(initiator);
	if (!iscsi)
		return 2;
	url = iscsi_parse_full_url(iscsi, argv[optind]);
	if (!url) {
		fprintf(stderr, "holdsession: %s\n", iscsi_get_error(iscsi));
		iscsi_destroy_context(iscsi);
		return 2;
	}
	iscsi_set_noautoreconnect(iscsi, 1);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	if (iscsi_full_connect_sync(iscsi, url->portal, url->lun)) {
		fprintf(stderr, "holdsession: login: %s\n", iscsi_get_error(iscsi));
		rc = 2;
		goto out;
	}
	if (read_once(iscsi, url->lun, why, sizeof(why)))
		goto fail;
	n++;
	printf("ready\n");
	fflush(stdout);
	while (access(argv[optind + 1], F_OK) != 0 && now_s() < end) {
		usleep(20000);
		if (read_once(iscsi, url->lun, why, sizeof(why)))
			goto fail;
		n++;
	}
	if (read_once(iscsi, url->lun, why, sizeof(why)))
		goto fail;
	n++;
	printf("ok commands=%lu\n", n);
	iscsi_logout_sync(iscsi);
	rc = 0;
	goto out;
fail:
	printf("FAIL after %lu commands: %s\n", n, why);
	rc = 1;
out:
	fflush(stdout);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	return rc;
}
