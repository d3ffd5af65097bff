/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.c: MODE SENSE(6)/(10) and MODE SELECT(6)/(10) (SPC-4 6.11-6.14) over
 * the mode pages of a logical unit: 01h Read-Write Error Recovery, 08h
 * Caching, 0Ah Control, 1Ch Informational Exceptions Control (SPC-4 7.5,
 * SBC-4 6.5). Saved values are not supported (no SP). MODE SELECT validates
 * the whole parameter list against the changeable masks before applying
 * anything, then raises MODE PARAMETERS CHANGED for the other I_T nexuses. */
#include "scsi/mode.h"

#include <string.h>

#include "lib/endian.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

struct mode_page_def {
	uint8_t code;
	uint8_t len; /* whole page, header included */
	uint8_t def[MODE_PAGE_MAX_LEN];
	uint8_t changeable[MODE_PAGE_MAX_LEN];
};

static const struct mode_page_def pages[MODE_PG_COUNT] = {
    [MODE_PG_RW_ERROR] =
	{
	    .code = 0x01,
	    .len = 12,
	    .def = {0x01, 0x0a},
	    .changeable = {0x01, 0x0a},
	},
    [MODE_PG_CACHING] =
	{
	    .code = 0x08,
	    .len = 20,
	    .def = {0x08, 0x12},
	    .changeable = {0x08, 0x12, 0x04 /* WCE */},
	},
    [MODE_PG_CONTROL] =
	{
	    .code = 0x0a,
	    .len = 12,
	    /* TST 000b, GLTSD 1, QAM 1 (unrestricted reordering, order.c),
	     * QERR 00b, TAS 0, BUSY TIMEOUT PERIOD unlimited */
	    .def = {0x0a, 0x0a, 0x02, 0x10, 0x00, 0x00, 0, 0, 0xff, 0xff, 0, 0},
	    .changeable = {0x0a, 0x0a, 0x04 /* D_SENSE */, 0x00, 0x08 /* SWP */, 0x40 /* TAS */},
	},
    [MODE_PG_IEC] =
	{
	    .code = 0x1c,
	    .len = 12,
	    .def = {0x1c, 0x0a, 0x08 /* DEXCPT */},
	    .changeable = {0x1c, 0x0a},
	},
};

enum {
	PC_CURRENT = 0,
	PC_CHANGEABLE = 1,
	PC_DEFAULT = 2,
	PC_SAVED = 3,
	PAGE_ALL = 0x3f,
	SUBPAGE_ALL = 0xff,
};

static void mode_sync_atomics(struct scsi_lu *lu)
{
	struct mode_state *m = &lu->core->mode;

	atomic_store(&m->wce, m->cur[MODE_PG_CACHING][2] & 0x04);
	atomic_store(&m->d_sense, m->cur[MODE_PG_CONTROL][2] & 0x04);
	atomic_store(&m->swp, m->cur[MODE_PG_CONTROL][4] & 0x08);
	atomic_store(&m->tas, m->cur[MODE_PG_CONTROL][5] & 0x40);
}

void mode_init(struct scsi_lu *lu)
{
	struct mode_state *m = &lu->core->mode;

	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		memcpy(m->cur[i], pages[i].def, MODE_PAGE_MAX_LEN);
	if (lu->attrs.write_cache)
		m->cur[MODE_PG_CACHING][2] |= 0x04;
	mode_sync_atomics(lu);
}

static int page_index(uint8_t code)
{
	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		if (pages[i].code == code)
			return (int)i;
	return -1;
}

/* ---- MODE SENSE ---- */

/* PC, PAGE CODE and SUBPAGE CODE, the same in both forms */
static enum sense_reason mode_sense_fields(struct scsi_cmd *cmd)
{
	uint8_t page = cdb_mode_sense_page_code(cmd->cdb);
	uint8_t subpage = cdb_mode_sense_subpage_code(cmd->cdb);

	if (cdb_mode_sense_pc(cmd->cdb) == PC_SAVED)
		return SENSE_SAVING_PARAMS_NOT_SUPPORTED;
	if (page != PAGE_ALL && page_index(page) < 0)
		return cdb_invalid_field(cmd, MODE_PAGE_BYTE, 5);
	/* no subpages: only 00h, or FFh (all subpages) */
	if (subpage != 0 && subpage != SUBPAGE_ALL)
		return cdb_invalid_field(cmd, MODE_SUBPAGE_BYTE, 7);
	return SENSE_OK;
}

