/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.h: the changes from one configuration tree to another (diff.c). */
#ifndef UT_CONFIG_DIFF_H
#define UT_CONFIG_DIFF_H

#include "config/change.h"
#include "config/index.h"
#include "config/model.h"

/* The changes (in *out, a new transaction) that make old (with its index)
 * equal to nw. Portal groups of nw without a rel_port_id first take the
 * identifier the same group has in old (nw is changed for that). 0 or
 * -ENOMEM / -EINVAL. */
int cfg_diff(const struct cfg *old, const struct cfg_index *oix, struct cfg *nw,
	     struct cfg_txn *out);

/* The comparisons of objects it makes (live.c makes them too): whether
 * objects a and b of a kind are the same as the file writes them, but for
 * the fields in ignore (NULL-terminated; NULL: none); false when out of
 * memory. */
bool cfg_object_same(enum cfg_obj_kind kind, const void *a, const void *b,
		     const char *const *ignore);
/* A target's own fields: a shallow copy of t without its portal groups,
 * LUNs and ACLs (to compare, not to keep). */
struct cfg_target cfg_target_own(const struct cfg_target *t);

#endif
