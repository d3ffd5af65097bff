/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ram.c: a sparse back-store in memory.
 *
 * Contract: every request completes synchronously inside submit(), on any
 * thread, with no lock: reactors on several threads may use one device at
 * once. Contents are zero until written and die with the device. Caps:
 * FLUSH (nothing to do), FUA (writes are as durable as they get at once),
 * DISCARD, WRITE_ZEROES, MAP_STATUS.
 *
 * Layout: the device is one private anonymous mapping of `size` bytes,
 * reserved with MAP_NORESERVE, so memory is committed by the kernel page by
 * page on first write (and page faults are thread-safe). The device is also
 * cut in RAM_CHUNK-byte chunks, each with an atomic state byte:
 *   UNMAPPED    never written or discarded: reads yield zeroes without
 *               touching the mapping (so reading a sparse device commits
 *               neither memory nor page tables);
 *   MAPPED      written since: reads copy from the mapping;
 *   DISCARDING  a DISCARD of the whole chunk is releasing its pages.
 * DISCARD of a whole chunk releases its memory with MADV_DONTNEED (the pages
 * read back as zeroes) and marks it UNMAPPED; partial chunks are zeroed (the
 * whole pages inside released, the edges cleared). WRITE_ZEROES zeroes the
 * same way but leaves the state alone. MAP_STATUS answers at chunk
 * granularity.
 *
 * Memory is not charged up front (MAP_NORESERVE): on a host out of memory a
 * first write meets the OOM killer, as any overcommitted allocation would.
 *
 * Why a reservation and not a table of malloc'ed chunks: freeing a chunk on
 * DISCARD while a reactor on another thread is copying from it would be a
 * use-after-free; here the memory behind an address never goes away before
 * close, and the kernel turns released pages back into zero pages.
 *
 * Races between a WRITE and a DISCARD of the same chunk (overlapping
 * commands in flight at once, whose order SAM leaves open): the writer marks
 * the chunk MAPPED after its copy and after a full fence; the discarder
 * moves it to DISCARDING before releasing pages and to UNMAPPED only if no
 * writer marked it meanwhile. So a chunk left UNMAPPED never holds data of a
 * write that completed after the discard started.
 *
 * Lending (bs.h BS_IO_LEND): a READ whose chunks are all MAPPED completes
 * with a pointer into the reservation instead of a copy (ram_lend()). The
 * reservation stays until close, so the pointer stays readable; a later
 * write shows through it, a later discard reads as zeroes through it, as
 * the contract allows. A range with a chunk never written (or being
 * discarded) is copied: its zeroes come without touching the mapping.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/safe_copy.h"

#define RAM_CHUNK_SHIFT 16
#define RAM_CHUNK	((uint64_t)1 << RAM_CHUNK_SHIFT)
/* MAP_STATUS scans at most this many chunks (4 GiB) per request. */
#define RAM_MAP_SCAN_MAX (1u << 16)

enum ram_chunk_state {
	RAM_UNMAPPED = 0,
	RAM_MAPPED = 1,
	RAM_DISCARDING = 2,
};

struct ram_dev {
	struct bs_dev dev;
	uint8_t *base;	/* dev.size bytes of address space */
	size_t map_len; /* page-rounded length of the mapping */
	uint64_t nchunks;
	uintptr_t pagemask;
	_Atomic uint8_t *state; /* enum ram_chunk_state per chunk */
};

static int ram_read(struct ram_dev *rd, struct bs_io *io)
{
	struct bs_iov_cursor c = {.iov = io->iov, .cnt = io->iovcnt};
	uint64_t pos = io->off, end = io->off + io->len;

	while (pos < end) {
		uint64_t ci = pos >> RAM_CHUNK_SHIFT;
		uint64_t stop = UT_MIN((ci + 1) << RAM_CHUNK_SHIFT, end);
		bool mapped =
		    atomic_load_explicit(&rd->state[ci], memory_order_acquire) != RAM_UNMAPPED;

		/* Merge a run of chunks in the same state into one copy. */
		while (stop < end) {
			uint64_t cj = stop >> RAM_CHUNK_SHIFT;
			bool m = atomic_load_explicit(&rd->state[cj], memory_order_acquire) !=
				 RAM_UNMAPPED;

			if (m != mapped)
				break;
			stop = UT_MIN((cj + 1) << RAM_CHUNK_SHIFT, end);
		}
		if (!bs_iov_out(&c, mapped ? rd->base + pos : NULL, (size_t)(stop - pos)))
			return -EINVAL;
		pos = stop;
	}
	return 0;
}

