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

#endif
