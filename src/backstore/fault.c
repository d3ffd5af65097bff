/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.c: the fault-injection wrapper (contract in fault.h).
 *
 * A request held for a delay keeps its wrapper state in io->priv (the
 * reactor timer, the wrapper) until the timer fires; it is then handed to
 * the inner device, which owns io->priv from that moment on (the wrapper
 * never looks at it again: io->done is the core's own). So the wrapper
 * allocates nothing per request and stacks over any back-store. */
#include "backstore/fault.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"

struct fault_dev {
	struct bs_dev dev;
	struct bs_dev *inner;
	uint64_t *rlbas; /* sorted */
	size_t nr;
	uint64_t *wlbas; /* sorted */
	size_t nw;
	bool flush_error;
	uint32_t rate_ppm;
	int err; /* -errno to complete with */
	uint32_t delay_us;
	uint32_t jitter_us;
	uint64_t seed;
	uint32_t block_shift;
	_Atomic uint64_t draws; /* requests that drew from the generator */
};

/* io->priv while a request waits for its delay. */
struct fault_wait {
	struct reactor_timer timer;
	struct fault_dev *fd;
	struct bs_io *io;
};
static_assert(sizeof(struct fault_wait) <= BS_IO_PRIV_SIZE, "fault_wait fits bs_io.priv");

static const int fault_errno[BS_FAULT_ERROR_COUNT] = {
    [BS_FAULT_MEDIUM] = -EIO,
    [BS_FAULT_HARDWARE] = -EREMOTEIO,
    [BS_FAULT_NOSPACE] = -ENOSPC,
};

/* splitmix64: the n-th draw of the sequence of seed. */
static uint64_t fault_mix(uint64_t seed, uint64_t n)
{
	uint64_t z = seed + (n + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t fault_draw(struct fault_dev *fd)
{
	return fault_mix(fd->seed, atomic_fetch_add_explicit(&fd->draws, 1, memory_order_relaxed));
}

/* The lowest listed LBA in [first, first + n), or UINT64_MAX. */
static uint64_t fault_lba_hit(const uint64_t *l, size_t cnt, uint64_t first, uint64_t n)
{
	size_t lo = 0, hi = cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l[mid] < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cnt && l[lo] - first < n ? l[lo] : UINT64_MAX;
}

/* Decide the fate of io: 0 (pass to inner) or -errno with io->bad_off set. */
static int fault_verdict(struct fault_dev *fd, struct bs_io *io)
{
	uint64_t first = io->off >> fd->block_shift;
	uint64_t n = io->len >> fd->block_shift;
	uint64_t hit = UINT64_MAX;

	switch (io->op) {
	case BS_OP_READ:
		hit = fault_lba_hit(fd->rlbas, fd->nr, first, n);
		break;
	case BS_OP_WRITE:
	case BS_OP_WRITE_ZEROES:
	case BS_OP_WRITE_SAME:
	case BS_OP_COMPARE_WRITE:
		hit = fault_lba_hit(fd->wlbas, fd->nw, first, n);
		break;
	case BS_OP_FLUSH:
		return fd->flush_error ? fd->err : 0;
	default:
		return 0;
	}
	if (hit == UINT64_MAX && fd->rate_ppm && n && fault_draw(fd) % 1000000u < fd->rate_ppm)
		hit = first;
	if (hit == UINT64_MAX)
		return 0;
	if (fd->err == -EIO)
		io->bad_off = hit << fd->block_shift;
	return fd->err;
}

static void fault_forward(struct fault_dev *fd, struct bs_io *io)
{
	int err = fault_verdict(fd, io);

	if (err) {
		io->done(io, err);
		return;
	}
	fd->inner->ops->submit(fd->inner, io);
}

static void fault_timer_cb(struct reactor_timer *t)
{
	struct fault_wait *w = container_of(t, struct fault_wait, timer);
	struct fault_dev *fd = w->fd;
	struct bs_io *io = w->io;

	/* io->priv belongs to the inner device from here on */
	fault_forward(fd, io);
}

static void fault_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);
	uint64_t delay_us = fd->delay_us;
	struct reactor *r;
	struct fault_wait *w;

	if (fd->jitter_us)
		delay_us += fault_draw(fd) % ((uint64_t)fd->jitter_us + 1);
	if (!delay_us) {
		fault_forward(fd, io);
		return;
	}
	r = reactor_self();
	if (!r) {
		struct timespec ts = {.tv_sec = (time_t)(delay_us / 1000000u),
				      .tv_nsec = (long)(delay_us % 1000000u) * 1000};

		nanosleep(&ts, NULL);
		fault_forward(fd, io);
		return;
	}
	w = (struct fault_wait *)io->priv;
	w->fd = fd;
	w->io = io;
	reactor_timer_init(&w->timer, fault_timer_cb);
	reactor_timer_arm(r, &w->timer, delay_us * 1000u);
}

static int fault_resize(struct bs_dev *dev, uint64_t new_size)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);
	int rc;

	if (!fd->inner->ops->resize)
		return -EOPNOTSUPP;
	rc = fd->inner->ops->resize(fd->inner, new_size);
	dev->size = fd->inner->size;
	return rc;
}

