/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lu.c: logical units (the device server over one back-store): creation,
 * reference counting, resize, the per-I_T nexus records and the mode page
 * accessors the data path uses. */
#include "scsi/lu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/log.h"
#include "scsi/core.h"
#include "scsi/pr.h"
#include "scsi/sbc.h"
#include "scsi/ua.h"

static atomic_uint live_lus;

unsigned scsi_lu_count(void)
{
	return atomic_load(&live_lus);
}

static bool block_size_ok(uint32_t bs)
{
	return bs == 512 || bs == 1024 || bs == 2048 || bs == 4096;
}

int scsi_lu_create(const char *name, struct bs_dev *bs, const struct scsi_lu_attrs *attrs,
		   struct scsi_lu **out)
{
	struct scsi_lu *lu;
	int rc;

	if (!name || !bs || !attrs || !block_size_ok(attrs->block_size))
		return -EINVAL;
	lu = calloc(1, sizeof(*lu));
	if (!lu)
		return -ENOMEM;
	lu->core = calloc(1, sizeof(*lu->core));
	lu->name = strdup(name);
	if (!lu->core || !lu->name) {
		rc = -ENOMEM;
		goto fail;
	}
	lu->bs = bs;
	lu->attrs = *attrs;
	lu->attrs.vendor[sizeof(lu->attrs.vendor) - 1] = 0;
	lu->attrs.product[sizeof(lu->attrs.product) - 1] = 0;
	lu->attrs.revision[sizeof(lu->attrs.revision) - 1] = 0;
	lu->attrs.serial[sizeof(lu->attrs.serial) - 1] = 0;
	lu->block_size = attrs->block_size;
	lu->block_shift = (uint32_t)__builtin_ctz(attrs->block_size);
	atomic_init(&lu->nblocks, bs->size >> lu->block_shift);
	atomic_init(&lu->pi_type, (bs->caps & BS_CAP_PI) ? attrs->pi_type : 0);
	atomic_init(&lu->refs, 1);
	stats_set_init(&lu->core->stats, LU_ST_WORDS);
	pthread_mutex_init(&lu->lock, NULL);
	list_init(&lu->core->itns);
	order_init(&lu->core->order);
	mode_init(lu);
	rc = pr_lu_init(lu);
	if (rc) {
		pthread_mutex_destroy(&lu->lock);
		goto fail;
	}
	rc = sbc_lu_init(lu);
	if (rc) {
		pr_lu_fini(lu);
		pthread_mutex_destroy(&lu->lock);
		goto fail;
	}
	atomic_fetch_add(&live_lus, 1);
	*out = lu;
	return 0;
fail:
	/* the back-store stays the caller's on failure */
	free(lu->name);
	free(lu->core);
	free(lu);
	return rc;
}

void scsi_lu_get(struct scsi_lu *lu)
{
	atomic_fetch_add_explicit(&lu->refs, 1, memory_order_relaxed);
}

void scsi_lu_put(struct scsi_lu *lu)
{
	struct lu_itn *itn, *tmp;

	if (!lu || atomic_fetch_sub_explicit(&lu->refs, 1, memory_order_acq_rel) != 1)
		return;
	sbc_lu_fini(lu);
	pr_lu_fini(lu);
	mode_fini(lu);
	list_for_each_entry_safe(itn, tmp, &lu->core->itns, node)
	{
		buffer_itn_free(itn);
		free(itn->port_name);
		free(itn);
	}
	buffer_lu_free(lu);
	stats_set_fini(&lu->core->stats);
	if (lu->bs && lu->bs->ops && lu->bs->ops->close)
		lu->bs->ops->close(lu->bs);
	pthread_mutex_destroy(&lu->lock);
	free(lu->core);
	free(lu->name);
	free(lu);
	atomic_fetch_sub(&live_lus, 1);
}

const char *scsi_lu_name(const struct scsi_lu *lu)
{
	return lu->name;
}

