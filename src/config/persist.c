/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c: the config file and its change journal (persist.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/change.h"
#include "config/config.h"
#include "config/persist.h"
#include "lib/atomic_file.h"
#include "lib/crc32c.h"
#include "lib/log.h"

#define JOURNAL_MAGIC	"utarget_journal"
#define JOURNAL_VERSION 1
#define SHA_HEX		64
/* compaction when the journal reaches a quarter of the file, at least */
#define COMPACT_MIN_BYTES 4096u
/* the file and its journal may hold CHAP secrets */
#define CFG_FILE_MODE 0600

struct cfg_store {
	char *file;
	char *journal;
	unsigned backups;
	int jfd;
	bool broken;	/* an append could not be undone: compact first */
	size_t jbytes;	/* journal size, header included */
	size_t jheader; /* header bytes */
	size_t records;
	size_t file_bytes;
	char base[SHA_HEX + 1]; /* SHA-256 of FILE as the journal's header names it */
	struct stat seen;	/* FILE when the daemon last read or wrote it */
};

/* Remember FILE as it is now (after reading or writing it). */
static void remember_file(struct cfg_store *st)
{
	if (stat(st->file, &st->seen) < 0)
		memset(&st->seen, 0, sizeof(st->seen));
}

/* Has someone else written FILE since? (one stat: cheap enough per append) */
static bool file_changed(const struct cfg_store *st)
{
	struct stat now;

	if (stat(st->file, &now) < 0)
		return true;
	return now.st_ino != st->seen.st_ino || now.st_size != st->seen.st_size ||
	       now.st_mtim.tv_sec != st->seen.st_mtim.tv_sec ||
	       now.st_mtim.tv_nsec != st->seen.st_mtim.tv_nsec;
}

static struct cfg_store *store;

struct cfg_store *cfg_store_get(void)
{
	return store;
}

const char *cfg_store_file(void)
{
	return store ? store->file : NULL;
}

size_t cfg_store_journal_records(void)
{
	return store ? store->records : 0;
}

size_t cfg_store_journal_bytes(void)
{
	return store ? store->jbytes - store->jheader : 0;
}

size_t cfg_store_file_bytes(void)
{
	return store ? store->file_bytes : 0;
}

static void sha256_hex(const void *p, size_t n, char out[SHA_HEX + 1])
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char h[EVP_MAX_MD_SIZE];
	unsigned int hl = 0;

	if (!EVP_Digest(p, n, h, &hl, EVP_sha256(), NULL) || hl != 32)
		memset(h, 0, sizeof(h));
	for (size_t i = 0; i < 32; i++) {
		out[2 * i] = hexd[h[i] >> 4];
		out[2 * i + 1] = hexd[h[i] & 15];
	}
	out[SHA_HEX] = '\0';
}

/* FILE.1 .. FILE.N: the previous versions, newest first. */
static void rotate_backups(const struct cfg_store *st)
{
	char from[CFG_FULL_PATH_MAX + 16], to[CFG_FULL_PATH_MAX + 16];

	if (!st->backups)
		return;
	for (unsigned i = st->backups; i > 1; i--) {
		snprintf(from, sizeof(from), "%s.%u", st->file, i - 1);
		snprintf(to, sizeof(to), "%s.%u", st->file, i);
		if (rename(from, to) < 0 && errno != ENOENT)
			log_warn("config: cannot rotate %s: %s", from, strerror(errno));
	}
	snprintf(to, sizeof(to), "%s.1", st->file);
	unlink(to);
	/* the current file becomes FILE.1 when the new one replaces it */
	if (link(st->file, to) < 0) {
		if (errno != ENOENT)
			log_warn("config: cannot keep a backup %s: %s", to, strerror(errno));
		return;
	}
	if (chmod(to, 0600) < 0)
		log_warn("config: %s: %s", to, strerror(errno));
}

