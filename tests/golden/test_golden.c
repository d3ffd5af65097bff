/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_golden.c: byte-exact responses of the core compared with the hex
 * files next to this source (one file per case, "xx xx ..." with '#'
 * comments). Run with GOLDEN_UPDATE=1 to rewrite the files after an
 * intended change, then review the diff byte by byte against the spec.
 *
 *   "iqn.golden:i" --- loop port 1 --- target "iqn.golden:t" --- LUN 0: lu
 *   (fake RAM, 4096 x 512 bytes, thin); LUNs 0, 1 and 300 map the same LU */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/loop/loop.h"
#include "lib/endian.h"
#include "scsi/alua.h"
#include "scsi/sense.h"
#include "../unit/fakes/fake_bs_core.h"

static const char *dir;
static bool update;
static int failures;

static int read_hex(const char *path, uint8_t *out, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "r");
	int c, nib = -1;

	if (!f)
		return -errno;
	*len = 0;
	while ((c = fgetc(f)) != EOF) {
		int v;

		if (c == '#') {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			continue;
		if (nib < 0) {
			nib = v;
		} else {
			if (*len >= cap) {
				fclose(f);
				return -EFBIG;
			}
			out[(*len)++] = (uint8_t)(nib << 4 | v);
			nib = -1;
		}
	}
	fclose(f);
	return nib < 0 ? 0 : -EINVAL;
}

static void write_hex(const char *path, const char *what, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "cannot write %s\n", path);
		failures++;
		return;
	}
	fprintf(f, "# %s (%zu bytes)\n", what, n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x%s", b[i], (i % 16 == 15 || i + 1 == n) ? "\n" : " ");
	fclose(f);
}

static void check(const char *name, const char *what, const uint8_t *got, size_t n)
{
	char path[512];
	uint8_t want[8192];
	size_t wn = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.hex", dir, name);
	if (update) {
		write_hex(path, what, got, n);
		printf("updated %s\n", name);
		return;
	}
	rc = read_hex(path, want, sizeof(want), &wn);
	if (rc) {
		printf("FAIL %s: cannot read %s (%d)\n", name, path, rc);
		failures++;
		return;
	}
	if (wn != n || memcmp(want, got, n) != 0) {
		size_t i = 0;

		while (i < n && i < wn && want[i] == got[i])
			i++;
		printf("FAIL %s: %zu bytes, expected %zu; first difference at byte %zu\n", name, n,
		       wn, i);
		failures++;
		return;
	}
	printf("ok   %s\n", name);
}

static void cmd(struct loop_port *p, const char *name, const char *what, const uint8_t *cdb,
		size_t cdb_len, uint32_t alloc)
{
	static uint8_t buf[65536];
	struct loop_result r;

	if (loop_submit(p, 0, cdb, cdb_len, SCSI_DIR_READ, buf, alloc, SCSI_ATTR_SIMPLE, &r) ||
	    r.status != SAM_STAT_GOOD) {
		printf("FAIL %s: status %02x\n", name, r.status);
		failures++;
		return;
	}
	check(name, what, buf, r.data_in_len);
}

static void sense_case(const char *name, enum sense_reason reason, bool desc,
		       const struct sense_extra *x)
{
	uint8_t buf[SCSI_SENSE_MAX];
	size_t n = sense_build(buf, sizeof(buf), reason, desc, x);

	check(name, sense_reason_name(reason), buf, n);
}

/* REPORT TARGET PORT GROUPS in both formats with two groups: group 1 (port
 * 1, defined: preferred, explicit, 2.5 s transitions) and group 2 (the
 * implicit group of a second port, rel id 2, standby for this LU through an
 * implicit transition). */
