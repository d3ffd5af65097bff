/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_proto.c: wire struct sizes and field offsets (RFC 7143 section 11). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/iscsi/proto.h"

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(sizeof(union iscsi_hdr), 48);
	assert_int_equal(sizeof(struct iscsi_bhs_scsi_cmd), 48);
	assert_int_equal(sizeof(struct iscsi_bhs_login_rsp), 48);
	assert_int_equal(sizeof(struct iscsi_ahs_hdr), 3);
}

static void test_offsets(void **state)
{
	(void)state;
	/* common BHS (11.2.1) */
	assert_int_equal(offsetof(struct iscsi_bhs, total_ahs_len), 4);
	assert_int_equal(offsetof(struct iscsi_bhs, dsl), 5);
	assert_int_equal(offsetof(struct iscsi_bhs, lun), 8);
	assert_int_equal(offsetof(struct iscsi_bhs, itt), 16);
	/* SCSI Command (11.3) */
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_cmd, edtl), 20);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_cmd, cmdsn), 24);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_cmd, exp_statsn), 28);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_cmd, cdb), 32);
	/* SCSI Response (11.4) */
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, response), 2);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, status), 3);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, statsn), 24);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, exp_datasn), 36);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, bidi_resid), 40);
	assert_int_equal(offsetof(struct iscsi_bhs_scsi_rsp, resid), 44);
	/* TMF (11.5) */
	assert_int_equal(offsetof(struct iscsi_bhs_tmf_req, ref_task_tag), 20);
	assert_int_equal(offsetof(struct iscsi_bhs_tmf_req, ref_cmdsn), 32);
	assert_int_equal(offsetof(struct iscsi_bhs_tmf_req, exp_datasn), 36);
	/* Data-In/Out (11.7) */
	assert_int_equal(offsetof(struct iscsi_bhs_data_out, ttt), 20);
	assert_int_equal(offsetof(struct iscsi_bhs_data_out, datasn), 36);
	assert_int_equal(offsetof(struct iscsi_bhs_data_out, buffer_offset), 40);
	assert_int_equal(offsetof(struct iscsi_bhs_data_in, status), 3);
	assert_int_equal(offsetof(struct iscsi_bhs_data_in, resid), 44);
	/* R2T (11.8) */
	assert_int_equal(offsetof(struct iscsi_bhs_r2t, r2tsn), 36);
	assert_int_equal(offsetof(struct iscsi_bhs_r2t, desired_len), 44);
	/* Login (11.12, 11.13) */
	assert_int_equal(offsetof(struct iscsi_bhs_login_req, version_max), 2);
	assert_int_equal(offsetof(struct iscsi_bhs_login_req, isid), 8);
	assert_int_equal(offsetof(struct iscsi_bhs_login_req, tsih), 14);
	assert_int_equal(offsetof(struct iscsi_bhs_login_req, cid), 20);
	assert_int_equal(offsetof(struct iscsi_bhs_login_rsp, status_class), 36);
	assert_int_equal(offsetof(struct iscsi_bhs_login_rsp, status_detail), 37);
	/* Logout (11.14, 11.15) */
	assert_int_equal(offsetof(struct iscsi_bhs_logout_req, cid), 20);
	assert_int_equal(offsetof(struct iscsi_bhs_logout_rsp, time2wait), 40);
	assert_int_equal(offsetof(struct iscsi_bhs_logout_rsp, time2retain), 42);
	/* Async (11.9), Reject (11.17) */
	assert_int_equal(offsetof(struct iscsi_bhs_async, event), 36);
	assert_int_equal(offsetof(struct iscsi_bhs_reject, reason), 2);
	assert_int_equal(offsetof(struct iscsi_bhs_reject, datasn_r2tsn), 36);
}

static void test_helpers(void **state)
{
	union iscsi_hdr h = {0};

	(void)state;
	h.bhs.opcode = ISCSI_OP_SCSI_CMD | ISCSI_OP_IMMEDIATE;
	iscsi_hdr_set_dsl(&h, 0x123456);
	h.bhs.total_ahs_len = 3;
	assert_int_equal(iscsi_hdr_opcode(&h), ISCSI_OP_SCSI_CMD);
	assert_true(iscsi_hdr_immediate(&h));
	assert_int_equal(iscsi_hdr_dsl(&h), 0x123456);
	assert_int_equal(h.raw[5], 0x12);
	assert_int_equal(h.raw[7], 0x56);
	assert_int_equal(iscsi_hdr_ahs_bytes(&h), 12);
	assert_int_equal(ISCSI_PAD(0), 0);
	assert_int_equal(ISCSI_PAD(1), 3);
	assert_int_equal(ISCSI_PAD(4), 0);
	assert_int_equal(ISCSI_PAD(7), 1);
	/* login flags */
	assert_int_equal(iscsi_login_csg(0x87), 1);
	assert_int_equal(iscsi_login_nsg(0x87), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_offsets),
	    cmocka_unit_test(test_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
