/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc.c: the block command set's common machinery and its data path
 * (SBC-4): READ/WRITE (6/10/12/16), READ CAPACITY (10/16), SYNCHRONIZE
 * CACHE (10/16), PRE-FETCH (10/16), WRITE ATOMIC (16); the LBA range lock
 * that makes COMPARE AND WRITE atomic; the step engine of multi-step
 * commands; the per-LU state hooks of sbc.h.
 *
 * The fast path (READ/WRITE, one submit path for both directions) uses the
 * command's embedded priv.io/priv.iov over cmd->buf: one back-store
 * request, no allocation. Back-store
 * completions may run synchronously inside bs_submit() (bs.h): nothing here
 * recurses more than one level (a FLUSH after a WRITE). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/sbc_internal.h"

/* priv.io_flags bits private to this file: the write must be followed by a
 * FLUSH (FUA emulated on a back-store without BS_CAP_FUA); the command is a
 * WRITE ATOMIC (an exclusive range lock). */
#define SBC_IOF_FLUSH  (1u << 7)
#define SBC_IOF_ATOMIC (1u << 6)

enum { RL_FREE = 0, RL_WAITING = 1, RL_HELD = 2, RL_HELD_FAST = 3 };

/* ---- per-LU state ---- */

int sbc_lu_init(struct scsi_lu *lu)
{
	struct sbc_lu_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	list_init(&s->held);
	list_init(&s->waiting);
	atomic_init(&s->excl_gate, 0);
	atomic_init(&s->fast_shared, 0);
	atomic_init(&s->san_state, SBC_SAN_IDLE);
	atomic_init(&s->san_progress, 0);
	atomic_init(&s->st_state, SBC_ST_IDLE);
	atomic_init(&s->st_progress, 0);
	s->created_ns = reactor_now_ns();
	atomic_init(&s->rod_watch, 0);
	lu->sbc = s;
	return 0;
}

void sbc_lu_fini(struct scsi_lu *lu)
{
	struct sbc_lu_state *s = lu->sbc;

	/* the last reference is gone: no command and no job (each holds a
	 * reference) can still use the state */
	if (!s)
		return;
	for (unsigned i = 0; i < SBC_XCOPY_RESULTS; i++)
		free(s->copies[i].port);
	free(s->format_path);
	free(s);
	lu->sbc = NULL;
}

enum sense_reason sbc_check_range(const struct scsi_lu *lu, uint64_t lba, uint64_t nblocks)
{
	uint64_t cap = lu_nblocks(lu);

	/* SBC-4 4.5: LBA OUT OF RANGE when the range is not inside the
	 * capacity; written so that no sum can wrap around */
	if (lba > cap || nblocks > cap - lba)
		return SENSE_LBA_OUT_OF_RANGE;
	return SENSE_OK;
}

/* ---- LBA range lock ---- */

static bool rl_conflict(const struct scsi_range_lock *a, const struct scsi_range_lock *b)
{
	return (a->excl || b->excl) && a->lba < b->lba + b->nblocks && b->lba < a->lba + a->nblocks;
}

/* rl conflicts with a held lock or with a waiter queued before `stop` (NULL:
 * any waiter). lu->lock held. */
static bool rl_blocked_locked(struct sbc_lu_state *s, const struct scsi_range_lock *rl,
			      const struct scsi_range_lock *stop)
{
	const struct list_node *n;

	/* shared locks of the fast path: their ranges are unknown */
	if (rl->excl && atomic_load(&s->fast_shared))
		return true;
	if (rl->excl || s->n_excl_held) {
		for (n = s->held.next; n != &s->held; n = n->next)
			if (rl_conflict(rl, list_entry(n, struct scsi_range_lock, node)))
				return true;
	}
	for (n = s->waiting.next; s->n_waiting && n != &s->waiting; n = n->next) {
		const struct scsi_range_lock *o = list_entry(n, struct scsi_range_lock, node);

		if (o == stop)
			break;
		if (rl_conflict(rl, o))
			return true;
	}
	return false;
}

static void rl_granted_msg(struct reactor_msg *m)
{
	struct scsi_range_lock *rl = container_of(m, struct scsi_range_lock, msg);

	rl->granted(rl);
}

void sbc_range_init(struct scsi_range_lock *rl, struct reactor *reactor,
		    void (*granted)(struct scsi_range_lock *rl))
{
	memset(rl, 0, sizeof(*rl));
	list_init(&rl->node);
	rl->reactor = reactor;
	rl->granted = granted;
	rl->msg.fn = rl_granted_msg;
}

/* Grant the waiters that no longer conflict; the ones without a reactor
 * are chained on *direct for the caller to run once lu->lock is dropped. */
