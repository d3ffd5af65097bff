/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/diff.c: for pairs of configurations A -> B,
 * the changes cfg_diff() computes, applied to A (change.c), give B
 * exactly (same dump); equal trees give no change; the changes touch only
 * what differs (the kinds are checked for a few edits); relative port
 * identifiers that B leaves out keep A's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/change.h"
#include "config/diff.h"

#define T "iqn.2026-12.org.utarget:t"
#define U "iqn.2026-12.org.utarget:u"

static const struct cfg_iscsi_settings defaults = {
    .max_burst_length = 1048576, .first_burst_length = 65536, .queue_depth = 128};

static struct cfg *load(const char *text)
{
	struct cfg_err err;
	struct cfg *c;

	if (cfg_parse(text, strlen(text), &defaults, &c, &err))
		fail_msg("parse: %s: %s", err.path, err.msg);
	if (cfg_validate(c, &err))
		fail_msg("verify: %s: %s", err.path, err.msg);
	return c;
}

/* Object lists in a fixed order (by their key): the order of a list carries
 * no meaning, and a change appends what it adds. */
static const char *const keys[] = {"name", "initiator", "tag", "lun", NULL};

static int by_key(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	for (size_t i = 0; keys[i]; i++) {
		json_t *u = json_object_get(x, keys[i]), *v = json_object_get(y, keys[i]);

		if (json_is_string(u) && json_is_string(v))
			return strcmp(json_string_value(u), json_string_value(v));
		if (json_is_integer(u) && json_is_integer(v))
			return (json_integer_value(u) > json_integer_value(v)) -
			       (json_integer_value(u) < json_integer_value(v));
	}
	return 0;
}

static void sort_lists(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i, n;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) sort_lists(v);
	} else if (json_is_array(j) && (n = json_array_size(j)) > 1 &&
		   json_is_object(json_array_get(j, 0))) {
		json_t **e = calloc(n, sizeof(*e));

		for (i = 0; i < n; i++) {
			e[i] = json_incref(json_array_get(j, i));
			sort_lists(e[i]);
		}
		qsort(e, n, sizeof(*e), by_key);
		json_array_clear(j);
		for (i = 0; i < n; i++)
			json_array_append_new(j, e[i]);
		free(e);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) sort_lists(v);
	}
}

static char *canonical(char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	char *out;

	free(text);
	assert_non_null(j);
	sort_lists(j);
	out = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(j);
	return out;
}

/* A -> B: returns the number of changes and their kinds in kinds[].
 * any_ids: relative port identifiers are not compared. */
static size_t diff_apply_ids(const char *a, const char *b, enum cfg_chg_kind *kinds, size_t nk,
			     bool any_ids)
{
	struct cfg *ca = load(a), *cb = load(b);
	struct cfg_index *ix;
	struct cfg_txn x;
	struct cfg_err err;
	size_t failed, n;
	char *da, *db;

	assert_int_equal(cfg_freeze_port_ids(ca), 0);
	assert_int_equal(cfg_index_build(ca, &ix), 0);
	assert_int_equal(cfg_diff(ca, ix, cb, &x), 0);
	n = x.n;
	for (size_t i = 0; i < n && i < nk; i++)
		kinds[i] = x.v[i]->kind;
	if (cfg_txn_apply(ca, ix, &x, &failed, &err))
		fail_msg("change %zu of %zu: %s: %s", failed, n, err.path, err.msg);
	/* B with A's identifiers frozen in: what the daemon then runs */
	assert_int_equal(cfg_freeze_port_ids(cb), 0);
	if (any_ids) {
		/* groups B leaves without an identifier may get other free ones
		 * than a fresh start would assign: both valid, compare the rest */
		for (size_t i = 0; i < ca->ntargets; i++)
			for (size_t g = 0; g < ca->targets[i].ntpgs; g++)
				ca->targets[i].tpgs[g].rel_port_id = 0;
		for (size_t i = 0; i < cb->ntargets; i++)
			for (size_t g = 0; g < cb->targets[i].ntpgs; g++)
				cb->targets[i].tpgs[g].rel_port_id = 0;
	}
	da = canonical(cfg_dump(ca));
	db = canonical(cfg_dump(cb));
	assert_string_equal(da, db);
	free(da);
	free(db);
	cfg_txn_clear(&x);
	cfg_index_free(ix);
	cfg_free(ca);
	cfg_free(cb);
	return n;
}

