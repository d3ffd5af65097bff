/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed: the malformed-input suite. Each case (malformed_login.c,
 * malformed_ffp.c; the model in malformed.h) sends one
 * kind of malformed or out-of-contract input over a fresh connection and
 * compares what the target does with the outcomes RFC 7143 (and SPC-4/SAM-5
 * for residuals) allow, cited next to the case. After every case a new
 * session must log in and complete a command ("daemon still serving"), and
 * the daemon's process (--pid) must still be alive.
 *
 * usage: malformed --addr HOST:PORT --target IQN [--lun N] [--pid PID]
 *                  [--repeat N] [--case NAME]... [--list] [-v]
 * Exit status 0 when every case matched, 1 otherwise, 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "lib/endian.h"
#include "malformed.h"

/* clang-format off */
const char *const mf_kind_names[] = {
	[MF_GOOD] = "GOOD",
	[MF_RESIDUAL] = "RESIDUAL",
	[MF_CHECK] = "CHECK-CONDITION",
	[MF_REJECT] = "REJECT",
	[MF_LOGIN_FAIL] = "LOGIN-FAIL",
	[MF_DROP] = "DROP",
	[MF_IGNORED] = "IGNORED",
	[MF_TIMEOUT] = "TIMEOUT",
	[MF_ERROR] = "ERROR",
};
/* clang-format on */

struct mf_outcome mf_out(enum mf_kind k, int a, int b, int c)
{
	struct mf_outcome o = {.kind = k, .a = a, .b = b, .c = c};

	return o;
}

/* ---- helpers ---- */

void mf_std_opts(const struct mf_ctx *x, struct ir_login_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->initiator_name = x->initiator;
	o->target_name = x->target;
	o->initial_r2t = -1;
	o->immediate_data = -1;
}

int mf_connect(struct mf_ctx *x, struct ir_conn *c)
{
	int rc;

	ir_conn_init(c);
	c->timeout_ms = 5000;
	rc = ir_connect(c, x->host, x->port, 3000);
	if (rc)
		NOTE(x, "connect: %s", strerror(-rc));
	return rc;
}

int mf_login(struct mf_ctx *x, struct ir_conn *c, const struct ir_login_opts *o)
{
	int rc = mf_connect(x, c);

	if (rc)
		return rc;
	rc = ir_login(c, o);
	if (rc)
		NOTE(x, "login: %s (%s) status %02x/%02x", strerror(-rc), c->err, c->login_class,
		     c->login_detail);
	return rc;
}

/* TEST UNIT READY until GOOD, tolerating unit attentions (SPC-4 5.14). */
int mf_tur_good(struct ir_conn *c, uint64_t lun)
{
	struct ir_scsi_result r;
	int i, rc;

	for (i = 0; i < 4; i++) {
		rc = ir_test_unit_ready(c, lun, &r);
		if (rc)
			return rc;
		if (r.status == 0)
			return 0;
	}
	return -EIO;
}

/* Classifies the next PDU (or its absence) on c. */
struct mf_outcome mf_observe(struct mf_ctx *x, struct ir_conn *c, int wait_ms)
{
	struct ir_pdu p;
	int rc = ir_recv_pdu(c, &p, wait_ms);
	struct mf_outcome o;

	if (rc == -ECONNRESET)
		return mf_out(MF_DROP, 0, 0, 0);
	if (rc == -ETIMEDOUT)
		return mf_out(MF_TIMEOUT, 0, 0, 0);
	if (rc) {
		NOTE(x, "receive: %s", strerror(-rc));
		return mf_out(MF_ERROR, 0, 0, 0);
	}
	switch (ir_pdu_opcode(&p)) {
	case IR_OP_REJECT:
		o = mf_out(MF_REJECT, p.bhs.reject.reason, 0, 0);
		break;
	case IR_OP_LOGIN_RSP:
		o = p.bhs.login_rsp.status_class
			? mf_out(MF_LOGIN_FAIL, p.bhs.login_rsp.status_class,
				 p.bhs.login_rsp.status_detail, 0)
			: mf_out(MF_GOOD, 0, 0, 0);
		break;
	case IR_OP_SCSI_RSP: {
		struct ir_scsi_result r = {0};
		uint8_t k = 0, a = 0, q = 0;

		r.status = p.bhs.scsi_rsp.status;
		if (p.data_len >= 2) {
			r.sense_len = UT_MIN(get_be16(p.data), (uint32_t)sizeof(r.sense));
			r.sense_len = UT_MIN(r.sense_len, p.data_len - 2);
			memcpy(r.sense, p.data + 2, r.sense_len);
		}
		if (r.status == 2 && ir_sense_parse(&r, &k, &a, &q))
			o = mf_out(MF_CHECK, k, a, q);
		else if (r.status == 0)
			o = mf_out(MF_GOOD, 0, 0, 0);
		else
			o = mf_out(MF_CHECK, MF_ANY, r.status, 0);
		break;
	}
	case IR_OP_NOP_IN:
		NOTE(x, "the target answered with a NOP-In (accepted the PDU)");
		o = mf_out(MF_GOOD, 0, 0, 0);
		break;
	default:
		NOTE(x, "unexpected %s", ir_opcode_name(ir_pdu_opcode(&p)));
		o = mf_out(MF_ERROR, 0, 0, 0);
	}
	ir_pdu_free(&p);
	return o;
}

