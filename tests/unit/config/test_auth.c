/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/auth.c: "auth", "limits", ACL "addresses" and
 * "discovery" through cfg_parse/cfg_validate/cfg_dump: every field read and
 * written back, every error with its path, the network syntax, the RFC
 * 7143 12.1.3 secret rules across the file, and the warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/model.h"
#include "lib/log.h"

#define HEAD                                                                                       \
	"{\"version\": 1, \"backstores\": [{\"name\": \"d\", \"type\": \"ram\", \"size\": "        \
	"\"1M\"}],"
#define TGT(fields)                                                                                \
	"\"targets\": [{\"name\": \"iqn.2026-01.org.x:t\", \"portal_groups\": [{\"tag\": 1, "      \
	"\"portals\": [\"127.0.0.1:3260\"]}], \"luns\": [{\"lun\": 0, \"backstore\": "             \
	"\"d\"}]" fields "}]"

static struct cfg *load_ok(const char *text)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), NULL, &c, &e);

	if (!rc)
		rc = cfg_validate(c, &e);
	if (rc)
		fail_msg("unexpected error %d: line %d: %s: %s", rc, e.line, e.path, e.msg);
	return c;
}

/* A parse (verify = false) or verify error at path with msg in it. */
static void load_err(const char *text, bool verify, const char *path, const char *msg)
{
	struct cfg *c = NULL;
	struct cfg_err e;
	int rc = cfg_parse(text, strlen(text), NULL, &c, &e);

	if (verify) {
		if (rc)
			fail_msg("parse error %s: %s (want a verify error)", e.path, e.msg);
		rc = cfg_validate(c, &e);
	} else if (!rc) {
		fail_msg("parsed (want a parse error at %s)", path);
	}
	cfg_free(c);
	assert_int_equal(rc, -EINVAL);
	if (strcmp(e.path, path) || !strstr(e.msg, msg))
		fail_msg("got path \"%s\" msg \"%s\"; want path \"%s\" msg ~\"%s\"", e.path, e.msg,
			 path, msg);
}

static const char full[] = HEAD
    "\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"disc\", \"secret\": "
    "\"disc-secret-12\"}],"
    " \"mutual\": {\"user\": \"tgt\", \"secret\": \"tgt-secret-123\"}},"
    " \"filter\": \"portal-name-auth\"}," TGT(
	", \"auth\": {\"chap\": [{\"user\": \"u1\", \"secret\": \"secret-one-12\"},"
	" {\"user\": \"u2\", \"secret\": \"secret-two-12\"}],"
	" \"mutual\": {\"user\": \"target\", \"secret\": \"target-sec-12\"},"
	" \"algorithms\": [\"SHA3-256\", \"MD5\"]},"
	" \"limits\": {\"max_sessions\": 4, \"max_connections\": 1, \"queue_depth\": 32,"
	" \"login_timeout\": 5, \"nop_in_interval\": 0, \"nop_in_timeout\": 9},"
	" \"acls\": [{\"initiator\": \"iqn.2026-01.org.x:i1\", \"addresses\": [\"10.0.0.0/8\","
	" \"::1\"], \"auth\": {\"chap\": [{\"user\": \"i1\", \"secret\": "
	"\"i1-secret-123\"}, {\"user\": \"old\", \"secret\": \"legacy\", \"allow_short\": true}]}},"
	" {\"addresses\": [\"192.0.2.0/24\"], \"luns\": [{\"lun\": 3, \"backstore\": "
	"\"d\"}]}]") "}";

static void test_parse_full(void **state)
{
	struct cfg *c = load_ok(full);
	const struct cfg_target *t = &c->targets[0];

	(void)state;
	assert_non_null(c->discovery);
	assert_true(c->discovery->has_filter);
	assert_int_equal(c->discovery->filter, CFG_DF_PORTAL_NAME_AUTH);
	assert_int_equal(c->discovery->auth->nchap, 1);
	assert_string_equal(c->discovery->auth->mutual->user, "tgt");
	assert_int_equal(t->auth->nchap, 2);
	assert_string_equal(t->auth->chap[1].user, "u2");
	assert_string_equal(t->auth->chap[1].secret, "secret-two-12");
	assert_string_equal(t->auth->mutual->secret, "target-sec-12");
	assert_int_equal(t->auth->nalgs, 2);
	assert_int_equal(t->auth->algs[0], 8);
	assert_int_equal(t->auth->algs[1], 5);
	assert_int_equal(t->limits->set, 0x3f);
	assert_int_equal(t->limits->max_sessions, 4);
	assert_int_equal(t->limits->queue_depth, 32);
	assert_int_equal(t->limits->login_timeout, 5);
	assert_int_equal(t->limits->nop_in_interval, 0);
	assert_int_equal(t->limits->nop_in_timeout, 9);
	assert_int_equal(t->nacls, 2);
	assert_string_equal(t->acls[0].initiator, "iqn.2026-01.org.x:i1");
	assert_int_equal(t->acls[0].naddresses, 2);
	assert_string_equal(t->acls[0].addresses[1], "::1");
	assert_string_equal(t->acls[0].auth->chap[0].user, "i1");
	assert_false(t->acls[0].auth->chap[0].allow_short);
	assert_true(t->acls[0].auth->chap[1].allow_short);
	assert_null(t->acls[1].initiator);
	assert_true(t->acls[1].has_luns);
	assert_null(t->acls[1].auth);
	assert_true(cfg_has_secrets(c));
	cfg_free(c);
}

