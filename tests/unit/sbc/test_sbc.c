/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sbc.c: READ/WRITE (6/10/12/16), READ CAPACITY (10/16), SYNCHRONIZE
 * CACHE, PRE-FETCH, WRITE ATOMIC and the LBA range lock (sbc.c), through
 * the loop fabric. Set-up: sbc_harness.h (two initiators on one target
 * port, LUN 0 on the RAM back-store or the test back-store). */
#include "sbc_harness.h"

#include <errno.h>

#include "scsi/limits.h"

static const struct sh_opts fake_opts = {.caps = BS_CAP_FLUSH};

/* ---- READ / WRITE ---- */

static void test_rw_round_trip_ram(void **state)
{
	struct sh_opts o = {.ram = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t wbuf[8 * 512], rbuf[8 * 512], c[16];

	(void)state;
	for (size_t i = 0; i < sizeof(wbuf); i++)
		wbuf[i] = (uint8_t)(i * 7 + 3);
	/* WRITE(10) 8 blocks at 100, READ(12)/READ(16)/READ(10) them back */
	cdb10(c, 0x2a, 0, 100, 8);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, wbuf, sizeof(wbuf), &r);
	sh_expect_good(&r);
	memset(rbuf, 0, sizeof(rbuf));
	cdb12(c, 0xa8, 0, 100, 8);
	sh_cmd(h->p2, 0, c, 12, SCSI_DIR_READ, rbuf, sizeof(rbuf), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, sizeof(rbuf));
	assert_memory_equal(rbuf, wbuf, sizeof(wbuf));
	memset(rbuf, 0, sizeof(rbuf));
	sh_read(h, h->p1, 0, 100, 8, rbuf, &r);
	sh_expect_good(&r);
	assert_memory_equal(rbuf, wbuf, sizeof(wbuf));
	/* WRITE(12) + READ(10) of the last 2 blocks */
	cdb12(c, 0xaa, 0, (uint32_t)h->blocks - 2, 2);
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_WRITE, wbuf + 512, 1024, &r);
	sh_expect_good(&r);
	cdb10(c, 0x28, 0, (uint32_t)h->blocks - 2, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, rbuf, 1024, &r);
	sh_expect_good(&r);
	assert_memory_equal(rbuf, wbuf + 512, 1024);
	sh_teardown(h);
}

static void test_rw6(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t *buf = malloc(256 * 512);
	uint8_t c[6] = {0x0a, 0x00, 0x00, 0x10, 0x00, 0x00};

	(void)state;
	memset(buf, 0x5a, 256 * 512);
	/* SBC-4 5.38: WRITE(6) TRANSFER LENGTH 0 means 256 blocks */
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_WRITE, buf, 256 * 512, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 16, 256, 0x5a));
	assert_true(sh_blocks_are(h, 0, 272, 1, 0x00));
	/* READ(6) of 3 blocks at 0x10 */
	c[0] = 0x08;
	c[4] = 3;
	memset(buf, 0, 3 * 512);
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, buf, 3 * 512, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 3 * 512);
	assert_int_equal(buf[0], 0x5a);
	/* READ(6) beyond the end */
	c[1] = 0x00;
	put_be16(c + 2, (uint16_t)(h->blocks - 1));
	c[4] = 2;
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, buf, 1024, &r);
	SH_LBA_OOB(&r);
	free(buf);
	sh_teardown(h);
}

