/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mode_store.c: saved mode pages (mode.c, mode_store.c): MODE SELECT
 * SP=1 saves, MODE SENSE PC=11b reads back, the saved values are the
 * current ones after a "power cycle" (the LU torn down and created again
 * over the same state directory); a damaged state file is refused whole;
 * a failed write fails the command and changes nothing.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (2048 x 512, WCE 1)
 *   p2 "iqn.test:b" --/           state dir: a temp dir                 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/crc32c.h"

struct ms_harness {
	struct harness h;
	char dir[64];
	char file[160];
};

static void ms_start(struct ms_harness *s)
{
	h_setup(&s->h);
	assert_int_equal(scsi_lu_mode_store(s->h.lu, s->dir), 0);
	h_clear_ua(s->h.p1, 0);
	h_clear_ua(s->h.p2, 0);
}

static void ms_stop(struct ms_harness *s)
{
	h_teardown(&s->h);
	memset(&s->h, 0, sizeof(s->h));
}

static int ms_setup(void **state)
{
	struct ms_harness *s = calloc(1, sizeof(*s));

	snprintf(s->dir, sizeof(s->dir), "/tmp/ut-modestore.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	/* h_attrs() NAA: 60014050aabbccdd0011223344556677 */
	snprintf(s->file, sizeof(s->file), "%s/mode-60014050aabbccdd0011223344556677.state",
		 s->dir);
	ms_start(s);
	*state = s;
	return 0;
}

static int ms_teardown(void **state)
{
	struct ms_harness *s = *state;
	char cmd[128];

	if (s->h.lu)
		ms_stop(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	return 0;
}

static bool file_exists(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0;
}

/* MODE SENSE(6), DBD, of one page with page control pc */
static const uint8_t *sense_page(struct loop_port *p, uint8_t pc, uint8_t page, uint8_t *buf,
				 struct loop_result *r)
{
	uint8_t cdb[6] = {0x1a, 0x08, (uint8_t)(pc << 6 | page), 0, 255, 0};

	h_cmd(p, 0, cdb, 6, SCSI_DIR_READ, buf, 255, r);
	assert_int_equal(r->status, SAM_STAT_GOOD);
	return buf + 4;
}

/* MODE SELECT(6) PF=1 of one page_0 page, SP as given */
static uint8_t select_page(struct loop_port *p, bool sp, const uint8_t *page, size_t plen,
			   struct loop_result *r)
{
	uint8_t data[64] = {0};
	uint8_t cdb[6] = {0x15, (uint8_t)(0x10 | (sp ? 1 : 0)), 0, 0, (uint8_t)(4 + plen), 0};

	memcpy(data + 4, page, plen);
	return h_cmd(p, 0, cdb, 6, SCSI_DIR_WRITE, data, (uint32_t)(4 + plen), r);
}

static const uint8_t cache_wce0[20] = {0x08, 0x12, 0x00};
static const uint8_t cache_wce1[20] = {0x08, 0x12, 0x04};
static const uint8_t ctl_dsense[12] = {0x0a, 0x0a, 0x06, 0x10, 0x00, 0, 0, 0, 0xff, 0xff, 0, 0};

/* PS is 1 exactly for the pages with a changeable field. */
static void test_ps_bits(void **state)
{
	struct ms_harness *s = *state;
	uint8_t buf[255];
	struct loop_result r;
	unsigned saveable = 0;

	uint8_t cdb[6] = {0x1a, 0x08, 0x3f, 0xff, 255, 0};
	h_cmd(s->h.p1, 0, cdb, 6, SCSI_DIR_READ, buf, 255, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	for (size_t off = 4; off < r.data_in_len;) {
		uint8_t code = buf[off] & 0x3f;
		bool ps = buf[off] & 0x80;

		assert_int_equal(ps, code == 0x08 || (code == 0x0a && !(buf[off] & 0x40)));
		saveable += ps;
		off += buf[off] & 0x40 ? 4 + get_be16(buf + off + 2) : 2 + buf[off + 1];
	}
	assert_int_equal(saveable, 2);
	/* saved values before any save: the defaults */
	assert_int_equal(sense_page(s->h.p1, 3, 0x08, buf, &r)[2] & 0x04, 0x04);
	assert_false(file_exists(s->file));
}

/* SP=1 saves; SP=0 changes the current values only; after a power cycle
 * the saved values are the current ones. */
static void test_save_and_restart(void **state)
{
	struct ms_harness *s = *state;
	uint8_t buf[255];
	struct loop_result r;

	assert_int_equal(select_page(s->h.p1, true, cache_wce0, sizeof(cache_wce0), &r),
			 SAM_STAT_GOOD);
	assert_true(file_exists(s->file));
	assert_int_equal(sense_page(s->h.p1, 3, 0x08, buf, &r)[2] & 0x04, 0);
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, buf, &r)[2] & 0x04, 0);
	/* the other I_T nexus learns of the change */
	h_tur(s->h.p2, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x01);
	/* SP=0: current only */
	assert_int_equal(select_page(s->h.p1, false, ctl_dsense, sizeof(ctl_dsense), &r),
			 SAM_STAT_GOOD);
	assert_int_equal(sense_page(s->h.p1, 0, 0x0a, buf, &r)[2] & 0x04, 0x04);
	assert_int_equal(sense_page(s->h.p1, 3, 0x0a, buf, &r)[2] & 0x04, 0);
	/* SP=1 with no parameter list saves the current values of every
	 * saveable page: D_SENSE too now */
	uint8_t cdb[6] = {0x15, 0x11, 0, 0, 0, 0};
	assert_int_equal(h_cmd(s->h.p1, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(sense_page(s->h.p1, 3, 0x0a, buf, &r)[2] & 0x04, 0x04);
	/* back to D_SENSE 0 in the current values only */
	uint8_t ctl[12];
	memcpy(ctl, ctl_dsense, sizeof(ctl));
	ctl[2] = 0x02;
	assert_int_equal(select_page(s->h.p1, false, ctl, sizeof(ctl), &r), SAM_STAT_GOOD);

	ms_stop(s);
	ms_start(s);
	/* current = saved: WCE 0, D_SENSE 1 */
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, buf, &r)[2] & 0x04, 0);
	assert_int_equal(sense_page(s->h.p1, 0, 0x0a, buf, &r)[2] & 0x04, 0x04);
	assert_int_equal(sense_page(s->h.p1, 3, 0x08, buf, &r)[2] & 0x04, 0);
	/* default values are still the defaults */
	assert_int_equal(sense_page(s->h.p1, 2, 0x08, buf, &r)[2] & 0x04, 0x04);
	/* D_SENSE 1 is in force: descriptor format sense */
	uint8_t bad[6] = {0x12, 0, 0x99, 0, 255, 0};
	h_cmd(s->h.p1, 0, bad, 6, SCSI_DIR_READ, buf, 255, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	assert_int_equal(r.sense[0] & 0x7f, 0x72);
	/* saving WCE 1 again */
	assert_int_equal(select_page(s->h.p1, true, cache_wce1, sizeof(cache_wce1), &r),
			 SAM_STAT_GOOD);
	ms_stop(s);
	ms_start(s);
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, buf, &r)[2] & 0x04, 0x04);
}

