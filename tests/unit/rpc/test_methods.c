/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/rpc/methods.c: finding a method in the tables,
 * checking parameters against its entry (unknown, missing, mistyped; the
 * fields of a config object it takes), the normalization of iSCSI names,
 * the method list as rpc.methods answers it, and the helpers methods use
 * (changes, objects, merges, sizes).
 *
 * Set-up: a table of test methods in place of the real ones (server.c is
 * linked for rpc_fail(), with the config layer faked, fake_ctl.c):
 *   m.types  one parameter of every type, "req" required
 *   m.lun    takes a LUN's fields but "read_only", and "target" (required)
 *   m.names  "target", "initiator", "name" (strings)
 *   m.other  in another table (session methods) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/methods.c"
#include "ut_text.h"

static int runs;

static int m_run(struct rpc_call *call)
{
	runs++;
	call->result = json_object();
	return 0;
}

static const struct rpc_param p_types[] = {
    {"s", RPC_T_STRING, false}, {"i", RPC_T_INTEGER, false}, {"b", RPC_T_BOOLEAN, false},
    {"o", RPC_T_OBJECT, false}, {"a", RPC_T_ARRAY, false},   {"z", RPC_T_SIZE, false},
    {"any", RPC_T_ANY, false},	{"req", RPC_T_STRING, true}, {0},
};
static const struct rpc_param p_lun[] = {
    {"target", RPC_T_STRING, true}, {"initiator", RPC_T_STRING, false}, {0}};
static const struct rpc_param p_names[] = {
    {"target", RPC_T_STRING, false},
    {"initiator", RPC_T_STRING, false},
    {"name", RPC_T_STRING, false},
    {0},
};
static const char *const lun_except[] = {"read_only", NULL};

const struct rpc_method rpc_methods_config[] = {
    {.name = "m.types", .fn = m_run, .params = p_types},
    {.name = "m.lun",
     .fn = m_run,
     .mutating = true,
     .params = p_lun,
     .object = true,
     .kind = CFG_OBJ_LUN,
     .except = lun_except},
    {.name = "m.names", .fn = m_run, .params = p_names},
    {0},
};
const struct rpc_method rpc_methods_session[] = {{.name = "m.other", .fn = m_run}, {0}};
const struct rpc_method rpc_methods_backstore[] = {{0}};
const struct rpc_method rpc_methods_target[] = {{0}};
const struct rpc_method rpc_methods_alua[] = {{0}};
const struct rpc_method rpc_methods_reservation[] = {{0}};
const struct rpc_method rpc_methods_stats[] = {{0}};
const struct rpc_method rpc_methods_isns[] = {{0}};

/* A call of method name with params (JSON, ' for "). */
static struct rpc_call mk(const char *name, const char *params)
{
	struct rpc_call c = {.m = rpc_method_find(name)};
	char *text = ut_dq(params);

	assert_non_null(c.m);
	c.params = json_loads(text, 0, NULL);
	assert_non_null(c.params);
	free(text);
	return c;
}

/* The error a call of name with params gets from the checks ("" for none). */
static const char *check(const char *name, const char *params, int *code, json_t **data)
{
	static char msg[sizeof(((struct rpc_call *)0)->msg)];
	struct rpc_call c = mk(name, params);

	msg[0] = '\0';
	if (rpc_check_params(&c)) {
		assert_int_equal(c.code, RPC_INVALID_PARAMS);
		snprintf(msg, sizeof(msg), "%s", c.msg);
	}
	if (code)
		*code = c.code;
	if (data)
		*data = json_incref(c.data);
	rpc_call_clear(&c);
	return msg;
}

static const char *data_str(const json_t *data, const char *key)
{
	return json_string_value(json_object_get(data, key));
}

static void test_find(void **state)
{
	(void)state;
	assert_string_equal(rpc_method_find("m.types")->name, "m.types");
	assert_string_equal(rpc_method_find("m.other")->name, "m.other");
	assert_null(rpc_method_find("m"));
	assert_null(rpc_method_find("m.types.x"));
	assert_null(rpc_method_find(""));
}

