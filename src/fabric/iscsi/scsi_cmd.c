/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scsi_cmd.c: SCSI Command (RFC 7143 11.3), SCSI Response (11.4), Data-In
 * (11.7), the task pool and the fabric hooks of the SCSI core. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

/* ---- task pool ---- */

static unsigned itt_bucket(uint32_t itt)
{
	return (itt ^ (itt >> 8) ^ (itt >> 16)) % ISCSI_ITT_BUCKETS;
}

struct iscsi_task *iscsi_task_get(struct iscsi_conn *c)
{
	struct iscsi_task *t;

	if (!list_empty(&c->task_free)) {
		t = list_first_entry(&c->task_free, struct iscsi_task, node);
		list_del(&t->node);
	} else {
		if (c->ntasks >= c->max_tasks)
			return NULL;
		if ((c->ntasks & (c->ntasks - 1)) == 0) {
			/* grow the table at powers of two */
			unsigned cap = c->ntasks ? c->ntasks * 2 : 16;
			struct iscsi_task **tab = realloc(c->task_tab, cap * sizeof(*tab));

			if (!tab)
				return NULL;
			c->task_tab = tab;
		}
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->idx = (uint16_t)c->ntasks;
		c->task_tab[c->ntasks++] = t;
	}
	{
		uint16_t idx = t->idx;

		memset(&t->node, 0, sizeof(*t) - offsetof(struct iscsi_task, node));
		t->idx = idx;
	}
	t->conn = c;
	t->home = c;
	t->sess = c->sess;
	list_init(&t->itt_node);
	list_init(&t->hold_node);
	list_init(&t->enter_node);
	list_add_tail(&c->tasks, &t->node);
	c->live_tasks++;
	c->sess->tasks++;
	iscsi_conn_get(c);
	return t;
}

void iscsi_task_put(struct iscsi_task *t)
{
	struct iscsi_conn *c = t->conn;
	struct iscsi_conn *home = t->home;
	struct iscsi_session *s = t->sess;

	iscsi_mem_unpin(t);
	if (t->setup) {
		t->setup = false;
		scsi_cmd_release(&t->cmd);
	}
	if (c->rx_task == t)
		c->rx_task = NULL;
	list_del(&t->node);
	list_del(&t->itt_node);
	list_del(&t->hold_node);
	list_del(&t->enter_node);
	if (t->counted) {
		t->counted = false;
		s->cmdsn.busy--;
	}
	t->state = ISCSI_TASK_FREE;
	t->erl2_done = false;
	/* the slot goes back to the pool it came from (ERL 2: a reassigned
	 * task's is another connection's) */
	list_add(&home->task_free, &t->node);
	c->live_tasks--;
	if (c != home) {
		c->foreign_tasks--;
		t->conn = home;
	}
	if (c->logout_pending && c->live_tasks == 0)
		iscsi_logout_tasks_drained(c);
	iscsi_session_task_released(s);
	if (c != home)
		iscsi_conn_put(c);
	iscsi_conn_put(home);
}

void iscsi_task_move(struct iscsi_task *t, struct iscsi_conn *to)
{
	struct iscsi_conn *from = t->conn;

	iscsi_mem_unpin(t);
	if (from->rx_task == t)
		from->rx_task = NULL;
	list_del(&t->node);
	list_del(&t->itt_node);
	from->live_tasks--;
	if (from != t->home)
		from->foreign_tasks--;
	if (to != t->home) {
		to->foreign_tasks++;
		iscsi_conn_get(to); /* the allegiance's, beside the pool's */
	}
	/* its next TTTs differ from those it had on from */
	if ((uint16_t)(from->ttt_gen - to->ttt_gen) < 0x8000u)
		to->ttt_gen = from->ttt_gen;
	t->conn = to;
	list_add_tail(&to->tasks, &t->node);
	list_add(&to->itt_hash[itt_bucket(t->itt)], &t->itt_node);
	to->live_tasks++;
	t->cmd.reactor = to->r;
	iscsi_mem_pin(t);
	if (from != t->home)
		iscsi_conn_put(from);
}

/* Lists of tasks are walked node by node: struct iscsi_task is 16-byte
 * aligned (the core's bs_io), and list_for_each_entry would form a task
 * pointer from the list head, which UBSan reports as misaligned. */
#define for_each_task_node(n, head)                                                                \
	for (struct list_node *n = (head)->next; n != (head); n = n->next)

struct iscsi_task *iscsi_task_by_itt(struct iscsi_conn *c, uint32_t itt)
{
	struct list_node *head = &c->itt_hash[itt_bucket(itt)];

	for_each_task_node(n, head)
	{
		struct iscsi_task *t = list_entry(n, struct iscsi_task, itt_node);

		if (t->itt == itt)
			return t;
	}
	return NULL;
}

