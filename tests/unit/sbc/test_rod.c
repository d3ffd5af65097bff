/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rod.c: POPULATE TOKEN, WRITE USING TOKEN, RECEIVE ROD TOKEN
 * INFORMATION and the Third-party Copy VPD page (rod.c, tpc_vpd.c).
 *
 *   p1 "iqn.test:a", p2 "iqn.test:b" --> target "iqn.test:t", default map:
 *        LUN 0 = lu[0], LUN 1 = lu[1]
 *   p3 "iqn.test:c"                  --> target "iqn.test:t", its ACL map:
 *        LUN 0 = lu[1]                   (lu[0] is not in it)
 *   p4 "iqn.test:a"                  --> target "iqn.test:t2", default map:
 *        LUN 0 = lu[0], LUN 1 = lu[1]   (another SCSI target)
 *
 * A token made through p1 on LUN 0 copies to LUN 1 through p2 (ODX: the
 * same target, another I_T nexus); p3 cannot use it (lu[0] is outside its
 * LUN map: COPY TARGET DEVICE NOT REACHABLE, CVE-2020-28374), p4 does not
 * know it (another target). A write to a range the token represents
 * cancels it, a write elsewhere does not; the zero token writes zeroes;
 * the caps (tokens and ranges) and the inactivity timeout; a reservation
 * of another I_T nexus stops the copy as it stops EXTENDED COPY; RSOC
 * lists the new service actions; the RRTI and VPD 8Fh bytes. */
#include "sbc_harness.h"

#include <time.h>

#include "scsi/limits.h"

static const struct sh_opts rod_opts = {
    .caps = BS_CAP_FLUSH,
    .second_lu = true,
};

#define COPY_ABORTED 0x0a

struct range {
	uint64_t lba;
	uint32_t n;
};

static void put_ranges(uint8_t *p, const struct range *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++, p += 16) {
		memset(p, 0, 16);
		put_be64(p, r[i].lba);
		put_be32(p + 8, r[i].n);
	}
}

static uint8_t tpc_out(struct loop_port *p, uint64_t lun, uint8_t sa, uint32_t list_id,
		       uint8_t *list, uint32_t len, struct loop_result *r)
{
	uint8_t c[16] = {0x83, sa};

	put_be32(c + 6, list_id);
	put_be32(c + 10, len);
	return sh_cmd(p, lun, c, 16, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

/* POPULATE TOKEN of ranges with INACTIVITY TIMEOUT timeout (0: default). */
static uint8_t populate(struct loop_port *p, uint64_t lun, uint32_t list_id, const struct range *r,
			unsigned n, uint32_t timeout, struct loop_result *res)
{
	uint8_t b[16 + 16 * 80];
	uint32_t len = 16 + 16 * n;

	memset(b, 0, 16);
	put_be16(b, (uint16_t)(len - 2));
	put_be32(b + 4, timeout);
	put_be16(b + 14, (uint16_t)(16 * n));
	put_ranges(b + 16, r, n);
	return tpc_out(p, lun, 0x10, list_id, b, len, res);
}

static uint8_t write_using(struct loop_port *p, uint64_t lun, uint32_t list_id,
			   const uint8_t token[512], uint64_t offset, const struct range *r,
			   unsigned n, bool del, struct loop_result *res)
{
	uint8_t b[536 + 16 * 8];
	uint32_t len = 536 + 16 * n;

	memset(b, 0, 536);
	put_be16(b, (uint16_t)(len - 2));
	b[2] = del ? 0x02 : 0x00;
	put_be64(b + 8, offset);
	memcpy(b + 16, token, 512);
	put_be16(b + 534, (uint16_t)(16 * n));
	put_ranges(b + 536, r, n);
	return tpc_out(p, lun, 0x11, list_id, b, len, res);
}

/* RECEIVE ROD TOKEN INFORMATION into d (550 bytes); returns the status. */
static uint8_t rrti(struct loop_port *p, uint64_t lun, uint32_t list_id, uint8_t *d,
		    struct loop_result *r)
{
	uint8_t c[16] = {0x84, 0x07};

	put_be32(c + 2, list_id);
	put_be32(c + 10, 550);
	memset(d, 0, 550);
	return sh_cmd(p, lun, c, 16, SCSI_DIR_READ, d, 550, r);
}

/* Populate and fetch the token through RRTI. */
static void make_token(struct loop_port *p, uint64_t lun, uint32_t list_id, const struct range *r,
		       unsigned n, uint32_t timeout, uint8_t token[512])
{
	struct loop_result res;
	uint8_t d[550];

	populate(p, lun, list_id, r, n, timeout, &res);
	sh_expect_good(&res);
	rrti(p, lun, list_id, d, &res);
	sh_expect_good(&res);
	assert_int_equal(get_be32(d + 32), 514);
	memcpy(token, d + 38, 512);
}

struct rig {
	struct sh *h;
	struct scsi_target *t2;
	struct scsi_lun_map *m3, *m4;
	struct loop_port *p3, *p4;
};

static void rig_setup(struct rig *g)
{
	g->h = sh_setup(&rod_opts);
	g->m3 = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(g->m3, 0, g->h->lu[1], false), 0);
	assert_int_equal(scsi_target_acl_set(g->h->t, "iqn.test:c", g->m3), 0);
	g->p3 = loop_create(g->h->t, 1, "iqn.test:c");
	assert_non_null(g->p3);
	sh_clear_ua(g->p3, 0);
	g->t2 = scsi_target_create("iqn.test:t2");
	g->m4 = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(g->m4, 0, g->h->lu[0], false), 0);
	assert_int_equal(scsi_lun_map_add(g->m4, 1, g->h->lu[1], false), 0);
	scsi_target_set_default_map(g->t2, g->m4, true);
	g->p4 = loop_create(g->t2, 1, "iqn.test:a");
	assert_non_null(g->p4);
	sh_clear_ua(g->p4, 0);
	sh_clear_ua(g->p4, 1);
}

