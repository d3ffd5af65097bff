/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc_internal.h: what the block command files (sbc.c, sbc_cmds.c, verify.c,
 * caw.c, write_same.c, unmap.c, sanitize.c, xcopy.c, defect.c, diag.c) share: the
 * per-LU state, the LBA range lock, the step engine of multi-step commands,
 * and the handlers the CDB table points to. Nothing outside sbc*.c and the
 * files above includes it. */
#ifndef UT_SCSI_SBC_INTERNAL_H
#define UT_SCSI_SBC_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "scsi/bs.h"
#include "scsi/cmd.h"
#include "scsi/lu.h"
#include "scsi/sbc.h"

/* Bounded buffers of the multi-step commands (WRITE SAME, VERIFY, EXTENDED
 * COPY, SANITIZE, PRE-FETCH): the range is processed in chunks of at most
 * this many bytes. */
#define SBC_CHUNK_BYTES (1u << 20)
/* UNMAP: MAXIMUM UNMAP LBA COUNT as vpd.c reports it in VPD B0h (at most
 * 2^20 blocks, below what SBC_MAX_UNMAP_BYTES allows) */
#define SBC_UNMAP_LBA_COUNT_CAP (1u << 20)
/* GET LBA STATUS: bound on back-store MAP_STATUS queries per command. */
#define SBC_LBA_STATUS_MAX_QUERIES 1024u
/* EXTENDED COPY: remembered copy results (RECEIVE COPY STATUS) per LU. */
#define SBC_XCOPY_RESULTS 16u
/* Sense data kept with a failed copy's results (SPC-4 6.24: LENGTH OF THE
 * SENSE DATA FIELD, a multiple of 4) */
#define SBC_COPY_SENSE_MAX 32u

/* ---- per-LU state ---- */

/* One EXTENDED COPY's results (LID1 or LID4) for RECEIVE COPY STATUS(LID1)
 * (SPC-4 6.25), RECEIVE COPY STATUS(LID4) (6.24) and RECEIVE COPY
 * DATA(LID4) (6.20), keyed by I_T nexus and list identifier. List
 * identifiers are 32-bit quantities whatever the field that carries them
 * (SPC-4 5.17.4.2: FDh in a LID1 list is 000000FDh). */
struct sbc_copy_result {
	char *port;	   /* initiator port name of the issuing I_T nexus (malloc) */
	uint16_t rel_port; /* and its relative target port identifier */
	uint32_t list_id;
	bool valid;
	uint8_t sa;	     /* the EXTENDED COPY's service action: 00h LID1, 01h LID4 */
	uint8_t status;	     /* COPY OPERATION STATUS (SPC-4 table 249): 11h, 01h, 02h */
	uint8_t scsi_status; /* EXTENDED COPY COMPLETION STATUS */
	uint8_t sense_len;
	uint8_t sense[SBC_COPY_SENSE_MAX];
	uint16_t segments; /* segments processed */
	uint64_t bytes;	   /* bytes transferred */
	uint64_t seq;	   /* age, for replacement */
};

/* The status of one copy operation as RECEIVE COPY STATUS(LID4) reports it
 * (SPC-4 6.24, table 248), whichever command made it (xcopy.c, rod.c). */
struct sbc_copy_status {
	uint8_t sa;	     /* RESPONSE TO SERVICE ACTION */
	uint8_t status;	     /* COPY OPERATION STATUS */
	uint8_t scsi_status; /* EXTENDED COPY COMPLETION STATUS */
	uint8_t units;	     /* TRANSFER COUNT UNITS: 00h bytes, F1h blocks */
	uint64_t count;	     /* TRANSFER COUNT */
	uint16_t segments;   /* SEGMENTS PROCESSED */
	uint8_t sense_len;
	uint8_t sense[SBC_COPY_SENSE_MAX];
};
/* The 32-byte header and the sense data of table 248 into d (at least
 * SBC_COPY_STATUS_LEN + SBC_COPY_SENSE_MAX bytes), AVAILABLE DATA not set;
 * returns the length (copy_status.c). */
#define SBC_COPY_STATUS_LEN 32u
size_t sbc_copy_status_put(const struct sbc_copy_status *st, uint8_t *d);
/* The results of the I_T nexus' copy operation with list_id: an EXTENDED
 * COPY's (xcopy.c, on the command's LU) or a POPULATE TOKEN's / WRITE
 * USING TOKEN's (rod.c). false: none known. */
