/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/apply.c, with fakes of its neighbours (the
 * back-store registry, the core's LU/target/map objects, the iSCSI fabric)
 * that record what was built and count live objects.
 *
 * What is checked: the objects and their attributes for a config with two
 * targets sharing an LU (identity, thin fallback, read-only, LUN maps, demo
 * and ACL maps, TPG tags and relative port ids, portals, --listen), and that
 * a failure at any single step leaves nothing behind (all or nothing).
 *
 *   backstores: d0 (file, thin), r0 (ram, no DISCARD cap -> not thin),
 *               n0 (null, read_only)
 *   target A: TPG 1 (rel 1) 127.0.0.1:3260 + [::1]:3260, TPG 2 (rel 7)
 *             luns 0=d0, 1=r0 (ro); ACL c1 (target's map), ACL c2 (own map
 *             5=n0); demo read-only
 *   target B: TPG 1 (rel 2) 127.0.0.1:3260; luns 0=d0
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/apply.c"
#include "iscsi_fields.h"

/* ---- fakes ---- */
enum fake_call {
	F_BS_OPEN,
	F_LU_CREATE,
	F_MAP_CREATE,
	F_MAP_ADD,
	F_TARGET_CREATE,
	F_ACL_SET,
	F_ITARGET_ADD,
	F_TPG_ADD,
	F_PORTAL_ADD,
	F_NCALLS,
};

static struct {
	int calls[F_NCALLS];
	int fail_at[F_NCALLS]; /* 1-based call number that fails; 0 = none */
	int live_devs, live_lus, live_maps, live_targets, live_itargets, listening;
} fk;

static bool fake_fail(enum fake_call c)
{
	return ++fk.calls[c] == fk.fail_at[c];
}

struct fake_dev {
	struct bs_dev dev;
	char path[256];
	struct bs_params p;
};

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

struct scsi_lu {
	char name[64];
	struct bs_dev *bs;
	struct scsi_lu_attrs attrs;
	int refs;
};

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
	fk.live_lus++;
	*out = lu;
	return 0;
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

/* persistent reservation state (APTPL): kept in the state directory */
int scsi_lu_pr_store(struct scsi_lu *lu, const char *state_dir)
{
	assert_true(lu->refs > 0);
	assert_non_null(state_dir);
	assert_true(state_dir[0] == '/');
	return 0;
}

#define FAKE_MAP_MAX 16
struct scsi_lun_map {
	int refs;
	size_t n;
	struct {
		uint32_t lun;
		struct scsi_lu *lu;
		bool ro;
	} e[FAKE_MAP_MAX];
};

struct scsi_lun_map *scsi_lun_map_create(void)
{
	struct scsi_lun_map *m;

	if (fake_fail(F_MAP_CREATE))
		return NULL;
	m = calloc(1, sizeof(*m));
	assert_non_null(m);
	m->refs = 1;
	fk.live_maps++;
	return m;
}

int scsi_lun_map_add(struct scsi_lun_map *m, uint32_t lun, struct scsi_lu *lu, bool read_only)
{
	if (fake_fail(F_MAP_ADD))
		return -ENOMEM;
	assert_true(m->n < FAKE_MAP_MAX);
	m->e[m->n].lun = lun;
	m->e[m->n].lu = lu;
	m->e[m->n].ro = read_only;
	m->n++;
	lu->refs++;
	return 0;
}

static void fake_map_get(struct scsi_lun_map *m)
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

struct scsi_target {
	char name[256];
	struct scsi_lun_map *default_map;
	bool demo;
	size_t nacls;
	struct {
		char name[256];
		struct scsi_lun_map *map;
	} acl[8];
};

struct scsi_target *scsi_target_create(const char *name)
{
	struct scsi_target *t;

	if (fake_fail(F_TARGET_CREATE))
		return NULL;
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
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
	fake_map_get(m);
	scsi_lun_map_put(t->default_map);
	t->default_map = m;
	t->demo = demo;
}

int scsi_target_acl_set(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map *m)
{
	if (fake_fail(F_ACL_SET))
		return -ENOMEM;
	assert_true(t->nacls < 8);
	snprintf(t->acl[t->nacls].name, sizeof(t->acl[0].name), "%s", initiator_name);
	fake_map_get(m);
	t->acl[t->nacls++].map = m;
	return 0;
}

struct iscsi_tpg {
	uint16_t tag, rel, group;
	size_t nportals;
	char portals[4][64];
};

struct iscsi_target {
	struct scsi_target *st;
	char alias[256];
	size_t ntpgs;
	struct iscsi_tpg tpg[4];
};

/* every iscsi target built, for inspection after cfg_apply() */
static struct iscsi_target *itargets[8];
static size_t nitargets;

struct iscsi_target *iscsi_target_add(struct scsi_target *st, const char *alias)
{
	struct iscsi_target *t;

	if (fake_fail(F_ITARGET_ADD))
		return NULL;
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->st = st;
	snprintf(t->alias, sizeof(t->alias), "%s", alias ? alias : "");
	fk.live_itargets++;
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

struct iscsi_tpg *iscsi_tpg_add(struct iscsi_target *t, uint16_t tag, uint16_t rel_port_id,
				uint16_t port_group)
{
	struct iscsi_tpg *g;

	if (fake_fail(F_TPG_ADD))
		return NULL;
	assert_true(t->ntpgs < 4);
	g = &t->tpg[t->ntpgs++];
	g->tag = tag;
	g->rel = rel_port_id;
	g->group = port_group;
	return g;
}

/* removal of a portal group being built (apply.c's error path) */
void iscsi_tpg_del(struct iscsi_tpg *tpg)
{
	fk.listening -= (int)tpg->nportals;
	tpg->nportals = 0;
}

int iscsi_tpg_portal_add(struct iscsi_tpg *tpg, const char *addr)
{
	if (fake_fail(F_PORTAL_ADD))
		return -EADDRINUSE;
	assert_true(tpg->nportals < 4);
	snprintf(tpg->portals[tpg->nportals++], sizeof(tpg->portals[0]), "%s", addr);
	fk.listening++;
	return 0;
}

/* the global settings (cfg_apply_iscsi_settings()) */
static struct iscsi_settings seen_settings;
static int iscsi_inits;

int iscsi_init(const struct iscsi_settings *s)
{
	seen_settings = *s;
	iscsi_inits++;
	return 0;
}

/* access and authentication (auth_apply.c; its own tests in
 * test_auth_apply.c): counted */
static int auth_targets, auth_discovery;

int cfg_auth_apply_target(const struct cfg_runtime *rt, const struct cfg_target *t, size_t ti,
			  struct scsi_lun_map *target_map, struct iscsi_target *it,
			  struct cfg_err *err)
{
	auth_targets++;
	return 0;
}

int cfg_auth_apply_discovery(const struct cfg *c, struct cfg_err *err)
{
	auth_discovery++;
	return 0;
}

/* ALUA (scsi/alua.h): the calls, recorded */
static struct {
	int defined, set;
	uint16_t def_id[4];
	struct scsi_alua_group_attrs def[4];
	char set_lu[4][32];
	uint8_t set_state[4];
} alua;

int scsi_alua_group_define(uint16_t id, const struct scsi_alua_group_attrs *a)
{
	assert_true(alua.defined < 4);
	alua.def_id[alua.defined] = id;
	alua.def[alua.defined] = *a;
	alua.def[alua.defined].name = NULL; /* not kept by the core either */
	alua.defined++;
	return 0;
}

int scsi_alua_set_state(uint16_t id, const char *lu_name, enum scsi_alua_state s)
{
	(void)id;
	assert_true(alua.set < 4);
	snprintf(alua.set_lu[alua.set], sizeof(alua.set_lu[0]), "%s", lu_name ? lu_name : "*");
	alua.set_state[alua.set++] = (uint8_t)s;
	return 0;
}

int scsi_alua_group_undefine(uint16_t id)
{
	(void)id;
	alua.defined--;
	return 0;
}

/* ---- tests ---- */
static const char text[] =
    "{\"version\": 1, \"state_dir\": \"/replaced/by/load\",\n"
    "\"backstores\": [\n"
    " {\"name\": \"d0\", \"type\": \"file\", \"path\": \"d0.img\", \"size\": \"1M\","
    "  \"create\": true, \"thin\": true, \"block_size\": 4096, \"serial\": \"S-D0\"},\n"
    " {\"name\": \"r0\", \"type\": \"ram\", \"size\": \"2M\", \"thin\": true, \"removable\": true,"
    "  \"write_cache\": false},\n"
    " {\"name\": \"n0\", \"type\": \"null\", \"size\": \"1G\", \"read_only\": true,"
    "  \"vendor\": \"ACME\"}],\n"
    "\"targets\": [\n"
    " {\"name\": \"iqn.2026-12.org.utarget:a\", \"alias\": \"A\",\n"
    "  \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\", \"[::1]:3260\"]},\n"
    "                    {\"tag\": 2, \"rel_port_id\": 7, \"portals\": [\"127.0.0.1:3261\"]}],\n"
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}, {\"lun\": 1, \"backstore\": \"r0\","
    "  \"read_only\": true}],\n"
    "  \"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\"},\n"
    "            {\"initiator\": \"iqn.1994-05.com.redhat:c2\","
    "             \"luns\": [{\"lun\": 5, \"backstore\": \"n0\"}]}],\n"
    "  \"demo_mode\": {\"enabled\": true, \"read_only\": true}},\n"
    " {\"name\": \"iqn.2026-12.org.utarget:b\",\n"
    "  \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}],\n"
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}]}]}\n";

