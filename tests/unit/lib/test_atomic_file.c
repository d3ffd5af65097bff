/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/atomic_file.c: the temporary file is new (never an
 * existing file or a symbolic link someone prepared), its mode is the one
 * asked for whatever the umask, the target is replaced whole, and stale
 * temporary files are found by their exact name only; a state file is
 * read whole, within its cap, never through a link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.c"

struct af {
	char dir[64];
	char path[128];
	char victim[128];
};

static int setup(void **state)
{
	struct af *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	snprintf(a->dir, sizeof(a->dir), "/tmp/ut-afile.XXXXXX");
	assert_non_null(mkdtemp(a->dir));
	snprintf(a->path, sizeof(a->path), "%s/state.bin", a->dir);
	snprintf(a->victim, sizeof(a->victim), "%s/victim", a->dir);
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	struct af *a = *state;
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", a->dir);
	assert_int_equal(system(cmd), 0);
	free(a);
	return 0;
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void expect_text(const char *path, const char *text)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}

/* Entries of dir other than the ones named. */
static unsigned others(const char *dir, const char *a, const char *b)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, a) &&
		    strcmp(e->d_name, b))
			n++;
	closedir(d);
	return n;
}

/* The mode asked for with a permissive and with a restrictive umask; the
 * target replaced whole; no temporary file left. */
static void test_mode_and_replace(void **state)
{
	struct af *a = *state;
	mode_t old = umask(0);

	assert_int_equal(afile_write(a->path, "one", 3, 0600), 0);
	assert_int_equal(mode_of(a->path) & 07777, 0600);
	expect_text(a->path, "one");
	umask(0277);
	assert_int_equal(afile_write(a->path, "two!", 4, 0600), 0);
	assert_int_equal(mode_of(a->path) & 07777, 0600);
	expect_text(a->path, "two!");
	umask(old);
	assert_int_equal(others(a->dir, "state.bin", "state.bin"), 0);
}

/* A symbolic link or a file at the fixed names a temporary file used to
 * have (PATH.tmp, .PATH.tmp), and a symbolic link at PATH itself, are
 * neither followed nor written through. */
static void test_prepared_names(void **state)
{
	struct af *a = *state;
	char fixed[160], hidden[160];

	put(a->victim, "secret", 0644);
	snprintf(fixed, sizeof(fixed), "%s.tmp", a->path);
	snprintf(hidden, sizeof(hidden), "%s/.state.bin.tmp", a->dir);
	assert_int_equal(symlink(a->victim, fixed), 0);
	put(hidden, "stale", 0666);
	assert_int_equal(afile_write(a->path, "new", 3, 0600), 0);
	expect_text(a->victim, "secret");
	assert_true(S_ISLNK(mode_of(fixed)));
	expect_text(hidden, "stale");
	expect_text(a->path, "new");
	assert_true(S_ISREG(mode_of(a->path)));

	/* a link at the target is replaced, not written through */
	assert_int_equal(unlink(a->path), 0);
	assert_int_equal(symlink(a->victim, a->path), 0);
	assert_int_equal(afile_write(a->path, "mine", 4, 0600), 0);
	expect_text(a->victim, "secret");
	assert_true(S_ISREG(mode_of(a->path)));
	expect_text(a->path, "mine");
}

/* The temporary name: beside the target, hidden, random; opened new. */
static void test_temp_name(void **state)
{
	struct af *a = *state;
	char t1[200], t2[200], small[16];
	int fd1, fd2;

	fd1 = afile_create_temp(a->path, 0600, t1, sizeof(t1));
	fd2 = afile_create_temp(a->path, 0600, t2, sizeof(t2));
	assert_true(fd1 >= 0 && fd2 >= 0);
	assert_string_not_equal(t1, t2);
	assert_int_equal(strncmp(t1, a->dir, strlen(a->dir)), 0);
	assert_true(is_temp_of(t1 + strlen(a->dir) + 1, "state.bin"));
	assert_int_equal(strlen(t1), strlen(a->path) + AFILE_TMP_EXTRA);
	assert_int_equal(mode_of(t1) & 07777, 0600);
	close(fd1);
	close(fd2);
	assert_int_equal(afile_create_temp(a->path, 0600, small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(afile_create_temp("/tmp/", 0600, t1, sizeof(t1)), -EINVAL);
	/* both are stale now */
	assert_int_equal(afile_remove_stale(a->path), 2);
	assert_int_equal(others(a->dir, "x", "x"), 0);
}

/* Only names of exactly the temporary form are removed; a link of that
 * form goes as a link (its target stays). */
static void test_remove_stale(void **state)
{
	struct af *a = *state;
	static const char *const keep[] = {
	    ".state.bin.tmp",
	    ".state.bin.tmp.0123456789abcde",
	    ".state.bin.tmp.0123456789abcdef0",
	    ".state.bin.tmp.0123456789ABCDEF",
	    "state.bin.tmp.0123456789abcdef",
	    ".other.tmp.0123456789abcdef",
	};
	char p[200];

	put(a->victim, "secret", 0644);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", a->dir, keep[i]);
		put(p, "x", 0600);
	}
	snprintf(p, sizeof(p), "%s/.state.bin.tmp.0123456789abcdef", a->dir);
	put(p, "x", 0600);
	snprintf(p, sizeof(p), "%s/.state.bin.tmp.fedcba9876543210", a->dir);
	assert_int_equal(symlink(a->victim, p), 0);
	assert_int_equal(afile_remove_stale(a->path), 2);
	expect_text(a->victim, "secret");
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", a->dir, keep[i]);
		assert_int_equal(access(p, F_OK), 0);
	}
}

/* A write into a directory that is not there fails and leaves nothing. */
static void test_failure(void **state)
{
	struct af *a = *state;
	char p[160];

	snprintf(p, sizeof(p), "%s/no/such/file", a->dir);
	assert_int_equal(afile_write(p, "x", 1, 0600), -ENOENT);
	assert_int_equal(afile_sync_dir(p), -ENOENT);
	assert_int_equal(afile_sync_dir(a->path), 0);
}

/* afile_read(): the bytes as written; at the cap exactly still read, one
 * byte over refused; no file, a directory, a symbolic link (even to a good
 * file) each with its own error. */
static void test_read(void **state)
{
	struct af *a = *state;
	uint8_t *buf = (uint8_t *)"unchanged";
	size_t len = 99;
	char p[160];

	put(a->path, "0123456789", 0600);
	assert_int_equal(afile_read(a->path, 10, &buf, &len), 0);
	assert_int_equal(len, 10);
	assert_memory_equal(buf, "0123456789", 10);
	free(buf);
	assert_int_equal(afile_read(a->path, 9, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(len, 0);
	put(a->path, "", 0600);
	assert_int_equal(afile_read(a->path, 10, &buf, &len), 0);
	assert_int_equal(len, 0);
	free(buf);

	snprintf(p, sizeof(p), "%s/none", a->dir);
	assert_int_equal(afile_read(p, 10, &buf, &len), -ENOENT);
	assert_int_equal(afile_read(a->dir, 10, &buf, &len), -EINVAL);
	snprintf(p, sizeof(p), "%s/link", a->dir);
	assert_int_equal(symlink(a->path, p), 0);
	assert_int_equal(afile_read(p, 10, &buf, &len), -EINVAL);
	assert_null(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_mode_and_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prepared_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_temp_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_remove_stale, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
