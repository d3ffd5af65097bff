/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lbp_threshold.c: logical block provisioning soft thresholds (SBC-4
 * 4.7.3.8) of a thin logical unit.
 *
 * Configuration: the Logical Block Provisioning mode page (1Ch subpage
 * 02h, SBC-4 6.5.7), kept with the other mode pages by mode.c (MODE SELECT,
 * saved values); mode.c hands every new current image to
 *   lbp_threshold_configure_locked().
 *   byte 0  PS | SPF | 1Ch     1  02h     2..3  PAGE LENGTH
 *        4  bit 0 SITUA (single initiator threshold unit attention)
 *       16  threshold descriptors, 8 bytes each:
 *           0  bit 7 ENABLED, bits 5..3 THRESHOLD TYPE (000b soft),
 *              bits 2..0 THRESHOLD ARMING (000b decreasing, 001b increasing)
 *           1  THRESHOLD RESOURCE     2..3 reserved     4..7 THRESHOLD COUNT
 * One descriptor per resource the target can measure: 01h available LBA
 * mapping resources (the free space under the back-store, at most what the
 * LU can still allocate) and 02h used LBA mapping resources (the blocks the
 * LU holds). Changeable: SITUA, ENABLED, the low bit of ARMING, COUNT;
 * THRESHOLD TYPE stays 000b (soft) and ARMING's reserved values cannot be
 * set, since MODE SELECT refuses bits outside the changeable mask.
 * Counts are in threshold sets of 2^THRESHOLD EXPONENT logical blocks (VPD
 * B2h, the same unit as the log page 0Ch counts, log.c).
 *
 * Why the mode page and not LOG SELECT of page 0Ch: SBC-4 defines the
 * threshold descriptors in this mode page; the log page only reports the
 * resource counts. FreeBSD's CTL does the same.
 *
 * Notification: an armed decreasing threshold is reached when the resource
 * count falls below THRESHOLD COUNT, an armed increasing one when it rises
 * above it. The device server then establishes THIN PROVISIONING SOFT
 * THRESHOLD REACHED (38h/07h) for every I_T nexus of the LU; with SITUA=1
 * the first report of it clears it for all (ua.c: ua_report). A reached
 * threshold is re-armed when the count returns to its side of COUNT, so
 * crossing again notifies again; enabling a descriptor arms it (a threshold
 * already passed notifies at the next evaluation).
 *
 * Evaluation: the resource counts come from the back-store (bs_ops.space:
 * for a file, fstat and fstatvfs), so they are read after commands that can
 * change them (CDB_F_WRITES: WRITE, UNMAP, WRITE SAME, ...) complete, at
 * most once per LBP_THRESHOLD_CHECK_NS per LU, and only while a descriptor
 * is enabled: the write path pays one relaxed load otherwise. The first
 * write after MODE SELECT evaluates at once. Space taken by other files of
 * a shared file system is seen at the LU's next write, not before. */
#include "scsi/lbp_threshold.h"

#include <string.h>

#include "lib/endian.h"
#include "scsi/bs.h"
#include "scsi/core.h"
#include "scsi/ua.h"

enum {
	RES_AVAILABLE = 0x01,
	D_ENABLED = 0x80,
	D_ARMING_INC = 0x01,
	SITUA = 0x01,
};

bool lbp_threshold_supported(struct scsi_lu *lu)
{
	struct lbp_threshold_state *t = &lu->core->lbp_thr;
	uint64_t used, avail;
	bool shared;

	/* MODE SENSE, VPD B2h and the log pages ask on every command; a
	 * file's space() is fstat + fstatvfs: once it answered, the answer
	 * is kept (a failure is asked again: it may be passing) */
	if (atomic_load_explicit(&t->space_ok, memory_order_relaxed))
		return true;
	if (!lu->attrs.thin || !lu->bs->ops->space ||
	    lu->bs->ops->space(lu->bs, &used, &avail, &shared) != 0)
		return false;
	atomic_store_explicit(&t->space_ok, true, memory_order_relaxed);
	return true;
}

