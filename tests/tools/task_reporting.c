/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task_reporting: how the target reports the end of the tasks a task
 * management function aborts (RFC 7143 4.2.3, TaskReporting 13.23), and
 * whether REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS matches the functions
 * the iSCSI fabric executes, through the project's raw initiator.
 *
 *   task_reporting HOST:PORT TARGET
 *
 * The target must let demo initiators write and reset it (demo_mode
 * read_only false, target_reset true), allow 2 connections per session
 * (limits.max_connections) and send no NOP-In keepalives. Checks:
 *   negotiation  TaskReporting=FastAbort,ResponseFence,RFC3720 is answered
 *                FastAbort, ResponseFence,RFC3720 ResponseFence (the
 *                initiator's first: the target implements all three, see
 *                src/fabric/iscsi/task_reporting.c), a value it does not
 *                know Reject;
 *   rstmf        at iSCSIProtocolLevel 1 and 2: each function of tmf_table
 *                is answered "Function not supported" (5) exactly when
 *                REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS does not report
 *                it (functions without an RSTMF bit: their own expected
 *                answer in the table);
 *   drain        TaskReporting=RFC3720 semantics (4.2.3.3 a): a WRITE
 *                waiting for the rest of its R2T's burst on each of the two
 *                connections of an MC/S session, and one of a second
 *                session; LOGICAL UNIT RESET on the first connection: the
 *                third party's WRITE ends (TASK ABORTED, TAS=1) without
 *                waiting, and its connection gets a NOP-In ping (4.2.3.3
 *                d): its StatSNs are waited for too); the TMF response
 *                does not come while either burst of the issuing session
 *                is open or the ping is not answered; it comes (Function
 *                complete) once the second one's F bit and the third
 *                party's NOP-Out are sent, no R2T for
 *                the second bursts and no SCSI Response for the aborted
 *                WRITEs come; the next command gets the reset's unit
 *                attention (06/29/03); then ABORT TASK SET on one
 *                connection the same way;
 *   statsn_ack   (4.2.3.3 d) ABORT TASK SET on cid 0 while the status of a
 *                TEST UNIT READY on cid 1 is not acknowledged: a NOP-In
 *                ping on cid 1, no TMF response until its NOP-Out answer
 *                (carrying ExpStatSN) is sent, then Function complete;
 *   fast_abort   TaskReporting=FastAbort (4.2.3.4) answered FastAbort on an
 *                MC/S session; a WRITE with a partly sent R2T burst on each
 *                connection, LOGICAL UNIT RESET on cid 0: neither waits for
 *                its burst (no F bit is ever sent); cid 1 gets AsyncEvent 5
 *                (11.9.1: F, ITT 0xffffffff, LUN 0, the next StatSN), cid 0
 *                none; a Data-Out still sent on cid 1 is discarded without
 *                Reject; no TMF response on cid 0 until the NOP-Out (ITT
 *                0xffffffff, the LUN copied) acknowledges the message's
 *                StatSN (4.2.3.3 d), then Function complete; the Response
 *                Fence (13.23): a NOP-In ping on cid 0, and a TEST UNIT
 *                READY on cid 1 gets its status (GOOD or 06/29/03) only
 *                once the ping's NOP-Out acknowledges the TMF response; no
 *                R2T nor SCSI Response for the aborted WRITEs; WRITE and
 *                READ back on both connections;
 *   response_fence  TaskReporting=ResponseFence answered ResponseFence:
 *                ABORT TASK SET keeps the standard semantics (no AsyncEvent
 *                5, the response follows the F bit of the burst open on cid
 *                1) and gets the Response Fence as in fast_abort; WRITE and
 *                READ back on both connections;
 *   third_party_fast_abort  (4.2.3.4, 4.2.3.3 d) a third party that
 *                negotiated TaskReporting=FastAbort has a WRITE with a
 *                partly sent R2T burst; another session's LOGICAL UNIT
 *                RESET: the third party gets, in this order, AsyncEvent 5
 *                (11.9.1: F, ITT 0xffffffff, LUN 0, its next StatSN), TASK
 *                ABORTED (TAS=1) for the WRITE, a NOP-In ping; a Data-Out
 *                whose ExpStatSN does not cover the message is discarded
 *                without Reject; no TMF response to the issuing session
 *                until the third party's NOP-Out (ITT and TTT 0xffffffff,
 *                the LUN copied, ExpStatSN covering both) comes, then
 *                Function complete within 1 s of it (not the 5 s cap);
 *   third_party_cap  the same with a third party at the default
 *                TaskReporting that never answers its ping: the TMF
 *                response comes no sooner than 4 s and by 8 s after the
 *                TMF (the target waits 5 s for a third party at most,
 *                THIRD_PARTY_WAIT_S); the delay is printed.
 * Prints "ok: ..." per check; exit 0 when all passed, 1 on the first
 * failure, 2 on usage or connection errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/endian.h"

#define BS	    512u
#define BURST	    4096u /* MaxBurstLength offered */
#define WRITE_LEN   (2 * BURST)
#define QUIET_MS    1200 /* how long "nothing comes" is watched */
#define TMF_NOT_SUP 5

static const char *target;
static int erl_offer; /* ErrorRecoveryLevel the next login offers */
static char host[256], port[16];

static void die(const char *what, const struct ir_conn *c)
{
	fprintf(stderr, "task_reporting: %s: %s\n", what, c->err);
	exit(2);
}

/* ---- sessions ---- */

struct sess {
	struct ir_conn c[2];
	unsigned n;
	struct ir_session s; /* s.cmdsn: the session's next CmdSN, over its connections */
};

/* Connection cid of session s (its leading login when cid is 0). */
static int login(struct sess *s, uint16_t cid, const char *iname, const char *keys, size_t keys_len)
{
	struct ir_conn *c = &s->c[cid];
	struct ir_login_opts o = {
	    .initiator_name = iname,
	    .target_name = target,
	    .initial_r2t = 1,
	    .immediate_data = 0,
	    .max_burst = BURST,
	    .first_burst = BURST,
	    .extra_keys = (const uint8_t *)keys,
	    .extra_keys_len = keys_len,
	    .cid = cid,
	    .max_connections = 2,
	    .erl = erl_offer,
	};

	ir_conn_init(c);
	/* ITTs unique in the session (11.2.1.8): the CID in the high bits */
	c->itt_next = ((uint32_t)cid << 20) | 1u;
	return ir_session_login(&s->s, c, host, port, &o);
}

static void sess_open(struct sess *s, const char *iname, unsigned nconns, const char *keys,
		      size_t keys_len)
{
	memset(s, 0, sizeof(*s));
	if (login(s, 0, iname, keys, keys_len))
		die("login", &s->c[0]);
	for (unsigned i = 1; i < nconns; i++)
		if (login(s, (uint16_t)i, iname, NULL, 0))
			die("login of a second connection", &s->c[i]);
	s->n = nconns;
}

