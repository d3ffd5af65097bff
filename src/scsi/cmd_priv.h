/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_priv.h: core-private state embedded in every struct scsi_cmd and
 * struct scsi_tmf. Fabrics must not touch it; it is here only so that the
 * fabric can embed the command without a separate allocation.
 * Included from scsi.h. */
#ifndef UT_SCSI_CMD_PRIV_H
#define UT_SCSI_CMD_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lib/list.h"
#include "lib/reactor.h"
#include "scsi/bs.h"
#include "scsi/pi.h"
#include "scsi/sense.h"

struct scsi_lu;
struct lu_itn;
struct cdb_desc;
struct scsi_cmd;
struct scsi_tmf;

enum scsi_cmd_state {
	SCSI_CMD_FREE = 0,
	SCSI_CMD_SETUP,	  /* set up; fabric collecting Data-Out */
	SCSI_CMD_BLOCKED, /* exec'd, waiting in the task set for ordering */
	SCSI_CMD_READY,	  /* no longer blocked; its start is posted to its reactor */
	SCSI_CMD_RUNNING, /* handler running / back-store I/O in flight */
	SCSI_CMD_DONE,	  /* cmd_done delivered, waiting for release */
};

/* An LBA range lock of the block commands (sbc.c, SBC-4 5.3): COMPARE AND
 * WRITE, ORWRITE and WRITE ATOMIC exclude every other medium access to an
 * overlapping range; READ/WRITE/WRITE SAME/UNMAP take it shared. Embedded so
 * that the fast path needs no allocation; the table is under lu->lock. */
struct scsi_range_lock {
	struct list_node node;	 /* sbc_lu_state held or waiting list */
	struct scsi_lu *lu;	 /* LU whose table holds the lock */
	struct reactor *reactor; /* granted() runs here (NULL: on the releasing thread) */
	struct reactor_msg msg;
	void (*granted)(struct scsi_range_lock *rl);
	uint64_t lba;
	uint64_t nblocks;
	uint8_t state; /* 0 = free, 1 = waiting, 2 = held, 3 = held (fast path) */
	bool excl;
};

struct scsi_cmd_priv {
	struct scsi_lu *lu;	     /* NULL when the LUN is not mapped */
	const struct cdb_desc *desc; /* NULL when the opcode is not supported */
	struct list_node task_node;  /* lu task set */
	struct list_node wait_node;  /* ordering wait queue */
	uint32_t buf_len;	     /* bytes of buf: what the CDB asks for, no more than the
				      * Expected Data Transfer Length lets through */
	uint32_t data_len;	     /* bytes the CDB asks to transfer */
	uint8_t data_dir;	     /* enum scsi_dir implied by the CDB */
	uint8_t state;		     /* enum scsi_cmd_state */
	uint8_t order_class;	     /* effective ordering class */
	bool map_read_only;	     /* the LUN mapping of this nexus is write protected */
	uint16_t reason;	     /* enum sense_reason decided before exec */
	struct sense_extra sx;	     /* INFORMATION / field pointer for reason */
	atomic_bool aborted;
	struct scsi_tmf *abort_tmf; /* TMF waiting for this task to finish */
	bool abort_other_nexus;	    /* aborted on behalf of another I_T nexus (TAS) */
	struct reactor_msg msg;	    /* cross-thread notification of this command */
	uint64_t start_ns;	    /* for latency statistics */
	struct lu_itn *itn;    /* this I_T nexus' record at lu (UA, PREVENT, SPC-2 reservation) */
	uint32_t cdb_xfer_len; /* bytes the CDB asked for before trimming to exp_len (residuals) */
	uint32_t data_in_full; /* Data-In the device server produced, before the buffer
				* (buf_len) cut it (residuals); 0: data_in_len */
	uint8_t order_kind;    /* order.c: row/column of the ordering matrix */
	bool waiting;	       /* order.c: must wait for older tasks (lu->lock) */
	bool msg_posted;       /* msg queued on reactor (lu->lock) */
	bool buf_wait;	       /* set up but no data buffer yet (scsi_cmd_buf_retry) */
	bool enter_due;	       /* enter_later: set up, buffer there, not yet entered */
	bool buf_reserved;     /* buf comes from the nexus' reserve (outside the cap) */
	bool aca_admitted;     /* aca.c: admitted as the ACA task (lu->lock) */
	bool forward;	       /* passthrough.c: the device behind the LU runs it */

	/* decoded once by the handler's parse step (block commands) */
	uint64_t lba;
	uint32_t nblocks;
	uint8_t io_flags; /* CMD_IOF_* in cmd.h */
	/* READ/WRITE of an LU with protection information: what RDPROTECT /
	 * WRPROTECT asked (pi.transfer: 8 more bytes per block on the wire) */
	struct pi_checks pi;
	/* the 32-byte CDBs (sbc_cdb32.c): the expected tags of the first block
	 * (EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG, EXPECTED LOGICAL
	 * BLOCK APPLICATION TAG and its mask); else the LBA is the reference */
	bool pi_tags;
	uint16_t pi_app, pi_app_mask;
	uint32_t pi_ref;

	/* one back-store request for the common single-I/O case */
	struct bs_io io;
	struct iovec iov[1];
	struct scsi_range_lock range; /* LBA range lock of a block command */

	/* per-command state of multi-step commands (WRITE SAME, COMPARE AND
	 * WRITE, EXTENDED COPY, ...); op_free() is called at release */
	void *op;
	void (*op_free)(struct scsi_cmd *cmd);
};

struct scsi_tmf_priv {
	atomic_uint pending; /* affected tasks still running, +1 while scanning */
	struct reactor_msg msg;
	struct scsi_lu *lu;
};

#endif
