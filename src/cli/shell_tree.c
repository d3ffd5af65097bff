/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shell_tree.c: the shell's tree of objects (shell.h): paths resolved
 * lexically, children listed from the daemon's answers. Names that are not
 * fixed by the tree (back-stores, targets, initiators, portals) are taken
 * as they are: none of them contains '/'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/shell.h"

static const char *const sh_bs_types[] = {"file",   "block", "ram",   "null", "iscsi",
					  "plugin", "rbd",   "dedup", "sg"};

static bool sh_number(const char *s, const char *prefix, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (prefix && strncmp(s, prefix, strlen(prefix)) == 0)
		s += strlen(prefix);
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool sh_copy(char *dst, size_t size, const char *src)
{
	if (strlen(src) >= size || !src[0])
		return false;
	memcpy(dst, src, strlen(src) + 1);
	return true;
}

/* The parent of p (the root is its own parent). */
static void sh_up(struct sh_path *p)
{
	switch (p->kind) {
	case SH_ROOT:
	case SH_BACKSTORES:
	case SH_ISCSI:
	case SH_SESSIONS:
	case SH_ALUA:
	case SH_SETTINGS:
		p->kind = SH_ROOT;
		break;
	case SH_ALUA_GROUP:
		p->kind = SH_ALUA;
		break;
	case SH_BS_TYPE:
		p->kind = SH_BACKSTORES;
		break;
	case SH_BS:
		p->kind = SH_BS_TYPE;
		break;
	case SH_TARGET:
		p->kind = SH_ISCSI;
		break;
	case SH_TPG:
		p->kind = SH_TARGET;
		p->has_tag = false;
		break;
	case SH_PORTALS:
		p->kind = SH_TPG;
		break;
	case SH_PORTAL:
		p->kind = SH_PORTALS;
		break;
	case SH_LUNS:
	case SH_ACLS:
		p->kind = SH_TARGET;
		break;
	case SH_LUN:
		p->kind = p->initiator[0] ? SH_ACL : SH_LUNS;
		break;
	case SH_ACL:
		p->kind = SH_ACLS;
		p->initiator[0] = '\0';
		break;
	case SH_SESSION:
		p->kind = SH_SESSIONS;
		break;
	}
}

static int sh_down(struct sh_path *p, const char *comp, const char **why)
{
	*why = NULL;
	switch (p->kind) {
	case SH_ROOT:
		if (strcmp(comp, "backstores") == 0)
			p->kind = SH_BACKSTORES;
		else if (strcmp(comp, "iscsi") == 0)
			p->kind = SH_ISCSI;
		else if (strcmp(comp, "sessions") == 0)
			p->kind = SH_SESSIONS;
		else if (strcmp(comp, "settings") == 0)
			p->kind = SH_SETTINGS;
		else if (strcmp(comp, "alua") == 0)
			p->kind = SH_ALUA;
		else
			*why = "/ holds backstores, iscsi, sessions, alua and settings";
		break;
	case SH_BACKSTORES:
		for (size_t i = 0; i < ARRAY_SIZE(sh_bs_types); i++)
			if (strcmp(comp, sh_bs_types[i]) == 0) {
				snprintf(p->type, sizeof(p->type), "%s", comp);
				p->kind = SH_BS_TYPE;
			}
		if (p->kind != SH_BS_TYPE)
			*why = "/backstores holds file, ram and null";
		break;
	case SH_BS_TYPE:
		if (!sh_copy(p->name, sizeof(p->name), comp))
			*why = "bad back-store name";
		else
			p->kind = SH_BS;
		break;
	case SH_ISCSI:
		if (!sh_copy(p->name, sizeof(p->name), comp))
			*why = "bad target name";
		else
			p->kind = SH_TARGET;
		break;
	case SH_TARGET:
		if (strcmp(comp, "luns") == 0)
			p->kind = SH_LUNS;
		else if (strcmp(comp, "acls") == 0)
			p->kind = SH_ACLS;
		else if (strncmp(comp, "tpg", 3) == 0 && sh_number(comp, "tpg", 65535, &p->tag) &&
			 p->tag > 0) {
			p->has_tag = true;
			p->kind = SH_TPG;
		} else {
			*why = "a target holds tpg<TAG>, luns and acls";
		}
		break;
	case SH_TPG:
		/* one LUN map and one ACL list per target, at the target (LIO
		 * shows them under tpg1; a second path to them was a second
		 * "luns" node in every listing) */
		if (strcmp(comp, "portals") == 0)
			p->kind = SH_PORTALS;
		else if (strcmp(comp, "luns") == 0 || strcmp(comp, "acls") == 0)
			*why = "a portal group holds portals only: LUNs and ACLs are the "
			       "target's (../luns, ../acls)";
		else
			*why = "a portal group holds portals";
		break;
	case SH_PORTALS:
		if (!sh_copy(p->portal, sizeof(p->portal), comp))
			*why = "bad portal";
		else
			p->kind = SH_PORTAL;
		break;
	case SH_LUNS:
	case SH_ACL:
		if (!sh_number(comp, "lun", CFG_MAX_LUN, &p->lun))
			*why = "LUNs are lun<N>";
		else
			p->kind = SH_LUN;
		break;
	case SH_ACLS:
		if (!sh_copy(p->initiator, sizeof(p->initiator), comp))
			*why = "bad initiator name";
		else
			p->kind = SH_ACL;
		break;
	case SH_SESSIONS:
		if (!sh_number(comp, NULL, 65535, &p->tsih))
			*why = "sessions are named by their TSIH";
		else
			p->kind = SH_SESSION;
		break;
	case SH_ALUA:
		if (!sh_number(comp, NULL, 65535, &p->group) || p->group == 0)
			*why = "port groups are named by their id";
		else
			p->kind = SH_ALUA_GROUP;
		break;
	case SH_BS:
	case SH_PORTAL:
	case SH_LUN:
	case SH_SESSION:
	case SH_ALUA_GROUP:
	case SH_SETTINGS:
		*why = "no objects below this one";
		break;
	}
	return *why ? -EINVAL : 0;
}

int sh_resolve(const struct sh_path *cwd, const char *arg, struct sh_path *out, const char **why)
{
	char buf[SH_PATH_MAX];
	struct sh_path p = *cwd;
	char *save = NULL;

	*why = NULL;
	if (strlen(arg) >= sizeof(buf)) {
		*why = "path too long";
		return -EINVAL;
	}
	memcpy(buf, arg, strlen(arg) + 1);
	if (buf[0] == '/')
		p = (struct sh_path){.kind = SH_ROOT};
	for (char *comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			sh_up(&p);
			continue;
		}
		if (sh_down(&p, comp, why))
			return -EINVAL;
	}
	*out = p;
	return 0;
}

