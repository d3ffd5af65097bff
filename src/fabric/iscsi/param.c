/* SPDX-License-Identifier: GPL-2.0-or-later */
/* param.c: the negotiation table and its merge rules (RFC 7143 6.2, 13). */
#include <string.h>

#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/param.h"
#include "lib/compiler.h"
#include "lib/iname.h"

#define FIELD(f)                                                                                   \
	.off = offsetof(struct iscsi_params, f), .width = sizeof(((struct iscsi_params *)0)->f)

static const char *const yes_no[] = {"No", "Yes"};
static const char *const digests[] = {
    [ISCSI_DIGEST_NONE] = "None",
    [ISCSI_DIGEST_CRC32C] = "CRC32C",
};
static const char *const session_types[] = {
    [ISCSI_SESSION_NORMAL] = "Normal",
    [ISCSI_SESSION_DISCOVERY] = "Discovery",
};
static const char *const auth_methods[] = {
    [ISCSI_AUTH_NONE] = "None",	  [ISCSI_AUTH_CHAP] = "CHAP",	[ISCSI_AUTH_KRB5] = "KRB5",
    [ISCSI_AUTH_SPKM1] = "SPKM1", [ISCSI_AUTH_SPKM2] = "SPKM2", [ISCSI_AUTH_SRP] = "SRP",
};
static const char *const task_reportings[] = {
    [ISCSI_TASKREP_RFC3720] = "RFC3720",
    [ISCSI_TASKREP_RESPONSE_FENCE] = "ResponseFence",
    [ISCSI_TASKREP_FAST_ABORT] = "FastAbort",
};

#define DSL_MIN 512u
#define DSL_MAX 16777215u

