/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.c: MODE SENSE(6)/(10) and MODE SELECT(6)/(10) (SPC-4 6.11-6.14) over
 * the mode pages of a logical unit: 01h Read-Write Error Recovery, 02h
 * Disconnect-Reconnect, 08h Caching, 0Ah Control, 0Ah/01h Control
 * Extension, 1Ah Power Condition, 1Ch Informational Exceptions Control
 * (SPC-4 7.5, SBC-4 6.5). MODE SELECT validates the whole parameter list
 * against the changeable masks before applying anything, then raises MODE
 * PARAMETERS CHANGED for the other I_T nexuses.
 *
 * Saved values: a page is saveable (PS 1) when it has a changeable field
 * and the LU has a state directory (mode_store.c). MODE SELECT with SP=1
 * writes every saveable page, with the values the command sets, to the
 * state file, and only once that file is durable do the new values become
 * current and saved and the command complete; a failed write changes
 * nothing and ends the command with HARDWARE ERROR, INTERNAL TARGET
 * FAILURE. MODE SELECT is a barrier of the task set (spc_cmds.c), so saves
 * of one LU never overlap; a HEAD OF QUEUE one that finds a save in flight
 * ends with BUSY. MODE SENSE PC=11b returns the saved values of the
 * saveable pages and the defaults of the others. */
#include "scsi/mode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/sbc.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

