/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cmd.c: the command life cycle (cmd.c) through the loop fabric: LUN
 * lookup, CDB table checks, the order of pre-execution checks, residuals
 * against Expected Data Transfer Length (libiscsi *Residuals semantics),
 * direction mismatch, back-store errors and counters.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (fake RAM, 2048 x 512)
 *   p2 "iqn.test:b" --/                                               */
#include "harness.h"

#include <errno.h>

#include "lib/bufpool.h"
#include "scsi/core.h"

static int setup(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	h_teardown(h);
	free(h);
	return 0;
}

static void test_first_command_gets_power_on_ua(void **state)
{
	struct harness *h = *state;
	struct loop_port *p3 = loop_create(h->t, 2, "iqn.test:c");
	struct loop_result r;

	assert_non_null(p3);
	/* SAM-5 5.14: a nexus the LU has not seen gets POWER ON, RESET */
	h_tur(p3, &r);
	h_expect_sense(&r, 0x6, 0x29, 0x00);
	h_tur(p3, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_destroy(p3);
}

static void test_unmapped_lun(void **state)
{
	struct harness *h = *state;
	uint8_t tur[6] = {0}, inq[6] = {0x12, 0, 0, 0, 96, 0}, buf[96];
	struct loop_result r;
	uint64_t lun5 = lun_encode(5);

	h_cmd(h->p1, lun5, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x25, 0x00);
	/* INQUIRY is answered: qualifier 011b, device type 1Fh */
	h_cmd(h->p1, lun5, inq, 6, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0x7f);
}

static void test_invalid_opcode_and_reserved_bits(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[6] = {0xff};
	struct loop_result r;

	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x20, 0x00);
	/* TEST UNIT READY with a reserved bit in byte 1 */
	uint8_t tur[6] = {0x00, 0x20};
	h_cmd(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* field pointer: SKSV, C/D, BPV, bit 5, byte 1 */
	assert_int_equal(r.sense[15], 0x80 | 0x40 | 0x08 | 5);
	assert_int_equal(get_be16(r.sense + 16), 1);
	/* NACA in the control byte is supported (NormACA 1, aca.c) ... */
	uint8_t tur2[6] = {0x00, 0, 0, 0, 0, 0x04};
	h_cmd(h->p1, 0, tur2, 6, SCSI_DIR_NONE, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	/* ... LINK (obsolete) is not: field pointer byte 5 bit 0 */
	tur2[5] = 0x01;
	h_cmd(h->p1, 0, tur2, 6, SCSI_DIR_NONE, NULL, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	assert_int_equal(r.sense[15], 0x80 | 0x40 | 0x08 | 0);
	assert_int_equal(get_be16(r.sense + 16), 5);
}

static void test_read_residuals(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[10000];
	struct loop_result r;

	h_cdb_rw10(cdb, 0x28, 0, 1);
	/* EDTL 0: GOOD, overflow of one block */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	/* EDTL 10000: underflow */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 10000, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_UNDERFLOW);
	assert_int_equal(r.resid, 10000 - H_BS);
	assert_int_equal(r.data_in_len, H_BS);
	/* EDTL 200: overflow, 200 bytes sent */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 200, &r);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS - 200);
	assert_int_equal(r.data_in_len, 200);
	/* exact */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r);
	assert_int_equal(r.resid_kind, SCSI_RESID_NONE);
	assert_int_equal(r.resid, 0);
}

/* Buffers are sized by what can move: Data-In beyond the Expected Data
 * Transfer Length never reaches the initiator, Data-Out beyond it never
 * comes. With the global cap at 64 KiB, a READ of 1 MiB with EDTL 4096
 * (or 0) and a WRITE of 1 MiB with EDTL 4096 run (before: a 1 MiB buffer,
 * refused with BUSY) and report the overflow of the whole CDB length. */
