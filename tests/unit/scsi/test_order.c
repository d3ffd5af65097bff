/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_order.c: the task ordering matrix (order.c) and its effect on tasks
 * through the loop fabric, with back-store I/O held to keep tasks running.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu (fake RAM, I/O can be held)
 *   p2 "iqn.test:b" --/                                               */
#include "harness.h"

#include "scsi/cdb.h"
#include "scsi/order.h"

static int setup(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	h_teardown(h);
	free(h);
	return 0;
}

/* SAM-5 8.6.2 as a table: every cell checked. */
static void test_matrix(void **state)
{
	(void)state;
	static const struct {
		uint8_t new_kind, old_kind, rule;
	} cells[] = {
	    {ORDER_KIND_FREE, ORDER_KIND_FREE, ORDER_PASS},
	    {ORDER_KIND_FREE, ORDER_KIND_SIMPLE, ORDER_PASS},
	    {ORDER_KIND_FREE, ORDER_KIND_ORDERED, ORDER_PASS},
	    {ORDER_KIND_FREE, ORDER_KIND_HOQ, ORDER_PASS},
	    {ORDER_KIND_SIMPLE, ORDER_KIND_FREE, ORDER_PASS},
	    {ORDER_KIND_SIMPLE, ORDER_KIND_SIMPLE, ORDER_PASS},
	    {ORDER_KIND_SIMPLE, ORDER_KIND_ORDERED, ORDER_BLOCK},
	    {ORDER_KIND_SIMPLE, ORDER_KIND_HOQ, ORDER_BLOCK},
	    {ORDER_KIND_ORDERED, ORDER_KIND_FREE, ORDER_BLOCK},
	    {ORDER_KIND_ORDERED, ORDER_KIND_SIMPLE, ORDER_BLOCK},
	    {ORDER_KIND_ORDERED, ORDER_KIND_ORDERED, ORDER_BLOCK},
	    {ORDER_KIND_ORDERED, ORDER_KIND_HOQ, ORDER_BLOCK},
	    {ORDER_KIND_HOQ, ORDER_KIND_FREE, ORDER_PASS},
	    {ORDER_KIND_HOQ, ORDER_KIND_SIMPLE, ORDER_PASS},
	    {ORDER_KIND_HOQ, ORDER_KIND_ORDERED, ORDER_PASS},
	    {ORDER_KIND_HOQ, ORDER_KIND_HOQ, ORDER_PASS},
	};

	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
		assert_int_equal(order_matrix[cells[i].new_kind][cells[i].old_kind], cells[i].rule);
	assert_int_equal(order_kind_of(SCSI_ATTR_SIMPLE, ORDER_NONE), ORDER_KIND_FREE);
	assert_int_equal(order_kind_of(SCSI_ATTR_SIMPLE, ORDER_READ), ORDER_KIND_SIMPLE);
	assert_int_equal(order_kind_of(SCSI_ATTR_SIMPLE, ORDER_WRITE), ORDER_KIND_SIMPLE);
	assert_int_equal(order_kind_of(SCSI_ATTR_SIMPLE, ORDER_BARRIER), ORDER_KIND_ORDERED);
	assert_int_equal(order_kind_of(SCSI_ATTR_ORDERED, ORDER_NONE), ORDER_KIND_ORDERED);
	assert_int_equal(order_kind_of(SCSI_ATTR_HEAD_OF_QUEUE, ORDER_BARRIER), ORDER_KIND_HOQ);
}

/* READ(10) 28h or WRITE(10) 2Ah of block 0 */
static struct loop_task *rw_async(struct loop_port *p, uint8_t op, uint8_t *buf, uint8_t attr,
				  uint64_t tag, unsigned flags)
{
	uint8_t cdb[10];

	h_cdb_rw10(cdb, op, 0, 1);
	return loop_submit_async(p, 0, cdb, 10, op == 0x2a ? SCSI_DIR_WRITE : SCSI_DIR_READ, buf,
				 H_BS, attr, tag, flags);
}

