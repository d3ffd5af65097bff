/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conn.c: the connection: state machine (RFC 7143 8.1), socket I/O, PDU
 * dispatch, send queue. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/login.h"
#include "fabric/iscsi/retain.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/crc32c.h"
#include "lib/log.h"

#define CONN_RXBUF_LOGIN (16u << 10)  /* login and discovery */
#define CONN_RXBUF_FFP	 (256u << 10) /* full feature phase of a normal session */
#define CONN_DIRECT_MIN	 (4u << 10)   /* read data segments this large in place */
#define CONN_IOV_MAX	 64
#define CONN_TX_FREE_MAX 256u

/* ---- RFC 7143 8.1.3: target connection state transitions ----
 * S2 XPT_WAIT and S7 LOGOUT_REQUESTED are not entered: S2 is initiator
 * only, S7 would follow an Async "logout requested" the target never sends.
 * Pairs not in the table are protocol errors: the connection is dropped. */
struct conn_transition {
	uint8_t next; /* enum iscsi_conn_state, 0: illegal */
	const char *label;
};

/* clang-format off */
static const struct conn_transition conn_fsm[ISCSI_CONN_S8_CLEANUP_WAIT + 1][ISCSI_CEV_COUNT] = {
	[ISCSI_CONN_S3_XPT_UP] = {
		[ISCSI_CEV_LOGIN_REQ] = { ISCSI_CONN_S4_IN_LOGIN, "T4" },
		[ISCSI_CEV_TRANSPORT] = { ISCSI_CONN_S1_FREE, "T6" },
		[ISCSI_CEV_DROP] = { ISCSI_CONN_S1_FREE, "T6" },
	},
	[ISCSI_CONN_S4_IN_LOGIN] = {
		[ISCSI_CEV_LOGIN_OK] = { ISCSI_CONN_S5_LOGGED_IN, "T5" },
		[ISCSI_CEV_LOGIN_FAIL] = { ISCSI_CONN_S1_FREE, "T7" },
		[ISCSI_CEV_TRANSPORT] = { ISCSI_CONN_S1_FREE, "T7" },
		[ISCSI_CEV_DROP] = { ISCSI_CONN_S1_FREE, "T7" },
	},
	[ISCSI_CONN_S5_LOGGED_IN] = {
		[ISCSI_CEV_LOGOUT_REQ] = { ISCSI_CONN_S6_IN_LOGOUT, "T10" },
		[ISCSI_CEV_TRANSPORT] = { ISCSI_CONN_S8_CLEANUP_WAIT, "T15" },
		/* reinstatement, reset, shutdown: closed cleanly by the target */
		[ISCSI_CEV_DROP] = { ISCSI_CONN_S1_FREE, "T8" },
	},
	[ISCSI_CONN_S6_IN_LOGOUT] = {
		[ISCSI_CEV_LOGOUT_SENT] = { ISCSI_CONN_S1_FREE, "T13" },
		[ISCSI_CEV_TRANSPORT] = { ISCSI_CONN_S8_CLEANUP_WAIT, "T17" },
		[ISCSI_CEV_DROP] = { ISCSI_CONN_S1_FREE, "T13" },
	},
	[ISCSI_CONN_S8_CLEANUP_WAIT] = {
		/* ERL 0 keeps no connection state for recovery: clean up at once
		 * (8.2, the session fails with its only connection) */
		[ISCSI_CEV_CLEANED] = { ISCSI_CONN_S1_FREE, "T18" },
		[ISCSI_CEV_TRANSPORT] = { ISCSI_CONN_S8_CLEANUP_WAIT, "-" },
		[ISCSI_CEV_DROP] = { ISCSI_CONN_S8_CLEANUP_WAIT, "-" },
	},
};
/* clang-format on */

static const char *const conn_state_names[] = {
    [ISCSI_CONN_S1_FREE] = "S1 FREE",
    [ISCSI_CONN_S3_XPT_UP] = "S3 XPT_UP",
    [ISCSI_CONN_S4_IN_LOGIN] = "S4 IN_LOGIN",
    [ISCSI_CONN_S5_LOGGED_IN] = "S5 LOGGED_IN",
    [ISCSI_CONN_S6_IN_LOGOUT] = "S6 IN_LOGOUT",
    [ISCSI_CONN_S7_LOGOUT_REQUESTED] = "S7 LOGOUT_REQUESTED",
    [ISCSI_CONN_S8_CLEANUP_WAIT] = "S8 CLEANUP_WAIT",
};

static void conn_close(struct iscsi_conn *c, bool clean);
/* readiness to read: not while paused, nor when io_uring reads */
#define CONN_IN(c) ((c)->rx_paused || (c)->ur.on ? 0u : (uint32_t)REACTOR_IN)
static void conn_io_cb(struct reactor_fd *h, uint32_t revents);
static void conn_flush_cb(struct reactor_defer *d);
static const struct iscsi_rx_ops conn_rx_ops;

enum iscsi_conn_state iscsi_conn_state(const struct iscsi_conn *c)
{
	return (enum iscsi_conn_state)c->state;
}

bool iscsi_conn_dead(const struct iscsi_conn *c)
{
	return c->state == ISCSI_CONN_S1_FREE || c->state == ISCSI_CONN_S8_CLEANUP_WAIT;
}