static void test_rw_zero_length(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t c[16];

	(void)state;
	fsb_reset_counts(h->bs[0]);
	/* SBC-4 5.13/5.39: zero blocks transfer nothing and succeed */
	cdb10(c, 0x28, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	cdb10(c, 0x2a, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	/* at the capacity itself the empty range is inside */
	cdb16(c, 0x88, 0, h->blocks, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 0);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	/* ... one past it is not (libiscsi Read10.0Blocks) */
	cdb10(c, 0x28, 0, (uint32_t)h->blocks + 1, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb10(c, 0x2a, 0, 0xffffffffu, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	sh_teardown(h);
}

static void test_rw_out_of_range(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t buf[4 * 512] = {0}, c[16];

	(void)state;
	cdb10(c, 0x28, 0, (uint32_t)h->blocks - 1, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, buf, 1024, &r);
	SH_LBA_OOB(&r);
	cdb10(c, 0x2a, 0, (uint32_t)h->blocks - 3, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, 2048, &r);
	SH_LBA_OOB(&r);
	/* LBA + length wrapping around 2^64 */
	cdb16(c, 0x88, 0, UINT64_MAX, 2);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, buf, 1024, &r);
	SH_LBA_OOB(&r);
	cdb16(c, 0x8a, 0, 1ull << 63, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, 512, &r);
	SH_LBA_OOB(&r);
	sh_teardown(h);
}

static void test_rw_fields(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t buf[512] = {0}, c[16];

	(void)state;
	/* TRANSFER LENGTH beyond MAXIMUM TRANSFER LENGTH: field pointer on it */
	cdb12(c, 0xa8, 0, 0, (SCSI_MAX_XFER_BYTES / 512) + 1);
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, buf, sizeof(buf), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 6, -1);
	cdb16(c, 0x8a, 0, 0, (SCSI_MAX_XFER_BYTES / 512) + 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 10, -1);
	/* RDPROTECT / WRPROTECT: no protection information; the pointer at
	 * the field's left-most bit (SPC-4 4.5.2.4.2) */
	for (uint8_t p = 1; p < 8; p++) {
		cdb10(c, 0x28, (uint8_t)(p << 5), 0, 1);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
		SH_INVALID_CDB(&r);
		sh_expect_fp(&r, true, 1, 7);
		cdb16(c, 0x8a, (uint8_t)(p << 5), 0, 1);
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
		SH_INVALID_CDB(&r);
	}
	/* DPO, FUA, FUA_NV are accepted (MODE SENSE DPOFUA=1) */
	cdb10(c, 0x2a, 0x1a, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	cdb10(c, 0x28, 0x18, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	/* reserved bit 2 of byte 1 */
	cdb10(c, 0x28, 0x04, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, buf, sizeof(buf), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 2);
	sh_teardown(h);
}

static void test_write_protect(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .read_only = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t buf[512] = {0}, c[16];

	(void)state;
	cdb10(c, 0x2a, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	SH_WRITE_PROTECTED(&r);
	cdb16(c, 0x9c, 0, 0, 0);
	put_be16(c + 12, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	SH_WRITE_PROTECTED(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 0);
	sh_read(h, h->p1, 0, 0, 1, buf, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* FUA natively, FUA emulated with a FLUSH, and WCE=0 */
static void test_fua(void **state)
{
	struct sh_opts o1 = {.caps = BS_CAP_FLUSH};
	struct sh_opts o2 = {.caps = BS_CAP_FLUSH | BS_CAP_FUA};
	struct sh_opts o3 = {.caps = BS_CAP_FLUSH, .no_wce = true};
	struct sh *h;
	struct loop_result r;
	uint8_t buf[512] = {0}, c[16];

	(void)state;
	h = sh_setup(&o1);
	cdb10(c, 0x2a, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 0);
	cdb10(c, 0x2a, 0x08, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	assert_int_equal(fsb_fua_writes(h->bs[0]), 0);
	sh_teardown(h);

	h = sh_setup(&o2);
	cdb10(c, 0x2a, 0x08, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 0);
	assert_int_equal(fsb_fua_writes(h->bs[0]), 1);
	sh_teardown(h);

	h = sh_setup(&o3);
	cdb10(c, 0x2a, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	sh_teardown(h);
}

/* WCE=0 set by MODE SELECT (Caching page, SBC-4 6.5.5) makes every later
 * WRITE write through, as FUA would: natively, or by a FLUSH after it;
 * WCE=1 again ends that. */
static void test_wce_mode_select(void **state)
{
	struct sh_opts o1 = {.caps = BS_CAP_FLUSH};
	struct sh_opts o2 = {.caps = BS_CAP_FLUSH | BS_CAP_FUA};
	uint8_t sel[4 + 20] = {0, 0, 0, 0, 0x08, 0x12, 0x00};
	uint8_t ms[6] = {0x15, 0x10, 0, 0, sizeof(sel), 0};
	struct sh *h;
	struct loop_result r;
	uint8_t buf[512] = {0}, c[16];

	(void)state;
	h = sh_setup(&o1);
	sh_cmd(h->p1, 0, ms, 6, SCSI_DIR_WRITE, sel, sizeof(sel), &r);
	sh_expect_good(&r);
	cdb10(c, 0x2a, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	/* WCE=1: written back, no flush */
	sel[6] = 0x04;
	sh_cmd(h->p1, 0, ms, 6, SCSI_DIR_WRITE, sel, sizeof(sel), &r);
	sh_expect_good(&r);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	sh_teardown(h);

	h = sh_setup(&o2);
	sel[6] = 0x00;
	sh_cmd(h->p1, 0, ms, 6, SCSI_DIR_WRITE, sel, sizeof(sel), &r);
	sh_expect_good(&r);
	cdb10(c, 0x2a, 0, 0, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, sizeof(buf), &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_fua_writes(h->bs[0]), 1);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 0);
	sh_teardown(h);
}

/* A Data-Out shorter than the TRANSFER LENGTH: the whole blocks received
 * are written, the rest of the range is untouched (Write10.Residuals). */
static void test_write_residual(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t buf[1024], c[16];

	(void)state;
	sh_fill(h, 0, 0, 2, 'a');
	memset(buf, 'b', sizeof(buf));
	cdb10(c, 0x2a, 0, 0, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_WRITE, buf, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, 512);
	assert_true(sh_blocks_are(h, 0, 0, 1, 'b'));
	assert_true(sh_blocks_are(h, 0, 1, 1, 'a'));
	sh_teardown(h);
}

static void test_medium_errors(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t buf[4 * 512] = {0};

	(void)state;
	/* a read error 2 blocks into the transfer: INFORMATION = failing LBA */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 2 * 512);
	sh_read(h, h->p1, 0, 40, 4, buf, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	assert_int_equal(sh_info(&r), 42);
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 0);
	sh_write(h, h->p1, 0, 7, 1, buf, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	assert_int_equal(sh_info(&r), 7);
	/* a thin back-store out of space */
	fsb_fail(h->bs[0], BS_OP_WRITE, -ENOSPC, 1, 0);
	sh_write(h, h->p1, 0, 7, 1, buf, &r);
	sh_expect(&r, 0x07, 0x27, 0x07);
	/* the range lock was released on the error paths */
	sh_write(h, h->p2, 0, 40, 4, buf, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

static void test_block_size_4096(void **state)
{
	struct sh_opts o = {.ram = true, .block_size = 4096, .blocks = 256};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t c[16], d[32];

	(void)state;
	sh_fill(h, 0, 10, 3, 0xc3);
	assert_true(sh_blocks_are(h, 0, 10, 3, 0xc3));
	assert_true(sh_blocks_are(h, 0, 13, 1, 0x00));
	cdb16(c, 0x9e, 0x10, 0, 32);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(get_be64(d), 255);
	assert_int_equal(get_be32(d + 8), 4096);
	sh_teardown(h);
}

/* ---- READ CAPACITY ---- */

static void test_read_capacity10(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t c[10] = {0x25}, d[8];

	(void)state;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 8);
	assert_int_equal(get_be32(d), h->blocks - 1);
	assert_int_equal(get_be32(d + 4), 512);
	/* (obsolete) PMI=0 with a non-zero LBA */
	put_be32(c + 2, 5);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, sizeof(d), &r);
	SH_INVALID_CDB(&r);
	c[8] = 0x01;
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* A capacity of more than 2^32 blocks (the null back-store allocates
 * nothing): READ CAPACITY (10) returns FFFFFFFFh. */
static void test_read_capacity_large(void **state)
{
	struct scsi_target *t = scsi_target_create("iqn.test:big");
	struct scsi_lun_map *m = scsi_lun_map_create();
	struct bs_params p = {.type = "null", .name = "big", .size = 5ull << 40};
	struct scsi_lu_attrs a = {.block_size = 512, .write_cache = true};
	struct loop_result r;
	struct loop_port *lp;
	struct scsi_lu *lu;
	struct bs_dev *bs;
	uint8_t c[16] = {0x25}, d[32];

	(void)state;
	assert_int_equal(bs_open(&p, &bs), 0);
	assert_int_equal(scsi_lu_create("big", bs, &a, &lu), 0);
	assert_int_equal(scsi_lun_map_add(m, 0, lu, false), 0);
	scsi_target_set_default_map(t, m, true);
	lp = loop_create(t, 1, "iqn.test:a");
	sh_clear_ua(lp, 0);
	sh_cmd(lp, 0, c, 10, SCSI_DIR_READ, d, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(get_be32(d), 0xffffffffu);
	cdb16(c, 0x9e, 0x10, 0, 32);
	sh_cmd(lp, 0, c, 16, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(get_be64(d), (5ull << 40) / 512 - 1);
	loop_destroy(lp);
	scsi_lun_map_put(m);
	scsi_lu_put(lu);
	scsi_target_destroy(t);
}

static void test_read_capacity16(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t c[16], d[64];

	(void)state;
	cdb16(c, 0x9e, 0x10, 0, 32);
	memset(d, 0xee, sizeof(d));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 32);
	assert_int_equal(get_be64(d), h->blocks - 1);
	assert_int_equal(get_be32(d + 8), 512);
	assert_int_equal(d[12], 0x10); /* RC BASIS 01b, no protection */
	assert_int_equal(d[13], 0x00); /* one logical block per physical block */
	assert_int_equal(d[14], 0xc0); /* LBPME, LBPRZ */
	assert_int_equal(d[15], 0x00);
	for (int i = 16; i < 32; i++)
		assert_int_equal(d[i], 0);
	/* allocation lengths 0..15 truncate and are not errors */
	for (uint32_t al = 0; al < 16; al++) {
		put_be32(c + 10, al);
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, al, &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, al);
	}
	/* a large allocation length: 32 bytes, underflow */
	put_be32(c + 10, 0xffffffffu);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 32);
	sh_teardown(h);

	/* fully provisioned: LBPME 0, LBPRZ 0 */
	h = sh_setup(&fake_opts);
	put_be32(c + 10, 32);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, 32, &r);
	sh_expect_good(&r);
	assert_int_equal(d[14], 0x00);
	/* an unsupported SERVICE ACTION IN (16) service action */
	c[1] = 0x11;
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, 32, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 4);
	sh_teardown(h);
}

/* ---- SYNCHRONIZE CACHE ---- */

static void test_sync_cache(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t c[16];

	(void)state;
	cdb10(c, 0x35, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 1);
	cdb16(c, 0x91, 0, 10, 20);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 2);
	/* range checked */
	cdb10(c, 0x35, 0, (uint32_t)h->blocks, 1);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb16(c, 0x91, 0, h->blocks + 1, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	/* IMMED (and the obsolete SYNC_NV): GOOD, the flush follows */
	cdb10(c, 0x35, 0x06, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	for (int i = 0; i < 100 && fsb_count(h->bs[0], BS_OP_FLUSH) < 3; i++)
		usleep(1000);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 3);
	/* a failing flush */
	fsb_fail(h->bs[0], BS_OP_FLUSH, -EIO, 1, 0);
	cdb10(c, 0x35, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	sh_teardown(h);

	/* no volatile cache: nothing to flush */
	{
		struct sh_opts o = {.caps = 0};

		h = sh_setup(&o);
		cdb10(c, 0x35, 0, 0, 0);
		sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
		sh_expect_good(&r);
		assert_int_equal(fsb_count(h->bs[0], BS_OP_FLUSH), 0);
		sh_teardown(h);
	}
}

/* ---- PRE-FETCH ---- */

static void test_prefetch(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t c[16];

	(void)state;
	/* fits the cache: read through, CONDITION MET */
	cdb10(c, 0x34, 0, 0, 256);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_CONDITION_MET);
	assert_true(fsb_count(h->bs[0], BS_OP_READ) >= 1);
	/* zero length: to the end of the medium (2 MiB here) */
	fsb_reset_counts(h->bs[0]);
	cdb16(c, 0x90, 0, 100, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_CONDITION_MET);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 2); /* 1 MiB chunks */
	/* IMMED: answered at once */
	fsb_reset_counts(h->bs[0]);
	cdb10(c, 0x34, 0x02, 0, 1);
	c[6] = 3; /* GROUP NUMBER */
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	assert_int_equal(r.status, SAM_STAT_CONDITION_MET);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 0);
	/* out of range, beyond MAXIMUM PREFETCH LENGTH */
	cdb10(c, 0x34, 0, (uint32_t)h->blocks - 1, 2);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb16(c, 0x90, 0, 0xffffffffffffffffull, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	SH_LBA_OOB(&r);
	cdb16(c, 0x90, 0, 0, (SCSI_MAX_XFER_BYTES / 512) + 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 10, -1);
	/* a read error while prefetching */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 512);
	cdb10(c, 0x34, 0, 8, 4);
	sh_cmd(h->p1, 0, c, 10, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	assert_int_equal(sh_info(&r), 9);
	sh_teardown(h);
}

static void test_prefetch_too_big_for_cache(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH, .blocks = (SCSI_MAX_XFER_BYTES / 512) * 2};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t c[16];

	(void)state;
	/* to the end: more than MAXIMUM PREFETCH LENGTH, the cache cannot
	 * hold it: GOOD and nothing read */
	cdb16(c, 0x90, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_READ), 0);
	sh_teardown(h);
}

/* ---- WRITE ATOMIC (16) ---- */

static void cdb_atomic(uint8_t *c, uint8_t b1, uint64_t lba, uint16_t n)
{
	memset(c, 0, 16);
	c[0] = 0x9c;
	c[1] = b1;
	put_be64(c + 2, lba);
	put_be16(c + 12, n);
}

static void test_write_atomic(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint32_t max = SBC_MAX_ATOMIC_BYTES / 512;
	uint8_t *buf = calloc(1, (size_t)(max + 1) * 512);
	uint8_t c[16];

	(void)state;
	memset(buf, 0x77, (size_t)max * 512);
	cdb_atomic(c, 0, 0, (uint16_t)max);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, max * 512, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, max, 0x77));
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 1); /* one request */
	/* beyond MAXIMUM ATOMIC TRANSFER LENGTH */
	cdb_atomic(c, 0, 0, (uint16_t)(max + 1));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, (max + 1) * 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 12, -1);
	/* the range first (WriteAtomic16.BeyondEol) */
	cdb_atomic(c, 0, h->blocks - 1, (uint16_t)(max + 1));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, (max + 1) * 512, &r);
	SH_LBA_OOB(&r);
	/* zero blocks */
	cdb_atomic(c, 0, 0, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	/* ATOMIC BOUNDARY is not supported */
	cdb_atomic(c, 0, 0, 1);
	c[11] = 1;
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, 512, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 11, 0);
	/* FUA */
	cdb_atomic(c, 0x18, 5, 1);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, buf, 512, &r);
	sh_expect_good(&r);
	free(buf);
	sh_teardown(h);
}

