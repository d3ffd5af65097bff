/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conn.h: one iSCSI connection: its socket (or a test I/O), the PDU receive
 * machine, the send queue, the RFC 7143 8.1 target connection state machine,
 * and the tasks it carries.
 *
 * Threading: a connection lives on one reactor thread (conn->r); everything
 * here runs there. Other threads only post messages to it (drop, resume)
 * holding a reference (conn->refs). The one exception is the socket of a
 * spread MC/S connection, read and written on another reactor by the shell
 * of conn_split.c, which exchanges bytes with the connection through rings.
 *
 * Life: iscsi_conn_start() (accepted socket) -> S3 XPT_UP -> login (S4) ->
 * full feature phase (S5) -> logout (S6) or failure (S8) -> S1 FREE: the
 * socket is closed at once; the structure goes when the last reference
 * (tasks still held by the SCSI core, posted messages) is dropped. */
#ifndef UT_ISCSI_CONN_H
#define UT_ISCSI_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "fabric/iscsi/admission.h"
#include "fabric/iscsi/pdu.h"
#include "fabric/iscsi/proto.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "scsi/scsi.h"

struct iscsi_session;
struct iscsi_login;
struct iscsi_text;
struct iscsi_portal;
struct iscsi_target;
struct iscsi_tpg;
struct iscsi_conn;

/* RFC 7143 8.1.1: target connection states (S2 XPT_WAIT is initiator only). */
enum iscsi_conn_state {
	ISCSI_CONN_S1_FREE = 1,
	ISCSI_CONN_S3_XPT_UP = 3,
	ISCSI_CONN_S4_IN_LOGIN = 4,
	ISCSI_CONN_S5_LOGGED_IN = 5,
	ISCSI_CONN_S6_IN_LOGOUT = 6,
	ISCSI_CONN_S7_LOGOUT_REQUESTED = 7,
	ISCSI_CONN_S8_CLEANUP_WAIT = 8,
};

/* Events of the connection state machine (the T<n> they drive are in the
 * table in conn.c). */
enum iscsi_conn_event {
	ISCSI_CEV_LOGIN_REQ,   /* first Login Request */
	ISCSI_CEV_LOGIN_OK,    /* final Login Response with status 0 sent */
	ISCSI_CEV_LOGIN_FAIL,  /* Login Response with non-zero status sent */
	ISCSI_CEV_LOGOUT_REQ,  /* Logout Request received */
	ISCSI_CEV_LOGOUT_SENT, /* Logout Response (success) sent */
	ISCSI_CEV_TRANSPORT,   /* disconnect, reset, timeout, protocol error */
	ISCSI_CEV_DROP,	       /* internal: reinstatement, reset, shutdown */
	ISCSI_CEV_CLEANED,     /* CLEANUP_WAIT done (ERL 0: at once) */
	ISCSI_CEV_COUNT,
};

/* I/O for connections that have no socket (fuzzing, unit tests). */
struct iscsi_conn_io {
	/* Write the iovecs; return bytes taken or -errno (-EAGAIN: later). */
	ssize_t (*writev)(struct iscsi_conn *c, const struct iovec *iov, int n);
};

#define ISCSI_ITT_BUCKETS 64u
#define ISCSI_R2T_MAX	  16u /* outstanding R2Ts per task we can track */

/* One outstanding R2T (data_out.c). */
struct iscsi_r2t {
	uint32_t ttt;
	uint32_t offset; /* Buffer Offset of the burst */
	uint32_t len;	 /* Desired Data Transfer Length */
	uint32_t got;	 /* bytes received in order */
	uint32_t datasn; /* next expected DataSN */
	uint32_t r2tsn;	 /* R2TSN it went out with (R2T SNACK, snack.c) */
	bool active;
	bool lost; /* ERL 1: a PDU of the burst was lost; the rest is
		    * discarded and asked again at its end (erl.c) */
};

enum iscsi_task_state {
	ISCSI_TASK_FREE = 0,
	ISCSI_TASK_DATA_OUT, /* set up; collecting Data-Out and/or waiting for CmdSN */
	ISCSI_TASK_EXEC,     /* handed to the core */
	ISCSI_TASK_SENDING,  /* cmd_done: Data-In/Response queued */
};

/* A SCSI task: the core's command embedded (container_of), plus the iSCSI
 * state of its data transfers. Taken from the connection's free list. */