/* BS_IO_LEND: lend [off, off + len) when every chunk of it is MAPPED. Not
 * where the fabric could not copy lent data it cannot send at once
 * (scsi_cmd_unlend() copies through safe_copy()). */
static bool ram_lend(struct ram_dev *rd, struct bs_io *io)
{
	uint64_t first = io->off >> RAM_CHUNK_SHIFT;
	uint64_t last = (io->off + io->len - 1) >> RAM_CHUNK_SHIFT;

	if (!safe_copy_works())
		return false;
	for (uint64_t ci = first; ci <= last; ci++)
		if (atomic_load_explicit(&rd->state[ci], memory_order_acquire) != RAM_MAPPED)
			return false;
	io->lent = rd->base + io->off;
	return true;
}

static int ram_write(struct ram_dev *rd, struct bs_io *io)
{
	struct bs_iov_cursor c = {.iov = io->iov, .cnt = io->iovcnt};
	uint64_t first = io->off >> RAM_CHUNK_SHIFT;
	uint64_t last = (io->off + io->len - 1) >> RAM_CHUNK_SHIFT;

	if (!bs_iov_in(&c, rd->base + io->off, (size_t)io->len))
		return -EINVAL;
	/* Order the copy before the state check (see the race note above). */
	atomic_thread_fence(memory_order_seq_cst);
	for (uint64_t ci = first; ci <= last; ci++)
		if (atomic_load_explicit(&rd->state[ci], memory_order_relaxed) != RAM_MAPPED)
			atomic_exchange_explicit(&rd->state[ci], RAM_MAPPED, memory_order_seq_cst);
	return 0;
}

/* Make [p, p + n) read as zeroes: release the whole pages inside, clear the
 * edges. */
static void ram_zero(struct ram_dev *rd, uint8_t *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, e = a + n;
	uintptr_t pa = (a + rd->pagemask) & ~rd->pagemask, pe = e & ~rd->pagemask;

	if (pa < pe && madvise((void *)pa, pe - pa, MADV_DONTNEED) == 0) {
		memset(p, 0, pa - a);
		memset((void *)pe, 0, e - pe);
		return;
	}
	memset(p, 0, n);
}

static void ram_discard(struct ram_dev *rd, struct bs_io *io, bool dealloc)
{
	uint64_t size = rd->dev.size, end = io->off + io->len;

	for (uint64_t pos = io->off; pos < end;) {
		uint64_t ci = pos >> RAM_CHUNK_SHIFT;
		uint64_t cs = ci << RAM_CHUNK_SHIFT;
		uint64_t ce = UT_MIN(cs + RAM_CHUNK, size);
		uint64_t stop = UT_MIN(ce, end);
		_Atomic uint8_t *st = &rd->state[ci];

		if (atomic_load_explicit(st, memory_order_seq_cst) == RAM_UNMAPPED) {
			/* Already reads as zeroes. */
		} else if (dealloc && pos == cs && stop == ce) {
			uint8_t expect = RAM_DISCARDING;

			atomic_exchange_explicit(st, RAM_DISCARDING, memory_order_seq_cst);
			ram_zero(rd, rd->base + cs, (size_t)(ce - cs));
			atomic_compare_exchange_strong_explicit(
			    st, &expect, RAM_UNMAPPED, memory_order_seq_cst, memory_order_relaxed);
		} else {
			ram_zero(rd, rd->base + pos, (size_t)(stop - pos));
		}
		pos = stop;
	}
}

