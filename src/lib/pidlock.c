/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pidlock.c: lock files that name their holder (pidlock.h). */
#include "lib/pidlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static pid_t read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long v;
	char *end;

	if (n <= 0)
		return 0;
	buf[n] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v <= 0 || (pid_t)v != v)
		return 0;
	return (pid_t)v;
}

int pidlock_acquire(const char *path, pid_t *holder)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc;

	*holder = 0;
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = -errno;
		if (rc == -EWOULDBLOCK)
			*holder = read_pid(fd);
		close(fd);
		return rc;
	}
	rc = pidlock_write_pid(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int pidlock_write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}
