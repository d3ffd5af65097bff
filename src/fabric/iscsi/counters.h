/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters.h: where the fabric counts what the iSCSI-MIB (RFC 7147) asks of
 * a target besides the data path's own counters: logins by outcome and
 * logouts per target node (iscsiTgtLoginStatsTable, iscsiTgtLogoutStats-
 * Table), failed sessions by kind for the instance (iscsiInstSsnErrorStats-
 * Table), and the per-session error counters (iscsiSessionCxnErrorStats-
 * Table). Logins, logouts and failures are rare events: atomic adds and a
 * leaf mutex for the "last failure" records. The per-PDU counters of a
 * session and a connection are single-writer words of their reactor
 * (iscsi_session_count()), counted in conn.c; a command's target port
 * counters are the core's (scsi_tport_stats()). */
#ifndef UT_ISCSI_COUNTERS_H
#define UT_ISCSI_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/login.h"

struct iscsi_conn;
struct iscsi_session;

/* A target node's (or, for logins that reached no target, the instance's)
 * login and logout counters. */
struct iscsi_login_counters {
	_Atomic uint64_t outcome[ISCSI_LOGIN_OUTCOMES];
	_Atomic uint64_t logout_normal, logout_other;
	struct iscsi_failure_info last; /* under the counters' lock */
};

/* iscsi_init(): the instance's start time. */
void iscsi_counters_start(void);
/* A login of c ended with status st (ISCSI_LS_SUCCESS: full feature
 * phase); counted on c's target when TargetName resolved to one. */
void iscsi_count_login(struct iscsi_conn *c, enum iscsi_login_status st);
/* A Logout Request with this reason code (RFC 7143 11.14.1) arrived on c. */
void iscsi_count_logout(struct iscsi_conn *c, uint8_t reason);
/* A PDU of c had a digest error, a protocol (format) error, or c timed
 * out: counted on its session. Should c end before it receives another
 * PDU, its end is blamed on this kind (the errors that drop a connection
 * drop it at once). */
void iscsi_count_conn_error(struct iscsi_conn *c, enum iscsi_fail_kind kind);
/* The last connection c of logged-in session s failed. */
void iscsi_count_session_failed(struct iscsi_session *s, const struct iscsi_conn *c);
/* Snapshot of a counters block into its report form (the lock taken). */
void iscsi_login_counters_read(struct iscsi_login_counters *lc, struct iscsi_login_stats *out);

#endif
