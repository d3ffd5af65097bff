/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compiler.h: small language helpers shared by every layer. */
#ifndef UT_COMPILER_H
#define UT_COMPILER_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define likely(x)			__builtin_expect(!!(x), 1)
#define unlikely(x)			__builtin_expect(!!(x), 0)
#define UT_MIN(a, b)			((a) < (b) ? (a) : (b))
#define UT_MAX(a, b)			((a) > (b) ? (a) : (b))
#define UT_UNUSED			__attribute__((unused))
#define UT_PRINTF(f, a)			__attribute__((format(printf, f, a)))
#define UT_ALIGN_UP(x, a)		(((x) + (a)-1) & ~((__typeof__(x))(a)-1))
#define UT_FALLTHROUGH			__attribute__((fallthrough))
#define NS_PER_S			1000000000ull /* nanoseconds per second */

#endif
