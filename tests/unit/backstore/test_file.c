/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/file.c. Every data-path test runs twice: on a
 * reactor with io_uring (when the machine has it) and on one without, where
 * requests go through the worker pool; a trace hook checks which path
 * carried each request and with which RWF flags. READs of cached data and
 * WRITEs of whole pages are first tried inline on the reactor thread ('i');
 * the tests that check the queued paths use unaligned writes and data evicted
 * from the page cache. The images live in /var/tmp, on disk (FHS): on a
 * memory file system every READ is inline (test_mem_reads). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/compiler.h"
#include "scsi/bs.h"

static struct {
	char last_path; /* 'u' io_uring, 'w' worker pool, 's' synchronous, 'i' inline */
	int last_flags;
	int count[128];
} trace;

static void trace_note(char path, int flags)
{
	trace.last_path = path;
	trace.last_flags = flags;
	trace.count[(unsigned char)path & 127]++;
}

#define FILE_TRACE(io, path, rwflags) trace_note((path), (rwflags))
#include "backstore/file.c"
#include "bs_harness.h"

#include <liburing.h>

#define MiB (1024u * 1024u)

enum mode { MODE_URING, MODE_WORKQ };

struct fix {
	enum mode mode;
	char path_kind; /* what carries data-path requests in this mode */
	struct reactor *r;
	struct bs_dev *dev;
	struct file_dev *f;
	char dir[64];
	char path[128];
};

static struct reactor *make_reactor(enum mode mode, char *kind)
{
	struct reactor *r;

	if (mode == MODE_WORKQ)
		setenv("UTARGET_NO_IO_URING", "1", 1);
	assert_int_equal(reactor_create(&r, 0), 0);
	unsetenv("UTARGET_NO_IO_URING");
	if (mode == MODE_WORKQ) {
		assert_false(reactor_has_uring(r));
	} else if (!reactor_has_uring(r)) {
		/* Only where io_uring really is unavailable. */
		struct io_uring ring;
		int rc = io_uring_queue_init(8, &ring, 0);

		if (rc == 0)
			io_uring_queue_exit(&ring);
		assert_true(rc < 0);
	}
	*kind = reactor_has_uring(r) ? 'u' : 'w';
	return r;
}

static struct bs_dev *open_file(struct fix *fx, const char *path, uint64_t size, bool create,
				bool ro, uint32_t bs, int *rc)
{
	struct bs_params p = {
	    .type = "file",
	    .name = "f0",
	    .path = path,
	    .size = size,
	    .create = create,
	    .readonly = ro,
	    .block_size = bs,
	};
	struct bs_dev *dev = NULL;

	*rc = bs_open(&p, &dev);
	return dev;
}

static int setup_dir(struct fix *fx, const char *base)
{
	snprintf(fx->dir, sizeof(fx->dir), "%s/ut-file-XXXXXX", base);
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/lun0.img", fx->dir);
	return 0;
}

static int setup(void **state)
{
	struct fix *fx = calloc(1, sizeof(*fx));
	int rc;

	fx->mode = *(enum mode *)*state;
	setup_dir(fx, "/var/tmp");
	fx->r = make_reactor(fx->mode, &fx->path_kind);
	fx->dev = open_file(fx, fx->path, 8 * MiB, true, false, 512, &rc);
	assert_int_equal(rc, 0);
	fx->f = container_of(fx->dev, struct file_dev, dev);
	memset(&trace, 0, sizeof(trace));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fix *fx = *state;

	bs_close(fx->dev);
	unlink(fx->path);
	rmdir(fx->dir);
	reactor_destroy(fx->r);
	free(fx);
	return 0;
}

static int do_io(struct fix *fx, uint8_t op, uint64_t off, uint64_t len, void *buf, uint8_t fl)
{
	struct h_io h;

	h_init(&h, op, off, len, buf);
	h.io.flags = fl;
	return h_do(fx->r, fx->dev, &h);
}

static void map_status(struct fix *fx, uint64_t off, bool *mapped, uint64_t *len)
{
	struct h_io h;

	h_init(&h, BS_OP_MAP_STATUS, off, 0, NULL);
	assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
	assert_int_equal(trace.last_path, 'w'); /* lseek: always the worker pool */
	*mapped = h.io.mapped;
	*len = h.io.map_len;
}

/* Whether no page of [off, off + len) is in the page cache (mincore: a
 * probing read would start readahead). */
static bool uncached(struct fix *fx, uint64_t off, uint64_t len)
{
	size_t n = (size_t)(len + 4095) / 4096;
	unsigned char vec[1024];
	void *p;
	bool none = true;

	assert_true(off % 4096 == 0 && n <= sizeof(vec));
	p = mmap(NULL, n * 4096, PROT_READ, MAP_SHARED, fx->f->fd, (off_t)off);
	assert_true(p != MAP_FAILED);
	assert_int_equal(mincore(p, n * 4096, vec), 0);
	for (size_t i = 0; i < n; i++)
		none = none && !(vec[i] & 1);
	munmap(p, n * 4096);
	return none;
}

