/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the raw test initiator's codec: PDU encode/decode with and
 * without digests, the incremental decoder at every split point, key=value
 * text, CHAP math against vectors computed independently (Python hashlib),
 * hex/base64 value encodings (RFC 4648 10 vectors), address parsing, and
 * whole CHAP logins (every algorithm, both encodings, one-way and mutual,
 * and the failures) against a scripted fake target over a socketpair. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

static void test_struct_offsets(void **state)
{
	(void)state;
	/* RFC 7143 11.2.1 / 11.3 / 11.12 field positions */
	assert_int_equal(offsetof(struct ir_bhs_common, data_seg_len), 5);
	assert_int_equal(offsetof(struct ir_bhs_common, itt), 16);
	assert_int_equal(offsetof(struct ir_bhs_scsi_cmd, exp_xfer_len), 20);
	assert_int_equal(offsetof(struct ir_bhs_scsi_cmd, cmdsn), 24);
	assert_int_equal(offsetof(struct ir_bhs_scsi_cmd, cdb), 32);
	assert_int_equal(offsetof(struct ir_bhs_scsi_rsp, residual), 44);
	assert_int_equal(offsetof(struct ir_bhs_data, datasn), 36);
	assert_int_equal(offsetof(struct ir_bhs_data, buffer_offset), 40);
	assert_int_equal(offsetof(struct ir_bhs_r2t, desired_len), 44);
	assert_int_equal(offsetof(struct ir_bhs_login_req, tsih), 14);
	assert_int_equal(offsetof(struct ir_bhs_login_req, cid), 20);
	assert_int_equal(offsetof(struct ir_bhs_login_rsp, status_class), 36);
	assert_int_equal(offsetof(struct ir_bhs_logout_rsp, time2wait), 40);
	assert_int_equal(offsetof(struct ir_bhs_snack, begrun), 40);
	assert_int_equal(offsetof(struct ir_bhs_tmf_req, ref_cmdsn), 32);
	assert_int_equal(offsetof(struct ir_bhs_async, async_event), 36);
	assert_int_equal(offsetof(struct ir_bhs_reject, datasn_r2tsn), 36);
	assert_int_equal(offsetof(struct ir_bhs_rsp, max_cmdsn), 32);
}

static void test_encode_lengths_padding(void **state)
{
	struct ir_pdu p = {0};
	uint8_t data[5] = {1, 2, 3, 4, 5};
	uint8_t out[128];
	ssize_t n;

	(void)state;
	p.bhs.common.opcode = IR_OP_NOP_OUT;
	p.data = data;
	p.data_len = sizeof(data);
	assert_int_equal(ir_pdu_wire_len(&p, false, false), 48 + 8);
	assert_int_equal(ir_pdu_wire_len(&p, true, true), 48 + 4 + 8 + 4);
	n = ir_pdu_encode(&p, false, false, 0, out, sizeof(out));
	assert_int_equal(n, 56);
	assert_int_equal(get_be24(out + 5), 5);
	assert_memory_equal(out + 48, data, 5);
	assert_int_equal(out[53] | out[54] | out[55], 0);
	/* too small a buffer is refused */
	assert_int_equal(ir_pdu_encode(&p, true, true, 0, out, 60), -ENOSPC);
	/* KEEP_LENGTHS leaves a lying DataSegmentLength in place */
	put_be24(p.bhs.common.data_seg_len, 0xffffff);
	n = ir_pdu_encode(&p, false, false, IR_ENC_KEEP_LENGTHS, out, sizeof(out));
	assert_int_equal(n, 56);
	assert_int_equal(get_be24(out + 5), 0xffffff);
}

static void test_digest_rfc3720_vector(void **state)
{
	/* RFC 3720 B.4: CRC32C of 32 zero bytes is stored as aa 36 91 8a. */
	static const uint8_t want[4] = {0xaa, 0x36, 0x91, 0x8a};
	struct ir_pdu p = {0};
	uint8_t data[32] = {0};
	uint8_t out[128];
	ssize_t n;

	(void)state;
	p.bhs.common.opcode = IR_OP_DATA_OUT;
	p.data = data;
	p.data_len = sizeof(data);
	n = ir_pdu_encode(&p, true, true, 0, out, sizeof(out));
	assert_int_equal(n, 48 + 4 + 32 + 4);
	assert_memory_equal(out + 48 + 4 + 32, want, 4);
	assert_int_equal(get_le32(out + 48), crc32c(out, 48));
	/* a corrupted digest flips only the digest */
	n = ir_pdu_encode(&p, true, true, IR_ENC_BAD_DDIGEST, out, sizeof(out));
	assert_memory_not_equal(out + 48 + 4 + 32, want, 4);
}