struct iscsi_task *iscsi_task_by_ttt(struct iscsi_conn *c, uint32_t ttt)
{
	unsigned idx = ttt & 0xffffu;
	struct iscsi_task *t;

	if (ttt == ISCSI_RSVD_TAG)
		return NULL;
	if (idx < c->ntasks) {
		/* a slot of c's pool whose task is still allegiant to c */
		t = c->task_tab[idx];
		if (t->conn == c && t->state == ISCSI_TASK_DATA_OUT)
			for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
				if (t->r2t[i].active && t->r2t[i].ttt == ttt)
					return t;
	}
	if (!c->foreign_tasks)
		return NULL;
	/* ERL 2: tasks reassigned to c from another connection's pool */
	for_each_task_node(n, &c->tasks)
	{
		t = list_entry(n, struct iscsi_task, node);
		if (t->home == c || t->state != ISCSI_TASK_DATA_OUT)
			continue;
		for (unsigned i = 0; i < ISCSI_R2T_MAX; i++)
			if (t->r2t[i].active && t->r2t[i].ttt == ttt)
				return t;
	}
	return NULL;
}

/* ---- command ordering and hand-off to the core ---- */

void iscsi_task_exec(struct iscsi_task *t)
{
	list_del(&t->hold_node);
	list_del(&t->enter_node); /* scsi_cmd_exec enters it if it was not */
	t->exec_pending = false;
	t->state = ISCSI_TASK_EXEC;
	/* cmd_done may run inside: t must not be touched afterwards */
	scsi_cmd_exec(&t->cmd);
}

/* Insert a task's node into a list kept in CmdSN order (node_off: where
 * the node is in struct iscsi_task: hold_node or enter_node). */
static void cmdsn_sorted_add(struct list_node *head, struct list_node *node, uint32_t cmdsn,
			     size_t node_off)
{
	struct list_node *pos = head;

	for_each_task_node(n, head)
	{
		const struct iscsi_task *o = (const void *)((const char *)n - node_off);

		if (iscsi_sn_lt(cmdsn, o->cmdsn)) {
			pos = n;
			break;
		}
	}
	list_add_tail(pos, node); /* before pos */
}

void iscsi_task_data_complete(struct iscsi_task *t)
{
	struct iscsi_session *s = t->sess;

	if (t->fabric_error && !t->aborted)
		scsi_cmd_set_fabric_error(&t->cmd, (enum sense_reason)t->fabric_error);
	/* RFC 7143 3.2.2.1: commands are delivered in CmdSN order; an aborted
	 * task is finished at once */
	if (t->immediate || t->aborted || iscsi_cmdsn_reached(&s->cmdsn, t->cmdsn)) {
		iscsi_task_exec(t);
		return;
	}
	t->exec_pending = true;
	/* The held list is kept in CmdSN order: when ExpCmdSN passes several
	 * of them at once (the command that filled a gap came last), they go
	 * to the core in CmdSN order, not in the order they arrived -- on
	 * several connections of the session (MC/S), or out of order on one. */
	cmdsn_sorted_add(&s->held, &t->hold_node, t->cmdsn, offsetof(struct iscsi_task, hold_node));
}

/* The tasks set up ahead of CmdSN order enter their task sets, and the
 * non-immediate TMFs waiting for it run, interleaved in CmdSN order: those
 * ExpCmdSN passed, or (all) every task at once, without the TMFs (an
 * immediate TMF is about to act on them). Both lists are in CmdSN order;
 * a TMF run here may advance ExpCmdSN and come back in: the heads are
 * read again each turn. */
static void enter_first(struct iscsi_session *s, bool all)
{
	for (;;) {
		struct iscsi_task *t = NULL;
		uint32_t tmf_sn;
		bool tmf = !all && iscsi_tmf_held_first(s, &tmf_sn) &&
			   iscsi_cmdsn_reached(&s->cmdsn, tmf_sn);

		if (!list_empty(&s->unentered)) {
			t = list_entry(s->unentered.next, struct iscsi_task, enter_node);
			if (!all && !iscsi_cmdsn_reached(&s->cmdsn, t->cmdsn))
				t = NULL;
		}
		if (t && (!tmf || iscsi_sn_lt(t->cmdsn, tmf_sn))) {
			list_del(&t->enter_node);
			scsi_cmd_enter(&t->cmd);
		} else if (tmf) {
			iscsi_tmf_run_first(s);
		} else {
			return;
		}
	}
}

void iscsi_tasks_enter_reached(struct iscsi_session *s)
{
	enter_first(s, false);
}

void iscsi_tasks_enter_all(struct iscsi_session *s)
{
	enter_first(s, true);
}

