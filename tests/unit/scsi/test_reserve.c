/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_reserve.c: SPC-2 RESERVE/RELEASE (reserve.c), libiscsi Reserve6*
 * semantics.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu
 *   p2 "iqn.test:b" --/                                               */
#include "common_setup.h"

#include "scsi/cmd.h"
#include "scsi/core.h"

static uint8_t op6(struct loop_port *p, uint8_t op, struct loop_result *r)
{
	uint8_t cdb[6] = {op};

	return h_cmd(p, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, r);
}

static uint8_t op10(struct loop_port *p, uint8_t op, struct loop_result *r)
{
	uint8_t cdb[10] = {op};

	return h_cmd(p, 0, cdb, 10, SCSI_DIR_NONE, NULL, 0, r);
}

static void test_two_initiators(void **state)
{
	struct harness *h = *state;
	uint8_t ms[6] = {0x1a, 0, 0x3f, 0, 255, 0}, inq[6] = {0x12, 0, 0, 0, 36, 0}, buf[255];
	struct loop_result r;

	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_GOOD);
	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_GOOD); /* again: fine */
	assert_int_equal(op6(h->p2, 0x16, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(r.sense_len, 0);
	/* RELEASE by a non-holder: GOOD without effect */
	assert_int_equal(op6(h->p2, 0x17, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p1, 0, ms, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(h->p2, 0, ms, 6, SCSI_DIR_READ, buf, 255, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	/* INQUIRY is allowed */
	assert_int_equal(h_cmd(h->p2, 0, inq, 6, SCSI_DIR_READ, buf, 36, &r), SAM_STAT_GOOD);
	assert_int_equal(op6(h->p1, 0x17, &r), SAM_STAT_GOOD);
	assert_int_equal(op10(h->p2, 0x56, &r), SAM_STAT_GOOD);
	assert_int_equal(op10(h->p1, 0x56, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(op10(h->p2, 0x57, &r), SAM_STAT_GOOD);
	assert_int_equal(op10(h->p1, 0x56, &r), SAM_STAT_GOOD);
	assert_int_equal(op10(h->p1, 0x57, &r), SAM_STAT_GOOD);
	/* third-party RESERVE(10) is not supported */
	uint8_t cdb[10] = {0x56, 0x10};
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

static void test_released_by_lun_reset_and_loss(void **state)
{
	struct harness *h = *state;
	struct loop_result r;

	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_GOOD);
	assert_int_equal(loop_tmf(h->p1, SCSI_TMF_LUN_RESET, 0, 0), SCSI_TMF_RESP_COMPLETE);
	/* the holder learns of it through the reset UA */
	h_tur(h->p1, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x03);
	h_clear_ua(h->p2, 0);
	assert_int_equal(op6(h->p2, 0x16, &r), SAM_STAT_GOOD);
	/* holder's nexus loss */
	loop_destroy(h->p2);
	h->p2 = NULL;
	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_GOOD);
	assert_int_equal(op6(h->p1, 0x17, &r), SAM_STAT_GOOD);
	h->p2 = loop_create(h->t, 1, "iqn.test:b");
}

/* A nexus destroyed without scsi_nexus_loss (a clean logout without tasks)
 * still releases its reservation. */
static void test_released_by_destroy(void **state)
{
	struct harness *h = *state;
	struct scsi_nexus_info info = {
	    .initiator_name = "iqn.test:c",
	    .initiator_port_name = "iqn.test:c,i,0x01",
	    .ops = &(struct scsi_fabric_ops){.name = "none"},
	};
	struct scsi_nexus *n =
	    scsi_nexus_create(scsi_nexus_tport(loop_nexus(h->p1)), h->map, &info);
	struct scsi_lu *lu;
	struct loop_result r;
	bool ro;

	assert_non_null(n);
	lu = scsi_nexus_lu(n, 0, &ro); /* the LU now knows this nexus */
	assert_non_null(lu);
	pthread_mutex_lock(&lu->lock);
	atomic_store(&lu->core->resv_holder, n->cache[0].itn);
	pthread_mutex_unlock(&lu->lock);
	scsi_lu_put(lu);
	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_RESERVATION_CONFLICT);
	scsi_nexus_destroy(n);
	assert_int_equal(op6(h->p1, 0x16, &r), SAM_STAT_GOOD);
	assert_int_equal(op6(h->p1, 0x17, &r), SAM_STAT_GOOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_two_initiators, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_released_by_lun_reset_and_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_released_by_destroy, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
