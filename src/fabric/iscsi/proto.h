/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proto.h: iSCSI wire formats (RFC 7143 section 11). Every PDU starts with a
 * 48-byte Basic Header Segment; each opcode has its own struct of fixed-width
 * byte arrays (no bitfields, alignment 1) and every multi-byte field is read
 * and written with get/put_be* from lib/endian.h. Digests are CRC32C stored
 * little-endian (RFC 7143 13.1, put_le32). */
#ifndef UT_ISCSI_PROTO_H
#define UT_ISCSI_PROTO_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/endian.h"

#define ISCSI_BHS_LEN	 48u
#define ISCSI_DIGEST_LEN 4u
#define ISCSI_RSVD_TAG	 0xffffffffu /* reserved ITT / TTT value */
#define ISCSI_MAX_DSL	 0xffffffu   /* 24-bit DataSegmentLength */
#define ISCSI_AHS_MAX	 (255u * 4u) /* TotalAHSLength is in 4-byte words */
#define ISCSI_LOGIN_DSL	 8192u	     /* RFC 7143 6.2: login data per PDU */
#define ISCSI_VERSION	 0x00u	     /* Version-max/min/active */
#define ISCSI_PAD(len)	 ((4u - ((len)&3u)) & 3u)

/* RFC 7143 11.2.1.2: opcodes; byte 0 = .|I|opcode(6) */
enum iscsi_opcode {
	ISCSI_OP_NOP_OUT = 0x00,
	ISCSI_OP_SCSI_CMD = 0x01,
	ISCSI_OP_TMF_REQ = 0x02,
	ISCSI_OP_LOGIN_REQ = 0x03,
	ISCSI_OP_TEXT_REQ = 0x04,
	ISCSI_OP_DATA_OUT = 0x05,
	ISCSI_OP_LOGOUT_REQ = 0x06,
	ISCSI_OP_SNACK_REQ = 0x10,
	ISCSI_OP_NOP_IN = 0x20,
	ISCSI_OP_SCSI_RSP = 0x21,
	ISCSI_OP_TMF_RSP = 0x22,
	ISCSI_OP_LOGIN_RSP = 0x23,
	ISCSI_OP_TEXT_RSP = 0x24,
	ISCSI_OP_DATA_IN = 0x25,
	ISCSI_OP_LOGOUT_RSP = 0x26,
	ISCSI_OP_R2T = 0x31,
	ISCSI_OP_ASYNC_MSG = 0x32,
	ISCSI_OP_REJECT = 0x3f,
};
#define ISCSI_OPCODE_MASK  0x3fu
#define ISCSI_OP_IMMEDIATE 0x40u /* I bit (requests) */

/* byte 1 flags shared by several PDUs */
#define ISCSI_FLAG_FINAL    0x80u /* F */
#define ISCSI_FLAG_CONTINUE 0x40u /* C (Text, Login) */

/* ---- the common part (11.2.1) ---- */
struct iscsi_bhs {
	uint8_t opcode;
	uint8_t flags;
	uint8_t opspec2[2];
	uint8_t total_ahs_len; /* 4-byte words */
	uint8_t dsl[3];	       /* DataSegmentLength, bytes, without padding */
	uint8_t lun[8];	       /* or opcode-specific */
	uint8_t itt[4];
	uint8_t opspec20[28];
};

/* ---- SCSI Command (11.3) ---- */
#define ISCSI_CMD_F_READ    0x40u
#define ISCSI_CMD_F_WRITE   0x20u
#define ISCSI_CMD_ATTR_MASK 0x07u
enum iscsi_task_attr {
	ISCSI_ATTR_UNTAGGED = 0,
	ISCSI_ATTR_SIMPLE = 1,
	ISCSI_ATTR_ORDERED = 2,
	ISCSI_ATTR_HEAD_OF_QUEUE = 3,
	ISCSI_ATTR_ACA = 4,
};
#define ISCSI_CDB_LEN 16u
struct iscsi_bhs_scsi_cmd {
	uint8_t opcode;
	uint8_t flags; /* F R W . . ATTR */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t edtl[4]; /* Expected Data Transfer Length */
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t cdb[ISCSI_CDB_LEN];
};