void iscsi_conn_event(struct iscsi_conn *c, enum iscsi_conn_event ev)
{
	const struct conn_transition *t;
	uint8_t from = c->state;

	if (from == ISCSI_CONN_S1_FREE)
		return;
	t = &conn_fsm[from][ev];
	if (!t->next) {
		log_warn("iscsi: %s: event %d illegal in %s: dropping the connection", c->peer,
			 (int)ev, conn_state_names[from]);
		ev = ISCSI_CEV_TRANSPORT;
		t = &conn_fsm[from][ev];
		if (!t->next)
			t = &conn_fsm[ISCSI_CONN_S3_XPT_UP][ISCSI_CEV_TRANSPORT];
	}
	c->state = t->next;
	log_debug("iscsi: %s: %s -> %s (%s)", c->peer, conn_state_names[from],
		  conn_state_names[c->state], t->label);
	if (c->state == ISCSI_CONN_S8_CLEANUP_WAIT) {
		/* conn_close() drops the connection's own reference: a caller
		 * without one of its own (a timer: NOP-In timeout) must not see
		 * c freed before the CLEANED transition */
		iscsi_conn_get(c);
		conn_close(c, false);
		iscsi_conn_event(c, ISCSI_CEV_CLEANED);
		iscsi_conn_put(c);
	} else if (c->state == ISCSI_CONN_S1_FREE && from != ISCSI_CONN_S8_CLEANUP_WAIT) {
		conn_close(c, ev == ISCSI_CEV_LOGOUT_SENT);
	}
}

void iscsi_conn_drop(struct iscsi_conn *c, const char *why)
{
	if (c->state == ISCSI_CONN_S1_FREE)
		return;
	if (why)
		log_info("iscsi: %s: dropping the connection: %s", c->peer, why);
	iscsi_conn_event(c, ISCSI_CEV_TRANSPORT);
}

/* Protocol error lines are limited per connection and per initiator
 * address (a peer that reconnects gets no fresh allowance). */
#define PERR_SLOTS 64u
static struct {
	pthread_mutex_t lock;
	struct {
		uint32_t key;
		struct log_ratelimit rl;
	} slot[PERR_SLOTS];
} perr = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool perr_ok(const struct iscsi_conn *c)
{
	/* the peer address without its port */
	const char *colon = strrchr(c->peer, ':');
	size_t n = colon ? (size_t)(colon - c->peer) : strlen(c->peer);
	uint32_t key = crc32c(c->peer, n) | 1;
	unsigned i = key % PERR_SLOTS;
	bool ok;

	pthread_mutex_lock(&perr.lock);
	if (perr.slot[i].key != key) {
		perr.slot[i].key = key;
		perr.slot[i].rl =
		    (struct log_ratelimit)LOG_RATELIMIT_INIT(10ull * 1000000000ull, 10);
	}
	ok = log_ratelimit_ok(&perr.slot[i].rl);
	pthread_mutex_unlock(&perr.lock);
	return ok;
}

UT_PRINTF(2, 0)
static void proto_vlog(struct iscsi_conn *c, const char *fmt, va_list ap)
{
	char msg[256];

	if (!log_ratelimit_ok(&c->rl) || !perr_ok(c))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_warn("iscsi: %s%s%s: protocol error: %s", c->peer, c->sess ? " " : "",
		 c->sess ? c->sess->initiator_port : "", msg);
}

void iscsi_conn_proto_err(struct iscsi_conn *c, const char *fmt, ...)
{
	va_list ap;

	iscsi_count_conn_error(c, ISCSI_FAIL_FORMAT);
	va_start(ap, fmt);
	proto_vlog(c, fmt, ap);
	va_end(ap);
}

void iscsi_conn_digest_err(struct iscsi_conn *c, const char *fmt, ...)
{
	va_list ap;

	iscsi_count_conn_error(c, ISCSI_FAIL_DIGEST);
	va_start(ap, fmt);
	proto_vlog(c, fmt, ap);
	va_end(ap);
}

/* ---- references and life ---- */

void iscsi_conn_get(struct iscsi_conn *c)
{
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}

static void conn_free(struct iscsi_conn *c)
{
	struct iscsi_tx *tx, *tmp;

	list_for_each_entry_safe(tx, tmp, &c->tx_free, node)
	{
		list_del(&tx->node);
		free(tx);
	}
	for (unsigned i = 0; i < c->ntasks; i++)
		free(c->task_tab[i]);
	free(c->task_tab);
	free(c->rxbuf);
	free(c->seg);
	free(c);
	atomic_fetch_sub_explicit(&iscsi_global.alive, 1, memory_order_release);
}

unsigned iscsi_conns_alive(void)
{
	return atomic_load_explicit(&iscsi_global.alive, memory_order_acquire);
}

void iscsi_conn_put(struct iscsi_conn *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		conn_free(c);
}

/* Allocate and initialize; no reactor call (may run on another thread than
 * the connection's reactor). */
static struct iscsi_conn *conn_alloc(struct reactor *r, int fd, struct iscsi_portal *portal,
				     const struct iscsi_conn_io *io)
{
	struct iscsi_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->rxbuf_size = CONN_RXBUF_LOGIN;
	c->rxbuf = malloc(c->rxbuf_size);
	if (!c->rxbuf) {
		free(c);
		return NULL;
	}
	c->r = r;
	c->fd = fd;
	c->io = io;
	c->sock_reactor = -1;
	c->portal = portal;
	atomic_init(&c->refs, 1);
	atomic_fetch_add_explicit(&iscsi_global.alive, 1, memory_order_relaxed);
	c->state = ISCSI_CONN_S3_XPT_UP; /* T3: the transport connection is up */
	iscsi_rx_init(&c->rx, &conn_rx_ops);
	list_init(&c->txq);
	list_init(&c->retained);
	list_init(&c->tx_free);
	list_init(&c->tasks);
	list_init(&c->task_free);
	list_init(&c->sess_node);
	list_init(&c->all_node);
	list_init(&c->reinstate_node);
	list_init(&c->adm.node);
	for (unsigned i = 0; i < ISCSI_ITT_BUCKETS; i++)
		list_init(&c->itt_hash[i]);
	reactor_defer_init(&c->flush, conn_flush_cb);
	reactor_timer_init(&c->login_timer, NULL);
	reactor_timer_init(&c->nop_timer, NULL);
	reactor_timer_init(&c->aen_timer, NULL);
	reactor_timer_init(&c->mem_timer, NULL);
	reactor_timer_init(&c->dataout_timer, NULL);
	c->max_send_dsl = 8192; /* RFC 7143 13.12 default until declared */
	c->max_recv_dsl = ISCSI_LOGIN_DSL;
	c->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10ull * 1000000000ull, 5);
	atomic_init(&c->last_rx_ns, reactor_now_ns());
	snprintf(c->peer, sizeof(c->peer), "conn-%p", (void *)c);
	snprintf(c->local, sizeof(c->local), "%s", portal ? portal->addr : "-");
	if (fd >= 0) {
		struct sockaddr_storage peer;
		socklen_t sl = sizeof(peer);
		int one = 1;

		if (getpeername(fd, (struct sockaddr *)&peer, &sl) == 0) {
			iscsi_addr_format((struct sockaddr *)&peer, c->peer, sizeof(c->peer));
			c->peer_sa = peer;
		}
		sl = sizeof(c->local_sa);
		if (getsockname(fd, (struct sockaddr *)&c->local_sa, &sl) == 0)
			iscsi_addr_format((struct sockaddr *)&c->local_sa, c->local,
					  sizeof(c->local));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else if (portal) {
		memcpy(&c->local_sa, &portal->sa, sizeof(c->local_sa));
	}

	pthread_mutex_lock(&iscsi_global.lock);
	list_add_tail(&iscsi_global.conns, &c->all_node);
	iscsi_global.nconns++;
	c->registered = true;
	pthread_mutex_unlock(&iscsi_global.lock);
	return c;
}

