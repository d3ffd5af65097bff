/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cdb_fields.h: the one place that knows where a field sits in a CDB.
 *
 * - the operation codes (SPC-4 4.2.5.1, SBC-4 5) and the service actions the
 *   code names, as enum values;
 * - the fields of the typical CDB formats (SPC-4 4.2.2): 6, 10, 12 and 16
 *   bytes, their service action forms, and the variable length CDB of 32
 *   bytes (SPC-4 4.2.3), named after SPC-4 4.2.5: LOGICAL BLOCK ADDRESS,
 *   TRANSFER LENGTH, PARAMETER LIST LENGTH, ALLOCATION LENGTH, SERVICE
 *   ACTION;
 * - the fields particular to one command, named as its clause names them.
 *
 * Contract: the caller has checked the CDB length against the command's
 * (scsi_cmd_setup() does, with the CDB table's len, before parse), so an
 * accessor reads inside the CDB. Handlers do not index a CDB themselves:
 * parse decodes what the command needs into cmd->priv once (lba, nblocks,
 * io_flags), exec reads those, or these accessors for a command's own bits.
 * The *_BYTE constants are the byte offsets of fields an INVALID FIELD IN
 * CDB points to (SPC-4 4.5.2.4.2, cdb_invalid_field()). */
#ifndef UT_SCSI_CDB_FIELDS_H
#define UT_SCSI_CDB_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/endian.h"

/* ---- OPERATION CODE (SPC-4 4.2.5.1) ---- */

enum scsi_op {
	/* SPC-4 */
	OP_TEST_UNIT_READY = 0x00,
	OP_REQUEST_SENSE = 0x03,
	OP_INQUIRY = 0x12,
	OP_MODE_SELECT_6 = 0x15,
	OP_RESERVE_6 = 0x16,
	OP_RELEASE_6 = 0x17,
	OP_MODE_SENSE_6 = 0x1a,
	OP_RECEIVE_DIAGNOSTIC_RESULTS = 0x1c,
	OP_SEND_DIAGNOSTIC = 0x1d,
	OP_PREVENT_ALLOW_MEDIUM_REMOVAL = 0x1e,
	OP_WRITE_BUFFER = 0x3b,
	OP_READ_BUFFER_10 = 0x3c,
	OP_LOG_SELECT = 0x4c,
	OP_LOG_SENSE = 0x4d,
	OP_MODE_SELECT_10 = 0x55,
	OP_RESERVE_10 = 0x56,
	OP_RELEASE_10 = 0x57,
	OP_MODE_SENSE_10 = 0x5a,
	OP_PERSISTENT_RESERVE_IN = 0x5e,
	OP_PERSISTENT_RESERVE_OUT = 0x5f,
	OP_VARIABLE_LENGTH = 0x7f, /* the 32-byte CDBs (SPC-4 4.2.3) */
	OP_EXTENDED_COPY = 0x83,
	OP_RECEIVE_COPY_RESULTS = 0x84,
	OP_REPORT_LUNS = 0xa0,
	OP_MAINTENANCE_IN = 0xa3,
	OP_MAINTENANCE_OUT = 0xa4,
	/* SBC-4 */
	OP_FORMAT_UNIT = 0x04,
	OP_READ_6 = 0x08,
	OP_WRITE_6 = 0x0a,
	OP_START_STOP_UNIT = 0x1b,
	OP_READ_CAPACITY_10 = 0x25,
	OP_READ_10 = 0x28,
	OP_WRITE_10 = 0x2a,
	OP_WRITE_AND_VERIFY_10 = 0x2e,
	OP_VERIFY_10 = 0x2f,
	OP_PRE_FETCH_10 = 0x34,
	OP_SYNCHRONIZE_CACHE_10 = 0x35,
	OP_READ_DEFECT_DATA_10 = 0x37,
	OP_WRITE_SAME_10 = 0x41,
	OP_UNMAP = 0x42,
	OP_SANITIZE = 0x48,
	OP_READ_16 = 0x88,
	OP_COMPARE_AND_WRITE = 0x89,
	OP_WRITE_16 = 0x8a,
	OP_ORWRITE_16 = 0x8b,
	OP_WRITE_AND_VERIFY_16 = 0x8e,
	OP_VERIFY_16 = 0x8f,
	OP_PRE_FETCH_16 = 0x90,
	OP_SYNCHRONIZE_CACHE_16 = 0x91,
	OP_WRITE_SAME_16 = 0x93,
	OP_WRITE_ATOMIC_16 = 0x9c,
	OP_SERVICE_ACTION_IN_16 = 0x9e,
	OP_READ_12 = 0xa8,
	OP_WRITE_12 = 0xaa,
	OP_WRITE_AND_VERIFY_12 = 0xae,
	OP_VERIFY_12 = 0xaf,
	OP_READ_DEFECT_DATA_12 = 0xb7,
};

/* Service actions named in the code (the others are in the files of their
 * commands: PRI_*, PRO_* in pr_priv.h, SANITIZE's in sanitize.c). */
enum scsi_sa {
	SA_READ_CAPACITY_16 = 0x10,	     /* SERVICE ACTION IN (16), SBC-4 5.21 */
	SA_GET_LBA_STATUS = 0x12,	     /* SERVICE ACTION IN (16), SBC-4 5.7 */
	SA_REPORT_TARGET_PORT_GROUPS = 0x0a, /* MAINTENANCE IN, SPC-4 6.27 */
	SA_REPORT_SUPPORTED_OPCODES = 0x0c,  /* MAINTENANCE IN, SPC-4 6.35 */
	SA_REPORT_SUPPORTED_TMFS = 0x0d,     /* MAINTENANCE IN, SPC-4 6.36 */
	SA_SET_TARGET_PORT_GROUPS = 0x0a,    /* MAINTENANCE OUT, SPC-4 6.45 */
	SA_RCR_COPY_STATUS = 0x00,	     /* RECEIVE COPY RESULTS, SPC-4 6.23.3 */
	SA_RCR_OPERATING_PARAMETERS = 0x03,  /* RECEIVE COPY RESULTS, SPC-4 6.23.4 */
};

/* CDB lengths of the typical formats (SPC-4 4.2.2, 4.2.3) */
enum {
	CDB6_LEN = 6,
	CDB10_LEN = 10,
	CDB12_LEN = 12,
	CDB16_LEN = 16,
	CDB32_LEN = 32,
};

static inline uint8_t cdb_op(const uint8_t *cdb)
{
	return cdb[0];
}

/* ---- SERVICE ACTION (SPC-4 4.2.5.2) ----
 * 10-, 12- and 16-byte service action forms: byte 1 bits 4-0. */
enum {
	CDB_SA_BYTE = 1,
	CDB_SA_MASK = 0x1f,
};

static inline uint8_t cdb_sa(const uint8_t *cdb)
{
	return cdb[CDB_SA_BYTE] & CDB_SA_MASK;
}

/* ---- 6-byte CDB (SPC-4 4.2.2 figure 2) ----
 * LOGICAL BLOCK ADDRESS: byte 1 bits 4-0 to byte 3 (21 bits); TRANSFER
 * LENGTH, PARAMETER LIST LENGTH or ALLOCATION LENGTH: byte 4. */
enum {
	CDB6_LBA_BYTE = 1,
	CDB6_LENGTH_BYTE = 4,
};

static inline uint32_t cdb6_lba(const uint8_t *cdb)
{
	return get_be24(cdb + CDB6_LBA_BYTE) & 0x1fffff;
}

static inline uint8_t cdb6_length(const uint8_t *cdb)
{
	return cdb[CDB6_LENGTH_BYTE];
}

/* SPC-4 4.2.5.4: blocks to transfer (for READ(6)/WRITE(6) 0 means 256,
 * which is the command's rule, not the field's: SBC-4 5.12, 5.38) */
static inline uint32_t cdb6_transfer_length(const uint8_t *cdb)
{
	return cdb6_length(cdb);
}

/* SPC-4 4.2.5.6: bytes the initiator has room for */
static inline uint32_t cdb6_alloc_len(const uint8_t *cdb)
{
	return cdb6_length(cdb);
}

/* SPC-4 4.2.5.5: bytes of the parameter list in the Data-Out Buffer */
static inline uint32_t cdb6_param_list_len(const uint8_t *cdb)
{
	return cdb6_length(cdb);
}

/* ---- 10-byte CDB (SPC-4 4.2.2 figure 3) ----
 * byte 1 bits 4-0 SERVICE ACTION in the service action form; LOGICAL BLOCK
 * ADDRESS 2-5; TRANSFER LENGTH / PARAMETER LIST LENGTH / ALLOCATION LENGTH
 * 7-8. */
enum {
	CDB10_LBA_BYTE = 2,
	CDB10_LENGTH_BYTE = 7,
};

static inline uint32_t cdb10_lba(const uint8_t *cdb)
{
	return get_be32(cdb + CDB10_LBA_BYTE);
}

static inline uint16_t cdb10_length(const uint8_t *cdb)
{
	return get_be16(cdb + CDB10_LENGTH_BYTE);
}

static inline uint32_t cdb10_transfer_length(const uint8_t *cdb)
{
	return cdb10_length(cdb);
}

static inline uint32_t cdb10_alloc_len(const uint8_t *cdb)
{
	return cdb10_length(cdb);
}

static inline uint32_t cdb10_param_list_len(const uint8_t *cdb)
{
	return cdb10_length(cdb);
}

/* ---- 12-byte CDB (SPC-4 4.2.2 figure 4) ----
 * SERVICE ACTION byte 1 bits 4-0 (service action form); LOGICAL BLOCK
 * ADDRESS 2-5; TRANSFER LENGTH / PARAMETER LIST LENGTH / ALLOCATION LENGTH
 * 6-9. */
enum {
	CDB12_LBA_BYTE = 2,
	CDB12_LENGTH_BYTE = 6,
};

static inline uint32_t cdb12_lba(const uint8_t *cdb)
{
	return get_be32(cdb + CDB12_LBA_BYTE);
}

static inline uint32_t cdb12_length(const uint8_t *cdb)
{
	return get_be32(cdb + CDB12_LENGTH_BYTE);
}

static inline uint32_t cdb12_transfer_length(const uint8_t *cdb)
{
	return cdb12_length(cdb);
}

static inline uint32_t cdb12_alloc_len(const uint8_t *cdb)
{
	return cdb12_length(cdb);
}

static inline uint32_t cdb12_param_list_len(const uint8_t *cdb)
{
	return cdb12_length(cdb);
}

/* ---- 16-byte CDB (SPC-4 4.2.2 figure 5) ----
 * SERVICE ACTION byte 1 bits 4-0 (service action form); LOGICAL BLOCK
 * ADDRESS 2-9; TRANSFER LENGTH / PARAMETER LIST LENGTH / ALLOCATION LENGTH
 * 10-13. */
enum {
	CDB16_LBA_BYTE = 2,
	CDB16_LENGTH_BYTE = 10,
};

static inline uint64_t cdb16_lba(const uint8_t *cdb)
{
	return get_be64(cdb + CDB16_LBA_BYTE);
}

static inline uint32_t cdb16_length(const uint8_t *cdb)
{
	return get_be32(cdb + CDB16_LENGTH_BYTE);
}

static inline uint32_t cdb16_transfer_length(const uint8_t *cdb)
{
	return cdb16_length(cdb);
}

static inline uint32_t cdb16_alloc_len(const uint8_t *cdb)
{
	return cdb16_length(cdb);
}

static inline uint32_t cdb16_param_list_len(const uint8_t *cdb)
{
	return cdb16_length(cdb);
}

/* ---- variable length CDB, 32 bytes (SPC-4 4.2.3, SBC-4 READ(32) 5.16) ----
 * CONTROL byte 1 (not the last byte); GROUP NUMBER byte 6; ADDITIONAL CDB
 * LENGTH byte 7 (n - 8: 18h); SERVICE ACTION 8-9; for the block commands
 * byte 10 RDPROTECT / WRPROTECT / VRPROTECT (bits 7-5), DPO (4), FUA (3),
 * BYTCHK (VERIFY(32), bits 2-1), LOGICAL BLOCK ADDRESS 12-19, EXPECTED
 * INITIAL LOGICAL BLOCK REFERENCE TAG 20-23, EXPECTED LOGICAL BLOCK
 * APPLICATION TAG 24-25, LOGICAL BLOCK APPLICATION TAG MASK 26-27 and
 * TRANSFER LENGTH (VERIFICATION LENGTH) 28-31. The commands: sbc_cdb32.c. */
enum {
	CDB32_ADDITIONAL_LEN_BYTE = 7,
	CDB32_SA_BYTE = 8,
	CDB32_FLAGS_BYTE = 10,
	CDB32_LBA_BYTE = 12,
	CDB32_REF_TAG_BYTE = 20,
	CDB32_APP_TAG_BYTE = 24,
	CDB32_APP_MASK_BYTE = 26,
	CDB32_LENGTH_BYTE = 28,
	CDB32_ADDITIONAL_LEN = 0x18,
};

static inline uint8_t cdb32_protect(const uint8_t *cdb)
{
	return (uint8_t)(cdb[CDB32_FLAGS_BYTE] >> 5);
}

static inline bool cdb32_dpo(const uint8_t *cdb)
{
	return cdb[CDB32_FLAGS_BYTE] & 0x10;
}

static inline bool cdb32_fua(const uint8_t *cdb)
{
	return cdb[CDB32_FLAGS_BYTE] & 0x08;
}

static inline uint8_t cdb32_bytchk(const uint8_t *cdb)
{
	return (cdb[CDB32_FLAGS_BYTE] >> 1) & 0x03;
}

static inline uint32_t cdb32_ref_tag(const uint8_t *cdb)
{
	return get_be32(cdb + CDB32_REF_TAG_BYTE);
}

static inline uint16_t cdb32_app_tag(const uint8_t *cdb)
{
	return get_be16(cdb + CDB32_APP_TAG_BYTE);
}

static inline uint16_t cdb32_app_mask(const uint8_t *cdb)
{
	return get_be16(cdb + CDB32_APP_MASK_BYTE);
}

static inline uint8_t cdb32_additional_len(const uint8_t *cdb)
{
	return cdb[CDB32_ADDITIONAL_LEN_BYTE];
}

static inline uint16_t cdb32_sa(const uint8_t *cdb)
{
	return get_be16(cdb + CDB32_SA_BYTE);
}

static inline uint64_t cdb32_lba(const uint8_t *cdb)
{
	return get_be64(cdb + CDB32_LBA_BYTE);
}

static inline uint32_t cdb32_transfer_length(const uint8_t *cdb)
{
	return get_be32(cdb + CDB32_LENGTH_BYTE);
}

/* ---- the block commands (SBC-4 5) ---- */

/* READ/WRITE (10/12/16), COMPARE AND WRITE, ORWRITE, WRITE ATOMIC, VERIFY,
 * WRITE AND VERIFY: byte 1 DPO (bit 4), FUA (bit 3; VERIFY has none: its
 * usage mask refuses the bit). SBC-4 4.15, 5.13. */
enum {
	CDB_DPO_FUA_BYTE = 1,
};

static inline bool cdb_dpo(const uint8_t *cdb)
{
	return cdb[CDB_DPO_FUA_BYTE] & 0x10;
}

static inline bool cdb_fua(const uint8_t *cdb)
{
	return cdb[CDB_DPO_FUA_BYTE] & 0x08;
}

/* RDPROTECT / WRPROTECT (SBC-4 5.x): bits 7-5 of the same byte of the 10-,
 * 12- and 16-byte READ and WRITE */
static inline uint8_t cdb_protect(const uint8_t *cdb)
{
	return (uint8_t)(cdb[CDB_DPO_FUA_BYTE] >> 5);
}

/* COMPARE AND WRITE (SBC-4 5.3): LOGICAL BLOCK ADDRESS as the 16-byte
 * form, NUMBER OF LOGICAL BLOCKS byte 13 (bytes 10-12 reserved) */
enum {
	CAW_NBLOCKS_BYTE = 13,
};

static inline uint8_t cdb_caw_nblocks(const uint8_t *cdb)
{
	return cdb[CAW_NBLOCKS_BYTE];
}

/* WRITE ATOMIC (16) (SBC-4 5.48): bytes 10-11 ATOMIC BOUNDARY, TRANSFER
 * LENGTH 12-13 */
enum {
	WRITE_ATOMIC_LENGTH_BYTE = 12,
};

static inline uint16_t cdb_write_atomic_transfer_length(const uint8_t *cdb)
{
	return get_be16(cdb + WRITE_ATOMIC_LENGTH_BYTE);
}

/* READ CAPACITY (10) (SBC-4 5.20): PMI byte 8 bit 0 (obsolete); (16) (SBC-4
 * 5.21): PMI byte 14 bit 0 */
static inline bool cdb_read_capacity10_pmi(const uint8_t *cdb)
{
	return cdb[8] & 0x01;
}

static inline bool cdb_read_capacity16_pmi(const uint8_t *cdb)
{
	return cdb[14] & 0x01;
}

/* SYNCHRONIZE CACHE (SBC-4 5.26, 5.27) and PRE-FETCH (SBC-4 5.10, 5.11):
 * IMMED byte 1 bit 1 */
static inline bool cdb_sync_cache_immed(const uint8_t *cdb)
{
	return cdb[1] & 0x02;
}

static inline bool cdb_prefetch_immed(const uint8_t *cdb)
{
	return cdb[1] & 0x02;
}

/* VERIFY / WRITE AND VERIFY (SBC-4 5.33, 5.44): BYTCHK byte 1 bits 2-1 */
enum {
	VERIFY_BYTCHK_BYTE = 1,
};

static inline uint8_t cdb_verify_bytchk(const uint8_t *cdb)
{
	return (cdb[VERIFY_BYTCHK_BYTE] >> 1) & 0x03;
}

/* WRITE SAME (10)/(16) (SBC-4 5.50, 5.51): byte 1 ANCHOR (bit 4), UNMAP
 * (bit 3); NDOB (bit 0) in the 16-byte form only */
enum {
	WRITE_SAME_FLAGS_BYTE = 1,
};

static inline bool cdb_write_same_anchor(const uint8_t *cdb)
{
	return cdb[WRITE_SAME_FLAGS_BYTE] & 0x10;
}

static inline bool cdb_write_same_unmap(const uint8_t *cdb)
{
	return cdb[WRITE_SAME_FLAGS_BYTE] & 0x08;
}

static inline bool cdb_write_same16_ndob(const uint8_t *cdb)
{
	return cdb[WRITE_SAME_FLAGS_BYTE] & 0x01;
}

/* UNMAP (SBC-4 5.31): ANCHOR byte 1 bit 0 */
enum {
	UNMAP_ANCHOR_BYTE = 1,
};

static inline bool cdb_unmap_anchor(const uint8_t *cdb)
{
	return cdb[UNMAP_ANCHOR_BYTE] & 0x01;
}

/* SANITIZE (SBC-4 5.24): byte 1 IMMED (bit 7), AUSE (bit 5), SERVICE
 * ACTION (bits 4-0) */
enum {
	SANITIZE_FLAGS_BYTE = 1,
};

static inline bool cdb_sanitize_immed(const uint8_t *cdb)
{
	return cdb[SANITIZE_FLAGS_BYTE] & 0x80;
}

static inline bool cdb_sanitize_ause(const uint8_t *cdb)
{
	return cdb[SANITIZE_FLAGS_BYTE] & 0x20;
}

/* READ DEFECT DATA (SBC-4 5.17, 5.18): REQ_PLIST, REQ_GLIST, DEFECT LIST
 * FORMAT in byte 2 of the 10-byte form, byte 1 of the 12-byte form */
enum {
	RDD10_REQUEST_BYTE = 2,
	RDD12_REQUEST_BYTE = 1,
};

static inline unsigned cdb_rdd_request_byte(const uint8_t *cdb)
{
	return cdb_op(cdb) == OP_READ_DEFECT_DATA_10 ? RDD10_REQUEST_BYTE : RDD12_REQUEST_BYTE;
}

static inline uint8_t cdb_rdd_request(const uint8_t *cdb)
{
	return cdb[cdb_rdd_request_byte(cdb)];
}

/* START STOP UNIT (SBC-4 5.25): byte 4 POWER CONDITION (bits 7-4), LOEJ
 * (bit 1), START (bit 0) */
enum {
	SSU_FLAGS_BYTE = 4,
};

static inline uint8_t cdb_ssu_power_condition(const uint8_t *cdb)
{
	return cdb[SSU_FLAGS_BYTE] >> 4;
}

static inline bool cdb_ssu_loej(const uint8_t *cdb)
{
	return cdb[SSU_FLAGS_BYTE] & 0x02;
}

static inline bool cdb_ssu_start(const uint8_t *cdb)
{
	return cdb[SSU_FLAGS_BYTE] & 0x01;
}

/* PREVENT ALLOW MEDIUM REMOVAL (SBC-4 5.14): PREVENT byte 4 bits 1-0 */
enum {
	PAMR_PREVENT_BYTE = 4,
};

static inline uint8_t cdb_pamr_prevent(const uint8_t *cdb)
{
	return cdb[PAMR_PREVENT_BYTE] & 0x03;
}

/* FORMAT UNIT (SBC-4 5.3): byte 1 FMTPINFO (bits 7-6), LONGLIST (bit 5),
 * FMTDATA (bit 4), CMPLST (bit 3), DEFECT LIST FORMAT (bits 2-0) */
enum {
	FORMAT_FLAGS_BYTE = 1,
};

static inline uint8_t cdb_format_fmtpinfo(const uint8_t *cdb)
{
	return cdb[FORMAT_FLAGS_BYTE] >> 6;
}

static inline bool cdb_format_longlist(const uint8_t *cdb)
{
	return cdb[FORMAT_FLAGS_BYTE] & 0x20;
}

static inline bool cdb_format_fmtdata(const uint8_t *cdb)
{
	return cdb[FORMAT_FLAGS_BYTE] & 0x10;
}

static inline bool cdb_format_cmplst(const uint8_t *cdb)
{
	return cdb[FORMAT_FLAGS_BYTE] & 0x08;
}

static inline uint8_t cdb_format_defect_list_format(const uint8_t *cdb)
{
	return cdb[FORMAT_FLAGS_BYTE] & 0x07;
}

/* ---- the primary commands (SPC-4 6) ---- */

/* SEND DIAGNOSTIC (SPC-4 6.32): byte 1 SELF-TEST CODE (bits 7-5), PF (bit
 * 4), SELFTEST (bit 2), DEVOFFL (bit 1), UNITOFFL (bit 0); PARAMETER LIST
 * LENGTH bytes 3-4 */
enum {
	SENDDIAG_FLAGS_BYTE = 1,
	SENDDIAG_LENGTH_BYTE = 3,
};

static inline uint8_t cdb_senddiag_selftest_code(const uint8_t *cdb)
{
	return cdb[SENDDIAG_FLAGS_BYTE] >> 5;
}

static inline bool cdb_senddiag_pf(const uint8_t *cdb)
{
	return cdb[SENDDIAG_FLAGS_BYTE] & 0x10;
}

static inline bool cdb_senddiag_selftest(const uint8_t *cdb)
{
	return cdb[SENDDIAG_FLAGS_BYTE] & 0x04;
}

static inline uint16_t cdb_senddiag_param_list_len(const uint8_t *cdb)
{
	return get_be16(cdb + SENDDIAG_LENGTH_BYTE);
}

/* RECEIVE DIAGNOSTIC RESULTS (SPC-4 6.27): PCV byte 1 bit 0, PAGE CODE
 * byte 2, ALLOCATION LENGTH bytes 3-4 */
enum {
	RDR_PAGE_BYTE = 2,
};

static inline bool cdb_rdr_pcv(const uint8_t *cdb)
{
	return cdb[1] & 0x01;
}

static inline uint8_t cdb_rdr_page_code(const uint8_t *cdb)
{
	return cdb[RDR_PAGE_BYTE];
}

static inline uint16_t cdb_rdr_alloc_len(const uint8_t *cdb)
{
	return get_be16(cdb + 3);
}

/* INQUIRY (SPC-4 6.6): EVPD byte 1 bit 0, PAGE CODE byte 2, ALLOCATION
 * LENGTH 3-4 (not the 6-byte form's byte 4) */
enum {
	INQUIRY_PAGE_CODE_BYTE = 2,
};

static inline bool cdb_inquiry_evpd(const uint8_t *cdb)
{
	return cdb[1] & 0x01;
}

static inline uint8_t cdb_inquiry_page_code(const uint8_t *cdb)
{
	return cdb[INQUIRY_PAGE_CODE_BYTE];
}

static inline uint16_t cdb_inquiry_alloc_len(const uint8_t *cdb)
{
	return get_be16(cdb + 3);
}

/* REQUEST SENSE (SPC-4 6.39): DESC byte 1 bit 0 */
static inline bool cdb_request_sense_desc(const uint8_t *cdb)
{
	return cdb[1] & 0x01;
}

/* REPORT LUNS (SPC-4 6.33): SELECT REPORT byte 2 */
enum {
	REPORT_LUNS_SELECT_BYTE = 2,
};

static inline uint8_t cdb_report_luns_select(const uint8_t *cdb)
{
	return cdb[REPORT_LUNS_SELECT_BYTE];
}

/* REPORT SUPPORTED OPERATION CODES (SPC-4 6.35): byte 2 RCTD (bit 7),
 * REPORTING OPTIONS (bits 2-0); REQUESTED OPERATION CODE byte 3; REQUESTED
 * SERVICE ACTION 4-5 */
enum {
	RSOC_OPTIONS_BYTE = 2,
	RSOC_OPCODE_BYTE = 3,
};

static inline bool cdb_rsoc_rctd(const uint8_t *cdb)
{
	return cdb[RSOC_OPTIONS_BYTE] & 0x80;
}

static inline uint8_t cdb_rsoc_options(const uint8_t *cdb)
{
	return cdb[RSOC_OPTIONS_BYTE] & 0x07;
}

static inline uint8_t cdb_rsoc_opcode(const uint8_t *cdb)
{
	return cdb[RSOC_OPCODE_BYTE];
}

static inline uint16_t cdb_rsoc_sa(const uint8_t *cdb)
{
	return get_be16(cdb + 4);
}

/* REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 6.36): REPD byte 2
 * bit 7 */
static inline bool cdb_rstmf_repd(const uint8_t *cdb)
{
	return cdb[2] & 0x80;
}

/* MODE SENSE (6)/(10) (SPC-4 6.11, 6.12): byte 1 LLBAA (bit 4, 10-byte form
 * only), DBD (bit 3); byte 2 PC (bits 7-6), PAGE CODE (bits 5-0); SUBPAGE
 * CODE byte 3. MODE SELECT (6)/(10) (SPC-4 6.9, 6.10): SP byte 1 bit 0. */
enum {
	MODE_FLAGS_BYTE = 1,
	MODE_PAGE_BYTE = 2,
	MODE_SUBPAGE_BYTE = 3,
};

static inline bool cdb_mode_sense10_llbaa(const uint8_t *cdb)
{
	return cdb[MODE_FLAGS_BYTE] & 0x10;
}

static inline bool cdb_mode_sense_dbd(const uint8_t *cdb)
{
	return cdb[MODE_FLAGS_BYTE] & 0x08;
}

static inline uint8_t cdb_mode_sense_pc(const uint8_t *cdb)
{
	return cdb[MODE_PAGE_BYTE] >> 6;
}

static inline uint8_t cdb_mode_sense_page_code(const uint8_t *cdb)
{
	return cdb[MODE_PAGE_BYTE] & 0x3f;
}

static inline uint8_t cdb_mode_sense_subpage_code(const uint8_t *cdb)
{
	return cdb[MODE_SUBPAGE_BYTE];
}

static inline bool cdb_mode_select_sp(const uint8_t *cdb)
{
	return cdb[MODE_FLAGS_BYTE] & 0x01;
}

/* LOG SELECT (SPC-4 6.6) and LOG SENSE (SPC-4 6.7): byte 1 PCR (bit 1,
 * LOG SELECT) or PPC (bit 1, LOG SENSE), SP (bit 0); byte 2 PC (bits 7-6),
 * PAGE CODE (bits 5-0); SUBPAGE CODE byte 3; LOG SENSE PARAMETER POINTER
 * bytes 5-6; ALLOCATION LENGTH / PARAMETER LIST LENGTH bytes 7-8
 * (cdb10_alloc_len(), cdb10_param_list_len()). */
enum {
	LOG_FLAGS_BYTE = 1,
	LOG_PAGE_BYTE = 2,
	LOG_SUBPAGE_BYTE = 3,
	LOG_PARAM_POINTER_BYTE = 5,
	LOG_LENGTH_BYTE = 7,
};

static inline bool cdb_log_select_pcr(const uint8_t *cdb)
{
	return cdb[LOG_FLAGS_BYTE] & 0x02;
}

static inline uint8_t cdb_log_pc(const uint8_t *cdb)
{
	return cdb[LOG_PAGE_BYTE] >> 6;
}

static inline uint8_t cdb_log_page_code(const uint8_t *cdb)
{
	return cdb[LOG_PAGE_BYTE] & 0x3f;
}

static inline uint8_t cdb_log_subpage_code(const uint8_t *cdb)
{
	return cdb[LOG_SUBPAGE_BYTE];
}

static inline uint16_t cdb_log_sense_param_pointer(const uint8_t *cdb)
{
	return get_be16(cdb + LOG_PARAM_POINTER_BYTE);
}

/* PERSISTENT RESERVE OUT (SPC-4 6.16): byte 2 SCOPE (bits 7-4), TYPE (bits
 * 3-0); PARAMETER LIST LENGTH 5-8 (not the 10-byte form's 7-8) */
enum {
	PR_OUT_SCOPE_TYPE_BYTE = 2,
};

static inline uint8_t cdb_pr_out_scope(const uint8_t *cdb)
{
	return cdb[PR_OUT_SCOPE_TYPE_BYTE] >> 4;
}

static inline uint8_t cdb_pr_out_type(const uint8_t *cdb)
{
	return cdb[PR_OUT_SCOPE_TYPE_BYTE] & 0x0f;
}

static inline uint32_t cdb_pr_out_param_list_len(const uint8_t *cdb)
{
	return get_be32(cdb + 5);
}

/* REPORT TARGET PORT GROUPS (SPC-4 6.27): PARAMETER DATA FORMAT byte 1
 * bits 7-5 */
enum {
	RTPG_FORMAT_BYTE = 1,
};

static inline uint8_t cdb_rtpg_format(const uint8_t *cdb)
{
	return cdb[RTPG_FORMAT_BYTE] >> 5;
}

/* RECEIVE COPY RESULTS (SPC-4 6.23): LIST IDENTIFIER byte 2 */
enum {
	RCR_LIST_ID_BYTE = 2,
};

static inline uint8_t cdb_rcr_list_id(const uint8_t *cdb)
{
	return cdb[RCR_LIST_ID_BYTE];
}

/* READ BUFFER(10) (SPC-4 6.17) and WRITE BUFFER (SPC-4 6.39): MODE byte 1
 * bits 4-0, BUFFER ID byte 2, BUFFER OFFSET bytes 3-5, ALLOCATION LENGTH
 * (READ BUFFER) or PARAMETER LIST LENGTH (WRITE BUFFER) bytes 6-8 */
enum {
	BUFFER_MODE_BYTE = 1,
	BUFFER_ID_BYTE = 2,
	BUFFER_OFFSET_BYTE = 3,
	BUFFER_LENGTH_BYTE = 6,
};

static inline uint8_t cdb_buffer_mode(const uint8_t *cdb)
{
	return cdb[BUFFER_MODE_BYTE] & 0x1f;
}

static inline uint8_t cdb_buffer_id(const uint8_t *cdb)
{
	return cdb[BUFFER_ID_BYTE];
}

static inline uint32_t cdb_buffer_offset(const uint8_t *cdb)
{
	return get_be24(cdb + BUFFER_OFFSET_BYTE);
}

/* ALLOCATION LENGTH of READ BUFFER, PARAMETER LIST LENGTH of WRITE BUFFER */
static inline uint32_t cdb_buffer_length(const uint8_t *cdb)
{
	return get_be24(cdb + BUFFER_LENGTH_BYTE);
}

#endif
