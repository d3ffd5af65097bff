/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.h: what the two floor tools (rtt_floor.c, kernel_floor.c) share: a monotonic clock,
 * TCP_NODELAY, a blocking send of a whole buffer, and a process's CPU time.
 */
#ifndef UT_BENCH_FLOOR_H
#define UT_BENCH_FLOOR_H

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* All of p on a blocking socket; -1 on an error. */
static inline int send_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* User + system CPU time of RUSAGE_SELF or RUSAGE_CHILDREN, in microseconds. */
static inline double cpu_us(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

#endif
