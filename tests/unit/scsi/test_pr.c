/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pr.c: persistent reservations (pr.c, pr_in.c): REGISTER, REGISTER
 * AND IGNORE EXISTING KEY, RESERVE, RELEASE, CLEAR, the conflict rule of
 * every reservation type, the generation counter, SPC-2 RESERVE/RELEASE
 * against registrations, parameter list checks.
 *
 *   p1 "iqn.test:a,i,0x000000000001" -- target port 1 --\
 *   p2 "iqn.test:b,i,0x000000000001" -- target port 1 ---+- target --- LUN 0: lu
 *   p3 "iqn.test:a,i,0x000000000001" -- target port 2 --/
 *
 * p1 and p3 are two I_T nexuses of one initiator port (registrations are
 * per I_T nexus unless ALL_TG_PT). */
#include "pr_harness.h"

/* REGISTER: a new key, a key change, unregistering; RESERVATION CONFLICT
 * for a wrong key (libiscsi ProutRegister.Simple). */
static void test_register(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint64_t keys[16];
	uint32_t g0, g;

	assert_int_equal(pr_keys(ph->h.p1, keys, &g0), 0);
	/* unregistered with a non-zero RESERVATION KEY */
	assert_int_equal(pr_register(ph->h.p1, 5, 0x10), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_register(ph->h.p1, 0, 0x10), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p2, keys, &g), 1);
	assert_int_equal(keys[0], 0x10);
	assert_int_equal(g, g0 + 1);
	/* registered: RESERVATION KEY must match */
	assert_int_equal(prout(ph->h.p1, PRO_REGISTER, 0, 0, 0x11, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(r.sense_len, 0);
	assert_int_equal(pr_register(ph->h.p1, 0x10, 0x11), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, &g), 1);
	assert_int_equal(keys[0], 0x11);
	assert_int_equal(g, g0 + 2);
	/* p3 is another I_T nexus of the same initiator port: unregistered */
	assert_int_equal(pr_register(ph->p3, 0, 0x33), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 2);
	/* unregister */
	assert_int_equal(pr_register(ph->h.p1, 0x11, 0), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->p3, 0x33, 0), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, &g), 0);
	assert_int_equal(g, g0 + 5);
	/* SARK 0 from an unregistered nexus: GOOD, nothing registered */
	assert_int_equal(pr_register(ph->h.p1, 0, 0), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 0);
}

