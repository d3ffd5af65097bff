/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_raw.h: a small raw iSCSI initiator for hardening tests (RFC 7143).
 *
 * It builds and parses every PDU type byte by byte (no libiscsi), can send
 * arbitrary or deliberately malformed PDUs and raw bytes, receives with
 * timeouts, logs in with key negotiation (AuthMethod None or CHAP with
 * MD5/SHA-1/SHA-256/SHA3-256, hex or base64, one-way or mutual), supports
 * CRC32C header/data digests, and has helpers for SCSI commands with
 * immediate/unsolicited/R2T data, NOP, TMF, Text/SendTargets and Logout.
 *
 * Contracts: functions return 0 or -errno; a connection is used by one
 * thread; every length read from the wire is checked before allocation. */
#ifndef UT_TESTS_ISCSI_RAW_H
#define UT_TESTS_ISCSI_RAW_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/* A check of a test tool: prints "ok: MSG" or "FAIL: MSG" and exits 1 on
 * failure (the tools' output is read by their integration scripts). */
#define IR_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL: ");                                                          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			exit(1);                                                                   \
		}                                                                                  \
		printf("ok: ");                                                                    \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)

#define IR_BHS_LEN	  48
#define IR_DIGEST_LEN	  4
#define IR_RSVD_TAG	  0xffffffffu
#define IR_MAX_DSL	  0xffffffu   /* 24-bit DataSegmentLength */
#define IR_RECV_DATA_CAP  (16u << 20) /* receive refuses larger segments */
#define IR_DEFAULT_MRDSL  8192u	      /* RFC 7143 13.12 default */
#define IR_LOGIN_DATA_MAX 8192u	      /* RFC 7143 6.2: login/text key data per PDU */

/* RFC 7143 11.2.1.2 opcodes */
enum ir_opcode {
	IR_OP_NOP_OUT = 0x00,
	IR_OP_SCSI_CMD = 0x01,
	IR_OP_TMF_REQ = 0x02,
	IR_OP_LOGIN_REQ = 0x03,
	IR_OP_TEXT_REQ = 0x04,
	IR_OP_DATA_OUT = 0x05,
	IR_OP_LOGOUT_REQ = 0x06,
	IR_OP_SNACK_REQ = 0x10,
	IR_OP_NOP_IN = 0x20,
	IR_OP_SCSI_RSP = 0x21,
	IR_OP_TMF_RSP = 0x22,
	IR_OP_LOGIN_RSP = 0x23,
	IR_OP_TEXT_RSP = 0x24,
	IR_OP_DATA_IN = 0x25,
	IR_OP_LOGOUT_RSP = 0x26,
	IR_OP_R2T = 0x31,
	IR_OP_ASYNC_MSG = 0x32,
	IR_OP_REJECT = 0x3f,
};
#define IR_OP_MASK	0x3f
#define IR_OP_IMMEDIATE 0x40 /* I bit in byte 0 */
#define IR_FLAG_FINAL	0x80 /* F bit in byte 1 */

/* SCSI Command flags (11.3) */
#define IR_CMD_READ	   0x40
#define IR_CMD_WRITE	   0x20
#define IR_CMD_ATTR_SIMPLE 0x01
/* SCSI Response / Data-In flags (11.4, 11.7) */
#define IR_RSP_BIDI_OVERFLOW  0x10
#define IR_RSP_BIDI_UNDERFLOW 0x08
#define IR_RSP_OVERFLOW	      0x04
#define IR_RSP_UNDERFLOW      0x02
#define IR_DATAIN_ACK	      0x40
#define IR_DATAIN_STATUS      0x01
/* Login flags (11.12) */
#define IR_LOGIN_TRANSIT   0x80
#define IR_LOGIN_CONTINUE  0x40
#define IR_LOGIN_CSG_SHIFT 2
enum ir_login_stage {
	IR_STAGE_SECURITY = 0,
	IR_STAGE_OPERATIONAL = 1,
	IR_STAGE_FFP = 3,
};
/* Text flags (11.10) */
#define IR_TEXT_CONTINUE 0x40