/* ---- the LBA range lock ---- */

/* A WRITE ATOMIC in flight (I/O held) holds an exclusive lock: a WRITE from
 * the other initiator (another reactor thread) to an overlapping range
 * waits; one to another range does not. */
static void test_range_lock(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r1, r2, r3;
	uint8_t a[4 * 512], b[2 * 512], d[512], c1[16], c2[16], c3[16];
	struct loop_task *t1, *t2, *t3;

	(void)state;
	memset(a, 'A', sizeof(a));
	memset(b, 'B', sizeof(b));
	memset(d, 'D', sizeof(d));
	fsb_hold(h->bs[0], true);
	cdb_atomic(c1, 0, 10, 4);
	t1 = loop_submit_async(h->p1, 0, c1, 16, SCSI_DIR_WRITE, a, sizeof(a), SCSI_ATTR_SIMPLE, 1,
			       0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	cdb16(c2, 0x8a, 0, 12, 2);
	t2 = loop_submit_async(h->p2, 0, c2, 16, SCSI_DIR_WRITE, b, sizeof(b), SCSI_ATTR_SIMPLE, 2,
			       0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1); /* the WRITE waits */
	assert_false(loop_task_done(t2));
	cdb16(c3, 0x8a, 0, 100, 1);
	t3 = loop_submit_async(h->p2, 0, c3, 16, SCSI_DIR_WRITE, d, sizeof(d), SCSI_ATTR_SIMPLE, 3,
			       0);
	assert_int_equal(fsb_wait_held(h->bs[0], 2), 2); /* another range goes on */
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t1, &r1);
	loop_wait(t2, &r2);
	loop_wait(t3, &r3);
	sh_expect_good(&r1);
	sh_expect_good(&r2);
	sh_expect_good(&r3);
	/* the WRITE came after the atomic write */
	assert_true(sh_blocks_are(h, 0, 10, 2, 'A'));
	assert_true(sh_blocks_are(h, 0, 12, 2, 'B'));
	sh_teardown(h);
}

