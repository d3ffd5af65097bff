/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conn_split.c: MC/S spread over the reactors. A connection that joins a
 * session living on another reactor (login.c, iscsi_conn_move) keeps its
 * socket on the reactor that accepted it, the "socket reactor", while the
 * connection itself (its receive machine, tasks, send queue and state)
 * moves to the session's reactor (iscsi.spread_connections).
 *
 *   initiator ==TCP==> socket reactor X          session reactor S
 *                      readv -> rx ring ---------> conn_feed (conn.c)
 *                      sendmsg <- tx ring <------- iscsi_conn_flush: writev
 *
 * The session's state stays where it was (the CmdSN window, the held and
 * unentered lists, the accounting: session.h), written by S alone; what
 * goes to X is the socket's system calls, which are most of a command's
 * cost (docs/performance.md): with two connections on two reactors both
 * CPUs send and receive. The price is a copy of each byte into a ring on
 * the way in (X) and on the way out (S), and the messages between them.
 *
 * Two single-producer single-consumer byte rings carry the bytes: rx, X
 * writes and S reads; tx, S writes and X reads. A side that adds bytes
 * posts one message to the other unless one is already in flight (the
 * *_kick flags); a side that found its ring full sets *_wait and is posted
 * to when the other side made room (rechecking after it set the flag, so
 * no wake-up is lost), again only while that message is not in flight: a
 * reactor_msg is linked into the target's list until it runs, and posting
 * it twice would break that list. Errors and the end of the stream seen on X go to S
 * with the rx message (err); S then drops the connection as conn.c does
 * for its own socket.
 *
 * Life: the shell is created on X by conn_move_depart (conn.c), with one
 * reference for each side, one for each message in flight, and it holds a
 * reference to the connection. S lets go in conn_close
 * (iscsi_split_detach); X then sends what the tx ring still holds (the
 * Logout Response before the close, at most SPLIT_LINGER_NS), closes the
 * socket and lets go. The last reference frees the rings. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/bufpool.h"
#include "lib/log.h"
#include "lib/compiler.h"

#define SPLIT_RX_RING	(512u << 10) /* bytes read ahead for S */
#define SPLIT_TX_RING	(1u << 20)   /* bytes queued for X to send */
#define SPLIT_LINGER_NS (5 * NS_PER_S)

/* A byte ring with one producer and one consumer thread: free-running
 * positions (head: consumed, tail: produced), the size a power of two.
 * Every access to them is sequentially consistent: each side moves one and
 * then looks at the other side's wait flag, while the other sets that
 * flag and then looks at the position (the waits below); on x86 that costs
 * nothing over acquire and release (the loads are plain, the updates are
 * locked instructions either way). */
struct split_ring {
	uint8_t *buf;
	uint32_t size;
	_Atomic uint64_t head;
	_Atomic uint64_t tail;
};

struct iscsi_split {
	atomic_uint refs;
	struct iscsi_conn *c; /* referenced; used on S only */
	struct reactor *xr;   /* the socket reactor */
	struct reactor *sr;   /* the session reactor */
	int fd;
	struct reactor_fd rfd; /* on xr */
	struct reactor_timer linger;
	struct split_ring rx, tx;
	atomic_bool rx_kick; /* rx_msg in flight to S */
	atomic_bool rx_wait; /* X stopped reading: the rx ring was full */
	atomic_bool tx_kick; /* tx_msg in flight to X */
	atomic_bool tx_wait; /* S found the tx ring full */
	/* rxspace_msg, txspace_msg in flight: a message is posted once at a
	 * time (its link is in the target's list until it runs) */
	atomic_bool rxspace_kick, txspace_kick;
	_Atomic int err;      /* X: 0, -errno of the socket, or 1: end of stream */
	atomic_bool s_closed; /* S let go (iscsi_split_detach) */
	bool x_closed;	      /* X: the socket is closed */
	bool x_watched;	      /* X: rfd is in the epoll set */
	bool x_reading;	      /* X: EPOLLIN wanted */
	bool x_out;	      /* X: EPOLLOUT wanted */
	struct reactor_msg rx_msg, rxspace_msg, tx_msg, txspace_msg, close_msg;
};

