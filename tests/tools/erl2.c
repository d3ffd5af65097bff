/* SPDX-License-Identifier: GPL-2.0-or-later */
/* erl2: ErrorRecoveryLevel 2, connection recovery (RFC 7143 7.2.2, 11.5.1
 * TASK REASSIGN, 11.14 Logout reason 2) driven with the project's raw
 * initiator: a mixed WRITE/READ workload on a session of N connections
 * (one thread, every connection polled), commands in flight on each; again
 * and again one connection is dropped while its commands are in flight, a
 * replacement connection logs in with the same CID, and every task of the
 * dropped connection is reassigned to it; every byte read back is checked.
 *
 *   erl2 HOST:PORT TARGET INITIATOR [options]
 *
 *   -n N        connections (MaxConnections 4 offered; default 4)
 *   -d DROPS    connection drops (default 50), alternately: the socket
 *               closed with a reset (the target sees the connection fail)
 *               and a Logout reason 2 naming it from the next connection
 *               (then closed); the replacement logs in with the same CID
 *               (the implicit logout of connection reinstatement)
 *   -m CMDS     commands completed between two drops (default 40)
 *   -q DEPTH    commands in flight per connection (default 4)
 *   -b BLOCKS   largest I/O in blocks (default 64); sizes vary 1..BLOCKS
 *   -T SECONDS  DefaultTime2Retain offered (DefaultTime2Wait 0; default 20)
 *   -A          the answers first, on sessions of their own: a task of a
 *               live connection "Task still allegiant" (3), an unknown
 *               ITT "Task does not exist" (1), a task not reassigned
 *               within Time2Wait + Time2Retain (a session offering
 *               DefaultTime2Retain 1) 1 after it ended, at ERL 1 "not
 *               supported" (4): "answers allegiant A unknown U expired E
 *               erl1 R"
 *   -H FILE     after the workload print "ready" and wait for FILE (60 s at
 *               most) before the Logout: the session's counters can be read
 *   -O          resend out of order: each drop also loses a new command of
 *               the connection (CmdSN taken, PDU never written: TASK
 *               REASSIGN answers 1, the CmdSNs after it wait at the
 *               target); after a drop new commands are held back only
 *               until every TASK REASSIGN is answered; a command
 *               answered 1 waits on the replacement until a new command
 *               went there (or none can go: no free slot for 50 ms, the
 *               window closed, the run ending) and then goes behind it,
 *               its CmdSN below one already sent on that connection (RFC
 *               7143 3.2.2.1 exempts retries from the increasing order).
 *               FAIL when a run with drops resent no command behind a
 *               newer one
 *
 * TASK REASSIGN carries ExpDataSN = the Data-In received so far for a read
 * (the target sends from there), 0 for a write (the target asks with R2Ts
 * for what it lacks). A "Task does not exist" answer means the command
 * never reached the target (lost with the connection): it is sent again on
 * the replacement with its ITT and CmdSN, without -O first (no new command
 * on the connection before every such command went, in CmdSN order), with
 * -O after a newer command. A command that never completes
 * is lost. The recovery time of a drop runs from the drop to the status of
 * the last of its tasks.
 *
 * Lines: "session tsih T erl E conns N", "drops D reset R logout L", "io
 * commands C reads R writes W bytes B mismatches M failed F lost X",
 * "reassign tasks T complete A not_found N allegiant S resent_behind B" (B:
 * commands sent again on a connection after one with a higher CmdSN, 0
 * without -O), "recovery
 * median_us .. p99_us .. max_us ..", then "OK" or "FAIL ...". Exit 0 / 1 /
 * 2 (usage, login). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

#define MAX_CONNS  4
#define MAX_DEPTH  8
#define SEG	   8192u
#define MAX_DROPS  100000u
#define STALL_US   30000000 /* no progress for this long: the rest is lost */
#define TMF_ITT_HI 0x80000000u
#define RESEND_US  50000 /* -O: the longest a resend waits for a new command */

static const uint8_t lun0[8]; /* every command's LUN */