void iscsi_tasks_cmdsn_advanced(struct iscsi_session *s)
{
	bool again = true;

	iscsi_tasks_enter_reached(s);
	while (again) {
		again = false;
		for_each_task_node(n, &s->held)
		{
			struct iscsi_task *t = list_entry(n, struct iscsi_task, hold_node);

			if (iscsi_cmdsn_reached(&s->cmdsn, t->cmdsn)) {
				iscsi_task_exec(t); /* may change the list: rescan */
				again = true;
				break;
			}
		}
	}
}

void iscsi_tasks_terminate(struct iscsi_conn *c)
{
	bool again = true;

	c->rx_task = NULL; /* no more data comes */
	while (again) {
		again = false;
		for_each_task_node(n, &c->tasks)
		{
			struct iscsi_task *t = list_entry(n, struct iscsi_task, node);

			if (t->state != ISCSI_TASK_DATA_OUT)
				continue;
			/* waiting for Data-Out or for CmdSN order, which can no
			 * longer come: ended as aborted (the core's nexus loss
			 * does not see tasks outside its task set) */
			t->aborted = true;
			t->uns_open = false;
			iscsi_r2t_stop(t);
			scsi_cmd_set_fabric_error(&t->cmd, SENSE_TASK_ABORTED);
			iscsi_task_exec(t); /* may release t: rescan */
			again = true;
			break;
		}
	}
}

/* ---- SCSI Command ---- */

static uint8_t map_attr(uint8_t a)
{
	static const uint8_t map[8] = {
	    [ISCSI_ATTR_UNTAGGED] = SCSI_ATTR_SIMPLE,
	    [ISCSI_ATTR_SIMPLE] = SCSI_ATTR_SIMPLE,
	    [ISCSI_ATTR_ORDERED] = SCSI_ATTR_ORDERED,
	    [ISCSI_ATTR_HEAD_OF_QUEUE] = SCSI_ATTR_HEAD_OF_QUEUE,
	    [ISCSI_ATTR_ACA] = SCSI_ATTR_ACA,
	    /* 5..7 reserved: simple */
	};

	return map[a & ISCSI_CMD_ATTR_MASK];
}

/* Collect the CDB: 16 bytes in the BHS plus an Extended CDB AHS (11.2.1.5).
 * Returns 0, -EINVAL for a malformed AHS, -E2BIG for a CDB over
 * SCSI_MAX_CDB bytes (the first 16 bytes are kept). */
static int collect_cdb(struct scsi_cmd *cmd, const struct iscsi_rx *rx)
{
	uint32_t off = 0;
	int rc = 0;

	memcpy(cmd->cdb, rx->hdr.cmd.cdb, ISCSI_CDB_LEN);
	cmd->cdb_len = ISCSI_CDB_LEN;
	while (off < rx->ahs_len) {
		const struct iscsi_ahs_hdr *a;
		uint32_t alen;

		if (rx->ahs_len - off < sizeof(*a) + 1)
			return -EINVAL;
		a = (const struct iscsi_ahs_hdr *)(rx->ahs + off);
		alen = get_be16(a->len);
		if (alen > rx->ahs_len - off - sizeof(*a))
			return -EINVAL;
		if (a->type == ISCSI_AHS_EXTENDED_CDB) {
			/* AHS-specific: 1 reserved byte, then CDB bytes 16.. */
			uint32_t extra = alen ? alen - 1 : 0;

			if (!alen)
				return -EINVAL;
			if (ISCSI_CDB_LEN + extra > SCSI_MAX_CDB) {
				rc = -E2BIG;
			} else {
				memcpy(cmd->cdb + ISCSI_CDB_LEN, rx->ahs + off + sizeof(*a) + 1,
				       extra);
				cmd->cdb_len = (uint8_t)(ISCSI_CDB_LEN + extra);
			}
		}
		/* other AHS types (Bidirectional Read EDTL) carry nothing we use */
		off += UT_ALIGN_UP((uint32_t)sizeof(*a) + alen, 4u);
	}
	return rc;
}

/* RFC 7143 13.10, 13.11: unsolicited data the session did not negotiate.
 * ImmediateData=No forbids data in the command PDU; InitialR2T=Yes forbids
 * unsolicited Data-Out, which a write command announces with F=0; and the
 * immediate data may not exceed FirstBurstLength (13.14). Such a command
 * ends with CHECK CONDITION, ABORTED COMMAND, UNEXPECTED UNSOLICITED DATA
 * (11.4.7.2), its data read and discarded. */
