/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.h: iSCSI sessions (RFC 7143 4.4, 6.3.5, 8.3).
 *
 * A session is identified by (InitiatorName, ISID, target) and carries a
 * target-assigned TSIH. It owns the CmdSN window (one CmdSN owner, shared
 * by its connections: MC/S), the negotiated session-wide parameters, and the
 * I_T nexus of the SCSI core. It lives on the reactor of its leading
 * connection; a connection that joins it (a login with its TSIH, login.c)
 * is moved there (iscsi_conn_move), so the window, the held list and the
 * tasks are only ever touched on that one thread (its socket may stay on
 * the reactor that accepted it: conn_split.c). Each connection keeps its
 * own StatSN and its tasks: connection allegiance, a task's Data-In, R2Ts
 * and response go out on the connection its command came on, and its
 * Data-Out is looked for there only.
 *
 * Registry (iscsi_global.sessions, under iscsi_global.lock): TSIH
 * allocation, max_sessions, lookup for reinstatement and for TSIH != 0
 * logins, and target-wide drops (TARGET COLD RESET, target removal).
 *
 * End of a session: its last connection goes (logout or failure; ERL 0 has
 * no continuation; a failed connection takes the others with it:
 * session.c; at ERL 2 a failed connection's tasks wait for reassignment
 * instead and the session stays while they do: erl2.c), the nexus is lost (scsi_nexus_loss: the
 * core aborts the tasks) unless it ended cleanly with no task, and once the last task is released
 * the nexus is destroyed and the session freed. Logins waiting for its reinstatement are resumed
 * then. */
#ifndef UT_ISCSI_SESSION_H
#define UT_ISCSI_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/iscsi/cmdsn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/param.h"
#include "fabric/iscsi/proto.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/reactor.h"

struct iscsi_conn;
struct iscsi_target;
struct iscsi_tpg;
struct scsi_nexus;
struct scsi_lun_map;

/* RFC 7143 8.3.2: target session states. */
enum iscsi_session_state {
	ISCSI_SESS_Q1_FREE = 1,
	ISCSI_SESS_Q2_ACTIVE = 2,      /* leading connection in login */
	ISCSI_SESS_Q3_LOGGED_IN = 3,   /* in full feature phase */
	ISCSI_SESS_Q4_FAILED = 4,      /* last connection failed: ERL 2 with tasks waiting for
					* reassignment (erl2.c), else cleaned at once */
	ISCSI_SESS_Q5_IN_CONTINUE = 5, /* a connection logs in to a failed session (ERL 2) */
};

enum iscsi_session_event {
	ISCSI_SEV_LEADING_LOGIN, /* N1: leading connection enters login */
	ISCSI_SEV_LOGGED_IN,	 /* N2: leading login succeeded */
	ISCSI_SEV_LOGIN_FAILED,	 /* N9: leading login failed */
	ISCSI_SEV_CLOSED,	 /* N3: logout / last connection closed cleanly */
	ISCSI_SEV_FAILED,	 /* N5: last connection failed */
	ISCSI_SEV_CLEANED,	 /* N6: FAILED cleaned up (no task waits: at once) */
	ISCSI_SEV_CONTINUE,	 /* a login joins a FAILED session (continuation) */
	ISCSI_SEV_CONTINUED,	 /* ... and succeeds */
	ISCSI_SEV_COUNT,
};

