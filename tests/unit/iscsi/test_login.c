/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_login.c: the login phase (RFC 7143 6.3, 11.12, 11.13) driven through
 * iscsi_conn_feed against the fake core. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/login.h"
#include "fabric/iscsi/session.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

static uint8_t rsp[65536];
static uint32_t rsp_len;

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
	return 0;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define OPNEG_TO_FFP                                                                               \
	(ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE)

/* Send one login request with these keys and flags; returns status. */
static int login_req(struct h_conn *hc, uint8_t flags, const char *const *keys,
		     union iscsi_hdr *out)
{
	uint8_t buf[16384];
	union iscsi_hdr h;
	uint32_t n = h_keys(buf, sizeof(buf), keys);

	h_login_hdr(&h, flags, 0, hc->itt, hc->cmdsn);
	h_send(hc, &h, buf, n);
	if (!h_recv(hc, out, rsp, sizeof(rsp), &rsp_len))
		return -1;
	return out->login_rsp.status_class << 8 | out->login_rsp.status_detail;
}

static void test_status_table(void **state)
{
	(void)state;
	/* RFC 7143 11.13.5 */
	static const uint16_t want[ISCSI_LS_COUNT] = {
	    [ISCSI_LS_SUCCESS] = 0x0000,
	    [ISCSI_LS_TARGET_MOVED_TEMP] = 0x0101,
	    [ISCSI_LS_TARGET_MOVED_PERM] = 0x0102,
	    [ISCSI_LS_INITIATOR_ERROR] = 0x0200,
	    [ISCSI_LS_AUTH_FAILURE] = 0x0201,
	    [ISCSI_LS_AUTHZ_FAILURE] = 0x0202,
	    [ISCSI_LS_NOT_FOUND] = 0x0203,
	    [ISCSI_LS_TARGET_REMOVED] = 0x0204,
	    [ISCSI_LS_UNSUPPORTED_VERSION] = 0x0205,
	    [ISCSI_LS_TOO_MANY_CONNECTIONS] = 0x0206,
	    [ISCSI_LS_MISSING_PARAMETER] = 0x0207,
	    [ISCSI_LS_CANT_INCLUDE] = 0x0208,
	    [ISCSI_LS_SESSION_TYPE_UNSUPPORTED] = 0x0209,
	    [ISCSI_LS_SESSION_NOT_FOUND] = 0x020a,
	    [ISCSI_LS_INVALID_DURING_LOGIN] = 0x020b,
	    [ISCSI_LS_TARGET_ERROR] = 0x0300,
	    [ISCSI_LS_SERVICE_UNAVAILABLE] = 0x0301,
	    [ISCSI_LS_OUT_OF_RESOURCES] = 0x0302,
	};

	for (unsigned i = 0; i < ISCSI_LS_COUNT; i++) {
		const struct iscsi_login_status_desc *d = &iscsi_login_status_table[i];

		assert_non_null(d->name);
		assert_int_equal(d->status_class << 8 | d->status_detail, want[i]);
	}
}

static void test_normal_login(void **state)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(login_req(hc, OPNEG_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"SessionType=Normal", "MaxRecvDataSegmentLength=65536",
					"MaxBurstLength=262144", "ImmediateData=Yes"),
				   &h),
			 0);
	assert_int_equal(h.login_rsp.flags, OPNEG_TO_FFP);
	assert_int_not_equal(get_be16(h.login_rsp.tsih), 0);
	assert_int_equal(get_be32(h.login_rsp.itt), hc->itt);
	assert_int_equal(get_be32(h.login_rsp.exp_cmdsn), 1);
	assert_true(iscsi_sn_le(1, get_be32(h.login_rsp.max_cmdsn)));
	assert_true(h_has_key(rsp, rsp_len, "TargetPortalGroupTag=1"));
	assert_true(h_has_key(rsp, rsp_len, "TargetAlias=test alias"));
	assert_true(h_has_key(rsp, rsp_len, "MaxRecvDataSegmentLength=262144"));
	assert_true(h_has_key(rsp, rsp_len, "MaxBurstLength=262144"));
	assert_true(h_has_key(rsp, rsp_len, "ImmediateData=Yes"));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(hc->c->max_send_dsl, 65536);
	assert_int_equal(hc->c->max_recv_dsl, 262144);
	assert_int_equal(fake.nexus_created, 1);
	/* SPC-4 initiator port name and TransportID format 01b */
	assert_string_equal(fake.last_iport, H_INITIATOR ",i,0x801234560001");
	assert_int_equal(fake.last_tid[0], 0x45);
	assert_int_equal(fake.last_tid_len % 4, 0);
	assert_int_equal(get_be16(fake.last_tid + 2), fake.last_tid_len - 4);
	assert_string_equal((const char *)fake.last_tid + 4, fake.last_iport);
	h_conn_free(hc);
	h_pump();
	assert_int_equal(fake.nexus_destroyed, 1);
}

