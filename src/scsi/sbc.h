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

/* The long operations of the block code that hold commands off, and what
 * cmd gets (true, *r and the progress indication *progress, 0..65535):
 *  - SBC-4 4.11: while a SANITIZE runs, commands without CDB_F_SANITIZE_OK
 *    get NOT READY / SANITIZE IN PROGRESS; after a failed sanitize or
 *    format medium access commands get MEDIUM ERROR / MEDIUM FORMAT
 *    CORRUPTED (*progress 0);
 *  - SBC-4 5.3.1: while a FORMAT UNIT runs, commands without CDB_F_BUSY_OK
 *    get NOT READY / FORMAT IN PROGRESS;
 *  - SPC-4 5.6.3.2: while a foreground self-test runs, commands without
 *    CDB_F_BUSY_OK get NOT READY / SELF-TEST IN PROGRESS (a background
 *    self-test holds nothing off: SEND DIAGNOSTIC checks for itself).
 * cmd NULL (REQUEST SENSE, SPC-4 6.39): whatever runs, a background
 * self-test included. */
bool sbc_busy(struct scsi_lu *lu, const struct scsi_cmd *cmd, enum sense_reason *r,
	      uint16_t *progress);

/* End a background self-test as aborted (SPC-4 5.6.3.3: SELF-TEST RESULTS
 * 2h, by the application client other than with SEND DIAGNOSTIC) when a
 * command that excludes it begins (FORMAT UNIT, SANITIZE, START STOP UNIT
 * stopping the unit) or the LU is reset; nothing when none runs. */
void sbc_selftest_abort(struct scsi_lu *lu);
/* diag.c: the seconds an extended self-test of lu takes at its pace (the
 * Control mode page's EXTENDED SELF-TEST COMPLETION TIME, at most FFFFh) */
uint16_t sbc_selftest_extended_seconds(struct scsi_lu *lu);

/* Bytes per logical block on the wire for a READ or WRITE: the block, and
 * its protection information tuple when it travels (priv.pi.transfer). */
struct scsi_cmd_priv;
uint32_t sbc_xfer_unit(const struct scsi_cmd_priv *p);

/* LBA range check shared by every block command: SENSE_LBA_OUT_OF_RANGE when
 * [lba, lba + nblocks) is not inside the capacity. */
enum sense_reason sbc_check_range(const struct scsi_lu *lu, uint64_t lba, uint64_t nblocks);

/* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (READ CAPACITY (16)). */
uint8_t sbc_lbppb_exponent(const struct scsi_lu *lu);

#endif
