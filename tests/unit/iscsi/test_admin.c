/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_admin.c: the control plane's operations on the running fabric
 * (admin.c): list sessions (with what they negotiated, their login time
 * and their counters), drop a session or one connection, ask for a
 * logout (RFC 7143 11.9.1, AsyncEvent 1), drop an initiator's sessions,
 * remove a portal group, change an alias.
 *
 * Set-up: the harness's target (one portal group, tag 1, on a virtual
 * portal) with three logged-in sessions of H_INITIATOR (ISIDs ...01,
 * ...02, ...03; the third one renamed to another initiator after its
 * login), each with one connection, fed through the harness without
 * sockets. The control plane runs on reactor 0 in the daemon: the calls
 * are made from a message on the harness's reactor (its connections are
 * then dropped inline), and once from another thread while the reactor
 * runs (dropped by a message to the reactor, waited for). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fabric/iscsi/session.h"
#include "harness.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "lib/reactor.h"

#define OTHER "iqn.2026-12.org.example:host2"

static struct h_conn *hc[3];

/* The core's side of admin.c (fake_core.c has none): a retired target
 * port, a target port moved to another ALUA group. */
static struct {
	const struct scsi_tport *retired;
	const struct scsi_tport *moved;
	uint16_t group;
	int rc;
} tport;

void scsi_tport_retire(struct scsi_tport *tp)
{
	tport.retired = tp;
}

int scsi_tport_set_port_group(struct scsi_tport *tp, uint16_t port_group)
{
	if (tport.rc)
		return tport.rc;
	tport.moved = tp;
	tport.group = port_group;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	h_setup(NULL);
	memset(&tport, 0, sizeof(tport));
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t isid[6] = {0x80, 0, 0, 0, 0, (uint8_t)(i + 1)};

		hc[i] = h_conn_new();
		assert_int_equal(h_login_isid(hc[i], NULL, isid), 0);
	}
	/* the third session: another initiator's */
	pthread_mutex_lock(&iscsi_global.lock);
	snprintf(hc[2]->c->sess->initiator_name, sizeof(hc[2]->c->sess->initiator_name), "%s",
		 OTHER);
	pthread_mutex_unlock(&iscsi_global.lock);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 3; i++)
		h_conn_free(hc[i]);
	h_teardown();
	return 0;
}

static bool alive(unsigned i)
{
	return iscsi_conn_state(hc[i]->c) == ISCSI_CONN_S5_LOGGED_IN;
}

/* ---- calls made on the reactor (as the control plane does) ---- */
struct on_reactor {
	struct reactor_msg msg;
	int (*fn)(void *arg);
	void *arg;
	int rc;
};

static void on_reactor_msg(struct reactor_msg *m)
{
	struct on_reactor *o = container_of(m, struct on_reactor, msg);

	assert_ptr_equal(reactor_self(), henv.r);
	o->rc = o->fn(o->arg);
}

static int run_on_reactor(int (*fn)(void *arg), void *arg)
{
	struct on_reactor o = {.msg.fn = on_reactor_msg, .fn = fn, .arg = arg, .rc = -1000};

	reactor_post(henv.r, &o.msg);
	h_pump();
	assert_int_not_equal(o.rc, -1000);
	return o.rc;
}

struct sess_arg {
	uint16_t tsih;
	int cid;
	uint16_t seconds;
};

static int do_drop(void *arg)
{
	const struct sess_arg *a = arg;

	return iscsi_session_drop(a->tsih, a->cid);
}

static int do_logout(void *arg)
{
	const struct sess_arg *a = arg;

	return iscsi_session_logout(a->tsih, a->cid, a->seconds);
}

static int do_drop_initiator(void *arg)
{
	return (int)iscsi_target_drop_initiator(henv.t, arg);
}

static int do_tpg_del(void *arg)
{
	iscsi_tpg_del(arg);
	return 0;
}

static struct iscsi_session_info *list(size_t *n)
{
	struct iscsi_session_info *v = NULL;

	assert_int_equal(iscsi_session_list(&v, n), 0);
	assert_non_null(v);
	return v;
}

static const struct iscsi_session_info *find(const struct iscsi_session_info *v, size_t n,
					     uint16_t tsih)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tsih == tsih)
			return &v[i];
	return NULL;
}

