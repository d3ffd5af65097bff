/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/validate.c: every verification rule, iSCSI name
 * and portal syntax, relative port id assignment, default identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/validate.c"

static const struct cfg_iscsi_settings defaults = {
    .max_burst_length = 262144,
    .first_burst_length = 65536,
};

/* A valid base document: extra back-stores spliced into the backstores
 * array, extra fields into the first target. The target maps d0 at LUN 0
 * unless target_extra brings its own "luns". */
static char *doc(const char *bs_extra, const char *target_extra)
{
	static const char fmt[] =
	    "{\"version\": 1, \"state_dir\": \"/srv/ut\",\n"
	    "\"backstores\": [\n"
	    "{\"name\": \"d0\", \"type\": \"file\", \"path\": \"d0.img\", \"size\": \"1M\", "
	    "\"create\": true},\n"
	    "{\"name\": \"r0\", \"type\": \"ram\", \"size\": \"1M\"}%s],\n"
	    "\"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\",\n"
	    "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]%s%s}]}\n";
	bool own_luns = strncmp(target_extra, ",\"luns\"", 7) == 0;
	char *s = NULL;

	if (asprintf(&s, fmt, bs_extra,
		     own_luns ? "" : ",\n\"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}]",
		     target_extra) < 0)
		fail();
	return s;
}

static struct cfg *parse_text_len(const char *text, size_t len)
{
	struct cfg *c = NULL;
	struct cfg_err e;

	if (cfg_parse(text, len, &defaults, &c, &e))
		fail_msg("parse: line %d: %s: %s", e.line, e.path, e.msg);
	return c;
}

static struct cfg *parse(const char *text)
{
	return parse_text_len(text, strlen(text));
}

static void validate_ok(const char *bs_extra, const char *target_extra)
{
	char *text = doc(bs_extra, target_extra);
	struct cfg *c = parse(text);
	struct cfg_err e;

	if (cfg_validate(c, &e))
		fail_msg("verify: %s: %s", e.path, e.msg);
	cfg_free(c);
	free(text);
}

/* The first violation must be at path, with msg in the message, and the
 * locator must find a line for it in the text. */
static void validate_err_text(const char *text, const char *path, const char *msg)
{
	struct cfg *c = parse(text);
	struct cfg_err e;

	assert_int_equal(cfg_validate(c, &e), -EINVAL);
	if (strcmp(e.path, path) != 0 || !strstr(e.msg, msg))
		fail_msg("got \"%s\": \"%s\"; want \"%s\": ~\"%s\"", e.path, e.msg, path, msg);
	assert_true(cfg_locate_line(text, strlen(text), e.path) >= 1);
	cfg_free(c);
}

static void validate_err(const char *bs_extra, const char *target_extra, const char *path,
			 const char *msg)
{
	char *text = doc(bs_extra, target_extra);

	validate_err_text(text, path, msg);
	free(text);
}

static void test_base_is_valid(void **state)
{
	(void)state;
	validate_ok("", "");
	validate_ok(
	    ",{\"name\": \"n0\", \"type\": \"null\", \"size\": \"1T\", \"block_size\": 4096}",
	    ",\"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\"},"
	    "{\"initiator\": \"eui.0123456789ABCDEF\", \"luns\": [{\"lun\": 5, "
	    "\"backstore\": \"r0\"}]}],"
	    "\"demo_mode\": {\"enabled\": true, \"read_only\": true}");
}

static void test_demo_config_is_valid(void **state)
{
	FILE *f = fopen(SOURCE_ROOT "/etc/utarget-demo.json", "r");
	char buf[8192];
	size_t n;

	(void)state;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	struct cfg *c = parse_text_len(buf, n);
	struct cfg_err e;
	if (cfg_validate(c, &e))
		fail_msg("demo config: %s: %s", e.path, e.msg);
	/* what the README promises */
	assert_int_equal(c->ntargets, 1);
	assert_string_equal(c->targets[0].name, "iqn.2026-12.org.utarget:default");
	assert_true(c->targets[0].demo);
	assert_false(c->targets[0].demo_read_only);
	assert_string_equal(c->targets[0].tpgs[0].portals[0], "127.0.0.1:3260");
	assert_int_equal(c->targets[0].luns.v[0].lun, 0);
	assert_false(c->targets[0].luns.v[0].read_only);
	assert_string_equal(c->bs[0].type, "file");
	assert_int_equal(c->bs[0].size, 1ull << 30);
	assert_true(c->bs[0].thin);
	assert_true(c->bs[0].create);
	/* run-demo.sh starts utargetd in state/: every file of the demo is there */
	assert_string_equal(c->state_dir, ".");
	assert_string_equal(c->log_level, "info");
	cfg_free(c);
}

