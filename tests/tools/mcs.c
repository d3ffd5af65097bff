/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcs: multiple connections per session (MC/S, RFC 7143) driven with the
 * project's raw initiator, checking every byte it reads back.
 *
 *   mcs HOST:PORT TARGET INITIATOR [options]
 *
 *   -n N            connections: a leading login, then N-1 logins with the
 *                   session's TSIH and ISID (CIDs 0..N-1; default 1)
 *   -M N            MaxConnections offered in the leading login (default 16;
 *                   the session gets the smaller of it and the target's)
 *   -C USER:SECRET  CHAP for every login (the target's ACL requires it)
 *   -b BLOCKS       blocks per I/O (default 8)
 *   -i IOS          write/verify: IOS WRITEs of distinct patterns to
 *                   distinct LBAs, round-robin over the connections (one
 *                   thread each), then every region READ back on the next
 *                   connection and compared byte by byte (default 0)
 *   -o M            ORDERED: M COMPARE AND WRITEs of one block, ORDERED task
 *                   attribute, command k expecting the data of command k-1
 *                   (CmdSN order), spread round-robin over the connections
 *                   and sent in reverse CmdSN order without waiting: each
 *                   completes GOOD only when the target ran them in CmdSN
 *                   order (any other order is a MISCOMPARE)
 *   -k K            churn: while every connection writes and verifies its
 *                   own regions, K times a connection is added (a login with
 *                   the TSIH, a new CID) and the oldest is removed (its I/O
 *                   stops, Logout reason 1 for its CID, the target closes
 *                   it); at the end every region is read back and compared
 *   -A              ABORT TASK on the first connection of a WRITE that waits
 *                   for its Data-Out on the second: "abort_other ... response
 *                   0", then the second connection works on
 *   -F              connection failure: the last connection is reset (TCP
 *                   RST) without a Logout; at ERL 0 the session fails with it,
 *                   so the target closes the others: "failure others_closed
 *                   K of K", and the run ends there
 *   -O              the first connection logs out another one (Logout
 *                   reason 1 naming its CID); the session goes on
 *   -t SECONDS      throughput: every connection alternates WRITE and READ
 *                   of its own region (one command outstanding per
 *                   connection) for SECONDS; "perf" line with IOPS and MB/s
 *   -x              one more connection than the session may have: the
 *                   login status is printed ("extra CC/DD")
 *   -J NAME         a login with the session's TSIH and ISID as initiator
 *                   NAME: "join_name CC/DD"
 *   -K USER:SECRET  a login with the session's TSIH and these CHAP
 *                   credentials: "join_chap CC/DD"
 *   -Y              a login with the session's TSIH that sends the
 *                   leading-only keys (MaxBurstLength, ...): "join_lo CC/DD"
 *   -H FILE         after the logins print "ready" and wait for FILE
 *                   (60 s at most)
 *   -L LBA          first LBA used (default 0)
 *
 * At the end a Logout reason 0 (close the session) on a connection: its
 * response ("logout response=R") and every other connection closed by the
 * target ("others_closed=K of K"). Lines are "key value" pairs for the
 * test's greps. Exit 0 when every check held, 1 when one failed, 2 on usage
 * and leading-login errors. The target must run without NOP-In keepalives
 * during -o (its responses are read raw). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

#define MAX_CONNS   64
#define MAX_REGIONS 65536u

struct mconn {
	struct ir_conn c;
	uint16_t cid;
	bool live;
	pthread_t th;
	atomic_bool stop;
	unsigned slot; /* churn: its regions are [slot * per, (slot + 1) * per) */
	/* counts of its thread */
	uint64_t ios, bytes, mismatches, errors;
};

static struct {
	struct ir_tool_args args;
	struct ir_chap_opts chap;
	bool use_chap;
	uint16_t max_conns_offered;
	uint32_t bs, blocks;
	uint64_t lba0;
	/* the session; its CmdSN (sess.cmdsn) and max_cmdsn shared by its
	 * connections under mu */
	pthread_mutex_t mu;
	struct ir_session sess;
	uint32_t max_cmdsn;
	uint64_t nblocks; /* of LUN 0 */
	struct mconn *conns[MAX_CONNS];
	unsigned nconns; /* entries in conns[] (live or not) */
	uint16_t next_cid;
	/* churn: the pattern seed each region holds (0: not written) */
	uint64_t seeds[MAX_REGIONS];
	unsigned per_slot;
	atomic_uint next_slot;
	bool join_lo_keys; /* -Y: a further login that brings the leading-only keys */
	bool failed;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	pthread_mutex_lock(&S.mu);
	S.failed = true;
	pthread_mutex_unlock(&S.mu);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the session's CmdSN, taken by whichever connection sends next ---- */

/* RFC 7143 4.2.2.1: one CmdSN sequence per session, whatever the connection;
 * the window ExpCmdSN..MaxCmdSN is the session's, seen on every response. */
static void sn_take(struct mconn *m)
{
	pthread_mutex_lock(&S.mu);
	m->c.cmdsn = S.sess.cmdsn++;
	if (ir_sn_lt(m->c.max_cmdsn, S.max_cmdsn))
		m->c.max_cmdsn = S.max_cmdsn;
	pthread_mutex_unlock(&S.mu);
}

static void sn_seen(struct mconn *m)
{
	pthread_mutex_lock(&S.mu);
	if (ir_sn_lt(S.max_cmdsn, m->c.max_cmdsn))
		S.max_cmdsn = m->c.max_cmdsn;
	pthread_mutex_unlock(&S.mu);
}

/* The current CmdSN without taking it (immediate PDUs, Login of a further
 * connection: 11.12.8). */
static void sn_peek(struct mconn *m)
{
	pthread_mutex_lock(&S.mu);
	m->c.cmdsn = S.sess.cmdsn;
	if (ir_sn_lt(m->c.max_cmdsn, S.max_cmdsn))
		m->c.max_cmdsn = S.max_cmdsn;
	pthread_mutex_unlock(&S.mu);
}

/* ---- data patterns ---- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = mix(seed * 0x100000001b3ull + i);

		memcpy(buf + i, &v, 8);
	}
}

/* ---- connections ---- */

static struct mconn *conn_new(void)
{
	struct mconn *m = calloc(1, sizeof(*m));

	if (!m)
		abort();
	ir_conn_init(&m->c);
	m->c.timeout_ms = 20000;
	return m;
}

/* A login on a new TCP connection: leading (no session yet) or joining the
 * session. 0, or -EACCES with the status in c.login_class/detail, or
 * another -errno. */
static int conn_login(struct mconn *m, uint16_t cid, const char *iname,
		      const struct ir_chap_opts *chap)
{
	uint16_t tsih = S.sess.tsih;
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = S.args.target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	    .chap = chap,
	    .tsih = tsih,
	    .cid = cid,
	    .max_connections = S.max_conns_offered,
	    .non_leading = tsih != 0 && !S.join_lo_keys,
	};
	int rc;

	if (tsih)
		memcpy(o.isid, S.sess.isid, 6);
	m->cid = cid;
	rc = ir_connect(&m->c, S.args.host, S.args.port, 5000);
	if (rc)
		return rc;
	/* ITTs unique in the session (11.2.1.8): the CID in the high bits */
	m->c.itt_next = ((uint32_t)cid << 20) | 1u;
	if (tsih)
		sn_peek(m);
	rc = ir_login(&m->c, &o);
	if (rc)
		return rc;
	/* a further connection only reads S.sess, and the leading login
	 * comes before any thread */
	ir_session_join(&S.sess, &m->c);
	if (tsih)
		sn_seen(m);
	return 0;
}

static void conn_add(struct mconn *m)
{
	pthread_mutex_lock(&S.mu);
	m->live = true;
	S.conns[S.nconns++] = m;
	pthread_mutex_unlock(&S.mu);
}

/* A further connection with the next CID; NULL (and a FAIL line) when the
 * target refused it. */
static struct mconn *conn_join(void)
{
	struct mconn *m = conn_new();
	uint16_t cid;
	int rc;

	pthread_mutex_lock(&S.mu);
	cid = S.next_cid++;
	pthread_mutex_unlock(&S.mu);
	rc = conn_login(m, cid, S.args.iname, S.use_chap ? &S.chap : NULL);
	if (rc) {
		fail("join cid %u: %s (status %02x/%02x)", cid, m->c.err, m->c.login_class,
		     m->c.login_detail);
		ir_close(&m->c);
		free(m);
		return NULL;
	}
	return m;
}

/* A login that must be refused: its status "CC/DD" is printed under key. */
static void try_join(const char *key, uint16_t cid, const char *iname,
		     const struct ir_chap_opts *chap)
{
	struct mconn *m = conn_new();
	int rc = conn_login(m, cid, iname, chap);

	if (rc == 0)
		printf("%s accepted\n", key);
	else if (rc == -EACCES)
		printf("%s %02x/%02x\n", key, m->c.login_class, m->c.login_detail);
	else
		printf("%s error %s\n", key, m->c.err[0] ? m->c.err : strerror(-rc));
	fflush(stdout);
	ir_close(&m->c);
	free(m);
}

/* ---- I/O ---- */

static int do_write(struct mconn *m, uint64_t lba, const uint8_t *buf)
{
	struct ir_scsi_result res;
	int rc;

	sn_take(m);
	rc = ir_write16(&m->c, 0, lba, S.blocks, S.bs, buf, false, &res);
	sn_seen(m);
	if (rc || res.status || res.rejected) {
		m->errors++;
		fail("cid %u: WRITE lba %" PRIu64 ": rc %d status 0x%02x %s", m->cid, lba, rc,
		     res.status, m->c.err);
		return -1;
	}
	m->ios++;
	m->bytes += (uint64_t)S.blocks * S.bs;
	return 0;
}

static int do_read(struct mconn *m, uint64_t lba, uint8_t *buf)
{
	struct ir_scsi_result res;
	int rc;

	sn_take(m);
	rc = ir_read16(&m->c, 0, lba, S.blocks, S.bs, buf, &res);
	sn_seen(m);
	if (rc || res.status || res.rejected || res.data_in_len != S.blocks * S.bs) {
		m->errors++;
		fail("cid %u: READ lba %" PRIu64 ": rc %d status 0x%02x got %u %s", m->cid, lba, rc,
		     res.status, res.data_in_len, m->c.err);
		return -1;
	}
	m->ios++;
	m->bytes += (uint64_t)S.blocks * S.bs;
	return 0;
}

/* Read region lba on m and compare with seed's pattern. */
static int verify_region(struct mconn *m, uint64_t lba, uint64_t seed, uint8_t *got, uint8_t *want)
{
	size_t len = (size_t)S.blocks * S.bs;

	if (do_read(m, lba, got))
		return -1;
	pattern(want, len, seed);
	if (memcmp(got, want, len)) {
		size_t i = 0;

		while (i < len && got[i] == want[i])
			i++;
		m->mismatches++;
		fail("cid %u: lba %" PRIu64 ": byte %zu differs (seed %" PRIx64 ")", m->cid, lba, i,
		     seed);
		return -1;
	}
	return 0;
}

static uint64_t region_lba(unsigned r)
{
	return S.lba0 + (uint64_t)r * S.blocks;
}

/* write/verify: thread k writes the I/Os i = k mod n, then reads those
 * i with (i + 1) mod n == k (another connection than the writer's). */
struct wv_arg {
	struct mconn *m;
	unsigned k, n, ios;
	bool reading;
	uint64_t gen;
};

static void *wv_thread(void *p)
{
	struct wv_arg *a = p;
	size_t len = (size_t)S.blocks * S.bs;
	uint8_t *buf = malloc(len), *want = malloc(len);

	if (!buf || !want)
		abort();
	for (unsigned i = 0; i < a->ios; i++) {
		uint64_t seed = (a->gen << 32) | i;

		if (!a->reading && i % a->n == a->k) {
			pattern(buf, len, seed);
			if (do_write(a->m, region_lba(i), buf))
				break;
		} else if (a->reading && (i + 1) % a->n == a->k) {
			if (verify_region(a->m, region_lba(i), seed, buf, want))
				break;
		}
	}
	free(buf);
	free(want);
	return NULL;
}

static void run_verify(unsigned ios)
{
	unsigned n = S.nconns;
	struct wv_arg args[MAX_CONNS];
	pthread_t th[MAX_CONNS];
	uint64_t w0 = 0, r0 = 0, mism = 0, bytes = 0;

	for (int phase = 0; phase < 2; phase++) {
		for (unsigned k = 0; k < n; k++) {
			args[k] = (struct wv_arg){.m = S.conns[k],
						  .k = k,
						  .n = n,
						  .ios = ios,
						  .reading = phase == 1,
						  .gen = 0x5a17};
			pthread_create(&th[k], NULL, wv_thread, &args[k]);
		}
		for (unsigned k = 0; k < n; k++)
			pthread_join(th[k], NULL);
		for (unsigned k = 0; k < n; k++) {
			if (phase == 0)
				w0 += S.conns[k]->ios;
			else
				r0 += S.conns[k]->ios;
			S.conns[k]->ios = 0;
			bytes += S.conns[k]->bytes;
			S.conns[k]->bytes = 0;
		}
	}
	for (unsigned k = 0; k < n; k++)
		mism += S.conns[k]->mismatches;
	printf("verify conns %u writes %" PRIu64 " reads %" PRIu64 " bytes %" PRIu64
	       " mismatches %" PRIu64 "\n",
	       n, w0, r0, bytes, mism);
	fflush(stdout);
	if (w0 != ios || r0 != ios)
		fail("verify: %" PRIu64 " writes and %" PRIu64 " reads of %u", w0, r0, ios);
}

/* ---- ORDERED COMPARE AND WRITE chain ---- */

static int recv_rsp(struct mconn *m, struct ir_pdu *p)
{
	for (;;) {
		int rc = ir_recv_pdu(&m->c, p, -1);

		if (rc)
			return rc;
		if (ir_pdu_opcode(p) == IR_OP_ASYNC_MSG) {
			ir_pdu_free(p);
			continue;
		}
		return 0;
	}
}

/* COMPARE AND WRITE of one block at lba, ORDERED, CmdSN base + k - 1: it
 * expects the pattern of command k - 1 and writes command k's; the two
 * blocks as immediate data. */
static int send_caw(struct mconn *m, unsigned k, uint32_t base, uint64_t lba, uint8_t *two,
		    uint32_t *itt)
{
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;
	uint8_t *cdb = h->cdb;
	uint32_t sbs = S.bs;

	pattern(two, sbs, 0x0dd0000ull + k - 1);
	pattern(two + sbs, sbs, 0x0dd0000ull + k);
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_WRITE | 2; /* ATTR ORDERED (11.3.1) */
	ir_lun_encode(0, h->lun);
	*itt = ir_next_itt(&m->c);
	put_be32(h->itt, *itt);
	put_be32(h->exp_xfer_len, 2u * sbs);
	put_be32(h->cmdsn, base + k - 1);
	put_be32(h->exp_statsn, m->c.expstatsn);
	cdb[0] = 0x89; /* COMPARE AND WRITE (SBC-4 5.3) */
	put_be64(cdb + 2, lba);
	cdb[13] = 1; /* NUMBER OF LOGICAL BLOCKS */
	p.data = two;
	p.data_len = 2u * sbs;
	if (ir_send_pdu(&m->c, &p)) {
		fail("ordered: send on cid %u: %s", m->cid, m->c.err);
		return -1;
	}
	return 0;
}

static void run_ordered(unsigned nm)
{
	unsigned n = S.nconns;
	uint64_t lba = S.lba0; /* the chain's block: the first of the run's range */
	uint32_t base;
	uint8_t *blk = malloc(S.bs), *two = malloc(2u * S.bs);
	unsigned good = 0, miscompare = 0, other = 0;
	unsigned *expect = calloc(n, sizeof(unsigned));
	uint32_t *itts = calloc(nm + 1, sizeof(uint32_t));
	uint32_t sbs = S.bs;

	if (!blk || !two || !expect || !itts)
		abort();
	if (2u * sbs > S.sess.p.first_burst || 2u * sbs > S.conns[0]->c.p.target_mrdsl) {
		fail("ordered: 2 blocks (%u bytes) do not fit in immediate data", 2u * sbs);
		goto out;
	}
	/* block := pattern 0 */
	pattern(blk, sbs, 0x0dd0000ull);
	{
		struct ir_scsi_result res;
		int rc;

		sn_take(S.conns[0]);
		rc = ir_write16(&S.conns[0]->c, 0, lba, 1, sbs, blk, false, &res);
		sn_seen(S.conns[0]);
		if (rc || res.status) {
			fail("ordered: first WRITE: rc %d status 0x%02x", rc, res.status);
			goto out;
		}
	}
	/* M consecutive CmdSNs, all inside the window */
	pthread_mutex_lock(&S.mu);
	base = S.sess.cmdsn;
	S.sess.cmdsn += nm;
	pthread_mutex_unlock(&S.mu);
	if (ir_sn_lt(S.max_cmdsn, base + nm - 1)) {
		fail("ordered: %u commands do not fit in the window (MaxCmdSN %u, CmdSN %u)", nm,
		     S.max_cmdsn, base);
		goto out;
	}
	/* command k (CmdSN base + k - 1) on connection (k - 1) mod n; the
	 * connections' batches sent last connection first, each in increasing
	 * CmdSN order (RFC 7143 4.2.2.1: CmdSNs increase on a connection), the
	 * first connection's (with CmdSN base) 50 ms after the others: the
	 * target receives most commands ahead of ExpCmdSN */
	for (unsigned j = n; j-- > 0;) {
		if (j == 0)
			usleep(50000);
		for (unsigned k = j + 1; k <= nm; k += n) {
			if (send_caw(S.conns[j], k, base, lba, two, &itts[k]))
				goto out;
			expect[j]++;
		}
	}
	for (unsigned j = 0; j < n; j++) {
		struct mconn *m = S.conns[j];

		while (expect[j]) {
			struct ir_pdu r;
			int rc = recv_rsp(m, &r);

			if (rc) {
				fail("ordered: cid %u: receive: %d %s", m->cid, rc, m->c.err);
				goto out;
			}
			if (ir_pdu_opcode(&r) != IR_OP_SCSI_RSP) {
				fail("ordered: cid %u: %s instead of a SCSI Response", m->cid,
				     ir_opcode_name(ir_pdu_opcode(&r)));
				ir_pdu_free(&r);
				goto out;
			}
			if (r.bhs.scsi_rsp.response == 0 && r.bhs.scsi_rsp.status == 0)
				good++;
			else if (r.bhs.scsi_rsp.status == 0x02) {
				uint32_t itt = ir_pdu_itt(&r);
				unsigned k = 0;

				for (unsigned q = 1; q <= nm; q++)
					if (itts[q] == itt)
						k = q;
				/* the first: which command, which sense */
				if (!miscompare++ && r.data_len >= 16) {
					struct ir_scsi_result sr = {.sense_len = r.data_len - 2};
					uint8_t key = 0, asc = 0, ascq = 0;

					memcpy(sr.sense, r.data + 2,
					       UT_MIN(sr.sense_len, (uint32_t)sizeof(sr.sense)));
					ir_sense_parse(&sr, &key, &asc, &ascq);
					printf("ordered check condition command %u sense "
					       "%02x/%02x/%02x\n",
					       k, key, asc, ascq);
				}
			} else
				other++;
			ir_pdu_free(&r);
			expect[j]--;
		}
		sn_seen(m);
	}
	{
		struct ir_scsi_result res;
		int rc;

		sn_take(S.conns[0]);
		rc = ir_read16(&S.conns[0]->c, 0, lba, 1, sbs, blk, &res);
		sn_seen(S.conns[0]);
		pattern(two, sbs, 0x0dd0000ull + nm);
		printf(
		    "ordered commands %u conns %u good %u check_condition %u other %u final %s\n",
		    nm, n, good, miscompare, other,
		    rc || res.status	    ? "unreadable"
		    : memcmp(blk, two, sbs) ? "wrong"
					    : "last");
		if (good != nm || rc || res.status || memcmp(blk, two, sbs))
			fail("ordered: not run in CmdSN order");
	}
out:
	fflush(stdout);
	free(blk);
	free(two);
	free(expect);
	free(itts);
}

/* ---- ABORT TASK of a task of another connection ---- */

/* A WRITE on the second connection, without data: the target asks for it
 * with an R2T, which is not answered; the first connection aborts it
 * (RTT: its ITT, RFC 7143 11.5.1); then the second connection still works. */
static void run_abort_other(void)
{
	struct mconn *a = S.conns[0], *b = S.conns[1];
	struct ir_pdu p = {0}, r;
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;
	uint32_t itt, cmdsn;
	uint8_t rsp = 0xff;
	int rc;

	pthread_mutex_lock(&S.mu);
	cmdsn = S.sess.cmdsn++;
	pthread_mutex_unlock(&S.mu);
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(0, h->lun);
	itt = ir_next_itt(&b->c);
	put_be32(h->itt, itt);
	put_be32(h->exp_xfer_len, S.bs);
	put_be32(h->cmdsn, cmdsn);
	put_be32(h->exp_statsn, b->c.expstatsn);
	h->cdb[0] = 0x8a; /* WRITE(16) */
	put_be64(h->cdb + 2, S.lba0);
	put_be32(h->cdb + 10, 1);
	if (ir_send_pdu(&b->c, &p) || (rc = recv_rsp(b, &r))) {
		fail("abort_other: WRITE on cid %u: %s", b->cid, b->c.err);
		return;
	}
	if (ir_pdu_opcode(&r) != IR_OP_R2T) {
		fail("abort_other: %s instead of an R2T", ir_opcode_name(ir_pdu_opcode(&r)));
		ir_pdu_free(&r);
		return;
	}
	/* its Data-Out on the wrong connection first: rejected (reason 04h,
	 * protocol error: connection allegiance), the data not taken */
	{
		struct ir_pdu d = {0};
		uint8_t *blk = calloc(1, S.bs);

		if (!blk)
			abort();
		rc = ir_send_data_out(&a->c, h->lun, itt, get_be32(r.bhs.r2t.ttt), blk, 0, S.bs, 0,
				      NULL, NULL);
		free(blk);
		if (!rc)
			rc = recv_rsp(a, &d);
		printf("misdirected_data_out %s reason 0x%02x\n",
		       rc ? "no_answer" : ir_opcode_name(ir_pdu_opcode(&d)),
		       rc ? 0 : d.bhs.reject.reason);
		if (rc || ir_pdu_opcode(&d) != IR_OP_REJECT || d.bhs.reject.reason != 0x04)
			fail("misdirected Data-Out: not rejected with reason 04h");
		if (!rc)
			ir_pdu_free(&d);
	}
	sn_peek(a);
	rc = ir_tmf(&a->c, IR_TMF_ABORT_TASK, 0, itt, cmdsn, &rsp);
	ir_pdu_free(&r);
	printf("abort_other cid %u task of cid %u response %u\n", a->cid, b->cid, rsp);
	if (rc || rsp != 0)
		fail("abort_other: rc %d response %u (want 0, function complete)", rc, rsp);
	{
		size_t len = (size_t)S.blocks * S.bs;
		uint8_t *buf = malloc(len), *want = malloc(len);

		if (!buf || !want)
			abort();
		pattern(buf, len, 0xab047);
		if (!do_write(b, S.lba0, buf) && !verify_region(b, S.lba0, 0xab047, buf, want))
			printf("after_abort_other ok\n");
		free(buf);
		free(want);
	}
	fflush(stdout);
}

/* ---- churn ---- */

static void *churn_thread(void *p)
{
	struct mconn *m = p;
	size_t len = (size_t)S.blocks * S.bs;
	uint8_t *buf = malloc(len), *want = malloc(len);
	uint64_t gen = 0;

	if (!buf || !want)
		abort();
	while (!atomic_load(&m->stop)) {
		unsigned r = m->slot * S.per_slot + (unsigned)(gen % S.per_slot);
		uint64_t seed = ((uint64_t)m->cid << 48) | (++gen << 16) | r;

		pattern(buf, len, seed);
		if (do_write(m, region_lba(r), buf))
			break;
		S.seeds[r] = seed; /* the region is this thread's alone */
		if (verify_region(m, region_lba(r), seed, buf, want))
			break;
	}
	free(buf);
	free(want);
	return NULL;
}

static void churn_start(struct mconn *m)
{
	m->slot = atomic_fetch_add(&S.next_slot, 1);
	if ((m->slot + 1) * S.per_slot > MAX_REGIONS ||
	    S.lba0 + (uint64_t)(m->slot + 1) * S.per_slot * S.blocks > S.nblocks) {
		fail("churn: out of regions");
		atomic_store(&m->stop, true);
		return;
	}
	atomic_store(&m->stop, false);
	pthread_create(&m->th, NULL, churn_thread, m);
}

/* Remove m: its I/O stops, then Logout reason 1 for its own CID; the
 * target answers 0 and closes it. */
static void conn_remove(struct mconn *m)
{
	uint8_t rsp = 0xff;
	int rc;

	atomic_store(&m->stop, true);
	pthread_join(m->th, NULL);
	sn_peek(m);
	rc = ir_logout_ex(&m->c, IR_LOGOUT_CONNECTION, m->cid, &rsp);
	if (rc || rsp != 0)
		fail("remove cid %u: Logout rc %d response %u %s", m->cid, rc, rsp, m->c.err);
	else if (ir_wait_closed(&m->c, 5000, NULL))
		fail("remove cid %u: not closed after its Logout", m->cid);
	pthread_mutex_lock(&S.mu);
	m->live = false;
	pthread_mutex_unlock(&S.mu);
	ir_close(&m->c);
}

static struct mconn *first_live(unsigned skip)
{
	for (unsigned j = 0; j < S.nconns; j++)
		if (S.conns[j]->live && !skip--)
			return S.conns[j];
	return NULL;
}

static void run_churn(unsigned rounds)
{
	unsigned added = 0, removed = 0, verified = 0, k = 0;
	uint64_t ios = 0, mism = 0;
	size_t len = (size_t)S.blocks * S.bs;
	uint8_t *buf = malloc(len), *want = malloc(len);

	if (!buf || !want)
		abort();
	S.per_slot = 16;
	for (unsigned j = 0; j < S.nconns; j++)
		if (S.conns[j]->live)
			churn_start(S.conns[j]);
	for (unsigned r = 0; r < rounds; r++) {
		struct mconn *m;

		usleep(300000);
		m = conn_join();
		if (!m)
			break;
		conn_add(m);
		churn_start(m);
		added++;
		usleep(300000);
		m = first_live(0);
		conn_remove(m);
		removed++;
	}
	usleep(200000);
	for (unsigned j = 0; j < S.nconns; j++) {
		struct mconn *m = S.conns[j];

		if (m->live) {
			atomic_store(&m->stop, true);
			pthread_join(m->th, NULL);
		}
		ios += m->ios;
		mism += m->mismatches;
	}
	/* every region any connection wrote, read back round-robin over the
	 * connections left */
	for (unsigned r = 0; r < MAX_REGIONS && r < atomic_load(&S.next_slot) * S.per_slot; r++) {
		struct mconn *m;

		if (!S.seeds[r])
			continue;
		m = NULL;
		for (unsigned j = 0, skip = k++ % S.nconns; j < S.nconns && !m; j++)
			if (S.conns[(j + skip) % S.nconns]->live)
				m = S.conns[(j + skip) % S.nconns];
		if (verify_region(m, region_lba(r), S.seeds[r], buf, want))
			mism++;
		else
			verified++;
	}
	printf("churn added %u removed %u ios %" PRIu64 " regions_verified %u mismatches %" PRIu64
	       "\n",
	       added, removed, ios, verified, mism);
	fflush(stdout);
	if (added != rounds || removed != rounds || !verified)
		fail("churn: %u added, %u removed of %u, %u regions verified", added, removed,
		     rounds, verified);
	free(buf);
	free(want);
}

/* ---- throughput ---- */

struct perf_arg {
	struct mconn *m;
	double end;
};

static void *perf_thread(void *p)
{
	struct perf_arg *a = p;
	size_t len = (size_t)S.blocks * S.bs;
	uint8_t *buf = malloc(len);
	unsigned r = 0;

	if (!buf)
		abort();
	pattern(buf, len, a->m->cid);
	while (now_s() < a->end) {
		uint64_t lba = S.lba0 + ((uint64_t)a->m->slot * 64 + (r++ % 64)) * S.blocks;

		if ((r & 1) ? do_read(a->m, lba, buf) : do_write(a->m, lba, buf))
			break;
	}
	free(buf);
	return NULL;
}

static void run_perf(double secs)
{
	struct perf_arg args[MAX_CONNS];
	unsigned n = 0;
	uint64_t ios = 0, bytes = 0;
	double t0 = now_s();

	for (unsigned j = 0; j < S.nconns; j++) {
		struct mconn *m = S.conns[j];

		if (!m->live)
			continue;
		m->ios = m->bytes = 0;
		m->slot = n;
		args[n] = (struct perf_arg){.m = m, .end = t0 + secs};
		pthread_create(&m->th, NULL, perf_thread, &args[n]);
		n++;
	}
	for (unsigned j = 0; j < S.nconns; j++) {
		struct mconn *m = S.conns[j];

		if (!m->live)
			continue;
		pthread_join(m->th, NULL);
		ios += m->ios;
		bytes += m->bytes;
	}
	secs = now_s() - t0;
	printf("perf conns %u seconds %.1f io_bytes %u ios %" PRIu64 " iops %.0f mb_s %.1f\n", n,
	       secs, S.blocks * S.bs, ios, (double)ios / secs, (double)bytes / secs / 1e6);
	fflush(stdout);
}

/* ---- main ---- */

static int parse_chap(char *arg, struct ir_chap_opts *o)
{
	char *colon = strchr(arg, ':');

	if (!colon)
		return -1;
	*colon = 0;
	memset(o, 0, sizeof(*o));
	o->user = arg;
	o->secret = colon + 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned nconns = 1, ios = 0, ordered = 0, churn = 0;
	double perf = 0;
	bool extra = false, logout_other = false, abort_other = false, failure = false;
	bool join_lo = false;
	const char *join_name = NULL, *hold = NULL;
	struct ir_chap_opts join_chap;
	bool use_join_chap = false;
	struct ir_scsi_result res;
	uint64_t nblocks = 0;
	struct mconn *lead;
	char mc[16] = "?";
	int opt;

	S.max_conns_offered = 16;
	S.blocks = 8;
	while ((opt = getopt(argc, argv, "n:M:C:b:i:o:k:AFOt:xJ:K:YH:L:")) != -1) {
		switch (opt) {
		case 'n':
			nconns = (unsigned)atoi(optarg);
			break;
		case 'M':
			S.max_conns_offered = (uint16_t)atoi(optarg);
			break;
		case 'C':
			if (parse_chap(optarg, &S.chap))
				goto usage;
			S.use_chap = true;
			break;
		case 'b':
			S.blocks = (uint32_t)atoi(optarg);
			break;
		case 'i':
			ios = (unsigned)atoi(optarg);
			break;
		case 'o':
			ordered = (unsigned)atoi(optarg);
			break;
		case 'k':
			churn = (unsigned)atoi(optarg);
			break;
		case 'A':
			abort_other = true;
			break;
		case 'F':
			failure = true;
			break;
		case 'Y':
			join_lo = true;
			break;
		case 'O':
			logout_other = true;
			break;
		case 't':
			perf = atof(optarg);
			break;
		case 'x':
			extra = true;
			break;
		case 'J':
			join_name = optarg;
			break;
		case 'K':
			if (parse_chap(optarg, &join_chap))
				goto usage;
			use_join_chap = true;
			break;
		case 'H':
			hold = optarg;
			break;
		case 'L':
			S.lba0 = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (!nconns || nconns > MAX_CONNS / 2 || !S.blocks || ios > MAX_REGIONS ||
	    ir_tool_operands(argc, argv, optind, &S.args))
		goto usage;

	/* the leading login */
	lead = conn_new();
	if (conn_login(lead, 0, S.args.iname, S.use_chap ? &S.chap : NULL)) {
		fprintf(stderr, "mcs: leading login: %s (status %02x/%02x)\n", lead->c.err,
			lead->c.login_class, lead->c.login_detail);
		return 2;
	}
	S.max_cmdsn = lead->c.max_cmdsn;
	S.next_cid = 1;
	conn_add(lead);
	ir_login_answer(&lead->c, "MaxConnections", mc, sizeof(mc));
	/* the first command may meet the POWER ON unit attention: again */
	for (int k = 0; k < 3; k++) {
		sn_take(lead);
		if (ir_read_capacity16(&lead->c, 0, &nblocks, &S.bs, &res) || res.status != 0x02)
			break;
	}
	if (res.status || !nblocks) {
		fprintf(stderr, "mcs: READ CAPACITY(16) failed: %s\n", lead->c.err);
		return 2;
	}
	sn_seen(lead);
	S.nblocks = nblocks;
	if (S.lba0 + (uint64_t)(ios + 1) * S.blocks > nblocks) {
		fprintf(stderr, "mcs: %u I/Os of %u blocks do not fit in %" PRIu64 " blocks\n", ios,
			S.blocks, nblocks);
		return 2;
	}
	for (unsigned k = 1; k < nconns; k++) {
		struct mconn *m = conn_join();

		if (!m)
			break;
		conn_add(m);
	}
	printf("session tsih %u conns %u max_connections %s block_size %u\n", S.sess.tsih, S.nconns,
	       mc, S.bs);
	fflush(stdout);
	if (S.nconns != nconns)
		goto end;
	if (extra)
		try_join("extra", S.next_cid++, S.args.iname, S.use_chap ? &S.chap : NULL);
	if (join_name)
		try_join("join_name", S.next_cid++, join_name, S.use_chap ? &S.chap : NULL);
	if (use_join_chap)
		try_join("join_chap", S.next_cid++, S.args.iname, &join_chap);
	if (join_lo) {
		S.join_lo_keys = true;
		try_join("join_lo", S.next_cid++, S.args.iname, S.use_chap ? &S.chap : NULL);
		S.join_lo_keys = false;
	}
	if (hold)
		ir_hold(hold);
	if (ios)
		run_verify(ios);
	if (ordered)
		run_ordered(ordered);
	if (abort_other) {
		if (S.nconns < 2)
			fail("abort_other: fewer than two connections");
		else
			run_abort_other();
	}
	if (churn)
		run_churn(churn);
	if (perf > 0)
		run_perf(perf);
	if (logout_other) {
		struct mconn *a = first_live(0), *b = first_live(1);
		uint8_t rsp = 0xff;

		if (!a || !b) {
			fail("logout_other: fewer than two connections");
		} else {
			int rc;

			sn_peek(a);
			rc = ir_logout_ex(&a->c, IR_LOGOUT_CONNECTION, b->cid, &rsp);
			printf("logout_other cid %u by cid %u response %u closed %s\n", b->cid,
			       a->cid, rsp, ir_wait_closed(&b->c, 5000, NULL) ? "no" : "yes");
			if (rc || rsp)
				fail("logout_other: rc %d response %u", rc, rsp);
			b->live = false;
			ir_close(&b->c);
			/* the session goes on: a WRITE and READ on a */
			{
				size_t len = (size_t)S.blocks * S.bs;
				uint8_t *buf = malloc(len), *want = malloc(len);

				if (!buf || !want)
					abort();
				pattern(buf, len, 0xabcdef);
				if (!do_write(a, S.lba0, buf) &&
				    !verify_region(a, S.lba0, 0xabcdef, buf, want))
					printf("after_logout_other ok\n");
				free(buf);
				free(want);
			}
		}
	}
	if (failure) {
		struct mconn *x = S.conns[S.nconns - 1];
		unsigned others = 0, closed = 0;

		ir_abort(&x->c, true);
		x->live = false;
		for (unsigned j = 0; j < S.nconns; j++) {
			struct mconn *m = S.conns[j];

			if (!m->live)
				continue;
			others++;
			if (!ir_wait_closed(&m->c, 5000, NULL))
				closed++;
			m->live = false;
		}
		printf("failure others_closed %u of %u\n", closed, others);
		if (closed != others)
			fail("failure: %u of %u other connections closed", closed, others);
		printf("%s\n", S.failed ? "FAILED" : "OK");
		return S.failed ? 1 : 0;
	}
end : {
	/* Logout reason 0 on the first connection left: the session closes,
	 * the target closes the others */
	struct mconn *a = first_live(0);
	unsigned others = 0, closed = 0;
	uint8_t rsp = 0xff;
	int rc;

	if (!a) {
		fail("no connection left for the Logout");
		return 1;
	}
	sn_peek(a);
	rc = ir_logout(&a->c, &rsp);
	for (unsigned j = 0; j < S.nconns; j++) {
		struct mconn *m = S.conns[j];

		if (!m->live || m == a)
			continue;
		others++;
		if (!ir_wait_closed(&m->c, 5000, NULL))
			closed++;
	}
	printf("logout response %u others_closed %u of %u\n", rsp, closed, others);
	if (rc || rsp || closed != others)
		fail("logout: rc %d response %u, %u of %u others closed", rc, rsp, closed, others);
}
	printf("%s\n", S.failed || S.nconns < nconns ? "FAILED" : "OK");
	return S.failed || S.nconns < nconns ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: mcs HOST:PORT TARGET INITIATOR [-n N] [-M N] [-C USER:SECRET] "
		"[-b BLOCKS] [-i IOS] [-o M] [-k K] [-A] [-F] [-O] [-t SECONDS] [-x] [-J NAME] "
		"[-K USER:SECRET] [-Y] [-H FILE] [-L LBA]\n");
	return 2;
}
