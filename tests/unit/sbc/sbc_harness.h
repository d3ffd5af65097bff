/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc_harness.h: set-up shared by the block command tests.
 *
 *   initiator "iqn.test:a" --loop port (p1, own reactor thread)--\
 *                                                                 target "iqn.test:t"
 *   initiator "iqn.test:b" --loop port (p2, own reactor thread)--/  default map:
 *                                                                    LUN 0 = lu[0]
 *                                                                    LUN 1 = lu[1] (second_lu)
 *   lu[2] (outside_lu): a logical unit that exists but is in no LUN map
 *
 * A logical unit sits on the real RAM back-store (ram = true) or on the
 * test back-store of ../fakes/fake_bs_sbc.c (configurable capabilities,
 * failures, held I/O). Commands go through loop_submit(); helpers build
 * CDBs and decode fixed-format sense data. Helpers take LUN numbers (0..255),
 * sent in the peripheral device addressing format. */
#ifndef UT_TEST_SBC_HARNESS_H
#define UT_TEST_SBC_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backstore/backstore.h"
#include "fabric/loop/loop.h"
#include "lib/endian.h"
#include "scsi/scsi.h"
#include "../fakes/fake_bs_sbc.h"

#define FSB_ALL_CAPS (BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_MAP_STATUS)

struct sh_opts {
	uint32_t block_size; /* 0: 512 */
	uint64_t blocks;     /* 0: 4096 */
	bool thin;
	bool ram;	 /* the RAM back-store instead of the fake */
	uint32_t caps;	 /* fake back-store capabilities */
	bool no_wce;	 /* write cache disabled */
	bool read_only;	 /* LUN 0 mapped write protected */
	bool second_lu;	 /* LUN 1 */
	bool outside_lu; /* lu[2], in no map */
};

struct sh {
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu[3];
	struct bs_dev *bs[3];
	struct loop_port *p1, *p2;
	uint32_t bsz;
	uint64_t blocks;
};

static inline struct scsi_lu_attrs sh_attrs(const struct sh_opts *o, unsigned idx)
{
	struct scsi_lu_attrs a = {
	    .block_size = o->block_size ? o->block_size : 512,
	    .thin = o->thin,
	    .write_cache = !o->no_wce,
	    .vendor = "UTARGET",
	    .product = "SBC TEST",
	    .revision = "0001",
	    .serial = "SBC000",
	    .naa = {0x60, 0x01, 0x40, 0x50, 0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33, 0x44,
		    0x55, 0x66, (uint8_t)(0x70 + idx)},
	};
	a.serial[5] = (char)('0' + idx);
	return a;
}

static inline void sh_make_lu(struct sh *h, const struct sh_opts *o, unsigned idx)
{
	struct scsi_lu_attrs a = sh_attrs(o, idx);
	char name[8] = "lu0";

	name[2] = (char)('0' + idx);
	if (o->ram) {
		struct bs_params p = {
		    .type = "ram",
		    .name = name,
		    .size = h->blocks * h->bsz,
		    .block_size = h->bsz,
		};

		assert_int_equal(bs_open(&p, &h->bs[idx]), 0);
	} else {
		h->bs[idx] = fsb_create(h->blocks * h->bsz, o->caps);
		assert_non_null(h->bs[idx]);
	}
	assert_int_equal(scsi_lu_create(name, h->bs[idx], &a, &h->lu[idx]), 0);
}

/* SAM-5 4.6.7: LUN n < 256 in the peripheral device addressing method */
static inline uint64_t sh_lun(uint64_t n)
{
	return n << 48;
}

static inline void sh_clear_ua(struct loop_port *p, uint64_t lun)
{
	static const uint8_t tur[6] = {0};
	struct loop_result r;

	for (int n = 0; n < 16; n++) {
		assert_int_equal(loop_submit(p, sh_lun(lun), tur, 6, SCSI_DIR_NONE, NULL, 0,
					     SCSI_ATTR_SIMPLE, &r),
				 0);
		if (r.status != SAM_STAT_CHECK_CONDITION || (r.sense[2] & 0x0f) != 0x06)
			return;
	}
	fail_msg("unit attentions do not stop");
}