static void test_backstore_rules(void **state)
{
	(void)state;
	validate_err(",{\"name\": \"d0\", \"type\": \"ram\", \"size\": 4096}", "",
		     "backstores[2].name", "duplicate back-store name \"d0\" (also backstores[0])");
	validate_err(",{\"name\": \"a b\", \"type\": \"ram\", \"size\": 4096}", "",
		     "backstores[2].name", "only letters");
	validate_err(",{\"name\": \"x/y\", \"type\": \"ram\", \"size\": 4096}", "",
		     "backstores[2].name", "only letters");
	validate_err(",{\"name\": \"x\", \"type\": \"tape\", \"size\": 4096}", "",
		     "backstores[2].type", "unknown back-store type \"tape\"");
	validate_err(",{\"name\": \"x\", \"type\": \"rbd\", \"path\": \"rbd/i\", \"size\": 4096}",
		     "", "backstores[2].size", "not used by type rbd (the size is the image's)");
	validate_err(",{\"name\": \"x\", \"type\": \"rbd\"}", "", "backstores[2].path",
		     "required field missing (type rbd)");
	/* sg: a device path; its size and block size are the device's */
	validate_err(",{\"name\": \"x\", \"type\": \"sg\"}", "", "backstores[2].path",
		     "required field missing (type sg)");
	validate_err(",{\"name\": \"x\", \"type\": \"sg\", \"path\": \"/dev/sg1\", \"size\": 4096}",
		     "", "backstores[2].size", "not used by type sg (the size is the device's)");
	validate_err(",{\"name\": \"x\", \"type\": \"file\"}", "", "backstores[2].path",
		     "required field missing (type file)");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"path\": \"p\", \"size\": 4096}", "",
		     "backstores[2].path", "not used by type ram");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\"}", "", "backstores[2].size",
		     "required field missing (ram)");
	validate_err(",{\"name\": \"x\", \"type\": \"null\"}", "", "backstores[2].size",
		     "required field missing (null)");
	validate_err(",{\"name\": \"x\", \"type\": \"file\", \"path\": \"x\", \"create\": true}",
		     "", "backstores[2].size", "required field missing (create)");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096, \"create\": true}", "",
		     "backstores[2].create", "not used by type ram");
	validate_err(",{\"name\": \"x\", \"type\": \"file\", \"path\": \"x\", \"size\": 4096,"
		     " \"create\": true, \"read_only\": true}",
		     "", "backstores[2].create", "read-only");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 8192, \"block_size\": 520}",
		     "", "backstores[2].block_size", "520 is not one of 512, 1024, 2048, 4096");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 6144, \"block_size\": 4096}",
		     "", "backstores[2].size", "6144 bytes is not a multiple of block_size 4096");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 1000}", "",
		     "backstores[2].size", "not a multiple of block_size 512");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096, \"vendor\": \"A\\tB\"}",
		     "", "backstores[2].vendor", "printable ASCII");
	validate_err(
	    ",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096, \"product\": \"\\u00e9\"}", "",
	    "backstores[2].product", "printable ASCII");
	validate_err(
	    ",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096, \"serial\": \"a\\u0001\"}", "",
	    "backstores[2].serial", "printable ASCII");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096, \"naa\": \"5001405\"}",
		     "", "backstores[2].naa", "32 hex digits starting with 6");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096,"
		     " \"naa\": \"50014051234567890123456789abcdef\"}",
		     "", "backstores[2].naa", "starting with 6");
	validate_err(",{\"name\": \"x\", \"type\": \"ram\", \"size\": 4096,"
		     " \"naa\": \"6001405123456789012345678zabcdef\"}",
		     "", "backstores[2].naa", "hex");
	/* volumes of one dedup store share its directory; a size is required */
	validate_ok(",{\"name\": \"v1\", \"type\": \"dedup\", \"path\": \"st\", \"size\": 8192},"
		    "{\"name\": \"v2\", \"type\": \"dedup\", \"path\": \"st\", \"size\": 8192}",
		    "");
	validate_err(",{\"name\": \"x\", \"type\": \"dedup\", \"path\": \"st\"}", "",
		     "backstores[2].size", "required field missing (dedup)");
	validate_err(",{\"name\": \"x\", \"type\": \"dedup\", \"size\": 8192}", "",
		     "backstores[2].path", "required field missing (type dedup)");
	/* the same file twice (relative vs absolute spelling) */
	validate_err(",{\"name\": \"x\", \"type\": \"file\", \"path\": \"/srv/ut/d0.img\"}", "",
		     "backstores[2].path", "the same file as backstores[0]");
	validate_ok(",{\"name\": \"x\", \"type\": \"file\", \"path\": \"/srv/ut/d1.img\","
		    " \"read_only\": true}",
		    "");
}

