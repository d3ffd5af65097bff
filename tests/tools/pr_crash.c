/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_crash.c: the APTPL crash test's initiator (tests/integration/
 * pr_crash.sh) and the PR OUT latency measurement.
 *
 * crash-loop: two I_T nexuses (initiators ...:crash-a and ...:crash-b) run
 * random but valid PERSISTENT RESERVE OUTs with APTPL=1 (REGISTER, key
 * changes, unregistering, RESERVE of every type, RELEASE, PREEMPT, CLEAR)
 * against a model of the state. The journal gets, fsync'ed:
 *   BASE <state>        the state read at the start (READ FULL STATUS)
 *   OP <n> <state>      before PR OUT n is sent: the state it leads to
 *   ACK <n>             after it completed GOOD
 * until the target dies (exit 3) or a check fails (exit 1).
 * crash-check: after the restart, READ FULL STATUS must give the state of
 * the last acknowledged PR OUT (BASE when none) or of the next one (sent,
 * not acknowledged). PRGENERATION is not compared: SPC-4 6.15.2 sets it to
 * 0 at power on. */
#include "pr_client.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IN_CA	 "iqn.2026-12.org.utarget:crash-a"
#define IN_CB	 "iqn.2026-12.org.utarget:crash-b"
#define IN_CHECK "iqn.2026-12.org.utarget:crash-check"

/* the PR state seen by the two I_T nexuses */
struct model {
	uint64_t key[2]; /* 0: not registered */
	int type;	 /* 0: no reservation */
	char holder;	 /* 'A', 'B', '*' (all registrants), '-' */
};

static bool all_reg(int type)
{
	return type == PRC_WE_AR || type == PRC_EA_AR;
}

static void model_str(const struct model *m, char *buf, size_t size)
{
	snprintf(buf, size, "A=%016" PRIx64 " B=%016" PRIx64 " T=%d H=%c", m->key[0], m->key[1],
		 m->type, m->holder);
}

/* READ FULL STATUS -> model; -1 when it holds something else */
static int read_model(struct prc_path *p, struct model *m)
{
	unsigned char buf[4096];
	long res, n = prc_prin(p, 3, buf, sizeof(buf), &res);

	memset(m, 0, sizeof(*m));
	m->holder = '-';
	if (n < 8)
		return -1;
	for (long off = 8; off + 24 <= n;) {
		size_t tl = prc_be32(buf + off + 20);
		const char *name = (const char *)buf + off + 28;
		int who;

		if (off + 24 + (long)tl > n || tl < 8)
			return -1;
		if (!strncmp(name, IN_CA ",", strlen(IN_CA) + 1))
			who = 0;
		else if (!strncmp(name, IN_CB ",", strlen(IN_CB) + 1))
			who = 1;
		else
			return -1;
		m->key[who] = prc_be64(buf + off);
		if (buf[off + 12] & 0x01) {
			m->type = buf[off + 13] & 0x0f;
			m->holder = all_reg(m->type) ? '*' : (char)('A' + who);
		}
		off += 24 + (long)tl;
	}
	return 0;
}

