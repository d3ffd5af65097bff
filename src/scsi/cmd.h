/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h: the core-internal interface for command handlers (spc*.c, sbc*.c,
 * ...). Implemented in cmd.c unless noted. */
#ifndef UT_SCSI_CMD_H
#define UT_SCSI_CMD_H

#include "scsi/cdb.h"
#include "scsi/scsi.h"

/* cmd->priv.io_flags: the CDB's flag bits a handler's parse decoded */
enum {
	CMD_IOF_FUA = 1u << 0,	 /* FUA (SBC-4 4.15) */
	CMD_IOF_DPO = 1u << 1,	 /* DPO (SBC-4 4.15) */
	CMD_IOF_IMMED = 1u << 2, /* IMMED: status before the operation ends */
};

/* Finish the command (exactly once per command, on cmd->reactor). For a
 * Data-In command set cmd->data_in_len first (bytes valid at cmd->buf). */
void scsi_cmd_complete(struct scsi_cmd *cmd, enum sense_reason r);
void scsi_cmd_complete_sx(struct scsi_cmd *cmd, enum sense_reason r, const struct sense_extra *sx);
/* With the status and sense data a device behind the LU returned, as they
 * are (passthrough.c). */
void scsi_cmd_complete_raw(struct scsi_cmd *cmd, uint8_t status, const uint8_t *sense,
			   size_t sense_len);
/* With the sense INFORMATION field set (failing LBA, miscompare offset). */
void scsi_cmd_complete_info(struct scsi_cmd *cmd, enum sense_reason r, uint64_t info);

/* For parse/exec: record a field pointer and return INVALID FIELD IN CDB /
 * INVALID FIELD IN PARAMETER LIST. bit < 0: no bit pointer. */
enum sense_reason cdb_invalid_field(struct scsi_cmd *cmd, unsigned byte, int bit);
enum sense_reason param_invalid_field(struct scsi_cmd *cmd, unsigned byte, int bit);

/* Copy len bytes of response data to cmd->buf, truncated to the allocated
 * buffer (the allocation length), and set data_in_len. */
void scsi_cmd_set_data_in(struct scsi_cmd *cmd, const void *src, size_t len);

/* Map a back-store error (-errno) at byte offset bad_off (UINT64_MAX:
 * unknown) to a reason; for medium errors the failing LBA goes into the
 * INFORMATION field. Completes the command. */
void scsi_cmd_complete_bs_error(struct scsi_cmd *cmd, int err, uint64_t bad_off, bool is_write);

/* LUN lookups through the nexus' LUN map (never around it: EXTENDED COPY
 * resolves its targets here, SPC-4 5.16 / CVE-2020-28374). Return a reference
 * (scsi_lu_put) or NULL. */
struct scsi_lu *scsi_nexus_lu(struct scsi_nexus *n, uint64_t lun, bool *read_only);
struct scsi_lu *scsi_nexus_lu_by_designator(struct scsi_nexus *n, const uint8_t *desig, size_t len,
					    bool *read_only);

#endif
