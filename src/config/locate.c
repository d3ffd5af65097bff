/* SPDX-License-Identifier: GPL-2.0-or-later */
/* locate.c: find the line of a field in the original JSON text.
 *
 * jansson reports lines for syntax errors only; semantic errors (found on
 * the parsed tree) name the offending field by its JSON path. This tiny
 * scanner walks the text along that path and returns the line where the
 * member's key (or the array element) starts, or the line of the deepest
 * ancestor that exists (a missing field is reported at its parent object).
 *
 * It is a scanner, not a parser: the text has already been accepted by
 * jansson. On anything unexpected it stops and answers the best line found
 * so far, never reading outside [text, text + len).
 */
#include <stdio.h>
#include <string.h>

#include "config/model.h"

#define LOC_KEY_MAX 256

struct loc_scan {
	const char *p;
	const char *end;
	int line;
};

static void loc_skip_ws(struct loc_scan *s)
{
	while (s->p < s->end) {
		char c = *s->p;
		if (c == '\n')
			s->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		s->p++;
	}
}

static int loc_hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Append code point cp as UTF-8 to buf (cap bytes); *n grows even when the
 * bytes do not fit, so an overlong key never compares equal. */
static void loc_put_utf8(char *buf, size_t cap, size_t *n, unsigned cp)
{
	unsigned char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | (cp >> 6));
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | (cp >> 12));
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | (cp >> 18));
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	for (size_t i = 0; i < k; i++, (*n)++)
		if (buf && *n < cap)
			buf[*n] = (char)b[i];
}

/* Scan a JSON string starting at s->p ('"'), decoding it into buf (cap
 * bytes, may be NULL) and its decoded length into *n. 0 or -1. */
static int loc_string(struct loc_scan *s, char *buf, size_t cap, size_t *n)
{
	*n = 0;
	if (s->p >= s->end || *s->p != '"')
		return -1;
	s->p++;
	while (s->p < s->end) {
		char c = *s->p++;
		unsigned cp;

		if (c == '"')
			return 0;
		if (c == '\n')
			s->line++;
		if (c != '\\') {
			if (buf && *n < cap)
				buf[*n] = c;
			(*n)++;
			continue;
		}
		if (s->p >= s->end)
			return -1;
		c = *s->p++;
		switch (c) {
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			if (loc_hex4(s->p, s->end, &cp))
				return -1;
			s->p += 4;
			/* RFC 8259 7: a surrogate pair encodes one code point */
			if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
			    s->p[1] == 'u') {
				unsigned lo;
				if (loc_hex4(s->p + 2, s->end, &lo) == 0 && lo >= 0xdc00 &&
				    lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					s->p += 6;
				}
			}
			break;
		default:
			cp = (unsigned char)c;
			break; /* \" \\ \/ */
		}
		loc_put_utf8(buf, cap, n, cp);
	}
	return -1;
}

/* Skip one value (string, number, literal, object or array). 0 or -1. */
static int loc_skip_value(struct loc_scan *s)
{
	int depth = 0;
	size_t n;

	do {
		loc_skip_ws(s);
		if (s->p >= s->end)
			return -1;
		switch (*s->p) {
		case '"':
			if (loc_string(s, NULL, 0, &n))
				return -1;
			break;
		case '{':
		case '[':
			depth++;
			s->p++;
			break;
		case '}':
		case ']':
			depth--;
			s->p++;
			break;
		case ',':
		case ':':
			if (depth == 0)
				return -1;
			s->p++;
			break;
		default: {
			/* number or literal: up to the next delimiter */
			const char *start = s->p;
			while (s->p < s->end && *s->p != '\0' && !strchr(",:]}\" \t\r\n", *s->p))
				s->p++;
			if (s->p == start)
				return -1;
			break;
		}
		}
	} while (depth > 0);
	return depth == 0 ? 0 : -1;
}

enum loc_comp { LOC_END, LOC_KEY, LOC_INDEX, LOC_BAD };

/* Past a member's or an element's value and the ',' after it: false at
 * the end of its object or array, or on junk. */
static bool loc_past_value(struct loc_scan *s)
{
	if (loc_skip_value(s))
		return false;
	loc_skip_ws(s);
	if (s->p >= s->end || *s->p != ',')
		return false;
	s->p++;
	return true;
}

/* Next component of a path; a key is decoded into key[0 .. *keylen). */
static enum loc_comp loc_next(const char **pp, char *key, size_t *keylen, size_t *idx)
{
	const char *p = *pp;

