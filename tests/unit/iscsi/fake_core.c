/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_core.c: see fake_core.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/list.h"

struct fake_core fake;

struct scsi_target {
	char name[256];
};
struct scsi_tport {
	struct scsi_target *t;
	char name[300];
};
struct scsi_lun_map {
	int refs;
};
struct scsi_nexus {
	const struct scsi_fabric_ops *ops;
	void *priv;
	struct scsi_tport *tp;
	struct scsi_lun_map *map;
	bool target_reset;
};

static struct scsi_lun_map the_map = {.refs = 1};
static struct list_node live = LIST_INIT(live); /* set-up commands */
static struct list_node held = LIST_INIT(held); /* exec'd, held */
static struct scsi_tport *tports[16];
static unsigned ntports;

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	list_init(&live);
	list_init(&held);
}

struct scsi_target *fake_target(const char *name)
{
	struct scsi_target *t = calloc(1, sizeof(*t));

	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

void fake_target_free(struct scsi_target *t)
{
	for (unsigned i = 0; i < ntports; i++)
		free(tports[i]);
	ntports = 0;
	free(t);
}

const char *scsi_target_name(const struct scsi_target *t)
{
	return t->name;
}

struct scsi_tport *scsi_tport_create(struct scsi_target *t, const char *port_name,
				     uint16_t rel_port_id, uint16_t port_group)
{
	struct scsi_tport *tp = calloc(1, sizeof(*tp));

	tp->t = t;
	snprintf(tp->name, sizeof(tp->name), "%s", port_name);
	if (ntports < 16)
		tports[ntports++] = tp;
	return tp;
}

/* The fake core completes no command through a port: nothing counted. */
void scsi_tport_stats(struct scsi_tport *tp, struct scsi_tport_stats *out)
{
	(void)tp;
	*out = (struct scsi_tport_stats){0};
}

int scsi_target_access(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map **out)
{
	if (fake.access_rc)
		return fake.access_rc;
	the_map.refs++;
	*out = &the_map;
	return 0;
}

int scsi_target_acl_get(struct scsi_target *t, const char *initiator_name,
			struct scsi_lun_map **out)
{
	if (!fake.acl_name || strcmp(fake.acl_name, initiator_name))
		return -ENOENT;
	the_map.refs++;
	*out = &the_map;
	return 0;
}

bool scsi_target_demo(struct scsi_target *t)
{
	return !fake.access_rc;
}

struct scsi_lun_map *fake_map_new(void)
{
	struct scsi_lun_map *m = calloc(1, sizeof(*m));

