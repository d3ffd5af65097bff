/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_cfg_rt.c: see fake_cfg_rt.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backstore/fault.h"
#include "backstore/pi.h"
#include "config/auth_apply.h"
#include "fake_cfg_rt.h"
#include "lib/compiler.h"

struct fake_rt fk;
struct fake_alua alua;
struct iscsi_target *itargets[FAKE_MAX];
size_t nitargets;

void fake_rt_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	memset(itargets, 0, sizeof(itargets));
	nitargets = 0;
	fk.drop_sessions = 1;
}

void fake_rt_reset_calls(void)
{
	struct fake_rt keep = fk;

	fake_rt_reset();
	fk.live_devs = keep.live_devs;
	fk.live_lus = keep.live_lus;
	fk.live_maps = keep.live_maps;
	fk.live_targets = keep.live_targets;
	fk.live_itargets = keep.live_itargets;
	fk.listening = keep.listening;
	fk.serial = keep.serial;
}

void fake_rt_assert_nothing_live(void)
{
	assert_int_equal(fk.live_devs, 0);
	assert_int_equal(fk.live_lus, 0);
	assert_int_equal(fk.live_maps, 0);
	assert_int_equal(fk.live_targets, 0);
	assert_int_equal(fk.live_itargets, 0);
	assert_int_equal(fk.listening, 0);
}

bool fake_fail(enum fake_call c)
{
	return ++fk.calls[c] == fk.fail_at[c];
}

/* ---- back-stores ---- */
static void fake_bs_close(struct bs_dev *dev)
{
	fk.live_devs--;
	free(container_of(dev, struct fake_dev, dev));
}

static void fake_bs_submit(struct bs_dev *dev, struct bs_io *io)
{
	io->done(io, -EIO);
}

static const struct bs_ops fake_bs_ops = {
    .type = "fake",
    .submit = fake_bs_submit,
    .close = fake_bs_close,
};

/* the fault-injection wrapper (no config here sets "fault") */
int bs_fault_wrap(struct bs_dev *inner, const struct bs_fault_params *p, struct bs_dev **out)
{
	(void)p;
	*out = inner;
	return 0;
}

/* the protection information store: the data device stands for it, the
 * tuple store is closed at once */
int bs_pi_wrap(struct bs_dev *data, struct bs_dev *tuples, enum t10pi_type type,
	       uint32_t block_size, struct bs_dev **out)
{
	(void)type;
	(void)block_size;
	bs_close(tuples);
	*out = data;
	return 0;
}

int bs_open(const struct bs_params *p, struct bs_dev **out)
{
	struct fake_dev *d;

	if (fake_fail(F_BS_OPEN))
		return -EACCES;
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	d->p = *p;
	if (p->path)
		snprintf(d->path, sizeof(d->path), "%s", p->path);
	d->dev.ops = &fake_bs_ops;
	d->dev.size = p->size ? p->size : 1 << 20;
	/* the ram fake cannot deallocate; null is opened read-only */
	d->dev.caps = BS_CAP_FLUSH | (strcmp(p->type, "ram") ? BS_CAP_DISCARD : 0) |
		      (p->readonly ? BS_CAP_READ_ONLY : 0);
	snprintf(d->dev.type, sizeof(d->dev.type), "%s", p->type);
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", p->name);
	fk.live_devs++;
	*out = &d->dev;
	return 0;
}

/* ---- logical units ---- */
int scsi_lu_create(const char *name, struct bs_dev *bs, const struct scsi_lu_attrs *attrs,
		   struct scsi_lu **out)
{
	struct scsi_lu *lu;

	if (fake_fail(F_LU_CREATE))
		return -ENOMEM;
	lu = calloc(1, sizeof(*lu));
	assert_non_null(lu);
	snprintf(lu->name, sizeof(lu->name), "%s", name);
	lu->bs = bs;
	lu->attrs = *attrs;
	lu->refs = 1;
	lu->id = ++fk.serial;
	fk.live_lus++;
	*out = lu;
	return 0;
}

void scsi_lu_get(struct scsi_lu *lu)
{
	assert_true(lu->refs > 0);
	lu->refs++;
}

void scsi_lu_put(struct scsi_lu *lu)
{
	assert_true(lu->refs > 0);
	if (--lu->refs == 0) {
		bs_close(lu->bs);
		fk.live_lus--;
		free(lu);
	}
}