const struct iscsi_key_desc iscsi_key_table[ISCSI_KEY_COUNT] = {
    /* 13.1 */
    [ISCSI_KEY_HEADER_DIGEST] = {.name = "HeaderDigest",
				 .kind = ISCSI_KT_LIST,
				 .scope = ISCSI_SCOPE_CONNECTION,
				 .use = ISCSI_KU_IO,
				 .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				 .def = ISCSI_DIGEST_NONE,
				 .val_max = 255,
				 FIELD(header_digest),
				 .vocab = digests,
				 .nvocab = 2},
    [ISCSI_KEY_DATA_DIGEST] = {.name = "DataDigest",
			       .kind = ISCSI_KT_LIST,
			       .scope = ISCSI_SCOPE_CONNECTION,
			       .use = ISCSI_KU_IO,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .def = ISCSI_DIGEST_NONE,
			       .val_max = 255,
			       FIELD(data_digest),
			       .vocab = digests,
			       .nvocab = 2},
    /* 13.2 */
    [ISCSI_KEY_MAX_CONNECTIONS] = {.name = "MaxConnections",
				   .kind = ISCSI_KT_NUM_MIN,
				   .scope = ISCSI_SCOPE_SESSION,
				   .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				   .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				   .def = 1,
				   .min = 1,
				   .max = 65535,
				   .val_max = 255,
				   FIELD(max_connections)},
    /* 13.3: answered by text.c */
    [ISCSI_KEY_SEND_TARGETS] = {.name = "SendTargets",
				.kind = ISCSI_KT_TEXT,
				.scope = ISCSI_SCOPE_SESSION,
				.use = ISCSI_KU_FFP,
				.senders = ISCSI_KS_INITIATOR,
				.val_max = 255},
    /* 13.4 */
    [ISCSI_KEY_TARGET_NAME] = {.name = "TargetName",
			       .kind = ISCSI_KT_NAME,
			       .scope = ISCSI_SCOPE_SESSION,
			       .use = ISCSI_KU_IO | ISCSI_KU_SECURITY,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .val_max = ISCSI_NAME_MAX},
    /* 13.5 */
    [ISCSI_KEY_INITIATOR_NAME] = {.name = "InitiatorName",
				  .kind = ISCSI_KT_NAME,
				  .scope = ISCSI_SCOPE_SESSION,
				  .use = ISCSI_KU_IO | ISCSI_KU_SECURITY,
				  .senders = ISCSI_KS_INITIATOR,
				  .val_max = ISCSI_NAME_MAX},
    /* 13.6 */
    [ISCSI_KEY_TARGET_ALIAS] = {.name = "TargetAlias",
				.kind = ISCSI_KT_TARGET,
				.scope = ISCSI_SCOPE_SESSION,
				.use = ISCSI_KU_FFP | ISCSI_KU_SECURITY,
				.senders = ISCSI_KS_TARGET,
				.val_max = ISCSI_ALIAS_MAX},
    /* 13.7 */
    [ISCSI_KEY_INITIATOR_ALIAS] = {.name = "InitiatorAlias",
				   .kind = ISCSI_KT_NAME,
				   .scope = ISCSI_SCOPE_SESSION,
				   .use = ISCSI_KU_FFP | ISCSI_KU_SECURITY,
				   .senders = ISCSI_KS_INITIATOR,
				   .val_max = ISCSI_ALIAS_MAX},
    /* 13.8 */
    [ISCSI_KEY_TARGET_ADDRESS] = {.name = "TargetAddress",
				  .kind = ISCSI_KT_TARGET,
				  .scope = ISCSI_SCOPE_SESSION,
				  .use = ISCSI_KU_FFP | ISCSI_KU_SECURITY,
				  .senders = ISCSI_KS_TARGET,
				  .val_max = 255},
    /* 13.9 */
    [ISCSI_KEY_TARGET_PORTAL_GROUP_TAG] = {.name = "TargetPortalGroupTag",
					   .kind = ISCSI_KT_TARGET,
					   .scope = ISCSI_SCOPE_SESSION,
					   .use = ISCSI_KU_IO | ISCSI_KU_SECURITY,
					   .senders = ISCSI_KS_TARGET,
					   .min = 0,
					   .max = 65535,
					   .val_max = 255},
    /* 13.10 */
    [ISCSI_KEY_INITIAL_R2T] = {.name = "InitialR2T",
			       .kind = ISCSI_KT_BOOL_OR,
			       .scope = ISCSI_SCOPE_SESSION,
			       .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .def = 1,
			       .max = 1,
			       .val_max = 255,
			       FIELD(initial_r2t),
			       .vocab = yes_no,
			       .nvocab = 2},
    /* 13.11 */
    [ISCSI_KEY_IMMEDIATE_DATA] = {.name = "ImmediateData",
				  .kind = ISCSI_KT_BOOL_AND,
				  .scope = ISCSI_SCOPE_SESSION,
				  .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				  .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				  .def = 1,
				  .max = 1,
				  .val_max = 255,
				  FIELD(immediate_data),
				  .vocab = yes_no,
				  .nvocab = 2},
    /* 13.12: declarative, per direction; may change in FFP (ALL) */
    [ISCSI_KEY_MAX_RECV_DSL] = {.name = "MaxRecvDataSegmentLength",
				.kind = ISCSI_KT_NUM_DECL,
				.scope = ISCSI_SCOPE_CONNECTION,
				.use = ISCSI_KU_FFP,
				.senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				.def = 8192,
				.min = DSL_MIN,
				.max = DSL_MAX,
				.val_max = 255,
				FIELD(max_recv_dsl)},
    /* 13.13 */
    [ISCSI_KEY_MAX_BURST_LENGTH] = {.name = "MaxBurstLength",
				    .kind = ISCSI_KT_NUM_MIN,
				    .scope = ISCSI_SCOPE_SESSION,
				    .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				    .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				    .def = 262144,
				    .min = DSL_MIN,
				    .max = DSL_MAX,
				    .val_max = 255,
				    FIELD(max_burst_length)},
    /* 13.14 */
    [ISCSI_KEY_FIRST_BURST_LENGTH] = {.name = "FirstBurstLength",
				      .kind = ISCSI_KT_NUM_MIN,
				      .scope = ISCSI_SCOPE_SESSION,
				      .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				      .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				      .def = 65536,
				      .min = DSL_MIN,
				      .max = DSL_MAX,
				      .val_max = 255,
				      FIELD(first_burst_length)},
    /* 13.15 */
    [ISCSI_KEY_DEFAULT_TIME2WAIT] = {.name = "DefaultTime2Wait",
				     .kind = ISCSI_KT_NUM_MAX,
				     .scope = ISCSI_SCOPE_SESSION,
				     .use = ISCSI_KU_LO | ISCSI_KU_IO,
				     .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				     .def = 2,
				     .min = 0,
				     .max = 3600,
				     .val_max = 255,
				     FIELD(default_time2wait)},
    /* 13.16 */
    [ISCSI_KEY_DEFAULT_TIME2RETAIN] = {.name = "DefaultTime2Retain",
				       .kind = ISCSI_KT_NUM_MIN,
				       .scope = ISCSI_SCOPE_SESSION,
				       .use = ISCSI_KU_LO | ISCSI_KU_IO,
				       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				       .def = 20,
				       .min = 0,
				       .max = 3600,
				       .val_max = 255,
				       FIELD(default_time2retain)},
    /* 13.17 */
    [ISCSI_KEY_MAX_OUTSTANDING_R2T] = {.name = "MaxOutstandingR2T",
				       .kind = ISCSI_KT_NUM_MIN,
				       .scope = ISCSI_SCOPE_SESSION,
				       .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				       .def = 1,
				       .min = 1,
				       .max = 65535,
				       .val_max = 255,
				       FIELD(max_outstanding_r2t)},
    /* 13.18 */
    [ISCSI_KEY_DATA_PDU_IN_ORDER] = {.name = "DataPDUInOrder",
				     .kind = ISCSI_KT_BOOL_OR,
				     .scope = ISCSI_SCOPE_SESSION,
				     .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
				     .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				     .def = 1,
				     .max = 1,
				     .val_max = 255,
				     FIELD(data_pdu_in_order),
				     .vocab = yes_no,
				     .nvocab = 2},
    /* 13.19 */
    [ISCSI_KEY_DATA_SEQUENCE_IN_ORDER] = {.name = "DataSequenceInOrder",
					  .kind = ISCSI_KT_BOOL_OR,
					  .scope = ISCSI_SCOPE_SESSION,
					  .use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_NO_DISCOVERY,
					  .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
					  .def = 1,
					  .max = 1,
					  .val_max = 255,
					  FIELD(data_sequence_in_order),
					  .vocab = yes_no,
					  .nvocab = 2},
    /* 13.20 */
    [ISCSI_KEY_ERROR_RECOVERY_LEVEL] = {.name = "ErrorRecoveryLevel",
					.kind = ISCSI_KT_NUM_MIN,
					.scope = ISCSI_SCOPE_SESSION,
					.use = ISCSI_KU_LO | ISCSI_KU_IO,
					.senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
					.def = 0,
					.min = 0,
					.max = 2,
					.val_max = 255,
					FIELD(error_recovery_level)},
    /* 13.21 */
    [ISCSI_KEY_SESSION_TYPE] = {.name = "SessionType",
				.kind = ISCSI_KT_CHOICE,
				.scope = ISCSI_SCOPE_SESSION,
				.use = ISCSI_KU_LO | ISCSI_KU_IO | ISCSI_KU_SECURITY,
				.senders = ISCSI_KS_INITIATOR,
				.def = ISCSI_SESSION_NORMAL,
				.val_max = 255,
				FIELD(session_type),
				.vocab = session_types,
				.nvocab = 2},
    /* 12.1: security stage only */
    [ISCSI_KEY_AUTH_METHOD] = {.name = "AuthMethod",
			       .kind = ISCSI_KT_LIST,
			       .scope = ISCSI_SCOPE_CONNECTION,
			       .use = ISCSI_KU_IO | ISCSI_KU_SECURITY,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .def = ISCSI_AUTH_NONE,
			       .val_max = 255,
			       FIELD(auth_method),
			       .vocab = auth_methods,
			       .nvocab = ISCSI_AUTH_COUNT},
    /* 13.26: markers were removed by RFC 7143; OFMarker/IFMarker are
     * answered No, OFMarkInt/IFMarkInt Irrelevant. */
    [ISCSI_KEY_OF_MARKER] = {.name = "OFMarker",
			     .kind = ISCSI_KT_OBS_BOOL,
			     .scope = ISCSI_SCOPE_CONNECTION,
			     .use = ISCSI_KU_IO,
			     .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			     .val_max = 255},
    [ISCSI_KEY_IF_MARKER] = {.name = "IFMarker",
			     .kind = ISCSI_KT_OBS_BOOL,
			     .scope = ISCSI_SCOPE_CONNECTION,
			     .use = ISCSI_KU_IO,
			     .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			     .val_max = 255},
    [ISCSI_KEY_OF_MARK_INT] = {.name = "OFMarkInt",
			       .kind = ISCSI_KT_OBS_VALUE,
			       .scope = ISCSI_SCOPE_CONNECTION,
			       .use = ISCSI_KU_IO,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .val_max = 255},
    [ISCSI_KEY_IF_MARK_INT] = {.name = "IFMarkInt",
			       .kind = ISCSI_KT_OBS_VALUE,
			       .scope = ISCSI_SCOPE_CONNECTION,
			       .use = ISCSI_KU_IO,
			       .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
			       .val_max = 255},
    /* 13.23 */
    [ISCSI_KEY_TASK_REPORTING] = {.name = "TaskReporting",
				  .kind = ISCSI_KT_LIST,
				  .scope = ISCSI_SCOPE_SESSION,
				  .use = ISCSI_KU_LO | ISCSI_KU_IO,
				  .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				  .def = ISCSI_TASKREP_RFC3720,
				  .val_max = 255,
				  FIELD(task_reporting),
				  .vocab = task_reportings,
				  .nvocab = 3},
    /* 13.24 (RFC 7144 2.1) */
    [ISCSI_KEY_PROTOCOL_LEVEL] = {.name = "iSCSIProtocolLevel",
				  .kind = ISCSI_KT_NUM_MIN,
				  .scope = ISCSI_SCOPE_SESSION,
				  .use = ISCSI_KU_LO | ISCSI_KU_IO,
				  .senders = ISCSI_KS_INITIATOR | ISCSI_KS_TARGET,
				  .def = 1,
				  .min = 0,
				  .max = 31,
				  .val_max = 255,
				  FIELD(protocol_level)},
};

