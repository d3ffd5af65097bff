/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for protection information on the block commands (scsi/sbc.c,
 * sbc_pi.c, sbc_cdb32.c, verify.c; SBC-4 4.22) through the loop fabric:
 *
 *   initiator "iqn.test:a" --loop port p1--> target "iqn.test:t"
 *                                              LUN 0 = lu[0]: RAM data + RAM tuples
 *                                                      (backstore/pi.c), type 1, 2 or 3,
 *                                                      or no protection information
 *
 * The tuples are built here (t10pi_generate) and sent interleaved after each
 * block, as an initiator does. */
#include "sbc_harness.h"

#include "backstore/pi.h"
#include "lib/t10pi.h"

#define BSZ  512u
#define NBLK 64u
/* VPD 86h byte 4 of a type 2 LU: SPT 010b, GRD_CHK */
#define VPD86_TYPE2 0x14

static struct sh *pi_setup(enum t10pi_type type)
{
	struct sh *h = calloc(1, sizeof(*h));
	struct sh_opts o = {.ram = true};
	struct scsi_lu_attrs a = sh_attrs(&o, 0);
	struct bs_params dp = {.type = "ram", .name = "lu0", .size = NBLK * BSZ, .block_size = BSZ};
	struct bs_params tp = {.type = "ram", .name = "lu0.pi", .size = 4096, .block_size = 512};
	struct bs_dev *data, *tuples;

	assert_non_null(h);
	h->bsz = BSZ;
	h->blocks = NBLK;
	assert_int_equal(bs_open(&dp, &data), 0);
	if (type != T10PI_NONE) {
		assert_int_equal(bs_open(&tp, &tuples), 0);
		assert_int_equal(bs_pi_wrap(data, tuples, type, BSZ, &h->bs[0]), 0);
	} else {
		h->bs[0] = data;
	}
	a.pi_type = (uint8_t)type;
	assert_int_equal(scsi_lu_create("lu0", h->bs[0], &a, &h->lu[0]), 0);
	h->t = scsi_target_create("iqn.test:t");
	assert_non_null(h->t);
	h->map = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(h->map, 0, h->lu[0], false), 0);
	scsi_target_set_default_map(h->t, h->map, true);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h->p2 = loop_create(h->t, 1, "iqn.test:b");
	assert_non_null(h->p1);
	assert_non_null(h->p2);
	sh_clear_ua(h->p1, 0);
	return h;
}

/* n blocks of a pattern with their tuples interleaved (bs + 8 per block):
 * application tag app, reference tags ref, ref + 1, ... */
static inline void wire_blocks(uint8_t *buf, uint32_t n, uint8_t seed, uint16_t app, uint32_t ref)
{
	uint8_t data[BSZ], t[T10PI_TUPLE_LEN];

	for (uint32_t i = 0; i < n; i++) {
		for (unsigned b = 0; b < BSZ; b++)
			data[b] = (uint8_t)(seed + i * 3 + b);
		t10pi_generate(data, t, BSZ, 1, T10PI_TYPE2, ref + i);
		put_be16(t + 2, app);
		memcpy(buf + i * (BSZ + 8), data, BSZ);
		memcpy(buf + i * (BSZ + 8) + BSZ, t, T10PI_TUPLE_LEN);
	}
}

#define PROT(p) ((uint8_t)((p) << 5))

/* ---- type 2: what the LU reports, what the shorter CDBs may do ---- */

static void test_type2_reports(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t rc16[16] = {0x9e, 0x10}, inq[6] = {0x12, 0, 0, 0, 96},
		vpd[6] = {0x12, 1, 0x86, 0, 64};
	uint8_t d[96];
	struct loop_result r;

	(void)state;
	rc16[13] = 32;
	sh_cmd(h->p1, 0, rc16, 16, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	/* SBC-4 5.20.2 byte 12: P_TYPE 001b (type 2), PROT_EN, RC BASIS 01b */
	assert_int_equal(d[12], 0x13);
	sh_cmd(h->p1, 0, inq, 6, SCSI_DIR_READ, d, 96, &r);
	sh_expect_good(&r);
	assert_int_equal(d[5] & 0x01, 0x01); /* PROTECT */
	sh_cmd(h->p1, 0, vpd, 6, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	/* SPC-4 7.8.7: SPT 010b (type 2 only), GRD_CHK, APP_CHK, REF_CHK */
	assert_int_equal(d[4], VPD86_TYPE2);
	sh_teardown(h);
}

/* SBC-4 5.13/5.40: type 2 takes RDPROTECT/WRPROTECT only in the 32-byte
 * CDBs; in READ/WRITE(10/16) a non-zero field is INVALID COMMAND OPERATION
 * CODE; 000b works, generated tuples included */
static void test_type2_short_cdbs(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[16], buf[2 * (BSZ + 8)];
	struct loop_result r;

	(void)state;
	for (uint8_t p = 1; p <= 5; p++) {
		cdb10(c, 0x28, PROT(p), 0, 1);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, buf, BSZ + 8, &r);
		sh_expect(&r, 0x5, 0x20, 0x00);
		cdb16(c, 0x8a, PROT(p), 0, 1);
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, BSZ + 8, &r);
		sh_expect(&r, 0x5, 0x20, 0x00);
	}
	memset(buf, 0x5a, sizeof(buf));
	cdb10(c, 0x2a, 0, 4, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, 2 * BSZ, &r);
	sh_expect_good(&r);
	cdb16(c, 0x88, 0, 4, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, buf, 2 * BSZ, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_type2_reports),
	    cmocka_unit_test(test_type2_short_cdbs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
