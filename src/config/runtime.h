/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runtime.h: the running objects built from a config (private to the
 * config layer: apply.c builds them at start-up, live.c changes them while
 * the daemon runs).
 *
 * Everything is keyed by name, never by position in the tree, so that the
 * tree can change under it:
 *   rt->lus      back-store name -> struct scsi_lu * (one reference)
 *   rt->targets  target name     -> struct cfg_rt_target *
 *   rtt->acls    initiator       -> struct scsi_lun_map * of an ACL with its
 *                                   own "luns" (0: the ACL uses the target's)
 *   rtt->tpgs    tag (2 bytes)   -> struct iscsi_tpg *
 * All of it runs on the main thread (reactor 0). */
#ifndef UT_CONFIG_RUNTIME_H
#define UT_CONFIG_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/compiler.h"
#include "lib/hmap.h"

struct scsi_lu;
struct scsi_lun_map;
struct scsi_target;
struct iscsi_target;
struct iscsi_tpg;
struct cfg_redirect;

struct cfg_rt_target {
	char *name;
	struct scsi_target *st;
	struct iscsi_target *it;
	struct scsi_lun_map *map;      /* the target's "luns" */
	struct scsi_lun_map *demo_map; /* write protected copy for demo_mode.read_only */
	struct hmap acls;	       /* initiator -> own map (uintptr_t), 0 = target's map */
	struct hmap tpgs;	       /* tag (big-endian 2 bytes) -> struct iscsi_tpg * */
};

struct cfg_runtime {
	struct hmap lus;     /* back-store name -> struct scsi_lu * */
	struct hmap targets; /* target name -> struct cfg_rt_target * */
	char **listen;	     /* --listen addresses (copied), replacing every portal */
	size_t nlisten;
	char **portals; /* distinct addresses listened on at start-up (summary) */
	size_t nportals;
	size_t nluns;	   /* LUNs of the targets' "luns" at start-up (summary) */
	uint16_t *pg_defs; /* ALUA port groups defined in the core (undefined at teardown) */
	size_t npg_defs;
	bool log_level_fixed; /* --log-level given: the config's log_level is not applied */
};

/* err helpers shared by apply.c and live.c */
int cfg_rt_err(struct cfg_err *err, int rc, const char *fmt, ...) UT_PRINTF(3, 4);
void cfg_rt_path(struct cfg_err *err, const char *fmt, ...) UT_PRINTF(2, 3);

/* Open back-store b and create its logical unit (the LU owns the bs_dev).
 * pos names it in errors ("backstores[pos]"). */
int cfg_rt_open_lu(const struct cfg *c, const struct cfg_backstore *b, size_t pos,
		   struct scsi_lu **out, struct cfg_err *err);
struct scsi_lu *cfg_rt_lu(const struct cfg_runtime *rt, const char *name);
/* A LUN map from a verified list; force_ro write protects every mapping. */
int cfg_rt_build_map(const struct cfg_runtime *rt, const struct cfg_lun_list *l, bool force_ro,
		     const char *base, struct scsi_lun_map **out, struct cfg_err *err);
struct cfg_rt_target *cfg_rt_target(const struct cfg_runtime *rt, const char *name);
/* Build target t (position ti in c, whose portal groups all have their
 * relative port identifier) with its maps, ACLs, iSCSI target, portal
 * groups and listeners; not registered in rt->targets. */
int cfg_rt_build_target(const struct cfg *c, size_t ti, struct cfg_runtime *rt,
			struct cfg_rt_target **out, struct cfg_err *err);
/* A target's or a portal group's login redirection (NULL: none), from the
 * next login on. */
void cfg_rt_set_target_redirect(struct iscsi_target *it, const struct cfg_redirect *r);
void cfg_rt_set_tpg_redirect(struct iscsi_tpg *tpg, const struct cfg_redirect *r);
/* One portal group of a built target: iSCSI portal group (target port) and
 * listeners (the --listen addresses instead of g's portals when set). */
int cfg_rt_build_tpg(const struct cfg *c, size_t ti, size_t gi, struct cfg_runtime *rt,
		     struct cfg_rt_target *rtt, struct cfg_err *err);
/* Tear down: sessions dropped, listeners closed, maps released. */
void cfg_rt_target_destroy(struct cfg_rt_target *rtt);
/* Define configured port group g (position i, for error paths) in the
 * core, then give its LUs their own states (scsi/alua.h). */
int cfg_rt_define_group(const struct cfg_port_group *g, size_t i, struct cfg_err *err);
int cfg_rt_group_states(const struct cfg_port_group *g, size_t i, struct cfg_err *err);
/* The ALUA target port group of portal group gi of target ti (the
 * configured port group that lists it, else one of its own). */
int cfg_rt_group_id(const struct cfg *c, size_t ti, size_t gi, uint16_t *out);
/* The portals a portal group listens on (--listen replaces them). */
void cfg_rt_portals(const struct cfg_runtime *rt, const struct cfg_portal_group *g,
		    const char *const **addrs, size_t *n);

#endif