const char *scsi_lu_name(const struct scsi_lu *lu)
{
	return lu->name;
}

uint64_t scsi_lu_size(const struct scsi_lu *lu)
{
	return lu->bs->size;
}

size_t scsi_lu_medium_facts(struct scsi_lu *lu, struct bs_fact *f, size_t max)
{
	return lu->bs->ops->facts ? lu->bs->ops->facts(lu->bs, f, max) : 0;
}

int scsi_lu_medium_check(struct scsi_lu *lu, struct bs_fact *f, size_t max, size_t *n)
{
	*n = 0;
	return lu->bs->ops->check ? lu->bs->ops->check(lu->bs, f, max, n) : -EOPNOTSUPP;
}

/* like the core: a null back-store has no size to change */
int scsi_lu_resize(struct scsi_lu *lu, uint64_t new_size_bytes)
{
	if (fake_fail(F_LU_RESIZE))
		return -EIO;
	if (strcmp(lu->bs->type, "null") == 0)
		return -EOPNOTSUPP;
	lu->bs->size = new_size_bytes;
	return 0;
}

/* persistent reservation state (APTPL): kept in the state directory */
int scsi_lu_pr_store(struct scsi_lu *lu, const char *state_dir)
{
	assert_true(lu->refs > 0);
	assert_non_null(state_dir);
	assert_true(state_dir[0] == '/');
	return 0;
}

/* saved mode pages: kept in the state directory too */
int scsi_lu_mode_store(struct scsi_lu *lu, const char *state_dir)
{
	assert_true(lu->refs > 0);
	assert_non_null(state_dir);
	assert_true(state_dir[0] == '/');
	return 0;
}

/* the format's protection type: kept in the state directory too */
int scsi_lu_pi_format_store(struct scsi_lu *lu, const char *state_dir)
{
	assert_true(lu->refs > 0);
	assert_non_null(state_dir);
	assert_true(state_dir[0] == '/');
	return 0;
}

/* ---- LUN maps ---- */
struct scsi_lun_map *scsi_lun_map_create(void)
{
	struct scsi_lun_map *m;

	if (fake_fail(F_MAP_CREATE))
		return NULL;
	m = calloc(1, sizeof(*m));
	assert_non_null(m);
	m->refs = 1;
	m->id = ++fk.serial;
	fk.live_maps++;
	return m;
}

static long map_find(const struct scsi_lun_map *m, uint32_t lun)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].lun == lun)
			return (long)i;
	return -1;
}

/* like the core: a LUN is mapped once */
int scsi_lun_map_add(struct scsi_lun_map *m, uint32_t lun, struct scsi_lu *lu, bool read_only)
{
	if (fake_fail(F_MAP_ADD))
		return -ENOMEM;
	if (map_find(m, lun) >= 0)
		return -EEXIST;
	assert_true(m->n < FAKE_MAP_MAX);
	m->e[m->n].lun = lun;
	m->e[m->n].lu = lu;
	m->e[m->n].ro = read_only;
	m->n++;
	lu->refs++;
	return 0;
}

int scsi_lun_map_del(struct scsi_lun_map *m, uint32_t lun)
{
	long i = map_find(m, lun);
	struct scsi_lu *lu;

	if (i < 0)
		return -ENOENT;
	lu = m->e[i].lu;
	memmove(&m->e[i], &m->e[i + 1], (m->n - (size_t)i - 1) * sizeof(m->e[0]));
	m->n--;
	scsi_lu_put(lu);
	return 0;
}

void scsi_lun_map_get(struct scsi_lun_map *m)
{
	m->refs++;
}

void scsi_lun_map_put(struct scsi_lun_map *m)
{
	if (!m)
		return;
	assert_true(m->refs > 0);
	if (--m->refs == 0) {
		for (size_t i = 0; i < m->n; i++)
			scsi_lu_put(m->e[i].lu);
		fk.live_maps--;
		free(m);
	}
}

const struct scsi_lu *fake_map_lu(const struct scsi_lun_map *m, uint32_t lun, bool *ro)
{
	long i = m ? map_find(m, lun) : -1;

	if (i < 0)
		return NULL;
	if (ro)
		*ro = m->e[i].ro;
	return m->e[i].lu;
}

/* ---- SCSI targets ---- */
struct scsi_target *scsi_target_create(const char *name)
{
	struct scsi_target *t;

