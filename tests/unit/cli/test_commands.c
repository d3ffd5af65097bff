/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the command families (src/cli/cmd_*.c, cli_dispatch.c,
 * cli_call.c, output.c) against a fake daemon: each command line must send
 * exactly the JSON-RPC request of docs/rpc.md, print what it should, and
 * exit with the documented status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "fake_rpcd.h"

static struct fake_rpcd fake;

struct run {
	int rc;
	char *out, *err;
};

static int setup(void **state)
{
	fake_start(&fake);
	return 0;
}

static int teardown(void **state)
{
	fake_stop(&fake);
	return 0;
}

/* Run "OBJECT VERB ARGS..." (a NULL-terminated list) like main() does. */
static struct run run(bool json, const char *const *words)
{
	struct cli c = {.socket = fake.path, .timeout_ms = 5000, .json = json};
	struct run r = {0};
	size_t olen, elen, n = 0;
	const struct cli_cmd *cmd;
	char *argv[64];
	int skip = 1;

	while (words[n])
		n++;
	for (size_t i = 0; i < n; i++)
		argv[i] = (char *)words[i];
	rpc_client_init(&c.rpc, c.timeout_ms);
	c.out = open_memstream(&r.out, &olen);
	c.err = open_memstream(&r.err, &elen);
	cmd = cli_find("", words[0]);
	if (!cmd) {
		cmd = cli_find(words[0], words[1]);
		skip = 2;
	}
	if (!cmd)
		fail_msg("no command %s %s", words[0], words[1]);
	r.rc = cli_run(&c, cmd, (int)n - skip, argv + skip);
	rpc_close(&c.rpc);
	fclose(c.out);
	fclose(c.err);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* The command sends `want` (the last request) and exits rc. */
static void expect_request(const char *const *words, const char *want, int rc)
{
	size_t before = fake_count(&fake);
	struct run r = run(false, words);
	char *got;

	if (r.rc != rc)
		fail_msg("%s %s: exit %d, want %d (stderr: %s)", words[0], words[1], r.rc, rc,
			 r.err);
	if (!want) {
		assert_int_equal(fake_count(&fake), before);
		run_free(&r);
		return;
	}
	assert_true(fake_count(&fake) > before);
	got = fake_request(&fake, fake_count(&fake) - 1);
	if (strcmp(got, want) != 0)
		fail_msg("%s %s sent\n  %s\nwant\n  %s", words[0], words[1], got, want);
	free(got);
	run_free(&r);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_backstore(void **state)
{
	expect_request(W("backstore", "create", "file", "disk1", "/srv/disk1.img", "10G"),
		       "{\"method\":\"backstore.create\",\"params\":{\"create\":true,\"name\":"
		       "\"disk1\",\"path\":\"/srv/disk1.img\",\"size\":\"10G\",\"type\":\"file\"}}",
		       CLI_OK);
	expect_request(W("backstore", "create", "file", "old", "/srv/old.img", "read_only=true"),
		       "{\"method\":\"backstore.create\",\"params\":{\"name\":\"old\",\"path\":"
		       "\"/srv/old.img\",\"read_only\":true,\"type\":\"file\"}}",
		       CLI_OK);
	expect_request(W("backstore", "create", "ram", "r", "64M", "thin=true", "block_size=4096"),
		       "{\"method\":\"backstore.create\",\"params\":{\"block_size\":4096,\"name\":"
		       "\"r\",\"size\":\"64M\",\"thin\":true,\"type\":\"ram\"}}",
		       CLI_OK);
	/* sg: DEVICE, a SCSI disk whose commands pass through */
	expect_request(W("backstore", "create", "sg", "pt0", "/dev/sg1", "serial=PT0"),
		       "{\"method\":\"backstore.create\",\"params\":{\"name\":\"pt0\",\"path\":"
		       "\"/dev/sg1\",\"serial\":\"PT0\",\"type\":\"sg\"}}",
		       CLI_OK);
	expect_request(W("backstore", "resize", "r", "128M", "--force"),
		       "{\"method\":\"backstore.resize\",\"params\":{\"force\":true,\"name\":\"r\","
		       "\"size\":\"128M\"}}",
		       CLI_OK);
	expect_request(W("backstore", "set", "r", "write_cache=false"),
		       "{\"method\":\"backstore.set\",\"params\":{\"name\":\"r\",\"write_cache\":"
		       "false}}",
		       CLI_OK);
	expect_request(W("backstore", "rm", "r"),
		       "{\"method\":\"backstore.delete\",\"params\":{\"name\":\"r\"}}", CLI_OK);
	/* usage errors send nothing */
	expect_request(W("backstore", "create", "ram", "r", "64Q"), NULL, CLI_EUSAGE);
	expect_request(W("backstore", "create", "ram"), NULL, CLI_EUSAGE);
	expect_request(W("backstore", "set", "r", "notafield"), NULL, CLI_EUSAGE);
	expect_request(W("backstore", "delete", "r", "--bogus"), NULL, CLI_EUSAGE);
}

static void test_target_lun_acl(void **state)
{
	expect_request(W("target", "create", "iqn.2026-12.org.example:t1", "--portal",
			 "127.0.0.1:3851", "--portal=[::1]:3851", "--alias", "T one"),
		       "{\"method\":\"target.create\",\"params\":{\"alias\":\"T one\",\"name\":"
		       "\"iqn.2026-12.org.example:t1\",\"portal_groups\":[{\"portals\":[\"127.0.0."
		       "1:3851\",\"[::1]:3851\"],\"tag\":1}]}}",
		       CLI_OK);
	/* no portal: the daemon's default ones */
	expect_request(W("target", "create", "iqn.2026-12.org.example:t2"),
		       "{\"method\":\"target.create\",\"params\":{\"name\":\"iqn.2026-12.org."
		       "example:t2\",\"portal_groups\":[{\"tag\":1}]}}",
		       CLI_OK);
	expect_request(W("tpg", "create", "iqn.2026-12.org.example:t1", "tpg2", "127.0.0.1:3852",
			 "rel_port_id=9"),
		       "{\"method\":\"portal_group.create\",\"params\":{\"portals\":[\"127.0.0.1:"
		       "3852\"],\"rel_port_id\":9,\"tag\":2,\"target\":\"iqn.2026-12.org.example:"
		       "t1\"}}",
		       CLI_OK);
	expect_request(
	    W("portal", "add", "iqn.2026-12.org.example:t1", "2", "127.0.0.2:3852"),
	    "{\"method\":\"portal.add\",\"params\":{\"portal\":\"127.0.0.2:3852\",\"tag\""
	    ":2,\"target\":\"iqn.2026-12.org.example:t1\"}}",
	    CLI_OK);
	expect_request(W("lun", "add", "iqn.2026-12.org.example:t1", "disk1", "lun3", "-r"),
		       "{\"method\":\"lun.add\",\"params\":{\"backstore\":\"disk1\",\"lun\":3,"
		       "\"read_only\":true,\"target\":\"iqn.2026-12.org.example:t1\"}}",
		       CLI_OK);
	expect_request(W("lun", "delete", "iqn.2026-12.org.example:t1", "3", "--initiator",
			 "iqn.1994-05.com.redhat:h"),
		       "{\"method\":\"lun.delete\",\"params\":{\"initiator\":\"iqn.1994-05.com."
		       "redhat:h\",\"lun\":3,\"target\":\"iqn.2026-12.org.example:t1\"}}",
		       CLI_OK);
	expect_request(W("acl", "add", "iqn.2026-12.org.example:t1", "iqn.1994-05.com.redhat:h",
			 "--lun", "0:disk1:ro", "--lun", "1:disk2"),
		       "{\"method\":\"acl.create\",\"params\":{\"initiator\":\"iqn.1994-05.com."
		       "redhat:h\",\"luns\":[{\"backstore\":\"disk1\",\"lun\":0,\"read_only\":"
		       "true},{\"backstore\":\"disk2\",\"lun\":1,\"read_only\":false}],\"target\":"
		       "\"iqn.2026-12.org.example:t1\"}}",
		       CLI_OK);
	expect_request(W("acl", "set", "iqn.2026-12.org.example:t1", "iqn.1994-05.com.redhat:h",
			 "--target-map"),
		       "{\"method\":\"acl.set\",\"params\":{\"initiator\":\"iqn.1994-05.com."
		       "redhat:h\",\"luns\":null,\"target\":\"iqn.2026-12.org.example:t1\"}}",
		       CLI_OK);
	expect_request(W("acl", "add", "t", "i", "--lun", "x"), NULL, CLI_EUSAGE);
	/* by networks only, or by name from networks */
	expect_request(
	    W("acl", "add", "t", "--address", "10.0.0.0/8", "-a", "fd00::/8"),
	    "{\"method\":\"acl.create\",\"params\":{\"addresses\":[\"10.0.0.0/8\",\"fd00:"
	    ":/8\"],\"target\":\"t\"}}",
	    CLI_OK);
	expect_request(W("acl", "add", "t", "iqn.1994-05.com.redhat:h", "-a", "192.0.2.7"),
		       "{\"method\":\"acl.create\",\"params\":{\"addresses\":[\"192.0.2.7\"],"
		       "\"initiator\":\"iqn.1994-05.com.redhat:h\",\"target\":\"t\"}}",
		       CLI_OK);
	expect_request(W("acl", "add", "t"), NULL, CLI_EUSAGE);
	expect_request(W("lun", "add", "t", "d", "99999"), NULL, CLI_EUSAGE);
	expect_request(W("session", "close", "7"),
		       "{\"method\":\"session.close\",\"params\":{\"tsih\":7}}", CLI_OK);
	expect_request(W("connection", "close", "7", "1"),
		       "{\"method\":\"connection.close\",\"params\":{\"cid\":1,\"tsih\":7}}",
		       CLI_OK);
	/* the other ways to end it (RFC 7143 11.9.1) */
	expect_request(W("session", "close", "7", "--within", "30"),
		       "{\"method\":\"session.close\",\"params\":{\"timeout\":30,\"tsih\":7}}",
		       CLI_OK);
	expect_request(W("session", "close", "7", "--announce", "--wait", "5"),
		       "{\"method\":\"session.close\",\"params\":{\"mode\":\"announce\",\"tsih\":7,"
		       "\"wait\":5}}",
		       CLI_OK);
	expect_request(W("connection", "close", "7", "1", "--drop"),
		       "{\"method\":\"connection.close\",\"params\":{\"cid\":1,\"mode\":\"drop\","
		       "\"tsih\":7}}",
		       CLI_OK);
	expect_request(W("session", "close", "7", "--drop", "--announce"), NULL, CLI_EUSAGE);
	expect_request(W("session", "close", "7", "--wait", "5"), NULL, CLI_EUSAGE);
	expect_request(W("session", "close", "7", "--drop", "--within", "5"), NULL, CLI_EUSAGE);
	expect_request(W("session", "renegotiate", "7", "2"),
		       "{\"method\":\"session.renegotiate\",\"params\":{\"cid\":2,\"tsih\":7}}",
		       CLI_OK);
	/* login redirection */
	expect_request(W("target", "redirect", "t", "192.0.2.9:3260,2", "--permanent"),
		       "{\"method\":\"target.set\",\"params\":{\"name\":\"t\",\"redirect\":{"
		       "\"address\":\"192.0.2.9:3260,2\",\"permanent\":true}}}",
		       CLI_OK);
	expect_request(
	    W("tpg", "redirect", "t", "1", "--balance"),
	    "{\"method\":\"portal_group.set\",\"params\":{\"redirect\":{\"balance\":true},"
	    "\"tag\":1,\"target\":\"t\"}}",
	    CLI_OK);
	expect_request(W("tpg", "redirect", "t", "1", "--off"),
		       "{\"method\":\"portal_group.set\",\"params\":{\"redirect\":null,\"tag\":1,"
		       "\"target\":\"t\"}}",
		       CLI_OK);
	expect_request(W("tpg", "redirect", "t", "1", "--off", "--balance"), NULL, CLI_EUSAGE);
	expect_request(W("target", "redirect", "t"), NULL, CLI_EUSAGE);
}

/* The confirmation of a target (or portal group) says where it listens,
 * from the daemon's answer. */
static void test_target_listening(void **state)
{
	struct run r;

	fake_set(&fake, "target.create",
		 "{\"result\": {\"name\": \"t\", \"portal_groups\": [{\"tag\": 1, \"portals\": "
		 "[\"0.0.0.0:3260\", \"[::]:3260\"], \"listening\": [\"0.0.0.0:3260\", "
		 "\"[::]:3260\"]}]}}");
	r = run(false, W("target", "create", "t"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "target t created; portal group 1 listens on 0.0.0.0:3260 "
				   "(every IPv4 address), [::]:3260 (every address)\n");
	run_free(&r);
	fake_set(&fake, "portal_group.create",
		 "{\"result\": {\"tag\": 2, \"portals\": [\"127.0.0.1:3260\"], \"listening\": "
		 "[\"127.0.0.1:3601\"]}}");
	r = run(false, W("tpg", "create", "t", "2", "127.0.0.1:3260"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "portal group 2 of t created; portal group 2 listens on "
				   "127.0.0.1:3601\n");
	run_free(&r);
}

/* A "set" with a dotted field merges into the current nested object. */
static void test_set_nested(void **state)
{
	fake_set(&fake, "target.get",
		 "{\"result\": {\"name\": \"t\", \"demo_mode\": {\"enabled\": false, "
		 "\"read_only\": true}}}");
	expect_request(W("target", "set", "t", "demo_mode.enabled=true"),
		       "{\"method\":\"target.set\",\"params\":{\"demo_mode\":{\"enabled\":true,"
		       "\"read_only\":true},\"name\":\"t\"}}",
		       CLI_OK);
	expect_request(W("settings", "set", "iscsi.queue_depth=64"),
		       "{\"method\":\"settings.set\",\"params\":{\"iscsi\":{\"queue_depth\":64}}}",
		       CLI_OK);
}

/* chap: read the object's auth, change one credential, write it back. */
static void test_chap(void **state)
{
	fake_set(&fake, "target.get",
		 "{\"result\": {\"name\": \"t\", \"auth\": {\"chap\": [{\"user\": \"a\", "
		 "\"secret\": \"a-secret-1234\"}], \"algorithms\": [\"MD5\"]}}}");
	expect_request(
	    W("chap", "add", "t", "b", "b-secret-1234"),
	    "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":[\"MD5\"],"
	    "\"chap\":[{\"secret\":\"a-secret-1234\",\"user\":\"a\"},{\"secret\":\"b-secret-"
	    "1234\",\"user\":\"b\"}]},\"name\":\"t\"}}",
	    CLI_OK);
	/* the same user again: its secret changes */
	expect_request(
	    W("chap", "add", "t", "a", "new-secret-123"),
	    "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":[\"MD5\"],"
	    "\"chap\":[{\"secret\":\"new-secret-123\",\"user\":\"a\"}]},\"name\":\"t\"}}",
	    CLI_OK);
	/* a short secret: only with --force, which says so in the credential */
	expect_request(
	    W("chap", "add", "t", "c", "abc", "--force"),
	    "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":[\"MD5\"],"
	    "\"chap\":[{\"secret\":\"a-secret-1234\",\"user\":\"a\"},{\"allow_short\":true,"
	    "\"secret\":\"abc\",\"user\":\"c\"}]},\"name\":\"t\"}}",
	    CLI_OK);
	{
		struct run r = run(false, W("chap", "add", "t", "d", "a-secret-of-20-bytes"));

		assert_int_equal(r.rc, CLI_OK);
		assert_string_equal(r.err, "utarget: warning: the secret has 20 bytes: Microsoft's "
					   "initiator accepts 12 to 16 only\n");
		run_free(&r);
	}
	expect_request(
	    W("chap", "mutual", "t", "tgt", "tgt-secret-99"),
	    "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":[\"MD5\"],"
	    "\"chap\":[{\"secret\":\"a-secret-1234\",\"user\":\"a\"}],\"mutual\":{\"secret\""
	    ":\"tgt-secret-99\",\"user\":\"tgt\"}},\"name\":\"t\"}}",
	    CLI_OK);
	/* a member removed is written null: target.set merges "auth" member
	 * by member, a member left out would stay */
	expect_request(W("chap", "mutual", "t", "none"),
		       "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":[\"MD5\"],"
		       "\"chap\":[{\"secret\":\"a-secret-1234\",\"user\":\"a\"}],\"mutual\":null},"
		       "\"name\":\"t\"}}",
		       CLI_OK);
	expect_request(W("chap", "algorithms", "t", "all"),
		       "{\"method\":\"target.set\",\"params\":{\"auth\":{\"algorithms\":null,"
		       "\"chap\":[{\"secret\":\"a-secret-1234\",\"user\":\"a\"}]},\"name\":\"t\"}}",
		       CLI_OK);
	/* the last user removed: no auth at all */
	expect_request(W("chap", "delete", "t", "a"),
		       "{\"method\":\"target.set\",\"params\":{\"auth\":null,\"name\":\"t\"}}",
		       CLI_OK);
	expect_request(W("chap", "delete", "t", "nobody"),
		       "{\"method\":\"target.get\",\"params\":{\"name\":\"t\"}}", CLI_ENOTFOUND);
	/* an ACL's own credentials; discovery's */
	fake_set(&fake, "acl.list", "{\"result\": [{\"initiator\": \"i\"}]}");
	expect_request(W("chap", "add", "t", "u", "u-secret-1234", "--initiator", "i"),
		       "{\"method\":\"acl.set\",\"params\":{\"auth\":{\"chap\":[{\"secret\":\"u-"
		       "secret-1234\",\"user\":\"u\"}]},\"initiator\":\"i\",\"target\":\"t\"}}",
		       CLI_OK);
	fake_set(&fake, "acl.list",
		 "{\"result\": [{\"initiator\": \"i\"}, {\"addresses\": [\"10.0.0.0/8\", "
		 "\"fd00::/8\"]}]}");
	expect_request(W("chap", "add", "t", "n", "n-secret-1234", "-i", "@10.0.0.0/8,fd00::/8"),
		       "{\"method\":\"acl.set\",\"params\":{\"auth\":{\"chap\":[{\"secret\":\"n-"
		       "secret-1234\",\"user\":\"n\"}]},\"initiator\":\"@10.0.0.0/8,fd00::/8\","
		       "\"target\":\"t\"}}",
		       CLI_OK);
	expect_request(W("chap", "add", "t", "u", "u-secret-1234", "--initiator", "j"),
		       "{\"method\":\"acl.list\",\"params\":{\"target\":\"t\"}}", CLI_ENOTFOUND);
	fake_set(&fake, "settings.get", "{\"result\": {\"log_level\": \"notice\"}}");
	expect_request(W("chap", "add", "--discovery", "d", "d-secret-1234"),
		       "{\"method\":\"settings.set\",\"params\":{\"discovery\":{\"auth\":{\"chap\":"
		       "[{\"secret\":\"d-secret-1234\",\"user\":\"d\"}]}}}}",
		       CLI_OK);
	expect_request(W("chap", "add", "--discovery", "t", "d", "x"), NULL, CLI_EUSAGE);
}

/* alua: state changes live; group edits rewrite the port_groups list. */
static void test_isns(void **state)
{
	(void)state;
	expect_request(W("isns", "set", "127.0.0.1:3550"),
		       "{\"method\":\"isns.set\",\"params\":{\"enabled\":true,\"server\":"
		       "\"127.0.0.1:3550\"}}",
		       CLI_OK);
	expect_request(W("isns", "set", "[2001:db8::1]", "--entity", "e1", "--esi-port", "3207",
			 "--access-control"),
		       "{\"method\":\"isns.set\",\"params\":{\"access_control\":true,\"enabled\":"
		       "true,\"entity\":\"e1\",\"esi_port\":3207,\"server\":\"[2001:db8::1]\"}}",
		       CLI_OK);
	expect_request(W("isns", "set", "h", "--no-access-control"),
		       "{\"method\":\"isns.set\",\"params\":{\"access_control\":false,"
		       "\"enabled\":true,\"server\":\"h\"}}",
		       CLI_OK);
	expect_request(W("isns", "off"), "{\"method\":\"isns.set\",\"params\":{\"enabled\":false}}",
		       CLI_OK);
	/* refused before anything is sent */
	expect_request(W("isns", "set", "h:0"), NULL, CLI_EUSAGE);
	expect_request(W("isns", "set", "[::1"), NULL, CLI_EUSAGE);
	expect_request(W("isns", "set", "h", "--access-control", "--no-access-control"), NULL,
		       CLI_EUSAGE);
	expect_request(W("isns", "set", "h", "--esi-port", "70000"), NULL, CLI_EUSAGE);
	expect_request(W("isns", "set"), NULL, CLI_EUSAGE);
}

static void test_alua(void **state)
{
	fake_set(&fake, "alua.list",
		 "{\"result\": [{\"id\": 1, \"state\": \"active/optimized\", \"members\": "
		 "[{\"target\": \"iqn.2026-12.org.example:t\", \"tag\": 1}]}]}");
	expect_request(W("alua", "state", "1", "standby", "--backstore", "d"),
		       "{\"method\":\"alua.set_state\",\"params\":{\"backstore\":\"d\",\"group\":1,"
		       "\"state\":\"standby\"}}",
		       CLI_OK);
	expect_request(
	    W("alua", "create", "2", "--member", "iqn.2026-12.org.example:t:2", "name=b",
	      "preferred=yes", "transition_ms=500"),
	    "{\"method\":\"settings.set\",\"params\":{\"port_groups\":[{\"id\":1,"
	    "\"members\":[{\"tag\":1,\"target\":\"iqn.2026-12.org.example:t\"}],\"state\":"
	    "\"active/optimized\"},{\"id\":2,\"members\":[{\"tag\":2,\"target\":\"iqn.2026-"
	    "12.org.example:t\"}],\"name\":\"b\",\"preferred\":true,\"transition_ms\":500}]}}",
	    CLI_OK);
	expect_request(
	    W("alua", "set", "1", "--remove-member", "iqn.2026-12.org.example:t:1",
	      "explicit=true"),
	    "{\"method\":\"settings.set\",\"params\":{\"port_groups\":[{\"explicit\":true,"
	    "\"id\":1,\"members\":[],\"state\":\"active/optimized\"}]}}",
	    CLI_OK);
	expect_request(W("alua", "delete", "1"),
		       "{\"method\":\"settings.set\",\"params\":{\"port_groups\":[]}}", CLI_OK);
	expect_request(W("alua", "create", "1"), "{\"method\":\"alua.list\",\"params\":{}}",
		       CLI_EEXISTS);
	expect_request(W("alua", "delete", "9"), "{\"method\":\"alua.list\",\"params\":{}}",
		       CLI_ENOTFOUND);
	expect_request(W("alua", "create", "3", "--member", "notag"),
		       "{\"method\":\"alua.list\","
		       "\"params\":{}}",
		       CLI_EUSAGE);
}

static void test_errors(void **state)
{
	struct run r;

	fake_set(&fake, "backstore.get",
		 "{\"error\": {\"code\": -32002, \"message\": \"no back-store named \\\"x\\\"\", "
		 "\"data\": {\"kind\": \"backstore\", \"name\": \"x\"}}}");
	r = run(false, W("backstore", "show", "x"));
	assert_int_equal(r.rc, CLI_ENOTFOUND);
	assert_string_equal(r.err, "utarget: no back-store named \"x\"\n");
	run_free(&r);
	fake_set(&fake, "backstore.delete",
		 "{\"error\": {\"code\": -32004, \"message\": \"back-store d is mapped\", "
		 "\"data\": {\"kind\": \"backstore\", \"name\": \"d\", \"used_by\": "
		 "[\"iqn.2026-12.org.example:t1 LUN 0\"]}}}");
	r = run(false, W("backstore", "delete", "d"));
	assert_int_equal(r.rc, CLI_EREJECTED);
	assert_string_equal(r.err, "utarget: back-store d is mapped (used by "
				   "iqn.2026-12.org.example:t1 LUN 0)\n");
	run_free(&r);
	fake_set(&fake, "target.create",
		 "{\"error\": {\"code\": -32003, \"message\": \"target exists\"}}");
	r = run(false, W("target", "create", "iqn.2026-12.org.example:t1"));
	assert_int_equal(r.rc, CLI_EEXISTS);
	run_free(&r);
}

/* config check FILE: the daemon's error located in the local file. */
static void test_config_check(void **state)
{
	char path[] = "/tmp/utarget-check-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "{\n  \"version\": 1,\n  \"backstores\": [\n    { \"name\": \"d\",\n"
			   "      \"type\": \"ram\", \"size\": 1000, \"block_size\": 4096 } ]\n}\n";
	struct run r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	fake_set(&fake, "config.check",
		 "{\"error\": {\"code\": -32001, \"message\": \"invalid\", \"data\": {\"path\": "
		 "\"backstores[0].size\", \"message\": \"not a multiple of the block size\"}}}");
	r = run(false, W("config", "check", path));
	assert_int_equal(r.rc, CLI_EREJECTED);
	{
		char want[256];
		snprintf(want, sizeof(want),
			 "utarget: %s:5: backstores[0].size: not a multiple of the block size\n",
			 path);
		assert_string_equal(r.err, want);
	}
	run_free(&r);
	/* the document sent is the file's, with state_dir made absolute */
	{
		char *req = fake_request(&fake, fake_count(&fake) - 1);
		assert_non_null(strstr(req, "\"method\":\"config.check\""));
		assert_non_null(strstr(req, "\"state_dir\":\"/"));
		assert_non_null(strstr(req, "\"block_size\":4096"));
		free(req);
	}
	/* --local: the tool's own check, no daemon */
	r = run(false, W("config", "check", "--local", path));
	assert_int_equal(r.rc, CLI_EINPUT);
	assert_non_null(strstr(r.err, ":5: backstores[0]"));
	run_free(&r);
	unlink(path);
	r = run(false, W("config", "check", "/nonexistent/x.json"));
	assert_int_equal(r.rc, CLI_EINPUT);
	run_free(&r);
	/* the daemon's own file, checked or reloaded: its file and line, as
	 * for a FILE given here */
	fake_set(&fake, "config.check",
		 "{\"error\": {\"code\": -32001, \"message\": \"backstores[0].size: not a "
		 "multiple of the block size\", \"data\": {\"path\": \"backstores[0].size\", "
		 "\"line\": 7, \"file\": \"/etc/utarget/u.json\", \"message\": \"not a multiple "
		 "of the block size\"}}}");
	r = run(false, W("config", "check"));
	assert_int_equal(r.rc, CLI_EREJECTED);
	assert_string_equal(r.err, "utarget: /etc/utarget/u.json:7: backstores[0].size: not a "
				   "multiple of the block size\n");
	run_free(&r);
	fake_set(&fake, "config.reload",
		 "{\"error\": {\"code\": -32005, \"message\": \"targets[1].portal_groups[0]."
		 "portals[0]: cannot listen\", \"data\": {\"path\": \"targets[1].portal_groups[0]."
		 "portals[0]\", \"file\": \"/etc/utarget/u.json\", \"errno\": 98, \"message\": "
		 "\"cannot listen on 192.0.2.1:3260: Address already in use\"}}}");
	r = run(false, W("config", "reload"));
	assert_int_equal(r.rc, CLI_EREJECTED);
	assert_string_equal(r.err, "utarget: /etc/utarget/u.json: targets[1].portal_groups[0]."
				   "portals[0]: cannot listen on 192.0.2.1:3260: Address already "
				   "in use\n");
	run_free(&r);
}

/* An import is one config.transaction: settings, back-stores, targets,
 * then the ALUA groups added to the daemon's (they name the targets). */
static void test_import_apply(void **state)
{
	size_t before = fake_count(&fake);
	struct run r;
	json_t *req, *reqs;
	char *s;

	fake_set(&fake, "alua.list",
		 "{\"result\": [{\"id\": 3, \"state\": \"active/optimized\", \"members\": []}]}");
	r = run(false, W("import", "lio", SOURCE_ROOT "/tests/data/import/lio/alua.saveconfig.json",
			 "--partial"));
	assert_int_equal(r.rc, CLI_OK);
	assert_non_null(strstr(r.out, "imported 3 back-stores and 1 target"));
	assert_non_null(strstr(r.err, "dropped: "));
	run_free(&r);
	assert_int_equal(fake_count(&fake), before + 2); /* alua.list, config.transaction */
	s = fake_request(&fake, before + 1);
	req = json_loads(s, 0, NULL);
	free(s);
	assert_string_equal(json_string_value(json_object_get(req, "method")),
			    "config.transaction");
	reqs = json_object_get(json_object_get(req, "params"), "requests");
	assert_int_equal(json_array_size(reqs), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "method")),
			    "backstore.create");
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 3), "method")),
			    "target.create");
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 4), "method")),
			    "settings.set");
	/* the daemon's group 3, then the imported 10 and 20 */
	{
		json_t *pgs = json_object_get(json_object_get(json_array_get(reqs, 4), "params"),
					      "port_groups");
		assert_int_equal(json_array_size(pgs), 3);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(pgs, 0), "id")),
				 3);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(pgs, 2), "id")),
				 20);
	}
	json_decref(req);
	/* without --partial nothing is sent (exit 6); --dry-run sends nothing */
	before = fake_count(&fake);
	r = run(false,
		W("import", "lio", SOURCE_ROOT "/tests/data/import/lio/alua.saveconfig.json"));
	assert_int_equal(r.rc, CLI_EPARTIAL);
	run_free(&r);
	r = run(false, W("import", "tgt", SOURCE_ROOT "/tests/data/import/tgt/access.conf",
			 "--dry-run", "--partial"));
	assert_int_equal(r.rc, CLI_OK);
	assert_non_null(strstr(r.out, "\"version\": 1"));
	run_free(&r);
	assert_int_equal(fake_count(&fake), before);
	/* an unreadable file, a syntax error: exit 7 */
	r = run(false, W("import", "tgt", "/nonexistent/targets.conf"));
	assert_int_equal(r.rc, CLI_EINPUT);
	run_free(&r);
}

