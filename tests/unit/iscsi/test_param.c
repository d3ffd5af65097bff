/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_param.c: the negotiation table: every key kind and merge rule
 * (RFC 7143 6.2, 13), NotUnderstood, Reject, Irrelevant, duplicates,
 * re-declarations, oversize values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/param.c"

static struct iscsi_settings st;
static struct iscsi_neg neg;
static struct iscsi_kbuf out;
static uint8_t reqbuf[65536];
static struct iscsi_kv kvs[ISCSI_KEYS_MAX];

static int setup(void **state)
{
	(void)state;
	iscsi_settings_default(&st);
	st.max_burst_length = 1048576;
	st.first_burst_length = 65536;
	st.max_recv_data_segment_length = 262144;
	st.initial_r2t = false;
	st.immediate_data = true;
	st.default_time2wait = 2;
	st.max_outstanding_r2t = 8;
	st.header_digest = true;
	st.data_digest = false;
	iscsi_neg_init(&neg, &st);
	iscsi_kbuf_free(&out);
	iscsi_kbuf_init(&out, 1 << 20);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	iscsi_kbuf_free(&out);
	return 0;
}

/* One request of the given records. */
static enum iscsi_neg_result req(enum iscsi_neg_stage stage, const char *const *kv)
{
	size_t len = 0;
	unsigned n;

	for (; *kv; kv++) {
		size_t l = strlen(*kv) + 1;

		memcpy(reqbuf + len, *kv, l);
		len += l;
	}
	iscsi_kbuf_reset(&out);
	assert_int_equal(iscsi_keys_parse(reqbuf, len, kvs, ISCSI_KEYS_MAX, &n), ISCSI_KEYS_OK);
	return iscsi_neg_request(&neg, stage, kvs, n, &out);
}

/* some record starts with prefix */
static bool has_key(const char *prefix)
{
	size_t l = strlen(prefix);

	for (uint32_t off = 0; off < out.len;) {
		const uint8_t *e = memchr(out.buf + off, 0, out.len - off);
		size_t rl = (size_t)(e - out.buf - off);

		if (rl >= l && !memcmp(out.buf + off, prefix, l))
			return true;
		off += (uint32_t)rl + 1;
	}
	return false;
}

static bool has(const char *rec)
{
	size_t l = strlen(rec);

	for (uint32_t off = 0; off < out.len;) {
		const uint8_t *e = memchr(out.buf + off, 0, out.len - off);
		size_t rl = (size_t)(e - out.buf - off);

		if (rl == l && !memcmp(out.buf + off, rec, l))
			return true;
		off += (uint32_t)rl + 1;
	}
	return false;
}

static unsigned answers(void)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < out.len; i++)
		n += out.buf[i] == 0;
	return n;
}

#define OP		ISCSI_NEG_OPERATIONAL
#define REQ(stage, ...) req(stage, (const char *const[]){__VA_ARGS__, NULL})

static void test_bool_and(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "ImmediateData=No"), ISCSI_NEG_OK);
	assert_true(has("ImmediateData=No"));
	assert_false(neg.active.immediate_data);
	setup(NULL);
	assert_int_equal(REQ(OP, "ImmediateData=Yes"), ISCSI_NEG_OK);
	assert_true(has("ImmediateData=Yes"));
	st.immediate_data = false;
	iscsi_neg_init(&neg, &st);
	assert_int_equal(REQ(OP, "ImmediateData=Yes"), ISCSI_NEG_OK);
	assert_true(has("ImmediateData=No"));
	/* not a Boolean */
	setup(NULL);
	assert_int_equal(REQ(OP, "ImmediateData=yes"), ISCSI_NEG_OK);
	assert_true(has("ImmediateData=Reject"));
	assert_true(neg.active.immediate_data); /* default kept */
}

static void test_bool_or(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "InitialR2T=No"), ISCSI_NEG_OK);
	assert_true(has("InitialR2T=No"));
	setup(NULL);
	assert_int_equal(REQ(OP, "InitialR2T=Yes"), ISCSI_NEG_OK);
	assert_true(has("InitialR2T=Yes"));
	st.initial_r2t = true;
	iscsi_neg_init(&neg, &st);
	assert_int_equal(REQ(OP, "InitialR2T=No"), ISCSI_NEG_OK);
	assert_true(has("InitialR2T=Yes"));
	/* DataPDUInOrder: we only do Yes, OR keeps it Yes */
	setup(NULL);
	assert_int_equal(REQ(OP, "DataPDUInOrder=No", "DataSequenceInOrder=No"), ISCSI_NEG_OK);
	assert_true(has("DataPDUInOrder=Yes"));
	assert_true(has("DataSequenceInOrder=Yes"));
}

