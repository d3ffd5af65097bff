/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/iscsi.c without a remote target: the mapping of
 * the remote's sense data to errno values (fixed and descriptor format,
 * the INFORMATION field), GET LBA STATUS parameter data, the URL check, and bs_open's refusals (no
 * or bad url, unknown option, bad timeout, nobody listening). The I/O paths, reconnect included,
 * are tested against tgtd by tests/integration/gateway.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "backstore/backstore.h"

int iscsi_gw_sense_errno(const uint8_t *s, size_t len, uint64_t *info);
int iscsi_gw_url_check(const char *url);
int iscsi_gw_lba_status(const uint8_t *d, size_t len, uint64_t lba, uint64_t *blocks, bool *mapped);

static void fixed(uint8_t *s, uint8_t key, uint8_t asc, uint8_t ascq, uint32_t info, bool valid)
{
	memset(s, 0, 18);
	s[0] = 0x70 | (valid ? 0x80 : 0);
	s[2] = key;
	s[3] = (uint8_t)(info >> 24);
	s[4] = (uint8_t)(info >> 16);
	s[5] = (uint8_t)(info >> 8);
	s[6] = (uint8_t)info;
	s[7] = 10;
	s[12] = asc;
	s[13] = ascq;
}

static void test_sense_fixed(void **state)
{
	uint8_t s[18];
	uint64_t info;

	fixed(s, 0x3, 0x11, 0x00, 1234, true); /* MEDIUM ERROR, UNRECOVERED READ ERROR */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, 1234);
	fixed(s, 0x3, 0x11, 0x00, 1234, false); /* INFORMATION not valid */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, UINT64_MAX);
	fixed(s, 0x7, 0x27, 0x00, 0, false); /* WRITE PROTECTED */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EROFS);
	fixed(s, 0x7, 0x27, 0x07, 0, false); /* SPACE ALLOCATION FAILED WRITE PROTECT */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -ENOSPC);
	fixed(s, 0x6, 0x29, 0x00, 0, false); /* POWER ON, RESET: retried */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EAGAIN);
	fixed(s, 0x2, 0x04, 0x01, 0, false); /* BECOMING READY: retried */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EAGAIN);
	fixed(s, 0x2, 0x3a, 0x00, 0, false); /* MEDIUM NOT PRESENT */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	fixed(s, 0x4, 0x44, 0x00, 7, true); /* HARDWARE ERROR: no bad offset */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, UINT64_MAX);
	fixed(s, 0x5, 0x24, 0x00, 0, false); /* ILLEGAL REQUEST */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	/* truncated and empty */
	assert_int_equal(iscsi_gw_sense_errno(s, 1, &info), -EIO);
	assert_int_equal(iscsi_gw_sense_errno(NULL, 0, &info), -EIO);
	s[0] = 0x00; /* not sense data */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
}

static void test_sense_descriptor(void **state)
{
	/* MEDIUM ERROR 11h/00h, an information descriptor (VALID, LBA
	 * 0x1_0000_0002: more than fixed format's 32 bits) */
	uint8_t s[8 + 12] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 12, 0x00, 0x0a,
			     0x80, 0,	 0,    0,    0, 1, 0, 0,  0,	2};
	uint64_t info;

	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, 0x100000002ull);
	s[10] = 0; /* not VALID */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, UINT64_MAX);
	s[1] = 0x07; /* DATA PROTECT 27h/07h */
	s[2] = 0x27;
	s[3] = 0x07;
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -ENOSPC);
	s[1] = 0x06; /* UNIT ATTENTION */
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EAGAIN);
	s[7] = 200; /* ADDITIONAL SENSE LENGTH past the buffer: no overread */
	s[1] = 0x03;
	s[10] = 0x80;
	assert_int_equal(iscsi_gw_sense_errno(s, sizeof(s), &info), -EIO);
	assert_int_equal(info, 0x100000002ull);
}

static void put_desc(uint8_t *d, uint64_t lba, uint32_t n, uint8_t status)
{
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(lba >> (56 - 8 * i));
	d[8] = (uint8_t)(n >> 24);
	d[9] = (uint8_t)(n >> 16);
	d[10] = (uint8_t)(n >> 8);
	d[11] = (uint8_t)n;
	d[12] = status;
}