static void roundtrip(bool hd, bool dd, uint32_t ahs_len, uint32_t dlen)
{
	struct ir_pdu p = {0}, q;
	struct ir_decoder d;
	uint8_t *data = malloc(dlen + 1), ahs[16];
	uint8_t *wire = malloc(48 + 16 + 8 + dlen + 8);
	size_t split, used;
	ssize_t n;
	uint32_t i;

	for (i = 0; i < dlen; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < sizeof(ahs); i++)
		ahs[i] = (uint8_t)(0xa0 + i);
	p.bhs.common.opcode = IR_OP_SCSI_RSP;
	put_be32(p.bhs.common.itt, 0x12345678);
	p.ahs = ahs_len ? ahs : NULL;
	p.ahs_len = ahs_len;
	p.data = data;
	p.data_len = dlen;
	n = ir_pdu_encode(&p, hd, dd, 0, wire, 48 + 16 + 8 + dlen + 8);
	assert_true(n > 0);
	/* feed in two pieces split at every position */
	for (split = 0; split <= (size_t)n; split++) {
		int rc;

		ir_decoder_init(&d, hd, dd, 1 << 20);
		rc = ir_decoder_feed(&d, wire, split, &used);
		assert_int_equal(used, split);
		if (split < (size_t)n)
			assert_int_equal(rc, 0);
		if (rc == 0) {
			rc = ir_decoder_feed(&d, wire + split, (size_t)n - split, &used);
			assert_int_equal(used, (size_t)n - split);
		}
		assert_int_equal(rc, 1);
		ir_decoder_take(&d, &q);
		assert_int_equal(ir_pdu_itt(&q), 0x12345678);
		assert_int_equal(q.ahs_len, ahs_len);
		if (ahs_len)
			assert_memory_equal(q.ahs, ahs, ahs_len);
		assert_int_equal(q.data_len, dlen);
		if (dlen)
			assert_memory_equal(q.data, data, dlen);
		ir_pdu_free(&q);
		ir_decoder_reset(&d);
	}
	free(data);
	free(wire);
}

static void test_decoder_roundtrip(void **state)
{
	(void)state;
	roundtrip(false, false, 0, 0);
	roundtrip(false, false, 0, 13);
	roundtrip(true, false, 8, 0);
	roundtrip(true, true, 0, 1);
	roundtrip(true, true, 16, 1031);
	roundtrip(false, true, 4, 64);
}

static void test_decoder_errors(void **state)
{
	struct ir_pdu p = {0};
	struct ir_decoder d;
	uint8_t data[8] = "abcdefg";
	uint8_t wire[128];
	size_t used;
	ssize_t n;

	(void)state;
	p.bhs.common.opcode = IR_OP_TEXT_RSP;
	p.data = data;
	p.data_len = sizeof(data);
	n = ir_pdu_encode(&p, true, true, IR_ENC_BAD_HDIGEST, wire, sizeof(wire));
	ir_decoder_init(&d, true, true, 1024);
	assert_int_equal(ir_decoder_feed(&d, wire, (size_t)n, &used), -EBADMSG);
	ir_decoder_reset(&d);

	n = ir_pdu_encode(&p, true, true, IR_ENC_BAD_DDIGEST, wire, sizeof(wire));
	assert_int_equal(ir_decoder_feed(&d, wire, (size_t)n, &used), -EILSEQ);
	ir_decoder_take(&d, &p); /* the PDU is still available */
	assert_int_equal(p.data_len, 8);
	ir_pdu_free(&p);

	/* a segment above the cap is refused before any allocation */
	memset(&p, 0, sizeof(p));
	put_be24(p.bhs.common.data_seg_len, 0xffffff);
	n = ir_pdu_encode(&p, false, false, IR_ENC_KEEP_LENGTHS, wire, sizeof(wire));
	ir_decoder_init(&d, false, false, 1024);
	assert_int_equal(ir_decoder_feed(&d, wire, (size_t)n, &used), -EMSGSIZE);
	ir_decoder_reset(&d);
}

