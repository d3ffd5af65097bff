/* SPDX-License-Identifier: GPL-2.0-or-later */
/* port_groups.c: the "port_groups" section of the config (docs/config.md):
 * ALUA target port groups (SPC-4 5.15) gathering portal groups (target
 * ports) of any target, with their access states. Parse (types, ranges,
 * unknown fields), dump, verify (references, uniqueness) and the
 * deterministic target port group identifier of every portal group.
 *
 * The core keeps the running states (scsi/alua.h); apply.c defines the
 * groups from this tree. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/model.h"
#include "config/pctx.h"
#include "lib/compiler.h"
#include "scsi/alua.h"

/* The spelling of the access states in the file (SPC-4 names). */
static const struct {
	const char *name;
	uint8_t state;
} cfg_pg_states[] = {
    {.name = "active/optimized", .state = SCSI_ALUA_ACTIVE_OPTIMIZED},
    {.name = "active/non-optimized", .state = SCSI_ALUA_ACTIVE_NON_OPTIMIZED},
    {.name = "standby", .state = SCSI_ALUA_STANDBY},
    {.name = "unavailable", .state = SCSI_ALUA_UNAVAILABLE},
    {.name = "offline", .state = SCSI_ALUA_OFFLINE},
    {.name = "transitioning", .state = SCSI_ALUA_TRANSITIONING},
};

const char *cfg_pg_state_name(uint8_t state)
{
	for (size_t i = 0; i < ARRAY_SIZE(cfg_pg_states); i++)
		if (cfg_pg_states[i].state == state)
			return cfg_pg_states[i].name;
	return NULL;
}