enum iscsi_key_id iscsi_key_lookup(const uint8_t *name, size_t len)
{
	for (unsigned i = 0; i < ISCSI_KEY_COUNT; i++) {
		const char *n = iscsi_key_table[i].name;

		/* key names are case sensitive (RFC 7143 6.1) */
		if (strlen(n) == len && memcmp(n, name, len) == 0)
			return (enum iscsi_key_id)i;
	}
	return ISCSI_KEY_UNKNOWN;
}

uint32_t iscsi_param_get(const struct iscsi_params *p, enum iscsi_key_id k)
{
	const struct iscsi_key_desc *d = &iscsi_key_table[k];
	const uint8_t *f = (const uint8_t *)p + d->off;
	uint16_t v16;
	uint32_t v32;

	switch (d->width) {
	case 1:
		return *f;
	case 2:
		memcpy(&v16, f, 2);
		return v16;
	case 4:
		memcpy(&v32, f, 4);
		return v32;
	default:
		return 0;
	}
}

void iscsi_param_set(struct iscsi_params *p, enum iscsi_key_id k, uint32_t v)
{
	const struct iscsi_key_desc *d = &iscsi_key_table[k];
	uint8_t *f = (uint8_t *)p + d->off;
	uint16_t v16 = (uint16_t)v;

	switch (d->width) {
	case 1:
		/* bool fields hold 0/1 */
		*f = (uint8_t)v;
		break;
	case 2:
		memcpy(f, &v16, 2);
		break;
	case 4:
		memcpy(f, &v, 4);
		break;
	default:
		break;
	}
}

