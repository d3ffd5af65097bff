/* SPDX-License-Identifier: GPL-2.0-or-later */
/* block.c: a back-store over a block device (an LVM volume, an md array, an
 * NVMe namespace, a loop device), opened O_DIRECT.
 *
 * The I/O engine is the file back-store's (file.c, shared through
 * file_dev.h): io_uring of the submitting reactor, else the worker pool;
 * READV/WRITEV with RWF_DSYNC for FUA, FSYNC for FLUSH, FALLOCATE for
 * DISCARD and WRITE_ZEROES. What is the block device's own:
 *  - O_DIRECT: no page cache between the initiator and the device, so
 *    there is no inline path (it would wait for the device on the reactor
 *    thread). O_DIRECT wants buffers and lengths aligned to the logical
 *    block size; the core's data buffers are page-aligned (lib/bufpool.h)
 *    and transfers are whole blocks, so requests go straight through; one
 *    that is not aligned (a buffer of another origin) is carried out on the
 *    worker pool through an aligned bounce buffer.
 *  - geometry from the device: logical block size (BLKSSZGET; the LU's
 *    block size is it or a multiple, config/apply.c), physical block size
 *    (BLKPBSZGET: LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT in READ
 *    CAPACITY(16)), optimal I/O size (BLKIOOPT: VPD B0h OPTIMAL TRANSFER
 *    LENGTH), discard granularity (queue/discard_granularity).
 *  - UNMAP: FALLOC_FL_PUNCH_HOLE, which the block layer turns into
 *    REQ_OP_WRITE_ZEROES with deallocation allowed (blkdev_fallocate). Not
 *    BLKDISCARD: a discarded range of a Linux block device may read back
 *    as anything (the kernel no longer promises discard_zeroes_data), and
 *    the core reports LBPRZ=1 (SBC-4 4.7.4.5: a deallocated block reads as
 *    zeroes). A device without write-zeroes offloads gets no DISCARD, so
 *    its LU is exported fully provisioned.
 *  - WRITE SAME of zeroes: FALLOC_FL_ZERO_RANGE (blkdev_issue_zeroout, the
 *    BLKZEROOUT ioctl's path).
 *  - SYNCHRONIZE CACHE: FLUSH (fdatasync) only when the device has a
 *    volatile write cache (queue/write_cache "write back"); on a
 *    write-through device there is nothing to flush, the capability is
 *    left out and the core completes SYNCHRONIZE CACHE at once. FUA is
 *    RWF_DSYNC either way.
 *  - a device the kernel marks read-only (BLKROGET) is opened read-only.
 *  - GET LBA STATUS (MAP_STATUS): a block device does not say which of its
 *    blocks are allocated; a block that reads as zeroes is reported
 *    deallocated, any other mapped. With LBPRZ=1 the two read the same,
 *    and a range UNMAP or SANITIZE BLOCK ERASE deallocated is reported so.
 *    Read on the worker pool, at most BLOCK_MAP_SCAN bytes a request (the
 *    core asks again from where the answer ends).
 *  - resize underneath (LVM, `losetup -c`): bs_ops.medium_size reads
 *    BLKGETSIZE64; the core polls it and raises CAPACITY DATA HAS CHANGED.
 * One user per device, as for files (image_claim: an flock and the
 * daemon's list). Not done: registered files and fixed buffers in the
 * reactor's ring (the ring is shared by every back-store of the reactor).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>

#include "backstore/backstore.h"
#include "backstore/file_dev.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "lib/workq.h"

#define BLOCK_MAP_SCAN (4u << 20)

/* Whether every segment of a READ or WRITE meets O_DIRECT's alignment. */
static bool block_aligned(const struct file_dev *f, const struct bs_io *io)
{
	uintptr_t mask = f->lbs - 1;

	for (int i = 0; i < io->iovcnt; i++)
		if (((uintptr_t)io->iov[i].iov_base | io->iov[i].iov_len) & mask)
			return false;
	return true;
}