static void test_text(void **state)
{
	struct ir_text t;
	char val[16];
	/* the last pair has no terminator: still found */
	static const uint8_t raw[] = "A=1\0Key=Value\0Empty=\0NoEq\0Last=xyz";

	(void)state;
	ir_text_init(&t);
	assert_int_equal(ir_text_add(&t, "MaxRecvDataSegmentLength", "8192"), 0);
	assert_int_equal(ir_text_add(&t, "HeaderDigest", "None"), 0);
	assert_int_equal(t.len, strlen("MaxRecvDataSegmentLength=8192") + 1 +
				    strlen("HeaderDigest=None") + 1);
	assert_int_equal(ir_text_get(t.buf, t.len, "HeaderDigest", val, sizeof(val)), 4);
	assert_string_equal(val, "None");
	assert_int_equal(ir_text_get(t.buf, t.len, "Header", val, sizeof(val)), -ENOENT);
	ir_text_free(&t);

	assert_int_equal(ir_text_get(raw, sizeof(raw) - 1, "Key", val, sizeof(val)), 5);
	assert_string_equal(val, "Value");
	assert_int_equal(ir_text_get(raw, sizeof(raw) - 1, "Empty", val, sizeof(val)), 0);
	assert_int_equal(ir_text_get(raw, sizeof(raw) - 1, "NoEq", val, sizeof(val)), -ENOENT);
	assert_int_equal(ir_text_get(raw, sizeof(raw) - 1, "Last", val, sizeof(val)), 3);
	assert_string_equal(val, "xyz");
	/* truncation into a small buffer reports the full length */
	assert_int_equal(ir_text_get(raw, sizeof(raw) - 1, "Key", val, 3), 5);
	assert_string_equal(val, "Va");
}