static void test_security_stage(void **state)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(login_req(hc, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
					"AuthMethod=CHAP,None"),
				   &h),
			 0);
	assert_int_equal(h.login_rsp.flags, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL);
	assert_int_equal(get_be16(h.login_rsp.tsih), 0); /* only in the final response */
	assert_true(h_has_key(rsp, rsp_len, "AuthMethod=None"));
	assert_true(h_has_key(rsp, rsp_len, "TargetPortalGroupTag=1"));
	assert_int_equal(login_req(hc, OPNEG_TO_FFP, KEYS("HeaderDigest=CRC32C,None"), &h), 0);
	assert_true(h_has_key(rsp, rsp_len, "HeaderDigest=CRC32C"));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_true(hc->c->hdigest);
	assert_false(hc->c->ddigest);
	/* a NOP-Out with a header digest is answered (and the answer carries one) */
	hc->hdigest = true;
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h.nop_out.flags = ISCSI_FLAG_FINAL;
	put_be32(h.nop_out.itt, 77);
	put_be32(h.nop_out.ttt, ISCSI_RSVD_TAG);
	put_be32(h.nop_out.cmdsn, 1);
	assert_int_equal(h_send(hc, &h, "ping", 4), 0);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.bhs.opcode, ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(h.nop_in.itt), 77);
	assert_int_equal(rsp_len, 4);
	assert_memory_equal(rsp, "ping", 4);
	h_conn_free(hc);
}

static void expect_fail(const char *const *keys, uint8_t flags, int status)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	assert_int_equal(login_req(hc, flags, keys, &h), status);
	/* closed once the failure response is out (T7) */
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);
}

static void test_failures(void **state)
{
	(void)state;
	/* only CHAP offered: AuthMethod=Reject and 02/01 */
	{
		struct h_conn *hc = h_conn_new();
		union iscsi_hdr h;

		assert_int_equal(login_req(hc, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL,
					   KEYS("InitiatorName=" H_INITIATOR,
						"TargetName=" H_TARGET, "AuthMethod=CHAP"),
					   &h),
				 0x0201);
		assert_true(h_has_key(rsp, rsp_len, "AuthMethod=Reject"));
		h_conn_free(hc);
	}
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=iqn.2026-12.org.utarget:nope"),
		    OPNEG_TO_FFP, 0x0203);
	expect_fail(KEYS("TargetName=" H_TARGET), OPNEG_TO_FFP, 0x0207);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR), OPNEG_TO_FFP, 0x0207);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "SessionType=Foo"),
		    OPNEG_TO_FFP, 0x0209);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
			 "MaxBurstLength=4096", "MaxBurstLength=8192"),
		    OPNEG_TO_FFP, 0x0200);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "NoEquals"),
		    OPNEG_TO_FFP, 0x0200);
	/* AuthMethod in the operational stage */
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		    OPNEG_TO_FFP, 0x0200);
	/* T and C together; a backward transition; reserved stage */
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET),
		    OPNEG_TO_FFP | ISCSI_LOGIN_F_CONTINUE, 0x0200);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET),
		    ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2), 0x0200);
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET),
		    ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_RESERVED, 0x0200);
	/* ACL: the core refuses the initiator */
	fake.access_rc = -EACCES;
	expect_fail(KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), OPNEG_TO_FFP,
		    0x0202);
	fake.access_rc = 0;
	/* too many keys in one request */
	{
		const char *many[ISCSI_KEYS_MAX + 4];
		char names[ISCSI_KEYS_MAX + 4][16];
		unsigned i;

		many[0] = "InitiatorName=" H_INITIATOR;
		many[1] = "TargetName=" H_TARGET;
		for (i = 2; i < ISCSI_KEYS_MAX + 3; i++) {
			snprintf(names[i], sizeof(names[i]), "X-k%u=1", i);
			many[i] = names[i];
		}
		many[i] = NULL;
		expect_fail(many, OPNEG_TO_FFP, 0x0200);
	}
}

