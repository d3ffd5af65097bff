/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cdb_table.c: lookup and usage-mask validation over the SPC and SBC tables
 * (the tables themselves live in spc_cmds.c and sbc_cmds.c). */
#include "scsi/cdb.h"

#include <string.h>

const struct cdb_desc *cdb_opcode(uint8_t opcode)
{
	const struct cdb_desc *d = &sbc_cdb_table[opcode];

	if (d->name)
		return d;
	d = &spc_cdb_table[opcode];
	return d->name ? d : NULL;
}

const struct cdb_desc *cdb_lookup(const uint8_t *cdb, size_t cdb_len, enum sense_reason *reason,
				  struct sense_extra *sx)
{
	const struct cdb_desc *d;
	const struct cdb_sa_table *t;
	unsigned sa;

	if (cdb_len == 0 || !(d = cdb_opcode(cdb[0]))) {
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

enum sense_reason cdb_check_usage(const struct cdb_desc *d, const uint8_t *cdb,
				  struct sense_extra *sx)
{
	for (unsigned i = 1; i < d->len && i < sizeof(d->usage); i++) {
		uint8_t bad = cdb[i] & (uint8_t)~d->usage[i];
		if (bad) {
			memset(sx, 0, sizeof(*sx));
			sx->fp_valid = true;
			sx->fp_cdb = true;
			sx->fp_byte = (uint16_t)i;
			sx->fp_bit_valid = true;
			sx->fp_bit = (uint8_t)(31 - __builtin_clz(bad));
			return SENSE_INVALID_FIELD_IN_CDB;
		}
	}
	return SENSE_OK;
}