/* Worker pool: the transfer through an aligned buffer. */
static void block_bounce_work(struct workq_item *w)
{
	struct file_req *rq = container_of(w, struct file_req, wq);
	struct bs_io *io = file_io_of(rq);
	struct file_dev *f = rq->f;
	bool rd = io->op == BS_OP_READ;
	size_t len = (size_t)io->len, done = 0, pos = 0;
	uint8_t *buf = NULL;

	if (posix_memalign((void **)&buf, 4096, len ? len : 4096)) {
		rq->err = -ENOMEM;
		return;
	}
	if (!rd)
		for (int i = 0; i < io->iovcnt && pos < len; i++) {
			size_t n = UT_MIN(io->iov[i].iov_len, len - pos);

			memcpy(buf + pos, io->iov[i].iov_base, n);
			pos += n;
		}
	rq->err = 0;
	while (done < len) {
		ssize_t k =
		    rd ? pread(f->fd, buf + done, len - done, (off_t)(io->off + done))
		       : pwritev2(f->fd,
				  &(struct iovec){.iov_base = buf + done, .iov_len = len - done}, 1,
				  (off_t)(io->off + done), (io->flags & BS_IO_FUA) ? RWF_DSYNC : 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rq->err = k < 0 ? -errno : -EIO;
			if (k == 0)
				io->bad_off = io->off + done;
			break;
		}
		done += (size_t)k;
	}
	if (rd && !rq->err) {
		pos = 0;
		for (int i = 0; i < io->iovcnt && pos < len; i++) {
			size_t n = UT_MIN(io->iov[i].iov_len, len - pos);

			memcpy(io->iov[i].iov_base, buf + pos, n);
			pos += n;
		}
	}
	free(buf);
}

static void block_bounce_done(struct workq_item *w)
{
	struct file_req *rq = container_of(w, struct file_req, wq);

	file_finish(file_io_of(rq), rq->err);
}

static bool block_is_zero(const uint8_t *p, size_t n)
{
	return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

/* Worker pool: MAP_STATUS from io->off, by reading (see the top). */
static void block_map_work(struct workq_item *w)
{
	struct file_req *rq = container_of(w, struct file_req, wq);
	struct bs_io *io = file_io_of(rq);
	struct file_dev *f = rq->f;
	uint64_t bs = f->block_size, off = io->off, end;
	size_t len;
	uint8_t *buf = NULL;
	ssize_t k;
	bool first_zero;

	end = UT_MIN(f->dev.size, off + BLOCK_MAP_SCAN);
	len = (size_t)(end - off);
	if (posix_memalign((void **)&buf, 4096, len)) {
		rq->err = -ENOMEM;
		return;
	}
	do
		k = pread(f->fd, buf, len, (off_t)off);
	while (k < 0 && errno == EINTR);
	if (k < (ssize_t)bs) {
		rq->err = k < 0 ? -errno : -EIO;
		free(buf);
		return;
	}
	len = (size_t)k - (size_t)k % bs;
	first_zero = block_is_zero(buf, bs);
	io->map_len = bs;
	while (io->map_len < len && block_is_zero(buf + io->map_len, bs) == first_zero)
		io->map_len += bs;
	io->mapped = !first_zero;
	rq->err = 0;
	free(buf);
}

static void block_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);

	if (io->op == BS_OP_MAP_STATUS && io->off < dev->size) {
		struct file_req *rq = file_req_of(io);

		rq->f = f;
		rq->wq.work = block_map_work;
		rq->wq.done = block_bounce_done;
		if (!reactor_self()) {
			block_map_work(&rq->wq);
			block_bounce_done(&rq->wq);
			return;
		}
		workq_submit(&rq->wq);
		return;
	}

	if ((io->op == BS_OP_READ || io->op == BS_OP_WRITE) && !block_aligned(f, io) &&
	    io->off <= dev->size && io->len <= dev->size - io->off &&
	    !(io->op == BS_OP_WRITE && f->readonly)) {
		struct file_req *rq = file_req_of(io);

		rq->f = f;
		rq->err = 0;
		rq->wq.work = block_bounce_work;
		rq->wq.done = block_bounce_done;
		if (!reactor_self()) {
			block_bounce_work(&rq->wq);
			block_bounce_done(&rq->wq);
			return;
		}
		workq_submit(&rq->wq);
		return;
	}
	file_submit(dev, io);
}

static uint64_t block_medium_size(struct bs_dev *dev)
{
	struct file_dev *f = container_of(dev, struct file_dev, dev);
	uint64_t bytes;

	if (ioctl(f->fd, BLKGETSIZE64, &bytes) < 0)
		return 0;
	bytes -= bytes % f->block_size;
	if (bytes != dev->size)
		log_notice("backstore %s: the device now holds %" PRIu64 " bytes (was %" PRIu64 ")",
			   dev->name, bytes, dev->size);
	dev->size = bytes;
	return bytes;
}