	if (fake_fail(F_TARGET_CREATE))
		return NULL;
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->id = ++fk.serial;
	fk.live_targets++;
	return t;
}

void scsi_target_destroy(struct scsi_target *t)
{
	for (size_t i = 0; i < t->nacls; i++)
		scsi_lun_map_put(t->acl[i].map);
	scsi_lun_map_put(t->default_map);
	fk.live_targets--;
	free(t);
}

/* like the core: takes a reference on the map */
void scsi_target_set_default_map(struct scsi_target *t, struct scsi_lun_map *m, bool demo)
{
	scsi_lun_map_get(m);
	scsi_lun_map_put(t->default_map);
	t->default_map = m;
	t->demo = demo;
}

static long acl_find(const struct scsi_target *t, const char *initiator)
{
	for (size_t i = 0; i < t->nacls; i++)
		if (strcmp(t->acl[i].name, initiator) == 0)
			return (long)i;
	return -1;
}

/* like the core: replaces the initiator's map, a reference on the new one */
int scsi_target_acl_set(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map *m)
{
	long i;

	if (fake_fail(F_ACL_SET))
		return -ENOMEM;
	i = acl_find(t, initiator_name);
	if (i < 0) {
		assert_true(t->nacls < 8);
		i = (long)t->nacls++;
		snprintf(t->acl[i].name, sizeof(t->acl[0].name), "%s", initiator_name);
		t->acl[i].map = NULL;
	}
	scsi_lun_map_get(m);
	scsi_lun_map_put(t->acl[i].map);
	t->acl[i].map = m;
	return 0;
}

int scsi_target_acl_del(struct scsi_target *t, const char *initiator_name)
{
	long i = acl_find(t, initiator_name);

	if (i < 0)
		return -ENOENT;
	scsi_lun_map_put(t->acl[i].map);
	memmove(&t->acl[i], &t->acl[i + 1], (t->nacls - (size_t)i - 1) * sizeof(t->acl[0]));
	t->nacls--;
	return 0;
}

struct scsi_lun_map *fake_acl_map(const struct scsi_target *t, const char *initiator)
{
	long i = acl_find(t, initiator);

	return i < 0 ? NULL : t->acl[i].map;
}

/* ---- the iSCSI fabric ---- */
int iscsi_init(const struct iscsi_settings *s)
{
	fk.iscsi_inits++;
	fk.last_settings = *s;
	return 0;
}

/* iSNS: the configuration handed over, kept for the tests */
struct iscsi_isns_config fake_isns_config;
int iscsi_isns_configure(const struct iscsi_isns_config *c)
{
	fake_isns_config = *c;
	return 0;
}

struct iscsi_target *iscsi_target_add(struct scsi_target *st, const char *alias)
{
	struct iscsi_target *t;

	if (fake_fail(F_ITARGET_ADD))
		return NULL;
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->st = st;
	t->id = ++fk.serial;
	snprintf(t->alias, sizeof(t->alias), "%s", alias ? alias : "");
	fk.live_itargets++;
	if (nitargets < FAKE_MAX)
		itargets[nitargets++] = t;
	return t;
}

void iscsi_target_del(struct iscsi_target *t)
{
	for (size_t i = 0; i < nitargets; i++)
		if (itargets[i] == t)
			itargets[i] = NULL;
	for (size_t i = 0; i < t->ntpgs; i++)
		fk.listening -= (int)t->tpg[i].nportals;
	fk.live_itargets--;
	free(t);
}

void iscsi_target_set_alias(struct iscsi_target *t, const char *alias)
{
	snprintf(t->alias, sizeof(t->alias), "%s", alias ? alias : "");
}

unsigned iscsi_target_drop_initiator(struct iscsi_target *t, const char *initiator)
{
	(void)t;
	if (fk.drops < FAKE_MAX)
		snprintf(fk.dropped[fk.drops], sizeof(fk.dropped[0]), "%s", initiator);
	fk.drops++;
	return fk.drop_sessions;
}

void iscsi_target_set_async_events(struct iscsi_target *t, bool on)
{
	t->async_events = on;
}

void iscsi_target_set_redirect(struct iscsi_target *t, const struct iscsi_redirect *r)
{
	t->redirect = r ? *r : (struct iscsi_redirect){0};
}

