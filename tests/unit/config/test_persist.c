/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/persist.c: atomic writes (mode 0600 whatever
 * the umask, no temporary left, names prepared beside the file neither
 * followed nor written through, stale temporary files removed), the
 * journal (appended records replayed at the next open; a torn or corrupted
 * record and what follows dropped; a journal of an earlier version of the
 * file ignored), compaction (the file rewritten from the tree, previous
 * versions rotated into FILE.1..N, an empty journal). The replay applies
 * the records with change.c, as the daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/change.h"
#include "config/persist.h"
#include "lib/atomic_file.h"

static char dir[64], file[128], journal[160];
static const struct cfg_iscsi_settings defaults = {
    .max_burst_length = 1048576, .first_burst_length = 65536, .queue_depth = 128};

static const char base_cfg[] =
    "{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"null\", \"size\": \"1M\"}],"
    " \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:t\","
    "  \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]}]}\n";

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ut-persist-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/u.json", dir);
	snprintf(journal, sizeof(journal), "%s.journal", file);
	return afile_write(file, base_cfg, strlen(base_cfg), 0600);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	cfg_store_close();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* the daemon's replay: a record's changes applied to the tree */
static int replay(struct cfg *c, json_t *changes, void *arg, struct cfg_err *err)
{
	struct cfg_index *ix;
	struct cfg_txn x = {0};
	size_t i, failed;
	json_t *j;
	int rc = cfg_index_build(c, &ix);

	(*(int *)arg)++;
	json_array_foreach(changes, i, j)
	{
		struct cfg_chg *ch;

		if (!rc && !(rc = cfg_chg_from_json(j, &ch, err)))
			rc = cfg_txn_add(&x, ch);
	}
	if (!rc)
		rc = cfg_txn_apply(c, ix, &x, &failed, err);
	cfg_txn_clear(&x);
	cfg_index_free(ix);
	return rc;
}

static struct cfg *open_store(size_t *replayed, int *calls)
{
	struct cfg_err err;
	struct cfg *c = NULL;

	*calls = 0;
	if (cfg_store_open(file, 2, &defaults, replay, calls, &c, replayed, &err))
		fail_msg("open: %s", err.msg);
	return c;
}

/* One record: a LUN n mapped. */
static void append_lun(unsigned n)
{
	char text[1024];
	json_t *rec;
	struct cfg_err err;

	snprintf(text, sizeof(text),
		 "[{\"op\":\"backstore.add\",\"object\":{\"name\":\"b%u\",\"type\":\"null\","
		 "\"size\":\"1M\"}},"
		 "{\"op\":\"lun.add\",\"target\":\"iqn.2026-12.org.utarget:t\",\"object\":"
		 "{\"lun\":%u,\"backstore\":\"b%u\"}},{\"op\":\"target.set\",\"target\":"
		 "\"iqn.2026-12.org.utarget:t\",\"object\":{\"name\":\"iqn.2026-12.org.utarget:t\","
		 "\"alias\":\"gen-%u\"}}]",
		 n, n, n, n);
	rec = json_loads(text, 0, NULL);
	assert_non_null(rec);
	assert_int_equal(cfg_store_append(&rec, 1, &err), 0);
	json_decref(rec);
}

static void test_atomic_write(void **state)
{
	struct stat st;
	char tmp[160];

	(void)state;
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	assert_int_equal(access(tmp, F_OK), -1);
}

static void put_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void expect_text(const char *path, const char *text)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

/* What someone prepared beside the file before the daemon writes it: a
 * symbolic link at the temporary name the writes used to have (FILE.tmp),
 * pointing at a file of theirs, and a stale world-writable temporary of the
 * journal (FILE.journal.tmp). Compaction writes neither through the link
 * nor into the stale file; FILE and the journal come out regular files of
 * mode 0600 even with umask 0. */
static void test_prepared_temp_names(void **state)
{
	char tmp[160], jtmp[192], victim[160];
	size_t replayed;
	int calls;
	struct cfg *c;
	struct cfg_err err;
	struct stat st;
	mode_t old;

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	snprintf(jtmp, sizeof(jtmp), "%s.tmp", journal);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put_text(victim, "not yours", 0644);
	c = open_store(&replayed, &calls);
	assert_int_equal(symlink(victim, tmp), 0);
	put_text(jtmp, "stale", 0666);
	old = umask(0);
	append_lun(7);
	assert_int_equal(cfg_store_compact(c, &err), 0);
	umask(old);
	expect_text(victim, "not yours");
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_text(jtmp, "stale");
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(lstat(journal, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	cfg_store_close();
	cfg_free(c);
	/* and the file is the compacted one */
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 0);
	cfg_store_close();
	cfg_free(c);
}

/* The temporary files of writes a crash interrupted are removed when the
 * store opens; other names beside the file stay. */
static void test_stale_temp_removed(void **state)
{
	char stale[192], jstale[224], other[192];
	size_t replayed;
	int calls;
	struct cfg *c;

	(void)state;
	snprintf(stale, sizeof(stale), "%s/.u.json.tmp.0123456789abcdef", dir);
	snprintf(jstale, sizeof(jstale), "%s/.u.json.journal.tmp.fedcba9876543210", dir);
	snprintf(other, sizeof(other), "%s/.u.json.tmp.keep", dir);
	put_text(stale, "crashed", 0600);
	put_text(jstale, "crashed", 0600);
	put_text(other, "kept", 0600);
	c = open_store(&replayed, &calls);
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(jstale, F_OK), -1);
	expect_text(other, "kept");
	cfg_store_close();
	cfg_free(c);
}

