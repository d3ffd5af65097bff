/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua_cmds.c: REPORT TARGET PORT GROUPS (MAINTENANCE IN, service action
 * 0Ah; SPC-4 6.37) and SET TARGET PORT GROUPS (MAINTENANCE OUT, service
 * action 0Ah; SPC-4 6.45) over the target port groups of alua.c. */
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/alua.h"
#include "scsi/alua_priv.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

/* RTPG responses are cut at 64 KiB (RETURN DATA LENGTH still tells the
 * whole length); a group reports at most 255 ports (one-byte count). */
#define RTPG_MAX_LEN   (64u * 1024)
#define RTPG_MAX_PORTS 255u
/* SET TARGET PORT GROUPS: 4-byte header + at most 256 descriptors */
#define STPG_MAX_DESC 256u
#define STPG_MAX_LEN  (4u + 4u * STPG_MAX_DESC)

/* SPC-4 6.37 table 295: the states every group supports (T_SUP, O_SUP,
 * U_SUP, S_SUP, AN_SUP, AO_SUP; no LBD_SUP) */
#define RTPG_SUPPORTED 0xcf

enum {
	RTPG_FORMAT_LENGTH = 0,	  /* length-only header */
	RTPG_FORMAT_EXTENDED = 1, /* extended header (implicit transition time) */
};

/* ---- REPORT TARGET PORT GROUPS ---- */

enum sense_reason alua_parse_rtpg(struct scsi_cmd *cmd)
{
	/* byte 1 bits 7-5: PARAMETER DATA FORMAT, 000b or 001b */
	if (cdb_rtpg_format(cmd->cdb) > RTPG_FORMAT_EXTENDED)
		return cdb_invalid_field(cmd, RTPG_FORMAT_BYTE, 7);
	spc_data_in(cmd, cdb12_alloc_len(cmd->cdb), RTPG_MAX_LEN);
	return SENSE_OK;
}

struct rtpg_buf {
	uint8_t *p;
	size_t n, cap;
	bool nomem;
};

/* Offset of len new zeroed bytes at the end, or SIZE_MAX. */
static size_t rtpg_reserve(struct rtpg_buf *b, size_t len)
{
	size_t off = b->n;

	if (b->nomem)
		return SIZE_MAX;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		uint8_t *p;

		while (cap < b->n + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return SIZE_MAX;
		}
		b->p = p;
		b->cap = cap;
	}
	memset(b->p + off, 0, len);
	b->n += len;
	return off;
}

/* One target port group descriptor (SPC-4 6.37 table 294) with its target
 * port descriptors, when the group has ports that reach lu. Returns the
 * group's transition time in seconds (0 when not reported). */
static unsigned rtpg_group(struct rtpg_buf *b, struct alua_group *g, struct scsi_lu *lu)
{
	size_t d = rtpg_reserve(b, 8), q;
	unsigned nports = 0;
	uint8_t state, status;

	if (d == SIZE_MAX)
		return 0;
	for (unsigned i = 0; i < g->nports && nports < RTPG_MAX_PORTS; i++) {
		if (!alua_port_reaches_locked(g->ports[i], lu))
			continue;
		q = rtpg_reserve(b, 4);
		if (q == SIZE_MAX)
			return 0;
		/* bytes 0-1 obsolete/reserved; 2-3 RELATIVE TARGET PORT IDENTIFIER */
		put_be16(b->p + q + 2, g->ports[i]->rel_port_id);
		nports++;
	}
	if (!nports) {
		b->n = d;
		return 0;
	}
	alua_lu_state_report(g, lu->name, &state, &status);
	b->p[d] = (uint8_t)((g->preferred ? 0x80 : 0) | (state & 0x0f));
	b->p[d + 1] = RTPG_SUPPORTED;
	put_be16(b->p + d + 2, g->id);
	b->p[d + 5] = status;
	b->p[d + 7] = (uint8_t)nports;
	return (g->transition_ms + 999) / 1000;
}