struct iscsi_task {
	struct scsi_cmd cmd;
	struct iscsi_conn *conn;
	struct iscsi_session *sess; /* outlives the task (session->tasks) */
	struct list_node node;	    /* conn->tasks or conn->task_free */
	struct list_node itt_node;  /* conn->itt_hash */
	struct list_node hold_node; /* session->held: waiting for CmdSN order */
	/* session->unentered: set up ahead of its CmdSN, not yet in its LU's
	 * task set (scsi_cmd.c: iscsi_tasks_enter_reached) */
	struct list_node enter_node;
	uint16_t idx;  /* slot in conn->task_tab (low TTT bits) */
	uint8_t state; /* enum iscsi_task_state */
	bool immediate;
	bool counted;	   /* takes a slot of the CmdSN window (busy) */
	bool exec_pending; /* data complete, waiting for CmdSN order */
	bool aborted;	   /* cmd_abort_pending: drain, do not solicit */
	bool setup;	   /* scsi_cmd_setup() called: release through the core */
	/* ERL 1 (erl.c): the command's immediate data had a digest error: the
	 * PDU was rejected and the task waits for the command again (same ITT
	 * and CmdSN, RFC 7143 6.2.1) */
	bool retry_wait;
	bool uns_lost; /* ERL 1: unsolicited data lost; solicited again after F */
	uint32_t itt;
	uint32_t cmdsn;
	uint32_t edtl;	/* Expected Data Transfer Length */
	uint8_t lun[8]; /* LUN field as received */
	/* Data-Out (data_out.c) */
	uint32_t want;	       /* bytes placed at cmd.buf: min(write_len, EDTL) */
	uint32_t uns_got;      /* unsolicited bytes received (immediate + Data-Out) */
	uint32_t uns_datasn;   /* next DataSN of the unsolicited burst */
	bool uns_open;	       /* unsolicited Data-Out may still come (F not seen) */
	uint32_t sol_next;     /* next offset to solicit with an R2T */
	uint32_t r2tsn;	       /* next R2TSN */
	uint16_t r2t_open;     /* outstanding R2Ts */
	uint16_t fabric_error; /* enum sense_reason to complete with, 0 = none */
	uint32_t pinned;       /* buffer bytes counted in conn/session data_bytes */
	bool pinned_reserved;  /* ... and in the session's reserve_bytes */
	uint64_t data_wait_ns; /* since when it waits for Data-Out (data_out.c timeout) */
	struct iscsi_r2t r2t[ISCSI_R2T_MAX];
	/* Data-In (scsi_cmd.c) */
	uint32_t datasn; /* Data-In and R2T PDUs sent (ExpDataSN) */
	/* ERL 2 (erl2.c): the connection whose pool the task came from (its
	 * slot, its TTTs' low half); conn is the one it is allegiant to, which
	 * differs after a TASK REASSIGN */
	struct iscsi_conn *home;
	/* ERL 2: completed while its connection was gone: its Data-In and
	 * status wait for a TASK REASSIGN */
	bool erl2_done;
};

struct iscsi_conn {
	struct reactor *r;
	struct reactor_fd rfd;
	int fd;				/* -1: none (closed, or test I/O) */
	const struct iscsi_conn_io *io; /* NULL: the socket */
	struct iscsi_portal *portal;	/* the listener it came through */
	atomic_uint refs;
	uint8_t state;		/* enum iscsi_conn_state */
	bool registered;	/* in iscsi_global.conns */
	bool drop_posted;	/* drop_msg in flight */
	bool reneg_requested;	/* AsyncEvent 4 sent, no Text Request since (async.c) */
	bool in_rx;		/* inside the receive loop */
	bool close_after_flush; /* a unit with ISCSI_TX_F_CLOSE was sent */
	uint8_t close_ev;	/* enum iscsi_conn_event raised then */
	bool rx_discard;	/* swallow the PDU being received */
	bool rx_drop_data;	/* ERL 1: this Data-Out's data is not counted (erl.c) */
	uint8_t hdig_skips;	/* ERL 1: header digest errors in a row (conn.c) */
	uint8_t fail_kind;	/* enum iscsi_fail_kind: what its end is blamed on */
	char peer[80];		/* "addr:port", for logs */
	char local[80];
	struct sockaddr_storage local_sa;
	struct sockaddr_storage peer_sa; /* AF_UNSPEC: none (test I/O) */

