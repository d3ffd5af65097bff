/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loginflood: a sustained flood of connections that never log in, or of
 * discovery sessions, from chosen source addresses, while a real initiator
 * logs in and does verified I/O (the target's admission: admission.h).
 *
 *   --flood-conns N --flood-src SRC   N TCP connections that never send a
 *                                     byte, spread over the addresses of SRC
 *                                     (one address, or A-B: a range of IPv4
 *                                     addresses; each socket is bound to its
 *                                     address before connect, and Linux routes
 *                                     all of 127/8 to lo). All open at once,
 *                                     then every one the target closes is
 *                                     opened again at --rate per second.
 *   --disc-sessions N --disc-src SRC  N discovery sessions (logged in, then
 *                                     silent), re-logged in at --rate per
 *                                     second when the target closes them.
 *   --logins K --probe-src ADDR       meanwhile, K times: a normal session
 *                                     from ADDR (connect to full feature
 *                                     phase, timed), TEST UNIT READY, READ
 *                                     CAPACITY, a 4 KiB WRITE and READ that
 *                                     must match, Logout.
 *   --disc-probe-src ADDR             and a discovery session from ADDR whose
 *                                     SendTargets lists --target.
 *   --exec CMD                        and CMD (sh -c; e.g. libiscsi's
 *                                     iscsi-inq), timed; it must exit 0.
 *   --max-login-ms MS                 every login and CMD within MS (1000).
 *   --pid PID                         the target: its VmRSS before and the
 *                                     most during the flood.
 * The probes start once the flood has been opened in full (and 1 s more).
 * Prints the figures (median and max per probe kind, connections the target
 * closed, RSS) and "N passed, N failed"; exit 0/1, 2 on usage errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"

#define LF_PROBES_MAX 1000u

struct lf_srcs {
	struct in_addr *a;
	unsigned n;
	char text[64];
};

static struct {
	char host[256], port[16];
	struct sockaddr_in dst;
	const char *target;
	uint64_t lun;
	unsigned flood_conns, disc_sessions, logins, rate, max_login_ms;
	struct lf_srcs flood_src, disc_src;
	const char *probe_src, *disc_probe_src, *exec;
	pid_t pid;
} opt = {
    .logins = 10,
    .rate = 200,
    .max_login_ms = 1000,
    .probe_src = "127.0.0.1",
};

static atomic_bool stop_flag;
static atomic_bool flood_ready, disc_ready;
static atomic_ullong rss_max_kib;

/* What a flood did: attempts, and closes by the target. */
struct lf_stats {
	atomic_ullong attempts, open_ok, closed, failed;
	atomic_uint open_now;
};
static struct lf_stats fst, dst;

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* VmRSS of --pid in KiB, or 0. */
static unsigned long long rss_kib(void)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	if (!opt.pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)opt.pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6)) {
			v = strtoull(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void rss_sample(void)
{
	unsigned long long v = rss_kib();

	if (v > atomic_load(&rss_max_kib))
		atomic_store(&rss_max_kib, v);
}

/* "a.b.c.d" or "a.b.c.d-e.f.g.h" (IPv4, at most 65536 addresses). */
static int parse_srcs(const char *s, struct lf_srcs *out)
{
	char lo[32], hi[32];
	const char *dash = strchr(s, '-');
	struct in_addr a, b;
	uint32_t x, y;

	snprintf(out->text, sizeof(out->text), "%s", s);
	if (dash) {
		size_t n = (size_t)(dash - s);

		if (n >= sizeof(lo) || strlen(dash + 1) >= sizeof(hi))
			return -1;
		memcpy(lo, s, n);
		lo[n] = 0;
		snprintf(hi, sizeof(hi), "%s", dash + 1);
	} else {
		snprintf(lo, sizeof(lo), "%s", s);
		snprintf(hi, sizeof(hi), "%s", s);
	}
	if (inet_pton(AF_INET, lo, &a) != 1 || inet_pton(AF_INET, hi, &b) != 1)
		return -1;
	x = ntohl(a.s_addr);
	y = ntohl(b.s_addr);
	if (y < x || y - x >= 65536)
		return -1;
	out->n = y - x + 1;
	out->a = calloc(out->n, sizeof(*out->a));
	if (!out->a)
		return -1;
	for (uint32_t i = 0; i < out->n; i++)
		out->a[i].s_addr = htonl(x + i);
	return 0;
}

/* A non-blocking connect from src to the target; the fd or -errno. */
static int open_from(struct in_addr src)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = src};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1, rc;

	if (fd < 0)
		return -errno;
	/* the port is chosen at connect: many sockets per source address */
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (connect(fd, (struct sockaddr *)&opt.dst, sizeof(opt.dst)) < 0 &&
	     errno != EINPROGRESS)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* Reconnect tokens: the first burst is the whole flood, then rate per s. */
struct lf_bucket {
	double tokens;
	int64_t last_us;
};

static void bucket_fill(struct lf_bucket *b)
{
	int64_t t = now_us();
	double before = b->tokens;

	/* at most one second's worth saved up (the first burst aside) */
	b->tokens += (double)(t - b->last_us) * opt.rate / 1e6;
	if (b->tokens > opt.rate)
		b->tokens = before > opt.rate ? before : opt.rate;
	b->last_us = t;
}

/* Did the peer close fd (or reset it)? Bytes it sent are discarded. */
static bool peer_closed(int fd)
{
	char buf[512];

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (r > 0)
			continue;
		if (r == 0)
			return true;
		return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
	}
}

