/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mempress.c: back-pressure on the memory of command data buffers.
 *
 * The data buffers of all commands come from one pool with a global cap
 * (lib/bufpool.h, settings.max_buffer_memory_mib). Instead of allocating
 * without bound, or failing commands with BUSY, the fabric slows the
 * initiators down the way RFC 7143 3.2.2.1 provides for:
 *  - from 7/8 of the cap (or while any command waits for memory), MaxCmdSN
 *    stops advancing: responses carry the MaxCmdSN last advertised, so the
 *    command window closes as commands arrive (it never moves back);
 *  - a SCSI Command whose buffer cannot be had is held after its header:
 *    the core leaves it set up without a buffer (scsi_cmd_buf_pending) and
 *    the connection stops reading before its data segment (TCP then pushes
 *    back on the initiator). A timer retries every MEM_RETRY_NS; once the
 *    buffer is there the command is placed (immediate data lands in it) and
 *    reading goes on. Waiting cannot always end: the memory may be held by
 *    commands waiting for Data-Out that sits behind the waiting command in
 *    the stream of a connection that no longer reads (this one or another
 *    waiting one). So a command does not wait at all when tasks of its own
 *    connection hold buffers while waiting for Data-Out (they could not get
 *    it while the connection does not read), and waits at most
 *    MEM_WAIT_MAX_NS otherwise; a command not waited for is given up: its
 *    immediate data is discarded, it ends with BUSY (SAM-5 5.3.1, the
 *    initiator retries it) and reading goes on, so those tasks complete and
 *    free their buffers.
 *  - when memory is back and MaxCmdSN was held, a NOP-In (ITT and TTT
 *    0xffffffff, StatSN not advanced: 11.19) announces the new window, in
 *    case no response is due that would carry it.
 * The global cap is shared by every initiator, so each session and each
 * connection also has a share of it (max_session_data_mib,
 * max_connection_data_mib: below) and a cap on what it has queued to send
 * (max_*_send_queue_mib). The waiting state lives on the connection (one
 * per session: no MC/S yet); everything runs on the connection's reactor. */
#include <stdatomic.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"

#define MEM_RETRY_NS	(2u * 1000000u)	   /* 2 ms */
#define MEM_WAIT_MAX_NS (1000u * 1000000u) /* 1 s */

/* Connections with a command waiting for buffer memory (all reactors). */
static atomic_uint mem_waiters;

static uint64_t mib(uint32_t v)
{
	return (uint64_t)v << 20;
}

static bool mem_short_global(void)
{
	uint64_t cap = mib(iscsi_global.settings.max_buffer_memory_mib);

	if (!cap)
		return false;
	return atomic_load_explicit(&mem_waiters, memory_order_relaxed) ||
	       buf_in_use() > cap - cap / 8;
}

/* ---- shares of one session and one connection ----
 * The global cap alone lets one initiator take all of it (a few hundred
 * WRITEs whose Data-Out never comes, or READs whose Data-In it does not
 * read) and every other one then waits. Each session and each connection
 * has a share: past 7/8 of it the window closes as for the global cap;
 * a command whose buffer would not fit in what is left ends with TASK SET
 * FULL (SAM-5 5.3) without allocating it -- unless nothing is pinned, so
 * that a command larger than the share still runs alone. */
static bool over_7_8(uint64_t used, uint32_t cap_mib)
{
	uint64_t cap = mib(cap_mib);

	return cap && used >= cap - cap / 8;
}

bool iscsi_sendq_over(const struct iscsi_conn *c)
{
	const struct iscsi_settings *st = &iscsi_global.settings;

	return c->txq_bytes > mib(st->max_connection_send_queue_mib) ||
	       (c->sess && c->sess->txq_bytes > mib(st->max_session_send_queue_mib));
}

bool iscsi_sendq_drained(const struct iscsi_conn *c)
{
	const struct iscsi_settings *st = &iscsi_global.settings;

	return c->txq_bytes <= mib(st->max_connection_send_queue_mib) / 2 &&
	       (!c->sess || c->sess->txq_bytes <= mib(st->max_session_send_queue_mib) / 2);
}