/* After a Reject the connection may be closed by the target; DROP within a
 * short time is then also part of the same outcome (and not an error). */
struct mf_outcome mf_then_maybe_drop(struct mf_ctx *x, struct ir_conn *c, struct mf_outcome o)
{
	(void)x;
	if (o.kind == MF_REJECT)
		ir_wait_closed(c, 300, NULL);
	return o;
}

/* Outcome of a completed SCSI exchange. */
struct mf_outcome mf_scsi_outcome(struct mf_ctx *x, struct ir_conn *c, int rc,
				  const struct ir_scsi_result *r)
{
	uint8_t k, a, q;

	if (rc == -ECONNRESET)
		return mf_out(MF_DROP, 0, 0, 0);
	if (rc == -ETIMEDOUT)
		return mf_out(MF_TIMEOUT, 0, 0, 0);
	if (rc) {
		NOTE(x, "%s: %s", strerror(-rc), c->err);
		return mf_out(MF_ERROR, 0, 0, 0);
	}
	if (r->rejected)
		return mf_out(MF_REJECT, r->reject_reason, 0, 0);
	if (r->status == 2) {
		if (ir_sense_parse(r, &k, &a, &q))
			return mf_out(MF_CHECK, k, a, q);
		return mf_out(MF_CHECK, MF_ANY, 0, 0);
	}
	if (r->status)
		return mf_out(MF_CHECK, MF_ANY, r->status, 0);
	if (r->flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW))
		return mf_out(MF_RESIDUAL, r->flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW),
			      (int)r->residual, 0);
	return mf_out(MF_GOOD, 0, 0, 0);
}

/* A NOP ping proves the connection still works. */
bool mf_conn_alive(struct ir_conn *c)
{
	static const char ping[] = "still-there";

	return ir_nop_ping(c, ping, sizeof(ping)) == 0;
}

/* Expected residual counts are relative to the block size: -2 = one block,
 * -3 = 10000 minus one block. */
static bool matches(const struct mf_ctx *x, const struct mf_outcome *want,
		    const struct mf_outcome *got)
{
	int b = want->b;

	if (want->kind != got->kind)
		return false;
	if (want->kind == MF_RESIDUAL) {
		if (b == -2)
			b = (int)x->block_size;
		else if (b == -3)
			b = 10000 - (int)x->block_size;
	}
	return (want->a == MF_ANY || want->a == got->a) && (b == MF_ANY || b == got->b) &&
	       (want->c == MF_ANY || want->c == got->c);
}

static const char *fmt_outcome(const struct mf_outcome *o, char *buf, size_t n)
{
	switch (o->kind) {
	case MF_CHECK:
		snprintf(buf, n, "CHECK-CONDITION %02x/%02x/%02x", o->a & 0xff, o->b, o->c);
		break;
	case MF_REJECT:
		snprintf(buf, n, "REJECT 0x%02x", o->a);
		break;
	case MF_LOGIN_FAIL:
		snprintf(buf, n, "LOGIN-FAIL %02x/%02x", o->a, o->b);
		break;
	case MF_RESIDUAL:
		snprintf(buf, n, "RESIDUAL %s %d", o->a == IR_RSP_OVERFLOW ? "O" : "U", o->b);
		break;
	default:
		snprintf(buf, n, "%s", mf_kind_names[o->kind]);
	}
	return buf;
}

/* A fresh session logs in and completes a command. */
static bool still_serving(struct mf_ctx *x, pid_t pid, char *why, size_t n)
{
	struct ir_login_opts o;
	struct ir_conn c;
	uint8_t resp = 0xff;
	int rc;

	if (pid > 0 && kill(pid, 0) != 0) {
		snprintf(why, n, "daemon pid %d is gone", (int)pid);
		return false;
	}
	char saved[sizeof(x->note)];

	memcpy(saved, x->note, sizeof(saved));
	mf_std_opts(x, &o);
	rc = mf_login(x, &c, &o);
	if (!rc)
		rc = mf_tur_good(&c, x->lun);
	if (!rc)
		rc = ir_logout(&c, &resp);
	ir_close(&c);
	if (rc)
		snprintf(why, n, "a new session failed: %s (%s)", strerror(-rc > 0 ? -rc : EIO),
			 x->note);
	memcpy(x->note, saved, sizeof(saved));
	return rc == 0;
}

static int probe_lu(struct mf_ctx *x)
{
	struct ir_login_opts o;
	struct ir_conn c;
	struct ir_scsi_result r;
	int rc;

	mf_std_opts(x, &o);
	rc = mf_login(x, &c, &o);
	if (!rc)
		rc = mf_tur_good(&c, x->lun);
	if (!rc)
		rc = ir_read_capacity16(&c, x->lun, &x->blocks, &x->block_size, &r);
	if (!rc && (r.status || !x->block_size))
		rc = -EIO;
	ir_close(&c);
	return rc;
}