static bool unsolicited_refused(struct iscsi_conn *c, const struct iscsi_bhs_scsi_cmd *h,
				uint32_t dsl)
{
	const struct iscsi_params *p = &c->sess->params;
	bool write = h->flags & ISCSI_CMD_F_WRITE;

	if (dsl && !p->immediate_data) {
		iscsi_conn_proto_err(c, "immediate data with ImmediateData=No");
		return true;
	}
	if (dsl > p->first_burst_length) {
		iscsi_conn_proto_err(c, "immediate data beyond FirstBurstLength");
		return true;
	}
	if (write && !(h->flags & ISCSI_FLAG_FINAL) && p->initial_r2t) {
		iscsi_conn_proto_err(c, "unsolicited Data-Out announced with InitialR2T=Yes");
		return true;
	}
	return false;
}

/* The task is set up and has its buffer: the immediate data (11.3, 13.11)
 * lands in it straight from the socket. Also called by mempress.c when a
 * buffer that was waited for comes. */
void iscsi_scsi_cmd_place(struct iscsi_conn *c, struct iscsi_task *t, struct iscsi_rx *rx)
{
	const struct iscsi_bhs_scsi_cmd *h = &rx->hdr.cmd;
	struct scsi_cmd *cmd = &t->cmd;

	iscsi_mem_pin(t);
	if (unsolicited_refused(c, h, rx->dsl) && !t->fabric_error)
		t->fabric_error = SENSE_ABORTED_UNEXPECTED_UNSOLICITED_DATA;
	/* What goes into cmd->buf: never more than the core allocated nor
	 * than the initiator declared it would send. */
	if ((h->flags & ISCSI_CMD_F_WRITE) && !t->fabric_error && !t->aborted && cmd->buf)
		t->want = UT_MIN(cmd->write_len, t->edtl);
	if (rx->dsl) {
		/* immediate data (11.3, 13.11); bytes beyond want are read
		 * and discarded by the receive machine */
		if (!(h->flags & ISCSI_CMD_F_WRITE))
			iscsi_conn_proto_err(c, "immediate data on a command without W");
		rx->dst = cmd->buf;
		rx->keep = UT_MIN(rx->dsl, t->want);
		t->uns_got = rx->dsl;
	}
	/* unsolicited Data-Out of a failed task is drained until its F bit */
	t->uns_open = (h->flags & ISCSI_CMD_F_WRITE) && !(h->flags & ISCSI_FLAG_FINAL);
}

/* ERL >= 1: a command that arrives again with the ITT and CmdSN of one the
 * target has (RFC 7143 6.2.1 retry; 7.2.1): it is not executed twice.
 * Its task waits for it (its immediate data was lost, erl.c): the data is
 * placed again; its task is still running: the PDU is discarded, the
 * status comes when it is done; it is done and its status not yet
 * acknowledged: the retained Data-In and status are sent again. True when
 * the PDU was one of those (answered). */
static bool cmd_retry(struct iscsi_conn *c, struct iscsi_rx *rx, uint32_t itt, uint32_t cmdsn)
{
	const struct iscsi_bhs_scsi_cmd *h = &rx->hdr.cmd;
	struct iscsi_task *t = iscsi_task_by_itt(c, itt);

	if (t && t->cmdsn == cmdsn) {
		if (!t->retry_wait || t->state != ISCSI_TASK_DATA_OUT) {
			c->rx_discard = true;
			return true;
		}
		t->retry_wait = false;
		iscsi_session_count(&c->sess->stat_retried_cmds, 1);
		c->rx_task = t;
		c->rx_advanced = false;
		if (rx->dsl) {
			rx->dst = t->cmd.buf;
			rx->keep = UT_MIN(rx->dsl, t->want);
		}
		t->uns_got = rx->dsl;
		t->uns_datasn = 0;
		t->uns_lost = false;
		t->uns_open = (h->flags & ISCSI_CMD_F_WRITE) && !(h->flags & ISCSI_FLAG_FINAL);
		return true;
	}
	if (!t && iscsi_retain_has_status(c, itt)) {
		iscsi_session_count(&c->sess->stat_retried_cmds, 1);
		iscsi_retain_resend_task(c, itt, 0);
		c->rx_discard = true;
		return true;
	}
	return false;
}

/* The header of a SCSI Command PDU is in (its immediate data is not yet):
 * the CmdSN window (RFC 7143 3.2.2.1), a task for the ITT, the CDB, the
 * core's set-up (scsi_cmd_setup(): LUN, CDB table, checks, the handler's
 * parse, the buffer), then where the immediate data goes. */
