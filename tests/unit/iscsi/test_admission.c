/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_admission.c: login and discovery slots (admission.h): at a cap the
 * longest-silent member goes, never the newcomer.
 *
 *   caps (this file)      login: 3 overall, 2 per address
 *                         discovery sessions: 3 overall, 2 per address
 *                         max_sessions 1 (normal sessions only)
 *   connections           virtual (harness.c), each given a peer address
 *                         (10.0.0.x); when it took its slot and when it last
 *                         spoke are set by the test
 *
 * Checked: the per-address cap evicts that address's longest-silent member
 * (not the overall longest-silent one), the global cap the overall one; a
 * connection that spoke lately stays though it came first, and goes after
 * those that never spoke until it has been silent 1 s longer; a brand-new
 * one stays before older silent ones; one its reactor has not taken yet
 * goes after idle ones, before active ones; evicted connections are
 * dropped without a response; counts return to zero as connections log in, close or are evicted,
 * with no slot given back twice; discovery sessions hold slots of their own and do not count
 * against max_sessions; a cap lowered live evicts down to it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/iscsi/admission.h"
#include "fabric/iscsi/session.h"
#include "harness.h"
#include "lib/reactor.h"

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define MS	  1000000ull

static const char *const discovery[] = {"SessionType=Discovery", NULL};

static struct iscsi_settings settings(void)
{
	struct iscsi_settings s = h_settings();

	s.max_logins_in_progress = 3;
	s.max_logins_per_address = 2;
	s.max_discovery_sessions = 3;
	s.max_discovery_sessions_per_address = 2;
	s.max_sessions = 1;
	return s;
}

static int setup(void **state)
{
	struct iscsi_settings s = settings();

	(void)state;
	h_setup(&s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_teardown();
	return 0;
}

static struct sockaddr_storage addr(const char *ip)
{
	struct sockaddr_storage sa = {0};

	if (strchr(ip, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&sa;

		a->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, ip, &a->sin6_addr), 1);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&sa;

		a->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, ip, &a->sin_addr), 1);
	}
	return sa;
}

/* It took its slot age_ms ago and has sent nothing since. */
static void idle_since(struct h_conn *hc, uint64_t age_ms)
{
	hc->c->adm.since_ns = reactor_now_ns() - age_ms * MS;
	atomic_store(&hc->c->last_rx_ns, hc->c->adm.since_ns - MS);
}

/* Its last byte came ago_ms ago, after it took its slot. */
static void spoke(struct h_conn *hc, uint64_t ago_ms)
{
	uint64_t t = reactor_now_ns() - ago_ms * MS;

	atomic_store(&hc->c->last_rx_ns, t);
	if (hc->c->adm.since_ns >= t)
		hc->c->adm.since_ns = t - MS;
}

/* A new connection from ip takes its slot, as if age_s seconds ago, and
 * has sent nothing since. */
static struct h_conn *arrive(const char *ip, unsigned age_s)
{
	struct h_conn *hc = h_conn_new();

	assert_non_null(hc->c);
	hc->c->peer_sa = addr(ip);
	iscsi_adm_login(hc->c);
	idle_since(hc, age_s * 1000ull);
	return hc;
}

static bool dropped(struct h_conn *hc)
{
	h_pump(); /* the drops posted to the connection's reactor */
	return iscsi_conn_state(hc->c) == ISCSI_CONN_S1_FREE;
}

static unsigned count(enum iscsi_adm_class cls, const char *ip)
{
	struct sockaddr_storage sa;

	if (!ip)
		return iscsi_adm_count(cls, NULL);
	sa = addr(ip);
	return iscsi_adm_count(cls, &sa);
}

