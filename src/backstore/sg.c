/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sg.c: the sg back-store, a local SCSI disk (/dev/sgN, or /dev/sdX) whose
 * commands pass through (SG_IO).
 *
 * Contract (scsi/bs.h): BS_CAP_PASSTHROUGH. The core sends the commands it
 * does not keep for itself (scsi/passthrough.c: reservations, REQUEST SENSE,
 * REPORT LUNS, the identifier VPD pages, target port groups and the copy
 * manager stay in the core) as BS_OP_SCSI, and this back-store hands the
 * CDB, the data and the device's status, sense and residual back as they
 * are. The core runs its own handlers on the byte-range primitives, which
 * map to commands of the device: READ -> READ(16), WRITE -> WRITE(16) (FUA
 * bit for BS_IO_FUA), FLUSH -> SYNCHRONIZE CACHE(10); a CHECK CONDITION
 * maps to errno with bs_sense_errno() (a UNIT ATTENTION is retried,
 * bounded, since the primitive's caller is not the initiator the device
 * meant).
 *
 * I/O: a blocking SG_IO ioctl per request on the worker pool (lib/workq.h,
 * the pool the file back-store uses without io_uring), completed on the
 * submitting reactor. SG_IO works on both the sg node and the disk's block
 * node, and a blocking call on a worker keeps the reactor free; the sg
 * driver's own asynchronous write()/read() interface would save the thread
 * hop but exists on /dev/sgN only and needs its own reply demultiplexing.
 * io_uring has no SCSI pass-through command.
 *
 * open() (control thread): the device must answer SG_GET_VERSION_NUM (sg
 * or an SG_IO-capable block device) and be a direct access block device
 * (INQUIRY peripheral device type 0). TEST UNIT READY is repeated until the
 * device has no unit attention left (its power-on or reset conditions
 * predate the LU; the core gives each I_T nexus a POWER ON of its own),
 * then READ CAPACITY(16) (READ CAPACITY(10) when refused) gives the size,
 * the logical block size and the physical one (LOGICAL BLOCKS PER PHYSICAL
 * BLOCK EXPONENT). The LU's block size must be the device's (config/apply.c):
 * the CDBs that pass through count in the device's blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/workq.h"

#define SG_TIMEOUT_MS	   60000u
#define SG_SENSE_LEN	   64u
#define SG_CHUNK_BYTES	   (256u << 10) /* per READ/WRITE(16) of a primitive */
#define SG_CHUNK_IOV	   64
#define SG_UA_RETRIES	   8u
#define SG_OPEN_UA_DRAIN   16u
#define SG_STAT_GOOD	   0x00
#define SG_STAT_CHECK_COND 0x02

struct sg_dev {
	struct bs_dev dev;
	int fd;
	uint32_t lbs;
	char path[64];
	char vendor[9];
	char product[17];
	char revision[5];
};

/* Per request, in bs_io.priv. */
struct sg_req {
	struct workq_item wq;
	struct sg_dev *s;
	int err;
};
_Static_assert(sizeof(struct sg_req) <= BS_IO_PRIV_SIZE, "sg_req fits bs_io.priv");

static inline struct sg_req *sg_req_of(struct bs_io *io)
{
	return (struct sg_req *)io->priv;
}

static inline struct bs_io *sg_io_of(struct sg_req *rq)
{
	return container_of((void *)rq, struct bs_io, priv);
}

/* The result of one SG_IO. */
struct sg_result {
	uint8_t status;
	uint8_t sense_len;
	uint32_t resid;
};

/* One command through SG_IO: 0 with the device's answer in *res, or -errno
 * when it was not delivered (the ioctl failed, or the host adapter or its
 * driver reports a transport error). dir: enum bs_dir. */
static int sg_cmd(int fd, const uint8_t *cdb, uint8_t cdb_len, uint8_t dir, const struct iovec *iov,
		  int iovcnt, uint32_t len, uint8_t *sense, uint8_t sense_cap,
		  struct sg_result *res)
{
	struct sg_io_hdr h;

