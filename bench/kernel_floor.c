/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel_floor: what the kernel alone charges a target for a 4K command at a queue depth,
 * with no iSCSI and no SCSI (docs/performance.md, "The kernel's floor at QD32").
 *
 * Two processes on 127.0.0.1, as an initiator and a target are. The client keeps --qd
 * requests outstanding and sends each with its own system calls, as libiscsi (ut-load) does:
 *   - read-shaped (the default): a 48-byte request (a SCSI Command PDU's size); the answer is
 *     48 + SIZE bytes (a Data-In PDU with the status in it);
 *   - --write: a 48-byte header and then SIZE bytes of data, two send() calls (libiscsi sends
 *     the immediate data of a WRITE apart from its header); the answer is 48 bytes (a SCSI
 *     Response).
 * The server works as a utargetd reactor does, with nothing else: epoll_wait() (after a spin
 * of --spin microseconds with a zero timeout), one recv() of what is there into a 256 KiB
 * buffer, then for every whole request the medium's system call, if any, and one sendmsg()
 * of all the answers of that turn:
 *   - with --file PATH, a pread() of SIZE bytes into the answer's own buffer (read-shaped), or
 *     a pwrite() of the data straight from the receive buffer (write-shaped), at the aligned
 *     offset the client drew at random in the first --span bytes of the file;
 *   - without, the answer's data comes from memory and writes go nowhere.
 * So the server's CPU per request is the floor under a target's CPU per IO with this kind of
 * client on this machine: loopback TCP both ways (on loopback the sender runs the receiver's
 * TCP input in its own system call), wake-ups, and the page cache; no target can go under it.
 *
 * stdout (one line): ios=N seconds=S iops=.. lat_mean_us=.. client_cpu_us=.. server_cpu_us=..
 *   server_ios_per_turn=.. (CPU per request, user + system: the client's over the measured run,
 *   the server's over its whole life, warm-up included; the mean latency by Little's law).
 * Exit status: 0, or 1 on a socket or file error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define HDR_LEN 48u
#define RX_BUF	(256u << 10) /* a connection's receive buffer in utargetd */
#define QD_MAX	256u

struct opts {
	unsigned qd;
	size_t size;
	bool write;
	const char *file;
	uint64_t span;
	double secs, spin_us;
};

/* ---- server: one reactor turn per readiness ---- */

struct server {
	const struct opts *o;
	int fd, ep, medium;
	uint8_t *rx, *data; /* data: QD_MAX answers' data buffers */
	uint8_t hdr[QD_MAX][HDR_LEN];
	struct iovec iov[2 * QD_MAX];
};

/* What the server counted, in memory shared with the client's process. */
static struct srv_stats {
	uint64_t turns, answered;
} * stats;

static int srv_wait(struct server *s)
{
	struct epoll_event ev;
	uint64_t end = now_ns() + (uint64_t)(s->o->spin_us * 1000);

	while (s->o->spin_us > 0 && now_ns() < end)
		if (epoll_wait(s->ep, &ev, 1, 0) > 0)
			return 0;
	return epoll_wait(s->ep, &ev, 1, -1) < 0 && errno != EINTR ? -1 : 0;
}

/* Send the answers of one turn with one sendmsg (as conn_flush_cb does). */
static int srv_flush(struct server *s, unsigned niov)
{
	struct msghdr m = {.msg_iov = s->iov, .msg_iovlen = niov};

	while (m.msg_iovlen) {
		ssize_t n = sendmsg(s->fd, &m, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (m.msg_iovlen && (size_t)n >= m.msg_iov->iov_len) {
			n -= (ssize_t)m.msg_iov->iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen) {
			m.msg_iov->iov_base = (uint8_t *)m.msg_iov->iov_base + n;
			m.msg_iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int server(int lfd, const struct opts *o)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct server s = {.o = o, .medium = -1};
	size_t have = 0, req_len = HDR_LEN + (o->write ? o->size : 0);

	s.fd = accept(lfd, NULL, NULL);
	s.rx = malloc(RX_BUF);
	s.data = aligned_alloc(4096, QD_MAX * o->size);
	if (s.fd < 0 || !s.rx || !s.data)
		return 1;
	memset(s.data, 0x5a, QD_MAX * o->size);
	if (o->file && (s.medium = open(o->file, O_RDWR)) < 0)
		return 1;
	nodelay(s.fd);
	s.ep = epoll_create1(0);
	ev.data.fd = s.fd;
	if (s.ep < 0 || epoll_ctl(s.ep, EPOLL_CTL_ADD, s.fd, &ev))
		return 1;
	for (;;) {
		ssize_t n;
		unsigned nans = 0, niov = 0;
		size_t at = 0;

		/* a turn: epoll (level-triggered: at once when data waits), one recv, the
		 * answers, one sendmsg; three system calls as a utargetd reactor's turn */
		if (srv_wait(&s))
			return 1;
		n = recv(s.fd, s.rx + have, RX_BUF - have, MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return 1;
			continue;
		}
		stats->turns++;
		have += (size_t)n;
		for (; have - at >= req_len && nans < QD_MAX; at += req_len, nans++) {
			uint8_t *h = s.hdr[nans], *d = s.data + (size_t)nans * o->size;
			uint64_t off;

			memcpy(h, s.rx + at, HDR_LEN);
			memcpy(&off, h + 8, sizeof(off));
			s.iov[niov++] = (struct iovec){h, HDR_LEN};
			if (o->write) {
				if (s.medium >= 0 &&
				    pwrite(s.medium, s.rx + at + HDR_LEN, o->size, (off_t)off) < 0)
					return 1;
				continue;
			}
			if (s.medium >= 0 && pread(s.medium, d, o->size, (off_t)off) < 0)
				return 1;
			s.iov[niov++] = (struct iovec){d, o->size};
		}
		stats->answered += nans;
		memmove(s.rx, s.rx + at, have - at);
		have -= at;
		if (niov && srv_flush(&s, niov))
			return 1;
	}
	close(s.fd);
	return 0;
}

/* ---- client: libiscsi's way, one system call per PDU ---- */

struct client {
	const struct opts *o;
	int fd;
	uint64_t rng, done;
	uint8_t hdr[HDR_LEN], *data, *rx;
	size_t have, ans_len;
};

static uint64_t next_off(struct client *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return (c->rng % (c->o->span / c->o->size)) * c->o->size;
}

static int cli_send(struct client *c)
{
	uint64_t off = next_off(c);

	memcpy(c->hdr + 8, &off, sizeof(off));
	if (send_all(c->fd, c->hdr, HDR_LEN))
		return -1;
	return c->o->write ? send_all(c->fd, c->data, c->o->size) : 0;
}

/* Wait in poll() as libiscsi does, read what is there, send a new request for every answer. */
static int cli_turn(struct client *c)
{
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	ssize_t n;
	unsigned got;

	if (poll(&p, 1, -1) < 0)
		return errno == EINTR ? 0 : -1;
	n = recv(c->fd, c->rx + c->have, RX_BUF - c->have, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	c->have += (size_t)n;
	got = (unsigned)(c->have / c->ans_len);
	memmove(c->rx, c->rx + (size_t)got * c->ans_len, c->have % c->ans_len);
	c->have %= c->ans_len;
	for (unsigned i = 0; i < got; i++)
		if (cli_send(c))
			return -1;
	c->done += got;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: kernel_floor [--qd N] [--write] [--file PATH [--span BYTES]] "
			"[--size BYTES] [--time S] [--spin US]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"qd", required_argument, NULL, 'q'},   {"write", no_argument, NULL, 'w'},
	    {"file", required_argument, NULL, 'f'}, {"span", required_argument, NULL, 'S'},
	    {"size", required_argument, NULL, 's'}, {"time", required_argument, NULL, 't'},
	    {"spin", required_argument, NULL, 'p'}, {NULL, 0, NULL, 0}};
	struct opts o = {.qd = 32, .size = 4096, .secs = 5};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	struct client c = {.o = &o, .rng = 0x9e3779b97f4a7c15ull};
	double c0, s_cpu;
	uint64_t t0, t_end, d0;
	int opt, lfd, status;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "q:wf:S:s:t:p:", lo, NULL)) != -1) {
		switch (opt) {
		case 'q':
			o.qd = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			o.write = true;
			break;
		case 'f':
			o.file = optarg;
			break;
		case 'S':
			o.span = strtoull(optarg, NULL, 10);
			break;
		case 's':
			o.size = strtoul(optarg, NULL, 10);
			break;
		case 't':
			o.secs = atof(optarg);
			break;
		case 'p':
			o.spin_us = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (!o.qd || o.qd > QD_MAX || !o.size || o.size > (64u << 10) || o.size % 512 ||
	    o.secs <= 0 || o.spin_us < 0)
		usage();
	if (o.file) {
		struct stat st;

		if (stat(o.file, &st)) {
			perror(o.file);
			return 1;
		}
		if (!o.span || o.span > (uint64_t)st.st_size)
			o.span = (uint64_t)st.st_size;
	}
	if (!o.span)
		o.span = 1ull << 30;
	if (o.span < o.size)
		usage();
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		perror("kernel_floor: listen");
		return 1;
	}
	stats =
	    mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(server(lfd, &o));
	close(lfd);
	c.fd = socket(AF_INET, SOCK_STREAM, 0);
	c.data = malloc(o.size);
	c.rx = malloc(RX_BUF);
	c.ans_len = HDR_LEN + (o.write ? 0 : o.size);
	if (c.fd < 0 || !c.data || !c.rx || connect(c.fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("kernel_floor: connect");
		return 1;
	}
	memset(c.data, 0xa5, o.size);
	nodelay(c.fd);
	for (unsigned i = 0; i < o.qd; i++)
		if (cli_send(&c))
			return 1;
	/* a second of warm-up, then the measured run */
	for (t_end = now_ns() + 1000000000ull; now_ns() < t_end;)
		if (cli_turn(&c))
			return 1;
	c0 = cpu_us(RUSAGE_SELF);
	d0 = c.done;
	t0 = now_ns();
	for (t_end = t0 + (uint64_t)(o.secs * 1e9); now_ns() < t_end;)
		if (cli_turn(&c)) {
			fprintf(stderr, "kernel_floor: %s\n", strerror(errno));
			return 1;
		}
	c0 = cpu_us(RUSAGE_SELF) - c0;
	d0 = c.done - d0;
	t_end = now_ns();
	/* the server answers what is outstanding and closes when it sees the end */
	shutdown(c.fd, SHUT_WR);
	while (recv(c.fd, c.rx, RX_BUF, 0) > 0)
		;
	close(c.fd);
	waitpid(pid, &status, 0);
	/* the server's CPU over its whole life, warm-up included, per request it answered */
	s_cpu = stats->answered ? cpu_us(RUSAGE_CHILDREN) / (double)stats->answered : 0.0;
	{
		double secs = (double)(t_end - t0) / 1e9, iops = (double)d0 / secs;

		printf("ios=%llu seconds=%.3f iops=%.1f lat_mean_us=%.1f client_cpu_us=%.2f "
		       "server_cpu_us=%.2f server_ios_per_turn=%.1f\n",
		       (unsigned long long)d0, secs, iops, iops > 0 ? o.qd * 1e6 / iops : 0.0,
		       d0 ? c0 / (double)d0 : 0.0, s_cpu,
		       stats->turns ? (double)stats->answered / (double)stats->turns : 0.0);
	}
	free(c.data);
	free(c.rx);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
