/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access.c: access policies of targets (ACL rules by initiator name and
 * network address, CHAP credentials), the discovery policy, and their
 * resolution at login and in SendTargets. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"
#include "fabric/iscsi/target.h"
#include "lib/cidr.h"
#include "lib/compiler.h"
#include "scsi/scsi.h"

#define ALGS_ALL                                                                                   \
	((1u << ISCSI_CHAP_MD5) | (1u << ISCSI_CHAP_SHA1) | (1u << ISCSI_CHAP_SHA256) |            \
	 (1u << ISCSI_CHAP_SHA3_256))

/* The discovery policy (its auth only) and filter, under iscsi_global.lock. */
static struct iscsi_access *discovery_policy;
static enum iscsi_discovery_filter discovery_filter = ISCSI_DF_PORTAL_NAME;

/* ---- credentials ---- */
static int cred_copy(struct iscsi_auth_cred *dst, const struct iscsi_chap_cred *src)
{
	size_t ulen;

	if (!src->user || !src->secret)
		return -EINVAL;
	ulen = strlen(src->user);
	if (!ulen || ulen > ISCSI_CHAP_USER_MAX || !src->secret_len ||
	    src->secret_len > ISCSI_CHAP_SECRET_MAX)
		return -EINVAL;
	memcpy(dst->user, src->user, ulen + 1);
	dst->user_len = (uint16_t)ulen;
	memcpy(dst->secret, src->secret, src->secret_len);
	dst->secret_len = (uint16_t)src->secret_len;
	return 0;
}

static bool same_secret(const struct iscsi_auth_cred *a, const struct iscsi_auth_cred *b)
{
	return a->secret_len == b->secret_len &&
	       !CRYPTO_memcmp(a->secret, b->secret, a->secret_len);
}

static void auth_set_clear(struct iscsi_auth_set *s)
{
	if (s->chap)
		OPENSSL_cleanse(s->chap, s->nchap * sizeof(*s->chap));
	free(s->chap);
	OPENSSL_cleanse(s, sizeof(*s));
}

static int auth_set_fill(struct iscsi_auth_set *s, const struct iscsi_auth *in)
{
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->algs = ALGS_ALL;
	if (!in || !in->nchap)
		return in && in->mutual ? -EINVAL : 0; /* a target identity needs CHAP */
	if (in->nalgs) {
		s->algs = 0;
		for (size_t i = 0; i < in->nalgs; i++) {
			if (!iscsi_chap_digest_len(in->algs[i]))
				return -EINVAL;
			s->algs |= 1u << in->algs[i];
		}
	}
	s->chap = calloc(in->nchap, sizeof(*s->chap));
	if (!s->chap)
		return -ENOMEM;
	s->nchap = (unsigned)in->nchap;
	for (size_t i = 0; i < in->nchap && !rc; i++)
		rc = cred_copy(&s->chap[i], &in->chap[i]);
	if (!rc && in->mutual) {
		rc = cred_copy(&s->mutual, in->mutual);
		s->has_mutual = !rc;
		/* RFC 7143 12.1.3: a secret used to authenticate initiators
		 * MUST NOT authenticate a target */
		for (unsigned i = 0; !rc && i < s->nchap; i++)
			if (same_secret(&s->chap[i], &s->mutual))
				rc = -EINVAL;
	}
	if (rc)
		auth_set_clear(s);
	return rc;
}

/* ---- networks ---- */
int iscsi_net_parse(const char *s, uint8_t *family, uint8_t addr[16], uint8_t *prefix)
{
	return cidr_parse(s, family, addr, prefix, NULL);
}

bool iscsi_net_match(uint8_t family, const uint8_t addr[16], uint8_t prefix,
		     const struct sockaddr_storage *peer)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	const uint8_t *pa;
	unsigned full, rest;

	if (!peer)
		return false;
	if (peer->ss_family == AF_INET && family == AF_INET) {
		pa = (const uint8_t *)&((const struct sockaddr_in *)peer)->sin_addr;
	} else if (peer->ss_family == AF_INET6) {
		pa = ((const struct sockaddr_in6 *)peer)->sin6_addr.s6_addr;
		if (family == AF_INET) {
			/* a dual-stack listener shows IPv4 peers as ::ffff:a.b.c.d */
			if (memcmp(pa, v4mapped, sizeof(v4mapped)))
				return false;
			pa += 12;
		}
	} else {
		return false;
	}
	full = prefix / 8;
	rest = prefix % 8;
	if (memcmp(pa, addr, full))
		return false;
	return !rest || !((pa[full] ^ addr[full]) & (0xffu << (8 - rest)));
}

