/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for scsi/cdb_fields.h: every accessor against golden CDB
 * bytes, written out byte by byte as SPC-4 / SBC-4 lay them out (not built
 * with the accessors or the put_be helpers), for each typical format
 * (6, 10, 12, 16, 32 bytes), the service action forms and the fields
 * particular to one command. Each CDB also carries ones in the bytes around
 * the field, so that an accessor reading a neighbour shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scsi/cdb.h"
#include "scsi/scsi.h"

/* SPC-4 4.2.5.1: the opcodes are the standards' values */
static void test_opcodes(void **state)
{
	(void)state;
	assert_int_equal(OP_TEST_UNIT_READY, 0x00);
	assert_int_equal(OP_READ_6, 0x08);
	assert_int_equal(OP_INQUIRY, 0x12);
	assert_int_equal(OP_READ_10, 0x28);
	assert_int_equal(OP_WRITE_10, 0x2a);
	assert_int_equal(OP_MODE_SENSE_10, 0x5a);
	assert_int_equal(OP_PERSISTENT_RESERVE_OUT, 0x5f);
	assert_int_equal(OP_VARIABLE_LENGTH, 0x7f);
	assert_int_equal(OP_READ_16, 0x88);
	assert_int_equal(OP_COMPARE_AND_WRITE, 0x89);
	assert_int_equal(OP_WRITE_ATOMIC_16, 0x9c);
	assert_int_equal(OP_SERVICE_ACTION_IN_16, 0x9e);
	assert_int_equal(OP_REPORT_LUNS, 0xa0);
	assert_int_equal(OP_WRITE_12, 0xaa);
	assert_int_equal(OP_READ_DEFECT_DATA_12, 0xb7);
	assert_int_equal(OP_FORMAT_UNIT, 0x04);
	assert_int_equal(OP_RECEIVE_DIAGNOSTIC_RESULTS, 0x1c);
	assert_int_equal(OP_SEND_DIAGNOSTIC, 0x1d);
	/* every named opcode is in the CDB tables */
	static const uint8_t ops[] = {
	    OP_TEST_UNIT_READY,
	    OP_REQUEST_SENSE,
	    OP_INQUIRY,
	    OP_MODE_SELECT_6,
	    OP_RESERVE_6,
	    OP_RELEASE_6,
	    OP_MODE_SENSE_6,
	    OP_START_STOP_UNIT,
	    OP_PREVENT_ALLOW_MEDIUM_REMOVAL,
	    OP_MODE_SELECT_10,
	    OP_RESERVE_10,
	    OP_RELEASE_10,
	    OP_MODE_SENSE_10,
	    OP_PERSISTENT_RESERVE_IN,
	    OP_PERSISTENT_RESERVE_OUT,
	    OP_EXTENDED_COPY,
	    OP_RECEIVE_COPY_RESULTS,
	    OP_REPORT_LUNS,
	    OP_MAINTENANCE_IN,
	    OP_MAINTENANCE_OUT,
	    OP_READ_6,
	    OP_WRITE_6,
	    OP_READ_CAPACITY_10,
	    OP_READ_10,
	    OP_WRITE_10,
	    OP_WRITE_AND_VERIFY_10,
	    OP_VERIFY_10,
	    OP_PRE_FETCH_10,
	    OP_SYNCHRONIZE_CACHE_10,
	    OP_READ_DEFECT_DATA_10,
	    OP_WRITE_SAME_10,
	    OP_UNMAP,
	    OP_SANITIZE,
	    OP_READ_16,
	    OP_COMPARE_AND_WRITE,
	    OP_WRITE_16,
	    OP_ORWRITE_16,
	    OP_WRITE_AND_VERIFY_16,
	    OP_VERIFY_16,
	    OP_PRE_FETCH_16,
	    OP_SYNCHRONIZE_CACHE_16,
	    OP_WRITE_SAME_16,
	    OP_WRITE_ATOMIC_16,
	    OP_SERVICE_ACTION_IN_16,
	    OP_READ_12,
	    OP_WRITE_12,
	    OP_WRITE_AND_VERIFY_12,
	    OP_VERIFY_12,
	    OP_READ_DEFECT_DATA_12,
	    OP_FORMAT_UNIT,
	    OP_RECEIVE_DIAGNOSTIC_RESULTS,
	    OP_SEND_DIAGNOSTIC,
	};
	for (size_t i = 0; i < sizeof(ops); i++)
		assert_non_null(cdb_opcode(ops[i]));
	assert_non_null(cdb_opcode(OP_VARIABLE_LENGTH)); /* READ(32), WRITE(32), ... */
}

