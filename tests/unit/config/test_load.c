/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/load.c: reading a file, error lines from the
 * verifier, file-system checks, the one-line error format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/load.c"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ut-cfg-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_file_errors(void **state)
{
	struct cfg *c = (struct cfg *)1;
	struct cfg_err e;
	char path[256], line[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	assert_int_equal(cfg_load(path, NULL, &c, &e), -ENOENT);
	assert_null(c);
	cfg_err_format(&e, path, line, sizeof(line));
	char want[512];
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(line, want);

	assert_int_equal(cfg_load(dir, NULL, &c, &e), -EISDIR);
	assert_string_equal(e.msg, "Is a directory");

	/* larger than the limit */
	snprintf(path, sizeof(path), "%s/big.json", dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)CFG_FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(cfg_load(path, NULL, &c, &e), -EFBIG);
	assert_string_equal(e.msg, "larger than 16 MiB");
	unlink(path);
}

static void test_syntax_and_semantic_lines(void **state)
{
	struct cfg *c;
	struct cfg_err e;
	char line[1024], want[1024];
	const char *p;

	(void)state;
	p = write_file("syntax.json", "{\n  \"version\": 1,\n  \"targets\": [\n    {,}\n  ]\n}\n");
	assert_int_equal(cfg_load(p, NULL, &c, &e), -EINVAL);
	assert_int_equal(e.line, 4);
	cfg_err_format(&e, p, line, sizeof(line));
	snprintf(want, sizeof(want), "%s:4: ", p);
	assert_true(strncmp(line, want, strlen(want)) == 0);

	p = write_file(
	    "ref.json",
	    "{\n"
	    "  \"version\": 1,\n"
	    "  \"backstores\": [\n"
	    "    { \"name\": \"disk0\", \"type\": \"ram\", \"size\": \"1M\" }\n"
	    "  ],\n"
	    "  \"targets\": [\n"
	    "    { \"name\": \"iqn.2026-12.org.utarget:t\",\n"
	    "      \"portal_groups\": [ { \"tag\": 1, \"portals\": [\"127.0.0.1:3260\"] } ],\n"
	    "      \"luns\": [\n"
	    "        { \"lun\": 0, \"backstore\": \"disk0\" },\n"
	    "        { \"lun\": 1,\n"
	    "          \"backstore\": \"disk9\" }\n"
	    "      ] }\n"
	    "  ]\n"
	    "}\n");
	assert_int_equal(cfg_load(p, NULL, &c, &e), -EINVAL);
	cfg_err_format(&e, p, line, sizeof(line));
	snprintf(want, sizeof(want),
		 "%s:12: targets[0].luns[1].backstore: no back-store named \"disk9\"", p);
	assert_string_equal(line, want);

	p = write_file("unknown.json", "{\n  \"version\": 1,\n  \"backstore\": []\n}\n");
	assert_int_equal(cfg_load(p, NULL, &c, &e), -EINVAL);
	cfg_err_format(&e, p, line, sizeof(line));
	snprintf(want, sizeof(want),
		 "%s:3: backstore: unknown field (did you mean \"backstores\"?)", p);
	assert_string_equal(line, want);

	p = write_file("ok.json", "{\"version\": 1}");
	assert_int_equal(cfg_load(p, NULL, &c, &e), 0);
	assert_non_null(c);
	cfg_free(c);
}

static void test_format(void **state)
{
	struct cfg_err e = {0};
	char line[256];

	(void)state;
	snprintf(e.msg, sizeof(e.msg), "boom");
	cfg_err_format(&e, "f.json", line, sizeof(line));
	assert_string_equal(line, "f.json: boom");
	e.line = 3;
	cfg_err_format(&e, "f.json", line, sizeof(line));
	assert_string_equal(line, "f.json:3: boom");
	snprintf(e.path, sizeof(e.path), "a.b");
	cfg_err_format(&e, "f.json", line, sizeof(line));
	assert_string_equal(line, "f.json:3: a.b: boom");
	e.line = 0;
	cfg_err_format(&e, "f.json", line, sizeof(line));
	assert_string_equal(line, "f.json: a.b: boom");
	/* a command-line origin names no file */
	snprintf(e.path, sizeof(e.path), "--listen 127.0.0.1:1");
	snprintf(e.msg, sizeof(e.msg), "cannot listen: Address already in use");
	e.line = 0;
	cfg_err_locate(&e, "f.json");
	assert_int_equal(e.line, 0);
	cfg_err_format(&e, "f.json", line, sizeof(line));
	assert_string_equal(line, "--listen 127.0.0.1:1: cannot listen: Address already in use");
	/* truncation is safe */
	char tiny[8];
	cfg_err_format(&e, "f.json", tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), 7);
}

static struct cfg *load_text(const char *name, const char *text)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	const char *p = write_file(name, text);

	if (cfg_load(p, NULL, &c, &e))
		fail_msg("%s: %s: %s", p, e.path, e.msg);
	return c;
}

