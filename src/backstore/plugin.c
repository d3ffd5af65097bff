/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugin.c: the "plugin" back-store, an adapter between the core's contract
 * (scsi/bs.h) and a handler loaded with dlopen (include/utarget/backstore.h,
 * whose header comment is the handler's side of every rule below).
 *
 * Open: the handler name must be a plain file name (letters, digits, '_',
 * '-', '.'; no '/', no leading '.', no ".."); <plugin_dir>/<handler>.so is
 * loaded RTLD_NOW | RTLD_LOCAL (plugin_dir unset: UT_PLUGIN_DIR); its
 * UTBS_HANDLER_SYMBOL must carry our UTBS_ABI_VERSION (else -EINVAL, both
 * versions logged) and its own name. The handler's open() runs on the
 * back-store's first LU thread; the caller waits at most
 * UTBS_OPEN_TIMEOUT_S (then -ETIMEDOUT, and the thread cleans up after the
 * open whenever it returns).
 *
 * I/O: submit() (a reactor thread) translates the bs_io into the
 * utbs_request kept in bs_io.priv (no allocation) and queues it to the LU
 * threads (a mutex-protected FIFO); one of them calls the handler's
 * submit(). host->complete() (any thread) posts the result back to the
 * submitting reactor, where done() runs. Off a reactor (no reactor_self()),
 * submit() waits for the completion and done() runs inside it. No handler
 * code ever runs on a reactor, so a handler that blocks stalls its own LU
 * threads only.
 *
 * Close: asynchronous, so that a reactor never waits for a handler. The LU
 * threads drain the queue and exit; the last one calls the handler's
 * close(), then frees the back-store and dlcloses the handler unless
 * requests are still incomplete (counted and logged: a late complete()
 * must still find its memory and code). At exit the process waits up to
 * PLUGIN_EXIT_WAIT_S for closing back-stores, so that their handlers'
 * close() runs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "utarget/backstore.h"

#ifndef UT_PLUGIN_DIR
#define UT_PLUGIN_DIR "/usr/local/lib/utarget/backstores"
#endif
#define PLUGIN_NAME_MAX 64

/* UTBS_OPEN_TIMEOUT_S; unit tests lower it. */
static int plugin_open_timeout_s = UTBS_OPEN_TIMEOUT_S;

enum {
	RQ_IDLE = 0,
	RQ_SUBMITTED = 1,
	RQ_DONE = 2,
};

struct plugin_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

struct plugin_dev;

/* Per-request state, in bs_io.priv. While queued, msg.next links the FIFO
 * (the message is not posted before the request completes). */
struct plugin_req {
	struct utbs_request req;
	struct reactor_msg msg;
	struct reactor *origin; /* NULL: submitted off a reactor, see sync */
	union {
		struct plugin_dev *pd;
		struct plugin_sync *sync;
	};
	int err;
	_Atomic uint32_t state; /* RQ_* */
};
/* The ABI's layout on LP64 (x86-64, aarch64): a change here is a change of
 * UTBS_ABI_VERSION (include/utarget/backstore.h). */
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(struct utbs_request) == 56 && offsetof(struct utbs_request, map_len) == 40 &&
		  offsetof(struct utbs_request, handler_data) == 48,
	      "utbs_request layout changed: bump UTBS_ABI_VERSION");
static_assert(sizeof(struct utbs_info) == 32 && sizeof(struct utbs_option) == 16,
	      "utbs_info layout changed: bump UTBS_ABI_VERSION");
static_assert(sizeof(struct utbs_host) == 40 && offsetof(struct utbs_host, complete) == 24,
	      "utbs_host layout changed: bump UTBS_ABI_VERSION");
static_assert(sizeof(struct utbs_handler) == 40 && offsetof(struct utbs_handler, submit) == 24,
	      "utbs_handler layout changed: bump UTBS_ABI_VERSION");
#endif
static_assert(sizeof(struct plugin_req) <= BS_IO_PRIV_SIZE, "plugin_req must fit bs_io.priv");
static_assert(_Alignof(struct plugin_req) <= 16, "bs_io.priv is 16-byte aligned");

