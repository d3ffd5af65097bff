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
 * another client asking for it gets it cooperatively. A client the cluster
 * blocklists (`ceph osd blocklist add`, or another client breaking its
 * lock) gets -EBLOCKLISTED on every request: those commands fail, and the
 * monitor thread opens a new connection and image (a new "generation",
 * struct rbd_gen; again every RBD_RECONNECT_S while it fails) that the
 * following requests use; the old one is closed once its last request is
 * done. Requests hold a reference on the generation they were started on.
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
#define RBD_RECONNECT_S	      2
/* librbd's compare-and-write works inside one sector of this size only */
#define RBD_CAW_UNIT 512u

/* A connection to the cluster and the image opened through it. */
struct rbd_gen {
	rados_t cluster;
	rados_ioctx_t ioctx;
	rbd_image_t image;
	uint64_t watch;
	bool watching;
	bool blocklisted;     /* nothing to flush at close */
	unsigned refs;	      /* under rbd_bs.lock: requests, +1 while current */
	struct rbd_gen *next; /* rbd_bs.retired */
};

struct rbd_bs {
	struct bs_dev dev;
	struct rbd_gen *gen;	 /* the current one, under lock */
	struct rbd_gen *retired; /* replaced, closed at refs 0 (monitor), under lock */
	bool reconnect;		 /* under lock: the current one was blocklisted */
	unsigned generations;	 /* opened so far */
	/* what open() was given, for the next generation */
	char *conf, *id, *keyring;
	unsigned timeout;
	bool readonly;
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
	struct rbd_gen *gen; /* the generation it runs on (a reference) */
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

static struct rbd_gen *rbd_gen_get(struct rbd_bs *rb)
{
	struct rbd_gen *g;