	memset(&h, 0, sizeof(h));
	h.interface_id = 'S';
	h.dxfer_direction = len == 0		  ? SG_DXFER_NONE
			    : dir == BS_DIR_WRITE ? SG_DXFER_TO_DEV
						  : SG_DXFER_FROM_DEV;
	h.cmd_len = cdb_len;
	h.cmdp = (unsigned char *)(uintptr_t)cdb;
	h.mx_sb_len = sense_cap;
	h.sbp = sense;
	h.timeout = SG_TIMEOUT_MS;
	if (len) {
		h.dxfer_len = len;
		if (iovcnt == 1) {
			h.dxferp = iov[0].iov_base;
		} else {
			h.iovec_count = (unsigned short)iovcnt;
			h.dxferp = (void *)(uintptr_t)iov;
		}
	}
	if (ioctl(fd, SG_IO, &h) < 0)
		return -errno;
	/* host_status: DID_* of the adapter (0 = DID_OK); driver_status
	 * without DRIVER_SENSE (08h): a timeout or a driver failure */
	if (h.host_status != 0 || (h.driver_status & 0x07) != 0)
		return -EIO;
	res->status = h.status;
	res->sense_len = h.status == SG_STAT_CHECK_COND ? h.sb_len_wr : 0;
	res->resid = h.resid > 0 ? (uint32_t)h.resid : 0;
	return 0;
}

static void sg_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void sg_put_be64(uint8_t *p, uint64_t v)
{
	sg_put_be32(p, (uint32_t)(v >> 32));
	sg_put_be32(p + 4, (uint32_t)v);
}

static uint32_t sg_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The iovecs of [pos, pos + n) of io's buffers into v (at most vmax). */
static int sg_iov_window(const struct bs_io *io, uint64_t pos, uint64_t n, struct iovec *v,
			 int vmax)
{
	int k = 0;

	for (int i = 0; i < io->iovcnt && n; i++) {
		uint64_t l = io->iov[i].iov_len;

		if (pos >= l) {
			pos -= l;
			continue;
		}
		if (k == vmax)
			return -1;
		v[k].iov_base = (uint8_t *)io->iov[i].iov_base + pos;
		v[k].iov_len = (size_t)(l - pos < n ? l - pos : n);
		n -= v[k].iov_len;
		pos = 0;
		k++;
	}
	return n ? -1 : k;
}

/* A command of a primitive: CHECK CONDITION -> errno (bs_sense_errno),
 * a unit attention retried. */
static int sg_prim_cmd(struct sg_dev *s, const uint8_t *cdb, uint8_t cdb_len, uint8_t dir,
		       const struct iovec *v, int vcnt, uint32_t len, uint64_t *info)
{
	uint8_t sense[SG_SENSE_LEN];
	struct sg_result res;
	int rc;

	for (unsigned tries = 0;; tries++) {
		rc = sg_cmd(s->fd, cdb, cdb_len, dir, v, vcnt, len, sense, sizeof(sense), &res);
		if (rc)
			return rc;
		if (res.status == SG_STAT_GOOD)
			return 0;
		if (res.status != SG_STAT_CHECK_COND)
			rc = -EIO; /* BUSY, TASK SET FULL, RESERVATION CONFLICT */
		else
			rc = bs_sense_errno(sense, res.sense_len, info);
		if (rc != -EAGAIN || tries >= SG_UA_RETRIES)
			return rc == -EAGAIN ? -EIO : rc;
	}
}

static int sg_rw(struct sg_dev *s, struct bs_io *io)
{
	bool wr = io->op == BS_OP_WRITE;

	for (uint64_t done = 0; done < io->len;) {
		uint64_t n = io->len - done < SG_CHUNK_BYTES ? io->len - done : SG_CHUNK_BYTES;
		struct iovec v[SG_CHUNK_IOV];
		uint8_t cdb[16] = {0};
		uint64_t info = UINT64_MAX;
		int vcnt, rc;

		vcnt = sg_iov_window(io, done, n, v, SG_CHUNK_IOV);
		if (vcnt < 0) {
			/* scattered finer than SG_CHUNK_IOV per chunk: one block */
			n = s->lbs;
			vcnt = sg_iov_window(io, done, n, v, SG_CHUNK_IOV);
			if (vcnt < 0)
				return -EINVAL;
		}
		cdb[0] = wr ? 0x8a : 0x88; /* WRITE(16), READ(16) */
		if (wr && (io->flags & BS_IO_FUA))
			cdb[1] = 0x08;
		sg_put_be64(cdb + 2, (io->off + done) / s->lbs);
		sg_put_be32(cdb + 10, (uint32_t)(n / s->lbs));
		rc = sg_prim_cmd(s, cdb, 16, wr ? BS_DIR_WRITE : BS_DIR_READ, v, vcnt, (uint32_t)n,
				 &info);
		if (rc) {
			if (rc == -EIO && info != UINT64_MAX)
				io->bad_off = info * s->lbs;
			return rc;
		}
		done += n;
	}
	return 0;
}

