/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc.h: hooks of the block command code (sbc*.c) that the rest of the core
 * calls. */
#ifndef UT_SCSI_SBC_H
#define UT_SCSI_SBC_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/sense.h"

struct scsi_lu;
struct scsi_cmd;

/* Called by scsi_lu_create()/the last scsi_lu_put(). */
int sbc_lu_init(struct scsi_lu *lu);
void sbc_lu_fini(struct scsi_lu *lu);

/* SBC-4 4.11: while a SANITIZE runs, commands without CDB_F_SANITIZE_OK get
 * NOT READY / SANITIZE IN PROGRESS with this progress (0..65535). After a
 * failed sanitize (without AUSE) medium access commands get MEDIUM ERROR /
 * MEDIUM FORMAT CORRUPTED: the reason is returned in *r. */
bool sbc_sanitize_blocks(struct scsi_lu *lu, const struct scsi_cmd *cmd, enum sense_reason *r,
			 uint16_t *progress);

/* LBA range check shared by every block command: SENSE_LBA_OUT_OF_RANGE when
 * [lba, lba + nblocks) is not inside the capacity. */
enum sense_reason sbc_check_range(const struct scsi_lu *lu, uint64_t lba, uint64_t nblocks);

/* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (READ CAPACITY (16)). */
uint8_t sbc_lbppb_exponent(const struct scsi_lu *lu);

#endif
