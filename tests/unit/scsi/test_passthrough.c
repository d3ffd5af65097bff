/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_passthrough.c: an LU over a SCSI device (BS_CAP_PASSTHROUGH,
 * passthrough.c): which commands reach the device and which the core
 * answers, the device's status and sense passed back intact, its unit
 * attentions fanned out to the other I_T nexus, reservations kept per
 * initiator.
 *
 *   p1 "iqn.test:a" --\
 *                      target --- LUN 0: lu over dev (a model of a SCSI
 *   p2 "iqn.test:b" --/           disk below: it logs every CDB it gets)
 *
 * The device model (the real one is scsi_debug, in tests/vm/
 * sg_passthrough.sh) answers INQUIRY as "DEVVEND DEVPROD", TEST UNIT READY
 * with a queued sense when one is set, READ/WRITE(10) and the primitives
 * over memory, opcode C0h (vendor specific) with 4 bytes of data, and
 * opcode C1h with a CHECK CONDITION of its own sense. */
#include "harness.h"

#include <errno.h>
#include <pthread.h>

#include "lib/compiler.h"
#include "scsi/passthrough.h"
#include "scsi/ua.h"

#define D_BLOCKS 256u
#define D_LOG	 64

struct pt_dev {
	struct bs_dev dev;
	pthread_mutex_t lock;
	uint8_t data[D_BLOCKS * H_BS];
	uint8_t ops[D_LOG]; /* opcodes of the BS_OP_SCSI requests */
	unsigned nops;
	unsigned nprim; /* BS_OP_READ / BS_OP_WRITE */
	uint8_t next_sense[32];
	uint8_t next_sense_len;
};

static const uint8_t c1_sense[18] = {0x70, 0,	 0x05, 0,    0,	   0,	 0, 10, 0xde,
				     0xad, 0xbe, 0xef, 0x80, 0x42, 0x7e, 0, 0,	0};

static void dev_copy_in(struct bs_io *io, const void *src, size_t n)
{
	const uint8_t *s = src;

	for (int i = 0; i < io->iovcnt && n; i++) {
		size_t k = io->iov[i].iov_len < n ? io->iov[i].iov_len : n;

		memcpy(io->iov[i].iov_base, s, k);
		s += k;
		n -= k;
	}
}

static void dev_copy_out(const struct bs_io *io, uint8_t *dst)
{
	for (int i = 0; i < io->iovcnt; i++) {
		memcpy(dst, io->iov[i].iov_base, io->iov[i].iov_len);
		dst += io->iov[i].iov_len;
	}
}

static void dev_scsi(struct pt_dev *d, struct bs_io *io)
{
	const uint8_t *c = io->cdb;
	uint32_t lba, n;

	io->scsi_status = SAM_STAT_GOOD;
	io->resid = 0;
	io->sense_len = 0;
	if (d->nops < D_LOG)
		d->ops[d->nops++] = c[0];
	if (c[0] == 0x00 && d->next_sense_len) {
		io->scsi_status = SAM_STAT_CHECK_CONDITION;
		memcpy(io->sense, d->next_sense, d->next_sense_len);
		io->sense_len = d->next_sense_len;
		d->next_sense_len = 0;
		return;
	}
	switch (c[0]) {
	case 0x12: {
		uint8_t inq[36] = {0, 0, 6, 2, 31};

		memcpy(inq + 8, "DEVVEND DEVPROD         0042", 28);
		dev_copy_in(io, inq, io->len < sizeof(inq) ? io->len : sizeof(inq));
		if (io->len > sizeof(inq))
			io->resid = (uint32_t)(io->len - sizeof(inq));
		break;
	}
	case 0x28:
	case 0x2a:
		lba = get_be32(c + 2);
		n = get_be16(c + 7);
		assert_int_equal(io->len, (uint64_t)n * H_BS);
		if (c[0] == 0x28) {
			dev_copy_in(io, d->data + (size_t)lba * H_BS, io->len);
		} else {
			dev_copy_out(io, d->data + (size_t)lba * H_BS);
		}
		break;
	case 0xc0:
		dev_copy_in(io, "\x01\x02\x03\x04", 4);
		io->resid = io->len > 4 ? (uint32_t)io->len - 4 : 0;
		break;
	case 0xc1:
		io->scsi_status = SAM_STAT_CHECK_CONDITION;
		memcpy(io->sense, c1_sense, sizeof(c1_sense));
		io->sense_len = sizeof(c1_sense);
		break;
	default:
		break;
	}
}

