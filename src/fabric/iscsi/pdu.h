/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdu.h: the iSCSI PDU receive state machine and transmit units.
 *
 * Receive (RFC 7143 11.2): BHS (48) -> AHS (TotalAHSLength * 4) -> header
 * digest -> data segment -> padding to 4 bytes -> data digest. The machine is
 * resumable at any byte: iscsi_rx_feed() takes whatever bytes are available
 * (a socket read, a fuzzer's buffer, one byte at a time) and calls back at
 * two points:
 *   ops->header(rx)  BHS + AHS are complete and the header digest matched.
 *                    The callback validates the header and says where the
 *                    data segment goes: rx->dst receives the first rx->keep
 *                    bytes, the rest of the segment is read and discarded.
 *                    Return 0, or < 0 to stop (the connection is dropped),
 *                    or > 0 to pause before the data segment (the owner
 *                    has no room for it yet): iscsi_rx_feed returns, and
 *                    the owner sets rx->dst/keep and calls
 *                    iscsi_rx_feed(rx, NULL, 0) (or with more bytes) to go
 *                    on, which first completes a PDU with no data left.
 *   ops->pdu(rx, ddigest_ok)  the whole PDU is in. Return 0 to go on, > 0 to
 *                    pause (iscsi_rx_feed returns, leaving the rest of the
 *                    caller's bytes unconsumed), < 0 to stop.
 * A header digest mismatch calls ops->header_digest_error (ERL 0: drop).
 * Lengths come from the wire and are never trusted for allocation here: the
 * data segment is only copied into memory the header callback provided.
 *
 * For large segments the connection may read straight into the destination:
 * iscsi_rx_direct() names the remaining destination bytes, the caller reads
 * into them (readv) and reports with iscsi_rx_direct_done(). */
#ifndef UT_ISCSI_PDU_H
#define UT_ISCSI_PDU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fabric/iscsi/proto.h"
#include "lib/list.h"

enum iscsi_rx_state {
	ISCSI_RX_BHS = 0,
	ISCSI_RX_AHS,
	ISCSI_RX_HDIGEST,
	ISCSI_RX_DATA,
	ISCSI_RX_PAD,
	ISCSI_RX_DDIGEST,
};

struct iscsi_rx;

struct iscsi_rx_ops {
	int (*header)(struct iscsi_rx *rx);
	int (*pdu)(struct iscsi_rx *rx, bool ddigest_ok);
	/* < 0: the stream is lost (the connection goes); ISCSI_RX_SKIP: the
	 * length is trusted, the PDU is skipped whole (ERL >= 1, RFC 7143
	 * 7.8) and the machine goes on with the next one */
	int (*header_digest_error)(struct iscsi_rx *rx);
};
#define ISCSI_RX_SKIP 1

struct iscsi_rx {
	const struct iscsi_rx_ops *ops;
	bool hdigest;  /* CRC32C header digest expected (full feature phase) */
	bool ddigest;  /* CRC32C data digest expected on non-empty segments */
	uint8_t state; /* enum iscsi_rx_state */
	bool held;     /* ops->header paused before the data segment */
	bool skip;     /* the PDU is being skipped: no callback at its end */
	uint32_t got;  /* bytes of the current part received */
	union iscsi_hdr hdr;
	uint8_t ahs[ISCSI_AHS_MAX];
	uint32_t ahs_len; /* bytes */
	uint32_t dsl;	  /* DataSegmentLength of the current PDU */
	uint32_t pad;	  /* padding bytes after the data segment */
	uint8_t *dst;	  /* set by ops->header: destination of the first keep bytes */
	uint32_t keep;
	uint32_t crc; /* running CRC32C state over the data segment + padding */
	uint8_t dig[ISCSI_DIGEST_LEN];
	uint8_t padbuf[4];
	/* Data-segment bytes placed at dst since init: copied by the target
	 * from the bytes it was fed (the connection's receive buffer), or read
	 * there straight from the socket (iscsi_rx_direct_done). The copies
	 * per command of the write path (tests/unit/iscsi/test_copies.c). */
	uint64_t copied_bytes, direct_bytes;
};

void iscsi_rx_init(struct iscsi_rx *rx, const struct iscsi_rx_ops *ops);
/* Forget any partial PDU (after a digest switch nothing is in flight). */
void iscsi_rx_reset(struct iscsi_rx *rx);
/* Consume up to len bytes. Returns the bytes consumed (< len only when a
 * callback paused) or the negative value a callback returned. */
ssize_t iscsi_rx_feed(struct iscsi_rx *rx, const uint8_t *buf, size_t len);
/* In the data state with at least min bytes left to place at rx->dst: set
 * *p and *n to them and return true. */
bool iscsi_rx_direct(const struct iscsi_rx *rx, size_t min, uint8_t **p, size_t *n);
/* n bytes were read into the region iscsi_rx_direct() named. Returns like
 * iscsi_rx_feed(): 0 or a callback's value (the PDU may complete here). */
ssize_t iscsi_rx_direct_done(struct iscsi_rx *rx, size_t n);

/* ---- transmit ----
 * One PDU to send: header, optional header digest, data segment (pointing
 * into memory that stays valid until the unit is sent: a command's buffer,
 * the unit's own small area, or an owned heap buffer), padding, optional data
 * digest. Digests are computed by iscsi_tx_seal() when the unit is queued. */
struct iscsi_task;

enum {
	ISCSI_TX_F_HDIGEST = 1u << 0,
	ISCSI_TX_F_DDIGEST = 1u << 1,
	ISCSI_TX_F_CLOSE = 1u << 2,	/* close the connection once sent */
	ISCSI_TX_F_TASK_DONE = 1u << 3, /* last PDU of task: release it once sent */
	ISCSI_TX_F_FFP = 1u << 4,	/* final login response: enter full feature phase */
	ISCSI_TX_F_SESSQ = 1u << 5,	/* counted in the session's txq_bytes (conn.c) */
	ISCSI_TX_F_RETX = 1u << 6,	/* a retransmission (retain.c): not kept again */
	/* Data-In lent from the back-store (scsi_cmd.data_in_src) of tx->task:
	 * copied into the task's buffer if it cannot go now (conn.c) */
	ISCSI_TX_F_LENT = 1u << 7,
};

#define ISCSI_TX_SMALL 112u /* inline data: sense (2 + 96), a rejected header (48) */

struct iscsi_tx {
	struct list_node node;
	union iscsi_hdr hdr;
	uint8_t hdig[ISCSI_DIGEST_LEN];
	uint8_t ddig[ISCSI_DIGEST_LEN];
	uint8_t flags;
	const uint8_t *data; /* data segment (len bytes) */
	uint32_t len;
	uint8_t *heap;		 /* owned buffer freed with the unit (free()) */
	struct iscsi_task *task; /* with ISCSI_TX_F_TASK_DONE or _LENT */
	uint32_t sent;		 /* bytes of this unit already written */
	uint8_t small[ISCSI_TX_SMALL];
};

/* Fill DataSegmentLength from len and compute the digests the flags ask for. */
void iscsi_tx_seal(struct iscsi_tx *tx);
/* Total bytes of the unit on the wire. */
uint32_t iscsi_tx_wire_len(const struct iscsi_tx *tx);
/* Up to max iovecs for the unsent part of the unit (tx->sent skipped). */
int iscsi_tx_iov(const struct iscsi_tx *tx, struct iovec *iov, int max);

/* CRC32C of a header (BHS + AHS), the value put on the wire with put_le32. */
uint32_t iscsi_header_digest(const union iscsi_hdr *h, const uint8_t *ahs, uint32_t ahs_len);
/* CRC32C of a data segment and its zero padding. */
uint32_t iscsi_data_digest(const uint8_t *data, uint32_t len);

#endif
