/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cdb.c: libFuzzer harness (4): CDBs and their parameter lists through
 * the loop fabric onto RAM back-stores (fuzz_env.h: LUN 0 512-byte blocks,
 * LUN 1 4096-byte blocks), from two initiators ("a" and "b", one I_T nexus
 * each, for reservations), with synchronous and asynchronous (overlapping)
 * commands and task management.
 *
 * Input: a sequence of records.
 *   byte 0  flags: bits 0-1 direction (0 none, 1 Data-In, 2-3 Data-Out),
 *           bit 2 LUN 1 (else LUN 0), bit 3 asynchronous (up to 8 in flight,
 *           waited for at a TMF record or at the end), bit 4 write the
 *           transfer length into the CDB's parameter list length field (for
 *           the opcodes of the table below), bit 5 initiator "b", bits 6-7
 *           task attribute
 *   byte 1  opcode: 0..31 = the opcode at that index of cdb_ops[] (the
 *           parameter-list commands first), 0xff = a TMF record (byte 2
 *           function, byte 3 tag of the async task to name), else the CDB's
 *           own first byte
 *   byte 2  CDB length: index into {6, 10, 12, 16, 16, 32, 1 + (b >> 3), 10}
 *   CDB bytes, a 16-bit big-endian transfer length (Expected Data Transfer
 *   Length), then for Data-Out that many bytes of data (zeroes past the end
 *   of the input).
 * The first commands on each LUN of initiator "a" are a TEST UNIT READY (the
 * power-on unit attention is consumed). Checked: Data-In never exceeds the
 * declared length; a CHECK CONDITION carries sense data; sense never exceeds
 * its buffer. A fresh target, back-stores and ports per input; every task
 * completes before the ports go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_env.h"
#include "fabric/loop/loop.h"
#include "lib/endian.h"

#define CDB_ASYNC_MAX	 8
#define CDB_ACA_GRACE_MS 200

/* Opcodes the selector reaches directly; a parameter list length field where
 * bit 4 writes the transfer length (width 0: none). */
struct cdb_op {
	uint8_t op;
	uint8_t len_off;
	uint8_t len_width;
};

static const struct cdb_op cdb_ops[32] = {
    {.op = 0x5f, .len_off = 5, .len_width = 4},	 /* PERSISTENT RESERVE OUT */
    {.op = 0x42, .len_off = 7, .len_width = 2},	 /* UNMAP */
    {.op = 0x83, .len_off = 10, .len_width = 4}, /* EXTENDED COPY (LID1) */
    {.op = 0x15, .len_off = 4, .len_width = 1},	 /* MODE SELECT (6) */
    {.op = 0x55, .len_off = 7, .len_width = 2},	 /* MODE SELECT (10) */
    {.op = 0x89},				 /* COMPARE AND WRITE */
    {.op = 0x41},				 /* WRITE SAME (10) */
    {.op = 0x93},				 /* WRITE SAME (16) */
    {.op = 0x48, .len_off = 7, .len_width = 2},	 /* SANITIZE */
    {.op = 0x7f},				 /* variable length: WRITE SAME (32) */
    {.op = 0x5e, .len_off = 7, .len_width = 2},	 /* PERSISTENT RESERVE IN */
    {.op = 0x84, .len_off = 10, .len_width = 4}, /* RECEIVE COPY RESULTS */
    {.op = 0x2a},				 /* WRITE (10) */
    {.op = 0x28},				 /* READ (10) */
    {.op = 0x8a},				 /* WRITE (16) */
    {.op = 0x88},				 /* READ (16) */
    {.op = 0x2e},				 /* WRITE AND VERIFY (10) */
    {.op = 0x8e},				 /* WRITE AND VERIFY (16) */
    {.op = 0x2f},				 /* VERIFY (10) */
    {.op = 0x8f},				 /* VERIFY (16) */
    {.op = 0x04},				 /* FORMAT UNIT */
    {.op = 0x3b, .len_off = 6, .len_width = 3},	 /* WRITE BUFFER */
    {.op = 0x1d, .len_off = 3, .len_width = 2},	 /* SEND DIAGNOSTIC */
    {.op = 0x4c, .len_off = 7, .len_width = 2},	 /* LOG SELECT */
    {.op = 0xa3, .len_off = 6, .len_width = 4},	 /* MAINTENANCE IN */
    {.op = 0x9e, .len_off = 10, .len_width = 4}, /* SERVICE ACTION IN (16) */
    {.op = 0x12, .len_off = 3, .len_width = 2},	 /* INQUIRY */
    {.op = 0x5a, .len_off = 7, .len_width = 2},	 /* MODE SENSE (10) */
    {.op = 0x35},				 /* SYNCHRONIZE CACHE (10) */
    {.op = 0x16},				 /* RESERVE (6) */
    {.op = 0x17},				 /* RELEASE (6) */
    {.op = 0xa0, .len_off = 6, .len_width = 4},	 /* REPORT LUNS */
};

struct cdb_async {
	struct loop_task *t;
	uint64_t lun;
	uint8_t *buf;
	uint32_t len;
	uint8_t dir;
};

static void cdb_fail(const char *what)
{
	fprintf(stderr, "fuzz_cdb: %s\n", what);
	abort();
}

static void cdb_check(const struct loop_result *r, uint32_t len, uint8_t dir)
{
	if (r->no_response)
		return;
	if (r->data_in_len > len || (dir != SCSI_DIR_READ && r->data_in_len))
		cdb_fail("Data-In beyond the declared transfer");
	if (r->sense_len > SCSI_SENSE_MAX)
		cdb_fail("sense longer than its buffer");
	if (r->status == SAM_STAT_CHECK_CONDITION && !r->sense_len)
		cdb_fail("CHECK CONDITION without sense data");
}

