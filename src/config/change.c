/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c: changes of a configuration tree, one object at a time
 * (change.h): check, apply, verify, undo; the journal form; transactions.
 *
 * Arrays of the tree grow by doubling (their capacity is what the allocator
 * reports, malloc_usable_size(), as the tree has no capacity fields): an
 * addition is O(1) amortized, a removal a memmove of the array's tail plus
 * the index entries of the objects that moved. */
#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/change.h"
#include "config/config.h"
#include "lib/compiler.h"

static const char *const chg_names[CFG_CHG_KIND_COUNT] = {
    [CFG_CHG_SETTINGS] = "settings.set",
    [CFG_CHG_BS_ADD] = "backstore.add",
    [CFG_CHG_BS_DEL] = "backstore.delete",
    [CFG_CHG_BS_SET] = "backstore.set",
    [CFG_CHG_TGT_ADD] = "target.add",
    [CFG_CHG_TGT_DEL] = "target.delete",
    [CFG_CHG_TGT_SET] = "target.set",
    [CFG_CHG_TPG_ADD] = "portal_group.add",
    [CFG_CHG_TPG_DEL] = "portal_group.delete",
    [CFG_CHG_TPG_SET] = "portal_group.set",
    [CFG_CHG_ACL_ADD] = "acl.add",
    [CFG_CHG_ACL_DEL] = "acl.delete",
    [CFG_CHG_ACL_SET] = "acl.set",
    [CFG_CHG_LUN_ADD] = "lun.add",
    [CFG_CHG_LUN_DEL] = "lun.delete",
    [CFG_CHG_LUN_SET] = "lun.set",
};

/* The object kind each change carries (CFG_OBJ_ROOT: none or settings). */
static const enum cfg_obj_kind chg_obj[CFG_CHG_KIND_COUNT] = {
    [CFG_CHG_SETTINGS] = CFG_OBJ_ROOT,	      [CFG_CHG_BS_ADD] = CFG_OBJ_BACKSTORE,
    [CFG_CHG_BS_SET] = CFG_OBJ_BACKSTORE,     [CFG_CHG_TGT_ADD] = CFG_OBJ_TARGET,
    [CFG_CHG_TGT_SET] = CFG_OBJ_TARGET,	      [CFG_CHG_TPG_ADD] = CFG_OBJ_PORTAL_GROUP,
    [CFG_CHG_TPG_SET] = CFG_OBJ_PORTAL_GROUP, [CFG_CHG_ACL_ADD] = CFG_OBJ_ACL,
    [CFG_CHG_ACL_SET] = CFG_OBJ_ACL,	      [CFG_CHG_LUN_ADD] = CFG_OBJ_LUN,
    [CFG_CHG_LUN_SET] = CFG_OBJ_LUN,
};

static bool chg_has_object(enum cfg_chg_kind k)
{
	return k == CFG_CHG_SETTINGS || chg_obj[k] != CFG_OBJ_ROOT;
}

const char *cfg_chg_kind_name(enum cfg_chg_kind kind)
{
	return kind > 0 && kind < CFG_CHG_KIND_COUNT ? chg_names[kind] : NULL;
}

UT_PRINTF(4, 5)
static int chg_err(struct cfg_err *err, int rc, const char *path, const char *fmt, ...)
{
	va_list ap;

	err->line = 0;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return rc;
}

static char *chg_strdup(const char *s, bool *bad)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*bad = true;
	return d;
}

struct cfg_chg *cfg_chg_new(enum cfg_chg_kind kind, const char *target, const char *initiator,
			    const char *name)
{
	struct cfg_chg *ch = calloc(1, sizeof(*ch));
	bool bad = false;

	if (!ch)
		return NULL;
	ch->kind = kind;
	ch->target = chg_strdup(target, &bad);
	ch->initiator = chg_strdup(initiator, &bad);
	ch->name = chg_strdup(name, &bad);
	if (bad) {
		cfg_chg_free(ch);
		return NULL;
	}
	return ch;
}

static void chg_obj_clear(struct cfg_chg *ch)
{
	if (!ch->has_obj)
		return;
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		cfg_free(ch->obj.settings);
		break;
	case CFG_CHG_BS_ADD:
	case CFG_CHG_BS_DEL:
	case CFG_CHG_BS_SET:
		cfg_backstore_clear(&ch->obj.bs);
		break;
	case CFG_CHG_TGT_ADD:
	case CFG_CHG_TGT_DEL:
	case CFG_CHG_TGT_SET:
		cfg_target_clear(&ch->obj.t);
		break;
	case CFG_CHG_TPG_ADD:
	case CFG_CHG_TPG_DEL:
	case CFG_CHG_TPG_SET:
		cfg_tpg_clear(&ch->obj.g);
		break;
	case CFG_CHG_ACL_ADD:
	case CFG_CHG_ACL_DEL:
	case CFG_CHG_ACL_SET:
		cfg_acl_clear(&ch->obj.a);
		break;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		cfg_lun_clear(&ch->obj.l);
		break;
	default:
		break;
	}
	ch->has_obj = false;
}

void cfg_chg_free(struct cfg_chg *ch)
{
	if (!ch)
		return;
	chg_obj_clear(ch);
	json_decref(ch->json);
	free(ch->target);
	free(ch->initiator);
	free(ch->name);
	free(ch);
}