static void rl_grant_locked(struct sbc_lu_state *s, struct reactor_msg **direct)
{
	struct list_node *n, *next;

	for (n = s->waiting.next; n != &s->waiting; n = next) {
		struct scsi_range_lock *w = list_entry(n, struct scsi_range_lock, node);

		next = n->next;
		if (rl_blocked_locked(s, w, w))
			continue;
		list_del(&w->node);
		s->n_waiting--;
		list_add_tail(&s->held, &w->node);
		w->state = RL_HELD;
		if (w->excl)
			s->n_excl_held++;
		if (w->reactor) {
			reactor_post(w->reactor, &w->msg);
		} else {
			/* no reactor (tests): call it after the lock is dropped */
			w->msg.next = *direct;
			*direct = &w->msg;
		}
	}
}

static void rl_run_direct(struct reactor_msg *direct)
{
	while (direct) {
		struct reactor_msg *m = direct;

		direct = m->next;
		m->fn(m);
	}
}

/* Drop a fast-path count. The last one out lets a waiting exclusive request
 * go: seq_cst on both sides (here: decrement, then read excl_gate; there:
 * increment excl_gate, then read fast_shared under lu->lock) means that
 * either the exclusive request saw this count gone or this sees its gate. */
static void rl_fast_put(struct scsi_lu *lu, struct sbc_lu_state *s)
{
	struct reactor_msg *direct = NULL;

	if (atomic_fetch_sub(&s->fast_shared, 1) != 1 || !atomic_load(&s->excl_gate))
		return;
	pthread_mutex_lock(&lu->lock);
	rl_grant_locked(s, &direct);
	pthread_mutex_unlock(&lu->lock);
	rl_run_direct(direct);
}

bool sbc_range_lock(struct scsi_lu *lu, struct scsi_range_lock *rl, uint64_t lba, uint64_t nblocks,
		    bool excl)
{
	struct sbc_lu_state *s = lu->sbc;
	bool now;

	rl->lu = lu;
	rl->lba = lba;
	rl->nblocks = nblocks;
	rl->excl = excl;
	if (!excl) {
		atomic_fetch_add(&s->fast_shared, 1);
		if (likely(!atomic_load(&s->excl_gate))) {
			rl->state = RL_HELD_FAST;
			return true;
		}
		rl_fast_put(lu, s); /* an exclusive one is about: the full check */
	}
	pthread_mutex_lock(&lu->lock);
	if (excl)
		atomic_fetch_add(&s->excl_gate, 1);
	now = !rl_blocked_locked(s, rl, NULL);
	if (now) {
		list_add_tail(&s->held, &rl->node);
		rl->state = RL_HELD;
		if (excl)
			s->n_excl_held++;
	} else {
		list_add_tail(&s->waiting, &rl->node);
		rl->state = RL_WAITING;
		s->n_waiting++;
	}
	pthread_mutex_unlock(&lu->lock);
	return now;
}

void sbc_range_unlock(struct scsi_range_lock *rl)
{
	struct scsi_lu *lu = rl->lu;
	struct sbc_lu_state *s;
	struct reactor_msg *direct = NULL;

	if (rl->state == RL_HELD_FAST) {
		rl->state = RL_FREE;
		rl_fast_put(lu, lu->sbc);
		return;
	}
	if (rl->state != RL_HELD)
		return;
	s = lu->sbc;
	pthread_mutex_lock(&lu->lock);
	list_del(&rl->node);
	rl->state = RL_FREE;
	if (rl->excl) {
		s->n_excl_held--;
		atomic_fetch_sub(&s->excl_gate, 1);
	}
	rl_grant_locked(s, &direct);
	pthread_mutex_unlock(&lu->lock);
	rl_run_direct(direct);
}

/* ---- step engine ---- */

static void op_io_done(struct bs_io *io, int err)
{
	struct sbc_op *op = container_of(io, struct sbc_op, io);

	op->err = err;
	if (op->in_submit) {
		/* completed inside bs_submit(): sbc_op_run() loops on */
		op->sync_done = true;
		return;
	}
	sbc_op_run(op);
}

static void op_range_granted(struct scsi_range_lock *rl)
{
	sbc_op_run(container_of(rl, struct sbc_op, rl));
}

void sbc_op_init(struct sbc_op *op, struct scsi_cmd *cmd, struct reactor *r,
		 enum sbc_step (*step)(struct sbc_op *op))
{
	op->cmd = cmd;
	op->lu = cmd ? cmd->priv.lu : NULL;
	op->step = step;
	op->err = 0;
	op->in_submit = false;
	op->sync_done = false;
	sbc_range_init(&op->rl, r, op_range_granted);
}