static void test_buffers_sized_by_edtl(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[4096], rl[12] = {0xa0};
	struct loop_result r;

	buf_set_cap(64u << 10);
	memset(buf, 0x5a, sizeof(buf));
	h_cdb_rw10(cdb, 0x2a, 0, 2048);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, 2048 * H_BS - sizeof(buf));
	memset(buf, 0, sizeof(buf));
	h_cdb_rw10(cdb, 0x28, 0, 2048);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(buf));
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, 2048 * H_BS - sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x5a);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid, 2048 * H_BS);
	/* parameter data: REPORT LUNS with ALLOCATION LENGTH 1 MiB, EDTL 8:
	 * 16 bytes produced (one LUN), 8 delivered, 8 of overflow */
	put_be32(rl + 6, 1u << 20);
	h_cmd(h->p1, 0, rl, 12, SCSI_DIR_READ, buf, 8, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 8);
	assert_int_equal(get_be32(buf), 8); /* LUN LIST LENGTH */
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, 8);
	buf_set_cap(0);
}

/* The fabric's share per I_T nexus (scsi_cmd.buf_budget): a command whose
 * buffer would not fit ends with TASK SET FULL, without a buffer. */
static void test_buf_budget(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[16 * H_BS];
	struct loop_result r;

	loop_set_buf_limits(h->p1, 8 * H_BS, 0);
	h_cdb_rw10(cdb, 0x28, 0, 16);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_TASK_SET_FULL);
	assert_int_equal(r.sense_len, 0);
	h_cdb_rw10(cdb, 0x28, 0, 8);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 8 * H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_set_buf_limits(h->p1, 0, 0);
	h_cdb_rw10(cdb, 0x28, 0, 16);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

/* The nexus' reserve (scsi_cmd.buf_reserve): with the global cap taken by
 * others, a command whose buffer fits in the reserve still gets one
 * (outside the cap, counted apart); without it, BUSY. */
static void test_buf_reserve(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[16 * H_BS];
	struct loop_result r;
	void *hog;

	buf_set_cap(64u << 10);
	hog = buf_alloc(64u << 10); /* the whole cap, as other initiators would */
	assert_non_null(hog);
	h_cdb_rw10(cdb, 0x28, 0, 16);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_BUSY);
	loop_set_buf_limits(h->p1, 0, sizeof(buf));
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(buf_reserved_in_use(), 0); /* given back */
	assert_int_equal(buf_in_use(), 64u << 10);
	/* larger than the reserve: the cap again */
	loop_set_buf_limits(h->p1, 0, sizeof(buf) / 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	assert_int_equal(r.status, SAM_STAT_BUSY);
	loop_set_buf_limits(h->p1, 0, 0);
	buf_free(hog, 64u << 10);
	buf_set_cap(0);
}

