/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness.h: shared set-up of the core's unit tests.
 *
 *   initiator "iqn.test:a" --loop port 1 (p1)--\
 *                                               target "iqn.test:t" --- LUN 0: lu (fake RAM bs)
 *   initiator "iqn.test:b" --loop port 2 (p2)--/        (demo map)
 *
 * Each loop port runs its own reactor thread. Commands go through
 * loop_submit(); helpers build CDBs and check status/sense. */
#ifndef UT_TEST_SCSI_HARNESS_H
#define UT_TEST_SCSI_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/loop/loop.h"
#include "lib/endian.h"
#include "scsi/scsi.h"
#include "../fakes/fake_bs_core.h"

#define H_BLOCKS 2048u
#define H_BS	 512u

struct harness {
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu;
	struct bs_dev *bs;
	struct loop_port *p1, *p2;
};

static inline struct scsi_lu_attrs h_attrs(void)
{
	struct scsi_lu_attrs a = {
	    .block_size = H_BS,
	    .write_cache = true,
	    .vendor = "UTARGET",
	    .product = "TEST DISK",
	    .revision = "0001",
	    .serial = "SERIAL0001",
	    .naa = {0x60, 0x01, 0x40, 0x50, 0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33, 0x44,
		    0x55, 0x66, 0x77},
	};
	return a;
}

/* The topology above on a back-store of the caller's (tests of a back-store
 * contract, e.g. pass-through); the harness owns bs from here on. */
static inline void h_setup_bs(struct harness *h, struct bs_dev *bs, const struct scsi_lu_attrs *a)
{
	memset(h, 0, sizeof(*h));
	h->t = scsi_target_create("iqn.test:t");
	assert_non_null(h->t);
	assert_non_null(bs);
	h->bs = bs;
	assert_int_equal(scsi_lu_create("lu0", h->bs, a, &h->lu), 0);
	h->map = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(h->map, 0, h->lu, false), 0);
	scsi_target_set_default_map(h->t, h->map, true);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h->p2 = loop_create(h->t, 1, "iqn.test:b");
	assert_non_null(h->p1);
	assert_non_null(h->p2);
}

static inline void h_setup_attrs(struct harness *h, const struct scsi_lu_attrs *a)
{
	h_setup_bs(h, fake_bs_create((uint64_t)H_BLOCKS * a->block_size, BS_CAP_FLUSH), a);
}

static inline void h_setup(struct harness *h)
{
	struct scsi_lu_attrs a = h_attrs();

	h_setup_attrs(h, &a);
}

static inline void h_teardown(struct harness *h)
{
	loop_destroy(h->p1);
	loop_destroy(h->p2);
	scsi_lun_map_put(h->map);
	scsi_lu_put(h->lu);
	scsi_target_destroy(h->t);
}

/* Run a CDB; returns the status. */
static inline uint8_t h_cmd(struct loop_port *p, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
			    enum scsi_dir dir, void *data, uint32_t len, struct loop_result *res)
{
	struct loop_result r;

	if (!res)
		res = &r;
	assert_int_equal(loop_submit(p, lun, cdb, cdb_len, dir, data, len, SCSI_ATTR_SIMPLE, res),
			 0);
	return res->status;
}

/* Sense key / ASC / ASCQ of a fixed or descriptor format sense buffer. */
static inline void h_sense(const struct loop_result *r, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	const uint8_t *s = r->sense;

	if ((s[0] & 0x7f) >= 0x72) {
		*key = s[1] & 0x0f;
		*asc = s[2];
		*ascq = s[3];
	} else {
		*key = s[2] & 0x0f;
		*asc = s[12];
		*ascq = s[13];
	}
}

static inline void h_expect_sense(const struct loop_result *r, uint8_t key, uint8_t asc,
				  uint8_t ascq)
{
	uint8_t k, a, q;

	assert_int_equal(r->status, SAM_STAT_CHECK_CONDITION);
	assert_true(r->sense_len >= 8);
	h_sense(r, &k, &a, &q);
	assert_int_equal(k, key);
	assert_int_equal(a, asc);
	assert_int_equal(q, ascq);
}

/* TEST UNIT READY until no unit attention is left (as initiators do after
 * login); returns the number of unit attentions consumed. */
static inline int h_clear_ua(struct loop_port *p, uint64_t lun)
{
	static const uint8_t tur[6] = {0};
	struct loop_result r;
	int n = 0;

	for (;;) {
		h_cmd(p, lun, tur, 6, SCSI_DIR_NONE, NULL, 0, &r);
		if (r.status != SAM_STAT_CHECK_CONDITION || (r.sense[2] & 0x0f) != 0x06)
			return n;
		n++;
		assert_true(n < 16);
	}
}

/* Replace port *p (initiator name) by one whose initiator may reset the
 * target (loop_port_opts.target_reset); its POWER ON unit attention is
 * cleared on LUN 0. */
static inline void h_port_target_reset(struct harness *h, struct loop_port **p, const char *name)
{
	loop_destroy(*p);
	*p = loop_create_opts(h->t, 1, name, &(struct loop_port_opts){.target_reset = true});
	assert_non_null(*p);
	h_clear_ua(*p, 0);
}

static inline uint8_t h_tur(struct loop_port *p, struct loop_result *r)
{
	static const uint8_t tur[6] = {0};

	return h_cmd(p, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, r);
}

static inline void h_cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t nblocks)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, nblocks);
}

#endif

#include <pthread.h>
#include <unistd.h>

/* Release the fake back-store's held I/O from another thread once n I/Os
 * are held, after delay_ms (so that a synchronous TMF can wait for it). */
struct h_releaser {
	pthread_t th;
	struct bs_dev *bs;
	unsigned delay_ms;
};

static inline void *h_release_fn(void *arg)
{
	struct h_releaser *rl = arg;

	usleep(rl->delay_ms * 1000u);
	fake_bs_hold(rl->bs, false);
	fake_bs_release(rl->bs);
	return NULL;
}

static inline void h_release_later(struct h_releaser *rl, struct bs_dev *bs, unsigned delay_ms)
{
	rl->bs = bs;
	rl->delay_ms = delay_ms;
	assert_int_equal(pthread_create(&rl->th, NULL, h_release_fn, rl), 0);
}

static inline void h_release_join(struct h_releaser *rl)
{
	pthread_join(rl->th, NULL);
}

/* Wait (bounded) until the back-store holds n I/Os. */
static inline void h_wait_held(struct bs_dev *bs, unsigned n)
{
	for (int i = 0; i < 2000 && fake_bs_held(bs) < n; i++)
		usleep(1000);
	assert_int_equal(fake_bs_held(bs), n);
}

/* Give the reactors time to run anything they could (used to show that a
 * task did NOT complete). */
static inline void h_settle(void)
{
	usleep(50 * 1000);
}