static void test_num_min_max(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "MaxBurstLength=16776192", "MaxOutstandingR2T=1",
			     "ErrorRecoveryLevel=2", "MaxConnections=4", "iSCSIProtocolLevel=2",
			     "DefaultTime2Retain=20"),
			 ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=1048576"));
	assert_true(has("MaxOutstandingR2T=1"));
	assert_true(has("ErrorRecoveryLevel=0"));
	assert_true(has("MaxConnections=1"));
	assert_true(has("iSCSIProtocolLevel=2")); /* RFC 7144: ours is 2 */
	assert_true(has("DefaultTime2Retain=0"));
	assert_int_equal(neg.active.max_burst_length, 1048576);
	assert_int_equal(neg.active.protocol_level, 2);
	/* a higher level than ours: the minimum, 2; a lower one: that one;
	 * not offered: the default, 1, and no key sent */
	setup(NULL);
	assert_int_equal(REQ(OP, "iSCSIProtocolLevel=31"), ISCSI_NEG_OK);
	assert_true(has("iSCSIProtocolLevel=2"));
	setup(NULL);
	assert_int_equal(REQ(OP, "iSCSIProtocolLevel=1"), ISCSI_NEG_OK);
	assert_true(has("iSCSIProtocolLevel=1"));
	assert_int_equal(neg.active.protocol_level, 1);
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxConnections=1"), ISCSI_NEG_OK);
	assert_false(has_key("iSCSIProtocolLevel="));
	assert_int_equal(neg.active.protocol_level, 1);
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxBurstLength=0x1000", "MaxOutstandingR2T=100"), ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=4096"));
	assert_true(has("MaxOutstandingR2T=8"));
	/* maximum: DefaultTime2Wait */
	setup(NULL);
	assert_int_equal(REQ(OP, "DefaultTime2Wait=5"), ISCSI_NEG_OK);
	assert_true(has("DefaultTime2Wait=5"));
	setup(NULL);
	assert_int_equal(REQ(OP, "DefaultTime2Wait=0"), ISCSI_NEG_OK);
	assert_true(has("DefaultTime2Wait=2"));
	/* out of range or not a number: Reject, value unchanged */
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxBurstLength=100", "ErrorRecoveryLevel=3",
			     "DefaultTime2Wait=3601", "MaxOutstandingR2T=0", "FirstBurstLength=abc",
			     "MaxConnections=65536"),
			 ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=Reject"));
	assert_true(has("ErrorRecoveryLevel=Reject"));
	assert_true(has("DefaultTime2Wait=Reject"));
	assert_true(has("MaxOutstandingR2T=Reject"));
	assert_true(has("FirstBurstLength=Reject"));
	assert_true(has("MaxConnections=Reject"));
	assert_int_equal(neg.active.max_burst_length, 262144);
}

static void test_first_burst(void **state)
{
	(void)state;
	/* 13.14: FirstBurstLength never above MaxBurstLength */
	assert_int_equal(REQ(OP, "FirstBurstLength=65536", "MaxBurstLength=16384"), ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=16384"));
	assert_true(has("FirstBurstLength=16384"));
	/* irrelevant with InitialR2T=Yes and ImmediateData=No, whatever the
	 * order of the keys */
	setup(NULL);
	assert_int_equal(REQ(OP, "FirstBurstLength=4096", "InitialR2T=Yes", "ImmediateData=No"),
			 ISCSI_NEG_OK);
	assert_true(has("FirstBurstLength=Irrelevant"));
}

static void test_declarative(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "MaxRecvDataSegmentLength=65536"), ISCSI_NEG_OK);
	assert_int_equal(out.len, 0); /* no answer to a declaration */
	assert_int_equal(neg.peer.max_recv_dsl, 65536);
	iscsi_neg_declare(&neg, &out);
	assert_true(has("MaxRecvDataSegmentLength=262144"));
	iscsi_kbuf_reset(&out);
	iscsi_neg_declare(&neg, &out); /* once */
	assert_int_equal(out.len, 0);
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxRecvDataSegmentLength=511"), ISCSI_NEG_OK);
	assert_true(has("MaxRecvDataSegmentLength=Reject"));
	assert_int_equal(neg.peer.max_recv_dsl, 8192);
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxRecvDataSegmentLength=16777216"), ISCSI_NEG_OK);
	assert_true(has("MaxRecvDataSegmentLength=Reject"));
}