/* Write back and drop the file from the page cache (the whole file: a large
 * folio is only dropped whole), until no page of [off, off + len) is cached.
 * False where pages cannot be dropped (tmpfs): the caller then cannot test a
 * cache miss. */
static bool evict(struct fix *fx, uint64_t off, uint64_t len)
{
	for (int tries = 0; tries < 10; tries++) {
		assert_int_equal(fdatasync(fx->f->fd), 0);
		assert_int_equal(posix_fadvise(fx->f->fd, 0, 0, POSIX_FADV_DONTNEED), 0);
		if (uncached(fx, off, len))
			return true;
	}
	fprintf(stderr, "note: cannot drop pages of %s from the page cache\n", fx->path);
	return false;
}

static blkcnt_t file_blocks(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_blocks;
}

/* ---- data path, both modes ---- */

static void test_create_and_caps(void **state)
{
	struct fix *fx = *state;
	struct stat st;

	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_size, 8 * MiB);
	assert_int_equal(st.st_blocks, 0); /* sparse */
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fx->dev->size, 8 * MiB);
	/* /var/tmp here punches holes (ext4/tmpfs/xfs/btrfs all do). */
	assert_int_equal(fx->dev->caps, BS_CAP_FLUSH | BS_CAP_WRITE_CACHE | BS_CAP_FUA |
					    BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS |
					    BS_CAP_DISCARD);
	assert_string_equal(fx->dev->type, "file");
	assert_non_null(fx->dev->ops->resize);
}