static void rig_teardown(struct rig *g)
{
	loop_destroy(g->p3);
	loop_destroy(g->p4);
	scsi_lun_map_put(g->m3);
	scsi_lun_map_put(g->m4);
	scsi_target_destroy(g->t2);
	sh_teardown(g->h);
}

/* Made through p1 at LUN 0, used through p2 at LUN 1: the data moves;
 * then with an offset into the ROD over two destination ranges, and
 * DEL_TKN. */
static void test_round_trip(void **state)
{
	struct rig g;
	struct sh *h;
	struct loop_result r;
	uint8_t token[512], d[550];
	const struct range src[2] = {{100, 50}, {1000, 30}};
	const struct range dst[1] = {{2000, 80}};
	const struct range dst2[2] = {{3000, 10}, {3100, 20}};
	const struct range dst3[2] = {{3200, 10}, {3300, 20}};

	(void)state;
	rig_setup(&g);
	h = g.h;
	sh_fill(h, 0, 100, 50, 'A');
	sh_fill(h, 0, 1000, 30, 'B');
	make_token(h->p1, 0, 7, src, 2, 0, token);
	write_using(h->p2, 1, 9, token, 0, dst, 1, false, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 2000, 50, 'A'));
	assert_true(sh_blocks_are(h, 1, 2050, 30, 'B'));
	assert_true(sh_blocks_are(h, 1, 2080, 1, 0));
	/* RRTI of the WRITE USING TOKEN: 11h, completed, 80 blocks, no token */
	rrti(h->p2, 1, 9, d, &r);
	sh_expect_good(&r);
	assert_int_equal(d[4], 0x11);
	assert_int_equal(d[5], 0x01);
	assert_int_equal(d[15], 0xf1);
	assert_int_equal(get_be64(d + 16), 80);
	assert_int_equal(get_be32(d), 32);
	/* 45 blocks into the ROD: 5 of 'A', then 'B' */
	write_using(h->p2, 1, 10, token, 45, dst2, 2, false, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 3000, 5, 'A'));
	assert_true(sh_blocks_are(h, 1, 3005, 5, 'B'));
	assert_true(sh_blocks_are(h, 1, 3100, 20, 'B'));
	/* 60 blocks in, the ROD ends after 20 of the 30 asked for: GOOD, and
	 * RRTI says completed with residual data (03h), 20 blocks; DEL_TKN */
	write_using(h->p2, 1, 10, token, 60, dst3, 2, true, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 3200, 10, 'B'));
	assert_true(sh_blocks_are(h, 1, 3300, 10, 'B'));
	assert_true(sh_blocks_are(h, 1, 3310, 10, 0));
	rrti(h->p2, 1, 10, d, &r);
	sh_expect_good(&r);
	assert_int_equal(d[5], 0x03);
	assert_int_equal(get_be64(d + 16), 20);
	/* DEL_TKN: gone */
	write_using(h->p2, 1, 11, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x04);
	rig_teardown(&g);
}

