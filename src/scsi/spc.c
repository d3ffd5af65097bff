/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spc.c: SPC-4 commands of every logical unit: INQUIRY (6.6), TEST UNIT
 * READY (6.47), REQUEST SENSE (6.39), REPORT LUNS (6.33), REPORT SUPPORTED
 * OPERATION CODES (6.35) and REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS
 * (6.36). Responses are built whole and truncated to the allocation length
 * (SPC-4 4.2.5.6). */
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/sbc.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

#define LUN_MAX_COUNT 16384u

enum sense_reason spc_parse_no_data(struct scsi_cmd *cmd)
{
	cmd->priv.data_dir = SCSI_DIR_NONE;
	cmd->priv.data_len = 0;
	return SENSE_OK;
}

void spc_data_in(struct scsi_cmd *cmd, uint32_t alloc_len, uint32_t cap)
{
	cmd->priv.data_dir = SCSI_DIR_READ;
	cmd->priv.data_len = alloc_len < cap ? alloc_len : cap;
}

enum sense_reason spc_data_out(struct scsi_cmd *cmd, uint32_t param_len)
{
	if (param_len > SCSI_MAX_PARAM_BYTES)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	cmd->priv.data_dir = SCSI_DIR_WRITE;
	cmd->priv.data_len = param_len;
	return SENSE_OK;
}

/* ---- INQUIRY ---- */

enum sense_reason spc_parse_inquiry(struct scsi_cmd *cmd)
{
	/* SPC-4 6.6.1: PAGE CODE must be zero when EVPD is zero */
	if (!cdb_inquiry_evpd(cmd->cdb) && cdb_inquiry_page_code(cmd->cdb))
		return cdb_invalid_field(cmd, INQUIRY_PAGE_CODE_BYTE, 7);
	spc_data_in(cmd, cdb_inquiry_alloc_len(cmd->cdb), VPD_MAX_LEN);
	return SENSE_OK;
}

void spc_exec_inquiry(struct scsi_cmd *cmd)
{
	uint8_t buf[VPD_MAX_LEN];
	int len;

	if (!cdb_inquiry_evpd(cmd->cdb)) {
		scsi_cmd_set_data_in(cmd, buf, spc_std_inquiry(cmd, buf));
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (!cmd->priv.lu) {
		/* no VPD pages for an unmapped LUN */
		scsi_cmd_complete(cmd, SENSE_LUN_NOT_SUPPORTED);
		return;
	}
	len = vpd_page(cmd, cdb_inquiry_page_code(cmd->cdb), buf);
	if (len == -2) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	if (len < 0) {
		scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, INQUIRY_PAGE_CODE_BYTE, 7),
				     &cmd->priv.sx);
		return;
	}
	scsi_cmd_set_data_in(cmd, buf, (size_t)len);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- TEST UNIT READY ---- */

