/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi.h: the iSCSI fabric's interface for the config layer and the daemon.
 * Everything here runs on the main thread (reactor 0) unless noted. */
#ifndef UT_FABRIC_ISCSI_H
#define UT_FABRIC_ISCSI_H

#include <stdbool.h>
#include <stdint.h>

struct scsi_target;
struct iscsi_target;
struct iscsi_tpg;

/* RFC 7143 13.2: the most MaxConnections the target offers (config range
 * 1..16; a session's connections all live on its reactor). */
#define ISCSI_MAX_CONNECTIONS 16u

/* Global settings (config "iscsi" section); iscsi_settings_default() fills
 * the defaults. Negotiation values are what the target offers/accepts. */
struct iscsi_settings {
	uint32_t max_recv_data_segment_length; /* ours, declared to the initiator */
	uint32_t max_burst_length;
	uint32_t first_burst_length;
	bool initial_r2t;
	bool immediate_data;
	uint16_t max_outstanding_r2t;
	uint16_t max_connections; /* per session */
	bool header_digest;	  /* offer/accept CRC32C */
	bool data_digest;
	uint32_t default_time2wait;
	uint32_t default_time2retain;
	uint32_t nop_in_interval_s; /* 0 = no keepalive */
	uint32_t nop_in_timeout_s;
	uint32_t login_timeout_s;
	uint32_t max_sessions; /* normal sessions of all targets; 0 = unlimited */
	/* Connections not yet in full feature phase, and discovery sessions,
	 * over all and per source address (admission.h: at a cap the
	 * longest-silent one is evicted); 0 = no cap. */
	uint32_t max_logins_in_progress;
	uint32_t max_logins_per_address;
	uint32_t max_discovery_sessions;
	uint32_t max_discovery_sessions_per_address;
	uint32_t queue_depth; /* commands per session (CmdSN window) */
	/* Cap on the data buffers of all commands (MiB, 0 = none; bufpool.h):
	 * at the cap a command waits for memory with reading stopped, and
	 * MaxCmdSN stops advancing from 7/8 of it (mempress.c). */
	uint32_t max_buffer_memory_mib;
	/* Shares of it (MiB, 0 = none; mempress.c): the data buffers the
	 * commands of one session / one connection may pin (write data being
	 * collected, read data waiting to be sent). Beyond, a new command ends
	 * with TASK SET FULL; MaxCmdSN stops advancing from 7/8. */
	uint32_t max_session_data_mib;
	uint32_t max_connection_data_mib;
	/* KiB of buffers each session may always have, outside the global cap
	 * (0 = none): its first commands never wait for memory that other
	 * initiators pin. Worst case in all: max_sessions times it. */
	uint32_t session_reserve_kib;
	/* Bytes queued for sending (MiB): beyond, the connection stops
	 * reading (TCP pushes back) and MaxCmdSN stops advancing, until half
	 * of it is sent. */
	uint32_t max_session_send_queue_mib;
	uint32_t max_connection_send_queue_mib;
	/* Seconds a command may wait for Data-Out (after its R2T, or for its
	 * unsolicited data) before it ends with INITIATOR RESPONSE TIMEOUT and
	 * its buffer is freed; 0 = no limit. */
	uint32_t data_out_timeout_s;
	/* ErrorRecoveryLevel offered (13.20): 0, 1 (digest recovery, SNACK:
	 * erl.c, snack.c, retain.c) or 2 (connection recovery, TASK REASSIGN:
	 * erl2.c) */
	uint32_t error_recovery_level;
	/* Microseconds a reactor polls for the next event, after one that
	 * did work, before it sleeps (reactor_set_busy_poll_ns; 0 = off):
	 * a busy connection is served without wake-ups. All reactors, the
	 * iSCSI connections' included. */
	uint32_t busy_poll_us;
	/* Full feature phase connections read their socket with a receive on
	 * their reactor's io_uring instead of readv on epoll readiness
	 * (conn_uring.c); taken by a connection at its first read after the
	 * login, so a change applies to new sessions. */
	bool socket_uring;
	/* MC/S: a connection that joins a session on another reactor keeps
	 * its socket's reads and writes on the reactor that accepted it
	 * (conn_split.c); the session's work stays on the session's. Taken
	 * by a connection when it joins. */
	bool spread_connections;
};
void iscsi_settings_default(struct iscsi_settings *s);

