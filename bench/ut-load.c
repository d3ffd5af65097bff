/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ut-load: a small iSCSI load generator on libiscsi's asynchronous API, used by bench/run.sh
 * where neither `qemu-img bench` nor `iscsi-perf` measures what a case needs (random writes at
 * a queue depth, a latency distribution at QD1).
 *
 * One session, one connection. Keeps --qd READ(16) or WRITE(16) commands of --size bytes
 * outstanding, at random LBAs (uniform, aligned to the transfer size) or sequential LBAs
 * (wrapping at the end of the LUN), for --time seconds; then stops submitting, drains what is
 * in flight and reports:
 *
 *   stdout (one line, for scripts):
 *     ios=N seconds=S iops=X mbps=Y lat_mean_us=.. lat_p50_us=.. lat_p99_us=.. lat_p999_us=..
 *     lat_max_us=.. errors=E
 *   stderr: the same in words.
 *
 * MB/s is 10^6 bytes per second. Latency is measured per command from just before it is
 * queued in libiscsi to its completion callback, so it includes the client's own queueing;
 * it is kept in a log-linear histogram whose buckets are at most 1/64 of their value wide.
 * Read data lands in one pre-allocated buffer per slot (no per-command allocation in the
 * client); writes send one shared buffer of pseudo-random bytes.
 *
 * Exit status: 0 only when every command completed with GOOD status; 1 on any error,
 * 2 on a usage error. A dropped connection is an error (automatic reconnect is turned off).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define ULOAD_DEFAULT_INITIATOR "iqn.2026-12.org.utarget:ut-load"
#define ULOAD_MAX_QD		1024u
#define ULOAD_MAX_SIZE		(16u << 20)
#define ULOAD_DRAIN_TIMEOUT_NS	(30ull * 1000000000ull)
#define ULOAD_MAX_ERR_PRINT	5

/*
 * Log-linear histogram of nanosecond values: values below 2 * HIST_SUB are counted exactly;
 * above, each power of two is split into HIST_SUB buckets, so a bucket spans at most
 * 1/HIST_SUB of its lower bound.
 */
#define HIST_SUB_BITS 6
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_BUCKETS  (HIST_SUB * (64 - HIST_SUB_BITS) + HIST_SUB)

struct uload_hist {
	uint64_t count[HIST_BUCKETS];
	uint64_t n;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
};

struct uload;

struct uload_slot {
	struct uload *ld;
	unsigned char *buf; /* READ data lands here */
	uint64_t t_submit;  /* CLOCK_MONOTONIC ns */
};

struct uload {
	struct iscsi_context *iscsi;
	int lun;
	uint32_t blocksize;
	uint64_t nblocks;

	bool write;
	bool random;
	bool header_digest; /* offer HeaderDigest=CRC32C only */
	uint32_t size;
	unsigned int qd;

	uint64_t next_lba;
	uint64_t rng;
	unsigned char *wbuf;

	unsigned int inflight;
	bool stop;
	bool fatal;
	uint64_t ios;
	uint64_t errors;
	struct uload_hist hist;
};

static uint64_t uload_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64* (Vigna): fast, good enough to spread LBAs; the state must be non-zero. */
static uint64_t uload_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < 2 * HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return HIST_SUB * shift + (unsigned int)(v >> shift);
}

/* Smallest value that falls in bucket @idx. */
static uint64_t hist_lower(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * HIST_SUB)
		return idx;
	shift = idx / HIST_SUB - 1;
	return (uint64_t)(idx - HIST_SUB * shift) << shift;
}

/* Largest value that falls in bucket @idx. */
static uint64_t hist_upper(unsigned int idx)
{
	if (idx + 1 >= HIST_BUCKETS)
		return UINT64_MAX;
	return hist_lower(idx + 1) - 1;
}

static void hist_add(struct uload_hist *h, uint64_t v)
{
	h->count[hist_index(v)]++;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
}

/*
 * The value at quantile @q (0 < q <= 1): the midpoint of the bucket holding the
 * ceil(q * n)-th smallest sample, clamped to the observed minimum and maximum.
 */