void spc_exec_test_unit_ready(struct scsi_cmd *cmd)
{
	/* not ready conditions were reported by the command path */
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- REQUEST SENSE ---- */

enum sense_reason spc_parse_request_sense(struct scsi_cmd *cmd)
{
	spc_data_in(cmd, cdb6_alloc_len(cmd->cdb), 255);
	return SENSE_OK;
}

/* SPC-4 6.39: the sense data of a pending unit attention (reported and
 * cleared), else of the operation in progress (sanitize, format,
 * self-test: NOT READY with the progress indication), else of the logical
 * unit's not-ready state, else NO SENSE.
 * The status is GOOD; DESC chooses the format. */
void spc_exec_request_sense(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	bool desc = cdb_request_sense_desc(cmd->cdb);
	struct sense_extra sx = {0};
	enum sense_reason r = SENSE_OK;
	uint8_t buf[SCSI_SENSE_MAX];
	size_t len;
	uint16_t progress;

	if (!lu) {
		r = SENSE_LUN_NOT_SUPPORTED;
	} else if (p->itn && ua_pending(p->itn)) {
		r = ua_report(lu, p->itn);
	} else if (sbc_busy(lu, NULL, &r, &progress)) {
		if (sense_table[r].key == SENSE_KEY_NOT_READY) {
			sx.progress_valid = true;
			sx.progress = progress;
		}
	} else {
		r = medium_check(lu, p->desc);
		if (r == SENSE_OK && atomic_load(&lu->core->stopped))
			r = SENSE_NOT_READY_INIT_REQUIRED;
	}
	if (r == SENSE_OK) {
		/* NO SENSE, NO ADDITIONAL SENSE INFORMATION */
		memset(buf, 0, sizeof(buf));
		if (desc) {
			buf[0] = 0x72;
			len = 8;
		} else {
			buf[0] = 0x70;
			buf[7] = 10;
			len = 18;
		}
	} else {
		len = sense_build(buf, sizeof(buf), r, desc, &sx);
	}
	scsi_cmd_set_data_in(cmd, buf, len);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- REPORT LUNS ---- */

enum sense_reason spc_parse_report_luns(struct scsi_cmd *cmd)
{
	uint8_t sel = cdb_report_luns_select(cmd->cdb);

	/* SELECT REPORT 00h, 01h (well known only), 02h (all) */
	if (sel > 0x02)
		return cdb_invalid_field(cmd, REPORT_LUNS_SELECT_BYTE, 7);
	spc_data_in(cmd, cdb12_alloc_len(cmd->cdb), 8 + 8 * (LUN_MAX_COUNT + 1));
	return SENSE_OK;
}

struct luns_buf {
	uint8_t *p;
	size_t n, cap;
};

static void put_lun(const struct lun_entry *e, void *arg)
{
	struct luns_buf *b = arg;

	if (b->n + 8 > b->cap)
		return;
	put_be64(b->p + b->n, lun_encode(e->lun));
	b->n += 8;
}

/* SPC-4 6.33: REPORT LUNS clears REPORTED LUNS DATA HAS CHANGED for the
 * I_T nexus at every logical unit it can reach. */
static void clear_luns_changed(struct scsi_nexus *n)
{
	pthread_mutex_lock(&n->lock);
	for (unsigned i = 0; i < n->cache_n; i++)
		if (n->cache[i].itn)
			ua_clear(n->cache[i].itn, UA_REPORTED_LUNS_CHANGED);
	pthread_mutex_unlock(&n->lock);
}

void spc_exec_report_luns(struct scsi_cmd *cmd)
{
	uint8_t sel = cdb_report_luns_select(cmd->cdb);
	size_t cap = 8 + 8 * ((size_t)LUN_MAX_COUNT + 1);
	struct luns_buf b = {.n = 8, .cap = cap};

	b.p = calloc(1, cap);
	if (!b.p) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	if (sel == 0x00 || sel == 0x02)
		lun_map_for_each(cmd->nexus->map, put_lun, &b);
	if (sel == 0x01 || sel == 0x02) {
		put_be64(b.p + b.n, LUN_WLUN_REPORT_LUNS);
		b.n += 8;
	}
	put_be32(b.p, (uint32_t)(b.n - 8));
	clear_luns_changed(cmd->nexus);
	scsi_cmd_set_data_in(cmd, b.p, b.n);
	free(b.p);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- REPORT SUPPORTED OPERATION CODES ---- */

enum {
	RSOC_ALL = 0,
	RSOC_OPCODE = 1,	 /* opcode without service action */
	RSOC_OPCODE_SA = 2,	 /* opcode with service action */
	RSOC_OPCODE_MAYBE_SA = 3 /* either (SPC-4 r37) */
};

enum sense_reason spc_parse_rsoc(struct scsi_cmd *cmd)
{
	if (cdb_rsoc_options(cmd->cdb) > RSOC_OPCODE_MAYBE_SA)
		return cdb_invalid_field(cmd, RSOC_OPTIONS_BYTE, 2);
	spc_data_in(cmd, cdb12_alloc_len(cmd->cdb), SCSI_MAX_PARAM_BYTES);
	return SENSE_OK;
}

/* SPC-4 7.x command timeouts descriptor (12 bytes) */
static size_t put_timeouts(uint8_t *p, const struct cdb_desc *d)
{
	memset(p, 0, 12);
	put_be16(p, 0x0a);
	put_be32(p + 4, d->timeout_s);
	put_be32(p + 8, d->timeout_s);
	return 12;
}

/* One command descriptor of the "all commands" format (SPC-4 6.35.2). */
static size_t put_cmd_desc(uint8_t *p, uint8_t op, const struct cdb_desc *d, bool servactv,
			   uint16_t sa, bool rctd)
{
	memset(p, 0, 8);
	p[0] = op;
	put_be16(p + 2, sa);
	p[5] = (uint8_t)((rctd ? 0x02 : 0) | (servactv ? 0x01 : 0));
	put_be16(p + 6, d->len);
	if (!rctd)
		return 8;
	return 8 + put_timeouts(p + 8, d);
}

static size_t rsoc_all(uint8_t *buf, size_t cap, bool rctd, const struct scsi_lu *lu)
{
	size_t n = 4, each = rctd ? 20 : 8;

	for (unsigned op = 0; op < 256; op++) {
		const struct cdb_desc *d = cdb_opcode((uint8_t)op);

		if (!d)
			continue;
		if (!d->sa) {
			if (n + each > cap)
				break;
			n += put_cmd_desc(buf + n, (uint8_t)op, d, false, 0, rctd);
			continue;
		}
		for (unsigned sa = 0; sa < d->sa->count; sa++) {
			if (!d->sa->v[sa].name || !cdb_desc_on_lu(&d->sa->v[sa], lu))
				continue;
			if (n + each > cap)
				break;
			n += put_cmd_desc(buf + n, (uint8_t)op, &d->sa->v[sa], true, (uint16_t)sa,
					  rctd);
		}
	}
	put_be32(buf, (uint32_t)(n - 4));
	return n;
}

/* The one-command format (SPC-4 6.35.3): support, CDB usage data. */
static size_t rsoc_one(uint8_t *buf, uint8_t op, const struct cdb_desc *d,
		       const struct cdb_sa_table *sat, uint16_t sa, bool rctd)
{
	size_t n;

	memset(buf, 0, 4);
	if (!d) {
		buf[1] = 0x01; /* SUPPORT 001b: not supported */
		return 4;
	}
	buf[1] = (uint8_t)((rctd ? 0x80 : 0) | 0x03); /* CTDP, SUPPORT 011b */
	put_be16(buf + 2, d->len);
	buf[4] = op;
	for (unsigned i = 1; i < d->len; i++)
		buf[4 + i] = cdb_usage_byte(d, i);
	if (sat && sat->byte < d->len) {
		/* the service action field shows the service action */
		buf[4 + sat->byte] =
		    (uint8_t)((d->usage[sat->byte] & ~sat->mask) | (sa & sat->mask));
	}
	n = 4 + d->len;
	if (rctd)
		n += put_timeouts(buf + n, d);
	return n;
}

void spc_exec_rsoc(struct scsi_cmd *cmd)
{
	uint8_t opt = cdb_rsoc_options(cmd->cdb), op = cdb_rsoc_opcode(cmd->cdb);
	bool rctd = cdb_rsoc_rctd(cmd->cdb);
	uint16_t sa = cdb_rsoc_sa(cmd->cdb);
	const struct cdb_desc *top, *d = NULL;
	size_t cap = 4 + 20 * 512, n;
	uint8_t *buf;

	buf = calloc(1, cap);
	if (!buf) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	top = cdb_opcode(op);
	switch (opt) {
	case RSOC_ALL:
		n = rsoc_all(buf, cap, rctd, cmd->priv.lu);
		break;
	case RSOC_OPCODE:
		/* SPC-4 6.35.1: an opcode with service actions is an error */
		if (top && top->sa) {
			free(buf);
			scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, RSOC_OPCODE_BYTE, 7),
					     &cmd->priv.sx);
			return;
		}
		n = rsoc_one(buf, op, top, NULL, 0, rctd);
		break;
	case RSOC_OPCODE_SA:
		if (top && !top->sa) {
			free(buf);
			scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, RSOC_OPCODE_BYTE, 7),
					     &cmd->priv.sx);
			return;
		}
		/* fall through */
		UT_FALLTHROUGH;
	default: /* RSOC_OPCODE_MAYBE_SA */
		if (top && top->sa) {
			if (sa < top->sa->count && top->sa->v[sa].name &&
			    cdb_desc_on_lu(&top->sa->v[sa], cmd->priv.lu))
				d = &top->sa->v[sa];
			n = rsoc_one(buf, op, d, top->sa, sa, rctd);
		} else {
			n = rsoc_one(buf, op, sa ? NULL : top, NULL, 0, rctd);
		}
		break;
	}
	scsi_cmd_set_data_in(cmd, buf, n);
	free(buf);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS ---- */