static void sg_work(struct workq_item *w)
{
	struct sg_req *rq = container_of(w, struct sg_req, wq);
	struct bs_io *io = sg_io_of(rq);
	struct sg_dev *s = rq->s;
	static const uint8_t sync10[10] = {0x35};
	struct sg_result res;
	uint64_t info;
	int rc;

	switch (io->op) {
	case BS_OP_READ:
	case BS_OP_WRITE:
		rc = sg_rw(s, io);
		break;
	case BS_OP_FLUSH:
		rc = sg_prim_cmd(s, sync10, sizeof(sync10), BS_DIR_NONE, NULL, 0, 0, &info);
		break;
	case BS_OP_SCSI:
		rc = sg_cmd(s->fd, io->cdb, io->cdb_len, io->dir, io->iov, io->iovcnt,
			    (uint32_t)io->len, io->sense, io->sense_len, &res);
		if (rc == 0) {
			io->scsi_status = res.status;
			io->sense_len = res.sense_len;
			io->resid = res.resid;
		}
		break;
	default:
		rc = -EOPNOTSUPP;
		break;
	}
	rq->err = rc;
}

static void sg_work_done(struct workq_item *w)
{
	struct sg_req *rq = container_of(w, struct sg_req, wq);
	struct bs_io *io = sg_io_of(rq);

	io->done(io, rq->err);
}

static void sg_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct sg_dev *s = container_of(dev, struct sg_dev, dev);
	struct sg_req *rq = sg_req_of(io);

	if ((io->op == BS_OP_WRITE) && (dev->caps & BS_CAP_READ_ONLY)) {
		io->done(io, -EROFS);
		return;
	}
	if (io->op == BS_OP_SCSI && (io->cdb_len == 0 || io->cdb_len > 16)) {
		io->done(io, -EINVAL);
		return;
	}
	rq->s = s;
	rq->err = 0;
	rq->wq.work = sg_work;
	rq->wq.done = sg_work_done;
	workq_submit(&rq->wq);
}

static size_t sg_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	struct sg_dev *s = container_of(dev, struct sg_dev, dev);
	size_t n = 0;

	if (n < max) {
		f[n].key = "device";
		snprintf(f[n++].value, sizeof(f[0].value), "%s", s->path);
	}
	if (n < max) {
		f[n].key = "inquiry";
		snprintf(f[n++].value, sizeof(f[0].value), "%s %s %s", s->vendor, s->product,
			 s->revision);
	}
	return n;
}

static void sg_close(struct bs_dev *dev)
{
	struct sg_dev *s = container_of(dev, struct sg_dev, dev);

	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

static const struct bs_ops sg_ops = {
    .type = "sg",
    .submit = sg_submit,
    .facts = sg_facts,
    .close = sg_close,
};

/* An INQUIRY string field without its trailing blanks. */
static void sg_field(char *dst, size_t size, const uint8_t *src, size_t n)
{
	while (n && (src[n - 1] == ' ' || src[n - 1] == '\0'))
		n--;
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[n] = '\0';
}

/* A command of open(): 0 when GOOD, -EAGAIN for a unit attention, -EIO. */
static int sg_open_cmd(struct sg_dev *s, const uint8_t *cdb, uint8_t cdb_len, uint8_t *buf,
		       uint32_t len)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};
	uint8_t sense[SG_SENSE_LEN];
	struct sg_result res;
	uint64_t info;
	int rc;

	rc = sg_cmd(s->fd, cdb, cdb_len, BS_DIR_READ, &v, 1, len, sense, sizeof(sense), &res);
	if (rc)
		return rc;
	if (res.status == SG_STAT_GOOD)
		return 0;
	if (res.status == SG_STAT_CHECK_COND)
		return bs_sense_errno(sense, res.sense_len, &info);
	return -EIO;
}

