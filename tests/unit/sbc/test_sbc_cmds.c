/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sbc_cmds.c: consistency of the block command table (sbc_cmds.c):
 * every entry is complete, usage masks are well formed, protection fields
 * are refused, DPO/FUA are offered where libiscsi's DpoFua tests look for
 * them, flags match what each command does, and no opcode is in both the
 * SBC and the SPC table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scsi/cdb.h"
#include "scsi/sense.h"

static void check_desc(const struct cdb_desc *d, unsigned op, int sa)
{
	static const uint8_t lens[] = {6, 10, 12, 16, 32};
	bool len_ok = false;

	assert_non_null(d->name);
	assert_non_null(d->parse);
	assert_non_null(d->exec);
	assert_null(d->sa);
	for (unsigned i = 0; i < sizeof(lens); i++)
		len_ok |= d->len == lens[i];
	if (!len_ok)
		fail_msg("%02xh/%d %s: length %u", op, sa, d->name, d->len);
	assert_int_equal(d->usage[0], 0xff);
	if (d->len == 32) {
		/* SPC-4 4.2.3: the CONTROL byte of a variable length CDB is
		 * byte 1; bytes 16-31 are fields in full (cdb_usage_byte()) */
		assert_int_equal(op, 0x7f);
		assert_int_equal(d->usage[1], 0x00);
		assert_int_equal(cdb_usage_byte(d, 16), 0xff);
		assert_int_equal(cdb_usage_byte(d, 31), 0xff);
	} else {
		/* nothing allowed past the CDB; the CONTROL byte refuses
		 * NACA/LINK */
		for (unsigned i = d->len; i < sizeof(d->usage); i++)
			assert_int_equal(d->usage[i], 0);
		assert_int_equal(d->usage[d->len - 1], 0x00);
	}
	if (d->flags & CDB_F_WRITES)
		assert_true(d->order_class == ORDER_WRITE);
}

static void test_entries_complete(void **state)
{
	unsigned n = 0;

	(void)state;
	for (unsigned op = 0; op < 256; op++) {
		const struct cdb_desc *d = &sbc_cdb_table[op];

		if (!d->name)
			continue;
		n++;
		if (!d->sa) {
			check_desc(d, op, -1);
			continue;
		}
		assert_null(d->parse);
		assert_true(d->sa->count > 0);
		for (unsigned sa = 0; sa < d->sa->count; sa++) {
			const struct cdb_desc *s = &d->sa->v[sa];

			if (!s->name)
				continue;
			check_desc(s, op, (int)sa);
			/* the service action bits are part of the usage */
			assert_int_equal(s->usage[d->sa->byte] & d->sa->mask, d->sa->mask);
			assert_int_equal(s->len, d->len);
		}
	}
	assert_true(n >= 30);
}

static void test_no_overlap_with_spc(void **state)
{
	(void)state;
	for (unsigned op = 0; op < 256; op++)
		assert_false(sbc_cdb_table[op].name && spc_cdb_table[op].name);
}

/* RDPROTECT/WRPROTECT/VRPROTECT (byte 1 bits 7-5) pass the usage mask of
 * READ, WRITE and VERIFY (10/12/16) and COMPARE AND WRITE only, which check
 * them against the LU's protection information (sbc_pi_protect());
 * ORPROTECT and the WRPROTECT of the other commands are never accepted;
 * DPO and FUA where SBC-4 has them. */