enum sense_reason spc_parse_mode_sense6(struct scsi_cmd *cmd)
{
	enum sense_reason r = mode_sense_fields(cmd);

	if (r == SENSE_OK)
		spc_data_in(cmd, cdb6_alloc_len(cmd->cdb), 255);
	return r;
}

enum sense_reason spc_parse_mode_sense10(struct scsi_cmd *cmd)
{
	enum sense_reason r = mode_sense_fields(cmd);

	if (r == SENSE_OK)
		spc_data_in(cmd, cdb10_alloc_len(cmd->cdb), SCSI_MAX_PARAM_BYTES);
	return r;
}

static size_t put_page(struct scsi_lu *lu, unsigned i, uint8_t pc, uint8_t *p)
{
	const struct mode_page_def *d = &pages[i];

	switch (pc) {
	case PC_CHANGEABLE:
		memcpy(p, d->changeable, d->len);
		break;
	case PC_DEFAULT:
		memcpy(p, d->def, d->len);
		if (i == MODE_PG_CACHING && lu->attrs.write_cache)
			p[2] |= 0x04;
		break;
	default:
		memcpy(p, lu->core->mode.cur[i], d->len);
		break;
	}
	p[0] = d->code; /* PS 0: not saveable */
	p[1] = (uint8_t)(d->len - 2);
	return d->len;
}