int iscsi_scsi_cmd_rx_header(struct iscsi_conn *c, struct iscsi_rx *rx)
{
	const struct iscsi_bhs_scsi_cmd *h = &rx->hdr.cmd;
	struct iscsi_session *s = c->sess;
	uint32_t itt = get_be32(h->itt);
	uint32_t cmdsn = get_be32(h->cmdsn);
	bool immediate = iscsi_hdr_immediate(&rx->hdr);
	bool advanced = false, ahead = false;
	struct iscsi_task *t;
	struct scsi_cmd *cmd;
	int rc;

	c->rx_task = NULL;
	if (!s || s->type != ISCSI_SESSION_NORMAL) {
		/* RFC 7143 4.3: a discovery session carries no SCSI command */
		iscsi_conn_proto_err(c, "SCSI Command in a discovery session");
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, &rx->hdr);
		c->rx_discard = true;
		return 0;
	}
	if (c->state != ISCSI_CONN_S5_LOGGED_IN) {
		/* logout in progress: no new command on this connection */
		iscsi_reject(c, ISCSI_REJECT_WAITING_FOR_LOGOUT, &rx->hdr);
		c->rx_discard = true;
		return 0;
	}
	c->exp_stat_sn = get_be32(h->exp_statsn);
	if (iscsi_erl1(c) && cmd_retry(c, rx, itt, cmdsn))
		return 0;
	if (!immediate) {
		enum iscsi_cmdsn_verdict v = iscsi_cmdsn_check(&s->cmdsn, cmdsn);

		if (v == ISCSI_CMDSN_OUTSIDE) {
			/* RFC 7143 3.2.2.1: silently ignored, the connection kept */
			log_debug("iscsi: %s: CmdSN 0x%08x outside [0x%08x, 0x%08x]: ignored",
				  c->peer, cmdsn, s->cmdsn.exp, s->cmdsn.max);
			c->rx_discard = true;
			return 0;
		}
		ahead = v == ISCSI_CMDSN_AHEAD;
		advanced = iscsi_cmdsn_accept(&s->cmdsn, cmdsn);
	}
	if (itt == ISCSI_RSVD_TAG) {
		iscsi_conn_proto_err(c, "SCSI Command with the reserved ITT");
		iscsi_reject(c, ISCSI_REJECT_INVALID_PDU_FIELD, &rx->hdr);
		c->rx_discard = true;
		goto out;
	}
	if (iscsi_task_by_itt(c, itt)) {
		iscsi_conn_proto_err(c, "ITT 0x%08x already in use", itt);
		iscsi_reject(c, ISCSI_REJECT_TASK_IN_PROGRESS, &rx->hdr);
		c->rx_discard = true;
		goto out;
	}
	t = iscsi_task_get(c);
	if (!t) {
		/* the window bounds non-immediate commands; immediate ones
		 * beyond the spare slots are refused (11.17.1 reason 06h) */
		iscsi_conn_proto_err(c, "no task slot for ITT 0x%08x", itt);
		iscsi_reject(c, immediate ? ISCSI_REJECT_IMMEDIATE_CMD : ISCSI_REJECT_LONG_OP,
			     &rx->hdr);
		c->rx_discard = true;
		goto out;
	}
	t->itt = itt;
	t->cmdsn = cmdsn;
	t->immediate = immediate;
	t->counted = !immediate;
	if (t->counted)
		s->cmdsn.busy++;
	t->edtl = get_be32(h->edtl);
	memcpy(t->lun, h->lun, sizeof(t->lun));
	list_add(&c->itt_hash[itt_bucket(itt)], &t->itt_node);

	cmd = &t->cmd;
	scsi_cmd_init(cmd);
	cmd->nexus = s->nexus;
	cmd->reactor = c->r;
	cmd->lun = get_be64(h->lun);
	cmd->tag = itt;
	cmd->exp_len = t->edtl;
	cmd->attr = map_attr(h->flags);
	cmd->fabric_dir = (uint8_t)(((h->flags & ISCSI_CMD_F_READ) ? SCSI_DIR_READ : 0) |
				    ((h->flags & ISCSI_CMD_F_WRITE) ? SCSI_DIR_WRITE : 0));
	cmd->buf_wait_ok = true; /* mempress.c */
	cmd->buf_budget = iscsi_mem_budget(c);
	cmd->buf_reserve = iscsi_mem_reserve(c);
	/* Data-In straight from the page cache (bs.h BS_IO_LEND) where
	 * sendmsg() copies it once, into the socket, while the task lives:
	 * not where ERL 1 keeps a copy for a SNACK (retain.c), not through
	 * another writer (c->io: a spread connection's ring, conn_split.c,
	 * copies in user space, where a file cut short under the mapping
	 * would fault). With a data digest the lent data is copied into the
	 * buffer as the command completes (iscsi_core_cmd_done). */
	cmd->lend_ok = !c->io && !iscsi_erl1(c);
	/* Commands enter their LU's task set in CmdSN order (RFC 7143
	 * 3.2.2.1), so that their task attributes (ORDERED, HEAD OF QUEUE)
	 * hold across the session's connections. One ahead of ExpCmdSN --
	 * those before it come on other connections (MC/S), or were lost
	 * (ERL 1), or are being sent again after a connection failed (ERL 2,
	 * where a resent command follows newer ones on the same connection)
	 * -- is set up now, its buffer taken and its data received, and
	 * enters when ExpCmdSN reaches it (iscsi_tasks_enter_reached). The
	 * connection reads on: whatever fills the gap can come on it. */
	cmd->enter_later = ahead;
	rc = collect_cdb(cmd, rx);
	scsi_cmd_setup(cmd);
	t->setup = true;
	if (ahead)
		cmdsn_sorted_add(&s->unentered, &t->enter_node, cmdsn,
				 offsetof(struct iscsi_task, enter_node));
	else if (advanced)
		iscsi_tasks_enter_reached(s); /* those it let through follow it */
	t->state = ISCSI_TASK_DATA_OUT;
	if (rc == -EINVAL) {
		iscsi_conn_proto_err(c, "malformed AHS (ITT 0x%08x)", itt);
		t->fabric_error = SENSE_ABORTED_INVALID_FIELD_IN_CIU;
	} else if (rc == -E2BIG) {
		/* a CDB longer than the core takes: CHECK CONDITION */
		t->fabric_error = SENSE_INVALID_FIELD_IN_CDB;
	}

	c->rx_task = t;
	/* commands held behind this one go to the core after it */
	c->rx_advanced = advanced;
	if (scsi_cmd_buf_pending(cmd) && iscsi_mem_wait(c, t)) {
		/* no buffer memory now: this command waits with reading
		 * stopped before its data segment (mempress.c) */
		return 1;
	}
	iscsi_scsi_cmd_place(c, t, rx);
	return 0;
