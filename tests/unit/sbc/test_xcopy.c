/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_xcopy.c: EXTENDED COPY (LID1) and (LID4), RECEIVE COPY RESULTS
 * (xcopy.c), RECEIVE COPY STATUS(LID4) and RECEIVE COPY DATA(LID4)
 * (copy_status.c).
 *
 *   p1 "iqn.test:a", p2 "iqn.test:b" --> target "iqn.test:t", default map:
 *        LUN 0 = lu[0], LUN 1 = lu[1]
 *   lu[2]: a logical unit in no LUN map (a LUN of "another initiator")
 *
 * Copies between LUN 0 and LUN 1, within one LU and over several chunks;
 * a target descriptor naming lu[2] is COPY TARGET DEVICE NOT REACHABLE in
 * both directions, and no data moves (CVE-2020-28374); the parameter list
 * checks with their senses; the copy status held per I_T nexus and list
 * identifier; the operating parameters. Each copy source and destination
 * is accessed as the requester's own READ / WRITE (reservations, ALUA,
 * write protection, the requester's LUN map): the "access" tests below.
 * The "LID4" tests: the 48-byte LID4 header (SPC-4 6.4.2) in front of the
 * same descriptors, its field checks, the status of a LID4 list through
 * RECEIVE COPY STATUS(LID4) / RECEIVE COPY DATA(LID4) in golden bytes, and
 * one list identifier space per I_T nexus shared with the token copies. */
#include "sbc_harness.h"

#include <errno.h>

#include "scsi/alua.h"
#include "scsi/limits.h"

static const struct sh_opts xc_opts = {
    .caps = BS_CAP_FLUSH,
    .second_lu = true,
    .outside_lu = true,
};

/* The NAA designation descriptor (VPD 83h, association LU) of LUN lun. */
static void lu_designator(struct sh *h, uint64_t lun, uint8_t desig[20])
{
	uint8_t c[6] = {0x12, 0x01, 0x83, 0x00, 0xff, 0x00}, d[255];
	struct loop_result r;
	size_t off = 4, end;

	sh_cmd(h->p1, lun, c, 6, SCSI_DIR_READ, d, sizeof(d), &r);
	sh_expect_good(&r);
	end = 4 + get_be16(d + 2);
	while (off + 4 <= end) {
		const uint8_t *e = d + off;

		if ((e[1] & 0x30) == 0 && (e[1] & 0x0f) == 3 && e[3] == 16) {
			memcpy(desig, e, 20);
			return;
		}
		off += 4 + e[3];
	}
	fail_msg("no NAA designator for LUN %u", (unsigned)lun);
}

/* The same for the unmapped lu[2]: its NAA from its attributes. */
static void outside_designator(struct sh *h, uint8_t desig[20])
{
	lu_designator(h, 0, desig);
	memcpy(desig + 4, sh_attrs(&xc_opts, 2).naa, 16);
}

struct xseg {
	uint16_t src, dst;
	uint16_t n;
	uint64_t src_lba, dst_lba;
};

/* Parameter list: header, target descriptors (E4h), segments (02h). */
static uint32_t xc_list(uint8_t *b, uint8_t list_id, uint8_t usage, uint8_t desig[][20],
			unsigned ntgt, const struct xseg *s, unsigned nseg, uint32_t bsz)
{
	uint8_t *p = b + 16;

	memset(b, 0, 16 + 32 * ntgt + 28 * nseg);
	b[0] = list_id;
	b[1] = (uint8_t)(usage << 3);
	put_be16(b + 2, (uint16_t)(32 * ntgt));
	put_be32(b + 8, 28 * nseg);
	for (unsigned i = 0; i < ntgt; i++, p += 32) {
		p[0] = 0xe4;
		p[1] = 0x00; /* LU ID TYPE 00b, block device */
		memcpy(p + 4, desig[i], 20);
		put_be24(p + 29, bsz);
	}
	for (unsigned i = 0; i < nseg; i++, p += 28) {
		p[0] = 0x02;
		put_be16(p + 2, 0x18);
		put_be16(p + 4, s[i].src);
		put_be16(p + 6, s[i].dst);
		put_be16(p + 10, s[i].n);
		put_be64(p + 12, s[i].src_lba);
		put_be64(p + 20, s[i].dst_lba);
	}
	return (uint32_t)(p - b);
}

static uint8_t xcopy(struct loop_port *p, uint64_t lun, uint8_t *list, uint32_t len,
		     struct loop_result *r)
{
	uint8_t c[16];

