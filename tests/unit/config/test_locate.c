/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/locate.c: line of a JSON path in the text, and
 * the path builders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config/locate.c"
#include "lib/compiler.h"

static const char doc[] =
    "{\n"								 /* 1 */
    "  \"version\": 1,\n"						 /* 2 */
    "  \"targets\": [\n"						 /* 3 */
    "    { \"name\": \"iqn.a\",\n"					 /* 4 */
    "      \"luns\": [ { \"lun\": 0 },\n"				 /* 5 */
    "        {\n"							 /* 6 */
    "          \"lun\": 1,\n"						 /* 7 */
    "          \"backstore\": \"disk9\" } ]\n"				 /* 8 */
    "    },\n"								 /* 9 */
    "    {\"name\": \"x\", \"a\\\"b\": {\"k\": [1, [2, {\"z\": 3}]]},\n" /* 10 */
    "     \"esc\\u0041pe\": true, \"s\": \"}]{[,:\\\"\\n\"}\n"		 /* 11 */
    "  ]\n"								 /* 12 */
    "}\n";

static int loc(const char *path)
{
	return cfg_locate_line(doc, sizeof(doc) - 1, path);
}

static void test_members_and_elements(void **state)
{
	(void)state;
	assert_int_equal(loc(""), 1);
	assert_int_equal(loc("version"), 2);
	assert_int_equal(loc(".version"), 2);
	assert_int_equal(loc("targets"), 3);
	assert_int_equal(loc("targets[0]"), 4);
	assert_int_equal(loc("targets[0].name"), 4);
	assert_int_equal(loc("targets[0].luns"), 5);
	assert_int_equal(loc("targets[0].luns[0].lun"), 5);
	assert_int_equal(loc("targets[0].luns[1]"), 6);
	assert_int_equal(loc("targets[0].luns[1].lun"), 7);
	assert_int_equal(loc("targets[0].luns[1].backstore"), 8);
	assert_int_equal(loc("targets[1]"), 10);
	assert_int_equal(loc("targets[1].name"), 10);
}

static void test_missing_falls_back_to_ancestor(void **state)
{
	(void)state;
	/* a missing member: the line of the deepest existing ancestor */
	assert_int_equal(loc("targets[0].luns[1].read_only"), 6);
	assert_int_equal(loc("targets[0].luns[7]"), 5);
	assert_int_equal(loc("targets[5].name"), 3);
	assert_int_equal(loc("nope"), 1);
	/* wrong container type: stop at the value */
	assert_int_equal(loc("version[0]"), 2);
	assert_int_equal(loc("targets.name"), 3);
}

static void test_escapes_and_skipping(void **state)
{
	(void)state;
	/* keys with escapes, nested values skipped, strings with brackets */
	assert_int_equal(loc("targets[1][\"a\\\"b\"].k[1][1].z"), 10);
	assert_int_equal(loc("targets[1].escApe"), 11);
	assert_int_equal(loc("targets[1][\"escApe\"]"), 11);
	assert_int_equal(loc("targets[1].s"), 11);
}

static void test_multiline_strings_and_surrogates(void **state)
{
	static const char t[] = "{\"a\": \"x\\ny\",\n\"\\ud83d\\ude00\": 1,\n\"b\": 2}";
	char path[64] = "";

	(void)state;
	assert_int_equal(cfg_locate_line(t, sizeof(t) - 1, "b"), 3);
	cfg_path_key(path, sizeof(path), "\xf0\x9f\x98\x80", 4);
	assert_string_equal(path, "[\"\xf0\x9f\x98\x80\"]");
	assert_int_equal(cfg_locate_line(t, sizeof(t) - 1, path), 2);
}

