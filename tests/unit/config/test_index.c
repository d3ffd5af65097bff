/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/index.c: the name -> position indexes over a
 * config tree. The trees are parsed only (not verified), so that they may
 * hold the duplicates verification would report.
 *
 *   tree: state_dir /srv/ut; back-stores a (file a.img), b (file /abs/b.img),
 *   c (ram); target T: portal groups 1 (rel 5) and 2 (rel 6), LUNs 0=a 1=b,
 *   ACLs I1 (own map 3=c 4=a), @10.0.0.0/8,192.168.1.0/24 (by address, own
 *   map 0=b), I2; target U: portal group 7 (rel 5), LUN 0=a
 *
 * What is checked: every lookup (and a miss for each), the counters
 * (references of a back-store across maps, portal groups per relative
 * port identifier), ACL keys, the first of duplicates kept and a later one
 * removing nothing, removals (a target takes its children with it, counters
 * go at zero), moves, and names too long for a key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/index.c"
#include "ut_text.h"

#define T  "iqn.2026-12.org.utarget:t"
#define U  "iqn.2026-12.org.utarget:u"
#define I1 "iqn.2026-12.org.utarget:i1"
#define I2 "iqn.2026-12.org.utarget:i2"
#define AD "@10.0.0.0/8,192.168.1.0/24"

/* JSON with ' for " */
static const char base_cfg[] =
    "{'version': 1, 'state_dir': '/srv/ut', 'backstores': ["
    " {'name': 'a', 'type': 'file', 'path': 'a.img'},"
    " {'name': 'b', 'type': 'file', 'path': '/abs/b.img'},"
    " {'name': 'c', 'type': 'ram', 'size': '1M'}],"
    " 'targets': ["
    " {'name': '" T "', 'portal_groups': [{'tag': 1, 'rel_port_id': 5, 'portals': ['127.0.0.1:1']},"
    "                                   {'tag': 2, 'rel_port_id': 6, 'portals': ['127.0.0.1:2']}],"
    "  'luns': [{'lun': 0, 'backstore': 'a'}, {'lun': 1, 'backstore': 'b'}],"
    "  'acls': [{'initiator': '" I1 "', 'luns': [{'lun': 3, 'backstore': 'c'},"
    "                                         {'lun': 4, 'backstore': 'a'}]},"
    "           {'addresses': ['10.0.0.0/8', '192.168.1.0/24'],"
    "            'luns': [{'lun': 0, 'backstore': 'b'}]},"
    "           {'initiator': '" I2 "'}]},"
    " {'name': '" U
    "', 'portal_groups': [{'tag': 7, 'rel_port_id': 5, 'portals': ['127.0.0.1:3']}],"
    "  'luns': [{'lun': 0, 'backstore': 'a'}]}]}";

static struct cfg *parse(const char *json)
{
	char *text = ut_dq(json);
	struct cfg *c = NULL;
	struct cfg_err err;

	if (cfg_parse(text, strlen(text), NULL, &c, &err))
		fail_msg("%s: %s", err.path, err.msg);
	free(text);
	return c;
}

