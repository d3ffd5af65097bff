/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_session.c: sessions: TSIH allocation (never 0, unique, random),
 * max_sessions, the session state table, reinstatement of a session still
 * logging in, dropping every session of a target. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "fabric/iscsi/session.h"

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_teardown();
	return 0;
}

/* RFC 7143 11.12.6: never 0, unique among live sessions; drawn at random
 * (a TSIH names a session in a TSIH != 0 login, so the next one must not
 * follow from the last). 3,000 sessions of 65,535 values collide often
 * (birthday bound): the step to the next free value is exercised too. */
static void test_tsih(void **state)
{
	enum { N = 3000 };
	struct iscsi_settings st = h_settings();
	static struct iscsi_session *s[N];
	static uint8_t used[65536];
	struct h_conn *hc;
	unsigned successors = 0;

	(void)state;
	h_teardown();
	st.max_sessions = N;
	h_setup(&st);
	hc = h_conn_new();
	memset(used, 0, sizeof(used));
	for (unsigned i = 0; i < N; i++) {
		s[i] = iscsi_session_new(hc->c);
		assert_int_equal(s[i]->state, ISCSI_SESS_Q2_ACTIVE);
		assert_int_equal(iscsi_session_register(s[i]), 0);
		assert_int_not_equal(s[i]->tsih, 0);
		assert_int_equal(used[s[i]->tsih], 0);
		used[s[i]->tsih] = 1;
		if (i && s[i]->tsih == (uint16_t)(s[i - 1]->tsih + 1))
			successors++;
	}
	/* sequential allocation would make every one the successor of the
	 * last; at random about N * N / 2 / 65536 are (collisions) */
	assert_true(successors < N / 4);
	pthread_mutex_lock(&iscsi_global.lock);
	assert_ptr_equal(iscsi_session_find_tsih_locked(s[7]->tsih), s[7]);
	pthread_mutex_unlock(&iscsi_global.lock);
	for (unsigned i = 0; i < N; i++)
		iscsi_session_abandon(s[i]);
	assert_int_equal(iscsi_global.nsessions, 0);
	h_conn_free(hc);
}

static void test_max_sessions(void **state)
{
	struct iscsi_settings st = h_settings();
	struct h_conn *hc;
	struct iscsi_session *a, *b;

	(void)state;
	h_teardown();
	st.max_sessions = 1;
	h_setup(&st);
	hc = h_conn_new();
	a = iscsi_session_new(hc->c);
	b = iscsi_session_new(hc->c);
	assert_int_equal(iscsi_session_register(a), 0);
	assert_int_equal(iscsi_session_register(b), -EBUSY);
	iscsi_session_abandon(b);
	iscsi_session_abandon(a);
	h_conn_free(hc);
}

static void test_state_table(void **state)
{
	struct h_conn *hc = h_conn_new();
	struct iscsi_session *s = iscsi_session_new(hc->c);

	(void)state;
	/* N1 happened in iscsi_session_new; an illegal event changes nothing */
	iscsi_session_event(s, ISCSI_SEV_CLEANED);
	assert_int_equal(s->state, ISCSI_SESS_Q2_ACTIVE);
	iscsi_session_event(s, ISCSI_SEV_LOGGED_IN); /* N2 */
	assert_int_equal(s->state, ISCSI_SESS_Q3_LOGGED_IN);
	iscsi_session_event(s, ISCSI_SEV_FAILED); /* N5, then N6 at ERL 0 */
	assert_int_equal(s->state, ISCSI_SESS_Q1_FREE);
	iscsi_session_abandon(s);
	h_conn_free(hc);
}

static void test_reinstate_busy(void **state)
{
	struct h_conn *a = h_conn_new(), *b = h_conn_new();
	struct iscsi_session *s = iscsi_session_new(a->c);
	static const uint8_t isid[6] = {1, 2, 3, 4, 5, 6};

	(void)state;
	memcpy(s->isid, isid, 6);
	snprintf(s->initiator_name, sizeof(s->initiator_name), "%s", H_INITIATOR);
	s->target = henv.t;
	iscsi_target_get(henv.t);
	assert_int_equal(iscsi_session_register(s), 0);
	/* the same I_T nexus is still logging in: not reinstated */
	assert_int_equal(iscsi_session_reinstate(b->c, isid, H_INITIATOR, henv.t), -EBUSY);
	/* another ISID or initiator: nothing to reinstate */
	assert_int_equal(
	    iscsi_session_reinstate(b->c, (const uint8_t *)"abcdef", H_INITIATOR, henv.t), 0);
	assert_int_equal(iscsi_session_reinstate(b->c, isid, "iqn.2026-12.org.x:y", henv.t), 0);
	iscsi_session_abandon(s);
	h_conn_free(a);
	h_conn_free(b);
}

static void test_drop_target(void **state)
{
	static const uint8_t isid2[6] = {0x80, 0, 0, 0, 0, 2};
	struct h_conn *a = h_conn_new(), *b = h_conn_new();

	(void)state;
	assert_int_equal(h_login(a, NULL), 0);
	assert_int_equal(h_login_isid(b, NULL, isid2), 0);
	iscsi_sessions_drop_target(henv.t, a->c);
	h_pump();
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S5_LOGGED_IN);
	assert_int_equal(iscsi_conn_state(b->c), ISCSI_CONN_S1_FREE);
	/* the target removed: its connections go, new logins find nothing */
	iscsi_portal_free_virtual(henv.portal);
	iscsi_target_del(henv.t);
	assert_int_equal(iscsi_conn_state(a->c), ISCSI_CONN_S1_FREE);
	h_conn_free(a);
	h_conn_free(b);
	/* rebuild what h_teardown frees */
	henv.t = iscsi_target_add(henv.st, NULL);
	henv.tpg = iscsi_tpg_add(henv.t, 1, 1, 0);
	henv.portal = iscsi_portal_new_virtual(henv.tpg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_tsih, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_max_sessions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reinstate_busy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drop_target, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