struct iscsi_session {
	struct list_node reg_node; /* iscsi_global.sessions */
	struct reactor *r;
	struct iscsi_target *target; /* referenced */
	struct iscsi_tpg *tpg;
	uint8_t state; /* enum iscsi_session_state */
	uint8_t type;  /* enum iscsi_session_type */
	bool registered;
	bool nexus_lost;
	bool ending; /* no new commands: logout or failure in progress */
	bool freed_msg_sent;
	uint8_t isid[ISCSI_ISID_LEN];
	uint16_t tsih;
	char initiator_name[ISCSI_NAME_MAX + 1];
	char initiator_alias[ISCSI_ALIAS_MAX + 1];
	char initiator_port[ISCSI_NAME_MAX + 24]; /* "<iqn>,i,0x<isid>" */
	struct iscsi_params params;		  /* negotiated session-wide values */
	char chap_user[ISCSI_CHAP_USER_MAX + 1];  /* CHAP_N it authenticated with; "": none */
	uint8_t chap_secret_sha256[32];		  /* of that identity (discovery filter) */
	bool chap_mutual;			  /* the target authenticated itself too */
	unsigned perms; /* enum iscsi_perm of the ACL (or demo mode) that admitted it */
	struct iscsi_cmdsn cmdsn;
	struct scsi_nexus *nexus;
	struct list_node conns; /* struct iscsi_conn.sess_node */
	unsigned nconns;
	unsigned tasks;		    /* tasks of the session not yet released */
	uint64_t data_bytes;	    /* buffer bytes its tasks pin (mempress.c) */
	uint64_t reserve_bytes;	    /* of those, taken from its reserve */
	uint64_t txq_bytes;	    /* bytes queued for sending on its connections */
	struct list_node held;	    /* tasks waiting for CmdSN order */
	struct list_node unentered; /* tasks set up ahead of CmdSN order, by CmdSN */
	struct list_node tmf_held;  /* non-immediate TMFs waiting for CmdSN order (tmf.c) */
	struct list_node waiters;   /* logins waiting for this session to end (reinstatement) */
	/* task_reporting.c: TMF responses waiting for the acknowledgment of the
	 * StatSNs sent before them (struct iscsi_ack_wait.node) */
	struct list_node ack_waits;
	/* task_reporting.c, Response Fence (TaskReporting ResponseFence or
	 * FastAbort): while a fenced response on fence_conn is not yet
	 * acknowledged, the session's other connections send nothing
	 * (iscsi_conn_flush); TMF responses that need a fence of their own
	 * wait in fence_waiters (struct iscsi_fence_waiter) */
	struct iscsi_conn *fence_conn;
	struct list_node fence_waiters;
	/* task_reporting.c: the wait for this session's StatSNs that another
	 * initiator's multi-task abort asked for, while not yet started */
	struct third_party_wait *tp_wait;
	/* ... and once that wait ended, with ResponseFence or FastAbort: the
	 * next status sent is fenced ("first post-TMF response") */
	bool fence_next;
	struct log_ratelimit rl;
	/* when the leading login completed: CLOCK_REALTIME seconds */
	int64_t login_time;
	/* Counters since the login (iscsi_session_info), iscsi_session_count():
	 * SCSI commands completed, Data-In bytes sent, Data-Out bytes of the
	 * commands that completed with GOOD status. */
	_Atomic uint64_t stat_cmds;
	_Atomic uint64_t stat_read_bytes;
	_Atomic uint64_t stat_write_bytes;
	/* iscsi_session_info's PDU and error counters (iscsi.h, counters.h) */
	_Atomic uint64_t stat_cmd_pdus, stat_rsp_pdus;
	_Atomic uint64_t stat_tx_data, stat_rx_data;
	_Atomic uint64_t stat_digest_errors, stat_cxn_timeouts, stat_format_errors;
	/* ERL 1 (retain.h, snack.c): SNACKs received, PDUs and wire bytes sent
	 * again (SNACK, retried command, recovery R2T), copies evicted at the
	 * cap */
	_Atomic uint64_t stat_snacks, stat_retx_pdus, stat_retx_bytes, stat_retain_evicted;
	_Atomic uint64_t stat_data_acks;    /* DataACKs accepted (dataack.c) */
	_Atomic uint64_t stat_retried_cmds; /* commands received again (6.2.1) */
	/* ERL 2 (erl2.c): connections failed or removed for recovery whose
	 * tasks wait for TASK REASSIGN (struct iscsi_conn.recov_node), the
	 * timer that ends them after Time2Wait + Time2Retain; counted:
	 * connections recovered, tasks reassigned, tasks ended unclaimed */
	struct list_node recov;
	unsigned nrecov;
	struct reactor_timer recov_timer;
	_Atomic uint64_t stat_conn_recoveries, stat_tasks_reassigned, stat_tasks_expired;
};

/* Add v to a counter of the session. Only the session's reactor writes
 * them (s->r: its connections live there, and the core completes each
 * command on the command's reactor), so a relaxed load and store do: no
 * lock, no locked instruction on the data path. The control plane reads
 * them on reactor 0 under iscsi_global.lock (which keeps s alive), each
 * value whole. */
static inline void iscsi_session_count(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* Drive the session state machine. */
void iscsi_session_event(struct iscsi_session *s, enum iscsi_session_event ev);

/* A new session for the leading login on c (not registered yet). */
struct iscsi_session *iscsi_session_new(struct iscsi_conn *c);
/* Register s (TSIH allocation, max_sessions for normal sessions; discovery
 * sessions are capped by admission.c): 0, -EBUSY (max_sessions),
 * -EDQUOT (the target's max_sessions) or -ENOSPC (no free TSIH). */
int iscsi_session_register(struct iscsi_session *s);
/* Create the I_T nexus (normal sessions): 0 or -ENOMEM. Takes map's
 * reference over. */
int iscsi_session_nexus(struct iscsi_session *s, struct scsi_lun_map *map);
void iscsi_session_add_conn(struct iscsi_session *s, struct iscsi_conn *c);
/* The connection leaves (closed); clean: logout with no task left. */
void iscsi_session_remove_conn(struct iscsi_session *s, struct iscsi_conn *c, bool clean);
/* The leading login failed after iscsi_session_new(): free s. */
void iscsi_session_abandon(struct iscsi_session *s);
/* ERL 2: the last connection and the last recovery shell are gone: the
 * session fails now (erl2.c) */
void iscsi_session_recovery_over(struct iscsi_session *s);
/* A task of the session was released. */
void iscsi_session_task_released(struct iscsi_session *s);

/* For the leading login of c with this ISID/InitiatorName/target: find a
 * session to reinstate (RFC 7143 6.3.5). Returns 1 when one exists and its
 * connections are being dropped: c is resumed (iscsi_login_resume) once it is
 * gone; 0 when there is none; -EBUSY when it is itself still logging in. */
int iscsi_session_reinstate(struct iscsi_conn *c, const uint8_t *isid, const char *iname,
			    struct iscsi_target *t);
/* TSIH != 0: the session a connection wants to join, or NULL. */
struct iscsi_session *iscsi_session_find_tsih_locked(uint16_t tsih);
/* Drop every connection of every session of t (TARGET COLD RESET, target
 * removal); except is left alone (its own reset response goes first). */
void iscsi_sessions_drop_target(struct iscsi_target *t, struct iscsi_conn *except);

#endif