static void ram_map_status(struct ram_dev *rd, struct bs_io *io)
{
	uint64_t ci = io->off >> RAM_CHUNK_SHIFT;
	uint64_t limit = UT_MIN(rd->nchunks, ci + RAM_MAP_SCAN_MAX);
	bool mapped = atomic_load_explicit(&rd->state[ci], memory_order_acquire) != RAM_UNMAPPED;
	uint64_t cj = ci + 1;

	while (cj < limit && (atomic_load_explicit(&rd->state[cj], memory_order_relaxed) !=
			      RAM_UNMAPPED) == mapped)
		cj++;
	io->mapped = mapped;
	io->map_len = UT_MIN(cj << RAM_CHUNK_SHIFT, rd->dev.size) - io->off;
}

static void ram_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct ram_dev *rd = container_of(dev, struct ram_dev, dev);
	bool ro = dev->caps & BS_CAP_READ_ONLY;
	int err = 0;

	if (io->op != BS_OP_FLUSH) {
		if (io->off > dev->size || io->len > dev->size - io->off ||
		    (io->op == BS_OP_MAP_STATUS && io->off == dev->size)) {
			io->done(io, -EINVAL);
			return;
		}
		if (io->len == 0 && io->op != BS_OP_MAP_STATUS) {
			io->done(io, 0);
			return;
		}
	}
	switch (io->op) {
	case BS_OP_READ:
		if (!(io->flags & BS_IO_LEND) || !ram_lend(rd, io))
			err = ram_read(rd, io);
		break;
	case BS_OP_WRITE:
		err = ro ? -EROFS : ram_write(rd, io);
		break;
	case BS_OP_FLUSH:
		break;
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		if (ro)
			err = -EROFS;
		else
			ram_discard(rd, io, io->op == BS_OP_DISCARD);
		break;
	case BS_OP_MAP_STATUS:
		ram_map_status(rd, io);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	io->done(io, err);
}

static void ram_close(struct bs_dev *dev)
{
	struct ram_dev *rd = container_of(dev, struct ram_dev, dev);

	munmap(rd->base, rd->map_len);
	free(rd->state);
	free(rd);
}

static const struct bs_ops ram_ops = {
    .type = "ram",
    .submit = ram_submit,
    .resize = NULL, /* the reservation cannot move under running I/O */
    .close = ram_close,
};

static int ram_open(const struct bs_params *p, struct bs_dev **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ram_dev *rd;

	if (p->size == 0) {
		log_err("backstore %s: ram needs a size of at least one block", p->name);
		return -EINVAL;
	}
	if (page <= 0)
		page = 4096;
	if (p->size > (uint64_t)SIZE_MAX - (uint64_t)page) {
		log_err("backstore %s: ram size %llu is too large", p->name,
			(unsigned long long)p->size);
		return -EINVAL;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->pagemask = (uintptr_t)page - 1;
	rd->map_len = ((size_t)p->size + rd->pagemask) & ~(size_t)rd->pagemask;
	rd->nchunks = (p->size + RAM_CHUNK - 1) >> RAM_CHUNK_SHIFT;
	rd->state = calloc((size_t)rd->nchunks, sizeof(*rd->state));
	if (!rd->state) {
		free(rd);
		return -ENOMEM;
	}
	rd->base = mmap(NULL, rd->map_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rd->base == MAP_FAILED) {
		int rc = -errno;

		log_err("backstore %s: cannot reserve %llu bytes of memory: %s", p->name,
			(unsigned long long)p->size, strerror(-rc));
		free(rd->state);
		free(rd);
		return rc;
	}
	/* Stay sparse at page granularity whatever the THP setting. */
	madvise(rd->base, rd->map_len, MADV_NOHUGEPAGE);
	rd->dev.ops = &ram_ops;
	rd->dev.size = p->size;
	rd->dev.caps =
	    BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS | BS_CAP_FUA;
	if (p->readonly)
		rd->dev.caps |= BS_CAP_READ_ONLY;
	rd->dev.priv = rd;
	*out = &rd->dev;
	return 0;
}

const struct bs_type bs_ram_type = {
    .name = "ram",
    .open = ram_open,
};
