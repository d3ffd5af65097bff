/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pr_admin.c: the control plane's view of persistent reservations
 * (pr_admin.c): scsi_lu_pr_info() and the administrator's clear,
 * scsi_lu_pr_clear(): all of it (as PERSISTENT RESERVE OUT CLEAR without a
 * requesting I_T nexus: RESERVATIONS PREEMPTED to every registrant) or one
 * initiator's registrations (REGISTRATIONS PREEMPTED, the reservation ended
 * as on an unregister); done() always after the call, on the caller's
 * reactor; with APTPL the state file holds the clear before done(), also
 * while PR OUTs of other reactors write it.
 *
 *   p1 "iqn.test:a,i,0x000000000001" -- target port 1 --\
 *   p2 "iqn.test:b,i,0x000000000001" -- target port 1 ---+- target --- LUN 0: lu
 *   p3 "iqn.test:a,i,0x000000000001" -- target port 2 --/     (state dir: a temp
 *                                                              dir, APTPL tests)
 * The clear is called on p3's reactor thread (the daemon calls it on
 * reactor 0, the control socket's). */
#include "pr_harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/reactor.h"

#define UA_RESV_PREEMPTED 0x2a03
#define UA_RESV_RELEASED  0x2a04
#define UA_REGS_PREEMPTED 0x2a05

/* One scsi_lu_pr_clear() run on a reactor thread, waited for. */
struct admin_call {
	struct reactor_msg msg;
	struct scsi_lu *lu;
	const char *initiator;
	int rc;		 /* scsi_lu_pr_clear()'s */
	bool done_early; /* done() ran inside the call */
	bool in_call;
	/* done() */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool finished;
	int err;
	struct scsi_pr_clear_result res;
	struct reactor *done_on;
};

static void admin_finish(struct admin_call *ac)
{
	pthread_mutex_lock(&ac->mu);
	ac->finished = true;
	pthread_cond_signal(&ac->cv);
	pthread_mutex_unlock(&ac->mu);
}

static void admin_done(void *arg, int err, const struct scsi_pr_clear_result *res)
{
	struct admin_call *ac = arg;

	ac->done_early |= ac->in_call;
	ac->err = err;
	ac->res = *res;
	ac->done_on = reactor_self();
	admin_finish(ac);
}

static void admin_msg(struct reactor_msg *m)
{
	struct admin_call *ac = container_of(m, struct admin_call, msg);

	ac->in_call = true;
	ac->rc = scsi_lu_pr_clear(ac->lu, ac->initiator, admin_done, ac);
	ac->in_call = false;
	if (ac->rc)
		admin_finish(ac);
}

static void admin_start(struct admin_call *ac, struct loop_port *on, struct scsi_lu *lu,
			const char *initiator)
{
	memset(ac, 0, sizeof(*ac));
	pthread_mutex_init(&ac->mu, NULL);
	pthread_cond_init(&ac->cv, NULL);
	ac->lu = lu;
	ac->initiator = initiator;
	ac->msg.fn = admin_msg;
	reactor_post(loop_reactor(on), &ac->msg);
}

/* Wait (at most 10 s) for the call; the synchronous rc, else done()'s err. */
static int admin_wait(struct admin_call *ac, struct loop_port *on)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&ac->mu);
	while (!ac->finished)
		assert_int_equal(pthread_cond_timedwait(&ac->cv, &ac->mu, &until), 0);
	pthread_mutex_unlock(&ac->mu);
	pthread_mutex_destroy(&ac->mu);
	pthread_cond_destroy(&ac->cv);
	if (ac->rc)
		return ac->rc;
	assert_false(ac->done_early);
	assert_ptr_equal(ac->done_on, loop_reactor(on));
	return ac->err;
}

static int admin_clear(struct loop_port *on, struct scsi_lu *lu, const char *initiator,
		       struct scsi_pr_clear_result *res)
{
	struct admin_call ac;
	int rc;

	admin_start(&ac, on, lu, initiator);
	rc = admin_wait(&ac, on);
	if (res)
		*res = ac.res;
	return rc;
}

/* ---- without APTPL ---- */