/* Shared locks do not exclude each other: two overlapping WRITEs are both
 * in flight; a WRITE ATOMIC behind them waits for both, and a READ arriving
 * after the WRITE ATOMIC waits for it (first come, first served). */
static void test_range_lock_fifo(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t w1[512], w2[512], at[512], rd[512], c[16];
	struct loop_task *t[4];

	(void)state;
	memset(w1, '1', sizeof(w1));
	memset(w2, '2', sizeof(w2));
	memset(at, 'X', sizeof(at));
	fsb_hold(h->bs[0], true);
	cdb16(c, 0x8a, 0, 50, 1);
	t[0] = loop_submit_async(h->p1, 0, c, 16, SCSI_DIR_WRITE, w1, 512, SCSI_ATTR_SIMPLE, 1, 0);
	t[1] = loop_submit_async(h->p2, 0, c, 16, SCSI_DIR_WRITE, w2, 512, SCSI_ATTR_SIMPLE, 2, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 2), 2);
	cdb_atomic(c, 0, 50, 1);
	t[2] = loop_submit_async(h->p1, 0, c, 16, SCSI_DIR_WRITE, at, 512, SCSI_ATTR_SIMPLE, 3, 0);
	sh_settle();
	cdb16(c, 0x88, 0, 50, 1);
	t[3] = loop_submit_async(h->p2, 0, c, 16, SCSI_DIR_READ, rd, 512, SCSI_ATTR_SIMPLE, 4, 0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 2);
	/* the two WRITEs complete: the atomic write goes, the READ still waits */
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1);
	assert_false(loop_task_done(t[3]));
	fsb_release(h->bs[0]);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	for (int i = 0; i < 4; i++) {
		loop_wait(t[i], &r);
		sh_expect_good(&r);
	}
	assert_memory_equal(rd, at, 512);
	sh_teardown(h);
}

