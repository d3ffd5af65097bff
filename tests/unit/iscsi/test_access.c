/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_access.c: access policies (access.c), per-target limits (limits.c)
 * and the login with CHAP (login.c + chap.c) driven through
 * iscsi_conn_feed against the fake core.
 *
 *   henv.t (H_TARGET, portal group 1, virtual portal)
 *     policy: target CHAP {alice, bob; mutual "target"}, rules by name and
 *             by network as each test sets them
 *   fake core: demo mode on unless fake.access_rc; a name ACL for
 *              fake.acl_name only */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"
#include "fabric/iscsi/login.h"
#include "fabric/iscsi/session.h"
#include "harness.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NS	  1000000000ull
#define SEC_TO_OP (ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_SECURITY << 2) | ISCSI_STAGE_OPERATIONAL)
#define SEC_STAY  (ISCSI_STAGE_SECURITY << 2)
#define OP_TO_FFP                                                                                  \
	(ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE)

static const struct iscsi_chap_cred creds[] = {
    {.user = "alice", .secret = (const uint8_t *)"alice-secret", .secret_len = 12},
    {.user = "bob", .secret = (const uint8_t *)"bob-secret-12", .secret_len = 13},
};
static const struct iscsi_chap_cred target_cred = {
    .user = "target", .secret = (const uint8_t *)"target-secret", .secret_len = 13};
static const struct iscsi_auth target_auth = {.chap = creds, .nchap = 2, .mutual = &target_cred};

static uint8_t rsp[65536];
static uint32_t rsp_len;
static uint8_t isid_tail = 0x01; /* last ISID byte of login_req() (h_login's: 0x01) */

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_teardown();
	iscsi_discovery_set(NULL, ISCSI_DF_PORTAL_NAME);
	return 0;
}

static struct sockaddr_storage sa(const char *addr)
{
	struct sockaddr_storage s = {0};

	if (strchr(addr, ':')) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&s;

		a6->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, addr, &a6->sin6_addr), 1);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&s;

		a4->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, addr, &a4->sin_addr), 1);
	}
	return s;
}

/* ---- networks ---- */
static bool net_match(const char *net, const char *addr)
{
	uint8_t fam, a[16], p;
	struct sockaddr_storage s = sa(addr);

	assert_int_equal(iscsi_net_parse(net, &fam, a, &p), 0);
	return iscsi_net_match(fam, a, p, &s);
}

