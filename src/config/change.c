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

enum chg_op { CHG_NONE, CHG_ADD, CHG_DEL, CHG_SET };

/* The array each change works on, and what it does there. */
static const struct {
	enum cfg_obj_kind arr;
	enum chg_op op;
} chg_on[CFG_CHG_KIND_COUNT] = {
    [CFG_CHG_BS_ADD] = {.arr = CFG_OBJ_BACKSTORE, .op = CHG_ADD},
    [CFG_CHG_BS_DEL] = {.arr = CFG_OBJ_BACKSTORE, .op = CHG_DEL},
    [CFG_CHG_BS_SET] = {.arr = CFG_OBJ_BACKSTORE, .op = CHG_SET},
    [CFG_CHG_TGT_ADD] = {.arr = CFG_OBJ_TARGET, .op = CHG_ADD},
    [CFG_CHG_TGT_DEL] = {.arr = CFG_OBJ_TARGET, .op = CHG_DEL},
    [CFG_CHG_TGT_SET] = {.arr = CFG_OBJ_TARGET, .op = CHG_SET},
    [CFG_CHG_TPG_ADD] = {.arr = CFG_OBJ_PORTAL_GROUP, .op = CHG_ADD},
    [CFG_CHG_TPG_DEL] = {.arr = CFG_OBJ_PORTAL_GROUP, .op = CHG_DEL},
    [CFG_CHG_TPG_SET] = {.arr = CFG_OBJ_PORTAL_GROUP, .op = CHG_SET},
    [CFG_CHG_ACL_ADD] = {.arr = CFG_OBJ_ACL, .op = CHG_ADD},
    [CFG_CHG_ACL_DEL] = {.arr = CFG_OBJ_ACL, .op = CHG_DEL},
    [CFG_CHG_ACL_SET] = {.arr = CFG_OBJ_ACL, .op = CHG_SET},
    [CFG_CHG_LUN_ADD] = {.arr = CFG_OBJ_LUN, .op = CHG_ADD},
    [CFG_CHG_LUN_DEL] = {.arr = CFG_OBJ_LUN, .op = CHG_DEL},
    [CFG_CHG_LUN_SET] = {.arr = CFG_OBJ_LUN, .op = CHG_SET},
};

/* The array a change works on (CFG_OBJ_ROOT: settings, or a kind unknown). */
static enum cfg_obj_kind chg_arr_kind(enum cfg_chg_kind k)
{
	return k > 0 && k < CFG_CHG_KIND_COUNT ? chg_on[k].arr : CFG_OBJ_ROOT;
}

/* The object kind a change carries (CFG_OBJ_ROOT: none, or the settings). */
static enum cfg_obj_kind chg_obj(enum cfg_chg_kind k)
{
	enum cfg_obj_kind a = chg_arr_kind(k);

	return a != CFG_OBJ_ROOT && chg_on[k].op == CHG_DEL ? CFG_OBJ_ROOT : a;
}

static bool chg_has_object(enum cfg_chg_kind k)
{
	return k == CFG_CHG_SETTINGS || chg_obj(k) != CFG_OBJ_ROOT;
}

const char *cfg_chg_kind_name(enum cfg_chg_kind kind)
{
	return kind > 0 && kind < CFG_CHG_KIND_COUNT ? chg_names[kind] : NULL;
}

