/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/reactor.c: fd callbacks, cross-thread posts, deferred
 * work, timers, io_uring requests, and the reactor pool. */
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/compiler.h"
#include "lib/reactor.h"

static struct reactor *new_reactor(void)
{
	struct reactor *r;

	assert_int_equal(reactor_create(&r, 0), 0);
	return r;
}

/* ---- fd callbacks ---- */

struct pipe_h {
	struct reactor_fd h;
	int wfd;
	int calls;
	char got[16];
	struct pipe_h *victim; /* deleted by this handle's callback */
};

static int fd_calls_total;

static void pipe_cb(struct reactor_fd *h, uint32_t revents)
{
	struct pipe_h *p = container_of(h, struct pipe_h, h);

	assert_true(revents & REACTOR_IN);
	p->calls++;
	fd_calls_total++;
	assert_int_equal(read(h->fd, p->got, sizeof(p->got)), 5);
	if (p->victim)
		reactor_fd_del(&p->victim->h);
	reactor_stop(h->r);
}

static void test_fd_callback(void **state)
{
	struct reactor *r = new_reactor();
	struct pipe_h p = {0};
	int fds[2];

	assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(reactor_fd_add(r, &p.h, fds[0], REACTOR_IN, pipe_cb), 0);
	assert_int_equal(write(fds[1], "hello", 5), 5);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(p.calls, 1);
	assert_memory_equal(p.got, "hello", 5);
	/* With the interest set emptied, new data raises no callback: only
	 * the stop ends that run. Restored, the next run reads it. */
	assert_int_equal(reactor_fd_mod(&p.h, 0), 0);
	assert_int_equal(write(fds[1], "again", 5), 5);
	reactor_stop(r);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(p.calls, 1);
	assert_int_equal(reactor_fd_mod(&p.h, REACTOR_IN), 0);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(p.calls, 2);
	assert_memory_equal(p.got, "again", 5);
	reactor_fd_del(&p.h);
	assert_int_equal(reactor_fd_mod(&p.h, REACTOR_IN), -EBADF); /* deleted */
	reactor_fd_del(&p.h);					    /* twice: harmless */
	assert_int_equal(reactor_fd_add(r, &p.h, -1, REACTOR_IN, pipe_cb), -EBADF);
	close(fds[0]);
	close(fds[1]);
	reactor_destroy(r);
}

/* Two handles ready in the same batch: whichever runs first deletes the
 * other, which must then not be called. */
static void test_fd_del_in_batch(void **state)
{
	struct reactor *r = new_reactor();
	struct pipe_h a = {0}, b = {0};
	int fa[2], fb[2];

	assert_int_equal(pipe2(fa, O_NONBLOCK), 0);
	assert_int_equal(pipe2(fb, O_NONBLOCK), 0);
	a.victim = &b;
	b.victim = &a;
	assert_int_equal(reactor_fd_add(r, &a.h, fa[0], REACTOR_IN, pipe_cb), 0);
	assert_int_equal(reactor_fd_add(r, &b.h, fb[0], REACTOR_IN, pipe_cb), 0);
	assert_int_equal(write(fa[1], "aaaaa", 5), 5);
	assert_int_equal(write(fb[1], "bbbbb", 5), 5);
	fd_calls_total = 0;
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(fd_calls_total, 1);
	assert_int_equal(a.calls + b.calls, 1);
	reactor_fd_del(a.calls ? &a.h : &b.h);
	close(fa[0]);
	close(fa[1]);
	close(fb[0]);
	close(fb[1]);
	reactor_destroy(r);
}

/* ---- cross-thread posts ---- */

enum { PRODUCERS = 4, PER_PRODUCER = 20000 };

struct post_msg {
	struct reactor_msg m;
	unsigned producer;
	unsigned seq;
};

static struct {
	struct reactor *r;
	pthread_t reactor_thread;
	struct post_msg *msgs;
	unsigned *delivered; /* per message */
	unsigned next_seq[PRODUCERS];
	unsigned total;
	unsigned wrong_thread;
	unsigned out_of_order;
} post;