/* After reactor_pool_start(). */
int iscsi_init(const struct iscsi_settings *s);
/* Logs out/drops every session, closes listeners. */
void iscsi_shutdown(void);
/* Connections not yet freed: after iscsi_shutdown(), the dropped ones whose
 * commands the core has not finished aborting (their completions run on
 * the reactors, which must keep running until this is 0). Any thread. */
unsigned iscsi_conns_alive(void);

/* An iSCSI target node over a SCSI target device (its name is the IQN). */
struct iscsi_target *iscsi_target_add(struct scsi_target *st, const char *alias);
void iscsi_target_del(struct iscsi_target *t);

/* A target portal group: tag (TPGT) 1..65535; it is one SCSI target port with
 * the given relative target port identifier in ALUA port group port_group
 * (created here, named "<iqn>,t,0x<tag hex4>"). */
struct iscsi_tpg *iscsi_tpg_add(struct iscsi_target *t, uint16_t tag, uint16_t rel_port_id,
				uint16_t port_group);
/* Listen on addr ("127.0.0.1:3260", "[::1]:3260", "[::]:3260", "0.0.0.0:3260")
 * for this portal group; several portal groups may share an address. 0 or
 * -errno (the error is also logged with the address). */
int iscsi_tpg_portal_add(struct iscsi_tpg *tpg, const char *addr);

/* ---- live changes (admin.c, portal.c; the control plane, reactor 0) ---- */
/* Stop listening on addr for this portal group (the socket closes when no
 * group uses it any more); established sessions stay. 0, -ENOENT, -EINVAL. */
int iscsi_tpg_portal_del(struct iscsi_tpg *tpg, const char *addr);
/* Remove a portal group: its portals, then its sessions (dropped; waits up
 * to 3 s for them to close). Its SCSI target port is retired. */
void iscsi_tpg_del(struct iscsi_tpg *tpg);
/* Move the portal group's SCSI target port to ALUA target port group
 * port_group (0: a group of its own); its sessions stay. 0 or -ENOMEM. */
int iscsi_tpg_set_port_group(struct iscsi_tpg *tpg, uint16_t port_group);
/* TargetAlias for logins from now on ("" or NULL: none). */
void iscsi_target_set_alias(struct iscsi_target *t, const char *alias);
/* Login redirection (redirect.c; RFC 7143 11.13.5): a login that resolves
 * the target through a portal group with a redirection, else to a target
 * with one, is answered 01/01 (temporary) or 01/02 (permanent) with
 * TargetAddress=address; BALANCE (portal groups only) redirects a new
 * session to the group's least-loaded portal, temporarily. */
#define ISCSI_REDIRECT_ADDR_MAX 264 /* "domainname[:port][,tpgt]" */
enum iscsi_redirect_mode {
	ISCSI_REDIRECT_NONE,
	ISCSI_REDIRECT_TEMPORARY,
	ISCSI_REDIRECT_PERMANENT,
	ISCSI_REDIRECT_BALANCE,
};
struct iscsi_redirect {
	enum iscsi_redirect_mode mode;
	char address[ISCSI_REDIRECT_ADDR_MAX]; /* TEMPORARY, PERMANENT */
};
/* SCSI asynchronous events (async.c; RFC 7143 11.9 AsyncEvent 0): the
 * unit attentions of the target's normal sessions sent as they arise, for
 * sessions that log in from now on. */
void iscsi_target_set_async_events(struct iscsi_target *t, bool on);
/* From the next login on (NULL: none). */
void iscsi_target_set_redirect(struct iscsi_target *t, const struct iscsi_redirect *r);
void iscsi_tpg_set_redirect(struct iscsi_tpg *tpg, const struct iscsi_redirect *r);
/* Normal sessions' connections per portal of tpg, for the control API and
 * the balance: fills up to max (address, connections) pairs, returns how
 * many portals the group has. */
struct iscsi_portal_load {
	char addr[80];
	unsigned conns;
};
size_t iscsi_tpg_portal_load(struct iscsi_tpg *tpg, struct iscsi_portal_load *out, size_t max);
/* Drop the sessions of one initiator (iSCSI name) on t; the number of
 * connections dropped. */
unsigned iscsi_target_drop_initiator(struct iscsi_target *t, const char *initiator);