static void test_networks(void **state)
{
	uint8_t fam, a[16], p;

	(void)state;
	assert_true(net_match("10.0.0.0/8", "10.255.1.2"));
	assert_false(net_match("10.0.0.0/8", "11.0.0.1"));
	assert_true(net_match("192.0.2.128/25", "192.0.2.200"));
	assert_false(net_match("192.0.2.128/25", "192.0.2.127"));
	assert_true(net_match("192.0.2.7", "192.0.2.7"));
	assert_false(net_match("192.0.2.7", "192.0.2.6"));
	assert_true(net_match("0.0.0.0/0", "203.0.113.9"));
	/* a dual-stack listener shows IPv4 peers as ::ffff:a.b.c.d */
	assert_true(net_match("10.0.0.0/8", "::ffff:10.1.2.3"));
	assert_false(net_match("10.0.0.0/8", "::ffff:11.1.2.3"));
	assert_false(net_match("10.0.0.0/8", "fd00::1"));
	assert_true(net_match("fd00::/8", "fd12:3456::1"));
	assert_false(net_match("fd00::/8", "fe80::1"));
	assert_true(net_match("::1", "::1"));
	assert_false(net_match("fd00::/8", "10.0.0.1"));
	assert_true(net_match("2001:db8::/33", "2001:db8:7fff::1"));
	assert_false(net_match("2001:db8::/33", "2001:db8:8000::1"));
	/* no peer address (a connection without a socket): no network holds it */
	assert_int_equal(iscsi_net_parse("10.0.0.0/8", &fam, a, &p), 0);
	assert_false(iscsi_net_match(fam, a, p, NULL));
	struct sockaddr_storage none = {0};
	assert_false(iscsi_net_match(fam, a, p, &none));
	static const char *const bad[] = {
	    "10.0.0.1/8", "10.0.0.0/33", "fd00::/129", "x", "10.0.0.0/", "::1/64", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(iscsi_net_parse(bad[i], &fam, a, &p), -EINVAL);
}

/* ---- policies ---- */
static void test_auth_validation(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct iscsi_chap_cred same = {.user = "t", .secret = creds[1].secret, .secret_len = 13};
	struct iscsi_chap_cred empty = {
	    .user = "", .secret = (const uint8_t *)"x", .secret_len = 1};
	struct iscsi_chap_cred nosecret = {
	    .user = "u", .secret = (const uint8_t *)"", .secret_len = 0};
	const uint8_t badalg[] = {4}, goodalg[] = {7, 8};

	(void)state;
	assert_int_equal(iscsi_access_set_auth(a, &target_auth), 0);
	/* RFC 7143 12.1.3: the target's secret is not an initiator's */
	assert_int_equal(iscsi_access_set_auth(
			     a, &(struct iscsi_auth){.chap = creds, .nchap = 2, .mutual = &same}),
			 -EINVAL);
	assert_int_equal(iscsi_access_set_auth(a, &(struct iscsi_auth){.chap = &empty, .nchap = 1}),
			 -EINVAL);
	assert_int_equal(
	    iscsi_access_set_auth(a, &(struct iscsi_auth){.chap = &nosecret, .nchap = 1}), -EINVAL);
	assert_int_equal(
	    iscsi_access_set_auth(
		a, &(struct iscsi_auth){.chap = creds, .nchap = 1, .algs = badalg, .nalgs = 1}),
	    -EINVAL);
	/* a target identity without initiator credentials means nothing */
	assert_int_equal(iscsi_access_set_auth(a, &(struct iscsi_auth){.mutual = &target_cred}),
			 -EINVAL);
	assert_int_equal(
	    iscsi_access_set_auth(
		a, &(struct iscsi_auth){.chap = creds, .nchap = 1, .algs = goodalg, .nalgs = 2}),
	    0);
	assert_int_equal(a->auth.algs, (1u << 7) | (1u << 8));
	/* failures left the last good setting */
	assert_int_equal(a->auth.nchap, 1);
	assert_int_equal(iscsi_access_add_rule(a, &(struct iscsi_rule){0}), -EINVAL);
	assert_int_equal(iscsi_access_add_rule(a, &(struct iscsi_rule){.network = "10.0.0.0/8"}),
			 -EINVAL);
	assert_int_equal(iscsi_access_add_rule(a, &(struct iscsi_rule){.initiator = "iqn.x",
								       .network = "10.0.0.1/8"}),
			 -EINVAL);
	assert_int_equal(
	    iscsi_access_add_rule(
		a, &(struct iscsi_rule){.initiator = "iqn.x",
					.auth = &(struct iscsi_auth){.chap = &empty, .nchap = 1}}),
	    -EINVAL);
	assert_int_equal(a->nrules, 0);
	iscsi_access_free(a);
}

static void test_resolution(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct scsi_lun_map *wide = fake_map_new(), *narrow = fake_map_new();
	struct sockaddr_storage p10 = sa("10.0.0.5"), p10b = sa("10.0.9.9"), p192 = sa("192.0.2.1");
	struct iscsi_access_grant g;
	const struct iscsi_chap_cred own = {
	    .user = "own", .secret = (const uint8_t *)"own-secret-1", .secret_len = 12};
	const char *why;

	(void)state;
	assert_int_equal(iscsi_access_set_auth(a, &target_auth), 0);
	assert_int_equal(
	    iscsi_access_add_rule(
		a, &(struct iscsi_rule){.initiator = "iqn.2026-01.org.x:named",
					.network = "10.0.0.0/24",
					.auth = &(struct iscsi_auth){.chap = &own, .nchap = 1}}),
	    0);
	assert_int_equal(
	    iscsi_access_add_rule(a, &(struct iscsi_rule){.network = "10.0.0.0/8", .map = wide}),
	    0);
	assert_int_equal(
	    iscsi_access_add_rule(a, &(struct iscsi_rule){.network = "10.0.0.0/16", .map = narrow}),
	    0);
	assert_int_equal(fake_map_refs(wide), 2); /* the rule holds one */
	iscsi_target_set_access(henv.t, a);

	/* a named initiator: its network only, the core's map, its own CHAP */
	fake.acl_name = "iqn.2026-01.org.x:named";
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:named", &p10, &g, &why), 0);
	assert_non_null(g.map);
	assert_int_equal(g.auth->nchap, 1);
	assert_string_equal(g.auth->chap[0].user, "own");
	iscsi_access_grant_release(&g);
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:named", &p10b, &g, &why),
			 -EACCES);
	assert_non_null(strstr(why, "address"));
	/* named by a rule but without a core ACL: refused */
	fake.acl_name = NULL;
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:named", &p10, &g, &why),
			 -EACCES);
	/* a core name ACL beats the address rules; the target's CHAP applies */
	fake.acl_name = "iqn.2026-01.org.x:acl";
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:acl", &p10, &g, &why), 0);
	assert_ptr_not_equal(g.map, wide);
	assert_ptr_not_equal(g.map, narrow);
	assert_int_equal(g.auth->nchap, 2);
	iscsi_access_grant_release(&g);
	/* no name ACL: the longest matching prefix */
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p10b, &g, &why), 0);
	assert_ptr_equal(g.map, narrow);
	assert_int_equal(fake_map_refs(narrow), 3);
	iscsi_access_grant_release(&g);
	assert_int_equal(fake_map_refs(narrow), 2);
	struct sockaddr_storage p10w = sa("10.200.0.1");
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p10w, &g, &why), 0);
	assert_ptr_equal(g.map, wide);
	iscsi_access_grant_release(&g);
	/* outside every network: demo mode, else refused */
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p192, &g, &why), 0);
	assert_ptr_not_equal(g.map, wide);
	iscsi_access_grant_release(&g);
	fake.access_rc = -EACCES;
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p192, &g, &why),
			 -EACCES);
	assert_non_null(strstr(why, "demo"));
	assert_null(g.policy);

	/* the portal filter: demo off, an address rule holds the peer */
	assert_true(iscsi_access_admits_address(henv.t, &p10b));
	struct sockaddr_storage p11 = sa("11.0.0.1");
	assert_false(iscsi_access_admits_address(henv.t, &p11));
	fake.access_rc = 0;
	assert_true(iscsi_access_admits_address(henv.t, &p11)); /* demo */
	fake.acl_name = NULL;

	/* replacing the policy releases the old one's maps */
	iscsi_target_set_access(henv.t, NULL);
	assert_int_equal(fake_map_refs(wide), 1);
	assert_int_equal(fake_map_refs(narrow), 1);
	/* no policy: the core alone, no authentication */
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p192, &g, &why), 0);
	assert_null(g.auth);
	iscsi_access_grant_release(&g);
	free(wide);
	free(narrow);
}