static void hex2bin(const char *hex, uint8_t *out)
{
	size_t i;

	for (i = 0; hex[2 * i]; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static void test_chap_vectors(void **state)
{
	/* H(0x2a || "secretsecret1234" || 00 01 .. 0f), computed with Python's
	 * hashlib as an independent reference. */
	static const struct {
		int alg;
		const char *hex;
	} v[] = {
	    {.alg = IR_CHAP_MD5, .hex = "a384beacb762b68badaf6f7ffc818bb4"},
	    {.alg = IR_CHAP_SHA1, .hex = "09d014422eaed6f1658b00d7d4d0131134d99d1e"},
	    {.alg = IR_CHAP_SHA256,
	     .hex = "172dd61e091999e46cfecf02168a8c4521f57d816b023125b5825b7c06448e00"},
	    {.alg = IR_CHAP_SHA3_256,
	     .hex = "8fd011ad0e800f7374c799c2c9d7b847c52dd994dc01106c9c7665a6d4b27993"},
	};
	uint8_t chal[16], out[IR_CHAP_MAX_DIGEST], want[IR_CHAP_MAX_DIGEST];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(chal); i++)
		chal[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int n = ir_chap_response(v[i].alg, 0x2a, "secretsecret1234", 16, chal, sizeof(chal),
					 out);

		assert_int_equal(n, (int)strlen(v[i].hex) / 2);
		assert_int_equal((size_t)n, ir_chap_digest_len(v[i].alg));
		hex2bin(v[i].hex, want);
		assert_memory_equal(out, want, (size_t)n);
	}
	assert_int_equal(ir_chap_response(99, 0, "x", 1, chal, 1, out), -EINVAL);
	assert_int_equal(ir_chap_digest_len(4), 0);
}

static void test_chap_encodings(void **state)
{
	/* RFC 4648 section 10 vectors */
	static const char *const b64[] = {"0bZg==",	"0bZm8=",     "0bZm9v",
					  "0bZm9vYg==", "0bZm9vYmE=", "0bZm9vYmFy"};
	const uint8_t *foobar = (const uint8_t *)"foobar";
	char enc[64];
	uint8_t bin[64];
	int i, n;

	(void)state;
	for (i = 0; i < 6; i++) {
		assert_true(ir_chap_encode(IR_ENC_BASE64, foobar, (size_t)i + 1, enc, sizeof(enc)) >
			    0);
		assert_string_equal(enc, b64[i]);
		n = ir_chap_decode(enc, strlen(enc), bin, sizeof(bin));
		assert_int_equal(n, i + 1);
		assert_memory_equal(bin, foobar, (size_t)n);
	}
	assert_true(ir_chap_encode(IR_ENC_HEX, foobar, 3, enc, sizeof(enc)) > 0);
	assert_string_equal(enc, "0x666f6f");
	assert_int_equal(ir_chap_decode("0X666F6F", 8, bin, sizeof(bin)), 3);
	assert_memory_equal(bin, "foo", 3);
	/* odd digit count: implied leading zero */
	assert_int_equal(ir_chap_decode("0xabc", 5, bin, sizeof(bin)), 2);
	assert_int_equal(bin[0], 0x0a);
	assert_int_equal(bin[1], 0xbc);
	/* malformed */
	assert_int_equal(ir_chap_decode("0xzz", 4, bin, sizeof(bin)), -EINVAL);
	assert_int_equal(ir_chap_decode("1234", 4, bin, sizeof(bin)), -EINVAL);
	assert_int_equal(ir_chap_decode("0bZg=a", 6, bin, sizeof(bin)), -EINVAL);
	assert_int_equal(ir_chap_decode("0bZm9", 5, bin, sizeof(bin)), -EINVAL);
	assert_int_equal(ir_chap_decode("0x00112233", 10, bin, 3), -ENOSPC);
	assert_int_equal(ir_chap_encode(IR_ENC_HEX, foobar, 6, enc, 10), -ENOSPC);
}

static void test_parse_addr(void **state)
{
	char h[64], p[16];

	(void)state;
	assert_int_equal(ir_parse_addr("127.0.0.1:3600", h, sizeof(h), p, sizeof(p)), 0);
	assert_string_equal(h, "127.0.0.1");
	assert_string_equal(p, "3600");
	assert_int_equal(ir_parse_addr("[::1]:3601", h, sizeof(h), p, sizeof(p)), 0);
	assert_string_equal(h, "::1");
	assert_string_equal(p, "3601");
	assert_int_equal(ir_parse_addr("localhost", h, sizeof(h), p, sizeof(p)), 0);
	assert_string_equal(p, "3260");
	assert_int_equal(ir_parse_addr("::1", h, sizeof(h), p, sizeof(p)), 0);
	assert_string_equal(h, "::1");
	assert_int_equal(ir_parse_addr("[::1", h, sizeof(h), p, sizeof(p)), -EINVAL);
	assert_int_equal(ir_parse_addr(":3260", h, sizeof(h), p, sizeof(p)), -EINVAL);
}

static void test_login_req_build(void **state)
{
	struct ir_conn c;
	struct ir_pdu p;

	(void)state;
	ir_conn_init(&c);
	c.isid[0] = 0x80;
	c.cmdsn = 7;
	c.itt_next = 3;
	c.tsih = 0x1234;
	ir_build_login_req(&c, &p, IR_STAGE_SECURITY, IR_STAGE_OPERATIONAL, true, false);
	assert_int_equal(p.bhs.raw[0], 0x43);
	assert_int_equal(p.bhs.raw[1], 0x81); /* T, CSG 0, NSG 1 */
	assert_int_equal(p.bhs.raw[8], 0x80);
	assert_int_equal(get_be16(p.bhs.raw + 14), 0x1234);
	assert_int_equal(get_be32(p.bhs.raw + 16), 3);
	assert_int_equal(get_be32(p.bhs.raw + 24), 7);
	ir_build_login_req(&c, &p, IR_STAGE_OPERATIONAL, IR_STAGE_FFP, false, true);
	assert_int_equal(p.bhs.raw[1], 0x44); /* C, CSG 1, NSG not set without T */
	ir_decoder_reset(&c.dec);
}

static void test_lun_sn(void **state)
{
	uint8_t l[8];

	(void)state;
	ir_lun_encode(5, l);
	assert_int_equal(l[0], 0);
	assert_int_equal(l[1], 5);
	ir_lun_encode(300, l);
	assert_int_equal(l[0], 0x41);
	assert_int_equal(l[1], 44);
	assert_true(ir_sn_lt(0xfffffff0u, 5));
	assert_false(ir_sn_lt(5, 0xfffffff0u));
	assert_false(ir_sn_lt(5, 5));
}

static void test_sense_parse(void **state)
{
	struct ir_scsi_result r = {0};
	uint8_t k, a, q;

	(void)state;
	r.sense[0] = 0x70;
	r.sense[2] = 0x05;
	r.sense[12] = 0x24;
	r.sense[13] = 0x00;
	r.sense_len = 18;
	assert_true(ir_sense_parse(&r, &k, &a, &q));
	assert_int_equal(k, 5);
	assert_int_equal(a, 0x24);
	memset(&r, 0, sizeof(r));
	r.sense[0] = 0x72;
	r.sense[1] = 0x06;
	r.sense[2] = 0x29;
	r.sense[3] = 0x01;
	r.sense_len = 8;
	assert_true(ir_sense_parse(&r, &k, &a, &q));
	assert_int_equal(k, 6);
	assert_int_equal(q, 1);
	r.sense_len = 2;
	assert_false(ir_sense_parse(&r, &k, &a, &q));
}

/* ---- CHAP login against a scripted fake target (socketpair) ---- */

struct fake_target {
	int fd;
	int alg;		     /* CHAP_A the target picks */
	int enc;		     /* encoding of its CHAP_C / CHAP_R */
	const char *isecret;	     /* the initiator's secret as the target knows it */
	const char *tuser, *tsecret; /* mutual: the target's name and secret */
	bool verified;		     /* the initiator's CHAP_R was right */
};

static int ft_recv(struct fake_target *t, struct ir_pdu *p)
{
	struct ir_decoder d;
	uint8_t b;
	size_t used;
	int rc = 0;

	ir_decoder_init(&d, false, false, 65536);
	while (rc == 0) {
		if (read(t->fd, &b, 1) != 1) {
			ir_decoder_reset(&d);
			return -1;
		}
		rc = ir_decoder_feed(&d, &b, 1, &used);
	}
	if (rc == 1)
		ir_decoder_take(&d, p);
	else
		ir_decoder_reset(&d);
	return rc == 1 ? 0 : -1;
}

static void ft_send(struct fake_target *t, const struct ir_pdu *req, uint8_t flags, uint8_t cls,
		    uint8_t det, struct ir_text *keys)
{
	struct ir_pdu p = {0};
	uint8_t wire[4096];
	ssize_t n;

	p.bhs.login_rsp.opcode = IR_OP_LOGIN_RSP;
	p.bhs.login_rsp.flags = flags;
	memcpy(p.bhs.login_rsp.isid, req->bhs.login_req.isid, 6);
	if ((flags & 3) == IR_STAGE_FFP)
		put_be16(p.bhs.login_rsp.tsih, 0x1234);
	memcpy(p.bhs.login_rsp.itt, req->bhs.login_req.itt, 4);
	put_be32(p.bhs.login_rsp.statsn, 100);
	put_be32(p.bhs.login_rsp.exp_cmdsn, get_be32(req->bhs.login_req.cmdsn));
	put_be32(p.bhs.login_rsp.max_cmdsn, get_be32(req->bhs.login_req.cmdsn) + 31);
	p.bhs.login_rsp.status_class = cls;
	p.bhs.login_rsp.status_detail = det;
	p.data = keys ? keys->buf : NULL;
	p.data_len = keys ? (uint32_t)keys->len : 0;
	n = ir_pdu_encode(&p, false, false, 0, wire, sizeof(wire));
	assert_true(n > 0);
	assert_int_equal(write(t->fd, wire, (size_t)n), n);
}

/* RFC 7143 12.1.3 from the target's side: AuthMethod, CHAP_A/I/C, check
 * CHAP_N/R, answer the mutual challenge, then the operational stage. */
static void *fake_target_main(void *arg)
{
	struct fake_target *t = arg;
	const uint8_t chal[20] = "fake-target-chal-20";
	const uint8_t id = 0x42;
	struct ir_pdu req;
	char v[2048], num[16];
	uint8_t bin[IR_CHAP_MAX_BIN], want[IR_CHAP_MAX_DIGEST];
	int step;

	for (step = 0; ft_recv(t, &req) == 0; step++) {
		struct ir_text k;
		const uint8_t *d = req.data;
		size_t dl = req.data_len;
		int csg = (req.bhs.login_req.flags >> IR_LOGIN_CSG_SHIFT) & 3;

		ir_text_init(&k);
		if (csg == IR_STAGE_SECURITY && step == 0) {
			ir_text_add(&k, "AuthMethod", "CHAP");
			ft_send(t, &req, 0, 0, 0, &k);
		} else if (csg == IR_STAGE_SECURITY &&
			   ir_text_get(d, dl, "CHAP_A", v, sizeof(v)) > 0) {
			snprintf(num, sizeof(num), "%d", t->alg);
			ir_text_add(&k, "CHAP_A", num);
			snprintf(num, sizeof(num), "%u", id);
			ir_text_add(&k, "CHAP_I", num);
			ir_chap_encode(t->enc, chal, sizeof(chal), v, sizeof(v));
			ir_text_add(&k, "CHAP_C", v);
			ft_send(t, &req, 0, 0, 0, &k);
		} else if (csg == IR_STAGE_SECURITY) {
			int n, wl;

			assert_true(ir_text_get(d, dl, "CHAP_N", v, sizeof(v)) > 0);
			assert_string_equal(v, "init-user");
			assert_true(ir_text_get(d, dl, "CHAP_R", v, sizeof(v)) > 0);
			n = ir_chap_decode(v, strlen(v), bin, sizeof(bin));
			wl = ir_chap_response(t->alg, id, t->isecret, strlen(t->isecret), chal,
					      sizeof(chal), want);
			t->verified = n == wl && !memcmp(bin, want, (size_t)wl);
			if (!t->verified) {
				ft_send(t, &req, 0, 2, 1, NULL); /* 02/01 authentication failure */
				ir_text_free(&k);
				ir_pdu_free(&req);
				break;
			}
			if (ir_text_get(d, dl, "CHAP_I", v, sizeof(v)) > 0) {
				uint8_t mid = (uint8_t)strtoul(v, NULL, 10);

				assert_true(ir_text_get(d, dl, "CHAP_C", v, sizeof(v)) > 0);
				n = ir_chap_decode(v, strlen(v), bin, sizeof(bin));
				assert_true(n > 0);
				wl = ir_chap_response(t->alg, mid, t->tsecret, strlen(t->tsecret),
						      bin, (size_t)n, want);
				ir_chap_encode(t->enc, want, (size_t)wl, v, sizeof(v));
				ir_text_add(&k, "CHAP_N", t->tuser);
				ir_text_add(&k, "CHAP_R", v);
			}
			ft_send(t, &req, IR_LOGIN_TRANSIT | IR_STAGE_OPERATIONAL, 0, 0, &k);
		} else {
			ir_text_add(&k, "HeaderDigest", "None");
			ir_text_add(&k, "DataDigest", "None");
			ir_text_add(&k, "MaxRecvDataSegmentLength", "65536");
			ir_text_add(&k, "MaxBurstLength", "131072");
			ir_text_add(&k, "FirstBurstLength", "32768");
			ir_text_add(&k, "InitialR2T", "No");
			ir_text_add(&k, "ImmediateData", "Yes");
			ir_text_add(&k, "ErrorRecoveryLevel", "0");
			ft_send(t, &req,
				IR_LOGIN_TRANSIT | (IR_STAGE_OPERATIONAL << IR_LOGIN_CSG_SHIFT) |
				    IR_STAGE_FFP,
				0, 0, &k);
			ir_text_free(&k);
			ir_pdu_free(&req);
			break;
		}
		ir_text_free(&k);
		ir_pdu_free(&req);
	}
	return NULL;
}

static int chap_login(int offer0, int pick, int enc, const char *isecret_target,
		      const char *tsecret_init, bool mutual, struct ir_conn *c,
		      struct fake_target *t)
{
	struct ir_chap_opts ch = {
	    .user = "init-user",
	    .secret = "init-secret-16by",
	    .mutual_user = mutual ? "target-user" : NULL,
	    .mutual_secret = mutual ? tsecret_init : NULL,
	    .algs = {offer0, IR_CHAP_SHA1, IR_CHAP_MD5},
	    .encoding = enc,
	};
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:unit",
	    .target_name = "iqn.2026-12.org.utarget:fake",
	    .chap = &ch,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	pthread_t th;
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*t = (struct fake_target){.fd = sv[1],
				  .alg = pick,
				  .enc = enc ^ 1,
				  .isecret = isecret_target,
				  .tuser = "target-user",
				  .tsecret = "target-secret-16"};
	ir_conn_init(c);
	c->fd = sv[0];
	c->timeout_ms = 3000;
	assert_int_equal(pthread_create(&th, NULL, fake_target_main, t), 0);
	rc = ir_login(c, &o);
	shutdown(sv[0], SHUT_RDWR);
	pthread_join(th, NULL);
	close(sv[1]);
	ir_close(c);
	return rc;
}

static void test_chap_login_flows(void **state)
{
	static const struct {
		int offer0, pick, enc;
		bool mutual;
	} ok[] = {
	    {.offer0 = IR_CHAP_MD5, .pick = IR_CHAP_MD5, .enc = IR_ENC_HEX},
	    {.offer0 = IR_CHAP_SHA256, .pick = IR_CHAP_SHA1, .enc = IR_ENC_BASE64, .mutual = true},
	    {.offer0 = IR_CHAP_SHA256, .pick = IR_CHAP_SHA256, .enc = IR_ENC_HEX, .mutual = true},
	    {.offer0 = IR_CHAP_SHA3_256,
	     .pick = IR_CHAP_SHA3_256,
	     .enc = IR_ENC_BASE64,
	     .mutual = true},
	    {.offer0 = IR_CHAP_SHA3_256, .pick = IR_CHAP_SHA3_256, .enc = IR_ENC_HEX},
	};
	struct fake_target t;
	struct ir_conn c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int rc = chap_login(ok[i].offer0, ok[i].pick, ok[i].enc, "init-secret-16by",
				    "target-secret-16", ok[i].mutual, &c, &t);

		assert_int_equal(rc, 0);
		assert_true(t.verified);
		/* the operational answers were applied */
		assert_int_equal(c.p.target_mrdsl, 65536);
		assert_int_equal(c.p.max_burst, 131072);
		assert_int_equal(c.p.first_burst, 32768);
		assert_false(c.p.initial_r2t);
		assert_int_equal(c.tsih, 0x1234);
	}
	/* the target knows another secret: 02/01 */
	assert_int_equal(chap_login(IR_CHAP_SHA256, IR_CHAP_SHA256, IR_ENC_HEX, "other-secret-16b",
				    "target-secret-16", false, &c, &t),
			 -EACCES);
	assert_int_equal(c.login_class, 2);
	assert_int_equal(c.login_detail, 1);
	/* mutual: the target's answer does not verify with our idea of its secret */
	assert_int_equal(chap_login(IR_CHAP_SHA1, IR_CHAP_SHA1, IR_ENC_BASE64, "init-secret-16by",
				    "wrong-secret-16b", true, &c, &t),
			 -EPERM);
	/* the target picks an algorithm we did not offer */
	assert_int_equal(chap_login(IR_CHAP_SHA256, IR_CHAP_SHA3_256, IR_ENC_HEX,
				    "init-secret-16by", "target-secret-16", false, &c, &t),
			 -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_struct_offsets),
	    cmocka_unit_test(test_encode_lengths_padding),
	    cmocka_unit_test(test_digest_rfc3720_vector),
	    cmocka_unit_test(test_decoder_roundtrip),
	    cmocka_unit_test(test_decoder_errors),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_chap_vectors),
	    cmocka_unit_test(test_chap_encodings),
	    cmocka_unit_test(test_chap_login_flows),
	    cmocka_unit_test(test_parse_addr),
	    cmocka_unit_test(test_login_req_build),
	    cmocka_unit_test(test_lun_sn),
	    cmocka_unit_test(test_sense_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
