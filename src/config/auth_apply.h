/* SPDX-License-Identifier: GPL-2.0-or-later */
/* auth_apply.h: access and authentication of the config handed to the
 * iSCSI fabric (private to the config layer: apply.c at start-up, live.c
 * when the config changes). Both calls replace what the fabric had; live
 * sessions are not touched (logins in progress keep the policy they started
 * with). */
#ifndef UT_CONFIG_AUTH_APPLY_H
#define UT_CONFIG_AUTH_APPLY_H

#include <stddef.h>

#include "config/model.h"

struct cfg_runtime;
struct iscsi_target;
struct scsi_lun_map;

/* Target t (position ti, for error paths): a fabric access rule per ACL
 * and per network of its "addresses" (its initiator or any, its own
 * "auth"); ACLs without an initiator get their own "luns" or target_map;
 * the target's "auth"; its "limits". 0 or -errno with *err set. */
int cfg_auth_apply_target(const struct cfg_runtime *rt, const struct cfg_target *t, size_t ti,
			  struct scsi_lun_map *target_map, struct iscsi_target *it,
			  struct cfg_err *err);
/* "discovery": authentication and filter of discovery sessions. */
int cfg_auth_apply_discovery(const struct cfg *c, struct cfg_err *err);

#endif
