/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rbd.c: the rbd back-store, an image of a Ceph pool through librbd's
 * asynchronous API.
 *
 * Contract (scsi/bs.h): the core emulates SPC/SBC and asks for byte-range
 * primitives, which map to librbd calls:
 *   READ, WRITE          rbd_aio_readv, rbd_aio_writev
 *   FLUSH                rbd_aio_flush (librbd's write-back cache, on by
 *                        default: BS_CAP_WRITE_CACHE when `rbd_cache` is
 *                        true; FUA is the core's write + flush)
 *   DISCARD, WRITE_ZEROES  rbd_aio_write_zeroes. Not rbd_aio_discard: with
 *                        librbd's defaults (rbd_skip_partial_discard,
 *                        64 KiB discard granularity) a discard leaves the
 *                        unaligned head and tail of a range as they were,
 *                        and UNMAP must read back as zeroes (LBPRZ).
 *                        write_zeroes removes or truncates whole objects
 *                        and zeroes the partial ones.
 *   COMPARE_WRITE        rbd_aio_compare_and_write: atomic for every
 *                        client of the image, other gateways included, but
 *                        librbd 16 takes only a range inside one 512-byte
 *                        sector (-EINVAL otherwise: measured); that is
 *                        VMware's ATS, one 512-byte block. A longer range
 *                        is -EOPNOTSUPP, which the core emulates under its
 *                        range lock (atomic for this daemon's initiators,
 *                        not for another gateway's)
 *   WRITE_SAME           rbd_aio_writesame (WRITE SAME of a non-zero block:
 *                        the block crosses once, not once per LBA)
 *   MAP_STATUS           rbd_diff_iterate2 on a worker thread (it blocks),
 *                        over at most RBD_MAP_SCAN bytes
 * Completions arrive on librbd's threads; each is posted to the reactor
 * that submitted the request (io->priv keeps it), so io->done runs there.
 * Off a reactor (tests), submit waits for the completion.
 *
 * Size: rbd_get_size() may refresh the image header from the cluster, which
 * a reactor must not wait for (the cluster may be down). A monitor thread
 * per back-store keeps the size in an atomic: librbd's update watch wakes
 * it when the header changes (rbd resize from anywhere), and it re-reads
 * every RBD_SIZE_POLL_S anyway. medium_size() returns the atomic, so the
 * core raises CAPACITY DATA HAS CHANGED within a second of the change.
 *
 * A stopped or unreachable cluster: every librados operation is bounded by
 * `timeout` (option, seconds, default 30: rados_osd_op_timeout,
 * rados_mon_op_timeout, client_mount_timeout), after which the request
 * fails (-ETIMEDOUT, a HARDWARE ERROR for the initiator); librados keeps
 * reconnecting by itself, and requests succeed again once the cluster is
 * back. The exclusive lock (image feature exclusive-lock) is librbd's:
 * another client asking for it gets it cooperatively; a client blocklisted
 * by the cluster (`ceph osd blocklist add`, or a lock broken by another
 * client) gets -EBLOCKLISTED on every request, which fails the commands;
 * re-create the back-store to reconnect.
 *
 * open() runs on the control thread and connects synchronously (bounded by
 * the timeout). path: POOL/IMAGE or POOL/NAMESPACE/IMAGE. Options: conf
 * (ceph.conf; default: librados's search, $CEPH_CONF first), id (the
 * client id, default admin), keyring, timeout.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "lib/workq.h"

#define RBD_DEFAULT_TIMEOUT_S 30u
#define RBD_MAX_TIMEOUT_S     3600u
#define RBD_SIZE_POLL_S	      5
#define RBD_MAP_SCAN	      (256ull << 20)
#define RBD_SPEC_MAX	      256
/* librbd's compare-and-write works inside one sector of this size only */
#define RBD_CAW_UNIT 512u

struct rbd_bs {
	struct bs_dev dev;
	rados_t cluster;
	rados_ioctx_t ioctx;
	rbd_image_t image;
	uint64_t watch;
	bool watching;
	uint64_t obj_size;
	uint64_t features;	   /* RBD_FEATURE_* at open */
	_Atomic uint64_t size_now; /* the image's size, kept by the monitor */
	_Atomic unsigned outstanding;
	_Atomic int last_err; /* the last error logged (rbd_errno) */
	pthread_t mon;
	bool mon_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stale, stop; /* under lock */
	char spec[RBD_SPEC_MAX];
};

/* io->priv: the hand-off back to the submitting reactor. */
struct rbd_req {
	union {
		struct {
			struct reactor_msg msg;
			struct reactor *origin;
		};
		struct workq_item w; /* MAP_STATUS */
	};
	struct rbd_bs *rb;
	ssize_t ret;
	uint64_t mismatch_off;
};
static_assert(sizeof(struct rbd_req) <= BS_IO_PRIV_SIZE, "rbd_req fits bs_io.priv");

static inline struct rbd_req *rbd_req_of(struct bs_io *io)
{
	return (struct rbd_req *)(void *)io->priv;
}

static inline struct bs_io *rbd_io_of(struct rbd_req *rq)
{
	return container_of((void *)rq, struct bs_io, priv);
}

static inline struct rbd_bs *rbd_of(struct bs_dev *dev)
{
	return container_of(dev, struct rbd_bs, dev);
}

/* librbd's result as the core's errno (bs.h): -EIO a medium error, -ENOSPC
 * out of space, the rest a hardware error. */
static int rbd_errno(struct rbd_bs *rb, struct bs_io *io, ssize_t ret)
{
	int last;

	if (ret >= 0)
		return 0;
	if (ret == -EILSEQ && io->op == BS_OP_COMPARE_WRITE)
		return -EILSEQ; /* a miscompare, not an error of the image */
	if (ret < -4095)
		ret = -EIO;
	/* one log line per change of the error, not one per request */
	last = atomic_exchange(&rb->last_err, (int)ret);
	if (last != (int)ret) {
		if (ret == -ESHUTDOWN /* EBLOCKLISTED */)
			log_err("backstore %s: rbd %s: this client is blocklisted by the cluster "
				"(another client took its exclusive lock); every request fails "
				"until the back-store is re-created",
				rb->dev.name, rb->spec);
		else
			log_err("backstore %s: rbd %s: %s", rb->dev.name, rb->spec,
				strerror((int)-ret));
	}
	if (ret == -EDQUOT || ret == -ENOSPC)
		return -ENOSPC;
	return (int)ret;
}

static void rbd_finish(struct rbd_req *rq)
{
	struct bs_io *io = rbd_io_of(rq);
	int err = rbd_errno(rq->rb, io, rq->ret);

	/* librbd's mismatch offset counts from the start of the request */
	if (err == -EILSEQ)
		io->bad_off = rq->mismatch_off < io->len ? rq->mismatch_off : 0;
	atomic_fetch_sub(&rq->rb->outstanding, 1);
	io->done(io, err);
}

static void rbd_done_msg(struct reactor_msg *m)
{
	rbd_finish(container_of(m, struct rbd_req, msg));
}

/* On one of librbd's threads. */
static void rbd_aio_cb(rbd_completion_t c, void *arg)
{
	struct rbd_req *rq = arg;

	rq->ret = rbd_aio_get_return_value(c);
	rbd_aio_release(c);
	rq->msg.fn = rbd_done_msg;
	reactor_post(rq->origin, &rq->msg);
}

/* ---- MAP_STATUS: rbd_diff_iterate2 on a worker ---- */

struct rbd_map_scan {
	uint64_t want;	    /* the first byte asked about */
	uint64_t run_end;   /* mapped: the end of the run found so far */
	uint64_t first_ext; /* unmapped: where the first extent starts */
	bool mapped, found;
};

#define RBD_SCAN_DONE (-ECANCELED)

static int rbd_map_cb(uint64_t off, size_t len, int exists, void *arg)
{
	struct rbd_map_scan *s = arg;

	if (!exists || off + len <= s->want)
		return 0;
	if (!s->found) {
		s->found = true;
		if (off > s->want) {
			s->first_ext = off; /* a hole first */
			return RBD_SCAN_DONE;
		}
		s->mapped = true;
		s->run_end = off + len;
		return 0;
	}
	if (off > s->run_end)
		return RBD_SCAN_DONE; /* the mapped run ended */
	if (off + len > s->run_end)
		s->run_end = off + len;
	return 0;
}

static void rbd_map_work(struct workq_item *w)
{
	struct rbd_req *rq = container_of(w, struct rbd_req, w);
	struct bs_io *io = rbd_io_of(rq);
	uint64_t len = io->len < RBD_MAP_SCAN ? io->len : RBD_MAP_SCAN;
	struct rbd_map_scan s = {.want = io->off};
	int rc;

	rc = rbd_diff_iterate2(rq->rb->image, NULL, io->off, len, 1, 0, rbd_map_cb, &s);
	if (rc < 0 && rc != RBD_SCAN_DONE) {
		rq->ret = rc;
		return;
	}
	rq->ret = 0;
	if (!s.found) {
		io->mapped = false;
		io->map_len = len;
	} else if (s.mapped) {
		io->mapped = true;
		io->map_len = s.run_end - io->off;
	} else {
		io->mapped = false;
		io->map_len = s.first_ext - io->off;
	}
	if (io->map_len > io->len)
		io->map_len = io->len;
	if (io->map_len == 0)
		rq->ret = -EIO;
}

static void rbd_map_done(struct workq_item *w)
{
	rbd_finish(container_of(w, struct rbd_req, w));
}

/* ---- submit ---- */

/* Start io's librbd call with completion c; 0 or -errno. */
static int rbd_start(struct rbd_bs *rb, struct bs_io *io, struct rbd_req *rq, rbd_completion_t c)
{
	switch (io->op) {
	case BS_OP_READ:
		return rbd_aio_readv(rb->image, io->iov, io->iovcnt, io->off, c);
	case BS_OP_WRITE:
		return rbd_aio_writev(rb->image, io->iov, io->iovcnt, io->off, c);
	case BS_OP_FLUSH:
		return rbd_aio_flush(rb->image, c);
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		return rbd_aio_write_zeroes(rb->image, io->off, io->len, c, 0, 0);
	case BS_OP_COMPARE_WRITE: {
		ssize_t r;

		if (io->iovcnt != 2 || io->iov[0].iov_len != io->len ||
		    io->iov[1].iov_len != io->len)
			return -EINVAL;
		/* atomic only inside one stripe unit (one object): librbd
		 * compares and writes each object on its own */
		if (io->off / RBD_CAW_UNIT != (io->off + io->len - 1) / RBD_CAW_UNIT)
			return -EOPNOTSUPP;
		r = rbd_aio_compare_and_write(rb->image, io->off, io->len, io->iov[0].iov_base,
					      io->iov[1].iov_base, c, &rq->mismatch_off, 0);
		return r < 0 ? (int)r : 0;
	}
	case BS_OP_WRITE_SAME:
		if (io->iovcnt != 1 || !io->iov[0].iov_len || io->len % io->iov[0].iov_len)
			return -EINVAL;
		return rbd_aio_writesame(rb->image, io->off, io->len, io->iov[0].iov_base,
					 io->iov[0].iov_len, c, 0);
	default:
		return -EOPNOTSUPP;
	}
}

static void rbd_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct rbd_bs *rb = rbd_of(dev);
	struct rbd_req *rq = rbd_req_of(io);
	struct reactor *self = reactor_self();
	rbd_completion_t c;
	int rc;

	if (io->off > dev->size || io->len > dev->size - io->off) {
		io->done(io, -EINVAL);
		return;
	}
	if (io->op != BS_OP_READ && io->op != BS_OP_MAP_STATUS && io->op != BS_OP_FLUSH &&
	    (dev->caps & BS_CAP_READ_ONLY)) {
		io->done(io, -EROFS);
		return;
	}
	if (io->len == 0 && io->op != BS_OP_FLUSH) {
		io->done(io, 0);
		return;
	}
	rq->rb = rb;
	rq->ret = 0;
	rq->mismatch_off = 0;
	atomic_fetch_add(&rb->outstanding, 1);
	if (io->op == BS_OP_MAP_STATUS) {
		rq->w.work = rbd_map_work;
		rq->w.done = rbd_map_done;
		if (self) {
			workq_submit(&rq->w);
		} else {
			rbd_map_work(&rq->w);
			rbd_finish(rq);
		}
		return;
	}
	rq->origin = self;
	rc = rbd_aio_create_completion(rq, self ? rbd_aio_cb : NULL, &c);
	if (rc == 0) {
		rc = rbd_start(rb, io, rq, c);
		if (rc)
			rbd_aio_release(c);
	}
	if (rc) {
		rq->ret = rc;
		rbd_finish(rq);
		return;
	}
	if (!self) {
		rbd_aio_wait_for_complete(c);
		rq->ret = rbd_aio_get_return_value(c);
		rbd_aio_release(c);
		rbd_finish(rq);
	}
}

