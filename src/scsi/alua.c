/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua.c: asymmetric logical unit access (SPC-4 5.15): the registry of
 * target port groups, the access state of each logical unit through each
 * group, the per-command state check, and the control plane API (alua.h).
 * The two commands are in alua_cmds.c.
 *
 * Locking, outermost first:
 *   alua_lock     the registry: group list, group attributes, port lists,
 *                 reference counts
 *   target->lock, map->lock, lu->lock (target_for_each_lu, ua_set_all)
 *   group->lock   the group's per-LU states (taken alone, never around the
 *                 locks above)
 * The per-command check reads group->state (atomic) and takes group->lock
 * only when the group holds per-LU states. */
#include "scsi/alua.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "scsi/alua_priv.h"
#include "scsi/cdb.h"
#include "scsi/core.h"
#include "scsi/ua.h"

pthread_mutex_t alua_lock = PTHREAD_MUTEX_INITIALIZER;
struct list_node alua_groups = LIST_INIT(alua_groups); /* sorted by id */

static void (*change_hook)(uint16_t id, const char *lu_name, void *arg);
static void *change_hook_arg;

static const char *const state_names[16] = {
    [SCSI_ALUA_ACTIVE_OPTIMIZED] = "active/optimized",
    [SCSI_ALUA_ACTIVE_NON_OPTIMIZED] = "active/non-optimized",
    [SCSI_ALUA_STANDBY] = "standby",
    [SCSI_ALUA_UNAVAILABLE] = "unavailable",
    [SCSI_ALUA_OFFLINE] = "offline",
    [SCSI_ALUA_TRANSITIONING] = "transitioning",
};

const char *scsi_alua_state_name(enum scsi_alua_state s)
{
	return (unsigned)s < ARRAY_SIZE(state_names) ? state_names[s] : NULL;
}