bool sbc_xcopy_status(const struct scsi_cmd *cmd, uint32_t list_id, struct sbc_copy_status *st);
bool rod_copy_status(const struct scsi_cmd *cmd, uint32_t list_id, struct sbc_copy_status *st);
/* A command that originates a copy operation discards the results of an
 * earlier one of its I_T nexus with the same list identifier (SPC-4 6.24):
 * the other store's. */
void sbc_xcopy_forget(struct scsi_lu *lu, const struct scsi_nexus *n, uint32_t list_id);
void rod_forget(const struct scsi_cmd *cmd, uint32_t list_id);

/* The medium operations of sanitize.c: a SANITIZE or a FORMAT UNIT. */
enum sbc_sanitize_state {
	SBC_SAN_IDLE = 0,
	SBC_SAN_RUNNING,    /* NOT READY / SANITIZE IN PROGRESS */
	SBC_SAN_FAILED,	    /* MEDIUM ERROR / MEDIUM FORMAT CORRUPTED */
	SBC_SAN_FORMATTING, /* NOT READY / FORMAT IN PROGRESS */
};

/* SEND DIAGNOSTIC self-tests (diag.c, SPC-4 5.6.3) */
enum sbc_selftest_state {
	SBC_ST_IDLE = 0,
	SBC_ST_FOREGROUND, /* other commands: NOT READY / SELF-TEST IN PROGRESS */
	SBC_ST_BACKGROUND, /* other commands run; REQUEST SENSE reports the progress */
};

struct st_job;

struct sbc_lu_state {
	/* LBA range locks (lu->lock): granted locks, and waiters in arrival
	 * order. n_excl_held counts exclusive locks in `held`. */
	struct list_node held;
	struct list_node waiting;
	unsigned n_excl_held;
	unsigned n_waiting;
	/* Fast path of shared locks (sbc.c): while excl_gate (exclusive locks
	 * held or waiting; changed under lu->lock) is 0, a shared lock only
	 * counts itself in fast_shared, without lu->lock and without its range.
	 * An exclusive request waits until fast_shared is 0. */
	atomic_uint excl_gate;
	atomic_uint fast_shared;

	/* SANITIZE and FORMAT UNIT (sanitize.c, SBC-4 4.11, 5.3) */
	atomic_int san_state;	  /* enum sbc_sanitize_state */
	atomic_uint san_progress; /* 0..65535 while running */
	bool san_failed_ause;	  /* the failed sanitize allowed EXIT FAILURE MODE; lu->lock */

	/* self-tests (diag.c) */
	atomic_int st_state;	 /* enum sbc_selftest_state; changed under lu->lock */
	atomic_uint st_progress; /* 0..65535 while running */
	struct st_job *st_job;	 /* the running self-test; lu->lock */
	uint64_t created_ns;	 /* when the LU was created (power-on hours) */

	/* EXTENDED COPY (xcopy.c): results and concurrency; lu->lock */
	struct sbc_copy_result copies[SBC_XCOPY_RESULTS];
	uint64_t copy_seq;
	unsigned copies_running;

	/* ROD tokens (rod.c): live tokens of this LU a write would cancel */
	atomic_uint rod_watch;

	/* the format's protection type state file (pi_format.c); NULL: none,
	 * FORMAT UNIT cannot change the type. Set once before mapping. */
	char *format_path;
};

/* rod.c: a write of [off, off + len) bytes to lu cancels the ROD tokens
 * that represent any of it. */
void rod_note_write(struct scsi_lu *lu, uint64_t off, uint64_t len);
/* Called where a request that changes the medium goes to the back-store:
 * one relaxed load while lu has no token (rod.c). */
static inline void sbc_rod_note_write(struct scsi_lu *lu, const struct bs_io *io)
{
	if (atomic_load_explicit(&lu->sbc->rod_watch, memory_order_relaxed) &&
	    (io->op == BS_OP_WRITE || io->op == BS_OP_DISCARD || io->op == BS_OP_WRITE_ZEROES))
		rod_note_write(lu, io->off, io->len);
}

