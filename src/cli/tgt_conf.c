/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tgt_conf.c: the syntax of tgt's targets.conf, as tgt-admin reads it
 * (Perl Config::General with UseApacheInclude, IncludeDirectories,
 * IncludeGlob, MergeDuplicateBlocks), into a tree of nodes in file order.
 *
 * What is recognised, in Config::General's order per line:
 *   - C comments: a line holding "/ * ... * /" loses that span; a line that
 *     starts with "/ *" opens a comment up to the line holding "* /";
 *   - '#' up to the end of the line, unless escaped as "\#";
 *   - a trailing '\' continues the line on the next one;
 *   - "include PATH" / "includeoptional PATH" (case-insensitive, PATH may
 *     be quoted): a file, a directory (its files in byte order) or a glob;
 *     each file is read once; relative paths resolve against the directory
 *     of the including file (tgt-admin resolves them against its working
 *     directory, normally "/"; absolute paths are the common case);
 *   - "<name arg>" opens a block, "</name>" closes it, "<name arg/>" is an
 *     empty block;
 *   - "option value" or "option = value" (value optional; enclosing double
 *     quotes removed, "\#" unescaped).
 * Here-documents ("option <<EOF") are refused with the file and line.
 * Semantics (what the options mean) are in import_tgt.c.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/import.h"
#include "cli/tgt_conf.h"

#define TGT_MAX_DEPTH	   8   /* nested blocks */
#define TGT_MAX_INCLUDE	   16  /* nested includes */
#define TGT_MAX_FILES	   256 /* files read in all */
#define TGT_MAX_NODES	   (1u << 20)
#define TGT_MAX_LINE_BYTES (1u << 16)

struct tgt_parser {
	struct tgt_conf *conf;
	struct tgt_node *stack[TGT_MAX_DEPTH + 1];
	int depth;    /* stack[depth] is the open block (0: the root) */
	int includes; /* nesting of include */
	size_t nodes;
	char *err;
	size_t errsize;
};

UT_PRINTF(4, 5)
static int tgt_perr(struct tgt_parser *p, const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(p->err, p->errsize, "%s:%d: %s", file, line, msg);
	else
		snprintf(p->err, p->errsize, "%s: %s", file, msg);
	return -EINVAL;
}

static void tgt_node_free(struct tgt_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		tgt_node_free(n->kids[i]);
	free(n->kids);
	free(n->key);
	free(n->value);
	free(n);
}

void tgt_conf_free(struct tgt_conf *c)
{
	if (!c)
		return;
	tgt_node_free(c->root);
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i]);
		free(c->ids[i]);
	}
	free(c->files);
	free(c->ids);
	free(c);
}

static int tgt_add_kid(struct tgt_parser *p, struct tgt_node *parent, struct tgt_node *kid)
{
	if (p->nodes >= TGT_MAX_NODES)
		return -E2BIG;
	if (parent->nkids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct tgt_node **v = realloc(parent->kids, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		parent->kids = v;
		parent->cap = cap;
	}
	parent->kids[parent->nkids++] = kid;
	p->nodes++;
	return 0;
}

static char *tgt_strndup_trim(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return strndup(s, n);
}

/* Value of an option: enclosing quotes removed, "\#" -> "#". */
static char *tgt_value(const char *s, size_t n)
{
	char *v;
	size_t j = 0;

	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	v = malloc(n + 1);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '#')
			continue;
		v[j++] = s[i];
	}
	v[j] = '\0';
	return v;
}

static int tgt_include(struct tgt_parser *p, const char *from, int line, const char *spec,
		       bool optional);