/* SP=1 with a page that cannot be saved: INVALID FIELD IN CDB pointing at
 * SP, and nothing changes. */
static void test_sp_unsaveable_page(void **state)
{
	struct ms_harness *s = *state;
	uint8_t buf[255], rwerr[12] = {0x01, 0x0a};
	struct loop_result r;

	/* the page as read back, current values */
	memcpy(rwerr, sense_page(s->h.p1, 0, 0x01, buf, &r), sizeof(rwerr));
	rwerr[0] &= 0x3f;
	select_page(s->h.p1, true, rwerr, sizeof(rwerr), &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	assert_int_equal(r.sense[15], 0x80 | 0x40 | 0x08 | 0); /* SKSV, C/D, BPV, bit 0 */
	assert_int_equal(get_be16(r.sense + 16), 1);
	assert_false(file_exists(s->file));
	/* the same page with SP=0 is fine */
	assert_int_equal(select_page(s->h.p1, false, rwerr, sizeof(rwerr), &r), SAM_STAT_GOOD);
}

/* A write that fails (the state directory is gone): HARDWARE ERROR,
 * INTERNAL TARGET FAILURE; neither the current nor the saved values
 * changed, no unit attention; once the directory is back it works. */
static void test_write_failure(void **state)
{
	struct ms_harness *s = *state;
	uint8_t buf[255];
	struct loop_result r;

	assert_int_equal(rmdir(s->dir), 0);
	select_page(s->h.p1, true, cache_wce0, sizeof(cache_wce0), &r);
	h_expect_sense(&r, 0x4, 0x44, 0x00);
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, buf, &r)[2] & 0x04, 0x04);
	assert_int_equal(sense_page(s->h.p1, 3, 0x08, buf, &r)[2] & 0x04, 0x04);
	assert_int_equal(h_tur(s->h.p2, &r), SAM_STAT_GOOD);
	assert_int_equal(mkdir(s->dir, 0700), 0);
	assert_int_equal(select_page(s->h.p1, true, cache_wce0, sizeof(cache_wce0), &r),
			 SAM_STAT_GOOD);
	ms_stop(s);
	ms_start(s);
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, buf, &r)[2] & 0x04, 0);
}