/* ---- size ---- */

/* librbd's thread: the image header changed (a resize, a snapshot, ...). */
static void rbd_update_cb(void *arg)
{
	struct rbd_bs *rb = arg;

	pthread_mutex_lock(&rb->lock);
	rb->stale = true;
	pthread_cond_signal(&rb->cond);
	pthread_mutex_unlock(&rb->lock);
}

static void *rbd_monitor(void *arg)
{
	struct rbd_bs *rb = arg;

	pthread_mutex_lock(&rb->lock);
	while (!rb->stop) {
		struct timespec deadline;
		uint64_t size;

		if (!rb->stale) {
			clock_gettime(CLOCK_MONOTONIC, &deadline);
			deadline.tv_sec += RBD_SIZE_POLL_S;
			pthread_cond_timedwait(&rb->cond, &rb->lock, &deadline);
			if (rb->stop)
				break;
		}
		rb->stale = false;
		pthread_mutex_unlock(&rb->lock);
		if (rbd_get_size(rb->image, &size) == 0 && size != atomic_load(&rb->size_now)) {
			log_notice("backstore %s: rbd %s is now %" PRIu64 " bytes", rb->dev.name,
				   rb->spec, size);
			atomic_store(&rb->size_now, size);
		}
		pthread_mutex_lock(&rb->lock);
	}
	pthread_mutex_unlock(&rb->lock);
	return NULL;
}