/* One logical line (comments and continuations already handled). */
static int tgt_line(struct tgt_parser *p, const char *file, int lineno, char *s)
{
	size_t n = strlen(s), k;
	struct tgt_node *node;
	int rc;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	while (*s == ' ' || *s == '\t') {
		s++;
		n--;
	}
	if (n == 0)
		return 0;

	/* include / includeoptional */
	k = strcspn(s, " \t=");
	if ((k == 7 && strncasecmp(s, "include", 7) == 0) ||
	    (k == 15 && strncasecmp(s, "includeoptional", 15) == 0)) {
		char *arg = s + k;
		size_t an;
		arg += strspn(arg, " \t");
		an = strlen(arg);
		if (an >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg[an - 1] == arg[0]) {
			arg[an - 1] = '\0';
			arg++;
		}
		if (*arg == '\0')
			return tgt_perr(p, file, lineno, "include without a file");
		return tgt_include(p, file, lineno, arg, k == 15);
	}

	if (s[0] == '<' && s[n - 1] == '>') {
		bool empty = n >= 3 && s[n - 2] == '/' && s[1] != '/';
		char *in = s + 1;
		size_t in_n = n - 2 - (empty ? 1 : 0);

		if (s[1] == '/') { /* </name> */
			char *name = tgt_strndup_trim(s + 2, n - 3);
			if (!name)
				return -ENOMEM;
			if (p->depth == 0) {
				rc = tgt_perr(p, file, lineno, "</%s> closes no block", name);
				free(name);
				return rc;
			}
			if (strcasecmp(name, p->stack[p->depth]->key) != 0) {
				struct tgt_node *open = p->stack[p->depth];
				rc = tgt_perr(p, file, lineno, "</%s> closes <%s> opened at %s:%d",
					      name, open->key, open->file, open->line);
				free(name);
				return rc;
			}
			free(name);
			p->depth--;
			return 0;
		}
		node = calloc(1, sizeof(*node));
		if (!node)
			return -ENOMEM;
		node->is_block = true;
		node->file = file;
		node->line = lineno;
		k = strcspn(in, " \t");
		if (k > in_n)
			k = in_n;
		node->key = strndup(in, k);
		if (k < in_n) {
			const char *a = in + k;
			size_t an = in_n - k;
			char *t = tgt_strndup_trim(a, an);
			if (t && t[0]) {
				node->value = tgt_value(t, strlen(t));
				free(t);
				if (!node->value) {
					tgt_node_free(node);
					return -ENOMEM;
				}
			} else {
				free(t);
			}
		}
		if (!node->key || !node->key[0]) {
			tgt_node_free(node);
			return tgt_perr(p, file, lineno, "a block without a name");
		}
		rc = tgt_add_kid(p, p->stack[p->depth], node);
		if (rc) {
			tgt_node_free(node);
			return rc;
		}
		if (!empty) {
			if (p->depth == TGT_MAX_DEPTH)
				return tgt_perr(p, file, lineno, "blocks nested deeper than %d",
						TGT_MAX_DEPTH);
			p->stack[++p->depth] = node;
		}
		return 0;
	}

	/* option [=] value: split at the first blank or '=' */
	node = calloc(1, sizeof(*node));
	if (!node)
		return -ENOMEM;
	node->file = file;
	node->line = lineno;
	k = strcspn(s, " \t=");
	node->key = strndup(s, k);
	if (node->key && k < n) {
		const char *v = s + k;
		v += strspn(v, " \t");
		if (*v == '=') {
			v++;
			v += strspn(v, " \t");
		}
		if (strncmp(v, "<<", 2) == 0) {
			tgt_node_free(node);
			return tgt_perr(
			    p, file, lineno,
			    "here-documents (\"<<\") are not supported in targets.conf");
		}
		if (*v)
			node->value = tgt_value(v, strlen(v));
		if (*v && !node->value) {
			tgt_node_free(node);
			return -ENOMEM;
		}
	}
	if (!node->key) {
		tgt_node_free(node);
		return -ENOMEM;
	}
	rc = tgt_add_kid(p, p->stack[p->depth], node);
	if (rc)
		tgt_node_free(node);
	return rc;
}

/* Remove what Config::General treats as comments from one physical line;
 * *in_c tracks a C comment across lines. Returns false when the whole line
 * is to be ignored. */