/* A snapshot of the sessions (normal and discovery) for the control API. */
#define ISCSI_INFO_CONNS_MAX ISCSI_MAX_CONNECTIONS
struct iscsi_conn_info {
	uint16_t cid;
	char peer[80];
	char local[80];
	const char *state; /* RFC 7143 8.1.3 state, e.g. "logged_in" */
	/* what the connection negotiated (RFC 7143 13: connection-only keys;
	 * the login phase's values until it reaches full feature phase) */
	bool header_digest;    /* HeaderDigest=CRC32C (else None) */
	bool data_digest;      /* DataDigest=CRC32C */
	uint32_t max_recv_dsl; /* MaxRecvDataSegmentLength the target declared */
	uint32_t max_send_dsl; /* ... the initiator declared: what the target sends */
	/* since the connection was accepted: PDUs and bytes on the wire
	 * (headers, data, padding, digests) in each direction */
	uint64_t rx_pdus, tx_pdus, rx_bytes, tx_bytes;
	/* the reactor (thread index) that runs it, its session's, and the
	 * one that reads and writes its socket: another with MC/S spread
	 * (iscsi_settings.spread_connections) */
	unsigned reactor, socket_reactor;
};
struct iscsi_session_info {
	uint16_t tsih;
	bool discovery;
	bool logged_in; /* full feature phase (else still logging in) */
	/* RFC 7143 8.3.2 state: "active" (leading login), "logged_in",
	 * "failed" (ERL 2: every connection failed, tasks wait for
	 * reassignment), "in_continue" */
	const char *state;
	uint16_t tpgt;
	uint8_t isid[6];
	char target[224];
	char initiator[224];
	char initiator_alias[256];
	int64_t login_time; /* when the leading login completed: seconds since the Epoch, UTC */
	/* negotiated session-wide values (RFC 7143 13) */
	uint32_t max_burst_length;
	uint32_t first_burst_length;
	bool initial_r2t;
	bool immediate_data;
	uint8_t error_recovery_level;
	uint16_t max_connections;
	/* since the login: SCSI commands completed (any status, aborted ones
	 * too), Data-In bytes sent, Data-Out bytes of the commands that
	 * completed with GOOD status */
	uint64_t commands;
	uint64_t read_bytes;
	uint64_t write_bytes;
	/* RFC 7147 iscsiSessionStatsTable and iscsiSessionCxnErrorStatsTable,
	 * since the login: SCSI Command PDUs received, PDUs that carried a
	 * command's status sent (SCSI Response, Data-In with S), data segment
	 * bytes of every PDU sent and received, PDUs with a digest error,
	 * connections ended by a timeout, PDUs with a protocol (format) error */
	uint64_t command_pdus, response_pdus;
	uint64_t tx_data_bytes, rx_data_bytes;
	uint64_t digest_errors, connection_timeouts, format_errors;
	/* ErrorRecoveryLevel >= 1 (retain.h, snack.c): SNACKs received, PDUs
	 * and wire bytes sent again, commands received again (retry),
	 * retained copies evicted at the cap */
	uint64_t snacks, retransmitted_pdus, retransmitted_bytes, retried_commands, retain_evicted;
	uint64_t data_acks;
	/* ErrorRecoveryLevel 2 (erl2.c): connections failed or removed for
	 * recovery with their tasks kept, tasks reassigned (TASK REASSIGN),
	 * tasks ended for want of one within Time2Wait + Time2Retain */
	uint64_t connection_recoveries, tasks_reassigned, tasks_expired;
	struct iscsi_conn_info conns[ISCSI_INFO_CONNS_MAX];
	size_t nconns;
};
/* malloc'ed array (free it); 0 or -ENOMEM. */
int iscsi_session_list(struct iscsi_session_info **out, size_t *n);
/* Drop session tsih (cid < 0) or one of its connections. 0 or -ENOENT. */
int iscsi_session_drop(uint16_t tsih, int cid);
/* Ask the initiator to log out session tsih (cid < 0: every connection) or
 * one connection (RFC 7143 11.9.1, AsyncEvent 1) within `seconds`; a
 * connection still there one second after is dropped. Returns at once.
 * 0 or -ENOENT. */