/* ---- list ---- */
static void test_list(void **state)
{
	struct iscsi_session_info *v;
	const struct iscsi_session_info *s;
	size_t n;

	(void)state;
	v = list(&n);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < 3; i++) {
		s = find(v, n, hc[i]->tsih);
		assert_non_null(s);
		assert_false(s->discovery);
		assert_true(s->logged_in);
		assert_int_equal(s->tpgt, 1);
		assert_string_equal(s->target, H_TARGET);
		assert_string_equal(s->initiator, i == 2 ? OTHER : H_INITIATOR);
		assert_int_equal(s->isid[0], 0x80);
		assert_int_equal(s->isid[5], i + 1);
		assert_int_equal(s->nconns, 1);
		assert_int_equal(s->conns[0].cid, hc[i]->c->cid);
		assert_string_equal(s->conns[0].state, "logged_in");
		assert_string_equal(s->conns[0].peer, hc[i]->c->peer);
		assert_string_equal(s->conns[0].local, hc[i]->c->local);
	}
	free(v);
	/* one connection gone: its session with it (ERL 0) */
	iscsi_conn_drop(hc[1]->c, "test");
	h_pump();
	v = list(&n);
	assert_int_equal(n, 2);
	assert_null(find(v, n, hc[1]->tsih));
	free(v);
}

/* ---- list: what a session negotiated, its login time, its counters ---- */
#define F_R (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)

static void test_list_negotiated(void **state)
{
	static const char *const keys[] = {
	    "HeaderDigest=CRC32C",
	    "DataDigest=None",
	    "MaxRecvDataSegmentLength=4096",
	    "MaxBurstLength=8192",
	    "FirstBurstLength=2048",
	    "ImmediateData=Yes",
	    "InitialR2T=Yes",
	    "ErrorRecoveryLevel=0",
	    "MaxConnections=1",
	    NULL,
	};
	const uint8_t isid[6] = {0x80, 0, 0, 0, 0, 9};
	struct h_conn *x = h_conn_new();
	struct iscsi_session_info *v;
	const struct iscsi_session_info *s;
	uint8_t cdb[16], data[2048];
	union iscsi_hdr h;
	uint32_t len;
	time_t before, after;
	size_t n;

	(void)state;
	before = time(NULL);
	assert_int_equal(h_login_isid(x, keys, isid), 0);
	after = time(NULL);
	v = list(&n);
	s = find(v, n, x->tsih);
	assert_non_null(s);
	assert_true(s->login_time >= before && s->login_time <= after);
	/* session-wide: MaxBurstLength and FirstBurstLength the smaller
	 * value, InitialR2T OR, ImmediateData AND (RFC 7143 13) */
	assert_int_equal(s->max_burst_length, 8192);
	assert_int_equal(s->first_burst_length, 2048);
	assert_true(s->initial_r2t);
	assert_true(s->immediate_data);
	assert_int_equal(s->error_recovery_level, 0);
	assert_int_equal(s->max_connections, 1);
	/* per connection: the digests, each side's declaration */
	assert_int_equal(s->nconns, 1);
	assert_true(s->conns[0].header_digest);
	assert_false(s->conns[0].data_digest);
	assert_int_equal(s->conns[0].max_send_dsl, 4096);
	assert_int_equal(s->conns[0].max_recv_dsl, h_settings().max_recv_data_segment_length);
	assert_int_equal(s->commands, 0);
	assert_int_equal(s->read_bytes, 0);
	assert_int_equal(s->write_bytes, 0);
	/* the other sessions negotiated the defaults: no digest */
	s = find(v, n, hc[0]->tsih);
	assert_false(s->conns[0].header_digest);
	assert_int_equal(s->conns[0].max_send_dsl, 8192); /* RFC 7143 13.12 default */
	free(v);

	/* counters: a READ of 2 blocks, a WRITE of 1 block (immediate data),
	 * a READ whose EDTL is 1 block for 2 (overflow: 512 bytes sent), a
	 * READ out of range (CHECK CONDITION: a command, no data) */
	h_read10(cdb, 0, 2);
	h_cmd(x, F_R, 1024, cdb, NULL, 0);
	h_expect(x, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	memset(data, 0x5a, 512);
	h_write10(cdb, 3, 1);
	h_cmd(x, F_W, 512, cdb, data, 512);
	h_expect(x, ISCSI_OP_SCSI_RSP, &h, NULL, 0, &len);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
	h_read10(cdb, 0, 2);
	h_cmd(x, F_R, 512, cdb, NULL, 0);
	h_expect(x, ISCSI_OP_DATA_IN, &h, data, sizeof(data), &len);
	assert_int_equal(len, 512);
	h_read10(cdb, FAKE_BLOCKS, 1);
	h_cmd(x, F_R, 512, cdb, NULL, 0);
	h_expect(x, ISCSI_OP_SCSI_RSP, &h, data, sizeof(data), &len);
	assert_int_equal(h.rsp.status, SAM_STAT_CHECK_CONDITION);
	v = list(&n);
	s = find(v, n, x->tsih);
	assert_int_equal(s->commands, 4);
	assert_int_equal(s->read_bytes, 1024 + 512);
	assert_int_equal(s->write_bytes, 512);
	/* each session counts its own */
	assert_int_equal(find(v, n, hc[0]->tsih)->commands, 0);
	free(v);
	h_conn_free(x);
}

/* ---- drop ---- */
static void test_drop_session(void **state)
{
	struct sess_arg a = {.tsih = hc[0]->tsih, .cid = -1};
	size_t n;

	(void)state;
	assert_int_equal(run_on_reactor(do_drop, &a), 0);
	assert_false(alive(0));
	assert_true(alive(1));
	assert_true(alive(2));
	free(list(&n));
	assert_int_equal(n, 2);
	/* gone: not found again */
	assert_int_equal(run_on_reactor(do_drop, &a), -ENOENT);
	/* a TSIH nobody has */
	a.tsih = (uint16_t)(hc[1]->tsih ^ hc[2]->tsih ^ 0x5a5a);
	assert_int_equal(run_on_reactor(do_drop, &a), -ENOENT);
	assert_true(alive(1) && alive(2));
}

static void test_drop_connection(void **state)
{
	struct sess_arg a = {.tsih = hc[1]->tsih, .cid = hc[1]->c->cid + 1};

	(void)state;
	/* a connection the session does not have */
	assert_int_equal(run_on_reactor(do_drop, &a), -ENOENT);
	assert_true(alive(1));
	a.cid = hc[1]->c->cid;
	assert_int_equal(run_on_reactor(do_drop, &a), 0);
	assert_false(alive(1));
	assert_true(alive(0) && alive(2));
}

/* From another thread than the connections': a drop message to their
 * reactor, and the call waits until they are gone. */
static void *run_reactor(void *arg)
{
	(void)arg;
	reactor_run(henv.r);
	return NULL;
}

static void test_drop_other_thread(void **state)
{
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, run_reactor, NULL), 0);
	assert_int_equal(iscsi_session_drop(hc[2]->tsih, -1), 0);
	/* returned once the connection left the fabric */
	pthread_mutex_lock(&iscsi_global.lock);
	assert_false(hc[2]->c->registered);
	pthread_mutex_unlock(&iscsi_global.lock);
	assert_int_equal(iscsi_target_drop_initiator(henv.t, OTHER), 0);
	reactor_stop(henv.r);
	pthread_join(th, NULL);
	assert_false(alive(2));
	assert_true(alive(0) && alive(1));
}

