/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_admin.c: the persistent reservations of a logical unit as the control
 * plane sees them (scsi.h):
 *  - scsi_lu_pr_info: a snapshot taken under lu->lock, with the same content
 *    as PERSISTENT RESERVE IN READ FULL STATUS (SPC-4 6.15.5) but every
 *    registration's initiator port spelled out;
 *  - scsi_lu_pr_clear: the administrator's clear, all of it (as PERSISTENT
 *    RESERVE OUT CLEAR, SPC-4 5.13.11.2.6) or one initiator's
 *    registrations. It runs like a PR OUT's service action: in one step
 *    under lu->lock (so it is ordered with the PR OUTs of every reactor),
 *    with its unit attentions, and with APTPL active (or a state file write
 *    still in flight) it joins the state file's group commit (pr_store.c)
 *    and completes once the file holds it; a failed write rolls it back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/reactor.h"
#include "scsi/core.h"
#include "scsi/pr_priv.h"

int scsi_lu_pr_info(struct scsi_lu *lu, struct scsi_pr_info *out)
{
	struct pr_state *pr = lu->core->pr;
	struct pr_reg *r;
	size_t k = 0;

	*out = (struct scsi_pr_info){0};
	if (!pr)
		return 0;
	pthread_mutex_lock(&lu->lock);
	out->regs = calloc(pr->nregs ? pr->nregs : 1, sizeof(*out->regs));
	if (!out->regs) {
		pthread_mutex_unlock(&lu->lock);
		return -ENOMEM;
	}
	out->generation = pr->generation;
	out->aptpl = pr->aptpl;
	out->type = pr->type;
	out->type_name = pr->type != PR_TYPE_NONE ? pr_types[pr->type].name : NULL;
	list_for_each_entry(r, &pr->regs, node)
	{
		struct scsi_pr_reg_info *ri;

		if (k == pr->nregs)
			break;
		ri = &out->regs[k++];
		ri->key = r->key;
		snprintf(ri->initiator, sizeof(ri->initiator), "%s", r->port.name);
		snprintf(ri->isid, sizeof(ri->isid), "%s", r->port.isid);
		ri->rel_port = r->all_tg_pt ? 0 : r->rel_port;
		ri->all_tg_pt = r->all_tg_pt;
		ri->holder = pr->type != PR_TYPE_NONE && pr_is_holder(pr, r);
	}
	out->nregs = k;
	pthread_mutex_unlock(&lu->lock);
	return 0;
}

void scsi_pr_info_free(struct scsi_pr_info *info)
{
	free(info->regs);
	*info = (struct scsi_pr_info){0};
}

/* ---- scsi_lu_pr_clear() ---- */

struct pr_admin_op {
	struct scsi_lu *lu;
	struct reactor *reactor; /* the caller's: done() runs there */
	scsi_pr_clear_done done;
	void *arg;
	char who[TID_NAME_MAX + 24]; /* for the log: the initiator, or "" */
	int err;
	struct scsi_pr_clear_result res;
	struct reactor_msg msg;
	struct pr_wait wait; /* APTPL: the state file */
};

static void admin_op_msg(struct reactor_msg *m)
{
	struct pr_admin_op *op = container_of(m, struct pr_admin_op, msg);
	struct scsi_lu *lu = op->lu;

	if (op->err) {
		/* pr_store.c logged the write and rolled the state back */
		op->res = (struct scsi_pr_clear_result){0};
	} else if (op->res.removed) {
		log_notice("lu %s: persistent reservations cleared by the administrator%s%s: "
			   "%u registration(s) removed%s",
			   lu->name, op->who[0] ? " for " : "", op->who, op->res.removed,
			   op->res.released ? ", the reservation released" : "");
	}
	op->done(op->arg, op->err, &op->res);
	scsi_lu_put(lu);
	free(op);
}

/* The state file holds the clear (or a newer state), or the write failed;
 * on whichever reactor started the write. */
static void admin_op_stored(struct pr_wait *w)
{
	struct pr_admin_op *op = container_of(w, struct pr_admin_op, wait);

	op->err = w->err;
	reactor_post(op->reactor, &op->msg);
}

int scsi_lu_pr_clear(struct scsi_lu *lu, const char *initiator, scsi_pr_clear_done done, void *arg)
{
	struct pr_state *pr = lu->core->pr;
	struct reactor *self = reactor_self();
	struct pr_admin_op *op;
	struct tid_port only;
	bool store, queued = false;

	if (!self || !pr)
		return -EINVAL;
	/* tid_from_port_name() bounds its scan (TID_MAX_LEN) and checks every
	 * character an iSCSI name may hold */
	if (initiator && tid_from_port_name(initiator, &only))
		return -EINVAL;
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	op->lu = lu;
	op->reactor = self;
	op->done = done;
	op->arg = arg;
	op->msg.fn = admin_op_msg;
	op->wait.done = admin_op_stored;
	if (initiator)
		snprintf(op->who, sizeof(op->who), "%s%s%s", only.name, only.isid[0] ? ",i,0x" : "",
			 only.isid);
	scsi_lu_get(lu); /* until done() */

	pthread_mutex_lock(&lu->lock);
	/* as pr_exec_out(): a change while APTPL is active, or while a write
	 * is still in flight, goes through the state file */
	store = pr->store && (pr->aptpl || pr_store_busy_locked(lu));
	if (store && pr_store_begin_locked(lu)) {
		pthread_mutex_unlock(&lu->lock);
		scsi_lu_put(lu);
		free(op);
		return -ENOMEM;
	}
	op->res.removed = pr_admin_clear_locked(lu, initiator ? &only : NULL, &op->res.released);
	op->res.generation = pr->generation;
	if (store && op->res.removed) {
		if (pr_store_commit_locked(lu, &op->wait)) {
			pr_store_rollback_locked(lu);
			pthread_mutex_unlock(&lu->lock);
			scsi_lu_put(lu);
			free(op);
			return -ENOMEM;
		}
		queued = true;
	} else if (store) {
		pr_store_abandon_locked(lu);
	}
	pthread_mutex_unlock(&lu->lock);
	/* nothing to wait for: done() still runs after this call returns */
	if (!queued)
		reactor_post(self, &op->msg);
	return 0;
}