	/* receive */
	struct iscsi_rx rx;
	uint8_t *rxbuf;
	uint32_t rxbuf_size;
	uint32_t rx_have; /* bytes in rxbuf */
	uint32_t rx_off;  /* bytes of rxbuf consumed */
	bool rx_paused;
	uint8_t *seg; /* data segment of non-SCSI PDUs (login, text, NOP-Out) */
	uint32_t seg_size;
	/* full feature phase with iscsi.socket_uring: the socket is read by
	 * a receive on the reactor's io_uring instead of readv on readiness
	 * (conn_uring.c); one in flight at a time, holding a reference */
	struct iscsi_conn_uring {
		struct reactor_uring_req req;
		struct msghdr mh;
		struct iovec iov[2];
		size_t dlen;  /* iov[0]: that many bytes straight into a data segment */
		int held_res; /* a result that came while paused, for the resume */
		bool on, inflight, held;
	} ur;

	/* transmit */
	struct list_node txq;
	struct list_node tx_free;
	unsigned tx_free_n;
	uint32_t txq_bytes;
	uint32_t txq_lent; /* units with ISCSI_TX_F_LENT queued (conn_unlend) */
	struct reactor_defer flush;
	bool out_armed;
	/* PDUs and wire bytes since accept (iscsi_conn_info): written by the
	 * connection's reactor only, read under iscsi_global.lock */
	_Atomic uint64_t stat_rx_pdus, stat_tx_pdus, stat_rx_bytes, stat_tx_bytes;

	/* numbering and negotiated connection parameters */
	uint16_t cid;
	uint32_t stat_sn; /* next StatSN */
	uint32_t exp_stat_sn;
	uint32_t max_send_dsl; /* initiator's MaxRecvDataSegmentLength */
	uint32_t max_recv_dsl; /* ours */
	bool hdigest;
	bool ddigest;

	/* session */
	struct iscsi_session *sess;
	struct list_node sess_node;
	struct iscsi_target *target; /* referenced from TargetName resolution on */
	struct iscsi_tpg *tpg;
	struct iscsi_login *login; /* until full feature phase */
	struct iscsi_text *text;   /* a Text exchange in progress */

	/* tasks */
	struct iscsi_task **task_tab;
	unsigned ntasks; /* allocated (task_tab entries) */
	unsigned max_tasks;
	struct list_node tasks; /* live */
	struct list_node task_free;
	struct list_node itt_hash[ISCSI_ITT_BUCKETS];
	unsigned live_tasks;
	uint16_t ttt_gen;
	struct iscsi_task *rx_task; /* task whose data segment is being received */
	int rx_r2t;		    /* its R2T slot, -1: unsolicited */
	bool rx_advanced;	    /* the command moved ExpCmdSN: held tasks follow it */
	bool logout_pending;	    /* Logout waiting for tasks to drain */
	uint32_t logout_itt;
	uint8_t logout_rsp;

	/* ERL >= 1: copies for retransmission (retain.h), capped */
	struct list_node retained;
	uint64_t retained_bytes;

	/* back-pressure on buffer memory (mempress.c) */
	uint64_t data_bytes; /* buffer bytes its tasks pin */
	struct reactor_timer mem_timer;
	bool mem_wait;	      /* rx_task waits for its data buffer: reading stopped */
	bool mem_held;	      /* MaxCmdSN was held back: announce it when memory is back */
	uint64_t mem_wait_ns; /* when rx_task started waiting */

	/* timers */
	struct reactor_timer login_timer;
	struct reactor_timer dataout_timer; /* data_out.c: tasks waiting too long for Data-Out */
	struct reactor_timer nop_timer;
	struct reactor_timer aen_timer; /* async.c: SCSI events of the session's nexus */
	bool nop_outstanding;
	uint32_t nop_ttt;
	/* task_reporting.c: the last AsyncEvent 5 sent here (FastAbort), so
	 * that one multi-task abort sends one per connection and LUN */
	uint64_t fa_tmf; /* scsi_tmf.seq */
	uint8_t fa_lun[8];
	uint32_t fa_statsn; /* its StatSN */
	/* task_reporting.c: a fenced response queued here waits for the
	 * acknowledgment of the session's other connections (no flush) */
	bool fence_pre;
	/* the last byte received (accept before any): the keepalive's sign of
	 * life, and the silence admission.c ranks by from other threads */
	_Atomic uint64_t last_rx_ns;