/* What a grant permits beyond commands (enum iscsi_perm): the admitting
 * rule's, demo mode's, none for the core's ACL alone or without a policy.
 *
 *   "…:reset"  rule with ISCSI_PERM_TARGET_RESET
 *   "…:plain"  rule without
 *   "…:core"   core name ACL only (no rule)
 *   10.0.0.0/8 address rule with the permission, 10.1.0.0/16 without
 *   anyone else: demo mode (its permission set separately) */
static void test_grant_perms(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct scsi_lun_map *m8 = fake_map_new(), *m16 = fake_map_new();
	struct sockaddr_storage p10 = sa("10.2.0.1"), p101 = sa("10.1.0.1"), p192 = sa("192.0.2.1");
	struct iscsi_access_grant g;
	const char *why;
	const struct {
		const char *name;
		struct sockaddr_storage *peer;
		unsigned perms;
	} cases[] = {
	    {.name = "iqn.2026-01.org.x:reset", .peer = &p192, .perms = ISCSI_PERM_TARGET_RESET},
	    {.name = "iqn.2026-01.org.x:plain", .peer = &p10, .perms = 0},
	    {.name = "iqn.2026-01.org.x:core", .peer = &p10, .perms = 0},
	    {.name = "iqn.2026-01.org.x:any", .peer = &p10, .perms = ISCSI_PERM_TARGET_RESET},
	    {.name = "iqn.2026-01.org.x:any", .peer = &p101, .perms = 0},
	    {.name = "iqn.2026-01.org.x:any", .peer = &p192, .perms = 0}, /* demo */
	};

	(void)state;
	assert_int_equal(
	    iscsi_access_add_rule(a, &(struct iscsi_rule){.initiator = "iqn.2026-01.org.x:reset",
							  .perms = ISCSI_PERM_TARGET_RESET}),
	    0);
	assert_int_equal(
	    iscsi_access_add_rule(
		a, &(struct iscsi_rule){.initiator = "iqn.2026-01.org.x:plain", .map = m8}),
	    0);
	assert_int_equal(
	    iscsi_access_add_rule(a, &(struct iscsi_rule){.network = "10.0.0.0/8",
							  .map = m8,
							  .perms = ISCSI_PERM_TARGET_RESET}),
	    0);
	assert_int_equal(
	    iscsi_access_add_rule(a, &(struct iscsi_rule){.network = "10.1.0.0/16", .map = m16}),
	    0);
	iscsi_target_set_access(henv.t, a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake.acl_name = strstr(cases[i].name, ":reset")	 ? cases[i].name
				: strstr(cases[i].name, ":core") ? cases[i].name
								 : NULL;
		assert_int_equal(iscsi_access_check(henv.t, cases[i].name, cases[i].peer, &g, &why),
				 0);
		if (g.perms != cases[i].perms)
			fail_msg("%s: perms %u, want %u", cases[i].name, g.perms, cases[i].perms);
		iscsi_access_grant_release(&g);
	}
	/* demo mode with the permission */
	fake.acl_name = NULL;
	iscsi_access_set_demo_perms(a, ISCSI_PERM_TARGET_RESET);
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p192, &g, &why), 0);
	assert_int_equal(g.perms, ISCSI_PERM_TARGET_RESET);
	iscsi_access_grant_release(&g);
	/* no policy: nothing beyond commands */
	iscsi_target_set_access(henv.t, NULL);
	assert_int_equal(iscsi_access_check(henv.t, "iqn.2026-01.org.x:any", &p192, &g, &why), 0);
	assert_int_equal(g.perms, 0);
	iscsi_access_grant_release(&g);
	free(m8);
	free(m16);
}

