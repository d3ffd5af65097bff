/* SPDX-License-Identifier: GPL-2.0-or-later */
/* aen.c: asynchronous event reporting of unit attentions (SAM-5 5.14, "the
 * unit attention condition ... reported ... by asynchronous event
 * reporting"; iSCSI carries it as Asynchronous Message AsyncEvent 0 with
 * the sense data, RFC 7143 11.9).
 *
 * A fabric that reports events for a nexus asks the core, on the nexus'
 * reactor and as often as it likes (the iSCSI fabric every 100 ms), for
 * the next pending unit attention of the nexus. The condition is taken as
 * a command would take it (ua_report(): once, the reset class together,
 * SITUA's all-nexus clear), so a condition is reported exactly once:
 * either by the event or by the next command's CHECK CONDITION, never by
 * both. Only logical units the nexus has resolved carry conditions (a
 * record of the I_T nexus exists from its first command to the LU on), and
 * an event is reported only for an LU that its LUN still maps, with that
 * LUN. */
#include "scsi/core.h"
#include "scsi/lu.h"
#include "scsi/sense.h"
#include "scsi/ua.h"

/* Whether LUN idx of n's map is still lu (its cache entry is from an older
 * map generation: a LUN was added or removed since). */
static bool still_mapped(struct scsi_nexus *n, unsigned idx, struct scsi_lu *lu)
{
	struct scsi_lun_map *m = n->map;
	struct scsi_lu *now;
	bool ro;

	pthread_mutex_lock(&m->lock);
	now = lun_map_lookup_locked(m, idx, &ro);
	pthread_mutex_unlock(&m->lock);
	if (now)
		scsi_lu_put(now);
	return now == lu;
}

size_t scsi_nexus_take_event(struct scsi_nexus *n, uint64_t *lun, uint8_t *sense, size_t size)
{
	unsigned gen = atomic_load_explicit(&n->map->gen, memory_order_acquire);

	if (atomic_load(&n->lost))
		return 0;
	for (unsigned i = 0;; i++) {
		struct scsi_lu *lu = NULL;
		struct lu_itn *itn = NULL;
		bool fresh = false;
		enum sense_reason r;
		size_t len = 0;

		pthread_mutex_lock(&n->lock);
		for (; i < n->cache_n; i++) {
			struct nexus_lun *e = &n->cache[i];

			if (e->lu && e->itn && ua_pending(e->itn)) {
				lu = e->lu;
				itn = e->itn;
				fresh = e->gen == gen;
				scsi_lu_get(lu);
				break;
			}
		}
		pthread_mutex_unlock(&n->lock);
		if (!lu)
			return 0;
		if (fresh || still_mapped(n, i, lu)) {
			r = ua_report(lu, itn);
			if (r != SENSE_OK) {
				len = sense_build(sense, size, r, lu_d_sense(lu), NULL);
				*lun = lun_encode(i);
			}
		}
		scsi_lu_put(lu);
		if (len)
			return len;
	}
}