struct fx {
	struct cfg *c;
	struct cfg_index *ix;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->c = parse(base_cfg);
	assert_int_equal(cfg_index_build(f->c, &f->ix), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	cfg_index_free(f->ix);
	cfg_free(f->c);
	free(f);
	return 0;
}

static void test_lookups(void **state)
{
	struct fx *f = *state;
	const struct cfg_index *ix = f->ix;

	assert_int_equal(cfg_ix_bs(ix, "a"), 0);
	assert_int_equal(cfg_ix_bs(ix, "c"), 2);
	assert_int_equal(cfg_ix_bs(ix, "d"), -1);
	/* file back-stores by absolute path: relative to state_dir */
	assert_int_equal(cfg_ix_path(ix, "/srv/ut/a.img"), 0);
	assert_int_equal(cfg_ix_path(ix, "/abs/b.img"), 1);
	assert_int_equal(cfg_ix_path(ix, "a.img"), -1);
	assert_int_equal(cfg_ix_target(ix, T), 0);
	assert_int_equal(cfg_ix_target(ix, U), 1);
	assert_int_equal(cfg_ix_target(ix, "iqn.2026-12.org.utarget:x"), -1);
	/* children by their target's name */
	assert_int_equal(cfg_ix_tpg(ix, T, 2), 1);
	assert_int_equal(cfg_ix_tpg(ix, U, 7), 0);
	assert_int_equal(cfg_ix_tpg(ix, U, 1), -1);
	assert_int_equal(cfg_ix_acl(ix, T, I1), 0);
	assert_int_equal(cfg_ix_acl(ix, T, AD), 1);
	assert_int_equal(cfg_ix_acl(ix, T, I2), 2);
	assert_int_equal(cfg_ix_acl(ix, U, I1), -1);
	/* LUN maps: the target's (NULL) and each ACL's own */
	assert_int_equal(cfg_ix_lun(ix, T, NULL, 1), 1);
	assert_int_equal(cfg_ix_lun(ix, T, I1, 4), 1);
	assert_int_equal(cfg_ix_lun(ix, T, AD, 0), 0);
	assert_int_equal(cfg_ix_lun(ix, T, I1, 0), -1);
	assert_int_equal(cfg_ix_lun(ix, T, I2, 0), -1); /* it uses the target's map */
	assert_int_equal(cfg_ix_lun(ix, U, NULL, 0), 0);
	assert_int_equal(cfg_ix_lun_bs(ix, T, NULL, "b"), 1);
	assert_int_equal(cfg_ix_lun_bs(ix, T, I1, "a"), 1);
	assert_int_equal(cfg_ix_lun_bs(ix, T, I1, "b"), -1);
	assert_int_equal(cfg_ix_lun_bs(ix, U, NULL, "a"), 0);
	/* counters */
	assert_int_equal(cfg_ix_bs_refs(ix, "a"), 3); /* T, I1's, U */
	assert_int_equal(cfg_ix_bs_refs(ix, "b"), 2); /* T, the address ACL's */
	assert_int_equal(cfg_ix_bs_refs(ix, "c"), 1);
	assert_int_equal(cfg_ix_bs_refs(ix, "d"), 0);
	assert_int_equal(cfg_ix_rel_port(ix, 5), 2); /* T's 1 and U's 7 */
	assert_int_equal(cfg_ix_rel_port(ix, 6), 1);
	assert_int_equal(cfg_ix_rel_port(ix, 1), 0);
}

static void test_acl_key(void **state)
{
	const struct cfg_target *t = &((struct fx *)*state)->c->targets[0];
	char buf[CFG_ACL_KEY_MAX], small[12];

	assert_int_equal(cfg_acl_key(&t->acls[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, I1);
	assert_int_equal(cfg_acl_key(&t->acls[1], buf, sizeof(buf)), 0);
	assert_string_equal(buf, AD);
	/* too small for it: refused, not cut */
	assert_int_equal(cfg_acl_key(&t->acls[1], small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(cfg_acl_key(&t->acls[0], small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(cfg_acl_key(&t->acls[1], buf, strlen(AD) + 1), 0);
	assert_int_equal(cfg_acl_key(&t->acls[1], buf, strlen(AD)), -ENAMETOOLONG);
}

/* The first of duplicates wins (verification reports the later ones); a
 * later duplicate's removal leaves the first's entries. */
static void test_duplicates(void **state)
{
	struct cfg *c =
	    parse("{'version': 1, 'state_dir': '/srv/ut', 'backstores': ["
		  " {'name': 'a', 'type': 'file', 'path': 'x.img'},"
		  " {'name': 'a', 'type': 'ram', 'size': '1M'},"
		  " {'name': 'b', 'type': 'file', 'path': '/srv/ut/x.img'}],"
		  " 'targets': ["
		  " {'name': '" T "', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.1:1']},"
		  "                                    {'tag': 1, 'portals': ['127.0.0.1:2']}],"
		  "  'luns': [{'lun': 0, 'backstore': 'a'}, {'lun': 0, 'backstore': 'b'}]},"
		  " {'name': '" T "', 'portal_groups': [{'tag': 9, 'portals': ['127.0.0.1:3']}],"
		  "  'luns': [{'lun': 5, 'backstore': 'b'}]}]}");
	struct cfg_index *ix;

	(void)state;
	assert_int_equal(cfg_index_build(c, &ix), 0);
	assert_int_equal(cfg_ix_bs(ix, "a"), 0);
	/* the same file under two names: the path points at the first */
	assert_int_equal(cfg_ix_path(ix, "/srv/ut/x.img"), 0);
	assert_int_equal(cfg_ix_bs(ix, "b"), 2);
	assert_int_equal(cfg_ix_tpg(ix, T, 1), 0);
	assert_int_equal(cfg_ix_lun(ix, T, NULL, 0), 0);
	/* the second entry of LUN 0 is not indexed by LUN; by back-store it is */
	assert_int_equal(cfg_ix_lun_bs(ix, T, NULL, "b"), 1);
	/* a duplicate target: its children are not indexed */
	assert_int_equal(cfg_ix_target(ix, T), 0);
	assert_int_equal(cfg_ix_tpg(ix, T, 9), -1);
	assert_int_equal(cfg_ix_lun(ix, T, NULL, 5), -1);

	/* removing the duplicate back-store removes nothing */
	cfg_ix_del_bs(ix, c, &c->bs[1]);
	assert_int_equal(cfg_ix_bs(ix, "a"), 0);
	/* removing b leaves the path, which is a's */
	cfg_ix_del_bs(ix, c, &c->bs[2]);
	assert_int_equal(cfg_ix_bs(ix, "b"), -1);
	assert_int_equal(cfg_ix_path(ix, "/srv/ut/x.img"), 0);
	/* the first entry of LUN 0 goes, by LUN and by back-store; the
	 * duplicate's entry by back-store stays */
	cfg_ix_del_lun(ix, T, NULL, &c->targets[0].luns.v[0]);
	assert_int_equal(cfg_ix_lun(ix, T, NULL, 0), -1);
	assert_int_equal(cfg_ix_lun_bs(ix, T, NULL, "a"), -1);
	assert_int_equal(cfg_ix_lun_bs(ix, T, NULL, "b"), 1);
	cfg_index_free(ix);
	cfg_free(c);
}

/* A target goes with every child entry; the counters it held drop. */
static void test_del_target(void **state)
{
	struct fx *f = *state;
	struct cfg_target *t = &f->c->targets[0];

	cfg_ix_del_target(f->ix, t);
	assert_int_equal(cfg_ix_target(f->ix, T), -1);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 1), -1);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 2), -1);
	assert_int_equal(cfg_ix_acl(f->ix, T, I1), -1);
	assert_int_equal(cfg_ix_acl(f->ix, T, AD), -1);
	assert_int_equal(cfg_ix_acl(f->ix, T, I2), -1);
	assert_int_equal(cfg_ix_lun(f->ix, T, NULL, 0), -1);
	assert_int_equal(cfg_ix_lun(f->ix, T, I1, 3), -1);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, AD, "b"), -1);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 1); /* U's */
	assert_int_equal(cfg_ix_bs_refs(f->ix, "b"), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "c"), 0);
	assert_int_equal(cfg_ix_rel_port(f->ix, 5), 1);
	assert_int_equal(cfg_ix_rel_port(f->ix, 6), 0);
	/* the other target is untouched */
	assert_int_equal(cfg_ix_target(f->ix, U), 1);
	assert_int_equal(cfg_ix_lun(f->ix, U, NULL, 0), 0);
	/* and back */
	assert_int_equal(cfg_ix_put_target(f->ix, t, 0), 0);
	assert_int_equal(cfg_ix_target(f->ix, T), 0);
	assert_int_equal(cfg_ix_lun(f->ix, T, I1, 4), 1);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 3);
	assert_int_equal(cfg_ix_rel_port(f->ix, 5), 2);
	assert_int_equal(cfg_ix_rel_port(f->ix, 6), 1);
	/* a target already indexed: nothing added twice */
	assert_int_equal(cfg_ix_put_target(f->ix, t, 0), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 3);
}

