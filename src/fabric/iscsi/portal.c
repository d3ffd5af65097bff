/* SPDX-License-Identifier: GPL-2.0-or-later */
/* portal.c: network portals: listening sockets on reactor 0, accept, and
 * the hand-off of each new connection to a reactor (reactor_pool_next). The
 * caps on connections still in login (admission.c: overall and per source
 * address, the longest-silent evicted) protect the target from connection
 * floods.
 *
 * "[::]:P" listens dual-stack (IPv6 and IPv4 peers) unless "0.0.0.0:P"
 * already has a socket; a "0.0.0.0:P" configured while "[::]:P" listens
 * dual-stack takes no socket of its own: it is the [::] portal's IPv4 twin,
 * and the IPv4 connections accepted there are handed off as the twin's (so
 * that they reach the portal groups bound to 0.0.0.0:P). When the [::]
 * portal closes, the twin opens its own socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/isns.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/reactor.h"

#define PORTAL_BACKLOG	    4096 /* a connection burst must not overflow it (capped by somaxconn) */
#define PORTAL_ACCEPT_BATCH 32

/* iscsi_portals_close_all() ran: nothing listens any more (shutdown) */
static bool portals_closed;

int iscsi_addr_parse(const char *addr, struct sockaddr_storage *sa, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *h = addr;
	size_t hl;
	unsigned long port;
	char *end;

	memset(sa, 0, sizeof(*sa));
	if (!addr)
		return -EINVAL;
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		h = addr + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - addr);
	}
	if (hl == 0 || hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port == 0 || port > 65535)
		return -EINVAL;
	if (addr[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -EINVAL;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -EINVAL;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
	}
	return 0;
}

void iscsi_addr_format(const struct sockaddr *sa, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], host, sizeof(host));
			snprintf(buf, size, "%s:%u", host, ntohs(s6->sin6_port));
			return;
		}
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(s4->sin_port));
	} else {
		snprintf(buf, size, "?");
	}
}

static bool sa_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)a;
		const struct sockaddr_in *y = (const struct sockaddr_in *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)b;

	return x->sin6_port == y->sin6_port &&
	       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
}

static bool sa_wildcard(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/* The portal a connection accepted on p belongs to: p, or for an IPv4 peer
 * of a dual-stack [::] portal, its 0.0.0.0 twin when there is one. */
static struct iscsi_portal *portal_of(struct iscsi_portal *p, int fd)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	struct iscsi_portal *twin;

	pthread_mutex_lock(&iscsi_global.lock);
	twin = p->v4_twin;
	pthread_mutex_unlock(&iscsi_global.lock);
	if (!twin || getsockname(fd, (struct sockaddr *)&local, &len) < 0 ||
	    local.ss_family != AF_INET6 ||
	    !IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&local)->sin6_addr))
		return p;
	return twin;
}

static void portal_accept_cb(struct reactor_fd *h, uint32_t revents)
{
	static struct log_ratelimit rl = LOG_RATELIMIT_INIT(10ull * 1000000000ull, 3);
	struct iscsi_portal *p = container_of(h, struct iscsi_portal, rfd);

	for (int i = 0; i < PORTAL_ACCEPT_BATCH; i++) {
		int fd = accept4(p->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    log_ratelimit_ok(&rl))
				log_warn("iscsi: accept on %s: %s", p->addr, strerror(errno));
			return;
		}
		/* admitted always: at a cap of logins in progress the
		 * longest-silent one makes room (admission.h) */
		iscsi_conn_hand_off(reactor_pool_next(), fd, portal_of(p, fd));
	}
}

static struct iscsi_portal *portal_find_locked(const struct sockaddr_storage *sa)
{
	struct iscsi_portal *p;

	list_for_each_entry(p, &iscsi_global.portals, node) if (sa_equal(&p->sa, sa)) return p;
	return NULL;
}

static int portal_bind(struct iscsi_portal *p, struct iscsi_tpg *tpg)
{
	struct iscsi_bind *b;

	list_for_each_entry(b, &tpg->binds, tpg_node) if (b->portal == p) return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->portal = p;
	b->tpg = tpg;
	list_add_tail(&p->binds, &b->portal_node);
	list_add_tail(&tpg->binds, &b->tpg_node);
	return 0;
}