struct mode_page_def {
	uint8_t code;
	uint8_t sub; /* 0: page_0 format; else sub_page format (SPF 1) */
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
    /* SPC-4 7.5.9: for iSCSI the burst sizes are negotiated at login
     * (MaxBurstLength, FirstBurstLength, RFC 7143 13) and the bus fields
     * do not apply: every field 0 ("not specified"), none changeable */
    [MODE_PG_DISCONNECT] =
	{
	    .code = 0x02,
	    .len = 16,
	    .def = {0x02, 0x0e},
	    .changeable = {0x02, 0x0e},
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
	    /* TST 000b (one task set: an ACA holds all of it, aca.c),
	     * TMF_ONLY 0 (the faulted I_T nexus' commands with the ACA
	     * attribute are processed during an ACA), GLTSD 1, QAM 1
	     * (unrestricted reordering, order.c), QERR 00b (tasks held by
	     * an ACA resume when it is cleared, SPC-4 7.5.8), TAS 0, BUSY
	     * TIMEOUT PERIOD unlimited */
	    .def = {0x0a, 0x0a, 0x02, 0x10, 0x00, 0x00, 0, 0, 0xff, 0xff, 0, 0},
	    .changeable = {0x0a, 0x0a, 0x04 /* D_SENSE */, 0x00, 0x08 /* SWP */, 0x40 /* TAS */},
	},
    /* SPC-4 7.5.10: TCMOS 0 (no SET TIMESTAMP), SCSIP 0, IALUAE 1 (the
     * control plane changes access states implicitly, alua.c: they cannot
     * be disallowed), INITIAL COMMAND PRIORITY 0, MAXIMUM SENSE DATA
     * LENGTH 0 (no limit asked); none changeable */
    [MODE_PG_CONTROL_EXT] =
	{
	    .code = 0x0a,
	    .sub = 0x01,
	    .len = 32,
	    .def = {0x4a, 0x01, 0x00, 0x1c, 0x01 /* IALUAE */},
	    .changeable = {0x4a, 0x01, 0x00, 0x1c},
	},
    /* SPC-4 7.5.14: the LU has one power condition, active (START STOP
     * UNIT accepts the power conditions without a transition, medium.c):
     * no idle or standby timer is enabled or changeable; CCF IDLE,
     * CCF STANDBY and CCF STOPPED 01b: no CHECK CONDITION for a transition
     * from those conditions */
    [MODE_PG_POWER] =
	{
	    .code = 0x1a,
	    .len = 40,
	    .def = {0x1a, 0x26, [39] = 0x54},
	    .changeable = {0x1a, 0x26},
	},
    [MODE_PG_IEC] =
	{
	    .code = 0x1c,
	    .len = 12,
	    .def = {0x1c, 0x0a, 0x08 /* DEXCPT */},
	    .changeable = {0x1c, 0x0a},
	},
    /* SBC-4 6.5.7: the soft thresholds of a thin LU (lbp_threshold.c) */
    [MODE_PG_LBP] =
	{
	    .code = 0x1c,
	    .sub = 0x02,
	    .len = LBP_THRESHOLD_PAGE_LEN,
	    .def = LBP_THRESHOLD_PAGE_DEFAULT,
	    .changeable = LBP_THRESHOLD_PAGE_CHANGEABLE,
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

static size_t page_hdr(unsigned i)
{
	return pages[i].sub ? 4 : 2;
}

/* A page with a changeable field can be saved (SPC-4 7.5.7 PS). */
static bool page_saveable(unsigned i)
{
	for (size_t b = page_hdr(i); b < pages[i].len; b++)
		if (pages[i].changeable[b])
			return true;
	return false;
}

bool mode_page_present(struct scsi_lu *lu, unsigned i)
{
	return i != MODE_PG_LBP || lbp_threshold_supported(lu);
}

static void mode_sync_atomics(struct scsi_lu *lu)
{
	struct mode_state *m = &lu->core->mode;

	lbp_threshold_configure_locked(lu, m->cur[MODE_PG_LBP]);
	atomic_store(&m->wce, m->cur[MODE_PG_CACHING][2] & 0x04);
	atomic_store(&m->d_sense, m->cur[MODE_PG_CONTROL][2] & 0x04);
	atomic_store(&m->swp, m->cur[MODE_PG_CONTROL][4] & 0x08);
	atomic_store(&m->tas, m->cur[MODE_PG_CONTROL][5] & 0x40);
}

/* The fields of page i that are computed when a page is reported, never
 * stored: SPC-4 7.5.8 EXTENDED SELF-TEST COMPLETION TIME, the extended
 * self-test's time at its pace for the current capacity (diag.c), so a
 * resize cannot make a saved Control page differ from its defaults. */
#define CONTROL_EXT_SELFTEST_BYTE 10

static void page_computed(struct scsi_lu *lu, unsigned i, uint8_t *p)
{
	if (i == MODE_PG_CONTROL)
		put_be16(p + CONTROL_EXT_SELFTEST_BYTE, sbc_selftest_extended_seconds(lu));
}

/* The default values of page i for this LU. */
static void page_default(const struct scsi_lu *lu, unsigned i, uint8_t *p)
{
	memcpy(p, pages[i].def, MODE_PAGE_MAX_LEN);
	if (i == MODE_PG_CACHING && lu->attrs.write_cache)
		p[2] |= 0x04;
	/* SPC-4 7.5.8 ATO: on an LU that keeps protection information (in
	 * whatever format FORMAT UNIT gave it) the device server never
	 * changes an application tag (it stores what it is sent, or 0000h
	 * when it generates), and the 32-byte CDBs' LOGICAL BLOCK APPLICATION
	 * TAG MASK applies (SBC-4 5.16); not changeable */
	if (i == MODE_PG_CONTROL && (lu->bs->caps & BS_CAP_PI))
		p[5] |= 0x80;
}

void mode_init(struct scsi_lu *lu)
{
	struct mode_state *m = &lu->core->mode;

	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		page_default(lu, i, m->cur[i]);
	memcpy(m->saved, m->cur, sizeof(m->saved));
	mode_sync_atomics(lu);
}

void mode_fini(struct scsi_lu *lu)
{
	mode_store_free(lu->core->mode.store);
	lu->core->mode.store = NULL;
}

void mode_page_id(unsigned i, uint8_t *code, uint8_t *sub)
{
	*code = pages[i].code;
	*sub = pages[i].sub;
}

static int page_index(uint8_t code, uint8_t sub)
{
	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		if (pages[i].code == code && pages[i].sub == sub)
			return (int)i;
	return -1;
}

/* SPC-4 6.13 table 254: which pages a PAGE CODE / SUBPAGE CODE pair asks
 * for: 3Fh/00h every page_0 page, 3Fh/FFh every page and subpage, vv/FFh
 * page vv and all its subpages, vv/ss that one. */
static bool page_selected(unsigned i, uint8_t page, uint8_t sub)
{
	if (page == PAGE_ALL)
		return sub == SUBPAGE_ALL || pages[i].sub == 0;
	return pages[i].code == page && (sub == SUBPAGE_ALL || pages[i].sub == sub);
}

/* ---- saved values: the state file's payload (mode_store.c) ---- */

/* Per saveable page: u8 PAGE CODE, u8 SUBPAGE CODE, be16 n, then the n
 * bytes of the page after its header. */
size_t mode_saved_encode(const uint8_t pgs[MODE_PG_COUNT][MODE_PAGE_MAX_LEN], uint8_t *out)
{
	size_t off = 0;

	for (unsigned i = 0; i < MODE_PG_COUNT; i++) {
		size_t h = page_hdr(i), n = pages[i].len - h;

		if (!page_saveable(i))
			continue;
		out[off] = pages[i].code;
		out[off + 1] = pages[i].sub;
		put_be16(out + off + 2, (uint16_t)n);
		memcpy(out + off + 4, pgs[i] + h, n);
		off += 4 + n;
	}
	return off;
}

int mode_saved_load_locked(struct scsi_lu *lu, const uint8_t *p, size_t len, const char **why)
{
	struct mode_state *m = &lu->core->mode;
	uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN];
	bool seen[MODE_PG_COUNT] = {false};
	size_t off = 0;

	for (unsigned i = 0; i < MODE_PG_COUNT; i++)
		page_default(lu, i, next[i]);
	while (off < len) {
		size_t n, h;
		int i;

		if (len - off < 4) {
			*why = "truncated page record";
			return -EBADMSG;
		}
		i = page_index(p[off], p[off + 1]);
		n = get_be16(p + off + 2);
		if (i < 0 || !page_saveable((unsigned)i) || seen[i]) {
			*why = "unknown, unsaveable or repeated page";
			return -EBADMSG;
		}
		h = page_hdr((unsigned)i);
		if (n != pages[i].len - h || n > len - off - 4) {
			*why = "wrong page length";
			return -EBADMSG;
		}
		for (size_t b = 0; b < n; b++) {
			if ((p[off + 4 + b] ^ next[i][h + b]) &
			    (uint8_t)~pages[i].changeable[h + b]) {
				*why = "a field that cannot be changed differs from its default";
				return -EBADMSG;
			}
		}
		memcpy(next[i] + h, p + off + 4, n);
		seen[i] = true;
		off += 4 + n;
	}
	/* SPC-4 7.5.1: at power on the current values are the saved ones */
	memcpy(m->saved, next, sizeof(next));
	memcpy(m->cur, next, sizeof(next));
	mode_sync_atomics(lu);
	return 0;
}

/* ---- MODE SENSE ---- */

/* PC, PAGE CODE and SUBPAGE CODE, the same in both forms */
static enum sense_reason mode_sense_fields(struct scsi_cmd *cmd)
{
	uint8_t page = cdb_mode_sense_page_code(cmd->cdb);
	uint8_t subpage = cdb_mode_sense_subpage_code(cmd->cdb);
	bool known = page == PAGE_ALL, any = false;

