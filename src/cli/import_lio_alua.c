/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import_lio_alua.c: LIO's ALUA target port groups -> utarget's
 * "port_groups" (docs/config.md; SPC-4 5.15).
 *
 * LIO keeps groups per storage object (alua_tpgs: id, state, preferred,
 * access type, transition delays) and puts each LUN of a TPG -- one target
 * port's path to that object -- in one of them (alua_tg_pt_gp_name).
 * utarget keeps groups file-wide: a group has target ports (target + TPG
 * tag) as members, one state, and per-LU states where an LU differs. So:
 *   - a LIO group becomes the utarget group of the same id (what REPORT
 *     TARGET PORT GROUPS showed); the same id on several storage objects is
 *     one group, its state per LU in lu_states where it differs;
 *   - its members are the ports whose LUNs name it;
 *   - a port in two different groups (for two LUs) cannot be carried over
 *     (a utarget port is in one group): the first applies, the rest is
 *     reported; an LU in LIO's default group on a port of a group gets the
 *     default group's state there (lu_states);
 *   - LIO's default group (id 0) has no counterpart: ports in no group get
 *     a group of their own, active/optimized; a default group in another
 *     state is reported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"

#define LIO_DEFAULT_GROUP "default_tg_pt_gp"

static const char *alua_state_name(long long s)
{
	switch (s) {
	case 0:
		return "active/optimized";
	case 1:
		return "active/non-optimized";
	case 2:
		return "standby";
	case 3:
		return "unavailable";
	case 14:
		return "offline";
	case 15:
		return "transitioning";
	default:
		return NULL; /* 4: LBA dependent */
	}
}

static long long alua_int(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_string(v) && json_string_value(v)[0]) {
		char *end;
		long long n = strtoll(json_string_value(v), &end, 0);
		if (*end == '\0')
			return n;
	}
	return dflt;
}

static json_t *alua_find(json_t *groups, const char *name)
{
	size_t i;
	json_t *g;

	json_array_foreach(groups, i, g)
	{
		const char *n = json_string_value(json_object_get(g, "name"));
		if (n && strcmp(n, name) == 0)
			return g;
	}
	return NULL;
}

/* A new utarget group from LIO's attributes of group g. */
static json_t *alua_group(struct imp_result *r, json_t *g, long long id, const char *state,
			  const char *where)
{
	const char *name = json_string_value(json_object_get(g, "name"));
	long long type = alua_int(g, "alua_access_type", 3);
	long long delay = alua_int(g, "trans_delay_msecs", 0);
	long long implicit = alua_int(g, "implicit_trans_secs", 0) * 1000;
	long long ms = delay > implicit ? delay : implicit;
	json_t *o;

	if (ms > (long long)CFG_PG_TRANSITION_MS_MAX) {
		imp_report(r, IMP_NOTE, where, "ALUA group %s: transition time cut to %u ms", name,
			   CFG_PG_TRANSITION_MS_MAX);
		ms = CFG_PG_TRANSITION_MS_MAX;
	}
	if (type == 0)
		imp_report(
		    r, IMP_NOTE, where,
		    "ALUA group %s: alua_access_type 0 (none): utarget reports implicit ALUA",
		    name);
	if (alua_int(g, "alua_write_metadata", 0))
		imp_report(r, IMP_NOTE, where,
			   "ALUA group %s: alua_write_metadata: states set by SET TARGET PORT "
			   "GROUPS are not kept across restarts",
			   name);
	o = json_pack("{s:I, s:s, s:b, s:b, s:I, s:[], s:{}}", "id", (json_int_t)id, "state", state,
		      "preferred", alua_int(g, "preferred", 0) != 0, "explicit", (type & 2) != 0,
		      "transition_ms", (json_int_t)(ms < 0 ? 0 : ms), "members", "lus");
	if (o && name && strlen(name) <= CFG_BS_NAME_MAX)
		json_object_set_new(o, "name", json_string(name));
	return o;
}

/* The attributes two LIO groups of one id must share to be one group. */
static bool alua_same(json_t *a, json_t *b)
{
	static const char *const keys[] = {"name", "preferred", "explicit", "transition_ms"};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		json_t *x = json_object_get(a, keys[i]), *y = json_object_get(b, keys[i]);
		if ((x || y) && !(x && y && json_equal(x, y)))
			return false;
	}
	return true;
}