struct plugin_dev {
	struct bs_dev dev;
	struct utbs_host host;
	const struct utbs_handler *h;
	void *dl;
	void *ctx;
	char name[64];
	char handler[PLUGIN_NAME_MAX + 1];
	/* the options, copied: an abandoned open outlives the caller's */
	struct utbs_option *opts;
	size_t nopts;
	struct utbs_info info;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* work queued, closing, open done */
	struct reactor_msg *head;
	struct reactor_msg **tail;
	pthread_t threads[UTBS_MAX_THREADS];
	unsigned nthreads; /* created */
	unsigned running;  /* not yet exited */
	unsigned idle;	   /* waiting for work */
	bool closing;
	bool open_done;
	bool open_abandoned;
	int open_rc;
	atomic_ulong outstanding;	/* submitted to the handler, not completed */
	struct plugin_dev *parked_next; /* on `parked` (plugin_finish) */
};

/* Back-stores closed with requests the handler never completed: kept
 * allocated, and listed here so that they stay reachable (a late
 * completion lands in them; LeakSanitizer does not count them lost). */
static struct plugin_dev *parked;

/* Back-stores whose LU threads have not finished (tests wait for 0). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_cond = PTHREAD_COND_INITIALIZER;
static unsigned live_count;

/* At exit, give closing back-stores a bounded time to run their handler's
 * close() (which may flush what the handler buffers). */
#define PLUGIN_EXIT_WAIT_S 5

static void plugin_atexit(void)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += PLUGIN_EXIT_WAIT_S;
	pthread_mutex_lock(&live_lock);
	while (live_count && pthread_cond_timedwait(&live_cond, &live_lock, &deadline) != ETIMEDOUT)
		;
	if (live_count)
		log_warn("backstore plugin: %u back-store(s) still closing at exit", live_count);
	pthread_mutex_unlock(&live_lock);
}

static void plugin_atexit_register(void)
{
	atexit(plugin_atexit);
}

static void live_add(int delta)
{
	pthread_mutex_lock(&live_lock);
	live_count += (unsigned)delta;
	pthread_cond_broadcast(&live_cond);
	pthread_mutex_unlock(&live_lock);
}

static inline struct plugin_req *plugin_req_of(struct bs_io *io)
{
	return (struct plugin_req *)(void *)io->priv;
}

static inline struct bs_io *plugin_io_of(struct plugin_req *rq)
{
	return (struct bs_io *)(void *)((unsigned char *)rq - offsetof(struct bs_io, priv));
}

/* ---- the host table ---- */

static void plugin_done_msg(struct reactor_msg *m)
{
	struct plugin_req *rq = container_of(m, struct plugin_req, msg);
	struct bs_io *io = plugin_io_of(rq);

	atomic_store_explicit(&rq->state, RQ_IDLE, memory_order_relaxed);
	io->done(io, rq->err);
}

