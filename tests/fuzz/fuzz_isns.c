/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_isns.c: libFuzzer harness (7): what an iSNS server (or anybody who
 * reaches the ESI/SCN port) sends the iSNS client (RFC 4171): PDU
 * reassembly (isns_rx_*), response status and attributes (isns_rsp_parse,
 * isns_attr_*), the discovery domains of a DD query's answer
 * (isns_dd_parse, isns_dd_shared), ESI (isns_esi_check, isns_esi_rsp) and
 * SCN (isns_scn_parse, isns_scn_rsp).
 *
 * Input: byte 0 = the size of the pieces the rest is fed in (1..256; 0:
 * all at once), then the bytes of the connection.
 *
 * Checked on every input (a violation aborts): an ESI or SCN that parses is
 * answered with a well-formed response that reassembles into one message
 * with the response's function, the request's transaction ID and status 0
 * (an ESI answer echoing the request's attributes); a DD set holds no DD
 * twice and no member twice in a DD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/isns.h"
#include "fuzz_env.h"
#include "lib/endian.h"

static void isns_fail(const char *what)
{
	fprintf(stderr, "fuzz_isns: %s\n", what);
	abort();
}

/* The response b reassembles into one message of func/xid, status 0. */
static void check_rsp(const struct isns_buf *b, uint16_t func, uint16_t xid, struct isns_msg *out,
		      struct isns_rx *rx)
{
	uint8_t *p = isns_rx_space(rx, b->len);

	if (!p)
		isns_fail("out of memory");
	memcpy(p, b->p, b->len);
	isns_rx_added(rx, b->len);
	if (isns_rx_take(rx, out) != 1)
		isns_fail("our response does not reassemble");
	if (out->func != func || out->xid != xid || out->n < 4 || get_be32(out->p) != 0)
		isns_fail("response function, transaction or status wrong");
}

static void check_dd(const struct isns_dd_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = i + 1; j < s->n; j++)
			if (s->v[i].id == s->v[j].id)
				isns_fail("a DD twice");
		for (size_t k = 0; k < s->v[i].nmembers; k++) {
			for (size_t l = k + 1; l < s->v[i].nmembers; l++)
				if (!strcmp(s->v[i].members[k], s->v[i].members[l]))
					isns_fail("a member twice");
			if (!isns_dd_shared(s, s->v[i].members[k], s->v[i].members[k]))
				isns_fail("a member not in its own DD");
		}
	}
}

static void one_message(const struct isns_msg *m, struct isns_dd_set *dd)
{
	struct isns_buf b = {0};
	struct isns_rx rx = {0};
	struct isns_msg r;
	struct isns_iter it;
	struct isns_attr a;
	char s[ISCSI_NAME_MAX + 1];
	uint32_t v;

	if (m->func & ISNS_RESPONSE) {
		if (isns_rsp_parse(m->p, m->n, &v, &it))
			return;
		while (isns_attr_next(&it, &a) > 0) {
			(void)isns_attr_u32(&a, &v);
			(void)isns_attr_str(&a, s, sizeof(s));
		}
		if (isns_rsp_parse(m->p, m->n, &v, &it) == 0 && isns_dd_parse(&it, dd) == 0)
			check_dd(dd);
		return;
	}
	if (m->func == ISNS_ESI && isns_esi_check(m->p, m->n) == 0) {
		if (isns_esi_rsp(&b, m->xid, m->p, m->n) == 0) {
			check_rsp(&b, ISNS_RESPONSE | ISNS_ESI, m->xid, &r, &rx);
			if (r.n != m->n + 4 || memcmp(r.p + 4, m->p, m->n))
				isns_fail("ESI response does not echo the request");
		}
	} else if (m->func == ISNS_SCN && isns_scn_parse(m->p, m->n, s, sizeof(s), &v) == 0) {
		if (isns_scn_rsp(&b, m->xid, s))
			isns_fail("SCN response not built");
		check_rsp(&b, ISNS_RESPONSE | ISNS_SCN, m->xid, &r, &rx);
	}
	isns_rx_free(&rx);
	isns_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct isns_dd_set dd = {0};
	struct isns_rx rx = {0};
	size_t piece, off = 1;

	if (size < 1)
		return 0;
	piece = data[0] ? data[0] : size;
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece;
		uint8_t *p = isns_rx_space(&rx, n);
		struct isns_msg m;
		int rc;

		if (!p)
			isns_fail("out of memory");
		memcpy(p, data + off, n);
		isns_rx_added(&rx, n);
		off += n;
		while ((rc = isns_rx_take(&rx, &m)) > 0)
			one_message(&m, &dd);
		if (rc < 0)
			break; /* the client closes the connection */
	}
	isns_rx_free(&rx);
	isns_dd_set_free(&dd);
	return 0;
}