static void sess_close(struct sess *s)
{
	for (unsigned i = 0; i < s->n; i++)
		ir_close(&s->c[i]);
}

/* The connection takes the session's CmdSN (and gives it back). */
static struct ir_conn *use(struct sess *s, unsigned i)
{
	struct ir_conn *c = &s->c[i];

	c->cmdsn = s->s.cmdsn;
	for (unsigned j = 0; j < s->n; j++)
		if (ir_sn_lt(c->max_cmdsn, s->c[j].max_cmdsn))
			c->max_cmdsn = s->c[j].max_cmdsn;
	return c;
}

static void used(struct sess *s, unsigned i)
{
	s->s.cmdsn = s->c[i].cmdsn;
}

/* The next PDU on c that is not a NOP-In (answered when it asks), or
 * -ETIMEDOUT. */
static int recv_pdu(struct ir_conn *c, struct ir_pdu *p, int timeout_ms)
{
	for (;;) {
		int rc = ir_recv_pdu(c, p, timeout_ms);

		if (rc)
			return rc;
		if (ir_pdu_opcode(p) != IR_OP_NOP_IN)
			return 0;
		if (get_be32(p->bhs.rsp.ttt) != IR_RSVD_TAG) {
			struct ir_pdu o = {0};

			o.bhs.req.opcode = IR_OP_NOP_OUT | IR_OP_IMMEDIATE;
			o.bhs.req.flags = IR_FLAG_FINAL;
			memcpy(o.bhs.req.lun, p->bhs.rsp.lun, 8);
			put_be32(o.bhs.req.itt, IR_RSVD_TAG);
			memcpy(o.bhs.req.ttt, p->bhs.rsp.ttt, 4);
			put_be32(o.bhs.req.cmdsn, c->cmdsn);
			put_be32(o.bhs.req.exp_statsn, c->expstatsn);
			ir_send_pdu(c, &o);
		}
		ir_pdu_free(p);
	}
}

/* NOP-Out with ITT 0xffffffff on connection i (11.18: immediate, no NOP-In
 * answers it): the answer to a NOP-In ping (its TTT), or, with TTT
 * 0xffffffff, the acknowledgment of StatSN exp_statsn - 1 alone (11.9.1:
 * the answer to an AsyncEvent 5, its LUN copied). */
static void nop_out(struct sess *s, unsigned i, uint32_t ttt, const uint8_t lun[8],
		    uint32_t exp_statsn)
{
	struct ir_pdu o = {0};

	o.bhs.req.opcode = IR_OP_NOP_OUT | IR_OP_IMMEDIATE;
	o.bhs.req.flags = IR_FLAG_FINAL;
	memcpy(o.bhs.req.lun, lun, 8);
	put_be32(o.bhs.req.itt, IR_RSVD_TAG);
	put_be32(o.bhs.req.ttt, ttt);
	put_be32(o.bhs.req.cmdsn, s->s.cmdsn);
	put_be32(o.bhs.req.exp_statsn, exp_statsn);
	if (ir_send_pdu(&s->c[i], &o))
		die("NOP-Out", &s->c[i]);
}

static const uint8_t zero_lun[8];

/* ---- commands ---- */

struct wr {
	uint32_t itt, ttt, off, len; /* the first R2T */
	uint32_t sent;		     /* bytes of its burst sent */
	uint32_t datasn;
};

/* WRITE(16) of WRITE_LEN bytes at lba on connection i; waits for its
 * first R2T. */
static void write_start(struct sess *s, unsigned i, uint64_t lba, struct wr *w)
{
	struct ir_conn *c = use(s, i);
	struct ir_pdu p = {0}, r;
	struct ir_bhs_scsi_cmd *h = &p.bhs.cmd;

	memset(w, 0, sizeof(*w));
	w->itt = ir_next_itt(c);
	h->opcode = IR_OP_SCSI_CMD;
	h->flags = IR_FLAG_FINAL | IR_CMD_WRITE | IR_CMD_ATTR_SIMPLE;
	ir_lun_encode(0, h->lun);
	put_be32(h->itt, w->itt);
	put_be32(h->exp_xfer_len, WRITE_LEN);
	put_be32(h->cmdsn, c->cmdsn++);
	put_be32(h->exp_statsn, c->expstatsn);
	h->cdb[0] = 0x8a;
	put_be64(h->cdb + 2, lba);
	put_be32(h->cdb + 10, WRITE_LEN / BS);
	if (ir_send_pdu(c, &p))
		die("WRITE", c);
	used(s, i);
	if (recv_pdu(c, &r, 5000))
		die("R2T", c);
	IR_CHECK(ir_pdu_opcode(&r) == IR_OP_R2T && get_be32(r.bhs.r2t.itt) == w->itt,
		 "WRITE ITT 0x%08x on cid %u: %s", w->itt, c->cid,
		 ir_opcode_name(ir_pdu_opcode(&r)));
	w->ttt = get_be32(r.bhs.r2t.ttt);
	w->off = get_be32(r.bhs.r2t.buffer_offset);
	w->len = get_be32(r.bhs.r2t.desired_len);
	ir_pdu_free(&r);
}

/* Sends len bytes of the R2T's burst (the F bit on its last byte). */
static void write_data(struct sess *s, unsigned i, struct wr *w, uint32_t len)
{
	static uint8_t buf[BURST];
	struct ir_conn *c = &s->c[i];
	struct ir_pdu d = {0};
	struct ir_bhs_data *o = &d.bhs.data;

	memset(buf, 0xa5, sizeof(buf));
	o->opcode = IR_OP_DATA_OUT;
	o->flags = w->sent + len == w->len ? IR_FLAG_FINAL : 0;
	ir_lun_encode(0, o->lun);
	put_be32(o->itt, w->itt);
	put_be32(o->ttt, w->ttt);
	put_be32(o->exp_statsn_or_cmdsn, c->expstatsn);
	put_be32(o->datasn, w->datasn++);
	put_be32(o->buffer_offset, w->off + w->sent);
	d.data = buf;
	d.data_len = len;
	if (ir_send_pdu(c, &d))
		die("Data-Out", c);
	w->sent += len;
}

