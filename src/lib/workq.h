/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workq.h: a pool of worker threads for blocking calls (file I/O when
 * io_uring is unavailable, fsync, fallocate). The completion runs on the
 * reactor that submitted the item. */
#ifndef UT_WORKQ_H
#define UT_WORKQ_H

#include "reactor.h"

struct workq_item {
	void (*work)(struct workq_item *w); /* on a worker thread */
	void (*done)(struct workq_item *w); /* on `origin`'s thread afterwards */
	struct reactor *origin;		    /* set by workq_submit from reactor_self() */
	struct reactor_msg msg;		    /* internal */
	struct workq_item *next;	    /* internal */
};

int workq_start(unsigned nthreads); /* idempotent */
void workq_stop(void);
/* Must be called on a reactor thread (done is posted back to it). */
void workq_submit(struct workq_item *w);

#endif
