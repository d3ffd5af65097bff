/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns.c: the iSNS client (RFC 4171) on reactor 0; the interface is
 * iscsi.h's iSNS part, what is registered is described in isns.h.
 *
 * One TCP connection to the server (non-blocking connect, 5 s timeout),
 * one request in flight at a time (10 s for its response). A "cycle" is the
 * requests of one update, built from a snapshot of the fabric:
 *   full     DevAttrReg with Replace (split over messages when large), an
 *            SCNReg per target (DD member added/removed, object
 *            added/removed/updated), and with access control a DD query
 *            per target; with no target left, DevDereg of the entity
 *   dd       the DD queries only (after an SCN)
 * A full cycle runs at connect, 200 ms after the last change of targets,
 * portal groups, portals or aliases (iscsi_isns_changed()), and every half
 * registration period the server answered (5 minutes when it gave none;
 * between 10 s and 10 minutes), which also re-creates a registration the
 * server lost. A failure (connect, I/O, a malformed message, a
 * registration refused) closes the connection and retries after 1 s,
 * doubling to 60 s.
 *
 * ESI and SCN (5.6.5.13, 5.6.5.8): a listener on the configured ESI port
 * (0: ephemeral), registered as every portal's ESI Port and SCN Port,
 * accepts up to 8 connections from the server's address (any other is
 * closed at once); an ESI is answered with an
 * ESI Response echoing its attributes, an SCN with an SCN Response, and
 * with access control an SCN starts a dd cycle (and, since a server need
 * not deliver SCNs - open-isns sends none for DD changes made with
 * isnsadm - a dd cycle also runs 10 s after each cycle). The same messages arriving
 * over the registration connection are answered there.
 *
 * Access control (iscsi_isns_admits(), read by every reactor under
 * isns.lock): an initiator may see (SendTargets) and log in to a target
 * only if some discovery domain returned by the target's DD query lists
 * both names as members, the way tgt's iSNS access control decides. Until
 * the first DD queries answered (or while the server never answered),
 * nothing is admitted: closed, not open, on failure; the last view stays
 * while the server is unreachable.
 *
 * Host names are resolved (getaddrinfo, blocking) when the configuration
 * is applied and at each reconnect; an IP address needs no lookup.
 * Security (authentication blocks, 5.5) is not supported: the server must
 * run without it; a message with an authentication block is refused. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fabric/iscsi/isns.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "lib/reactor.h"

#define NS		  1000000000ull
#define CONNECT_NS	  (5 * NS)
#define RSP_NS		  (10 * NS)
#define BACKOFF_MIN_NS	  (1 * NS)
#define BACKOFF_MAX_NS	  (60 * NS)
#define DEBOUNCE_NS	  (200 * 1000000ull)
#define REFRESH_DEFAULT_S 300u
#define PEERS_MAX	  8
#define DDPOLL_NS	  (10 * NS)
#define SCN_BITMAP                                                                                 \
	(ISNS_SCN_DD_MEMBER_ADDED | ISNS_SCN_DD_MEMBER_REMOVED | ISNS_SCN_OBJECT_UPDATED |         \
	 ISNS_SCN_OBJECT_ADDED | ISNS_SCN_OBJECT_REMOVED)

enum req_kind { REQ_REG, REQ_SCNREG, REQ_DDQ, REQ_DEREG };
enum cycle_kind { CYCLE_FULL, CYCLE_DD };

struct isns_req {
	uint8_t *p;
	size_t n;
	uint16_t xid;
	uint8_t kind;
	char node[ISCSI_NAME_MAX + 1];
};

struct isns_peer {
	bool used;
	int fd;
	struct reactor_fd rfd;
	struct isns_rx rx;
};

static struct {
	pthread_mutex_t lock; /* dd, dd_valid, st */
	struct isns_dd_set dd;
	bool dd_valid;
	struct iscsi_isns_status st;

