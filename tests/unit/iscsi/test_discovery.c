/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_discovery.c: SendTargets in a discovery session (RFC 7143 Appendix
 * C): every accessible target with its portals and portal group tags,
 * named targets, wildcard portals reported with the reached address. */
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

#include "harness.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define T2	  "iqn.2026-12.org.utarget:second"

static struct h_conn *hc;
static uint8_t rsp[1 << 16];
static uint32_t rsp_len;
static struct scsi_target *st2;
static struct iscsi_target *t2;

static int setup(void **state)
{
	struct iscsi_tpg *tpg;

	(void)state;
	h_setup(NULL);
	/* a second target with two portal groups, sharing the virtual portal */
	st2 = fake_target(T2);
	t2 = iscsi_target_add(st2, NULL);
	tpg = iscsi_tpg_add(t2, 7, 2, 0);
	assert_non_null(tpg);
	assert_null(iscsi_tpg_add(t2, 7, 3, 0)); /* tags are unique */
	pthread_mutex_lock(&iscsi_global.lock);
	{
		struct iscsi_bind *b = calloc(1, sizeof(*b));

		b->portal = henv.portal;
		b->tpg = tpg;
		list_add_tail(&henv.portal->binds, &b->portal_node);
		list_add_tail(&tpg->binds, &b->tpg_node);
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	hc = h_conn_new();
	assert_int_equal(h_login(hc, KEYS("SessionType=Discovery")), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	iscsi_target_del(t2);
	fake_target_free(st2);
	h_teardown();
	return 0;
}

static void send_targets(const char *value)
{
	char key[300];
	uint8_t buf[512];
	union iscsi_hdr h;
	uint32_t n;

	snprintf(key, sizeof(key), "SendTargets=%s", value);
	n = h_keys(buf, sizeof(buf), KEYS(key));
	memset(&h, 0, sizeof(h));
	h.text_req.opcode = ISCSI_OP_TEXT_REQ | ISCSI_OP_IMMEDIATE;
	h.text_req.flags = ISCSI_FLAG_FINAL;
	put_be32(h.text_req.itt, 1);
	put_be32(h.text_req.ttt, ISCSI_RSVD_TAG);
	h_send(hc, &h, buf, n);
	h_expect(hc, ISCSI_OP_TEXT_RSP, &h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(h.text_rsp.flags, ISCSI_FLAG_FINAL);
}

static void test_all(void **state)
{
	(void)state;
	send_targets("All");
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=127.0.0.1:3260,1"));
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" T2));
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=127.0.0.1:3260,7"));
	/* TargetName precedes its addresses (Appendix C) */
	assert_int_equal(memcmp(rsp, "TargetName=", 11), 0);
}

static void test_named_and_acl(void **state)
{
	(void)state;
	send_targets(T2);
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" T2));
	assert_false(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
	send_targets("iqn.2026-12.org.utarget:none");
	assert_int_equal(rsp_len, 0);
	send_targets("");
	assert_int_equal(rsp_len, 0);
	send_targets("nonsense");
	assert_true(h_has_key(rsp, rsp_len, "SendTargets=Reject"));
	/* targets the initiator may not access are not listed */
	fake.access_rc = -EACCES;
	send_targets("All");
	assert_int_equal(rsp_len, 0);
	fake.access_rc = 0;
}

static void test_wildcard(void **state)
{
	struct sockaddr_in *p = (struct sockaddr_in *)&henv.portal->sa;
	struct sockaddr_in *l = (struct sockaddr_in *)&hc->c->local_sa;

	(void)state;
	p->sin_addr.s_addr = htonl(INADDR_ANY);
	henv.portal->wildcard = true;
	l->sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.10", &l->sin_addr);
	l->sin_port = htons(41000);
	send_targets("All");
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=192.0.2.10:3260,1"));
}

static void test_no_scsi(void **state)
{
	static const uint8_t cdb[16];
	union iscsi_hdr h;

	(void)state;
	/* a discovery session carries no SCSI command */
	h_scsi_cmd(&h, hc, ISCSI_FLAG_FINAL, 0, cdb);
	h_send(hc, &h, NULL, 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_PROTOCOL_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_all, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_named_and_acl, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wildcard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_scsi, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
