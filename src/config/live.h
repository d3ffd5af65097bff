/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live.h: applying configuration changes (change.h) to the running
 * objects (runtime.h) without a restart.
 *
 * Two phases per change, so that a transaction can be rolled back until it
 * is durable:
 *   prepare  everything that can fail and can be undone: open back-stores,
 *            build targets and portal groups and listen, change LUN maps
 *            (REPORTED LUNS DATA HAS CHANGED), resize (CAPACITY DATA HAS
 *            CHANGED), add ACLs. cfg_live_abort() undoes it.
 *   commit   what cannot be undone and does not fail: drop sessions, tear
 *            down removed targets, portal groups, portals and back-stores,
 *            switch to rebuilt objects, hand the fabric its new access
 *            policies and global settings.
 * The tree (c) already holds the change when prepare runs (model first);
 * the replaced or removed object is in ch->obj. Sessions of objects a
 * change does not touch are never disturbed (docs/rpc.md has the table of
 * what each change does to sessions). Main thread only.
 */
#ifndef UT_CONFIG_LIVE_H
#define UT_CONFIG_LIVE_H

#include "config/change.h"
#include "config/runtime.h"

/* The daemon's --log-level wins over the config's log_level. */
void cfg_live_fix_log_level(struct cfg_runtime *rt, bool fixed);

int cfg_live_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_chg *ch, struct cfg_err *err);
void cfg_live_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch);
/* Commit every prepared change of the transaction, in order. */
void cfg_live_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_txn *x);
/* Free what prepare kept for the change (after commit or abort). */
void cfg_live_release(struct cfg_chg *ch);
/* What committing did to sessions, for the API's answer (e.g. "sessions
 * of target X dropped"); "" when nothing. */
const char *cfg_live_effect(const struct cfg_chg *ch);

#endif
