/* SPDX-License-Identifier: GPL-2.0-or-later */
/* param.h: iSCSI text key negotiation (RFC 7143 6.2 and section 13) from one
 * typed table.
 *
 * Every key the target knows is one row of iscsi_key_table[]: its name, kind
 * (Boolean AND/OR, numerical minimum/maximum, declarative number, list,
 * declarative choice or string, target-only, Text-only, obsolete), default
 * and range, scope (session/connection), use (leading only, login only,
 * allowed in full feature phase, allowed in the security stage, irrelevant in
 * discovery sessions), who may send it, its value length limit, and the field
 * of struct iscsi_params that holds its value.
 *
 * Values are parsed once into three struct iscsi_params: mine (what the
 * target offers/accepts, from the settings), peer (what the initiator
 * proposed or declared) and active (the negotiated outcome). The text is
 * never kept. */
#ifndef UT_ISCSI_PARAM_H
#define UT_ISCSI_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/iscsi/keys.h"

struct iscsi_settings;

#define ISCSI_NAME_MAX	223u /* RFC 7143 4.2.7.1: iSCSI names, bytes */
#define ISCSI_ALIAS_MAX 255u /* RFC 7143 13.6, 13.7 */

enum iscsi_key_id {
	ISCSI_KEY_HEADER_DIGEST,
	ISCSI_KEY_DATA_DIGEST,
	ISCSI_KEY_MAX_CONNECTIONS,
	ISCSI_KEY_SEND_TARGETS,
	ISCSI_KEY_TARGET_NAME,
	ISCSI_KEY_INITIATOR_NAME,
	ISCSI_KEY_TARGET_ALIAS,
	ISCSI_KEY_INITIATOR_ALIAS,
	ISCSI_KEY_TARGET_ADDRESS,
	ISCSI_KEY_TARGET_PORTAL_GROUP_TAG,
	ISCSI_KEY_INITIAL_R2T,
	ISCSI_KEY_IMMEDIATE_DATA,
	ISCSI_KEY_MAX_RECV_DSL,
	ISCSI_KEY_MAX_BURST_LENGTH,
	ISCSI_KEY_FIRST_BURST_LENGTH,
	ISCSI_KEY_DEFAULT_TIME2WAIT,
	ISCSI_KEY_DEFAULT_TIME2RETAIN,
	ISCSI_KEY_MAX_OUTSTANDING_R2T,
	ISCSI_KEY_DATA_PDU_IN_ORDER,
	ISCSI_KEY_DATA_SEQUENCE_IN_ORDER,
	ISCSI_KEY_ERROR_RECOVERY_LEVEL,
	ISCSI_KEY_SESSION_TYPE,
	ISCSI_KEY_AUTH_METHOD,
	ISCSI_KEY_OF_MARKER,
	ISCSI_KEY_IF_MARKER,
	ISCSI_KEY_OF_MARK_INT,
	ISCSI_KEY_IF_MARK_INT,
	ISCSI_KEY_TASK_REPORTING,
	ISCSI_KEY_PROTOCOL_LEVEL,
	ISCSI_KEY_COUNT,
	ISCSI_KEY_UNKNOWN = ISCSI_KEY_COUNT,
};

enum iscsi_key_kind {
	ISCSI_KT_BOOL_AND,  /* result = mine AND offer (RFC 7143 6.2.2) */
	ISCSI_KT_BOOL_OR,   /* result = mine OR offer */
	ISCSI_KT_NUM_MIN,   /* result = min(mine, offer) */
	ISCSI_KT_NUM_MAX,   /* result = max(mine, offer) */
	ISCSI_KT_NUM_DECL,  /* declarative number: each side declares its own */
	ISCSI_KT_LIST,	    /* responder picks the first acceptable value of the offer */
	ISCSI_KT_CHOICE,    /* declarative choice from a vocabulary (SessionType) */
	ISCSI_KT_NAME,	    /* declarative string (names, aliases) */
	ISCSI_KT_TARGET,    /* sent by the target only */
	ISCSI_KT_TEXT,	    /* SendTargets: a Text request, answered by text.c */
	ISCSI_KT_OBS_BOOL,  /* OFMarker/IFMarker: removed by RFC 7143, answer No */
	ISCSI_KT_OBS_VALUE, /* OFMarkInt/IFMarkInt: removed, answer Irrelevant */
};