/* Records survive a reopen, in order, and appends continue after them. */
static void test_journal_replay(void **state)
{
	size_t replayed;
	int calls;
	struct cfg *c;

	(void)state;
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 0);
	assert_int_equal(access(journal, F_OK), 0);
	append_lun(0);
	append_lun(1);
	assert_int_equal(cfg_store_journal_records(), 2);
	cfg_store_close();
	cfg_free(c);

	/* again: the two come back, a third joins them */
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 2);
	assert_int_equal(c->targets[0].luns.n, 2);
	assert_string_equal(c->targets[0].alias, "gen-1");
	append_lun(2);
	cfg_store_close();
	cfg_free(c);
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 3);
	assert_string_equal(c->targets[0].alias, "gen-2");
	cfg_store_close();
	cfg_free(c);
}

/* A record torn by a crash (no end of line, or a checksum that does not
 * match) was never acknowledged: dropped with what follows. */
static void test_torn_record(void **state)
{
	size_t replayed;
	int calls, fd;
	struct cfg *c;
	const char torn[] = "[{\"op\":\"lun.add\",\"targ";

	(void)state;
	c = open_store(&replayed, &calls);
	append_lun(0);
	cfg_store_close();
	cfg_free(c);
	fd = open(journal, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, torn, sizeof(torn) - 1), (ssize_t)(sizeof(torn) - 1));
	close(fd);
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 1);
	/* the next append replaces the torn tail */
	append_lun(1);
	cfg_store_close();
	cfg_free(c);
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 2);
	assert_string_equal(c->targets[0].alias, "gen-1");
	cfg_store_close();
	cfg_free(c);

	/* a flipped byte in the first record: nothing after it either */
	FILE *f = fopen(journal, "r+");
	char line[4096];
	long pos;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f)); /* header */
	pos = ftell(f);
	assert_int_equal(fseek(f, pos + 20, SEEK_SET), 0);
	fputc('X', f);
	fclose(f);
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 0);
	assert_int_equal(c->targets[0].luns.n, 0);
	cfg_store_close();
	cfg_free(c);
}

/* A journal whose header names another version of the file is stale. */
static void test_stale_journal(void **state)
{
	size_t replayed;
	int calls;
	struct cfg *c;
	char edited[sizeof(base_cfg) + 8];

	(void)state;
	c = open_store(&replayed, &calls);
	append_lun(0);
	cfg_store_close();
	cfg_free(c);
	/* the file rewritten since (as by a compaction that finished) */
	snprintf(edited, sizeof(edited), "%s ", base_cfg);
	assert_int_equal(afile_write(file, edited, strlen(edited), 0600), 0);
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 0);
	assert_int_equal(calls, 0);
	assert_int_equal(c->targets[0].luns.n, 0);
	cfg_store_close();
	cfg_free(c);
}

/* Compaction: the tree into the file, versions rotated, journal emptied. */
static void test_compaction(void **state)
{
	size_t replayed;
	int calls;
	struct cfg *c;
	struct cfg_err err;
	struct stat st;
	char b1[160], b2[160], b3[160];

	(void)state;
	snprintf(b1, sizeof(b1), "%s.1", file);
	snprintf(b2, sizeof(b2), "%s.2", file);
	snprintf(b3, sizeof(b3), "%s.3", file);
	for (unsigned k = 0; k < 3; k++) {
		c = open_store(&replayed, &calls);
		append_lun(k);
		cfg_store_close();
		cfg_free(c);
		c = open_store(&replayed, &calls);
		assert_int_equal(replayed, 1);
		assert_int_equal(cfg_store_compact(c, &err), 0);
		assert_int_equal(cfg_store_journal_records(), 0);
		assert_int_equal(cfg_store_journal_bytes(), 0);
		assert_true(cfg_store_file_is_ours());
		cfg_store_close();
		cfg_free(c);
	}
	/* the file has all three; two previous versions are kept, 0600 */
	c = open_store(&replayed, &calls);
	assert_int_equal(replayed, 0);
	assert_int_equal(c->targets[0].luns.n, 3);
	cfg_store_close();
	cfg_free(c);
	assert_int_equal(stat(b1, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(b2, &st), 0);
	assert_int_equal(access(b3, F_OK), -1);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* FILE.1 is the version before the last compaction (two LUNs) */
	{
		struct cfg *prev = NULL;
		FILE *f = fopen(b1, "r");
		char buf[8192];
		size_t n;

		assert_non_null(f);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		assert_int_equal(cfg_parse(buf, n, &defaults, &prev, &err), 0);
		assert_int_equal(prev->targets[0].luns.n, 2);
		cfg_free(prev);
	}
	/* a file edited by hand is not ours any more */
	c = open_store(&replayed, &calls);
	{
		FILE *f = fopen(file, "a");
		fputs(" ", f);
		fclose(f);
	}
	assert_false(cfg_store_file_is_ours());
	cfg_store_close();
	cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_atomic_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prepared_temp_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_temp_removed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_journal_replay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_torn_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_journal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compaction, setup, teardown),
	};
	struct cfg_iscsi_settings d = defaults;

	cfg_chg_set_defaults(&d);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
