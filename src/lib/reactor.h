/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reactor.h: one event loop per thread (epoll), with cross-thread messages,
 * end-of-iteration deferred work (for batching socket writes and io_uring
 * submissions), timers, and an optional io_uring per reactor for file I/O.
 *
 * Threading contract: every function here except reactor_post(),
 * reactor_stop(), reactor_running() and reactor_now_ns() must be called on
 * the reactor's own thread. Callbacks always run on the reactor's thread.
 *
 * One loop iteration: epoll_wait -> fd callbacks -> posted messages ->
 * expired timers -> deferred work (repeated while new deferred work appears)
 * -> io_uring submit of queued SQEs. */
#ifndef UT_REACTOR_H
#define UT_REACTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "list.h"

struct reactor;
struct io_uring_sqe;

enum {
	REACTOR_IN = EPOLLIN,
	REACTOR_OUT = EPOLLOUT,
	REACTOR_ERR = EPOLLERR,
	REACTOR_HUP = EPOLLHUP | EPOLLRDHUP,
};

/* A watched file descriptor; embed in the owner and use container_of. */
struct reactor_fd {
	int fd;
	uint32_t events;
	void (*cb)(struct reactor_fd *h, uint32_t revents);
	struct reactor *r;
};

/* A message to run on another reactor's thread. The memory must stay valid
 * until fn runs. fn runs exactly once. */
struct reactor_msg {
	struct reactor_msg *next;
	void (*fn)(struct reactor_msg *m);
};

/* Work run once at the end of the current loop iteration on the same
 * thread (e.g. flush a connection's queued responses with one writev).
 * Queuing an already queued item is a no-op. */
struct reactor_defer {
	struct list_node node;
	void (*fn)(struct reactor_defer *d);
};

struct reactor_timer {
	uint64_t when_ns;
	void (*fn)(struct reactor_timer *t);
	struct reactor *r;
	uint32_t heap_idx; /* 0 = not armed */
};

/* An io_uring request: set cb, obtain an SQE with reactor_uring_sqe(), fill it
 * (io_uring_prep_*) — user_data is already set to the request. cb runs on the
 * reactor thread with the CQE result (bytes or -errno). */
struct reactor_uring_req {
	void (*cb)(struct reactor_uring_req *req, int res);
};

int reactor_create(struct reactor **out, unsigned id);
void reactor_destroy(struct reactor *r);
/* Runs the loop on the calling thread until reactor_stop(). */
int reactor_run(struct reactor *r);
void reactor_stop(struct reactor *r); /* any thread */
/* Whether the reactor's loop runs (a message posted to a reactor that does
 * not would wait for the next reactor_run()); any thread, a snapshot. */
bool reactor_running(const struct reactor *r);
unsigned reactor_id(const struct reactor *r);
/* The reactor running on the calling thread, or NULL. */
struct reactor *reactor_self(void);

int reactor_fd_add(struct reactor *r, struct reactor_fd *h, int fd, uint32_t events,
		   void (*cb)(struct reactor_fd *h, uint32_t revents));
int reactor_fd_mod(struct reactor_fd *h, uint32_t events);
void reactor_fd_del(struct reactor_fd *h);

void reactor_post(struct reactor *r, struct reactor_msg *m); /* any thread */
void reactor_defer(struct reactor *r, struct reactor_defer *d);
static inline void reactor_defer_init(struct reactor_defer *d, void (*fn)(struct reactor_defer *))
{
	list_init(&d->node);
	d->fn = fn;
}
void reactor_defer_cancel(struct reactor_defer *d);

uint64_t reactor_now_ns(void); /* CLOCK_MONOTONIC, any thread */
void reactor_timer_init(struct reactor_timer *t, void (*fn)(struct reactor_timer *t));
void reactor_timer_arm(struct reactor *r, struct reactor_timer *t, uint64_t delay_ns);
void reactor_timer_cancel(struct reactor_timer *t);
static inline bool reactor_timer_armed(const struct reactor_timer *t)
{
	return t->heap_idx != 0;
}

/* io_uring of this reactor; false when io_uring is unavailable or disabled
 * (probed at reactor_create; UTARGET_NO_IO_URING=1 in the environment
 * disables it). */
bool reactor_has_uring(const struct reactor *r);
/* Next free SQE bound to req, or NULL when the ring is full (caller retries
 * from a deferred item or falls back). Submission happens at the end of the
 * iteration. */
struct io_uring_sqe *reactor_uring_sqe(struct reactor *r, struct reactor_uring_req *req);
/* The ring can carry long-lived socket receives: it exists and cancels
 * synchronously (reactor_uring_cancel). */
bool reactor_uring_sockets(const struct reactor *r);
/* Cancel req (submitted on r's ring, on r's thread) and wait until it has
 * stopped: when this returns, the kernel no longer touches its buffers. Its
 * callback still runs (res -ECANCELED, or its result if it had completed)
 * when the CQ is reaped. 0 or -ENOENT (not in flight: completed already),
 * -EOPNOTSUPP without reactor_uring_sockets(). */
int reactor_uring_cancel(struct reactor *r, struct reactor_uring_req *req);

/* Adaptive busy polling of every reactor: after a loop iteration that
 * handled an event, poll without sleeping for up to ns nanoseconds before
 * sleeping (0 = off, the default of the library; the daemon sets its
 * iscsi.busy_poll_us), within each reactor's adaptive window. Costs CPU only while events keep
 * coming; an idle reactor sleeps. Any thread; taken at each reactor's next wait. */
void reactor_set_busy_poll_ns(uint64_t ns);
uint64_t reactor_busy_poll_ns(void);
/* The next spin window of a reactor whose window was `cur` and whose last
 * wait (spin and sleep) took `waited`, for a budget `max` (all ns): kept
 * when the wait ended within it, doubled (from REACTOR_POLL_MIN_NS, up to
 * max) when it ended later but within max, halved (below the minimum: 0)
 * when it took longer than max. A probe (the wait spun the whole budget,
 * which a window under it does every REACTOR_POLL_PROBE waits) that ended
 * within max opens it to max. Pure; reactor_run() applies it. */
#define REACTOR_POLL_MIN_NS 2000u
#define REACTOR_POLL_PROBE  32u
uint64_t reactor_poll_window(uint64_t cur, uint64_t waited, uint64_t max, bool probe);

/* The daemon's reactor threads. reactor_pool_start creates n reactors and runs
 * reactors 1..n-1 on new threads; reactor 0 runs on the caller by
 * reactor_pool_run(). */
int reactor_pool_start(unsigned n);
unsigned reactor_pool_size(void);
struct reactor *reactor_pool_get(unsigned i);
/* Round-robin choice for a new connection. */
struct reactor *reactor_pool_next(void);
int reactor_pool_run(void);   /* runs reactor 0 on the calling thread */
void reactor_pool_stop(void); /* any thread; makes reactor_pool_run return */
void reactor_pool_join(void); /* joins the threads and destroys the reactors */

#endif
