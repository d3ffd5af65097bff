/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pctx.h: the parse context the JSON readers share (json.c, port_groups.c,
 * auth.c): the JSON path of the value being read, so that an error names
 * it ("targets[0].acls[2].auth.secret"), and the typed getters (jget.c). */
#ifndef UT_CONFIG_PCTX_H
#define UT_CONFIG_PCTX_H

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
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

/* ---- typed getters (jget.c) ----
 * Each returns 0, -EINVAL with the error at the path of the value (the key
 * stays pushed), or -ENOMEM. An absent optional field leaves *out unchanged
 * and returns 0. */

/* Every key of obj must be in allowed[] (NULL-terminated); an unknown one
 * is named, with the closest allowed name when one is near (a typo). */
int cfg_check_keys(struct cfg_pctx *x, json_t *obj, const char *const *allowed);
/* "an object", "a string", ... for "expected X, found Y" messages. */
const char *cfg_type_name(const json_t *v);
int cfg_get_bool(struct cfg_pctx *x, json_t *obj, const char *key, bool *out);
/* An integer in min..max; *present (may be NULL) set when it was there. */
int cfg_get_uint(struct cfg_pctx *x, json_t *obj, const char *key, bool required, uint64_t min,
		 uint64_t max, uint64_t *out, bool *present);
/* A string of 1..maxlen bytes without NUL, copied (the old *out freed). */
int cfg_get_str(struct cfg_pctx *x, json_t *obj, const char *key, bool required, size_t maxlen,
		char **out);
/* An iSCSI name (cfg_get_str), kept in its normalized form (RFC 3722,
 * lib/iname.h: "IQN.X" is "iqn.x") when it is one; verify judges the rest. */
int cfg_get_iname(struct cfg_pctx *x, json_t *obj, const char *key, bool required, char **out);
/* The value at key, absent (NULL, *rc 0) or of type (JSON_ARRAY or
 * JSON_OBJECT); another type: NULL, *rc -EINVAL. */
json_t *cfg_get_typed(struct cfg_pctx *x, json_t *obj, const char *key, json_type type, int *rc);

/* Reads one element (an object) into out. */
typedef int (*cfg_elem_fn)(struct cfg_pctx *x, json_t *e, void *out);
/* arr, an array of objects, into *v (*n elements of size elem, allocated
 * here); each element is counted before fn reads it, so that freeing the
 * tree after an error frees what was read. */
int cfg_parse_objects(struct cfg_pctx *x, json_t *arr, size_t elem, void **v, size_t *n,
		      cfg_elem_fn fn);
/* The same for the array at key of obj (absent: nothing). */
int cfg_get_objects(struct cfg_pctx *x, json_t *obj, const char *key, size_t elem, void **v,
		    size_t *n, cfg_elem_fn fn);

#endif