	struct log_ratelimit rl;
	struct list_node all_node; /* iscsi_global.conns */
	struct iscsi_adm_slot adm; /* admission.c: its login or discovery slot */
	struct reactor_msg start_msg;
	struct reactor_msg drop_msg;
	struct reactor_msg resume_msg;
	struct list_node reinstate_node; /* session->waiters */
	/* iscsi_conn_move(): to the reactor of the session it joins */
	struct reactor_msg move_msg;
	struct reactor *move_to;
	void (*move_done)(struct iscsi_conn *c);
	uint64_t move_left_ns; /* of its login timer */
	/* it leaves its session cleanly although it did not send the Logout
	 * itself: another connection's Logout named its CID, or closed the
	 * session (logout.c) */
	bool leave_clean;
	/* ERL 2 (erl2.c): connection recovery. recov_requested: a Logout
	 * reason 2 or a login with its CID named it, its close is a recovery;
	 * recovering: it failed or was removed for recovery and is kept, without
	 * socket, as a shell holding its tasks and retained copies for TASK
	 * REASSIGN (session->recov) until recov_deadline_ns; recov_expired:
	 * that time passed, its tasks end; foreign_tasks: tasks of other
	 * connections' pools reassigned to it (iscsi_task_by_ttt) */
	bool recov_requested;
	bool recovering;
	bool recov_expired;
	unsigned foreign_tasks;
	uint64_t recov_deadline_ns;
	struct list_node recov_node;
	/* conn_split.c: MC/S spread over the reactors, the socket stays on
	 * the reactor that accepted it (sock_reactor, -1: c->r's) and this
	 * shell carries its bytes (io writes into it then) */
	struct iscsi_split *split;
	int sock_reactor;
};

/* ---- conn.c ---- */
/* Take ownership of an accepted socket for reactor r (from reactor 0): the
 * connection takes a login slot (admission.h; it gives it back when it
 * leaves the login phase) and starts on r. */
void iscsi_conn_hand_off(struct reactor *r, int fd, struct iscsi_portal *portal);
/* Entry points without a socket (fuzzing harnesses, unit tests): a
 * connection on reactor r (the calling thread's) through portal, writing
 * with io. iscsi_conn_feed() runs the bytes through the receive machine as
 * if read from a socket and flushes the replies; it returns 0, or -errno
 * once the connection has been dropped. iscsi_conn_destroy() drops it and
 * releases the caller's reference.
 * A harness: iscsi_init(); iscsi_target_add() + iscsi_tpg_add() over a
 * scsi_target; portal = iscsi_portal_new_virtual(tpg) (target.h: no
 * socket); c = iscsi_conn_new(r, -1, portal, &io); iscsi_conn_feed(c, data,
 * size) in any phase (login, discovery, full feature: feed a login first);
 * iscsi_conn_destroy(c); iscsi_portal_free_virtual(portal). Posted messages
 * and deferred work need the reactor run (tests/unit/iscsi/harness.c). */
struct iscsi_conn *iscsi_conn_new(struct reactor *r, int fd, struct iscsi_portal *portal,
				  const struct iscsi_conn_io *io);
int iscsi_conn_feed(struct iscsi_conn *c, const void *buf, size_t len);
void iscsi_conn_destroy(struct iscsi_conn *c);
/* State of the connection (for tests). */
enum iscsi_conn_state iscsi_conn_state(const struct iscsi_conn *c);

void iscsi_conn_get(struct iscsi_conn *c);
void iscsi_conn_put(struct iscsi_conn *c);
/* Drive the state machine; unknown transitions drop the connection. */
void iscsi_conn_event(struct iscsi_conn *c, enum iscsi_conn_event ev);
/* Drop the connection now (ERL 0: the session goes with it). */
void iscsi_conn_drop(struct iscsi_conn *c, const char *why);
/* MC/S: move c, paused in its login, to reactor to (its session's), then
 * call done(c) there; on the way the connection may be dropped (done is
 * not called then). From c's reactor, outside its receive path is not
 * needed: the move happens in a posted message. */
