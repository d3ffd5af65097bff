/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c: a back-store over a regular file or a block device node.
 *
 * Contract (scsi/bs.h): submit() on a reactor thread; done() later on that
 * same thread. Submitted off any reactor (no reactor_self()), the request is
 * carried out synchronously and done() runs inside submit().
 *
 * Paths:
 *  - inline on the reactor thread first, for what the page cache can take
 *    at once (see file_try_inline): a READ with preadv2(RWF_NOWAIT), which
 *    fails with EAGAIN instead of waiting for the disk (on a memory file
 *    system that refuses RWF_NOWAIT, without it: file_probe_mem_reads).
 *    One preadv2 per cached read costs less than the ring: 4K QD32 random
 *    reads of a cached file, 0.24-0.36 us less CPU each, 7-9 % more IOPS
 *    (docs/performance.md section 18; section 2's opposite result, taken on
 *    a disturbed machine, had sent them to the ring). A WRITE of whole
 *    pages without FUA with pwritev2, which only copies into the page cache
 *    (ext4 refuses RWF_NOWAIT for buffered writes, so a write that would
 *    block, throttled by dirty page limits, cannot be told apart before it
 *    runs: a slow one turns inline writes off for FILE_INLINE_BACKOFF_NS).
 *    What is left (a cache miss, the rest of a short transfer) goes on:
 *  - io_uring of the submitting reactor when it has one, where a read miss
 *    waits on the page without a thread: READV/WRITEV
 *    (RWF_DSYNC for BS_IO_FUA), FSYNC with IORING_FSYNC_DATASYNC for FLUSH,
 *    FALLOCATE PUNCH_HOLE|KEEP_SIZE for DISCARD and ZERO_RANGE|KEEP_SIZE for
 *    WRITE_ZEROES;
 *  - else the worker pool: preadv2/pwritev2, fdatasync, fallocate;
 *  - MAP_STATUS (lseek SEEK_DATA/SEEK_HOLE) always on the worker pool.
 * A short transfer is continued until done; a read that reaches end of file
 * is -EIO (the file shrank under us), never silence. When the file system
 * refuses ZERO_RANGE, WRITE_ZEROES writes zeroes instead (from then on
 * directly on the worker pool). Per-request state lives in bs_io.priv: no
 * allocation and no lock on the I/O path.
 *
 * Capabilities: FLUSH, WRITE_CACHE (the page cache, or the device's), FUA,
 * WRITE_ZEROES; MAP_STATUS for regular files; DISCARD when punching holes
 * works (probed at open: on a regular file beyond its end, which changes
 * nothing; on a block device from its queue limits); READ_ONLY when opened
 * read-only (writes are then refused with -EROFS).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "backstore/backstore.h"
#include "backstore/file_dev.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "lib/safe_copy.h"
#include "lib/workq.h"

/* Unit tests observe which path carried a request (see test_file.c). */
#ifndef FILE_TRACE
#define FILE_TRACE(io, path, rwflags)                                                              \
	do {                                                                                       \
	} while (0)
#endif

#define FILE_ZERO_BUF	65536
#define FILE_ZERO_IOVS	16
#define FILE_ZERO_ALIGN 4096

/* Inline I/O on the reactor thread (file_try_inline). A transfer up to
 * FILE_INLINE_MAX bytes is tried inline; an inline write slower than
 * FILE_INLINE_SLOW_NS plus FILE_INLINE_SLOW_NS_PER_KIB per KiB turns inline
 * writes off for the device for FILE_INLINE_BACKOFF_NS. */
#define FILE_INLINE_MAX		    (256u << 10)
#define FILE_INLINE_PAGE	    4096u
#define FILE_INLINE_SLOW_NS	    2000000ull
#define FILE_INLINE_SLOW_NS_PER_KIB 2000ull
#define FILE_INLINE_BACKOFF_NS	    100000000ull

/* READs with BS_IO_LEND of up to FILE_LEND_MAX bytes are lent from the
 * image's mapping (file_lend); images larger than FILE_MAP_MAX are not
 * mapped, to spare the address space. */
#define FILE_LEND_MAX (1u << 20)
#define FILE_MAP_MAX  (1ull << 40)

/* The thresholds; unit tests lower them to see the back-off. */
static uint64_t file_inline_slow_ns = FILE_INLINE_SLOW_NS;
static uint64_t file_inline_slow_ns_per_kib = FILE_INLINE_SLOW_NS_PER_KIB;

/* ---- one user per image ----
 * Two writers of one image -- two back-stores of one daemon, or two
 * daemons -- would each cache and write it as if it were theirs alone. A
 * back-store holds an flock on its image (exclusive, shared when
 * read-only) for as long as it is open; within the daemon the images in
 * use are listed so that the refusal can name the back-store holding it. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct file_dev *open_images;

int image_claim(struct file_dev *f, const struct bs_params *p, const struct stat *st)
{
	struct file_dev *o;
	int rc = 0;

	pthread_mutex_lock(&open_lock);
	f->lock_fd = -1;
	for (o = open_images; o; o = o->next_open)
		if (o->st_dev == st->st_dev && o->st_ino == st->st_ino &&
		    !(o->readonly && f->readonly))
			break;
	if (o && !strcmp(o->name, p->name)) {
		/* the same back-store replaced (a reload, import --replace): the
		 * new one opens before the old one closes, and takes over its
		 * lock through a descriptor of the same open file */
		f->lock_fd = fcntl(o->lock_fd >= 0 ? o->lock_fd : o->fd, F_DUPFD_CLOEXEC, 0);
		if (f->lock_fd < 0)
			rc = -errno;
		o = NULL;
	}
	if (rc) {
		log_err("backstore %s: %s: %s", p->name, p->path, strerror(-rc));
	} else if (o) {
		log_err("backstore %s: %s is already the image of back-store %s", p->name, p->path,
			o->name);
		rc = -EBUSY;
	} else if (f->lock_fd < 0 &&
		   flock(f->fd, (f->readonly ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0) {
		rc = -errno;
		log_err("backstore %s: %s is in use by another process (another utargetd?): %s",
			p->name, p->path, rc == -EWOULDBLOCK ? "locked" : strerror(-rc));
		if (rc == -EWOULDBLOCK)
			rc = -EBUSY;
	} else {
		f->st_dev = st->st_dev;
		f->st_ino = st->st_ino;
		snprintf(f->name, sizeof(f->name), "%s", p->name);
		f->next_open = open_images;
		open_images = f;
	}
	pthread_mutex_unlock(&open_lock);
	return rc;
}

void image_release(struct file_dev *f)
{
	pthread_mutex_lock(&open_lock);
	for (struct file_dev **pp = &open_images; *pp; pp = &(*pp)->next_open)
		if (*pp == f) {
			*pp = f->next_open;
			break;
		}
	pthread_mutex_unlock(&open_lock);
}

void file_finish(struct bs_io *io, int err)
{
	if (err == -EDQUOT)
		err = -ENOSPC; /* thin provisioning ran out of space */
	io->done(io, err);
}

/* The part of the transfer still to do, as an iovec array starting at *v. */
static int file_iov_rest(struct bs_io *io, struct file_req *rq, const struct iovec **v)
{
	uint64_t skip = rq->xfer;
	int i = 0;

	while (i < io->iovcnt && skip >= io->iov[i].iov_len) {
		skip -= io->iov[i].iov_len;
		i++;
	}
	if (i >= io->iovcnt)
		return 0; /* the iovecs hold less than len: caller's bug */
	if (skip) {
		rq->tmp.iov_base = (uint8_t *)io->iov[i].iov_base + skip;
		rq->tmp.iov_len = io->iov[i].iov_len - skip;
		*v = &rq->tmp;
		return 1;
	}
	*v = &io->iov[i];
	return UT_MIN(io->iovcnt - i, IOV_MAX);
}

/* ---- worker pool path ---- */

static int file_write_zeroes(struct file_dev *f, uint64_t off, uint64_t len)
{
	/* aligned for O_DIRECT (block) */
	static _Alignas(FILE_ZERO_ALIGN) const uint8_t zeroes[FILE_ZERO_BUF];
	struct iovec v[FILE_ZERO_IOVS];

	while (len) {
		uint64_t n = UT_MIN(len, (uint64_t)FILE_ZERO_BUF * FILE_ZERO_IOVS);
		int cnt = 0;

		for (uint64_t left = n; left; cnt++) {
			v[cnt].iov_base = (void *)zeroes;
			v[cnt].iov_len = (size_t)UT_MIN(left, (uint64_t)FILE_ZERO_BUF);
			left -= v[cnt].iov_len;
		}
		ssize_t k = pwritev(f->fd, v, cnt, (off_t)off);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		off += (uint64_t)k;
		len -= (uint64_t)k;
	}
	return 0;
}

/* SEEK_DATA/SEEK_HOLE from io->off, rounded to whole blocks: a block that
 * holds any data counts as mapped. */
static int file_map_status(struct file_dev *f, struct bs_io *io)
{
	uint64_t size = f->dev.size, off = io->off, bs = f->block_size, end, n;
	bool mapped;
	off_t d = lseek(f->fd, (off_t)off, SEEK_DATA);

	if (d < 0) {
		if (errno != ENXIO)
			return -errno;
		mapped = false; /* a hole up to the end of the file */
		end = size;
	} else if ((uint64_t)d > off) {
		mapped = false;
		end = (uint64_t)d;
	} else {
		off_t h = lseek(f->fd, (off_t)off, SEEK_HOLE);

		if (h < 0)
			return -errno;
		mapped = true;
		end = (uint64_t)h;
	}
	if (end > size)
		end = size;
	n = end > off ? end - off : 0;
	if (mapped) {
		n = UT_ALIGN_UP(n, bs);
		if (n == 0)
			n = bs;
	} else {
		n -= n % bs;
		if (n == 0) { /* data inside the first block */
			mapped = true;
			n = bs;
		}
	}
	io->mapped = mapped;
	io->map_len = UT_MIN(n, size - off);
	return 0;
}

static int file_rw_sync(struct file_dev *f, struct bs_io *io, struct file_req *rq)
{
	bool rd = io->op == BS_OP_READ;
	int rwf = !rd && (io->flags & BS_IO_FUA) ? RWF_DSYNC : 0;

	while (rq->xfer < io->len) {
		const struct iovec *v;
		int n = file_iov_rest(io, rq, &v);
		off_t pos = (off_t)(io->off + rq->xfer);

		if (n == 0)
			return -EINVAL;
		ssize_t k = rd ? preadv2(f->fd, v, n, pos, 0) : pwritev2(f->fd, v, n, pos, rwf);

		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (k == 0) {
			io->bad_off = io->off + rq->xfer;
			return -EIO;
		}
		rq->xfer += (uint64_t)k;
	}
	return 0;
}

static void file_work(struct workq_item *w)
{
	struct file_req *rq = container_of(w, struct file_req, wq);
	struct bs_io *io = file_io_of(rq);
	struct file_dev *f = rq->f;
	int rc = 0;

	switch (io->op) {
	case BS_OP_READ:
	case BS_OP_WRITE:
		rc = file_rw_sync(f, io, rq);
		break;
	case BS_OP_FLUSH:
		rc = fdatasync(f->fd) < 0 ? -errno : 0;
		break;
	case BS_OP_DISCARD:
		rc = fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->off,
			       (off_t)io->len) < 0
			 ? -errno
			 : 0;
		break;
	case BS_OP_WRITE_ZEROES:
		if (!atomic_load_explicit(&f->no_zero_range, memory_order_relaxed)) {
			if (fallocate(f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				      (off_t)io->off, (off_t)io->len) == 0)
				break;
			if (errno != EOPNOTSUPP) {
				rc = -errno;
				break;
			}
			atomic_store(&f->no_zero_range, true);
		}
		rc = file_write_zeroes(f, io->off, io->len);
		break;
	case BS_OP_MAP_STATUS:
		rc = file_map_status(f, io);
		break;
	default:
		rc = -EOPNOTSUPP;
		break;
	}
	rq->err = rc;
}

