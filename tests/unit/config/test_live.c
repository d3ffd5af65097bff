/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/live.c and its rows (live_settings.c,
 * live_backstore.c, live_target.c, live_acl.c): configuration changes
 * applied to running objects. The running objects are built by the real
 * apply.c over the fakes of tests/unit/fakes/fake_cfg_rt.c (core, back-store
 * registry, fabric), which count what is alive and number every object.
 *
 * Each test starts from this tree, applied (a fresh one per test):
 *   back-stores a, b, spare (ram 1M, spare unmapped), c (null 1M)
 *   target T: portal groups 1 (127.0.0.1:3260) and 2 (127.0.0.1:3261);
 *     LUNs 0=a, 1=b (read-only); demo mode read-only (a write protected
 *     copy of the map); ACLs I1 (own map 0=c 1=a), I2 (the target's map),
 *     @10.0.0.0/8 (by address, own map 0=b)
 *   target U: portal group 1 (127.0.0.2:3260); LUN 0=a
 *
 * What is checked, per change kind: what prepare does to the running
 * objects, that abort (with the tree's undo) gives back exactly the
 * objects there were (a snapshot of every running object, its identity and
 * its references), what commit does (sessions dropped, objects released,
 * the effect reported, the access policies rebuilt once per target), and
 * that a failure of any step leaves nothing behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/apply.c"
#include "config/live.c"
#include "config/live_acl.c"
#include "config/live_backstore.c"
#include "config/live_settings.c"
#include "config/live_target.c"
#include "fake_cfg_rt.h"
#include "ut_text.h"

#define T  "iqn.2026-12.org.utarget:t"
#define U  "iqn.2026-12.org.utarget:u"
#define V  "iqn.2026-12.org.utarget:v"
#define I1 "iqn.2026-12.org.utarget:i1"
#define I2 "iqn.2026-12.org.utarget:i2"
#define I3 "iqn.2026-12.org.utarget:i3"
#define AD "@10.0.0.0/8"

/* JSON with ' for " (readable in C) */
static const char base_cfg[] =
    "{'version': 1, 'backstores': ["
    " {'name': 'a', 'type': 'ram', 'size': '1M'},"
    " {'name': 'b', 'type': 'ram', 'size': '1M'},"
    " {'name': 'c', 'type': 'null', 'size': '1M'},"
    " {'name': 'spare', 'type': 'ram', 'size': '1M'}],"
    " 'targets': ["
    " {'name': '" T "', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.1:3260']},"
    "                                    {'tag': 2, 'portals': ['127.0.0.1:3261']}],"
    "  'luns': [{'lun': 0, 'backstore': 'a'}, {'lun': 1, 'backstore': 'b', 'read_only': true}],"
    "  'demo_mode': {'enabled': true, 'read_only': true},"
    "  'acls': [{'initiator': '" I1 "', 'luns': [{'lun': 0, 'backstore': 'c'},"
    "                                          {'lun': 1, 'backstore': 'a'}]},"
    "           {'initiator': '" I2 "'},"
    "           {'addresses': ['10.0.0.0/8'], 'luns': [{'lun': 0, 'backstore': 'b'}]}]},"
    " {'name': '" U "', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.2:3260']}],"
    "  'luns': [{'lun': 0, 'backstore': 'a'}]}]}";

static const struct cfg_iscsi_settings defaults = {.max_burst_length = 1048576,
						   .first_burst_length = 65536};

struct fx {
	struct cfg *c;
	struct cfg_index *ix;
	struct cfg_runtime *rt;
	struct fake_rt base; /* the fakes' counts once applied */
	char dir[64];
};

/* Objects alive now less those alive once the tree was applied. */
#define ALIVE(f, what) (fk.what - (f)->base.what)

static struct fx *fx_new(const struct cfg_overrides *ov)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *text = ut_dq(base_cfg);
	struct cfg_err err;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/ut-live-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	cfg_chg_set_defaults(&defaults);
	if (cfg_parse(text, strlen(text), &defaults, &f->c, &err) || cfg_validate(f->c, &err))
		fail_msg("%s: %s", err.path, err.msg);
	free(text);
	f->c->state_dir = strdup(f->dir);
	assert_int_equal(cfg_freeze_port_ids(f->c), 0);
	assert_int_equal(cfg_index_build(f->c, &f->ix), 0);
	fake_rt_reset();
	memset(&alua, 0, sizeof(alua));
	if (cfg_apply(f->c, ov, &f->rt, &err))
		fail_msg("%s: %s", err.path, err.msg);
	fake_rt_reset_calls(); /* count what the changes do */
	f->base = fk;
	return f;
}

/* Tear down: nothing the changes made may outlive the runtime. */
static void fx_free(struct fx *f)
{
	cfg_runtime_destroy(f->rt);
	fake_rt_assert_nothing_live();
	cfg_index_free(f->ix);
	cfg_free(f->c);
	rmdir(f->dir);
	free(f);
}

static int setup(void **state)
{
	log_set_level(LOG_LVL_ERR);
	*state = fx_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	fx_free(*state);
	return 0;
}

/* ---- a snapshot of every running object ---- */
static void snap_map(FILE *o, const char *what, const struct scsi_lun_map *m)
{
	fprintf(o, "  %s", what);
	if (!m) {
		fprintf(o, " none\n");
		return;
	}
	fprintf(o, " #%u (%d refs):", m->id, m->refs);
	/* by LUN: the order the entries went in does not matter */
	for (uint32_t lun = 0, seen = 0; seen < m->n && lun <= CFG_MAX_LUN; lun++) {
		const struct scsi_lu *lu;
		bool ro;

		if (!(lu = fake_map_lu(m, lun, &ro)))
			continue;
		fprintf(o, " %u=%s#%u%s", lun, lu->name, lu->id, ro ? "(ro)" : "");
		seen++;
	}
	fprintf(o, "\n");
}

static char *snapshot(const struct fx *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	assert_non_null(o);
	fprintf(o, "alive: devs %d lus %d maps %d targets %d itargets %d listening %d\n",
		fk.live_devs, fk.live_lus, fk.live_maps, fk.live_targets, fk.live_itargets,
		fk.listening);
	fprintf(o, "registered: %zu LUs, %zu targets\n", hmap_count(&f->rt->lus),
		hmap_count(&f->rt->targets));
	for (size_t i = 0; i < f->c->nbs; i++) {
		const struct scsi_lu *lu = cfg_rt_lu(f->rt, f->c->bs[i].name);

		if (lu)
			fprintf(o, "lu %s #%u (%d refs) %llu bytes\n", lu->name, lu->id, lu->refs,
				(unsigned long long)lu->bs->size);
		else
			fprintf(o, "lu %s none\n", f->c->bs[i].name);
	}
	for (size_t i = 0; i < f->c->ntargets; i++) {
		const struct cfg_target *t = &f->c->targets[i];
		struct cfg_rt_target *rtt = cfg_rt_target(f->rt, t->name);

		if (!rtt) {
			fprintf(o, "target %s none\n", t->name);
			continue;
		}
		fprintf(o, "target %s st#%u it#%u alias '%s' demo %d, %zu ACL maps, %zu TPGs\n",
			t->name, rtt->st->id, rtt->it->id, rtt->it->alias, rtt->st->demo,
			hmap_count(&rtt->acls), hmap_count(&rtt->tpgs));
		snap_map(o, "map", rtt->map);
		snap_map(o, "demo map", rtt->demo_map);
		snap_map(o, "default map", rtt->st->default_map);
		/* the core's ACLs (their order does not matter) and the own maps */
		fprintf(o, "  %zu core ACLs\n", rtt->st->nacls);
		for (size_t a = 0; a < t->nacls; a++) {
			const char *ini = t->acls[a].initiator;
			char what[300];

			if (!ini)
				continue;
			snprintf(what, sizeof(what), "core ACL %s", ini);
			snap_map(o, what, fake_acl_map(rtt->st, ini));
			snprintf(what, sizeof(what), "own map of %s", ini);
			snap_map(o, what, live_rt_acl_map(rtt, ini));
		}
		for (size_t g = 0; g < t->ntpgs; g++) {
			const struct iscsi_tpg *tpg = live_rt_tpg(rtt, t->tpgs[g].tag);

			if (!tpg) {
				fprintf(o, "  tpg %u none\n", t->tpgs[g].tag);
				continue;
			}
			fprintf(o, "  tpg %u rel %u group %u%s:", tpg->tag, tpg->rel, tpg->group,
				tpg->deleted ? " deleted" : "");
			for (size_t p = 0; p < tpg->nportals; p++)
				fprintf(o, " %s", tpg->portals[p]);
			fprintf(o, "\n");
		}
	}
	for (unsigned id = 0; id < 64; id++)
		if (alua.is_defined[id])
			fprintf(o, "port group %u state %u\n", id, alua.state[id]);
	fclose(o);
	return buf;
}

static void assert_snapshot(const struct fx *f, const char *want)
{
	char *now = snapshot(f);

	if (strcmp(now, want) != 0) {
		fprintf(stderr, "before:\n%s\nnow:\n%s\n", want, now);
		fail_msg("the running objects changed");
	}
	free(now);
}

/* ---- changes ---- */
static struct cfg_chg *chg(const char *json)
{
	char *text = ut_dq(json);
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	struct cfg_chg *ch = NULL;
	struct cfg_err err;

	if (!j)
		fail_msg("%s: %s", text, je.text);
	if (cfg_chg_from_json(j, &ch, &err))
		fail_msg("%s: %s: %s", text, err.path, err.msg);
	json_decref(j);
	free(text);
	return ch;
}

/* A settings change: the tree's settings with the members of extra. */
static struct cfg_chg *settings_chg(const struct fx *f, const char *extra)
{
	json_t *o = cfg_settings_to_json(f->c), *x, *j;
	char *text = ut_dq(extra);
	struct cfg_chg *ch = NULL;
	struct cfg_err err;

	x = json_loads(text, 0, NULL);
	assert_non_null(o);
	assert_non_null(x);
	assert_int_equal(json_object_update(o, x), 0);
	j = json_pack("{s:s,s:o}", "op", "settings.set", "object", o);
	if (cfg_chg_from_json(j, &ch, &err))
		fail_msg("%s: %s", err.path, err.msg);
	json_decref(j);
	json_decref(x);
	free(text);
	return ch;
}

/* The change applied to the tree (which must accept it), then prepared. */
static int prepare(struct fx *f, struct cfg_chg *ch, struct cfg_err *err)
{
	int rc = cfg_chg_apply(f->c, f->ix, ch, err);

	if (rc)
		fail_msg("the tree refused it: %s: %s", err->path, err->msg);
	return cfg_live_prepare(f->rt, f->c, f->ix, ch, err);
}

static void prepare_ok(struct fx *f, struct cfg_chg *ch)
{
	struct cfg_err err;

	if (prepare(f, ch, &err))
		fail_msg("prepare: %s: %s", err.path, err.msg);
	assert_non_null(ch->rt);
}

/* Abort, then the tree's undo (as ctl.c rolls back). */
static void abort_chg(struct fx *f, struct cfg_chg *ch)
{
	cfg_live_abort(f->rt, f->c, ch);
	assert_null(ch->rt);
	cfg_chg_undo(f->c, f->ix, ch);
	cfg_chg_free(ch);
}

/* Commit a transaction of the changes (prepared, NULL-terminated); the
 * effect of each into effects[] (may be NULL). */
static void commit_v(struct fx *f, struct cfg_chg **v, const char **effects)
{
	struct cfg_txn x = {0};

	for (size_t i = 0; v[i]; i++)
		assert_int_equal(cfg_txn_add(&x, v[i]), 0);
	cfg_live_commit(f->rt, f->c, f->ix, &x);
	for (size_t i = 0; i < x.n; i++) {
		if (effects)
			effects[i] = cfg_live_effect(x.v[i]);
		cfg_live_release(x.v[i]);
		assert_null(x.v[i]->rt);
	}
	cfg_txn_clear(&x);
}

/* Commit one; its effect ("" when none) into buf. */
static void commit1(struct fx *f, struct cfg_chg *ch, char *effect, size_t size)
{
	struct cfg_chg *v[] = {ch, NULL};
	const char *e[1];

	/* the effect string is static in live*.c: it outlives the change */
	commit_v(f, v, e);
	if (effect)
		snprintf(effect, size, "%s", e[0]);
}

/* Prepare then abort: the running objects are exactly those before. */
static void prepare_abort(struct fx *f, const char *json)
{
	char *before = snapshot(f);
	struct cfg_chg *ch = chg(json);

	prepare_ok(f, ch);
	abort_chg(f, ch);
	assert_snapshot(f, before);
	free(before);
}

/* The k-th call of kind c from now fails. */
static void fail_next(enum fake_call c, int k)
{
	fk.fail_at[c] = fk.calls[c] + k;
}

/* ch (not applied yet) is accepted by the tree, then refused at prepare
 * with rc, err naming path and saying msg (NULL: not checked); the state
 * is freed, and with the tree's undo the running objects are exactly
 * those before. Failures asked for are cleared after. */
static void prepare_fails(struct fx *f, struct cfg_chg *ch, int rc, const char *path,
			  const char *msg)
{
	char *before = snapshot(f);
	struct cfg_err err;

	assert_int_equal(prepare(f, ch, &err), rc);
	if (path)
		assert_string_equal(err.path, path);
	if (msg)
		assert_string_equal(err.msg, msg);
	assert_null(ch->rt);
	cfg_chg_undo(f->c, f->ix, ch);
	cfg_chg_free(ch);
	memset(fk.fail_at, 0, sizeof(fk.fail_at));
	assert_snapshot(f, before);
	free(before);
}

static struct cfg_rt_target *rtt_of(const struct fx *f, const char *name)
{
	struct cfg_rt_target *rtt = cfg_rt_target(f->rt, name);

	assert_non_null(rtt);
	return rtt;
}

/* ---- the table ---- */
static void test_table(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = cfg_chg_new(0, NULL, NULL, NULL);
	char *before = snapshot(f);
	struct cfg_err err;

	/* a row for every kind; only portal_group.delete has nothing to prepare */
	for (int k = 1; k < CFG_CHG_KIND_COUNT; k++) {
		const struct live_kind *r = live_kind((enum cfg_chg_kind)k);

		assert_non_null(r);
		assert_true(r->prepare || r->abort || r->commit);
		if (k != CFG_CHG_TPG_DEL)
			assert_non_null(r->prepare);
		/* what prepare records, abort undoes */
		if (r->prepare)
			assert_non_null(r->abort);
	}
	assert_null(live_kind(0));
	assert_null(live_kind(CFG_CHG_KIND_COUNT));
	/* an unknown kind: refused, its state freed */
	assert_int_equal(cfg_live_prepare(f->rt, f->c, f->ix, ch, &err), -EINVAL);
	assert_string_equal(err.msg, "unknown change");
	assert_null(ch->rt);
	assert_string_equal(cfg_live_effect(ch), "");
	cfg_chg_free(ch);
	assert_snapshot(f, before);
	free(before);
}

/* model_only: the running objects already are so (persist only) */
static void test_model_only(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = settings_chg(f, "{'log_level': 'debug', 'iscsi': "
					     "{'max_burst_length': 262144}}");
	char *before = snapshot(f);

	ch->model_only = true;
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_int_equal(fk.iscsi_inits, 0);
	assert_int_equal(fk.auth_discovery, 0);
	assert_int_equal(log_level_current, LOG_LVL_ERR);
	assert_snapshot(f, before);
	free(before);
}

/* ---- settings ---- */
static void test_settings(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = settings_chg(f, "{'log_level': 'warn', 'iscsi': "
					     "{'max_burst_length': 262144}}");
	char *before = snapshot(f);
	char effect[256];

	/* nothing at prepare: the same port groups */
	prepare_ok(f, ch);
	assert_snapshot(f, before);
	assert_int_equal(alua.defined, 0);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_int_equal(fk.iscsi_inits, 1);
	assert_int_equal(fk.last_settings.max_burst_length, 262144);
	assert_int_equal(fk.auth_discovery, 1);
	assert_int_equal(log_level_current, LOG_LVL_WARN);
	assert_snapshot(f, before);
	/* --log-level given: the config's is not applied */
	cfg_live_fix_log_level(f->rt, true);
	ch = settings_chg(f, "{'log_level': 'debug'}");
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_int_equal(log_level_current, LOG_LVL_WARN);
	assert_int_equal(fk.iscsi_inits, 2);
	log_set_level(LOG_LVL_ERR);
	free(before);
}

/* "isns" in a settings change: the object, parsed, goes to the fabric at
 * commit; removed, the fabric gets "disabled" */
extern struct iscsi_isns_config fake_isns_config;
static void test_settings_isns(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = settings_chg(f, "{'isns': {'server': '[2001:db8::5]:3206', 'entity': "
					     "'e1', 'esi_port': 3207, 'access_control': true}}");

	memset(&fake_isns_config, 0, sizeof(fake_isns_config));
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_true(fake_isns_config.enabled);
	assert_string_equal(fake_isns_config.host, "2001:db8::5");
	assert_int_equal(fake_isns_config.port, 3206);
	assert_string_equal(fake_isns_config.entity, "e1");
	assert_int_equal(fake_isns_config.esi_port, 3207);
	assert_true(fake_isns_config.access_control);
	ch = settings_chg(f, "{'isns': {'server': 'h', 'enabled': false}}");
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_false(fake_isns_config.enabled);
	assert_false(fake_isns_config.access_control);
}

#define PG5                                                                                        \
	"{'port_groups': [{'id': 5, 'state': 'standby', 'members': [{'target': '" T                \
	"', 'tag': 2}]}]}"

/* ALUA port groups: defined at prepare, undefined again at abort */
static void test_settings_port_groups(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = settings_chg(f, PG5);
	char *before = snapshot(f);
	struct iscsi_tpg *t2 = live_rt_tpg(rtt_of(f, T), 2);

	prepare_ok(f, ch);
	assert_true(alua.is_defined[5]);
	assert_int_equal(alua.state[5], SCSI_ALUA_STANDBY);
	assert_int_equal(t2->group, 2); /* moves at commit */
	abort_chg(f, ch);
	assert_false(alua.is_defined[5]);
	assert_snapshot(f, before);

	/* commit: T's portal group 2 joins group 5 with its sessions (the
	 * same portal group, not rebuilt) */
	ch = settings_chg(f, PG5);
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_ptr_equal(live_rt_tpg(rtt_of(f, T), 2), t2);
	assert_false(t2->deleted);
	assert_int_equal(t2->group, 5);
	assert_int_equal(live_rt_tpg(rtt_of(f, T), 1)->group, 1);
	assert_int_equal(f->rt->npg_defs, 1);
	assert_int_equal(f->rt->pg_defs[0], 5);
	free(before);
}

/* Moving fails (out of memory): rebuilt in the new group (sessions go). */
static void test_settings_regroup_rebuild(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = settings_chg(f, PG5);
	struct iscsi_tpg *t2 = live_rt_tpg(rtt_of(f, T), 2), *nt2;

	prepare_ok(f, ch);
	fk.fail_at[F_SET_PORT_GROUP] = 1;
	commit1(f, ch, NULL, 0);
	assert_true(t2->deleted);
	nt2 = live_rt_tpg(rtt_of(f, T), 2);
	assert_ptr_not_equal(nt2, t2);
	assert_int_equal(nt2->group, 5);
	assert_int_equal(nt2->rel, t2->rel);
	assert_int_equal(nt2->nportals, 1);
	assert_string_equal(nt2->portals[0], "127.0.0.1:3261");
	assert_int_equal(ALIVE(f, listening), 0); /* one stopped, one started */
}

static void test_settings_fail(void **state)
{
	struct fx *f = *state;

	fail_next(F_ALUA_DEFINE, 1);
	prepare_fails(f, settings_chg(f, PG5), -ENOMEM, "port_groups[0]",
		      "cannot define port group 5: Cannot allocate memory");
}

/* ---- back-stores ---- */
#define BS_ADD_D "{'op': 'backstore.add', 'object': {'name': 'd', 'type': 'ram', 'size': '2M'}}"

static void test_bs_add(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = chg(BS_ADD_D);
	const struct scsi_lu *d;

	prepare_abort(f, BS_ADD_D);
	prepare_ok(f, ch);
	d = cfg_rt_lu(f->rt, "d");
	assert_non_null(d);
	assert_int_equal(d->refs, 1);
	assert_int_equal(d->bs->size, 2 << 20);
	assert_int_equal(ALIVE(f, live_lus), 1);
	commit1(f, ch, NULL, 0);
	assert_ptr_equal(cfg_rt_lu(f->rt, "d"), d);
	assert_int_equal(ALIVE(f, live_lus), 1);
}

static void test_bs_add_fail(void **state)
{
	struct fx *f = *state;

	fail_next(F_BS_OPEN, 1);
	prepare_fails(f, chg(BS_ADD_D), -EACCES, "backstores[4]",
		      "cannot open ram back-store \"d\": Permission denied");
	/* the back-store opens, its LU cannot be created: closed again */
	fail_next(F_LU_CREATE, 1);
	prepare_fails(f, chg(BS_ADD_D), -ENOMEM, "backstores[4]",
		      "cannot create the logical unit of \"d\": Cannot allocate memory");
}

#define BS_DEL_SPARE "{'op': 'backstore.delete', 'name': 'spare'}"

static void test_bs_del(void **state)
{
	struct fx *f = *state;
	struct scsi_lu *spare = cfg_rt_lu(f->rt, "spare");
	struct cfg_chg *ch = chg(BS_DEL_SPARE);
	char effect[256];

	prepare_abort(f, BS_DEL_SPARE);
	assert_ptr_equal(cfg_rt_lu(f->rt, "spare"), spare);
	/* unregistered at prepare, still open */
	prepare_ok(f, ch);
	assert_null(cfg_rt_lu(f->rt, "spare"));
	assert_int_equal(ALIVE(f, live_lus), 0);
	assert_int_equal(ALIVE(f, live_devs), 0);
	/* closed at commit */
	commit1(f, ch, effect, sizeof(effect));
	assert_int_equal(ALIVE(f, live_lus), -1);
	assert_int_equal(ALIVE(f, live_devs), -1);
	assert_string_equal(effect, "");
}

#define BS_SET_A_SIZE                                                                              \
	"{'op': 'backstore.set', 'name': 'a', 'object': {'name': 'a', 'type': 'ram', 'size': "     \
	"'2M'}}"

static void test_bs_resize(void **state)
{
	struct fx *f = *state;
	struct scsi_lu *a = cfg_rt_lu(f->rt, "a");
	struct cfg_chg *ch = chg(BS_SET_A_SIZE);
	char effect[256];

	/* resized at prepare, sized back at abort */
	prepare_abort(f, BS_SET_A_SIZE);
	assert_int_equal(scsi_lu_size(a), 1 << 20);
	prepare_ok(f, ch);
	assert_int_equal(scsi_lu_size(a), 2 << 20);
	commit1(f, ch, effect, sizeof(effect));
	assert_ptr_equal(cfg_rt_lu(f->rt, "a"), a); /* the same LU */
	assert_int_equal(scsi_lu_size(a), 2 << 20);
	assert_string_equal(effect, "");
	assert_int_equal(fk.auth_targets, 0);
}

static void test_bs_resize_refused(void **state)
{
	struct fx *f = *state;
	const char *shrink = "{'op': 'backstore.set', 'name': 'b', 'object': {'name': 'b', "
			     "'type': 'ram', 'size': '512K'}}";
	struct cfg_chg *ch;

	/* shrinking loses data: only with force */
	prepare_fails(f, chg(shrink), -EPERM, "backstores[1].size",
		      "shrinking \"b\" loses the data beyond 524288 bytes: confirm "
		      "with --force (\"force\": true)");
	ch = chg(shrink);
	ch->force = true;
	prepare_ok(f, ch);
	assert_int_equal(scsi_lu_size(cfg_rt_lu(f->rt, "b")), 512 << 10);
	abort_chg(f, ch);
	assert_int_equal(scsi_lu_size(cfg_rt_lu(f->rt, "b")), 1 << 20);
	/* a type that cannot resize */
	prepare_fails(f,
		      chg("{'op': 'backstore.set', 'name': 'c', 'object': {'name': 'c', 'type': "
			  "'null', 'size': '2M'}}"),
		      -EOPNOTSUPP, NULL, "a null back-store cannot be resized");
	/* the resize fails */
	fail_next(F_LU_RESIZE, 1);
	prepare_fails(f, chg(BS_SET_A_SIZE), -EIO, NULL, "cannot resize \"a\": Input/output error");
}

#define BS_SET_A_SERIAL                                                                            \
	"{'op': 'backstore.set', 'name': 'a', 'object': {'name': 'a', 'type': 'ram', 'size': "     \
	"'1M', 'serial': 'NEW'}}"

/* Any other field: a new LU in the old one's place in every LUN map. */
static void test_bs_reopen(void **state)
{
	struct fx *f = *state;
	struct scsi_lu *a = cfg_rt_lu(f->rt, "a"), *na;
	struct cfg_rt_target *t = rtt_of(f, T), *u = rtt_of(f, U);
	struct cfg_chg *ch = chg(BS_SET_A_SERIAL);
	char effect[256];
	bool ro;

	prepare_abort(f, BS_SET_A_SERIAL);
	prepare_ok(f, ch);
	na = cfg_rt_lu(f->rt, "a");
	assert_ptr_not_equal(na, a);
	assert_string_equal(na->attrs.serial, "NEW");
	/* the target's map, its demo copy (write protected), an ACL's own
	 * map, the other target's map */
	assert_ptr_equal(fake_map_lu(t->map, 0, &ro), na);
	assert_false(ro);
	assert_ptr_equal(fake_map_lu(t->demo_map, 0, &ro), na);
	assert_true(ro);
	assert_ptr_equal(fake_map_lu(live_rt_acl_map(t, I1), 1, NULL), na);
	assert_ptr_equal(fake_map_lu(u->map, 0, NULL), na);
	assert_int_equal(na->refs, 5); /* rt->lus + 4 maps */
	/* rt->lus' old reference, now the change's, and one per map edit */
	assert_int_equal(a->refs, 5);
	assert_int_equal(ALIVE(f, live_lus), 1);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "the logical unit was re-opened under its mappings");
	assert_int_equal(ALIVE(f, live_lus), 0); /* the old one closed */
	assert_int_equal(na->refs, 5);
	/* the maps of ACLs by address are in the policies: every target's */
	assert_int_equal(fk.auth_targets, 2);
	assert_int_equal(fake_auth_count(T), 1);
	assert_int_equal(fake_auth_count(U), 1);
}