static void plugin_host_complete(struct utbs_request *req, int err)
{
	struct plugin_req *rq = container_of(req, struct plugin_req, req);
	struct bs_io *io = plugin_io_of(rq);
	struct plugin_dev *pd;
	uint32_t prev = RQ_SUBMITTED;

	if (!atomic_compare_exchange_strong(&rq->state, &prev, RQ_DONE)) {
		log_err("backstore plugin: a request completed twice (or never submitted); "
			"ignored");
		return;
	}
	if (err > 0 || err < -4095)
		err = -EIO;
	if (err == -EDQUOT)
		err = -ENOSPC;
	if (err == -EIO)
		io->bad_off = req->bad_off;
	if (err == 0 && req->op == UTBS_OP_MAP_STATUS) {
		if (req->map_len == 0 || req->map_len > req->len) {
			err = -EIO; /* the core asks again or fails the command */
		} else {
			io->map_len = req->map_len;
			io->mapped = req->mapped != 0;
		}
	}
	rq->err = err;
	if (!rq->origin) {
		struct plugin_sync *s = rq->sync;

		pthread_mutex_lock(&s->lock);
		s->done = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pd = rq->pd;
	atomic_fetch_sub(&pd->outstanding, 1);
	rq->msg.fn = plugin_done_msg;
	reactor_post(rq->origin, &rq->msg);
}

UT_PRINTF(3, 4)
static void plugin_host_log(const struct utbs_host *host, int level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int lvl;

	switch (level) {
	case UTBS_LOG_ERR:
		lvl = LOG_LVL_ERR;
		break;
	case UTBS_LOG_WARNING:
		lvl = LOG_LVL_WARN;
		break;
	case UTBS_LOG_NOTICE:
		lvl = LOG_LVL_NOTICE;
		break;
	case UTBS_LOG_INFO:
		lvl = LOG_LVL_INFO;
		break;
	default:
		lvl = level < UTBS_LOG_ERR ? LOG_LVL_ERR : LOG_LVL_DEBUG;
		break;
	}
	if (lvl > log_level_current)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(lvl, "backstore %s: %s", host->name ? host->name : "?", buf);
}

/* ---- the LU threads ---- */

static void plugin_free(struct plugin_dev *pd)
{
	for (size_t i = 0; i < pd->nopts; i++) {
		free((void *)pd->opts[i].key);
		free((void *)pd->opts[i].value);
	}
	free(pd->opts);
	pthread_cond_destroy(&pd->cond);
	pthread_mutex_destroy(&pd->lock);
	free(pd);
}

/* The last LU thread: close the handler, then free what no late completion
 * can reach. */
static void plugin_finish(struct plugin_dev *pd)
{
	unsigned long left;
	void *dl = pd->dl;

	if (pd->ctx)
		pd->h->close(pd->ctx);
	left = atomic_load(&pd->outstanding);
	if (left) {
		log_err("backstore %s: handler %s closed with %lu request(s) never completed; "
			"its state stays allocated and the handler loaded",
			pd->name, pd->handler, left);
		pthread_mutex_lock(&live_lock);
		pd->parked_next = parked;
		parked = pd;
		pthread_mutex_unlock(&live_lock);
	} else {
		plugin_free(pd);
		dlclose(dl);
	}
	live_add(-1);
}

/* false: the opener gave up waiting and pd is freed */
static bool plugin_run_open(struct plugin_dev *pd)
{
	struct utbs_info info = {0};
	void *ctx = NULL;
	bool abandoned;
	int rc;

	rc = pd->h->open(&pd->host, pd->opts, pd->nopts, &info, &ctx);
	if (rc > 0)
		rc = -EINVAL;
	pthread_mutex_lock(&pd->lock);
	abandoned = pd->open_abandoned;
	pd->open_done = true;
	pd->open_rc = rc;
	pd->info = info;
	pd->ctx = rc == 0 ? ctx : NULL;
	if (!abandoned)
		pthread_cond_broadcast(&pd->cond);
	pthread_mutex_unlock(&pd->lock);
	if (abandoned) {
		log_warn("backstore %s: handler %s's open returned after the %d s timeout (%d); "
			 "closed",
			 pd->name, pd->handler, plugin_open_timeout_s, rc);
		if (rc == 0)
			pd->h->close(ctx);
		void *dl = pd->dl;

		plugin_free(pd);
		dlclose(dl);
		live_add(-1);
		return false;
	}
	return true;
}

static void *plugin_thread(void *arg)
{
	struct plugin_dev *pd = arg;
	bool last;

	pthread_mutex_lock(&pd->lock);
	if (!pd->open_done) {
		pthread_mutex_unlock(&pd->lock);
		if (!plugin_run_open(pd))
			return NULL;
		pthread_mutex_lock(&pd->lock);
		/* failed: the opener joins this thread and frees pd */
		if (pd->open_rc) {
			pthread_mutex_unlock(&pd->lock);
			return NULL;
		}
	}
	for (;;) {
		struct reactor_msg *m;

		while (!pd->head && !pd->closing) {
			pd->idle++;
			pthread_cond_wait(&pd->cond, &pd->lock);
			pd->idle--;
		}
		m = pd->head;
		if (!m)
			break; /* closing, queue drained */
		pd->head = m->next;
		if (!pd->head)
			pd->tail = &pd->head;
		pthread_mutex_unlock(&pd->lock);
		pd->h->submit(pd->ctx, &container_of(m, struct plugin_req, msg)->req);
		pthread_mutex_lock(&pd->lock);
	}
	last = --pd->running == 0;
	pthread_mutex_unlock(&pd->lock);
	if (last)
		plugin_finish(pd);
	return NULL;
}

/* ---- bs_ops ---- */

static void plugin_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct plugin_dev *pd = container_of(dev, struct plugin_dev, dev);
	struct plugin_req *rq = plugin_req_of(io);
	struct plugin_sync sync;
	uint32_t op;

	switch (io->op) {
	case BS_OP_READ:
		op = UTBS_OP_READ;
		break;
	case BS_OP_WRITE:
		op = UTBS_OP_WRITE;
		break;
	case BS_OP_FLUSH:
		op = UTBS_OP_FLUSH;
		break;
	case BS_OP_DISCARD:
		op = UTBS_OP_DISCARD;
		break;
	case BS_OP_WRITE_ZEROES:
		op = UTBS_OP_WRITE_ZEROES;
		break;
	case BS_OP_MAP_STATUS:
		if (!(dev->caps & BS_CAP_MAP_STATUS)) {
			io->done(io, -EOPNOTSUPP);
			return;
		}
		op = UTBS_OP_MAP_STATUS;
		break;
	default:
		io->done(io, -EOPNOTSUPP);
		return;
	}
	if (op != UTBS_OP_READ && op != UTBS_OP_FLUSH && op != UTBS_OP_MAP_STATUS &&
	    (dev->caps & BS_CAP_READ_ONLY)) {
		io->done(io, -EROFS);
		return;
	}
	if (op != UTBS_OP_FLUSH && (io->off > dev->size || io->len > dev->size - io->off)) {
		io->done(io, -EINVAL);
		return;
	}
	if (op != UTBS_OP_FLUSH &&
	    (io->len == 0 || (op == UTBS_OP_MAP_STATUS && io->off == dev->size))) {
		/* nothing to do (the handler is promised len > 0) */
		io->done(io, op == UTBS_OP_MAP_STATUS ? -EINVAL : 0);
		return;
	}
	rq->req = (struct utbs_request){
	    .op = op,
	    .flags = (op == UTBS_OP_WRITE && (io->flags & BS_IO_FUA)) ? UTBS_REQ_FUA : 0,
	    .off = op == UTBS_OP_FLUSH ? 0 : io->off,
	    .len = op == UTBS_OP_FLUSH ? 0 : io->len,
	    .iov = io->iov,
	    .iovcnt = (op == UTBS_OP_READ || op == UTBS_OP_WRITE) ? io->iovcnt : 0,
	    .bad_off = UINT64_MAX,
	};
	rq->err = 0;
	rq->msg.next = NULL;
	rq->origin = reactor_self();
	if (rq->origin) {
		rq->pd = pd;
	} else {
		pthread_mutex_init(&sync.lock, NULL);
		pthread_cond_init(&sync.cond, NULL);
		sync.done = false;
		rq->sync = &sync;
	}
	atomic_store(&rq->state, RQ_SUBMITTED);
	atomic_fetch_add(&pd->outstanding, 1);

	pthread_mutex_lock(&pd->lock);
	*pd->tail = &rq->msg;
	pd->tail = &rq->msg.next;
	if (pd->idle) /* a busy thread takes it next without a wake-up */
		pthread_cond_signal(&pd->cond);
	pthread_mutex_unlock(&pd->lock);

	if (rq->origin)
		return;
	pthread_mutex_lock(&sync.lock);
	while (!sync.done)
		pthread_cond_wait(&sync.cond, &sync.lock);
	pthread_mutex_unlock(&sync.lock);
	pthread_cond_destroy(&sync.cond);
	pthread_mutex_destroy(&sync.lock);
	atomic_fetch_sub(&pd->outstanding, 1);
	atomic_store(&rq->state, RQ_IDLE);
	io->done(io, rq->err);
}