	/* reactor 0 only */
	struct reactor *r;
	bool timers_init;
	struct iscsi_isns_config cfg;
	char eid[ISNS_EID_MAX + 1];
	struct sockaddr_storage sa;
	socklen_t salen;
	int fd;
	struct reactor_fd rfd;
	bool connecting, connected;
	struct isns_rx rx;
	struct isns_req *q;
	size_t qn, qi, woff;
	bool busy, again_full, again_dd;
	struct isns_dd_set dd_pending;
	bool dd_queried;
	uint16_t xid;
	struct reactor_timer retry, refresh, debounce, rsp_timer, ddpoll;
	uint64_t backoff_ns;
	unsigned refresh_s;
	int lfd;
	struct reactor_fd lrfd;
	struct isns_peer peers[PEERS_MAX];
	/* what the server holds (for the deregistration) */
	bool registered;
	char reg_eid[ISNS_EID_MAX + 1];
	char reg_source[ISCSI_NAME_MAX + 1];
	unsigned snap_targets, snap_portals, snap_pgs;
} isns = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .lfd = -1};

static void cycle_start(enum cycle_kind k);
static void conn_close(void);

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The error in the status; logged as a warning when it differs from the
 * last one (a server down for hours: one line, not one per retry). */
static void set_error(const char *fmt, ...)
{
	char msg[sizeof(isns.st.last_error)];
	bool same;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&isns.lock);
	same = !strcmp(msg, isns.st.last_error);
	memcpy(isns.st.last_error, msg, sizeof(msg));
	pthread_mutex_unlock(&isns.lock);
	if (same)
		log_debug("isns: %s", msg);
	else
		log_warn("isns: %s", msg);
}

static void status_update(void)
{
	pthread_mutex_lock(&isns.lock);
	isns.st.enabled = isns.cfg.enabled;
	isns.st.connected = isns.connected;
	isns.st.registered = isns.registered;
	isns.st.access_control = isns.cfg.enabled && isns.cfg.access_control;
	pthread_mutex_unlock(&isns.lock);
}

/* ---- the queue of a cycle ---- */
static void queue_free(void)
{
	for (size_t i = 0; i < isns.qn; i++)
		free(isns.q[i].p);
	free(isns.q);
	isns.q = NULL;
	isns.qn = isns.qi = isns.woff = 0;
	isns.busy = false;
	isns_dd_set_free(&isns.dd_pending);
	isns.dd_queried = false;
}