struct task {
	bool busy;
	bool write;
	bool in_drop; /* one of the dropped connection's: its status ends the recovery */
	uint32_t itt, cmdsn;
	uint64_t lba;
	uint32_t nblk, len;
	uint32_t gen;	  /* the pattern written / expected */
	uint32_t datain;  /* Data-In received (the next DataSN) */
	uint32_t got;	  /* Data-In bytes */
	unsigned tmf_try; /* TASK REASSIGN sent (answers 3: again) */
	bool tmf_open;	  /* TASK REASSIGN sent, not answered with 0 or 1 yet */
	bool resend;	  /* answered 1: the command goes again */
	int64_t again_us; /* send TASK REASSIGN again from then */
	uint8_t *buf;
};

struct xconn {
	struct ir_conn c;
	uint16_t cid;
	bool up;
	struct task t[MAX_DEPTH];
	uint32_t last_gen[MAX_DEPTH]; /* per slot: the pattern of its blocks */
	uint32_t last_nblk[MAX_DEPTH];
	bool wrote[MAX_DEPTH];
	/* -O: since the login, a command sent (the highest CmdSN, a fresh
	 * command's), and when the commands answered 1 go at the latest (0:
	 * none waiting, or a TASK REASSIGN still unanswered) */
	bool sent_any;
	uint32_t sent_hi;
	int64_t resend_by_us;
};

static struct {
	struct ir_tool_args args;
	const char *hold;
	unsigned nconns, drops, per_drop, depth, maxblk, t2r;
	bool answers, out_of_order;
	uint32_t bs;
	struct ir_session sess;
	uint32_t itt, gen;
	struct xconn x[MAX_CONNS];
	/* results */
	uint64_t cmds, reads, writes, bytes, mismatches, failed, lost;
	uint64_t n_reset, n_logout, n_tasks, n_complete, n_not_found, n_allegiant;
	uint64_t n_behind; /* resent after a command with a higher CmdSN */
	int64_t drop_us;
	unsigned pending; /* tasks of the current drop without status */
	int64_t *recov;
	unsigned nrecov;
	char why[256];
} S;

static void failf(const char *fmt, ...) UT_PRINTF(1, 2);
static void failf(const char *fmt, ...)
{
	va_list ap;

	if (S.why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(S.why, sizeof(S.why), fmt, ap);
	va_end(ap);
}

static uint8_t pat(uint64_t lba, uint32_t i, uint32_t gen)
{
	return (uint8_t)(lba * 131u + i * 7u + gen * 29u + (i >> 8));
}

/* A connection of session s (its leading login while s has none). */
static int login(struct ir_conn *c, struct ir_session *s, uint16_t cid, const char *iname, int erl,
		 uint16_t t2r)
{
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = S.args.target,
	    .max_recv_dsl = 65536,
	    .max_burst = 65536,
	    .first_burst = 65536,
	    .initial_r2t = 1,
	    .immediate_data = 0,
	    .max_outstanding_r2t = 1,
	    .erl = erl,
	    .times_set = true,
	    .time2wait = 0,
	    .time2retain = t2r,
	    .cid = cid,
	    .max_connections = 4,
	};

	ir_conn_init(c);
	return ir_session_login(s, c, S.args.host, S.args.port, &o);
}

static int xlogin(struct xconn *x)
{
	int rc = login(&x->c, &S.sess, x->cid, S.args.iname, 2, (uint16_t)S.t2r);

	if (rc) {
		failf("login cid %u: %d %02x/%02x %s", x->cid, rc, x->c.login_class,
		      x->c.login_detail, x->c.err);
		return rc;
	}
	x->up = true;
	x->sent_any = false;
	x->resend_by_us = 0;
	return 0;
}

static void send_cmd(struct xconn *x, struct task *t)
{
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE | (t->write ? IR_CMD_WRITE : IR_CMD_READ);
	put_be32(h->itt, t->itt);
	put_be32(h->exp_xfer_len, t->len);
	put_be32(h->cmdsn, t->cmdsn);
	put_be32(h->exp_statsn, x->c.expstatsn);
	h->cdb[0] = t->write ? 0x8a : 0x88;
	put_be64(h->cdb + 2, t->lba);
	put_be32(h->cdb + 10, t->nblk);
	if (ir_send_pdu(&x->c, &p))
		failf("send a command on cid %u", x->cid);
}