	memset(c, 0, 16);
	c[0] = 0x83;
	put_be32(c + 10, len);
	return sh_cmd(p, lun, c, 16, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

static void test_copy_between_lus(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[256];
	struct xseg s[2] = {{0, 1, 100, 0, 500}, {1, 0, 10, 500, 1000}};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	sh_fill(h, 0, 0, 100, 'A');
	len = xc_list(b, 1, 0, d, 2, s, 2, 512);
	/* issued to LUN 0; segment 1 copies LUN 0 -> LUN 1, segment 2 back */
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 500, 100, 'A'));
	assert_true(sh_blocks_are(h, 1, 600, 1, 0));
	assert_true(sh_blocks_are(h, 0, 1000, 10, 'A'));
	/* more than one chunk (1.5 MiB), issued to LUN 1 */
	sh_fill(h, 0, 0, 3000, 'B');
	s[0] = (struct xseg){0, 1, 3000, 0, 1000};
	len = xc_list(b, 0, 3, d, 2, s, 1, 512); /* LIST ID USAGE 11b, LIST IDENTIFIER 0 */
	xcopy(h->p1, 1, b, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 1000, 3000, 'B'));
	/* within one LU */
	s[0] = (struct xseg){0, 0, 50, 0, 3500};
	len = xc_list(b, 0, 3, d, 1, s, 1, 512);
	xcopy(h->p2, 0, b, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 3500, 50, 'B'));
	/* PARAMETER LIST LENGTH 0: no copy, not an error */
	xcopy(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

/* CVE-2020-28374: a logical unit outside the nexus' LUN map cannot be a
 * copy source nor a copy destination. */
static void test_copy_outside_map(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[256];
	struct xseg s = {1, 0, 8, 0, 0};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	outside_designator(h, d[1]);
	memset(fsb_data(h->bs[2]), 'S', 8 * 512); /* a secret on the hidden LU */
	sh_fill(h, 0, 0, 8, 'x');
	/* read from it */
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	assert_true(sh_blocks_are(h, 0, 0, 8, 'x'));
	/* write to it */
	s = (struct xseg){0, 1, 8, 0, 0};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	assert_int_equal(fsb_count(h->bs[2], BS_OP_WRITE), 0);
	assert_int_equal(fsb_count(h->bs[2], BS_OP_READ), 0);
	assert_int_equal(fsb_data(h->bs[2])[0], 'S');
	/* even unreferenced by any segment */
	s = (struct xseg){0, 0, 1, 0, 1};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	sh_teardown(h);
}

/* The destination's mapping is write protected for this nexus. */
static void test_copy_write_protected(void **state)
{
	struct sh_opts o = xc_opts;
	struct sh *h;
	struct loop_result r;
	uint8_t d[2][20], b[256];
	struct xseg s = {1, 0, 4, 0, 0};
	uint32_t len;

	(void)state;
	o.read_only = true; /* LUN 0 */
	h = sh_setup(&o);
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 1, b, len, &r);
	SH_WRITE_PROTECTED(&r);
	/* reading from it is fine */
	s = (struct xseg){0, 1, 4, 0, 0};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 1, b, len, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

static void test_param_list(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[10][20], *b = calloc(1, 8192);
	struct xseg s[70];
	uint32_t len;

	(void)state;
	for (int i = 0; i < 10; i++)
		lu_designator(h, 0, d[i]);
	for (int i = 0; i < 70; i++)
		s[i] = (struct xseg){0, 0, 1, (uint64_t)i, 100 + (uint64_t)i};
	/* truncating the target descriptor and the segment descriptor */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	xcopy(h->p1, 0, b, 16 + 32 - 1, &r);
	SH_PARAM_LEN(&r);
	xcopy(h->p1, 0, b, len - 1, &r);
	SH_PARAM_LEN(&r);
	xcopy(h->p1, 0, b, 15, &r);
	SH_PARAM_LEN(&r);
	/* more target descriptors than MAXIMUM TARGET DESCRIPTOR COUNT */
	len = xc_list(b, 1, 0, d, XCOPY_MAX_TARGET_DESCRIPTORS + 1, s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x06);
	/* more segment descriptors than MAXIMUM SEGMENT DESCRIPTOR COUNT */
	len = xc_list(b, 1, 0, d, 1, s, XCOPY_MAX_SEGMENT_DESCRIPTORS + 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x08);
	/* descriptor lists longer than MAXIMUM DESCRIPTOR LIST LENGTH */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	put_be32(b + 8, XCOPY_MAX_DESCRIPTOR_LIST_BYTES);
	xcopy(h->p1, 0, b, 16 + 32 + XCOPY_MAX_DESCRIPTOR_LIST_BYTES, &r);
	SH_PARAM_LEN(&r);
	xcopy(h->p1, 0, b, 16 + XCOPY_MAX_DESCRIPTOR_LIST_BYTES + 1, &r);
	SH_PARAM_LEN(&r);
	/* unsupported target and segment descriptor type codes */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	b[16] = 0xe0;
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x07);
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	b[16 + 32] = 0x03;
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x09);
	/* inline data: MAXIMUM INLINE DATA LENGTH is 0 */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	put_be32(b + 12, 4);
	xcopy(h->p1, 0, b, len + 4, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x0b);
	/* LIST ID USAGE 01b reserved; 11b with a LIST IDENTIFIER */
	len = xc_list(b, 1, 1, d, 1, s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 1, 4);
	len = xc_list(b, 1, 3, d, 1, s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	/* a segment DESCRIPTOR LENGTH other than 0018h */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	put_be16(b + 16 + 32 + 2, 0x14);
	xcopy(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 16 + 32 + 2, -1);
	/* DISK BLOCK LENGTH not the LU's */
	len = xc_list(b, 1, 0, d, 1, s, 1, 4096);
	xcopy(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 16 + 29, -1);
	/* SPC-4: the LU ID TYPE is ignored (ExtendedCopy.ValidTgtDescr) */
	len = xc_list(b, 1, 0, d, 1, s, 1, 512);
	b[17] = 0x80;
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	/* a non-block PERIPHERAL DEVICE TYPE */
	b[17] = 0x01;
	xcopy(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	free(b);
	sh_teardown(h);
}

static void test_segments(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[256];
	struct xseg s;
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	/* a target descriptor index with no descriptor (ValidSegDescr) */
	s = (struct xseg){0, 1, 8, 0, 0};
	len = xc_list(b, 1, 0, d, 1, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	/* beyond the destination's capacity */
	s = (struct xseg){0, 1, 8, 0, h->blocks - 1};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	s = (struct xseg){0, 1, 8, UINT64_MAX, 0};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x02);
	/* a zero-block segment copies nothing */
	s = (struct xseg){0, 1, 0, 0, 0};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	/* a read error of the copy source: COPY ABORTED, THIRD PARTY DEVICE
	 * FAILURE */
	fsb_fail(h->bs[0], BS_OP_READ, -EIO, 1, 0);
	s = (struct xseg){0, 1, 8, 0, 0};
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x01);
	sh_teardown(h);
}

