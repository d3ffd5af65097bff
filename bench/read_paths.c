/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_paths: what the data of one 4 KiB READ costs the target on each path it can take from
 * the page cache towards the socket (issue 15, docs/performance.md section 21). No iSCSI, no
 * socket: the copy into the socket's buffer that sendmsg() makes is stood in for by a memcpy()
 * into a ring of 64 buffers of 4 KiB (256 KiB, the size of a turn's send), so the figures are
 * the user-level part of each path, for comparing paths, not a target's CPU per IO.
 *
 * The file is mapped read-only and read once whole, so that its pages are cached and the
 * mapping's page tables are filled, as in a target that has run a while. Each path then
 * handles --count READs of a random 4 KiB page (the same pages for every path):
 *
 *   copy      preadv2(RWF_NOWAIT) into the command's buffer, then the buffer into the
 *             socket: a READ that is not lent (backstore/file.c)
 *   lend      mincore() of the page, then the mapping into the socket: a lent READ (bs.h
 *             BS_IO_LEND, file_lend)
 *   copy+crc  preadv2, the CRC32C of the buffer, the buffer into the socket: a READ with
 *             DataDigest before section 21
 *   lend+crc  mincore, the CRC32C of the mapping, the mapping into the socket: a lent READ
 *             with DataDigest (not built: section 21 says why)
 *   snap+crc  mincore, the mapping into the buffer, the CRC32C of the buffer, the buffer
 *             into the socket: a READ with DataDigest now, lent and copied into its buffer
 *             as it completes, so that its digest and the bytes sent are of one copy
 *   pvr+crc   process_vm_readv() into the buffer (lib/safe_copy.c's copy before section 21),
 *             the CRC32C of the buffer, the buffer into the socket
 *
 * stdout: one line per path and round, "path=.. round=.. us_per_read=..", then one line per
 * path with the median over the rounds. Exit status: 0, 1 on a system error, 2 on a usage
 * error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "floor.h"
#include "lib/crc32c.h"

#define PAGE	   4096u
#define RING	   64u
#define MAX_ROUNDS 15

enum path { P_COPY, P_LEND, P_COPY_CRC, P_LEND_CRC, P_SNAP_CRC, P_PVR_CRC, P_COUNT };

static const char *const path_name[P_COUNT] = {"copy",	   "lend",     "copy+crc",
					       "lend+crc", "snap+crc", "pvr+crc"};

struct rp {
	int fd;
	const uint8_t *map;
	size_t pages;
	uint8_t *buf;  /* the command's buffer */
	uint8_t *ring; /* RING pages: the socket's buffer */
	uint32_t sink;
};

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* One READ of page pg on path p; -1 on a system error. */
static int one_read(struct rp *r, enum path p, size_t pg, uint8_t *sock)
{
	const uint8_t *src = r->map + pg * PAGE;
	struct iovec l = {.iov_base = r->buf, .iov_len = PAGE};
	unsigned char vec;

	switch (p) {
	case P_COPY:
	case P_COPY_CRC:
		if (preadv2(r->fd, &l, 1, (off_t)(pg * PAGE), RWF_NOWAIT) != PAGE)
			return -1;
		if (p == P_COPY_CRC)
			r->sink ^= crc32c(r->buf, PAGE);
		memcpy(sock, r->buf, PAGE);
		return 0;
	case P_LEND:
	case P_LEND_CRC:
	case P_SNAP_CRC:
		if (mincore((void *)src, PAGE, &vec) < 0 || !(vec & 1))
			return -1;
		if (p == P_SNAP_CRC) {
			memcpy(r->buf, src, PAGE);
			src = r->buf;
		}
		if (p != P_LEND)
			r->sink ^= crc32c(src, PAGE);
		memcpy(sock, src, PAGE);
		return 0;
	case P_PVR_CRC: {
		struct iovec rem = {.iov_base = (void *)src, .iov_len = PAGE};

		if (process_vm_readv(getpid(), &l, 1, &rem, 1, 0) != PAGE)
			return -1;
		r->sink ^= crc32c(r->buf, PAGE);
		memcpy(sock, r->buf, PAGE);
		return 0;
	}
	case P_COUNT:
		break;
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: read_paths -f FILE [-n COUNT (1000000)] [-r ROUNDS (3, at most %u)]\n"
		"  FILE: at least 64 MiB, best larger than the CPU's caches (the bench's image)\n",
		MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	long count = 1000000, rounds = 3;
	double us[P_COUNT][MAX_ROUNDS];
	struct rp r = {.fd = -1};
	struct stat st;
	unsigned char *vec;
	size_t cached = 0;
	int opt;

	while ((opt = getopt(argc, argv, "f:n:r:h")) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case 'n':
			count = strtol(optarg, NULL, 10);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!file || count < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
		usage(stderr);
		return 2;
	}
	r.fd = open(file, O_RDONLY);
	if (r.fd < 0 || fstat(r.fd, &st) < 0) {
		perror(file);
		return 1;
	}
	r.pages = (size_t)st.st_size / PAGE;
	if (r.pages < (64u << 20) / PAGE) {
		fprintf(stderr, "read_paths: %s: under 64 MiB\n", file);
		return 2;
	}
	r.map = mmap(NULL, r.pages * PAGE, PROT_READ, MAP_SHARED, r.fd, 0);
	r.buf = aligned_alloc(PAGE, PAGE);
	r.ring = aligned_alloc(PAGE, (size_t)RING * PAGE);
	vec = malloc(r.pages);
	if (r.map == MAP_FAILED || !r.buf || !r.ring || !vec) {
		perror("read_paths: memory");
		return 1;
	}
	memset(r.ring, 0, (size_t)RING * PAGE);
	/* cache the file and fill the mapping's page tables */
	for (size_t i = 0; i < r.pages; i++)
		r.sink += r.map[i * PAGE];
	if (mincore((void *)r.map, r.pages * PAGE, vec) == 0)
		for (size_t i = 0; i < r.pages; i++)
			cached += vec[i] & 1;
	free(vec);
	printf("# %s: %zu pages, %zu cached; crc32c %s (ISA-L from 256 bytes); %ld READs per "
	       "path and round\n",
	       file, r.pages, cached, crc32c_impl(), count);
	if (cached != r.pages) {
		fprintf(stderr, "read_paths: not all of %s is cached\n", file);
		return 1;
	}
	for (long k = 0; k < rounds; k++) {
		for (int p = 0; p < P_COUNT; p++) {
			uint64_t x = 88172645463325252ull + (uint64_t)k, t0, t1;

			t0 = now_ns();
			for (long i = 0; i < count; i++) {
				size_t pg = (size_t)(next_rand(&x) % r.pages);

				if (one_read(&r, (enum path)p, pg, r.ring + (i % RING) * PAGE) <
				    0) {
					fprintf(stderr, "read_paths: %s: %s\n", path_name[p],
						errno ? strerror(errno) : "page not cached");
					return 1;
				}
			}
			t1 = now_ns();
			us[p][k] = (double)(t1 - t0) / 1e3 / (double)count;
			printf("path=%s round=%ld us_per_read=%.3f\n", path_name[p], k + 1,
			       us[p][k]);
		}
	}
	for (int p = 0; p < P_COUNT; p++) {
		qsort(us[p], (size_t)rounds, sizeof(double), cmp_double);
		printf("median path=%s us_per_read=%.3f\n", path_name[p], us[p][rounds / 2]);
	}
	printf("# sink %08x\n", r.sink); /* the CRCs are used */
	return 0;
}