int iscsi_session_logout(uint16_t tsih, int cid, uint16_t seconds);
/* Announce, then drop (RFC 7143 11.9.1): AsyncEvent 3 on every connection
 * of session tsih (cid < 0) or AsyncEvent 2 on one, with Time2Wait (the
 * seconds before the initiator may reconnect) and Time2Retain 0; each
 * connection closes once its message is sent. Returns at once. 0 or
 * -ENOENT. */
int iscsi_session_drop_announced(uint16_t tsih, int cid, uint16_t time2wait);
/* Ask for parameter negotiation (AsyncEvent 4) on every connection of the
 * session (cid < 0) or one: the initiator must send a Text Request. Returns
 * at once. 0 or -ENOENT. */
int iscsi_session_renegotiate(uint16_t tsih, int cid);

/* ---- statistics (counters.c; RFC 7147 iSCSI-MIB, target side) ---- */
/* How a login ended (iscsiTgtLoginStatsTable): accepted, redirected (01/xx),
 * or refused for authentication (02/01), authorization (02/02), parameter
 * negotiation (02/00, 02/05, 02/07-09, 02/0b) or another reason. */
enum iscsi_login_outcome {
	ISCSI_LOGIN_ACCEPTED,
	ISCSI_LOGIN_REDIRECTED,
	ISCSI_LOGIN_AUTHN_FAILED,
	ISCSI_LOGIN_AUTHZ_FAILED,
	ISCSI_LOGIN_NEG_FAILED,
	ISCSI_LOGIN_OTHER_FAILED,
	ISCSI_LOGIN_OUTCOMES,
};
/* Why a session failed (iscsiInstSsnErrorStatsTable): the error that ended
 * its last connection; OTHER: the transport went, or the session was
 * dropped by the administrator or a reset. */
enum iscsi_fail_kind {
	ISCSI_FAIL_NONE,
	ISCSI_FAIL_DIGEST,
	ISCSI_FAIL_TIMEOUT,
	ISCSI_FAIL_FORMAT,
	ISCSI_FAIL_OTHER,
	ISCSI_FAIL_KINDS,
};
struct iscsi_failure_info {
	bool set;
	uint8_t kind;	     /* login: enum iscsi_login_outcome; session: enum iscsi_fail_kind */
	int64_t time;	     /* seconds since the Epoch, UTC */
	char initiator[224]; /* as the initiator sent it, escaped for logs; "" */
	char address[64];    /* its IP address; "" */
};
struct iscsi_login_stats {
	uint64_t outcome[ISCSI_LOGIN_OUTCOMES];
	uint64_t logout_normal;		/* Logout Requests with reason 0 (close the session) */
	uint64_t logout_other;		/* with another reason */
	struct iscsi_failure_info last; /* the last refused or redirected login */
};
struct iscsi_tpg_stats {
	uint16_t tag, rel_port_id;
	uint64_t commands, read_bytes, write_bytes; /* its SCSI target port's */
};
struct iscsi_target_stats {
	char name[224];
	char alias[256];
	unsigned sessions; /* normal sessions now */
	struct iscsi_login_stats login;
	struct iscsi_tpg_stats *tpgs;
	size_t ntpgs;
};
struct iscsi_instance_stats {
	int64_t start_time; /* iscsi_init(): seconds since the Epoch, UTC */
	unsigned sessions, discovery_sessions, connections; /* now */
	uint64_t session_failures;			    /* sessions that failed (any kind) */
	uint64_t failures[ISCSI_FAIL_KINDS];		    /* of them, by kind */
	struct iscsi_failure_info last;			    /* the last failed session */
	struct iscsi_login_stats login;			    /* logins that reached no target */
};
void iscsi_instance_stats(struct iscsi_instance_stats *out);
/* Every target's (name NULL) or one target's statistics: a malloc'ed
 * array freed with iscsi_target_stats_free(). 0, -ENOENT (no such target)
 * or -ENOMEM. */
int iscsi_target_stats_list(const char *name, struct iscsi_target_stats **out, size_t *n);
void iscsi_target_stats_free(struct iscsi_target_stats *v, size_t n);

/* ---- access control and authentication (access.c, chap.c, limits.c) ----
 * Who may log in to a target (ACL rules by initiator name and/or network
 * address on top of the core's name ACLs and demo mode), how initiators
 * authenticate (CHAP, RFC 7143 12.1.3), what discovery sessions require and
 * list, and per-target limits. Every input is copied; a replaced policy
 * stays valid for the logins that started with it. */