static uint64_t rbd_medium_size(struct bs_dev *dev)
{
	uint64_t size = atomic_load(&rbd_of(dev)->size_now);

	if (size)
		dev->size = size;
	return size;
}

/* Control thread; no request in flight that the new size would cut. */
static int rbd_resize_op(struct bs_dev *dev, uint64_t new_size)
{
	struct rbd_bs *rb = rbd_of(dev);
	int rc = rbd_resize(rb->image, new_size);

	if (rc < 0) {
		log_err("backstore %s: rbd %s: resize to %" PRIu64 " bytes: %s", dev->name,
			rb->spec, new_size, strerror(-rc));
		return rc;
	}
	atomic_store(&rb->size_now, new_size);
	dev->size = new_size;
	return 0;
}

/* ---- open, close ---- */

static void rbd_teardown(struct rbd_bs *rb)
{
	if (rb->mon_started) {
		pthread_mutex_lock(&rb->lock);
		rb->stop = true;
		pthread_cond_signal(&rb->cond);
		pthread_mutex_unlock(&rb->lock);
		pthread_join(rb->mon, NULL);
	}
	if (rb->watching)
		rbd_update_unwatch(rb->image, rb->watch);
	if (rb->image) {
		if (!(rb->dev.caps & BS_CAP_READ_ONLY))
			rbd_flush(rb->image);
		rbd_close(rb->image);
	}
	if (rb->ioctx)
		rados_ioctx_destroy(rb->ioctx);
	if (rb->cluster)
		rados_shutdown(rb->cluster);
	pthread_mutex_destroy(&rb->lock);
	pthread_cond_destroy(&rb->cond);
	free(rb);
}

