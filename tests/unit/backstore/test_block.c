/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for backstore/block.c on loop devices the test makes (root and
 * /dev/loop-control, which the project's tests run with).
 *
 *   test process --bs_open("block")--> /dev/loopN --> sparse file in /tmp
 *                 (4096-byte sectors unless a test says otherwise)
 *
 * Checked: the geometry taken from the device; a request whose buffers are
 * not aligned for O_DIRECT goes through the bounce buffer and moves the
 * right bytes, on a reactor (done() on its thread) and off one; MAP_STATUS
 * reports runs of zero blocks as deallocated and others as mapped; the size
 * seen again after the device grows (medium_size); what is refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "backstore/backstore.h"
#include "bs_harness.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "lib/workq.h"

#define MiB (1024u * 1024u)

struct fix {
	char img[64];
	char loop[64];
	struct bs_dev *dev;
};

/* The output of cmd (one line, newline dropped) into out; 0 on success. */
static int run(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	int rc;

	if (!p)
		return -1;
	if (!out || !fgets(out, (int)n, p)) {
		if (out && n)
			out[0] = '\0';
	}
	rc = pclose(p);
	if (out)
		out[strcspn(out, "\n")] = '\0';
	return rc;
}

static int setup_sector(void **state, unsigned sector, size_t mib)
{
	struct fix *f = calloc(1, sizeof(*f));
	char cmd[256];
	int fd;

	assert_non_null(f);
	snprintf(f->img, sizeof(f->img), "/tmp/ut-block-XXXXXX");
	fd = mkstemp(f->img);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)mib * MiB), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -f --show --sector-size %u %s", sector, f->img);
	assert_int_equal(run(cmd, f->loop, sizeof(f->loop)), 0);
	assert_true(strncmp(f->loop, "/dev/loop", 9) == 0);
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "block", .name = "b", .path = f->loop}, &f->dev),
	    0);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_sector(state, 4096, 16);
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	bs_close(f->dev);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", f->loop);
	run(cmd, NULL, 0);
	unlink(f->img);
	free(f);
	return 0;
}

static void test_geometry(void **state)
{
	struct fix *f = *state;

	assert_string_equal(f->dev->ops->type, "block");
	assert_int_equal(f->dev->size, 16 * MiB);
	assert_int_equal(f->dev->lbs, 4096);
	assert_true(f->dev->pbs >= 4096);
	assert_true(f->dev->caps & BS_CAP_FUA);
	assert_true(f->dev->caps & BS_CAP_WRITE_ZEROES);
	assert_true(f->dev->caps & BS_CAP_MAP_STATUS);
	/* a loop device over a file: a write-back cache, write-zeroes */
	assert_true(f->dev->caps & BS_CAP_FLUSH);
	assert_true(f->dev->caps & BS_CAP_DISCARD);
	assert_false(f->dev->caps & BS_CAP_READ_ONLY);
	assert_non_null(f->dev->ops->medium_size);
}

/* An iovec at buf + 8 of len bytes: not aligned for O_DIRECT. */
static void test_unaligned_bounce(void **state)
{
	struct fix *f = *state;
	uint8_t *w = malloc(3 * 4096 + 16), *r = malloc(3 * 4096 + 16), *check;
	struct reactor *re;
	struct h_io hw, hr, *p;
	int fd;

	assert_non_null(w);
	assert_non_null(r);
	for (size_t i = 0; i < 3 * 4096; i++)
		w[8 + i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(reactor_create(&re, 0), 0);
	h_init(&hw, BS_OP_WRITE, 4096, 3 * 4096, w + 8);
	p = &hw;
	assert_int_equal(h_run(re, f->dev, &p, 1), 0);
	assert_int_equal(hw.err, 0);
	memset(r, 0, 3 * 4096 + 16);
	h_init(&hr, BS_OP_READ, 4096, 3 * 4096, r + 8);
	p = &hr;
	assert_int_equal(h_run(re, f->dev, &p, 1), 0);
	assert_int_equal(hr.err, 0);
	assert_memory_equal(r + 8, w + 8, 3 * 4096);
	/* on the device itself, read apart from the back-store */
	check = malloc(3 * 4096);
	assert_non_null(check);
	fd = open(f->loop, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, check, 3 * 4096, 4096), 3 * 4096);
	close(fd);
	assert_memory_equal(check, w + 8, 3 * 4096);
	/* off a reactor: synchronously, same data */
	memset(r, 0, 3 * 4096 + 16);
	h_init(&hr, BS_OP_READ, 4096, 3 * 4096, r + 8);
	bs_submit(f->dev, &hr.io);
	assert_int_equal(hr.calls, 1);
	assert_int_equal(hr.err, 0);
	assert_memory_equal(r + 8, w + 8, 3 * 4096);
	reactor_destroy(re);
	free(check);
	free(w);
	free(r);
}