	m->refs = 1;
	return m;
}

int fake_map_refs(const struct scsi_lun_map *m)
{
	return m->refs;
}

void scsi_lun_map_get(struct scsi_lun_map *m)
{
	m->refs++;
}

void scsi_lun_map_put(struct scsi_lun_map *m)
{
	m->refs--;
}

struct scsi_nexus *scsi_nexus_create(struct scsi_tport *tp, struct scsi_lun_map *map,
				     const struct scsi_nexus_info *info)
{
	struct scsi_nexus *n = calloc(1, sizeof(*n));

	n->ops = info->ops;
	n->priv = info->fabric_priv;
	n->tp = tp;
	n->map = map;
	n->target_reset = info->target_reset;
	fake.last_target_reset = info->target_reset;
	map->refs++;
	snprintf(fake.last_iport, sizeof(fake.last_iport), "%s", info->initiator_port_name);
	fake.last_tid_len = info->transport_id_len;
	if (info->transport_id_len <= sizeof(fake.last_tid))
		memcpy(fake.last_tid, info->transport_id, info->transport_id_len);
	fake.nexus_created++;
	return n;
}

void *scsi_nexus_fabric_priv(const struct scsi_nexus *n)
{
	return n->priv;
}

struct scsi_tport *scsi_nexus_tport(const struct scsi_nexus *n)
{
	return n->tp;
}

/* the TMF abort_all runs for (scsi_cmd_abort_tmf), NULL for nexus loss */
static const struct scsi_tmf *abort_for;

const struct scsi_tmf *scsi_cmd_abort_tmf(const struct scsi_cmd *cmd)
{
	(void)cmd;
	return abort_for;
}

static void fake_tmf_exec(struct scsi_tmf *tmf);

static void complete(struct scsi_cmd *cmd, bool aborted)
{
	list_del(&cmd->priv.wait_node);
	cmd->priv.state = SCSI_CMD_DONE;
	if (aborted)
		cmd->suppress_response = true;
	cmd->nexus->ops->cmd_done(cmd);
}

/* abort every command of n: set-up ones through cmd_abort_pending, held
 * ones complete with suppress_response */
static void abort_all(struct scsi_nexus *n, uint64_t lun, bool any_lun, uint64_t tag, bool any_tag)
{
	bool again = true;

	while (again) {
		again = false;
		for (struct list_node *ln = live.next; ln != &live; ln = ln->next) {
			struct scsi_cmd *cmd = list_entry(ln, struct scsi_cmd, priv.task_node);

			if (cmd->nexus != n || (!any_lun && cmd->lun != lun) ||
			    (!any_tag && cmd->tag != tag) || cmd->priv.aborted)
				continue;
			if (cmd->priv.enter_due)
				continue; /* not in the task set yet (enter_later) */
			if (any_tag && fake.loss_skips_setup && cmd->priv.state == SCSI_CMD_SETUP)
				continue;
			cmd->priv.aborted = true;
			if (cmd->priv.state == SCSI_CMD_SETUP) {
				n->ops->cmd_abort_pending(cmd);
			} else if (cmd->priv.state == SCSI_CMD_BLOCKED) {
				complete(cmd, true);
			}
			again = true;
			break;
		}
	}
}

void scsi_nexus_loss(struct scsi_nexus *n)
{
	fake.nexus_lost++;
	abort_all(n, 0, true, 0, true);
}

/* no unit attention is ever pending here (async.c's events are tested over
 * TCP against the real core: integration/async-events) */
size_t scsi_nexus_take_event(struct scsi_nexus *n, uint64_t *lun, uint8_t *sense, size_t size)
{
	return 0;
}

void scsi_nexus_destroy(struct scsi_nexus *n)
{
	fake.nexus_destroyed++;
	n->map->refs--;
	free(n);
}

void scsi_cmd_init(struct scsi_cmd *cmd)
{
	memset(&cmd->write_len, 0, sizeof(*cmd) - offsetof(struct scsi_cmd, write_len));
	list_init(&cmd->priv.task_node);
	list_init(&cmd->priv.wait_node);
}

static void fake_enter(struct scsi_cmd *cmd);

void scsi_cmd_setup(struct scsi_cmd *cmd)
{
	uint32_t len = 0;

	switch (cmd->cdb[0]) {
	case 0x28: /* READ(10) */
	case 0x2a: /* WRITE(10) */
		len = get_be16(cmd->cdb + 7) * FAKE_BS;
		cmd->priv.lba = get_be32(cmd->cdb + 2);
		if (cmd->priv.lba + len / FAKE_BS > FAKE_BLOCKS)
			cmd->priv.reason = SENSE_LBA_OUT_OF_RANGE;
		break;
	default:
		break;
	}
	cmd->priv.data_len = len;
	cmd->priv.data_dir = cmd->cdb[0] == 0x2a   ? SCSI_DIR_WRITE
			     : cmd->cdb[0] == 0x28 ? SCSI_DIR_READ
						   : SCSI_DIR_NONE;
	cmd->priv.buf_len = len;
	if (cmd->buf_budget && len > cmd->buf_budget) {
		/* the core's contract (scsi.h buf_budget): no buffer */
		cmd->priv.reason = SENSE_TASK_SET_FULL;
		cmd->priv.buf_len = 0;
		len = 0;
	}
	if (len && cmd->buf_wait_ok && fake.buf_short)
		cmd->priv.buf_wait = true; /* scsi_cmd_buf_retry() allocates */
	else
		cmd->buf = calloc(1, len ? len : 1);
	if (cmd->priv.data_dir == SCSI_DIR_WRITE && !cmd->priv.reason)
		cmd->write_len = len;
	cmd->priv.state = SCSI_CMD_SETUP;
	list_add_tail(&live, &cmd->priv.task_node);
	fake.live_cmds++;
	if (cmd->enter_later)
		cmd->priv.enter_due = true;
	else
		fake_enter(cmd);
}

static void fake_enter(struct scsi_cmd *cmd)
{
	if (fake.nentered < ARRAY_SIZE(fake.entered))
		fake.entered[fake.nentered] = cmd->tag;
	fake.nentered++;
}

void scsi_cmd_enter(struct scsi_cmd *cmd)
{
	cmd->enter_later = false;
	if (!cmd->priv.enter_due)
		return;
	cmd->priv.enter_due = false;
	fake_enter(cmd);
}

uint32_t scsi_cmd_buf_bytes(const struct scsi_cmd *cmd)
{
	return cmd->buf ? cmd->priv.buf_len : 0;
}

bool scsi_cmd_buf_reserved(const struct scsi_cmd *cmd)
{
	(void)cmd;
	return false;
}

bool scsi_cmd_buf_pending(const struct scsi_cmd *cmd)
{
	return cmd->priv.buf_wait;
}

int scsi_cmd_buf_retry(struct scsi_cmd *cmd)
{
	if (!cmd->priv.buf_wait)
		return 0;
	if (fake.buf_short)
		return -ENOMEM;
	cmd->buf = calloc(1, cmd->priv.buf_len);
	cmd->priv.buf_wait = false;
	return 0;
}

/* The fake core lends nothing unless a test set data_in_src: copied, as
 * the real one does. */
int scsi_cmd_unlend(struct scsi_cmd *cmd)
{
	if (cmd->data_in_src) {
		memcpy(cmd->buf, cmd->data_in_src, cmd->data_in_len);
		cmd->data_in_src = NULL;
		fake.unlent++;
	}
	return 0;
}

void scsi_cmd_set_fabric_error(struct scsi_cmd *cmd, enum sense_reason r)
{
	cmd->priv.reason = (uint16_t)r;
	fake.last_fabric_error = (uint16_t)r;
}

static void finish(struct scsi_cmd *cmd)
{
	uint32_t len = cmd->priv.data_len;

	if (cmd->priv.reason == SENSE_TASK_SET_FULL) {
		cmd->status = SAM_STAT_TASK_SET_FULL; /* a status without sense */
		return;
	}
	if (cmd->priv.reason) {
		cmd->status = SAM_STAT_CHECK_CONDITION;
		/* fixed format sense: key in byte 2, ASC/ASCQ in 12/13 */
		memset(cmd->sense, 0, 18);
		cmd->sense[0] = 0x70;
		cmd->sense[2] = SENSE_KEY_ABORTED_COMMAND;
		cmd->sense[7] = 10;
		cmd->sense[12] = (uint8_t)cmd->priv.reason;
		cmd->sense_len = 18;
		return;
	}
	cmd->status = SAM_STAT_GOOD;
	if (cmd->priv.data_dir == SCSI_DIR_WRITE)
		memcpy(fake.disk + cmd->priv.lba * FAKE_BS, cmd->buf,
		       len < cmd->exp_len ? len : cmd->exp_len);
	if (cmd->priv.data_dir == SCSI_DIR_READ && fake.lend && cmd->lend_ok) {
		cmd->data_in_src = fake.disk + cmd->priv.lba * FAKE_BS; /* lent */
		cmd->data_in_len = len < cmd->exp_len ? len : cmd->exp_len;
	} else if (cmd->priv.data_dir == SCSI_DIR_READ) {
		memcpy(cmd->buf, fake.disk + cmd->priv.lba * FAKE_BS, len);
		cmd->data_in_len = len < cmd->exp_len ? len : cmd->exp_len;
	}
	if (len < cmd->exp_len) {
		cmd->resid_kind = SCSI_RESID_UNDERFLOW;
		cmd->resid = cmd->exp_len - len;
	} else if (len > cmd->exp_len) {
		cmd->resid_kind = SCSI_RESID_OVERFLOW;
		cmd->resid = len - cmd->exp_len;
	}
}

void scsi_cmd_exec(struct scsi_cmd *cmd)
{
	fake.execs++;
	if (cmd->priv.buf_wait) {
		cmd->priv.buf_wait = false;
		cmd->priv.reason = SENSE_BUSY;
	}
	scsi_cmd_enter(cmd);
	if (cmd->priv.aborted) {
		cmd->priv.state = SCSI_CMD_DONE;
		cmd->suppress_response = true;
		cmd->nexus->ops->cmd_done(cmd);
		return;
	}
	finish(cmd);
	if (fake.hold) {
		cmd->priv.state = SCSI_CMD_BLOCKED;
		list_add_tail(&held, &cmd->priv.wait_node);
		return;
	}
	cmd->priv.state = SCSI_CMD_DONE;
	cmd->nexus->ops->cmd_done(cmd);
}

unsigned fake_complete_held(void)
{
	unsigned n = 0;

	while (!list_empty(&held)) {
		struct scsi_cmd *cmd = list_first_entry(&held, struct scsi_cmd, priv.wait_node);

		complete(cmd, false);
		n++;
	}
	return n;
}

void scsi_cmd_release(struct scsi_cmd *cmd)
{
	list_del(&cmd->priv.task_node);
	list_del(&cmd->priv.wait_node);
	free(cmd->buf);
	cmd->buf = NULL;
	cmd->data_in_src = NULL;
	cmd->priv.state = SCSI_CMD_FREE;
	fake.live_cmds--;
}

void scsi_tmf_hold(const struct scsi_tmf *tmf)
{
	(void)tmf;
	fake.tmf_holds++;
}

void scsi_tmf_release(const struct scsi_tmf *tmf)
{
	(void)tmf;
	fake.tmf_holds--;
}

void scsi_tmf_exec(struct scsi_tmf *tmf)
{
	static uint64_t seq;

	tmf->seq = ++seq;
	abort_for = tmf;
	fake_tmf_exec(tmf);
	abort_for = NULL;
}

static void fake_tmf_exec(struct scsi_tmf *tmf)
{
	fake.tmfs++;
	fake.last_tmf_func = tmf->func;
	fake.last_tmf_ref = tmf->ref_tag;
	switch (tmf->func) {
	case SCSI_TMF_ABORT_TASK:
		abort_all(tmf->nexus, tmf->lun, false, tmf->ref_tag, false);
		break;
	case SCSI_TMF_ABORT_TASK_SET:
	case SCSI_TMF_CLEAR_TASK_SET:
	case SCSI_TMF_LUN_RESET:
		abort_all(tmf->nexus, tmf->lun, false, 0, true);
		break;
	case SCSI_TMF_TARGET_WARM_RESET:
	case SCSI_TMF_TARGET_COLD_RESET:
		/* as the core: only for a nexus created with target_reset */
		if (!tmf->nexus->target_reset) {
			tmf->response = SCSI_TMF_RESP_UNAUTHORIZED;
			tmf->nexus->ops->tmf_done(tmf);
			return;
		}
		abort_all(tmf->nexus, 0, true, 0, true);
		break;
	default:
		break;
	}
	tmf->response = fake.tmf_response;
	tmf->nexus->ops->tmf_done(tmf);
}