void iscsi_params_default(struct iscsi_params *p)
{
	memset(p, 0, sizeof(*p));
	for (unsigned k = 0; k < ISCSI_KEY_COUNT; k++)
		if (iscsi_key_table[k].width)
			iscsi_param_set(p, (enum iscsi_key_id)k, iscsi_key_table[k].def);
}

const char *iscsi_neg_strerror(enum iscsi_neg_result r)
{
	static const char *const msg[] = {
	    [ISCSI_NEG_OK] = "ok",
	    [ISCSI_NEG_EDUP] = "key sent twice",
	    [ISCSI_NEG_ERENEG] = "key renegotiated with another value",
	    [ISCSI_NEG_EVALLEN] = "value too long",
	    [ISCSI_NEG_ETOOMANY] = "too many keys",
	    [ISCSI_NEG_ESTAGE] = "key not allowed in this stage",
	    [ISCSI_NEG_EAUTH] = "no acceptable AuthMethod",
	    [ISCSI_NEG_ESESSTYPE] = "invalid SessionType",
	    [ISCSI_NEG_ENAME] = "invalid iSCSI name",
	    [ISCSI_NEG_EDIGEST] = "a digest the target requires was not offered",
	};

	if ((unsigned)r < ARRAY_SIZE(msg) && msg[r])
		return msg[r];
	return "?";
}