/* ---- rings ---- */

/* The rings are buffer memory like a command's data: charged against
 * iscsi.max_buffer_memory_mib (lib/bufpool.h), of which they may take half
 * (iscsi_split_start). When there is no room for them the connection does
 * not spread; its socket moves with it. */
static int ring_init(struct split_ring *r, uint32_t size)
{
	r->buf = buf_alloc(size);
	r->size = size;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return r->buf ? 0 : -ENOMEM;
}

static void ring_fini(struct split_ring *r)
{
	if (r->buf)
		buf_free(r->buf, r->size);
	r->buf = NULL;
}

/* len bytes of the ring from the free-running position pos, in up to two
 * pieces (the second from the start of the buffer): their count. */
static int ring_iov(const struct split_ring *r, uint64_t pos, uint32_t len, struct iovec iov[2])
{
	uint32_t at = (uint32_t)pos & (r->size - 1);
	uint32_t first = UT_MIN(len, r->size - at);

	if (!len)
		return 0;
	iov[0] = (struct iovec){r->buf + at, first};
	if (first == len)
		return 1;
	iov[1] = (struct iovec){r->buf, len - first};
	return 2;
}

/* Producer: the free space. */
static int ring_space(struct split_ring *r, struct iovec iov[2])
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_seq_cst);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_seq_cst);

	return ring_iov(r, tail, r->size - (uint32_t)(tail - head), iov);
}

/* Consumer: the bytes. */
static int ring_data(struct split_ring *r, struct iovec iov[2])
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_seq_cst);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_seq_cst);

	return ring_iov(r, head, (uint32_t)(tail - head), iov);
}

static void ring_produced(struct split_ring *r, size_t n)
{
	atomic_fetch_add_explicit(&r->tail, n, memory_order_seq_cst);
}

static void ring_consumed(struct split_ring *r, size_t n)
{
	atomic_fetch_add_explicit(&r->head, n, memory_order_seq_cst);
}

static bool ring_full(struct split_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_seq_cst) -
		   atomic_load_explicit(&r->head, memory_order_seq_cst) >=
	       r->size;
}

static bool ring_empty(struct split_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_seq_cst) ==
	       atomic_load_explicit(&r->head, memory_order_seq_cst);
}

/* ---- the shell's life ---- */

static void split_put(struct iscsi_split *sh)
{
	if (atomic_fetch_sub_explicit(&sh->refs, 1, memory_order_acq_rel) != 1)
		return;
	ring_fini(&sh->rx);
	ring_fini(&sh->tx);
	iscsi_conn_put(sh->c);
	free(sh);
}

/* Post m to r unless one is in flight (*flag); the message carries a
 * reference. */
static void split_kick(struct iscsi_split *sh, atomic_bool *flag, struct reactor *r,
		       struct reactor_msg *m)
{
	if (atomic_exchange_explicit(flag, true, memory_order_seq_cst))
		return;
	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	reactor_post(r, m);
}

static void split_post(struct iscsi_split *sh, struct reactor *r, struct reactor_msg *m)
{
	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	reactor_post(r, m);
}

/* ---- the socket reactor (X) ---- */

static void x_events(struct iscsi_split *sh)
{
	if (!sh->x_watched)
		return;
	reactor_fd_mod(&sh->rfd, (sh->x_reading ? REACTOR_IN : 0) | (sh->x_out ? REACTOR_OUT : 0));
}

static void x_close(struct iscsi_split *sh)
{
	if (sh->x_closed)
		return;
	sh->x_closed = true;
	reactor_timer_cancel(&sh->linger);
	if (sh->x_watched)
		reactor_fd_del(&sh->rfd);
	sh->x_watched = false;
	close(sh->fd);
	sh->fd = -1;
	split_put(sh); /* X's reference */
}

/* Errors and the end of the stream go to S, which drops the connection.
 * The socket is no longer watched: epoll would report its hang-up on and
 * on until it is closed. */