/* Reject reasons, RFC 7143 11.17.1 */
enum ir_reject_reason {
	IR_REJ_DATA_DIGEST = 0x02,
	IR_REJ_SNACK = 0x03,
	IR_REJ_PROTOCOL = 0x04,
	IR_REJ_CMD_NOT_SUPPORTED = 0x05,
	IR_REJ_IMMEDIATE = 0x06,
	IR_REJ_TASK_IN_PROGRESS = 0x07,
	IR_REJ_INVALID_DATA_ACK = 0x08,
	IR_REJ_INVALID_PDU_FIELD = 0x09,
	IR_REJ_LONG_OP = 0x0a,
	IR_REJ_WAITING_LOGOUT = 0x0c,
};

/* TMF functions (11.5.1) and responses (11.6.1) */
enum ir_tmf_func {
	IR_TMF_ABORT_TASK = 1,
	IR_TMF_ABORT_TASK_SET = 2,
	IR_TMF_CLEAR_ACA = 3,
	IR_TMF_CLEAR_TASK_SET = 4,
	IR_TMF_LUN_RESET = 5,
	IR_TMF_TARGET_WARM_RESET = 6,
	IR_TMF_TARGET_COLD_RESET = 7,
	IR_TMF_TASK_REASSIGN = 8,
	/* RFC 7144 4.2: iSCSIProtocolLevel 2 */
	IR_TMF_QUERY_TASK = 9,
	IR_TMF_QUERY_TASK_SET = 10,
	IR_TMF_I_T_NEXUS_RESET = 11,
	IR_TMF_QUERY_ASYNC_EVENT = 12,
};

/* Logout reasons (11.14.1) */
enum ir_logout_reason {
	IR_LOGOUT_SESSION = 0,
	IR_LOGOUT_CONNECTION = 1,
	IR_LOGOUT_RECOVERY = 2,
};

/* ---- wire structs: 48-byte BHS variants (RFC 7143 section 11) ---- */

/* 11.2.1: the fields common to every PDU */
struct ir_bhs_common {
	uint8_t opcode; /* I bit | opcode */
	uint8_t flags;
	uint8_t opspec[2];
	uint8_t total_ahs_len; /* in 4-byte words */
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t opspec2[28];
};

/* 11.3 SCSI Command */
struct ir_bhs_scsi_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t exp_xfer_len[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t cdb[16];
};

/* 11.4 SCSI Response */
struct ir_bhs_scsi_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t response;
	uint8_t status;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t rsvd8[8];
	uint8_t itt[4];
	uint8_t snack_tag[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t exp_datasn[4];
	uint8_t bidi_residual[4];
	uint8_t residual[4];
};

/* 11.5 Task Management Function Request */
struct ir_bhs_tmf_req {
	uint8_t opcode;
	uint8_t function; /* F bit | function */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ref_task_tag[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t ref_cmdsn[4];
	uint8_t exp_datasn[4];
	uint8_t rsvd40[8];
};

/* 11.6 Task Management Function Response */
struct ir_bhs_tmf_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t response;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t add_info[3]; /* RFC 7144 4.3 Additional Response Information */
	uint8_t rsvd11[5];
	uint8_t itt[4];
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[12];
};

/* 11.7 SCSI Data-In and 11.8 SCSI Data-Out share one layout; fields that are
 * reserved in one direction are named for the other. */
struct ir_bhs_data {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2;
	uint8_t status; /* Data-In with S bit */
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];		/* Data-In */
	uint8_t exp_statsn_or_cmdsn[4]; /* Data-Out: ExpStatSN; Data-In: ExpCmdSN */
	uint8_t max_cmdsn[4];		/* Data-In */
	uint8_t datasn[4];
	uint8_t buffer_offset[4];
	uint8_t residual[4]; /* Data-In */
};

/* 11.8 Ready To Transfer */
struct ir_bhs_r2t {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
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

/* 11.9 Asynchronous Message */
struct ir_bhs_async {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t async_event;
	uint8_t async_vcode;
	uint8_t param1[2];
	uint8_t param2[2];
	uint8_t param3[2];
	uint8_t rsvd44[4];
};

/* 11.10 Text Request and 11.18 NOP-Out: same layout */
struct ir_bhs_req {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};

/* 11.11 Text Response and 11.19 NOP-In: same layout */
struct ir_bhs_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t rsvd36[12];
};

/* 11.12 Login Request */
struct ir_bhs_login_req {
	uint8_t opcode;
	uint8_t flags; /* T C CSG NSG */
	uint8_t version_max;
	uint8_t version_min;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t isid[6];
	uint8_t tsih[2];
	uint8_t itt[4];
	uint8_t cid[2];
	uint8_t rsvd22[2];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};

