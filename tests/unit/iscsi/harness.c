/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness.c: see harness.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/pdu.h"
#include "lib/crc32c.h"
#include "lib/endian.h"
#include "lib/reactor.h"

struct h_env henv;
size_t h_write_max;
bool h_write_eagain;
bool h_write_blocked;
static struct h_conn *conns[8];

static ssize_t h_writev(struct iscsi_conn *c, const struct iovec *iov, int n)
{
	static unsigned calls;
	struct h_conn *hc = NULL;
	size_t total = 0, before;

	for (unsigned i = 0; i < 8; i++)
		if (conns[i] && conns[i]->c == c)
			hc = conns[i];
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (!hc)
		return (ssize_t)total;
	if (h_write_blocked || (h_write_eagain && (calls++ & 1)))
		return -EAGAIN;
	if (h_write_max && total > h_write_max)
		total = h_write_max;
	before = hc->out_len;
	if (hc->out_len + total > hc->out_cap) {
		size_t cap = hc->out_cap ? hc->out_cap : 65536;

		while (cap < hc->out_len + total)
			cap *= 2;
		hc->out = realloc(hc->out, cap);
		hc->out_cap = cap;
	}
	for (int i = 0; i < n && hc->out_len < hc->out_cap; i++) {
		size_t k = iov[i].iov_len;

		if (k > total)
			k = total;
		memcpy(hc->out + hc->out_len, iov[i].iov_base, k);
		hc->out_len += k;
		total -= k;
		if (!total)
			break;
	}
	return (ssize_t)(hc->out_len - before);
}

static const struct iscsi_conn_io h_io = {.writev = h_writev};

struct iscsi_settings h_settings(void)
{
	struct iscsi_settings s;

	iscsi_settings_default(&s);
	s.nop_in_interval_s = 0;
	return s;
}

void h_setup(const struct iscsi_settings *s)
{
	struct iscsi_settings d = h_settings();

	fake_reset();
	iscsi_init(s ? s : &d);
	if (!henv.r)
		reactor_create(&henv.r, 0);
	henv.st = fake_target(H_TARGET);
	henv.t = iscsi_target_add(henv.st, "test alias");
	henv.tpg = iscsi_tpg_add(henv.t, 1, 1, 0);
	henv.portal = iscsi_portal_new_virtual(henv.tpg);
}

static void stop_msg(struct reactor_msg *m)
{
	reactor_stop(henv.r);
	free(m);
}

void h_pump(void)
{
	struct reactor_msg *m = calloc(1, sizeof(*m));

	m->fn = stop_msg;
	reactor_post(henv.r, m);
	reactor_run(henv.r);
}

void h_teardown(void)
{
	h_pump();
	iscsi_portal_free_virtual(henv.portal);
	iscsi_target_del(henv.t);
	fake_target_free(henv.st);
	h_pump();
}

struct h_conn *h_conn_new(void)
{
	struct h_conn *hc = calloc(1, sizeof(*hc));

	for (unsigned i = 0; i < 8; i++)
		if (!conns[i]) {
			conns[i] = hc;
			break;
		}
	hc->c = iscsi_conn_new(henv.r, -1, henv.portal, &h_io);
	hc->itt = 0x1000;
	hc->cmdsn = 1;
	hc->sock = -1;
	return hc;
}

struct h_conn *h_conn_new_socket(void)
{
	struct h_conn *hc = calloc(1, sizeof(*hc));
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	hc->c = iscsi_conn_new(henv.r, sv[0], henv.portal, NULL);
	assert_non_null(hc->c);
	hc->itt = 0x1000;
	hc->cmdsn = 1;
	hc->sock = sv[1];
	return hc;
}