static bool share_short(const struct iscsi_conn *c)
{
	const struct iscsi_settings *st = &iscsi_global.settings;
	const struct iscsi_session *s = c->sess;

	return over_7_8(c->data_bytes, st->max_connection_data_mib) ||
	       (s && over_7_8(s->data_bytes, st->max_session_data_mib)) || iscsi_sendq_over(c);
}

/* The global cap holds the window of a session that waits for memory or
 * pins more than its reserve; one within its reserve gets its buffers
 * outside the cap anyway, and keeps its window. */
static bool mem_short(const struct iscsi_conn *c)
{
	const struct iscsi_session *s = c->sess;
	uint64_t reserve = (uint64_t)iscsi_global.settings.session_reserve_kib << 10;

	return (mem_short_global() && (c->mem_wait || !s || s->data_bytes > reserve)) ||
	       share_short(c);
}

uint32_t iscsi_mem_reserve(const struct iscsi_conn *c)
{
	uint64_t reserve = (uint64_t)iscsi_global.settings.session_reserve_kib << 10;
	const struct iscsi_session *s = c->sess;

	if (!s || s->reserve_bytes >= reserve)
		return 0;
	return (uint32_t)UT_MIN(reserve - s->reserve_bytes, (uint64_t)UINT32_MAX);
}

static uint64_t left_of(uint64_t used, uint32_t cap_mib, uint64_t left)
{
	uint64_t cap = mib(cap_mib);

	if (!cap)
		return left;
	return UT_MIN(left, cap > used ? cap - used : 0);
}

uint32_t iscsi_mem_budget(const struct iscsi_conn *c)
{
	const struct iscsi_settings *st = &iscsi_global.settings;
	const struct iscsi_session *s = c->sess;
	uint64_t left = UINT64_MAX;

	if (!c->data_bytes && (!s || !s->data_bytes))
		return 0;
	left = left_of(c->data_bytes, st->max_connection_data_mib, left);
	if (s)
		left = left_of(s->data_bytes, st->max_session_data_mib, left);
	if (left == UINT64_MAX)
		return 0;
	/* 0 means "no budget" to the core: nothing left is one byte */
	return (uint32_t)UT_MAX(1u, UT_MIN(left, (uint64_t)UINT32_MAX));
}

void iscsi_mem_pin(struct iscsi_task *t)
{
	uint32_t n = scsi_cmd_buf_bytes(&t->cmd);

	if (t->pinned || !n)
		return;
	t->pinned = n;
	t->conn->data_bytes += n;
	t->sess->data_bytes += n;
	t->pinned_reserved = scsi_cmd_buf_reserved(&t->cmd);
	if (t->pinned_reserved)
		t->sess->reserve_bytes += n;
}

void iscsi_mem_unpin(struct iscsi_task *t)
{
	if (!t->pinned)
		return;
	t->conn->data_bytes -= t->pinned;
	t->sess->data_bytes -= t->pinned;
	if (t->pinned_reserved)
		t->sess->reserve_bytes -= t->pinned;
	t->pinned = 0;
	t->pinned_reserved = false;
}

static void mem_timer_cb(struct reactor_timer *tm);

/* Does a task of c other than t hold a buffer while waiting for Data-Out? */
static bool mem_self_blocked(struct iscsi_conn *c, const struct iscsi_task *t)
{
	for (struct list_node *n = c->tasks.next; n != &c->tasks; n = n->next) {
		const struct iscsi_task *o = list_entry(n, struct iscsi_task, node);

		if (o != t && o->state == ISCSI_TASK_DATA_OUT && o->cmd.buf && !o->exec_pending)
			return true;
	}
	return false;
}

static void mem_arm(struct iscsi_conn *c)
{
	if (reactor_timer_armed(&c->mem_timer) || !c->r)
		return;
	reactor_timer_init(&c->mem_timer, mem_timer_cb);
	reactor_timer_arm(c->r, &c->mem_timer, MEM_RETRY_NS);
}