static void plugin_close(struct bs_dev *dev)
{
	struct plugin_dev *pd = container_of(dev, struct plugin_dev, dev);

	pthread_mutex_lock(&pd->lock);
	for (unsigned i = 0; i < pd->nthreads; i++)
		pthread_detach(pd->threads[i]);
	pd->closing = true;
	pthread_cond_broadcast(&pd->cond);
	pthread_mutex_unlock(&pd->lock);
}

static const struct bs_ops plugin_ops = {
    .type = "plugin",
    .submit = plugin_submit,
    .close = plugin_close,
};

/* ---- open ---- */

static bool plugin_name_ok(const char *s)
{
	size_t n = strnlen(s, PLUGIN_NAME_MAX + 1);

	if (n == 0 || n > PLUGIN_NAME_MAX || s[0] == '.' || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

static bool pow2_in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && !(v & (v - 1));
}

/* The handler's open() succeeded: check what it says and fill the dev. */
static int plugin_take_info(struct plugin_dev *pd, const struct bs_params *p)
{
	const struct utbs_info *in = &pd->info;
	struct bs_dev *dev = &pd->dev;
	uint32_t unit;
	static const struct {
		uint32_t u, b;
	} capmap[] = {
	    {UTBS_CAP_FLUSH, BS_CAP_FLUSH},
	    {UTBS_CAP_DISCARD, BS_CAP_DISCARD},
	    {UTBS_CAP_WRITE_ZEROES, BS_CAP_WRITE_ZEROES},
	    {UTBS_CAP_FUA, BS_CAP_FUA},
	    {UTBS_CAP_READ_ONLY, BS_CAP_READ_ONLY},
	    {UTBS_CAP_WRITE_CACHE, BS_CAP_WRITE_CACHE},
	    {UTBS_CAP_MAP_STATUS, BS_CAP_MAP_STATUS},
	};

	if (in->logical_block_size && !pow2_in(in->logical_block_size, 512, 65536)) {
		log_err("backstore %s: handler %s: logical block size %u is not a power of two "
			"in 512..65536",
			p->name, pd->handler, in->logical_block_size);
		return -EINVAL;
	}
	if (in->physical_block_size && (!pow2_in(in->physical_block_size, 512, 1u << 30) ||
					in->physical_block_size < in->logical_block_size)) {
		log_err("backstore %s: handler %s: bad physical block size %u", p->name,
			pd->handler, in->physical_block_size);
		return -EINVAL;
	}
	unit = in->logical_block_size ? in->logical_block_size : 512;
	if (in->size < unit) {
		log_err("backstore %s: handler %s: size %llu is less than one block", p->name,
			pd->handler, (unsigned long long)in->size);
		return -EINVAL;
	}
	if (in->threads > UTBS_MAX_THREADS) {
		log_err("backstore %s: handler %s asks for %u threads (at most %d)", p->name,
			pd->handler, in->threads, UTBS_MAX_THREADS);
		return -EINVAL;
	}
	dev->size = in->size - in->size % unit;
	for (size_t i = 0; i < ARRAY_SIZE(capmap); i++)
		if (in->caps & capmap[i].u)
			dev->caps |= capmap[i].b;
	if (p->readonly)
		dev->caps |= BS_CAP_READ_ONLY;
	dev->lbs = in->logical_block_size;
	dev->pbs = in->physical_block_size;
	dev->discard_gran = in->discard_granularity;
	dev->opt_unit = in->optimal_transfer;
	return 0;
}

static int plugin_copy_options(struct plugin_dev *pd, const struct bs_params *p)
{
	if (!p->noptions)
		return 0;
	pd->opts = calloc(p->noptions, sizeof(*pd->opts));
	if (!pd->opts)
		return -ENOMEM;
	pd->nopts = p->noptions;
	for (size_t i = 0; i < p->noptions; i++) {
		pd->opts[i].key = strdup(p->options[i].key ? p->options[i].key : "");
		pd->opts[i].value = strdup(p->options[i].value ? p->options[i].value : "");
		if (!pd->opts[i].key || !pd->opts[i].value)
			return -ENOMEM;
	}
	return 0;
}

/* dlopen the handler and check its table. */
static int plugin_load(const struct bs_params *p, void **dl_out, const struct utbs_handler **h_out)
{
	const char *dir = p->plugin_dir && *p->plugin_dir ? p->plugin_dir : UT_PLUGIN_DIR;
	const struct utbs_handler *h;
	char path[4096];
	struct stat st;
	void *dl;

	if (snprintf(path, sizeof(path), "%s/%s.so", dir, p->handler) >= (int)sizeof(path)) {
		log_err("backstore %s: handler path too long", p->name);
		return -ENAMETOOLONG;
	}
	if (stat(path, &st) < 0) {
		int rc = -errno;

		log_err("backstore %s: handler %s: %s: %s", p->name, p->handler, path,
			strerror(-rc));
		return rc;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		log_err("backstore %s: handler %s: cannot load %s: %s", p->name, p->handler, path,
			dlerror());
		return -EINVAL;
	}
	h = dlsym(dl, UTBS_HANDLER_SYMBOL);
	if (!h) {
		log_err("backstore %s: handler %s: %s exports no %s (not a utarget back-store "
			"handler?)",
			p->name, p->handler, path, UTBS_HANDLER_SYMBOL);
		dlclose(dl);
		return -EINVAL;
	}
	if (h->abi_version != UTBS_ABI_VERSION) {
		log_err("backstore %s: handler %s: %s is built for back-store ABI version %u, "
			"this utargetd has ABI version %d; rebuild it against this utargetd's "
			"utarget/backstore.h",
			p->name, p->handler, path, h->abi_version, UTBS_ABI_VERSION);
		dlclose(dl);
		return -EINVAL;
	}
	if (!h->name || strcmp(h->name, p->handler) != 0 || !h->open || !h->submit || !h->close) {
		log_err("backstore %s: handler %s: %s's table is incomplete or names another "
			"handler (%s)",
			p->name, p->handler, path, h->name ? h->name : "no name");
		dlclose(dl);
		return -EINVAL;
	}
	*dl_out = dl;
	*h_out = h;
	return 0;
}

static void plugin_start_threads(struct plugin_dev *pd)
{
	unsigned want = pd->info.threads ? pd->info.threads : 1;

	for (unsigned i = 1; i < want; i++) {
		pthread_mutex_lock(&pd->lock);
		int rc = pthread_create(&pd->threads[i], NULL, plugin_thread, pd);

		if (rc == 0) {
			pd->nthreads++;
			pd->running++;
		}
		pthread_mutex_unlock(&pd->lock);
		if (rc) {
			log_warn("backstore %s: %u LU thread(s) of %u: %s", pd->name, i, want,
				 strerror(rc));
			break;
		}
	}
}

static int plugin_open(const struct bs_params *p, struct bs_dev **out)
{
	struct plugin_dev *pd;
	struct timespec deadline;
	int rc;

	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, plugin_atexit_register);
	if (!p->handler || !plugin_name_ok(p->handler)) {
		char esc[96];

		log_err("backstore %s: handler name '%s' is not a plain file name (1..%d of "
			"A-Z a-z 0-9 _ - ., no '/', no leading '.', no '..')",
			p->name,
			p->handler
			    ? log_escape(esc, sizeof(esc), p->handler, strnlen(p->handler, 80))
			    : "",
			PLUGIN_NAME_MAX);
		return -EINVAL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	snprintf(pd->name, sizeof(pd->name), "%s", p->name);
	snprintf(pd->handler, sizeof(pd->handler), "%s", p->handler);
	pthread_mutex_init(&pd->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&pd->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	pd->tail = &pd->head;
	atomic_init(&pd->outstanding, 0);
	rc = plugin_copy_options(pd, p);
	if (rc == 0)
		rc = plugin_load(p, &pd->dl, &pd->h);
	if (rc) {
		plugin_free(pd);
		return rc;
	}
	pd->host = (struct utbs_host){
	    .abi_version = UTBS_ABI_VERSION,
	    .name = pd->name,
	    .open_flags = p->readonly ? UTBS_OPEN_READ_ONLY : 0,
	    .complete = plugin_host_complete,
	    .log = plugin_host_log,
	};
	pd->dev.ops = &plugin_ops;

	/* the handler's open() on the first LU thread, waited for a bounded time */
	pd->running = 1;
	pd->nthreads = 1;
	rc = pthread_create(&pd->threads[0], NULL, plugin_thread, pd);
	if (rc) {
		log_err("backstore %s: cannot start its thread: %s", p->name, strerror(rc));
		dlclose(pd->dl);
		plugin_free(pd);
		return -rc;
	}
	live_add(1);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += plugin_open_timeout_s;
	pthread_mutex_lock(&pd->lock);
	while (!pd->open_done) {
		if (pthread_cond_timedwait(&pd->cond, &pd->lock, &deadline) == ETIMEDOUT &&
		    !pd->open_done) {
			pd->open_abandoned = true;
			pthread_detach(pd->threads[0]);
			pthread_mutex_unlock(&pd->lock);
			log_err("backstore %s: handler %s's open did not return within %d s",
				p->name, p->handler, plugin_open_timeout_s);
			return -ETIMEDOUT;
		}
	}
	rc = pd->open_rc;
	pthread_mutex_unlock(&pd->lock);
	if (rc == 0) {
		rc = plugin_take_info(pd, p);
		if (rc) {
			/* the thread waits for work: let it close the handler */
			plugin_close(&pd->dev);
			return rc;
		}
	}
	if (rc) {
		log_err("backstore %s: handler %s failed to open: %s", p->name, p->handler,
			strerror(-rc));
		pthread_join(pd->threads[0], NULL);
		dlclose(pd->dl);
		plugin_free(pd);
		live_add(-1);
		return rc;
	}
	plugin_start_threads(pd);
	log_info("backstore %s: handler %s (ABI %d), %u thread(s), logical block %u", p->name,
		 p->handler, UTBS_ABI_VERSION, pd->nthreads, pd->info.logical_block_size);
	*out = &pd->dev;
	return 0;
}

const struct bs_type bs_plugin_type = {
    .name = "plugin",
    .open = plugin_open,
};