static void test_bs_reopen_fail(void **state)
{
	struct fx *f = *state;

	/* every map edit in turn fails: the ones before it are undone */
	for (int k = 1; k <= 4; k++) {
		fail_next(F_MAP_ADD, k);
		prepare_fails(f, chg(BS_SET_A_SERIAL), -ENOMEM, NULL,
			      "cannot re-map \"a\": Cannot allocate memory");
	}
}

/* ---- targets ---- */
#define TGT_ADD_V                                                                                  \
	"{'op': 'target.add', 'object': {'name': '" V                                              \
	"', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.3:3260', '127.0.0.3:3261']}], "      \
	"'luns': [{'lun': 0, 'backstore': 'b'}]}}"

static void test_tgt_add(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = chg(TGT_ADD_V);
	struct cfg_rt_target *v;

	prepare_abort(f, TGT_ADD_V);
	assert_null(cfg_rt_target(f->rt, V));
	prepare_ok(f, ch);
	v = rtt_of(f, V);
	assert_int_equal(ALIVE(f, listening), 2);
	assert_int_equal(live_rt_tpg(v, 1)->rel, 4); /* the next free identifier */
	assert_ptr_equal(fake_map_lu(v->map, 0, NULL), cfg_rt_lu(f->rt, "b"));
	commit1(f, ch, NULL, 0);
	assert_ptr_equal(cfg_rt_target(f->rt, V), v);
	assert_int_equal(ALIVE(f, listening), 2);
}