/* On the connection's reactor: watch the socket, start the login timer. */
static int conn_attach(struct iscsi_conn *c)
{
	if (c->fd >= 0 && !c->io) {
		int rc = reactor_fd_add(c->r, &c->rfd, c->fd, REACTOR_IN, conn_io_cb);

		if (rc) {
			log_err("iscsi: %s: cannot watch the socket: %s", c->peer, strerror(-rc));
			iscsi_conn_drop(c, NULL);
			return rc;
		}
	}
	iscsi_adm_attached(c); /* its silence counts from here */
	iscsi_login_timeout_arm(c);
	return 0;
}

struct iscsi_conn *iscsi_conn_new(struct reactor *r, int fd, struct iscsi_portal *portal,
				  const struct iscsi_conn_io *io)
{
	struct iscsi_conn *c = conn_alloc(r, fd, portal, io);

	if (!c)
		return NULL;
	if (conn_attach(c))
		return NULL; /* dropped: the connection's reference is gone */
	iscsi_conn_get(c);   /* the caller's, until iscsi_conn_destroy() */
	return c;
}

static void conn_start_msg(struct reactor_msg *m)
{
	struct iscsi_conn *c = container_of(m, struct iscsi_conn, start_msg);

	if (!iscsi_conn_dead(c)) /* not dropped before it started */
		conn_attach(c);
	iscsi_conn_put(c); /* the connection lives on through its own reference */
}

void iscsi_conn_hand_off(struct reactor *r, int fd, struct iscsi_portal *portal)
{
	struct iscsi_conn *c;

	if (!r)
		r = reactor_self(); /* no pool: stay on the accepting reactor */
	c = conn_alloc(r, fd, portal, NULL);

	if (!c) {
		log_err("iscsi: out of memory for a new connection");
		close(fd);
		return;
	}
	/* before it starts: it holds its slot from its first byte on */
	iscsi_adm_login(c);
	iscsi_conn_get(c);
	c->start_msg.fn = conn_start_msg;
	reactor_post(r, &c->start_msg);
}

static void conn_drop_msg(struct reactor_msg *m)
{
	struct iscsi_conn *c = container_of(m, struct iscsi_conn, drop_msg);

	iscsi_conn_event(c, ISCSI_CEV_DROP);
	/* only now may drop_msg be posted again */
	pthread_mutex_lock(&iscsi_global.lock);
	c->drop_posted = false;
	pthread_mutex_unlock(&iscsi_global.lock);
	iscsi_conn_put(c);
}

void iscsi_conn_drop_async(struct iscsi_conn *c)
{
	/* callers hold iscsi_global.lock, which serializes drop_posted; c is
	 * still registered (closed connections leave every list under it) */
	if (c->drop_posted || c->state == ISCSI_CONN_S1_FREE)
		return;
	c->drop_posted = true;
	iscsi_conn_get(c);
	c->drop_msg.fn = conn_drop_msg;
	reactor_post(c->r, &c->drop_msg);
}

/* ---- MC/S: a joining connection goes to its session's reactor ----
 * Every connection of a session lives on the session's reactor (s->r): the
 * CmdSN window, the held list, the task and buffer accounting are the
 * session's and are touched there without a lock. A login that joins a
 * session accepted on another reactor (portal.c spreads new connections)
 * is moved there, paused, between its last Login Request and the final
 * response. On its own reactor, in a posted message (out of the receive
 * path, whose tail still uses the socket's registration), the socket, the
 * login timer and a pending flush leave it; on the session's reactor they
 * are set up again and the login goes on. A drop posted to the old reactor
 * before the move must find the connection there: then it stays. With
 * iscsi.spread_connections the socket itself stays behind, read and
 * written there for the connection by conn_split.c's shell. */
static void conn_move_arrive(struct reactor_msg *m)
{
	struct iscsi_conn *c = container_of(m, struct iscsi_conn, move_msg);

	if (!iscsi_conn_dead(c)) {
		int rc = 0;

		if (c->fd >= 0 && !c->io)
			rc = reactor_fd_add(c->r, &c->rfd, c->fd, 0, conn_io_cb); /* paused */
		if (rc) {
			log_err("iscsi: %s: cannot watch the socket: %s", c->peer, strerror(-rc));
			iscsi_conn_drop(c, NULL);
		} else {
			if (c->move_left_ns)
				reactor_timer_arm(c->r, &c->login_timer, c->move_left_ns);
			if (!list_empty(&c->txq))
				reactor_defer(c->r, &c->flush);
			c->move_done(c);
		}
	}
	iscsi_conn_put(c);
}