/* ---- RECEIVE COPY RESULTS ---- */

static uint8_t rcr(struct loop_port *p, uint8_t sa, uint8_t list_id, uint8_t *d, uint32_t alloc,
		   struct loop_result *r)
{
	uint8_t c[16];

	memset(c, 0, 16);
	c[0] = 0x84;
	c[1] = sa;
	c[2] = list_id;
	put_be32(c + 10, alloc);
	return sh_cmd(p, 0, c, 16, SCSI_DIR_READ, d, alloc, r);
}

static void test_copy_status(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[256], st[64];
	struct xseg s = {0, 1, 64, 0, 0};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	/* no copy with that list identifier */
	rcr(h->p1, 0x00, 1, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 2, -1);
	/* LIST ID USAGE 00b: held */
	len = xc_list(b, 1, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	/* not for another I_T nexus */
	rcr(h->p2, 0x00, 1, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	memset(st, 0xee, sizeof(st));
	rcr(h->p1, 0x00, 1, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 12);
	assert_int_equal(get_be32(st), 8);
	assert_int_equal(st[4], 0x01); /* completed without errors, HDD 0 */
	assert_int_equal(get_be16(st + 5), 1);
	assert_int_equal(st[7], 0); /* bytes */
	assert_int_equal(get_be32(st + 8), 64 * 512);
	/* returned once */
	rcr(h->p1, 0x00, 1, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	/* LIST ID USAGE 10b and 11b: not held */
	len = xc_list(b, 2, 2, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	rcr(h->p1, 0x00, 2, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	/* a failed copy: status 02h */
	fsb_fail(h->bs[1], BS_OP_WRITE, -EIO, 1, 0);
	len = xc_list(b, 3, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x01);
	rcr(h->p1, 0x00, 3, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x02);
	/* RECEIVE DATA, FAILED SEGMENT DETAILS: not supported */
	rcr(h->p1, 0x01, 3, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	rcr(h->p1, 0x04, 3, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	sh_teardown(h);
}

static void test_op_params(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[128];

	(void)state;
	rcr(h->p1, 0x03, 0, d, sizeof(d), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 46);
	assert_int_equal(get_be32(d), 42);
	assert_int_equal(d[4] & 0x01, 1);
	assert_int_equal(get_be16(d + 8), XCOPY_MAX_TARGET_DESCRIPTORS);
	assert_int_equal(get_be16(d + 10), XCOPY_MAX_SEGMENT_DESCRIPTORS);
	assert_int_equal(get_be32(d + 12), XCOPY_MAX_DESCRIPTOR_LIST_BYTES);
	assert_int_equal(get_be32(d + 16), XCOPY_MAX_SEGMENT_BYTES);
	assert_int_equal(get_be32(d + 20), 0);
	assert_int_equal(get_be16(d + 34), XCOPY_MAX_CONCURRENT);
	assert_int_equal(d[37], 9);
	assert_int_equal(d[43], 2);
	assert_int_equal(d[44], 0x02);
	assert_int_equal(d[45], 0xe4);
	/* a short allocation length truncates */
	rcr(h->p1, 0x03, 0, d, 16, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 16);
	sh_teardown(h);
}

/* ---- copy targets accessed as the requester's own READ / WRITE ----
 *
 *   p1 "iqn.test:a" (copies) ---\
 *   p2 "iqn.test:b" (reserves) --+-- target port 1 (ALUA group 1) -- target "iqn.test:t"
 *   p3 "iqn.test:c" (own ACL) ---/
 *
 *   default map (a, b):  LUN 0 = lu[0]   LUN 1 = lu[1]
 *   ACL map of c:        LUN 0 = lu[0]   LUN 1 = lu[2]   LUN 2 = lu[1] read-only
 *
 * Each case: what p1 (or p3) may not do with its own READ/WRITE it may not
 * do through EXTENDED COPY either, and nothing moves; the one allowed to
 * (the holder, another mapping) still can. */

struct acc {
	struct sh *h;
	struct scsi_lun_map *cmap;
	struct loop_port *p3;
	uint8_t d[3][20]; /* designators of lu[0], lu[1], lu[2] */
};

static int acc_setup(void **state)
{
	struct acc *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	a->h = sh_setup(&xc_opts);
	a->cmap = scsi_lun_map_create();
	assert_non_null(a->cmap);
	assert_int_equal(scsi_lun_map_add(a->cmap, 0, a->h->lu[0], false), 0);
	assert_int_equal(scsi_lun_map_add(a->cmap, 1, a->h->lu[2], false), 0);
	assert_int_equal(scsi_lun_map_add(a->cmap, 2, a->h->lu[1], true), 0);
	assert_int_equal(scsi_target_acl_set(a->h->t, "iqn.test:c", a->cmap), 0);
	a->p3 = loop_create(a->h->t, 1, "iqn.test:c");
	assert_non_null(a->p3);
	for (unsigned lun = 0; lun < 3; lun++)
		sh_clear_ua(a->p3, lun);
	lu_designator(a->h, 0, a->d[0]);
	lu_designator(a->h, 1, a->d[1]);
	outside_designator(a->h, a->d[2]);
	for (unsigned i = 0; i < 3; i++)
		fsb_reset_counts(a->h->bs[i]);
	*state = a;
	return 0;
}

/* Also after a failed test: the ALUA group outlives no port. */
static int acc_teardown(void **state)
{
	struct acc *a = *state;

	scsi_alua_set_state(1, "lu1", SCSI_ALUA_ACTIVE_OPTIMIZED);
	for (unsigned i = 0; i < 3; i++)
		fsb_hold(a->h->bs[i], false);
	loop_destroy(a->p3);
	scsi_lun_map_put(a->cmap);
	sh_teardown(a->h);
	free(a);
	return 0;
}

/* EXTENDED COPY through p to LUN lun: n blocks from target descriptor src
 * to dst (indexes into a->d), LBA 0 to LBA 0. Returns the status. */
static uint8_t acc_copy(struct acc *a, struct loop_port *p, uint64_t lun, unsigned src,
			unsigned dst, uint16_t n, struct loop_result *r)
{
	uint8_t d[2][20], b[256];
	struct xseg s = {0, 1, n, 0, 0};
	uint32_t len;

	memcpy(d[0], a->d[src], 20);
	memcpy(d[1], a->d[dst], 20);
	len = xc_list(b, 0, 3, d, 2, &s, 1, 512);
	return xcopy(p, lun, b, len, r);
}

#define COPY_TARGET_UNREACHABLE(r) sh_expect((r), 0x0a, 0x0d, 0x02)
#define THIRD_PARTY_FAILURE(r)	   sh_expect((r), 0x0a, 0x0d, 0x01)

/* PERSISTENT RESERVE OUT sa (type) with RESERVATION KEY rk, SERVICE ACTION
 * RESERVATION KEY sark. */
static void prout(struct loop_port *p, uint64_t lun, uint8_t sa, uint8_t type, uint64_t rk,
		  uint64_t sark)
{
	uint8_t c[10] = {0x5f, sa, type}, pl[24] = {0};
	struct loop_result r;

	put_be32(c + 5, sizeof(pl));
	put_be64(pl, rk);
	put_be64(pl + 8, sark);
	sh_cmd(p, lun, c, 10, SCSI_DIR_WRITE, pl, sizeof(pl), &r);
	sh_expect_good(&r);
}

/* An SPC-2 reservation of another initiator on the destination: p1's own
 * WRITE would get RESERVATION CONFLICT, so its copy ends with COPY ABORTED /
 * THIRD PARTY DEVICE FAILURE and writes nothing; the holder's copy runs. */
static void test_access_spc2_reservation_dst(void **state)
{
	struct acc *a = *state;
	static const uint8_t reserve6[6] = {0x16};
	struct loop_result r;

	sh_fill(a->h, 0, 0, 8, 'S');
	fsb_reset_counts(a->h->bs[1]);
	sh_cmd(a->h->p2, 1, reserve6, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	assert_int_equal(sh_write(a->h, a->h->p1, 1, 0, 1, fsb_data(a->h->bs[0]), &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	acc_copy(a, a->h->p1, 0, 0, 1, 8, &r);
	THIRD_PARTY_FAILURE(&r);
	assert_int_equal(fsb_count(a->h->bs[1], BS_OP_WRITE), 0);
	/* nor as the source of a copy into LUN 0 */
	acc_copy(a, a->h->p1, 0, 1, 0, 8, &r);
	THIRD_PARTY_FAILURE(&r);
	assert_int_equal(fsb_count(a->h->bs[1], BS_OP_READ), 0);
	/* the holder copies */
	acc_copy(a, a->h->p2, 0, 0, 1, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_data(a->h->bs[1])[0], 'S');
}

/* A persistent reservation EXCLUSIVE ACCESS of another initiator on the
 * source: p1's own READ would conflict (SPC-4 5.13.1 table 58), so the copy
 * (sent to LUN 1, which nobody reserved) reads nothing and ends with COPY
 * ABORTED / THIRD PARTY DEVICE FAILURE. Under WRITE EXCLUSIVE the source
 * may be read, but LUN 0 may not be a destination. */
static void test_access_pr_exclusive_src(void **state)
{
	struct acc *a = *state;
	struct loop_result r;
	uint8_t blk[512];

	sh_fill(a->h, 0, 0, 8, 'P');
	fsb_reset_counts(a->h->bs[0]);
	prout(a->h->p2, 0, 0x00, 0, 0, 0xb2);	 /* REGISTER */
	prout(a->h->p2, 0, 0x01, 0x03, 0xb2, 0); /* RESERVE, EXCLUSIVE ACCESS */
	assert_int_equal(sh_read(a->h, a->h->p1, 0, 0, 1, blk, &r), SAM_STAT_RESERVATION_CONFLICT);
	acc_copy(a, a->h->p1, 1, 0, 1, 8, &r);
	THIRD_PARTY_FAILURE(&r);
	assert_int_equal(fsb_count(a->h->bs[0], BS_OP_READ), 0);
	assert_int_equal(fsb_count(a->h->bs[1], BS_OP_WRITE), 0);
	/* the holder copies */
	acc_copy(a, a->h->p2, 1, 0, 1, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_data(a->h->bs[1])[0], 'P');
	/* WRITE EXCLUSIVE: reading the source is allowed, writing it is not */
	prout(a->h->p2, 0, 0x02, 0x03, 0xb2, 0); /* RELEASE */
	prout(a->h->p2, 0, 0x01, 0x01, 0xb2, 0); /* RESERVE, WRITE EXCLUSIVE */
	acc_copy(a, a->h->p1, 1, 0, 1, 8, &r);
	sh_expect_good(&r);
	fsb_reset_counts(a->h->bs[0]);
	acc_copy(a, a->h->p1, 1, 1, 0, 8, &r);
	THIRD_PARTY_FAILURE(&r);
	assert_int_equal(fsb_count(a->h->bs[0], BS_OP_WRITE), 0);
}

/* The destination in ALUA standby, unavailable or offline through p1's
 * target port: p1's own WRITE would be NOT READY, so the copy ends with
 * COPY ABORTED / COPY TARGET DEVICE NOT REACHABLE and writes nothing. */
static void test_access_alua_dst(void **state)
{
	static const enum scsi_alua_state states[] = {SCSI_ALUA_STANDBY, SCSI_ALUA_UNAVAILABLE,
						      SCSI_ALUA_OFFLINE, SCSI_ALUA_TRANSITIONING};
	struct acc *a = *state;
	struct loop_result r;

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		assert_int_equal(scsi_alua_set_state(1, "lu1", states[i]), 0);
		sh_clear_ua(a->h->p1, 1);
		acc_copy(a, a->h->p1, 0, 0, 1, 8, &r);
		COPY_TARGET_UNREACHABLE(&r);
		/* nor may it be read */
		acc_copy(a, a->h->p1, 0, 1, 0, 8, &r);
		COPY_TARGET_UNREACHABLE(&r);
		assert_int_equal(fsb_count(a->h->bs[1], BS_OP_WRITE), 0);
		assert_int_equal(fsb_count(a->h->bs[1], BS_OP_READ), 0);
	}
	assert_int_equal(scsi_alua_set_state(1, "lu1", SCSI_ALUA_ACTIVE_NON_OPTIMIZED), 0);
	sh_clear_ua(a->h->p1, 1);
	acc_copy(a, a->h->p1, 0, 0, 1, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(scsi_alua_set_state(1, "lu1", SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
}

/* lu[1] through p3's read-only mapping (LUN 2): DATA PROTECT; p1, whose
 * mapping of it is writable, copies into it. */
static void test_access_write_protected_dst(void **state)
{
	struct acc *a = *state;
	struct loop_result r;

	acc_copy(a, a->p3, 0, 0, 1, 8, &r);
	SH_WRITE_PROTECTED(&r);
	assert_int_equal(fsb_count(a->h->bs[1], BS_OP_WRITE), 0);
	acc_copy(a, a->h->p1, 0, 0, 1, 8, &r);
	sh_expect_good(&r);
}

/* lu[2] is in c's ACL map only: for p1 it is not reachable (as source or
 * destination), for p3 it is. */
static void test_access_acl_map_dst(void **state)
{
	struct acc *a = *state;
	struct loop_result r;

	acc_copy(a, a->h->p1, 0, 0, 2, 8, &r);
	COPY_TARGET_UNREACHABLE(&r);
	acc_copy(a, a->h->p1, 0, 2, 0, 8, &r);
	COPY_TARGET_UNREACHABLE(&r);
	assert_int_equal(fsb_count(a->h->bs[2], BS_OP_WRITE), 0);
	assert_int_equal(fsb_count(a->h->bs[2], BS_OP_READ), 0);
	sh_fill(a->h, 0, 0, 8, 'C');
	acc_copy(a, a->p3, 0, 0, 2, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_data(a->h->bs[2])[0], 'C');
}

/* A reservation taken while the copy runs stops it at the next chunk: the
 * first chunk's read is held, p2 reserves the destination meanwhile, and
 * the copy writes nothing. */
static void test_access_checked_per_chunk(void **state)
{
	struct acc *a = *state;
	static const uint8_t reserve6[6] = {0x16};
	uint8_t d[2][20], b[256], c[16];
	struct xseg s = {0, 1, 3000, 0, 0}; /* two chunks */
	struct loop_result r;
	struct loop_task *t;
	uint32_t len;

	memcpy(d[0], a->d[0], 20);
	memcpy(d[1], a->d[1], 20);
	len = xc_list(b, 0, 3, d, 2, &s, 1, 512);
	memset(c, 0, sizeof(c));
	c[0] = 0x83;
	put_be32(c + 10, len);
	fsb_hold(a->h->bs[0], true);
	t = loop_submit_async(a->h->p1, sh_lun(0), c, 16, SCSI_DIR_WRITE, b, len, SCSI_ATTR_SIMPLE,
			      7, 0);
	assert_non_null(t);
	assert_int_equal(fsb_wait_held(a->h->bs[0], 1), 1);
	sh_cmd(a->h->p2, 1, reserve6, 6, SCSI_DIR_NONE, NULL, 0, &r);
	sh_expect_good(&r);
	fsb_hold(a->h->bs[0], false);
	fsb_release(a->h->bs[0]);
	loop_wait(t, &r);
	THIRD_PARTY_FAILURE(&r);
	assert_int_equal(fsb_count(a->h->bs[1], BS_OP_WRITE), 0);
}

/* ---- EXTENDED COPY(LID4), RECEIVE COPY STATUS(LID4), RECEIVE COPY DATA(LID4) ---- */

#define LID4_HDR 48

/* A LID4 parameter list (SPC-4 6.4.2 table 126) around the descriptors of
 * the LID1 list xc_list() builds. */
static uint32_t xc4_list(uint8_t *b, uint32_t list_id, uint8_t usage, uint8_t desig[][20],
			 unsigned ntgt, const struct xseg *s, unsigned nseg, uint32_t bsz)
{
	uint8_t l1[16 + 32 * 8 + 28 * 70];
	uint32_t n = xc_list(l1, 0, usage, desig, ntgt, s, nseg, bsz) - 16;

	memset(b, 0, LID4_HDR);
	b[0] = 0x01; /* PARAMETER LIST FORMAT */
	b[1] = (uint8_t)(usage << 3);
	put_be16(b + 2, 0x20); /* HEADER CSCD DESCRIPTOR LIST LENGTH */
	b[16] = 0xff;	       /* HEADER CSCD DESCRIPTOR TYPE CODE */
	put_be32(b + 20, list_id);
	put_be16(b + 42, (uint16_t)(32 * ntgt));
	put_be16(b + 44, (uint16_t)(28 * nseg));
	memcpy(b + LID4_HDR, l1 + 16, n);
	return LID4_HDR + n;
}

static uint8_t xcopy4(struct loop_port *p, uint64_t lun, uint8_t *list, uint32_t len,
		      struct loop_result *r)
{
	uint8_t c[16];

	memset(c, 0, 16);
	c[0] = 0x83;
	c[1] = 0x01;
	put_be32(c + 10, len);
	return sh_cmd(p, lun, c, 16, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, len, r);
}

/* RECEIVE COPY STATUS(LID4) (sa 05h) or RECEIVE COPY DATA(LID4) (06h). */
static uint8_t rcs4(struct loop_port *p, uint64_t lun, uint8_t sa, uint32_t list_id, uint8_t *d,
		    uint32_t alloc, struct loop_result *r)
{
	uint8_t c[16];

	memset(c, 0, 16);
	c[0] = 0x84;
	c[1] = sa;
	put_be32(c + 2, list_id);
	put_be32(c + 10, alloc);
	return sh_cmd(p, lun, c, 16, SCSI_DIR_READ, d, alloc, r);
}

/* A LID4 list LUN 0 -> LUN 1 issued to LUN 0; its status in golden bytes. */
static void test_lid4_copy(void **state)
{
	static const uint8_t want_rcs[32] = {
	    0x00, 0x00, 0x00, 0x1c, /* AVAILABLE DATA 28 */
	    0x01, 0x01, 0x00, 0x00, /* EXTENDED COPY(LID4), completed without errors */
	    0xff, 0xff, 0xff, 0xfe, /* ESTIMATED STATUS UPDATE DELAY: done */
	    0x00, 0x00, 0x00, 0x00, /* GOOD, no sense data, TRANSFER COUNT UNITS bytes */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x40, 0x00, /* 160 blocks: 81920 bytes */
	    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 2 segments processed */
	};
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[512], st[128];
	struct xseg s[2] = {{0, 1, 100, 0, 500}, {0, 1, 60, 200, 700}};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	sh_fill(h, 0, 0, 100, 'L');
	sh_fill(h, 0, 200, 60, 'M');
	len = xc4_list(b, 0x12345678, 0, d, 2, s, 2, 512);
	assert_int_equal(len, 48 + 64 + 56);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 500, 100, 'L'));
	assert_true(sh_blocks_are(h, 1, 700, 60, 'M'));
	assert_true(sh_blocks_are(h, 1, 600, 1, 0));
	/* RECEIVE COPY STATUS(LID4), twice: the status stays */
	for (int i = 0; i < 2; i++) {
		memset(st, 0xee, sizeof(st));
		rcs4(h->p1, 0, 0x05, 0x12345678, st, sizeof(st), &r);
		sh_expect_good(&r);
		assert_int_equal(r.data_in_len, 32);
		assert_memory_equal(st, want_rcs, 32);
	}
	/* RECEIVE COPY DATA(LID4): the same, AVAILABLE DATA 32, HDD 0, and
	 * HELD DATA LENGTH 0 */
	memset(st, 0xee, sizeof(st));
	rcs4(h->p1, 0, 0x06, 0x12345678, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 36);
	assert_int_equal(get_be32(st), 32);
	assert_memory_equal(st + 4, want_rcs + 4, 28);
	assert_int_equal(get_be32(st + 32), 0);
	/* a short allocation length truncates */
	rcs4(h->p1, 0, 0x06, 0x12345678, st, 8, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 8);
	/* unknown list identifiers, another I_T nexus, another LU's copy
	 * manager: INVALID FIELD IN CDB at the LIST IDENTIFIER */
	rcs4(h->p1, 0, 0x05, 0x12345679, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 2, -1);
	rcs4(h->p1, 0, 0x06, 0x78, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 2, -1);
	rcs4(h->p2, 0, 0x06, 0x12345678, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	rcs4(h->p1, 1, 0x06, 0x12345678, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	/* LIST ID USAGE 10b: runs, not held (SPC-4 6.4.3.2 allows "as if the
	 * command had not been processed") */
	len = xc4_list(b, 0x20, 2, d, 2, s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x06, 0x20, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	/* LIST ID USAGE 11b, LIST IDENTIFIER 0; PARAMETER LIST LENGTH 0 */
	len = xc4_list(b, 0, 3, d, 2, s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x05, 0, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	xcopy4(h->p1, 0, NULL, 0, &r);
	sh_expect_good(&r);
	/* LID1 still works, and its list identifier is the same 32-bit
	 * quantity (SPC-4 5.17.4.2): RECEIVE COPY STATUS(LID4) reports it */
	sh_fill(h, 0, 0, 100, 'N');
	len = xc_list(b, 0x33, 0, d, 2, s, 1, 512);
	xcopy(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 1, 500, 100, 'N'));
	rcs4(h->p1, 0, 0x05, 0x33, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x00); /* EXTENDED COPY(LID1) */
	assert_int_equal(st[5], 0x01);
	assert_int_equal(get_be64(st + 16), 100 * 512);
	rcr(h->p1, 0x00, 0x33, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x01);
	sh_teardown(h);
}

/* The LID4 header's fields (SPC-4 6.4.2, 6.4.3) and the descriptor checks
 * it shares with LID1. */
static void test_lid4_header(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[10][20], *b = calloc(1, 8192), st[64];
	struct xseg s[70];
	uint32_t len;

	(void)state;
	for (int i = 0; i < 10; i++)
		lu_designator(h, 0, d[i]);
	for (int i = 0; i < 70; i++)
		s[i] = (struct xseg){0, 0, 1, (uint64_t)i, 100 + (uint64_t)i};
	len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
	/* shorter than the header, than the descriptors; a CDB length beyond
	 * the header and MAXIMUM DESCRIPTOR LIST LENGTH */
	xcopy4(h->p1, 0, b, 47, &r);
	SH_PARAM_LEN(&r);
	xcopy4(h->p1, 0, b, len - 1, &r);
	SH_PARAM_LEN(&r);
	xcopy4(h->p1, 0, b, LID4_HDR + XCOPY_MAX_DESCRIPTOR_LIST_BYTES + 1, &r);
	SH_PARAM_LEN(&r);
	/* PARAMETER LIST FORMAT, HEADER CSCD DESCRIPTOR LIST LENGTH, HEADER
	 * CSCD DESCRIPTOR TYPE CODE, a reserved byte */
	static const struct {
		unsigned byte;
		uint8_t v;
	} bad[] = {{0, 0x00}, {0, 0x02}, {3, 0x10}, {16, 0xe4}, {4, 0x01}, {19, 0x80}, {30, 0x01}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
		b[bad[i].byte] = bad[i].v;
		xcopy4(h->p1, 0, b, len, &r);
		SH_INVALID_PARAM(&r);
		sh_expect_fp(&r, false, bad[i].byte == 3 ? 2 : bad[i].byte, -1);
	}
	/* LIST ID USAGE 01b reserved; 11b with a LIST IDENTIFIER */
	len = xc4_list(b, 1, 1, d, 1, s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 1, 4);
	len = xc4_list(b, 0x100, 3, d, 1, s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 20, -1);
	/* IMMED with G_SENSE, or with LIST ID USAGE 11b: INVALID FIELD IN CDB
	 * (SPC-4 6.4.3), no field pointer */
	len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
	b[15] = 0x03;
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_CDB(&r);
	assert_int_equal(r.sense[15] & 0x80, 0);
	len = xc4_list(b, 0, 3, d, 1, s, 1, 512);
	b[15] = 0x01;
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_CDB(&r);
	/* G_SENSE: GOOD with sense data is not offered */
	len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
	b[15] = 0x02;
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 15, 1);
	/* IMMED alone: accepted, status after the copy */
	len = xc4_list(b, 2, 0, d, 1, s, 1, 512);
	b[15] = 0x01;
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x05, 2, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[5], 0x01);
	/* INLINE DATA LENGTH (bytes 46-47): MAXIMUM INLINE DATA LENGTH is 0 */
	len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
	put_be16(b + 46, 4);
	xcopy4(h->p1, 0, b, len + 4, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x0b);
	sh_expect_fp(&r, false, 46, -1);
	/* the descriptor checks are LID1's, at the LID4 offsets */
	len = xc4_list(b, 1, 0, d, XCOPY_MAX_TARGET_DESCRIPTORS + 1, s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x06);
	len = xc4_list(b, 1, 0, d, 1, s, XCOPY_MAX_SEGMENT_DESCRIPTORS + 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x08);
	len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
	b[LID4_HDR] = 0xe0;
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x26, 0x07);
	sh_expect_fp(&r, false, LID4_HDR, 7);
	len = xc4_list(b, 1, 0, d, 1, s, 1, 4096);
	xcopy4(h->p1, 0, b, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, LID4_HDR + 29, -1);
	/* segment descriptors that would hold data for the application
	 * client (block -> stream + application client 0Bh ... stream ->
	 * discard + application client 0Fh): UNSUPPORTED SEGMENT DESCRIPTOR
	 * TYPE CODE, in both formats */
	for (uint8_t t = 0x0b; t <= 0x0f; t++) {
		len = xc4_list(b, 1, 0, d, 1, s, 1, 512);
		b[LID4_HDR + 32] = t;
		xcopy4(h->p1, 0, b, len, &r);
		sh_expect(&r, SH_ILLEGAL, 0x26, 0x09);
		sh_expect_fp(&r, false, LID4_HDR + 32, 7);
		len = xc_list(b, 1, 0, d, 1, s, 1, 512);
		b[16 + 32] = t;
		xcopy(h->p1, 0, b, len, &r);
		sh_expect(&r, SH_ILLEGAL, 0x26, 0x09);
	}
	/* a refused list leaves no status behind */
	rcs4(h->p1, 0, 0x05, 1, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);
	free(b);
	sh_teardown(h);
}

/* A LID4 copy that fails: COPY OPERATION STATUS 02h, CHECK CONDITION and
 * the sense data it ended with (SPC-4 6.24). */
static void test_lid4_failed(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	uint8_t d[2][20], b[512], st[128];
	struct xseg s[2] = {{0, 1, 8, 0, 0}, {0, 1, 8, 8, 8}};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	fsb_fail(h->bs[1], BS_OP_WRITE, -EIO, 1, 0);
	len = xc4_list(b, 0xabcd, 0, d, 2, s, 2, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect(&r, 0x0a, 0x0d, 0x01);
	memset(st, 0xee, sizeof(st));
	rcs4(h->p1, 0, 0x05, 0xabcd, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 32 + 20);
	assert_int_equal(get_be32(st), 28 + 20);
	assert_int_equal(st[4], 0x01);
	assert_int_equal(st[5], 0x02); /* completed with errors */
	assert_int_equal(get_be32(st + 8), 0xfffffffe);
	assert_int_equal(st[12], 0x02); /* CHECK CONDITION */
	assert_int_equal(st[13], 20);	/* LENGTH OF THE SENSE DATA FIELD */
	assert_int_equal(st[14], 18);	/* SENSE DATA LENGTH: fixed format */
	assert_int_equal(get_be64(st + 16), 0);
	assert_int_equal(get_be16(st + 24), 1); /* the segment being processed */
	assert_int_equal(st[32] & 0x7f, 0x70);
	assert_int_equal(st[32 + 2] & 0x0f, 0x0a); /* COPY ABORTED */
	assert_int_equal(st[32 + 12], 0x0d);
	assert_int_equal(st[32 + 13], 0x01);
	assert_int_equal(st[32 + 18], 0);
	assert_int_equal(st[32 + 19], 0);
	rcs4(h->p1, 0, 0x06, 0xabcd, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 32 + 20 + 4);
	assert_int_equal(get_be32(st), 52);
	assert_int_equal(get_be32(st + 52), 0); /* HELD DATA LENGTH */
	sh_teardown(h);
}

/* POPULATE TOKEN of n blocks at LBA 0 of LUN 0 with list_id. */
static void populate(struct loop_port *p, uint32_t list_id, struct loop_result *r)
{
	uint8_t c[16] = {0x83, 0x10}, pl[32] = {0};

	put_be32(c + 6, list_id);
	put_be32(c + 10, sizeof(pl));
	put_be16(pl, sizeof(pl) - 2);
	put_be16(pl + 14, 16);
	put_be32(pl + 16 + 8, 8);
	sh_cmd(p, 0, c, 16, SCSI_DIR_WRITE, pl, sizeof(pl), r);
}

/* One list identifier space per I_T nexus (SPC-4 5.17.4.2): a copy
 * operation discards the results of an earlier one with its list
 * identifier, an EXTENDED COPY's or a token copy's; a duplicate of one in
 * progress is refused (OPERATION IN PROGRESS; in the other format INVALID
 * FIELD IN PARAMETER LIST), and its status reads "in progress". */
static void test_lid4_list_ids(void **state)
{
	struct sh *h = sh_setup(&xc_opts);
	struct loop_result r;
	struct loop_task *t;
	uint8_t d[2][20], b[512], b2[512], st[600], c[16];
	struct xseg s = {0, 1, 8, 0, 0};
	uint32_t len;

	(void)state;
	lu_designator(h, 0, d[0]);
	lu_designator(h, 1, d[1]);
	len = xc4_list(b, 7, 0, d, 2, &s, 1, 512);
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	/* POPULATE TOKEN with list identifier 7 takes it over */
	populate(h->p1, 7, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x05, 7, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x10);
	assert_int_equal(st[15], 0xf1);
	rcs4(h->p1, 0, 0x06, 7, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x10);
	assert_int_equal(get_be32(st + 32), 0);
	/* and an EXTENDED COPY(LID4) back: the token's result is gone */
	xcopy4(h->p1, 0, b, len, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x05, 7, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[4], 0x01);
	memset(c, 0, 16);
	c[0] = 0x84;
	c[1] = 0x07;
	put_be32(c + 2, 7);
	put_be32(c + 10, sizeof(st));
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, st, sizeof(st), &r);
	SH_INVALID_CDB(&r);

	/* list identifier 9 in progress (its read held) */
	len = xc4_list(b, 9, 0, d, 2, &s, 1, 512);
	memset(c, 0, 16);
	c[0] = 0x83;
	c[1] = 0x01;
	put_be32(c + 10, len);
	fsb_hold(h->bs[0], true);
	t = loop_submit_async(h->p1, sh_lun(0), c, 16, SCSI_DIR_WRITE, b, len, SCSI_ATTR_SIMPLE, 7,
			      0);
	assert_non_null(t);
	assert_int_equal(fsb_wait_held(h->bs[0], 1), 1);
	rcs4(h->p1, 0, 0x05, 9, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[5], 0x11); /* in progress in the foreground */
	assert_int_equal(get_be32(st + 8), 0xffffffff);
	memcpy(b2, b, len);
	xcopy4(h->p1, 0, b2, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x00, 0x16);
	len = xc_list(b2, 9, 0, d, 2, &s, 1, 512);
	xcopy(h->p1, 0, b2, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 0, -1);
	/* another I_T nexus has its own list identifiers (a copy within LUN
	 * 1: LUN 0's I/O is held) */
	s = (struct xseg){1, 1, 8, 100, 200};
	len = xc4_list(b2, 9, 0, d, 2, &s, 1, 512);
	xcopy4(h->p2, 1, b2, len, &r);
	sh_expect_good(&r);
	fsb_hold(h->bs[0], false);
	fsb_release(h->bs[0]);
	loop_wait(t, &r);
	sh_expect_good(&r);
	rcs4(h->p1, 0, 0x05, 9, st, sizeof(st), &r);
	sh_expect_good(&r);
	assert_int_equal(st[5], 0x01);
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_between_lus),
		cmocka_unit_test(test_copy_outside_map),
		cmocka_unit_test(test_copy_write_protected),
		cmocka_unit_test(test_param_list),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_copy_status),
		cmocka_unit_test(test_op_params),
		cmocka_unit_test(test_lid4_copy),
		cmocka_unit_test(test_lid4_header),
		cmocka_unit_test(test_lid4_failed),
		cmocka_unit_test(test_lid4_list_ids),
		cmocka_unit_test_setup_teardown(test_access_spc2_reservation_dst, acc_setup, acc_teardown),
		cmocka_unit_test_setup_teardown(test_access_pr_exclusive_src, acc_setup, acc_teardown),
		cmocka_unit_test_setup_teardown(test_access_alua_dst, acc_setup, acc_teardown),
		cmocka_unit_test_setup_teardown(test_access_write_protected_dst, acc_setup, acc_teardown),
		cmocka_unit_test_setup_teardown(test_access_acl_map_dst, acc_setup, acc_teardown),
		cmocka_unit_test_setup_teardown(test_access_checked_per_chunk, acc_setup, acc_teardown),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