static void test_map_status(void **state)
{
	struct fix *f = *state;
	void *blk;
	struct h_io h;

	assert_int_equal(posix_memalign(&blk, 4096, 4096), 0);
	memset(blk, 0xa5, 4096);
	/* blocks 0..1 zero, 2 data, 3.. zero */
	h_init(&h, BS_OP_WRITE, 2 * 4096, 4096, blk);
	bs_submit(f->dev, &h.io);
	assert_int_equal(h.err, 0);
	h_init(&h, BS_OP_MAP_STATUS, 0, 0, NULL);
	bs_submit(f->dev, &h.io);
	assert_int_equal(h.err, 0);
	assert_false(h.io.mapped);
	assert_int_equal(h.io.map_len, 2 * 4096);
	h_init(&h, BS_OP_MAP_STATUS, 2 * 4096, 0, NULL);
	bs_submit(f->dev, &h.io);
	assert_int_equal(h.err, 0);
	assert_true(h.io.mapped);
	assert_int_equal(h.io.map_len, 4096);
	/* deallocated (write zeroes with unmap): zero again */
	h_init(&h, BS_OP_DISCARD, 2 * 4096, 4096, NULL);
	bs_submit(f->dev, &h.io);
	assert_int_equal(h.err, 0);
	h_init(&h, BS_OP_MAP_STATUS, 0, 0, NULL);
	bs_submit(f->dev, &h.io);
	assert_false(h.io.mapped);
	assert_true(h.io.map_len >= 3 * 4096);
	free(blk);
}

static void test_grown_underneath(void **state)
{
	struct fix *f = *state;
	char cmd[256];

	assert_int_equal(truncate(f->img, 24 * MiB), 0);
	snprintf(cmd, sizeof(cmd), "losetup -c %s", f->loop);
	assert_int_equal(run(cmd, NULL, 0), 0);
	assert_int_equal(f->dev->ops->medium_size(f->dev), 24 * MiB);
	assert_int_equal(f->dev->size, 24 * MiB);
}

static void test_refused(void **state)
{
	struct fix *f = *state;
	struct bs_dev *d = NULL;

	/* a regular file is not a block device */
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "block", .name = "x", .path = f->img}, &d),
	    -ENOTBLK);
	/* one back-store per device */
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "block", .name = "y", .path = f->loop}, &d),
	    -EBUSY);
	assert_null(d);
}

/* A read-only loop device (losetup -r) is opened read-only. */
static void test_read_only_device(void **state)
{
	char img[] = "/tmp/ut-block-ro-XXXXXX", loop[64], cmd[256];
	struct bs_dev *d = NULL;
	int fd = mkstemp(img);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4 * MiB), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -f --show -r %s", img);
	assert_int_equal(run(cmd, loop, sizeof(loop)), 0);
	assert_int_equal(
	    bs_open(&(struct bs_params){.type = "block", .name = "ro", .path = loop}, &d), 0);
	assert_true(d->caps & BS_CAP_READ_ONLY);
	assert_false(d->caps & BS_CAP_DISCARD);
	assert_int_equal(d->lbs, 512);
	bs_close(d);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", loop);
	run(cmd, NULL, 0);
	unlink(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_geometry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unaligned_bounce, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_map_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_grown_underneath, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	    cmocka_unit_test(test_read_only_device),
	};

	int rc;

	log_set_level(LOG_LVL_WARN);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	workq_stop();
	return rc;
}
