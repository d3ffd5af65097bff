/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_unmap.c: UNMAP and GET LBA STATUS (unmap.c): deallocation, the
 * parameter list validation (lengths, descriptor count, LBA count, ranges),
 * refusals, and LBA status extents before and after deallocation.
 * Set-up: sbc_harness.h (p1, p2 -> LUN 0, thin unless said). */
#include "sbc_harness.h"

#include <errno.h>

#include "scsi/limits.h"

static const struct sh_opts thin_opts = {.caps = FSB_ALL_CAPS, .thin = true};

struct ud {
	uint64_t lba;
	uint32_t n;
};

/* Build an UNMAP parameter list of count descriptors into b (header as an
 * initiator builds it); returns its length. */
static uint32_t unmap_list(uint8_t *b, const struct ud *d, unsigned count)
{
	uint32_t len = 8 + 16 * count;

	memset(b, 0, len);
	put_be16(b, (uint16_t)(len - 2));
	put_be16(b + 2, (uint16_t)(len - 8));
	for (unsigned i = 0; i < count; i++) {
		put_be64(b + 8 + 16 * i, d[i].lba);
		put_be32(b + 8 + 16 * i + 8, d[i].n);
	}
	return len;
}

static uint8_t unmap(struct sh *h, uint8_t b1, uint8_t *list, uint32_t len, uint32_t xfer,
		     struct loop_result *r)
{
	uint8_t c[10];

	cdb10(c, 0x42, b1, 0, (uint16_t)len);
	c[2] = c[3] = c[4] = c[5] = 0;
	return sh_cmd(h->p1, 0, c, 10, xfer ? SCSI_DIR_WRITE : SCSI_DIR_NONE, list, xfer, r);
}

static void test_unmap_simple(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	const struct ud d[] = {{2, 1}, {5, 3}, {100, 0}};
	uint8_t b[64];
	uint32_t len = unmap_list(b, d, 3);

	(void)state;
	sh_fill(h, 0, 0, 16, 'a');
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 2, 'a'));
	assert_true(sh_blocks_are(h, 0, 2, 1, 0));
	assert_true(sh_blocks_are(h, 0, 3, 2, 'a'));
	assert_true(sh_blocks_are(h, 0, 5, 3, 0));
	assert_true(sh_blocks_are(h, 0, 8, 8, 'a'));
	assert_false(fsb_mapped(h->bs[0], 2 * 512));
	assert_false(fsb_mapped(h->bs[0], 7 * 512));
	assert_true(fsb_mapped(h->bs[0], 8 * 512));
	sh_teardown(h);
}

/* On the RAM back-store, LBPRZ: deallocated blocks read as zeroes
 * (Unmap.Simple with one descriptor per block). */
static void test_unmap_ram(void **state)
{
	struct sh_opts o = {.ram = true, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	struct ud d[256];
	uint8_t *b = malloc(8 + 16 * 256);

	(void)state;
	sh_fill(h, 0, 0, 256, 'a');
	for (unsigned i = 0; i < 256; i++)
		d[i] = (struct ud){.lba = i, .n = 1};
	for (unsigned i = 1; i <= 256; i += 85) {
		uint32_t len = unmap_list(b, d, i);

		unmap(h, 0, b, len, len, &r);
		sh_expect_good(&r);
		assert_true(sh_blocks_are(h, 0, 0, i, 0));
	}
	free(b);
	sh_teardown(h);
}

static void test_unmap_empty(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	struct ud d = {.lba = h->blocks, .n = 0};
	uint8_t b[32];
	uint32_t len;

	(void)state;
	/* PARAMETER LIST LENGTH 0: nothing to do */
	unmap(h, 0, NULL, 0, 0, &r);
	sh_expect_good(&r);
	/* a header without descriptors */
	len = unmap_list(b, NULL, 0);
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	/* zero blocks at the end of the medium (Unmap.ZeroBlocks) */
	len = unmap_list(b, &d, 1);
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	sh_teardown(h);
}

static void test_unmap_param_list(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS, .thin = true, .blocks = 8192};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	uint8_t *b = calloc(1, 8 + 16 * 300);
	struct ud d[300];
	uint32_t len;

	(void)state;
	sh_fill(h, 0, 0, 4, 'a');
	/* 1..7 bytes cannot hold the header */
	for (uint32_t l = 1; l < 8; l++) {
		unmap(h, 0, b, l, l, &r);
		SH_PARAM_LEN(&r);
	}
	/* descriptors announced beyond what was sent */
	d[0] = (struct ud){0, 1};
	len = unmap_list(b, d, 1);
	put_be16(b + 2, 32);
	put_be16(b, 38);
	unmap(h, 0, b, len, len, &r);
	SH_PARAM_LEN(&r);
	/* UNMAP DATA LENGTH smaller than the descriptors it covers */
	len = unmap_list(b, d, 1);
	put_be16(b, 6);
	unmap(h, 0, b, len, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 0, -1);
	/* a trailing partial descriptor is ignored */
	len = unmap_list(b, d, 1);
	put_be16(b, (uint16_t)(len + 8 - 2));
	put_be16(b + 2, 16 + 8);
	memset(b + len, 0xff, 8);
	unmap(h, 0, b, len + 8, len + 8, &r);
	sh_expect_good(&r);
	assert_true(sh_blocks_are(h, 0, 0, 1, 0));
	assert_true(sh_blocks_are(h, 0, 1, 3, 'a'));
	/* more descriptors than MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT */
	for (unsigned i = 0; i < 300; i++)
		d[i] = (struct ud){i, 1};
	len = unmap_list(b, d, SBC_MAX_UNMAP_DESCRIPTORS + 1);
	unmap(h, 0, b, len, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 2, -1);
	/* more LBAs than MAXIMUM UNMAP LBA COUNT (2^20): the descriptor
	 * where the sum goes over */
	for (unsigned i = 0; i < 129; i++)
		d[i] = (struct ud){0, 8192};
	len = unmap_list(b, d, 129);
	unmap(h, 0, b, len, len, &r);
	SH_INVALID_PARAM(&r);
	sh_expect_fp(&r, false, 8 + 128 * 16 + 8, -1);
	/* a range beyond the capacity: nothing is deallocated, even the
	 * valid descriptors before it */
	sh_fill(h, 0, 10, 2, 'b');
	d[0] = (struct ud){10, 2};
	d[1] = (struct ud){h->blocks - 1, 2};
	len = unmap_list(b, d, 2);
	unmap(h, 0, b, len, len, &r);
	SH_LBA_OOB(&r);
	assert_true(sh_blocks_are(h, 0, 10, 2, 'b'));
	d[1] = (struct ud){UINT64_MAX, 1};
	len = unmap_list(b, d, 2);
	unmap(h, 0, b, len, len, &r);
	SH_LBA_OOB(&r);
	/* ANCHOR: no ANC_SUP */
	len = unmap_list(b, d, 1);
	unmap(h, 0x01, b, len, len, &r);
	SH_INVALID_CDB(&r);
	sh_expect_fp(&r, true, 1, 0);
	free(b);
	sh_teardown(h);
}