void h_sock_write(struct h_conn *hc, const void *p, size_t n)
{
	int left = 1;

	while (n) {
		ssize_t k = write(hc->sock, p, n);

		assert_true(k > 0);
		p = (const uint8_t *)p + k;
		n -= (size_t)k;
	}
	/* the connection reads once per readiness event: pump until the
	 * socket holds nothing for it, then once more for the replies */
	for (int i = 0; i < 1000 && left > 0; i++) {
		h_pump();
		if (ioctl(hc->c->fd, FIONREAD, &left) < 0)
			left = 0;
	}
	h_pump();
}

/* What the target wrote to a socket connection, appended to hc->out. */
static void h_sock_collect(struct h_conn *hc)
{
	for (;;) {
		if (hc->out_cap - hc->out_len < 65536) {
			hc->out_cap = hc->out_cap ? hc->out_cap * 2 : 262144;
			hc->out = realloc(hc->out, hc->out_cap);
		}
		ssize_t k =
		    recv(hc->sock, hc->out + hc->out_len, hc->out_cap - hc->out_len, MSG_DONTWAIT);

		if (k <= 0)
			return;
		hc->out_len += (size_t)k;
	}
}

void h_conn_free(struct h_conn *hc)
{
	if (hc->c)
		iscsi_conn_destroy(hc->c);
	for (unsigned i = 0; i < 8; i++)
		if (conns[i] == hc)
			conns[i] = NULL;
	if (hc->sock >= 0)
		close(hc->sock);
	free(hc->out);
	free(hc);
}

size_t h_build(struct h_conn *hc, uint8_t *wire, size_t cap, const union iscsi_hdr *h,
	       const void *ahs, uint32_t ahs_len, const void *data, uint32_t len, bool digests)
{
	size_t n = 0;
	union iscsi_hdr hh = *h;

	hh.bhs.total_ahs_len = (uint8_t)(ahs_len / 4);
	put_be24(hh.bhs.dsl, len);
	memcpy(wire, hh.raw, ISCSI_BHS_LEN);
	n = ISCSI_BHS_LEN;
	if (ahs_len) {
		memcpy(wire + n, ahs, ahs_len);
		n += ahs_len;
	}
	if (digests && hc->hdigest) {
		put_le32(wire + n, crc32c(wire, n));
		n += 4;
	}
	if (len) {
		memcpy(wire + n, data, len);
		memset(wire + n + len, 0, ISCSI_PAD(len));
		n += len + ISCSI_PAD(len);
		if (digests && hc->ddigest) {
			put_le32(wire + n,
				 crc32c(wire + n - len - ISCSI_PAD(len), len + ISCSI_PAD(len)));
			n += 4;
		}
	}
	(void)cap;
	return n;
}

int h_send(struct h_conn *hc, union iscsi_hdr *h, const void *data, uint32_t len)
{
	size_t cap = ISCSI_BHS_LEN + 8 + len + 8;
	uint8_t *wire = malloc(cap);
	bool ffp = hc->c && iscsi_conn_state(hc->c) >= ISCSI_CONN_S5_LOGGED_IN;
	size_t n = h_build(hc, wire, cap, h, NULL, 0, data, len, ffp);
	int rc = 0;

	if (hc->sock >= 0)
		h_sock_write(hc, wire, n);
	else
		rc = iscsi_conn_feed(hc->c, wire, n);

	free(wire);
	return rc;
}