/* Everything goes; every registered I_T nexus hears RESERVATIONS
 * PREEMPTED (the administrator is none of them), the others nothing. */
static void test_clear_all(void **state)
{
	struct pr_harness *ph = *state;
	struct scsi_pr_clear_result res;
	struct scsi_pr_info pi;
	struct loop_result r;
	uint32_t gen0, gen1;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA_RO), SAM_STAT_GOOD);
	assert_int_equal(h_read1(ph->p3, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen0), 2);

	assert_int_equal(admin_clear(ph->p3, ph->h.lu, NULL, &res), 0);
	assert_int_equal(res.removed, 2);
	assert_true(res.released);
	assert_int_equal(res.generation, gen0 + 1);

	assert_int_equal(h_next_ua(ph->h.p1), UA_RESV_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(h_next_ua(ph->h.p2), UA_RESV_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	assert_int_equal(h_next_ua(ph->p3), 0); /* never registered */
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen1), 0);
	assert_int_equal(gen1, gen0 + 1);
	assert_int_equal(pr_resv(ph->h.p2, NULL), 0);
	assert_int_equal(h_read1(ph->p3, &r), SAM_STAT_GOOD);
	assert_int_equal(h_write1(ph->h.p2, &r), SAM_STAT_GOOD);
	assert_int_equal(scsi_lu_pr_info(ph->h.lu, &pi), 0);
	assert_int_equal(pi.nregs, 0);
	assert_int_equal(pi.type, 0);
	assert_int_equal(pi.generation, gen1);
	scsi_pr_info_free(&pi);
	/* the old keys are gone: the former holder must register again */
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_EA), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(pr_register(ph->h.p1, 0, 0xa3), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa3, T_EA), SAM_STAT_GOOD);
}

/* Nothing registered: nothing changes (no generation, no unit attention). */
static void test_clear_nothing(void **state)
{
	struct pr_harness *ph = *state;
	struct scsi_pr_clear_result res;
	uint32_t gen0, gen1;

	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen0), 0);
	assert_int_equal(admin_clear(ph->p3, ph->h.lu, NULL, &res), 0);
	assert_int_equal(res.removed, 0);
	assert_false(res.released);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen1), 0);
	assert_int_equal(gen1, gen0);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
}

/* One initiator's registration, the holder of a Registrants Only
 * reservation: REGISTRATIONS PREEMPTED for it, RESERVATIONS RELEASED for
 * the registrant that stays, nothing for p3 (the same initiator through
 * port 2, not registered there). */
static void test_clear_initiator_holder(void **state)
{
	struct pr_harness *ph = *state;
	struct scsi_pr_clear_result res;
	struct loop_result r;
	uint64_t keys[16];
	uint32_t gen0, gen1;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE_RO), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen0), 2);

	assert_int_equal(admin_clear(ph->p3, ph->h.lu, "iqn.test:a", &res), 0);
	assert_int_equal(res.removed, 1);
	assert_true(res.released);
	assert_int_equal(res.generation, gen0 + 1);
	assert_int_equal(h_next_ua(ph->h.p1), UA_REGS_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(h_next_ua(ph->h.p2), UA_RESV_RELEASED);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	assert_int_equal(h_next_ua(ph->p3), 0);
	assert_int_equal(pr_keys(ph->h.p1, keys, &gen1), 1);
	assert_int_equal(keys[0], 0xb2);
	assert_int_equal(gen1, gen0 + 1);
	assert_int_equal(pr_resv(ph->h.p1, NULL), 0);
	assert_int_equal(h_write1(ph->p3, &r), SAM_STAT_GOOD);
	/* p1 is no registrant any more */
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE), SAM_STAT_RESERVATION_CONFLICT);
}

/* Not the holder: the reservation stays; the holder hears nothing. An
 * initiator port name (with its ISID) selects the same registration. */
