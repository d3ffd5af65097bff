/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file_dev.h: what the file back-store (file.c) shares with the block
 * back-store (block.c), which is the same I/O engine opened O_DIRECT on a
 * block device with the device's geometry. Internal to src/backstore. */
#ifndef UT_BACKSTORE_FILE_DEV_H
#define UT_BACKSTORE_FILE_DEV_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "backstore/backstore.h"
#include "lib/reactor.h"
#include "lib/workq.h"

struct file_dev {
	struct bs_dev dev;
	int fd;
	uint32_t block_size;
	bool is_blk;
	bool direct;  /* opened O_DIRECT (block): no inline path */
	uint32_t lbs; /* O_DIRECT: the device's logical block size (alignment) */
	bool readonly;
	atomic_bool no_zero_range; /* ZERO_RANGE refused: write zeroes instead */
	atomic_bool no_nowait;	   /* RWF_NOWAIT reads refused: no inline reads */
	/* a file of a memory file system (tmpfs, ramfs) that refuses
	 * RWF_NOWAIT: reads are copied inline without it (file_try_inline) */
	bool mem_reads;
	/* a regular file's image mapped read-only, whose pages READs with
	 * BS_IO_LEND are lent from (file_lend); NULL: none */
	const uint8_t *map;
	size_t map_len;		       /* bytes mapped */
	_Atomic uint64_t map_lendable; /* bytes of it lent from (shrinks) */
	/* reactor_now_ns() before which writes are not tried inline (a slow
	 * inline write was seen); 0: tried */
	_Atomic uint64_t inline_wr_off_until;
	/* the image's identity and the back-store using it (image_claim) */
	dev_t st_dev;
	ino_t st_ino;
	char name[64];
	struct file_dev *next_open;
	int lock_fd; /* a dup of the predecessor's descriptor holding the flock (a
			back-store replaced by one of its name); -1: fd holds it */
};

/* Per-request state, in bs_io.priv. */
struct file_req {
	union {
		struct reactor_uring_req ureq;
		struct workq_item wq;
	};
	struct file_dev *f;
	uint64_t xfer;	  /* READ/WRITE: bytes done so far */
	struct iovec tmp; /* the partly done iovec when a transfer resumes */
	int err;	  /* worker pool result */
};
static_assert(sizeof(struct file_req) <= BS_IO_PRIV_SIZE, "file_req must fit bs_io.priv");
static_assert(_Alignof(struct file_req) <= 16, "bs_io.priv is 16-byte aligned");

static inline struct file_req *file_req_of(struct bs_io *io)
{
	return (struct file_req *)(void *)io->priv;
}

static inline struct bs_io *file_io_of(struct file_req *rq)
{
	return (struct bs_io *)(void *)((unsigned char *)rq - offsetof(struct bs_io, priv));
}

/* io->done(io, err), with EDQUOT reported as ENOSPC */
void file_finish(struct bs_io *io, int err);
/* One user per image (an flock and the daemon's list): 0 or -errno. */
int image_claim(struct file_dev *f, const struct bs_params *p, const struct stat *st);
void image_release(struct file_dev *f);
/* bs_ops of the file back-store, which block.c's reuse. */
void file_submit(struct bs_dev *dev, struct bs_io *io);
int file_resize(struct bs_dev *dev, uint64_t new_size);
void file_close(struct bs_dev *dev);
/* A queue attribute (/sys/dev/block/M:m/queue/ATTR) of a block device or
 * of the disk a partition is on, as text into buf; false when unknown. */
bool file_blk_queue_attr(dev_t rdev, const char *attr, char *buf, size_t size);
/* The same as a number; 0 when unknown. */
uint64_t file_blk_queue_limit(dev_t rdev, const char *attr);

#endif
