/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/change.c (and the index it keeps, index.c):
 * every change kind applied to a tree and undone exactly (the dump is
 * byte-equal again), the refusals (exists, missing, in use, rules), the
 * journal form round trip, transactions undone as a whole, and a random
 * sequence of changes undone in reverse.
 *
 *   tree: back-stores a (ram), b (null), c (null); target T (TPG 1 rel 1,
 *   LUNs 0=a 1=b, ACL i1 with its own map 0=c, ACL i2 on the target's map);
 *   target U (TPG 1, LUN 0=a)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/change.h"
#include "config/config.h"

#define T  "iqn.2026-12.org.utarget:t"
#define U  "iqn.2026-12.org.utarget:u"
#define I1 "iqn.2026-12.org.utarget:i1"
#define I2 "iqn.2026-12.org.utarget:i2"

static const char base_cfg[] =
    "{\"version\": 1, \"backstores\": ["
    " {\"name\": \"a\", \"type\": \"ram\", \"size\": \"1M\"},"
    " {\"name\": \"b\", \"type\": \"null\", \"size\": \"1M\"},"
    " {\"name\": \"c\", \"type\": \"null\", \"size\": \"1M\"}],"
    " \"targets\": ["
    " {\"name\": \"" T "\", \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}],"
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}, {\"lun\": 1, \"backstore\": \"b\"}],"
    "  \"acls\": [{\"initiator\": \"" I1 "\", \"luns\": [{\"lun\": 0, \"backstore\": \"c\"}]},"
    "           {\"initiator\": \"" I2 "\"}]},"
    " {\"name\": \"" U "\", \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}],"
    "  \"luns\": [{\"lun\": 0, \"backstore\": \"a\"}]}]}";

struct fx {
	struct cfg *c;
	struct cfg_index *ix;
	char *dump;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct cfg_iscsi_settings d = {.max_burst_length = 1048576, .first_burst_length = 65536};
	struct cfg_err err;

	cfg_chg_set_defaults(&d);
	assert_int_equal(cfg_parse(base_cfg, strlen(base_cfg), &d, &f->c, &err), 0);
	assert_int_equal(cfg_validate(f->c, &err), 0);
	assert_int_equal(cfg_freeze_port_ids(f->c), 0);
	assert_int_equal(cfg_index_build(f->c, &f->ix), 0);
	f->dump = cfg_dump(f->c);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	free(f->dump);
	cfg_index_free(f->ix);
	cfg_free(f->c);
	free(f);
	return 0;
}

/* The tree is back to what it was (and its index agrees with a fresh one
 * on a few lookups). */
static void assert_unchanged(struct fx *f)
{
	char *d = cfg_dump(f->c);

	assert_string_equal(d, f->dump);
	free(d);
	assert_int_equal(cfg_ix_bs(f->ix, "c"), 2);
	assert_int_equal(cfg_ix_target(f->ix, U), 1);
	assert_int_equal(cfg_ix_lun(f->ix, T, NULL, 1), 1);
	assert_int_equal(cfg_ix_lun(f->ix, T, I1, 0), 0);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "a"), 2);
	assert_int_equal(cfg_ix_acl(f->ix, T, I2), 1);
}

/* A change from its journal form. */
static struct cfg_chg *chg(const char *json)
{
	json_error_t e;
	json_t *j = json_loads(json, 0, &e);
	struct cfg_chg *ch = NULL;
	struct cfg_err err;

	assert_non_null(j);
	assert_int_equal(cfg_chg_from_json(j, &ch, &err), 0);
	json_decref(j);
	return ch;
}

/* Apply, check with fn, undo, check unchanged. */
static void apply_undo(struct fx *f, const char *json, void (*check)(struct fx *f))
{
	struct cfg_chg *ch = chg(json);
	struct cfg_err err;
	int rc = cfg_chg_apply(f->c, f->ix, ch, &err);

	if (rc)
		fail_msg("%s: %d %s: %s", json, rc, err.path, err.msg);
	if (check)
		check(f);
	cfg_chg_undo(f->c, f->ix, ch);
	assert_unchanged(f);
	cfg_chg_free(ch);
}

