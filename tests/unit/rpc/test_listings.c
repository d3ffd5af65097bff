/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for what the control API lists of the running side
 * (src/rpc/methods_backstore.c), against fakes of what it reads through
 * the public interfaces:
 *   - backstore.list / backstore.get: current_size, the logical unit's size
 *     now (scsi_lu_size() of cfg_ctl_lu()), also for a file back-store
 *     without a configured size; none for a back-store nothing runs.
 *
 * Set-up: the real method table of that file, the other tables empty; the
 * config tree parsed from text with its index (config/ctl.h's
 * cfg_ctl_tree() and cfg_ctl_index() answer them), fake_ctl.c for the
 * server's side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"
#include "ut_text.h"

const struct rpc_method rpc_methods_config[] = {{0}};
const struct rpc_method rpc_methods_session[] = {{0}};
const struct rpc_method rpc_methods_target[] = {{0}};
const struct rpc_method rpc_methods_alua[] = {{0}};
const struct rpc_method rpc_methods_reservation[] = {{0}};

/* ---- the config's running side (config/ctl.h) and the core ---- */
static struct cfg *tree;
static struct cfg_index *ix;
static struct scsi_lu *const imp_lu = (struct scsi_lu *)&tree; /* any address */

const struct cfg *cfg_ctl_tree(void)
{
	return tree;
}

const struct cfg_index *cfg_ctl_index(void)
{
	return ix;
}

/* "imp" runs (its image's size: 3 MiB + 512), "idle" does not */
struct scsi_lu *cfg_ctl_lu(const char *backstore)
{
	return backstore && !strcmp(backstore, "imp") ? imp_lu : NULL;
}

uint64_t scsi_lu_size(const struct scsi_lu *lu)
{
	assert_ptr_equal(lu, imp_lu);
	return 3146240;
}

static int setup(void **state)
{
	static const char text[] =
	    "{\"version\": 1, \"state_dir\": \"/tmp\", \"backstores\": ["
	    "{\"name\": \"imp\", \"type\": \"file\", \"path\": \"/srv/imp.img\"},"
	    "{\"name\": \"idle\", \"type\": \"ram\", \"size\": \"8M\"}]}";
	struct cfg_err err;

	(void)state;
	assert_int_equal(cfg_parse(text, strlen(text), NULL, &tree, &err), 0);
	assert_int_equal(cfg_index_build(tree, &ix), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cfg_index_free(ix);
	cfg_free(tree);
	return 0;
}

/* The answer of method with params (JSON, ' for "); a new reference. */
static json_t *call(const char *method, const char *params)
{
	struct rpc_call c = {.m = rpc_method_find(method)};
	char *text = ut_dq(params);
	json_t *res;

	assert_non_null(c.m);
	c.params = json_loads(text, 0, NULL);
	assert_non_null(c.params);
	free(text);
	assert_int_equal(rpc_check_params(&c), 0);
	assert_int_equal(rpc_call_run(&c), 0);
	res = json_incref(c.result);
	json_decref(c.params);
	rpc_call_clear(&c);
	assert_non_null(res);
	return res;
}

static json_int_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void test_backstore_current_size(void **state)
{
	json_t *a, *b;

	(void)state;
	a = call("backstore.list", "{}");
	assert_int_equal(json_array_size(a), 2);
	/* no size in the config: the running LU's */
	b = json_array_get(a, 0);
	assert_string_equal(jstr(b, "name"), "imp");
	assert_null(json_object_get(b, "size"));
	assert_int_equal(jint(b, "current_size"), 3146240);
	/* nothing runs it: the configured size only */
	b = json_array_get(a, 1);
	assert_string_equal(jstr(b, "size"), "8M");
	assert_null(json_object_get(b, "current_size"));
	json_decref(a);
	b = call("backstore.get", "{'name': 'imp'}");
	assert_int_equal(jint(b, "current_size"), 3146240);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backstore_current_size),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
