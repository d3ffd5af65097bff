/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pr_store.c: APTPL (pr_store.c): registrations and reservation
 * survive a "power cycle" (the LU torn down and created again over the
 * same state directory) when the last APTPL bit was 1, not otherwise; the
 * state file is refused whole when damaged; a failed write rolls the state
 * back and fails the command; concurrent PR OUTs are all persisted.
 *
 *   p1 "iqn.test:a,i,0x000000000001" -- target port 1 --\
 *   p2 "iqn.test:b,i,0x000000000001" -- target port 1 ---+- target --- LUN 0: lu
 *   p3 "iqn.test:a,i,0x000000000001" -- target port 2 --/     state dir: a temp dir
 */
#include "pr_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/crc32c.h"

struct st_harness {
	struct pr_harness ph;
	char dir[64];
	char file[160];
};

static void st_start(struct st_harness *s)
{
	struct scsi_lu_attrs a = h_attrs();

	prh_setup_attrs(&s->ph, &a);
	assert_int_equal(scsi_lu_pr_store(s->ph.h.lu, s->dir), 0);
}

static int st_setup(void **state)
{
	struct st_harness *s = calloc(1, sizeof(*s));

	snprintf(s->dir, sizeof(s->dir), "/tmp/ut-prstore.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	/* h_attrs() NAA: 60014050aabbccdd0011223344556677 */
	snprintf(s->file, sizeof(s->file), "%s/pr-60014050aabbccdd0011223344556677.state", s->dir);
	st_start(s);
	*state = s;
	return 0;
}

static void st_stop(struct st_harness *s)
{
	prh_teardown(&s->ph);
	memset(&s->ph, 0, sizeof(s->ph));
}

static int st_teardown(void **state)
{
	struct st_harness *s = *state;
	char cmd[128];

	if (s->ph.h.lu)
		st_stop(s);
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

static unsigned full_status(struct loop_port *p, uint8_t *buf, size_t size)
{
	struct loop_result r;

	assert_int_equal(prin(p, PRI_READ_FULL_STATUS, buf, (uint16_t)size, &r), SAM_STAT_GOOD);
	return r.data_in_len;
}

static uint8_t caps_byte3(struct loop_port *p)
{
	uint8_t buf[8];
	struct loop_result r;

	assert_int_equal(prin(p, PRI_REPORT_CAPABILITIES, buf, 8, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[2] & 0x01, 0x01); /* PTPL_C */
	return buf[3];
}

/* Registrations and the reservation come back after a power cycle; the
 * generation restarts at 0. */
static void test_aptpl_restart(void **state)
{
	struct st_harness *s = *state;
	uint8_t before[512], after[512];
	unsigned n1, n2;
	struct loop_result r;

	assert_int_equal(caps_byte3(s->ph.h.p1) & 0x01, 0); /* PTPL_A */
	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_true(file_exists(s->file));
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER_IGNORE, 0, 0, 0xb2, B20_APTPL, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(s->ph.h.p1, 0xa1, T_WE_RO), SAM_STAT_GOOD);
	assert_int_equal(caps_byte3(s->ph.h.p1) & 0x01, 0x01);
	n1 = full_status(s->ph.p3, before, sizeof(before));

	st_stop(s);
	st_start(s);
	n2 = full_status(s->ph.p3, after, sizeof(after));
	assert_int_equal(n1, n2);
	assert_int_equal(get_be32(after), 0);
	assert_memory_equal(before + 4, after + 4, n1 - 4);
	assert_int_equal(caps_byte3(s->ph.h.p1) & 0x01, 0x01);
	/* the restored holder and registrant work as before */
	assert_int_equal(h_write1(s->ph.h.p1, &r), SAM_STAT_GOOD);
	assert_int_equal(h_write1(s->ph.h.p2, &r), SAM_STAT_GOOD);
	assert_int_equal(h_write1(s->ph.p3, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(prout(s->ph.h.p1, PRO_RELEASE, T_WE_RO, 0xa1, 0, 0, &r), SAM_STAT_GOOD);
}

/* The last APTPL bit 0: the file goes, nothing survives (SPC-4 5.13.5). */
static void test_aptpl_off(void **state)
{
	struct st_harness *s = *state;
	struct loop_result r;

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_true(file_exists(s->file));
	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0xa1, 0xa2, 0, &r), SAM_STAT_GOOD);
	assert_false(file_exists(s->file));
	assert_int_equal(caps_byte3(s->ph.h.p1) & 0x01, 0);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
}

/* REGISTER AND MOVE carries its own APTPL bit (byte 17). */
static void test_aptpl_register_and_move(void **state)
{
	struct st_harness *s = *state;
	uint8_t list[24 + 32] = {0};
	struct loop_result r;
	uint64_t key;

	assert_int_equal(pr_register(s->ph.h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(s->ph.h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	assert_false(file_exists(s->file));
	put_be64(list, 0xa1);
	put_be64(list + 8, 0xb2);
	list[17] = 0x01; /* APTPL */
	put_be16(list + 18, 1);
	put_be32(list + 20, 32);
	list[24] = 0x45;
	put_be16(list + 26, 28);
	memcpy(list + 28, "iqn.test:b,i,0x000000000001", 27);
	assert_int_equal(prout_raw(s->ph.h.p1, PRO_REGISTER_AND_MOVE, T_EA, list, sizeof(list), &r),
			 SAM_STAT_GOOD);
	assert_true(file_exists(s->file));
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_resv(s->ph.h.p1, &key), T_EA);
	assert_int_equal(key, 0xb2);
	assert_int_equal(h_read1(s->ph.h.p2, &r), SAM_STAT_GOOD);
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

/* A fresh LU over the directory: scsi_lu_pr_store()'s verdict. */
static int try_load(struct st_harness *s)
{
	struct scsi_lu_attrs a = h_attrs();
	struct scsi_lu *lu;
	int rc;

	assert_int_equal(scsi_lu_create("lux", fake_bs_create(1 << 20, 0), &a, &lu), 0);
	rc = scsi_lu_pr_store(lu, s->dir);
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
	struct st_harness *s = *state;
	uint8_t good[1024], bad[1024];
	struct loop_result r;
	size_t n;

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER, 0, 0, 0xb2, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(s->ph.h.p2, 0xb2, T_EA), SAM_STAT_GOOD);
	st_stop(s);
	n = read_file(s->file, good, sizeof(good));
	assert_int_equal(try_load(s), 0);

	/* torn: every prefix */
	for (size_t k = 0; k < n; k += 7) {
		write_file(s->file, good, k);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* one flipped bit anywhere */
	for (size_t k = 0; k < n; k += 5) {
		memcpy(bad, good, n);
		bad[k] ^= 0x10;
		write_file(s->file, bad, n);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* checksum right, contents wrong: unknown version, type 2 (obsolete),
	 * a holder index out of range, a zero key */
	static const struct {
		size_t off;
		uint8_t val;
	} edits[] = {{7, 2}, {17, 2}, {27, 9}, {32 + 7, 0}};
	for (size_t e = 0; e < sizeof(edits) / sizeof(edits[0]); e++) {
		memcpy(bad, good, n);
		if (edits[e].off == 32 + 7)
			memset(bad + 32, 0, 8);
		else
			bad[edits[e].off] = edits[e].val;
		fix_crc(bad, n);
		write_file(s->file, bad, n);
		assert_int_equal(try_load(s), -EBADMSG);
	}
	/* the intact file still loads: nothing was half applied anywhere */
	write_file(s->file, good, n);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 2);
	assert_int_equal(pr_resv(s->ph.h.p1, NULL), T_EA);
}

/* A write that fails (the state directory is gone) fails the PR OUT and
 * leaves the state as the file has it. */
static void test_write_failure_rolls_back(void **state)
{
	struct st_harness *s = *state;
	struct loop_result r;
	uint64_t keys[16];

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(unlink(s->file), 0);
	assert_int_equal(rmdir(s->dir), 0);
	prout(s->ph.h.p2, PRO_REGISTER, 0, 0, 0xb2, B20_APTPL, &r);
	h_expect_sense(&r, 0x4, 0x44, 0x00);
	assert_int_equal(pr_keys(s->ph.h.p1, keys, NULL), 1);
	assert_int_equal(keys[0], 0xa1);
	prout(s->ph.h.p1, PRO_RESERVE, T_WE, 0xa1, 0, 0, &r);
	h_expect_sense(&r, 0x4, 0x44, 0x00);
	assert_int_equal(pr_resv(s->ph.h.p1, NULL), 0);
	/* back again */
	assert_int_equal(mkdir(s->dir, 0700), 0);
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER, 0, 0, 0xb2, B20_APTPL, &r), SAM_STAT_GOOD);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 2);
}

/* PR OUTs from two I_T nexuses at once: every one completes GOOD after its
 * change is durable; the file ends equal to the state. */
static void test_concurrent_writes(void **state)
{
	struct st_harness *s = *state;
	uint8_t lists[2][40][24], before[512], after[512];
	struct loop_task *t[2][40];
	struct loop_port *ports[2] = {s->ph.h.p1, s->ph.h.p2};
	uint8_t cdb[10] = {0x5f, PRO_REGISTER_IGNORE, 0, 0, 0, 0, 0, 0, 24, 0};
	struct loop_result r;
	unsigned n1, n2;

	for (int i = 0; i < 40; i++) {
		for (int p = 0; p < 2; p++) {
			memset(lists[p][i], 0, 24);
			put_be64(lists[p][i] + 8, (uint64_t)(p + 1) << 32 | (uint64_t)(i + 1));
			lists[p][i][20] = B20_APTPL;
			t[p][i] =
			    loop_submit_async(ports[p], 0, cdb, 10, SCSI_DIR_WRITE, lists[p][i], 24,
					      SCSI_ATTR_SIMPLE, (uint64_t)(100 + i), 0);
			assert_non_null(t[p][i]);
		}
	}
	for (int i = 0; i < 40; i++) {
		for (int p = 0; p < 2; p++) {
			loop_wait(t[p][i], &r);
			assert_int_equal(r.status, SAM_STAT_GOOD);
		}
	}
	n1 = full_status(s->ph.p3, before, sizeof(before));
	st_stop(s);
	st_start(s);
	n2 = full_status(s->ph.p3, after, sizeof(after));
	assert_int_equal(n1, n2);
	assert_memory_equal(before + 4, after + 4, n1 - 4);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 2);
}

/* A temporary file a crash left behind is never taken for the state: the
 * ones of the current form (lib/atomic_file.h) are removed at start; a
 * file at the fixed name earlier versions used is neither read nor
 * removed. */
static void test_stale_temp_file(void **state)
{
	struct st_harness *s = *state;
	char tmp[200], legacy[200];
	uint8_t junk[4] = {1, 2, 3, 4};

	st_stop(s);
	snprintf(tmp, sizeof(tmp),
		 "%s/.pr-60014050aabbccdd0011223344556677.state.tmp.0123456789abcdef", s->dir);
	snprintf(legacy, sizeof(legacy), "%s/.pr-60014050aabbccdd0011223344556677.state.tmp",
		 s->dir);
	write_file(tmp, junk, sizeof(junk));
	write_file(legacy, junk, sizeof(junk));
	st_start(s);
	assert_false(file_exists(tmp));
	assert_true(file_exists(legacy));
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
}

static void expect_regular_0600(const char *path)
{
	struct stat sb;

	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
}

/* What someone prepared in the state directory while the daemon runs, at
 * the temporary name the state file's writes used to have: a symbolic link
 * to a file of theirs is not written through (and does not become the
 * state file); a stale world-writable file there does not lend the state
 * file its mode. The state file is a regular file of mode 0600 whatever
 * the umask. */
static void test_prepared_temp_names(void **state)
{
	struct st_harness *s = *state;
	char legacy[200], victim[200], buf[16] = {0};
	struct loop_result r;
	mode_t old;
	int fd;

	snprintf(legacy, sizeof(legacy), "%s/.pr-60014050aabbccdd0011223344556677.state.tmp",
		 s->dir);
	snprintf(victim, sizeof(victim), "%s/victim", s->dir);
	write_file(victim, (const uint8_t *)"not yours", 9);
	assert_int_equal(symlink(victim, legacy), 0);
	old = umask(0);
	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	fd = open(victim, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 9);
	close(fd);
	assert_memory_equal(buf, "not yours", 9);
	expect_regular_0600(s->file);

	/* a stale file of mode 0666 at that name; a restrictive umask */
	assert_int_equal(unlink(legacy), 0);
	write_file(legacy, (const uint8_t *)"old", 3);
	assert_int_equal(chmod(legacy, 0666), 0);
	umask(0277);
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER_IGNORE, 0, 0, 0xb2, B20_APTPL, &r),
			 SAM_STAT_GOOD);
	umask(old);
	expect_regular_0600(s->file);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_aptpl_restart, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_off, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_register_and_move, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_file_refused, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_write_failure_rolls_back, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_concurrent_writes, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_stale_temp_file, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_prepared_temp_names, st_setup, st_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