/* ---- descriptions ---- */
void cfg_chg_describe(const struct cfg_chg *ch, char *buf, size_t size)
{
	const char *t = ch->target ? ch->target : "?";
	char map[CFG_ISCSI_NAME_MAX + 32] = "";
	uint32_t lun = ch->lun;
	uint16_t tag = ch->tag;

	if (ch->initiator && ch->kind >= CFG_CHG_LUN_ADD)
		snprintf(map, sizeof(map), " (ACL %s)", ch->initiator);
	/* before apply the object carries the key; after, the old object */
	if (ch->kind == CFG_CHG_LUN_ADD && ch->has_obj)
		lun = ch->obj.l.lun;
	if (ch->kind == CFG_CHG_TPG_ADD && ch->has_obj)
		tag = ch->obj.g.tag;
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		snprintf(buf, size, "global settings changed");
		break;
	case CFG_CHG_BS_ADD:
		snprintf(buf, size, "backstore %s: created",
			 ch->name ? ch->name : (ch->has_obj ? ch->obj.bs.name : "?"));
		break;
	case CFG_CHG_BS_DEL:
		snprintf(buf, size, "backstore %s: deleted", ch->name);
		break;
	case CFG_CHG_BS_SET:
		snprintf(buf, size, "backstore %s: changed", ch->name);
		break;
	case CFG_CHG_TGT_ADD:
		snprintf(buf, size, "target %s: created", t);
		break;
	case CFG_CHG_TGT_DEL:
		snprintf(buf, size, "target %s: deleted", t);
		break;
	case CFG_CHG_TGT_SET:
		snprintf(buf, size, "target %s: changed", t);
		break;
	case CFG_CHG_TPG_ADD:
		snprintf(buf, size, "target %s: portal group %u created", t, tag);
		break;
	case CFG_CHG_TPG_DEL:
		snprintf(buf, size, "target %s: portal group %u deleted", t, tag);
		break;
	case CFG_CHG_TPG_SET:
		snprintf(buf, size, "target %s: portal group %u changed", t, tag);
		break;
	case CFG_CHG_ACL_ADD:
		snprintf(buf, size, "target %s: ACL %s created", t, ch->initiator);
		break;
	case CFG_CHG_ACL_DEL:
		snprintf(buf, size, "target %s: ACL %s deleted", t, ch->initiator);
		break;
	case CFG_CHG_ACL_SET:
		snprintf(buf, size, "target %s: ACL %s changed", t, ch->initiator);
		break;
	case CFG_CHG_LUN_ADD:
		snprintf(buf, size, "target %s%s: LUN %u added", t, map, lun);
		break;
	case CFG_CHG_LUN_DEL:
		snprintf(buf, size, "target %s%s: LUN %u deleted", t, map, lun);
		break;
	case CFG_CHG_LUN_SET:
		snprintf(buf, size, "target %s%s: LUN %u changed", t, map, lun);
		break;
	default:
		snprintf(buf, size, "?");
		break;
	}
}

/* ---- journal form ---- */
static int chg_json_put_str(json_t *o, const char *key, const char *s)
{
	return s ? json_object_set_new(o, key, json_string(s)) : 0;
}

json_t *cfg_settings_to_json(const struct cfg *s)
{
	struct cfg shell = *s;
	json_t *o;

	shell.bs = NULL;
	shell.nbs = 0;
	shell.targets = NULL;
	shell.ntargets = 0;
	o = cfg_object_to_json(CFG_OBJ_ROOT, &shell);
	if (o) {
		json_object_del(o, "backstores");
		json_object_del(o, "targets");
	}
	return o;
}

int cfg_chg_to_json(struct cfg_chg *ch)
{
	json_t *o = json_object(), *obj = NULL;
	int bad = !o;

	if (bad)
		return -ENOMEM;
	bad |= json_object_set_new(o, "op", json_string(chg_names[ch->kind]));
	bad |= chg_json_put_str(o, "target", ch->target);
	bad |= chg_json_put_str(o, "initiator", ch->initiator);
	bad |= chg_json_put_str(o, "name", ch->name);
	if (ch->kind == CFG_CHG_TPG_DEL || ch->kind == CFG_CHG_TPG_SET)
		bad |= json_object_set_new(o, "tag", json_integer(ch->tag));
	if (ch->kind == CFG_CHG_LUN_DEL || ch->kind == CFG_CHG_LUN_SET)
		bad |= json_object_set_new(o, "lun", json_integer(ch->lun));
	if (ch->has_obj) {
		if (ch->kind == CFG_CHG_SETTINGS)
			obj = cfg_settings_to_json(ch->obj.settings);
		else
			obj = cfg_object_to_json(chg_obj[ch->kind], &ch->obj);
		bad |= !obj;
		if (obj) {
			if (ch->kind == CFG_CHG_TGT_SET) {
				json_object_del(obj, "portal_groups");
				json_object_del(obj, "luns");
				json_object_del(obj, "acls");
			}
			bad |= json_object_set_new(o, "object", obj);
		}
	}
	if (bad) {
		json_decref(o);
		return -ENOMEM;
	}
	json_decref(ch->json);
	ch->json = o;
	return 0;
}

static enum cfg_chg_kind chg_kind_by_name(const char *s)
{
	for (int k = 1; k < CFG_CHG_KIND_COUNT; k++)
		if (strcmp(chg_names[k], s) == 0)
			return (enum cfg_chg_kind)k;
	return 0;
}

/* The fabric's iSCSI defaults (cfg_chg_set_defaults()). */
static struct iscsi_settings chg_defaults;

void cfg_chg_set_defaults(const struct iscsi_settings *d)
{
	chg_defaults = *d;
}

/* The settings object back into a tree of its own (absent iSCSI settings
 * take the fabric's defaults, as when the file is read). */
static int chg_settings_from_json(json_t *obj, struct cfg **out, struct cfg_err *err)
{
	json_t *doc = json_deep_copy(obj);
	char *text;
	int rc;

	*out = NULL;
	if (!doc)
		return -ENOMEM;
	json_object_set_new(doc, "version", json_integer(CFG_VERSION));
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	rc = cfg_parse(text, strlen(text), &chg_defaults, out, err);
	free(text);
	return rc;
}