static inline struct sh *sh_setup(const struct sh_opts *o)
{
	struct sh *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	h->bsz = o->block_size ? o->block_size : 512;
	h->blocks = o->blocks ? o->blocks : 4096;
	h->t = scsi_target_create("iqn.test:t");
	assert_non_null(h->t);
	h->map = scsi_lun_map_create();
	sh_make_lu(h, o, 0);
	assert_int_equal(scsi_lun_map_add(h->map, 0, h->lu[0], o->read_only), 0);
	if (o->second_lu) {
		sh_make_lu(h, o, 1);
		assert_int_equal(scsi_lun_map_add(h->map, 1, h->lu[1], false), 0);
	}
	if (o->outside_lu)
		sh_make_lu(h, o, 2);
	scsi_target_set_default_map(h->t, h->map, true);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h->p2 = loop_create(h->t, 1, "iqn.test:b");
	assert_non_null(h->p1);
	assert_non_null(h->p2);
	sh_clear_ua(h->p1, 0);
	sh_clear_ua(h->p2, 0);
	if (o->second_lu) {
		sh_clear_ua(h->p1, 1);
		sh_clear_ua(h->p2, 1);
	}
	return h;
}

static inline void sh_teardown(struct sh *h)
{
	for (unsigned i = 0; i < 3; i++) {
		if (h->bs[i] && !strcmp(h->bs[i]->type, "fake-sbc")) {
			fsb_hold(h->bs[i], false);
			fsb_release(h->bs[i]);
		}
	}
	loop_destroy(h->p1);
	loop_destroy(h->p2);
	scsi_lun_map_put(h->map);
	for (unsigned i = 0; i < 3; i++)
		if (h->lu[i])
			scsi_lu_put(h->lu[i]);
	scsi_target_destroy(h->t);
	free(h);
}

/* Run a CDB on LUN lun; returns the status. */
static inline uint8_t sh_cmd(struct loop_port *p, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
			     enum scsi_dir dir, void *data, uint32_t len, struct loop_result *res)
{
	struct loop_result r;

	if (!res)
		res = &r;
	assert_int_equal(
	    loop_submit(p, sh_lun(lun), cdb, cdb_len, dir, data, len, SCSI_ATTR_SIMPLE, res), 0);
	return res->status;
}

/* Fixed-format sense (D_SENSE is 0 by default): key, ASC, ASCQ. */
static inline void sh_expect(const struct loop_result *r, uint8_t key, uint8_t asc, uint8_t ascq)
{
	if (r->status != SAM_STAT_CHECK_CONDITION)
		fail_msg("status %02xh, expected CHECK CONDITION %x/%02x/%02x", r->status, key, asc,
			 ascq);
	assert_true(r->sense_len >= 18);
	assert_int_equal(r->sense[0] & 0x7f, 0x70);
	if ((r->sense[2] & 0x0f) != key || r->sense[12] != asc || r->sense[13] != ascq)
		fail_msg("sense %x/%02x/%02x, expected %x/%02x/%02x", r->sense[2] & 0x0f,
			 r->sense[12], r->sense[13], key, asc, ascq);
}

static inline void sh_expect_good(const struct loop_result *r)
{
	if (r->status != SAM_STAT_GOOD)
		fail_msg("status %02xh sense %x/%02x/%02x, expected GOOD", r->status,
			 r->sense_len ? r->sense[2] & 0x0f : 0, r->sense[12], r->sense[13]);
}

#define SH_ILLEGAL	      0x05
#define SH_INVALID_CDB(r)     sh_expect((r), SH_ILLEGAL, 0x24, 0x00)
#define SH_INVALID_PARAM(r)   sh_expect((r), SH_ILLEGAL, 0x26, 0x00)
#define SH_LBA_OOB(r)	      sh_expect((r), SH_ILLEGAL, 0x21, 0x00)
#define SH_PARAM_LEN(r)	      sh_expect((r), SH_ILLEGAL, 0x1a, 0x00)
#define SH_MISCOMPARE(r)      sh_expect((r), 0x0e, 0x1d, 0x00)
#define SH_WRITE_PROTECTED(r) sh_expect((r), 0x07, 0x27, 0x00)