static uint64_t hist_quantile(const struct uload_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)(q * (double)h->n);
	if ((double)rank < q * (double)h->n)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t lo = hist_lower(i), hi = hist_upper(i);
			uint64_t mid = lo + (hi - lo) / 2;

			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

/* "4096", "4k", "1M", "1g" (binary multiples) -> bytes; 0 on success, -EINVAL otherwise. */
static int uload_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end != '\0' && end[1] != '\0')
		return -EINVAL;
	if (shift != 0 && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static int uload_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Seconds, fractional allowed, in (0, 86400]. */
static int uload_parse_seconds(const char *s, double *out)
{
	double v;
	char *end;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v > 0.0) || v > 86400.0)
		return -EINVAL;
	*out = v;
	return 0;
}

static uint64_t uload_pick_lba(struct uload *ld)
{
	uint64_t blocks = ld->size / ld->blocksize;
	uint64_t lba;

	if (ld->random) {
		uint64_t units = ld->nblocks / blocks;

		return (uload_rand(&ld->rng) % units) * blocks;
	}
	if (ld->next_lba + blocks > ld->nblocks)
		ld->next_lba = 0;
	lba = ld->next_lba;
	ld->next_lba += blocks;
	return lba;
}

static int uload_submit(struct uload_slot *slot);

static void uload_done(struct iscsi_context *iscsi, int status, void *command_data,
		       void *private_data)
{
	struct uload_slot *slot = private_data;
	struct uload *ld = slot->ld;
	struct scsi_task *task = command_data;
	uint64_t lat = uload_now_ns() - slot->t_submit;

	if (status == SCSI_STATUS_GOOD) {
		ld->ios++;
		hist_add(&ld->hist, lat);
	} else {
		if (ld->errors < ULOAD_MAX_ERR_PRINT) {
			if (status == SCSI_STATUS_CHECK_CONDITION && task != NULL)
				fprintf(stderr,
					"ut-load: %s failed: CHECK CONDITION key 0x%x asc/ascq "
					"0x%04x\n",
					ld->write ? "WRITE(16)" : "READ(16)",
					(unsigned)task->sense.key, (unsigned)task->sense.ascq);
			else
				fprintf(stderr, "ut-load: %s failed: status 0x%x: %s\n",
					ld->write ? "WRITE(16)" : "READ(16)", (unsigned)status,
					iscsi_get_error(iscsi));
		}
		ld->errors++;
	}
	if (task != NULL)
		scsi_free_scsi_task(task);
	ld->inflight--;
	if (!ld->stop && !ld->fatal && uload_submit(slot) != 0)
		ld->fatal = true;
}

static int uload_submit(struct uload_slot *slot)
{
	struct uload *ld = slot->ld;
	uint64_t lba = uload_pick_lba(ld);
	struct scsi_task *task;

	slot->t_submit = uload_now_ns();
	if (ld->write) {
		task = iscsi_write16_task(ld->iscsi, ld->lun, lba, ld->wbuf, ld->size,
					  (int)ld->blocksize, 0, 0, 0, 0, 0, uload_done, slot);
	} else {
		task = iscsi_read16_task(ld->iscsi, ld->lun, lba, ld->size, (int)ld->blocksize, 0,
					 0, 0, 0, 0, uload_done, slot);
		/* Data-In goes straight to the slot's buffer; legal until iscsi_service(). */
		if (task != NULL && scsi_task_add_data_in_buffer(task, (int)ld->size, slot->buf)) {
			fprintf(stderr, "ut-load: cannot attach read buffer\n");
			return -ENOMEM;
		}
	}
	if (task == NULL) {
		fprintf(stderr, "ut-load: cannot queue command: %s\n", iscsi_get_error(ld->iscsi));
		return -EIO;
	}
	ld->inflight++;
	return 0;
}

