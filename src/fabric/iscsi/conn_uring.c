/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conn_uring.c: a connection's socket read through its reactor's io_uring
 * (iscsi.socket_uring), instead of readv on epoll readiness (conn.c).
 *
 * One IORING_OP_RECVMSG is in flight per connection, into the same places
 * readv would use (iscsi_conn_rx_iov: the data segment being received,
 * straight into the command's buffer, then the connection's buffer), and
 * re-armed when its bytes are consumed. Its completion runs the receive
 * machine as readv's return would (iscsi_conn_rx_done). What it buys: the
 * receives of all the reactor's connections, the back-store's reads and
 * the re-arms go to the kernel in the reactor's one io_uring_enter per
 * turn, and a busy connection's data is picked up without epoll's
 * readiness round (a receive that finds data completes inside the submit).
 *
 * Only in full feature phase of a normal session: the login, discovery, and
 * an MC/S connection's move between reactors (which happens during its
 * login) keep the readiness path, so a receive is never in flight on a
 * reactor the connection leaves.
 *
 * A receive in flight holds a reference to the connection (its buffer and
 * this request). A completion that comes while the connection is paused
 * is held (ur.held) and run by the resume, as readv would only have been
 * called then. Teardown (conn_close, before the socket closes and the
 * tasks with their buffers go) cancels it synchronously: when
 * reactor_uring_cancel() returns the kernel writes into none of them; the
 * CQE, reaped later, only drops the reference. */
#include <errno.h>
#include <liburing.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/log.h"

static void conn_uring_arm(struct iscsi_conn *c);

static void conn_uring_done(struct reactor_uring_req *req, int res)
{
	struct iscsi_conn *c = container_of(req, struct iscsi_conn, ur.req);

	c->ur.inflight = false;
	if (iscsi_conn_dead(c)) {
		iscsi_conn_put(c); /* the receive's reference; cancelled by the close */
		return;
	}
	if (res == -ECANCELED || res == -EINTR || res == -EAGAIN) {
		conn_uring_arm(c); /* not ours (the close cancels): read on */
		iscsi_conn_put(c);
		return;
	}
	if (c->rx_paused) {
		/* readv would not have run: the resume takes it */
		c->ur.held = true;
		c->ur.held_res = res;
		iscsi_conn_put(c);
		return;
	}
	iscsi_conn_rx_done(c, res, c->ur.dlen);
	if (!iscsi_conn_dead(c))
		conn_uring_arm(c);
	iscsi_conn_put(c);
}

/* The next receive, when the connection wants one: nothing buffered left
 * to parse, not paused, none in flight. */
static void conn_uring_arm(struct iscsi_conn *c)
{
	struct io_uring_sqe *sqe;
	int niov;

	if (!c->ur.on || c->ur.inflight || c->ur.held || c->rx_paused || c->in_rx ||
	    c->rx_off < c->rx_have || c->fd < 0 || iscsi_conn_dead(c))
		return;
	niov = iscsi_conn_rx_iov(c, c->ur.iov, &c->ur.dlen);
	c->ur.mh = (struct msghdr){.msg_iov = c->ur.iov, .msg_iovlen = (size_t)niov};
	c->ur.req.cb = conn_uring_done;
	sqe = reactor_uring_sqe(c->r, &c->ur.req);
	if (!sqe) {
		/* the ring refuses: back to readiness and readv for good */
		log_warn("iscsi: %s: io_uring receive unavailable, using readv", c->peer);
		c->ur.on = false;
		reactor_fd_mod(&c->rfd, REACTOR_IN | (c->out_armed ? REACTOR_OUT : 0));
		return;
	}
	io_uring_prep_recvmsg(sqe, c->fd, &c->ur.mh, 0);
	c->ur.inflight = true;
	iscsi_conn_get(c); /* until its completion */
}

bool iscsi_conn_uring_start(struct iscsi_conn *c)
{
	if (c->ur.on || c->fd < 0 || c->io || !iscsi_global.settings.socket_uring)
		return false;
	if (!c->sess || c->sess->type != ISCSI_SESSION_NORMAL || c->login ||
	    iscsi_conn_state(c) != ISCSI_CONN_S5_LOGGED_IN || !reactor_uring_sockets(c->r))
		return false;
	c->ur.on = true;
	reactor_fd_mod(&c->rfd, c->out_armed ? REACTOR_OUT : 0);
	conn_uring_arm(c);
	if (c->ur.on)
		log_debug("iscsi: %s: reading the socket through io_uring", c->peer);
	return c->ur.on;
}

void iscsi_conn_uring_resume(struct iscsi_conn *c)
{
	if (!c->ur.on || c->in_rx || c->rx_paused || iscsi_conn_dead(c))
		return;
	if (c->ur.held) {
		c->ur.held = false;
		iscsi_conn_get(c);
		iscsi_conn_rx_done(c, c->ur.held_res, c->ur.dlen);
		if (!iscsi_conn_dead(c)) {
			iscsi_conn_flush(c);
			conn_uring_arm(c);
		}
		iscsi_conn_put(c);
		return;
	}
	conn_uring_arm(c);
}

void iscsi_conn_uring_close(struct iscsi_conn *c)
{
	int rc;

	c->ur.held = false;
	if (!c->ur.inflight)
		return;
	rc = reactor_uring_cancel(c->r, &c->ur.req);
	if (rc < 0 && rc != -ENOENT && rc != -EALREADY)
		log_err("iscsi: %s: cancelling the socket receive: %s", c->peer, strerror(-rc));
}
