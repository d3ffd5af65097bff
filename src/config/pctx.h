/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pctx.h: the parse context the JSON readers share (json.c, port_groups.c,
 * auth.c): the JSON path of the value being read, so that an error names
 * it ("targets[0].acls[2].auth.secret"). */
#ifndef UT_CONFIG_PCTX_H
#define UT_CONFIG_PCTX_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/model.h"
#include "lib/compiler.h"

struct cfg_pctx {
	struct cfg_err *err;
	char path[CFG_ERR_PATH_MAX];
};

/* The error at the current path; returns -EINVAL. */
UT_PRINTF(2, 3) static inline int cfg_perr(struct cfg_pctx *x, const char *fmt, ...)
{
	va_list ap;

	memcpy(x->err->path, x->path, sizeof(x->err->path));
	va_start(ap, fmt);
	vsnprintf(x->err->msg, sizeof(x->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Descend into an object member or an array element; the returned length
 * goes back to cfg_pop(). */
static inline size_t cfg_push_key(struct cfg_pctx *x, const char *key)
{
	size_t old = strlen(x->path);

	cfg_path_key(x->path, sizeof(x->path), key, strlen(key));
	return old;
}

static inline size_t cfg_push_idx(struct cfg_pctx *x, size_t i)
{
	size_t old = strlen(x->path);

	cfg_path_index(x->path, sizeof(x->path), i);
	return old;
}

static inline void cfg_pop(struct cfg_pctx *x, size_t old)
{
	x->path[old] = '\0';
}

#endif