static void test_would_pass(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	uint8_t h_alice[32], h_wrong[32];
	unsigned int n;

	(void)state;
	assert_int_equal(iscsi_access_set_auth(a, &target_auth), 0);
	EVP_Digest("alice-secret", 12, h_alice, &n, EVP_sha256(), NULL);
	EVP_Digest("alice-secreT", 12, h_wrong, &n, EVP_sha256(), NULL);
	assert_true(iscsi_auth_would_pass(&a->auth, "alice", h_alice));
	assert_false(iscsi_auth_would_pass(&a->auth, "alice", h_wrong));
	assert_false(iscsi_auth_would_pass(&a->auth, "bob", h_alice));
	assert_false(iscsi_auth_would_pass(&a->auth, NULL, h_alice));
	assert_true(iscsi_auth_would_pass(NULL, NULL, h_alice)); /* no CHAP required */
	iscsi_access_free(a);
}

static void test_limits_effective(void **state)
{
	struct iscsi_target_limits l;

	(void)state;
	iscsi_limits_effective(henv.t, &l);
	assert_int_equal(l.max_sessions, 0);
	assert_int_equal(l.queue_depth, iscsi_global.settings.queue_depth);
	assert_int_equal(l.login_timeout_s, iscsi_global.settings.login_timeout_s);
	assert_int_equal(l.nop_in_interval_s, 0); /* the harness turns keepalives off */
	iscsi_target_set_limits(henv.t, &(struct iscsi_target_limits){
					    .max_sessions = 3,
					    .queue_depth = 5000,
					    .login_timeout_s = 4,
					    .nop_in_interval_set = true,
					    .nop_in_interval_s = 7,
					});
	iscsi_limits_effective(henv.t, &l);
	assert_int_equal(l.max_sessions, 3);
	assert_int_equal(l.queue_depth, 1024); /* the CmdSN window bound */
	assert_int_equal(l.login_timeout_s, 4);
	assert_int_equal(l.nop_in_interval_s, 7);
	assert_int_equal(l.nop_in_timeout_s, iscsi_global.settings.nop_in_timeout_s);
	iscsi_limits_effective(NULL, &l);
	assert_int_equal(l.login_timeout_s, iscsi_global.settings.login_timeout_s);
}

/* ---- logins ---- */
static int login_req(struct h_conn *hc, uint8_t flags, const char *const *keys,
		     union iscsi_hdr *out)
{
	uint8_t buf[16384];
	union iscsi_hdr h;
	uint32_t n = keys ? h_keys(buf, sizeof(buf), keys) : 0;

	h_login_hdr(&h, flags, hc->tsih, hc->itt, hc->cmdsn);
	h.login_req.isid[5] = isid_tail;
	h_send(hc, &h, buf, n);
	if (!h_recv(hc, out, rsp, sizeof(rsp), &rsp_len))
		return -1;
	return out->login_rsp.status_class << 8 | out->login_rsp.status_detail;
}

