/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ua.h: unit attention conditions per I_T nexus per logical unit (SPC-4
 * 5.14, SAM-5 5.14), kept as a bit mask in struct lu_itn (after CTL's
 * per-initiator masks). The enum order is the reporting priority: the
 * lowest pending bit is reported first, one condition per command. */
#ifndef UT_SCSI_UA_H
#define UT_SCSI_UA_H

#include <stdbool.h>

#include "scsi/sense.h"

struct scsi_lu;
struct lu_itn;

enum ua_cond {
	/* SAM-5 5.14: power on, reset and I_T nexus loss come first */
	UA_POWER_ON = 0,	     /* 29/00 a nexus the LU has not seen */
	UA_BUS_DEVICE_RESET,	     /* 29/03 logical unit reset / target reset */
	UA_I_T_NEXUS_LOSS,	     /* 29/07 */
	UA_RESERVATIONS_PREEMPTED,   /* 2A/03 */
	UA_RESERVATIONS_RELEASED,    /* 2A/04 */
	UA_REGISTRATIONS_PREEMPTED,  /* 2A/05 */
	UA_ASYM_ACCESS_CHANGED,	     /* 2A/06 */
	UA_MODE_PARAMS_CHANGED,	     /* 2A/01 */
	UA_CAPACITY_CHANGED,	     /* 2A/09 */
	UA_PRIORITY_CHANGED,	     /* 2A/08 */
	UA_COMMANDS_CLEARED,	     /* 2F/00 commands cleared by another initiator */
	UA_MEDIUM_CHANGED,	     /* 28/00 not ready to ready change */
	UA_INQUIRY_DATA_CHANGED,     /* 3F/03 */
	UA_REPORTED_LUNS_CHANGED,    /* 3F/0E */
	UA_THIN_PROV_SOFT_THRESHOLD, /* 38/07 SBC-4 4.7.3.8 (lbp_threshold.c) */
	UA_COUNT
};

/* The sense reason reported for each condition. */
extern const enum sense_reason ua_reason[UA_COUNT];

void ua_set(struct lu_itn *itn, enum ua_cond c);
void ua_clear(struct lu_itn *itn, enum ua_cond c);
bool ua_pending(const struct lu_itn *itn);
/* The condition ua_take() would report next, without clearing it
 * (SENSE_OK when none): QUERY ASYNCHRONOUS EVENT. */
enum sense_reason ua_peek(const struct lu_itn *itn);
/* Report-and-clear the highest priority condition (SENSE_OK when none). */
enum sense_reason ua_take(struct lu_itn *itn);
/* ua_take for a command of itn at lu, with the LU-wide effects of a report:
 * a thin provisioning threshold's with SITUA=1 is cleared for every nexus.
 * Called without lu->lock. */
enum sense_reason ua_report(struct scsi_lu *lu, struct lu_itn *itn);
/* Establish c for every I_T nexus the LU knows, except `except` (may be
 * NULL). The _locked variant needs lu->lock. */
void ua_set_all(struct scsi_lu *lu, enum ua_cond c, const struct lu_itn *except);
void ua_set_all_locked(struct scsi_lu *lu, enum ua_cond c, const struct lu_itn *except);

#endif