static char tmpdir[64];

/* The config above, with state_dir moved to a fresh temporary directory. */
static struct cfg *load(void)
{
	struct cfg *c = NULL;
	struct cfg_err e;

	if (cfg_parse(text, strlen(text), NULL, &c, &e) || cfg_validate(c, &e))
		fail_msg("%s: %s", e.path, e.msg);
	free(c->state_dir);
	c->state_dir = strdup(tmpdir);
	return c;
}

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_LVL_ERR);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ut-apply-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

static void reset(void)
{
	memset(&fk, 0, sizeof(fk));
	memset(itargets, 0, sizeof(itargets));
	nitargets = 0;
}

static void assert_nothing_live(void)
{
	assert_int_equal(fk.live_devs, 0);
	assert_int_equal(fk.live_lus, 0);
	assert_int_equal(fk.live_maps, 0);
	assert_int_equal(fk.live_targets, 0);
	assert_int_equal(fk.live_itargets, 0);
	assert_int_equal(fk.listening, 0);
}

static void test_builds_everything(void **state)
{
	struct cfg *c = load();
	struct cfg_runtime *rt;
	struct cfg_err e;
	char summary[256];

	(void)state;
	reset();
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), 0);
	assert_int_equal(fk.live_devs, 3);
	assert_int_equal(fk.live_lus, 3);
	assert_int_equal(fk.live_targets, 2);
	assert_int_equal(fk.live_itargets, 2);
	assert_int_equal(fk.listening, 4);

	/* back-stores and LU attributes */
	struct scsi_lu *d0 = cfg_rt_lu(rt, "d0"), *r0 = cfg_rt_lu(rt, "r0"),
		       *n0 = cfg_rt_lu(rt, "n0");
	struct fake_dev *fd0 = container_of(d0->bs, struct fake_dev, dev);
	char want[128];
	snprintf(want, sizeof(want), "%s/d0.img", tmpdir);
	assert_string_equal(fd0->path, want);
	assert_true(fd0->p.create);
	assert_int_equal(fd0->p.size, 1 << 20);
	assert_int_equal(fd0->p.block_size, 4096);
	assert_string_equal(d0->name, "d0");
	assert_int_equal(d0->attrs.block_size, 4096);
	assert_true(d0->attrs.thin);
	assert_false(d0->attrs.read_only);
	assert_true(d0->attrs.write_cache);
	assert_string_equal(d0->attrs.serial, "S-D0");
	assert_string_equal(d0->attrs.vendor, "UTARGET");
	assert_int_equal(d0->attrs.naa[0] >> 4, 6);
	/* thin requested but the back-store cannot deallocate: not thin */
	assert_false(r0->attrs.thin);
	assert_true(r0->attrs.removable);
	assert_false(r0->attrs.write_cache);
	assert_null(container_of(r0->bs, struct fake_dev, dev)->p.path);
	assert_true(n0->attrs.read_only);
	assert_true(container_of(n0->bs, struct fake_dev, dev)->p.readonly);
	assert_string_equal(n0->attrs.vendor, "ACME");
	assert_string_not_equal(d0->attrs.serial, r0->attrs.serial);

	/* target A */
	struct iscsi_target *ia = itargets[0], *ib = itargets[1];
	struct scsi_target *a = ia->st, *b = ib->st;
	assert_string_equal(a->name, "iqn.2026-12.org.utarget:a");
	assert_string_equal(ia->alias, "A");
	assert_true(a->demo);
	/* demo read-only: the default map is a write-protected copy */
	assert_int_equal(a->default_map->n, 2);
	assert_true(a->default_map->e[0].ro && a->default_map->e[1].ro);
	assert_int_equal(a->nacls, 2);
	assert_string_equal(a->acl[0].name, "iqn.1994-05.com.redhat:c1");
	assert_ptr_equal(a->acl[0].map, cfg_rt_target(rt, "iqn.2026-12.org.utarget:a")->map);
	assert_int_equal(a->acl[0].map->n, 2);
	assert_int_equal(a->acl[0].map->e[0].lun, 0);
	assert_ptr_equal(a->acl[0].map->e[0].lu, d0);
	assert_false(a->acl[0].map->e[0].ro);
	assert_int_equal(a->acl[0].map->e[1].lun, 1);
	assert_ptr_equal(a->acl[0].map->e[1].lu, r0);
	assert_true(a->acl[0].map->e[1].ro);
	assert_int_equal(a->acl[1].map->n, 1);
	assert_int_equal(a->acl[1].map->e[0].lun, 5);
	assert_ptr_equal(a->acl[1].map->e[0].lu, n0);
	assert_int_equal(ia->ntpgs, 2);
	assert_int_equal(ia->tpg[0].tag, 1);
	assert_int_equal(ia->tpg[0].rel, 1);
	assert_int_equal(ia->tpg[0].nportals, 2);
	assert_string_equal(ia->tpg[0].portals[1], "[::1]:3260");
	assert_int_equal(ia->tpg[1].tag, 2);
	assert_int_equal(ia->tpg[1].rel, 7);
	/* target B: no demo, deny by default; shares d0 */
	assert_false(b->demo);
	assert_int_equal(b->nacls, 0);
	assert_ptr_equal(b->default_map->e[0].lu, d0);
	assert_int_equal(ib->tpg[0].rel, 2);
	assert_string_equal(ib->tpg[0].portals[0], "127.0.0.1:3260");

	cfg_runtime_summary(rt, summary, sizeof(summary));
	assert_string_equal(summary,
			    "2 targets, 3 LUNs, portals 127.0.0.1:3260 [::1]:3260 127.0.0.1:3261");

	cfg_runtime_destroy(rt);
	assert_nothing_live();
	cfg_free(c);
}

