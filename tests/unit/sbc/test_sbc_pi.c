/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for protection information on the block commands (scsi/sbc.c,
 * sbc_pi.c, sbc_cdb32.c, verify.c; SBC-4 4.22) through the loop fabric:
 *
 *   initiator "iqn.test:a" --loop port p1--> target "iqn.test:t"
 *                                              LUN 0 = lu[0]: RAM data + RAM tuples
 *                                                      (backstore/pi.c), type 1, 2 or 3,
 *                                                      or no protection information
 *
 * VERIFY: VRPROTECT with BYTCHK 00b (the stored tuples checked) and 01b
 * (the Data-Out's tuples checked, then compared with the stored ones).
 * The tuples are built here (t10pi_generate) and sent interleaved after each
 * block, as an initiator does. */
#include "sbc_harness.h"

#include "backstore/pi.h"
#include "lib/t10pi.h"

#define BSZ  512u
#define NBLK 64u
/* VPD 86h byte 4 of a type 2 LU: SPT 111b (FORMAT UNIT gives types 1, 2
 * and 3), GRD_CHK, APP_CHK, REF_CHK */
#define VPD86_TYPE2 0x3f

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
static void wire_blocks(uint8_t *buf, uint32_t n, uint8_t seed, uint16_t app, uint32_t ref)
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
	/* SPC-4 7.5.8 Control mode page byte 5: ATO set, not changeable */
	uint8_t ms[6] = {0x1a, 0x08, 0x0a, 0, 64};
	sh_cmd(h->p1, 0, ms, 6, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_int_equal(d[4], 0x0a);
	assert_int_equal(d[4 + 5] & 0x80, 0x80);
	ms[2] = 0x4a; /* PC 01b: changeable */
	sh_cmd(h->p1, 0, ms, 6, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_int_equal(d[4 + 5] & 0x80, 0x00);
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

/* ---- the 32-byte CDBs (sbc_cdb32.c) ---- */

/* SBC-4 5.16 / 5.42 layout: 7Fh, CONTROL 0, ADDITIONAL CDB LENGTH 18h,
 * SERVICE ACTION, PROTECT in byte 10, LBA 12-19, tags 20-27, length 28-31 */
static void cdb32(uint8_t *c, uint16_t sa, uint8_t protect, uint64_t lba, uint32_t n, uint32_t ref,
		  uint16_t app, uint16_t mask)
{
	memset(c, 0, 32);
	c[0] = 0x7f;
	c[7] = 0x18;
	put_be16(c + 8, sa);
	c[10] = PROT(protect);
	put_be64(c + 12, lba);
	put_be32(c + 20, ref);
	put_be16(c + 24, app);
	put_be16(c + 26, mask);
	put_be32(c + 28, n);
}

#define SA_READ32   0x0009
#define SA_VERIFY32 0x000a
#define SA_WRITE32  0x000b

/* fixed sense: SKSV, C/D and the field pointer (SPC-4 4.5.2.4.2) */
static void expect_field(const struct loop_result *r, uint16_t byte)
{
	sh_expect(r, 0x5, 0x24, 0x00);
	assert_int_equal(r->sense[15] & 0xc0, 0xc0);
	assert_int_equal(get_be16(r->sense + 16), byte);
}

/* fixed sense: VALID and INFORMATION (the LBA of the failing block) */
static void expect_info(const struct loop_result *r, uint8_t ascq, uint32_t lba)
{
	sh_expect(r, 0xb, 0x10, ascq);
	assert_int_equal(r->sense[0] & 0x80, 0x80);
	assert_int_equal(get_be32(r->sense + 3), lba);
}

/* REPORT SUPPORTED OPERATION CODES, all commands: the descriptors of
 * opcode 7Fh (each with SERVACTV and CDB LENGTH 32) */
static unsigned rsoc_count_7f(struct sh *h)
{
	static uint8_t d[8192];
	uint8_t c[12] = {0xa3, 0x0c, 0x00, 0, 0, 0, 0, 0, 0x20, 0x00};
	struct loop_result r;
	unsigned n = 0;

	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	for (uint32_t off = 4; off + 8 <= 4 + get_be32(d); off += 8) {
		if (d[off] != 0x7f)
			continue;
		assert_int_equal(d[off + 5] & 0x01, 0x01);
		assert_int_equal(get_be16(d + off + 6), 32);
		n++;
	}
	return n;
}

/* SBC-4 5.16: READ(32) "shall only be processed if type 2 protection is
 * enabled": INVALID COMMAND OPERATION CODE on types 1 and 3 and without
 * protection information */
static void test_cdb32_needs_type2(void **state)
{
	static const enum t10pi_type types[] = {T10PI_NONE, T10PI_TYPE1, T10PI_TYPE3};
	uint8_t c[32], buf[BSZ + 8];
	struct loop_result r;

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		struct sh *h = pi_setup(types[i]);

		cdb32(c, SA_READ32, 0, 0, 1, 0, 0, 0);
		sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, buf, BSZ, &r);
		sh_expect(&r, 0x5, 0x20, 0x00);
		cdb32(c, SA_WRITE32, 1, 0, 1, 0, 0, 0);
		sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, buf, BSZ + 8, &r);
		sh_expect(&r, 0x5, 0x20, 0x00);
		/* before the usage mask: a reserved bit changes nothing */
		cdb32(c, SA_VERIFY32, 0, 0, 1, 0, 0, 0);
		c[11] = 0x01;
		sh_cmd(h->p1, 0, c, 32, SCSI_DIR_NONE, NULL, 0, &r);
		sh_expect(&r, 0x5, 0x20, 0x00);
		/* and REPORT SUPPORTED OPERATION CODES does not list them */
		assert_int_equal(rsoc_count_7f(h), 0);
		sh_teardown(h);
	}
}