static void test_types(void **state)
{
	static const struct {
		const char *params, *msg, *expected;
	} bad[] = {
	    {"{'req': 1}", "parameter \"req\" must be a string", "string"},
	    {"{'req': '', 'i': '1'}", "parameter \"i\" must be an integer", "integer"},
	    {"{'req': '', 'i': 1.5}", "parameter \"i\" must be an integer", "integer"},
	    {"{'req': '', 'b': 1}", "parameter \"b\" must be a boolean", "boolean"},
	    {"{'req': '', 'o': []}", "parameter \"o\" must be an object", "object"},
	    {"{'req': '', 'a': {}}", "parameter \"a\" must be an array", "array"},
	    {"{'req': '', 'z': true}", "parameter \"z\" must be a size", "size"},
	    {"{'req': '', 's': null}", "parameter \"s\" must be a string", "string"},
	};
	json_t *data;

	(void)state;
	assert_string_equal(check("m.types",
				  "{'req': '', 's': 'x', 'i': -3, 'b': false, 'o': {}, "
				  "'a': [], 'z': '10G', 'any': null}",
				  NULL, NULL),
			    "");
	assert_string_equal(check("m.types", "{'req': '', 'z': 4096, 'any': [1]}", NULL, NULL), "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_string_equal(check("m.types", bad[i].params, NULL, &data), bad[i].msg);
		assert_string_equal(data_str(data, "expected"), bad[i].expected);
		json_decref(data);
	}
}

static void test_unknown_missing(void **state)
{
	json_t *data;

	(void)state;
	assert_string_equal(check("m.types", "{'req': '', 'q': 1}", NULL, &data),
			    "unknown parameter \"q\"");
	assert_string_equal(data_str(data, "param"), "q");
	assert_null(json_object_get(data, "expected"));
	json_decref(data);
	assert_string_equal(check("m.types", "{'s': 'x'}", NULL, &data),
			    "missing parameter \"req\"");
	assert_string_equal(data_str(data, "param"), "req");
	json_decref(data);
	/* null is a value: present */
	assert_string_equal(check("m.lun", "{'target': null}", NULL, NULL),
			    "parameter \"target\" must be a string");
	/* no parameters at all */
	assert_string_equal(check("m.other", "{}", NULL, NULL), "");
	assert_string_equal(check("m.other", "{'x': 1}", NULL, NULL), "unknown parameter \"x\"");
}

/* A method taking a config object takes its fields (checked later by the
 * config parser), but those it excepts. */
static void test_object_fields(void **state)
{
	(void)state;
	assert_string_equal(
	    check("m.lun", "{'target': 't', 'lun': 'any type', 'backstore': 7}", NULL, NULL), "");
	assert_string_equal(check("m.lun", "{'target': 't', 'read_only': true}", NULL, NULL),
			    "unknown parameter \"read_only\"");
	assert_string_equal(check("m.lun", "{'target': 't', 'portals': []}", NULL, NULL),
			    "unknown parameter \"portals\"");
	/* the fields of an object only for a method that takes one */
	assert_string_equal(check("m.types", "{'req': '', 'lun': 1}", NULL, NULL),
			    "unknown parameter \"lun\"");
}

/* RFC 3722: iSCSI names compared in normalized form; what is not an
 * iSCSI name stays as given. */
static void test_names(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
	    {"IQN.2026-12.ORG.UTARGET:Disk1", "iqn.2026-12.org.utarget:disk1"},
	    {"iqn.2026-12.org.utarget:disk1", "iqn.2026-12.org.utarget:disk1"},
	    {"EUI.02004567A425678D", "eui.02004567a425678d"},
	    /* an initiator port, an address ACL's key: not names */
	    {"iqn.2026-12.org.x:y,i,0x800000000001", "iqn.2026-12.org.x:y,i,0x800000000001"},
	    {"@10.0.0.0/8", "@10.0.0.0/8"},
	    {"", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *p = json_pack("{s:s,s:s,s:s}", "target", t[i].in, "initiator", t[i].in,
				      "name", t[i].in);
		struct rpc_call c = {.m = rpc_method_find("m.names"), .params = p};

		assert_int_equal(rpc_check_params(&c), 0);
		assert_string_equal(rpc_str(&c, "target"), t[i].out);
		assert_string_equal(rpc_str(&c, "initiator"), t[i].out);
		/* other parameters are not names */
		assert_string_equal(rpc_str(&c, "name"), t[i].in);
		rpc_call_clear(&c);
	}
}