static void test_tgt_add_fail(void **state)
{
	struct fx *f = *state;

	fail_next(F_PORTAL_ADD, 2);
	prepare_fails(f, chg(TGT_ADD_V), -EADDRINUSE, "targets[2].portal_groups[0].portals[1]",
		      "cannot listen on 127.0.0.3:3261: Address already in use");
}

#define TGT_DEL_U "{'op': 'target.delete', 'target': '" U "'}"

static void test_tgt_del(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *u = rtt_of(f, U);
	struct cfg_chg *ch = chg(TGT_DEL_U);
	char effect[256];

	prepare_abort(f, TGT_DEL_U);
	assert_ptr_equal(cfg_rt_target(f->rt, U), u);
	/* unregistered at prepare: still listening */
	prepare_ok(f, ch);
	assert_null(cfg_rt_target(f->rt, U));
	assert_int_equal(ALIVE(f, listening), 0);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "the target's sessions were dropped");
	assert_int_equal(ALIVE(f, listening), -1);
	assert_int_equal(ALIVE(f, live_itargets), -1);
	assert_int_equal(ALIVE(f, live_targets), -1);
}

#define TGT_SET_T(x) "{'op': 'target.set', 'target': '" T "', 'object': {'name': '" T "'" x "}}"

/* alias and demo mode: in place, the same target */
static void test_tgt_set(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct scsi_target *st = t->st;
	struct cfg_chg *ch;
	char effect[256];

	prepare_abort(f, TGT_SET_T(", 'alias': 'new'"));
	ch = chg(TGT_SET_T(", 'alias': 'new', 'demo_mode': {'enabled': true, 'read_only': false}"));
	prepare_ok(f, ch);
	assert_string_equal(t->it->alias, "");
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_ptr_equal(rtt_of(f, T), t);
	assert_ptr_equal(t->st, st);
	assert_string_equal(t->it->alias, "new");
	/* demo read-write: the demo copy goes, new logins get the map */
	assert_null(t->demo_map);
	assert_ptr_equal(st->default_map, t->map);
	assert_true(st->demo);
	assert_int_equal(fake_auth_count(T), 1);
	assert_int_equal(ALIVE(f, live_maps), -1);

	/* back to read-only: a new demo copy built at prepare */
	prepare_abort(f, TGT_SET_T(", 'demo_mode': {'enabled': true, 'read_only': true}"));
	ch = chg(TGT_SET_T(", 'demo_mode': {'enabled': true, 'read_only': true}"));
	prepare_ok(f, ch);
	assert_int_equal(ALIVE(f, live_maps), 0);
	assert_null(t->demo_map);
	commit1(f, ch, NULL, 0);
	assert_non_null(t->demo_map);
	assert_ptr_equal(st->default_map, t->demo_map);
	assert_int_equal(t->demo_map->n, 2);
	assert_true(t->demo_map->e[0].ro && t->demo_map->e[1].ro);

	/* demo off: deny by default, the map stays the default */
	ch = chg(TGT_SET_T(""));
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_false(st->demo);
	assert_null(t->demo_map);
	assert_ptr_equal(st->default_map, t->map);
}