/* Take b's message into the queue (b is reset). */
static int queue_add(struct isns_buf *b, uint8_t kind, const char *node)
{
	struct isns_req *v = realloc(isns.q, (isns.qn + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	isns.q = v;
	v[isns.qn] =
	    (struct isns_req){.p = b->p, .n = b->len, .xid = get_be16(b->p + 8), .kind = kind};
	snprintf(v[isns.qn].node, sizeof(v[isns.qn].node), "%s", node ? node : "");
	isns.qn++;
	*b = (struct isns_buf){0};
	return 0;
}

static uint16_t next_xid(void)
{
	if (++isns.xid == 0)
		isns.xid = 1;
	return isns.xid;
}

/* ---- the snapshot ---- */
/* addr's IP as 16 bytes (IPv4-mapped for IPv4) and port. */
static void sa_ip(const struct sockaddr_storage *sa, uint8_t ip[16], uint16_t *port)
{
	memset(ip, 0, 16);
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		ip[10] = ip[11] = 0xff;
		memcpy(ip + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		memcpy(ip, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
	}
}

static int snapshot_take(struct isns_snapshot *s)
{
	struct sockaddr_storage local = {0};
	socklen_t ll = sizeof(local);
	struct iscsi_target *t;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->eid, sizeof(s->eid), "%s", isns.eid);
	s->esi_port = isns.st.esi_port;
	if (isns.fd < 0 || getsockname(isns.fd, (struct sockaddr *)&local, &ll))
		local.ss_family = AF_UNSPEC;
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(t, &iscsi_global.targets, node)
	{
		struct isns_node *n, *nv;
		struct iscsi_tpg *tpg;

		if (t->removed)
			continue;
		nv = realloc(s->nodes, (s->nnodes + 1) * sizeof(*nv));
		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		s->nodes = nv;
		n = &nv[s->nnodes++];
		memset(n, 0, sizeof(*n));
		snprintf(n->name, sizeof(n->name), "%s", t->name);
		snprintf(n->alias, sizeof(n->alias), "%s", t->alias);
		list_for_each_entry(tpg, &t->tpgs, node)
		{
			struct iscsi_bind *b;

			if (tpg->removed)
				continue;
			list_for_each_entry(b, &tpg->binds, tpg_node)
			{
				struct sockaddr_storage sa = b->portal->sa;
				struct isns_pg *pv;
				uint8_t ip[16];
				uint16_t port;
				long k;

				if (b->portal->fd < 0 && !b->portal->host)
					continue; /* virtual, or not listening */
				sa_ip(&sa, ip, &port);
				if (b->portal->wildcard && local.ss_family != AF_UNSPEC) {
					uint16_t lp;

					sa_ip(&local, ip, &lp);
				}
				k = isns_snapshot_portal(s, ip, port);
				pv = k < 0 ? NULL : realloc(n->pgs, (n->npgs + 1) * sizeof(*pv));
				if (!pv) {
					rc = -ENOMEM;
					goto out;
				}
				n->pgs = pv;
				pv[n->npgs++] =
				    (struct isns_pg){.portal = (size_t)k, .tag = tpg->tag};
			}
		}
	}
out:
	pthread_mutex_unlock(&iscsi_global.lock);
	if (rc)
		isns_snapshot_free(s);
	return rc;
}

/* ---- sending ---- */
static void rsp_timeout(struct reactor_timer *t)
{
	(void)t;
	set_error("no answer from %s within %llu s", isns.st.server,
		  (unsigned long long)(RSP_NS / NS));
	conn_close();
}

static void io_update(void)
{
	uint32_t ev = REACTOR_IN;

	if (isns.connecting || (isns.busy && isns.qi < isns.qn && isns.woff < isns.q[isns.qi].n))
		ev |= REACTOR_OUT;
	reactor_fd_mod(&isns.rfd, ev);
}

static void send_current(void)
{
	struct isns_req *rq = &isns.q[isns.qi];

	while (isns.woff < rq->n) {
		ssize_t w = send(isns.fd, rq->p + isns.woff, rq->n - isns.woff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w < 0) {
			set_error("send to %s: %s", isns.st.server, strerror(errno));
			conn_close();
			return;
		}
		isns.woff += (size_t)w;
	}
	if (isns.woff == rq->n && !reactor_timer_armed(&isns.rsp_timer))
		reactor_timer_arm(isns.r, &isns.rsp_timer, RSP_NS);
	io_update();
}

static void cycle_done(void)
{
	bool full = false, dd = isns.dd_queried, dereg = false;

	for (size_t i = 0; i < isns.qn; i++) {
		full |= isns.q[i].kind == REQ_REG;
		dereg |= isns.q[i].kind == REQ_DEREG;
	}
	pthread_mutex_lock(&isns.lock);
	if (full) {
		isns.st.targets = isns.snap_targets;
		isns.st.portals = isns.snap_portals;
		isns.st.portal_groups = isns.snap_pgs;
		isns.st.last_registration = (int64_t)time(NULL);
		isns.st.registrations++;
		isns.st.last_error[0] = 0;
	}
	if (dereg) {
		isns.st.targets = isns.st.portals = isns.st.portal_groups = 0;
		isns.st.last_error[0] = 0;
	}
	if (dd) {
		isns_dd_set_free(&isns.dd);
		isns.dd = isns.dd_pending;
		isns.dd_pending = (struct isns_dd_set){0};
		isns.dd_valid = true;
		isns.st.ndds = 0;
		for (size_t i = 0; i < isns.dd.n && i < ISCSI_ISNS_DDS_MAX; i++) {
			isns.st.dds[i].id = isns.dd.v[i].id;
			snprintf(isns.st.dds[i].name, sizeof(isns.st.dds[i].name), "%s",
				 isns.dd.v[i].name);
			isns.st.dds[i].members = (unsigned)isns.dd.v[i].nmembers;
			isns.st.ndds++;
		}
	}
	pthread_mutex_unlock(&isns.lock);
	if (dereg)
		isns.registered = false;
	queue_free();
	status_update();
	if (full)
		log_info("isns: registered %u target(s), %u portal(s) with %s", isns.snap_targets,
			 isns.snap_portals, isns.st.server);
	if (isns.again_full || isns.again_dd) {
		enum cycle_kind k = isns.again_full ? CYCLE_FULL : CYCLE_DD;

		isns.again_full = isns.again_dd = false;
		cycle_start(k);
		return;
	}
	reactor_timer_arm(isns.r, &isns.refresh, (uint64_t)isns.refresh_s * NS);
	if (isns.cfg.access_control)
		reactor_timer_arm(isns.r, &isns.ddpoll, DDPOLL_NS);
}

static void next_request(void)
{
	isns.qi++;
	isns.woff = 0;
	if (isns.qi >= isns.qn)
		cycle_done();
	else
		send_current();
}

/* Build a cycle's requests; 0 with isns.q filled (maybe empty), or -errno. */
static int cycle_build(enum cycle_kind k)
{
	struct isns_snapshot s;
	struct isns_buf b = {0};
	size_t next = 0;
	int rc = snapshot_take(&s);

	if (rc)
		return rc;
	if (k == CYCLE_FULL && !s.nnodes && isns.registered) {
		rc = isns_dereg_build(isns.reg_eid, isns.reg_source, next_xid(), &b);
		if (!rc)
			rc = queue_add(&b, REQ_DEREG, NULL);
	}
	while (!rc && k == CYCLE_FULL && next < s.nnodes) {
		rc = isns_reg_build(&s, &next, next_xid(), &b);
		if (!rc)
			rc = queue_add(&b, REQ_REG, NULL);
	}
	for (size_t i = 0; !rc && k == CYCLE_FULL && i < s.nnodes; i++) {
		rc = isns_scnreg_build(s.nodes[i].name, SCN_BITMAP, next_xid(), &b);
		if (!rc)
			rc = queue_add(&b, REQ_SCNREG, s.nodes[i].name);
	}
	for (size_t i = 0; !rc && isns.cfg.access_control && i < s.nnodes; i++) {
		rc = isns_ddqry_build(s.nodes[i].name, next_xid(), &b);
		if (!rc)
			rc = queue_add(&b, REQ_DDQ, s.nodes[i].name);
	}
	if (!rc && k == CYCLE_FULL && s.nnodes) {
		isns.snap_targets = (unsigned)s.nnodes;
		isns.snap_portals = (unsigned)s.nportals;
		isns.snap_pgs = 0;
		for (size_t i = 0; i < s.nnodes; i++)
			isns.snap_pgs += (unsigned)s.nodes[i].npgs;
		snprintf(isns.reg_eid, sizeof(isns.reg_eid), "%s", s.eid);
		snprintf(isns.reg_source, sizeof(isns.reg_source), "%s", s.nodes[0].name);
	}
	isns_buf_free(&b);
	isns_snapshot_free(&s);
	return rc;
}

static void cycle_start(enum cycle_kind k)
{
	int rc;

	if (!isns.connected) /* the connect runs a full cycle */
		return;
	if (isns.busy) {
		if (k == CYCLE_FULL)
			isns.again_full = true;
		else
			isns.again_dd = true;
		return;
	}
	reactor_timer_cancel(&isns.refresh);
	rc = cycle_build(k);
	if (rc) {
		queue_free();
		set_error("cannot build the registration: %s", strerror(-rc));
		reactor_timer_arm(isns.r, &isns.refresh, BACKOFF_MAX_NS);
		return;
	}
	isns.busy = true;
	isns.qi = 0;
	isns.woff = 0;
	if (!isns.qn) {
		cycle_done();
		return;
	}
	send_current();
}

/* ---- receiving ---- */
/* Answer an ESI or SCN on fd (best effort: the server asks again). */
static void answer(int fd, const struct isns_msg *m)
{
	struct isns_buf b = {0};
	char dest[ISCSI_NAME_MAX + 1];
	uint32_t bitmap;
	int rc = -EBADMSG;

	if (m->func == ISNS_ESI && isns_esi_check(m->p, m->n) == 0) {
		rc = isns_esi_rsp(&b, m->xid, m->p, m->n);
		pthread_mutex_lock(&isns.lock);
		isns.st.esi_received++;
		pthread_mutex_unlock(&isns.lock);
	} else if (m->func == ISNS_SCN &&
		   isns_scn_parse(m->p, m->n, dest, sizeof(dest), &bitmap) == 0) {
		rc = isns_scn_rsp(&b, m->xid, dest);
		pthread_mutex_lock(&isns.lock);
		isns.st.scn_received++;
		pthread_mutex_unlock(&isns.lock);
		log_info("isns: SCN for %s (bitmap 0x%x)", dest, bitmap);
		if (isns.cfg.access_control)
			cycle_start(CYCLE_DD);
	} else {
		log_warn("isns: ignored a malformed or unexpected message (function 0x%04x)",
			 m->func);
	}
	if (!rc && send(fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)b.len)
		log_warn("isns: could not answer the server's message 0x%04x", m->func);
	isns_buf_free(&b);
}

static void on_response(const struct isns_msg *m)
{
	struct isns_req *rq;
	struct isns_iter it;
	struct isns_attr a;
	uint32_t status;

	if (!isns.busy || isns.qi >= isns.qn || isns.woff < isns.q[isns.qi].n) {
		log_warn("isns: unexpected response 0x%04x ignored", m->func);
		return;
	}
	rq = &isns.q[isns.qi];
	if (m->xid != rq->xid || m->func != (ISNS_RESPONSE | get_be16(rq->p + 2))) {
		log_warn("isns: response 0x%04x xid %u does not match the request (xid %u)",
			 m->func, m->xid, rq->xid);
		return;
	}
	reactor_timer_cancel(&isns.rsp_timer);
	if (isns_rsp_parse(m->p, m->n, &status, &it)) {
		set_error("malformed response from %s", isns.st.server);
		conn_close();
		return;
	}
	switch (rq->kind) {
	case REQ_REG:
		if (status) {
			set_error("registration refused by %s: %s (%u)", isns.st.server,
				  isns_status_name(status), status);
			conn_close();
			return;
		}
		isns.registered = true;
		/* the registration period the server keeps us (6.2.6) */
		while (isns_attr_next(&it, &a) > 0) {
			uint32_t v;

			if (a.tag == ISNS_TAG_REG_PERIOD && !isns_attr_u32(&a, &v) && v)
				isns.refresh_s = v / 2 < 10 ? 10 : v / 2 > 600 ? 600 : v / 2;
		}
		break;
	case REQ_SCNREG:
		if (status)
			set_error("SCN registration of %s refused: %s (%u)", rq->node,
				  isns_status_name(status), status);
		break;
	case REQ_DDQ:
		if (status == ISNS_OK) {
			int rc = isns_dd_parse(&it, &isns.dd_pending);

			if (rc) {
				set_error("discovery domains of %s: %s", rq->node,
					  rc == -ENOMEM ? "out of memory" : "malformed answer");
				break;
			}
		} else if (status != ISNS_ST_NO_SUCH_ENTRY) {
			set_error("discovery domains of %s: %s (%u)", rq->node,
				  isns_status_name(status), status);
			break;
		}
		isns.dd_queried = true;
		break;
	case REQ_DEREG:
		break;
	}
	next_request();
}

static void conn_io(struct reactor_fd *h, uint32_t revents)
{
	(void)h;
	if (isns.connecting) {
		int err = 0;
		socklen_t l = sizeof(err);

		if (!(revents & (REACTOR_OUT | REACTOR_ERR | REACTOR_HUP)))
			return;
		getsockopt(isns.fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			set_error("cannot connect to %s: %s", isns.st.server, strerror(err));
			conn_close();
			return;
		}
		isns.connecting = false;
		isns.connected = true;
		isns.backoff_ns = BACKOFF_MIN_NS;
		reactor_timer_cancel(&isns.rsp_timer);
		log_notice("isns: connected to %s", isns.st.server);
		status_update();
		io_update();
		cycle_start(CYCLE_FULL);
		return;
	}
	if (revents & REACTOR_OUT && isns.busy && isns.qi < isns.qn)
		send_current();
	if (isns.fd < 0)
		return;
	if (revents & (REACTOR_IN | REACTOR_ERR | REACTOR_HUP)) {
		for (;;) {
			uint8_t *p = isns_rx_space(&isns.rx, 16384);
			struct isns_msg m;
			ssize_t n;
			int rc;

			if (!p) {
				set_error("out of memory");
				conn_close();
				return;
			}
			n = recv(isns.fd, p, 16384, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (n <= 0) {
				set_error("%s closed the connection%s%s", isns.st.server,
					  n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
				conn_close();
				return;
			}
			isns_rx_added(&isns.rx, (size_t)n);
			while ((rc = isns_rx_take(&isns.rx, &m)) > 0) {
				if (m.func & ISNS_RESPONSE)
					on_response(&m);
				else
					answer(isns.fd, &m);
				if (isns.fd < 0)
					return;
			}
			if (rc < 0) {
				set_error("malformed PDU from %s", isns.st.server);
				conn_close();
				return;
			}
		}
	}
}

/* ---- connection ---- */
static int resolve(void)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	char port[8];
	int rc;

	snprintf(port, sizeof(port), "%u", isns.cfg.port ? isns.cfg.port : ISNS_DEFAULT_PORT);
	rc = getaddrinfo(isns.cfg.host, port, &hints, &ai);
	if (rc || !ai) {
		set_error("cannot resolve %s: %s", isns.cfg.host, gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	memcpy(&isns.sa, ai->ai_addr, ai->ai_addrlen);
	isns.salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void retry_later(void)
{
	reactor_timer_arm(isns.r, &isns.retry, isns.backoff_ns);
	isns.backoff_ns =
	    isns.backoff_ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : isns.backoff_ns * 2;
}

static void conn_close(void)
{
	reactor_timer_cancel(&isns.rsp_timer);
	reactor_timer_cancel(&isns.refresh);
	reactor_timer_cancel(&isns.debounce);
	reactor_timer_cancel(&isns.ddpoll);
	if (isns.fd >= 0) {
		reactor_fd_del(&isns.rfd);
		close(isns.fd);
		isns.fd = -1;
	}
	isns_rx_free(&isns.rx);
	queue_free();
	isns.again_full = isns.again_dd = false;
	isns.connecting = isns.connected = false;
	status_update();
	if (isns.cfg.enabled)
		retry_later();
}

static void conn_open(void)
{
	int fd, one = 1;

	if (resolve()) {
		retry_later();
		return;
	}
	fd = socket(isns.sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_error("socket: %s", strerror(errno));
		retry_later();
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&isns.sa, isns.salen) && errno != EINPROGRESS) {
		set_error("cannot connect to %s: %s", isns.st.server, strerror(errno));
		close(fd);
		retry_later();
		return;
	}
	if (reactor_fd_add(isns.r, &isns.rfd, fd, REACTOR_IN | REACTOR_OUT, conn_io)) {
		close(fd);
		retry_later();
		return;
	}
	isns.fd = fd;
	isns.connecting = true;
	reactor_timer_arm(isns.r, &isns.rsp_timer, CONNECT_NS);
}

static void retry_fire(struct reactor_timer *t)
{
	(void)t;
	if (isns.cfg.enabled && isns.fd < 0)
		conn_open();
}

static void refresh_fire(struct reactor_timer *t)
{
	(void)t;
	cycle_start(CYCLE_FULL);
}

static void ddpoll_fire(struct reactor_timer *t)
{
	(void)t;
	if (isns.cfg.access_control)
		cycle_start(CYCLE_DD);
}

static void debounce_fire(struct reactor_timer *t)
{
	(void)t;
	cycle_start(CYCLE_FULL);
}

void iscsi_isns_changed(void)
{
	if (isns.cfg.enabled && isns.connected && isns.r)
		reactor_timer_arm(isns.r, &isns.debounce, DEBOUNCE_NS);
}

/* ---- the ESI / SCN listener ---- */
static void peer_close(struct isns_peer *p)
{
	reactor_fd_del(&p->rfd);
	close(p->fd);
	isns_rx_free(&p->rx);
	p->used = false;
}

static void peer_io(struct reactor_fd *h, uint32_t revents)
{
	struct isns_peer *p = container_of(h, struct isns_peer, rfd);

	(void)revents;
	for (;;) {
		uint8_t *buf = isns_rx_space(&p->rx, 4096);
		struct isns_msg m;
		ssize_t n;
		int rc;

		if (!buf) {
			peer_close(p);
			return;
		}
		n = recv(p->fd, buf, 4096, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			peer_close(p);
			return;
		}
		isns_rx_added(&p->rx, (size_t)n);
		while ((rc = isns_rx_take(&p->rx, &m)) > 0)
			if (!(m.func & ISNS_RESPONSE))
				answer(p->fd, &m);
		if (rc < 0) {
			log_warn("isns: malformed PDU on the ESI/SCN port; connection closed");
			peer_close(p);
			return;
		}
	}
}

static void listen_accept(struct reactor_fd *h, uint32_t revents)
{
	(void)h;
	(void)revents;
	for (;;) {
		struct sockaddr_storage from = {0};
		socklen_t fl = sizeof(from);
		int fd =
		    accept4(isns.lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct isns_peer *p = NULL;
		uint8_t a[16], b[16];
		uint16_t port;

		if (fd < 0)
			return;
		/* the server only: nobody else may hold the slots */
		sa_ip(&from, a, &port);
		sa_ip(&isns.sa, b, &port);
		if (!isns.salen || memcmp(a, b, 16)) {
			close(fd);
			continue;
		}
		for (size_t i = 0; i < PEERS_MAX && !p; i++)
			if (!isns.peers[i].used)
				p = &isns.peers[i];
		if (!p) {
			close(fd); /* the server retries */
			continue;
		}
		*p = (struct isns_peer){.used = true, .fd = fd};
		if (reactor_fd_add(isns.r, &p->rfd, fd, REACTOR_IN, peer_io)) {
			close(fd);
			p->used = false;
		}
	}
}

static void listen_close(void)
{
	for (size_t i = 0; i < PEERS_MAX; i++)
		if (isns.peers[i].used)
			peer_close(&isns.peers[i]);
	if (isns.lfd >= 0) {
		reactor_fd_del(&isns.lrfd);
		close(isns.lfd);
		isns.lfd = -1;
	}
	isns.st.esi_port = 0;
}

/* Listen on [::]:port (dual stack), else 0.0.0.0:port. */
static int listen_open(uint16_t port)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	int fd, one = 1, zero = 0;
	uint8_t ip[16];
	uint16_t bound;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&s6, sizeof(s6))) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&s4, sizeof(s4))) {
			int rc = -errno;

			close(fd);
			return rc;
		}
	}
	if (listen(fd, 8) || getsockname(fd, (struct sockaddr *)&got, &gl) ||
	    reactor_fd_add(isns.r, &isns.lrfd, fd, REACTOR_IN, listen_accept)) {
		int rc = errno ? -errno : -EIO;

		close(fd);
		return rc;
	}
	isns.lfd = fd;
	sa_ip(&got, ip, &bound);
	isns.st.esi_port = bound;
	return 0;
}