static void dev_submit(struct bs_dev *dev, struct bs_io *io)
{
	struct pt_dev *d = container_of(dev, struct pt_dev, dev);
	int err = 0;

	pthread_mutex_lock(&d->lock);
	switch (io->op) {
	case BS_OP_SCSI:
		dev_scsi(d, io);
		break;
	case BS_OP_READ:
		d->nprim++;
		dev_copy_in(io, d->data + io->off, io->len);
		break;
	case BS_OP_WRITE:
		d->nprim++;
		dev_copy_out(io, d->data + io->off);
		break;
	case BS_OP_FLUSH:
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	pthread_mutex_unlock(&d->lock);
	io->done(io, err);
}

static void dev_close(struct bs_dev *dev)
{
	struct pt_dev *d = container_of(dev, struct pt_dev, dev);

	pthread_mutex_destroy(&d->lock);
	free(d);
}

static const struct bs_ops dev_ops = {
    .type = "ptdev",
    .submit = dev_submit,
    .close = dev_close,
};

struct pt_harness {
	struct harness h;
	struct pt_dev *d;
};

static int setup(void **state)
{
	struct pt_harness *ph = calloc(1, sizeof(*ph));
	struct harness *h = &ph->h;
	struct scsi_lu_attrs a = h_attrs();

	ph->d = calloc(1, sizeof(*ph->d));
	assert_non_null(ph->d);
	pthread_mutex_init(&ph->d->lock, NULL);
	ph->d->dev.ops = &dev_ops;
	ph->d->dev.size = (uint64_t)D_BLOCKS * H_BS;
	ph->d->dev.lbs = H_BS;
	ph->d->dev.caps = BS_CAP_PASSTHROUGH | BS_CAP_FLUSH | BS_CAP_FUA;
	h_setup_bs(h, &ph->d->dev, &a);
	/* the core's own POWER ON per nexus (TEST UNIT READY, refused before
	 * it reaches the device) */
	assert_int_equal(h_clear_ua(h->p1, 0), 1);
	assert_int_equal(h_clear_ua(h->p2, 0), 1);
	ph->d->nops = 0;
	*state = ph;
	return 0;
}

static int teardown(void **state)
{
	struct pt_harness *ph = *state;

	h_teardown(&ph->h);
	free(ph);
	return 0;
}

static bool dev_saw(struct pt_dev *d, uint8_t op)
{
	for (unsigned i = 0; i < d->nops; i++)
		if (d->ops[i] == op)
			return true;
	return false;
}

/* The policy itself (pure). */
static void test_policy(void **state)
{
	static const struct {
		uint8_t cdb[6];
		bool fwd;
	} cases[] = {
	    {{0x5e, 0x00}, false},	 /* PERSISTENT RESERVE IN */
	    {{0x5f, 0x01}, false},	 /* PERSISTENT RESERVE OUT */
	    {{0x16}, false},		 /* RESERVE(6) */
	    {{0x17}, false},		 /* RELEASE(6) */
	    {{0x56}, false},		 /* RESERVE(10) */
	    {{0x57}, false},		 /* RELEASE(10) */
	    {{0x03}, false},		 /* REQUEST SENSE */
	    {{0xa0}, false},		 /* REPORT LUNS */
	    {{0x12, 0x01, 0x83}, false}, /* INQUIRY Device Identification */
	    {{0x12, 0x01, 0x80}, false}, /* INQUIRY Unit Serial Number */
	    {{0xa3, 0x0a}, false},	 /* REPORT TARGET PORT GROUPS */
	    {{0xa4, 0x0a}, false},	 /* SET TARGET PORT GROUPS */
	    {{0x83, 0x00}, false},	 /* EXTENDED COPY */
	    {{0x84, 0x03}, false},	 /* RECEIVE COPY RESULTS */
	    {{0x12, 0x00, 0x00}, true},	 /* standard INQUIRY */
	    {{0x12, 0x01, 0x00}, true},	 /* Supported VPD Pages */
	    {{0x12, 0x01, 0xb0}, true},	 /* Block Limits */
	    {{0x12, 0x00, 0x83}, true},	 /* EVPD 0: the standard data */
	    {{0xa3, 0x0c}, true},	 /* REPORT SUPPORTED OPERATION CODES */
	    {{0x00}, true},		 /* TEST UNIT READY */
	    {{0x28}, true},		 /* READ(10) */
	    {{0x8a}, true},		 /* WRITE(16) */
	    {{0x1a}, true},		 /* MODE SENSE(6) */
	    {{0x35}, true},		 /* SYNCHRONIZE CACHE(10) */
	    {{0xc0}, true},		 /* vendor specific */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(pt_forwarded(cases[i].cdb, 6), cases[i].fwd);
	assert_false(pt_forwarded(cases[0].cdb, 0));
	assert_int_equal(pt_ua_cond(0x29, 0x00), UA_POWER_ON);
	assert_int_equal(pt_ua_cond(0x29, 0x03), UA_BUS_DEVICE_RESET);
	assert_int_equal(pt_ua_cond(0x2a, 0x01), UA_MODE_PARAMS_CHANGED);
	assert_int_equal(pt_ua_cond(0x2a, 0x09), UA_CAPACITY_CHANGED);
	assert_int_equal(pt_ua_cond(0x3f, 0x03), UA_INQUIRY_DATA_CHANGED);
	assert_int_equal(pt_ua_cond(0x28, 0x00), UA_MEDIUM_CHANGED);
	assert_int_equal(pt_ua_cond(0x2a, 0x03), -1); /* reservations: the core's */
	assert_int_equal(pt_ua_cond(0x3f, 0x0e), -1); /* the device's LUNs: not ours */
}

/* INQUIRY: the standard data is the device's, the identifiers utarget's. */
static void test_inquiry(void **state)
{
	struct pt_harness *ph = *state;
	uint8_t std[6] = {0x12, 0, 0, 0, 36, 0}, vpd[6] = {0x12, 1, 0x83, 0, 255, 0};
	uint8_t buf[255];
	struct loop_result r;

	assert_int_equal(h_cmd(ph->h.p1, 0, std, 6, SCSI_DIR_READ, buf, 36, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 36);
	assert_memory_equal(buf + 8, "DEVVEND DEVPROD", 15);
	assert_true(dev_saw(ph->d, 0x12));
	ph->d->nops = 0;
	assert_int_equal(h_cmd(ph->h.p1, 0, vpd, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	assert_int_equal(buf[1], 0x83);
	/* the LU's NAA designator (h_attrs) is in the page */
	assert_non_null(memmem(buf, r.data_in_len, h_attrs().naa, 16));
	vpd[2] = 0x80;
	assert_int_equal(h_cmd(ph->h.p1, 0, vpd, 6, SCSI_DIR_READ, buf, 255, &r), SAM_STAT_GOOD);
	assert_memory_equal(buf + 4, "SERIAL0001", 10);
	assert_int_equal(ph->d->nops, 0);
}

/* REPORT LUNS and REQUEST SENSE: the core's. */
static void test_core_commands(void **state)
{
	struct pt_harness *ph = *state;
	uint8_t rl[12] = {0xa0}, rs[6] = {0x03, 0, 0, 0, 18, 0}, buf[64];
	struct loop_result r;

	put_be32(rl + 6, sizeof(buf));
	assert_int_equal(h_cmd(ph->h.p1, 0, rl, 12, SCSI_DIR_READ, buf, sizeof(buf), &r),
			 SAM_STAT_GOOD);
	assert_int_equal(get_be32(buf), 8); /* one LUN */
	assert_int_equal(h_cmd(ph->h.p1, 0, rs, 6, SCSI_DIR_READ, buf, 18, &r), SAM_STAT_GOOD);
	assert_int_equal(ph->d->nops, 0);
}

/* A command the device rejects keeps its sense, byte for byte; an opcode
 * the core does not know moves the data the initiator asked for. */
static void test_sense_intact(void **state)
{
	struct pt_harness *ph = *state;
	uint8_t c1[6] = {0xc1}, c0[6] = {0xc0}, buf[16];
	struct loop_result r;

	assert_int_equal(h_cmd(ph->h.p1, 0, c1, 6, SCSI_DIR_NONE, NULL, 0, &r),
			 SAM_STAT_CHECK_CONDITION);
	assert_int_equal(r.sense_len, sizeof(c1_sense));
	assert_memory_equal(r.sense, c1_sense, sizeof(c1_sense));
	memset(buf, 0, sizeof(buf));
	assert_int_equal(h_cmd(ph->h.p1, 0, c0, 6, SCSI_DIR_READ, buf, 16, &r), SAM_STAT_GOOD);
	assert_int_equal(r.data_in_len, 4);
	assert_memory_equal(buf, "\x01\x02\x03\x04", 4);
	assert_int_equal(r.resid_kind, SCSI_RESID_UNDERFLOW);
	assert_int_equal(r.resid, 12);
}

/* A unit attention of the device: the initiator that met it gets the
 * device's sense, the other one the same condition from the core. */
static void test_ua_fanout(void **state)
{
	struct pt_harness *ph = *state;
	static const uint8_t ua[18] = {0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x2a, 0x09};
	struct loop_result r;

	memcpy(ph->d->next_sense, ua, sizeof(ua));
	ph->d->next_sense_len = sizeof(ua);
	assert_int_equal(h_tur(ph->h.p1, &r), SAM_STAT_CHECK_CONDITION);
	assert_memory_equal(r.sense, ua, sizeof(ua));
	/* p2 meets CAPACITY DATA HAS CHANGED once, from the core */
	ph->d->nops = 0;
	assert_int_equal(h_tur(ph->h.p2, &r), SAM_STAT_CHECK_CONDITION);
	h_expect_sense(&r, 0x06, 0x2a, 0x09);
	assert_int_equal(ph->d->nops, 0);
	assert_int_equal(h_tur(ph->h.p2, &r), SAM_STAT_GOOD);
	/* and p1 was not given it twice */
	assert_int_equal(h_tur(ph->h.p1, &r), SAM_STAT_GOOD);
}

static uint8_t pr_out(struct loop_port *p, uint8_t sa, uint8_t type, uint64_t key, uint64_t sakey,
		      struct loop_result *r)
{
	uint8_t cdb[10] = {0x5f, sa, type}, par[24] = {0};

	put_be32(cdb + 5, sizeof(par));
	put_be64(par, key);
	put_be64(par + 8, sakey);
	return h_cmd(p, 0, cdb, 10, SCSI_DIR_WRITE, par, sizeof(par), r);
}

/* Two initiators' reservations do not cross, and none reaches the device. */
static void test_reservations_stay(void **state)
{
	struct pt_harness *ph = *state;
	uint8_t w10[10], r10[10], buf[H_BS];
	struct loop_result r;

	assert_int_equal(pr_out(ph->h.p1, 0x00, 0, 0, 0xa1, &r), SAM_STAT_GOOD); /* REGISTER */
	assert_int_equal(pr_out(ph->h.p1, 0x01, 1, 0xa1, 0, &r), SAM_STAT_GOOD); /* RESERVE WE */
	h_clear_ua(ph->h.p2, 0);
	memset(buf, 0x5a, sizeof(buf));
	h_cdb_rw10(w10, 0x2a, 3, 1);
	assert_int_equal(h_cmd(ph->h.p2, 0, w10, 10, SCSI_DIR_WRITE, buf, H_BS, &r),
			 SAM_STAT_RESERVATION_CONFLICT);
	/* b cannot release a's reservation (not registered: conflict) */
	assert_int_equal(pr_out(ph->h.p2, 0x02, 1, 0xa1, 0, &r), SAM_STAT_RESERVATION_CONFLICT);
	/* Write Exclusive: b still reads, through the device */
	h_cdb_rw10(r10, 0x28, 3, 1);
	assert_int_equal(h_cmd(ph->h.p2, 0, r10, 10, SCSI_DIR_READ, buf, H_BS, &r), SAM_STAT_GOOD);
	/* a writes through it */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(h_cmd(ph->h.p1, 0, w10, 10, SCSI_DIR_WRITE, buf, H_BS, &r), SAM_STAT_GOOD);
	assert_int_equal(ph->d->data[3 * H_BS], 0xa5);
	assert_false(dev_saw(ph->d, 0x5f));
	assert_false(dev_saw(ph->d, 0x5e));
	/* SPC-2 RESERVE of b: conflicts with a's PR (the core's), not sent */
	assert_int_equal(
	    h_cmd(ph->h.p2, 0, (const uint8_t[6]){0x16}, 6, SCSI_DIR_NONE, NULL, 0, &r),
	    SAM_STAT_RESERVATION_CONFLICT);
	assert_false(dev_saw(ph->d, 0x16));
	/* all the device got: b's TEST UNIT READY, READ(10), a's WRITE(10) */
	assert_int_equal(ph->d->nops, 3);
	assert_memory_equal(ph->d->ops, "\x00\x28\x2a", 3);
}

/* An Expected Data Transfer Length below the CDB's: the core's handler
 * runs it on the primitives, with the residual RFC 7143 asks for. */
static void test_short_transfer(void **state)
{
	struct pt_harness *ph = *state;
	uint8_t r10[10], buf[2 * H_BS];
	struct loop_result r;

	ph->d->data[5 * H_BS] = 0x77;
	h_cdb_rw10(r10, 0x28, 5, 2);
	assert_int_equal(h_cmd(ph->h.p1, 0, r10, 10, SCSI_DIR_READ, buf, H_BS, &r), SAM_STAT_GOOD);
	assert_int_equal(r.resid_kind, SCSI_RESID_OVERFLOW);
	assert_int_equal(r.resid, H_BS);
	assert_int_equal(buf[0], 0x77);
	assert_int_equal(ph->d->nops, 0);
	assert_int_equal(ph->d->nprim, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_policy),
	    cmocka_unit_test_setup_teardown(test_inquiry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_core_commands, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sense_intact, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ua_fanout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reservations_stay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_short_transfer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