/* A TMF sent without waiting for its response (immediate). */
static uint32_t tmf_send(struct sess *s, unsigned i, int func)
{
	struct ir_conn *c = use(s, i);
	struct ir_pdu p = {0};
	struct ir_bhs_tmf_req *t = &p.bhs.tmf_req;
	uint32_t itt = ir_next_itt(c);

	t->opcode = IR_OP_IMMEDIATE | IR_OP_TMF_REQ;
	t->function = (uint8_t)(IR_FLAG_FINAL | func);
	ir_lun_encode(0, t->lun);
	put_be32(t->itt, itt);
	put_be32(t->ref_task_tag, IR_RSVD_TAG);
	put_be32(t->cmdsn, c->cmdsn);
	put_be32(t->exp_statsn, c->expstatsn);
	if (ir_send_pdu(c, &p))
		die("TMF", c);
	return itt;
}

/* TMF with its response (function number as given: any 0..127). */
static uint8_t tmf(struct sess *s, unsigned i, int func)
{
	uint8_t rsp = 0xee;

	if (ir_tmf(use(s, i), func, 0, IR_RSVD_TAG, 0, &rsp))
		die("TMF", &s->c[i]);
	return rsp;
}

/* Nothing but NOP-Ins for QUIET_MS on connection i: true. */
static bool quiet(struct sess *s, unsigned i, char *what, size_t what_size)
{
	struct ir_pdu p;
	int rc = recv_pdu(&s->c[i], &p, QUIET_MS);

	if (rc == -ETIMEDOUT)
		return true;
	if (rc)
		snprintf(what, what_size, "error %d", rc);
	else
		snprintf(what, what_size, "%s ITT 0x%08x", ir_opcode_name(ir_pdu_opcode(&p)),
			 ir_pdu_itt(&p));
	if (!rc)
		ir_pdu_free(&p);
	return false;
}

static void tur_sense(struct sess *s, unsigned i, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	struct ir_scsi_result r;

	if (ir_test_unit_ready(use(s, i), 0, &r))
		die("TEST UNIT READY", &s->c[i]);
	used(s, i);
	*key = *asc = *ascq = 0;
	if (r.status == 0x02)
		ir_sense_parse(&r, key, asc, ascq);
}

/* TEST UNIT READY until GOOD: the unit attentions pending are taken. */
static void clear_ua(struct sess *s)
{
	uint8_t key = 6, asc, ascq;

	for (int i = 0; i < 4 && key; i++)
		tur_sense(s, 0, &key, &asc, &ascq);
	IR_CHECK(key == 0, "TEST UNIT READY GOOD once the unit attentions are taken");
}

/* MODE SELECT(6) of the Control mode page with TAS set (SPC-4 7.5.8: the
 * tasks of other I_T nexuses an abort ends get TASK ABORTED status); the
 * other fields as the target's defaults (src/scsi/mode.c). */
static void set_tas(struct sess *s)
{
	static const uint8_t page[16] = {0,    0,    0,	   0,	 0x0a, 0x0a, 0x02, 0x10,
					 0x00, 0x40, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00};
	uint8_t cdb[6] = {0x15, 0x10, 0, 0, sizeof(page), 0};
	struct ir_scsi_result r;

	if (ir_scsi_cmd(use(s, 0), 0, cdb, sizeof(cdb), IR_DIR_WRITE, page, sizeof(page), NULL, 0,
			&r))
		die("MODE SELECT", &s->c[0]);
	used(s, 0);
	IR_CHECK(r.status == 0, "MODE SELECT: the Control mode page's TAS set (status 0x%02x)",
		 r.status);
}

/* ---- negotiation ---- */

static void negotiation(void)
{
	static const struct {
		const char *offer, *answer;
	} cases[] = {
	    {"TaskReporting=FastAbort,ResponseFence,RFC3720", "FastAbort"},
	    {"TaskReporting=ResponseFence,RFC3720", "ResponseFence"},
	    {"TaskReporting=RFC3721", "Reject"},
	};
	char val[64], iname[64];
	struct sess s;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(iname, sizeof(iname), "iqn.2026-12.org.utarget:tr-neg%u", i + 1);
		val[0] = 0;
		sess_open(&s, iname, 1, cases[i].offer, strlen(cases[i].offer) + 1);
		IR_CHECK(ir_login_answer(&s.c[0], "TaskReporting", val, sizeof(val)) > 0 &&
			     !strcmp(val, cases[i].answer),
			 "%s answered %s", cases[i].offer, val);
		sess_close(&s);
	}
}

/* ---- REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS against the fabric ---- */

/* One iSCSI function code (RFC 7143 11.5.1, RFC 7144 4.2): where RSTMF
 * (SPC-4 6.36) reports it (byte, bit; byte < 0: it has no bit), and for a
 * function without a bit the answer expected at each negotiated
 * ErrorRecoveryLevel. TASK REASSIGN (8) is iSCSI's own (no SAM function,
 * no bit): below ERL 2 it is "Task allegiance reassignment not supported"
 * (4, 11.6.1); at ERL 2 (the target is configured for it,
 * task_reporting.sh) it is supported, and the ReferencedTaskTag sent here,
 * the reserved tag, names no task: "Task does not exist" (1). Its other
 * answers (0 after a reassignment, 3 for a task whose connection is still
 * logged in) need a failed connection: tests/tools/erl2.c. Functions
 * that change state (resets) come after the others; TARGET COLD RESET,
 * which closes the connection, last. */
static const struct tmf_row {
	uint8_t func;
	const char *name;
	int byte, bit;
	uint8_t rsp_by_erl[3]; /* for byte < 0 */
} tmf_table[] = {
    {1, "ABORT TASK", 0, 7, {0}},
    {2, "ABORT TASK SET", 0, 6, {0}},
    {3, "CLEAR ACA", 0, 5, {0}},
    {4, "CLEAR TASK SET", 0, 4, {0}},
    {9, "QUERY TASK", 0, 2, {0}},
    {10, "QUERY TASK SET", 1, 1, {0}},
    {12, "QUERY ASYNCHRONOUS EVENT", 1, 2, {0}},
    {8, "TASK REASSIGN", -1, 0, {4, 4, 1}},
    {13, "function 13 (unassigned)", -1, 0, {TMF_NOT_SUP, TMF_NOT_SUP, TMF_NOT_SUP}},
    {127, "function 127 (unassigned)", -1, 0, {TMF_NOT_SUP, TMF_NOT_SUP, TMF_NOT_SUP}},
    {5, "LOGICAL UNIT RESET", 0, 3, {0}},
    {11, "I_T NEXUS RESET", 1, 0, {0}},
    {6, "TARGET WARM RESET", 0, 1, {0}},
    {7, "TARGET COLD RESET", 0, 1, {0}},
};

static void rstmf(struct sess *s, uint8_t out[4])
{
	uint8_t cdb[12] = {0xa3, 0x0d};
	struct ir_scsi_result r;

	put_be32(cdb + 6, 4);
	for (int i = 0; i < 4; i++) {
		if (ir_scsi_cmd(use(s, 0), 0, cdb, sizeof(cdb), IR_DIR_READ, NULL, 0, out, 4, &r))
			die("REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS", &s->c[0]);
		used(s, 0);
		if (r.status == 0)
			return;
	}
	IR_CHECK(false, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS answered status 0x%02x",
		 r.status);
}