void spc_exec_mode_sense(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	bool ten = cdb_op(cmd->cdb) == OP_MODE_SENSE_10;
	bool dbd = cdb_mode_sense_dbd(cmd->cdb), llbaa = ten && cdb_mode_sense10_llbaa(cmd->cdb);
	uint8_t pc = cdb_mode_sense_pc(cmd->cdb), page = cdb_mode_sense_page_code(cmd->cdb);
	size_t hdr = ten ? 8 : 4, bdl = dbd ? 0 : (llbaa ? 16 : 8), n;
	uint64_t nblocks = lu_nblocks(lu);
	uint8_t buf[256];

	memset(buf, 0, sizeof(buf));
	n = hdr;
	if (pc == PC_CHANGEABLE) {
		/* no block descriptor field can be changed: all zero */
	} else if (bdl == 8) {
		/* SBC-4 6.5.2 short LBA mode parameter block descriptor */
		put_be32(buf + n, nblocks > 0xffffffffull ? 0xffffffffu : (uint32_t)nblocks);
		put_be24(buf + n + 5, lu->block_size);
	} else if (bdl == 16) {
		put_be64(buf + n, nblocks);
		put_be32(buf + n + 12, lu->block_size);
	}
	n += bdl;
	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		if (page == PAGE_ALL || pages[i].code == page)
			n += put_page(lu, i, pc, buf + n);
	pthread_mutex_unlock(&lu->lock);

	/* SBC-4 6.5.1 device-specific parameter: WP, DPOFUA */
	uint8_t dsp = (uint8_t)((lu_wp(lu, cmd->priv.map_read_only) ? 0x80 : 0) | 0x10);
	if (ten) {
		put_be16(buf, (uint16_t)(n - 2));
		buf[3] = dsp;
		buf[4] = llbaa && bdl ? 0x01 : 0x00; /* LONGLBA */
		put_be16(buf + 6, (uint16_t)bdl);
	} else {
		buf[0] = (uint8_t)(n - 1);
		buf[2] = dsp;
		buf[3] = (uint8_t)bdl;
	}
	scsi_cmd_set_data_in(cmd, buf, n);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- MODE SELECT ---- */

static enum sense_reason mode_select_fields(struct scsi_cmd *cmd, uint32_t len)
{
	/* SP: saved pages are not supported */
	if (cdb_mode_select_sp(cmd->cdb))
		return cdb_invalid_field(cmd, MODE_FLAGS_BYTE, 0);
	return spc_data_out(cmd, len);
}

enum sense_reason spc_parse_mode_select6(struct scsi_cmd *cmd)
{
	return mode_select_fields(cmd, cdb6_param_list_len(cmd->cdb));
}

enum sense_reason spc_parse_mode_select10(struct scsi_cmd *cmd)
{
	return mode_select_fields(cmd, cdb10_param_list_len(cmd->cdb));
}

/* Field pointer to the first bit that differs outside the changeable mask. */
static enum sense_reason bad_bits(struct scsi_cmd *cmd, size_t off, uint8_t diff)
{
	return param_invalid_field(cmd, (unsigned)off, 31 - __builtin_clz(diff));
}

/* Validate the parameter list into next[] (whole pages); SENSE_OK or the
 * reason with its field pointer. */
static enum sense_reason mode_select_parse(struct scsi_cmd *cmd, struct scsi_lu *lu,
					   uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN])
{
	const uint8_t *d = cmd->buf;
	size_t len = cmd->write_len;
	bool ten = cdb_op(cmd->cdb) == OP_MODE_SELECT_10;
	size_t hdr = ten ? 8 : 4, bdl, off;

	if (len < hdr)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	bdl = ten ? get_be16(d + 6) : d[3];
	/* MEDIUM TYPE 00h only */
	if (d[ten ? 2 : 1])
		return param_invalid_field(cmd, ten ? 2 : 1, 7);
	if (bdl != 0 && bdl != 8 && !(ten && (d[4] & 0x01) && bdl == 16))
		return param_invalid_field(cmd, ten ? 6 : 3, 7);
	if (hdr + bdl > len)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	if (bdl) {
		/* the block length cannot change; NUMBER OF LOGICAL BLOCKS 0
		 * or the current capacity */
		const uint8_t *b = d + hdr;
		uint64_t nb = bdl == 16 ? get_be64(b) : get_be32(b);
		uint32_t bl = bdl == 16 ? get_be32(b + 12) : get_be24(b + 5);
		uint64_t cur = lu_nblocks(lu);

		if (bl != lu->block_size)
			return param_invalid_field(cmd, (unsigned)(hdr + (bdl == 16 ? 12 : 5)), 7);
		if (nb != 0 && nb != cur && !(bdl == 8 && nb == 0xffffffffu && cur > nb))
			return param_invalid_field(cmd, (unsigned)hdr, 7);
	}
	for (off = hdr + bdl; off < len;) {
		const uint8_t *pg = d + off;
		size_t plen;
		int i;

		if (off + 2 > len)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (pg[0] & 0x40) /* SPF: no subpages */
			return param_invalid_field(cmd, (unsigned)off, 6);
		i = page_index(pg[0] & 0x3f);
		if (i < 0)
			return param_invalid_field(cmd, (unsigned)off, 5);
		plen = (size_t)pg[1] + 2;
		if (plen != pages[i].len)
			return param_invalid_field(cmd, (unsigned)off + 1, 7);
		if (off + plen > len)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		/* PS is reserved in MODE SELECT and ignored */
		for (size_t b = 2; b < plen; b++) {
			uint8_t diff = (pg[b] ^ next[i][b]) & (uint8_t)~pages[i].changeable[b];
			if (diff)
				return bad_bits(cmd, off + b, diff);
		}
		memcpy(next[i] + 2, pg + 2, plen - 2);
		off += plen;
	}
	return SENSE_OK;
}

void spc_exec_mode_select(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct mode_state *m = &lu->core->mode;
	uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN];
	enum sense_reason r;
	bool changed;

	if (cmd->write_len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	pthread_mutex_lock(&lu->lock);
	memcpy(next, m->cur, sizeof(next));
	r = mode_select_parse(cmd, lu, next);
	changed = r == SENSE_OK && memcmp(next, m->cur, sizeof(next)) != 0;
	if (changed) {
		memcpy(m->cur, next, sizeof(next));
		mode_sync_atomics(lu);
		/* SPC-4 7.5.1: MODE PARAMETERS CHANGED for the other nexuses */
		ua_set_all_locked(lu, UA_MODE_PARAMS_CHANGED, cmd->priv.itn);
	}
	pthread_mutex_unlock(&lu->lock);
	scsi_cmd_complete_sx(cmd, r, &cmd->priv.sx);
}
