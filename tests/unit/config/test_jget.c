/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/jget.c: the typed JSON getters the config
 * readers share (the errors name the path of the value). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/jget.c"

struct elem {
	uint64_t n;
};

static json_t *doc(const char *text)
{
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);

	assert_non_null(j);
	return j;
}

static void want(const struct cfg_err *e, int rc, const char *path, const char *msg)
{
	assert_int_equal(rc, -EINVAL);
	if (strcmp(e->path, path) || strcmp(e->msg, msg))
		fail_msg("got \"%s: %s\"; want \"%s: %s\"", e->path, e->msg, path, msg);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(cfg_edit_distance("portals", "portal"), 1);
	assert_int_equal(cfg_edit_distance("", "abc"), 3);
	assert_int_equal(cfg_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(cfg_edit_distance("same", "same"), 0);
}

static void test_keys(void **state)
{
	static const char *const allowed[] = {"preferred", "max_sessions", "id", NULL};
	struct cfg_err e = {0};
	struct cfg_pctx x = {.err = &e, .path = "g"};
	json_t *o = doc("{\"id\": 1, \"prefered\": true}");

	(void)state;
	want(&e, cfg_check_keys(&x, o, allowed), "g.prefered",
	     "unknown field (did you mean \"preferred\"?)");
	json_decref(o);
	/* a truncated name counts as close; nothing close: no suggestion */
	x.path[1] = '\0';
	o = doc("{\"max_sess\": 1}");
	want(&e, cfg_check_keys(&x, o, allowed), "g.max_sess",
	     "unknown field (did you mean \"max_sessions\"?)");
	json_decref(o);
	x.path[1] = '\0';
	o = doc("{\"zzzzzz\": 1}");
	want(&e, cfg_check_keys(&x, o, allowed), "g.zzzzzz", "unknown field");
	json_decref(o);
	x.path[1] = '\0';
	o = doc("{\"id\": 1, \"preferred\": false}");
	assert_int_equal(cfg_check_keys(&x, o, allowed), 0);
	assert_string_equal(x.path, "g");
	json_decref(o);
}

static void test_scalars(void **state)
{
	struct cfg_err e = {0};
	struct cfg_pctx x = {.err = &e};
	json_t *o = doc("{\"b\": true, \"n\": 7, \"s\": \"abc\", \"neg\": -1, \"f\": 1.5,"
			" \"e\": \"\", \"z\": \"a\\u0000b\", \"nul\": null}");
	uint64_t n = 99;
	bool b = false, present = false;
	char *s = NULL;

	(void)state;
	/* present values; the path is back to where it was */
	assert_int_equal(cfg_get_bool(&x, o, "b", &b), 0);
	assert_true(b);
	assert_int_equal(cfg_get_uint(&x, o, "n", true, 1, 7, &n, &present), 0);
	assert_int_equal(n, 7);
	assert_true(present);
	assert_int_equal(cfg_get_str(&x, o, "s", true, 3, &s), 0);
	assert_string_equal(s, "abc");
	assert_string_equal(x.path, "");
	/* absent optional values leave *out alone */
	present = false;
	assert_int_equal(cfg_get_uint(&x, o, "absent", false, 0, 1, &n, &present), 0);
	assert_int_equal(n, 7);
	assert_false(present);
	assert_int_equal(cfg_get_str(&x, o, "absent", false, 3, &s), 0);
	assert_string_equal(s, "abc");
	assert_int_equal(cfg_get_bool(&x, o, "absent", &b), 0);
	assert_true(b);
	/* the errors, at the value's path */
	want(&e, cfg_get_uint(&x, o, "absent", true, 0, 1, &n, NULL), "absent",
	     "required field missing");
	x.path[0] = '\0';
	want(&e, cfg_get_uint(&x, o, "n", true, 8, 9, &n, NULL), "n", "7 out of range 8..9");
	x.path[0] = '\0';
	want(&e, cfg_get_uint(&x, o, "neg", true, 0, 9, &n, NULL), "neg", "-1 out of range 0..9");
	x.path[0] = '\0';
	want(&e, cfg_get_uint(&x, o, "f", true, 0, 9, &n, NULL), "f",
	     "expected an integer, found a number");
	x.path[0] = '\0';
	want(&e, cfg_get_bool(&x, o, "nul", &b), "nul", "expected true or false, found null");
	x.path[0] = '\0';
	want(&e, cfg_get_str(&x, o, "s", true, 2, &s), "s", "too long (3 bytes, at most 2)");
	x.path[0] = '\0';
	want(&e, cfg_get_str(&x, o, "e", true, 2, &s), "e", "must not be empty");
	x.path[0] = '\0';
	want(&e, cfg_get_str(&x, o, "z", true, 9, &s), "z", "contains a NUL character");
	x.path[0] = '\0';
	want(&e, cfg_get_str(&x, o, "b", true, 9, &s), "b", "expected a string, found a boolean");
	assert_string_equal(s, "abc");
	free(s);
	json_decref(o);
}

static int read_elem(struct cfg_pctx *x, json_t *e, void *out)
{
	static const char *const allowed[] = {"n", NULL};
	struct elem *el = out;

	int rc = cfg_check_keys(x, e, allowed);

	return rc ? rc : cfg_get_uint(x, e, "n", true, 0, 9, &el->n, NULL);
}

static void test_objects(void **state)
{
	struct cfg_err e = {0};
	struct cfg_pctx x = {.err = &e, .path = "r"};
	json_t *o = doc("{\"ok\": [{\"n\": 1}, {\"n\": 2}], \"empty\": [],"
			" \"bad\": [{\"n\": 1}, 5], \"deep\": [{\"n\": 1}, {\"n\": 10}],"
			" \"obj\": {}}");
	struct elem *v = NULL;
	size_t n = 0;
	int rc;

	(void)state;
	assert_int_equal(cfg_get_objects(&x, o, "ok", sizeof(*v), (void **)&v, &n, read_elem), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].n, 1);
	assert_int_equal(v[1].n, 2);
	assert_string_equal(x.path, "r");
	free(v);
	v = NULL;
	n = 0;
	assert_int_equal(cfg_get_objects(&x, o, "none", sizeof(*v), (void **)&v, &n, read_elem), 0);
	assert_null(v);
	assert_int_equal(cfg_get_objects(&x, o, "empty", sizeof(*v), (void **)&v, &n, read_elem),
			 0);
	assert_non_null(v);
	assert_int_equal(n, 0);
	free(v);
	v = NULL;
	/* a bad element: the elements read so far are counted (to be freed) */
	rc = cfg_get_objects(&x, o, "bad", sizeof(*v), (void **)&v, &n, read_elem);
	want(&e, rc, "r.bad[1]", "expected an object, found an integer");
	assert_int_equal(n, 1);
	free(v);
	v = NULL;
	n = 0;
	x.path[1] = '\0';
	rc = cfg_get_objects(&x, o, "deep", sizeof(*v), (void **)&v, &n, read_elem);
	want(&e, rc, "r.deep[1].n", "10 out of range 0..9");
	assert_int_equal(n, 2);
	free(v);
	v = NULL;
	n = 0;
	x.path[1] = '\0';
	rc = cfg_get_objects(&x, o, "obj", sizeof(*v), (void **)&v, &n, read_elem);
	want(&e, rc, "r.obj", "expected an array, found an object");
	assert_null(v);
	/* cfg_get_typed() */
	x.path[1] = '\0';
	assert_null(cfg_get_typed(&x, o, "ok", JSON_OBJECT, &rc));
	want(&e, rc, "r.ok", "expected an object, found an array");
	assert_string_equal(x.path, "r");
	assert_non_null(cfg_get_typed(&x, o, "obj", JSON_OBJECT, &rc));
	assert_int_equal(rc, 0);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edit_distance),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