static void test_check_files(void **state)
{
	char text[1024], sub[128];
	struct cfg_err e;
	struct cfg *c;

	(void)state;
	/* a missing file without create */
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"state_dir\": \"%s\",\n\"backstores\": [\n"
		 "{\"name\": \"a\", \"type\": \"file\", \"path\": \"a.img\"}]}",
		 dir);
	c = load_text("f1.json", text);
	assert_int_equal(cfg_check_files(c, &e), -ENOENT);
	assert_string_equal(e.path, "backstores[0].path");
	assert_non_null(strstr(e.msg, "/a.img: No such file or directory"));
	cfg_err_locate(&e, write_file("f1.json", text));
	assert_int_equal(e.line, 3);

	/* it exists now */
	write_file("a.img", "x");
	assert_int_equal(cfg_check_files(c, &e), 0);
	assert_string_equal(e.path, "");
	cfg_free(c);

	/* a directory is not a back-store */
	snprintf(sub, sizeof(sub), "%s/adir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"file\","
		 " \"path\": \"%s\"}]}",
		 sub);
	c = load_text("f2.json", text);
	assert_int_equal(cfg_check_files(c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not a regular file or block device"));
	cfg_free(c);

	/* sg: a SCSI generic node (a character device) or a disk, not a file */
	c = load_text("f3.json", "{\"version\": 1, \"backstores\": [{\"name\": \"s\", \"type\": "
				 "\"sg\", \"path\": \"/dev/null\"}]}");
	assert_int_equal(cfg_check_files(c, &e), 0);
	cfg_free(c);
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"state_dir\": \"%s\", \"backstores\": [{\"name\": \"s\","
		 " \"type\": \"sg\", \"path\": \"a.img\"}]}",
		 dir);
	c = load_text("f4.json", text);
	assert_int_equal(cfg_check_files(c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not a SCSI generic or block device"));
	cfg_free(c);

	/* create: the directory must exist, or be the state directory */
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"state_dir\": \"%s/state\", \"backstores\": [\n"
		 "{\"name\": \"a\", \"type\": \"file\", \"path\": \"a.img\", \"size\": 4096,"
		 " \"create\": true},\n"
		 "{\"name\": \"b\", \"type\": \"file\", \"path\": \"nodir/b.img\", \"size\": 4096,"
		 " \"create\": true}]}",
		 dir);
	c = load_text("f3.json", text);
	assert_int_equal(cfg_check_files(c, &e), -ENOENT);
	assert_string_equal(e.path, "backstores[1].path");
	assert_non_null(strstr(e.msg, "/state/nodir: no such directory"));
	cfg_free(c);

	/* ram and null have no files */
	c = load_text("f4.json", "{\"version\": 1, \"backstores\": [{\"name\": \"r\", \"type\":"
				 " \"ram\", \"size\": 4096}]}");
	assert_int_equal(cfg_check_files(c, &e), 0);
	cfg_free(c);
}

/* The state directory is utargetd's alone: not writable by its group or
 * others, owned by root or the effective user; a missing one passes only
 * where it is about to be created (0700). */
static void test_check_state_dir(void **state)
{
	static const struct {
		mode_t mode;
		const char *why;
	} bad[] = {
	    {.mode = 0777, .why = "writable by its group and others (mode 0777)"},
	    {.mode = 0775, .why = "writable by its group (mode 0775)"},
	    {.mode = 0757, .why = "writable by others (mode 0757)"},
	    {.mode = 01777, .why = "writable by its group and others (mode 1777)"},
	};
	char text[512], sd[128];
	struct cfg_err e;
	struct cfg *c;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/sd", dir);
	snprintf(text, sizeof(text), "{\"version\": 1,\n\"state_dir\": \"%s\"}", sd);
	c = load_text("sd.json", text);
	assert_int_equal(cfg_check_state_dir(c, true, &e), 0);
	assert_int_equal(cfg_check_files(c, &e), 0);
	assert_int_equal(cfg_check_state_dir(c, false, &e), -ENOENT);
	assert_int_equal(mkdir(sd, 0700), 0);
	assert_int_equal(cfg_check_state_dir(c, false, &e), 0);
	assert_int_equal(chmod(sd, 0755), 0);
	assert_int_equal(cfg_check_state_dir(c, false, &e), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(chmod(sd, bad[i].mode), 0);
		assert_int_equal(cfg_check_state_dir(c, false, &e), -EPERM);
		assert_string_equal(e.path, "state_dir");
		assert_int_equal(strncmp(e.msg, sd, strlen(sd)), 0);
		assert_non_null(strstr(e.msg, bad[i].why));
		/* --check says the same */
		assert_int_equal(cfg_check_files(c, &e), -EPERM);
		assert_non_null(strstr(e.msg, bad[i].why));
		cfg_err_locate(&e, write_file("sd.json", text));
		assert_int_equal(e.line, 2);
	}
	assert_int_equal(chmod(sd, 0700), 0);
	/* another user's directory (root may hand it over to test) */
	if (geteuid() == 0) {
		assert_int_equal(chown(sd, 65534, 65534), 0);
		assert_int_equal(cfg_check_state_dir(c, false, &e), -EPERM);
		assert_non_null(strstr(e.msg, "owned by uid 65534, neither root nor"));
	}
	cfg_free(c);
	/* not a directory */
	write_file("notdir", "x");
	snprintf(text, sizeof(text), "{\"version\": 1, \"state_dir\": \"%s/notdir\"}", dir);
	c = load_text("sd2.json", text);
	assert_int_equal(cfg_check_state_dir(c, true, &e), -ENOTDIR);
	cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_errors),
	    cmocka_unit_test(test_syntax_and_semantic_lines),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_check_files),
	    cmocka_unit_test(test_check_state_dir),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
