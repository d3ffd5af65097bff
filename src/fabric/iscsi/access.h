/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access.h: who may log in, and how they authenticate (the fabric side of
 * iscsi.h's access interface).
 *
 * A target's policy (struct iscsi_access) is immutable once handed to the
 * target and reference counted: a login takes a reference when it resolves
 * the target (iscsi_access_check) and keeps it until it ends, so a policy
 * replaced meanwhile (reload, API) stays valid for it. The policy pointer of
 * a target and the discovery policy are read and replaced under
 * iscsi_global.lock.
 *
 * Address rules match the peer address of the connection: IPv4 and IPv6
 * networks; an IPv4-mapped IPv6 peer (::ffff:a.b.c.d, from a dual-stack
 * listener) matches IPv4 rules. The portal filter of discovery reads the
 * rules and demo mode only: every ACL of a target should be a rule (the
 * config layer adds one per entry; a rule with an initiator and no network
 * admits that initiator from anywhere). */
#ifndef UT_ISCSI_ACCESS_H
#define UT_ISCSI_ACCESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "fabric/iscsi/iscsi.h"

struct iscsi_target;

/* An owned CHAP identity. */
struct iscsi_auth_cred {
	char user[ISCSI_CHAP_USER_MAX + 1]; /* NUL-terminated, no NUL inside */
	uint16_t user_len;
	uint16_t secret_len;
	uint8_t secret[ISCSI_CHAP_SECRET_MAX];
};

/* An owned struct iscsi_auth. */
struct iscsi_auth_set {
	struct iscsi_auth_cred *chap;
	unsigned nchap; /* 0: no authentication */
	bool has_mutual;
	struct iscsi_auth_cred mutual;
	uint32_t algs; /* bit (1u << CHAP_A value) per allowed algorithm */
};

struct iscsi_access_rule {
	char *initiator; /* NULL: any initiator */
	bool has_net;
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t prefix; /* bits */
	uint8_t addr[16];
	struct scsi_lun_map *map;    /* referenced; NULL: the core's ACL map */
	struct iscsi_auth_set *auth; /* NULL: the policy's */
	unsigned perms;		     /* enum iscsi_perm */
	unsigned required;	     /* enum iscsi_require, besides the policy's */
};

struct iscsi_access {
	atomic_uint refs;
	struct iscsi_auth_set auth;
	struct iscsi_access_rule *rules;
	unsigned nrules;
	unsigned demo_perms; /* enum iscsi_perm of demo mode's sessions */
	unsigned required;   /* enum iscsi_require of every session */
};

void iscsi_access_get(struct iscsi_access *a);
void iscsi_access_put(struct iscsi_access *a);

/* The outcome of an admitted login. */
struct iscsi_access_grant {
	struct iscsi_access *policy;	   /* reference; NULL: no policy */
	const struct iscsi_auth_set *auth; /* in policy; NULL: no authentication */
	struct scsi_lun_map *map;	   /* reference (normal sessions) */
	unsigned perms;			   /* enum iscsi_perm: the admitting rule's or
					      demo mode's; none for a core ACL alone */
	unsigned required;		   /* enum iscsi_require: the policy's and the
					      admitting rule's */
};
void iscsi_access_grant_release(struct iscsi_access_grant *g);

/* A normal session of initiator iname from peer (NULL or AF_UNSPEC: no
 * address; only rules without a network can match) to t. 0 with *g
 * filled, -EACCES (authorization failure; *why says why) or -ENOMEM. */
int iscsi_access_check(struct iscsi_target *t, const char *iname,
		       const struct sockaddr_storage *peer, struct iscsi_access_grant *g,
		       const char **why);
/* A discovery session: the discovery policy's authentication. */
void iscsi_access_discovery(struct iscsi_access_grant *g);
enum iscsi_discovery_filter iscsi_access_discovery_filter(void);
/* Discovery "portal" filter: could any initiator log in to t from peer
 * (demo mode, a rule whose network holds it or that has none, or no rule
 * restricting addresses at all)? */
bool iscsi_access_admits_address(struct iscsi_target *t, const struct sockaddr_storage *peer);
/* Discovery "portal-name-auth": would the CHAP identity (user, SHA-256 of
 * the secret; user NULL: none used) pass auth? */
bool iscsi_auth_would_pass(const struct iscsi_auth_set *auth, const char *user,
			   const uint8_t secret_sha256[32]);

/* "10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1" -> rule network fields
 * (cidr_parse(), lib/cidr.h). 0 or -EINVAL (syntax, prefix out of range,
 * host bits set). */
int iscsi_net_parse(const char *s, uint8_t *family, uint8_t addr[16], uint8_t *prefix);
bool iscsi_net_match(uint8_t family, const uint8_t addr[16], uint8_t prefix,
		     const struct sockaddr_storage *peer);

#endif