static void test_write_residuals(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[4 * H_BS], rd[2 * H_BS];
	struct loop_result r;

	memset(buf, 'a', sizeof(buf));
	h_cdb_rw10(cdb, 0x2a, 10, 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, 2 * H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_NONE);

	/* EDTL > transfer length: the CDB's amount is written, underflow */
	memset(buf, 'b', sizeof(buf));
	h_cdb_rw10(cdb, 0x2a, 10, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, 2 * H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_UNDERFLOW);
	assert_int_equal(r.resid, H_BS);
	h_cdb_rw10(cdb, 0x28, 10, 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, rd, sizeof(rd), &r);
	assert_int_equal(rd[0], 'b');
	assert_int_equal(rd[H_BS], 'a');

	/* EDTL < transfer length: only EDTL's whole blocks are written */
	memset(buf, 'c', sizeof(buf));
	h_cdb_rw10(cdb, 0x2a, 10, 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	h_cdb_rw10(cdb, 0x28, 10, 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, rd, sizeof(rd), &r);
	assert_int_equal(rd[0], 'c');
	assert_int_equal(rd[H_BS], 'a');

	/* EDTL 0 and EDTL 200: nothing written, overflow */
	h_cdb_rw10(cdb, 0x2a, 10, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, 200, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS - 200);
}

static void test_direction_mismatch(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;

	/* READ(10) sent with the W bit: runs, nothing moves, the Data-Out is
	 * discarded (libiscsi iSCSIResiduals.Read10Invalid wants GOOD) */
	memset(buf, 0xa6, sizeof(buf));
	h_cdb_rw10(cdb, 0x28, 0, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	assert_int_not_equal(fake_bs_data(h->bs)[0], 0xa6);
	/* WRITE(10) sent with the R bit: nothing is written */
	h_cdb_rw10(cdb, 0x2a, 0, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 0);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	assert_int_not_equal(fake_bs_data(h->bs)[0], 0xa6);
	/* bidirectional */
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_BIDI, buf, H_BS, &r);
	h_expect_sense(&r, 0xb, 0x0e, 0x03);
	/* a parameter list cut short by EDTL is refused */
	uint8_t ms[6] = {0x15, 0x10, 0, 0, 24, 0};
	h_cmd(h->p1, 0, ms, 6, SCSI_DIR_WRITE, buf, 4, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
}

static void test_no_data_underflow(void **state)
{
	struct harness *h = *state;
	uint8_t tur[6] = {0}, buf[64];
	struct loop_result r;

	h_cmd(h->p1, 0, tur, 6, SCSI_DIR_READ, buf, 64, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_UNDERFLOW);
	assert_int_equal(r.resid, 64);
}

static void test_bs_error_medium_error(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[H_BS];
	struct loop_result r;

	fake_bs_fail_next(h->bs, -EIO);
	h_cdb_rw10(cdb, 0x28, 7, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, &r);
	h_expect_sense(&r, 0x3, 0x11, 0x00);
	assert_int_equal(r.data_in_len, 0);
	fake_bs_fail_next(h->bs, -ENOSPC);
	h_cdb_rw10(cdb, 0x2a, 7, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, &r);
	h_expect_sense(&r, 0x7, 0x27, 0x07);
}

static void test_descriptor_sense_follows_d_sense(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[6] = {0xff};
	struct loop_result r;

	atomic_store(&lu_core(h->lu)->mode.d_sense, true);
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_NONE, NULL, 0, &r);
	assert_int_equal(r.sense[0], 0x72);
	h_expect_sense(&r, 0x5, 0x20, 0x00);
	atomic_store(&lu_core(h->lu)->mode.d_sense, false);
}

static void test_aca_attribute_refused(void **state)
{
	struct harness *h = *state;
	uint8_t tur[6] = {0};
	struct loop_result r;

	assert_int_equal(loop_submit(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_ACA, &r),
			 0);
	h_expect_sense(&r, 0xb, 0x0e, 0x03);
}

/* The LU's statistics (scsi_lu_stats(), lib/stats.h shards): per class
 * (READ: read, WRITE: write, TEST UNIT READY and a refused opcode: other)
 * the commands and one latency each in the histogram; the bytes; the
 * refusal as an error. */
static void test_counters(void **state)
{
	struct harness *h = *state;
	struct scsi_lu_stats *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint8_t cdb[10], buf[2 * H_BS] = {0}, tur[6] = {0}, bad[6] = {0xff};
	uint64_t n;

	scsi_lu_stats(h->lu, a);
	h_cdb_rw10(cdb, 0x28, 0, 2);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, sizeof(buf), NULL);
	h_cdb_rw10(cdb, 0x2a, 4, 1);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, NULL);
	h_cmd(h->p1, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, NULL);
	h_cmd(h->p1, 0, bad, 6, SCSI_DIR_NONE, NULL, 0, NULL);
	scsi_lu_stats(h->lu, b);
	assert_int_equal(b->cmds - a->cmds, 4);
	assert_int_equal(b->read_bytes - a->read_bytes, 2 * H_BS);
	assert_int_equal(b->write_bytes - a->write_bytes, H_BS);
	assert_int_equal(b->errors - a->errors, 1);
	assert_int_equal(b->op[SCSI_OP_READ].cmds - a->op[SCSI_OP_READ].cmds, 1);
	assert_int_equal(b->op[SCSI_OP_WRITE].cmds - a->op[SCSI_OP_WRITE].cmds, 1);
	assert_int_equal(b->op[SCSI_OP_OTHER].cmds - a->op[SCSI_OP_OTHER].cmds, 2);
	for (unsigned c = 0; c < SCSI_OP_CLASSES; c++) {
		n = 0;
		for (unsigned i = 0; i < STATS_HIST_BUCKETS; i++)
			n += b->op[c].lat[i] - a->op[c].lat[i];
		assert_int_equal(n, b->op[c].cmds - a->op[c].cmds);
		assert_true(b->op[c].lat_sum_ns > a->op[c].lat_sum_ns);
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_first_command_gets_power_on_ua, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unmapped_lun, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_invalid_opcode_and_reserved_bits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_residuals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_residuals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buffers_sized_by_edtl, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buf_budget, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buf_reserve, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_direction_mismatch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_data_underflow, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bs_error_medium_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_descriptor_sense_follows_d_sense, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_aca_attribute_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_counters, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
