/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.h: changes of a configuration tree, one object at a time.
 *
 * Every way the configuration changes while the daemon runs (a control API
 * request, a reload, the replay of the change journal at start-up) is a
 * transaction: a list of changes, each naming one object (a back-store, a
 * target, one of its portal groups, ACLs or LUNs, or the global settings)
 * and carrying the new object in the file's own form (model.h). A change:
 *   1. is checked against the tree (the object exists or not, references,
 *      uniqueness: O(1) through the index, index.h);
 *   2. is applied to the tree and the index (cfg_chg_apply);
 *   3. has the object's rules verified in place (the same functions as a
 *      whole-file verification, validate.c), else it is undone.
 * cfg_chg_undo() reverses an applied change exactly (the old object is kept
 * in the change), so a transaction that fails half-way leaves the tree as
 * it was. live.c then applies the same changes to the running objects.
 *
 * After cfg_chg_apply(), ch->obj holds the object the change replaced or
 * removed (nothing for an addition); the new one is in the tree. ch->json is
 * the change in its journal form (cfg_chg_to_json(), made before applying).
 */
#ifndef UT_CONFIG_CHANGE_H
#define UT_CONFIG_CHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/index.h"
#include "config/model.h"

enum cfg_chg_kind {
	CFG_CHG_SETTINGS = 1, /* the root fields but back-stores and targets */
	CFG_CHG_BS_ADD,
	CFG_CHG_BS_DEL,
	CFG_CHG_BS_SET,
	CFG_CHG_TGT_ADD, /* with its portal groups, LUNs and ACLs */
	CFG_CHG_TGT_DEL,
	CFG_CHG_TGT_SET, /* the target's own fields; its children stay */
	CFG_CHG_TPG_ADD,
	CFG_CHG_TPG_DEL,
	CFG_CHG_TPG_SET,
	CFG_CHG_ACL_ADD,
	CFG_CHG_ACL_DEL,
	CFG_CHG_ACL_SET, /* the whole ACL, its own LUN map included */
	CFG_CHG_LUN_ADD,
	CFG_CHG_LUN_DEL,
	CFG_CHG_LUN_SET,
	CFG_CHG_KIND_COUNT,
};

struct cfg_chg {
	enum cfg_chg_kind kind;
	/* which object: */
	char *target;	 /* TGT_DEL/SET and every child: the target's name */
	char *initiator; /* ACL_*: the ACL; LUN_*: the ACL's own map (NULL: target's) */
	char *name;	 /* BS_DEL/BS_SET: the back-store */
	uint16_t tag;	 /* TPG_DEL/TPG_SET */
	uint32_t lun;	 /* LUN_DEL/LUN_SET */
	/* the new object (before apply), the replaced one (after) */
	union {
		struct cfg *settings; /* a tree with the settings only (no back-stores/targets) */
		struct cfg_backstore bs;
		struct cfg_target t;
		struct cfg_portal_group g;
		struct cfg_acl a;
		struct cfg_lun l;
	} obj;
	bool has_obj;
	bool applied;
	bool force;	     /* backstore.set: a smaller size may truncate (not journaled) */
	bool model_only;     /* the running objects already are so: persist only */
	size_t pos;	     /* where the object was in its array (undo) */
	struct json_t *json; /* journal form */
	void *rt;	     /* live.c's state for this change */
};

/* A new change of that kind (names copied, NULL allowed); NULL on ENOMEM. */
struct cfg_chg *cfg_chg_new(enum cfg_chg_kind kind, const char *target, const char *initiator,
			    const char *name);
void cfg_chg_free(struct cfg_chg *ch);
/* "backstore.add", ...; NULL for an unknown kind. */
const char *cfg_chg_kind_name(enum cfg_chg_kind kind);
/* One line for humans, e.g. "target iqn...: LUN 3 added (disk1)". */
void cfg_chg_describe(const struct cfg_chg *ch, char *buf, size_t size);

/* Fill ch->json from ch (call before cfg_chg_apply()); 0 or -ENOMEM. */
int cfg_chg_to_json(struct cfg_chg *ch);
/* The settings of a tree as JSON: its root fields without "backstores" and
 * "targets" (the object of a settings change; what cfg_diff() compares).
 * NULL when out of memory. */
struct json_t *cfg_settings_to_json(const struct cfg *c);
/* The iSCSI settings a settings change leaves out take these (the
 * defaults, as for the file: cfg_iscsi_defaults()). */
void cfg_chg_set_defaults(const struct cfg_iscsi_settings *d);
/* A change from its journal form (the inverse); 0, -EINVAL with err, -ENOMEM. */
int cfg_chg_from_json(struct json_t *j, struct cfg_chg **out, struct cfg_err *err);

/* Check, apply, verify (see above). On failure nothing changed and err says
 * why: -ENOENT (no such object), -EEXIST (exists), -EBUSY (referenced),
 * -EINVAL (a rule; err->path names the field), -ENOMEM. */
int cfg_chg_apply(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch, struct cfg_err *err);
void cfg_chg_undo(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch);

/* Checks that span the whole tree and cannot be made per object (the ALUA
 * port groups' references): run once after a transaction's changes. */
int cfg_validate_cross(const struct cfg *c, struct cfg_err *err);

/* A transaction: changes applied in order, undone in reverse. */
struct cfg_txn {
	struct cfg_chg **v;
	size_t n, cap;
	size_t applied;	 /* the first `applied` changes are in the tree */
	bool no_journal; /* a reload: the file read is the new state (ctl.h) */
};
/* Append (the transaction owns ch from then on, also on failure). */
int cfg_txn_add(struct cfg_txn *x, struct cfg_chg *ch);
void cfg_txn_clear(struct cfg_txn *x);
/* Apply every change not yet applied, then the cross checks; on failure the
 * transaction's changes are all undone, *failed is the index of the
 * failing change (n for the cross checks). */
int cfg_txn_apply(struct cfg *c, struct cfg_index *ix, struct cfg_txn *x, size_t *failed,
		  struct cfg_err *err);
void cfg_txn_undo(struct cfg *c, struct cfg_index *ix, struct cfg_txn *x);

/* Relative target port identifiers: give every portal group of c without
 * one the identifier cfg_assign_port_ids() assigns (the live tree keeps
 * them, so that identifiers never move while running). 0 or -errno. */
int cfg_freeze_port_ids(struct cfg *c);

#endif
