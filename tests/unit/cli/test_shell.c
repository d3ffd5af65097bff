/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/cli/shell.c and shell_tree.c: paths of the tree
 * (resolve, format), and shell lines turned into the one-shot commands'
 * requests at each node, against a fake daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/shell.h"
#include "fake_rpcd.h"

static struct fake_rpcd fake;

static int setup(void **state)
{
	fake_start(&fake);
	/* a small tree */
	fake_set(&fake, "backstore.list",
		 "{\"result\": [{\"name\": \"disk1\", \"type\": \"file\", \"path\": \"/d1\", "
		 "\"size\": \"1G\", \"mapped\": []}, {\"name\": \"r\", \"type\": \"ram\", "
		 "\"size\": \"64M\", \"mapped\": [{\"target\": \"t\", \"lun\": 0}]}]}");
	fake_set(&fake, "target.list",
		 "{\"result\": [{\"name\": \"iqn.2026-12.org.example:t1\", \"luns\": [{\"lun\": "
		 "0, \"backstore\": \"r\"}], \"acls\": [{\"initiator\": "
		 "\"iqn.1994-05.com.redhat:h\"}], \"sessions\": 1}]}");
	fake_set(&fake, "target.get",
		 "{\"result\": {\"name\": \"iqn.2026-12.org.example:t1\", \"portal_groups\": "
		 "[{\"tag\": 1, \"portals\": [\"127.0.0.1:3850\"]}], \"luns\": [{\"lun\": 0, "
		 "\"backstore\": \"r\", \"read_only\": false}], \"acls\": [{\"initiator\": "
		 "\"iqn.1994-05.com.redhat:h\"}], \"demo_mode\": {\"enabled\": false, "
		 "\"read_only\": false}}}");
	fake_set(&fake, "lun.list",
		 "{\"result\": [{\"lun\": 0, \"backstore\": \"r\", \"read_only\": false}]}");
	fake_set(&fake, "acl.list",
		 "{\"result\": [{\"initiator\": \"iqn.1994-05.com.redhat:h\"}]}");
	fake_set(&fake, "alua.list",
		 "{\"result\": [{\"id\": 5, \"name\": \"a\", \"state\": \"standby\", \"members\": "
		 "[]}]}");
	return 0;
}

static int teardown(void **state)
{
	fake_stop(&fake);
	return 0;
}