void iscsi_tpg_set_redirect(struct iscsi_tpg *tpg, const struct iscsi_redirect *r)
{
	tpg->redirect = r ? *r : (struct iscsi_redirect){0};
}

struct iscsi_tpg *iscsi_tpg_add(struct iscsi_target *t, uint16_t tag, uint16_t rel_port_id,
				uint16_t port_group)
{
	struct iscsi_tpg *g;

	if (fake_fail(F_TPG_ADD))
		return NULL;
	assert_true(t->ntpgs < 8);
	g = &t->tpg[t->ntpgs++];
	g->tag = tag;
	g->rel = rel_port_id;
	g->group = port_group;
	return g;
}

/* the structure stays with its target (as in the fabric): marked */
void iscsi_tpg_del(struct iscsi_tpg *tpg)
{
	fk.listening -= (int)tpg->nportals;
	tpg->nportals = 0;
	tpg->deleted = true;
}

int iscsi_tpg_portal_add(struct iscsi_tpg *tpg, const char *addr)
{
	if (fake_fail(F_PORTAL_ADD))
		return -EADDRINUSE;
	assert_true(tpg->nportals < 8);
	snprintf(tpg->portals[tpg->nportals++], sizeof(tpg->portals[0]), "%s", addr);
	fk.listening++;
	return 0;
}

int iscsi_tpg_portal_del(struct iscsi_tpg *tpg, const char *addr)
{
	for (size_t i = 0; i < tpg->nportals; i++)
		if (strcmp(tpg->portals[i], addr) == 0) {
			memmove(tpg->portals[i], tpg->portals[i + 1],
				(tpg->nportals - i - 1) * sizeof(tpg->portals[0]));
			tpg->nportals--;
			fk.listening--;
			return 0;
		}
	return -ENOENT;
}

int iscsi_tpg_set_port_group(struct iscsi_tpg *tpg, uint16_t port_group)
{
	if (fake_fail(F_SET_PORT_GROUP))
		return -ENOMEM;
	tpg->group = port_group;
	return 0;
}

/* ---- access and authentication (auth_apply.c): recorded ---- */
int cfg_auth_apply_target(const struct cfg_runtime *rt, const struct cfg_target *t, size_t ti,
			  struct scsi_lun_map *target_map, struct iscsi_target *it,
			  struct cfg_err *err)
{
	if (fk.auth_targets < FAKE_MAX)
		snprintf(fk.auth_target[fk.auth_targets], sizeof(fk.auth_target[0]), "%s", t->name);
	fk.auth_targets++;
	if (fake_fail(F_AUTH_TARGET)) {
		snprintf(err->path, sizeof(err->path), "targets[%zu].auth", ti);
		snprintf(err->msg, sizeof(err->msg), "refused by the fake");
		return -EINVAL;
	}
	return 0;
}

int cfg_auth_apply_discovery(const struct cfg *c, struct cfg_err *err)
{
	fk.auth_discovery++;
	return 0;
}

int fake_auth_count(const char *target)
{
	int n = 0;

	for (int i = 0; i < fk.auth_targets && i < FAKE_MAX; i++)
		n += strcmp(fk.auth_target[i], target) == 0;
	return n;
}

/* ---- ALUA ---- */
int scsi_alua_group_define(uint16_t id, const struct scsi_alua_group_attrs *a)
{
	if (fake_fail(F_ALUA_DEFINE))
		return -ENOMEM;
	assert_true(alua.defined < FAKE_MAX);
	alua.def_id[alua.defined] = id;
	alua.def[alua.defined] = *a;
	alua.def[alua.defined].name = NULL; /* not kept by the core either */
	alua.defined++;
	if (id < 64) {
		alua.is_defined[id] = true;
		alua.state[id] = a->state;
	}
	return 0;
}

int scsi_alua_set_state(uint16_t id, const char *lu_name, enum scsi_alua_state s)
{
	(void)id;
	assert_true(alua.set < FAKE_MAX);
	snprintf(alua.set_lu[alua.set], sizeof(alua.set_lu[0]), "%s", lu_name ? lu_name : "*");
	alua.set_state[alua.set++] = (uint8_t)s;
	return 0;
}

int scsi_alua_group_undefine(uint16_t id)
{
	alua.defined--;
	if (id < 64)
		alua.is_defined[id] = false;
	return 0;
}
