/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c: what the CLI prints. For people: aligned tables (lists) and
 * "key: value" blocks (one object). For programs (--json): the daemon's
 * answer as pretty JSON with sorted keys, nothing else on stdout. Strings
 * from the daemon are printed with control characters escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

#define OUT_CELL_MAX 256

void out_json(struct cli *c, json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENCODE_ANY);

	if (s) {
		fprintf(c->out, "%s\n", s);
		free(s);
	}
}

/* Printable copy of s (control bytes as \xHH). */
static void out_safe(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", ch);
		else
			buf[n++] = (char)ch;
	}
	buf[n] = '\0';
}

void out_text(json_t *v, char *buf, size_t size)
{
	size_t i, n = 0;
	json_t *e;

	if (!v || json_is_null(v)) {
		snprintf(buf, size, "-");
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING:
		out_safe(json_string_value(v), buf, size);
		return;
	case JSON_INTEGER:
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
		return;
	case JSON_REAL:
		snprintf(buf, size, "%g", json_real_value(v));
		return;
	case JSON_TRUE:
		snprintf(buf, size, "yes");
		return;
	case JSON_FALSE:
		snprintf(buf, size, "no");
		return;
	case JSON_ARRAY:
		buf[0] = '\0';
		json_array_foreach(v, i, e)
		{
			char cell[OUT_CELL_MAX];
			int k;
			out_text(e, cell, sizeof(cell));
			k = snprintf(buf + n, size - n, "%s%s", i ? "," : "", cell);
			if (k < 0 || (size_t)k >= size - n)
				break;
			n += (size_t)k;
		}
		if (n == 0)
			snprintf(buf, size, "-");
		return;
	case JSON_OBJECT: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		out_safe(s ? s : "{}", buf, size);
		free(s);
		return;
	}
	default:
		snprintf(buf, size, "?");
	}
}

/* obj's member at a dotted path ("demo_mode.enabled"). */
static json_t *out_member(json_t *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		size_t k = strcspn(path, ".");
		if (k >= sizeof(key))
			return NULL;
		memcpy(key, path, k);
		key[k] = '\0';
		obj = json_object_get(obj, key);
		path += k;
		if (*path == '.')
			path++;
	}
	return obj;
}

void out_table(struct cli *c, json_t *rows, const char *const *columns, const char *const *heads,
	       size_t ncols)
{
	size_t nrows = json_array_size(rows), w[16] = {0};
	char(*cells)[OUT_CELL_MAX];

	if (ncols > ARRAY_SIZE(w))
		ncols = ARRAY_SIZE(w);
	cells = calloc((nrows + 1) * ncols, sizeof(*cells));
	if (!cells)
		return;
	for (size_t j = 0; j < ncols; j++) {
		snprintf(cells[j], OUT_CELL_MAX, "%s", heads[j]);
		w[j] = strlen(cells[j]);
	}
	for (size_t i = 0; i < nrows; i++) {
		json_t *row = json_array_get(rows, i);
		for (size_t j = 0; j < ncols; j++) {
			char *cell = cells[(i + 1) * ncols + j];
			out_text(out_member(row, columns[j]), cell, OUT_CELL_MAX);
			if (strlen(cell) > w[j])
				w[j] = strlen(cell);
		}
	}
	for (size_t i = 0; i <= nrows; i++) {
		for (size_t j = 0; j < ncols; j++) {
			const char *cell = cells[i * ncols + j];
			if (j + 1 == ncols)
				fprintf(c->out, "%s\n", cell);
			else
				fprintf(c->out, "%-*s  ", (int)w[j], cell);
		}
	}
	free(cells);
}

void out_object(struct cli *c, json_t *obj, int indent)
{
	const char **keys;
	size_t n = 0, w = 0;
	const char *key;
	json_t *v;

	if (!json_is_object(obj)) {
		char buf[4096];
		out_text(obj, buf, sizeof(buf));
		fprintf(c->out, "%*s%s\n", indent, "", buf);
		return;
	}
	keys = calloc(json_object_size(obj) + 1, sizeof(*keys));
	if (!keys)
		return;
	json_object_foreach(obj, key, v)
	{
		keys[n++] = key;
		if (strlen(key) > w)
			w = strlen(key);
	}
	/* sorted, for a stable display */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			const char *t = keys[j];
			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		char buf[4096];
		v = json_object_get(obj, keys[i]);
		if (json_is_object(v) && json_object_size(v)) {
			fprintf(c->out, "%*s%s:\n", indent, "", keys[i]);
			out_object(c, v, indent + 2);
			continue;
		}
		if (json_is_array(v) && json_array_size(v) &&
		    json_is_object(json_array_get(v, 0))) {
			size_t k;
			json_t *e;
			fprintf(c->out, "%*s%s:\n", indent, "", keys[i]);
			json_array_foreach(v, k, e)
			{
				fprintf(c->out, "%*s- [%zu]\n", indent + 2, "", k);
				out_object(c, e, indent + 4);
			}
			continue;
		}
		out_text(v, buf, sizeof(buf));
		fprintf(c->out, "%*s%-*s  %s\n", indent, "", (int)w + 1, keys[i], buf);
	}
	free(keys);
}

void out_size(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes && u + 1 < (int)sizeof(units) - 1 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)bytes, units[u]);
}

void out_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	double v = (double)bytes;
	long long tenths;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
		return;
	}
	/* 1023.6K would print as 1024K: one unit up instead */
	while (v >= 1023.5 && u + 1 < (int)sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	/* one decimal below 100, none above; no ".0" */
	tenths = (long long)(v * 10 + 0.5);
	if (tenths < 1000 && tenths % 10)
		snprintf(buf, size, "%lld.%lld%c", tenths / 10, tenths % 10, units[u]);
	else
		snprintf(buf, size, "%lld%c", (long long)(v + 0.5), units[u]);
}

void out_age(const char *iso, time_t now, char *buf, size_t size)
{
	struct tm tm = {0};
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	long long d;
	time_t t;

	if (!end || *end || (t = timegm(&tm)) == (time_t)-1) {
		snprintf(buf, size, "-");
		return;
	}
	d = now > t ? (long long)(now - t) : 0;
	if (d < 60)
		snprintf(buf, size, "%llds", d);
	else if (d < 3600)
		snprintf(buf, size, "%lldm%02llds", d / 60, d % 60);
	else if (d < 86400)
		snprintf(buf, size, "%lldh%02lldm", d / 3600, d % 3600 / 60);
	else
		snprintf(buf, size, "%lldd%02lldh", d / 86400, d % 86400 / 3600);
}

void out_bs_size(json_t *bs, char *buf, size_t size)
{
	json_t *cur = json_object_get(bs, "current_size");

	if (json_is_integer(cur) && json_integer_value(cur) >= 0)
		out_size((uint64_t)json_integer_value(cur), buf, size);
	else
		out_text(json_object_get(bs, "size"), buf, size);
}