int scsi_lu_resize(struct scsi_lu *lu, uint64_t new_size_bytes)
{
	int rc;

	if (new_size_bytes & (lu->block_size - 1))
		return -EINVAL;
	if (!lu->bs->ops->resize)
		return -EOPNOTSUPP;
	rc = lu->bs->ops->resize(lu->bs, new_size_bytes);
	if (rc)
		return rc;
	atomic_store(&lu->nblocks, new_size_bytes >> lu->block_shift);
	/* SBC-4 4.6: CAPACITY DATA HAS CHANGED to every I_T nexus */
	ua_set_all(lu, UA_CAPACITY_CHANGED, NULL);
	return 0;
}

/* SBC-4 4.6: a medium that changes size underneath (bs_ops.medium_size:
 * a block device grown or shrunk by its administrator) changes the
 * capacity the LU reports, with CAPACITY DATA HAS CHANGED to every I_T
 * nexus. Polled from command setup, before the unit attention check, so
 * the command that finds the change already reports it; one reader per
 * interval, whichever reactor gets here first. */
void lu_capacity_poll(struct scsi_lu *lu, uint64_t now_ns)
{
	_Atomic uint64_t *next_ns = &lu->core->capacity_poll_ns;
	uint64_t next = atomic_load_explicit(next_ns, memory_order_relaxed), bytes, nb;

	if (now_ns < next ||
	    !atomic_compare_exchange_strong(next_ns, &next, now_ns + LU_CAPACITY_POLL_NS))
		return;
	bytes = lu->bs->ops->medium_size(lu->bs);
	if (!bytes)
		return;
	nb = bytes >> lu->block_shift;
	if (nb == 0 || atomic_exchange(&lu->nblocks, nb) == nb)
		return;
	log_notice("lu %s: the medium now holds %llu blocks of %u bytes", lu->name,
		   (unsigned long long)nb, lu->block_size);
	ua_set_all(lu, UA_CAPACITY_CHANGED, NULL);
}

uint64_t scsi_lu_size(const struct scsi_lu *lu)
{
	return lu_nblocks(lu) << lu->block_shift;
}

size_t scsi_lu_medium_facts(struct scsi_lu *lu, struct bs_fact *f, size_t max)
{
	if (!lu->bs->ops->facts)
		return 0;
	return lu->bs->ops->facts(lu->bs, f, max);
}

int scsi_lu_medium_check(struct scsi_lu *lu, struct bs_fact *f, size_t max, size_t *n)
{
	*n = 0;
	if (!lu->bs->ops->check)
		return -EOPNOTSUPP;
	return lu->bs->ops->check(lu->bs, f, max, n);
}

struct lu_core_state *lu_core(struct scsi_lu *lu)
{
	return lu->core;
}

/* Drop the least recently used record that no live nexus uses. */
static void itn_evict_locked(struct scsi_lu *lu)
{
	struct lu_itn *itn, *victim = NULL;

	list_for_each_entry(itn, &lu->core->itns, node)
	{
		if (itn->nexus || itn->prevent || atomic_load(&lu->core->resv_holder) == itn ||
		    lu->core->aca.faulted == itn)
			continue;
		if (!victim || itn->last_used < victim->last_used)
			victim = itn;
	}
	if (!victim)
		return;
	list_del(&victim->node);
	lu->core->n_itns--;
	buffer_itn_free(victim);
	free(victim->port_name);
	free(victim);
}

struct lu_itn *lu_itn_get_locked(struct scsi_lu *lu, const char *port_name, uint16_t rel_port)
{
	struct lu_core_state *c = lu->core;
	struct lu_itn *itn;

	list_for_each_entry(itn, &c->itns, node)
	{
		if (itn->rel_port == rel_port && strcmp(itn->port_name, port_name) == 0) {
			itn->last_used = ++c->itn_clock;
			return itn;
		}
	}
	if (c->n_itns >= LU_MAX_ITNS)
		itn_evict_locked(lu);
	if (c->n_itns >= LU_MAX_ITNS)
		return NULL;
	itn = calloc(1, sizeof(*itn));
	if (!itn)
		return NULL;
	itn->port_name = strdup(port_name);
	if (!itn->port_name) {
		free(itn);
		return NULL;
	}
	itn->rel_port = rel_port;
	itn->last_used = ++c->itn_clock;
	/* SAM-5 5.14: a nexus the logical unit has not seen gets POWER ON */
	atomic_init(&itn->ua, 1u << UA_POWER_ON);
	list_add_tail(&c->itns, &itn->node);
	c->n_itns++;
	return itn;
}