static void test_output(void **state)
{
	struct run r;

	fake_set(&fake, "lun.list",
		 "{\"result\": [{\"lun\": 0, \"backstore\": \"disk1\", \"read_only\": false}, "
		 "{\"lun\": 12, \"backstore\": \"a-longer-name\", \"read_only\": true}]}");
	r = run(false, W("lun", "list", "t"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "LUN  BACKSTORE      READ_ONLY\n"
				   "0    disk1          no\n"
				   "12   a-longer-name  yes\n");
	run_free(&r);
	r = run(true, W("lun", "list", "t"));
	assert_string_equal(r.out, "[\n  {\n    \"backstore\": \"disk1\",\n    \"lun\": 0,\n    "
				   "\"read_only\": false\n  },\n  {\n    \"backstore\": \"a-longer-"
				   "name\",\n    \"lun\": 12,\n    \"read_only\": true\n  }\n]\n");
	run_free(&r);
	/* a control character from the daemon is escaped for people */
	fake_set(&fake, "backstore.get",
		 "{\"result\": {\"name\": \"d\", \"vendor\": \"a\\u001bb\", \"size\": 1024}}");
	r = run(false, W("backstore", "show", "d"));
	assert_non_null(strstr(r.out, "a\\x1bb"));
	assert_null(strchr(r.out, 0x1b));
	run_free(&r);
	/* --help prints the command's help and calls nothing */
	r = run(false, W("lun", "add", "--help"));
	assert_int_equal(r.rc, CLI_OK);
	assert_non_null(strstr(r.out, "Usage: utarget lun add TARGET BACKSTORE [LUN]"));
	run_free(&r);
}

/* Listings show what the daemon knows: a back-store's size now (an image
 * used at its own size has none in the config), a session's age and
 * counters in the table, everything it negotiated in session show. */
static void test_listings(void **state)
{
	struct run r;
	char buf[64];

	fake_set(&fake, "backstore.list",
		 "{\"result\": [{\"name\": \"imp\", \"type\": \"file\", \"block_size\": 512, "
		 "\"path\": \"/srv/imp.img\", \"current_size\": 3146240, \"mapped\": []}, "
		 "{\"name\": \"r\", \"type\": \"ram\", \"size\": \"8M\", \"block_size\": 512, "
		 "\"current_size\": 8388608, \"thin\": true, \"mapped\": [{\"target\": \"t\", "
		 "\"lun\": 0}]}, {\"name\": \"n\", \"type\": \"null\", \"size\": 4096, "
		 "\"block_size\": 512, \"mapped\": []}]}");
	r = run(false, W("backstore", "list"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "NAME  TYPE  SIZE     BLOCK  PATH          FLAGS  MAPPED\n"
				   "imp   file  3146240  512    /srv/imp.img  -      0\n"
				   "r     ram   8M       512    -             thin   1\n"
				   "n     null  4096     512    -             -      0\n");
	run_free(&r);

	fake_set(&fake, "session.list",
		 "{\"result\": [{\"tsih\": 7, \"type\": \"normal\", \"target\": \"t\", "
		 "\"tpgt\": 1, \"initiator\": \"i\", \"login_time\": \"2999-01-01T00:00:00Z\", "
		 "\"negotiated\": {\"error_recovery_level\": 0, \"max_burst_length\": 262144}, "
		 "\"stats\": {\"commands\": 99, \"read_bytes\": 50688, \"write_bytes\": 0}, "
		 "\"connections\": [{\"cid\": 0, \"peer\": \"127.0.0.1:4000\", \"header_digest\": "
		 "\"CRC32C\", \"data_digest\": \"None\", \"max_recv_data_segment_length\": "
		 "{\"target\": 262144, \"initiator\": 65536}}]}]}");
	r = run(false, W("session", "list"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "TSIH  TYPE    TARGET  TPGT  INITIATOR  CONNECTIONS       AGE  "
				   "COMMANDS  READ   WRITTEN\n"
				   "7     normal  t       1     i          0:127.0.0.1:4000  0s   "
				   "99        49.5K  0\n");
	run_free(&r);
	r = run(false, W("session", "show", "7"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "connections:\n"
				   "  - [0]\n"
				   "    cid                            0\n"
				   "    data_digest                    None\n"
				   "    header_digest                  CRC32C\n"
				   "    max_recv_data_segment_length:\n"
				   "      initiator   65536\n"
				   "      target      262144\n"
				   "    peer                           127.0.0.1:4000\n"
				   "initiator     i\n"
				   "login_time    2999-01-01T00:00:00Z\n"
				   "negotiated:\n"
				   "  error_recovery_level   0\n"
				   "  max_burst_length       262144\n"
				   "stats:\n"
				   "  commands      99\n"
				   "  read_bytes    50688\n"
				   "  write_bytes   0\n"
				   "target        t\n"
				   "tpgt          1\n"
				   "tsih          7\n"
				   "type          normal\n");
	run_free(&r);
	r = run(true, W("session", "get", "7"));
	assert_int_equal(r.rc, CLI_OK);
	assert_int_equal(r.out[0], '{'); /* the session, not the list */
	assert_non_null(strstr(r.out, "\"read_bytes\": 50688"));
	run_free(&r);
	r = run(false, W("session", "show", "8"));
	assert_int_equal(r.rc, CLI_ENOTFOUND);
	assert_string_equal(r.err, "utarget: no session with TSIH 8\n");
	run_free(&r);
	expect_request(W("session", "show", "x"), NULL, CLI_EUSAGE);

	/* the helpers */
	out_size(3145728, buf, sizeof(buf));
	assert_string_equal(buf, "3M");
	out_size(3146240, buf, sizeof(buf));
	assert_string_equal(buf, "3146240");
	out_size(10ull << 40, buf, sizeof(buf));
	assert_string_equal(buf, "10T");
	out_size(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	out_bytes(1023, buf, sizeof(buf));
	assert_string_equal(buf, "1023");
	out_bytes(1024, buf, sizeof(buf));
	assert_string_equal(buf, "1K");
	out_bytes(1048575, buf, sizeof(buf)); /* 1023.999K */
	assert_string_equal(buf, "1M");
	out_bytes(150ull << 20, buf, sizeof(buf));
	assert_string_equal(buf, "150M");
	out_bytes((5ull << 30) + (1ull << 29), buf, sizeof(buf));
	assert_string_equal(buf, "5.5G");
	out_age("2026-05-01T12:00:00Z", 1777636800 + 42, buf, sizeof(buf)); /* that + 42 s */
	assert_string_equal(buf, "42s");
	out_age("2026-05-01T12:00:00Z", 1777636800 + 3 * 60 + 5, buf, sizeof(buf));
	assert_string_equal(buf, "3m05s");
	out_age("2026-05-01T12:00:00Z", 1777636800 + 2 * 3600 + 7 * 60 + 59, buf, sizeof(buf));
	assert_string_equal(buf, "2h07m");
	out_age("2026-05-01T12:00:00Z", 1777636800 + 3 * 86400 + 4 * 3600, buf, sizeof(buf));
	assert_string_equal(buf, "3d04h");
	out_age("2026-05-01T12:00:00Z", 1777636800 - 5, buf, sizeof(buf));
	assert_string_equal(buf, "0s");
	out_age("yesterday", 1777636800, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	out_age(NULL, 1777636800, buf, sizeof(buf));
	assert_string_equal(buf, "-");
}

/* reservation get|clear (cmd_reservation.c): the requests, the table of
 * registrations, the confirmation line, exit statuses. */
static void test_reservation(void **state)
{
	struct run r;

	expect_request(W("reservation", "clear", "d0"),
		       "{\"method\":\"reservation.clear\",\"params\":{\"backstore\":\"d0\"}}",
		       CLI_OK);
	expect_request(W("reservation", "clear", "d0", "-i", "iqn.2026-12.org.example:h"),
		       "{\"method\":\"reservation.clear\",\"params\":{\"backstore\":\"d0\","
		       "\"initiator\":\"iqn.2026-12.org.example:h\"}}",
		       CLI_OK);
	expect_request(W("reservation", "clear"), NULL, CLI_EUSAGE);
	expect_request(W("reservation", "clear", "d0", "d1"), NULL, CLI_EUSAGE);
	expect_request(W("reservation", "clear", "d0", "--initiator"), NULL, CLI_EUSAGE);
	expect_request(W("reservation", "show", "d0"),
		       "{\"method\":\"reservation.get\",\"params\":{\"backstore\":\"d0\"}}",
		       CLI_OK);

	fake_set(&fake, "reservation.get",
		 "{\"result\": {\"generation\": 7, \"aptpl\": true, \"registrations\": ["
		 "{\"key\": \"0x00000000000000a1\", \"initiator\": \"iqn.x:a\", \"isid\": "
		 "\"8000001a0000\", \"rel_port\": 1, \"all_tg_pt\": false, \"holder\": true},"
		 "{\"key\": \"0x00000000000000b2\", \"initiator\": \"iqn.x:b\", \"isid\": \"\", "
		 "\"all_tg_pt\": true, \"holder\": false}], \"reservation\": {\"type\": 5, "
		 "\"name\": \"Write Exclusive - Registrants Only\", \"all_registrants\": false, "
		 "\"holder\": {\"key\": \"0x00000000000000a1\", \"initiator\": \"iqn.x:a\", "
		 "\"isid\": \"8000001a0000\", \"rel_port\": 1, \"all_tg_pt\": false, "
		 "\"holder\": true}}}}");
	r = run(false, W("reservation", "get", "d0"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out,
			    "generation: 7\n"
			    "aptpl: yes (persists across restarts)\n"
			    "reservation: Write Exclusive - Registrants Only (type 5), held by "
			    "iqn.x:a,i,0x8000001a0000\n"
			    "registrations:\n"
			    "KEY                 INITIATOR PORT            TARGET PORT  HOLDER\n"
			    "0x00000000000000a1  iqn.x:a,i,0x8000001a0000  1            yes\n"
			    "0x00000000000000b2  iqn.x:b                   all          no\n");
	run_free(&r);
	r = run(true, W("reservation", "get", "d0"));
	assert_int_equal(r.rc, CLI_OK);
	assert_non_null(strstr(r.out, "\"generation\": 7"));
	run_free(&r);

	fake_set(&fake, "reservation.clear",
		 "{\"result\": {\"backstore\": \"d0\", \"initiator\": \"iqn.x:a\", "
		 "\"removed\": 1, \"released\": true, \"generation\": 8}}");
	r = run(false, W("reservation", "clear", "d0", "--initiator=iqn.x:a"));
	assert_int_equal(r.rc, CLI_OK);
	assert_string_equal(r.out, "d0: 1 registration of iqn.x:a removed, reservation released\n");
	run_free(&r);
	fake_set(&fake, "reservation.clear",
		 "{\"error\": {\"code\": -32002, \"message\": \"no persistent reservation "
		 "registration of \\\"iqn.x:c\\\" on back-store \\\"d0\\\"\", \"data\": {\"kind\": "
		 "\"registration\", \"name\": \"iqn.x:c\"}}}");
	r = run(false, W("reservation", "clear", "d0", "-i", "iqn.x:c"));
	assert_int_equal(r.rc, CLI_ENOTFOUND);
	assert_non_null(strstr(r.err, "no persistent reservation registration"));
	run_free(&r);
	fake_set(&fake, "reservation.clear",
		 "{\"error\": {\"code\": -32006, \"message\": \"the persistent reservation "
		 "state file could not be written\"}}");
	r = run(false, W("reservation", "clear", "d0"));
	assert_int_equal(r.rc, CLI_EREJECTED);
	run_free(&r);
}

/* The daemon cannot be reached: exit 2, one line. */
static void test_unreachable(void **state)
{
	struct cli c = {.socket = "/tmp/utarget-nothing-here.sock", .timeout_ms = 1000};
	char *out = NULL, *err = NULL;
	size_t ol, el;

	rpc_client_init(&c.rpc, 1000);
	c.out = open_memstream(&out, &ol);
	c.err = open_memstream(&err, &el);
	assert_int_equal(cli_run(&c, cli_find("target", "list"), 0, NULL), CLI_EUNREACHABLE);
	fclose(c.out);
	fclose(c.err);
	assert_non_null(strstr(err, "cannot reach utargetd at /tmp/utarget-nothing-here.sock"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backstore),
	    cmocka_unit_test(test_target_lun_acl),
	    cmocka_unit_test(test_target_listening),
	    cmocka_unit_test(test_set_nested),
	    cmocka_unit_test(test_chap),
	    cmocka_unit_test(test_alua),
	    cmocka_unit_test(test_isns),
	    cmocka_unit_test(test_config_check),
	    cmocka_unit_test(test_import_apply),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_output),
	    cmocka_unit_test(test_unreachable),
	    cmocka_unit_test(test_reservation),
	    cmocka_unit_test(test_listings),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
