/* SPDX-License-Identifier: GPL-2.0-or-later */
/* order.c: task ordering within the task set of a logical unit (SAM-5 8.6
 * task attributes, 8.7 task set management), as a matrix over task kinds
 * (after CTL's ctl_ser_table.c).
 *
 * SAM-5 8.6.2: a SIMPLE task enters the enabled state when every older HEAD
 * OF QUEUE and ORDERED task has ended; an ORDERED task when every older task
 * has ended; a HEAD OF QUEUE task at once. The Control mode page reports
 * QUEUE ALGORITHM MODIFIER 1 (unrestricted reordering of SIMPLE tasks), so
 * SIMPLE reads and writes do not wait for each other; commands that change
 * logical unit state (class ORDER_BARRIER) behave as ORDERED tasks, and
 * commands of class ORDER_NONE (INQUIRY, TEST UNIT READY, ...) as SIMPLE
 * tasks that nobody waits for.
 *
 * SAM-5 8.6.5: a task with the ACA attribute (admitted only on the faulted
 * I_T nexus while an ACA is in effect, aca.c) enters the enabled state at
 * once, whatever older tasks there are: those are held by the ACA, and it
 * must not wait behind them. Newer tasks treat it as a HEAD OF QUEUE task.
 * While an ACA is in effect no other task starts (aca_holds_locked()).
 *
 * A SIMPLE READ whose data the back-store lent (bs.h BS_IO_LEND: the
 * fabric sends it straight from the page cache) leaves the task set when it
 * completes, but its data is read from the medium only when the fabric
 * sends it. Until then (order_lent_put, at the command's release) a task
 * that waits for older SIMPLE tasks -- an ORDERED WRITE, a FORMAT UNIT --
 * waits for it too, so that it cannot change what the READ returns. No
 * newer READ can lend meanwhile (SIMPLE tasks wait for the older ORDERED
 * one), so the count drains.
 *
 * Cost: entering counts the older tasks per kind (O(1)); ending walks the
 * task set only while some task waits. A lent READ costs two atomic
 * operations, and the lock only when the last lent READ of the LU goes while
 * a task that would wait for it is in the task set. */
#include "scsi/order.h"

#include "scsi/cdb.h"
#include "scsi/core.h"

#define P ORDER_PASS
#define B ORDER_BLOCK

const uint8_t order_matrix[ORDER_KIND_COUNT][ORDER_KIND_COUNT] = {
    /* new task           older: FREE  SIMPLE  ORDERED  HOQ  ACA */
    [ORDER_KIND_FREE] = {[ORDER_KIND_FREE] = P,
			 [ORDER_KIND_SIMPLE] = P,
			 [ORDER_KIND_ORDERED] = P,
			 [ORDER_KIND_HOQ] = P,
			 [ORDER_KIND_ACA] = P},
    [ORDER_KIND_SIMPLE] = {[ORDER_KIND_FREE] = P,
			   [ORDER_KIND_SIMPLE] = P,
			   [ORDER_KIND_ORDERED] = B,
			   [ORDER_KIND_HOQ] = B,
			   [ORDER_KIND_ACA] = B},
    [ORDER_KIND_ORDERED] = {[ORDER_KIND_FREE] = B,
			    [ORDER_KIND_SIMPLE] = B,
			    [ORDER_KIND_ORDERED] = B,
			    [ORDER_KIND_HOQ] = B,
			    [ORDER_KIND_ACA] = B},
    [ORDER_KIND_HOQ] = {[ORDER_KIND_FREE] = P,
			[ORDER_KIND_SIMPLE] = P,
			[ORDER_KIND_ORDERED] = P,
			[ORDER_KIND_HOQ] = P,
			[ORDER_KIND_ACA] = P},
    [ORDER_KIND_ACA] = {[ORDER_KIND_FREE] = P,
			[ORDER_KIND_SIMPLE] = P,
			[ORDER_KIND_ORDERED] = P,
			[ORDER_KIND_HOQ] = P,
			[ORDER_KIND_ACA] = P},
};

#undef P
#undef B

void order_init(struct order_state *o)
{
	list_init(&o->tasks);
	for (unsigned k = 0; k < ORDER_KIND_COUNT; k++)
		o->count[k] = 0;
	o->n_waiting = 0;
	o->n_tasks = 0;
	atomic_init(&o->lent, 0);
	atomic_init(&o->lent_watch, 0);
}

enum order_kind order_kind_of(uint8_t attr, uint8_t order_class)
{
	switch (attr) {
	case SCSI_ATTR_HEAD_OF_QUEUE:
		return ORDER_KIND_HOQ;
	case SCSI_ATTR_ORDERED:
		return ORDER_KIND_ORDERED;
	case SCSI_ATTR_ACA:
		return ORDER_KIND_ACA;
	default: /* SIMPLE */
		break;
	}
	switch (order_class) {
	case ORDER_NONE:
		return ORDER_KIND_FREE;
	case ORDER_BARRIER:
		return ORDER_KIND_ORDERED;
	default:
		return ORDER_KIND_SIMPLE;
	}
}

