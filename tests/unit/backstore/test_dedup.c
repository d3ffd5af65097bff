/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dedup.c: the deduplicating chunk store (backstore/dedup_store.h).
 *
 *   volume "a" --\
 *                 +--> store dir: chunks.dat (4 KiB slots) + journal
 *   volume "b" --/
 *
 * Data checked against an in-memory mirror; crashes are a child process
 * that _exit()s with writes not yet committed; fsck after each. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backstore/backstore.h"
#include "backstore/dedup_store.h"

#define MIB (1024u * 1024u)
#define VOL (8u * MIB)

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ut-dedup-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[96];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct dd_vol *vopen(const char *name, uint64_t size)
{
	struct dd_vol *v;

	assert_int_equal(dd_vol_open(dir, name, size, &v), 0);
	return v;
}

static void wr(struct dd_vol *v, uint64_t off, const void *buf, size_t len)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};

	assert_int_equal(dd_write(v, off, len, &iov, 1, false), 0);
}

static void rd_check(struct dd_vol *v, uint64_t off, const void *want, size_t len)
{
	uint8_t *got = malloc(len);
	struct iovec iov[2] = {{got, len / 2}, {got + len / 2, len - len / 2}};

	assert_non_null(got);
	assert_int_equal(dd_read(v, off, len, iov, 2), 0);
	assert_memory_equal(got, want, len);
	free(got);
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 2654435761u + seed * 40503u) >> 7) | 1;
}

static void fsck_clean(struct dd_vol *v, struct dd_fsck *r)
{
	assert_int_equal(dd_fsck(v, r), 0);
	assert_int_equal(r->leaked, 0);
	assert_int_equal(r->missing, 0);
	assert_int_equal(r->corrupt, 0);
	assert_int_equal(r->ref_mismatch, 0);
}

/* Random 512-byte-aligned writes, zeroes and reads against a mirror, with
 * reopens in between: what was written reads back, fsck stays clean. */
static void test_random_mirror(void **state)
{
	uint8_t *mirror = calloc(1, VOL), *buf = malloc(256 * 1024);
	struct dd_vol *v = vopen("a", VOL);
	struct dd_fsck r;
	unsigned seed = 7;

	(void)state;
	assert_non_null(mirror);
	assert_non_null(buf);
	for (int i = 0; i < 3000; i++) {
		uint64_t off = (uint64_t)(rand_r(&seed) % (VOL / 512)) * 512;
		size_t len = (size_t)(1 + rand_r(&seed) % 64) * 512;
		int kind = rand_r(&seed) % 10;

		if (off + len > VOL)
			len = VOL - off;
		if (kind < 5) {
			/* a few distinct patterns: duplicates on purpose */
			fill(buf, len, (unsigned)(rand_r(&seed) % 4));
			wr(v, off, buf, len);
			memcpy(mirror + off, buf, len);
		} else if (kind < 6) {
			assert_int_equal(dd_zero(v, off, len), 0);
			memset(mirror + off, 0, len);
		} else {
			rd_check(v, off, mirror + off, len);
		}
		if (i % 1000 == 999) {
			assert_int_equal(dd_flush(v), 0);
			fsck_clean(v, &r);
			dd_vol_close(v);
			v = vopen("a", VOL);
			rd_check(v, 0, mirror, VOL);
		}
	}
	fsck_clean(v, &r);
	assert_true(r.live < r.logical); /* the patterns repeat */
	dd_vol_close(v);
	free(mirror);
	free(buf);
}