out:
	if (advanced)
		iscsi_tasks_cmdsn_advanced(s);
	return 0;
}

/* The end of the receive of a SCSI Command PDU (immediate data and its
 * digest are in): the task goes on to its data phase (data_out.c:
 * iscsi_task_data_progress(), which hands it to the core when no more data
 * is due), and commands held for CmdSN order behind it may go. */
int iscsi_scsi_cmd_rx_end(struct iscsi_conn *c, struct iscsi_rx *rx, bool ddigest_ok)
{
	struct iscsi_task *t = c->rx_task;
	struct iscsi_session *s = c->sess;
	bool advanced = c->rx_advanced;

	c->rx_task = NULL;
	c->rx_advanced = false;
	if (!t)
		return 0;
	if (!ddigest_ok && iscsi_erl1(c) && !t->fabric_error && !t->aborted) {
		/* RFC 7143 7.8 at ERL >= 1: the command PDU is rejected and
		 * discarded; its task waits for the retry (cmd_retry) */
		iscsi_conn_digest_err(c, "data digest error in immediate data (ITT 0x%08x)",
				      t->itt);
		iscsi_reject(c, ISCSI_REJECT_DATA_DIGEST, &rx->hdr);
		t->retry_wait = true;
		t->uns_got = 0;
		t->uns_open = false;
	} else if (!ddigest_ok) {
		/* RFC 7143 7.8 at ERL 0: reject the PDU, end the task with
		 * PROTOCOL SERVICE CRC ERROR */
		iscsi_conn_digest_err(c, "data digest error in immediate data (ITT 0x%08x)",
				      t->itt);
		iscsi_reject(c, ISCSI_REJECT_DATA_DIGEST, &rx->hdr);
		if (!t->fabric_error)
			t->fabric_error = SENSE_ABORTED_PROTOCOL_CRC_ERROR;
	}
	iscsi_task_data_progress(t);
	if (advanced && s)
		iscsi_tasks_cmdsn_advanced(s);
	return c->rx_paused ? 1 : 0;
}

/* ---- completion: Data-In and SCSI Response ---- */

static void put_resid(const struct scsi_cmd *cmd, uint8_t *flags, uint8_t *resid)
{
	if (cmd->resid_kind == SCSI_RESID_OVERFLOW)
		*flags |= ISCSI_RSP_F_OVERFLOW;
	else if (cmd->resid_kind == SCSI_RESID_UNDERFLOW)
		*flags |= ISCSI_RSP_F_UNDERFLOW;
	else
		return;
	put_be32(resid, cmd->resid);
}

/* The Data-In of t from Buffer Offset off0 on (0; ERL 2 reassignment: a
 * multiple of MaxRecvDataSegmentLength within a sequence), DataSN from
 * t->datasn. */
