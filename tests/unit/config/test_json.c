/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/json.c: parsing (types, ranges, unknown and
 * duplicate fields, error lines and paths), sizes, and the dump round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/json.c"

static const struct cfg_iscsi_settings defaults = {
    .max_recv_data_segment_length = 262144,
    .max_burst_length = 1048576,
    .first_burst_length = 65536,
    .initial_r2t = false,
    .immediate_data = true,
    .max_outstanding_r2t = 8,
    .max_connections = 1,
    .header_digest = true,
    .data_digest = true,
    .default_time2wait = 2,
    .default_time2retain = 20,
    .nop_in_interval_s = 30,
    .nop_in_timeout_s = 30,
    .login_timeout_s = 15,
    .max_sessions = 0,
    .max_logins_in_progress = 64,
    .max_logins_per_address = 16,
    .max_discovery_sessions = 64,
    .max_discovery_sessions_per_address = 4,
    .queue_depth = 128,
};

static struct cfg *parse_ok(const char *text)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), &defaults, &c, &e);

	if (rc)
		fail_msg("unexpected error %d: line %d: %s: %s", rc, e.line, e.path, e.msg);
	assert_non_null(c);
	return c;
}

/* Expect a parse error at line/path whose message contains msg. */
static void parse_err(const char *text, int line, const char *path, const char *msg)
{
	struct cfg *c = (struct cfg *)1;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), &defaults, &c, &e);

	assert_int_equal(rc, -EINVAL);
	assert_null(c);
	if (e.line != line || strcmp(e.path, path) != 0 || !strstr(e.msg, msg))
		fail_msg("got line %d path \"%s\" msg \"%s\"; want line %d path \"%s\" msg ~\"%s\"",
			 e.line, e.path, e.msg, line, path, msg);
}

/* "redirect" of a target and of a portal group (redirect.c): the forms
 * kept and dumped back, and each refusal at its path. */
#define RD_DOC(tpg_extra, portals, tgt_extra)                                                      \
	"{\"version\": 1, \"targets\": [{\"name\": \"iqn.2026-12.org.x:t\",\n"                     \
	"\"portal_groups\": [{\"tag\": 1, \"portals\": [" portals "]" tpg_extra "}]" tgt_extra     \
	"}]}"
static void test_redirect(void **state)
{
	struct cfg *c;
	char *d;

	(void)state;
	c = parse_ok(
	    RD_DOC(", \"redirect\": {\"balance\": true}", "\"10.0.0.1:3260\", \"10.0.0.2:3260\"",
		   ", \"redirect\": {\"address\": \"[fd00::7]:3261,2\", \"permanent\": true}"));
	assert_non_null(c->targets[0].tpgs[0].redirect);
	assert_true(c->targets[0].tpgs[0].redirect->balance);
	assert_null(c->targets[0].tpgs[0].redirect->address);
	assert_string_equal(c->targets[0].redirect->address, "[fd00::7]:3261,2");
	assert_true(c->targets[0].redirect->permanent);
	d = cfg_dump(c);
	assert_non_null(strstr(d, "\"redirect\": {\n            \"balance\": true\n"));
	assert_non_null(strstr(d, "\"address\": \"[fd00::7]:3261,2\""));
	free(d);
	cfg_free(c);
	c = parse_ok(
	    RD_DOC(", \"redirect\": {\"address\": \"san-2.example.com\"}", "\"0.0.0.0:3260\"", ""));
	assert_false(c->targets[0].tpgs[0].redirect->permanent);
	assert_null(c->targets[0].redirect);
	cfg_free(c);

	parse_err(RD_DOC(", \"redirect\": {\"balance\": true}",
			 "\"10.0.0.1:3260\", \"0.0.0.0:3261\"", ""),
		  2, "targets[0].portal_groups[0].redirect", "balance needs two portals");
	parse_err(RD_DOC(", \"redirect\": {\"balance\": true, \"address\": \"a\"}",
			 "\"10.0.0.1:3260\", \"10.0.0.2:3260\"", ""),
		  2, "targets[0].portal_groups[0].redirect", "no address or permanent");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"balance\": true}"), 2,
		  "targets[0].redirect", "balance is a portal group's");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"permanent\": true}"), 2,
		  "targets[0].redirect", "address (host[:port][,tag]) or balance required");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": \"10.0.0.2\""), 2,
		  "targets[0].redirect", "expected an object");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"address\": \"h:0\"}"), 2,
		  "targets[0].redirect.address", "the port after ':' must be 1..65535");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"address\": \"h:1,70000\"}"),
		  2, "targets[0].redirect.address", "portal group tag");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"address\": \"[::1:3260\"}"),
		  2, "targets[0].redirect.address", "closing ']'");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"address\": \"a b\"}"), 2,
		  "targets[0].redirect.address", "bad character in the host name");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"address\": \":3260\"}"), 2,
		  "targets[0].redirect.address", "the host name is empty");
	parse_err(RD_DOC("", "\"10.0.0.1:3260\"", ", \"redirect\": {\"to\": \"x\"}"), 2,
		  "targets[0].redirect.to", "unknown field");
}