static void test_drop_initiator(void **state)
{
	(void)state;
	/* both sessions of H_INITIATOR (one connection each); not OTHER's */
	assert_int_equal(run_on_reactor(do_drop_initiator, (void *)H_INITIATOR), 2);
	assert_false(alive(0));
	assert_false(alive(1));
	assert_true(alive(2));
	assert_int_equal(run_on_reactor(do_drop_initiator, (void *)H_INITIATOR), 0);
	assert_int_equal(run_on_reactor(do_drop_initiator, (void *)"iqn.2026-12.org.x:nobody"), 0);
	assert_int_equal(run_on_reactor(do_drop_initiator, (void *)OTHER), 1);
	assert_false(alive(2));
}

/* ---- logout ---- */
static void logout_req(struct h_conn *h, uint8_t reason)
{
	union iscsi_hdr r;

	memset(&r, 0, sizeof(r));
	r.logout_req.opcode = ISCSI_OP_LOGOUT_REQ | ISCSI_OP_IMMEDIATE;
	r.logout_req.reason = 0x80 | reason;
	put_be32(r.logout_req.itt, 0x77);
	put_be16(r.logout_req.cid, h->c->cid);
	put_be32(r.logout_req.cmdsn, h->cmdsn);
	h_send(h, &r, NULL, 0);
}

/* The target asks (AsyncEvent 1 with the time allowed); the initiator
 * logs out; the request's timer ends with the connection. */
static void test_logout(void **state)
{
	struct sess_arg a = {.tsih = hc[0]->tsih, .cid = -1, .seconds = 5};
	union iscsi_hdr h;
	uint32_t statsn = hc[0]->statsn;

	(void)state;
	assert_int_equal(run_on_reactor(do_logout, &a), 0);
	h_pump(); /* the request reaches the connection's reactor */
	h_expect(hc[0], ISCSI_OP_ASYNC_MSG, &h, NULL, 0, NULL);
	assert_int_equal(h.async.event, ISCSI_ASYNC_LOGOUT_REQUEST);
	assert_int_equal(get_be16(h.async.param3), 5);
	assert_int_equal(get_be32(h.async.itt), 0xffffffffu);
	/* a status-bearing PDU: StatSN advances */
	assert_int_equal(get_be32(h.async.statsn), statsn + 1);
	assert_true(alive(0)); /* it has its time */
	assert_true(h_idle(hc[1]) && h_idle(hc[2]));
	hc[0]->statsn = get_be32(h.async.statsn);
	logout_req(hc[0], ISCSI_LOGOUT_CLOSE_SESSION);
	h_expect(hc[0], ISCSI_OP_LOGOUT_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.logout_rsp.response, ISCSI_LOGOUT_RSP_CLOSED);
	assert_int_equal(iscsi_conn_state(hc[0]->c), ISCSI_CONN_S1_FREE);
	/* the request's next tick finds the connection gone and ends */
	usleep(60 * 1000);
	h_pump();
	/* nothing to ask any more */
	assert_int_equal(run_on_reactor(do_logout, &a), -ENOENT);
}