static int send_data_in(struct iscsi_task *t, bool collapse, uint32_t off0)
{
	struct iscsi_conn *c = t->conn;
	struct scsi_cmd *cmd = &t->cmd;
	uint32_t len = cmd->data_in_len;
	uint32_t burst = t->sess->params.max_burst_length;
	uint32_t seg = c->max_send_dsl;
	uint32_t in_burst = off0 % burst;
	uint32_t off = off0;
	uint32_t ack_ttt;

	if (len > t->edtl)
		len = t->edtl; /* never more than the initiator's buffer */
	ack_ttt = iscsi_dataack_ttt(c, t, len);
	while (off < len) {
		uint32_t n = UT_MIN(len - off, UT_MIN(seg, burst - in_burst));
		struct iscsi_tx *tx = iscsi_tx_get(c);
		struct iscsi_bhs_data_in *d;
		bool last = off + n == len;

		if (!tx)
			return -ENOMEM;
		d = &tx->hdr.data_in;
		d->opcode = ISCSI_OP_DATA_IN;
		memcpy(d->lun, t->lun, sizeof(d->lun));
		put_be32(d->itt, t->itt);
		put_be32(d->ttt, ISCSI_RSVD_TAG);
		in_burst += n;
		/* 11.7.1: F ends each sequence of at most MaxBurstLength */
		if (last || in_burst == burst) {
			d->flags |= ISCSI_FLAG_FINAL;
			in_burst = 0;
			if (!last && ack_ttt != ISCSI_RSVD_TAG) {
				/* 11.7.2, 11.7.4: ask for a DataACK once per
				 * sequence but the last (dataack.c) */
				d->flags |= ISCSI_DATAIN_F_ACK;
				put_be32(d->ttt, ack_ttt);
			}
		}
		if (last && collapse) {
			/* 11.7.4: status in the last Data-In (no sense data) */
			d->flags |= ISCSI_DATAIN_F_STATUS;
			d->status = cmd->status;
			put_resid(cmd, &d->flags, d->resid);
			iscsi_conn_fill_sn(c, d->statsn, d->exp_cmdsn, d->max_cmdsn, true);
			tx->flags |= ISCSI_TX_F_TASK_DONE;
			tx->task = t;
		} else {
			uint8_t rsvd[4];

			iscsi_conn_fill_sn(c, rsvd, d->exp_cmdsn, d->max_cmdsn, false);
		}
		put_be32(d->datasn, t->datasn++);
		put_be32(d->buffer_offset, off);
		tx->data = scsi_cmd_data_in(cmd) + off; /* no copy: buffer or page cache */
		tx->len = n;
		if (cmd->data_in_src) {
			tx->flags |= ISCSI_TX_F_LENT;
			tx->task = t;
			c->txq_lent++;
		}
		iscsi_tx_queue(c, tx);
		off += n;
	}
	return 0;
}

static int send_response(struct iscsi_task *t)
{
	struct iscsi_conn *c = t->conn;
	struct scsi_cmd *cmd = &t->cmd;
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_scsi_rsp *r;

	if (!tx)
		return -ENOMEM;
	r = &tx->hdr.rsp;
	r->opcode = ISCSI_OP_SCSI_RSP;
	r->flags = ISCSI_FLAG_FINAL;
	r->response = ISCSI_RESPONSE_COMPLETED;
	r->status = cmd->status;
	put_be32(r->itt, t->itt);
	put_resid(cmd, &r->flags, r->resid);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	put_be32(r->exp_datasn, t->datasn);
	if (cmd->sense_len) {
		/* 11.4.7: SenseLength (2 bytes) then the sense data */
		uint32_t n = UT_MIN((uint32_t)cmd->sense_len, (uint32_t)SCSI_SENSE_MAX);

		put_be16(tx->small, (uint16_t)n);
		memcpy(tx->small + 2, cmd->sense, n);
		tx->data = tx->small;
		tx->len = n + 2;
	}
	tx->flags |= ISCSI_TX_F_TASK_DONE;
	tx->task = t;
	iscsi_tx_queue(c, tx);
	return 0;
}

/* The core's completion callback (scsi_fabric_ops.cmd_done): the command
 * has its status; send its Data-In (the status in the last one when there
 * is no sense data, 11.7.4) or a SCSI Response (11.4). The PDUs go out with
 * the connection's flush at the end of the reactor iteration; the task is
 * released once the last one is on the wire. */
