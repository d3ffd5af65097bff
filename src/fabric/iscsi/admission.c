/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admission.c: login and discovery slots, capped per source address and
 * overall; at a cap the longest-silent member is evicted, never the
 * newcomer (the rule and its contracts: admission.h). Every function runs
 * under iscsi_global.lock, which also guards the settings it reads. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fabric/iscsi/admission.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/hmap.h"
#include "lib/log.h"
#include "lib/reactor.h"

#define ADM_REPORT_NS (10ull * 1000000000ull) /* at most one summary line per 10 s */
/* A member that has not sent a byte since it took its slot is ranked as if
 * silent since this long before: connections that speak go after every one
 * that never did, unless they have been silent this much longer. */
#define ADM_SPOKE_CREDIT_NS (1ull * 1000000000ull)
/* Candidates looked at in the socket per eviction (adm_victim_locked). */
#define ADM_PEEK_MAX 4u
/* Victims of one admission at most: more than one only after a cap was
 * lowered live below the members it has; later admissions go on. */
#define ADM_EVICT_MAX 8u

/* What a member was evicted for: the summary line's counters. */
enum adm_why {
	ADM_WHY_LOGIN_ADDR,
	ADM_WHY_LOGIN_ALL,
	ADM_WHY_DISC_ADDR,
	ADM_WHY_DISC_ALL,
	ADM_WHY_COUNT,
};

/* One class: its caps (struct iscsi_settings fields, 0: no cap) and the
 * counters of its evictions. */
struct adm_desc {
	size_t cap_all, cap_addr; /* offsets of uint32_t settings */
	enum adm_why why_all, why_addr;
};

static const struct adm_desc adm_desc[ISCSI_ADM_CLASSES] = {
    [ISCSI_ADM_LOGIN] =
	{
	    .cap_all = offsetof(struct iscsi_settings, max_logins_in_progress),
	    .cap_addr = offsetof(struct iscsi_settings, max_logins_per_address),
	    .why_all = ADM_WHY_LOGIN_ALL,
	    .why_addr = ADM_WHY_LOGIN_ADDR,
	},
    [ISCSI_ADM_DISCOVERY] =
	{
	    .cap_all = offsetof(struct iscsi_settings, max_discovery_sessions),
	    .cap_addr = offsetof(struct iscsi_settings, max_discovery_sessions_per_address),
	    .why_all = ADM_WHY_DISC_ALL,
	    .why_addr = ADM_WHY_DISC_ADDR,
	},
};

struct adm_class {
	struct list_node members; /* struct iscsi_conn.adm.node, admission order */
	unsigned n;
	struct hmap per_addr; /* address bytes -> unsigned * (members of it, > 0) */
	uint64_t evicted;     /* since start */
};

static struct {
	struct adm_class cls[ISCSI_ADM_CLASSES];
	/* the summary line */
	uint64_t pending[ADM_WHY_COUNT]; /* evictions not reported yet */
	uint64_t first_ns;		 /* of the first of them (0: none pending) */
	uint64_t report_ns;		 /* the last line (0: none yet) */
	uint64_t total;			 /* evictions since start */
	uint8_t last_key[16];		 /* the latest victim's address */
	uint8_t last_key_len;
} adm = {
    .cls =
	{
	    [ISCSI_ADM_LOGIN] = {.members = LIST_INIT(adm.cls[ISCSI_ADM_LOGIN].members)},
	    [ISCSI_ADM_DISCOVERY] = {.members = LIST_INIT(adm.cls[ISCSI_ADM_DISCOVERY].members)},
	},
};

static uint32_t adm_cap(size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)&iscsi_global.settings + off, sizeof(v));
	return v;
}

/* The per-address key: the address bytes; an IPv4 peer of a dual-stack
 * socket (::ffff:a.b.c.d) is the IPv4 address it is. */
static void adm_key(const struct sockaddr_storage *sa, uint8_t key[16], uint8_t *len)
{
	if (sa->ss_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		*len = 4;
	} else if (sa->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			memcpy(key, &a->s6_addr[12], 4);
			*len = 4;
		} else {
			memcpy(key, a, 16);
			*len = 16;
		}
	} else {
		*len = 0; /* no socket (test I/O): one address for all */
	}
}