static size_t diff_apply(const char *a, const char *b, enum cfg_chg_kind *kinds, size_t nk)
{
	return diff_apply_ids(a, b, kinds, nk, false);
}

#define BS3                                                                                        \
	"\"backstores\": [{\"name\": \"a\", \"type\": \"ram\", \"size\": \"1M\"},"                 \
	" {\"name\": \"b\", \"type\": \"null\", \"size\": \"1M\"},"                                \
	" {\"name\": \"c\", \"type\": \"null\", \"size\": \"1M\"}]"
#define TPG1 "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]"

static const char A[] =
    "{\"version\": 1, " BS3 ", \"targets\": ["
    " {\"name\": \"" T "\", " TPG1 ", \"alias\": \"x\","
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}, {\"lun\": 1, \"backstore\": \"b\"}],"
    "  \"acls\": [{\"initiator\": \"iqn.2026-12.org.utarget:i1\","
    "              \"luns\": [{\"lun\": 0, \"backstore\": \"c\"}]},"
    "             {\"initiator\": \"iqn.2026-12.org.utarget:i2\"}]},"
    " {\"name\": \"" U "\", " TPG1 ", \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}]}]}";

static void test_equal(void **state)
{
	enum cfg_chg_kind k[8];

	(void)state;
	assert_int_equal(diff_apply(A, A, k, 8), 0);
}

/* One LUN added to U: one change, nothing on T. */
static void test_one_lun(void **state)
{
	enum cfg_chg_kind k[8];
	static const char B[] =
	    "{\"version\": 1, " BS3 ", \"targets\": ["
	    " {\"name\": \"" T "\", " TPG1 ", \"alias\": \"x\","
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}, {\"lun\": 1, \"backstore\": \"b\"}],"
	    "  \"acls\": [{\"initiator\": \"iqn.2026-12.org.utarget:i1\","
	    "              \"luns\": [{\"lun\": 0, \"backstore\": \"c\"}]},"
	    "             {\"initiator\": \"iqn.2026-12.org.utarget:i2\"}]},"
	    " {\"name\": \"" U "\", " TPG1 ", \"luns\": [{\"lun\": 0, \"backstore\": \"a\"},"
	    "   {\"lun\": 1, \"backstore\": \"c\"}]}]}";

	(void)state;
	assert_int_equal(diff_apply(A, B, k, 8), 1);
	assert_int_equal(k[0], CFG_CHG_LUN_ADD);
}

/* Many edits at once: a back-store removed (and its LUN), one added, LUN 0
 * moved to another back-store, an ACL switched to the target's map, the
 * other given its own, the alias changed, a portal group added and the old
 * one removed, a target removed and one added, a setting. */
static void test_everything(void **state)
{
	enum cfg_chg_kind k[32];
	static const char B[] =
	    "{\"version\": 1, \"log_level\": \"info\", \"iscsi\": {\"queue_depth\": 32},"
	    " \"backstores\": [{\"name\": \"a\", \"type\": \"ram\", \"size\": \"1M\"},"
	    " {\"name\": \"c\", \"type\": \"null\", \"size\": \"2M\"},"
	    " {\"name\": \"d\", \"type\": \"null\", \"size\": \"1M\"}],"
	    " \"targets\": ["
	    " {\"name\": \"" T "\", \"alias\": \"y\","
	    "  \"portal_groups\": [{\"tag\": 2, \"portals\": [\"[::1]:3260\"]}],"
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"d\"}, {\"lun\": 2, \"backstore\": \"a\","
	    "   \"read_only\": true}],"
	    "  \"acls\": [{\"initiator\": \"iqn.2026-12.org.utarget:i1\"},"
	    "             {\"initiator\": \"iqn.2026-12.org.utarget:i2\","
	    "              \"luns\": [{\"lun\": 3, \"backstore\": \"c\"}]}]},"
	    " {\"name\": \"iqn.2026-12.org.utarget:v\", " TPG1 ","
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}]}]}";

	(void)state;
	assert_true(diff_apply_ids(A, B, k, 32, true) > 10);
	assert_true(diff_apply_ids(B, A, k, 32, true) > 10);
}