static void test_clear_initiator_port(void **state)
{
	struct pr_harness *ph = *state;
	struct scsi_pr_clear_result res;
	struct loop_result r;
	uint64_t key;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p1, 0xa1, T_WE_RO), SAM_STAT_GOOD);
	assert_int_equal(admin_clear(ph->p3, ph->h.lu, "iqn.test:b,i,0x000000000002", &res), 0);
	assert_int_equal(res.removed, 0);
	assert_int_equal(admin_clear(ph->p3, ph->h.lu, "IQN.test:B,i,0x000000000001", &res), 0);
	assert_int_equal(res.removed, 1);
	assert_false(res.released);
	assert_int_equal(h_next_ua(ph->h.p2), UA_REGS_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(pr_resv(ph->h.p1, &key), T_WE_RO);
	assert_int_equal(key, 0xa1);
	assert_int_equal(h_write1(ph->h.p2, &r), SAM_STAT_RESERVATION_CONFLICT);
}

/* All Registrants: the reservation ends with the last registrant only; a
 * registration through every target port (ALL_TG_PT) covers p1 and p3. */
static void test_clear_initiator_all_registrants(void **state)
{
	struct pr_harness *ph = *state;
	struct scsi_pr_clear_result res;
	struct loop_result r;

	assert_int_equal(prout(ph->h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_ALL_TG_PT, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_register(ph->h.p2, 0, 0xb2), SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(ph->h.p2, 0xb2, T_EA_AR), SAM_STAT_GOOD);

	assert_int_equal(admin_clear(ph->h.p1, ph->h.lu, "iqn.test:b", &res), 0);
	assert_int_equal(res.removed, 1);
	assert_false(res.released);
	assert_int_equal(h_next_ua(ph->h.p2), UA_REGS_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
	assert_int_equal(h_next_ua(ph->p3), 0);
	assert_int_equal(pr_resv(ph->h.p1, NULL), T_EA_AR);
	assert_int_equal(h_read1(ph->h.p2, &r), SAM_STAT_RESERVATION_CONFLICT);
	assert_int_equal(h_read1(ph->p3, &r), SAM_STAT_GOOD);

	assert_int_equal(admin_clear(ph->h.p2, ph->h.lu, "iqn.test:a", &res), 0);
	assert_int_equal(res.removed, 1);
	assert_true(res.released);
	assert_int_equal(h_next_ua(ph->h.p1), UA_REGS_PREEMPTED);
	assert_int_equal(h_next_ua(ph->p3), UA_REGS_PREEMPTED);
	assert_int_equal(h_next_ua(ph->h.p2), 0);
	assert_int_equal(pr_keys(ph->h.p1, NULL, NULL), 0);
	assert_int_equal(pr_resv(ph->h.p1, NULL), 0);
	assert_int_equal(h_read1(ph->h.p2, &r), SAM_STAT_GOOD);
}

/* Refused at once, nothing changed: a name no iSCSI initiator has, a
 * malformed port name, and a call from a thread that is no reactor. An
 * initiator nobody registered: nothing removed, nothing changed. */
static void test_clear_refused(void **state)
{
	struct pr_harness *ph = *state;
	static const char *const bad[] = {
	    "",
	    "iqn.test:a b",
	    "iqn.test:a,i,0x",
	    "iqn.test:a,i,0x0000000000001",
	    "iqn.test:a,i,0xzz0000000001",
	    "iqn.test:a,t,0x000000000001",
	};
	struct scsi_pr_clear_result res;
	char longname[300];
	uint32_t gen0, gen1;

	assert_int_equal(pr_register(ph->h.p1, 0, 0xa1), SAM_STAT_GOOD);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen0), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(admin_clear(ph->p3, ph->h.lu, bad[i], NULL), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "iqn.test:", 9);
	assert_int_equal(admin_clear(ph->p3, ph->h.lu, longname, NULL), -EINVAL);
	assert_int_equal(admin_clear(ph->p3, ph->h.lu, "iqn.test:nobody", &res), 0);
	assert_int_equal(res.removed, 0);
	assert_int_equal(scsi_lu_pr_clear(ph->h.lu, NULL, admin_done, NULL), -EINVAL);
	assert_int_equal(pr_keys(ph->h.p1, NULL, &gen1), 1);
	assert_int_equal(gen1, gen0);
	assert_int_equal(h_next_ua(ph->h.p1), 0);
}

/* ---- with APTPL (a state directory) ---- */

struct st_harness {
	struct pr_harness ph;
	char dir[64];
	char file[160];
};

static void st_start(struct st_harness *s)
{
	struct scsi_lu_attrs a = h_attrs();

	prh_setup_attrs(&s->ph, &a);
	assert_int_equal(scsi_lu_pr_store(s->ph.h.lu, s->dir), 0);
}

static void st_stop(struct st_harness *s)
{
	prh_teardown(&s->ph);
	memset(&s->ph, 0, sizeof(s->ph));
}

static int st_setup(void **state)
{
	struct st_harness *s = calloc(1, sizeof(*s));

	snprintf(s->dir, sizeof(s->dir), "/tmp/ut-pradmin.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	/* h_attrs() NAA: 60014050aabbccdd0011223344556677 */
	snprintf(s->file, sizeof(s->file), "%s/pr-60014050aabbccdd0011223344556677.state", s->dir);
	st_start(s);
	*state = s;
	return 0;
}

static int st_teardown(void **state)
{
	struct st_harness *s = *state;

	if (s->ph.h.lu)
		st_stop(s);
	unlink(s->file);
	rmdir(s->dir);
	free(s);
	return 0;
}

static unsigned full_status(struct loop_port *p, uint8_t *buf, size_t size)
{
	struct loop_result r;

	assert_int_equal(prin(p, PRI_READ_FULL_STATUS, buf, (uint16_t)size, &r), SAM_STAT_GOOD);
	return r.data_in_len;
}

static off_t file_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 ? sb.st_size : -1;
}

/* The clear is in the state file when done() comes: a power cycle finds
 * nothing registered (APTPL stays active: PTPL_A, an empty state). */
static void test_aptpl_clear_all(void **state)
{
	struct st_harness *s = *state;
	struct scsi_pr_clear_result res;
	struct loop_result r;
	off_t full;

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER_IGNORE, 0, 0, 0xb2, B20_APTPL, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(s->ph.h.p1, 0xa1, T_WE), SAM_STAT_GOOD);
	full = file_size(s->file);
	assert_true(full > 32);

	assert_int_equal(admin_clear(s->ph.p3, s->ph.h.lu, NULL, &res), 0);
	assert_int_equal(res.removed, 2);
	assert_true(res.released);
	/* header (16) + payload header (16), no registration */
	assert_int_equal(file_size(s->file), 32);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
	assert_int_equal(pr_resv(s->ph.h.p1, NULL), 0);
	assert_int_equal(h_write1(s->ph.p3, &r), SAM_STAT_GOOD);
}

