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
 * Cost: entering counts the older tasks per kind (O(1)); ending walks the
 * task set only while some task waits. */
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

void order_enter_locked(struct scsi_lu *lu, struct scsi_cmd *cmd)
{
	struct order_state *o = &lu->core->order;
	struct scsi_cmd_priv *p = &cmd->priv;
	enum order_kind k = order_kind_of(cmd->attr, p->order_class);

	p->order_kind = (uint8_t)k;
	p->waiting = o->n_tasks && blocked_by(k, o->count);
	if (p->waiting)
		o->n_waiting++;
	o->count[k]++;
	o->n_tasks++;
	list_add_tail(&o->tasks, &p->task_node);
}

void order_leave_locked(struct scsi_lu *lu, struct scsi_cmd *cmd, struct list_node *ready)
{
	struct order_state *o = &lu->core->order;
	struct scsi_cmd_priv *p = &cmd->priv;
	unsigned older[ORDER_KIND_COUNT] = {0};
	struct list_node *node;

	list_del(&p->task_node);
	o->count[p->order_kind]--;
	o->n_tasks--;
	if (p->waiting) {
		p->waiting = false;
		o->n_waiting--;
	}
	p->order_kind = ORDER_KIND_OUTSIDE;
	if (!o->n_waiting)
		return;

	/* node walk: struct scsi_cmd is over-aligned, so no container_of on
	 * the list head (list_for_each_entry would compute one) */
	for (node = o->tasks.next; node != &o->tasks; node = node->next) {
		struct scsi_cmd_priv *tp = container_of(node, struct scsi_cmd_priv, task_node);

		if (tp->waiting && !blocked_by(tp->order_kind, older)) {
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

void order_post_ready(struct list_node *ready)
{
	while (!list_empty(ready)) {
		struct scsi_cmd *c = list_first_entry(ready, struct scsi_cmd, priv.wait_node);

		list_del(&c->priv.wait_node);
		reactor_post(c->reactor, &c->priv.msg);
	}
}
