/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi.c: the iscsi back-store, a gateway to a LUN of another iSCSI target
 * through libiscsi's asynchronous API.
 *
 * Contract (scsi/bs.h): the core emulates all of SPC/SBC (reservations,
 * unit attentions, REPORT LUNS, identifiers, WRITE SAME, ...) and asks this
 * back-store only for byte-range primitives, which map to commands of the
 * remote LUN: READ -> READ(16), WRITE -> WRITE(16) (FUA bit for BS_IO_FUA),
 * FLUSH -> SYNCHRONIZE CACHE(16), DISCARD -> UNMAP (only when the remote's
 * LBP VPD page says UNMAP is supported and READ CAPACITY(16) says unmapped
 * blocks read as zeroes; chunks within its Block Limits), WRITE_ZEROES ->
 * WRITE SAME(16) of one zero block (only when REPORT SUPPORTED OPERATION
 * CODES lists it; chunks within MAXIMUM WRITE SAME LENGTH), MAP_STATUS ->
 * GET LBA STATUS (a thin remote that supports it). Nothing a
 * remote initiator could see of another one (reservations, unit attentions)
 * is ever forwarded: the remote sees one I_T nexus per reactor, ours.
 *
 * Threading model: one libiscsi context per reactor. libiscsi contexts are
 * not thread-safe and submit() runs on any reactor, so each reactor that
 * submits gets its own context (created lazily by its first submit, in the
 * reactor's slot of the array, which only that reactor touches), its own
 * session to the remote, its socket watched by that reactor
 * (iscsi_which_events / iscsi_service), and a 1 s timer that drives
 * libiscsi's command timeouts and our reconnect. Every completion therefore
 * runs on the submitting reactor with no hand-off and no lock. The cost is
 * one remote session per busy reactor, which is also what spreads the load
 * over the remote's connections. close() tears each context down on its own
 * reactor (a posted message, waited for); a reactor that no longer runs
 * (the daemon's shutdown) leaves it to the calling thread, also after a
 * bounded wait if the reactor stops between the check and the message.
 *
 * open() runs on the control thread: it connects synchronously once (bounded
 * by the command timeout and a bounded TCP SYN count) to validate the URL
 * and read the geometry and caps: READ CAPACITY(16) (size, lbs, pbs from
 * LBPPBE, LBPRZ), the Block Limits and LBP VPD pages, the caching mode page
 * (WCE -> BS_CAP_WRITE_CACHE; the WP bit -> BS_CAP_READ_ONLY), then logs out.
 *
 * Reconnect: libiscsi's own automatic reconnect blocks (it sleeps and
 * connects synchronously), which a reactor must not, so it is disabled
 * (iscsi_set_noautoreconnect): a lost session cancels its in-flight
 * commands, which go back to the connection's queue; the context is
 * destroyed and a new one logs in asynchronously (at once, then once a
 * second) while requests wait. A request that has waited `timeout` seconds
 * (option, default 15) since it was submitted fails with -EIO; a command
 * the remote leaves unanswered for that long drops the session (libiscsi's
 * task timeout). With nothing queued, no attempt is made until the next
 * submit. Remote unit attentions (a restarted remote: POWER ON, RESET) and
 * BUSY / TASK SET FULL are retried (bounded); other CHECK CONDITIONs map to
 * errno values (iscsi_gw_sense_errno()).
 *
 * Options: initiator (the initiator name toward the remote, default
 * "iqn.2024-01.org.utarget:gateway"), timeout (seconds, 1..3600). CHAP
 * comes from the URL's user%secret.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/reactor.h"

#define GW_DEFAULT_INITIATOR "iqn.2024-01.org.utarget:gateway"
#define GW_DEFAULT_TIMEOUT_S 15u
#define GW_MAX_SLOTS	     256u
#define GW_UA_RETRIES	     8u
#define GW_BUSY_RETRIES	     1000u
#define GW_TICK_NS	     (200ull * 1000 * 1000)
#define GW_RETRY_NS	     (1000ull * 1000 * 1000)
#define GW_WS_CHUNK_BLOCKS   65536u

enum gw_state {
	GW_DOWN,
	GW_CONNECTING,
	GW_UP,
};

struct gw;

/* One reactor's session to the remote. */
struct gw_conn {
	struct gw *gw;
	struct reactor *r;
	struct iscsi_context *ctx;
	struct reactor_fd h;
	bool watched;
	enum gw_state state;
	struct list_node pending;  /* struct gw_req waiting for a session */
	struct list_node inflight; /* struct gw_req sent on ctx */
	struct reactor_timer tick;
	struct reactor_defer flush; /* write queued PDUs, rearm events */
	uint64_t connect_deadline;
	uint64_t next_attempt;
	unsigned attempts;
	bool lost;   /* a session was up and went: say when it is back */
	bool warned; /* a failed login was logged in this outage */
	bool broken; /* teardown queued */
	struct reactor_msg close_msg;
	pthread_mutex_t close_lock;
	pthread_cond_t close_cond;
	bool closed;
};

/* Per request, in bs_io.priv. */
struct gw_req {
	struct list_node node;
	struct bs_io *io;
	struct gw_conn *c;
	uint64_t deadline;
	uint64_t done_bytes; /* DISCARD / WRITE_ZEROES progress */
	uint64_t chunk;	     /* bytes of the command in flight */
	uint16_t retries;
	bool queued; /* on pending or inflight */
};
_Static_assert(sizeof(struct gw_req) <= BS_IO_PRIV_SIZE, "gw_req fits bs_io.priv");

struct gw {
	struct bs_dev dev;
	char *portal;
	char *target;
	char *user;
	char *passwd;
	char *initiator;
	int lun;
	uint32_t lbs;
	unsigned timeout_s;
	uint32_t max_unmap_blocks; /* per UNMAP descriptor */
	uint32_t max_ws_blocks;	   /* per WRITE SAME */
	unsigned char *zero_block;
	unsigned nslots;
	struct gw_conn *slots[GW_MAX_SLOTS];
};

static inline struct gw_req *gw_req_of(struct bs_io *io)
{
	return (struct gw_req *)io->priv;
}

/* ---- pure helpers (unit-tested) ---- */

static uint32_t gw_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t gw_be64(const uint8_t *p)
{
	return (uint64_t)gw_be32(p) << 32 | gw_be32(p + 4);
}

/* Sense data (fixed or descriptor format) of a CHECK CONDITION -> errno:
 * MEDIUM ERROR -EIO (*info the INFORMATION field when valid, else
 * UINT64_MAX), DATA PROTECT -EROFS, or -ENOSPC for SPACE ALLOCATION FAILED
 * WRITE PROTECT (27h/07h), UNIT ATTENTION -EAGAIN (retry), NOT READY with
 * LOGICAL UNIT IS IN PROCESS OF BECOMING READY -EAGAIN, anything else -EIO. */
int iscsi_gw_sense_errno(const uint8_t *s, size_t len, uint64_t *info);
int iscsi_gw_sense_errno(const uint8_t *s, size_t len, uint64_t *info)
{
	return bs_sense_errno(s, len, info);
}

/* GET LBA STATUS parameter data (SBC-4 5.21.2) for the request at lba:
 * *blocks the length of the run of blocks from lba that share a state,
 * *mapped that state (anything but DEALLOCATED / ANCHORED counts as
 * mapped). 0, or -EIO when no descriptor covers lba. */
int iscsi_gw_lba_status(const uint8_t *d, size_t len, uint64_t lba, uint64_t *blocks, bool *mapped);
int iscsi_gw_lba_status(const uint8_t *d, size_t len, uint64_t lba, uint64_t *blocks, bool *mapped)
{
	size_t end;

	if (!d || len < 8)
		return -EIO;
	end = 4 + (size_t)gw_be32(d);
	if (end > len)
		end = len;
	for (size_t p = 8; p + 16 <= end; p += 16) {
		uint64_t first = gw_be64(d + p);
		uint64_t n = gw_be32(d + p + 8);

		if (lba < first || lba - first >= n)
			continue;
		*blocks = n - (lba - first);
		*mapped = (d[p + 12] & 0x0f) == 0;
		return 0;
	}
	return -EIO;
}

/* The URL's shape, before libiscsi parses it: iscsi://host[:port]/IQN/LUN
 * with an optional user[%secret]@. 0 or -EINVAL. */
int iscsi_gw_url_check(const char *url);
int iscsi_gw_url_check(const char *url)
{
	const char *p, *slash, *lun;
	char *end;
	long v;

	if (!url || strncmp(url, "iscsi://", 8) != 0)
		return -EINVAL;
	p = url + 8;
	slash = strchr(p, '/');
	if (!slash || slash == p)
		return -EINVAL;
	lun = strrchr(slash + 1, '/');
	if (!lun || lun == slash + 1 || lun[1] == '\0')
		return -EINVAL;
	errno = 0;
	v = strtol(lun + 1, &end, 10);
	if (errno || *end != '\0' || v < 0 || v > 16383)
		return -EINVAL;
	return 0;
}

/* ---- the per-reactor session ---- */

static void gw_conn_update(struct gw_conn *c);
static void gw_send(struct gw_conn *c, struct gw_req *rq);
static void gw_conn_fail(struct gw_conn *c, const char *why);

static void gw_complete(struct gw_req *rq, int err)
{
	struct bs_io *io = rq->io;

	rq->queued = false;
	io->done(io, err);
}

static void gw_requeue(struct gw_conn *c, struct gw_req *rq)
{
	list_del(&rq->node);
	list_add_tail(&c->pending, &rq->node);
}

static void gw_task_cb(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct gw_req *rq = priv;
	struct scsi_task *task = data;
	struct bs_io *io = rq->io;
	struct gw_conn *c = rq->c;
	uint64_t info = UINT64_MAX;
	int err;

	(void)ctx;
	if (status == SCSI_STATUS_GOOD) {
		if (io->op == BS_OP_MAP_STATUS) {
			uint64_t lba = io->off / c->gw->lbs, n = 0;

			err = iscsi_gw_lba_status(
			    task ? task->datain.data : NULL,
			    task && task->datain.size > 0 ? (size_t)task->datain.size : 0, lba, &n,
			    &io->mapped);
			if (task)
				scsi_free_scsi_task(task);
			list_del(&rq->node);
			if (!err) {
				io->map_len = n * c->gw->lbs;
				if (io->map_len > io->len || io->map_len == 0)
					io->map_len = io->len;
			}
			gw_complete(rq, err);
			return;
		}
		if (task)
			scsi_free_scsi_task(task);
		list_del(&rq->node);
		rq->done_bytes += rq->chunk;
		if ((io->op == BS_OP_DISCARD || io->op == BS_OP_WRITE_ZEROES) &&
		    rq->done_bytes < io->len) {
			list_add_tail(&c->inflight, &rq->node);
			if (c->state == GW_UP && !c->broken)
				gw_send(c, rq);
			else
				gw_requeue(c, rq);
			return;
		}
		gw_complete(rq, 0);
		return;
	}
	if (status == SCSI_STATUS_CANCELLED || status == SCSI_STATUS_ERROR ||
	    status == SCSI_STATUS_TIMEOUT || !task) {
		if (task)
			scsi_free_scsi_task(task);
		gw_requeue(c, rq);
		gw_conn_fail(c,
			     status == SCSI_STATUS_TIMEOUT ? "command timed out" : "session lost");
		return;
	}
	err = -EIO;
	if (status == SCSI_STATUS_CHECK_CONDITION) {
		const uint8_t *s = task->datain.data;
		size_t n = task->datain.size > 0 ? (size_t)task->datain.size : 0;

		if (s && n >= 2) {
			size_t sl = (size_t)s[0] << 8 | s[1];

			err = iscsi_gw_sense_errno(s + 2, sl < n - 2 ? sl : n - 2, &info);
		}
		if (err == -EAGAIN && rq->retries < GW_UA_RETRIES)
			goto retry;
	} else if (status == SCSI_STATUS_BUSY || status == SCSI_STATUS_TASK_SET_FULL) {
		if (rq->retries < GW_BUSY_RETRIES)
			goto retry;
	} else if (status == SCSI_STATUS_RESERVATION_CONFLICT) {
		err = -EACCES; /* someone reserved the remote LU: a hardware error here */
	}
	if (err == -EAGAIN)
		err = -EIO;
	scsi_free_scsi_task(task);
	list_del(&rq->node);
	if (err == -EIO && info != UINT64_MAX && info < c->gw->dev.size / c->gw->lbs)
		io->bad_off = info * c->gw->lbs;
	gw_complete(rq, err);
	return;
retry:
	scsi_free_scsi_task(task);
	rq->retries++;
	if (c->state == GW_UP && !c->broken && status == SCSI_STATUS_CHECK_CONDITION) {
		gw_send(c, rq);
	} else {
		gw_requeue(c, rq); /* BUSY: the next tick sends it again */
	}
}

static void gw_send(struct gw_conn *c, struct gw_req *rq)
{
	struct gw *gw = c->gw;
	struct bs_io *io = rq->io;
	struct scsi_task *t = NULL;
	uint64_t off = io->off + rq->done_bytes;
	uint64_t lba = off / gw->lbs;

	list_del(&rq->node);
	list_add_tail(&c->inflight, &rq->node);
	rq->chunk = io->len - rq->done_bytes;
	switch (io->op) {
	case BS_OP_READ:
		t = iscsi_read16_iov_task(c->ctx, gw->lun, lba, (uint32_t)io->len, (int)gw->lbs, 0,
					  0, 0, 0, 0, gw_task_cb, rq, (struct scsi_iovec *)io->iov,
					  io->iovcnt);
		break;
	case BS_OP_WRITE:
		t = iscsi_write16_iov_task(c->ctx, gw->lun, lba, NULL, (uint32_t)io->len,
					   (int)gw->lbs, 0, 0, (io->flags & BS_IO_FUA) ? 1 : 0, 0,
					   0, gw_task_cb, rq, (struct scsi_iovec *)io->iov,
					   io->iovcnt);
		break;
	case BS_OP_FLUSH:
		t = iscsi_synchronizecache16_task(c->ctx, gw->lun, 0, 0, 0, 0, gw_task_cb, rq);
		break;
	case BS_OP_DISCARD: {
		struct unmap_list ul;
		uint64_t nb = rq->chunk / gw->lbs;

		if (nb > gw->max_unmap_blocks)
			nb = gw->max_unmap_blocks;
		rq->chunk = nb * gw->lbs;
		ul.lba = lba;
		ul.num = (uint32_t)nb;
		t = iscsi_unmap_task(c->ctx, gw->lun, 0, 0, &ul, 1, gw_task_cb, rq);
		break;
	}
	case BS_OP_WRITE_ZEROES: {
		uint64_t nb = rq->chunk / gw->lbs;

		if (nb > gw->max_ws_blocks)
			nb = gw->max_ws_blocks;
		rq->chunk = nb * gw->lbs;
		t = iscsi_writesame16_task(c->ctx, gw->lun, lba, gw->zero_block, gw->lbs,
					   (uint32_t)nb, 0, 0, 0, 0, gw_task_cb, rq);
		break;
	}
	case BS_OP_MAP_STATUS:
		t = iscsi_get_lba_status_task(c->ctx, gw->lun, lba, 8 + 16 * 8, gw_task_cb, rq);
		break;
	default:
		list_del(&rq->node);
		gw_complete(rq, -EOPNOTSUPP);
		return;
	}
	if (!t) {
		gw_requeue(c, rq);
		gw_conn_fail(c, iscsi_get_error(c->ctx));
		return;
	}
	reactor_defer(c->r, &c->flush);
}

/* Fail the requests that waited too long; with expire_all, every pending one. */
static void gw_expire(struct gw_conn *c, bool expire_all)
{
	uint64_t now = reactor_now_ns();
	struct gw_req *rq, *tmp;

	list_for_each_entry_safe(rq, tmp, &c->pending, node)
	{
		if (!expire_all && rq->deadline > now)
			continue;
		list_del(&rq->node);
		gw_complete(rq, -EIO);
	}
}

static void gw_teardown(struct gw_conn *c)
{
	struct iscsi_context *ctx = c->ctx;
	struct gw_req *rq, *tmp;

	if (c->watched) {
		reactor_fd_del(&c->h);
		c->watched = false;
	}
	reactor_defer_cancel(&c->flush);
	c->ctx = NULL;
	c->state = GW_DOWN;
	if (ctx)
		iscsi_destroy_context(ctx); /* may cancel commands: they requeue */
	list_for_each_entry_safe(rq, tmp, &c->inflight, node) gw_requeue(c, rq);
	c->broken = false;
}

static void gw_fd_cb(struct reactor_fd *h, uint32_t revents);
static void gw_connect_cb(struct iscsi_context *ctx, int status, void *data, void *priv);

static struct iscsi_context *gw_new_context(struct gw *gw)
{
	struct iscsi_context *ctx = iscsi_create_context(gw->initiator);

	if (!ctx)
		return NULL;
	if (iscsi_set_targetname(ctx, gw->target) ||
	    iscsi_set_session_type(ctx, ISCSI_SESSION_NORMAL) ||
	    iscsi_set_header_digest(ctx, ISCSI_HEADER_DIGEST_NONE_CRC32C) ||
	    (gw->user && iscsi_set_initiator_username_pwd(ctx, gw->user, gw->passwd))) {
		iscsi_destroy_context(ctx);
		return NULL;
	}
	iscsi_set_noautoreconnect(ctx, 1);
	iscsi_set_timeout(ctx, (int)gw->timeout_s);
	iscsi_set_tcp_syncnt(ctx, 2);
	return ctx;
}

/* noinline, both: frames of their own in sanitizer reports. libiscsi 1.19
 * drops the 24-byte connect task of iscsi_full_connect_async() when the
 * context is destroyed while that connect is in progress
 * (iscsi_destroy_context() sets connect_data to NULL without freeing it),
 * which a teardown during a login does; tests/integration/lsan-libiscsi.supp
 * names gw_connect so that LeakSanitizer does not count that libiscsi leak
 * as ours. libiscsi is built without frame pointers, so the sanitizers'
 * fast unwinder loses the frame that called into it: that is this
 * wrapper's, and gw_connect stays in the stack either way (a CI run once
 * reported the leak from gw_connect's caller, the call being direct). */
__attribute__((noinline)) static int gw_connect_async(struct gw_conn *c, struct gw *gw)
{
	return iscsi_full_connect_async(c->ctx, gw->portal, gw->lun, gw_connect_cb, c);
}

__attribute__((noinline)) static void gw_connect(struct gw_conn *c)
{
	struct gw *gw = c->gw;
	uint64_t now = reactor_now_ns();

	c->attempts++;
	c->next_attempt = now + GW_RETRY_NS;
	c->ctx = gw_new_context(gw);
	if (!c->ctx) {
		log_warn("backstore %s: cannot create an iSCSI context", gw->dev.name);
		return;
	}
	if (gw_connect_async(c, gw) != 0) {
		if (!c->warned)
			log_warn("backstore %s: cannot connect to %s: %s; retrying each second "
				 "while requests wait",
				 gw->dev.name, gw->portal, iscsi_get_error(c->ctx));
		c->warned = true;
		iscsi_destroy_context(c->ctx);
		c->ctx = NULL;
		return;
	}
	c->state = GW_CONNECTING;
	c->connect_deadline = now + (uint64_t)gw->timeout_s * 1000000000ull;
	gw_conn_update(c);
}

static void gw_connect_cb(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct gw_conn *c = priv;
	struct gw_req *rq, *tmp;

	(void)data;
	if (ctx != c->ctx)
		return;
	if (status != SCSI_STATUS_GOOD) {
		gw_conn_fail(c, iscsi_get_error(ctx));
		return;
	}
	if (c->lost || c->warned)
		log_notice("backstore %s: session to %s restored (reactor %u)", c->gw->dev.name,
			   c->gw->portal, reactor_id(c->r));
	c->state = GW_UP;
	c->attempts = 0;
	c->lost = false;
	c->warned = false;
	list_for_each_entry_safe(rq, tmp, &c->pending, node)
	{
		if (c->state != GW_UP || c->broken)
			break;
		gw_send(c, rq);
	}
}

static void gw_fail_defer(struct reactor_defer *d);

static void gw_conn_fail(struct gw_conn *c, const char *why)
{
	char msg[160];
	size_t n;

	if (c->broken || !c->ctx)
		return;
	snprintf(msg, sizeof(msg), "%s", why ? why : "error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (c->state == GW_UP) {
		log_warn("backstore %s: session to %s lost (reactor %u): %s; reconnecting",
			 c->gw->dev.name, c->gw->portal, reactor_id(c->r), msg);
		c->lost = true;
	} else if (!c->warned) {
		log_warn("backstore %s: cannot log in to %s: %s; retrying each second while "
			 "requests wait",
			 c->gw->dev.name, c->gw->portal, msg);
		c->warned = true;
	}
	c->broken = true;
	/* not inside libiscsi's callbacks: tear down at the end of the
	 * iteration (the flush item runs the teardown when broken) */
	reactor_defer(c->r, &c->flush);
}

static void gw_fail_defer(struct reactor_defer *d)
{
	struct gw_conn *c = container_of(d, struct gw_conn, flush);

	gw_teardown(c);
	if (!list_empty(&c->pending) && reactor_now_ns() >= c->next_attempt)
		gw_connect(c);
}

static void gw_flush_cb(struct reactor_defer *d)
{
	struct gw_conn *c = container_of(d, struct gw_conn, flush);

	if (c->broken) {
		gw_fail_defer(d);
		return;
	}
	if (!c->ctx)
		return;
	if (c->state == GW_UP && (iscsi_which_events(c->ctx) & POLLOUT)) {
		if (iscsi_service(c->ctx, POLLOUT) < 0) {
			gw_conn_fail(c, iscsi_get_error(c->ctx));
			return;
		}
	}
	if (c->broken)
		return;
	gw_conn_update(c);
}

/* Watch the context's socket for what libiscsi wants now. */
static void gw_conn_update(struct gw_conn *c)
{
	int fd, ev;
	uint32_t want = 0;

	if (!c->ctx)
		return;
	fd = iscsi_get_fd(c->ctx);
	ev = iscsi_which_events(c->ctx);
	if (ev & POLLIN)
		want |= REACTOR_IN;
	if (ev & POLLOUT)
		want |= REACTOR_OUT;
	if (c->watched && c->h.fd != fd) {
		reactor_fd_del(&c->h);
		c->watched = false;
	}
	if (fd < 0)
		return;
	if (!c->watched) {
		if (reactor_fd_add(c->r, &c->h, fd, want, gw_fd_cb) == 0)
			c->watched = true;
		else
			gw_conn_fail(c, "cannot watch the socket");
		return;
	}
	if (c->h.events != want)
		reactor_fd_mod(&c->h, want);
}

static void gw_fd_cb(struct reactor_fd *h, uint32_t revents)
{
	struct gw_conn *c = container_of(h, struct gw_conn, h);
	int pr = 0;

	if (!c->ctx || c->broken)
		return;
	if (revents & EPOLLIN)
		pr |= POLLIN;
	if (revents & EPOLLOUT)
		pr |= POLLOUT;
	if (revents & EPOLLERR)
		pr |= POLLERR;
	if (revents & EPOLLHUP)
		pr |= POLLHUP;
	if ((revents & EPOLLRDHUP) && !(pr & POLLIN))
		pr |= POLLIN;
	if (iscsi_service(c->ctx, pr) < 0) {
		gw_conn_fail(c, iscsi_get_error(c->ctx));
		return;
	}
	if (c->ctx && !c->broken)
		gw_conn_update(c);
}

static void gw_tick(struct reactor_timer *t)
{
	struct gw_conn *c = container_of(t, struct gw_conn, tick);
	uint64_t now = reactor_now_ns();
	struct gw_req *rq, *tmp;

	if (c->ctx && !c->broken) {
		if (c->state == GW_CONNECTING && now >= c->connect_deadline) {
			gw_conn_fail(c, "login timed out");
		} else if (iscsi_service(c->ctx, 0) < 0) { /* libiscsi's timeouts */
			gw_conn_fail(c, iscsi_get_error(c->ctx));
		} else if (c->state == GW_UP) {
			/* BUSY retries wait here for a tick */
			list_for_each_entry_safe(rq, tmp, &c->pending, node)
			{
				if (c->state != GW_UP || c->broken)
					break;
				gw_send(c, rq);
			}
		}
	}
	gw_expire(c, false);
	if (!c->ctx && !c->broken && !list_empty(&c->pending) && now >= c->next_attempt)
		gw_connect(c);
	if (c->ctx || !list_empty(&c->pending))
		reactor_timer_arm(c->r, &c->tick, GW_TICK_NS);
}

static struct gw_conn *gw_conn_get(struct gw *gw, struct reactor *r)
{
	unsigned id = reactor_id(r);
	struct gw_conn *c;

	if (id >= GW_MAX_SLOTS)
		return NULL;
	c = gw->slots[id];
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->gw = gw;
	c->r = r;
	list_init(&c->pending);
	list_init(&c->inflight);
	reactor_timer_init(&c->tick, gw_tick);
	reactor_defer_init(&c->flush, gw_flush_cb);
	pthread_mutex_init(&c->close_lock, NULL);
	pthread_cond_init(&c->close_cond, NULL);
	gw->slots[id] = c;
	return c;
}

static void gw_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct gw *gw = container_of(dev, struct gw, dev);
	struct gw_req *rq = gw_req_of(io);
	struct reactor *r = reactor_self();
	struct gw_conn *c;

	if (io->op != BS_OP_FLUSH &&
	    (io->off > dev->size || io->len > dev->size - io->off || io->off % gw->lbs ||
	     io->len % gw->lbs || (io->op <= BS_OP_WRITE && io->len > UINT32_MAX))) {
		io->done(io, -EINVAL);
		return;
	}
	if ((dev->caps & BS_CAP_READ_ONLY) && io->op != BS_OP_READ && io->op != BS_OP_FLUSH &&
	    io->op != BS_OP_MAP_STATUS) {
		io->done(io, -EROFS);
		return;
	}
	if (io->op != BS_OP_FLUSH && io->len == 0) {
		io->done(io, 0);
		return;
	}
	c = r ? gw_conn_get(gw, r) : NULL;
	if (!c) {
		io->done(io, r ? -ENOMEM : -EIO);
		return;
	}
	memset(rq, 0, sizeof(*rq));
	rq->io = io;
	rq->deadline = reactor_now_ns() + (uint64_t)gw->timeout_s * 1000000000ull;
	rq->queued = true;
	rq->c = c;
	list_add_tail(&c->pending, &rq->node);
	if (!reactor_timer_armed(&c->tick))
		reactor_timer_arm(r, &c->tick, GW_TICK_NS);
	if (c->state == GW_UP && !c->broken) {
		gw_send(c, rq);
		return;
	}
	if (!c->ctx && !c->broken && reactor_now_ns() >= c->next_attempt)
		gw_connect(c);
}