void sbc_op_run(struct sbc_op *op)
{
	for (;;) {
		if (op->step(op) != SBC_STEP_IO)
			return; /* done (op may be gone) or waiting */
		op->in_submit = true;
		op->sync_done = false;
		sbc_rod_note_write(op->lu, &op->io);
		bs_submit(op->lu->bs, &op->io);
		op->in_submit = false;
		if (!op->sync_done)
			return; /* op_io_done() resumes it */
	}
}

void sbc_op_io(struct sbc_op *op, enum bs_op bop, uint64_t off, uint64_t len, void *buf,
	       uint8_t flags)
{
	struct bs_io *io = &op->io;

	io->op = (uint8_t)bop;
	io->flags = flags;
	io->off = off;
	io->len = len;
	io->map_len = 0;
	io->mapped = false;
	io->pi = NULL; /* the back-store generates tuples (backstore/pi.h) */
	io->src = NULL;
	io->src_off = 0;
	if (bop == BS_OP_READ || bop == BS_OP_WRITE) {
		op->iov[0].iov_base = buf;
		op->iov[0].iov_len = len;
		io->iov = op->iov;
		io->iovcnt = 1;
	} else {
		io->iov = NULL;
		io->iovcnt = 0;
	}
	io->done = op_io_done;
}

enum sbc_step sbc_op_finish(struct sbc_op *op, enum sense_reason r, const struct sense_extra *sx)
{
	sbc_range_unlock(&op->rl);
	if (op->cmd)
		scsi_cmd_complete_sx(op->cmd, r, sx);
	return SBC_STEP_DONE;
}

enum sbc_step sbc_op_bs_error(struct sbc_op *op, bool is_write)
{
	sbc_range_unlock(&op->rl);
	if (op->cmd)
		scsi_cmd_complete_bs_error(op->cmd, op->err, op->io.bad_off, is_write);
	return SBC_STEP_DONE;
}

const uint8_t *sbc_zero_chunk(void)
{
	static const uint8_t zero_chunk[SBC_CHUNK_BYTES] __attribute__((aligned(4096)));

	return zero_chunk;
}

/* ---- helpers ---- */

uint8_t sbc_io_flags(const uint8_t *cdb)
{
	return (uint8_t)((cdb_fua(cdb) ? CMD_IOF_FUA : 0) | (cdb_dpo(cdb) ? CMD_IOF_DPO : 0));
}

bool sbc_write_durable(struct scsi_lu *lu, uint8_t io_flags)
{
	/* SBC-4 4.15: FUA, or WCE=0 (every write reaches the medium before
	 * completion) */
	return (io_flags & CMD_IOF_FUA) || !lu_wce(lu);
}

uint8_t sbc_fua_flags(struct scsi_lu *lu, bool durable, bool *flush_after)
{
	*flush_after = false;
	if (!durable)
		return 0;
	if (lu->bs->caps & BS_CAP_FUA)
		return BS_IO_FUA;
	*flush_after = (lu->bs->caps & BS_CAP_FLUSH) != 0;
	return 0;
}

void sbc_data_in(struct scsi_cmd *cmd, uint32_t alloc_len, uint32_t cap)
{
	cmd->priv.data_len = UT_MIN(alloc_len, cap);
	cmd->priv.data_dir = cmd->priv.data_len ? SCSI_DIR_READ : SCSI_DIR_NONE;
}

uint32_t sbc_xfer_unit(const struct scsi_cmd_priv *p)
{
	return (1u << p->lu->block_shift) + (p->pi.transfer ? T10PI_TUPLE_LEN : 0);
}

uint32_t sbc_blocks_received(const struct scsi_cmd *cmd)
{
	const struct scsi_cmd_priv *p = &cmd->priv;

	return UT_MIN(p->nblocks, cmd->write_len / sbc_xfer_unit(p));
}

uint32_t sbc_max_xfer_blocks(const struct scsi_lu *lu)
{
	return SCSI_MAX_XFER_BYTES >> lu->block_shift;
}

uint64_t sbc_bytes_to_blocks(const struct scsi_lu *lu, uint64_t bytes)
{
	return bytes >> lu->block_shift;
}

size_t sbc_first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i = 0;

	/* whole words first, then the differing word byte by byte */
	while (i + 8 <= len && !memcmp(a + i, b + i, 8))
		i += 8;
	while (i < len && a[i] == b[i])
		i++;
	return i;
}

bool sbc_all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && !memcmp(p, p + 1, len - 1));
}

/* ---- READ / WRITE (SBC-4 5.12-5.16, 5.38-5.42) ---- */