/* A new empty journal naming base: written beside, then renamed over. */
static int journal_start(struct cfg_store *st, const char *base)
{
	char header[128];
	int n, fd, rc;

	n = snprintf(header, sizeof(header), "{\"%s\":%d,\"base\":\"%s\"}\n", JOURNAL_MAGIC,
		     JOURNAL_VERSION, base);
	rc = afile_write(st->journal, header, (size_t)n, CFG_FILE_MODE);
	if (rc)
		return rc;
	fd = open(st->journal, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (st->jfd >= 0)
		close(st->jfd);
	st->jfd = fd;
	st->jbytes = st->jheader = (size_t)n;
	st->records = 0;
	st->broken = false;
	memcpy(st->base, base, sizeof(st->base));
	return 0;
}

/* The config file or the journal: the journal may hold more than a config
 * file (its records come on top of the base). */
static int read_text(const char *path, char **text, size_t *len)
{
	return cfg_read_file(path, 2 * CFG_FILE_MAX, text, len);
}

/* Replay the records after the header; returns how many applied. A record
 * that is torn or fails stops the replay (what follows cannot be applied
 * without it). */
static size_t journal_replay(struct cfg *c, const char *jt, size_t jlen, size_t start,
			     cfg_replay_fn fn, void *arg, size_t *good_end)
{
	size_t pos = start, n = 0;

	*good_end = start;
	while (pos < jlen) {
		const char *line = jt + pos, *nl = memchr(line, '\n', jlen - pos), *tab;
		uint32_t crc;
		char hex[9];
		json_error_t jerr;
		struct cfg_err err;
		json_t *j;
		int rc;

		if (!nl) {
			log_warn("config: journal: an incomplete record at the end (not "
				 "acknowledged before a crash): dropped");
			break;
		}
		tab = memrchr(line, '\t', (size_t)(nl - line));
		if (!tab || nl - tab != 9) {
			log_err("config: journal: a malformed record: replay stops");
			break;
		}
		crc = crc32c(line, (size_t)(tab - line));
		snprintf(hex, sizeof(hex), "%08x", crc);
		if (memcmp(hex, tab + 1, 8) != 0) {
			log_warn("config: journal: a record with a bad checksum (torn by a crash): "
				 "replay stops there");
			break;
		}
		j = json_loadb(line, (size_t)(tab - line), 0, &jerr);
		if (!j || !json_is_array(j)) {
			json_decref(j);
			log_err("config: journal: a record is not a change list: replay stops");
			break;
		}
		rc = fn(c, j, arg, &err);
		json_decref(j);
		if (rc) {
			log_err("config: journal: record %zu cannot be applied (%s%s%s): replay "
				"stops",
				n + 1, err.path, err.path[0] ? ": " : "", err.msg);
			break;
		}
		n++;
		pos = (size_t)(nl - jt) + 1;
		*good_end = pos;
	}
	return n;
}

int cfg_store_open(const char *file, unsigned backups, const struct cfg_iscsi_settings *defaults,
		   cfg_replay_fn fn, void *arg, struct cfg **out, size_t *replayed,
		   struct cfg_err *err)
{
	struct cfg_store *st;
	char *text = NULL, *jt = NULL, sha[SHA_HEX + 1];
	size_t len = 0, jlen = 0, good_end = 0;
	struct cfg *c = NULL;
	int rc;

	*out = NULL;
	*replayed = 0;
	*err = (struct cfg_err){0};
	rc = read_text(file, &text, &len);
	if (rc) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-rc));
		return rc;
	}
	if (len > CFG_FILE_MAX) {
		free(text);
		snprintf(err->msg, sizeof(err->msg), "larger than %u MiB", CFG_FILE_MAX >> 20);
		return -EFBIG;
	}
	sha256_hex(text, len, sha);
	rc = cfg_parse(text, len, defaults, &c, err);
	if (!rc) {
		rc = cfg_validate(c, err);
		if (rc)
			err->line = cfg_locate_line(text, len, err->path);
	}
	if (!rc && (rc = cfg_freeze_port_ids(c)))
		snprintf(err->msg, sizeof(err->msg), "cannot assign relative port identifiers");
	free(text);
	if (rc) {
		cfg_free(c);
		return rc;
	}
	st = calloc(1, sizeof(*st));
	if (st) {
		st->jfd = -1;
		st->backups = backups;
		st->file = strdup(file);
		st->journal = malloc(strlen(file) + sizeof(".journal"));
		if (st->journal)
			snprintf(st->journal, strlen(file) + sizeof(".journal"), "%s.journal",
				 file);
	}
	if (!st || !st->file || !st->journal) {
		if (st) {
			free(st->file);
			free(st->journal);
		}
		free(st);
		cfg_free(c);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	st->file_bytes = len;
	memcpy(st->base, sha, sizeof(sha));
	remember_file(st);
	*out = c;
	store = st;
	/* temporary files of writes a crash interrupted */
	if (afile_remove_stale(st->file) + afile_remove_stale(st->journal))
		log_notice("config: removed temporary files an interrupted write left beside %s",
			   st->file);

	/* the journal, if it belongs to this FILE */
	rc = read_text(st->journal, &jt, &jlen);
	if (rc == 0) {
		const char *nl = memchr(jt, '\n', jlen);
		json_t *h = nl ? json_loadb(jt, (size_t)(nl - jt), 0, NULL) : NULL;
		const char *base = json_string_value(json_object_get(h, "base"));

		if (h && json_integer_value(json_object_get(h, JOURNAL_MAGIC)) == JOURNAL_VERSION &&
		    base && strcmp(base, sha) == 0) {
			st->jheader = (size_t)(nl - jt) + 1;
			*replayed = journal_replay(c, jt, jlen, st->jheader, fn, arg, &good_end);
			if (*replayed)
				log_notice("config: %zu change(s) replayed from %s", *replayed,
					   st->journal);
		} else if (jlen) {
			log_info("config: %s belongs to an earlier version of %s: ignored",
				 st->journal, file);
		}
		json_decref(h);
		free(jt);
	}
	rc = 0;
	if (good_end) {
		/* keep appending to it (its records are not in FILE yet: the
		 * caller compacts); what follows the last good record goes */
		st->jfd = open(st->journal, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (st->jfd < 0 || ftruncate(st->jfd, (off_t)good_end) < 0 ||
		    fdatasync(st->jfd) < 0)
			rc = -errno;
		st->jbytes = good_end;
		st->records = *replayed;
	} else {
		rc = journal_start(st, sha);
	}
	if (rc) {
		snprintf(err->msg, sizeof(err->msg), "cannot create %s: %s", st->journal,
			 strerror(-rc));
		cfg_store_close();
		cfg_free(c);
		*out = NULL;
		return rc;
	}
	return 0;
}

void cfg_store_close(void)
{
	if (!store)
		return;
	if (store->jfd >= 0)
		close(store->jfd);
	free(store->file);
	free(store->journal);
	free(store);
	store = NULL;
}

int cfg_store_append(json_t *const *records, size_t n, struct cfg_err *err)
{
	struct cfg_store *st = store;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;

	*err = (struct cfg_err){0};
	if (!st || st->jfd < 0 || st->broken) {
		snprintf(err->msg, sizeof(err->msg),
			 "the change journal is not writable (a failed write could not be "
			 "undone): utarget config save must succeed first");
		return -EIO;
	}
	if (file_changed(st)) {
		/* the journal continues the file as the daemon wrote it: a change
		 * recorded now would be lost at the next start, which reads the
		 * edited file */
		snprintf(err->msg, sizeof(err->msg),
			 "%s was changed outside utargetd since it wrote it: reload it "
			 "(utarget config reload, SIGHUP) or overwrite it (utarget config "
			 "save) first",
			 st->file);
		return -ESTALE;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		char *j = json_dumps(records[i], JSON_COMPACT | JSON_SORT_KEYS);
		size_t jl;

		if (!j) {
			rc = -ENOMEM;
			break;
		}
		jl = strlen(j);
		if (len + jl + 10 + 1 > cap) {
			size_t ncap = (len + jl + 11) * 2;
			char *nb = realloc(buf, ncap);

			if (!nb) {
				free(j);
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		memcpy(buf + len, j, jl);
		len += jl;
		len += (size_t)snprintf(buf + len, cap - len, "\t%08x\n", crc32c(j, jl));
		free(j);
	}
	if (!rc)
		rc = afile_write_all(st->jfd, buf, len);
	if (!rc && fdatasync(st->jfd) < 0)
		rc = -errno;
	free(buf);
	if (!rc) {
		st->jbytes += len;
		st->records += n;
		return 0;
	}
	snprintf(err->msg, sizeof(err->msg), "cannot write %s: %s", st->journal, strerror(-rc));
	/* cut what may have been written; after a failed fsync the kernel may
	 * have dropped pages, so the journal is not trusted again until a
	 * compaction has written a new one */
	if (ftruncate(st->jfd, (off_t)st->jbytes) < 0 || fdatasync(st->jfd) < 0 || rc == -EIO)
		st->broken = true;
	return rc;
}

bool cfg_store_wants_compaction(void)
{
	size_t j = cfg_store_journal_bytes();

	if (!store)
		return false;
	return store->broken || (j >= COMPACT_MIN_BYTES / 4 && j * 4 >= store->file_bytes) ||
	       j >= COMPACT_MIN_BYTES * 1024;
}

int cfg_store_compact(const struct cfg *c, struct cfg_err *err)
{
	struct cfg_store *st = store;
	char sha[SHA_HEX + 1];
	char *text;
	size_t len;
	int rc;

	*err = (struct cfg_err){0};
	if (!st)
		return -EINVAL;
	text = cfg_dump(c);
	if (!text) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	len = strlen(text);
	sha256_hex(text, len, sha);
	rotate_backups(st);
	rc = afile_write(st->file, text, len, CFG_FILE_MODE);
	free(text);
	if (rc) {
		snprintf(err->msg, sizeof(err->msg), "cannot write %s: %s", st->file,
			 strerror(-rc));
		return rc;
	}
	st->file_bytes = len;
	remember_file(st);
	/* FILE now holds every record: a crash from here on finds the old
	 * journal stale (its base is the old FILE) */
	rc = journal_start(st, sha);
	if (rc) {
		snprintf(err->msg, sizeof(err->msg), "cannot start %s: %s", st->journal,
			 strerror(-rc));
		st->broken = true;
		return rc;
	}
	return 0;
}

bool cfg_store_file_is_ours(void)
{
	char sha[SHA_HEX + 1], *text;
	size_t len;

	if (!store || read_text(store->file, &text, &len))
		return false;
	sha256_hex(text, len, sha);
	free(text);
	return strcmp(sha, store->base) == 0;
}