static void test_minimal_and_defaults(void **state)
{
	struct cfg *c = parse_ok("{\"version\": 1}");

	(void)state;
	assert_int_equal(c->version, 1);
	assert_null(c->state_dir);
	assert_null(c->log_level);
	assert_int_equal(c->nbs, 0);
	assert_int_equal(c->ntargets, 0);
	assert_int_equal(c->iscsi_set, 0);
	assert_memory_equal(&c->iscsi, &defaults, sizeof(defaults));
	cfg_free(c);

	c = parse_ok("{\"version\": 1, \"backstores\": [{\"name\": \"d\", \"type\": \"ram\"}],"
		     " \"targets\": [{\"name\": \"iqn.2026-01.org.x:t\"}]}");
	assert_int_equal(c->nbs, 1);
	assert_string_equal(c->bs[0].name, "d");
	assert_string_equal(c->bs[0].type, "ram");
	assert_null(c->bs[0].path);
	assert_int_equal(c->bs[0].size, 0);
	assert_int_equal(c->bs[0].block_size, 512);
	assert_false(c->bs[0].create);
	assert_false(c->bs[0].read_only);
	assert_false(c->bs[0].thin);
	assert_false(c->bs[0].removable);
	assert_true(c->bs[0].write_cache);
	assert_null(c->bs[0].serial);
	assert_int_equal(c->ntargets, 1);
	assert_null(c->targets[0].alias);
	assert_int_equal(c->targets[0].ntpgs, 0);
	assert_int_equal(c->targets[0].luns.n, 0);
	assert_false(c->targets[0].demo);
	cfg_free(c);
}

static const char full[] =
    "{\n"
    "  \"version\": 1,\n"
    "  \"state_dir\": \"/var/lib/ut\",\n"
    "  \"log_level\": \"debug\",\n"
    "  \"default_portals\": [\"192.0.2.10:3260\", \"[::]:3260\"],\n"
    "  \"iscsi\": { \"max_burst_length\": 524288, \"data_digest\": false,\n"
    "             \"max_outstanding_r2t\": 4, \"queue_depth\": 32 },\n"
    "  \"backstores\": [\n"
    "    { \"name\": \"disk0\", \"type\": \"file\", \"path\": \"d0.img\", \"size\": \"1G\",\n"
    "      \"create\": true, \"block_size\": 4096, \"thin\": true, \"removable\": true,\n"
    "      \"write_cache\": false, \"vendor\": \"ACME\", \"product\": \"Disk\",\n"
    "      \"revision\": \"1.0\", \"serial\": \"SN1\",\n"
    "      \"naa\": \"60014051234567890123456789abcdef\", \"pr_max_registrations\": 128 },\n"
    "    { \"name\": \"ro\", \"type\": \"ram\", \"size\": 1048576, \"read_only\": true }\n"
    "  ],\n"
    "  \"targets\": [\n"
    "    { \"name\": \"iqn.2026-12.org.utarget:t1\", \"alias\": \"one\",\n"
    "      \"require_header_digest\": true,\n"
    "      \"portal_groups\": [ { \"tag\": 1, \"portals\": [\"127.0.0.1:3260\", \"[::1]:3260\"] "
    "},\n"
    "                         { \"tag\": 7, \"rel_port_id\": 9, \"portals\": [\"0.0.0.0:3261\"] } "
    "],\n"
    "      \"luns\": [ { \"lun\": 0, \"backstore\": \"disk0\" },\n"
    "                { \"lun\": 16383, \"backstore\": \"ro\", \"read_only\": true } ],\n"
    "      \"acls\": [ { \"initiator\": \"iqn.1994-05.com.redhat:a\", \"target_reset\": true },\n"
    "                { \"initiator\": \"iqn.1994-05.com.redhat:b\", \"require_data_digest\": "
    "true,\n"
    "                  \"luns\": [ { \"lun\": 3, \"backstore\": \"disk0\" } ] } ],\n"
    "      \"demo_mode\": { \"enabled\": true, \"read_only\": true, \"target_reset\": true } }\n"
    "  ]\n"
    "}\n";