static void x_fail(struct iscsi_split *sh, int err)
{
	int none = 0;

	atomic_compare_exchange_strong(&sh->err, &none, err);
	sh->x_reading = sh->x_out = false;
	if (sh->x_watched)
		reactor_fd_del(&sh->rfd);
	sh->x_watched = false;
	if (atomic_load(&sh->s_closed))
		x_close(sh);
	else
		split_kick(sh, &sh->rx_kick, sh->sr, &sh->rx_msg);
}

static void x_send(struct iscsi_split *sh)
{
	struct iovec iov[2];
	int n;

	while (!sh->x_closed && !atomic_load_explicit(&sh->err, memory_order_relaxed) &&
	       (n = ring_data(&sh->tx, iov)) > 0) {
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
		ssize_t k = sendmsg(sh->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (!sh->x_out) {
					sh->x_out = true;
					x_events(sh);
				}
				return;
			}
			x_fail(sh, -errno);
			return;
		}
		ring_consumed(&sh->tx, (size_t)k);
		if (atomic_load_explicit(&sh->tx_wait, memory_order_seq_cst) &&
		    atomic_exchange(&sh->tx_wait, false) && !atomic_load(&sh->s_closed))
			split_kick(sh, &sh->txspace_kick, sh->sr, &sh->txspace_msg);
	}
	if (sh->x_out) {
		sh->x_out = false;
		x_events(sh);
	}
	if (atomic_load(&sh->s_closed) && ring_empty(&sh->tx))
		x_close(sh); /* the last bytes (a Logout Response) are out */
}

static void x_read(struct iscsi_split *sh)
{
	struct iovec iov[2];
	ssize_t k;
	int n = ring_space(&sh->rx, iov);

	if (!n) {
		/* full: stop until S made room (rxspace_msg) */
		atomic_store_explicit(&sh->rx_wait, true, memory_order_seq_cst);
		if (ring_full(&sh->rx)) {
			sh->x_reading = false;
			x_events(sh);
			return;
		}
		atomic_store(&sh->rx_wait, false);
		n = ring_space(&sh->rx, iov);
	}
	k = readv(sh->fd, iov, n);
	if (k < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			x_fail(sh, -errno);
		return;
	}
	if (k == 0) {
		x_fail(sh, 1);
		return;
	}
	ring_produced(&sh->rx, (size_t)k);
	split_kick(sh, &sh->rx_kick, sh->sr, &sh->rx_msg);
}

static void x_io_cb(struct reactor_fd *h, uint32_t revents)
{
	struct iscsi_split *sh = container_of(h, struct iscsi_split, rfd);

	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	if ((revents & REACTOR_OUT) && !sh->x_closed)
		x_send(sh);
	if ((revents & (REACTOR_IN | REACTOR_ERR | REACTOR_HUP)) && !sh->x_closed) {
		if (sh->x_reading)
			x_read(sh);
		else if (revents & (REACTOR_ERR | EPOLLHUP))
			x_fail(sh, -ECONNRESET); /* while reading waits for room */
	}
	split_put(sh);
}

/* S queued bytes. */
static void x_tx_msg(struct reactor_msg *m)
{
	struct iscsi_split *sh = container_of(m, struct iscsi_split, tx_msg);

	atomic_store_explicit(&sh->tx_kick, false, memory_order_seq_cst);
	if (!sh->x_closed)
		x_send(sh);
	split_put(sh);
}

/* S made room in the rx ring. */
static void x_rxspace_msg(struct reactor_msg *m)
{
	struct iscsi_split *sh = container_of(m, struct iscsi_split, rxspace_msg);

	atomic_store_explicit(&sh->rxspace_kick, false, memory_order_seq_cst);
	if (!sh->x_closed && !atomic_load(&sh->err) && !sh->x_reading) {
		sh->x_reading = true;
		x_events(sh);
	}
	split_put(sh);
}

static void x_linger_done(struct reactor_timer *t)
{
	x_close(container_of(t, struct iscsi_split, linger));
}

/* S let go: send what is left, then close. */
static void x_close_msg(struct reactor_msg *m)
{
	struct iscsi_split *sh = container_of(m, struct iscsi_split, close_msg);

	if (!sh->x_closed) {
		sh->x_reading = false;
		x_events(sh);
		x_send(sh);
		if (!sh->x_closed) {
			if (atomic_load(&sh->err) || ring_empty(&sh->tx))
				x_close(sh);
			else
				reactor_timer_arm(sh->xr, &sh->linger, SPLIT_LINGER_NS);
		}
	}
	split_put(sh);
}