/* Port groups: defined before the ports, each portal group joins its group
 * (configured, else one of its own with the smallest free id), undefined at
 * teardown. */
static void test_port_groups(void **state)
{
	static const char pg_text[] =
	    "{\"version\": 1, \"backstores\": [{\"name\": \"r\", \"type\": \"ram\", "
	    "\"size\": \"1M\"}],\n"
	    "\"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\", \"portal_groups\": [\n"
	    "  {\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]},\n"
	    "  {\"tag\": 2, \"portals\": [\"127.0.0.1:3261\"]},\n"
	    "  {\"tag\": 3, \"portals\": [\"127.0.0.1:3262\"]}],\n"
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"r\"}]}],\n"
	    "\"port_groups\": [\n"
	    "  {\"id\": 1, \"name\": \"a\", \"preferred\": true, \"explicit\": true,"
	    "   \"transition_ms\": 500, \"members\": [{\"target\": "
	    "\"iqn.2026-12.org.utarget:a\", \"tag\": 2}]},\n"
	    "  {\"id\": 3, \"state\": \"standby\", \"members\": [{\"target\": "
	    "\"iqn.2026-12.org.utarget:a\", \"tag\": 3}],"
	    "   \"lu_states\": [{\"backstore\": \"r\", \"state\": \"unavailable\"}]}]}\n";
	struct cfg *c = NULL;
	struct cfg_runtime *rt;
	struct cfg_err e;

	(void)state;
	reset();
	memset(&alua, 0, sizeof(alua));
	if (cfg_parse(pg_text, strlen(pg_text), NULL, &c, &e) || cfg_validate(c, &e))
		fail_msg("%s: %s", e.path, e.msg);
	c->state_dir = strdup(tmpdir);
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), 0);
	assert_int_equal(alua.defined, 2);
	assert_int_equal(alua.def_id[0], 1);
	assert_true(alua.def[0].preferred && alua.def[0].explicit_ok);
	assert_int_equal(alua.def[0].transition_ms, 500);
	assert_int_equal(alua.def[0].state, SCSI_ALUA_ACTIVE_OPTIMIZED);
	assert_int_equal(alua.def_id[1], 3);
	assert_int_equal(alua.def[1].state, SCSI_ALUA_STANDBY);
	assert_false(alua.def[1].explicit_ok);
	assert_int_equal(alua.set, 1);
	assert_string_equal(alua.set_lu[0], "r");
	assert_int_equal(alua.set_state[0], SCSI_ALUA_UNAVAILABLE);
	/* tag 1 is in no group: a group of its own, the smallest free id (2) */
	assert_int_equal(itargets[0]->tpg[0].group, 2);
	assert_int_equal(itargets[0]->tpg[1].group, 1);
	assert_int_equal(itargets[0]->tpg[2].group, 3);
	cfg_runtime_destroy(rt);
	assert_int_equal(alua.defined, 0);
	assert_nothing_live();
	cfg_free(c);
}

