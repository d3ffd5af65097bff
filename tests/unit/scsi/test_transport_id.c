/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_transport_id.c: iSCSI TransportIDs (transport_id.c, SPC-4 7.6.4.6):
 * both formats, round trips, normalization, matching, and every bound a
 * malformed TransportID can break. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/endian.h"
#include "scsi/transport_id.h"

/* header + text, padded with NULs to add bytes */
static size_t raw(uint8_t *b, uint8_t byte0, const char *text, size_t add)
{
	memset(b, 0, 4 + add);
	b[0] = byte0;
	put_be16(b + 2, (uint16_t)add);
	memcpy(b + 4, text, strlen(text));
	return 4 + add;
}

static void test_formats(void **state)
{
	uint8_t b[300];
	struct tid_port p;
	size_t len, bad, n;

	(void)state;
	/* 01b: a port; upper case normalized, the ISID left-padded */
	n = raw(b, 0x45, "IQN.1994-05.com.Example:Host,I,0X23D000001", 44);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	assert_int_equal(len, n);
	assert_string_equal(p.name, "iqn.1994-05.com.example:host");
	assert_string_equal(p.isid, "00023d000001");
	/* RFC 3722 beyond ASCII, as the login normalizes names (lib/iname.h):
	 * U+00C9 folds to U+00E9, U+00AD (soft hyphen) goes */
	n = raw(b, 0x05,
		"iqn.1994-05.com.ex\xc2\xad"
		"ample:\xc3\x89",
		36);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	assert_string_equal(p.name, "iqn.1994-05.com.example:\xc3\xa9");
	/* 00b: a device */
	n = raw(b, 0x05, "iqn.1994-05.com.example:host", 32);
	assert_int_equal(tid_parse(b, n + 8, &p, &len, &bad), 0);
	assert_int_equal(len, n); /* bytes after it are the next TransportID's */
	assert_string_equal(p.isid, "");
	/* built ones parse back to the same identity */
	struct tid_port q = {.name = "iqn.x:y", .isid = "0123456789ab"};
	n = tid_build(&q, b, sizeof(b));
	assert_int_equal(n, 4 + 28);
	assert_int_equal(b[0], 0x45);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	assert_true(tid_equal(&p, &q));
	q.isid[0] = 0;
	n = tid_build(&q, b, sizeof(b));
	assert_int_equal(n, 4 + 20); /* at least 20 bytes of additional length */
	assert_int_equal(b[0], 0x05);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	assert_true(tid_equal(&p, &q));
	assert_int_equal(tid_build(&q, b, 10), 0);
}

static void test_malformed(void **state)
{
	uint8_t b[300];
	struct tid_port p;
	size_t len, bad, n;
	char longname[260];

	(void)state;
	n = raw(b, 0x45, "iqn.a:b,i,0x1", 16);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	/* shorter than the header, longer than what is left */
	assert_int_equal(tid_parse(b, 3, &p, &len, &bad), -EINVAL);
	assert_int_equal(tid_parse(b, n - 1, &p, &len, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	/* protocol (FC), reserved bits, reserved format 10b */
	b[0] = 0x40;
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	b[0] = 0x65;
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	b[0] = 0x85;
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	/* ADDITIONAL LENGTH 0 or not a multiple of 4 */
	n = raw(b, 0x05, "iqn.a:b", 0);
	assert_int_equal(tid_parse(b, 64, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x05, "iqn.a:b", 10);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	/* no NUL inside ADDITIONAL LENGTH */
	n = raw(b, 0x05, "iqn.a:bcdefgh", 12);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	assert_int_equal(bad, 4 + 11);
	/* format and contents disagree */
	n = raw(b, 0x45, "iqn.a:b", 8);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x05, "iqn.a:b,i,0x1", 16);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	/* separator, ISID digits, ISID too long, empty name, control chars */
	n = raw(b, 0x45, "iqn.a:b,t,0x1", 16);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	assert_int_equal(bad, 4 + 8);
	n = raw(b, 0x45, "iqn.a:b,i,0x1g", 16);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x45, "iqn.a:b,i,0x1234567890abc", 28);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x45, "iqn.a:b,i,0x", 16);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x05, "", 20);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	n = raw(b, 0x05, "iqn.a b", 20);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	assert_int_equal(bad, 4 + 5);
	/* not an iSCSI name (RFC 7143 4.2.7.2: iqn., eui. or naa.) */
	n = raw(b, 0x05, "example.com", 12);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	/* a name of 224 bytes is one too long */
	memset(longname, 'a', 224);
	memcpy(longname, "iqn.", 4);
	longname[224] = 0;
	n = raw(b, 0x05, longname, 228);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
	longname[223] = 0;
	n = raw(b, 0x05, longname, 224);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), 0);
	/* beyond TID_MAX_LEN */
	n = raw(b, 0x05, "iqn.a:b", 256);
	assert_int_equal(tid_parse(b, n, &p, &len, &bad), -EINVAL);
}

static void test_matching(void **state)
{
	struct tid_port dev, port1, port2, other;

	(void)state;
	assert_int_equal(tid_from_port_name("iqn.a:b,i,0x000000000001", &port1), 0);
	assert_int_equal(tid_from_port_name("IQN.A:B,i,0x000000000002", &port2), 0);
	assert_int_equal(tid_from_port_name("iqn.a:b", &dev), 0);
	assert_int_equal(tid_from_port_name("iqn.a:c,i,0x000000000001", &other), 0);
	assert_int_equal(tid_from_port_name("iqn.a:b,i,0xzz", &other), -EINVAL);
	assert_int_equal(tid_from_port_name("iqn.a:c,i,0x000000000001", &other), 0);
	/* a device registration covers every port of it */
	assert_true(tid_covers(&dev, &port1));
	assert_true(tid_covers(&dev, &port2));
	assert_false(tid_covers(&port1, &dev));
	assert_false(tid_covers(&port1, &port2));
	assert_false(tid_covers(&dev, &other));
	assert_true(tid_overlap(&port1, &dev));
	assert_true(tid_overlap(&dev, &port2));
	assert_false(tid_overlap(&port1, &port2));
	assert_false(tid_overlap(&port1, &other));
	assert_false(tid_equal(&port1, &dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_matching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