static void test_version_and_tsih(void **state)
{
	struct h_conn *hc = h_conn_new();
	uint8_t buf[512];
	union iscsi_hdr h;
	uint32_t n =
	    h_keys(buf, sizeof(buf), KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET));

	(void)state;
	h_login_hdr(&h, OPNEG_TO_FFP, 0, 1, 1);
	h.login_req.version_min = 1;
	h.login_req.version_max = 2;
	h_send(hc, &h, buf, n);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x0205);
	h_conn_free(hc);

	/* TSIH of no session */
	hc = h_conn_new();
	h_login_hdr(&h, OPNEG_TO_FFP, 0x4242, 1, 1);
	h_send(hc, &h, buf, n);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x020a);
	h_conn_free(hc);
}

/* A further login of the session (TSIH != 0) with CID cid and keys. */
static int join_req(struct h_conn *hc, uint16_t tsih, uint16_t cid, const char *const *keys)
{
	uint8_t buf[4096];
	union iscsi_hdr h;
	uint32_t n = h_keys(buf, sizeof(buf), keys);

	h_login_hdr(&h, OPNEG_TO_FFP, tsih, hc->itt, hc->cmdsn);
	put_be16(h.login_req.cid, cid);
	h_send(hc, &h, buf, n);
	if (!h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len))
		return -1;
	return h.login_rsp.status_class << 8 | h.login_rsp.status_detail;
}

/* MC/S (RFC 7143 6.3.4, 13.2): connections join a session up to its
 * negotiated MaxConnections, as the same initiator, without the leading-only
 * keys; a joined connection shares the session, its CID is its own. */
static void test_mcs_join(void **state)
{
	struct iscsi_settings s = h_settings();
	struct h_conn *lead, *c2, *c3, *c4;
	uint16_t tsih;

	(void)state;
	h_teardown();
	s.max_connections = 3;
	h_setup(&s);
	lead = h_conn_new();
	assert_int_equal(h_login(lead, KEYS("MaxConnections=8")), 0);
	tsih = lead->tsih;
	assert_int_equal(lead->c->sess->params.max_connections, 3); /* the minimum */

	/* a leading-only key on the further login: 02/00, the session goes on */
	c2 = h_conn_new();
	assert_int_equal(join_req(c2, tsih, 1,
				  KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET,
				       "MaxBurstLength=4096")),
			 0x0200);
	h_conn_free(c2);
	/* another initiator's name: no session of its own, 02/0a */
	c2 = h_conn_new();
	assert_int_equal(
	    join_req(c2, tsih, 1,
		     KEYS("InitiatorName=iqn.2026-12.org.utarget:other", "TargetName=" H_TARGET)),
	    0x020a);
	h_conn_free(c2);
	assert_int_equal(lead->c->sess->nconns, 1);

	c2 = h_conn_new();
	assert_int_equal(
	    join_req(c2, tsih, 1, KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET)), 0);
	assert_ptr_equal(c2->c->sess, lead->c->sess);
	assert_int_equal(c2->c->cid, 1);
	c3 = h_conn_new();
	assert_int_equal(
	    join_req(c3, tsih, 2, KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET)), 0);
	assert_int_equal(lead->c->sess->nconns, 3);
	/* a fourth: over MaxConnections 3 */
	c4 = h_conn_new();
	assert_int_equal(
	    join_req(c4, tsih, 3, KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET)),
	    0x0206);
	h_conn_free(c4);
	assert_int_equal(lead->c->sess->nconns, 3);
	h_conn_free(c3);
	h_conn_free(c2);
	h_conn_free(lead);
}

static void test_discovery(void **state)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(login_req(hc, OPNEG_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "SessionType=Discovery",
					"MaxBurstLength=4096"),
				   &h),
			 0);
	assert_true(h_has_key(rsp, rsp_len, "MaxBurstLength=Irrelevant"));
	assert_false(h_has_key(rsp, rsp_len, "TargetPortalGroupTag=1"));
	assert_int_equal(hc->c->sess->type, ISCSI_SESSION_DISCOVERY);
	assert_int_equal(fake.nexus_created, 0);
	h_conn_free(hc);
}