enum sense_reason sbc_pi_protect(struct scsi_cmd *cmd, uint8_t protect, unsigned protect_byte)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	bool type2 = lu_pi_type(lu) == T10PI_TYPE2;

	/* SBC-4 5.13, 5.40, 5.33 (READ(10), WRITE(10), VERIFY(10); the same
	 * for 12 and 16): with type 2 protection the tuples travel only with
	 * the 32-byte CDBs, which carry the expected tags; a PROTECT field
	 * other than 000b in a shorter CDB is INVALID COMMAND OPERATION CODE */
	if (protect && type2 && !p->pi_tags)
		return SENSE_INVALID_OPCODE;
	/* SBC-4 4.22, 5.x: without protection information only 000b
	 * (pi_protect_checks) */
	if (!pi_protect_checks(lu_pi_type(lu), protect, &p->pi))
		return cdb_invalid_field(cmd, protect_byte, 7);
	/* type 2: a reference tag is expected only by a 32-byte CDB (its
	 * EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG); the stored one is the
	 * application client's choice, so a shorter CDB checks the guard */
	if (type2 && !p->pi_tags)
		p->pi.ref = false;
	/* SBC-4 RDPROTECT / VRPROTECT 000b: the application tag is checked
	 * where the device server knows what to expect, which a 32-byte CDB
	 * tells it (ATO is 1 on these LUs: the mask applies) */
	if (p->pi_tags && protect == 0)
		p->pi.app = true;
	return SENSE_OK;
}

enum sense_reason sbc_rw_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t nblocks,
			       unsigned tl_byte, uint8_t io_flags, uint8_t protect,
			       unsigned protect_byte)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	bool write = p->desc->flags & CDB_F_WRITES;
	enum sense_reason r;

	r = sbc_pi_protect(cmd, protect, protect_byte);
	if (r != SENSE_OK)
		return r;

	/* VPD B0h MAXIMUM TRANSFER LENGTH */
	if (nblocks > sbc_max_xfer_blocks(lu))
		return cdb_invalid_field(cmd, tl_byte, -1);
	r = sbc_check_range(lu, lba, nblocks);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	p->nblocks = nblocks;
	p->io_flags = io_flags;
	p->data_len = nblocks * sbc_xfer_unit(p);
	p->data_dir = nblocks ? (write ? SCSI_DIR_WRITE : SCSI_DIR_READ) : SCSI_DIR_NONE;
	return SENSE_OK;
}

/* The 6- to 16-byte forms: RDPROTECT / WRPROTECT in byte 1 (6-byte CDBs
 * have none: byte 1 is LBA). */
static enum sense_reason rw_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t nblocks,
				  unsigned tl_byte, uint8_t io_flags)
{
	uint8_t protect = cmd->cdb_len > 6 ? cdb_protect(cmd->cdb) : 0;

	return sbc_rw_setup(cmd, lba, nblocks, tl_byte, io_flags, protect, CDB_DPO_FUA_BYTE);
}

/* READ(6) 08h / WRITE(6) 0Ah: 21-bit LBA; a TRANSFER LENGTH of 0 means
 * 256 blocks (SBC-4 5.12, 5.38); no DPO or FUA (byte 1 is LBA). */
enum sense_reason sbc_parse_rw6(struct scsi_cmd *cmd)
{
	uint32_t n = cdb6_transfer_length(cmd->cdb);

	return rw_setup(cmd, cdb6_lba(cmd->cdb), n ? n : 256, CDB6_LENGTH_BYTE, 0);
}

/* READ(10) 28h / WRITE(10) 2Ah: byte 1 RDPROTECT/WRPROTECT (refused by the
 * usage mask: no protection information), DPO, FUA; LBA 2-5; TL 7-8. */
enum sense_reason sbc_parse_rw10(struct scsi_cmd *cmd)
{
	return rw_setup(cmd, cdb10_lba(cmd->cdb), cdb10_transfer_length(cmd->cdb),
			CDB10_LENGTH_BYTE, sbc_io_flags(cmd->cdb));
}

/* READ(12) A8h / WRITE(12) AAh: LBA 2-5; TL 6-9. */
enum sense_reason sbc_parse_rw12(struct scsi_cmd *cmd)
{
	return rw_setup(cmd, cdb12_lba(cmd->cdb), cdb12_transfer_length(cmd->cdb),
			CDB12_LENGTH_BYTE, sbc_io_flags(cmd->cdb));
}

/* READ(16) 88h / WRITE(16) 8Ah: LBA 2-9; TL 10-13. */
enum sense_reason sbc_parse_rw16(struct scsi_cmd *cmd)
{
	return rw_setup(cmd, cdb16_lba(cmd->cdb), cdb16_transfer_length(cmd->cdb),
			CDB16_LENGTH_BYTE, sbc_io_flags(cmd->cdb));
}

/* Release of a READ whose data was lent (bs.h BS_IO_LEND): the fabric has
 * sent it, or dropped it. */
static void rw_lent_free(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	cmd->data_in_src = NULL;
	sbc_range_unlock(&p->range);
	order_lent_put(p->lu);
}