/* The block device zero ROD token writes zeroes; no token is looked up. */
static void test_zero_token(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	struct loop_result r;
	uint8_t token[512] = {0xff, 0xff, 0x00, 0x01, 0x00, 0x00, 0x01, 0xf8};
	const struct range dst[2] = {{10, 20}, {3000, 1000}};

	(void)state;
	sh_fill(h, 0, 0, 4096, 'Z');
	write_using(h->p1, 0, 1, token, 0, dst, 2, false, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 9, 1, 'Z'));
	assert_true(sh_blocks_are(h, 0, 10, 20, 0));
	assert_true(sh_blocks_are(h, 0, 30, 1, 'Z'));
	assert_true(sh_blocks_are(h, 0, 3000, 1000, 0));
	assert_true(sh_blocks_are(h, 0, 4000, 96, 'Z'));
	sh_teardown(h);
}

/* A write to a represented range cancels the token, one elsewhere does
 * not; WRITE SAME and UNMAP-like writes go the same way (sbc_op_run). */
static void test_invalidation(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	struct loop_result r;
	uint8_t token[512], c[16], blk[512];
	const struct range src[1] = {{100, 10}};
	const struct range dst[1] = {{500, 10}};

	(void)state;
	memset(blk, 'W', sizeof(blk));
	make_token(h->p1, 0, 1, src, 1, 0, token);
	/* elsewhere on the same LU and on the other LU: still valid */
	sh_write(h, h->p2, 0, 110, 1, blk, &r);
	sh_expect_good(&r);
	sh_write(h, h->p2, 1, 100, 1, blk, &r);
	sh_expect_good(&r);
	write_using(h->p1, 1, 2, token, 0, dst, 1, false, &r);
	sh_expect_good(&r);
	/* the last block of the range, through another nexus: cancelled */
	sh_write(h, h->p2, 0, 109, 1, blk, &r);
	sh_expect_good(&r);
	write_using(h->p1, 1, 3, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x08);
	/* WRITE SAME(16) into a new token's range */
	make_token(h->p1, 0, 4, src, 1, 0, token);
	cdb16(c, 0x93, 0, 95, 6);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, blk, 512, &r);
	sh_expect_good(&r);
	write_using(h->p1, 1, 5, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x08);
	sh_teardown(h);
}

/* Only the nexuses of the target that made the token, and only those that
 * see its LU, can use it. */
static void test_access(void **state)
{
	struct rig g;
	struct sh *h;
	struct loop_result r;
	uint8_t token[512];
	const struct range src[1] = {{0, 8}};
	const struct range dst[1] = {{200, 8}};

	(void)state;
	rig_setup(&g);
	h = g.h;
	sh_fill(h, 1, 200, 8, 'K');
	make_token(h->p1, 0, 1, src, 1, 0, token);
	/* p3's LUN 0 is lu[1]; lu[0] is not in its map */
	write_using(g.p3, 0, 1, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x0d, 0x02);
	assert_true(sh_blocks_are(h, 1, 200, 8, 'K'));
	/* another target, the same initiator and LUs: unknown there */
	write_using(g.p4, 1, 1, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x04);
	assert_true(sh_blocks_are(h, 1, 200, 8, 'K'));
	/* a byte of the random part changed: unknown */
	token[300] ^= 1;
	write_using(h->p2, 1, 1, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x04);
	token[300] ^= 1;
	/* RRTI is per I_T nexus: p2's list 1 is its failed WRITE USING
	 * TOKEN (11h, error, CHECK CONDITION), not p1's POPULATE TOKEN */
	{
		uint8_t d[550];

		rrti(h->p2, 0, 1, d, &r);
		sh_expect_good(&r);
		assert_int_equal(d[4], 0x11);
		assert_int_equal(d[5], 0x02);
		assert_int_equal(d[12], 0x02);
		rrti(h->p1, 0, 1, d, &r);
		sh_expect_good(&r);
		assert_int_equal(d[4], 0x10);
	}
	/* and the real one still works */
	write_using(h->p2, 1, 1, token, 0, dst, 1, false, &r);
	sh_expect_good(&r);
	rig_teardown(&g);
}