/* ---- close ---- */

static void gw_conn_destroy_here(struct gw_conn *c)
{
	reactor_timer_cancel(&c->tick);
	gw_teardown(c);
	gw_expire(c, true);
}

static void gw_close_msg(struct reactor_msg *m)
{
	struct gw_conn *c = container_of(m, struct gw_conn, close_msg);

	gw_conn_destroy_here(c);
	pthread_mutex_lock(&c->close_lock);
	c->closed = true;
	pthread_cond_signal(&c->close_cond);
	pthread_mutex_unlock(&c->close_lock);
}

static void gw_close(struct bs_dev *dev)
{
	struct gw *gw = container_of(dev, struct gw, dev);

	for (unsigned i = 0; i < GW_MAX_SLOTS; i++) {
		struct gw_conn *c = gw->slots[i];
		bool done;

		if (!c)
			continue;
		if (reactor_self() == c->r || !reactor_running(c->r)) {
			/* its own reactor, or one that no longer runs (the
			 * daemon's shutdown): nothing else touches the slot */
			gw_conn_destroy_here(c);
		} else {
			struct timespec ts;

			c->close_msg.fn = gw_close_msg;
			reactor_post(c->r, &c->close_msg);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_mutex_lock(&c->close_lock);
			while (!c->closed)
				if (pthread_cond_timedwait(&c->close_cond, &c->close_lock, &ts))
					break;
			done = c->closed;
			pthread_mutex_unlock(&c->close_lock);
			if (!done) {
				/* the reactor no longer runs (shutdown): nothing
				 * else touches the slot now; its message stays
				 * queued in a reactor that is about to be freed,
				 * so the slot is left to the process' exit */
				gw_conn_destroy_here(c);
				c->closed = true;
				gw->slots[i] = NULL;
				continue;
			}
		}
		pthread_mutex_destroy(&c->close_lock);
		pthread_cond_destroy(&c->close_cond);
		free(c);
		gw->slots[i] = NULL;
	}
	free(gw->portal);
	free(gw->target);
	free(gw->user);
	free(gw->passwd);
	free(gw->initiator);
	free(gw->zero_block);
	free(gw);
}