/* One initiator's registration, persisted; the other stays across a power
 * cycle. */
static void test_aptpl_clear_initiator(void **state)
{
	struct st_harness *s = *state;
	struct scsi_pr_clear_result res;
	struct loop_result r;
	uint64_t keys[16], key;

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(prout(s->ph.h.p2, PRO_REGISTER_IGNORE, 0, 0, 0xb2, B20_APTPL, &r),
			 SAM_STAT_GOOD);
	assert_int_equal(pr_reserve(s->ph.h.p2, 0xb2, T_EA), SAM_STAT_GOOD);
	assert_int_equal(admin_clear(s->ph.h.p1, s->ph.h.lu, "iqn.test:a", &res), 0);
	assert_int_equal(res.removed, 1);
	assert_false(res.released);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, keys, NULL), 1);
	assert_int_equal(keys[0], 0xb2);
	assert_int_equal(pr_resv(s->ph.h.p1, &key), T_EA);
	assert_int_equal(key, 0xb2);
}

/* The state file cannot be written: done() reports the error and the
 * state is as the file has it (nothing cleared). */
static void test_aptpl_write_failure(void **state)
{
	struct st_harness *s = *state;
	struct loop_result r;
	uint64_t keys[16];
	int err;

	assert_int_equal(prout(s->ph.h.p1, PRO_REGISTER, 0, 0, 0xa1, B20_APTPL, &r), SAM_STAT_GOOD);
	assert_int_equal(unlink(s->file), 0);
	assert_int_equal(rmdir(s->dir), 0);
	/* the directory is gone: open(2) of it fails */
	err = admin_clear(s->ph.p3, s->ph.h.lu, NULL, NULL);
	assert_int_equal(err, -ENOENT);
	/* as for a PR OUT rolled back: the unit attention it established
	 * stays (the initiator re-reads the state and finds its key) */
	assert_int_equal(h_next_ua(s->ph.h.p1), UA_RESV_PREEMPTED);
	assert_int_equal(pr_keys(s->ph.h.p1, keys, NULL), 1);
	assert_int_equal(keys[0], 0xa1);
	assert_int_equal(mkdir(s->dir, 0700), 0);
	assert_int_equal(admin_clear(s->ph.p3, s->ph.h.lu, NULL, NULL), 0);
	assert_int_equal(h_next_ua(s->ph.h.p1), UA_RESV_PREEMPTED);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
}