/* SPC-4 4.2.2 figure 2: READ(6), LBA 12345h, TRANSFER LENGTH 80h; bits
 * 7-5 of byte 1 are not part of the LBA */
static void test_cdb6(void **state)
{
	const uint8_t read6[CDB6_LEN] = {0x08, 0xe1, 0x23, 0x45, 0x80, 0x00};
	const uint8_t inquiry[CDB6_LEN] = {0x12, 0x01, 0x83, 0x01, 0x02, 0x00};
	const uint8_t rs[CDB6_LEN] = {0x03, 0x01, 0xff, 0xff, 0xfc, 0x00};

	(void)state;
	assert_int_equal(cdb_op(read6), OP_READ_6);
	assert_int_equal(cdb6_lba(read6), 0x012345);
	assert_int_equal(cdb6_transfer_length(read6), 0x80);
	assert_int_equal(cdb6_length(read6), 0x80);
	/* INQUIRY: EVPD 1, PAGE CODE 83h, ALLOCATION LENGTH 0102h in 3-4 */
	assert_true(cdb_inquiry_evpd(inquiry));
	assert_int_equal(cdb_inquiry_page_code(inquiry), 0x83);
	assert_int_equal(cdb_inquiry_alloc_len(inquiry), 0x0102);
	/* REQUEST SENSE: DESC 1, ALLOCATION LENGTH FCh */
	assert_true(cdb_request_sense_desc(rs));
	assert_int_equal(cdb6_alloc_len(rs), 0xfc);
	assert_int_equal(CDB6_LENGTH_BYTE, 4);
}

/* SPC-4 4.2.2 figure 3: WRITE(10) with DPO and FUA, LBA 01020304h,
 * TRANSFER LENGTH 0506h */
static void test_cdb10(void **state)
{
	const uint8_t write10[CDB10_LEN] = {0x2a, 0x18, 0x01, 0x02, 0x03,
					    0x04, 0xff, 0x05, 0x06, 0x00};
	const uint8_t read10[CDB10_LEN] = {0x28, 0xe7, 0xff, 0xff, 0xff,
					   0xfe, 0xff, 0xff, 0xff, 0xff};
	const uint8_t prin[CDB10_LEN] = {0x5e, 0x03, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0x12, 0x34, 0x00};
	const uint8_t prout[CDB10_LEN] = {0x5f, 0xe7, 0x05, 0xff, 0xff,
					  0x00, 0x01, 0x02, 0x03, 0x00};

	(void)state;
	assert_int_equal(cdb_op(write10), OP_WRITE_10);
	assert_int_equal(cdb10_lba(write10), 0x01020304u);
	assert_int_equal(cdb10_transfer_length(write10), 0x0506);
	assert_true(cdb_dpo(write10));
	assert_true(cdb_fua(write10));
	/* byte 1 without DPO/FUA, the rest all ones */
	assert_false(cdb_dpo(read10));
	assert_false(cdb_fua(read10));
	assert_int_equal(cdb10_lba(read10), 0xfffffffeu);
	assert_int_equal(cdb10_transfer_length(read10), 0xffff);
	/* PERSISTENT RESERVE IN: SERVICE ACTION 03h, ALLOCATION LENGTH 7-8 */
	assert_int_equal(cdb_sa(prin), 0x03);
	assert_int_equal(cdb10_alloc_len(prin), 0x1234);
	/* PERSISTENT RESERVE OUT: SERVICE ACTION 07h (bits 7-5 of byte 1 are
	 * not part of it), SCOPE 0, TYPE 5, PARAMETER LIST LENGTH in 5-8 */
	assert_int_equal(cdb_sa(prout), 0x07);
	assert_int_equal(cdb_pr_out_scope(prout), 0x0);
	assert_int_equal(cdb_pr_out_type(prout), 0x5);
	assert_int_equal(cdb_pr_out_param_list_len(prout), 0x00010203u);
	assert_int_equal(CDB10_LENGTH_BYTE, 7);
}

/* SPC-4 4.2.2 figure 4: READ(12), LBA 0A0B0C0Dh, TRANSFER LENGTH 01020304h;
 * REPORT LUNS with SELECT REPORT 02h and ALLOCATION LENGTH 6-9 */