/* An input may establish an ACA (a CHECK CONDITION on a command with NACA=1,
 * SAM-5 5.9.2) while its own older tasks are still in the task set: those
 * stay held until CLEAR ACA (aca.c), as SAM-5 requires, which a real
 * initiator sends and the input may not. So a task not done after a while
 * gets a CLEAR ACA from both initiators on its LUN (a no-op where there is
 * no ACA) before the wait without limit: a task that then still never
 * ends is a hang libFuzzer reports. */
static void cdb_wait_all(struct loop_port *const *port, struct cdb_async *a, unsigned *n)
{
	const struct timespec ms = {.tv_nsec = 1000000};

	for (unsigned i = 0; i < *n; i++) {
		struct loop_result r;
		unsigned waited = 0;

		while (!loop_task_done(a[i].t) && waited++ < CDB_ACA_GRACE_MS)
			nanosleep(&ms, NULL);
		if (!loop_task_done(a[i].t)) {
			loop_tmf(port[0], SCSI_TMF_CLEAR_ACA, a[i].lun, 0);
			loop_tmf(port[1], SCSI_TMF_CLEAR_ACA, a[i].lun, 0);
		}
		loop_wait(a[i].t, &r);
		cdb_check(&r, a[i].len, a[i].dir);
		free(a[i].buf);
	}
	*n = 0;
}

static void cdb_put_len(uint8_t *cdb, size_t cdb_len, const struct cdb_op *o, uint32_t len)
{
	if (!o->len_width || (size_t)o->len_off + o->len_width > cdb_len)
		return;
	switch (o->len_width) {
	case 1:
		cdb[o->len_off] = (uint8_t)(len > 255 ? 255 : len);
		break;
	case 2:
		put_be16(cdb + o->len_off, (uint16_t)len);
		break;
	case 3:
		put_be24(cdb + o->len_off, len);
		break;
	default:
		put_be32(cdb + o->len_off, len);
		break;
	}
}

static void cdb_tur(struct loop_port *p, uint64_t lun)
{
	uint8_t cdb[6] = {0};
	struct loop_result r;

	loop_submit(p, lun, cdb, sizeof(cdb), SCSI_DIR_NONE, NULL, 0, SCSI_ATTR_SIMPLE, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t lens[8] = {6, 10, 12, 16, 16, 32, 0, 10};
	struct fz_in in = {.p = data, .len = size};
	struct cdb_async async[CDB_ASYNC_MAX];
	unsigned nasync = 0;
	struct loop_port *port[2];
	struct fz_scsi env;
	uint64_t tag = 1;

	fz_init();
	if (fz_scsi_create(&env))
		abort();
	/* a may reset the target, b may not: both paths of a target reset */
	port[0] = loop_create_opts(env.t, 1, "iqn.2026-12.org.example:a",
				   &(struct loop_port_opts){.target_reset = true});
	port[1] = loop_create(env.t, 1, "iqn.2026-12.org.example:b");
	if (!port[0] || !port[1])
		abort();
	cdb_tur(port[0], 0);
	cdb_tur(port[0], 1);

	while (fz_left(&in) >= 3) {
		uint8_t flags = fz_u8(&in), sel = fz_u8(&in), lb = fz_u8(&in);
		struct loop_port *p = port[(flags >> 5) & 1u];
		uint64_t lun = (flags >> 2) & 1u;
		uint8_t cdb[32] = {0};
		size_t cdb_len = lens[lb & 7u] ? lens[lb & 7u] : 1u + (lb >> 3);
		uint8_t dir = (flags & 3u) == 0	  ? SCSI_DIR_NONE
			      : (flags & 3u) == 1 ? SCSI_DIR_READ
						  : SCSI_DIR_WRITE;
		uint8_t attr = flags >> 6;
		const uint8_t *src;
		uint32_t len;
		size_t got;
		uint8_t *buf;

		if (sel == 0xff) {
			/* TMF: lb is the function; the next byte picks a tag */
			uint8_t pick = fz_u8(&in);
			uint64_t ref = nasync ? tag - 1 - (pick % nasync) : pick;

			loop_tmf(p, lb, lun, ref);
			cdb_wait_all(port, async, &nasync);
			continue;
		}
		src = fz_bytes(&in, cdb_len, &got);
		memcpy(cdb, src, got);
		if (sel < 32)
			cdb[0] = cdb_ops[sel].op;
		len = fz_u16(&in);
		if (sel < 32 && (flags & 16u))
			cdb_put_len(cdb, cdb_len, &cdb_ops[sel], len);
		buf = calloc(1, len ? len : 1);
		if (!buf)
			abort();
		if (dir == SCSI_DIR_WRITE) {
			src = fz_bytes(&in, len, &got);
			memcpy(buf, src, got);
		}
		if (flags & 8u) {
			struct cdb_async *a = &async[nasync];

			a->t = loop_submit_async(p, lun, cdb, cdb_len, (enum scsi_dir)dir, buf, len,
						 attr, tag++, 0);
			if (!a->t)
				abort();
			a->lun = lun;
			a->buf = buf;
			a->len = len;
			a->dir = dir;
			if (++nasync == CDB_ASYNC_MAX)
				cdb_wait_all(port, async, &nasync);
		} else {
			struct loop_result r;

			if (loop_submit(p, lun, cdb, cdb_len, (enum scsi_dir)dir, buf, len, attr,
					&r))
				abort();
			cdb_check(&r, len, dir);
			free(buf);
		}
	}
	cdb_wait_all(port, async, &nasync);
	loop_destroy(port[0]);
	loop_destroy(port[1]);
	fz_scsi_destroy(&env);
	return 0;
}