/* Slot k of x starts its next command: a WRITE of a new pattern, then a
 * READ of the same blocks. !send: its PDU is lost (never written). */
static void start(struct xconn *x, unsigned k, bool send)
{
	struct task *t = &x->t[k];
	uint64_t region = ((uint64_t)x->cid * MAX_DEPTH + k) * S.maxblk;

	memset(t, 0, offsetof(struct task, buf));
	t->busy = true;
	t->write = !x->wrote[k];
	t->lba = region;
	if (t->write) {
		x->last_nblk[k] = 1 + (uint32_t)(rand() % (int)S.maxblk);
		x->last_gen[k] = ++S.gen;
	}
	t->nblk = x->last_nblk[k];
	t->gen = x->last_gen[k];
	t->len = t->nblk * S.bs;
	if (t->write)
		for (uint32_t i = 0; i < t->len; i++)
			t->buf[i] = pat(t->lba, i, t->gen);
	else
		memset(t->buf, 0, t->len);
	t->itt = S.itt++ & ~TMF_ITT_HI;
	t->cmdsn = S.sess.cmdsn++;
	if (!x->sent_any || ir_sn_lt(x->sent_hi, t->cmdsn))
		x->sent_hi = t->cmdsn;
	x->sent_any = true;
	if (send)
		send_cmd(x, t);
}

static struct task *task_of(struct xconn *x, uint32_t itt)
{
	for (unsigned k = 0; k < S.depth; k++)
		if (x->t[k].busy && x->t[k].itt == itt)
			return &x->t[k];
	return NULL;
}

static void done(struct xconn *x, struct task *t, uint8_t status)
{
	unsigned k = (unsigned)(t - x->t);

	S.cmds++;
	if (status) {
		S.failed++;
		failf("ITT 0x%08x status 0x%02x", t->itt, status);
	} else if (t->write) {
		S.writes++;
		x->wrote[k] = true;
	} else {
		S.reads++;
		for (uint32_t i = 0; i < t->len; i++)
			if (t->buf[i] != pat(t->lba, i, t->gen)) {
				S.mismatches++;
				failf("ITT 0x%08x: wrong byte at %u", t->itt, i);
			}
		x->wrote[k] = false;
	}
	S.bytes += t->len;
	if (t->in_drop && S.pending && --S.pending == 0 && S.nrecov < MAX_DROPS)
		S.recov[S.nrecov++] = ir_now_us() - S.drop_us;
	t->busy = false;
}

static void send_data(struct xconn *x, struct task *t, uint32_t ttt, uint32_t off, uint32_t len)
{
	if (ir_send_data_out(&x->c, lun0, t->itt, ttt, t->buf, off, len, SEG, NULL, NULL))
		failf("send Data-Out on cid %u", x->cid);
}

static void send_reassign(struct xconn *x, struct task *t)
{
	struct ir_pdu p = {0};
	struct ir_bhs_tmf_req *h = &p.bhs.tmf_req;

	h->opcode = IR_OP_TMF_REQ | IR_OP_IMMEDIATE;
	h->function = IR_FLAG_FINAL | IR_TMF_TASK_REASSIGN;
	put_be32(h->itt, TMF_ITT_HI | t->itt);
	put_be32(h->ref_task_tag, t->itt);
	put_be32(h->cmdsn, S.sess.cmdsn);
	put_be32(h->exp_statsn, x->c.expstatsn);
	put_be32(h->ref_cmdsn, t->cmdsn);
	put_be32(h->exp_datasn, t->write ? 0 : t->datain);
	t->tmf_try++;
	t->tmf_open = true;
	t->again_us = 0;
	if (ir_send_pdu(&x->c, &p))
		failf("send TASK REASSIGN on cid %u", x->cid);
}

/* The commands of x answered 1 go again, lowest CmdSN first; those below
 * a command already sent on x are counted. */
