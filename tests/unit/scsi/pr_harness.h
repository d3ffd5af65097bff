/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_harness.h: helpers of the persistent reservation tests (test_pr*.c)
 * over harness.h, with a third loop port: the same initiator as p1 through
 * another target port.
 *
 *   p1 "iqn.test:a,i,0x000000000001" -- target port 1 --\
 *   p2 "iqn.test:b,i,0x000000000001" -- target port 1 ---+- target --- LUN 0: lu
 *   p3 "iqn.test:a,i,0x000000000001" -- target port 2 --/
 *
 * Every nexus has consumed its power-on unit attention after setup. */
#ifndef UT_TEST_SCSI_PR_HARNESS_H
#define UT_TEST_SCSI_PR_HARNESS_H

#include "harness.h"

#include "scsi/core.h"

struct pr_harness {
	struct harness h;
	struct loop_port *p3;
};

enum {
	PRO_REGISTER = 0,
	PRO_RESERVE,
	PRO_RELEASE,
	PRO_CLEAR,
	PRO_PREEMPT,
	PRO_PREEMPT_AND_ABORT,
	PRO_REGISTER_IGNORE,
	PRO_REGISTER_AND_MOVE,
};

enum {
	PRI_READ_KEYS = 0,
	PRI_READ_RESERVATION,
	PRI_REPORT_CAPABILITIES,
	PRI_READ_FULL_STATUS,
};

enum { T_WE = 1, T_EA = 3, T_WE_RO = 5, T_EA_RO = 6, T_WE_AR = 7, T_EA_AR = 8 };

#define B20_SPEC_I_PT 0x08
#define B20_ALL_TG_PT 0x04
#define B20_APTPL     0x01

static inline void prh_setup_attrs(struct pr_harness *ph, const struct scsi_lu_attrs *a)
{
	h_setup_attrs(&ph->h, a);
	ph->p3 = loop_create(ph->h.t, 2, "iqn.test:a");
	assert_non_null(ph->p3);
	h_clear_ua(ph->h.p1, 0);
	h_clear_ua(ph->h.p2, 0);
	h_clear_ua(ph->p3, 0);
}

static inline void prh_teardown(struct pr_harness *ph)
{
	fake_bs_hold(ph->h.bs, false);
	fake_bs_release(ph->h.bs);
	if (ph->p3)
		loop_destroy(ph->p3);
	h_teardown(&ph->h);
}

static inline int pr_setup(void **state)
{
	struct pr_harness *ph = calloc(1, sizeof(*ph));
	struct scsi_lu_attrs a = h_attrs();

	prh_setup_attrs(ph, &a);
	*state = ph;
	return 0;
}

static inline int pr_teardown(void **state)
{
	struct pr_harness *ph = *state;

	prh_teardown(ph);
	free(ph);
	return 0;
}

/* PERSISTENT RESERVE OUT with a parameter list of len bytes at list. */
static inline uint8_t prout_raw(struct loop_port *p, uint8_t sa, uint8_t type, const uint8_t *list,
				uint32_t len, struct loop_result *r)
{
	uint8_t cdb[10] = {0x5f, sa, type};

	put_be32(cdb + 5, len);
	return h_cmd(p, 0, cdb, 10, len ? SCSI_DIR_WRITE : SCSI_DIR_NONE, (void *)list, len, r);
}

/* The basic 24-byte parameter list (SPC-4 6.16.3). */
static inline uint8_t prout(struct loop_port *p, uint8_t sa, uint8_t type, uint64_t rk,
			    uint64_t sark, uint8_t b20, struct loop_result *r)
{
	uint8_t d[24] = {0};

	put_be64(d, rk);
	put_be64(d + 8, sark);
	d[20] = b20;
	return prout_raw(p, sa, type, d, sizeof(d), r);
}

static inline uint8_t pr_register(struct loop_port *p, uint64_t rk, uint64_t sark)
{
	return prout(p, PRO_REGISTER, 0, rk, sark, 0, NULL);
}

static inline uint8_t pr_reserve(struct loop_port *p, uint64_t key, uint8_t type)
{
	return prout(p, PRO_RESERVE, type, key, 0, 0, NULL);
}

static inline uint8_t prin(struct loop_port *p, uint8_t sa, uint8_t *buf, uint16_t alloc,
			   struct loop_result *r)
{
	uint8_t cdb[10] = {0x5e, sa};

	put_be16(cdb + 7, alloc);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_READ, buf, alloc, r);
}

/* READ KEYS: the number of keys (keys[] filled, up to 16), generation. */
static inline unsigned pr_keys(struct loop_port *p, uint64_t *keys, uint32_t *gen)
{
	uint8_t buf[8 + 8 * 16];
	struct loop_result r;
	uint32_t n;

	assert_int_equal(prin(p, PRI_READ_KEYS, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	if (gen)
		*gen = get_be32(buf);
	n = get_be32(buf + 4) / 8;
	for (uint32_t i = 0; keys && i < n && i < 16; i++)
		keys[i] = get_be64(buf + 8 + 8 * i);
	return n;
}

/* READ RESERVATION: type (0 none), key in *key. */
static inline uint8_t pr_resv(struct loop_port *p, uint64_t *key)
{
	uint8_t buf[24];
	struct loop_result r;

	assert_int_equal(prin(p, PRI_READ_RESERVATION, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	if (get_be32(buf + 4) == 0)
		return 0;
	assert_int_equal(get_be32(buf + 4), 16);
	if (key)
		*key = get_be64(buf + 8);
	assert_int_equal(buf[21] >> 4, 0); /* LU_SCOPE */
	return buf[21] & 0x0f;
}

static inline uint8_t h_read1(struct loop_port *p, struct loop_result *r)
{
	uint8_t cdb[10], buf[H_BS];

	h_cdb_rw10(cdb, 0x28, 1, 1);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_READ, buf, H_BS, r);
}

static inline uint8_t h_write1(struct loop_port *p, struct loop_result *r)
{
	uint8_t cdb[10], buf[H_BS] = {0x5a};

	h_cdb_rw10(cdb, 0x2a, 1, 1);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_WRITE, buf, H_BS, r);
}

/* The next unit attention of p (sense key 6), as ASC << 8 | ASCQ; 0 when
 * TEST UNIT READY is GOOD. */
static inline unsigned h_next_ua(struct loop_port *p)
{
	struct loop_result r;
	uint8_t k, a, q;

	if (h_tur(p, &r) == SAM_STAT_GOOD)
		return 0;
	assert_int_equal(r.status, SAM_STAT_CHECK_CONDITION);
	h_sense(&r, &k, &a, &q);
	assert_int_equal(k, 0x6);
	return (unsigned)a << 8 | q;
}

#endif