static void test_target_rules(void **state)
{
	static const char second[] =
	    "\"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\",\n"
	    "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]},\n"
	    "{\"name\": \"iqn.2026-12.org.utarget:a\",\n"
	    "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]}]}";
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "{\"version\": 1, %s", second);
	validate_err_text(text, "targets[1].name", "duplicate target name (also targets[0])");
	/* RFC 3722: a name is read in its normalized form, so a name that
	 * differs in case only is the same name (lib/iname.h) */
	{
		struct cfg *c =
		    parse("{\"version\": 1, \"targets\": [{\"name\": "
			  "\"IQN.2026-12.org.Utarget:a\", \"portal_groups\": [{\"tag\": "
			  "1, \"portals\": [\"127.0.0.1:1\"]}], \"acls\": [{\"initiator\": "
			  "\"EUI.0123456789ABCDEF\"}]}]}");
		struct cfg_err e;

		assert_int_equal(cfg_validate(c, &e), 0);
		assert_string_equal(c->targets[0].name, "iqn.2026-12.org.utarget:a");
		assert_string_equal(c->targets[0].acls[0].initiator, "eui.0123456789abcdef");
		cfg_free(c);
	}
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
		 "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]},\n"
		 "{\"name\": \"IQN.2026-12.ORG.UTARGET:A\",\n"
		 "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}]}]}");
	validate_err_text(text, "targets[1].name", "duplicate target name (also targets[0])");
	validate_err_text("{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
			  "\"alias\": \"bell\\u0007\","
			  "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:1\"]}]}]}",
			  "targets[0].alias", "control characters");
	validate_ok("", ",\"alias\": \"d\\u00e9mo \\u2603\"");
	validate_err_text(
	    "{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\"}]}",
	    "targets[0].portal_groups", "at least one portal group");
	validate_err_text("{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
			  "\"portal_groups\": [{\"tag\": 1, \"portals\": []}]}]}",
			  "targets[0].portal_groups[0].portals", "at least one portal");
	validate_err_text("{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
			  "\"portal_groups\": [{\"tag\": 3, \"portals\": [\"127.0.0.1:1\"]},"
			  "{\"tag\": 3, \"portals\": [\"127.0.0.1:2\"]}]}]}",
			  "targets[0].portal_groups[1].tag",
			  "tag 3 is already used by portal_groups[0]");
	validate_err_text(
	    "{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
	    "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:1\", \"127.0.0.1:1\"]}]}]}",
	    "targets[0].portal_groups[0].portals[1]", "duplicate portal");
	validate_err_text("{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:a\","
			  "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"localhost:3260\"]}]}]}",
			  "targets[0].portal_groups[0].portals[0]",
			  "bad portal \"localhost:3260\"");
	/* explicit relative port ids: unique over the whole file */
	validate_err_text("{\"version\": 1, \"targets\": ["
			  "{\"name\": \"iqn.2026-12.org.utarget:a\","
			  "\"portal_groups\": [{\"tag\": 1, \"rel_port_id\": 5, \"portals\": "
			  "[\"127.0.0.1:1\"]}]},"
			  "{\"name\": \"iqn.2026-12.org.utarget:b\","
			  "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:1\"]},"
			  "{\"tag\": 2, \"rel_port_id\": 5, \"portals\": [\"127.0.0.1:1\"]}]}]}",
			  "targets[1].portal_groups[1].rel_port_id",
			  "5 is already used by targets[0].portal_groups[0]");
	/* the same portal in two targets is fine (shared listener) */
	snprintf(text, sizeof(text), "{\"version\": 1, %s", second);
	char *p = strstr(text, "utarget:a\",\n\"portal_groups\": [{\"tag\": 1, \"portals\": "
			       "[\"127.0.0.1:3260\"]}]}]}");
	assert_non_null(p);
	p[8] = 'b';
	struct cfg *c = parse(text);
	struct cfg_err e;
	assert_int_equal(cfg_validate(c, &e), 0);
	cfg_free(c);
}