static void test_full(void **state)
{
	struct cfg *c = parse_ok(full);

	(void)state;
	assert_string_equal(c->state_dir, "/var/lib/ut");
	assert_string_equal(c->log_level, "debug");
	assert_int_equal(c->ndefault_portals, 2);
	assert_string_equal(c->default_portals[1], "[::]:3260");
	assert_int_equal(c->iscsi.max_burst_length, 524288);
	assert_false(c->iscsi.data_digest);
	assert_true(c->iscsi.header_digest); /* default kept */
	assert_int_equal(c->iscsi.max_outstanding_r2t, 4);
	assert_int_equal(c->iscsi.queue_depth, 32);
	assert_int_equal(c->iscsi.first_burst_length, 65536);
	assert_true(cfg_iscsi_is_set(c, "max_burst_length"));
	assert_true(cfg_iscsi_is_set(c, "data_digest"));
	assert_false(cfg_iscsi_is_set(c, "header_digest"));
	assert_false(cfg_iscsi_is_set(c, "no_such_field"));

	assert_int_equal(c->nbs, 2);
	const struct cfg_backstore *b = &c->bs[0];
	assert_string_equal(b->path, "d0.img");
	assert_int_equal(b->size, 1ull << 30);
	assert_true(b->create);
	assert_int_equal(b->block_size, 4096);
	assert_true(b->thin);
	assert_true(b->removable);
	assert_false(b->write_cache);
	assert_string_equal(b->vendor, "ACME");
	assert_string_equal(b->product, "Disk");
	assert_string_equal(b->revision, "1.0");
	assert_string_equal(b->serial, "SN1");
	assert_string_equal(b->naa, "60014051234567890123456789abcdef");
	assert_int_equal(b->pr_max_registrations, 128);
	assert_int_equal(c->bs[1].pr_max_registrations, 0); /* the core's default */
	assert_int_equal(c->bs[1].size, 1048576);
	assert_true(c->bs[1].read_only);

	const struct cfg_target *t = &c->targets[0];
	assert_string_equal(t->name, "iqn.2026-12.org.utarget:t1");
	assert_string_equal(t->alias, "one");
	assert_int_equal(t->ntpgs, 2);
	assert_int_equal(t->tpgs[0].tag, 1);
	assert_int_equal(t->tpgs[0].rel_port_id, 0);
	assert_int_equal(t->tpgs[0].nportals, 2);
	assert_string_equal(t->tpgs[0].portals[1], "[::1]:3260");
	assert_int_equal(t->tpgs[1].tag, 7);
	assert_int_equal(t->tpgs[1].rel_port_id, 9);
	assert_int_equal(t->luns.n, 2);
	assert_int_equal(t->luns.v[1].lun, 16383);
	assert_string_equal(t->luns.v[1].backstore, "ro");
	assert_true(t->luns.v[1].read_only);
	assert_false(t->luns.v[0].read_only);
	assert_int_equal(t->nacls, 2);
	assert_false(t->acls[0].has_luns);
	assert_true(t->acls[1].has_luns);
	assert_int_equal(t->acls[1].luns.v[0].lun, 3);
	assert_true(t->acls[0].target_reset); /* the default is false */
	assert_false(t->acls[1].target_reset);
	assert_true(t->demo);
	assert_true(t->demo_read_only);
	assert_true(t->demo_target_reset);
	/* digests required by the target, by one ACL */
	assert_true(t->require_header_digest);
	assert_false(t->require_data_digest);
	assert_true(t->acls[1].require_data_digest);
	assert_false(t->acls[0].require_data_digest);
	cfg_free(c);
}