static void test_protect_and_dpofua(void **state)
{
	static const uint8_t rw[] = {0x28, 0x2a, 0xa8, 0xaa, 0x88, 0x8a, 0x89};
	static const uint8_t prot[] = {0x2e, 0xae, 0x8e, 0x8b, 0x9c, 0x41, 0x93};
	static const uint8_t vrprotect[] = {0x2f, 0xaf, 0x8f};
	static const uint8_t dpofua[] = {0x28, 0x2a, 0xa8, 0xaa, 0x88, 0x8a, 0x89, 0x8b, 0x9c};
	static const uint8_t dpo[] = {0x2e, 0x2f, 0xae, 0xaf, 0x8e, 0x8f};

	(void)state;
	for (unsigned i = 0; i < sizeof(rw); i++)
		assert_int_equal(sbc_cdb_table[rw[i]].usage[1] & 0xe0, 0xe0);
	for (unsigned i = 0; i < sizeof(prot); i++)
		assert_int_equal(sbc_cdb_table[prot[i]].usage[1] & 0xe0, 0);
	/* VERIFY: VRPROTECT, checked by sbc_verify_setup() */
	for (unsigned i = 0; i < sizeof(vrprotect); i++)
		assert_int_equal(sbc_cdb_table[vrprotect[i]].usage[1] & 0xe0, 0xe0);
	for (unsigned i = 0; i < sizeof(dpofua); i++)
		assert_int_equal(sbc_cdb_table[dpofua[i]].usage[1] & 0x18, 0x18);
	for (unsigned i = 0; i < sizeof(dpo); i++)
		assert_int_equal(sbc_cdb_table[dpo[i]].usage[1] & 0x10, 0x10);
}

static void test_lookup(void **state)
{
	uint8_t rc16[16] = {0x9e, 0x10}, gls[16] = {0x9e, 0x12}, bad[16] = {0x9e, 0x13};
	uint8_t crypto[10] = {0x48, 0x03}, ow[10] = {0x48, 0x01}, rcr[16] = {0x84, 0x02};
	const struct cdb_desc *d;
	struct sense_extra sx;
	enum sense_reason r;

	(void)state;
	d = cdb_lookup(rc16, 16, &r, &sx);
	assert_non_null(d);
	assert_string_equal(d->name, "READ CAPACITY(16)");
	d = cdb_lookup(gls, 16, &r, &sx);
	assert_non_null(d);
	assert_string_equal(d->name, "GET LBA STATUS");
	assert_null(cdb_lookup(bad, 16, &r, &sx));
	assert_int_equal(r, SENSE_INVALID_FIELD_IN_CDB);
	/* CRYPTOGRAPHIC ERASE is not offered */
	assert_null(cdb_lookup(crypto, 10, &r, &sx));
	assert_int_equal(r, SENSE_INVALID_FIELD_IN_CDB);
	assert_true(sx.fp_valid && sx.fp_byte == 1 && sx.fp_bit == 4);
	assert_non_null(cdb_lookup(ow, 10, &r, &sx));
	assert_null(cdb_lookup(rcr, 16, &r, &sx));
}

/* SPC-4 4.2.3, SBC-4 5.16/5.42: opcode 7Fh, SERVICE ACTION in bytes 8-9.
 * READ(32) 0009h and WRITE(32) 000Bh are found; byte 8 is reserved (the
 * usage mask refuses it, pointing at byte 8); a service action without a
 * command (ORWRITE(32) 000Eh, WRITE SAME(32) 000Dh) is INVALID FIELD IN
 * CDB pointing at byte 9; a 16-byte CDB of 7Fh is too short. Golden usage
 * of READ(32): byte 1 CONTROL 04h (NACA), 6 GROUP NUMBER 3Fh, 7 ADDITIONAL CDB
 * LENGTH FFh, 8 00h, 9 FFh, 10 RDPROTECT/DPO/FUA/FUA_NV FAh, 11 00h,
 * 12-31 FFh. */