/* Runs the load until the deadline, then drains. Returns the elapsed ns. */
static uint64_t uload_run(struct uload *ld, struct uload_slot *slots, double seconds)
{
	uint64_t t0 = uload_now_ns();
	uint64_t deadline = t0 + (uint64_t)(seconds * 1e9);

	for (unsigned int i = 0; i < ld->qd; i++) {
		if (uload_submit(&slots[i]) != 0) {
			ld->fatal = true;
			break;
		}
	}
	while (ld->inflight > 0) {
		uint64_t now = uload_now_ns();
		struct pollfd pfd;
		int timeout_ms = 100, rc;

		if (!ld->stop && now >= deadline)
			ld->stop = true;
		if (ld->stop && now >= deadline + ULOAD_DRAIN_TIMEOUT_NS) {
			fprintf(stderr,
				"ut-load: %u commands still outstanding %llus after the end\n",
				ld->inflight, ULOAD_DRAIN_TIMEOUT_NS / 1000000000ull);
			ld->fatal = true;
			break;
		}
		if (!ld->stop && deadline - now < 100000000ull)
			timeout_ms = (int)((deadline - now) / 1000000ull) + 1;
		pfd.fd = iscsi_get_fd(ld->iscsi);
		pfd.events = (short)iscsi_which_events(ld->iscsi);
		pfd.revents = 0;
		if (pfd.fd < 0 || pfd.events == 0) {
			fprintf(stderr, "ut-load: connection lost: %s\n",
				iscsi_get_error(ld->iscsi));
			ld->fatal = true;
			break;
		}
		rc = poll(&pfd, 1, timeout_ms);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ut-load: poll: %s\n", strerror(errno));
			ld->fatal = true;
			break;
		}
		if (iscsi_service(ld->iscsi, pfd.revents) < 0) {
			fprintf(stderr, "ut-load: iscsi_service: %s\n", iscsi_get_error(ld->iscsi));
			ld->fatal = true;
			break;
		}
	}
	return uload_now_ns() - t0;
}

static int uload_connect(struct uload *ld, const char *url_str, const char *initiator)
{
	struct iscsi_url *url;
	struct scsi_task *task;
	struct scsi_readcapacity16 *rc16;

	ld->iscsi = iscsi_create_context(initiator);
	if (ld->iscsi == NULL) {
		fprintf(stderr, "ut-load: cannot create iSCSI context\n");
		return -ENOMEM;
	}
	url = iscsi_parse_full_url(ld->iscsi, url_str);
	if (url == NULL) {
		fprintf(stderr, "ut-load: bad URL %s: %s\n", url_str, iscsi_get_error(ld->iscsi));
		return -EINVAL;
	}
	iscsi_set_targetname(ld->iscsi, url->target);
	iscsi_set_session_type(ld->iscsi, ISCSI_SESSION_NORMAL);
	/* CRC32C alone: a target that does not do it refuses the login */
	iscsi_set_header_digest(ld->iscsi, ld->header_digest ? ISCSI_HEADER_DIGEST_CRC32C
							     : ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_noautoreconnect(ld->iscsi, 1);
	if (url->user[0] != '\0' &&
	    iscsi_set_initiator_username_pwd(ld->iscsi, url->user, url->passwd) != 0) {
		fprintf(stderr, "ut-load: cannot set CHAP credentials\n");
		iscsi_destroy_url(url);
		return -EINVAL;
	}
	if (iscsi_full_connect_sync(ld->iscsi, url->portal, url->lun) != 0) {
		fprintf(stderr, "ut-load: login to %s failed: %s\n", url_str,
			iscsi_get_error(ld->iscsi));
		iscsi_destroy_url(url);
		return -ECONNREFUSED;
	}
	ld->lun = url->lun;
	iscsi_destroy_url(url);

	task = iscsi_readcapacity16_sync(ld->iscsi, ld->lun);
	if (task == NULL || task->status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "ut-load: READ CAPACITY(16) failed: %s\n",
			iscsi_get_error(ld->iscsi));
		if (task != NULL)
			scsi_free_scsi_task(task);
		return -EIO;
	}
	rc16 = scsi_datain_unmarshall(task);
	if (rc16 == NULL || rc16->block_length == 0 || rc16->returned_lba == UINT64_MAX) {
		fprintf(stderr, "ut-load: cannot decode READ CAPACITY(16) data\n");
		scsi_free_scsi_task(task);
		return -EIO;
	}
	ld->blocksize = rc16->block_length;
	ld->nblocks = rc16->returned_lba + 1;
	scsi_free_scsi_task(task);
	return 0;
}

