/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cdbprobe: one raw CDB through libiscsi (a real initiator) and what came
 * back, for the integration tests that need a command no libiscsi helper
 * sends as they want it (tests/integration/mode_saved.sh: MODE SELECT with
 * SP=1, MODE SENSE of the saved values).
 *
 *   cdbprobe URL CDB_HEX [in ALLOC_LEN | out DATA_HEX]
 *
 * Prints one line:
 *   status=GOOD data=HEX           (data= only for "in": the Data-In)
 *   status=CHECK key=0xK asc=0xAA ascq=0xQQ
 *   status=<other SAM status, hex>
 * With CDBPROBE_UA=1 in the environment the session is logged in without
 * libiscsi's TEST UNIT READY (iscsi_full_connect_sync() consumes unit
 * attentions unseen) and the CDB is sent again, in the same session, while
 * it ends in a unit attention; each one comes first on the line as
 *   ua=AA/QQ ua=AA/QQ status=...
 * With CDBPROBE_ISID_QUALIFIER=N every run uses one ISID (one initiator
 * port), else a random one.
 * Hex strings are pairs of hex digits; spaces and colons are skipped. Exit 0
 * once a status came back, 2 on usage or connection errors. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

static int unhex(const char *s, unsigned char *out, int max)
{
	int n = 0;

	while (*s) {
		unsigned v;

		if (*s == ' ' || *s == ':') {
			s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) || n == max ||
		    sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (unsigned char)v;
		s += 2;
	}
	return n;
}

static void decode_sense(const unsigned char *s, int len, unsigned *k, unsigned *a, unsigned *q)
{
	unsigned key = 0, asc = 0, ascq = 0;

	if (len >= 14 && ((s[0] & 0x7f) == 0x70 || (s[0] & 0x7f) == 0x71)) {
		key = s[2] & 0x0f;
		asc = s[12];
		ascq = s[13];
	} else if (len >= 4 && ((s[0] & 0x7f) == 0x72 || (s[0] & 0x7f) == 0x73)) {
		key = s[1] & 0x0f;
		asc = s[2];
		ascq = s[3];
	}
	*k = key;
	*a = asc;
	*q = ascq;
}

static void print_sense(const unsigned char *s, int len)
{
	unsigned key, asc, ascq;

	decode_sense(s, len, &key, &asc, &ascq);
	printf("status=CHECK key=0x%x asc=0x%02x ascq=0x%02x\n", key, asc, ascq);
}

/* CDBPROBE_UA: a unit attention is printed and the command sent again */
static bool unit_attention(const struct scsi_task *task)
{
	unsigned key, asc, ascq;

	if (task->status != SCSI_STATUS_CHECK_CONDITION || task->datain.size <= 2)
		return false;
	decode_sense(task->datain.data + 2, task->datain.size - 2, &key, &asc, &ascq);
	if (key != 0x6)
		return false;
	printf("ua=%02x/%02x ", asc, ascq);
	return true;
}

int main(int argc, char **argv)
{
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	struct scsi_task *task;
	struct iscsi_data out = {0};
	unsigned char cdb[16], data[4096];
	int cdb_len, dir = SCSI_XFER_NONE, xfer = 0, n;
	bool ua;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: cdbprobe URL CDB_HEX [in ALLOC_LEN | out DATA_HEX]\n");
		return 2;
	}
	cdb_len = unhex(argv[2], cdb, (int)sizeof(cdb));
	if (cdb_len < 6)
		return 2;
	if (argc == 5 && !strcmp(argv[3], "in")) {
		dir = SCSI_XFER_READ;
		xfer = atoi(argv[4]);
		if (xfer <= 0 || xfer > 65535)
			return 2;
	} else if (argc == 5 && !strcmp(argv[3], "out")) {
		n = unhex(argv[4], data, (int)sizeof(data));
		if (n < 0)
			return 2;
		dir = SCSI_XFER_WRITE;
		xfer = n;
		out.data = data;
		out.size = (size_t)n;
	} else if (argc == 5) {
		return 2;
	}
	iscsi = iscsi_create_context("iqn.2026-12.org.example:cdbprobe");
	if (!iscsi)
		return 2;
	url = iscsi_parse_full_url(iscsi, argv[1]);
	if (!url) {
		fprintf(stderr, "cdbprobe: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	iscsi_set_targetname(iscsi, url->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	/* CDBPROBE_ISID_QUALIFIER=N: one fixed ISID, so that successive runs
	 * are the same initiator port (SAM-5 I_T nexus) and see the unit
	 * attentions established for it meanwhile */
	if (getenv("CDBPROBE_ISID_QUALIFIER"))
		iscsi_set_isid_random(
		    iscsi, 0x5a5a5a, (uint32_t)strtoul(getenv("CDBPROBE_ISID_QUALIFIER"), NULL, 0));
	ua = getenv("CDBPROBE_UA") != NULL;
	if (ua ? iscsi_connect_sync(iscsi, url->portal) != 0 || iscsi_login_sync(iscsi) != 0
	       : iscsi_full_connect_sync(iscsi, url->portal, url->lun) != 0) {
		fprintf(stderr, "cdbprobe: login: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	for (int tries = 0;; tries++) {
		task = scsi_create_task(cdb_len, cdb, dir, xfer);
		if (!task)
			return 2;
		if (iscsi_scsi_command_sync(iscsi, url->lun, task,
					    dir == SCSI_XFER_WRITE ? &out : NULL) == NULL) {
			fprintf(stderr, "cdbprobe: %s\n", iscsi_get_error(iscsi));
			return 2;
		}
		if (!ua || tries == 15 || !unit_attention(task))
			break;
		scsi_free_scsi_task(task);
	}
	if (task->status == SCSI_STATUS_GOOD) {
		printf("status=GOOD");
		if (dir == SCSI_XFER_READ) {
			printf(" data=");
			for (int i = 0; i < task->datain.size; i++)
				printf("%02x", task->datain.data[i]);
		}
		printf("\n");
	} else if (task->status == SCSI_STATUS_CHECK_CONDITION && task->datain.size > 2) {
		print_sense(task->datain.data + 2, task->datain.size - 2);
	} else {
		printf("status=0x%02x\n", (unsigned)task->status);
	}
	scsi_free_scsi_task(task);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	return 0;
}