/* ---- policies ---- */
struct iscsi_access *iscsi_access_new(void)
{
	struct iscsi_access *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	atomic_init(&a->refs, 1);
	a->auth.algs = ALGS_ALL;
	return a;
}

void iscsi_access_free(struct iscsi_access *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nrules; i++) {
		struct iscsi_access_rule *r = &a->rules[i];

		free(r->initiator);
		if (r->map)
			scsi_lun_map_put(r->map);
		if (r->auth) {
			auth_set_clear(r->auth);
			free(r->auth);
		}
	}
	free(a->rules);
	auth_set_clear(&a->auth);
	free(a);
}

void iscsi_access_get(struct iscsi_access *a)
{
	atomic_fetch_add(&a->refs, 1);
}

void iscsi_access_put(struct iscsi_access *a)
{
	if (a && atomic_fetch_sub(&a->refs, 1) == 1)
		iscsi_access_free(a);
}

int iscsi_access_set_auth(struct iscsi_access *a, const struct iscsi_auth *auth)
{
	struct iscsi_auth_set s;
	int rc = auth_set_fill(&s, auth);

	if (rc)
		return rc;
	auth_set_clear(&a->auth);
	a->auth = s;
	return 0;
}

int iscsi_access_add_rule(struct iscsi_access *a, const struct iscsi_rule *in)
{
	const char *initiator = in->initiator, *network = in->network;
	struct scsi_lun_map *map = in->map;
	const struct iscsi_auth *auth = in->auth;
	struct iscsi_access_rule r = {0}, *nr;
	int rc;

	if ((!initiator && !network) || (!initiator && !map))
		return -EINVAL;
	if (initiator && (!*initiator || strlen(initiator) > ISCSI_NAME_MAX))
		return -EINVAL;
	if (network) {
		rc = iscsi_net_parse(network, &r.family, r.addr, &r.prefix);
		if (rc)
			return rc;
		r.has_net = true;
	}
	if (auth) {
		r.auth = calloc(1, sizeof(*r.auth));
		if (!r.auth)
			return -ENOMEM;
		rc = auth_set_fill(r.auth, auth);
		if (rc) {
			free(r.auth);
			return rc;
		}
	}
	if (initiator) {
		r.initiator = strdup(initiator);
		if (!r.initiator)
			goto nomem;
	}
	nr = realloc(a->rules, (a->nrules + 1) * sizeof(*nr));
	if (!nr)
		goto nomem;
	a->rules = nr;
	if (map)
		scsi_lun_map_get(map);
	r.map = map;
	r.perms = in->perms;
	r.required = in->required;
	a->rules[a->nrules++] = r;
	return 0;
nomem:
	free(r.initiator);
	if (r.auth) {
		auth_set_clear(r.auth);
		free(r.auth);
	}
	return -ENOMEM;
}

void iscsi_access_set_demo_perms(struct iscsi_access *a, unsigned perms)
{
	a->demo_perms = perms;
}

void iscsi_access_set_required(struct iscsi_access *a, unsigned required)
{
	a->required = required;
}

void iscsi_target_set_access(struct iscsi_target *t, struct iscsi_access *a)
{
	struct iscsi_access *old;

	pthread_mutex_lock(&iscsi_global.lock);
	old = t->access;
	t->access = a;
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_access_put(old);
}

int iscsi_discovery_set(const struct iscsi_auth *auth, enum iscsi_discovery_filter filter)
{
	struct iscsi_access *a, *old;
	int rc;

	if ((unsigned)filter > ISCSI_DF_PORTAL_NAME_AUTH)
		return -EINVAL;
	a = iscsi_access_new();
	if (!a)
		return -ENOMEM;
	rc = iscsi_access_set_auth(a, auth);
	if (rc) {
		iscsi_access_free(a);
		return rc;
	}
	pthread_mutex_lock(&iscsi_global.lock);
	old = discovery_policy;
	discovery_policy = a;
	discovery_filter = filter;
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_access_put(old);
	return 0;
}

/* ---- resolution ---- */
void iscsi_access_grant_release(struct iscsi_access_grant *g)
{
	if (g->map)
		scsi_lun_map_put(g->map);
	iscsi_access_put(g->policy);
	*g = (struct iscsi_access_grant){0};
}

static struct iscsi_access *policy_of(struct iscsi_target *t)
{
	struct iscsi_access *a;

	pthread_mutex_lock(&iscsi_global.lock);
	a = t->access;
	if (a)
		iscsi_access_get(a);
	pthread_mutex_unlock(&iscsi_global.lock);
	return a;
}