static void test_paths(void **state)
{
	static const struct {
		const char *cwd, *arg, *want;
	} cases[] = {
	    {.cwd = "/", .arg = "backstores/file/disk1", .want = "/backstores/file/disk1"},
	    {.cwd = "/backstores/file/disk1", .arg = "../../ram", .want = "/backstores/ram"},
	    {.cwd = "/",
	     .arg = "/iscsi/iqn.2026-12.org.example:t1/luns/lun3",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/luns/lun3"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/tpg1/portals",
	     .arg = "../../luns",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/luns"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/luns",
	     .arg = "..",
	     .want = "/iscsi/iqn.2026-12.org.example:t1"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1",
	     .arg = "acls/iqn.1994-05.com.redhat:h/lun2",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/acls/iqn.1994-05.com.redhat:h/lun2"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/acls/iqn.1994-05.com.redhat:h/lun2",
	     .arg = "../..",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/acls"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/tpg2/portals",
	     .arg = "[::1]:3260",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/tpg2/portals/[::1]:3260"},
	    {.cwd = "/sessions", .arg = "./12/", .want = "/sessions/12"},
	    {.cwd = "/settings", .arg = "../../..", .want = "/"},
	    {.cwd = "/alua", .arg = "5", .want = "/alua/5"},
	    {.cwd = "/alua/5", .arg = "../../sessions", .want = "/sessions"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/acls",
	     .arg = "iqn.1994-05.com.redhat:h/lun7",
	     .want = "/iscsi/iqn.2026-12.org.example:t1/acls/iqn.1994-05.com.redhat:h/lun7"},
	    {.cwd = "/iscsi/iqn.2026-12.org.example:t1/acls/iqn.1994-05.com.redhat:h",
	     .arg = "../..",
	     .want = "/iscsi/iqn.2026-12.org.example:t1"},
	    {.cwd = "/iscsi", .arg = "..", .want = "/"},
	};
	static const struct {
		const char *arg, *why;
	} bad[] = {
	    {.arg = "/nowhere", .why = "/ holds"},
	    {.arg = "/backstores/tape", .why = "file, ram and null"},
	    {.arg = "/iscsi/t/tpg0", .why = "tpg<TAG>"},
	    {.arg = "/iscsi/t/luns/x", .why = "lun<N>"},
	    /* one "luns" (and "acls") node per target: not under its portal groups */
	    {.arg = "/iscsi/t/tpg1/luns",
	     .why = "LUNs and ACLs are the target's (../luns, ../acls)"},
	    {.arg = "/iscsi/t/tpg1/acls/x", .why = "portals only"},
	    {.arg = "/settings/x", .why = "no objects below"},
	    {.arg = "/sessions/abc", .why = "TSIH"},
	    {.arg = "/alua/0", .why = "by their id"},
	};
	struct sh_path root = {.kind = SH_ROOT};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sh_path cwd, p;
		const char *why;
		char buf[SH_PATH_MAX];

		assert_int_equal(sh_resolve(&root, cases[i].cwd, &cwd, &why), 0);
		sh_format(&cwd, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].cwd);
		if (sh_resolve(&cwd, cases[i].arg, &p, &why))
			fail_msg("%s at %s: %s", cases[i].arg, cases[i].cwd, why);
		sh_format(&p, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
	{
		/* a path longer than the buffer: its beginning, terminated */
		struct sh_path p;
		const char *why;
		char full[SH_PATH_MAX], small[12];

		assert_int_equal(sh_resolve(&root, cases[2].want, &p, &why), 0);
		sh_format(&p, full, sizeof(full));
		sh_format(&p, small, sizeof(small));
		assert_int_equal(strlen(small), sizeof(small) - 1);
		assert_memory_equal(small, full, sizeof(small) - 1);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sh_path p;
		const char *why = NULL;

		assert_int_equal(sh_resolve(&root, bad[i].arg, &p, &why), -EINVAL);
		if (!why || !strstr(why, bad[i].why))
			fail_msg("%s: \"%s\"", bad[i].arg, why ? why : "(none)");
	}
}

struct sh_run {
	int rc;
	char *out, *err;
	char path[SH_PATH_MAX];
};

/* Run shell lines from cwd; the result of the last. */
static struct sh_run lines(const char *cwd, const char *const *ls)
{
	struct cli c = {.socket = fake.path, .timeout_ms = 5000};
	struct sh_run r = {0};
	struct sh_path p = {.kind = SH_ROOT}, root = p;
	const char *why;
	size_t ol, el;
	bool quit = false;

	rpc_client_init(&c.rpc, c.timeout_ms);
	c.out = open_memstream(&r.out, &ol);
	c.err = open_memstream(&r.err, &el);
	assert_int_equal(sh_resolve(&root, cwd, &p, &why), 0);
	for (size_t i = 0; ls[i]; i++) {
		char *line = strdup(ls[i]);
		r.rc = shell_line(&c, &p, line, &quit);
		free(line);
	}
	sh_format(&p, r.path, sizeof(r.path));
	rpc_close(&c.rpc);
	fclose(c.out);
	fclose(c.err);
	return r;
}

static void expect_line(const char *cwd, const char *line, const char *want)
{
	size_t before = fake_count(&fake);
	struct sh_run r = lines(cwd, (const char *const[]){line, NULL});
	char *got;

	if (r.rc != CLI_OK)
		fail_msg("\"%s\" at %s: exit %d: %s", line, cwd, r.rc, r.err);
	assert_true(fake_count(&fake) > before);
	got = fake_request(&fake, fake_count(&fake) - 1);
	if (strcmp(got, want) != 0)
		fail_msg("\"%s\" at %s sent\n  %s\nwant\n  %s", line, cwd, got, want);
	free(got);
	free(r.out);
	free(r.err);
}

#define T1 "iqn.2026-12.org.example:t1"

static void test_verbs(void **state)
{
	expect_line(
	    "/backstores/file", "create disk2 /srv/d2.img 1G",
	    "{\"method\":\"backstore.create\",\"params\":{\"create\":true,\"name\":\"disk2\","
	    "\"path\":\"/srv/d2.img\",\"size\":\"1G\",\"type\":\"file\"}}");
	expect_line("/backstores/file/disk1", "set write_cache=false",
		    "{\"method\":\"backstore.set\",\"params\":{\"name\":\"disk1\",\"write_cache\":"
		    "false}}");
	expect_line(
	    "/backstores/file/disk1", "resize 2G",
	    "{\"method\":\"backstore.resize\",\"params\":{\"name\":\"disk1\",\"size\":\"2G\"}"
	    "}");
	expect_line("/iscsi", "create " T1 " --portal 127.0.0.1:3850",
		    "{\"method\":\"target.create\",\"params\":{\"name\":\"" T1
		    "\",\"portal_groups\":"
		    "[{\"portals\":[\"127.0.0.1:3850\"],\"tag\":1}]}}");
	expect_line(
	    "/iscsi/" T1 "/luns", "create r 3 --read-only",
	    "{\"method\":\"lun.add\",\"params\":{\"backstore\":\"r\",\"lun\":3,\"read_only\":"
	    "true,\"target\":\"" T1 "\"}}");
	expect_line("/iscsi/" T1 "/luns", "delete lun3",
		    "{\"method\":\"lun.delete\",\"params\":{\"lun\":3,\"target\":\"" T1 "\"}}");
	expect_line(
	    "/iscsi/" T1 "/luns/lun0", "set read_only=true",
	    "{\"method\":\"lun.set\",\"params\":{\"lun\":0,\"read_only\":true,\"target\":\"" T1
	    "\"}}");
	expect_line("/iscsi/" T1 "/acls", "create iqn.1994-05.com.redhat:h2",
		    "{\"method\":\"acl.create\",\"params\":{\"initiator\":\"iqn.1994-05.com.redhat:"
		    "h2\",\"target\":\"" T1 "\"}}");
	expect_line("/iscsi/" T1 "/acls/iqn.1994-05.com.redhat:h", "create r 5",
		    "{\"method\":\"lun.add\",\"params\":{\"backstore\":\"r\",\"initiator\":\"iqn."
		    "1994-05.com.redhat:h\",\"lun\":5,\"target\":\"" T1 "\"}}");
	expect_line("/iscsi/" T1 "/tpg1/portals", "create [::1]:3850",
		    "{\"method\":\"portal.add\",\"params\":{\"portal\":\"[::1]:3850\",\"tag\":1,"
		    "\"target\":\"" T1 "\"}}");
	expect_line("/iscsi/" T1, "set alias='a b'",
		    "{\"method\":\"target.set\",\"params\":{\"alias\":\"a b\",\"name\":\"" T1
		    "\"}}");
	expect_line(
	    "/", "/settings set iscsi.nop_in_interval=10",
	    "{\"method\":\"settings.set\",\"params\":{\"iscsi\":{\"nop_in_interval\":10}}}");
	expect_line("/sessions", "delete 12",
		    "{\"method\":\"session.close\",\"params\":{\"tsih\":12}}");
	expect_line("/alua/5", "state active/optimized --backstore r",
		    "{\"method\":\"alua.set_state\",\"params\":{\"backstore\":\"r\",\"group\":5,"
		    "\"state\":\"active/optimized\"}}");
	expect_line(
	    "/alua", "create 6 --member " T1 ":1",
	    "{\"method\":\"settings.set\",\"params\":{\"port_groups\":[{\"id\":5,\"members\":"
	    "[],\"name\":\"a\",\"state\":\"standby\"},{\"id\":6,\"members\":[{\"tag\":1,"
	    "\"target\":\"" T1 "\"}]}]}}");
	expect_line(
	    "/alua/5", "set preferred=true",
	    "{\"method\":\"settings.set\",\"params\":{\"port_groups\":[{\"id\":5,\"members\":"
	    "[],\"name\":\"a\",\"preferred\":true,\"state\":\"standby\"}]}}");
	/* a back-store's persistent reservations */
	expect_line("/backstores/file/disk1", "reservation",
		    "{\"method\":\"reservation.get\",\"params\":{\"backstore\":\"disk1\"}}");
	expect_line("/backstores/file/disk1", "reservation clear --initiator iqn.x:a",
		    "{\"method\":\"reservation.clear\",\"params\":{\"backstore\":\"disk1\","
		    "\"initiator\":\"iqn.x:a\"}}");
	/* a one-shot command works in the shell too */
	expect_line("/iscsi", "config save", "{\"method\":\"config.save\",\"params\":{}}");
}

static void test_navigation(void **state)
{
	struct sh_run r;

	/* cd into existing objects only */
	r = lines("/", (const char *const[]){"cd iscsi/" T1 "/tpg1", NULL});
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.path, "/iscsi/" T1 "/tpg1");
	free(r.out);
	free(r.err);
	r = lines("/", (const char *const[]){"cd /iscsi/iqn.2026-12.org.example:nope", NULL});
	assert_int_equal(r.rc, CLI_ENOTFOUND);
	assert_string_equal(r.path, "/");
	free(r.out);
	free(r.err);
	/* ls of a node lists its children with their summaries */
	r = lines("/backstores", (const char *const[]){"ls file", NULL});
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "disk1  /d1 1G, 0 mappings\n");
	free(r.out);
	free(r.err);
	r = lines("/iscsi/" T1, (const char *const[]){"ls", NULL});
	assert_string_equal(r.out, "tpg1/  127.0.0.1:3850\nluns/  1\nacls/  1\n");
	free(r.out);
	free(r.err);
	/* a portal group holds its portals; the target holds the one LUN map */
	r = lines("/iscsi/" T1 "/tpg1", (const char *const[]){"ls", NULL});
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "portals/\n");
	free(r.out);
	free(r.err);
	r = lines("/iscsi", (const char *const[]){"tree", NULL});
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "o- /iscsi\n"
				   "  o- iqn.2026-12.org.example:t1 [1 LUN, 1 ACL, 1 session]\n"
				   "    o- tpg1 [127.0.0.1:3850]\n"
				   "      o- portals\n"
				   "        o- 127.0.0.1:3850\n"
				   "    o- luns [1]\n"
				   "      o- lun0 [-> r]\n"
				   "    o- acls [1]\n"
				   "      o- iqn.1994-05.com.redhat:h [the target's LUNs]\n");
	free(r.out);
	free(r.err);
	/* delete with no argument deletes the node and goes up */
	r = lines("/backstores/file/disk1", (const char *const[]){"delete", NULL});
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.path, "/backstores/file");
	free(r.out);
	free(r.err);
	/* quotes; unknown verbs */
	r = lines("/", (const char *const[]){"frobnicate", NULL});
	assert_int_equal(r.rc, CLI_EUSAGE);
	free(r.out);
	free(r.err);
	r = lines("/", (const char *const[]){"set a='b", NULL});
	assert_int_equal(r.rc, CLI_EUSAGE);
	free(r.out);
	free(r.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_verbs),
	    cmocka_unit_test(test_navigation),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