int cfg_pg_state_parse(const char *s, size_t len, uint8_t *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(cfg_pg_states); i++) {
		if (strlen(cfg_pg_states[i].name) == len &&
		    memcmp(cfg_pg_states[i].name, s, len) == 0) {
			*out = cfg_pg_states[i].state;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- parse ---- */

static int pg_state(struct cfg_pctx *x, json_t *o, const char *key, bool required, uint8_t *out)
{
	json_t *v = json_object_get(o, key);
	size_t old = cfg_push_key(x, key);

	if (!v) {
		if (required)
			return cfg_perr(x, "required field missing");
		cfg_pop(x, old);
		return 0;
	}
	if (!json_is_string(v) ||
	    cfg_pg_state_parse(json_string_value(v), json_string_length(v), out))
		return cfg_perr(x,
				"expected one of \"active/optimized\", \"active/non-optimized\", "
				"\"standby\", \"unavailable\", \"offline\", \"transitioning\"");
	cfg_pop(x, old);
	return 0;
}

static int pg_parse_member(struct cfg_pctx *x, json_t *e, void *out)
{
	static const char *const allowed[] = {"target", "tag", NULL};
	struct cfg_pg_member *m = out;
	uint64_t tag = 0;
	int rc;

	if ((rc = cfg_check_keys(x, e, allowed)) ||
	    (rc = cfg_get_str(x, e, "target", true, CFG_ISCSI_NAME_MAX, &m->target)) ||
	    (rc = cfg_get_uint(x, e, "tag", true, 1, 65535, &tag, NULL)))
		return rc;
	m->tag = (uint16_t)tag;
	return 0;
}

static int pg_parse_lu(struct cfg_pctx *x, json_t *e, void *out)
{
	static const char *const allowed[] = {"backstore", "state", NULL};
	struct cfg_pg_lu *l = out;
	int rc;

	if ((rc = cfg_check_keys(x, e, allowed)) ||
	    (rc = cfg_get_str(x, e, "backstore", true, CFG_BS_NAME_MAX, &l->backstore)) ||
	    (rc = pg_state(x, e, "state", true, &l->state)))
		return rc;
	return 0;
}

static int pg_parse_group(struct cfg_pctx *x, json_t *e, void *out)
{
	static const char *const allowed[] = {
	    "id",      "name",	    "state", "preferred", "explicit", "transition_ms",
	    "members", "lu_states", NULL,
	};
	struct cfg_port_group *g = out;
	uint64_t id = 0, ms = 0;
	int rc;

	g->state = SCSI_ALUA_ACTIVE_OPTIMIZED;
	if ((rc = cfg_check_keys(x, e, allowed)) ||
	    (rc = cfg_get_uint(x, e, "id", true, 1, 65535, &id, NULL)) ||
	    (rc = cfg_get_str(x, e, "name", false, CFG_BS_NAME_MAX, &g->name)) ||
	    (rc = pg_state(x, e, "state", false, &g->state)) ||
	    (rc = cfg_get_bool(x, e, "preferred", &g->preferred)) ||
	    (rc = cfg_get_bool(x, e, "explicit", &g->explicit_ok)) ||
	    (rc = cfg_get_uint(x, e, "transition_ms", false, 0, CFG_PG_TRANSITION_MS_MAX, &ms,
			       NULL)) ||
	    (rc = cfg_get_objects(x, e, "members", sizeof(*g->members), (void **)&g->members,
				  &g->nmembers, pg_parse_member)) ||
	    (rc = cfg_get_objects(x, e, "lu_states", sizeof(*g->lus), (void **)&g->lus, &g->nlus,
				  pg_parse_lu)))
		return rc;
	g->id = (uint16_t)id;
	g->transition_ms = (uint32_t)ms;
	return 0;
}

int cfg_parse_port_groups(struct json_t *arr, struct cfg *c, struct cfg_err *err)
{
	struct cfg_pctx x = {.err = err};

	cfg_push_key(&x, "port_groups");
	return cfg_parse_objects(&x, arr, sizeof(*c->pgs), (void **)&c->pgs, &c->npgs,
				 pg_parse_group);
}

void cfg_port_groups_free(struct cfg *c)
{
	for (size_t i = 0; i < c->npgs; i++) {
		struct cfg_port_group *g = &c->pgs[i];

		free(g->name);
		for (size_t j = 0; j < g->nmembers; j++)
			free(g->members[j].target);
		free(g->members);
		for (size_t j = 0; j < g->nlus; j++)
			free(g->lus[j].backstore);
		free(g->lus);
	}
	free(c->pgs);
	c->pgs = NULL;
	c->npgs = 0;
}

/* ---- dump ---- */

static json_t *pg_dump_group(const struct cfg_port_group *g)
{
	json_t *o = json_object(), *members = json_array(), *lus = json_array();
	bool bad = !o || !members || !lus;

	for (size_t i = 0; !bad && i < g->nmembers; i++)
		bad = json_array_append_new(members,
					    json_pack("{sssi}", "target", g->members[i].target,
						      "tag", (int)g->members[i].tag)) != 0;
	for (size_t i = 0; !bad && i < g->nlus; i++)
		bad = json_array_append_new(
			  lus, json_pack("{ssss}", "backstore", g->lus[i].backstore, "state",
					 cfg_pg_state_name(g->lus[i].state))) != 0;
	if (!bad)
		bad = json_object_set_new(o, "id", json_integer(g->id)) ||
		      (g->name && json_object_set_new(o, "name", json_string(g->name))) ||
		      json_object_set_new(o, "state", json_string(cfg_pg_state_name(g->state))) ||
		      json_object_set_new(o, "preferred", json_boolean(g->preferred)) ||
		      json_object_set_new(o, "explicit", json_boolean(g->explicit_ok)) ||
		      json_object_set_new(o, "transition_ms", json_integer(g->transition_ms)) ||
		      json_object_set(o, "members", members) ||
		      json_object_set(o, "lu_states", lus);
	json_decref(members);
	json_decref(lus);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct json_t *cfg_dump_port_groups(const struct cfg *c)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < c->npgs; i++) {
		if (json_array_append_new(arr, pg_dump_group(&c->pgs[i]))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* ---- verify ---- */

#define pg_verr(err, path, ...) cfg_err_set(err, -EINVAL, path, __VA_ARGS__)

static const struct cfg_target *pg_target(const struct cfg *c, const char *name)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (strcmp(c->targets[i].name, name) == 0)
			return &c->targets[i];
	return NULL;
}

static bool pg_has_backstore(const struct cfg *c, const char *name)
{
	for (size_t i = 0; i < c->nbs; i++)
		if (strcmp(c->bs[i].name, name) == 0)
			return true;
	return false;
}

/* The group (index) that lists portal group `tag` of target `name`, or -1. */
static long pg_group_of(const struct cfg *c, const char *name, uint16_t tag)
{
	for (size_t i = 0; i < c->npgs; i++)
		for (size_t j = 0; j < c->pgs[i].nmembers; j++)
			if (c->pgs[i].members[j].tag == tag &&
			    strcmp(c->pgs[i].members[j].target, name) == 0)
				return (long)i;
	return -1;
}

int cfg_validate_port_groups(const struct cfg *c, struct cfg_err *err)
{
	char path[CFG_ERR_PATH_MAX];

	for (size_t i = 0; i < c->npgs; i++) {
		const struct cfg_port_group *g = &c->pgs[i];

		for (size_t k = 0; k < i; k++) {
			snprintf(path, sizeof(path), "port_groups[%zu].id", i);
			if (c->pgs[k].id == g->id)
				return pg_verr(err, path,
					       "port group id %u already used by "
					       "port_groups[%zu]",
					       g->id, k);
			snprintf(path, sizeof(path), "port_groups[%zu].name", i);
			if (g->name && c->pgs[k].name && strcmp(g->name, c->pgs[k].name) == 0)
				return pg_verr(err, path,
					       "name \"%s\" already used by "
					       "port_groups[%zu]",
					       g->name, k);
		}
		for (size_t j = 0; j < g->nmembers; j++) {
			const struct cfg_pg_member *m = &g->members[j];
			const struct cfg_target *t = pg_target(c, m->target);
			bool found = false;
			long owner;

			snprintf(path, sizeof(path), "port_groups[%zu].members[%zu].target", i, j);
			if (!t)
				return pg_verr(err, path, "no target named \"%s\"", m->target);
			for (size_t k = 0; k < t->ntpgs; k++)
				found |= t->tpgs[k].tag == m->tag;
			snprintf(path, sizeof(path), "port_groups[%zu].members[%zu].tag", i, j);
			if (!found)
				return pg_verr(err, path, "target \"%s\" has no portal group %u",
					       m->target, m->tag);
			owner = pg_group_of(c, m->target, m->tag);
			if (owner != (long)i)
				return pg_verr(err, path,
					       "portal group %u of \"%s\" is already in "
					       "port_groups[%ld] (a target port is in one group)",
					       m->tag, m->target, owner);
			for (size_t k = 0; k < j; k++)
				if (g->members[k].tag == m->tag &&
				    strcmp(g->members[k].target, m->target) == 0)
					return pg_verr(err, path, "listed twice");
		}
		for (size_t j = 0; j < g->nlus; j++) {
			snprintf(path, sizeof(path), "port_groups[%zu].lu_states[%zu].backstore", i,
				 j);
			if (!pg_has_backstore(c, g->lus[j].backstore))
				return pg_verr(err, path, "no back-store named \"%s\"",
					       g->lus[j].backstore);
			for (size_t k = 0; k < j; k++)
				if (strcmp(g->lus[k].backstore, g->lus[j].backstore) == 0)
					return pg_verr(err, path, "listed twice");
		}
	}
	return 0;
}

/* ---- identifiers ---- */

int cfg_assign_group_ids(const struct cfg *c, uint16_t *ids, size_t nids)
{
	size_t k = 0;
	uint8_t *used = calloc(65536, 1);

	if (!used)
		return -ENOMEM;
	for (size_t i = 0; i < c->npgs; i++)
		used[c->pgs[i].id] = 1;
	for (size_t t = 0; t < c->ntargets; t++) {
		for (size_t g = 0; g < c->targets[t].ntpgs; g++, k++) {
			long owner = pg_group_of(c, c->targets[t].name, c->targets[t].tpgs[g].tag);
			unsigned id = 1;

			if (k >= nids)
				break;
			if (owner >= 0) {
				ids[k] = c->pgs[owner].id;
				continue;
			}
			/* a group of its own: the smallest identifier no group uses */
			while (id < 65536 && used[id])
				id++;
			if (id == 65536) {
				free(used);
				return -EINVAL;
			}
			used[id] = 1;
			ids[k] = (uint16_t)id;
		}
	}
	free(used);
	return 0;
}