/* CHAP algorithms: CHAP_A values (RFC 7143 12.1.3; IANA "PPP Authentication
 * Algorithms": 5 MD5, 6 SHA-1, 7 SHA-256, 8 SHA3-256). */
enum iscsi_chap_alg {
	ISCSI_CHAP_MD5 = 5,
	ISCSI_CHAP_SHA1 = 6,
	ISCSI_CHAP_SHA256 = 7,
	ISCSI_CHAP_SHA3_256 = 8,
};
#define ISCSI_CHAP_ALGS	      4u   /* algorithms known */
#define ISCSI_CHAP_USER_MAX   255u /* CHAP_N is a simple value (RFC 7143 6.1) */
#define ISCSI_CHAP_SECRET_MAX 255u

/* One CHAP identity: a name and its secret (secret_len bytes, 1..255). */
struct iscsi_chap_cred {
	const char *user;
	const uint8_t *secret;
	size_t secret_len;
};

/* What a login must pass. nchap == 0: no authentication (AuthMethod=None);
 * else CHAP with any one of chap[] (AuthMethod=None refused). mutual: the
 * target's own identity for initiators that ask to authenticate the target
 * (NULL: such logins fail); its secret must differ from every chap[] secret
 * (RFC 7143 12.1.3). algs: the CHAP_A values allowed (nalgs 0: all four);
 * the initiator's order of preference decides among them (RFC 7143 6.2.2). */
struct iscsi_auth {
	const struct iscsi_chap_cred *chap;
	size_t nchap;
	const struct iscsi_chap_cred *mutual;
	const uint8_t *algs;
	size_t nalgs;
};

struct iscsi_access;
struct scsi_lun_map;

/* What an admitted initiator may do beyond commands: the permissions of the
 * ACL rule (or demo mode) that admitted its session, bits of
 * iscsi_access_add_rule()'s perms. */
enum iscsi_perm {
	/* TARGET WARM RESET and TARGET COLD RESET (RFC 7143 11.5.1: "subject
	 * to SCSI access controls"); without it they are answered "Function
	 * authorization failed" (11.6.1) and change nothing */
	ISCSI_PERM_TARGET_RESET = 1u << 0,
};

/* A target's access policy, built then handed to the target. */
struct iscsi_access *iscsi_access_new(void);
void iscsi_access_free(struct iscsi_access *a); /* one never handed over */
/* Authentication of every initiator that has none of its own. 0, -EINVAL
 * (bad credentials or algorithm, a mutual secret equal to an initiator
 * secret) or -ENOMEM. */
int iscsi_access_set_auth(struct iscsi_access *a, const struct iscsi_auth *auth);
/* What an admitted initiator must use: the requirements of the target
 * (iscsi_access_set_required()) and of the ACL rule that admitted it, bits
 * of struct iscsi_rule's required. A login that does not negotiate them
 * fails (02/00, the key answered Reject). */
enum iscsi_require {
	ISCSI_REQ_HEADER_DIGEST = 1u << 0, /* HeaderDigest=CRC32C (RFC 7143 13.1) */
	ISCSI_REQ_DATA_DIGEST = 1u << 1,   /* DataDigest=CRC32C */
};

/* An ACL rule: initiator (iSCSI name; NULL: any) connecting from network
 * (NULL: anywhere; "192.0.2.7", "10.0.0.0/8", "fd00::/8", "::1"). map: the
 * LUN map it receives (referenced; NULL only with an initiator: the core's
 * ACL map for that name). auth: its own authentication (NULL: the
 * policy's). perms: the enum iscsi_perm bits of the sessions it admits;
 * required: the enum iscsi_require bits they must use besides the
 * target's. */
struct iscsi_rule {
	const char *initiator;
	const char *network;
	struct scsi_lun_map *map;
	const struct iscsi_auth *auth;
	unsigned perms;
	unsigned required;
};
/* Add a rule. Resolution at login: the rules naming the initiator (the
 * first whose network holds the peer address; an initiator named only by
 * rules of other networks is refused), else the core's ACL of that name (no
 * perms), else the address rule with the longest matching prefix, else demo
 * mode, else refused (02/02). 0, -EINVAL or -ENOMEM. */
int iscsi_access_add_rule(struct iscsi_access *a, const struct iscsi_rule *r);
/* The enum iscsi_require bits every session of the target must use (default
 * none); a rule's add to them. */
