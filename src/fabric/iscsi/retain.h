/* SPDX-License-Identifier: GPL-2.0-or-later */
/* retain.h: what a connection keeps for retransmission at
 * ErrorRecoveryLevel >= 1 (RFC 7143 7.1, 11.16).
 *
 * A copy of every Data-In and of every status-bearing PDU (SCSI Response,
 * Data-In with S, and the other responses that advance StatSN) sent on the
 * connection, in send order, each with the StatSN that acknowledges it: its
 * own for a status PDU, that of its task's status for a Data-In (sent in
 * the same completion, scsi_cmd.c). An ExpStatSN past it frees it (7.1: the
 * initiator acknowledges status, and with it the task's data); a DataACK
 * frees a task's Data-In before that (dataack.c). The copies
 * are a connection's memory the peer decides the life of, so they are
 * capped (ISCSI_RETAIN_MAX_BYTES): at the cap the oldest go first (counted
 * in retain_evicted); a SNACK for one of them is then refused with Reject
 * 03h (SNACK Reject), the initiator's recovery goes up a level (task abort,
 * session recovery). At ERL 0 nothing is kept. */
#ifndef UT_ISCSI_RETAIN_H
#define UT_ISCSI_RETAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/iscsi/proto.h"
#include "lib/list.h"

struct iscsi_conn;
struct iscsi_tx;

/* Bytes of retained copies (data segments and headers) per connection. */
#define ISCSI_RETAIN_MAX_BYTES (32u << 20)

struct iscsi_retained {
	struct list_node node; /* conn->retained, in send order */
	union iscsi_hdr hdr;
	uint32_t statsn; /* an ExpStatSN past it frees the copy */
	bool status;	 /* a status-bearing PDU (its StatSN is statsn) */
	bool data_in;	 /* a Data-In (DataSN in its header) */
	/* a DataACK record (dataack.c), no PDU: the Data-In of the task (ITT,
	 * TTT and LUN in hdr) below acked_below were acknowledged and freed */
	bool ack_mark;
	uint32_t acked_below;
	uint32_t len;
	uint8_t data[]; /* len bytes */
};

/* The session of c runs at ErrorRecoveryLevel >= 1 (normal session, full
 * feature phase). */
bool iscsi_erl1(const struct iscsi_conn *c);
/* Keep a copy of a sealed unit about to be queued (conn.c: iscsi_tx_queue);
 * stat_sn_before: the connection's StatSN before the unit was built. */
void iscsi_retain_tx(struct iscsi_conn *c, const struct iscsi_tx *tx);
/* An ExpStatSN arrived: free what it acknowledges. */
void iscsi_retain_ack(struct iscsi_conn *c, uint32_t exp_statsn);
/* The connection goes: free everything. */
void iscsi_retain_free(struct iscsi_conn *c);
/* Queue a retransmission of r (counted in the session's counters). */
int iscsi_retain_resend(struct iscsi_conn *c, const struct iscsi_retained *r);
/* Queue on c a PDU sent again (header h, data): marked and counted as a
 * retransmission; -1 when c is gone or out of memory. */
int iscsi_retx_queue(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		     uint32_t len);
/* Retransmit the Data-In (DataSN >= from) and the status of task itt:
 * the number of PDUs queued (0: nothing retained for it). */
unsigned iscsi_retain_resend_task(struct iscsi_conn *c, uint32_t itt, uint32_t from);
/* True when a status of itt is retained (a retried command, 6.2.1). */
bool iscsi_retain_has_status(struct iscsi_conn *c, uint32_t itt);
/* Unlink and free one copy. */
void iscsi_retained_drop(struct iscsi_conn *c, struct iscsi_retained *r);

/* dataack.c: the TTT for the A bit of a read of len bytes (ISCSI_RSVD_TAG:
 * no A bit, ERL 0 or a read of one sequence), 11.7.2 */
struct iscsi_task;
uint32_t iscsi_dataack_ttt(struct iscsi_conn *c, const struct iscsi_task *t, uint32_t len);
/* SNACK type 3 R-Data (11.16.3, rdata.c) */
int iscsi_rdata_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
/* ERL 2 TASK REASSIGN of a read already released (rdata.c): does one of
 * its Data-In copies retained on shell o from DataSN from on exceed seg
 * bytes; send them on c cut to c's MaxRecvDataSegmentLength, then the
 * status (the number of PDUs queued, -ENOENT/-ESRCH/-ENOMEM). o's copies
 * are left to the caller. */
bool iscsi_rdata_needs_reseg(struct iscsi_conn *o, uint32_t itt, uint32_t from, uint32_t seg);
int iscsi_rdata_reassign(struct iscsi_conn *c, struct iscsi_conn *o, uint32_t itt, uint32_t from);
/* SNACK type 2 DataACK (11.16) */
int iscsi_dataack_rx(struct iscsi_conn *c, const union iscsi_hdr *h);
/* The DataSN below which itt's Data-In were acknowledged by DataACK (0:
 * none) */
uint32_t iscsi_dataack_acked(struct iscsi_conn *c, uint32_t itt);

#endif
