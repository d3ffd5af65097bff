/* SPDX-License-Identifier: GPL-2.0-or-later */
/* async.c: SCSI asynchronous events over iSCSI (RFC 7143 11.9, AsyncEvent
 * 0 "a SCSI asynchronous event is reported in the sense data").
 *
 * For a target with "async_events" on (the config's choice for its
 * initiators: SPC-4 made the control mode page's enable bits obsolete, so
 * no initiator asks for it on the wire), each normal session's connection
 * asks the core every AEN_PERIOD for the next unit attention pending on
 * its I_T nexus (scsi_nexus_take_event(): capacity or inquiry data
 * changed, REPORTED LUNS DATA HAS CHANGED, reservations preempted, ALUA
 * state changed, ...) and sends it at once as an Asynchronous Message:
 * LUN field = the LU's LUN, data segment = SenseLength (2 bytes) and the
 * sense data, as in a SCSI Response (11.4.7). The condition is then
 * reported: the next command to that LU does not see it again (SAM-5
 * 5.14). At most AEN_BURST events per period and connection. */
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

#define AEN_PERIOD_NS (100ull * 1000 * 1000)
#define AEN_BURST     8

void iscsi_target_set_async_events(struct iscsi_target *t, bool on)
{
	pthread_mutex_lock(&iscsi_global.lock);
	t->async_events = on;
	pthread_mutex_unlock(&iscsi_global.lock);
}

/* One AsyncEvent 0 with the sense data. */
static int aen_send(struct iscsi_conn *c, uint64_t lun, const uint8_t *sense, size_t len)
{
	uint8_t data[2 + SCSI_SENSE_MAX];
	struct iscsi_bhs_async *h;
	struct iscsi_tx *tx = iscsi_tx_get(c);

	if (!tx)
		return -1;
	h = &tx->hdr.async;
	h->opcode = ISCSI_OP_ASYNC_MSG;
	h->flags = ISCSI_FLAG_FINAL;
	put_be64(h->lun, lun);
	put_be32(h->itt, ISCSI_RSVD_TAG);
	/* 11.9: StatSN advances (a status-bearing PDU) */
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, true);
	h->event = ISCSI_ASYNC_SCSI_EVENT;
	put_be16(data, (uint16_t)len);
	memcpy(data + 2, sense, len);
	if (iscsi_tx_set_data(tx, data, (uint32_t)(2 + len))) {
		iscsi_tx_put(c, tx);
		return -1;
	}
	iscsi_tx_queue(c, tx);
	return 0;
}

static void aen_log(const struct iscsi_conn *c, uint64_t lun, const uint8_t *s, size_t len)
{
	/* SPC-4 4.5.2 descriptor (72h/73h) or 4.5.3 fixed format (70h/71h) */
	bool desc = (s[0] & 0x7f) >= 0x72;
	unsigned key = desc ? s[1] & 0xf : len > 2 ? s[2] & 0xf : 0;
	unsigned asc = desc ? s[2] : len > 13 ? s[12] : 0;
	unsigned ascq = desc ? s[3] : len > 13 ? s[13] : 0;

	log_info("iscsi: %s: AsyncEvent 0 (SCSI event) LUN field %016llx sense %02x/%02x/%02x",
		 c->peer, (unsigned long long)lun, key, asc, ascq);
}

static void aen_tick(struct reactor_timer *tm)
{
	struct iscsi_conn *c = container_of(tm, struct iscsi_conn, aen_timer);
	uint8_t sense[SCSI_SENSE_MAX];
	uint64_t lun;

	if (iscsi_conn_dead(c) || !c->sess || !c->sess->nexus)
		return;
	if (c->state == ISCSI_CONN_S5_LOGGED_IN) {
		for (int k = 0; k < AEN_BURST; k++) {
			size_t len =
			    scsi_nexus_take_event(c->sess->nexus, &lun, sense, sizeof(sense));

			if (!len)
				break;
			if (aen_send(c, lun, sense, len))
				break; /* out of memory: the condition was taken; logged */
			aen_log(c, lun, sense, len);
		}
	}
	reactor_timer_arm(c->r, &c->aen_timer, AEN_PERIOD_NS);
}

/* 11.9.1 AsyncEvent 2 (this connection, Parameter1 its CID) or 3 (every
 * connection of the session): Parameter2 Time2Wait, the seconds before the
 * initiator may reconnect; Parameter3 Time2Retain 0, since at ERL 0 the
 * session's state goes with its connections. The connection stops reading
 * and closes once the message is sent. Outside full feature phase (or
 * without memory) a plain drop. On c's reactor. */