static struct loop_task *read_async(struct loop_port *p, uint8_t *buf, uint8_t attr, uint64_t tag)
{
	return rw_async(p, 0x28, buf, attr, tag, 0);
}

static struct loop_task *tur_async(struct loop_port *p, uint8_t attr, uint64_t tag)
{
	static const uint8_t tur[6] = {0};

	return loop_submit_async(p, 0, tur, 6, SCSI_DIR_NONE, NULL, 0, attr, tag, 0);
}

/* SIMPLE tasks run side by side; an ORDERED one waits for them, and later
 * SIMPLE tasks wait for the ORDERED one; HEAD OF QUEUE runs at once. */
static void test_ordered_waits_and_blocks(void **state)
{
	struct harness *h = *state;
	uint8_t b1[H_BS], b2[H_BS], b3[H_BS];
	struct loop_result r;
	struct loop_task *t1, *t2, *t3, *t4, *t5;

	fake_bs_hold(h->bs, true);
	t1 = read_async(h->p1, b1, SCSI_ATTR_SIMPLE, 1);
	t2 = read_async(h->p2, b2, SCSI_ATTR_SIMPLE, 2);
	/* two SIMPLE reads from two nexuses are both in flight */
	h_wait_held(h->bs, 2);
	/* same port: entered into the task set in this order */
	t3 = tur_async(h->p1, SCSI_ATTR_ORDERED, 3);
	t4 = read_async(h->p1, b3, SCSI_ATTR_SIMPLE, 4);
	h_settle();
	assert_false(loop_task_done(t3));
	assert_false(loop_task_done(t4));
	assert_int_equal(fake_bs_held(h->bs), 2);
	/* HEAD OF QUEUE passes everything */
	t5 = tur_async(h->p1, SCSI_ATTR_HEAD_OF_QUEUE, 5);
	loop_wait(t5, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	/* a SIMPLE TEST UNIT READY (class ORDER_NONE) does not wait either */
	assert_int_equal(h_tur(h->p2, &r), SAM_STAT_GOOD);

	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t1, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_wait(t2, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_wait(t3, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_wait(t4, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

/* A SIMPLE task waits for an older HEAD OF QUEUE task that is running. */
static void test_simple_waits_for_hoq(void **state)
{
	struct harness *h = *state;
	uint8_t b1[H_BS], b2[H_BS];
	struct loop_result r;
	struct loop_task *t1, *t2;

	fake_bs_hold(h->bs, true);
	t1 = read_async(h->p1, b1, SCSI_ATTR_HEAD_OF_QUEUE, 1);
	h_wait_held(h->bs, 1);
	t2 = read_async(h->p1, b2, SCSI_ATTR_SIMPLE, 2);
	h_settle();
	assert_false(loop_task_done(t2));
	assert_int_equal(fake_bs_held(h->bs), 1);
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t1, &r);
	loop_wait(t2, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

/* A task with class ORDER_BARRIER (MODE SELECT) behaves as ORDERED. */
static void test_barrier_class(void **state)
{
	struct harness *h = *state;
	uint8_t b1[H_BS];
	uint8_t ms[6] = {0x15, 0x10, 0, 0, 0, 0};
	struct loop_result r;
	struct loop_task *t1, *t2;

	fake_bs_hold(h->bs, true);
	t1 = read_async(h->p1, b1, SCSI_ATTR_SIMPLE, 1);
	h_wait_held(h->bs, 1);
	t2 = loop_submit_async(h->p2, 0, ms, 6, SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, 2, 0);
	h_settle();
	assert_false(loop_task_done(t2));
	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	loop_wait(t1, &r);
	loop_wait(t2, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

/* A SIMPLE READ whose data the back-store lent (bs.h BS_IO_LEND) has left
 * the task set when it completes, but its data is read only when the fabric
 * sends it (LOOP_LEND: at loop_send_data). An ORDERED WRITE of its block
 * waits until then, and the READ returns the data from before it; a SIMPLE
 * WRITE does not wait, and shows through (SAM-5 8.6.2: SIMPLE tasks may run
 * in any order). */
static void test_lent_read_holds_ordered(void **state)
{
	struct harness *h = *state;
	uint8_t a[H_BS], b[H_BS], c[H_BS], got[H_BS];
	struct loop_result r;
	struct loop_task *rd, *wr;

	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	memset(c, 0xc3, sizeof(c));
	wr = rw_async(h->p1, 0x2a, a, SCSI_ATTR_SIMPLE, 1, 0);
	loop_wait(wr, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);

	/* lent and completed, not sent */
	memset(got, 0, sizeof(got));
	rd = rw_async(h->p1, 0x28, got, SCSI_ATTR_SIMPLE, 2, LOOP_LEND);
	loop_wait_setup(rd);
	assert_false(loop_task_done(rd));
	/* an ORDERED WRITE from the other nexus waits for the send */
	wr = rw_async(h->p2, 0x2a, b, SCSI_ATTR_ORDERED, 3, 0);
	h_settle();
	assert_false(loop_task_done(wr));
	loop_send_data(rd);
	loop_wait(rd, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, H_BS);
	assert_memory_equal(got, a, H_BS);
	loop_wait(wr, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);

	/* a SIMPLE WRITE runs while a lent READ is unsent, and shows */
	rd = rw_async(h->p1, 0x28, got, SCSI_ATTR_SIMPLE, 4, LOOP_LEND);
	loop_wait_setup(rd);
	wr = rw_async(h->p2, 0x2a, c, SCSI_ATTR_SIMPLE, 5, 0);
	loop_wait(wr, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	loop_send_data(rd);
	loop_wait(rd, &r);
	assert_memory_equal(got, c, H_BS);

	/* without LOOP_LEND the READ copies at completion: nothing waits */
	loop_wait(rw_async(h->p1, 0x28, got, SCSI_ATTR_SIMPLE, 6, 0), &r);
	assert_memory_equal(got, c, H_BS);
}

/* An ORDERED task that entered while a lent READ was unsent and nothing
 * else held it starts when that READ is released: the watch and the count
 * of order.c meet (order_lent_put). Also with a HEAD OF QUEUE READ, which
 * is never lent, in between. */
static void test_lent_read_release_starts_waiter(void **state)
{
	struct harness *h = *state;
	uint8_t got1[H_BS], got2[H_BS], got3[H_BS];
	struct loop_result r;
	struct loop_task *rd1, *rd2, *tur, *hoq;

	rd1 = rw_async(h->p1, 0x28, got1, SCSI_ATTR_SIMPLE, 1, LOOP_LEND);
	rd2 = rw_async(h->p2, 0x28, got2, SCSI_ATTR_SIMPLE, 2, LOOP_LEND);
	loop_wait_setup(rd1);
	loop_wait_setup(rd2);
	tur = tur_async(h->p1, SCSI_ATTR_ORDERED, 3);
	hoq = rw_async(h->p2, 0x28, got3, SCSI_ATTR_HEAD_OF_QUEUE, 4, LOOP_LEND);
	loop_wait_setup(hoq); /* not lent: delivered at once on loop_send_data */
	loop_send_data(hoq);
	loop_wait(hoq, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	h_settle();
	assert_false(loop_task_done(tur));
	loop_send_data(rd1);
	loop_wait(rd1, &r);
	h_settle();
	assert_false(loop_task_done(tur)); /* one lent READ is still unsent */
	loop_send_data(rd2);
	loop_wait(rd2, &r);
	loop_wait(tur, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matrix),
	    cmocka_unit_test_setup_teardown(test_ordered_waits_and_blocks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_simple_waits_for_hoq, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_barrier_class, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lent_read_holds_ordered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lent_read_release_starts_waiter, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