/* A field that cannot change live (none of the file's can today: the old
 * object forged) rebuilds the target: built at prepare, switched at
 * commit. */
static void test_tgt_set_rebuild(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T), *nt;
	char *before = snapshot(f);
	struct cfg_chg *ch;
	char effect[256];

	for (int commit = 0; commit < 2; commit++) {
		ch = chg(TGT_SET_T(", 'alias': 'rebuilt'"));
		prepare_ok(f, ch);
		cfg_live_abort(f->rt, f->c, ch);
		free(ch->obj.t.name); /* the old object */
		ch->obj.t.name = strdup("iqn.2026-12.org.utarget:other");
		prepare_ok(f, ch);
		assert_true(((struct live_state *)ch->rt)->rebuild);
		assert_int_equal(ALIVE(f, live_itargets), 1);
		assert_ptr_equal(rtt_of(f, T), t); /* not switched yet */
		if (!commit) {
			free(ch->obj.t.name); /* undo puts it back in the tree */
			ch->obj.t.name = strdup(T);
			abort_chg(f, ch);
			assert_snapshot(f, before);
			continue;
		}
		commit1(f, ch, effect, sizeof(effect));
		assert_string_equal(effect, "the target was rebuilt: its sessions were dropped");
		nt = rtt_of(f, T);
		assert_ptr_not_equal(nt, t);
		assert_string_equal(nt->it->alias, "rebuilt");
		assert_int_equal(ALIVE(f, live_itargets), 0);
		assert_int_equal(hmap_count(&nt->tpgs), 2);
	}
	free(before);
}