static void test_del_children(void **state)
{
	struct fx *f = *state;
	struct cfg_target *t = &f->c->targets[0];

	/* an ACL with its own map */
	cfg_ix_del_acl(f->ix, t, &t->acls[0]);
	assert_int_equal(cfg_ix_acl(f->ix, T, I1), -1);
	assert_int_equal(cfg_ix_lun(f->ix, T, I1, 3), -1);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "c"), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 2);
	assert_int_equal(cfg_ix_acl(f->ix, T, I2), 2); /* positions are the caller's */
	assert_int_equal(cfg_ix_put_acl(f->ix, t, &t->acls[0], 0), 0);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, I1, "c"), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "c"), 1);
	/* a portal group: its relative port identifier's count drops */
	cfg_ix_del_tpg(f->ix, t, &t->tpgs[1]);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 2), -1);
	assert_int_equal(cfg_ix_rel_port(f->ix, 6), 0);
	assert_int_equal(cfg_ix_put_tpg(f->ix, t, &t->tpgs[1], 1), 0);
	assert_int_equal(cfg_ix_rel_port(f->ix, 6), 1);
	/* one LUN entry */
	cfg_ix_del_lun(f->ix, T, NULL, &t->luns.v[0]);
	assert_int_equal(cfg_ix_lun(f->ix, T, NULL, 0), -1);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, NULL, "a"), -1);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 2);
	assert_int_equal(cfg_ix_put_lun(f->ix, T, NULL, &t->luns.v[0], 0), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 3);
	/* a back-store and its path */
	cfg_ix_del_bs(f->ix, f->c, &f->c->bs[0]);
	assert_int_equal(cfg_ix_bs(f->ix, "a"), -1);
	assert_int_equal(cfg_ix_path(f->ix, "/srv/ut/a.img"), -1);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 3); /* the mappings' count stays */
	assert_int_equal(cfg_ix_put_bs(f->ix, f->c, &f->c->bs[0], 0), 0);
	assert_int_equal(cfg_ix_path(f->ix, "/srv/ut/a.img"), 0);
}