/* INFORMATION field of fixed sense data (VALID set). */
static inline uint32_t sh_info(const struct loop_result *r)
{
	assert_true(r->sense[0] & 0x80);
	return get_be32(r->sense + 3);
}

/* SENSE KEY SPECIFIC field pointer: C/D, byte; bit (-1 when BPV is 0). */
static inline void sh_expect_fp(const struct loop_result *r, bool cd, unsigned byte, int bit)
{
	const uint8_t *s = r->sense + 15;

	assert_true(s[0] & 0x80);
	assert_int_equal(!!(s[0] & 0x40), cd);
	assert_int_equal(get_be16(s + 1), byte);
	if (bit < 0) {
		assert_false(s[0] & 0x08);
	} else {
		assert_true(s[0] & 0x08);
		assert_int_equal(s[0] & 0x07, bit);
	}
}

/* ---- CDB builders ---- */

static inline void cdb10(uint8_t *c, uint8_t op, uint8_t b1, uint32_t lba, uint16_t n)
{
	memset(c, 0, 10);
	c[0] = op;
	c[1] = b1;
	put_be32(c + 2, lba);
	put_be16(c + 7, n);
}

static inline void cdb12(uint8_t *c, uint8_t op, uint8_t b1, uint32_t lba, uint32_t n)
{
	memset(c, 0, 12);
	c[0] = op;
	c[1] = b1;
	put_be32(c + 2, lba);
	put_be32(c + 6, n);
}

static inline void cdb16(uint8_t *c, uint8_t op, uint8_t b1, uint64_t lba, uint32_t n)
{
	memset(c, 0, 16);
	c[0] = op;
	c[1] = b1;
	put_be64(c + 2, lba);
	put_be32(c + 10, n);
}

/* WRITE(16)/READ(16) of n blocks at lba, through p on LUN lun. */
static inline uint8_t sh_write(struct sh *h, struct loop_port *p, uint64_t lun, uint64_t lba,
			       uint32_t n, const void *data, struct loop_result *r)
{
	uint8_t c[16];

	cdb16(c, 0x8a, 0, lba, n);
	return sh_cmd(p, lun, c, 16, SCSI_DIR_WRITE, (void *)data, n * h->bsz, r);
}

static inline uint8_t sh_read(struct sh *h, struct loop_port *p, uint64_t lun, uint64_t lba,
			      uint32_t n, void *data, struct loop_result *r)
{
	uint8_t c[16];

	cdb16(c, 0x88, 0, lba, n);
	return sh_cmd(p, lun, c, 16, SCSI_DIR_READ, data, n * h->bsz, r);
}

/* Fill n blocks at lba with byte v (asserting GOOD). */
static inline void sh_fill(struct sh *h, uint64_t lun, uint64_t lba, uint32_t n, uint8_t v)
{
	struct loop_result r;
	uint8_t *b = malloc((size_t)n * h->bsz);

	assert_non_null(b);
	memset(b, v, (size_t)n * h->bsz);
	sh_write(h, h->p1, lun, lba, n, b, &r);
	sh_expect_good(&r);
	free(b);
}

/* Every byte of n blocks at lba equals v. */
static inline bool sh_blocks_are(struct sh *h, uint64_t lun, uint64_t lba, uint32_t n, uint8_t v)
{
	struct loop_result r;
	size_t len = (size_t)n * h->bsz;
	uint8_t *b = malloc(len);
	bool ok = true;

	assert_non_null(b);
	sh_read(h, h->p1, lun, lba, n, b, &r);
	sh_expect_good(&r);
	for (size_t i = 0; i < len && ok; i++)
		ok = b[i] == v;
	free(b);
	return ok;
}

static inline void sh_settle(void)
{
	usleep(50 * 1000);
}

#endif
