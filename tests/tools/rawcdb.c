/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rawcdb: one raw CDB of up to 32 bytes through the project's raw initiator
 * (iscsi_raw.h), which carries the bytes past 16 in an Extended CDB AHS (RFC
 * 7143 11.2.2.3); for the integration tests of the 32-byte CDBs
 * (tests/integration/pi_type2.sh), which libiscsi 1.19 cannot send (its
 * tasks hold 16 CDB bytes).
 *
 *   rawcdb HOST:PORT TARGET LUN CDB_HEX [in ALLOC_LEN | out DATA_HEX]
 *
 * Prints one line, as cdbprobe does:
 *   status=GOOD data=HEX           (data= only for "in": the Data-In)
 *   status=CHECK key=0xK asc=0xAA ascq=0xQQ [info=0xN]
 *   status=<other SAM status, hex>
 * info= is the INFORMATION field of fixed-format sense when its VALID bit
 * is set. Unit attentions are consumed: the CDB is sent again (16 times at
 * most) while it ends in one. Exit 0 once a status came back, 2 on usage or
 * connection errors. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

static int unhex(const char *s, uint8_t *out, int max)
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
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

static void print_result(const struct ir_scsi_result *r, const uint8_t *in, enum ir_dir dir)
{
	uint8_t key, asc, ascq;

	if (r->status == 0x00) {
		printf("status=GOOD");
		if (dir == IR_DIR_READ) {
			printf(" data=");
			for (uint32_t i = 0; i < r->data_in_len; i++)
				printf("%02x", in[i]);
		}
		printf("\n");
	} else if (r->status == 0x02 && ir_sense_parse(r, &key, &asc, &ascq)) {
		printf("status=CHECK key=0x%x asc=0x%02x ascq=0x%02x", key, asc, ascq);
		if (r->sense_len >= 7 && (r->sense[0] & 0xfe) == 0xf0)
			printf(" info=0x%x", get_be32(r->sense + 3));
		printf("\n");
	} else {
		printf("status=0x%02x\n", r->status);
	}
}

int main(int argc, char **argv)
{
	static uint8_t data[1u << 16];
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:rawcdb",
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	enum ir_dir dir = IR_DIR_NONE;
	struct ir_scsi_result r;
	char host[256], port[16];
	uint8_t cdb[32], key, asc, ascq;
	uint32_t len = 0;
	struct ir_conn c;
	int cdb_len, n;

	if ((argc != 5 && argc != 7) ||
	    ir_parse_addr(argv[1], host, sizeof(host), port, sizeof(port))) {
		fprintf(stderr, "usage: rawcdb HOST:PORT TARGET LUN CDB_HEX "
				"[in ALLOC_LEN | out DATA_HEX]\n");
		return 2;
	}
	o.target_name = argv[2];
	cdb_len = unhex(argv[4], cdb, (int)sizeof(cdb));
	if (cdb_len < 6)
		return 2;
	if (argc == 7 && !strcmp(argv[5], "in")) {
		dir = IR_DIR_READ;
		len = (uint32_t)atoi(argv[6]);
		if (len == 0 || len > sizeof(data))
			return 2;
	} else if (argc == 7 && !strcmp(argv[5], "out")) {
		n = unhex(argv[6], data, (int)sizeof(data));
		if (n <= 0)
			return 2;
		dir = IR_DIR_WRITE;
		len = (uint32_t)n;
	} else if (argc == 7) {
		return 2;
	}
	ir_conn_init(&c);
	if (ir_connect(&c, host, port, 5000) || ir_login(&c, &o)) {
		fprintf(stderr, "rawcdb: login: %s\n", c.err);
		return 2;
	}
	for (int tries = 0;; tries++) {
		if (ir_scsi_cmd(&c, (uint64_t)atoi(argv[3]), cdb, (size_t)cdb_len, dir,
				dir == IR_DIR_WRITE ? data : NULL, dir == IR_DIR_WRITE ? len : 0,
				dir == IR_DIR_READ ? data : NULL, dir == IR_DIR_READ ? len : 0,
				&r)) {
			fprintf(stderr, "rawcdb: %s\n", c.err);
			return 2;
		}
		if (tries == 15 || r.status != 0x02 || !ir_sense_parse(&r, &key, &asc, &ascq) ||
		    key != 0x6)
			break;
	}
	print_result(&r, data, dir);
	ir_close(&c);
	return 0;
}
