/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lbp_threshold.h: logical block provisioning thresholds (SBC-4 4.7.3.8):
 * soft thresholds on the available and used LBA mapping resources of a
 * thin logical unit, configured by the Logical Block Provisioning mode page
 * (1Ch/02h, SBC-4 6.5.7) and reported with the unit attention THIN
 * PROVISIONING SOFT THRESHOLD REACHED (38h/07h). See lbp_threshold.c. */
#ifndef UT_SCSI_LBP_THRESHOLD_H
#define UT_SCSI_LBP_THRESHOLD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct scsi_lu;

/* The mode page: a 16-byte header (SITUA in byte 4), then one 8-byte
 * threshold descriptor per resource: available (01h), used (02h). */
#define LBP_THRESHOLD_DESCS    2
#define LBP_THRESHOLD_PAGE_LEN (16 + 8 * LBP_THRESHOLD_DESCS)
#define LBP_THRESHOLD_CHECK_NS (250ull * 1000 * 1000)

struct lbp_threshold_desc {
	bool enabled;
	bool increasing; /* ARMING 001b; else 000b armed decreasing */
	uint8_t resource;
	uint32_t count; /* in threshold sets (2^exponent logical blocks) */
	bool reached;	/* notified, not re-armed yet */
};

struct lbp_threshold_state {
	atomic_bool enabled;		/* any descriptor: the write path's one load */
	atomic_bool space_ok;		/* lbp_threshold_supported() said yes once */
	_Atomic uint64_t next_check_ns; /* rate limit of the evaluation */
	bool situa;			/* lu->lock */
	struct lbp_threshold_desc d[LBP_THRESHOLD_DESCS]; /* lu->lock */
};

/* The default and changeable images of the mode page (whole page, header
 * included) as initializers of mode.c's table: SITUA 0, descriptors of the
 * available (01h) and used (02h) resources, disabled, armed decreasing,
 * count 0; SITUA, ENABLED, the low bit of ARMING and COUNT changeable. */
/* clang-format off */
#define LBP_THRESHOLD_PAGE_DEFAULT                                                                 \
	{0x5c, 0x02, 0x00, LBP_THRESHOLD_PAGE_LEN - 4, [17] = 0x01, [25] = 0x02}
#define LBP_THRESHOLD_PAGE_CHANGEABLE                                                              \
	{0x5c, 0x02, 0x00, LBP_THRESHOLD_PAGE_LEN - 4, 0x01,                                       \
	 [16] = 0x81, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,                                    \
	 [24] = 0x81, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}
/* clang-format on */

/* A thin LU whose back-store can tell its space has thresholds (and the
 * logical block provisioning log page). */
bool lbp_threshold_supported(struct scsi_lu *lu);
/* THRESHOLD EXPONENT (VPD B2h): 0 without thresholds; else threshold sets
 * of 1 MiB, or the smallest larger power of two that counts the capacity
 * in 32 bits. */
uint8_t lbp_threshold_exponent(struct scsi_lu *lu);

/* The mode page's current values changed (or were loaded): take them.
 * Needs lu->lock. A descriptor that is (re)enabled is armed. */
void lbp_threshold_configure_locked(struct scsi_lu *lu, const uint8_t *page);

/* A command that may change the mapping resources completed: evaluate
 * the thresholds if any is enabled and the last evaluation is older than
 * LBP_THRESHOLD_CHECK_NS. Cheap when none is enabled. */
void lbp_threshold_note_write(struct scsi_lu *lu, uint64_t now_ns);

/* Evaluate now (needs a back-store with space(); nothing otherwise). */
void lbp_threshold_evaluate(struct scsi_lu *lu);

/* SITUA: the unit attention, once reported on one I_T nexus, is cleared
 * for all. Needs lu->lock. */
bool lbp_threshold_situa_locked(struct scsi_lu *lu);

#endif
