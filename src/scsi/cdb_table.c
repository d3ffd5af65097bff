/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cdb_table.c: lookup and usage-mask validation over the SPC and SBC tables
 * (the tables themselves live in spc_cmds.c and sbc_cmds.c). */
#include "scsi/cdb.h"

#include <assert.h>
#include <string.h>

#include "lib/compiler.h"
#include "scsi/core.h"

const struct cdb_desc *cdb_opcode(uint8_t opcode)
{
	const struct cdb_desc *d = &sbc_cdb_table[opcode];

	if (d->name)
		return d;
	d = &spc_cdb_table[opcode];
	return d->name ? d : NULL;
}

bool cdb_desc_on_lu(const struct cdb_desc *d, const struct scsi_lu *lu)
{
	if (!(d->flags & CDB_F_PI_TYPE2))
		return true;
	return lu && lu_pi_type(lu) == T10PI_TYPE2;
}

const struct cdb_desc *cdb_lookup(const uint8_t *cdb, size_t cdb_len, enum sense_reason *reason,
				  struct sense_extra *sx)
{
	const struct cdb_desc *d;
	const struct cdb_sa_table *t;
	unsigned sa;

	if (cdb_len == 0 || !(d = cdb_opcode(cdb_op(cdb)))) {
		*reason = SENSE_INVALID_OPCODE;
		return NULL;
	}
	if (!d->sa)
		return d;
	t = d->sa;
	if (cdb_len <= t->byte) {
		*reason = SENSE_INVALID_OPCODE;
		return NULL;
	}
	sa = cdb[t->byte] & t->mask;
	if (sa >= t->count || !t->v[sa].name) {
		/* SPC-4 4.2.5.1: unsupported service action -> INVALID FIELD IN CDB */
		memset(sx, 0, sizeof(*sx));
		sx->fp_valid = true;
		sx->fp_cdb = true;
		sx->fp_byte = t->byte;
		sx->fp_bit_valid = true;
		sx->fp_bit = (uint8_t)(31 - __builtin_clz(t->mask));
		*reason = SENSE_INVALID_FIELD_IN_CDB;
		return NULL;
	}
	return &t->v[sa];
}

/* Mask of the first n bytes (n <= 8) of a word loaded with memcpy. */
static inline uint64_t word_bytes(unsigned n)
{
	if (n >= 8)
		return ~0ull;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (1ull << (8 * n)) - 1;
#else
	return n ? ~0ull << (8 * (8 - n)) : 0;
#endif
}

enum sense_reason cdb_check_usage(const struct cdb_desc *d, const uint8_t *cdb,
				  struct sense_extra *sx)
{
	unsigned len = d->len < sizeof(d->usage) ? d->len : (unsigned)sizeof(d->usage);
	uint64_t w[2], u[2], bad;

	/* The common case, no reserved bit set, word by word: bytes 1 to len
	 * (the opcode is not checked; the caller's buffer holds at least
	 * sizeof(d->usage) bytes). */
	static_assert(sizeof(d->usage) == sizeof(w), "usage mask is two words");
	memcpy(w, cdb, sizeof(w));
	memcpy(u, d->usage, sizeof(u));
	/* NACA is every command's (cdb_usage_byte()) */
	if (cdb_control_byte(d) < sizeof(d->usage))
		((uint8_t *)u)[cdb_control_byte(d)] |= CDB_CONTROL_NACA;
	bad = (w[0] & ~u[0] & word_bytes(len) & ~word_bytes(1)) |
	      (w[1] & ~u[1] & word_bytes(len > 8 ? len - 8 : 0));
	if (likely(!bad))
		return SENSE_OK;
	for (unsigned i = 1; i < d->len && i < sizeof(d->usage); i++) {
		uint8_t b = cdb[i] & (uint8_t)~cdb_usage_byte(d, i);

		if (b) {
			memset(sx, 0, sizeof(*sx));
			sx->fp_valid = true;
			sx->fp_cdb = true;
			sx->fp_byte = (uint16_t)i;
			sx->fp_bit_valid = true;
			sx->fp_bit = (uint8_t)(31 - __builtin_clz(b));
			return SENSE_INVALID_FIELD_IN_CDB;
		}
	}
	return SENSE_OK;
}
