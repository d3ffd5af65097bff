/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_copies.c: the copies of payload bytes the target makes on the 4 KiB
 * read and write paths (issue 15, docs/performance.md), counted on a real
 * connection: a socketpair read and written by conn.c as in the daemon
 * (harness.h, h_conn_new_socket), against the fake core.
 *
 * Where payload bytes are copied by the target (besides the kernel's copies
 * into and out of the socket, and the back-store's own medium copy: the
 * page cache's for a file, ram.c's memcpy, the fake core's here):
 *  - READ: none. Data-In PDUs point into the command's buffer (scsi_cmd.c)
 *    and are handed to sendmsg as they are; a read command carries no data
 *    segment, so the receive side copies nothing either.
 *  - WRITE: the data segment is placed in the command's buffer by the
 *    receive path (pdu.c, iscsi_rx.copied_bytes / direct_bytes). When the
 *    header and its immediate data arrive in one read (the usual case: one
 *    readv into the connection's buffer takes all that is there), the
 *    parser copies the data from that buffer: one copy. When the data
 *    segment is not yet there as the header is parsed, the next read goes
 *    straight into the command's buffer (conn.c, CONN_DIRECT_MIN): none.
 * The same counts hold with iscsi.socket_uring (a receive on the reactor's
 * io_uring into the same places: conn_uring.c); each test runs in both.
 *
 * A READ whose data the back-store lends (bs.h BS_IO_LEND: the file
 * back-store's page cache) is sent from there: the back-store's copy is
 * gone too. When the socket cannot take it at once, the connection copies
 * it into the command's buffer then (conn.c conn_unlend), so that the lent
 * READ holds nothing back for as long as the initiator takes to read. With
 * DataDigest it is copied there as the command completes: the one copy the
 * back-store would have made. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "harness.h"
#include "lib/endian.h"

#define F_R (ISCSI_FLAG_FINAL | ISCSI_CMD_F_READ | ISCSI_ATTR_SIMPLE)
#define F_W (ISCSI_FLAG_FINAL | ISCSI_CMD_F_WRITE | ISCSI_ATTR_SIMPLE)
#define IO  4096u

static struct h_conn *hc;
static uint8_t cdb[16], buf[IO], got[IO];
static bool uring;  /* iscsi.socket_uring for the connection of the test */
static bool digest; /* HeaderDigest and DataDigest CRC32C */

static int setup(void **state)
{
	const char *const plain[] = {"HeaderDigest=None", "DataDigest=None", NULL};
	const char *const crc[] = {"HeaderDigest=CRC32C", "DataDigest=CRC32C", NULL};
	const char *const *keys = digest ? crc : plain;
	struct iscsi_settings s = h_settings();

	(void)state;
	s.socket_uring = uring;
	h_setup(&s);
	for (unsigned i = 0; i < sizeof(fake.disk); i++)
		fake.disk[i] = (uint8_t)(i * 7 + i / 512);
	for (unsigned i = 0; i < IO; i++)
		buf[i] = (uint8_t)(i * 31 + 5);
	hc = h_conn_new_socket();
	assert_int_equal(h_login(hc, keys), 0);
	return 0;
}

static int setup_uring(void **state)
{
	uring = true;
	digest = false;
	return setup(state);
}

static int setup_epoll(void **state)
{
	uring = false;
	digest = false;
	return setup(state);
}

static int setup_digest(void **state)
{
	uring = false;
	digest = true;
	return setup(state);
}

/* The connection reads the way the test asked: through the reactor's
 * io_uring after the login (conn_uring.c), or readv. */
static void check_mode(void)
{
	if (uring && !reactor_uring_sockets(hc->c->r))
		skip(); /* no io_uring here: nothing to count */
	assert_int_equal(hc->c->ur.on, uring);
}

static int teardown(void **state)
{
	(void)state;
	h_conn_free(hc);
	h_teardown();
	return 0;
}

static void expect_good(void)
{
	union iscsi_hdr h;

	h_expect(hc, ISCSI_OP_SCSI_RSP, &h, NULL, 0, NULL);
	assert_int_equal(h.rsp.status, SAM_STAT_GOOD);
}

/* A 4 KiB READ of LBA 8: one Data-In with the status and the medium's bytes. */
static void read_4k_at_8(void)
{
	union iscsi_hdr h;
	uint32_t len;

	h_read10(cdb, 8, IO / 512);
	h_cmd(hc, F_R, IO, cdb, NULL, 0);
	h_expect(hc, ISCSI_OP_DATA_IN, &h, got, sizeof(got), &len);
	assert_int_equal(len, IO);
	assert_true(h.data_in.flags & ISCSI_DATAIN_F_STATUS);
	assert_memory_equal(got, fake.disk + 8 * 512, IO);
}

/* A 4 KiB READ: the Data-In carries the medium's bytes; the target copied
 * none on the receive side (and none on the send side by construction). */
static void test_read_4k(void **state)
{
	struct iscsi_rx *rx = &hc->c->rx;
	uint64_t copied = rx->copied_bytes, direct = rx->direct_bytes;

	(void)state;
	read_4k_at_8();
	assert_int_equal(rx->copied_bytes - copied, 0);
	assert_int_equal(rx->direct_bytes - direct, 0);
	check_mode();
}

/* A 4 KiB WRITE with its data as immediate data, header and data written
 * to the socket at once: the connection reads both in one readv into its
 * buffer, and the data is copied once from there into the command's
 * buffer. */
static void test_write_4k_one_read(void **state)
{
	struct iscsi_rx *rx = &hc->c->rx;
	uint64_t copied = rx->copied_bytes, direct = rx->direct_bytes;

	(void)state;
	h_write10(cdb, 16, IO / 512);
	h_cmd(hc, F_W, IO, cdb, buf, IO);
	expect_good();
	assert_memory_equal(fake.disk + 16 * 512, buf, IO);
	assert_int_equal(rx->copied_bytes - copied, IO);
	assert_int_equal(rx->direct_bytes - direct, 0);
	check_mode();
}

/* The same WRITE with the data segment arriving after the header was read:
 * the connection reads it straight into the command's buffer, no copy. */
static void test_write_4k_direct(void **state)
{
	struct iscsi_rx *rx = &hc->c->rx;
	uint64_t copied = rx->copied_bytes, direct = rx->direct_bytes;
	union iscsi_hdr h;

	(void)state;
	h_write10(cdb, 24, IO / 512);
	h_scsi_cmd(&h, hc, F_W, IO, cdb);
	put_be24(h.bhs.dsl, IO);
	h_sock_write(hc, h.raw, ISCSI_BHS_LEN);
	h_sock_write(hc, buf, IO);
	expect_good();
	assert_memory_equal(fake.disk + 24 * 512, buf, IO);
	assert_int_equal(rx->copied_bytes - copied, 0);
	assert_int_equal(rx->direct_bytes - direct, IO);
	check_mode();
}

/* read_4k_at_8() with the data lent: copied into the command's buffer
 * `copies` times by the connection, nothing left lent or live after. */
static void lent_read_4k(unsigned copies)
{
	fake.lend = true;
	fake.unlent = 0;
	read_4k_at_8();
	assert_int_equal(fake.unlent, copies);
	assert_int_equal(hc->c->txq_lent, 0);
	assert_int_equal(fake.live_cmds, 0);
	fake.lend = false;
}

/* Lent, and the socket takes it at once: sent from the lent memory, never
 * copied by the connection. */
static void test_read_lent(void **state)
{
	(void)state;
	lent_read_4k(0);
}

/* Lent, and the socket is full: the rest is copied into the command's
 * buffer as the send stops (once per command), and a change of the medium
 * after that does not reach the initiator. */
static void test_read_lent_socket_full(void **state)
{
	enum { BIG = 96 * 1024 };
	static uint8_t want[BIG], rcvd[BIG];
	int small = 4096;
	uint32_t seen = 0;
	bool status = false;

	(void)state;
	assert_int_equal(setsockopt(hc->c->fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	fake.lend = true;
	fake.unlent = 0;
	memcpy(want, fake.disk, BIG);
	h_read10(cdb, 0, BIG / 512);
	h_cmd(hc, F_R, BIG, cdb, NULL, 0);
	assert_int_equal(fake.unlent, 1);
	assert_int_equal(hc->c->txq_lent, 0);
	memset(fake.disk, 0xee, BIG); /* a later write */
	for (int i = 0; i < 10000 && !status; i++) {
		union iscsi_hdr h;
		uint32_t len;

		if (!h_recv(hc, &h, rcvd + seen, BIG - seen, &len)) {
			h_pump();
			continue;
		}
		assert_int_equal(h.bhs.opcode & ISCSI_OPCODE_MASK, ISCSI_OP_DATA_IN);
		assert_int_equal(get_be32(h.data_in.buffer_offset), seen);
		seen += len;
		status = h.data_in.flags & ISCSI_DATAIN_F_STATUS;
	}
	assert_true(status);
	assert_int_equal(seen, BIG);
	assert_memory_equal(rcvd, want, BIG);
	assert_int_equal(fake.unlent, 1);
	assert_int_equal(fake.live_cmds, 0);
	fake.lend = false;
}

/* Lent, with DataDigest: the digest is of the bytes sent, so the lent data
 * is copied into the command's buffer once as the command completes
 * (iscsi_core_cmd_done), where the back-store would have copied it before;
 * the harness checks both digests of the Data-In. */
static void test_read_lent_digest(void **state)
{
	(void)state;
	assert_true(hc->ddigest && hc->hdigest);
	lent_read_4k(1);
}

int main(void)
{
	/* the same counts with readv on readiness and with the io_uring
	 * receive: both read into the same places (iscsi_conn_rx_iov) */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_read_4k, setup_epoll, teardown),
	    cmocka_unit_test_setup_teardown(test_write_4k_one_read, setup_epoll, teardown),
	    cmocka_unit_test_setup_teardown(test_write_4k_direct, setup_epoll, teardown),
	    cmocka_unit_test_setup_teardown(test_read_4k, setup_uring, teardown),
	    cmocka_unit_test_setup_teardown(test_write_4k_one_read, setup_uring, teardown),
	    cmocka_unit_test_setup_teardown(test_write_4k_direct, setup_uring, teardown),
	    cmocka_unit_test_setup_teardown(test_read_lent, setup_epoll, teardown),
	    cmocka_unit_test_setup_teardown(test_read_lent_socket_full, setup_epoll, teardown),
	    cmocka_unit_test_setup_teardown(test_read_lent_digest, setup_digest, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
