/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi_format.c: the protection type a logical unit's medium is formatted
 * with (SBC-4 4.22.2, FORMAT UNIT FMTPINFO 5.3), kept in a state file so
 * that it outlives a restart: the tuples on the medium were written for
 * that type (type 3's reference tags belong to the application client), so
 * reading them as another type after a restart would fail checks that
 * passed before.
 *
 * File: <state_dir>/format-<NAA designator, 32 hex digits>.state
 *   0  "UTFM"     magic
 *   4  be32 format version (1)
 *   8  protection type (enum t10pi_type: 0 none, 1, 2 or 3), 3 bytes 0
 *  12  be32 CRC32C of bytes 0..11
 * No file: the type the configuration creates the LU with. A file that is
 * short, foreign, of another version, fails its checksum or names a type
 * the back-store cannot keep stops the LU's creation (never a silent
 * fallback to the configured type).
 *
 * FORMAT UNIT (sanitize.c) writes the file on a worker thread (lib/workq.h,
 * lib/atomic_file.h: temporary file, fsync, rename, fsync of the directory)
 * under its exclusive range lock over the whole medium, then sets the type
 * (lu->pi_type and the back-store's generated tuples), then initialises the
 * medium. */
#include "scsi/pi_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/crc32c.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/core.h"
#include "scsi/sbc_internal.h"

#define PF_MAGIC   "UTFM"
#define PF_VERSION 1u
#define PF_LEN	   16u

static uint32_t image_crc(const uint8_t *p)
{
	return crc32c_final(crc32c_update(CRC32C_INIT, p, 12));
}

static void encode(uint8_t img[PF_LEN], uint8_t type)
{
	memset(img, 0, PF_LEN);
	memcpy(img, PF_MAGIC, 4);
	put_be32(img + 4, PF_VERSION);
	img[8] = type;
	put_be32(img + 12, image_crc(img));
}

static int decode(const uint8_t *p, size_t len, uint8_t *type, const char **why)
{
	*why = "truncated or too long";
	if (len != PF_LEN)
		return -EBADMSG;
	*why = "not a format state file";
	if (memcmp(p, PF_MAGIC, 4))
		return -EBADMSG;
	*why = "unknown version";
	if (get_be32(p + 4) != PF_VERSION)
		return -EBADMSG;
	*why = "checksum mismatch";
	if (get_be32(p + 12) != image_crc(p))
		return -EBADMSG;
	*why = "unknown protection type";
	if (p[8] > T10PI_TYPE3 || p[9] || p[10] || p[11])
		return -EBADMSG;
	*type = p[8];
	return 0;
}

bool pi_format_can_keep(const struct scsi_lu *lu, uint8_t type)
{
	/* SPC-4 7.8.7 SPT 111b: types 1, 2 and 3 (and none) */
	return type <= T10PI_TYPE3;
}

void pi_format_apply(struct scsi_lu *lu, uint8_t type)
{
	atomic_store_explicit(&lu->pi_type, type, memory_order_relaxed);
	if (lu->bs->ops->set_pi_type)
		lu->bs->ops->set_pi_type(lu->bs, type);
}

bool pi_format_changeable(const struct scsi_lu *lu)
{
	return (lu->bs->caps & BS_CAP_PI) && lu->bs->ops->set_pi_type && lu->sbc->format_path;
}

static void save_work(struct workq_item *w)
{
	struct pi_format_save *s = container_of(w, struct pi_format_save, wq);
	uint8_t img[PF_LEN];

	encode(img, s->type);
	s->err = afile_write(s->lu->sbc->format_path, img, sizeof(img), 0600);
}

static void save_done(struct workq_item *w)
{
	struct pi_format_save *s = container_of(w, struct pi_format_save, wq);

	if (s->err)
		log_err("lu %s: cannot write the format state %s: %s; the format stays as it was",
			s->lu->name, s->lu->sbc->format_path, strerror(-s->err));
	s->done(s);
}

void pi_format_save(struct pi_format_save *s)
{
	s->err = 0;
	s->wq.work = save_work;
	s->wq.done = save_done;
	workq_submit(&s->wq);
}

int scsi_lu_pi_format_store(struct scsi_lu *lu, const char *state_dir)
{
	struct sbc_lu_state *st = lu->sbc;
	const char *why = "";
	uint8_t *buf, type;
	size_t len;
	int rc;

	if (!state_dir || st->format_path)
		return -EINVAL;
	if (!(lu->bs->caps & BS_CAP_PI))
		return 0;
	st->format_path = lu_state_path(lu, state_dir, "format");
	if (!st->format_path)
		return -ENOMEM;
	rc = afile_read(st->format_path, PF_LEN + 1, &buf, &len);
	if (rc == -ENOENT)
		return 0;
	if (!rc) {
		rc = decode(buf, len, &type, &why);
		free(buf);
		if (!rc && !pi_format_can_keep(lu, type)) {
			why = "a protection type the back-store cannot keep";
			rc = -EBADMSG;
		}
	} else {
		why = rc == -EINVAL ? "not a regular file" : strerror(-rc);
	}
	if (rc) {
		log_err("lu %s: format state %s refused: %s; move it away to start with the "
			"configured protection type",
			lu->name, st->format_path, why);
		free(st->format_path);
		st->format_path = NULL;
		return rc;
	}
	pi_format_apply(lu, type);
	log_info("lu %s: formatted with protection type %u (%s)", lu->name, type, st->format_path);
	return 0;
}