/* ---- LBA range lock (sbc.c) ----
 * Conflict: overlapping ranges of which at least one is exclusive. A request
 * is granted when it conflicts with no held lock and no earlier waiter (FIFO
 * per range, so an exclusive request is not starved by a stream of shared
 * ones). A command holds at most one lock at a time and holds it only across
 * back-store I/O -- a READ whose data was lent (bs.h BS_IO_LEND) until the
 * fabric has sent or copied it, by the end of its reactor turn (iSCSI:
 * conn.c conn_unlend) -- so waiting cannot deadlock.
 * Cost: while no exclusive lock is held or waiting (no COMPARE AND WRITE,
 * WRITE ATOMIC, ... in flight), a shared lock is one atomic increment and its
 * release one decrement: no lu->lock. The price is that an exclusive request
 * also waits for the non-overlapping shared locks taken that way. */

/* Prepare rl for sbc_range_lock(): granted runs on `reactor` (reactor_post)
 * when the lock is granted after waiting. */
void sbc_range_init(struct scsi_range_lock *rl, struct reactor *reactor,
		    void (*granted)(struct scsi_range_lock *rl));
/* true: held now (granted() is not called). false: queued; granted() follows
 * on rl->reactor once it is held. */
bool sbc_range_lock(struct scsi_lu *lu, struct scsi_range_lock *rl, uint64_t lba, uint64_t nblocks,
		    bool excl);
/* Release a held lock (no-op when rl is not held); waiters now grantable are
 * posted to their reactors. */
void sbc_range_unlock(struct scsi_range_lock *rl);

/* ---- step engine of multi-step commands (sbc.c) ----
 * step() either prepares op->io and returns SBC_STEP_IO (the engine submits
 * it; step() runs again with op->err once it completes, synchronously or
 * not, without recursion), returns SBC_STEP_WAIT (something else resumes
 * the op with sbc_op_run(), e.g. a range lock grant), or finishes and
 * returns SBC_STEP_DONE (after which op may already be freed). */
enum sbc_step { SBC_STEP_IO, SBC_STEP_WAIT, SBC_STEP_DONE };

struct sbc_op {
	struct scsi_cmd *cmd; /* NULL for a job that outlives its command */
	struct scsi_lu *lu;   /* where op->io goes (may differ from cmd's LU: XCOPY) */
	enum sbc_step (*step)(struct sbc_op *op);
	struct bs_io io;
	struct iovec iov[1];
	struct scsi_range_lock rl;
	int err; /* result of the last I/O */
	bool in_submit;
	bool sync_done;
};

/* Initialise op for cmd (may be NULL) on reactor r; the range lock resumes
 * the op when granted. */
void sbc_op_init(struct sbc_op *op, struct scsi_cmd *cmd, struct reactor *r,
		 enum sbc_step (*step)(struct sbc_op *op));
void sbc_op_run(struct sbc_op *op);
/* Prepare op->io for a transfer of len bytes at byte offset off of op->lu
 * through buf (READ/WRITE) or none (FLUSH, DISCARD, WRITE_ZEROES,
 * MAP_STATUS). */
void sbc_op_io(struct sbc_op *op, enum bs_op bop, uint64_t off, uint64_t len, void *buf,
	       uint8_t flags);
/* Release the op's range lock, then complete its command with r (sx may be
 * NULL). Returns SBC_STEP_DONE. */
enum sbc_step sbc_op_finish(struct sbc_op *op, enum sense_reason r, const struct sense_extra *sx);
/* The same for a back-store error of the last I/O. */
enum sbc_step sbc_op_bs_error(struct sbc_op *op, bool is_write);
/* A zero-filled, page-aligned buffer of SBC_CHUNK_BYTES shared by every
 * command that writes zeroes without BS_OP_WRITE_ZEROES (never written to). */
const uint8_t *sbc_zero_chunk(void);

/* ---- helpers (sbc.c) ---- */

/* The CDB's DPO and FUA bits (byte 1, cdb_dpo()/cdb_fua()) as CMD_IOF_*:
 * the one decode of them, for the commands that have them. */
uint8_t sbc_io_flags(const uint8_t *cdb);
/* Writes must be durable before completion: FUA, or the write cache off. */
bool sbc_write_durable(struct scsi_lu *lu, uint8_t io_flags);
/* BS_IO_FUA when the back-store has it natively for a durable write; else 0
 * and *flush_after tells whether a FLUSH must follow. */