enum sense_reason spc_parse_rstmf(struct scsi_cmd *cmd)
{
	uint32_t alloc = cdb12_alloc_len(cmd->cdb);

	/* SPC-4 6.36: an allocation length below 4 is an error */
	if (alloc < 4)
		return cdb_invalid_field(cmd, CDB12_LENGTH_BYTE, -1);
	spc_data_in(cmd, alloc, 16);
	return SENSE_OK;
}

void spc_exec_rstmf(struct scsi_cmd *cmd)
{
	uint8_t buf[16] = {0};
	bool repd = cdb_rstmf_repd(cmd->cdb);

	/* ATS ATSS CACAS (CLEAR ACA, SAM-5 7.3: tmf.c) CTSS LURS (WAKES 0);
	 * TRS for the I_T
	 * nexuses that may use a target reset (scsi_nexus_info.target_reset):
	 * the others are refused it; QTS and QAES QTSS ITNRS where the fabric
	 * carries them for this nexus (scsi_nexus_info.query_tmfs: iSCSI
	 * below protocol level 2 has no function code for them) */
	buf[0] = 0x80 | 0x40 | 0x20 | 0x10 | 0x08 | (cmd->nexus->query_tmfs ? 0x04 : 0) |
		 (cmd->nexus->target_reset ? 0x02 : 0);
	if (cmd->nexus->query_tmfs)
		buf[1] = 0x04 | 0x02 | 0x01; /* QAES QTSS ITNRS */
	if (repd) {
		buf[3] = 0x0c; /* ADDITIONAL DATA LENGTH; no timeouts reported */
		scsi_cmd_set_data_in(cmd, buf, 16);
	} else {
		scsi_cmd_set_data_in(cmd, buf, 4);
	}
	scsi_cmd_complete(cmd, SENSE_OK);
}
