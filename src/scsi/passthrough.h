/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passthrough.h: commands of an LU over a SCSI device (a back-store with
 * BS_CAP_PASSTHROUGH, backstore/sg.c) that go to the device as they are,
 * and the ones the core keeps (passthrough.c). */
#ifndef UT_SCSI_PASSTHROUGH_H
#define UT_SCSI_PASSTHROUGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scsi/sense.h"

struct scsi_cmd;
struct cdb_desc;

/* The policy: false for the commands the core answers itself because what
 * they see or change belongs to an I_T nexus or to the target, not to the
 * device (reservations, unit attentions, REPORT LUNS, identifiers, target
 * port groups, copy manager); true for every other command. Pure. */
bool pt_forwarded(const uint8_t *cdb, size_t cdb_len);

/* The descriptor of a forwarded command the core's tables do not know: no
 * usage check, the data phase the initiator declared, ordered as a barrier,
 * conflicting with another nexus' reservation (passthrough.c). */
extern const struct cdb_desc pt_generic_desc;

/* Run a forwarded command on the device (BS_OP_SCSI) and complete it with
 * the device's status, sense and residual; a unit attention in it is
 * established for the other I_T nexuses of the LU. */
void pt_exec(struct scsi_cmd *cmd);

/* The unit attention condition (enum ua_cond) for the device's ASC/ASCQ,
 * or -1 when it is not one to establish for other I_T nexuses. Pure. */
int pt_ua_cond(uint8_t asc, uint8_t ascq);

#endif
