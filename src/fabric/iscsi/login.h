/* SPDX-License-Identifier: GPL-2.0-or-later */
/* login.h: the login phase (RFC 7143 6.3, 11.12, 11.13).
 *
 * Stages: security (CSG 0) -> operational (CSG 1) -> full feature (NSG 3),
 * with T-bit transitions, C-bit continuation of requests (bounded to
 * ISCSI_KEYS_ACCUM_MAX) and of responses (each at most 8192 bytes), version
 * and ISID/TSIH/CID checks, the key negotiation of param.c, target and ACL
 * resolution, session reinstatement, and a status for every failure from one
 * table (iscsi_login_status_table, RFC 7143 11.13.5).
 *
 * Authentication plugs in as a struct iscsi_auth_module: the security stage
 * picks the first AuthMethod of the initiator's list the target allows and
 * hands the method's keys of every later security-stage request to it until
 * it says done; the transition out of the security stage needs it done.
 * "None" is built in, CHAP is chap.c. What the target allows comes from the
 * access policy (access.c), resolved from the identity keys of the first
 * request before AuthMethod is answered. */
#ifndef UT_ISCSI_LOGIN_H
#define UT_ISCSI_LOGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/keys.h"
#include "fabric/iscsi/param.h"
#include "fabric/iscsi/proto.h"
#include "lib/reactor.h"

struct iscsi_conn;
struct iscsi_target;
struct scsi_lun_map;

/* Login status classes and details (RFC 7143 11.13.5). */
enum iscsi_login_status {
	ISCSI_LS_SUCCESS,
	ISCSI_LS_TARGET_MOVED_TEMP,	   /* 01/01 + TargetAddress */
	ISCSI_LS_TARGET_MOVED_PERM,	   /* 01/02 + TargetAddress */
	ISCSI_LS_INITIATOR_ERROR,	   /* 02/00 */
	ISCSI_LS_AUTH_FAILURE,		   /* 02/01 */
	ISCSI_LS_AUTHZ_FAILURE,		   /* 02/02 */
	ISCSI_LS_NOT_FOUND,		   /* 02/03 */
	ISCSI_LS_TARGET_REMOVED,	   /* 02/04 */
	ISCSI_LS_UNSUPPORTED_VERSION,	   /* 02/05 */
	ISCSI_LS_TOO_MANY_CONNECTIONS,	   /* 02/06 */
	ISCSI_LS_MISSING_PARAMETER,	   /* 02/07 */
	ISCSI_LS_CANT_INCLUDE,		   /* 02/08 */
	ISCSI_LS_SESSION_TYPE_UNSUPPORTED, /* 02/09 */
	ISCSI_LS_SESSION_NOT_FOUND,	   /* 02/0a */
	ISCSI_LS_INVALID_DURING_LOGIN,	   /* 02/0b */
	ISCSI_LS_TARGET_ERROR,		   /* 03/00 */
	ISCSI_LS_SERVICE_UNAVAILABLE,	   /* 03/01 */
	ISCSI_LS_OUT_OF_RESOURCES,	   /* 03/02 */
	ISCSI_LS_COUNT,
};

struct iscsi_login_status_desc {
	uint8_t status_class;
	uint8_t status_detail;
	const char *name;
};
extern const struct iscsi_login_status_desc iscsi_login_status_table[ISCSI_LS_COUNT];

/* ---- authentication methods ---- */
enum iscsi_auth_result {
	ISCSI_AUTH_CONTINUE, /* more security-stage requests needed */
	ISCSI_AUTH_DONE,     /* the initiator is authenticated */
	ISCSI_AUTH_FAIL,     /* 02/01 */
};
struct iscsi_login;
struct iscsi_auth_module {
	uint8_t method;		/* enum iscsi_auth_method */
	const char *key_prefix; /* its keys ("CHAP_"): handed to step, not negotiated */
	/* One security-stage request's keys of the method (possibly none;
	 * also those of the request that chose it); append the answers to
	 * out. On ISCSI_AUTH_FAIL, l->fail_why may say why. */
	enum iscsi_auth_result (*step)(struct iscsi_login *l, const struct iscsi_kv *kv,
				       unsigned nkv, struct iscsi_kbuf *out);
	void (*free)(struct iscsi_login *l);
};

/* State of one connection's login phase. */
struct iscsi_login {
	struct iscsi_neg neg;
	uint8_t stage; /* enum iscsi_login_stage: CSG the next request must carry */
	bool started;  /* the first request was processed */
	bool leading;  /* TSIH 0: a new session */
	bool target_resolved;
	bool auth_done;
	bool waiting; /* suspended until a reinstated session is gone */
	bool failed;
	bool fail_answers; /* the failure response carries the answers so far */
	uint8_t isid[ISCSI_ISID_LEN];
	uint16_t tsih;
	uint16_t cid;
	uint32_t itt;
	uint32_t cmdsn;	   /* CmdSN of the leading Login Request */
	uint8_t req_flags; /* flags of the request being answered */
	const struct iscsi_auth_module *auth;
	void *auth_priv;		 /* the module's state */
	struct iscsi_access_grant grant; /* policy reference and authentication required */
	const char *fail_why;		 /* reason for the failure log line (static text) */
	struct scsi_lun_map *map;	 /* from iscsi_access_check */
	/* request accumulation across C-bit PDUs */
	uint8_t *acc;
	uint32_t acc_len;
	/* response: keys of the current answer; sent from rsp_off on in
	 * pieces of at most 8192 bytes (C bit) */
	struct iscsi_kbuf rsp;
	uint32_t rsp_off;
	bool rsp_transit; /* the answer (once complete) carries T=1 */
	uint8_t rsp_nsg;
};

/* Send a login failure (or redirect) response and close the connection
 * after it. For redirects (01/01, 01/02) target_address is the TargetAddress
 * value ("host:port,tpgt"), else NULL. */
void iscsi_login_fail(struct iscsi_conn *c, enum iscsi_login_status st, const char *target_address);
/* The reinstated session is gone: finish the login of c. */
void iscsi_login_resume(struct iscsi_conn *c);

#endif
