/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi_format.h: the protection type of a logical unit's format (SBC-4
 * 4.22.2), persisted (pi_format.c); FORMAT UNIT (sanitize.c) changes it. */
#ifndef UT_SCSI_PI_FORMAT_H
#define UT_SCSI_PI_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/workq.h"

struct scsi_lu;

/* The LU can change its protection type: its back-store keeps tuples and
 * can change the type of those it generates, and the type has a state file
 * (scsi_lu_pi_format_store()). */
bool pi_format_changeable(const struct scsi_lu *lu);
/* type (enum t10pi_type) is one the LU can be formatted with (VPD 86h SPT). */
bool pi_format_can_keep(const struct scsi_lu *lu, uint8_t type);
/* Make type the current format: lu->pi_type and the back-store's generated
 * tuples. Only with no medium access in flight (the format job's lock). */
void pi_format_apply(struct scsi_lu *lu, uint8_t type);

/* Write type to the LU's format state file on a worker thread; done(s)
 * runs on the submitting reactor afterwards, s->err 0 or -errno. */
struct pi_format_save {
	struct scsi_lu *lu;
	uint8_t type;
	int err;
	void (*done)(struct pi_format_save *s);
	struct workq_item wq;
};
void pi_format_save(struct pi_format_save *s);

#endif