/* The directories whose name is fixed by the tree (the others are named
 * by the object they stand for). */
static const char *const sh_fixed[] = {
    [SH_BACKSTORES] = "backstores",
    [SH_ISCSI] = "iscsi",
    [SH_PORTALS] = "portals",
    [SH_LUNS] = "luns",
    [SH_ACLS] = "acls",
    [SH_SESSIONS] = "sessions",
    [SH_ALUA] = "alua",
    [SH_SETTINGS] = "settings",
};

/* The last component of p's path: its name in its parent ("" for the root). */
static void sh_leaf(const struct sh_path *p, char *buf, size_t size)
{
	const char *name = (size_t)p->kind < ARRAY_SIZE(sh_fixed) ? sh_fixed[p->kind] : NULL;

	switch (p->kind) {
	case SH_BS_TYPE:
		name = p->type;
		break;
	case SH_BS:
	case SH_TARGET:
		name = p->name;
		break;
	case SH_PORTAL:
		name = p->portal;
		break;
	case SH_ACL:
		name = p->initiator;
		break;
	case SH_TPG:
		snprintf(buf, size, "tpg%u", p->tag);
		return;
	case SH_LUN:
		snprintf(buf, size, "lun%u", p->lun);
		return;
	case SH_SESSION:
		snprintf(buf, size, "%u", p->tsih);
		return;
	case SH_ALUA_GROUP:
		snprintf(buf, size, "%u", p->group);
		return;
	case SH_ROOT: /* none */
	case SH_BACKSTORES:
	case SH_ISCSI:
	case SH_PORTALS:
	case SH_LUNS:
	case SH_ACLS:
	case SH_SESSIONS:
	case SH_ALUA:
	case SH_SETTINGS:
		break;
	}
	snprintf(buf, size, "%s", name ? name : "");
}

/* The parent's path (sh_up: the tree's shape is written down once) and
 * the node's own name. */
void sh_format(const struct sh_path *p, char *buf, size_t size)
{
	struct sh_path parent = *p;
	char leaf[SH_PATH_MAX];
	size_t n = 0;

	if (p->kind == SH_ROOT) {
		snprintf(buf, size, "/");
		return;
	}
	sh_up(&parent);
	if (parent.kind != SH_ROOT) {
		sh_format(&parent, buf, size);
		n = strnlen(buf, size);
	}
	sh_leaf(p, leaf, sizeof(leaf));
	if (n < size)
		snprintf(buf + n, size - n, "/%s", leaf);
}

