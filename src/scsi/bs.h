/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bs.h: the contract between the SCSI core and a back-store.
 *
 * A back-store offers I/O primitives over byte ranges and never sees a CDB.
 * The core emulates everything else (WRITE SAME, COMPARE AND WRITE, VERIFY,
 * EXTENDED COPY, ...) on top of these primitives.
 *
 * Rules:
 *  - submit() is called on a reactor thread; io->done() runs later on that
 *    same reactor thread, or synchronously inside submit() (ram, null). The
 *    caller must cope with both.
 *  - off and len are multiples of the logical unit's block size and lie
 *    inside [0, size); the core checks ranges before calling.
 *  - READ/WRITE move exactly len bytes through iov[0..iovcnt) (total == len).
 *  - Errors are negative errno values: -EIO (medium error; set bad_off to
 *    the first failing byte when known, else leave it at UINT64_MAX), -ENOSPC
 *    (space allocation failed on a thin device), others (hardware error).
 *  - A back-store declares what it can do in caps; the core does not call an
 *    op whose cap is missing (it emulates or refuses instead).
 */
#ifndef UT_SCSI_BS_H
#define UT_SCSI_BS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

enum bs_op {
	BS_OP_READ,
	BS_OP_WRITE,
	BS_OP_FLUSH,	    /* make every completed write durable (off/len ignored) */
	BS_OP_DISCARD,	    /* deallocate [off, off+len); reads return zeroes after (LBPRZ) */
	BS_OP_WRITE_ZEROES, /* [off, off+len) reads back as zeroes; may stay allocated */
	BS_OP_MAP_STATUS,   /* from off: out map_len bytes all mapped or all unmapped */
	/* With BS_CAP_COMPARE_WRITE, atomically as seen by every client of the
	 * medium (other gateways to it included): if [off, off+len) holds
	 * iov[0] (len bytes), write iov[1] (len bytes) there; else -EILSEQ
	 * with bad_off the offset of the first differing byte from off, and
	 * nothing written. -EOPNOTSUPP: not for this range (e.g. it spans
	 * two objects); the core then emulates under its range lock. */
	BS_OP_COMPARE_WRITE,
	/* With BS_CAP_WRITE_SAME: iov[0] (one logical block) written to every
	 * block of [off, off+len), where the medium can do it without the
	 * data crossing for each block (a remote store). */
	BS_OP_WRITE_SAME,
	/* With BS_CAP_COPY: [src_off, src_off+len) of io->src, a dev of the
	 * same type, copied to [off, off+len) without the data crossing (a
	 * reference copy); -EXDEV: not between these two devs, the core
	 * then reads and writes. */
	BS_OP_COPY,
	/* With BS_CAP_PASSTHROUGH: send the CDB io->cdb (cdb_len bytes) to
	 * the device as it is, moving io->len bytes through iov in the
	 * direction io->dir (enum scsi_dir; off unused). The device's answer
	 * is a result, not an error: done(io, 0) with io->scsi_status, the
	 * sense it returned in io->sense[0..sense_len) and the bytes it did
	 * not move in io->resid. -errno only when the command could not be
	 * delivered (the device gone, a transport failure). The core decides
	 * which commands go this way (scsi/passthrough.c). */
	BS_OP_SCSI,
};

/* BS_OP_SCSI: the direction of the data (the values of enum scsi_dir). */
enum bs_dir {
	BS_DIR_NONE = 0,
	BS_DIR_READ = 1,  /* device -> buffers */
	BS_DIR_WRITE = 2, /* buffers -> device */
};

enum {
	BS_IO_FUA = 1u << 0,  /* WRITE: durable before done() */
	BS_IO_LEND = 1u << 1, /* READ: the data may be lent (io->lent) */
};

enum {
	BS_CAP_FLUSH = 1u << 0,
	BS_CAP_DISCARD = 1u << 1, /* thin: BS_OP_DISCARD deallocates */
	BS_CAP_WRITE_ZEROES = 1u << 2,
	BS_CAP_MAP_STATUS = 1u << 3,
	BS_CAP_FUA = 1u << 4,		/* FUA natively (else the core adds a FLUSH) */
	BS_CAP_READ_ONLY = 1u << 5,	/* opened read-only: writes would fail */
	BS_CAP_WRITE_CACHE = 1u << 6,	/* has a volatile cache: FLUSH is meaningful */
	BS_CAP_PI = 1u << 7,		/* keeps protection information tuples (io->pi) */
	BS_CAP_COMPARE_WRITE = 1u << 8, /* BS_OP_COMPARE_WRITE */
	BS_CAP_WRITE_SAME = 1u << 9,	/* BS_OP_WRITE_SAME */
	BS_CAP_COPY = 1u << 10,		/* BS_OP_COPY */
	BS_CAP_PASSTHROUGH = 1u << 11,	/* BS_OP_SCSI: a SCSI device behind (sg.c) */
};

struct bs_dev;

/* One thing an administrator may want to know of a medium (utarget
 * backstore show: an RBD image's object size and features, ...). */
struct bs_fact {
	const char *key; /* a static string */
	char value[96];
};
#define BS_FACTS_MAX 12

