/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_raw.c: PDU codec, incremental decoder, key=value text and the TCP
 * connection of the raw test initiator (RFC 7143 sections 6, 11). */
#include "iscsi_raw.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

enum { DEC_BHS, DEC_HDR_REST, DEC_DATA, DEC_DONE };

static uint32_t pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint32_t ir_pdu_itt(const struct ir_pdu *p)
{
	return get_be32(p->bhs.common.itt);
}

uint32_t ir_pdu_dsl(const struct ir_pdu *p)
{
	return get_be24(p->bhs.common.data_seg_len);
}

void ir_pdu_set_lengths(struct ir_pdu *p)
{
	p->bhs.common.total_ahs_len = (uint8_t)(p->ahs_len / 4);
	put_be24(p->bhs.common.data_seg_len, p->data_len);
}

void ir_pdu_free(struct ir_pdu *p)
{
	free(p->ahs);
	free(p->data);
	p->ahs = NULL;
	p->data = NULL;
	p->ahs_len = 0;
	p->data_len = 0;
}

/* clang-format off */
static const char *const opcode_names[64] = {
	[IR_OP_NOP_OUT] = "NOP-Out",
	[IR_OP_SCSI_CMD] = "SCSI-Command",
	[IR_OP_TMF_REQ] = "TMF-Request",
	[IR_OP_LOGIN_REQ] = "Login-Request",
	[IR_OP_TEXT_REQ] = "Text-Request",
	[IR_OP_DATA_OUT] = "Data-Out",
	[IR_OP_LOGOUT_REQ] = "Logout-Request",
	[IR_OP_SNACK_REQ] = "SNACK",
	[IR_OP_NOP_IN] = "NOP-In",
	[IR_OP_SCSI_RSP] = "SCSI-Response",
	[IR_OP_TMF_RSP] = "TMF-Response",
	[IR_OP_LOGIN_RSP] = "Login-Response",
	[IR_OP_TEXT_RSP] = "Text-Response",
	[IR_OP_DATA_IN] = "Data-In",
	[IR_OP_LOGOUT_RSP] = "Logout-Response",
	[IR_OP_R2T] = "R2T",
	[IR_OP_ASYNC_MSG] = "Async-Message",
	[IR_OP_REJECT] = "Reject",
};
/* clang-format on */

const char *ir_opcode_name(uint8_t opcode)
{
	const char *n = opcode_names[opcode & IR_OP_MASK];

	return n ? n : "unknown-opcode";
}

size_t ir_pdu_wire_len(const struct ir_pdu *p, bool hdigest, bool ddigest)
{
	size_t n = IR_BHS_LEN + p->ahs_len;

	if (hdigest)
		n += IR_DIGEST_LEN;
	n += pad4(p->data_len);
	if (ddigest && p->data_len)
		n += IR_DIGEST_LEN;
	return n;
}

ssize_t ir_pdu_encode(struct ir_pdu *p, bool hdigest, bool ddigest, unsigned flags, uint8_t *out,
		      size_t out_size)
{
	size_t need, off;
	uint32_t crc;

	if (flags & IR_ENC_NO_DIGESTS)
		hdigest = ddigest = false;
	if (flags & IR_ENC_FORCE_DIGESTS)
		hdigest = ddigest = true;
	need = ir_pdu_wire_len(p, hdigest, ddigest);
	if (out_size < need)
		return -ENOSPC;
	if (!(flags & IR_ENC_KEEP_LENGTHS))
		ir_pdu_set_lengths(p);
	memcpy(out, p->bhs.raw, IR_BHS_LEN);
	off = IR_BHS_LEN;
	if (p->ahs_len) {
		memcpy(out + off, p->ahs, p->ahs_len);
		off += p->ahs_len;
	}
	if (hdigest) {
		/* RFC 7143 11.2.3: the header digest covers BHS and AHS. */
		crc = crc32c(out, off);
		if (flags & IR_ENC_BAD_HDIGEST)
			crc ^= 0x1;
		put_le32(out + off, crc);
		off += IR_DIGEST_LEN;
	}
	if (p->data_len) {
		size_t start = off;

		memcpy(out + off, p->data, p->data_len);
		off += p->data_len;
		while (off & 3)
			out[off++] = 0;
		if (ddigest) {
			/* The data digest covers the data segment and its padding. */
			crc = crc32c(out + start, off - start);
			if (flags & IR_ENC_BAD_DDIGEST)
				crc ^= 0x80;
			put_le32(out + off, crc);
			off += IR_DIGEST_LEN;
		}
	}
	return (ssize_t)off;
}