	/* SPC-4 6.13: saved values need a place to keep them */
	if (cdb_mode_sense_pc(cmd->cdb) == PC_SAVED && !cmd->priv.lu->core->mode.store)
		return SENSE_SAVING_PARAMS_NOT_SUPPORTED;
	for (unsigned i = 0; i < MODE_PG_COUNT; i++) {
		if (!mode_page_present(cmd->priv.lu, i))
			continue;
		known = known || pages[i].code == page;
		any = any || page_selected(i, page, subpage);
	}
	if (!known)
		return cdb_invalid_field(cmd, MODE_PAGE_BYTE, 5);
	if (!any || (page == PAGE_ALL && subpage != 0 && subpage != SUBPAGE_ALL))
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
	const struct mode_state *m = &lu->core->mode;
	bool saveable = m->store && page_saveable(i);

	switch (pc) {
	case PC_CHANGEABLE:
		memcpy(p, d->changeable, d->len);
		break;
	case PC_DEFAULT:
		page_default(lu, i, p);
		break;
	case PC_SAVED:
		if (saveable)
			memcpy(p, m->saved[i], d->len);
		else
			page_default(lu, i, p);
		break;
	default:
		memcpy(p, m->cur[i], d->len);
		break;
	}
	if (pc != PC_CHANGEABLE)
		page_computed(lu, i, p);
	/* SPC-4 7.5.7: PS, SPF, PAGE CODE, SUBPAGE CODE, PAGE LENGTH */
	if (d->sub) {
		p[0] = (uint8_t)((saveable ? 0x80 : 0) | 0x40 | d->code);
		p[1] = d->sub;
		put_be16(p + 2, (uint16_t)(d->len - 4));
	} else {
		p[0] = (uint8_t)((saveable ? 0x80 : 0) | d->code);
		p[1] = (uint8_t)(d->len - 2);
	}
	return d->len;
}

void spc_exec_mode_sense(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	bool ten = cdb_op(cmd->cdb) == OP_MODE_SENSE_10;
	bool dbd = cdb_mode_sense_dbd(cmd->cdb), llbaa = ten && cdb_mode_sense10_llbaa(cmd->cdb);
	uint8_t pc = cdb_mode_sense_pc(cmd->cdb), page = cdb_mode_sense_page_code(cmd->cdb);
	uint8_t sub = cdb_mode_sense_subpage_code(cmd->cdb);
	size_t hdr = ten ? 8 : 4, bdl = dbd ? 0 : (llbaa ? 16 : 8), n;
	uint64_t nblocks = lu_nblocks(lu);
	uint8_t buf[8 + 16 + MODE_PG_COUNT * MODE_PAGE_MAX_LEN];

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
		if (page_selected(i, page, sub) && mode_page_present(lu, i))
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
	/* SP without a place to save (SPC-4 6.11) */
	if (cdb_mode_select_sp(cmd->cdb) && !cmd->priv.lu->core->mode.store)
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
	bool sp = cdb_mode_select_sp(cmd->cdb);
	size_t hdr = ten ? 8 : 4, bdl, off;
	uint8_t shown[MODE_PAGE_MAX_LEN];

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
		bool spf = pg[0] & 0x40;
		size_t plen, h = spf ? 4 : 2;
		int i;

		if (off + h > len)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		i = page_index(pg[0] & 0x3f, spf ? pg[1] : 0);
		if (i < 0 || (spf && !pages[i].sub) || !mode_page_present(lu, (unsigned)i))
			return param_invalid_field(cmd, (unsigned)off + (spf ? 1 : 0), spf ? 7 : 5);
		plen = spf ? (size_t)get_be16(pg + 2) + 4 : (size_t)pg[1] + 2;
		if (plen != pages[i].len)
			return param_invalid_field(cmd, (unsigned)off + (spf ? 2 : 1), 7);
		if (off + plen > len)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		/* SPC-4 6.11: SP=1 for a page that cannot be saved */
		if (sp && !page_saveable((unsigned)i))
			return cdb_invalid_field(cmd, MODE_FLAGS_BYTE, 0);
		/* PS is reserved in MODE SELECT and ignored; a field that
		 * cannot change is compared with what MODE SENSE reports,
		 * and a computed one (page_computed()) may also be 0, as in
		 * a page built from scratch */
		memcpy(shown, next[i], sizeof(shown));
		page_computed(lu, (unsigned)i, shown);
		for (size_t b = h; b < plen; b++) {
			uint8_t diff = (pg[b] ^ shown[b]) & (pg[b] ^ next[i][b]) &
				       (uint8_t)~pages[i].changeable[b];
			if (diff)
				return bad_bits(cmd, off + b, diff);
			/* only the changeable bits are kept */
			next[i][b] = (uint8_t)((next[i][b] & ~pages[i].changeable[b]) |
					       (pg[b] & pages[i].changeable[b]));
		}
		off += plen;
	}
	return SENSE_OK;
}