static int fault_space(struct bs_dev *dev, uint64_t *used, uint64_t *avail, bool *avail_shared)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);

	if (!fd->inner->ops->space)
		return -EOPNOTSUPP;
	return fd->inner->ops->space(fd->inner, used, avail, avail_shared);
}

/* The medium's own size, facts and check are the inner back-store's (a
 * fault-wrapped block device still sees its resize, a dedup volume its
 * ratio and fsck). */
static uint64_t fault_medium_size(struct bs_dev *dev)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);
	uint64_t bytes;

	if (!fd->inner->ops->medium_size)
		return 0;
	bytes = fd->inner->ops->medium_size(fd->inner);
	if (bytes)
		dev->size = fd->inner->size;
	return bytes;
}

static size_t fault_facts(struct bs_dev *dev, struct bs_fact *f, size_t max)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);

	return fd->inner->ops->facts ? fd->inner->ops->facts(fd->inner, f, max) : 0;
}

static int fault_check(struct bs_dev *dev, struct bs_fact *f, size_t max, size_t *n)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);

	*n = 0;
	if (!fd->inner->ops->check)
		return -EOPNOTSUPP;
	return fd->inner->ops->check(fd->inner, f, max, n);
}

static void fault_close(struct bs_dev *dev)
{
	struct fault_dev *fd = container_of(dev, struct fault_dev, dev);

	bs_close(fd->inner);
	free(fd->rlbas);
	free(fd->wlbas);
	free(fd);
}

static const struct bs_ops fault_ops = {
    .type = "fault",
    .submit = fault_submit,
    .resize = fault_resize,
    .space = fault_space,
    .medium_size = fault_medium_size,
    .facts = fault_facts,
    .check = fault_check,
    .close = fault_close,
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int fault_copy_lbas(const struct bs_dev *inner, const uint64_t *src, size_t n, uint32_t bsz,
			   uint64_t **out)
{
	uint64_t blocks = inner->size / bsz;

	*out = NULL;
	if (!n)
		return 0;
	if (n > BS_FAULT_LBAS_MAX) {
		log_err("backstore %s: more than %u fault LBAs", inner->name, BS_FAULT_LBAS_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (src[i] >= blocks) {
			log_err("backstore %s: fault LBA %llu beyond the last block %llu",
				inner->name, (unsigned long long)src[i],
				(unsigned long long)(blocks ? blocks - 1 : 0));
			return -EINVAL;
		}
	}
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, src, n * sizeof(**out));
	qsort(*out, n, sizeof(**out), u64_cmp);
	return 0;
}

int bs_fault_wrap(struct bs_dev *inner, const struct bs_fault_params *p, struct bs_dev **out)
{
	struct fault_dev *fd;
	int rc;

	*out = NULL;
	if (p->block_size < 512 || (p->block_size & (p->block_size - 1)) ||
	    p->error >= BS_FAULT_ERROR_COUNT || p->error_rate_ppm > 1000000u ||
	    p->delay_us > BS_FAULT_DELAY_MAX || p->delay_jitter_us > BS_FAULT_DELAY_MAX) {
		log_err("backstore %s: invalid fault parameters", inner->name);
		return -EINVAL;
	}
	fd = calloc(1, sizeof(*fd));
	if (!fd)
		return -ENOMEM;
	rc = fault_copy_lbas(inner, p->read_error_lbas, p->nread, p->block_size, &fd->rlbas);
	if (!rc)
		rc = fault_copy_lbas(inner, p->write_error_lbas, p->nwrite, p->block_size,
				     &fd->wlbas);
	if (rc) {
		free(fd->rlbas);
		free(fd);
		return rc;
	}
	fd->nr = p->nread;
	fd->nw = p->nwrite;
	fd->inner = inner;
	fd->flush_error = p->flush_error;
	fd->rate_ppm = p->error_rate_ppm;
	fd->err = fault_errno[p->error];
	fd->delay_us = p->delay_us;
	fd->jitter_us = p->delay_jitter_us;
	fd->seed = p->seed;
	fd->block_shift = (uint32_t)__builtin_ctz(p->block_size);
	atomic_init(&fd->draws, 0);
	fd->dev.ops = &fault_ops;
	fd->dev.size = inner->size;
	fd->dev.caps = inner->caps;
	fd->dev.opt_unit = inner->opt_unit;
	memcpy(fd->dev.type, inner->type, sizeof(fd->dev.type));
	memcpy(fd->dev.name, inner->name, sizeof(fd->dev.name));
	log_info("backstore %s: fault injection: %zu read and %zu write LBAs, flush %s, rate "
		 "%u ppm, %s errors, delay %u+%u us",
		 inner->name, fd->nr, fd->nw, fd->flush_error ? "fails" : "ok", fd->rate_ppm,
		 bs_fault_error_name(p->error), fd->delay_us, fd->jitter_us);
	*out = &fd->dev;
	return 0;
}
