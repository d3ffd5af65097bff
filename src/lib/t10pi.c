/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t10pi.c: T10 protection information tuples (t10pi.h). The guard is
 * CRC-16 T10-DIF computed by ISA-L (crc16_t10dif, the library the design
 * chose for CRCs). */
#include "lib/t10pi.h"

#include <isa-l/crc.h>
#include <string.h>

#include "lib/endian.h"

uint16_t t10pi_crc(const uint8_t *data, uint32_t len)
{
	return crc16_t10dif(0, data, len);
}

uint16_t t10pi_crc_update(uint16_t crc, const uint8_t *data, size_t len)
{
	/* no reflection, no final inversion: the register chains as is */
	return crc16_t10dif(crc, data, len);
}

void t10pi_generate(const uint8_t *data, uint8_t *tuples, uint32_t bs, uint64_t n,
		    enum t10pi_type type, uint32_t ref)
{
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *t = tuples + i * T10PI_TUPLE_LEN;

		put_be16(t, t10pi_crc(data + i * bs, bs));
		put_be16(t + 2, 0x0000);
		put_be32(t + 4, type == T10PI_TYPE3 ? 0xffffffffu : (uint32_t)(ref + i));
	}
}

void t10pi_split(uint8_t *buf, uint8_t *tuples, uint32_t bs, uint64_t n)
{
	/* block i moves from i * (bs + 8) down to i * bs: front to back, a
	 * block never overwrites one not yet moved */
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *src = buf + i * (bs + T10PI_TUPLE_LEN);

		memcpy(tuples + i * T10PI_TUPLE_LEN, src + bs, T10PI_TUPLE_LEN);
		if (i)
			memmove(buf + i * bs, src, bs);
	}
}

void t10pi_merge(uint8_t *buf, const uint8_t *tuples, uint32_t bs, uint64_t n)
{
	/* back to front: block i moves up from i * bs to i * (bs + 8) */
	for (uint64_t i = n; i-- > 0;) {
		uint8_t *dst = buf + i * (bs + T10PI_TUPLE_LEN);

		if (i)
			memmove(dst, buf + i * bs, bs);
		memcpy(dst + bs, tuples + i * T10PI_TUPLE_LEN, T10PI_TUPLE_LEN);
	}
}