static void iscsi_core_cmd_done(struct scsi_cmd *cmd)
{
	struct iscsi_task *t = container_of(cmd, struct iscsi_task, cmd);
	struct iscsi_conn *c = t->conn;
	struct iscsi_session *s = t->sess;
	bool good = cmd->status == SAM_STAT_GOOD || cmd->status == SAM_STAT_CONDITION_MET;
	bool collapse;

	/* an aborted task ends without status, or with TASK ABORTED for
	 * another nexus' TMF (TAS): only then is the TMF asked for */
	if (unlikely(cmd->suppress_response || cmd->status == SAM_STAT_TASK_ABORTED)) {
		const struct scsi_tmf *tmf = scsi_cmd_abort_tmf(cmd);

		if (tmf && tmf->nexus != cmd->nexus)
			iscsi_third_party_aborted(s, tmf); /* 4.2.3.3 d): task_reporting.c */
	}
	t->state = ISCSI_TASK_SENDING;
	if (t->counted) {
		/* the CmdSN slot is free once the status is on its way */
		t->counted = false;
		s->cmdsn.busy--;
	}
	/* the session's counters (its reactor's: no lock, no locked add) */
	iscsi_session_count(&s->stat_cmds, 1);
	if (good && t->want && !cmd->suppress_response)
		iscsi_session_count(&s->stat_write_bytes, t->want);
	if (!cmd->suppress_response && c->recovering && !c->recov_expired) {
		/* ERL 2: its connection failed; the Data-In and status wait
		 * for a TASK REASSIGN (erl2.c), the buffer with them */
		t->erl2_done = true;
		return;
	}
	if (cmd->suppress_response || iscsi_conn_dead(c)) {
		iscsi_task_put(t);
		return;
	}
	if (cmd->data_in_len)
		iscsi_session_count(&s->stat_read_bytes, UT_MIN(cmd->data_in_len, t->edtl));
	/* DataDigest: the digest must be of the bytes sent, and sendmsg()
	 * reads the page cache later than the CRC would, after a concurrent
	 * write may have changed it. So lent data is copied into the buffer
	 * now, once, and sent from there: in place of the back-store's
	 * preadv2(), a memcpy() from the page cache (docs/performance.md
	 * section 21) */
	if (cmd->data_in_src && c->ddigest && scsi_cmd_unlend(cmd) < 0) {
		iscsi_conn_drop(c, "lent Data-In no longer readable"); /* image cut short */
		iscsi_task_put(t);
		return;
	}
	collapse = cmd->data_in_len && !cmd->sense_len && good;
	if (send_data_in(t, collapse, 0) || (!collapse && send_response(t))) {
		iscsi_conn_drop(c, "out of memory for a response");
		iscsi_task_put(t);
		return;
	}
	if (unlikely(s->fence_next))
		iscsi_fence_first_response(c); /* task_reporting.c */
}

int iscsi_task_resend(struct iscsi_task *t, uint32_t from, uint32_t old_seg)
{
	struct scsi_cmd *cmd = &t->cmd;
	uint32_t len = UT_MIN(cmd->data_in_len, t->edtl);
	uint32_t burst = t->sess->params.max_burst_length;
	bool good = cmd->status == SAM_STAT_GOOD || cmd->status == SAM_STAT_CONDITION_MET;
	bool collapse;
	uint32_t off = 0, in_burst = 0;

	/* the Buffer Offset of DataSN from, as the failed connection
	 * segmented the data (send_data_in); on from there */
	for (uint32_t sn = 0; sn < from && off < len; sn++) {
		uint32_t n = UT_MIN(len - off, UT_MIN(old_seg, burst - in_burst));

		off += n;
		in_burst = in_burst + n == burst ? 0 : in_burst + n;
	}
	t->state = ISCSI_TASK_SENDING;
	t->erl2_done = false;
	t->datasn = from;
	collapse = len && off < len && !cmd->sense_len && good;
	if (len && off < len && send_data_in(t, collapse, off))
		return -1;
	if (!collapse && send_response(t))
		return -1;
	return 0;
}

/* The core's scsi_fabric_ops.cmd_abort_pending: a TMF aborted a task still
 * collecting Data-Out; stop soliciting and hand it to the core now, or,
 * for a multi-task abort of its own session, once the bursts still open
 * have ended (RFC 7143 4.2.3.3 a), unless FastAbort: task_reporting.c). */
static void iscsi_core_cmd_abort_pending(struct scsi_cmd *cmd)
{
	struct iscsi_task *t = container_of(cmd, struct iscsi_task, cmd);
	struct iscsi_conn *c = t->conn;

	t->aborted = true;
	if (!iscsi_abort_drains_data_out(t)) {
		t->uns_open = false;
		iscsi_r2t_stop(t);
	}
	if (c->rx_task == t)
		return; /* its data segment is being received: done then */
	iscsi_task_data_progress(t);
}

const struct scsi_fabric_ops iscsi_fabric_ops = {
    .name = "iscsi",
    .cmd_done = iscsi_core_cmd_done,
    .cmd_abort_pending = iscsi_core_cmd_abort_pending,
    .tmf_done = iscsi_tmf_done,
};