/* ---- portal groups ---- */
#define TPG_ADD                                                                                    \
	"{'op': 'portal_group.add', 'target': '" T                                                 \
	"', 'object': {'tag': 3, 'portals': ['127.0.0.1:3262']}}"

static void test_tpg_add(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = chg(TPG_ADD);
	struct iscsi_tpg *g;

	prepare_abort(f, TPG_ADD);
	prepare_ok(f, ch);
	g = live_rt_tpg(rtt_of(f, T), 3);
	assert_non_null(g);
	assert_int_equal(g->nportals, 1);
	assert_int_equal(ALIVE(f, listening), 1);
	commit1(f, ch, NULL, 0);
	assert_ptr_equal(live_rt_tpg(rtt_of(f, T), 3), g);
	assert_false(g->deleted);
	/* cannot listen: the portal group removed again */
	fail_next(F_PORTAL_ADD, 1);
	prepare_fails(f,
		      chg("{'op': 'portal_group.add', 'target': '" T "', 'object': {'tag': 4, "
			  "'portals': ['127.0.0.1:3263']}}"),
		      -EADDRINUSE, "targets[0].portal_groups[3].portals[0]", NULL);
}

#define TPG_DEL "{'op': 'portal_group.delete', 'target': '" T "', 'tag': 2}"

/* nothing until commit: then the portal group and its sessions go */
static void test_tpg_del(void **state)
{
	struct fx *f = *state;
	struct iscsi_tpg *g = live_rt_tpg(rtt_of(f, T), 2);
	struct cfg_chg *ch = chg(TPG_DEL);
	char *before = snapshot(f);
	char effect[256];

	prepare_abort(f, TPG_DEL);
	prepare_ok(f, ch);
	cfg_chg_undo(f->c, f->ix, ch); /* the snapshot walks the tree's tags */
	assert_snapshot(f, before);
	assert_int_equal(cfg_chg_apply(f->c, f->ix, ch, &(struct cfg_err){0}), 0);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "the portal group's sessions were dropped");
	assert_true(g->deleted);
	assert_null(live_rt_tpg(rtt_of(f, T), 2));
	assert_int_equal(ALIVE(f, listening), -1);
	free(before);
}

#define TPG_SET(x)                                                                                 \
	"{'op': 'portal_group.set', 'target': '" T "', 'tag': 1, 'object': {'tag': 1" x "}}"

/* portals only: the new ones listen at prepare, the old ones stop at
 * commit; the portal group (and its sessions) stays */
static void test_tpg_set(void **state)
{
	struct fx *f = *state;
	struct iscsi_tpg *g = live_rt_tpg(rtt_of(f, T), 1);
	struct cfg_chg *ch;
	char effect[256];

	prepare_abort(f, TPG_SET(", 'portals': ['127.0.0.1:3260', '127.0.0.1:3270']"));
	ch = chg(TPG_SET(", 'portals': ['127.0.0.1:3270', '127.0.0.1:3271']"));
	prepare_ok(f, ch);
	assert_int_equal(g->nportals, 3);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_ptr_equal(live_rt_tpg(rtt_of(f, T), 1), g);
	assert_int_equal(g->nportals, 2);
	assert_string_equal(g->portals[0], "127.0.0.1:3270");
	assert_string_equal(g->portals[1], "127.0.0.1:3271");
	assert_int_equal(ALIVE(f, listening), 1);
}

/* a redirection, the target's and a portal group's: in place at commit,
 * nothing rebuilt (the sessions stay) */
