/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtt_floor: the floor under a QD1 4K read on this machine's loopback, with no iSCSI and no
 * SCSI on either side (docs/performance.md, "QD1: where the time goes").
 *
 * Two processes on 127.0.0.1, as an initiator and a target are: the client sends a 48-byte
 * request (a SCSI Command PDU's size) and waits for 48 + SIZE bytes (a Data-In PDU with the
 * status in it), one at a time, for --time seconds. Each side waits the way its counterpart
 * in bench/run.sh does:
 *   - the client like ut-load on libiscsi: poll() on the socket, then a non-blocking recv()
 *     of what is there;
 *   - the server like a utargetd reactor: epoll_wait(), then recv() and one send(); with
 *     --spin US it first polls (epoll_wait with a zero timeout) for up to US microseconds
 *     after the last request before it sleeps, as iscsi.busy_poll_us does (at its full
 *     window; the reactor's adapts, lib/reactor.c).
 * What is left is two loopback TCP deliveries and the wake-ups of two sleeping processes:
 * what no target can go under with this client.
 *
 * stdout (one line): rtts=N seconds=S lat_mean_us=.. lat_p50_us=.. lat_p99_us=..
 *   client_cpu_us=.. server_cpu_us=.. (CPU per round trip, user + system).
 * Exit status: 0, or 1 on a socket error, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define REQ_LEN 48u
#define HIST_US 100000u /* 1 µs buckets up to 100 ms */

/* Read exactly len bytes from a socket the caller waits on in its own way:
 * wait() blocks until readable. */
static int recv_all(int fd, uint8_t *p, size_t len, int (*wait)(int fd, void *arg), void *arg)
{
	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		if (wait(fd, arg))
			return -1;
	}
	return 0;
}

/* ---- server: epoll, with an optional spin before each sleep ---- */

struct srv_wait {
	int ep;
	uint64_t spin_ns;
};

static int srv_wait(int fd, void *arg)
{
	struct srv_wait *w = arg;
	struct epoll_event ev;
	uint64_t end = now_ns() + w->spin_ns;

	(void)fd;
	while (w->spin_ns && now_ns() < end)
		if (epoll_wait(w->ep, &ev, 1, 0) > 0)
			return 0;
	return epoll_wait(w->ep, &ev, 1, -1) < 0 && errno != EINTR ? -1 : 0;
}

static int server(int lfd, size_t size, uint64_t spin_ns)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct srv_wait w = {.spin_ns = spin_ns};
	uint8_t req[REQ_LEN], *rsp = calloc(1, REQ_LEN + size);
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0 || !rsp)
		return 1;
	nodelay(fd);
	w.ep = epoll_create1(0);
	ev.data.fd = fd;
	if (w.ep < 0 || epoll_ctl(w.ep, EPOLL_CTL_ADD, fd, &ev))
		return 1;
	while (recv_all(fd, req, sizeof(req), srv_wait, &w) == 0)
		if (send_all(fd, rsp, REQ_LEN + size))
			break;
	free(rsp);
	close(fd);
	return 0;
}

/* ---- client: poll, one request at a time ---- */

static int cli_wait(int fd, void *arg)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	(void)arg;
	return poll(&p, 1, -1) < 0 && errno != EINTR ? -1 : 0;
}

static unsigned pct(const uint32_t *hist, uint64_t n, double q)
{
	uint64_t want = (uint64_t)((double)n * q), seen = 0;

	for (unsigned i = 0; i < HIST_US; i++) {
		seen += hist[i];
		if (seen > want)
			return i;
	}
	return HIST_US;
}

static void usage(void)
{
	fprintf(stderr, "usage: rtt_floor [--time S] [--size BYTES] [--spin US]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"time", required_argument, NULL, 't'},
					     {"size", required_argument, NULL, 's'},
					     {"spin", required_argument, NULL, 'p'},
					     {NULL, 0, NULL, 0}};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	double secs = 5, spin_us = 0, c0, s_cpu;
	size_t size = 4096;
	uint32_t *hist = calloc(HIST_US + 1, sizeof(*hist));
	uint64_t n = 0, sum = 0, t_end, t0;
	uint8_t req[REQ_LEN] = {0x01}, *rsp;
	int o, lfd, fd, status;
	pid_t pid;

	while ((o = getopt_long(argc, argv, "t:s:p:", opts, NULL)) != -1) {
		if (o == 't')
			secs = atof(optarg);
		else if (o == 's')
			size = strtoul(optarg, NULL, 10);
		else if (o == 'p')
			spin_us = atof(optarg);
		else
			usage();
	}
	if (secs <= 0 || size > (64u << 20) || spin_us < 0 || !hist)
		usage();
	rsp = malloc(REQ_LEN + size);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (!rsp || lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		perror("rtt_floor: listen");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(server(lfd, size, (uint64_t)(spin_us * 1000)));
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("rtt_floor: connect");
		return 1;
	}
	nodelay(fd);
	/* a second of warm-up, then the measured run */
	for (t_end = now_ns() + 1000000000ull; now_ns() < t_end;)
		if (send_all(fd, req, sizeof(req)) ||
		    recv_all(fd, rsp, REQ_LEN + size, cli_wait, NULL))
			return 1;
	c0 = cpu_us(RUSAGE_SELF);
	t0 = now_ns();
	t_end = t0 + (uint64_t)(secs * 1e9);
	for (uint64_t t = t0; t < t_end;) {
		uint64_t d;

		if (send_all(fd, req, sizeof(req)) ||
		    recv_all(fd, rsp, REQ_LEN + size, cli_wait, NULL)) {
			fprintf(stderr, "rtt_floor: %s\n", strerror(errno));
			return 1;
		}
		d = now_ns() - t;
		t += d;
		sum += d;
		hist[d / 1000 < HIST_US ? d / 1000 : HIST_US]++;
		n++;
	}
	c0 = cpu_us(RUSAGE_SELF) - c0;
	close(fd);
	waitpid(pid, &status, 0);
	/* the server's whole life (warm-up included), scaled by its share */
	s_cpu = cpu_us(RUSAGE_CHILDREN) * secs / (secs + 1.0);
	printf("rtts=%llu seconds=%.1f lat_mean_us=%.1f lat_p50_us=%u lat_p99_us=%u "
	       "client_cpu_us=%.1f server_cpu_us=%.1f\n",
	       (unsigned long long)n, secs, n ? (double)sum / (double)n / 1000.0 : 0.0,
	       pct(hist, n, 0.5), pct(hist, n, 0.99), n ? c0 / (double)n : 0.0,
	       n ? s_cpu / (double)n : 0.0);
	free(rsp);
	free(hist);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
