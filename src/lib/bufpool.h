/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bufpool.h: data buffers for commands. Page-aligned (usable with O_DIRECT),
 * cached per thread by power-of-two size class so the steady state does not
 * call malloc. A buffer may be freed on a different thread than it was
 * allocated on. A global byte cap bounds the memory held by live buffers. */
#ifndef UT_BUFPOOL_H
#define UT_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>

/* Returns a valid pointer for len 0 too (no memory, not charged against the
 * cap); NULL only on allocation failure or when the global cap would be
 * exceeded. */
void *buf_alloc(size_t len);
/* Zero-filled variant. */
void *buf_zalloc(size_t len);
void buf_free(void *p, size_t len);
/* Outside the cap: a buffer from the reserve each I_T nexus is guaranteed
 * (the caller bounds it: sessions x reserve), counted apart
 * (buf_reserved_in_use()) and freed with buf_free_reserved(). */
void *buf_alloc_reserved(size_t len);
void buf_free_reserved(void *p, size_t len);
uint64_t buf_reserved_in_use(void);
/* Global cap on bytes held by live buffers (0 = unlimited). */
void buf_set_cap(uint64_t bytes);
uint64_t buf_in_use(void);

#endif
