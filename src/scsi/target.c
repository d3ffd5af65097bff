/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c: SCSI target devices, target ports, LUN maps and initiator access
 * control (SAM-5 4.6). A LUN map is a sorted array looked up by binary
 * search on the slow path; nexuses cache their resolved LUNs (nexus.c) and
 * compare the map's generation number on the fast path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "scsi/alua.h"
#include "scsi/core.h"
#include "scsi/rod.h"
#include "scsi/ua.h"

#define LUN_MAX 16383u

/* ---- LUN encoding (SAM-5 4.7.7) ---- */

int64_t lun_decode(uint64_t lun)
{
	uint8_t b[8];

	put_be64(b, lun);
	/* single level: bytes 2..7 zero */
	if (get_be32(b + 2) || get_be16(b + 6))
		return -1;
	switch (b[0] >> 6) {
	case 0: /* peripheral device addressing, bus 0 */
		if (b[0] & 0x3f)
			return -1;
		return b[1];
	case 1: /* flat space addressing */
		return ((int64_t)(b[0] & 0x3f) << 8) | b[1];
	default:
		return -1;
	}
}

uint64_t lun_encode(uint32_t lun)
{
	uint8_t b[8] = {0};

	if (lun < 256) {
		b[1] = (uint8_t)lun;
	} else {
		b[0] = (uint8_t)(0x40 | ((lun >> 8) & 0x3f));
		b[1] = (uint8_t)lun;
	}
	return get_be64(b);
}

/* ---- LUN maps ---- */

struct scsi_lun_map *scsi_lun_map_create(void)
{
	struct scsi_lun_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	atomic_init(&m->refs, 1);
	atomic_init(&m->gen, 1);
	pthread_mutex_init(&m->lock, NULL);
	list_init(&m->nexuses);
	return m;
}

void scsi_lun_map_get(struct scsi_lun_map *m)
{
	atomic_fetch_add(&m->refs, 1);
}