static const struct bs_ops gw_ops = {
    .type = "iscsi",
    .submit = gw_submit,
    .close = gw_close,
};

/* ---- open ---- */

static const char *gw_option(const struct bs_params *p, const char *key)
{
	for (size_t i = 0; i < p->noptions; i++)
		if (p->options[i].key && strcmp(p->options[i].key, key) == 0)
			return p->options[i].value;
	return NULL;
}

/* REPORT SUPPORTED OPERATION CODES, one command (options 1: by opcode;
 * 2: by opcode and service action). */
static bool gw_opcode_supported(struct iscsi_context *ctx, int lun, int options, int opcode, int sa)
{
	struct scsi_task *t =
	    iscsi_report_supported_opcodes_sync(ctx, lun, 0, options, opcode, sa, 64);
	bool ok = false;

	if (t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 2)
		ok = (t->datain.data[1] & 0x07) == 3 || (t->datain.data[1] & 0x07) == 5;
	if (t)
		scsi_free_scsi_task(t);
	return ok;
}

/* Read geometry and caps from the remote over a synchronous session. */
static int gw_probe(struct gw *gw, bool readonly)
{
	struct iscsi_context *ctx = gw_new_context(gw);
	struct scsi_task *t;
	bool lbprz = false, lbpme = false, lbpu = false;
	uint32_t max_unmap = 0, max_desc = 0, unmap_gran = 0;
	uint64_t max_ws = 0;
	uint32_t opt_xfer = 0;
	int rc = -EIO;

	if (!ctx)
		return -ENOMEM;
	if (iscsi_full_connect_sync(ctx, gw->portal, gw->lun) != 0) {
		log_err("backstore %s: cannot log in to %s (%s): %s", gw->dev.name, gw->portal,
			gw->target, iscsi_get_error(ctx));
		iscsi_destroy_context(ctx);
		return -EHOSTUNREACH;
	}
	t = iscsi_readcapacity16_sync(ctx, gw->lun);
	if (!t || t->status != SCSI_STATUS_GOOD || t->datain.size < 16) {
		log_err("backstore %s: READ CAPACITY(16) of %s LUN %d failed: %s", gw->dev.name,
			gw->target, gw->lun, iscsi_get_error(ctx));
		goto out;
	}
	{
		const uint8_t *d = t->datain.data;
		uint64_t last = gw_be64(d);
		uint32_t bl = gw_be32(d + 8);
		unsigned lbppbe = d[13] & 0x0f;

		lbpme = d[14] & 0x80;
		lbprz = d[14] & 0x40;
		if (bl < 512 || bl > 65536 || (bl & (bl - 1))) {
			log_err("backstore %s: remote block size %u unsupported", gw->dev.name, bl);
			goto out;
		}
		gw->lbs = bl;
		gw->dev.lbs = bl;
		gw->dev.pbs = lbppbe < 16 ? bl << lbppbe : bl;
		gw->dev.size = (last + 1) * bl;
	}
	scsi_free_scsi_task(t);
	/* Block Limits */
	t = iscsi_inquiry_sync(ctx, gw->lun, 1, 0xb0, 64);
	if (t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 44) {
		const uint8_t *d = t->datain.data;

		opt_xfer = gw_be32(d + 12);
		max_unmap = gw_be32(d + 20);
		max_desc = gw_be32(d + 24);
		unmap_gran = gw_be32(d + 28);
		max_ws = gw_be64(d + 36);
	}
	if (t)
		scsi_free_scsi_task(t);
	/* Logical Block Provisioning */
	if (lbpme) {
		t = iscsi_inquiry_sync(ctx, gw->lun, 1, 0xb2, 64);
		if (t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 6)
			lbpu = t->datain.data[5] & 0x80;
		if (t)
			scsi_free_scsi_task(t);
	}
	gw->dev.caps = BS_CAP_FLUSH | BS_CAP_FUA;
	if (lbpme && lbpu && lbprz && max_unmap && max_desc) {
		gw->dev.caps |= BS_CAP_DISCARD;
		gw->max_unmap_blocks = max_unmap;
		gw->dev.discard_gran = unmap_gran > 1 ? unmap_gran * gw->lbs : 0;
	}
	if (lbpme && gw_opcode_supported(ctx, gw->lun, 2, 0x9e, 0x12))
		gw->dev.caps |= BS_CAP_MAP_STATUS; /* GET LBA STATUS */
	if (gw_opcode_supported(ctx, gw->lun, 1, 0x93, 0)) {
		gw->dev.caps |= BS_CAP_WRITE_ZEROES;
		gw->max_ws_blocks =
		    max_ws && max_ws < GW_WS_CHUNK_BLOCKS ? (uint32_t)max_ws : GW_WS_CHUNK_BLOCKS;
	}
	if (opt_xfer && (uint64_t)opt_xfer * gw->lbs <= UINT32_MAX)
		gw->dev.opt_unit = opt_xfer * gw->lbs;
	/* caching mode page: WCE; the header's WP bit */
	t = iscsi_modesense6_sync(ctx, gw->lun, 1, SCSI_MODESENSE_PC_CURRENT, SCSI_MODEPAGE_CACHING,
				  0, 255);
	if (t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 4) {
		const uint8_t *d = t->datain.data;
		size_t n = (size_t)t->datain.size;
		size_t pg = 4 + (size_t)d[3];

		if (d[2] & 0x80)
			gw->dev.caps |= BS_CAP_READ_ONLY;
		if (pg + 3 <= n && (d[pg] & 0x3f) == 0x08 && (d[pg + 2] & 0x04))
			gw->dev.caps |= BS_CAP_WRITE_CACHE;
	}
	if (t)
		scsi_free_scsi_task(t);
	if (readonly)
		gw->dev.caps |= BS_CAP_READ_ONLY;
	rc = 0;
	t = NULL;
out:
	if (t)
		scsi_free_scsi_task(t);
	iscsi_logout_sync(ctx);
	iscsi_destroy_context(ctx);
	return rc;
}