/* The copy manager reads the source as the requester's own READ(16): an
 * SPC-2 reservation of another I_T nexus stops it (THIRD PARTY DEVICE
 * FAILURE), as for EXTENDED COPY; released, the token works. */
static void test_reservation(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	const uint8_t reserve[6] = {0x16}, release[6] = {0x17};
	const struct range src[1] = {{0, 8}};
	const struct range dst[1] = {{200, 8}};
	struct loop_result r;
	uint8_t token[512];

	(void)state;
	make_token(h->p1, 0, 1, src, 1, 0, token);
	sh_cmd(h->p1, 0, reserve, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	write_using(h->p2, 1, 1, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x0d, 0x01);
	sh_cmd(h->p1, 0, release, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	write_using(h->p2, 1, 1, token, 0, dst, 1, false, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* REPORT SUPPORTED OPERATION CODES lists the new service actions with
 * their CDB usage data. */
static void test_rsoc(void **state)
{
	static const struct {
		uint8_t op, sa;
		uint8_t usage[16];
	} want[] = {
	    {0x83,
	     0x10,
	     {0x83, 0x10, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x04}},
	    {0x83,
	     0x11,
	     {0x83, 0x11, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x04}},
	    {0x84,
	     0x05,
	     {0x84, 0x05, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0x04}},
	    {0x84,
	     0x06,
	     {0x84, 0x06, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0x04}},
	    {0x84,
	     0x07,
	     {0x84, 0x07, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0x04}},
	};
	struct sh *h = sh_setup(&rod_opts);
	struct loop_result r;
	uint8_t c[12] = {0xa3, 0x0c, 0x02}, d[64];

	(void)state;
	put_be32(c + 6, sizeof(d));
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		c[3] = want[i].op;
		put_be16(c + 4, want[i].sa);
		sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, sizeof(d), &r);
		sh_expect_good(&r);
		assert_int_equal(d[1] & 0x07, 0x03); /* supported */
		assert_int_equal(get_be16(d + 2), 16);
		assert_memory_equal(d + 4, want[i].usage, 16);
	}
	/* RECEIVE COPY DATA(LID1) is not */
	c[3] = 0x84;
	put_be16(c + 4, 0x01);
	sh_cmd(h->p1, 0, c, 12, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(d[1] & 0x07, 0x01);
	sh_teardown(h);
}

/* The RECEIVE ROD TOKEN INFORMATION data of a POPULATE TOKEN and the fixed
 * fields of the token. */
static void test_rrti_contents(void **state)
{
	static const uint8_t hdr[38] = {
	    0x00, 0x00, 0x02, 0x22, /* AVAILABLE DATA 546 */
	    0x10, 0x01, 0x00, 0x00, /* POPULATE TOKEN, completed; OPERATION COUNTER */
	    0xff, 0xff, 0xff, 0xfe, /* ESTIMATED STATUS UPDATE DELAY: done (SPC-4 6.24) */
	    0x00, 0x00, 0x00, 0xf1, /* GOOD, no sense, units: logical blocks */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, /* TRANSFER COUNT 48 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* SEGMENTS PROCESSED, reserved */
	    0x00, 0x00, 0x02, 0x02,			    /* ROD TOKEN DESCRIPTORS LENGTH 514 */
	    0x00, 0x00,
	};
	static const uint8_t tok_hdr[8] = {0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf8};
	struct sh *h = sh_setup(&rod_opts);
	const struct range src[2] = {{8, 16}, {64, 32}};
	struct loop_result r;
	uint8_t d[550], d2[550];

	(void)state;
	populate(h->p1, 0, 0x01020304, src, 2, 0, &r);
	sh_expect_good(&r);
	rrti(h->p1, 0, 0x01020304, d, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 550);
	assert_memory_equal(d, hdr, sizeof(hdr));
	assert_memory_equal(d + 38, tok_hdr, sizeof(tok_hdr));
	/* creator LU: E4h, block device, the NAA designator of lu[0] */
	assert_int_equal(d[38 + 16], 0xe4);
	assert_int_equal(d[38 + 17], 0x00);
	assert_int_equal(d[38 + 20 + 1], 0x03); /* association LU, NAA */
	assert_int_equal(d[38 + 20 + 3], 16);
	assert_memory_equal(d + 38 + 24, sh_attrs(&rod_opts, 0).naa, 16);
	assert_int_equal(get_be24(d + 38 + 16 + 29), 512);
	/* NUMBER OF BYTES REPRESENTED */
	assert_int_equal(get_be64(d + 38 + 56), 48 * 512);
	/* the target device name */
	assert_memory_equal(d + 38 + 128 + 4, "iqn.test:t", 11);
	/* a second token differs in its identifier and random part */
	populate(h->p1, 0, 5, src, 2, 0, &r);
	sh_expect_good(&r);
	rrti(h->p1, 0, 5, d2, &r);
	sh_expect_good(&r);
	assert_int_not_equal(get_be64(d + 38 + 8), get_be64(d2 + 38 + 8));
	assert_memory_not_equal(d + 38 + 256, d2 + 38 + 256, 256);
	/* RECEIVE COPY STATUS(LID4): the same without the token descriptors */
	{
		uint8_t c[16] = {0x84, 0x05};

		put_be32(c + 2, 0x01020304);
		put_be32(c + 10, 64);
		memset(d2, 0xee, sizeof(d2));
		sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d2, 64, &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, 32);
		assert_int_equal(get_be32(d2), 28);
		assert_memory_equal(d2 + 4, hdr + 4, 28);
	}
	/* no result for an unused LIST IDENTIFIER */
	rrti(h->p1, 0, 6, d, &r);
	SH_INVALID_CDB(&r);
	sh_teardown(h);
}

/* Parameter list checks, the range cap, and the token cap of a target. */
static void test_caps(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	struct range many[ROD_MAX_RANGES + 1];
	const struct range one[1] = {{0, 1}};
	struct loop_result r;
	unsigned i;

	(void)state;
	for (i = 0; i <= ROD_MAX_RANGES; i++)
		many[i] = (struct range){i * 2, 1};
	/* over MAXIMUM RANGE DESCRIPTORS: the CDB's length already */
	populate(h->p1, 0, 1, many, ROD_MAX_RANGES + 1, 0, &r);
	SH_INVALID_CDB(&r);
	populate(h->p1, 0, 1, many, ROD_MAX_RANGES, 0, &r);
	sh_expect_good(&r);
	/* beyond the capacity */
	{
		const struct range oob[1] = {{4090, 10}};

		populate(h->p1, 0, 1, oob, 1, 0, &r);
		SH_LBA_OOB(&r);
	}
	/* overlapping ranges */
	{
		const struct range ov[2] = {{10, 10}, {15, 10}};

		populate(h->p1, 0, 1, ov, 2, 0, &r);
		SH_INVALID_PARAM(&r);
	}
	/* INACTIVITY TIMEOUT over the maximum */
	populate(h->p1, 0, 1, one, 1, ROD_MAX_INACTIVITY_S + 1, &r);
	SH_INVALID_PARAM(&r);
	/* tokens: one above is live; fill the target's table */
	for (i = 1; i < ROD_MAX_TOKENS_PER_TARGET; i++) {
		populate(h->p1, 0, 100 + i, one, 1, 0, &r);
		sh_expect_good(&r);
	}
	populate(h->p2, 1, 1, one, 1, 0, &r);
	sh_expect(&r, COPY_ABORTED, 0x55, 0x0d);
	/* a write cancels the tokens of LBA 0; their room is taken back */
	{
		uint8_t blk[512] = {0};

		sh_write(h, h->p1, 0, 0, 1, blk, &r);
		sh_expect_good(&r);
	}
	populate(h->p2, 1, 1, one, 1, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* The ranges of a target's tokens are capped together too. */
static void test_range_cap(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	struct range many[ROD_MAX_RANGES];
	const struct range one[1] = {{4000, 1}};
	struct loop_result r;
	unsigned i;

	(void)state;
	for (i = 0; i < ROD_MAX_RANGES; i++)
		many[i] = (struct range){i * 2, 1};
	for (i = 0; i < ROD_MAX_RANGES_PER_TARGET / ROD_MAX_RANGES; i++) {
		populate(h->p1, 0, i, many, ROD_MAX_RANGES, 0, &r);
		sh_expect_good(&r);
	}
	populate(h->p1, 1, 1000, one, 1, 0, &r);
	sh_expect(&r, COPY_ABORTED, 0x55, 0x0d);
	sh_teardown(h);
}

/* A token unused for its INACTIVITY TIMEOUT expires. */
static void test_expiry(void **state)
{
	struct sh *h = sh_setup(&rod_opts);
	const struct range src[1] = {{0, 4}};
	const struct range dst[1] = {{100, 4}};
	struct timespec ts = {.tv_sec = 2, .tv_nsec = 200000000};
	struct loop_result r;
	uint8_t token[512];

	(void)state;
	make_token(h->p1, 0, 1, src, 1, 1, token);
	write_using(h->p1, 1, 2, token, 0, dst, 1, false, &r);
	sh_expect_good(&r);
	nanosleep(&ts, NULL);
	write_using(h->p1, 1, 2, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x07);
	/* and then it is gone */
	write_using(h->p1, 1, 2, token, 0, dst, 1, false, &r);
	sh_expect(&r, COPY_ABORTED, 0x23, 0x04);
	sh_teardown(h);
}

/* VPD 8Fh, byte for byte (512-byte blocks; sg_vpd --inhex decodes it). */
static void test_vpd_8f(void **state)
{
	static const uint8_t want[] = {
	    0x00, 0x8f, 0x01, 0xb4,
	    /* Block Device ROD Token Limits: 64 ranges, 600 s, 60 s, 2^19 and 2^17 blocks */
	    0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00,
	    0x02, 0x58, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
	    /* Supported Commands: 83h 00 01 10 11, 84h 00 03 05 06 07 */
	    0x00, 0x01, 0x00, 0x10, 0x0d, 0x83, 0x04, 0x00, 0x01, 0x10, 0x11, 0x84, 0x05, 0x00,
	    0x03, 0x05, 0x06, 0x07, 0x00, 0x00,
	    /* Parameter Data: 8 CSCD, 64 segments, 4096 bytes, no inline data */
	    0x00, 0x04, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x40, 0x00, 0x00,
	    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00,
	    /* Supported Descriptors: 02h, E4h */
	    0x00, 0x08, 0x00, 0x04, 0x02, 0x02, 0xe4, 0x00,
	    /* Supported CSCD IDs: none */
	    0x00, 0x0c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
	    /* ROD Token Features: no remote tokens; lifetimes 1, 600, inactivity 600 */
	    0x01, 0x06, 0x00, 0x5c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x58, 0x00, 0x00, 0x02, 0x58,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x30,
	    /* block ROD features: granularity 1, 256 MiB, 64 MiB x 3 */
	    0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    /* Supported ROD Types: 3 descriptors of 64 bytes */
	    0x01, 0x08, 0x00, 0xc4, 0x00, 0x00, 0x00, 0xc0,
	    /* 00800000h point in time copy - default: TOKEN_IN, TOKEN_OUT */
	    0x00, 0x80, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    /* 00800001h change vulnerable: TOKEN_IN, TOKEN_OUT */
	    0x00, 0x80, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    /* FFFF0001h block device zero ROD token: TOKEN_IN */
	    0xff, 0xff, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    /* General Copy Operations: 16, 16, 32 MiB, granularity 2^9 */
	    0x80, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x02, 0x00,
	    0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	struct sh *h = sh_setup(&rod_opts);
	uint8_t c[6] = {0x12, 0x01, 0x8f, 0x02, 0x00, 0x00}, d[512];
	struct loop_result r;

	(void)state;
	sh_cmd(h->p1, 0, c, 6, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, sizeof(want));
	assert_memory_equal(d, want, sizeof(want));
	sh_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),	  cmocka_unit_test(test_zero_token),
	    cmocka_unit_test(test_invalidation),  cmocka_unit_test(test_access),
	    cmocka_unit_test(test_reservation),	  cmocka_unit_test(test_rsoc),
	    cmocka_unit_test(test_rrti_contents), cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_range_cap),	  cmocka_unit_test(test_expiry),
	    cmocka_unit_test(test_vpd_8f),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
