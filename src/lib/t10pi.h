/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t10pi.h: T10 protection information tuples (SBC-4 4.22.2), the part
 * every layer needs: the 8-byte tuple of a logical block, its guard (CRC-16
 * T10-DIF), the tuples a device server generates, and the moves between the
 * interleaved wire layout (data then tuple, block after block) and data
 * stored apart from its tuples. The checks an initiator's PROTECT fields
 * ask for are the SCSI core's (scsi/pi.h). Pure functions over buffers. */
#ifndef UT_LIB_T10PI_H
#define UT_LIB_T10PI_H

#include <stddef.h>
#include <stdint.h>

/* LOGICAL BLOCK GUARD (be16), LOGICAL BLOCK APPLICATION TAG (be16),
 * LOGICAL BLOCK REFERENCE TAG (be32) */
#define T10PI_TUPLE_LEN 8u

enum t10pi_type {
	T10PI_NONE = 0,
	T10PI_TYPE1 = 1, /* reference tag: the low 32 bits of the LBA */
	T10PI_TYPE2 = 2, /* reference tag: the CDB's expected initial tag, +1 per block */
	T10PI_TYPE3 = 3, /* reference tag: the application client's, not checked */
};

/* CRC-16 T10-DIF (polynomial 8BB7h, initial 0, no inversion). */
uint16_t t10pi_crc(const uint8_t *data, uint32_t len);
/* The same over pieces: start from 0, feed each piece in order. */
uint16_t t10pi_crc_update(uint16_t crc, const uint8_t *data, size_t len);

/* The tuples of n blocks of data (n * bs bytes) a device server writes for
 * data received without them: the guard, application tag 0000h, reference
 * tag ref + i (type 3: FFFFFFFFh). */
void t10pi_generate(const uint8_t *data, uint8_t *tuples, uint32_t bs, uint64_t n,
		    enum t10pi_type type, uint32_t ref);

/* Interleaved (bs + 8 per block) to data contiguous at the front of buf and
 * the tuples copied to tuples; in place. */
void t10pi_split(uint8_t *buf, uint8_t *tuples, uint32_t bs, uint64_t n);

/* The reverse: buf holds n blocks of data at its front and has room for
 * n * (bs + 8) bytes; in place. */
void t10pi_merge(uint8_t *buf, const uint8_t *tuples, uint32_t bs, uint64_t n);

#endif