/* Two volumes with the same 2 MiB take one copy of space. */
static void test_two_volumes_share(void **state)
{
	struct dd_vol *a = vopen("a", VOL), *b = vopen("b", VOL);
	uint8_t *img = malloc(2 * MIB);
	struct dd_usage u;
	struct dd_fsck r;

	(void)state;
	for (size_t i = 0; i < 2 * MIB; i += DD_CHUNK)
		fill(img + i, DD_CHUNK, (unsigned)(i / DD_CHUNK) + 100);
	wr(a, 0, img, 2 * MIB);
	wr(b, 4 * MIB, img, 2 * MIB);
	dd_usage(a, &u);
	assert_int_equal(u.unique, 2 * MIB);
	assert_int_equal(u.logical, 4 * MIB);
	assert_int_equal(u.vol_mapped, 2 * MIB);
	assert_int_equal(u.written, 2 * MIB); /* b's data was never written */
	assert_int_equal(u.deduped, 512);
	rd_check(b, 4 * MIB, img, 2 * MIB);
	/* b by reference from a: no chunk written */
	assert_int_equal(dd_copy(b, 0, a, 0, 2 * MIB), 0);
	dd_usage(a, &u);
	assert_int_equal(u.written, 2 * MIB);
	assert_int_equal(u.logical, 6 * MIB);
	rd_check(b, 0, img, 2 * MIB);
	/* unaligned to each other: by data */
	assert_int_equal(dd_copy(b, 512, a, 0, 64 * 1024), 0);
	rd_check(b, 512, img, 64 * 1024);
	/* a is dropped; b keeps the chunks alive */
	assert_int_equal(dd_zero(a, 0, 2 * MIB), 0);
	assert_int_equal(dd_flush(a), 0);
	rd_check(b, 4 * MIB, img, 2 * MIB);
	fsck_clean(a, &r);
	assert_int_equal(r.volumes, 2);
	dd_vol_close(a);
	dd_vol_close(b);
	free(img);
}

/* WRITE SAME of one block: one chunk stored, references for the rest. */
static void test_write_same(void **state)
{
	struct dd_vol *v = vopen("a", VOL);
	uint8_t blk[512], *want = malloc(MIB + 1024);
	struct dd_usage u;
	struct dd_fsck r;
	bool mapped;
	uint64_t len;

	(void)state;
	fill(blk, sizeof(blk), 3);
	for (size_t i = 0; i < MIB + 1024; i += 512)
		memcpy(want + i, blk, 512);
	/* 512 bytes in: a partial head and tail chunk */
	assert_int_equal(dd_write_same(v, 512, MIB + 1024, blk, 512, false), 0);
	rd_check(v, 512, want, MIB + 1024);
	dd_usage(v, &u);
	assert_int_equal(u.unique, 3 * DD_CHUNK); /* head, the repeated chunk, tail */
	assert_int_equal(u.logical, MIB + DD_CHUNK);
	assert_int_equal(dd_map_status(v, 0, VOL, &len, &mapped), 0);
	assert_true(mapped);
	assert_int_equal(len, MIB + DD_CHUNK);
	assert_int_equal(dd_map_status(v, MIB + DD_CHUNK, VOL, &len, &mapped), 0);
	assert_false(mapped);
	assert_int_equal(len, VOL - MIB - DD_CHUNK);
	/* zeroes: nothing stored */
	memset(blk, 0, sizeof(blk));
	assert_int_equal(dd_write_same(v, 0, 2 * MIB, blk, 512, true), 0);
	dd_usage(v, &u);
	assert_int_equal(u.logical, 0);
	assert_int_equal(u.unique, 0);
	fsck_clean(v, &r);
	dd_vol_close(v);
	free(want);
}

/* In a child: apply writes, commit some, _exit() without closing (the
 * journal records not committed die with the process, as in kill -9). */