static int apply_err(struct fx *f, const char *json)
{
	struct cfg_chg *ch = chg(json);
	struct cfg_err err;
	int rc = cfg_chg_apply(f->c, f->ix, ch, &err);

	assert_true(rc != 0);
	assert_true(err.msg[0] != '\0');
	assert_unchanged(f);
	cfg_chg_free(ch);
	return rc;
}

/* The refusal's message (and path) of a change that must fail with rc. */
static void apply_err_msg(struct fx *f, const char *json, int rc, const char *path, const char *msg)
{
	struct cfg_chg *ch = chg(json);
	struct cfg_err err;

	assert_int_equal(cfg_chg_apply(f->c, f->ix, ch, &err), rc);
	assert_string_equal(err.path, path);
	assert_string_equal(err.msg, msg);
	assert_unchanged(f);
	cfg_chg_free(ch);
}

static void check_bs_add(struct fx *f)
{
	assert_int_equal(f->c->nbs, 4);
	assert_int_equal(cfg_ix_bs(f->ix, "d"), 3);
}

static void check_bs_del(struct fx *f)
{
	assert_int_equal(f->c->nbs, 2);
	assert_int_equal(cfg_ix_bs(f->ix, "b"), -1);
	assert_int_equal(cfg_ix_bs(f->ix, "c"), 1); /* moved down */
}

static void check_lun_add(struct fx *f)
{
	assert_int_equal(f->c->targets[0].luns.n, 3);
	assert_int_equal(cfg_ix_lun(f->ix, T, NULL, 7), 2);
	assert_int_equal(cfg_ix_bs_refs(f->ix, "c"), 2);
}

static void check_tgt_set(struct fx *f)
{
	assert_string_equal(f->c->targets[0].alias, "new");
	assert_int_equal(f->c->targets[0].luns.n, 2); /* children stay */
	assert_int_equal(f->c->targets[0].nacls, 2);
}

static void check_tgt_add(struct fx *f)
{
	assert_int_equal(f->c->ntargets, 3);
	/* no rel_port_id given: the smallest free one (1 and 2 are taken) */
	assert_int_equal(f->c->targets[2].tpgs[0].rel_port_id, 3);
	assert_int_equal(cfg_ix_rel_port(f->ix, 3), 1);
}