static void test_round_trip(void **state)
{
	struct cfg *c = parse_ok(full), *c2;
	char *d1 = cfg_dump(c), *d2;

	(void)state;
	assert_non_null(d1);
	c2 = parse_ok(d1);
	d2 = cfg_dump(c2);
	assert_non_null(d2);
	/* dump(parse(dump(x))) == dump(x), and the trees agree */
	assert_string_equal(d1, d2);
	assert_memory_equal(&c->iscsi, &c2->iscsi, sizeof(c->iscsi));
	assert_int_equal(c->iscsi_set, c2->iscsi_set);
	assert_int_equal(c2->bs[0].size, 1ull << 30);
	assert_int_equal(c2->targets[0].tpgs[1].rel_port_id, 9);
	/* sorted keys, 2-space indent, trailing newline, sizes in short form */
	assert_true(strncmp(d1, "{\n  \"backstores\": [", 19) == 0);
	assert_non_null(strstr(d1, "\"size\": \"1G\""));
	assert_non_null(strstr(d1, "\"size\": \"1M\""));
	assert_int_equal(d1[strlen(d1) - 1], '\n');
	/* target resets: written with their value */
	assert_true(c2->targets[0].acls[0].target_reset);
	assert_false(c2->targets[0].acls[1].target_reset);
	assert_non_null(strstr(d1, "\"target_reset\": true"));
	/* absent optional fields stay absent */
	assert_null(strstr(d1, "\"header_digest\""));
	/* required digests: written only when required */
	assert_true(c2->targets[0].require_header_digest);
	assert_true(c2->targets[0].acls[1].require_data_digest);
	assert_null(strstr(d1, "\"require_data_digest\": false"));
	assert_null(strstr(d1, "\"serial\": \"\""));
	free(d1);
	free(d2);
	cfg_free(c);
	cfg_free(c2);

	/* the minimal document dumps without an iscsi section */
	c = parse_ok("{\"version\": 1}");
	d1 = cfg_dump(c);
	assert_string_equal(d1,
			    "{\n  \"backstores\": [],\n  \"targets\": [],\n  \"version\": 1\n}\n");
	free(d1);
	cfg_free(c);
}