static void file_work_done(struct workq_item *w)
{
	struct file_req *rq = container_of(w, struct file_req, wq);

	file_finish(file_io_of(rq), rq->err);
}

static void file_queue_work(struct bs_io *io)
{
	struct file_req *rq = file_req_of(io);

	FILE_TRACE(io, 'w', io->op == BS_OP_WRITE && (io->flags & BS_IO_FUA) ? RWF_DSYNC : 0);
	rq->wq.work = file_work;
	rq->wq.done = file_work_done;
	workq_submit(&rq->wq);
}

/* ---- io_uring path ---- */

static void file_uring_done(struct reactor_uring_req *req, int res);

/* Queue the request (or the rest of a transfer) on r's ring; false when the
 * ring has no free SQE. */
static bool file_uring_issue(struct reactor *r, struct bs_io *io)
{
	struct file_req *rq = file_req_of(io);
	struct file_dev *f = rq->f;
	const struct iovec *v = NULL;
	struct io_uring_sqe *sqe;
	int n = 0;

	if (io->op == BS_OP_READ || io->op == BS_OP_WRITE) {
		n = file_iov_rest(io, rq, &v);
		if (n == 0) {
			file_finish(io, -EINVAL);
			return true;
		}
	}
	rq->ureq.cb = file_uring_done;
	sqe = reactor_uring_sqe(r, &rq->ureq);
	if (!sqe)
		return false;
	switch (io->op) {
	case BS_OP_READ:
		io_uring_prep_readv(sqe, f->fd, v, (unsigned)n, io->off + rq->xfer);
		FILE_TRACE(io, 'u', 0);
		break;
	case BS_OP_WRITE:
		io_uring_prep_writev(sqe, f->fd, v, (unsigned)n, io->off + rq->xfer);
		if (io->flags & BS_IO_FUA)
			sqe->rw_flags = RWF_DSYNC;
		FILE_TRACE(io, 'u', (int)sqe->rw_flags);
		break;
	case BS_OP_FLUSH:
		io_uring_prep_fsync(sqe, f->fd, IORING_FSYNC_DATASYNC);
		FILE_TRACE(io, 'u', 0);
		break;
	case BS_OP_DISCARD:
		io_uring_prep_fallocate(sqe, f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					(off_t)io->off, (off_t)io->len);
		FILE_TRACE(io, 'u', 0);
		break;
	case BS_OP_WRITE_ZEROES:
		io_uring_prep_fallocate(sqe, f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					(off_t)io->off, (off_t)io->len);
		FILE_TRACE(io, 'u', 0);
		break;
	default: /* file_submit routes nothing else here */
		io_uring_prep_nop(sqe);
		break;
	}
	return true;
}

