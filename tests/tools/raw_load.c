/* SPDX-License-Identifier: GPL-2.0-or-later */
/* raw_load: a load generator on the project's raw initiator, for what
 * libiscsi (bench/ut-load) cannot do: DataDigest (issue 15's digest goal,
 * bench/run.sh case randread-4k-qd32-digests).
 *
 *   raw_load HOST:PORT TARGET INITIATOR [options]
 *
 *   -m MODE     read (default) or write
 *   -s BYTES    transfer size (default 4096; a multiple of the block size;
 *               a write sends it all as immediate data, so at most
 *               FirstBurstLength and the target's MaxRecvDataSegmentLength)
 *   -q QD       commands kept outstanding (default 32, at most 1024)
 *   -t SECONDS  run time (default 10)
 *   -l LUN      (default 0)
 *   -H          HeaderDigest=CRC32C, required (the login fails without it)
 *   -D          DataDigest=CRC32C, required
 *
 * One session, one connection, READ(16) or WRITE(16) of -s bytes at random
 * aligned LBAs over the whole LUN, SIMPLE. Every PDU is sent with one
 * send() (header, data and digests together) and received through the raw
 * initiator's decoder, which checks both digests; a digest error ends the
 * run as a failure. Read data is not compared (the LUN's content is not
 * known here); its length and the status are. Write data is one buffer of
 * pseudo-random bytes whose first 8 bytes count the writes, so that every
 * write changes the blocks it overwrites.
 *
 * stdout (one line, the keys of bench/ut-load): ios=N seconds=S iops=..
 * mbps=.. lat_mean_us=.. errors=E. Exit 0 when every command completed
 * GOOD, 1 otherwise, 2 on usage or login errors. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iscsi_raw.h"
#include "lib/endian.h"

#define QD_MAX 1024u
/* An ITT is the slot in its low 10 bits and 21 bits of a generation count
 * above them, so no ITT is the reserved 0xffffffff. */
#define ITT_SLOT 0x3ffu

