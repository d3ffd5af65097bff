/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi.c: T10 protection information (SBC-4 4.22), the arithmetic of it.
 *
 * PROTECT fields (SBC-4 5.x, tables "RDPROTECT field", "WRPROTECT field",
 * "VRPROTECT field"; the same shape for all three):
 *   000b  no tuples on the wire; the device server checks what it stores
 *         (guard, and the reference tag for types 1 and 2), or generates
 *         the tuples of received data (WRPROTECT)
 *   001b  tuples on the wire; guard, application tag, reference tag
 *   010b  tuples on the wire; application tag, reference tag
 *   011b  tuples on the wire; no check
 *   100b  tuples on the wire; guard only
 *   101b  as 001b
 *   110b, 111b reserved
 * The application tag is checked only where the command gives an expected
 * one (the 32-byte CDBs: EXPECTED LOGICAL BLOCK APPLICATION TAG and its
 * mask); a mask of 0 checks nothing. The reference tag of type 3 belongs to
 * the application client and is never checked.
 * The guard is lib/t10pi.c's CRC-16 T10-DIF. */
#include "scsi/pi.h"

#include <string.h>

#include "lib/endian.h"

bool pi_protect_checks(enum t10pi_type t, uint8_t protect, struct pi_checks *c)
{
	bool ref = t == T10PI_TYPE1 || t == T10PI_TYPE2;

	memset(c, 0, sizeof(*c));
	if (t == T10PI_NONE)
		return protect == 0;
	switch (protect) {
	case 0:
		c->guard = true;
		c->ref = ref;
		return true;
	case 1:
	case 5:
		*c = (struct pi_checks){.transfer = true, .guard = true, .app = true, .ref = ref};
		return true;
	case 2:
		*c = (struct pi_checks){.transfer = true, .app = true, .ref = ref};
		return true;
	case 3:
		c->transfer = true;
		return true;
	case 4:
		*c = (struct pi_checks){.transfer = true, .guard = true};
		return true;
	default:
		return false;
	}
}

static bool escaped(enum t10pi_type t, const uint8_t *tuple)
{
	/* SBC-4 4.22.3: the application client disabled the checks */
	if (get_be16(tuple + 2) != 0xffff)
		return false;
	return t != T10PI_TYPE3 || get_be32(tuple + 4) == 0xffffffffu;
}

enum sense_reason pi_verify(const uint8_t *data, const uint8_t *tuples, uint32_t bs, uint64_t n,
			    const struct pi_expect *e, const struct pi_checks *c, uint64_t *bad)
{
	bool app = c->app && e->app_mask;

	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *t = tuples + i * T10PI_TUPLE_LEN;

		if (escaped(e->type, t))
			continue;
		*bad = i;
		if (c->guard && get_be16(t) != t10pi_crc(data + i * bs, bs))
			return SENSE_PI_GUARD_CHECK_FAILED;
		if (app && ((get_be16(t + 2) ^ e->app) & e->app_mask))
			return SENSE_PI_APP_TAG_CHECK_FAILED;
		if (c->ref && get_be32(t + 4) != (uint32_t)(e->ref + i))
			return SENSE_PI_REF_TAG_CHECK_FAILED;
	}
	return SENSE_OK;
}