/* Moves: an entry follows its object; a missing one is not created. */
static void test_pos(void **state)
{
	struct fx *f = *state;
	struct cfg_target *t = &f->c->targets[0];

	cfg_ix_bs_pos(f->ix, f->c, &f->c->bs[0], 7);
	assert_int_equal(cfg_ix_bs(f->ix, "a"), 7);
	assert_int_equal(cfg_ix_path(f->ix, "/srv/ut/a.img"), 7);
	cfg_ix_target_pos(f->ix, t, 4);
	assert_int_equal(cfg_ix_target(f->ix, T), 4);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 1), 0); /* children keep theirs */
	cfg_ix_tpg_pos(f->ix, t, &t->tpgs[0], 3);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 1), 3);
	cfg_ix_acl_pos(f->ix, t, &t->acls[1], 9);
	assert_int_equal(cfg_ix_acl(f->ix, T, AD), 9);
	cfg_ix_lun_pos(f->ix, T, I1, &t->acls[0].luns.v[1], 5);
	assert_int_equal(cfg_ix_lun(f->ix, T, I1, 4), 5);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, I1, "a"), 5);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 3); /* counters do not move */
	/* not indexed: stays so */
	cfg_ix_del_tpg(f->ix, t, &t->tpgs[1]);
	cfg_ix_tpg_pos(f->ix, t, &t->tpgs[1], 1);
	assert_int_equal(cfg_ix_tpg(f->ix, T, 2), -1);
	cfg_ix_del_lun(f->ix, T, NULL, &t->luns.v[1]);
	cfg_ix_lun_pos(f->ix, T, NULL, &t->luns.v[1], 1);
	assert_int_equal(cfg_ix_lun(f->ix, T, NULL, 1), -1);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, NULL, "b"), -1);
}

/* Names longer than a key holds: never found, never indexed. */
static void test_too_long(void **state)
{
	struct fx *f = *state;
	char *name = malloc(CFG_FULL_PATH_MAX * 2);
	struct cfg_backstore b = {.name = name, .type = (char *)"ram"};
	struct cfg_acl a = {0};
	struct cfg_target t = {.name = (char *)T};
	char *addrs[200];

	memset(name, 'x', CFG_FULL_PATH_MAX * 2 - 1);
	name[CFG_FULL_PATH_MAX * 2 - 1] = '\0';
	assert_int_equal(cfg_ix_bs(f->ix, name), -1);
	assert_int_equal(cfg_ix_put_bs(f->ix, f->c, &b, 3), 0); /* first-wins: skipped */
	assert_int_equal(cfg_ix_bs(f->ix, name), -1);
	cfg_ix_del_bs(f->ix, f->c, &b);
	assert_int_equal(cfg_ix_target(f->ix, name), -1);
	assert_int_equal(cfg_ix_lun_bs(f->ix, T, NULL, name), -1);
	/* an ACL by address whose key does not fit CFG_ACL_KEY_MAX */
	for (size_t i = 0; i < 200; i++)
		addrs[i] = (char *)"192.168.100.100/32";
	a.addresses = addrs;
	a.naddresses = 200;
	assert_int_equal(cfg_ix_put_acl(f->ix, &t, &a, 0), -ENAMETOOLONG);
	cfg_ix_del_acl(f->ix, &t, &a);
	cfg_ix_acl_pos(f->ix, &t, &a, 1);
	assert_int_equal(cfg_ix_acl(f->ix, T, I1), 0);
	free(name);
}

/* An empty tree; NULL-safe free. */
static void test_empty(void **state)
{
	struct cfg *c = parse("{'version': 1}");
	struct cfg_index *ix;

	(void)state;
	assert_int_equal(cfg_index_build(c, &ix), 0);
	assert_int_equal(cfg_ix_bs(ix, "a"), -1);
	assert_int_equal(cfg_ix_bs_refs(ix, "a"), 0);
	cfg_index_free(ix);
	cfg_index_free(NULL);
	cfg_free(c);
}

int main(void)
{
#define TC(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TC(test_lookups),	   TC(test_acl_key), TC(test_duplicates), TC(test_del_target),
	    TC(test_del_children), TC(test_pos),     TC(test_too_long),	  TC(test_empty),
	};
#undef TC
	return cmocka_run_group_tests(tests, NULL, NULL);
}