/* The data path of READ, WRITE and WRITE ATOMIC: one back-store request,
 * the command's embedded priv.io over cmd->buf, in the table's direction
 * (CDB_F_WRITES: BS_OP_WRITE, else BS_OP_READ), under an LBA range lock of
 * the blocks moved. A WRITE that must be durable and has no native FUA
 * is followed by a FLUSH on the same request (SBC_IOF_FLUSH). */
static void rw_done(struct bs_io *io, int err)
{
	struct scsi_cmd *cmd = container_of(io, struct scsi_cmd, priv.io);
	struct scsi_cmd_priv *p = &cmd->priv;
	bool write = p->desc->flags & CDB_F_WRITES;

	uint64_t bad_lba;
	enum sense_reason r;

	if (!err && (p->io_flags & SBC_IOF_FLUSH)) {
		/* FUA without BS_CAP_FUA: the data is written, make it durable */
		p->io_flags &= (uint8_t)~SBC_IOF_FLUSH;
		io->op = BS_OP_FLUSH;
		io->flags = 0;
		io->off = 0;
		io->len = 0;
		io->iov = NULL;
		io->iovcnt = 0;
		io->pi = NULL;
		io->done = rw_done;
		bs_submit(p->lu->bs, io);
		return;
	}
	if (!io->lent)
		sbc_range_unlock(&p->range);
	if (err) {
		scsi_cmd_complete_bs_error(cmd, err, io->bad_off, write);
		return;
	}
	/* the error counter log pages' TOTAL BYTES PROCESSED (log.c) */
	log_count_bytes(p->lu, write, io->len);
	if (!write) {
		uint32_t n = (uint32_t)(io->len >> p->lu->block_shift);

		r = sbc_pi_finish_read(cmd, n, &bad_lba);
		if (r != SENSE_OK) {
			if (io->lent) /* not with tuples (rw_submit): never */
				sbc_range_unlock(&p->range);
			scsi_cmd_complete_info(cmd, r, bad_lba);
			return;
		}
		cmd->data_in_len = n * sbc_xfer_unit(p);
		if (io->lent) {
			/* sent from where it lies: the range lock (COMPARE
			 * AND WRITE, WRITE ATOMIC) and the task set's order
			 * (ORDERED tasks) hold until it is (rw_lent_free) */
			cmd->data_in_src = io->lent;
			p->op_free = rw_lent_free;
			order_lent_get(p->lu);
		}
	}
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* The range lock is held: the blocks it covers go to or come from the
 * back-store. */
static void rw_submit(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct bs_io *io = &p->io;
	uint64_t len = (uint64_t)p->range.nblocks << lu->block_shift;
	uint64_t bad_lba;
	enum sense_reason r;
	bool flush;

	/* SBC-4 4.22: the tuples, checked before anything is written */
	r = sbc_pi_prepare(cmd, p->range.nblocks, &io->pi, &bad_lba);
	if (r != SENSE_OK) {
		sbc_range_unlock(&p->range);
		if (r == SENSE_BUSY)
			scsi_cmd_complete(cmd, r);
		else
			scsi_cmd_complete_info(cmd, r, bad_lba);
		return;
	}
	io->op = BS_OP_READ;
	io->flags = 0;
	if (p->desc->flags & CDB_F_WRITES) {
		io->op = BS_OP_WRITE;
		io->flags = sbc_fua_flags(lu, sbc_write_durable(lu, p->io_flags), &flush);
		if (flush)
			p->io_flags |= SBC_IOF_FLUSH;
	}
	io->off = p->lba << lu->block_shift;
	io->len = len;
	p->iov[0].iov_base = cmd->buf;
	p->iov[0].iov_len = len;
	io->iov = p->iov;
	io->iovcnt = 1;
	io->lent = NULL;
	/* a SIMPLE READ without protection information may take its data
	 * lent, when the fabric sends it as one copy (scsi.h lend_ok) */
	if (io->op == BS_OP_READ && cmd->lend_ok && p->order_kind == ORDER_KIND_SIMPLE && !io->pi &&
	    !p->op_free)
		io->flags |= BS_IO_LEND;
	io->done = rw_done;
	sbc_rod_note_write(lu, io);
	bs_submit(lu->bs, io);
}

static void rw_granted(struct scsi_range_lock *rl)
{
	rw_submit(container_of(rl, struct scsi_cmd, priv.range));
}

/* READ and WRITE (6/10/12/16), WRITE ATOMIC (16). READ: the blocks parse
 * decoded (trimmed by the core to the Expected Data Transfer Length);
 * WRITE: the whole blocks received. Under a shared range lock, or an
 * exclusive one for WRITE ATOMIC. */
void sbc_exec_rw(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	bool write = p->desc->flags & CDB_F_WRITES;
	bool excl = p->io_flags & SBC_IOF_ATOMIC;
	uint32_t n = write ? sbc_blocks_received(cmd) : p->nblocks;

	/* SBC-4 5.13, 5.39: a TRANSFER LENGTH of zero is not an error; with a
	 * shorter Expected Data Transfer Length only the whole blocks
	 * received are written (libiscsi Write10Residuals) */
	if (n == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	/* the buffer holds every block moved (cmd.c: setup_transfer) */
	if ((uint64_t)n * sbc_xfer_unit(p) > p->buf_len) {
		scsi_cmd_complete(cmd, SENSE_INTERNAL_TARGET_FAILURE);
		return;
	}
	sbc_range_init(&p->range, cmd->reactor, rw_granted);
	if (sbc_range_lock(p->lu, &p->range, p->lba, n, excl))
		rw_submit(cmd);
}

/* ---- WRITE ATOMIC (16) (SBC-4 5.48) ----
 * 9Ch: byte 1 WRPROTECT, DPO, FUA; LBA 2-9; bytes 10-11 ATOMIC BOUNDARY
 * (reserved by the usage mask: no boundaries, VPD B0h MAXIMUM ATOMIC
 * BOUNDARY SIZE 0); TL 12-13; GROUP NUMBER 14. Atomic against every other
 * command through an exclusive range lock and one back-store request: the
 * READ/WRITE path (sbc_exec_rw()) with SBC_IOF_ATOMIC. */
enum sense_reason sbc_parse_write_atomic16(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint64_t lba = cdb16_lba(cmd->cdb);
	uint32_t n = cdb_write_atomic_transfer_length(cmd->cdb);
	uint64_t max = UT_MAX(sbc_bytes_to_blocks(lu, SBC_MAX_ATOMIC_BYTES), 1);
	uint64_t align = UT_MAX(sbc_bytes_to_blocks(lu, SBC_ATOMIC_ALIGNMENT_BYTES), 1);
	uint64_t gran = UT_MAX(sbc_bytes_to_blocks(lu, SBC_ATOMIC_GRANULARITY_BYTES), 1);
	enum sense_reason r;

	/* the range first: libiscsi WriteAtomic16.BeyondEol expects LBA OUT
	 * OF RANGE for lengths above the atomic maximum too */
	r = sbc_check_range(lu, lba, n);
	if (r != SENSE_OK)
		return r;
	/* SBC-4 5.48: INVALID FIELD IN CDB beyond MAXIMUM ATOMIC TRANSFER
	 * LENGTH, or not a multiple of ATOMIC TRANSFER LENGTH GRANULARITY, or
	 * an LBA not a multiple of ATOMIC ALIGNMENT */
	if (n > max || n % gran)
		return cdb_invalid_field(cmd, WRITE_ATOMIC_LENGTH_BYTE, -1);
	if (lba % align)
		return cdb_invalid_field(cmd, CDB16_LBA_BYTE, -1);
	return rw_setup(cmd, lba, n, WRITE_ATOMIC_LENGTH_BYTE,
			sbc_io_flags(cmd->cdb) | SBC_IOF_ATOMIC);
}

/* ---- READ CAPACITY (SBC-4 5.20, 5.21) ---- */

/* Obsolete PMI/LBA: SBC-3 required the LBA to be zero when PMI is zero. */
static enum sense_reason rc_check_pmi(struct scsi_cmd *cmd, bool pmi, uint64_t lba,
				      unsigned lba_byte)
{
	if (!pmi && lba)
		return cdb_invalid_field(cmd, lba_byte, -1);
	return SENSE_OK;
}

enum sense_reason sbc_parse_read_capacity10(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, 8, 8);
	return rc_check_pmi(cmd, cdb_read_capacity10_pmi(cmd->cdb), cdb10_lba(cmd->cdb),
			    CDB10_LBA_BYTE);
}

void sbc_exec_read_capacity10(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint64_t cap = lu_nblocks(lu);
	uint64_t last = cap ? cap - 1 : 0;
	uint8_t d[8];

	/* SBC-4 5.20.2: FFFFFFFFh when the last LBA does not fit (READ
	 * CAPACITY (16) is needed) */
	put_be32(d, last > 0xfffffffeull ? 0xffffffffu : (uint32_t)last);
	put_be32(d + 4, lu->block_size);
	scsi_cmd_set_data_in(cmd, d, sizeof(d));
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* SERVICE ACTION IN (16) 9Eh / 10h: LBA 2-9 (obsolete), ALLOCATION LENGTH
 * 10-13, PMI 14 (obsolete). An allocation length below 32 truncates the
 * data and is not an error (libiscsi ReadCapacity16.Alloclen). */
enum sense_reason sbc_parse_read_capacity16(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb), 32);
	return rc_check_pmi(cmd, cdb_read_capacity16_pmi(cmd->cdb), cdb16_lba(cmd->cdb),
			    CDB16_LBA_BYTE);
}

