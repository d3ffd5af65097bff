/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns_proto.h: the iSNS protocol's wire format (iSNSP, RFC 4171 5):
 * the 12-byte PDU header, the tag-length-value attributes and the message
 * payloads the target sends and receives. No state, no I/O: isns.c runs
 * the client, isns_reg.c builds its messages.
 *
 * PDU (5.1):    Version(2)=1 | Function ID(2) | PDU Length(2) | Flags(2)
 *               | Transaction ID(2) | Sequence ID(2) | payload
 * PDU Length counts the payload only (no header, no authentication block);
 * a message longer than one PDU is split over PDUs with the same
 * Transaction ID, Sequence IDs 0, 1, ... and FIRST on the first, LAST on the
 * last (5.4). Every payload is a list of attributes (5.5):
 *               Tag(4) | Length(4) | Value (Length bytes, a multiple of 4)
 * Strings are UTF-8, NUL-terminated and NUL-padded to a multiple of 4
 * (5.5.1); addresses are 16 bytes, IPv4 as IPv4-mapped IPv6 (6.3.1).
 *
 * Requests: Source attribute, Message Key attributes, Delimiter (tag 0,
 * length 0), Operating attributes (5.6.1). Responses: a 4-byte Status Code,
 * then the attributes (5.7). Every parser here is bounds-checked against
 * the bytes received: a malformed or truncated message is -EBADMSG, never a
 * read past the buffer. */
#ifndef UT_ISCSI_ISNS_PROTO_H
#define UT_ISCSI_ISNS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISNS_VERSION	  1u
#define ISNS_HDR_LEN	  12u
#define ISNS_PAYLOAD_MAX  65532u     /* the largest multiple of 4 PDU Length holds */
#define ISNS_MSG_MAX	  (1u << 20) /* a reassembled message we accept */
#define ISNS_DEFAULT_PORT 3205u	     /* IANA "isns" */

/* Function IDs (RFC 4171 5.1.3); a response is 0x8000 | the request's. */
enum isns_func {
	ISNS_DEV_ATTR_REG = 0x0001,
	ISNS_DEV_ATTR_QRY = 0x0002,
	ISNS_DEV_GET_NEXT = 0x0003,
	ISNS_DEV_DEREG = 0x0004,
	ISNS_SCN_REG = 0x0005,
	ISNS_SCN_DEREG = 0x0006,
	ISNS_SCN = 0x0008,
	ISNS_ESI = 0x000d,
	ISNS_RESPONSE = 0x8000,
};

/* Flags (5.1.4) */
enum {
	ISNS_F_CLIENT = 0x8000,
	ISNS_F_SERVER = 0x4000,
	ISNS_F_AUTH = 0x2000,
	ISNS_F_REPLACE = 0x1000,
	ISNS_F_LAST = 0x0800,
	ISNS_F_FIRST = 0x0400,
};

/* Attribute tags (RFC 4171 6.1) */
enum isns_tag {
	ISNS_TAG_DELIMITER = 0,
	ISNS_TAG_ENTITY_ID = 1,
	ISNS_TAG_ENTITY_PROTOCOL = 2,
	ISNS_TAG_TIMESTAMP = 4,
	ISNS_TAG_REG_PERIOD = 6,
	ISNS_TAG_PORTAL_IP = 16,
	ISNS_TAG_PORTAL_PORT = 17,
	ISNS_TAG_ESI_PORT = 20,
	ISNS_TAG_SCN_PORT = 23,
	ISNS_TAG_ISCSI_NAME = 32,
	ISNS_TAG_ISCSI_NODE_TYPE = 33,
	ISNS_TAG_ISCSI_ALIAS = 34,
	ISNS_TAG_ISCSI_SCN_BITMAP = 35,
	ISNS_TAG_PG_ISCSI_NAME = 48,
	ISNS_TAG_PG_PORTAL_IP = 49,
	ISNS_TAG_PG_PORTAL_PORT = 50,
	ISNS_TAG_PG_TAG = 51,
	ISNS_TAG_DD_ID = 2065,
	ISNS_TAG_DD_NAME = 2066,
	ISNS_TAG_DD_MEMBER_ISCSI_NAME = 2068,
};

#define ISNS_ENTITY_PROTOCOL_ISCSI 2u /* 6.2.2 */
#define ISNS_NODE_TARGET	   1u /* 6.4.2: bit 31 */
/* iSCSI Node SCN Bitmap (6.4.4; bit 31 of the RFC is the least
 * significant) */
enum {
	ISNS_SCN_DD_MEMBER_ADDED = 1u << 0,
	ISNS_SCN_DD_MEMBER_REMOVED = 1u << 1,
	ISNS_SCN_OBJECT_UPDATED = 1u << 2,
	ISNS_SCN_OBJECT_ADDED = 1u << 3,
	ISNS_SCN_OBJECT_REMOVED = 1u << 4,
};
/* Status codes (5.7.3) */
enum {
	ISNS_OK = 0,
	ISNS_ST_NO_SUCH_ENTRY = 9,
};
const char *isns_status_name(uint32_t status);

