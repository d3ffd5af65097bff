/* SPDX-License-Identifier: GPL-2.0-or-later */
/* transport_id.c: iSCSI TransportIDs (SPC-4 7.6.4.6) and initiator port
 * identities for persistent reservations. Everything read from a parameter
 * list is bounded by the bytes the caller has; nothing is treated as a C
 * string before its terminator has been found inside those bounds. */
#include "scsi/transport_id.h"

#include <errno.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/iname.h"

#define TID_HDR 4
static const char tid_sep[5] = {',', 'i', ',', '0', 'x'}; /* SPC-4 table 375 SEPARATOR */

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Bytes no iSCSI name holds (RFC 3722 prohibits them): controls, space,
 * DEL; found here first so that the sense data points at the byte itself.
 * (The comma ends the name: it separates the ISID.) */
static bool name_char_ok(uint8_t c)
{
	return c > 0x20 && c != 0x7f;
}

/* Parse "<name>" or "<name>,i,0x<ISID>" from s[0..n) (no NUL inside). On
 * error *bad is the offset of the offending byte. */
static int parse_port(const char *s, size_t n, struct tid_port *out, size_t *bad)
{
	size_t name_len = 0, i;

	while (name_len < n && s[name_len] != ',')
		name_len++;
	for (i = 0; i < name_len; i++) {
		if (!name_char_ok((uint8_t)s[i])) {
			*bad = i;
			return -EINVAL;
		}
	}
	/* RFC 3722: the normalized name, as the fabric keeps it (lib/iname.h):
	 * registrations compare it byte for byte. A name that does not
	 * normalize for another reason is pointed at by its first byte. */
	if (iname_normalize(s, name_len, out->name, NULL) < 0) {
		*bad = 0;
		return -EINVAL;
	}
	out->isid[0] = 0;
	if (name_len == n)
		return 0;
	/* SEPARATOR ",i,0x" (letters in either case), then 1..12 hex digits */
	if (n - name_len < sizeof(tid_sep) + 1) {
		*bad = name_len;
		return -EINVAL;
	}
	for (i = 0; i < sizeof(tid_sep); i++) {
		if (lower(s[name_len + i]) != tid_sep[i]) {
			*bad = name_len + i;
			return -EINVAL;
		}
	}
	i = name_len + sizeof(tid_sep);
	if (n - i > TID_ISID_HEX) {
		*bad = i + TID_ISID_HEX;
		return -EINVAL;
	}
	/* left-pad to 12 digits: leading zeros of the 6-byte ISID may be left out */
	memset(out->isid, '0', TID_ISID_HEX);
	out->isid[TID_ISID_HEX] = 0;
	for (size_t k = 0; i + k < n; k++) {
		char c = s[i + k];

		if (!is_hex(c)) {
			*bad = i + k;
			return -EINVAL;
		}
		out->isid[TID_ISID_HEX - (n - i) + k] = lower(c);
	}
	return 0;
}

int tid_parse(const uint8_t *p, size_t avail, struct tid_port *out, size_t *len, size_t *bad_off)
{
	uint8_t format;
	size_t add, n;

	*bad_off = 0;
	if (avail < TID_HDR)
		return -EINVAL;
	/* byte 0: FORMAT CODE (bits 7-6), reserved (5-4), PROTOCOL IDENTIFIER */
	format = p[0] >> 6;
	if ((p[0] & 0x0f) != TID_PROTO_ISCSI || (p[0] & 0x30) || format > 1)
		return -EINVAL;
	add = get_be16(p + 2);
	/* SPC-4 7.6.4.6: ADDITIONAL LENGTH is a multiple of four */
	if (add == 0 || (add & 3) || add > avail - TID_HDR || TID_HDR + add > TID_MAX_LEN) {
		*bad_off = 2;
		return -EINVAL;
	}
	/* the name (and ISID) end with a NUL inside ADDITIONAL LENGTH */
	n = 0;
	while (n < add && p[TID_HDR + n])
		n++;
	if (n == add) {
		*bad_off = TID_HDR + add - 1;
		return -EINVAL;
	}
	if (parse_port((const char *)p + TID_HDR, n, out, bad_off)) {
		*bad_off += TID_HDR;
		return -EINVAL;
	}
	/* format 00b names a device (no separator), 01b a port */
	if ((format == 0) != (out->isid[0] == 0)) {
		*bad_off = 0;
		return -EINVAL;
	}
	*len = TID_HDR + add;
	return 0;
}

int tid_from_port_name(const char *port_name, struct tid_port *out)
{
	size_t bad;

	return parse_port(port_name, strnlen(port_name, TID_MAX_LEN), out, &bad);
}

size_t tid_build(const struct tid_port *port, uint8_t *buf, size_t size)
{
	size_t name_len = strlen(port->name), n = name_len + 1, add;
	bool has_isid = port->isid[0] != 0;

	if (has_isid)
		n += sizeof(tid_sep) + TID_ISID_HEX;
	/* SPC-4 7.6.4.6: at least 20 bytes of additional length, a multiple of 4 */
	add = (n + 3) & ~(size_t)3;
	if (add < 20)
		add = 20;
	if (TID_HDR + add > size)
		return 0;
	memset(buf, 0, TID_HDR + add);
	buf[0] = (uint8_t)((has_isid ? 0x40 : 0x00) | TID_PROTO_ISCSI);
	put_be16(buf + 2, (uint16_t)add);
	memcpy(buf + TID_HDR, port->name, name_len);
	if (has_isid) {
		memcpy(buf + TID_HDR + name_len, tid_sep, sizeof(tid_sep));
		memcpy(buf + TID_HDR + name_len + sizeof(tid_sep), port->isid, TID_ISID_HEX);
	}
	return TID_HDR + add;
}

bool tid_covers(const struct tid_port *reg, const struct tid_port *port)
{
	return strcmp(reg->name, port->name) == 0 &&
	       (!reg->isid[0] || strcmp(reg->isid, port->isid) == 0);
}

bool tid_overlap(const struct tid_port *a, const struct tid_port *b)
{
	return strcmp(a->name, b->name) == 0 &&
	       (!a->isid[0] || !b->isid[0] || strcmp(a->isid, b->isid) == 0);
}

bool tid_equal(const struct tid_port *a, const struct tid_port *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->isid, b->isid) == 0;
}