static void test_dump_round_trip(void **state)
{
	struct cfg *c = load_ok(full), *c2;
	char *text = cfg_dump(c), *text2;

	(void)state;
	assert_non_null(text);
	/* what was written comes back, absent stays absent */
	assert_non_null(strstr(text, "\"filter\": \"portal-name-auth\""));
	assert_non_null(strstr(text, "\"algorithms\": [\n"));
	assert_non_null(strstr(text, "\"nop_in_interval\": 0"));
	assert_non_null(strstr(text, "\"allow_short\": true"));
	c2 = load_ok(text);
	text2 = cfg_dump(c2);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	cfg_free(c);
	cfg_free(c2);

	/* nothing written, nothing dumped */
	c = load_ok(HEAD TGT("") "}");
	text = cfg_dump(c);
	assert_null(strstr(text, "discovery"));
	assert_null(strstr(text, "auth"));
	assert_null(strstr(text, "limits"));
	assert_null(strstr(text, "addresses"));
	assert_false(cfg_has_secrets(c));
	free(text);
	cfg_free(c);

	/* a partial limits object keeps its fields only */
	c = load_ok(HEAD TGT(", \"limits\": {\"max_sessions\": 0}") "}");
	assert_int_equal(c->targets[0].limits->set, 1);
	text = cfg_dump(c);
	assert_non_null(strstr(text, "\"limits\": {\n        \"max_sessions\": 0\n      }"));
	free(text);
	cfg_free(c);
}

static void test_parse_errors(void **state)
{
	(void)state;
	load_err(HEAD TGT(", \"auth\": {}") "}", false, "targets[0].auth.chap", "required");
	load_err(HEAD TGT(", \"auth\": {\"chap\": []}") "}", false, "targets[0].auth.chap",
		 "at least one");
	load_err(HEAD TGT(", \"auth\": {\"chap\": {}}") "}", false, "targets[0].auth.chap",
		 "expected an array");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\"}]}") "}", false,
		 "targets[0].auth.chap[0].secret", "required");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"\"}]}") "}",
		 false, "targets[0].auth.chap[0].secret", "must not be empty");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": 5}]}") "}", false,
		 "targets[0].auth.chap[0].secret", "expected a string");
	load_err(
	    HEAD TGT(
		", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\", \"x\": 1}]}") "}",
	    false, "targets[0].auth.chap[0].x", "unknown field");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}], "
			  "\"algorithms\": [\"SHA-512\"]}") "}",
		 false, "targets[0].auth.algorithms[0]", "unknown algorithm");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}], "
			  "\"algorithms\": [\"MD5\", \"MD5\"]}") "}",
		 false, "targets[0].auth.algorithms[1]", "twice");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}], "
			  "\"algorithms\": []}") "}",
		 false, "targets[0].auth.algorithms", "at least one");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}], "
			  "\"mutual\": \"x\"}") "}",
		 false, "targets[0].auth.mutual", "expected an object");
	load_err(
	    HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"s\"}], \"none\": "
		     "true}") "}",
	    false, "targets[0].auth.none", "unknown field");
	load_err(HEAD TGT(", \"limits\": {\"max_connections\": 17}") "}", false,
		 "targets[0].limits.max_connections", "out of range 1..16");
	load_err(HEAD TGT(", \"limits\": {\"queue_depth\": 0}") "}", false,
		 "targets[0].limits.queue_depth", "out of range 1..1024");
	load_err(HEAD TGT(", \"limits\": {\"login_timeout\": \"5\"}") "}", false,
		 "targets[0].limits.login_timeout", "expected an integer");
	load_err(HEAD TGT(", \"limits\": {\"max_session\": 1}") "}", false,
		 "targets[0].limits.max_session", "unknown field (did you mean \"max_sessions\"?)");
	load_err(HEAD TGT(", \"acls\": [{\"luns\": []}]") "}", false,
		 "targets[0].acls[0].initiator",
		 "an ACL names an initiator, \"addresses\", or both");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": []}]") "}", false,
		 "targets[0].acls[0].addresses", "at least one");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [7]}]") "}", false,
		 "targets[0].acls[0].addresses[0]", "expected a string");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": \"10.0.0.0/8\"}]") "}", false,
		 "targets[0].acls[0].addresses", "expected an array");
	load_err(HEAD "\"discovery\": {\"filter\": \"all\"}}", false, "discovery.filter",
		 "unknown filter");
	load_err(HEAD "\"discovery\": []}", false, "discovery", "expected an object");
	load_err(HEAD "\"discovery\": {\"chap\": []}}", false, "discovery.chap", "unknown field");
}