static void conn_move_depart(struct reactor_msg *m)
{
	struct iscsi_conn *c = container_of(m, struct iscsi_conn, move_msg);
	uint64_t now = reactor_now_ns();
	int split_rc = 0;
	bool go;

	if (iscsi_conn_dead(c)) {
		iscsi_conn_put(c);
		return;
	}
	c->move_left_ns = 0;
	if (reactor_timer_armed(&c->login_timer))
		c->move_left_ns = c->login_timer.when_ns > now ? c->login_timer.when_ns - now : 1;
	pthread_mutex_lock(&iscsi_global.lock);
	go = !c->drop_posted;
	if (go) {
		reactor_timer_cancel(&c->login_timer);
		reactor_defer_cancel(&c->flush);
		if (c->fd >= 0 && !c->io) {
			reactor_fd_del(&c->rfd);
			/* spread: the socket stays here (conn_split.c); else,
			 * or when that fails, it moves with the connection */
			if (iscsi_global.settings.spread_connections)
				split_rc = iscsi_split_start(c, c->move_to);
		}
		c->out_armed = false;
		c->r = c->move_to; /* read under the lock by drop_async, admin.c */
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (split_rc)
		log_info("iscsi: %s: connection cid %u: its socket moves with it (%s)", c->peer,
			 c->cid,
			 split_rc == -ENOMEM ? "no room for its rings in half of "
					       "iscsi.max_buffer_memory_mib"
					     : strerror(-split_rc));
	if (!go) {
		iscsi_conn_put(c); /* the drop posted here ends it */
		return;
	}
	c->move_msg.fn = conn_move_arrive;
	reactor_post(c->r, &c->move_msg); /* carries the reference */
}

void iscsi_conn_move(struct iscsi_conn *c, struct reactor *to, void (*done)(struct iscsi_conn *c))
{
	c->move_to = to;
	c->move_done = done;
	iscsi_conn_get(c);
	c->move_msg.fn = conn_move_depart;
	reactor_post(c->r, &c->move_msg);
}

void iscsi_conn_destroy(struct iscsi_conn *c)
{
	iscsi_conn_event(c, ISCSI_CEV_DROP);
	iscsi_conn_put(c);
}

/* Tear down the transport side: socket, timers, queued PDUs, login state;
 * the session learns that the connection is gone. */
static void conn_close(struct iscsi_conn *c, bool clean)
{
	struct iscsi_tx *tx, *tmp;
	struct iscsi_session *s = c->sess;
	/* ERL 2: a failure (or a removal for recovery) keeps the tasks and
	 * the retained copies for TASK REASSIGN (erl2.c) */
	bool recover = iscsi_erl2_conn_closing(c, clean);

	/* first: admission.c may look into the socket of a member */
	iscsi_adm_leave(c);
	iscsi_split_detach(c);
	if (c->fd >= 0) {
		iscsi_conn_uring_close(c);
		if (!c->io)
			reactor_fd_del(&c->rfd);
		close(c->fd);
		c->fd = -1;
	}
	reactor_timer_cancel(&c->login_timer);
	reactor_timer_cancel(&c->nop_timer);
	reactor_timer_cancel(&c->aen_timer);
	reactor_timer_cancel(&c->dataout_timer);
	iscsi_mem_conn_close(c);
	if (!recover)
		iscsi_retain_free(c);
	reactor_defer_cancel(&c->flush);
	list_for_each_entry_safe(tx, tmp, &c->txq, node)
	{
		struct iscsi_task *t = (tx->flags & ISCSI_TX_F_TASK_DONE) ? tx->task : NULL;

		if (s && (tx->flags & ISCSI_TX_F_SESSQ))
			s->txq_bytes -= iscsi_tx_wire_len(tx);
		list_del(&tx->node);
		free(tx->heap);
		free(tx);
		if (t)
			iscsi_task_put(t);
	}
	c->txq_bytes = 0;
	if (c->login)
		iscsi_login_free(c);
	if (c->text)
		iscsi_text_free(c);
	if (s) {
		c->sess = NULL;
		iscsi_conn_get(c);
		iscsi_session_remove_conn(s, c, clean || c->leave_clean);
		if (!recover)
			iscsi_tasks_terminate(c);
		iscsi_conn_put(c);
	}
	if (c->target) {
		iscsi_target_put(c->target);
		c->target = NULL;
	}
	if (c->registered) {
		pthread_mutex_lock(&iscsi_global.lock);
		list_del(&c->all_node);
		iscsi_global.nconns--;
		c->registered = false;
		pthread_cond_broadcast(&iscsi_global.conns_cv);
		pthread_mutex_unlock(&iscsi_global.lock);
	}
	iscsi_conn_put(c); /* the connection's own reference */
}

void iscsi_conn_pause(struct iscsi_conn *c)
{
	if (c->rx_paused)
		return;
	c->rx_paused = true;
	if (c->fd >= 0 && !c->io)
		reactor_fd_mod(&c->rfd, c->out_armed ? REACTOR_OUT : 0);
}

static void conn_process_buffered(struct iscsi_conn *c);
static ssize_t conn_feed(struct iscsi_conn *c, const uint8_t *p, size_t len);

void iscsi_conn_resume(struct iscsi_conn *c)
{
	if (!c->rx_paused || iscsi_conn_dead(c) || c->mem_wait)
		return;
	c->rx_paused = false;
	if (c->fd >= 0 && !c->io)
		reactor_fd_mod(&c->rfd, CONN_IN(c) | (c->out_armed ? REACTOR_OUT : 0));
	if (c->rx.held && !c->in_rx) {
		/* the header callback paused before a data segment: go on */
		iscsi_conn_get(c);
		conn_feed(c, NULL, 0);
		if (!iscsi_conn_dead(c))
			iscsi_conn_flush(c);
		iscsi_conn_put(c);
		if (c->rx_paused || iscsi_conn_dead(c))
			return;
	}
	conn_process_buffered(c);
	iscsi_split_drain(c);
	iscsi_conn_uring_resume(c);
}

uint8_t *iscsi_conn_seg(struct iscsi_conn *c, uint32_t len)
{
	if (len <= c->seg_size)
		return c->seg;
	/* bounded by the receive limit checked before this call */
	uint8_t *p = realloc(c->seg, len);

	if (!p)
		return NULL;
	c->seg = p;
	c->seg_size = len;
	return p;
}

uint32_t iscsi_conn_rx_limit(const struct iscsi_conn *c)
{
	if (c->state == ISCSI_CONN_S3_XPT_UP || c->state == ISCSI_CONN_S4_IN_LOGIN)
		return ISCSI_LOGIN_DSL;
	return c->max_recv_dsl;
}

/* ---- receive ---- */

static bool conn_ffp(const struct iscsi_conn *c)
{
	return c->state == ISCSI_CONN_S5_LOGGED_IN || c->state == ISCSI_CONN_S6_IN_LOGOUT;
}

static int rx_header(struct iscsi_rx *rx)
{
	struct iscsi_conn *c = container_of(rx, struct iscsi_conn, rx);
	unsigned op = iscsi_hdr_opcode(&rx->hdr);
	uint32_t limit = iscsi_conn_rx_limit(c);

	if (iscsi_conn_dead(c))
		return -ECONNRESET;
	if (!conn_ffp(c)) {
		if (op != ISCSI_OP_LOGIN_REQ) {
			if (c->state == ISCSI_CONN_S3_XPT_UP) {
				iscsi_conn_drop(c, "first PDU is not a Login Request");
				return -ECONNRESET;
			}
			/* RFC 7143 6.3: only Login PDUs until full feature phase */
			iscsi_login_fail(c, ISCSI_LS_INVALID_DURING_LOGIN, NULL);
			c->rx_discard = true;
			return 0;
		}
	} else if (op == ISCSI_OP_LOGIN_REQ) {
		iscsi_conn_proto_err(c, "Login Request in full feature phase");
		iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, &rx->hdr);
		iscsi_conn_flush(c);
		iscsi_conn_drop(c, NULL);
		return -ECONNRESET;
	}
	if (rx->dsl > limit) {
		/* RFC 7143 13.12: above the declared MaxRecvDataSegmentLength */
		iscsi_conn_proto_err(c, "DataSegmentLength %u over %u (opcode 0x%02x)", rx->dsl,
				     limit, op);
		if (conn_ffp(c))
			iscsi_reject(c, ISCSI_REJECT_PROTOCOL_ERROR, &rx->hdr);
		else
			iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		iscsi_conn_flush(c);
		iscsi_conn_drop(c, NULL);
		return -ECONNRESET;
	}
	switch (op) {
	case ISCSI_OP_SCSI_CMD:
		return iscsi_scsi_cmd_rx_header(c, rx);
	case ISCSI_OP_DATA_OUT:
		return iscsi_data_out_rx_header(c, rx);
	case ISCSI_OP_LOGIN_REQ:
	case ISCSI_OP_TEXT_REQ:
	case ISCSI_OP_NOP_OUT:
		if (rx->dsl) {
			rx->dst = iscsi_conn_seg(c, rx->dsl);
			if (!rx->dst) {
				iscsi_conn_drop(c, "out of memory");
				return -ENOMEM;
			}
			rx->keep = rx->dsl;
		}
		return 0;
	default:
		return 0; /* the data segment, if any, is discarded */
	}
}