static void rtpg_cases(struct scsi_target *t, struct loop_port *p)
{
	struct scsi_alua_group_attrs a = {
	    .name = "golden-a",
	    .state = SCSI_ALUA_ACTIVE_OPTIMIZED,
	    .preferred = true,
	    .explicit_ok = true,
	    .transition_ms = 2500,
	};
	char name[64];
	struct scsi_tport *tp;

	snprintf(name, sizeof(name), "%s,t,0x0002", scsi_target_name(t));
	tp = scsi_tport_create(t, name, 2, 2);
	if (!tp || scsi_alua_group_define(1, &a) ||
	    scsi_alua_set_state(2, "golden", SCSI_ALUA_STANDBY)) {
		printf("FAIL rtpg: set-up\n");
		failures++;
		return;
	}
	/* consume ASYMMETRIC ACCESS STATE CHANGED */
	loop_submit(p, 0, (const uint8_t[6]){0}, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE,
		    &(struct loop_result){0});
	cmd(p, "rtpg", "REPORT TARGET PORT GROUPS, length-only header",
	    (const uint8_t[12]){0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "rtpg_extended", "REPORT TARGET PORT GROUPS, extended header",
	    (const uint8_t[12]){0xa3, 0x2a, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	scsi_alua_group_undefine(1);
}

static void prout(struct loop_port *p, const char *what, uint8_t sa, uint8_t type, uint64_t sark)
{
	uint8_t cdb[10] = {0x5f, sa, type, 0, 0, 0, 0, 0, 24, 0}, list[24] = {0};
	struct loop_result r;

	put_be64(list, sa == 0x06 ? 0 : sark);
	put_be64(list + 8, sa == 0x06 ? sark : 0);
	if (loop_submit(p, 0, cdb, 10, SCSI_DIR_WRITE, list, 24, SCSI_ATTR_SIMPLE, &r) ||
	    r.status != SAM_STAT_GOOD) {
		printf("FAIL %s: status %02x\n", what, r.status);
		failures++;
	}
}

/* PERSISTENT RESERVE IN (SPC-4 6.15) with two registrations: this
 * initiator through port 1 and a second one through port 2, the first
 * holding a Write Exclusive - Registrants Only reservation. */
static void pr_cases(struct scsi_target *t, struct loop_port *p)
{
	struct loop_port *p2 = loop_create(t, 2, "iqn.2026-12.org.utarget:golden-initiator2");
	struct loop_result r;

	if (!p2) {
		printf("FAIL pr: set-up\n");
		failures++;
		return;
	}
	loop_submit(p2, 0, (const uint8_t[6]){0}, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, &r);
	prout(p, "PR OUT REGISTER AND IGNORE EXISTING KEY", 0x06, 0, 0x1122334455667788ull);
	prout(p2, "PR OUT REGISTER AND IGNORE EXISTING KEY", 0x06, 0, 0x8877665544332211ull);
	prout(p, "PR OUT RESERVE", 0x01, 0x05, 0x1122334455667788ull);
	cmd(p, "pr_in_read_keys", "PERSISTENT RESERVE IN READ KEYS",
	    (const uint8_t[10]){0x5e, 0x00, 0, 0, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "pr_in_read_reservation", "PERSISTENT RESERVE IN READ RESERVATION",
	    (const uint8_t[10]){0x5e, 0x01, 0, 0, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "pr_in_report_capabilities", "PERSISTENT RESERVE IN REPORT CAPABILITIES",
	    (const uint8_t[10]){0x5e, 0x02, 0, 0, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "pr_in_read_full_status", "PERSISTENT RESERVE IN READ FULL STATUS",
	    (const uint8_t[10]){0x5e, 0x03, 0, 0, 0, 0, 0, 1, 0, 0}, 10, 256);
	prout(p, "PR OUT CLEAR", 0x03, 0, 0x1122334455667788ull);
	loop_destroy(p2);
}

int main(int argc, char **argv)
{
	struct scsi_lu_attrs a = {
	    .block_size = 512,
	    .thin = true,
	    .write_cache = true,
	    .vendor = "UTARGET",
	    .product = "GOLDEN DISK",
	    .revision = "0100",
	    .serial = "GOLD0001",
	    .naa = {0x60, 0x01, 0x40, 0x5a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
		    0xde, 0xf0, 0x12},
	};
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu;
	struct loop_port *p;
	uint8_t tur[6] = {0};
	struct loop_result r;

	dir = argc > 1 ? argv[1] : ".";
	update = getenv("GOLDEN_UPDATE") && *getenv("GOLDEN_UPDATE") == '1';

	t = scsi_target_create("iqn.2026-12.org.utarget:golden");
	if (!t || scsi_lu_create("golden", fake_bs_create(4096 * 512, BS_CAP_FLUSH), &a, &lu))
		return 1;
	map = scsi_lun_map_create();
	scsi_lun_map_add(map, 0, lu, false);
	scsi_lun_map_add(map, 1, lu, false);
	scsi_lun_map_add(map, 300, lu, false);
	scsi_target_set_default_map(t, map, true);
	/* an initiator whose ACL allows target resets: REPORT SUPPORTED TASK
	 * MANAGEMENT FUNCTIONS then lists every function (TRS too) */
	p = loop_create_opts(t, 1, "iqn.2026-12.org.utarget:golden-initiator",
			     &(struct loop_port_opts){.target_reset = true});
	if (!p)
		return 1;
	/* the power on unit attention, as sense data */
	loop_submit(p, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, &r);
	check("sense_ua_power_on_fixed", "TEST UNIT READY after login", r.sense, r.sense_len);

	cmd(p, "inquiry_standard", "INQUIRY", (const uint8_t[6]){0x12, 0, 0, 0, 255, 0}, 6, 255);
	static const uint8_t pages[] = {0x00, 0x80, 0x83, 0x85, 0x86, 0x87,
					0x88, 0x8f, 0xb0, 0xb1, 0xb2};
	for (size_t i = 0; i < sizeof(pages); i++) {
		char name[32], what[48];

		snprintf(name, sizeof(name), "vpd_%02x", pages[i]);
		snprintf(what, sizeof(what), "INQUIRY EVPD page %02Xh", pages[i]);
		cmd(p, name, what, (const uint8_t[6]){0x12, 1, pages[i], 0, 255, 0}, 6, 255);
	}
	cmd(p, "report_luns", "REPORT LUNS (SELECT REPORT 02h)",
	    (const uint8_t[12]){0xa0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "mode_sense6_all", "MODE SENSE(6) all pages, current",
	    (const uint8_t[6]){0x1a, 0, 0x3f, 0, 255, 0}, 6, 255);
	cmd(p, "mode_sense10_all_changeable", "MODE SENSE(10) all pages, changeable, LLBAA",
	    (const uint8_t[10]){0x5a, 0x10, 0x7f, 0, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "rsoc_inquiry", "REPORT SUPPORTED OPERATION CODES, one command (INQUIRY), RCTD",
	    (const uint8_t[12]){0xa3, 0x0c, 0x81, 0x12, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "rsoc_read16", "REPORT SUPPORTED OPERATION CODES, one command (READ(16))",
	    (const uint8_t[12]){0xa3, 0x0c, 0x01, 0x88, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "rstmf", "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS, REPD",
	    (const uint8_t[12]){0xa3, 0x0d, 0x80, 0, 0, 0, 0, 0, 0, 16, 0, 0}, 12, 16);
	cmd(p, "read_buffer_descriptor", "READ BUFFER(10) descriptor mode (03h), BUFFER ID 0",
	    (const uint8_t[10]){0x3c, 0x03, 0, 0, 0, 0, 0, 0, 4, 0}, 10, 4);
	cmd(p, "read_buffer_echo_descriptor", "READ BUFFER(10) echo buffer descriptor mode (0Bh)",
	    (const uint8_t[10]){0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0}, 10, 4);
	cmd(p, "rsoc_read_buffer",
	    "REPORT SUPPORTED OPERATION CODES, one command (READ BUFFER(10))",
	    (const uint8_t[12]){0xa3, 0x0c, 0x01, 0x3c, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "rsoc_write_buffer", "REPORT SUPPORTED OPERATION CODES, one command (WRITE BUFFER)",
	    (const uint8_t[12]){0xa3, 0x0c, 0x01, 0x3b, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "log_sense_00", "LOG SENSE supported log pages (00h/00h), cumulative",
	    (const uint8_t[10]){0x4d, 0, 0x40, 0x00, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "log_sense_00ff", "LOG SENSE supported log pages and subpages (00h/FFh)",
	    (const uint8_t[10]){0x4d, 0, 0x40, 0xff, 0, 0, 0, 1, 0, 0}, 10, 256);
	/* one READ(10) of 8 blocks: TOTAL BYTES PROCESSED 4096 */
	static uint8_t rd[8 * 512];
	loop_submit(p, 0, (const uint8_t[10]){0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0}, 10, SCSI_DIR_READ,
		    rd, sizeof(rd), SCSI_ATTR_SIMPLE, &r);
	cmd(p, "log_sense_03", "LOG SENSE read error counters (03h) after 4096 bytes read",
	    (const uint8_t[10]){0x4d, 0, 0x43, 0x00, 0, 0, 0, 1, 0, 0}, 10, 256);
	/* SPC-4 7.2.2: Supported Diagnostic Pages, through RECEIVE DIAGNOSTIC
	 * RESULTS PCV=1 PAGE CODE 00h */
	cmd(p, "receive_diag_00", "RECEIVE DIAGNOSTIC RESULTS PCV=1 page 00h",
	    (const uint8_t[6]){0x1c, 0x01, 0x00, 0x00, 0xff, 0}, 6, 255);
	/* SPC-4 7.3.18: after one default self-test (SEND DIAGNOSTIC
	 * SELFTEST=1), which passes: parameter 0001h SELF-TEST CODE 000b,
	 * RESULTS 0h, in the first hour, ADDRESS OF FIRST FAILURE
	 * FFFFFFFFFFFFFFFFh */
	loop_submit(p, 0, (const uint8_t[6]){0x1d, 0x04, 0, 0, 0, 0}, 6, SCSI_DIR_NONE, NULL, 0,
		    SCSI_ATTR_SIMPLE, &r);
	if (r.status != SAM_STAT_GOOD) {
		printf("FAIL SEND DIAGNOSTIC: status %02x\n", r.status);
		failures++;
	}
	cmd(p, "log_sense_10", "LOG SENSE self-test results (10h) after a default self-test",
	    (const uint8_t[10]){0x4d, 0, 0x50, 0x00, 0, 0, 0, 2, 0, 0}, 10, 512);
	/* SBC-4 Start-Stop Cycle Counter: after START STOP UNIT stop and
	 * start, one start-stop cycle */
	loop_submit(p, 0, (const uint8_t[6]){0x1b, 0, 0, 0, 0x00, 0}, 6, SCSI_DIR_NONE, NULL, 0,
		    SCSI_ATTR_SIMPLE, &r);
	loop_submit(p, 0, (const uint8_t[6]){0x1b, 0, 0, 0, 0x01, 0}, 6, SCSI_DIR_NONE, NULL, 0,
		    SCSI_ATTR_SIMPLE, &r);
	cmd(p, "log_sense_0e", "LOG SENSE start-stop cycle counter (0Eh) after one stop and start",
	    (const uint8_t[10]){0x4d, 0, 0x4e, 0x00, 0, 0, 0, 1, 0, 0}, 10, 256);
	cmd(p, "rsoc_format_unit", "REPORT SUPPORTED OPERATION CODES, one command (FORMAT UNIT)",
	    (const uint8_t[12]){0xa3, 0x0c, 0x01, 0x04, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	cmd(p, "rsoc_send_diagnostic",
	    "REPORT SUPPORTED OPERATION CODES, one command (SEND DIAGNOSTIC)",
	    (const uint8_t[12]){0xa3, 0x0c, 0x01, 0x1d, 0, 0, 0, 0, 1, 0, 0, 0}, 12, 256);
	rtpg_cases(t, p);
	pr_cases(t, p);

	struct sense_extra fp = {
	    .fp_valid = true, .fp_cdb = true, .fp_bit_valid = true, .fp_bit = 5, .fp_byte = 1};
	struct sense_extra info = {.info_valid = true, .info = 0x1234};
	struct sense_extra prog = {.progress_valid = true, .progress = 0x8000};
	sense_case("sense_invalid_cdb_fixed", SENSE_INVALID_FIELD_IN_CDB, false, &fp);
	sense_case("sense_invalid_cdb_desc", SENSE_INVALID_FIELD_IN_CDB, true, &fp);
	sense_case("sense_read_error_fixed", SENSE_UNRECOVERED_READ_ERROR, false, &info);
	sense_case("sense_read_error_desc", SENSE_UNRECOVERED_READ_ERROR, true, &info);
	sense_case("sense_sanitize_progress_fixed", SENSE_NOT_READY_SANITIZE_IN_PROGRESS, false,
		   &prog);
	sense_case("sense_selftest_progress_fixed", SENSE_NOT_READY_SELF_TEST_IN_PROGRESS, false,
		   &prog);
	sense_case("sense_format_progress_fixed", SENSE_NOT_READY_FORMAT_IN_PROGRESS, false, &prog);
	sense_case("sense_selftest_failed_fixed", SENSE_LU_FAILED_SELF_TEST, false, NULL);
	sense_case("sense_invalid_opcode_desc", SENSE_INVALID_OPCODE, true, NULL);
	sense_case("sense_lun_not_supported_fixed", SENSE_LUN_NOT_SUPPORTED, false, NULL);

	loop_destroy(p);
	scsi_lun_map_put(map);
	scsi_lu_put(lu);
	scsi_target_destroy(t);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