static void crash_child(void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static uint8_t blk_a[DD_CHUNK], blk_b[DD_CHUNK], blk_c[DD_CHUNK];

static const uint8_t zero4k[DD_CHUNK];

/* A's last reference goes with B, then C is stored: C must not land in
 * A's slot before the journal saying A is free is durable. */
static void child_reuse(void)
{
	struct dd_vol *v;
	struct iovec iov;

	if (dd_vol_open(dir, "a", VOL, &v))
		_exit(1);
	iov = (struct iovec){blk_a, DD_CHUNK};
	if (dd_write(v, 0, DD_CHUNK, &iov, 1, false) || dd_flush(v))
		_exit(2);
	iov = (struct iovec){blk_b, DD_CHUNK};
	if (dd_write(v, 0, DD_CHUNK, &iov, 1, false))
		_exit(3);
	iov = (struct iovec){blk_c, DD_CHUNK};
	if (dd_write(v, DD_CHUNK, DD_CHUNK, &iov, 1, false))
		_exit(4);
	_exit(0); /* nothing since the flush committed */
}

/* FUA commits what came before it; what comes after dies. */
static void child_fua(void)
{
	struct dd_vol *v;
	struct iovec iov = {blk_b, DD_CHUNK};

	if (dd_vol_open(dir, "a", VOL, &v))
		_exit(1);
	if (dd_write(v, 0, DD_CHUNK, &iov, 1, false))
		_exit(2);
	iov = (struct iovec){blk_c, DD_CHUNK};
	if (dd_write(v, DD_CHUNK, DD_CHUNK, &iov, 1, true))
		_exit(3);
	iov = (struct iovec){blk_a, DD_CHUNK};
	if (dd_write(v, 2 * DD_CHUNK, DD_CHUNK, &iov, 1, false) || dd_zero(v, 0, DD_CHUNK))
		_exit(4);
	_exit(0);
}

static void test_crash(void **state)
{
	struct dd_vol *v;
	struct dd_fsck r;

	(void)state;
	fill(blk_a, DD_CHUNK, 11);
	fill(blk_b, DD_CHUNK, 12);
	fill(blk_c, DD_CHUNK, 13);
	crash_child(child_reuse);
	v = vopen("a", VOL);
	rd_check(v, 0, blk_a, DD_CHUNK);
	rd_check(v, DD_CHUNK, zero4k, DD_CHUNK);
	fsck_clean(v, &r);
	assert_int_equal(r.live, 1);
	dd_vol_close(v);
	crash_child(child_fua);
	v = vopen("a", VOL);
	rd_check(v, 0, blk_b, DD_CHUNK);
	rd_check(v, DD_CHUNK, blk_c, DD_CHUNK);
	rd_check(v, 2 * DD_CHUNK, zero4k, DD_CHUNK);
	fsck_clean(v, &r);
	assert_int_equal(r.live, 2);
	dd_vol_close(v);
}

/* A torn journal tail (a commit cut short) is dropped at open. */
static void test_torn_tail(void **state)
{
	struct dd_vol *v = vopen("a", VOL);
	char path[128];
	uint8_t junk[100];
	struct dd_fsck r;
	int fd;

	(void)state;
	fill(blk_a, DD_CHUNK, 21);
	wr(v, 0, blk_a, DD_CHUNK);
	dd_vol_close(v);
	snprintf(path, sizeof(path), "%s/journal", dir);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	v = vopen("a", VOL);
	rd_check(v, 0, blk_a, DD_CHUNK);
	fsck_clean(v, &r);
	dd_vol_close(v);
}

/* fsck sees damaged data; a volume is open once; no shrinking. */
static void test_fsck_and_rules(void **state)
{
	struct dd_vol *v = vopen("a", VOL), *w;
	char path[128];
	struct dd_fsck r;
	int fd;

	(void)state;
	assert_int_equal(dd_vol_open(dir, "a", VOL, &w), -EBUSY);
	fill(blk_a, DD_CHUNK, 31);
	wr(v, 0, blk_a, DD_CHUNK);
	assert_int_equal(dd_flush(v), 0);
	snprintf(path, sizeof(path), "%s/chunks.dat", dir);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, DD_CHUNK + 5), 1); /* slot 1 */
	close(fd);
	assert_int_equal(dd_fsck(v, &r), 0);
	assert_int_equal(r.corrupt, 1);
	assert_int_equal(r.leaked, 0);
	dd_vol_close(v);
	assert_int_equal(dd_vol_open(dir, "a", VOL / 2, &w), -EINVAL);
	v = vopen("a", 2 * VOL); /* grows */
	assert_int_equal(dd_vol_size(v), 2 * VOL);
	dd_vol_close(v);
	/* 64 GiB never written: one answer, its leaves skipped whole; then one
	 * chunk written at 40 GiB ends the first run there */
	{
		uint64_t big = 64ull << 30, len;
		bool mapped;

		v = vopen("big", big);
		assert_int_equal(dd_map_status(v, 0, big, &len, &mapped), 0);
		assert_false(mapped);
		assert_int_equal(len, big);
		wr(v, 40ull << 30, blk_a, DD_CHUNK);
		assert_int_equal(dd_map_status(v, 512, big, &len, &mapped), 0);
		assert_false(mapped);
		assert_int_equal(len, (40ull << 30) - 512);
		assert_int_equal(dd_map_status(v, 40ull << 30, big, &len, &mapped), 0);
		assert_true(mapped);
		assert_int_equal(len, DD_CHUNK);
		dd_vol_close(v);
	}
}

/* Threads writing, zeroing, copying and flushing two volumes at once, each
 * in its own region, while commits compact the journal (a threshold of
 * 64 KiB): every region reads back, fsck is clean, the journal was
 * rewritten under them, and a reopen replays the same. */
#define NTHR   4
#define REGION (VOL / NTHR)
static struct dd_vol *cv[2];
static uint8_t *cmirror[2];