static void file_uring_done(struct reactor_uring_req *req, int res)
{
	struct file_req *rq = container_of(req, struct file_req, ureq);
	struct bs_io *io = file_io_of(rq);

	if (io->op == BS_OP_READ || io->op == BS_OP_WRITE) {
		if (res == -EAGAIN || res == -EINTR) {
			file_queue_work(io); /* let a worker retry it blocking */
			return;
		}
		if (res < 0) {
			file_finish(io, res);
			return;
		}
		if (res == 0) { /* end of file inside the device: it shrank */
			io->bad_off = io->off + rq->xfer;
			file_finish(io, -EIO);
			return;
		}
		rq->xfer += (uint64_t)res;
		if (rq->xfer < io->len) { /* short: carry on from where it stopped */
			if (!file_uring_issue(reactor_self(), io))
				file_queue_work(io);
			return;
		}
		file_finish(io, 0);
		return;
	}
	if (io->op == BS_OP_WRITE_ZEROES && res == -EOPNOTSUPP) {
		if (!atomic_exchange(&rq->f->no_zero_range, true))
			log_info("backstore %s: no FALLOC_FL_ZERO_RANGE here; writing zeroes",
				 rq->f->dev.name);
		file_queue_work(io);
		return;
	}
	file_finish(io, res < 0 ? res : 0);
}