static char *gw_strdup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static int gw_open(const struct bs_params *p, struct bs_dev **out)
{
	struct iscsi_context *pctx;
	struct iscsi_url *u;
	const char *ini = gw_option(p, "initiator");
	const char *to = gw_option(p, "timeout");
	struct gw *gw;
	int rc;

	for (size_t i = 0; i < p->noptions; i++) {
		const char *k = p->options[i].key;

		if (!k || (strcmp(k, "initiator") != 0 && strcmp(k, "timeout") != 0)) {
			log_err("backstore %s: unknown iscsi option '%s'", p->name, k ? k : "");
			return -EINVAL;
		}
	}
	if (iscsi_gw_url_check(p->url) != 0) {
		log_err(
		    "backstore %s: iscsi needs a url iscsi://[user[%%secret]@]host[:port]/IQN/LUN",
		    p->name);
		return -EINVAL;
	}
	gw = calloc(1, sizeof(*gw));
	if (!gw)
		return -ENOMEM;
	snprintf(gw->dev.name, sizeof(gw->dev.name), "%s", p->name);
	gw->timeout_s = GW_DEFAULT_TIMEOUT_S;
	if (to) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(to, &end, 10);
		if (errno || *end || v < 1 || v > 3600) {
			log_err("backstore %s: timeout '%s' is not 1..3600 seconds", p->name, to);
			free(gw);
			return -EINVAL;
		}
		gw->timeout_s = (unsigned)v;
	}
	gw->initiator = strdup(ini && *ini ? ini : GW_DEFAULT_INITIATOR);
	pctx = iscsi_create_context(gw->initiator ? gw->initiator : GW_DEFAULT_INITIATOR);
	if (!gw->initiator || !pctx) {
		if (pctx)
			iscsi_destroy_context(pctx);
		free(gw->initiator);
		free(gw);
		return -ENOMEM;
	}
	u = iscsi_parse_full_url(pctx, p->url);
	if (!u) {
		log_err("backstore %s: bad url: %s", p->name, iscsi_get_error(pctx));
		iscsi_destroy_context(pctx);
		free(gw->initiator);
		free(gw);
		return -EINVAL;
	}
	gw->portal = strdup(u->portal);
	gw->target = strdup(u->target);
	gw->user = gw_strdup_or_null(u->user);
	gw->passwd = gw_strdup_or_null(u->passwd);
	gw->lun = u->lun;
	iscsi_destroy_url(u);
	iscsi_destroy_context(pctx);
	gw->dev.ops = &gw_ops;
	rc = (!gw->portal || !gw->target) ? -ENOMEM : gw_probe(gw, p->readonly);
	if (rc == 0) {
		gw->zero_block = calloc(1, gw->lbs);
		if (!gw->zero_block)
			rc = -ENOMEM;
	}
	if (rc) {
		gw_close(&gw->dev);
		return rc;
	}
	gw->dev.priv = gw;
	log_info("backstore %s: %s %s LUN %d, %u-byte blocks", p->name, gw->portal, gw->target,
		 gw->lun, gw->lbs);
	*out = &gw->dev;
	return 0;
}

const struct bs_type bs_iscsi_type = {
    .name = "iscsi",
    .open = gw_open,
};