static void test_lba_status(void **state)
{
	uint8_t d[8 + 2 * 16] = {0, 0, 0, 4 + 2 * 16};
	uint64_t n = 0;
	bool mapped = false;

	put_desc(d + 8, 100, 50, 0);  /* 100..149 mapped */
	put_desc(d + 24, 150, 10, 1); /* 150..159 deallocated */
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 100, &n, &mapped), 0);
	assert_int_equal(n, 50);
	assert_true(mapped);
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 120, &n, &mapped), 0);
	assert_int_equal(n, 30);
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 155, &n, &mapped), 0);
	assert_int_equal(n, 5);
	assert_false(mapped);
	d[24 + 12] = 2; /* anchored: not mapped either */
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 150, &n, &mapped), 0);
	assert_false(mapped);
	/* not covered, short data, a PARAMETER DATA LENGTH past the buffer */
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 160, &n, &mapped), -EIO);
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 99, &n, &mapped), -EIO);
	assert_int_equal(iscsi_gw_lba_status(d, 7, 100, &n, &mapped), -EIO);
	assert_int_equal(iscsi_gw_lba_status(d, 8 + 16, 155, &n, &mapped), -EIO);
	d[3] = 200;
	assert_int_equal(iscsi_gw_lba_status(d, sizeof(d), 155, &n, &mapped), 0);
}

static void test_url_check(void **state)
{
	assert_int_equal(iscsi_gw_url_check("iscsi://127.0.0.1:3260/iqn.2024-01.x:y/1"), 0);
	assert_int_equal(iscsi_gw_url_check("iscsi://u%s@host/iqn.2024-01.x:y/0"), 0);
	assert_int_equal(iscsi_gw_url_check("iscsi://[::1]:3260/iqn.2024-01.x:y/0"), 0);
	assert_int_equal(iscsi_gw_url_check(NULL), -EINVAL);
	assert_int_equal(iscsi_gw_url_check(""), -EINVAL);
	assert_int_equal(iscsi_gw_url_check("http://h/iqn.x/1"), -EINVAL);
	assert_int_equal(iscsi_gw_url_check("iscsi://h/iqn.x"), -EINVAL);  /* no LUN */
	assert_int_equal(iscsi_gw_url_check("iscsi://h/iqn.x/"), -EINVAL); /* empty LUN */
	assert_int_equal(iscsi_gw_url_check("iscsi://h//1"), -EINVAL);	   /* no IQN */
	assert_int_equal(iscsi_gw_url_check("iscsi:///iqn.x/1"), -EINVAL); /* no host */
	assert_int_equal(iscsi_gw_url_check("iscsi://h/iqn.x/1a"), -EINVAL);
	assert_int_equal(iscsi_gw_url_check("iscsi://h/iqn.x/-1"), -EINVAL);
	assert_int_equal(iscsi_gw_url_check("iscsi://h/iqn.x/16384"), -EINVAL);
}

static int try_open(const char *url, const struct bs_option *o, size_t n)
{
	struct bs_params p = {
	    .type = "iscsi", .name = "gw", .url = url, .options = o, .noptions = n};
	struct bs_dev *dev = (struct bs_dev *)1;
	int rc = bs_open(&p, &dev);

	if (rc == 0)
		bs_close(dev);
	else
		assert_null(dev);
	return rc;
}

static void test_open_refusals(void **state)
{
	struct bs_option bad_key = {"initiatr", "iqn.2024-01.x:y"};
	struct bs_option bad_to = {"timeout", "0"};
	struct bs_option bad_to2 = {"timeout", "12s"};

	assert_int_equal(try_open(NULL, NULL, 0), -EINVAL);
	assert_int_equal(try_open("iscsi://127.0.0.1/iqn.x", NULL, 0), -EINVAL);
	assert_int_equal(try_open("iscsi://127.0.0.1:1/iqn.2024-01.x:y/1", &bad_key, 1), -EINVAL);
	assert_int_equal(try_open("iscsi://127.0.0.1:1/iqn.2024-01.x:y/1", &bad_to, 1), -EINVAL);
	assert_int_equal(try_open("iscsi://127.0.0.1:1/iqn.2024-01.x:y/1", &bad_to2, 1), -EINVAL);
	/* nothing listens on port 1: refused at once, not a hang */
	assert_int_equal(try_open("iscsi://127.0.0.1:1/iqn.2024-01.x:y/1", NULL, 0), -EHOSTUNREACH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sense_fixed),	  cmocka_unit_test(test_sense_descriptor),
	    cmocka_unit_test(test_lba_status),	  cmocka_unit_test(test_url_check),
	    cmocka_unit_test(test_open_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