/* The new current values (lu->lock held). */
static void mode_apply_locked(struct scsi_lu *lu, struct lu_itn *itn,
			      const uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN])
{
	struct mode_state *m = &lu->core->mode;

	if (memcmp(next, m->cur, sizeof(m->cur)) == 0)
		return;
	memcpy(m->cur, next, sizeof(m->cur));
	mode_sync_atomics(lu);
	/* SPC-4 7.5.1: MODE PARAMETERS CHANGED for the other nexuses */
	ua_set_all_locked(lu, UA_MODE_PARAMS_CHANGED, itn);
}

/* A MODE SELECT with SP=1 waiting for the state file. */
struct mode_save {
	struct scsi_cmd *cmd;
	uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN];
};

static void mode_save_free(struct scsi_cmd *cmd)
{
	free(cmd->priv.op);
}

static void mode_saved(void *arg, int err)
{
	struct mode_save *sv = arg;
	struct scsi_cmd *cmd = sv->cmd;
	struct scsi_lu *lu = cmd->priv.lu;
	struct mode_state *m = &lu->core->mode;

	pthread_mutex_lock(&lu->lock);
	if (!err) {
		for (unsigned i = 0; i < MODE_PG_COUNT; i++)
			if (page_saveable(i))
				memcpy(m->saved[i], sv->next[i], MODE_PAGE_MAX_LEN);
		mode_apply_locked(lu, cmd->priv.itn, sv->next);
	}
	pthread_mutex_unlock(&lu->lock);
	/* a failed write changed nothing: neither saved nor current values */
	scsi_cmd_complete(cmd, err ? SENSE_INTERNAL_TARGET_FAILURE : SENSE_OK);
}