uint8_t sbc_fua_flags(struct scsi_lu *lu, bool durable, bool *flush_after);
/* Data-In response of an allocation-length command: data_len = min(alloc,
 * cap); data_dir READ (or NONE when 0). */
void sbc_data_in(struct scsi_cmd *cmd, uint32_t alloc_len, uint32_t cap);
/* Blocks a Data-Out block command actually received (the core trims nblocks
 * to the Expected Data Transfer Length, libiscsi *Residuals). */
uint32_t sbc_blocks_received(const struct scsi_cmd *cmd);

/* The PROTECT field (RDPROTECT, WRPROTECT, VRPROTECT: protect, at
 * protect_byte bits 7-5) against the LU's protection information, into
 * priv.pi (sbc.c). */
enum sense_reason sbc_pi_protect(struct scsi_cmd *cmd, uint8_t protect, unsigned protect_byte);
/* READ and WRITE decode (sbc.c): transfer length against the maximum, range
 * against the capacity, the PROTECT field (protect, at protect_byte bits
 * 7-5) against the LU's protection information. tl_byte: the TRANSFER
 * LENGTH field's first byte; io_flags: the CDB's DPO and FUA. The direction
 * is the table's: READ or WRITE (CDB_F_WRITES). A 32-byte CDB sets
 * priv.pi_tags and the expected tags first (sbc_cdb32.c). */
enum sense_reason sbc_rw_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t nblocks,
			       unsigned tl_byte, uint8_t io_flags, uint8_t protect,
			       unsigned protect_byte);
/* The variable-length CDBs (sbc_cdb32.c, SBC-4 5.16, 5.36, 5.42): the
 * common checks, then READ(32) / WRITE(32) and VERIFY(32). */
enum sense_reason sbc_parse_rw32(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_verify32(struct scsi_cmd *cmd);
/* VERIFY and WRITE AND VERIFY decode (verify.c): len_byte the length
 * field's first byte; protect the VRPROTECT field at protect_byte (0 for
 * WRITE AND VERIFY); bytchk, io_flags (DPO) decoded by the caller. */
enum sense_reason sbc_verify_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n,
				   unsigned len_byte, bool write, uint8_t protect,
				   unsigned protect_byte, uint8_t bytchk, uint8_t io_flags);
/* The expected tags of a command's first block (sbc_pi.c): a 32-byte CDB's,
 * else the LBA's low 32 bits as the reference tag. */
struct pi_expect sbc_pi_expect(const struct scsi_cmd_priv *p);

/* sbc_pi.c: protection information of a READ or WRITE of n blocks, before
 * its back-store request (*tuples: the buffer for io->pi, or NULL; a WRITE
 * whose tuples fail their check: the reason and *bad_lba) and after a
 * READ's (checked, and merged into the Data-In when they travel). */
enum sense_reason sbc_pi_prepare(struct scsi_cmd *cmd, uint32_t n, uint8_t **tuples,
				 uint64_t *bad_lba);
enum sense_reason sbc_pi_finish_read(struct scsi_cmd *cmd, uint32_t n, uint64_t *bad_lba);
/* A copy source's blocks (EXTENDED COPY, WRITE USING TOKEN): the tuple
 * buffer for io->pi of a chunk of n blocks of lu (grown in *pi / *pi_len;
 * NULL when lu has no protection information, or on ENOMEM: *nomem), and
 * the check of what was read as READ with RDPROTECT 000b: SENSE_OK or
 * COPY ABORTED with the failed check's code, *bad_lba its block. */
uint8_t *sbc_pi_copy_buf(struct scsi_lu *lu, uint64_t n, uint8_t **pi, size_t *pi_len, bool *nomem);
enum sense_reason sbc_pi_copy_source(struct scsi_lu *lu, uint64_t lba, const uint8_t *data,
				     const uint8_t *tuples, uint64_t n, uint64_t *bad_lba);
/* Capacity limits in blocks of the LU, from limits.h (bytes). */
uint32_t sbc_max_xfer_blocks(const struct scsi_lu *lu);
uint64_t sbc_bytes_to_blocks(const struct scsi_lu *lu, uint64_t bytes);
/* Offset of the first differing byte of a and b (len when equal). */
size_t sbc_first_diff(const uint8_t *a, const uint8_t *b, size_t len);
bool sbc_all_zero(const uint8_t *p, size_t len);