static void test_cdb12(void **state)
{
	const uint8_t read12[CDB12_LEN] = {0xa8, 0x08, 0x0a, 0x0b, 0x0c, 0x0d,
					   0x01, 0x02, 0x03, 0x04, 0xff, 0x00};
	const uint8_t luns[CDB12_LEN] = {0xa0, 0xff, 0x02, 0xff, 0xff, 0xff,
					 0x00, 0x00, 0x10, 0x00, 0xff, 0x00};
	const uint8_t rsoc[CDB12_LEN] = {0xa3, 0xec, 0x82, 0x9e, 0x00, 0x10,
					 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
	const uint8_t rstmf[CDB12_LEN] = {0xa3, 0x0d, 0x80, 0x00, 0x00, 0x00,
					  0x00, 0x00, 0x00, 0x10, 0x00, 0x00};
	const uint8_t rtpg[CDB12_LEN] = {0xa3, 0x2a, 0x00, 0x00, 0x00, 0x00,
					 0x00, 0x00, 0x04, 0x00, 0x00, 0x00};

	(void)state;
	assert_int_equal(cdb12_lba(read12), 0x0a0b0c0du);
	assert_int_equal(cdb12_transfer_length(read12), 0x01020304u);
	assert_false(cdb_dpo(read12));
	assert_true(cdb_fua(read12));
	assert_int_equal(cdb_report_luns_select(luns), 0x02);
	assert_int_equal(cdb12_alloc_len(luns), 0x1000);
	/* REPORT SUPPORTED OPERATION CODES: SERVICE ACTION 0Ch, RCTD 1,
	 * REPORTING OPTIONS 2, REQUESTED OPCODE 9Eh, REQUESTED SA 0010h */
	assert_int_equal(cdb_sa(rsoc), SA_REPORT_SUPPORTED_OPCODES);
	assert_true(cdb_rsoc_rctd(rsoc));
	assert_int_equal(cdb_rsoc_options(rsoc), 2);
	assert_int_equal(cdb_rsoc_opcode(rsoc), OP_SERVICE_ACTION_IN_16);
	assert_int_equal(cdb_rsoc_sa(rsoc), SA_READ_CAPACITY_16);
	assert_int_equal(cdb12_alloc_len(rsoc), 0x0200);
	assert_int_equal(cdb_sa(rstmf), SA_REPORT_SUPPORTED_TMFS);
	assert_true(cdb_rstmf_repd(rstmf));
	assert_int_equal(cdb12_alloc_len(rstmf), 0x10);
	/* REPORT TARGET PORT GROUPS: PARAMETER DATA FORMAT 001b */
	assert_int_equal(cdb_sa(rtpg), SA_REPORT_TARGET_PORT_GROUPS);
	assert_int_equal(cdb_rtpg_format(rtpg), 1);
	assert_int_equal(cdb12_alloc_len(rtpg), 0x0400);
	assert_int_equal(CDB12_LENGTH_BYTE, 6);
}

/* SPC-4 4.2.2 figure 5: WRITE(16), LBA 0102030405060708h, TRANSFER LENGTH
 * 090A0B0Ch; SERVICE ACTION IN (16) / READ CAPACITY (16) */
static void test_cdb16(void **state)
{
	const uint8_t write16[CDB16_LEN] = {0x8a, 0x10, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
					    0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0xff, 0x00};
	const uint8_t rc16[CDB16_LEN] = {0x9e, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
					 0x00, 0x07, 0x00, 0x00, 0x00, 0x20, 0x01, 0x00};
	const uint8_t xcopy[CDB16_LEN] = {0x83, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00};

	(void)state;
	assert_int_equal(cdb16_lba(write16), 0x0102030405060708ull);
	assert_int_equal(cdb16_transfer_length(write16), 0x090a0b0cu);
	assert_true(cdb_dpo(write16));
	assert_false(cdb_fua(write16));
	assert_int_equal(cdb_sa(rc16), SA_READ_CAPACITY_16);
	assert_int_equal(cdb16_lba(rc16), 7);
	assert_int_equal(cdb16_alloc_len(rc16), 32);
	assert_true(cdb_read_capacity16_pmi(rc16));
	assert_int_equal(cdb16_param_list_len(xcopy), 0x0110);
	assert_int_equal(CDB16_LENGTH_BYTE, 10);
}

/* SPC-4 4.2.3: the variable length CDB, laid out as READ(32) (SBC-4 5.16):
 * ADDITIONAL CDB LENGTH 18h, SERVICE ACTION 0009h, LBA 12-19, TRANSFER
 * LENGTH 28-31 */
static void test_cdb32(void **state)
{
	const uint8_t read32[CDB32_LEN] = {
	    0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x09, 0xff,
	    0xff, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00,
	};

	(void)state;
	assert_int_equal(cdb_op(read32), OP_VARIABLE_LENGTH);
	assert_int_equal(cdb32_additional_len(read32), 0x18);
	assert_int_equal(cdb32_sa(read32), 0x0009);
	assert_int_equal(cdb32_lba(read32), 0x1122334455667788ull);
	assert_int_equal(cdb32_transfer_length(read32), 0x200);
	/* byte 10 FFh: RDPROTECT 111b, DPO, FUA, BYTCHK 11b; the tags all
	 * ones */
	assert_int_equal(cdb32_protect(read32), 7);
	assert_true(cdb32_dpo(read32) && cdb32_fua(read32));
	assert_int_equal(cdb32_bytchk(read32), 3);
	assert_int_equal(cdb32_ref_tag(read32), 0xffffffffu);
	assert_int_equal(cdb32_app_tag(read32), 0xffff);
	assert_int_equal(cdb32_app_mask(read32), 0xffff);
}

/* SBC-4 5.42 WRITE(32): WRPROTECT 010b, FUA; EXPECTED INITIAL LOGICAL
 * BLOCK REFERENCE TAG 20-23, EXPECTED LOGICAL BLOCK APPLICATION TAG 24-25,
 * LOGICAL BLOCK APPLICATION TAG MASK 26-27 */
static void test_cdb32_tags(void **state)
{
	const uint8_t write32[CDB32_LEN] = {
	    0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x0b, 0x48,
	    0x00, 0,	0,    0,    0,	  0,	0,    0,    0x10, 0xde, 0xad,
	    0xbe, 0xef, 0x12, 0x34, 0xff, 0x00, 0x00, 0x00, 0x00, 0x01,
	};

	(void)state;
	assert_int_equal(cdb32_sa(write32), 0x000b);
	assert_int_equal(cdb32_protect(write32), 2);
	assert_true(cdb32_fua(write32) && !cdb32_dpo(write32));
	assert_int_equal(cdb32_bytchk(write32), 0);
	assert_int_equal(cdb32_lba(write32), 0x10);
	assert_int_equal(cdb32_ref_tag(write32), 0xdeadbeefu);
	assert_int_equal(cdb32_app_tag(write32), 0x1234);
	assert_int_equal(cdb32_app_mask(write32), 0xff00);
	assert_int_equal(cdb32_transfer_length(write32), 1);
}

/* The block commands' own fields (SBC-4 5) */
static void test_sbc_fields(void **state)
{
	const uint8_t caw[CDB16_LEN] = {0x89, 0x08, 0,	  0,	0,    0,    0, 0,
					0,    0x10, 0xff, 0xff, 0xff, 0x02, 0, 0};
	const uint8_t atomic[CDB16_LEN] = {0x9c, 0x08, 0,    0,	   0,	 0,    0, 0,
					   0,	 0x40, 0xff, 0xff, 0x00, 0x08, 0, 0};
	const uint8_t rc10[CDB10_LEN] = {0x25, 0x00, 0x00, 0x00, 0x00,
					 0x00, 0x00, 0xff, 0x01, 0x00};
	const uint8_t sync10[CDB10_LEN] = {0x35, 0x02, 0, 0, 0, 0x10, 0, 0x00, 0x08, 0};
	const uint8_t pf16[CDB16_LEN] = {0x90, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t verify10[CDB10_LEN] = {0x2f, 0x16, 0, 0, 0, 0, 0, 0, 0x01, 0};
	const uint8_t ws16[CDB16_LEN] = {0x93, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t ws10[CDB10_LEN] = {0x41, 0x10, 0, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t unmap[CDB10_LEN] = {0x42, 0x01, 0, 0, 0, 0, 0, 0x00, 0x18, 0};
	const uint8_t sanitize[CDB10_LEN] = {0x48, 0xa1, 0, 0, 0, 0, 0, 0x00, 0x08, 0};
	const uint8_t rdd10[CDB10_LEN] = {0x37, 0x1f, 0x15, 0, 0, 0, 0, 0x00, 0x04, 0};
	const uint8_t rdd12[CDB12_LEN] = {0xb7, 0x0d, 0xff, 0, 0, 0, 0, 0, 0, 0x08, 0, 0};
	const uint8_t ssu[CDB6_LEN] = {0x1b, 0x01, 0x00, 0x00, 0x32, 0x00};
	const uint8_t pamr[CDB6_LEN] = {0x1e, 0x00, 0x00, 0x00, 0x02, 0x00};

	(void)state;
	/* COMPARE AND WRITE: NUMBER OF LOGICAL BLOCKS in byte 13 only */
	assert_int_equal(cdb_caw_nblocks(caw), 2);
	assert_int_equal(cdb16_lba(caw), 0x10);
	assert_true(cdb_fua(caw));
	/* WRITE ATOMIC (16): TRANSFER LENGTH 12-13, not the 16-byte form's */
	assert_int_equal(cdb_write_atomic_transfer_length(atomic), 8);
	assert_int_equal(cdb16_lba(atomic), 0x40);
	/* READ CAPACITY (10): PMI in byte 8 */
	assert_true(cdb_read_capacity10_pmi(rc10));
	assert_false(cdb_read_capacity10_pmi(sync10));
	/* SYNCHRONIZE CACHE (10): IMMED, LBA, NUMBER OF LOGICAL BLOCKS */
	assert_true(cdb_sync_cache_immed(sync10));
	assert_int_equal(cdb10_lba(sync10), 0x10);
	assert_int_equal(cdb10_length(sync10), 8);
	/* PRE-FETCH (16): IMMED is bit 1 only */
	assert_false(cdb_prefetch_immed(pf16));
	assert_true(cdb_prefetch_immed(sync10));
	/* VERIFY: BYTCHK 11b; DPO */
	assert_int_equal(cdb_verify_bytchk(verify10), 3);
	assert_true(cdb_dpo(verify10));
	/* WRITE SAME: UNMAP and NDOB; ANCHOR */
	assert_true(cdb_write_same_unmap(ws16));
	assert_true(cdb_write_same16_ndob(ws16));
	assert_false(cdb_write_same_anchor(ws16));
	assert_true(cdb_write_same_anchor(ws10));
	assert_false(cdb_write_same_unmap(ws10));
	/* UNMAP: ANCHOR, PARAMETER LIST LENGTH 7-8 */
	assert_true(cdb_unmap_anchor(unmap));
	assert_int_equal(cdb10_param_list_len(unmap), 0x18);
	/* SANITIZE: IMMED, AUSE, SERVICE ACTION 01h */
	assert_true(cdb_sanitize_immed(sanitize));
	assert_true(cdb_sanitize_ause(sanitize));
	assert_int_equal(cdb_sa(sanitize), 0x01);
	assert_int_equal(cdb10_param_list_len(sanitize), 8);
	/* READ DEFECT DATA: the request byte is 2 in (10), 1 in (12) */
	assert_int_equal(cdb_rdd_request_byte(rdd10), 2);
	assert_int_equal(cdb_rdd_request(rdd10), 0x15);
	assert_int_equal(cdb10_alloc_len(rdd10), 4);
	assert_int_equal(cdb_rdd_request_byte(rdd12), 1);
	assert_int_equal(cdb_rdd_request(rdd12), 0x0d);
	assert_int_equal(cdb12_alloc_len(rdd12), 8);
	/* START STOP UNIT: POWER CONDITION 3, LOEJ, no START */
	assert_int_equal(cdb_ssu_power_condition(ssu), 3);
	assert_true(cdb_ssu_loej(ssu));
	assert_false(cdb_ssu_start(ssu));
	/* PREVENT ALLOW MEDIUM REMOVAL: PREVENT 10b */
	assert_int_equal(cdb_pamr_prevent(pamr), 2);
	/* FORMAT UNIT: LONGLIST, FMTDATA, DEFECT LIST FORMAT 101b; then
	 * CMPLST alone */
	{
		const uint8_t fu[CDB6_LEN] = {0x04, 0x35, 0, 0, 0, 0};
		const uint8_t fu2[CDB6_LEN] = {0x04, 0x08, 0, 0, 0, 0};

		assert_true(cdb_format_longlist(fu));
		assert_true(cdb_format_fmtdata(fu));
		assert_false(cdb_format_cmplst(fu));
		assert_int_equal(cdb_format_defect_list_format(fu), 5);
		assert_false(cdb_format_fmtdata(fu2));
		assert_true(cdb_format_cmplst(fu2));
		assert_int_equal(cdb_format_defect_list_format(fu2), 0);
	}
}

/* The primary commands' own fields (SPC-4 6) */
static void test_spc_fields(void **state)
{
	const uint8_t ms6[CDB6_LEN] = {0x1a, 0x08, 0x88, 0xff, 0xc0, 0x00};
	const uint8_t ms10[CDB10_LEN] = {0x5a, 0x10, 0x3f, 0x00, 0, 0, 0, 0x01, 0x00, 0};
	const uint8_t msel10[CDB10_LEN] = {0x55, 0x11, 0, 0, 0, 0, 0, 0x00, 0x1c, 0};
	const uint8_t msel6[CDB6_LEN] = {0x15, 0x10, 0, 0, 0x1c, 0};
	const uint8_t rcr[CDB16_LEN] = {0x84, 0x03, 0x2a, 0,	0,    0,    0, 0,
					0,    0,    0x00, 0x00, 0x00, 0x2e, 0, 0};

	(void)state;
	/* MODE SENSE (6): DBD, PC 10b (default), PAGE CODE 08h, SUBPAGE FFh */
	assert_true(cdb_mode_sense_dbd(ms6));
	assert_int_equal(cdb_mode_sense_pc(ms6), 2);
	assert_int_equal(cdb_mode_sense_page_code(ms6), 0x08);
	assert_int_equal(cdb_mode_sense_subpage_code(ms6), 0xff);
	assert_int_equal(cdb6_alloc_len(ms6), 0xc0);
	/* MODE SENSE (10): LLBAA, PC 00b, all pages, ALLOCATION LENGTH 7-8 */
	assert_true(cdb_mode_sense10_llbaa(ms10));
	assert_false(cdb_mode_sense_dbd(ms10));
	assert_int_equal(cdb_mode_sense_pc(ms10), 0);
	assert_int_equal(cdb_mode_sense_page_code(ms10), 0x3f);
	assert_int_equal(cdb10_alloc_len(ms10), 0x100);
	/* MODE SELECT: SP, PARAMETER LIST LENGTH */
	assert_true(cdb_mode_select_sp(msel10));
	assert_int_equal(cdb10_param_list_len(msel10), 0x1c);
	assert_false(cdb_mode_select_sp(msel6));
	assert_int_equal(cdb6_param_list_len(msel6), 0x1c);
	/* RECEIVE COPY RESULTS: OPERATING PARAMETERS, LIST IDENTIFIER 2Ah */
	assert_int_equal(cdb_sa(rcr), SA_RCR_OPERATING_PARAMETERS);
	assert_int_equal(cdb_rcr_list_id(rcr), 0x2a);
	assert_int_equal(cdb16_alloc_len(rcr), 0x2e);
	/* SEND DIAGNOSTIC: SELF-TEST CODE 110b, PF, no SELFTEST, PARAMETER
	 * LIST LENGTH 0104h; RECEIVE DIAGNOSTIC RESULTS: PCV, page 80h,
	 * ALLOCATION LENGTH 0102h */
	{
		const uint8_t sd[CDB6_LEN] = {0x1d, 0xd3, 0, 0x01, 0x04, 0};
		const uint8_t rdr[CDB6_LEN] = {0x1c, 0x01, 0x80, 0x01, 0x02, 0};

		assert_int_equal(cdb_senddiag_selftest_code(sd), 6);
		assert_true(cdb_senddiag_pf(sd));
		assert_false(cdb_senddiag_selftest(sd));
		assert_int_equal(cdb_senddiag_param_list_len(sd), 0x104);
		assert_true(cdb_rdr_pcv(rdr));
		assert_int_equal(cdb_rdr_page_code(rdr), 0x80);
		assert_int_equal(cdb_rdr_alloc_len(rdr), 0x102);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_opcodes),    cmocka_unit_test(test_cdb6),
	    cmocka_unit_test(test_cdb10),      cmocka_unit_test(test_cdb12),
	    cmocka_unit_test(test_cdb16),      cmocka_unit_test(test_cdb32),
	    cmocka_unit_test(test_cdb32_tags), cmocka_unit_test(test_sbc_fields),
	    cmocka_unit_test(test_spc_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