static bool rule_net_ok(const struct iscsi_access_rule *r, const struct sockaddr_storage *peer)
{
	return !r->has_net || iscsi_net_match(r->family, r->addr, r->prefix, peer);
}

static const struct iscsi_auth_set *auth_of(const struct iscsi_access *a,
					    const struct iscsi_access_rule *r)
{
	const struct iscsi_auth_set *s = r && r->auth ? r->auth : a ? &a->auth : NULL;

	return s && s->nchap ? s : NULL;
}

int iscsi_access_check(struct iscsi_target *t, const char *iname,
		       const struct sockaddr_storage *peer, struct iscsi_access_grant *g,
		       const char **why)
{
	struct iscsi_access *a = policy_of(t);
	const struct iscsi_access_rule *pick = NULL;
	bool named = false;
	int rc;

	*g = (struct iscsi_access_grant){.policy = a};
	*why = NULL;
	for (unsigned i = 0; a && i < a->nrules; i++) {
		const struct iscsi_access_rule *r = &a->rules[i];

		if (!r->initiator || strcmp(r->initiator, iname))
			continue;
		named = true;
		if (rule_net_ok(r, peer)) {
			pick = r;
			break;
		}
	}
	if (named && !pick) {
		*why = "its ACL does not admit this address";
		goto deny;
	}
	if (pick) {
		if (pick->map) {
			scsi_lun_map_get(pick->map);
			g->map = pick->map;
		} else if (scsi_target_acl_get(t->st, iname, &g->map)) {
			*why = "no ACL of that name in the target";
			goto deny;
		}
	} else if (scsi_target_acl_get(t->st, iname, &g->map)) {
		/* no name ACL: the most specific address rule */
		for (unsigned i = 0; a && i < a->nrules; i++) {
			const struct iscsi_access_rule *r = &a->rules[i];

			if (!r->initiator && rule_net_ok(r, peer) &&
			    (!pick || r->prefix > pick->prefix))
				pick = r;
		}
		if (pick) {
			scsi_lun_map_get(pick->map);
			g->map = pick->map;
		} else {
			rc = scsi_target_access(t->st, iname, &g->map); /* demo mode */
			if (rc) {
				*why = "no ACL admits it and demo mode is off";
				goto deny;
			}
			g->perms = a ? a->demo_perms : 0;
		}
	}
	if (pick)
		g->perms = pick->perms;
	g->required = (a ? a->required : 0) | (pick ? pick->required : 0);
	g->auth = auth_of(a, pick);
	return 0;
deny:
	g->map = NULL;
	iscsi_access_grant_release(g);
	return -EACCES;
}

void iscsi_access_discovery(struct iscsi_access_grant *g)
{
	pthread_mutex_lock(&iscsi_global.lock);
	*g = (struct iscsi_access_grant){.policy = discovery_policy};
	if (discovery_policy)
		iscsi_access_get(discovery_policy);
	pthread_mutex_unlock(&iscsi_global.lock);
	g->auth = auth_of(g->policy, NULL);
}

enum iscsi_discovery_filter iscsi_access_discovery_filter(void)
{
	enum iscsi_discovery_filter f;

	pthread_mutex_lock(&iscsi_global.lock);
	f = discovery_filter;
	pthread_mutex_unlock(&iscsi_global.lock);
	return f;
}

bool iscsi_access_admits_address(struct iscsi_target *t, const struct sockaddr_storage *peer)
{
	struct iscsi_access *a = policy_of(t);
	bool ok = scsi_target_demo(t->st), by_address = false;

	for (unsigned i = 0; !ok && a && i < a->nrules; i++) {
		by_address |= a->rules[i].has_net;
		ok = rule_net_ok(&a->rules[i], peer);
	}
	iscsi_access_put(a);
	/* without any address rule the address plays no part */
	return ok || !by_address;
}

bool iscsi_auth_would_pass(const struct iscsi_auth_set *auth, const char *user,
			   const uint8_t secret_sha256[32])
{
	if (!auth || !auth->nchap)
		return true;
	if (!user)
		return false;
	for (unsigned i = 0; i < auth->nchap; i++) {
		const struct iscsi_auth_cred *c = &auth->chap[i];
		uint8_t h[32];
		unsigned int n = 0;

		if (strcmp(c->user, user))
			continue;
		if (EVP_Digest(c->secret, c->secret_len, h, &n, EVP_sha256(), NULL) && n == 32 &&
		    !CRYPTO_memcmp(h, secret_sha256, 32))
			return true;
	}
	return false;
}
