/* SPDX-License-Identifier: GPL-2.0-or-later */
/* copy_status.c: RECEIVE COPY STATUS(LID4) (SPC-4 6.24) and RECEIVE COPY
 * DATA(LID4) (SPC-4 6.20) of any copy operation of the copy manager:
 * EXTENDED COPY(LID1) and (LID4) (xcopy.c, the LU's results) and POPULATE
 * TOKEN / WRITE USING TOKEN (rod.c, the target's results). The two stores
 * keep one list identifier space per I_T nexus (a copy recorded in one
 * discards the other's result of the same list identifier), so at most
 * one of them knows a list identifier.
 *
 * No segment descriptor this copy manager accepts holds data for the
 * application client (xcopy.c refuses them), so RECEIVE COPY DATA(LID4)
 * of a known copy operation is the status with HELD DATA LENGTH 0; of an
 * unknown one, ILLEGAL REQUEST / INVALID FIELD IN CDB pointing at the LIST
 * IDENTIFIER (6.20). */
#include <string.h>

#include "lib/endian.h"
#include "scsi/core.h"
#include "scsi/sbc_internal.h"

#define RCS_LIST_ID_BYTE 2
#define RCD_HELD_LEN	 4 /* HELD DATA LENGTH */

/* COPY OPERATION STATUS codes of a finished operation (SPC-4 table 249) */
static bool status_done(uint8_t status)
{
	return (status >= 0x01 && status <= 0x04) || status == 0x60;
}

size_t sbc_copy_status_put(const struct sbc_copy_status *st, uint8_t *d)
{
	size_t field = (st->sense_len + 3u) & ~3u; /* LENGTH OF THE SENSE DATA FIELD */

	memset(d, 0, SBC_COPY_STATUS_LEN + field);
	d[4] = st->sa & 0x1f;	  /* RESPONSE TO SERVICE ACTION */
	d[5] = st->status & 0x7f; /* COPY OPERATION STATUS (HDD 0 in RECEIVE COPY DATA) */
	/* OPERATION COUNTER 6-7: 0. ESTIMATED STATUS UPDATE DELAY: FFFFFFFEh
	 * once the operation is done, else "unable to recommend" */
	put_be32(d + 8, status_done(st->status) ? 0xfffffffeu : 0xffffffffu);
	d[12] = st->scsi_status; /* EXTENDED COPY COMPLETION STATUS */
	d[13] = (uint8_t)field;
	d[14] = st->sense_len; /* SENSE DATA LENGTH */
	d[15] = st->units;
	put_be64(d + 16, st->count);
	put_be16(d + 24, st->segments);
	memcpy(d + SBC_COPY_STATUS_LEN, st->sense, st->sense_len);
	return SBC_COPY_STATUS_LEN + field;
}

/* 84h / 05h and 06h: LIST IDENTIFIER 2-5, ALLOCATION LENGTH 10-13. */
enum sense_reason sbc_parse_rcs_lid4(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb), SBC_COPY_STATUS_LEN + SBC_COPY_SENSE_MAX);
	return SENSE_OK;
}

enum sense_reason sbc_parse_rcd_lid4(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb),
		    SBC_COPY_STATUS_LEN + SBC_COPY_SENSE_MAX + RCD_HELD_LEN);
	return SENSE_OK;
}

/* The status of the I_T nexus' copy operation named by the CDB, into d;
 * its length, or 0 when no copy operation has that list identifier. */
static size_t copy_status(struct scsi_cmd *cmd, uint8_t *d)
{
	uint32_t list_id = get_be32(cmd->cdb + RCS_LIST_ID_BYTE);
	struct sbc_copy_status st;

	if (!sbc_xcopy_status(cmd, list_id, &st) && !rod_copy_status(cmd, list_id, &st))
		return 0;
	return sbc_copy_status_put(&st, d);
}

static void unknown_list(struct scsi_cmd *cmd)
{
	scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, RCS_LIST_ID_BYTE, -1), &cmd->priv.sx);
}

void sbc_exec_rcs_lid4(struct scsi_cmd *cmd)
{
	uint8_t d[SBC_COPY_STATUS_LEN + SBC_COPY_SENSE_MAX];
	size_t len = copy_status(cmd, d);

	if (!len) {
		unknown_list(cmd);
		return;
	}
	put_be32(d, (uint32_t)len - 4); /* AVAILABLE DATA */
	scsi_cmd_set_data_in(cmd, d, len);
	scsi_cmd_complete(cmd, SENSE_OK);
}

void sbc_exec_rcd_lid4(struct scsi_cmd *cmd)
{
	uint8_t d[SBC_COPY_STATUS_LEN + SBC_COPY_SENSE_MAX + RCD_HELD_LEN];
	size_t len = copy_status(cmd, d);

	if (!len) {
		unknown_list(cmd);
		return;
	}
	put_be32(d + len, 0); /* HELD DATA LENGTH: nothing is ever held */
	len += RCD_HELD_LEN;
	put_be32(d, (uint32_t)len - 4); /* AVAILABLE DATA */
	scsi_cmd_set_data_in(cmd, d, len);
	scsi_cmd_complete(cmd, SENSE_OK);
}