/* A whole PDU arrived: the connection's and the session's counters
 * (iscsi.h: iscsi_conn_info, iscsi_session_info). An error found in it
 * blames c's end on its kind; an earlier one is forgotten. */
static void rx_count(struct iscsi_conn *c, const struct iscsi_rx *rx, unsigned op)
{
	uint64_t wire = ISCSI_BHS_LEN + rx->ahs_len + rx->dsl + rx->pad;

	if (rx->hdigest)
		wire += ISCSI_DIGEST_LEN;
	if (rx->ddigest && rx->dsl)
		wire += ISCSI_DIGEST_LEN;
	c->fail_kind = ISCSI_FAIL_NONE;
	iscsi_session_count(&c->stat_rx_pdus, 1);
	iscsi_session_count(&c->stat_rx_bytes, wire);
	if (!c->sess)
		return;
	if (rx->dsl)
		iscsi_session_count(&c->sess->stat_rx_data, rx->dsl);
	if (op == ISCSI_OP_SCSI_CMD)
		iscsi_session_count(&c->sess->stat_cmd_pdus, 1);
}

static int rx_pdu(struct iscsi_rx *rx, bool ddigest_ok)
{
	struct iscsi_conn *c = container_of(rx, struct iscsi_conn, rx);
	const union iscsi_hdr *h = &rx->hdr;
	unsigned op = iscsi_hdr_opcode(h);
	int rc;

	if (iscsi_conn_dead(c))
		return -ECONNRESET;
	rx_count(c, rx, op);
	c->hdig_skips = 0;
	if (iscsi_erl1(c)) {
		/* RFC 7143 7.1: every request's ExpStatSN (offset 28)
		 * acknowledges the status before it, and the data of its task */
		c->exp_stat_sn = get_be32(h->raw + 28);
		iscsi_retain_ack(c, c->exp_stat_sn);
	}
	if (c->sess && !list_empty(&c->sess->ack_waits))
		iscsi_ack_waits_rx(c, h);
	if (c->rx_discard) {
		c->rx_discard = false;
		return c->rx_paused ? 1 : 0;
	}
	if (op == ISCSI_OP_SCSI_CMD)
		return iscsi_scsi_cmd_rx_end(c, rx, ddigest_ok);
	if (op == ISCSI_OP_DATA_OUT)
		return iscsi_data_out_rx_end(c, rx, ddigest_ok);
	if (!ddigest_ok) {
		/* RFC 7143 7.8: a PDU with a data digest error is discarded
		 * and rejected; ERL 0 cannot recover the lost request. */
		iscsi_conn_digest_err(c, "data digest error (opcode 0x%02x)", op);
		iscsi_reject(c, ISCSI_REJECT_DATA_DIGEST, h);
		return 0;
	}
	switch (op) {
	case ISCSI_OP_LOGIN_REQ:
		rc = iscsi_login_rx(c, h, rx->dst, rx->dsl);
		break;
	case ISCSI_OP_TEXT_REQ:
		rc = iscsi_text_rx(c, h, rx->dst, rx->dsl);
		break;
	case ISCSI_OP_NOP_OUT:
		rc = iscsi_nop_out_rx(c, h, rx->dst, rx->dsl);
		break;
	case ISCSI_OP_LOGOUT_REQ:
		rc = iscsi_logout_rx(c, h);
		break;
	case ISCSI_OP_TMF_REQ:
		rc = iscsi_tmf_rx(c, h);
		break;
	case ISCSI_OP_SNACK_REQ:
		rc = iscsi_snack_rx(c, h); /* ERL 0: rejected */
		break;
	default:
		iscsi_conn_proto_err(c, "unsupported opcode 0x%02x", op);
		iscsi_reject(c, ISCSI_REJECT_CMD_NOT_SUPPORTED, h);
		rc = 0;
		break;
	}
	if (rc < 0)
		return rc;
	if (iscsi_conn_dead(c))
		return -ECONNRESET;
	if (c->rx_paused)
		return 1;
	return 0;
}