/* The value of key in the last response. */
static bool rsp_val(const char *key, char *val, size_t size)
{
	size_t kl = strlen(key);

	for (uint32_t off = 0; off < rsp_len;) {
		const char *r = (const char *)rsp + off;
		size_t l = strnlen(r, rsp_len - off);

		if (l > kl && !memcmp(r, key, kl) && r[kl] == '=') {
			snprintf(val, size, "%.*s", (int)(l - kl - 1), r + kl + 1);
			return true;
		}
		off += (uint32_t)l + 1;
	}
	return false;
}

static void chap_target(void)
{
	struct iscsi_access *a = iscsi_access_new();

	assert_int_equal(iscsi_access_set_auth(a, &target_auth), 0);
	iscsi_target_set_access(henv.t, a);
}

/* After CHAP_A: "CHAP_N=<user>", "CHAP_R=<R>" records for secret. */
static void response(char *n, size_t nsize, char *r, size_t rsize, const char *user,
		     const char *secret)
{
	char v[256];
	uint8_t chal[64], d[32];
	int id, alg, clen, dl;

	assert_true(rsp_val("CHAP_A", v, sizeof(v)));
	alg = atoi(v);
	assert_true(rsp_val("CHAP_I", v, sizeof(v)));
	id = atoi(v);
	assert_true(rsp_val("CHAP_C", v, sizeof(v)));
	clen = iscsi_chap_decode((const uint8_t *)v, strlen(v), chal, sizeof(chal), NULL);
	assert_true(clen >= 16);
	dl = iscsi_chap_digest((unsigned)alg, (uint8_t)id, (const uint8_t *)secret, strlen(secret),
			       chal, (size_t)clen, d);
	assert_true(dl > 0);
	snprintf(n, nsize, "CHAP_N=%s", user);
	memcpy(r, "CHAP_R=", 7);
	iscsi_chap_encode(ISCSI_CHAP_ENC_HEX, d, (size_t)dl, r + 7, rsize - 7);
}

static void test_chap_login_libiscsi_style(void **state)
{
	struct h_conn *hc;
	union iscsi_hdr h;
	char v[64], n[64], r[128];

	(void)state;
	chap_target();
	hc = h_conn_new();
	/* libiscsi: AuthMethod=CHAP,None with T=1 in the first request */
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
			   "SessionType=Normal", "AuthMethod=CHAP,None", "HeaderDigest=None"),
		      &h),
	    0);
	assert_true(rsp_val("AuthMethod", v, sizeof(v)));
	assert_string_equal(v, "CHAP");
	assert_int_equal(h.login_rsp.flags & ISCSI_LOGIN_F_TRANSIT, 0); /* not yet */
	assert_true(rsp_val("TargetPortalGroupTag", v, sizeof(v)));
	assert_int_equal(login_req(hc, SEC_STAY, KEYS("CHAP_A=5"), &h), 0);
	response(n, sizeof(n), r, sizeof(r), "bob", "bob-secret-12");
	assert_int_equal(login_req(hc, SEC_TO_OP, KEYS(n, r), &h), 0);
	assert_int_equal(h.login_rsp.flags, SEC_TO_OP);
	assert_int_equal(login_req(hc, OP_TO_FFP, KEYS("MaxRecvDataSegmentLength=65536"), &h), 0);
	assert_int_equal(h.login_rsp.flags, OP_TO_FFP);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_string_equal(hc->c->sess->chap_user, "bob");
	assert_false(hc->c->sess->chap_mutual);
	h_conn_free(hc);
}