void iscsi_conn_move(struct iscsi_conn *c, struct reactor *to, void (*done)(struct iscsi_conn *c));
/* From any thread: ask c's reactor to drop it. */
void iscsi_conn_drop_async(struct iscsi_conn *c);
bool iscsi_conn_dead(const struct iscsi_conn *c);
/* Stop/restart reading (login waiting for a reinstatement, back-pressure). */
void iscsi_conn_pause(struct iscsi_conn *c);
void iscsi_conn_resume(struct iscsi_conn *c);
/* The socket's receive mechanics, shared by readv on readiness (conn.c) and
 * the io_uring receive (conn_uring.c). iscsi_conn_rx_iov: where the next
 * read goes (empty receive buffer required): 1 or 2 iovecs, *dlen bytes of
 * them straight into the data segment being received. iscsi_conn_rx_done:
 * n bytes (or -errno, 0 for end of stream) arrived there. */
int iscsi_conn_rx_iov(struct iscsi_conn *c, struct iovec iov[2], size_t *dlen);
void iscsi_conn_rx_done(struct iscsi_conn *c, ssize_t n, size_t dlen);
/* conn_uring.c: take over the socket's reads (true) in full feature phase
 * when iscsi.socket_uring asks and the reactor can; called by the readiness
 * path with nothing buffered. */
bool iscsi_conn_uring_start(struct iscsi_conn *c);
/* After a resume: the result held while paused, and the next receive. */
void iscsi_conn_uring_resume(struct iscsi_conn *c);
/* Before the socket closes: stop the receive in flight (its buffers, the
 * command's included, are free to go when this returns). */
void iscsi_conn_uring_close(struct iscsi_conn *c);
/* Run bytes through the receive machine (a socket's read, or the rx ring
 * of conn_split.c): the bytes taken (fewer when the connection paused), or
 * < 0 when it is gone. */
ssize_t iscsi_conn_rx_bytes(struct iscsi_conn *c, const uint8_t *p, size_t len);

/* ---- conn_split.c ---- */
/* On c's reactor, its socket taken off it (conn_move_depart): keep the
 * socket on this reactor in a shell that reads and writes for c, which
 * goes on to reactor to. 0, or -errno (then c moves whole): -ENOMEM when
 * its rings would take buffer memory past half of
 * iscsi.max_buffer_memory_mib. Called with iscsi_global.lock held. */
int iscsi_split_start(struct iscsi_conn *c, struct reactor *to);
/* conn_close: let the shell go; it sends what it holds and closes. */
void iscsi_split_detach(struct iscsi_conn *c);
/* Feed the bytes the shell has read, while c reads. */
void iscsi_split_drain(struct iscsi_conn *c);

/* Rate-limited per-connection protocol error line. */
void iscsi_conn_proto_err(struct iscsi_conn *c, const char *fmt, ...) UT_PRINTF(2, 3);
/* The same for a digest error (counters.h: both are counted on the session). */
void iscsi_conn_digest_err(struct iscsi_conn *c, const char *fmt, ...) UT_PRINTF(2, 3);
/* Receive segment buffer of at least len bytes (non-SCSI PDUs). */
uint8_t *iscsi_conn_seg(struct iscsi_conn *c, uint32_t len);
/* Receive limit for the current phase: 8192 in login, ours in FFP. */
uint32_t iscsi_conn_rx_limit(const struct iscsi_conn *c);

/* ---- transmit (conn.c) ---- */
struct iscsi_tx *iscsi_tx_get(struct iscsi_conn *c);
/* Give back a unit that will not be queued. */
void iscsi_tx_put(struct iscsi_conn *c, struct iscsi_tx *tx);
/* Digest flags from the connection, seal and queue; the flush runs at the
 * end of the reactor iteration. */
void iscsi_tx_queue(struct iscsi_conn *c, struct iscsi_tx *tx);
/* Fill StatSN (advancing it when advance), ExpCmdSN and MaxCmdSN of a
 * response header at the given offsets. */
void iscsi_conn_fill_sn(struct iscsi_conn *c, uint8_t *statsn, uint8_t *exp_cmdsn,
			uint8_t *max_cmdsn, bool advance);
/* Write what can be written now. */
void iscsi_conn_flush(struct iscsi_conn *c);
/* Copy len bytes into the unit (inline when small, else heap). */
int iscsi_tx_set_data(struct iscsi_tx *tx, const void *p, uint32_t len);

