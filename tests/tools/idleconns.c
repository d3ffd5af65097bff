/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idleconns: hostile load of idle TCP connections that never log in.
 *
 * A real initiator logs in first and does WRITE + READ + verify on its LUN
 * the whole time (second thread), measuring the time of every I/O. The main
 * thread opens --conns TCP connections to the portal (raising RLIMIT_NOFILE
 * as needed) that never send a byte, and watches for the target to close
 * each one. Pass criteria:
 *   - every idle connection the target accepted is closed by it within
 *     --login-timeout + --slack seconds of its connect (RFC 7143 leaves the
 *     login timeout to the implementation; utargetd's is "login_timeout");
 *     when some are not, the host's TcpExt ListenOverflows counter tells
 *     whether the target's listen queue overflowed (reported);
 *   - the real initiator's I/O never fails and no I/O takes longer than
 *     --max-stall-ms;
 *   - afterwards a fresh session logs in, and the target (--pid) is alive.
 * Prints the figures and "N passed, N failed"; exit 0/1, 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

struct ic_opts {
	char host[256], port[16];
	const char *target;
	uint64_t lun;
	unsigned conns;
	double login_timeout, slack;
	unsigned max_stall_ms;
	pid_t pid;
};

static struct ic_opts opt = {
    .conns = 1000,
    .login_timeout = 5,
    .slack = 5,
    .max_stall_ms = 2000,
};

static atomic_bool stop_flag;
static atomic_ullong ios, io_fail, max_io_us;
static char io_err[600];

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int login(struct ir_conn *c, const char *name)
{
	struct ir_login_opts o = {
	    .initiator_name = name,
	    .target_name = opt.target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	int rc;

	ir_conn_init(c);
	c->timeout_ms = 30000;
	rc = ir_connect(c, opt.host, opt.port, 5000);
	if (!rc)
		rc = ir_login(c, &o);
	return rc;
}

/* The real initiator: 4 KiB-ish writes and reads with verification. */
static void *io_thread(void *arg)
{
	struct ir_conn *c = arg;
	struct ir_scsi_result r;
	uint64_t blocks = 0, n = 0;
	uint32_t bs = 0, nblk;
	uint8_t *w, *rd;
	int rc = 0, i;

	for (i = 0; i < 4; i++) {
		rc = ir_test_unit_ready(c, opt.lun, &r);
		if (rc || !r.status)
			break;
	}
	if (!rc)
		rc = ir_read_capacity16(c, opt.lun, &blocks, &bs, &r);
	if (rc || r.status || !bs || blocks < 64) {
		snprintf(io_err, sizeof(io_err), "setup: %s %s", rc ? strerror(-rc) : "status",
			 c->err);
		atomic_fetch_add(&io_fail, 1);
		return NULL;
	}
	nblk = UT_MAX(1u, 4096 / bs);
	w = malloc((size_t)nblk * bs);
	rd = malloc((size_t)nblk * bs);
	while (!atomic_load(&stop_flag)) {
		uint64_t lba = (n * nblk) % (UT_MIN(blocks, (uint64_t)4096) - nblk);
		int64_t t0 = now_us(), dt;
		uint32_t j;

		for (j = 0; j < nblk * bs; j++)
			w[j] = (uint8_t)(n * 31 + j);
		rc = ir_write16(c, opt.lun, lba, nblk, bs, w, false, &r);
		if (!rc && r.status)
			rc = -EIO;
		dt = now_us() - t0;
		if (!rc) {
			int64_t t1 = now_us();

			rc = ir_read16(c, opt.lun, lba, nblk, bs, rd, &r);
			if (!rc && (r.status || memcmp(w, rd, (size_t)nblk * bs)))
				rc = -EIO;
			dt = UT_MAX(dt, now_us() - t1);
		}
		if (rc) {
			snprintf(io_err, sizeof(io_err), "I/O %llu at LBA %llu: %s %s",
				 (unsigned long long)n, (unsigned long long)lba, strerror(-rc),
				 c->err);
			atomic_fetch_add(&io_fail, 1);
			break;
		}
		if ((unsigned long long)dt > atomic_load(&max_io_us))
			atomic_store(&max_io_us, (unsigned long long)dt);
		atomic_fetch_add(&ios, 2);
		n++;
	}
	free(w);
	free(rd);
	return NULL;
}

struct idle {
	int fd;
	int64_t t_connect; /* when connect() was called */
	int64_t t_closed;  /* 0 while open */
	bool connected;
};

/* The index of the space-separated word w in line, or -1. */
static int word_index(const char *line, const char *w)
{
	size_t wl = strlen(w);
	int idx = 0;

	for (const char *p = line; *p;) {
		size_t l = strcspn(p, " \n");

		if (l == wl && !memcmp(p, w, wl))
			return idx;
		p += l;
		p += strspn(p, " \n");
		idx++;
	}
	return -1;
}

/* TcpExt ListenOverflows of this host (/proc/net/netstat), or 0. */
static long long listen_overflows(void)
{
	FILE *f = fopen("/proc/net/netstat", "r");
	char names[4096], vals[4096];
	long long v = 0;

	if (!f)
		return 0;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		int idx = strncmp(names, "TcpExt:", 7) ? -1 : word_index(names, "ListenOverflows");
		const char *p = vals;

		if (idx < 0)
			continue;
		while (idx-- > 0 && *p) {
			p += strcspn(p, " \n");
			p += strspn(p, " \n");
		}
		v = strtoll(p, NULL, 10);
	}
	fclose(f);
	return v;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: idleconns --addr HOST:PORT --target IQN [--lun N] [--conns N]\n"
			"                 [--login-timeout S] [--slack S] [--max-stall-ms MS] "
			"[--pid PID]\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"lun", required_argument, NULL, 'l'},
	    {"conns", required_argument, NULL, 'n'},
	    {"login-timeout", required_argument, NULL, 'T'},
	    {"slack", required_argument, NULL, 's'},
	    {"max-stall-ms", required_argument, NULL, 'm'},
	    {"pid", required_argument, NULL, 'p'},
	    {0},
	};
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	struct ir_conn real, fresh;
	struct idle *ic;
	struct pollfd *pfd;
	int64_t t_start, deadline, t_fresh, *dur;
	const char *addr = NULL;
	unsigned i, opened = 0, conn_err = 0, closed = 0, late = 0, n_dur = 0;
	unsigned n_connected = 0, refused = 0, late_unconnected = 0;
	long long overflows;
	struct rlimit rl;
	pthread_t th;
	bool fail = false, fresh_ok, alive = true;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "a:t:l:n:T:s:m:p:", lopts, NULL)) != -1) {
		char *end;

		errno = 0;
		switch (ch) {
		case 'a':
			addr = optarg;
			continue;
		case 't':
			opt.target = optarg;
			continue;
		case 'l':
			opt.lun = strtoull(optarg, &end, 0);
			break;
		case 'n':
			opt.conns = (unsigned)strtoul(optarg, &end, 0);
			break;
		case 'T':
			opt.login_timeout = strtod(optarg, &end);
			break;
		case 's':
			opt.slack = strtod(optarg, &end);
			break;
		case 'm':
			opt.max_stall_ms = (unsigned)strtoul(optarg, &end, 0);
			break;
		case 'p':
			opt.pid = (pid_t)strtol(optarg, &end, 10);
			break;
		default:
			usage();
			return 2;
		}
		if (errno || *end) {
			usage();
			return 2;
		}
	}
	if (!addr || !opt.target || !opt.conns || opt.conns > 100000 ||
	    ir_parse_addr(addr, opt.host, sizeof(opt.host), opt.port, sizeof(opt.port)) ||
	    getaddrinfo(opt.host, opt.port, &hints, &ai)) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* room for every idle connection plus the real sessions */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < opt.conns + 64) {
		rl.rlim_cur = opt.conns + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			fprintf(stderr, "idleconns: cannot raise RLIMIT_NOFILE to %u: %s\n",
				opt.conns + 64, strerror(errno));
			return 1;
		}
	}
	rc = login(&real, "iqn.2026-12.org.utarget:idleconns-real");
	if (rc) {
		fprintf(stderr, "idleconns: the real initiator cannot log in: %s %s\n",
			strerror(-rc), real.err);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	pthread_create(&th, NULL, io_thread, &real);
	usleep(200000);

	ic = calloc(opt.conns, sizeof(*ic));
	pfd = calloc(opt.conns, sizeof(*pfd));
	dur = calloc(opt.conns, sizeof(*dur));
	overflows = listen_overflows();
	t_start = now_us();
	for (i = 0; i < opt.conns; i++) {
		int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		ic[i].fd = fd;
		ic[i].t_connect = now_us();
		if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)) {
			conn_err++;
			if (fd >= 0)
				close(fd);
			ic[i].fd = -1;
			continue;
		}
		opened++;
	}
	printf("idleconns: %u connections opened in %.2f s (%u failed to start), login timeout "
	       "%.1f s + slack %.1f s\n",
	       opened, (double)(now_us() - t_start) / 1e6, conn_err, opt.login_timeout, opt.slack);
	fflush(stdout);
	deadline = now_us() + (int64_t)((opt.login_timeout + opt.slack) * 1e6);
	while (closed < opened && now_us() < deadline) {
		unsigned n = 0;

		for (i = 0; i < opt.conns; i++) {
			if (ic[i].fd < 0 || ic[i].t_closed)
				continue;
			pfd[n].fd = ic[i].fd;
			pfd[n].events = POLLIN | (ic[i].connected ? 0 : POLLOUT);
			pfd[n].revents = 0;
			n++;
		}
		if (poll(pfd, n, 100) < 0 && errno != EINTR)
			break;
		for (unsigned k = 0, j = 0; k < n; k++) {
			char b[64];

			while (ic[j].fd != pfd[k].fd)
				j++;
			if (!pfd[k].revents)
				continue;
			if ((pfd[k].revents & POLLOUT) && !ic[j].connected) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(ic[j].fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err) { /* refused or reset while connecting */
					ic[j].t_closed = now_us();
					dur[n_dur++] = ic[j].t_closed - ic[j].t_connect;
					closed++;
					refused++;
					continue;
				}
				ic[j].connected = true;
				n_connected++;
			}
			if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
				ssize_t r = recv(ic[j].fd, b, sizeof(b), 0);

				if (r > 0)
					continue; /* the target spoke first: ignore */
				if (r < 0 && (errno == EAGAIN || errno == EINTR))
					continue;
				ic[j].t_closed = now_us();
				dur[n_dur++] = ic[j].t_closed - ic[j].t_connect;
				closed++;
			}
		}
		if (opt.pid && kill(opt.pid, 0)) {
			alive = false;
			break;
		}
	}
	overflows = listen_overflows() - overflows;
	for (i = 0; i < opt.conns; i++) {
		if (ic[i].fd >= 0 && !ic[i].t_closed) {
			if (ic[i].connected)
				late++;
			else
				late_unconnected++;
		}
		if (ic[i].fd >= 0)
			close(ic[i].fd);
	}
	/* a fresh login once the flood is gone (the login cap must be free) */
	/* closing the flood may briefly fill the target's cap of logins in
	 * progress again (a refused login is allowed then): retry, bounded */
	t_fresh = now_us();
	do {
		fresh_ok = login(&fresh, "iqn.2026-12.org.utarget:idleconns-fresh") == 0;
		if (!fresh_ok) {
			ir_close(&fresh);
			usleep(200000);
		}
	} while (!fresh_ok && now_us() - t_fresh < (int64_t)((opt.login_timeout + 2) * 1e6));
	t_fresh = now_us() - t_fresh;
	if (fresh_ok) {
		uint8_t resp;

		ir_logout(&fresh, &resp);
	}
	ir_close(&fresh);
	usleep(500000);
	atomic_store(&stop_flag, true);
	pthread_join(th, NULL);
	{
		uint8_t resp;

		if (!atomic_load(&io_fail))
			ir_logout(&real, &resp);
	}
	ir_close(&real);
	if (opt.pid && kill(opt.pid, 0))
		alive = false;

	qsort(dur, n_dur, sizeof(*dur), cmp_i64);
	printf("idleconns: %u of %u idle connections closed by the target (%u refused while "
	       "connecting); %u established and %u still connecting at %.1f s; listen queue "
	       "overflows on this host during the flood: %lld",
	       closed, opened, refused, late, late_unconnected, opt.login_timeout + opt.slack,
	       overflows);
	if (n_dur) {
		unsigned early = 0;

		for (i = 0; i < n_dur; i++)
			early += dur[i] < (int64_t)((opt.login_timeout - 1) * 1e6);
		printf("; closed after min %.2f s, median %.2f s, max %.2f s; %u closed before "
		       "the login timeout (e.g. over a cap of logins in progress), %u at it",
		       (double)dur[0] / 1e6, (double)dur[n_dur / 2] / 1e6,
		       (double)dur[n_dur - 1] / 1e6, early, n_dur - early);
	}
	printf("\n");
	printf("idleconns: real initiator: %llu I/Os, %llu failed, longest I/O %.1f ms (bound %u "
	       "ms)%s%s\n",
	       (unsigned long long)atomic_load(&ios), (unsigned long long)atomic_load(&io_fail),
	       (double)atomic_load(&max_io_us) / 1000.0, opt.max_stall_ms, io_err[0] ? ": " : "",
	       io_err);
	printf("idleconns: fresh login afterwards: %s after %.1f s; target %s\n",
	       fresh_ok ? "ok" : "FAILED", (double)t_fresh / 1e6,
	       opt.pid ? (alive ? "alive" : "DEAD") : "pid not given");
	if (late || late_unconnected || conn_err) {
		printf("idleconns: FAIL: %u idle connections not closed in time, %u not opened%s\n",
		       late + late_unconnected, conn_err,
		       overflows > 0
			   ? " (the listen queue overflowed: a connection whose final "
			     "ACK the kernel dropped is established for the client but "
			     "unknown to the target; a listen backlog >= the burst avoids "
			     "it)"
			   : "");
		fail = true;
	}
	if (atomic_load(&io_fail) || !atomic_load(&ios) ||
	    atomic_load(&max_io_us) > (unsigned long long)opt.max_stall_ms * 1000) {
		printf("idleconns: FAIL: the real initiator failed or stalled\n");
		fail = true;
	}
	if (!fresh_ok || !alive) {
		printf("idleconns: FAIL: the target does not serve afterwards\n");
		fail = true;
	}
	printf("%d passed, %d failed\n", fail ? 0 : 1, fail ? 1 : 0);
	freeaddrinfo(ai);
	free(ic);
	free(pfd);
	free(dur);
	return fail ? 1 : 0;
}