void alua_exec_rtpg(struct scsi_cmd *cmd)
{
	bool ext = cdb_rtpg_format(cmd->cdb) == RTPG_FORMAT_EXTENDED;
	struct rtpg_buf b = {0};
	struct alua_group *g;
	unsigned itt = 0;

	rtpg_reserve(&b, ext ? 8 : 4);
	pthread_mutex_lock(&alua_lock);
	list_for_each_entry(g, &alua_groups, node)
	{
		unsigned t = rtpg_group(&b, g, cmd->priv.lu);

		itt = t > itt ? t : itt;
	}
	pthread_mutex_unlock(&alua_lock);
	if (b.nomem) {
		free(b.p);
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	put_be32(b.p, (uint32_t)(b.n - 4)); /* RETURN DATA LENGTH */
	if (ext) {
		b.p[4] = RTPG_FORMAT_EXTENDED << 4;	   /* FORMAT TYPE */
		b.p[5] = (uint8_t)(itt > 255 ? 255 : itt); /* IMPLICIT TRANSITION TIME (s) */
	}
	scsi_cmd_set_data_in(cmd, b.p, b.n);
	free(b.p);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- SET TARGET PORT GROUPS ---- */

enum sense_reason alua_parse_stpg(struct scsi_cmd *cmd)
{
	uint32_t len = cdb12_param_list_len(cmd->cdb);

	/* SPC-4 6.6.2: TPGS 01b (implicit only): the command is not supported */
	if (!cmd->priv.lu || !(alua_tpgs(cmd->priv.lu) & 0x2))
		return cdb_invalid_field(cmd, CDB_SA_BYTE, 4);
	/* SPC-4 6.45: a 4-byte header and 4-byte descriptors; a length that
	 * cuts a descriptor is a PARAMETER LIST LENGTH ERROR */
	if (len && (len < 4 || len % 4))
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if (len > STPG_MAX_LEN)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	return spc_data_out(cmd, len);
}

struct stpg_desc {
	struct alua_group *g; /* reference held */
	uint8_t state;
	bool changed;
};

struct stpg_op {
	struct reactor_timer timer;
	struct scsi_cmd *cmd;
	unsigned n;
	struct stpg_desc d[];
};

static void stpg_op_free(struct scsi_cmd *cmd)
{
	struct stpg_op *op = cmd->priv.op;

	if (reactor_timer_armed(&op->timer))
		reactor_timer_cancel(&op->timer);
	pthread_mutex_lock(&alua_lock);
	for (unsigned i = 0; i < op->n; i++)
		if (op->d[i].g)
			alua_group_put_locked(op->d[i].g);
	pthread_mutex_unlock(&alua_lock);
	free(op);
}

/* SPC-4 5.15.2.5: the transition is over: the new states take effect, the
 * other I_T nexuses of the logical unit get ASYMMETRIC ACCESS STATE
 * CHANGED, and the command completes. */
static void stpg_finish(struct stpg_op *op)
{
	struct scsi_cmd *cmd = op->cmd;
	struct scsi_lu *lu = cmd->priv.lu;
	bool changed = false;

	for (unsigned i = 0; i < op->n; i++) {
		struct stpg_desc *d = &op->d[i];
		struct alua_lu_state *e;

		if (!d->changed)
			continue;
		changed = true;
		pthread_mutex_lock(&d->g->lock);
		e = alua_lu_find_locked(d->g, lu->name);
		if (e) {
			e->state = e->target;
			e->busy = false;
		}
		pthread_mutex_unlock(&d->g->lock);
		log_info("ALUA: target port group %u: %s -> %s (SET TARGET PORT GROUPS from %s)",
			 d->g->id, lu->name, scsi_alua_state_name(d->state), cmd->nexus->port_name);
	}
	if (changed)
		ua_set_all(lu, UA_ASYM_ACCESS_CHANGED, cmd->priv.itn);
	for (unsigned i = 0; i < op->n; i++)
		if (op->d[i].changed)
			alua_notify_change(op->d[i].g->id, lu->name);
	scsi_cmd_complete(cmd, SENSE_OK);
}

static void stpg_timer(struct reactor_timer *t)
{
	stpg_finish(container_of(t, struct stpg_op, timer));
}

static bool stpg_state_ok(uint8_t s)
{
	/* SPC-4 6.45 table 323: transitioning and logical block dependent
	 * cannot be requested */
	return s == SCSI_ALUA_ACTIVE_OPTIMIZED || s == SCSI_ALUA_ACTIVE_NON_OPTIMIZED ||
	       s == SCSI_ALUA_STANDBY || s == SCSI_ALUA_UNAVAILABLE || s == SCSI_ALUA_OFFLINE;
}

static bool group_reaches_locked(struct alua_group *g, struct scsi_lu *lu)
{
	for (unsigned i = 0; i < g->nports; i++)
		if (alua_port_reaches_locked(g->ports[i], lu))
			return true;
	return false;
}

/* Check every descriptor and take a reference on its group (alua_lock
 * held). The per-LU entries are created here with the current state, so
 * that applying cannot fail half way. */
static enum sense_reason stpg_validate_locked(struct scsi_cmd *cmd, struct stpg_op *op)
{
	struct scsi_lu *lu = cmd->priv.lu;
	enum sense_reason r = SENSE_OK;

	for (unsigned i = 0; i < op->n; i++) {
		const uint8_t *d = cmd->buf + 4 + 4 * i;
		unsigned off = 4 + 4 * i;
		struct alua_lu_state *e;
		struct alua_group *g;
		uint8_t s = d[0] & 0x0f;

		if (d[0] & 0xf0)
			return param_invalid_field(cmd, off, 7);
		if (!stpg_state_ok(s))
			return param_invalid_field(cmd, off, 3);
		if (d[1])
			return param_invalid_field(cmd, off + 1, 7);
		g = alua_group_find_locked(get_be16(d + 2));
		/* only the groups REPORT TARGET PORT GROUPS shows for this LU,
		 * and only those that accept explicit transitions */
		if (!g || !g->explicit_ok || !group_reaches_locked(g, lu))
			return param_invalid_field(cmd, off + 2, 7);
		for (unsigned j = 0; j < i; j++)
			if (op->d[j].g == g)
				return param_invalid_field(cmd, off + 2, 7);
		pthread_mutex_lock(&g->lock);
		e = alua_lu_get_locked(g, lu->name);
		if (!e)
			r = SENSE_BUSY;
		else if (e->busy)
			r = SENSE_NOT_READY_ALUA_TRANSITION;
		pthread_mutex_unlock(&g->lock);
		if (r != SENSE_OK)
			return r;
		alua_group_get_locked(g);
		op->d[i].g = g;
		op->d[i].state = s;
	}
	return SENSE_OK;
}

void alua_exec_stpg(struct scsi_cmd *cmd)
{
	uint32_t len = cmd->priv.data_len;
	unsigned n = len >= 4 ? (len - 4) / 4 : 0;
	uint32_t delay_ms = 0;
	enum sense_reason r;
	struct stpg_op *op;

	op = calloc(1, sizeof(*op) + n * sizeof(op->d[0]));
	if (!op) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	op->cmd = cmd;
	reactor_timer_init(&op->timer, stpg_timer);
	cmd->priv.op = op;
	cmd->priv.op_free = stpg_op_free;

	/* op->n descriptors; stpg_op_free() drops the references taken */
	op->n = n;
	pthread_mutex_lock(&alua_lock);
	r = stpg_validate_locked(cmd, op);
	if (r != SENSE_OK) {
		pthread_mutex_unlock(&alua_lock);
		scsi_cmd_complete_sx(cmd, r, &cmd->priv.sx);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct stpg_desc *d = &op->d[i];
		struct alua_lu_state *e;

		pthread_mutex_lock(&d->g->lock);
		e = alua_lu_find_locked(d->g, cmd->priv.lu->name);
		d->changed = e->state != d->state;
		if (d->changed) {
			e->status = ALUA_STATUS_BY_STPG;
			e->target = d->state;
			if (d->g->transition_ms) {
				/* SPC-4 5.15.2.5: commands through the group see
				 * the transition until it is over */
				e->state = SCSI_ALUA_TRANSITIONING;
				e->busy = true;
				if (d->g->transition_ms > delay_ms)
					delay_ms = d->g->transition_ms;
			} else {
				e->state = d->state;
			}
		}
		pthread_mutex_unlock(&d->g->lock);
	}
	pthread_mutex_unlock(&alua_lock);
	if (!delay_ms) {
		stpg_finish(op);
		return;
	}
	reactor_timer_arm(cmd->reactor, &op->timer, (uint64_t)delay_ms * 1000000u);
}