static void resend_now(struct xconn *x)
{
	x->resend_by_us = 0;
	for (;;) {
		struct task *low = NULL;

		for (unsigned k = 0; k < S.depth; k++) {
			struct task *t = &x->t[k];

			if (t->busy && t->resend && (!low || ir_sn_lt(t->cmdsn, low->cmdsn)))
				low = t;
		}
		if (!low)
			return;
		low->resend = false;
		if (x->sent_any && ir_sn_lt(low->cmdsn, x->sent_hi))
			S.n_behind++;
		send_cmd(x, low);
	}
}

/* Every TASK REASSIGN of x answered: the commands that never reached the
 * target go again, at once, or with -O after a new command (resend_late). */
static void resend_lost(struct xconn *x)
{
	bool any = false;

	for (unsigned k = 0; k < S.depth; k++) {
		if (x->t[k].busy && x->t[k].tmf_open)
			return;
		any |= x->t[k].busy && x->t[k].resend;
	}
	if (!S.out_of_order)
		resend_now(x);
	else if (any && !x->resend_by_us)
		x->resend_by_us = ir_now_us() + RESEND_US;
}

/* -O, after the new commands of x went (or could not, blocked: the window
 * closed or the run ending): its commands answered 1 go now if a command
 * went on x since its login (theirs are lower CmdSNs) or none will (blocked,
 * or RESEND_US passed: every slot waits for one of them, or for a
 * command the target holds until they come). */
static void resend_late(struct xconn *x, bool blocked)
{
	if (!x->up || !x->resend_by_us)
		return;
	if (x->sent_any || blocked || ir_now_us() >= x->resend_by_us)
		resend_now(x);
}

/* One PDU of connection x. *logout_rsp: a Logout Response's code. */
static void handle(struct xconn *x, struct ir_pdu *p, int *logout_rsp)
{
	uint32_t itt = ir_pdu_itt(p);
	struct task *t;

	switch (ir_pdu_opcode(p)) {
	case IR_OP_R2T: {
		uint32_t off = get_be32(p->bhs.r2t.buffer_offset);
		uint32_t len = get_be32(p->bhs.r2t.desired_len);

		t = task_of(x, itt);
		if (!t || !t->write || off + len > t->len) {
			failf("R2T ITT 0x%08x [%u, +%u) of no write of cid %u", itt, off, len,
			      x->cid);
			return;
		}
		send_data(x, t, get_be32(p->bhs.r2t.ttt), off, len);
		return;
	}
	case IR_OP_DATA_IN:
		t = task_of(x, itt);
		if (!t || t->write || ir_datain_take(p, t->buf, t->len, &t->got)) {
			failf("Data-In ITT 0x%08x of no read of cid %u", itt, x->cid);
			return;
		}
		t->datain = get_be32(p->bhs.data.datasn) + 1;
		if (p->bhs.data.flags & IR_DATAIN_STATUS)
			done(x, t, p->bhs.data.status);
		return;
	case IR_OP_SCSI_RSP:
		t = task_of(x, itt);
		if (!t) {
			failf("SCSI Response ITT 0x%08x of no task of cid %u", itt, x->cid);
			return;
		}
		done(x, t, p->bhs.scsi_rsp.response ? 0xff : p->bhs.scsi_rsp.status);
		return;
	case IR_OP_TMF_RSP:
		t = task_of(x, itt & ~TMF_ITT_HI);
		if (!t) {
			failf("TMF Response ITT 0x%08x of no task", itt);
			return;
		}
		switch (p->bhs.tmf_rsp.response) {
		case 0:
			S.n_complete++;
			t->tmf_open = false;
			resend_lost(x);
			return;
		case 1:
			/* the command never reached the target: again, once every
			 * TASK REASSIGN is answered, in CmdSN order (on one
			 * connection CmdSNs increase, RFC 7143 4.2.2.1), with -O
			 * behind a new command (a retry may carry an older CmdSN,
			 * 3.2.2.1) */
			S.n_not_found++;
			t->datain = t->got = 0;
			t->tmf_open = false;
			t->resend = true;
			resend_lost(x);
			return;
		case 3:
			S.n_allegiant++;
			if (t->tmf_try > 500)
				failf("ITT 0x%08x still allegiant after %u tries", t->itt,
				      t->tmf_try);
			t->again_us = ir_now_us() + 2000;
			return;
		default:
			failf("TASK REASSIGN of ITT 0x%08x answered %u", t->itt,
			      p->bhs.tmf_rsp.response);
			return;
		}
	case IR_OP_LOGOUT_RSP:
		*logout_rsp = p->bhs.logout_rsp.response;
		return;
	case IR_OP_REJECT:
		failf("Reject reason 0x%02x on cid %u", p->bhs.reject.reason, x->cid);
		return;
	default:
		return; /* NOP-In (no ping asked: nop_in_interval 0), Async */
	}
}

