/* SPDX-License-Identifier: GPL-2.0-or-later */
/* index.h: name -> position indexes over a config tree (model.h), so that
 * verification and the control plane find objects in O(1) instead of
 * scanning arrays of thousands of back-stores or LUNs.
 *
 * What is indexed (positions are array indexes in the tree):
 *   back-stores by name, file back-stores by absolute path, targets by
 *   name; per target: portal groups by tag, ACLs by initiator; per LUN map
 *   (a target's, or an ACL's own, named by the initiator): entries by LUN
 *   and by back-store name; how many LUN entries reference each back-store;
 *   how many portal groups use each relative target port identifier.
 * Children are keyed by their target's name (not position), so moving a
 * target in the array only changes its own entry.
 *
 * cfg_index_build() keeps the first of duplicates (verification reports the
 * later ones). Whoever changes the tree keeps the index in step with the
 * cfg_ix_put_*()/cfg_ix_del_*() calls below (change.c does); the *_pos()
 * calls only move an existing entry and never fail. */
#ifndef UT_CONFIG_INDEX_H
#define UT_CONFIG_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"

struct cfg_index;

/* An ACL's name in the index and in changes: its initiator, or for an ACL
 * by network address only "@" and its "addresses" joined by ",". 0 or
 * -ENAMETOOLONG. */
#define CFG_ACL_KEY_MAX 1024
int cfg_acl_key(const struct cfg_acl *a, char *buf, size_t size);

int cfg_index_build(const struct cfg *c, struct cfg_index **out);
void cfg_index_free(struct cfg_index *ix);

/* Lookups: the position, or -1. initiator: an ACL's key (cfg_acl_key());
 * NULL: the target's own map. */
long cfg_ix_bs(const struct cfg_index *ix, const char *name);
long cfg_ix_path(const struct cfg_index *ix, const char *abs_path);
long cfg_ix_target(const struct cfg_index *ix, const char *name);
long cfg_ix_tpg(const struct cfg_index *ix, const char *target, uint16_t tag);
long cfg_ix_acl(const struct cfg_index *ix, const char *target, const char *initiator);
long cfg_ix_lun(const struct cfg_index *ix, const char *target, const char *initiator,
		uint32_t lun);
long cfg_ix_lun_bs(const struct cfg_index *ix, const char *target, const char *initiator,
		   const char *backstore);
/* LUN entries (all maps) that reference the back-store. */
unsigned cfg_ix_bs_refs(const struct cfg_index *ix, const char *name);
/* Portal groups with this relative target port identifier. */
unsigned cfg_ix_rel_port(const struct cfg_index *ix, uint16_t id);

/* Maintenance. put: add the object (and, for a target or an ACL, its
 * children) at pos; 0 or -ENOMEM (nothing added then). del: remove it (and
 * its children). c is needed to resolve file paths against state_dir. */
int cfg_ix_put_bs(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b,
		  size_t pos);
void cfg_ix_del_bs(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b);
void cfg_ix_bs_pos(struct cfg_index *ix, const struct cfg *c, const struct cfg_backstore *b,
		   size_t pos);
int cfg_ix_put_target(struct cfg_index *ix, const struct cfg_target *t, size_t pos);
void cfg_ix_del_target(struct cfg_index *ix, const struct cfg_target *t);
void cfg_ix_target_pos(struct cfg_index *ix, const struct cfg_target *t, size_t pos);
int cfg_ix_put_tpg(struct cfg_index *ix, const struct cfg_target *t,
		   const struct cfg_portal_group *g, size_t pos);
void cfg_ix_del_tpg(struct cfg_index *ix, const struct cfg_target *t,
		    const struct cfg_portal_group *g);
void cfg_ix_tpg_pos(struct cfg_index *ix, const struct cfg_target *t,
		    const struct cfg_portal_group *g, size_t pos);
int cfg_ix_put_acl(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a,
		   size_t pos);
void cfg_ix_del_acl(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a);
void cfg_ix_acl_pos(struct cfg_index *ix, const struct cfg_target *t, const struct cfg_acl *a,
		    size_t pos);
int cfg_ix_put_lun(struct cfg_index *ix, const char *target, const char *initiator,
		   const struct cfg_lun *l, size_t pos);
void cfg_ix_del_lun(struct cfg_index *ix, const char *target, const char *initiator,
		    const struct cfg_lun *l);
void cfg_ix_lun_pos(struct cfg_index *ix, const char *target, const char *initiator,
		    const struct cfg_lun *l, size_t pos);

#endif