static void test_write_read(void **state)
{
	struct fix *fx = *state;
	enum { LEN = 24 * 1024 };
	uint8_t src[LEN], dst[LEN], disk[LEN];
	struct h_io h;

	h_pattern(src, LEN, 11);
	h_init(&h, BS_OP_WRITE, MiB + 512, LEN, NULL);
	h.iov[0] = (struct iovec){src, 100};
	h.iov[1] = (struct iovec){src + 100, 9000};
	h.iov[2] = (struct iovec){src + 9100, LEN - 9100};
	h.io.iovcnt = 3;
	assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(trace.last_flags, 0);
	assert_int_equal(pread(fx->f->fd, disk, LEN, MiB + 512), LEN);
	assert_memory_equal(disk, src, LEN);

	/* Cached, read inline; evicted, tried inline first, then queued
	 * unless the readahead that the RWF_NOWAIT miss started was already
	 * done (a fast disk). Either way the same data. */
	for (int pass = 0; pass < 2; pass++) {
		int tried = trace.count['i'];

		if (pass == 1 && !evict(fx, MiB, LEN + 4096))
			break;
		memset(dst, 0xee, LEN);
		h_init(&h, BS_OP_READ, MiB + 512, LEN, NULL);
		h.iov[0] = (struct iovec){dst, 4096};
		h.iov[1] = (struct iovec){dst + 4096, 0};
		h.iov[2] = (struct iovec){dst + 4096, LEN - 4096};
		h.io.iovcnt = 3;
		assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
		assert_int_equal(trace.count['i'], tried + 1);
		if (pass == 0)
			assert_int_equal(trace.last_path, 'i');
		else
			assert_true(trace.last_path == 'i' || trace.last_path == fx->path_kind);
		assert_memory_equal(dst, src, LEN);
		assert_int_equal(h.io.bad_off, UINT64_MAX);
	}

	/* FUA: the write carries RWF_DSYNC on either path. */
	h_pattern(src, 4096, 12);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 0, 4096, src, BS_IO_FUA), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(trace.last_flags, RWF_DSYNC);
	assert_int_equal(do_io(fx, BS_OP_READ, 0, 4096, dst, 0), 0);
	assert_memory_equal(dst, src, 4096);

	/* The last block of the device. */
	assert_int_equal(do_io(fx, BS_OP_WRITE, 8 * MiB - 512, 512, src, 0), 0);
	assert_int_equal(do_io(fx, BS_OP_READ, 8 * MiB - 512, 512, dst, 0), 0);
	assert_memory_equal(dst, src, 512);

	assert_int_equal(do_io(fx, BS_OP_FLUSH, 0, 0, NULL, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
}

/* Many requests in flight at once, completing in any order. */
static void test_many_in_flight(void **state)
{
	struct fix *fx = *state;
	enum { N = 64, BS = 4096 };
	static uint8_t src[N][BS], dst[N][BS];
	static struct h_io hs[N];
	struct h_io *ptrs[N];

	for (int i = 0; i < N; i++) {
		h_pattern(src[i], BS, 100 + (uint32_t)i);
		h_init(&hs[i], BS_OP_WRITE, (uint64_t)i * 3 * BS, BS, src[i]);
		ptrs[i] = &hs[i];
	}
	assert_int_equal(h_run(fx->r, fx->dev, ptrs, N), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(hs[i].err, 0);
		h_init(&hs[i], BS_OP_READ, (uint64_t)i * 3 * BS, BS, dst[i]);
	}
	assert_int_equal(h_run(fx->r, fx->dev, ptrs, N), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(hs[i].err, 0);
		assert_memory_equal(src[i], dst[i], BS);
	}
}

/* More iovecs than one preadv/pwritev takes (IOV_MAX): the transfer
 * continues where the first call stopped. */
static void test_many_iovecs(void **state)
{
	struct fix *fx = *state;
	enum { NV = IOV_MAX + 76, SEG = 512 };
	uint8_t *src = malloc((size_t)NV * SEG), *dst = malloc((size_t)NV * SEG);
	struct iovec *v = calloc(NV, sizeof(*v));
	struct h_io h;

	h_pattern(src, (size_t)NV * SEG, 21);
	for (int i = 0; i < NV; i++)
		v[i] = (struct iovec){src + (size_t)i * SEG, SEG};
	h_init(&h, BS_OP_WRITE, 2 * MiB, (uint64_t)NV * SEG, NULL);
	h.io.iov = v;
	h.io.iovcnt = NV;
	assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
	assert_int_equal(trace.count[(unsigned char)fx->path_kind], fx->path_kind == 'u' ? 2 : 1);
	for (int i = 0; i < NV; i++)
		v[i] = (struct iovec){dst + (size_t)i * SEG, SEG};
	h_init(&h, BS_OP_READ, 2 * MiB, (uint64_t)NV * SEG, NULL);
	h.io.iov = v;
	h.io.iovcnt = NV;
	assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
	assert_memory_equal(src, dst, (size_t)NV * SEG);
	free(src);
	free(dst);
	free(v);
}

static void test_discard(void **state)
{
	struct fix *fx = *state;
	enum { LEN = 256 * 1024 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	bool mapped;
	uint64_t len;

	h_pattern(src, LEN, 31);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 2 * MiB, LEN, src, 0), 0);
	assert_int_equal(do_io(fx, BS_OP_FLUSH, 0, 0, NULL, 0), 0);
	blkcnt_t before = file_blocks(fx->path);

	assert_true(before >= LEN / 512);
	assert_int_equal(do_io(fx, BS_OP_DISCARD, 2 * MiB + 65536, 131072, NULL, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_true(file_blocks(fx->path) <= before - 131072 / 512); /* space freed */
	assert_int_equal(do_io(fx, BS_OP_READ, 2 * MiB, LEN, dst, 0), 0);
	assert_memory_equal(dst, src, 65536);
	assert_true(h_all_zero(dst + 65536, 131072));
	assert_memory_equal(dst + 196608, src + 196608, LEN - 196608);
	map_status(fx, 2 * MiB + 65536, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 131072);
	map_status(fx, 2 * MiB, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 65536);
	map_status(fx, 2 * MiB + 196608, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, LEN - 196608);
	free(src);
	free(dst);
}

static void test_write_zeroes(void **state)
{
	struct fix *fx = *state;
	enum { LEN = 128 * 1024 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);

	h_pattern(src, LEN, 41);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 3 * MiB, LEN, src, 0), 0);
	assert_int_equal(do_io(fx, BS_OP_WRITE_ZEROES, 3 * MiB + 4096, 65536, NULL, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(do_io(fx, BS_OP_READ, 3 * MiB, LEN, dst, 0), 0);
	assert_memory_equal(dst, src, 4096);
	assert_true(h_all_zero(dst + 4096, 65536));
	assert_memory_equal(dst + 69632, src + 69632, LEN - 69632);

	/* With ZERO_RANGE marked unusable: zeroes are written by a worker. */
	h_pattern(src, LEN, 42);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 3 * MiB, LEN, src, 0), 0);
	atomic_store(&fx->f->no_zero_range, true);
	assert_int_equal(do_io(fx, BS_OP_WRITE_ZEROES, 3 * MiB + 512, LEN - 1024, NULL, 0), 0);
	assert_int_equal(trace.last_path, 'w');
	assert_int_equal(do_io(fx, BS_OP_READ, 3 * MiB, LEN, dst, 0), 0);
	assert_memory_equal(dst, src, 512);
	assert_true(h_all_zero(dst + 512, LEN - 1024));
	assert_memory_equal(dst + LEN - 512, src + LEN - 512, 512);
	free(src);
	free(dst);
}

static void test_map_status_sparse(void **state)
{
	struct fix *fx = *state;
	uint8_t buf[4096];
	bool mapped;
	uint64_t len;

	map_status(fx, 0, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 8 * MiB);
	h_pattern(buf, sizeof(buf), 51);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 5 * MiB, sizeof(buf), buf, 0), 0);
	map_status(fx, 0, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 5 * MiB);
	map_status(fx, 4 * MiB + 512, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, MiB - 512);
	map_status(fx, 5 * MiB, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 4096);
	map_status(fx, 5 * MiB + 1024, &mapped, &len);
	assert_true(mapped);
	assert_int_equal(len, 3072);
	map_status(fx, 5 * MiB + 4096, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 3 * MiB - 4096);
	map_status(fx, 8 * MiB - 512, &mapped, &len);
	assert_false(mapped);
	assert_int_equal(len, 512);
}