static void test_continuation(void **state)
{
	struct h_conn *hc = h_conn_new();
	uint8_t buf[512];
	union iscsi_hdr h;
	uint32_t n = h_keys(
	    buf, sizeof(buf),
	    KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "MaxBurstLength=65536"));

	(void)state;
	/* the request in two PDUs, split inside a key (C bit) */
	h_login_hdr(&h, (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_LOGIN_F_CONTINUE, 0, 5, 1);
	h_send(hc, &h, buf, 20);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class, 0);
	assert_int_equal(rsp_len, 0); /* empty answer to a partial request */
	assert_int_equal(h.login_rsp.flags & ISCSI_LOGIN_F_TRANSIT, 0);
	h_login_hdr(&h, OPNEG_TO_FFP, 0, 5, 1);
	h_send(hc, &h, buf + 20, n - 20);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class, 0);
	assert_true(h_has_key(rsp, rsp_len, "MaxBurstLength=65536"));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
	/* StatSN advances by one per response */
	h_conn_free(hc);

	/* a request over the accumulation bound fails */
	hc = h_conn_new();
	{
		static uint8_t big[8192];

		memset(big, 'a', sizeof(big));
		for (unsigned i = 0; i <= ISCSI_KEYS_ACCUM_MAX / sizeof(big); i++) {
			h_login_hdr(&h, (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_LOGIN_F_CONTINUE, 0,
				    5, 1);
			h_send(hc, &h, big, sizeof(big));
		}
		while (h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len))
			;
		assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x0200);
	}
	h_conn_free(hc);
}

static void test_wrong_pdus(void **state)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	/* the first PDU is not a login: dropped without an answer */
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	assert_true(h_send(hc, &h, NULL, 0) < 0);
	assert_false(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);

	/* another PDU during login: 02/0b */
	hc = h_conn_new();
	assert_int_equal(login_req(hc, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0);
	memset(&h, 0, sizeof(h));
	h.nop_out.opcode = ISCSI_OP_NOP_OUT | ISCSI_OP_IMMEDIATE;
	h_send(hc, &h, NULL, 0);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x020b);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);

	/* a data segment over 8192 bytes in login: failure, never read */
	hc = h_conn_new();
	{
		uint8_t wire[64];

		h_login_hdr(&h, OPNEG_TO_FFP, 0, 1, 1);
		put_be24(h.bhs.dsl, 8193);
		memcpy(wire, h.raw, 48);
		iscsi_conn_feed(hc->c, wire, 48);
		assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
		assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x0200);
		assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	}
	h_conn_free(hc);
}