static size_t n_cases(void)
{
	return mf_login_cases_n + mf_chap_cases_n + mf_ffp_cases_n;
}

static const struct mf_case *case_at(size_t i)
{
	if (i < mf_login_cases_n)
		return &mf_login_cases[i];
	i -= mf_login_cases_n;
	if (i < mf_chap_cases_n)
		return &mf_chap_cases[i];
	return &mf_ffp_cases[i - mf_chap_cases_n];
}

static void usage(void)
{
	fprintf(stderr, "usage: malformed --addr HOST:PORT --target IQN [--lun N] [--pid PID] "
			"[--initiator IQN] [--repeat N] [--case NAME]... [--list] [-v]\n"
			"                 [--chap-target IQN --chap-user U --chap-secret S "
			"--mutual-user U --mutual-secret S]\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"initiator", required_argument, NULL, 'i'},
	    {"lun", required_argument, NULL, 'l'},
	    {"pid", required_argument, NULL, 'p'},
	    {"case", required_argument, NULL, 'c'},
	    {"repeat", required_argument, NULL, 'r'},
	    {"list", no_argument, NULL, 'L'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"chap-target", required_argument, NULL, 1},
	    {"chap-user", required_argument, NULL, 2},
	    {"chap-secret", required_argument, NULL, 3},
	    {"mutual-user", required_argument, NULL, 4},
	    {"mutual-secret", required_argument, NULL, 5},
	    {0},
	};
	struct mf_ctx x = {.initiator = "iqn.2026-12.org.utarget:malformed", .repeat = 48};
	char host[256], port[16];
	const char *addr = NULL, *only[64];
	int n_only = 0, ch, failed = 0, passed = 0;
	pid_t pid = 0;
	size_t i;

	while ((ch = getopt_long(argc, argv, "a:t:i:l:p:c:r:Lv", lopts, NULL)) != -1) {
		char *end;

		switch (ch) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			x.target = optarg;
			break;
		case 'i':
			x.initiator = optarg;
			break;
		case 'l':
			x.lun = strtoull(optarg, &end, 0);
			if (*end)
				return usage(), 2;
			break;
		case 'p':
			pid = (pid_t)strtol(optarg, &end, 10);
			if (*end)
				return usage(), 2;
			break;
		case 'c':
			if (n_only < (int)ARRAY_SIZE(only))
				only[n_only++] = optarg;
			break;
		case 'r':
			x.repeat = (unsigned)strtoul(optarg, &end, 0);
			if (*end || !x.repeat)
				return usage(), 2;
			break;
		case 'L':
			for (i = 0; i < n_cases(); i++)
				printf("%-36s %s\n    expect: %s\n", case_at(i)->name,
				       case_at(i)->clause, case_at(i)->expect_text);
			return 0;
		case 'v':
			x.verbose++;
			break;
		case 1:
			x.chap_target = optarg;
			break;
		case 2:
			x.chap_user = optarg;
			break;
		case 3:
			x.chap_secret = optarg;
			break;
		case 4:
			x.mutual_user = optarg;
			break;
		case 5:
			x.mutual_secret = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!addr || !x.target || ir_parse_addr(addr, host, sizeof(host), port, sizeof(port))) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	x.host = host;
	x.port = port;
	if (probe_lu(&x)) {
		fprintf(stderr, "malformed: cannot log in to %s at %s: %s\n", x.target, addr,
			x.note);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("malformed: %s lun %llu, %llu blocks of %u bytes\n", x.target,
	       (unsigned long long)x.lun, (unsigned long long)x.blocks, x.block_size);
	for (i = 0; i < n_cases(); i++) {
		const struct mf_case *k = case_at(i);
		struct mf_outcome got;
		char gbuf[64], why[600];
		bool ok = false;
		int j;

		if (n_only) {
			bool sel = false;

			for (j = 0; j < n_only; j++)
				sel |= !strcmp(only[j], k->name);
			if (!sel)
				continue;
		}
		x.note[0] = '\0';
		got = k->run(&x);
		for (j = 0; j < k->n_expect; j++)
			ok |= matches(&x, &k->expect[j], &got);
		why[0] = '\0';
		if (!still_serving(&x, pid, why, sizeof(why)))
			ok = false;
		printf("%s %-36s got %-24s expect %s%s%s%s%s\n", ok ? "PASS" : "FAIL", k->name,
		       fmt_outcome(&got, gbuf, sizeof(gbuf)), k->expect_text,
		       x.note[0] ? " | " : "", x.note, why[0] ? " | NOT SERVING: " : "", why);
		if (x.verbose)
			printf("     clause: %s\n", k->clause);
		if (ok)
			passed++;
		else
			failed++;
		if (why[0] && pid > 0 && kill(pid, 0) != 0)
			break; /* the daemon died: nothing more to learn */
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