/* the CDB's own checks: ADDITIONAL CDB LENGTH 18h (else the field pointer
 * at byte 7), byte 8 reserved, unsupported service actions at byte 9,
 * reserved PROTECT values at byte 10 bit 7, a 16-byte 7Fh */
static void test_cdb32_fields(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[32], buf[BSZ + 8];
	struct loop_result r;

	(void)state;
	cdb32(c, SA_READ32, 0, 0, 1, 0, 0, 0);
	c[7] = 0x10;
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, buf, BSZ, &r);
	expect_field(&r, 7);
	cdb32(c, SA_READ32, 0, 0, 1, 0, 0, 0);
	c[8] = 0x01;
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, buf, BSZ, &r);
	expect_field(&r, 8);
	cdb32(c, 0x000e, 0, 0, 1, 0, 0, 0); /* ORWRITE(32) */
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, buf, BSZ, &r);
	expect_field(&r, 9);
	cdb32(c, SA_READ32, 6, 0, 1, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, buf, BSZ + 8, &r);
	expect_field(&r, 10);
	cdb32(c, SA_READ32, 0, NBLK - 1, 2, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, buf, BSZ, &r);
	sh_expect(&r, 0x5, 0x21, 0x00);
	cdb32(c, SA_READ32, 0, 0, 1, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, buf, BSZ, &r);
	sh_expect(&r, 0x5, 0x20, 0x00);
	sh_teardown(h);
}

/* WRITE(32) WRPROTECT 001b with tuples whose reference tags start at the
 * CDB's expected initial tag (not the LBA); READ(32) gives them back; a
 * wrong expected tag is 10h/03h with the LBA of the first failing block;
 * the application tag is compared under the mask only (10h/02h) */
