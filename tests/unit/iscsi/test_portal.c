/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_portal.c: portal addresses, listening sockets shared by portal
 * groups, accept at the caps of logins in progress (the longest-silent
 * connection makes room: admission.h), the hand-off to a reactor, and a
 * login over a real TCP connection (127.0.0.1, ports 3310-3311). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_core.h"
#include "fabric/iscsi/admission.h"
#include "fabric/iscsi/proto.h"
#include "fabric/iscsi/target.h"
#include "lib/endian.h"
#include "lib/reactor.h"

#define PORT_A 3310
#define PORT_B 3311

static void test_parse_format(void **state)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char buf[80];

	(void)state;
	assert_int_equal(iscsi_addr_parse("127.0.0.1:3260", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET);
	iscsi_addr_format((struct sockaddr *)&sa, buf, sizeof(buf));
	assert_string_equal(buf, "127.0.0.1:3260");
	assert_int_equal(iscsi_addr_parse("[::1]:860", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	iscsi_addr_format((struct sockaddr *)&sa, buf, sizeof(buf));
	assert_string_equal(buf, "[::1]:860");
	assert_int_equal(iscsi_addr_parse("[::]:3260", &sa, &len), 0);
	assert_int_equal(iscsi_addr_parse("0.0.0.0:1", &sa, &len), 0);
	/* v4-mapped addresses are shown as IPv4 */
	assert_int_equal(iscsi_addr_parse("[::ffff:10.1.2.3]:3260", &sa, &len), 0);
	iscsi_addr_format((struct sockaddr *)&sa, buf, sizeof(buf));
	assert_string_equal(buf, "10.1.2.3:3260");
	static const char *const bad[] = {
	    "127.0.0.1",     "127.0.0.1:",     ":3260",	    "127.0.0.1:0", "127.0.0.1:65536",
	    "127.0.0.1:32x", "localhost:3260", "[::1]3260", "[::1:3260",   "::1:3260",
	    "1.2.3.4.5:1",   "[127.0.0.1]:1",  "",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(iscsi_addr_parse(bad[i], &sa, &len), -EINVAL);
	assert_int_equal(iscsi_addr_parse(NULL, &sa, &len), -EINVAL);
}

static void stop_cb(struct reactor_timer *t)
{
	reactor_stop(reactor_pool_get(0));
}

static void run_for(uint64_t ns)
{
	struct reactor_timer stop;

	reactor_timer_init(&stop, stop_cb);
	reactor_timer_arm(reactor_pool_get(0), &stop, ns);
	reactor_run(reactor_pool_get(0));
}

static int connect_to(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static size_t login_pdu(uint8_t *w)
{
	static const char keys[] = "InitiatorName=iqn.2026-12.org.example:x\0"
				   "TargetName=iqn.2026-12.org.utarget:portal\0";
	uint32_t dl = sizeof(keys) - 1;

	memset(w, 0, 48);
	w[0] = ISCSI_OP_LOGIN_REQ | ISCSI_OP_IMMEDIATE;
	w[1] = ISCSI_LOGIN_F_TRANSIT | (1 << 2) | 3;
	w[8] = 0x80;
	put_be24(w + 5, dl);
	memcpy(w + 48, keys, dl);
	memset(w + 48 + dl, 0, ISCSI_PAD(dl));
	return 48 + dl + ISCSI_PAD(dl);
}

/* Read what is there within ms milliseconds; 0 on EOF. */
static ssize_t read_some(int fd, uint8_t *buf, size_t n, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, ms) <= 0)
		return -1;
	return read(fd, buf, n);
}

static void test_listen_accept(void **state)
{
	struct iscsi_settings s;
	struct scsi_target *st;
	struct iscsi_target *t;
	struct iscsi_tpg *tpg1, *tpg2;
	char addr[32];
	uint8_t w[512], r[512];
	int a, b, blocker;
	ssize_t n;

	(void)state;
	fake_reset();
	assert_int_equal(reactor_pool_start(1), 0);
	iscsi_settings_default(&s);
	s.max_logins_in_progress = 1;
	s.nop_in_interval_s = 0;
	iscsi_init(&s);
	st = fake_target("iqn.2026-12.org.utarget:portal");
	t = iscsi_target_add(st, NULL);
	tpg1 = iscsi_tpg_add(t, 1, 1, 0);
	tpg2 = iscsi_tpg_add(t, 2, 2, 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", PORT_A);
	assert_int_equal(iscsi_tpg_portal_add(tpg1, addr), 0);
	/* a second portal group on the same address shares the socket */
	assert_int_equal(iscsi_tpg_portal_add(tpg2, addr), 0);
	assert_int_equal(iscsi_tpg_portal_add(tpg1, "nonsense"), -EINVAL);
	/* an address already taken by someone else */
	{
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PORT_B)};
		int one = 1;

		blocker = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(blocker, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(bind(blocker, (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(listen(blocker, 1), 0);
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", PORT_B);
		assert_int_equal(iscsi_tpg_portal_add(tpg1, addr), -EADDRINUSE);
		close(blocker);
	}

	/* a silent connection in login, then a second one over the cap: the
	 * newcomer is served, the silent one is closed without a response */
	b = connect_to(PORT_A);
	run_for(100000000ull);
	a = connect_to(PORT_A);
	run_for(100000000ull);
	assert_int_equal(read_some(b, r, sizeof(r), 500), 0);
	close(b);
	/* the newcomer logs in over TCP (first portal group: tag 1) */
	n = (ssize_t)login_pdu(w);
	assert_int_equal(write(a, w, (size_t)n), n);
	run_for(100000000ull);
	n = read_some(a, r, sizeof(r), 500);
	assert_true(n >= 48);
	assert_int_equal(r[0], ISCSI_OP_LOGIN_RSP);
	assert_int_equal(r[36], 0); /* status class */
	assert_true(memmem(r + 48, (size_t)n - 48, "TargetPortalGroupTag=1", 22) != NULL);
	/* its login is over: a new connection takes its slot, nobody goes */
	b = connect_to(PORT_A);
	run_for(100000000ull);
	n = (ssize_t)login_pdu(w);
	assert_int_equal(write(b, w, (size_t)n), n);
	run_for(100000000ull);
	assert_true(read_some(b, r, sizeof(r), 500) >= 48);
	assert_int_equal(fake.nexus_created, 2);

	/* shutdown: listeners closed, connections dropped */
	iscsi_shutdown();
	run_for(50000000ull);
	assert_int_equal(read_some(a, r, sizeof(r), 500), 0);
	assert_int_equal(read_some(b, r, sizeof(r), 500), 0);
	{
		/* nobody listens any more */
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PORT_A)};
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), -1);
		assert_int_equal(errno, ECONNREFUSED);
		close(fd);
	}
	close(a);
	close(b);
	iscsi_target_del(t);
	fake_target_free(st);
	reactor_pool_join();
	assert_int_equal(fake.nexus_destroyed, 2);
}

/* At the per-address cap over TCP: a login that has begun (bytes received
 * lately) stays although it came first; the silent one goes; the newcomer
 * is served. One reactor: accept and connections in one thread. */
static void test_accept_evicts_silent(void **state)
{
	struct iscsi_settings s;
	struct scsi_target *st;
	struct iscsi_target *t;
	struct iscsi_tpg *tpg;
	char addr[32];
	uint8_t w[512], r[512];
	uint64_t evicted = iscsi_adm_evicted(ISCSI_ADM_LOGIN); /* since start */
	int x, y, z;
	ssize_t n;

	(void)state;
	fake_reset();
	assert_int_equal(reactor_pool_start(1), 0);
	iscsi_settings_default(&s);
	s.max_logins_per_address = 2;
	s.nop_in_interval_s = 0;
	iscsi_init(&s);
	st = fake_target("iqn.2026-12.org.utarget:portal");
	t = iscsi_target_add(st, NULL);
	tpg = iscsi_tpg_add(t, 1, 1, 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", PORT_A);
	assert_int_equal(iscsi_tpg_portal_add(tpg, addr), 0);

	/* x first, y later; then x sends the start of its Login Request */
	n = (ssize_t)login_pdu(w);
	x = connect_to(PORT_A);
	run_for(100000000ull);
	y = connect_to(PORT_A);
	run_for(100000000ull);
	assert_int_equal(write(x, w, 20), 20);
	run_for(100000000ull);
	/* z: over max_logins_per_address 2; y has been silent longest */
	z = connect_to(PORT_A);
	run_for(100000000ull);
	assert_int_equal(read_some(y, r, sizeof(r), 500), 0);
	assert_int_equal(read_some(x, r, sizeof(r), 100), -1); /* still open, no answer */
	/* x finishes its login, and so does z */
	assert_int_equal(write(x, w + 20, (size_t)n - 20), n - 20);
	assert_int_equal(write(z, w, (size_t)n), n);
	run_for(100000000ull);
	assert_true(read_some(x, r, sizeof(r), 500) >= 48);
	assert_int_equal(r[36], 0);
	assert_true(read_some(z, r, sizeof(r), 500) >= 48);
	assert_int_equal(r[36], 0);
	assert_int_equal(iscsi_adm_evicted(ISCSI_ADM_LOGIN) - evicted, 1);
	assert_int_equal(iscsi_adm_count(ISCSI_ADM_LOGIN, NULL), 0);

	iscsi_shutdown();
	run_for(50000000ull);
	close(x);
	close(y);
	close(z);
	iscsi_target_del(t);
	fake_target_free(st);
	reactor_pool_join();
	assert_int_equal(fake.nexus_destroyed, 2);
}

/* One accept batch (the reactor was busy): b's Login Request is already
 * waiting when it is accepted, c has sent nothing; d is over the
 * per-address cap of 2: c goes, b is served. */
static void test_accept_spoke_early(void **state)
{
	struct iscsi_settings s;
	struct scsi_target *st;
	struct iscsi_target *t;
	struct iscsi_tpg *tpg;
	char addr[32];
	uint8_t w[512], r[512];
	int b, c, d;
	ssize_t n;

	(void)state;
	fake_reset();
	assert_int_equal(reactor_pool_start(1), 0);
	iscsi_settings_default(&s);
	s.max_logins_per_address = 2;
	s.nop_in_interval_s = 0;
	iscsi_init(&s);
	st = fake_target("iqn.2026-12.org.utarget:portal");
	t = iscsi_target_add(st, NULL);
	tpg = iscsi_tpg_add(t, 1, 1, 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", PORT_A);
	assert_int_equal(iscsi_tpg_portal_add(tpg, addr), 0);

	n = (ssize_t)login_pdu(w);
	b = connect_to(PORT_A);
	assert_int_equal(write(b, w, (size_t)n), n);
	c = connect_to(PORT_A);
	d = connect_to(PORT_A);
	run_for(100000000ull);
	assert_int_equal(read_some(c, r, sizeof(r), 500), 0);
	assert_true(read_some(b, r, sizeof(r), 500) >= 48);
	assert_int_equal(r[0], ISCSI_OP_LOGIN_RSP);
	assert_int_equal(r[36], 0);
	assert_int_equal(read_some(d, r, sizeof(r), 100), -1); /* still open */
	assert_int_equal(iscsi_adm_count(ISCSI_ADM_LOGIN, NULL), 1);

	iscsi_shutdown();
	run_for(50000000ull);
	close(b);
	close(c);
	close(d);
	iscsi_target_del(t);
	fake_target_free(st);
	reactor_pool_join();
	assert_int_equal(fake.nexus_destroyed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_listen_accept),
	    cmocka_unit_test(test_accept_evicts_silent),
	    cmocka_unit_test(test_accept_spoke_early),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