static void test_each_kind(void **state)
{
	struct fx *f = *state;

	apply_undo(f,
		   "{\"op\":\"backstore.add\",\"object\":{\"name\":\"d\",\"type\":\"null\","
		   "\"size\":\"1M\"}}",
		   check_bs_add);
	apply_undo(f,
		   "{\"op\":\"backstore.set\",\"name\":\"b\",\"object\":{\"name\":\"b\","
		   "\"type\":\"null\",\"size\":\"2M\",\"thin\":true}}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"lun.add\",\"target\":\"" T "\",\"object\":{\"lun\":7,"
		   "\"backstore\":\"c\"}}",
		   check_lun_add);
	apply_undo(f,
		   "{\"op\":\"lun.set\",\"target\":\"" T "\",\"lun\":1,\"object\":{\"lun\":1,"
		   "\"backstore\":\"c\",\"read_only\":true}}",
		   NULL);
	apply_undo(f, "{\"op\":\"lun.delete\",\"target\":\"" T "\",\"lun\":0}", NULL);
	apply_undo(f,
		   "{\"op\":\"lun.add\",\"target\":\"" T "\",\"initiator\":\"" I1 "\","
		   "\"object\":{\"lun\":3,\"backstore\":\"a\"}}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"acl.add\",\"target\":\"" T "\",\"object\":{\"initiator\":"
		   "\"iqn.2026-12.org.utarget:i3\"}}",
		   NULL);
	apply_undo(f, "{\"op\":\"acl.delete\",\"target\":\"" T "\",\"initiator\":\"" I1 "\"}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"acl.set\",\"target\":\"" T "\",\"initiator\":\"" I2 "\","
		   "\"object\":{\"initiator\":\"" I2
		   "\",\"luns\":[{\"lun\":9,\"backstore\":\"b\"}]}}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"portal_group.add\",\"target\":\"" T "\",\"object\":{\"tag\":2,"
		   "\"portals\":[\"[::1]:3260\"]}}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"portal_group.set\",\"target\":\"" T "\",\"tag\":1,\"object\":"
		   "{\"tag\":1,\"portals\":[\"127.0.0.1:3261\"]}}",
		   NULL);
	apply_undo(f,
		   "{\"op\":\"target.set\",\"target\":\"" T "\",\"object\":{\"name\":\"" T "\","
		   "\"alias\":\"new\"}}",
		   check_tgt_set);
	apply_undo(f, "{\"op\":\"target.delete\",\"target\":\"" T "\"}", NULL);
	apply_undo(f,
		   "{\"op\":\"target.add\",\"object\":{\"name\":\"iqn.2026-12.org.utarget:v\","
		   "\"portal_groups\":[{\"tag\":1,\"portals\":[\"127.0.0.1:3262\"]}],"
		   "\"luns\":[{\"lun\":0,\"backstore\":\"b\"}]}}",
		   check_tgt_add);
	apply_undo(f,
		   "{\"op\":\"settings.set\",\"object\":{\"log_level\":\"debug\","
		   "\"iscsi\":{\"queue_depth\":32}}}",
		   NULL);
	/* deleting b once unmapped, in one transaction */
	struct cfg_txn x = {0};
	struct cfg_err err;
	size_t failed;

	assert_int_equal(cfg_txn_add(&x, chg("{\"op\":\"lun.delete\",\"target\":\"" T "\","
					     "\"lun\":1}")),
			 0);
	assert_int_equal(cfg_txn_add(&x, chg("{\"op\":\"backstore.delete\",\"name\":\"b\"}")), 0);
	assert_int_equal(cfg_txn_apply(f->c, f->ix, &x, &failed, &err), 0);
	check_bs_del(f);
	cfg_txn_undo(f->c, f->ix, &x);
	assert_unchanged(f);
	cfg_txn_clear(&x);
}