static void test_listen_override(void **state)
{
	static const char *const listen[] = {"127.0.0.1:3499", "[::1]:3499"};
	struct cfg_overrides ov = {.listen = listen, .nlisten = 2};
	struct cfg *c = load();
	struct cfg_runtime *rt;
	struct cfg_err e;
	char summary[256];

	(void)state;
	reset();
	assert_int_equal(cfg_apply(c, &ov, &rt, &e), 0);
	/* every portal group listens on the --listen addresses only */
	for (size_t i = 0; i < 2; i++)
		for (size_t g = 0; g < itargets[i]->ntpgs; g++) {
			assert_int_equal(itargets[i]->tpg[g].nportals, 2);
			assert_string_equal(itargets[i]->tpg[g].portals[0], "127.0.0.1:3499");
			assert_string_equal(itargets[i]->tpg[g].portals[1], "[::1]:3499");
		}
	cfg_runtime_summary(rt, summary, sizeof(summary));
	assert_string_equal(summary, "2 targets, 3 LUNs, portals 127.0.0.1:3499 [::1]:3499");
	cfg_runtime_destroy(rt);
	assert_nothing_live();
	cfg_free(c);
}

/* Fail each fallible call in turn: cfg_apply() must fail with the field
 * named and leave nothing alive. */