/* ---- inline path ---- */

/* Whether a WRITE may run inline: whole pages (no read of a partial page
 * from the disk), no FUA (RWF_DSYNC waits for the disk), and no slow inline
 * write seen lately on this device. */
static bool file_write_inline_ok(struct file_dev *f, const struct bs_io *io)
{
	uint64_t until;

	if ((io->flags & BS_IO_FUA) || (io->off | io->len) % FILE_INLINE_PAGE)
		return false;
	until = atomic_load_explicit(&f->inline_wr_off_until, memory_order_relaxed);
	if (likely(!until))
		return true;
	if (reactor_now_ns() < until)
		return false;
	atomic_store_explicit(&f->inline_wr_off_until, 0, memory_order_relaxed);
	return true;
}

/* BS_IO_LEND (bs.h): a READ whose pages are all in the page cache is
 * answered with a pointer into the image's mapping, and the fabric copies
 * the data from there into its socket: one copy where preadv2 and the send
 * made two. mincore() says whether the pages are there (on a mapping whose
 * page table holds them, without a look-up in the page cache); a range
 * that is not wholly cached goes the copying way, so that the reactor does
 * not wait for the disk in a page fault. A page dropped after the check is
 * read in by the send: the window is one reactor turn. */
static bool file_lend(struct file_dev *f, struct bs_io *io)
{
	unsigned char vec[FILE_LEND_MAX / FILE_INLINE_PAGE + 1];
	uintptr_t first, end;
	size_t pages;

	if (!f->map || io->len > FILE_LEND_MAX ||
	    io->off + io->len > atomic_load_explicit(&f->map_lendable, memory_order_relaxed))
		return false;
	first = (uintptr_t)(f->map + io->off) & ~(uintptr_t)(FILE_INLINE_PAGE - 1);
	end = (uintptr_t)(f->map + io->off + io->len);
	pages = (end - first + FILE_INLINE_PAGE - 1) / FILE_INLINE_PAGE;
	if (mincore((void *)first, end - first, vec) < 0)
		return false;
	for (size_t i = 0; i < pages; i++)
		if (!(vec[i] & 1))
			return false;
	FILE_TRACE(io, 'l', 0);
	io->lent = f->map + io->off;
	file_finish(io, 0);
	return true;
}