static void test_refusals(void **state)
{
	struct fx *f = *state;

	assert_int_equal(apply_err(f, "{\"op\":\"backstore.add\",\"object\":{\"name\":\"a\","
				      "\"type\":\"null\",\"size\":\"1M\"}}"),
			 -EEXIST);
	assert_int_equal(apply_err(f, "{\"op\":\"backstore.delete\",\"name\":\"zz\"}"), -ENOENT);
	assert_int_equal(apply_err(f, "{\"op\":\"backstore.delete\",\"name\":\"a\"}"), -EBUSY);
	/* an in-use refusal names the LUNs as the CLI does, not backstores[N] */
	apply_err_msg(f, "{\"op\":\"backstore.delete\",\"name\":\"a\"}", -EBUSY, "",
		      "back-store \"a\" is mapped at LUN 0 of " T ", LUN 0 of " U
		      "; unmap it first");
	apply_err_msg(f, "{\"op\":\"backstore.delete\",\"name\":\"c\"}", -EBUSY, "",
		      "back-store \"c\" is mapped at LUN 0 of " T " (own map of " I1
		      "); unmap it first");
	assert_int_equal(apply_err(f, "{\"op\":\"backstore.add\",\"object\":{\"name\":\"e\","
				      "\"type\":\"null\",\"size\":\"1M\",\"block_size\":3000}}"),
			 -EINVAL);
	assert_int_equal(apply_err(f, "{\"op\":\"lun.add\",\"target\":\"" T "\",\"object\":"
				      "{\"lun\":5,\"backstore\":\"nope\"}}"),
			 -EINVAL);
	/* a back-store once per map */
	assert_int_equal(apply_err(f, "{\"op\":\"lun.add\",\"target\":\"" T "\",\"object\":"
				      "{\"lun\":5,\"backstore\":\"a\"}}"),
			 -EINVAL);
	assert_int_equal(apply_err(f, "{\"op\":\"lun.add\",\"target\":\"" T "\",\"object\":"
				      "{\"lun\":0,\"backstore\":\"c\"}}"),
			 -EEXIST);
	/* an ACL on the target's map has no map of its own to add to */
	assert_int_equal(apply_err(f, "{\"op\":\"lun.add\",\"target\":\"" T "\",\"initiator\":"
				      "\"" I2 "\",\"object\":{\"lun\":5,\"backstore\":\"c\"}}"),
			 -EINVAL);
	assert_int_equal(apply_err(f, "{\"op\":\"portal_group.delete\",\"target\":\"" T "\","
				      "\"tag\":1}"),
			 -EINVAL); /* the last one */
	assert_int_equal(apply_err(f, "{\"op\":\"portal_group.add\",\"target\":\"" T "\","
				      "\"object\":{\"tag\":2,\"rel_port_id\":2,"
				      "\"portals\":[\"127.0.0.1:1\"]}}"),
			 -EINVAL); /* U's group has rel_port_id 2 */
	assert_int_equal(apply_err(f,
				   "{\"op\":\"target.add\",\"object\":{\"name\":\"bad name\","
				   "\"portal_groups\":[{\"tag\":1,\"portals\":[\"1.2.3.4:1\"]}]}}"),
			 -EINVAL);
	assert_int_equal(apply_err(f, "{\"op\":\"target.set\",\"target\":\"" T "\",\"object\":"
				      "{\"name\":\"" U "\"}}"),
			 -EINVAL); /* no renaming */
	assert_int_equal(apply_err(f, "{\"op\":\"settings.set\",\"object\":{\"state_dir\":"
				      "\"/elsewhere\"}}"),
			 -EINVAL);
	/* the metrics endpoint needs a restart too */
	assert_int_equal(apply_err(f, "{\"op\":\"settings.set\",\"object\":{\"metrics\":"
				      "{\"listen\":\"127.0.0.1:9470\"}}}"),
			 -EINVAL);
	assert_int_equal(apply_err(f, "{\"op\":\"settings.set\",\"object\":{\"iscsi\":"
				      "{\"first_burst_length\":2000000}}}"),
			 -EINVAL);

	/* a transaction failing at its second change undoes its first */
	struct cfg_txn x = {0};
	struct cfg_err err;
	size_t failed = 99;

	assert_int_equal(cfg_txn_add(&x, chg("{\"op\":\"backstore.add\",\"object\":{\"name\":"
					     "\"d\",\"type\":\"null\",\"size\":\"1M\"}}")),
			 0);
	assert_int_equal(cfg_txn_add(&x, chg("{\"op\":\"lun.add\",\"target\":\"" T "\","
					     "\"object\":{\"lun\":1,\"backstore\":\"d\"}}")),
			 0);
	assert_int_equal(cfg_txn_apply(f->c, f->ix, &x, &failed, &err), -EEXIST);
	assert_int_equal(failed, 1);
	assert_unchanged(f);
	cfg_txn_clear(&x);
}