static void test_all_or_nothing(void **state)
{
	struct cfg *c = load();
	int total[F_NCALLS];
	struct cfg_runtime *rt;
	struct cfg_err e;

	(void)state;
	reset();
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), 0);
	memcpy(total, fk.calls, sizeof(total));
	cfg_runtime_destroy(rt);
	for (int f = 0; f < F_NCALLS; f++) {
		assert_true(total[f] > 0);
		for (int k = 1; k <= total[f]; k++) {
			reset();
			fk.fail_at[f] = k;
			rt = (struct cfg_runtime *)1;
			assert_true(cfg_apply(c, NULL, &rt, &e) < 0);
			assert_null(rt);
			if (e.path[0] == '\0' || e.msg[0] == '\0')
				fail_msg("call %d #%d: no error path/message", f, k);
			assert_nothing_live();
		}
	}
	/* the messages name the field */
	reset();
	fk.fail_at[F_BS_OPEN] = 1;
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), -EACCES);
	assert_string_equal(e.path, "backstores[0].path");
	char want[256];
	snprintf(want, sizeof(want),
		 "cannot open file back-store \"d0\" at %s/d0.img: Permission denied", tmpdir);
	assert_string_equal(e.msg, want);
	reset();
	fk.fail_at[F_PORTAL_ADD] = 2;
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), -EADDRINUSE);
	assert_string_equal(e.path, "targets[0].portal_groups[0].portals[1]");
	assert_string_equal(e.msg, "cannot listen on [::1]:3260: Address already in use");
	reset();
	static const char *const listen[] = {"127.0.0.1:3499"};
	struct cfg_overrides ov = {.listen = listen, .nlisten = 1};
	fk.fail_at[F_PORTAL_ADD] = 1;
	assert_int_equal(cfg_apply(c, &ov, &rt, &e), -EADDRINUSE);
	assert_string_equal(e.path, "--listen 127.0.0.1:3499");
	assert_string_equal(e.msg, "cannot listen: Address already in use");
	cfg_free(c);
}