	if (*p == '\0')
		return LOC_END;
	if (*p == '.')
		p++;
	if (*p == '[' && p[1] == '"') {
		struct loc_scan s = {.p = p + 1, .end = p + 1 + strlen(p + 1), .line = 0};
		if (loc_string(&s, key, LOC_KEY_MAX, keylen) || s.p >= s.end || *s.p != ']')
			return LOC_BAD;
		*pp = s.p + 1;
		return LOC_KEY;
	}
	if (*p == '[') {
		size_t v = 0;
		p++;
		if (*p < '0' || *p > '9')
			return LOC_BAD;
		while (*p >= '0' && *p <= '9') {
			if (v > (SIZE_MAX - 9) / 10)
				return LOC_BAD;
			v = v * 10 + (size_t)(*p++ - '0');
		}
		if (*p != ']')
			return LOC_BAD;
		*pp = p + 1;
		*idx = v;
		return LOC_INDEX;
	}
	size_t n = 0;
	while (p[n] && p[n] != '.' && p[n] != '[')
		n++;
	if (n == 0 || n > LOC_KEY_MAX)
		return LOC_BAD;
	memcpy(key, p, n);
	*keylen = n;
	*pp = p + n;
	return LOC_KEY;
}

int cfg_locate_line(const char *text, size_t len, const char *path)
{
	struct loc_scan s = {.p = text, .end = text + len, .line = 1};
	char want[LOC_KEY_MAX], got[LOC_KEY_MAX];
	size_t wantlen = 0, gotlen, idx = 0;
	enum loc_comp comp;
	int best;

	if (!text)
		return 0;
	loc_skip_ws(&s);
	if (s.p >= s.end)
		return 0;
	best = s.line;
	while ((comp = loc_next(&path, want, &wantlen, &idx)) != LOC_END) {
		bool found = false;

		if (comp == LOC_BAD)
			return best;
		loc_skip_ws(&s);
		if (comp == LOC_KEY) {
			if (s.p >= s.end || *s.p != '{')
				return best;
			s.p++;
			for (;;) {
				loc_skip_ws(&s);
				if (s.p >= s.end || *s.p != '"')
					return best; /* '}' (not found) or junk */
				int key_line = s.line;
				if (loc_string(&s, got, sizeof(got), &gotlen))
					return best;
				loc_skip_ws(&s);
				if (s.p >= s.end || *s.p != ':')
					return best;
				s.p++;
				if (gotlen == wantlen && memcmp(got, want, wantlen) == 0) {
					best = key_line;
					found = true;
					break;
				}
				if (!loc_past_value(&s))
					return best;
			}
		} else {
			if (s.p >= s.end || *s.p != '[')
				return best;
			s.p++;
			for (size_t i = 0;; i++) {
				loc_skip_ws(&s);
				if (s.p >= s.end || *s.p == ']')
					return best;
				if (i == idx) {
					best = s.line;
					found = true;
					break;
				}
				if (!loc_past_value(&s))
					return best;
			}
		}
		if (!found)
			return best;
	}
	return best;
}

static bool loc_plain_key(const char *key, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

static void loc_append(char *path, size_t size, const char *s, size_t n)
{
	size_t len = strnlen(path, size);

	if (len + n + 1 > size)
		return; /* a truncated path still names an ancestor */
	memcpy(path + len, s, n);
	path[len + n] = '\0';
}

void cfg_path_key(char *path, size_t size, const char *key, size_t keylen)
{
	char buf[CFG_ERR_PATH_MAX];
	size_t n = 0;

	if (loc_plain_key(key, keylen) && keylen < sizeof(buf) - 1) {
		if (path[0] != '\0')
			buf[n++] = '.';
		memcpy(buf + n, key, keylen);
		loc_append(path, size, buf, n + keylen);
		return;
	}
	/* ["..."] with JSON escapes: any key, even one with '.', '[' or '"' */
	buf[n++] = '[';
	buf[n++] = '"';
	for (size_t i = 0; i < keylen; i++) {
		unsigned char c = (unsigned char)key[i];
		if (n + 8 >= sizeof(buf))
			return;
		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\u%04x", c);
		} else {
			buf[n++] = (char)c;
		}
	}
	buf[n++] = '"';
	buf[n++] = ']';
	loc_append(path, size, buf, n);
}

void cfg_path_index(char *path, size_t size, size_t idx)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "[%zu]", idx);

	if (n > 0)
		loc_append(path, size, buf, (size_t)n);
}
