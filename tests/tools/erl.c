/* SPDX-License-Identifier: GPL-2.0-or-later */
/* erl: ErrorRecoveryLevel 1 (RFC 7143 7.1-7.2, 11.16) driven with the
 * project's raw initiator: a mixed WRITE/READ workload, every byte read
 * back checked, while PDUs are damaged on the way out and lost on the way
 * in, and recovered the way ERL 1 does.
 *
 *   erl HOST:PORT TARGET INITIATOR [options]
 *
 *   -n N        connections of the session (MC/S: a leading login, N-1
 *               with its TSIH; MaxConnections 4 offered; default 1), one
 *               thread each, one command outstanding per connection, each
 *               on its own LBA region
 *   -E L        ErrorRecoveryLevel offered (default 1)
 *   -t SECONDS  run for SECONDS (default: -i)
 *   -i IOS      commands per connection (default 200)
 *   -r PERMILLE faults per 1000 PDUs, each way (default 10 = 1 %):
 *               sent: a SCSI Command with immediate data gets a bad data
 *               digest (the target rejects it, 02h; the command is sent
 *               again, same ITT and CmdSN), another PDU a bad header digest
 *               (the target discards it; it is sent again at once, as the
 *               initiator's retransmission), a Data-Out a bad data digest
 *               (rejected, 02h; the target asks for the data again with a
 *               recovery R2T); received: a Data-In, R2T or SCSI Response is
 *               dropped as if lost, and a SNACK asks for it again (Data/R2T
 *               SNACK by DataSN/R2TSN, Status SNACK by StatSN)
 *   -b BLOCKS   largest I/O in blocks (default 128); sizes vary 1..BLOCKS
 *   -B BYTES    MaxBurstLength offered (default 65536): a read longer than
 *               the negotiated one has sequences; at ERL 1 the target sets
 *               the A bit at the end of each but the last (11.7.2), checked
 *               (F, a TTT, the command's LUN, a multiple of MaxBurstLength,
 *               never at ERL 0), and answered with a DataACK (11.16: TTT
 *               and LUN of that Data-In, BegRun the next DataSN) once no
 *               Data-In before it is missing; not sent once the status came
 *   -L LBA      first LBA (default 0)
 *   -H FILE     after the workload print "ready" and wait for FILE (60 s at
 *               most) before the Logout: the session's counters can be read
 *   -S          invalid SNACKs first: a Status SNACK for a StatSN not sent
 *               yet, an R-Data SNACK, a DataACK: "snack_invalid status R
 *               rdata R dataack R" (Reject reasons)
 *   -R N        R-Data (11.16.1 type 3, 11.16.3), N rounds before the
 *               workload (ERL >= 1): a 32 KiB READ of a pattern written
 *               first is completed and checked but its status not
 *               acknowledged (ExpStatSN held at its StatSN, or the target
 *               frees its copies); a Text Request declares a smaller
 *               MaxRecvDataSegmentLength (1024, 512, 1000, 4096 in turn;
 *               answered without a Reject); an R-Data SNACK (the read's
 *               ITT, BegRun 0, RunLength 0, a SNACK Tag in the TTT) asks for
 *               its data again: every Data-In at most the new length, no S
 *               or A bit, DataSN 0, 1, ... (no DataACK), Buffer Offsets
 *               contiguous from 0, F at each MaxBurstLength and at the end
 *               only, the pattern's bytes; then a SCSI Response with the
 *               SNACK Tag, GOOD, no residual, the StatSN of the first
 *               status, ExpDataSN the number of those Data-In. 8192 is
 *               declared again before the next round and the workload
 *
 * Lines: "session ... erl L conns N", "io commands C reads R writes W
 * bytes B mismatches M failed F", "faults hdigest .. ddigest_cmd ..
 * ddigest_data .. lost_datain .. lost_r2t .. lost_status ..", "recovery
 * snacks S retried_cmds R resent_pdus P resent_bytes B retx_received_pdus
 * Q retx_received_bytes Y rejects_digest D", "dataack abits A sent D",
 * with -R "rdata round K mrdsl L datain D first_sent F statsn S" and
 * "rdata rounds N pdus P bytes B" (else "FAIL rdata round K: ..."),
 * "latency
 * p50_us .. p99_us .. max_us ..", then "OK" when every command completed
 * GOOD with the right data, else "FAIL ...". Exit 0 / 1 / 2 (usage,
 * login). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

#define MAX_CONNS 4
#define SEG	  8192u /* our MaxRecvDataSegmentLength and Data-Out size */
#define LAT_MAX	  (1u << 20)

enum { SNACK_DATA = 0, SNACK_STATUS = 1, SNACK_DATAACK = 2, SNACK_RDATA = 3 };

struct econn {
	struct ir_conn c;
	uint16_t cid;
	pthread_t th;
	uint64_t lba0; /* its region */
	uint8_t *shadow;
	uint8_t *wbuf, *rbuf;
	uint64_t seed;
	bool *written; /* per block: the shadow holds data */
	/* results */
	uint64_t cmds, reads, writes, bytes, mismatches, failed;
	char why[256];
};