bool h_recv(struct h_conn *hc, union iscsi_hdr *h, uint8_t *data, uint32_t cap, uint32_t *len)
{
	size_t p = hc->out_pos, avail = hc->out_len - hc->out_pos;
	bool ffp_digest;
	uint32_t dsl, need;

	if (hc->sock >= 0) {
		h_sock_collect(hc);
		p = hc->out_pos;
		avail = hc->out_len - hc->out_pos;
	}
	ffp_digest = hc->hdigest;

	if (avail < ISCSI_BHS_LEN)
		return false;
	memcpy(h->raw, hc->out + p, ISCSI_BHS_LEN);
	dsl = get_be24(h->bhs.dsl);
	need = ISCSI_BHS_LEN + (ffp_digest ? 4 : 0) + dsl + ISCSI_PAD(dsl) +
	       (hc->ddigest && dsl ? 4 : 0);
	if (avail < need)
		return false;
	p += ISCSI_BHS_LEN;
	if (ffp_digest) {
		if (get_le32(hc->out + p) != crc32c(h->raw, ISCSI_BHS_LEN))
			fprintf(stderr, "harness: bad header digest from the target\n");
		p += 4;
	}
	if (data)
		memcpy(data, hc->out + p, dsl < cap ? dsl : cap);
	if (len)
		*len = dsl;
	if (hc->ddigest && dsl &&
	    get_le32(hc->out + p + dsl + ISCSI_PAD(dsl)) !=
		crc32c(hc->out + p, dsl + ISCSI_PAD(dsl)))
		fprintf(stderr, "harness: bad data digest from the target\n");
	hc->out_pos += need;
	switch (h->bhs.opcode & ISCSI_OPCODE_MASK) {
	case ISCSI_OP_LOGIN_RSP:
	case ISCSI_OP_SCSI_RSP:
	case ISCSI_OP_TMF_RSP:
	case ISCSI_OP_TEXT_RSP:
	case ISCSI_OP_LOGOUT_RSP:
	case ISCSI_OP_REJECT:
	case ISCSI_OP_NOP_IN:
		hc->statsn = get_be32(h->rsp.statsn);
		break;
	default:
		break;
	}
	return true;
}

uint32_t h_keys(uint8_t *buf, size_t cap, const char *const *kv)
{
	uint32_t n = 0;

	for (; kv && *kv; kv++) {
		size_t l = strlen(*kv) + 1;

		if (n + l > cap)
			break;
		memcpy(buf + n, *kv, l);
		n += (uint32_t)l;
	}
	return n;
}

bool h_has_key(const uint8_t *data, uint32_t len, const char *rec)
{
	size_t l = strlen(rec);
	uint32_t off = 0;

	while (off < len) {
		const uint8_t *e = memchr(data + off, 0, len - off);
		size_t rl = e ? (size_t)(e - data - off) : len - off;

		if (rl == l && !memcmp(data + off, rec, l))
			return true;
		off += (uint32_t)rl + 1;
	}
	return false;
}

void h_login_hdr(union iscsi_hdr *h, uint8_t flags, uint16_t tsih, uint32_t itt, uint32_t cmdsn)
{
	static const uint8_t isid[6] = {0x80, 0x12, 0x34, 0x56, 0x00, 0x01};

	memset(h, 0, sizeof(*h));
	h->login_req.opcode = ISCSI_OP_LOGIN_REQ | ISCSI_OP_IMMEDIATE;
	h->login_req.flags = flags;
	memcpy(h->login_req.isid, isid, 6);
	put_be16(h->login_req.tsih, tsih);
	put_be32(h->login_req.itt, itt);
	put_be32(h->login_req.cmdsn, cmdsn);
}

