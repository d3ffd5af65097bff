/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safe_copy.h: a copy from memory that may stop being readable -- a file's
 * mapping past the file's end after the file was cut short, where a plain
 * load raises SIGBUS -- made by the kernel (process_vm_readv() on the own
 * process), which answers EFAULT instead. */
#ifndef UT_LIB_SAFE_COPY_H
#define UT_LIB_SAFE_COPY_H

#include <stdbool.h>
#include <stddef.h>

/* Can this process copy that way? A container's seccomp profile may refuse
 * process_vm_readv() without CAP_SYS_PTRACE; asked once, then cached.
 * Thread-safe. */
bool safe_copy_works(void);
/* Copy n bytes from src to dst: 0, or -EFAULT when some of src could not be
 * read (dst then holds an unknown part of it), or the errno of a refusal. */
int safe_copy(void *dst, const void *src, size_t n);

#endif
