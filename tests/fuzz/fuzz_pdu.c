/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_pdu.c: libFuzzer harness (1): the iSCSI PDU receive path (BHS, AHS,
 * header and data digests, data segment, padding) and everything behind it
 * (login, Text/SendTargets, NOP, TMF, logout, SCSI commands with immediate,
 * unsolicited and solicited data) on a socket-less connection
 * (iscsi_conn_new with a test writer) over the real SCSI core and RAM
 * back-stores (fuzz_env.h).
 *
 * Input: one mode byte, then the byte stream the initiator sends.
 *   mode bits 0-1  phase the stream starts in: 0 = a fresh connection (the
 *                  stream must log in itself), 1 = after a discovery login,
 *                  2 = after a normal login (the harness logs in), 3 = the
 *                  same with the buffer memory cap at 1 MiB (back-pressure:
 *                  commands wait for memory, mempress.c)
 *   bit 2          the harness login negotiates HeaderDigest and DataDigest
 *                  CRC32C
 *   bit 3          framed: the harness cuts the stream into PDUs (BHS, AHS
 *                  per TotalAHSLength, DataSegmentLength bytes of data, made
 *                  to fit what is left) and adds padding and correct digests,
 *                  so the fuzzer reaches what lies behind the digest checks
 *   bit 4          (framed) CmdSN of every request set to the next expected
 *                  one, so commands fall inside the window
 *   bits 5-7       feed size: the stream goes in pieces of 0 = all at once,
 *                  1, 3, 7, 48, 49, 512, 4096 bytes (resumable parsing)
 *
 * Built with FUZZ_PDU_ERL (fuzz_erl.c, the harness `fuzz_erl`): the ERL 1 recovery paths
 * (RFC 7143 7.1-7.2, 11.16; erl.c, snack.c, dataack.c, retain.c), which need
 * digests that fail on purpose. The target offers ErrorRecoveryLevel 1, the
 * harness logs in asking for it with CRC32C digests, and the stream is always
 * framed. Input: one mode byte (bits 0-2 feed size as above, bit 3 CmdSN
 * fixed as bit 4 above, bit 4 MaxBurstLength 2048 so that reads longer than
 * that get the A bit), then per PDU a fault byte (bit 0 the header digest is
 * wrong, bit 1 the data digest is wrong, bit 2 ExpStatSN set to 0, bit 3
 * ExpStatSN set past the target's: what it acknowledges frees retained
 * copies) followed by the PDU as in framed mode.
 * The target's replies are discarded. Each input gets a fresh target,
 * connection and back-stores; at the end the connection is destroyed and the
 * harness waits until every session and task is gone (a hang is reported as
 * a crash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_env.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/proto.h"
#include "fabric/iscsi/target.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

#define PDU_WIRE_MAX (ISCSI_BHS_LEN + 1020 + 4 + (1u << 18) + 8)

static ssize_t pdu_writev(struct iscsi_conn *c, const struct iovec *iov, int n)
{
	size_t total = 0;

	(void)c;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	return (ssize_t)total;
}

static const struct iscsi_conn_io pdu_io = {.writev = pdu_writev};

struct pdu_ctx {
	struct iscsi_conn *c;
	bool hdigest, ddigest;
	uint32_t cmdsn;
	uint8_t *wire;
};

static size_t pdu_keys(uint8_t *buf, const char *const *kv)
{
	size_t n = 0;

	for (; *kv; kv++) {
		size_t l = strlen(*kv) + 1;

		memcpy(buf + n, *kv, l);
		n += l;
	}
	return n;
}

/* The harness's own login: one Login Request straight to full feature phase. */
static bool pdu_login(struct pdu_ctx *x, bool discovery, bool digests, bool short_burst)
{
	const char *normal[] = {
#ifdef FUZZ_PDU_ERL
	    "ErrorRecoveryLevel=1",
	    short_burst ? "MaxBurstLength=2048" : "MaxBurstLength=262144",
#endif
	    "InitiatorName=" FZ_INITIATOR,
	    "TargetName=" FZ_TARGET,
	    "SessionType=Normal",
	    digests ? "HeaderDigest=CRC32C" : "HeaderDigest=None",
	    digests ? "DataDigest=CRC32C" : "DataDigest=None",
	    "ImmediateData=Yes",
	    "InitialR2T=No",
	    "MaxRecvDataSegmentLength=65536",
	    NULL};
	(void)short_burst; /* used by the ERL variant */
	const char *disc[] = {"InitiatorName=" FZ_INITIATOR, "SessionType=Discovery",
			      digests ? "HeaderDigest=CRC32C" : "HeaderDigest=None",
			      digests ? "DataDigest=CRC32C" : "DataDigest=None", NULL};
	static const uint8_t isid[6] = {0x80, 0x00, 0x00, 0x00, 0x00, 0x01};
	uint8_t *w = x->wire;
	size_t dsl = pdu_keys(w + ISCSI_BHS_LEN, discovery ? disc : normal);
	union iscsi_hdr *h = (union iscsi_hdr *)w;

	memset(w, 0, ISCSI_BHS_LEN);
	h->login_req.opcode = ISCSI_OP_LOGIN_REQ | ISCSI_OP_IMMEDIATE;
	h->login_req.flags =
	    ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE;
	memcpy(h->login_req.isid, isid, sizeof(isid));
	put_be32(h->login_req.itt, 0x7f000000u);
	put_be32(h->login_req.cmdsn, x->cmdsn);
	put_be24(h->bhs.dsl, (uint32_t)dsl);
	memset(w + ISCSI_BHS_LEN + dsl, 0, ISCSI_PAD((uint32_t)dsl));
	if (iscsi_conn_feed(x->c, w, ISCSI_BHS_LEN + dsl + ISCSI_PAD((uint32_t)dsl)))
		return false;
	fz_pump();
	x->hdigest = x->ddigest = digests;
	return iscsi_conn_state(x->c) == ISCSI_CONN_S5_LOGGED_IN;
}

static bool pdu_has_cmdsn(unsigned op)
{
	switch (op) {
	case ISCSI_OP_NOP_OUT:
	case ISCSI_OP_SCSI_CMD:
	case ISCSI_OP_TMF_REQ:
	case ISCSI_OP_LOGIN_REQ:
	case ISCSI_OP_TEXT_REQ:
	case ISCSI_OP_LOGOUT_REQ:
		return true;
	default:
		return false;
	}
}

/* Cut the next PDU off the input into x->wire; returns its wire length. */
static size_t pdu_frame(struct pdu_ctx *x, struct fz_in *in, bool fix_sn)
{
	uint8_t *w = x->wire;
	size_t n, got, ahs, dsl;
	const uint8_t *p = fz_bytes(in, ISCSI_BHS_LEN, &got);
	unsigned op;

	memset(w, 0, ISCSI_BHS_LEN);
	memcpy(w, p, got);
	n = ISCSI_BHS_LEN;
	op = w[0] & ISCSI_OPCODE_MASK;
	if (fix_sn && pdu_has_cmdsn(op)) {
		put_be32(w + 24, x->cmdsn);
		if (!(w[0] & ISCSI_OP_IMMEDIATE))
			x->cmdsn++;
	}
	ahs = (size_t)w[4] * 4;
	p = fz_bytes(in, ahs, &got);
	memcpy(w + n, p, got);
	w[4] = (uint8_t)((got + 3) / 4);
	memset(w + n + got, 0, (size_t)w[4] * 4 - got);
	n += (size_t)w[4] * 4;
	dsl = get_be24(w + 5);
	if (dsl > (1u << 18))
		dsl = 1u << 18; /* PDU_WIRE_MAX */
	p = fz_bytes(in, dsl, &got);
	put_be24(w + 5, (uint32_t)got);
	if (x->hdigest) {
		put_le32(w + n, crc32c(w, n));
		n += 4;
	}
	if (got) {
		size_t start = n;

		memcpy(w + n, p, got);
		n += got;
		memset(w + n, 0, ISCSI_PAD((uint32_t)got));
		n += ISCSI_PAD((uint32_t)got);
		if (x->ddigest) {
			put_le32(w + n, crc32c(w + start, n - start));
			n += 4;
		}
	}
	return n;
}

#ifdef FUZZ_PDU_ERL
/* The fault byte of a framed PDU of n bytes (the ERL variant's input). */
static void pdu_fault(struct pdu_ctx *x, size_t n, uint8_t fault)
{
	uint8_t *w = x->wire;
	size_t hd = ISCSI_BHS_LEN + (size_t)w[4] * 4;

	if (fault & 4u)
		put_be32(w + 28, 0);
	if (fault & 8u)
		put_be32(w + 28, get_be32(w + 28) + 0x10000u);
	if (fault & 12u)
		put_le32(w + hd, crc32c(w, hd)); /* the header changed */
	if (fault & 1u)
		w[hd] ^= 0x01;
	if ((fault & 2u) && get_be24(w + 5))
		w[n - 1] ^= 0x80;
}
#endif

static struct iscsi_conn *pdu_conn; /* for pdu_settled() */

/* No command waits for buffer memory any more. */
static bool pdu_settled(void)
{
	return !pdu_conn || iscsi_conn_dead(pdu_conn) || !pdu_conn->mem_wait;
}

static void pdu_settings(unsigned cap_mib)
{
	struct iscsi_settings s;

	iscsi_settings_default(&s);
#ifdef FUZZ_PDU_ERL
	s.error_recovery_level = 1;
#endif
	s.nop_in_interval_s = 0;
	s.login_timeout_s = 3600;
	s.queue_depth = 32;
	s.max_buffer_memory_mib = cap_mib;
	iscsi_init(&s);
}

static bool pdu_quiet(void)
{
	bool q;

	pthread_mutex_lock(&iscsi_global.lock);
	q = iscsi_global.nconns == 0 && iscsi_global.nsessions == 0;
	pthread_mutex_unlock(&iscsi_global.lock);
	return q;
}

/* Feed bytes in pieces of `piece` (0: at once). false once the connection
 * has gone. */
static bool pdu_feed(struct pdu_ctx *x, const uint8_t *p, size_t len, size_t piece)
{
	if (!piece)
		piece = len;
	while (len) {
		size_t k = len < piece ? len : piece;

		if (iscsi_conn_feed(x->c, p, k))
			return false;
		fz_pump();
		p += k;
		len -= k;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t pieces[8] = {0, 1, 3, 7, 48, 49, 512, 4096};
	struct fz_in in = {.p = data, .len = size};
	struct pdu_ctx x = {.cmdsn = 1};
	struct iscsi_target *it;
	struct iscsi_tpg *tpg;
	struct iscsi_portal *portal;
	struct fz_scsi env;
	uint8_t mode;
	unsigned phase;
	size_t piece;
	bool digests, framed, fix_sn, short_burst = false;

	if (size < 1)
		return 0;
	fz_init();
	mode = fz_u8(&in);
	phase = mode & 3u;
	piece = pieces[mode >> 5];
	if (fz_scsi_create(&env))
		abort();
	it = iscsi_target_add(env.t, "fuzz");
	tpg = it ? iscsi_tpg_add(it, 1, 1, 0) : NULL;
	portal = tpg ? iscsi_portal_new_virtual(tpg) : NULL;
	x.wire = malloc(PDU_WIRE_MAX);
	if (!portal || !x.wire)
		abort();
	digests = mode & 4u;
	framed = mode & 8u;
	fix_sn = mode & 16u;
#ifdef FUZZ_PDU_ERL
	phase = 2;
	digests = framed = true;
	fix_sn = mode & 8u;
	short_burst = mode & 16u;
	piece = pieces[mode & 7u];
	pdu_settings(1024);
#endif
	if (phase == 3)
		pdu_settings(1);
	x.c = iscsi_conn_new(fz_reactor(), -1, portal, &pdu_io);
	if (!x.c)
		abort();
	pdu_conn = x.c;

	if (phase == 0 || pdu_login(&x, phase == 1, digests, short_burst)) {
		if (framed) {
			while (fz_left(&in)) {
#ifdef FUZZ_PDU_ERL
				uint8_t fault = fz_u8(&in);
				size_t n = pdu_frame(&x, &in, fix_sn);

				pdu_fault(&x, n, fault);
#else
				size_t n = pdu_frame(&x, &in, fix_sn);
#endif

				if (!pdu_feed(&x, x.wire, n, piece))
					break;
			}
		} else {
			pdu_feed(&x, in.p + in.off, fz_left(&in), piece);
		}
	}

	/* a command waiting for memory: let the retry timer (2 ms) run */
	fz_pump_until(pdu_settled, 20);
	pdu_conn = NULL;
	iscsi_conn_destroy(x.c);
	if (phase == 3)
		pdu_settings(1024);
	if (!fz_pump_until(pdu_quiet, 10000)) {
		fprintf(stderr, "fuzz_pdu: a connection or session did not end\n");
		abort();
	}
	iscsi_portal_free_virtual(portal);
	iscsi_target_del(it);
	fz_pump();
	fz_scsi_destroy(&env);
	free(x.wire);
	return 0;
}
