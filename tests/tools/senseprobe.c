/* SPDX-License-Identifier: GPL-2.0-or-later */
/* senseprobe: one SCSI command through libiscsi (a real initiator) and what
 * came back, for the fault-injection test (tests/integration/fault.sh) and
 * the self-test and format test (tests/integration/diag.sh).
 *
 *   senseprobe iscsi://HOST:PORT/IQN/LUN read16|write16|sync16 LBA BLOCKS [BLOCK_SIZE]
 *   senseprobe iscsi://HOST:PORT/IQN/LUN cdb CDB_HEX [in LEN | out DATA_HEX]
 *
 * The second form sends any CDB (hex digits, e.g. 1d0400000000), with
 * LEN bytes of Data-In or the given Data-Out; its CHECK line also has
 * sks=0xSSSSSS (the fixed format SENSE KEY SPECIFIC bytes, SKSV included),
 * and a GOOD with Data-In is followed by a line data=HEX.
 *
 * Prints one line:
 *   status=GOOD ms=N
 *   status=CHECK key=0xK asc=0xAA ascq=0xQQ info=LBA|- ms=N
 *   status=<other SAM status> ms=N
 * where info is the sense INFORMATION field when its VALID bit is set (fixed
 * format, SPC-4 4.5.3) or from an information descriptor (descriptor
 * format, 4.5.2.2), and ms the command's round trip. Exit 0 once a status
 * came back, 2 on usage or connection errors. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static bool print_sks;

/* Sense bytes (after the 2-byte SenseLength) -> key/asc/ascq/info. */
static void print_sense(const unsigned char *s, int len, uint64_t ms)
{
	unsigned key = 0, asc = 0, ascq = 0;
	char info[32] = "-";

	if (len >= 14 && ((s[0] & 0x7f) == 0x70 || (s[0] & 0x7f) == 0x71)) {
		key = s[2] & 0x0f;
		asc = s[12];
		ascq = s[13];
		if (s[0] & 0x80)
			snprintf(info, sizeof(info), "%" PRIu64, be(s + 3, 4));
	} else if (len >= 8 && ((s[0] & 0x7f) == 0x72 || (s[0] & 0x7f) == 0x73)) {
		int off = 8, end = 8 + s[7];

		key = s[1] & 0x0f;
		asc = s[2];
		ascq = s[3];
		if (end > len)
			end = len;
		while (off + 2 <= end) {
			int dl = s[off + 1];

			if (s[off] == 0x00 && dl == 0x0a && off + 12 <= end && (s[off + 2] & 0x80))
				snprintf(info, sizeof(info), "%" PRIu64, be(s + off + 4, 8));
			off += 2 + dl;
		}
	}
	printf("status=CHECK key=0x%x asc=0x%02x ascq=0x%02x info=%s ms=%" PRIu64, key, asc, ascq,
	       info, ms);
	if (print_sks && len >= 18 && (s[0] & 0x7f) == 0x70)
		printf(" sks=0x%06" PRIx64, be(s + 15, 3));
	printf("\n");
}

/* hex digits -> bytes; the count, or -1 */
static int unhex(const char *h, unsigned char *out, int cap)
{
	int n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned v;

		if (n == cap || sscanf(h, "%2x", &v) != 1)
			return -1;
		out[n++] = (unsigned char)v;
	}
	return h[0] ? -1 : n;
}

/* senseprobe URL cdb CDB_HEX [in LEN | out DATA_HEX] */
static struct scsi_task *cdb_command(struct iscsi_context *iscsi, int lun, int argc, char **argv)
{
	static unsigned char out[65536];
	unsigned char cdb[16];
	struct iscsi_data d = {0};
	struct scsi_task *task;
	int n = unhex(argv[3], cdb, sizeof(cdb)), dir = SCSI_XFER_NONE, len = 0;

	if (n < 6)
		return NULL;
	if (argc > 5 && !strcmp(argv[4], "in")) {
		dir = SCSI_XFER_READ;
		len = atoi(argv[5]);
	} else if (argc > 5 && !strcmp(argv[4], "out")) {
		dir = SCSI_XFER_WRITE;
		len = unhex(argv[5], out, sizeof(out));
		if (len < 0)
			return NULL;
		d.data = out;
		d.size = (size_t)len;
	}
	task = scsi_create_task(n, cdb, dir, len);
	if (!task)
		return NULL;
	if (!iscsi_scsi_command_sync(iscsi, lun, task, dir == SCSI_XFER_WRITE ? &d : NULL)) {
		scsi_free_scsi_task(task);
		return NULL;
	}
	return task;
}

int main(int argc, char **argv)
{
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	struct scsi_task *task = NULL;
	unsigned char *buf;
	uint64_t lba, t0;
	uint32_t blocks, bs = 512;

	if (argc < 5 && !(argc == 4 && !strcmp(argv[2], "cdb"))) {
		fprintf(stderr, "usage: senseprobe URL read16|write16|sync16 LBA BLOCKS [BS]\n"
				"       senseprobe URL cdb CDB_HEX [in LEN | out DATA_HEX]\n");
		return 2;
	}
	print_sks = !strcmp(argv[2], "cdb");
	lba = print_sks ? 0 : strtoull(argv[3], NULL, 0);
	blocks = print_sks ? 1 : (uint32_t)strtoul(argv[4], NULL, 0);
	if (argc > 5 && !print_sks)
		bs = (uint32_t)strtoul(argv[5], NULL, 0);
	if (!blocks || blocks > 2048 || bs < 512 || bs > 4096)
		return 2;
	iscsi = iscsi_create_context("iqn.2026-12.org.example:senseprobe");
	if (!iscsi)
		return 2;
	url = iscsi_parse_full_url(iscsi, argv[1]);
	if (!url) {
		fprintf(stderr, "senseprobe: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	iscsi_set_targetname(iscsi, url->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	if (iscsi_full_connect_sync(iscsi, url->portal, url->lun) != 0) {
		fprintf(stderr, "senseprobe: login: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	buf = calloc(blocks, bs);
	if (!buf)
		return 2;
	memset(buf, 0x5a, (size_t)blocks * bs);
	t0 = now_ms();
	if (!strcmp(argv[2], "read16"))
		task = iscsi_read16_sync(iscsi, url->lun, lba, blocks * bs, (int)bs, 0, 0, 0, 0, 0);
	else if (!strcmp(argv[2], "write16"))
		task = iscsi_write16_sync(iscsi, url->lun, lba, buf, blocks * bs, (int)bs, 0, 0, 0,
					  0, 0);
	else if (!strcmp(argv[2], "sync16"))
		task = iscsi_synchronizecache16_sync(iscsi, url->lun, lba, blocks, 0, 0);
	else if (print_sks)
		task = cdb_command(iscsi, url->lun, argc, argv);
	else
		return 2;
	if (!task) {
		fprintf(stderr, "senseprobe: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	if (task->status == SCSI_STATUS_GOOD) {
		printf("status=GOOD ms=%" PRIu64 "\n", now_ms() - t0);
		if (print_sks && task->datain.size > 0) {
			printf("data=");
			for (int i = 0; i < task->datain.size; i++)
				printf("%02x", task->datain.data[i]);
			printf("\n");
		}
	} else if (task->status == SCSI_STATUS_CHECK_CONDITION && task->datain.size > 2)
		print_sense(task->datain.data + 2, task->datain.size - 2, now_ms() - t0);
	else
		printf("status=0x%02x ms=%" PRIu64 "\n", (unsigned)task->status, now_ms() - t0);
	scsi_free_scsi_task(task);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	free(buf);
	return 0;
}