static void test_unmap_refused(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	struct ud d = {0, 1};
	uint8_t b[32];
	uint32_t len = unmap_list(b, &d, 1);

	(void)state;
	/* fully provisioned: no UNMAP (LBPU=0, Unmap.VPD) */
	unmap(h, 0, b, len, len, &r);
	sh_expect(&r, SH_ILLEGAL, 0x20, 0x00);
	sh_teardown(h);

	o.thin = true;
	o.read_only = true;
	h = sh_setup(&o);
	unmap(h, 0, b, len, len, &r);
	SH_WRITE_PROTECTED(&r);
	sh_teardown(h);
}

/* Without DISCARD: WRITE_ZEROES; without that either: zeroes written. */
static void test_unmap_fallbacks(void **state)
{
	struct sh_opts o = {.caps = BS_CAP_FLUSH | BS_CAP_WRITE_ZEROES, .thin = true};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	struct ud d = {3, 2500};
	uint8_t b[32];
	uint32_t len = unmap_list(b, &d, 1);

	(void)state;
	sh_fill(h, 0, 0, 3000, 'q');
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE_ZEROES), 1);
	assert_true(sh_blocks_are(h, 0, 3, 2500, 0));
	assert_true(sh_blocks_are(h, 0, 2503, 1, 'q'));
	sh_teardown(h);

	o.caps = BS_CAP_FLUSH;
	h = sh_setup(&o);
	sh_fill(h, 0, 0, 3000, 'q');
	fsb_reset_counts(h->bs[0]);
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	assert_int_equal(fsb_count(h->bs[0], BS_OP_WRITE), 2); /* 1 MiB zero chunks */
	assert_true(sh_blocks_are(h, 0, 3, 2500, 0));
	assert_true(sh_blocks_are(h, 0, 2, 1, 'q'));
	/* an error while zeroing */
	fsb_fail(h->bs[0], BS_OP_WRITE, -EIO, 1, 0);
	unmap(h, 0, b, len, len, &r);
	sh_expect(&r, 0x03, 0x0c, 0x00);
	assert_int_equal(sh_info(&r), 3);
	sh_teardown(h);
}

/* ---- GET LBA STATUS ---- */

struct lbas {
	uint64_t lba;
	uint32_t n;
	uint8_t status;
};

static unsigned gls(struct sh *h, uint64_t lba, uint32_t alloc, struct lbas *out, unsigned max,
		    struct loop_result *r)
{
	uint8_t c[16], d[8 + 16 * 64];
	unsigned n;

	memset(d, 0, sizeof(d));
	cdb16(c, 0x9e, 0x12, lba, alloc);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_READ, d, alloc, r);
	if (r->status != SAM_STAT_GOOD || r->data_in_len < 8)
		return 0;
	n = (get_be32(d) - 4) / 16;
	for (unsigned i = 0; i < n && i < max && 8 + 16 * (i + 1) <= r->data_in_len; i++) {
		const uint8_t *e = d + 8 + 16 * i;

		out[i] = (struct lbas){get_be64(e), get_be32(e + 8), e[12] & 0x0f};
	}
	return n;
}