static void rbd_close_op(struct bs_dev *dev)
{
	struct rbd_bs *rb = rbd_of(dev);
	unsigned left = atomic_load(&rb->outstanding);

	if (left)
		log_err("backstore %s: rbd %s closed with %u request(s) in flight", dev->name,
			rb->spec, left);
	rbd_teardown(rb);
}

/* RBD_FEATURE_* bits by name, as `rbd info` prints them */
static const struct {
	uint64_t bit;
	const char *name;
} rbd_feature_names[] = {
    {RBD_FEATURE_LAYERING, "layering"},
    {RBD_FEATURE_STRIPINGV2, "striping"},
    {RBD_FEATURE_EXCLUSIVE_LOCK, "exclusive-lock"},
    {RBD_FEATURE_OBJECT_MAP, "object-map"},
    {RBD_FEATURE_FAST_DIFF, "fast-diff"},
    {RBD_FEATURE_DEEP_FLATTEN, "deep-flatten"},
    {RBD_FEATURE_JOURNALING, "journaling"},
    {RBD_FEATURE_DATA_POOL, "data-pool"},
    {RBD_FEATURE_OPERATIONS, "operations"},
    {RBD_FEATURE_MIGRATING, "migrating"},
    {RBD_FEATURE_NON_PRIMARY, "non-primary"},
};

/* From what open and the monitor keep: no librbd call (it may wait for
 * the cluster). */