void iscsi_neg_init(struct iscsi_neg *n, const struct iscsi_settings *s)
{
	memset(n, 0, sizeof(*n));
	iscsi_params_default(&n->peer);
	iscsi_params_default(&n->active);
	iscsi_params_default(&n->mine);
	n->mine.header_digest = s->header_digest ? ISCSI_DIGEST_CRC32C : ISCSI_DIGEST_NONE;
	n->mine.data_digest = s->data_digest ? ISCSI_DIGEST_CRC32C : ISCSI_DIGEST_NONE;
	n->mine.max_connections = s->max_connections ? s->max_connections : 1;
	n->mine.initial_r2t = s->initial_r2t;
	n->mine.immediate_data = s->immediate_data;
	n->mine.max_recv_dsl = UT_MAX(DSL_MIN, UT_MIN(DSL_MAX, s->max_recv_data_segment_length));
	n->mine.max_burst_length = UT_MAX(DSL_MIN, UT_MIN(DSL_MAX, s->max_burst_length));
	n->mine.first_burst_length = UT_MAX(DSL_MIN, UT_MIN(DSL_MAX, s->first_burst_length));
	n->mine.default_time2wait = (uint16_t)UT_MIN(3600u, s->default_time2wait);
	n->mine.default_time2retain = (uint16_t)UT_MIN(3600u, s->default_time2retain);
	n->mine.max_outstanding_r2t = s->max_outstanding_r2t ? s->max_outstanding_r2t : 1;
	/* We deliver Data-Out in order only; ERL 0 unless configured (ERL 1:
	 * erl.c, snack.c, retain.c; ERL 2: erl2.c), never above the setting. */
	n->mine.data_pdu_in_order = true;
	n->mine.data_sequence_in_order = true;
	n->mine.error_recovery_level = (uint8_t)UT_MIN(2u, s->error_recovery_level);
	/* RFC 7144: the SAM-4/5 task management functions (QUERY TASK, ...) */
	n->mine.protocol_level = 2;
	n->auth_allowed = 1u << ISCSI_AUTH_NONE;
}

/* What the target answers to one key. */
enum answer {
	ANS_NONE,	   /* declarative: nothing */
	ANS_VALUE,	   /* key=<active value> */
	ANS_REJECT,	   /* key=Reject */
	ANS_IRRELEVANT,	   /* key=Irrelevant */
	ANS_NOTUNDERSTOOD, /* key=NotUnderstood */
	ANS_NO,		   /* key=No (obsolete markers) */
};

/* Pick the first item of the comma-separated offer that is in the
 * vocabulary and allowed; -1 when none. An empty item makes the whole list
 * malformed (RFC 7143 6.1: list-of-values). */
static int list_pick(const struct iscsi_key_desc *d, const uint8_t *v, size_t len, uint32_t allowed,
		     bool *malformed)
{
	int pick = -1;
	size_t s = 0;

	*malformed = false;
	for (;;) {
		const uint8_t *comma = memchr(v + s, ',', len - s);
		size_t e = comma ? (size_t)(comma - v) : len;

		if (e == s)
			*malformed = true;
		for (unsigned i = 0; i < d->nvocab && pick < 0; i++) {
			size_t l = strlen(d->vocab[i]);

			if (l == e - s && memcmp(v + s, d->vocab[i], l) == 0 &&
			    (allowed & (1u << i)))
				pick = (int)i;
		}
		if (!comma)
			break;
		s = e + 1;
	}
	return pick;
}

static bool parse_bool(const struct iscsi_kv *kv, bool *b)
{
	if (iscsi_kv_val_is(kv, "Yes"))
		*b = true;
	else if (iscsi_kv_val_is(kv, "No"))
		*b = false;
	else
		return false;
	return true;
}

static void copy_name(char *dst, const struct iscsi_kv *kv)
{
	memcpy(dst, kv->val, kv->val_len);
	dst[kv->val_len] = 0;
}