/* Try a READ or WRITE inline on the reactor thread. Returns true when the
 * request is finished (done() called), false when the rest (from rq->xfer
 * on) is to be queued: nothing was tried, the data is not in the page cache
 * (EAGAIN), or the transfer came out short. */
static bool file_try_inline(struct file_dev *f, struct bs_io *io, struct file_req *rq)
{
	bool rd = io->op == BS_OP_READ;
	uint64_t t0 = 0;

	if (rd && (io->flags & BS_IO_LEND) && file_lend(f, io))
		return true;
	if (io->len > FILE_INLINE_MAX)
		return false;
	if (rd) {
		if (!f->mem_reads && atomic_load_explicit(&f->no_nowait, memory_order_relaxed))
			return false;
	} else {
		if (!file_write_inline_ok(f, io))
			return false;
		t0 = reactor_now_ns();
	}
	FILE_TRACE(io, 'i', 0);
	while (rq->xfer < io->len) {
		const struct iovec *v;
		int n = file_iov_rest(io, rq, &v);
		off_t pos = (off_t)(io->off + rq->xfer);
		ssize_t k;

		if (n == 0) {
			file_finish(io, -EINVAL);
			return true;
		}
		k = rd ? preadv2(f->fd, v, n, pos, f->mem_reads ? 0 : RWF_NOWAIT)
		       : pwritev2(f->fd, v, n, pos, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (rd && errno == EOPNOTSUPP) {
				if (!atomic_exchange(&f->no_nowait, true))
					log_info("backstore %s: no RWF_NOWAIT reads; reads are "
						 "queued",
						 f->dev.name);
				return false;
			}
			if (errno == EAGAIN)
				return false;
			file_finish(io, -errno);
			return true;
		}
		if (k == 0) {
			if (rd && rq->xfer < io->len) {
				io->bad_off = io->off + rq->xfer; /* the file shrank */
				file_finish(io, -EIO);
				return true;
			}
			return false;
		}
		rq->xfer += (uint64_t)k;
		if (rd && !f->mem_reads && rq->xfer < io->len)
			return false; /* part of it cached: the rest may block */
	}
	if (!rd) {
		uint64_t dt = reactor_now_ns() - t0;

		if (dt >= file_inline_slow_ns + file_inline_slow_ns_per_kib * (io->len >> 10)) {
			atomic_store_explicit(&f->inline_wr_off_until,
					      reactor_now_ns() + FILE_INLINE_BACKOFF_NS,
					      memory_order_relaxed);
			log_debug("backstore %s: inline write of %" PRIu64 " bytes took %" PRIu64
				  " us; queuing writes for a while",
				  f->dev.name, io->len, dt / 1000);
		}
	}
	file_finish(io, 0);
	return true;
}

/* ---- submit ---- */