struct slot {
	int64_t start_us;
	uint32_t got; /* Data-In bytes of a read */
	bool busy;
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: the LBAs only need to spread */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

static void usage(void)
{
	fprintf(stderr, "usage: raw_load HOST:PORT TARGET INITIATOR [-m read|write] [-s BYTES] "
			"[-q QD] [-t SECONDS] [-l LUN] [-H] [-D]\n");
	exit(2);
}

/* Send the command of slot s: READ(16) or WRITE(16) with all its data
 * immediate. */
static int submit(struct ir_conn *c, struct slot *sl, unsigned s, uint32_t gen, bool write,
		  uint64_t lun, uint64_t lba, uint32_t blocks, uint8_t *wbuf, uint32_t size)
{
	struct ir_pdu p = {0};
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	h->opcode = IR_OP_SCSI_CMD;
	h->flags =
	    (uint8_t)(IR_FLAG_FINAL | IR_CMD_ATTR_SIMPLE | (write ? IR_CMD_WRITE : IR_CMD_READ));
	ir_lun_encode(lun, h->lun);
	put_be32(h->itt, (gen << 10) | s);
	put_be32(h->exp_xfer_len, size);
	put_be32(h->cmdsn, c->cmdsn++);
	put_be32(h->exp_statsn, c->expstatsn);
	h->cdb[0] = write ? 0x8a : 0x88;
	put_be64(h->cdb + 2, lba);
	put_be32(h->cdb + 10, blocks);
	if (write) {
		static uint64_t seq;

		/* every write changes what it overwrites (integration/digests:
		 * READs beside a writer): its first bytes are a count. The PDU
		 * is sent before this returns, so wbuf is free again then. */
		put_be64(wbuf, ++seq);
		p.data = wbuf;
		p.data_len = size;
	}
	sl[s].start_us = ir_now_us();
	sl[s].got = 0;
	sl[s].busy = true;
	return ir_send_pdu(c, &p);
}

int main(int argc, char **argv)
{
	const char *mode = "read";
	uint32_t size = 4096, bs = 0;
	unsigned qd = 32, secs = 10, inflight = 0, s;
	uint64_t lun = 0, blocks = 0, ios = 0, errors = 0, lat_sum = 0;
	bool hd = false, dd = false, write, stopping = false;
	const struct ir_opt opts[] = {
	    {'m', IR_OPT_STR, &mode},  {'s', IR_OPT_U32, &size}, {'q', IR_OPT_UINT, &qd},
	    {'t', IR_OPT_UINT, &secs}, {'l', IR_OPT_U64, &lun},	 {'H', IR_OPT_FLAG, &hd},
	    {'D', IR_OPT_FLAG, &dd},
	};
	struct ir_tool_args a;
	struct ir_login_opts lo = {0};
	struct ir_scsi_result res;
	struct ir_conn c;
	struct slot *sl;
	uint8_t *wbuf;
	uint32_t gen = 1;
	int64_t t0, t1, end;
	int rc;

	if (ir_tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), &a))
		usage();
	write = !strcmp(mode, "write");
	if ((!write && strcmp(mode, "read")) || !size || qd < 1 || qd > QD_MAX || !secs)
		usage();
	ir_conn_init(&c);
	c.timeout_ms = 30000;
	lo.initiator_name = a.iname;
	lo.target_name = a.target;
	lo.header_digest = hd;
	lo.data_digest = dd;
	lo.digest_only = hd || dd;
	lo.immediate_data = 1;
	lo.initial_r2t = 1;
	if (ir_connect(&c, a.host, a.port, 5000) || ir_login(&c, &lo)) {
		fprintf(stderr, "raw_load: login failed: %s\n", c.err);
		return 2;
	}
	if ((hd && !c.hdigest) || (dd && !c.ddigest) || (!hd && c.hdigest) || (!dd && c.ddigest)) {
		char hv[64] = "-", dv[64] = "-";

		ir_login_answer(&c, "HeaderDigest", hv, sizeof(hv));
		ir_login_answer(&c, "DataDigest", dv, sizeof(dv));
		fprintf(stderr,
			"raw_load: the digests asked for were not negotiated (HeaderDigest=%s "
			"DataDigest=%s)\n",
			hv, dv);
		return 2;
	}
	/* the first command of a new nexus may get its unit attention */
	for (int i = 0; i < 3; i++) {
		rc = ir_read_capacity16(&c, lun, &blocks, &bs, &res);
		if (!rc && !res.status)
			break;
	}
	if (rc || res.status || !bs || size % bs || blocks < size / bs) {
		fprintf(stderr, "raw_load: READ CAPACITY(16) failed or size does not fit\n");
		return 2;
	}
	if (write && (!c.p.immediate_data || size > c.p.first_burst || size > c.p.target_mrdsl)) {
		fprintf(stderr, "raw_load: a write of %u bytes does not fit in immediate data\n",
			size);
		return 2;
	}
	sl = calloc(qd, sizeof(*sl));
	wbuf = malloc(size);
	if (!sl || !wbuf)
		return 1;
	for (uint32_t i = 0; i < size; i++)
		wbuf[i] = (uint8_t)rnd();
	t0 = ir_now_us();
	end = t0 + (int64_t)secs * 1000000;
	for (s = 0; s < qd; s++) {
		if (ir_sn_lt(c.max_cmdsn, c.cmdsn))
			break; /* the window is shut: the rest as answers open it */
		if (submit(&c, sl, s, gen, write, lun, rnd() % (blocks / (size / bs)) * (size / bs),
			   size / bs, wbuf, size))
			return 1;
		inflight++;
	}
	while (inflight) {
		struct ir_pdu p;
		uint8_t op, status = 0;
		bool done = false;
		uint32_t itt;

		rc = ir_recv_pdu(&c, &p, -1);
		if (rc) {
			fprintf(stderr, "raw_load: receive: %s (%s)\n", strerror(-rc), c.err);
			return 1;
		}
		op = ir_pdu_opcode(&p);
		itt = ir_pdu_itt(&p);
		s = itt & ITT_SLOT;
		if (op == IR_OP_NOP_IN || op == IR_OP_ASYNC_MSG) {
			/* a ping asks for a NOP-Out (RFC 7143 11.19.3); an Async
			 * Message is not this load's business */
			rc = op == IR_OP_NOP_IN ? ir_answer_nopin(&c, &p) : 0;
			ir_pdu_free(&p);
			if (rc)
				return 1;
			continue;
		}
		if ((op != IR_OP_DATA_IN && op != IR_OP_SCSI_RSP) || s >= qd || !sl[s].busy) {
			fprintf(stderr, "raw_load: unexpected %s itt 0x%x\n", ir_opcode_name(op),
				itt);
			return 1;
		}
		if (op == IR_OP_DATA_IN) {
			sl[s].got += p.data_len;
			if (p.bhs.data.flags & IR_DATAIN_STATUS) {
				done = true;
				status = p.bhs.data.status;
			}
		} else {
			done = true;
			status = p.bhs.scsi_rsp.response ? 0xff : p.bhs.scsi_rsp.status;
		}
		ir_pdu_free(&p);
		if (!done)
			continue;
		t1 = ir_now_us();
		if (status || (!write && sl[s].got != size))
			errors++;
		ios++;
		lat_sum += (uint64_t)(t1 - sl[s].start_us);
		sl[s].busy = false;
		inflight--;
		stopping = stopping || t1 >= end;
		if (stopping)
			continue;
		/* this slot and any the window kept back */
		for (unsigned k = 0; k < qd && !ir_sn_lt(c.max_cmdsn, c.cmdsn); k++) {
			unsigned n = (s + k) % qd;

			if (sl[n].busy)
				continue;
			gen++;
			if (submit(&c, sl, n, gen & 0x1fffff, write, lun,
				   rnd() % (blocks / (size / bs)) * (size / bs), size / bs, wbuf,
				   size))
				return 1;
			inflight++;
		}
	}
	t1 = ir_now_us();
	{
		double sec = (double)(t1 - t0) / 1e6;

		printf("ios=%" PRIu64 " seconds=%.3f iops=%.1f mbps=%.1f lat_mean_us=%.2f "
		       "errors=%" PRIu64 "\n",
		       ios, sec, (double)ios / sec, (double)ios * size / sec / 1e6,
		       ios ? (double)lat_sum / (double)ios : 0.0, errors);
	}
	rc = ir_logout(&c, NULL);
	ir_close(&c);
	free(sl);
	free(wbuf);
	return errors || rc ? 1 : 0;
}