static void test_lun_rules(void **state)
{
	(void)state;
	validate_err("",
		     ",\"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}, {\"lun\": 1, \"backstore\": "
		     "\"disk9\"}]",
		     "targets[0].luns[1].backstore", "no back-store named \"disk9\"");
	validate_err(
	    "",
	    ",\"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}, {\"lun\": 0, \"backstore\": \"r0\"}]",
	    "targets[0].luns[1].lun", "LUN 0 is already mapped (targets[0].luns[0])");
	validate_err(
	    "",
	    ",\"luns\": [{\"lun\": 0, \"backstore\": \"d0\"}, {\"lun\": 1, \"backstore\": \"d0\"}]",
	    "targets[0].luns[1].backstore", "back-store \"d0\" is already mapped at LUN 0");
	validate_err("",
		     ",\"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\","
		     "\"luns\": [{\"lun\": 2, \"backstore\": \"nope\"}]}]",
		     "targets[0].acls[0].luns[0].backstore", "no back-store named \"nope\"");
	validate_err("",
		     ",\"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\","
		     "\"luns\": [{\"lun\": 2, \"backstore\": \"r0\"}, {\"lun\": 2, \"backstore\": "
		     "\"d0\"}]}]",
		     "targets[0].acls[0].luns[1].lun", "LUN 2 is already mapped");
	/* the same LU in two maps (target and ACL) is fine */
	validate_ok("", ",\"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\","
			"\"luns\": [{\"lun\": 7, \"backstore\": \"d0\", \"read_only\": true}]}]");
}

static void test_acl_rules(void **state)
{
	(void)state;
	validate_err("", ",\"acls\": [{\"initiator\": \"client1\"}]",
		     "targets[0].acls[0].initiator", "bad iSCSI name \"client1\"");
	validate_err("",
		     ",\"acls\": [{\"initiator\": \"iqn.1994-05.com.redhat:c1\"},"
		     "{\"initiator\": \"iqn.1994-05.com.redhat:c1\"}]",
		     "targets[0].acls[1].initiator", "duplicate initiator (also acls[0])");
}

static void test_iscsi_rules(void **state)
{
	(void)state;
	validate_err_text("{\"version\": 1, \"iscsi\": {\"first_burst_length\": 524288}}",
			  "iscsi.first_burst_length",
			  "first_burst_length 524288 exceeds max_burst_length 262144");
	validate_err_text("{\"version\": 1, \"iscsi\": {\"max_burst_length\": 4096}}",
			  "iscsi.max_burst_length",
			  "first_burst_length 65536 exceeds max_burst_length 4096");
	struct cfg *c = parse("{\"version\": 1, \"iscsi\": {\"max_burst_length\": 65536,"
			      "\"first_burst_length\": 65536}}");
	struct cfg_err e;
	assert_int_equal(cfg_validate(c, &e), 0);
	cfg_free(c);
}

