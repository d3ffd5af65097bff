/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic_file.h: files the daemon replaces whole (the config file and its
 * journal, persistent reservation state): a temporary file beside the
 * target that nobody can have prepared, written, fsync'ed, renamed over the
 * target, then the directory fsync'ed. A crash leaves the old file or the
 * new one, never a torn one.
 *
 * The temporary file is ".<name>.tmp.<16 hex digits>" in the target's
 * directory: a random name (getrandom), created with O_CREAT | O_EXCL |
 * O_NOFOLLOW (a file or a symbolic link of that name, however it got there,
 * is never opened, followed or truncated: another random name is tried), its
 * mode set with fchmod on the descriptor (the umask plays no part). A crash
 * between creation and rename leaves such a file behind;
 * afile_remove_stale() removes them. */
#ifndef UT_LIB_ATOMIC_FILE_H
#define UT_LIB_ATOMIC_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes a temporary name adds to the target's path: "." before the name,
 * ".tmp." and 16 hex digits after it. */
#define AFILE_TMP_EXTRA 22u

/* Create a new temporary file beside path, write-only, mode exactly mode;
 * its name in tmp (size at least strlen(path) + AFILE_TMP_EXTRA + 1). The
 * descriptor, or -errno (-EEXIST only after many names were taken). */
int afile_create_temp(const char *path, mode_t mode, char *tmp, size_t size);

/* Replace path with len bytes of data, mode exactly mode: temporary file,
 * write, fsync, rename over path, fsync of the directory. 0 or -errno (the
 * temporary file is removed; path is untouched unless the directory fsync
 * failed after the rename). */
int afile_write(const char *path, const void *data, size_t len, mode_t mode);

/* Write all n bytes of data to fd (short writes and EINTR retried).
 * 0 or -errno. */
int afile_write_all(int fd, const void *data, size_t n);

/* fsync the directory that holds path (after a rename or an unlink in it).
 * 0 or -errno. */
int afile_sync_dir(const char *path);

/* Remove the temporary files afile_create_temp() left beside path (names
 * of exactly that form only). Returns how many were removed. */
unsigned afile_remove_stale(const char *path);

/* Read a whole small state file: a regular file (a symbolic link is not
 * followed) of at most max bytes, into a malloc'ed *buf (the caller frees
 * it) of *len bytes. 0; -ENOENT when there is no such file; -EINVAL when it
 * is not a regular file; -EFBIG when it holds more than max bytes;
 * -ENOMEM or another -errno. */
int afile_read(const char *path, size_t max, uint8_t **buf, size_t *len);

#endif