static uint64_t rnd64(void)
{
	uint64_t k = 0;

	while (!k)
		k = (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
	return k;
}

static bool holds(const struct model *m, int x)
{
	return m->type && (m->holder == '*' || m->holder == 'A' + x);
}

static void unregister(struct model *m, int x)
{
	m->key[x] = 0;
	if (holds(m, x) && (m->holder != '*' || !m->key[!x])) {
		m->type = 0;
		m->holder = '-';
	}
}

struct op {
	int who, sa, type;
	uint64_t rk, sark;
	const char *name;
};

/* A random PR OUT that is valid in m; m becomes the state after it. */
static void next_op(struct model *m, struct op *o)
{
	static const int types[] = {PRC_WE, PRC_EA, PRC_WE_RO, PRC_EA_RO, PRC_WE_AR, PRC_EA_AR};
	int x = (int)(random() % 2), y = !x;

	memset(o, 0, sizeof(*o));
	o->who = x;
	o->rk = m->key[x];
	if (!m->key[x]) {
		o->sa = PRC_REGISTER_IGNORE;
		o->sark = m->key[x] = rnd64();
		o->name = "REGISTER AND IGNORE EXISTING KEY";
		return;
	}
	switch (random() % 7) {
	case 0:
		o->sa = PRC_REGISTER;
		o->sark = m->key[x] = rnd64();
		o->name = "REGISTER (new key)";
		return;
	case 1:
		o->sa = PRC_REGISTER;
		o->name = "REGISTER (unregister)";
		unregister(m, x);
		return;
	case 2:
	case 3:
		if (!m->type) {
			o->sa = PRC_RESERVE;
			o->type = types[random() % 6];
			o->name = "RESERVE";
			m->type = o->type;
			m->holder = all_reg(o->type) ? '*' : (char)('A' + x);
			return;
		}
		if (holds(m, x)) {
			o->sa = PRC_RELEASE;
			o->type = m->type;
			o->name = "RELEASE";
			m->type = 0;
			m->holder = '-';
			return;
		}
		break;
	case 4:
	case 5:
		if (m->key[y] && m->key[y] != m->key[x]) {
			o->sa = PRC_PREEMPT;
			o->type = types[random() % 6];
			o->sark = m->key[y];
			o->name = "PREEMPT";
			if (m->type && m->holder == 'A' + y) {
				/* the holder preempted: x reserves with the new type */
				m->type = o->type;
				m->holder = all_reg(o->type) ? '*' : (char)('A' + x);
			}
			m->key[y] = 0;
			return;
		}
		break;
	default:
		o->sa = PRC_CLEAR;
		o->name = "CLEAR";
		m->key[0] = m->key[1] = 0;
		m->type = 0;
		m->holder = '-';
		return;
	}
	/* fallback: a key change */
	o->sa = PRC_REGISTER;
	o->sark = m->key[x] = rnd64();
	o->name = "REGISTER (new key)";
}

static int journal(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int journal(int fd, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) || write(fd, line, (size_t)n) != n ||
	    fdatasync(fd) < 0)
		return -1;
	return 0;
}

static int loop_ops(struct prc_path *p, int fd)
{
	struct model m;
	char s[128];

	prc_clear_ua(&p[0]);
	prc_clear_ua(&p[1]);
	if (read_model(&p[0], &m)) {
		fprintf(stderr, "crash-loop: READ FULL STATUS holds an unexpected state\n");
		return 1;
	}
	model_str(&m, s, sizeof(s));
	if (journal(fd, "BASE %s\n", s))
		return 2;
	for (unsigned n = 1;; n++) {
		struct op o;
		long r;

		next_op(&m, &o);
		model_str(&m, s, sizeof(s));
		if (journal(fd, "OP %u %s\n", n, s))
			return 2;
		r = prc_prout(&p[o.who], o.sa, o.type, o.rk, o.sark, PRC_APTPL);
		/* another nexus' change may have left a unit attention */
		if (r > 0 && (r >> 16) == SCSI_SENSE_UNIT_ATTENTION) {
			prc_clear_ua(&p[o.who]);
			r = prc_prout(&p[o.who], o.sa, o.type, o.rk, o.sark, PRC_APTPL);
		}
		if (r < 0)
			return 3; /* the target is gone */
		if (r != 0) {
			fprintf(stderr, "crash-loop: op %u %s by %c: result %06lx, want GOOD\n", n,
				o.name, 'A' + o.who, r);
			return 1;
		}
		if (journal(fd, "ACK %u\n", n))
			return 2;
	}
}