/* AHS (11.2.1.5): AHSLength(2) AHSType(1) then the AHS-specific bytes */
enum iscsi_ahs_type {
	ISCSI_AHS_EXTENDED_CDB = 1,
	ISCSI_AHS_BIDI_READ_LEN = 2,
};
struct iscsi_ahs_hdr {
	uint8_t len[2]; /* bytes of the AHS-specific field (from byte 3 on) */
	uint8_t type;
};

/* ---- SCSI Response (11.4) ---- */
#define ISCSI_RSP_F_BIDI_OVERFLOW  0x10u /* o */
#define ISCSI_RSP_F_BIDI_UNDERFLOW 0x08u /* u */
#define ISCSI_RSP_F_OVERFLOW	   0x04u /* O */
#define ISCSI_RSP_F_UNDERFLOW	   0x02u /* U */
enum iscsi_response {
	ISCSI_RESPONSE_COMPLETED = 0x00,
	ISCSI_RESPONSE_TARGET_FAILURE = 0x01,
};
struct iscsi_bhs_scsi_rsp {
	uint8_t opcode;
	uint8_t flags; /* 1 . . o u O U . */
	uint8_t response;
	uint8_t status;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t rsvd8[8];
	uint8_t itt[4];
	uint8_t snack_tag[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t exp_datasn[4];
	uint8_t bidi_resid[4];
	uint8_t resid[4];
};

/* ---- Task Management Function Request / Response (11.5, 11.6) ---- */
#define ISCSI_TMF_FUNC_MASK 0x7fu
enum iscsi_tmf_func {
	ISCSI_TMF_ABORT_TASK = 1,
	ISCSI_TMF_ABORT_TASK_SET = 2,
	ISCSI_TMF_CLEAR_ACA = 3,
	ISCSI_TMF_CLEAR_TASK_SET = 4,
	ISCSI_TMF_LUN_RESET = 5,
	ISCSI_TMF_TARGET_WARM_RESET = 6,
	ISCSI_TMF_TARGET_COLD_RESET = 7,
	ISCSI_TMF_TASK_REASSIGN = 8,
	/* RFC 7144 4.2, iSCSIProtocolLevel 2 and up */
	ISCSI_TMF_QUERY_TASK = 9,
	ISCSI_TMF_QUERY_TASK_SET = 10,
	ISCSI_TMF_I_T_NEXUS_RESET = 11,
	ISCSI_TMF_QUERY_ASYNC_EVENT = 12,
};
enum iscsi_tmf_rsp {
	ISCSI_TMF_RSP_COMPLETE = 0,
	ISCSI_TMF_RSP_NO_TASK = 1,
	ISCSI_TMF_RSP_NO_LUN = 2,
	ISCSI_TMF_RSP_TASK_ALLEGIANT = 3,
	ISCSI_TMF_RSP_NO_REASSIGN = 4,
	ISCSI_TMF_RSP_NOT_SUPPORTED = 5,
	ISCSI_TMF_RSP_AUTH_FAILED = 6,
	ISCSI_TMF_RSP_SUCCEEDED = 7, /* RFC 7144 4.3: a QUERY found what it asked */
	ISCSI_TMF_RSP_REJECTED = 255,
};
struct iscsi_bhs_tmf_req {
	uint8_t opcode;
	uint8_t func; /* 1 Function(7) */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ref_task_tag[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t ref_cmdsn[4];
	uint8_t exp_datasn[4];
	uint8_t rsvd40[8];
};
struct iscsi_bhs_tmf_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t response;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t add_info[3]; /* RFC 7144 4.3: Additional Response Information */
	uint8_t rsvd11[5];
	uint8_t itt[4];
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[12];
};

/* ---- SCSI Data-Out / Data-In (11.7) ---- */
#define ISCSI_DATAIN_F_ACK	 0x40u
#define ISCSI_DATAIN_F_OVERFLOW	 0x04u
#define ISCSI_DATAIN_F_UNDERFLOW 0x02u
#define ISCSI_DATAIN_F_STATUS	 0x01u
struct iscsi_bhs_data_out {
	uint8_t opcode;
	uint8_t flags; /* F */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t rsvd24[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[4];
	uint8_t datasn[4];
	uint8_t buffer_offset[4];
	uint8_t rsvd44[4];
};
struct iscsi_bhs_data_in {
	uint8_t opcode;
	uint8_t flags; /* F A 0 0 0 O U S */
	uint8_t rsvd2;
	uint8_t status;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t datasn[4];
	uint8_t buffer_offset[4];
	uint8_t resid[4];
};

/* ---- R2T (11.8) ---- */
struct iscsi_bhs_r2t {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t r2tsn[4];
	uint8_t buffer_offset[4];
	uint8_t desired_len[4];
};

/* ---- Asynchronous Message (11.9) ---- */
enum iscsi_async_event {
	ISCSI_ASYNC_SCSI_EVENT = 0,
	ISCSI_ASYNC_LOGOUT_REQUEST = 1,
	ISCSI_ASYNC_DROP_CONNECTION = 2,
	ISCSI_ASYNC_DROP_ALL_CONNECTIONS = 3,
	ISCSI_ASYNC_RENEGOTIATE = 4,
	ISCSI_ASYNC_TASK_TERMINATION = 5, /* TaskReporting=FastAbort only */
};
struct iscsi_bhs_async {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4]; /* 0xffffffff */
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t event;
	uint8_t vcode;
	uint8_t param1[2];
	uint8_t param2[2];
	uint8_t param3[2];
	uint8_t rsvd44[4];
};

/* ---- Text Request / Response (11.10, 11.11) ---- */
struct iscsi_bhs_text_req {
	uint8_t opcode;
	uint8_t flags; /* F C */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};
struct iscsi_bhs_text_rsp {
	uint8_t opcode;
	uint8_t flags; /* F C */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[12];
};

/* ---- Login Request / Response (11.12, 11.13) ---- */
#define ISCSI_LOGIN_F_TRANSIT  0x80u /* T */
#define ISCSI_LOGIN_F_CONTINUE 0x40u
#define ISCSI_LOGIN_CSG_SHIFT  2
#define ISCSI_LOGIN_STAGE_MASK 0x03u
enum iscsi_login_stage {
	ISCSI_STAGE_SECURITY = 0,
	ISCSI_STAGE_OPERATIONAL = 1,
	ISCSI_STAGE_RESERVED = 2,
	ISCSI_STAGE_FULL_FEATURE = 3,
};
static inline unsigned iscsi_login_csg(uint8_t flags)
{
	return (flags >> ISCSI_LOGIN_CSG_SHIFT) & ISCSI_LOGIN_STAGE_MASK;
}
static inline unsigned iscsi_login_nsg(uint8_t flags)
{
	return flags & ISCSI_LOGIN_STAGE_MASK;
}
#define ISCSI_ISID_LEN 6u
struct iscsi_bhs_login_req {
	uint8_t opcode; /* 0x43: I bit always set */
	uint8_t flags;	/* T C . . CSG NSG */
	uint8_t version_max;
	uint8_t version_min;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t isid[ISCSI_ISID_LEN];
	uint8_t tsih[2];
	uint8_t itt[4];
	uint8_t cid[2];
	uint8_t rsvd22[2];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};
struct iscsi_bhs_login_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t version_max;
	uint8_t version_active;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t isid[ISCSI_ISID_LEN];
	uint8_t tsih[2];
	uint8_t itt[4];
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t status_class;
	uint8_t status_detail;
	uint8_t rsvd38[10];
};

