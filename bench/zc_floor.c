/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zc_floor: does MSG_ZEROCOPY make large Data-In cheaper for the sender here (issue 15,
 * docs/performance.md, "MSG_ZEROCOPY on loopback")? No iSCSI: two processes on 127.0.0.1.
 *
 * The sender (this process) sends, for --seconds, messages shaped like a Data-In PDU: a
 * 48-byte header and SIZE bytes of data in one sendmsg() on a blocking socket, the data
 * taken in turn from a ring of 16 buffers of SIZE bytes. With --zerocopy the socket has
 * SO_ZEROCOPY and every sendmsg() MSG_ZEROCOPY; a buffer is used again only after the
 * kernel's completion notification for its send (the socket's error queue, as
 * Documentation/networking/msg_zerocopy.rst says). The receiver (a child process) reads
 * into a 1 MiB buffer and throws the bytes away.
 *
 * stdout (one line): mode=copy|zerocopy size=.. seconds=.. mbps=.. (10^6 B/s)
 *   sender_cpu_us_per_mib=.. receiver_cpu_us_per_mib=.. (user + system per MiB of data)
 *   notifications=N copied=K (zerocopy: completions read, and how many of them carried
 *   SO_EE_CODE_ZEROCOPY_COPIED, i.e. the kernel copied the pages after all)
 * Exit status: 0, or 1 on a socket error, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

#define RING 16u
#define HDR  48u

static void usage(void)
{
	fprintf(stderr, "usage: zc_floor [--zerocopy] [--size BYTES] [--seconds S]\n");
	exit(2);
}

/* The receiver: read until the sender closes. */
static int receive(int fd)
{
	static uint8_t buf[1u << 20];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return 1;
	}
}

struct zc {
	uint32_t next_id; /* the id the kernel gives the next zerocopy send */
	uint32_t done;	  /* ids below this are complete */
	uint64_t notes;	  /* notifications read */
	uint64_t copied;  /* of them with ZEROCOPY_COPIED */
};

/* Read the completion notifications there are (block when wait). Completions come as
 * ranges [ee_info, ee_data]; with one socket they arrive in order here. */
static int zc_reap(int fd, struct zc *z, bool wait)
{
	for (;;) {
		char control[128];
		struct msghdr mh = {.msg_control = control, .msg_controllen = sizeof(control)};
		struct cmsghdr *cm;
		ssize_t n = recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (n < 0) {
			struct pollfd p = {.fd = fd, .events = 0};

			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				return -1;
			if (!wait)
				return 0;
			if (poll(&p, 1, 1000) < 0 && errno != EINTR)
				return -1;
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct sock_extended_err ee;

			if (cm->cmsg_len < CMSG_LEN(sizeof(ee)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			z->notes++;
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				z->copied++;
			if (ee.ee_data + 1 > z->done)
				z->done = ee.ee_data + 1;
		}
		wait = false; /* one notification was enough to go on */
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"zerocopy", no_argument, NULL, 'z'},
					     {"size", required_argument, NULL, 's'},
					     {"seconds", required_argument, NULL, 't'},
					     {NULL, 0, NULL, 0}};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	size_t size = 1u << 20;
	double secs = 5, c0, c1, rc0, rc1;
	bool zerocopy = false;
	uint8_t hdr[HDR] = {0x25}, *ring;
	uint32_t slot_id[RING] = {0};
	struct zc z = {0};
	uint64_t bytes = 0, t0, t1, msgs = 0;
	int lfd, fd, one = 1, o, status;
	pid_t pid;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'z':
			zerocopy = true;
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		default:
			usage();
		}
	}
	if (size < 4096 || size > (64u << 20) || secs <= 0)
		usage();
	ring = malloc(RING * size);
	if (!ring)
		return 1;
	for (size_t i = 0; i < RING * size; i++)
		ring[i] = (uint8_t)(i * 13 + 7);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int cfd = socket(AF_INET, SOCK_STREAM, 0);

		close(lfd);
		if (cfd < 0 || connect(cfd, (struct sockaddr *)&a, sizeof(a)))
			_exit(1);
		_exit(receive(cfd));
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0)
		return 1;
	nodelay(fd);
	if (zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		perror("zc_floor: SO_ZEROCOPY");
		return 1;
	}
	rc0 = cpu_us(RUSAGE_CHILDREN); /* 0: the child is still running */
	c0 = cpu_us(RUSAGE_SELF);
	t0 = now_ns();
	t1 = t0;
	while ((double)(t1 - t0) < secs * 1e9) {
		unsigned s = (unsigned)(msgs % RING);
		struct iovec iov[2] = {{hdr, HDR}, {ring + (size_t)s * size, size}};
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
		size_t left = HDR + size;

		/* a buffer still lent to the kernel waits for its completion */
		while (zerocopy && msgs >= RING && z.done <= slot_id[s])
			if (zc_reap(fd, &z, true))
				return 1;
		if (zerocopy)
			slot_id[s] = z.next_id;
		while (left) {
			ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL | (zerocopy ? MSG_ZEROCOPY : 0));

			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == ENOBUFS && zerocopy) {
					/* too much memory pinned (optmem): reap, try again */
					if (zc_reap(fd, &z, true))
						return 1;
					continue;
				}
				perror("zc_floor: sendmsg");
				return 1;
			}
			if (zerocopy)
				z.next_id++; /* one id per successful call */
			left -= (size_t)n;
			/* a short send: the rest of the iovecs */
			while (n > 0 && mh.msg_iovlen) {
				if ((size_t)n >= mh.msg_iov->iov_len) {
					n -= (ssize_t)mh.msg_iov->iov_len;
					mh.msg_iov++;
					mh.msg_iovlen--;
				} else {
					mh.msg_iov->iov_base = (uint8_t *)mh.msg_iov->iov_base + n;
					mh.msg_iov->iov_len -= (size_t)n;
					n = 0;
				}
			}
		}
		bytes += size;
		msgs++;
		if (zerocopy && zc_reap(fd, &z, false))
			return 1;
		t1 = now_ns();
	}
	while (zerocopy && z.done < z.next_id)
		if (zc_reap(fd, &z, true))
			return 1;
	c1 = cpu_us(RUSAGE_SELF);
	shutdown(fd, SHUT_WR);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	rc1 = cpu_us(RUSAGE_CHILDREN);
	printf("mode=%s size=%zu seconds=%.3f mbps=%.1f sender_cpu_us_per_mib=%.1f "
	       "receiver_cpu_us_per_mib=%.1f notifications=%" PRIu64 " copied=%" PRIu64 "\n",
	       zerocopy ? "zerocopy" : "copy", size, (double)(t1 - t0) / 1e9,
	       (double)bytes / ((double)(t1 - t0) / 1e9) / 1e6,
	       (c1 - c0) / ((double)bytes / (1u << 20)), (rc1 - rc0) / ((double)bytes / (1u << 20)),
	       z.notes, z.copied);
	close(fd);
	free(ring);
	return 0;
}