/* A shared lock taken while no exclusive one is about records no range: a
 * WRITE ATOMIC waits for a READ in flight even to another range, and goes
 * once it is over. */
static void test_range_lock_fast_shared(void **state)
{
	struct sh *h = sh_setup(&fake_opts);
	struct loop_result r;
	uint8_t rd[512], at[512], c[16];
	struct loop_task *t[2];

	(void)state;
	memset(at, 'X', sizeof(at));
	fsb_hold(h->bs[0], true);
	cdb16(c, 0x88, 0, 100, 1);
	t[0] = loop_submit_async(h->p1, 0, c, 16, SCSI_DIR_READ, rd, 512, SCSI_ATTR_SIMPLE, 1, 0);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	cdb_atomic(c, 0, 10, 1);
	t[1] = loop_submit_async(h->p2, 0, c, 16, SCSI_DIR_WRITE, at, 512, SCSI_ATTR_SIMPLE, 2, 0);
	sh_settle();
	assert_int_equal(fsb_held(h->bs[0]), 1); /* the WRITE ATOMIC waits */
	assert_false(loop_task_done(t[1]));
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	for (int i = 0; i < 2; i++) {
		loop_wait(t[i], &r);
		sh_expect_good(&r);
	}
	assert_true(sh_blocks_are(h, 0, 10, 1, 'X'));
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rw_round_trip_ram),
		cmocka_unit_test(test_rw6),
		cmocka_unit_test(test_rw_zero_length),
		cmocka_unit_test(test_rw_out_of_range),
		cmocka_unit_test(test_rw_fields),
		cmocka_unit_test(test_write_protect),
		cmocka_unit_test(test_fua),
		cmocka_unit_test(test_wce_mode_select),
		cmocka_unit_test(test_write_residual),
		cmocka_unit_test(test_medium_errors),
		cmocka_unit_test(test_block_size_4096),
		cmocka_unit_test(test_read_capacity10),
		cmocka_unit_test(test_read_capacity_large),
		cmocka_unit_test(test_read_capacity16),
		cmocka_unit_test(test_sync_cache),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_prefetch_too_big_for_cache),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_range_lock),
		cmocka_unit_test(test_range_lock_fifo),
		cmocka_unit_test(test_range_lock_fast_shared),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
