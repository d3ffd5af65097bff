/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backstore.h: the registry of back-store types, for the config layer.
 *
 * bs_open() validates the parameters common to every type, finds the type in
 * an explicit table (backstore.c) and opens a struct bs_dev (scsi/bs.h) that
 * the caller hands to scsi_lu_create(), which takes ownership; a dev not
 * handed over is released with bs_close().
 *
 * Types:
 *  file  a regular file (created sparse when `create` and missing; grown to
 *        `size` when smaller, never shrunk) or a block device node; I/O
 *        through the submitting reactor's io_uring, else the worker pool.
 *  block a block device, O_DIRECT, with its geometry (lbs, pbs, optimal I/O
 *        size, discard granularity), its write cache and read-only flag;
 *        resized underneath: medium_size (block.c).
 *  ram   sparse memory of `size` bytes (required); contents die with it.
 *  null  reads return zeroes, writes are discarded; `size` required. For
 *        benchmarks.
 *  iscsi a gateway to a LUN of another iSCSI target (`url`; options
 *        `initiator`, `timeout`): size and block size are the remote's
 *        (iscsi.c).
 *  plugin a handler loaded from <plugin_dir>/<handler>.so (plugin.c), with
 *        `options` as its settings; size and geometry are the handler's.
 *  rbd   a Ceph RBD image, `path` POOL[/NAMESPACE]/IMAGE (rbd.c).
 *  dedup a volume called `name` of `size` bytes in the deduplicating chunk
 *        store at the directory `path` (created when missing), shared with
 *        every dedup back-store of the same path (dedup.c, dedup_store.c).
 *  sg    a local SCSI disk (`path` /dev/sgN or /dev/sdX) whose commands pass
 *        through (BS_CAP_PASSTHROUGH, scsi/passthrough.c decides which);
 *        size and block size are the device's (sg.c).
 */
#ifndef UT_BACKSTORE_H
#define UT_BACKSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/bs.h"

/* A type-specific setting (plugin handlers, the iscsi gateway). */
struct bs_option {
	const char *key;
	const char *value;
};

struct bs_params {
	const char *type;    /* "file", "block", "ram", "null", "iscsi", "plugin", "rbd", "dedup",
			      * "sg" */
	const char *name;    /* 1..63 bytes, kept in bs_dev.name for logs */
	const char *path;    /* file, block, sg: the file or device; rbd: POOL[/NAMESPACE]/IMAGE;
			      * dedup: the store's directory */
	uint64_t size;	     /* bytes; required for ram/null; file: size of a created
			      * file (and the minimum size of an existing one) */
	bool create;	     /* file: create a sparse file of `size` if missing */
	bool readonly;	     /* open read-only; BS_CAP_READ_ONLY */
	uint32_t block_size; /* logical block size: a power of two 512..65536
			      * (0 = 512); the size is rounded down to it */
	const char *url;     /* iscsi: iscsi://[user[%secret]@]host[:port]/IQN/LUN */
	const char *handler; /* plugin: the handler, loaded as <plugin_dir>/<handler>.so */
	const char *plugin_dir;
	const struct bs_option *options; /* type-specific key=value settings */
	size_t noptions;
};

/* 0 or -errno (the reason is logged): -EINVAL bad parameters, -ENOENT
 * missing file without `create`, -ENOMEM, or the error of open/ftruncate. */
int bs_open(const struct bs_params *p, struct bs_dev **out);

/* NULL-terminated list of registered type names. */
const char *const *bs_types(void);

static inline void bs_close(struct bs_dev *dev)
{
	if (dev)
		dev->ops->close(dev);
}

/* ---- for the type implementations (backstore.c's table) ---- */

struct bs_type {
	const char *name;
	/* Called with validated parameters: type matched, name set, block_size
	 * a power of two in 512..65536, size a multiple of it (0 only for
	 * file). dev->type and dev->name are filled in by bs_open. */
	int (*open)(const struct bs_params *p, struct bs_dev **out);
};

extern const struct bs_type bs_file_type;
extern const struct bs_type bs_block_type;
extern const struct bs_type bs_ram_type;
extern const struct bs_type bs_null_type;
extern const struct bs_type bs_iscsi_type;
extern const struct bs_type bs_plugin_type;
extern const struct bs_type bs_rbd_type;
extern const struct bs_type bs_dedup_type;
extern const struct bs_type bs_sg_type;

/* Helpers shared by the types. */
/* Fill iov[0..iovcnt) with zeroes (len bytes in total). */
void bs_iov_zero(const struct iovec *iov, int iovcnt);
/* A position in a request's iovec array, for a back-store that copies
 * between its own memory and the request's buffers (ram, dedup). */
struct bs_iov_cursor {
	const struct iovec *iov;
	int cnt;
	int i;
	size_t off; /* in iov[i] */
};
/* Copy n bytes from src (zeroes when src is NULL) into the buffers at the
 * cursor, and advance it; false when the iovecs end first. */
bool bs_iov_out(struct bs_iov_cursor *c, const void *src, size_t n);
/* Copy n bytes from the buffers at the cursor into dst, and advance it;
 * false when the iovecs end first. */
bool bs_iov_in(struct bs_iov_cursor *c, void *dst, size_t n);

/* The sense data (fixed or descriptor format) of a device's CHECK
 * CONDITION as the errno of a failed primitive (iscsi gateway, sg):
 * MEDIUM ERROR -EIO (*info the INFORMATION field when valid, else
 * UINT64_MAX), DATA PROTECT -EROFS, or -ENOSPC for SPACE ALLOCATION FAILED
 * WRITE PROTECT (27h/07h), UNIT ATTENTION -EAGAIN (retry), NOT READY with
 * LOGICAL UNIT IS IN PROCESS OF BECOMING READY -EAGAIN, anything else -EIO. */
int bs_sense_errno(const uint8_t *s, size_t len, uint64_t *info);

#endif