static void test_chap_in_first_request(void **state)
{
	struct h_conn *hc;
	union iscsi_hdr h;
	char v[128], n[64], r[128];

	(void)state;
	chap_target();
	hc = h_conn_new();
	/* AuthMethod and CHAP_A together: the answer carries both */
	assert_int_equal(login_req(hc, SEC_STAY,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"AuthMethod=CHAP", "CHAP_A=8,5"),
				   &h),
			 0);
	assert_true(rsp_val("AuthMethod", v, sizeof(v)));
	assert_true(rsp_val("CHAP_A", v, sizeof(v)));
	assert_string_equal(v, "8");
	response(n, sizeof(n), r, sizeof(r), "alice", "alice-secret");
	/* mutual: the target answers with its own name and response */
	assert_int_equal(login_req(hc, SEC_TO_OP, KEYS(n, r, "CHAP_I=9", "CHAP_C=0x0a0b0c0d"), &h),
			 0);
	assert_true(rsp_val("CHAP_N", v, sizeof(v)));
	assert_string_equal(v, "target");
	assert_true(rsp_val("CHAP_R", v, sizeof(v)));
	assert_int_equal(strlen(v), 2 + 64); /* SHA3-256, hex like the challenge */
	assert_int_equal(login_req(hc, OP_TO_FFP, KEYS("MaxRecvDataSegmentLength=65536"), &h), 0);
	assert_true(hc->c->sess->chap_mutual);
	h_conn_free(hc);
}

static void test_chap_refusals(void **state)
{
	struct h_conn *hc;
	union iscsi_hdr h;
	char v[64], n[64], r[128];

	(void)state;
	chap_target();
	/* None offered to a target that requires CHAP: 02/01 with the answer */
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		      &h),
	    0x0201);
	assert_true(rsp_val("AuthMethod", v, sizeof(v)));
	assert_string_equal(v, "Reject");
	h_conn_free(hc);
	/* no security stage at all */
	hc = h_conn_new();
	assert_int_equal(h_login(hc, NULL), 0x0201);
	h_conn_free(hc);
	/* CHAP keys before AuthMethod */
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_STAY,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "CHAP_A=5"), &h),
	    0x0201);
	h_conn_free(hc);
	/* wrong secret */
	hc = h_conn_new();
	login_req(hc, SEC_STAY,
		  KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=CHAP"),
		  &h);
	assert_int_equal(login_req(hc, SEC_STAY, KEYS("CHAP_A=6"), &h), 0);
	response(n, sizeof(n), r, sizeof(r), "alice", "alice-secreT");
	assert_int_equal(login_req(hc, SEC_TO_OP, KEYS(n, r), &h), 0x0201);
	h_conn_free(hc);
	/* the target without CHAP: an initiator offering CHAP only */
	iscsi_target_set_access(henv.t, NULL);
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=CHAP"),
		      &h),
	    0x0201);
	h_conn_free(hc);
	/* and CHAP keys there are not acted upon */
	hc = h_conn_new();
	assert_int_equal(login_req(hc, SEC_TO_OP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"AuthMethod=None", "CHAP_A=5"),
				   &h),
			 0);
	assert_true(rsp_val("CHAP_A", v, sizeof(v)));
	assert_string_equal(v, "NotUnderstood");
	h_conn_free(hc);
}

static void test_authorization(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct h_conn *hc;
	union iscsi_hdr h;

	(void)state;
	/* a rule for the initiator from a network: the harness connection has
	 * no address, so it is refused (02/02) */
	assert_int_equal(iscsi_access_add_rule(a, &(struct iscsi_rule){.initiator = H_INITIATOR,
								       .network = "10.0.0.0/8"}),
			 0);
	iscsi_target_set_access(henv.t, a);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0x0202);
	h_conn_free(hc);
	/* from inside the network it may */
	fake.acl_name = H_INITIATOR;
	hc = h_conn_new();
	hc->c->peer_sa = sa("10.1.1.1");
	assert_int_equal(h_login(hc, NULL), 0);
	h_conn_free(hc);
	fake.acl_name = NULL;
}

/* A whole login with CHAP as user/secret (TSIH hc->tsih): the status of
 * the first response that fails, or of the final one. */