static void test_sizes(void **state)
{
	uint64_t v;
	char buf[32];

	(void)state;
	assert_int_equal(cfg_parse_size("4096", 4, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cfg_parse_size("64K", 3, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(cfg_parse_size("64k", 3, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(cfg_parse_size("3m", 2, &v), 0);
	assert_int_equal(v, 3ull << 20);
	assert_int_equal(cfg_parse_size("1G", 2, &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(cfg_parse_size("2T", 2, &v), 0);
	assert_int_equal(v, 2ull << 40);
	assert_int_equal(cfg_parse_size("16777215T", 9, &v), 0);
	assert_int_equal(v, 16777215ull << 40);
	/* length-delimited: "1G" followed by garbage outside len is fine */
	assert_int_equal(cfg_parse_size("1Gxyz", 2, &v), 0);
	static const char *bad[] = {
	    "",		 "0",
	    "0K",	 "K",
	    "-1",	 "+1",
	    " 1",	 "1 ",
	    "1.5G",	 "1GB",
	    "1KiB",	 "1P",
	    "0x10",	 "18446744073709551616",
	    "16777216T", "99999999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cfg_parse_size(bad[i], strlen(bad[i]), &v) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);

	cfg_format_size(1ull << 30, buf, sizeof(buf));
	assert_string_equal(buf, "1G");
	cfg_format_size(3ull << 40, buf, sizeof(buf));
	assert_string_equal(buf, "3T");
	cfg_format_size(1536ull << 20, buf, sizeof(buf));
	assert_string_equal(buf, "1536M");
	cfg_format_size(1000, buf, sizeof(buf));
	assert_string_equal(buf, "1000");
	cfg_format_size(512, buf, sizeof(buf));
	assert_string_equal(buf, "512");
	cfg_format_size(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");

	/* sizes in the document */
	struct cfg *c =
	    parse_ok("{\"version\":1,\"backstores\":[{\"name\":\"a\",\"type\":\"ram\","
		     "\"size\":\"8k\"},{\"name\":\"b\",\"type\":\"ram\",\"size\":1536}]}");
	assert_int_equal(c->bs[0].size, 8192);
	assert_int_equal(c->bs[1].size, 1536);
	char *d = cfg_dump(c);
	assert_non_null(strstr(d, "\"size\": \"8K\""));
	assert_non_null(strstr(d, "\"size\": 1536"));
	free(d);
	cfg_free(c);
	parse_err("{\"version\":1,\n\"backstores\":[{\"name\":\"a\",\"type\":\"ram\",\n\"size\":"
		  "\"1X\"}]}",
		  3, "backstores[0].size", "bad size \"1X\"");
	parse_err(
	    "{\"version\":1,\n\"backstores\":[{\"name\":\"a\",\"type\":\"ram\",\n\"size\":0}]}", 3,
	    "backstores[0].size", "positive");
	parse_err(
	    "{\"version\":1,\n\"backstores\":[{\"name\":\"a\",\"type\":\"ram\",\n\"size\":-5}]}", 3,
	    "backstores[0].size", "positive");
	parse_err(
	    "{\"version\":1,\n\"backstores\":[{\"name\":\"a\",\"type\":\"ram\",\n\"size\":1.5}]}",
	    3, "backstores[0].size", "found a number");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	parse_err("{\n\"version\": 1,\n\"targets\": [,]\n}", 3, "", "");
	parse_err("{\n\"version\": 1\n", 3, "", "");
	parse_err("", 1, "", "");
	parse_err("{\"version\": 1} trailing", 1, "", "");
	/* duplicate keys are rejected with the line */
	parse_err("{\n\"version\": 1,\n\"version\": 1}", 3, "", "duplicate");
	/* NUL in a string is not accepted by the JSON parser */
	parse_err("{\"version\": 1, \"state_dir\": \"a\\u0000b\"}", 1, "", "");
}

static void test_root_errors(void **state)
{
	(void)state;
	parse_err("[1]", 1, "", "must be a JSON object, found an array");
	parse_err("{\n}", 1, "version", "required field missing");
	parse_err("{\n\"version\": 2\n}", 2, "version", "unsupported version 2");
	parse_err("{\n\"version\": \"1\"\n}", 2, "version", "expected an integer, found a string");
	parse_err("{\n\"version\": 1,\n\"verison\": 1}", 3, "verison",
		  "unknown field (did you mean \"version\"?)");
	parse_err("{\n\"version\": 1,\n\"zzz\": 1}", 3, "zzz", "unknown field");
	parse_err("{\n\"version\": 1,\n\"log_level\": \"loud\"}", 3, "log_level", "unknown level");
	parse_err("{\n\"version\": 1,\n\"default_portals\": []}", 3, "default_portals",
		  "at least one portal (absent: 0.0.0.0:3260)");
	parse_err("{\n\"version\": 1,\n\"default_portals\": [\"0.0.0.0\"]}", 3,
		  "default_portals[0]", "bad portal \"0.0.0.0\"");
	parse_err("{\n\"version\": 1,\n\"default_portals\": [\"[::]:3260\", \"[::]:3260\"]}", 3,
		  "default_portals[1]", "listed twice");
	parse_err("{\n\"version\": 1,\n\"state_dir\": \"\"}", 3, "state_dir", "must not be empty");
	parse_err("{\n\"version\": 1,\n\"state_dir\": 5}", 3, "state_dir", "expected a string");
	parse_err("{\n\"version\": 1,\n\"backstores\": {}}", 3, "backstores",
		  "expected an array, found an object");
	parse_err("{\n\"version\": 1,\n\"targets\": null}", 3, "targets",
		  "expected an array, found null");
	parse_err("{\n\"version\": 1,\n\"iscsi\": []}", 3, "iscsi", "expected an object");
	parse_err("{\n\"version\": 1,\n\"backstores\": [\n1]}", 4, "backstores[0]",
		  "expected an object, found an integer");
	/* a key that needs quoting in the path */
	parse_err("{\n\"version\": 1,\n\"a.b\": 1}", 3, "[\"a.b\"]", "unknown field");
}

/* "metrics": {"listen": ADDR:PORT}: off when absent, kept through a dump,
 * the address checked like a portal's. */
static void test_metrics(void **state)
{
	struct cfg *c = parse_ok("{\"version\": 1}"), *c2;
	char *d;

	(void)state;
	assert_null(c->metrics_listen);
	d = cfg_dump(c);
	assert_null(strstr(d, "metrics"));
	free(d);
	cfg_free(c);
	c = parse_ok("{\"version\": 1, \"metrics\": {\"listen\": \"127.0.0.1:9470\"}}");
	assert_string_equal(c->metrics_listen, "127.0.0.1:9470");
	d = cfg_dump(c);
	c2 = parse_ok(d);
	assert_string_equal(c2->metrics_listen, "127.0.0.1:9470");
	free(d);
	cfg_free(c2);
	cfg_free(c);
	c = parse_ok("{\"version\": 1, \"metrics\": {\"listen\": \"[::1]:9470\"}}");
	assert_string_equal(c->metrics_listen, "[::1]:9470");
	cfg_free(c);

	parse_err("{\n\"version\": 1,\n\"metrics\": {\"listen\": \"127.0.0.1\"}}", 3,
		  "metrics.listen", "bad address");
	parse_err("{\n\"version\": 1,\n\"metrics\": {\"listen\": \"127.0.0.1:0\"}}", 3,
		  "metrics.listen", "bad address");
	parse_err("{\n\"version\": 1,\n\"metrics\": {\"listen\": \"localhost:9470\"}}", 3,
		  "metrics.listen", "bad address");
	parse_err("{\n\"version\": 1,\n\"metrics\": {\"listen\": 9470}}", 3, "metrics.listen",
		  "expected a string");
	parse_err("{\n\"version\": 1,\n\"metrics\": {}}", 3, "metrics.listen",
		  "required field missing");
	parse_err("{\n\"version\": 1,\n\"metrics\": {\"listen\": \"127.0.0.1:1\", \"port\": 1}}", 3,
		  "metrics.port", "unknown field");
	parse_err("{\n\"version\": 1,\n\"metrics\": \"127.0.0.1:9470\"}", 3, "metrics",
		  "expected an object");
}

static void test_iscsi_errors(void **state)
{
	(void)state;
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_burst_length\": 100}}", 2,
		  "iscsi.max_burst_length", "100 out of range 512..16777215");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_burst_length\": 16777216}}", 2,
		  "iscsi.max_burst_length", "out of range");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_outstanding_r2t\": 0}}", 2,
		  "iscsi.max_outstanding_r2t", "out of range 1..16");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_outstanding_r2t\": 17}}", 2,
		  "iscsi.max_outstanding_r2t", "17 out of range 1..16");
	/* 13.20: ErrorRecoveryLevel is 0..2 */
	parse_err("{\"version\": 1, \"iscsi\": {\n\"error_recovery_level\": 3}}", 2,
		  "iscsi.error_recovery_level", "out of range 0..2");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_connections\": 17}}", 2,
		  "iscsi.max_connections", "17 out of range 1..16");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"header_digest\": 1}}", 2, "iscsi.header_digest",
		  "expected true or false, found an integer");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"queue_depth\": 1025}}", 2, "iscsi.queue_depth",
		  "out of range 1..1024");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"nop_in_interval\": -1}}", 2,
		  "iscsi.nop_in_interval", "out of range");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_logins_per_address\": 0}}", 2,
		  "iscsi.max_logins_per_address", "0 out of range 1..65535");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_discovery_sessions_per_address\": 65536}}",
		  2, "iscsi.max_discovery_sessions_per_address", "out of range 1..65535");
	parse_err("{\"version\": 1, \"iscsi\": {\n\"max_burst\": 1}}", 2, "iscsi.max_burst",
		  "did you mean \"max_burst_length\"");

	/* every field of the table is accepted and set */
	struct cfg *c = parse_ok(
	    "{\"version\": 1, \"iscsi\": {\"max_recv_data_segment_length\": 8192,"
	    "\"max_burst_length\": 65536, \"first_burst_length\": 8192, \"initial_r2t\": true,"
	    "\"immediate_data\": false, \"max_outstanding_r2t\": 2, \"max_connections\": 1,"
	    "\"header_digest\": false, \"data_digest\": false, \"default_time2wait\": 0,"
	    "\"default_time2retain\": 3600, \"nop_in_interval\": 0, \"nop_in_timeout\": 5,"
	    "\"login_timeout\": 60, \"max_sessions\": 100, \"max_logins_in_progress\": 8,"
	    "\"max_logins_per_address\": 2, \"max_discovery_sessions\": 9,"
	    "\"max_discovery_sessions_per_address\": 1,"
	    "\"queue_depth\": 1, \"max_buffer_memory_mib\": 64, \"max_session_data_mib\": 16,"
	    "\"max_connection_data_mib\": 8, \"session_reserve_kib\": 128, "
	    "\"max_session_send_queue_mib\": 4,"
	    "\"max_connection_send_queue_mib\": 2, \"data_out_timeout\": 0,"
	    "\"error_recovery_level\": 1, \"busy_poll_us\": 50, \"socket_uring\": true,"
	    "\"spread_connections\": false}}");
	assert_int_equal(c->iscsi_set, (1u << ARRAY_SIZE(cfg_iscsi_fields)) - 1);
	assert_int_equal(c->iscsi.max_buffer_memory_mib, 64);
	assert_int_equal(c->iscsi.error_recovery_level, 1);
	assert_int_equal(c->iscsi.max_session_data_mib, 16);
	assert_int_equal(c->iscsi.max_connection_data_mib, 8);
	assert_int_equal(c->iscsi.session_reserve_kib, 128);
	assert_int_equal(c->iscsi.max_session_send_queue_mib, 4);
	assert_int_equal(c->iscsi.max_connection_send_queue_mib, 2);
	assert_int_equal(c->iscsi.data_out_timeout_s, 0);
	assert_int_equal(c->iscsi.busy_poll_us, 50);
	assert_true(c->iscsi.socket_uring);
	assert_false(c->iscsi.spread_connections);
	assert_int_equal(c->iscsi.max_recv_data_segment_length, 8192);
	assert_true(c->iscsi.initial_r2t);
	assert_false(c->iscsi.immediate_data);
	assert_int_equal(c->iscsi.max_connections, 1);
	assert_int_equal(c->iscsi.default_time2wait, 0);
	assert_int_equal(c->iscsi.default_time2retain, 3600);
	assert_int_equal(c->iscsi.nop_in_interval_s, 0);
	assert_int_equal(c->iscsi.nop_in_timeout_s, 5);
	assert_int_equal(c->iscsi.login_timeout_s, 60);
	assert_int_equal(c->iscsi.max_sessions, 100);
	assert_int_equal(c->iscsi.max_logins_in_progress, 8);
	assert_int_equal(c->iscsi.max_logins_per_address, 2);
	assert_int_equal(c->iscsi.max_discovery_sessions, 9);
	assert_int_equal(c->iscsi.max_discovery_sessions_per_address, 1);
	assert_int_equal(c->iscsi.queue_depth, 1);
	char *d = cfg_dump(c);
	struct cfg *c2 = parse_ok(d);
	assert_memory_equal(&c->iscsi, &c2->iscsi, sizeof(c->iscsi));
	free(d);
	cfg_free(c);
	cfg_free(c2);
}

