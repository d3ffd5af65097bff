/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic_file.c: temporary file, write, fsync, rename, fsync of the
 * directory (atomic_file.h). */
#include "lib/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define AFILE_TMP_TAG	 ".tmp."
#define AFILE_RAND_BYTES 8u
#define AFILE_TRIES	 32 /* names tried before giving up with EEXIST */

/* path = dir + base: the length of the directory part, slash included. */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/* "<dir>.<base>.tmp.<hex>" into tmp. */
static int temp_name(const char *path, char *tmp, size_t size)
{
	static const char hexd[] = "0123456789abcdef";
	uint8_t r[AFILE_RAND_BYTES];
	char hex[2 * AFILE_RAND_BYTES + 1];
	size_t dl = dir_len(path);
	int n;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return errno ? -errno : -EIO;
	for (unsigned i = 0; i < sizeof(r); i++) {
		hex[2 * i] = hexd[r[i] >> 4];
		hex[2 * i + 1] = hexd[r[i] & 15];
	}
	hex[sizeof(hex) - 1] = '\0';
	n = snprintf(tmp, size, "%.*s.%s" AFILE_TMP_TAG "%s", (int)dl, path, path + dl, hex);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int afile_create_temp(const char *path, mode_t mode, char *tmp, size_t size)
{
	int fd, rc;

	if (!path[dir_len(path)])
		return -EINVAL; /* no file name */
	for (int i = 0; i < AFILE_TRIES; i++) {
		rc = temp_name(path, tmp, size);
		if (rc)
			return rc;
		/* never an existing file, never through a symbolic link */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		/* the mode asked for, whatever the umask took away */
		if (fchmod(fd, mode & 07777) < 0) {
			rc = -errno;
			close(fd);
			unlink(tmp);
			return rc;
		}
		return fd;
	}
	return -EEXIST;
}

int afile_write_all(int fd, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int afile_sync_dir(const char *path)
{
	char dir[PATH_MAX];
	size_t dl = dir_len(path);
	int fd, rc = 0;

	if (dl >= sizeof(dir))
		return -ENAMETOOLONG;
	if (dl) {
		memcpy(dir, path, dl);
		dir[dl] = '\0';
	} else {
		dir[0] = '.';
		dir[1] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int afile_write(const char *path, const void *data, size_t len, mode_t mode)
{
	char tmp[PATH_MAX + AFILE_TMP_EXTRA];
	int fd, rc;

	fd = afile_create_temp(path, mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	rc = afile_write_all(fd, data, len);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	return afile_sync_dir(path);
}

/* ".<base>.tmp.<16 hex digits>" exactly. */
static bool is_temp_of(const char *name, const char *base)
{
	size_t bl = strlen(base), tl = strlen(AFILE_TMP_TAG);

	if (name[0] != '.' || strncmp(name + 1, base, bl) != 0 ||
	    strncmp(name + 1 + bl, AFILE_TMP_TAG, tl) != 0)
		return false;
	name += 1 + bl + tl;
	if (strlen(name) != 2 * AFILE_RAND_BYTES)
		return false;
	for (; *name; name++)
		if (!((*name >= '0' && *name <= '9') || (*name >= 'a' && *name <= 'f')))
			return false;
	return true;
}

unsigned afile_remove_stale(const char *path)
{
	char dir[PATH_MAX];
	size_t dl = dir_len(path);
	const char *base = path + dl;
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	if (!*base || dl >= sizeof(dir))
		return 0;
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	d = opendir(dl ? dir : ".");
	if (!d)
		return 0;
	while ((e = readdir(d)))
		/* unlinkat does not follow a symbolic link: the name goes */
		if (is_temp_of(e->d_name, base) && unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
	closedir(d);
	return n;
}

int afile_read(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	struct stat sb;
	uint8_t *b;
	size_t got = 0;
	ssize_t n;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* one byte more than allowed tells a file that grew past max */
	b = malloc(max + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (got <= max && (n = read(fd, b + got, max + 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (!rc && got > max)
		rc = -EFBIG;
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = got;
	return 0;
}
