/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iname.h: iSCSI names in their normalized form (RFC 7143 4.2.7, RFC 3722).
 *
 * Two iSCSI names are the same name when their normalized forms are equal
 * byte for byte. RFC 3722 defines the normalization as a stringprep profile
 * (RFC 3454): mapping (table B.1: removed; B.2: case folding), Unicode
 * normalization form KC, and prohibited output (controls, spaces, private
 * use, surrogates, ...); libidn implements it (stringprep_iscsi). A name
 * enters the target in one of three places -- a Login Request, a
 * TransportID in a PERSISTENT RESERVE OUT parameter list, the configuration
 * or the control API -- and each normalizes it here once, so that every
 * later comparison (ACLs, session lookup and reinstatement, persistent
 * reservations, the control API) is a plain byte comparison.
 *
 * Besides the profile, an iSCSI name has at most 223 bytes (RFC 7143
 * 4.2.7.1) and starts with a type designator "iqn.", "eui." or "naa."
 * (4.2.7.2). The profile prohibits ASCII punctuation but '-', '.' and
 * ':', so the comma that separates the ISID in initiator port names and
 * TransportIDs (SPC-4 7.6.4.6) never occurs in a name. */
#ifndef UT_INAME_H
#define UT_INAME_H

#include <stdbool.h>
#include <stddef.h>

#define INAME_MAX 223u /* RFC 7143 4.2.7.1: bytes, UTF-8 */

/* Normalize the len bytes at in (UTF-8, no NUL inside) into out (NUL
 * terminated, at most INAME_MAX bytes before the NUL; out may be in).
 * Returns the normalized length, or -EINVAL with *why (when why is not
 * NULL) saying what is wrong: not UTF-8, a prohibited character, empty or
 * too long after normalization, no type designator. */
int iname_normalize(const void *in, size_t len, char out[INAME_MAX + 1], const char **why);

/* Is the C string s already in normalized form (and a valid name)? */
bool iname_is_normalized(const char *s);

#endif