static struct {
	struct ir_tool_args args;
	unsigned nconns, erl, ios, rate, maxblk, secs;
	uint32_t maxburst;
	uint64_t lba;
	bool snack_invalid;
	unsigned rdata;
	const char *hold;
	uint32_t bs;
	struct ir_session sess;
	pthread_mutex_t mu; /* sess.cmdsn, once the connections' threads run */
	int64_t end_ms;
	struct econn conns[MAX_CONNS];
	/* counters, all threads */
	atomic_ullong f_hdig, f_ddig_cmd, f_ddig_data, f_lost_din, f_lost_r2t, f_lost_st;
	atomic_ullong snacks, retried, resent_pdus, resent_bytes, retx_pdus, retx_bytes;
	atomic_ullong rej_digest;
	atomic_ullong abits, dataacks;
	uint32_t *lat;
	atomic_uint nlat;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER};

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s += 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static bool fault(struct econn *e)
{
	return S.rate && rnd(&e->seed) % 1000 < S.rate;
}

static int fail(struct econn *e, const char *fmt, ...) UT_PRINTF(2, 3);
static int fail(struct econn *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* Send p; with a fault, a damaged copy first (the target discards it or
 * rejects it) then, for a header digest, the good one at once. *ddig_out:
 * the data digest was damaged (the caller waits for the Reject). */
static int send_maybe_bad(struct econn *e, struct ir_pdu *p, bool allow_ddigest, bool *ddig)
{
	int rc;

	*ddig = false;
	if (fault(e)) {
		if (allow_ddigest && p->data_len && (rnd(&e->seed) & 1)) {
			*ddig = true;
			return ir_send_pdu_ex(&e->c, p, IR_ENC_BAD_DDIGEST);
		}
		atomic_fetch_add(&S.f_hdig, 1);
		rc = ir_send_pdu_ex(&e->c, p, IR_ENC_BAD_HDIGEST);
		if (rc)
			return rc;
		/* the target discarded it (7.8): the initiator sends it again */
		atomic_fetch_add(&S.resent_pdus, 1);
		atomic_fetch_add(&S.resent_bytes, ir_pdu_wire_len(p, true, true));
	}
	return ir_send_pdu(&e->c, p);
}

/* Each Data-Out PDU of send_data_out, perhaps damaged. */
static int send_data_pdu(void *arg, struct ir_pdu *p)
{
	struct econn *e = arg;
	bool ddig;
	int rc = send_maybe_bad(e, p, true, &ddig);

	if (!rc && ddig)
		atomic_fetch_add(&S.f_ddig_data, 1);
	return rc;
}

static int send_data_out(struct econn *e, const uint8_t *lun, uint32_t itt, uint32_t ttt,
			 uint32_t off, uint32_t len)
{
	return ir_send_data_out(&e->c, lun, itt, ttt, e->wbuf, off, len, SEG, send_data_pdu, e);
}

static int send_snack(struct econn *e, unsigned type, uint32_t itt, uint32_t ttt, uint32_t beg,
		      uint32_t run)
{
	struct ir_pdu p = {0};
	struct ir_bhs_snack *s = &p.bhs.snack;

	s->opcode = IR_OP_SNACK_REQ;
	s->type = (uint8_t)(IR_FLAG_FINAL | type);
	put_be32(s->itt, itt);
	put_be32(s->ttt, ttt);
	put_be32(s->exp_statsn, e->c.expstatsn);
	put_be32(s->begrun, beg);
	put_be32(s->run_length, run);
	atomic_fetch_add(&S.snacks, 1);
	return ir_send_pdu(&e->c, &p);
}

/* DataACK (11.16): ITT reserved, TTT and LUN of the Data-In with the A
 * bit, BegRun the next DataSN expected, RunLength 0. */
static int send_dataack(struct econn *e, const uint8_t *lun, uint32_t ttt, uint32_t beg)
{
	struct ir_pdu p = {0};
	struct ir_bhs_snack *s = &p.bhs.snack;

	s->opcode = IR_OP_SNACK_REQ;
	s->type = (uint8_t)(IR_FLAG_FINAL | SNACK_DATAACK);
	memcpy(s->lun, lun, sizeof(s->lun));
	put_be32(s->itt, IR_RSVD_TAG);
	put_be32(s->ttt, ttt);
	put_be32(s->exp_statsn, e->c.expstatsn);
	put_be32(s->begrun, beg);
	atomic_fetch_add(&S.snacks, 1);
	atomic_fetch_add(&S.dataacks, 1);
	return ir_send_pdu(&e->c, &p);
}

/* What identifies a Data-In, R2T or SCSI Response of a task when it comes
 * again: its DataSN, R2TSN or StatSN, tagged by kind. */
static uint32_t key_of(const struct ir_pdu *r)
{
	switch (ir_pdu_opcode(r)) {
	case IR_OP_DATA_IN:
		return get_be32(r->bhs.data.datasn);
	case IR_OP_R2T:
		return 0x40000000u | get_be32(r->bhs.r2t.r2tsn);
	default:
		return 0x80000000u | (get_be32(r->bhs.scsi_rsp.statsn) & 0x3fffffffu);
	}
}

/* One command: WRITE or READ of blocks at lba through e->wbuf/e->rbuf. */
static int one_cmd(struct econn *e, bool write, uint64_t lba, uint32_t blocks)
{
	struct ir_pdu cmdp = {0};
	struct ir_bhs_scsi_cmd *h = &cmdp.bhs.cmd;
	uint32_t len = blocks * S.bs;
	uint32_t itt = ir_next_itt(&e->c);
	uint32_t imm = 0, unsol = 0, got_bytes = 0;
	bool ddig, done = false;
	uint32_t lost[64], nlost = 0; /* DataSNs / R2TSNs / StatSNs asked again */
	/* the status came before the PDUs asked again: not acknowledged
	 * (ExpStatSN, 7.1) until they are in, or the target frees them */
	bool holding = false;
	uint32_t hold_exp = 0, held_exp = 0;
	uint8_t status = 0xff;
	/* a DataACK asked for (the A bit), sent when no Data-In is missing */
	bool ack_pending = false;
	uint32_t ack_ttt = IR_RSVD_TAG, ack_beg = 0;
	int rc;

	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_CMD_ATTR_SIMPLE | (write ? IR_CMD_WRITE : IR_CMD_READ);
	ir_lun_encode(0, h->lun);
	put_be32(h->itt, itt);
	put_be32(h->exp_xfer_len, len);
	pthread_mutex_lock(&S.mu);
	put_be32(h->cmdsn, S.sess.cmdsn++);
	pthread_mutex_unlock(&S.mu);
	h->cdb[0] = write ? 0x8a : 0x88;
	put_be64(h->cdb + 2, lba);
	put_be32(h->cdb + 10, blocks);
	if (write) {
		if (e->c.p.immediate_data)
			imm = UT_MIN(UT_MIN(len, e->c.p.first_burst), SEG);
		if (!e->c.p.initial_r2t)
			unsol = UT_MIN(len, e->c.p.first_burst);
		if (unsol < imm)
			unsol = imm;
	}
	if (unsol <= imm)
		h->flags |= IR_FLAG_FINAL;
	cmdp.data = e->wbuf;
	cmdp.data_len = imm;
	put_be32(h->exp_statsn, e->c.expstatsn);
	rc = send_maybe_bad(e, &cmdp, true, &ddig);
	if (rc)
		return fail(e, "send command: %d", rc);
	if (ddig)
		atomic_fetch_add(&S.f_ddig_cmd, 1);
	if (unsol > imm && (rc = send_data_out(e, h->lun, itt, IR_RSVD_TAG, imm, unsol - imm)))
		return fail(e, "send Data-Out: %d", rc);
	while (!done || nlost) {
		struct ir_pdu r;
		uint32_t prev_exp = e->c.expstatsn;
		uint8_t op;

		rc = ir_recv_pdu(&e->c, &r, 10000);
		if (rc)
			return fail(e, "recv (ITT 0x%x): %d %s", itt, rc, e->c.err);
		if (holding) {
			if (ir_sn_lt(held_exp, e->c.expstatsn))
				held_exp = e->c.expstatsn;
			e->c.expstatsn = prev_exp = hold_exp;
		}
		op = ir_pdu_opcode(&r);
		if (op == IR_OP_NOP_IN) {
			ir_pdu_free(&r);
			continue;
		}
		if (op == IR_OP_REJECT) {
			const union ir_bhs *rh = (const union ir_bhs *)r.data;
			uint8_t reason = r.bhs.reject.reason;

			if (r.data_len < IR_BHS_LEN || reason != 0x02) {
				ir_pdu_free(&r);
				return fail(e, "Reject reason 0x%02x", reason);
			}
			atomic_fetch_add(&S.rej_digest, 1);
			if ((rh->common.opcode & IR_OP_MASK) == IR_OP_SCSI_CMD &&
			    get_be32(rh->cmd.itt) == itt) {
				/* 7.8: the command was discarded: retried, same
				 * ITT and CmdSN (6.2.1) */
				atomic_fetch_add(&S.retried, 1);
				atomic_fetch_add(&S.resent_pdus, 1);
				atomic_fetch_add(&S.resent_bytes,
						 ir_pdu_wire_len(&cmdp, true, true));
				put_be32(h->exp_statsn, e->c.expstatsn);
				rc = send_maybe_bad(e, &cmdp, true, &ddig);
				if (!rc && ddig)
					atomic_fetch_add(&S.f_ddig_cmd, 1);
				if (!rc && unsol > imm)
					rc = send_data_out(e, h->lun, itt, IR_RSVD_TAG, imm,
							   unsol - imm);
				if (rc) {
					ir_pdu_free(&r);
					return fail(e, "resend command: %d", rc);
				}
			}
			/* a Data-Out's: the target asks again with an R2T */
			ir_pdu_free(&r);
			continue;
		}
		if (ir_pdu_itt(&r) != itt) {
			ir_pdu_free(&r);
			return fail(e, "%s for ITT 0x%x, want 0x%x", ir_opcode_name(op),
				    ir_pdu_itt(&r), itt);
		}
		if (op == IR_OP_DATA_IN || op == IR_OP_R2T || op == IR_OP_SCSI_RSP) {
			uint32_t k = key_of(&r);

			for (uint32_t i = 0; i < nlost; i++) {
				if (lost[i] != k)
					continue;
				/* the retransmission of a PDU dropped before */
				lost[i] = lost[--nlost];
				atomic_fetch_add(&S.retx_pdus, 1);
				atomic_fetch_add(&S.retx_bytes, ir_pdu_wire_len(&r, true, true));
				break;
			}
		}
		if ((op == IR_OP_DATA_IN || op == IR_OP_R2T || op == IR_OP_SCSI_RSP) && fault(e) &&
		    nlost < ARRAY_SIZE(lost)) {
			/* lost on the way: not seen, not acknowledged; asked
			 * again (11.16) */
			e->c.expstatsn = prev_exp;
			if (op == IR_OP_SCSI_RSP) {
				atomic_fetch_add(&S.f_lost_st, 1);
				rc = send_snack(e, SNACK_STATUS, IR_RSVD_TAG, IR_RSVD_TAG,
						get_be32(r.bhs.scsi_rsp.statsn), 1);
			} else if (op == IR_OP_R2T) {
				atomic_fetch_add(&S.f_lost_r2t, 1);
				rc = send_snack(e, SNACK_DATA, itt, IR_RSVD_TAG,
						get_be32(r.bhs.r2t.r2tsn), 1);
			} else {
				atomic_fetch_add(&S.f_lost_din, 1);
				rc = send_snack(e, SNACK_DATA, itt, IR_RSVD_TAG,
						get_be32(r.bhs.data.datasn), 1);
			}
			if (nlost < ARRAY_SIZE(lost))
				lost[nlost++] = key_of(&r);
			ir_pdu_free(&r);
			if (rc)
				return fail(e, "send SNACK: %d", rc);
			continue;
		}
		if (op == IR_OP_R2T) {
			uint32_t off = get_be32(r.bhs.r2t.buffer_offset);
			uint32_t dl = get_be32(r.bhs.r2t.desired_len);
			uint32_t ttt = get_be32(r.bhs.r2t.ttt);

			ir_pdu_free(&r);
			if (!write || off > len || dl > len - off || !dl)
				return fail(e, "R2T outside the buffer: %u+%u of %u", off, dl, len);
			rc = send_data_out(e, h->lun, itt, ttt, off, dl);
			if (rc)
				return fail(e, "send Data-Out: %d", rc);
			continue;
		}
		if (op == IR_OP_DATA_IN) {
			uint32_t off = get_be32(r.bhs.data.buffer_offset);

			if (write || ir_datain_take(&r, e->rbuf, len, &got_bytes)) {
				ir_pdu_free(&r);
				return fail(e, "bad Data-In %u+%u of %u", off, r.data_len, len);
			}
			if (r.bhs.data.flags & IR_DATAIN_ACK) {
				uint32_t end = off + r.data_len;
				uint32_t sn = get_be32(r.bhs.data.datasn);

				atomic_fetch_add(&S.abits, 1);
				/* 11.7.2: ERL >= 1, at most once per MaxBurstLength;
				 * 11.7.4: a TTT and the command's LUN; this target:
				 * the end of a sequence, never the last one */
				if (!e->c.p.erl || !(r.bhs.data.flags & IR_FLAG_FINAL) ||
				    get_be32(r.bhs.data.ttt) == IR_RSVD_TAG ||
				    memcmp(r.bhs.data.lun, h->lun, 8) || end % e->c.p.max_burst ||
				    end == len) {
					ir_pdu_free(&r);
					return fail(e, "A bit on Data-In %u+%u of %u", off,
						    end - off, len);
				}
				if (!ack_pending || ir_sn_lt(ack_beg, sn + 1))
					ack_beg = sn + 1;
				ack_ttt = get_be32(r.bhs.data.ttt);
				ack_pending = true;
			}
			if (r.bhs.data.flags & IR_DATAIN_STATUS) {
				status = r.bhs.data.status;
				done = true;
			}
		} else if (op == IR_OP_SCSI_RSP) {
			status = r.bhs.scsi_rsp.response ? 0xfe : r.bhs.scsi_rsp.status;
			done = true;
		} else {
			ir_pdu_free(&r);
			return fail(e, "unexpected %s", ir_opcode_name(op));
		}
		ir_pdu_free(&r);
		if (ack_pending && done) {
			/* the status acknowledges the data (11.7.2): a DataACK
			 * after it would name copies already freed */
			ack_pending = false;
		} else if (ack_pending && !nlost) {
			ack_pending = false;
			rc = send_dataack(e, h->lun, ack_ttt, ack_beg);
			if (rc)
				return fail(e, "send DataACK: %d", rc);
		}
		if (done && nlost && !holding) {
			holding = true;
			held_exp = e->c.expstatsn;
			e->c.expstatsn = hold_exp = prev_exp;
		}
	}
	if (holding)
		e->c.expstatsn = held_exp;
	if (status != 0)
		return fail(e, "%s LBA %" PRIu64 " status 0x%02x", write ? "WRITE" : "READ", lba,
			    status);
	if (!write && got_bytes < len)
		return fail(e, "READ LBA %" PRIu64 ": %u of %u bytes", lba, got_bytes, len);
	return 0;
}

/* Region of a connection: 4096 blocks. */
#define REGION_BLOCKS 4096u

static void *conn_main(void *arg)
{
	struct econn *e = arg;
	unsigned n = 0;

	for (;;) {
		uint32_t blocks = 1 + (uint32_t)(rnd(&e->seed) % S.maxblk);
		uint64_t first = rnd(&e->seed) % (REGION_BLOCKS - blocks + 1);
		bool write = (rnd(&e->seed) & 1) || !e->written[first];
		int64_t t0;
		int rc;

		if (S.secs ? ir_now_us() / 1000 >= S.end_ms : n >= S.ios)
			break;
		n++;
		if (write)
			for (uint32_t i = 0; i < blocks * S.bs; i++)
				e->wbuf[i] = (uint8_t)rnd(&e->seed);
		else
			memset(e->rbuf, 0xa5, blocks * S.bs);
		t0 = ir_now_us();
		rc = one_cmd(e, write, e->lba0 + first, blocks);
		{
			unsigned k = atomic_fetch_add(&S.nlat, 1);

			if (k < LAT_MAX)
				S.lat[k] = (uint32_t)UT_MIN(ir_now_us() - t0, (int64_t)UINT32_MAX);
		}
		e->cmds++;
		if (rc) {
			e->failed++;
			break; /* the connection's state is unknown now */
		}
		e->bytes += blocks * S.bs;
		if (write) {
			e->writes++;
			memcpy(e->shadow + first * S.bs, e->wbuf, blocks * S.bs);
			for (uint32_t i = 0; i < blocks; i++)
				e->written[first + i] = true;
		} else {
			e->reads++;
			for (uint32_t i = 0; i < blocks; i++) {
				if (!e->written[first + i])
					continue;
				if (memcmp(e->shadow + (first + i) * S.bs, e->rbuf + i * S.bs,
					   S.bs))
					e->mismatches++;
			}
		}
	}
	return NULL;
}

static int login(struct econn *e, uint16_t cid)
{
	struct ir_login_opts o = {
	    .initiator_name = S.args.iname,
	    .target_name = S.args.target,
	    .header_digest = true,
	    .data_digest = true,
	    .digest_only = true,
	    .max_recv_dsl = SEG,
	    .max_burst = S.maxburst,
	    .first_burst = UT_MIN(16384u, S.maxburst),
	    .initial_r2t = 0,
	    .immediate_data = 1,
	    .max_outstanding_r2t = 4,
	    .erl = (int)S.erl,
	    .cid = cid,
	    .max_connections = 4,
	};

	ir_conn_init(&e->c);
	e->cid = cid;
	/* ITTs unique in the session (11.2.1.8): the CID in the high bits */
	e->c.itt_next = ((uint32_t)cid << 20) | 1u;
	return ir_session_login(&S.sess, &e->c, S.args.host, S.args.port, &o);
}

/* Invalid SNACKs (11.16): the Reject reason each gets. */
static void snack_invalid(struct econn *e)
{
	static const struct {
		const char *name;
		unsigned type;
		uint32_t beg;
	} probes[] = {
	    {"status", SNACK_STATUS, 100000},
	    {"rdata", SNACK_RDATA, 0},
	    {"dataack", SNACK_DATAACK, 0},
	};

	printf("snack_invalid");
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		struct ir_pdu r;
		int rc;

		rc = send_snack(e, probes[i].type,
				probes[i].type == SNACK_STATUS ? IR_RSVD_TAG : 0x77, 0x1234,
				e->c.expstatsn + probes[i].beg, 0);
		rc = rc ? rc : ir_recv_pdu(&e->c, &r, 5000);
		if (rc) {
			printf(" %s none", probes[i].name);
			continue;
		}
		if (ir_pdu_opcode(&r) == IR_OP_REJECT)
			printf(" %s 0x%02x", probes[i].name, r.bhs.reject.reason);
		else
			printf(" %s %s", probes[i].name, ir_opcode_name(ir_pdu_opcode(&r)));
		ir_pdu_free(&r);
	}
	printf("\n");
	atomic_store(&S.snacks, 0);
}