/* ---- children, from the daemon ---- */
static int sh_add(json_t *arr, const char *name, bool dir, const char *info)
{
	return json_array_append_new(
	    arr, json_pack("{s:s, s:b, s:s}", "name", name, "dir", dir, "info", info ? info : ""));
}

/* A quiet call (completion must not print errors): the result or NULL. */
static json_t *sh_get(struct cli *c, const char *method, json_t *params)
{
	struct rpc_error e = {0};
	json_t *res = NULL;

	if (cli_rpc(c, method, params, &res, &e)) {
		rpc_error_clear(&e);
		return NULL;
	}
	return res;
}

/* An entry of a LUN map ({lun, backstore, read_only}) as lun<N> -> BACKSTORE. */
static void sh_add_lun(json_t *arr, json_t *l)
{
	char name[32], info[512];

	snprintf(name, sizeof(name), "lun%lld",
		 (long long)json_integer_value(json_object_get(l, "lun")));
	snprintf(info, sizeof(info), "-> %s%s",
		 json_string_value(json_object_get(l, "backstore")) ?: "?",
		 json_is_true(json_object_get(l, "read_only")) ? " (read-only)" : "");
	sh_add(arr, name, false, info);
}

static json_t *sh_target(struct cli *c, const struct sh_path *p)
{
	return sh_get(c, "target.get", json_pack("{s:s}", "name", p->name));
}

