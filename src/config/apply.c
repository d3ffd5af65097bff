/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c: build the running objects from a verified config, all or
 * nothing.
 *
 * Order (each step may fail; cfg_runtime_destroy() undoes what was built):
 *   1. the state directory (created when missing, mode 0700);
 *   2. per back-store: bs_open() then scsi_lu_create() (the LU owns the
 *      bs_dev from then on);
 *   3. per target: scsi_target_create(), its LUN map (the "luns"), the
 *      default map + demo flag, the ACLs with their own or the target's map;
 *      iscsi_target_add(), then per portal group iscsi_tpg_add() with the
 *      relative target port identifier of cfg_assign_port_ids() and
 *      iscsi_tpg_portal_add() for each portal (or each --listen address).
 * Nothing is announced before every step has succeeded.
 *
 * Reload (apply the difference to a running set) is a later issue; this file
 * builds from scratch and tears down completely.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backstore/backstore.h"
#include "backstore/fault.h"
#include "config/config.h"
#include "config/fault.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "scsi/alua.h"
#include "scsi/scsi.h"

struct cfg_rt_target {
	struct scsi_target *st;
	struct iscsi_target *it;
	struct scsi_lun_map *map;	/* the target's "luns" */
	struct scsi_lun_map *demo_map;	/* write protected copy for demo_mode.read_only */
	struct scsi_lun_map **acl_maps; /* per ACL with its own "luns" (else NULL) */
	size_t nacls;
};

struct cfg_runtime {
	struct scsi_lu **lus; /* per back-store, config order */
	size_t nlus;
	struct cfg_rt_target *t;
	size_t nt;
	size_t nluns;	/* LUNs mapped in the targets' "luns" */
	char **portals; /* distinct addresses listened on */
	size_t nportals;
	uint16_t *gids;	   /* ALUA target port group of each portal group (file order) */
	uint16_t *pg_defs; /* port groups defined in the core (undefined at teardown) */
	size_t npg_defs;
};

UT_PRINTF(3, 4) static int cfg_aerr(struct cfg_err *err, int rc, const char *fmt, ...)
{
	va_list ap;

	err->line = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : -EINVAL;
}

static void cfg_apath(struct cfg_err *err, const char *fmt, ...) UT_PRINTF(2, 3);
static void cfg_apath(struct cfg_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->path, sizeof(err->path), fmt, ap);
	va_end(ap);
}

static int cfg_make_state_dir(const struct cfg *c, struct cfg_err *err)
{
	char dir[CFG_FULL_PATH_MAX];
	struct stat st;
	int rc;

	if (!c->state_dir)
		return 0;
	cfg_apath(err, "state_dir");
	rc = cfg_state_dir_path(c, dir, sizeof(dir));
	if (rc)
		return cfg_aerr(err, rc, "path too long");
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return cfg_aerr(err, -ENOTDIR, "%s: not a directory", dir);
		return 0;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return cfg_aerr(err, -errno, "cannot create %s: %s", dir, strerror(errno));
	log_notice("created state directory %s", dir);
	return 0;
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
		return cfg_aerr(err, rc, "cannot set up fault injection on \"%s\": %s", b->name,
				strerror(-rc));
	}
	*dev = w;
	return 0;
}

static int cfg_open_lu(const struct cfg *c, size_t i, struct scsi_lu **out, struct cfg_err *err)
{
	const struct cfg_backstore *b = &c->bs[i];
	char path[CFG_FULL_PATH_MAX];
	struct scsi_lu_attrs attrs = {
	    .block_size = b->block_size,
	    .physical_block_size = b->physical_block_size,
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
	};
	struct bs_dev *dev = NULL;
	int rc;

	cfg_apath(err, "backstores[%zu]", i);
	if (b->path) {
		cfg_apath(err, "backstores[%zu].path", i);
		rc = cfg_bs_path(c, b, path, sizeof(path));
		if (rc)
			return cfg_aerr(err, rc, "path too long");
		p.path = path;
	}
	rc = bs_open(&p, &dev);
	if (rc)
		return cfg_aerr(err, rc, "cannot open %s back-store \"%s\"%s%s: %s", b->type,
				b->name, p.path ? " at " : "", p.path ? p.path : "", strerror(-rc));
	if (dev->size < b->block_size) {
		bs_close(dev);
		return cfg_aerr(err, -EINVAL,
				"back-store \"%s\" is smaller than one block (%u bytes)", b->name,
				b->block_size);
	}
	if (b->fault && (rc = cfg_fault_wrap(b, &dev, err)))
		return rc;
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
		return cfg_aerr(err, rc, "cannot create the logical unit of \"%s\": %s", b->name,
				strerror(-rc));
	}
	log_info("back-store %s: %s%s%s, %llu bytes, %u-byte blocks%s%s%s", b->name, b->type,
		 p.path ? " " : "", p.path ? p.path : "", (unsigned long long)dev->size,
		 b->block_size, attrs.thin ? ", thin" : "", attrs.read_only ? ", read-only" : "",
		 attrs.removable ? ", removable" : "");
	return 0;
}