/* rpc_call_run: the checks, then the handler (not after a refusal) */
static void test_call_run(void **state)
{
	struct rpc_call c = mk("m.types", "{'req': 'x'}");

	(void)state;
	runs = 0;
	assert_int_equal(rpc_call_run(&c), 0);
	assert_int_equal(runs, 1);
	assert_non_null(c.result);
	rpc_call_clear(&c);
	assert_null(c.params);
	assert_null(c.result);
	c = mk("m.types", "{}");
	assert_int_equal(rpc_call_run(&c), -1);
	assert_int_equal(runs, 1);
	rpc_call_clear(&c);
	/* sub-calls (config.transaction) and changes go with the call */
	c = mk("m.types", "{}");
	c.sub = calloc(2, sizeof(*c.sub));
	c.nsub = 2;
	for (size_t i = 0; i < 2; i++) {
		c.sub[i] = calloc(1, sizeof(**c.sub));
		*c.sub[i] = mk("m.other", "{}");
		assert_non_null(rpc_chg(c.sub[i], CFG_CHG_BS_DEL, NULL, NULL, "x"));
	}
	c.priv = malloc(8);
	rpc_call_clear(&c);
	assert_null(c.sub);
	assert_int_equal(c.nsub, 0);
}

static void test_methods_json(void **state)
{
	json_t *all = rpc_methods_json(), *m, *f;

	(void)state;
	assert_non_null(all);
	m = json_object_get(json_object_get(all, "methods"), "m.lun");
	assert_non_null(m);
	assert_true(json_is_true(json_object_get(m, "mutating")));
	assert_string_equal(json_string_value(json_object_get(m, "object")), "lun");
	/* the object's fields less the excepted ones and its own parameters */
	f = json_object_get(m, "fields");
	assert_int_equal(json_array_size(f), 2);
	assert_string_equal(json_string_value(json_array_get(f, 0)), "lun");
	assert_string_equal(json_string_value(json_array_get(f, 1)), "backstore");
	assert_true(json_is_true(
	    json_object_get(json_object_get(json_object_get(m, "params"), "target"), "required")));
	m = json_object_get(json_object_get(all, "methods"), "m.types");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_object_get(m, "params"), "z"), "type")),
			    "size");
	assert_false(json_is_true(json_object_get(m, "mutating")));
	assert_null(json_object_get(m, "fields"));
	assert_non_null(json_object_get(json_object_get(all, "methods"), "m.other"));
	assert_int_equal(json_object_size(json_object_get(all, "methods")), 4);
	json_decref(all);
}

/* ---- helpers ---- */
static void test_str_has(void **state)
{
	struct rpc_call c = mk("m.types", "{'s': 'x', 'n': null, 'i': 3}");

	(void)state;
	assert_string_equal(rpc_str(&c, "s"), "x");
	assert_null(rpc_str(&c, "i"));
	assert_null(rpc_str(&c, "missing"));
	assert_true(rpc_has(&c, "s"));
	assert_false(rpc_has(&c, "n"));
	assert_false(rpc_has(&c, "missing"));
	rpc_call_clear(&c);
}

/* The call's parameters but "target" as a LUN, into ch; the result. */
static int lun_object(struct rpc_call *c, struct cfg_chg *ch)
{
	json_t *o = rpc_params_without(c, (const char *[]){"target", NULL});
	int rc = rpc_chg_object(c, ch, CFG_OBJ_LUN, o);

	json_decref(o);
	return rc;
}

