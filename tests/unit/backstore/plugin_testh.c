/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugin_testh.c: a back-store handler for test_plugin.c, built as several
 * shared modules (tests/unit/backstore/meson.build) against the public
 * header alone. Memory-backed; options:
 *   size=BYTES     the size (required)
 *   lbs=BYTES      logical block size (0)
 *   async=1        complete from a thread of the handler's own (joined by
 *                  close(): the daemon may unload the module after it)
 *   gate=FD        READ waits for a byte on FD first (a blocked handler)
 *   open_gate=FD   open() waits for a byte on FD first (a hung open)
 *   drop=1         never complete a WRITE
 *   twice=1        complete every request twice
 * MAP_STATUS: the first 4096 bytes mapped, the rest deallocated; with
 * badmap=1 an empty answer (map_len 0).
 * Built with -DTESTH_NAME=... and -DTESTH_ABI=... (a wrong ABI version) and
 * -DTESTH_TABLE_NAME=... (a table naming another handler). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <utarget/backstore.h>

#ifndef TESTH_ABI
#define TESTH_ABI UTBS_ABI_VERSION
#endif
#ifndef TESTH_TABLE_NAME
#define TESTH_TABLE_NAME TESTH_NAME
#endif

struct th_async {
	struct th *t;
	struct utbs_request *rq;
	int err;
	pthread_t tid;
	struct th_async *next;
};

struct th {
	const struct utbs_host *host;
	unsigned char *mem;
	uint64_t size;
	int async, gate, drop, twice, badmap;
	pthread_mutex_t lock;
	struct th_async *threads; /* started, not yet joined */
};

static void *th_later(void *arg)
{
	struct th_async *a = arg;

	usleep(1000);
	a->t->host->complete(a->rq, a->err);
	return NULL;
}

static int th_do(struct th *t, struct utbs_request *rq)
{
	uint64_t off = rq->off;
	char c;

	switch (rq->op) {
	case UTBS_OP_READ:
		if (t->gate >= 0 && read(t->gate, &c, 1) != 1)
			return -EIO;
		for (int i = 0; i < rq->iovcnt; i++) {
			memcpy(rq->iov[i].iov_base, t->mem + off, rq->iov[i].iov_len);
			off += rq->iov[i].iov_len;
		}
		return 0;
	case UTBS_OP_WRITE:
		for (int i = 0; i < rq->iovcnt; i++) {
			memcpy(t->mem + off, rq->iov[i].iov_base, rq->iov[i].iov_len);
			off += rq->iov[i].iov_len;
		}
		return 0;
	case UTBS_OP_DISCARD:
	case UTBS_OP_WRITE_ZEROES:
		memset(t->mem + off, 0, rq->len);
		return 0;
	case UTBS_OP_FLUSH:
		return 0;
	case UTBS_OP_MAP_STATUS:
		rq->mapped = off < 4096;
		rq->map_len = t->badmap ? 0 : rq->mapped ? 4096 - off : rq->len;
		return 0;
	}
	return -EOPNOTSUPP;
}

static void th_submit(void *ctx, struct utbs_request *rq)
{
	struct th *t = ctx;
	int err = th_do(t, rq);

	if (t->drop && rq->op == UTBS_OP_WRITE)
		return;
	if (t->async) {
		struct th_async *a = malloc(sizeof(*a));

		a->t = t;
		a->rq = rq;
		a->err = err;
		pthread_mutex_lock(&t->lock);
		if (pthread_create(&a->tid, NULL, th_later, a) == 0) {
			a->next = t->threads;
			t->threads = a;
			pthread_mutex_unlock(&t->lock);
			return;
		}
		pthread_mutex_unlock(&t->lock);
		free(a);
	}
	t->host->complete(rq, err);
	if (t->twice)
		t->host->complete(rq, err);
}

static int th_open(const struct utbs_host *host, const struct utbs_option *opt, size_t n,
		   struct utbs_info *info, void **ctx)
{
	struct th *t = calloc(1, sizeof(*t));
	long open_gate = -1, lbs = 0;

	if (!t)
		return -ENOMEM;
	t->host = host;
	t->gate = -1;
	pthread_mutex_init(&t->lock, NULL);
	for (size_t i = 0; i < n; i++) {
		long v = atol(opt[i].value);

		if (!strcmp(opt[i].key, "size"))
			t->size = (uint64_t)v;
		else if (!strcmp(opt[i].key, "lbs"))
			lbs = v;
		else if (!strcmp(opt[i].key, "async"))
			t->async = (int)v;
		else if (!strcmp(opt[i].key, "gate"))
			t->gate = (int)v;
		else if (!strcmp(opt[i].key, "open_gate"))
			open_gate = v;
		else if (!strcmp(opt[i].key, "drop"))
			t->drop = (int)v;
		else if (!strcmp(opt[i].key, "twice"))
			t->twice = (int)v;
		else if (!strcmp(opt[i].key, "badmap"))
			t->badmap = (int)v;
		else {
			host->log(host, UTBS_LOG_ERR, "unknown option %s", opt[i].key);
			free(t);
			return -EINVAL;
		}
	}
	if (open_gate >= 0) {
		char c;

		if (read((int)open_gate, &c, 1) != 1) {
			free(t);
			return -EIO;
		}
	}
	t->mem = t->size ? calloc(1, t->size) : NULL;
	if (!t->mem) {
		free(t);
		return -EINVAL;
	}
	info->size = t->size;
	info->logical_block_size = (uint32_t)lbs;
	info->caps = UTBS_CAP_FLUSH | UTBS_CAP_DISCARD | UTBS_CAP_WRITE_ZEROES | UTBS_CAP_FUA |
		     UTBS_CAP_MAP_STATUS;
	info->threads = 2;
	*ctx = t;
	return 0;
}

static void th_close(void *ctx)
{
	struct th *t = ctx;

	/* no code of this module may run once close() returns */
	while (t->threads) {
		struct th_async *a = t->threads;

		t->threads = a->next;
		pthread_join(a->tid, NULL);
		free(a);
	}
	pthread_mutex_destroy(&t->lock);
	free(t->mem);
	free(t);
}

UTBS_EXPORT const struct utbs_handler utbs_handler = {
    .abi_version = TESTH_ABI,
    .name = TESTH_TABLE_NAME,
    .open = th_open,
    .submit = th_submit,
    .close = th_close,
};
