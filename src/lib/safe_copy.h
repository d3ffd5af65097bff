/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safe_copy.h: a copy from memory that may stop being readable -- a file's
 * mapping past the file's end after the file was cut short, where a plain
 * load raises SIGBUS -- that answers EFAULT instead (a memcpy() that a
 * SIGBUS handler of this module leaves, safe_copy.c). */
#ifndef UT_LIB_SAFE_COPY_H
#define UT_LIB_SAFE_COPY_H

#include <stdbool.h>
#include <stddef.h>

/* Can this process copy that way? Installs the SIGBUS handler on the first
 * call (safe_copy_arm), then answers from cache. Thread-safe. Call it before
 * relying on safe_copy() for memory that may fault. */
bool safe_copy_works(void);
/* Install the SIGBUS handler now, again if something replaced it since (a
 * test framework does, around each test): 0, or -errno. A SIGBUS outside
 * safe_copy() goes on to the action that was in place before. */
int safe_copy_arm(void);
/* Copy n bytes from src to dst: 0, or -EFAULT when some of src could not be
 * read (dst then holds an unknown part of it). Any thread; needs
 * safe_copy_works() to have said true. */
int safe_copy(void *dst, const void *src, size_t n);

#endif
