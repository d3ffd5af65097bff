/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_text.c: Text Request/Response in full feature phase (RFC 7143 11.10,
 * 11.11): answers, invalid keys, C-bit continuation both ways with the
 * Target Transfer Tag, MaxRecvDataSegmentLength declared in FFP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "lib/endian.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static struct h_conn *hc;
static uint8_t rsp[1 << 16];
static uint32_t rsp_len;

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	hc = h_conn_new();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void text_req(uint8_t flags, uint32_t itt, uint32_t ttt, const void *data, uint32_t len)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.text_req.opcode = ISCSI_OP_TEXT_REQ | ISCSI_OP_IMMEDIATE;
	h.text_req.flags = flags;
	put_be32(h.text_req.itt, itt);
	put_be32(h.text_req.ttt, ttt);
	put_be32(h.text_req.cmdsn, hc->cmdsn);
	h_send(hc, &h, data, len);
}

static uint8_t text_keys(const char *const *keys, union iscsi_hdr *h)
{
	uint8_t buf[4096];
	uint32_t n = h_keys(buf, sizeof(buf), keys);

	text_req(ISCSI_FLAG_FINAL, 0x77, ISCSI_RSVD_TAG, buf, n);
	h_expect(hc, ISCSI_OP_TEXT_RSP, h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(get_be32(h->text_rsp.itt), 0x77);
	return h->text_rsp.flags;
}

static void test_send_targets_normal(void **state)
{
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, NULL), 0);
	/* libiscsi's iSCSISendTargets tests */
	assert_int_equal(text_keys(KEYS("SendTargets=All"), &h), ISCSI_FLAG_FINAL);
	assert_int_equal(get_be32(h.text_rsp.ttt), ISCSI_RSVD_TAG);
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
	assert_true(h_has_key(rsp, rsp_len, "TargetAddress=127.0.0.1:3260,1"));
	text_keys(KEYS("SendTargetsPlease=All"), &h);
	assert_true(h_has_key(rsp, rsp_len, "SendTargetsPlease=NotUnderstood"));
	text_keys(KEYS("SendTargets=Alle"), &h);
	assert_true(h_has_key(rsp, rsp_len, "SendTargets=Reject"));
	text_keys(KEYS("SendTargets=A"), &h);
	assert_true(h_has_key(rsp, rsp_len, "SendTargets=Reject"));
	text_keys(KEYS("sENDtARGETS=aLL"), &h);
	assert_true(h_has_key(rsp, rsp_len, "sENDtARGETS=NotUnderstood"));
	/* empty value and its own name: the session's target */
	text_keys(KEYS("SendTargets="), &h);
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
	text_keys(KEYS("SendTargets=" H_TARGET), &h);
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
	text_keys(KEYS("SendTargets=iqn.2026-12.org.utarget:other"), &h);
	assert_int_equal(rsp_len, 0);
}

static void test_ffp_keys(void **state)
{
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(h_login(hc, KEYS("MaxRecvDataSegmentLength=8192")), 0);
	assert_int_equal(hc->c->max_send_dsl, 8192);
	text_keys(KEYS("MaxRecvDataSegmentLength=4096", "InitialR2T=No", "X-foo=bar"), &h);
	assert_int_equal(hc->c->max_send_dsl, 4096);
	assert_true(h_has_key(rsp, rsp_len, "InitialR2T=Reject"));
	assert_true(h_has_key(rsp, rsp_len, "X-foo=NotUnderstood"));
	/* a key twice: the request is rejected */
	{
		uint8_t buf[128];
		uint32_t n = h_keys(buf, sizeof(buf), KEYS("SendTargets=All", "SendTargets=All"));

		text_req(ISCSI_FLAG_FINAL, 0x78, ISCSI_RSVD_TAG, buf, n);
		h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
		assert_int_equal(h.reject.reason, ISCSI_REJECT_PROTOCOL_ERROR);
	}
	/* malformed text */
	text_req(ISCSI_FLAG_FINAL, 0x79, ISCSI_RSVD_TAG, "NoEquals", 9);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	/* C and F together */
	text_req(ISCSI_FLAG_FINAL | ISCSI_FLAG_CONTINUE, 0x7a, ISCSI_RSVD_TAG, "A=1", 4);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(h.reject.reason, ISCSI_REJECT_INVALID_PDU_FIELD);
	/* a TTT we never gave */
	text_req(ISCSI_FLAG_FINAL, 0x7b, 0x1234, NULL, 0);
	h_expect(hc, ISCSI_OP_REJECT, &h, NULL, 0, NULL);
	assert_int_equal(iscsi_conn_state(hc->c), ISCSI_CONN_S5_LOGGED_IN);
}