/* ---- the session reactor (S) ---- */

/* Feed what the rx ring holds to the receive machine while the connection
 * reads (not paused, nothing left in its own buffer from before the
 * move); at the end of the stream or on an error, drop it. */
void iscsi_split_drain(struct iscsi_conn *c)
{
	struct iscsi_split *sh = c->split;
	struct iovec iov[2];
	int err;

	if (!sh || c->in_rx)
		return;
	/* the bytes fed may end c (a Logout): its shell goes then, unless
	 * held here (the resume path holds no message's reference) */
	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	iscsi_conn_get(c);
	while (c->split == sh && !iscsi_conn_dead(c) && !c->rx_paused && c->rx_off >= c->rx_have &&
	       ring_data(&sh->rx, iov) > 0) {
		ssize_t n;

		atomic_store_explicit(&c->last_rx_ns, reactor_now_ns(), memory_order_relaxed);
		n = iscsi_conn_rx_bytes(c, iov[0].iov_base, iov[0].iov_len);
		if (n < 0)
			break;
		ring_consumed(&sh->rx, (size_t)n);
		if (atomic_load_explicit(&sh->rx_wait, memory_order_seq_cst) &&
		    atomic_exchange(&sh->rx_wait, false))
			split_kick(sh, &sh->rxspace_kick, sh->xr, &sh->rxspace_msg);
		if ((size_t)n < iov[0].iov_len)
			break; /* paused inside */
	}
	err = atomic_load(&sh->err);
	if (c->split == sh && !iscsi_conn_dead(c) && err &&
	    (err < 0 || (ring_empty(&sh->rx) && !c->rx_paused))) {
		if (err < 0)
			iscsi_conn_drop(c, strerror(-err));
		else {
			log_debug("iscsi: %s: peer closed the connection", c->peer);
			iscsi_conn_drop(c, NULL);
		}
	}
	if (!iscsi_conn_dead(c))
		iscsi_conn_flush(c);
	iscsi_conn_put(c);
	split_put(sh);
}

static void s_rx_msg(struct reactor_msg *m)
{
	struct iscsi_split *sh = container_of(m, struct iscsi_split, rx_msg);

	atomic_store_explicit(&sh->rx_kick, false, memory_order_seq_cst);
	if (!atomic_load(&sh->s_closed) && sh->c->split == sh)
		iscsi_split_drain(sh->c);
	split_put(sh);
}

static void s_txspace_msg(struct reactor_msg *m)
{
	struct iscsi_split *sh = container_of(m, struct iscsi_split, txspace_msg);
	struct iscsi_conn *c = sh->c;

	/* cleared first: a ring found full from here on posts again */
	atomic_store_explicit(&sh->txspace_kick, false, memory_order_seq_cst);
	if (!atomic_load(&sh->s_closed) && c->split == sh && !iscsi_conn_dead(c)) {
		iscsi_conn_get(c);
		iscsi_conn_flush(c);
		iscsi_conn_put(c);
	}
	split_put(sh);
}

/* iscsi_conn_flush's writev: copy into the tx ring, wake X. */
static ssize_t split_writev(struct iscsi_conn *c, const struct iovec *iov, int n)
{
	struct iscsi_split *sh = c->split;
	struct iovec sp[2];
	size_t done = 0;
	int k, i = 0;
	size_t off = 0;

	if (!sh)
		return -EPIPE;
	if (atomic_load_explicit(&sh->err, memory_order_relaxed) < 0)
		return atomic_load(&sh->err);
	for (int round = 0; round < 2 && i < n; round++) {
		k = ring_space(&sh->tx, sp);
		for (int j = 0; j < k && i < n; j++) {
			size_t room = sp[j].iov_len, at = 0;

			while (room && i < n) {
				size_t take = UT_MIN(room, iov[i].iov_len - off);

				memcpy((uint8_t *)sp[j].iov_base + at,
				       (const uint8_t *)iov[i].iov_base + off, take);
				at += take;
				room -= take;
				off += take;
				done += take;
				if (off == iov[i].iov_len) {
					i++;
					off = 0;
				}
			}
			ring_produced(&sh->tx, at);
		}
		if (i < n && !round) {
			/* full: X posts txspace_msg when it made room; look
			 * again after the flag is set */
			atomic_store_explicit(&sh->tx_wait, true, memory_order_seq_cst);
			if (ring_full(&sh->tx))
				break;
			atomic_store(&sh->tx_wait, false);
		}
	}
	if (done)
		split_kick(sh, &sh->tx_kick, sh->xr, &sh->tx_msg);
	return done ? (ssize_t)done : -EAGAIN;
}

