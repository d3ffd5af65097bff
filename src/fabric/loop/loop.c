/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c: the loop fabric (see loop.h). */
#include "fabric/loop/loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/reactor.h"

struct loop_port {
	struct scsi_target *target;
	struct scsi_tport *tport;
	struct scsi_nexus *nexus;
	struct reactor *r;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned outstanding; /* commands and TMFs not finished; lock */
	uint32_t buf_budget;  /* scsi_cmd.buf_budget of its commands */
	uint32_t buf_reserve; /* and buf_reserve */
};

struct loop_task {
	struct scsi_cmd cmd;
	struct loop_port *lp;
	struct reactor_msg start_msg;
	struct reactor_msg data_msg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint8_t *data;
	uint32_t len;
	unsigned flags;
	bool held;	 /* set up, waiting for loop_send_data (reactor thread) */
	bool sent_later; /* LOOP_LEND: completed, the Data-In not yet taken */
	bool set_up;	 /* lock */
	bool done;	 /* lock */
	struct loop_result res;
};

struct loop_tmf {
	struct scsi_tmf tmf;
	struct loop_port *lp;
	struct reactor_msg msg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void port_get(struct loop_port *lp)
{
	pthread_mutex_lock(&lp->lock);
	lp->outstanding++;
	pthread_mutex_unlock(&lp->lock);
}

static void port_put(struct loop_port *lp)
{
	pthread_mutex_lock(&lp->lock);
	if (--lp->outstanding == 0)
		pthread_cond_broadcast(&lp->cond);
	pthread_mutex_unlock(&lp->lock);
}

static void task_signal(struct loop_task *t, bool *flag)
{
	pthread_mutex_lock(&t->lock);
	*flag = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

/* ---- fabric hooks (port reactor) ---- */

/* The Data-In into the caller's buffer; the command is released. */
static void task_deliver(struct loop_task *t)
{
	struct scsi_cmd *cmd = &t->cmd;
	struct loop_result *res = &t->res;

	if (!cmd->suppress_response && cmd->fabric_dir == SCSI_DIR_READ && t->data) {
		uint32_t n = cmd->data_in_len < t->len ? cmd->data_in_len : t->len;

		if (n)
			memcpy(t->data, scsi_cmd_data_in(cmd), n);
		res->data_in_len = n;
	}
	scsi_cmd_release(cmd);
}

static void loop_cmd_done(struct scsi_cmd *cmd)
{
	struct loop_task *t = container_of(cmd, struct loop_task, cmd);
	struct loop_port *lp = t->lp;
	struct loop_result *res = &t->res;

	memset(res, 0, sizeof(*res));
	res->no_response = cmd->suppress_response;
	if (!cmd->suppress_response) {
		res->status = cmd->status;
		res->resid_kind = cmd->resid_kind;
		res->resid = cmd->resid;
		res->sense_len = cmd->sense_len;
		memcpy(res->sense, cmd->sense, cmd->sense_len);
	}
	if (t->flags & LOOP_LEND) {
		t->sent_later = true; /* loop_send_data() delivers it */
		task_signal(t, &t->set_up);
		return;
	}
	task_deliver(t);
	task_signal(t, &t->set_up);
	task_signal(t, &t->done);
	port_put(lp);
}

static void loop_cmd_abort_pending(struct scsi_cmd *cmd)
{
	struct loop_task *t = container_of(cmd, struct loop_task, cmd);

	/* the Data-Out will never come: the core completes it as aborted */
	if (t->held) {
		t->held = false;
		scsi_cmd_exec(cmd);
	}
}

static void loop_tmf_done(struct scsi_tmf *tmf)
{
	struct loop_tmf *lt = container_of(tmf, struct loop_tmf, tmf);

	pthread_mutex_lock(&lt->lock);
	lt->done = true;
	pthread_cond_broadcast(&lt->cond);
	pthread_mutex_unlock(&lt->lock);
}

static const struct scsi_fabric_ops loop_ops = {
    .name = "loop",
    .cmd_done = loop_cmd_done,
    .cmd_abort_pending = loop_cmd_abort_pending,
    .tmf_done = loop_tmf_done,
};

/* ---- ports ---- */

static void *port_thread(void *arg)
{
	struct loop_port *lp = arg;

	reactor_run(lp->r);
	return NULL;
}

/* SPC-4 7.6.4.6 iSCSI TransportID, format 01b (initiator port with ISID) */
static size_t make_transport_id(uint8_t *buf, size_t size, const char *port_name)
{
	size_t n = strlen(port_name) + 1;
	size_t len = (n + 3) & ~(size_t)3;

	if (4 + len > size)
		return 0;
	memset(buf, 0, 4 + len);
	buf[0] = 0x40 | 0x05;
	buf[2] = (uint8_t)(len >> 8);
	buf[3] = (uint8_t)len;
	memcpy(buf + 4, port_name, n);
	return 4 + len;
}

struct loop_port *loop_create(struct scsi_target *t, uint16_t rel_port_id,
			      const char *initiator_name)
{
	return loop_create_opts(t, rel_port_id, initiator_name, NULL);
}

struct loop_port *loop_create_opts(struct scsi_target *t, uint16_t rel_port_id,
				   const char *initiator_name, const struct loop_port_opts *opts)
{
	char tport_name[300], iport_name[300];
	uint8_t tid[320];
	struct scsi_lun_map *map;
	struct loop_port *lp;
	struct scsi_nexus_info info;
	int n;

	if (!t || !initiator_name)
		return NULL;
	n = snprintf(tport_name, sizeof(tport_name), "%s,t,0x%04x", scsi_target_name(t),
		     rel_port_id);
	if (n < 0 || (size_t)n >= sizeof(tport_name))
		return NULL;
	n = snprintf(iport_name, sizeof(iport_name), "%s,i,0x000000000001", initiator_name);
	if (n < 0 || (size_t)n >= sizeof(iport_name))
		return NULL;
	if (scsi_target_access(t, initiator_name, &map))
		return NULL;
	lp = calloc(1, sizeof(*lp));
	if (!lp)
		goto fail_map;
	lp->target = t;
	lp->tport = scsi_tport_create(t, tport_name, rel_port_id, 1);
	if (!lp->tport)
		goto fail_lp;
	info = (struct scsi_nexus_info){
	    .initiator_name = initiator_name,
	    .initiator_port_name = iport_name,
	    .transport_id = tid,
	    .transport_id_len = make_transport_id(tid, sizeof(tid), iport_name),
	    .ops = &loop_ops,
	    .fabric_priv = lp,
	    .target_reset = opts && opts->target_reset,
	    /* it passes SAM's functions as they are, unless told otherwise */
	    .query_tmfs = !(opts && opts->no_query_tmfs),
	};
	lp->nexus = scsi_nexus_create(lp->tport, map, &info);
	if (!lp->nexus)
		goto fail_lp;
	if (reactor_create(&lp->r, 100 + rel_port_id))
		goto fail_nexus;
	pthread_mutex_init(&lp->lock, NULL);
	pthread_cond_init(&lp->cond, NULL);
	if (pthread_create(&lp->thread, NULL, port_thread, lp))
		goto fail_reactor;
	scsi_lun_map_put(map);
	return lp;

fail_reactor:
	pthread_mutex_destroy(&lp->lock);
	pthread_cond_destroy(&lp->cond);
	reactor_destroy(lp->r);
fail_nexus:
	scsi_nexus_destroy(lp->nexus);
fail_lp:
	free(lp);
fail_map:
	scsi_lun_map_put(map);
	return NULL;
}

void loop_destroy(struct loop_port *lp)
{
	if (!lp)
		return;
	scsi_nexus_loss(lp->nexus);
	pthread_mutex_lock(&lp->lock);
	while (lp->outstanding)
		pthread_cond_wait(&lp->cond, &lp->lock);
	pthread_mutex_unlock(&lp->lock);
	scsi_nexus_destroy(lp->nexus);
	reactor_stop(lp->r);
	pthread_join(lp->thread, NULL);
	reactor_destroy(lp->r);
	pthread_mutex_destroy(&lp->lock);
	pthread_cond_destroy(&lp->cond);
	free(lp);
}

void loop_set_buf_limits(struct loop_port *lp, uint32_t budget, uint32_t reserve)
{
	lp->buf_budget = budget;
	lp->buf_reserve = reserve;
}

struct scsi_nexus *loop_nexus(struct loop_port *lp)
{
	return lp->nexus;
}

struct reactor *loop_reactor(struct loop_port *lp)
{
	return lp->r;
}

/* ---- commands ---- */

static void task_start(struct reactor_msg *m)
{
	struct loop_task *t = container_of(m, struct loop_task, start_msg);
	struct scsi_cmd *cmd = &t->cmd;

	scsi_cmd_setup(cmd);
	if (cmd->write_len) {
		uint32_t n = cmd->write_len < t->len ? cmd->write_len : t->len;

		memcpy(cmd->buf, t->data, n);
	}
	/* like a real fabric, wait only when Data-Out is wanted (a command
	 * that failed in setup wants none and completes at once) */
	if ((t->flags & LOOP_HOLD_DATA) && cmd->write_len) {
		t->held = true;
		task_signal(t, &t->set_up);
		return;
	}
	scsi_cmd_exec(cmd);
}

static void task_data(struct reactor_msg *m)
{
	struct loop_task *t = container_of(m, struct loop_task, data_msg);

	if (t->held) {
		t->held = false;
		if (t->flags & LOOP_ENTER_LATER)
			scsi_cmd_enter(&t->cmd);
		scsi_cmd_exec(&t->cmd);
	} else if (t->sent_later) {
		struct loop_port *lp = t->lp;

		t->sent_later = false;
		task_deliver(t);
		task_signal(t, &t->done);
		port_put(lp);
	}
}

struct loop_task *loop_submit_async(struct loop_port *lp, uint64_t lun, const uint8_t *cdb,
				    size_t cdb_len, enum scsi_dir dir, void *data, uint32_t len,
				    uint8_t attr, uint64_t tag, unsigned flags)
{
	struct loop_task *t;
	struct scsi_cmd *cmd;

	if (cdb_len > SCSI_MAX_CDB)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->lp = lp;
	t->data = data;
	t->len = data ? len : 0;
	t->flags = flags;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	cmd = &t->cmd;
	scsi_cmd_init(cmd);
	cmd->nexus = lp->nexus;
	cmd->reactor = lp->r;
	cmd->lun = lun;
	cmd->tag = tag;
	cmd->exp_len = len;
	memcpy(cmd->cdb, cdb, cdb_len);
	cmd->cdb_len = (uint8_t)cdb_len;
	cmd->attr = attr;
	cmd->fabric_dir = (uint8_t)dir;
	cmd->buf_budget = lp->buf_budget;
	cmd->buf_reserve = lp->buf_reserve;
	cmd->enter_later = flags & LOOP_ENTER_LATER;
	cmd->lend_ok = flags & LOOP_LEND;
	t->start_msg.fn = task_start;
	t->data_msg.fn = task_data;
	port_get(lp);
	reactor_post(lp->r, &t->start_msg);
	return t;
}

void loop_wait_setup(struct loop_task *t)
{
	pthread_mutex_lock(&t->lock);
	while (!t->set_up)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

void loop_send_data(struct loop_task *t)
{
	reactor_post(t->lp->r, &t->data_msg);
}

bool loop_task_done(struct loop_task *t)
{
	bool done;

	pthread_mutex_lock(&t->lock);
	done = t->done;
	pthread_mutex_unlock(&t->lock);
	return done;
}

void loop_wait(struct loop_task *t, struct loop_result *res)
{
	pthread_mutex_lock(&t->lock);
	while (!t->done)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
	if (res)
		*res = t->res;
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
}

int loop_submit(struct loop_port *lp, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		enum scsi_dir dir, void *data, uint32_t len, uint8_t attr, struct loop_result *res)
{
	struct loop_task *t = loop_submit_async(lp, lun, cdb, cdb_len, dir, data, len, attr, 0, 0);

	if (!t)
		return -ENOMEM;
	loop_wait(t, res);
	return 0;
}

/* ---- task management ---- */

static void tmf_start(struct reactor_msg *m)
{
	struct loop_tmf *lt = container_of(m, struct loop_tmf, msg);

	scsi_tmf_exec(&lt->tmf);
}

int loop_tmf(struct loop_port *lp, uint8_t func, uint64_t lun, uint64_t ref_tag)
{
	return loop_tmf_ex(lp, func, lun, ref_tag, NULL);
}

int loop_tmf_ex(struct loop_port *lp, uint8_t func, uint64_t lun, uint64_t ref_tag,
		uint8_t add_info[3])
{
	struct loop_tmf *lt = calloc(1, sizeof(*lt));
	int resp;

	if (!lt)
		return -ENOMEM;
	lt->lp = lp;
	lt->tmf.nexus = lp->nexus;
	lt->tmf.reactor = lp->r;
	lt->tmf.func = func;
	lt->tmf.lun = lun;
	lt->tmf.ref_tag = ref_tag;
	lt->msg.fn = tmf_start;
	pthread_mutex_init(&lt->lock, NULL);
	pthread_cond_init(&lt->cond, NULL);
	reactor_post(lp->r, &lt->msg);
	pthread_mutex_lock(&lt->lock);
	while (!lt->done)
		pthread_cond_wait(&lt->cond, &lt->lock);
	pthread_mutex_unlock(&lt->lock);
	resp = lt->tmf.response;
	if (add_info)
		memcpy(add_info, lt->tmf.add_info, sizeof(lt->tmf.add_info));
	pthread_mutex_destroy(&lt->lock);
	pthread_cond_destroy(&lt->cond);
	free(lt);
	return resp;
}