static int uload_self_test(void)
{
	static const uint64_t samples[] = {0,	  1,	   127,	      128,	  129,
					   255,	  256,	   1000,      4095,	  4096,
					   65535, 1000000, 123456789, 1ull << 40, UINT64_MAX};
	static struct uload_hist h;
	unsigned int failed = 0;
	uint64_t v;
	double s;

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		unsigned int idx = hist_index(samples[i]);

		if (idx >= HIST_BUCKETS || hist_lower(idx) > samples[i] ||
		    hist_upper(idx) < samples[i]) {
			fprintf(stderr, "self-test: bucket of %" PRIu64 " is wrong\n", samples[i]);
			failed++;
		}
		if (samples[i] >= 2 * HIST_SUB &&
		    (hist_upper(idx) - hist_lower(idx) + 1) * HIST_SUB > hist_lower(idx)) {
			fprintf(stderr, "self-test: bucket of %" PRIu64 " too wide\n", samples[i]);
			failed++;
		}
	}
	/* Buckets tile the value range: each starts right after the previous one ends. */
	for (unsigned int i = 1; i < HIST_BUCKETS; i++) {
		if (hist_lower(i) != hist_upper(i - 1) + 1) {
			fprintf(stderr, "self-test: gap before bucket %u\n", i);
			failed++;
			break;
		}
	}
	/* 1..100000 ns uniform: quantiles within one bucket (< 1/64) of the exact value. */
	for (v = 1; v <= 100000; v++)
		hist_add(&h, v);
	{
		const struct {
			double q;
			double want;
		} qs[] = {{.q = 0.5, .want = 50000},
			  {.q = 0.99, .want = 99000},
			  {.q = 0.999, .want = 99900},
			  {.q = 1.0, .want = 100000}};

		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			double got = (double)hist_quantile(&h, qs[i].q);

			if (got < qs[i].want * (1 - 1.0 / HIST_SUB) ||
			    got > qs[i].want * (1 + 1.0 / HIST_SUB)) {
				fprintf(stderr, "self-test: q%.3f = %.0f, want ~%.0f\n", qs[i].q,
					got, qs[i].want);
				failed++;
			}
		}
		if (h.sum / h.n != 50000 || h.min != 1 || h.max != 100000) {
			fprintf(stderr, "self-test: mean/min/max wrong\n");
			failed++;
		}
	}
	if (uload_parse_size("4k", &v) != 0 || v != 4096 || uload_parse_size("1M", &v) != 0 ||
	    v != 1048576 || uload_parse_size("512", &v) != 0 || v != 512 ||
	    uload_parse_size("4kb", &v) == 0 || uload_parse_size("x", &v) == 0 ||
	    uload_parse_size("", &v) == 0 || uload_parse_size("-1", &v) == 0 ||
	    uload_parse_size("99999999999999999999", &v) == 0 ||
	    uload_parse_size("17179869184G", &v) == 0) {
		fprintf(stderr, "self-test: size parsing wrong\n");
		failed++;
	}
	if (uload_parse_seconds("2.5", &s) != 0 || s != 2.5 || uload_parse_seconds("0", &s) == 0 ||
	    uload_parse_seconds("1s", &s) == 0 || uload_parse_seconds("-3", &s) == 0) {
		fprintf(stderr, "self-test: seconds parsing wrong\n");
		failed++;
	}
	{
		struct uload ld = {.blocksize = 512, .nblocks = 64, .size = 4096, .rng = 1};
		uint64_t lba;

		for (unsigned int i = 0; i < 9; i++) {
			lba = uload_pick_lba(&ld);
			if (lba != (i % 8) * 8) {
				fprintf(stderr, "self-test: sequential LBA %u = %" PRIu64 "\n", i,
					lba);
				failed++;
				break;
			}
		}
		ld.random = true;
		for (unsigned int i = 0; i < 1000; i++) {
			lba = uload_pick_lba(&ld);
			if (lba % 8 != 0 || lba + 8 > 64) {
				fprintf(stderr, "self-test: random LBA %" PRIu64 " out of range\n",
					lba);
				failed++;
				break;
			}
		}
	}
	printf("ut-load self-test: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}

static void uload_usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: ut-load [options] iscsi://[user%%pass@]host[:port]/target-iqn/lun\n"
	    "  -m, --mode read|write      command (READ(16) or WRITE(16)); default read\n"
	    "  -p, --pattern rand|seq     LBA pattern; default rand (aligned to --size)\n"
	    "  -s, --size BYTES[k|m]      transfer size, multiple of the block size; default 4k\n"
	    "  -q, --qd N                 commands kept outstanding (1..%u); default 32\n"
	    "  -t, --time SECONDS         duration of the load; default 10\n"
	    "  -i, --initiator IQN        initiator name; default " ULOAD_DEFAULT_INITIATOR "\n"
	    "  -S, --seed N               seed of the random LBAs; default from the clock\n"
	    "  -H, --header-digest        HeaderDigest=CRC32C (libiscsi has no data digest)\n"
	    "      --self-test            check the histogram and parsers, then exit\n"
	    "  -h, --help\n",
	    ULOAD_MAX_QD);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {.name = "mode", .has_arg = required_argument, .val = 'm'},
	    {.name = "pattern", .has_arg = required_argument, .val = 'p'},
	    {.name = "size", .has_arg = required_argument, .val = 's'},
	    {.name = "qd", .has_arg = required_argument, .val = 'q'},
	    {.name = "time", .has_arg = required_argument, .val = 't'},
	    {.name = "initiator", .has_arg = required_argument, .val = 'i'},
	    {.name = "seed", .has_arg = required_argument, .val = 'S'},
	    {.name = "header-digest", .has_arg = no_argument, .val = 'H'},
	    {.name = "self-test", .has_arg = no_argument, .val = 'T'},
	    {.name = "help", .has_arg = no_argument, .val = 'h'},
	    {0},
	};
	static struct uload ld;
	const char *initiator = ULOAD_DEFAULT_INITIATOR;
	struct uload_slot *slots = NULL;
	double seconds = 10.0, secs;
	uint64_t size = 4096, elapsed;
	unsigned long qd = 32, seed = 0;
	bool have_seed = false;
	int c, ret = 1;

	ld.random = true;
	while ((c = getopt_long(argc, argv, "m:p:s:q:t:i:S:Hh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (strcmp(optarg, "read") == 0) {
				ld.write = false;
			} else if (strcmp(optarg, "write") == 0) {
				ld.write = true;
			} else {
				fprintf(stderr, "ut-load: --mode must be read or write\n");
				return 2;
			}
			break;
		case 'p':
			if (strcmp(optarg, "rand") == 0) {
				ld.random = true;
			} else if (strcmp(optarg, "seq") == 0) {
				ld.random = false;
			} else {
				fprintf(stderr, "ut-load: --pattern must be rand or seq\n");
				return 2;
			}
			break;
		case 's':
			if (uload_parse_size(optarg, &size) != 0 || size == 0 ||
			    size > ULOAD_MAX_SIZE) {
				fprintf(stderr, "ut-load: bad --size %s (1..%u bytes)\n", optarg,
					ULOAD_MAX_SIZE);
				return 2;
			}
			break;
		case 'q':
			if (uload_parse_uint(optarg, ULOAD_MAX_QD, &qd) != 0 || qd == 0) {
				fprintf(stderr, "ut-load: bad --qd %s (1..%u)\n", optarg,
					ULOAD_MAX_QD);
				return 2;
			}
			break;
		case 't':
			if (uload_parse_seconds(optarg, &seconds) != 0) {
				fprintf(stderr, "ut-load: bad --time %s\n", optarg);
				return 2;
			}
			break;
		case 'i':
			initiator = optarg;
			break;
		case 'S':
			if (uload_parse_uint(optarg, ULONG_MAX, &seed) != 0) {
				fprintf(stderr, "ut-load: bad --seed %s\n", optarg);
				return 2;
			}
			have_seed = true;
			break;
		case 'H':
			ld.header_digest = true;
			break;
		case 'T':
			return uload_self_test();
		case 'h':
			uload_usage(stdout);
			return 0;
		default:
			uload_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		uload_usage(stderr);
		return 2;
	}
	ld.size = (uint32_t)size;
	ld.qd = (unsigned int)qd;
	ld.rng = have_seed ? seed : uload_now_ns();
	ld.rng |= 1; /* xorshift state must be non-zero */

	if (uload_connect(&ld, argv[optind], initiator) != 0)
		goto out;
	if (ld.size % ld.blocksize != 0 || ld.size / ld.blocksize > ld.nblocks) {
		fprintf(stderr,
			"ut-load: size %u is not a multiple of the block size %u or exceeds "
			"the LUN (%" PRIu64 " blocks)\n",
			ld.size, ld.blocksize, ld.nblocks);
		goto out;
	}
	slots = calloc(ld.qd, sizeof(*slots));
	ld.wbuf = malloc(ld.size);
	if (slots == NULL || ld.wbuf == NULL) {
		fprintf(stderr, "ut-load: out of memory\n");
		goto out;
	}
	for (uint32_t i = 0; i < ld.size; i++)
		ld.wbuf[i] = (unsigned char)uload_rand(&ld.rng);
	for (unsigned int i = 0; i < ld.qd; i++) {
		slots[i].ld = &ld;
		if (!ld.write) {
			slots[i].buf = malloc(ld.size);
			if (slots[i].buf == NULL) {
				fprintf(stderr, "ut-load: out of memory\n");
				goto out;
			}
		}
	}

	elapsed = uload_run(&ld, slots, seconds);
	secs = (double)elapsed / 1e9;
	{
		const struct uload_hist *h = &ld.hist;
		double iops = (double)ld.ios / secs;
		double mbps = iops * ld.size / 1e6;
		double mean = h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0;
		double p50 = (double)hist_quantile(h, 0.50) / 1e3;
		double p99 = (double)hist_quantile(h, 0.99) / 1e3;
		double p999 = (double)hist_quantile(h, 0.999) / 1e3;
		double max = (double)h->max / 1e3;

		printf("ios=%" PRIu64 " seconds=%.3f iops=%.1f mbps=%.1f lat_mean_us=%.2f "
		       "lat_p50_us=%.2f lat_p99_us=%.2f lat_p999_us=%.2f lat_max_us=%.2f "
		       "errors=%" PRIu64 "\n",
		       ld.ios, secs, iops, mbps, mean, p50, p99, p999, max, ld.errors);
		fprintf(stderr,
			"ut-load: %s %s %u B QD%u: %" PRIu64
			" IOs in %.2f s = %.0f IOPS, %.1f MB/s; "
			"latency mean %.1f us, p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f; "
			"%" PRIu64 " errors\n",
			ld.random ? "random" : "sequential", ld.write ? "write" : "read", ld.size,
			ld.qd, ld.ios, secs, iops, mbps, mean, p50, p99, p999, max, ld.errors);
	}
	ret = (ld.fatal || ld.errors != 0) ? 1 : 0;
	if (!ld.fatal)
		iscsi_logout_sync(ld.iscsi);
out:
	if (ld.iscsi != NULL)
		iscsi_destroy_context(ld.iscsi);
	if (slots != NULL)
		for (unsigned int i = 0; i < ld.qd; i++)
			free(slots[i].buf);
	free(slots);
	free(ld.wbuf);
	return ret;
}