/* ---- handlers (the CDB table, sbc_cmds.c) ---- */
/* sbc.c */
enum sense_reason sbc_parse_rw6(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rw10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rw12(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rw16(struct scsi_cmd *cmd);
/* READ and WRITE (6/10/12/16), WRITE ATOMIC (16): the direction is the
 * table's (CDB_F_WRITES) */
void sbc_exec_rw(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_read_capacity10(struct scsi_cmd *cmd);
void sbc_exec_read_capacity10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_read_capacity16(struct scsi_cmd *cmd);
void sbc_exec_read_capacity16(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_sync_cache10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_sync_cache16(struct scsi_cmd *cmd);
void sbc_exec_sync_cache(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_prefetch10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_prefetch16(struct scsi_cmd *cmd);
void sbc_exec_prefetch(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_atomic16(struct scsi_cmd *cmd);
/* verify.c */
enum sense_reason sbc_parse_verify10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_verify12(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_verify16(struct scsi_cmd *cmd);
void sbc_exec_verify(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_verify10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_verify12(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_verify16(struct scsi_cmd *cmd);
void sbc_exec_write_verify(struct scsi_cmd *cmd);
/* caw.c */
enum sense_reason sbc_parse_caw(struct scsi_cmd *cmd);
void sbc_exec_caw(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_orwrite16(struct scsi_cmd *cmd);
void sbc_exec_orwrite(struct scsi_cmd *cmd);
/* write_same.c */
enum sense_reason sbc_parse_write_same10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_same16(struct scsi_cmd *cmd);
void sbc_exec_write_same(struct scsi_cmd *cmd);
/* unmap.c */
enum sense_reason sbc_parse_unmap(struct scsi_cmd *cmd);
void sbc_exec_unmap(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_get_lba_status(struct scsi_cmd *cmd);
void sbc_exec_get_lba_status(struct scsi_cmd *cmd);
/* sanitize.c */
enum sense_reason sbc_parse_sanitize(struct scsi_cmd *cmd);
void sbc_exec_sanitize(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_format_unit(struct scsi_cmd *cmd);
void sbc_exec_format_unit(struct scsi_cmd *cmd);
/* diag.c */
enum sense_reason sbc_parse_send_diagnostic(struct scsi_cmd *cmd);
void sbc_exec_send_diagnostic(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_receive_diagnostic(struct scsi_cmd *cmd);
void sbc_exec_receive_diagnostic(struct scsi_cmd *cmd);
/* xcopy.c: EXTENDED COPY(LID1) and (LID4) share one parse (by the service
 * action) and one engine */
enum sense_reason sbc_parse_xcopy(struct scsi_cmd *cmd);
void sbc_exec_xcopy(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rcr(struct scsi_cmd *cmd);
void sbc_exec_rcr_copy_status(struct scsi_cmd *cmd);
void sbc_exec_rcr_op_params(struct scsi_cmd *cmd);
/* The copy manager's access check of a copy source (write false) or
 * destination: as the requester's own READ(16) / WRITE(16) to lu through
 * its I_T nexus record itn (ro: the mapping is write protected). */
enum sense_reason sbc_copy_access(const struct scsi_cmd *cmd, struct scsi_lu *lu,
				  struct lu_itn *itn, bool ro, bool write);
/* rod.c */
enum sense_reason sbc_parse_populate_token(struct scsi_cmd *cmd);
void sbc_exec_populate_token(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_write_using_token(struct scsi_cmd *cmd);
void sbc_exec_write_using_token(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rrti(struct scsi_cmd *cmd);
void sbc_exec_rrti(struct scsi_cmd *cmd);
/* copy_status.c */
enum sense_reason sbc_parse_rcs_lid4(struct scsi_cmd *cmd);
void sbc_exec_rcs_lid4(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_rcd_lid4(struct scsi_cmd *cmd);
void sbc_exec_rcd_lid4(struct scsi_cmd *cmd);
/* defect.c */
enum sense_reason sbc_parse_read_defect10(struct scsi_cmd *cmd);
enum sense_reason sbc_parse_read_defect12(struct scsi_cmd *cmd);
void sbc_exec_read_defect(struct scsi_cmd *cmd);

#endif