static uint16_t sa_port(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)a)->sin6_port
					: ((const struct sockaddr_in *)a)->sin_port;
}

/* Under the lock: the open wildcard portal of the other family on p's port. */
static struct iscsi_portal *wildcard_peer_locked(const struct iscsi_portal *p, int family)
{
	struct iscsi_portal *q;

	list_for_each_entry(q, &iscsi_global.portals,
			    node) if (q->wildcard && q->sa.ss_family == family &&
				      sa_port(&q->sa) == sa_port(&p->sa)) return q;
	return NULL;
}

static int portal_open(struct iscsi_portal *p)
{
	int one = 1, zero = 0, fd, rc;
	bool dual = false;

	if (p->wildcard) {
		struct iscsi_portal *q;

		pthread_mutex_lock(&iscsi_global.lock);
		q = wildcard_peer_locked(p, p->sa.ss_family == AF_INET ? AF_INET6 : AF_INET);
		if (q && p->sa.ss_family == AF_INET && q->dual && !q->v4_twin) {
			/* IPv4 peers already arrive through [::]: ride on it */
			p->host = q;
			q->v4_twin = p;
			p->fd = -1;
			pthread_mutex_unlock(&iscsi_global.lock);
			return 0;
		}
		/* [::] is dual-stack unless 0.0.0.0 has its own socket */
		dual = p->sa.ss_family == AF_INET6 && !q;
		pthread_mutex_unlock(&iscsi_global.lock);
	}
	fd = socket(p->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (p->sa.ss_family == AF_INET6)
		/* specific IPv6 addresses, and [::] beside a 0.0.0.0 socket: IPv6
		 * only; [::] alone: both families (a host without IPv6 is not an
		 * error for the IPv4 side: the kernel refuses the option then) */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual ? &zero : &one, sizeof(one));
	p->dual = dual;
	if (bind(fd, (struct sockaddr *)&p->sa, p->salen) < 0 || listen(fd, PORTAL_BACKLOG) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = reactor_fd_add(reactor_pool_get(0), &p->rfd, fd, REACTOR_IN, portal_accept_cb);
	if (rc) {
		close(fd);
		return rc;
	}
	p->fd = fd;
	return 0;
}

int iscsi_tpg_portal_add(struct iscsi_tpg *tpg, const char *addr)
{
	struct sockaddr_storage sa;
	struct iscsi_portal *p;
	socklen_t salen;
	int rc;

	rc = iscsi_addr_parse(addr, &sa, &salen);
	if (rc) {
		log_err("iscsi: portal \"%s\": not an address:port", addr ? addr : "");
		return rc;
	}
	pthread_mutex_lock(&iscsi_global.lock);
	p = portal_find_locked(&sa);
	if (p) {
		/* another portal group on the same address: share the socket */
		rc = portal_bind(p, tpg);
		pthread_mutex_unlock(&iscsi_global.lock);
		iscsi_isns_changed();
		return rc;
	}
	pthread_mutex_unlock(&iscsi_global.lock);

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	memcpy(&p->sa, &sa, sizeof(sa));
	p->salen = salen;
	p->wildcard = sa_wildcard(&sa);
	list_init(&p->binds);
	rc = portal_open(p);
	if (rc) {
		log_err("iscsi: cannot listen on %s: %s", addr, strerror(-rc));
		free(p);
		return rc;
	}
	pthread_mutex_lock(&iscsi_global.lock);
	list_add_tail(&iscsi_global.portals, &p->node);
	rc = portal_bind(p, tpg);
	pthread_mutex_unlock(&iscsi_global.lock);
	log_info("iscsi: listening on %s for %s tpgt %u", addr, tpg->target->name, tpg->tag);
	iscsi_isns_changed();
	return rc;
}

/* Connections still logging in through p find no portal group any more
 * (login.c looks c->portal up under the lock). Lock held. */
static void portal_forget_conns_locked(struct iscsi_portal *p)
{
	struct iscsi_conn *c;

	list_for_each_entry(c, &iscsi_global.conns, all_node) if (c->portal == p) c->portal = NULL;
}

/* p has left iscsi_global.portals (no group uses it): close and free it. A
 * twin leaves its host; a host with a twin hands the twin a socket of its
 * own (it could not bind while [::] held the port for IPv4 too). */
static void portal_close(struct iscsi_portal *p)
{
	struct iscsi_portal *twin;
	int rc;

	pthread_mutex_lock(&iscsi_global.lock);
	portal_forget_conns_locked(p);
	if (p->host)
		p->host->v4_twin = NULL;
	twin = p->v4_twin;
	if (twin) {
		twin->host = NULL;
		p->v4_twin = NULL;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (p->fd >= 0) {
		reactor_fd_del(&p->rfd);
		close(p->fd);
		p->fd = -1;
	}
	free(p);
	if (twin && !portals_closed && (rc = portal_open(twin)))
		log_err("iscsi: %s: cannot listen on its own once [::] closed: %s", twin->addr,
			strerror(-rc));
}

void iscsi_tpg_unbind_all(struct iscsi_tpg *tpg)
{
	struct iscsi_bind *b, *tmp;
	struct list_node idle;
	struct iscsi_portal *p, *ptmp;

	list_init(&idle);
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry_safe(b, tmp, &tpg->binds, tpg_node)
	{
		p = b->portal;
		list_del(&b->tpg_node);
		list_del(&b->portal_node);
		free(b);
		if (list_empty(&p->binds) && list_linked(&p->node)) {
			list_del(&p->node);
			list_add_tail(&idle, &p->node);
		}
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	list_for_each_entry_safe(p, ptmp, &idle, node)
	{
		list_del(&p->node);
		log_info("iscsi: no longer listening on %s", p->addr);
		portal_close(p);
	}
}

void iscsi_portals_close_all(void)
{
	struct iscsi_portal *p;

	pthread_mutex_lock(&iscsi_global.lock);
	portals_closed = true;
	list_for_each_entry(p, &iscsi_global.portals, node) if (p->fd >= 0)
	{
		reactor_fd_del(&p->rfd);
		close(p->fd);
		p->fd = -1;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
}

struct iscsi_portal *iscsi_portal_new_virtual(struct iscsi_tpg *tpg)
{
	struct iscsi_portal *p = calloc(1, sizeof(*p));
	struct sockaddr_in *s4;

	if (!p)
		return NULL;
	s4 = (struct sockaddr_in *)&p->sa;
	snprintf(p->addr, sizeof(p->addr), "127.0.0.1:3260");
	s4->sin_family = AF_INET;
	s4->sin_port = htons(3260);
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->salen = sizeof(*s4);
	p->fd = -1;
	list_init(&p->node);
	list_init(&p->binds);
	pthread_mutex_lock(&iscsi_global.lock);
	if (portal_bind(p, tpg)) {
		pthread_mutex_unlock(&iscsi_global.lock);
		free(p);
		return NULL;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	return p;
}

void iscsi_portal_free_virtual(struct iscsi_portal *p)
{
	struct iscsi_bind *b, *tmp;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry_safe(b, tmp, &p->binds, portal_node)
	{
		list_del(&b->tpg_node);
		list_del(&b->portal_node);
		free(b);
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	free(p);
}

int iscsi_tpg_portal_del(struct iscsi_tpg *tpg, const char *addr)
{
	struct sockaddr_storage sa;
	struct iscsi_bind *b, *found = NULL;
	struct iscsi_portal *p = NULL;
	socklen_t salen;

	if (iscsi_addr_parse(addr, &sa, &salen))
		return -EINVAL;
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(b, &tpg->binds, tpg_node) if (sa_equal(&b->portal->sa, &sa))
	{
		found = b;
		break;
	}
	if (!found) {
		pthread_mutex_unlock(&iscsi_global.lock);
		return -ENOENT;
	}
	p = found->portal;
	list_del(&found->tpg_node);
	list_del(&found->portal_node);
	free(found);
	iscsi_isns_changed();
	if (!list_empty(&p->binds) || !list_linked(&p->node)) {
		pthread_mutex_unlock(&iscsi_global.lock);
		return 0;
	}
	/* the last group left: close it; logins that came through it and have
	 * not found their portal group yet find none (login.c looks it up under
	 * this lock), established sessions stay */
	list_del(&p->node);
	pthread_mutex_unlock(&iscsi_global.lock);
	log_info("iscsi: no longer listening on %s", p->addr);
	portal_close(p);
	return 0;
}