/* 11.13 Login Response */
struct ir_bhs_login_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t version_max;
	uint8_t version_active;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t isid[6];
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

/* 11.14 Logout Request */
struct ir_bhs_logout_req {
	uint8_t opcode;
	uint8_t reason; /* F bit | reason code */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t rsvd8[8];
	uint8_t itt[4];
	uint8_t cid[2];
	uint8_t rsvd22[2];
	uint8_t cmdsn[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[16];
};

/* 11.15 Logout Response */
struct ir_bhs_logout_rsp {
	uint8_t opcode;
	uint8_t flags;
	uint8_t response;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
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

/* 11.16 SNACK Request */
struct ir_bhs_snack {
	uint8_t opcode;
	uint8_t type; /* F bit | type */
	uint8_t rsvd2[2];
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t lun[8];
	uint8_t itt[4];
	uint8_t ttt[4];
	uint8_t rsvd24[4];
	uint8_t exp_statsn[4];
	uint8_t rsvd32[8];
	uint8_t begrun[4];
	uint8_t run_length[4];
};

/* 11.17 Reject */
struct ir_bhs_reject {
	uint8_t opcode;
	uint8_t flags;
	uint8_t reason;
	uint8_t rsvd3;
	uint8_t total_ahs_len;
	uint8_t data_seg_len[3];
	uint8_t rsvd8[8];
	uint8_t itt[4]; /* 0xffffffff */
	uint8_t rsvd20[4];
	uint8_t statsn[4];
	uint8_t exp_cmdsn[4];
	uint8_t max_cmdsn[4];
	uint8_t datasn_r2tsn[4];
	uint8_t rsvd40[8];
};

union ir_bhs {
	uint8_t raw[IR_BHS_LEN];
	struct ir_bhs_common common;
	struct ir_bhs_scsi_cmd cmd;
	struct ir_bhs_scsi_rsp scsi_rsp;
	struct ir_bhs_tmf_req tmf_req;
	struct ir_bhs_tmf_rsp tmf_rsp;
	struct ir_bhs_data data;
	struct ir_bhs_r2t r2t;
	struct ir_bhs_async async;
	struct ir_bhs_req req;
	struct ir_bhs_rsp rsp;
	struct ir_bhs_login_req login_req;
	struct ir_bhs_login_rsp login_rsp;
	struct ir_bhs_logout_req logout_req;
	struct ir_bhs_logout_rsp logout_rsp;
	struct ir_bhs_snack snack;
	struct ir_bhs_reject reject;
};

static_assert(sizeof(struct ir_bhs_common) == IR_BHS_LEN, "BHS");
static_assert(sizeof(struct ir_bhs_scsi_cmd) == IR_BHS_LEN, "SCSI Command BHS");
static_assert(sizeof(struct ir_bhs_scsi_rsp) == IR_BHS_LEN, "SCSI Response BHS");
static_assert(sizeof(struct ir_bhs_tmf_req) == IR_BHS_LEN, "TMF Request BHS");
static_assert(sizeof(struct ir_bhs_tmf_rsp) == IR_BHS_LEN, "TMF Response BHS");
static_assert(sizeof(struct ir_bhs_data) == IR_BHS_LEN, "Data-In/Out BHS");
static_assert(sizeof(struct ir_bhs_r2t) == IR_BHS_LEN, "R2T BHS");
static_assert(sizeof(struct ir_bhs_async) == IR_BHS_LEN, "Async BHS");
static_assert(sizeof(struct ir_bhs_req) == IR_BHS_LEN, "Text/NOP-Out BHS");
static_assert(sizeof(struct ir_bhs_rsp) == IR_BHS_LEN, "Text/NOP-In BHS");
static_assert(sizeof(struct ir_bhs_login_req) == IR_BHS_LEN, "Login Request BHS");
static_assert(sizeof(struct ir_bhs_login_rsp) == IR_BHS_LEN, "Login Response BHS");
static_assert(sizeof(struct ir_bhs_logout_req) == IR_BHS_LEN, "Logout Request BHS");
static_assert(sizeof(struct ir_bhs_logout_rsp) == IR_BHS_LEN, "Logout Response BHS");
static_assert(sizeof(struct ir_bhs_snack) == IR_BHS_LEN, "SNACK BHS");
static_assert(sizeof(struct ir_bhs_reject) == IR_BHS_LEN, "Reject BHS");
static_assert(sizeof(union ir_bhs) == IR_BHS_LEN, "BHS union");

/* A PDU in memory: the BHS, optional AHS (multiple of 4 bytes) and data
 * segment (without padding). ahs/data are owned (malloc) after ir_recv_pdu;
 * for sending they are borrowed from the caller. */
struct ir_pdu {
	union ir_bhs bhs;
	uint8_t *ahs;
	uint32_t ahs_len;
	uint8_t *data;
	uint32_t data_len;
};

static inline uint8_t ir_pdu_opcode(const struct ir_pdu *p)
{
	return p->bhs.common.opcode & IR_OP_MASK;
}
uint32_t ir_pdu_itt(const struct ir_pdu *p);
uint32_t ir_pdu_dsl(const struct ir_pdu *p);
/* Sets TotalAHSLength and DataSegmentLength from ahs_len/data_len. */
void ir_pdu_set_lengths(struct ir_pdu *p);
void ir_pdu_free(struct ir_pdu *p);
const char *ir_opcode_name(uint8_t opcode);

/* Encoding flags for ir_pdu_encode / ir_send_pdu_ex (for malformed input). */
enum ir_enc_flags {
	IR_ENC_KEEP_LENGTHS = 1 << 0,  /* do not set TotalAHSLength/DSL from the buffers */
	IR_ENC_BAD_HDIGEST = 1 << 1,   /* flip a bit of the header digest */
	IR_ENC_BAD_DDIGEST = 1 << 2,   /* flip a bit of the data digest */
	IR_ENC_NO_DIGESTS = 1 << 3,    /* omit digests even when negotiated */
	IR_ENC_FORCE_DIGESTS = 1 << 4, /* add both digests even when not negotiated */
};

/* Size of the wire form of p (BHS, AHS, digests, padded data). */
size_t ir_pdu_wire_len(const struct ir_pdu *p, bool hdigest, bool ddigest);
/* Writes the wire form into out (out_size >= ir_pdu_wire_len). Returns the
 * number of bytes or -ENOSPC. Unless IR_ENC_KEEP_LENGTHS, p's length fields
 * are set first. */
ssize_t ir_pdu_encode(struct ir_pdu *p, bool hdigest, bool ddigest, unsigned flags, uint8_t *out,
		      size_t out_size);

/* Incremental decoder of a received byte stream (used by ir_recv_pdu and the
 * unit tests). Feed it bytes; it reports a complete PDU. */
struct ir_decoder {
	bool hdigest, ddigest;
	uint32_t max_data; /* refuse DataSegmentLength above this (-EMSGSIZE) */
	uint8_t hdr[IR_BHS_LEN + 1020 + IR_DIGEST_LEN];
	size_t hdr_have, hdr_need;
	uint8_t *data;
	size_t data_have, data_need; /* padded data + digest */
	int state;		     /* internal */
	struct ir_pdu pdu;
};
void ir_decoder_init(struct ir_decoder *d, bool hdigest, bool ddigest, uint32_t max_data);
void ir_decoder_reset(struct ir_decoder *d);
/* Consumes up to len bytes (*used says how many). Returns 1 when a PDU is
 * complete (taken with ir_decoder_take), 0 when more bytes are needed,
 * -EBADMSG on a header digest error, -EILSEQ on a data digest error (the PDU
 * is still available), -EMSGSIZE for a segment above max_data. */
int ir_decoder_feed(struct ir_decoder *d, const uint8_t *buf, size_t len, size_t *used);
void ir_decoder_take(struct ir_decoder *d, struct ir_pdu *out);

/* ---- key=value text (RFC 7143 6.1) ---- */
struct ir_text {
	uint8_t *buf;
	size_t len, cap;
};
void ir_text_init(struct ir_text *t);
void ir_text_free(struct ir_text *t);
/* Appends "key=value\0". 0 or -ENOMEM. */
int ir_text_add(struct ir_text *t, const char *key, const char *value);
/* Appends raw bytes (no terminator added). */
int ir_text_add_raw(struct ir_text *t, const void *bytes, size_t len);
/* Finds key in a key=value\0 buffer (not a C string); copies its value into
 * val (NUL-terminated, truncated to val_size-1) and returns the value length,
 * or -ENOENT. The last pair may lack its terminator. */
int ir_text_get(const uint8_t *buf, size_t len, const char *key, char *val, size_t val_size);
/* Calls fn for every pair: key (klen) and value (vlen) point into buf. */
int ir_text_foreach(const uint8_t *buf, size_t len,
		    int (*fn)(void *arg, const uint8_t *key, size_t klen, const uint8_t *val,
			      size_t vlen),
		    void *arg);

/* ---- CHAP (RFC 7143 12.1.3, RFC 1994) ---- */
enum ir_chap_alg {
	IR_CHAP_MD5 = 5,
	IR_CHAP_SHA1 = 6,
	IR_CHAP_SHA256 = 7,
	IR_CHAP_SHA3_256 = 8,
};
enum ir_chap_enc {
	IR_ENC_HEX = 0,	   /* 0x... */
	IR_ENC_BASE64 = 1, /* 0b... */
};
#define IR_CHAP_MAX_DIGEST 32
#define IR_CHAP_MAX_BIN	   1024
/* Digest length of an algorithm, or 0 if unknown. */
size_t ir_chap_digest_len(int alg);
/* R = H(id || secret || challenge). Returns the digest length or -errno. */
int ir_chap_response(int alg, uint8_t id, const void *secret, size_t secret_len,
		     const void *challenge, size_t chal_len, uint8_t out[IR_CHAP_MAX_DIGEST]);
/* Encodes bin as "0x<hex>" or "0b<base64>" (NUL-terminated). -ENOSPC. */
int ir_chap_encode(int enc, const uint8_t *bin, size_t len, char *out, size_t out_size);
/* Decodes "0x..."/"0X..." hex or "0b..."/"0B..." base64 (RFC 7143 6.1). Returns
 * the byte count or -EINVAL / -ENOSPC. */
int ir_chap_decode(const char *s, size_t slen, uint8_t *out, size_t out_size);

/* ---- connection and session ---- */
struct ir_chap_opts {
	const char *user;
	const char *secret;
	const char *mutual_user; /* NULL: one-way */
	const char *mutual_secret;
	int algs[4];  /* offered CHAP_A in order; 0 ends; {0} = 5 only */
	int encoding; /* for our CHAP_R/CHAP_C */
};

struct ir_login_opts {
	const char *initiator_name;
	const char *target_name;	 /* NULL: discovery session */
	bool header_digest, data_digest; /* offer CRC32C first (None as fallback) */
	bool digest_only;		 /* offer CRC32C only, no None fallback */
	uint32_t max_recv_dsl;		 /* ours; 0 = 262144 */
	uint32_t max_burst;		 /* 0 = 262144 */
	uint32_t first_burst;		 /* 0 = 65536 */
	int initial_r2t;		 /* -1 default (Yes), 0 No, 1 Yes */
	int immediate_data;		 /* -1 default (Yes), 0, 1 */
	uint32_t max_outstanding_r2t;	 /* 0 = 1 */
	int erl;			 /* ErrorRecoveryLevel; default 0 */
	/* DefaultTime2Wait / DefaultTime2Retain offered when times_set (else
	 * 2 and 0) */
	bool times_set;
	uint16_t time2wait, time2retain;
	const struct ir_chap_opts *chap; /* NULL: AuthMethod=None */
	bool skip_security;		 /* start in the operational stage */
	const uint8_t *extra_keys;	 /* raw key=value\0 bytes added to the first op PDU */
	size_t extra_keys_len;
	const uint8_t *first_keys; /* raw key=value\0 bytes added to the first PDU */
	size_t first_keys_len;
	/* Non-zero: pad the first PDU with X-org.utarget.pad<N>=... keys (RFC
	 * 7143 6.1 X- vendor-specific keys, answered NotUnderstood) to exactly this
	 * many bytes of data (at most IR_LOGIN_DATA_MAX). */
	uint32_t pad_first_to;
	uint8_t isid[6]; /* all zero: a random one */
	uint16_t tsih;	 /* 0: new session */
	uint16_t cid;
	uint16_t max_connections; /* MaxConnections offered; 0 = 1 */
	/* A further connection of a session (MC/S): the leading-only keys
	 * (RFC 7143 13: "LO", the session-wide ones) are not sent; the
	 * caller copies the session's values into c->p after the login. */
	bool non_leading;
};

/* Negotiated operational values (RFC 7143 13). */
struct ir_params {
	uint32_t target_mrdsl; /* the most we may send in one PDU */
	uint32_t our_mrdsl;
	uint32_t max_burst, first_burst;
	bool initial_r2t, immediate_data;
	uint32_t max_outstanding_r2t;
	uint32_t erl;
	bool hdigest, ddigest;
};

struct ir_conn {
	int fd;
	const char *source;    /* numeric source address for ir_connect; NULL: any */
	int timeout_ms;	       /* default receive timeout */
	bool hdigest, ddigest; /* active now */
	bool full_feature;
	uint8_t isid[6];
	uint16_t tsih, cid;
	uint32_t itt_next;
	uint32_t cmdsn, expstatsn, exp_cmdsn, max_cmdsn;
	struct ir_params p;
	struct ir_decoder dec;
	uint8_t rbuf[65536];
	size_t rbuf_pos, rbuf_len;
	/* Last login outcome */
	uint8_t login_class, login_detail;
	uint32_t login_rsp_max_dsl; /* largest Login Response data segment seen */
	uint32_t login_rsp_pdus;
	char login_target_address[256]; /* TargetAddress of a redirection (class 1) */
	/* Counters of unsolicited traffic handled while waiting for a reply. */
	uint32_t nopin_answered, async_seen, rejects_seen;
	char err[256];		      /* last error, for reports */
	struct ir_text login_answers; /* every key=value the target sent in login */
};

/* Parses "host:port", "[v6]:port" or "host" (port 3260) into host/port. */
int ir_parse_addr(const char *addr, char *host, size_t host_size, char *port, size_t port_size);
void ir_conn_init(struct ir_conn *c);
/* TCP connect (IPv4 or IPv6) with TCP_NODELAY; timeout_ms bounds connect. */
int ir_connect(struct ir_conn *c, const char *host, const char *port, int timeout_ms);
void ir_close(struct ir_conn *c);
/* Half-close then close with RST (SO_LINGER 0) when rst. */
void ir_abort(struct ir_conn *c, bool rst);

int ir_send_raw(struct ir_conn *c, const void *buf, size_t len);
/* Sends p with the connection's active digests (sets the lengths). */
int ir_send_pdu(struct ir_conn *c, struct ir_pdu *p);
int ir_send_pdu_ex(struct ir_conn *c, struct ir_pdu *p, unsigned flags);
/* Receives one PDU (timeout_ms < 0: the connection's default). Returns 0,
 * -ETIMEDOUT, -ECONNRESET (peer closed or reset), -EBADMSG/-EILSEQ (digest
 * error), -EMSGSIZE, or another -errno. Updates ExpStatSN/ExpCmdSN/MaxCmdSN
 * from PDUs that carry them. */
int ir_recv_pdu(struct ir_conn *c, struct ir_pdu *p, int timeout_ms);
/* Waits until the peer closes the connection: 0 if it did within timeout_ms
 * (bytes received meanwhile are discarded and counted in *bytes if non-NULL),
 * -ETIMEDOUT if not. */
int ir_wait_closed(struct ir_conn *c, int timeout_ms, size_t *bytes);

uint32_t ir_next_itt(struct ir_conn *c);

/* Login. Returns 0 in full feature phase, -EACCES if the target answered a
 * non-zero status (c->login_class/detail), -EPERM if mutual CHAP did not
 * verify the target, -EPROTO on a protocol violation by the target, or
 * another -errno. */
int ir_login(struct ir_conn *c, const struct ir_login_opts *o);
/* Answer of the target to key in the last login (its value, NUL-terminated),
 * or -ENOENT. */
int ir_login_answer(const struct ir_conn *c, const char *key, char *val, size_t val_size);
/* Builds a Login Request BHS (no data) for hand-made logins. */
void ir_build_login_req(struct ir_conn *c, struct ir_pdu *p, int csg, int nsg, bool transit,
			bool cont);

/* ---- SCSI ---- */
enum ir_dir { IR_DIR_NONE, IR_DIR_READ, IR_DIR_WRITE };

struct ir_scsi_result {
	uint8_t response; /* iSCSI response code (11.4.3) */
	uint8_t status;	  /* SCSI status */
	uint8_t flags;	  /* o u O U bits */
	uint32_t residual;
	uint32_t data_in_len; /* bytes of Data-In received */
	uint8_t sense[252];
	uint32_t sense_len;
	bool rejected; /* the target answered with a Reject */
	uint8_t reject_reason;
};
/* Sense key / ASC / ASCQ from fixed or descriptor sense; false if none. */
bool ir_sense_parse(const struct ir_scsi_result *r, uint8_t *key, uint8_t *asc, uint8_t *ascq);

/* Per-command behaviour for ir_scsi_cmd_ex (defaults: all zero/false). */
struct ir_cmd_opts {
	bool no_immediate;	    /* send no immediate data even if negotiated */
	bool no_unsolicited;	    /* send no unsolicited Data-Out even if allowed */
	uint32_t edtl_override_set; /* non-zero: use edtl_override as EDTL */
	uint32_t edtl_override;
	uint8_t attr; /* task attribute, default SIMPLE */
};

/* One full SCSI command exchange on lun: sends the CDB with immediate and
 * unsolicited data as negotiated, answers R2Ts, collects Data-In into in
 * (in_len bytes at most; more is a target error -EPROTO), returns 0 when a
 * status arrived (check res->status), else -errno. */
int ir_scsi_cmd(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		enum ir_dir dir, const void *out, uint32_t out_len, void *in, uint32_t in_len,
		struct ir_scsi_result *res);
int ir_scsi_cmd_ex(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		   enum ir_dir dir, const void *out, uint32_t out_len, void *in, uint32_t in_len,
		   const struct ir_cmd_opts *opts, struct ir_scsi_result *res);
/* Encodes a flat-space LUN (SAM-5 4.7) into 8 bytes. */
void ir_lun_encode(uint64_t lun, uint8_t out[8]);

int ir_read16(struct ir_conn *c, uint64_t lun, uint64_t lba, uint32_t blocks, uint32_t bs,
	      void *buf, struct ir_scsi_result *res);
int ir_write16(struct ir_conn *c, uint64_t lun, uint64_t lba, uint32_t blocks, uint32_t bs,
	       const void *buf, bool fua, struct ir_scsi_result *res);
int ir_sync_cache16(struct ir_conn *c, uint64_t lun, struct ir_scsi_result *res);
int ir_read_capacity16(struct ir_conn *c, uint64_t lun, uint64_t *blocks, uint32_t *bs,
		       struct ir_scsi_result *res);
int ir_test_unit_ready(struct ir_conn *c, uint64_t lun, struct ir_scsi_result *res);

/* NOP-Out ping with data; waits for the NOP-In echo and checks it. */
int ir_nop_ping(struct ir_conn *c, const void *data, uint32_t len);
/* Answers a target NOP-In that asks for a reply (TTT != 0xffffffff, RFC
 * 7143 11.19.3) with a NOP-Out carrying its TTT and LUN; counted in
 * c->nopin_answered. 0 for a NOP-In that asks for none. */
int ir_answer_nopin(struct ir_conn *c, const struct ir_pdu *in);
/* Logout (reason 0 close session); *response gets the Logout response code. */
int ir_logout(struct ir_conn *c, uint8_t *response);
/* Logout with a reason (11.14.1) and the CID it names (reason 1: this or
 * another connection of the session). */
int ir_logout_ex(struct ir_conn *c, int reason, uint16_t cid, uint8_t *response);
/* TMF; *response gets the TMF response code (11.6.1). */
int ir_tmf(struct ir_conn *c, int function, uint64_t lun, uint32_t ref_itt, uint32_t ref_cmdsn,
	   uint8_t *response);
/* ir_tmf() that also returns the Additional Response Information (RFC 7144
 * 4.3) when add_info is not NULL. */
int ir_tmf_ex(struct ir_conn *c, int function, uint64_t lun, uint32_t ref_itt, uint32_t ref_cmdsn,
	      uint8_t *response, uint8_t add_info[3]);
/* Sends a SCSI Command PDU with no data and returns without waiting
 * (*itt: its ITT); its response is for the caller to receive. */
int ir_scsi_send(struct ir_conn *c, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		 enum ir_dir dir, uint32_t edtl, uint32_t *itt);
/* One Data-Out sequence (11.7): len bytes of buf from offset off, DataSN
 * from 0, the F bit on the last PDU, for an R2T's TTT (or IR_RSVD_TAG:
 * unsolicited). PDUs carry at most the target's MaxRecvDataSegmentLength,
 * and at most max_seg bytes when it is not 0. send, when not NULL, sends
 * each PDU instead of ir_send_pdu (a test tool's hook, e.g. to damage one). */
int ir_send_data_out(struct ir_conn *c, const uint8_t lun[8], uint32_t itt, uint32_t ttt,
		     const uint8_t *buf, uint32_t off, uint32_t len, uint32_t max_seg,
		     int (*send)(void *arg, struct ir_pdu *p), void *arg);
/* Copies a Data-In's data into buf, a read of len bytes, at its
 * BufferOffset and adds its length to *got: 0, or -EPROTO (nothing copied)
 * when it does not fall inside the buffer. */
int ir_datain_take(const struct ir_pdu *p, void *buf, uint32_t len, uint32_t *got);
/* Text request exchange (follows continuation with C bit / TTT); *rsp gets
 * a malloc'd buffer of all response key data. */
int ir_text_exchange(struct ir_conn *c, const uint8_t *req, size_t req_len, uint8_t **rsp,
		     size_t *rsp_len);
/* SendTargets=All; *rsp as above. */
int ir_sendtargets(struct ir_conn *c, uint8_t **rsp, size_t *rsp_len);

/* ---- what the test tools share (iscsi_raw_tool.c) ---- */

/* The tools' command line: options, then HOST:PORT TARGET INITIATOR. */
enum ir_opt_type {
	IR_OPT_UINT, /* unsigned, decimal (as atoi) */
	IR_OPT_U32,  /* uint32_t, C notation (strtoul base 0: 0x... too) */
	IR_OPT_U64,  /* uint64_t, C notation */
	IR_OPT_FLAG, /* bool, set when the option is given */
	IR_OPT_STR,  /* const char *, the argument itself */
};
struct ir_opt {
	char name; /* the option letter */
	enum ir_opt_type type;
	void *val; /* where its value goes, of the type's C type */
};
struct ir_tool_args {
	char host[256], port[16];
	const char *target, *iname;
};
/* getopt over argv with the options of opts (n of them), each value stored
 * where its entry says; then exactly three operands, HOST:PORT (as
 * ir_parse_addr), TARGET and INITIATOR, into a. 0, or -EINVAL for an
 * unknown option, a missing argument or operands that do not fit: the
 * caller prints its usage. */
int ir_tool_getopt(int argc, char **argv, const struct ir_opt *opts, size_t n,
		   struct ir_tool_args *a);
/* The three operands alone, from argv[first] on (a tool with its own getopt
 * loop): 0 or -EINVAL. */
int ir_tool_operands(int argc, char **argv, int first, struct ir_tool_args *a);

/* CLOCK_MONOTONIC in microseconds. */
int64_t ir_now_us(void);
/* Prints "ready" and waits until the file path exists (60 s at most): the
 * tools' -H, where an integration test reads the target's counters while
 * the session is still up and then creates path. */
void ir_hold(const char *path);

/* A session of one or more connections (MC/S, RFC 7143): what its
 * leading login settled, which every further login of it uses. Zero: no
 * leading login yet. */
struct ir_session {
	uint16_t tsih;
	uint8_t isid[6];
	struct ir_params p; /* the leading connection's */
	uint32_t cmdsn;	    /* the session's next CmdSN (a Login carries it, 11.12.8) */
};
/* The login of c with o on a new TCP connection to host:port: the leading
 * login of s while s has no TSIH, else a further connection of s (o's TSIH,
 * ISID and non_leading set from s). c was set up by the caller
 * (ir_conn_init, then e.g. its itt_next). On success s or c is updated as
 * ir_session_join says. 0 or -errno as ir_login. */
int ir_session_login(struct ir_session *s, struct ir_conn *c, const char *host, const char *port,
		     struct ir_login_opts *o);
/* After c's login: a leading login gives s its TSIH, ISID, values and
 * CmdSN; a further connection takes the session-wide values of s (the
 * leading-only keys it did not negotiate, RFC 7143 13) and keeps its own
 * connection-only ones (MaxRecvDataSegmentLength both ways, the digests). */
void ir_session_join(struct ir_session *s, struct ir_conn *c);

/* Serial number arithmetic, RFC 1982 (32 bit) as RFC 7143 3.2.2.1 uses. */
static inline bool ir_sn_lt(uint32_t a, uint32_t b)
{
	return a != b && (int32_t)(a - b) < 0;
}

#endif