static void post_fn(struct reactor_msg *m)
{
	struct post_msg *pm = container_of(m, struct post_msg, m);

	if (reactor_self() != post.r || !pthread_equal(pthread_self(), post.reactor_thread))
		post.wrong_thread++;
	if (pm->seq != post.next_seq[pm->producer])
		post.out_of_order++;
	post.next_seq[pm->producer] = pm->seq + 1;
	post.delivered[pm - post.msgs]++;
	if (++post.total == PRODUCERS * PER_PRODUCER)
		reactor_stop(post.r);
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < PER_PRODUCER; i++) {
		struct post_msg *pm = &post.msgs[id * PER_PRODUCER + i];

		pm->m.fn = post_fn;
		pm->producer = id;
		pm->seq = i;
		reactor_post(post.r, &pm->m);
		if ((i & 1023) == 0)
			usleep(100); /* let the list drain now and then: more wake-ups */
	}
	return NULL;
}

static void *reactor_thread_main(void *arg)
{
	struct reactor *r = arg;

	post.reactor_thread = pthread_self();
	assert_int_equal(reactor_run(r), 0);
	return NULL;
}

static void test_post_many_threads(void **state)
{
	pthread_t rt, pt[PRODUCERS];

	memset(&post, 0, sizeof(post));
	post.r = new_reactor();
	post.msgs = calloc(PRODUCERS * PER_PRODUCER, sizeof(*post.msgs));
	post.delivered = calloc(PRODUCERS * PER_PRODUCER, sizeof(*post.delivered));
	assert_non_null(post.msgs);
	assert_non_null(post.delivered);
	assert_int_equal(pthread_create(&rt, NULL, reactor_thread_main, post.r), 0);
	for (unsigned i = 0; i < PRODUCERS; i++)
		assert_int_equal(pthread_create(&pt[i], NULL, producer, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(pt[i], NULL);
	pthread_join(rt, NULL);
	assert_int_equal(post.total, PRODUCERS * PER_PRODUCER);
	for (unsigned i = 0; i < PRODUCERS * PER_PRODUCER; i++)
		if (post.delivered[i] != 1)
			fail_msg("message %u delivered %u times", i, post.delivered[i]);
	assert_int_equal(post.wrong_thread, 0);
	assert_int_equal(post.out_of_order, 0);
	free(post.msgs);
	free(post.delivered);
	reactor_destroy(post.r);
}

/* A reactor blocked in epoll with nothing to do is woken by a stop from
 * another thread. */
static void *stop_later(void *arg)
{
	usleep(20000);
	reactor_stop(arg);
	return NULL;
}

static void test_stop_from_thread(void **state)
{
	struct reactor *r = new_reactor();
	pthread_t t;
	uint64_t t0 = reactor_now_ns();

	assert_int_equal(pthread_create(&t, NULL, stop_later, r), 0);
	assert_int_equal(reactor_run(r), 0);
	assert_true(reactor_now_ns() - t0 >= 20000000ull);
	pthread_join(t, NULL);
	assert_null(reactor_self());
	reactor_destroy(r);
}

/* ---- adaptive busy polling ---- */

/* The window follows the waits: a reactor whose events come within the
 * budget polls for them, one whose events come further apart stops. */
static void test_poll_window(void **state)
{
	const uint64_t max = 50000;
	uint64_t w = 0;

	(void)state;
	/* from 0: a wait within the budget opens it at the minimum, then doubles */
	w = reactor_poll_window(w, 30000, max, false);
	assert_int_equal(w, REACTOR_POLL_MIN_NS);
	/* 30 us waits stop widening it once it covers them */
	for (int i = 0; i < 6; i++)
		w = reactor_poll_window(w, 30000, max, false);
	assert_int_equal(w, 32000); /* 4, 8, 16, 32 us, then kept */
	w = reactor_poll_window(w, 45000, max, false);
	assert_int_equal(w, 50000); /* 64 us, capped at the budget */
	/* a wait the window covered leaves it */
	assert_int_equal(reactor_poll_window(w, 12000, max, false), 50000);
	/* waits longer than the budget halve it down to 0 */
	w = reactor_poll_window(w, 80000, max, false);
	assert_int_equal(w, 25000);
	for (int i = 0; i < 4; i++)
		w = reactor_poll_window(w, 1000000, max, false);
	assert_int_equal(w, 0); /* 12.5, 6.25, 3.125, then below 2: 0 */
	/* at 0 a long wait leaves it 0 */
	assert_int_equal(reactor_poll_window(0, 1000000, max, false), 0);
	/* a smaller budget caps a wider window at the next wait */
	assert_int_equal(reactor_poll_window(40000, 45000, 20000, false), 20000);
	/* a probe (the whole budget spun) whose event came within it opens
	 * the window to the budget, from 0 or from a narrower window; one
	 * that did not follows the rule above */
	assert_int_equal(reactor_poll_window(0, 30000, max, true), max);
	assert_int_equal(reactor_poll_window(4000, 49000, max, true), max);
	assert_int_equal(reactor_poll_window(0, 80000, max, true), 0);
	assert_int_equal(reactor_poll_window(8000, 80000, max, true), 4000);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct bp {
	struct reactor_fd h;
	struct reactor_timer t;
	int wfd;
	int calls;
	uint64_t t_event, t_timer;
};

static void bp_timer(struct reactor_timer *t)
{
	struct bp *b = container_of(t, struct bp, t);

	b->t_timer = reactor_now_ns();
	reactor_stop(t->r);
}

static void bp_cb(struct reactor_fd *h, uint32_t revents)
{
	struct bp *b = container_of(h, struct bp, h);
	char buf[8];

	assert_int_equal(read(h->fd, buf, sizeof(buf)), 1);
	if (b->calls++ == 0) {
		b->t_event = reactor_now_ns();
		reactor_timer_arm(h->r, &b->t, 60000000ull); /* 60 ms */
	}
}

static void *bp_write_later(void *arg)
{
	struct bp *b = arg;

	usleep(20000); /* while the reactor spins after the first event */
	assert_int_equal(write(b->wfd, "y", 1), 1);
	return NULL;
}

/* A spinning reactor still serves an event that comes during the spin,
 * and a timer due before the end of the budget fires on time: the spin
 * ends at the timer's deadline. The budget (2 s) is far longer than the
 * test's 60 ms timer. */
static void test_busy_poll_events_and_timers(void **state)
{
	struct reactor *r = new_reactor();
	struct bp b = {0};
	pthread_t t;
	int fds[2];

	reactor_set_busy_poll_ns(2000000000ull);
	assert_int_equal(reactor_busy_poll_ns(), 2000000000ull);
	assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	b.wfd = fds[1];
	reactor_timer_init(&b.t, bp_timer);
	assert_int_equal(reactor_fd_add(r, &b.h, fds[0], REACTOR_IN, bp_cb), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(pthread_create(&t, NULL, bp_write_later, &b), 0);
	assert_int_equal(reactor_run(r), 0);
	pthread_join(t, NULL);
	reactor_set_busy_poll_ns(0);
	assert_int_equal(b.calls, 2);
	assert_true(b.t_timer - b.t_event >= 60000000ull);
	assert_true(b.t_timer - b.t_event < 1000000000ull); /* not at the end of the budget */
	reactor_fd_del(&b.h);
	close(fds[0]);
	close(fds[1]);
	reactor_destroy(r);
}

/* With a budget but no event, the reactor sleeps: its thread uses next to
 * no CPU over 100 ms of waiting (a spin would use all of it). */
static void test_busy_poll_idle_sleeps(void **state)
{
	struct reactor *r = new_reactor();
	pthread_t t;
	uint64_t cpu0;

	reactor_set_busy_poll_ns(2000000000ull);
	cpu0 = thread_cpu_ns();
	assert_int_equal(pthread_create(&t, NULL, stop_later, r), 0);
	assert_int_equal(reactor_run(r), 0);
	pthread_join(t, NULL);
	reactor_set_busy_poll_ns(0);
	assert_true(thread_cpu_ns() - cpu0 < 10000000ull);
	reactor_destroy(r);
}

/* ---- deferred work ---- */

static char order[64];
static size_t norder;

static void note(char c)
{
	assert_true(norder < sizeof(order) - 1);
	order[norder++] = c;
}

static struct reactor *dr;
static struct reactor_defer d1, d2, d3, d4, d5;
static struct reactor_msg m1, m2;
static int d1_runs, d5_runs;

static void d1_fn(struct reactor_defer *d)
{
	note('1');
	if (d1_runs++ == 0) {
		reactor_defer(dr, &d3); /* queued while running: same iteration */
		reactor_defer(dr, &d1); /* a running item may queue itself again */
	}
}

static void d2_fn(struct reactor_defer *d)
{
	note('2');
}

static void d3_fn(struct reactor_defer *d)
{
	note('3');
}

static void d4_fn(struct reactor_defer *d)
{
	note('4');
}

static void d5_fn(struct reactor_defer *d)
{
	note('5');
	if (++d5_runs < 3)
		reactor_defer(dr, &d5);
}

static void m2_fn(struct reactor_msg *m)
{
	note('B');
	reactor_stop(dr);
}

static void m1_fn(struct reactor_msg *m)
{
	note('A');
	reactor_defer(dr, &d1);
	reactor_defer(dr, &d1); /* de-duplicated */
	reactor_defer(dr, &d2);
	reactor_defer(dr, &d1);
	reactor_defer(dr, &d4);
	reactor_defer(dr, &d5);
	reactor_defer_cancel(&d4); /* never runs */
	reactor_defer_cancel(&d4); /* twice is harmless */
	reactor_post(dr, &m2);	   /* self-post: next iteration, after the deferred work */
}

static void test_defer(void **state)
{
	dr = new_reactor();
	norder = 0;
	d1_runs = 0;
	d5_runs = 0;
	reactor_defer_init(&d1, d1_fn);
	reactor_defer_init(&d2, d2_fn);
	reactor_defer_init(&d3, d3_fn);
	reactor_defer_init(&d4, d4_fn);
	reactor_defer_init(&d5, d5_fn);
	m1.fn = m1_fn;
	m2.fn = m2_fn;
	reactor_post(dr, &m1);
	assert_int_equal(reactor_run(dr), 0);
	order[norder] = 0;
	/* Round 1: d1 d2 d5 (d1 queued once, d4 cancelled); round 2: d3 d1 d5;
	 * round 3: d5; then the next iteration's self-posted message B. */
	assert_string_equal(order, "A1253155B");
	reactor_destroy(dr);
}

/* ---- timers ---- */

struct tmr {
	struct reactor_timer t;
	char name;
	uint64_t due;
	uint64_t fired_at;
	int fired;
	int periodic; /* re-arm count left */
};

static struct reactor *tr;
static char torder[32];
static size_t ntorder;
static int tstop_after;

static void tmr_fn(struct reactor_timer *t)
{
	struct tmr *x = container_of(t, struct tmr, t);

	x->fired_at = reactor_now_ns();
	x->fired++;
	assert_false(reactor_timer_armed(t));
	assert_true(x->fired_at >= x->due);
	torder[ntorder++] = x->name;
	if (x->periodic > 0) {
		x->periodic--;
		x->due = reactor_now_ns() + 2000000;
		reactor_timer_arm(tr, t, 2000000);
	}
	if (--tstop_after == 0)
		reactor_stop(tr);
}

static void tmr_arm(struct tmr *x, uint64_t ms)
{
	x->due = reactor_now_ns() + ms * 1000000;
	reactor_timer_arm(tr, &x->t, ms * 1000000);
	assert_true(reactor_timer_armed(&x->t));
}

static void test_timers(void **state)
{
	struct tmr a = {.name = 'a'}, b = {.name = 'b'}, c = {.name = 'c'}, d = {.name = 'd'},
		   p = {.name = 'p', .periodic = 2};

	tr = new_reactor();
	ntorder = 0;
	reactor_timer_init(&a.t, tmr_fn);
	reactor_timer_init(&b.t, tmr_fn);
	reactor_timer_init(&c.t, tmr_fn);
	reactor_timer_init(&d.t, tmr_fn);
	reactor_timer_init(&p.t, tmr_fn);
	assert_false(reactor_timer_armed(&a.t));
	tmr_arm(&a, 40);
	tmr_arm(&b, 20);
	tmr_arm(&c, 30);
	tmr_arm(&d, 25);
	reactor_timer_cancel(&d.t); /* cancelled: never fires */
	assert_false(reactor_timer_armed(&d.t));
	reactor_timer_cancel(&d.t);
	tmr_arm(&c, 5); /* re-armed earlier while armed */
	tmr_arm(&p, 1); /* fires at ~1, ~3, ~5 ms */
	tstop_after = 6;
	assert_int_equal(reactor_run(tr), 0);
	torder[ntorder] = 0;
	assert_int_equal(a.fired, 1);
	assert_int_equal(b.fired, 1);
	assert_int_equal(c.fired, 1);
	assert_int_equal(d.fired, 0);
	assert_int_equal(p.fired, 3);
	/* p p(c) ... the periodic timer interleaves with c (5 ms); then b, a. */
	assert_true(strchr(torder, 'c') < strchr(torder, 'b'));
	assert_true(strchr(torder, 'b') < strchr(torder, 'a'));
	assert_int_equal(torder[ntorder - 1], 'a');
	assert_int_equal(torder[0], 'p');
	reactor_destroy(tr);
}

/* Heap order with many timers, random deadlines and cancellations. */
enum { NT = 300 };
static struct tmr many[NT];
static uint64_t last_due;
static int many_left, many_bad;

static void many_fn(struct reactor_timer *t)
{
	struct tmr *x = container_of(t, struct tmr, t);

	/* Deadlines as the reactor recorded them: never early, never out of
	 * order. */
	if (t->when_ns < last_due || reactor_now_ns() < t->when_ns || t->when_ns < x->due)
		many_bad++;
	last_due = t->when_ns;
	x->fired++;
	if (--many_left == 0)
		reactor_stop(tr);
}

static void test_timer_heap(void **state)
{
	unsigned seed = 99;
	int cancelled = 0;

	tr = new_reactor();
	last_due = 0;
	many_bad = 0;
	for (int i = 0; i < NT; i++) {
		seed = seed * 1103515245u + 12345u;
		reactor_timer_init(&many[i].t, many_fn);
		many[i].fired = 0;
		uint64_t delay = (seed >> 8) % 30000000u; /* 0..30 ms */

		many[i].due = reactor_now_ns() + delay;
		reactor_timer_arm(tr, &many[i].t, delay);
	}
	for (int i = 0; i < NT; i += 7) {
		reactor_timer_cancel(&many[i].t);
		cancelled++;
	}
	for (int i = 3; i < NT; i += 11) { /* re-arm some to new deadlines */
		if (!reactor_timer_armed(&many[i].t))
			continue;
		many[i].due = reactor_now_ns() + 1000000u * (unsigned)(i % 13);
		reactor_timer_arm(tr, &many[i].t, 1000000u * (unsigned)(i % 13));
	}
	many_left = NT - cancelled;
	assert_int_equal(reactor_run(tr), 0);
	assert_int_equal(many_bad, 0);
	for (int i = 0; i < NT; i++)
		assert_int_equal(many[i].fired, i % 7 == 0 ? 0 : 1);
	reactor_destroy(tr);
}

/* ---- io_uring ---- */

struct rd {
	struct reactor_uring_req req;
	struct reactor *r;
	char buf[64];
	int res;
	int calls;
	bool on_thread;
};

static int rd_outstanding;

static void rd_cb(struct reactor_uring_req *req, int res)
{
	struct rd *x = container_of(req, struct rd, req);

	x->res = res;
	x->calls++;
	x->on_thread = reactor_self() == x->r;
	if (--rd_outstanding == 0)
		reactor_stop(x->r);
}

struct rd_start {
	struct reactor_msg m;
	struct reactor *r;
	int fd;
	struct rd *a, *b;
};

static void rd_start_fn(struct reactor_msg *m)
{
	struct rd_start *s = container_of(m, struct rd_start, m);
	struct io_uring_sqe *sqe;

	/* Two requests queued in one iteration, submitted together at its end. */
	sqe = reactor_uring_sqe(s->r, &s->a->req);
	assert_non_null(sqe);
	io_uring_prep_read(sqe, s->fd, s->a->buf, 10, 0);
	sqe = reactor_uring_sqe(s->r, &s->b->req);
	assert_non_null(sqe);
	io_uring_prep_read(sqe, s->fd, s->b->buf, 16, 100);
	rd_outstanding = 2;
}

static int make_temp_file(char *path, size_t n)
{
	snprintf(path, n, "/tmp/ut-reactor-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	char data[128];

	for (int i = 0; i < 128; i++)
		data[i] = (char)('A' + i % 26);
	assert_int_equal(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	return fd;
}

static void test_uring_read(void **state)
{
	struct reactor *r = new_reactor();
	char path[64];
	int fd = make_temp_file(path, sizeof(path));
	struct rd a = {.req.cb = rd_cb, .r = r}, b = {.req.cb = rd_cb, .r = r};
	struct rd_start s = {.m.fn = rd_start_fn, .r = r, .fd = fd, .a = &a, .b = &b};

	if (!reactor_has_uring(r)) {
		/* The fallback must be real: io_uring is disabled by the
		 * environment or really unavailable here. */
		const char *env = getenv("UTARGET_NO_IO_URING");

		if (!env || strcmp(env, "1") != 0) {
			struct io_uring ring;
			int rc = io_uring_queue_init(8, &ring, 0);

			if (rc == 0)
				io_uring_queue_exit(&ring);
			assert_true(rc < 0);
		}
		assert_null(reactor_uring_sqe(r, &a.req));
		goto out;
	}
	reactor_post(r, &s.m);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(a.calls, 1);
	assert_int_equal(b.calls, 1);
	assert_int_equal(a.res, 10);
	assert_int_equal(b.res, 16);
	assert_true(a.on_thread && b.on_thread);
	assert_memory_equal(a.buf, "ABCDEFGHIJ", 10);
	assert_memory_equal(b.buf, "WXYZABCDEFGHIJKL", 16);
out:
	close(fd);
	unlink(path);
	reactor_destroy(r);
}

/* More SQEs in one iteration than the SQ holds: reactor_uring_sqe submits
 * the full batch itself and carries on. */
enum { NREQ = 600 };
static struct rd reqs[NREQ];

struct flood {
	struct reactor_msg m;
	struct reactor *r;
	int fd;
	int got_null;
};

static void flood_fn(struct reactor_msg *m)
{
	struct flood *f = container_of(m, struct flood, m);

	rd_outstanding = NREQ;
	for (int i = 0; i < NREQ; i++) {
		struct io_uring_sqe *sqe = reactor_uring_sqe(f->r, &reqs[i].req);

		if (!sqe) {
			f->got_null++;
			rd_outstanding--;
			continue;
		}
		io_uring_prep_read(sqe, f->fd, reqs[i].buf, 4, (uint64_t)(i % 100));
	}
}

static void test_uring_many(void **state)
{
	struct reactor *r = new_reactor();
	char path[64];
	int fd = make_temp_file(path, sizeof(path));
	struct flood f = {.m.fn = flood_fn, .r = r, .fd = fd};

	if (reactor_has_uring(r)) {
		for (int i = 0; i < NREQ; i++)
			reqs[i] = (struct rd){.req.cb = rd_cb, .r = r};
		reactor_post(r, &f.m);
		assert_int_equal(reactor_run(r), 0);
		assert_int_equal(f.got_null, 0);
		for (int i = 0; i < NREQ; i++) {
			assert_int_equal(reqs[i].calls, 1);
			assert_int_equal(reqs[i].res, 4);
			assert_int_equal(reqs[i].buf[0], 'A' + (i % 100) % 26);
		}
	} else {
		assert_null(reactor_uring_sqe(r, &reqs[0].req));
	}
	close(fd);
	unlink(path);
	reactor_destroy(r);
}

/* A request that completes inside the submit (a NOP) has its callback, and
 * the deferred work that queues, run in the iteration that submitted it: a
 * pipe kept readable counts the iterations. */
struct inl {
	struct reactor_fd pipe_h;
	struct reactor_msg m;
	struct reactor_uring_req req;
	struct reactor_defer d;
	struct reactor *r;
	int iterations; /* pipe callbacks: one per loop iteration */
	int cb_at, defer_at;
	int res;
};

static void inl_pipe_cb(struct reactor_fd *h, uint32_t revents)
{
	struct inl *x = container_of(h, struct inl, pipe_h);

	x->iterations++; /* the byte stays: readable in every iteration */
	if (x->iterations > 5)
		reactor_stop(x->r); /* the completion never came */
}

static void inl_defer_fn(struct reactor_defer *d)
{
	struct inl *x = container_of(d, struct inl, d);

	x->defer_at = x->iterations;
	reactor_stop(x->r);
}

static void inl_cb(struct reactor_uring_req *req, int res)
{
	struct inl *x = container_of(req, struct inl, req);

	x->res = res;
	x->cb_at = x->iterations;
	reactor_defer(x->r, &x->d);
}

static void inl_start(struct reactor_msg *m)
{
	struct inl *x = container_of(m, struct inl, m);
	struct io_uring_sqe *sqe = reactor_uring_sqe(x->r, &x->req);

	assert_non_null(sqe);
	io_uring_prep_nop(sqe);
}

static void test_uring_inline_completion(void **state)
{
	struct reactor *r = new_reactor();
	struct inl x = {.m.fn = inl_start, .req.cb = inl_cb, .r = r, .res = -1};
	int p[2];

	if (!reactor_has_uring(r)) {
		/* why io_uring is unavailable: test_uring_read */
		assert_null(reactor_uring_sqe(r, &x.req));
		reactor_destroy(r);
		return;
	}
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(reactor_fd_add(r, &x.pipe_h, p[0], REACTOR_IN, inl_pipe_cb), 0);
	reactor_defer_init(&x.d, inl_defer_fn);
	reactor_post(r, &x.m);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(x.res, 0);
	assert_int_equal(x.cb_at, 1);
	assert_int_equal(x.defer_at, 1);
	reactor_fd_del(&x.pipe_h);
	close(p[0]);
	close(p[1]);
	reactor_destroy(r);
}

static void test_uring_disabled_by_env(void **state)
{
	struct reactor *r;
	struct rd a = {.req.cb = rd_cb};

	setenv("UTARGET_NO_IO_URING", "1", 1);
	assert_int_equal(reactor_create(&r, 7), 0);
	unsetenv("UTARGET_NO_IO_URING");
	assert_false(reactor_has_uring(r));
	assert_null(reactor_uring_sqe(r, &a.req));
	assert_int_equal(reactor_id(r), 7);
	reactor_destroy(r);
	assert_false(reactor_has_uring(NULL));
}

/* ---- pool ---- */

struct pool_probe {
	struct reactor_msg m;
	unsigned idx;
	bool self_ok;
	char name[16];
	atomic_int *left;
};

static void pool_probe_fn(struct reactor_msg *m)
{
	struct pool_probe *p = container_of(m, struct pool_probe, m);

	p->self_ok = reactor_self() == reactor_pool_get(p->idx);
	pthread_getname_np(pthread_self(), p->name, sizeof(p->name));
	if (atomic_fetch_sub(p->left, 1) == 1)
		reactor_pool_stop(); /* from whichever reactor thread is last */
}

static void test_pool(void **state)
{
	enum { N = 3 };
	struct pool_probe probes[N];
	atomic_int left = N;

	assert_int_equal(reactor_pool_start(N), 0);
	assert_int_equal(reactor_pool_start(2), -EBUSY);
	assert_int_equal(reactor_pool_size(), N);
	assert_null(reactor_pool_get(N));
	assert_ptr_equal(reactor_pool_next(), reactor_pool_get(0));
	assert_ptr_equal(reactor_pool_next(), reactor_pool_get(1));
	assert_ptr_equal(reactor_pool_next(), reactor_pool_get(2));
	assert_ptr_equal(reactor_pool_next(), reactor_pool_get(0));
	for (unsigned i = 0; i < N; i++) {
		probes[i] = (struct pool_probe){.m.fn = pool_probe_fn, .idx = i, .left = &left};
		assert_int_equal(reactor_id(reactor_pool_get(i)), i);
		reactor_post(reactor_pool_get(i), &probes[i].m);
	}
	assert_int_equal(reactor_pool_run(), 0);
	/* reactor 0 stopped; the others were stopped too (the pool stop is
	 * global), so the join below returns promptly. */
	reactor_pool_join();
	assert_int_equal(reactor_pool_size(), 0);
	for (unsigned i = 0; i < N; i++)
		assert_true(probes[i].self_ok);
	assert_string_equal(probes[1].name, "utarget-r1");
	assert_string_equal(probes[2].name, "utarget-r2");
	assert_null(reactor_pool_next());
	assert_int_equal(reactor_pool_run(), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fd_callback),
	    cmocka_unit_test(test_fd_del_in_batch),
	    cmocka_unit_test(test_post_many_threads),
	    cmocka_unit_test(test_stop_from_thread),
	    cmocka_unit_test(test_poll_window),
	    cmocka_unit_test(test_busy_poll_events_and_timers),
	    cmocka_unit_test(test_busy_poll_idle_sleeps),
	    cmocka_unit_test(test_defer),
	    cmocka_unit_test(test_timers),
	    cmocka_unit_test(test_timer_heap),
	    cmocka_unit_test(test_uring_read),
	    cmocka_unit_test(test_uring_many),
	    cmocka_unit_test(test_uring_inline_completion),
	    cmocka_unit_test(test_uring_disabled_by_env),
	    cmocka_unit_test(test_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