static void test_robust_on_bad_input(void **state)
{
	static const char *bad[] = {
	    "",
	    "   ",
	    "{",
	    "{\"a\"",
	    "{\"a\":",
	    "{\"a\": [",
	    "[1, 2",
	    "{\"a\": \"unterminated",
	    "{\"a\": 1 \"b\": 2}",
	    "{\"a\": \"\\u12\"}",
	    "{\"a\": tru\x00e}",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int l = cfg_locate_line(bad[i], strlen(bad[i]), "a.b[3].c");
		assert_true(l >= 0 && l <= 1);
	}
	assert_int_equal(cfg_locate_line(NULL, 0, "a"), 0);
	/* a length shorter than the text: nothing beyond it is read */
	assert_int_equal(cfg_locate_line("{\n\"a\": 1}", 1, "a"), 1);
	/* bad paths stop at the best line so far */
	assert_int_equal(loc("targets[x]"), 3);
	assert_int_equal(loc("targets[0]..name"), 4);
	assert_int_equal(loc("targets[\"unterminated"), 3);
}

static void test_path_builders(void **state)
{
	char p[CFG_ERR_PATH_MAX] = "";

	(void)state;
	cfg_path_key(p, sizeof(p), "targets", 7);
	cfg_path_index(p, sizeof(p), 0);
	cfg_path_key(p, sizeof(p), "luns", 4);
	cfg_path_index(p, sizeof(p), 12);
	cfg_path_key(p, sizeof(p), "backstore", 9);
	assert_string_equal(p, "targets[0].luns[12].backstore");

	p[0] = '\0';
	cfg_path_key(p, sizeof(p), "a.b", 3);
	cfg_path_key(p, sizeof(p), "q\"\\\n", 4);
	assert_string_equal(p, "[\"a.b\"][\"q\\\"\\\\\\u000a\"]");
	/* round trip through the locator */
	static const char t[] = "{\"a.b\": {\n\"q\\\"\\\\\\n\": 1}}";
	assert_int_equal(cfg_locate_line(t, sizeof(t) - 1, p), 2);

	/* overflow: the path stays a valid prefix */
	char small[12] = "";
	cfg_path_key(small, sizeof(small), "targets", 7);
	cfg_path_index(small, sizeof(small), 1234567);
	assert_string_equal(small, "targets");
	cfg_path_key(small, sizeof(small), "", 0);
	assert_string_equal(small, "targets[\"\"]");
	cfg_path_key(small, sizeof(small), "x", 1);
	assert_string_equal(small, "targets[\"\"]");
}

/* Property: on any text (mutations and truncations of doc) and any path,
 * the answer is a line of the text (or 0), and nothing is read outside it
 * (the ASan build checks that). */
static void test_random_texts(void **state)
{
	static const char *paths[] = {
	    "",
	    "version",
	    "targets[0].luns[1].backstore",
	    "targets[1][\"a\\\"b\"].k[1][1].z",
	    "targets[1].escApe",
	    "a.b.c[9]",
	    "[\"\\u00\"]",
	    "targets[99999999999999999999]",
	};
	static const char alphabet[] = "{}[]\",:\\ \nu0a1";
	uint32_t seed = 12345;
	char buf[sizeof(doc)];

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = sizeof(doc) - 1, lines = 1;
		memcpy(buf, doc, len);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
		}
		seed = seed * 1103515245u + 12345u;
		if (seed & 0x10000)
			len = (seed >> 8) % len;
		/* exactly len bytes, no terminator: ASan sees any over-read */
		char *t = malloc(len ? len : 1);
		assert_non_null(t);
		memcpy(t, buf, len);
		for (size_t i = 0; i < len; i++)
			lines += t[i] == '\n';
		for (size_t p = 0; p < ARRAY_SIZE(paths); p++) {
			int l = cfg_locate_line(t, len, paths[p]);
			assert_true(l >= 0 && (size_t)l <= lines);
		}
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members_and_elements),
	    cmocka_unit_test(test_missing_falls_back_to_ancestor),
	    cmocka_unit_test(test_escapes_and_skipping),
	    cmocka_unit_test(test_multiline_strings_and_surrogates),
	    cmocka_unit_test(test_robust_on_bad_input),
	    cmocka_unit_test(test_path_builders),
	    cmocka_unit_test(test_random_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