static int rx_header_digest_error(struct iscsi_rx *rx)
{
	struct iscsi_conn *c = container_of(rx, struct iscsi_conn, rx);

	/* RFC 7143 7.8: the header cannot be trusted (not even its length);
	 * at ERL 0 the connection is dropped. At ERL >= 1 the PDU is
	 * discarded when its length is plausible (within our
	 * MaxRecvDataSegmentLength) and the initiator recovers it (7.2.1:
	 * retry, SNACK, recovery R2T); a second error in a row means the
	 * framing was lost: the connection goes then. */
	if (iscsi_erl1(c) && c->hdig_skips == 0 && rx->dsl <= iscsi_conn_rx_limit(c) &&
	    !c->rx_paused) {
		c->hdig_skips++;
		iscsi_conn_digest_err(c, "header digest error: PDU discarded (%u bytes)", rx->dsl);
		return ISCSI_RX_SKIP;
	}
	iscsi_conn_digest_err(c, "header digest error");
	iscsi_conn_drop(c, NULL);
	return -EBADMSG;
}

static const struct iscsi_rx_ops conn_rx_ops = {
    .header = rx_header,
    .pdu = rx_pdu,
    .header_digest_error = rx_header_digest_error,
};

/* Run bytes through the receive machine. Returns bytes consumed or < 0 when
 * the connection is gone. */
static ssize_t conn_feed(struct iscsi_conn *c, const uint8_t *p, size_t len)
{
	ssize_t n;

	c->in_rx = true;
	n = iscsi_rx_feed(&c->rx, p, len);
	c->in_rx = false;
	if (n < 0 || iscsi_conn_dead(c)) {
		if (!iscsi_conn_dead(c))
			iscsi_conn_drop(c, "receive error");
		return -ECONNRESET;
	}
	return n;
}

ssize_t iscsi_conn_rx_bytes(struct iscsi_conn *c, const uint8_t *p, size_t len)
{
	return conn_feed(c, p, len);
}

/* Bytes left in rxbuf by a pause. */
static void conn_process_buffered(struct iscsi_conn *c)
{
	ssize_t n;

	if (c->rx_off >= c->rx_have || c->in_rx)
		return;
	iscsi_conn_get(c);
	n = conn_feed(c, c->rxbuf + c->rx_off, c->rx_have - c->rx_off);
	if (n >= 0) {
		c->rx_off += (uint32_t)n;
		if (c->rx_off == c->rx_have)
			c->rx_off = c->rx_have = 0;
	}
	if (!iscsi_conn_dead(c))
		iscsi_conn_flush(c);
	iscsi_conn_put(c);
}

static uint32_t conn_rxbuf_size(const struct iscsi_conn *c)
{
	return c->sess && c->sess->type == ISCSI_SESSION_NORMAL && conn_ffp(c) ? CONN_RXBUF_FFP
									       : CONN_RXBUF_LOGIN;
}

int iscsi_conn_rx_iov(struct iscsi_conn *c, struct iovec iov[2], size_t *dlen)
{
	uint32_t size = conn_rxbuf_size(c);
	uint8_t *dst;
	int niov = 0;

	c->rx_off = c->rx_have = 0;
	if (size > c->rxbuf_size) {
		/* full feature phase: the large buffer (login used a small one) */
		uint8_t *nb = realloc(c->rxbuf, size);

		if (nb) {
			c->rxbuf = nb;
			c->rxbuf_size = size;
		}
	}
	*dlen = 0;
	if (iscsi_rx_direct(&c->rx, CONN_DIRECT_MIN, &dst, dlen)) {
		iov[niov].iov_base = dst;
		iov[niov].iov_len = *dlen;
		niov++;
	}
	iov[niov].iov_base = c->rxbuf;
	iov[niov].iov_len = c->rxbuf_size;
	return niov + 1;
}

void iscsi_conn_rx_done(struct iscsi_conn *c, ssize_t n, size_t dlen)
{
	if (n < 0) {
		if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
			return;
		iscsi_conn_drop(c, strerror((int)-n));
		return;
	}
	if (n == 0) {
		log_debug("iscsi: %s: peer closed the connection", c->peer);
		iscsi_conn_drop(c, NULL);
		return;
	}
	/* the peer is alive (nop.c), and not silent (admission.c) */
	atomic_store_explicit(&c->last_rx_ns, reactor_now_ns(), memory_order_relaxed);
	if (dlen) {
		size_t d = UT_MIN((size_t)n, dlen);
		ssize_t rc;

		c->in_rx = true;
		rc = iscsi_rx_direct_done(&c->rx, d);
		c->in_rx = false;
		if (rc < 0 || iscsi_conn_dead(c)) {
			if (!iscsi_conn_dead(c))
				iscsi_conn_drop(c, "receive error");
			return;
		}
		n -= (ssize_t)d;
		if (rc > 0) {
			/* paused at the end of the PDU: keep the rest */
			c->rx_have = (uint32_t)n;
			return;
		}
	}
	c->rx_have = (uint32_t)n;
	conn_process_buffered(c);
}

