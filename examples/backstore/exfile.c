/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exfile.c: an example utarget back-store handler over a regular file.
 *
 * Options (the back-store's "options" in the config):
 *   path=FILE      the image (required); created when missing
 *   size=N[KMGT]   its size; a smaller file is grown (sparse), never shrunk;
 *                  0 or absent: the file's size
 *   block=N        logical block size (512..65536, a power of two; 512)
 *   threads=N      LU threads, each doing blocking I/O (1..64; 4)
 *
 * I/O is synchronous on the daemon's LU threads: preadv/pwritev (RWF_DSYNC
 * for FUA), fdatasync for FLUSH, fallocate(PUNCH_HOLE) for DISCARD and
 * WRITE_ZEROES (a hole reads back as zeroes), lseek(SEEK_DATA/SEEK_HOLE)
 * for MAP_STATUS (GET LBA STATUS). Where the file system cannot punch
 * holes, the handler offers none of the three and the daemon writes zeroes
 * itself.
 *
 * Build out of tree against the installed header:
 *   cc -O2 -Wall -shared -fPIC $(pkg-config --cflags utarget-backstore) \
 *      -o exfile.so exfile.c
 * and install exfile.so into the daemon's plugin directory
 * (`pkg-config --variable=plugindir utarget-backstore`, or the config's
 * plugin_dir). Config:
 *   { "name": "lu0", "type": "plugin", "handler": "exfile",
 *     "options": { "path": "/srv/lu0.img", "size": "1G" } }
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/falloc.h>

#include <utarget/backstore.h>

