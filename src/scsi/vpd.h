/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vpd.h: logical unit designators of the Device Identification VPD page
 * (SPC-4 7.8.6), for lookups by designator (EXTENDED COPY). */
#ifndef UT_SCSI_VPD_H
#define UT_SCSI_VPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scsi_lu;

/* desig: one designation descriptor (SPC-4 7.8.6.1: 4-byte header, then the
 * designator) of len bytes. True when it names lu: same designator type
 * and identifier as one of the LU-associated designators of lu's VPD 83h. */
bool vpd_lu_designator_match(struct scsi_lu *lu, const uint8_t *desig, size_t len);

#endif