static void test_redirect(void **state)
{
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(login_req(hc, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0);
	/* the redirection path (no configuration triggers it yet) */
	iscsi_login_fail(hc->c, ISCSI_LS_TARGET_MOVED_TEMP, "192.0.2.7:3260,1");
	iscsi_conn_flush(hc->c);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class, 1);
	assert_int_equal(h.login_rsp.status_detail, 1);
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=192.0.2.7:3260,1"));
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);

	hc = h_conn_new();
	assert_int_equal(login_req(hc, ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0);
	iscsi_login_fail(hc->c, ISCSI_LS_TARGET_MOVED_PERM, "[2001:db8::1]:3260,2");
	iscsi_conn_flush(hc->c);
	assert_true(h_recv(hc, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class << 8 | h.login_rsp.status_detail, 0x0102);
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=[2001:db8::1]:3260,2"));
	h_conn_free(hc);
}

static void test_max_sessions(void **state)
{
	struct iscsi_settings s = h_settings();
	static const uint8_t isid2[6] = {0x80, 0, 0, 0, 0, 2};
	struct h_conn *a, *b;

	(void)state;
	h_teardown();
	s.max_sessions = 1;
	h_setup(&s);
	a = h_conn_new();
	b = h_conn_new();
	assert_int_equal(h_login(a, NULL), 0);
	assert_int_equal(h_login_isid(b, NULL, isid2), 0x0302);
	h_conn_free(b);
	h_conn_free(a);
}

static void test_reinstatement(void **state)
{
	struct h_conn *a = h_conn_new(), *b = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(a, NULL), 0);
	assert_int_equal(fake.nexus_created, 1);
	/* same ISID, InitiatorName and target: the old session is closed
	 * (its tasks aborted through scsi_nexus_loss) before the new one */
	{
		uint8_t buf[512];
		uint32_t n = h_keys(buf, sizeof(buf),
				    KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET));

		h_login_hdr(&h, OPNEG_TO_FFP, 0, 9, 1);
		h_send(b, &h, buf, n);
	}
	assert_false(h_recv(b, &h, rsp, sizeof(rsp), &rsp_len)); /* waiting */
	h_pump(); /* the old connection drops, the session goes, b resumes */
	h_pump();
	iscsi_conn_flush(b->c);
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S1_FREE);
	assert_int_equal(fake.nexus_lost, 1);
	assert_int_equal(fake.nexus_destroyed, 1);
	assert_true(h_recv(b, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class, 0);
	assert_int_equal(iscsi_conn_state(b->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(fake.nexus_created, 2);
	h_conn_free(a);
	h_conn_free(b);
}

/* ---- identity: byte-exact re-declarations, frozen keys, normalized names ---- */

#define SEC_TO_OP (ISCSI_LOGIN_F_TRANSIT | ISCSI_STAGE_OPERATIONAL)

/* CRC32C (reflected, polynomial 82F63B78h): four bytes appended to prefix
 * that give the same CRC as want, found by running the register back over
 * 32 bit steps. Each step forward is r = r >> 1 ^ (r & 1 ? P : 0); P has
 * its top bit set and r >> 1 has not, so the top bit says which it was. */
static uint32_t crc_unstep32(uint32_t r)
{
	for (int i = 0; i < 32; i++)
		r = (r & 0x80000000u) ? ((r ^ 0x82f63b78u) << 1) | 1u : r << 1;
	return r;
}

static bool name_byte_ok(uint8_t b)
{
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z');
}

/* A name other than want with the same CRC32C, of printable name bytes. */
static void crc_twin(const char *want, char *out, size_t cap)
{
	uint32_t target = CRC32C_INIT;

	target = crc32c_update(target, want, strlen(want));
	for (unsigned k = 0; k < 10000000; k++) {
		int n = snprintf(out, cap, "iqn.2026-12.org.example:x%x-", k);
		uint32_t st = crc32c_update(CRC32C_INIT, out, (size_t)n);
		uint32_t x = crc_unstep32(target) ^ st;
		uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
				(uint8_t)(x >> 24)};

		if (!name_byte_ok(b[0]) || !name_byte_ok(b[1]) || !name_byte_ok(b[2]) ||
		    !name_byte_ok(b[3]))
			continue;
		memcpy(out + n, b, 4);
		out[n + 4] = 0;
		assert_int_equal(crc32c(out, strlen(out)), crc32c(want, strlen(want)));
		assert_string_not_equal(out, want);
		return;
	}
	fail_msg("no CRC32C twin found");
}

/* RFC 7143 6.2: a key declared again must carry the same value, compared
 * byte for byte. A CRC of the value would let an initiator admitted under
 * one InitiatorName take another's (four chosen bytes make a collision)
 * and with it that initiator's session and reservations. */
static void test_redeclared_name(void **state)
{
	char twin[128], rec[160];
	struct h_conn *hc = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	crc_twin(H_INITIATOR, twin, sizeof(twin));
	snprintf(rec, sizeof(rec), "InitiatorName=%s", twin);
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		      &h),
	    0);
	assert_int_equal(login_req(hc, OPNEG_TO_FFP, KEYS(rec), &h), 0x0200);
	assert_null(hc->c->sess);
	assert_int_equal(fake.nexus_created, 0);
	h_conn_free(hc);

	/* the same bytes again are fine */
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		      &h),
	    0);
	assert_int_equal(login_req(hc, OPNEG_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 0);
	assert_string_equal(hc->c->sess->initiator_name, H_INITIATOR);
	h_conn_free(hc);
}

/* Once the login has resolved who it is, SessionType, TargetName and
 * InitiatorName are frozen: a session resolved as Normal (SessionType
 * absent) that later says Discovery would skip discovery's CHAP; a
 * discovery session may not name a target later. */
