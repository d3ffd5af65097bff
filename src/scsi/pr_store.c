/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_store.c: Activate Persist Through Power Loss (SPC-4 5.13.5, APTPL):
 * the registrations and the reservation of a logical unit in a state file,
 * written before the PERSISTENT RESERVE OUT that changed them completes.
 *
 * File: <state_dir>/pr-<NAA designator, 32 hex digits>.state
 *   0  "UTPR"                                 magic
 *   4  be32 format version (1)
 *   8  be32 payload length
 *  12  be32 CRC32C of bytes 0..11 and of the payload
 *  16  payload:
 *      0  u8 flags (bit 0: APTPL)   1  u8 TYPE (0: no reservation)
 *      2  be16 reserved             4  be32 PRGENERATION
 *      8  be32 holder index (FFFFFFFFh: none, or an all registrants type)
 *     12  be32 number of registrations, then per registration:
 *         be64 key, be16 relative target port, u8 flags (bit 0 ALL_TG_PT),
 *         u8 reserved, be16 TransportID length, the TransportID (7.6.4.6)
 * A file that is short, foreign, of another version, fails its checksum or
 * holds anything the wire would refuse is rejected as a whole: never half
 * applied. PRGENERATION restarts at 0 at power on (SPC-4 6.15.2).
 *
 * Writing (on a worker thread, src/lib/workq.h): a temporary file beside
 * the state file that nobody can have prepared (lib/atomic_file.h: a
 * random name, O_EXCL | O_NOFOLLOW, mode 0600 set on the descriptor),
 * write, fsync, rename over the state file, fsync of the directory;
 * turning APTPL off unlinks the file and fsyncs the directory. A crash
 * leaves the old or the new file, never a torn one. One write per LU
 * is in flight; changes made meanwhile are coalesced into the next write,
 * which snapshots the state when it starts (group commit), and every
 * waiting PERSISTENT RESERVE OUT completes once a write holding its change
 * is durable. When a write fails, the in-memory state returns to the last
 * durable one (the "pre-image": the state before the first change not yet
 * durable, replaced by each successful write's snapshot) and every waiting
 * command fails. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/crc32c.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "lib/workq.h"
#include "scsi/core.h"
#include "scsi/pr_priv.h"

#define ST_MAGIC       "UTPR"
#define ST_VERSION     1u
#define ST_HDR	       16u
#define ST_PAYLOAD_HDR 16u
#define ST_REG_HDR     14u
#define ST_NO_HOLDER   0xffffffffu
#define ST_MAX_FILE    (4u << 20)

struct pr_blob {
	uint8_t *data; /* a whole state file image */
	size_t len;
};

struct pr_store {
	struct scsi_lu *lu;
	char *path;
	/* lu->lock */
	uint64_t seq;		 /* changes queued so far */
	bool busy;		 /* a write is in flight */
	struct pr_blob inflight; /* the state being written */
	bool inflight_remove;	 /* APTPL off in it: remove the file instead */
	uint64_t inflight_seq;	 /* the newest change it holds */
	bool has_pre;		 /* the last durable state (rollback) */
	struct pr_blob pre;
	struct list_node waiters; /* struct pr_wait, oldest first */
	/* worker */
	struct workq_item wq;
	int wq_err;
};

static void blob_free(struct pr_blob *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* ---- encoding ---- */

static int serialize_locked(const struct pr_state *pr, struct pr_blob *out)
{
	uint8_t tid[TID_MAX_LEN], *p;
	const struct pr_reg *r;
	uint32_t holder = ST_NO_HOLDER, i = 0;
	size_t len = ST_HDR + ST_PAYLOAD_HDR, off;

	list_for_each_entry(r, &pr->regs, node)
	{
		len += ST_REG_HDR + tid_build(&r->port, tid, sizeof(tid));
		if (r == pr->holder)
			holder = i;
		i++;
	}
	p = calloc(1, len);
	if (!p)
		return -ENOMEM;
	memcpy(p, ST_MAGIC, 4);
	put_be32(p + 4, ST_VERSION);
	put_be32(p + 8, (uint32_t)(len - ST_HDR));
	off = ST_HDR;
	p[off] = pr->aptpl ? 0x01 : 0x00;
	p[off + 1] = pr->type;
	put_be32(p + off + 4, pr->generation);
	put_be32(p + off + 8, holder);
	put_be32(p + off + 12, pr->nregs);
	off += ST_PAYLOAD_HDR;
	list_for_each_entry(r, &pr->regs, node)
	{
		size_t tl = tid_build(&r->port, p + off + ST_REG_HDR, TID_MAX_LEN);

		put_be64(p + off, r->key);
		put_be16(p + off + 8, r->rel_port);
		p[off + 10] = r->all_tg_pt ? 0x01 : 0x00;
		put_be16(p + off + 12, (uint16_t)tl);
		off += ST_REG_HDR + tl;
	}
	put_be32(p + 12, crc32c_final(crc32c_update(crc32c_update(CRC32C_INIT, p, 12), p + ST_HDR,
						    len - ST_HDR)));
	out->data = p;
	out->len = len;
	return 0;
}

/* Decode and validate a whole file image into a fresh registration list;
 * pr is replaced only when everything checked out. *why names the first
 * problem. */
static int deserialize_locked(struct pr_state *pr, const uint8_t *p, size_t len, bool power_on,
			      const char **why)
{
	struct list_node regs;
	struct pr_reg *r, *tmp, *holder = NULL;
	uint32_t plen, n, hidx, gen;
	uint8_t flags, type;
	size_t off;
	int rc = -EBADMSG;

	list_init(&regs);
	*why = "truncated";
	if (len < ST_HDR + ST_PAYLOAD_HDR)
		return -EBADMSG;
	if (memcmp(p, ST_MAGIC, 4)) {
		*why = "not a persistent reservation state file";
		return -EBADMSG;
	}
	if (get_be32(p + 4) != ST_VERSION) {
		*why = "unknown format version";
		return -EBADMSG;
	}
	plen = get_be32(p + 8);
	if (plen != len - ST_HDR) {
		*why = "length mismatch (torn or truncated)";
		return -EBADMSG;
	}
	if (crc32c_final(crc32c_update(crc32c_update(CRC32C_INIT, p, 12), p + ST_HDR, plen)) !=
	    get_be32(p + 12)) {
		*why = "checksum mismatch";
		return -EBADMSG;
	}
	off = ST_HDR;
	flags = p[off];
	type = p[off + 1];
	gen = get_be32(p + off + 4);
	hidx = get_be32(p + off + 8);
	n = get_be32(p + off + 12);
	off += ST_PAYLOAD_HDR;
	*why = "invalid contents";
	if ((flags & ~0x01u) || (type != PR_TYPE_NONE && !pr_types[type].valid) || n > pr->max_regs)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		size_t tl, used, bad;
		struct tid_port port;

		if (len - off < ST_REG_HDR)
			goto bad;
		tl = get_be16(p + off + 12);
		if (tl > len - off - ST_REG_HDR || (p[off + 10] & ~0x01u) || !get_be64(p + off) ||
		    tid_parse(p + off + ST_REG_HDR, tl, &port, &used, &bad) || used != tl)
			goto bad;
		r = calloc(1, sizeof(*r));
		if (!r) {
			rc = -ENOMEM;
			goto bad;
		}
		r->key = get_be64(p + off);
		r->rel_port = get_be16(p + off + 8);
		r->all_tg_pt = p[off + 10] & 0x01;
		r->port = port;
		/* registrations never overlap */
		list_for_each_entry(tmp, &regs, node)
		{
			if ((tmp->all_tg_pt || r->all_tg_pt || tmp->rel_port == r->rel_port) &&
			    tid_overlap(&tmp->port, &r->port)) {
				free(r);
				goto bad;
			}
		}
		list_add_tail(&regs, &r->node);
		if (i == hidx)
			holder = r;
		off += ST_REG_HDR + tl;
	}
	if (off != len)
		goto bad;
	/* a single-holder type names its holder; all registrants ones none */
	if (type == PR_TYPE_NONE || pr_types[type].all_holders) {
		if (hidx != ST_NO_HOLDER || (type != PR_TYPE_NONE && !n))
			goto bad;
	} else if (!holder) {
		goto bad;
	}
	pr_reset_locked(pr);
	list_for_each_entry_safe(r, tmp, &regs, node)
	{
		list_del(&r->node);
		list_add_tail(&pr->regs, &r->node);
		pr->nregs++;
	}
	pr->type = type;
	pr->holder = holder;
	pr->aptpl = flags & 0x01;
	pr->generation = power_on ? 0 : gen;
	pr->version++;
	pr_set_active(pr);
	return 0;
bad:
	list_for_each_entry_safe(r, tmp, &regs, node)
	{
		list_del(&r->node);
		free(r);
	}
	return rc;
}

/* ---- the file ---- */

/* temp, write, fsync, rename, fsync(dir) (lib/atomic_file.h) -- or
 * unlink, fsync(dir) */
static int store_write(const struct pr_store *st, const struct pr_blob *b, bool remove)
{
	if (!remove)
		return afile_write(st->path, b->data, b->len, 0600);
	if (unlink(st->path) < 0 && errno != ENOENT)
		return -errno;
	return afile_sync_dir(st->path);
}

static void store_work(struct workq_item *w)
{
	struct pr_store *st = container_of(w, struct pr_store, wq);

	st->wq_err = store_write(st, &st->inflight, st->inflight_remove);
}

/* Snapshot the current state and write it (on a reactor thread). */
static int store_start_locked(struct pr_store *st)
{
	struct pr_state *pr = st->lu->core->pr;

	if (serialize_locked(pr, &st->inflight))
		return -ENOMEM;
	st->inflight_remove = !pr->aptpl;
	st->inflight_seq = st->seq;
	st->busy = true;
	scsi_lu_get(st->lu); /* until the write is done */
	workq_submit(&st->wq);
	return 0;
}

/* A write failed (lu->lock held): back to the last durable state; every
 * waiting command fails with err. */
static void store_fail_locked(struct pr_store *st, int err, struct list_node *done)
{
	struct scsi_lu *lu = st->lu;
	struct pr_wait *pw, *tmp;
	const char *why;

	log_err("lu %s: cannot write the persistent reservation state %s: %s; the reservation "
		"state returns to its last durable contents",
		lu->name, st->path, strerror(-err));
	if (st->has_pre && deserialize_locked(lu->core->pr, st->pre.data, st->pre.len, false, &why))
		log_err("lu %s: persistent reservation rollback failed (%s)", lu->name, why);
	list_for_each_entry_safe(pw, tmp, &st->waiters, node)
	{
		pw->err = err;
		list_del(&pw->node);
		list_add_tail(done, &pw->node);
	}
}

static void store_done(struct workq_item *w)
{
	struct pr_store *st = container_of(w, struct pr_store, wq);
	struct scsi_lu *lu = st->lu;
	struct list_node done;
	struct pr_wait *pw, *tmp;
	int err = st->wq_err;

	list_init(&done);
	pthread_mutex_lock(&lu->lock);
	st->busy = false;
	if (!err) {
		/* the written snapshot is the new rollback point */
		blob_free(&st->pre);
		st->pre = st->inflight;
		st->has_pre = true;
		st->inflight = (struct pr_blob){0};
		list_for_each_entry_safe(pw, tmp, &st->waiters, node)
		{
			if (pw->seq > st->inflight_seq)
				break;
			pw->err = 0;
			list_del(&pw->node);
			list_add_tail(&done, &pw->node);
		}
		/* changes made during the write: the next write holds them all */
		if (!list_empty(&st->waiters)) {
			err = store_start_locked(st);
			if (err)
				store_fail_locked(st, err, &done);
		}
	} else {
		blob_free(&st->inflight);
		store_fail_locked(st, err, &done);
	}
	if (!st->busy) {
		blob_free(&st->pre);
		st->has_pre = false;
	}
	pthread_mutex_unlock(&lu->lock);
	list_for_each_entry_safe(pw, tmp, &done, node)
	{
		list_del(&pw->node);
		pw->done(pw);
	}
	scsi_lu_put(lu);
}

bool pr_store_busy_locked(struct scsi_lu *lu)
{
	struct pr_store *st = lu->core->pr->store;

	return st && (st->busy || !list_empty(&st->waiters));
}

int pr_store_begin_locked(struct scsi_lu *lu)
{
	struct pr_store *st = lu->core->pr->store;

	if (st->has_pre)
		return 0;
	if (serialize_locked(lu->core->pr, &st->pre))
		return -ENOMEM;
	st->has_pre = true;
	return 0;
}

void pr_store_abandon_locked(struct scsi_lu *lu)
{
	struct pr_store *st = lu->core->pr->store;

	if (!st->busy && list_empty(&st->waiters)) {
		blob_free(&st->pre);
		st->has_pre = false;
	}
}

int pr_store_commit_locked(struct scsi_lu *lu, struct pr_wait *w)
{
	struct pr_store *st = lu->core->pr->store;

	w->seq = ++st->seq;
	w->err = 0;
	list_add_tail(&st->waiters, &w->node);
	/* with a write in flight, the next one (started when it ends) holds
	 * this change */
	if (!st->busy && store_start_locked(st)) {
		list_del(&w->node);
		st->seq--;
		return -ENOMEM;
	}
	return 0;
}

void pr_store_rollback_locked(struct scsi_lu *lu)
{
	struct pr_store *st = lu->core->pr->store;
	const char *why;

	if (st->has_pre && deserialize_locked(lu->core->pr, st->pre.data, st->pre.len, false, &why))
		log_err("lu %s: persistent reservation rollback failed (%s)", lu->name, why);
	pr_store_abandon_locked(lu);
}

void pr_store_free(struct pr_store *st)
{
	if (!st)
		return;
	blob_free(&st->inflight);
	blob_free(&st->pre);
	free(st->path);
	free(st);
}

/* ---- set-up: scsi_lu_pr_store() ---- */

static int load_file(struct scsi_lu *lu, const char *path)
{
	struct pr_state *pr = lu->core->pr;
	const char *why = "";
	uint8_t *buf;
	size_t got;
	int rc;

	rc = afile_read(path, ST_MAX_FILE, &buf, &got);
	if (rc == -ENOENT)
		return 0;
	if (rc == -EINVAL || rc == -EFBIG)
		log_err("lu %s: persistent reservation state %s: not a regular file of at most "
			"%u bytes",
			lu->name, path, ST_MAX_FILE);
	if (!rc) {
		pthread_mutex_lock(&lu->lock);
		rc = deserialize_locked(pr, buf, got, true, &why);
		pthread_mutex_unlock(&lu->lock);
		free(buf);
	}
	if (rc) {
		log_err("lu %s: persistent reservation state %s refused: %s; move it away to "
			"start without the saved reservations",
			lu->name, path, rc == -EBADMSG ? why : strerror(-rc));
		return rc;
	}
	if (pr->nregs)
		log_notice("lu %s: %u persistent reservation registration(s)%s%s restored from %s",
			   lu->name, pr->nregs, pr->type ? ", reservation " : "",
			   pr->type ? pr_types[pr->type].name : "", path);
	return 0;
}

int scsi_lu_pr_store(struct scsi_lu *lu, const char *state_dir)
{
	struct pr_state *pr = lu->core->pr;
	struct pr_store *st;
	int rc;

	if (!state_dir || pr->store)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lu = lu;
	list_init(&st->waiters);
	st->wq.work = store_work;
	st->wq.done = store_done;
	st->path = lu_state_path(lu, state_dir, "pr");
	rc = st->path ? load_file(lu, st->path) : -ENOMEM;
	if (rc) {
		pr_store_free(st);
		return rc;
	}
	pthread_mutex_lock(&lu->lock);
	pr->store = st;
	pthread_mutex_unlock(&lu->lock);
	return 0;
}
