/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the iSNS wire format (isns_proto.c), the messages the
 * client sends (isns_reg.c) and the discovery domains it reads
 * (isns_dd.c): a DevAttrReg of a fixed snapshot against golden bytes
 * (RFC 4171 5.1, 5.5, 5.6.5.1), its split over messages, the other
 * requests, the reassembly of PDUs and what a malformed message is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/isns.h"
#include "lib/endian.h"

/* 192.0.2.1:3260 and [2001:db8::1]:3261; t1 (alias "a") in portal groups 1
 * (the first portal) and 2 (the second), t2 in 1; ESI/SCN port 4000. */
static const uint8_t ip4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
static const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static struct isns_pg pg1[2] = {{.portal = 0, .tag = 1}, {.portal = 1, .tag = 2}};
static struct isns_pg pg2[1] = {{.portal = 0, .tag = 1}};
static struct isns_node nodes[2];

static void snap_fixed(struct isns_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	memset(nodes, 0, sizeof(nodes));
	snprintf(s->eid, sizeof(s->eid), "host.example");
	s->esi_port = 4000;
	assert_int_equal(isns_snapshot_portal(s, ip4, 3260), 0);
	assert_int_equal(isns_snapshot_portal(s, ip6, 3261), 1);
	assert_int_equal(isns_snapshot_portal(s, ip4, 3260), 0); /* deduplicated */
	snprintf(nodes[0].name, sizeof(nodes[0].name), "iqn.2026-12.org.example:t1");
	snprintf(nodes[0].alias, sizeof(nodes[0].alias), "a");
	nodes[0].pgs = pg1;
	nodes[0].npgs = 2;
	snprintf(nodes[1].name, sizeof(nodes[1].name), "iqn.2026-12.org.example:t2");
	nodes[1].pgs = pg2;
	nodes[1].npgs = 1;
	s->nodes = nodes;
	s->nnodes = 2;
}

static const uint8_t golden_reg[] = {
    0x00, 0x01, 0x00, 0x01, 0x02, 0x48, 0x9c, 0x00, 0x12, 0x34, 0x00, 0x00, /* header: version 1,
									       DevAttrReg, PDU
									       Length 0x248, flags
									       CLIENT REPLACE LAST
									       FIRST, xid 0x1234,
									       sequence 0 */
    0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x1c, /* iSCSI Name "iqn.2026-12.org.example:t1" */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x31,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, /* Entity Identifier "host.example"
								 */
    0x68, 0x6f, 0x73, 0x74, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* Delimiter */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, /* Entity Identifier "host.example" */
    0x68, 0x6f, 0x73, 0x74, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04,	    /* Entity Protocol 2 */
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, /* Portal IP Address */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0,
    0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x04, /* Portal TCP/UDP Port 3260 */
    0x00, 0x00, 0x0c, 0xbc, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x04, /* ESI Port 4000 */
    0x00, 0x00, 0x0f, 0xa0, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x04, /* SCN Port 4000 */
    0x00, 0x00, 0x0f, 0xa0, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, /* Portal IP Address */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x04, /* Portal TCP/UDP Port 3261 */
    0x00, 0x00, 0x0c, 0xbd, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x04, /* ESI Port 4000 */
    0x00, 0x00, 0x0f, 0xa0, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x04, /* SCN Port 4000 */
    0x00, 0x00, 0x0f, 0xa0, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x1c, /* iSCSI Name
									       "iqn.2026-12.org.example:t1"
									     */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x31,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00, 0x04,		    /* iSCSI Node Type 1 */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x04, /* iSCSI Alias "a" */
    0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x1c, /* PG iSCSI Name
									       "iqn.2026-12.org.example:t1"
									     */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x31,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x10, /* PG Portal IP Addr */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0,
    0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x04, /* PG Portal TCP/UDP Port 3260
								       */
    0x00, 0x00, 0x0c, 0xbc, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x00, 0x04, /* PG Tag 1 */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x1c, /* PG iSCSI Name
									       "iqn.2026-12.org.example:t1"
									     */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x31,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x10, /* PG Portal IP Addr */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x04, /* PG Portal TCP/UDP Port 3261
								       */
    0x00, 0x00, 0x0c, 0xbd, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x00, 0x04, /* PG Tag 2 */
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x1c, /* iSCSI Name
									       "iqn.2026-12.org.example:t2"
									     */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x32,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00, 0x04,		    /* iSCSI Node Type 1 */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x1c, /* PG iSCSI Name
									       "iqn.2026-12.org.example:t2"
									     */
    0x69, 0x71, 0x6e, 0x2e, 0x32, 0x30, 0x32, 0x36, 0x2d, 0x31, 0x32, 0x2e, 0x6f,
    0x72, 0x67, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x3a, 0x74, 0x32,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x10, /* PG Portal IP Addr */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0,
    0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x04, /* PG Portal TCP/UDP Port 3260
								       */
    0x00, 0x00, 0x0c, 0xbc, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x00, 0x04, /* PG Tag 1 */
    0x00, 0x00, 0x00, 0x01,
};

