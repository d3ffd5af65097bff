/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_backstore.c: back-stores (docs/rpc.md): list, get, create,
 * delete, resize, set. Objects are the config file's (docs/config.md) plus
 * what only the running daemon knows: the effective identity (VPD 80h/83h,
 * stable across restarts), the current size, and where it is mapped. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"

/* Every mapping of every back-store, in one pass over the LUN maps:
 * back-store name -> array of {target, initiator?, lun}. */
static json_t *mappings(const struct cfg *c)
{
	json_t *m = json_object();

	for (size_t i = 0; m && i < c->ntargets; i++) {
		const struct cfg_target *t = &c->targets[i];

		for (size_t a = 0; a <= t->nacls; a++) {
			const struct cfg_lun_list *l = a == 0 ? &t->luns : &t->acls[a - 1].luns;
			char key[CFG_ACL_KEY_MAX];

			if (a > 0 && (!t->acls[a - 1].has_luns ||
				      cfg_acl_key(&t->acls[a - 1], key, sizeof(key))))
				continue;
			for (size_t k = 0; k < l->n; k++) {
				json_t *arr = json_object_get(m, l->v[k].backstore);
				json_t *e = json_pack("{s:s,s:i}", "target", t->name, "lun",
						      (json_int_t)l->v[k].lun);

				if (!arr) {
					arr = json_array();
					json_object_set_new(m, l->v[k].backstore, arr);
				}
				if (e && a > 0)
					json_object_set_new(e, "initiator", json_string(key));
				json_array_append_new(arr, e);
			}
		}
	}
	return m;
}

