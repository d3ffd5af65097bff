/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmf.c: task management functions (SAM-5 7). Affected tasks may run on
 * other reactor threads: they are marked aborted under lu->lock and reached
 * through reactor_post (cmd.c: cmd_kick). Each aborted task's completion
 * drops one count of the TMF's priv.pending; the last drop (the scan holds
 * one until it ends) posts tmf_done to the TMF's reactor, so the response
 * follows the end of every affected task (SAM-5 7.1). */
#include <errno.h>
#include <string.h>

#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/sbc.h"
#include "scsi/ua.h"

enum abort_scope {
	ABORT_ONE,   /* the task with tag of nexus */
	ABORT_NEXUS, /* every task of nexus */
	ABORT_ALL,   /* every task of the task set */
};

/* The task of a task set node (struct scsi_cmd is over-aligned: walk the
 * nodes, never container_of the list head). */
static struct scsi_cmd *task_of(struct list_node *node)
{
	return container_of(node, struct scsi_cmd, priv.task_node);
}

static void tmf_finish(struct reactor_msg *m)
{
	struct scsi_tmf *tmf = container_of(m, struct scsi_tmf, priv.msg);

	tmf->nexus->ops->tmf_done(tmf);
}

void tmf_task_done(struct scsi_tmf *tmf)
{
	if (atomic_fetch_sub(&tmf->priv.pending, 1) == 1)
		reactor_post(tmf->reactor, &tmf->priv.msg);
}

void scsi_tmf_hold(const struct scsi_tmf *tmf)
{
	/* the count is the only field touched: atomic, so const is kept for
	 * the fabrics (scsi_cmd_abort_tmf) */
	atomic_fetch_add(&((struct scsi_tmf *)tmf)->priv.pending, 1);
}

void scsi_tmf_release(const struct scsi_tmf *tmf)
{
	tmf_task_done((struct scsi_tmf *)tmf);
}

/* Mark one task aborted (lu->lock held). Returns false when it was already. */
static bool abort_task_locked(struct scsi_cmd *cmd, struct scsi_tmf *tmf, bool other_nexus)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	if (atomic_load(&p->aborted))
		return false;
	atomic_store(&p->aborted, true);
	p->abort_other_nexus = other_nexus;
	if (tmf) {
		p->abort_tmf = tmf;
		atomic_fetch_add(&tmf->priv.pending, 1);
	}
	/* tasks not running on their own need a nudge on their reactor; a
	 * running task notices the mark when its I/O completes */
	if ((p->state == SCSI_CMD_SETUP || p->state == SCSI_CMD_BLOCKED) && !p->msg_posted) {
		p->msg_posted = true;
		reactor_post(cmd->reactor, &p->msg);
	}
	return true;
}

/* Abort the tasks of lu in scope on behalf of nexus n (the TMF's or the
 * lost one). With clear_ua, TAS=0 and tasks of other nexuses aborted, those
 * nexuses get COMMANDS CLEARED BY ANOTHER INITIATOR (SPC-4 7.5.8 TAS). */
static unsigned abort_tasks(struct scsi_lu *lu, struct scsi_nexus *n, enum abort_scope scope,
			    uint64_t tag, struct scsi_tmf *tmf, bool clear_ua)
{
	struct order_state *o = &lu->core->order;
	bool tas = lu_tas(lu);
	struct list_node *node;
	unsigned found = 0;

	pthread_mutex_lock(&lu->lock);
	for (node = o->tasks.next; node != &o->tasks; node = node->next) {
		struct scsi_cmd *c = task_of(node);
		bool other = c->nexus != n;

		if (scope != ABORT_ALL && other)
			continue;
		if (scope == ABORT_ONE && c->tag != tag)
			continue;
		found++;
		if (abort_task_locked(c, tmf, other) && other && clear_ua && !tas && c->priv.itn)
			ua_set(c->priv.itn, UA_COMMANDS_CLEARED);
		if (scope == ABORT_ONE)
			break;
	}
	pthread_mutex_unlock(&lu->lock);
	return found;
}

