/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cidr.h: an IPv4 or IPv6 address or network in CIDR notation (RFC 4632
 * section 3.1, RFC 4291 section 2.3): "192.0.2.7", "10.0.0.0/8", "::1",
 * "fd00::/8". Read by the config (ACL "addresses") and the iSCSI fabric's
 * access rules alike. */
#ifndef UT_CIDR_H
#define UT_CIDR_H

#include <stdint.h>

/* s (a C string) -> family (AF_INET, AF_INET6), addr (4 or 16 bytes used,
 * the rest zero) and prefix (an address alone: 32 or 128). A network with
 * host bits set ("10.0.0.1/8") is refused: most likely a mistyped network.
 * 0, or -EINVAL with *why (when why is not NULL) saying what is wrong. */
int cidr_parse(const char *s, uint8_t *family, uint8_t addr[16], uint8_t *prefix, const char **why);

#endif