void file_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);
	struct file_req *rq = file_req_of(io);
	struct reactor *r;
	uint64_t size = dev->size;

	rq->f = f;
	rq->xfer = 0;
	rq->err = 0;
	switch (io->op) {
	case BS_OP_FLUSH:
		break;
	case BS_OP_READ:
	case BS_OP_WRITE:
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
	case BS_OP_MAP_STATUS:
		if (io->off > size || io->len > size - io->off ||
		    (io->op == BS_OP_MAP_STATUS && io->off == size)) {
			file_finish(io, -EINVAL);
			return;
		}
		if (io->op != BS_OP_READ && io->op != BS_OP_MAP_STATUS && f->readonly) {
			file_finish(io, -EROFS);
			return;
		}
		if ((io->op == BS_OP_DISCARD && !(dev->caps & BS_CAP_DISCARD)) ||
		    (io->op == BS_OP_MAP_STATUS && !(dev->caps & BS_CAP_MAP_STATUS))) {
			file_finish(io, -EOPNOTSUPP);
			return;
		}
		if (io->len == 0 && io->op != BS_OP_MAP_STATUS) {
			file_finish(io, 0);
			return;
		}
		break;
	default:
		file_finish(io, -EOPNOTSUPP);
		return;
	}

	r = reactor_self();
	/* O_DIRECT (block): nothing is in a page cache, an inline call waits
	 * for the device. */
	if (r && !f->direct && (io->op == BS_OP_WRITE || io->op == BS_OP_READ) &&
	    file_try_inline(f, io, rq))
		return;
	if (!r) { /* not on a reactor: do it here and now */
		FILE_TRACE(io, 's',
			   io->op == BS_OP_WRITE && (io->flags & BS_IO_FUA) ? RWF_DSYNC : 0);
		file_work(&rq->wq);
		file_finish(io, rq->err);
		return;
	}
	if (reactor_has_uring(r) && io->op != BS_OP_MAP_STATUS &&
	    !(io->op == BS_OP_WRITE_ZEROES &&
	      atomic_load_explicit(&f->no_zero_range, memory_order_relaxed)) &&
	    file_uring_issue(r, io))
		return;
	file_queue_work(io);
}

int file_resize(struct bs_dev *dev, uint64_t new_size)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);

	if (new_size == 0 || new_size % f->block_size || new_size > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (f->readonly)
		return -EROFS;
	if (f->is_blk) {
		uint64_t bytes;

		/* A block device is resized underneath (LVM, ...): take up to
		 * what it has now. */
		if (ioctl(f->fd, BLKGETSIZE64, &bytes) < 0)
			return -errno;
		if (new_size > bytes)
			return -ENOSPC;
	} else if (ftruncate(f->fd, (off_t)new_size) < 0) {
		return -errno;
	}
	/* a READ lent beyond the new end would fault in the fabric's send
	 * (which then fails the connection): lend no more from there */
	if (new_size < atomic_load(&f->map_lendable))
		atomic_store(&f->map_lendable, new_size);
	log_notice("backstore %s: resized from %" PRIu64 " to %" PRIu64 " bytes", dev->name,
		   dev->size, new_size);
	dev->size = new_size;
	return 0;
}

void file_close(struct bs_dev *dev)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);

	image_release(f);
	if (f->map)
		munmap((void *)f->map, f->map_len);
	if (f->lock_fd >= 0)
		close(f->lock_fd);
	close(f->fd); /* and its flock */
	free(f);
}

/* A sparse image file: its allocated blocks (st_blocks, 512-byte units)
 * and the file system's free space for unprivileged writers. A block
 * device does not say how much of it is allocated. */
static int file_space(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);
	struct statvfs vfs;
	struct stat st;
	uint64_t u, free_bytes;

	if (f->is_blk)
		return -EOPNOTSUPP;
	if (fstat(f->fd, &st) < 0 || fstatvfs(f->fd, &vfs) < 0)
		return -errno;
	u = (uint64_t)st.st_blocks * 512;
	if (u > dev->size)
		u = dev->size;
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*used = u;
	*avail = free_bytes < dev->size - u ? free_bytes : dev->size - u;
	*avail_shared = true;
	return 0;
}

static const struct bs_ops file_ops = {
    .type = "file",
    .submit = file_submit,
    .resize = file_resize,
    .space = file_space,
    .close = file_close,
};

/* ---- open ---- */

/* A queue limit of the block device (or of the disk a partition is on). */
bool file_blk_queue_attr(dev_t rdev, const char *attr, char *buf, size_t size)
{
	static const char *const parents[] = {"", "/.."};

	for (size_t i = 0; i < ARRAY_SIZE(parents); i++) {
		char path[128];
		bool ok;
		FILE *fp;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u%s/queue/%s", major(rdev),
			 minor(rdev), parents[i], attr);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		ok = fgets(buf, (int)size, fp) != NULL;
		fclose(fp);
		return ok;
	}
	return false;
}

