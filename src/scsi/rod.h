/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rod.h: ROD tokens (rod.c) as the rest of the core sees them: the ROD
 * types and the end of a target's tokens. */
#ifndef UT_SCSI_ROD_H
#define UT_SCSI_ROD_H

#include <stdint.h>

struct scsi_lu;
struct scsi_target;

/* ROD TYPE (SPC-4 table 129) */
#define ROD_TYPE_PIT_DEFAULT	0x00800000u /* point in time copy - default */
#define ROD_TYPE_PIT_VULNERABLE 0x00800001u /* point in time copy - change vulnerable */
#define ROD_TYPE_BLOCK_ZERO	0xffff0001u /* block device zero ROD token */

/* The target is going away: its tokens and results are dropped. */
void rod_target_gone(const struct scsi_target *target);

#endif