unsigned tmf_abort_matching_locked(struct scsi_lu *lu, struct scsi_tmf *tmf,
				   const struct scsi_cmd *keep,
				   bool (*match)(struct lu_itn *itn, void *arg), void *arg)
{
	struct order_state *o = &lu->core->order;
	bool tas = lu_tas(lu);
	struct list_node *node;
	unsigned n = 0;

	for (node = o->tasks.next; node != &o->tasks; node = node->next) {
		struct scsi_cmd *c = task_of(node);
		bool other = c->nexus != tmf->nexus;

		if (c == keep || !c->priv.itn || !match(c->priv.itn, arg))
			continue;
		if (!abort_task_locked(c, tmf, other))
			continue;
		n++;
		/* SAM-5 5.6: TAS 0 aborts silently and tells the initiator
		 * port by COMMANDS CLEARED BY ANOTHER INITIATOR */
		if (other && !tas)
			ua_set(c->priv.itn, UA_COMMANDS_CLEARED);
	}
	return n;
}

/* Does the nexus have a task with tag (or any task) at lu? */
static bool query_tasks(struct scsi_lu *lu, struct scsi_nexus *n, bool by_tag, uint64_t tag)
{
	struct list_node *head = &lu->core->order.tasks, *node;
	bool found = false;

	pthread_mutex_lock(&lu->lock);
	for (node = head->next; node != head; node = node->next) {
		struct scsi_cmd *c = task_of(node);

		if (c->nexus == n && (!by_tag || c->tag == tag) && !atomic_load(&c->priv.aborted)) {
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&lu->lock);
	return found;
}

/* SAM-5 7.3 CLEAR ACA on itn at lu: when itn is the faulted I_T nexus, the
 * command with the ACA attribute is aborted (the response waits for it,
 * SAM-5 7.1) and the ACA cleared, the tasks it held resume (QERR 00b).
 * FUNCTION COMPLETE also when there is no ACA, or it is another I_T
 * nexus' (which keeps it: only the faulted I_T nexus clears it). */
static void clear_aca(struct scsi_lu *lu, struct lu_itn *itn, struct scsi_tmf *tmf)
{
	struct aca_state *a = &lu->core->aca;
	struct list_node ready;

	list_init(&ready);
	pthread_mutex_lock(&lu->lock);
	if (itn && a->faulted == itn) {
		if (a->task && a->task->priv.order_kind != ORDER_KIND_OUTSIDE)
			abort_task_locked(a->task, tmf, false);
		aca_clear_locked(lu, &ready);
	}
	pthread_mutex_unlock(&lu->lock);
	order_post_ready(&ready);
}

void tmf_lu_reset_state(struct scsi_lu *lu)
{
	struct lu_itn *itn;
	struct list_node ready;

	list_init(&ready);
	pthread_mutex_lock(&lu->lock);
	/* SAM-5 5.9: a logical unit reset clears the ACA (its tasks are
	 * aborted already) */
	aca_clear_locked(lu, &ready);
	/* SPC-2 5.5.1: a logical unit reset releases the reservation; the
	 * holder learns of it through the reset unit attention */
	resv_clear_locked(lu);
	/* SPC-4 6.17 (SBC-4 5.14): the PREVENT state is cleared */
	list_for_each_entry(itn, &lu->core->itns, node) medium_prevent_clear_locked(lu, itn);
	/* SAM-5 6.3.2: BUS DEVICE RESET FUNCTION OCCURRED for every I_T nexus
	 * (mode parameters keep their current values) */
	ua_set_all_locked(lu, UA_BUS_DEVICE_RESET, NULL);
	pthread_mutex_unlock(&lu->lock);
	order_post_ready(&ready);
	/* SPC-4 5.6.3.3: a background self-test ends */
	sbc_selftest_abort(lu);
}

struct target_reset {
	struct scsi_tmf *tmf;
	bool cold;
};

/* A target reset at one LU: its tasks aborted and a logical unit reset
 * (SAM-5 6.3.2; POWER ON too for a cold one), the unit attention at every
 * I_T nexus of the LU. */
static void target_reset_lu(struct scsi_lu *lu, void *arg)
{
	struct target_reset *tr = arg;

	abort_tasks(lu, tr->tmf->nexus, ABORT_ALL, 0, tr->tmf, false);
	tmf_lu_reset_state(lu);
	if (tr->cold)
		ua_set_all(lu, UA_POWER_ON, NULL);
}

/* Abort every task of n at every LU it has used, and (for I_T NEXUS RESET
 * and nexus loss) release what the nexus held there. */
void tmf_abort_nexus_tasks(struct scsi_nexus *n, struct scsi_tmf *tmf)
{
	struct scsi_lu *lus[64];
	unsigned nl = 0, i = 0;

	/* collect under the nexus lock, abort without it (lock order) */
	for (;;) {
		pthread_mutex_lock(&n->lock);
		nl = 0;
		for (; i < n->cache_n && nl < ARRAY_SIZE(lus); i++) {
			struct scsi_lu *lu = n->cache[i].lu;
			bool dup = false;

			if (!lu)
				continue;
			for (unsigned j = 0; j < nl; j++)
				dup |= lus[j] == lu;
			if (dup)
				continue;
			scsi_lu_get(lu);
			lus[nl++] = lu;
		}
		pthread_mutex_unlock(&n->lock);
		if (!nl)
			break;
		for (unsigned j = 0; j < nl; j++) {
			abort_tasks(lus[j], n, ABORT_NEXUS, 0, tmf, false);
			scsi_lu_put(lus[j]);
		}
	}
}

/* SAM-5 7.x: I_T NEXUS RESET: abort the nexus' tasks; I_T NEXUS LOSS OCCURRED
 * for it; its reservations, PREVENT state and ACA (SAM-5 5.9) released. */
static void it_nexus_reset(struct scsi_tmf *tmf)
{
	struct scsi_nexus *n = tmf->nexus;
	struct list_node ready;

	list_init(&ready);
	tmf_abort_nexus_tasks(n, tmf);
	pthread_mutex_lock(&n->lock);
	for (unsigned i = 0; i < n->cache_n; i++) {
		struct nexus_lun *e = &n->cache[i];

		if (!e->lu || !e->itn)
			continue;
		pthread_mutex_lock(&e->lu->lock);
		ua_set(e->itn, UA_I_T_NEXUS_LOSS);
		resv_release_itn_locked(e->lu, e->itn);
		medium_prevent_clear_locked(e->lu, e->itn);
		aca_clear_itn_locked(e->lu, e->itn, &ready);
		pthread_mutex_unlock(&e->lu->lock);
	}
	pthread_mutex_unlock(&n->lock);
	order_post_ready(&ready);
}

void scsi_tmf_exec(struct scsi_tmf *tmf)
{
	struct scsi_nexus *n = tmf->nexus;
	struct scsi_lu *lu = NULL;
	struct lu_itn *itn = NULL;
	struct target_reset tr = {.tmf = tmf};
	bool ro;

	static _Atomic uint64_t tmf_seq;

	tmf->seq = atomic_fetch_add_explicit(&tmf_seq, 1, memory_order_relaxed) + 1;
	atomic_init(&tmf->priv.pending, 1);
	tmf->priv.msg.fn = tmf_finish;
	tmf->priv.lu = NULL;
	tmf->response = SCSI_TMF_RESP_COMPLETE;
	memset(tmf->add_info, 0, sizeof(tmf->add_info));

	switch (tmf->func) {
	case SCSI_TMF_ABORT_TASK:
	case SCSI_TMF_ABORT_TASK_SET:
	case SCSI_TMF_CLEAR_TASK_SET:
	case SCSI_TMF_LUN_RESET:
	case SCSI_TMF_QUERY_TASK:
	case SCSI_TMF_QUERY_TASK_SET:
	case SCSI_TMF_QUERY_ASYNC_EVENT:
	case SCSI_TMF_CLEAR_ACA:
		if (nexus_resolve(n, tmf->lun, &lu, &itn, &ro)) {
			tmf->response = SCSI_TMF_RESP_LUN_NOT_FOUND;
			goto out;
		}
		break;
	case SCSI_TMF_TARGET_WARM_RESET:
	case SCSI_TMF_TARGET_COLD_RESET:
	case SCSI_TMF_I_T_NEXUS_RESET:
		break;
	default:
		tmf->response = SCSI_TMF_RESP_NOT_SUPPORTED;
		goto out;
	}

	switch (tmf->func) {
	case SCSI_TMF_ABORT_TASK:
		if (!abort_tasks(lu, n, ABORT_ONE, tmf->ref_tag, tmf, false))
			tmf->response = SCSI_TMF_RESP_TASK_NOT_FOUND;
		break;
	case SCSI_TMF_ABORT_TASK_SET:
		/* SAM-5 7.2: an ACA stays (and its ACA task is aborted) */
		abort_tasks(lu, n, ABORT_NEXUS, 0, tmf, false);
		break;
	case SCSI_TMF_CLEAR_TASK_SET:
		/* SAM-5 7.4: every task in the task set, of every nexus; an
		 * ACA stays */
		abort_tasks(lu, n, ABORT_ALL, 0, tmf, true);
		break;
	case SCSI_TMF_LUN_RESET:
		abort_tasks(lu, n, ABORT_ALL, 0, tmf, false);
		tmf_lu_reset_state(lu);
		break;
	case SCSI_TMF_QUERY_TASK:
		if (query_tasks(lu, n, true, tmf->ref_tag))
			tmf->response = SCSI_TMF_RESP_SUCCEEDED;
		break;
	case SCSI_TMF_QUERY_TASK_SET:
		if (query_tasks(lu, n, false, 0))
			tmf->response = SCSI_TMF_RESP_SUCCEEDED;
		break;
	case SCSI_TMF_QUERY_ASYNC_EVENT: {
		/* SAM-5 7.8: succeeded when a unit attention is pending, with
		 * the one the next command would get as the additional
		 * response information (it stays pending). UADE DEPTH is
		 * left 0. */
		enum sense_reason ua = itn ? ua_peek(itn) : SENSE_OK;

		if (ua != SENSE_OK) {
			tmf->response = SCSI_TMF_RESP_SUCCEEDED;
			tmf->add_info[0] = sense_table[ua].key & 0x0f;
			tmf->add_info[1] = sense_table[ua].asc;
			tmf->add_info[2] = sense_table[ua].ascq;
		}
		break;
	}
	case SCSI_TMF_CLEAR_ACA:
		clear_aca(lu, itn, tmf);
		break;
	case SCSI_TMF_TARGET_COLD_RESET:
		tr.cold = true;
		/* fall through */
		UT_FALLTHROUGH;
	case SCSI_TMF_TARGET_WARM_RESET:
		/* RFC 7143 11.5.1: a target reset is subject to access
		 * controls on the requesting initiator (its ACL must allow
		 * it), and acts on the LUs known to it: those of its own LUN
		 * map, never one it cannot see (the LUs only other ACLs map
		 * keep their tasks, reservations and unit attentions) */
		if (!n->target_reset) {
			tmf->response = SCSI_TMF_RESP_UNAUTHORIZED;
			break;
		}
		lun_map_for_each_lu(n->map, target_reset_lu, &tr);
		break;
	case SCSI_TMF_I_T_NEXUS_RESET:
		it_nexus_reset(tmf);
		break;
	default:
		break;
	}
out:
	if (lu)
		scsi_lu_put(lu);
	tmf_task_done(tmf);
}