/* One session at iSCSIProtocolLevel level offering ErrorRecoveryLevel
 * erl (the target answers the lower of it and its own). */
static void rstmf_vs_fabric(int level, int offered_erl)
{
	static const char l2[] = "iSCSIProtocolLevel=2";
	char iname[64];
	uint8_t sup[4];
	struct sess s;
	unsigned erl;

	snprintf(iname, sizeof(iname), "iqn.2026-12.org.utarget:tr-level%d-erl%d", level,
		 offered_erl);
	erl_offer = offered_erl;
	sess_open(&s, iname, 1, level == 2 ? l2 : NULL, level == 2 ? sizeof(l2) : 0);
	erl_offer = 0;
	erl = s.c[0].p.erl;
	IR_CHECK(erl <= (unsigned)offered_erl,
		 "level %d: ErrorRecoveryLevel %d offered, %u answered", level, offered_erl, erl);
	rstmf(&s, sup);
	printf("level %d ERL %u: RSTMF %02x %02x\n", level, erl, sup[0], sup[1]);
	for (size_t i = 0; i < ARRAY_SIZE(tmf_table); i++) {
		const struct tmf_row *t = &tmf_table[i];
		bool reported = t->byte >= 0 && (sup[t->byte] >> t->bit) & 1;
		uint8_t rsp = tmf(&s, 0, t->func);

		if (t->byte < 0)
			IR_CHECK(rsp == t->rsp_by_erl[erl],
				 "level %d ERL %u: %s (no RSTMF bit) answered %u, want %u", level,
				 erl, t->name, rsp, t->rsp_by_erl[erl]);
		else if (reported)
			IR_CHECK(rsp != TMF_NOT_SUP,
				 "level %d ERL %u: %s reported and executed (response %u)", level,
				 erl, t->name, rsp);
		else
			IR_CHECK(rsp == TMF_NOT_SUP,
				 "level %d ERL %u: %s not reported and not supported (response %u)",
				 level, erl, t->name, rsp);
	}
	sess_close(&s);
}

/* ---- RFC 7143 4.2.3.3 a): open bursts of the issuing session ---- */

static void drain_lun_reset(void)
{
	struct sess s, third;
	struct wr wa, wb, wt;
	struct ir_pdu p;
	char what[96] = "";
	uint8_t key, asc, ascq;
	uint32_t titt, tp_ttt;

	sess_open(&s, "iqn.2026-12.org.utarget:tr-mcs", 2, NULL, 0);
	IR_CHECK(s.c[1].full_feature, "MC/S: a second connection (cid 1) joined the session");
	sess_open(&third, "iqn.2026-12.org.utarget:tr-third", 1, NULL, 0);
	/* TAS, then the POWER ON / MODE PARAMETERS CHANGED unit attentions */
	clear_ua(&third);
	set_tas(&third);
	clear_ua(&s);

	write_start(&s, 0, 0, &wa);
	write_start(&s, 1, 64, &wb);
	write_start(&third, 0, 128, &wt);
	IR_CHECK(wa.len == BURST && wb.len == BURST && wt.len == BURST,
		 "each WRITE of %u bytes got an R2T for its first burst of %u", WRITE_LEN, BURST);
	write_data(&s, 0, &wa, 1024);
	write_data(&s, 1, &wb, 1024);
	write_data(&third, 0, &wt, 1024);

	titt = tmf_send(&s, 0, IR_TMF_LUN_RESET);
	/* the third party's task ends at once: TASK ABORTED (TAS=1) */
	IR_CHECK(recv_pdu(&third.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_SCSI_RSP &&
		     ir_pdu_itt(&p) == wt.itt && p.bhs.scsi_rsp.status == 0x40,
		 "the third party's WRITE ended with TASK ABORTED without waiting for its burst");
	ir_pdu_free(&p);
	/* 4.2.3.3 d): the third party's StatSNs are waited for too */
	IR_CHECK(ir_recv_pdu(&third.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_NOP_IN &&
		     ir_pdu_itt(&p) == IR_RSVD_TAG && get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG,
		 "the third party gets a NOP-In ping: its TASK ABORTED status is not acknowledged");
	tp_ttt = get_be32(p.bhs.rsp.ttt);
	ir_pdu_free(&p);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "LUN RESET: no response on cid 0 while both bursts are open %s", what);
	write_data(&s, 1, &wb, wb.len - wb.sent); /* F on cid 1 */
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "no response on cid 0 while the burst of cid 0 is open %s", what);
	IR_CHECK(quiet(&s, 1, what, sizeof(what)),
		 "nothing on cid 1 (no R2T for the second burst, no SCSI Response) %s", what);
	write_data(&s, 0, &wa, wa.len - wa.sent); /* F on cid 0 */
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "no response on cid 0 while the third party's ping is not answered %s", what);
	nop_out(&third, 0, tp_ttt, zero_lun, third.c[0].expstatsn);
	IR_CHECK(recv_pdu(&s.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_TMF_RSP &&
		     ir_pdu_itt(&p) == titt && p.bhs.tmf_rsp.response == 0,
		 "the TMF response (Function complete) follows the last F bit and the third "
		 "party's acknowledgment");
	ir_pdu_free(&p);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)) && quiet(&s, 1, what, sizeof(what)),
		 "no R2T, no SCSI Response for the aborted WRITEs %s", what);
	/* on cid 0: a status on cid 1 would stay unacknowledged (no PDU
	 * follows there), and the ABORT TASK SET below would wait for it */
	tur_sense(&s, 0, &key, &asc, &ascq);
	IR_CHECK(key == 6 && asc == 0x29 && ascq == 0x03,
		 "the next command gets BUS DEVICE RESET FUNCTION OCCURRED (%x/%02x/%02x)", key,
		 asc, ascq);

	/* ABORT TASK SET: the issuing nexus' tasks only */
	write_start(&s, 0, 0, &wa);
	write_data(&s, 0, &wa, 512);
	titt = tmf_send(&s, 0, IR_TMF_ABORT_TASK_SET);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "ABORT TASK SET: no response while the burst is open %s", what);
	write_data(&s, 0, &wa, wa.len - wa.sent);
	IR_CHECK(recv_pdu(&s.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_TMF_RSP &&
		     ir_pdu_itt(&p) == titt && p.bhs.tmf_rsp.response == 0,
		 "ABORT TASK SET: the TMF response (Function complete) follows the F bit");
	ir_pdu_free(&p);
	tur_sense(&s, 0, &key, &asc, &ascq);
	IR_CHECK(key == 0, "the session goes on (TEST UNIT READY GOOD)");
	sess_close(&third);
	sess_close(&s);
}