static int chap_login_as(struct h_conn *hc, const char *user, const char *secret)
{
	union iscsi_hdr h;
	char n[64], r[128];
	int st;

	st = login_req(
	    hc, SEC_STAY,
	    KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=CHAP"), &h);
	if (!st)
		st = login_req(hc, SEC_STAY, KEYS("CHAP_A=5"), &h);
	if (st)
		return st;
	response(n, sizeof(n), r, sizeof(r), user, secret);
	st = login_req(hc, SEC_TO_OP, KEYS(n, r), &h);
	if (!st)
		st = login_req(hc, OP_TO_FFP, KEYS("HeaderDigest=None"), &h);
	if (!st)
		hc->tsih = get_be16(h.login_rsp.tsih);
	return st;
}

/* A login with the TSIH, ISID, InitiatorName and CID of a live session
 * (all guessable) reinstates its connection -- which at ERL 0 ends the
 * session -- only once it has authenticated as that session's initiator
 * (RFC 7143 6.3.4). Before, its first request alone dropped the session. */
static void test_tsih_needs_authentication(void **state)
{
	struct h_conn *a, *x;
	union iscsi_hdr h;

	(void)state;
	chap_target();
	a = h_conn_new();
	assert_int_equal(chap_login_as(a, "alice", "alice-secret"), 0);
	assert_int_not_equal(a->tsih, 0);

	/* 1. the first request alone: the session stays */
	x = h_conn_new();
	x->tsih = a->tsih;
	assert_int_equal(
	    login_req(x, SEC_STAY,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=CHAP"),
		      &h),
	    0);
	h_pump();
	h_pump();
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S5_LOGGED_IN);
	h_conn_free(x);
	/* 2. a wrong secret: 02/01, the session stays */
	x = h_conn_new();
	x->tsih = a->tsih;
	assert_int_equal(chap_login_as(x, "alice", "not-the-secret"), 0x0201);
	h_pump();
	h_pump();
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S5_LOGGED_IN);
	h_conn_free(x);
	/* 3. another initiator's valid credentials under this initiator's
	 * name: "session does not exist", the session stays */
	x = h_conn_new();
	x->tsih = a->tsih;
	assert_int_equal(chap_login_as(x, "bob", "bob-secret-12"), 0x020a);
	h_pump();
	h_pump();
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(fake.nexus_lost, 0);
	h_conn_free(x);
	/* 4. the session's own initiator, same CID: connection reinstatement
	 * at ERL 0 -- the old connection and the session go, 02/0a asks for
	 * a new session (TSIH 0) */
	x = h_conn_new();
	x->tsih = a->tsih;
	assert_int_equal(chap_login_as(x, "alice", "alice-secret"), 0x020a);
	h_pump();
	h_pump();
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S1_FREE);
	h_conn_free(x);
	h_conn_free(a);
}

/* Who may log in is decided by the ACL entries (by name, by address) and
 * demo mode, before authentication and apart from it; credentials never
 * admit by themselves. The target's credentials authenticate the
 * initiators an entry without credentials of its own admits (and demo
 * mode's): an initiator name no entry admits is refused (02/02) however
 * valid the credentials it holds -- and before CHAP starts, so the refusal
 * is no oracle for secrets. */
static void test_target_credentials_admit_nobody(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct h_conn *hc;
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(iscsi_access_set_auth(a, &target_auth), 0);
	assert_int_equal(iscsi_access_add_rule(
			     a, &(struct iscsi_rule){.initiator = "iqn.2026-12.org.example:host2"}),
			 0);
	iscsi_target_set_access(henv.t, a);
	fake.acl_name = "iqn.2026-12.org.example:host2";
	fake.access_rc = -EACCES; /* no demo mode */
	/* H_INITIATOR is named by no entry: 02/02 at the first request,
	 * before any CHAP key is answered */
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_STAY,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=CHAP"),
		      &h),
	    0x0202);
	assert_false(rsp_val("AuthMethod", (char[16]){0}, 16));
	h_conn_free(hc);
	/* with demo mode, any name is admitted and the target's CHAP applies */
	fake.access_rc = 0;
	hc = h_conn_new();
	assert_int_equal(chap_login_as(hc, "alice", "alice-secret"), 0);
	assert_string_equal(hc->c->sess->chap_user, "alice");
	h_conn_free(hc);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0x0201);
	h_conn_free(hc);
	fake.acl_name = NULL;
}

/* Digests a target (or an ACL) requires: CRC32C picked from any offer that
 * holds it, whatever its place; an offer of None alone, or no offer at all
 * (None by default), fails the login with 02/00 (the key answered Reject). */
