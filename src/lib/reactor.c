/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reactor.c: one event loop per thread (see reactor.h for the contract).
 *
 *  - fd callbacks: epoll, level-triggered, epoll data = the struct reactor_fd.
 *    A handle deleted by an earlier callback of the same batch is not called.
 *  - reactor_post: a lock-free LIFO push list (compare-and-swap on the head);
 *    the consumer takes the whole list with one exchange and runs it in FIFO
 *    order. Only the push that finds the list empty writes the wake-up
 *    eventfd, so a burst of messages costs one wake-up. A post from the
 *    reactor's own thread writes nothing: the loop checks the list before it
 *    sleeps.
 *  - reactor_defer: an intrusive list run at the end of the iteration in
 *    rounds (items queued by a round run in the next round, up to
 *    REACTOR_DEFER_ROUNDS rounds; leftovers run in the next iteration without
 *    sleeping).
 *  - timers: binary min-heap of pointers (heap_idx is the 1-based slot);
 *    epoll_pwait2 gets the exact delay to the earliest deadline (epoll_wait
 *    with the delay rounded up to a millisecond where epoll_pwait2 is absent).
 *  - io_uring: probed at creation (UTARGET_NO_IO_URING=1 disables it). SQEs
 *    are handed out by reactor_uring_sqe() and submitted once, at the end of
 *    the iteration; the CQ is reaped right after the submit, since requests
 *    that need no waiting complete inside it, and the deferred work their
 *    callbacks queue (a connection's flush) runs in the same iteration (up to
 *    REACTOR_URING_ROUNDS submit/reap rounds). Later completions signal an
 *    eventfd registered with the ring and watched by epoll (every CQE does,
 *    so none is missed; the signal of the inline ones is cleared before they
 *    are reaped).
 *    Sockets may be read through the ring too (iSCSI's `socket_uring`): a
 *    request cancelled with reactor_uring_cancel() has stopped when the call
 *    returns (IORING_REGISTER_SYNC_CANCEL), so its buffers may be freed;
 *    its CQE (-ECANCELED) is still reaped and called back later.
 *  - adaptive busy polling (reactor_set_busy_poll): after an iteration that
 *    handled an event, the loop polls -- epoll_wait with a zero timeout, and
 *    a look at the io_uring CQ and the posted list, which need no system
 *    call -- for up to the budget before it sleeps. A connection that is
 *    busy (the initiator's next command comes within the budget) is then
 *    served without the wake-up of a sleeping thread (docs/performance.md:
 *    at QD1 the wake-ups are most of the round trip on a VM); an idle
 *    reactor sleeps as before, since only an event starts a spin. The spin
 *    window adapts per reactor (reactor_poll_window): it widens while the
 *    waits it would cover are within the budget and closes when they are
 *    longer, so a reactor whose events come further apart than the budget
 *    (or that would only delay an initiator sharing its CPU) sleeps at once.
 *
 * Destroying a reactor does not run posted messages, deferred work or timers
 * still pending, nor the callbacks of io_uring requests still in flight (the
 * ring is torn down by io_uring_queue_exit).
 */
#include "reactor.h"

#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "log.h"

#define REACTOR_MAX_EVENTS   64
#define REACTOR_URING_SQ     256
#define REACTOR_URING_CQ     4096
#define REACTOR_DEFER_ROUNDS 64
#define REACTOR_HEAP_INIT    64
#define REACTOR_CQE_BATCH    64
#define REACTOR_SQ_RETRY_NS  1000000ull /* SQEs the kernel refused: retry after 1 ms */
#define REACTOR_URING_ROUNDS 8

struct reactor {
	unsigned id;
	int epfd;
	int wake_fd; /* eventfd: posts and stop */
	struct reactor_fd wake_h;
	_Atomic(struct reactor_msg *) posted;
	/* in (or about to enter) a wait that sleeps: only then does a post
	 * write the wake-up eventfd */
	atomic_bool sleeping;
	atomic_bool stop;
	atomic_bool running; /* inside reactor_run() */

	struct list_node deferred;

	struct reactor_timer **heap; /* heap[1..nheap]; heap[0] unused */
	uint32_t nheap;
	uint32_t heap_cap;

	/* The epoll batch being dispatched, so reactor_fd_del can drop events
	 * of a handle deleted by an earlier callback. */
	struct epoll_event *batch;
	int batch_n;
	int batch_i;

	bool has_uring;
	bool sync_cancel; /* IORING_REGISTER_SYNC_CANCEL works (kernel 6.0) */
	bool sq_stuck;	  /* SQEs left unsubmitted by the kernel */
	int uring_fd;	  /* eventfd registered with the ring */
	struct reactor_fd uring_h;
	struct io_uring ring;

	/* the current spin window, between 0 and the busy-poll budget: it
	 * follows how long this reactor's waits actually are (reactor_run) */
	uint64_t poll_ns;
	unsigned poll_probe; /* waits since the last spin of the whole budget */
};

static __thread struct reactor *reactor_tls;

static int reactor_wait(struct reactor *r, struct epoll_event *evs, const struct timespec *ts);

/* The busy-poll budget of every reactor (ns, 0 = off); read at each sleep. */
static _Atomic uint64_t reactor_busy_poll;

static atomic_bool reactor_no_pwait2;
static atomic_bool reactor_uring_logged;

uint64_t reactor_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void reactor_wake(struct reactor *r)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is already non-zero: the wake-up is pending. */
	while (write(r->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

static void reactor_wake_cb(struct reactor_fd *h, uint32_t revents)
{
	uint64_t v;

	while (read(h->fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

/* ---- fd callbacks ---- */

int reactor_fd_add(struct reactor *r, struct reactor_fd *h, int fd, uint32_t events,
		   void (*cb)(struct reactor_fd *h, uint32_t revents))
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	h->fd = fd;
	h->events = events;
	h->cb = cb;
	h->r = r;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		h->r = NULL;
		return -errno;
	}
	return 0;
}

int reactor_fd_mod(struct reactor_fd *h, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	if (!h->r)
		return -EBADF; /* not added, or deleted */
	if (events == h->events)
		return 0;
	if (epoll_ctl(h->r->epfd, EPOLL_CTL_MOD, h->fd, &ev) < 0)
		return -errno;
	h->events = events;
	return 0;
}

void reactor_fd_del(struct reactor_fd *h)
{
	struct reactor *r = h->r;

	if (!r)
		return;
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, h->fd, NULL);
	if (r->batch)
		for (int i = r->batch_i + 1; i < r->batch_n; i++)
			if (r->batch[i].data.ptr == h)
				r->batch[i].data.ptr = NULL;
	h->r = NULL;
}

/* ---- cross-thread messages ---- */

void reactor_post(struct reactor *r, struct reactor_msg *m)
{
	struct reactor_msg *old = atomic_load_explicit(&r->posted, memory_order_relaxed);

	do
		m->next = old;
	while (!atomic_compare_exchange_weak_explicit(&r->posted, &old, m, memory_order_seq_cst,
						      memory_order_relaxed));
	/* A reactor that runs or spins finds the message itself: it looks at
	 * the list after it says it sleeps (reactor_run), and this push is
	 * ordered before the look at `sleeping` (both sequentially
	 * consistent), so one of the two sees the other. */
	if (!old && reactor_tls != r && atomic_load_explicit(&r->sleeping, memory_order_seq_cst))
		reactor_wake(r);
}

static void reactor_run_posted(struct reactor *r)
{
	struct reactor_msg *m, *fifo = NULL;

	if (!atomic_load_explicit(&r->posted, memory_order_relaxed))
		return;
	m = atomic_exchange_explicit(&r->posted, NULL, memory_order_acquire);
	while (m) { /* reverse the LIFO push order */
		struct reactor_msg *next = m->next;

		m->next = fifo;
		fifo = m;
		m = next;
	}
	while (fifo) {
		m = fifo;
		fifo = m->next;
		m->fn(m); /* may free or re-post m */
	}
}

/* ---- deferred work ---- */

void reactor_defer(struct reactor *r, struct reactor_defer *d)
{
	if (list_linked(&d->node))
		return;
	list_add_tail(&r->deferred, &d->node);
}

void reactor_defer_cancel(struct reactor_defer *d)
{
	list_del(&d->node);
}

static void reactor_run_deferred(struct reactor *r)
{
	for (unsigned round = 0; round < REACTOR_DEFER_ROUNDS && !list_empty(&r->deferred);
	     round++) {
		struct list_node batch;

		/* Move the queued items to a local list: items queued while it
		 * runs wait for the next round. */
		batch.next = r->deferred.next;
		batch.prev = r->deferred.prev;
		batch.next->prev = &batch;
		batch.prev->next = &batch;
		list_init(&r->deferred);
		while (!list_empty(&batch)) {
			struct reactor_defer *d =
			    list_first_entry(&batch, struct reactor_defer, node);

			list_del(&d->node);
			d->fn(d);
		}
	}
}

/* ---- timers ---- */

static inline void reactor_heap_set(struct reactor *r, uint32_t i, struct reactor_timer *t)
{
	r->heap[i] = t;
	t->heap_idx = i;
}

static void reactor_heap_up(struct reactor *r, uint32_t i)
{
	struct reactor_timer *t = r->heap[i];

	while (i > 1) {
		struct reactor_timer *p = r->heap[i / 2];

		if (p->when_ns <= t->when_ns)
			break;
		reactor_heap_set(r, i, p);
		i /= 2;
	}
	reactor_heap_set(r, i, t);
}

static void reactor_heap_down(struct reactor *r, uint32_t i)
{
	struct reactor_timer *t = r->heap[i];

	for (;;) {
		uint32_t c = 2 * i;

		if (c > r->nheap)
			break;
		if (c + 1 <= r->nheap && r->heap[c + 1]->when_ns < r->heap[c]->when_ns)
			c++;
		if (r->heap[c]->when_ns >= t->when_ns)
			break;
		reactor_heap_set(r, i, r->heap[c]);
		i = c;
	}
	reactor_heap_set(r, i, t);
}

static void reactor_heap_remove(struct reactor *r, struct reactor_timer *t)
{
	uint32_t i = t->heap_idx;
	struct reactor_timer *last = r->heap[r->nheap--];

	t->heap_idx = 0;
	if (last == t)
		return;
	reactor_heap_set(r, i, last);
	reactor_heap_down(r, i);
	reactor_heap_up(r, last->heap_idx);
}

void reactor_timer_init(struct reactor_timer *t, void (*fn)(struct reactor_timer *t))
{
	t->when_ns = 0;
	t->fn = fn;
	t->r = NULL;
	t->heap_idx = 0;
}

void reactor_timer_arm(struct reactor *r, struct reactor_timer *t, uint64_t delay_ns)
{
	uint64_t now = reactor_now_ns();
	uint64_t when = delay_ns > UINT64_MAX - now ? UINT64_MAX : now + delay_ns;

	if (t->heap_idx) {
		if (t->r != r)
			reactor_timer_cancel(t);
		else {
			t->when_ns = when;
			reactor_heap_up(r, t->heap_idx);
			reactor_heap_down(r, t->heap_idx);
			return;
		}
	}
	if (r->nheap + 1 >= r->heap_cap) {
		uint32_t cap = r->heap_cap * 2;
		struct reactor_timer **h = realloc(r->heap, cap * sizeof(*h));

		if (!h) {
			log_err("reactor %u: out of memory arming a timer", r->id);
			return;
		}
		r->heap = h;
		r->heap_cap = cap;
	}
	t->r = r;
	t->when_ns = when;
	r->heap[++r->nheap] = t;
	reactor_heap_up(r, r->nheap);
}

void reactor_timer_cancel(struct reactor_timer *t)
{
	if (t->heap_idx)
		reactor_heap_remove(t->r, t);
}

static void reactor_run_timers(struct reactor *r)
{
	if (!r->nheap)
		return;

	uint64_t now = reactor_now_ns();
	/* A timer re-armed by its callback with no delay runs in the next
	 * iteration, not in a loop here. */
	uint32_t budget = r->nheap;

	while (r->nheap && budget--) {
		struct reactor_timer *t = r->heap[1];

		if (t->when_ns > now)
			break;
		reactor_heap_remove(r, t);
		t->fn(t);
	}
}

/* ---- io_uring ---- */

static void reactor_uring_reap(struct reactor *r)
{
	struct io_uring_cqe *cqes[REACTOR_CQE_BATCH];
	struct {
		struct reactor_uring_req *req;
		int res;
	} done[REACTOR_CQE_BATCH];
	unsigned n;

	/* Copy the results out and release the CQ slots before calling back:
	 * a callback may queue (and, with a full SQ, submit) new requests. */
	while ((n = io_uring_peek_batch_cqe(&r->ring, cqes, REACTOR_CQE_BATCH)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			done[i].req = io_uring_cqe_get_data(cqes[i]);
			done[i].res = cqes[i]->res;
		}
		io_uring_cq_advance(&r->ring, n);
		for (unsigned i = 0; i < n; i++)
			if (done[i].req)
				done[i].req->cb(done[i].req, done[i].res);
	}
}

static void reactor_uring_cb(struct reactor_fd *h, uint32_t revents)
{
	struct reactor *r = container_of(h, struct reactor, uring_h);
	uint64_t v;

	while (read(h->fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
	reactor_uring_reap(r);
}

static void reactor_uring_submit(struct reactor *r)
{
	if (!io_uring_sq_ready(&r->ring)) {
		r->sq_stuck = false;
		return;
	}
	int rc = io_uring_submit(&r->ring);

	if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
		log_err("reactor %u: io_uring_submit: %s", r->id, strerror(-rc));
	r->sq_stuck = io_uring_sq_ready(&r->ring) > 0;
}

/* Submit, then handle what completed inside the submit (and what was
 * already in the CQ) with the deferred work it queues, until a round
 * completes nothing. The eventfd those completions signalled is cleared
 * first (a CQE posted after the clear signals it again), so that they cause
 * no empty wake-up later. */
static void reactor_uring_rounds(struct reactor *r)
{
	for (unsigned round = 0; round < REACTOR_URING_ROUNDS; round++) {
		uint64_t v;

		reactor_uring_submit(r);
		if (!io_uring_cq_ready(&r->ring))
			return;
		while (read(r->uring_fd, &v, sizeof(v)) < 0 && errno == EINTR)
			;
		reactor_uring_reap(r);
		reactor_run_deferred(r);
	}
	reactor_uring_submit(r);
}

bool reactor_has_uring(const struct reactor *r)
{
	return r && r->has_uring;
}

struct io_uring_sqe *reactor_uring_sqe(struct reactor *r, struct reactor_uring_req *req)
{
	struct io_uring_sqe *sqe;

	if (!r->has_uring)
		return NULL;
	sqe = io_uring_get_sqe(&r->ring);
	if (unlikely(!sqe)) {
		/* SQ full within one iteration: hand the batch to the kernel now. */
		io_uring_submit(&r->ring);
		sqe = io_uring_get_sqe(&r->ring);
		if (!sqe)
			return NULL;
	}
	io_uring_sqe_set_data(sqe, req);
	return sqe;
}

bool reactor_uring_sockets(const struct reactor *r)
{
	return r && r->has_uring && r->sync_cancel;
}

int reactor_uring_cancel(struct reactor *r, struct reactor_uring_req *req)
{
	struct io_uring_sync_cancel_reg reg = {
	    .addr = (uint64_t)(uintptr_t)req,
	    .fd = -1,
	    .timeout = {.tv_sec = -1, .tv_nsec = -1},
	};
	int rc;

	if (!r->sync_cancel)
		return -EOPNOTSUPP;
	/* submit first: an SQE of req still in the SQ would be found by no
	 * cancel and issued later */
	reactor_uring_submit(r);
	do
		rc = io_uring_register_sync_cancel(&r->ring, &reg);
	while (rc == -EINTR);
	return rc;
}

static int reactor_uring_init_ring(struct reactor *r)
{
	static const unsigned flag_sets[] = {
	    IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL,
	    IORING_SETUP_CQSIZE,
	    0,
	};
	int rc = -ENOSYS;

	for (size_t i = 0; i < ARRAY_SIZE(flag_sets); i++) {
		struct io_uring_params p = {
		    .flags = flag_sets[i],
		    .cq_entries = REACTOR_URING_CQ,
		};

		rc = io_uring_queue_init_params(REACTOR_URING_SQ, &r->ring, &p);
		if (rc != -EINVAL)
			break;
	}
	return rc;
}

static void reactor_uring_probe(struct reactor *r)
{
	const char *env = getenv("UTARGET_NO_IO_URING");
	int rc;

	if (env && *env && strcmp(env, "0") != 0) {
		if (!atomic_exchange(&reactor_uring_logged, true))
			log_info("io_uring disabled by UTARGET_NO_IO_URING; file I/O uses the "
				 "worker pool");
		return;
	}
	rc = reactor_uring_init_ring(r);
	if (rc < 0) {
		if (!atomic_exchange(&reactor_uring_logged, true))
			log_notice("io_uring unavailable (%s); file I/O uses the worker pool",
				   strerror(-rc));
		return;
	}
	r->uring_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->uring_fd < 0) {
		rc = -errno;
		goto fail;
	}
	rc = io_uring_register_eventfd(&r->ring, r->uring_fd);
	if (rc < 0)
		goto fail;
	rc = reactor_fd_add(r, &r->uring_h, r->uring_fd, EPOLLIN, reactor_uring_cb);
	if (rc < 0)
		goto fail;
	r->has_uring = true;
	/* a cancel of nothing: -ENOENT where synchronous cancels exist */
	{
		struct io_uring_sync_cancel_reg reg = {
		    .addr = 0, .fd = -1, .timeout = {.tv_sec = -1, .tv_nsec = -1}};

		r->sync_cancel = io_uring_register_sync_cancel(&r->ring, &reg) == -ENOENT;
	}
	return;
fail:
	log_warn("reactor %u: io_uring setup failed (%s); using the worker pool", r->id,
		 strerror(-rc));
	if (r->uring_fd >= 0)
		close(r->uring_fd);
	r->uring_fd = -1;
	io_uring_queue_exit(&r->ring);
}

/* ---- adaptive busy polling ---- */

void reactor_set_busy_poll_ns(uint64_t ns)
{
	atomic_store_explicit(&reactor_busy_poll, ns, memory_order_relaxed);
}

uint64_t reactor_busy_poll_ns(void)
{
	return atomic_load_explicit(&reactor_busy_poll, memory_order_relaxed);
}

/* Poll for events with no sleep until one comes or `until` (a
 * reactor_now_ns() time) passes; the events found, 0 when none came. */
static int reactor_spin(struct reactor *r, struct epoll_event *evs, uint64_t until)
{
	static const struct timespec zero;

	do {
		int n = reactor_wait(r, evs, &zero);

		if (n != 0)
			return n;
		if (atomic_load_explicit(&r->posted, memory_order_relaxed) ||
		    atomic_load_explicit(&r->stop, memory_order_relaxed) ||
		    (r->has_uring && io_uring_cq_ready(&r->ring)))
			return 0; /* the next wait does not sleep, or finds the CQE */
	} while (reactor_now_ns() < until);
	return 0;
}

/* The spin window follows the waits it would have covered, as KVM's
 * halt polling does: a wait (spin and sleep) that ended within the window
 * leaves it; one that ended later but within the budget widens it (a spin
 * that long would have saved the wake-up); one longer than the budget
 * halves it, down to 0, since spinning for it would have been waste. So a
 * connection whose next command comes within the budget is polled, and a
 * reactor whose events come further apart (or that shares its CPU with
 * the initiator, whose next command then waits for the spin to end)
 * sleeps at once. Measured: docs/performance.md.
 *
 * The waits that close the window are those of a reactor that slept, and
 * on a VM sleeping makes them longer: a halted vCPU is woken by an
 * interrupt, and the initiator's next command then comes later too. There
 * every wait can exceed the budget while the reactor sleeps and fall within
 * it while it spins, and the window, once 0, would never open again. So a
 * window under the budget spins the whole budget once every
 * REACTOR_POLL_PROBE waits (a probe), and a probe that caught its event
 * opens the window to the budget (docs/performance.md, section 16). */
uint64_t reactor_poll_window(uint64_t cur, uint64_t waited, uint64_t max, bool probe)
{
	if (probe && waited <= max)
		return max;
	if (waited <= cur)
		return cur;
	if (waited > max)
		return cur / 2 < REACTOR_POLL_MIN_NS ? 0 : cur / 2;
	return UT_MIN(max, UT_MAX(cur * 2, (uint64_t)REACTOR_POLL_MIN_NS));
}

/* ---- life cycle ---- */

int reactor_create(struct reactor **out, unsigned id)
{
	struct reactor *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->id = id;
	r->wake_fd = -1;
	r->uring_fd = -1;
	list_init(&r->deferred);
	atomic_init(&r->posted, NULL);
	atomic_init(&r->sleeping, false);
	atomic_init(&r->stop, false);
	atomic_init(&r->running, false);
	r->heap_cap = REACTOR_HEAP_INIT;
	r->heap = calloc(r->heap_cap, sizeof(*r->heap));
	if (!r->heap) {
		rc = -ENOMEM;
		goto fail;
	}
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		rc = -errno;
		goto fail;
	}
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->wake_fd < 0) {
		rc = -errno;
		goto fail_ep;
	}
	rc = reactor_fd_add(r, &r->wake_h, r->wake_fd, EPOLLIN, reactor_wake_cb);
	if (rc < 0)
		goto fail_wake;
	reactor_uring_probe(r);
	*out = r;
	return 0;

fail_wake:
	close(r->wake_fd);
fail_ep:
	close(r->epfd);
fail:
	free(r->heap);
	free(r);
	return rc;
}

void reactor_destroy(struct reactor *r)
{
	if (!r)
		return;
	if (r->has_uring) {
		io_uring_queue_exit(&r->ring);
		close(r->uring_fd);
	}
	close(r->wake_fd);
	close(r->epfd);
	free(r->heap);
	free(r);
}

unsigned reactor_id(const struct reactor *r)
{
	return r->id;
}

struct reactor *reactor_self(void)
{
	return reactor_tls;
}

bool reactor_running(const struct reactor *r)
{
	return atomic_load_explicit(&r->running, memory_order_acquire);
}

void reactor_stop(struct reactor *r)
{
	atomic_store_explicit(&r->stop, true, memory_order_release);
	reactor_wake(r);
}

/* How long epoll may sleep: NULL = until an event. */
static const struct timespec *reactor_timeout(struct reactor *r, struct timespec *ts)
{
	uint64_t delay;

	if (atomic_load_explicit(&r->posted, memory_order_relaxed) || !list_empty(&r->deferred) ||
	    atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		delay = 0;
	} else if (r->nheap) {
		uint64_t now = reactor_now_ns(), when = r->heap[1]->when_ns;

		delay = when > now ? when - now : 0;
	} else if (!r->sq_stuck) {
		return NULL;
	} else {
		delay = UINT64_MAX;
	}
	if (r->sq_stuck && delay > REACTOR_SQ_RETRY_NS)
		delay = REACTOR_SQ_RETRY_NS;
	ts->tv_sec = (time_t)(delay / 1000000000ull);
	ts->tv_nsec = (long)(delay % 1000000000ull);
	return ts;
}

static int reactor_wait(struct reactor *r, struct epoll_event *evs, const struct timespec *ts)
{
	if (!atomic_load_explicit(&reactor_no_pwait2, memory_order_relaxed)) {
		int n = epoll_pwait2(r->epfd, evs, REACTOR_MAX_EVENTS, ts, NULL);

		if (n >= 0 || errno != ENOSYS)
			return n;
		atomic_store(&reactor_no_pwait2, true);
	}

	int ms = -1;

	if (ts) {
		/* Round up so a timer never fires early. */
		uint64_t v =
		    (uint64_t)ts->tv_sec * 1000u + ((uint64_t)ts->tv_nsec + 999999u) / 1000000u;

		ms = v > INT32_MAX ? INT32_MAX : (int)v;
	}
	return epoll_wait(r->epfd, evs, REACTOR_MAX_EVENTS, ms);
}

int reactor_run(struct reactor *r)
{
	struct reactor *prev = reactor_tls;
	struct epoll_event evs[REACTOR_MAX_EVENTS];
	int rc = 0;

	reactor_tls = r;
	atomic_store_explicit(&r->running, true, memory_order_release);
	bool worked = false; /* the last iteration handled an event */

	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		struct timespec ts;
		const struct timespec *tmo = reactor_timeout(r, &ts);
		uint64_t max = reactor_busy_poll_ns(), t0 = 0;
		bool sleeps = !tmo || tmo->tv_sec || tmo->tv_nsec;
		int n = 0;

		if (!max)
			r->poll_ns = 0;
		if (max && worked && sleeps)
			t0 = reactor_now_ns();
		/* Spin only when the wait would sleep: up to the current window
		 * (the whole budget once every REACTOR_POLL_PROBE waits while the
		 * window is under it: a probe, see reactor_poll_window), or to the
		 * next timer when that is sooner. */
		uint64_t w = r->poll_ns;
		bool probe = false;

		if (t0 && w < max && ++r->poll_probe >= REACTOR_POLL_PROBE) {
			r->poll_probe = 0;
			w = max;
			probe = true;
		}
		if (t0 && w) {
			uint64_t d =
			    tmo ? (uint64_t)tmo->tv_sec * 1000000000ull + (uint64_t)tmo->tv_nsec
				: UINT64_MAX;

			n = reactor_spin(r, evs, t0 + UT_MIN(w, d));
			if (n == 0)
				tmo = reactor_timeout(r, &ts);
		}
		if (n == 0) {
			static const struct timespec zero;
			bool sleep = !tmo || tmo->tv_sec || tmo->tv_nsec;

			if (sleep) {
				atomic_store_explicit(&r->sleeping, true, memory_order_seq_cst);
				if (atomic_load_explicit(&r->posted, memory_order_seq_cst))
					tmo = &zero; /* posted meanwhile, without a wake-up */
			}
			n = reactor_wait(r, evs, tmo);
			if (sleep)
				atomic_store_explicit(&r->sleeping, false, memory_order_relaxed);
		}
		if (t0 && n > 0)
			r->poll_ns =
			    reactor_poll_window(r->poll_ns, reactor_now_ns() - t0, max, probe);
		worked = n > 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			log_err("reactor %u: epoll_wait: %s", r->id, strerror(errno));
			break;
		}
		r->batch = evs;
		r->batch_n = n;
		for (int i = 0; i < n; i++) {
			struct reactor_fd *h = evs[i].data.ptr;

			r->batch_i = i;
			if (h)
				h->cb(h, evs[i].events);
		}
		r->batch = NULL;
		r->batch_n = 0;
		reactor_run_posted(r);
		reactor_run_timers(r);
		reactor_run_deferred(r);
		if (r->has_uring)
			reactor_uring_rounds(r);
	}
	atomic_store_explicit(&r->running, false, memory_order_release);
	atomic_store_explicit(&r->stop, false, memory_order_relaxed);
	reactor_tls = prev;
	return rc;
}

/* ---- the daemon's pool of reactors ---- */

static struct {
	struct reactor **r;
	pthread_t *threads; /* threads[i] runs r[i], i >= 1 */
	bool *joinable;
	unsigned n;
	atomic_uint next;
} reactor_pool;

static void *reactor_pool_thread(void *arg)
{
	struct reactor *r = arg;
	char name[16];

	snprintf(name, sizeof(name), "utarget-r%u", r->id);
	pthread_setname_np(pthread_self(), name);
	reactor_run(r);
	return NULL;
}

int reactor_pool_start(unsigned n)
{
	sigset_t all, old;
	int rc = 0;

	if (reactor_pool.n)
		return -EBUSY;
	if (n == 0)
		return -EINVAL;
	reactor_pool.r = calloc(n, sizeof(*reactor_pool.r));
	reactor_pool.threads = calloc(n, sizeof(*reactor_pool.threads));
	reactor_pool.joinable = calloc(n, sizeof(*reactor_pool.joinable));
	if (!reactor_pool.r || !reactor_pool.threads || !reactor_pool.joinable) {
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < n; i++) {
		rc = reactor_create(&reactor_pool.r[i], i);
		if (rc < 0)
			goto fail;
	}
	reactor_pool.n = n;
	atomic_store(&reactor_pool.next, 0);
	/* Reactor threads take no asynchronous signals: they go to the
	 * caller's thread (the daemon reads them with a signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 1; i < n; i++) {
		rc = -pthread_create(&reactor_pool.threads[i], NULL, reactor_pool_thread,
				     reactor_pool.r[i]);
		if (rc < 0)
			break;
		reactor_pool.joinable[i] = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		log_err("reactor pool: cannot start a thread: %s", strerror(-rc));
		reactor_pool_join();
		return rc;
	}
	return 0;

fail:
	if (reactor_pool.r)
		for (unsigned i = 0; i < n; i++)
			reactor_destroy(reactor_pool.r[i]);
	free(reactor_pool.r);
	free(reactor_pool.threads);
	free(reactor_pool.joinable);
	memset(&reactor_pool, 0, sizeof(reactor_pool));
	return rc;
}

unsigned reactor_pool_size(void)
{
	return reactor_pool.n;
}

struct reactor *reactor_pool_get(unsigned i)
{
	return i < reactor_pool.n ? reactor_pool.r[i] : NULL;
}

struct reactor *reactor_pool_next(void)
{
	if (!reactor_pool.n)
		return NULL;
	return reactor_pool
	    .r[atomic_fetch_add_explicit(&reactor_pool.next, 1, memory_order_relaxed) %
	       reactor_pool.n];
}

int reactor_pool_run(void)
{
	if (!reactor_pool.n)
		return -EINVAL;
	return reactor_run(reactor_pool.r[0]);
}

void reactor_pool_stop(void)
{
	for (unsigned i = 0; i < reactor_pool.n; i++)
		reactor_stop(reactor_pool.r[i]);
}

void reactor_pool_join(void)
{
	unsigned n = reactor_pool.n;

	if (!n)
		return;
	reactor_pool_stop();
	for (unsigned i = 1; i < n; i++)
		if (reactor_pool.joinable[i])
			pthread_join(reactor_pool.threads[i], NULL);
	for (unsigned i = 0; i < n; i++)
		reactor_destroy(reactor_pool.r[i]);
	free(reactor_pool.r);
	free(reactor_pool.threads);
	free(reactor_pool.joinable);
	reactor_pool.r = NULL;
	reactor_pool.threads = NULL;
	reactor_pool.joinable = NULL;
	reactor_pool.n = 0;
}