/* Login caps: per address, then overall; the newest is never the victim. */
static void test_login_caps(void **state)
{
	uint64_t ev = iscsi_adm_evicted(ISCSI_ADM_LOGIN);
	struct h_conn *a1, *a2, *b1, *a3, *c1;

	(void)state;
	a1 = arrive("10.0.0.1", 50);
	a2 = arrive("10.0.0.1", 40);
	b1 = arrive("10.0.0.2", 60); /* the longest-silent of all */
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 3);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 2);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.2"), 1);

	/* a third from 10.0.0.1: over its cap of 2; its own longest-silent
	 * goes, not b1; that also makes room under the global cap */
	a3 = arrive("10.0.0.1", 0);
	assert_true(dropped(a1));
	assert_false(dropped(a2));
	assert_false(dropped(b1));
	assert_false(dropped(a3));
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 3);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 2);
	assert_int_equal(iscsi_adm_evicted(ISCSI_ADM_LOGIN) - ev, 1);
	/* the evicted one was closed without a Login Response */
	assert_true(h_idle(a1));

	/* from a new address: under its own cap, at the global one: the
	 * longest-silent of all (b1) goes */
	c1 = arrive("10.0.0.3", 0);
	assert_true(dropped(b1));
	assert_false(dropped(a2));
	assert_false(dropped(a3));
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 3);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.2"), 0);
	assert_int_equal(iscsi_adm_evicted(ISCSI_ADM_LOGIN) - ev, 2);

	/* closing the evicted ones gives nothing back twice */
	h_conn_free(a1);
	h_conn_free(b1);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 3);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 2);
	h_conn_free(a2);
	h_conn_free(a3);
	h_conn_free(c1);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 0);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.3"), 0);
}

/* A login in progress (bytes received lately) stays though it came first;
 * it goes after every connection that never spoke, until it has been
 * silent a second (ADM_SPOKE_CREDIT_NS) longer than they have. */
static void test_active_survives(void **state)
{
	static const uint8_t part[20] = {ISCSI_OP_LOGIN_REQ | ISCSI_OP_IMMEDIATE};
	struct h_conn *x, *y, *z, *w, *v;

	(void)state;
	x = arrive("10.0.0.1", 50); /* first */
	y = arrive("10.0.0.1", 40);
	/* x is in the middle of its Login Request (a CHAP round trip, a slow
	 * link): its last byte is recent */
	assert_int_equal(iscsi_conn_feed(x->c, part, sizeof(part)), 0);
	z = arrive("10.0.0.1", 0);
	assert_true(dropped(y));
	assert_false(dropped(x));
	assert_false(dropped(z));
	/* x spoke 500 ms ago, z has sent nothing since it came just now:
	 * z goes */
	spoke(x, 500);
	w = arrive("10.0.0.1", 0);
	assert_true(dropped(z));
	assert_false(dropped(x));
	assert_false(dropped(w));
	/* x silent for 30 s now, w (nothing yet) came just now: x goes */
	spoke(x, 30000);
	v = arrive("10.0.0.1", 0);
	assert_true(dropped(x));
	assert_false(dropped(w));
	assert_false(dropped(v));
	h_conn_free(x);
	h_conn_free(y);
	h_conn_free(z);
	h_conn_free(w);
	h_conn_free(v);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
}

/* Connections their reactor has not taken yet (an accept batch, a reactor
 * behind) cannot be judged: they go after an idle one that could speak and
 * before a login that spoke, the first admitted first. */
static void test_unread(void **state)
{
	struct h_conn *idle, *p, *f1, *f2, *f3;

	(void)state;
	idle = arrive("10.0.0.1", 0); /* could speak, has not */
	p = arrive("10.0.0.1", 0);
	p->c->adm.since_ns = 0; /* not taken by its reactor yet */
	f1 = arrive("10.0.0.1", 0);
	f1->c->adm.since_ns = 0;
	assert_true(dropped(idle));
	assert_false(dropped(p));
	/* p is taken by its reactor and sends its Login Request */
	p->c->adm.since_ns = reactor_now_ns() - 2 * MS;
	spoke(p, 1);
	f2 = arrive("10.0.0.1", 0);
	f2->c->adm.since_ns = 0;
	assert_true(dropped(f1));
	assert_false(dropped(p));
	assert_false(dropped(f2));
	/* f2 (not read) and f3 (not read), p spoke 400 ms ago: f2 goes */
	spoke(p, 400);
	f3 = arrive("10.0.0.1", 0);
	f3->c->adm.since_ns = 0;
	assert_true(dropped(f2));
	assert_false(dropped(p));
	assert_false(dropped(f3));
	h_conn_free(idle);
	h_conn_free(p);
	h_conn_free(f1);
	h_conn_free(f2);
	h_conn_free(f3);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
}

/* Leaving the login phase gives the slot back; an IPv4 peer of a
 * dual-stack socket counts as its IPv4 address. */
