/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for scsi/cdb_table.c: the usage-mask check (two-word fast path,
 * byte loop for the field pointer) against a plain byte-by-byte reference,
 * over every descriptor of both CDB tables and their service-action
 * sub-tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "scsi/cdb.h"
#include "scsi/scsi.h"

/* The reference: the first byte in 1..len-1 (at most 15) with a bit outside
 * the usage mask, and its highest such bit; -1 when none. */
static int ref_bad_byte(const struct cdb_desc *d, const uint8_t *cdb, int *bit)
{
	for (unsigned i = 1; i < d->len && i < sizeof(d->usage); i++) {
		/* NACA (SAM-5 5.2) in the CONTROL byte, the last or (32-byte
		 * CDBs) byte 1, is allowed to every command */
		unsigned ctl = d->len == 32 ? 1u : d->len - 1u;
		uint8_t u = (uint8_t)(d->usage[i] | (i == ctl ? 0x04 : 0));
		uint8_t b = cdb[i] & (uint8_t)~u;

		if (b) {
			*bit = 31 - __builtin_clz(b);
			return (int)i;
		}
	}
	return -1;
}

static void check(const struct cdb_desc *d, const uint8_t *cdb)
{
	struct sense_extra sx;
	int bit = -1, byte = ref_bad_byte(d, cdb, &bit);
	enum sense_reason r;

	memset(&sx, 0xaa, sizeof(sx));
	r = cdb_check_usage(d, cdb, &sx);
	if (byte < 0) {
		assert_int_equal(r, SENSE_OK);
		return;
	}
	assert_int_equal(r, SENSE_INVALID_FIELD_IN_CDB);
	assert_true(sx.fp_valid && sx.fp_cdb && sx.fp_bit_valid);
	assert_int_equal(sx.fp_byte, byte);
	assert_int_equal(sx.fp_bit, bit);
}

/* For one descriptor: the allowed bits only (OK), every single bit of every
 * byte added to them, and bytes beyond the CDB length all ones (ignored). */
static void check_desc(const struct cdb_desc *d, uint8_t opcode)
{
	uint8_t cdb[SCSI_MAX_CDB];

	memset(cdb, 0, sizeof(cdb));
	memcpy(cdb, d->usage, sizeof(d->usage));
	cdb[0] = opcode;
	for (unsigned i = d->len; i < sizeof(cdb); i++)
		cdb[i] = 0xff;
	check(d, cdb);
	for (unsigned i = 0; i < sizeof(d->usage); i++)
		for (unsigned b = 0; b < 8; b++) {
			uint8_t save = cdb[i];

			cdb[i] |= (uint8_t)(1u << b);
			check(d, cdb);
			cdb[i] = save;
		}
	/* two bad bytes: the first one is reported */
	if (d->len >= 12 && d->usage[3] != 0xff && d->usage[11] != 0xff) {
		cdb[11] = 0xff;
		cdb[3] = 0xff;
		check(d, cdb);
	}
}

static void test_usage_matches_reference(void **state)
{
	const struct cdb_desc *tables[] = {spc_cdb_table, sbc_cdb_table};
	unsigned n = 0;

	(void)state;
	for (size_t t = 0; t < 2; t++)
		for (unsigned op = 0; op < 256; op++) {
			const struct cdb_desc *d = &tables[t][op];

			if (!d->name)
				continue;
			if (!d->sa) {
				check_desc(d, (uint8_t)op);
				n++;
				continue;
			}
			for (unsigned sa = 0; sa < d->sa->count; sa++)
				if (d->sa->v[sa].name) {
					check_desc(&d->sa->v[sa], (uint8_t)op);
					n++;
				}
		}
	assert_true(n > 40); /* READ/WRITE, INQUIRY, ... were all seen */
}

/* READ(10): LBA and TRANSFER LENGTH take any value; byte 6 bits 7-5 and the
 * CONTROL byte's reserved bits do not. */
static void test_read10_fields(void **state)
{
	const struct cdb_desc *d = cdb_opcode(0x28);
	uint8_t cdb[SCSI_MAX_CDB] = {0x28, 0, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0};
	struct sense_extra sx;

	(void)state;
	assert_non_null(d);
	assert_int_equal(cdb_check_usage(d, cdb, &sx), SENSE_OK);
	cdb[6] = 0x80;
	assert_int_equal(cdb_check_usage(d, cdb, &sx), SENSE_INVALID_FIELD_IN_CDB);
	assert_int_equal(sx.fp_byte, 6);
	assert_int_equal(sx.fp_bit, 7);
	cdb[6] = 0;
	cdb[12] = 0xff; /* beyond a 10-byte CDB */
	assert_int_equal(cdb_check_usage(d, cdb, &sx), SENSE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_usage_matches_reference),
	    cmocka_unit_test(test_read10_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