static void test_redirect_set(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct iscsi_tpg *g = live_rt_tpg(t, 1);
	struct cfg_chg *ch;
	char effect[256];

	prepare_abort(f,
		      TPG_SET(", 'portals': ['127.0.0.1:3260'], 'redirect': {'address': 'h:1'}"));
	assert_int_equal(g->redirect.mode, ISCSI_REDIRECT_NONE);
	ch = chg(TPG_SET(", 'portals': ['127.0.0.1:3260'], "
			 "'redirect': {'address': '192.0.2.1:3260,4', 'permanent': true}"));
	prepare_ok(f, ch);
	assert_int_equal(g->redirect.mode, ISCSI_REDIRECT_NONE);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_ptr_equal(live_rt_tpg(t, 1), g);
	assert_false(g->deleted);
	assert_int_equal(g->redirect.mode, ISCSI_REDIRECT_PERMANENT);
	assert_string_equal(g->redirect.address, "192.0.2.1:3260,4");
	ch = chg(TPG_SET(", 'portals': ['127.0.0.1:3260']"));
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_int_equal(g->redirect.mode, ISCSI_REDIRECT_NONE);

	ch = chg(TGT_SET_T(", 'redirect': {'address': 'san-2'}"));
	prepare_ok(f, ch);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_ptr_equal(rtt_of(f, T), t);
	assert_int_equal(t->it->redirect.mode, ISCSI_REDIRECT_TEMPORARY);
	assert_string_equal(t->it->redirect.address, "san-2");
	ch = chg(TGT_SET_T(""));
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_int_equal(t->it->redirect.mode, ISCSI_REDIRECT_NONE);
}

/* another field: rebuilt at commit (its sessions go) */
static void test_tpg_set_rebuild(void **state)
{
	struct fx *f = *state;
	struct iscsi_tpg *g = live_rt_tpg(rtt_of(f, T), 1), *ng;
	struct cfg_chg *ch;
	char effect[256];

	prepare_abort(f, TPG_SET(", 'rel_port_id': 9, 'portals': ['127.0.0.1:3260']"));
	ch = chg(TPG_SET(", 'rel_port_id': 9, 'portals': ['127.0.0.1:3260']"));
	prepare_ok(f, ch);
	assert_ptr_equal(live_rt_tpg(rtt_of(f, T), 1), g);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "the portal group was rebuilt: its sessions were dropped");
	assert_true(g->deleted);
	ng = live_rt_tpg(rtt_of(f, T), 1);
	assert_ptr_not_equal(ng, g);
	assert_int_equal(ng->rel, 9);
	assert_int_equal(ng->nportals, 1);
	assert_int_equal(ALIVE(f, listening), 0);
}

static void test_tpg_set_fail(void **state)
{
	struct fx *f = *state;

	/* the second new portal cannot listen: the first stops again */
	fail_next(F_PORTAL_ADD, 2);
	prepare_fails(f, chg(TPG_SET(", 'portals': ['127.0.0.1:3270', '127.0.0.1:3271']")),
		      -EADDRINUSE, "targets[0].portal_groups[0].portals[1]",
		      "cannot listen on 127.0.0.1:3271: Address already in use");
}

/* --listen replaces every portal: a portal that would not be listened on
 * (or a --listen address that would still be) is refused; a portal that is
 * a --listen address is taken, and nothing changes on the running side. */
static void test_tpg_set_listen(void **state)
{
	static const char *const listen[] = {"127.0.0.1:3799"};
	static const char *const why =
	    " utargetd runs with --listen 127.0.0.1:3799, which replaces every portal (restart it "
	    "without --listen to listen on the configured ones)";
	struct cfg_overrides ov = {.listen = listen, .nlisten = 1};
	struct fx *f = fx_new(&ov);
	char *before = snapshot(f), msg[512];
	struct cfg_chg *ch;

	(void)state;
	snprintf(msg, sizeof(msg), "127.0.0.1:3270 would not be listened on:%s", why);
	prepare_fails(f, chg(TPG_SET(", 'portals': ['127.0.0.1:3260', '127.0.0.1:3270']")),
		      -EOPNOTSUPP, "targets[0].portal_groups[0].portals[1]", msg);
	prepare_fails(f, chg(TGT_ADD_V), -EOPNOTSUPP, "targets[2].portal_groups[0].portals[0]",
		      NULL);
	prepare_fails(f, chg(TPG_ADD), -EOPNOTSUPP, "targets[0].portal_groups[2].portals[0]", NULL);
	/* a --listen address: taken (it is listened on already) */
	ch = chg(TPG_SET(", 'portals': ['127.0.0.1:3260', '127.0.0.1:3799']"));
	prepare_ok(f, ch);
	assert_snapshot(f, before);
	commit1(f, ch, NULL, 0);
	assert_snapshot(f, before);
	assert_string_equal(live_rt_tpg(rtt_of(f, T), 1)->portals[0], "127.0.0.1:3799");
	/* ... and not removed again while it is listened on */
	prepare_fails(f, chg(TPG_SET(", 'portals': ['127.0.0.1:3260']")), -EOPNOTSUPP,
		      "targets[0].portal_groups[0].portals",
		      "127.0.0.1:3799 would still be listened on: utargetd runs with --listen "
		      "127.0.0.1:3799, where every portal group listens");
	free(before);
	fx_free(f);
}

/* ---- ACLs ---- */
#define ACL_ADD_I3(x) "{'op': 'acl.add', 'target': '" T "', 'object': {'initiator': '" I3 "'" x "}}"

static void test_acl_add(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct cfg_chg *ch;
	bool ro;

	prepare_abort(f, ACL_ADD_I3(", 'luns': [{'lun': 3, 'backstore': 'spare'}]"));
	prepare_abort(f, ACL_ADD_I3(""));
	/* its own map: in the core at prepare */
	ch = chg(ACL_ADD_I3(", 'luns': [{'lun': 3, 'backstore': 'spare', 'read_only': true}]"));
	prepare_ok(f, ch);
	assert_non_null(fake_acl_map(t->st, I3));
	assert_ptr_equal(fake_acl_map(t->st, I3), live_rt_acl_map(t, I3));
	assert_ptr_equal(fake_map_lu(fake_acl_map(t->st, I3), 3, &ro), cfg_rt_lu(f->rt, "spare"));
	assert_true(ro);
	assert_int_equal(fk.auth_targets, 0);
	commit1(f, ch, NULL, 0);
	assert_int_equal(fake_auth_count(T), 1);
	assert_int_equal(fk.drops, 0);
}

static void test_acl_add_target_map(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct cfg_chg *ch = chg(ACL_ADD_I3(""));

	prepare_ok(f, ch);
	assert_ptr_equal(fake_acl_map(t->st, I3), t->map);
	assert_null(live_rt_acl_map(t, I3));
	assert_int_equal(hmap_count(&t->acls), 3);
	commit1(f, ch, NULL, 0);
}

static void test_acl_add_fail(void **state)
{
	struct fx *f = *state;

	fail_next(F_ACL_SET, 1);
	prepare_fails(f, chg(ACL_ADD_I3(", 'luns': [{'lun': 3, 'backstore': 'spare'}]")), -ENOMEM,
		      "targets[0].acls[3]", "cannot add the ACL: Cannot allocate memory");
	/* its map cannot be built */
	fail_next(F_MAP_CREATE, 1);
	prepare_fails(f, chg(ACL_ADD_I3(", 'luns': [{'lun': 3, 'backstore': 'spare'}]")), -ENOMEM,
		      "targets[0].acls[3].luns", NULL);
}