static unsigned *adm_addr_count(struct adm_class *a, const uint8_t *key, size_t len)
{
	uintptr_t v;

	return hmap_get(&a->per_addr, key, len, &v) ? (unsigned *)v : NULL;
}

/* One more member of this address: its counter (created at the first). */
static unsigned *adm_addr_inc(struct adm_class *a, const uint8_t *key, size_t len)
{
	unsigned *n = adm_addr_count(a, key, len);

	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return NULL;
		if (hmap_put(&a->per_addr, key, len, (uintptr_t)n)) {
			free(n);
			return NULL;
		}
	}
	(*n)++;
	return n;
}

/* One member fewer (the counter goes with the last one; no allocation, so
 * giving a slot back cannot fail). */
static void adm_addr_dec(struct adm_class *a, const uint8_t *key, size_t len)
{
	unsigned *n = adm_addr_count(a, key, len);

	if (!n || --*n)
		return;
	hmap_del(&a->per_addr, key, len);
	free(n);
	if (!hmap_count(&a->per_addr))
		hmap_clear(&a->per_addr); /* nothing kept while nobody logs in */
}

static void adm_remove_locked(struct iscsi_conn *c)
{
	struct adm_class *a = &adm.cls[c->adm.cls];

	list_del(&c->adm.node);
	a->n--;
	adm_addr_dec(a, c->adm.key, c->adm.key_len);
	c->adm.cls = ISCSI_ADM_NONE;
}

/* Since when c counts as silent: its last byte since it could be read;
 * none yet: ADM_SPOKE_CREDIT_NS before it could; not read at all yet (its
 * reactor has not taken it): half the credit before its accept, so that it
 * goes after the idle ones that could speak, before a login that spoke. */
static uint64_t adm_silent_since(const struct iscsi_conn *c)
{
	uint64_t since = atomic_load_explicit(&c->adm.since_ns, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&c->last_rx_ns, memory_order_relaxed);

	if (!since)
		return t > ADM_SPOKE_CREDIT_NS / 2 ? t - ADM_SPOKE_CREDIT_NS / 2 : 0;
	if (t > since)
		return t;
	return since > ADM_SPOKE_CREDIT_NS ? since - ADM_SPOKE_CREDIT_NS : 0;
}

/* The member of a that has been silent longest: of the address key (len),
 * or of any (key NULL). The first admitted wins a tie. */
static struct iscsi_conn *adm_most_silent_locked(struct adm_class *a, const uint8_t *key,
						 size_t len)
{
	struct iscsi_conn *c, *v = NULL;
	uint64_t oldest = UINT64_MAX;

	list_for_each_entry(c, &a->members, adm.node)
	{
		uint64_t t;

		if (key && (c->adm.key_len != len || memcmp(c->adm.key, key, len)))
			continue;
		t = adm_silent_since(c);
		if (t < oldest) {
			oldest = t;
			v = c;
		}
	}
	return v;
}

/* The member to evict (adm_most_silent_locked), checked in its socket when
 * it has not spoken as far as its reactor has read: bytes waiting there
 * (its reactor is behind, or has not taken it yet) mean it spoke now, and
 * the next one is taken. The socket stays open while it is a member
 * (conn_close leaves first). */