static bool tgt_strip_comments(char *s, bool *in_c)
{
	char *open = strstr(s, "/*");
	char *close = open ? strstr(open + 2, "*/") : NULL;
	const char *t = s + strspn(s, " \t");

	if (open && close) {
		/* "/ * ... * /" on one line: the span to the last "* /" goes */
		char *last = close, *q;
		while ((q = strstr(last + 2, "*/")))
			last = q;
		memmove(open, last + 2, strlen(last + 2) + 1);
	} else if (strncmp(t, "/*", 2) == 0) {
		*in_c = true;
		return false;
	} else if ((close = strstr(s, "*/"))) {
		char *last = close, *q;
		while ((q = strstr(last + 2, "*/")))
			last = q;
		*in_c = false;
		memmove(s, last + 2, strlen(last + 2) + 1);
	}
	if (*in_c)
		return false;
	for (char *h = s; (h = strchr(h, '#')); h++) {
		if (h > s && h[-1] == '\\')
			continue;
		*h = '\0';
		break;
	}
	return true;
}

static int tgt_parse_text(struct tgt_parser *p, const char *file, char *text)
{
	char *longline = NULL;
	size_t longlen = 0;
	int lineno = 0, longstart = 0, rc = 0;
	bool in_c = false;

	for (char *line = text, *next; line && rc == 0; line = next) {
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (strlen(line) > TGT_MAX_LINE_BYTES) {
			rc = tgt_perr(p, file, lineno, "line longer than %u bytes",
				      TGT_MAX_LINE_BYTES);
			break;
		}
		if (!tgt_strip_comments(line, &in_c))
			continue;
		n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (n && line[n - 1] == '\\' && !(n >= 2 && line[n - 2] == '\\')) {
			/* continuation: collect without the backslash */
			char *t = line + strspn(line, " \t"), *nl;
			size_t tn = strlen(t) - 1;
			if (longlen + tn > TGT_MAX_LINE_BYTES) {
				rc = tgt_perr(p, file, lineno, "continued line too long");
				break;
			}
			nl = realloc(longline, longlen + tn + 1);
			if (!nl) {
				rc = -ENOMEM;
				break;
			}
			longline = nl;
			memcpy(longline + longlen, t, tn);
			longlen += tn;
			longline[longlen] = '\0';
			if (!longstart)
				longstart = lineno;
			continue;
		}
		if (longline) {
			char *t = line + strspn(line, " \t"), *nl;
			size_t tn = strlen(t);
			nl = realloc(longline, longlen + tn + 1);
			if (!nl) {
				rc = -ENOMEM;
				break;
			}
			longline = nl;
			memcpy(longline + longlen, t, tn + 1);
			rc = tgt_line(p, file, longstart, longline);
			free(longline);
			longline = NULL;
			longlen = 0;
			longstart = 0;
			continue;
		}
		rc = tgt_line(p, file, lineno, line);
	}
	if (rc == 0 && longline)
		rc = tgt_line(p, file, longstart, longline);
	free(longline);
	return rc;
}