/* ---- R-Data SNACK rounds (-R, 11.16.3) ---- */

#define RDATA_BYTES 32768u
#define RDATA_TAG   0x5ad00000u /* | round: the SNACK Tag */

static const uint32_t rdata_seg[] = {1024, 512, 1000, 4096};

struct rdata_run {
	unsigned round;
	uint64_t pdus, bytes;
};

static uint8_t rdata_byte(unsigned round, uint32_t off)
{
	return (uint8_t)(off * 7u + (off >> 8) * 13u + round * 31u + 1u);
}

/* A Text Request declaring MaxRecvDataSegmentLength=v (13.12: declarative,
 * allowed in full feature phase) with ExpStatSN exp (what it acknowledges,
 * 7.1); its answer must not refuse the key. */
static int rdata_declare(struct econn *e, uint32_t v, uint32_t exp)
{
	char kv[64], val[64];
	uint8_t *rsp = NULL;
	size_t rsp_len = 0;
	int n = snprintf(kv, sizeof(kv), "MaxRecvDataSegmentLength=%u", v), rc;

	e->c.expstatsn = exp;
	/* the pair with its NUL */
	rc = ir_text_exchange(&e->c, (const uint8_t *)kv, (size_t)n + 1, &rsp, &rsp_len);
	if (rc)
		return fail(e, "Text Request %s: %d %s", kv, rc, e->c.err);
	rc = ir_text_get(rsp, rsp_len, "MaxRecvDataSegmentLength", val, sizeof(val));
	free(rsp);
	/* no answer is due; the target may declare its own, never refuse */
	if (rc >= 0 && (val[0] < '0' || val[0] > '9'))
		return fail(e, "Text Request %s answered MaxRecvDataSegmentLength=%s", kv, val);
	e->c.p.our_mrdsl = v;
	return 0;
}