static void test_validate_errors(void **state)
{
	(void)state;
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"10.0.0.1/8\"]}]") "}", true,
		 "targets[0].acls[0].addresses[0]", "bits set beyond the prefix");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"300.1.2.3\"]}]") "}", true,
		 "targets[0].acls[0].addresses[0]", "not an IPv4 or IPv6 address");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"fd00::/129\"]}]") "}", true,
		 "targets[0].acls[0].addresses[0]", "bad prefix length");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"10.0.0.0/\"]}]") "}", true,
		 "targets[0].acls[0].addresses[0]", "bad prefix length");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"host.example\"]}]") "}", true,
		 "targets[0].acls[0].addresses[0]", "not an IPv4 or IPv6 address");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"10.0.0.0/8\", \"10.0.0.0/8\"]}]") "}",
		 true, "targets[0].acls[0].addresses[1]", "listed twice");
	load_err(HEAD TGT(", \"acls\": [{\"addresses\": [\"10.0.0.0/8\"]}, {\"addresses\": "
			  "[\"192.0.2.0/24\", \"10.0.0.0/8\"]}]") "}",
		 true, "targets[0].acls[1]", "already in acls[0]");
	/* the same network in an initiator's ACL and an address ACL is fine */
	cfg_free(
	    load_ok(HEAD TGT(", \"acls\": [{\"addresses\": [\"10.0.0.0/8\"]}, {\"initiator\": "
			     "\"iqn.2026-01.org.x:i\", \"addresses\": [\"10.0.0.0/8\"]}]") "}"));
	load_err(
	    HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"secret-one-12\"}, "
		     "{\"user\": \"u\", \"secret\": \"secret-two-12\"}]}") "}",
	    true, "targets[0].auth.chap[1].user", "already chap[0]");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\\u0001\", \"secret\": "
			  "\"secret-one-12\"}]}") "}",
		 true, "targets[0].auth.chap[0].user", "control characters");
	/* RFC 7143 12.1.3: fewer than 96 bits only when the credential says so */
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"abc\"}]}") "}",
		 true, "targets[0].auth.chap[0].secret",
		 "the secret of \"u\" has 3 bytes: CHAP secrets need at least 12 (RFC 7143 "
		 "12.1.3: 96 random bits); to keep a shorter one, set \"allow_short\": true "
		 "beside it (utarget chap add|mutual --force)");
	load_err(HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": "
			  "\"secret-one-12\"}], \"mutual\": {\"user\": \"t\", \"secret\": "
			  "\"eleven-byte\"}}") "}",
		 true, "targets[0].auth.mutual.secret", "has 11 bytes");
	load_err(HEAD "\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", \"secret\": "
		      "\"d\"}]}}, " TGT("") "}",
		 true, "discovery.auth.chap[0].secret", "has 1 byte:");
	load_err(HEAD TGT(", \"acls\": [{\"initiator\": \"iqn.2026-01.org.x:i\", \"auth\": "
			  "{\"chap\": [{\"user\": \"i\", \"secret\": \"short\"}]}}]") "}",
		 true, "targets[0].acls[0].auth.chap[0].secret", "has 5 bytes");
	/* RFC 7143 12.1.3: a secret authenticates one direction only */
	load_err(
	    HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"same-secret-1\"}], "
		     "\"mutual\": {\"user\": \"t\", \"secret\": \"same-secret-1\"}}") "}",
	    true, "targets[0].auth.mutual.secret", "equals an initiator's secret");
	load_err(
	    HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"target-side-1\"}]}, "
		     "\"acls\": [{\"initiator\": \"iqn.2026-01.org.x:i\", \"auth\": {\"chap\": "
		     "[{\"user\": \"i\", \"secret\": \"init-side-12\"}], \"mutual\": {\"user\": "
		     "\"t\", \"secret\": \"target-side-1\"}}}]") "}",
	    true, "targets[0].acls[0].auth.mutual.secret", "equals an initiator's secret");
	load_err(
	    HEAD
	    "\"discovery\": {\"auth\": {\"chap\": [{\"user\": \"d\", \"secret\": "
	    "\"disc-secret-1\"}], \"mutual\": {\"user\": \"t\", \"secret\": "
	    "\"x-secret-123\"}}}, " TGT(
		", \"auth\": {\"chap\": [{\"user\": \"u\", \"secret\": \"x-secret-123\"}]}") "}",
	    true, "discovery.auth.mutual.secret", "equals an initiator's secret");
	/* an ACL needs an initiator name that is valid when it has one */
	load_err(HEAD TGT(", \"acls\": [{\"initiator\": \"nope\", \"addresses\": [\"::1\"]}]") "}",
		 true, "targets[0].acls[0].initiator", "bad iSCSI name");
}