/* ---- decoder ---- */

void ir_decoder_init(struct ir_decoder *d, bool hdigest, bool ddigest, uint32_t max_data)
{
	memset(d, 0, sizeof(*d));
	d->hdigest = hdigest;
	d->ddigest = ddigest;
	d->max_data = max_data;
	ir_decoder_reset(d);
}

void ir_decoder_reset(struct ir_decoder *d)
{
	free(d->data);
	d->data = NULL;
	ir_pdu_free(&d->pdu);
	d->hdr_have = 0;
	d->hdr_need = IR_BHS_LEN;
	d->data_have = 0;
	d->data_need = 0;
	d->state = DEC_BHS;
}

static int dec_header_done(struct ir_decoder *d)
{
	uint32_t ahs = d->pdu.bhs.common.total_ahs_len * 4u;
	uint32_t dsl;

	if (d->hdigest) {
		uint32_t want = crc32c(d->hdr, IR_BHS_LEN + ahs);

		if (get_le32(d->hdr + IR_BHS_LEN + ahs) != want)
			return -EBADMSG;
	}
	if (ahs) {
		d->pdu.ahs = malloc(ahs);
		if (!d->pdu.ahs)
			return -ENOMEM;
		memcpy(d->pdu.ahs, d->hdr + IR_BHS_LEN, ahs);
		d->pdu.ahs_len = ahs;
	}
	dsl = get_be24(d->pdu.bhs.common.data_seg_len);
	if (dsl > d->max_data)
		return -EMSGSIZE;
	d->pdu.data_len = dsl;
	d->data_need = pad4(dsl) + (d->ddigest && dsl ? IR_DIGEST_LEN : 0);
	d->data_have = 0;
	if (d->data_need) {
		d->data = malloc(d->data_need);
		if (!d->data)
			return -ENOMEM;
	}
	d->state = DEC_DATA;
	return 0;
}

static int dec_data_done(struct ir_decoder *d)
{
	uint32_t dsl = d->pdu.data_len;
	int rc = 1;

	d->state = DEC_DONE;
	if (!dsl) {
		free(d->data);
		d->data = NULL;
		return 1;
	}
	if (d->ddigest) {
		uint32_t want = crc32c(d->data, pad4(dsl));

		if (get_le32(d->data + pad4(dsl)) != want)
			rc = -EILSEQ;
	}
	d->pdu.data = d->data;
	d->data = NULL;
	return rc;
}

int ir_decoder_feed(struct ir_decoder *d, const uint8_t *buf, size_t len, size_t *used)
{
	size_t n;
	int rc;

	*used = 0;
	for (;;) {
		switch (d->state) {
		case DEC_BHS:
		case DEC_HDR_REST:
			n = UT_MIN(d->hdr_need - d->hdr_have, len - *used);
			memcpy(d->hdr + d->hdr_have, buf + *used, n);
			d->hdr_have += n;
			*used += n;
			if (d->hdr_have < d->hdr_need)
				return 0;
			if (d->state == DEC_BHS) {
				memcpy(d->pdu.bhs.raw, d->hdr, IR_BHS_LEN);
				d->hdr_need = IR_BHS_LEN + d->pdu.bhs.common.total_ahs_len * 4u +
					      (d->hdigest ? IR_DIGEST_LEN : 0);
				d->state = DEC_HDR_REST;
				if (d->hdr_have < d->hdr_need)
					continue;
			}
			rc = dec_header_done(d);
			if (rc < 0)
				return rc;
			continue;
		case DEC_DATA:
			n = UT_MIN(d->data_need - d->data_have, len - *used);
			if (n)
				memcpy(d->data + d->data_have, buf + *used, n);
			d->data_have += n;
			*used += n;
			if (d->data_have < d->data_need)
				return 0;
			return dec_data_done(d);
		default:
			return 1;
		}
	}
}