void scsi_lun_map_put(struct scsi_lun_map *m)
{
	if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
		return;
	for (unsigned i = 0; i < m->n; i++)
		scsi_lu_put(m->v[i].lu);
	free(m->v);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* index of the first entry with lun >= key */
static unsigned map_search(const struct scsi_lun_map *m, uint32_t key)
{
	unsigned lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (m->v[mid].lun < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* SPC-4 6.33: REPORTED LUNS DATA HAS CHANGED for every nexus using the map,
 * on every logical unit it can reach. Map lock held. */
static void map_changed_locked(struct scsi_lun_map *m)
{
	atomic_fetch_add(&m->gen, 1);
	if (list_empty(&m->nexuses))
		return;
	for (unsigned i = 0; i < m->n; i++) {
		struct scsi_lu *lu = m->v[i].lu;
		struct lu_itn *itn;

		pthread_mutex_lock(&lu->lock);
		list_for_each_entry(itn, &lu->core->itns, node)
		{
			if (itn->nexus && itn->nexus->map == m)
				ua_set(itn, UA_REPORTED_LUNS_CHANGED);
		}
		pthread_mutex_unlock(&lu->lock);
	}
}

int scsi_lun_map_add(struct scsi_lun_map *m, uint32_t lun, struct scsi_lu *lu, bool read_only)
{
	unsigned i;

	if (!m || !lu || lun > LUN_MAX)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	i = map_search(m, lun);
	if (i < m->n && m->v[i].lun == lun) {
		pthread_mutex_unlock(&m->lock);
		return -EEXIST;
	}
	if (m->n == m->cap) {
		unsigned cap = m->cap ? m->cap * 2 : 8;
		struct lun_entry *v = realloc(m->v, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&m->lock);
			return -ENOMEM;
		}
		m->v = v;
		m->cap = cap;
	}
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(m->v[0]));
	scsi_lu_get(lu);
	m->v[i] = (struct lun_entry){.lun = lun, .read_only = read_only, .lu = lu};
	m->n++;
	map_changed_locked(m);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int scsi_lun_map_del(struct scsi_lun_map *m, uint32_t lun)
{
	struct scsi_lu *lu;
	unsigned i;

	if (!m)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	i = map_search(m, lun);
	if (i >= m->n || m->v[i].lun != lun) {
		pthread_mutex_unlock(&m->lock);
		return -ENOENT;
	}
	lu = m->v[i].lu;
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(m->v[0]));
	m->n--;
	map_changed_locked(m);
	pthread_mutex_unlock(&m->lock);
	scsi_lu_put(lu);
	return 0;
}

/* Map lookup for nexus.c: LU reference and write protection; map locked by
 * the caller. */
struct scsi_lu *lun_map_lookup_locked(struct scsi_lun_map *m, uint32_t lun, bool *read_only)
{
	unsigned i = map_search(m, lun);

	if (i >= m->n || m->v[i].lun != lun)
		return NULL;
	*read_only = m->v[i].read_only;
	scsi_lu_get(m->v[i].lu);
	return m->v[i].lu;
}

void lun_map_for_each(struct scsi_lun_map *m, void (*fn)(const struct lun_entry *e, void *arg),
		      void *arg)
{
	pthread_mutex_lock(&m->lock);
	for (unsigned i = 0; i < m->n; i++)
		fn(&m->v[i], arg);
	pthread_mutex_unlock(&m->lock);
}

/* ---- targets and ports ---- */

struct scsi_target *scsi_target_create(const char *name)
{
	struct scsi_target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->name = strdup(name ? name : "");
	if (!t->name) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	list_init(&t->tports);
	list_init(&t->retired_tports);
	list_init(&t->acls);
	list_init(&t->node);
	return t;
}

static void tport_free(struct scsi_tport *tp)
{
	stats_set_fini(&tp->stats);
	free(tp->name);
	free(tp);
}

void scsi_target_destroy(struct scsi_target *t)
{
	struct scsi_tport *tp, *tpn;
	struct tgt_acl *a, *an;

	if (!t)
		return;
	/* leave the ALUA groups first: nothing reaches the target through
	 * them once this returns (alua.c walks targets under its lock) */
	list_for_each_entry(tp, &t->tports, node) alua_port_detach(tp);
	list_for_each_entry_safe(tp, tpn, &t->tports, node) tport_free(tp);
	list_for_each_entry_safe(tp, tpn, &t->retired_tports, node) tport_free(tp);
	list_for_each_entry_safe(a, an, &t->acls, node)
	{
		scsi_lun_map_put(a->map);
		free(a->initiator_name);
		free(a);
	}
	scsi_lun_map_put(t->default_map);
	rod_target_gone(t);
	pthread_mutex_destroy(&t->lock);
	free(t->name);
	free(t);
}

const char *scsi_target_name(const struct scsi_target *t)
{
	return t->name;
}

/* Creating a port that exists (same relative port id and name) returns the
 * existing one (fabrics that share a port, e.g. several loop initiators);
 * the same id with another name is a conflict (NULL). Ports live as long as
 * the target. */
struct scsi_tport *scsi_tport_create(struct scsi_target *t, const char *port_name,
				     uint16_t rel_port_id, uint16_t port_group)
{
	struct scsi_tport *tp;

	if (!t || !port_name || rel_port_id == 0)
		return NULL;
	pthread_mutex_lock(&t->lock);
	list_for_each_entry(tp, &t->tports, node)
	{
		if (tp->rel_port_id == rel_port_id) {
			bool same = strcmp(tp->name, port_name) == 0;
			pthread_mutex_unlock(&t->lock);
			return same ? tp : NULL;
		}
	}
	tp = calloc(1, sizeof(*tp));
	if (tp)
		tp->name = strdup(port_name);
	if (!tp || !tp->name) {
		free(tp);
		pthread_mutex_unlock(&t->lock);
		return NULL;
	}
	stats_set_init(&tp->stats, TP_ST_WORDS);
	tp->target = t;
	tp->rel_port_id = rel_port_id;
	tp->port_group = port_group;
	list_add_tail(&t->tports, &tp->node);
	pthread_mutex_unlock(&t->lock);
	/* outside t->lock: alua.c takes its lock before target locks */
	if (alua_port_attach(tp)) {
		pthread_mutex_lock(&t->lock);
		list_del(&tp->node);
		pthread_mutex_unlock(&t->lock);
		tport_free(tp);
		return NULL;
	}
	return tp;
}

struct scsi_target *scsi_tport_target(const struct scsi_tport *tp)
{
	return tp->target;
}

/* The port leaves its ALUA group and the target's port list (no longer
 * reported, its identifier free for a new port); the memory stays until the
 * target goes, for nexuses that still point at it while they end. */
int scsi_tport_set_port_group(struct scsi_tport *tp, uint16_t port_group)
{
	return alua_port_move(tp, port_group);
}

void scsi_tport_stats(struct scsi_tport *tp, struct scsi_tport_stats *out)
{
	uint64_t w[TP_ST_WORDS];

	stats_set_sum(&tp->stats, w);
	out->rel_port_id = tp->rel_port_id;
	out->cmds = w[TP_ST_CMDS];
	out->read_bytes = w[TP_ST_READ_BYTES];
	out->write_bytes = w[TP_ST_WRITE_BYTES];
}

void scsi_tport_retire(struct scsi_tport *tp)
{
	struct scsi_target *t = tp->target;

	alua_port_detach(tp);
	pthread_mutex_lock(&t->lock);
	list_del(&tp->node);
	list_add_tail(&t->retired_tports, &tp->node);
	pthread_mutex_unlock(&t->lock);
}

/* ---- access control ---- */

void scsi_target_set_default_map(struct scsi_target *t, struct scsi_lun_map *m, bool demo)
{
	struct scsi_lun_map *old;

	if (m)
		scsi_lun_map_get(m);
	pthread_mutex_lock(&t->lock);
	old = t->default_map;
	t->default_map = m;
	t->demo = demo;
	pthread_mutex_unlock(&t->lock);
	scsi_lun_map_put(old);
}

static struct tgt_acl *acl_find_locked(struct scsi_target *t, const char *name)
{
	struct tgt_acl *a;

	list_for_each_entry(a, &t->acls, node) if (strcmp(a->initiator_name, name) == 0) return a;
	return NULL;
}

int scsi_target_acl_set(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map *m)
{
	struct scsi_lun_map *old = NULL;
	struct tgt_acl *a;

	if (!initiator_name || !*initiator_name || !m)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	a = acl_find_locked(t, initiator_name);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (a)
			a->initiator_name = strdup(initiator_name);
		if (!a || !a->initiator_name) {
			free(a);
			pthread_mutex_unlock(&t->lock);
			return -ENOMEM;
		}
		list_add_tail(&t->acls, &a->node);
	}
	old = a->map;
	scsi_lun_map_get(m);
	a->map = m;
	pthread_mutex_unlock(&t->lock);
	scsi_lun_map_put(old);
	return 0;
}

