/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_buffer.c: READ BUFFER(10) and WRITE BUFFER (buffer.c) through the
 * loop fabric: the data buffer at offsets, the descriptors, the echo buffer
 * of each I_T nexus, and the refusals with their sense and field pointer.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu
 *   p2 "iqn.test:b" --/                     */
#include "common_setup.h"

#define DATA_CAP (64u << 10)

static void rb_cdb(uint8_t *cdb, uint8_t mode, uint8_t id, uint32_t off, uint32_t len)
{
	memset(cdb, 0, 10);
	cdb[0] = 0x3c;
	cdb[1] = mode;
	cdb[2] = id;
	put_be24(cdb + 3, off);
	put_be24(cdb + 6, len);
}

static uint8_t read_buffer(struct loop_port *p, uint8_t mode, uint8_t id, uint32_t off,
			   uint32_t len, void *buf, struct loop_result *r)
{
	uint8_t cdb[10];

	rb_cdb(cdb, mode, id, off, len);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_READ, buf, len, r);
}

static uint8_t write_buffer(struct loop_port *p, uint8_t mode, uint8_t id, uint32_t off,
			    uint32_t len, void *buf, struct loop_result *r)
{
	uint8_t cdb[10];

	rb_cdb(cdb, mode, id, off, len);
	cdb[0] = 0x3b;
	return h_cmd(p, 0, cdb, 10, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, buf, len, r);
}

/* ILLEGAL REQUEST, INVALID FIELD IN CDB pointing at byte, bit */
static void expect_fp(const struct loop_result *r, unsigned byte, unsigned bit)
{
	h_expect_sense(r, 0x5, 0x24, 0x00);
	assert_int_equal(r->sense[15], 0x80 | 0x40 | 0x08 | bit);
	assert_int_equal(get_be16(r->sense + 16), byte);
}

