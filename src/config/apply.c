/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c: build the running objects from a verified config, all or
 * nothing, and the builders live.c reuses for changes while running.
 *
 * Order (each step may fail; cfg_runtime_destroy() undoes what was built):
 *   1. the ALUA port groups defined in the config (scsi/alua.h);
 *   2. the state directory (created when missing, mode 0700);
 *   3. per back-store: bs_open() then scsi_lu_create() (the LU owns the
 *      bs_dev from then on);
 *   4. per target: scsi_target_create(), its LUN map (the "luns"), the
 *      default map + demo flag, the ACLs with their own or the target's map;
 *      iscsi_target_add(), then per portal group iscsi_tpg_add() with its
 *      relative target port identifier and iscsi_tpg_portal_add() for each
 *      portal (or each --listen address).
 * Nothing is announced before every step has succeeded. The running objects
 * are keyed by name (runtime.h), so that live.c can change them one at a
 * time when the configuration changes (reload, the control API).
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backstore/backstore.h"
#include "backstore/fault.h"
#include "backstore/pi.h"
#include "config/auth_apply.h"
#include "config/config.h"
#include "config/fault.h"
#include "config/runtime.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/endian.h"
#include "lib/log.h"

/* Where back-store handlers are loaded from when plugin_dir is not set
 * (meson: -Dplugindir). */
#ifndef UT_PLUGIN_DIR
#define UT_PLUGIN_DIR "/usr/local/lib/utarget/backstores"
#endif
#include "scsi/alua.h"
#include "scsi/scsi.h"