static void test_iscsi_names(void **state)
{
	static const char *good[] = {
	    "iqn.2026-12.org.utarget:default",
	    "iqn.1994-05.com.redhat:client1",
	    "iqn.2001-04.com.example",
	    "iqn.2001-04.com.example:storage:diskarrays-sn-a8675309",
	    "iqn.2001-04.com.example:storage.tape1.sys1.xyz",
	    "iqn.2026-01.x",
	    "eui.02004567a425678d",
	    "naa.52004567ba64678d",
	    "naa.62004567ba64678d0123456789abcdef",
	};
	static const char *bad[] = {
	    "",
	    "iqn.",
	    "iqn.2026-12",
	    "iqn.2026-12.",
	    "iqn.2026-13.org.x",
	    "iqn.2026-00.org.x",
	    "iqn.26-12.org.x",
	    "iqn.2026-1.org.x",
	    "iqn.2026-12org.x",
	    "iqn.2026-12..x",
	    "iqn.2026-12.org.x:Upper",
	    "iqn.2026-12.org.x:a b",
	    "iqn.2026-12.org.x:a_b",
	    "IQN.2026-12.org.x",
	    /* not normalized (the parser normalizes what it reads) */
	    "eui.02004567A425678D",
	    "naa.52004567BA64678D",
	    "eui.0200",
	    "eui.02004567A425678Z",
	    "eui.02004567A425678D0",
	    "naa.1234",
	    "naa.52004567BA64678D0",
	    "client1",
	    "iqn.2026-12.:x",
	};
	const char *why;
	char longname[300];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!cfg_iscsi_name_valid(good[i], &why))
			fail_msg("\"%s\" refused: %s", good[i], why);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (cfg_iscsi_name_valid(bad[i], &why))
			fail_msg("\"%s\" accepted", bad[i]);
		assert_non_null(why);
	}
	/* 223 bytes at most (RFC 7143 4.2.7.1) */
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "iqn.2026-12.org.x:", 18);
	longname[223] = '\0';
	assert_true(cfg_iscsi_name_valid(longname, &why));
	longname[223] = 'a';
	longname[224] = '\0';
	assert_false(cfg_iscsi_name_valid(longname, &why));
}

static void test_portals(void **state)
{
	static const char *good[] = {
	    "127.0.0.1:3260", "0.0.0.0:1", "10.1.2.3:65535",
	    "[::1]:3260",     "[::]:3260", "[2001:db8::1]:860",
	};
	static const char *bad[] = {
	    "127.0.0.1",
	    "127.0.0.1:",
	    "127.0.0.1:0",
	    "127.0.0.1:65536",
	    "127.0.0.1:32600000",
	    "127.0.0.1:-1",
	    "127.0.0.1:+1",
	    "127.0.0.1:3260x",
	    ":3260",
	    "::1:3260",
	    "[::1]",
	    "[::1]3260",
	    "[]:3260",
	    "[::1:3260",
	    "1.2.3:3260",
	    "256.1.1.1:3260",
	    "localhost:3260",
	    "[127.0.0.1]:3260",
	    "127.0.0.1:3260 ",
	};
	const char *why;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!cfg_portal_valid(good[i], &why))
			fail_msg("\"%s\" refused: %s", good[i], why);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (cfg_portal_valid(bad[i], &why))
			fail_msg("\"%s\" accepted", bad[i]);
		assert_non_null(why);
	}
}

