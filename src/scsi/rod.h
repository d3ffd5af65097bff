/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rod.h: ROD tokens (rod.c) as the rest of the core sees them: the ROD
 * types, the Third-party Copy VPD page (tpc_vpd.c) and the end of a
 * target's tokens. */
#ifndef UT_SCSI_ROD_H
#define UT_SCSI_ROD_H

#include <stddef.h>
#include <stdint.h>

struct scsi_lu;
struct scsi_target;

/* ROD TYPE (SPC-4 table 129) */
#define ROD_TYPE_PIT_DEFAULT	0x00800000u /* point in time copy - default */
#define ROD_TYPE_PIT_VULNERABLE 0x00800001u /* point in time copy - change vulnerable */
#define ROD_TYPE_BLOCK_ZERO	0xffff0001u /* block device zero ROD token */

/* The target is going away: its tokens and results are dropped. */
void rod_target_gone(const struct scsi_target *target);

/* Third-party Copy VPD page 8Fh (SPC-4 7.8.17) of lu into buf (VPD_MAX_LEN
 * bytes, zeroed; bytes 0-3 are the caller's); returns its length. */
size_t vpd_third_party_copy(const struct scsi_lu *lu, uint8_t *buf);

#endif