void ir_decoder_take(struct ir_decoder *d, struct ir_pdu *out)
{
	*out = d->pdu;
	memset(&d->pdu, 0, sizeof(d->pdu));
	ir_decoder_reset(d);
}

/* ---- key=value text ---- */

void ir_text_init(struct ir_text *t)
{
	memset(t, 0, sizeof(*t));
}

void ir_text_free(struct ir_text *t)
{
	free(t->buf);
	ir_text_init(t);
}

int ir_text_add_raw(struct ir_text *t, const void *bytes, size_t len)
{
	if (t->len + len > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		uint8_t *nb;

		while (cap < t->len + len)
			cap *= 2;
		nb = realloc(t->buf, cap);
		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->cap = cap;
	}
	if (len)
		memcpy(t->buf + t->len, bytes, len);
	t->len += len;
	return 0;
}

int ir_text_add(struct ir_text *t, const char *key, const char *value)
{
	int rc = ir_text_add_raw(t, key, strlen(key));

	if (!rc)
		rc = ir_text_add_raw(t, "=", 1);
	if (!rc)
		rc = ir_text_add_raw(t, value, strlen(value));
	if (!rc)
		rc = ir_text_add_raw(t, "", 1);
	return rc;
}

int ir_text_foreach(const uint8_t *buf, size_t len,
		    int (*fn)(void *arg, const uint8_t *key, size_t klen, const uint8_t *val,
			      size_t vlen),
		    void *arg)
{
	size_t off = 0;

	while (off < len) {
		const uint8_t *pair = buf + off;
		const uint8_t *end = memchr(pair, 0, len - off);
		size_t plen = end ? (size_t)(end - pair) : len - off;
		const uint8_t *eq = memchr(pair, '=', plen);
		int rc;

		if (plen) {
			if (eq)
				rc = fn(arg, pair, (size_t)(eq - pair), eq + 1,
					plen - (size_t)(eq - pair) - 1);
			else
				rc = fn(arg, pair, plen, NULL, 0);
			if (rc)
				return rc;
		}
		off += plen + 1;
	}
	return 0;
}

struct text_get_ctx {
	const char *key;
	size_t klen;
	char *val;
	size_t val_size;
	int found;
};

static int text_get_cb(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen)
{
	struct text_get_ctx *g = arg;
	size_t n;

	if (klen != g->klen || memcmp(key, g->key, klen) || !val)
		return 0;
	n = UT_MIN(vlen, g->val_size - 1);
	memcpy(g->val, val, n);
	g->val[n] = '\0';
	g->found = (int)UT_MIN(vlen, (size_t)INT32_MAX);
	return 1;
}

int ir_text_get(const uint8_t *buf, size_t len, const char *key, char *val, size_t val_size)
{
	struct text_get_ctx g = {
	    .key = key,
	    .klen = strlen(key),
	    .val = val,
	    .val_size = val_size,
	    .found = -ENOENT,
	};

	if (!val_size)
		return -EINVAL;
	val[0] = '\0';
	ir_text_foreach(buf, len, text_get_cb, &g);
	return g.found;
}

/* ---- connection ---- */

int ir_parse_addr(const char *addr, char *host, size_t host_size, char *port, size_t port_size)
{
	const char *h = addr, *he, *p = NULL;
	size_t hl;

	if (addr[0] == '[') {
		h = addr + 1;
		he = strchr(h, ']');
		if (!he)
			return -EINVAL;
		if (he[1] == ':')
			p = he + 2;
		else if (he[1])
			return -EINVAL;
	} else {
		he = strrchr(addr, ':');
		if (he && strchr(addr, ':') == he) {
			p = he + 1;
		} else {
			he = addr + strlen(addr); /* bare host or bare IPv6 */
		}
	}
	hl = (size_t)(he - h);
	if (hl + 1 > host_size || !hl)
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (snprintf(port, port_size, "%s", p && *p ? p : "3260") >= (int)port_size)
		return -EINVAL;
	return 0;
}