static void test_port_ids(void **state)
{
	static const char text[] =
	    "{\"version\": 1, \"targets\": ["
	    "{\"name\": \"iqn.2026-12.org.x:a\", \"portal_groups\": ["
	    "  {\"tag\": 1, \"portals\": [\"127.0.0.1:1\"]},"
	    "  {\"tag\": 2, \"rel_port_id\": 2, \"portals\": [\"127.0.0.1:1\"]},"
	    "  {\"tag\": 3, \"portals\": [\"127.0.0.1:1\"]}]},"
	    "{\"name\": \"iqn.2026-12.org.x:b\", \"portal_groups\": ["
	    "  {\"tag\": 1, \"portals\": [\"127.0.0.1:1\"]},"
	    "  {\"tag\": 2, \"rel_port_id\": 65535, \"portals\": [\"127.0.0.1:1\"]},"
	    "  {\"tag\": 9, \"portals\": [\"127.0.0.1:1\"]}]}]}";
	struct cfg *c = parse(text);
	uint16_t ids[6];

	(void)state;
	assert_int_equal(cfg_count_portal_groups(c), 6);
	assert_int_equal(cfg_assign_port_ids(c, ids, 6), 0);
	/* explicit kept; the others take the smallest free id in file order */
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 2);
	assert_int_equal(ids[2], 3);
	assert_int_equal(ids[3], 4);
	assert_int_equal(ids[4], 65535);
	assert_int_equal(ids[5], 5);
	/* deterministic */
	uint16_t again[6];
	assert_int_equal(cfg_assign_port_ids(c, again, 6), 0);
	assert_memory_equal(ids, again, sizeof(ids));
	/* too small an output array */
	assert_int_equal(cfg_assign_port_ids(c, ids, 5), -EINVAL);
	/* colliding explicit ids */
	c->targets[1].tpgs[1].rel_port_id = 2;
	assert_int_equal(cfg_assign_port_ids(c, ids, 6), -EINVAL);
	cfg_free(c);

	c = parse("{\"version\": 1}");
	assert_int_equal(cfg_count_portal_groups(c), 0);
	assert_int_equal(cfg_assign_port_ids(c, ids, 0), 0);
	cfg_free(c);
}

static void test_identity(void **state)
{
	struct cfg_backstore b;
	char vendor[9], product[17], revision[5], serial[33], serial2[33];
	uint8_t naa[16], naa2[16];

	(void)state;
	cfg_backstore_defaults(&b);
	b.name = "disk0";
	cfg_default_identity(&b, vendor, product, revision, serial, naa);
	assert_string_equal(vendor, "UTARGET");
	assert_string_equal(product, "utarget disk");
	assert_string_equal(revision, "0.1");
	assert_int_equal(strlen(serial), 32);
	for (size_t i = 0; i < 32; i++)
		assert_non_null(strchr("0123456789abcdef", serial[i]));
	/* NAA 6h, company id 00-14-05 */
	assert_int_equal(naa[0], 0x60);
	assert_int_equal(naa[1], 0x01);
	assert_int_equal(naa[2], 0x40);
	assert_int_equal(naa[3] >> 4, 0x5);

	/* stable: same name, same identity; another name, another identity */
	cfg_default_identity(&b, vendor, product, revision, serial2, naa2);
	assert_string_equal(serial, serial2);
	assert_memory_equal(naa, naa2, 16);
	b.name = "disk1";
	cfg_default_identity(&b, vendor, product, revision, serial2, naa2);
	assert_string_not_equal(serial, serial2);
	assert_memory_not_equal(naa, naa2, 16);

	/* the known digest: SHA-256("utarget:disk0") starts the serial */
	b.name = "disk0";
	unsigned char h[32];
	unsigned int hl;
	assert_true(EVP_Digest("utarget:disk0", 13, h, &hl, EVP_sha256(), NULL));
	char hex[3];
	snprintf(hex, sizeof(hex), "%02x", h[0]);
	assert_memory_equal(serial, hex, 2);

	/* configured fields win */
	b.vendor = "ACME";
	b.product = "Box";
	b.revision = "9";
	b.serial = "SER-1";
	b.naa = "6ABCDEF0123456789abcdef012345678";
	cfg_default_identity(&b, vendor, product, revision, serial, naa);
	assert_string_equal(vendor, "ACME");
	assert_string_equal(product, "Box");
	assert_string_equal(revision, "9");
	assert_string_equal(serial, "SER-1");
	static const uint8_t want[16] = {0x6a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78,
					 0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78};
	assert_memory_equal(naa, want, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_base_is_valid),   cmocka_unit_test(test_demo_config_is_valid),
	    cmocka_unit_test(test_backstore_rules), cmocka_unit_test(test_target_rules),
	    cmocka_unit_test(test_lun_rules),	    cmocka_unit_test(test_acl_rules),
	    cmocka_unit_test(test_iscsi_rules),	    cmocka_unit_test(test_iscsi_names),
	    cmocka_unit_test(test_portals),	    cmocka_unit_test(test_port_ids),
	    cmocka_unit_test(test_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
