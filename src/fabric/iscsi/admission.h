/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admission.h: slots for connections that have not proven themselves yet
 * (sshd's MaxStartups idea, applied per source address).
 *
 * Two classes of connections hold a slot:
 *   login      from accept until full feature phase (RFC 7143 6.3: the login
 *              phase, states S3 XPT_UP and S4 IN_LOGIN of 8.1.3);
 *   discovery  the connection of a discovery session (SessionType=Discovery,
 *              RFC 7143 13.21) in full feature phase, until it closes.
 * Each class has a global cap and a cap per source address (settings
 * max_logins_in_progress / max_logins_per_address, max_discovery_sessions /
 * max_discovery_sessions_per_address; 0: no cap).
 *
 * The rule: a newcomer is never refused. When its address already holds its
 * cap, the member of that address that has been silent longest is evicted;
 * when the class holds its global cap, the member of the whole class that has
 * been silent longest is. Silence is the time since the last byte received
 * from the connection (iscsi_conn.last_rx_ns); a member that has sent
 * nothing since it could be read (its reactor watches the socket; for a
 * discovery slot: since it took it) counts as silent since 1 s before that
 * (ADM_SPOKE_CREDIT_NS): a login that is making progress (CHAP round trips)
 * has spoken lately and stays, before any connection that never spoke; an
 * idle one goes, the oldest first, and so does a stalled login once it has
 * been silent a second longer than the idle ones. One its reactor has not
 * taken yet (a burst in one accept batch, a reactor behind) cannot be
 * judged: it counts as silent since half a second before its accept, after
 * the idle ones that could speak and before a login that spoke. Ties go to
 * the member admitted first. Before a member that has not spoken is
 * evicted, its socket is looked at: bytes waiting there that its reactor
 * has not read yet count as speaking now.
 *
 * Accounting happens under iscsi_global.lock at the moment of the decision:
 * the victim leaves its class (counts, list) at once and the newcomer takes
 * its place, so a cap is never exceeded while the victim's drop is in flight
 * to its reactor (iscsi_conn_drop_async). A slot is given back exactly once:
 * by eviction, or by its holder (iscsi_adm_ffp, iscsi_adm_leave); a holder
 * that was evicted gives back nothing. Evicted connections are closed
 * without a login response (they sent nothing, or an incomplete login, or
 * hold a discovery session); evictions are counted and summarized in one
 * log line at most every 10 s (admission.c: ADM_REPORT_NS).
 *
 * Cost: per-address counts live in a hash map (lib/hmap.h) keyed by the
 * address bytes; an eviction scans the members of one class, at most its
 * global cap. */
#ifndef UT_ISCSI_ADMISSION_H
#define UT_ISCSI_ADMISSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/list.h"

struct iscsi_conn;

enum iscsi_adm_class {
	ISCSI_ADM_NONE = 0, /* holds no slot */
	ISCSI_ADM_LOGIN,
	ISCSI_ADM_DISCOVERY,
	ISCSI_ADM_CLASSES,
};

/* The slot a connection holds (embedded in struct iscsi_conn; every field
 * under iscsi_global.lock). */
struct iscsi_adm_slot {
	struct list_node node; /* its class's members, in admission order */
	uint8_t cls;	       /* enum iscsi_adm_class */
	bool evicted;	       /* lost its slot to a newcomer: being dropped */
	uint8_t key_len;       /* 4: IPv4 (and v4-mapped IPv6), 16: IPv6, 0: none */
	uint8_t key[16];       /* the peer address: the per-address key */
	/* since when it can be judged (reactor_now_ns()): a login slot from
	 * when its reactor watches the socket (0 before), a discovery slot
	 * from its admission; written without the lock, hence atomic */
	_Atomic uint64_t since_ns;
};

/* A new connection (an accepted socket; tests: any connection, after its
 * peer_sa is set) takes a login slot, evicting as the rule says. Always
 * admits; when memory for the per-address count is short, c itself is
 * dropped (asynchronously) instead. */
void iscsi_adm_login(struct iscsi_conn *c);
/* c's reactor watches its socket now: its silence counts from here. */
void iscsi_adm_attached(struct iscsi_conn *c);
/* c reaches full feature phase: it gives back its login slot; the
 * connection of a discovery session (c->sess) takes a discovery slot. */
void iscsi_adm_ffp(struct iscsi_conn *c);
/* c closes: it gives back the slot it holds (none once evicted). */
void iscsi_adm_leave(struct iscsi_conn *c);

/* Members of cls now: of the address of peer, or of every address (peer
 * NULL). For tests and the report. */
unsigned iscsi_adm_count(enum iscsi_adm_class cls, const struct sockaddr_storage *peer);
/* Evictions of cls since start. */
uint64_t iscsi_adm_evicted(enum iscsi_adm_class cls);
/* Log the evictions not reported yet (shutdown). */
void iscsi_adm_report(void);

#endif