static void test_chg(void **state)
{
	struct rpc_call c = mk("m.lun", "{'target': 't', 'lun': 3, 'backstore': 'b'}");
	struct cfg_chg *ch;
	json_t *data, *o;

	(void)state;
	ch = rpc_chg(&c, CFG_CHG_LUN_ADD, "t", NULL, NULL);
	assert_non_null(ch);
	assert_int_equal(c.txn.n, 1);
	assert_ptr_equal(c.txn.v[0], ch);
	assert_string_equal(ch->target, "t");
	assert_int_equal(lun_object(&c, ch), 0);
	assert_int_equal(ch->obj.l.lun, 3);
	assert_string_equal(ch->obj.l.backstore, "b");
	rpc_call_clear(&c);
	/* the parser's complaint: the parameter it is about */
	c = mk("m.lun", "{'target': 't', 'lun': 'x', 'backstore': 'b'}");
	ch = rpc_chg(&c, CFG_CHG_LUN_ADD, "t", NULL, NULL);
	assert_int_equal(lun_object(&c, ch), -1);
	assert_int_equal(c.code, RPC_INVALID_PARAMS);
	data = c.data;
	assert_string_equal(data_str(data, "param"), "lun");
	assert_string_equal(data_str(data, "path"), "lun");
	assert_non_null(strstr(c.msg, "lun: "));
	rpc_call_clear(&c);
	/* in a list: the parameter is the list's name */
	c = mk("m.types", "{}");
	ch = rpc_chg(&c, CFG_CHG_TPG_ADD, "t", NULL, NULL);
	o = json_pack("{s:i,s:[s,i]}", "tag", 1, "portals", "127.0.0.1:3260", 7);
	assert_int_equal(rpc_chg_object(&c, ch, CFG_OBJ_PORTAL_GROUP, o), -1);
	json_decref(o);
	assert_string_equal(data_str(c.data, "param"), "portals");
	assert_string_equal(data_str(c.data, "path"), "portals[1]");
	rpc_call_clear(&c);
	/* no object (out of memory building it) */
	c = mk("m.types", "{}");
	ch = rpc_chg(&c, CFG_CHG_TPG_ADD, "t", NULL, NULL);
	assert_int_equal(rpc_chg_object(&c, ch, CFG_OBJ_PORTAL_GROUP, NULL), -1);
	assert_int_equal(c.code, RPC_INTERNAL_ERROR);
	rpc_call_clear(&c);
}

static void test_params_without_merge(void **state)
{
	struct rpc_call c = mk("m.types", "{'req': 'r', 'drop': 1, 'x': null, 'v': 2, "
					  "'sec': {'a': 1, 'b': null}, 'new': {'k': 1}}");
	json_t *o, *cur;

	(void)state;
	o = rpc_params_without(&c, (const char *[]){"drop", "req", NULL});
	assert_null(json_object_get(o, "drop"));
	assert_null(json_object_get(o, "req"));
	assert_int_equal(json_object_size(o), 4);
	assert_non_null(json_object_get(c.params, "drop")); /* a copy */
	json_decref(o);
	/* the current object with the parameters merged in */
	cur = json_pack("{s:i,s:i,s:i,s:{s:i,s:i,s:i}}", "x", 9, "v", 1, "keep", 5, "sec", "a", 0,
			"b", 0, "c", 0);
	cur = rpc_merge(cur, &c, (const char *[]){"drop", "req", NULL});
	assert_null(json_object_get(cur, "x")); /* null: back to its default */
	assert_int_equal(json_integer_value(json_object_get(cur, "v")), 2);
	assert_int_equal(json_integer_value(json_object_get(cur, "keep")), 5);
	assert_null(json_object_get(cur, "drop"));
	assert_null(json_object_get(cur, "req"));
	/* a section: field by field */
	o = json_object_get(cur, "sec");
	assert_int_equal(json_integer_value(json_object_get(o, "a")), 1);
	assert_null(json_object_get(o, "b"));
	assert_int_equal(json_integer_value(json_object_get(o, "c")), 0);
	/* a section that was not there: as given */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cur, "new"), "k")), 1);
	json_decref(cur);
	assert_null(rpc_merge(NULL, &c, NULL));
	rpc_call_clear(&c);
}

static void test_size(void **state)
{
	struct rpc_call c = mk("m.types", "{'i': 4096, 's': '10G', 'z': 0, 'n': -1, 'x': '1Q', "
					  "'t': '2t'}");
	uint64_t v = 0;

	(void)state;
	assert_int_equal(rpc_size(&c, "i", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rpc_size(&c, "s", &v), 0);
	assert_int_equal(v, 10ull << 30);
	assert_int_equal(rpc_size(&c, "t", &v), 0);
	assert_int_equal(v, 2ull << 40);
	for (const char *const *k = (const char *const[]){"z", "n", "x", "missing", NULL}; *k;
	     k++) {
		assert_int_equal(rpc_size(&c, *k, &v), -1);
		assert_int_equal(c.code, RPC_INVALID_PARAMS);
		assert_string_equal(data_str(c.data, "param"), *k);
	}
	assert_string_equal(c.msg,
			    "parameter \"missing\": a size (bytes, or a number with K, M, G or T)");
	rpc_call_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_unknown_missing),
	    cmocka_unit_test(test_object_fields),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_call_run),
	    cmocka_unit_test(test_methods_json),
	    cmocka_unit_test(test_str_has),
	    cmocka_unit_test(test_chg),
	    cmocka_unit_test(test_params_without_merge),
	    cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