int cfg_chg_from_json(json_t *j, struct cfg_chg **out, struct cfg_err *err)
{
	const char *op = json_string_value(json_object_get(j, "op"));
	json_t *obj = json_object_get(j, "object");
	enum cfg_chg_kind kind = op ? chg_kind_by_name(op) : 0;
	struct cfg_chg *ch;
	int rc = 0;

	*out = NULL;
	*err = (struct cfg_err){0};
	if (!kind)
		return chg_err(err, -EINVAL, "op", "unknown change \"%s\"", op ? op : "");
	ch = cfg_chg_new(kind, json_string_value(json_object_get(j, "target")),
			 json_string_value(json_object_get(j, "initiator")),
			 json_string_value(json_object_get(j, "name")));
	if (!ch)
		return -ENOMEM;
	ch->tag = (uint16_t)json_integer_value(json_object_get(j, "tag"));
	ch->lun = (uint32_t)json_integer_value(json_object_get(j, "lun"));
	if (chg_has_object(kind)) {
		if (!obj) {
			cfg_chg_free(ch);
			return chg_err(err, -EINVAL, "object", "missing");
		}
		if (kind == CFG_CHG_SETTINGS)
			rc = chg_settings_from_json(obj, &ch->obj.settings, err);
		else
			rc = cfg_object_from_json(chg_obj[kind], obj, &ch->obj, err);
		ch->has_obj = true;
		if (rc) {
			cfg_chg_free(ch);
			return rc;
		}
	}
	ch->json = json_incref(j);
	*out = ch;
	return 0;
}

/* ---- arrays of the tree ---- */

