/* SPDX-License-Identifier: GPL-2.0-or-later */
/* defect.c: READ DEFECT DATA (10) and (12) (SBC-4 5.17, 5.18).
 *
 * A virtual medium has no defects: the primary (PLIST) and grown (GLIST)
 * lists are both empty. The header reports the lists asked for as valid
 * (PLISTV/GLISTV), in the DEFECT LIST FORMAT asked for (an empty list is
 * the same in every format), with a DEFECT LIST LENGTH of zero. The
 * reserved format 111b is refused. */
#include <string.h>

#include "scsi/sbc_internal.h"

#define RDD_REQ_PLIST	    0x10
#define RDD_REQ_GLIST	    0x08
#define RDD_FORMAT_MASK	    0x07
#define RDD_FORMAT_RESERVED 0x07

static enum sense_reason rdd_check_format(struct scsi_cmd *cmd)
{
	if ((cdb_rdd_request(cmd->cdb) & RDD_FORMAT_MASK) == RDD_FORMAT_RESERVED)
		return cdb_invalid_field(cmd, cdb_rdd_request_byte(cmd->cdb), 2);
	return SENSE_OK;
}

/* READ DEFECT DATA (10) 37h: byte 2 REQ_PLIST, REQ_GLIST, DEFECT LIST
 * FORMAT; ALLOCATION LENGTH 7-8. 4-byte header. */
enum sense_reason sbc_parse_read_defect10(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb10_alloc_len(cmd->cdb), 4);
	return rdd_check_format(cmd);
}

/* READ DEFECT DATA (12) B7h: byte 1 REQ_PLIST, REQ_GLIST, DEFECT LIST
 * FORMAT; ADDRESS DESCRIPTOR INDEX 2-5; ALLOCATION LENGTH 6-9. 8-byte
 * header. */
enum sense_reason sbc_parse_read_defect12(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb12_alloc_len(cmd->cdb), 8);
	return rdd_check_format(cmd);
}

void sbc_exec_read_defect(struct scsi_cmd *cmd)
{
	bool ten = cdb_op(cmd->cdb) == OP_READ_DEFECT_DATA_10;
	uint8_t req = cdb_rdd_request(cmd->cdb);
	uint8_t d[8];

	memset(d, 0, sizeof(d));
	/* byte 1: PLISTV, GLISTV, DEFECT LIST FORMAT */
	d[1] = req & (RDD_REQ_PLIST | RDD_REQ_GLIST | RDD_FORMAT_MASK);
	/* (10): DEFECT LIST LENGTH 2-3 = 0. (12): GENERATION CODE 2-3 = 0
	 * (the lists never change), DEFECT LIST LENGTH 4-7 = 0. */
	scsi_cmd_set_data_in(cmd, d, ten ? 4 : 8);
	scsi_cmd_complete(cmd, SENSE_OK);
}
