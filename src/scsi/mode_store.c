/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode_store.c: the saved values of the mode pages of a logical unit
 * (SPC-4 7.5.1, MODE SELECT SP=1), kept in a state file so that they
 * survive a restart; at start-up they become the current values.
 *
 * File: <state_dir>/mode-<NAA designator, 32 hex digits>.state
 *   0  "UTMP"                                 magic
 *   4  be32 format version (1)
 *   8  be32 payload length
 *  12  be32 CRC32C of bytes 0..11 and of the payload
 *  16  payload (mode_saved_encode(), mode.c): per saveable page its PAGE
 *      CODE, SUBPAGE CODE, be16 length and the bytes after its header
 * A file that is short, foreign, of another version, fails its checksum or
 * holds a page or a value MODE SELECT would refuse is rejected as a whole
 * (never half applied) and the LU is not created: saved values may write
 * protect it (SWP), so they are never dropped silently.
 *
 * Writing, as pr_store.c does: on a worker thread (src/lib/workq.h), a
 * temporary file beside the state file that nobody can have prepared,
 * write, fsync, rename, fsync of the directory (lib/atomic_file.h); the
 * MODE SELECT completes once that is done. One write per LU at a time
 * (MODE SELECT is a barrier of the task set). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/crc32c.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "lib/workq.h"
#include "scsi/core.h"

#define ST_MAGIC    "UTMP"
#define ST_VERSION  1u
#define ST_HDR	    16u
#define ST_MAX_FILE (ST_HDR + 4096u)

struct mode_store {
	struct scsi_lu *lu;
	char *path;
	bool busy; /* lu->lock */
	/* the write in flight */
	uint8_t img[ST_HDR + MODE_SAVED_MAX];
	size_t len;
	int err;
	void (*done)(void *arg, int err);
	void *arg;
	struct workq_item wq;
};

static uint32_t image_crc(const uint8_t *p, size_t len)
{
	return crc32c_final(
	    crc32c_update(crc32c_update(CRC32C_INIT, p, 12), p + ST_HDR, len - ST_HDR));
}

static void store_work(struct workq_item *w)
{
	struct mode_store *st = container_of(w, struct mode_store, wq);

	st->err = afile_write(st->path, st->img, st->len, 0600);
}

static void store_done(struct workq_item *w)
{
	struct mode_store *st = container_of(w, struct mode_store, wq);
	struct scsi_lu *lu = st->lu;
	void (*done)(void *arg, int err) = st->done;
	void *arg = st->arg;
	int err = st->err;

	if (err)
		log_err("lu %s: cannot write the saved mode pages %s: %s; the saved and current "
			"values stay as they were",
			lu->name, st->path, strerror(-err));
	pthread_mutex_lock(&lu->lock);
	st->busy = false;
	pthread_mutex_unlock(&lu->lock);
	done(arg, err);
	scsi_lu_put(lu);
}

bool mode_store_busy_locked(const struct mode_store *st)
{
	return st->busy;
}

int mode_store_write_locked(struct mode_store *st, const uint8_t *payload, size_t len,
			    void (*done)(void *arg, int err), void *arg)
{
	if (st->busy || len > MODE_SAVED_MAX)
		return -EBUSY;
	memcpy(st->img, ST_MAGIC, 4);
	put_be32(st->img + 4, ST_VERSION);
	put_be32(st->img + 8, (uint32_t)len);
	memcpy(st->img + ST_HDR, payload, len);
	st->len = ST_HDR + len;
	put_be32(st->img + 12, image_crc(st->img, st->len));
	st->done = done;
	st->arg = arg;
	st->busy = true;
	scsi_lu_get(st->lu); /* until the write is done */
	workq_submit(&st->wq);
	return 0;
}

void mode_store_free(struct mode_store *st)
{
	if (!st)
		return;
	free(st->path);
	free(st);
}

/* ---- set-up: scsi_lu_mode_store() ---- */

static int check_image(const uint8_t *p, size_t len, const char **why)
{
	*why = "truncated";
	if (len < ST_HDR)
		return -EBADMSG;
	if (memcmp(p, ST_MAGIC, 4)) {
		*why = "not a mode page state file";
		return -EBADMSG;
	}
	if (get_be32(p + 4) != ST_VERSION) {
		*why = "unknown format version";
		return -EBADMSG;
	}
	if (get_be32(p + 8) != len - ST_HDR) {
		*why = "length mismatch (torn or truncated)";
		return -EBADMSG;
	}
	if (image_crc(p, len) != get_be32(p + 12)) {
		*why = "checksum mismatch";
		return -EBADMSG;
	}
	return 0;
}

static int load_file(struct scsi_lu *lu, const char *path)
{
	const char *why = "";
	uint8_t *buf;
	size_t got;
	int rc;

	rc = afile_read(path, ST_MAX_FILE, &buf, &got);
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		log_err("lu %s: saved mode pages %s: %s", lu->name, path,
			rc == -EINVAL  ? "not a regular file"
			: rc == -EFBIG ? "too large"
				       : strerror(-rc));
		return rc;
	}
	rc = check_image(buf, got, &why);
	if (!rc) {
		pthread_mutex_lock(&lu->lock);
		rc = mode_saved_load_locked(lu, buf + ST_HDR, got - ST_HDR, &why);
		pthread_mutex_unlock(&lu->lock);
	}
	free(buf);
	if (rc) {
		log_err("lu %s: saved mode pages %s refused: %s; move it away to start with the "
			"default values",
			lu->name, path, why);
		return rc;
	}
	log_info("lu %s: saved mode pages loaded from %s", lu->name, path);
	return 0;
}

int scsi_lu_mode_store(struct scsi_lu *lu, const char *state_dir)
{
	struct mode_state *m = &lu->core->mode;
	struct mode_store *st;
	int rc;

	if (!state_dir || m->store)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lu = lu;
	st->wq.work = store_work;
	st->wq.done = store_done;
	st->path = lu_state_path(lu, state_dir, "mode");
	rc = st->path ? load_file(lu, st->path) : -ENOMEM;
	if (rc) {
		mode_store_free(st);
		return rc;
	}
	pthread_mutex_lock(&lu->lock);
	m->store = st;
	pthread_mutex_unlock(&lu->lock);
	return 0;
}
