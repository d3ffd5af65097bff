/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_int.h: inside live.c (private to the config layer).
 *
 * live.c holds the engine: the per-change state, the LUN map edits
 * recorded for abort, the helpers over the running objects, the table of
 * what each change kind does (one row per kind: prepare, abort, commit,
 * which access policies to rebuild) and the dispatchers of live.h. The
 * rows' functions live by concept in live_settings.c, live_backstore.c,
 * live_target.c (targets and portal groups) and live_acl.c (ACLs and
 * LUNs). */
#ifndef UT_CONFIG_LIVE_INT_H
#define UT_CONFIG_LIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/live.h"

struct scsi_lu;
struct scsi_lun_map;
struct iscsi_tpg;

/* One map edit (for abort): entry lun of map was removed (lu, ro) and/or
 * added. */
struct live_edit {
	struct scsi_lun_map *map;
	uint32_t lun;
	struct scsi_lu *old_lu; /* referenced; NULL: there was none */
	bool old_ro;
	bool added;
};

/* What prepare did for one change (ch->rt), for abort and commit. */
struct live_state {
	struct scsi_lu *lu;	/* backstore.*: the LU added, removed or replaced */
	struct scsi_lu *new_lu; /* backstore.set (rebuild): the new LU */
	uint64_t old_size;	/* backstore.set (resize) */
	bool resized;
	struct cfg_rt_target *rtt; /* target.add/del/set: built or removed target */
	struct scsi_lun_map *map;  /* target.set: new demo map; acl: new own map */
	struct iscsi_tpg *tpg;	   /* portal_group.add */
	char **added;		   /* portal_group.set: portals now listening */
	size_t nadded;
	bool rebuild;		 /* target.set / portal_group.set: rebuilt at commit */
	bool drop;		 /* acl.set: the initiator's sessions go */
	struct live_edit *edits; /* lun.*, acl.set, backstore.set */
	size_t nedits, capedits;
	const char *effect; /* what commit did to sessions */
};

/* The three phases of a change kind (live.h). The tree already holds the
 * change; the replaced or removed object is in ch->obj. prepare fails with
 * err set, and abort then undoes whatever part of it was done (abort also
 * runs on a state prepare left empty, so it checks what is there). */
typedef int live_prepare_fn(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			    struct cfg_chg *ch, struct live_state *s, struct cfg_err *err);
typedef void live_abort_fn(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
			   struct live_state *s);
typedef void live_commit_fn(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			    struct cfg_chg *ch, struct live_state *s);

/* ---- LUN map edits, recorded for abort (live.c) ---- */
/* Remove LUN lun from map (it held lu, ro), recorded. */
int live_edit_del(struct live_state *s, struct scsi_lun_map *map, uint32_t lun, struct scsi_lu *lu,
		  bool ro);
/* Add LUN lun -> lu to map; the last recorded edit of the same (map, lun)
 * (a removal just before) is completed, else a new one is recorded. */
int live_edit_add(struct live_state *s, struct scsi_lun_map *map, uint32_t lun, struct scsi_lu *lu,
		  bool ro);
/* Undo every recorded edit, newest first. */
void live_edits_undo(struct live_state *s);

/* ---- the running objects (live.c) ---- */
struct iscsi_tpg *live_rt_tpg(struct cfg_rt_target *rtt, uint16_t tag);
void live_rt_tpg_forget(struct cfg_rt_target *rtt, uint16_t tag);
int live_rt_register_target(struct cfg_runtime *rt, struct cfg_rt_target *rtt);
/* The own map of an initiator's ACL in the core (NULL: it uses the
 * target's map, or there is none). */
struct scsi_lun_map *live_rt_acl_map(struct cfg_rt_target *rtt, const char *initiator);
/* Take the entry name out of h (rt->lus, rt->targets): its value, or 0
 * when there was none. */
uintptr_t live_rt_unregister(struct hmap *h, const char *name);
/* The target named so in the tree and its position *ti; NULL: none. */
const struct cfg_target *live_tree_target(const struct cfg *c, const struct cfg_index *ix,
					  const char *name, size_t *ti);

/* ---- the rows of the table (live.c), by file ---- */
/* live_settings.c */
live_prepare_fn live_settings_prepare;
live_abort_fn live_settings_abort;
live_commit_fn live_settings_commit;
/* live_backstore.c */
live_prepare_fn live_bs_add_prepare, live_bs_del_prepare, live_bs_set_prepare;
live_abort_fn live_bs_add_abort, live_bs_del_abort, live_bs_set_abort;
live_commit_fn live_bs_del_commit, live_bs_set_commit;
/* live_target.c: targets and portal groups */
live_prepare_fn live_tgt_add_prepare, live_tgt_del_prepare, live_tgt_set_prepare;
live_abort_fn live_tgt_add_abort, live_tgt_del_abort, live_tgt_set_abort;
live_commit_fn live_tgt_del_commit, live_tgt_set_commit;
live_prepare_fn live_tpg_add_prepare, live_tpg_set_prepare;
live_abort_fn live_tpg_add_abort, live_tpg_set_abort;
live_commit_fn live_tpg_del_commit, live_tpg_set_commit;
/* live_acl.c: ACLs and LUNs (add, delete and set alike) */
live_prepare_fn live_acl_add_prepare, live_acl_del_prepare, live_acl_set_prepare;
live_abort_fn live_acl_add_abort, live_acl_del_abort, live_acl_set_abort;
live_commit_fn live_acl_del_commit, live_acl_set_commit;
live_prepare_fn live_lun_prepare;
live_abort_fn live_lun_abort;

#endif
