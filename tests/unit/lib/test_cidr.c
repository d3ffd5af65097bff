/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/cidr.c: addresses and networks, what is refused and
 * why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cidr.c"

static void test_accepted(void **state)
{
	static const struct {
		const char *s;
		uint8_t family, prefix, addr0, addr3;
	} ok[] = {
	    {.s = "10.0.0.0/8", .family = AF_INET, .prefix = 8, .addr0 = 10},
	    {.s = "192.0.2.7", .family = AF_INET, .prefix = 32, .addr0 = 192, .addr3 = 7},
	    {.s = "0.0.0.0/0", .family = AF_INET, .prefix = 0},
	    {.s = "10.0.0.0/08", .family = AF_INET, .prefix = 8, .addr0 = 10},
	    {.s = "fd00::/8", .family = AF_INET6, .prefix = 8, .addr0 = 0xfd},
	    {.s = "::1", .family = AF_INET6, .prefix = 128},
	    {.s = "2001:db8::/32", .family = AF_INET6, .prefix = 32, .addr0 = 0x20, .addr3 = 0xb8},
	};
	uint8_t fam, addr[16], p;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(addr, 0xee, sizeof(addr));
		assert_int_equal(cidr_parse(ok[i].s, &fam, addr, &p, NULL), 0);
		assert_int_equal(fam, ok[i].family);
		assert_int_equal(p, ok[i].prefix);
		assert_int_equal(addr[0], ok[i].addr0);
		assert_int_equal(addr[3], ok[i].addr3);
		if (fam == AF_INET)
			for (size_t k = 4; k < 16; k++)
				assert_int_equal(addr[k], 0);
	}
	assert_int_equal(cidr_parse("::1", &fam, addr, &p, NULL), 0);
	assert_int_equal(addr[15], 1);
}

static void test_refused(void **state)
{
	static const struct {
		const char *s, *why;
	} bad[] = {
	    {.s = "", .why = "not an IPv4 or IPv6 address"},
	    {.s = "/8", .why = "not an IPv4 or IPv6 address"},
	    {.s = "1.2.3", .why = "not an IPv4 or IPv6 address"},
	    {.s = "[::1]", .why = "not an IPv4 or IPv6 address"},
	    {.s = "10.0.0.0 /8", .why = "not an IPv4 or IPv6 address"},
	    {.s = "10.0.0.0/", .why = "bad prefix length"},
	    {.s = "10.0.0.0/33", .why = "bad prefix length"},
	    {.s = "10.0.0.0/-1", .why = "bad prefix length"},
	    {.s = "10.0.0.0/8x", .why = "bad prefix length"},
	    {.s = "10.0.0.0/0008", .why = "bad prefix length"},
	    {.s = "fd00::/129", .why = "bad prefix length"},
	    {.s = "10.0.0.1/8", .why = "address bits set beyond the prefix length"},
	    {.s = "::1/64", .why = "address bits set beyond the prefix length"},
	};
	uint8_t fam, addr[16], p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		assert_int_equal(cidr_parse(bad[i].s, &fam, addr, &p, &why), -EINVAL);
		if (!why || strcmp(why, bad[i].why))
			fail_msg("\"%s\": why \"%s\", want \"%s\"", bad[i].s, why ? why : "(none)",
				 bad[i].why);
		/* why is optional */
		assert_int_equal(cidr_parse(bad[i].s, &fam, addr, &p, NULL), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accepted),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
