/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pinload.c: sessions that pin as much write buffer as the target lets them.
 *
 *   pinload --addr HOST:PORT --target IQN --sessions N [--writes W]
 *           [--len BYTES] [--source-base 127.1.0.0] [--sources K]
 *           [--pid PID] [--hold-ms MS] [--max-pinned-mib M]
 *
 * Each session logs in with InitialR2T=Yes and ImmediateData=No and sends W
 * WRITE(16) commands of BYTES each (default: as many as the window allows,
 * 1 MiB; within the first 32 x BYTES of LUN 0) without ever sending their
 * Data-Out: every one the target accepts
 * waits for data with its buffer allocated (the target answers it with an
 * R2T), the rest end at once (TASK SET FULL, BUSY). Sessions come from K
 * source addresses base+1 .. base+K (127.0.0.0/8 all reaches the loopback
 * device), so that caps per address are not what limits them.
 *
 * It answers NOP-Ins (the sessions stay) and reports, per run: sessions
 * logged in, commands sent, R2Ts (accepted: pinned bytes = R2Ts x BYTES as
 * the target sees it; a run shorter than data_out_timeout, so that none of
 * them ends meanwhile), TASK SET FULL / BUSY / other statuses, and the target's VmRSS (from
 * /proc/PID/status) before and while everything is held. With --max-pinned-mib M it fails (exit 1)
 * when the target accepted more than M MiB of unanswered writes in all, or when one session holds
 * more than its share; it also fails when a session could not log in. Exit 0 otherwise. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

struct sess {
	struct ir_conn c;
	char source[32];
	unsigned sent, r2ts, tsf, busy, other;
};