enum iscsi_key_scope {
	ISCSI_SCOPE_SESSION,
	ISCSI_SCOPE_CONNECTION,
};

/* use flags */
enum {
	ISCSI_KU_LO = 1u << 0,		 /* leading connection only */
	ISCSI_KU_IO = 1u << 1,		 /* login only (initialize only) */
	ISCSI_KU_FFP = 1u << 2,		 /* may appear in a full feature phase Text request */
	ISCSI_KU_SECURITY = 1u << 3,	 /* may appear in the security stage ("any stage") */
	ISCSI_KU_NO_DISCOVERY = 1u << 4, /* Irrelevant when SessionType=Discovery */
};

/* senders */
enum {
	ISCSI_KS_INITIATOR = 1u << 0,
	ISCSI_KS_TARGET = 1u << 1,
};

enum iscsi_digest_type {
	ISCSI_DIGEST_NONE = 0,
	ISCSI_DIGEST_CRC32C = 1,
};
enum iscsi_session_type {
	ISCSI_SESSION_NORMAL = 0,
	ISCSI_SESSION_DISCOVERY = 1,
};
enum iscsi_auth_method {
	ISCSI_AUTH_NONE = 0,
	ISCSI_AUTH_CHAP,
	ISCSI_AUTH_KRB5,
	ISCSI_AUTH_SPKM1,
	ISCSI_AUTH_SPKM2,
	ISCSI_AUTH_SRP,
	ISCSI_AUTH_COUNT,
};
enum iscsi_task_reporting {
	ISCSI_TASKREP_RFC3720 = 0,
	ISCSI_TASKREP_RESPONSE_FENCE,
	ISCSI_TASKREP_FAST_ABORT,
};

/* The typed values of every negotiable key. */
struct iscsi_params {
	uint8_t header_digest; /* enum iscsi_digest_type */
	uint8_t data_digest;
	uint16_t max_connections;
	bool initial_r2t;
	bool immediate_data;
	uint32_t max_recv_dsl; /* the declaring side's receive limit */
	uint32_t max_burst_length;
	uint32_t first_burst_length;
	uint16_t default_time2wait;
	uint16_t default_time2retain;
	uint16_t max_outstanding_r2t;
	bool data_pdu_in_order;
	bool data_sequence_in_order;
	uint8_t error_recovery_level;
	uint8_t session_type;	/* enum iscsi_session_type */
	uint8_t auth_method;	/* enum iscsi_auth_method */
	uint8_t task_reporting; /* enum iscsi_task_reporting */
	uint8_t protocol_level;
};

struct iscsi_key_desc {
	const char *name;
	uint8_t kind;	 /* enum iscsi_key_kind */
	uint8_t scope;	 /* enum iscsi_key_scope */
	uint8_t use;	 /* ISCSI_KU_* */
	uint8_t senders; /* ISCSI_KS_* */
	uint32_t def;	 /* RFC default (numbers, booleans, vocabulary index) */
	uint32_t min;
	uint32_t max;
	uint16_t val_max;	  /* longest value accepted, bytes */
	uint16_t off;		  /* field in struct iscsi_params */
	uint8_t width;		  /* 0: no field; 1, 2 or 4 bytes */
	const char *const *vocab; /* LIST / CHOICE values; index = stored value */
	uint8_t nvocab;
};

extern const struct iscsi_key_desc iscsi_key_table[ISCSI_KEY_COUNT];

/* ISCSI_KEY_UNKNOWN when the name is not in the table. */
enum iscsi_key_id iscsi_key_lookup(const uint8_t *name, size_t len);
uint32_t iscsi_param_get(const struct iscsi_params *p, enum iscsi_key_id k);
void iscsi_param_set(struct iscsi_params *p, enum iscsi_key_id k, uint32_t v);
/* Every field at its RFC 7143 default. */
void iscsi_params_default(struct iscsi_params *p);

enum iscsi_neg_stage {
	ISCSI_NEG_SECURITY,
	ISCSI_NEG_OPERATIONAL,
	ISCSI_NEG_FFP, /* Text request in full feature phase */
};