uint8_t sbc_lbppb_exponent(const struct scsi_lu *lu)
{
	uint32_t unit = lu->attrs.physical_block_size;
	uint8_t e = 0;

	if (unit <= lu->block_size || (unit & (unit - 1)) != 0)
		return 0;
	while (e < 15 && (lu->block_size << (e + 1)) <= unit)
		e++;
	return e;
}

void sbc_exec_read_capacity16(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint64_t cap = lu_nblocks(lu);
	uint8_t d[32];

	memset(d, 0, sizeof(d));
	put_be64(d, cap ? cap - 1 : 0);
	put_be32(d + 8, lu->block_size);
	/* byte 12: RC BASIS 01b (the LBA is the last of the LU); P_TYPE
	 * (type - 1) and PROT_EN when the medium is formatted with protection
	 * information */
	d[12] = 0x10;
	if (lu_pi_type(lu))
		d[12] |= (uint8_t)((lu_pi_type(lu) - 1) << 1 | 0x01);
	/* byte 13: P_I_EXPONENT 0; LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT:
	 * the configured physical block size, e.g. 3 for 512-byte logical blocks
	 * on 4 KiB physical blocks. */
	d[13] = sbc_lbppb_exponent(lu);
	/* byte 14: LBPME when thin provisioned; LBPRZ: a deallocated block
	 * reads as zeroes (BS_OP_DISCARD contract, or written zeroes when the
	 * back-store cannot deallocate). LOWEST ALIGNED LBA 0. */
	if (lu->attrs.thin)
		d[14] = 0x80 | 0x40;
	scsi_cmd_set_data_in(cmd, d, sizeof(d));
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- SYNCHRONIZE CACHE (SBC-4 5.26, 5.27) and PRE-FETCH (5.10, 5.11) ----
 * A NUMBER OF LOGICAL BLOCKS / PREFETCH LENGTH of zero means "to the last
 * LBA of the medium". */
static enum sense_reason range_to_end(struct scsi_cmd *cmd, uint64_t lba, uint32_t n)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint64_t cap = lu_nblocks(p->lu);
	uint64_t len = n;
	enum sense_reason r;

	if (n == 0)
		len = lba <= cap ? cap - lba : 1;
	r = sbc_check_range(p->lu, lba, len);
	if (r != SENSE_OK)
		return r;
	p->lba = lba;
	/* a to-the-end range of a huge LU is kept in the op, not nblocks */
	p->nblocks = (uint32_t)UT_MIN(len, UINT32_MAX);
	p->data_len = 0;
	p->data_dir = SCSI_DIR_NONE;
	return SENSE_OK;
}