/* ---- deregistration at stop (blocking, bounded) ---- */
static void dereg_sync(void)
{
	struct timeval tv = {.tv_sec = 1};
	struct isns_buf b = {0};
	uint8_t rsp[ISNS_HDR_LEN + 4];
	size_t got = 0;
	int fd;

	if (!isns.registered || !isns.salen)
		return;
	if (isns_dereg_build(isns.reg_eid, isns.reg_source, next_xid(), &b))
		goto out;
	fd = socket(isns.sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto out;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&isns.sa, isns.salen) == 0 &&
	    send(fd, b.p, b.len, MSG_NOSIGNAL) == (ssize_t)b.len) {
		while (got < sizeof(rsp)) {
			ssize_t n = recv(fd, rsp + got, sizeof(rsp) - got, 0);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
	}
	close(fd);
	if (got == sizeof(rsp) && get_be32(rsp + ISNS_HDR_LEN) == ISNS_OK)
		log_notice("isns: deregistered entity %s from %s", isns.reg_eid, isns.st.server);
	else
		log_warn("isns: deregistration of entity %s from %s not confirmed", isns.reg_eid,
			 isns.st.server);
out:
	isns_buf_free(&b);
	isns.registered = false;
}

static void stop_all(void)
{
	dereg_sync();
	isns.cfg.enabled = false;
	conn_close();
	reactor_timer_cancel(&isns.retry);
	listen_close();
	pthread_mutex_lock(&isns.lock);
	isns_dd_set_free(&isns.dd);
	isns.dd_valid = false;
	isns.st.ndds = 0;
	isns.st.targets = isns.st.portals = isns.st.portal_groups = 0;
	pthread_mutex_unlock(&isns.lock);
	status_update();
}