/* The journal form of a change applied gives the same tree as the change. */
static void test_journal_form(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *a = chg("{\"op\":\"acl.set\",\"target\":\"" T "\",\"initiator\":\"" I1 "\","
				"\"object\":{\"initiator\":\"" I1 "\",\"luns\":[{\"lun\":4,"
				"\"backstore\":\"b\",\"read_only\":true}]}}");
	struct cfg_chg *b = NULL;
	struct cfg_err err;
	char *d1, *d2;

	assert_int_equal(cfg_chg_to_json(a), 0);
	assert_int_equal(cfg_chg_from_json(a->json, &b, &err), 0);
	assert_int_equal(cfg_chg_apply(f->c, f->ix, a, &err), 0);
	d1 = cfg_dump(f->c);
	cfg_chg_undo(f->c, f->ix, a);
	assert_int_equal(cfg_chg_apply(f->c, f->ix, b, &err), 0);
	d2 = cfg_dump(f->c);
	assert_string_equal(d1, d2);
	cfg_chg_undo(f->c, f->ix, b);
	assert_unchanged(f);
	free(d1);
	free(d2);
	cfg_chg_free(a);
	cfg_chg_free(b);
}

/* Random changes (many refused, which must change nothing), then all undone
 * in reverse: the tree is what it was, and the index agrees with one built
 * afresh at every step. */
static void test_random_undo(void **state)
{
	struct fx *f = *state;
	struct cfg_chg *done[400];
	size_t n = 0;
	char json[512];

	srand(7);
	for (int i = 0; i < 400; i++) {
		int op = rand() % 6, k = rand() % 12;
		struct cfg_chg *ch;
		struct cfg_err err;

		switch (op) {
		case 0:
			snprintf(json, sizeof(json),
				 "{\"op\":\"backstore.add\",\"object\":{\"name\":\"r%d\",\"type\":"
				 "\"null\",\"size\":\"1M\"}}",
				 k);
			break;
		case 1:
			snprintf(json, sizeof(json),
				 "{\"op\":\"backstore.delete\",\"name\":\"r%d\"}", k);
			break;
		case 2:
			snprintf(json, sizeof(json),
				 "{\"op\":\"lun.add\",\"target\":\"" U "\",\"object\":{\"lun\":%d,"
				 "\"backstore\":\"r%d\"}}",
				 k + 1, rand() % 12);
			break;
		case 3:
			snprintf(json, sizeof(json),
				 "{\"op\":\"lun.delete\",\"target\":\"" U "\",\"lun\":%d}", k + 1);
			break;
		case 4:
			snprintf(json, sizeof(json),
				 "{\"op\":\"acl.add\",\"target\":\"" U
				 "\",\"object\":{\"initiator\":"
				 "\"iqn.2026-12.org.utarget:r%d\",\"luns\":[{\"lun\":0,"
				 "\"backstore\":\"c\"}]}}",
				 k);
			break;
		default:
			snprintf(json, sizeof(json),
				 "{\"op\":\"acl.delete\",\"target\":\"" U "\",\"initiator\":"
				 "\"iqn.2026-12.org.utarget:r%d\"}",
				 k);
			break;
		}
		ch = chg(json);
		if (cfg_chg_apply(f->c, f->ix, ch, &err) == 0) {
			struct cfg_index *fresh;

			done[n++] = ch;
			/* spot checks against a fresh index */
			assert_int_equal(cfg_index_build(f->c, &fresh), 0);
			for (int j = 0; j < 12; j++) {
				char name[16];

				snprintf(name, sizeof(name), "r%d", j);
				assert_int_equal(cfg_ix_bs(f->ix, name), cfg_ix_bs(fresh, name));
				assert_int_equal(cfg_ix_bs_refs(f->ix, name),
						 cfg_ix_bs_refs(fresh, name));
				assert_int_equal(cfg_ix_lun(f->ix, U, NULL, (uint32_t)j + 1),
						 cfg_ix_lun(fresh, U, NULL, (uint32_t)j + 1));
			}
			cfg_index_free(fresh);
		} else {
			cfg_chg_free(ch);
		}
	}
	assert_true(n > 50);
	while (n-- > 0) {
		cfg_chg_undo(f->c, f->ix, done[n]);
		cfg_chg_free(done[n]);
	}
	assert_unchanged(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_each_kind, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_journal_form, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_random_undo, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