int scsi_target_acl_del(struct scsi_target *t, const char *initiator_name)
{
	struct tgt_acl *a;

	pthread_mutex_lock(&t->lock);
	a = acl_find_locked(t, initiator_name);
	if (!a) {
		pthread_mutex_unlock(&t->lock);
		return -ENOENT;
	}
	list_del(&a->node);
	pthread_mutex_unlock(&t->lock);
	scsi_lun_map_put(a->map);
	free(a->initiator_name);
	free(a);
	return 0;
}

int scsi_target_access(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map **out)
{
	struct scsi_lun_map *m = NULL;
	struct tgt_acl *a;

	pthread_mutex_lock(&t->lock);
	a = initiator_name ? acl_find_locked(t, initiator_name) : NULL;
	if (a)
		m = a->map;
	else if (t->demo)
		m = t->default_map;
	if (m)
		scsi_lun_map_get(m);
	pthread_mutex_unlock(&t->lock);
	if (!m)
		return -EACCES;
	*out = m;
	return 0;
}

int scsi_target_acl_get(struct scsi_target *t, const char *initiator_name,
			struct scsi_lun_map **out)
{
	struct tgt_acl *a;
	int rc = -ENOENT;

	pthread_mutex_lock(&t->lock);
	a = initiator_name ? acl_find_locked(t, initiator_name) : NULL;
	if (a) {
		scsi_lun_map_get(a->map);
		*out = a->map;
		rc = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

bool scsi_target_demo(struct scsi_target *t)
{
	bool demo;

	pthread_mutex_lock(&t->lock);
	demo = t->demo && t->default_map;
	pthread_mutex_unlock(&t->lock);
	return demo;
}

/* ---- walking the logical units of a map or a target (target resets,
 * ALUA) ---- */

struct lu_set {
	struct scsi_lu **v;
	unsigned n, cap;
};

static void lu_set_add(const struct lun_entry *e, void *arg)
{
	struct lu_set *s = arg;

	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] == e->lu)
			return;
	if (s->n == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 16;
		struct scsi_lu **v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return; /* best effort under memory pressure */
		s->v = v;
		s->cap = cap;
	}
	scsi_lu_get(e->lu);
	s->v[s->n++] = e->lu;
}

/* Call fn for each LU of s, then drop the references and the set. */
static void lu_set_run(struct lu_set *s, void (*fn)(struct scsi_lu *lu, void *arg), void *arg)
{
	for (unsigned i = 0; i < s->n; i++) {
		fn(s->v[i], arg);
		scsi_lu_put(s->v[i]);
	}
	free(s->v);
}

void lun_map_for_each_lu(struct scsi_lun_map *m, void (*fn)(struct scsi_lu *lu, void *arg),
			 void *arg)
{
	struct lu_set s = {0};

	lun_map_for_each(m, lu_set_add, &s);
	lu_set_run(&s, fn, arg);
}

void target_for_each_lu(struct scsi_target *t, void (*fn)(struct scsi_lu *lu, void *arg), void *arg)
{
	struct lu_set s = {0};
	struct scsi_lun_map **maps;
	unsigned nmaps = 0, cap = 1;
	struct tgt_acl *a;

	pthread_mutex_lock(&t->lock);
	list_for_each_entry(a, &t->acls, node) cap++;
	maps = calloc(cap, sizeof(*maps));
	if (maps && t->default_map) {
		scsi_lun_map_get(t->default_map);
		maps[nmaps++] = t->default_map;
	}
	list_for_each_entry(a, &t->acls, node)
	{
		if (!maps)
			break;
		scsi_lun_map_get(a->map);
		maps[nmaps++] = a->map;
	}
	pthread_mutex_unlock(&t->lock);
	for (unsigned i = 0; i < nmaps; i++) {
		lun_map_for_each(maps[i], lu_set_add, &s);
		scsi_lun_map_put(maps[i]);
	}
	free(maps);
	lu_set_run(&s, fn, arg);
}

int scsi_core_init(void)
{
	return 0;
}