static size_t rbd_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	struct rbd_bs *rb = rbd_of(dev);
	size_t n = 0, len = 0;

	if (n < max) {
		f[n].key = "image_size";
		snprintf(f[n++].value, sizeof(f->value), "%" PRIu64, atomic_load(&rb->size_now));
	}
	if (n < max) {
		f[n].key = "object_size";
		snprintf(f[n++].value, sizeof(f->value), "%" PRIu64, rb->obj_size);
	}
	if (n < max) {
		f[n].key = "features";
		f[n].value[0] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(rbd_feature_names); i++)
			if ((rb->features & rbd_feature_names[i].bit) && len < sizeof(f->value))
				len += (size_t)snprintf(f[n].value + len, sizeof(f->value) - len,
							"%s%s", len ? "," : "",
							rbd_feature_names[i].name);
		n++;
	}
	if (n < max) {
		f[n].key = "rbd_cache";
		snprintf(f[n++].value, sizeof(f->value), "%s",
			 (dev->caps & BS_CAP_WRITE_CACHE) ? "on" : "off");
	}
	return n;
}

static const struct bs_ops rbd_ops = {
    .type = "rbd",
    .submit = rbd_submit,
    .resize = rbd_resize_op,
    .medium_size = rbd_medium_size,
    .facts = rbd_facts,
    .close = rbd_close_op,
};

static const char *rbd_option(const struct bs_params *p, const char *key)
{
	for (size_t i = 0; i < p->noptions; i++)
		if (strcmp(p->options[i].key, key) == 0)
			return p->options[i].value;
	return NULL;
}

/* "POOL/IMAGE" or "POOL/NAMESPACE/IMAGE" into buf (split in place). */
int rbd_spec_parse(const char *path, char *buf, size_t size, const char **pool, const char **ns,
		   const char **image);
int rbd_spec_parse(const char *path, char *buf, size_t size, const char **pool, const char **ns,
		   const char **image)
{
	char *a, *b;

	if (!path || (size_t)snprintf(buf, size, "%s", path) >= size)
		return -EINVAL;
	a = strchr(buf, '/');
	if (!a)
		return -EINVAL;
	*a++ = '\0';
	b = strchr(a, '/');
	if (b) {
		*b++ = '\0';
		if (strchr(b, '/'))
			return -EINVAL;
	}
	*pool = buf;
	*ns = b ? a : NULL;
	*image = b ? b : a;
	if (!**pool || !**image || (*ns && !**ns))
		return -EINVAL;
	return 0;
}

static int rbd_options(const struct bs_params *p, unsigned *timeout)
{
	static const char *const known[] = {"conf", "id", "keyring", "timeout"};

	for (size_t i = 0; i < p->noptions; i++) {
		bool ok = false;

		for (size_t k = 0; k < ARRAY_SIZE(known); k++)
			ok |= strcmp(p->options[i].key, known[k]) == 0;
		if (!ok) {
			log_err("backstore %s: unknown rbd option %s (conf, id, keyring, timeout)",
				p->name, p->options[i].key);
			return -EINVAL;
		}
	}
	*timeout = RBD_DEFAULT_TIMEOUT_S;
	if (rbd_option(p, "timeout")) {
		char *end;
		unsigned long t = strtoul(rbd_option(p, "timeout"), &end, 10);

		if (*end || t < 1 || t > RBD_MAX_TIMEOUT_S) {
			log_err("backstore %s: rbd timeout must be 1..%u seconds", p->name,
				RBD_MAX_TIMEOUT_S);
			return -EINVAL;
		}
		*timeout = (unsigned)t;
	}
	return 0;
}