void ir_conn_init(struct ir_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->timeout_ms = 10000;
	c->itt_next = 1;
	c->p.target_mrdsl = IR_DEFAULT_MRDSL;
	c->p.our_mrdsl = IR_DEFAULT_MRDSL;
	c->p.max_burst = 262144;
	c->p.first_burst = 65536;
	c->p.initial_r2t = true;
	c->p.immediate_data = true;
	c->p.max_outstanding_r2t = 1;
	ir_decoder_init(&c->dec, false, false, IR_LOGIN_DATA_MAX * 8);
}

int ir_connect(struct ir_conn *c, const char *host, const char *port, int timeout_ms)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
	struct addrinfo *res, *ai;
	int rc = -ECONNREFUSED;

	if (getaddrinfo(host, port, &hints, &res))
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		int one = 1, err = 0;
		socklen_t el = sizeof(err);

		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (c->source) {
			/* a chosen source address (ACLs by address), any port */
			struct addrinfo sh = {.ai_socktype = SOCK_STREAM,
					      .ai_family = ai->ai_family,
					      .ai_flags = AI_NUMERICHOST};
			struct addrinfo *src;

			if (getaddrinfo(c->source, NULL, &sh, &src)) {
				rc = -EADDRNOTAVAIL;
				close(fd);
				continue;
			}
			if (bind(fd, src->ai_addr, src->ai_addrlen) < 0) {
				rc = -errno;
				freeaddrinfo(src);
				close(fd);
				continue;
			}
			freeaddrinfo(src);
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			rc = -errno;
			close(fd);
			continue;
		}
		if (poll(&pfd, 1, timeout_ms) != 1) {
			rc = -ETIMEDOUT;
			close(fd);
			continue;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err) {
			rc = -err;
			close(fd);
			continue;
		}
		c->fd = fd;
		rc = 0;
		break;
	}
	freeaddrinfo(res);
	return rc;
}

void ir_close(struct ir_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->full_feature = false;
	c->rbuf_pos = c->rbuf_len = 0;
	ir_decoder_reset(&c->dec);
	ir_text_free(&c->login_answers);
}

void ir_abort(struct ir_conn *c, bool rst)
{
	if (c->fd >= 0 && rst) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	ir_close(c);
}

int ir_send_raw(struct ir_conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int64_t deadline = now_ms() + c->timeout_ms;

	if (c->fd < 0)
		return -ENOTCONN;
	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
			int64_t left = deadline - now_ms();

			if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
				return -ETIMEDOUT;
			continue;
		}
		return n < 0 ? (errno == EPIPE ? -ECONNRESET : -errno) : -EIO;
	}
	return 0;
}

int ir_send_pdu_ex(struct ir_conn *c, struct ir_pdu *p, unsigned flags)
{
	size_t len = ir_pdu_wire_len(p, c->hdigest || (flags & IR_ENC_FORCE_DIGESTS),
				     c->ddigest || (flags & IR_ENC_FORCE_DIGESTS));
	uint8_t stackbuf[512];
	uint8_t *buf = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
	ssize_t n;
	int rc;

	if (!buf)
		return -ENOMEM;
	n = ir_pdu_encode(p, c->hdigest, c->ddigest, flags, buf, len);
	rc = n < 0 ? (int)n : ir_send_raw(c, buf, (size_t)n);
	if (buf != stackbuf)
		free(buf);
	return rc;
}

int ir_send_pdu(struct ir_conn *c, struct ir_pdu *p)
{
	return ir_send_pdu_ex(c, p, 0);
}

uint32_t ir_next_itt(struct ir_conn *c)
{
	uint32_t itt = c->itt_next++;

	if (itt == IR_RSVD_TAG)
		itt = c->itt_next++;
	return itt;
}

/* Tracks StatSN/ExpCmdSN/MaxCmdSN (RFC 7143 4.2.2.1, 4.2.2.2). Every target
 * PDU but Login Response with a failure carries ExpCmdSN/MaxCmdSN at the
 * same offsets (bytes 24..35); StatSN is consumed only by PDUs that carry
 * status. */