static void test_data_mode_offsets(void **state)
{
	struct harness *h = *state;
	static uint8_t buf[DATA_CAP + 4];
	uint8_t pat[100], tail[16];
	struct loop_result r;

	/* zeros before the first write */
	assert_int_equal(read_buffer(h->p1, 0x02, 0, 0, 64, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 64);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(buf[i], 0);
	for (unsigned i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i + 1);
	memset(tail, 0xa5, sizeof(tail));
	assert_int_equal(write_buffer(h->p1, 0x02, 0, 10, sizeof(pat), pat, &r), SAM_STAT_GOOD);
	assert_int_equal(write_buffer(h->p1, 0x02, 0, DATA_CAP - 16, 16, tail, &r), SAM_STAT_GOOD);
	/* read back at the offset, and around it */
	assert_int_equal(read_buffer(h->p1, 0x02, 0, 10, 100, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 100);
	assert_memory_equal(buf, pat, 100);
	assert_int_equal(read_buffer(h->p1, 0x02, 0, 0, 120, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[9], 0);
	assert_memory_equal(buf + 10, pat, 100);
	assert_int_equal(buf[110], 0);
	/* the buffer is the logical unit's: another I_T nexus reads it */
	assert_int_equal(read_buffer(h->p2, 0x02, 0, DATA_CAP - 16, 16, buf, &r), SAM_STAT_GOOD);
	assert_memory_equal(buf, tail, 16);
	/* combined header and data: BUFFER CAPACITY, then the buffer */
	assert_int_equal(read_buffer(h->p1, 0x00, 0, 0, DATA_CAP + 4, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, DATA_CAP + 4);
	assert_int_equal(buf[0], 0);
	assert_int_equal(get_be24(buf + 1), DATA_CAP);
	assert_memory_equal(buf + 4 + 10, pat, 100);
	assert_memory_equal(buf + 4 + DATA_CAP - 16, tail, 16);
	/* cut to the allocation length */
	assert_int_equal(read_buffer(h->p1, 0x00, 0, 0, 2, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 2);
	/* a zero-length write is no error */
	assert_int_equal(write_buffer(h->p1, 0x02, 0, 0, 0, NULL, &r), SAM_STAT_GOOD);
}

static void test_descriptors(void **state)
{
	struct harness *h = *state;
	uint8_t buf[8];
	struct loop_result r;

	/* OFFSET BOUNDARY 00h (bytes), BUFFER CAPACITY 64 KiB */
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(read_buffer(h->p1, 0x03, 0, 0, 8, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4);
	assert_int_equal(buf[0], 0x00);
	assert_int_equal(get_be24(buf + 1), DATA_CAP);
	/* a BUFFER ID with no buffer: all zeros (SPC-4 6.17.6) */
	assert_int_equal(read_buffer(h->p1, 0x03, 7, 0, 4, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4);
	assert_int_equal(get_be32(buf), 0);
	/* echo buffer descriptor: EBOS 1, capacity 4096 */
	assert_int_equal(read_buffer(h->p1, 0x0b, 0, 0, 4, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4);
	assert_int_equal(buf[0], 0x01);
	assert_int_equal(buf[1], 0x00);
	assert_int_equal(get_be16(buf + 2) & 0x1fff, 4096);
	/* reserved BUFFER OFFSET / BUFFER ID */
	read_buffer(h->p1, 0x03, 0, 4, 4, buf, &r);
	expect_fp(&r, 3, 7);
	read_buffer(h->p1, 0x0b, 1, 0, 4, buf, &r);
	expect_fp(&r, 2, 7);
}

static void test_echo_per_nexus(void **state)
{
	struct harness *h = *state;
	uint8_t a[32], b[48], buf[4096];
	struct loop_result r;

	memset(a, 0x11, sizeof(a));
	memset(b, 0x22, sizeof(b));
	/* SPC-4 6.17.9: no echo WRITE BUFFER from this I_T nexus yet */
	read_buffer(h->p1, 0x0a, 0, 0, 4096, buf, &r);
	h_expect_sense(&r, 0x5, 0x2c, 0x00);
	/* BUFFER ID and BUFFER OFFSET are ignored in echo mode */
	assert_int_equal(write_buffer(h->p1, 0x0a, 9, 123, sizeof(a), a, &r), SAM_STAT_GOOD);
	read_buffer(h->p2, 0x0a, 0, 0, 4096, buf, &r);
	h_expect_sense(&r, 0x5, 0x2c, 0x00);
	assert_int_equal(write_buffer(h->p2, 0x0a, 0, 0, sizeof(b), b, &r), SAM_STAT_GOOD);
	/* each I_T nexus reads what it wrote, as many bytes as it wrote */
	assert_int_equal(read_buffer(h->p1, 0x0a, 0, 0, 4096, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(a));
	assert_memory_equal(buf, a, sizeof(a));
	assert_int_equal(read_buffer(h->p2, 0x0a, 5, 6, 4096, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(b));
	assert_memory_equal(buf, b, sizeof(b));
	/* the echo buffer is not the data buffer */
	assert_int_equal(read_buffer(h->p1, 0x02, 0, 0, 32, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[0], 0);
	/* a full one, then a shorter one replaces it */
	memset(buf, 0x33, sizeof(buf));
	assert_int_equal(write_buffer(h->p1, 0x0a, 0, 0, 4096, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(write_buffer(h->p1, 0x0a, 0, 0, 8, a, &r), SAM_STAT_GOOD);
	assert_int_equal(read_buffer(h->p1, 0x0a, 0, 0, 4096, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 8);
	assert_memory_equal(buf, a, 8);
	/* more than the echo buffer holds */
	write_buffer(h->p1, 0x0a, 0, 0, 4097, buf, &r);
	expect_fp(&r, 6, 7);
}

/* I_T nexus loss returns the echo buffer: the initiator port's next nexus
 * has written nothing yet. */
static void test_echo_nexus_loss(void **state)
{
	struct harness *h = *state;
	struct loop_port *p3 = loop_create(h->t, 1, "iqn.test:c");
	uint8_t a[16], buf[64];
	struct loop_result r;

	memset(a, 0x44, sizeof(a));
	h_clear_ua(p3, 0);
	assert_int_equal(write_buffer(p3, 0x0a, 0, 0, sizeof(a), a, &r), SAM_STAT_GOOD);
	assert_int_equal(read_buffer(p3, 0x0a, 0, 0, 64, buf, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, sizeof(a));
	loop_destroy(p3);
	p3 = loop_create(h->t, 1, "iqn.test:c");
	assert_non_null(p3);
	h_clear_ua(p3, 0);
	read_buffer(p3, 0x0a, 0, 0, 64, buf, &r);
	h_expect_sense(&r, 0x5, 0x2c, 0x00);
	loop_destroy(p3);
}

static void test_refusals(void **state)
{
	struct harness *h = *state;
	static uint8_t buf[DATA_CAP + 8];
	static const uint8_t microcode[] = {0x04, 0x05, 0x06, 0x07, 0x0d, 0x0e, 0x0f};
	struct loop_result r;

	/* offset + length beyond the data buffer: the length, or the offset
	 * when it alone is beyond */
	write_buffer(h->p1, 0x02, 0, DATA_CAP - 4, 8, buf, &r);
	expect_fp(&r, 6, 7);
	read_buffer(h->p1, 0x02, 0, 1, DATA_CAP, buf, &r);
	expect_fp(&r, 6, 7);
	read_buffer(h->p1, 0x02, 0, DATA_CAP + 1, 0, buf, &r);
	expect_fp(&r, 3, 7);
	/* BUFFER ID 0 only */
	write_buffer(h->p1, 0x02, 1, 0, 4, buf, &r);
	expect_fp(&r, 2, 7);
	read_buffer(h->p1, 0x02, 1, 0, 4, buf, &r);
	expect_fp(&r, 2, 7);
	read_buffer(h->p1, 0x00, 0, 8, 4, buf, &r);
	expect_fp(&r, 3, 7);
	/* download microcode: no microcode to update, never a success */
	for (unsigned i = 0; i < sizeof(microcode); i++) {
		write_buffer(h->p1, microcode[i], 0, 0, 16, buf, &r);
		expect_fp(&r, 1, 4);
	}
	/* WRITE BUFFER combined header and data (obsolete), vendor specific,
	 * READ BUFFER error history */
	write_buffer(h->p1, 0x00, 0, 0, 16, buf, &r);
	expect_fp(&r, 1, 4);
	write_buffer(h->p1, 0x01, 0, 0, 16, buf, &r);
	expect_fp(&r, 1, 4);
	read_buffer(h->p1, 0x1c, 0, 0, 16, buf, &r);
	expect_fp(&r, 1, 4);
	/* MODE SPECIFIC bits: outside the usage mask */
	uint8_t cdb[10];
	rb_cdb(cdb, 0x02 | 0x20, 0, 0, 4);
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 4, &r);
	expect_fp(&r, 1, 5);
	/* nothing was written by the refused commands */
	assert_int_equal(read_buffer(h->p1, 0x02, 0, 0, 16, buf, &r), SAM_STAT_GOOD);
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(buf[i], 0);
}

/* The core's generic Expected Data Transfer Length checks: a parameter
 * list cannot be cut short, Data-In is cut with an overflow residual. */
static void test_transfer_length(void **state)
{
	struct harness *h = *state;
	uint8_t cdb[10], buf[256];
	struct loop_result r;

	memset(buf, 0x5a, sizeof(buf));
	rb_cdb(cdb, 0x02, 0, 0, 200);
	cdb[0] = 0x3b;
	h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, 100, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* more Data-Out than the CDB's: the first 200 bytes are written */
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_WRITE, buf, 256, &r), SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_UNDERFLOW);
	assert_int_equal(r.resid, 56);
	rb_cdb(cdb, 0x02, 0, 150, 100);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, buf, 80, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 80);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, 20);
	assert_int_equal(buf[49], 0x5a);
	assert_int_equal(buf[50], 0x00);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_data_mode_offsets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_descriptors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_echo_per_nexus, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_echo_nexus_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transfer_length, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
