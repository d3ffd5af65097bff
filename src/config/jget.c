/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jget.c: the typed JSON getters the config readers share (json.c,
 * port_groups.c, auth.c; declared in pctx.h): fixed sets of fields, one
 * JSON type per field, range and length checks, arrays of objects. Every
 * error names the value by its JSON path (struct cfg_pctx) and returns
 * -EINVAL; -ENOMEM when out of memory. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/pctx.h"
#include "lib/compiler.h"
#include "lib/iname.h"

/* Levenshtein distance, bounded inputs (field names). */
static size_t cfg_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = UT_MIN(row[j] + 1, row[j - 1] + 1);
			best = UT_MIN(best, diag + (a[i - 1] != b[j - 1]));
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int cfg_check_keys(struct cfg_pctx *x, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		const char *near = NULL;
		size_t best = 3;
		bool ok = false;

		for (size_t i = 0; allowed[i]; i++) {
			if (strcmp(key, allowed[i]) == 0) {
				ok = true;
				break;
			}
			size_t d = cfg_edit_distance(key, allowed[i]);
			/* a truncated name ("max_burst") counts as close */
			if (strlen(key) >= 4 && strncmp(allowed[i], key, strlen(key)) == 0)
				d = UT_MIN(d, 2);
			if (d < best) {
				best = d;
				near = allowed[i];
			}
		}
		if (ok)
			continue;
		cfg_push_key(x, key);
		if (near)
			return cfg_perr(x, "unknown field (did you mean \"%s\"?)", near);
		return cfg_perr(x, "unknown field");
	}
	return 0;
}

const char *cfg_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

int cfg_get_bool(struct cfg_pctx *x, json_t *obj, const char *key, bool *out)
{
	json_t *v = json_object_get(obj, key);
	size_t old;

	if (!v)
		return 0;
	old = cfg_push_key(x, key);
	if (!json_is_boolean(v))
		return cfg_perr(x, "expected true or false, found %s", cfg_type_name(v));
	*out = json_is_true(v);
	cfg_pop(x, old);
	return 0;
}

int cfg_get_uint(struct cfg_pctx *x, json_t *obj, const char *key, bool required, uint64_t min,
		 uint64_t max, uint64_t *out, bool *present)
{
	json_t *v = json_object_get(obj, key);
	size_t old = cfg_push_key(x, key);
	json_int_t n;

	if (!v) {
		if (required)
			return cfg_perr(x, "required field missing");
		cfg_pop(x, old);
		return 0;
	}
	if (!json_is_integer(v))
		return cfg_perr(x, "expected an integer, found %s", cfg_type_name(v));
	n = json_integer_value(v);
	if (n < 0 || (uint64_t)n < min || (uint64_t)n > max)
		return cfg_perr(x, "%lld out of range %llu..%llu", (long long)n,
				(unsigned long long)min, (unsigned long long)max);
	*out = (uint64_t)n;
	if (present)
		*present = true;
	cfg_pop(x, old);
	return 0;
}

int cfg_get_str(struct cfg_pctx *x, json_t *obj, const char *key, bool required, size_t maxlen,
		char **out)
{
	json_t *v = json_object_get(obj, key);
	size_t old = cfg_push_key(x, key), len;
	char *s;

	if (!v) {
		if (required)
			return cfg_perr(x, "required field missing");
		cfg_pop(x, old);
		return 0;
	}
	if (!json_is_string(v))
		return cfg_perr(x, "expected a string, found %s", cfg_type_name(v));
	/* jansson strings may hold NUL bytes: the length, not strlen() */
	len = json_string_length(v);
	if (len == 0)
		return cfg_perr(x, "must not be empty");
	if (memchr(json_string_value(v), '\0', len))
		return cfg_perr(x, "contains a NUL character");
	if (len > maxlen)
		return cfg_perr(x, "too long (%zu bytes, at most %zu)", len, maxlen);
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, json_string_value(v), len);
	s[len] = '\0';
	free(*out);
	*out = s;
	cfg_pop(x, old);
	return 0;
}

int cfg_get_iname(struct cfg_pctx *x, json_t *obj, const char *key, bool required, char **out)
{
	char norm[INAME_MAX + 1];
	int rc = cfg_get_str(x, obj, key, required, CFG_ISCSI_NAME_MAX, out), n;

	if (rc || !*out)
		return rc;
	/* RFC 3722: compared in normalized form everywhere (lib/iname.h);
	 * a value that is no iSCSI name stays for verify to explain */
	n = iname_normalize(*out, strlen(*out), norm, NULL);
	if (n >= 0 && strcmp(norm, *out)) {
		char *s = strdup(norm);

		if (!s)
			return -ENOMEM;
		free(*out);
		*out = s;
	}
	return 0;
}

json_t *cfg_get_typed(struct cfg_pctx *x, json_t *obj, const char *key, json_type type, int *rc)
{
	json_t *v = json_object_get(obj, key);
	size_t old;

	*rc = 0;
	if (!v || json_typeof(v) == type)
		return v;
	old = cfg_push_key(x, key);
	*rc = cfg_perr(x, "expected %s, found %s", type == JSON_ARRAY ? "an array" : "an object",
		       cfg_type_name(v));
	cfg_pop(x, old);
	return NULL;
}

int cfg_parse_objects(struct cfg_pctx *x, json_t *arr, size_t elem, void **v, size_t *n,
		      cfg_elem_fn fn)
{
	json_t *e;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return cfg_perr(x, "expected an array, found %s", cfg_type_name(arr));
	*v = calloc(json_array_size(arr) ? json_array_size(arr) : 1, elem);
	if (!*v)
		return -ENOMEM;
	json_array_foreach(arr, i, e)
	{
		size_t old = cfg_push_idx(x, i);

		if (!json_is_object(e))
			return cfg_perr(x, "expected an object, found %s", cfg_type_name(e));
		/* counted before it is read: freeing the tree frees a partial one */
		(*n)++;
		rc = fn(x, e, (char *)*v + i * elem);
		if (rc)
			return rc;
		cfg_pop(x, old);
	}
	return 0;
}

int cfg_get_objects(struct cfg_pctx *x, json_t *obj, const char *key, size_t elem, void **v,
		    size_t *n, cfg_elem_fn fn)
{
	json_t *arr = json_object_get(obj, key);
	size_t old;
	int rc;

	if (!arr)
		return 0;
	old = cfg_push_key(x, key);
	rc = cfg_parse_objects(x, arr, elem, v, n, fn);
	if (!rc)
		cfg_pop(x, old);
	return rc;
}