static void test_cdb32_lookup(void **state)
{
	static const uint8_t usage[32] = {
	    0xff, 0x04, 0x00, 0x00, 0x00, 0x00, 0x3f, 0xff, 0x00, 0xff, 0xfa,
	    0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	uint8_t c[32] = {0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09};
	const struct cdb_desc *d;
	struct sense_extra sx;
	enum sense_reason r;

	(void)state;
	d = cdb_lookup(c, 32, &r, &sx);
	assert_non_null(d);
	assert_string_equal(d->name, "READ(32)");
	assert_int_equal(d->len, 32);
	for (unsigned i = 0; i < 32; i++)
		if (cdb_usage_byte(d, i) != usage[i])
			fail_msg("READ(32) usage byte %u: %02xh, want %02xh", i,
				 cdb_usage_byte(d, i), usage[i]);
	assert_int_equal(cdb_check_usage(d, c, &sx), SENSE_OK);
	/* byte 8, the SERVICE ACTION's high byte, reserved */
	c[8] = 0x01;
	assert_int_equal(cdb_check_usage(d, c, &sx), SENSE_INVALID_FIELD_IN_CDB);
	assert_true(sx.fp_valid && sx.fp_byte == 8 && sx.fp_bit == 0);
	/* the CONTROL byte is byte 1: NACA accepted there, LINK not */
	c[8] = 0x00;
	c[1] = 0x04;
	assert_int_equal(cdb_check_usage(d, c, &sx), SENSE_OK);
	c[1] = 0x01;
	assert_int_equal(cdb_check_usage(d, c, &sx), SENSE_INVALID_FIELD_IN_CDB);
	assert_true(sx.fp_valid && sx.fp_byte == 1 && sx.fp_bit == 0);
	c[1] = 0x00;
	c[9] = 0x0b;
	d = cdb_lookup(c, 32, &r, &sx);
	assert_non_null(d);
	assert_string_equal(d->name, "WRITE(32)");
	assert_true(d->flags & CDB_F_WRITES);
	for (uint8_t sa = 0x0d; sa <= 0x0e; sa++) {
		c[9] = sa;
		assert_null(cdb_lookup(c, 32, &r, &sx));
		assert_int_equal(r, SENSE_INVALID_FIELD_IN_CDB);
		assert_true(sx.fp_valid && sx.fp_byte == 9 && sx.fp_bit == 7);
	}
	c[9] = 0x09;
	assert_non_null(cdb_lookup(c, 16, &r, &sx)); /* the core checks desc->len */
	assert_null(cdb_lookup(c, 9, &r, &sx));
	assert_int_equal(r, SENSE_INVALID_OPCODE);
}

/* Flags: write protection applies to the commands that modify the medium
 * (EXTENDED COPY checks its destinations itself; SANITIZE EXIT FAILURE MODE
 * writes nothing); READ CAPACITY neither accesses the medium nor conflicts. */
static void test_flags(void **state)
{
	static const uint8_t writes[] = {0x0a, 0x2a, 0xaa, 0x8a, 0x2e, 0xae, 0x8e,
					 0x89, 0x8b, 0x9c, 0x41, 0x93, 0x42};
	static const uint8_t reads[] = {0x08, 0x28, 0xa8, 0x88, 0x2f, 0xaf, 0x8f, 0x34, 0x90};

	(void)state;
	for (unsigned i = 0; i < sizeof(writes); i++) {
		assert_true(sbc_cdb_table[writes[i]].flags & CDB_F_WRITES);
		assert_int_equal(sbc_cdb_table[writes[i]].pr_class, PR_CLASS_WRITE);
	}
	for (unsigned i = 0; i < sizeof(reads); i++) {
		assert_false(sbc_cdb_table[reads[i]].flags & CDB_F_WRITES);
		assert_int_equal(sbc_cdb_table[reads[i]].pr_class, PR_CLASS_READ);
		assert_int_equal(sbc_cdb_table[reads[i]].order_class, ORDER_READ);
	}
	assert_true(sbc_cdb_table[0x48].sa->v[0x01].flags & CDB_F_WRITES);
	assert_true(sbc_cdb_table[0x48].sa->v[0x02].flags & CDB_F_WRITES);
	assert_false(sbc_cdb_table[0x48].sa->v[0x1f].flags & CDB_F_WRITES);
	assert_false(sbc_cdb_table[0x83].sa->v[0x00].flags & CDB_F_WRITES);
	assert_int_equal(sbc_cdb_table[0x25].order_class, ORDER_NONE);
	assert_int_equal(sbc_cdb_table[0x25].pr_class, PR_CLASS_ALLOWED);
	assert_true(sbc_cdb_table[0x25].flags & CDB_F_SPC2_RESV_OK);
	assert_int_equal(sbc_cdb_table[0x9e].sa->v[0x10].order_class, ORDER_NONE);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_complete),
		cmocka_unit_test(test_no_overlap_with_spc),
		cmocka_unit_test(test_protect_and_dpofua),
		cmocka_unit_test(test_lookup), cmocka_unit_test(test_cdb32_lookup),
		cmocka_unit_test(test_flags),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