struct isns_hdr {
	uint16_t version, func, len, flags, xid, seq;
};
void isns_hdr_put(uint8_t *p, const struct isns_hdr *h);
/* The header at p (ISNS_HDR_LEN bytes): 0, or -EBADMSG (version other than
 * 1, PDU Length not a multiple of 4). */
int isns_hdr_get(const uint8_t *p, struct isns_hdr *h);

/* A growing message: one PDU, header first (isns_msg_begin/_end). */
struct isns_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed; /* out of memory or beyond ISNS_PAYLOAD_MAX: dropped */
};
void isns_buf_free(struct isns_buf *b);
void isns_msg_begin(struct isns_buf *b, uint16_t func, uint16_t flags, uint16_t xid);
/* Fills the header's PDU Length; 0, or -EMSGSIZE / -ENOMEM (b->failed). */
int isns_msg_end(struct isns_buf *b);
/* The payload written since isns_msg_begin(). */
size_t isns_msg_payload(const struct isns_buf *b);
void isns_put_u32(struct isns_buf *b, uint32_t tag, uint32_t v);
void isns_put_str(struct isns_buf *b, uint32_t tag, const char *s);
void isns_put_nil(struct isns_buf *b, uint32_t tag); /* length 0: a query key, the delimiter */
void isns_put_ip(struct isns_buf *b, uint32_t tag, const uint8_t ip[16]);
void isns_put_raw(struct isns_buf *b, const void *p, size_t n);

/* Attributes of a payload, in order. */
struct isns_attr {
	uint32_t tag, len;
	const uint8_t *val;
};
struct isns_iter {
	const uint8_t *p;
	size_t n, off;
};
void isns_iter_init(struct isns_iter *it, const uint8_t *p, size_t n);
/* 1 with *a, 0 at the end, -EBADMSG: a length beyond the payload or not a
 * multiple of 4, or a truncated tag/length. */
int isns_attr_next(struct isns_iter *it, struct isns_attr *a);
/* A 4-byte value: 0 or -EBADMSG. */
int isns_attr_u32(const struct isns_attr *a, uint32_t *v);
/* A string value (NUL within its length, fits size): 0 or -EBADMSG. */
int isns_attr_str(const struct isns_attr *a, char *out, size_t size);

/* A response payload: the status code, *attrs on what follows. 0 or
 * -EBADMSG (shorter than a status code). */
int isns_rsp_parse(const uint8_t *p, size_t n, uint32_t *status, struct isns_iter *attrs);

/* An ESI request (5.6.5.13): its attributes must parse and name an entity
 * (EID). 0 or -EBADMSG. The response (isns_esi_rsp) echoes them after
 * status 0 (5.7.5.13). */
int isns_esi_check(const uint8_t *p, size_t n);
int isns_esi_rsp(struct isns_buf *b, uint16_t xid, const uint8_t *req, size_t n);

/* An SCN (5.6.5.8): the Destination Attribute (the iSCSI Name of the node
 * notified) into dest, the OR of every SCN Bitmap it carries into *bitmap.
 * 0 or -EBADMSG. The response (5.7.5.8): status 0 and the Destination
 * Attribute. */
int isns_scn_parse(const uint8_t *p, size_t n, char *dest, size_t size, uint32_t *bitmap);
int isns_scn_rsp(struct isns_buf *b, uint16_t xid, const char *dest);

#endif

/* Reassembly of received PDUs into messages (5.4): bytes in, whole
 * messages out. A message is the payloads of its PDUs (same function and
 * Transaction ID, Sequence IDs 0, 1, ...) concatenated. */
struct isns_rx {
	uint8_t *in; /* bytes received, not yet consumed */
	size_t inlen, incap;
	uint8_t *msg; /* the message being assembled */
	size_t mlen;
	bool open; /* a FIRST PDU seen, LAST not yet */
	uint16_t func, flags, xid, next_seq;
};
struct isns_msg {
	uint16_t func, flags, xid;
	const uint8_t *p; /* valid until the next isns_rx call */
	size_t n;
};
/* Room for up to want more bytes at the end of rx->in (NULL: out of
 * memory); then isns_rx_added(rx, n) after writing n bytes there. */
uint8_t *isns_rx_space(struct isns_rx *rx, size_t want);
void isns_rx_added(struct isns_rx *rx, size_t n);
/* 1: *m is a whole message; 0: more bytes needed; -EBADMSG: a malformed
 * header, a PDU out of sequence, an authentication block (not supported:
 * Security off only) or a message beyond ISNS_MSG_MAX. */
int isns_rx_take(struct isns_rx *rx, struct isns_msg *m);
void isns_rx_free(struct isns_rx *rx);
