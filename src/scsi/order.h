/* SPDX-License-Identifier: GPL-2.0-or-later */
/* order.h: the task set of a logical unit and task ordering (SAM-5 8.6, 8.7)
 * as a matrix over "kinds" derived from the task attribute and the CDB's
 * ordering class (after CTL's ctl_ser_table.c). One task set per LU for all
 * I_T nexuses (Control mode page TST = 000b). */
#ifndef UT_SCSI_ORDER_H
#define UT_SCSI_ORDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"

struct scsi_lu;
struct scsi_cmd;

enum order_kind {
	ORDER_KIND_FREE = 0, /* SIMPLE task of class ORDER_NONE: neither waits nor blocks */
	ORDER_KIND_SIMPLE,   /* SIMPLE task that reads or writes the medium */
	ORDER_KIND_ORDERED,  /* ORDERED task, or a SIMPLE task of class ORDER_BARRIER */
	ORDER_KIND_HOQ,	     /* HEAD OF QUEUE task */
	ORDER_KIND_ACA,	     /* ACA task (aca.c): runs at once, held by nothing */
	ORDER_KIND_COUNT
};
/* priv.order_kind of a command that is not in a task set */
#define ORDER_KIND_OUTSIDE 0xff

enum order_rule {
	ORDER_PASS = 0, /* the new task may run alongside the older one */
	ORDER_BLOCK,	/* the new task waits until the older one has ended */
};

/* order_matrix[new task kind][older task kind] */
extern const uint8_t order_matrix[ORDER_KIND_COUNT][ORDER_KIND_COUNT];

struct order_state {
	struct list_node tasks; /* every task of the task set, oldest first */
	unsigned count[ORDER_KIND_COUNT];
	unsigned n_waiting; /* tasks with priv.waiting set */
	unsigned n_tasks;
	/* SIMPLE READs that left the task set with their data lent (bs.h
	 * BS_IO_LEND) and not yet sent: a task that waits for older SIMPLE
	 * tasks waits for these too (order_lent_get/put) */
	atomic_uint lent;
	atomic_uint lent_watch; /* tasks in the set that would wait for them */
};

void order_init(struct order_state *o);
enum order_kind order_kind_of(uint8_t attr, uint8_t order_class);
/* Enter cmd into the LU's task set (lu->lock held); sets priv.waiting when
 * an older task blocks it. */
void order_enter_locked(struct scsi_lu *lu, struct scsi_cmd *cmd);
/* Remove cmd from the task set (lu->lock held). Tasks that no longer wait and
 * are in state SCSI_CMD_BLOCKED move to SCSI_CMD_RUNNING and are appended to
 * `ready` (through priv.wait_node): the caller starts them on their reactor
 * after dropping the lock. Tasks the ACA holds (aca_holds_locked()) stay
 * blocked: clearing it starts them (aca_clear_locked()). */
void order_leave_locked(struct scsi_lu *lu, struct scsi_cmd *cmd, struct list_node *ready);
/* Start the tasks of a `ready` list on their reactors (no lock held). */
void order_post_ready(struct list_node *ready);
/* A SIMPLE READ of lu completes with its data lent: count it, before it
 * leaves the task set (no lock held). */
void order_lent_get(struct scsi_lu *lu);
/* Its data is sent (the command is released): the tasks that waited only
 * for the lent READs start (takes lu->lock when the last one goes while a
 * task may wait for it). */
void order_lent_put(struct scsi_lu *lu);

#endif
