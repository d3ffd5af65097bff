/* SPDX-License-Identifier: GPL-2.0-or-later */
/* load.c: a config file -> a verified tree, and the error line
 * "FILE:LINE: PATH: MESSAGE" the daemon prints for the first problem. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/compiler.h"

int cfg_read_file(const char *file, size_t max, char **text, size_t *len)
{
	struct stat st;
	size_t n = 0, cap;
	char *buf;
	int fd, rc;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (st.st_size > (off_t)max) {
		close(fd);
		return -EFBIG;
	}
	/* st_size is a hint (the file may change while read; a pipe has none) */
	cap = (size_t)st.st_size + 4096;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;
			if (cap > max) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			free(buf);
			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

UT_PRINTF(2, 3) static void cfg_lmsg(struct cfg_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static void cfg_file_err(struct cfg_err *err, int rc)
{
	*err = (struct cfg_err){0};
	if (rc == -EFBIG)
		cfg_lmsg(err, "larger than %u MiB", CFG_FILE_MAX >> 20);
	else
		cfg_lmsg(err, "%s", strerror(-rc));
}

int cfg_load(const char *file, const struct cfg_iscsi_settings *iscsi_defaults, struct cfg **out,
	     struct cfg_err *err)
{
	struct cfg *c;
	size_t len;
	char *text;
	int rc;

	*out = NULL;
	rc = cfg_read_file(file, CFG_FILE_MAX, &text, &len);
	if (rc) {
		cfg_file_err(err, rc);
		return rc;
	}
	rc = cfg_parse(text, len, iscsi_defaults, &c, err);
	if (rc == 0) {
		rc = cfg_validate(c, err);
		if (rc) {
			err->line = cfg_locate_line(text, len, err->path);
			cfg_free(c);
		} else {
			*out = c;
		}
	}
	free(text);
	return rc;
}

/* A path like "--listen": the problem is on the command line, not in the
 * file. */
static bool cfg_err_cmdline(const struct cfg_err *err)
{
	return strncmp(err->path, "--", 2) == 0;
}

void cfg_err_locate(struct cfg_err *err, const char *file)
{
	size_t len;
	char *text;

	if (err->path[0] == '\0' || cfg_err_cmdline(err) ||
	    cfg_read_file(file, CFG_FILE_MAX, &text, &len))
		return;
	err->line = cfg_locate_line(text, len, err->path);
	free(text);
}

int cfg_check_file(const struct cfg *c, const struct cfg_backstore *b, size_t i,
		   struct cfg_err *err)
{
	char path[CFG_FULL_PATH_MAX], state[CFG_FULL_PATH_MAX];
	struct stat st;
	int rc;

	*err = (struct cfg_err){0};
	if (!b->path || (b->type && strcmp(b->type, "rbd") == 0)) /* an rbd's path is an image */
		return 0;
	if (cfg_state_dir_path(c, state, sizeof(state))) {
		snprintf(err->path, sizeof(err->path), "state_dir");
		cfg_lmsg(err, "path too long");
		return -ENAMETOOLONG;
	}
	snprintf(err->path, sizeof(err->path), "backstores[%zu].path", i);
	rc = cfg_bs_path(c, b, path, sizeof(path));
	if (rc) {
		cfg_lmsg(err, "path too long");
		return rc;
	}
	if (b->type && strcmp(b->type, "dedup") == 0) {
		/* a dedup store: a directory, made at open when missing (its
		 * parent must exist) */
		char *slash;

		if (stat(path, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				cfg_lmsg(err, "%s: not a directory (a dedup store)", path);
				return -EINVAL;
			}
		} else if ((slash = strrchr(path, '/')) && slash != path) {
			*slash = '\0';
			if (strcmp(path, state) != 0 &&
			    (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
				cfg_lmsg(err, "%s: no such directory to make the store in", path);
				return -ENOENT;
			}
		}
		*err = (struct cfg_err){0};
		return 0;
	}
	if (stat(path, &st) == 0) {
		/* sg: the SCSI generic node (a character device) or the disk */
		if (b->type && strcmp(b->type, "sg") == 0 && !S_ISCHR(st.st_mode) &&
		    !S_ISBLK(st.st_mode)) {
			cfg_lmsg(err, "%s: not a SCSI generic or block device", path);
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) &&
		    !(b->type && strcmp(b->type, "sg") == 0)) {
			cfg_lmsg(err, "%s: not a regular file or block device", path);
			return -EINVAL;
		}
		*err = (struct cfg_err){0};
		return 0;
	}
	rc = -errno;
	if (rc != -ENOENT || !b->create) {
		cfg_lmsg(err, "%s: %s", path, strerror(-rc));
		return rc;
	}
	/* to be created: its directory must exist (or be the state
	 * directory, which cfg_apply() creates) */
	char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		*slash = '\0';
		if (strcmp(path, state) != 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
			cfg_lmsg(err, "%s: no such directory to create the file in", path);
			return -ENOENT;
		}
	}
	*err = (struct cfg_err){0};
	return 0;
}