static const struct bs_ops block_ops = {
    .type = "block",
    .submit = block_submit,
    .resize = file_resize,
    .medium_size = block_medium_size,
    .close = file_close,
};

/* queue/write_cache: "write back" (a volatile cache) or "write through";
 * unknown: flush to be safe */
static bool block_has_write_cache(dev_t rdev)
{
	char buf[32];

	return !file_blk_queue_attr(rdev, "write_cache", buf, sizeof(buf)) ||
	       strncmp(buf, "write through", 13) != 0;
}

static int block_open(const struct bs_params *p, struct bs_dev **out)
{
	struct file_dev *f = NULL;
	int fd = -1, rc, lbs = 0, ro = 0;
	unsigned int pbs = 0, opt = 0;
	bool readonly = p->readonly;
	struct stat st;
	uint64_t bytes;

	if (!p->path || !*p->path) {
		log_err("backstore %s: block needs the path of a block device", p->name);
		return -EINVAL;
	}
	fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		log_err("backstore %s: cannot open %s: %s", p->name, p->path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		log_err("backstore %s: %s is not a block device (a file is type \"file\")", p->name,
			p->path);
		close(fd);
		return -ENOTBLK;
	}
	if (ioctl(fd, BLKROGET, &ro) == 0 && ro && !readonly) {
		log_notice("backstore %s: %s is read-only: exported write protected", p->name,
			   p->path);
		readonly = true;
	}
	close(fd);
	fd = open(p->path, (readonly ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		log_err("backstore %s: cannot open %s O_DIRECT: %s", p->name, p->path,
			strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0 ||
	    ioctl(fd, BLKSSZGET, &lbs) < 0) {
		rc = -errno;
		log_err("backstore %s: %s: cannot read the geometry: %s", p->name, p->path,
			strerror(-rc));
		close(fd);
		return rc;
	}
	if (lbs < 512 || lbs > 65536 || (lbs & (lbs - 1))) {
		log_err("backstore %s: %s has %d-byte logical blocks", p->name, p->path, lbs);
		close(fd);
		return -EINVAL;
	}
	if (ioctl(fd, BLKPBSZGET, &pbs) < 0 || pbs < (unsigned)lbs || (pbs & (pbs - 1)))
		pbs = (unsigned)lbs;
	if (ioctl(fd, BLKIOOPT, &opt) < 0)
		opt = 0;
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->lock_fd = -1;
	f->is_blk = true;
	f->direct = true;
	f->lbs = (uint32_t)lbs;
	/* the LU's block size: the device's or a multiple (apply.c) */
	f->block_size = UT_MAX(p->block_size, (uint32_t)lbs);
	f->readonly = readonly;
	rc = image_claim(
	    f, &(struct bs_params){.name = p->name, .path = p->path, .readonly = readonly}, &st);
	if (rc) {
		free(f);
		close(fd);
		return rc;
	}
	bytes -= bytes % f->block_size;
	if (bytes == 0) {
		log_err("backstore %s: %s is empty", p->name, p->path);
		file_close(&f->dev);
		return -EINVAL;
	}
	f->dev.ops = &block_ops;
	f->dev.size = bytes;
	f->dev.priv = f;
	f->dev.lbs = (uint32_t)lbs;
	f->dev.pbs = pbs;
	f->dev.discard_gran = (uint32_t)file_blk_queue_limit(st.st_rdev, "discard_granularity");
	if (opt && opt <= (1u << 24) && opt % (unsigned)lbs == 0)
		f->dev.opt_unit = opt;
	f->dev.caps = BS_CAP_FUA | BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS;
	if (block_has_write_cache(st.st_rdev))
		f->dev.caps |= BS_CAP_FLUSH | BS_CAP_WRITE_CACHE;
	if (readonly)
		f->dev.caps |= BS_CAP_READ_ONLY;
	else if (file_blk_queue_limit(st.st_rdev, "write_zeroes_max_bytes") > 0)
		f->dev.caps |= BS_CAP_DISCARD; /* PUNCH_HOLE: zeroes, deallocated */
	log_notice("backstore %s: block device %s, %" PRIu64
		   " bytes, logical %d, physical %u, optimal %u, %s%s",
		   p->name, p->path, bytes, lbs, pbs, opt,
		   (f->dev.caps & BS_CAP_WRITE_CACHE) ? "write back" : "write through",
		   readonly ? ", read-only" : "");
	*out = &f->dev;
	return 0;
}

const struct bs_type bs_block_type = {
    .name = "block",
    .open = block_open,
};