static void track_sn(struct ir_conn *c, const struct ir_pdu *p)
{
	const struct ir_bhs_rsp *r = &p->bhs.rsp;
	uint8_t op = ir_pdu_opcode(p);
	bool status = false, window = true;
	uint32_t exp, max;

	switch (op) {
	case IR_OP_SCSI_RSP:
	case IR_OP_TMF_RSP:
	case IR_OP_TEXT_RSP:
	case IR_OP_LOGOUT_RSP:
	case IR_OP_REJECT:
	case IR_OP_ASYNC_MSG:
		status = true;
		break;
	case IR_OP_LOGIN_RSP:
		status = true;
		window = p->bhs.login_rsp.status_class == 0;
		break;
	case IR_OP_NOP_IN:
		status = get_be32(r->itt) != IR_RSVD_TAG;
		break;
	case IR_OP_DATA_IN:
		status = p->bhs.data.flags & IR_DATAIN_STATUS;
		break;
	case IR_OP_R2T:
		break;
	default:
		return;
	}
	if (status) {
		uint32_t sn = get_be32(r->statsn) + 1;

		if (op == IR_OP_LOGIN_RSP || !ir_sn_lt(sn, c->expstatsn))
			c->expstatsn = sn;
	}
	if (!window)
		return;
	exp = get_be32(r->exp_cmdsn);
	max = get_be32(r->max_cmdsn);
	/* 4.2.2.1: MaxCmdSN < ExpCmdSN - 1 is invalid and ignored. */
	if (ir_sn_lt(max, exp - 1))
		return;
	if (!c->full_feature || !ir_sn_lt(exp, c->exp_cmdsn))
		c->exp_cmdsn = exp;
	if (!c->full_feature || !ir_sn_lt(max, c->max_cmdsn))
		c->max_cmdsn = max;
}

int ir_recv_pdu(struct ir_conn *c, struct ir_pdu *p, int timeout_ms)
{
	int64_t deadline = now_ms() + (timeout_ms < 0 ? c->timeout_ms : timeout_ms);

	memset(p, 0, sizeof(*p));
	if (c->fd < 0)
		return -ENOTCONN;
	c->dec.hdigest = c->hdigest;
	c->dec.ddigest = c->ddigest;
	c->dec.max_data = UT_MAX(c->p.our_mrdsl, IR_LOGIN_DATA_MAX * 8);
	for (;;) {
		if (c->rbuf_pos < c->rbuf_len) {
			size_t used;
			int rc = ir_decoder_feed(&c->dec, c->rbuf + c->rbuf_pos,
						 c->rbuf_len - c->rbuf_pos, &used);

			c->rbuf_pos += used;
			if (rc == 1 || rc == -EILSEQ) {
				ir_decoder_take(&c->dec, p);
				if (rc == 1)
					track_sn(c, p);
				return rc == 1 ? 0 : rc;
			}
			if (rc < 0)
				return rc;
			continue;
		}
		int64_t left = deadline - now_ms();
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		ssize_t n;

		if (left < 0)
			left = 0;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return -ETIMEDOUT;
		n = recv(c->fd, c->rbuf, sizeof(c->rbuf), 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		c->rbuf_pos = 0;
		c->rbuf_len = (size_t)n;
	}
}

int ir_wait_closed(struct ir_conn *c, int timeout_ms, size_t *bytes)
{
	int64_t deadline = now_ms() + timeout_ms;
	uint8_t junk[4096];

	if (bytes)
		*bytes = 0;
	if (c->fd < 0)
		return 0;
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return -ETIMEDOUT;
		n = recv(c->fd, junk, sizeof(junk), 0);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 0;
		if (n > 0 && bytes)
			*bytes += (size_t)n;
	}
}

void ir_lun_encode(uint64_t lun, uint8_t out[8])
{
	memset(out, 0, 8);
	if (lun < 256) {
		out[1] = (uint8_t)lun; /* SAM-5 4.7.3 peripheral device addressing */
	} else {
		out[0] = (uint8_t)(0x40 | ((lun >> 8) & 0x3f)); /* flat space */
		out[1] = (uint8_t)lun;
	}
}