/* Values the target accepts for a list key. */
static uint32_t list_allowed(const struct iscsi_neg *n, enum iscsi_key_id k)
{
	switch (k) {
	case ISCSI_KEY_HEADER_DIGEST:
		/* required by the target or the ACL: CRC32C from any offer
		 * that holds it, whatever its place in the list */
		if (n->required & ISCSI_REQ_HEADER_DIGEST)
			return 1u << ISCSI_DIGEST_CRC32C;
		return (1u << ISCSI_DIGEST_NONE) |
		       (n->mine.header_digest == ISCSI_DIGEST_CRC32C ? 1u << ISCSI_DIGEST_CRC32C
								     : 0);
	case ISCSI_KEY_DATA_DIGEST:
		if (n->required & ISCSI_REQ_DATA_DIGEST)
			return 1u << ISCSI_DIGEST_CRC32C;
		return (1u << ISCSI_DIGEST_NONE) |
		       (n->mine.data_digest == ISCSI_DIGEST_CRC32C ? 1u << ISCSI_DIGEST_CRC32C : 0);
	case ISCSI_KEY_AUTH_METHOD:
		return n->auth_allowed;
	case ISCSI_KEY_TASK_REPORTING:
		/* all three: the first the initiator offers is answered
		 * (task_reporting.c) */
		return (1u << ISCSI_TASKREP_RFC3720) | (1u << ISCSI_TASKREP_RESPONSE_FENCE) |
		       (1u << ISCSI_TASKREP_FAST_ABORT);
	default:
		return 0;
	}
}

/* Negotiate one known key. Returns the answer, or sets *err. */
static enum answer neg_key(struct iscsi_neg *n, enum iscsi_neg_stage st, enum iscsi_key_id k,
			   const struct iscsi_kv *kv, enum iscsi_neg_result *err)
{
	const struct iscsi_key_desc *d = &iscsi_key_table[k];
	uint32_t mine = d->width ? iscsi_param_get(&n->mine, k) : 0;
	uint64_t num;
	bool b, malformed;
	int pick;

	if (st == ISCSI_NEG_FFP && !(d->use & ISCSI_KU_FFP))
		return ANS_REJECT; /* login-only key in full feature phase */
	if (st == ISCSI_NEG_OPERATIONAL && k == ISCSI_KEY_AUTH_METHOD) {
		*err = ISCSI_NEG_ESTAGE; /* RFC 7143 6.3: security keys after it */
		return ANS_NONE;
	}
	/* Operational keys in the security stage are accepted: RFC 7143 6.3
	 * keeps them for the operational stage, but deployed initiators
	 * (libiscsi) send their whole key set with the first request. */
	if ((d->use & ISCSI_KU_NO_DISCOVERY) && n->active.session_type == ISCSI_SESSION_DISCOVERY)
		return ANS_IRRELEVANT;
	if (!(d->senders & ISCSI_KS_INITIATOR))
		return ANS_REJECT;

	switch ((enum iscsi_key_kind)d->kind) {
	case ISCSI_KT_BOOL_AND:
	case ISCSI_KT_BOOL_OR:
		if (!parse_bool(kv, &b))
			return ANS_REJECT;
		iscsi_param_set(&n->peer, k, b);
		iscsi_param_set(&n->active, k,
				d->kind == ISCSI_KT_BOOL_AND ? (mine && b) : (mine || b));
		return ANS_VALUE;
	case ISCSI_KT_NUM_MIN:
	case ISCSI_KT_NUM_MAX:
		if (!iscsi_parse_number(kv->val, kv->val_len, UINT32_MAX, &num) || num < d->min ||
		    num > d->max)
			return ANS_REJECT;
		iscsi_param_set(&n->peer, k, (uint32_t)num);
		if (d->kind == ISCSI_KT_NUM_MIN)
			iscsi_param_set(&n->active, k, UT_MIN(mine, (uint32_t)num));
		else
			iscsi_param_set(&n->active, k, UT_MAX(mine, (uint32_t)num));
		return ANS_VALUE;
	case ISCSI_KT_NUM_DECL:
		if (!iscsi_parse_number(kv->val, kv->val_len, UINT32_MAX, &num) || num < d->min ||
		    num > d->max)
			return ANS_REJECT;
		/* the initiator's receive limit: what the target may send */
		iscsi_param_set(&n->peer, k, (uint32_t)num);
		return ANS_NONE;
	case ISCSI_KT_LIST:
		pick = list_pick(d, kv->val, kv->val_len, list_allowed(n, k), &malformed);
		if (pick < 0 || malformed) {
			if (k == ISCSI_KEY_AUTH_METHOD)
				*err = ISCSI_NEG_EAUTH; /* answered Reject, then 02/01 */
			else if ((k == ISCSI_KEY_HEADER_DIGEST &&
				  (n->required & ISCSI_REQ_HEADER_DIGEST)) ||
				 (k == ISCSI_KEY_DATA_DIGEST &&
				  (n->required & ISCSI_REQ_DATA_DIGEST)))
				*err = ISCSI_NEG_EDIGEST; /* answered Reject, then 02/00 */
			return ANS_REJECT;
		}
		iscsi_param_set(&n->peer, k, (uint32_t)pick);
		iscsi_param_set(&n->active, k, (uint32_t)pick);
		return ANS_VALUE;
	case ISCSI_KT_CHOICE:
		pick = list_pick(d, kv->val, kv->val_len, ~0u, &malformed);
		if (pick < 0 || malformed || memchr(kv->val, ',', kv->val_len)) {
			*err = ISCSI_NEG_ESESSTYPE;
			return ANS_NONE;
		}
		iscsi_param_set(&n->peer, k, (uint32_t)pick);
		iscsi_param_set(&n->active, k, (uint32_t)pick);
		return ANS_NONE;
	case ISCSI_KT_NAME:
		if (k == ISCSI_KEY_INITIATOR_ALIAS) {
			copy_name(n->initiator_alias, kv);
			return ANS_NONE;
		}
		/* RFC 3722: kept in normalized form, so that every later
		 * comparison of names is a byte comparison (lib/iname.h) */
		if (iname_normalize(kv->val, kv->val_len,
				    k == ISCSI_KEY_TARGET_NAME ? n->target_name : n->initiator_name,
				    NULL) < 0)
			*err = ISCSI_NEG_ENAME;
		return ANS_NONE;
	case ISCSI_KT_TEXT:
		if (st != ISCSI_NEG_FFP)
			return ANS_IRRELEVANT; /* a Text request key, not a login key */
		n->send_targets = true;
		if (kv->val_len > ISCSI_NAME_MAX) {
			n->st_too_long = true;
			return ANS_NONE;
		}
		memcpy(n->st_val, kv->val, kv->val_len);
		n->st_len = (uint8_t)kv->val_len;
		return ANS_NONE;
	case ISCSI_KT_TARGET:
		return ANS_REJECT;
	case ISCSI_KT_OBS_BOOL:
		if (!parse_bool(kv, &b))
			return ANS_REJECT;
		return ANS_NO;
	case ISCSI_KT_OBS_VALUE:
		return ANS_IRRELEVANT;
	}
	return ANS_REJECT;
}