static void test_backstore_errors(void **state)
{
	(void)state;
	parse_err("{\"version\": 1, \"backstores\": [{\n\"type\": \"ram\"}]}", 1,
		  "backstores[0].name", "required field missing");
	parse_err("{\"version\": 1, \"backstores\": [{\n\"name\": \"a\"}]}", 1,
		  "backstores[0].type", "required field missing");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"readonly\": true}]}",
		  2, "backstores[0].readonly", "did you mean \"read_only\"");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"block_size\": 0}]}",
		  2, "backstores[0].block_size", "out of range");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"vendor\": \"123456789\"}]}",
		  2, "backstores[0].vendor", "too long (9 bytes, at most 8)");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"serial\": \"123456789012345678901234567890123\"}]}",
		  2, "backstores[0].serial", "too long");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\":\n"
		  "\"0123456789012345678901234567890123456789012345678901234567890123\"}]}",
		  1, "backstores[0].name", "too long (64 bytes, at most 63)");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"thin\": \"yes\"}]}",
		  2, "backstores[0].thin", "expected true or false, found a string");
	parse_err("{\"version\": 1, \"backstores\": [{\"name\": \"a\", \"type\": \"ram\",\n"
		  "\"pr_max_registrations\": 0}]}",
		  2, "backstores[0].pr_max_registrations", "0 out of range 1..65536");
}

