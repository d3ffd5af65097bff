/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_safe_copy.c: lib/safe_copy.c copies what it can read and answers
 * EFAULT, without SIGBUS, from a file mapping past a file cut short (what
 * the fabric meets taking back data lent from a file LUN whose image
 * shrank: scsi.h scsi_cmd_unlend); a SIGBUS outside a copy still ends the
 * process. cmocka puts its own SIGBUS handler in around each test, so the
 * tests that fault arm the guard again first (safe_copy_arm). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/safe_copy.h"

static void test_copies(void **state)
{
	static uint8_t a[300000], b[sizeof(a)];

	(void)state;
	assert_true(safe_copy_works());
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 17 + 3);
	assert_int_equal(safe_copy(b, a, sizeof(a)), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(safe_copy(b, a, 0), 0);
}

static void test_past_the_end(void **state)
{
	char path[] = "/var/tmp/ut-safe-copy-XXXXXX";
	int fd = mkstemp(path);
	uint8_t page[4096], out[8192];
	uint8_t *m;

	(void)state;
	assert_int_equal(safe_copy_arm(), 0);
	assert_true(fd >= 0);
	memset(page, 0x5a, sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(safe_copy(out, m, 8192), 0);
	/* cut short: the second page of the mapping is past the end */
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(safe_copy(out, m + 4096, 4096), -EFAULT);
	assert_int_equal(safe_copy(out, m, 8192), -EFAULT);
	assert_int_equal(safe_copy(out, m, 4096), 0);
	assert_memory_equal(out, page, 4096);
	munmap(m, 8192);
	close(fd);
	unlink(path);
}

/* A load past the end outside safe_copy() is not swallowed: the process
 * dies of SIGBUS (in a child, with the default action under the guard). */
static void test_other_sigbus(void **state)
{
	char path[] = "/var/tmp/ut-safe-copy-XXXXXX";
	int fd = mkstemp(path), st = 0;
	uint8_t page[4096];
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	memset(page, 0x5a, sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		volatile const uint8_t *m;
		uint8_t out[4096];

		signal(SIGBUS, SIG_DFL);
		if (safe_copy_arm() != 0)
			_exit(3);
		m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED || ftruncate(fd, 4096) != 0)
			_exit(4);
		if (safe_copy(out, (const void *)(m + 4096), 4096) != -EFAULT)
			_exit(5);
		(void)m[4096]; /* not guarded: SIGBUS */
		_exit(6);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGBUS);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_copies),
	    cmocka_unit_test(test_past_the_end),
	    cmocka_unit_test(test_other_sigbus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