/* Back-store private scratch space in every request, so no back-store has to
 * allocate per I/O (e.g. a struct reactor_uring_req or struct workq_item). */
#define BS_IO_PRIV_SIZE 96

struct bs_io {
	uint8_t op;    /* enum bs_op */
	uint8_t flags; /* BS_IO_* */
	uint64_t off;  /* bytes */
	uint64_t len;  /* bytes */
	struct iovec *iov;
	int iovcnt;
	/* results */
	uint64_t map_len; /* BS_OP_MAP_STATUS */
	bool mapped;	  /* BS_OP_MAP_STATUS */
	uint64_t bad_off; /* -EIO: first failing byte, UINT64_MAX if unknown */
	/* READ with BS_IO_LEND (the caller sets it NULL): instead of copying
	 * the len bytes into iov, the back-store may complete with lent
	 * pointing at memory that holds them (the file back-store: its
	 * mapping of the image, when every page of the range is in the page
	 * cache; the ram back-store: its memory, when every chunk of the
	 * range has been written). The memory stays mapped until the dev is
	 * closed and shows the medium as it is when read: a later write shows
	 * through, so the caller holds off what must not (sbc.c, order.c). */
	const uint8_t *lent;
	/* READ/WRITE of a back-store with BS_CAP_PI: the protection
	 * information tuples of the blocks (len / block size * 8 bytes,
	 * lib/t10pi.h), read into or written from here; NULL: data only (a
	 * WRITE then gets generated tuples). Ignored without BS_CAP_PI. */
	uint8_t *pi;
	struct bs_dev *src; /* BS_OP_COPY: the source dev and offset */
	uint64_t src_off;
	/* BS_OP_SCSI: in cdb, cdb_len, dir, sense (a buffer of sense_len
	 * bytes); out scsi_status, sense_len (bytes of sense returned), resid */
	const uint8_t *cdb;
	uint8_t cdb_len;
	uint8_t dir;
	uint8_t scsi_status;
	uint8_t sense_len;
	uint8_t *sense;
	uint32_t resid;
	void (*done)(struct bs_io *io, int err);
	_Alignas(16) unsigned char priv[BS_IO_PRIV_SIZE];
};

struct bs_ops {
	const char *type;
	void (*submit)(struct bs_dev *dev, struct bs_io *io);
	/* Change the size (bytes); 0 or -errno. Optional (NULL: not resizable). */
	int (*resize)(struct bs_dev *dev, uint64_t new_size);
	/* The space of a thin back-store (SBC-4 logical block provisioning log
	 * page): *used the bytes allocated to the device, *avail the bytes it
	 * can still allocate (free space under it, at most size - used), and
	 * *avail_shared whether that free space is shared with others (a file
	 * system). 0 or -errno; cheap (the reactor thread calls it). Optional
	 * (NULL: not known). */
	int (*space)(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared);
	/* A back-store with BS_CAP_PI: the protection type (enum t10pi_type,
	 * 0 none) the tuples it generates from now on are of (FORMAT UNIT);
	 * called with no request in flight. Optional (NULL: the type it was
	 * created with, which FORMAT UNIT then cannot change). */
	void (*set_pi_type)(struct bs_dev *dev, uint8_t type);
	/* Re-read the size of a medium that can change underneath (a block
	 * device grown with LVM or `losetup -c`): the bytes it holds now (and
	 * dev->size set to them), 0 when it cannot tell. Cheap (an ioctl);
	 * the core calls it on a reactor thread, at most once per
	 * LU_CAPACITY_POLL_NS per LU, and raises CAPACITY DATA HAS CHANGED
	 * when the answer differs (lu.c). Optional. */
	uint64_t (*medium_size)(struct bs_dev *dev);
	/* Facts of the medium: fills f[0..max), returns how many. From
	 * values the back-store keeps (the control thread calls it: no
	 * waiting on a device or a network). Optional. */
	size_t (*facts)(struct bs_dev *dev, struct bs_fact *f, size_t max);
	/* A consistency check of the medium (a dedup store's fsck): its
	 * findings in f[0..*n), *n <= max. 0 or -errno. May take long and
	 * block (the control thread calls it, no request waits on it).
	 * Optional. */
	int (*check)(struct bs_dev *dev, struct bs_fact *f, size_t max, size_t *n);
	void (*close)(struct bs_dev *dev); /* frees dev */
};

struct bs_dev {
	const struct bs_ops *ops;
	uint64_t size;	   /* bytes */
	uint32_t caps;	   /* BS_CAP_* */
	uint32_t opt_unit; /* preferred I/O granularity in bytes (0 = none) */
	/* The medium's own geometry, where it has one (a block device, a
	 * remote LUN); 0 = none (any block size the LU chooses works). An LU
	 * over it uses lbs, or a multiple of it, as its block size. */
	uint32_t lbs;	       /* logical block size in bytes */
	uint32_t pbs;	       /* physical block size in bytes */
	uint32_t discard_gran; /* BS_OP_DISCARD granularity in bytes */
	char type[16];
	char name[64];
	void *priv;
};

static inline void bs_submit(struct bs_dev *dev, struct bs_io *io)
{
	io->bad_off = UINT64_MAX;
	dev->ops->submit(dev, io);
}

#endif