/* ---- tasks (scsi_cmd.c) ---- */
struct iscsi_task *iscsi_task_get(struct iscsi_conn *c);
void iscsi_task_put(struct iscsi_task *t);
struct iscsi_task *iscsi_task_by_itt(struct iscsi_conn *c, uint32_t itt);
struct iscsi_task *iscsi_task_by_ttt(struct iscsi_conn *c, uint32_t ttt);
/* Every wanted byte of Data-Out is in (or the task was failed/aborted):
 * hand it to the core when CmdSN order allows. */
void iscsi_task_data_complete(struct iscsi_task *t);
/* After a Data-Out PDU, the command PDU or an abort: solicit more or
 * complete. */
void iscsi_task_data_progress(struct iscsi_task *t);
/* ExpCmdSN moved: the tasks set up ahead of it that it reached enter their
 * LU's task set, in CmdSN order; then the held tasks it reached run. */
void iscsi_tasks_cmdsn_advanced(struct iscsi_session *s);
/* Enter the task set: the unentered tasks ExpCmdSN reached (in CmdSN
 * order), or all of them (before a TMF, which must see every task the
 * session holds). */
void iscsi_tasks_enter_reached(struct iscsi_session *s);
void iscsi_tasks_enter_all(struct iscsi_session *s);
void iscsi_task_exec(struct iscsi_task *t);
/* The connection is gone: end its tasks still waiting for Data-Out or for
 * CmdSN order. */
void iscsi_tasks_terminate(struct iscsi_conn *c);
extern const struct scsi_fabric_ops iscsi_fabric_ops;

/* ERL 2 (scsi_cmd.c): move t's allegiance to connection to (TASK
 * REASSIGN, erl2.c) */
void iscsi_task_move(struct iscsi_task *t, struct iscsi_conn *to);
/* ERL 2: send a finished task's Data-In from DataSN from (segmented as on
 * a connection with send segment old_seg) and its status, on t->conn */
int iscsi_task_resend(struct iscsi_task *t, uint32_t from, uint32_t old_seg);

/* ---- PDU handlers (one file each), return 0 or < 0 to drop ---- */
int iscsi_login_rx(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		   uint32_t len);
int iscsi_text_rx(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		  uint32_t len);
int iscsi_nop_out_rx(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		     uint32_t len);
int iscsi_logout_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
int iscsi_tmf_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
/* The two PDUs of a command's data path, each in two steps of the receive
 * machine (pdu.h): rx_header when its header is in (say where the data
 * segment goes: rx->dst/keep; > 0 pauses before it), rx_end when the whole
 * PDU is in, data segment and digest included (> 0: the connection paused).
 * scsi_cmd.c: SCSI Command (RFC 7143 11.3): the task, the CmdSN window, the
 * core's set-up, immediate data; at the end, on to the data phase. */
int iscsi_scsi_cmd_rx_header(struct iscsi_conn *c, struct iscsi_rx *rx);
int iscsi_scsi_cmd_rx_end(struct iscsi_conn *c, struct iscsi_rx *rx, bool ddigest_ok);
/* data_out.c: SCSI Data-Out (11.7): the burst checks and placement; at the
 * end, the next R2T or the end of the data phase. */
int iscsi_data_out_rx_header(struct iscsi_conn *c, struct iscsi_rx *rx);
int iscsi_data_out_rx_end(struct iscsi_conn *c, struct iscsi_rx *rx, bool ddigest_ok);
/* data_out.c */
void iscsi_r2t_stop(struct iscsi_task *t);
/* R2T r of t again, same TTT and R2TSN; its burst starts over (snack.c) */
void iscsi_r2t_resend(struct iscsi_task *t, struct iscsi_r2t *r);
/* Send r again under a new TTT (a recovery R2T, erl.c; r2tsn set) */
void iscsi_r2t_recovery(struct iscsi_task *t, struct iscsi_r2t *r);
/* erl.c: ERL 1 recovery of lost write data (RFC 7143 7.2.1): the burst of r
 * (NULL: the unsolicited one) asked again from where its data stopped */
void iscsi_erl_burst_recover(struct iscsi_task *t, struct iscsi_r2t *r);
/* An R2T sent again (R2T SNACK) or a recovery R2T: counted as retransmitted */
void iscsi_erl_count_r2t(struct iscsi_task *t);
/* snack.c */
int iscsi_snack_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
/* tmf.c */
void iscsi_tmf_done(struct scsi_tmf *tmf);
/* Non-immediate TMFs wait for CmdSN order (tmf.c): the CmdSN of the first
 * one waiting (false: none); run it (its turn came); drop those of a
 * connection that leaves the session. */