/* Poll every connection up once (wait_ms at most); handle what came. */
static void pump(int wait_ms, int *logout_rsp)
{
	struct pollfd pfd[MAX_CONNS];
	int64_t now = ir_now_us();

	for (unsigned i = 0; i < S.nconns; i++) {
		pfd[i].fd = S.x[i].up ? S.x[i].c.fd : -1;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
		if (S.x[i].up && S.x[i].c.rbuf_pos < S.x[i].c.rbuf_len)
			wait_ms = 0;
		for (unsigned k = 0; k < S.depth && S.x[i].up; k++)
			if (S.x[i].t[k].busy && S.x[i].t[k].again_us && S.x[i].t[k].again_us <= now)
				send_reassign(&S.x[i], &S.x[i].t[k]);
	}
	poll(pfd, S.nconns, wait_ms);
	for (unsigned i = 0; i < S.nconns; i++) {
		struct xconn *x = &S.x[i];

		for (int n = 0; x->up && n < 64; n++) {
			struct ir_pdu p;
			int rc = ir_recv_pdu(&x->c, &p, 0);

			if (rc == -ETIMEDOUT)
				break;
			if (rc) {
				failf("receive on cid %u: %d", x->cid, rc);
				x->up = false;
				break;
			}
			handle(x, &p, logout_rsp);
			ir_pdu_free(&p);
		}
	}
}

/* x still reassigns tasks or (without -O) has commands to send again: no
 * new command goes before them (their CmdSNs are lower) */
static bool recovering(const struct xconn *x)
{
	for (unsigned k = 0; k < S.depth; k++)
		if (x->t[k].busy && (x->t[k].tmf_open || (x->t[k].resend && !S.out_of_order)))
			return true;
	return false;
}

static unsigned busy_on(const struct xconn *x)
{
	unsigned n = 0;

	for (unsigned k = 0; k < S.depth; k++)
		n += x->t[k].busy;
	return n;
}

static unsigned busy_count(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < S.nconns; i++)
		n += busy_on(&S.x[i]);
	return n;
}

/* Drop connection v (kind 0: reset, 1: Logout reason 2 from another),
 * log in its replacement, reassign its tasks. */
