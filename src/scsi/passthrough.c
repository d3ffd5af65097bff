/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passthrough.c: an LU over a SCSI device (BS_CAP_PASSTHROUGH, the sg
 * back-store): which commands the device answers and which the core keeps,
 * and the run of a forwarded command.
 *
 * The device sees one I_T nexus, ours, for every initiator of the LU, so
 * whatever it keeps per I_T nexus would be shared by all of them, and what
 * names the target would name the device's own. The core therefore keeps
 * (pt_forwarded() false; run by the core's handlers as on any LU):
 *  - PERSISTENT RESERVE IN/OUT, RESERVE/RELEASE (6)/(10): reservations are
 *    per I_T nexus (SPC-4 5.13); forwarded, one initiator could release
 *    another's through the device. The core's conflict checks run before
 *    every forwarded command, by its PR conflict class (cdb.h).
 *  - REQUEST SENSE: the pending unit attentions and sense are the core's,
 *    per I_T nexus (SPC-4 5.14).
 *  - REPORT LUNS: the LUN inventory is the target's LUN map.
 *  - INQUIRY of the Unit Serial Number (80h) and Device Identification
 *    (83h) VPD pages: utarget's identifiers (the NAA and the target port's
 *    designators that ALUA, EXTENDED COPY and multipath rely on). The
 *    standard INQUIRY data and the other pages are the device's (its
 *    vendor, product and revision).
 *  - REPORT / SET TARGET PORT GROUPS (MAINTENANCE IN/OUT 0Ah): the target
 *    ports are utarget's (SPC-4 5.15).
 *  - EXTENDED COPY, RECEIVE COPY RESULTS (83h, 84h, also the ROD token
 *    service actions): their descriptors name LUs by utarget's designators,
 *    which the device does not know; the core's copy manager runs them on
 *    the primitives.
 * Everything else goes to the device with its CDB as it is, after the
 * core's checks (SPC-4 5.14 order: unit attention, ALUA, reservations, write
 * protection) with the command's own descriptor when the core's tables know
 * the opcode, else pt_generic_desc. The data phase is what the CDB says
 * (the core's parse) or, for an opcode the core does not know, what the
 * initiator declared. When the core's residual rules would cut a known
 * command's transfer (an Expected Data Transfer Length below the CDB's), it
 * runs on the core's handler and the primitives instead (cmd.c), so the CDB
 * the device sees always matches its data.
 *
 * Unit attentions of the device: the device reports each once, to us, but
 * it concerns every initiator (SAM-5 5.14: a condition for each I_T nexus).
 * A CHECK CONDITION with UNIT ATTENTION goes to the initiator whose command
 * met it with the device's sense intact (the command was not run, as the
 * device says; SPC-4 5.14 lets the initiator retry), and the matching
 * condition (pt_ua_cond()) is established for every other I_T nexus of the
 * LU, which each meet it on their next command. A UA with no core
 * condition (a vendor or a LUN-inventory change of the device, which the
 * target's inventory hides) reaches only the initiator that met it.
 */
#include "scsi/passthrough.h"

#include <errno.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/log.h"
#include "scsi/cdb.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/ua.h"

#define PT_INQ_EVPD	 0x01
#define PT_VPD_SERIAL	 0x80
#define PT_VPD_DEVICE_ID 0x83

_Static_assert((int)BS_DIR_NONE == (int)SCSI_DIR_NONE && (int)BS_DIR_READ == (int)SCSI_DIR_READ &&
		   (int)BS_DIR_WRITE == (int)SCSI_DIR_WRITE,
	       "enum bs_dir is enum scsi_dir");

bool pt_forwarded(const uint8_t *cdb, size_t cdb_len)
{
	if (cdb_len == 0)
		return false;
	switch (cdb[0]) {
	case OP_PERSISTENT_RESERVE_IN:
	case OP_PERSISTENT_RESERVE_OUT:
	case OP_RESERVE_6:
	case OP_RELEASE_6:
	case OP_RESERVE_10:
	case OP_RELEASE_10:
	case OP_REQUEST_SENSE:
	case OP_REPORT_LUNS:
	case OP_EXTENDED_COPY:
	case OP_RECEIVE_COPY_RESULTS:
		return false;
	case OP_INQUIRY:
		return cdb_len < 3 || !(cdb[1] & PT_INQ_EVPD) ||
		       (cdb[2] != PT_VPD_SERIAL && cdb[2] != PT_VPD_DEVICE_ID);
	case OP_MAINTENANCE_IN:
		return cdb_len < 2 || (cdb[1] & 0x1f) != SA_REPORT_TARGET_PORT_GROUPS;
	case OP_MAINTENANCE_OUT:
		return cdb_len < 2 || (cdb[1] & 0x1f) != SA_SET_TARGET_PORT_GROUPS;
	default:
		return true;
	}
}

/* The data phase the initiator declared (RFC 7143 11.4.5: the R and W bits
 * and Expected Data Transfer Length). */
static enum sense_reason pt_parse(struct scsi_cmd *cmd)
{
	cmd->priv.data_dir = cmd->fabric_dir;
	cmd->priv.data_len = cmd->fabric_dir == SCSI_DIR_NONE ? 0 : cmd->exp_len;
	return SENSE_OK;
}

static void pt_no_exec(struct scsi_cmd *cmd)
{
	/* never: cmd.c runs forwarded commands with pt_exec() */
	scsi_cmd_complete(cmd, SENSE_INTERNAL_TARGET_FAILURE);
}

const struct cdb_desc pt_generic_desc = {
    .name = "pass-through",
    .parse = pt_parse,
    .exec = pt_no_exec,
    .len = 6,
    .usage = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    /* unknown effects: refused on a write-protected LU and under another
     * nexus' reservation, and ordered after and before everything */
    .flags = CDB_F_WRITES,
    .pr_class = PR_CLASS_CONFLICT,
    .order_class = ORDER_BARRIER,
};

int pt_ua_cond(uint8_t asc, uint8_t ascq)
{
	switch (asc) {
	case 0x28: /* NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED */
		return UA_MEDIUM_CHANGED;
	case 0x29: /* POWER ON, RESET, OR BUS DEVICE RESET OCCURRED */
		return ascq == 0x03 ? UA_BUS_DEVICE_RESET : UA_POWER_ON;
	case 0x2a:
		if (ascq == 0x01)
			return UA_MODE_PARAMS_CHANGED;
		if (ascq == 0x09)
			return UA_CAPACITY_CHANGED;
		return -1; /* reservations, ALUA, timestamp: the core's own */
	case 0x3f:
		if (ascq == 0x03)
			return UA_INQUIRY_DATA_CHANGED;
		return -1;
	default:
		return -1;
	}
}

/* Key, ASC and ASCQ of fixed or descriptor sense data; false when short. */
static bool pt_sense_code(const uint8_t *s, size_t len, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	if (len < 1)
		return false;
	switch (s[0] & 0x7f) {
	case 0x70:
	case 0x71:
		if (len < 14)
			return false;
		*key = s[2] & 0x0f;
		*asc = s[12];
		*ascq = s[13];
		return true;
	case 0x72:
	case 0x73:
		if (len < 4)
			return false;
		*key = s[1] & 0x0f;
		*asc = s[2];
		*ascq = s[3];
		return true;
	default:
		return false;
	}
}

static void pt_done(struct bs_io *io, int err)
{
	struct scsi_cmd_priv *p = container_of(io, struct scsi_cmd_priv, io);
	struct scsi_cmd *cmd = container_of(p, struct scsi_cmd, priv);
	uint8_t key, asc, ascq;
	int c;

	if (err < 0) {
		/* not delivered: the device is gone or the transport failed */
		log_warn("LU %s: pass-through of opcode 0x%02x failed: %s", p->lu->name,
			 cmd->cdb[0], strerror(-err));
		scsi_cmd_complete(cmd, err == -ENOMEM || err == -EAGAIN
					   ? SENSE_BUSY
					   : SENSE_LU_COMMUNICATION_FAILURE);
		return;
	}
	if (io->scsi_status == SAM_STAT_CHECK_CONDITION &&
	    pt_sense_code(io->sense, io->sense_len, &key, &asc, &ascq) &&
	    key == SENSE_KEY_UNIT_ATTENTION && (c = pt_ua_cond(asc, ascq)) >= 0)
		ua_set_all(p->lu, (enum ua_cond)c, p->itn);
	if (p->data_dir == SCSI_DIR_READ)
		cmd->data_in_len = io->resid < p->buf_len ? p->buf_len - io->resid : 0;
	scsi_cmd_complete_raw(cmd, io->scsi_status, io->sense, io->sense_len);
}

void pt_exec(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct bs_io *io = &p->io;

	memset(io, 0, offsetof(struct bs_io, priv));
	io->op = BS_OP_SCSI;
	io->cdb = cmd->cdb;
	io->cdb_len = (uint8_t)cmd->cdb_len;
	io->dir = p->data_len ? p->data_dir : SCSI_DIR_NONE;
	io->len = p->data_len ? p->buf_len : 0;
	p->iov[0].iov_base = cmd->buf;
	p->iov[0].iov_len = (size_t)io->len;
	io->iov = p->iov;
	io->iovcnt = io->len ? 1 : 0;
	io->sense = cmd->sense;
	io->sense_len = sizeof(cmd->sense);
	io->done = pt_done;
	bs_submit(p->lu->bs, io);
}