/* The file shrank underneath: a read reaching its end is a medium error at
 * the first missing byte, on both paths. */
static void test_read_past_eof(void **state)
{
	struct fix *fx = *state;
	uint8_t buf[65536];
	struct h_io h;

	h_pattern(buf, sizeof(buf), 61);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 512 * 1024, sizeof(buf), buf, 0), 0);
	assert_int_equal(ftruncate(fx->f->fd, 512 * 1024 + 1000), 0);
	h_init(&h, BS_OP_READ, 512 * 1024, sizeof(buf), buf);
	trace.count['i'] = 0;
	assert_int_equal(h_do(fx->r, fx->dev, &h), -EIO);
	assert_int_equal(h.io.bad_off, 512 * 1024 + 1000);
	/* 1000 bytes inline, the rest queued, where the end of file shows */
	assert_int_equal(trace.count['i'], 1);
	assert_int_equal(trace.last_path, fx->path_kind);
}

/* Which READs and WRITEs run inline on the reactor thread, and that the
 * queued paths take over where an inline transfer stopped. */
static void test_inline(void **state)
{
	struct fix *fx = *state;
	enum { LEN = 64 * 1024 };
	uint8_t *src = malloc(FILE_INLINE_MAX + 4096), *dst = malloc(FILE_INLINE_MAX + 4096);
	int queued = trace.count[(unsigned char)fx->path_kind];

	/* Whole pages without FUA: inline, done before submit returns. */
	h_pattern(src, LEN, 91);
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB, LEN, src, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_int_equal(trace.count[(unsigned char)fx->path_kind], queued);
	assert_int_equal(do_io(fx, BS_OP_READ, MiB, LEN, dst, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_memory_equal(dst, src, LEN);
	/* A cached read needs no alignment. */
	assert_int_equal(do_io(fx, BS_OP_READ, MiB + 512, 1024, dst, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_memory_equal(dst, src + 512, 1024);

	/* Queued: part of a page, FUA, over FILE_INLINE_MAX. */
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB + 512, 4096, src, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB, 4096, src, BS_IO_FUA), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(trace.last_flags, RWF_DSYNC);
	h_pattern(src, FILE_INLINE_MAX + 4096, 92);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 2 * MiB, FILE_INLINE_MAX + 4096, src, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(do_io(fx, BS_OP_READ, 2 * MiB, FILE_INLINE_MAX + 4096, dst, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_memory_equal(dst, src, FILE_INLINE_MAX + 4096);

	/* Half cached (the first half written again after the eviction: a
	 * write reads nothing around it): the first half is read inline, the
	 * rest, when still not cached, queued from where it stopped. */
	if (evict(fx, 2 * MiB, LEN)) {
		assert_int_equal(pwrite(fx->f->fd, src, LEN / 2, 2 * MiB), LEN / 2);
		memset(dst, 0, LEN);
		trace.count['i'] = 0;
		queued = trace.count[(unsigned char)fx->path_kind];
		assert_int_equal(do_io(fx, BS_OP_READ, 2 * MiB, LEN, dst, 0), 0);
		assert_int_equal(trace.count['i'], 1);
		assert_true(trace.count[(unsigned char)fx->path_kind] <= queued + 1);
		assert_memory_equal(dst, src, LEN);
	}
	/* A short inline read (the file ends inside the range) goes on queued
	 * from where it stopped: test_read_past_eof. */
	free(src);
	free(dst);
}

/* A slow inline write turns inline writes off for the device for a while;
 * reads stay inline. */
static void test_inline_slow_write(void **state)
{
	struct fix *fx = *state;
	uint8_t src[8192], dst[8192];
	uint64_t until;

	h_pattern(src, sizeof(src), 93);
	/* every write counts as slow */
	file_inline_slow_ns = 0;
	file_inline_slow_ns_per_kib = 0;
	assert_int_equal(do_io(fx, BS_OP_WRITE, 0, 4096, src, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	file_inline_slow_ns = FILE_INLINE_SLOW_NS;
	file_inline_slow_ns_per_kib = FILE_INLINE_SLOW_NS_PER_KIB;
	until = atomic_load(&fx->f->inline_wr_off_until);
	assert_true(until > reactor_now_ns());
	assert_true(until <= reactor_now_ns() + FILE_INLINE_BACKOFF_NS);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 4096, 4096, src + 4096, 0), 0);
	assert_int_equal(trace.last_path, fx->path_kind);
	assert_int_equal(do_io(fx, BS_OP_READ, 0, 8192, dst, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_memory_equal(dst, src, sizeof(src));
	/* The back-off over: inline again. */
	atomic_store(&fx->f->inline_wr_off_until, reactor_now_ns() - 1);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 0, 4096, src, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_int_equal(atomic_load(&fx->f->inline_wr_off_until), 0);
}

/* Off any reactor, a request completes synchronously inside submit. */
static void test_no_reactor(void **state)
{
	struct fix *fx = *state;
	uint8_t src[4096], dst[4096];
	struct h_io h;

	h_pattern(src, sizeof(src), 71);
	h_init(&h, BS_OP_WRITE, 4096, sizeof(src), src);
	h.io.flags = BS_IO_FUA;
	bs_submit(fx->dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	assert_int_equal(trace.last_path, 's');
	assert_int_equal(trace.last_flags, RWF_DSYNC);
	h_init(&h, BS_OP_READ, 4096, sizeof(dst), dst);
	bs_submit(fx->dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	assert_memory_equal(src, dst, sizeof(src));
	h_init(&h, BS_OP_MAP_STATUS, 0, 0, NULL);
	bs_submit(fx->dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	assert_false(h.io.mapped);
	assert_int_equal(h.io.map_len, 4096);
	h_init(&h, BS_OP_MAP_STATUS, 4096, 0, NULL);
	bs_submit(fx->dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_true(h.io.mapped);
	assert_int_equal(h.io.map_len, 4096);
}

static void test_bounds(void **state)
{
	struct fix *fx = *state;
	uint8_t buf[1024];
	struct h_io h;

	assert_int_equal(do_io(fx, BS_OP_READ, 8 * MiB, 512, buf, 0), -EINVAL);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 8 * MiB - 512, 1024, buf, 0), -EINVAL);
	assert_int_equal(do_io(fx, BS_OP_DISCARD, UINT64_MAX - 511, 1024, NULL, 0), -EINVAL);
	assert_int_equal(do_io(fx, 99, 0, 512, buf, 0), -EOPNOTSUPP);
	h_init(&h, BS_OP_MAP_STATUS, 8 * MiB, 0, NULL);
	assert_int_equal(h_do(fx->r, fx->dev, &h), -EINVAL);
	/* iovecs holding less than len: refused, not overrun. */
	h_init(&h, BS_OP_WRITE, 0, 1024, buf);
	h.iov[0].iov_len = 512;
	assert_int_equal(h_do(fx->r, fx->dev, &h), -EINVAL);
}

static void test_resize(void **state)
{
	struct fix *fx = *state;
	struct stat st;

	assert_int_equal(fx->dev->ops->resize(fx->dev, 16 * MiB), 0);
	assert_int_equal(fx->dev->size, 16 * MiB);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_size, 16 * MiB);
	assert_int_equal(fx->dev->ops->resize(fx->dev, 4 * MiB), 0);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_size, 4 * MiB);
	assert_int_equal(fx->dev->ops->resize(fx->dev, 4 * MiB + 100), -EINVAL);
	assert_int_equal(fx->dev->ops->resize(fx->dev, 0), -EINVAL);
	assert_int_equal(do_io(fx, BS_OP_READ, 4 * MiB, 512, (uint8_t[512]){0}, 0), -EINVAL);
}

/* The space of the sparse image: what it has allocated grows with a write
 * and never passes the size; what it can still allocate is at most the
 * rest. */
static void test_space(void **state)
{
	struct fix *fx = *state;
	uint8_t buf[64 * 1024];
	uint64_t used0, used, avail;
	bool shared;

	assert_non_null(fx->dev->ops->space);
	assert_int_equal(fx->dev->ops->space(fx->dev, &used0, &avail, &shared), 0);
	assert_true(shared);
	assert_true(used0 <= fx->dev->size);
	assert_true(avail <= fx->dev->size - used0);
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(do_io(fx, BS_OP_WRITE, 1 * MiB, sizeof(buf), buf, 0), 0);
	assert_int_equal(fx->dev->ops->space(fx->dev, &used, &avail, &shared), 0);
	assert_true(used >= used0 + sizeof(buf));
	assert_true(used <= fx->dev->size);
	assert_true(avail <= fx->dev->size - used);
}

/* ---- open, mode independent ---- */

static void test_open_variants(void **state)
{
	struct fix fx = {0};
	struct bs_dev *dev;
	struct stat st;
	char path2[160];
	uint8_t buf[4096];
	int rc, fd;

	setup_dir(&fx, "/tmp");
	/* Missing without create; create without a size (and nothing made). */
	dev = open_file(&fx, fx.path, 0, false, false, 512, &rc);
	assert_int_equal(rc, -ENOENT);
	assert_null(dev);
	dev = open_file(&fx, fx.path, 0, true, false, 512, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(stat(fx.path, &st), -1);
	dev = open_file(&fx, fx.path, 1 * MiB, true, true, 512, &rc);
	assert_int_equal(rc, -ENOENT); /* cannot create read-only */
	dev = open_file(&fx, NULL, 1 * MiB, true, false, 512, &rc);
	assert_int_equal(rc, -EINVAL);

	/* An existing file keeps its size; a bigger size grows it, a smaller
	 * one never shrinks it; a ragged tail is not used. */
	fd = open(fx.path, O_CREAT | O_RDWR, 0644);
	assert_true(fd >= 0);
	h_pattern(buf, sizeof(buf), 81);
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	assert_int_equal(ftruncate(fd, MiB + 100), 0);
	close(fd);
	dev = open_file(&fx, fx.path, 0, false, false, 512, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(dev->size, MiB);
	bs_close(dev);
	dev = open_file(&fx, fx.path, 2 * MiB, true, false, 4096, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(dev->size, 2 * MiB);
	bs_close(dev);
	assert_int_equal(stat(fx.path, &st), 0);
	assert_int_equal(st.st_size, 2 * MiB);
	dev = open_file(&fx, fx.path, MiB, false, false, 512, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(dev->size, 2 * MiB);
	bs_close(dev);
	assert_int_equal(stat(fx.path, &st), 0);
	assert_int_equal(st.st_size, 2 * MiB);

	/* Read-only: data readable, writes refused, caps say so. */
	struct reactor *r;
	char kind;

	r = make_reactor(MODE_URING, &kind);
	dev = open_file(&fx, fx.path, 0, false, true, 512, &rc);
	assert_int_equal(rc, 0);
	assert_true(dev->caps & BS_CAP_READ_ONLY);
	assert_false(dev->caps & BS_CAP_DISCARD);
	struct h_io h;
	uint8_t got[4096];

	h_init(&h, BS_OP_READ, 0, sizeof(got), got);
	assert_int_equal(h_do(r, dev, &h), 0);
	assert_memory_equal(got, buf, sizeof(got));
	h_init(&h, BS_OP_WRITE, 0, sizeof(got), got);
	assert_int_equal(h_do(r, dev, &h), -EROFS);
	h_init(&h, BS_OP_WRITE_ZEROES, 0, 4096, NULL);
	assert_int_equal(h_do(r, dev, &h), -EROFS);
	assert_int_equal(dev->ops->resize(dev, 4 * MiB), -EROFS);
	bs_close(dev);
	reactor_destroy(r);

	/* Neither regular file nor block device; an empty file. */
	dev = open_file(&fx, "/dev/null", 0, false, false, 512, &rc);
	assert_int_equal(rc, -EINVAL);
	dev = open_file(&fx, fx.dir, 0, false, true, 512, &rc);
	assert_int_equal(rc, -EINVAL);
	snprintf(path2, sizeof(path2), "%s/empty", fx.dir);
	fd = open(path2, O_CREAT | O_RDWR, 0644);
	close(fd);
	dev = open_file(&fx, path2, 0, false, false, 512, &rc);
	assert_int_equal(rc, -EINVAL);
	unlink(path2);
	unlink(fx.path);
	rmdir(fx.dir);
}

/* file_iov_rest resumes inside an iovec through the request's tmp. */
static void test_iov_rest(void **state)
{
	uint8_t a[100], b[200], c[300];
	struct iovec v[3] = {{a, 100}, {b, 200}, {c, 300}};
	struct bs_io io = {.iov = v, .iovcnt = 3, .len = 600};
	struct file_req *rq = file_req_of(&io);
	const struct iovec *out;

	rq->xfer = 0;
	assert_int_equal(file_iov_rest(&io, rq, &out), 3);
	assert_ptr_equal(out, v);
	rq->xfer = 100;
	assert_int_equal(file_iov_rest(&io, rq, &out), 2);
	assert_ptr_equal(out, &v[1]);
	rq->xfer = 150;
	assert_int_equal(file_iov_rest(&io, rq, &out), 1);
	assert_ptr_equal(out, &rq->tmp);
	assert_ptr_equal(out->iov_base, b + 50);
	assert_int_equal(out->iov_len, 150);
	rq->xfer = 599;
	assert_int_equal(file_iov_rest(&io, rq, &out), 1);
	assert_ptr_equal(out->iov_base, c + 299);
	assert_int_equal(out->iov_len, 1);
	rq->xfer = 600;
	assert_int_equal(file_iov_rest(&io, rq, &out), 0);
	assert_ptr_equal(file_io_of(rq), &io);
}

/* fx: a reactor of fx->mode and a new 4 MiB file in /dev/shm (tmpfs) */
static void open_on_shm(struct fix *fx)
{
	struct statfs sfs;
	int rc;

	assert_int_equal(statfs("/dev/shm", &sfs), 0);
	assert_int_equal(sfs.f_type, 0x01021994); /* TMPFS_MAGIC: this machine's /dev/shm */
	setup_dir(fx, "/dev/shm");
	fx->r = make_reactor(fx->mode, &fx->path_kind);
	fx->dev = open_file(fx, fx->path, 4 * MiB, true, false, 512, &rc);
	assert_int_equal(rc, 0);
	fx->f = container_of(fx->dev, struct file_dev, dev);
}

/* tmpfs refuses FALLOC_FL_ZERO_RANGE: write zeroes falls back to writing
 * zeroes, once detected, on both paths. */
static void test_zero_range_refused(void **state)
{
	struct fix fx = {.mode = *(enum mode *)*state};
	uint8_t src[65536], dst[65536];
	struct h_io h;

	open_on_shm(&fx);
	assert_true(fx.dev->caps & BS_CAP_DISCARD); /* tmpfs punches holes */
	h_pattern(src, sizeof(src), 91);
	h_init(&h, BS_OP_WRITE, 0, sizeof(src), src);
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	assert_false(atomic_load(&fx.f->no_zero_range));
	h_init(&h, BS_OP_WRITE_ZEROES, 4096, 8192, NULL);
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	assert_true(atomic_load(&fx.f->no_zero_range));
	h_init(&h, BS_OP_READ, 0, sizeof(dst), dst);
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	assert_memory_equal(dst, src, 4096);
	assert_true(h_all_zero(dst + 4096, 8192));
	assert_memory_equal(dst + 12288, src + 12288, sizeof(src) - 12288);
	/* Discard works there too. */
	h_init(&h, BS_OP_DISCARD, 0, 65536, NULL);
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	h_init(&h, BS_OP_READ, 0, sizeof(dst), dst);
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	assert_true(h_all_zero(dst, sizeof(dst)));
	bs_close(fx.dev);
	unlink(fx.path);
	rmdir(fx.dir);
	reactor_destroy(fx.r);
}

/* A file on tmpfs, which refuses RWF_NOWAIT: its reads are copied inline
 * without it (io_uring would hand each to an io-wq thread), the whole
 * transfer, and a read past the end of the file still ends in -EIO. A file
 * on disk is not such a file. */
static void test_mem_reads(void **state)
{
	struct fix fx = {.mode = *(enum mode *)*state};
	enum { LEN = 128 * 1024 };
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	struct iovec one = {.iov_base = dst, .iov_len = 1};
	struct h_io h;
	int rc, queued;

	open_on_shm(&fx);
	/* the premise: tmpfs refuses RWF_NOWAIT on this kernel */
	assert_int_equal(preadv2(fx.f->fd, &one, 1, 0, RWF_NOWAIT), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_true(fx.f->mem_reads);

	memset(&trace, 0, sizeof(trace));
	h_pattern(src, LEN, 95);
	assert_int_equal(do_io(&fx, BS_OP_WRITE, MiB, LEN, src, 0), 0);
	queued = trace.count[(unsigned char)fx.path_kind];
	/* one 4K read, then 128 KiB in three iovecs: inline, nothing queued */
	assert_int_equal(do_io(&fx, BS_OP_READ, MiB, 4096, dst, 0), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_memory_equal(dst, src, 4096);
	memset(dst, 0xee, LEN);
	h_init(&h, BS_OP_READ, MiB, LEN, NULL);
	h.iov[0] = (struct iovec){dst, 100};
	h.iov[1] = (struct iovec){dst + 100, 9000};
	h.iov[2] = (struct iovec){dst + 9100, LEN - 9100};
	h.io.iovcnt = 3;
	assert_int_equal(h_do(fx.r, fx.dev, &h), 0);
	assert_int_equal(trace.last_path, 'i');
	assert_memory_equal(dst, src, LEN);
	assert_int_equal(trace.count[(unsigned char)fx.path_kind], queued);
	assert_false(atomic_load(&fx.f->no_nowait));
	/* the file shrank under the back-store: -EIO where it ends */
	assert_int_equal(ftruncate(fx.f->fd, MiB + 1000), 0);
	h_init(&h, BS_OP_READ, MiB, 8192, dst);
	assert_int_equal(h_do(fx.r, fx.dev, &h), -EIO);
	assert_int_equal(h.io.bad_off, MiB + 1000);
	assert_int_equal(trace.last_path, 'i');
	bs_close(fx.dev);
	unlink(fx.path);
	rmdir(fx.dir);

	/* the fixture's file, on disk: not one */
	setup_dir(&fx, "/var/tmp");
	fx.dev = open_file(&fx, fx.path, 4 * MiB, true, false, 512, &rc);
	assert_int_equal(rc, 0);
	assert_false(container_of(fx.dev, struct file_dev, dev)->mem_reads);
	bs_close(fx.dev);
	unlink(fx.path);
	rmdir(fx.dir);
	reactor_destroy(fx.r);
	free(src);
	free(dst);
}

/* BS_IO_LEND: a READ of cached pages is answered with a pointer into the
 * image's mapping ('l'), and dst is not written; without the flag, over a
 * range not wholly cached, longer than FILE_LEND_MAX or beyond what is
 * still mapped after a shrink, the READ copies as before. */
static void lend_read(struct fix *fx, uint64_t off, uint64_t len, uint8_t *dst, uint8_t fl,
		      const uint8_t **lent)
{
	struct h_io h;

	h_init(&h, BS_OP_READ, off, len, dst);
	h.io.flags = fl;
	assert_int_equal(h_do(fx->r, fx->dev, &h), 0);
	*lent = h.io.lent;
}

static void test_lend(void **state)
{
	struct fix *fx = *state;
	enum { LEN = 8192 };
	uint8_t *src = malloc(2 * MiB), *dst = calloc(1, 2 * MiB);
	const uint8_t *lent;

	for (size_t i = 0; i < 2 * MiB; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	assert_non_null(fx->f->map);
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB, LEN, src, 0), 0);

	/* cached: lent, nothing copied */
	lend_read(fx, MiB, LEN, dst, BS_IO_LEND, &lent);
	assert_int_equal(trace.last_path, 'l');
	assert_ptr_equal(lent, fx->f->map + MiB);
	assert_memory_equal(lent, src, LEN);
	assert_int_equal(dst[0], 0);
	assert_int_equal(dst[LEN - 1], 0);
	/* a later write shows through the lent pointer (bs.h) */
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB, 4096, src + 4096, 0), 0);
	assert_memory_equal(lent, src + 4096, 4096);
	assert_int_equal(do_io(fx, BS_OP_WRITE, MiB, 4096, src, 0), 0);

	/* without the flag: copied inline */
	lend_read(fx, MiB, LEN, dst, 0, &lent);
	assert_int_equal(trace.last_path, 'i');
	assert_null(lent);
	assert_memory_equal(dst, src, LEN);

	/* not cached: copied (inline tried, then queued), never lent; the
	 * range was never touched through the mapping, so it can be dropped */
	memset(dst, 0, 2 * MiB);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 4 * MiB, LEN, src, 0), 0);
	if (evict(fx, 4 * MiB, LEN)) {
		lend_read(fx, 4 * MiB, LEN, dst, BS_IO_LEND, &lent);
		assert_int_equal(trace.last_path, fx->path_kind);
		assert_null(lent);
		assert_memory_equal(dst, src, LEN);
	}

	/* longer than FILE_LEND_MAX: copied, by the queued path */
	assert_int_equal(do_io(fx, BS_OP_WRITE, 5 * MiB, FILE_LEND_MAX + 4096, src, 0), 0);
	memset(dst, 0, 2 * MiB);
	lend_read(fx, 5 * MiB, FILE_LEND_MAX + 4096, dst, BS_IO_LEND, &lent);
	assert_true(trace.last_path != 'l');
	assert_null(lent);
	assert_memory_equal(dst, src, FILE_LEND_MAX + 4096);
	/* FILE_LEND_MAX itself: lent */
	lend_read(fx, 5 * MiB, FILE_LEND_MAX, dst, BS_IO_LEND, &lent);
	assert_int_equal(trace.last_path, 'l');
	assert_memory_equal(lent, src, FILE_LEND_MAX);

	/* shrunk and grown again: what lies past the shrink is not lent (its
	 * pages were cut from the mapping once) */
	assert_int_equal(fx->dev->ops->resize(fx->dev, 4 * MiB), 0);
	assert_int_equal(fx->dev->ops->resize(fx->dev, 8 * MiB), 0);
	assert_int_equal(do_io(fx, BS_OP_WRITE, 6 * MiB, LEN, src, 0), 0);
	memset(dst, 0, 2 * MiB);
	lend_read(fx, 6 * MiB, LEN, dst, BS_IO_LEND, &lent);
	assert_int_equal(trace.last_path, 'i');
	assert_null(lent);
	assert_memory_equal(dst, src, LEN);
	lend_read(fx, MiB, LEN, dst, BS_IO_LEND, &lent); /* below it: still lent */
	assert_int_equal(trace.last_path, 'l');
	assert_memory_equal(lent, src, LEN);
	free(src);
	free(dst);
}

static enum mode m_uring = MODE_URING, m_workq = MODE_WORKQ;

#define BOTH(t)                                                                                    \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, &m_uring),                    \
	    cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, &m_workq)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    BOTH(test_create_and_caps),
	    BOTH(test_write_read),
	    BOTH(test_many_in_flight),
	    BOTH(test_many_iovecs),
	    BOTH(test_discard),
	    BOTH(test_write_zeroes),
	    BOTH(test_map_status_sparse),
	    BOTH(test_read_past_eof),
	    BOTH(test_inline),
	    BOTH(test_inline_slow_write),
	    BOTH(test_no_reactor),
	    BOTH(test_bounds),
	    BOTH(test_resize),
	    BOTH(test_space),
	    BOTH(test_lend),
	    cmocka_unit_test(test_open_variants),
	    cmocka_unit_test(test_iov_rest),
	    cmocka_unit_test_prestate(test_zero_range_refused, &m_uring),
	    cmocka_unit_test_prestate(test_zero_range_refused, &m_workq),
	    cmocka_unit_test_prestate(test_mem_reads, &m_uring),
	    cmocka_unit_test_prestate(test_mem_reads, &m_workq),
	};
	int rc;

	log_set_level(LOG_LVL_WARN);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	workq_stop();
	return rc;
}