static void test_demo_read_only_default(void **state)
{
	struct cfg *c;

	(void)state;
	/* issue 4: demo mode is read-only unless said otherwise */
	c = load_ok(HEAD TGT(", \"demo_mode\": {\"enabled\": true}") "}");
	assert_true(c->targets[0].demo);
	assert_true(c->targets[0].demo_read_only);
	cfg_free(c);
	c = load_ok(HEAD TGT(", \"demo_mode\": {\"enabled\": true, \"read_only\": false}") "}");
	assert_false(c->targets[0].demo_read_only);
	cfg_free(c);
}

static void test_net_parse(void **state)
{
	static const struct {
		const char *s;
		int family, prefix;
	} ok[] = {
	    {"10.0.0.0/8", AF_INET, 8},	     {"192.0.2.7", AF_INET, 32}, {"0.0.0.0/0", AF_INET, 0},
	    {"fd00::/8", AF_INET6, 8},	     {"::1", AF_INET6, 128},	 {"::/0", AF_INET6, 0},
	    {"2001:db8::/32", AF_INET6, 32},
	};
	static const char *const bad[] = {
	    "",	     "/8",	   "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x", "10.0.0.0/0008",
	    "1.2.3", "10.0.0.1/8", "::1/64",	  "[::1]",	 "10.0.0.0 /8"};
	struct cfg_net n;
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (cfg_net_parse(ok[i].s, &n, &why))
			fail_msg("%s: %s", ok[i].s, why);
		assert_int_equal(n.family, ok[i].family);
		assert_int_equal(n.prefix, ok[i].prefix);
	}
	assert_int_equal(n.addr[0], 0x20);
	assert_int_equal(n.addr[3], 0xb8);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!cfg_net_parse(bad[i], &n, &why))
			fail_msg("\"%s\" accepted", bad[i]);
}

/* stderr (the log) into a file while fn runs; its text. */
static char *capture(void (*fn)(const void *), const void *arg)
{
	char path[] = "/tmp/utarget-test-auth-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	static char buf[4096];
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static void warn_fn(const void *c)
{
	cfg_auth_warn(c);
}

static const char *mode_file;
static void mode_fn(const void *c)
{
	cfg_auth_check_file_mode(mode_file, c);
}

static void test_warnings(void **state)
{
	struct cfg *c = load_ok(
	    HEAD TGT(", \"auth\": {\"chap\": [{\"user\": \"short\", \"secret\": "
		     "\"eleven-byte\", \"allow_short\": true}, {\"user\": \"good\", \"secret\": "
		     "\"twelve-bytes\"}, {\"user\": \"long\", \"secret\": "
		     "\"seventeen-bytes!!\"}]}") "}");
	char path[] = "/tmp/utarget-test-cfg-XXXXXX";
	int fd = mkstemp(path);
	char *out;

	(void)state;
	log_set_level(LOG_LVL_WARN);
	out = capture(warn_fn, c);
	assert_non_null(strstr(out, "\"short\" has 11 bytes"));
	assert_non_null(strstr(out, "\"long\" has 17 bytes"));
	assert_null(strstr(out, "\"good\""));

	/* a file with secrets: 0600 is quiet, 0640 and 0644 are not */
	assert_true(fd >= 0);
	close(fd);
	mode_file = path;
	chmod(path, 0600);
	assert_string_equal(capture(mode_fn, c), "");
	chmod(path, 0640);
	assert_non_null(strstr(capture(mode_fn, c), "readable by its group (mode 640)"));
	chmod(path, 0644);
	assert_non_null(strstr(capture(mode_fn, c), "readable by everyone (mode 644)"));
	cfg_free(c);
	/* no secrets: no warning whatever the mode */
	c = load_ok(HEAD TGT("") "}");
	assert_string_equal(capture(mode_fn, c), "");
	cfg_free(c);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_full),
	    cmocka_unit_test(test_dump_round_trip),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_validate_errors),
	    cmocka_unit_test(test_net_parse),
	    cmocka_unit_test(test_warnings),
	    cmocka_unit_test(test_demo_read_only_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
