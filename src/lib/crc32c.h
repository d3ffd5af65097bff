/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.h: CRC32C (Castagnoli), the iSCSI header/data digest (RFC 7143
 * 13.1, RFC 3720 appendix B.4 test vectors). SSE4.2 / ARMv8 CRC instructions
 * when the CPU has them (detected once), else a slicing table.
 *
 * crc32c(buf, len) is the finished digest value: ~update(~0, buf). Over
 * several pieces: s = CRC32C_INIT; s = crc32c_update(s, a, n); ...;
 * digest = crc32c_final(s). On the wire iSCSI stores the digest
 * little-endian (put_le32). */
#ifndef UT_CRC32C_H
#define UT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#define CRC32C_INIT 0xffffffffu
uint32_t crc32c_update(uint32_t state, const void *buf, size_t len);
static inline uint32_t crc32c_final(uint32_t state)
{
	return ~state;
}
static inline uint32_t crc32c(const void *buf, size_t len)
{
	return crc32c_final(crc32c_update(CRC32C_INIT, buf, len));
}
/* "sse4.2", "armv8", or "table" */
const char *crc32c_impl(void);

#endif