static void test_target_errors(void **state)
{
	(void)state;
	parse_err("{\"version\": 1, \"targets\": [{\n\"alias\": \"x\"}]}", 1, "targets[0].name",
		  "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n\"portal_groups\": [{}]}]}", 2,
		  "targets[0].portal_groups[0].tag", "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 0, \"portals\": []}]}]}",
		  2, "targets[0].portal_groups[0].tag", "out of range 1..65535");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 65536, \"portals\": []}]}]}",
		  2, "targets[0].portal_groups[0].tag", "out of range");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 1}]}]}",
		  2, "targets[0].portal_groups[0].portals", "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 1, \"portals\": [\"1.2.3.4:1\",\n3260]}]}]}",
		  3, "targets[0].portal_groups[0].portals[1]", "expected a string");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 1, \"portals\": \"1.2.3.4:1\"}]}]}",
		  2, "targets[0].portal_groups[0].portals", "expected an array");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"portal_groups\": [{\"tag\": 1, \"rel_port_id\": 0, \"portals\": []}]}]}",
		  2, "targets[0].portal_groups[0].rel_port_id", "out of range 1..65535");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"luns\": [{\"lun\": 16384, \"backstore\": \"a\"}]}]}",
		  2, "targets[0].luns[0].lun", "16384 out of range 0..16383");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"luns\": [{\"backstore\": \"a\"}]}]}",
		  2, "targets[0].luns[0].lun", "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"luns\": [{\"lun\": 1, \"backstore\": \"a\", \"ro\": true}]}]}",
		  2, "targets[0].luns[0].ro", "unknown field");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"acls\": [{\"initiator\": \"iqn.2000-01.x:y\",\n\"luns\": [{\"lun\": 1}]}]}]}",
		  3, "targets[0].acls[0].luns[0].backstore", "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"acls\": [{\"luns\": []}]}]}",
		  2, "targets[0].acls[0].initiator", "required field missing");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"demo_mode\": true}]}",
		  2, "targets[0].demo_mode", "expected an object, found a boolean");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"demo_mode\": {\"enable\": true}}]}",
		  2, "targets[0].demo_mode.enable", "did you mean \"enabled\"");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"demo\": {\"enabled\": true}}]}",
		  2, "targets[0].demo", "unknown field");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"acls\": [{\"initiator\": \"iqn.2000-01.x:y\",\n\"target_reset\": 1}]}]}",
		  3, "targets[0].acls[0].target_reset", "expected true or false");
	parse_err("{\"version\": 1, \"targets\": [{\"name\": \"t\",\n"
		  "\"demo_mode\": {\"enabled\": true, \"target_resets\": true}}]}",
		  2, "targets[0].demo_mode.target_resets", "did you mean \"target_reset\"");
}

