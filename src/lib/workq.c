/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workq.c: a pool of worker threads for blocking calls.
 *
 * Contract (workq.h): workq_submit(w), called on a reactor thread, records
 * that reactor as w->origin and queues w; a worker thread runs w->work(w),
 * then w->done(w) runs on the origin reactor's thread (through reactor_post,
 * using w->msg). Items are started in submission order (FIFO), several at a
 * time. workq_start(n) is idempotent; workq_submit starts the pool with
 * WORKQ_DEFAULT_THREADS threads if nobody did. workq_stop() lets the workers
 * finish every queued item, joins them, and allows a later workq_start().
 *
 * The queue is a singly linked list under one mutex with a condition
 * variable; a worker is signalled only when one is idle.
 */
#include "workq.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "log.h"

#define WORKQ_DEFAULT_THREADS 4

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct workq_item *head, *tail;
	unsigned idle;
	bool stopping;
	pthread_t *threads;
	unsigned nthreads;
} workq = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

/* Serializes start and stop. */
static pthread_mutex_t workq_ctl_lock = PTHREAD_MUTEX_INITIALIZER;

static void workq_msg_done(struct reactor_msg *m)
{
	struct workq_item *w = container_of(m, struct workq_item, msg);

	w->done(w);
}

static void *workq_thread(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "utarget-w%u", idx);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&workq.lock);
	for (;;) {
		struct workq_item *w = workq.head;

		if (!w) {
			if (workq.stopping)
				break;
			workq.idle++;
			pthread_cond_wait(&workq.cond, &workq.lock);
			workq.idle--;
			continue;
		}
		workq.head = w->next;
		if (!workq.head)
			workq.tail = NULL;
		pthread_mutex_unlock(&workq.lock);

		w->work(w);
		w->msg.fn = workq_msg_done;
		reactor_post(w->origin, &w->msg);

		pthread_mutex_lock(&workq.lock);
	}
	pthread_mutex_unlock(&workq.lock);
	return NULL;
}

int workq_start(unsigned nthreads)
{
	sigset_t all, old;
	unsigned started = 0;
	int rc = 0;

	if (nthreads == 0)
		return -EINVAL;
	pthread_mutex_lock(&workq_ctl_lock);
	if (workq.nthreads)
		goto out;
	workq.threads = calloc(nthreads, sizeof(*workq.threads));
	if (!workq.threads) {
		rc = -ENOMEM;
		goto out;
	}
	workq.stopping = false;
	/* Workers take no asynchronous signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < nthreads; i++) {
		rc = -pthread_create(&workq.threads[i], NULL, workq_thread, (void *)(uintptr_t)i);
		if (rc < 0)
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&workq.nthreads, started, __ATOMIC_RELEASE);
	if (rc < 0) {
		log_err("workq: cannot start a worker thread: %s", strerror(-rc));
		if (started) {
			rc = 0; /* run with the threads we have */
		} else {
			free(workq.threads);
			workq.threads = NULL;
		}
	}
out:
	pthread_mutex_unlock(&workq_ctl_lock);
	return rc;
}

void workq_stop(void)
{
	pthread_mutex_lock(&workq_ctl_lock);
	if (!workq.nthreads) {
		pthread_mutex_unlock(&workq_ctl_lock);
		return;
	}
	pthread_mutex_lock(&workq.lock);
	workq.stopping = true;
	pthread_cond_broadcast(&workq.cond);
	pthread_mutex_unlock(&workq.lock);
	for (unsigned i = 0; i < workq.nthreads; i++)
		pthread_join(workq.threads[i], NULL);
	free(workq.threads);
	workq.threads = NULL;
	__atomic_store_n(&workq.nthreads, 0, __ATOMIC_RELEASE);
	workq.stopping = false;
	pthread_mutex_unlock(&workq_ctl_lock);
}

void workq_submit(struct workq_item *w)
{
	w->origin = reactor_self();
	assert(w->origin && "workq_submit must be called on a reactor thread");
	w->next = NULL;
	if (unlikely(!__atomic_load_n(&workq.nthreads, __ATOMIC_ACQUIRE)) &&
	    workq_start(WORKQ_DEFAULT_THREADS) < 0) {
		/* No thread at all: block this reactor rather than lose the item. */
		w->work(w);
		w->msg.fn = workq_msg_done;
		reactor_post(w->origin, &w->msg);
		return;
	}

	pthread_mutex_lock(&workq.lock);
	if (workq.tail)
		workq.tail->next = w;
	else
		workq.head = w;
	workq.tail = w;
	if (workq.idle)
		pthread_cond_signal(&workq.cond);
	pthread_mutex_unlock(&workq.lock);
}