/* ---- Logout Request / Response (11.14, 11.15) ---- */
#define ISCSI_LOGOUT_REASON_MASK 0x7fu
enum iscsi_logout_reason {
	ISCSI_LOGOUT_CLOSE_SESSION = 0,
	ISCSI_LOGOUT_CLOSE_CONNECTION = 1,
	ISCSI_LOGOUT_REMOVE_FOR_RECOVERY = 2,
};
enum iscsi_logout_rsp {
	ISCSI_LOGOUT_RSP_CLOSED = 0,
	ISCSI_LOGOUT_RSP_CID_NOT_FOUND = 1,
	ISCSI_LOGOUT_RSP_RECOVERY_UNSUPPORTED = 2,
	ISCSI_LOGOUT_RSP_CLEANUP_FAILED = 3,
};
struct iscsi_bhs_logout_req {
	uint8_t opcode;
	uint8_t reason; /* 1 ReasonCode(7) */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t rsvd8[8];
	uint8_t itt[4];
	uint8_t cid[2];
	uint8_t rsvd22[2];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};
struct iscsi_bhs_logout_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t response;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t rsvd8[8];
	uint8_t itt[4];
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[4];
	uint8_t time2wait[2];
	uint8_t time2retain[2];
	uint8_t rsvd44[4];
};