static struct iscsi_conn *adm_victim_locked(struct adm_class *a, const uint8_t *key, size_t len,
					    uint64_t now)
{
	struct iscsi_conn *v = NULL;

	for (unsigned i = 0; i < ADM_PEEK_MAX; i++) {
		uint64_t since, t;
		char b;

		v = adm_most_silent_locked(a, key, len);
		if (!v || v->fd < 0 || v->io)
			break;
		since = atomic_load_explicit(&v->adm.since_ns, memory_order_relaxed);
		t = atomic_load_explicit(&v->last_rx_ns, memory_order_relaxed);
		if ((since && t > since) || recv(v->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
			break;
		/* it spoke: now (its reactor reads it soon) */
		atomic_store_explicit(&v->last_rx_ns, now, memory_order_relaxed);
		if (!since || since >= now)
			atomic_store_explicit(&v->adm.since_ns, now - 1, memory_order_relaxed);
	}
	return v;
}

/* v loses its slot now (the newcomer has it) and is dropped on its reactor
 * without a login response. */
static void adm_evict_locked(struct iscsi_conn *v, enum adm_why why, uint64_t now)
{
	adm.cls[v->adm.cls].evicted++;
	adm_remove_locked(v);
	v->adm.evicted = true;
	adm.pending[why]++;
	adm.total++;
	if (!adm.first_ns)
		adm.first_ns = now;
	memcpy(adm.last_key, v->adm.key, sizeof(adm.last_key));
	adm.last_key_len = v->adm.key_len;
	iscsi_conn_drop_async(v);
}

/* c joins class k, after evicting what its arrival puts over a cap: first
 * its own address's longest-silent members, then the class's. 0, or
 * -ENOMEM (c not admitted, nothing evicted). */
static int adm_enter_locked(struct iscsi_conn *c, enum iscsi_adm_class k, uint64_t now)
{
	const struct adm_desc *d = &adm_desc[k];
	struct adm_class *a = &adm.cls[k];
	uint32_t cap_all = adm_cap(d->cap_all), cap_addr = adm_cap(d->cap_addr);
	unsigned *n_addr, nv = 0;
	struct iscsi_conn *v;

	/* counted first: the counter then outlives the evictions below */
	n_addr = adm_addr_inc(a, c->adm.key, c->adm.key_len);
	if (!n_addr)
		return -ENOMEM;
	while (cap_addr && *n_addr > cap_addr && nv < ADM_EVICT_MAX &&
	       (v = adm_victim_locked(a, c->adm.key, c->adm.key_len, now))) {
		adm_evict_locked(v, d->why_addr, now);
		nv++;
	}
	while (cap_all && a->n >= cap_all && nv < ADM_EVICT_MAX &&
	       (v = adm_victim_locked(a, NULL, 0, now))) {
		adm_evict_locked(v, d->why_all, now);
		nv++;
	}
	list_add_tail(&a->members, &c->adm.node);
	a->n++;
	c->adm.cls = (uint8_t)k;
	if (k != ISCSI_ADM_LOGIN) /* a login slot: from its attach on */
		atomic_store_explicit(&c->adm.since_ns, now, memory_order_relaxed);
	return 0;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The summary line of the evictions not reported yet into buf, when one is
 * due (the first eviction at once, then at most one per ADM_REPORT_NS;
 * force: whenever any is pending). */
static bool adm_report_locked(char *buf, size_t size, uint64_t now, bool force)
{
	const struct iscsi_settings *s = &iscsi_global.settings;
	const uint64_t *p = adm.pending;
	char addr[INET6_ADDRSTRLEN] = "-";

	if (!adm.first_ns || (!force && adm.report_ns && now - adm.report_ns < ADM_REPORT_NS))
		return false;
	if (adm.last_key_len)
		inet_ntop(adm.last_key_len == 4 ? AF_INET : AF_INET6, adm.last_key, addr,
			  sizeof(addr));
	snprintf(buf, size,
		 "iscsi: admission: evicted %llu connection%s in login (%llu over "
		 "max_logins_per_address %u, %llu over max_logins_in_progress %u) and %llu "
		 "discovery session%s (%llu over max_discovery_sessions_per_address %u, %llu over "
		 "max_discovery_sessions %u), the longest-silent first, in %.1f s, the latest from "
		 "%s; %llu since start",
		 (unsigned long long)(p[ADM_WHY_LOGIN_ADDR] + p[ADM_WHY_LOGIN_ALL]),
		 plural(p[ADM_WHY_LOGIN_ADDR] + p[ADM_WHY_LOGIN_ALL]),
		 (unsigned long long)p[ADM_WHY_LOGIN_ADDR], s->max_logins_per_address,
		 (unsigned long long)p[ADM_WHY_LOGIN_ALL], s->max_logins_in_progress,
		 (unsigned long long)(p[ADM_WHY_DISC_ADDR] + p[ADM_WHY_DISC_ALL]),
		 plural(p[ADM_WHY_DISC_ADDR] + p[ADM_WHY_DISC_ALL]),
		 (unsigned long long)p[ADM_WHY_DISC_ADDR], s->max_discovery_sessions_per_address,
		 (unsigned long long)p[ADM_WHY_DISC_ALL], s->max_discovery_sessions,
		 (double)(now - adm.first_ns) / 1e9, addr, (unsigned long long)adm.total);
	memset(adm.pending, 0, sizeof(adm.pending));
	adm.first_ns = 0;
	adm.report_ns = now;
	return true;
}

/* Unlock, then log the line that became due meanwhile, if any. */
static void adm_unlock_report(uint64_t now)
{
	char line[640];
	bool say = adm_report_locked(line, sizeof(line), now, false);

	pthread_mutex_unlock(&iscsi_global.lock);
	if (say)
		log_warn("%s", line);
}

/* c could not be counted (no memory for its address): it goes itself. */
static void adm_refuse_locked(struct iscsi_conn *c)
{
	c->adm.evicted = true;
	iscsi_conn_drop_async(c);
}

void iscsi_adm_login(struct iscsi_conn *c)
{
	uint64_t now = reactor_now_ns();
	int rc;

	adm_key(&c->peer_sa, c->adm.key, &c->adm.key_len);
	pthread_mutex_lock(&iscsi_global.lock);
	rc = c->adm.cls || c->adm.evicted ? 0 : adm_enter_locked(c, ISCSI_ADM_LOGIN, now);
	if (rc)
		adm_refuse_locked(c);
	adm_unlock_report(now);
	if (rc)
		log_err("iscsi: %s: no memory to count the connection: closing it", c->peer);
}

void iscsi_adm_ffp(struct iscsi_conn *c)
{
	uint64_t now = reactor_now_ns();
	int rc = 0;

	pthread_mutex_lock(&iscsi_global.lock);
	if (c->adm.cls == ISCSI_ADM_LOGIN) {
		adm_remove_locked(c);
		/* a discovery session holds a slot of its own from now on
		 * (max_sessions counts normal sessions only) */
		if (c->sess && c->sess->type == ISCSI_SESSION_DISCOVERY) {
			rc = adm_enter_locked(c, ISCSI_ADM_DISCOVERY, now);
			if (rc)
				adm_refuse_locked(c);
		}
	}
	adm_unlock_report(now);
	if (rc)
		log_err("iscsi: %s: no memory to count the discovery session: closing it", c->peer);
}

void iscsi_adm_attached(struct iscsi_conn *c)
{
	uint64_t none = 0;

	/* unless it was seen speaking before (adm_victim_locked) */
	atomic_compare_exchange_strong(&c->adm.since_ns, &none, reactor_now_ns());
}

void iscsi_adm_leave(struct iscsi_conn *c)
{
	pthread_mutex_lock(&iscsi_global.lock);
	if (c->adm.cls)
		adm_remove_locked(c);
	pthread_mutex_unlock(&iscsi_global.lock);
}

unsigned iscsi_adm_count(enum iscsi_adm_class cls, const struct sockaddr_storage *peer)
{
	uint8_t key[16], len = 0;
	unsigned n = 0, *p;
	struct adm_class *a;

	if (cls <= ISCSI_ADM_NONE || cls >= ISCSI_ADM_CLASSES)
		return 0;
	a = &adm.cls[cls];
	if (peer)
		adm_key(peer, key, &len);
	pthread_mutex_lock(&iscsi_global.lock);
	if (!peer)
		n = a->n;
	else if ((p = adm_addr_count(a, key, len)))
		n = *p;
	pthread_mutex_unlock(&iscsi_global.lock);
	return n;
}

uint64_t iscsi_adm_evicted(enum iscsi_adm_class cls)
{
	uint64_t n;

	if (cls <= ISCSI_ADM_NONE || cls >= ISCSI_ADM_CLASSES)
		return 0;
	pthread_mutex_lock(&iscsi_global.lock);
	n = adm.cls[cls].evicted;
	pthread_mutex_unlock(&iscsi_global.lock);
	return n;
}

void iscsi_adm_report(void)
{
	char line[640];
	bool say;

	pthread_mutex_lock(&iscsi_global.lock);
	say = adm_report_locked(line, sizeof(line), reactor_now_ns(), true);
	pthread_mutex_unlock(&iscsi_global.lock);
	if (say)
		log_warn("%s", line);
}
