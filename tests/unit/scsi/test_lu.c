/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lu.c: logical units (lu.c): creation checks, references, resize,
 * I_T nexus records and the write protection sources.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu
 *   p2 "iqn.test:b" --/                                               */
#include "common_setup.h"

#include <errno.h>

#include "scsi/core.h"
#include "scsi/lu.h"

static void test_create_checks(void **state)
{
	(void)state;
	struct scsi_lu_attrs a = h_attrs();
	struct bs_dev *bs = fake_bs_create(1 << 20, 0);
	struct scsi_lu *lu = NULL;
	unsigned n0 = scsi_lu_count();

	a.block_size = 520;
	assert_int_equal(scsi_lu_create("x", bs, &a, &lu), -EINVAL);
	a.block_size = 4096;
	assert_int_equal(scsi_lu_create("x", bs, &a, &lu), 0);
	assert_int_equal(lu_nblocks(lu), 256);
	assert_int_equal(lu->block_shift, 12);
	assert_string_equal(scsi_lu_name(lu), "x");
	assert_int_equal(scsi_lu_count(), n0 + 1);
	scsi_lu_get(lu);
	scsi_lu_put(lu);
	assert_int_equal(scsi_lu_count(), n0 + 1);
	scsi_lu_put(lu);
	assert_int_equal(scsi_lu_count(), n0);
}

static void test_resize(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	assert_int_equal(scsi_lu_resize(h->lu, 1000), -EINVAL);
	assert_int_equal(scsi_lu_resize(h->lu, 4096 * 1024), 0);
	assert_int_equal(lu_nblocks(h->lu), 8192);
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x09);
	h_tur(h->p2, &r);
	h_expect_sense(&r, 0x6, 0x2a, 0x09);
}

static void test_write_protect_sources(void **state)
{
	struct harness *h = *state;
	struct scsi_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_false(lu_write_protected(h->lu, &cmd));
	cmd.priv.map_read_only = true;
	assert_true(lu_write_protected(h->lu, &cmd));
	cmd.priv.map_read_only = false;
	atomic_store(&lu_core(h->lu)->mode.swp, true);
	assert_true(lu_write_protected(h->lu, &cmd));
	assert_true(lu_swp(h->lu));
	atomic_store(&lu_core(h->lu)->mode.swp, false);
	assert_true(lu_wce(h->lu));
	assert_false(lu_d_sense(h->lu));
	assert_false(lu_tas(h->lu));
}

static void test_read_only_lu(void **state)
{
	(void)state;
	struct harness h;
	struct scsi_lu_attrs a = h_attrs();
	uint8_t cdb[10], buf[H_BS] = {0};
	struct loop_result r;

	a.read_only = true;
	h_setup_attrs(&h, &a);
	h_clear_ua(h.p1, 0);
	h_cdb_rw10(cdb, 0x2a, 0, 1);
	h_cmd(h.p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	h_expect_sense(&r, 0x7, 0x27, 0x00);
	h_cdb_rw10(cdb, 0x28, 0, 1);
	assert_int_equal(h_cmd(h.p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r), SAM_STAT_GOOD);
	h_teardown(&h);
}

static void test_itn_records(void **state)
{
	struct harness *h = *state;
	struct lu_itn *a, *b;

	pthread_mutex_lock(&h->lu->lock);
	a = lu_itn_get_locked(h->lu, "iqn.x,i,0x1", 1);
	b = lu_itn_get_locked(h->lu, "iqn.x,i,0x1", 2);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(lu_itn_get_locked(h->lu, "iqn.x,i,0x1", 1), a);
	/* a new record starts with POWER ON */
	assert_int_equal(atomic_load(&a->ua), 1u << UA_POWER_ON);
	pthread_mutex_unlock(&h->lu->lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_checks),
	    cmocka_unit_test_setup_teardown(test_resize, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_protect_sources, setup, teardown),
	    cmocka_unit_test(test_read_only_lu),
	    cmocka_unit_test_setup_teardown(test_itn_records, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
