/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/workq.c: work on worker threads, completion on the
 * submitting reactor, exactly once, concurrency, drain on stop, lazy start. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/compiler.h"
#include "lib/workq.h"

struct job {
	struct workq_item w;
	struct reactor *want_origin;
	pthread_t reactor_thread;
	atomic_int work_runs;
	int done_runs;
	bool work_on_reactor;
	bool done_wrong_thread;
	pthread_barrier_t *barrier;
	atomic_int *left;
};

static void job_work(struct workq_item *w)
{
	struct job *j = container_of(w, struct job, w);

	atomic_fetch_add(&j->work_runs, 1);
	j->work_on_reactor =
	    reactor_self() != NULL || pthread_equal(pthread_self(), j->reactor_thread);
	if (j->barrier)
		pthread_barrier_wait(j->barrier);
}

static void job_done(struct workq_item *w)
{
	struct job *j = container_of(w, struct job, w);

	j->done_runs++;
	if (reactor_self() != j->want_origin || w->origin != j->want_origin ||
	    !pthread_equal(pthread_self(), j->reactor_thread))
		j->done_wrong_thread = true;
	if (atomic_fetch_sub(j->left, 1) == 1)
		reactor_stop(reactor_self());
}

struct batch {
	struct reactor_msg m;
	struct reactor *r;
	struct job *jobs;
	int n;
	atomic_int left;
	pthread_barrier_t *barrier;
};

static void batch_submit(struct reactor_msg *m)
{
	struct batch *b = container_of(m, struct batch, m);

	for (int i = 0; i < b->n; i++) {
		struct job *j = &b->jobs[i];

		j->w.work = job_work;
		j->w.done = job_done;
		j->want_origin = b->r;
		j->reactor_thread = pthread_self();
		j->left = &b->left;
		j->barrier = b->barrier;
		workq_submit(&j->w);
	}
}

static void *run_batch(void *arg)
{
	struct batch *b = arg;

	reactor_post(b->r, &b->m);
	assert_int_equal(reactor_run(b->r), 0);
	return NULL;
}

static void batch_init(struct batch *b, int n)
{
	memset(b, 0, sizeof(*b));
	assert_int_equal(reactor_create(&b->r, 0), 0);
	b->m.fn = batch_submit;
	b->n = n;
	b->jobs = calloc((size_t)n, sizeof(*b->jobs));
	assert_non_null(b->jobs);
	atomic_init(&b->left, n);
}

static void batch_check(struct batch *b)
{
	for (int i = 0; i < b->n; i++) {
		struct job *j = &b->jobs[i];

		assert_int_equal(atomic_load(&j->work_runs), 1);
		assert_int_equal(j->done_runs, 1);
		assert_false(j->work_on_reactor);
		assert_false(j->done_wrong_thread);
	}
	free(b->jobs);
	reactor_destroy(b->r);
}

static void test_start_idempotent(void **state)
{
	assert_int_equal(workq_start(0), -EINVAL);
	assert_int_equal(workq_start(2), 0);
	assert_int_equal(workq_start(4), 0);
	workq_stop();
	workq_stop(); /* twice is harmless */
}

/* Two reactors on two threads submit many items each; every completion
 * comes back exactly once to the reactor that submitted it. */
static void test_two_reactors(void **state)
{
	enum { N = 5000 };
	struct batch a, b;
	pthread_t ta, tb;

	assert_int_equal(workq_start(3), 0);
	batch_init(&a, N);
	batch_init(&b, N);
	assert_int_equal(pthread_create(&ta, NULL, run_batch, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, run_batch, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	batch_check(&a);
	batch_check(&b);
	workq_stop();
}

/* Items run concurrently: two items that wait for each other on a barrier
 * both finish (with a single worker this test would hang). */
static void test_concurrent(void **state)
{
	struct batch b;
	pthread_barrier_t bar;

	assert_int_equal(workq_start(2), 0);
	pthread_barrier_init(&bar, NULL, 2);
	batch_init(&b, 2);
	b.barrier = &bar;
	run_batch(&b);
	batch_check(&b);
	pthread_barrier_destroy(&bar);
	workq_stop();
}

/* workq_submit starts the pool when nobody did. */
static void test_lazy_start(void **state)
{
	struct batch b;

	batch_init(&b, 100);
	run_batch(&b);
	batch_check(&b);
	workq_stop();
}

/* Stop lets the workers finish every queued item first. */
static atomic_int slow_runs;

static void slow_work(struct workq_item *w)
{
	usleep(2000);
	atomic_fetch_add(&slow_runs, 1);
}

struct slow {
	struct reactor_msg m;
	struct workq_item w[20];
};

static int slow_done_count;

static void slow_done_count_fn(struct workq_item *w)
{
	slow_done_count++;
}

static void slow_submit(struct reactor_msg *m)
{
	struct slow *s = container_of(m, struct slow, m);

	for (int i = 0; i < 20; i++) {
		s->w[i].work = slow_work;
		s->w[i].done = slow_done_count_fn;
		workq_submit(&s->w[i]);
	}
	reactor_stop(reactor_self());
}

static void stop_fn(struct reactor_msg *m)
{
	reactor_stop(reactor_self());
}

static void test_stop_drains(void **state)
{
	struct reactor *r;
	struct slow s = {.m.fn = slow_submit};

	atomic_store(&slow_runs, 0);
	slow_done_count = 0;
	assert_int_equal(reactor_create(&r, 0), 0);
	assert_int_equal(workq_start(1), 0);
	reactor_post(r, &s.m);
	assert_int_equal(reactor_run(r), 0); /* submits 20 items and returns */
	workq_stop();
	assert_int_equal(atomic_load(&slow_runs), 20);
	/* The completions are waiting in the reactor's message queue. */
	assert_int_equal(slow_done_count, 0);
	struct reactor_msg stop = {.fn = stop_fn};

	reactor_post(r, &stop); /* runs after the completions posted before it */
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(slow_done_count, 20);
	reactor_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_start_idempotent), cmocka_unit_test(test_two_reactors),
	    cmocka_unit_test(test_concurrent),	     cmocka_unit_test(test_lazy_start),
	    cmocka_unit_test(test_stop_drains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
