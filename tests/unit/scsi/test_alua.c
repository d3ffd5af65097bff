/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_alua.c: asymmetric logical unit access (alua.c, alua_cmds.c).
 *
 *   initiator "iqn.test:a" --loop port 1 (p1)--[ group 10 ]--\
 *                                                              target "iqn.test:t"
 *   initiator "iqn.test:b" --loop port 2 (p2)--[ group 20 ]--/    LUN 0: lu0
 *                                                                  LUN 1: lu1
 * Groups 10 and 20 are implicit (created by the ports) unless a test
 * defines them. Both nexuses have consumed their power-on unit attentions.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "scsi/alua.h"
#include "scsi/cdb.h"

#define LUN1 0x0001000000000000ull /* LUN 1, peripheral device addressing */

struct alua_h {
	struct scsi_target *t;
	struct scsi_lun_map *map;
	struct scsi_lu *lu0, *lu1;
	struct bs_dev *bs0, *bs1;
	struct loop_port *p1, *p2;
	struct scsi_tport *tp2;
};

static struct scsi_tport *port_in_group(struct scsi_target *t, uint16_t rel, uint16_t group)
{
	char name[300];

	/* the name loop_create() gives the port, so that it reuses this one */
	snprintf(name, sizeof(name), "%s,t,0x%04x", scsi_target_name(t), rel);
	return scsi_tport_create(t, name, rel, group);
}

static int setup(void **state)
{
	struct alua_h *h = calloc(1, sizeof(*h));
	struct scsi_lu_attrs a = h_attrs();

	h->t = scsi_target_create("iqn.test:t");
	h->bs0 = fake_bs_create((uint64_t)H_BLOCKS * H_BS, BS_CAP_FLUSH);
	h->bs1 = fake_bs_create((uint64_t)H_BLOCKS * H_BS, BS_CAP_FLUSH);
	assert_int_equal(scsi_lu_create("lu0", h->bs0, &a, &h->lu0), 0);
	assert_int_equal(scsi_lu_create("lu1", h->bs1, &a, &h->lu1), 0);
	h->map = scsi_lun_map_create();
	assert_int_equal(scsi_lun_map_add(h->map, 0, h->lu0, false), 0);
	assert_int_equal(scsi_lun_map_add(h->map, 1, h->lu1, false), 0);
	scsi_target_set_default_map(h->t, h->map, true);
	assert_non_null(port_in_group(h->t, 1, 10));
	h->tp2 = port_in_group(h->t, 2, 20);
	assert_non_null(h->tp2);
	h->p1 = loop_create(h->t, 1, "iqn.test:a");
	h->p2 = loop_create(h->t, 2, "iqn.test:b");
	assert_non_null(h->p1);
	assert_non_null(h->p2);
	for (uint64_t lun = 0; lun < 2; lun++) {
		h_clear_ua(h->p1, (lun << 48));
		h_clear_ua(h->p2, (lun << 48));
	}
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct alua_h *h = *state;

	scsi_alua_group_undefine(10);
	scsi_alua_group_undefine(20);
	loop_destroy(h->p1);
	loop_destroy(h->p2);
	scsi_lun_map_put(h->map);
	scsi_lu_put(h->lu0);
	scsi_lu_put(h->lu1);
	scsi_target_destroy(h->t);
	/* every group went with its last port and definition */
	assert_int_equal(scsi_alua_group_count(), 0);
	free(h);
	return 0;
}

static void define(uint16_t id, bool preferred, bool explicit_ok, uint32_t ms)
{
	struct scsi_alua_group_attrs a = {
	    .state = SCSI_ALUA_ACTIVE_OPTIMIZED,
	    .preferred = preferred,
	    .explicit_ok = explicit_ok,
	    .transition_ms = ms,
	};

	assert_int_equal(scsi_alua_group_define(id, &a), 0);
}