static void test_gls(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	const struct ud d[] = {{2, 1}, {5, 3}};
	struct lbas s[16];
	uint8_t b[64];
	uint32_t len = unmap_list(b, d, 2);
	unsigned n;

	(void)state;
	sh_fill(h, 0, 0, (uint32_t)h->blocks, 'm');
	n = gls(h, 0, 8 + 16 * 16, s, 16, &r);
	sh_expect_good(&r);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].lba, 0);
	assert_int_equal(s[0].n, h->blocks);
	assert_int_equal(s[0].status, 0);
	unmap(h, 0, b, len, len, &r);
	sh_expect_good(&r);
	/* mapped 0-1, deallocated 2, mapped 3-4, deallocated 5-7, mapped 8- */
	n = gls(h, 0, 8 + 16 * 16, s, 16, &r);
	sh_expect_good(&r);
	assert_int_equal(n, 5);
	assert_true(s[0].lba == 0 && s[0].n == 2 && s[0].status == 0);
	assert_true(s[1].lba == 2 && s[1].n == 1 && s[1].status == 1);
	assert_true(s[2].lba == 3 && s[2].n == 2 && s[2].status == 0);
	assert_true(s[3].lba == 5 && s[3].n == 3 && s[3].status == 1);
	assert_true(s[4].lba == 8 && s[4].n == h->blocks - 8 && s[4].status == 0);
	/* from an LBA inside an extent: the first descriptor starts there */
	n = gls(h, 6, 8 + 16 * 16, s, 16, &r);
	assert_int_equal(n, 2);
	assert_true(s[0].lba == 6 && s[0].n == 2 && s[0].status == 1);
	assert_true(s[1].lba == 8 && s[1].status == 0);
	/* an allocation length for one descriptor: one, PARAMETER DATA
	 * LENGTH 20 */
	n = gls(h, 0, 24, s, 16, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 24);
	assert_int_equal(n, 1);
	assert_true(s[0].lba == 0 && s[0].n == 2);
	/* truncated below one descriptor, and zero: not errors */
	gls(h, 0, 8, s, 16, &r);
	sh_expect_good(&r);
	assert_int_equal(r.data_in_len, 8);
	gls(h, 0, 0, s, 16, &r);
	sh_expect_good(&r);
	/* beyond the last LBA (GetLBAStatus.BeyondEol) */
	gls(h, h->blocks, 24, s, 16, &r);
	SH_LBA_OOB(&r);
	gls(h, UINT64_MAX, 24, s, 16, &r);
	SH_LBA_OOB(&r);
	gls(h, h->blocks - 1, 24, s, 16, &r);
	sh_expect_good(&r);
	/* a back-store error */
	fsb_fail(h->bs[0], BS_OP_MAP_STATUS, -EIO, 1, 0);
	gls(h, 0, 24, s, 16, &r);
	sh_expect(&r, 0x03, 0x11, 0x00);
	sh_teardown(h);
}

/* Fully provisioned, or no MAP_STATUS: everything mapped. */
static void test_gls_all_mapped(void **state)
{
	struct sh_opts o = {.caps = FSB_ALL_CAPS};
	struct sh *h = sh_setup(&o);
	struct loop_result r;
	struct lbas s[4];

	(void)state;
	assert_int_equal(gls(h, 10, 64, s, 4, &r), 1);
	sh_expect_good(&r);
	assert_true(s[0].lba == 10 && s[0].n == h->blocks - 10 && s[0].status == 0);
	sh_teardown(h);

	o.thin = true;
	o.caps = BS_CAP_FLUSH | BS_CAP_DISCARD;
	h = sh_setup(&o);
	assert_int_equal(gls(h, 0, 64, s, 4, &r), 1);
	assert_true(s[0].n == h->blocks && s[0].status == 0);
	sh_teardown(h);
}

/* After WRITE SAME UNMAP of the whole medium: one deallocated extent
 * (what SanitizeBlockErase's check_unmap looks for). */
static void test_gls_after_ws_unmap(void **state)
{
	struct sh *h = sh_setup(&thin_opts);
	struct loop_result r;
	struct lbas s[4];
	uint8_t zero[512] = {0}, c[16];

	(void)state;
	sh_fill(h, 0, 0, 64, 1);
	cdb16(c, 0x93, 0x08, 0, 0);
	sh_cmd(h->p1, 0, c, 16, SCSI_DIR_WRITE, zero, 512, &r);
	sh_expect_good(&r);
	assert_int_equal(gls(h, 0, 256, s, 4, &r), 1);
	assert_true(s[0].lba == 0 && s[0].n == h->blocks && s[0].status == 1);
	sh_teardown(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmap_simple),
		cmocka_unit_test(test_unmap_ram),
		cmocka_unit_test(test_unmap_empty),
		cmocka_unit_test(test_unmap_param_list),
		cmocka_unit_test(test_unmap_refused),
		cmocka_unit_test(test_unmap_fallbacks),
		cmocka_unit_test(test_gls),
		cmocka_unit_test(test_gls_all_mapped),
		cmocka_unit_test(test_gls_after_ws_unmap),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