/* SYNCHRONIZE CACHE (10) 35h / (16) 91h: byte 1 IMMED; LBA; NUMBER OF
 * LOGICAL BLOCKS in the TRANSFER LENGTH place. */
static enum sense_reason sync_cache_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n)
{
	if (cdb_sync_cache_immed(cmd->cdb))
		cmd->priv.io_flags |= CMD_IOF_IMMED;
	return range_to_end(cmd, lba, n);
}

enum sense_reason sbc_parse_sync_cache10(struct scsi_cmd *cmd)
{
	return sync_cache_setup(cmd, cdb10_lba(cmd->cdb), cdb10_length(cmd->cdb));
}

enum sense_reason sbc_parse_sync_cache16(struct scsi_cmd *cmd)
{
	return sync_cache_setup(cmd, cdb16_lba(cmd->cdb), cdb16_length(cmd->cdb));
}

/* SYNCHRONIZE CACHE with IMMED: the flush runs after GOOD was returned. */
struct bg_flush {
	struct bs_io io;
	struct scsi_lu *lu;
};

static void bg_flush_done(struct bs_io *io, int err)
{
	struct bg_flush *f = container_of(io, struct bg_flush, io);

	if (err)
		log_warn("%s: background SYNCHRONIZE CACHE failed: %d", scsi_lu_name(f->lu), err);
	scsi_lu_put(f->lu);
	free(f);
}

static void sync_done(struct bs_io *io, int err)
{
	struct scsi_cmd *cmd = container_of(io, struct scsi_cmd, priv.io);

	if (err) {
		scsi_cmd_complete_bs_error(cmd, err, io->bad_off, true);
		return;
	}
	scsi_cmd_complete(cmd, SENSE_OK);
}

