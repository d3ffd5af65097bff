/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The method schema in the repository (docs/rpc-schema.json) against the
 * methods the daemon implements (src/rpc's table, as rpc.methods answers):
 * the same methods; for each, the same parameters with the same types and
 * required flags, the same "mutating" flag, the same config object kind;
 * the schema's object definitions list exactly the fields the config
 * parser accepts (cfg_object_fields()), and a method taking an object takes
 * those fields but its "except" and its own parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "rpc/rpc.h"

static json_t *schema, *impl;

static int setup(void **state)
{
	json_error_t e;

	(void)state;
	schema = json_load_file(SOURCE_ROOT "/docs/rpc-schema.json", JSON_REJECT_DUPLICATES, &e);
	if (!schema)
		fprintf(stderr, "rpc-schema.json:%d: %s\n", e.line, e.text);
	impl = rpc_methods_json();
	return schema && impl ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(schema);
	json_decref(impl);
	return 0;
}

static const char *kind_name(enum cfg_obj_kind k)
{
	static const char *const names[] = {
	    [CFG_OBJ_ROOT] = "settings", [CFG_OBJ_BACKSTORE] = "backstore",
	    [CFG_OBJ_TARGET] = "target", [CFG_OBJ_PORTAL_GROUP] = "portal_group",
	    [CFG_OBJ_ACL] = "acl",	 [CFG_OBJ_LUN] = "lun",
	};
	return names[k];
}

static bool array_has(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v) if (json_string_value(v) &&
					!strcmp(json_string_value(v), s)) return true;
	return false;
}

/* Same methods both ways. */
static void test_same_methods(void **state)
{
	json_t *sm = json_object_get(schema, "methods"), *im = json_object_get(impl, "methods");
	const char *name;
	json_t *v;

	(void)state;
	assert_non_null(sm);
	json_object_foreach(im, name, v)
	{
		if (!json_object_get(sm, name))
			fail_msg("implemented but not in docs/rpc-schema.json: %s", name);
	}
	json_object_foreach(sm, name, v)
	{
		if (!json_object_get(im, name))
			fail_msg("in docs/rpc-schema.json but not implemented: %s", name);
	}
	assert_int_equal(json_object_size(sm), json_object_size(im));
}

/* Parameters, types, required, mutating, object kind and fields. */
static void test_same_params(void **state)
{
	json_t *sm = json_object_get(schema, "methods"), *im = json_object_get(impl, "methods");
	json_t *defs = json_object_get(schema, "definitions");
	const char *name;
	json_t *m;

	(void)state;
	json_object_foreach(im, name, m)
	{
		json_t *s = json_object_get(sm, name), *ip = json_object_get(m, "params");
		json_t *sp = json_object_get(s, "params"), *pv;
		const char *pn;

		if (!s)
			continue; /* reported above */
		if (json_object_size(ip) != json_object_size(sp))
			fail_msg("%s: %zu parameters implemented, %zu in the schema", name,
				 json_object_size(ip), json_object_size(sp));
		json_object_foreach(ip, pn, pv)
		{
			json_t *q = json_object_get(sp, pn);

			if (!q)
				fail_msg("%s: parameter %s not in the schema", name, pn);
			if (!json_equal(json_object_get(q, "type"), json_object_get(pv, "type")))
				fail_msg("%s.%s: type %s in the schema, %s implemented", name, pn,
					 json_string_value(json_object_get(q, "type")),
					 json_string_value(json_object_get(pv, "type")));
			if (json_is_true(json_object_get(q, "required")) !=
			    json_is_true(json_object_get(pv, "required")))
				fail_msg("%s.%s: required differs", name, pn);
		}
		if (json_is_true(json_object_get(s, "mutating")) !=
		    json_is_true(json_object_get(m, "mutating")))
			fail_msg("%s: mutating differs", name);
		if ((json_object_get(s, "object") || json_object_get(m, "object")) &&
		    !json_equal(json_object_get(s, "object"), json_object_get(m, "object")))
			fail_msg("%s: object kind differs", name);
		if (json_object_get(m, "object")) {
			/* definitions.<kind>.fields - except - params == implemented fields */
			json_t *all = json_object_get(
			    json_object_get(defs, json_string_value(json_object_get(m, "object"))),
			    "fields");
			json_t *exc = json_object_get(s, "except"), *f, *impl_f;
			size_t i, n = 0;

			impl_f = json_object_get(m, "fields");
			json_array_foreach(all, i, f)
			{
				const char *fn = json_string_value(f);

				if (array_has(exc, fn) || json_object_get(sp, fn))
					continue;
				n++;
				if (!array_has(impl_f, fn))
					fail_msg(
					    "%s: the schema says it takes field %s; it does not",
					    name, fn);
			}
			if (n != json_array_size(impl_f))
				fail_msg("%s: takes %zu object fields, the schema %zu", name,
					 json_array_size(impl_f), n);
		}
	}
}

/* The object definitions are the config parser's field lists. */
static void test_definitions(void **state)
{
	json_t *defs = json_object_get(schema, "definitions");

	(void)state;
	for (int k = CFG_OBJ_ROOT; k <= CFG_OBJ_LUN; k++) {
		const char *const *f = cfg_object_fields((enum cfg_obj_kind)k);
		json_t *sf = json_object_get(json_object_get(defs, kind_name(k)), "fields");
		size_t n = 0;

		assert_non_null(sf);
		for (; f[n]; n++)
			if (!array_has(sf, f[n]))
				fail_msg("definitions.%s lacks field %s (the config accepts it)",
					 kind_name(k), f[n]);
		if (n != json_array_size(sf))
			fail_msg("definitions.%s lists %zu fields, the config accepts %zu",
				 kind_name(k), json_array_size(sf), n);
	}
}

/* Every method handled by the table answers rpc.methods. */
static void test_table_lookup(void **state)
{
	(void)state;
	assert_non_null(rpc_method_find("lun.add"));
	assert_null(rpc_method_find("lun.nope"));
	for (size_t t = 0; rpc_methods[t]; t++)
		for (const struct rpc_method *m = rpc_methods[t]; m->name; m++)
			assert_ptr_equal(rpc_method_find(m->name), m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_methods),
	    cmocka_unit_test(test_same_params),
	    cmocka_unit_test(test_definitions),
	    cmocka_unit_test(test_table_lookup),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