/* Clears from p3's reactor while p1 and p2 keep registering with APTPL on
 * theirs: every clear completes, every command completes GOOD or with the
 * clear's unit attention, and the file ends equal to the state (READ FULL
 * STATUS the same after a power cycle). */
static void test_aptpl_clear_under_pr_out(void **state)
{
	struct st_harness *s = *state;
	uint8_t lists[2][30][24], before[512], after[512];
	struct loop_task *t[2][30];
	struct loop_port *ports[2] = {s->ph.h.p1, s->ph.h.p2};
	uint8_t cdb[10] = {0x5f, PRO_REGISTER_IGNORE, 0, 0, 0, 0, 0, 0, 24, 0};
	struct admin_call ac[3];
	struct loop_result r;
	unsigned n1, n2, good = 0;

	for (int i = 0; i < 30; i++) {
		if (i % 10 == 5)
			admin_start(&ac[i / 10], s->ph.p3, s->ph.h.lu, NULL);
		for (int p = 0; p < 2; p++) {
			memset(lists[p][i], 0, 24);
			put_be64(lists[p][i] + 8, (uint64_t)(p + 1) << 32 | (uint64_t)(i + 1));
			lists[p][i][20] = B20_APTPL;
			t[p][i] =
			    loop_submit_async(ports[p], 0, cdb, 10, SCSI_DIR_WRITE, lists[p][i], 24,
					      SCSI_ATTR_SIMPLE, (uint64_t)(100 + i), 0);
			assert_non_null(t[p][i]);
		}
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(admin_wait(&ac[i], s->ph.p3), 0);
	for (int i = 0; i < 30; i++) {
		for (int p = 0; p < 2; p++) {
			loop_wait(t[p][i], &r);
			/* a command after a clear reports its unit attention */
			if (r.status != SAM_STAT_GOOD)
				h_expect_sense(&r, 0x6, 0x2a, 0x03);
			else
				good++;
		}
	}
	assert_true(good >= 2);
	/* p1 and p2 registered again after a clear, or not (the reactors
	 * run side by side): whatever the state, the file holds it */
	h_clear_ua(s->ph.h.p1, 0);
	h_clear_ua(s->ph.h.p2, 0);
	assert_true(pr_keys(s->ph.h.p1, NULL, NULL) <= 2);
	n1 = full_status(s->ph.p3, before, sizeof(before));
	st_stop(s);
	st_start(s);
	n2 = full_status(s->ph.p3, after, sizeof(after));
	assert_int_equal(n1, n2);
	assert_memory_equal(before + 4, after + 4, n1 - 4);
	assert_int_equal(admin_clear(s->ph.p3, s->ph.h.lu, NULL, NULL), 0);
	st_stop(s);
	st_start(s);
	assert_int_equal(pr_keys(s->ph.h.p1, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_clear_all, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear_nothing, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear_initiator_holder, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear_initiator_port, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear_initiator_all_registrants, pr_setup,
					    pr_teardown),
	    cmocka_unit_test_setup_teardown(test_clear_refused, pr_setup, pr_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_clear_all, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_clear_initiator, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_write_failure, st_setup, st_teardown),
	    cmocka_unit_test_setup_teardown(test_aptpl_clear_under_pr_out, st_setup, st_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