/* REGISTER AND IGNORE EXISTING KEY: no key check; SPEC_I_PT refused. */
static void test_register_ignore(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint64_t keys[16];

	assert_int_equal(prout(ph->h.p1, PRO_REGISTER_IGNORE, 0, 0x99, 0x20, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(prout(ph->h.p1, PRO_REGISTER_IGNORE, 0, 0x77, 0x21, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 1);
	assert_int_equal(keys[0], 0x21);
	prout(ph->h.p2, PRO_REGISTER_IGNORE, 0, 0, 0x22, B20_SPEC_I_PT, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	assert_int_equal(prout(ph->h.p1, PRO_REGISTER_IGNORE, 0, 0, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, keys, NULL), 0);
}

struct access {
	uint8_t type;
	bool unreg_read, unreg_write, reg_read, reg_write;
};

/* SPC-4 table 58 / SBC-4 table 13 for a non-holder (libiscsi
 * ProutReserve.Access*). */
static const struct access access_table[] = {
    {T_WE, true, false, true, false},	{T_EA, false, false, false, false},
    {T_WE_RO, true, false, true, true}, {T_EA_RO, false, false, true, true},
    {T_WE_AR, true, false, true, true}, {T_EA_AR, false, false, true, true},
};

static void expect(uint8_t status, bool ok)
{
	assert_int_equal(status, ok ? SAM_STAT_GOOD : SAM_STAT_RESERVATION_CONFLICT);
}

/* RESERVE of every type; who may read and write. */
static void test_reserve_access_each_type(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t ms[6] = {0x1a, 0, 0x3f, 0, 255, 0}, buf[255];
	struct loop_result r;
	uint64_t key;

	for (size_t i = 0; i < sizeof(access_table) / sizeof(access_table[0]); i++) {
		const struct access *a = &access_table[i];
		bool all = a->type == T_WE_AR || a->type == T_EA_AR;

		assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
		assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
		assert_int_equal(pr_reserve(ph->h.p1, 0xa1, a->type), SAM_STAT_GOOD);
		/* the holder may repeat it, not change its type */
		assert_int_equal(pr_reserve(ph->h.p1, 0xa1, a->type), SAM_STAT_GOOD);
		assert_int_equal(pr_reserve(ph->h.p1, 0xa1, a->type == T_WE ? T_EA : T_WE),
				 SAM_STAT_RESERVATION_CONFLICT);
		assert_int_equal(pr_resv(ph->h.p2, &key), a->type);
		assert_int_equal(key, all ? 0 : 0xa1);
		/* the holder */
		expect(h_read1(ph->h.p1, &r), true);
		expect(h_write1(ph->h.p1, &r), true);
		/* a registered non-holder */
		expect(h_read1(ph->h.p2, &r), a->reg_read);
		expect(h_write1(ph->h.p2, &r), a->reg_write);
		/* RESERVE from a registrant: holder under all registrants */
		assert_int_equal(pr_reserve(ph->h.p2, 0xb2, a->type),
				 all ? SAM_STAT_GOOD : SAM_STAT_RESERVATION_CONFLICT);
		/* the same initiator port through another target port is
		 * another, unregistered I_T nexus */
		expect(h_read1(ph->p3, &r), a->unreg_read);
		expect(h_write1(ph->p3, &r), a->unreg_write);
		/* MODE SENSE: PR_CLASS_READ; TEST UNIT READY, INQUIRY: allowed */
		expect(h_cmd(ph->p3, 0, ms, 6, SCSI_DIR_READ, buf, 255, &r), a->unreg_read);
		expect(h_tur(ph->p3, &r), true);
		/* unregister p2 */
		assert_int_equal(pr_register(ph->h.p2, 0xb2, 0), SAM_STAT_GOOD);
		expect(h_read1(ph->h.p2, &r), a->unreg_read);
		expect(h_write1(ph->h.p2, &r), a->unreg_write);
		assert_int_equal(prout(ph->h.p1, PRO_RELEASE, a->type, 0xa1, 0, 0, &r),
				 SAM_STAT_GOOD);
		assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
		expect(h_write1(ph->h.p2, &r), true);
		assert_int_equal(pr_register(ph->h.p1, 0xa1, 0), SAM_STAT_GOOD);
		h_clear_ua(ph->h.p1, 0);
		h_clear_ua(ph->h.p2, 0);
		h_clear_ua(ph->p3, 0);
	}
}

/* RESERVE needs a registration and its key; a second I_T nexus conflicts. */
static void test_reserve_conflicts(void **state)
{
	struct pr_harness *ph = *state;

	assert_int_equal(pr_reserve(ph->h.p1, 0, T_WE), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa2, T_WE), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p2, 0xb2, T_EA), SAM_STAT_RESERVATION_CONFLICT);
	/* PR IN is always allowed */
	assert_int_equal(pr_resv(ph->h.p2, NULL), T_EA);
	assert_int_equal(pr_resv(ph->p3, NULL), T_EA);
}

/* RELEASE: wrong key conflicts; a non-holder's RELEASE is GOOD without
 * effect; a wrong type is INVALID RELEASE OF PERSISTENT RESERVATION;
 * releasing a registrants only reservation tells the other registrants. */
static void test_release(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	/* no reservation: GOOD */
	assert_int_equal(prout(ph->h.p1, PRO_RELEASE, T_WE, 0xa1, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE_RO), SAM_STAT_GOOD);
	assert_int_equal(prout(ph->h.p2, PRO_RELEASE, T_WE_RO, 0xbb, 0, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(prout(ph->h.p2, PRO_RELEASE, T_WE_RO, 0xb2, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p2, NULL), T_WE_RO);
	/* unregistered */
	assert_int_equal(prout(ph->p3, PRO_RELEASE, T_WE_RO, 0, 0, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	prout(ph->h.p1, PRO_RELEASE, T_EA_RO, 0xa1, 0, 0, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x04);
	assert_int_equal(prout(ph->h.p1, PRO_RELEASE, T_WE_RO, 0xa1, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_resv(ph->h.p1, NULL), 0);
	/* SPC-4 5.13.11.2.2: RESERVATIONS RELEASED for the other registrant
	 * only */
	assert_int_equal(h_next_ua(ph->h.p2), 0x2a04);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(h_next_ua(ph->p3), 0);
	/* a Write Exclusive release tells nobody */
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE), SAM_STAT_GOOD);
	assert_int_equal(prout(ph->h.p1, PRO_RELEASE, T_WE, 0xa1, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
}

/* Unregistering the holder releases the reservation; under all registrants
 * only the last registrant's unregistration does (libiscsi
 * ProutReserve.Ownership*). */
static void test_unregister_holder(void **state)
{
	struct pr_harness *ph = *state;

	for (uint8_t type = 1; type <= T_EA_AR; type++) {
		bool all = type == T_WE_AR || type == T_EA_AR;
		bool ro = type == T_WE_RO || type == T_EA_RO;

		if (type == 2 || type == 4)
			continue;
		assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
		assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
		assert_int_equal(pr_reserve(ph->h.p1, 0xa1, type), SAM_STAT_GOOD);
		assert_int_equal(pr_register(ph->h.p1, 0xa1, 0), SAM_STAT_GOOD);
		/* (PR IN from p1: p2 may have a unit attention pending) */
		assert_int_equal(pr_resv(ph->h.p1, NULL), all ? type : 0);
		assert_int_equal(h_next_ua(ph->h.p2), ro ? 0x2a04 : 0);
		assert_int_equal(pr_register(ph->h.p2, 0xb2, 0), SAM_STAT_GOOD);
		assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
		h_clear_ua(ph->h.p2, 0);
	}
}

/* CLEAR: registrations and reservation gone, generation + 1, RESERVATIONS
 * PREEMPTED for the other registered I_T nexuses (libiscsi
 * ProutClear.Simple). */
static void test_clear(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_result r;
	uint32_t g0, g;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &g0), 2);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	/* unregistered: conflict */
	assert_int_equal(prout(ph->p3, PRO_CLEAR, 0, 0, 0, 0, &r), SAM_STAT_RESERVATION_CONFLICT);
	/* a registered non-holder may CLEAR */
	assert_int_equal(prout(ph->h.p2, PRO_CLEAR, 0, 0xb2, 0, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p2, NULL, &g), 0);
	assert_int_equal(g, g0 + 1);
	assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
	assert_int_equal(h_next_ua(ph->h.p1), 0x2a03);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	assert_int_equal(h_next_ua(ph->p3), 0);
}

/* SPC-4 5.13.3 with CRH 0: RESERVE/RELEASE conflict while anybody is
 * registered; PR OUT conflicts under another nexus' SPC-2 reservation. */
static void test_spc2_interaction(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t reserve6[6] = {0x16}, release6[6] = {0x17}, buf[8];
	struct loop_result r;

	assert_int_equal(h_cmd(ph->h.p2, 0, reserve6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_RESERVATION_CONFLICT);
	/* PR IN only reports */
	assert_int_equal(prin(ph->h.p1, PRI_READ_KEYS, buf, 8, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p2, 0, release6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	/* registered: RESERVE(6) and RELEASE(6) conflict for everybody */
	assert_int_equal(h_cmd(ph->h.p1, 0, reserve6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_cmd(ph->h.p2, 0, release6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_register(ph->h.p1, 0xa1, 0), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p1, 0, reserve6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p1, 0, release6, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_GOOD);
}

/* START STOP UNIT and PREVENT ALLOW MEDIUM REMOVAL depend on their fields
 * (SBC-4 table 13, SPC-4 table 58). */
static void test_conditional_commands(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t start[6] = {0x1b, 0, 0, 0, 0x01, 0}, stop[6] = {0x1b, 0, 0, 0, 0x00, 0};
	uint8_t allow[6] = {0x1e}, prevent[6] = {0x1e, 0, 0, 0, 0x01, 0};
	struct loop_result r;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p2, 0, start, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p2, 0, stop, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_cmd(ph->h.p2, 0, allow, 6, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(h_cmd(ph->h.p2, 0, prevent, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
}

/* Parameter lists: lengths, reserved bits, APTPL without a state directory,
 * a list larger than 4 KiB, one over the limit. */
static void test_parameter_list(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t list[24] = {0}, *big;
	struct loop_result r;
	uint8_t cdb[10] = {0x5f, PRO_REGISTER, 0};

	put_be64(list + 8, 0xa1);
	prout_raw(ph->h.p1, PRO_REGISTER, 0, list, 23, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	big = calloc(1, 70000);
	assert_non_null(big);
	put_be64(big + 8, 0xa1);
	prout_raw(ph->h.p1, PRO_REGISTER, 0, big, 28, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* 5000 bytes without SPEC_I_PT: not 24 */
	prout_raw(ph->h.p1, PRO_REGISTER, 0, big, 5000, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* over SCSI_MAX_PARAM_BYTES: refused before any allocation */
	put_be32(cdb + 5, 0x00100000);
	h_cmd(ph->h.p1, 0, cdb, 10, SCSI_DIR_WRITE, big, 70000, &r);
	h_expect_sense(&r, 0x5, 0x1a, 0x00);
	/* reserved bits of byte 20 */
	prout(ph->h.p1, PRO_REGISTER, 0, 0, 0xa1, 0x10, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	/* APTPL needs a state directory (PTPL_C 0 here) */
	prout(ph->h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r);
	h_expect_sense(&r, 0x5, 0x26, 0x00);
	/* SCOPE other than LU_SCOPE, invalid TYPE */
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	prout(ph->h.p1, PRO_RESERVE, 0x10 | T_WE, 0xa1, 0, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	prout(ph->h.p1, PRO_RESERVE, 0x02, 0xa1, 0, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* unsupported service action */
	prout(ph->h.p1, 0x08, 0, 0xa1, 0, 0, &r);
	h_expect_sense(&r, 0x5, 0x24, 0x00);
	/* nothing changed by the refused commands */
	assert_int_equal(pr_keys(ph->h.p2, NULL, NULL), 1);
	assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
	free(big);
}

/* PR IN: service action range, truncation keeps ADDITIONAL LENGTH
 * (libiscsi PrinReadKeys.Truncate, PrinServiceactionRange). */
static void test_prin(void **state)
{
	struct pr_harness *ph = *state;
	uint8_t buf[64];
	struct loop_result r;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(prin(ph->h.p1, PRI_READ_KEYS, buf, 8, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 8);
	assert_int_equal(get_be32(buf + 4), 16);
	for (uint8_t sa = 0; sa < 0x20; sa++) {
		prin(ph->h.p1, sa, buf, sizeof(buf), &r);
		if (sa < 4)
			assert_int_equal(r.status, SAM_STAT_GOOD);
		else
			h_expect_sense(&r, 0x5, 0x24, 0x00);
	}
	/* REPORT CAPABILITIES */
	assert_int_equal(prin(ph->h.p1, PRI_REPORT_CAPABILITIES, buf, 8, &r), SAM_STAT_GOOD);
	assert_int_equal(get_be16(buf), 8);
	assert_int_equal(buf[2] & 0x01, 0);    /* PTPL_C: no state directory */
	assert_int_equal(buf[2] & 0x0c, 0x0c); /* SIP_C ATP_C */
	assert_int_equal(buf[3] & 0x80, 0x80); /* TMV */
	assert_int_equal(get_be16(buf + 4), 0xea01);
}

/* Random PERSISTENT RESERVE OUT commands and parameter lists from the three
 * I_T nexuses (fixed seed): every one ends GOOD, CHECK CONDITION or
 * RESERVATION CONFLICT, and READ FULL STATUS stays well formed. */
static void test_random_lists(void **state)
{
	struct pr_harness *ph = *state;
	struct loop_port *ports[3] = {ph->h.p1, ph->h.p2, ph->p3};
	static const char *const names[] = {"iqn.test:a,i,0x000000000001", "iqn.test:b",
					    "iqn.test:b,i,0x000000000001", "iqn.test:x"};
	static const uint8_t types[] = {T_WE, T_EA, T_WE_RO, T_EA_RO, T_WE_AR, T_EA_AR};
	uint64_t keys[4] = {0, 0x11, 0x22, 0x33};
	uint8_t list[700], buf[4096];
	struct loop_result r;
	int who;

	srand(12345);
	for (int it = 0; it < 3000; it++) {
		uint8_t sa = (uint8_t)(rand() % 9), type = types[rand() % 6];
		uint32_t len = 24, off;

		memset(list, 0, sizeof(list));
		put_be64(list, keys[rand() % 4]);
		put_be64(list + 8, keys[rand() % 4]);
		if (rand() % 8 == 0)
			type = (uint8_t)rand();
		list[20] = (uint8_t)(rand() % 8 == 0 ? rand() : (rand() % 4 == 0) << 2);
		switch (rand() % 6) {
		case 0: /* SPEC_I_PT or REGISTER AND MOVE with TransportIDs */
			list[sa == PRO_REGISTER_AND_MOVE ? 17 : 20] |=
			    (uint8_t)(rand() % 2 ? 0x08 : 0);
			put_be16(list + 18, (uint16_t)(rand() % 3));
			off = sa == PRO_REGISTER_AND_MOVE ? 24 : 28;
			for (int k = rand() % 4; k > 0; k--) {
				const char *n = names[rand() % 4];
				size_t l = strlen(n) + 1, add = (l + 3) & ~(size_t)3;

				list[off] = (uint8_t)(strchr(n, ',') ? 0x45 : 0x05);
				put_be16(list + off + 2, (uint16_t)add);
				memcpy(list + off + 4, n, l - 1);
				off += 4 + (uint32_t)add;
			}
			put_be32(list + (sa == PRO_REGISTER_AND_MOVE ? 20 : 24),
				 off - (sa == PRO_REGISTER_AND_MOVE ? 24 : 28));
			len = off;
			break;
		case 1: /* noise */
			len = (uint32_t)(rand() % (int)sizeof(list));
			for (uint32_t i = 0; i < len; i++)
				list[i] = (uint8_t)rand();
			break;
		default:
			break;
		}
		if (rand() % 16 == 0)
			len = (uint32_t)(rand() % 64);
		who = rand() % 3;
		/* mostly without the unit attentions the others' changes raise */
		if (rand() % 4)
			h_clear_ua(ports[who], 0);
		prout_raw(ports[who], sa, type, list, len, &r);
		assert_true(r.status == SAM_STAT_GOOD || r.status == SAM_STAT_CHECK_CONDITION ||
			    r.status == SAM_STAT_RESERVATION_CONFLICT);
		if (it % 50 == 0) {
			uint32_t add, pos = 8;

			h_clear_ua(ph->p3, 0);
			assert_int_equal(prin(ph->p3, PRI_READ_FULL_STATUS, buf, sizeof(buf), &r),
					 SAM_STAT_GOOD);
			add = get_be32(buf + 4);
			while (pos < 8 + add && pos + 24 <= r.data_in_len) {
				assert_true(get_be64(buf + pos) != 0);
				pos += 24 + get_be32(buf + pos + 20);
			}
			assert_true(pos == 8 + add || pos + 24 > r.data_in_len);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_register, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_register_ignore, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_reserve_access_each_type, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_reserve_conflicts, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_release, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_unregister_holder, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_spc2_interaction, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_conditional_commands, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_parameter_list, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_prin, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_random_lists, pr_setup, pr_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
