/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cidr.c: addresses and networks in CIDR notation (cidr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "lib/cidr.h"

static int cidr_fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

int cidr_parse(const char *s, uint8_t *family, uint8_t addr[16], uint8_t *prefix, const char **why)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned max, p;

	if (!alen || alen >= sizeof(buf))
		return cidr_fail(why, "not an IPv4 or IPv6 address");
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1) {
		*family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		*family = AF_INET6;
		max = 128;
	} else {
		return cidr_fail(why, "not an IPv4 or IPv6 address");
	}
	p = max;
	if (slash) {
		const char *d = slash + 1;

		/* decimal digits only, at most 3 ("/08" is read as 8) */
		if (!*d || strlen(d) > 3)
			return cidr_fail(why, "bad prefix length");
		p = 0;
		for (; *d; d++) {
			if (*d < '0' || *d > '9')
				return cidr_fail(why, "bad prefix length");
			p = p * 10 + (unsigned)(*d - '0');
		}
		if (p > max)
			return cidr_fail(why, "bad prefix length");
	}
	for (unsigned bit = p; bit < max; bit++)
		if (addr[bit / 8] & (0x80u >> (bit % 8)))
			return cidr_fail(why, "address bits set beyond the prefix length");
	*prefix = (uint8_t)p;
	return 0;
}