static int sg_probe(struct sg_dev *s, const char *name)
{
	static const uint8_t tur[6] = {0x00};
	uint8_t inq6[6] = {0x12, 0, 0, 0, 96, 0};
	uint8_t rc16[16] = {0x9e, 0x10};
	uint8_t rc10[10] = {0x25};
	uint8_t buf[96];
	uint64_t last;
	unsigned i;
	int rc;

	memset(buf, 0, sizeof(buf));
	rc = sg_open_cmd(s, inq6, sizeof(inq6), buf, 96);
	if (rc == -EAGAIN)
		rc = sg_open_cmd(s, inq6, sizeof(inq6), buf, 96);
	if (rc) {
		log_err("backstore %s: %s does not answer INQUIRY: %s", name, s->path,
			strerror(-rc));
		return rc;
	}
	if ((buf[0] & 0x1f) != 0x00 || (buf[0] & 0xe0) != 0) {
		log_err("backstore %s: %s is not a connected direct access block device "
			"(peripheral 0x%02x)",
			name, s->path, buf[0]);
		return -ENODEV;
	}
	sg_field(s->vendor, sizeof(s->vendor), buf + 8, 8);
	sg_field(s->product, sizeof(s->product), buf + 16, 16);
	sg_field(s->revision, sizeof(s->revision), buf + 32, 4);
	/* the device's own unit attentions predate the LU */
	for (i = 0; i < SG_OPEN_UA_DRAIN; i++) {
		rc = sg_open_cmd(s, tur, sizeof(tur), NULL, 0);
		if (rc != -EAGAIN)
			break;
	}
	sg_put_be32(rc16 + 10, 32);
	memset(buf, 0, sizeof(buf));
	rc = sg_open_cmd(s, rc16, sizeof(rc16), buf, 32);
	if (rc == 0) {
		last = (uint64_t)sg_be32(buf) << 32 | sg_be32(buf + 4);
		s->lbs = sg_be32(buf + 8);
		s->dev.pbs = s->lbs << (buf[13] & 0x0f);
	} else {
		rc = sg_open_cmd(s, rc10, sizeof(rc10), buf, 8);
		if (rc) {
			log_err("backstore %s: READ CAPACITY of %s failed: %s", name, s->path,
				strerror(-rc));
			return rc;
		}
		last = sg_be32(buf);
		s->lbs = sg_be32(buf + 4);
		s->dev.pbs = s->lbs;
	}
	if (s->lbs < 512 || s->lbs > 65536 || (s->lbs & (s->lbs - 1)) || last == UINT64_MAX) {
		log_err("backstore %s: %s reports %u-byte blocks", name, s->path, s->lbs);
		return -EINVAL;
	}
	s->dev.lbs = s->lbs;
	s->dev.size = (last + 1) * s->lbs;
	return 0;
}

static int sg_open(const struct bs_params *p, struct bs_dev **out)
{
	struct sg_dev *s;
	int version = 0, rc;

	if (!p->path || !p->path[0]) {
		log_err("backstore %s: sg needs the path of a device (/dev/sgN or /dev/sdX)",
			p->name);
		return -EINVAL;
	}
	if (p->size) {
		log_err("backstore %s: the size of an sg back-store is the device's", p->name);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	snprintf(s->path, sizeof(s->path), "%s", p->path);
	s->fd = open(p->path, (p->readonly ? O_RDONLY : O_RDWR) | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		rc = -errno;
		log_err("backstore %s: cannot open %s: %s", p->name, p->path, strerror(-rc));
		free(s);
		return rc;
	}
	if (ioctl(s->fd, SG_GET_VERSION_NUM, &version) < 0 || version < 30000) {
		log_err("backstore %s: %s is not a SCSI generic (SG_IO) device", p->name, p->path);
		sg_close(&s->dev);
		return -ENOTTY;
	}
	rc = sg_probe(s, p->name);
	if (rc) {
		sg_close(&s->dev);
		return rc;
	}
	s->dev.ops = &sg_ops;
	s->dev.caps = BS_CAP_PASSTHROUGH | BS_CAP_FLUSH | BS_CAP_FUA | BS_CAP_WRITE_CACHE;
	if (p->readonly)
		s->dev.caps |= BS_CAP_READ_ONLY;
	*out = &s->dev;
	return 0;
}

const struct bs_type bs_sg_type = {
    .name = "sg",
    .open = sg_open,
};