void lu_itn_attach(struct scsi_lu *lu, struct lu_itn *itn, struct scsi_nexus *n)
{
	pthread_mutex_lock(&lu->lock);
	itn->nexus = n;
	pthread_mutex_unlock(&lu->lock);
}

void lu_itn_detach(struct scsi_lu *lu, struct lu_itn *itn, struct scsi_nexus *n)
{
	struct list_node ready;

	list_init(&ready);
	pthread_mutex_lock(&lu->lock);
	if (itn->nexus == n) {
		itn->nexus = NULL;
		/* the nexus no longer reaches the LU: its ACA (SAM-5 5.9)
		 * would hold the task set with nobody to clear it */
		aca_clear_itn_locked(lu, itn, &ready);
	}
	pthread_mutex_unlock(&lu->lock);
	order_post_ready(&ready);
}

bool lu_wce(struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->core->mode.wce, memory_order_relaxed);
}

bool lu_d_sense(struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->core->mode.d_sense, memory_order_relaxed);
}

bool lu_swp(struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->core->mode.swp, memory_order_relaxed);
}

bool lu_tas(struct scsi_lu *lu)
{
	return atomic_load_explicit(&lu->core->mode.tas, memory_order_relaxed);
}

bool lu_wp(struct scsi_lu *lu, bool map_read_only)
{
	return lu->attrs.read_only || (lu->bs->caps & BS_CAP_READ_ONLY) || lu_swp(lu) ||
	       map_read_only;
}

bool lu_write_protected(struct scsi_lu *lu, const struct scsi_cmd *cmd)
{
	return lu_wp(lu, cmd->priv.map_read_only);
}

char *lu_state_path(const struct scsi_lu *lu, const char *state_dir, const char *kind)
{
	char hex[2 * sizeof(lu->attrs.naa) + 1];
	char *path;

	for (unsigned i = 0; i < sizeof(lu->attrs.naa); i++)
		snprintf(hex + 2 * i, 3, "%02x", lu->attrs.naa[i]);
	if (asprintf(&path, "%s/%s-%s.state", state_dir, kind, hex) < 0)
		return NULL;
	if (afile_remove_stale(path))
		log_notice("lu %s: removed temporary files an interrupted write left beside %s",
			   lu->name, path);
	return path;
}

void scsi_lu_stats(struct scsi_lu *lu, struct scsi_lu_stats *out)
{
	uint64_t *w = malloc(LU_ST_WORDS * sizeof(*w));

	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	stats_set_sum(&lu->core->stats, w);
	out->cmds = w[LU_ST_CMDS];
	out->errors = w[LU_ST_ERRORS];
	out->aborted = w[LU_ST_ABORTED];
	out->busy = w[LU_ST_BUSY];
	out->read_bytes = w[LU_ST_READ_BYTES];
	out->write_bytes = w[LU_ST_WRITE_BYTES];
	/* the words are not of one instant: a completion may be summed
	 * without its start */
	out->in_flight = w[LU_ST_STARTED] > w[LU_ST_CMDS] ? w[LU_ST_STARTED] - w[LU_ST_CMDS] : 0;
	for (unsigned c = 0; c < SCSI_OP_CLASSES; c++) {
		const uint64_t *h = w + LU_ST_HIST + c * STATS_HIST_WORDS;

		out->op[c].cmds = w[LU_ST_CLASS_CMDS + c];
		memcpy(out->op[c].lat, h, sizeof(out->op[c].lat));
		out->op[c].lat_sum_ns = h[STATS_HIST_BUCKETS];
	}
	free(w);
}
