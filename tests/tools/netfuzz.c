/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netfuzz: network fuzzer for an iSCSI target.
 *
 * The fuzzing side (main thread) logs in properly (sometimes with digests,
 * sometimes staying in the login phase) and then sends mutated and random
 * PDUs of every opcode: mutated BHS fields (lengths, flags, ITT/TTT,
 * CmdSN/ExpStatSN, LUN, AHS), invalid opcodes, random key=value text,
 * oversize segments, bad digests, random blobs, and truncations followed by
 * a disconnect at every byte position of a PDU in turn; it reconnects
 * whenever the target drops it.
 *
 * Meanwhile a well-behaved session (second thread) does WRITE + READ +
 * verify on its own LUN the whole time and checks every response. With
 * --good-source it connects from another address, as another initiator
 * does: the target caps logins per source address and, at the cap, evicts
 * that address's longest-silent login, so the truncation sweep's flood of
 * connections may rightly evict a login of its own address, and only
 * initiators elsewhere are owed an unaffected session. The
 * fuzzer never addresses the good LUN and never sends task management
 * functions whose legitimate effect reaches other initiators (CLEAR TASK
 * SET, LUN/TARGET RESET), so any failure of the good session is a target bug.
 *
 * The report: PDUs sent, connections dropped by the target, good I/Os done
 * and failed, the target's RSS before, at half time and after
 * (/proc/PID/status). Exit status 1 if the target died or stopped serving,
 * the good session ever failed, RSS grew more than --rss-max-growth MiB in
 * all or more than --rss-max-late-growth MiB over the second half (steady
 * growth once the pools are warm is a leak); 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

struct nf_opts {
	char host[256], port[16];
	const char *target;
	uint64_t fuzz_lun, good_lun;
	uint64_t good_lba;	 /* first LBA of the good session's region */
	const char *good_source; /* the good session's source address, or NULL */
	pid_t pid;
	double seconds;
	uint64_t max_pdus;
	uint64_t seed;
	uint64_t rss_max_growth_kb;
	uint64_t rss_max_late_kb; /* growth allowed over the second half of the run */
	bool no_sweep;
	uint8_t ops[16]; /* --ops: template opcodes to fuzz (triage); n_ops 0 = all */
	unsigned n_ops;
	int verbose;
};

struct nf_stats {
	atomic_ullong pdus, bytes, connects, logins, drops, timeouts_ok;
	atomic_ullong good_ios, good_fail, good_ua;
	atomic_ullong good_max_lat_us;
	atomic_ullong sweep_conns;
};

