/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rod.c: offloaded data transfer with ROD tokens (Windows ODX): POPULATE
 * TOKEN (SBC-4 5.11), WRITE USING TOKEN (SBC-4 5.53), RECEIVE ROD TOKEN
 * INFORMATION (SBC-4 5.20) of both, the block device zero ROD token. Their
 * results also answer RECEIVE COPY STATUS(LID4) and RECEIVE COPY
 * DATA(LID4) (copy_status.c, rod_copy_status()), which share one list
 * identifier space per I_T nexus with EXTENDED COPY (xcopy.c): a result
 * recorded here discards an EXTENDED COPY's of the same list identifier
 * and the other way round (SPC-4 6.24).
 *
 * Tokens. POPULATE TOKEN makes a 512-byte ROD token (SPC-4 5.16.6.1,
 * ROD token format) that represents the listed ranges of the LU it is sent
 * to: ROD TYPE (00800000h "point in time copy - default", or 00800001h
 * "change vulnerable" when asked for), the COPY MANAGER ROD TOKEN
 * IDENTIFIER (a counter), the creator LU as an E4h target descriptor (its
 * NAA designator, the one nexus_resolve_designator() resolves), NUMBER OF
 * BYTES REPRESENTED, the block length, the target device name, and 256
 * bytes from getrandom(2): a token cannot be guessed, only received through
 * RECEIVE ROD TOKEN INFORMATION by the I_T nexus that made it. Nothing is
 * copied at POPULATE TOKEN: the token names the live blocks.
 *
 * Registry. One process-wide table (rod.lock) of the live tokens, each
 * bound to the SCSI target and LU that made it, capped per target
 * (ROD_MAX_TOKENS_PER_TARGET tokens, ROD_MAX_RANGES_PER_TARGET ranges;
 * beyond them POPULATE TOKEN is COPY ABORTED / INSUFFICIENT RESOURCES TO
 * CREATE ROD TOKEN, after cancelled and expired tokens made room). A token
 * not used for its INACTIVITY TIMEOUT (VPD 8Fh limits) expires: the next
 * use is TOKEN EXPIRED and the token is gone. Results for RECEIVE ROD
 * TOKEN INFORMATION are kept per (target, I_T nexus, LIST IDENTIFIER),
 * ROD_RESULTS_PER_TARGET per target, the oldest replaced.
 *
 * Use. WRITE USING TOKEN looks the token up among the tokens of the target
 * it is sent to (another target's token is TOKEN UNKNOWN) and compares all
 * 512 bytes in constant time. Any I_T nexus of the target may use it --
 * that is ODX's point: the copy is made by the target between two paths --
 * but only if the token's LU is in that nexus' own LUN map, resolved like
 * an EXTENDED COPY target descriptor (nexus_resolve_designator(); else
 * COPY TARGET DEVICE NOT REACHABLE, CVE-2020-28374), and every chunk is
 * read and written as the requester's own READ(16) / WRITE(16)
 * (sbc_copy_access(), xcopy.c: ALUA, SPC-2 and persistent reservations,
 * write protection). The zero token (ROD TYPE FFFF0001h) writes zeroes.
 *
 * Invalidation (point in time, change vulnerable): a write to a range a
 * token represents cancels it; its next use is TOKEN CANCELLED. Every
 * request that changes the medium reaches the back-store through
 * rw_submit() or sbc_op_run() (sbc.c: WRITE*, WRITE SAME, UNMAP, COMPARE
 * AND WRITE, ORWRITE, SANITIZE, EXTENDED COPY, WRITE USING TOKEN), which
 * call sbc_rod_note_write(): one relaxed load of lu->sbc->rod_watch (the
 * LU's live uncancelled tokens) and nothing else while it is 0; otherwise
 * rod_note_write() takes rod.lock and cancels the LU's tokens whose ranges
 * overlap. The note is made when the write is submitted, before the data
 * changes; WRITE USING TOKEN checks the token after each read completes,
 * so data read while a write was in flight is never written out under a
 * valid token. A write in flight while POPULATE TOKEN runs is concurrent
 * with it (SAM-5: no order between them). A per-LU write generation
 * alone would need no registry lock on a write, but would cancel every
 * token of the LU on any write; the count keeps a write to an LU without
 * tokens at one load and cancels only the tokens a write touches.
 *
 * Outcomes (COPY ABORTED unless said): unknown token, another target's,
 * or bytes that do not match 23/04 TOKEN UNKNOWN; ROD type not supported
 * 23/01; ROD TOKEN LENGTH not 01F8h 23/05 TOKEN CORRUPT; inactive too long
 * 23/07 TOKEN EXPIRED (then gone); written to, or its LU shrank below it,
 * 23/08 TOKEN CANCELLED; its LU not in the requester's LUN map 0D/02; a
 * reservation conflict on either side 0D/01; the table full 55/0D. A
 * token shorter than the destination ranges fills what it can: GOOD, and
 * RECEIVE ROD TOKEN INFORMATION reports 03h (completed with residual) and
 * the blocks written. IMMED is accepted; status follows the work either
 * way. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/bufpool.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/list.h"
#include "lib/reactor.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/rod.h"
#include "scsi/sbc_internal.h"
#include "scsi/spc.h"

#define ROD_TOKEN_LEN	  512
#define ROD_PT_HDR	  16  /* POPULATE TOKEN parameter list header */
#define ROD_WUT_HDR	  536 /* WRITE USING TOKEN header, token included */
#define ROD_RANGE_LEN	  16  /* block device range descriptor */
#define ROD_RANDOM_OFF	  256 /* the random part of a token: bytes 256-511 */
#define ROD_TARGET_OFF	  128 /* target device designator: bytes 128-255 */
#define ROD_CSCD_OFF	  16  /* creator LU, E4h target descriptor: bytes 16-47 */
#define ROD_DESIG_LEN	  20  /* NAA 6h designation descriptor */
#define ROD_RRTI_HDR	  32  /* RECEIVE ROD TOKEN INFORMATION, before the sense */
#define ROD_COPY_CHUNK_SZ SBC_CHUNK_BYTES

/* SERVICE ACTION of the results (RESPONSE TO SERVICE ACTION) */
enum { ROD_SA_POPULATE = 0x10, ROD_SA_WRITE = 0x11 };
/* COPY OPERATION STATUS (SPC-4 6.19.3 table 121) */
enum { ROD_ST_GOOD = 0x01, ROD_ST_ERROR = 0x02, ROD_ST_RESIDUAL = 0x03 };

struct rod_range {
	uint64_t lba;
	uint32_t n;
};

struct rod_token {
	struct list_node node; /* rod.tokens */
	const struct scsi_target *target;
	struct scsi_lu *lu; /* reference */
	uint64_t id;	    /* COPY MANAGER ROD TOKEN IDENTIFIER */
	uint8_t bytes[ROD_TOKEN_LEN];
	struct rod_range *r;
	unsigned nr;
	uint64_t blocks;
	uint64_t timeout_ns;
	uint64_t last_ns; /* made or last used */
	unsigned refs;	  /* the table's (until removed) and each use's */
	bool cancelled;	  /* a write hit it */
	bool watched;	  /* counted in lu->sbc->rod_watch */
	bool removed;	  /* out of the table */
};

struct rod_result {
	struct list_node node; /* rod.results */
	const struct scsi_target *target;
	char *port; /* initiator port of the I_T nexus */
	uint16_t rel_port;
	uint32_t list_id;
	uint8_t sa;
	uint8_t status;
	uint8_t scsi_status;
	uint64_t blocks; /* transferred (WRITE) or represented (POPULATE) */
	uint64_t seq;
	bool has_token;
	uint8_t token[ROD_TOKEN_LEN];
};

static struct {
	pthread_mutex_t lock;
	struct list_node tokens;
	struct list_node results;
	uint64_t next_id;
	uint64_t seq;
} rod = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .tokens = LIST_INIT(rod.tokens),
    .results = LIST_INIT(rod.results),
};

static const struct scsi_target *cmd_target(const struct scsi_cmd *cmd)
{
	return cmd->nexus->tport->target;
}

static bool ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

/* ---- the registry (rod.lock) ---- */

static void token_unwatch_locked(struct rod_token *t)
{
	if (t->watched) {
		atomic_fetch_sub_explicit(&t->lu->sbc->rod_watch, 1, memory_order_relaxed);
		t->watched = false;
	}
}

static void token_put_locked(struct rod_token *t)
{
	if (--t->refs)
		return;
	scsi_lu_put(t->lu);
	free(t->r);
	free(t);
}

static void token_remove_locked(struct rod_token *t)
{
	if (t->removed)
		return;
	t->removed = true;
	token_unwatch_locked(t);
	list_del(&t->node);
	token_put_locked(t);
}

static bool token_expired(const struct rod_token *t, uint64_t now)
{
	return t->refs == 1 && now - t->last_ns > t->timeout_ns;
}

void rod_note_write(struct scsi_lu *lu, uint64_t off, uint64_t len)
{
	uint64_t lba = off >> lu->block_shift;
	uint64_t n = (len + lu->block_size - 1) >> lu->block_shift;
	uint64_t now = reactor_now_ns();
	struct rod_token *t, *tn;

	pthread_mutex_lock(&rod.lock);
	list_for_each_entry_safe(t, tn, &rod.tokens, node)
	{
		if (t->lu != lu || t->cancelled)
			continue;
		/* an expired token stops costing this LU's writes */
		if (token_expired(t, now)) {
			token_remove_locked(t);
			continue;
		}
		for (unsigned i = 0; i < t->nr; i++) {
			if (ranges_overlap(lba, n, t->r[i].lba, t->r[i].n)) {
				t->cancelled = true;
				token_unwatch_locked(t);
				break;
			}
		}
	}
	pthread_mutex_unlock(&rod.lock);
}

void rod_target_gone(const struct scsi_target *target)
{
	struct rod_token *t, *tn;
	struct rod_result *r, *rn;

	pthread_mutex_lock(&rod.lock);
	list_for_each_entry_safe(t, tn, &rod.tokens, node)
	{
		if (t->target == target)
			token_remove_locked(t);
	}
	list_for_each_entry_safe(r, rn, &rod.results, node)
	{
		if (r->target == target) {
			list_del(&r->node);
			free(r->port);
			free(r);
		}
	}
	pthread_mutex_unlock(&rod.lock);
}

/* Make room for a token of nr ranges on target: expired tokens go, then
 * cancelled ones, oldest first. false: the caps still do not allow it. */
static bool token_room_locked(const struct scsi_target *target, unsigned nr, uint64_t now)
{
	struct rod_token *t, *tn;

	for (;;) {
		unsigned count = 0, ranges = 0;
		struct rod_token *victim = NULL;

		list_for_each_entry_safe(t, tn, &rod.tokens, node)
		{
			if (token_expired(t, now)) {
				token_remove_locked(t);
				continue;
			}
			if (t->target != target)
				continue;
			count++;
			ranges += t->nr;
			if (t->cancelled && t->refs == 1 && !victim)
				victim = t;
		}
		if (count < ROD_MAX_TOKENS_PER_TARGET && ranges + nr <= ROD_MAX_RANGES_PER_TARGET)
			return true;
		if (!victim)
			return false;
		token_remove_locked(victim);
	}
}

/* The result slot of (target, nexus, list id), else a new one (the oldest
 * of the target's replaced at the cap). NULL without memory. */
static struct rod_result *result_slot_locked(const struct scsi_cmd *cmd, uint32_t list_id)
{
	const struct scsi_target *target = cmd_target(cmd);
	const struct scsi_nexus *n = cmd->nexus;
	struct rod_result *r, *oldest = NULL;
	unsigned count = 0;

	list_for_each_entry(r, &rod.results, node)
	{
		if (r->target != target)
			continue;
		if (r->list_id == list_id && r->rel_port == n->tport->rel_port_id &&
		    !strcmp(r->port, n->port_name))
			return r;
		count++;
		if (!oldest || r->seq < oldest->seq)
			oldest = r;
	}
	if (count >= ROD_RESULTS_PER_TARGET) {
		list_del(&oldest->node);
		free(oldest->port);
		free(oldest);
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->port = strdup(n->port_name);
	if (!r->port) {
		free(r);
		return NULL;
	}
	r->target = target;
	r->rel_port = n->tport->rel_port_id;
	r->list_id = list_id;
	list_add_tail(&rod.results, &r->node);
	return r;
}

static void result_set_locked(const struct scsi_cmd *cmd, uint32_t list_id, uint8_t sa,
			      uint8_t status, uint8_t scsi_status, uint64_t blocks,
			      const uint8_t *token)
{
	struct rod_result *r = result_slot_locked(cmd, list_id);

	if (r) {
		r->sa = sa;
		r->status = status;
		r->scsi_status = scsi_status;
		r->blocks = blocks;
		r->seq = ++rod.seq;
		r->has_token = token != NULL;
		if (token)
			memcpy(r->token, token, ROD_TOKEN_LEN);
	}
}

static void result_set(const struct scsi_cmd *cmd, uint32_t list_id, uint8_t sa, uint8_t status,
		       uint8_t scsi_status, uint64_t blocks, const uint8_t *token)
{
	sbc_xcopy_forget(cmd->priv.lu, cmd->nexus, list_id);
	pthread_mutex_lock(&rod.lock);
	result_set_locked(cmd, list_id, sa, status, scsi_status, blocks, token);
	pthread_mutex_unlock(&rod.lock);
}

/* ---- parameter lists ---- */

/* CDB of POPULATE TOKEN / WRITE USING TOKEN: LIST IDENTIFIER 6-9, PARAMETER
 * LIST LENGTH 10-13. */
static uint32_t cdb_list_id(const uint8_t *cdb)
{
	return get_be32(cdb + 6);
}

static enum sense_reason rod_parse(struct scsi_cmd *cmd, uint32_t min, uint32_t max)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	uint32_t len = cdb16_param_list_len(cmd->cdb);

	/* zero transfers nothing and is not an error (as EXTENDED COPY) */
	if (len && (len < min || len > max))
		return cdb_invalid_field(cmd, 10, -1);
	p->data_len = len;
	p->data_dir = len ? SCSI_DIR_WRITE : SCSI_DIR_NONE;
	return SENSE_OK;
}

enum sense_reason sbc_parse_populate_token(struct scsi_cmd *cmd)
{
	return rod_parse(cmd, ROD_PT_HDR + ROD_RANGE_LEN,
			 ROD_PT_HDR + ROD_MAX_RANGES * ROD_RANGE_LEN);
}

enum sense_reason sbc_parse_write_using_token(struct scsi_cmd *cmd)
{
	return rod_parse(cmd, ROD_WUT_HDR, ROD_WUT_HDR + ROD_MAX_RANGES * ROD_RANGE_LEN);
}

/* Block device range descriptors at b + off, RANGE DESCRIPTOR LENGTH at
 * b + len_off (SBC-4 5.11.3): a whole number of descriptors inside the
 * list, at most ROD_MAX_RANGES, inside lu's capacity, not overlapping;
 * zero-block descriptors are dropped. Fills r (ROD_MAX_RANGES), *nr and
 * *blocks. */
static enum sense_reason parse_ranges(struct scsi_cmd *cmd, struct scsi_lu *lu, unsigned len_off,
				      unsigned off, struct rod_range *r, unsigned *nr,
				      uint64_t *blocks)
{
	const uint8_t *b = cmd->buf;
	uint32_t len = cmd->priv.data_len;
	uint32_t rdl = get_be16(b + len_off);
	uint64_t total = 0;
	unsigned n = 0;

	if (rdl % ROD_RANGE_LEN || off + rdl > len || get_be16(b) + 2u < off + rdl)
		return param_invalid_field(cmd, len_off, -1);
	if (rdl / ROD_RANGE_LEN > ROD_MAX_RANGES)
		return SENSE_TOO_MANY_SEGMENT_DESCRIPTORS;
	for (unsigned i = 0; i < rdl / ROD_RANGE_LEN; i++) {
		const uint8_t *d = b + off + i * ROD_RANGE_LEN;
		uint64_t lba = get_be64(d);
		uint32_t cnt = get_be32(d + 8);
		enum sense_reason e;

		if (!cnt)
			continue;
		e = sbc_check_range(lu, lba, cnt);
		if (e != SENSE_OK)
			return e;
		for (unsigned j = 0; j < n; j++)
			if (ranges_overlap(lba, cnt, r[j].lba, r[j].n))
				return param_invalid_field(cmd, off + i * ROD_RANGE_LEN, -1);
		r[n++] = (struct rod_range){.lba = lba, .n = cnt};
		total += cnt;
	}
	if (total > ROD_MAX_TOKEN_BYTES >> lu->block_shift)
		return param_invalid_field(cmd, len_off, -1);
	*nr = n;
	*blocks = total;
	return SENSE_OK;
}

/* The NAA designation descriptor of the command's LU, as VPD 83h gives it
 * (and nexus_resolve_designator() matches it). */
static bool lu_naa_designator(struct scsi_cmd *cmd, uint8_t desig[ROD_DESIG_LEN])
{
	uint8_t *buf = malloc(VPD_MAX_LEN);
	bool found = false;
	int len;

	if (!buf)
		return false;
	len = vpd_page(cmd, 0x83, buf);
	for (int off = 4; len > 0 && off + 4 <= len;) {
		const uint8_t *d = buf + off;

		if ((d[1] & 0x30) == 0 && (d[1] & 0x0f) == 3 && d[3] == 16 && off + 20 <= len) {
			memcpy(desig, d, ROD_DESIG_LEN);
			found = true;
			break;
		}
		off += 4 + d[3];
	}
	free(buf);
	return found;
}

/* ---- POPULATE TOKEN ---- */

static enum sense_reason token_build(struct scsi_cmd *cmd, struct rod_token *t, uint32_t rod_type)
{
	struct scsi_lu *lu = cmd->priv.lu;
	const char *tname = cmd_target(cmd)->name;
	size_t nl = strlen(tname), dl = (nl + 1 + 3) & ~(size_t)3;
	uint8_t *b = t->bytes;
	size_t got = 0;

	memset(b, 0, ROD_TOKEN_LEN);
	put_be32(b, rod_type);
	put_be16(b + 6, ROD_TOKEN_LEN - 8); /* ROD TOKEN LENGTH 01F8h */
	put_be64(b + 8, t->id);
	/* CREATOR LOGICAL UNIT DESCRIPTOR: E4h target descriptor */
	b[ROD_CSCD_OFF] = 0xe4;
	b[ROD_CSCD_OFF + 1] = 0x00; /* LU ID TYPE 00b, direct access block device */
	if (!lu_naa_designator(cmd, b + ROD_CSCD_OFF + 4))
		return SENSE_TOKEN_INSUFFICIENT_RESOURCES;
	put_be24(b + ROD_CSCD_OFF + 29, lu->block_size);
	/* NUMBER OF BYTES REPRESENTED (16 bytes) */
	put_be64(b + 56, t->blocks << lu->block_shift);
	/* device type specific: READ CAPACITY(16) data from LOGICAL BLOCK
	 * LENGTH IN BYTES on */
	put_be32(b + 96, lu->block_size);
	/* the target device name, as a SCSI name string designator */
	if (4 + dl <= ROD_RANDOM_OFF - ROD_TARGET_OFF) {
		b[ROD_TARGET_OFF] = 0x03;	     /* UTF-8 */
		b[ROD_TARGET_OFF + 1] = 0x20 | 0x08; /* target device, SCSI name string */
		b[ROD_TARGET_OFF + 3] = (uint8_t)dl;
		memcpy(b + ROD_TARGET_OFF + 4, tname, nl);
	}
	while (got < ROD_TOKEN_LEN - ROD_RANDOM_OFF) {
		ssize_t n =
		    getrandom(b + ROD_RANDOM_OFF + got, ROD_TOKEN_LEN - ROD_RANDOM_OFF - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return SENSE_TOKEN_INSUFFICIENT_RESOURCES;
		got += (size_t)n;
	}
	return SENSE_OK;
}

void sbc_exec_populate_token(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	const uint8_t *b = cmd->buf;
	struct rod_range r[ROD_MAX_RANGES];
	struct rod_token *t;
	uint32_t rod_type = ROD_TYPE_PIT_DEFAULT, timeout;
	uint64_t now = reactor_now_ns();
	enum sense_reason e;
	unsigned nr = 0;
	uint64_t blocks = 0;

	if (p->data_len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (cmd->write_len < p->data_len || get_be16(b) + 2u < ROD_PT_HDR) {
		scsi_cmd_complete(cmd, SENSE_PARAM_LIST_LENGTH_ERROR);
		return;
	}
	/* byte 2: RTV, IMMED (the token is made before status either way) */
	e = SENSE_OK;
	if (b[2] & ~0x03)
		e = param_invalid_field(cmd, 2, -1);
	timeout = get_be32(b + 4);
	if (e == SENSE_OK && timeout > ROD_MAX_INACTIVITY_S)
		e = param_invalid_field(cmd, 4, -1);
	if (e == SENSE_OK && (b[2] & 0x02)) {
		rod_type = get_be32(b + 8);
		if (rod_type != ROD_TYPE_PIT_DEFAULT && rod_type != ROD_TYPE_PIT_VULNERABLE)
			e = param_invalid_field(cmd, 8, -1);
	}
	if (e == SENSE_OK)
		e = parse_ranges(cmd, lu, 14, ROD_PT_HDR, r, &nr, &blocks);
	if (e != SENSE_OK) {
		scsi_cmd_complete_sx(cmd, e, &p->sx);
		return;
	}
	t = calloc(1, sizeof(*t));
	if (t && nr) {
		t->r = malloc(nr * sizeof(*t->r));
		if (!t->r) {
			free(t);
			t = NULL;
		}
	}
	if (!t) {
		scsi_cmd_complete(cmd, SENSE_TOKEN_INSUFFICIENT_RESOURCES);
		return;
	}
	if (nr)
		memcpy(t->r, r, nr * sizeof(*r));
	t->nr = nr;
	t->blocks = blocks;
	t->target = cmd_target(cmd);
	t->timeout_ns = (uint64_t)(timeout ? timeout : ROD_DEFAULT_INACTIVITY_S) * 1000000000ull;
	t->last_ns = now;
	t->refs = 1;
	pthread_mutex_lock(&rod.lock);
	t->id = ++rod.next_id;
	pthread_mutex_unlock(&rod.lock);
	e = token_build(cmd, t, rod_type);
	sbc_xcopy_forget(lu, cmd->nexus, cdb_list_id(cmd->cdb));
	pthread_mutex_lock(&rod.lock);
	if (e == SENSE_OK && !token_room_locked(t->target, nr, now))
		e = SENSE_TOKEN_INSUFFICIENT_RESOURCES;
	if (e == SENSE_OK) {
		scsi_lu_get(lu);
		t->lu = lu;
		t->watched = nr != 0;
		if (t->watched)
			atomic_fetch_add_explicit(&lu->sbc->rod_watch, 1, memory_order_relaxed);
		list_add_tail(&rod.tokens, &t->node);
		/* here: once the lock is dropped the token may go (cancelled
		 * and evicted, its target gone) */
		result_set_locked(cmd, cdb_list_id(cmd->cdb), ROD_SA_POPULATE, ROD_ST_GOOD, 0,
				  blocks, t->bytes);
	}
	pthread_mutex_unlock(&rod.lock);
	if (e != SENSE_OK) {
		free(t->r);
		free(t);
		scsi_cmd_complete(cmd, e);
		return;
	}
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- WRITE USING TOKEN ---- */

struct wut_seg {
	uint64_t src_lba, dst_lba;
	uint64_t n; /* blocks */
};

enum wut_state { WUT_NEXT = 0, WUT_SRC_LOCKED, WUT_READ, WUT_DST_LOCKED, WUT_WRITE, WUT_FLUSH };

struct wut_op {
	struct sbc_op op;
	enum wut_state state;
	struct rod_token *tok; /* NULL: the zero token */
	struct scsi_lu *src;   /* reference (NULL: the zero token) */
	struct lu_itn *src_itn;
	bool src_ro;
	struct wut_seg seg[2 * ROD_MAX_RANGES];
	unsigned nseg, cur;
	uint64_t done;	 /* blocks of the current segment written */
	uint32_t chunk;	 /* blocks of the current chunk */
	uint64_t total;	 /* blocks written */
	uint64_t wanted; /* blocks the destination ranges ask for */
	uint8_t *buf;
	uint32_t buf_len;
	uint8_t *pi;	 /* the source chunk's tuples (sbc_pi_copy_buf()) */
	size_t pi_len;	 /* bytes allocated at pi */
	uint8_t *tuples; /* pi while the token's LU keeps tuples, else NULL */
	uint32_t list_id;
	bool del_tkn;
	bool counted; /* in the destination's copies_running */
};

static void wut_free(struct scsi_cmd *cmd)
{
	struct wut_op *w = cmd->priv.op;
	struct scsi_lu *dst = cmd->priv.lu;

	if (w->counted) {
		pthread_mutex_lock(&dst->lock);
		dst->sbc->copies_running--;
		pthread_mutex_unlock(&dst->lock);
	}

	if (w->tok) {
		pthread_mutex_lock(&rod.lock);
		token_put_locked(w->tok);
		pthread_mutex_unlock(&rod.lock);
	}
	if (w->src)
		scsi_lu_put(w->src);
	if (w->buf)
		buf_free(w->buf, w->buf_len);
	free(w->pi);
	free(w);
}

static bool token_cancelled(struct wut_op *w)
{
	bool c;

	if (!w->tok)
		return false;
	pthread_mutex_lock(&rod.lock);
	c = w->tok->cancelled;
	pthread_mutex_unlock(&rod.lock);
	return c;
}

static enum sbc_step wut_finish(struct wut_op *w, enum sense_reason r)
{
	struct scsi_cmd *cmd = w->op.cmd;
	uint8_t st =
	    r != SENSE_OK ? ROD_ST_ERROR : (w->total < w->wanted ? ROD_ST_RESIDUAL : ROD_ST_GOOD);

	if (r == SENSE_OK && w->del_tkn && w->tok) {
		pthread_mutex_lock(&rod.lock);
		token_remove_locked(w->tok);
		pthread_mutex_unlock(&rod.lock);
	}
	result_set(cmd, w->list_id, ROD_SA_WRITE, st, r == SENSE_OK ? 0x00 : 0x02, w->total, NULL);
	return sbc_op_finish(&w->op, r, NULL);
}

/* A write error of the destination: the back-store's sense, as WRITE's */
static enum sbc_step wut_bs_error(struct wut_op *w)
{
	result_set(w->op.cmd, w->list_id, ROD_SA_WRITE, ROD_ST_ERROR, 0x02, w->total, NULL);
	return sbc_op_bs_error(&w->op, true);
}

static enum sbc_step wut_step(struct sbc_op *op)
{
	struct wut_op *w = container_of(op, struct wut_op, op);
	struct scsi_cmd *cmd = op->cmd;
	struct scsi_lu *dst = cmd->priv.lu;
	uint32_t sh = dst->block_shift;
	struct wut_seg *s;
	enum sense_reason r;

	for (;;) {
		if (w->cur == w->nseg)
			return wut_finish(w, SENSE_OK);
		s = &w->seg[w->cur];
		switch (w->state) {
		case WUT_NEXT:
			if (w->done == s->n) {
				w->cur++;
				w->done = 0;
				continue;
			}
			w->chunk = (uint32_t)UT_MIN(s->n - w->done, (uint64_t)(w->buf_len >> sh));
			if (!w->src) {
				/* the zero token: nothing to read */
				w->state = WUT_READ;
				continue;
			}
			r = sbc_copy_access(cmd, w->src, w->src_itn, w->src_ro, false);
			if (r == SENSE_OK && token_cancelled(w))
				r = SENSE_TOKEN_CANCELLED;
			if (r != SENSE_OK)
				return wut_finish(w, r);
			w->state = WUT_SRC_LOCKED;
			if (!sbc_range_lock(w->src, &op->rl, s->src_lba + w->done, w->chunk, false))
				return SBC_STEP_WAIT;
			continue;
		case WUT_SRC_LOCKED: {
			bool nomem;

			/* a source with protection information is read with
			 * its tuples, checked below (sbc_pi_copy_source()) */
			w->tuples = sbc_pi_copy_buf(w->src, w->chunk, &w->pi, &w->pi_len, &nomem);
			if (nomem)
				return wut_finish(w, SENSE_ABORTED_INSUFFICIENT_RESOURCES);
			op->lu = w->src;
			sbc_op_io(op, BS_OP_READ, (s->src_lba + w->done) << sh,
				  (uint64_t)w->chunk << sh, w->buf, 0);
			op->io.pi = w->tuples;
			w->state = WUT_READ;
			return SBC_STEP_IO;
		}
		case WUT_READ:
			if (w->src) {
				uint64_t bad;

				sbc_range_unlock(&op->rl);
				if (op->err)
					return wut_finish(w,
							  SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE);
				/* WRITE USING TOKEN (SBC-4): an error reading
				 * the ROD ends the copy (COPY ABORTED); a source
				 * block failing its RDPROTECT 000b check is one,
				 * reported before this chunk is written */
				r = sbc_pi_copy_source(w->src, s->src_lba + w->done, w->buf,
						       w->tuples, w->chunk, &bad);
				if (r != SENSE_OK)
					return wut_finish(w, r);
				/* what was read is the point in time only if no
				 * write to the token's ranges was submitted */
				if (token_cancelled(w))
					return wut_finish(w, SENSE_TOKEN_CANCELLED);
			}
			r = sbc_copy_access(cmd, dst, cmd->priv.itn, cmd->priv.map_read_only, true);
			if (r != SENSE_OK)
				return wut_finish(w, r);
			w->state = WUT_DST_LOCKED;
			if (!sbc_range_lock(dst, &op->rl, s->dst_lba + w->done, w->chunk, false))
				return SBC_STEP_WAIT;
			continue;
		case WUT_DST_LOCKED:
			op->lu = dst;
			sbc_op_io(op, BS_OP_WRITE, (s->dst_lba + w->done) << sh,
				  (uint64_t)w->chunk << sh,
				  w->src ? w->buf : (void *)sbc_zero_chunk(), 0);
			w->state = WUT_WRITE;
			return SBC_STEP_IO;
		case WUT_WRITE:
			sbc_range_unlock(&op->rl);
			if (op->err)
				return wut_bs_error(w);
			w->done += w->chunk;
			w->total += w->chunk;
			w->state = WUT_NEXT;
			if (w->cur + 1 == w->nseg && w->done == s->n && sbc_write_durable(dst, 0) &&
			    (dst->bs->caps & BS_CAP_FLUSH)) {
				op->lu = dst;
				sbc_op_io(op, BS_OP_FLUSH, 0, 0, NULL, 0);
				w->state = WUT_FLUSH;
				return SBC_STEP_IO;
			}
			continue;
		case WUT_FLUSH:
			if (op->err)
				return wut_bs_error(w);
			w->state = WUT_NEXT;
			continue;
		}
	}
}

/* Every range of t is still inside its LU (which may have been resized).
 * The ranges do not change after POPULATE TOKEN: no lock. */
static bool token_in_capacity(const struct rod_token *t)
{
	for (unsigned i = 0; i < t->nr; i++)
		if (sbc_check_range(t->lu, t->r[i].lba, t->r[i].n) != SENSE_OK)
			return false;
	return true;
}

/* Look the token up for the command's target: a reference on it, or the
 * sense of its state. */
static enum sense_reason token_find(struct scsi_cmd *cmd, const uint8_t *bytes,
				    struct rod_token **out)
{
	const struct scsi_target *target = cmd_target(cmd);
	uint64_t id = get_be64(bytes + 8), now = reactor_now_ns();
	enum sense_reason e = SENSE_TOKEN_UNKNOWN;
	struct rod_token *t;

	pthread_mutex_lock(&rod.lock);
	list_for_each_entry(t, &rod.tokens, node)
	{
		uint8_t diff = 0;

		if (t->id != id || t->target != target)
			continue;
		/* constant time: the random part is the secret */
		for (unsigned i = 0; i < ROD_TOKEN_LEN; i++)
			diff |= (uint8_t)(t->bytes[i] ^ bytes[i]);
		if (diff)
			break;
		if (token_expired(t, now)) {
			token_remove_locked(t);
			e = SENSE_TOKEN_EXPIRED;
		} else if (t->cancelled) {
			e = SENSE_TOKEN_CANCELLED;
		} else {
			t->refs++;
			t->last_ns = now;
			*out = t;
			e = SENSE_OK;
		}
		break;
	}
	pthread_mutex_unlock(&rod.lock);
	return e;
}

/* The segments: the ROD from OFFSET INTO ROD laid over the destination
 * ranges in order, as far as the ROD reaches. */
static void wut_segments(struct wut_op *w, const struct rod_range *dr, unsigned ndr,
			 uint64_t offset)
{
	const struct rod_token *t = w->tok;
	unsigned si = 0;
	uint64_t soff = offset; /* blocks into t->r[si] */

	/* skip whole source ranges */
	while (t && si < t->nr && soff >= t->r[si].n)
		soff -= t->r[si++].n;
	for (unsigned di = 0; di < ndr; di++) {
		uint64_t doff = 0;

		while (doff < dr[di].n) {
			uint64_t n = dr[di].n - doff;
			uint64_t src = 0;

			if (t) {
				if (si == t->nr)
					return; /* the ROD ends: residual */
				n = UT_MIN(n, t->r[si].n - soff);
				src = t->r[si].lba + soff;
			}
			w->seg[w->nseg++] =
			    (struct wut_seg){.src_lba = src, .dst_lba = dr[di].lba + doff, .n = n};
			doff += n;
			if (t) {
				soff += n;
				if (soff == t->r[si].n) {
					si++;
					soff = 0;
				}
			}
		}
	}
}

void sbc_exec_write_using_token(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *dst = p->lu;
	const uint8_t *b = cmd->buf;
	const uint8_t *tb = b + 16;
	struct rod_range dr[ROD_MAX_RANGES];
	unsigned ndr = 0;
	uint64_t dblocks = 0, offset;
	uint32_t type;
	struct wut_op *w;
	enum sense_reason e = SENSE_OK;

	if (p->data_len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (cmd->write_len < p->data_len || get_be16(b) + 2u < ROD_WUT_HDR) {
		scsi_cmd_complete(cmd, SENSE_PARAM_LIST_LENGTH_ERROR);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	p->op = w;
	p->op_free = wut_free;
	sbc_op_init(&w->op, cmd, cmd->reactor, wut_step);
	w->list_id = cdb_list_id(cmd->cdb);
	/* byte 2: DEL_TKN, IMMED (status follows the copy either way) */
	if (b[2] & ~0x03)
		e = param_invalid_field(cmd, 2, -1);
	w->del_tkn = b[2] & 0x02;
	offset = get_be64(b + 8);
	if (e == SENSE_OK)
		e = parse_ranges(cmd, dst, 534, ROD_WUT_HDR, dr, &ndr, &dblocks);
	type = get_be32(tb);
	if (e == SENSE_OK && type != ROD_TYPE_BLOCK_ZERO) {
		if (type != ROD_TYPE_PIT_DEFAULT && type != ROD_TYPE_PIT_VULNERABLE)
			e = SENSE_TOKEN_UNSUPPORTED_TYPE;
		else if (get_be16(tb + 6) != ROD_TOKEN_LEN - 8)
			e = SENSE_TOKEN_CORRUPT;
		else
			e = token_find(cmd, tb, &w->tok);
	}
	if (e == SENSE_OK && w->tok) {
		struct scsi_lu *src;
		int rc;

		/* the source LU as the requester's own LUN map shows it */
		rc = nexus_resolve_designator(cmd->nexus, w->tok->bytes + ROD_CSCD_OFF + 4,
					      ROD_DESIG_LEN, &src, &w->src_itn, &w->src_ro);
		if (rc == -ENOMEM) {
			e = SENSE_BUSY;
		} else if (rc) {
			e = SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
		} else {
			w->src = src;
			if (src != w->tok->lu)
				e = SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
			else if (src->block_size != dst->block_size)
				e = param_invalid_field(cmd, 16, -1);
			else if (offset >= w->tok->blocks && ndr)
				e = param_invalid_field(cmd, 8, -1);
			else if (!token_in_capacity(w->tok))
				e = SENSE_TOKEN_CANCELLED; /* the LU shrank */
			else if (medium_check(src, p->desc) != SENSE_OK ||
				 atomic_load(&src->sbc->san_state) != SBC_SAN_IDLE)
				e = SENSE_ABORTED_COPY_TARGET_UNREACHABLE;
		}
	}
	if (e == SENSE_OK && w->src)
		e = sbc_copy_access(cmd, w->src, w->src_itn, w->src_ro, false);
	if (e == SENSE_OK)
		e = sbc_copy_access(cmd, dst, p->itn, p->map_read_only, true);
	if (e != SENSE_OK) {
		result_set(cmd, w->list_id, ROD_SA_WRITE, ROD_ST_ERROR, 0x02, 0, NULL);
		scsi_cmd_complete_sx(cmd, e, &p->sx);
		return;
	}
	/* TOTAL CONCURRENT COPIES (VPD 8Fh): shared with EXTENDED COPY */
	pthread_mutex_lock(&dst->lock);
	w->counted = dst->sbc->copies_running < XCOPY_MAX_CONCURRENT;
	if (w->counted)
		dst->sbc->copies_running++;
	pthread_mutex_unlock(&dst->lock);
	if (!w->counted) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	wut_segments(w, dr, ndr, offset);
	w->wanted = dblocks;
	if (w->nseg) {
		w->buf_len = ROD_COPY_CHUNK_SZ;
		if (w->src) {
			w->buf = buf_alloc(w->buf_len);
			if (!w->buf) {
				scsi_cmd_complete(cmd, SENSE_BUSY);
				return;
			}
		}
	}
	w->state = WUT_NEXT;
	sbc_op_run(&w->op);
}

/* ---- RECEIVE ROD TOKEN INFORMATION ---- */

/* 84h / 07h: LIST IDENTIFIER 2-5, ALLOCATION LENGTH 10-13. */
enum sense_reason sbc_parse_rrti(struct scsi_cmd *cmd)
{
	sbc_data_in(cmd, cdb16_alloc_len(cmd->cdb), ROD_RRTI_HDR + 4 + 2 + ROD_TOKEN_LEN);
	return SENSE_OK;
}

static bool result_match(const struct rod_result *r, const struct scsi_cmd *cmd, uint32_t list_id)
{
	const struct scsi_nexus *n = cmd->nexus;

	return r->target == cmd_target(cmd) && r->list_id == list_id &&
	       r->rel_port == n->tport->rel_port_id && !strcmp(r->port, n->port_name);
}

/* A copy of the result of the I_T nexus' copy with list_id (port NULL). */
static bool result_find(const struct scsi_cmd *cmd, uint32_t list_id, struct rod_result *out)
{
	struct rod_result *r;
	bool found = false;

	pthread_mutex_lock(&rod.lock);
	list_for_each_entry(r, &rod.results, node)
	{
		if (result_match(r, cmd, list_id)) {
			*out = *r;
			out->port = NULL;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&rod.lock);
	return found;
}

void rod_forget(const struct scsi_cmd *cmd, uint32_t list_id)
{
	struct rod_result *r, *rn;

	pthread_mutex_lock(&rod.lock);
	list_for_each_entry_safe(r, rn, &rod.results, node)
	{
		if (result_match(r, cmd, list_id)) {
			list_del(&r->node);
			free(r->port);
			free(r);
		}
	}
	pthread_mutex_unlock(&rod.lock);
}

/* TRANSFER COUNT in logical blocks (F1h); no segments in this model. */
static void result_status(const struct rod_result *r, struct sbc_copy_status *st)
{
	memset(st, 0, sizeof(*st));
	st->sa = r->sa;
	st->status = r->status;
	st->scsi_status = r->scsi_status;
	st->units = 0xf1;
	st->count = r->blocks;
}

bool rod_copy_status(const struct scsi_cmd *cmd, uint32_t list_id, struct sbc_copy_status *st)
{
	struct rod_result res;

	if (!result_find(cmd, list_id, &res))
		return false;
	result_status(&res, st);
	return true;
}

/* SBC-4 5.20: the result of the I_T nexus' POPULATE TOKEN or WRITE USING
 * TOKEN with LIST IDENTIFIER; none: INVALID FIELD IN CDB. The status as
 * RECEIVE COPY STATUS(LID4) gives it, then the ROD token descriptors. */
void sbc_exec_rrti(struct scsi_cmd *cmd)
{
	uint8_t d[ROD_RRTI_HDR + SBC_COPY_SENSE_MAX + 4 + 2 + ROD_TOKEN_LEN];
	struct sbc_copy_status st;
	struct rod_result res;
	size_t len;

	if (!result_find(cmd, get_be32(cmd->cdb + 2), &res)) {
		scsi_cmd_complete_sx(cmd, cdb_invalid_field(cmd, 2, -1), &cmd->priv.sx);
		return;
	}
	result_status(&res, &st);
	len = sbc_copy_status_put(&st, d);
	/* ROD TOKEN DESCRIPTORS LENGTH; 2 reserved bytes, the token */
	memset(d + len, 0, sizeof(d) - len);
	if (res.has_token) {
		put_be32(d + len, 2 + ROD_TOKEN_LEN);
		memcpy(d + len + 4 + 2, res.token, ROD_TOKEN_LEN);
		len += 2 + ROD_TOKEN_LEN;
	}
	len += 4;
	put_be32(d, (uint32_t)len - 4); /* AVAILABLE DATA */
	scsi_cmd_set_data_in(cmd, d, len);
	scsi_cmd_complete(cmd, SENSE_OK);
}