json_t *sh_children(struct cli *c, const struct sh_path *p)
{
	json_t *out = json_array(), *res = NULL, *e;
	char info[512];
	size_t i;

	if (!out)
		return NULL;
	switch (p->kind) {
	case SH_ROOT:
		sh_add(out, "backstores", true, "where the data lives");
		sh_add(out, "iscsi", true, "targets");
		sh_add(out, "sessions", true, "logged-in initiators");
		sh_add(out, "alua", true, "ALUA target port groups");
		sh_add(out, "settings", false, "global settings");
		break;
	case SH_BACKSTORES:
		res = sh_get(c, "backstore.list", NULL);
		for (size_t k = 0; k < ARRAY_SIZE(sh_bs_types); k++) {
			size_t n = 0;
			json_array_foreach(res, i, e)
			{
				n += strcmp(json_string_value(json_object_get(e, "type")) ?: "",
					    sh_bs_types[k]) == 0;
			}
			snprintf(info, sizeof(info), "%zu back-store%s", n, n == 1 ? "" : "s");
			sh_add(out, sh_bs_types[k], true, res ? info : "");
		}
		break;
	case SH_BS_TYPE:
		res = sh_get(c, "backstore.list", NULL);
		json_array_foreach(res, i, e)
		{
			char size[32];
			if (strcmp(json_string_value(json_object_get(e, "type")) ?: "", p->type))
				continue;
			out_bs_size(e, size, sizeof(size));
			snprintf(info, sizeof(info), "%s%s%s, %zu mapping%s",
				 json_string_value(json_object_get(e, "path")) ?: "",
				 json_object_get(e, "path") ? " " : "", size,
				 json_array_size(json_object_get(e, "mapped")),
				 json_array_size(json_object_get(e, "mapped")) == 1 ? "" : "s");
			sh_add(out, json_string_value(json_object_get(e, "name")) ?: "?", false,
			       info);
		}
		break;
	case SH_ISCSI:
		res = sh_get(c, "target.list", NULL);
		json_array_foreach(res, i, e)
		{
			size_t nl = json_array_size(json_object_get(e, "luns"));
			size_t na = json_array_size(json_object_get(e, "acls"));
			long long ns =
			    (long long)json_integer_value(json_object_get(e, "sessions"));

			snprintf(info, sizeof(info), "%zu LUN%s, %zu ACL%s, %lld session%s", nl,
				 nl == 1 ? "" : "s", na, na == 1 ? "" : "s", ns,
				 ns == 1 ? "" : "s");
			sh_add(out, json_string_value(json_object_get(e, "name")) ?: "?", true,
			       info);
		}
		break;
	case SH_TARGET:
		res = sh_target(c, p);
		json_array_foreach(json_object_get(res, "portal_groups"), i, e)
		{
			char name[32];
			out_text(json_object_get(e, "portals"), info, sizeof(info));
			snprintf(name, sizeof(name), "tpg%lld",
				 (long long)json_integer_value(json_object_get(e, "tag")));
			sh_add(out, name, true, info);
		}
		if (res) {
			snprintf(info, sizeof(info), "%zu",
				 json_array_size(json_object_get(res, "luns")));
			sh_add(out, "luns", true, info);
			snprintf(info, sizeof(info), "%zu",
				 json_array_size(json_object_get(res, "acls")));
			sh_add(out, "acls", true, info);
		}
		break;
	case SH_TPG:
		sh_add(out, "portals", true, "");
		break;
	case SH_PORTALS:
		res = sh_target(c, p);
		json_array_foreach(json_object_get(res, "portal_groups"), i, e)
		{
			json_t *a;
			size_t k;
			if (json_integer_value(json_object_get(e, "tag")) != p->tag)
				continue;
			json_array_foreach(json_object_get(e, "portals"), k, a)
			{
				sh_add(out, json_string_value(a) ?: "?", false, "");
			}
		}
		break;
	case SH_ACL:
		/* its own LUN map, when it has one (else it sees the target's) */
		res = sh_get(c, "acl.list", json_pack("{s:s}", "target", p->name));
		json_array_foreach(res, i, e)
		{
			json_t *l;
			size_t k;
			if (strcmp(json_string_value(json_object_get(e, "initiator")) ?: "",
				   p->initiator) != 0)
				continue;
			json_array_foreach(json_object_get(e, "luns"), k, l)
			{
				sh_add_lun(out, l);
			}
		}
		break;
	case SH_LUNS: {
		json_t *params = json_pack("{s:s}", "target", p->name);
		res = sh_get(c, "lun.list", params);
		json_array_foreach(res, i, e)
		{
			sh_add_lun(out, e);
		}
		break;
	}
	case SH_ACLS:
		res = sh_get(c, "acl.list", json_pack("{s:s}", "target", p->name));
		json_array_foreach(res, i, e)
		{
			const char *ini = json_string_value(json_object_get(e, "initiator"));
			json_t *own = json_object_get(e, "luns");
			if (!ini)
				continue; /* address-only ACLs have no name in the tree */
			if (own)
				snprintf(info, sizeof(info), "own map: %zu LUN%s",
					 json_array_size(own),
					 json_array_size(own) == 1 ? "" : "s");
			else
				snprintf(info, sizeof(info), "the target's LUNs");
			/* a directory only with a map of its own to show */
			sh_add(out, ini, own != NULL, info);
		}
		break;
	case SH_SESSIONS:
		res = sh_get(c, "session.list", NULL);
		json_array_foreach(res, i, e)
		{
			char name[32];
			snprintf(name, sizeof(name), "%lld",
				 (long long)json_integer_value(json_object_get(e, "tsih")));
			snprintf(info, sizeof(info), "%s %s -> %s",
				 json_string_value(json_object_get(e, "type")) ?: "",
				 json_string_value(json_object_get(e, "initiator")) ?: "?",
				 json_string_value(json_object_get(e, "target")) ?: "(discovery)");
			sh_add(out, name, false, info);
		}
		break;
	case SH_ALUA:
		res = sh_get(c, "alua.list", NULL);
		json_array_foreach(res, i, e)
		{
			char name[32];
			snprintf(name, sizeof(name), "%lld",
				 (long long)json_integer_value(json_object_get(e, "id")));
			snprintf(info, sizeof(info), "%s%s%s, %zu ports",
				 json_string_value(json_object_get(e, "name")) ?: "",
				 json_object_get(e, "name") ? ": " : "",
				 json_string_value(json_object_get(e, "state")) ?: "?",
				 json_array_size(json_object_get(e, "members")));
			sh_add(out, name, false, info);
		}
		break;
	case SH_BS:
	case SH_PORTAL:
	case SH_LUN:
	case SH_SESSION:
	case SH_ALUA_GROUP:
	case SH_SETTINGS:
		break;
	}
	json_decref(res);
	return out;
}

bool sh_exists(struct cli *c, const struct sh_path *p)
{
	struct sh_path parent = *p;
	char name[SH_PATH_MAX];
	json_t *kids, *e;
	bool found = false;
	size_t i;

	if (p->kind == SH_ROOT)
		return true;
	sh_leaf(p, name, sizeof(name));
	sh_up(&parent);
	kids = sh_children(c, &parent);
	json_array_foreach(kids, i, e)
	{
		found |= strcmp(json_string_value(json_object_get(e, "name")) ?: "", name) == 0;
	}
	json_decref(kids);
	return found;
}