static json_t *bs_json(const struct cfg *c, const struct cfg_backstore *b, json_t *maps)
{
	json_t *o = cfg_object_to_json(CFG_OBJ_BACKSTORE, b), *mapped;
	char vendor[9], product[17], revision[5], serial[33], hex[33];
	struct scsi_lu *lu = cfg_ctl_lu(b->name);
	uint8_t naa[16];

	if (!o)
		return NULL;
	cfg_default_identity(b, vendor, product, revision, serial, naa);
	for (size_t i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", naa[i]);
	json_object_set_new(o, "identity",
			    json_pack("{s:s,s:s,s:s,s:s,s:s}", "vendor", vendor, "product", product,
				      "revision", revision, "serial", serial, "naa", hex));
	if (lu) {
		struct bs_fact f[BS_FACTS_MAX];
		size_t n = scsi_lu_medium_facts(lu, f, BS_FACTS_MAX);
		json_t *m = n ? json_object() : NULL;

		json_object_set_new(o, "current_size", json_integer((json_int_t)scsi_lu_size(lu)));
		for (size_t i = 0; m && i < n; i++)
			json_object_set_new(m, f[i].key, json_string(f[i].value));
		if (m)
			json_object_set_new(o, "medium", m);
	}
	mapped = maps ? json_object_get(maps, b->name) : NULL;
	json_object_set_new(o, "mapped", mapped ? json_incref(mapped) : json_array());
	(void)c;
	return o;
}

static const struct cfg_backstore *bs_find(const char *name)
{
	long i = name ? cfg_ix_bs(cfg_ctl_index(), name) : -1;

	return i < 0 ? NULL : &cfg_ctl_tree()->bs[i];
}

static int not_found(struct rpc_call *call, const char *name)
{
	return rpc_fail(call, RPC_NOT_FOUND,
			json_pack("{s:s,s:s}", "kind", "backstore", "name", name ? name : ""),
			"no back-store named \"%s\"", name ? name : "");
}

static int m_list(struct rpc_call *call)
{
	const struct cfg *c = cfg_ctl_tree();
	json_t *maps = mappings(c), *a = json_array();

	for (size_t i = 0; a && i < c->nbs; i++)
		json_array_append_new(a, bs_json(c, &c->bs[i], maps));
	json_decref(maps);
	call->result = a;
	return a ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

/* The mappings of one back-store: an index lookup per LUN map (targets and
 * ACLs with their own map), not a walk over every LUN. */
static json_t *mappings_of(const struct cfg *c, const char *name)
{
	const struct cfg_index *ix = cfg_ctl_index();
	json_t *m = json_object(), *arr = json_array();

	for (size_t i = 0; m && arr && i < c->ntargets; i++) {
		const struct cfg_target *t = &c->targets[i];
		long p = cfg_ix_lun_bs(ix, t->name, NULL, name);

		if (p >= 0)
			json_array_append_new(arr, json_pack("{s:s,s:i}", "target", t->name, "lun",
							     (json_int_t)t->luns.v[p].lun));
		for (size_t a = 0; a < t->nacls; a++) {
			char key[CFG_ACL_KEY_MAX];

			if (!t->acls[a].has_luns || cfg_acl_key(&t->acls[a], key, sizeof(key)))
				continue;
			p = cfg_ix_lun_bs(ix, t->name, key, name);
			if (p >= 0)
				json_array_append_new(
				    arr,
				    json_pack("{s:s,s:s,s:i}", "target", t->name, "initiator", key,
					      "lun", (json_int_t)t->acls[a].luns.v[p].lun));
		}
	}
	if (m && arr)
		json_object_set(m, name, arr);
	json_decref(arr);
	return m;
}

static json_t *get_one(const char *name)
{
	const struct cfg *c = cfg_ctl_tree();
	const struct cfg_backstore *b = bs_find(name);
	json_t *maps, *o;

	if (!b)
		return json_object();
	maps = mappings_of(c, name);
	o = bs_json(c, b, maps);
	json_decref(maps);
	return o;
}

static int m_get(struct rpc_call *call)
{
	const char *name = rpc_str(call, "name");

	if (!bs_find(name))
		return not_found(call, name);
	call->result = get_one(name);
	return 0;
}

/* backstore.check: the medium's consistency check (a dedup store's fsck),
 * findings as numbers where they are. Runs on the control thread: the
 * daemon answers no other call while it reads the store. */
static int m_check(struct rpc_call *call)
{
	const char *name = rpc_str(call, "name");
	struct bs_fact f[BS_FACTS_MAX];
	struct scsi_lu *lu;
	json_t *o;
	size_t n = 0;
	int rc;

	if (!bs_find(name))
		return not_found(call, name);
	lu = cfg_ctl_lu(name);
	if (!lu)
		return rpc_fail(call, RPC_NOT_FOUND,
				json_pack("{s:s,s:s}", "kind", "backstore", "name", name),
				"back-store \"%s\" is not open", name);
	rc = scsi_lu_medium_check(lu, f, BS_FACTS_MAX, &n);
	if (rc == -EOPNOTSUPP)
		return rpc_fail(call, RPC_NOT_SUPPORTED, NULL,
				"back-store \"%s\": its type has no consistency check", name);
	if (rc)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL,
				"back-store \"%s\": check failed: %s", name, strerror(-rc));
	o = json_object();
	for (size_t i = 0; o && i < n; i++) {
		char *end;
		unsigned long long v = strtoull(f[i].value, &end, 10);

		json_object_set_new(o, f[i].key,
				    f[i].value[0] && *end == '\0' ? json_integer((json_int_t)v)
								  : json_string(f[i].value));
	}
	call->result = json_pack("{s:s,s:o}", "name", name, "check", o);
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

/* after a change: the back-store as it is now */
static json_t *finish_get(struct rpc_call *call)
{
	return get_one(call->priv);
}

static int keep_name(struct rpc_call *call, const char *name)
{
	call->priv = strdup(name ? name : "");
	if (!call->priv)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	call->finish = finish_get;
	return 0;
}

static int m_create(struct rpc_call *call)
{
	struct cfg_chg *ch = rpc_chg(call, CFG_CHG_BS_ADD, NULL, NULL, NULL);
	json_t *o;
	int rc;

	if (!ch)
		return -1;
	o = json_deep_copy(call->params);
	rc = rpc_chg_object(call, ch, CFG_OBJ_BACKSTORE, o);
	json_decref(o);
	return rc ? rc : keep_name(call, ch->obj.bs.name);
}

/* after a delete: what became of the data. A file back-store's image is
 * never removed (the administrator's to delete), a ram one's data is gone. */
struct deleted {
	char type[16];
	char image[PATH_MAX]; /* file: absolute */
};

static json_t *finish_deleted(struct rpc_call *call)
{
	const struct deleted *d = call->priv;
	json_t *o = json_pack("{s:s,s:b}", "type", d->type, "image_kept", d->image[0] != 0);

	if (o && d->image[0])
		json_object_set_new(o, "image", json_string(d->image));
	return o;
}

static int m_delete(struct rpc_call *call)
{
	const struct cfg_backstore *b = bs_find(rpc_str(call, "name"));
	struct deleted *d;

	if (!rpc_chg(call, CFG_CHG_BS_DEL, NULL, NULL, rpc_str(call, "name")))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	call->priv = d;
	if (b) {
		snprintf(d->type, sizeof(d->type), "%s", b->type);
		if (b->path && cfg_bs_path(cfg_ctl_tree(), b, d->image, sizeof(d->image)))
			snprintf(d->image, sizeof(d->image), "%s", b->path);
	}
	call->finish = finish_deleted;
	return 0;
}

static const char *const set_drop[] = {"name", "force", NULL};

/* backstore.set / backstore.resize: the current object with the params */
static int bs_change(struct rpc_call *call, json_t *merged)
{
	const char *name = rpc_str(call, "name");
	struct cfg_chg *ch;

	if (!merged)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	ch = rpc_chg(call, CFG_CHG_BS_SET, NULL, NULL, name);
	if (!ch || rpc_chg_object(call, ch, CFG_OBJ_BACKSTORE, merged)) {
		json_decref(merged);
		return -1;
	}
	json_decref(merged);
	ch->force = json_is_true(json_object_get(call->params, "force"));
	return keep_name(call, name);
}

static int m_set(struct rpc_call *call)
{
	const struct cfg_backstore *b = bs_find(rpc_str(call, "name"));

	if (!b)
		return not_found(call, rpc_str(call, "name"));
	return bs_change(call, rpc_merge(cfg_object_to_json(CFG_OBJ_BACKSTORE, b), call, set_drop));
}

static int m_resize(struct rpc_call *call)
{
	const struct cfg_backstore *b = bs_find(rpc_str(call, "name"));
	uint64_t size;
	json_t *o;

	if (!b)
		return not_found(call, rpc_str(call, "name"));
	if (rpc_size(call, "size", &size))
		return -1;
	o = cfg_object_to_json(CFG_OBJ_BACKSTORE, b);
	if (o)
		json_object_set_new(o, "size", json_integer((json_int_t)size));
	return bs_change(call, o);
}

static const struct rpc_param p_none[] = {{0}};
static const struct rpc_param p_name[] = {
    {.name = "name", .type = RPC_T_STRING, .required = true},
    {0},
};
static const struct rpc_param p_resize[] = {
    {.name = "name", .type = RPC_T_STRING, .required = true},
    {.name = "size", .type = RPC_T_SIZE, .required = true},
    {.name = "force", .type = RPC_T_BOOLEAN},
    {0},
};
static const struct rpc_param p_set[] = {
    {.name = "name", .type = RPC_T_STRING, .required = true},
    {.name = "force", .type = RPC_T_BOOLEAN},
    {0},
};
static const char *const create_except[] = {NULL};

const struct rpc_method rpc_methods_backstore[] = {
    {.name = "backstore.list", .fn = m_list, .params = p_none},
    {.name = "backstore.get", .fn = m_get, .params = p_name},
    {.name = "backstore.check", .fn = m_check, .params = p_name},
    {.name = "backstore.create",
     .fn = m_create,
     .mutating = true,
     .params = p_none,
     .object = true,
     .kind = CFG_OBJ_BACKSTORE,
     .except = create_except},
    {.name = "backstore.delete", .fn = m_delete, .mutating = true, .params = p_name},
    {.name = "backstore.resize", .fn = m_resize, .mutating = true, .params = p_resize},
    {.name = "backstore.set",
     .fn = m_set,
     .mutating = true,
     .params = p_set,
     .object = true,
     .kind = CFG_OBJ_BACKSTORE,
     .except = set_drop},
    {0},
};