static uint8_t read10(struct loop_port *p, uint64_t lun, struct loop_result *r)
{
	static uint8_t buf[H_BS];
	const uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};

	return h_cmd(p, lun, cdb, 10, SCSI_DIR_READ, buf, H_BS, r);
}

static uint8_t rtpg(struct loop_port *p, bool ext, uint8_t *buf, uint32_t len,
		    struct loop_result *r)
{
	uint8_t cdb[12] = {0xa3, (uint8_t)((ext ? 0x20 : 0) | 0x0a), 0, 0, 0, 0};

	put_be32(cdb + 6, len);
	memset(buf, 0xee, len);
	return h_cmd(p, 0, cdb, 12, SCSI_DIR_READ, buf, len, r);
}

/* SET TARGET PORT GROUPS with n (state, group) descriptors. */
static uint8_t stpg(struct loop_port *p, uint64_t lun, const uint8_t (*d)[2], const uint16_t *g,
		    unsigned n, struct loop_result *r)
{
	uint8_t cdb[12] = {0xa4, 0x0a};
	uint8_t list[4 + 4 * 8] = {0};

	for (unsigned i = 0; i < n; i++) {
		list[4 + 4 * i] = d[i][0];
		list[4 + 4 * i + 1] = d[i][1];
		put_be16(list + 4 + 4 * i + 2, g[i]);
	}
	put_be32(cdb + 6, 4 + 4 * n);
	return h_cmd(p, lun, cdb, 12, SCSI_DIR_WRITE, list, 4 + 4 * n, r);
}

static uint8_t stpg1(struct loop_port *p, uint8_t state, uint16_t group, struct loop_result *r)
{
	const uint8_t d[1][2] = {{state, 0}};

	return stpg(p, 0, d, &group, 1, r);
}

/* The descriptor of group id in an RTPG response: state byte or -1. */
static int rtpg_state(const uint8_t *buf, size_t hdr, uint16_t id, uint8_t *status,
		      unsigned *nports)
{
	size_t len = get_be32(buf) + 4, off = hdr;

	while (off + 8 <= len) {
		const uint8_t *d = buf + off;

		if (get_be16(d + 2) == id) {
			if (status)
				*status = d[5];
			if (nports)
				*nports = d[7];
			return d[0];
		}
		off += 8 + 4u * d[7];
	}
	return -1;
}

/* ---- the state x command matrix ---- */

/* SPC-4 5.15.2.4.4: the commands a standby target port serves, among those
 * the device server implements (PERSISTENT RESERVE IN/OUT: every service
 * action). REPORT SUPPORTED OPERATION CODES and REPORT
 * SUPPORTED TASK MANAGEMENT FUNCTIONS only report the device server's
 * capabilities and are served in standby and unavailable too. */
static const char *const standby_ok[] = {
    "INQUIRY",
    "LOG SELECT",
    "LOG SENSE",
    "MODE SELECT(6)",
    "MODE SELECT(10)",
    "MODE SENSE(6)",
    "MODE SENSE(10)",
    "REPORT LUNS",
    "RECEIVE DIAGNOSTIC RESULTS",
    "SEND DIAGNOSTIC",
    "REPORT TARGET PORT GROUPS",
    "SET TARGET PORT GROUPS",
    "REQUEST SENSE",
    "PERSISTENT RESERVE IN*",
    "PERSISTENT RESERVE OUT*",
    "READ BUFFER(10)", /* the echo buffer modes only (test_buffer_echo_modes) */
    "WRITE BUFFER",
    "REPORT SUPPORTED OPERATION CODES",
    "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS",
    NULL,
};
/* SPC-4 5.15.2.4.5: unavailable (also offline and transitioning here) */
static const char *const unavail_ok[] = {
    "INQUIRY",
    "REPORT LUNS",
    "REPORT TARGET PORT GROUPS",
    "SET TARGET PORT GROUPS",
    "REQUEST SENSE",
    "READ BUFFER(10)", /* the echo buffer modes only (test_buffer_echo_modes) */
    "WRITE BUFFER",
    "REPORT SUPPORTED OPERATION CODES",
    "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS",
    NULL,
};

