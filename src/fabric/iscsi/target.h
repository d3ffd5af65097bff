/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h: iSCSI target nodes, target portal groups, network portals and the
 * fabric-wide registry (RFC 7143 4.4.1 model: a target node has portal
 * groups; a portal group is a set of network portals and one SCSI target
 * port).
 *
 * Threading: targets, portal groups and portal bindings are created and
 * deleted on reactor 0 and read from every reactor during login and
 * discovery under iscsi_global.lock. A login holds a reference on its target
 * (iscsi_target_get/put) from the moment it resolved TargetName. */
#ifndef UT_ISCSI_TARGET_H
#define UT_ISCSI_TARGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/param.h"
#include "lib/list.h"
#include "lib/reactor.h"

struct scsi_target;
struct scsi_tport;
struct iscsi_conn;

struct iscsi_target {
	struct list_node node; /* iscsi_global.targets */
	struct scsi_target *st;
	char name[ISCSI_NAME_MAX + 1];
	char alias[ISCSI_ALIAS_MAX + 1];
	struct list_node tpgs;
	atomic_uint refs;
	bool removed;
	struct iscsi_access *access;	      /* access.c; NULL: core ACLs and demo mode only */
	struct iscsi_target_limits limits;    /* limits.c */
	unsigned nsessions;		      /* registered sessions (under iscsi_global.lock) */
	struct iscsi_login_counters counters; /* counters.c */
	struct iscsi_redirect redirect;	      /* redirect.c, under iscsi_global.lock */
	bool async_events;		      /* async.c: SCSI events as AsyncEvent 0 */
};

struct iscsi_tpg {
	struct list_node node; /* target->tpgs */
	struct iscsi_target *target;
	struct scsi_tport *tport;
	uint16_t tag;
	bool removed;			/* iscsi_tpg_del(): kept for its ending sessions */
	struct list_node binds;		/* struct iscsi_bind.tpg_node */
	struct iscsi_redirect redirect; /* redirect.c, under iscsi_global.lock */
};

/* A listening socket, shared by every portal group bound to its address. A
 * virtual portal has no socket (connections fed through iscsi_conn_feed). */
struct iscsi_portal {
	struct list_node node; /* iscsi_global.portals */
	char addr[80];	       /* as configured: "127.0.0.1:3260", "[::]:3260" */
	struct sockaddr_storage sa;
	socklen_t salen;
	struct reactor_fd rfd;
	int fd;
	bool wildcard; /* 0.0.0.0 / [::]: report the connection's local address */
	bool dual;     /* "[::]:P" listening dual-stack (IPv4 peers too) */
	/* "0.0.0.0:P" while "[::]:P" listens dual-stack: the IPv4 portal has no
	 * socket of its own, its connections arrive through host's (portal.c) */
	struct iscsi_portal *v4_twin; /* on the dual [::] portal */
	struct iscsi_portal *host;    /* on the twin */
	struct list_node binds;	      /* struct iscsi_bind.portal_node */
};

struct iscsi_bind {
	struct list_node portal_node;
	struct list_node tpg_node;
	struct iscsi_portal *portal;
	struct iscsi_tpg *tpg;
};

struct iscsi_global {
	pthread_mutex_t lock;
	bool initialized;
	struct iscsi_settings settings;
	struct list_node targets;
	struct list_node portals;
	struct list_node sessions; /* struct iscsi_session.reg_node */
	struct list_node conns;	   /* every connection, for shutdown and resets */
	unsigned nsessions;	   /* registered, both types */
	unsigned ndiscovery;	   /* of them discovery sessions (not under max_sessions) */
	unsigned nconns;
	pthread_cond_t conns_cv; /* nconns changed */
	/* connections allocated and not yet freed: a connection leaves conns
	 * when it is torn down, and is freed once the core has released its
	 * last task (iscsi_conns_alive()) */
	atomic_uint alive;
};
extern struct iscsi_global iscsi_global;

void iscsi_target_get(struct iscsi_target *t);
void iscsi_target_put(struct iscsi_target *t);
/* Under iscsi_global.lock: the target named name, or NULL. */
struct iscsi_target *iscsi_target_find_locked(const char *name);
/* Under iscsi_global.lock: the portal group of t reachable through portal. */
struct iscsi_tpg *iscsi_tpg_find_locked(struct iscsi_target *t, const struct iscsi_portal *portal);

/* redirect.c, under iscsi_global.lock, once c->target and c->tpg are set
 * (login.c): ISCSI_LS_SUCCESS (stay), or ISCSI_LS_TARGET_MOVED_TEMP/PERM
 * with the TargetAddress in addr. */
enum iscsi_login_status iscsi_redirect_locked(const struct iscsi_conn *c, char *addr, size_t size);

/* limits.c: the effective limits of t (NULL: the global settings), every
 * field filled; of the target of c's session (or login). */
void iscsi_limits_effective(const struct iscsi_target *t, struct iscsi_target_limits *out);
void iscsi_conn_limits(const struct iscsi_conn *c, struct iscsi_target_limits *out);

/* portal.c */
/* A portal without a socket bound to tpg (fuzzing, tests); freed with
 * iscsi_portal_free_virtual(). */
struct iscsi_portal *iscsi_portal_new_virtual(struct iscsi_tpg *tpg);
void iscsi_portal_free_virtual(struct iscsi_portal *p);
/* Stop accepting on every portal (sockets closed, objects kept). */
void iscsi_portals_close_all(void);
/* Remove tpg from its portals; a portal left with no group is closed. */
void iscsi_tpg_unbind_all(struct iscsi_tpg *tpg);
/* "host:port" / "[v6]:port" into a socket address. 0 or -EINVAL. */
int iscsi_addr_parse(const char *addr, struct sockaddr_storage *sa, socklen_t *len);
/* Text form of an address for logs and TargetAddress ("1.2.3.4:3260",
 * "[::1]:3260"). */
void iscsi_addr_format(const struct sockaddr *sa, char *buf, size_t size);

#endif