static const struct iscsi_conn_io iscsi_split_io = {.writev = split_writev};

/* ---- set-up and teardown ---- */

/* The rings' sizes; UTARGET_SPLIT_RING_KIB (a power of two, 4..65536) makes
 * both that small or large, so that tests run the full-ring paths (the
 * waits and the messages that end them) on every few PDUs. */
static void ring_sizes(uint32_t *rx, uint32_t *tx)
{
	static _Atomic uint32_t env_size; /* 0: not read yet, 1: none */
	uint32_t v = atomic_load_explicit(&env_size, memory_order_relaxed);

	if (!v) {
		const char *e = getenv("UTARGET_SPLIT_RING_KIB");
		unsigned long k = e ? strtoul(e, NULL, 10) : 0;

		v = k >= 4 && k <= 65536 && !(k & (k - 1)) ? (uint32_t)(k << 10) : 1;
		atomic_store_explicit(&env_size, v, memory_order_relaxed);
	}
	*rx = v > 1 ? v : SPLIT_RX_RING;
	*tx = v > 1 ? v : SPLIT_TX_RING;
}

int iscsi_split_start(struct iscsi_conn *c, struct reactor *to)
{
	struct iscsi_split *sh = calloc(1, sizeof(*sh));
	uint32_t rxs, txs;
	uint64_t cap;
	int rc;

	if (!sh)
		return -ENOMEM;
	ring_sizes(&rxs, &txs);
	/* rings take at most half of the cap, so that MC/S sessions alone
	 * never bring it to the 7/8 where every session's window closes
	 * (mempress.c); the caller holds iscsi_global.lock */
	cap = (uint64_t)iscsi_global.settings.max_buffer_memory_mib << 20;
	if (cap && buf_in_use() + rxs + txs > cap / 2) {
		free(sh);
		return -ENOMEM;
	}
	if (ring_init(&sh->rx, rxs) || ring_init(&sh->tx, txs)) {
		ring_fini(&sh->rx);
		ring_fini(&sh->tx);
		free(sh);
		return -ENOMEM;
	}
	atomic_init(&sh->refs, 2); /* S's and X's */
	sh->c = c;
	sh->xr = c->r;
	sh->sr = to;
	sh->fd = c->fd;
	sh->rx_msg.fn = s_rx_msg;
	sh->txspace_msg.fn = s_txspace_msg;
	sh->tx_msg.fn = x_tx_msg;
	sh->rxspace_msg.fn = x_rxspace_msg;
	sh->close_msg.fn = x_close_msg;
	reactor_timer_init(&sh->linger, x_linger_done);
	sh->x_reading = true;
	rc = reactor_fd_add(sh->xr, &sh->rfd, sh->fd, REACTOR_IN, x_io_cb);
	sh->x_watched = !rc;
	if (rc) {
		ring_fini(&sh->rx);
		ring_fini(&sh->tx);
		free(sh);
		return rc;
	}
	iscsi_conn_get(c);
	c->split = sh;
	c->io = &iscsi_split_io;
	c->fd = -1;
	c->sock_reactor = (int)reactor_id(sh->xr);
	return 0;
}

void iscsi_split_detach(struct iscsi_conn *c)
{
	struct iscsi_split *sh = c->split;

	if (!sh)
		return;
	c->split = NULL;
	c->io = NULL;
	atomic_store(&sh->s_closed, true);
	split_post(sh, sh->xr, &sh->close_msg);
	split_put(sh); /* S's reference */
}