/* Property: mutated documents either parse (and then dump round-trips) or
 * fail with a message and a line within the text; never a crash or leak. */
static void test_random_documents(void **state)
{
	static const char alphabet[] = "{}[]\",:\\ \n0123456789-tfnulrea.GKx";
	uint32_t seed = 777;
	char buf[sizeof(full)];
	int accepted = 0, refused = 0;

	(void)state;
	for (int iter = 0; iter < 5000; iter++) {
		size_t len = sizeof(full) - 1, lines = 1;
		struct cfg *c = NULL;
		struct cfg_err e;

		memcpy(buf, full, len);
		for (int k = 0; k < 1 + iter % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
		}
		for (size_t i = 0; i < len; i++)
			lines += buf[i] == '\n';
		if (cfg_parse(buf, len, &defaults, &c, &e) == 0) {
			char *d = cfg_dump(c), *d2;
			struct cfg *c2 = parse_ok(d);
			d2 = cfg_dump(c2);
			assert_string_equal(d, d2);
			free(d);
			free(d2);
			cfg_free(c2);
			cfg_free(c);
			accepted++;
		} else {
			assert_null(c);
			assert_true(e.msg[0] != '\0');
			assert_true(e.line >= 0 && (size_t)e.line <= lines + 1);
			refused++;
		}
	}
	/* both outcomes were exercised */
	assert_true(accepted > 100);
	assert_true(refused > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minimal_and_defaults),
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_redirect),
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_syntax_errors),
	    cmocka_unit_test(test_root_errors),
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_iscsi_errors),
	    cmocka_unit_test(test_backstore_errors),
	    cmocka_unit_test(test_target_errors),
	    cmocka_unit_test(test_random_documents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