int prc_crash_loop(const char *url, const char *path, unsigned seed)
{
	struct prc_path p[2] = {{.label = "A"}, {.label = "B"}};
	int fd, rc = 2;

	srandom(seed);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd >= 0 && !prc_connect_isid(&p[0], url, IN_CA, 0xca) &&
	    !prc_connect_isid(&p[1], url, IN_CB, 0xcb))
		rc = loop_ops(p, fd);
	for (int i = 0; i < 2; i++) {
		if (p[i].iscsi)
			iscsi_destroy_context(p[i].iscsi);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int prc_crash_check(const char *url, const char *path)
{
	struct prc_path p = {.label = "check"};
	char line[256], base[256] = "", acked[256] = "", next[256] = "", got[256];
	unsigned last_ack = 0, nops = 0;
	struct model m;
	FILE *f = fopen(path, "r");

	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		unsigned n;
		int off = 0;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "BASE ", 5)) {
			snprintf(base, sizeof(base), "%s", line + 5);
			snprintf(acked, sizeof(acked), "%s", base);
		} else if (sscanf(line, "OP %u %n", &n, &off) == 1 && off > 0) {
			snprintf(next, sizeof(next), "%s", line + off);
			nops = n;
		} else if (sscanf(line, "ACK %u", &n) == 1 && n == nops) {
			snprintf(acked, sizeof(acked), "%s", next);
			next[0] = 0;
			last_ack = n;
		}
	}
	fclose(f);
	if (!base[0]) {
		/* killed before the client read the state: nothing to check */
		printf("ok: no PR OUT was sent\n");
		return 0;
	}
	if (prc_connect(&p, url, IN_CHECK))
		return 2;
	prc_clear_ua(&p);
	if (read_model(&p, &m)) {
		prc_check(false, "READ FULL STATUS after the restart holds foreign registrations");
		prc_disconnect(&p);
		return 1;
	}
	model_str(&m, got, sizeof(got));
	if (!strcmp(got, acked)) {
		prc_check(true, "after restart: %s, the state after PR OUT %u (last acknowledged)",
			  got, last_ack);
	} else if (next[0] && !strcmp(got, next)) {
		prc_check(true, "after restart: %s, the state after PR OUT %u (in flight)", got,
			  last_ack + 1);
	} else {
		prc_check(false, "after restart: %s", got);
		printf("  last acknowledged (%u): %s\n  in flight:              %s\n", last_ack,
		       acked, next[0] ? next : "(none)");
	}
	prc_disconnect(&p);
	return prc_failures ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, unsigned n)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	printf("PR OUT latency %s: n %u, mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       what, n, sum / n * 1e6, v[n / 2] * 1e6, v[n * 99 / 100] * 1e6, v[n - 1] * 1e6);
}

int prc_latency(const char *url, unsigned n)
{
	struct prc_path p = {.label = "lat"};
	uint64_t key = 0x1000;
	double *v;

	if (n < 2 || !(v = calloc(n, sizeof(*v))) || prc_connect(&p, url, IN_CA))
		return 2;
	prc_clear_ua(&p);
	prc_check(prc_prout(&p, PRC_REGISTER_IGNORE, 0, 0, key, 0) == 0, "register");
	for (int aptpl = 0; aptpl < 2 && !prc_failures; aptpl++) {
		unsigned done = 0;

		for (; done < n; done++) {
			double t0 = prc_now();

			if (prc_prout(&p, PRC_REGISTER, 0, key, key + 1, aptpl ? PRC_APTPL : 0)) {
				prc_check(false, "REGISTER (key change) %u", done);
				break;
			}
			v[done] = prc_now() - t0;
			key++;
		}
		if (done)
			report(aptpl ? "APTPL=1 (state file written and fsync'ed)" : "APTPL=0", v,
			       done);
	}
	prc_check(prc_prout(&p, PRC_REGISTER, 0, key, 0, 0) == 0, "unregister (APTPL=0)");
	prc_disconnect(&p);
	free(v);
	return prc_failures ? 1 : 0;
}