uint64_t file_blk_queue_limit(dev_t rdev, const char *attr)
{
	unsigned long long v;
	char buf[32], *end;

	if (!file_blk_queue_attr(rdev, attr, buf, sizeof(buf)))
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	return errno || end == buf ? 0 : v;
}

static int file_open_fd(const struct bs_params *p, bool *created)
{
	int flags = (p->readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC;
	int fd;

	*created = false;
	for (;;) {
		fd = open(p->path, flags);
		if (fd >= 0 || errno != ENOENT)
			break;
		if (!p->create || p->readonly) {
			log_err("backstore %s: %s does not exist%s", p->name, p->path,
				p->create ? " (and cannot be created read-only)" : "");
			return -ENOENT;
		}
		if (p->size == 0) {
			log_err("backstore %s: a size is needed to create %s", p->name, p->path);
			return -EINVAL;
		}
		fd = open(p->path, flags | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			*created = true;
			break;
		}
		if (errno != EEXIST) /* else someone created it first: open it */
			break;
	}
	if (fd < 0) {
		int rc = -errno;

		log_err("backstore %s: cannot open %s: %s", p->name, p->path, strerror(-rc));
		return rc;
	}
	return fd;
}

/* A file of tmpfs or ramfs refuses RWF_NOWAIT (Linux 6.18 still), and
 * io_uring then hands every read of it to an io-wq thread: a cross-thread
 * wake-up per read, where the data is in memory (docs/performance.md
 * section 18: 4K QD32 reads of a file in /dev/shm, 116-129K IOPS at 9-11 us
 * of CPU each that way, 290-304K at 3.2-3.3 us inline). Such a file's reads
 * are copied inline on the reactor without RWF_NOWAIT, as the ram
 * back-store copies its own memory: only a page swapped out makes that copy
 * wait, as it would make the ram back-store's. */
static void file_probe_mem_reads(struct file_dev *f, const struct bs_params *p)
{
	struct statfs sfs;
	char byte;
	struct iovec v = {.iov_base = &byte, .iov_len = 1};

	if (fstatfs(f->fd, &sfs) < 0 || (sfs.f_type != TMPFS_MAGIC && sfs.f_type != RAMFS_MAGIC))
		return;
	if (preadv2(f->fd, &v, 1, 0, RWF_NOWAIT) >= 0 || errno != EOPNOTSUPP)
		return;
	f->mem_reads = true;
	log_info("backstore %s: %s is on a memory file system without RWF_NOWAIT: reads "
		 "are copied inline",
		 p->name, p->path);
}

/* A regular file's image, read-only, for the READs that are lent its pages
 * (file_lend). Without the mapping they are copied, as before. */
static void file_map_image(struct file_dev *f, const struct bs_params *p, uint64_t bytes)
{
	void *m;

	if (f->is_blk || f->direct || bytes > FILE_MAP_MAX)
		return;
	if (!safe_copy_works()) {
		/* the fabric could not take back lent data safely (scsi.h
		 * scsi_cmd_unlend): no lending */
		log_info("backstore %s: no SIGBUS guard (sigaction failed): READs are copied",
			 p->name);
		return;
	}
	m = mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, f->fd, 0);
	if (m == MAP_FAILED) {
		log_info("backstore %s: cannot map %s (%s): READs are copied", p->name, p->path,
			 strerror(errno));
		return;
	}
	f->map = m;
	f->map_len = (size_t)bytes;
	atomic_store(&f->map_lendable, bytes);
}