	pthread_mutex_lock(&rb->lock);
	g = rb->gen;
	g->refs++;
	pthread_mutex_unlock(&rb->lock);
	return g;
}

static void rbd_gen_put(struct rbd_bs *rb, struct rbd_gen *g)
{
	pthread_mutex_lock(&rb->lock);
	if (--g->refs == 0)
		pthread_cond_signal(&rb->cond); /* a retired one to close */
	pthread_mutex_unlock(&rb->lock);
}

/* librbd's result as the core's errno (bs.h): -EIO a medium error, -ENOSPC
 * out of space, the rest a hardware error. */
static int rbd_errno(struct rbd_bs *rb, struct rbd_gen *g, struct bs_io *io, ssize_t ret)
{
	int last;

	if (ret >= 0)
		return 0;
	if ((ret == -EILSEQ || ret == -EOPNOTSUPP) && io->op == BS_OP_COMPARE_WRITE)
		return (int)ret; /* a miscompare, or the core's to emulate */
	if (ret < -4095)
		ret = -EIO;
	if (ret == -ESHUTDOWN /* EBLOCKLISTED */) {
		pthread_mutex_lock(&rb->lock);
		g->blocklisted = true;
		if (g == rb->gen && !rb->reconnect) {
			rb->reconnect = true;
			pthread_cond_signal(&rb->cond);
		}
		pthread_mutex_unlock(&rb->lock);
	}
	/* one log line per change of the error, not one per request */
	last = atomic_exchange(&rb->last_err, (int)ret);
	if (last != (int)ret) {
		if (ret == -ESHUTDOWN /* EBLOCKLISTED */)
			log_err("backstore %s: rbd %s: this client is blocklisted by the cluster "
				"(another client took its exclusive lock); reconnecting",
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
	int err = rbd_errno(rq->rb, rq->gen, io, rq->ret);

	/* librbd's mismatch offset counts from the start of the request */
	if (err == -EILSEQ)
		io->bad_off = rq->mismatch_off < io->len ? rq->mismatch_off : 0;
	rbd_gen_put(rq->rb, rq->gen);
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

	rc = rbd_diff_iterate2(rq->gen->image, NULL, io->off, len, 1, 0, rbd_map_cb, &s);
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
static int rbd_start(struct bs_io *io, struct rbd_req *rq, rbd_completion_t c)
{
	rbd_image_t image = rq->gen->image;

	switch (io->op) {
	case BS_OP_READ:
		return rbd_aio_readv(image, io->iov, io->iovcnt, io->off, c);
	case BS_OP_WRITE:
		return rbd_aio_writev(image, io->iov, io->iovcnt, io->off, c);
	case BS_OP_FLUSH:
		return rbd_aio_flush(image, c);
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		return rbd_aio_write_zeroes(image, io->off, io->len, c, 0, 0);
	case BS_OP_COMPARE_WRITE: {
		ssize_t r;

		if (io->iovcnt != 2 || io->iov[0].iov_len != io->len ||
		    io->iov[1].iov_len != io->len)
			return -EINVAL;
		/* atomic only inside one stripe unit (one object): librbd
		 * compares and writes each object on its own */
		if (io->off / RBD_CAW_UNIT != (io->off + io->len - 1) / RBD_CAW_UNIT)
			return -EOPNOTSUPP;
		r = rbd_aio_compare_and_write(image, io->off, io->len, io->iov[0].iov_base,
					      io->iov[1].iov_base, c, &rq->mismatch_off, 0);
		return r < 0 ? (int)r : 0;
	}
	case BS_OP_WRITE_SAME:
		if (io->iovcnt != 1 || !io->iov[0].iov_len || io->len % io->iov[0].iov_len)
			return -EINVAL;
		return rbd_aio_writesame(image, io->off, io->len, io->iov[0].iov_base,
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
	rq->gen = rbd_gen_get(rb);
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
		rc = rbd_start(io, rq, c);
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

/* ---- size, reconnection: the monitor thread ---- */

/* librbd's thread: the image header changed (a resize, a snapshot, ...). */
static void rbd_update_cb(void *arg)
{
	struct rbd_bs *rb = arg;

	pthread_mutex_lock(&rb->lock);
	rb->stale = true;
	pthread_cond_signal(&rb->cond);
	pthread_mutex_unlock(&rb->lock);
}

static int rbd_gen_open(struct rbd_bs *rb, struct rbd_gen *g);
static void rbd_gen_close(struct rbd_bs *rb, struct rbd_gen *g);

/* Lock held: the current generation was blocklisted; try a new one (the
 * lock is dropped meanwhile). False when that failed. */
static bool rbd_reconnect_locked(struct rbd_bs *rb)
{
	struct rbd_gen *g = calloc(1, sizeof(*g)), *old;
	int rc;

	pthread_mutex_unlock(&rb->lock);
	rc = g ? rbd_gen_open(rb, g) : -ENOMEM;
	pthread_mutex_lock(&rb->lock);
	if (rc) {
		free(g);
		return false;
	}
	old = rb->gen;
	g->refs = 1;
	rb->gen = g;
	rb->generations++;
	old->refs--; /* no longer current */
	old->next = rb->retired;
	rb->retired = old;
	rb->reconnect = false;
	log_notice("backstore %s: rbd %s: reconnected (connection %u)", rb->dev.name, rb->spec,
		   rb->generations);
	return true;
}

/* Lock held: close the retired generations no request uses any more. */
static void rbd_close_retired_locked(struct rbd_bs *rb)
{
	for (struct rbd_gen **pp = &rb->retired; *pp;) {
		struct rbd_gen *g = *pp;

		if (g->refs) {
			pp = &g->next;
			continue;
		}
		*pp = g->next;
		pthread_mutex_unlock(&rb->lock);
		rbd_gen_close(rb, g);
		pthread_mutex_lock(&rb->lock);
		pp = &rb->retired; /* the list may have changed */
	}
}

static void *rbd_monitor(void *arg)
{
	struct rbd_bs *rb = arg;
	uint64_t next_try = 0;

	pthread_mutex_lock(&rb->lock);
	while (!rb->stop) {
		struct timespec deadline;
		struct rbd_gen *g;
		uint64_t size;

		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += rb->reconnect ? 1 : RBD_SIZE_POLL_S;
		pthread_cond_timedwait(&rb->cond, &rb->lock, &deadline);
		if (rb->stop)
			break;
		if (rb->reconnect && reactor_now_ns() >= next_try && !rbd_reconnect_locked(rb))
			next_try = reactor_now_ns() + RBD_RECONNECT_S * 1000000000ull;
		if (rb->stop)
			break;
		rbd_close_retired_locked(rb);
		if (rb->stop)
			break;
		/* the size: always when the header changed, else on the poll */
		rb->stale = false;
		g = rb->gen;
		g->refs++;
		pthread_mutex_unlock(&rb->lock);
		if (rbd_get_size(g->image, &size) == 0 && size != atomic_load(&rb->size_now)) {
			log_notice("backstore %s: rbd %s is now %" PRIu64 " bytes", rb->dev.name,
				   rb->spec, size);
			atomic_store(&rb->size_now, size);
		}
		pthread_mutex_lock(&rb->lock);
		g->refs--;
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
	struct rbd_gen *g = rbd_gen_get(rb);
	int rc = rbd_resize(g->image, new_size);

	rbd_gen_put(rb, g);
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

static void rbd_gen_close(struct rbd_bs *rb, struct rbd_gen *g)
{
	if (g->watching)
		rbd_update_unwatch(g->image, g->watch);
	if (g->image) {
		if (!rb->readonly && !g->blocklisted)
			rbd_flush(g->image);
		rbd_close(g->image);
	}
	if (g->ioctx)
		rados_ioctx_destroy(g->ioctx);
	if (g->cluster)
		rados_shutdown(g->cluster);
	free(g);
}

static void rbd_teardown(struct rbd_bs *rb)
{
	if (rb->mon_started) {
		pthread_mutex_lock(&rb->lock);
		rb->stop = true;
		pthread_cond_signal(&rb->cond);
		pthread_mutex_unlock(&rb->lock);
		pthread_join(rb->mon, NULL);
	}
	while (rb->retired) {
		struct rbd_gen *g = rb->retired;

		rb->retired = g->next;
		rbd_gen_close(rb, g);
	}
	if (rb->gen)
		rbd_gen_close(rb, rb->gen);
	pthread_mutex_destroy(&rb->lock);
	pthread_cond_destroy(&rb->cond);
	free(rb->conf);
	free(rb->id);
	free(rb->keyring);
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
		unsigned gens;

		pthread_mutex_lock(&rb->lock);
		gens = rb->generations;
		pthread_mutex_unlock(&rb->lock);
		f[n].key = "reconnects";
		snprintf(f[n++].value, sizeof(f->value), "%u", gens ? gens - 1 : 0);
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

/* Connect and open the image (with its update watch) into g, from what
 * open() was given; the failing step is logged. */
static int rbd_gen_open(struct rbd_bs *rb, struct rbd_gen *g)
{
	char spec[RBD_SPEC_MAX], t[16];
	const char *pool, *ns, *image, *step;
	int rc;

	if (rbd_spec_parse(rb->spec, spec, sizeof(spec), &pool, &ns, &image)) {
		log_err("backstore %s: path %s is not POOL/IMAGE or POOL/NAMESPACE/IMAGE",
			rb->dev.name, rb->spec);
		return -EINVAL;
	}
	snprintf(t, sizeof(t), "%u", rb->timeout);
	step = "rados_create";
	rc = rados_create(&g->cluster, rb->id);
	if (rc == 0) {
		step = rb->conf ? rb->conf : "the default ceph.conf";
		rc = rados_conf_read_file(g->cluster, rb->conf);
	}
	if (rc == 0 && rb->keyring) {
		step = "keyring";
		rc = rados_conf_set(g->cluster, "keyring", rb->keyring);
	}
	if (rc == 0) {
		step = "timeouts";
		rc = rados_conf_set(g->cluster, "client_mount_timeout", t);
		if (rc == 0)
			rc = rados_conf_set(g->cluster, "rados_osd_op_timeout", t);
		if (rc == 0)
			rc = rados_conf_set(g->cluster, "rados_mon_op_timeout", t);
	}
	if (rc == 0) {
		step = "connecting to the cluster";
		rc = rados_connect(g->cluster);
	}
	if (rc == 0) {
		step = "opening the pool";
		rc = rados_ioctx_create(g->cluster, pool, &g->ioctx);
	}
	if (rc == 0 && ns)
		rados_ioctx_set_namespace(g->ioctx, ns);
	if (rc == 0) {
		step = "opening the image";
		rc = rb->readonly ? rbd_open_read_only(g->ioctx, image, &g->image, NULL)
				  : rbd_open(g->ioctx, image, &g->image, NULL);
	}
	if (rc == 0) {
		step = "update watch";
		rc = rbd_update_watch(g->image, &g->watch, rbd_update_cb, rb);
		g->watching = rc == 0;
	}
	if (rc < 0) {
		log_err("backstore %s: rbd %s: %s: %s", rb->dev.name, rb->spec, step,
			strerror(-rc));
		if (g->image)
			rbd_close(g->image);
		if (g->ioctx)
			rados_ioctx_destroy(g->ioctx);
		if (g->cluster)
			rados_shutdown(g->cluster);
		*g = (struct rbd_gen){0};
		return rc;
	}
	return 0;
}

static char *rbd_strdup(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

static int rbd_open_bs(const struct bs_params *p, struct bs_dev **out)
{
	struct rbd_bs *rb;
	rbd_image_info_t info;
	uint64_t features = 0;
	char cache[16] = "";
	bool oom = false;
	int rc;

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
	snprintf(rb->dev.name, sizeof(rb->dev.name), "%s", p->name);
	rb->dev.ops = &rbd_ops;
	rb->dev.priv = rb;
	rb->dev.caps = BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS |
		       BS_CAP_COMPARE_WRITE | BS_CAP_WRITE_SAME;
	rb->readonly = p->readonly;
	if (p->readonly)
		rb->dev.caps |= BS_CAP_READ_ONLY;
	rc = rbd_options(p, &rb->timeout);
	rb->conf = rbd_strdup(rbd_option(p, "conf"), &oom);
	rb->id = rbd_strdup(rbd_option(p, "id"), &oom);
	rb->keyring = rbd_strdup(rbd_option(p, "keyring"), &oom);
	if (rc == 0 && oom)
		rc = -ENOMEM;
	if (rc == 0 && (size_t)snprintf(rb->spec, sizeof(rb->spec), "%s", p->path ? p->path : "") >=
			   sizeof(rb->spec)) {
		log_err("backstore %s: path is longer than %d bytes", p->name, RBD_SPEC_MAX - 1);
		rc = -EINVAL;
	}
	if (rc == 0) {
		rb->gen = calloc(1, sizeof(*rb->gen));
		rc = rb->gen ? rbd_gen_open(rb, rb->gen) : -ENOMEM;
	}
	if (rc == 0) {
		rb->gen->refs = 1;
		rb->generations = 1;
		rc = rbd_stat(rb->gen->image, &info, sizeof(info));
		if (rc < 0)
			log_err("backstore %s: rbd %s: stat: %s", p->name, p->path, strerror(-rc));
	}
	if (rc == 0 && info.size < p->block_size) {
		log_err("backstore %s: rbd %s holds %" PRIu64 " bytes, less than one block",
			p->name, p->path, info.size);
		rc = -EINVAL;
	}
	if (rc == 0) {
		rc = -pthread_create(&rb->mon, NULL, rbd_monitor, rb);
		rb->mon_started = rc == 0;
	}
	if (rc < 0) {
		rbd_teardown(rb);
		return rc;
	}
	if (rados_conf_get(rb->gen->cluster, "rbd_cache", cache, sizeof(cache)) == 0 &&
	    strcmp(cache, "true") == 0)
		rb->dev.caps |= BS_CAP_WRITE_CACHE;
	rbd_get_features(rb->gen->image, &features);
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