static size_t read_file(const char *p, uint8_t *buf, size_t size)
{
	int fd = open(p, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size);
	close(fd);
	assert_true(n > 0);
	return (size_t)n;
}

static void write_file(const char *p, const uint8_t *buf, size_t n)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

/* A fresh LU over the directory: scsi_lu_mode_store()'s verdict. */
static int try_load(struct ms_harness *s)
{
	struct scsi_lu_attrs a = h_attrs();
	struct scsi_lu *lu;
	int rc;

	assert_int_equal(scsi_lu_create("lux", fake_bs_create(1 << 20, 0), &a, &lu), 0);
	rc = scsi_lu_mode_store(lu, s->dir);
	scsi_lu_put(lu);
	return rc;
}

static void fix_crc(uint8_t *b, size_t n)
{
	put_be32(b + 12,
		 crc32c_final(crc32c_update(crc32c_update(CRC32C_INIT, b, 12), b + 16, n - 16)));
}

/* A torn, foreign or inconsistent state file is refused as a whole. */
static void test_corrupt_file_refused(void **state)
{
	struct ms_harness *s = *state;
	uint8_t good[512], bad[512];
	struct loop_result r;
	size_t n;

	assert_int_equal(select_page(s->h.p1, true, cache_wce0, sizeof(cache_wce0), &r),
			 SAM_STAT_GOOD);
	ms_stop(s);
	n = read_file(s->file, good, sizeof(good));
	/* header + 08h (4 + 18) + 0Ah (4 + 10) + 1Ch/02h (4 + 28: kept for
	 * every LU, used by the thin ones) */
	assert_int_equal(n, 16 + 22 + 14 + 32);
	assert_int_equal(try_load(s), 0);
	/* torn: every prefix */
	for (size_t k = 0; k < n; k++) {
		write_file(s->file, good, k);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* one flipped bit anywhere */
	for (size_t k = 0; k < n; k++) {
		memcpy(bad, good, n);
		bad[k] ^= 0x01;
		write_file(s->file, bad, n);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* checksum right, contents wrong: version 2, an unsaveable page (01h),
	 * a wrong page length, a fixed bit changed (RCD of 08h) */
	static const struct {
		size_t off;
		uint8_t val;
	} edits[] = {{7, 2}, {16, 0x01}, {19, 17}, {20, 0x01}};
	for (size_t e = 0; e < sizeof(edits) / sizeof(edits[0]); e++) {
		memcpy(bad, good, n);
		bad[edits[e].off] = edits[e].val;
		fix_crc(bad, n);
		write_file(s->file, bad, n);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* a page twice */
	memcpy(bad, good, n);
	memcpy(bad + n, good + 16, 22);
	put_be32(bad + 8, (uint32_t)(n + 22 - 16));
	fix_crc(bad, n + 22);
	write_file(s->file, bad, n + 22);
	assert_int_equal(try_load(s), -EBADMSG);
	/* the intact file still loads */
	write_file(s->file, good, n);
	ms_start(s);
	assert_int_equal(sense_page(s->h.p1, 0, 0x08, bad, &r)[2] & 0x04, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_ps_bits, ms_setup, ms_teardown),
	    cmocka_unit_test_setup_teardown(test_save_and_restart, ms_setup, ms_teardown),
	    cmocka_unit_test_setup_teardown(test_sp_unsaveable_page, ms_setup, ms_teardown),
	    cmocka_unit_test_setup_teardown(test_write_failure, ms_setup, ms_teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_file_refused, ms_setup, ms_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
