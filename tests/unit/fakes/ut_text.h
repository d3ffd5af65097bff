/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ut_text.h: text helpers the unit tests share: JSON written in C strings
 * with ' for " (readable), and logs of calls that fakes keep. */
#ifndef UT_TESTS_UT_TEXT_H
#define UT_TESTS_UT_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy of s with every ' turned into " (free() it); NULL when out of
 * memory. */
static inline char *ut_dq(const char *s)
{
	char *d = strdup(s);

	for (char *p = d; p && *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* Append to the NUL-terminated text in buf (cut at size). */
static inline void ut_appendf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void ut_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strnlen(buf, size);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

#endif
