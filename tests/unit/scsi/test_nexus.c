/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_nexus.c: I_T nexuses (nexus.c): LUN lookups through the nexus' map
 * (never around it), lookups by designator, TransportID, cache refresh on
 * map changes.
 *
 *   p1 "iqn.test:a" --\                     LUN 0: lu
 *                      target (demo map) ---
 *   p2 "iqn.test:b" --/                     (lu_other: in no map)     */
#include "common_setup.h"

#include "scsi/cmd.h"
#include "scsi/core.h"

static void test_lookup_through_map(void **state)
{
	struct harness *h = *state;
	struct scsi_nexus *n = loop_nexus(h->p1);
	bool ro = true;
	struct scsi_lu *lu = scsi_nexus_lu(n, 0, &ro);

	assert_ptr_equal(lu, h->lu);
	assert_false(ro);
	scsi_lu_put(lu);
	assert_null(scsi_nexus_lu(n, lun_encode(1), &ro));
	assert_null(scsi_nexus_lu(n, LUN_WLUN_REPORT_LUNS, &ro));
	assert_ptr_equal(scsi_nexus_fabric_priv(n), h->p1);
	assert_non_null(scsi_nexus_tport(n));
	/* SPC-4 7.6.4.6 iSCSI TransportID with the initiator port name */
	assert_int_equal(n->transport_id[0], 0x45);
	assert_string_equal((const char *)n->transport_id + 4, "iqn.test:a,i,0x000000000001");
}

static void test_lookup_by_designator(void **state)
{
	struct harness *h = *state;
	struct scsi_nexus *n = loop_nexus(h->p1);
	struct scsi_lu_attrs a = h_attrs();
	struct scsi_lu *other, *lu;
	uint8_t desig[20] = {0x01, 0x03, 0x00, 0x10};
	bool ro;

	memcpy(desig + 4, a.naa, 16);
	lu = scsi_nexus_lu_by_designator(n, desig, sizeof(desig), &ro);
	assert_ptr_equal(lu, h->lu);
	scsi_lu_put(lu);
	/* an LU with another NAA, outside the map, is not found */
	a.naa[15] ^= 0xff;
	assert_int_equal(scsi_lu_create("other", fake_bs_create(1 << 20, 0), &a, &other), 0);
	memcpy(desig + 4, a.naa, 16);
	assert_null(scsi_nexus_lu_by_designator(n, desig, sizeof(desig), &ro));
	/* truncated descriptor */
	assert_null(scsi_nexus_lu_by_designator(n, desig, 10, &ro));
	scsi_lu_put(other);
}

static void test_cache_follows_map(void **state)
{
	struct harness *h = *state;
	struct scsi_nexus *n = loop_nexus(h->p1);
	struct scsi_lu_attrs a = h_attrs();
	struct scsi_lu *lu2, *got;
	bool ro;

	assert_int_equal(scsi_lu_create("lu2", fake_bs_create(1 << 20, 0), &a, &lu2), 0);
	got = scsi_nexus_lu(n, 0, &ro);
	assert_ptr_equal(got, h->lu);
	scsi_lu_put(got);
	assert_int_equal(scsi_lun_map_del(h->map, 0), 0);
	assert_null(scsi_nexus_lu(n, 0, &ro));
	assert_int_equal(scsi_lun_map_add(h->map, 0, lu2, true), 0);
	got = scsi_nexus_lu(n, 0, &ro);
	assert_ptr_equal(got, lu2);
	assert_true(ro);
	scsi_lu_put(got);
	scsi_lu_put(lu2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lookup_through_map, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lookup_by_designator, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cache_follows_map, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