/* Room for one more element after n (capacity: what the allocator gave). */
static int arr_reserve(void **v, size_t n, size_t elem)
{
	size_t cap = *v ? malloc_usable_size(*v) / elem : 0;
	void *nv;

	if (n + 1 <= cap)
		return 0;
	cap = n < 4 ? 8 : n * 2;
	nv = realloc(*v, cap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

static void arr_insert(void *v, size_t *n, size_t elem, size_t pos, const void *item)
{
	char *b = v;

	memmove(b + (pos + 1) * elem, b + pos * elem, (*n - pos) * elem);
	memcpy(b + pos * elem, item, elem);
	(*n)++;
}

static void arr_remove(void *v, size_t *n, size_t elem, size_t pos, void *out)
{
	char *b = v;

	memcpy(out, b + pos * elem, elem);
	memmove(b + pos * elem, b + (pos + 1) * elem, (*n - pos - 1) * elem);
	(*n)--;
}

static void swap_bytes(void *a, void *b, size_t n)
{
	unsigned char tmp[512];

	static_assert(sizeof(struct cfg_target) <= sizeof(tmp), "swap buffer");
	static_assert(sizeof(struct cfg_backstore) <= sizeof(tmp), "swap buffer");
	memcpy(tmp, a, n);
	memcpy(a, b, n);
	memcpy(b, tmp, n);
}

/* ---- lookups ---- */
static struct cfg_target *chg_target(struct cfg *c, const struct cfg_index *ix, const char *name,
				     size_t *pos)
{
	long i = name ? cfg_ix_target(ix, name) : -1;

	if (i < 0)
		return NULL;
	if (pos)
		*pos = (size_t)i;
	return &c->targets[i];
}

/* The LUN list a LUN change works on: the target's, or an ACL's own. */
static int chg_lun_list(struct cfg *c, const struct cfg_index *ix, const struct cfg_chg *ch,
			struct cfg_target **tp, struct cfg_lun_list **lp, struct cfg_err *err)
{
	struct cfg_target *t = chg_target(c, ix, ch->target, NULL);
	long a;

	if (!t)
		return chg_err(err, -ENOENT, "", "no target named \"%s\"",
			       ch->target ? ch->target : "");
	*tp = t;
	if (!ch->initiator) {
		*lp = &t->luns;
		return 0;
	}
	a = cfg_ix_acl(ix, t->name, ch->initiator);
	if (a < 0)
		return chg_err(err, -ENOENT, "", "target \"%s\" has no ACL for \"%s\"", t->name,
			       ch->initiator);
	if (!t->acls[a].has_luns)
		return chg_err(err, -EINVAL, "",
			       "the ACL of \"%s\" uses the target's LUN map (give it its own "
			       "\"luns\" first)",
			       ch->initiator);
	*lp = &t->acls[a].luns;
	return 0;
}

/* Smallest relative port identifier no portal group uses (nor one of the
 * `n` groups in pending). 0 when all are taken. */
static uint16_t chg_free_rel_port(const struct cfg_index *ix,
				  const struct cfg_portal_group *pending, size_t n)
{
	for (uint32_t id = 1; id <= 65535; id++) {
		bool used = cfg_ix_rel_port(ix, (uint16_t)id) > 0;

		for (size_t i = 0; i < n && !used; i++)
			used = pending[i].rel_port_id == id;
		if (!used)
			return (uint16_t)id;
	}
	return 0;
}

static int chg_check_rel_port(const struct cfg_index *ix, const struct cfg_portal_group *g,
			      const char *path, struct cfg_err *err)
{
	if (g->rel_port_id && cfg_ix_rel_port(ix, g->rel_port_id))
		return chg_err(err, -EINVAL, path,
			       "relative port identifier %u is already used by another portal "
			       "group",
			       g->rel_port_id);
	return 0;
}

static int chg_assign_rel_ports(const struct cfg_index *ix, struct cfg_portal_group *g, size_t n,
				struct cfg_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (g[i].rel_port_id)
			continue;
		/* the groups before i in this array are pending too */
		g[i].rel_port_id = chg_free_rel_port(ix, g, n);
		if (!g[i].rel_port_id)
			return chg_err(err, -ENOSPC, "", "no free relative port identifier");
	}
	return 0;
}

/* ---- settings ---- */
static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Swap every root field but back-stores and targets between c and s. */
static void chg_swap_settings(struct cfg *c, struct cfg *s)
{
	struct cfg tmp = *c;

	*c = *s;
	c->bs = tmp.bs;
	c->nbs = tmp.nbs;
	c->targets = tmp.targets;
	c->ntargets = tmp.ntargets;
	*s = tmp;
	s->bs = NULL;
	s->nbs = 0;
	s->targets = NULL;
	s->ntargets = 0;
}

static int chg_apply_settings(struct cfg *c, struct cfg_chg *ch, struct cfg_err *err)
{
	struct cfg *s = ch->obj.settings;

	if (!str_eq(s->state_dir, c->state_dir))
		return chg_err(err, -EINVAL, "state_dir",
			       "cannot change while utargetd runs (restart it)");
	if (!str_eq(s->rpc_socket, c->rpc_socket))
		return chg_err(err, -EINVAL, "rpc_socket",
			       "cannot change while utargetd runs (restart it)");
	if (s->iscsi.first_burst_length > s->iscsi.max_burst_length)
		/* RFC 7143 13.14 */
		return chg_err(err, -EINVAL, "iscsi.first_burst_length",
			       "first_burst_length %u exceeds max_burst_length %u",
			       s->iscsi.first_burst_length, s->iscsi.max_burst_length);
	chg_swap_settings(c, s);
	return 0;
}

/* ---- back-stores ---- */
static int chg_apply_bs(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			struct cfg_err *err)
{
	struct cfg_backstore *nb = &ch->obj.bs;
	char p[64], path[CFG_FULL_PATH_MAX];
	long pos, other;
	int rc;

	if (ch->kind == CFG_CHG_BS_ADD) {
		if (cfg_ix_bs(ix, nb->name) >= 0)
			return chg_err(err, -EEXIST, "", "back-store \"%s\" exists", nb->name);
		pos = (long)c->nbs;
	} else {
		pos = cfg_ix_bs(ix, ch->name);
		if (pos < 0)
			return chg_err(err, -ENOENT, "", "no back-store named \"%s\"", ch->name);
	}
	snprintf(p, sizeof(p), "backstores[%ld]", pos);
	if (ch->kind == CFG_CHG_BS_DEL) {
		unsigned refs = cfg_ix_bs_refs(ix, ch->name);

		if (refs)
			return chg_err(err, -EBUSY, p,
				       "back-store \"%s\" is mapped at %u LUN(s); unmap it first",
				       ch->name, refs);
		cfg_ix_del_bs(ix, c, &c->bs[pos]);
		arr_remove(c->bs, &c->nbs, sizeof(*c->bs), (size_t)pos, nb);
		for (size_t i = (size_t)pos; i < c->nbs; i++)
			cfg_ix_bs_pos(ix, c, &c->bs[i], i);
		ch->has_obj = true;
		ch->pos = (size_t)pos;
		return 0;
	}
	if (ch->kind == CFG_CHG_BS_SET && strcmp(nb->name, ch->name) != 0)
		return chg_err(err, -EINVAL, p, "a back-store cannot be renamed");
	/* the same file as another back-store? */
	if (nb->path && cfg_bs_path(c, nb, path, sizeof(path)) == 0) {
		other = cfg_ix_path(ix, path);
		if (other >= 0 && other != pos) {
			snprintf(p, sizeof(p), "backstores[%ld].path", pos);
			return chg_err(err, -EINVAL, p, "the same file as backstores[%ld]", other);
		}
	}
	rc = cfg_verify_backstore_one(c, nb, (size_t)pos, err);
	if (!rc)
		rc = cfg_check_file(c, nb, (size_t)pos, err);
	if (rc)
		return rc;
	if (ch->kind == CFG_CHG_BS_ADD) {
		if (arr_reserve((void **)&c->bs, c->nbs, sizeof(*c->bs)))
			return chg_err(err, -ENOMEM, "", "out of memory");
		c->bs[c->nbs] = *nb;
		rc = cfg_ix_put_bs(ix, c, &c->bs[c->nbs], c->nbs);
		if (rc)
			return chg_err(err, rc, "", "out of memory");
		c->nbs++;
		*nb = (struct cfg_backstore){0};
		ch->has_obj = false;
	} else {
		cfg_ix_del_bs(ix, c, &c->bs[pos]);
		swap_bytes(nb, &c->bs[pos], sizeof(*nb));
		rc = cfg_ix_put_bs(ix, c, &c->bs[pos], (size_t)pos);
		if (rc) {
			swap_bytes(nb, &c->bs[pos], sizeof(*nb));
			cfg_ix_put_bs(ix, c, &c->bs[pos], (size_t)pos);
			return chg_err(err, rc, "", "out of memory");
		}
	}
	ch->pos = (size_t)pos;
	return 0;
}

static void chg_undo_bs(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_backstore *nb = &ch->obj.bs;
	size_t pos = ch->pos;

	switch (ch->kind) {
	case CFG_CHG_BS_ADD:
		cfg_ix_del_bs(ix, c, &c->bs[pos]);
		arr_remove(c->bs, &c->nbs, sizeof(*c->bs), pos, nb);
		ch->has_obj = true;
		break;
	case CFG_CHG_BS_DEL:
		/* the array kept its capacity */
		arr_insert(c->bs, &c->nbs, sizeof(*c->bs), pos, nb);
		*nb = (struct cfg_backstore){0};
		ch->has_obj = false;
		cfg_ix_put_bs(ix, c, &c->bs[pos], pos);
		for (size_t i = pos + 1; i < c->nbs; i++)
			cfg_ix_bs_pos(ix, c, &c->bs[i], i);
		break;
	default:
		cfg_ix_del_bs(ix, c, &c->bs[pos]);
		swap_bytes(nb, &c->bs[pos], sizeof(*nb));
		cfg_ix_put_bs(ix, c, &c->bs[pos], pos);
		break;
	}
}

/* ---- targets ---- */
static void swap_children(struct cfg_target *a, struct cfg_target *b)
{
	struct cfg_target tmp = *a;

	a->tpgs = b->tpgs;
	a->ntpgs = b->ntpgs;
	a->luns = b->luns;
	a->acls = b->acls;
	a->nacls = b->nacls;
	b->tpgs = tmp.tpgs;
	b->ntpgs = tmp.ntpgs;
	b->luns = tmp.luns;
	b->acls = tmp.acls;
	b->nacls = tmp.nacls;
}

static int chg_apply_target(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			    struct cfg_err *err)
{
	struct cfg_target *nt = &ch->obj.t, *t;
	char p[CFG_ERR_PATH_MAX];
	size_t pos;
	int rc;

	if (ch->kind == CFG_CHG_TGT_ADD) {
		if (cfg_ix_target(ix, nt->name) >= 0)
			return chg_err(err, -EEXIST, "", "target \"%s\" exists", nt->name);
		pos = c->ntargets;
		for (size_t g = 0; g < nt->ntpgs; g++) {
			snprintf(p, sizeof(p), "targets[%zu].portal_groups[%zu].rel_port_id", pos,
				 g);
			rc = chg_check_rel_port(ix, &nt->tpgs[g], p, err);
			if (rc)
				return rc;
		}
		rc = chg_assign_rel_ports(ix, nt->tpgs, nt->ntpgs, err);
		if (!rc)
			rc = cfg_verify_target_one(c, ix, nt, pos, err);
		if (rc)
			return rc;
		if (arr_reserve((void **)&c->targets, c->ntargets, sizeof(*c->targets)))
			return chg_err(err, -ENOMEM, "", "out of memory");
		c->targets[pos] = *nt;
		rc = cfg_ix_put_target(ix, &c->targets[pos], pos);
		if (rc)
			return chg_err(err, rc, "", "out of memory");
		c->ntargets++;
		*nt = (struct cfg_target){0};
		ch->has_obj = false;
		ch->pos = pos;
		return 0;
	}
	t = chg_target(c, ix, ch->target, &pos);
	if (!t)
		return chg_err(err, -ENOENT, "", "no target named \"%s\"", ch->target);
	ch->pos = pos;
	if (ch->kind == CFG_CHG_TGT_DEL) {
		cfg_ix_del_target(ix, t);
		arr_remove(c->targets, &c->ntargets, sizeof(*c->targets), pos, nt);
		for (size_t i = pos; i < c->ntargets; i++)
			cfg_ix_target_pos(ix, &c->targets[i], i);
		ch->has_obj = true;
		return 0;
	}
	/* TGT_SET: the new own fields, the old children */
	if (strcmp(nt->name, t->name) != 0)
		return chg_err(err, -EINVAL, "", "a target cannot be renamed");
	swap_children(nt, t);
	swap_bytes(nt, t, sizeof(*nt));
	rc = cfg_verify_target_one(c, ix, t, pos, err);
	if (rc) {
		swap_bytes(nt, t, sizeof(*nt));
		swap_children(nt, t);
	}
	return rc;
}

static void chg_undo_target(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_target *nt = &ch->obj.t;
	size_t pos = ch->pos;

	switch (ch->kind) {
	case CFG_CHG_TGT_ADD:
		cfg_ix_del_target(ix, &c->targets[pos]);
		arr_remove(c->targets, &c->ntargets, sizeof(*c->targets), pos, nt);
		ch->has_obj = true;
		break;
	case CFG_CHG_TGT_DEL:
		arr_insert(c->targets, &c->ntargets, sizeof(*c->targets), pos, nt);
		*nt = (struct cfg_target){0};
		ch->has_obj = false;
		cfg_ix_put_target(ix, &c->targets[pos], pos);
		for (size_t i = pos + 1; i < c->ntargets; i++)
			cfg_ix_target_pos(ix, &c->targets[i], i);
		break;
	default:
		swap_bytes(nt, &c->targets[pos], sizeof(*nt));
		swap_children(nt, &c->targets[pos]);
		break;
	}
}

/* ---- portal groups ---- */
static int chg_apply_tpg(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	struct cfg_portal_group *ng = &ch->obj.g;
	char p[CFG_ERR_PATH_MAX];
	struct cfg_target *t;
	size_t ti;
	long pos;
	int rc;

	t = chg_target(c, ix, ch->target, &ti);
	if (!t)
		return chg_err(err, -ENOENT, "", "no target named \"%s\"",
			       ch->target ? ch->target : "");
	if (ch->kind == CFG_CHG_TPG_ADD) {
		if (cfg_ix_tpg(ix, t->name, ng->tag) >= 0)
			return chg_err(err, -EEXIST, "", "target \"%s\" has a portal group %u",
				       t->name, ng->tag);
		pos = (long)t->ntpgs;
	} else {
		pos = cfg_ix_tpg(ix, t->name, ch->tag);
		if (pos < 0)
			return chg_err(err, -ENOENT, "", "target \"%s\" has no portal group %u",
				       t->name, ch->tag);
	}
	snprintf(p, sizeof(p), "targets[%zu].portal_groups[%ld]", ti, pos);
	ch->pos = (size_t)pos;
	if (ch->kind == CFG_CHG_TPG_DEL) {
		if (t->ntpgs == 1)
			return chg_err(err, -EINVAL, p,
				       "a target needs at least one portal group (delete the "
				       "target instead)");
		cfg_ix_del_tpg(ix, t, &t->tpgs[pos]);
		arr_remove(t->tpgs, &t->ntpgs, sizeof(*t->tpgs), (size_t)pos, ng);
		for (size_t i = (size_t)pos; i < t->ntpgs; i++)
			cfg_ix_tpg_pos(ix, t, &t->tpgs[i], i);
		ch->has_obj = true;
		return 0;
	}
	if (ch->kind == CFG_CHG_TPG_SET && ng->tag != ch->tag)
		return chg_err(err, -EINVAL, p, "a portal group's tag cannot change");
	if (ch->kind == CFG_CHG_TPG_SET && ng->rel_port_id == 0)
		ng->rel_port_id = t->tpgs[pos].rel_port_id; /* keep it */
	if (ch->kind == CFG_CHG_TPG_ADD || ng->rel_port_id != t->tpgs[pos].rel_port_id) {
		char rp[CFG_ERR_PATH_MAX + 16];

		snprintf(rp, sizeof(rp), "%s.rel_port_id", p);
		rc = chg_check_rel_port(ix, ng, rp, err);
		if (!rc)
			rc = chg_assign_rel_ports(ix, ng, 1, err);
		if (rc)
			return rc;
	}
	rc = cfg_verify_tpg_one(ng, p, err);
	if (rc)
		return rc;
	if (ch->kind == CFG_CHG_TPG_ADD) {
		if (arr_reserve((void **)&t->tpgs, t->ntpgs, sizeof(*t->tpgs)))
			return chg_err(err, -ENOMEM, "", "out of memory");
		t->tpgs[pos] = *ng;
		rc = cfg_ix_put_tpg(ix, t, &t->tpgs[pos], (size_t)pos);
		if (rc)
			return chg_err(err, rc, "", "out of memory");
		t->ntpgs++;
		*ng = (struct cfg_portal_group){0};
		ch->has_obj = false;
		return 0;
	}
	cfg_ix_del_tpg(ix, t, &t->tpgs[pos]);
	swap_bytes(ng, &t->tpgs[pos], sizeof(*ng));
	rc = cfg_ix_put_tpg(ix, t, &t->tpgs[pos], (size_t)pos);
	if (rc) {
		swap_bytes(ng, &t->tpgs[pos], sizeof(*ng));
		cfg_ix_put_tpg(ix, t, &t->tpgs[pos], (size_t)pos);
		return chg_err(err, rc, "", "out of memory");
	}
	return 0;
}

static void chg_undo_tpg(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_target *t = chg_target(c, ix, ch->target, NULL);
	struct cfg_portal_group *ng = &ch->obj.g;
	size_t pos = ch->pos;

	switch (ch->kind) {
	case CFG_CHG_TPG_ADD:
		cfg_ix_del_tpg(ix, t, &t->tpgs[pos]);
		arr_remove(t->tpgs, &t->ntpgs, sizeof(*t->tpgs), pos, ng);
		ch->has_obj = true;
		break;
	case CFG_CHG_TPG_DEL:
		arr_insert(t->tpgs, &t->ntpgs, sizeof(*t->tpgs), pos, ng);
		*ng = (struct cfg_portal_group){0};
		ch->has_obj = false;
		cfg_ix_put_tpg(ix, t, &t->tpgs[pos], pos);
		for (size_t i = pos + 1; i < t->ntpgs; i++)
			cfg_ix_tpg_pos(ix, t, &t->tpgs[i], i);
		break;
	default:
		cfg_ix_del_tpg(ix, t, &t->tpgs[pos]);
		swap_bytes(ng, &t->tpgs[pos], sizeof(*ng));
		cfg_ix_put_tpg(ix, t, &t->tpgs[pos], pos);
		break;
	}
}

/* ---- ACLs ---- */
static int chg_apply_acl(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	struct cfg_acl *na = &ch->obj.a;
	char p[CFG_ERR_PATH_MAX], key[CFG_ACL_KEY_MAX];
	struct cfg_target *t;
	size_t ti;
	long pos;
	int rc;

	t = chg_target(c, ix, ch->target, &ti);
	if (!t)
		return chg_err(err, -ENOENT, "", "no target named \"%s\"",
			       ch->target ? ch->target : "");
	if (ch->kind != CFG_CHG_ACL_DEL && cfg_acl_key(na, key, sizeof(key)))
		return chg_err(err, -EINVAL, "", "the ACL's addresses are too long");
	if (ch->kind == CFG_CHG_ACL_ADD) {
		if (cfg_ix_acl(ix, t->name, key) >= 0)
			return chg_err(err, -EEXIST, "", "target \"%s\" has an ACL for \"%s\"",
				       t->name, key);
		pos = (long)t->nacls;
	} else {
		pos = cfg_ix_acl(ix, t->name, ch->initiator);
		if (pos < 0)
			return chg_err(err, -ENOENT, "", "target \"%s\" has no ACL for \"%s\"",
				       t->name, ch->initiator);
	}
	snprintf(p, sizeof(p), "targets[%zu].acls[%ld]", ti, pos);
	ch->pos = (size_t)pos;
	if (ch->kind == CFG_CHG_ACL_DEL) {
		cfg_ix_del_acl(ix, t, &t->acls[pos]);
		arr_remove(t->acls, &t->nacls, sizeof(*t->acls), (size_t)pos, na);
		for (size_t i = (size_t)pos; i < t->nacls; i++)
			cfg_ix_acl_pos(ix, t, &t->acls[i], i);
		ch->has_obj = true;
		return 0;
	}
	if (ch->kind == CFG_CHG_ACL_SET && strcmp(key, ch->initiator) != 0)
		return chg_err(err, -EINVAL, p,
			       "an ACL's initiator (or, without one, its addresses) cannot change");
	rc = cfg_verify_acl_one(c, ix, na, p, err);
	if (rc)
		return rc;
	if (ch->kind == CFG_CHG_ACL_ADD) {
		if (arr_reserve((void **)&t->acls, t->nacls, sizeof(*t->acls)))
			return chg_err(err, -ENOMEM, "", "out of memory");
		t->acls[pos] = *na;
		rc = cfg_ix_put_acl(ix, t, &t->acls[pos], (size_t)pos);
		if (rc)
			return chg_err(err, rc, "", "out of memory");
		t->nacls++;
		*na = (struct cfg_acl){0};
		ch->has_obj = false;
		return 0;
	}
	cfg_ix_del_acl(ix, t, &t->acls[pos]);
	swap_bytes(na, &t->acls[pos], sizeof(*na));
	rc = cfg_ix_put_acl(ix, t, &t->acls[pos], (size_t)pos);
	if (rc) {
		swap_bytes(na, &t->acls[pos], sizeof(*na));
		cfg_ix_put_acl(ix, t, &t->acls[pos], (size_t)pos);
		return chg_err(err, rc, "", "out of memory");
	}
	return 0;
}

static void chg_undo_acl(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_target *t = chg_target(c, ix, ch->target, NULL);
	struct cfg_acl *na = &ch->obj.a;
	size_t pos = ch->pos;

	switch (ch->kind) {
	case CFG_CHG_ACL_ADD:
		cfg_ix_del_acl(ix, t, &t->acls[pos]);
		arr_remove(t->acls, &t->nacls, sizeof(*t->acls), pos, na);
		ch->has_obj = true;
		break;
	case CFG_CHG_ACL_DEL:
		arr_insert(t->acls, &t->nacls, sizeof(*t->acls), pos, na);
		*na = (struct cfg_acl){0};
		ch->has_obj = false;
		cfg_ix_put_acl(ix, t, &t->acls[pos], pos);
		for (size_t i = pos + 1; i < t->nacls; i++)
			cfg_ix_acl_pos(ix, t, &t->acls[i], i);
		break;
	default:
		cfg_ix_del_acl(ix, t, &t->acls[pos]);
		swap_bytes(na, &t->acls[pos], sizeof(*na));
		cfg_ix_put_acl(ix, t, &t->acls[pos], pos);
		break;
	}
}

/* ---- LUNs ---- */
static int chg_apply_lun(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	char path[CFG_ERR_PATH_MAX];
	struct cfg_lun *nl = &ch->obj.l;
	struct cfg_lun_list *l = NULL;
	struct cfg_target *t = NULL;
	long pos, other;
	int rc;

	rc = chg_lun_list(c, ix, ch, &t, &l, err);
	if (rc)
		return rc;
	if (ch->kind == CFG_CHG_LUN_ADD) {
		if (cfg_ix_lun(ix, t->name, ch->initiator, nl->lun) >= 0)
			return chg_err(err, -EEXIST, "", "LUN %u is already mapped", nl->lun);
		pos = (long)l->n;
	} else {
		pos = cfg_ix_lun(ix, t->name, ch->initiator, ch->lun);
		if (pos < 0)
			return chg_err(err, -ENOENT, "", "LUN %u is not mapped", ch->lun);
	}
	ch->pos = (size_t)pos;
	if (ch->kind == CFG_CHG_LUN_DEL) {
		cfg_ix_del_lun(ix, t->name, ch->initiator, &l->v[pos]);
		arr_remove(l->v, &l->n, sizeof(*l->v), (size_t)pos, nl);
		for (size_t i = (size_t)pos; i < l->n; i++)
			cfg_ix_lun_pos(ix, t->name, ch->initiator, &l->v[i], i);
		ch->has_obj = true;
		return 0;
	}
	if (ch->kind == CFG_CHG_LUN_SET && nl->lun != ch->lun)
		return chg_err(err, -EINVAL, "", "a mapping's LUN cannot change");
	/* the field as the file names it */
	if (ch->initiator)
		snprintf(path, sizeof(path), "targets[%zu].acls[%ld].luns[%ld].backstore",
			 (size_t)(t - c->targets), cfg_ix_acl(ix, t->name, ch->initiator), pos);
	else
		snprintf(path, sizeof(path), "targets[%zu].luns[%ld].backstore",
			 (size_t)(t - c->targets), pos);
	if (cfg_ix_bs(ix, nl->backstore) < 0)
		return chg_err(err, -EINVAL, path, "no back-store named \"%s\"", nl->backstore);
	other = cfg_ix_lun_bs(ix, t->name, ch->initiator, nl->backstore);
	if (other >= 0 && other != pos)
		return chg_err(err, -EINVAL, path, "back-store \"%s\" is already mapped at LUN %u",
			       nl->backstore, l->v[other].lun);
	if (ch->kind == CFG_CHG_LUN_ADD) {
		if (arr_reserve((void **)&l->v, l->n, sizeof(*l->v)))
			return chg_err(err, -ENOMEM, "", "out of memory");
		l->v[pos] = *nl;
		rc = cfg_ix_put_lun(ix, t->name, ch->initiator, &l->v[pos], (size_t)pos);
		if (rc)
			return chg_err(err, rc, "", "out of memory");
		l->n++;
		*nl = (struct cfg_lun){0};
		ch->has_obj = false;
		return 0;
	}
	cfg_ix_del_lun(ix, t->name, ch->initiator, &l->v[pos]);
	swap_bytes(nl, &l->v[pos], sizeof(*nl));
	rc = cfg_ix_put_lun(ix, t->name, ch->initiator, &l->v[pos], (size_t)pos);
	if (rc) {
		swap_bytes(nl, &l->v[pos], sizeof(*nl));
		cfg_ix_put_lun(ix, t->name, ch->initiator, &l->v[pos], (size_t)pos);
		return chg_err(err, rc, "", "out of memory");
	}
	return 0;
}

static void chg_undo_lun(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_lun *nl = &ch->obj.l;
	struct cfg_lun_list *l = NULL;
	struct cfg_target *t = NULL;
	struct cfg_err err;
	size_t pos = ch->pos;

	if (chg_lun_list(c, ix, ch, &t, &l, &err))
		return; /* cannot happen: the change was applied to this list */
	switch (ch->kind) {
	case CFG_CHG_LUN_ADD:
		cfg_ix_del_lun(ix, t->name, ch->initiator, &l->v[pos]);
		arr_remove(l->v, &l->n, sizeof(*l->v), pos, nl);
		ch->has_obj = true;
		break;
	case CFG_CHG_LUN_DEL:
		arr_insert(l->v, &l->n, sizeof(*l->v), pos, nl);
		*nl = (struct cfg_lun){0};
		ch->has_obj = false;
		cfg_ix_put_lun(ix, t->name, ch->initiator, &l->v[pos], pos);
		for (size_t i = pos + 1; i < l->n; i++)
			cfg_ix_lun_pos(ix, t->name, ch->initiator, &l->v[i], i);
		break;
	default:
		cfg_ix_del_lun(ix, t->name, ch->initiator, &l->v[pos]);
		swap_bytes(nl, &l->v[pos], sizeof(*nl));
		cfg_ix_put_lun(ix, t->name, ch->initiator, &l->v[pos], pos);
		break;
	}
}

/* Additions name their object by what they carry: fill the keys (for
 * descriptions and the running side). */
static int chg_fill_keys(struct cfg_chg *ch)
{
	char key[CFG_ACL_KEY_MAX];
	char **dst = NULL;
	const char *src = NULL;

	switch (ch->kind) {
	case CFG_CHG_BS_ADD:
		dst = &ch->name;
		src = ch->obj.bs.name;
		break;
	case CFG_CHG_TGT_ADD:
		dst = &ch->target;
		src = ch->obj.t.name;
		break;
	case CFG_CHG_TPG_ADD:
		ch->tag = ch->obj.g.tag;
		break;
	case CFG_CHG_LUN_ADD:
		ch->lun = ch->obj.l.lun;
		break;
	case CFG_CHG_ACL_ADD:
		if (cfg_acl_key(&ch->obj.a, key, sizeof(key)))
			return -EINVAL;
		dst = &ch->initiator;
		src = key;
		break;
	default:
		break;
	}
	if (dst && !*dst && src && !(*dst = strdup(src)))
		return -ENOMEM;
	return 0;
}

int cfg_chg_apply(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch, struct cfg_err *err)
{
	int rc;

	*err = (struct cfg_err){0};
	if (ch->applied)
		return 0;
	if (chg_has_object(ch->kind) && !ch->has_obj)
		return chg_err(err, -EINVAL, "", "the change carries no object");
	rc = chg_fill_keys(ch);
	if (rc)
		return chg_err(err, rc, "", rc == -ENOMEM ? "out of memory" : "bad object name");
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		rc = chg_apply_settings(c, ch, err);
		break;
	case CFG_CHG_BS_ADD:
	case CFG_CHG_BS_DEL:
	case CFG_CHG_BS_SET:
		rc = chg_apply_bs(c, ix, ch, err);
		break;
	case CFG_CHG_TGT_ADD:
	case CFG_CHG_TGT_DEL:
	case CFG_CHG_TGT_SET:
		rc = chg_apply_target(c, ix, ch, err);
		break;
	case CFG_CHG_TPG_ADD:
	case CFG_CHG_TPG_DEL:
	case CFG_CHG_TPG_SET:
		rc = chg_apply_tpg(c, ix, ch, err);
		break;
	case CFG_CHG_ACL_ADD:
	case CFG_CHG_ACL_DEL:
	case CFG_CHG_ACL_SET:
		rc = chg_apply_acl(c, ix, ch, err);
		break;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		rc = chg_apply_lun(c, ix, ch, err);
		break;
	default:
		rc = chg_err(err, -EINVAL, "", "unknown change");
		break;
	}
	if (rc == -ENOMEM && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	ch->applied = rc == 0;
	return rc;
}

void cfg_chg_undo(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	if (!ch->applied)
		return;
	switch (ch->kind) {
	case CFG_CHG_SETTINGS:
		chg_swap_settings(c, ch->obj.settings);
		break;
	case CFG_CHG_BS_ADD:
	case CFG_CHG_BS_DEL:
	case CFG_CHG_BS_SET:
		chg_undo_bs(c, ix, ch);
		break;
	case CFG_CHG_TGT_ADD:
	case CFG_CHG_TGT_DEL:
	case CFG_CHG_TGT_SET:
		chg_undo_target(c, ix, ch);
		break;
	case CFG_CHG_TPG_ADD:
	case CFG_CHG_TPG_DEL:
	case CFG_CHG_TPG_SET:
		chg_undo_tpg(c, ix, ch);
		break;
	case CFG_CHG_ACL_ADD:
	case CFG_CHG_ACL_DEL:
	case CFG_CHG_ACL_SET:
		chg_undo_acl(c, ix, ch);
		break;
	case CFG_CHG_LUN_ADD:
	case CFG_CHG_LUN_DEL:
	case CFG_CHG_LUN_SET:
		chg_undo_lun(c, ix, ch);
		break;
	default:
		break;
	}
	ch->applied = false;
}

int cfg_verify_cross(const struct cfg *c, struct cfg_err *err)
{
	int rc = 0;

	*err = (struct cfg_err){0};
	if (c->npgs)
		rc = cfg_verify_port_groups(c, err); /* ALUA (port_groups.c) */
	if (!rc)
		rc = cfg_auth_verify(c, err); /* discovery, secrets (auth.c) */
	return rc;
}

/* ---- transactions ---- */
int cfg_txn_add(struct cfg_txn *x, struct cfg_chg *ch)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 8;
		struct cfg_chg **v = realloc(x->v, cap * sizeof(*v));

		if (!v) {
			cfg_chg_free(ch);
			return -ENOMEM;
		}
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = ch;
	return 0;
}