/* One read per readiness event: into the buffer, or straight into a data
 * segment's destination with the rest into the buffer. */
static void conn_read(struct iscsi_conn *c)
{
	struct iovec iov[2];
	size_t dlen;
	ssize_t n;
	int niov;

	if (c->rx_paused || c->rx_off < c->rx_have || c->ur.on)
		return;
	if (iscsi_conn_uring_start(c))
		return;
	niov = iscsi_conn_rx_iov(c, iov, &dlen);
	n = readv(c->fd, iov, niov);
	iscsi_conn_rx_done(c, n < 0 ? -errno : n, dlen);
}

static void conn_io_cb(struct reactor_fd *h, uint32_t revents)
{
	struct iscsi_conn *c = container_of(h, struct iscsi_conn, rfd);

	iscsi_conn_get(c);
	if ((revents & REACTOR_OUT) && !iscsi_conn_dead(c))
		iscsi_conn_flush(c);
	if ((revents & (REACTOR_IN | REACTOR_ERR | REACTOR_HUP)) && !iscsi_conn_dead(c))
		conn_read(c);
	iscsi_conn_put(c);
}

int iscsi_conn_feed(struct iscsi_conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	if (iscsi_conn_dead(c))
		return -ECONNRESET;
	iscsi_conn_get(c);
	atomic_store_explicit(&c->last_rx_ns, reactor_now_ns(), memory_order_relaxed);
	if (c->rx_paused) {
		/* keep what fits for after the pause (tests and fuzzing only) */
		uint32_t room = c->rxbuf_size - c->rx_have;
		uint32_t k = (uint32_t)UT_MIN((size_t)room, len);

		memcpy(c->rxbuf + c->rx_have, p, k);
		c->rx_have += k;
		n = 0;
	} else {
		n = conn_feed(c, p, len);
		if (n >= 0 && (size_t)n < len) {
			uint32_t k = (uint32_t)UT_MIN((size_t)c->rxbuf_size, len - (size_t)n);

			c->rx_off = 0;
			c->rx_have = k;
			memcpy(c->rxbuf, p + n, k);
		}
	}
	if (!iscsi_conn_dead(c))
		iscsi_conn_flush(c);
	n = iscsi_conn_dead(c) ? -ECONNRESET : 0;
	iscsi_conn_put(c);
	return (int)n;
}

/* ---- transmit ---- */

struct iscsi_tx *iscsi_tx_get(struct iscsi_conn *c)
{
	struct iscsi_tx *tx;

	if (!list_empty(&c->tx_free)) {
		tx = list_first_entry(&c->tx_free, struct iscsi_tx, node);
		list_del(&tx->node);
		c->tx_free_n--;
	} else {
		tx = malloc(sizeof(*tx));
		if (!tx)
			return NULL;
	}
	memset(tx, 0, offsetof(struct iscsi_tx, small));
	list_init(&tx->node);
	return tx;
}

static void tx_recycle(struct iscsi_conn *c, struct iscsi_tx *tx)
{
	free(tx->heap);
	tx->heap = NULL;
	if (c->tx_free_n < CONN_TX_FREE_MAX) {
		list_add(&c->tx_free, &tx->node);
		c->tx_free_n++;
	} else {
		free(tx);
	}
}

void iscsi_tx_put(struct iscsi_conn *c, struct iscsi_tx *tx)
{
	tx_recycle(c, tx);
}

int iscsi_tx_set_data(struct iscsi_tx *tx, const void *p, uint32_t len)
{
	if (len <= ISCSI_TX_SMALL) {
		memcpy(tx->small, p, len);
		tx->data = tx->small;
	} else {
		tx->heap = malloc(len);
		if (!tx->heap)
			return -ENOMEM;
		memcpy(tx->heap, p, len);
		tx->data = tx->heap;
	}
	tx->len = len;
	return 0;
}

void iscsi_conn_fill_sn(struct iscsi_conn *c, uint8_t *statsn, uint8_t *exp_cmdsn,
			uint8_t *max_cmdsn, bool advance)
{
	struct iscsi_session *s = c->sess;

	put_be32(statsn, c->stat_sn);
	if (advance)
		c->stat_sn++;
	if (s) {
		put_be32(exp_cmdsn, s->cmdsn.exp);
		put_be32(max_cmdsn, iscsi_mem_max_cmdsn(c));
	} else if (c->login) {
		/* login: the leading request's CmdSN, window of one */
		put_be32(exp_cmdsn, c->login->cmdsn);
		put_be32(max_cmdsn, c->login->cmdsn);
	}
}

void iscsi_tx_queue(struct iscsi_conn *c, struct iscsi_tx *tx)
{
	if (iscsi_conn_dead(c)) {
		struct iscsi_task *t = (tx->flags & ISCSI_TX_F_TASK_DONE) ? tx->task : NULL;

		tx_recycle(c, tx);
		if (t)
			iscsi_task_put(t);
		return;
	}
	if (c->hdigest)
		tx->flags |= ISCSI_TX_F_HDIGEST;
	if (c->ddigest)
		tx->flags |= ISCSI_TX_F_DDIGEST;
	iscsi_tx_seal(tx);
	if (!(tx->flags & ISCSI_TX_F_RETX) && c->sess && iscsi_erl1(c))
		iscsi_retain_tx(c, tx); /* a copy for SNACK (retain.h) */
	list_add_tail(&c->txq, &tx->node);
	c->txq_bytes += iscsi_tx_wire_len(tx);
	if (c->sess) {
		/* the session's share counts what was queued while it existed */
		tx->flags |= ISCSI_TX_F_SESSQ;
		c->sess->txq_bytes += iscsi_tx_wire_len(tx);
	}
	if (iscsi_sendq_over(c))
		iscsi_conn_pause(c); /* the initiator does not read: stop reading too */
	if (c->r)
		reactor_defer(c->r, &c->flush);
}