/* One round: write the pattern, read it back (status not acknowledged),
 * declare a smaller MaxRecvDataSegmentLength, R-Data SNACK, check. */
static int rdata_round(struct econn *e, struct rdata_run *rr, uint64_t lba, uint8_t *buf)
{
	uint32_t blocks = UT_MAX(1u, RDATA_BYTES / S.bs), len = blocks * S.bs;
	uint32_t seg = rdata_seg[rr->round % ARRAY_SIZE(rdata_seg)];
	uint32_t burst = e->c.p.max_burst, tag = RDATA_TAG | rr->round;
	uint32_t itt, statsn = 0, got = 0, first_pdus = 0, pdus = 0, exp_after;
	struct ir_scsi_result res;
	uint8_t cdb[16] = {0x88}, lun[8];
	bool done = false;
	int rc;

	/* 8192 again: the read goes out in segments of the login's length */
	if (e->c.p.our_mrdsl != SEG && (rc = rdata_declare(e, SEG, e->c.expstatsn)))
		return rc;
	for (uint32_t i = 0; i < len; i++)
		buf[i] = rdata_byte(rr->round, i);
	rc = ir_write16(&e->c, 0, lba, blocks, S.bs, buf, false, &res);
	if (rc || res.status)
		return fail(e, "WRITE LBA %" PRIu64 ": %d status 0x%02x %s", lba, rc, res.status,
			    e->c.err);
	memset(buf, 0xa5, len);
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, blocks);
	ir_lun_encode(0, lun);
	rc = ir_scsi_send(&e->c, 0, cdb, sizeof(cdb), IR_DIR_READ, len, &itt);
	if (rc)
		return fail(e, "send READ: %d", rc);
	/* the read as it first comes: Data-In, status in the last or in a
	 * SCSI Response; A bits not answered (the status acknowledges) */
	while (!done) {
		struct ir_pdu r;
		uint8_t op;

		rc = ir_recv_pdu(&e->c, &r, 10000);
		if (rc)
			return fail(e, "recv READ: %d %s", rc, e->c.err);
		op = ir_pdu_opcode(&r);
		if (op == IR_OP_NOP_IN) {
			ir_pdu_free(&r);
			continue;
		}
		if ((op != IR_OP_DATA_IN && op != IR_OP_SCSI_RSP) || ir_pdu_itt(&r) != itt) {
			ir_pdu_free(&r);
			return fail(e, "READ: %s ITT 0x%x (reason 0x%02x)", ir_opcode_name(op),
				    ir_pdu_itt(&r), op == IR_OP_REJECT ? r.bhs.reject.reason : 0);
		}
		if (op == IR_OP_DATA_IN) {
			first_pdus++;
			if (ir_datain_take(&r, buf, len, &got)) {
				ir_pdu_free(&r);
				return fail(e, "READ: Data-In outside the buffer");
			}
			if (r.bhs.data.flags & IR_DATAIN_STATUS) {
				res.status = r.bhs.data.status;
				statsn = get_be32(r.bhs.data.statsn);
				done = true;
			}
		} else {
			res.status = r.bhs.scsi_rsp.response ? 0xfe : r.bhs.scsi_rsp.status;
			statsn = get_be32(r.bhs.scsi_rsp.statsn);
			done = true;
		}
		ir_pdu_free(&r);
	}
	if (res.status || got != len)
		return fail(e, "READ: status 0x%02x, %u of %u bytes", res.status, got, len);
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != rdata_byte(rr->round, i))
			return fail(e, "READ: byte %u is 0x%02x, want 0x%02x", i, buf[i],
				    rdata_byte(rr->round, i));
	/* from here on ExpStatSN stays at the read's StatSN: its copies are
	 * retained (7.1) until the R-Data SNACK is answered */
	rc = rdata_declare(e, seg, statsn);
	if (rc)
		return rc;
	exp_after = e->c.expstatsn;
	memset(buf, 0xa5, len);
	got = 0;
	e->c.expstatsn = statsn;
	rc = send_snack(e, SNACK_RDATA, itt, tag, 0, 0);
	if (rc)
		return fail(e, "send R-Data SNACK: %d", rc);
	for (done = false; !done;) {
		struct ir_pdu r;
		uint32_t off, sn, dl, end;
		uint8_t op, fl;

		rc = ir_recv_pdu(&e->c, &r, 10000);
		if (rc)
			return fail(e, "recv after the R-Data SNACK (%u Data-In): %d %s", pdus, rc,
				    e->c.err);
		op = ir_pdu_opcode(&r);
		if (op == IR_OP_NOP_IN) {
			ir_pdu_free(&r);
			continue;
		}
		if ((op != IR_OP_DATA_IN && op != IR_OP_SCSI_RSP) || ir_pdu_itt(&r) != itt) {
			ir_pdu_free(&r);
			return fail(e, "R-Data SNACK answered %s ITT 0x%x (reason 0x%02x)",
				    ir_opcode_name(op), ir_pdu_itt(&r),
				    op == IR_OP_REJECT ? r.bhs.reject.reason : 0);
		}
		fl = r.bhs.data.flags;
		if (op == IR_OP_SCSI_RSP) {
			const struct ir_bhs_scsi_rsp *h = &r.bhs.scsi_rsp;

			/* 11.16.3: the SNACK Tag, the StatSN of the first
			 * status; 11.4.8: ExpDataSN the Data-In sent */
			rc = 0;
			if (!(h->flags & IR_FLAG_FINAL) || h->response || h->status ||
			    (h->flags & (IR_RSP_OVERFLOW | IR_RSP_UNDERFLOW)) ||
			    get_be32(h->residual) || r.data_len)
				rc = fail(e,
					  "SCSI Response flags 0x%02x response %u status 0x%02x "
					  "residual %u data %u",
					  h->flags, h->response, h->status, get_be32(h->residual),
					  r.data_len);
			else if (get_be32(h->snack_tag) != tag)
				rc = fail(e, "SCSI Response SNACK Tag 0x%08x, want 0x%08x",
					  get_be32(h->snack_tag), tag);
			else if (get_be32(h->statsn) != statsn)
				rc = fail(e, "SCSI Response StatSN %u, want %u (the first status)",
					  get_be32(h->statsn), statsn);
			else if (get_be32(h->exp_datasn) != pdus)
				rc = fail(e, "SCSI Response ExpDataSN %u, want %u",
					  get_be32(h->exp_datasn), pdus);
			ir_pdu_free(&r);
			if (rc)
				return rc;
			done = true;
			continue;
		}
		off = get_be32(r.bhs.data.buffer_offset);
		sn = get_be32(r.bhs.data.datasn);
		dl = r.data_len;
		end = off + dl;
		rc = 0;
		if (!dl || dl > seg)
			rc = fail(e, "Data-In DataSN %u: %u bytes, MaxRecvDataSegmentLength %u", sn,
				  dl, seg);
		else if (sn != pdus)
			rc = fail(e, "Data-In DataSN %u, want %u (from 0, no DataACK)", sn, pdus);
		else if (off != got || dl > len - off)
			rc = fail(e, "Data-In DataSN %u at %u+%u, want offset %u of %u", sn, off,
				  dl, got, len);
		else if (fl & (IR_DATAIN_STATUS | IR_DATAIN_ACK))
			rc = fail(e, "Data-In DataSN %u flags 0x%02x: S or A", sn, fl);
		else if (off / burst != (end - 1) / burst ||
			 !(fl & IR_FLAG_FINAL) != !(end == len || end % burst == 0))
			rc = fail(e, "Data-In DataSN %u at %u+%u flags 0x%02x, MaxBurstLength %u",
				  sn, off, dl, fl, burst);
		else if (get_be32(r.bhs.data.ttt) != IR_RSVD_TAG || memcmp(r.bhs.data.lun, lun, 8))
			rc = fail(e, "Data-In DataSN %u TTT 0x%08x or LUN", sn,
				  get_be32(r.bhs.data.ttt));
		if (!rc) {
			memcpy(buf + off, r.data, dl);
			got += dl;
			pdus++;
			rr->bytes += dl;
		}
		ir_pdu_free(&r);
		if (rc)
			return rc;
	}
	e->c.expstatsn = exp_after; /* everything acknowledged from here on */
	if (got != len)
		return fail(e, "R-Data: %u of %u bytes before the SCSI Response", got, len);
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != rdata_byte(rr->round, i))
			return fail(e, "R-Data: byte %u is 0x%02x, want 0x%02x", i, buf[i],
				    rdata_byte(rr->round, i));
	rr->pdus += pdus;
	printf("rdata round %u mrdsl %u datain %u first_sent %u statsn %u\n", rr->round, seg, pdus,
	       first_pdus, statsn);
	return 0;
}