struct exfile {
	const struct utbs_host *host;
	int fd;
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'T': v <<= 10; __attribute__((fallthrough));
	case 'G': v <<= 10; __attribute__((fallthrough));
	case 'M': v <<= 10; __attribute__((fallthrough));
	case 'K': v <<= 10; end++; break;
	default: break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* Move len bytes between the file at off and iov, continuing short
 * transfers. */
static int rw(struct exfile *x, const struct utbs_request *rq, int wr)
{
	struct iovec v[IOV_MAX];
	uint64_t done = 0;
	int flags = wr && (rq->flags & UTBS_REQ_FUA) ? RWF_DSYNC : 0;

	while (done < rq->len) {
		uint64_t skip = done;
		int i = 0, n = 0;
		ssize_t k;

		while (i < rq->iovcnt && skip >= rq->iov[i].iov_len)
			skip -= rq->iov[i++].iov_len;
		for (; i < rq->iovcnt && n < IOV_MAX; i++, n++) {
			v[n].iov_base = (char *)rq->iov[i].iov_base + skip;
			v[n].iov_len = rq->iov[i].iov_len - skip;
			skip = 0;
		}
		if (n == 0)
			return -EINVAL;
		if (wr)
			k = pwritev2(x->fd, v, n, (off_t)(rq->off + done), flags);
		else
			k = preadv2(x->fd, v, n, (off_t)(rq->off + done), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO; /* the file shrank under us */
		done += (uint64_t)k;
	}
	return 0;
}

/* Mapped or not from rq->off on, and for how long (the daemon rounds to
 * blocks). */
static int map_status(struct exfile *x, struct utbs_request *rq)
{
	off_t off = (off_t)rq->off, end = (off_t)(rq->off + rq->len);
	off_t d = lseek(x->fd, off, SEEK_DATA), h = d;

	if (d < 0 && errno != ENXIO)
		return -errno;
	rq->mapped = d == off;
	if (rq->mapped && (h = lseek(x->fd, off, SEEK_HOLE)) < 0)
		return -errno;
	if (h < 0 || h > end) /* ENXIO: a hole up to the end of the file */
		h = end;
	rq->map_len = (uint64_t)(h - off);
	return 0;
}

static void ex_submit(void *ctx, struct utbs_request *rq)
{
	struct exfile *x = ctx;
	int err = 0;

	switch (rq->op) {
	case UTBS_OP_READ:
		err = rw(x, rq, 0);
		break;
	case UTBS_OP_WRITE:
		err = rw(x, rq, 1);
		break;
	case UTBS_OP_FLUSH:
		err = fdatasync(x->fd) < 0 ? -errno : 0;
		break;
	case UTBS_OP_DISCARD:
	case UTBS_OP_WRITE_ZEROES:
		if (fallocate(x->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)rq->off,
			      (off_t)rq->len) < 0)
			err = -errno;
		break;
	case UTBS_OP_MAP_STATUS:
		err = map_status(x, rq);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	x->host->complete(rq, err);
}

static int ex_open(const struct utbs_host *host, const struct utbs_option *opt, size_t nopt,
		   struct utbs_info *info, void **ctx)
{
	const char *path = NULL;
	uint64_t size = 0, block = 512, threads = 4;
	struct exfile *x;
	struct stat st;
	int ro = !!(host->open_flags & UTBS_OPEN_READ_ONLY);

	for (size_t i = 0; i < nopt; i++) {
		const char *k = opt[i].key, *v = opt[i].value;
		int bad = 0;

		if (!strcmp(k, "path"))
			path = v;
		else if (!strcmp(k, "size"))
			bad = parse_u64(v, &size);
		else if (!strcmp(k, "block"))
			bad = parse_u64(v, &block) || block < 512 || block > 65536 ||
			      (block & (block - 1));
		else if (!strcmp(k, "threads"))
			bad = parse_u64(v, &threads) || !threads || threads > UTBS_MAX_THREADS;
		else
			bad = 1;
		if (bad) {
			host->log(host, UTBS_LOG_ERR, "exfile: bad option %s=%s", k, v);
			return -EINVAL;
		}
	}
	if (!path || !*path) {
		host->log(host, UTBS_LOG_ERR, "exfile: option path= is required");
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->host = host;
	x->fd = open(path, (ro ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC, 0600);
	if (x->fd < 0 || fstat(x->fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (!ro && size > (uint64_t)st.st_size) {
		if (ftruncate(x->fd, (off_t)size) < 0)
			goto fail;
	} else if (!size || size > (uint64_t)st.st_size) {
		size = (uint64_t)st.st_size;
	}
	if (size < block) {
		errno = EINVAL;
		goto fail;
	}
	info->size = size - size % block;
	info->logical_block_size = (uint32_t)block;
	info->threads = (uint32_t)threads;
	info->caps = UTBS_CAP_FLUSH | UTBS_CAP_FUA | UTBS_CAP_WRITE_CACHE |
		     (ro ? UTBS_CAP_READ_ONLY : 0);
	/* thin only where the file system punches holes (probed past the end
	 * of the file, which changes nothing) */
	if (!ro && fallocate(x->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			     (off_t)(st.st_size > (off_t)size ? st.st_size : (off_t)size),
			     (off_t)block) == 0)
		info->caps |= UTBS_CAP_DISCARD | UTBS_CAP_WRITE_ZEROES | UTBS_CAP_MAP_STATUS;
	host->log(host, UTBS_LOG_INFO, "exfile: %s, %llu bytes, %u-byte blocks", path,
		  (unsigned long long)info->size, info->logical_block_size);
	*ctx = x;
	return 0;
fail:;
	int err = -errno;

	host->log(host, UTBS_LOG_ERR, "exfile: %s: %s", path, strerror(errno));
	if (x->fd >= 0)
		close(x->fd);
	free(x);
	return err;
}

static void ex_close(void *ctx)
{
	struct exfile *x = ctx;

	close(x->fd);
	free(x);
}

UTBS_EXPORT const struct utbs_handler utbs_handler = {
    .abi_version = UTBS_ABI_VERSION,
    .name = "exfile",
    .open = ex_open,
    .submit = ex_submit,
    .close = ex_close,
};