bool iscsi_tmf_held_first(struct iscsi_session *s, uint32_t *cmdsn);
void iscsi_tmf_run_first(struct iscsi_session *s);
void iscsi_tmf_held_conn_gone(struct iscsi_session *s, struct iscsi_conn *c);
void iscsi_tmf_send_rsp(struct iscsi_conn *c, uint32_t itt, uint8_t response);
/* erl2.c: ErrorRecoveryLevel 2, connection recovery (RFC 7143 7.1.4.3,
 * 7.2.2, 11.5.1, 11.14). The session of c negotiated ERL 2. */
bool iscsi_erl2(const struct iscsi_conn *c);
/* conn.c, conn_close(): does c's close keep its tasks for reassignment
 * (sets c->recovering)? clean: it logged out */
bool iscsi_erl2_conn_closing(struct iscsi_conn *c, bool clean);
/* session.c: c, recovering, has left s->conns: keep it as a shell */
void iscsi_erl2_park(struct iscsi_session *s, struct iscsi_conn *c);
/* The session ends: every shell's tasks end now */
void iscsi_erl2_end_all(struct iscsi_session *s);
/* A session with shells and no connection (under iscsi_global.lock, any
 * thread): its shells end now on its reactor, then the session */
void iscsi_erl2_end_async_locked(struct iscsi_session *s);
/* The same for every session of t (NULL: all): removal, shutdown */
void iscsi_erl2_end_target(struct iscsi_target *t);
/* TASK REASSIGN (TMF function 8) received on c: answered here */
void iscsi_erl2_reassign(struct iscsi_conn *c, uint32_t itt, uint32_t rtt, uint32_t exp_datasn);
/* Logout reason 2 naming cid: 0 it is (or was already) removed for
 * recovery, -ENOENT no such connection; self: it is c */
int iscsi_erl2_logout_remove(struct iscsi_conn *c, uint16_t cid, bool *self);
/* task_reporting.c: does the abort of t (in cmd_abort_pending) keep its open
 * Data-Out bursts until their F bit (RFC 7143 4.2.3.3 a)? Under FastAbort
 * (4.2.3.4) never; the connections that must stop sending are told with
 * AsyncEvent 5. */
bool iscsi_abort_drains_data_out(struct iscsi_task *t);
/* task_reporting.c: a Data-Out for no task on c was sent before the
 * initiator saw the AsyncEvent 5 sent there (expected under FastAbort:
 * discarded without a protocol error) */
bool iscsi_fast_abort_stray(const struct iscsi_conn *c);
/* tmf.c: the connection a TMF of this fabric came on (tmf->nexus is an
 * iSCSI session's, on this reactor) */
struct iscsi_conn *iscsi_tmf_conn(const struct scsi_tmf *tmf);
/* async.c: AsyncEvent 5 (11.9.1) for the LUN field lun; 0, or -1 */
int iscsi_async_task_termination(struct iscsi_conn *c, const uint8_t *lun);
/* task_reporting.c, Response Fence: does the response of this TMF need a
 * fence on s; may it be sent now (else w->run runs once the fence before
 * it is acknowledged); once queued on c, fence it. */
struct iscsi_fence_waiter {
	struct list_node node; /* session->fence_waiters */
	void (*run)(struct iscsi_fence_waiter *w);
};
/* task_reporting.c: a multi-task abort of another nexus aborted a task of
 * s (in its cmd_done): that TMF's response waits for s's StatSNs
 * (4.2.3.3 d) */
void iscsi_third_party_aborted(struct iscsi_session *s, const struct scsi_tmf *tmf);
/* task_reporting.c: a status was just queued on c; the first one after a
 * third party's TMF on a session with ResponseFence or FastAbort is fenced
 * (s->fence_next) */
void iscsi_fence_first_response(struct iscsi_conn *c);
bool iscsi_fence_wanted(const struct iscsi_session *s, uint8_t scsi_tmf_func);
bool iscsi_fence_ready(struct iscsi_session *s, struct iscsi_fence_waiter *w);
void iscsi_fence_after(struct iscsi_conn *c);
/* task_reporting.c: RFC 7143 4.2.3.3 d): before the response of a
 * multi-task abort, the StatSNs sent on each connection of the session are
 * acknowledged (ExpStatSN), solicited with a NOP-In where they are not.
 * w->done runs once they are (at once: false is returned, done not
 * called). */
