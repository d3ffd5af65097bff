/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/iname.c: RFC 3722 normalization of iSCSI names, what
 * is refused and why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/iname.c"

static void check(const char *in, const char *want)
{
	char out[INAME_MAX + 1];
	int n = iname_normalize(in, strlen(in), out, NULL);

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(out, want);
}

static void test_normalized(void **state)
{
	(void)state;
	check("iqn.2026-12.org.utarget:default", "iqn.2026-12.org.utarget:default");
	/* RFC 3722 B.2: case folding */
	check("IQN.2026-12.ORG.Example:Host1", "iqn.2026-12.org.example:host1");
	check("eui.02004567A425678D", "eui.02004567a425678d");
	check("NAA.52004567BA64678D", "naa.52004567ba64678d");
	/* NFKC: U+FF21 FULLWIDTH LATIN CAPITAL LETTER A -> "a" */
	check("iqn.2026-12.org.example:\xef\xbc\xa1", "iqn.2026-12.org.example:a");
	/* B.1: U+00AD SOFT HYPHEN is removed */
	check("iqn.2026-12.org.ex\xc2\xad"
	      "ample:x",
	      "iqn.2026-12.org.example:x");
	/* non-ASCII letters stay (lowercased): U+00C9 -> U+00E9 */
	check("iqn.2026-12.org.example:\xc3\x89t\xc3\xa9",
	      "iqn.2026-12.org.example:\xc3\xa9t\xc3\xa9");
}

static void test_in_place(void **state)
{
	char buf[INAME_MAX + 1] = "IQN.2026-12.ORG.EXAMPLE:A";

	(void)state;
	assert_int_equal(iname_normalize(buf, strlen(buf), buf, NULL), 25);
	assert_string_equal(buf, "iqn.2026-12.org.example:a");
}

static void test_refused(void **state)
{
	static const struct {
		const char *s;
		size_t len; /* 0: strlen */
		const char *why;
	} bad[] = {
	    {.s = "", .why = "empty"},
	    {.s = "iqn.2026-12.org.example:a b", .why = "a character RFC 3722 prohibits"},
	    {.s = "iqn.2026-12.org.example:a,i,0x1", .why = "a character RFC 3722 prohibits"},
	    {.s = "iqn.2026-12.org.example:a\tb", .why = "a character RFC 3722 prohibits"},
	    {.s = "iqn.2026-12.org.example:a/b", .why = "a character RFC 3722 prohibits"},
	    {.s = "iqn.2026-12.org.example:\xff", .why = "not UTF-8"},
	    {.s = "iqn.2026-12.org.example:\xc3", .why = "not UTF-8"},
	    {.s = "example.com", .why = "an iSCSI name starts with \"iqn.\", \"eui.\" or \"naa.\""},
	    {.s = "iqn.a\0b", .len = 7, .why = "a NUL byte inside"},
	};
	char out[INAME_MAX + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].s);

		assert_int_equal(iname_normalize(bad[i].s, len, out, &why), -EINVAL);
		assert_non_null(why);
		assert_string_equal(why, bad[i].why);
	}
}

static void test_length(void **state)
{
	char name[INAME_MAX + 2], out[INAME_MAX + 1];
	const char *why = NULL;

	(void)state;
	memset(name, 'a', sizeof(name));
	memcpy(name, "iqn.", 4);
	/* 223 bytes: the longest name */
	assert_int_equal(iname_normalize(name, INAME_MAX, out, NULL), (int)INAME_MAX);
	assert_int_equal(iname_normalize(name, INAME_MAX + 1, out, &why), -EINVAL);
	assert_string_equal(why, "longer than 223 bytes");
	/* 223 bytes that fold to the same length: still the bound after it */
	name[5] = 'A';
	assert_int_equal(iname_normalize(name, INAME_MAX, out, NULL), (int)INAME_MAX);
	assert_int_equal(out[5], 'a');
}

static void test_is_normalized(void **state)
{
	(void)state;
	assert_true(iname_is_normalized("iqn.2026-12.org.utarget:default"));
	assert_true(iname_is_normalized("eui.02004567a425678d"));
	assert_false(iname_is_normalized("eui.02004567A425678D"));
	assert_false(iname_is_normalized("IQN.2026-12.org.utarget:default"));
	assert_false(iname_is_normalized("iqn.2026-12.org.utarget:a b"));
	assert_false(iname_is_normalized(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalized),	  cmocka_unit_test(test_in_place),
	    cmocka_unit_test(test_refused),	  cmocka_unit_test(test_length),
	    cmocka_unit_test(test_is_normalized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