static void test_reg_golden(void **state)
{
	struct isns_snapshot s;
	struct isns_buf b = {0};
	size_t next = 0;

	(void)state;
	snap_fixed(&s);
	assert_int_equal(isns_reg_build(&s, &next, 0x1234, &b), 0);
	assert_int_equal(next, 2);
	assert_int_equal(b.len, sizeof(golden_reg));
	assert_memory_equal(b.p, golden_reg, sizeof(golden_reg));
	/* nothing left: -EINVAL */
	assert_int_equal(isns_reg_build(&s, &next, 0x1235, &b), -EINVAL);
	isns_buf_free(&b);
	free(s.portals);
}

/* Every attribute of a message's payload, in order, into tags[]. */
static size_t tags_of(const struct isns_buf *b, uint32_t *tags, size_t max)
{
	struct isns_iter it;
	struct isns_attr a;
	size_t n = 0;
	int rc;

	isns_iter_init(&it, b->p + ISNS_HDR_LEN, b->len - ISNS_HDR_LEN);
	while ((rc = isns_attr_next(&it, &a)) > 0 && n < max)
		tags[n++] = a.tag;
	assert_true(rc >= 0);
	return n;
}

/* Too many nodes for one PDU: further messages, without Replace, carry
 * the rest; each node once; the entity's portals in the first only. */
static void test_reg_split(void **state)
{
	enum { N = 800 };
	struct isns_snapshot s = {0};
	struct isns_node *v = calloc(N, sizeof(*v));
	uint32_t *tags = malloc(65536 * sizeof(*tags));
	size_t next = 0, seen = 0, msgs = 0;

	(void)state;
	assert_non_null(v);
	snprintf(s.eid, sizeof(s.eid), "e");
	assert_int_equal(isns_snapshot_portal(&s, ip4, 3260), 0);
	for (size_t i = 0; i < N; i++) {
		snprintf(v[i].name, sizeof(v[i].name),
			 "iqn.2026-12.org.example.a-rather-long-domain-name:target-%04zu", i);
		v[i].pgs = pg2;
		v[i].npgs = 1;
	}
	s.nodes = v;
	s.nnodes = N;
	while (next < N) {
		struct isns_buf b = {0};
		struct isns_hdr h;
		size_t prev = next, nt;

		assert_int_equal(isns_reg_build(&s, &next, (uint16_t)(1 + msgs), &b), 0);
		assert_true(next > prev);
		assert_int_equal(isns_hdr_get(b.p, &h), 0);
		assert_int_equal(h.len, b.len - ISNS_HDR_LEN);
		assert_true(h.len <= ISNS_PAYLOAD_MAX);
		assert_int_equal(!!(h.flags & ISNS_F_REPLACE), msgs == 0);
		nt = tags_of(&b, tags, 65536);
		for (size_t k = 0; k < nt; k++) {
			seen += tags[k] == ISNS_TAG_ISCSI_NODE_TYPE;
			if (msgs)
				assert_int_not_equal(tags[k], ISNS_TAG_PORTAL_IP);
		}
		msgs++;
		isns_buf_free(&b);
	}
	assert_true(msgs >= 2);
	assert_int_equal(seen, N);
	free(s.portals);
	free(v);
	free(tags);
}