struct iscsi_ack_wait {
	struct list_node node; /* session->ack_waits */
	unsigned n;
	struct {
		struct iscsi_conn *c;
		uint32_t statsn; /* acknowledged once ExpStatSN reaches it */
	} need[16];		 /* ISCSI_MAX_CONNECTIONS (task_reporting.c) */
	void (*done)(struct iscsi_ack_wait *w);
	/* the session's own waits: a connection still not acknowledging
	 * nop_in_timeout after the ping is dropped (task_reporting.c) */
	struct reactor_timer cap;
};
bool iscsi_ack_wait_start(struct iscsi_session *s, uint8_t scsi_tmf_func, struct iscsi_ack_wait *w);
/* A PDU with this header came on c (conn.c, before its handler). */
void iscsi_ack_waits_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
/* c left s. */
void iscsi_ack_waits_conn_gone(struct iscsi_session *s, struct iscsi_conn *c);
/* nop.c: a NOP-In that asks for a NOP-Out (11.19: TTT not 0xffffffff) */
void iscsi_nop_ping(struct iscsi_conn *c);
/* nop.c: keepalive */
void iscsi_nop_start(struct iscsi_conn *c);
/* async.c: SCSI asynchronous events of a normal session whose target has
 * them on, from full feature phase on */
void iscsi_aen_start(struct iscsi_conn *c);
/* async.c, on c's reactor: AsyncEvent 2 or 3 (Time2Wait, Time2Retain 0),
 * then the connection closes; AsyncEvent 4 (0, or -1 when not sent) */
void iscsi_async_drop(struct iscsi_conn *c, uint8_t event, uint16_t time2wait);
int iscsi_async_renegotiate(struct iscsi_conn *c);
/* mempress.c: back-pressure on buffer memory (RFC 7143 3.2.2.1). The
 * MaxCmdSN to advertise (held where it is while memory is short); a command
 * whose buffer cannot be had waits with the connection's reading stopped
 * (iscsi_mem_wait true; the header callback then returns > 0), retried on a
 * timer, and placed with iscsi_scsi_cmd_place() once it has it; false: it
 * is not waited for (it ends with BUSY). */
uint32_t iscsi_mem_max_cmdsn(struct iscsi_conn *c);
bool iscsi_mem_wait(struct iscsi_conn *c, struct iscsi_task *t);
void iscsi_mem_conn_close(struct iscsi_conn *c);
/* The connection's and session's shares (max_*_data_mib): the buffer budget
 * of the next command (scsi_cmd.buf_budget; 0: none applies), and the
 * accounting of a task's buffer once it has one / when it goes. */
uint32_t iscsi_mem_budget(const struct iscsi_conn *c);
uint32_t iscsi_mem_reserve(const struct iscsi_conn *c);
void iscsi_mem_pin(struct iscsi_task *t);
void iscsi_mem_unpin(struct iscsi_task *t);
/* The send queue (max_*_send_queue_mib): over the cap (stop reading), or
 * back under half of it (read again). */
bool iscsi_sendq_over(const struct iscsi_conn *c);
bool iscsi_sendq_drained(const struct iscsi_conn *c);
/* scsi_cmd.c: where the data segment of the SCSI Command being received goes. */
void iscsi_scsi_cmd_place(struct iscsi_conn *c, struct iscsi_task *t, struct iscsi_rx *rx);
/* reject.c */
void iscsi_reject(struct iscsi_conn *c, uint8_t reason, const union iscsi_hdr *h);
/* logout.c: the Logout Response once the tasks are gone */
void iscsi_logout_tasks_drained(struct iscsi_conn *c);
/* login.c */
void iscsi_login_free(struct iscsi_conn *c);
void iscsi_login_timeout_arm(struct iscsi_conn *c);
/* text.c */
void iscsi_text_free(struct iscsi_conn *c);
/* discovery.c: answer SendTargets=<value> (RFC 7143 Appendix C) */
struct iscsi_neg;
struct iscsi_kbuf;
void iscsi_send_targets(struct iscsi_conn *c, const struct iscsi_neg *n, struct iscsi_kbuf *out);

#endif