static struct nf_stats st;
static atomic_bool stop_flag;
static struct nf_opts opt = {
    .fuzz_lun = 1,
    .good_lun = 0,
    .good_lba = 0,
    .seconds = 20,
    .rss_max_growth_kb = 64 * 1024,
    .rss_max_late_kb = 8 * 1024,
};
static char good_err[512];

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* xorshift64*: deterministic from --seed */
static uint64_t rnd_state;
static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6)) {
			char *end;

			kb = strtol(line + 6, &end, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* ---- the well-behaved session ---- */

static void fill_pattern(uint8_t *buf, uint32_t bs, uint64_t lba, uint64_t gen)
{
	uint64_t x = opt.seed ^ (lba * 0x9E3779B97F4A7C15ull) ^ (gen << 17) ^ 0x5bd1e995;
	uint32_t i;

	put_be64(buf, lba);
	put_be64(buf + 8, gen);
	for (i = 16; i + 8 <= bs; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_be64(buf + i, x);
	}
}

static int good_cmd_retry_ua(struct ir_conn *c, bool write, uint64_t lba, uint32_t n, uint32_t bs,
			     uint8_t *buf)
{
	struct ir_scsi_result r;
	int tries, rc;

	for (tries = 0; tries < 3; tries++) {
		uint8_t k = 0, a = 0, q = 0;

		rc = write ? ir_write16(c, opt.good_lun, lba, n, bs, buf, false, &r)
			   : ir_read16(c, opt.good_lun, lba, n, bs, buf, &r);
		if (rc) {
			snprintf(good_err, sizeof(good_err), "%s at LBA %llu: %s (%s)",
				 write ? "WRITE" : "READ", (unsigned long long)lba, strerror(-rc),
				 c->err);
			return rc;
		}
		if (r.rejected) {
			snprintf(good_err, sizeof(good_err), "%s rejected, reason 0x%02x",
				 write ? "WRITE" : "READ", r.reject_reason);
			return -EPROTO;
		}
		if (r.status == 0 && !write && r.data_in_len != n * bs) {
			snprintf(good_err, sizeof(good_err), "READ returned %u of %u bytes",
				 r.data_in_len, n * bs);
			return -EPROTO;
		}
		if (r.status == 0)
			return 0;
		if (r.status == 2 && ir_sense_parse(&r, &k, &a, &q) && k == 6) {
			atomic_fetch_add(&st.good_ua, 1); /* unit attention: retry */
			continue;
		}
		snprintf(good_err, sizeof(good_err), "%s status 0x%02x sense %x/%02x/%02x",
			 write ? "WRITE" : "READ", r.status, k, a, q);
		return -EIO;
	}
	snprintf(good_err, sizeof(good_err), "unit attention did not clear");
	return -EIO;
}

static void *good_thread(void *arg)
{
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:netfuzz-good",
	    .target_name = opt.target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	struct ir_scsi_result r;
	struct ir_conn c;
	uint64_t blocks = 0, gen = 1;
	uint32_t bs = 0, nblk = 8, region = 256;
	uint8_t *wbuf = NULL, *rbuf = NULL;
	int rc;

	(void)arg;
	ir_conn_init(&c);
	c.timeout_ms = 15000; /* a stall this long counts as a failure */
	c.source = opt.good_source;
	/* right after the truncation sweep the target may still hold its
	 * connections in login and refuse new ones over its cap of logins in
	 * progress (closed at once, or 03/02): retry for up to 5 s */
	for (int attempt = 0; attempt < 50; attempt++) {
		const struct timespec nap = {.tv_nsec = 100 * 1000000};

		rc = ir_connect(&c, opt.host, opt.port, 5000);
		if (!rc)
			rc = ir_login(&c, &o);
		if (rc != -ECONNRESET && rc != -EPIPE && !(rc == -EACCES && c.login_class == 0x03))
			break;
		ir_close(&c);
		nanosleep(&nap, NULL);
	}
	for (int i = 0; !rc && i < 4; i++) {
		/* clear unit attentions (SPC-4 5.14) before READ CAPACITY */
		rc = ir_test_unit_ready(&c, opt.good_lun, &r);
		if (!rc && !r.status)
			break;
	}
	if (!rc)
		rc = ir_read_capacity16(&c, opt.good_lun, &blocks, &bs, &r);
	if (!rc && (r.status || !bs || blocks < opt.good_lba + region)) {
		if (!r.status)
			snprintf(good_err, sizeof(good_err), "good LUN too small");
		rc = -EIO;
	}
	if (rc) {
		if (!good_err[0])
			snprintf(good_err, sizeof(good_err), "good session setup: %s (%s)",
				 strerror(-rc), c.err);
		atomic_fetch_add(&st.good_fail, 1);
		ir_close(&c);
		return NULL;
	}
	wbuf = malloc((size_t)nblk * bs);
	rbuf = malloc((size_t)nblk * bs);
	while (!atomic_load(&stop_flag)) {
		uint64_t lba = opt.good_lba + (gen * nblk) % region;
		int64_t t0 = now_us(), lat;
		uint32_t i;

		for (i = 0; i < nblk; i++)
			fill_pattern(wbuf + (size_t)i * bs, bs, lba + i, gen);
		rc = good_cmd_retry_ua(&c, true, lba, nblk, bs, wbuf);
		if (!rc) {
			memset(rbuf, 0, (size_t)nblk * bs);
			rc = good_cmd_retry_ua(&c, false, lba, nblk, bs, rbuf);
		}
		if (!rc && memcmp(rbuf, wbuf, (size_t)nblk * bs)) {
			snprintf(good_err, sizeof(good_err),
				 "read-back of LBA %llu differs from what was written",
				 (unsigned long long)lba);
			rc = -EIO;
		}
		lat = now_us() - t0;
		if (rc) {
			atomic_fetch_add(&st.good_fail, 1);
			break;
		}
		atomic_fetch_add(&st.good_ios, 2);
		if ((unsigned long long)lat > atomic_load(&st.good_max_lat_us))
			atomic_store(&st.good_max_lat_us, (unsigned long long)lat);
		gen++;
	}
	if (!rc) {
		uint8_t resp;

		ir_logout(&c, &resp);
	}
	ir_close(&c);
	free(wbuf);
	free(rbuf);
	return NULL;
}

/* ---- the fuzzer ---- */

struct fz_conn {
	struct ir_conn c;
	bool up;
	bool ffp;
	unsigned trunc_pos; /* next byte position for the truncation sweep */
};

/* clang-format off */
static const uint8_t init_opcodes[] = {
	IR_OP_NOP_OUT,	IR_OP_SCSI_CMD,	  IR_OP_TMF_REQ,   IR_OP_LOGIN_REQ,
	IR_OP_TEXT_REQ, IR_OP_DATA_OUT,	  IR_OP_LOGOUT_REQ, IR_OP_SNACK_REQ,
};
/* clang-format on */

/* clang-format off */
static const char *const key_names[] = {
	"HeaderDigest",	     "DataDigest",	   "MaxConnections",
	"SendTargets",	     "TargetName",	   "InitiatorName",
	"TargetAlias",	     "InitiatorAlias",	   "TargetAddress",
	"TargetPortalGroupTag", "InitialR2T",	   "ImmediateData",
	"MaxRecvDataSegmentLength", "MaxBurstLength", "FirstBurstLength",
	"DefaultTime2Wait",  "DefaultTime2Retain", "MaxOutstandingR2T",
	"DataPDUInOrder",    "DataSequenceInOrder", "ErrorRecoveryLevel",
	"SessionType",	     "AuthMethod",	   "CHAP_A",
	"CHAP_I",	     "CHAP_C",		   "CHAP_N",
	"CHAP_R",	     "OFMarker",	   "IFMarkInt",
	"TaskReporting",     "iSCSIProtocolLevel", "X-org.utarget.fuzz",
	"X#org.utarget",     "",		   "==",
};
/* clang-format on */

/* clang-format off */
static const char *const key_values[] = {
	"None",	 "CRC32C", "CRC32C,None", "Yes", "No",	  "0",	   "1",	 "512",
	"8192",	 "262144", "16777215",	  "16777216", "4294967296", "-1",  "0x10",
	"All",	 "Normal", "Discovery",	  "Reject", "Irrelevant", "NotUnderstood",
	"CHAP",	 "5,6,7,8", "0b====",	  "0x",	  "",	  "a,b,c,d,e,f,g,h,i,j",
};
/* clang-format on */

/* Random key=value text: known and unknown keys, odd values, missing '=',
 * missing terminators, embedded NULs, sometimes long. */
static void random_text(struct ir_text *t, size_t max)
{
	unsigned n = 1 + rnd_below(40), i;

	for (i = 0; i < n && t->len < max; i++) {
		const char *k = key_names[rnd_below(ARRAY_SIZE(key_names))];
		const char *v = key_values[rnd_below(ARRAY_SIZE(key_values))];

		switch (rnd_below(8)) {
		case 0: { /* long value */
			size_t l = 1 + rnd_below(600);
			char *big = malloc(l + 1);

			memset(big, 'A' + (int)rnd_below(26), l);
			big[l] = '\0';
			ir_text_add(t, k, big);
			free(big);
			break;
		}
		case 1: /* no '=' */
			ir_text_add_raw(t, k, strlen(k));
			ir_text_add_raw(t, "", 1);
			break;
		case 2: { /* random bytes */
			uint8_t junk[64];
			size_t l = rnd_below(sizeof(junk)), j;

			for (j = 0; j < l; j++)
				junk[j] = (uint8_t)rnd();
			ir_text_add_raw(t, junk, l);
			break;
		}
		default:
			ir_text_add(t, k, v);
		}
	}
	if (rnd_below(4) == 0 && t->len)
		t->len--; /* drop the last terminator */
	if (t->len > max)
		t->len = max;
}

/* A valid-looking PDU of opcode op for the current connection state. */
static void build_template(struct fz_conn *f, uint8_t op, struct ir_pdu *p)
{
	struct ir_conn *c = &f->c;
	uint8_t *cdb;

	memset(p, 0, sizeof(*p));
	p->bhs.common.opcode = op;
	p->bhs.common.flags = IR_FLAG_FINAL;
	ir_lun_encode(opt.fuzz_lun, p->bhs.common.lun);
	put_be32(p->bhs.common.itt, ir_next_itt(c));
	switch (op) {
	case IR_OP_NOP_OUT:
		p->bhs.req.opcode |= IR_OP_IMMEDIATE;
		put_be32(p->bhs.req.ttt, IR_RSVD_TAG);
		put_be32(p->bhs.req.cmdsn, c->cmdsn);
		put_be32(p->bhs.req.exp_statsn, c->expstatsn);
		break;
	case IR_OP_SCSI_CMD:
		p->bhs.cmd.flags |= IR_CMD_ATTR_SIMPLE;
		put_be32(p->bhs.cmd.cmdsn, c->cmdsn++);
		put_be32(p->bhs.cmd.exp_statsn, c->expstatsn);
		cdb = p->bhs.cmd.cdb;
		switch (rnd_below(6)) {
		case 0: /* READ(16) */
			p->bhs.cmd.flags |= IR_CMD_READ;
			cdb[0] = 0x88;
			put_be64(cdb + 2, rnd_below(64));
			put_be32(cdb + 10, 1 + rnd_below(16));
			put_be32(p->bhs.cmd.exp_xfer_len, get_be32(cdb + 10) * 512);
			break;
		case 1: /* WRITE(16) */
			p->bhs.cmd.flags |= IR_CMD_WRITE;
			cdb[0] = 0x8a;
			put_be64(cdb + 2, rnd_below(64));
			put_be32(cdb + 10, 1 + rnd_below(16));
			put_be32(p->bhs.cmd.exp_xfer_len, get_be32(cdb + 10) * 512);
			break;
		case 2: /* INQUIRY */
			p->bhs.cmd.flags |= IR_CMD_READ;
			cdb[0] = 0x12;
			put_be16(cdb + 3, 255);
			put_be32(p->bhs.cmd.exp_xfer_len, 255);
			break;
		case 3: { /* random CDB: the fuzz LUN only */
			unsigned i;

			for (i = 0; i < 16; i++)
				cdb[i] = (uint8_t)rnd();
			put_be32(p->bhs.cmd.exp_xfer_len, rnd_below(70000));
			p->bhs.cmd.flags |= (uint8_t)(rnd() & (IR_CMD_READ | IR_CMD_WRITE));
			break;
		}
		default: /* TEST UNIT READY */
			break;
		}
		break;
	case IR_OP_TMF_REQ:
		p->bhs.tmf_req.opcode |= IR_OP_IMMEDIATE;
		/* ABORT TASK, ABORT TASK SET, CLEAR ACA, TASK REASSIGN only */
		p->bhs.tmf_req.function =
		    (uint8_t)(IR_FLAG_FINAL | (uint8_t[]){1, 2, 3, 8}[rnd_below(4)]);
		put_be32(p->bhs.tmf_req.ref_task_tag, (uint32_t)rnd());
		put_be32(p->bhs.tmf_req.cmdsn, c->cmdsn);
		put_be32(p->bhs.tmf_req.exp_statsn, c->expstatsn);
		put_be32(p->bhs.tmf_req.ref_cmdsn, c->cmdsn - rnd_below(4));
		break;
	case IR_OP_LOGIN_REQ:
		ir_build_login_req(c, p, (int)rnd_below(4), (int)rnd_below(4), rnd_below(2),
				   rnd_below(4) == 0);
		break;
	case IR_OP_TEXT_REQ:
		put_be32(p->bhs.req.ttt, rnd_below(4) ? IR_RSVD_TAG : (uint32_t)rnd());
		put_be32(p->bhs.req.cmdsn, c->cmdsn++);
		put_be32(p->bhs.req.exp_statsn, c->expstatsn);
		break;
	case IR_OP_DATA_OUT:
		put_be32(p->bhs.data.itt, c->itt_next - 1 - rnd_below(3));
		put_be32(p->bhs.data.ttt, rnd_below(2) ? IR_RSVD_TAG : (uint32_t)rnd_below(16));
		put_be32(p->bhs.data.exp_statsn_or_cmdsn, c->expstatsn);
		put_be32(p->bhs.data.datasn, rnd_below(4));
		put_be32(p->bhs.data.buffer_offset, rnd_below(4) * 512);
		break;
	case IR_OP_LOGOUT_REQ:
		p->bhs.logout_req.reason = (uint8_t)(IR_FLAG_FINAL | rnd_below(4));
		memset(p->bhs.logout_req.rsvd8, 0, 8);
		put_be32(p->bhs.logout_req.cmdsn, c->cmdsn);
		put_be32(p->bhs.logout_req.exp_statsn, c->expstatsn);
		break;
	case IR_OP_SNACK_REQ:
		p->bhs.snack.type = (uint8_t)(IR_FLAG_FINAL | rnd_below(4));
		put_be32(p->bhs.snack.ttt, IR_RSVD_TAG);
		put_be32(p->bhs.snack.exp_statsn, c->expstatsn);
		put_be32(p->bhs.snack.begrun, rnd_below(8));
		put_be32(p->bhs.snack.run_length, rnd_below(8));
		break;
	default:
		break;
	}
}

static const uint32_t boundary32[] = {
    0,	   1,	   2,	   0x7f,    0x80,	0xff,	    0x100,	0x1ff,
    0x200, 0x2000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};

/* Applies 1..4 mutations to p (BHS fields, lengths, AHS, opcode). */
static void mutate(struct fz_conn *f, struct ir_pdu *p, uint8_t **data_owned, uint8_t **ahs_owned,
		   unsigned *enc_flags)
{
	unsigned n = 1 + rnd_below(4), i;
	uint8_t *b = p->bhs.raw;

	for (i = 0; i < n; i++) {
		switch (rnd_below(14)) {
		case 0: /* flip a random bit of the BHS */
			b[rnd_below(IR_BHS_LEN)] ^= (uint8_t)(1u << rnd_below(8));
			break;
		case 1: /* random byte */
			b[rnd_below(IR_BHS_LEN)] = (uint8_t)rnd();
			break;
		case 2: /* a 32-bit field at a 4-byte boundary gets a boundary value */
			put_be32(b + 4 * rnd_below(12),
				 boundary32[rnd_below(ARRAY_SIZE(boundary32))]);
			break;
		case 3: /* lie about DataSegmentLength */
			put_be24(b + 5,
				 rnd_below(3) ? rnd_below(70000) : (uint32_t)rnd() & 0xffffff);
			*enc_flags |= IR_ENC_KEEP_LENGTHS;
			break;
		case 4: /* lie about TotalAHSLength */
			b[4] = (uint8_t)rnd();
			*enc_flags |= IR_ENC_KEEP_LENGTHS;
			break;
		case 5: { /* real AHS of random type/length */
			uint32_t words = 1 + rnd_below(8), j;

			free(*ahs_owned);
			*ahs_owned = malloc(words * 4);
			for (j = 0; j < words * 4; j++)
				(*ahs_owned)[j] = (uint8_t)rnd();
			put_be16(*ahs_owned, (uint16_t)(rnd_below(2) ? words * 4 - 3 : rnd()));
			(*ahs_owned)[2] = (uint8_t)rnd_below(4);
			p->ahs = *ahs_owned;
			p->ahs_len = words * 4;
			break;
		}
		case 6: /* opcode: any value, invalid ones included */
			b[0] = (uint8_t)((b[0] & IR_OP_IMMEDIATE) | rnd_below(64));
			break;
		case 7: /* ITT / TTT reserved or colliding */
			put_be32(b + 16, rnd_below(2) ? IR_RSVD_TAG : f->c.itt_next - 1);
			put_be32(b + 20, rnd_below(2) ? IR_RSVD_TAG : (uint32_t)rnd_below(8));
			break;
		case 8: /* CmdSN / ExpStatSN around the window */
			put_be32(b + 24, f->c.cmdsn + (uint32_t)rnd_below(8) - 4 +
					     (rnd_below(4) ? 0 : 0x80000000u));
			put_be32(b + 28, f->c.expstatsn + (uint32_t)rnd_below(8) - 4);
			break;
		case 9: /* LUN: another LUN (sanitize() keeps the good one out) */
			ir_lun_encode(rnd_below(4) ? rnd_below(8) : rnd_below(16384), b + 8);
			break;
		case 10: { /* data segment: random size (up to 2x MRDSL or beyond) */
			uint32_t max = f->c.p.target_mrdsl ? f->c.p.target_mrdsl : 8192;
			uint32_t len = rnd_below(5) ? rnd_below(max + 1) : max + 1 + rnd_below(max);
			uint32_t j;

			free(*data_owned);
			*data_owned = malloc(len + 1);
			for (j = 0; j < len; j++)
				(*data_owned)[j] = (uint8_t)rnd();
			p->data = *data_owned;
			p->data_len = len;
			break;
		}
		case 11: /* flags byte */
			b[1] = (uint8_t)rnd();
			break;
		case 12: /* digests: corrupt one */
			*enc_flags |= rnd_below(2) ? IR_ENC_BAD_HDIGEST : IR_ENC_BAD_DDIGEST;
			break;
		default: /* opcode-specific bytes 2..3 */
			b[2] = (uint8_t)rnd();
			b[3] = (uint8_t)rnd();
			break;
		}
	}
}

/* Never let a mutation turn into a TMF that legitimately disturbs other
 * initiators (SAM-5 7: CLEAR TASK SET, LU RESET, TARGET RESET) or address
 * the good LUN with a SCSI command or TMF. */
static void sanitize(struct ir_pdu *p)
{
	uint8_t op = ir_pdu_opcode(p);

	if (op == IR_OP_TMF_REQ) {
		uint8_t fn = p->bhs.tmf_req.function & 0x7f;

		if (fn >= 4 && fn <= 7)
			p->bhs.tmf_req.function = (uint8_t)((p->bhs.tmf_req.function & 0x80) | 1);
	}
	/* whatever the addressing method (SAM-5 4.7), a first level that could
	 * decode to the good LUN is replaced */
	if ((op == IR_OP_SCSI_CMD || op == IR_OP_TMF_REQ || op == IR_OP_DATA_OUT) &&
	    (((p->bhs.common.lun[0] & 0x3fu) << 8 | p->bhs.common.lun[1]) == opt.good_lun ||
	     p->bhs.common.lun[1] == (uint8_t)opt.good_lun))
		ir_lun_encode(opt.fuzz_lun, p->bhs.common.lun);
}

/* Reads and discards what the target sends for up to ms; false when the
 * target closed the connection. */
static bool drain(struct fz_conn *f, int ms)
{
	for (;;) {
		struct ir_pdu p;
		int rc = ir_recv_pdu(&f->c, &p, ms);

		if (rc == -ETIMEDOUT)
			return true;
		if (rc)
			return false;
		/* answer keepalives so the target does not drop us for that */
		if (ir_pdu_opcode(&p) == IR_OP_NOP_IN && get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG &&
		    rnd_below(2)) {
			struct ir_pdu o = {0};

			o.bhs.req.opcode = IR_OP_IMMEDIATE | IR_OP_NOP_OUT;
			o.bhs.req.flags = IR_FLAG_FINAL;
			put_be32(o.bhs.req.itt, IR_RSVD_TAG);
			memcpy(o.bhs.req.ttt, p.bhs.rsp.ttt, 4);
			put_be32(o.bhs.req.cmdsn, f->c.cmdsn);
			put_be32(o.bhs.req.exp_statsn, f->c.expstatsn);
			ir_send_pdu(&f->c, &o);
		}
		ir_pdu_free(&p);
		ms = 0;
	}
}

static void fz_down(struct fz_conn *f, bool by_target)
{
	if (by_target)
		atomic_fetch_add(&st.drops, 1);
	ir_abort(&f->c, rnd_below(2));
	f->up = false;
	f->ffp = false;
}

static void fz_up(struct fz_conn *f)
{
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:netfuzz",
	    .target_name = opt.target,
	    .initial_r2t = (int)rnd_below(3) - 1,
	    .immediate_data = (int)rnd_below(3) - 1,
	};
	unsigned trunc = f->trunc_pos;
	int rc;

	ir_conn_init(&f->c);
	f->trunc_pos = trunc;
	f->c.timeout_ms = 3000;
	rc = ir_connect(&f->c, opt.host, opt.port, 3000);
	atomic_fetch_add(&st.connects, 1);
	if (rc) {
		usleep(10000);
		return;
	}
	f->up = true;
	if (rnd_below(10) == 0)
		return; /* fuzz the login phase */
	o.header_digest = rnd_below(3) == 0;
	o.data_digest = rnd_below(3) == 0;
	if (rnd_below(8) == 0)
		o.target_name = NULL; /* discovery session */
	o.max_recv_dsl = rnd_below(2) ? 8192 : 262144;
	rc = ir_login(&f->c, &o);
	if (rc) {
		fz_down(f, rc == -ECONNRESET);
		return;
	}
	atomic_fetch_add(&st.logins, 1);
	f->ffp = true;
}

static void fz_send(struct fz_conn *f, const void *buf, size_t len)
{
	if (ir_send_raw(&f->c, buf, len)) {
		fz_down(f, true);
		return;
	}
	atomic_fetch_add(&st.pdus, 1);
	atomic_fetch_add(&st.bytes, len);
}

static void fz_step(struct fz_conn *f)
{
	struct ir_pdu p;
	uint8_t *data = NULL, *ahs = NULL;
	unsigned flags = 0, action = rnd_below(100);
	struct ir_text t;
	uint8_t op;
	size_t len;
	uint8_t *wire;
	ssize_t n;

	ir_text_init(&t);
	if (opt.n_ops) { /* triage: only the chosen opcodes, always well framed */
		action = 20 + rnd_below(70);
	}
	if (action < 5) { /* random blob */
		size_t l = 1 + rnd_below(4096), i;
		uint8_t *blob = malloc(l);

		for (i = 0; i < l; i++)
			blob[i] = (uint8_t)rnd();
		if (l >= IR_BHS_LEN && rnd_below(2))
			blob[0] = init_opcodes[rnd_below(ARRAY_SIZE(init_opcodes))];
		fz_send(f, blob, l);
		free(blob);
		return;
	}
	op = action < 90 ? init_opcodes[rnd_below(ARRAY_SIZE(init_opcodes))]
			 : (uint8_t)rnd_below(64); /* any opcode incl. target/invalid */
	if (!f->ffp && rnd_below(2))
		op = IR_OP_LOGIN_REQ;
	if (opt.n_ops)
		op = opt.ops[rnd_below(opt.n_ops)];
	build_template(f, op, &p);
	if (op == IR_OP_LOGIN_REQ || op == IR_OP_TEXT_REQ || rnd_below(10) == 0) {
		random_text(&t, rnd_below(4) ? 8192 : 20000);
		p.data = t.buf;
		p.data_len = (uint32_t)t.len;
	}
	if (op == IR_OP_NOP_OUT || op == IR_OP_DATA_OUT) {
		uint32_t l = rnd_below(2048), j;

		data = malloc(l + 1);
		for (j = 0; j < l; j++)
			data[j] = (uint8_t)j;
		p.data = data;
		p.data_len = l;
	}
	if (action >= 20)
		mutate(f, &p, &data, &ahs, &flags);
	sanitize(&p);
	if (rnd_below(8) == 0)
		flags |= rnd_below(2) ? IR_ENC_NO_DIGESTS : IR_ENC_FORCE_DIGESTS;
	len = ir_pdu_wire_len(&p, f->c.hdigest || (flags & IR_ENC_FORCE_DIGESTS),
			      f->c.ddigest || (flags & IR_ENC_FORCE_DIGESTS));
	wire = malloc(len);
	n = ir_pdu_encode(&p, f->c.hdigest, f->c.ddigest, flags, wire, len);
	if (n > 0) {
		if (action < 15) {
			/* truncation sweep: the first k bytes, then disconnect */
			size_t k = f->trunc_pos++ % (size_t)n;

			fz_send(f, wire, k);
			if (f->up)
				fz_down(f, false);
		} else {
			fz_send(f, wire, (size_t)n);
		}
	}
	free(wire);
	free(data);
	free(ahs);
	ir_text_free(&t);
}

/* One truncation: a fresh connection (logged in with both digests for the
 * full feature phase templates) sends the first k bytes of template t and
 * disconnects, with a FIN or a RST. Returns the template's full length. */
static size_t sweep_one(unsigned t, size_t k, bool rst)
{
	static const char keys[] = "InitiatorName=iqn.2026-12.org.utarget:netfuzz-sweep\0"
				   "SessionType=Normal\0AuthMethod=None\0";
	struct fz_conn f = {.up = false};
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:netfuzz-sweep",
	    .target_name = opt.target,
	    .header_digest = true,
	    .data_digest = true,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	uint8_t data[512], *wire;
	struct ir_pdu p = {0};
	ssize_t n;
	size_t len;

	memset(data, 0x6b, sizeof(data));
	ir_conn_init(&f.c);
	f.c.timeout_ms = 3000;
	if (ir_connect(&f.c, opt.host, opt.port, 3000)) {
		if (opt.verbose)
			printf("netfuzz: sweep template %u: connect failed\n", t);
		return 0;
	}
	atomic_fetch_add(&st.sweep_conns, 1);
	if (t == 0) { /* the first Login Request */
		f.c.cmdsn = 1;
		f.c.isid[0] = 0x80;
		ir_build_login_req(&f.c, &p, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, true, false);
		p.data = (uint8_t *)(uintptr_t)keys;
		p.data_len = sizeof(keys) - 1;
	} else {
		int rc = ir_login(&f.c, &o);

		if (rc) {
			if (opt.verbose)
				printf("netfuzz: sweep template %u: login failed: %s, status "
				       "%02x/%02x %s\n",
				       t, strerror(-rc), f.c.login_class, f.c.login_detail,
				       f.c.err);
			ir_close(&f.c);
			return 0;
		}
		build_template(&f,
			       t == 1	? IR_OP_SCSI_CMD
			       : t == 2 ? IR_OP_TEXT_REQ
					: IR_OP_NOP_OUT,
			       &p);
		if (t == 1) { /* WRITE(16) of one block with immediate data */
			uint8_t *cdb = p.bhs.cmd.cdb;

			memset(cdb, 0, 16);
			cdb[0] = 0x8a;
			put_be64(cdb + 2, 8);
			put_be32(cdb + 10, 1);
			p.bhs.cmd.flags = IR_FLAG_FINAL | IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
			put_be32(p.bhs.cmd.exp_xfer_len, 512);
			p.data = data;
			p.data_len = 512;
		} else if (t == 2) {
			static const char st_all[] = "SendTargets=All";

			put_be32(p.bhs.req.ttt, IR_RSVD_TAG);
			p.data = (uint8_t *)(uintptr_t)st_all;
			p.data_len = sizeof(st_all);
		} else {
			p.data = data;
			p.data_len = 100;
		}
	}
	len = ir_pdu_wire_len(&p, f.c.hdigest, f.c.ddigest);
	wire = malloc(len);
	n = ir_pdu_encode(&p, f.c.hdigest, f.c.ddigest, 0, wire, len);
	if (n > 0 && k < (size_t)n && !ir_send_raw(&f.c, wire, k)) {
		atomic_fetch_add(&st.pdus, 1);
		atomic_fetch_add(&st.bytes, k);
	}
	free(wire);
	ir_abort(&f.c, rst);
	return n > 0 ? (size_t)n : 0;
}

/* Disconnects at every byte position of four PDUs: a first Login Request,
 * a WRITE with immediate data, a Text Request and a NOP-Out with data (the
 * last three with header and data digests). */
static void sweep(void)
{
	unsigned t;

	for (t = 0; t < 4 && !atomic_load(&st.good_fail); t++) {
		size_t len = 0, k;
		int tries;

		/* The target may refuse new connections for a moment while it
		 * still counts the ones just cut as logins in progress (a cap
		 * is allowed): a template that cannot log in is retried. */
		for (k = 0; k < len || !k; k++) {
			size_t l = 0;

			for (tries = 0; tries < 50 && !l; tries++) {
				l = sweep_one(t, k, k & 1);
				if (!l)
					usleep(20000);
			}
			if (!l) {
				printf("netfuzz: sweep template %u: no session for 1 s\n", t);
				break;
			}
			len = l;
			if (atomic_load(&st.good_fail))
				break;
		}
		if (opt.verbose)
			printf("netfuzz: sweep of template %u: %zu positions\n", t, len);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: netfuzz --addr HOST:PORT --target IQN [--fuzz-lun N] [--good-lun N]\n"
		"               [--good-lba LBA] [--good-source ADDR] [--seconds S | --pdus N]\n"
		"               [--seed N] [--pid PID]\n"
		"               [--rss-max-growth MIB] [--rss-max-late-growth MIB] [--no-sweep]\n"
		"               [--ops OP,OP...] [-v]\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end || end == s ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"fuzz-lun", required_argument, NULL, 'l'},
	    {"good-lun", required_argument, NULL, 'g'},
	    {"good-lba", required_argument, NULL, 'b'},
	    {"good-source", required_argument, NULL, 'G'},
	    {"seconds", required_argument, NULL, 's'},
	    {"pdus", required_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 'S'},
	    {"pid", required_argument, NULL, 'p'},
	    {"rss-max-growth", required_argument, NULL, 'r'},
	    {"rss-max-late-growth", required_argument, NULL, 'R'},
	    {"no-sweep", no_argument, NULL, 'W'},
	    {"ops", required_argument, NULL, 'O'},
	    {"verbose", no_argument, NULL, 'v'},
	    {0},
	};
	struct fz_conn f = {.up = false};
	const char *addr = NULL;
	pthread_t th;
	long rss0 = -1, rss1 = -1, rss_mid = -1;
	int64_t t_mid;
	int64_t t0, deadline;
	bool alive = true, serving = true, bad = false;
	uint64_t v;
	int ch;

	opt.seed = (uint64_t)time(NULL);
	while ((ch = getopt_long(argc, argv, "a:t:l:g:b:G:s:n:S:p:r:R:WO:v", lopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			opt.target = optarg;
			break;
		case 'l':
			if (parse_u64(optarg, &opt.fuzz_lun))
				return usage(), 2;
			break;
		case 'g':
			if (parse_u64(optarg, &opt.good_lun))
				return usage(), 2;
			break;
		case 'b':
			if (parse_u64(optarg, &opt.good_lba))
				return usage(), 2;
			break;
		case 'G':
			opt.good_source = optarg;
			break;
		case 's':
			if (parse_u64(optarg, &v))
				return usage(), 2;
			opt.seconds = (double)v;
			break;
		case 'n':
			if (parse_u64(optarg, &opt.max_pdus))
				return usage(), 2;
			break;
		case 'S':
			if (parse_u64(optarg, &opt.seed))
				return usage(), 2;
			break;
		case 'p':
			if (parse_u64(optarg, &v))
				return usage(), 2;
			opt.pid = (pid_t)v;
			break;
		case 'r':
			if (parse_u64(optarg, &v))
				return usage(), 2;
			opt.rss_max_growth_kb = v * 1024;
			break;
		case 'R':
			if (parse_u64(optarg, &v))
				return usage(), 2;
			opt.rss_max_late_kb = v * 1024;
			break;
		case 'W':
			opt.no_sweep = true;
			break;
		case 'O': {
			char *p = optarg, *end;

			while (*p && opt.n_ops < ARRAY_SIZE(opt.ops)) {
				unsigned long o = strtoul(p, &end, 0);

				if (end == p || o > 0x3f)
					return usage(), 2;
				opt.ops[opt.n_ops++] = (uint8_t)o;
				p = *end == ',' ? end + 1 : end;
			}
			break;
		}
		case 'v':
			opt.verbose++;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!addr || !opt.target ||
	    ir_parse_addr(addr, opt.host, sizeof(opt.host), opt.port, sizeof(opt.port))) {
		usage();
		return 2;
	}
	if (opt.fuzz_lun == opt.good_lun) {
		fprintf(stderr, "netfuzz: --fuzz-lun must differ from --good-lun\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	rnd_state = opt.seed * 2654435761u + 1;
	printf("netfuzz: seed %llu, target %s at %s, fuzz LUN %llu, good LUN %llu\n",
	       (unsigned long long)opt.seed, opt.target, addr, (unsigned long long)opt.fuzz_lun,
	       (unsigned long long)opt.good_lun);
	if (opt.pid)
		rss0 = rss_kb(opt.pid);
	if (pthread_create(&th, NULL, good_thread, NULL)) {
		fprintf(stderr, "netfuzz: pthread_create failed\n");
		return 1;
	}
	t0 = now_us();
	if (!opt.no_sweep) {
		sweep();
		printf("netfuzz: truncation sweep: %llu connections, each cut at another byte "
		       "position, %.1f s\n",
		       (unsigned long long)atomic_load(&st.sweep_conns),
		       (double)(now_us() - t0) / 1e6);
	}
	deadline = now_us() + (int64_t)(opt.seconds * 1e6);
	t_mid = now_us() + (int64_t)(opt.seconds * 0.5e6);
	while (!opt.max_pdus || atomic_load(&st.pdus) < opt.max_pdus) {
		if (!opt.max_pdus && now_us() >= deadline)
			break;
		if (atomic_load(&st.good_fail))
			break;
		if (opt.pid && kill(opt.pid, 0) != 0) {
			alive = false;
			break;
		}
		if (opt.pid && rss_mid < 0 && now_us() >= t_mid)
			rss_mid = rss_kb(opt.pid); /* pools are warm by now */
		if (!f.up) {
			fz_up(&f);
			continue;
		}
		fz_step(&f);
		if (f.up && !drain(&f, rnd_below(4) == 0 ? 5 : 0))
			fz_down(&f, true);
	}
	if (f.up)
		fz_down(&f, false);
	atomic_store(&stop_flag, true);
	pthread_join(th, NULL);
	if (opt.pid) {
		alive = alive && kill(opt.pid, 0) == 0;
		rss1 = rss_kb(opt.pid);
	}
	/* a fresh session must still work */
	if (alive) {
		struct ir_conn c;
		struct ir_login_opts o = {
		    .initiator_name = "iqn.2026-12.org.utarget:netfuzz-check",
		    .target_name = opt.target,
		    .initial_r2t = -1,
		    .immediate_data = -1,
		};
		uint8_t resp;

		ir_conn_init(&c);
		if (ir_connect(&c, opt.host, opt.port, 3000) || ir_login(&c, &o) ||
		    ir_logout(&c, &resp)) {
			serving = false;
			fprintf(stderr, "netfuzz: a fresh session failed after fuzzing: %s\n",
				c.err);
		}
		ir_close(&c);
	}
	printf("netfuzz: %.1f s, %llu PDUs (%llu bytes) sent, %llu connections, %llu logins, "
	       "%llu dropped by the target\n",
	       (double)(now_us() - t0) / 1e6, (unsigned long long)atomic_load(&st.pdus),
	       (unsigned long long)atomic_load(&st.bytes),
	       (unsigned long long)atomic_load(&st.connects),
	       (unsigned long long)atomic_load(&st.logins),
	       (unsigned long long)atomic_load(&st.drops));
	printf("netfuzz: good session: %llu I/Os done, %llu failed, %llu unit attentions, max "
	       "write+read+verify %.1f ms%s%s\n",
	       (unsigned long long)atomic_load(&st.good_ios),
	       (unsigned long long)atomic_load(&st.good_fail),
	       (unsigned long long)atomic_load(&st.good_ua),
	       (double)atomic_load(&st.good_max_lat_us) / 1000.0, good_err[0] ? ": " : "",
	       good_err);
	if (opt.pid)
		printf("netfuzz: target pid %d %s, RSS %ld kB before, %ld kB at half time, %ld kB "
		       "after (bounds: +%llu kB in all, +%llu kB over the second half)\n",
		       (int)opt.pid, alive ? "alive" : "DEAD", rss0, rss_mid, rss1,
		       (unsigned long long)opt.rss_max_growth_kb,
		       (unsigned long long)opt.rss_max_late_kb);
	if (!alive || !serving) {
		printf("netfuzz: FAIL: the target %s\n", alive ? "stopped serving" : "died");
		bad = true;
	}
	if (atomic_load(&st.good_fail) || !atomic_load(&st.good_ios)) {
		printf("netfuzz: FAIL: the well-behaved session failed\n");
		bad = true;
	}
	if (opt.pid && rss0 > 0 && rss1 > 0 && rss1 - rss0 > (long)opt.rss_max_growth_kb) {
		printf("netfuzz: FAIL: RSS grew by %ld kB\n", rss1 - rss0);
		bad = true;
	}
	/* steady growth once warm is a leak, whatever the total */
	if (opt.pid && rss_mid > 0 && rss1 > 0 && rss1 - rss_mid > (long)opt.rss_max_late_kb) {
		printf("netfuzz: FAIL: RSS grew by %ld kB over the second half (a leak)\n",
		       rss1 - rss_mid);
		bad = true;
	}
	printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
	return bad ? 1 : 0;
}