static void test_cdb32_tags(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[32], out[3 * (BSZ + 8)], in[3 * (BSZ + 8)];
	struct loop_result r;

	(void)state;
	wire_blocks(out, 3, 0x21, 0x12ab, 0xa0000000u);
	cdb32(c, SA_WRITE32, 1, 8, 3, 0xa0000000u, 0x12ab, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb32(c, SA_READ32, 1, 8, 3, 0xa0000000u, 0x1200, 0xff00);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	assert_memory_equal(in, out, sizeof(out));
	/* RDPROTECT 000b checks all three, nothing on the wire */
	cdb32(c, SA_READ32, 0, 8, 3, 0xa0000000u, 0x12ab, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, 3 * BSZ, &r);
	sh_expect_good(&r);
	/* the expected tag of block 9 is 0xa0000000 + 1: start one off */
	cdb32(c, SA_READ32, 0, 9, 2, 0xa0000000u, 0, 0);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, 2 * BSZ, &r);
	expect_info(&r, 0x03, 9);
	cdb32(c, SA_READ32, 1, 9, 2, 0xa0000001u, 0, 0);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, 2 * (BSZ + 8), &r);
	sh_expect_good(&r);
	/* application tag 12ABh: 13xxh differs under FF00h, not under 00FFh */
	cdb32(c, SA_READ32, 1, 8, 3, 0xa0000000u, 0x13ab, 0xff00);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, sizeof(in), &r);
	expect_info(&r, 0x02, 8);
	cdb32(c, SA_READ32, 0, 8, 3, 0xa0000000u, 0x13ab, 0x00ff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, 3 * BSZ, &r);
	sh_expect_good(&r);
	/* RDPROTECT 011b: no check at all */
	cdb32(c, SA_READ32, 3, 8, 3, 0, 0x13ab, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	/* READ(10) RDPROTECT 000b checks the guard only: the stored
	 * reference tags are not the LBA */
	cdb10(c, 0x28, 0, 8, 3);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, in, 3 * BSZ, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* WRITE(32) WRPROTECT 001b with a bad reference tag (block 1) or a bad
 * application tag: ABORTED COMMAND, nothing written */
static void test_cdb32_write_refused(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[32], out[2 * (BSZ + 8)], in[2 * BSZ], zero[2 * BSZ];
	struct loop_result r;

	(void)state;
	memset(zero, 0, sizeof(zero));
	wire_blocks(out, 2, 0x77, 0x0001, 500);
	out[BSZ + 8 + BSZ + 7] ^= 0x01; /* block 1's reference tag: 500 ^ 1 */
	cdb32(c, SA_WRITE32, 1, 20, 2, 500, 0x0001, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	expect_info(&r, 0x03, 21);
	out[BSZ + 8 + BSZ + 7] ^= 0x01;
	cdb32(c, SA_WRITE32, 1, 20, 2, 500, 0x0002, 0x000f);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	expect_info(&r, 0x02, 20);
	cdb10(c, 0x28, 0, 20, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	assert_memory_equal(in, zero, sizeof(in));
	/* WRPROTECT 011b: stored unchecked */
	cdb32(c, SA_WRITE32, 3, 20, 2, 7, 0x0002, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* WRITE(32) WRPROTECT 000b: the device server generates the tuples, the
 * reference tags from the CDB's expected initial tag, application tag
 * 0000h; READ(32) RDPROTECT 001b returns them (golden tuple of block 0 of
 * a block of 5Ah: guard, 0000h, 00C0FFEEh) */
static void test_cdb32_generated(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[32], out[2 * BSZ], in[2 * (BSZ + 8)], t[T10PI_TUPLE_LEN];
	struct loop_result r;

	(void)state;
	memset(out, 0x5a, sizeof(out));
	cdb32(c, SA_WRITE32, 0, 30, 2, 0xc0ffee, 0, 0);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb32(c, SA_READ32, 1, 30, 2, 0xc0ffee, 0x0000, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	put_be16(t, t10pi_crc(out, BSZ));
	put_be16(t + 2, 0x0000);
	put_be32(t + 4, 0x00c0ffee);
	assert_memory_equal(in + BSZ, t, T10PI_TUPLE_LEN);
	put_be32(t + 4, 0x00c0ffef);
	assert_memory_equal(in + 2 * BSZ + 8, t, T10PI_TUPLE_LEN);
	sh_teardown(h);
}

/* REPORT SUPPORTED OPERATION CODES, one command, opcode 7Fh service
 * action 0009h (SPC-4 6.35.3): SUPPORT 011b, CDB SIZE 32, the usage data
 * as the golden bytes below (bytes 16-31 all fields) */
static void test_rsoc_cdb32(void **state)
{
	static const uint8_t usage[32] = {
	    0x7f, 0x04, 0x00, 0x00, 0x00, 0x00, 0x3f, 0xff, 0x00, 0x09, 0xfa,
	    0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[12] = {0xa3, 0x0c, 0x02, 0x7f, 0x00, 0x0b, 0, 0, 0, 64}, d[64], want[32];
	struct loop_result r;

	(void)state;
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_int_equal(d[1] & 0x07, 0x03);
	assert_int_equal(get_be16(d + 2), 32);
	memcpy(want, usage, sizeof(want));
	want[9] = 0x0b; /* WRITE(32) */
	assert_memory_equal(d + 4, want, 32);
	c[5] = 0x09;
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_memory_equal(d + 4, usage, 32);
	/* an unsupported service action: SUPPORT 001b */
	c[5] = 0x0e;
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, 64, &r);
	sh_expect_good(&r);
	assert_int_equal(d[1] & 0x07, 0x01);
	/* all commands: READ(32), VERIFY(32), WRITE(32) */
	assert_int_equal(rsoc_count_7f(h), 3);
	sh_teardown(h);
}

/* ---- VERIFY with VRPROTECT (verify.c, SBC-4 5.33-5.36) ---- */

/* wire blocks for type 1: reference tag the LBA */
static void wire_lba(uint8_t *buf, uint32_t n, uint8_t seed, uint16_t app, uint32_t lba)
{
	wire_blocks(buf, n, seed, app, lba);
}

/* without protection information VRPROTECT stays INVALID FIELD IN CDB
 * (byte 1); BYTCHK 11b with VRPROTECT is not supported (byte 1); on type 2
 * a VERIFY(10) with VRPROTECT is INVALID COMMAND OPERATION CODE */
static void test_verify_refusals(void **state)
{
	uint8_t c[16], buf[BSZ + 8];
	struct loop_result r;
	struct sh *h;

	(void)state;
	h = pi_setup(T10PI_NONE);
	cdb10(c, 0x2f, PROT(1), 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	expect_field(&r, 1);
	sh_teardown(h);
	h = pi_setup(T10PI_TYPE1);
	cdb10(c, 0x2f, PROT(1) | 0x06, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, BSZ + 8, &r);
	expect_field(&r, 1);
	sh_teardown(h);
	h = pi_setup(T10PI_TYPE2);
	cdb16(c, 0x8f, PROT(1), 0, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect(&r, 0x5, 0x20, 0x00);
	sh_teardown(h);
}

/* BYTCHK 00b: the stored tuples are checked as VRPROTECT asks: a wrong
 * reference tag (stored unchecked with WRPROTECT 011b at LBA 5) fails
 * 000b, 001b, 010b (10h/03h, INFORMATION 5), not 011b or 100b; a flipped
 * data byte's guard fails 001b and 100b but not 010b */
static void test_verify_medium(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE1);
	uint8_t c[16], out[3 * (BSZ + 8)];
	struct loop_result r;

	(void)state;
	wire_lba(out, 3, 0x40, 0x0000, 4);
	out[(BSZ + 8) + BSZ + 7] ^= 0x80; /* LBA 5's reference tag */
	cdb10(c, 0x2a, PROT(3), 4, 3);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	for (uint8_t p = 0; p <= 2; p++) {
		cdb10(c, 0x2f, PROT(p), 4, 3);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
		expect_info(&r, 0x03, 5);
	}
	for (uint8_t p = 3; p <= 4; p++) {
		cdb10(c, 0x2f, PROT(p), 4, 3);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
		sh_expect_good(&r);
	}
	/* LBA 6's data changed under its tuple (WRPROTECT 011b: unchecked) */
	out[(BSZ + 8) + BSZ + 7] ^= 0x80;
	out[2 * (BSZ + 8) + 9] ^= 0x01;
	cdb10(c, 0x2a, PROT(3), 4, 3);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb16(c, 0x8f, PROT(1), 4, 3);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	expect_info(&r, 0x01, 6);
	cdb16(c, 0x8f, PROT(4), 4, 3);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	expect_info(&r, 0x01, 6);
	cdb16(c, 0x8f, PROT(2), 4, 3);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* BYTCHK 01b with VRPROTECT 001b: the Data-Out's own tuples are checked
 * first (a bad guard: ABORTED COMMAND 10h/01h), the data compared (1Dh/00h,
 * INFORMATION the byte offset), then the tuples compared with the stored
 * ones field by field (a different application tag: MISCOMPARE 10h/02h
 * with the LBA; 100b compares the guard only); VRPROTECT 000b sends data
 * only and checks the stored tuples */
static void test_verify_bytchk(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE1);
	uint8_t c[16], out[2 * (BSZ + 8)], cmp[2 * (BSZ + 8)], data[2 * BSZ];
	struct loop_result r;

	(void)state;
	wire_lba(out, 2, 0x90, 0x1111, 10);
	cdb10(c, 0x2a, PROT(1), 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb10(c, 0x2f, PROT(1) | 0x02, 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	/* the Data-Out's guard of block 1 wrong */
	memcpy(cmp, out, sizeof(cmp));
	cmp[(BSZ + 8) + BSZ] ^= 0xff;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cmp, sizeof(cmp), &r);
	expect_info(&r, 0x01, 11);
	/* the application tag of block 1 differs from the stored one */
	wire_lba(cmp, 2, 0x90, 0x2222, 10);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cmp, sizeof(cmp), &r);
	sh_expect(&r, 0xe, 0x10, 0x02);
	assert_int_equal(get_be32(r.sense + 3), 10);
	cdb10(c, 0x2f, PROT(4) | 0x02, 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cmp, sizeof(cmp), &r);
	sh_expect_good(&r);
	/* other data with its own good tuples: a data miscompare */
	wire_lba(cmp, 2, 0x91, 0x1111, 10);
	cdb10(c, 0x2f, PROT(1) | 0x02, 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cmp, sizeof(cmp), &r);
	sh_expect(&r, 0xe, 0x1d, 0x00);
	assert_int_equal(get_be32(r.sense + 3), 0);
	/* VRPROTECT 000b: data only on the wire */
	memcpy(data, out, BSZ);
	memcpy(data + BSZ, out + BSZ + 8, BSZ);
	cdb10(c, 0x2f, 0x02, 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, data, sizeof(data), &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* VERIFY(32) 7Fh/000Ah on type 2: the CDB's expected reference tag and
 * application tag under its mask, BYTCHK 00b and 01b */
static void test_verify32(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE2);
	uint8_t c[32], out[2 * (BSZ + 8)];
	struct loop_result r;

	(void)state;
	wire_blocks(out, 2, 0x33, 0xab00, 0x7000);
	cdb32(c, SA_WRITE32, 1, 40, 2, 0x7000, 0xab00, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb32(c, SA_VERIFY32, 1, 40, 2, 0x7000, 0xab00, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	cdb32(c, SA_VERIFY32, 1, 41, 1, 0x7000, 0xab00, 0xffff);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_NONE, NULL, 0, &r);
	expect_info(&r, 0x03, 41);
	cdb32(c, SA_VERIFY32, 0, 40, 2, 0x7000, 0xac00, 0x0f00);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_NONE, NULL, 0, &r);
	expect_info(&r, 0x02, 40);
	cdb32(c, SA_VERIFY32, 0, 40, 2, 0x7000, 0xac00, 0xf000);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	/* BYTCHK 01b (byte 10 bits 2-1) with the tuples */
	cdb32(c, SA_VERIFY32, 1, 40, 2, 0x7000, 0xab00, 0xffff);
	c[10] |= 0x02;
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	/* the Data-Out's reference tags do not start at the CDB's */
	put_be32(c + 20, 0x7001);
	sh_cmd(h->p1, 0, c, 32, SCSI_DIR_WRITE, out, sizeof(out), &r);
	expect_info(&r, 0x03, 40);
	sh_teardown(h);
}

/* ---- copy sources (xcopy.c, sbc_pi_copy_source()) ---- */

/* The LU's NAA designation descriptor (VPD 83h, association LU) */
static void pi_designator(struct sh *h, uint8_t desig[20])
{
	uint8_t c[6] = {0x12, 0x01, 0x83, 0x00, 0xff, 0x00}, d[255];
	struct loop_result r;
	size_t off = 4, end;

	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	end = 4 + get_be16(d + 2);
	for (; off + 4 <= end; off += 4 + d[off + 3])
		if ((d[off + 1] & 0x30) == 0 && (d[off + 1] & 0x0f) == 3 && d[off + 3] == 16) {
			memcpy(desig, d + off, 20);
			return;
		}
	fail_msg("no NAA designator");
}

/* EXTENDED COPY(LID1) within LUN 0: one E4h target descriptor, one
 * block-to-block segment of n blocks */
static void pi_xcopy(struct sh *h, uint64_t src, uint64_t dst, uint16_t n, struct loop_result *r)
{
	uint8_t b[16 + 32 + 28] = {0}, c[16] = {0x83};

	put_be16(b + 2, 32);
	put_be32(b + 8, 28);
	b[16] = 0xe4;
	pi_designator(h, b + 20);
	put_be24(b + 16 + 29, BSZ);
	b[48] = 0x02;
	put_be16(b + 50, 0x18);
	put_be16(b + 58, n);
	put_be64(b + 60, src);
	put_be64(b + 68, dst);
	b[1] = 3 << 3; /* LIST ID USAGE 11b */
	put_be32(c + 10, sizeof(b));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), r);
}

/* A copy source block whose stored reference tag is wrong (written with
 * WRPROTECT 011b: unchecked) fails the copy with COPY ABORTED 10h/03h and
 * the destination stays unwritten; a corrupt guard is 10h/01h; a good
 * source (generated tuples) copies, and the destination's tuples are
 * right for a READ with RDPROTECT 000b there */
static void test_xcopy_source_checked(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE1);
	uint8_t c[16], out[4 * (BSZ + 8)], in[4 * BSZ];
	struct loop_result r;

	(void)state;
	wire_lba(out, 4, 0x50, 0x0000, 4);
	out[2 * (BSZ + 8) + BSZ + 7] ^= 0x01; /* LBA 6's reference tag */
	cdb10(c, 0x2a, PROT(3), 4, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_xcopy(h, 4, 20, 4, &r);
	sh_expect(&r, 0xa, 0x10, 0x03);
	assert_true(sh_blocks_are(h, 0, 20, 4, 0));
	/* the guard of LBA 5 */
	wire_lba(out, 4, 0x50, 0x0000, 4);
	out[(BSZ + 8) + BSZ] ^= 0x01;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_xcopy(h, 4, 20, 4, &r);
	sh_expect(&r, 0xa, 0x10, 0x01);
	assert_true(sh_blocks_are(h, 0, 20, 4, 0));
	/* an escape tuple (application tag FFFFh) is not checked */
	wire_lba(out, 4, 0x50, 0xffff, 4);
	out[(BSZ + 8) + BSZ + 7] ^= 0x01;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_xcopy(h, 4, 20, 4, &r);
	sh_expect_good(&r);
	/* generated tuples: good, and the destination reads back */
	sh_fill(h, 0, 40, 4, 'P');
	pi_xcopy(h, 40, 30, 4, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 30, 4, 'P'));
	cdb10(c, 0x28, PROT(0), 30, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* POPULATE TOKEN of lba..lba+n-1 on LUN 0, its ROD token through RECEIVE
 * ROD TOKEN INFORMATION */
static void pi_token(struct sh *h, uint32_t list_id, uint64_t lba, uint32_t n, uint8_t tok[512])
{
	uint8_t b[32] = {0}, c[16] = {0x83, 0x10}, d[550];
	struct loop_result r;

	put_be16(b, 30);
	put_be16(b + 14, 16);
	put_be64(b + 16, lba);
	put_be32(b + 24, n);
	put_be32(c + 6, list_id);
	put_be32(c + 10, sizeof(b));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), &r);
	sh_expect_good(&r);
	memset(c, 0, sizeof(c));
	c[0] = 0x84;
	c[1] = 0x07;
	put_be32(c + 2, list_id);
	put_be32(c + 10, sizeof(d));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	memcpy(tok, d + 38, 512);
}

/* WRITE USING TOKEN of tok to lba..lba+n-1 on LUN 0 */
static void pi_wut(struct sh *h, uint32_t list_id, const uint8_t tok[512], uint64_t lba, uint32_t n,
		   struct loop_result *r)
{
	uint8_t b[536 + 16] = {0}, c[16] = {0x83, 0x11};

	put_be16(b, sizeof(b) - 2);
	memcpy(b + 16, tok, 512);
	put_be16(b + 534, 16);
	put_be64(b + 536, lba);
	put_be32(b + 544, n);
	put_be32(c + 6, list_id);
	put_be32(c + 10, sizeof(b));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, b, sizeof(b), r);
}

/* WRITE USING TOKEN reads the token's blocks with their tuples: a wrong
 * reference tag (type 1) is COPY ABORTED 10h/03h and nothing is written; a
 * good token copies. Type 3: only the guard is checked (the reference tag
 * written with WRPROTECT 011b is not) */
static void test_wut_source_checked(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE1);
	uint8_t c[16], out[4 * (BSZ + 8)], tok[512];
	struct loop_result r;

	(void)state;
	wire_lba(out, 4, 0x60, 0x0000, 8);
	out[3 * (BSZ + 8) + BSZ + 4] ^= 0x10; /* LBA 11's reference tag */
	cdb10(c, 0x2a, PROT(3), 8, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_token(h, 1, 8, 4, tok);
	pi_wut(h, 2, tok, 24, 4, &r);
	sh_expect(&r, 0xa, 0x10, 0x03);
	assert_true(sh_blocks_are(h, 0, 24, 4, 0));
	sh_fill(h, 0, 40, 4, 'Q');
	pi_token(h, 3, 40, 4, tok);
	pi_wut(h, 4, tok, 24, 4, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 24, 4, 'Q'));
	sh_teardown(h);

	h = pi_setup(T10PI_TYPE3);
	wire_lba(out, 4, 0x60, 0x0000, 1000);
	cdb10(c, 0x2a, PROT(3), 8, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_token(h, 1, 8, 4, tok);
	pi_wut(h, 2, tok, 24, 4, &r);
	sh_expect_good(&r);
	out[BSZ + 1] ^= 0x01; /* LBA 8's guard */
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	pi_token(h, 3, 8, 4, tok);
	pi_wut(h, 4, tok, 32, 4, &r);
	sh_expect(&r, 0xa, 0x10, 0x01);
	assert_true(sh_blocks_are(h, 0, 32, 4, 0));
	sh_teardown(h);
}

/* ---- COMPARE AND WRITE with WRPROTECT (caw.c) ---- */

static void cdb_caw_pi(uint8_t *c, uint8_t protect, uint64_t lba, uint8_t n)
{
	memset(c, 0, 16);
	c[0] = 0x89;
	c[1] = PROT(protect);
	put_be64(c + 2, lba);
	c[13] = n;
}

/* Type 1, 2 blocks at LBA 10: the Data-Out is the verify instance then the
 * write instance, each block followed by its tuple (golden layout: 2 x 2 x
 * 520 bytes); a good command writes the write instance's tuples as sent
 * (READ RDPROTECT 011b returns them); a bad reference tag in the write
 * instance is ABORTED COMMAND 10h/03h with the LBA and nothing is written;
 * the verify instance's data differing is MISCOMPARE; WRPROTECT 000b keeps
 * data-only Data-Out; a bad stored tuple fails the read (10h/01h); type 2
 * refuses WRPROTECT in this CDB (INVALID COMMAND OPERATION CODE) */
static void test_caw_wrprotect(void **state)
{
	struct sh *h = pi_setup(T10PI_TYPE1);
	uint8_t c[16], out[4 * (BSZ + 8)], in[2 * (BSZ + 8)], cur[2 * (BSZ + 8)];
	uint8_t plain[4 * BSZ];
	struct loop_result r;

	(void)state;
	wire_lba(cur, 2, 0x70, 0x0000, 10);
	cdb10(c, 0x2a, PROT(1), 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cur, sizeof(cur), &r);
	sh_expect_good(&r);
	/* verify instance = what is stored; write instance: new data, app tag 1234h */
	memcpy(out, cur, sizeof(cur));
	wire_lba(out + 2 * (BSZ + 8), 2, 0x90, 0x1234, 10);
	cdb_caw_pi(c, 1, 10, 2);
	/* the wrong Data-Out size (data only) */
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, 4 * BSZ, &r);
	sh_expect(&r, 0x5, 0x24, 0x00);
	/* a bad reference tag in the write instance (LBA 11) */
	out[3 * (BSZ + 8) + BSZ + 7] ^= 0x01;
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, sizeof(out), &r);
	expect_info(&r, 0x03, 11);
	cdb10(c, 0x28, PROT(3), 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	assert_memory_equal(in, cur, sizeof(cur));
	/* good */
	out[3 * (BSZ + 8) + BSZ + 7] ^= 0x01;
	cdb_caw_pi(c, 1, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect_good(&r);
	cdb10(c, 0x28, PROT(3), 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, in, sizeof(in), &r);
	sh_expect_good(&r);
	assert_memory_equal(in, out + 2 * (BSZ + 8), sizeof(in));
	assert_int_equal(get_be16(in + BSZ + 2), 0x1234);
	assert_int_equal(get_be32(in + (BSZ + 8) + BSZ + 4), 11);
	/* the verify instance no longer matches: MISCOMPARE, nothing written */
	cdb_caw_pi(c, 1, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect(&r, 0xe, 0x1d, 0x00);
	/* WRPROTECT 000b: data only, the tuples generated */
	memcpy(plain, out + 2 * (BSZ + 8), BSZ);
	memcpy(plain + BSZ, out + 3 * (BSZ + 8), BSZ);
	memset(plain + 2 * BSZ, 'W', 2 * BSZ);
	cdb_caw_pi(c, 0, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, plain, sizeof(plain), &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 10, 2, 'W'));
	/* a stored guard that does not match (written unchecked) */
	wire_lba(cur, 2, 0x70, 0x0000, 10);
	cur[BSZ] ^= 0xff;
	cdb10(c, 0x2a, PROT(3), 10, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, cur, sizeof(cur), &r);
	sh_expect_good(&r);
	memcpy(out, cur, sizeof(cur));
	cdb_caw_pi(c, 3, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, sizeof(out), &r);
	expect_info(&r, 0x01, 10);
	sh_teardown(h);

	h = pi_setup(T10PI_TYPE2);
	cdb_caw_pi(c, 1, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, out, sizeof(out), &r);
	sh_expect(&r, 0x5, 0x20, 0x00);
	sh_teardown(h);
	h = pi_setup(T10PI_NONE);
	cdb_caw_pi(c, 1, 10, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, plain, sizeof(plain), &r);
	expect_field(&r, 1);
	sh_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_type2_reports),	 cmocka_unit_test(test_type2_short_cdbs),
	    cmocka_unit_test(test_cdb32_needs_type2),	 cmocka_unit_test(test_cdb32_fields),
	    cmocka_unit_test(test_cdb32_tags),		 cmocka_unit_test(test_cdb32_write_refused),
	    cmocka_unit_test(test_cdb32_generated),	 cmocka_unit_test(test_rsoc_cdb32),
	    cmocka_unit_test(test_verify_refusals),	 cmocka_unit_test(test_verify_medium),
	    cmocka_unit_test(test_verify_bytchk),	 cmocka_unit_test(test_verify32),
	    cmocka_unit_test(test_xcopy_source_checked), cmocka_unit_test(test_wut_source_checked),
	    cmocka_unit_test(test_caw_wrprotect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