/* by address only: nothing in the core, the fabric's policy at commit */
static void test_acl_add_address(void **state)
{
	struct fx *f = *state;
	const char *json = "{'op': 'acl.add', 'target': '" T "', 'object': {'addresses': "
			   "['192.168.0.0/16']}}";
	char *before = snapshot(f);
	struct cfg_chg *ch = chg(json);

	prepare_abort(f, json);
	prepare_ok(f, ch);
	assert_snapshot(f, before);
	commit1(f, ch, NULL, 0);
	assert_snapshot(f, before);
	assert_int_equal(fake_auth_count(T), 1);
	free(before);
}

#define ACL_DEL_I1 "{'op': 'acl.delete', 'target': '" T "', 'initiator': '" I1 "'}"

/* out of the core at prepare (new logins refused), sessions dropped and
 * its map released at commit */
static void test_acl_del(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct scsi_lun_map *own = live_rt_acl_map(t, I1);
	struct cfg_chg *ch = chg(ACL_DEL_I1);
	char effect[256];

	prepare_abort(f, ACL_DEL_I1);
	assert_ptr_equal(fake_acl_map(t->st, I1), own);
	prepare_ok(f, ch);
	assert_null(fake_acl_map(t->st, I1));
	assert_null(live_rt_acl_map(t, I1));
	assert_int_equal(ALIVE(f, live_maps), 0); /* kept for abort */
	assert_int_equal(fk.drops, 0);
	commit1(f, ch, effect, sizeof(effect));
	assert_int_equal(fk.drops, 1);
	assert_string_equal(fk.dropped[0], I1);
	assert_string_equal(effect, "the initiator's sessions on the target were dropped");
	assert_int_equal(ALIVE(f, live_maps), -1);
	assert_int_equal(fake_auth_count(T), 1);
	/* nobody logged in: no effect to report */
	fk.drop_sessions = 0;
	ch = chg("{'op': 'acl.delete', 'target': '" T "', 'initiator': '" I2 "'}");
	prepare_ok(f, ch);
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_int_equal(fk.drops, 2);
}

#define ACL_SET_I1                                                                                 \
	"{'op': 'acl.set', 'target': '" T "', 'initiator': '" I1 "', 'object': {'initiator': '" I1 \
	"', 'luns': [{'lun': 0, 'backstore': 'c'}, {'lun': 2, 'backstore': 'b'}]}}"

/* an own map changed: edited in place, sessions see it (none dropped) */
static void test_acl_set_in_place(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct scsi_lun_map *own = live_rt_acl_map(t, I1);
	struct cfg_chg *ch = chg(ACL_SET_I1);
	char effect[256];

	prepare_abort(f, ACL_SET_I1);
	prepare_ok(f, ch);
	assert_ptr_equal(live_rt_acl_map(t, I1), own);
	assert_non_null(fake_map_lu(own, 0, NULL));
	assert_null(fake_map_lu(own, 1, NULL));
	assert_ptr_equal(fake_map_lu(own, 2, NULL), cfg_rt_lu(f->rt, "b"));
	commit1(f, ch, effect, sizeof(effect));
	assert_string_equal(effect, "");
	assert_int_equal(fk.drops, 0);
	assert_ptr_equal(fake_acl_map(t->st, I1), own);
	assert_int_equal(cfg_rt_lu(f->rt, "a")->refs, 4); /* rt->lus, T, demo, U */
}

/* from the target's map to one of its own: switched at commit, sessions
 * dropped (they hold the old map) */
static void test_acl_set_switch(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	const char *json = "{'op': 'acl.set', 'target': '" T "', 'initiator': '" I2 "', "
			   "'object': {'initiator': '" I2 "', 'luns': [{'lun': 0, 'backstore': "
			   "'spare'}]}}";
	struct cfg_chg *ch = chg(json);
	struct scsi_lun_map *m;
	char effect[256];

	prepare_abort(f, json);
	prepare_ok(f, ch);
	assert_ptr_equal(fake_acl_map(t->st, I2), t->map);
	assert_int_equal(ALIVE(f, live_maps), 1);
	commit1(f, ch, effect, sizeof(effect));
	m = fake_acl_map(t->st, I2);
	assert_ptr_not_equal(m, t->map);
	assert_ptr_equal(live_rt_acl_map(t, I2), m);
	assert_ptr_equal(fake_map_lu(m, 0, NULL), cfg_rt_lu(f->rt, "spare"));
	assert_string_equal(
	    effect, "the initiator's sessions on the target were dropped (LUN map switched)");
	assert_string_equal(fk.dropped[0], I2);
	/* and back to the target's map: its own map released */
	ch = chg("{'op': 'acl.set', 'target': '" T "', 'initiator': '" I2 "', 'object': "
		 "{'initiator': '" I2 "'}}");
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_ptr_equal(fake_acl_map(t->st, I2), t->map);
	assert_null(live_rt_acl_map(t, I2));
	assert_int_equal(ALIVE(f, live_maps), 0);
	assert_int_equal(fk.drops, 2);
}

static void test_acl_set_fail(void **state)
{
	struct fx *f = *state;

	fail_next(F_MAP_ADD, 1);
	prepare_fails(f, chg(ACL_SET_I1), -ENOMEM, "targets[0].acls[0].luns",
		      "cannot change the LUN map: Cannot allocate memory");
}

/* ---- LUNs ---- */
#define LUN_ADD_T "{'op': 'lun.add', 'target': '" T "', 'object': {'lun': 2, 'backstore': 'spare'}}"

/* the target's map and its write protected demo copy */
static void test_lun_add(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct scsi_lu *spare = cfg_rt_lu(f->rt, "spare");
	struct cfg_chg *ch = chg(LUN_ADD_T);
	bool ro;

	prepare_abort(f, LUN_ADD_T);
	prepare_ok(f, ch);
	assert_ptr_equal(fake_map_lu(t->map, 2, &ro), spare);
	assert_false(ro);
	assert_ptr_equal(fake_map_lu(t->demo_map, 2, &ro), spare);
	assert_true(ro);
	commit1(f, ch, NULL, 0);
	assert_int_equal(spare->refs, 3);
	/* the target's map is the one its policy points at: not rebuilt */
	assert_int_equal(fk.auth_targets, 0);
}

#define LUN_DEL_T "{'op': 'lun.delete', 'target': '" T "', 'lun': 1}"

static void test_lun_del(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct scsi_lu *b = cfg_rt_lu(f->rt, "b");
	struct cfg_chg *ch = chg(LUN_DEL_T);
	int refs = b->refs;

	prepare_abort(f, LUN_DEL_T);
	prepare_ok(f, ch);
	assert_null(fake_map_lu(t->map, 1, NULL));
	assert_null(fake_map_lu(t->demo_map, 1, NULL));
	assert_int_equal(b->refs, refs); /* the change holds them for abort */
	commit1(f, ch, NULL, 0);
	assert_int_equal(b->refs, refs - 2);
}

#define LUN_SET_T                                                                                  \
	"{'op': 'lun.set', 'target': '" T "', 'lun': 1, 'object': {'lun': 1, 'backstore': "        \
	"'spare'}}"