static void test_login_done_and_keys(void **state)
{
	struct h_conn *a, *b, *c;

	(void)state;
	a = arrive("10.0.0.1", 10);
	b = arrive("::ffff:10.0.0.1", 5);
	c = arrive("2001:db8::1", 5);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 2);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "::ffff:10.0.0.1"), 2);
	assert_int_equal(count(ISCSI_ADM_LOGIN, "2001:db8::1"), 1);
	assert_int_equal(h_login(a, NULL), 0); /* full feature phase */
	assert_int_equal(count(ISCSI_ADM_LOGIN, "10.0.0.1"), 1);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 2);
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, NULL), 0);
	h_conn_free(a);
	h_conn_free(b);
	h_conn_free(c);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
}

/* Discovery sessions: caps of their own, max_sessions untouched. */
static void test_discovery_caps(void **state)
{
	static const uint8_t isid1[6] = {0x80, 0, 0, 0, 0, 1}, isid2[6] = {0x80, 0, 0, 0, 0, 2};
	uint64_t ev = iscsi_adm_evicted(ISCSI_ADM_DISCOVERY);
	struct h_conn *d1, *d2, *d3, *d4, *d5, *n1, *n2;

	(void)state;
	d1 = arrive("10.0.0.1", 0);
	assert_int_equal(h_login(d1, discovery), 0);
	d2 = arrive("10.0.0.1", 0);
	assert_int_equal(h_login(d2, discovery), 0);
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, "10.0.0.1"), 2);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
	idle_since(d1, 30000); /* logged in 30 s ago, no PDU since */
	idle_since(d2, 20000);

	/* max_sessions 1 counts normal sessions only */
	n1 = arrive("10.0.0.9", 0);
	assert_int_equal(h_login_isid(n1, NULL, isid1), 0);
	n2 = arrive("10.0.0.9", 0);
	assert_int_equal(h_login_isid(n2, NULL, isid2), 0x0302);
	h_conn_free(n2);

	/* a third discovery session from 10.0.0.1: over its cap of 2 */
	d3 = arrive("10.0.0.1", 0);
	assert_int_equal(h_login(d3, discovery), 0);
	assert_true(dropped(d1));
	assert_false(dropped(d2));
	assert_false(dropped(d3));
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, "10.0.0.1"), 2);
	h_conn_free(d1);
	assert_int_equal(iscsi_global.ndiscovery, 2);

	/* from 10.0.0.2 and 10.0.0.3: the global cap of 3; d2 has been
	 * silent longest */
	d4 = arrive("10.0.0.2", 0);
	assert_int_equal(h_login(d4, discovery), 0);
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, NULL), 3);
	d5 = arrive("10.0.0.3", 0);
	assert_int_equal(h_login(d5, discovery), 0);
	assert_true(dropped(d2));
	assert_false(dropped(d3));
	assert_false(dropped(d4));
	assert_false(dropped(d5));
	assert_false(dropped(n1));
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, NULL), 3);
	assert_int_equal(iscsi_adm_evicted(ISCSI_ADM_DISCOVERY) - ev, 2);

	h_conn_free(d2);
	h_conn_free(d3);
	h_conn_free(d4);
	h_conn_free(d5);
	h_conn_free(n1);
	h_pump();
	assert_int_equal(count(ISCSI_ADM_DISCOVERY, NULL), 0);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
	assert_int_equal(iscsi_global.ndiscovery, 0);
}

/* A cap lowered live (settings.set): the next newcomer evicts down to it. */
static void test_cap_lowered(void **state)
{
	struct iscsi_settings s = settings();
	struct h_conn *a, *b, *c, *d;

	(void)state;
	a = arrive("10.0.0.1", 30);
	b = arrive("10.0.0.2", 20);
	c = arrive("10.0.0.3", 10);
	s.max_logins_in_progress = 1;
	iscsi_init(&s);
	d = arrive("10.0.0.4", 0);
	assert_true(dropped(a));
	assert_true(dropped(b));
	assert_true(dropped(c));
	assert_false(dropped(d));
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 1);
	h_conn_free(a);
	h_conn_free(b);
	h_conn_free(c);
	h_conn_free(d);
	assert_int_equal(count(ISCSI_ADM_LOGIN, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_login_caps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_active_survives, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unread, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_login_done_and_keys, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discovery_caps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cap_lowered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
