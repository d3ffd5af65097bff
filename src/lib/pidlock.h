/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pidlock.h: a lock file that names its holder. One daemon per configuration
 * and per state directory: the file is opened (created 0600 when missing,
 * never through a symbolic link) and locked with flock(LOCK_EX | LOCK_NB);
 * the holder writes its PID into it. flock belongs to the open file
 * description, so the lock survives the daemon's fork into the background
 * and the closing of other descriptors of the same file, and goes with the
 * process: a crash leaves a file, never a stale lock. */
#ifndef UT_PIDLOCK_H
#define UT_PIDLOCK_H

#include <sys/types.h>

/* Lock path. Returns the descriptor (keep it open for as long as the lock
 * is held), -EWOULDBLOCK with *holder the PID written in the file (0 when
 * it names none yet) when another process holds it, or another -errno. */
int pidlock_acquire(const char *path, pid_t *holder);
/* Write the calling process's PID into the held lock file (after a fork). */
int pidlock_write_pid(int fd);

#endif