int iscsi_isns_configure(const struct iscsi_isns_config *c)
{
	struct iscsi_isns_config old = isns.cfg;
	bool same_server;
	int rc;

	if (c->enabled && !c->host[0])
		return -EINVAL;
	if (!isns.timers_init) {
		isns.r = reactor_pool_get(0);
		reactor_timer_init(&isns.retry, retry_fire);
		reactor_timer_init(&isns.refresh, refresh_fire);
		reactor_timer_init(&isns.debounce, debounce_fire);
		reactor_timer_init(&isns.rsp_timer, rsp_timeout);
		reactor_timer_init(&isns.ddpoll, ddpoll_fire);
		isns.timers_init = true;
	}
	same_server = old.enabled && c->enabled && !strcmp(old.host, c->host) &&
		      old.port == c->port && !strcmp(old.entity, c->entity) &&
		      old.esi_port == c->esi_port;
	if (same_server) {
		isns.cfg = *c;
		status_update();
		if (old.access_control != c->access_control) {
			if (!c->access_control) {
				pthread_mutex_lock(&isns.lock);
				isns_dd_set_free(&isns.dd);
				isns.dd_valid = false;
				isns.st.ndds = 0;
				pthread_mutex_unlock(&isns.lock);
			} else {
				cycle_start(CYCLE_DD);
			}
		}
		return 0;
	}
	if (old.enabled)
		stop_all();
	isns.cfg = *c;
	pthread_mutex_lock(&isns.lock);
	isns.st.last_error[0] = 0;
	isns.st.last_registration = 0;
	snprintf(isns.st.server, sizeof(isns.st.server), "%s%s%s:%u",
		 strchr(c->host, ':') ? "[" : "", c->host, strchr(c->host, ':') ? "]" : "",
		 c->port ? c->port : ISNS_DEFAULT_PORT);
	pthread_mutex_unlock(&isns.lock);
	if (!c->enabled) {
		status_update();
		return 0;
	}
	if (c->entity[0]) {
		snprintf(isns.eid, sizeof(isns.eid), "%s", c->entity);
	} else if (gethostname(isns.eid, sizeof(isns.eid) - 1)) {
		snprintf(isns.eid, sizeof(isns.eid), "utarget");
	}
	isns.eid[sizeof(isns.eid) - 1] = 0;
	snprintf(isns.st.entity, sizeof(isns.st.entity), "%s", isns.eid);
	isns.refresh_s = REFRESH_DEFAULT_S;
	isns.backoff_ns = BACKOFF_MIN_NS;
	rc = listen_open(c->esi_port);
	if (rc) {
		set_error("cannot listen on ESI port %u: %s", c->esi_port, strerror(-rc));
		isns.cfg.enabled = false;
		status_update();
		return rc;
	}
	log_notice("isns: server %s, entity %s, ESI/SCN port %u%s", isns.st.server, isns.eid,
		   isns.st.esi_port, c->access_control ? ", discovery domain access control" : "");
	status_update();
	conn_open();
	return 0;
}

void iscsi_isns_shutdown(void)
{
	if (isns.cfg.enabled)
		stop_all();
}

bool iscsi_isns_admits(const char *target, const char *initiator)
{
	bool ok;

	pthread_mutex_lock(&isns.lock);
	ok = !isns.st.access_control ||
	     (isns.dd_valid && initiator && isns_dd_shared(&isns.dd, target, initiator));
	pthread_mutex_unlock(&isns.lock);
	return ok;
}

void iscsi_isns_status(struct iscsi_isns_status *out)
{
	pthread_mutex_lock(&isns.lock);
	*out = isns.st;
	pthread_mutex_unlock(&isns.lock);
}