uint32_t iscsi_mem_max_cmdsn(struct iscsi_conn *c)
{
	struct iscsi_session *s = c->sess;

	if (!mem_short(c))
		return iscsi_cmdsn_max(&s->cmdsn);
	if (!c->mem_held) {
		c->mem_held = true;
		log_debug("iscsi: %s: buffer memory short (%llu bytes in use, %llu by the "
			  "session, %llu queued to send): MaxCmdSN held at 0x%08x",
			  c->peer, (unsigned long long)buf_in_use(),
			  (unsigned long long)s->data_bytes, (unsigned long long)s->txq_bytes,
			  s->cmdsn.max);
		mem_arm(c);
	}
	return s->cmdsn.max;
}

bool iscsi_mem_wait(struct iscsi_conn *c, struct iscsi_task *t)
{
	if (mem_self_blocked(c, t)) {
		iscsi_conn_proto_err(c,
				     "no buffer memory for ITT 0x%08x while tasks of this "
				     "connection wait for Data-Out: BUSY",
				     t->itt);
		return false;
	}
	if (c->mem_wait)
		return true;
	c->mem_wait = true;
	c->mem_wait_ns = reactor_now_ns();
	atomic_fetch_add_explicit(&mem_waiters, 1, memory_order_relaxed);
	iscsi_conn_pause(c);
	mem_arm(c);
	return true;
}

static void mem_wait_end(struct iscsi_conn *c)
{
	if (!c->mem_wait)
		return;
	c->mem_wait = false;
	atomic_fetch_sub_explicit(&mem_waiters, 1, memory_order_relaxed);
}

void iscsi_mem_conn_close(struct iscsi_conn *c)
{
	/* the waiting task (rx_task) is ended by iscsi_tasks_terminate */
	mem_wait_end(c);
	reactor_timer_cancel(&c->mem_timer);
}

/* 11.19: an unsolicited NOP-In that only carries ExpCmdSN/MaxCmdSN. */
static void mem_announce(struct iscsi_conn *c)
{
	struct iscsi_tx *tx = iscsi_tx_get(c);
	struct iscsi_bhs_nop_in *r;

	if (!tx)
		return; /* the next response carries it */
	r = &tx->hdr.nop_in;
	r->opcode = ISCSI_OP_NOP_IN;
	r->flags = ISCSI_FLAG_FINAL;
	put_be32(r->itt, ISCSI_RSVD_TAG);
	put_be32(r->ttt, ISCSI_RSVD_TAG);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, false);
	iscsi_tx_queue(c, tx);
}

static void mem_timer_cb(struct reactor_timer *tm)
{
	struct iscsi_conn *c = container_of(tm, struct iscsi_conn, mem_timer);
	struct iscsi_task *t = c->rx_task;

	if (iscsi_conn_dead(c))
		return;
	iscsi_conn_get(c);
	if (c->mem_wait) {
		if (t && !t->aborted && scsi_cmd_buf_retry(&t->cmd) != 0) {
			if (reactor_now_ns() - c->mem_wait_ns < MEM_WAIT_MAX_NS) {
				reactor_timer_arm(c->r, &c->mem_timer, MEM_RETRY_NS);
				goto out;
			}
			/* given up: exec completes it with BUSY */
			iscsi_conn_proto_err(c,
					     "no buffer memory for ITT 0x%08x within %u ms: BUSY",
					     t->itt, MEM_WAIT_MAX_NS / 1000000u);
		}
		/* the buffer is there (or the task went, or waited too long):
		 * take the data segment (into the buffer, or discarded) and
		 * read on */
		mem_wait_end(c);
		if (t)
			iscsi_scsi_cmd_place(c, t, &c->rx);
		iscsi_conn_resume(c);
		if (iscsi_conn_dead(c))
			goto out;
	}
	if (c->mem_held && c->sess) {
		if (mem_short(c)) {
			mem_arm(c);
			goto out;
		}
		c->mem_held = false;
		mem_announce(c);
		iscsi_conn_flush(c);
	}
out:
	iscsi_conn_put(c);
}