/* ---- SNACK Request (11.16): refused at ERL 0 ---- */
struct iscsi_bhs_snack {
	uint8_t opcode;
	uint8_t flags; /* 1 . . . Type(4) */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t rsvd24[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[8];
	uint8_t begrun[4];
	uint8_t runlength[4];
};

/* ---- Reject (11.17) ---- */
enum iscsi_reject_reason {
	ISCSI_REJECT_DATA_DIGEST = 0x02,
	ISCSI_REJECT_SNACK = 0x03,
	ISCSI_REJECT_PROTOCOL_ERROR = 0x04,
	ISCSI_REJECT_CMD_NOT_SUPPORTED = 0x05,
	ISCSI_REJECT_IMMEDIATE_CMD = 0x06,
	ISCSI_REJECT_TASK_IN_PROGRESS = 0x07,
	ISCSI_REJECT_INVALID_DATA_ACK = 0x08,
	ISCSI_REJECT_INVALID_PDU_FIELD = 0x09,
	ISCSI_REJECT_LONG_OP = 0x0a,
	ISCSI_REJECT_WAITING_FOR_LOGOUT = 0x0c,
};
struct iscsi_bhs_reject {
	uint8_t opcode;
	uint8_t flags;
	uint8_t reason;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t rsvd8[8];
	uint8_t itt[4]; /* 0xffffffff */
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t datasn_r2tsn[4];
	uint8_t rsvd40[8];
};

/* ---- NOP-Out / NOP-In (11.18, 11.19) ---- */
struct iscsi_bhs_nop_out {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};
struct iscsi_bhs_nop_in {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t dsl[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[12];
};

/* One header, seen through the struct of its opcode. */
union iscsi_hdr {
	uint8_t raw[ISCSI_BHS_LEN];
	struct iscsi_bhs bhs;
	struct iscsi_bhs_scsi_cmd cmd;
	struct iscsi_bhs_scsi_rsp rsp;
	struct iscsi_bhs_tmf_req tmf_req;
	struct iscsi_bhs_tmf_rsp tmf_rsp;
	struct iscsi_bhs_data_out data_out;
	struct iscsi_bhs_data_in data_in;
	struct iscsi_bhs_r2t r2t;
	struct iscsi_bhs_async async;
	struct iscsi_bhs_text_req text_req;
	struct iscsi_bhs_text_rsp text_rsp;
	struct iscsi_bhs_login_req login_req;
	struct iscsi_bhs_login_rsp login_rsp;
	struct iscsi_bhs_logout_req logout_req;
	struct iscsi_bhs_logout_rsp logout_rsp;
	struct iscsi_bhs_snack snack;
	struct iscsi_bhs_reject reject;
	struct iscsi_bhs_nop_out nop_out;
	struct iscsi_bhs_nop_in nop_in;
};

static_assert(sizeof(struct iscsi_bhs) == ISCSI_BHS_LEN, "BHS");
static_assert(sizeof(struct iscsi_bhs_scsi_cmd) == ISCSI_BHS_LEN, "SCSI Command");
static_assert(sizeof(struct iscsi_bhs_scsi_rsp) == ISCSI_BHS_LEN, "SCSI Response");
static_assert(sizeof(struct iscsi_bhs_tmf_req) == ISCSI_BHS_LEN, "TMF Request");
static_assert(sizeof(struct iscsi_bhs_tmf_rsp) == ISCSI_BHS_LEN, "TMF Response");
static_assert(sizeof(struct iscsi_bhs_data_out) == ISCSI_BHS_LEN, "Data-Out");
static_assert(sizeof(struct iscsi_bhs_data_in) == ISCSI_BHS_LEN, "Data-In");
static_assert(sizeof(struct iscsi_bhs_r2t) == ISCSI_BHS_LEN, "R2T");
static_assert(sizeof(struct iscsi_bhs_async) == ISCSI_BHS_LEN, "Async Message");
static_assert(sizeof(struct iscsi_bhs_text_req) == ISCSI_BHS_LEN, "Text Request");
static_assert(sizeof(struct iscsi_bhs_text_rsp) == ISCSI_BHS_LEN, "Text Response");
static_assert(sizeof(struct iscsi_bhs_login_req) == ISCSI_BHS_LEN, "Login Request");
static_assert(sizeof(struct iscsi_bhs_login_rsp) == ISCSI_BHS_LEN, "Login Response");
static_assert(sizeof(struct iscsi_bhs_logout_req) == ISCSI_BHS_LEN, "Logout Request");
static_assert(sizeof(struct iscsi_bhs_logout_rsp) == ISCSI_BHS_LEN, "Logout Response");
static_assert(sizeof(struct iscsi_bhs_snack) == ISCSI_BHS_LEN, "SNACK");
static_assert(sizeof(struct iscsi_bhs_reject) == ISCSI_BHS_LEN, "Reject");
static_assert(sizeof(struct iscsi_bhs_nop_out) == ISCSI_BHS_LEN, "NOP-Out");
static_assert(sizeof(struct iscsi_bhs_nop_in) == ISCSI_BHS_LEN, "NOP-In");
static_assert(sizeof(union iscsi_hdr) == ISCSI_BHS_LEN, "header union");
static_assert(sizeof(struct iscsi_ahs_hdr) == 3, "AHS header");

static inline unsigned iscsi_hdr_opcode(const union iscsi_hdr *h)
{
	return h->bhs.opcode & ISCSI_OPCODE_MASK;
}
static inline bool iscsi_hdr_immediate(const union iscsi_hdr *h)
{
	return (h->bhs.opcode & ISCSI_OP_IMMEDIATE) != 0;
}
static inline uint32_t iscsi_hdr_dsl(const union iscsi_hdr *h)
{
	return get_be24(h->bhs.dsl);
}
static inline void iscsi_hdr_set_dsl(union iscsi_hdr *h, uint32_t len)
{
	put_be24(h->bhs.dsl, len);
}
static inline uint32_t iscsi_hdr_ahs_bytes(const union iscsi_hdr *h)
{
	return (uint32_t)h->bhs.total_ahs_len * 4u;
}
static inline uint32_t iscsi_hdr_itt(const union iscsi_hdr *h)
{
	return get_be32(h->bhs.itt);
}

#endif
