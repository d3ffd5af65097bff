/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/backstore/sg.c: what open() refuses. A device that
 * answers SG_IO is tested in a QEMU guest over scsi_debug
 * (tests/vm/sg_passthrough.sh): this machine may have none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "backstore/backstore.h"

static void test_refused(void **state)
{
	char path[] = "/tmp/ut-sg-XXXXXX";
	struct bs_dev *dev = NULL;
	int fd;

	(void)state;
	/* no device */
	assert_int_equal(bs_open(&(struct bs_params){.type = "sg", .name = "s"}, &dev), -EINVAL);
	/* a size: the device has its own */
	assert_int_equal(bs_open(
			     &(struct bs_params){
				 .type = "sg", .name = "s", .path = "/dev/null", .size = 1 << 20},
			     &dev),
			 -EINVAL);
	/* missing */
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "sg", .name = "s", .path = "/nonexistent/sg9"},
		    &dev),
	    -ENOENT);
	/* a character device that is not SCSI generic, and a regular file */
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "sg", .name = "s", .path = "/dev/null"}, &dev),
	    -ENOTTY);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "sg", .name = "s", .path = path}, &dev), -ENOTTY);
	unlink(path);
	assert_null(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