void sbc_exec_sync_cache(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct bs_io *io = &p->io;

	/* without a volatile cache every completed write is on the medium */
	if (!(lu->bs->caps & BS_CAP_FLUSH)) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	/* SBC-4 5.26: IMMED=1 returns status once the CDB is validated */
	if (p->io_flags & CMD_IOF_IMMED) {
		struct bg_flush *f = calloc(1, sizeof(*f));

		if (f) {
			scsi_lu_get(lu);
			f->lu = lu;
			f->io.op = BS_OP_FLUSH;
			f->io.done = bg_flush_done;
			scsi_cmd_complete(cmd, SENSE_OK);
			bs_submit(lu->bs, &f->io);
			return;
		}
		/* no memory: flush before answering instead */
	}
	memset(io, 0, offsetof(struct bs_io, priv));
	io->op = BS_OP_FLUSH;
	io->done = sync_done;
	bs_submit(lu->bs, io);
}

/* SBC-4 5.10: a PREFETCH LENGTH beyond MAXIMUM PREFETCH LENGTH (VPD B0h,
 * SCSI_MAX_XFER_BYTES) is refused */
static enum sense_reason prefetch_setup(struct scsi_cmd *cmd, uint64_t lba, uint32_t n,
					unsigned len_byte)
{
	if (n > sbc_max_xfer_blocks(cmd->priv.lu))
		return cdb_invalid_field(cmd, len_byte, -1);
	if (cdb_prefetch_immed(cmd->cdb))
		cmd->priv.io_flags |= CMD_IOF_IMMED;
	return range_to_end(cmd, lba, n);
}

/* PRE-FETCH (10) 34h / (16) 90h: byte 1 IMMED; LBA; PREFETCH LENGTH in the
 * TRANSFER LENGTH place. */
enum sense_reason sbc_parse_prefetch10(struct scsi_cmd *cmd)
{
	return prefetch_setup(cmd, cdb10_lba(cmd->cdb), cdb10_length(cmd->cdb), CDB10_LENGTH_BYTE);
}

enum sense_reason sbc_parse_prefetch16(struct scsi_cmd *cmd)
{
	return prefetch_setup(cmd, cdb16_lba(cmd->cdb), cdb16_length(cmd->cdb), CDB16_LENGTH_BYTE);
}

struct prefetch_op {
	struct sbc_op op;
	uint64_t lba, end; /* blocks still to read: [lba, end) */
	uint8_t *buf;
	uint32_t buf_len;
	bool reading;
};

static void prefetch_free(struct scsi_cmd *cmd)
{
	struct prefetch_op *po = cmd->priv.op;

	buf_free(po->buf, po->buf_len);
	free(po);
}

static enum sbc_step prefetch_step(struct sbc_op *op)
{
	struct prefetch_op *po = container_of(op, struct prefetch_op, op);
	struct scsi_lu *lu = op->lu;
	uint64_t n;

	if (po->reading) {
		if (op->err)
			return sbc_op_bs_error(op, false);
		po->reading = false;
	}
	if (po->lba == po->end)
		return sbc_op_finish(op, SENSE_CONDITION_MET, NULL);
	n = UT_MIN(po->end - po->lba, (uint64_t)(po->buf_len >> lu->block_shift));
	sbc_op_io(op, BS_OP_READ, po->lba << lu->block_shift, n << lu->block_shift, po->buf, 0);
	po->lba += n;
	po->reading = true;
	return SBC_STEP_IO;
}

/* SBC-4 5.10: CONDITION MET when the cache can hold every requested block
 * (IMMED=0: once they are there), GOOD when it cannot. The "cache" holds
 * MAXIMUM PREFETCH LENGTH blocks: a range up to that is read through the
 * back-store, which warms its own cache (the page cache of a file), and
 * answered CONDITION MET; IMMED=1 answers at once. Only a PREFETCH LENGTH of
 * zero (to the end of the medium) can be longer: GOOD, nothing read. */
void sbc_exec_prefetch(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	/* parse made a PREFETCH LENGTH of zero the blocks to the end of the
	 * medium (range_to_end(), at most UINT32_MAX: beyond the maximum
	 * either way) */
	uint64_t n = p->nblocks;
	struct prefetch_op *po;
	uint32_t len;

	if (n > sbc_max_xfer_blocks(lu)) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (n == 0 || (p->io_flags & CMD_IOF_IMMED)) {
		scsi_cmd_complete(cmd, SENSE_CONDITION_MET);
		return;
	}
	len = (uint32_t)UT_MIN(n << lu->block_shift, (uint64_t)SBC_CHUNK_BYTES);
	po = calloc(1, sizeof(*po));
	if (po)
		po->buf = buf_alloc(len);
	if (!po || !po->buf) {
		free(po);
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	po->buf_len = len;
	po->lba = p->lba;
	po->end = p->lba + n;
	p->op = po;
	p->op_free = prefetch_free;
	sbc_op_init(&po->op, cmd, cmd->reactor, prefetch_step);
	sbc_op_run(&po->op);
}