int scsi_alua_state_parse(const char *s, size_t len, enum scsi_alua_state *out)
{
	for (unsigned i = 0; i < ARRAY_SIZE(state_names); i++) {
		if (state_names[i] && strlen(state_names[i]) == len &&
		    memcmp(state_names[i], s, len) == 0) {
			*out = (enum scsi_alua_state)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool alua_state_valid(unsigned s)
{
	return s < ARRAY_SIZE(state_names) && state_names[s];
}

/* ---- the registry (alua_lock held) ---- */

struct alua_group *alua_group_find_locked(uint16_t id)
{
	struct alua_group *g;

	list_for_each_entry(g, &alua_groups, node)
	{
		if (g->id == id)
			return g;
		if (g->id > id)
			break;
	}
	return NULL;
}

static struct alua_group *group_new_locked(uint16_t id)
{
	struct alua_group *g = calloc(1, sizeof(*g)), *pos;

	if (!g)
		return NULL;
	g->id = id;
	pthread_mutex_init(&g->lock, NULL);
	atomic_init(&g->state, SCSI_ALUA_ACTIVE_OPTIMIZED);
	atomic_init(&g->nlus_pub, 0);
	/* keep the list sorted: RTPG reports groups in identifier order */
	list_for_each_entry(pos, &alua_groups, node) if (pos->id > id) break;
	list_add_tail(&pos->node, &g->node);
	return g;
}

void alua_group_get_locked(struct alua_group *g)
{
	g->refs++;
}

void alua_group_put_locked(struct alua_group *g)
{
	if (--g->refs)
		return;
	list_del(&g->node);
	for (unsigned i = 0; i < g->nlus; i++)
		free(g->lus[i].lu_name);
	free(g->lus);
	free(g->ports);
	free(g->name);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

unsigned scsi_alua_group_count(void)
{
	struct alua_group *g;
	unsigned n = 0;

	pthread_mutex_lock(&alua_lock);
	list_for_each_entry(g, &alua_groups, node) n++;
	pthread_mutex_unlock(&alua_lock);
	return n;
}

/* ---- per-LU states (group->lock held) ---- */

struct alua_lu_state *alua_lu_find_locked(struct alua_group *g, const char *lu_name)
{
	for (unsigned i = 0; i < g->nlus; i++)
		if (strcmp(g->lus[i].lu_name, lu_name) == 0)
			return &g->lus[i];
	return NULL;
}

/* The entry of lu_name, created with the group's current default. */
struct alua_lu_state *alua_lu_get_locked(struct alua_group *g, const char *lu_name)
{
	struct alua_lu_state *e = alua_lu_find_locked(g, lu_name);
	uint8_t def = atomic_load(&g->state);

	if (e)
		return e;
	if (g->nlus == g->cap_lus) {
		unsigned cap = g->cap_lus ? 2 * g->cap_lus : 4;
		struct alua_lu_state *v = realloc(g->lus, cap * sizeof(*v));

		if (!v)
			return NULL;
		g->lus = v;
		g->cap_lus = cap;
	}
	e = &g->lus[g->nlus];
	*e = (struct alua_lu_state){.state = def, .target = def, .status = g->status};
	e->lu_name = strdup(lu_name);
	if (!e->lu_name)
		return NULL;
	g->nlus++;
	atomic_store(&g->nlus_pub, g->nlus);
	return e;
}

static uint8_t lu_state_of(struct alua_group *g, const char *lu_name, uint8_t *target)
{
	struct alua_lu_state *e;
	uint8_t s, t;

	if (!atomic_load_explicit(&g->nlus_pub, memory_order_acquire)) {
		s = atomic_load_explicit(&g->state, memory_order_relaxed);
		if (target)
			*target = s;
		return s;
	}
	pthread_mutex_lock(&g->lock);
	e = lu_name ? alua_lu_find_locked(g, lu_name) : NULL;
	s = e ? e->state : atomic_load(&g->state);
	t = e ? e->target : s;
	pthread_mutex_unlock(&g->lock);
	if (target)
		*target = t;
	return s;
}

void alua_lu_state_report(struct alua_group *g, const char *lu_name, uint8_t *state,
			  uint8_t *status)
{
	struct alua_lu_state *e;

	pthread_mutex_lock(&g->lock);
	e = alua_lu_find_locked(g, lu_name);
	*state = e ? e->state : atomic_load(&g->state);
	*status = e ? e->status : g->status;
	pthread_mutex_unlock(&g->lock);
}

/* ---- ports ---- */

struct lu_list {
	struct scsi_lu **v;
	unsigned n, cap;
	const char *name; /* only LUs of this name (NULL: all) */
};

static void collect_lu(struct scsi_lu *lu, void *arg)
{
	struct lu_list *l = arg;

	if (l->name && strcmp(l->name, lu->name) != 0)
		return;
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i] == lu)
			return;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct scsi_lu **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return; /* best effort: a missed unit attention under ENOMEM */
		l->v = v;
		l->cap = cap;
	}
	scsi_lu_get(lu);
	l->v[l->n++] = lu;
}

/* Put tp in g's port list (sorted by relative target port identifier, the
 * RTPG port order) and take a reference on g. alua_lock held. */
static int group_add_port_locked(struct alua_group *g, struct scsi_tport *tp)
{
	unsigned i;

	if (g->nports == g->cap_ports) {
		unsigned cap = g->cap_ports ? 2 * g->cap_ports : 4;
		struct scsi_tport **v = realloc(g->ports, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->ports = v;
		g->cap_ports = cap;
	}
	for (i = g->nports; i > 0 && g->ports[i - 1]->rel_port_id > tp->rel_port_id; i--)
		g->ports[i] = g->ports[i - 1];
	g->ports[i] = tp;
	g->nports++;
	alua_group_get_locked(g);
	return 0;
}

/* Take tp out of g's port list (the reference stays with the caller). */
static void group_del_port_locked(struct alua_group *g, struct scsi_tport *tp)
{
	for (unsigned i = 0; i < g->nports; i++) {
		if (g->ports[i] != tp)
			continue;
		memmove(&g->ports[i], &g->ports[i + 1], (g->nports - i - 1) * sizeof(g->ports[0]));
		g->nports--;
		return;
	}
}

/* The group of identifier id, created (implicit, no reference) if needed. */
static struct alua_group *group_get_or_new_locked(uint16_t id, bool *created)
{
	struct alua_group *g = alua_group_find_locked(id);

	*created = !g;
	return g ? g : group_new_locked(id);
}

/* A group created for a port that could not join it goes again. */
static void group_drop_new_locked(struct alua_group *g)
{
	g->refs = 1;
	alua_group_put_locked(g);
}

int alua_port_attach(struct scsi_tport *tp)
{
	uint16_t id = tp->port_group ? tp->port_group : tp->rel_port_id;
	struct alua_group *g;
	bool created;

	pthread_mutex_lock(&alua_lock);
	g = group_get_or_new_locked(id, &created);
	if (g && group_add_port_locked(g, tp)) {
		if (created)
			group_drop_new_locked(g);
		g = NULL;
	}
	if (g)
		__atomic_store_n(&tp->alua, g, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&alua_lock);
	return g ? 0 : -ENOMEM;
}

/* SPC-4 5.15.2.5 and 7.8.6.7: a port moved to another target port group.
 * Commands of other reactors may still be reading the old group
 * (alua_state_of() reads tp->alua without the registry lock), so the port
 * keeps its reference on it until alua_port_detach(). The access state of
 * the logical units through the port may change and RTPG and VPD 83h's
 * target port group designator report another group: ASYMMETRIC ACCESS
 * STATE CHANGED and INQUIRY DATA HAS CHANGED to every I_T nexus of the
 * logical units the port reaches. */
int alua_port_move(struct scsi_tport *tp, uint16_t port_group)
{
	uint16_t id = port_group ? port_group : tp->rel_port_id;
	struct alua_group *old, *g, **moved;
	struct lu_list l = {0};
	bool created;

	pthread_mutex_lock(&alua_lock);
	old = tp->alua;
	if (old && old->id == id) {
		tp->port_group = port_group;
		pthread_mutex_unlock(&alua_lock);
		return 0;
	}
	moved = realloc(tp->alua_moved_from, (tp->nalua_moved + 1) * sizeof(*moved));
	if (moved)
		tp->alua_moved_from = moved;
	g = moved ? group_get_or_new_locked(id, &created) : NULL;
	if (g && group_add_port_locked(g, tp)) {
		if (created)
			group_drop_new_locked(g);
		g = NULL;
	}
	if (!g) {
		pthread_mutex_unlock(&alua_lock);
		return -ENOMEM;
	}
	if (old) {
		group_del_port_locked(old, tp);
		tp->alua_moved_from[tp->nalua_moved++] = old; /* its reference */
	}
	__atomic_store_n(&tp->alua, g, __ATOMIC_RELEASE);
	tp->port_group = port_group;
	target_for_each_lu(tp->target, collect_lu, &l);
	for (unsigned i = 0; i < l.n; i++) {
		ua_set_all(l.v[i], UA_ASYM_ACCESS_CHANGED, NULL);
		ua_set_all(l.v[i], UA_INQUIRY_DATA_CHANGED, NULL);
		scsi_lu_put(l.v[i]);
	}
	free(l.v);
	pthread_mutex_unlock(&alua_lock);
	return 0;
}

void alua_port_detach(struct scsi_tport *tp)
{
	struct alua_group *g = tp->alua;

	if (!g)
		return;
	pthread_mutex_lock(&alua_lock);
	group_del_port_locked(g, tp);
	__atomic_store_n(&tp->alua, NULL, __ATOMIC_RELEASE);
	alua_group_put_locked(g);
	for (unsigned i = 0; i < tp->nalua_moved; i++)
		alua_group_put_locked(tp->alua_moved_from[i]);
	free(tp->alua_moved_from);
	tp->alua_moved_from = NULL;
	tp->nalua_moved = 0;
	pthread_mutex_unlock(&alua_lock);
}

uint16_t alua_port_group_id(const struct scsi_tport *tp)
{
	const struct alua_group *g = __atomic_load_n(&tp->alua, __ATOMIC_ACQUIRE);

	if (g)
		return g->id;
	return tp->port_group ? tp->port_group : tp->rel_port_id;
}

/* ---- which logical units a group reaches ---- */

struct lu_probe {
	const struct scsi_lu *lu;
	bool found;
};

static void probe_lu(struct scsi_lu *lu, void *arg)
{
	struct lu_probe *p = arg;

	if (lu == p->lu)
		p->found = true;
}

bool alua_port_reaches_locked(struct scsi_tport *tp, const struct scsi_lu *lu)
{
	struct lu_probe p = {.lu = lu};

	target_for_each_lu(tp->target, probe_lu, &p);
	return p.found;
}

bool alua_lu_has_port(const struct scsi_lu *lu, uint16_t rel_port_id)
{
	struct alua_group *g;
	bool found = false;

	pthread_mutex_lock(&alua_lock);
	list_for_each_entry(g, &alua_groups, node)
	{
		for (unsigned i = 0; i < g->nports && !found; i++)
			found = g->ports[i]->rel_port_id == rel_port_id &&
				alua_port_reaches_locked(g->ports[i], lu);
		if (found)
			break;
	}
	pthread_mutex_unlock(&alua_lock);
	return found;
}

void alua_lu_for_each_port(const struct scsi_lu *lu,
			   void (*fn)(const struct scsi_tport *tp, void *arg), void *arg)
{
	struct alua_group *g;

	pthread_mutex_lock(&alua_lock);
	list_for_each_entry(g, &alua_groups, node)
	{
		for (unsigned i = 0; i < g->nports; i++)
			if (alua_port_reaches_locked(g->ports[i], lu))
				fn(g->ports[i], arg);
	}
	pthread_mutex_unlock(&alua_lock);
}

/* SPC-4 5.15.2.5 (implicit transitions): ASYMMETRIC ACCESS STATE CHANGED
 * for every I_T nexus of every logical unit named (NULL: all) that the
 * group's ports reach. alua_lock held. */
static void group_ua_locked(struct alua_group *g, const char *lu_name)
{
	struct lu_list l = {.name = lu_name};

	for (unsigned i = 0; i < g->nports; i++)
		target_for_each_lu(g->ports[i]->target, collect_lu, &l);
	for (unsigned i = 0; i < l.n; i++) {
		ua_set_all(l.v[i], UA_ASYM_ACCESS_CHANGED, NULL);
		scsi_lu_put(l.v[i]);
	}
	free(l.v);
}

static bool group_busy_locked(struct alua_group *g, const char *lu_name)
{
	bool busy = false;

	pthread_mutex_lock(&g->lock);
	for (unsigned i = 0; i < g->nlus; i++)
		if (g->lus[i].busy && (!lu_name || strcmp(lu_name, g->lus[i].lu_name) == 0))
			busy = true;
	pthread_mutex_unlock(&g->lock);
	return busy;
}

/* ---- control plane ---- */

/* Set the default state; with forget, drop the per-LU states. Returns
 * whether any logical unit's state through the group changed (then, when
 * only the default changed, every LU without its own state changed). */
static bool group_set_default_locked(struct alua_group *g, uint8_t s, bool forget)
{
	bool changed = atomic_load(&g->state) != s;

	pthread_mutex_lock(&g->lock);
	if (forget) {
		for (unsigned i = 0; i < g->nlus; i++) {
			changed |= g->lus[i].state != s;
			free(g->lus[i].lu_name);
		}
		g->nlus = 0;
		atomic_store(&g->nlus_pub, 0);
	}
	if (changed)
		g->status = ALUA_STATUS_BY_IMPLICIT;
	atomic_store(&g->state, s);
	pthread_mutex_unlock(&g->lock);
	return changed;
}

int scsi_alua_group_define(uint16_t id, const struct scsi_alua_group_attrs *a)
{
	struct alua_group *g;
	char *name = NULL;

	if (!id || !a || !alua_state_valid(a->state))
		return -EINVAL;
	if (a->name && !(name = strdup(a->name)))
		return -ENOMEM;
	pthread_mutex_lock(&alua_lock);
	g = alua_group_find_locked(id);
	if (g && group_busy_locked(g, NULL)) {
		pthread_mutex_unlock(&alua_lock);
		free(name);
		return -EBUSY;
	}
	if (!g)
		g = group_new_locked(id);
	if (!g) {
		pthread_mutex_unlock(&alua_lock);
		free(name);
		return -ENOMEM;
	}
	if (!g->defined) {
		g->defined = true;
		alua_group_get_locked(g);
	}
	free(g->name);
	g->name = name;
	g->preferred = a->preferred;
	g->explicit_ok = a->explicit_ok;
	g->transition_ms = a->transition_ms;
	if (group_set_default_locked(g, a->state, false))
		group_ua_locked(g, NULL);
	pthread_mutex_unlock(&alua_lock);
	return 0;
}

int scsi_alua_group_undefine(uint16_t id)
{
	struct alua_group *g;

	pthread_mutex_lock(&alua_lock);
	g = alua_group_find_locked(id);
	if (!g || !g->defined) {
		pthread_mutex_unlock(&alua_lock);
		return -ENOENT;
	}
	g->defined = false;
	alua_group_put_locked(g);
	pthread_mutex_unlock(&alua_lock);
	return 0;
}

int scsi_alua_set_state(uint16_t id, const char *lu_name, enum scsi_alua_state s)
{
	struct alua_group *g;
	struct alua_lu_state *e;
	bool changed;
	int rc = 0;

	if (!alua_state_valid(s))
		return -EINVAL;
	pthread_mutex_lock(&alua_lock);
	g = alua_group_find_locked(id);
	if (!g) {
		rc = -ENOENT;
		goto out;
	}
	if (group_busy_locked(g, lu_name)) {
		rc = -EBUSY;
		goto out;
	}
	if (!lu_name) {
		changed = group_set_default_locked(g, (uint8_t)s, true);
	} else {
		pthread_mutex_lock(&g->lock);
		e = alua_lu_get_locked(g, lu_name);
		changed = e && e->state != s;
		if (e && changed) {
			e->state = e->target = (uint8_t)s;
			e->status = ALUA_STATUS_BY_IMPLICIT;
		}
		pthread_mutex_unlock(&g->lock);
		if (!e)
			rc = -ENOMEM;
	}
	if (!rc && changed) {
		log_info("ALUA: target port group %u%s%s%s: %s%s%s (implicit)", g->id,
			 g->name ? " (" : "", g->name ? g->name : "", g->name ? ")" : "",
			 lu_name ? lu_name : "every logical unit", lu_name ? " " : " -> ",
			 scsi_alua_state_name(s));
		group_ua_locked(g, lu_name);
	}
out:
	pthread_mutex_unlock(&alua_lock);
	return rc;
}

int scsi_alua_get_state(uint16_t id, const char *lu_name, enum scsi_alua_state *s,
			enum scsi_alua_state *target)
{
	struct alua_group *g;
	uint8_t st, tg;

	pthread_mutex_lock(&alua_lock);
	g = alua_group_find_locked(id);
	if (!g) {
		pthread_mutex_unlock(&alua_lock);
		return -ENOENT;
	}
	st = lu_state_of(g, lu_name, &tg);
	pthread_mutex_unlock(&alua_lock);
	*s = (enum scsi_alua_state)st;
	if (target)
		*target = (enum scsi_alua_state)tg;
	return 0;
}

int scsi_alua_for_each_state(uint16_t id,
			     void (*fn)(uint16_t id, const char *lu_name, enum scsi_alua_state s,
					void *arg),
			     void *arg)
{
	struct alua_group *g;

	pthread_mutex_lock(&alua_lock);
	g = alua_group_find_locked(id);
	if (!g) {
		pthread_mutex_unlock(&alua_lock);
		return -ENOENT;
	}
	fn(id, NULL, (enum scsi_alua_state)atomic_load(&g->state), arg);
	pthread_mutex_lock(&g->lock);
	for (unsigned i = 0; i < g->nlus; i++)
		fn(id, g->lus[i].lu_name, (enum scsi_alua_state)g->lus[i].target, arg);
	pthread_mutex_unlock(&g->lock);
	pthread_mutex_unlock(&alua_lock);
	return 0;
}

void scsi_alua_set_change_hook(void (*fn)(uint16_t id, const char *lu_name, void *arg), void *arg)
{
	pthread_mutex_lock(&alua_lock);
	change_hook = fn;
	change_hook_arg = arg;
	pthread_mutex_unlock(&alua_lock);
}

void alua_notify_change(uint16_t id, const char *lu_name)
{
	void (*fn)(uint16_t, const char *, void *);
	void *arg;

	pthread_mutex_lock(&alua_lock);
	fn = change_hook;
	arg = change_hook_arg;
	pthread_mutex_unlock(&alua_lock);
	if (fn)
		fn(id, lu_name, arg);
}

/* ---- the per-command check ---- */

enum scsi_alua_state alua_state_of(const struct scsi_tport *tp, const struct scsi_lu *lu)
{
	struct alua_group *g = __atomic_load_n(&tp->alua, __ATOMIC_ACQUIRE);

	if (!g)
		return SCSI_ALUA_ACTIVE_OPTIMIZED;
	return (enum scsi_alua_state)lu_state_of(g, lu->name, NULL);
}

/* SPC-4 5.15.2.4: which commands each access state allows, from the CDB
 * table's flags:
 *   active/optimized, active/non-optimized  every command (5.15.2.4.2/3)
 *   standby        CDB_F_ALUA_STANDBY_OK, else 04/0B (5.15.2.4.4)
 *   unavailable    CDB_F_ALUA_UNAVAIL_OK, else 04/0C (5.15.2.4.5)
 *   offline        as unavailable, 04/12 (5.15.2.4.7: the port is not
 *                  usable for the logical unit; what still arrives is
 *                  answered like unavailable)
 *   transitioning  as unavailable, 04/0A (5.15.2.5: the transition is one
 *                  indivisible event; the commands that report state stay
 *                  available) */
enum sense_reason alua_check_access(const struct scsi_tport *tp, const struct scsi_lu *lu,
				    uint16_t flags)
{
	switch (alua_state_of(tp, lu)) {
	case SCSI_ALUA_ACTIVE_OPTIMIZED:
	case SCSI_ALUA_ACTIVE_NON_OPTIMIZED:
		return SENSE_OK;
	case SCSI_ALUA_STANDBY:
		return (flags & CDB_F_ALUA_STANDBY_OK) ? SENSE_OK : SENSE_NOT_READY_ALUA_STANDBY;
	case SCSI_ALUA_UNAVAILABLE:
		return (flags & CDB_F_ALUA_UNAVAIL_OK) ? SENSE_OK
						       : SENSE_NOT_READY_ALUA_UNAVAILABLE;
	case SCSI_ALUA_OFFLINE:
		return (flags & CDB_F_ALUA_UNAVAIL_OK) ? SENSE_OK : SENSE_NOT_READY_ALUA_OFFLINE;
	case SCSI_ALUA_TRANSITIONING:
	default:
		return (flags & CDB_F_ALUA_UNAVAIL_OK) ? SENSE_OK : SENSE_NOT_READY_ALUA_TRANSITION;
	}
}

enum sense_reason alua_check(struct scsi_cmd *cmd)
{
	const struct scsi_cmd_priv *p = &cmd->priv;

	if (!p->lu)
		return SENSE_OK;
	return alua_check_access(cmd->nexus->tport, p->lu, p->desc->flags);
}

uint8_t alua_tpgs(struct scsi_lu *lu)
{
	struct alua_group *g;
	bool explicit_ok = false;

	pthread_mutex_lock(&alua_lock);
	list_for_each_entry(g, &alua_groups, node)
	{
		if (!g->explicit_ok)
			continue;
		for (unsigned i = 0; i < g->nports && !explicit_ok; i++)
			explicit_ok = alua_port_reaches_locked(g->ports[i], lu);
		if (explicit_ok)
			break;
	}
	pthread_mutex_unlock(&alua_lock);
	return explicit_ok ? 0x3 : 0x1;
}