#define chg_err(err, rc, path, ...) cfg_err_set(err, rc, path, __VA_ARGS__)

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
	if (ch->kind == CFG_CHG_SETTINGS)
		cfg_free(ch->obj.settings);
	switch (chg_arr_kind(ch->kind)) {
	case CFG_OBJ_BACKSTORE:
		cfg_backstore_clear(&ch->obj.bs);
		break;
	case CFG_OBJ_TARGET:
		cfg_target_clear(&ch->obj.t);
		break;
	case CFG_OBJ_PORTAL_GROUP:
		cfg_tpg_clear(&ch->obj.g);
		break;
	case CFG_OBJ_ACL:
		cfg_acl_clear(&ch->obj.a);
		break;
	case CFG_OBJ_LUN:
		cfg_lun_clear(&ch->obj.l);
		break;
	case CFG_OBJ_ROOT:
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
			obj = cfg_object_to_json(chg_obj(ch->kind), &ch->obj);
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
static struct cfg_iscsi_settings chg_defaults;

void cfg_chg_set_defaults(const struct cfg_iscsi_settings *d)
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
			rc = cfg_object_from_json(chg_obj(kind), obj, &ch->obj, err);
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

/* The target a change of a portal group, ACL or LUN works on (its
 * position in *ti, NULL allowed); NULL with err set when there is none. */
static struct cfg_target *chg_parent(struct cfg *c, const struct cfg_index *ix,
				     const struct cfg_chg *ch, size_t *ti, struct cfg_err *err)
{
	struct cfg_target *t = chg_target(c, ix, ch->target, ti);

	if (!t)
		chg_err(err, -ENOENT, "", "no target named \"%s\"", ch->target ? ch->target : "");
	return t;
}

/* The LUN list a LUN change works on: the target's, or an ACL's own. */
static int chg_lun_list(struct cfg *c, const struct cfg_index *ix, const struct cfg_chg *ch,
			struct cfg_target **tp, struct cfg_lun_list **lp, struct cfg_err *err)
{
	struct cfg_target *t = chg_parent(c, ix, ch, NULL, err);
	long a;

	if (!t)
		return -ENOENT;
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

/* ---- one array of the tree and its index entries ----
 * Adding, deleting or replacing an element, and undoing it, are the same
 * for every array of the tree; only the index calls differ (chg_ix_*()). */
struct chg_arr {
	enum cfg_obj_kind kind;
	void **v;
	size_t *n;
	size_t elem;
	void *obj; /* the change's object: the new element, then the replaced one */
	struct cfg_index *ix;
	const struct cfg *c;
	const struct cfg_target *t; /* portal groups, ACLs, LUNs: their target */
	const char *initiator;	    /* LUNs: the ACL's own map (NULL: the target's) */
};

/* The array ch works on: t is its target (portal groups, ACLs, LUNs), l the
 * LUN list (chg_lun_list()). */
static struct chg_arr chg_arr_of(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
				 struct cfg_target *t, struct cfg_lun_list *l)
{
	struct chg_arr a = {
	    .kind = chg_on[ch->kind].arr, .ix = ix, .c = c, .t = t, .initiator = ch->initiator};

#define CHG_ARR(arr_, n_, obj_)                                                                    \
	do {                                                                                       \
		a.v = (void **)&(arr_);                                                            \
		a.n = &(n_);                                                                       \
		a.elem = sizeof(*(arr_));                                                          \
		a.obj = &(obj_);                                                                   \
	} while (0)
	switch (a.kind) {
	case CFG_OBJ_BACKSTORE:
		CHG_ARR(c->bs, c->nbs, ch->obj.bs);
		break;
	case CFG_OBJ_TARGET:
		CHG_ARR(c->targets, c->ntargets, ch->obj.t);
		break;
	case CFG_OBJ_PORTAL_GROUP:
		CHG_ARR(t->tpgs, t->ntpgs, ch->obj.g);
		break;
	case CFG_OBJ_ACL:
		CHG_ARR(t->acls, t->nacls, ch->obj.a);
		break;
	case CFG_OBJ_LUN:
		CHG_ARR(l->v, l->n, ch->obj.l);
		break;
	case CFG_OBJ_ROOT:
		break;
	}
#undef CHG_ARR
	return a;
}

static void *chg_elem(const struct chg_arr *a, size_t i)
{
	return (char *)*a->v + i * a->elem;
}

/* Index the element at i. 0 or -ENOMEM. */
static int chg_ix_put(const struct chg_arr *a, size_t i)
{
	const void *e = chg_elem(a, i);

	switch (a->kind) {
	case CFG_OBJ_BACKSTORE:
		return cfg_ix_put_bs(a->ix, a->c, e, i);
	case CFG_OBJ_TARGET:
		return cfg_ix_put_target(a->ix, e, i);
	case CFG_OBJ_PORTAL_GROUP:
		return cfg_ix_put_tpg(a->ix, a->t, e, i);
	case CFG_OBJ_ACL:
		return cfg_ix_put_acl(a->ix, a->t, e, i);
	case CFG_OBJ_LUN:
		return cfg_ix_put_lun(a->ix, a->t->name, a->initiator, e, i);
	case CFG_OBJ_ROOT:
		break;
	}
	return -EINVAL;
}

/* Remove the index entries of the element at i. */
static void chg_ix_del(const struct chg_arr *a, size_t i)
{
	const void *e = chg_elem(a, i);

	switch (a->kind) {
	case CFG_OBJ_BACKSTORE:
		cfg_ix_del_bs(a->ix, a->c, e);
		break;
	case CFG_OBJ_TARGET:
		cfg_ix_del_target(a->ix, e);
		break;
	case CFG_OBJ_PORTAL_GROUP:
		cfg_ix_del_tpg(a->ix, a->t, e);
		break;
	case CFG_OBJ_ACL:
		cfg_ix_del_acl(a->ix, a->t, e);
		break;
	case CFG_OBJ_LUN:
		cfg_ix_del_lun(a->ix, a->t->name, a->initiator, e);
		break;
	case CFG_OBJ_ROOT:
		break;
	}
}

/* The elements from i on moved: their index entries follow. */
static void chg_ix_moved(const struct chg_arr *a, size_t i)
{
	for (; i < *a->n; i++) {
		const void *e = chg_elem(a, i);

		switch (a->kind) {
		case CFG_OBJ_BACKSTORE:
			cfg_ix_bs_pos(a->ix, a->c, e, i);
			break;
		case CFG_OBJ_TARGET:
			cfg_ix_target_pos(a->ix, e, i);
			break;
		case CFG_OBJ_PORTAL_GROUP:
			cfg_ix_tpg_pos(a->ix, a->t, e, i);
			break;
		case CFG_OBJ_ACL:
			cfg_ix_acl_pos(a->ix, a->t, e, i);
			break;
		case CFG_OBJ_LUN:
			cfg_ix_lun_pos(a->ix, a->t->name, a->initiator, e, i);
			break;
		case CFG_OBJ_ROOT:
			break;
		}
	}
}

/* The change's object appended (the array keeps its capacity for undo). */
static int chg_arr_add(const struct chg_arr *a, struct cfg_chg *ch, struct cfg_err *err)
{
	size_t pos = *a->n;
	int rc;

	if (arr_reserve(a->v, pos, a->elem))
		return chg_err(err, -ENOMEM, "", "out of memory");
	memcpy(chg_elem(a, pos), a->obj, a->elem);
	rc = chg_ix_put(a, pos);
	if (rc)
		return chg_err(err, rc, "", "out of memory");
	(*a->n)++;
	memset(a->obj, 0, a->elem);
	ch->has_obj = false;
	return 0;
}

/* The element at pos removed into the change's object. */
static void chg_arr_del(const struct chg_arr *a, size_t pos, struct cfg_chg *ch)
{
	chg_ix_del(a, pos);
	arr_remove(*a->v, a->n, a->elem, pos, a->obj);
	chg_ix_moved(a, pos);
	ch->has_obj = true;
}

/* The element at pos and the change's object exchanged. */
static int chg_arr_set(const struct chg_arr *a, size_t pos, struct cfg_err *err)
{
	int rc;

	chg_ix_del(a, pos);
	swap_bytes(a->obj, chg_elem(a, pos), a->elem);
	rc = chg_ix_put(a, pos);
	if (rc) {
		swap_bytes(a->obj, chg_elem(a, pos), a->elem);
		chg_ix_put(a, pos);
		return chg_err(err, rc, "", "out of memory");
	}
	return 0;
}

/* What an addition or a replacement does: the change's object appended,
 * or put in place of the element at pos. */
static int chg_arr_store(const struct chg_arr *a, struct cfg_chg *ch, size_t pos,
			 struct cfg_err *err)
{
	return chg_on[ch->kind].op == CHG_ADD ? chg_arr_add(a, ch, err) : chg_arr_set(a, pos, err);
}

/* Undo an applied change of a (at ch->pos). */
static void chg_arr_undo(const struct chg_arr *a, struct cfg_chg *ch)
{
	size_t pos = ch->pos;

	switch (chg_on[ch->kind].op) {
	case CHG_ADD:
		chg_arr_del(a, pos, ch);
		break;
	case CHG_DEL:
		/* the array kept its capacity */
		arr_insert(*a->v, a->n, a->elem, pos, a->obj);
		memset(a->obj, 0, a->elem);
		ch->has_obj = false;
		chg_ix_put(a, pos);
		chg_ix_moved(a, pos + 1);
		break;
	case CHG_SET:
		chg_ix_del(a, pos);
		swap_bytes(a->obj, chg_elem(a, pos), a->elem);
		chg_ix_put(a, pos);
		break;
	case CHG_NONE:
		break;
	}
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
	if (!str_eq(s->metrics_listen, c->metrics_listen))
		return chg_err(err, -EINVAL, "metrics.listen",
			       "cannot change while utargetd runs (restart it)");
	if (!str_eq(s->plugin_dir, c->plugin_dir))
		return chg_err(err, -EINVAL, "plugin_dir",
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
/* Where back-store name is mapped, as the CLI names it: "LUN 0 of T1,
 * LUN 3 of T2 (own map of I)" (the first few of refs; an index lookup per
 * LUN map). */
static void chg_bs_mappings(const struct cfg *c, const struct cfg_index *ix, const char *name,
			    unsigned refs, char *buf, size_t size)
{
	enum { SHOWN = 3 };
	unsigned k = 0;
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->ntargets && k < SHOWN; i++) {
		const struct cfg_target *t = &c->targets[i];

		for (size_t a = 0; a <= t->nacls && k < SHOWN; a++) {
			const struct cfg_acl *acl = a ? &t->acls[a - 1] : NULL;
			const struct cfg_lun_list *l = acl ? &acl->luns : &t->luns;
			char key[CFG_ACL_KEY_MAX] = "";
			long p;
			int w;

			if (acl && (!acl->has_luns || cfg_acl_key(acl, key, sizeof(key))))
				continue;
			p = cfg_ix_lun_bs(ix, t->name, acl ? key : NULL, name);
			if (p < 0)
				continue;
			w = snprintf(buf + n, size - n, "%sLUN %u of %s%s%s%s", k ? ", " : "",
				     l->v[p].lun, t->name, acl ? " (own map of " : "", key,
				     acl ? ")" : "");
			if (w < 0 || (size_t)w >= size - n)
				return;
			n += (size_t)w;
			k++;
		}
	}
	if (refs > k)
		snprintf(buf + n, size - n, "%s%u more LUN%s", k ? " and " : "", refs - k,
			 refs - k == 1 ? "" : "s");
}

static int chg_apply_bs(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			struct cfg_err *err)
{
	struct chg_arr a = chg_arr_of(c, ix, ch, NULL, NULL);
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

		if (refs) {
			char where[512];

			chg_bs_mappings(c, ix, ch->name, refs, where, sizeof(where));
			return chg_err(err, -EBUSY, "",
				       "back-store \"%s\" is mapped at %s; unmap it first",
				       ch->name, where);
		}
		chg_arr_del(&a, (size_t)pos, ch);
		ch->pos = (size_t)pos;
		return 0;
	}
	if (ch->kind == CFG_CHG_BS_SET && strcmp(nb->name, ch->name) != 0)
		return chg_err(err, -EINVAL, p, "a back-store cannot be renamed");
	/* the same file as another back-store? */
	if (nb->path && !cfg_bs_shares_path(nb) && cfg_bs_path(c, nb, path, sizeof(path)) == 0) {
		other = cfg_ix_path(ix, path);
		if (other >= 0 && other != pos) {
			snprintf(p, sizeof(p), "backstores[%ld].path", pos);
			return chg_err(err, -EINVAL, p, "the same file as backstores[%ld]", other);
		}
	}
	rc = cfg_validate_backstore_one(c, nb, (size_t)pos, err);
	if (!rc)
		rc = cfg_check_file(c, nb, (size_t)pos, err);
	if (rc)
		return rc;
	rc = chg_arr_store(&a, ch, (size_t)pos, err);
	if (rc)
		return rc;
	ch->pos = (size_t)pos;
	return 0;
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
	struct chg_arr a = chg_arr_of(c, ix, ch, NULL, NULL);
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
			rc = cfg_validate_target_one(c, ix, nt, pos, err);
		if (!rc)
			rc = chg_arr_add(&a, ch, err);
		if (!rc)
			ch->pos = pos;
		return rc;
	}
	t = chg_target(c, ix, ch->target, &pos);
	if (!t)
		return chg_err(err, -ENOENT, "", "no target named \"%s\"", ch->target);
	ch->pos = pos;
	if (ch->kind == CFG_CHG_TGT_DEL) {
		chg_arr_del(&a, pos, ch);
		return 0;
	}
	/* TGT_SET: the new own fields, the old children */
	if (strcmp(nt->name, t->name) != 0)
		return chg_err(err, -EINVAL, "", "a target cannot be renamed");
	swap_children(nt, t);
	swap_bytes(nt, t, sizeof(*nt));
	rc = cfg_validate_target_one(c, ix, t, pos, err);
	if (rc) {
		swap_bytes(nt, t, sizeof(*nt));
		swap_children(nt, t);
	}
	return rc;
}

/* TGT_SET swapped the own fields only (the index keys on the name, which
 * stays); additions and deletions undo as in every array (chg_undo()). */
static void chg_undo_target_set(struct cfg *c, struct cfg_chg *ch)
{
	swap_bytes(&ch->obj.t, &c->targets[ch->pos], sizeof(ch->obj.t));
	swap_children(&ch->obj.t, &c->targets[ch->pos]);
}

/* ---- portal groups ---- */
static int chg_apply_tpg(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	struct cfg_portal_group *ng = &ch->obj.g;
	char p[CFG_ERR_PATH_MAX];
	struct cfg_target *t;
	struct chg_arr a;
	size_t ti;
	long pos;
	int rc;

	t = chg_parent(c, ix, ch, &ti, err);
	if (!t)
		return -ENOENT;
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
	a = chg_arr_of(c, ix, ch, t, NULL);
	if (ch->kind == CFG_CHG_TPG_DEL) {
		if (t->ntpgs == 1)
			return chg_err(err, -EINVAL, p,
				       "a target needs at least one portal group (delete the "
				       "target instead)");
		chg_arr_del(&a, (size_t)pos, ch);
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
	rc = cfg_validate_tpg_one(ng, p, err);
	if (rc)
		return rc;
	return chg_arr_store(&a, ch, (size_t)pos, err);
}

/* ---- ACLs ---- */
static int chg_apply_acl(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	struct cfg_acl *na = &ch->obj.a;
	char p[CFG_ERR_PATH_MAX], key[CFG_ACL_KEY_MAX];
	struct cfg_target *t;
	struct chg_arr a;
	size_t ti;
	long pos;
	int rc;

	t = chg_parent(c, ix, ch, &ti, err);
	if (!t)
		return -ENOENT;
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
	a = chg_arr_of(c, ix, ch, t, NULL);
	if (ch->kind == CFG_CHG_ACL_DEL) {
		chg_arr_del(&a, (size_t)pos, ch);
		return 0;
	}
	if (ch->kind == CFG_CHG_ACL_SET && strcmp(key, ch->initiator) != 0)
		return chg_err(err, -EINVAL, p,
			       "an ACL's initiator (or, without one, its addresses) cannot change");
	rc = cfg_validate_acl_one(c, ix, na, p, err);
	if (rc)
		return rc;
	return chg_arr_store(&a, ch, (size_t)pos, err);
}

/* ---- LUNs ---- */
static int chg_apply_lun(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch,
			 struct cfg_err *err)
{
	char path[CFG_ERR_PATH_MAX];
	struct cfg_lun *nl = &ch->obj.l;
	struct cfg_lun_list *l = NULL;
	struct cfg_target *t = NULL;
	struct chg_arr a;
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
	a = chg_arr_of(c, ix, ch, t, l);
	if (ch->kind == CFG_CHG_LUN_DEL) {
		chg_arr_del(&a, (size_t)pos, ch);
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
	return chg_arr_store(&a, ch, (size_t)pos, err);
}

/* Undo an applied change of a back-store, target, portal group, ACL or LUN. */
static void chg_undo_arr(struct cfg *c, struct cfg_index *ix, struct cfg_chg *ch)
{
	struct cfg_lun_list *l = NULL;
	struct cfg_target *t = NULL;
	struct chg_arr a;
	struct cfg_err err;

	switch (chg_on[ch->kind].arr) {
	case CFG_OBJ_PORTAL_GROUP:
	case CFG_OBJ_ACL:
		t = chg_target(c, ix, ch->target, NULL);
		break;
	case CFG_OBJ_LUN:
		if (chg_lun_list(c, ix, ch, &t, &l, &err))
			return; /* cannot happen: the change was applied to this list */
		break;
	default:
		break;
	}
	a = chg_arr_of(c, ix, ch, t, l);
	chg_arr_undo(&a, ch);
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
	switch (chg_arr_kind(ch->kind)) {
	case CFG_OBJ_BACKSTORE:
		rc = chg_apply_bs(c, ix, ch, err);
		break;
	case CFG_OBJ_TARGET:
		rc = chg_apply_target(c, ix, ch, err);
		break;
	case CFG_OBJ_PORTAL_GROUP:
		rc = chg_apply_tpg(c, ix, ch, err);
		break;
	case CFG_OBJ_ACL:
		rc = chg_apply_acl(c, ix, ch, err);
		break;
	case CFG_OBJ_LUN:
		rc = chg_apply_lun(c, ix, ch, err);
		break;
	case CFG_OBJ_ROOT:
		rc = ch->kind == CFG_CHG_SETTINGS ? chg_apply_settings(c, ch, err)
						  : chg_err(err, -EINVAL, "", "unknown change");
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
	case CFG_CHG_TGT_SET:
		chg_undo_target_set(c, ch);
		break;
	default:
		chg_undo_arr(c, ix, ch);
		break;
	}
	ch->applied = false;
}

int cfg_validate_cross(const struct cfg *c, struct cfg_err *err)
{
	int rc = 0;

	*err = (struct cfg_err){0};
	if (c->npgs)
		rc = cfg_validate_port_groups(c, err); /* ALUA (port_groups.c) */
	if (!rc)
		rc = cfg_auth_validate(c, err); /* discovery, secrets (auth.c) */
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
		rc = cfg_validate_cross(c, err);
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