/* The file's path as kept in the tree (each file is read once). */
static const char *tgt_remember(struct tgt_parser *p, const char *path, bool *seen)
{
	struct tgt_conf *c = p->conf;
	char real[PATH_MAX], **v;
	const char *id = realpath(path, real) ? real : path;

	/* the same file under another spelling ("a/../a/x.conf") is the same */
	*seen = false;
	for (size_t i = 0; i < c->nfiles; i++) {
		if (strcmp(c->ids[i], id) == 0) {
			*seen = true;
			return c->files[i];
		}
	}
	if (c->nfiles == TGT_MAX_FILES)
		return NULL;
	v = realloc(c->files, (c->nfiles + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->files = v;
	v = realloc(c->ids, (c->nfiles + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->ids = v;
	c->files[c->nfiles] = strdup(path);
	c->ids[c->nfiles] = strdup(id);
	if (!c->files[c->nfiles] || !c->ids[c->nfiles]) {
		free(c->files[c->nfiles]);
		free(c->ids[c->nfiles]);
		return NULL;
	}
	return c->files[c->nfiles++];
}

static int tgt_parse_file(struct tgt_parser *p, const char *path, const char *from, int line)
{
	const char *kept;
	size_t len;
	char *text;
	bool seen;
	int rc;

	kept = tgt_remember(p, path, &seen);
	if (!kept)
		return tgt_perr(p, from ? from : path, line, "too many files (at most %d)",
				TGT_MAX_FILES);
	if (seen)
		return 0; /* Config::General reads a file once */
	rc = imp_read_file(path, &text, &len);
	if (rc) {
		if (from)
			return tgt_perr(p, from, line, "include %s: %s", path, strerror(-rc));
		tgt_perr(p, path, 0, "%s", strerror(-rc));
		return rc;
	}
	if (memchr(text, '\0', len)) {
		free(text);
		return tgt_perr(p, kept, 0, "contains a NUL byte: not a text file");
	}
	rc = tgt_parse_text(p, kept, text);
	free(text);
	return rc;
}

static int tgt_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int tgt_include_dir(struct tgt_parser *p, const char *from, int line, const char *dir)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d)
		return tgt_perr(p, from, line, "include %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char path[CFG_FULL_PATH_MAX], **v;
		struct stat st;

		int k;

		if (de->d_name[0] == '.')
			continue;
		k = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (k < 0 || (size_t)k >= sizeof(path)) {
			rc = tgt_perr(p, from, line, "include %s: a path is too long", dir);
			break;
		}
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(path))) {
			names = v ? v : names;
			rc = -ENOMEM;
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	if (rc == 0)
		qsort(names, n, sizeof(*names), tgt_cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = tgt_parse_file(p, names[i], from, line);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int tgt_include(struct tgt_parser *p, const char *from, int line, const char *spec,
		       bool optional)
{
	char path[CFG_FULL_PATH_MAX];
	struct stat st;
	glob_t g;
	int rc = 0;

	if (p->includes == TGT_MAX_INCLUDE)
		return tgt_perr(p, from, line, "includes nested deeper than %d", TGT_MAX_INCLUDE);
	if (spec[0] == '/') {
		snprintf(path, sizeof(path), "%s", spec);
	} else {
		char dir[CFG_FULL_PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", from);
		snprintf(path, sizeof(path), "%s/%s", dirname(dir), spec);
	}
	p->includes++;
	if (strpbrk(spec, "*?[{")) {
		int g_rc = glob(path, GLOB_BRACE | GLOB_NOSORT, NULL, &g);
		if (g_rc == 0) {
			qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), tgt_cmp_str);
			for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
				if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
					rc = tgt_parse_file(p, g.gl_pathv[i], from, line);
			globfree(&g);
		} else if (g_rc != GLOB_NOMATCH) {
			rc = tgt_perr(p, from, line, "include %s: cannot expand", spec);
		}
		/* a glob that matches nothing is not an error */
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = tgt_include_dir(p, from, line, path);
	} else if (optional && access(path, F_OK) != 0) {
		rc = 0;
	} else {
		rc = tgt_parse_file(p, path, from, line);
	}
	p->includes--;
	return rc;
}

int tgt_conf_load(const char *file, struct tgt_conf **out, char *err, size_t errsize)
{
	struct tgt_parser p = {.err = err, .errsize = errsize};
	int rc;

	*out = NULL;
	err[0] = '\0';
	p.conf = calloc(1, sizeof(*p.conf));
	if (!p.conf)
		return -ENOMEM;
	p.conf->root = calloc(1, sizeof(*p.conf->root));
	if (!p.conf->root || !(p.conf->root->key = strdup(""))) {
		tgt_conf_free(p.conf);
		return -ENOMEM;
	}
	p.conf->root->is_block = true;
	p.stack[0] = p.conf->root;
	rc = tgt_parse_file(&p, file, NULL, 0);
	if (rc == 0 && p.depth > 0) {
		struct tgt_node *open = p.stack[p.depth];
		rc = tgt_perr(&p, open->file, open->line, "<%s> is never closed", open->key);
	}
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errsize, "%s: out of memory", file);
	else if (rc == -E2BIG && !err[0])
		snprintf(err, errsize, "%s: more than %u entries", file, TGT_MAX_NODES);
	if (rc) {
		tgt_conf_free(p.conf);
		return rc;
	}
	*out = p.conf;
	return 0;
}
