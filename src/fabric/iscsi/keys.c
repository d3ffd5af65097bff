/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.c: key=value codec (RFC 7143 6.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/keys.h"

static bool key_char_ok(uint8_t c)
{
	/* RFC 7143 6.1: key names use letters, digits, '.', '-', '+', '@', '_' */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '+' || c == '@' || c == '_';
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

enum iscsi_keys_err iscsi_keys_parse(const uint8_t *data, size_t len, struct iscsi_kv *out,
				     unsigned max, unsigned *n)
{
	size_t off = 0;
	unsigned cnt = 0;

	*n = 0;
	while (off < len) {
		const uint8_t *rec = data + off;
		const uint8_t *end = memchr(rec, 0, len - off);
		const uint8_t *eq;
		size_t rlen;

		if (!end)
			return ISCSI_KEYS_ENOTERM;
		rlen = (size_t)(end - rec);
		if (rlen == 0) {
			/* an empty record is padding only when nothing follows */
			if (all_zero(rec, len - off))
				break;
			return ISCSI_KEYS_EEMPTYREC;
		}
		eq = memchr(rec, '=', rlen);
		if (!eq)
			return ISCSI_KEYS_ENOEQ;
		if (eq == rec || (size_t)(eq - rec) > ISCSI_KEY_NAME_MAX)
			return ISCSI_KEYS_EKEYNAME;
		for (const uint8_t *k = rec; k < eq; k++)
			/* "X#": IANA-registered extension keys (RFC 7143 6.1) */
			if (!key_char_ok(*k) && !(k == rec + 1 && *k == '#' && rec[0] == 'X'))
				return ISCSI_KEYS_EKEYNAME;
		if ((size_t)(end - eq - 1) > ISCSI_KEYS_VALUE_HARD_MAX)
			return ISCSI_KEYS_EVALLEN;
		if (cnt >= max)
			return ISCSI_KEYS_ETOOMANY;
		out[cnt].key = rec;
		out[cnt].key_len = (uint32_t)(eq - rec);
		out[cnt].val = eq + 1;
		out[cnt].val_len = (uint32_t)(end - eq - 1);
		cnt++;
		off += rlen + 1;
	}
	*n = cnt;
	return ISCSI_KEYS_OK;
}

const char *iscsi_keys_strerror(enum iscsi_keys_err e)
{
	static const char *const msg[] = {
	    [ISCSI_KEYS_OK] = "ok",
	    [ISCSI_KEYS_ENOEQ] = "record without '='",
	    [ISCSI_KEYS_EKEYNAME] = "invalid key name",
	    [ISCSI_KEYS_EVALLEN] = "value too long",
	    [ISCSI_KEYS_ETOOMANY] = "too many keys",
	    [ISCSI_KEYS_ENOTERM] = "record not terminated by 0x00",
	    [ISCSI_KEYS_EEMPTYREC] = "empty record",
	};

	if ((unsigned)e < sizeof(msg) / sizeof(msg[0]) && msg[e])
		return msg[e];
	return "?";
}

bool iscsi_kv_key_is(const struct iscsi_kv *kv, const char *name)
{
	size_t l = strlen(name);

	return kv->key_len == l && memcmp(kv->key, name, l) == 0;
}

bool iscsi_kv_val_is(const struct iscsi_kv *kv, const char *val)
{
	size_t l = strlen(val);

	return kv->val_len == l && memcmp(kv->val, val, l) == 0;
}

bool iscsi_parse_number(const uint8_t *p, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (len == 0)
		return false;
	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < len; i++) {
		unsigned d;

		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (base == 16 && p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (base == 16 && p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return false;
		if (v > max / base)
			return false;
		v *= base;
		if (d > max - v)
			return false;
		v += d;
	}
	*out = v;
	return true;
}

void iscsi_kbuf_init(struct iscsi_kbuf *b, uint32_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap;
}

void iscsi_kbuf_free(struct iscsi_kbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->size = 0;
	b->overflow = false;
}

void iscsi_kbuf_reset(struct iscsi_kbuf *b)
{
	b->len = 0;
	b->overflow = false;
}

void iscsi_kbuf_addn(struct iscsi_kbuf *b, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	size_t need = klen + 1 + vlen + 1;

	if (b->overflow || need > b->cap - b->len) {
		b->overflow = true;
		return;
	}
	if (b->len + need > b->size) {
		size_t nsize = b->size ? b->size : 512;
		uint8_t *nb;

		while (nsize < b->len + need)
			nsize *= 2;
		if (nsize > b->cap)
			nsize = b->cap;
		nb = realloc(b->buf, nsize);
		if (!nb) {
			b->overflow = true;
			return;
		}
		b->buf = nb;
		b->size = (uint32_t)nsize;
	}
	memcpy(b->buf + b->len, key, klen);
	b->buf[b->len + klen] = '=';
	memcpy(b->buf + b->len + klen + 1, val, vlen);
	b->buf[b->len + klen + 1 + vlen] = 0;
	b->len += (uint32_t)need;
}

void iscsi_kbuf_add(struct iscsi_kbuf *b, const char *key, const char *val)
{
	iscsi_kbuf_addn(b, key, strlen(key), val, strlen(val));
}

void iscsi_kbuf_add_num(struct iscsi_kbuf *b, const char *key, uint64_t v)
{
	char num[24];
	int l = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);

	iscsi_kbuf_addn(b, key, strlen(key), num, (size_t)l);
}