/* ---- the idle flood ---- */

struct idle_slot {
	int fd;		/* -1: closed, waiting to be opened again */
	bool connected; /* the handshake completed */
};

static void *idle_flood(void *arg)
{
	unsigned n = opt.flood_conns, opened = 0, next = 0, open_now = 0;
	struct idle_slot *s = calloc(n, sizeof(*s));
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	unsigned *map = calloc(n, sizeof(*map));
	struct lf_bucket b = {.tokens = n, .last_us = now_us()};
	int64_t last_rss = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		s[i].fd = -1;
	while (!atomic_load(&stop_flag)) {
		unsigned np = 0;

		/* open what is closed, within the tokens (slots in turn) */
		for (unsigned k = 0; k < n && b.tokens >= 1; k++, next = (next + 1) % n) {
			int fd;

			if (s[next].fd >= 0)
				continue;
			b.tokens -= 1;
			atomic_fetch_add(&fst.attempts, 1);
			fd = open_from(opt.flood_src.a[next % opt.flood_src.n]);
			if (fd < 0) {
				atomic_fetch_add(&fst.failed, 1);
				continue;
			}
			s[next].fd = fd;
			s[next].connected = false;
			open_now++;
		}
		if (opened < n && atomic_load(&fst.attempts) >= n) {
			opened = n;
			atomic_store(&flood_ready, true);
		}
		for (unsigned i = 0; i < n; i++) {
			if (s[i].fd < 0)
				continue;
			pfd[np].fd = s[i].fd;
			pfd[np].events = POLLIN | (s[i].connected ? 0 : POLLOUT);
			pfd[np].revents = 0;
			map[np++] = i;
		}
		if (poll(pfd, np, 10) < 0 && errno != EINTR)
			break;
		for (unsigned k = 0; k < np; k++) {
			struct idle_slot *x = &s[map[k]];
			bool gone = false;

			if (!pfd[k].revents)
				continue;
			if ((pfd[k].revents & POLLOUT) && !x->connected) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err) {
					atomic_fetch_add(&fst.failed, 1);
					gone = true;
				} else {
					x->connected = true;
					atomic_fetch_add(&fst.open_ok, 1);
				}
			}
			if (!gone && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    peer_closed(x->fd)) {
				atomic_fetch_add(&fst.closed, 1);
				gone = true;
			}
			if (gone) {
				close(x->fd);
				x->fd = -1;
				open_now--;
			}
		}
		atomic_store(&fst.open_now, open_now);
		bucket_fill(&b);
		if (now_us() - last_rss > 200000) {
			rss_sample();
			last_rss = now_us();
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (s[i].fd >= 0)
			close(s[i].fd);
	free(s);
	free(pfd);
	free(map);
	return NULL;
}

/* ---- the discovery-session flood ---- */