uint8_t lbp_threshold_exponent(struct scsi_lu *lu)
{
	uint64_t n = lu_nblocks(lu);
	uint8_t e;

	if (!lbp_threshold_supported(lu))
		return 0; /* SBC-4 6.6.6: no thresholds */
	/* threshold sets of 1 MiB, more when 2^32 of them are not enough */
	e = lu->block_shift < 20 ? (uint8_t)(20 - lu->block_shift) : 1;
	while ((n >> e) > 0xffffffffull)
		e++;
	return e;
}

void lbp_threshold_configure_locked(struct scsi_lu *lu, const uint8_t *page)
{
	struct lbp_threshold_state *t = &lu->core->lbp_thr;
	bool any = false;

	t->situa = page[4] & SITUA;
	for (unsigned i = 0; i < LBP_THRESHOLD_DESCS; i++) {
		const uint8_t *d = page + 16 + 8 * i;
		struct lbp_threshold_desc *x = &t->d[i];
		bool enabled = d[0] & D_ENABLED;
		bool increasing = d[0] & D_ARMING_INC;
		uint32_t count = get_be32(d + 4);

		/* a changed descriptor is armed again */
		if (enabled != x->enabled || increasing != x->increasing || count != x->count)
			x->reached = false;
		x->enabled = enabled;
		x->increasing = increasing;
		x->resource = d[1];
		x->count = count;
		any |= enabled;
	}
	atomic_store_explicit(&t->next_check_ns, 0, memory_order_relaxed);
	atomic_store_explicit(&t->enabled, any, memory_order_release);
}

bool lbp_threshold_situa_locked(struct scsi_lu *lu)
{
	return lu->core->lbp_thr.situa;
}

static uint64_t sets(uint64_t bytes, uint32_t shift)
{
	return shift >= 64 ? 0 : bytes >> shift;
}

void lbp_threshold_evaluate(struct scsi_lu *lu)
{
	struct lbp_threshold_state *t = &lu->core->lbp_thr;
	uint64_t used, avail, v;
	uint32_t shift;
	bool shared, notify = false;

	if (!lu->attrs.thin || !lu->bs->ops->space ||
	    lu->bs->ops->space(lu->bs, &used, &avail, &shared) != 0)
		return;
	shift = lu->block_shift + lbp_threshold_exponent(lu);
	pthread_mutex_lock(&lu->lock);
	for (unsigned i = 0; i < LBP_THRESHOLD_DESCS; i++) {
		struct lbp_threshold_desc *x = &t->d[i];
		bool beyond;

		if (!x->enabled)
			continue;
		v = sets(x->resource == RES_AVAILABLE ? avail : used, shift);
		beyond = x->increasing ? v > x->count : v < x->count;
		if (beyond && !x->reached)
			notify = true;
		x->reached = beyond;
	}
	/* SBC-4 4.7.3.8: THIN PROVISIONING SOFT THRESHOLD REACHED */
	if (notify)
		ua_set_all_locked(lu, UA_THIN_PROV_SOFT_THRESHOLD, NULL);
	pthread_mutex_unlock(&lu->lock);
}

void lbp_threshold_note_write(struct scsi_lu *lu, uint64_t now_ns)
{
	struct lbp_threshold_state *t = &lu->core->lbp_thr;
	uint64_t next;

	if (!atomic_load_explicit(&t->enabled, memory_order_relaxed))
		return;
	next = atomic_load_explicit(&t->next_check_ns, memory_order_relaxed);
	if (now_ns < next)
		return;
	/* one evaluator per interval, whichever reactor gets here first */
	if (!atomic_compare_exchange_strong(&t->next_check_ns, &next,
					    now_ns + LBP_THRESHOLD_CHECK_NS))
		return;
	lbp_threshold_evaluate(lu);
}