/* exact names; "X*" also names every service action "X ..." */
static bool listed(const char *const *l, const char *name)
{
	for (; *l; l++) {
		size_t n = strlen(*l);

		if (n && (*l)[n - 1] == '*' ? strncmp(*l, name, n - 1) == 0 : strcmp(*l, name) == 0)
			return true;
	}
	return false;
}

struct matrix_ctx {
	struct alua_h *h;
	unsigned ncmds;
};

static const uint8_t matrix_states[] = {
    SCSI_ALUA_ACTIVE_OPTIMIZED, SCSI_ALUA_ACTIVE_NON_OPTIMIZED,
    SCSI_ALUA_STANDBY,		SCSI_ALUA_UNAVAILABLE,
    SCSI_ALUA_OFFLINE,		SCSI_ALUA_TRANSITIONING,
};

static enum sense_reason expected(uint8_t state, const char *name)
{
	switch (state) {
	case SCSI_ALUA_STANDBY:
		return listed(standby_ok, name) ? SENSE_OK : SENSE_NOT_READY_ALUA_STANDBY;
	case SCSI_ALUA_UNAVAILABLE:
		return listed(unavail_ok, name) ? SENSE_OK : SENSE_NOT_READY_ALUA_UNAVAILABLE;
	case SCSI_ALUA_OFFLINE:
		return listed(unavail_ok, name) ? SENSE_OK : SENSE_NOT_READY_ALUA_OFFLINE;
	case SCSI_ALUA_TRANSITIONING:
		return listed(unavail_ok, name) ? SENSE_OK : SENSE_NOT_READY_ALUA_TRANSITION;
	default:
		return SENSE_OK;
	}
}

static void check_desc(struct matrix_ctx *m, const struct cdb_desc *d)
{
	struct scsi_cmd cmd;

	/* the table's flags say what the lists say */
	if (listed(standby_ok, d->name) != !!(d->flags & CDB_F_ALUA_STANDBY_OK))
		fail_msg("%s: CDB_F_ALUA_STANDBY_OK is %s", d->name,
			 (d->flags & CDB_F_ALUA_STANDBY_OK) ? "set" : "clear");
	if (listed(unavail_ok, d->name) != !!(d->flags & CDB_F_ALUA_UNAVAIL_OK))
		fail_msg("%s: CDB_F_ALUA_UNAVAIL_OK is %s", d->name,
			 (d->flags & CDB_F_ALUA_UNAVAIL_OK) ? "set" : "clear");
	for (size_t i = 0; i < sizeof(matrix_states); i++) {
		assert_int_equal(scsi_alua_set_state(20, NULL, matrix_states[i]), 0);
		scsi_cmd_init(&cmd);
		cmd.nexus = loop_nexus(m->h->p2);
		cmd.priv.lu = m->h->lu0;
		cmd.priv.desc = d;
		if (alua_check(&cmd) != expected(matrix_states[i], d->name))
			fail_msg("%s in state %s: %s", d->name,
				 scsi_alua_state_name(matrix_states[i]),
				 sense_reason_name(alua_check(&cmd)));
		/* the other group's port is untouched: active/optimized */
		cmd.nexus = loop_nexus(m->h->p1);
		assert_int_equal(alua_check(&cmd), SENSE_OK);
	}
	m->ncmds++;
}

static void test_state_command_matrix(void **state)
{
	struct matrix_ctx m = {.h = *state};
	const struct cdb_desc *tables[] = {spc_cdb_table, sbc_cdb_table};

	for (size_t t = 0; t < 2; t++) {
		for (unsigned op = 0; op < 256; op++) {
			const struct cdb_desc *d = &tables[t][op];

			if (!d->name)
				continue;
			if (!d->sa) {
				check_desc(&m, d);
				continue;
			}
			for (unsigned sa = 0; sa < d->sa->count; sa++)
				if (d->sa->v[sa].name)
					check_desc(&m, &d->sa->v[sa]);
		}
	}
	/* every implemented command went through every state */
	assert_true(m.ncmds >= 50);
}

