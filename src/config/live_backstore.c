/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_backstore.c: back-stores changed while running (live.c's
 * backstore.* rows): open a new LU, unregister one, resize one, or re-open
 * it under every LUN map that maps it. */
#include <errno.h>
#include <string.h>

#include "config/diff.h"
#include "config/live_int.h"
#include "lib/log.h"
#include "scsi/scsi.h"

/* ---- backstore.add ---- */
int live_bs_add_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	const char *name = c->bs[ch->pos].name;
	long pos = cfg_ix_bs(ix, name);
	int rc;

	rc = cfg_rt_open_lu(c, &c->bs[pos], (size_t)pos, &s->lu, err);
	if (rc)
		return rc;
	if (hmap_put(&rt->lus, name, strlen(name), (uintptr_t)s->lu)) {
		scsi_lu_put(s->lu);
		s->lu = NULL;
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

void live_bs_add_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
		       struct live_state *s)
{
	if (s->lu) {
		live_rt_unregister(&rt->lus, scsi_lu_name(s->lu));
		scsi_lu_put(s->lu);
	}
}

/* ---- backstore.delete: unregistered at prepare, closed at commit ---- */
int live_bs_del_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	s->lu = (struct scsi_lu *)live_rt_unregister(&rt->lus, ch->name);
	return 0;
}

void live_bs_del_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
		       struct live_state *s)
{
	if (s->lu && hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->lu))
		log_err("config: lost back-store %s while rolling back", ch->name);
}

void live_bs_del_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s)
{
	if (s->lu)
		scsi_lu_put(s->lu); /* closes once unreferenced */
}

/* ---- backstore.set ---- */

/* Every LUN entry mapping back-store name: in each target's map (and its
 * demo copy) and each ACL's own map. fn edits one entry. */
static int live_bs_each_mapping(struct cfg_runtime *rt, const struct cfg *c,
				const struct cfg_index *ix, const char *name,
				int (*fn)(struct live_state *s, struct scsi_lun_map *m,
					  const struct cfg_lun *l, bool force_ro, void *arg),
				struct live_state *s, void *arg)
{
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct cfg_target *t = &c->targets[i];
		struct cfg_rt_target *rtt = cfg_rt_target(rt, t->name);
		long p;
		int rc;

		if (!rtt)
			continue;
		p = cfg_ix_lun_bs(ix, t->name, NULL, name);
		if (p >= 0) {
			if ((rc = fn(s, rtt->map, &t->luns.v[p], false, arg)))
				return rc;
			if (rtt->demo_map && (rc = fn(s, rtt->demo_map, &t->luns.v[p], true, arg)))
				return rc;
		}
		for (size_t a = 0; a < t->nacls; a++) {
			const struct cfg_acl *acl = &t->acls[a];
			struct scsi_lun_map *m;

			if (!acl->has_luns || !acl->initiator)
				continue;
			m = live_rt_acl_map(rtt, acl->initiator);
			p = cfg_ix_lun_bs(ix, t->name, acl->initiator, name);
			if (m && p >= 0 && (rc = fn(s, m, &acl->luns.v[p], false, arg)))
				return rc;
		}
	}
	return 0;
}

static int swap_lu(struct live_state *s, struct scsi_lun_map *m, const struct cfg_lun *l,
		   bool force_ro, void *arg)
{
	struct scsi_lu *old = s->lu, *nlu = arg;
	int rc;

	rc = live_edit_del(s, m, l->lun, old, force_ro || l->read_only);
	if (!rc)
		rc = live_edit_add(s, m, l->lun, nlu, force_ro || l->read_only);
	return rc;
}

/* Fields a resize changes; any other difference re-opens the LU. */
static bool bs_only_size_differs(const struct cfg_backstore *a, const struct cfg_backstore *b)
{
	struct cfg_backstore x = *a;

	x.size = b->size;
	return cfg_object_same(CFG_OBJ_BACKSTORE, &x, b, NULL);
}

int live_bs_set_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s, struct cfg_err *err)
{
	long pos = cfg_ix_bs(ix, ch->name);
	const struct cfg_backstore *nb = &c->bs[pos], *ob = &ch->obj.bs;
	int rc;

	s->lu = cfg_rt_lu(rt, ch->name);
	cfg_rt_path(err, "backstores[%ld]", pos);
	if (!s->lu)
		return cfg_rt_err(err, -ENOENT, "back-store \"%s\" is not running", ch->name);
	if (bs_only_size_differs(ob, nb)) {
		uint64_t cur;

		if (!nb->size || nb->size == ob->size)
			return 0; /* absent: the file's own size; nothing to do */
		cfg_rt_path(err, "backstores[%ld].size", pos);
		/* the LU's current size (a file may be larger than "size") */
		cur = scsi_lu_size(s->lu);
		s->old_size = cur;
		if (nb->size < cur && !ch->force)
			return cfg_rt_err(err, -EPERM,
					  "shrinking \"%s\" loses the data beyond %llu bytes: "
					  "confirm with --force (\"force\": true)",
					  ch->name, (unsigned long long)nb->size);
		rc = scsi_lu_resize(s->lu, nb->size);
		if (rc == -EOPNOTSUPP)
			return cfg_rt_err(err, rc, "a %s back-store cannot be resized", nb->type);
		if (rc)
			return cfg_rt_err(err, rc, "cannot resize \"%s\": %s", ch->name,
					  strerror(-rc));
		s->resized = true;
		return 0;
	}
	/* re-open under its mappings */
	rc = cfg_rt_open_lu(c, nb, (size_t)pos, &s->new_lu, err);
	if (rc)
		return rc;
	rc = live_bs_each_mapping(rt, c, ix, ch->name, swap_lu, s, s->new_lu);
	if (!rc && hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->new_lu))
		rc = cfg_rt_err(err, -ENOMEM, "out of memory");
	if (rc) {
		live_edits_undo(s);
		scsi_lu_put(s->new_lu);
		s->new_lu = NULL;
		if (!err->msg[0])
			cfg_rt_err(err, rc, "cannot re-map \"%s\": %s", ch->name, strerror(-rc));
		return rc;
	}
	return 0;
}

void live_bs_set_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch,
		       struct live_state *s)
{
	if (s->resized) {
		if (scsi_lu_resize(s->lu, s->old_size))
			log_err("config: cannot size \"%s\" back while rolling back", ch->name);
		return;
	}
	if (!s->new_lu)
		return;
	live_edits_undo(s);
	hmap_put(&rt->lus, ch->name, strlen(ch->name), (uintptr_t)s->lu); /* replaces: no alloc */
	scsi_lu_put(s->new_lu);
	s->new_lu = NULL;
}

void live_bs_set_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
			struct cfg_chg *ch, struct live_state *s)
{
	if (s->new_lu && s->lu)
		scsi_lu_put(s->lu); /* the old LU */
	if (s->new_lu)
		s->effect = "the logical unit was re-opened under its mappings";
}