static void emit(struct iscsi_neg *n, enum iscsi_key_id k, const struct iscsi_kv *kv, enum answer a,
		 struct iscsi_kbuf *out)
{
	const struct iscsi_key_desc *d;
	uint32_t v;

	switch (a) {
	case ANS_NONE:
		return;
	case ANS_REJECT:
		iscsi_kbuf_addn(out, kv->key, kv->key_len, "Reject", 6);
		return;
	case ANS_IRRELEVANT:
		iscsi_kbuf_addn(out, kv->key, kv->key_len, "Irrelevant", 10);
		return;
	case ANS_NOTUNDERSTOOD:
		iscsi_kbuf_addn(out, kv->key, kv->key_len, "NotUnderstood", 13);
		return;
	case ANS_NO:
		iscsi_kbuf_addn(out, kv->key, kv->key_len, "No", 2);
		return;
	case ANS_VALUE:
		break;
	}
	d = &iscsi_key_table[k];
	v = iscsi_param_get(&n->active, k);
	n->answers |= 1u << k;
	if (d->vocab && v < d->nvocab)
		iscsi_kbuf_add(out, d->name, d->vocab[v]);
	else
		iscsi_kbuf_add_num(out, d->name, v);
}

enum iscsi_neg_result iscsi_neg_request(struct iscsi_neg *n, enum iscsi_neg_stage st,
					const struct iscsi_kv *kv, unsigned nkv,
					struct iscsi_kbuf *out)
{
	uint8_t ans[ISCSI_KEYS_MAX];
	uint8_t ids[ISCSI_KEYS_MAX];
	enum iscsi_neg_result err = ISCSI_NEG_OK;
	unsigned i;

