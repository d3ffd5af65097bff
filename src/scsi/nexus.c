/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nexus.c: I_T nexuses (SAM-5 4.7): creation, the per-nexus cache of resolved
 * LUNs (the data path resolves a LUN without taking the map lock), I_T nexus
 * loss (SAM-5 6.3.4) and LUN lookups for handlers (EXTENDED COPY). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/ua.h"
#include "scsi/vpd.h"

#define TRANSPORT_ID_MAX 512u
#define LUN_CACHE_MAX	 16384u

struct scsi_nexus *scsi_nexus_create(struct scsi_tport *tp, struct scsi_lun_map *map,
				     const struct scsi_nexus_info *info)
{
	struct scsi_nexus *n;

	if (!tp || !map || !info || !info->initiator_name || !info->ops)
		return NULL;
	if (info->transport_id_len > TRANSPORT_ID_MAX)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->initiator_name = strdup(info->initiator_name);
	n->port_name =
	    strdup(info->initiator_port_name ? info->initiator_port_name : info->initiator_name);
	if (info->transport_id_len) {
		n->transport_id = malloc(info->transport_id_len);
		if (n->transport_id)
			memcpy(n->transport_id, info->transport_id, info->transport_id_len);
	}
	if (!n->initiator_name || !n->port_name || (info->transport_id_len && !n->transport_id)) {
		free(n->initiator_name);
		free(n->port_name);
		free(n->transport_id);
		free(n);
		return NULL;
	}
	n->transport_id_len = info->transport_id_len;
	n->tport = tp;
	n->ops = info->ops;
	n->fabric_priv = info->fabric_priv;
	n->target_reset = info->target_reset;
	n->query_tmfs = info->query_tmfs;
	pthread_mutex_init(&n->lock, NULL);
	scsi_lun_map_get(map);
	n->map = map;
	pthread_mutex_lock(&map->lock);
	list_add_tail(&map->nexuses, &n->map_node);
	pthread_mutex_unlock(&map->lock);
	return n;
}

void *scsi_nexus_fabric_priv(const struct scsi_nexus *n)
{
	return n->fabric_priv;
}

struct scsi_tport *scsi_nexus_tport(const struct scsi_nexus *n)
{
	return n->tport;
}

/* Is lu cached under another LUN than skip? (nexus->lock held) */
static bool cache_has_lu(const struct scsi_nexus *n, const struct scsi_lu *lu, unsigned skip)
{
	for (unsigned i = 0; i < n->cache_n; i++)
		if (i != skip && n->cache[i].lu == lu)
			return true;
	return false;
}

int nexus_resolve(struct scsi_nexus *n, uint64_t lun, struct scsi_lu **lup, struct lu_itn **itnp,
		  bool *read_only)
{
	struct scsi_lun_map *m = n->map;
	struct nexus_lun old = {0}, *e;
	struct scsi_lu *lu;
	struct lu_itn *itn = NULL;
	unsigned gen;
	bool ro = false;
	int64_t idx = lun_decode(lun);

	if (idx < 0)
		return -ENOENT;
	gen = atomic_load_explicit(&m->gen, memory_order_acquire);
	pthread_mutex_lock(&n->lock);
	if ((unsigned)idx < n->cache_n && n->cache[idx].gen == gen) {
		e = &n->cache[idx];
		if (!e->lu) {
			pthread_mutex_unlock(&n->lock);
			return -ENOENT;
		}
		scsi_lu_get(e->lu);
		*lup = e->lu;
		*itnp = e->itn;
		*read_only = e->read_only;
		pthread_mutex_unlock(&n->lock);
		return 0;
	}
	pthread_mutex_unlock(&n->lock);

	/* slow path: the map, then the LU's record of this I_T nexus */
	pthread_mutex_lock(&m->lock);
	gen = atomic_load(&m->gen);
	lu = lun_map_lookup_locked(m, (uint32_t)idx, &ro);
	pthread_mutex_unlock(&m->lock);
	if (lu) {
		pthread_mutex_lock(&lu->lock);
		itn = lu_itn_get_locked(lu, n->port_name, n->tport->rel_port_id);
		if (itn)
			itn->nexus = n;
		pthread_mutex_unlock(&lu->lock);
		if (!itn) {
			scsi_lu_put(lu);
			return -ENOMEM;
		}
	}

	pthread_mutex_lock(&n->lock);
	if ((unsigned)idx >= n->cache_n) {
		unsigned cap = n->cache_n ? n->cache_n : 8;
		struct nexus_lun *v;

		while (cap <= (unsigned)idx)
			cap *= 2;
		if (cap > LUN_CACHE_MAX)
			cap = LUN_CACHE_MAX;
		v = realloc(n->cache, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&n->lock);
			if (lu)
				scsi_lu_put(lu);
			return -ENOMEM;
		}
		memset(v + n->cache_n, 0, (cap - n->cache_n) * sizeof(*v));
		n->cache = v;
		n->cache_n = cap;
	}
	e = &n->cache[idx];
	old = *e;
	*e = (struct nexus_lun){.gen = gen, .read_only = ro, .lu = lu, .itn = itn};
	if (old.lu == lu || (old.lu && cache_has_lu(n, old.lu, (unsigned)idx)))
		old.itn = NULL; /* still in use through this or another LUN */
	if (lu)
		scsi_lu_get(lu);
	pthread_mutex_unlock(&n->lock);

	if (old.lu) {
		if (old.itn)
			lu_itn_detach(old.lu, old.itn, n);
		scsi_lu_put(old.lu);
	}
	if (!lu)
		return -ENOENT;
	*lup = lu;
	*itnp = itn;
	*read_only = ro;
	return 0;
}