static void test_required_digests(void **state)
{
	struct iscsi_access *a = iscsi_access_new();
	struct h_conn *hc;
	union iscsi_hdr h;

	(void)state;
	iscsi_access_set_required(a, ISCSI_REQ_HEADER_DIGEST);
	assert_int_equal(iscsi_access_add_rule(a,
					       &(struct iscsi_rule){
						   .initiator = "iqn.2026-12.org.example:strict",
						   .required = ISCSI_REQ_DATA_DIGEST,
					       }),
			 0);
	iscsi_target_set_access(henv.t, a);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"HeaderDigest=None"),
				   &h),
			 0x0200);
	assert_true(h_has_key(rsp, rsp_len, "HeaderDigest=Reject"));
	h_conn_free(hc);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0x0200);
	h_conn_free(hc);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"HeaderDigest=None,CRC32C", "DataDigest=None"),
				   &h),
			 0);
	assert_true(h_has_key(rsp, rsp_len, "HeaderDigest=CRC32C"));
	assert_true(h_has_key(rsp, rsp_len, "DataDigest=None"));
	assert_true(hc->c->hdigest);
	h_conn_free(hc);
	/* the ACL's own requirement adds the data digest for its initiator */
	fake.acl_name = "iqn.2026-12.org.example:strict";
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, OP_TO_FFP,
		      KEYS("InitiatorName=iqn.2026-12.org.example:strict", "TargetName=" H_TARGET,
			   "HeaderDigest=CRC32C", "DataDigest=None"),
		      &h),
	    0x0200);
	assert_true(h_has_key(rsp, rsp_len, "DataDigest=Reject"));
	h_conn_free(hc);
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, OP_TO_FFP,
		      KEYS("InitiatorName=iqn.2026-12.org.example:strict", "TargetName=" H_TARGET,
			   "HeaderDigest=CRC32C", "DataDigest=CRC32C,None"),
		      &h),
	    0);
	assert_true(hc->c->ddigest);
	h_conn_free(hc);
	fake.acl_name = NULL;
}

static void test_target_limits(void **state)
{
	struct h_conn *a, *b;
	union iscsi_hdr h;
	uint64_t before, after;

	(void)state;
	iscsi_target_set_limits(henv.t, &(struct iscsi_target_limits){.max_sessions = 1,
								      .queue_depth = 4,
								      .login_timeout_s = 2});
	a = h_conn_new();
	assert_int_equal(h_login(a, NULL), 0);
	/* the command window is the target's queue depth */
	assert_int_equal(a->c->sess->cmdsn.depth, 4);
	b = h_conn_new();
	isid_tail = 0x42; /* another session, not a reinstatement of a's */
	/* the login timer moves to the target's timeout once it is known */
	assert_true(reactor_timer_armed(&b->c->login_timer));
	before = b->c->login_timer.when_ns;
	assert_int_equal(
	    login_req(b, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		      &h),
	    0);
	after = b->c->login_timer.when_ns;
	/* from the same start: 2 s instead of the global 30 s */
	assert_true(before - after > (uint64_t)(iscsi_global.settings.login_timeout_s - 3) * NS);
	assert_true(before - after <= (uint64_t)(iscsi_global.settings.login_timeout_s - 2) * NS);
	/* one session at most: 03/02 */
	assert_int_equal(login_req(b, OP_TO_FFP, NULL, &h), 0x0302);
	isid_tail = 0x01;
	h_conn_free(b);
	h_conn_free(a);
	iscsi_target_set_limits(henv.t, NULL);
}

static void test_discovery_auth(void **state)
{
	struct h_conn *hc;
	union iscsi_hdr h;
	char n[64], r[128];

	(void)state;
	assert_int_equal(iscsi_discovery_set(&target_auth, 9), -EINVAL);
	assert_int_equal(iscsi_discovery_set(&target_auth, ISCSI_DF_NONE), 0);
	assert_int_equal(iscsi_access_discovery_filter(), ISCSI_DF_NONE);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, OP_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "SessionType=Discovery"), &h),
			 0x0201);
	h_conn_free(hc);
	hc = h_conn_new();
	assert_int_equal(login_req(hc, SEC_STAY,
				   KEYS("InitiatorName=" H_INITIATOR, "SessionType=Discovery",
					"AuthMethod=CHAP", "CHAP_A=7"),
				   &h),
			 0);
	response(n, sizeof(n), r, sizeof(r), "alice", "alice-secret");
	assert_int_equal(login_req(hc, SEC_TO_OP, KEYS(n, r), &h), 0);
	assert_int_equal(login_req(hc, OP_TO_FFP, NULL, &h), 0);
	assert_string_equal(hc->c->sess->chap_user, "alice");
	h_conn_free(hc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_networks),
	    cmocka_unit_test_setup_teardown(test_auth_validation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_resolution, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_grant_perms, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_would_pass, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_limits_effective, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chap_login_libiscsi_style, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chap_in_first_request, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chap_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_authorization, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tsih_needs_authentication, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_credentials_admit_nobody, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_required_digests, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discovery_auth, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