static struct scsi_lu *cfg_lu_by_name(const struct cfg *c, const struct cfg_runtime *rt,
				      const char *name)
{
	for (size_t i = 0; i < c->nbs && i < rt->nlus; i++)
		if (strcmp(c->bs[i].name, name) == 0)
			return rt->lus[i];
	return NULL;
}

/* A LUN map from a verified list; force_ro write protects every mapping. */
static int cfg_build_map(const struct cfg *c, const struct cfg_runtime *rt,
			 const struct cfg_lun_list *l, bool force_ro, const char *base,
			 struct scsi_lun_map **out, struct cfg_err *err)
{
	struct scsi_lun_map *m = scsi_lun_map_create();
	int rc;

	if (!m) {
		cfg_apath(err, "%s", base);
		return cfg_aerr(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < l->n; i++) {
		struct scsi_lu *lu = cfg_lu_by_name(c, rt, l->v[i].backstore);
		cfg_apath(err, "%s[%zu]", base, i);
		if (!lu) {
			scsi_lun_map_put(m);
			return cfg_aerr(err, -ENOENT, "no back-store named \"%s\"",
					l->v[i].backstore);
		}
		rc = scsi_lun_map_add(m, l->v[i].lun, lu, force_ro || l->v[i].read_only);
		if (rc) {
			scsi_lun_map_put(m);
			return cfg_aerr(err, rc, "cannot map LUN %u: %s", l->v[i].lun,
					strerror(-rc));
		}
	}
	*out = m;
	return 0;
}

static int cfg_add_portal(struct cfg_runtime *rt, const char *addr)
{
	char **np;

	for (size_t i = 0; i < rt->nportals; i++)
		if (strcmp(rt->portals[i], addr) == 0)
			return 0;
	np = realloc(rt->portals, (rt->nportals + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	rt->portals = np;
	np[rt->nportals] = strdup(addr);
	if (!np[rt->nportals])
		return -ENOMEM;
	rt->nportals++;
	return 0;
}

static int cfg_build_target(const struct cfg *c, size_t ti, const uint16_t *ids, size_t *k,
			    const struct cfg_overrides *ov, struct cfg_runtime *rt,
			    struct cfg_err *err)
{
	const struct cfg_target *t = &c->targets[ti];
	struct cfg_rt_target *rtt = &rt->t[ti];
	char base[CFG_ERR_PATH_MAX];
	int rc;

	cfg_apath(err, "targets[%zu].name", ti);
	rtt->st = scsi_target_create(t->name);
	if (!rtt->st)
		return cfg_aerr(err, -ENOMEM, "cannot create target");

	snprintf(base, sizeof(base), "targets[%zu].luns", ti);
	rc = cfg_build_map(c, rt, &t->luns, false, base, &rtt->map, err);
	if (rc)
		return rc;
	rt->nluns += t->luns.n;
	if (t->demo && t->demo_read_only) {
		rc = cfg_build_map(c, rt, &t->luns, true, base, &rtt->demo_map, err);
		if (rc)
			return rc;
	}
	/* deny by default: without demo mode the default map admits nobody */
	scsi_target_set_default_map(rtt->st, rtt->demo_map ? rtt->demo_map : rtt->map, t->demo);

	rtt->acl_maps = calloc(t->nacls ? t->nacls : 1, sizeof(*rtt->acl_maps));
	if (!rtt->acl_maps)
		return cfg_aerr(err, -ENOMEM, "out of memory");
	rtt->nacls = t->nacls;
	for (size_t a = 0; a < t->nacls; a++) {
		const struct cfg_acl *acl = &t->acls[a];
		struct scsi_lun_map *m = rtt->map;

		if (acl->has_luns) {
			snprintf(base, sizeof(base), "targets[%zu].acls[%zu].luns", ti, a);
			rc = cfg_build_map(c, rt, &acl->luns, false, base, &rtt->acl_maps[a], err);
			if (rc)
				return rc;
			m = rtt->acl_maps[a];
		}
		cfg_apath(err, "targets[%zu].acls[%zu].initiator", ti, a);
		rc = scsi_target_acl_set(rtt->st, acl->initiator, m);
		if (rc)
			return cfg_aerr(err, rc, "cannot add the ACL: %s", strerror(-rc));
	}

	cfg_apath(err, "targets[%zu]", ti);
	rtt->it = iscsi_target_add(rtt->st, t->alias);
	if (!rtt->it)
		return cfg_aerr(err, -ENOMEM, "cannot create the iSCSI target");
	for (size_t g = 0; g < t->ntpgs; g++, (*k)++) {
		const struct cfg_portal_group *pg = &t->tpgs[g];
		const char *const *addrs = (const char *const *)pg->portals;
		size_t naddrs = pg->nportals;
		struct iscsi_tpg *tpg;

		cfg_apath(err, "targets[%zu].portal_groups[%zu]", ti, g);
		tpg = iscsi_tpg_add(rtt->it, pg->tag, ids[*k], rt->gids[*k]);
		if (!tpg)
			return cfg_aerr(err, -ENOMEM, "cannot create portal group %u", pg->tag);
		if (ov && ov->nlisten) {
			addrs = ov->listen;
			naddrs = ov->nlisten;
		}
		for (size_t p = 0; p < naddrs; p++) {
			if (ov && ov->nlisten)
				cfg_apath(err, "--listen %s", addrs[p]);
			else
				cfg_apath(err, "targets[%zu].portal_groups[%zu].portals[%zu]", ti,
					  g, p);
			rc = iscsi_tpg_portal_add(tpg, addrs[p]);
			if (rc && ov && ov->nlisten)
				return cfg_aerr(err, rc, "cannot listen: %s", strerror(-rc));
			if (rc)
				return cfg_aerr(err, rc, "cannot listen on %s: %s", addrs[p],
						strerror(-rc));
			rc = cfg_add_portal(rt, addrs[p]);
			if (rc)
				return cfg_aerr(err, rc, "out of memory");
		}
	}
	log_info("target %s: %zu LUN(s), %zu portal group(s), %zu ACL(s)%s", t->name, t->luns.n,
		 t->ntpgs, t->nacls,
		 t->demo ? (t->demo_read_only ? ", demo mode (any initiator, read-only)"
					      : ", demo mode (any initiator, read-write)")
			 : "");
	return 0;
}

/* ALUA target port groups (SPC-4 5.15): define the configured ones in the
 * core before any port joins them; the others come into being with their
 * first port (scsi/alua.h). */
static int cfg_define_port_groups(const struct cfg *c, struct cfg_runtime *rt,
				  struct cfg_err *err)
{
	rt->pg_defs = calloc(c->npgs ? c->npgs : 1, sizeof(*rt->pg_defs));
	if (!rt->pg_defs)
		return cfg_aerr(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->npgs; i++) {
		const struct cfg_port_group *g = &c->pgs[i];
		struct scsi_alua_group_attrs a = {
			.name = g->name,
			.state = g->state,
			.preferred = g->preferred,
			.explicit_ok = g->explicit_ok,
			.transition_ms = g->transition_ms,
		};
		int rc;

		cfg_apath(err, "port_groups[%zu]", i);
		rc = scsi_alua_group_define(g->id, &a);
		if (rc)
			return cfg_aerr(err, rc, "cannot define port group %u: %s", g->id,
					strerror(-rc));
		rt->pg_defs[rt->npg_defs++] = g->id;
		for (size_t j = 0; j < g->nlus; j++) {
			cfg_apath(err, "port_groups[%zu].lu_states[%zu]", i, j);
			rc = scsi_alua_set_state(g->id, g->lus[j].backstore, g->lus[j].state);
			if (rc)
				return cfg_aerr(err, rc, "cannot set the state of \"%s\": %s",
						g->lus[j].backstore, strerror(-rc));
		}
		log_info("port group %u%s%s%s: %s%s%s, %zu member(s), %zu LU state(s)", g->id,
			 g->name ? " (" : "", g->name ? g->name : "", g->name ? ")" : "",
			 cfg_pg_state_name(g->state), g->preferred ? ", preferred" : "",
			 g->explicit_ok ? ", explicit" : "", g->nmembers, g->nlus);
	}
	return 0;
}

int cfg_apply(const struct cfg *c, const struct cfg_overrides *ov, struct cfg_runtime **out,
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
	if (rt) {
		rt->lus = calloc(c->nbs ? c->nbs : 1, sizeof(*rt->lus));
		rt->t = calloc(c->ntargets ? c->ntargets : 1, sizeof(*rt->t));
	}
	if (!rt || !ids || !rt->lus || !rt->t) {
		rc = cfg_aerr(err, -ENOMEM, "out of memory");
		goto fail;
	}
	rc = cfg_assign_port_ids(c, ids, ngroups);
	if (rc) {
		rc = cfg_aerr(err, rc, "cannot assign relative target port identifiers");
		goto fail;
	}
	rt->gids = calloc(ngroups ? ngroups : 1, sizeof(*rt->gids));
	rc = rt->gids ? cfg_assign_group_ids(c, rt->gids, ngroups) : -ENOMEM;
	if (rc) {
		rc = cfg_aerr(err, rc, "cannot assign target port group identifiers");
		goto fail;
	}
	rc = cfg_define_port_groups(c, rt, err);
	if (rc)
		goto fail;
	rc = cfg_make_state_dir(c, err);
	if (rc)
		goto fail;
	for (size_t i = 0; i < c->nbs; i++) {
		rc = cfg_open_lu(c, i, &rt->lus[i], err);
		if (rc)
			goto fail;
		rt->nlus++;
	}
	for (size_t i = 0; i < c->ntargets; i++) {
		rt->nt++;
		rc = cfg_build_target(c, i, ids, &k, ov, rt, err);
		if (rc)
			goto fail;
	}
	free(ids);
	*out = rt;
	return 0;
fail:
	free(ids);
	cfg_runtime_destroy(rt);
	return rc;
}

void cfg_runtime_destroy(struct cfg_runtime *rt)
{
	if (!rt)
		return;
	/* iSCSI first: listeners closed, sessions gone, no new commands */
	for (size_t i = rt->nt; i-- > 0;) {
		struct cfg_rt_target *t = &rt->t[i];
		if (t->it)
			iscsi_target_del(t->it);
	}
	for (size_t i = rt->nt; i-- > 0;) {
		struct cfg_rt_target *t = &rt->t[i];
		if (t->st)
			scsi_target_destroy(t->st);
		for (size_t a = 0; a < t->nacls; a++)
			if (t->acl_maps[a])
				scsi_lun_map_put(t->acl_maps[a]);
		free(t->acl_maps);
		if (t->demo_map)
			scsi_lun_map_put(t->demo_map);
		if (t->map)
			scsi_lun_map_put(t->map);
	}
	/* the ports have left their ALUA groups with their targets */
	for (size_t i = 0; i < rt->npg_defs; i++)
		scsi_alua_group_undefine(rt->pg_defs[i]);
	free(rt->pg_defs);
	free(rt->gids);
	/* the last reference closes the back-store */
	for (size_t i = rt->nlus; i-- > 0;)
		if (rt->lus[i])
			scsi_lu_put(rt->lus[i]);
	for (size_t i = 0; i < rt->nportals; i++)
		free(rt->portals[i]);
	free(rt->portals);
	free(rt->lus);
	free(rt->t);
	free(rt);
}

void cfg_runtime_summary(const struct cfg_runtime *rt, char *buf, size_t size)
{
	size_t n;
	int w;

	w = snprintf(buf, size, "%zu target%s, %zu LUN%s, portals", rt->nt, rt->nt == 1 ? "" : "s",
		     rt->nluns, rt->nluns == 1 ? "" : "s");
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
