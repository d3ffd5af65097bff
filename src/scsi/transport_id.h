/* SPDX-License-Identifier: GPL-2.0-or-later */
/* transport_id.h: SPC-4 7.6.4 TransportIDs of iSCSI initiator ports (7.6.4.6)
 * for persistent reservations: parsing from a parameter list with bounds,
 * building for READ FULL STATUS and the state file, and matching initiator
 * ports.
 *
 * An iSCSI TransportID names either an initiator device (FORMAT CODE 00b:
 * the iSCSI name alone, i.e. every initiator port of the device) or one
 * initiator port (01b: "<iSCSI name>,i,0x<ISID in hex>"). Names are kept in
 * lower case (iSCSI names are case-insensitive, RFC 3722) and ISIDs as 12
 * lower-case hex digits, so that equal ports compare equal byte by byte. */
#ifndef UT_SCSI_TRANSPORT_ID_H
#define UT_SCSI_TRANSPORT_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TID_PROTO_ISCSI 0x5 /* SPC-4 7.6.2 table 362: PROTOCOL IDENTIFIER */
#define TID_NAME_MAX	223 /* RFC 7143 4.2.7.1: an iSCSI name */
#define TID_ISID_HEX	12  /* 6-byte ISID as hex digits */
/* largest TransportID built: 4-byte header + name + ",i,0x" + ISID + NUL,
 * padded to a multiple of 4 */
#define TID_MAX_LEN 248u

struct tid_port {
	char name[TID_NAME_MAX + 1]; /* normalized (RFC 3722, lib/iname.h), non-empty */
	char isid[TID_ISID_HEX + 1]; /* 12 lower-case hex digits; "" = every port of the device */
};

/* Parse the TransportID at p (avail bytes left in the parameter list).
 * Returns 0 with *out and *len (bytes the TransportID occupies), or -EINVAL
 * with *bad_off the offset (from p) of the offending byte: protocol not
 * iSCSI, reserved format, ADDITIONAL LENGTH not a multiple of 4 or beyond
 * avail, no NUL terminator, a name that is empty, too long or holds a
 * character no iSCSI name has, a malformed ",i,0x" separator or ISID. */
int tid_parse(const uint8_t *p, size_t avail, struct tid_port *out, size_t *len, size_t *bad_off);
/* The initiator port of an I_T nexus from its port name ("<name>,i,0x<ISID>",
 * as the iSCSI fabric builds it; a name without separator is a device).
 * 0 or -EINVAL. */
int tid_from_port_name(const char *port_name, struct tid_port *out);
/* Builds the TransportID of port (format 01b with an ISID, else 00b) into
 * buf; returns its length, or 0 when size is too small (TID_MAX_LEN always
 * suffices). */
size_t tid_build(const struct tid_port *port, uint8_t *buf, size_t size);

/* Does the registered identity reg (a port, or a device: every port) cover
 * the initiator port `port`? */
bool tid_covers(const struct tid_port *reg, const struct tid_port *port);
/* Do a and b share at least one initiator port? */
bool tid_overlap(const struct tid_port *a, const struct tid_port *b);
bool tid_equal(const struct tid_port *a, const struct tid_port *b);

#endif
