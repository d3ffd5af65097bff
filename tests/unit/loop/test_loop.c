/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_loop.c: the loop fabric (src/fabric/loop): synchronous and
 * asynchronous submission, Data-Out held before exec, TMFs, nexus loss on
 * destroy with outstanding tasks, and repeated create/destroy as a fuzz
 * harness does.
 *
 *   "iqn.loop:a" --- loop port 1 --- target "iqn.loop:t" --- LUN 0 (fake RAM) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/loop/loop.h"
#include "lib/endian.h"
#include "../fakes/fake_bs_core.h"

struct env {
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu;
	struct bs_dev *bs;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	struct scsi_lu_attrs a = {.block_size = 512,
				  .vendor = "UTARGET",
				  .product = "LOOP",
				  .revision = "1",
				  .serial = "L1"};

	e->t = scsi_target_create("iqn.loop:t");
	e->bs = fake_bs_create(1 << 20, 0);
	assert_int_equal(scsi_lu_create("lu", e->bs, &a, &e->lu), 0);
	e->map = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(e->map, 0, e->lu, false), 0);
	scsi_target_set_default_map(e->t, e->map, true);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	scsi_lun_map_put(e->map);
	scsi_lu_put(e->lu);
	scsi_target_destroy(e->t);
	free(e);
	return 0;
}

static void test_sync_write_read(void **state)
{
	struct env *e = *state;
	struct loop_port *p = loop_create(e->t, 1, "iqn.loop:a");
	uint8_t w[10] = {0x2a, 0, 0, 0, 0, 3, 0, 0, 1, 0},
		rd[10] = {0x28, 0, 0, 0, 0, 3, 0, 0, 1, 0};
	uint8_t out[512], in[512];
	struct loop_result r;

	assert_non_null(p);
	assert_ptr_equal(scsi_nexus_fabric_priv(loop_nexus(p)), p);
	assert_non_null(loop_reactor(p));
	memset(out, 0x5a, sizeof(out));
	/* first command: POWER ON unit attention */
	assert_int_equal(loop_submit(p, 0, w, 10, SCSI_DIR_WRITE, out, 512, 0, &r), 0);
	assert_int_equal(r.status, SAM_STAT_CHECK_CONDITION);
	assert_int_equal(loop_submit(p, 0, w, 10, SCSI_DIR_WRITE, out, 512, 0, &r), 0);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(loop_submit(p, 0, rd, 10, SCSI_DIR_READ, in, 512, 0, &r), 0);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 512);
	assert_memory_equal(in, out, 512);
	assert_memory_equal(fake_bs_data(e->bs) + 3 * 512, out, 512);
	loop_destroy(p);
}

static void test_hold_data_and_tmf(void **state)
{
	struct env *e = *state;
	struct loop_port *p = loop_create(e->t, 1, "iqn.loop:a");
	uint8_t w[10] = {0x2a, 0, 0, 0, 0, 1, 0, 0, 1, 0}, out[512];
	uint8_t tur[6] = {0};
	struct loop_result r;
	struct loop_task *t;

	loop_submit(p, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, 0, &r);
	memset(out, 0x77, sizeof(out));
	t = loop_submit_async(p, 0, w, 10, SCSI_DIR_WRITE, out, 512, 0, 42, LOOP_HOLD_DATA);
	assert_non_null(t);
	loop_wait_setup(t);
	assert_false(loop_task_done(t));
	assert_int_equal(loop_tmf(p, SCSI_TMF_QUERY_TASK, 0, 42), SCSI_TMF_RESP_SUCCEEDED);
	loop_send_data(t);
	loop_wait(t, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(fake_bs_data(e->bs)[512], 0x77);
	assert_int_equal(loop_tmf(p, SCSI_TMF_QUERY_TASK, 0, 42), SCSI_TMF_RESP_COMPLETE);
	loop_destroy(p);
}

/* Destroy = I_T nexus loss: a task waiting for Data-Out is aborted. */
static void test_destroy_with_outstanding(void **state)
{
	struct env *e = *state;
	struct loop_port *p = loop_create(e->t, 1, "iqn.loop:a");
	uint8_t w[10] = {0x2a, 0, 0, 0, 0, 1, 0, 0, 1, 0}, out[512] = {0};
	struct loop_result r;
	uint8_t tur[6] = {0};
	struct loop_task *t;

	/* a command failed in setup (the POWER ON UA) is not held */
	t = loop_submit_async(p, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, 0, 1, LOOP_HOLD_DATA);
	loop_wait(t, &r);
	assert_int_equal(r.status, SAM_STAT_CHECK_CONDITION);
	t = loop_submit_async(p, 0, w, 10, SCSI_DIR_WRITE, out, 512, 0, 1, LOOP_HOLD_DATA);
	loop_wait_setup(t);
	loop_destroy(p);
	loop_wait(t, &r);
	assert_true(r.no_response);
}

/* libFuzzer-style reuse: no global state across create/destroy. */
static void test_repeated_create_destroy(void **state)
{
	struct env *e = *state;
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0}, buf[36];
	struct loop_result r;

	for (int i = 0; i < 50; i++) {
		struct loop_port *p = loop_create(e->t, (uint16_t)(1 + i % 3), "iqn.loop:f");

		assert_non_null(p);
		assert_int_equal(loop_submit(p, 0, inq, 6, SCSI_DIR_READ, buf, 36, 0, &r), 0);
		assert_int_equal(r.status, SAM_STAT_GOOD);
		loop_destroy(p);
	}
}

static void test_bad_cdb_length(void **state)
{
	struct env *e = *state;
	struct loop_port *p = loop_create(e->t, 1, "iqn.loop:a");
	uint8_t cdb[40] = {0};

	assert_null(loop_submit_async(p, 0, cdb, sizeof(cdb), SCSI_DIR_NONE, NULL, 0, 0, 0, 0));
	loop_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sync_write_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_data_and_tmf, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_destroy_with_outstanding, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_repeated_create_destroy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_cdb_length, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