/* The command of a task set entry (the entry is its priv). */
static struct scsi_cmd *task_cmd(struct scsi_cmd_priv *p)
{
	return container_of(p, struct scsi_cmd, priv);
}

/* Would a task of kind k wait for older tasks counted in older[]? */
static bool blocked_by(unsigned k, const unsigned *older)
{
	for (unsigned o = 0; o < ORDER_KIND_COUNT; o++)
		if (older[o] && order_matrix[k][o] == ORDER_BLOCK)
			return true;
	return false;
}

/* Does a task of kind k wait for older SIMPLE tasks, and so for lent READs? */
static bool waits_for_lent(unsigned k)
{
	return order_matrix[k][ORDER_KIND_SIMPLE] == ORDER_BLOCK;
}

void order_enter_locked(struct scsi_lu *lu, struct scsi_cmd *cmd)
{
	struct order_state *o = &lu->core->order;
	struct scsi_cmd_priv *p = &cmd->priv;
	enum order_kind k = order_kind_of(cmd->attr, p->order_class);

	p->order_kind = (uint8_t)k;
	p->waiting = o->n_tasks && blocked_by(k, o->count);
	if (waits_for_lent(k)) {
		/* watch, then look (sequentially consistent; order_lent_put
		 * does the reverse): a lent READ that goes meanwhile sees the
		 * watch and wakes this task */
		atomic_fetch_add(&o->lent_watch, 1);
		if (atomic_load(&o->lent))
			p->waiting = true;
	}
	if (p->waiting)
		o->n_waiting++;
	o->count[k]++;
	o->n_tasks++;
	list_add_tail(&o->tasks, &p->task_node);
}

/* Start the waiting tasks that nothing holds any longer (lu->lock held). */
static void wake_waiting_locked(struct scsi_lu *lu, struct list_node *ready)
{
	struct order_state *o = &lu->core->order;
	unsigned older[ORDER_KIND_COUNT] = {0};
	bool lent = atomic_load(&o->lent) != 0;
	struct list_node *node;

	/* node walk: struct scsi_cmd is over-aligned, so no container_of on
	 * the list head (list_for_each_entry would compute one) */
	for (node = o->tasks.next; node != &o->tasks; node = node->next) {
		struct scsi_cmd_priv *tp = container_of(node, struct scsi_cmd_priv, task_node);

		if (tp->waiting && !blocked_by(tp->order_kind, older) &&
		    !(lent && waits_for_lent(tp->order_kind))) {
			tp->waiting = false;
			o->n_waiting--;
			if (tp->state == SCSI_CMD_BLOCKED && !atomic_load(&tp->aborted) &&
			    !tp->msg_posted && !aca_holds_locked(lu, task_cmd(tp))) {
				tp->state = SCSI_CMD_READY;
				tp->msg_posted = true;
				list_add_tail(ready, &tp->wait_node);
			}
		}
		older[tp->order_kind]++;
		if (!o->n_waiting)
			break;
	}
}

void order_leave_locked(struct scsi_lu *lu, struct scsi_cmd *cmd, struct list_node *ready)
{
	struct order_state *o = &lu->core->order;
	struct scsi_cmd_priv *p = &cmd->priv;

	list_del(&p->task_node);
	o->count[p->order_kind]--;
	o->n_tasks--;
	if (p->waiting) {
		p->waiting = false;
		o->n_waiting--;
	}
	if (waits_for_lent(p->order_kind))
		atomic_fetch_sub(&o->lent_watch, 1);
	p->order_kind = ORDER_KIND_OUTSIDE;
	if (o->n_waiting)
		wake_waiting_locked(lu, ready);
}

void order_post_ready(struct list_node *ready)
{
	while (!list_empty(ready)) {
		struct scsi_cmd *c = list_first_entry(ready, struct scsi_cmd, priv.wait_node);

		list_del(&c->priv.wait_node);
		reactor_post(c->reactor, &c->priv.msg);
	}
}

void order_lent_get(struct scsi_lu *lu)
{
	atomic_fetch_add_explicit(&lu->core->order.lent, 1, memory_order_relaxed);
}

void order_lent_put(struct scsi_lu *lu)
{
	struct order_state *o = &lu->core->order;
	struct list_node ready;

	/* drop, then look at the watch (see order_enter_locked) */
	if (atomic_fetch_sub(&o->lent, 1) != 1 || !atomic_load(&o->lent_watch))
		return;
	list_init(&ready);
	pthread_mutex_lock(&lu->lock);
	if (o->n_waiting)
		wake_waiting_locked(lu, &ready);
	pthread_mutex_unlock(&lu->lock);
	order_post_ready(&ready);
}