/* The reverse, and a back-store swap between two LUNs of one map. */
static void test_reverse_and_swap(void **state)
{
	enum cfg_chg_kind k[16];
	static const char S[] =
	    "{\"version\": 1, " BS3 ", \"targets\": ["
	    " {\"name\": \"" T "\", " TPG1 ", \"alias\": \"x\","
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"b\"}, {\"lun\": 1, \"backstore\": \"a\"}],"
	    "  \"acls\": [{\"initiator\": \"iqn.2026-12.org.utarget:i1\","
	    "              \"luns\": [{\"lun\": 0, \"backstore\": \"c\"}]},"
	    "             {\"initiator\": \"iqn.2026-12.org.utarget:i2\"}]},"
	    " {\"name\": \"" U "\", " TPG1 ", \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}]}]}";

	(void)state;
	assert_int_equal(diff_apply(A, S, k, 16), 4); /* two removed, two added */
	assert_int_equal(k[0], CFG_CHG_LUN_DEL);
	assert_int_equal(k[3], CFG_CHG_LUN_ADD);
	assert_int_equal(diff_apply(S, A, k, 16), 4);
}

/* B without rel_port_id: the groups keep A's identifiers, even when B's
 * order would assign others (U first). */
static void test_rel_ports_kept(void **state)
{
	enum cfg_chg_kind k[8];
	static const char B[] =
	    "{\"version\": 1, " BS3 ", \"targets\": ["
	    " {\"name\": \"" U "\", " TPG1 ", \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}]},"
	    " {\"name\": \"" T "\", " TPG1 ", \"alias\": \"x\","
	    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}, {\"lun\": 1, \"backstore\": \"b\"}],"
	    "  \"acls\": [{\"initiator\": \"iqn.2026-12.org.utarget:i1\","
	    "              \"luns\": [{\"lun\": 0, \"backstore\": \"c\"}]},"
	    "             {\"initiator\": \"iqn.2026-12.org.utarget:i2\"}]}]}";
	struct cfg *ca = load(A), *cb = load(B);
	struct cfg_index *ix;
	struct cfg_txn x;

	(void)state;
	assert_int_equal(cfg_freeze_port_ids(ca), 0);
	assert_int_equal(cfg_index_build(ca, &ix), 0);
	assert_int_equal(cfg_diff(ca, ix, cb, &x), 0);
	/* only the order differs: nothing to change, identifiers kept */
	assert_int_equal(x.n, 0);
	assert_int_equal(cb->targets[0].tpgs[0].rel_port_id, 2);
	assert_int_equal(cb->targets[1].tpgs[0].rel_port_id, 1);
	cfg_txn_clear(&x);
	cfg_index_free(ix);
	cfg_free(ca);
	cfg_free(cb);
	(void)k;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_equal),	   cmocka_unit_test(test_one_lun),
	    cmocka_unit_test(test_everything),	   cmocka_unit_test(test_reverse_and_swap),
	    cmocka_unit_test(test_rel_ports_kept),
	};
	struct cfg_iscsi_settings d = defaults;

	cfg_chg_set_defaults(&d);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