/* Connect and open; the failing step is logged. */
static int rbd_connect(struct rbd_bs *rb, const struct bs_params *p, unsigned timeout)
{
	char spec[RBD_SPEC_MAX], t[16], cache[16] = "";
	const char *pool, *ns, *image, *conf = rbd_option(p, "conf"),
				       *keyring = rbd_option(p, "keyring");
	const char *step;
	int rc;

	if (rbd_spec_parse(p->path, spec, sizeof(spec), &pool, &ns, &image)) {
		log_err("backstore %s: path %s is not POOL/IMAGE or POOL/NAMESPACE/IMAGE", p->name,
			p->path ? p->path : "(none)");
		return -EINVAL;
	}
	snprintf(t, sizeof(t), "%u", timeout);
	step = "rados_create";
	rc = rados_create(&rb->cluster, rbd_option(p, "id"));
	if (rc == 0) {
		step = conf ? conf : "the default ceph.conf";
		rc = rados_conf_read_file(rb->cluster, conf);
	}
	if (rc == 0 && keyring) {
		step = "keyring";
		rc = rados_conf_set(rb->cluster, "keyring", keyring);
	}
	if (rc == 0) {
		step = "timeouts";
		rc = rados_conf_set(rb->cluster, "client_mount_timeout", t);
		if (rc == 0)
			rc = rados_conf_set(rb->cluster, "rados_osd_op_timeout", t);
		if (rc == 0)
			rc = rados_conf_set(rb->cluster, "rados_mon_op_timeout", t);
	}
	if (rc == 0) {
		step = "connecting to the cluster";
		rc = rados_connect(rb->cluster);
	}
	if (rc == 0) {
		step = "opening the pool";
		rc = rados_ioctx_create(rb->cluster, pool, &rb->ioctx);
	}
	if (rc == 0 && ns)
		rados_ioctx_set_namespace(rb->ioctx, ns);
	if (rc == 0) {
		step = "opening the image";
		rc = p->readonly ? rbd_open_read_only(rb->ioctx, image, &rb->image, NULL)
				 : rbd_open(rb->ioctx, image, &rb->image, NULL);
	}
	if (rc < 0) {
		log_err("backstore %s: rbd %s: %s: %s", p->name, p->path, step, strerror(-rc));
		return rc;
	}
	if (rados_conf_get(rb->cluster, "rbd_cache", cache, sizeof(cache)) == 0 &&
	    strcmp(cache, "true") == 0)
		rb->dev.caps |= BS_CAP_WRITE_CACHE;
	return 0;
}

static int rbd_open_bs(const struct bs_params *p, struct bs_dev **out)
{
	struct rbd_bs *rb;
	rbd_image_info_t info;
	uint64_t features = 0;
	unsigned timeout;
	int rc;

	rc = rbd_options(p, &timeout);
	if (rc)
		return rc;
	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	pthread_mutex_init(&rb->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&rb->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	snprintf(rb->spec, sizeof(rb->spec), "%s", p->path ? p->path : "");
	rb->dev.ops = &rbd_ops;
	rb->dev.priv = rb;
	rb->dev.caps = BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS |
		       BS_CAP_COMPARE_WRITE | BS_CAP_WRITE_SAME;
	if (p->readonly)
		rb->dev.caps |= BS_CAP_READ_ONLY;
	rc = rbd_connect(rb, p, timeout);
	if (rc == 0) {
		rc = rbd_stat(rb->image, &info, sizeof(info));
		if (rc < 0)
			log_err("backstore %s: rbd %s: stat: %s", p->name, p->path, strerror(-rc));
	}
	if (rc == 0 && info.size < p->block_size) {
		log_err("backstore %s: rbd %s holds %" PRIu64 " bytes, less than one block",
			p->name, p->path, info.size);
		rc = -EINVAL;
	}
	if (rc == 0) {
		rc = rbd_update_watch(rb->image, &rb->watch, rbd_update_cb, rb);
		if (rc < 0)
			log_err("backstore %s: rbd %s: update watch: %s", p->name, p->path,
				strerror(-rc));
		rb->watching = rc == 0;
	}
	if (rc == 0) {
		rc = -pthread_create(&rb->mon, NULL, rbd_monitor, rb);
		rb->mon_started = rc == 0;
	}
	if (rc < 0) {
		rbd_teardown(rb);
		return rc;
	}
	rbd_get_features(rb->image, &features);
	rb->features = features;
	rb->obj_size = info.obj_size;
	rb->dev.size = info.size;
	atomic_store(&rb->size_now, info.size);
	rb->dev.opt_unit = info.obj_size <= (1u << 30) ? (uint32_t)info.obj_size : 0;
	log_info("backstore %s: rbd %s, %" PRIu64 " bytes, objects of %" PRIu64
		 " bytes, features 0x%" PRIx64 "%s%s",
		 p->name, p->path, info.size, info.obj_size, features,
		 (rb->dev.caps & BS_CAP_WRITE_CACHE) ? ", rbd cache on" : "",
		 (features & RBD_FEATURE_EXCLUSIVE_LOCK) ? ", exclusive-lock" : "");
	*out = &rb->dev;
	return 0;
}

const struct bs_type bs_rbd_type = {
    .name = "rbd",
    .open = rbd_open_bs,
};