static void test_lists(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "HeaderDigest=CRC32C,None", "DataDigest=CRC32C,None"),
			 ISCSI_NEG_OK);
	assert_true(has("HeaderDigest=CRC32C"));
	assert_true(has("DataDigest=None")); /* not offered by the target */
	setup(NULL);
	assert_int_equal(REQ(OP, "HeaderDigest=None,CRC32C", "DataDigest=CRC32C"), ISCSI_NEG_OK);
	assert_true(has("HeaderDigest=None")); /* the initiator's order */
	assert_true(has("DataDigest=Reject"));
	setup(NULL);
	assert_int_equal(REQ(OP, "HeaderDigest=MD5,CRC32C", "TaskReporting=FastAbort,RFC3720"),
			 ISCSI_NEG_OK);
	assert_true(has("HeaderDigest=CRC32C"));
	assert_true(has("TaskReporting=FastAbort")); /* 13.23: all three built */
	setup(NULL);
	assert_int_equal(REQ(OP, "TaskReporting=ResponseFence,RFC3720,FastAbort"), ISCSI_NEG_OK);
	assert_true(has("TaskReporting=ResponseFence")); /* the initiator's order */
	assert_int_equal(neg.active.task_reporting, ISCSI_TASKREP_RESPONSE_FENCE);
	setup(NULL);
	assert_int_equal(REQ(OP, "TaskReporting=Fast,RFC3721", "HeaderDigest=CRC32C,,None"),
			 ISCSI_NEG_OK);
	assert_true(has("TaskReporting=Reject")); /* no value the target knows */
	assert_true(has("HeaderDigest=Reject"));
}

static void test_auth(void **state)
{
	(void)state;
	assert_int_equal(REQ(ISCSI_NEG_SECURITY, "AuthMethod=CHAP,None"), ISCSI_NEG_OK);
	assert_true(has("AuthMethod=None"));
	setup(NULL);
	/* only CHAP offered: Reject, then the login fails 02/01 */
	assert_int_equal(REQ(ISCSI_NEG_SECURITY, "AuthMethod=CHAP"), ISCSI_NEG_EAUTH);
	assert_true(has("AuthMethod=Reject"));
	setup(NULL);
	assert_int_equal(REQ(OP, "AuthMethod=None"), ISCSI_NEG_ESTAGE);
}

