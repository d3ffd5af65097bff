/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_spc_cmds.c: the CDB tables (spc_cmds.c, and its relation to
 * sbc_cmds.c): every opcode lives in at most one table, every entry is
 * complete, usage masks are consistent with CDB lengths and service action
 * fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scsi/cdb.h"

static void check_desc(const struct cdb_desc *d, const struct cdb_sa_table *sat)
{
	assert_non_null(d->name);
	assert_non_null(d->parse);
	assert_non_null(d->exec);
	assert_true(d->len == 6 || d->len == 10 || d->len == 12 || d->len == 16 || d->len == 32);
	assert_int_equal(d->usage[0], 0xff);
	/* no usage bits beyond the CDB length */
	for (unsigned i = d->len; i < sizeof(d->usage); i++)
		assert_int_equal(d->usage[i], 0);
	/* the service action bits are "used" */
	if (sat)
		assert_int_equal(d->usage[sat->byte] & sat->mask, sat->mask);
	assert_true(d->pr_class < PR_CLASS_COUNT);
	/* the PR conflict exception names a CDB byte */
	if (d->pr_ok_mask)
		assert_true(d->pr_ok_byte > 0 && d->pr_ok_byte < d->len);
	assert_true(d->order_class <= ORDER_BARRIER);
}

static void check_table(const struct cdb_desc *t)
{
	for (unsigned op = 0; op < 256; op++) {
		const struct cdb_desc *d = &t[op];

		if (!d->name)
			continue;
		if (d->sa) {
			unsigned n = 0;

			assert_null(d->parse);
			assert_true(d->sa->byte > 0 && d->sa->byte < 16);
			for (unsigned sa = 0; sa < d->sa->count; sa++) {
				if (!d->sa->v[sa].name)
					continue;
				check_desc(&d->sa->v[sa], d->sa);
				n++;
			}
			assert_true(n > 0);
		} else {
			check_desc(d, NULL);
		}
	}
}

static void test_opcode_in_one_table(void **state)
{
	(void)state;
	for (unsigned op = 0; op < 256; op++)
		assert_false(spc_cdb_table[op].name && sbc_cdb_table[op].name);
}

static void test_tables_complete(void **state)
{
	(void)state;
	check_table(spc_cdb_table);
	check_table(sbc_cdb_table);
}

static void test_primary_commands_present(void **state)
{
	(void)state;
	static const uint8_t ops[] = {0x00, 0x03, 0x12, 0x15, 0x16, 0x17, 0x1a, 0x1b, 0x1e,
				      0x55, 0x56, 0x57, 0x5a, 0x5e, 0x5f, 0xa0, 0xa3};

	for (size_t i = 0; i < sizeof(ops); i++)
		assert_non_null(cdb_opcode(ops[i]));
	/* PERSISTENT RESERVE IN: four service actions, OUT: eight */
	assert_int_equal(cdb_opcode(0x5e)->sa->count, 4);
	assert_int_equal(cdb_opcode(0x5f)->sa->count, 8);
}

static void test_lookup(void **state)
{
	(void)state;
	enum sense_reason r = SENSE_OK;
	struct sense_extra sx = {0};
	uint8_t rsoc[12] = {0xa3, 0x0c}, bad_sa[12] = {0xa3, 0x1f};

	assert_non_null(cdb_lookup(rsoc, 12, &r, &sx));
	assert_null(cdb_lookup(bad_sa, 12, &r, &sx));
	assert_int_equal(r, SENSE_INVALID_FIELD_IN_CDB);
	assert_int_equal(sx.fp_byte, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_opcode_in_one_table),
	    cmocka_unit_test(test_tables_complete),
	    cmocka_unit_test(test_primary_commands_present),
	    cmocka_unit_test(test_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