/* No Logout in the time given (and a second): dropped. 0 s means 1. */
static void test_logout_timeout(void **state)
{
	struct sess_arg a = {.tsih = hc[1]->tsih, .cid = hc[1]->c->cid, .seconds = 0};
	union iscsi_hdr h;

	(void)state;
	assert_int_equal(run_on_reactor(do_logout, &a), 0);
	h_pump();
	h_expect(hc[1], ISCSI_OP_ASYNC_MSG, &h, NULL, 0, NULL);
	assert_int_equal(get_be16(h.async.param3), 1);
	for (int i = 0; i < 80 && alive(1); i++) {
		usleep(50 * 1000);
		h_pump();
	}
	assert_false(alive(1));
	assert_true(alive(0) && alive(2));
	usleep(60 * 1000);
	h_pump();
}

/* Dropped before the request reached its reactor: no message is sent
 * on a dead connection, the request ends. */
static void test_logout_after_drop(void **state)
{
	struct sess_arg a = {.tsih = hc[2]->tsih, .cid = -1, .seconds = 3};

	(void)state;
	assert_int_equal(iscsi_session_logout(a.tsih, a.cid, a.seconds), 0);
	iscsi_conn_drop(hc[2]->c, "test");
	h_pump();
	assert_false(alive(2));
	assert_true(h_idle(hc[2]));
}

/* ---- portal groups, alias ---- */

/* A second portal group with one session: removing it drops that session
 * only; no new login reaches it; its target port leaves. */
static void test_tpg_del(void **state)
{
	struct iscsi_tpg *tpg2 = iscsi_tpg_add(henv.t, 2, 2, 0);
	struct iscsi_portal *p1 = henv.portal, *p2;
	struct h_conn *c2;
	size_t n;

	(void)state;
	assert_non_null(tpg2);
	p2 = iscsi_portal_new_virtual(tpg2);
	henv.portal = p2; /* h_conn_new() connects to henv.portal */
	c2 = h_conn_new();
	henv.portal = p1;
	assert_int_equal(h_login_isid(c2, NULL, (const uint8_t[6]){0x80, 0, 0, 0, 0, 9}), 0);
	free(list(&n));
	assert_int_equal(n, 4);
	assert_int_equal(run_on_reactor(do_tpg_del, tpg2), 0);
	assert_true(tpg2->removed);
	assert_non_null(tpg2->tport);
	assert_ptr_equal(tport.retired, tpg2->tport);
	assert_int_equal(iscsi_conn_state(c2->c), ISCSI_CONN_S1_FREE);
	assert_true(alive(0) && alive(1) && alive(2));
	free(list(&n));
	assert_int_equal(n, 3);
	h_conn_free(c2);
	iscsi_portal_free_virtual(p2);
}

static void test_set_port_group(void **state)
{
	(void)state;
	assert_int_equal(iscsi_tpg_set_port_group(henv.tpg, 7), 0);
	assert_ptr_equal(tport.moved, henv.tpg->tport);
	assert_int_equal(tport.group, 7);
	/* sessions stay */
	assert_true(alive(0) && alive(1) && alive(2));
	/* the core refuses: said so (the control plane rebuilds it then) */
	tport.rc = -ENOMEM;
	assert_int_equal(iscsi_tpg_set_port_group(henv.tpg, 8), -ENOMEM);
	assert_int_equal(tport.group, 7);
}

static void test_alias(void **state)
{
	(void)state;
	assert_string_equal(henv.t->alias, "test alias");
	iscsi_target_set_alias(henv.t, "renamed");
	assert_string_equal(henv.t->alias, "renamed");
	iscsi_target_set_alias(henv.t, NULL);
	assert_string_equal(henv.t->alias, "");
	assert_true(alive(0) && alive(1) && alive(2));
}

int main(void)
{
#define TC(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TC(test_list),
	    TC(test_list_negotiated),
	    TC(test_drop_session),
	    TC(test_drop_connection),
	    TC(test_drop_other_thread),
	    TC(test_drop_initiator),
	    TC(test_logout),
	    TC(test_logout_timeout),
	    TC(test_logout_after_drop),
	    TC(test_tpg_del),
	    TC(test_set_port_group),
	    TC(test_alias),
	};
#undef TC
	log_set_level(LOG_LVL_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