static void test_session_type(void **state)
{
	(void)state;
	/* Discovery makes session keys irrelevant, before or after it */
	assert_int_equal(REQ(OP, "MaxBurstLength=4096", "SessionType=Discovery", "InitialR2T=No",
			     "HeaderDigest=None"),
			 ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=Irrelevant"));
	assert_true(has("InitialR2T=Irrelevant"));
	assert_true(has("HeaderDigest=None"));
	assert_int_equal(neg.active.session_type, ISCSI_SESSION_DISCOVERY);
	setup(NULL);
	assert_int_equal(REQ(OP, "SessionType=Other"), ISCSI_NEG_ESESSTYPE);
	setup(NULL);
	assert_int_equal(REQ(OP, "SessionType=Normal,Discovery"), ISCSI_NEG_ESESSTYPE);
}

static void test_names(void **state)
{
	char alias[300];

	(void)state;
	assert_int_equal(REQ(ISCSI_NEG_SECURITY, "InitiatorName=iqn.2000-01.com.example:a",
			     "TargetName=iqn.2026-12.org.utarget:t", "InitiatorAlias=my host"),
			 ISCSI_NEG_OK);
	assert_int_equal(out.len, 0);
	assert_string_equal(neg.initiator_name, "iqn.2000-01.com.example:a");
	assert_string_equal(neg.target_name, "iqn.2026-12.org.utarget:t");
	assert_string_equal(neg.initiator_alias, "my host");
	setup(NULL);
	assert_int_equal(REQ(OP, "InitiatorName=bad name"), ISCSI_NEG_ENAME);
	/* 256-byte alias: over 13.7's 255 */
	setup(NULL);
	memcpy(alias, "InitiatorAlias=", 15);
	memset(alias + 15, 'a', 256);
	alias[15 + 256] = 0;
	assert_int_equal(REQ(OP, alias), ISCSI_NEG_EVALLEN);
	alias[15 + 255] = 0;
	setup(NULL);
	assert_int_equal(REQ(OP, alias), ISCSI_NEG_OK);
	/* target-only keys from the initiator */
	setup(NULL);
	assert_int_equal(
	    REQ(OP, "TargetAlias=x", "TargetPortalGroupTag=1", "TargetAddress=1.2.3.4:3260,1"),
	    ISCSI_NEG_OK);
	assert_true(has("TargetAlias=Reject"));
	assert_true(has("TargetPortalGroupTag=Reject"));
	assert_true(has("TargetAddress=Reject"));
}

static void test_unknown(void **state)
{
	char big[300];

	(void)state;
	assert_int_equal(REQ(OP, "FooBar=1", "X-com.example.key=v", "X#Thing=1", "sendtargets=All"),
			 ISCSI_NEG_OK);
	assert_true(has("FooBar=NotUnderstood"));
	assert_true(has("X-com.example.key=NotUnderstood"));
	assert_true(has("X#Thing=NotUnderstood"));
	assert_true(has("sendtargets=NotUnderstood")); /* case sensitive */
	/* an unknown key's value is bounded at 255 too */
	setup(NULL);
	memcpy(big, "X-Big=", 6);
	memset(big + 6, 'v', 256);
	big[6 + 256] = 0;
	assert_int_equal(REQ(OP, big), ISCSI_NEG_EVALLEN);
}

static void test_markers(void **state)
{
	(void)state;
	/* RFC 7143 13.26: removed keys */
	assert_int_equal(
	    REQ(OP, "OFMarker=Yes", "IFMarker=No", "OFMarkInt=2048~8192", "IFMarkInt=1"),
	    ISCSI_NEG_OK);
	assert_true(has("OFMarker=No"));
	assert_true(has("IFMarker=No"));
	assert_true(has("OFMarkInt=Irrelevant"));
	assert_true(has("IFMarkInt=Irrelevant"));
	setup(NULL);
	assert_int_equal(REQ(OP, "OFMarker=Maybe"), ISCSI_NEG_OK);
	assert_true(has("OFMarker=Reject"));
}

static void test_duplicates(void **state)
{
	(void)state;
	assert_int_equal(REQ(OP, "MaxBurstLength=4096", "MaxBurstLength=4096"), ISCSI_NEG_EDUP);
	/* the same key in a later request: same value answered again, another
	 * value is a renegotiation */
	setup(NULL);
	assert_int_equal(REQ(OP, "MaxBurstLength=4096"), ISCSI_NEG_OK);
	assert_int_equal(REQ(OP, "MaxBurstLength=4096"), ISCSI_NEG_OK);
	assert_true(has("MaxBurstLength=4096"));
	assert_int_equal(REQ(OP, "MaxBurstLength=8192"), ISCSI_NEG_ERENEG);
	assert_int_equal(answers(), 0);
}

static void test_ffp(void **state)
{
	(void)state;
	assert_int_equal(REQ(ISCSI_NEG_FFP, "SendTargets=All", "MaxRecvDataSegmentLength=16384",
			     "InitialR2T=No", "InitiatorAlias=x"),
			 ISCSI_NEG_OK);
	assert_true(neg.send_targets);
	assert_int_equal(neg.st_len, 3);
	assert_int_equal(neg.peer.max_recv_dsl, 16384);
	assert_true(has("InitialR2T=Reject")); /* login-only key */
	assert_int_equal(answers(), 1);
	/* SendTargets in a login is not a login key */
	setup(NULL);
	assert_int_equal(REQ(OP, "SendTargets=All"), ISCSI_NEG_OK);
	assert_true(has("SendTargets=Irrelevant"));
}

static void test_table(void **state)
{
	(void)state;
	/* every key is in the table with a name and finds itself */
	for (unsigned k = 0; k < ISCSI_KEY_COUNT; k++) {
		const struct iscsi_key_desc *d = &iscsi_key_table[k];

		assert_non_null(d->name);
		assert_int_equal(iscsi_key_lookup((const uint8_t *)d->name, strlen(d->name)), k);
		assert_true(d->val_max >= 1);
		if (d->kind == ISCSI_KT_LIST || d->kind == ISCSI_KT_CHOICE)
			assert_non_null(d->vocab);
	}
	assert_int_equal(iscsi_key_lookup((const uint8_t *)"Nope", 4), ISCSI_KEY_UNKNOWN);
	/* defaults (RFC 7143 section 13) */
	struct iscsi_params p;

	iscsi_params_default(&p);
	assert_int_equal(p.max_recv_dsl, 8192);
	assert_int_equal(p.max_burst_length, 262144);
	assert_int_equal(p.first_burst_length, 65536);
	assert_int_equal(p.default_time2wait, 2);
	assert_int_equal(p.default_time2retain, 20);
	assert_int_equal(p.max_outstanding_r2t, 1);
	assert_true(p.initial_r2t);
	assert_true(p.immediate_data);
	assert_true(p.data_pdu_in_order);
	assert_int_equal(p.error_recovery_level, 0);
	assert_int_equal(p.max_connections, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_bool_and, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bool_or, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_num_min_max, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_first_burst, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_declarative, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_session_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_markers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ffp, setup, teardown),
	    cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