int cfg_check_state_dir(const struct cfg *c, bool missing_ok, struct cfg_err *err)
{
	char dir[CFG_FULL_PATH_MAX];
	struct stat st;
	uid_t me = geteuid();
	int fd, rc;

	*err = (struct cfg_err){0};
	snprintf(err->path, sizeof(err->path), "state_dir");
	if (cfg_state_dir_path(c, dir, sizeof(dir))) {
		cfg_lmsg(err, "path too long");
		return -ENAMETOOLONG;
	}
	/* the directory itself (a symbolic link to it is followed: what
	 * matters is who can change what is in it) */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT && missing_ok) {
			*err = (struct cfg_err){0};
			return 0;
		}
		cfg_lmsg(err, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	rc = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (rc) {
		cfg_lmsg(err, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	/* whoever may write into it may plant or swap the files utargetd
	 * trusts (reservation state, back-store files): only root and
	 * utargetd's own user */
	if (st.st_uid != 0 && st.st_uid != me) {
		cfg_lmsg(err,
			 "%s: owned by uid %u, neither root nor utargetd's user (uid %u); "
			 "refusing to keep state there",
			 dir, (unsigned)st.st_uid, (unsigned)me);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		cfg_lmsg(err,
			 "%s: writable by %s (mode %04o); refusing to keep state there "
			 "(chmod go-w it)",
			 dir,
			 (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ? "its group and others"
			 : (st.st_mode & S_IWGRP)			  ? "its group"
									  : "others",
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	*err = (struct cfg_err){0};
	return 0;
}

int cfg_check_files(const struct cfg *c, struct cfg_err *err)
{
	char state[CFG_FULL_PATH_MAX];

	*err = (struct cfg_err){0};
	if (cfg_state_dir_path(c, state, sizeof(state))) {
		snprintf(err->path, sizeof(err->path), "state_dir");
		cfg_lmsg(err, "path too long");
		return -ENAMETOOLONG;
	}
	for (size_t i = 0; i < c->nbs; i++) {
		int rc = cfg_check_file(c, &c->bs[i], i, err);
		if (rc)
			return rc;
	}
	/* a state directory to be created is created 0700 */
	return cfg_check_state_dir(c, true, err);
}

void cfg_err_format(const struct cfg_err *err, const char *file, char *buf, size_t size)
{
	char where[64] = "";

	if (cfg_err_cmdline(err)) {
		snprintf(buf, size, "%s: %s", err->path, err->msg);
		return;
	}
	if (err->line > 0)
		snprintf(where, sizeof(where), ":%d", err->line);
	if (err->path[0])
		snprintf(buf, size, "%s%s: %s: %s", file, where, err->path, err->msg);
	else
		snprintf(buf, size, "%s%s: %s", file, where, err->msg);
}