static void test_request_continuation(void **state)
{
	static const char req[] = "X-first=1\0SendTargets=All\0";
	union iscsi_hdr h;
	uint32_t ttt;

	(void)state;
	assert_int_equal(h_login(hc, NULL), 0);
	text_req(ISCSI_FLAG_CONTINUE, 0x90, ISCSI_RSVD_TAG, req, 14); /* mid-key */
	h_expect(hc, ISCSI_OP_TEXT_RSP, &h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(rsp_len, 0);
	assert_int_equal(h.text_rsp.flags & ISCSI_FLAG_FINAL, 0);
	ttt = get_be32(h.text_rsp.ttt);
	assert_int_not_equal(ttt, ISCSI_RSVD_TAG);
	text_req(ISCSI_FLAG_FINAL, 0x90, ttt, req + 14, sizeof(req) - 1 - 14);
	h_expect(hc, ISCSI_OP_TEXT_RSP, &h, rsp, sizeof(rsp), &rsp_len);
	assert_int_equal(h.text_rsp.flags, ISCSI_FLAG_FINAL);
	assert_true(h_has_key(rsp, rsp_len, "X-first=NotUnderstood"));
	assert_true(h_has_key(rsp, rsp_len, "TargetName=" H_TARGET));
}

static void test_response_continuation(void **state)
{
	static uint8_t all[1 << 16];
	union iscsi_hdr h;
	uint32_t got = 0, ttt, pieces = 0;
	char keys[40][80];
	const char *kv[42];

	(void)state;
	/* an answer larger than the initiator's 512-byte limit */
	assert_int_equal(h_login(hc, KEYS("MaxRecvDataSegmentLength=512")), 0);
	for (unsigned i = 0; i < 40; i++) {
		snprintf(keys[i], sizeof(keys[i]), "X-com.example.some-long-key-name-%02u=v", i);
		kv[i] = keys[i];
	}
	kv[40] = NULL;
	text_keys(kv, &h);
	for (;;) {
		assert_true(rsp_len <= 512);
		memcpy(all + got, rsp, rsp_len);
		got += rsp_len;
		pieces++;
		if (h.text_rsp.flags & ISCSI_FLAG_FINAL)
			break;
		assert_true(h.text_rsp.flags & ISCSI_FLAG_CONTINUE);
		ttt = get_be32(h.text_rsp.ttt);
		assert_int_not_equal(ttt, ISCSI_RSVD_TAG);
		text_req(ISCSI_FLAG_FINAL, 0x77, ttt, NULL, 0);
		h_expect(hc, ISCSI_OP_TEXT_RSP, &h, rsp, sizeof(rsp), &rsp_len);
	}
	assert_true(pieces > 1);
	assert_int_equal(get_be32(h.text_rsp.ttt), ISCSI_RSVD_TAG);
	for (unsigned i = 0; i < 40; i++) {
		char want[96];

		snprintf(want, sizeof(want), "X-com.example.some-long-key-name-%02u=NotUnderstood",
			 i);
		assert_true(h_has_key(all, got, want));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_send_targets_normal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ffp_keys, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_request_continuation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_response_continuation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