static void test_state_dir(void **state)
{
	char dir[64], text2[256], sub[128];
	struct cfg_runtime *rt;
	struct cfg_err e;
	struct cfg *c;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ut-apply-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/state", dir);
	snprintf(text2, sizeof(text2), "{\"version\": 1, \"state_dir\": \"%s\"}", sub);
	assert_int_equal(cfg_parse(text2, strlen(text2), NULL, &c, &e), 0);
	reset();
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	cfg_runtime_destroy(rt);
	/* exists already: fine */
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), 0);
	cfg_runtime_destroy(rt);
	assert_int_equal(rmdir(sub), 0);
	/* a file in the way */
	FILE *f = fopen(sub, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(cfg_apply(c, NULL, &rt, &e), -ENOTDIR);
	assert_string_equal(e.path, "state_dir");
	unlink(sub);
	rmdir(dir);
	cfg_free(c);
}

/* The "iscsi" section reaches the fabric member for member: each pass
 * gives every member its own value (numbers: distinct; booleans: bit p of
 * the member's index, so that any two booleans differ in some pass). */
static void test_iscsi_settings(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 5; p++) {
		struct cfg c = {0};
		unsigned i = 0;

		memset(&seen_settings, 0, sizeof(seen_settings));
#define VAL(m) _Generic(c.iscsi.m, bool : (bool)((i >> p) & 1), default : 1000 * p + i + 1)
#define SET(m)                                                                                     \
	c.iscsi.m = VAL(m);                                                                        \
	i++;
		ISCSI_FIELDS(SET)
		iscsi_inits = 0;
		assert_int_equal(cfg_apply_iscsi_settings(&c), 0);
		assert_int_equal(iscsi_inits, 1);
		i = 0;
#define CHECK(m)                                                                                   \
	assert_int_equal(seen_settings.m, VAL(m));                                                 \
	i++;
		ISCSI_FIELDS(CHECK)
#undef CHECK
#undef SET
#undef VAL
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builds_everything), cmocka_unit_test(test_listen_override),
	    cmocka_unit_test(test_port_groups),	      cmocka_unit_test(test_all_or_nothing),
	    cmocka_unit_test(test_state_dir),	      cmocka_unit_test(test_iscsi_settings),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