	if (nkv > ISCSI_KEYS_MAX)
		return ISCSI_NEG_ETOOMANY;
	n->cur = 0;
	n->send_targets = false;
	n->st_too_long = false;
	n->st_len = 0;

	/* Duplicates, lengths and re-declarations first: nothing is applied
	 * from a request that fails these. SessionType is applied first so
	 * that "Irrelevant in discovery" holds whatever the key order. */
	for (i = 0; i < nkv; i++) {
		enum iscsi_key_id k = iscsi_key_lookup(kv[i].key, kv[i].key_len);

		ids[i] = (uint8_t)k;
		if (k == ISCSI_KEY_UNKNOWN) {
			if (kv[i].val_len > ISCSI_KEY_VALUE_MAX)
				return ISCSI_NEG_EVALLEN;
			continue;
		}
		n->err_key = (uint8_t)k;
		if (kv[i].val_len > iscsi_key_table[k].val_max)
			return ISCSI_NEG_EVALLEN;
		if (n->cur & (1u << k))
			return ISCSI_NEG_EDUP;
		n->cur |= 1u << k;
		err = iscsi_neg_freeze(n, k, kv[i].val, kv[i].val_len);
		if (err)
			return err;
	}
	for (i = 0; i < nkv; i++) {
		if (ids[i] != ISCSI_KEY_SESSION_TYPE)
			continue;
		ans[i] = (uint8_t)neg_key(n, st, ISCSI_KEY_SESSION_TYPE, &kv[i], &err);
		if (err)
			return err;
	}
	for (i = 0; i < nkv; i++) {
		enum iscsi_key_id k = (enum iscsi_key_id)ids[i];

		if (k == ISCSI_KEY_SESSION_TYPE)
			continue;
		if (k == ISCSI_KEY_UNKNOWN) {
			/* unknown keys, X- and X# extension keys alike */
			ans[i] = ANS_NOTUNDERSTOOD;
			continue;
		}
		ans[i] = (uint8_t)neg_key(n, st, k, &kv[i], &err);
		if (err && err != ISCSI_NEG_EAUTH && err != ISCSI_NEG_EDIGEST)
			return err;
	}
	/* RFC 7143 13.14: FirstBurstLength MUST NOT exceed MaxBurstLength;
	 * the answer stays a valid "minimum" result when it is lowered. */
	if (n->active.first_burst_length > n->active.max_burst_length)
		n->active.first_burst_length = n->active.max_burst_length;

	for (i = 0; i < nkv; i++) {
		enum iscsi_key_id k = (enum iscsi_key_id)ids[i];
		enum answer a = (enum answer)ans[i];

		/* 13.14: irrelevant when InitialR2T=Yes and ImmediateData=No */
		if (k == ISCSI_KEY_FIRST_BURST_LENGTH && a == ANS_VALUE && n->active.initial_r2t &&
		    !n->active.immediate_data)
			a = ANS_IRRELEVANT;
		emit(n, k, &kv[i], a, out);
	}
	return err;
}

enum iscsi_neg_result iscsi_neg_freeze(struct iscsi_neg *n, enum iscsi_key_id k, const void *v,
				       size_t len)
{
	if (n->seen & (1u << k))
		return len == n->vlen[k] && !memcmp(n->vals + n->voff[k], v, len)
			   ? ISCSI_NEG_OK
			   : ISCSI_NEG_ERENEG;
	if (len > sizeof(n->vals) - n->vused)
		return ISCSI_NEG_ETOOMANY;
	if (len)
		memcpy(n->vals + n->vused, v, len);
	n->voff[k] = n->vused;
	n->vlen[k] = (uint16_t)len;
	n->vused = (uint16_t)(n->vused + len);
	n->seen |= 1u << k;
	return ISCSI_NEG_OK;
}

void iscsi_neg_declare(struct iscsi_neg *n, struct iscsi_kbuf *out)
{
	if (!(n->declared & (1u << ISCSI_KEY_MAX_RECV_DSL))) {
		/* 13.12: our own receive limit, declared once per connection */
		iscsi_kbuf_add_num(out, iscsi_key_table[ISCSI_KEY_MAX_RECV_DSL].name,
				   n->mine.max_recv_dsl);
		n->declared |= 1u << ISCSI_KEY_MAX_RECV_DSL;
	}
}