int cfg_rt_err(struct cfg_err *err, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = cfg_err_vset(err, rc, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

void cfg_rt_path(struct cfg_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->path, sizeof(err->path), fmt, ap);
	va_end(ap);
}

/* The config's "iscsi" section as the fabric's settings: the config owns
 * its own struct (model.h) so that its file side needs nothing of the
 * fabric; this is the one place where the two meet. Every member of one is
 * a member of the other, with the same name and type. */
static_assert(sizeof(struct cfg_iscsi_settings) == sizeof(struct iscsi_settings),
	      "a member added to one settings struct is missing from the other");
static void cfg_iscsi_to_fabric(const struct cfg_iscsi_settings *in, struct iscsi_settings *out)
{
	*out = (struct iscsi_settings){
	    .max_recv_data_segment_length = in->max_recv_data_segment_length,
	    .max_burst_length = in->max_burst_length,
	    .first_burst_length = in->first_burst_length,
	    .initial_r2t = in->initial_r2t,
	    .immediate_data = in->immediate_data,
	    .max_outstanding_r2t = in->max_outstanding_r2t,
	    .max_connections = in->max_connections,
	    .header_digest = in->header_digest,
	    .data_digest = in->data_digest,
	    .default_time2wait = in->default_time2wait,
	    .default_time2retain = in->default_time2retain,
	    .nop_in_interval_s = in->nop_in_interval_s,
	    .nop_in_timeout_s = in->nop_in_timeout_s,
	    .login_timeout_s = in->login_timeout_s,
	    .max_sessions = in->max_sessions,
	    .max_logins_in_progress = in->max_logins_in_progress,
	    .max_logins_per_address = in->max_logins_per_address,
	    .max_discovery_sessions = in->max_discovery_sessions,
	    .max_discovery_sessions_per_address = in->max_discovery_sessions_per_address,
	    .queue_depth = in->queue_depth,
	    .max_buffer_memory_mib = in->max_buffer_memory_mib,
	    .max_session_data_mib = in->max_session_data_mib,
	    .max_connection_data_mib = in->max_connection_data_mib,
	    .session_reserve_kib = in->session_reserve_kib,
	    .max_session_send_queue_mib = in->max_session_send_queue_mib,
	    .max_connection_send_queue_mib = in->max_connection_send_queue_mib,
	    .data_out_timeout_s = in->data_out_timeout_s,
	    .error_recovery_level = in->error_recovery_level,
	    .busy_poll_us = in->busy_poll_us,
	    .socket_uring = in->socket_uring,
	    .spread_connections = in->spread_connections,
	};
}

int cfg_apply_iscsi_settings(const struct cfg *c)
{
	struct iscsi_settings s;

	cfg_iscsi_to_fabric(&c->iscsi, &s);
	return iscsi_init(&s);
}

int cfg_apply_isns(const struct cfg *c)
{
	struct iscsi_isns_config ic = {0};
	const struct cfg_isns *i = c->isns;
	int rc;

	if (i && i->enabled && i->server &&
	    !cfg_isns_server_parse(i->server, ic.host, sizeof(ic.host), &ic.port)) {
		ic.enabled = true;
		snprintf(ic.entity, sizeof(ic.entity), "%s", i->entity ? i->entity : "");
		ic.esi_port = i->esi_port;
		ic.access_control = i->access_control;
	}
	rc = iscsi_isns_configure(&ic);
	if (rc)
		log_err("config: isns: %s", strerror(-rc));
	return rc;
}

static int cfg_make_state_dir(const struct cfg *c, struct cfg_err *err)
{
	char dir[CFG_FULL_PATH_MAX];
	struct stat st;
	int rc;

	cfg_rt_path(err, "state_dir");
	rc = cfg_state_dir_path(c, dir, sizeof(dir));
	if (rc)
		return cfg_rt_err(err, rc, "path too long");
	if (c->state_dir && stat(dir, &st) != 0) {
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return cfg_rt_err(err, -errno, "cannot create %s: %s", dir,
					  strerror(errno));
		log_notice("created state directory %s", dir);
	}
	/* found or created: utargetd's alone, else no start */
	return cfg_check_state_dir(c, false, err);
}

/* "fault": put the fault-injection wrapper over *dev (closed on failure). */
static int cfg_fault_wrap(const struct cfg_backstore *b, struct bs_dev **dev, struct cfg_err *err)
{
	const struct cfg_fault *f = b->fault;
	const struct bs_fault_params fp = {
	    .read_error_lbas = f->read_error_lbas,
	    .nread = f->nread,
	    .write_error_lbas = f->write_error_lbas,
	    .nwrite = f->nwrite,
	    .flush_error = f->flush_error,
	    .error_rate_ppm = f->error_rate_ppm,
	    .error = f->error,
	    .delay_us = f->delay_us,
	    .delay_jitter_us = f->delay_jitter_us,
	    .seed = f->seed,
	    .block_size = b->block_size,
	};
	struct bs_dev *w;
	int rc = bs_fault_wrap(*dev, &fp, &w);

	if (rc) {
		bs_close(*dev);
		*dev = NULL;
		return cfg_rt_err(err, rc, "cannot set up fault injection on \"%s\": %s", b->name,
				  strerror(-rc));
	}
	*dev = w;
	return 0;
}

/* SBC-4 4.22: the tuple store of a back-store with protection information
 * (file: PATH.pi beside the data file, created sparse, whose zeroes are
 * escape tuples; ram: memory), and the wrapper over both. */
static int cfg_pi_wrap(const struct cfg_backstore *b, const char *data_path, struct bs_dev **dev,
		       struct cfg_err *err)
{
	uint64_t tsize = ((*dev)->size / b->block_size) * T10PI_TUPLE_LEN;
	char path[CFG_FULL_PATH_MAX + 4];
	struct bs_params p = {
	    .type = b->type,
	    .name = b->name,
	    .create = true,
	    .readonly = b->read_only,
	    .block_size = 512,
	};
	struct bs_dev *tuples, *w;
	int rc;

	/* the tuple store's size in whole 512-byte blocks */
	p.size = (tsize + 511) / 512 * 512;
	if (data_path) {
		if ((size_t)snprintf(path, sizeof(path), "%s.pi", data_path) >= sizeof(path))
			return cfg_rt_err(err, -ENAMETOOLONG, "path too long");
		p.path = path;
	}
	rc = bs_open(&p, &tuples);
	if (rc)
		return cfg_rt_err(
		    err, rc, "cannot open the protection information of \"%s\"%s%s: %s", b->name,
		    data_path ? " at " : "", data_path ? path : "", strerror(-rc));
	rc = bs_pi_wrap(*dev, tuples, (enum t10pi_type)b->protection, b->block_size, &w);
	if (rc) {
		bs_close(tuples);
		return cfg_rt_err(err, rc, "cannot set up the protection information of \"%s\"",
				  b->name);
	}
	*dev = w;
	return 0;
}

/* An LU's state files in the state directory, loaded in this order once it
 * is created:
 *  - SPC-4 5.13.5 APTPL: persistent reservations (they may fence a node);
 *  - SPC-4 7.5.1: saved mode pages (a saved SWP write protects the LU);
 *  - SBC-4 5.3: the protection type FORMAT UNIT chose (the tuples on the
 *    medium are of that type). */
static const struct {
	int (*load)(struct scsi_lu *lu, const char *state_dir);
	const char *what;
} lu_stores[] = {
    {scsi_lu_pr_store, "persistent reservation state"},
    {scsi_lu_mode_store, "saved mode pages"},
    {scsi_lu_pi_format_store, "format state"},
};

/* The LU's block size over a medium with one of its own (bs_dev.lbs): the
 * configured one must be a multiple of it, an absent one is the medium's. */
static int cfg_lu_block_size(const struct cfg_backstore *b, const struct bs_dev *dev, uint32_t *out,
			     struct cfg_err *err)
{
	uint32_t bsz = b->block_size ? b->block_size : (dev->lbs ? dev->lbs : 512);

	/* the CDBs that pass through count in the device's blocks */
	if ((dev->caps & BS_CAP_PASSTHROUGH) && bsz != dev->lbs)
		return cfg_rt_err(err, -EINVAL,
				  "block_size %u of \"%s\" is not the %u-byte logical blocks of "
				  "its SCSI device (commands pass through)",
				  bsz, b->name, dev->lbs);
	if (dev->lbs && bsz % dev->lbs)
		return cfg_rt_err(err, -EINVAL,
				  "block_size %u of \"%s\" is not a multiple of the %u-byte "
				  "logical blocks of its medium",
				  bsz, b->name, dev->lbs);
	if (bsz != 512 && bsz != 1024 && bsz != 2048 && bsz != 4096)
		return cfg_rt_err(err, -EINVAL,
				  "the medium of \"%s\" has %u-byte logical blocks (an LU takes "
				  "512, 1024, 2048 or 4096)",
				  b->name, bsz);
	*out = bsz;
	return 0;
}

int cfg_rt_open_lu(const struct cfg *c, const struct cfg_backstore *cb, size_t i,
		   struct scsi_lu **out, struct cfg_err *err)
{
	char path[CFG_FULL_PATH_MAX], state[CFG_FULL_PATH_MAX], plugins[CFG_FULL_PATH_MAX];
	struct bs_option opts[CFG_BS_OPTIONS_MAX];
	struct cfg_backstore eff = *cb, *b = &eff; /* block_size: the effective one */
	const char *what = lu_stores[0].what;
	struct scsi_lu_attrs attrs = {
	    .physical_block_size = b->physical_block_size,
	    .pr_max_registrations = b->pr_max_registrations,
	    .read_only = b->read_only,
	    .removable = b->removable,
	    .thin = b->thin,
	    .write_cache = b->write_cache,
	};
	struct bs_params p = {
	    .type = b->type,
	    .name = b->name,
	    .path = NULL,
	    .size = b->size,
	    .create = b->create,
	    .readonly = b->read_only,
	    .block_size = b->block_size,
	    .url = b->url,
	    .handler = b->handler,
	    .options = opts,
	    .noptions = b->noptions,
	};
	struct bs_dev *dev = NULL;
	int rc;

	for (size_t k = 0; k < b->noptions && k < CFG_BS_OPTIONS_MAX; k++)
		opts[k] =
		    (struct bs_option){.key = b->options[k].key, .value = b->options[k].value};
	if (b->handler) {
		rc = cfg_plugin_dir_path(c, UT_PLUGIN_DIR, plugins, sizeof(plugins));
		if (rc)
			return cfg_rt_err(err, rc, "plugin_dir too long");
		p.plugin_dir = plugins;
	}

	cfg_rt_path(err, "backstores[%zu]", i);
	if (b->path) {
		cfg_rt_path(err, "backstores[%zu].path", i);
		rc = cfg_bs_path(c, b, path, sizeof(path));
		if (rc)
			return cfg_rt_err(err, rc, "path too long");
		p.path = path;
	}
	rc = bs_open(&p, &dev);
	if (rc)
		return cfg_rt_err(err, rc, "cannot open %s back-store \"%s\"%s%s: %s", b->type,
				  b->name, p.path ? " at " : "", p.path ? p.path : "",
				  strerror(-rc));
	rc = cfg_lu_block_size(cb, dev, &eff.block_size, err);
	if (rc) {
		bs_close(dev);
		return rc;
	}
	attrs.block_size = b->block_size;
	if (!attrs.physical_block_size && dev->pbs > b->block_size)
		attrs.physical_block_size = dev->pbs;
	if (dev->size < b->block_size) {
		bs_close(dev);
		return cfg_rt_err(err, -EINVAL,
				  "back-store \"%s\" is smaller than one block (%u bytes)", b->name,
				  b->block_size);
	}
	if (b->fault && (rc = cfg_fault_wrap(b, &dev, err)))
		return rc;
	if (b->protection && (rc = cfg_pi_wrap(b, p.path, &dev, err))) {
		bs_close(dev);
		return rc;
	}
	attrs.pi_type = b->protection;
	if (b->thin && !(dev->caps & BS_CAP_DISCARD)) {
		/* SBC-4 4.7: no thin provisioning without deallocation */
		log_warn("back-store %s: the file system cannot deallocate (no hole punching); "
			 "exported fully provisioned",
			 b->name);
		attrs.thin = false;
	}
	if (b->read_only || (dev->caps & BS_CAP_READ_ONLY))
		attrs.read_only = true;
	cfg_default_identity(b, attrs.vendor, attrs.product, attrs.revision, attrs.serial,
			     attrs.naa);
	rc = scsi_lu_create(b->name, dev, &attrs, out);
	if (rc) {
		bs_close(dev);
		return cfg_rt_err(err, rc, "cannot create the logical unit of \"%s\": %s", b->name,
				  strerror(-rc));
	}
	/* the LU's state files; a corrupt one stops the start (never applied
	 * in part, never silently dropped) */
	rc = cfg_state_dir_path(c, state, sizeof(state));
	for (size_t k = 0; !rc && k < ARRAY_SIZE(lu_stores); k++) {
		rc = lu_stores[k].load(*out, state);
		what = lu_stores[k].what;
	}
	if (rc) {
		scsi_lu_put(*out);
		*out = NULL;
		cfg_rt_path(err, "backstores[%zu]", i);
		return cfg_rt_err(err, rc, "%s of \"%s\": %s", what, b->name,
				  rc == -EBADMSG ? "the state file is corrupt (see the log)"
						 : strerror(-rc));
	}
	log_info("back-store %s: %s%s%s, %llu bytes, %u-byte blocks%s%s%s", b->name, b->type,
		 p.path ? " " : "", p.path ? p.path : "", (unsigned long long)dev->size,
		 b->block_size, attrs.thin ? ", thin" : "", attrs.read_only ? ", read-only" : "",
		 attrs.removable ? ", removable" : "");
	return 0;
}

struct scsi_lu *cfg_rt_lu(const struct cfg_runtime *rt, const char *name)
{
	uintptr_t v;

	if (!hmap_get(&rt->lus, name, strlen(name), &v))
		return NULL;
	return (struct scsi_lu *)v;
}

struct cfg_rt_target *cfg_rt_target(const struct cfg_runtime *rt, const char *name)
{
	uintptr_t v;

	if (!hmap_get(&rt->targets, name, strlen(name), &v))
		return NULL;
	return (struct cfg_rt_target *)v;
}

int cfg_rt_build_map(const struct cfg_runtime *rt, const struct cfg_lun_list *l, bool force_ro,
		     const char *base, struct scsi_lun_map **out, struct cfg_err *err)
{
	struct scsi_lun_map *m = scsi_lun_map_create();
	int rc;

	if (!m) {
		cfg_rt_path(err, "%s", base);
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < l->n; i++) {
		struct scsi_lu *lu = cfg_rt_lu(rt, l->v[i].backstore);
		cfg_rt_path(err, "%s[%zu]", base, i);
		if (!lu) {
			scsi_lun_map_put(m);
			return cfg_rt_err(err, -ENOENT, "no back-store named \"%s\"",
					  l->v[i].backstore);
		}
		rc = scsi_lun_map_add(m, l->v[i].lun, lu, force_ro || l->v[i].read_only);
		if (rc) {
			scsi_lun_map_put(m);
			return cfg_rt_err(err, rc, "cannot map LUN %u: %s", l->v[i].lun,
					  strerror(-rc));
		}
	}
	*out = m;
	return 0;
}

static void cfg_rt_add_portal(struct cfg_runtime *rt, const char *addr)
{
	char **np;

	for (size_t i = 0; i < rt->nportals; i++)
		if (strcmp(rt->portals[i], addr) == 0)
			return;
	np = realloc(rt->portals, (rt->nportals + 1) * sizeof(*np));
	if (!np)
		return; /* the summary line only */
	rt->portals = np;
	np[rt->nportals] = strdup(addr);
	if (np[rt->nportals])
		rt->nportals++;
}

void cfg_rt_portals(const struct cfg_runtime *rt, const struct cfg_portal_group *g,
		    const char *const **addrs, size_t *n)
{
	if (rt->nlisten) {
		*addrs = (const char *const *)rt->listen;
		*n = rt->nlisten;
	} else {
		*addrs = (const char *const *)g->portals;
		*n = g->nportals;
	}
}

int cfg_rt_group_id(const struct cfg *c, size_t ti, size_t gi, uint16_t *out)
{
	size_t n = cfg_count_portal_groups(c), k = 0;
	uint16_t *ids = calloc(n ? n : 1, sizeof(*ids));
	int rc;

	if (!ids)
		return -ENOMEM;
	rc = cfg_assign_group_ids(c, ids, n);
	for (size_t i = 0; i < ti; i++)
		k += c->targets[i].ntpgs;
	if (!rc)
		*out = ids[k + gi];
	free(ids);
	return rc;
}

/* The fabric's form of a "redirect" (NULL: none). */
static void rt_redirect(const struct cfg_redirect *r, struct iscsi_redirect *out)
{
	*out = (struct iscsi_redirect){0};
	if (!r)
		return;
	if (r->balance) {
		out->mode = ISCSI_REDIRECT_BALANCE;
		return;
	}
	out->mode = r->permanent ? ISCSI_REDIRECT_PERMANENT : ISCSI_REDIRECT_TEMPORARY;
	snprintf(out->address, sizeof(out->address), "%s", r->address ? r->address : "");
}

void cfg_rt_set_target_redirect(struct iscsi_target *it, const struct cfg_redirect *r)
{
	struct iscsi_redirect v;

	rt_redirect(r, &v);
	iscsi_target_set_redirect(it, &v);
}

void cfg_rt_set_tpg_redirect(struct iscsi_tpg *tpg, const struct cfg_redirect *r)
{
	struct iscsi_redirect v;

	rt_redirect(r, &v);
	iscsi_tpg_set_redirect(tpg, &v);
}

int cfg_rt_build_tpg(const struct cfg *c, size_t ti, size_t gi, struct cfg_runtime *rt,
		     struct cfg_rt_target *rtt, struct cfg_err *err)
{
	const struct cfg_portal_group *pg = &c->targets[ti].tpgs[gi];
	const char *const *addrs;
	struct iscsi_tpg *tpg;
	uint16_t gid = 0;
	uint8_t key[2];
	size_t naddrs;
	int rc;

	cfg_rt_path(err, "targets[%zu].portal_groups[%zu]", ti, gi);
	rc = cfg_rt_group_id(c, ti, gi, &gid);
	if (rc)
		return cfg_rt_err(err, rc, "cannot assign the target port group identifier");
	tpg = iscsi_tpg_add(rtt->it, pg->tag, pg->rel_port_id, gid);
	if (!tpg)
		return cfg_rt_err(err, -ENOMEM, "cannot create portal group %u", pg->tag);
	cfg_rt_set_tpg_redirect(tpg, pg->redirect);
	put_be16(key, pg->tag);
	if (hmap_put(&rtt->tpgs, key, sizeof(key), (uintptr_t)tpg)) {
		iscsi_tpg_del(tpg);
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	cfg_rt_portals(rt, pg, &addrs, &naddrs);
	for (size_t p = 0; p < naddrs; p++) {
		if (rt->nlisten)
			cfg_rt_path(err, "--listen %s", addrs[p]);
		else
			cfg_rt_path(err, "targets[%zu].portal_groups[%zu].portals[%zu]", ti, gi, p);
		rc = iscsi_tpg_portal_add(tpg, addrs[p]);
		if (rc && rt->nlisten)
			return cfg_rt_err(err, rc, "cannot listen: %s", strerror(-rc));
		if (rc)
			return cfg_rt_err(err, rc, "cannot listen on %s: %s", addrs[p],
					  strerror(-rc));
		cfg_rt_add_portal(rt, addrs[p]);
	}
	return 0;
}

void cfg_rt_target_destroy(struct cfg_rt_target *rtt)
{
	size_t pos = 0, klen;
	const void *key;
	uintptr_t v;

	if (!rtt)
		return;
	/* iSCSI first: listeners closed, sessions gone, no new commands */
	if (rtt->it)
		iscsi_target_del(rtt->it);
	if (rtt->st)
		scsi_target_destroy(rtt->st);
	while (hmap_next(&rtt->acls, &pos, &key, &klen, &v))
		if (v)
			scsi_lun_map_put((struct scsi_lun_map *)v);
	hmap_clear(&rtt->acls);
	hmap_clear(&rtt->tpgs);
	if (rtt->demo_map)
		scsi_lun_map_put(rtt->demo_map);
	if (rtt->map)
		scsi_lun_map_put(rtt->map);
	free(rtt->name);
	free(rtt);
}

int cfg_rt_build_target(const struct cfg *c, size_t ti, struct cfg_runtime *rt,
			struct cfg_rt_target **out, struct cfg_err *err)
{
	const struct cfg_target *t = &c->targets[ti];
	struct cfg_rt_target *rtt = calloc(1, sizeof(*rtt));
	char base[CFG_ERR_PATH_MAX];
	int rc;

	*out = NULL;
	cfg_rt_path(err, "targets[%zu].name", ti);
	if (!rtt || !(rtt->name = strdup(t->name))) {
		free(rtt);
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	rtt->acls = (struct hmap)HMAP_INIT;
	rtt->tpgs = (struct hmap)HMAP_INIT;
	rtt->st = scsi_target_create(t->name);
	if (!rtt->st) {
		rc = cfg_rt_err(err, -ENOMEM, "cannot create target");
		goto fail;
	}

	snprintf(base, sizeof(base), "targets[%zu].luns", ti);
	rc = cfg_rt_build_map(rt, &t->luns, false, base, &rtt->map, err);
	if (rc)
		goto fail;
	if (t->demo && t->demo_read_only) {
		rc = cfg_rt_build_map(rt, &t->luns, true, base, &rtt->demo_map, err);
		if (rc)
			goto fail;
	}
	/* deny by default: without demo mode the default map admits nobody */
	scsi_target_set_default_map(rtt->st, rtt->demo_map ? rtt->demo_map : rtt->map, t->demo);

	for (size_t a = 0; a < t->nacls; a++) {
		const struct cfg_acl *acl = &t->acls[a];
		struct scsi_lun_map *own = NULL;

		if (!acl->initiator)
			continue; /* by address only: a fabric rule (auth_apply.c) */
		if (acl->has_luns) {
			snprintf(base, sizeof(base), "targets[%zu].acls[%zu].luns", ti, a);
			rc = cfg_rt_build_map(rt, &acl->luns, false, base, &own, err);
			if (rc)
				goto fail;
		}
		cfg_rt_path(err, "targets[%zu].acls[%zu].initiator", ti, a);
		rc = hmap_put(&rtt->acls, acl->initiator, strlen(acl->initiator), (uintptr_t)own);
		if (rc) {
			scsi_lun_map_put(own);
			rc = cfg_rt_err(err, rc, "out of memory");
			goto fail;
		}
		rc = scsi_target_acl_set(rtt->st, acl->initiator, own ? own : rtt->map);
		if (rc) {
			rc = cfg_rt_err(err, rc, "cannot add the ACL: %s", strerror(-rc));
			goto fail;
		}
	}

	cfg_rt_path(err, "targets[%zu]", ti);
	rtt->it = iscsi_target_add(rtt->st, t->alias);
	if (!rtt->it) {
		rc = cfg_rt_err(err, -ENOMEM, "cannot create the iSCSI target");
		goto fail;
	}
	/* address ACLs, CHAP, limits: before any portal listens */
	cfg_rt_set_target_redirect(rtt->it, t->redirect);
	iscsi_target_set_async_events(rtt->it, t->async_events);
	rc = cfg_auth_apply_target(rt, t, ti, rtt->map, rtt->it, err);
	if (rc)
		goto fail;
	for (size_t g = 0; g < t->ntpgs; g++) {
		rc = cfg_rt_build_tpg(c, ti, g, rt, rtt, err);
		if (rc)
			goto fail;
	}
	log_info("target %s: %zu LUN(s), %zu portal group(s), %zu ACL(s)%s", t->name, t->luns.n,
		 t->ntpgs, t->nacls,
		 t->demo ? (t->demo_read_only ? ", demo mode (any initiator, read-only)"
					      : ", demo mode (any initiator, read-write)")
			 : "");
	*out = rtt;
	return 0;
fail:
	cfg_rt_target_destroy(rtt);
	return rc;
}

int cfg_rt_define_group(const struct cfg_port_group *g, size_t i, struct cfg_err *err)
{
	struct scsi_alua_group_attrs a = {
	    .name = g->name,
	    .state = g->state,
	    .preferred = g->preferred,
	    .explicit_ok = g->explicit_ok,
	    .transition_ms = g->transition_ms,
	};
	int rc;

	cfg_rt_path(err, "port_groups[%zu]", i);
	rc = scsi_alua_group_define(g->id, &a);
	if (rc)
		return cfg_rt_err(err, rc, "cannot define port group %u: %s", g->id, strerror(-rc));
	return 0;
}

int cfg_rt_group_states(const struct cfg_port_group *g, size_t i, struct cfg_err *err)
{
	for (size_t j = 0; j < g->nlus; j++) {
		int rc;

		cfg_rt_path(err, "port_groups[%zu].lu_states[%zu]", i, j);
		rc = scsi_alua_set_state(g->id, g->lus[j].backstore, g->lus[j].state);
		if (rc)
			return cfg_rt_err(err, rc, "cannot set the state of \"%s\": %s",
					  g->lus[j].backstore, strerror(-rc));
	}
	return 0;
}

/* ALUA target port groups (SPC-4 5.15): define the configured ones in the
 * core before any port joins them; the others come into being with their
 * first port (scsi/alua.h). */
static int cfg_define_port_groups(const struct cfg *c, struct cfg_runtime *rt, struct cfg_err *err)
{
	rt->pg_defs = calloc(c->npgs ? c->npgs : 1, sizeof(*rt->pg_defs));
	if (!rt->pg_defs)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->npgs; i++) {
		const struct cfg_port_group *g = &c->pgs[i];
		int rc = cfg_rt_define_group(g, i, err);

		if (rc)
			return rc;
		rt->pg_defs[rt->npg_defs++] = g->id; /* undefined at teardown */
		rc = cfg_rt_group_states(g, i, err);
		if (rc)
			return rc;
		log_info("port group %u%s%s%s: %s%s%s, %zu member(s), %zu LU state(s)", g->id,
			 g->name ? " (" : "", g->name ? g->name : "", g->name ? ")" : "",
			 cfg_pg_state_name(g->state), g->preferred ? ", preferred" : "",
			 g->explicit_ok ? ", explicit" : "", g->nmembers, g->nlus);
	}
	return 0;
}

static int cfg_rt_register_target(struct cfg_runtime *rt, struct cfg_rt_target *rtt)
{
	return hmap_put(&rt->targets, rtt->name, strlen(rtt->name), (uintptr_t)rtt);
}

int cfg_apply(struct cfg *c, const struct cfg_overrides *ov, struct cfg_runtime **out,
	      struct cfg_err *err)
{
	size_t ngroups = cfg_count_portal_groups(c), k = 0;
	struct cfg_runtime *rt;
	uint16_t *ids;
	int rc;

	*err = (struct cfg_err){0};
	*out = NULL;
	rt = calloc(1, sizeof(*rt));
	ids = calloc(ngroups ? ngroups : 1, sizeof(*ids));
	if (!rt || !ids) {
		free(rt);
		free(ids);
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	rt->lus = (struct hmap)HMAP_INIT;
	rt->targets = (struct hmap)HMAP_INIT;
	if (ov && ov->nlisten) {
		rt->listen = calloc(ov->nlisten, sizeof(*rt->listen));
		for (size_t i = 0; rt->listen && i < ov->nlisten; i++)
			if ((rt->listen[i] = strdup(ov->listen[i])))
				rt->nlisten++;
		if (rt->nlisten != ov->nlisten) {
			rc = cfg_rt_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	/* portal groups without an explicit relative port identifier get the
	 * assigned one, written into the tree (the control plane then persists
	 * it, so that identifiers never move while the daemon runs) */
	rc = cfg_assign_port_ids(c, ids, ngroups);
	if (rc) {
		rc = cfg_rt_err(err, rc, "cannot assign relative target port identifiers");
		goto fail;
	}
	for (size_t i = 0; i < c->ntargets; i++)
		for (size_t g = 0; g < c->targets[i].ntpgs; g++, k++)
			c->targets[i].tpgs[g].rel_port_id = ids[k];
	rc = cfg_define_port_groups(c, rt, err);
	if (rc)
		goto fail;
	rc = cfg_make_state_dir(c, err);
	if (rc)
		goto fail;
	cfg_auth_warn(c);
	rc = cfg_auth_apply_discovery(c, err);
	if (rc)
		goto fail;
	for (size_t i = 0; i < c->nbs; i++) {
		struct scsi_lu *lu;

		rc = cfg_rt_open_lu(c, &c->bs[i], i, &lu, err);
		if (rc)
			goto fail;
		if (hmap_put(&rt->lus, c->bs[i].name, strlen(c->bs[i].name), (uintptr_t)lu)) {
			scsi_lu_put(lu);
			rc = cfg_rt_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	for (size_t i = 0; i < c->ntargets; i++) {
		struct cfg_rt_target *rtt;

		rc = cfg_rt_build_target(c, i, rt, &rtt, err);
		if (rc)
			goto fail;
		if (cfg_rt_register_target(rt, rtt)) {
			cfg_rt_target_destroy(rtt);
			rc = cfg_rt_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
		rt->nluns += c->targets[i].luns.n;
	}
	free(ids);
	/* registered once the targets are there; a server that cannot be
	 * reached is retried, not an error of the config */
	cfg_apply_isns(c);
	*out = rt;
	return 0;
fail:
	free(ids);
	cfg_runtime_destroy(rt);
	return rc;
}

void cfg_runtime_destroy(struct cfg_runtime *rt)
{
	size_t pos = 0, klen;
	const void *key;
	uintptr_t v;

	if (!rt)
		return;
	while (hmap_next(&rt->targets, &pos, &key, &klen, &v))
		cfg_rt_target_destroy((struct cfg_rt_target *)v);
	hmap_clear(&rt->targets);
	/* the ports have left their ALUA groups with their targets */
	for (size_t i = 0; i < rt->npg_defs; i++)
		scsi_alua_group_undefine(rt->pg_defs[i]);
	free(rt->pg_defs);
	/* the last reference closes the back-store */
	pos = 0;
	while (hmap_next(&rt->lus, &pos, &key, &klen, &v))
		scsi_lu_put((struct scsi_lu *)v);
	hmap_clear(&rt->lus);
	for (size_t i = 0; i < rt->nportals; i++)
		free(rt->portals[i]);
	free(rt->portals);
	for (size_t i = 0; i < rt->nlisten; i++)
		free(rt->listen[i]);
	free(rt->listen);
	free(rt);
}

void cfg_runtime_summary(const struct cfg_runtime *rt, char *buf, size_t size)
{
	size_t n;
	int w;

	w = snprintf(buf, size, "%zu target%s, %zu LUN%s, portals", hmap_count(&rt->targets),
		     hmap_count(&rt->targets) == 1 ? "" : "s", rt->nluns,
		     rt->nluns == 1 ? "" : "s");
	if (w < 0 || (size_t)w >= size)
		return;
	n = (size_t)w;
	if (rt->nportals == 0)
		snprintf(buf + n, size - n, " none");
	for (size_t i = 0; i < rt->nportals && n < size; i++) {
		w = snprintf(buf + n, size - n, " %s", rt->portals[i]);
		if (w < 0)
			return;
		n += (size_t)w;
	}
}