static void test_small_requests(void **state)
{
	/* DevDereg (5.6.5.4): source, delimiter, the entity */
	static const uint8_t dereg[] = {
	    0x00, 0x01, 0x00, 0x04, 0x00, 0x20, 0x8c, 0x00, 0x00, 0x07, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x04, 'i',	'q',
	    'n',  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 'e',  'i',  'd',	0x00,
	};
	/* SCNReg (5.6.5.5): source, key (the node), delimiter, the bitmap */
	static const uint8_t scnreg[] = {
	    0x00, 0x01, 0x00, 0x05, 0x00, 0x2c, 0x8c, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x20, 0x00, 0x00, 0x00, 0x04, 'i',  'q',  'n',  0x00, 0x00, 0x00, 0x00, 0x20,
	    0x00, 0x00, 0x00, 0x04, 'i',  'q',	'n',  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x1f,
	};
	/* DevAttrQry (5.6.5.2): source, key DD ID (nil), delimiter, no
	 * operating attributes */
	static const uint8_t ddq[] = {
	    0x00, 0x01, 0x00, 0x02, 0x00, 0x1c, 0x8c, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x20, 0x00, 0x00, 0x00, 0x04, 'i',  'q',  'n',  0x00, 0x00, 0x00, 0x08, 0x11,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct isns_buf b = {0};

	(void)state;
	assert_int_equal(isns_dereg_build("eid", "iqn", 7, &b), 0);
	assert_int_equal(b.len, sizeof(dereg));
	assert_memory_equal(b.p, dereg, sizeof(dereg));
	assert_int_equal(isns_scnreg_build("iqn", 0x1f, 8, &b), 0);
	assert_int_equal(b.len, sizeof(scnreg));
	assert_memory_equal(b.p, scnreg, sizeof(scnreg));
	assert_int_equal(isns_ddqry_build("iqn", 9, &b), 0);
	assert_int_equal(b.len, sizeof(ddq));
	assert_memory_equal(b.p, ddq, sizeof(ddq));
	isns_buf_free(&b);
}

/* A PDU header into p. */
static void hdr(uint8_t *p, uint16_t func, uint16_t len, uint16_t flags, uint16_t xid, uint16_t seq)
{
	struct isns_hdr h = {
	    .version = 1, .func = func, .len = len, .flags = flags, .xid = xid, .seq = seq};

	isns_hdr_put(p, &h);
}

static void feed(struct isns_rx *rx, const uint8_t *p, size_t n)
{
	uint8_t *d = isns_rx_space(rx, n);

	assert_non_null(d);
	memcpy(d, p, n);
	isns_rx_added(rx, n);
}

/* Two PDUs of one message (5.4), fed byte by byte: one message, the
 * payloads joined; then a PDU out of sequence, an authentication block, a
 * bad version: -EBADMSG. */
static void test_rx(void **state)
{
	uint8_t in[2 * ISNS_HDR_LEN + 12];
	struct isns_rx rx = {0};
	struct isns_msg m;

	(void)state;
	hdr(in, 0x8001, 8, ISNS_F_SERVER | ISNS_F_FIRST, 5, 0);
	memcpy(in + ISNS_HDR_LEN, "\0\0\0\0ABCD", 8);
	hdr(in + 20, 0x8001, 4, ISNS_F_SERVER | ISNS_F_LAST, 5, 1);
	memcpy(in + 32, "EFGH", 4);
	for (size_t i = 0; i < sizeof(in); i++) {
		feed(&rx, in + i, 1);
		assert_int_equal(isns_rx_take(&rx, &m), i == sizeof(in) - 1 ? 1 : 0);
	}
	assert_int_equal(m.func, 0x8001);
	assert_int_equal(m.xid, 5);
	assert_int_equal(m.n, 12);
	assert_memory_equal(m.p, "\0\0\0\0ABCDEFGH", 12);
	isns_rx_free(&rx);

	/* sequence 2 after 0 */
	hdr(in + 20, 0x8001, 4, ISNS_F_SERVER | ISNS_F_LAST, 5, 2);
	feed(&rx, in, sizeof(in));
	assert_int_equal(isns_rx_take(&rx, &m), -EBADMSG);
	isns_rx_free(&rx);
	/* another transaction's PDU in the middle */
	hdr(in + 20, 0x8001, 4, ISNS_F_SERVER | ISNS_F_LAST, 6, 1);
	feed(&rx, in, sizeof(in));
	assert_int_equal(isns_rx_take(&rx, &m), -EBADMSG);
	isns_rx_free(&rx);
	/* an authentication block: Security is not supported */
	hdr(in, 0x8001, 8, ISNS_F_AUTH | ISNS_F_FIRST | ISNS_F_LAST, 5, 0);
	feed(&rx, in, 20);
	assert_int_equal(isns_rx_take(&rx, &m), -EBADMSG);
	isns_rx_free(&rx);
	/* version 2; a PDU Length not a multiple of 4 */
	hdr(in, 0x8001, 8, ISNS_F_FIRST | ISNS_F_LAST, 5, 0);
	put_be16(in, 2);
	feed(&rx, in, 20);
	assert_int_equal(isns_rx_take(&rx, &m), -EBADMSG);
	isns_rx_free(&rx);
	hdr(in, 0x8001, 6, ISNS_F_FIRST | ISNS_F_LAST, 5, 0);
	feed(&rx, in, 20);
	assert_int_equal(isns_rx_take(&rx, &m), -EBADMSG);
	isns_rx_free(&rx);
}

static void test_attrs_malformed(void **state)
{
	/* a length beyond the payload; not a multiple of 4; a truncated tag */
	static const uint8_t beyond[] = {0, 0, 0, 1, 0, 0, 0, 8, 'a', 0, 0, 0};
	static const uint8_t odd[] = {0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 0, 0};
	static const uint8_t trunc[] = {0, 0, 0, 1, 0, 0};
	static const uint8_t nonul[] = {0, 0, 0, 1, 0, 0, 0, 4, 'a', 'b', 'c', 'd'};
	struct isns_iter it;
	struct isns_attr a;
	char s[8];
	uint32_t v;

	(void)state;
	isns_iter_init(&it, beyond, sizeof(beyond));
	assert_int_equal(isns_attr_next(&it, &a), -EBADMSG);
	isns_iter_init(&it, odd, sizeof(odd));
	assert_int_equal(isns_attr_next(&it, &a), -EBADMSG);
	isns_iter_init(&it, trunc, sizeof(trunc));
	assert_int_equal(isns_attr_next(&it, &a), -EBADMSG);
	isns_iter_init(&it, nonul, sizeof(nonul));
	assert_int_equal(isns_attr_next(&it, &a), 1);
	assert_int_equal(isns_attr_str(&a, s, sizeof(s)), -EBADMSG);
	assert_int_equal(isns_attr_u32(&a, &v), 0);
	assert_int_equal(v, 0x61626364);
	assert_int_equal(isns_attr_next(&it, &a), 0);
	assert_int_equal(isns_rsp_parse(nonul, 3, &v, &it), -EBADMSG);
}

/* ESI (5.6.5.13): answered with status 0 and the same attributes; one
 * without an entity is refused. SCN (5.6.5.8): the destination first. */
static void test_esi_scn(void **state)
{
	struct isns_buf req = {0}, rsp = {0};
	char dest[64];
	uint32_t bitmap;
	struct isns_hdr h;

	(void)state;
	isns_msg_begin(&req, ISNS_ESI, ISNS_F_SERVER, 3);
	isns_put_str(&req, ISNS_TAG_ENTITY_ID, "eid");
	isns_put_ip(&req, ISNS_TAG_PORTAL_IP, ip4);
	isns_put_u32(&req, ISNS_TAG_PORTAL_PORT, 3260);
	assert_int_equal(isns_msg_end(&req), 0);
	assert_int_equal(isns_esi_check(req.p + 12, req.len - 12), 0);
	assert_int_equal(isns_esi_rsp(&rsp, 3, req.p + 12, req.len - 12), 0);
	assert_int_equal(isns_hdr_get(rsp.p, &h), 0);
	assert_int_equal(h.func, ISNS_RESPONSE | ISNS_ESI);
	assert_int_equal(h.xid, 3);
	assert_int_equal(h.len, 4 + req.len - 12);
	assert_int_equal(get_be32(rsp.p + 12), 0);
	assert_memory_equal(rsp.p + 16, req.p + 12, req.len - 12);
	/* no entity */
	assert_int_equal(isns_esi_check(req.p + 12 + 24, req.len - 12 - 24), -EBADMSG);

	isns_msg_begin(&req, ISNS_SCN, ISNS_F_SERVER, 4);
	isns_put_str(&req, ISNS_TAG_ISCSI_NAME, "iqn.x:t");
	isns_put_u32(&req, ISNS_TAG_TIMESTAMP, 0);
	isns_put_u32(&req, ISNS_TAG_ISCSI_SCN_BITMAP, ISNS_SCN_DD_MEMBER_ADDED);
	isns_put_str(&req, ISNS_TAG_ISCSI_NAME, "iqn.x:i");
	isns_put_u32(&req, ISNS_TAG_ISCSI_SCN_BITMAP, ISNS_SCN_OBJECT_ADDED);
	assert_int_equal(isns_msg_end(&req), 0);
	assert_int_equal(isns_scn_parse(req.p + 12, req.len - 12, dest, sizeof(dest), &bitmap), 0);
	assert_string_equal(dest, "iqn.x:t");
	assert_int_equal(bitmap, ISNS_SCN_DD_MEMBER_ADDED | ISNS_SCN_OBJECT_ADDED);
	assert_int_equal(isns_scn_rsp(&rsp, 4, dest), 0);
	assert_int_equal(isns_hdr_get(rsp.p, &h), 0);
	assert_int_equal(h.func, ISNS_RESPONSE | ISNS_SCN);
	assert_int_equal(get_be32(rsp.p + 12), 0);
	assert_int_equal(get_be32(rsp.p + 16), ISNS_TAG_ISCSI_NAME);
	/* the destination is not first */
	assert_int_equal(
	    isns_scn_parse(req.p + 12 + 20, req.len - 12 - 20, dest, sizeof(dest), &bitmap),
	    -EBADMSG);
	isns_buf_free(&req);
	isns_buf_free(&rsp);
}

/* A DevAttrQry response as open-isns answers the DD query: key, delimiter,
 * per DD its ID, name, features, members (index and name). */
static void test_dd(void **state)
{
	struct isns_dd_set s = {0};
	struct isns_buf b = {0};
	struct isns_iter it;
	uint32_t st;

	(void)state;
	isns_msg_begin(&b, ISNS_RESPONSE | ISNS_DEV_ATTR_QRY, ISNS_F_SERVER, 1);
	isns_put_raw(&b, "\0\0\0\0", 4); /* status 0 */
	isns_put_nil(&b, ISNS_TAG_DD_ID);
	isns_put_nil(&b, ISNS_TAG_DELIMITER);
	isns_put_u32(&b, ISNS_TAG_DD_ID, 1);
	isns_put_str(&b, ISNS_TAG_DD_NAME, "one");
	isns_put_u32(&b, 2078, 0); /* DD Features */
	isns_put_u32(&b, 2067, 3); /* DD Member iSCSI Index */
	isns_put_str(&b, ISNS_TAG_DD_MEMBER_ISCSI_NAME, "iqn.x:t1");
	isns_put_u32(&b, 2067, 8);
	isns_put_str(&b, ISNS_TAG_DD_MEMBER_ISCSI_NAME, "iqn.x:in");
	isns_put_u32(&b, ISNS_TAG_DD_ID, 2);
	isns_put_str(&b, ISNS_TAG_DD_NAME, "two");
	isns_put_str(&b, ISNS_TAG_DD_MEMBER_ISCSI_NAME, "iqn.x:t2");
	isns_put_str(&b, ISNS_TAG_DD_MEMBER_ISCSI_NAME, "iqn.x:other");
	assert_int_equal(isns_msg_end(&b), 0);
	assert_int_equal(isns_rsp_parse(b.p + 12, b.len - 12, &st, &it), 0);
	assert_int_equal(st, 0);
	assert_int_equal(isns_dd_parse(&it, &s), 0);
	/* the same answer again (a second target's query): merged */
	assert_int_equal(isns_rsp_parse(b.p + 12, b.len - 12, &st, &it), 0);
	assert_int_equal(isns_dd_parse(&it, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].name, "one");
	assert_int_equal(s.v[0].nmembers, 2);
	assert_int_equal(s.v[1].nmembers, 2);
	assert_true(isns_dd_shared(&s, "iqn.x:t1", "iqn.x:in"));
	assert_false(isns_dd_shared(&s, "iqn.x:t2", "iqn.x:in"));
	assert_false(isns_dd_shared(&s, "iqn.x:t1", "iqn.x:other"));
	/* names are compared byte for byte */
	assert_false(isns_dd_shared(&s, "iqn.x:t1", "IQN.x:in"));
	isns_dd_set_free(&s);

	/* a member before any DD ID */
	isns_msg_begin(&b, ISNS_RESPONSE | ISNS_DEV_ATTR_QRY, ISNS_F_SERVER, 1);
	isns_put_raw(&b, "\0\0\0\0", 4);
	isns_put_nil(&b, ISNS_TAG_DELIMITER);
	isns_put_str(&b, ISNS_TAG_DD_MEMBER_ISCSI_NAME, "iqn.x:t1");
	assert_int_equal(isns_msg_end(&b), 0);
	assert_int_equal(isns_rsp_parse(b.p + 12, b.len - 12, &st, &it), 0);
	assert_int_equal(isns_dd_parse(&it, &s), -EBADMSG);
	isns_dd_set_free(&s);
	isns_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reg_golden),
	    cmocka_unit_test(test_reg_split),
	    cmocka_unit_test(test_small_requests),
	    cmocka_unit_test(test_rx),
	    cmocka_unit_test(test_attrs_malformed),
	    cmocka_unit_test(test_esi_scn),
	    cmocka_unit_test(test_dd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