static void conn_flush_cb(struct reactor_defer *d)
{
	struct iscsi_conn *c = container_of(d, struct iscsi_conn, flush);

	iscsi_conn_get(c);
	iscsi_conn_flush(c);
	iscsi_conn_put(c);
}

static void conn_set_out(struct iscsi_conn *c, bool on)
{
	if (c->out_armed == on || c->fd < 0 || c->io)
		return;
	c->out_armed = on;
	reactor_fd_mod(&c->rfd, CONN_IN(c) | (on ? REACTOR_OUT : 0));
}

/* A unit is on the wire. */
static void tx_sent(struct iscsi_conn *c, struct iscsi_tx *tx)
{
	struct iscsi_task *t = (tx->flags & ISCSI_TX_F_TASK_DONE) ? tx->task : NULL;
	bool close_after = tx->flags & ISCSI_TX_F_CLOSE;

	c->txq_bytes -= iscsi_tx_wire_len(tx);
	if (tx->flags & ISCSI_TX_F_LENT)
		c->txq_lent--;
	iscsi_session_count(&c->stat_tx_pdus, 1);
	iscsi_session_count(&c->stat_tx_bytes, iscsi_tx_wire_len(tx));
	if (c->sess) {
		unsigned op = iscsi_hdr_opcode(&tx->hdr);

		if (tx->flags & ISCSI_TX_F_SESSQ)
			c->sess->txq_bytes -= iscsi_tx_wire_len(tx);
		if (tx->len)
			iscsi_session_count(&c->sess->stat_tx_data, tx->len);
		/* a command's status: SCSI Response, or Data-In with S */
		if (op == ISCSI_OP_SCSI_RSP ||
		    (op == ISCSI_OP_DATA_IN && (tx->hdr.data_in.flags & ISCSI_DATAIN_F_STATUS)))
			iscsi_session_count(&c->sess->stat_rsp_pdus, 1);
	}
	list_del(&tx->node);
	tx_recycle(c, tx);
	if (t)
		iscsi_task_put(t);
	if (close_after)
		c->close_after_flush = true;
}

/* The queue cannot go now (the socket is full, or a Response Fence holds
 * it): Data-In still lent from the page cache (bs.h BS_IO_LEND) is copied
 * into its task's buffer (scsi_cmd_unlend), so that what a lent READ holds
 * back -- newer ORDERED tasks, COMPARE AND WRITE of its blocks, from every
 * initiator -- waits for this reactor turn, never for as long as this
 * initiator takes to read. */
static void conn_unlend(struct iscsi_conn *c)
{
	struct iscsi_tx *tx;

	list_for_each_entry(tx, &c->txq, node)
	{
		struct scsi_cmd *cmd;

		if (!(tx->flags & ISCSI_TX_F_LENT))
			continue;
		tx->flags &= (uint8_t)~ISCSI_TX_F_LENT;
		cmd = &tx->task->cmd;
		if (scsi_cmd_unlend(cmd) < 0) {
			/* the image was cut short under the mapping */
			iscsi_conn_drop(c, "lent Data-In no longer readable");
			return;
		}
		tx->data = cmd->buf + get_be32(tx->hdr.data_in.buffer_offset);
	}
	c->txq_lent = 0;
}

void iscsi_conn_flush(struct iscsi_conn *c)
{
	struct iovec iov[CONN_IOV_MAX];

	/* Response Fence: another connection's fenced response is not yet
	 * acknowledged (task_reporting.c); flushed when it is */
	if (unlikely(c->fence_pre ||
		     (c->sess && c->sess->fence_conn && c->sess->fence_conn != c))) {
		conn_set_out(c, false); /* no wake-ups for a held queue */
		if (c->txq_lent)
			conn_unlend(c);
		return;
	}

	while (!list_empty(&c->txq) && !iscsi_conn_dead(c)) {
		struct iscsi_tx *tx;
		size_t want = 0;
		ssize_t n;
		int niov = 0;

		list_for_each_entry(tx, &c->txq, node)
		{
			int k;

			if (niov > CONN_IOV_MAX - 6)
				break;
			k = iscsi_tx_iov(tx, iov + niov, CONN_IOV_MAX - niov);
			for (int i = 0; i < k; i++)
				want += iov[niov + i].iov_len;
			niov += k;
			if (tx->flags & ISCSI_TX_F_CLOSE)
				break; /* nothing after a closing unit */
		}
		if (c->io) {
			n = c->io->writev(c, iov, niov);
		} else if (c->fd >= 0) {
			struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)niov};

			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				n = -errno;
		} else {
			n = -EPIPE;
		}
		if (n < 0) {
			if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) {
				conn_set_out(c, true);
				if (c->txq_lent)
					conn_unlend(c);
				return;
			}
			iscsi_conn_drop(c, strerror((int)-n));
			return;
		}
		while (n > 0 && !list_empty(&c->txq)) {
			uint32_t left;

			tx = list_first_entry(&c->txq, struct iscsi_tx, node);
			left = iscsi_tx_wire_len(tx) - tx->sent;
			if ((size_t)n < left) {
				tx->sent += (uint32_t)n;
				break;
			}
			n -= left;
			tx_sent(c, tx);
			if (c->close_after_flush)
				break;
		}
		if (c->close_after_flush) {
			iscsi_conn_event(c, (enum iscsi_conn_event)c->close_ev);
			return;
		}
		if ((size_t)n < want && !list_empty(&c->txq)) {
			if (!c->io) {
				conn_set_out(c, true);
				return;
			}
		}
	}
	conn_set_out(c, false);
	if (c->rx_paused && iscsi_sendq_drained(c) && !c->login && !c->logout_pending &&
	    conn_ffp(c))
		iscsi_conn_resume(c);
}
