/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/plugin.c against handlers built from
 * plugin_testh.c (shared modules of this build, TEST_PLUGIN_DIR): loading,
 * the ABI version check, bad handler names, I/O round trips with
 * completions on the reactor thread (from the handler's own threads too),
 * a blocked handler stalling only its LU, the open timeout, off-reactor
 * submits, never-completed and twice-completed requests. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "backstore/plugin.c"
#include "bs_harness.h"

/* ---- the daemon's log, captured (stderr) ---- */
static char cap_path[] = "/tmp/ut-plugin-log.XXXXXX";
static int cap_fd = -1, saved_err = -1;

static void cap_begin(void)
{
	fflush(stderr);
	cap_fd = mkstemp(cap_path);
	assert_true(cap_fd >= 0);
	saved_err = dup(2);
	dup2(cap_fd, 2);
}

/* The captured text (static buffer), stderr restored. */
static const char *cap_end(void)
{
	static char buf[8192];
	ssize_t n;

	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	n = pread(cap_fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(cap_fd);
	unlink(cap_path);
	memcpy(cap_path + strlen(cap_path) - 6, "XXXXXX", 6);
	fputs(buf, stderr);
	return buf;
}

/* Wait until every plugin back-store's threads are gone. */
static void wait_idle(void)
{
	pthread_mutex_lock(&live_lock);
	while (live_count)
		pthread_cond_wait(&live_cond, &live_lock);
	pthread_mutex_unlock(&live_lock);
}

static int open_h(const char *handler, const struct bs_option *o, size_t n, struct bs_dev **dev)
{
	struct bs_params p = {.type = "plugin",
			      .name = "p0",
			      .handler = handler,
			      .plugin_dir = TEST_PLUGIN_DIR,
			      .options = o,
			      .noptions = n};

	return bs_open(&p, dev);
}

static struct bs_dev *open_ok(const struct bs_option *o, size_t n)
{
	struct bs_dev *dev = NULL;

	assert_int_equal(open_h("uttest", o, n, &dev), 0);
	assert_non_null(dev);
	return dev;
}

static void test_bad_names(void **state)
{
	static const char *const bad[] = {"",	      "../uttest", "a/b",     ".uttest",
					  "ut..test", "/abs",	   "ut test", "x\n"};
	struct bs_dev *dev = (struct bs_dev *)1;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cap_begin();
		assert_int_equal(open_h(bad[i], NULL, 0, &dev), -EINVAL);
		assert_non_null(strstr(cap_end(), "is not a plain file name"));
		assert_null(dev);
	}
	assert_int_equal(open_h(NULL, NULL, 0, &dev), -EINVAL);
	/* a plain name with no such file */
	assert_int_equal(open_h("no_such_handler", NULL, 0, &dev), -ENOENT);
}

static void test_abi_mismatch(void **state)
{
	static const struct bs_option o[] = {{"size", "65536"}};
	struct bs_dev *dev = NULL;
	const char *log;

	cap_begin();
	assert_int_equal(open_h("uttest_abi", o, 1, &dev), -EINVAL);
	log = cap_end();
	assert_null(dev);
	assert_non_null(strstr(log, "built for back-store ABI version 999"));
	assert_non_null(strstr(log, "this utargetd has ABI version 1"));
	/* a table naming another handler */
	cap_begin();
	assert_int_equal(open_h("uttest_misnamed", o, 1, &dev), -EINVAL);
	assert_non_null(strstr(cap_end(), "names another handler (other)"));
	/* the handler refusing its options */
	static const struct bs_option bad[] = {{"size", "65536"}, {"colour", "blue"}};

	cap_begin();
	assert_int_equal(open_h("uttest", bad, 2, &dev), -EINVAL);
	assert_non_null(strstr(cap_end(), "backstore p0: unknown option colour"));
	wait_idle();
}

static void test_caps_and_geometry(void **state)
{
	static const struct bs_option o[] = {{"size", "1053696"}, {"lbs", "4096"}};
	struct bs_dev *dev = open_ok(o, 2);

	assert_int_equal(dev->size, 1052672); /* rounded down to 4096 */
	assert_int_equal(dev->lbs, 4096);
	assert_int_equal(dev->caps, BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES |
					BS_CAP_FUA | BS_CAP_MAP_STATUS);
	assert_string_equal(dev->type, "plugin");
	assert_string_equal(dev->name, "p0");
	bs_close(dev);
	wait_idle();
}

static void roundtrip(const struct bs_option *o, size_t n)
{
	static uint8_t a[3000], b[5192], c[8192];
	struct reactor *r;
	struct bs_dev *dev = open_ok(o, n);
	struct h_io w, f, rd, z;
	struct h_io *batch[2];

	assert_int_equal(reactor_create(&r, 0), 0);
	/* a write across two iovecs (FUA), read back in one */
	h_pattern(a, sizeof(a), 1);
	h_pattern(b, sizeof(b), 2);
	h_init(&w, BS_OP_WRITE, 8192, 8192, NULL);
	w.iov[0] = (struct iovec){a, sizeof(a)};
	w.iov[1] = (struct iovec){b, sizeof(b)};
	w.io.iovcnt = 2;
	w.io.flags = BS_IO_FUA;
	h_init(&f, BS_OP_FLUSH, 0, 0, NULL);
	batch[0] = &w;
	batch[1] = &f;
	assert_int_equal(h_run(r, dev, batch, 2), 0); /* done once each, on r */
	assert_int_equal(w.err, 0);
	assert_int_equal(f.err, 0);
	memset(c, 0, sizeof(c));
	h_init(&rd, BS_OP_READ, 8192, 8192, c);
	assert_int_equal(h_do(r, dev, &rd), 0);
	assert_memory_equal(c, a, sizeof(a));
	assert_memory_equal(c + sizeof(a), b, sizeof(b));
	/* discard and write-zeroes read back as zeroes */
	h_init(&z, BS_OP_DISCARD, 8192, 4096, NULL);
	assert_int_equal(h_do(r, dev, &z), 0);
	h_init(&z, BS_OP_WRITE_ZEROES, 12288, 4096, NULL);
	assert_int_equal(h_do(r, dev, &z), 0);
	h_init(&rd, BS_OP_READ, 8192, 8192, c);
	assert_int_equal(h_do(r, dev, &rd), 0);
	assert_true(h_all_zero(c, sizeof(c)));
	/* nothing to do: the handler is not called (it is promised len > 0) */
	h_init(&z, BS_OP_DISCARD, 4096, 0, NULL);
	assert_int_equal(h_do(r, dev, &z), 0);
	/* the core's range check is repeated */
	h_init(&rd, BS_OP_READ, dev->size, 4096, c);
	assert_int_equal(h_do(r, dev, &rd), -EINVAL);
	/* MAP_STATUS: the handler's answer in io->mapped, io->map_len */
	h_init(&z, BS_OP_MAP_STATUS, 1024, dev->size - 1024, NULL);
	assert_int_equal(h_do(r, dev, &z), 0);
	assert_true(z.io.mapped);
	assert_int_equal(z.io.map_len, 3072);
	h_init(&z, BS_OP_MAP_STATUS, 8192, dev->size - 8192, NULL);
	assert_int_equal(h_do(r, dev, &z), 0);
	assert_false(z.io.mapped);
	assert_int_equal(z.io.map_len, dev->size - 8192);
	bs_close(dev);
	wait_idle();
	reactor_destroy(r);
}

static void test_roundtrip_sync(void **state)
{
	static const struct bs_option o[] = {{"size", "1048576"}};

	roundtrip(o, 1);
}

/* completions from a thread of the handler's own reach the reactor */
static void test_roundtrip_async(void **state)
{
	static const struct bs_option o[] = {{"size", "1048576"}, {"async", "1"}};

	roundtrip(o, 2);
}

/* an empty MAP_STATUS answer is an error, not a zero-length run */
static void test_bad_map_status(void **state)
{
	static const struct bs_option o[] = {{"size", "65536"}, {"badmap", "1"}};
	struct bs_dev *dev = open_ok(o, 2);
	struct reactor *r;
	struct h_io z;

	assert_int_equal(reactor_create(&r, 0), 0);
	h_init(&z, BS_OP_MAP_STATUS, 0, 65536, NULL);
	assert_int_equal(h_do(r, dev, &z), -EIO);
	bs_close(dev);
	wait_idle();
	reactor_destroy(r);
}

static void test_readonly(void **state)
{
	static const struct bs_option o[] = {{"size", "65536"}};
	struct bs_params p = {.type = "plugin",
			      .name = "p0",
			      .handler = "uttest",
			      .plugin_dir = TEST_PLUGIN_DIR,
			      .readonly = true,
			      .options = o,
			      .noptions = 1};
	struct bs_dev *dev = NULL;
	struct reactor *r;
	uint8_t buf[512] = {0};
	struct h_io w;

	assert_int_equal(bs_open(&p, &dev), 0);
	assert_true(dev->caps & BS_CAP_READ_ONLY);
	assert_int_equal(reactor_create(&r, 0), 0);
	h_init(&w, BS_OP_WRITE, 0, 512, buf);
	assert_int_equal(h_do(r, dev, &w), -EROFS);
	bs_close(dev);
	wait_idle();
	reactor_destroy(r);
}

/* ---- a blocked handler stalls its own LU only ---- */
struct stuck {
	struct reactor_msg m;
	struct bs_dev *dev;
	struct h_io h;
	struct reactor *r;
	int calls;
};

static void stuck_done(struct bs_io *io, int err)
{
	struct stuck *s = container_of(io, struct stuck, h.io);

	s->h.err = err;
	s->calls++;
	s->h.on_reactor = reactor_self() == s->r;
	reactor_stop(s->r);
}

static void stuck_submit(struct reactor_msg *m)
{
	struct stuck *s = container_of(m, struct stuck, m);

	bs_submit(s->dev, &s->h.io);
}

static void stop_msg(struct reactor_msg *m)
{
	reactor_stop(reactor_self());
}

/* Run r until the messages posted so far have run. */
static void run_pending(struct reactor *r)
{
	struct reactor_msg stop = {.fn = stop_msg};

	reactor_post(r, &stop);
	assert_int_equal(reactor_run(r), 0);
}

static void test_blocked_handler(void **state)
{
	int gate[2];
	char opt_gate[16];
	uint8_t buf[4096], wbuf[4096];
	struct reactor *r;
	struct bs_dev *a, *b;
	struct stuck s = {0};
	struct h_io w;

	assert_int_equal(pipe(gate), 0);
	snprintf(opt_gate, sizeof(opt_gate), "%d", gate[0]);
	const struct bs_option oa[] = {{"size", "65536"}, {"gate", opt_gate}};
	const struct bs_option ob[] = {{"size", "65536"}};

	a = open_ok(oa, 2);
	b = open_ok(ob, 1);
	assert_int_equal(reactor_create(&r, 0), 0);
	/* A's read blocks inside its handler */
	s.m.fn = stuck_submit;
	s.dev = a;
	s.r = r;
	h_init(&s.h, BS_OP_READ, 0, 4096, buf);
	s.h.io.done = stuck_done;
	reactor_post(r, &s.m);
	/* meanwhile the reactor serves B: a write completes on it */
	memset(wbuf, 7, sizeof(wbuf));
	h_init(&w, BS_OP_WRITE, 0, 4096, wbuf);
	assert_int_equal(h_do(r, b, &w), 0);
	assert_int_equal(s.calls, 0);
	assert_int_equal(atomic_load(&container_of(a, struct plugin_dev, dev)->outstanding), 1);
	/* unblock A: its read completes, on the reactor */
	assert_int_equal(write(gate[1], "x", 1), 1);
	assert_int_equal(reactor_run(r), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.h.err, 0);
	assert_true(s.h.on_reactor);
	bs_close(a);
	bs_close(b);
	wait_idle();
	reactor_destroy(r);
	close(gate[0]);
	close(gate[1]);
}

/* An open that hangs: bs_open() gives up after the timeout while the
 * handler is still inside open() (held there by a pipe, not by a sleep, so
 * a loaded machine cannot reorder the two); the late open is closed by the
 * handler's thread once it returns. */
static void test_open_timeout(void **state)
{
	int gate[2];
	char opt_gate[16];
	struct bs_dev *dev = NULL;

	assert_int_equal(pipe(gate), 0);
	snprintf(opt_gate, sizeof(opt_gate), "%d", gate[0]);
	const struct bs_option o[] = {{"size", "65536"}, {"open_gate", opt_gate}};

	plugin_open_timeout_s = 1;
	cap_begin();
	assert_int_equal(open_h("uttest", o, 2, &dev), -ETIMEDOUT);
	assert_non_null(strstr(cap_end(), "open did not return within 1 s"));
	assert_null(dev);
	/* the handler's open has not returned: its thread still lives */
	pthread_mutex_lock(&live_lock);
	assert_int_equal(live_count, 1);
	pthread_mutex_unlock(&live_lock);
	assert_int_equal(write(gate[1], "x", 1), 1);
	wait_idle(); /* the thread closed the late open and left */
	plugin_open_timeout_s = UTBS_OPEN_TIMEOUT_S;
	close(gate[0]);
	close(gate[1]);
}

/* off a reactor: done() runs inside submit() */
static void test_off_reactor(void **state)
{
	static const struct bs_option o[] = {{"size", "65536"}, {"async", "1"}};
	struct bs_dev *dev = open_ok(o, 2);
	uint8_t buf[1024], rbuf[1024];
	struct h_io h;

	h_pattern(buf, sizeof(buf), 3);
	h_init(&h, BS_OP_WRITE, 1024, 1024, buf);
	bs_submit(dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.err, 0);
	h_init(&h, BS_OP_READ, 1024, 1024, rbuf);
	bs_submit(dev, &h.io);
	assert_int_equal(h.calls, 1);
	assert_memory_equal(buf, rbuf, sizeof(buf));
	bs_close(dev);
	wait_idle();
}

static void test_never_and_twice(void **state)
{
	static const struct bs_option od[] = {{"size", "65536"}, {"drop", "1"}};
	static const struct bs_option ot[] = {{"size", "65536"}, {"twice", "1"}};
	struct reactor *r;
	struct stuck s = {0};
	uint8_t buf[512] = {0};
	struct bs_dev *dev;
	struct h_io h;
	const char *log;

	assert_int_equal(reactor_create(&r, 0), 0);
	/* a WRITE never completed: counted, reported at close */
	dev = open_ok(od, 2);
	s.m.fn = stuck_submit;
	s.dev = dev;
	s.r = r;
	h_init(&s.h, BS_OP_WRITE, 0, 512, buf);
	s.h.io.done = stuck_done;
	reactor_post(r, &s.m);
	run_pending(r);
	while (atomic_load(&container_of(dev, struct plugin_dev, dev)->outstanding) != 1)
		usleep(1000);
	cap_begin();
	bs_close(dev);
	wait_idle();
	log = cap_end();
	assert_non_null(strstr(log, "closed with 1 request(s) never completed"));
	assert_int_equal(s.calls, 0);
	/* completed twice: the second is refused and logged, done() runs once */
	dev = open_ok(ot, 2);
	cap_begin();
	h_init(&h, BS_OP_READ, 0, 512, buf);
	assert_int_equal(h_do(r, dev, &h), 0);
	bs_close(dev);
	wait_idle();
	assert_non_null(strstr(cap_end(), "completed twice"));
	assert_int_equal(h.calls, 1);
	reactor_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_names),	      cmocka_unit_test(test_abi_mismatch),
	    cmocka_unit_test(test_caps_and_geometry), cmocka_unit_test(test_roundtrip_sync),
	    cmocka_unit_test(test_roundtrip_async),   cmocka_unit_test(test_readonly),
	    cmocka_unit_test(test_bad_map_status),    cmocka_unit_test(test_blocked_handler),
	    cmocka_unit_test(test_open_timeout),      cmocka_unit_test(test_off_reactor),
	    cmocka_unit_test(test_never_and_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