enum iscsi_neg_result {
	ISCSI_NEG_OK = 0,
	ISCSI_NEG_EDUP,	     /* a key twice in one request (RFC 7143 6.2) */
	ISCSI_NEG_ERENEG,    /* a key declared again with another value */
	ISCSI_NEG_EVALLEN,   /* value longer than the key allows */
	ISCSI_NEG_ETOOMANY,  /* more keys than the negotiation bound */
	ISCSI_NEG_ESTAGE,    /* a key not allowed in this stage (AuthMethod late) */
	ISCSI_NEG_EAUTH,     /* no acceptable AuthMethod offered */
	ISCSI_NEG_ESESSTYPE, /* SessionType not Normal/Discovery */
	ISCSI_NEG_ENAME,     /* a malformed iSCSI name */
	ISCSI_NEG_EDIGEST,   /* a digest the target requires not offered */
};
const char *iscsi_neg_strerror(enum iscsi_neg_result r);

/* Bytes of key values one login may declare in all (far more than any
 * initiator sends: names, an alias and short numbers). */
#define ISCSI_NEG_VALS_MAX 4096u

/* State of one negotiation (a login phase, or one FFP Text exchange). */
struct iscsi_neg {
	struct iscsi_params mine;
	struct iscsi_params peer;
	struct iscsi_params active;
	uint32_t auth_allowed; /* bit per enum iscsi_auth_method the target accepts */
	uint32_t required;     /* enum iscsi_require: digests that must be CRC32C */
	uint32_t seen;	       /* keys received (or frozen) so far */
	uint32_t cur;	       /* keys received in the current request */
	uint32_t declared;     /* our declarations sent (MaxRecvDataSegmentLength) */
	uint32_t answers;      /* keys answered (for callers that must add more) */
	uint8_t err_key;       /* enum iscsi_key_id of a failed request's culprit */
	/* RFC 7143 6.2: the first value received for each key in `seen`, so
	 * that a key declared again is compared byte for byte */
	uint16_t voff[ISCSI_KEY_COUNT];
	uint16_t vlen[ISCSI_KEY_COUNT];
	uint16_t vused;
	uint8_t vals[ISCSI_NEG_VALS_MAX];
	bool send_targets; /* SendTargets present in the request (Text) */
	uint8_t st_len;	   /* its value, for text.c */
	uint8_t st_val[ISCSI_NAME_MAX + 1];
	bool st_too_long;
	char initiator_name[ISCSI_NAME_MAX + 1];
	char target_name[ISCSI_NAME_MAX + 1];
	char initiator_alias[ISCSI_ALIAS_MAX + 1];
};

/* mine from the settings, peer and active at the RFC defaults. */
void iscsi_neg_init(struct iscsi_neg *n, const struct iscsi_settings *s);
/* Negotiate the keys of one request (its C-bit PDUs joined) and append the
 * answers to out in request order: key=<result>, key=Reject (invalid value),
 * key=Irrelevant, key=NotUnderstood (unknown and X-/X# keys). Declarative
 * keys get no answer. A result other than ISCSI_NEG_OK fails the login (or
 * the Text exchange); out then holds whatever answers were made. */
enum iscsi_neg_result iscsi_neg_request(struct iscsi_neg *n, enum iscsi_neg_stage st,
					const struct iscsi_kv *kv, unsigned nkv,
					struct iscsi_kbuf *out);
/* Fix key k as if it had been received with the value v[0..len) (or check
 * it against the value it was received with): a later request declaring it
 * with any other value fails with ISCSI_NEG_ERENEG. The login freezes the
 * identity keys this way once it has resolved them (InitiatorName,
 * TargetName, SessionType: absent ones as their default). OK or
 * ISCSI_NEG_ERENEG / ISCSI_NEG_ETOOMANY. */
enum iscsi_neg_result iscsi_neg_freeze(struct iscsi_neg *n, enum iscsi_key_id k, const void *v,
				       size_t len);
/* Add the target's declarations not yet sent in this login
 * (MaxRecvDataSegmentLength). Call in the operational stage. */
void iscsi_neg_declare(struct iscsi_neg *n, struct iscsi_kbuf *out);

#endif