int h_login_isid(struct h_conn *hc, const char *const *extra, const uint8_t *isid)
{
	const char *std[] = {"InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, NULL};
	uint8_t buf[8192], rsp[8192];
	union iscsi_hdr h;
	uint32_t n, len;

	n = h_keys(buf, sizeof(buf), std);
	n += h_keys(buf + n, sizeof(buf) - n, extra);
	h_login_hdr(
	    &h, ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE,
	    0, hc->itt, hc->cmdsn);
	if (isid)
		memcpy(h.login_req.isid, isid, 6);
	h_send(hc, &h, buf, n);
	if (!h_recv(hc, &h, rsp, sizeof(rsp), &len))
		return -1;
	hc->tsih = get_be16(h.login_rsp.tsih);
	hc->hdigest = h_has_key(rsp, len, "HeaderDigest=CRC32C");
	hc->ddigest = h_has_key(rsp, len, "DataDigest=CRC32C");
	return h.login_rsp.status_class << 8 | h.login_rsp.status_detail;
}

int h_join(struct h_conn *j, const struct h_conn *lead, uint16_t cid, const char *const *extra)
{
	const char *std[] = {"InitiatorName=" H_INITIATOR, "TargetName=" H_TARGET, NULL};
	uint8_t buf[4096], rsp[4096];
	union iscsi_hdr h;
	uint32_t n, len;

	n = h_keys(buf, sizeof(buf), std);
	if (extra)
		n += h_keys(buf + n, sizeof(buf) - n, extra);
	j->cmdsn = lead->cmdsn;
	j->itt = 0x1000;
	h_login_hdr(
	    &h, ISCSI_LOGIN_F_TRANSIT | (ISCSI_STAGE_OPERATIONAL << 2) | ISCSI_STAGE_FULL_FEATURE,
	    lead->tsih, j->itt, j->cmdsn);
	put_be16(h.login_req.cid, cid);
	h_send(j, &h, buf, n);
	if (!h_recv(j, &h, rsp, sizeof(rsp), &len))
		return -1;
	j->tsih = get_be16(h.login_rsp.tsih);
	return h.login_rsp.status_class << 8 | h.login_rsp.status_detail;
}

int h_login(struct h_conn *hc, const char *const *extra)
{
	return h_login_isid(hc, extra, NULL);
}

void h_scsi_cmd(union iscsi_hdr *h, struct h_conn *hc, uint8_t flags, uint32_t edtl,
		const uint8_t *cdb)
{
	memset(h, 0, sizeof(*h));
	h->cmd.opcode = ISCSI_OP_SCSI_CMD;
	h->cmd.flags = flags;
	put_be32(h->cmd.itt, hc->itt++);
	put_be32(h->cmd.edtl, edtl);
	put_be32(h->cmd.cmdsn, hc->cmdsn++);
	put_be32(h->cmd.exp_statsn, hc->statsn + 1);
	memcpy(h->cmd.cdb, cdb, 16);
}

void h_read10(uint8_t *cdb, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x28;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, blocks);
}

void h_write10(uint8_t *cdb, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x2a;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, blocks);
}

uint32_t h_cmd(struct h_conn *hc, uint8_t flags, uint32_t edtl, const uint8_t *cdb, const void *imm,
	       uint32_t imm_len)
{
	union iscsi_hdr h;
	uint32_t itt = hc->itt;

	h_scsi_cmd(&h, hc, flags, edtl, cdb);
	h_send(hc, &h, imm, imm_len);
	return itt;
}

int h_data_out(struct h_conn *hc, uint32_t itt, uint32_t ttt, uint32_t datasn, uint32_t offset,
	       const void *data, uint32_t len, bool final)
{
	union iscsi_hdr h;

	memset(&h, 0, sizeof(h));
	h.data_out.opcode = ISCSI_OP_DATA_OUT;
	h.data_out.flags = final ? ISCSI_FLAG_FINAL : 0;
	put_be32(h.data_out.itt, itt);
	put_be32(h.data_out.ttt, ttt);
	put_be32(h.data_out.datasn, datasn);
	put_be32(h.data_out.buffer_offset, offset);
	put_be32(h.data_out.exp_statsn, hc->statsn + 1);
	return h_send(hc, &h, data, len);
}

void h_expect(struct h_conn *hc, uint8_t opcode, union iscsi_hdr *h, uint8_t *data, uint32_t cap,
	      uint32_t *len)
{
	union iscsi_hdr tmp;
	uint32_t l;

	if (!h)
		h = &tmp;
	assert_true(h_recv(hc, h, data, cap, &l));
	if ((h->bhs.opcode & ISCSI_OPCODE_MASK) != opcode)
		fprintf(stderr, "harness: got opcode 0x%02x, expected 0x%02x\n", h->bhs.opcode,
			opcode);
	assert_int_equal(h->bhs.opcode & ISCSI_OPCODE_MASK, opcode);
	if (len)
		*len = l;
}

bool h_idle(struct h_conn *hc)
{
	return hc->out_pos == hc->out_len;
}