static void test_identity_frozen(void **state)
{
	const char *const *later[] = {
	    KEYS("SessionType=Discovery"),
	    KEYS("TargetName=iqn.2026-12.org.utarget:other"),
	    KEYS("InitiatorName=iqn.2026-12.org.example:host2"),
	};
	struct h_conn *hc;
	union iscsi_hdr h;

	(void)state;
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		hc = h_conn_new();
		assert_int_equal(login_req(hc, SEC_TO_OP,
					   KEYS("InitiatorName=" H_INITIATOR,
						"TargetName=" H_TARGET, "AuthMethod=None"),
					   &h),
				 0);
		assert_int_equal(login_req(hc, OPNEG_TO_FFP, later[i], &h), 0x0200);
		assert_null(hc->c->sess);
		h_conn_free(hc);
	}
	/* a discovery session naming a target afterwards */
	hc = h_conn_new();
	assert_int_equal(login_req(hc, SEC_TO_OP,
				   KEYS("InitiatorName=" H_INITIATOR, "SessionType=Discovery",
					"AuthMethod=None"),
				   &h),
			 0);
	assert_int_equal(login_req(hc, OPNEG_TO_FFP, KEYS("TargetName=" H_TARGET), &h), 0x0200);
	h_conn_free(hc);
	/* the resolved values repeated are fine, the default included */
	hc = h_conn_new();
	assert_int_equal(
	    login_req(hc, SEC_TO_OP,
		      KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, "AuthMethod=None"),
		      &h),
	    0);
	assert_int_equal(login_req(hc, OPNEG_TO_FFP, KEYS("SessionType=Normal"), &h), 0);
	assert_int_equal(hc->c->sess->type, ISCSI_SESSION_NORMAL);
	h_conn_free(hc);
}

/* RFC 3722: the name the initiator sends is kept normalized, so that the
 * ACLs, the I_T nexus (initiator port, TransportID) and reinstatement all
 * compare it byte for byte. */
static void test_name_normalized(void **state)
{
	struct h_conn *a = h_conn_new(), *b = h_conn_new();
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(login_req(a, OPNEG_TO_FFP,
				   KEYS("InitiatorName=IQN.2026-12.Org.Example:HOST1",
					"TargetName=IQN.2026-12.ORG.UTARGET:TEST"),
				   &h),
			 0);
	assert_string_equal(a->c->sess->initiator_name, H_INITIATOR);
	assert_string_equal(fake.last_iport, H_INITIATOR ",i,0x801234560001");
	/* the same initiator in lower case reinstates that session */
	assert_int_equal(login_req(b, OPNEG_TO_FFP,
				   KEYS("InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET), &h),
			 -1); /* waiting for the old session to go */
	h_pump();
	h_pump();
	iscsi_conn_flush(b->c);
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S1_FREE);
	assert_true(h_recv(b, &h, rsp, sizeof(rsp), &rsp_len));
	assert_int_equal(h.login_rsp.status_class, 0);
	h_conn_free(a);
	h_conn_free(b);
	/* a name that does not normalize (RFC 3722 prohibits the space) */
	expect_fail(KEYS("InitiatorName=iqn.2026-12.org.example:a b", "TargetName=" H_TARGET),
		    OPNEG_TO_FFP, 0x0200);
}

static void stop_cb(struct reactor_timer *t)
{
	reactor_stop(henv.r);
}

static void test_login_timeout(void **state)
{
	struct iscsi_settings s = h_settings();
	struct reactor_timer stop;
	struct h_conn *hc;

	(void)state;
	h_teardown();
	s.login_timeout_s = 1;
	h_setup(&s);
	hc = h_conn_new();
	reactor_timer_init(&stop, stop_cb);
	reactor_timer_arm(henv.r, &stop, 1200000000ull);
	reactor_run(henv.r);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S1_FREE);
	h_conn_free(hc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_table),
	    cmocka_unit_test_setup_teardown(test_normal_login, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_security_stage, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_version_and_tsih, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mcs_join, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discovery, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_continuation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wrong_pdus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_redirect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_max_sessions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reinstatement, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_login_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_redeclared_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_identity_frozen, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_name_normalized, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