/* RFC 7143 4.2.3.3 d): a response on cid 1 the initiator has not
 * acknowledged yet (no PDU on cid 1 since its TEST UNIT READY's status):
 * the target solicits the acknowledgment with a NOP-In on cid 1 and sends
 * the ABORT TASK SET response on cid 0 only once the NOP-Out answer (its
 * ExpStatSN) came. */
static void statsn_ack(void)
{
	struct ir_pdu p;
	char what[96] = "";
	uint8_t key, asc, ascq;
	uint32_t titt, ttt;
	struct sess s;

	sess_open(&s, "iqn.2026-12.org.utarget:tr-ack", 2, NULL, 0);
	clear_ua(&s);
	tur_sense(&s, 1, &key, &asc, &ascq); /* its StatSN stays unacknowledged */
	titt = tmf_send(&s, 0, IR_TMF_ABORT_TASK_SET);
	IR_CHECK(ir_recv_pdu(&s.c[1], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_NOP_IN &&
		     ir_pdu_itt(&p) == IR_RSVD_TAG && get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG,
		 "ABORT TASK SET on cid 0: a NOP-In ping on cid 1, whose last StatSN is not "
		 "acknowledged");
	ttt = get_be32(p.bhs.rsp.ttt);
	ir_pdu_free(&p);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "no TMF response on cid 0 while it is not answered %s", what);
	nop_out(&s, 1, ttt, zero_lun, s.c[1].expstatsn);
	IR_CHECK(recv_pdu(&s.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_TMF_RSP &&
		     ir_pdu_itt(&p) == titt && p.bhs.tmf_rsp.response == 0,
		 "the TMF response (Function complete) once the NOP-Out acknowledged it");
	ir_pdu_free(&p);
	sess_close(&s);
}

/* ---- Response Fence and FastAbort (RFC 7143 4.2.3.4, 13.23) ---- */

/* A session of 2 connections offering TaskReporting as offer (the
 * initiator's list), whose answer must be want. */
static void sess_open_tr(struct sess *s, const char *iname, const char *offer, const char *want)
{
	char val[64] = "";

	sess_open(s, iname, 2, offer, strlen(offer) + 1);
	IR_CHECK(ir_login_answer(&s->c[0], "TaskReporting", val, sizeof(val)) > 0 &&
		     !strcmp(val, want),
		 "%s: %s answered %s, want %s", iname, offer, val, want);
	IR_CHECK(s->c[1].full_feature, "%s: a second connection (cid 1) joined the session", iname);
}

/* Nothing but NOP-In pings for QUIET_MS on connection i, left unanswered
 * (an answer would acknowledge the StatSNs received): true, *ping_ttt and
 * ping_lun the last ping's TTT and LUN (*ping_ttt IR_RSVD_TAG: none came). */
static bool quiet_noack(struct sess *s, unsigned i, uint32_t *ping_ttt, uint8_t ping_lun[8],
			char *what, size_t what_size)
{
	int64_t end = ir_now_us() + (int64_t)QUIET_MS * 1000;

	for (;;) {
		int64_t left = (end - ir_now_us()) / 1000;
		struct ir_pdu p;
		int rc;

		if (left <= 0)
			return true;
		rc = ir_recv_pdu(&s->c[i], &p, (int)left);
		if (rc == -ETIMEDOUT)
			return true;
		if (rc) {
			snprintf(what, what_size, "error %d", rc);
			return false;
		}
		if (ir_pdu_opcode(&p) != IR_OP_NOP_IN || ir_pdu_itt(&p) != IR_RSVD_TAG) {
			snprintf(what, what_size, "%s ITT 0x%08x",
				 ir_opcode_name(ir_pdu_opcode(&p)), ir_pdu_itt(&p));
			ir_pdu_free(&p);
			return false;
		}
		if (get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG) {
			*ping_ttt = get_be32(p.bhs.rsp.ttt);
			memcpy(ping_lun, p.bhs.rsp.lun, 8);
		}
		ir_pdu_free(&p);
	}
}

/* Sense key, ASC and ASCQ of a SCSI Response PDU (11.4.7: SenseLength,
 * then the sense data); all 0 when it carries none. */
static void rsp_sense(const struct ir_pdu *p, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	struct ir_scsi_result r = {0};

	*key = *asc = *ascq = 0;
	if (p->data_len >= 2) {
		r.sense_len = get_be16(p->data);
		if (r.sense_len > p->data_len - 2)
			r.sense_len = p->data_len - 2;
		if (r.sense_len > sizeof(r.sense))
			r.sense_len = sizeof(r.sense);
		memcpy(r.sense, p->data + 2, r.sense_len);
	}
	ir_sense_parse(&r, key, asc, ascq);
}

/* The Response Fence (13.23: ResponseFence, implied by FastAbort) of the
 * multi-task abort's response just received on cid 0 with StatSN
 * tmf_statsn: a NOP-In ping on cid 0 asks for its acknowledgment; until
 * that comes cid 1 sends nothing, not even the status of a TEST UNIT READY
 * sent there after it; once cid 0 acknowledges, the status comes (GOOD,
 * or after a LOGICAL UNIT RESET its unit attention 06/29/03 when ua). */
static void fence(struct sess *s, const char *mode, uint32_t tmf_statsn, bool ua)
{
	static const uint8_t tur[6] = {0};
	struct ir_pdu p;
	char what[96] = "";
	uint8_t key, asc, ascq;
	uint8_t lun[8];
	uint32_t ttt, itt;

	IR_CHECK(ir_recv_pdu(&s->c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_NOP_IN &&
		     ir_pdu_itt(&p) == IR_RSVD_TAG && get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG,
		 "%s: a NOP-In ping on cid 0 right after the TMF response (%s), asking for its "
		 "acknowledgment",
		 mode, ir_opcode_name(ir_pdu_opcode(&p)));
	ttt = get_be32(p.bhs.rsp.ttt);
	memcpy(lun, p.bhs.rsp.lun, 8);
	ir_pdu_free(&p);
	if (ir_scsi_send(use(s, 1), 0, tur, sizeof(tur), IR_DIR_NONE, 0, &itt))
		die("TEST UNIT READY", &s->c[1]);
	used(s, 1);
	IR_CHECK(quiet(s, 1, what, sizeof(what)),
		 "%s: fenced: no status of a TEST UNIT READY on cid 1 while cid 0 has not "
		 "acknowledged the TMF response %s",
		 mode, what);
	nop_out(s, 0, ttt, lun, tmf_statsn + 1); /* 11.18: the ping's LUN copied */
	IR_CHECK(recv_pdu(&s->c[1], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_SCSI_RSP &&
		     ir_pdu_itt(&p) == itt,
		 "%s: the TEST UNIT READY's status on cid 1 once cid 0 answered the ping (%s ITT "
		 "0x%08x)",
		 mode, ir_opcode_name(ir_pdu_opcode(&p)), ir_pdu_itt(&p));
	rsp_sense(&p, &key, &asc, &ascq);
	IR_CHECK(p.bhs.scsi_rsp.status == 0 || (ua && p.bhs.scsi_rsp.status == 0x02 && key == 6 &&
						asc == 0x29 && ascq == 0x03),
		 "%s: its status 0x%02x (%x/%02x/%02x)", mode, p.bhs.scsi_rsp.status, key, asc,
		 ascq);
	ir_pdu_free(&p);
}

/* WRITE and READ back 8 blocks on each connection, byte by byte. */
static void io_both(struct sess *s, const char *mode)
{
	static uint8_t out[8 * BS], in[8 * BS];
	struct ir_scsi_result r;

	for (unsigned i = 0; i < 2; i++) {
		for (size_t k = 0; k < sizeof(out); k++)
			out[k] = (uint8_t)(k * 7 + i * 31 + 1);
		memset(in, 0, sizeof(in));
		if (ir_write16(use(s, i), 0, 256 + 64 * i, 8, BS, out, false, &r))
			die("WRITE", &s->c[i]);
		used(s, i);
		IR_CHECK(r.status == 0, "%s: WRITE on cid %u after the abort (status 0x%02x)", mode,
			 i, r.status);
		if (ir_read16(use(s, i), 0, 256 + 64 * i, 8, BS, in, &r))
			die("READ", &s->c[i]);
		used(s, i);
		IR_CHECK(r.status == 0 && !memcmp(in, out, sizeof(in)),
			 "%s: READ on cid %u returns what was written (status 0x%02x)", mode, i,
			 r.status);
	}
}

/* RFC 7143 4.2.3.4 FastAbort: the LOGICAL UNIT RESET ends the WRITEs with
 * an open burst on cid 0 (the issuing connection: the initiator sends no
 * more Data-Out there, initiator step a) and on cid 1 at once. cid 1 is
 * told with AsyncEvent 5 (11.9.1), which the initiator acknowledges with a
 * NOP-Out; the TMF response waits for that acknowledgment (the StatSN
 * wait, 4.2.3.3 d), then the Response Fence. No F bit is ever sent. */
static void fast_abort(void)
{
	static const char mode[] = "FastAbort";
	struct ir_pdu p;
	struct wr wa, wb;
	struct sess s;
	char what[96] = "";
	uint8_t lun[8], lun0[8], plun[8] = {0};
	uint32_t titt, next, asn, ttt1 = IR_RSVD_TAG;

	sess_open_tr(&s, "iqn.2026-12.org.utarget:tr-fast",
		     "TaskReporting=FastAbort,ResponseFence,RFC3720", "FastAbort");
	clear_ua(&s);
	write_start(&s, 0, 0, &wa);
	write_start(&s, 1, 64, &wb);
	write_data(&s, 0, &wa, 1024);
	write_data(&s, 1, &wb, 1024);
	next = s.c[1].expstatsn;
	titt = tmf_send(&s, 0, IR_TMF_LUN_RESET);

	/* 11.9.1 AsyncEvent 5 on cid 1, where the WRITE's burst is open */
	ir_lun_encode(0, lun0);
	if (ir_recv_pdu(&s.c[1], &p, 5000))
		die("AsyncEvent 5", &s.c[1]);
	IR_CHECK(
	    ir_pdu_opcode(&p) == IR_OP_ASYNC_MSG && p.bhs.async.async_event == 5 &&
		(p.bhs.async.flags & IR_FLAG_FINAL) && ir_pdu_itt(&p) == IR_RSVD_TAG &&
		!memcmp(p.bhs.async.lun, lun0, 8) && get_be32(p.bhs.async.statsn) == next,
	    "%s: LUN RESET on cid 0: cid 1 gets AsyncEvent 5 for LUN 0 (%s event %u ITT 0x%08x "
	    "StatSN %u, want %u)",
	    mode, ir_opcode_name(ir_pdu_opcode(&p)), p.bhs.async.async_event, ir_pdu_itt(&p),
	    get_be32(p.bhs.async.statsn), next);
	asn = get_be32(p.bhs.async.statsn);
	memcpy(lun, p.bhs.async.lun, 8);
	ir_pdu_free(&p);

	/* Data-Out already under way when the message came: discarded; its
	 * ExpStatSN does not acknowledge the message yet */
	s.c[1].expstatsn = asn;
	write_data(&s, 1, &wb, 1024);
	s.c[1].expstatsn = asn + 1;
	IR_CHECK(quiet_noack(&s, 1, &ttt1, plun, what, sizeof(what)),
		 "%s: cid 1: its Data-Out for the ended WRITE discarded (no Reject), no R2T, no "
		 "SCSI Response (the StatSN wait's NOP-In ping: %s) %s",
		 mode, ttt1 != IR_RSVD_TAG ? "came" : "none", what);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "%s: no TMF response (and no AsyncEvent) on cid 0 while cid 1 has not "
		 "acknowledged the AsyncEvent 5 %s",
		 mode, what);
	nop_out(&s, 1, IR_RSVD_TAG, lun, asn + 1);
	IR_CHECK(recv_pdu(&s.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_TMF_RSP &&
		     ir_pdu_itt(&p) == titt && p.bhs.tmf_rsp.response == 0,
		 "%s: the TMF response (Function complete) once the NOP-Out acknowledged the "
		 "AsyncEvent 5, neither WRITE's burst finished (%s)",
		 mode, ir_opcode_name(ir_pdu_opcode(&p)));
	if (ttt1 != IR_RSVD_TAG) /* the StatSN wait's ping on cid 1 */
		nop_out(&s, 1, ttt1, plun, asn + 1);
	fence(&s, mode, get_be32(p.bhs.tmf_rsp.statsn), true);
	ir_pdu_free(&p);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "%s: no R2T, no SCSI Response for the aborted WRITEs %s", mode, what);
	clear_ua(&s);
	io_both(&s, mode);
	sess_close(&s);
}

/* TaskReporting=ResponseFence: the standard semantics (4.2.3.3 a, no
 * AsyncEvent 5: the ABORT TASK SET's response waits for the F bit of the
 * burst open on cid 1), and the Response Fence of its response. */
static void response_fence(void)
{
	static const char mode[] = "ResponseFence";
	struct ir_pdu p;
	struct wr wb;
	struct sess s;
	char what[96] = "";
	uint32_t titt;

	sess_open_tr(&s, "iqn.2026-12.org.utarget:tr-fence", "TaskReporting=ResponseFence,RFC3720",
		     "ResponseFence");
	clear_ua(&s);
	write_start(&s, 1, 64, &wb);
	write_data(&s, 1, &wb, 1024);
	titt = tmf_send(&s, 0, IR_TMF_ABORT_TASK_SET);
	IR_CHECK(quiet(&s, 1, what, sizeof(what)),
		 "%s: ABORT TASK SET on cid 0: no AsyncEvent 5 on cid 1 %s", mode, what);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "%s: no TMF response while the burst of cid 1 is open %s", mode, what);
	write_data(&s, 1, &wb, wb.len - wb.sent);
	IR_CHECK(recv_pdu(&s.c[0], &p, 5000) == 0 && ir_pdu_opcode(&p) == IR_OP_TMF_RSP &&
		     ir_pdu_itt(&p) == titt && p.bhs.tmf_rsp.response == 0,
		 "%s: the TMF response (Function complete) follows the F bit (%s)", mode,
		 ir_opcode_name(ir_pdu_opcode(&p)));
	fence(&s, mode, get_be32(p.bhs.tmf_rsp.statsn), false);
	ir_pdu_free(&p);
	io_both(&s, mode);
	sess_close(&s);
}

/* ---- third parties in the StatSN wait (RFC 7143 4.2.3.3 d) ---- */

/* The issuing session (one connection, TaskReporting not offered: RFC3720)
 * and a third party's session of one connection offering offer (NULL:
 * none) for TaskReporting, whose answer must be want; TAS set on the LU
 * (the reset of an earlier check may have put the Control mode page back
 * to its defaults) and the unit attentions taken on both. */
static void third_party_open(struct sess *s, const char *iname, struct sess *third,
			     const char *third_iname, const char *offer, const char *want)
{
	char val[64] = "";

	sess_open(s, iname, 1, NULL, 0);
	sess_open(third, third_iname, 1, offer, offer ? strlen(offer) + 1 : 0);
	if (want)
		IR_CHECK(ir_login_answer(&third->c[0], "TaskReporting", val, sizeof(val)) > 0 &&
			     !strcmp(val, want),
			 "%s: %s answered %s, want %s", third_iname, offer, val, want);
	clear_ua(third);
	set_tas(third);
	clear_ua(s);
}

/* One PDU on connection 0 of s, described in seq (appended): its opcode,
 * ITT, and StatSN (async, SCSI Response) or TTT (NOP-In). */
static int recv_logged(struct sess *s, struct ir_pdu *p, char *seq, size_t seq_size)
{
	size_t n = strlen(seq);
	int rc = ir_recv_pdu(&s->c[0], p, 5000);

	if (rc)
		snprintf(seq + n, seq_size - n, "%serror %d", n ? ", " : "", rc);
	else if (ir_pdu_opcode(p) == IR_OP_NOP_IN)
		snprintf(seq + n, seq_size - n, "%sNOP-In ITT 0x%08x TTT 0x%08x", n ? ", " : "",
			 ir_pdu_itt(p), get_be32(p->bhs.rsp.ttt));
	else
		snprintf(seq + n, seq_size - n, "%s%s ITT 0x%08x StatSN %u", n ? ", " : "",
			 ir_opcode_name(ir_pdu_opcode(p)), ir_pdu_itt(p),
			 get_be32(p->bhs.rsp.statsn));
	return rc;
}

/* RFC 7143 4.2.3.4 and 4.2.3.3 d) for a third party that negotiated
 * FastAbort: its WRITE, with a partly sent R2T burst, ends at once when
 * another session's LOGICAL UNIT RESET aborts it; it is told with
 * AsyncEvent 5 (11.9.1), then gets TASK ABORTED (TAS=1), then a NOP-In
 * ping; the TMF response waits for its NOP-Out (11.9.1: ITT and TTT
 * 0xffffffff, the LUN copied), well before the 5 s the target waits for a
 * third party at most. */
static void third_party_fast_abort(void)
{
	static const char mode[] = "third-party FastAbort";
	struct sess s, third;
	struct ir_pdu p, ps[3];
	struct wr wt;
	char what[96] = "", seq[320] = "";
	uint8_t lun0[8], alun[8], plun[8] = {0};
	uint32_t titt, next, asn, ttt = IR_RSVD_TAG;
	int64_t t0, t_ack, t_rsp;
	bool ok;

	third_party_open(&s, "iqn.2026-12.org.utarget:tr-issuer2", &third,
			 "iqn.2026-12.org.utarget:tr-third-fast",
			 "TaskReporting=FastAbort,ResponseFence,RFC3720", "FastAbort");
	write_start(&third, 0, 128, &wt);
	write_data(&third, 0, &wt, 1024);
	next = third.c[0].expstatsn;
	t0 = ir_now_us();
	titt = tmf_send(&s, 0, IR_TMF_LUN_RESET);

	/* on the third party's connection, in this order: 11.9.1 AsyncEvent 5
	 * as the task ends with its burst open (F, ITT 0xffffffff, the WRITE's
	 * LUN, the connection's next StatSN); its status, TASK ABORTED (TAS=1);
	 * the NOP-In ping of 4.2.3.3 d) for the StatSNs not acknowledged */
	ir_lun_encode(0, lun0);
	for (unsigned i = 0; i < 3; i++)
		IR_CHECK(recv_logged(&third, &ps[i], seq, sizeof(seq)) == 0,
			 "%s: PDU %u on the third party's connection (%s)", mode, i + 1, seq);
	IR_CHECK(ir_pdu_opcode(&ps[0]) == IR_OP_ASYNC_MSG && ps[0].bhs.async.async_event == 5 &&
		     (ps[0].bhs.async.flags & IR_FLAG_FINAL) && ir_pdu_itt(&ps[0]) == IR_RSVD_TAG &&
		     !memcmp(ps[0].bhs.async.lun, lun0, 8) &&
		     get_be32(ps[0].bhs.async.statsn) == next,
		 "%s: another session's LUN RESET: the third party first gets AsyncEvent 5 for "
		 "LUN 0, StatSN %u (event %u; %s)",
		 mode, next, ps[0].bhs.async.async_event, seq);
	asn = get_be32(ps[0].bhs.async.statsn);
	memcpy(alun, ps[0].bhs.async.lun, 8);
	IR_CHECK(ir_pdu_opcode(&ps[1]) == IR_OP_SCSI_RSP && ir_pdu_itt(&ps[1]) == wt.itt &&
		     ps[1].bhs.scsi_rsp.status == 0x40 &&
		     get_be32(ps[1].bhs.scsi_rsp.statsn) == asn + 1,
		 "%s: then TASK ABORTED for its WRITE, StatSN %u (status 0x%02x)", mode, asn + 1,
		 ps[1].bhs.scsi_rsp.status);
	IR_CHECK(ir_pdu_opcode(&ps[2]) == IR_OP_NOP_IN && ir_pdu_itt(&ps[2]) == IR_RSVD_TAG &&
		     get_be32(ps[2].bhs.rsp.ttt) != IR_RSVD_TAG,
		 "%s: then a NOP-In ping (TTT 0x%08x)", mode, get_be32(ps[2].bhs.rsp.ttt));
	ttt = get_be32(ps[2].bhs.rsp.ttt);
	memcpy(plun, ps[2].bhs.rsp.lun, 8);
	for (unsigned i = 0; i < 3; i++)
		ir_pdu_free(&ps[i]);

	/* a Data-Out sent before the AsyncEvent 5 was seen (its ExpStatSN
	 * does not cover it): discarded, no Reject (4.2.3.4) */
	third.c[0].expstatsn = asn;
	write_data(&third, 0, &wt, 1024);
	third.c[0].expstatsn = asn + 2;
	IR_CHECK(quiet_noack(&third, 0, &ttt, plun, what, sizeof(what)),
		 "%s: its Data-Out for the ended WRITE discarded (no Reject), no R2T %s", mode,
		 what);
	IR_CHECK(quiet(&s, 0, what, sizeof(what)),
		 "%s: no TMF response to the issuing session while the third party has not "
		 "acknowledged %s",
		 mode, what);

	/* 11.9.1: the NOP-Out acknowledging the message and what followed */
	t_ack = ir_now_us();
	nop_out(&third, 0, IR_RSVD_TAG, alun, asn + 2);
	ok = recv_pdu(&s.c[0], &p, 5000) == 0;
	t_rsp = ir_now_us();
	IR_CHECK(ok && ir_pdu_opcode(&p) == IR_OP_TMF_RSP && ir_pdu_itt(&p) == titt &&
		     p.bhs.tmf_rsp.response == 0 && t_rsp - t_ack < 1000000 && t_rsp - t0 < 4500000,
		 "%s: the TMF response (Function complete, %s) %lld ms after the third party's "
		 "NOP-Out (ITT/TTT 0xffffffff, ExpStatSN %u), %lld ms after the TMF: not the 5 s "
		 "cap",
		 mode, ok ? ir_opcode_name(ir_pdu_opcode(&p)) : "none",
		 (long long)(t_rsp - t_ack) / 1000, asn + 2, (long long)(t_rsp - t0) / 1000);
	if (ok)
		ir_pdu_free(&p);
	nop_out(&third, 0, ttt, plun, asn + 2); /* the ping's answer */
	IR_CHECK(quiet(&third, 0, what, sizeof(what)),
		 "%s: no R2T, no other SCSI Response for the aborted WRITE %s", mode, what);
	clear_ua(&third);
	sess_close(&third);
	sess_close(&s);
}

/* RFC 7143 4.2.3.3 d) with a third party (TaskReporting not offered:
 * RFC3720) that never answers its ping: the TMF response waits for it,
 * but not for ever: THIRD_PARTY_WAIT_S (5 s,
 * src/fabric/iscsi/task_reporting.c), then it comes. */
static void third_party_cap(void)
{
	static const char mode[] = "third-party cap";
	struct sess s, third;
	struct ir_pdu p;
	struct wr wt;
	char what[96] = "", seq[320] = "";
	uint8_t plun[8] = {0};
	uint32_t titt, ttt = IR_RSVD_TAG;
	int64_t t0, dt;
	bool ok;

	third_party_open(&s, "iqn.2026-12.org.utarget:tr-issuer3", &third,
			 "iqn.2026-12.org.utarget:tr-third-slow", NULL, NULL);
	write_start(&third, 0, 128, &wt);
	write_data(&third, 0, &wt, 1024);
	t0 = ir_now_us();
	titt = tmf_send(&s, 0, IR_TMF_LUN_RESET);
	/* read, never answered: TASK ABORTED, then the ping */
	if (recv_logged(&third, &p, seq, sizeof(seq)))
		die("TASK ABORTED", &third.c[0]);
	IR_CHECK(ir_pdu_opcode(&p) == IR_OP_SCSI_RSP && ir_pdu_itt(&p) == wt.itt &&
		     p.bhs.scsi_rsp.status == 0x40,
		 "%s: another session's LUN RESET: the third party's WRITE ends with TASK "
		 "ABORTED (%s)",
		 mode, seq);
	ir_pdu_free(&p);
	if (recv_logged(&third, &p, seq, sizeof(seq)))
		die("NOP-In", &third.c[0]);
	IR_CHECK(ir_pdu_opcode(&p) == IR_OP_NOP_IN && ir_pdu_itt(&p) == IR_RSVD_TAG &&
		     get_be32(p.bhs.rsp.ttt) != IR_RSVD_TAG,
		 "%s: then a NOP-In ping, left unanswered (%s)", mode, seq);
	ir_pdu_free(&p);

	/* the issuing session's own StatSNs are acknowledged (the TMF's
	 * ExpStatSN): only the third party's hold the response */
	ok = recv_pdu(&s.c[0], &p, 10000) == 0;
	dt = ir_now_us() - t0;
	IR_CHECK(ok && ir_pdu_opcode(&p) == IR_OP_TMF_RSP && ir_pdu_itt(&p) == titt &&
		     p.bhs.tmf_rsp.response == 0 && dt >= 4000000 && dt <= 8000000,
		 "%s: the TMF response (Function complete, %s) %lld ms after the TMF: not "
		 "before 4 s, by 8 s (5 s cap)",
		 mode, ok ? ir_opcode_name(ir_pdu_opcode(&p)) : "none", (long long)dt / 1000);
	if (ok)
		ir_pdu_free(&p);
	IR_CHECK(quiet_noack(&third, 0, &ttt, plun, what, sizeof(what)),
		 "%s: nothing else on the third party's connection %s", mode, what);
	sess_close(&third);
	sess_close(&s);
}

int main(int argc, char **argv)
{
	if (argc != 3 || ir_parse_addr(argv[1], host, sizeof(host), port, sizeof(port))) {
		fprintf(stderr, "usage: task_reporting HOST:PORT TARGET\n");
		return 2;
	}
	target = argv[2];
	negotiation();
	drain_lun_reset();
	statsn_ack();
	fast_abort();
	response_fence();
	third_party_fast_abort();
	third_party_cap();
	for (int level = 1; level <= 2; level++) {
		rstmf_vs_fabric(level, 0);
		rstmf_vs_fabric(level, 2);
	}
	printf("PASS task_reporting\n");
	return 0;
}