static int disc_login(struct in_addr src, struct ir_conn *c, const char *iname)
{
	char a[INET_ADDRSTRLEN];
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = NULL, /* discovery */
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	int rc;

	inet_ntop(AF_INET, &src, a, sizeof(a));
	ir_conn_init(c);
	c->source = a;
	c->timeout_ms = 5000;
	rc = ir_connect(c, opt.host, opt.port, 5000);
	if (!rc)
		rc = ir_login(c, &o);
	c->source = NULL;
	return rc;
}

static void *disc_flood(void *arg)
{
	unsigned n = opt.disc_sessions, next = 0, *map = calloc(n, sizeof(*map));
	int *fd = malloc(n * sizeof(*fd));
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	struct lf_bucket b = {.tokens = n, .last_us = now_us()};
	struct ir_conn *c = malloc(sizeof(*c));
	unsigned open_now = 0;
	int64_t last_rss = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		fd[i] = -1;
	while (!atomic_load(&stop_flag)) {
		unsigned np = 0, logins = 0;

		/* log in again what the target closed (one login at a time) */
		for (unsigned k = 0; k < n && b.tokens >= 1 && !atomic_load(&stop_flag);
		     k++, next = (next + 1) % n) {
			if (fd[next] >= 0)
				continue;
			b.tokens -= 1;
			atomic_fetch_add(&dst.attempts, 1);
			if (disc_login(opt.disc_src.a[next % opt.disc_src.n], c,
				       "iqn.2026-12.org.utarget:discflood")) {
				atomic_fetch_add(&dst.failed, 1);
				ir_close(c);
				continue;
			}
			atomic_fetch_add(&dst.open_ok, 1);
			fd[next] = c->fd; /* kept open, silent */
			c->fd = -1;
			ir_close(c);
			open_now++;
			if (++logins == 16)
				break; /* look at closes between logins too */
		}
		if (atomic_load(&dst.attempts) >= n)
			atomic_store(&disc_ready, true);
		for (unsigned i = 0; i < n; i++) {
			if (fd[i] < 0)
				continue;
			pfd[np].fd = fd[i];
			pfd[np].events = POLLIN;
			pfd[np].revents = 0;
			map[np++] = i;
		}
		if (poll(pfd, np, np ? 5 : 1) < 0 && errno != EINTR)
			break;
		for (unsigned k = 0; k < np; k++) {
			if (!pfd[k].revents || !peer_closed(pfd[k].fd))
				continue;
			atomic_fetch_add(&dst.closed, 1);
			close(fd[map[k]]);
			fd[map[k]] = -1;
			open_now--;
		}
		atomic_store(&dst.open_now, open_now);
		bucket_fill(&b);
		if (now_us() - last_rss > 200000) {
			rss_sample();
			last_rss = now_us();
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(c);
	free(fd);
	free(pfd);
	free(map);
	return NULL;
}

/* ---- probes ---- */

static char probe_err[512];

static void probe_fail(const char *what, int rc, const struct ir_conn *c)
{
	if (!probe_err[0])
		snprintf(probe_err, sizeof(probe_err), "%s: %s%s%s (login status %02x/%02x)", what,
			 strerror(rc < 0 ? -rc : rc), c->err[0] ? ": " : "", c->err, c->login_class,
			 c->login_detail);
}

/* A normal session from --probe-src: the time to full feature phase in
 * *us; verified I/O at block lba. 0 or -1. */
static int probe_login(unsigned i, int64_t *us)
{
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:loginflood-real",
	    .target_name = opt.target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	struct ir_scsi_result r;
	struct ir_conn *c = malloc(sizeof(*c));
	uint64_t blocks = 0;
	uint32_t bs = 0, nblk;
	uint8_t *w = NULL, *rd = NULL, resp;
	int64_t t0;
	int rc;

	ir_conn_init(c);
	c->source = opt.probe_src;
	c->timeout_ms = 5000;
	t0 = now_us();
	rc = ir_connect(c, opt.host, opt.port, 5000);
	if (!rc)
		rc = ir_login(c, &o);
	*us = now_us() - t0;
	if (rc) {
		probe_fail("login", rc, c);
		goto out;
	}
	for (int k = 0; k < 4; k++) /* the first may report a unit attention */
		if ((rc = ir_test_unit_ready(c, opt.lun, &r)) || !r.status)
			break;
	if (!rc)
		rc = ir_read_capacity16(c, opt.lun, &blocks, &bs, &r);
	if (rc || r.status || !bs || blocks < 64) {
		probe_fail("READ CAPACITY", rc ? rc : EIO, c);
		rc = -1;
		goto out;
	}
	nblk = UT_MAX(1u, 4096 / bs);
	w = malloc((size_t)nblk * bs);
	rd = malloc((size_t)nblk * bs);
	for (uint32_t j = 0; j < nblk * bs; j++)
		w[j] = (uint8_t)(i * 131 + j);
	rc = ir_write16(c, opt.lun, (uint64_t)i * nblk % (blocks - nblk), nblk, bs, w, false, &r);
	if (!rc && !r.status)
		rc = ir_read16(c, opt.lun, (uint64_t)i * nblk % (blocks - nblk), nblk, bs, rd, &r);
	if (rc || r.status || memcmp(w, rd, (size_t)nblk * bs)) {
		probe_fail("verified WRITE/READ", rc ? rc : EIO, c);
		rc = -1;
		goto out;
	}
	ir_logout(c, &resp);
out:
	ir_close(c);
	free(c);
	free(w);
	free(rd);
	return rc ? -1 : 0;
}

/* A discovery session from --disc-probe-src whose SendTargets lists the
 * target: the time to full feature phase in *us. 0 or -1. */
static int probe_discovery(int64_t *us)
{
	struct ir_conn *c = malloc(sizeof(*c));
	struct in_addr src;
	uint8_t *rsp = NULL, resp;
	size_t len = 0;
	int64_t t0 = now_us();
	char name[256];
	int rc;

	inet_pton(AF_INET, opt.disc_probe_src, &src);
	rc = disc_login(src, c, "iqn.2026-12.org.utarget:loginflood-discovery");
	*us = now_us() - t0;
	if (rc) {
		probe_fail("discovery login", rc, c);
		goto out;
	}
	rc = ir_sendtargets(c, &rsp, &len);
	if (rc || ir_text_get(rsp, len, "TargetName", name, sizeof(name)) < 0 ||
	    strcmp(name, opt.target)) {
		probe_fail("SendTargets", rc ? rc : ENOENT, c);
		rc = -1;
		goto out;
	}
	ir_logout(c, &resp);
out:
	free(rsp);
	ir_close(c);
	free(c);
	return rc ? -1 : 0;
}

/* --exec CMD through sh -c, output discarded: the time in *us. 0 or -1. */
static int probe_exec(int64_t *us)
{
	int64_t t0 = now_us();
	int status = -1;
	pid_t p = fork();

	if (p == 0) {
		int nul = open("/dev/null", O_WRONLY);

		if (nul >= 0) {
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execl("/bin/sh", "sh", "-c", opt.exec, (char *)NULL);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &status, 0) != p)
		status = -1;
	*us = now_us() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!probe_err[0])
			snprintf(probe_err, sizeof(probe_err), "\"%s\" exited with status %d",
				 opt.exec, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* One kind of probe, K times: "ok/K, median, max". true when all passed
 * within the bound. */
static bool report(const char *what, int64_t *t, unsigned n, unsigned ok)
{
	bool pass = ok == n && n;

	qsort(t, n, sizeof(*t), cmp_i64);
	printf("loginflood: %s: %u/%u ok, median %.1f ms, max %.1f ms (bound %u ms)\n", what, ok, n,
	       n ? (double)t[n / 2] / 1000 : 0.0, n ? (double)t[n - 1] / 1000 : 0.0,
	       opt.max_login_ms);
	if (n && t[n - 1] > (int64_t)opt.max_login_ms * 1000)
		pass = false;
	return pass;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: loginflood --addr HOST:PORT --target IQN [--lun N]\n"
		"                  [--flood-conns N --flood-src A[-B]] [--disc-sessions N "
		"--disc-src A[-B]]\n"
		"                  [--rate R] [--logins K] [--probe-src ADDR] [--disc-probe-src "
		"ADDR]\n"
		"                  [--exec CMD] [--max-login-ms MS] [--pid PID]\n");
}

static int num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || end == s || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"lun", required_argument, NULL, 'l'},
	    {"flood-conns", required_argument, NULL, 'n'},
	    {"flood-src", required_argument, NULL, 's'},
	    {"disc-sessions", required_argument, NULL, 'd'},
	    {"disc-src", required_argument, NULL, 'D'},
	    {"rate", required_argument, NULL, 'r'},
	    {"logins", required_argument, NULL, 'k'},
	    {"probe-src", required_argument, NULL, 'p'},
	    {"disc-probe-src", required_argument, NULL, 'P'},
	    {"exec", required_argument, NULL, 'e'},
	    {"max-login-ms", required_argument, NULL, 'm'},
	    {"pid", required_argument, NULL, 'i'},
	    {0},
	};
	static int64_t t_login[LF_PROBES_MAX], t_disc[LF_PROBES_MAX], t_exec[LF_PROBES_MAX];
	unsigned ok_login = 0, ok_disc = 0, ok_exec = 0;
	unsigned long long rss0;
	const char *addr = NULL;
	pthread_t th_idle, th_disc;
	unsigned long v;
	struct rlimit rl;
	int64_t t0;
	bool pass = true;
	int ch;

	while ((ch = getopt_long(argc, argv, "a:t:l:n:s:d:D:r:k:p:P:e:m:i:", lopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			addr = optarg;
			continue;
		case 't':
			opt.target = optarg;
			continue;
		case 's':
		case 'D':
			if (parse_srcs(optarg, ch == 's' ? &opt.flood_src : &opt.disc_src)) {
				usage();
				return 2;
			}
			continue;
		case 'p':
			opt.probe_src = optarg;
			continue;
		case 'P':
			opt.disc_probe_src = optarg;
			continue;
		case 'e':
			opt.exec = optarg;
			continue;
		default:
			break;
		}
		if (ch == '?' || num(optarg, ch == 'l' ? 16383 : 1000000, &v)) {
			usage();
			return 2;
		}
		switch (ch) {
		case 'l':
			opt.lun = v;
			break;
		case 'n':
			opt.flood_conns = (unsigned)v;
			break;
		case 'd':
			opt.disc_sessions = (unsigned)v;
			break;
		case 'r':
			opt.rate = (unsigned)v;
			break;
		case 'k':
			opt.logins = (unsigned)v;
			break;
		case 'm':
			opt.max_login_ms = (unsigned)v;
			break;
		case 'i':
			opt.pid = (pid_t)v;
			break;
		}
	}
	if (!addr || !opt.target || !opt.rate || opt.logins > LF_PROBES_MAX ||
	    (opt.flood_conns && !opt.flood_src.n) || (opt.disc_sessions && !opt.disc_src.n) ||
	    ir_parse_addr(addr, opt.host, sizeof(opt.host), opt.port, sizeof(opt.port)) ||
	    inet_pton(AF_INET, opt.host, &opt.dst.sin_addr) != 1) {
		usage();
		return 2;
	}
	opt.dst.sin_family = AF_INET;
	opt.dst.sin_port = htons((uint16_t)strtoul(opt.port, NULL, 10));
	signal(SIGPIPE, SIG_IGN);
	/* a descriptor per flood connection and discovery session */
	if (!getrlimit(RLIMIT_NOFILE, &rl) &&
	    rl.rlim_cur < (rlim_t)opt.flood_conns + opt.disc_sessions + 64) {
		fprintf(stderr, "loginflood: RLIMIT_NOFILE %llu is below %u: raise ulimit -n\n",
			(unsigned long long)rl.rlim_cur, opt.flood_conns + opt.disc_sessions + 64);
		printf("0 passed, 1 failed\n");
		return 1;
	}

	rss0 = rss_kib();
	atomic_store(&rss_max_kib, rss0);
	t0 = now_us();
	if (opt.flood_conns)
		pthread_create(&th_idle, NULL, idle_flood, NULL);
	else
		atomic_store(&flood_ready, true);
	if (opt.disc_sessions)
		pthread_create(&th_disc, NULL, disc_flood, NULL);
	else
		atomic_store(&disc_ready, true);
	/* the whole flood opened (bounded wait), then a second of it */
	while ((!atomic_load(&flood_ready) || !atomic_load(&disc_ready)) &&
	       now_us() - t0 < 30000000)
		usleep(10000);
	usleep(1000000);
	printf("loginflood: flood under way after %.1f s: idle connections %llu opened, %u open "
	       "now; discovery sessions %llu logged in, %u open now\n",
	       (double)(now_us() - t0) / 1e6, (unsigned long long)atomic_load(&fst.attempts),
	       atomic_load(&fst.open_now), (unsigned long long)atomic_load(&dst.open_ok),
	       atomic_load(&dst.open_now));
	fflush(stdout);

	for (unsigned i = 0; i < opt.logins; i++) {
		ok_login += probe_login(i, &t_login[i]) == 0;
		if (opt.disc_probe_src)
			ok_disc += probe_discovery(&t_disc[i]) == 0;
		if (opt.exec)
			ok_exec += probe_exec(&t_exec[i]) == 0;
		rss_sample();
		usleep(100000);
	}
	atomic_store(&stop_flag, true);
	if (opt.flood_conns)
		pthread_join(th_idle, NULL);
	if (opt.disc_sessions)
		pthread_join(th_disc, NULL);

	if (opt.flood_conns)
		printf("loginflood: idle flood: %u connections from %u address%s (%s), reopened at "
		       "%u/s: %llu connects, %llu established, %llu closed by the target, %llu "
		       "failed, in %.1f s\n",
		       opt.flood_conns, opt.flood_src.n, opt.flood_src.n == 1 ? "" : "es",
		       opt.flood_src.text, opt.rate, (unsigned long long)atomic_load(&fst.attempts),
		       (unsigned long long)atomic_load(&fst.open_ok),
		       (unsigned long long)atomic_load(&fst.closed),
		       (unsigned long long)atomic_load(&fst.failed), (double)(now_us() - t0) / 1e6);
	if (opt.disc_sessions)
		printf("loginflood: discovery flood: %u sessions from %u address%s (%s), logged in "
		       "again at %u/s: %llu logins, %llu ok, %llu closed by the target, %llu "
		       "failed, in %.1f s\n",
		       opt.disc_sessions, opt.disc_src.n, opt.disc_src.n == 1 ? "" : "es",
		       opt.disc_src.text, opt.rate, (unsigned long long)atomic_load(&dst.attempts),
		       (unsigned long long)atomic_load(&dst.open_ok),
		       (unsigned long long)atomic_load(&dst.closed),
		       (unsigned long long)atomic_load(&dst.failed), (double)(now_us() - t0) / 1e6);
	{
		char what[128];

		snprintf(what, sizeof(what), "normal logins from %s (+ verified 4 KiB I/O)",
			 opt.probe_src);
		pass &= report(what, t_login, opt.logins, ok_login);
		if (opt.disc_probe_src) {
			snprintf(what, sizeof(what), "discovery logins from %s (+ SendTargets)",
				 opt.disc_probe_src);
			pass &= report(what, t_disc, opt.logins, ok_disc);
		}
		if (opt.exec)
			pass &= report(opt.exec, t_exec, opt.logins, ok_exec);
	}
	if (probe_err[0])
		printf("loginflood: first failure: %s\n", probe_err);
	if (opt.pid)
		printf("loginflood: target RSS %llu KiB before the flood, at most %llu KiB during "
		       "it%s\n",
		       rss0, (unsigned long long)atomic_load(&rss_max_kib),
		       kill(opt.pid, 0) ? "; the target is DEAD" : "");
	if (opt.pid && kill(opt.pid, 0))
		pass = false;
	if ((opt.flood_conns && atomic_load(&fst.attempts) < opt.flood_conns) ||
	    (opt.disc_sessions && atomic_load(&dst.attempts) < opt.disc_sessions)) {
		printf("loginflood: FAIL: the flood was not sent in full\n");
		pass = false;
	}
	printf("%d passed, %d failed\n", pass ? 1 : 0, pass ? 0 : 1);
	return pass ? 0 : 1;
}
