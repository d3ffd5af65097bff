/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns_proto.c: iSNSP PDUs and attributes (RFC 4171 5, 6); the format and
 * its checks are described in isns_proto.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/isns_proto.h"
#include "lib/endian.h"

const char *isns_status_name(uint32_t status)
{
	/* RFC 4171 5.7.3 */
	static const char *const names[] = {
	    "Successful",
	    "Unknown Error",
	    "Message Format Error",
	    "Invalid Registration",
	    "RESERVED",
	    "Invalid Query",
	    "Source Unknown",
	    "Source Absent",
	    "Source Unauthorized",
	    "No Such Entry",
	    "Version Not Supported",
	    "Internal Error",
	    "Busy",
	    "Option Not Understood",
	    "Invalid Update",
	    "Message (FUNCTION_ID) Not Supported",
	    "SCN Event Rejected",
	    "SCN Registration Rejected",
	    "Attribute Not Implemented",
	    "FC_DOMAIN_ID Not Available",
	    "FC_DOMAIN_ID Not Allocated",
	    "ESI Not Available",
	    "Invalid Deregistration",
	    "Registration Feature Not Supported",
	};
	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown status";
}

void isns_hdr_put(uint8_t *p, const struct isns_hdr *h)
{
	put_be16(p, h->version);
	put_be16(p + 2, h->func);
	put_be16(p + 4, h->len);
	put_be16(p + 6, h->flags);
	put_be16(p + 8, h->xid);
	put_be16(p + 10, h->seq);
}

int isns_hdr_get(const uint8_t *p, struct isns_hdr *h)
{
	h->version = get_be16(p);
	h->func = get_be16(p + 2);
	h->len = get_be16(p + 4);
	h->flags = get_be16(p + 6);
	h->xid = get_be16(p + 8);
	h->seq = get_be16(p + 10);
	if (h->version != ISNS_VERSION || h->len % 4)
		return -EBADMSG;
	return 0;
}

void isns_buf_free(struct isns_buf *b)
{
	free(b->p);
	*b = (struct isns_buf){0};
}

static uint8_t *buf_grow(struct isns_buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n > ISNS_HDR_LEN + ISNS_PAYLOAD_MAX) {
		b->failed = true;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 512;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

void isns_msg_begin(struct isns_buf *b, uint16_t func, uint16_t flags, uint16_t xid)
{
	struct isns_hdr h = {.version = ISNS_VERSION,
			     .func = func,
			     .flags = (uint16_t)(flags | ISNS_F_FIRST | ISNS_F_LAST),
			     .xid = xid};
	uint8_t *p;

	b->len = 0;
	b->failed = false;
	p = buf_grow(b, ISNS_HDR_LEN);
	if (p)
		isns_hdr_put(p, &h);
}

size_t isns_msg_payload(const struct isns_buf *b)
{
	return b->len > ISNS_HDR_LEN ? b->len - ISNS_HDR_LEN : 0;
}

int isns_msg_end(struct isns_buf *b)
{
	if (b->failed)
		return b->p && b->len ? -EMSGSIZE : -ENOMEM;
	put_be16(b->p + 4, (uint16_t)isns_msg_payload(b));
	return 0;
}

static void put_tl(struct isns_buf *b, uint32_t tag, uint32_t len, const void *val, size_t n)
{
	uint8_t *p = buf_grow(b, 8 + (size_t)len);

	if (!p)
		return;
	put_be32(p, tag);
	put_be32(p + 4, len);
	memset(p + 8, 0, len);
	if (n)
		memcpy(p + 8, val, n);
}

void isns_put_u32(struct isns_buf *b, uint32_t tag, uint32_t v)
{
	uint8_t w[4];

	put_be32(w, v);
	put_tl(b, tag, 4, w, 4);
}

void isns_put_str(struct isns_buf *b, uint32_t tag, const char *s)
{
	size_t n = strlen(s);

	/* NUL-terminated, NUL-padded to a multiple of 4 (5.5.1) */
	put_tl(b, tag, (uint32_t)((n + 4) & ~(size_t)3), s, n);
}

void isns_put_nil(struct isns_buf *b, uint32_t tag)
{
	put_tl(b, tag, 0, NULL, 0);
}

void isns_put_ip(struct isns_buf *b, uint32_t tag, const uint8_t ip[16])
{
	put_tl(b, tag, 16, ip, 16);
}

void isns_put_raw(struct isns_buf *b, const void *src, size_t n)
{
	uint8_t *p = buf_grow(b, n);

	if (p && n)
		memcpy(p, src, n);
}

void isns_iter_init(struct isns_iter *it, const uint8_t *p, size_t n)
{
	it->p = p;
	it->n = n;
	it->off = 0;
}

int isns_attr_next(struct isns_iter *it, struct isns_attr *a)
{
	size_t left = it->n - it->off;

	if (!left)
		return 0;
	if (left < 8)
		return -EBADMSG;
	a->tag = get_be32(it->p + it->off);
	a->len = get_be32(it->p + it->off + 4);
	if (a->len % 4 || a->len > left - 8)
		return -EBADMSG;
	a->val = it->p + it->off + 8;
	it->off += 8 + (size_t)a->len;
	return 1;
}

int isns_attr_u32(const struct isns_attr *a, uint32_t *v)
{
	if (a->len != 4)
		return -EBADMSG;
	*v = get_be32(a->val);
	return 0;
}

int isns_attr_str(const struct isns_attr *a, char *out, size_t size)
{
	const uint8_t *nul = a->len ? memchr(a->val, 0, a->len) : NULL;
	size_t n;

	if (!nul)
		return -EBADMSG;
	n = (size_t)(nul - a->val);
	if (n >= size)
		return -EBADMSG;
	memcpy(out, a->val, n);
	out[n] = 0;
	return 0;
}

int isns_rsp_parse(const uint8_t *p, size_t n, uint32_t *status, struct isns_iter *attrs)
{
	if (n < 4)
		return -EBADMSG;
	*status = get_be32(p);
	isns_iter_init(attrs, p + 4, n - 4);
	return 0;
}

int isns_esi_check(const uint8_t *p, size_t n)
{
	struct isns_iter it;
	struct isns_attr a;
	bool eid = false;
	int rc;

	isns_iter_init(&it, p, n);
	while ((rc = isns_attr_next(&it, &a)) > 0)
		eid |= a.tag == ISNS_TAG_ENTITY_ID && a.len > 0;
	return rc < 0 || !eid ? -EBADMSG : 0;
}

int isns_esi_rsp(struct isns_buf *b, uint16_t xid, const uint8_t *req, size_t n)
{
	uint8_t st[4] = {0}; /* the status code: 4 bytes before the attributes */

	isns_msg_begin(b, ISNS_RESPONSE | ISNS_ESI, ISNS_F_CLIENT, xid);
	isns_put_raw(b, st, 4);
	isns_put_raw(b, req, n);
	return isns_msg_end(b);
}

int isns_scn_parse(const uint8_t *p, size_t n, char *dest, size_t size, uint32_t *bitmap)
{
	struct isns_iter it;
	struct isns_attr a;
	bool first = true;
	int rc;

	*bitmap = 0;
	isns_iter_init(&it, p, n);
	while ((rc = isns_attr_next(&it, &a)) > 0) {
		uint32_t v;

		if (first) {
			/* 5.6.5.8: the Destination Attribute comes first */
			if (a.tag != ISNS_TAG_ISCSI_NAME || isns_attr_str(&a, dest, size))
				return -EBADMSG;
			first = false;
		} else if (a.tag == ISNS_TAG_ISCSI_SCN_BITMAP) {
			if (isns_attr_u32(&a, &v))
				return -EBADMSG;
			*bitmap |= v;
		}
	}
	return rc < 0 || first ? -EBADMSG : 0;
}

int isns_scn_rsp(struct isns_buf *b, uint16_t xid, const char *dest)
{
	uint8_t st[4] = {0};

	isns_msg_begin(b, ISNS_RESPONSE | ISNS_SCN, ISNS_F_CLIENT, xid);
	isns_put_raw(b, st, 4);
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, dest);
	return isns_msg_end(b);
}