void spc_exec_mode_select(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct mode_state *m = &lu->core->mode;
	bool sp = cdb_mode_select_sp(cmd->cdb);
	uint8_t next[MODE_PG_COUNT][MODE_PAGE_MAX_LEN], img[MODE_SAVED_MAX];
	struct mode_save *sv = NULL;
	enum sense_reason r = SENSE_OK;

	if (cmd->write_len == 0 && !sp) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (sp) {
		sv = calloc(1, sizeof(*sv));
		if (!sv) {
			scsi_cmd_complete(cmd, SENSE_BUSY);
			return;
		}
		sv->cmd = cmd;
		cmd->priv.op = sv;
		cmd->priv.op_free = mode_save_free;
	}
	pthread_mutex_lock(&lu->lock);
	/* only a HEAD OF QUEUE MODE SELECT passes one that is saving */
	if (m->store && mode_store_busy_locked(m->store))
		r = SENSE_BUSY;
	memcpy(next, m->cur, sizeof(next));
	if (r == SENSE_OK && cmd->write_len)
		r = mode_select_parse(cmd, lu, next);
	if (r == SENSE_OK && sp) {
		/* SPC-4 6.11: every saveable page, those sent included */
		memcpy(sv->next, next, sizeof(next));
		if (!mode_store_write_locked(m->store, img, mode_saved_encode(next, img),
					     mode_saved, sv)) {
			pthread_mutex_unlock(&lu->lock);
			return;
		}
		r = SENSE_BUSY;
	}
	if (r == SENSE_OK)
		mode_apply_locked(lu, cmd->priv.itn, next);
	pthread_mutex_unlock(&lu->lock);
	scsi_cmd_complete_sx(cmd, r, &cmd->priv.sx);
}