static long vmrss_kib(long pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

/* One WRITE(16) of len bytes at lba, F=1, no data: the target must solicit
 * all of it with R2Ts (InitialR2T=Yes). */
static int send_write(struct sess *s, uint64_t lba, uint32_t len, uint32_t bs)
{
	struct ir_pdu p;
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	memset(&p, 0, sizeof(p));
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
	put_be32(h->itt, ir_next_itt(&s->c));
	put_be32(h->exp_xfer_len, len);
	put_be32(h->cmdsn, s->c.cmdsn++);
	put_be32(h->exp_statsn, s->c.expstatsn);
	h->cdb[0] = 0x8a;
	put_be64(h->cdb + 2, lba);
	put_be32(h->cdb + 10, len / bs);
	s->sent++;
	return ir_send_pdu(&s->c, &p);
}

/* RFC 7143 11.18: a NOP-In that asks for an answer gets a NOP-Out. */
static void nop_answer(struct sess *s, const struct ir_pdu *in)
{
	struct ir_pdu out;
	struct ir_bhs_req *r = &out.bhs.req;

	memset(&out, 0, sizeof(out));
	r->opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
	r->flags = IR_FLAG_FINAL;
	memcpy(r->lun, in->bhs.rsp.lun, 8);
	put_be32(r->itt, IR_RSVD_TAG);
	memcpy(r->ttt, in->bhs.rsp.ttt, 4);
	put_be32(r->cmdsn, s->c.cmdsn);
	put_be32(r->exp_statsn, s->c.expstatsn);
	ir_send_pdu(&s->c, &out);
}

/* Take every PDU that has arrived (wait at most ms for the first). */
static void drain(struct sess *s, int ms)
{
	struct ir_pdu p;

	while (s->c.fd >= 0 && ir_recv_pdu(&s->c, &p, ms) == 0) {
		switch (ir_pdu_opcode(&p)) {
		case IR_OP_R2T:
			s->r2ts++;
			break;
		case IR_OP_NOP_IN:
			if (get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG)
				nop_answer(s, &p); /* keep the session alive */
			break;
		case IR_OP_SCSI_RSP:
			if (p.bhs.scsi_rsp.status == 0x28)
				s->tsf++;
			else if (p.bhs.scsi_rsp.status == 0x08)
				s->busy++;
			else
				s->other++;
			break;
		default:
			break;
		}
		ir_pdu_free(&p);
		ms = 0;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: pinload --addr HOST:PORT --target IQN --sessions N [--writes W] "
			"[--len BYTES] [--source-base A.B.C.0] [--sources K] [--pid PID] "
			"[--hold-ms MS] [--max-pinned-mib M] [--share-mib S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *target = NULL, *base = "127.1.0.0";
	unsigned nsess = 0, writes = 0, nsrc = 250, len = 1u << 20;
	long pid = 0, hold_ms = 2000, max_pinned_mib = -1, share_mib = -1;
	static const struct option opts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"sessions", required_argument, NULL, 's'},
	    {"writes", required_argument, NULL, 'w'},
	    {"len", required_argument, NULL, 'l'},
	    {"source-base", required_argument, NULL, 'b'},
	    {"sources", required_argument, NULL, 'k'},
	    {"pid", required_argument, NULL, 'p'},
	    {"hold-ms", required_argument, NULL, 'h'},
	    {"max-pinned-mib", required_argument, NULL, 'm'},
	    {"share-mib", required_argument, NULL, 'S'},
	    {NULL, 0, NULL, 0},
	};
	unsigned logged = 0, b0, b1, b2, b3;
	unsigned long long sent = 0, r2ts = 0, tsf = 0, busy = 0, other = 0, worst = 0;
	char host[256], port[16];
	long rss0, rss1;
	struct sess *s;
	struct rlimit rl;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			target = optarg;
			break;
		case 's':
			nsess = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			writes = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'l':
			len = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			base = optarg;
			break;
		case 'k':
			nsrc = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'p':
			pid = strtol(optarg, NULL, 10);
			break;
		case 'h':
			hold_ms = strtol(optarg, NULL, 10);
			break;
		case 'm':
			max_pinned_mib = strtol(optarg, NULL, 10);
			break;
		case 'S':
			share_mib = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (!addr || !target || !nsess || !nsrc || len < 512 || len % 512 ||
	    sscanf(base, "%u.%u.%u.%u", &b0, &b1, &b2, &b3) != 4 ||
	    ir_parse_addr(addr, host, sizeof(host), port, sizeof(port)))
		usage();
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < nsess + 64) {
		rl.rlim_cur = rl.rlim_max < nsess + 64 ? rl.rlim_max : nsess + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s = calloc(nsess, sizeof(*s));
	if (!s)
		return 1;
	rss0 = pid ? vmrss_kib(pid) : -1;
	for (unsigned i = 0; i < nsess; i++) {
		unsigned k = i % nsrc + 1;
		char iname[96];
		struct ir_login_opts lo = {
		    .initiator_name = iname,
		    .target_name = target,
		    .initial_r2t = 1,
		    .immediate_data = 0,
		};

		ir_conn_init(&s[i].c);
		snprintf(s[i].source, sizeof(s[i].source), "%u.%u.%u.%u", b0, b1,
			 b2 + (b3 + k) / 256, (b3 + k) % 256);
		s[i].c.source = s[i].source;
		snprintf(iname, sizeof(iname), "iqn.2026-12.org.utarget.test:pin%u", i);
		if (ir_connect(&s[i].c, host, port, 5000) || ir_login(&s[i].c, &lo)) {
			fprintf(stderr, "pinload: session %u from %s: %s\n", i, s[i].source,
				s[i].c.err[0] ? s[i].c.err : "login failed");
			ir_close(&s[i].c);
			continue;
		}
		logged++;
		{
			/* the unit attention of a new I_T nexus first */
			struct ir_scsi_result r;

			ir_test_unit_ready(&s[i].c, 0, &r);
			ir_test_unit_ready(&s[i].c, 0, &r);
		}
		/* as many as the window allows unless told otherwise */
		for (unsigned w = 0;
		     (writes ? w < writes : ir_sn_lt(s[i].c.cmdsn, s[i].c.max_cmdsn + 1)); w++)
			if (send_write(&s[i], (uint64_t)(w % 32) * (len / 512), len, 512))
				break;
		drain(&s[i], 0);
	}
	for (unsigned i = 0; i < nsess; i++)
		drain(&s[i], 0);
	/* a probe may run now (hardening/pin-flood waits for this line) */
	printf("pinload: holding for %ld ms\n", hold_ms);
	fflush(stdout);
	{
		const struct timespec ts = {.tv_sec = hold_ms / 1000,
					    .tv_nsec = hold_ms % 1000 * 1000000};

		nanosleep(&ts, NULL);
	}
	for (unsigned i = 0; i < nsess; i++) {
		drain(&s[i], 0);
		sent += s[i].sent;
		r2ts += s[i].r2ts;
		tsf += s[i].tsf;
		busy += s[i].busy;
		other += s[i].other;
		if (s[i].r2ts > worst)
			worst = s[i].r2ts;
	}
	rss1 = pid ? vmrss_kib(pid) : -1;
	printf("pinload: %u/%u sessions from %u addresses, %llu WRITEs of %u bytes sent without "
	       "data: %llu accepted (R2T; %llu MiB pinned, at most %llu MiB by one session), "
	       "%llu TASK SET FULL, %llu BUSY, %llu other (ended after their R2T)\n",
	       logged, nsess, nsrc < nsess ? nsrc : nsess, sent, len, r2ts, r2ts * len >> 20,
	       worst * len >> 20, tsf, busy, other);
	if (pid)
		printf("pinload: target VmRSS %ld KiB before, %ld KiB with everything held\n", rss0,
		       rss1);
	for (unsigned i = 0; i < nsess; i++)
		ir_abort(&s[i].c, true);
	free(s);
	if (logged != nsess)
		return 1;
	if (max_pinned_mib >= 0 && (long long)(r2ts * len >> 20) > max_pinned_mib) {
		printf("pinload: FAIL: %llu MiB pinned, more than %ld MiB\n", r2ts * len >> 20,
		       max_pinned_mib);
		return 1;
	}
	if (share_mib >= 0 && (long long)(worst * len >> 20) > share_mib) {
		printf("pinload: FAIL: one session pinned %llu MiB, more than its %ld MiB\n",
		       worst * len >> 20, share_mib);
		return 1;
	}
	return 0;
}