/* ---- default (implicit) groups ---- */

static void test_implicit_defaults(void **state)
{
	struct alua_h *h = *state;
	uint8_t buf[256];
	struct loop_result r;
	const uint8_t inq[6] = {0x12, 0, 0, 0, 96, 0};
	unsigned np;

	/* TPGS 01b: implicit only */
	assert_int_equal(h_cmd(h->p1, 0, inq, 6, SCSI_DIR_READ, buf, 96, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[5] & 0x30, 0x10);
	/* RTPG: both groups, active/optimized, one port each */
	assert_int_equal(rtpg(h->p1, false, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf), 2 * 12);
	assert_int_equal(r.data_in_len, 4 + 2 * 12);
	assert_int_equal(rtpg_state(buf, 4, 10, NULL, &np), SCSI_ALUA_ACTIVE_OPTIMIZED);
	assert_int_equal(np, 1);
	assert_int_equal(rtpg_state(buf, 4, 20, NULL, &np), SCSI_ALUA_ACTIVE_OPTIMIZED);
	/* relative port ids of the ports */
	assert_int_equal(get_be16(buf + 4 + 8 + 2), 1);
	assert_int_equal(get_be16(buf + 4 + 12 + 8 + 2), 2);
	/* SET TARGET PORT GROUPS is not supported with TPGS 01b */
	assert_int_equal(stpg1(h->p1, SCSI_ALUA_STANDBY, 20, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x24, 0x00);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
}

static void test_vpd83_group_designator(void **state)
{
	struct alua_h *h = *state;
	const uint8_t cdb[6] = {0x12, 1, 0x83, 0, 255, 0};
	uint8_t buf[255];
	struct loop_result r;
	bool found = false;

	assert_int_equal(h_cmd(h->p2, 0, cdb, 6, SCSI_DIR_READ, buf, sizeof(buf), &r),
			 SAM_STAT_GOOD);
	for (size_t off = 4; off + 4 <= r.data_in_len; off += 4u + buf[off + 3]) {
		/* association target port, designator type 5h */
		if ((buf[off + 1] & 0x3f) == 0x15) {
			assert_int_equal(buf[off + 3], 4);
			assert_int_equal(get_be16(buf + off + 6), 20);
			found = true;
		}
	}
	assert_true(found);
}

/* ---- explicit transitions ---- */

static void test_stpg_standby(void **state)
{
	struct alua_h *h = *state;
	const uint8_t inq[6] = {0x12, 0, 0, 0, 96, 0};
	uint8_t buf[256], st;
	struct loop_result r;

	define(10, true, true, 0);
	define(20, false, true, 0);
	assert_int_equal(h_cmd(h->p1, 0, inq, 6, SCSI_DIR_READ, buf, 96, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[5] & 0x30, 0x30); /* TPGS 11b */

	assert_int_equal(stpg1(h->p1, SCSI_ALUA_STANDBY, 20, &r), SAM_STAT_GOOD);
	/* the other nexus learns of it first, once */
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0b);
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0b);
	/* the sender gets no unit attention; its path is active */
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_GOOD);
	/* the other logical unit is untouched through group 20 */
	assert_int_equal(read10(h->p2, LUN1, &r), SAM_STAT_GOOD);

	/* RTPG through the standby port reports both */
	assert_int_equal(rtpg(h->p2, true, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(buf[4], 0x10); /* FORMAT TYPE 001b */
	assert_int_equal(rtpg_state(buf, 8, 10, &st, NULL), 0x80 | SCSI_ALUA_ACTIVE_OPTIMIZED);
	assert_int_equal(st, 0);
	assert_int_equal(rtpg_state(buf, 8, 20, &st, NULL), SCSI_ALUA_STANDBY);
	assert_int_equal(st, 0x01); /* altered by SET TARGET PORT GROUPS */

	/* back to active/non-optimized through the standby port itself */
	assert_int_equal(stpg1(h->p2, SCSI_ALUA_ACTIVE_NON_OPTIMIZED, 20, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	enum scsi_alua_state s;
	assert_int_equal(scsi_alua_get_state(20, "lu0", &s, NULL), 0);
	assert_int_equal(s, SCSI_ALUA_ACTIVE_NON_OPTIMIZED);
	assert_int_equal(scsi_alua_get_state(20, "lu1", &s, NULL), 0);
	assert_int_equal(s, SCSI_ALUA_ACTIVE_OPTIMIZED);
}

static void test_stpg_two_descriptors(void **state)
{
	struct alua_h *h = *state;
	const uint8_t d[2][2] = {{SCSI_ALUA_STANDBY, 0}, {SCSI_ALUA_ACTIVE_OPTIMIZED, 0}};
	const uint16_t g[2] = {10, 20};
	struct loop_result r;

	define(10, false, true, 0);
	define(20, false, true, 0);
	assert_int_equal(stpg(h->p2, 0, d, g, 2, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0b);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
}

static void test_stpg_transition(void **state)
{
	struct alua_h *h = *state;
	uint8_t cdb[12] = {0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
	uint8_t list[8] = {0, 0, 0, 0, SCSI_ALUA_UNAVAILABLE, 0, 0, 20};
	uint8_t buf[256];
	struct loop_result r;
	struct loop_task *t;
	enum scsi_alua_state s, tg;

	define(10, false, true, 0);
	define(20, false, true, 300);
	t = loop_submit_async(h->p1, 0, cdb, 12, SCSI_DIR_WRITE, list, 8, SCSI_ATTR_SIMPLE, 7, 0);
	assert_non_null(t);
	/* wait until the transition has begun */
	for (int i = 0; i < 200; i++) {
		assert_int_equal(scsi_alua_get_state(20, "lu0", &s, &tg), 0);
		if (s == SCSI_ALUA_TRANSITIONING)
			break;
		usleep(1000);
	}
	assert_int_equal(s, SCSI_ALUA_TRANSITIONING);
	assert_int_equal(tg, SCSI_ALUA_UNAVAILABLE);
	assert_false(loop_task_done(t));
	/* commands through the group see the transition; RTPG reports it */
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0a);
	assert_int_equal(rtpg(h->p2, true, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(rtpg_state(buf, 8, 20, NULL, NULL), SCSI_ALUA_TRANSITIONING);
	assert_int_equal(buf[5], 1); /* IMPLICIT TRANSITION TIME: 300 ms -> 1 s */
	/* the other path keeps working meanwhile */
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_GOOD);
	/* a second explicit change of the same LU/group, and the API, wait */
	assert_int_equal(stpg1(h->p2, SCSI_ALUA_STANDBY, 20, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0a);
	assert_int_equal(scsi_alua_set_state(20, "lu0", SCSI_ALUA_STANDBY), -EBUSY);
	loop_wait(t, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0c);
}

static void test_stpg_invalid(void **state)
{
	struct alua_h *h = *state;
	uint8_t cdb[12] = {0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0};
	uint8_t list[8] = {0};
	struct loop_result r;

	define(10, false, true, 0);
	define(20, false, false, 0); /* implicit transitions only */
	/* logical block dependent and transitioning cannot be requested */
	assert_int_equal(stpg1(h->p1, 0x4, 10, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	assert_int_equal(stpg1(h->p1, SCSI_ALUA_TRANSITIONING, 10, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	/* unknown group, group without explicit transitions */
	assert_int_equal(stpg1(h->p1, SCSI_ALUA_STANDBY, 99, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	assert_int_equal(stpg1(h->p1, SCSI_ALUA_STANDBY, 20, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	/* reserved bits in the descriptor */
	assert_int_equal(stpg1(h->p1, 0x10 | SCSI_ALUA_STANDBY, 10, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	/* the same group twice */
	const uint8_t d[2][2] = {{SCSI_ALUA_STANDBY, 0}, {SCSI_ALUA_STANDBY, 0}};
	const uint16_t g[2] = {10, 10};
	assert_int_equal(stpg(h->p1, 0, d, g, 2, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x26, 0x00);
	/* a length that cuts a descriptor */
	assert_int_equal(h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_WRITE, list, 6, &r),
			 SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x1a, 0x00);
	/* nothing changed */
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
	/* an empty list is no change */
	cdb[9] = 0;
	assert_int_equal(h_cmd(h->p1, 0, cdb, 12, SCSI_DIR_NONE, NULL, 0, &r), SAM_STAT_GOOD);
	/* RTPG: reserved PARAMETER DATA FORMAT */
	uint8_t rcdb[12] = {0xa3, 0x40 | 0x0a, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
	uint8_t buf[256];
	assert_int_equal(h_cmd(h->p1, 0, rcdb, 12, SCSI_DIR_READ, buf, 256, &r),
			 SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x05, 0x24, 0x00);
}

/* ---- implicit transitions (control plane API) ---- */

static void test_api_set_state(void **state)
{
	struct alua_h *h = *state;
	struct loop_result r;
	uint8_t buf[256];

	assert_int_equal(scsi_alua_set_state(20, "lu0", SCSI_ALUA_UNAVAILABLE), 0);
	/* every nexus of lu0 learns of it (implicit: the sender is nobody) */
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0c);
	/* lu1 did not change: no unit attention there */
	assert_int_equal(read10(h->p2, LUN1, &r), SAM_STAT_GOOD);
	assert_int_equal(rtpg(h->p2, false, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	uint8_t st;
	assert_int_equal(rtpg_state(buf, 4, 20, &st, NULL), SCSI_ALUA_UNAVAILABLE);
	assert_int_equal(st, 0x02); /* altered by implicit behaviour */

	assert_int_equal(scsi_alua_set_state(20, "lu0", SCSI_ALUA_OFFLINE), 0);
	h_clear_ua(h->p2, 0);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x12);
	/* the group's default, for every LU; per-LU states are forgotten */
	assert_int_equal(scsi_alua_set_state(20, NULL, SCSI_ALUA_TRANSITIONING), 0);
	h_clear_ua(h->p2, LUN1);
	assert_int_equal(read10(h->p2, LUN1, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0a);
	assert_int_equal(scsi_alua_set_state(20, NULL, SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
	h_clear_ua(h->p2, 0);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
	/* setting the same state again raises nothing */
	assert_int_equal(scsi_alua_set_state(20, NULL, SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
	assert_int_equal(h_clear_ua(h->p1, 0), 1); /* the one from the change above */
	assert_int_equal(scsi_alua_set_state(20, NULL, SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
	assert_int_equal(h_clear_ua(h->p1, 0), 0);

	assert_int_equal(scsi_alua_set_state(99, NULL, SCSI_ALUA_STANDBY), -ENOENT);
	assert_int_equal(scsi_alua_set_state(20, NULL, (enum scsi_alua_state)4), -EINVAL);
}

/* A port moved to another group keeps its nexus: unit attentions, then the
 * new group's state; RTPG and VPD 83h report the new group. */
static void test_port_move(void **state)
{
	struct alua_h *h = *state;
	const uint8_t vpd83[6] = {0x12, 1, 0x83, 0, 255, 0};
	uint8_t buf[256];
	struct loop_result r;
	unsigned np;
	int group = -1;

	assert_int_equal(scsi_alua_set_state(10, NULL, SCSI_ALUA_STANDBY), 0);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p1, LUN1);
	h_clear_ua(h->p2, 0);
	h_clear_ua(h->p2, LUN1);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);

	assert_int_equal(scsi_tport_set_port_group(h->tp2, 10), 0);
	/* 2A/06 first (SAM-5: the order the UAs were established in), then 3F/03 */
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x3f, 0x03);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x02, 0x04, 0x0b);
	/* every LU the port reaches, every nexus of them */
	assert_int_equal(h_clear_ua(h->p2, LUN1), 2);
	assert_int_equal(h_clear_ua(h->p1, 0), 2);

	assert_int_equal(rtpg(h->p1, false, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf), 8 + 2 * 4); /* one group, two ports */
	assert_int_equal(rtpg_state(buf, 4, 10, NULL, &np), SCSI_ALUA_STANDBY);
	assert_int_equal(np, 2);
	assert_int_equal(rtpg_state(buf, 4, 20, NULL, NULL), -1);
	assert_int_equal(h_cmd(h->p2, 0, vpd83, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	for (size_t off = 4; off + 8 <= r.data_in_len; off += 4u + buf[off + 3])
		if ((buf[off + 1] & 0x3f) == 0x15)
			group = get_be16(buf + off + 6);
	assert_int_equal(group, 10);

	/* the same group again: nothing happens */
	assert_int_equal(scsi_tport_set_port_group(h->tp2, 10), 0);
	assert_int_equal(h_clear_ua(h->p2, LUN1), 0);
	/* back to a group of its own (identifier = relative port 2): active */
	assert_int_equal(scsi_tport_set_port_group(h->tp2, 0), 0);
	assert_int_equal(h_clear_ua(h->p2, 0), 2);
	assert_int_equal(read10(h->p2, 0, &r), SAM_STAT_GOOD);
	assert_int_equal(read10(h->p1, LUN1, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(h_clear_ua(h->p1, 0), 2);
	assert_int_equal(rtpg(h->p1, false, buf, sizeof(buf), &r), SAM_STAT_GOOD);
	assert_int_equal(rtpg_state(buf, 4, 2, NULL, &np), SCSI_ALUA_ACTIVE_OPTIMIZED);
	assert_int_equal(np, 1);
	assert_int_equal(rtpg_state(buf, 4, 10, NULL, &np), SCSI_ALUA_STANDBY);
	assert_int_equal(np, 1);
	/* teardown: the groups the port left go with it (group count 0) */
}

static void collect(uint16_t id, const char *lu_name, enum scsi_alua_state s, void *arg)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%u:%s=%s;", id, lu_name ? lu_name : "*",
		 scsi_alua_state_name(s));
}

static void test_api_define_and_enumerate(void **state)
{
	struct alua_h *h = *state;
	struct scsi_alua_group_attrs a = {.name = "site-b", .state = SCSI_ALUA_STANDBY};
	char out[256] = "";
	struct loop_result r;

	/* defining an implicit group's state raises the unit attention */
	assert_int_equal(scsi_alua_group_define(20, &a), 0);
	assert_int_equal(read10(h->p1, 0, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x06);
	assert_int_equal(scsi_alua_set_state(20, "lu1", SCSI_ALUA_ACTIVE_NON_OPTIMIZED), 0);
	assert_int_equal(scsi_alua_for_each_state(20, collect, out), 0);
	assert_string_equal(out, "20:*=standby;20:lu1=active/non-optimized;");
	assert_int_equal(scsi_alua_group_define(0, &a), -EINVAL);
	assert_int_equal(scsi_alua_group_undefine(30), -ENOENT);
	/* a defined group without ports exists until undefined */
	assert_int_equal(scsi_alua_group_define(30, &a), 0);
	assert_int_equal(scsi_alua_group_count(), 3);
	assert_int_equal(scsi_alua_group_undefine(30), 0);
	assert_int_equal(scsi_alua_group_count(), 2);

	enum scsi_alua_state s;
	assert_int_equal(scsi_alua_state_parse("active/non-optimized", 20, &s), 0);
	assert_int_equal(s, SCSI_ALUA_ACTIVE_NON_OPTIMIZED);
	assert_int_equal(scsi_alua_state_parse("standbyx", 8, &s), -EINVAL);
	assert_null(scsi_alua_state_name((enum scsi_alua_state)4));
}

static unsigned hook_calls;
static void hook(uint16_t id, const char *lu_name, void *arg)
{
	(void)arg;
	if (id == 20 && strcmp(lu_name, "lu0") == 0)
		__atomic_add_fetch(&hook_calls, 1, __ATOMIC_SEQ_CST);
}

static void test_change_hook(void **state)
{
	struct alua_h *h = *state;
	struct loop_result r;

	define(20, false, true, 0);
	scsi_alua_set_change_hook(hook, NULL);
	assert_int_equal(stpg1(h->p1, SCSI_ALUA_STANDBY, 20, &r), SAM_STAT_GOOD);
	scsi_alua_set_change_hook(NULL, NULL);
	assert_int_equal(__atomic_load_n(&hook_calls, __ATOMIC_SEQ_CST), 1);
}

/* SPC-4 5.15.2.4.4/5: standby and unavailable serve the echo buffer modes
 * of READ BUFFER and WRITE BUFFER, not the others (buffer.c). */
static uint8_t buffer_cmd(struct loop_port *p, uint8_t op, uint8_t mode, uint32_t len,
			  struct loop_result *r)
{
	static uint8_t buf[64];
	uint8_t cdb[10] = {op, mode};

	put_be24(cdb + 6, len);
	return h_cmd(p, 0, cdb, 10, op == 0x3b ? SCSI_DIR_WRITE : SCSI_DIR_READ, buf, len, r);
}

static void test_buffer_echo_modes(void **state)
{
	static const uint8_t states[] = {SCSI_ALUA_STANDBY, SCSI_ALUA_UNAVAILABLE};
	static const uint8_t ascq[] = {0x0b, 0x0c};
	struct alua_h *h = *state;
	struct loop_result r;

	for (size_t i = 0; i < sizeof(states); i++) {
		assert_int_equal(scsi_alua_set_state(20, NULL, states[i]), 0);
		h_clear_ua(h->p2, 0);
		assert_int_equal(buffer_cmd(h->p2, 0x3b, 0x0a, 16, &r), SAM_STAT_GOOD);
		assert_int_equal(buffer_cmd(h->p2, 0x3c, 0x0a, 64, &r), SAM_STAT_GOOD);
		assert_int_equal(r.data_in_len, 16);
		assert_int_equal(buffer_cmd(h->p2, 0x3c, 0x0b, 4, &r), SAM_STAT_GOOD);
		buffer_cmd(h->p2, 0x3b, 0x02, 16, &r);
		h_expect_sense(&r, 0x02, 0x04, ascq[i]);
		buffer_cmd(h->p2, 0x3c, 0x02, 16, &r);
		h_expect_sense(&r, 0x02, 0x04, ascq[i]);
		buffer_cmd(h->p2, 0x3c, 0x03, 4, &r);
		h_expect_sense(&r, 0x02, 0x04, ascq[i]);
		/* the other group's port serves every mode */
		h_clear_ua(h->p1, 0);
		assert_int_equal(buffer_cmd(h->p1, 0x3c, 0x03, 4, &r), SAM_STAT_GOOD);
	}
	assert_int_equal(scsi_alua_set_state(20, NULL, SCSI_ALUA_ACTIVE_OPTIMIZED), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_state_command_matrix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_implicit_defaults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_vpd83_group_designator, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stpg_standby, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stpg_two_descriptors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stpg_transition, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stpg_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_api_set_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_api_define_and_enumerate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_change_hook, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_move, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buffer_echo_modes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
