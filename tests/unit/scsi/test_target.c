/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_target.c: targets, ports, LUN maps and access control (target.c).
 *
 *   "iqn.test:a" (ACL: map_a with LUN 7 read-only) --\
 *   "iqn.test:z" (no ACL)                           --- target "iqn.test:t"
 *                                                         default map (demo on/off) */
#include "harness.h"

#include <errno.h>

#include "scsi/core.h"

static void test_lun_encoding(void **state)
{
	(void)state;
	assert_int_equal(lun_encode(0), 0);
	assert_int_equal(lun_encode(255), 0x00ff000000000000ull);
	assert_int_equal(lun_encode(256), 0x4100000000000000ull);
	assert_int_equal(lun_encode(16383), 0x7fff000000000000ull);
	for (uint32_t l = 0; l < 16384; l += 97)
		assert_int_equal(lun_decode(lun_encode(l)), l);
	/* peripheral addressing with a bus number, multi-level, well known */
	assert_int_equal(lun_decode(0x0101000000000000ull), -1);
	assert_int_equal(lun_decode(0x0001000100000000ull), -1);
	assert_int_equal(lun_decode(LUN_WLUN_REPORT_LUNS), -1);
	/* flat space LUN below 256 decodes too */
	assert_int_equal(lun_decode(0x4005000000000000ull), 5);
}

static void test_maps_and_access(void **state)
{
	(void)state;
	struct scsi_target *t = scsi_target_create("iqn.test:t");
	struct scsi_lun_map *def = scsi_lun_map_create(), *ma = scsi_lun_map_create(), *got;
	struct scsi_lu_attrs a = h_attrs();
	struct scsi_lu *lu;
	bool ro = false;

	assert_int_equal(scsi_lu_create("lu", fake_bs_create(1 << 20, 0), &a, &lu), 0);
	assert_int_equal(scsi_lun_map_add(ma, 7, lu, true), 0);
	assert_int_equal(scsi_lun_map_add(ma, 7, lu, false), -EEXIST);
	assert_int_equal(scsi_lun_map_add(ma, 16384, lu, false), -EINVAL);
	assert_int_equal(scsi_lun_map_add(ma, 3, lu, false), 0);
	assert_int_equal(scsi_lun_map_del(ma, 3), 0);
	assert_int_equal(scsi_lun_map_del(ma, 3), -ENOENT);
	pthread_mutex_lock(&ma->lock);
	assert_ptr_equal(lun_map_lookup_locked(ma, 7, &ro), lu);
	assert_true(ro);
	assert_null(lun_map_lookup_locked(ma, 8, &ro));
	pthread_mutex_unlock(&ma->lock);
	scsi_lu_put(lu); /* the lookup's reference */

	/* deny by default */
	assert_int_equal(scsi_target_access(t, "iqn.test:z", &got), -EACCES);
	scsi_target_set_default_map(t, def, false);
	assert_int_equal(scsi_target_access(t, "iqn.test:z", &got), -EACCES);
	scsi_target_set_default_map(t, def, true);
	assert_int_equal(scsi_target_access(t, "iqn.test:z", &got), 0);
	assert_ptr_equal(got, def);
	scsi_lun_map_put(got);
	assert_int_equal(scsi_target_acl_set(t, "iqn.test:a", ma), 0);
	assert_int_equal(scsi_target_access(t, "iqn.test:a", &got), 0);
	assert_ptr_equal(got, ma);
	scsi_lun_map_put(got);
	assert_int_equal(scsi_target_acl_del(t, "iqn.test:a"), 0);
	assert_int_equal(scsi_target_acl_del(t, "iqn.test:a"), -ENOENT);
	assert_int_equal(scsi_target_access(t, "iqn.test:a", &got), 0);
	assert_ptr_equal(got, def);
	scsi_lun_map_put(got);

	/* ports: same id and name is shared, another name conflicts */
	struct scsi_tport *tp = scsi_tport_create(t, "iqn.test:t,t,0x0001", 1, 1);
	assert_non_null(tp);
	assert_ptr_equal(scsi_tport_create(t, "iqn.test:t,t,0x0001", 1, 1), tp);
	assert_null(scsi_tport_create(t, "other", 1, 1));
	assert_null(scsi_tport_create(t, "zero", 0, 1));
	assert_ptr_equal(scsi_tport_target(tp), t);
	assert_string_equal(scsi_target_name(t), "iqn.test:t");

	scsi_lun_map_put(def);
	scsi_lun_map_put(ma);
	scsi_lu_put(lu);
	scsi_target_destroy(t);
}

/* A read-only mapping write-protects the LUN for that initiator only. */
static void test_read_only_mapping(void **state)
{
	(void)state;
	struct harness h;
	struct scsi_lun_map *ma = scsi_lun_map_create();
	uint8_t cdb[10], buf[H_BS] = {0};
	struct loop_result r;
	struct loop_port *pa;

	h_setup(&h);
	assert_int_equal(scsi_lun_map_add(ma, 0, h.lu, true), 0);
	assert_int_equal(scsi_target_acl_set(h.t, "iqn.test:ro", ma), 0);
	pa = loop_create(h.t, 1, "iqn.test:ro");
	assert_non_null(pa);
	h_clear_ua(pa, 0);
	h_clear_ua(h.p1, 0);
	h_cdb_rw10(cdb, 0x2a, 0, 1);
	h_cmd(pa, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	h_expect_sense(&r, 0x7, 0x27, 0x00);
	assert_int_equal(h_cmd(h.p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r), SAM_STAT_GOOD);
	/* map change: REPORTED LUNS DATA HAS CHANGED for the map's users only */
	assert_int_equal(scsi_lun_map_add(ma, 1, h.lu, false), 0);
	h_tur(pa, &r);
	h_expect_sense(&r, 0x6, 0x3f, 0x0e);
	assert_int_equal(h_tur(h.p1, &r), SAM_STAT_GOOD);
	/* LUN 1 of that map is now reachable */
	assert_int_equal(h_cmd(pa, lun_encode(1), cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(scsi_lun_map_del(ma, 1), 0);
	h_cmd(pa, lun_encode(1), cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	h_expect_sense(&r, 0x5, 0x25, 0x00);
	loop_destroy(pa);
	scsi_lun_map_put(ma);
	h_teardown(&h);
}

/* Without access the loop port is refused. */
static void test_no_access(void **state)
{
	(void)state;
	struct scsi_target *t = scsi_target_create("iqn.test:t");

	assert_null(loop_create(t, 1, "iqn.test:nobody"));
	scsi_target_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lun_encoding),
	    cmocka_unit_test(test_maps_and_access),
	    cmocka_unit_test(test_read_only_mapping),
	    cmocka_unit_test(test_no_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