void iscsi_access_set_required(struct iscsi_access *a, unsigned required);
/* The enum iscsi_perm bits of sessions demo mode admits (default none). */
void iscsi_access_set_demo_perms(struct iscsi_access *a, unsigned perms);
/* Replace t's policy (takes a over; NULL: the core's ACLs and demo mode
 * alone, no authentication). */
void iscsi_target_set_access(struct iscsi_target *t, struct iscsi_access *a);

/* SendTargets in discovery sessions (ctld's discovery-filter). Targets are
 * always those the initiator may see; the filter narrows them: */
enum iscsi_discovery_filter {
	ISCSI_DF_NONE,		   /* every target, every portal */
	ISCSI_DF_PORTAL,	   /* targets with a portal group on the portal asked, only
				      those portals, and whose ACLs admit the peer address */
	ISCSI_DF_PORTAL_NAME,	   /* also: the initiator's name may log in (ACL, demo) */
	ISCSI_DF_PORTAL_NAME_AUTH, /* also: its discovery CHAP identity would pass */
};
/* Authentication of discovery sessions (NULL or nchap 0: none) and the
 * filter. 0, -EINVAL or -ENOMEM. */
int iscsi_discovery_set(const struct iscsi_auth *auth, enum iscsi_discovery_filter filter);

/* Per-target limits; 0 (and nop_in_interval_set false) = the global
 * setting of struct iscsi_settings. max_sessions: sessions of this target,
 * refused beyond with 03/02 like the global one. */
struct iscsi_target_limits {
	uint32_t max_sessions;
	uint16_t max_connections; /* per session, 1..ISCSI_MAX_CONNECTIONS */
	uint32_t queue_depth;
	uint32_t login_timeout_s;
	bool nop_in_interval_set;
	uint32_t nop_in_interval_s; /* 0: no keepalive */
	uint32_t nop_in_timeout_s;
};
void iscsi_target_set_limits(struct iscsi_target *t, const struct iscsi_target_limits *l);

/* ---- iSNS (isns.c; RFC 4171): registration with an iSNS server ----
 * The client runs on reactor 0: it registers the entity, its portals, every
 * target and its portal groups (isns.h says how), again on every change of
 * targets, portal groups, portals or aliases (debounced) and periodically,
 * answers the server's ESI and SCN messages on its own port, and
 * deregisters the entity at iscsi_isns_shutdown(). With access_control,
 * SendTargets and logins see a target only when the initiator shares a
 * discovery domain with it at the server (iscsi_isns_admits()). */
#define ISCSI_ISNS_HOST_MAX 255u
struct iscsi_isns_config {
	bool enabled;
	char host[ISCSI_ISNS_HOST_MAX + 1]; /* IP address or host name */
	uint16_t port;			    /* 0: 3205 */
	char entity[256];		    /* "": the host name */
	uint16_t esi_port;		    /* our ESI/SCN listener; 0: ephemeral */
	bool access_control;
};
/* Apply a configuration (reactor 0): a changed server, entity or port
 * deregisters from the old server first (at most ~1 s, blocking);
 * enabled false stops. 0, or -EINVAL (no host while enabled). */
int iscsi_isns_configure(const struct iscsi_isns_config *c);
/* Deregister (blocking, at most ~1 s) and stop: the daemon's stop. */
void iscsi_isns_shutdown(void);
/* May initiator see and log in to target? true unless access control is
 * on and they share no discovery domain (as last queried); any thread. */
bool iscsi_isns_admits(const char *target, const char *initiator);
#define ISCSI_ISNS_DDS_MAX 32
struct iscsi_isns_status {
	bool enabled, connected, registered, access_control;
	char server[ISCSI_ISNS_HOST_MAX + 16];
	char entity[256];
	uint16_t esi_port;			  /* bound */
	unsigned targets, portals, portal_groups; /* as last registered */
	int64_t last_registration;		  /* seconds since the Epoch; 0: never */
	char last_error[256];			  /* "" */
	uint64_t registrations, esi_received, scn_received;
	unsigned ndds;
	struct {
		uint32_t id;
		char name[256];
		unsigned members;
	} dds[ISCSI_ISNS_DDS_MAX];
};
void iscsi_isns_status(struct iscsi_isns_status *out);

#endif