void iscsi_async_drop(struct iscsi_conn *c, uint8_t event, uint16_t time2wait)
{
	struct iscsi_bhs_async *h;
	struct iscsi_tx *tx;

	if (iscsi_conn_dead(c))
		return;
	tx = c->state == ISCSI_CONN_S5_LOGGED_IN ? iscsi_tx_get(c) : NULL;
	if (!tx) {
		iscsi_conn_drop(c, "dropped by the administrator");
		return;
	}
	h = &tx->hdr.async;
	h->opcode = ISCSI_OP_ASYNC_MSG;
	h->flags = ISCSI_FLAG_FINAL;
	put_be32(h->itt, ISCSI_RSVD_TAG);
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, true);
	h->event = event;
	if (event == ISCSI_ASYNC_DROP_CONNECTION)
		put_be16(h->param1, c->cid);
	put_be16(h->param2, time2wait);
	tx->flags |= ISCSI_TX_F_CLOSE;
	c->close_ev = ISCSI_CEV_DROP;
	iscsi_conn_pause(c);
	iscsi_tx_queue(c, tx);
	log_notice("iscsi: %s: AsyncEvent %u (the target drops %s; Time2Wait %u s)", c->peer, event,
		   event == ISCSI_ASYNC_DROP_CONNECTION ? "this connection" : "the session",
		   time2wait);
}

/* 11.9.1 AsyncEvent 4: the initiator MUST start a Text Request (which may
 * be empty) on this connection as early as possible, or log out; text.c
 * logs the answer. On c's reactor. 0, or -1 when it cannot be sent. */
int iscsi_async_renegotiate(struct iscsi_conn *c)
{
	struct iscsi_bhs_async *h;
	struct iscsi_tx *tx;

	if (iscsi_conn_dead(c) || c->state != ISCSI_CONN_S5_LOGGED_IN || !(tx = iscsi_tx_get(c)))
		return -1;
	h = &tx->hdr.async;
	h->opcode = ISCSI_OP_ASYNC_MSG;
	h->flags = ISCSI_FLAG_FINAL;
	put_be32(h->itt, ISCSI_RSVD_TAG);
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, true);
	h->event = ISCSI_ASYNC_RENEGOTIATE;
	c->reneg_requested = true;
	iscsi_tx_queue(c, tx);
	log_info("iscsi: %s: AsyncEvent 4 (parameter negotiation requested)", c->peer);
	return 0;
}

/* 11.9.1 AsyncEvent 5: "all active tasks for a LU with a matching LUN field
 * in the Async Message PDU are being terminated" -- sent only on a session
 * that negotiated TaskReporting=FastAbort (task_reporting.c). The
 * initiator stops that LU's Data-Out on this connection and acknowledges
 * the StatSN with a NOP-Out. On c's reactor. */
int iscsi_async_task_termination(struct iscsi_conn *c, const uint8_t *lun)
{
	struct iscsi_bhs_async *h;
	struct iscsi_tx *tx = iscsi_tx_get(c);

	if (!tx) {
		log_warn("iscsi: %s: out of memory for AsyncEvent 5", c->peer);
		return -1;
	}
	h = &tx->hdr.async;
	h->opcode = ISCSI_OP_ASYNC_MSG;
	h->flags = ISCSI_FLAG_FINAL;
	memcpy(h->lun, lun, sizeof(h->lun));
	put_be32(h->itt, ISCSI_RSVD_TAG);
	iscsi_conn_fill_sn(c, h->statsn, h->exp_cmdsn, h->max_cmdsn, true);
	h->event = ISCSI_ASYNC_TASK_TERMINATION;
	iscsi_tx_queue(c, tx);
	log_info(
	    "iscsi: %s: AsyncEvent 5 (tasks terminated) LUN field %02x%02x%02x%02x%02x%02x%02x%02x",
	    c->peer, lun[0], lun[1], lun[2], lun[3], lun[4], lun[5], lun[6], lun[7]);
	return 0;
}

void iscsi_aen_start(struct iscsi_conn *c)
{
	bool on;

	pthread_mutex_lock(&iscsi_global.lock);
	on = c->target && c->target->async_events && c->sess &&
	     c->sess->type == ISCSI_SESSION_NORMAL;
	pthread_mutex_unlock(&iscsi_global.lock);
	if (!on || iscsi_conn_dead(c))
		return;
	reactor_timer_cancel(&c->aen_timer);
	reactor_timer_init(&c->aen_timer, aen_tick);
	reactor_timer_arm(c->r, &c->aen_timer, AEN_PERIOD_NS);
}