struct scsi_lu *scsi_nexus_lu(struct scsi_nexus *n, uint64_t lun, bool *read_only)
{
	struct scsi_lu *lu;
	struct lu_itn *itn;
	bool ro;

	if (nexus_resolve(n, lun, &lu, &itn, &ro))
		return NULL;
	if (read_only)
		*read_only = ro;
	return lu;
}

struct desig_match {
	const uint8_t *desig;
	size_t len;
	bool found;
	uint32_t lun;
};

static void match_entry(const struct lun_entry *e, void *arg)
{
	struct desig_match *dm = arg;

	if (dm->found || !vpd_lu_designator_match(e->lu, dm->desig, dm->len))
		return;
	dm->found = true;
	dm->lun = e->lun;
}

int nexus_resolve_designator(struct scsi_nexus *n, const uint8_t *desig, size_t len,
			     struct scsi_lu **lup, struct lu_itn **itnp, bool *read_only)
{
	struct desig_match dm = {.desig = desig, .len = len};
	int rc;

	if (!desig)
		return -ENOENT;
	lun_map_for_each(n->map, match_entry, &dm);
	if (!dm.found)
		return -ENOENT;
	/* the LUN found, resolved as a command to it would be: the LU and
	 * this I_T nexus' record there */
	rc = nexus_resolve(n, lun_encode(dm.lun), lup, itnp, read_only);
	if (rc)
		return rc;
	if (!vpd_lu_designator_match(*lup, desig, len)) {
		/* the map changed in between */
		scsi_lu_put(*lup);
		return -ENOENT;
	}
	return 0;
}

struct scsi_lu *scsi_nexus_lu_by_designator(struct scsi_nexus *n, const uint8_t *desig, size_t len,
					    bool *read_only)
{
	struct scsi_lu *lu;
	struct lu_itn *itn;
	bool ro;

	if (nexus_resolve_designator(n, desig, len, &lu, &itn, &ro))
		return NULL;
	if (read_only)
		*read_only = ro;
	return lu;
}

/* SAM-5 6.3.4: I_T nexus loss. Tasks are aborted (their cmd_done arrive
 * with suppress_response), the nexus' SPC-2 reservations, PREVENT state and
 * ACA (SAM-5 5.9) are released, its echo buffers returned to the buffer pool (their data
 * was for this nexus alone, SPC-4 6.17.9), and I_T NEXUS LOSS OCCURRED
 * waits for the initiator port's next nexus. */
void scsi_nexus_loss(struct scsi_nexus *n)
{
	struct list_node ready;

	if (atomic_exchange(&n->lost, true))
		return;
	list_init(&ready);
	tmf_abort_nexus_tasks(n, NULL);
	pthread_mutex_lock(&n->lock);
	for (unsigned i = 0; i < n->cache_n; i++) {
		struct nexus_lun *e = &n->cache[i];
		struct scsi_lu *lu = e->lu;

		if (!lu || !e->itn)
			continue;
		pthread_mutex_lock(&lu->lock);
		ua_set(e->itn, UA_I_T_NEXUS_LOSS);
		resv_release_itn_locked(lu, e->itn);
		medium_prevent_clear_locked(lu, e->itn);
		buffer_itn_free(e->itn);
		aca_clear_itn_locked(lu, e->itn, &ready);
		pthread_mutex_unlock(&lu->lock);
	}
	pthread_mutex_unlock(&n->lock);
	order_post_ready(&ready);
}

void scsi_nexus_destroy(struct scsi_nexus *n)
{
	if (!n)
		return;
	/* the end of a nexus is an I_T nexus loss even when the fabric did
	 * not announce it (clean logout without tasks): reservations and
	 * PREVENT go, the initiator port's next nexus hears of it */
	scsi_nexus_loss(n);
	pthread_mutex_lock(&n->map->lock);
	list_del(&n->map_node);
	pthread_mutex_unlock(&n->map->lock);
	for (unsigned i = 0; i < n->cache_n; i++) {
		struct nexus_lun *e = &n->cache[i];

		if (!e->lu)
			continue;
		if (e->itn)
			lu_itn_detach(e->lu, e->itn, n);
		scsi_lu_put(e->lu);
	}
	free(n->cache);
	scsi_lun_map_put(n->map);
	pthread_mutex_destroy(&n->lock);
	free(n->initiator_name);
	free(n->port_name);
	free(n->transport_id);
	free(n);
}