void cfg_txn_clear(struct cfg_txn *x)
{
	for (size_t i = 0; i < x->n; i++)
		cfg_chg_free(x->v[i]);
	free(x->v);
	*x = (struct cfg_txn){0};
}

int cfg_txn_apply(struct cfg *c, struct cfg_index *ix, struct cfg_txn *x, size_t *failed,
		  struct cfg_err *err)
{
	int rc = 0;

	for (; x->applied < x->n; x->applied++) {
		struct cfg_chg *ch = x->v[x->applied];

		if (!ch->json && (rc = cfg_chg_to_json(ch))) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			break;
		}
		rc = cfg_chg_apply(c, ix, ch, err);
		if (rc)
			break;
	}
	if (!rc) {
		rc = cfg_verify_cross(c, err);
		if (rc)
			x->applied = x->n; /* report the whole transaction */
	}
	if (rc) {
		*failed = x->applied;
		cfg_txn_undo(c, ix, x);
	}
	return rc;
}

void cfg_txn_undo(struct cfg *c, struct cfg_index *ix, struct cfg_txn *x)
{
	size_t n = x->applied < x->n ? x->applied + 1 : x->n;

	while (n-- > 0)
		cfg_chg_undo(c, ix, x->v[n]);
	x->applied = 0;
}

int cfg_freeze_port_ids(struct cfg *c)
{
	size_t n = cfg_count_portal_groups(c), k = 0;
	uint16_t *ids = calloc(n ? n : 1, sizeof(*ids));
	int rc;

	if (!ids)
		return -ENOMEM;
	rc = cfg_assign_port_ids(c, ids, n);
	for (size_t i = 0; !rc && i < c->ntargets; i++)
		for (size_t g = 0; g < c->targets[i].ntpgs; g++, k++)
			c->targets[i].tpgs[g].rel_port_id = ids[k];
	free(ids);
	return rc;
}