static void *conc_worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id * 77 + 1;
	uint8_t buf[16 * 1024];

	for (int i = 0; i < 1500; i++) {
		unsigned w = rand_r(&seed) % 2, kind = (unsigned)rand_r(&seed) % 8;
		uint64_t base = (uint64_t)id * REGION;
		/* the first 512 KiB of the region: many records over a small
		 * state, so that the journal outgrows it */
		uint64_t off = base + (uint64_t)(rand_r(&seed) % (1024 - 32)) * 512;
		size_t len = (size_t)(1 + rand_r(&seed) % 32) * 512;
		struct iovec iov = {buf, len};

		if (kind < 4) {
			fill(buf, len, (unsigned)rand_r(&seed) % 3);
			if (dd_write(cv[w], off, len, &iov, 1, kind == 0))
				return (void *)1;
			memcpy(cmirror[w] + off, buf, len);
		} else if (kind == 4) {
			if (dd_zero(cv[w], off, len))
				return (void *)2;
			memset(cmirror[w] + off, 0, len);
		} else if (kind == 5) {
			/* the other volume's same range, by reference where aligned */
			if (dd_copy(cv[w], off, cv[!w], off, len))
				return (void *)3;
			memcpy(cmirror[w] + off, cmirror[!w] + off, len);
		} else if (kind == 6) {
			if (dd_flush(cv[w]))
				return (void *)4;
		} else {
			if (dd_read(cv[w], off, len, &iov, 1) || memcmp(buf, cmirror[w] + off, len))
				return (void *)5;
		}
	}
	return NULL;
}

static void test_concurrent_compaction(void **state)
{
	pthread_t t[NTHR];
	struct dd_usage u0, u1;
	struct dd_fsck r;

	(void)state;
	dd_set_compact_min(64 * 1024);
	cv[0] = vopen("a", VOL);
	cv[1] = vopen("b", VOL);
	cmirror[0] = calloc(1, VOL);
	cmirror[1] = calloc(1, VOL);
	assert_non_null(cmirror[0]);
	assert_non_null(cmirror[1]);
	dd_usage(cv[0], &u0);
	for (uintptr_t i = 0; i < NTHR; i++)
		assert_int_equal(pthread_create(&t[i], NULL, conc_worker, (void *)i), 0);
	for (int i = 0; i < NTHR; i++) {
		void *rc;

		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
	}
	assert_int_equal(dd_flush(cv[0]), 0);
	dd_usage(cv[0], &u1);
	/* the commits compacted the journal under the writers */
	assert_true(u1.commits > u0.commits);
	assert_true(u1.compactions > u0.compactions);
	print_message("%llu commits, %llu compactions under 4 writers\n",
		      (unsigned long long)(u1.commits - u0.commits),
		      (unsigned long long)(u1.compactions - u0.compactions));
	rd_check(cv[0], 0, cmirror[0], VOL);
	rd_check(cv[1], 0, cmirror[1], VOL);
	fsck_clean(cv[0], &r);
	dd_vol_close(cv[0]);
	dd_vol_close(cv[1]);
	cv[0] = vopen("a", VOL);
	cv[1] = vopen("b", VOL);
	rd_check(cv[0], 0, cmirror[0], VOL);
	rd_check(cv[1], 0, cmirror[1], VOL);
	fsck_clean(cv[1], &r);
	dd_vol_close(cv[0]);
	dd_vol_close(cv[1]);
	free(cmirror[0]);
	free(cmirror[1]);
	dd_set_compact_min(0);
}

/* Through bs_open: the type's checks. */
static void test_bs_open(void **state)
{
	struct bs_params p = {.type = "dedup", .name = "d", .path = dir, .size = VOL};
	struct bs_dev *dev;
	struct bs_fact f[BS_FACTS_MAX];
	size_t n;

	(void)state;
	assert_int_equal(bs_open(&p, &dev), 0);
	assert_true(dev->caps & BS_CAP_COPY);
	assert_true(dev->caps & BS_CAP_WRITE_CACHE);
	n = dev->ops->facts(dev, f, BS_FACTS_MAX);
	assert_true(n >= 5);
	assert_string_equal(f[0].key, "store");
	assert_int_equal(dev->ops->check(dev, f, BS_FACTS_MAX, &n), 0);
	assert_int_equal(n, 8);
	bs_close(dev);
	p.size = 0;
	assert_int_equal(bs_open(&p, &dev), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_random_mirror, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_volumes_share, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_same, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_torn_tail, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fsck_and_rules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_concurrent_compaction, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bs_open, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