static int file_open(const struct bs_params *p, struct bs_dev **out)
{
	struct file_dev *f;
	struct stat st;
	uint64_t bytes;
	bool created;
	int fd, rc;

	if (!p->path || !*p->path) {
		log_err("backstore %s: file needs a path", p->name);
		return -EINVAL;
	}
	fd = file_open_fd(p, &created);
	if (fd < 0)
		return fd;
	f = calloc(1, sizeof(*f));
	if (!f) {
		rc = -ENOMEM;
		goto fail;
	}
	f->fd = fd;
	f->lock_fd = -1;
	f->block_size = p->block_size;
	f->readonly = p->readonly;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto fail;
	}
	rc = image_claim(f, p, &st);
	if (rc)
		goto fail;
	if (S_ISBLK(st.st_mode)) {
		f->is_blk = true;
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			rc = -errno;
			log_err("backstore %s: BLKGETSIZE64 on %s: %s", p->name, p->path,
				strerror(-rc));
			goto fail;
		}
		if (p->size > bytes) {
			log_err("backstore %s: %s holds %" PRIu64 " bytes, less than the %" PRIu64
				" asked for",
				p->name, p->path, bytes, p->size);
			rc = -EINVAL;
			goto fail;
		}
	} else if (S_ISREG(st.st_mode)) {
		bytes = (uint64_t)st.st_size;
		if (p->size > bytes) {
			if (p->readonly) {
				log_warn("backstore %s: %s is smaller than %" PRIu64
					 " bytes and read-only: keeping its %" PRIu64,
					 p->name, p->path, p->size, bytes);
			} else if (ftruncate(fd, (off_t)p->size) < 0) {
				rc = -errno;
				log_err("backstore %s: cannot size %s to %" PRIu64 " bytes: %s",
					p->name, p->path, p->size, strerror(-rc));
				goto fail;
			} else {
				if (!created)
					log_notice("backstore %s: grew %s from %" PRIu64
						   " to %" PRIu64 " bytes",
						   p->name, p->path, bytes, p->size);
				bytes = p->size;
			}
		}
	} else {
		log_err("backstore %s: %s is neither a regular file nor a block device", p->name,
			p->path);
		rc = -EINVAL;
		goto fail;
	}
	if (bytes % p->block_size) {
		log_notice("backstore %s: %s holds %" PRIu64 " bytes, not whole %u-byte blocks; "
			   "the tail is not used",
			   p->name, p->path, bytes, p->block_size);
		bytes -= bytes % p->block_size;
	}
	if (bytes == 0) {
		log_err("backstore %s: %s is empty", p->name, p->path);
		rc = -EINVAL;
		goto fail;
	}

	f->dev.ops = &file_ops;
	f->dev.size = bytes;
	f->dev.priv = f;
	f->dev.caps = BS_CAP_FLUSH | BS_CAP_WRITE_CACHE | BS_CAP_FUA | BS_CAP_WRITE_ZEROES;
	if (st.st_blksize > 0 && (uint64_t)st.st_blksize <= (1u << 20) &&
	    st.st_blksize % p->block_size == 0 && !(st.st_blksize & (st.st_blksize - 1)))
		f->dev.opt_unit = (uint32_t)st.st_blksize;
	if (!f->is_blk) {
		f->dev.caps |= BS_CAP_MAP_STATUS;
		file_probe_mem_reads(f, p);
	}
	if (p->readonly) {
		f->dev.caps |= BS_CAP_READ_ONLY;
	} else if (f->is_blk) {
		int lbs = 0;

		/* fallocate on a block device wants whole logical sectors;
		 * PUNCH_HOLE needs REQ_OP_WRITE_ZEROES (no fallback). */
		if (ioctl(fd, BLKSSZGET, &lbs) < 0 || lbs <= 0 || p->block_size % (uint32_t)lbs)
			atomic_store(&f->no_zero_range, true);
		else if (file_blk_queue_limit(st.st_rdev, "write_zeroes_max_bytes") > 0)
			f->dev.caps |= BS_CAP_DISCARD;
	} else {
		/* Punching a hole beyond the end of the file changes nothing
		 * but says whether the file system can. */
		off_t probe = (off_t)UT_ALIGN_UP(bytes, (uint64_t)65536) + 65536;

		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, probe, 65536) == 0)
			f->dev.caps |= BS_CAP_DISCARD;
		else
			log_info("backstore %s: no hole punching on %s (%s): no DISCARD", p->name,
				 p->path, strerror(errno));
	}
	file_map_image(f, p, bytes);
	log_notice("backstore %s: %s %s, %" PRIu64 " bytes%s%s", p->name,
		   f->is_blk ? "block device" : "file", p->path, bytes, created ? ", created" : "",
		   p->readonly ? ", read-only" : "");
	*out = &f->dev;
	return 0;

fail:
	if (f) {
		image_release(f);
		if (f->lock_fd >= 0)
			close(f->lock_fd);
	}
	free(f);
	close(fd);
	if (created)
		unlink(p->path);
	return rc;
}

const struct bs_type bs_file_type = {
    .name = "file",
    .open = file_open,
};