uint8_t *isns_rx_space(struct isns_rx *rx, size_t want)
{
	if (rx->incap - rx->inlen < want) {
		size_t cap = rx->inlen + want;
		uint8_t *p = realloc(rx->in, cap);

		if (!p)
			return NULL;
		rx->in = p;
		rx->incap = cap;
	}
	return rx->in + rx->inlen;
}

void isns_rx_added(struct isns_rx *rx, size_t n)
{
	rx->inlen += n;
}

void isns_rx_free(struct isns_rx *rx)
{
	free(rx->in);
	free(rx->msg);
	*rx = (struct isns_rx){0};
}

/* Drop the first n bytes of rx->in. */
static void rx_consume(struct isns_rx *rx, size_t n)
{
	memmove(rx->in, rx->in + n, rx->inlen - n);
	rx->inlen -= n;
}

int isns_rx_take(struct isns_rx *rx, struct isns_msg *m)
{
	for (;;) {
		struct isns_hdr h;
		uint8_t *p;

		if (rx->inlen < ISNS_HDR_LEN)
			return 0;
		if (isns_hdr_get(rx->in, &h) || (h.flags & ISNS_F_AUTH))
			return -EBADMSG;
		if (rx->inlen < ISNS_HDR_LEN + (size_t)h.len)
			return 0;
		if (h.flags & ISNS_F_FIRST) {
			if (h.seq != 0)
				return -EBADMSG;
			rx->open = true;
			rx->mlen = 0;
			rx->func = h.func;
			rx->flags = h.flags;
			rx->xid = h.xid;
			rx->next_seq = 0;
		} else if (!rx->open || h.func != rx->func || h.xid != rx->xid ||
			   h.seq != rx->next_seq) {
			return -EBADMSG;
		}
		if (rx->mlen + h.len > ISNS_MSG_MAX)
			return -EBADMSG;
		p = realloc(rx->msg, rx->mlen + h.len + 1);
		if (!p)
			return -ENOMEM;
		rx->msg = p;
		memcpy(rx->msg + rx->mlen, rx->in + ISNS_HDR_LEN, h.len);
		rx->mlen += h.len;
		rx->next_seq++;
		rx_consume(rx, ISNS_HDR_LEN + (size_t)h.len);
		if (h.flags & ISNS_F_LAST) {
			rx->open = false;
			m->func = rx->func;
			m->flags = rx->flags;
			m->xid = rx->xid;
			m->p = rx->msg;
			m->n = rx->mlen;
			return 1;
		}
	}
}