int imp_lio_alua(struct imp_result *r, json_t *so_alua, json_t *refs)
{
	json_t *groups = json_object(), *ports = json_object(), *ref, *out = NULL;
	const char *key;
	json_t *so;
	size_t i;
	int rc = 0;

	if (!groups || !ports)
		goto nomem;
	/* default groups in another state than active/optimized */
	json_object_foreach(so_alua, key, so)
	{
		json_t *d = alua_find(json_object_get(so, "groups"), LIO_DEFAULT_GROUP);
		long long s = alua_int(d, "alua_access_state", 0);
		if (d && s != 0)
			imp_report(r, IMP_DROPPED, json_string_value(json_object_get(so, "where")),
				   "alua_tpgs %s: state %s: ports in no group are active/optimized "
				   "in utarget",
				   LIO_DEFAULT_GROUP, alua_state_name(s) ?: "LBA dependent");
	}
	/* members and per-LU states, LUN by LUN */
	json_array_foreach(refs, i, ref)
	{
		const char *gname = json_string_value(json_object_get(ref, "group"));
		const char *where = json_string_value(json_object_get(ref, "where"));
		const char *port = json_string_value(json_object_get(ref, "port"));
		char idkey[32];
		const char *state;
		json_t *g, *G, *cur;
		long long id;

		so = json_object_get(so_alua, json_string_value(json_object_get(ref, "so")));
		if (!so || strcmp(gname, LIO_DEFAULT_GROUP) == 0)
			continue;
		g = alua_find(json_object_get(so, "groups"), gname);
		if (!g) {
			imp_report(r, IMP_DROPPED, where,
				   "alua_tg_pt_gp_name %s: no such group of its storage object",
				   gname);
			continue;
		}
		json_object_set_new(g, "used", json_true());
		id = alua_int(g, "tg_pt_gp_id", -1);
		state = alua_state_name(alua_int(g, "alua_access_state", 0));
		if (id < 1 || id > 65535) {
			imp_report(r, IMP_DROPPED, where, "ALUA group %s: id %lld outside 1..65535",
				   gname, id);
			continue;
		}
		if (!state) {
			imp_report(r, IMP_DROPPED, where,
				   "ALUA group %s: LBA dependent state is not supported", gname);
			continue;
		}
		snprintf(idkey, sizeof(idkey), "%lld", id);
		cur = json_object_get(ports, port);
		if (cur && strcmp(json_string_value(cur), idkey) != 0) {
			imp_report(
			    r, IMP_DROPPED, where,
			    "ALUA group %s: this port is already in group %s for another LU; a "
			    "utarget port is in one group (the first applies)",
			    gname, json_string_value(cur));
			continue;
		}
		G = json_object_get(groups, idkey);
		if (!G) {
			G = alua_group(r, g, id, state, where);
			if (!G || json_object_set_new(groups, idkey, G))
				goto nomem;
		} else {
			json_t *probe = alua_group(r, g, id, state, where);
			if (!probe)
				goto nomem;
			if (!alua_same(G, probe))
				imp_report(
				    r, IMP_DROPPED, where,
				    "ALUA group %s (id %lld): name, preference, access type or "
				    "transition time differ between storage objects; the first "
				    "applies",
				    gname, id);
			json_decref(probe);
		}
		if (!cur) {
			json_object_set_new(ports, port, json_string(idkey));
			if (imp_append(G, "members",
				       json_pack("{s:O, s:O}", "target",
						 json_object_get(ref, "target"), "tag",
						 json_object_get(ref, "tag"))))
				goto nomem;
		}
		json_object_set_new(json_object_get(G, "lus"),
				    json_string_value(json_object_get(so, "name")),
				    json_string(state));
	}
	/* an LU in LIO's default group on a port of a group: the default
	 * group's state through that port */
	json_array_foreach(refs, i, ref)
	{
		const char *gname = json_string_value(json_object_get(ref, "group"));
		json_t *idv =
		    json_object_get(ports, json_string_value(json_object_get(ref, "port")));
		json_t *G, *lus, *d;
		const char *bs;

		so = json_object_get(so_alua, json_string_value(json_object_get(ref, "so")));
		if (!so || !idv || strcmp(gname, LIO_DEFAULT_GROUP) != 0)
			continue;
		G = json_object_get(groups, json_string_value(idv));
		lus = json_object_get(G, "lus");
		bs = json_string_value(json_object_get(so, "name"));
		d = alua_find(json_object_get(so, "groups"), LIO_DEFAULT_GROUP);
		if (!json_object_get(lus, bs))
			json_object_set_new(
			    lus, bs,
			    json_string(alua_state_name(alua_int(d, "alua_access_state", 0))
					    ?: "active/optimized"));
	}
	/* groups of storage objects that no LUN uses */
	json_object_foreach(so_alua, key, so)
	{
		json_t *g;
		json_array_foreach(json_object_get(so, "groups"), i, g)
		{
			const char *n = json_string_value(json_object_get(g, "name"));
			if (n && strcmp(n, LIO_DEFAULT_GROUP) != 0 &&
			    !json_is_true(json_object_get(g, "used")))
				imp_report(
				    r, IMP_NOTE, json_string_value(json_object_get(so, "where")),
				    "alua_tpgs %s: no LUN is in this group; not imported", n);
		}
	}
	/* "lus" -> lu_states where an LU differs from the group's state */
	out = json_array();
	if (!out)
		goto nomem;
	for (long long id = 1; id <= 65535 && json_array_size(out) < json_object_size(groups);
	     id++) {
		char idkey[32];
		json_t *G, *lus, *states, *v;
		const char *bs;

		snprintf(idkey, sizeof(idkey), "%lld", id);
		G = json_object_get(groups, idkey);
		if (!G)
			continue;
		lus = json_object_get(G, "lus");
		states = json_array();
		json_object_foreach(lus, bs, v)
		{
			if (!json_equal(v, json_object_get(G, "state")))
				json_array_append_new(
				    states, json_pack("{s:s, s:O}", "backstore", bs, "state", v));
		}
		json_object_del(G, "lus");
		if (json_array_size(states))
			json_object_set_new(G, "lu_states", states);
		else
			json_decref(states);
		json_array_append(out, G);
	}
	if (json_array_size(out))
		rc = json_object_set(r->config, "port_groups", out) ? -ENOMEM : 0;
	json_decref(out);
	json_decref(groups);
	json_decref(ports);
	return rc;
nomem:
	json_decref(out);
	json_decref(groups);
	json_decref(ports);
	return -ENOMEM;
}
