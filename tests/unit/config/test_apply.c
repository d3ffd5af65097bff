/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/apply.c, with fakes of its neighbours (the
 * back-store registry, the core's LU/target/map objects, the iSCSI fabric)
 * that record what was built and count live objects.
 *
 * What is checked: the objects and their attributes for a config with two
 * targets sharing an LU (identity, thin fallback, read-only, LUN maps, demo
 * and ACL maps, TPG tags and relative port ids, portals, --listen), and that
 * a failure at any single step leaves nothing behind (all or nothing). The
 * fakes are tests/unit/fakes/fake_cfg_rt.c.
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

#include "fake_cfg_rt.h"

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
	fake_rt_reset();
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
	fake_rt_assert_nothing_live();
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
	fake_rt_assert_nothing_live();
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
	fake_rt_assert_nothing_live();
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
	for (int f = 0; f < F_NAPPLY; f++) {
		assert_true(total[f] > 0);
		for (int k = 1; k <= total[f]; k++) {
			reset();
			fk.fail_at[f] = k;
			rt = (struct cfg_runtime *)1;
			assert_true(cfg_apply(c, NULL, &rt, &e) < 0);
			assert_null(rt);
			if (e.path[0] == '\0' || e.msg[0] == '\0')
				fail_msg("call %d #%d: no error path/message", f, k);
			fake_rt_assert_nothing_live();
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

		memset(&fk.last_settings, 0, sizeof(fk.last_settings));
#define VAL(m) _Generic(c.iscsi.m, bool : (bool)((i >> p) & 1), default : 1000 * p + i + 1)
#define SET(m)                                                                                     \
	c.iscsi.m = VAL(m);                                                                        \
	i++;
		ISCSI_FIELDS(SET)
		fk.iscsi_inits = 0;
		assert_int_equal(cfg_apply_iscsi_settings(&c), 0);
		assert_int_equal(fk.iscsi_inits, 1);
		i = 0;
#define CHECK(m)                                                                                   \
	assert_int_equal(fk.last_settings.m, VAL(m));                                              \
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