static void drop(unsigned v, unsigned kind)
{
	struct xconn *x = &S.x[v];
	int lrsp = -1;

	/* -O: a new command lost with the connection (the target never gets
	 * it, TASK REASSIGN answers 1) */
	for (unsigned k = 0; k < S.depth && S.out_of_order; k++)
		if (!x->t[k].busy && ir_sn_lt(S.sess.cmdsn, x->c.max_cmdsn + 1)) {
			start(x, k, false);
			break;
		}
	S.pending = 0;
	for (unsigned k = 0; k < S.depth; k++)
		if (x->t[k].busy) {
			x->t[k].in_drop = true;
			S.pending++;
		}
	S.drop_us = ir_now_us();
	if (kind == 0 || S.nconns < 2) {
		S.n_reset++;
		ir_abort(&x->c, true);
	} else {
		struct xconn *o = &S.x[(v + 1) % S.nconns];
		struct ir_pdu p = {0};
		struct ir_bhs_logout_req *h = &p.bhs.logout_req;
		int64_t end = ir_now_us() + 10000000;

		S.n_logout++;
		h->opcode = IR_OP_LOGOUT_REQ | IR_OP_IMMEDIATE;
		h->reason = IR_FLAG_FINAL | 2;
		put_be32(h->itt, 0x7ffffff0u);
		put_be16(h->cid, x->cid);
		put_be32(h->cmdsn, S.sess.cmdsn);
		put_be32(h->exp_statsn, o->c.expstatsn);
		x->up = false; /* what comes on it now is lost with it */
		if (ir_send_pdu(&o->c, &p))
			failf("send Logout on cid %u", o->cid);
		while (lrsp < 0 && !S.why[0] && ir_now_us() < end)
			pump(5, &lrsp);
		if (lrsp != 0)
			failf("Logout reason 2 for cid %u answered %d", x->cid, lrsp);
		ir_close(&x->c);
	}
	x->up = false;
	if (xlogin(x))
		return;
	for (unsigned k = 0; k < S.depth; k++)
		if (x->t[k].busy) {
			S.n_tasks++;
			send_reassign(x, &x->t[k]);
		}
	if (!S.pending && S.nrecov < MAX_DROPS)
		S.recov[S.nrecov++] = ir_now_us() - S.drop_us;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- -A: the answers ---- */

static int tmf_answer(struct ir_conn *c, uint32_t rtt)
{
	uint8_t rsp = 0xee;

	if (ir_tmf(c, IR_TMF_TASK_REASSIGN, 0, rtt, 0, &rsp))
		return -1;
	return rsp;
}

/* A WRITE on c whose R2T came; its data not sent. */
static int write_pending(struct ir_conn *c, uint32_t *itt, uint32_t *ttt)
{
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	*itt = ir_next_itt(c);
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE | IR_CMD_WRITE;
	put_be32(h->itt, *itt);
	put_be32(h->exp_xfer_len, S.bs);
	put_be32(h->cmdsn, c->cmdsn++);
	put_be32(h->exp_statsn, c->expstatsn);
	h->cdb[0] = 0x8a;
	put_be64(h->cdb + 2, 4096);
	put_be32(h->cdb + 10, 1);
	if (ir_send_pdu(c, &p))
		return -1;
	for (;;) {
		if (ir_recv_pdu(c, &p, 5000))
			return -1;
		if (ir_pdu_opcode(&p) == IR_OP_R2T && ir_pdu_itt(&p) == *itt) {
			*ttt = get_be32(p.bhs.r2t.ttt);
			ir_pdu_free(&p);
			return 0;
		}
		ir_pdu_free(&p);
	}
}

static void answers(void)
{
	char iname[256];
	struct ir_conn a, b;
	/* sessions of their own, not S.sess */
	struct ir_session as = {0}, erl1_sess = {0};
	uint8_t *blk;
	uint32_t itt, ttt, itt2, ttt2;
	int allegiant, unknown, expired, erl1;
	struct ir_scsi_result res;
	uint8_t rsp;

	snprintf(iname, sizeof(iname), "%s-answers", S.args.iname);
	if (login(&a, &as, 0, iname, 2, 1) || a.p.erl != 2) {
		failf("answers: login (ERL %u)", a.p.erl);
		return;
	}
	for (int k = 0; k < 3; k++)
		if (!ir_test_unit_ready(&a, 0, &res) && !res.status)
			break;
	as.cmdsn = a.cmdsn;
	if (login(&b, &as, 1, iname, 2, 1)) {
		failf("answers: login cid 1");
		return;
	}
	if (write_pending(&a, &itt, &ttt)) {
		failf("answers: WRITE");
		return;
	}
	b.cmdsn = a.cmdsn;
	allegiant = tmf_answer(&b, itt);
	unknown = tmf_answer(&b, 0x0badbeefu);
	a.cmdsn = b.cmdsn;
	blk = calloc(1, S.bs);
	if (ir_send_data_out(&a, lun0, itt, ttt, blk, 0, S.bs, SEG, NULL, NULL))
		failf("send Data-Out on cid %u", 0);
	free(blk);
	/* a task of cid 1 not reassigned: it ends after 0 + 1 s */
	if (write_pending(&b, &itt2, &ttt2)) {
		failf("answers: WRITE on cid 1");
		return;
	}
	a.cmdsn = b.cmdsn;
	ir_abort(&b, true);
	usleep(2500000);
	as.cmdsn = a.cmdsn;
	if (login(&b, &as, 1, iname, 2, 1)) {
		failf("answers: login cid 1 again");
		return;
	}
	expired = tmf_answer(&b, itt2);
	a.cmdsn = b.cmdsn;
	ir_logout(&a, &rsp);
	ir_close(&a);
	ir_close(&b);

	snprintf(iname, sizeof(iname), "%s-erl1", S.args.iname);
	if (login(&a, &erl1_sess, 0, iname, 1, 1)) {
		failf("answers: ERL 1 login");
		return;
	}
	erl1 = tmf_answer(&a, 0x1234);
	ir_logout(&a, &rsp);
	ir_close(&a);
	printf("answers allegiant %d unknown %d expired %d erl1 %d\n", allegiant, unknown, expired,
	       erl1);
	if (allegiant != 3 || unknown != 1 || expired != 1 || erl1 != 4)
		failf("answers: %d %d %d %d, want 3 1 1 4", allegiant, unknown, expired, erl1);
}

int main(int argc, char **argv)
{
	const struct ir_opt opts[] = {
	    {'n', IR_OPT_UINT, &S.nconns},	 {'d', IR_OPT_UINT, &S.drops},
	    {'m', IR_OPT_UINT, &S.per_drop},	 {'q', IR_OPT_UINT, &S.depth},
	    {'b', IR_OPT_UINT, &S.maxblk},	 {'T', IR_OPT_UINT, &S.t2r},
	    {'A', IR_OPT_FLAG, &S.answers},	 {'H', IR_OPT_STR, &S.hold},
	    {'O', IR_OPT_FLAG, &S.out_of_order},
	};
	struct ir_scsi_result res;
	unsigned dropped = 0;
	uint64_t last_cmds = 0, last_drop_cmds = 0;
	int64_t last_progress;

	S.nconns = 4;
	S.drops = 50;
	S.per_drop = 40;
	S.depth = 4;
	S.maxblk = 64;
	S.t2r = 20;
	S.itt = 1;
	if (ir_tool_getopt(argc, argv, opts, ARRAY_SIZE(opts), &S.args) || !S.nconns ||
	    S.nconns > MAX_CONNS || !S.depth || S.depth > MAX_DEPTH || !S.maxblk ||
	    S.maxblk > 128 || S.drops > MAX_DROPS)
		goto usage;
	S.bs = 512;
	S.recov = calloc(MAX_DROPS, sizeof(*S.recov));
	srand(7);
	if (S.answers) {
		answers();
		if (S.why[0]) {
			printf("FAIL %s\n", S.why);
			return 1;
		}
	}
	for (unsigned i = 0; i < S.nconns; i++) {
		S.x[i].cid = (uint16_t)i;
		for (unsigned k = 0; k < MAX_DEPTH; k++)
			S.x[i].t[k].buf = malloc(128u * 4096u);
		if (xlogin(&S.x[i])) {
			printf("FAIL %s\n", S.why);
			return 2;
		}
	}
	printf("session tsih %u erl %u conns %u\n", S.sess.tsih, S.sess.p.erl, S.nconns);
	if (S.sess.p.erl != 2) {
		printf("FAIL ErrorRecoveryLevel %u negotiated\n", S.sess.p.erl);
		return 1;
	}
	/* the power-on UNIT ATTENTION, and the block size */
	S.x[0].c.cmdsn = S.sess.cmdsn;
	for (int k = 0; k < 3; k++) {
		uint64_t nb;

		if (!ir_read_capacity16(&S.x[0].c, 0, &nb, &S.bs, &res) && !res.status)
			break;
	}
	S.sess.cmdsn = S.x[0].c.cmdsn;
	last_progress = ir_now_us();
	while (!S.why[0]) {
		bool stop = dropped >= S.drops && S.cmds - last_drop_cmds >= S.per_drop;
		bool due = !stop && !S.pending && dropped < S.drops &&
			   S.cmds - last_drop_cmds >= S.per_drop;
		unsigned v = dropped % S.nconns;

		for (unsigned i = 0; i < S.nconns; i++) {
			/* -O: a slot of the connection to drop stays free for
			 * the command lost with it */
			unsigned most = due && S.out_of_order && i == v ? S.depth - 1 : S.depth;

			for (unsigned k = 0; k < S.depth && !stop; k++)
				if (S.x[i].up && !S.x[i].t[k].busy && busy_on(&S.x[i]) < most &&
				    !recovering(&S.x[i]) &&
				    ir_sn_lt(S.sess.cmdsn, S.x[i].c.max_cmdsn + 1))
					start(&S.x[i], k, true);
			resend_late(&S.x[i],
				    stop || !ir_sn_lt(S.sess.cmdsn, S.x[i].c.max_cmdsn + 1));
		}
		if (stop && !busy_count())
			break;
		if (due && (!S.out_of_order || busy_on(&S.x[v]) < S.depth)) {
			drop(v, dropped % 2);
			dropped++;
			last_drop_cmds = S.cmds;
			continue;
		}
		pump(10, &(int){0});
		if (S.cmds != last_cmds) {
			last_cmds = S.cmds;
			last_progress = ir_now_us();
		} else if (ir_now_us() - last_progress > STALL_US) {
			S.lost = busy_count();
			failf("no progress for %d s: %" PRIu64 " commands lost", STALL_US / 1000000,
			      S.lost);
			for (unsigned i = 0; i < S.nconns; i++)
				for (unsigned k = 0; k < S.depth; k++) {
					const struct task *t = &S.x[i].t[k];

					if (t->busy)
						printf("lost cid %u ITT 0x%08x CmdSN %u %s got %u "
						       "tmf %u/%d/%d in_drop %d (ExpCmdSN %u "
						       "MaxCmdSN %u)\n",
						       S.x[i].cid, t->itt, t->cmdsn,
						       t->write ? "write" : "read", t->got,
						       t->tmf_try, t->tmf_open, t->resend,
						       t->in_drop, S.x[i].c.exp_cmdsn,
						       S.x[i].c.max_cmdsn);
				}
		}
	}
	printf("drops %u reset %" PRIu64 " logout %" PRIu64 "\n", dropped, S.n_reset, S.n_logout);
	printf("io commands %" PRIu64 " reads %" PRIu64 " writes %" PRIu64 " bytes %" PRIu64
	       " mismatches %" PRIu64 " failed %" PRIu64 " lost %" PRIu64 "\n",
	       S.cmds, S.reads, S.writes, S.bytes, S.mismatches, S.failed, S.lost);
	printf("reassign tasks %" PRIu64 " complete %" PRIu64 " not_found %" PRIu64
	       " allegiant %" PRIu64 " resent_behind %" PRIu64 "\n",
	       S.n_tasks, S.n_complete, S.n_not_found, S.n_allegiant, S.n_behind);
	if (S.out_of_order && dropped && !S.n_behind)
		failf("-O: no command resent behind a newer one (%u drops, not_found %" PRIu64 ")",
		      dropped, S.n_not_found);
	if (S.nrecov) {
		qsort(S.recov, S.nrecov, sizeof(*S.recov), cmp64);
		printf("recovery median_us %" PRId64 " p99_us %" PRId64 " max_us %" PRId64 "\n",
		       S.recov[S.nrecov / 2], S.recov[(S.nrecov * 99) / 100],
		       S.recov[S.nrecov - 1]);
	}
	fflush(stdout);
	if (S.hold && !S.why[0])
		ir_hold(S.hold);
	if (S.why[0]) {
		printf("FAIL %s\n", S.why);
		return 1;
	}
	{
		uint8_t rsp;

		S.x[0].c.cmdsn = S.sess.cmdsn;
		ir_logout(&S.x[0].c, &rsp);
	}
	printf("OK\n");
	return 0;
usage:
	fprintf(stderr, "usage: erl2 HOST:PORT TARGET INITIATOR [-n N] [-d DROPS] [-m CMDS] "
			"[-q DEPTH] [-b BLOCKS] [-T SECONDS] [-A] [-H FILE] [-O]\n");
	return 2;
}