/* -R: N rounds on e at lba, then 8192 declared again for the workload. */
static int rdata_rounds(struct econn *e, uint64_t lba)
{
	struct rdata_run rr = {0};
	uint8_t *buf = malloc(UT_MAX(RDATA_BYTES, S.bs));
	int rc = buf ? 0 : -ENOMEM;

	for (rr.round = 0; rr.round < S.rdata; rr.round++) {
		rc = rdata_round(e, &rr, lba, buf);
		if (rc)
			break;
	}
	if (!rc && e->c.p.our_mrdsl != SEG)
		rc = rdata_declare(e, SEG, e->c.expstatsn);
	free(buf);
	if (rc) {
		printf("FAIL rdata round %u: %s\n", rr.round, e->why[0] ? e->why : strerror(-rc));
		return rc;
	}
	printf("rdata rounds %u pdus %" PRIu64 " bytes %" PRIu64 "\n", S.rdata, rr.pdus, rr.bytes);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const struct ir_opt opts[] = {
	    {'n', IR_OPT_UINT, &S.nconns},	  {'E', IR_OPT_UINT, &S.erl},
	    {'t', IR_OPT_UINT, &S.secs},	  {'i', IR_OPT_UINT, &S.ios},
	    {'r', IR_OPT_UINT, &S.rate},	  {'b', IR_OPT_UINT, &S.maxblk},
	    {'B', IR_OPT_U32, &S.maxburst},	  {'L', IR_OPT_U64, &S.lba},
	    {'S', IR_OPT_FLAG, &S.snack_invalid}, {'H', IR_OPT_STR, &S.hold},
	    {'R', IR_OPT_UINT, &S.rdata},
	};
	uint64_t cmds = 0, reads = 0, writes = 0, bytes = 0, mism = 0, failed = 0;
	struct ir_scsi_result res;
	uint64_t nblocks;
	int rc;

	S.nconns = 1;
	S.erl = 1;
	S.ios = 200;
	S.rate = 10;
	S.maxblk = 128;
	S.maxburst = 65536;
	if (ir_tool_getopt(argc, argv, opts, ARRAY_SIZE(opts), &S.args) || !S.nconns ||
	    S.nconns > MAX_CONNS || !S.maxblk || S.maxblk > 256 || S.maxburst < 512)
		goto usage;
	S.lat = calloc(LAT_MAX, sizeof(*S.lat));
	for (unsigned i = 0; i < S.nconns; i++) {
		rc = login(&S.conns[i], (uint16_t)i);
		if (rc) {
			printf("FAIL login cid %u: %d %02x/%02x %s\n", i, rc,
			       S.conns[i].c.login_class, S.conns[i].c.login_detail,
			       S.conns[i].c.err);
			return 2;
		}
	}
	printf("session tsih %u erl %u conns %u hdigest %d ddigest %d\n", S.sess.tsih, S.sess.p.erl,
	       S.nconns, S.sess.p.hdigest, S.sess.p.ddigest);
	if (S.snack_invalid)
		snack_invalid(&S.conns[0]);
	S.conns[0].c.cmdsn = S.sess.cmdsn;
	/* the first command may get the power-on UNIT ATTENTION */
	for (int k = 0; k < 3; k++) {
		rc = ir_read_capacity16(&S.conns[0].c, 0, &nblocks, &S.bs, &res);
		if (rc || !res.status)
			break;
	}
	S.sess.cmdsn = S.conns[0].c.cmdsn;
	if (rc || res.status || !S.bs || S.bs > 4096) {
		printf("FAIL READ CAPACITY: %d status %u\n", rc, res.status);
		return 2;
	}
	if (S.lba + (uint64_t)S.nconns * REGION_BLOCKS > nblocks) {
		printf("FAIL the LUN has %" PRIu64 " blocks, %u wanted\n", nblocks,
		       S.nconns * REGION_BLOCKS);
		return 2;
	}
	if (S.rdata) {
		if (rdata_rounds(&S.conns[0], S.lba))
			return 1;
		S.sess.cmdsn = S.conns[0].c.cmdsn;
	}
	S.end_ms = ir_now_us() / 1000 + (int64_t)S.secs * 1000;
	for (unsigned i = 0; i < S.nconns; i++) {
		struct econn *e = &S.conns[i];

		e->lba0 = S.lba + (uint64_t)i * REGION_BLOCKS;
		e->seed = 0x5eed0000u + i * 7919u + (uint64_t)time(NULL);
		e->shadow = calloc(REGION_BLOCKS, S.bs);
		e->written = calloc(REGION_BLOCKS, sizeof(bool));
		e->wbuf = malloc((size_t)S.maxblk * S.bs);
		e->rbuf = malloc((size_t)S.maxblk * S.bs);
		e->c.timeout_ms = 10000;
		pthread_create(&e->th, NULL, conn_main, e);
	}
	for (unsigned i = 0; i < S.nconns; i++) {
		struct econn *e = &S.conns[i];

		pthread_join(e->th, NULL);
		cmds += e->cmds;
		reads += e->reads;
		writes += e->writes;
		bytes += e->bytes;
		mism += e->mismatches;
		failed += e->failed;
		if (e->failed)
			printf("conn cid %u failed: %s\n", e->cid, e->why);
	}
	printf("io commands %" PRIu64 " reads %" PRIu64 " writes %" PRIu64 " bytes %" PRIu64
	       " mismatches %" PRIu64 " failed %" PRIu64 "\n",
	       cmds, reads, writes, bytes, mism, failed);
	printf("faults hdigest %llu ddigest_cmd %llu ddigest_data %llu lost_datain %llu lost_r2t "
	       "%llu lost_status %llu\n",
	       atomic_load(&S.f_hdig), atomic_load(&S.f_ddig_cmd), atomic_load(&S.f_ddig_data),
	       atomic_load(&S.f_lost_din), atomic_load(&S.f_lost_r2t), atomic_load(&S.f_lost_st));
	printf("recovery snacks %llu retried_cmds %llu resent_pdus %llu resent_bytes %llu "
	       "retx_received_pdus %llu retx_received_bytes %llu rejects_digest %llu\n",
	       atomic_load(&S.snacks), atomic_load(&S.retried), atomic_load(&S.resent_pdus),
	       atomic_load(&S.resent_bytes), atomic_load(&S.retx_pdus), atomic_load(&S.retx_bytes),
	       atomic_load(&S.rej_digest));
	printf("dataack abits %llu sent %llu\n", atomic_load(&S.abits), atomic_load(&S.dataacks));
	{
		unsigned n = UT_MIN(atomic_load(&S.nlat), LAT_MAX);

		qsort(S.lat, n, sizeof(*S.lat), cmp_u32);
		if (n)
			printf("latency p50_us %u p99_us %u max_us %u\n", S.lat[n / 2],
			       S.lat[(size_t)n * 99 / 100], S.lat[n - 1]);
	}
	if (!failed && !mism && cmds) {
		uint8_t resp = 0xff;

		if (S.hold)
			ir_hold(S.hold);
		S.conns[0].c.cmdsn = S.sess.cmdsn;
		if (ir_logout(&S.conns[0].c, &resp) == 0)
			printf("logout response %u\n", resp);
		printf("OK\n");
		return 0;
	}
	printf("FAIL\n");
	return 1;
usage:
	fprintf(stderr, "usage: erl HOST:PORT TARGET INITIATOR [-n N] [-E L] [-t S] [-i IOS] "
			"[-r PERMILLE] [-b BLOCKS] [-B BYTES] [-L LBA] [-S] [-R N] [-H FILE]\n");
	return 2;
}