static void test_lun_set(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	struct cfg_chg *ch = chg(LUN_SET_T);
	bool ro;

	prepare_abort(f, LUN_SET_T);
	prepare_ok(f, ch);
	assert_ptr_equal(fake_map_lu(t->map, 1, &ro), cfg_rt_lu(f->rt, "spare"));
	assert_false(ro); /* no longer read_only */
	assert_ptr_equal(fake_map_lu(t->demo_map, 1, &ro), cfg_rt_lu(f->rt, "spare"));
	assert_true(ro);
	commit1(f, ch, NULL, 0);
	/* rt->lus' only (the address ACL's map is the fabric's) */
	assert_int_equal(cfg_rt_lu(f->rt, "b")->refs, 1);
}

/* an ACL's own map; one by address only is the fabric's (its policy) */
static void test_lun_acl_maps(void **state)
{
	struct fx *f = *state;
	struct cfg_rt_target *t = rtt_of(f, T);
	const char *own = "{'op': 'lun.add', 'target': '" T "', 'initiator': '" I1 "', "
			  "'object': {'lun': 7, 'backstore': 'spare'}}";
	const char *addr = "{'op': 'lun.add', 'target': '" T "', 'initiator': '" AD "', "
			   "'object': {'lun': 7, 'backstore': 'spare'}}";
	char *before = snapshot(f);
	struct cfg_chg *ch;

	prepare_abort(f, own);
	prepare_abort(f, addr);
	ch = chg(own);
	prepare_ok(f, ch);
	assert_ptr_equal(fake_map_lu(live_rt_acl_map(t, I1), 7, NULL), cfg_rt_lu(f->rt, "spare"));
	assert_null(fake_map_lu(t->map, 7, NULL));
	commit1(f, ch, NULL, 0);
	assert_int_equal(fk.auth_targets, 0);
	free(before);
	before = snapshot(f);
	ch = chg(addr);
	prepare_ok(f, ch);
	commit1(f, ch, NULL, 0);
	assert_snapshot(f, before);
	assert_int_equal(fake_auth_count(T), 1);
	free(before);
}

static void test_lun_fail(void **state)
{
	struct fx *f = *state;

	/* the target's map, then its demo copy: each failing in turn */
	for (int k = 1; k <= 2; k++) {
		fail_next(F_MAP_ADD, k);
		prepare_fails(f, chg(LUN_ADD_T), -ENOMEM, NULL,
			      "cannot change LUN 2: Cannot allocate memory");
	}
	/* lun.set: the new entry cannot go in, the old one comes back */
	for (int k = 1; k <= 2; k++) {
		fail_next(F_MAP_ADD, k);
		prepare_fails(f, chg(LUN_SET_T), -ENOMEM, NULL,
			      "cannot change LUN 1: Cannot allocate memory");
	}
}

/* ---- transactions ---- */

/* Every kind prepared in one transaction and aborted newest first (as
 * ctl.c rolls back): the running objects are those before. */
static void test_txn_abort_all(void **state)
{
	static const char *const v[] = {
	    BS_ADD_D,
	    "{'op': 'lun.add', 'target': '" T "', 'object': {'lun': 4, 'backstore': 'd'}}",
	    TGT_ADD_V,
	    TPG_ADD,
	    TPG_SET(", 'portals': ['127.0.0.1:3270']"),
	    ACL_ADD_I3(", 'luns': [{'lun': 0, 'backstore': 'd'}]"),
	    ACL_SET_I1,
	    LUN_SET_T,
	    TGT_SET_T(", 'alias': 'x'"),
	    TPG_DEL,
	    BS_SET_A_SERIAL,
	    ACL_DEL_I1,
	    TGT_DEL_U,
	    BS_SET_A_SIZE,
	};
	struct fx *f = *state;
	struct cfg_chg *ch[16];
	char *before = snapshot(f);
	size_t n = sizeof(v) / sizeof(v[0]);

	ch[n] = settings_chg(f, PG5);
	for (size_t i = 0; i < n; i++) {
		ch[i] = chg(v[i]);
		prepare_ok(f, ch[i]);
	}
	prepare_ok(f, ch[n]);
	for (size_t i = n + 1; i-- > 0;)
		abort_chg(f, ch[i]);
	assert_snapshot(f, before);
	free(before);
}

/* One transaction: the access policy of a target rebuilt once however
 * many of its changes need it, and only for the targets touched. */
static void test_txn_policy_once(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *v[5] = {
	    chg(ACL_ADD_I3("")),
	    chg("{'op': 'lun.add', 'target': '" T "', 'initiator': '" AD "', 'object': {'lun': 7, "
		"'backstore': 'spare'}}"),
	    chg(TGT_SET_T(", 'alias': 'y', 'demo_mode': {'enabled': true, 'read_only': true}")),
	    chg(LUN_ADD_T),
	    NULL,
	};
	const char *effects[4];

	for (size_t i = 0; v[i]; i++)
		prepare_ok(f, v[i]);
	commit_v(f, v, effects);
	assert_int_equal(fk.auth_targets, 1);
	assert_string_equal(fk.auth_target[0], T);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(effects[i], "");
	assert_string_equal(rtt_of(f, T)->it->alias, "y");
}

/* A policy that cannot be rebuilt is logged; the commit goes on. */
static void test_txn_policy_fails(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *ch = chg(ACL_ADD_I3(""));

	prepare_ok(f, ch);
	fk.fail_at[F_AUTH_TARGET] = 1;
	commit1(f, ch, NULL, 0);
	assert_int_equal(fk.auth_targets, 1);
	assert_ptr_equal(fake_acl_map(rtt_of(f, T)->st, I3), rtt_of(f, T)->map);
}

int main(void)
{
#define TC(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TC(test_table),
	    TC(test_model_only),
	    TC(test_settings),
	    TC(test_settings_isns),
	    TC(test_settings_port_groups),
	    TC(test_settings_regroup_rebuild),
	    TC(test_settings_fail),
	    TC(test_bs_add),
	    TC(test_bs_add_fail),
	    TC(test_bs_del),
	    TC(test_bs_resize),
	    TC(test_bs_resize_refused),
	    TC(test_bs_reopen),
	    TC(test_bs_reopen_fail),
	    TC(test_tgt_add),
	    TC(test_tgt_add_fail),
	    TC(test_tgt_del),
	    TC(test_tgt_set),
	    TC(test_tgt_set_rebuild),
	    TC(test_tpg_add),
	    TC(test_tpg_del),
	    TC(test_tpg_set),
	    TC(test_tpg_set_rebuild),
	    TC(test_redirect_set),
	    TC(test_tpg_set_fail),
	    cmocka_unit_test(test_tpg_set_listen),
	    TC(test_acl_add),
	    TC(test_acl_add_target_map),
	    TC(test_acl_add_fail),
	    TC(test_acl_add_address),
	    TC(test_acl_del),
	    TC(test_acl_set_in_place),
	    TC(test_acl_set_switch),
	    TC(test_acl_set_fail),
	    TC(test_lun_add),
	    TC(test_lun_del),
	    TC(test_lun_set),
	    TC(test_lun_acl_maps),
	    TC(test_lun_fail),
	    TC(test_txn_abort_all),
	    TC(test_txn_policy_once),
	    TC(test_txn_policy_fails),
	};
#undef TC
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
