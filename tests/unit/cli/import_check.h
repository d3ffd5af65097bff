/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import_check.h: shared by the importer tests: run an importer on
 * tests/data/import/<kind>/<name>.<ext> and compare the canonical config
 * with <name>.json and the report with <name>.report (the data directory
 * written as "@DATA@" in the report). With UT_IMPORT_SHOW=1 in the
 * environment, a mismatch prints the whole actual text. */
#ifndef UT_TEST_IMPORT_CHECK_H
#define UT_TEST_IMPORT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"

#define DATA_DIR SOURCE_ROOT "/tests/data/import"

static char *slurp(const char *path)
{
	size_t len;
	char *text;

	if (imp_read_file(path, &text, &len))
		fail_msg("cannot read %s", path);
	return text;
}

/* text with every occurrence of from replaced by to */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to), cap = strlen(text) + 1;
	char *out;

	for (const char *p = text; (p = strstr(p, from)); p += fl)
		cap += tl;
	out = malloc(cap);
	assert_non_null(out);
	for (const char *p = text;;) {
		const char *q = strstr(p, from);
		size_t k = q ? (size_t)(q - p) : strlen(p);
		memcpy(out + n, p, k);
		n += k;
		if (!q)
			break;
		memcpy(out + n, to, tl);
		n += tl;
		p = q + fl;
	}
	out[n] = '\0';
	return out;
}

static char *report_text(const struct imp_result *r, const char *dir)
{
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	imp_report_print(r, f);
	fclose(f);
	out = replace_all(buf, dir, "@DATA@");
	free(buf);
	return out;
}

static void expect_text(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	if (getenv("UT_IMPORT_SHOW"))
		fprintf(stderr, "---- %s (actual) ----\n%s---- end ----\n", what, got);
	/* the first differing line */
	for (int line = 1;; line++) {
		size_t a = strcspn(got, "\n"), b = strcspn(want, "\n");
		if (a != b || memcmp(got, want, a) != 0)
			fail_msg("%s: line %d differs:\n  got:  %.*s\n  want: %.*s", what, line,
				 (int)a, got, (int)b, want);
		if (!got[a] || !want[b])
			fail_msg("%s: one text ends at line %d", what, line);
		got += a + 1;
		want += b + 1;
	}
}

/* The canonical config and the report of r against the expected files. */
static void expect_import(const struct imp_result *r, const char *dir, const char *name)
{
	char path[4096], *text, *want, *rep;
	struct cfg_err err;
	int rc = imp_finish(r, &text, &err);

	if (rc)
		fail_msg("imp_finish: %d: line %d: %s: %s", rc, err.line, err.path, err.msg);
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	want = slurp(path);
	expect_text(path, text, want);
	free(text);
	free(want);
	snprintf(path, sizeof(path), "%s/%s.report", dir, name);
	want = slurp(path);
	rep = report_text(r, dir);
	expect_text(path, rep, want);
	free(rep);
	free(want);
}

#endif
