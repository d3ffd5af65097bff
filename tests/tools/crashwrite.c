/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crashwrite: the client side of the crash-consistency test for writes.
 *
 *   crashwrite write  --addr A --target IQN --journal FILE [--lun N] [--seed S]
 *                     [--blocks N] [--seconds T]
 *   crashwrite verify --addr A --target IQN --journal FILE [--lun N] [--seed S]
 *
 * write: writes blocks with known content (a pattern derived from the seed,
 * the LBA and a generation counter that grows across the whole journal),
 * 1..8 blocks at a time, either with FUA (SBC-4 5.41) or as WRITE followed
 * by SYNCHRONIZE CACHE (SBC-4 5.28). Before each write it appends an intent
 * record "I lba count gen" to the journal; once the write is acknowledged as
 * durable (GOOD for the FUA write, GOOD for the SYNCHRONIZE CACHE) it appends
 * "A lba count gen" and fsyncs the journal. It runs until the target goes
 * away (the test kills it) or --seconds pass; a lost connection is the
 * expected end (exit 0), any other failure exits 1.
 *
 * verify: reads every block the journal mentions and checks that each block
 * holds a whole, untorn block of one generation g (or zeroes if it was never
 * acknowledged) with g == the last acknowledged generation of that block or a
 * later generation that was issued (intent) after it. Never older, never torn.
 * Prints "blocks checked", "lost", "torn" and exits 1 on any lost/torn block. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

#define CW_MAGIC 0x5554435752495445ull /* "UTCWRITE" */
#define CW_HDR	 32

struct cw_opts {
	char host[256], port[16];
	const char *target, *journal;
	uint64_t lun, seed, blocks;
	double seconds;
};

static struct cw_opts opt = {.blocks = 2048, .seconds = 3600};

/* Block layout: magic(8) lba(8) gen(8) seed(4) crc32c(4) of bytes 32..bs,
 * then a pattern from (seed, lba, gen). */
static void fill_block(uint8_t *b, uint32_t bs, uint64_t lba, uint64_t gen)
{
	uint64_t x = (opt.seed + 1) * 0x9E3779B97F4A7C15ull ^ lba * 0xBF58476D1CE4E5B9ull ^ gen;
	uint32_t i;

	for (i = CW_HDR; i + 8 <= bs; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_be64(b + i, x);
	}
	put_be64(b, CW_MAGIC);
	put_be64(b + 8, lba);
	put_be64(b + 16, gen);
	put_be32(b + 24, (uint32_t)opt.seed);
	put_be32(b + 28, crc32c(b + CW_HDR, bs - CW_HDR));
}

/* 0: zeroes; >0: the generation of a whole valid block; -1: torn/corrupt. */
static int64_t block_gen(const uint8_t *b, uint32_t bs, uint64_t lba)
{
	static uint8_t *want;
	static uint32_t want_bs;
	uint64_t gen;
	uint32_t i;

	for (i = 0; i < bs && !b[i]; i++)
		;
	if (i == bs)
		return 0;
	if (get_be64(b) != CW_MAGIC || get_be64(b + 8) != lba ||
	    get_be32(b + 24) != (uint32_t)opt.seed)
		return -1;
	gen = get_be64(b + 16);
	if (want_bs != bs) {
		free(want);
		want = malloc(bs);
		want_bs = bs;
	}
	fill_block(want, bs, lba, gen);
	return memcmp(want, b, bs) ? -1 : (int64_t)gen;
}

static int session(struct ir_conn *c, uint32_t *bs, uint64_t *blocks)
{
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:crashwrite",
	    .target_name = opt.target,
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	struct ir_scsi_result r;
	int rc, i;

	ir_conn_init(c);
	c->timeout_ms = 10000;
	rc = ir_connect(c, opt.host, opt.port, 5000);
	if (!rc)
		rc = ir_login(c, &o);
	for (i = 0; !rc && i < 4; i++) {
		rc = ir_test_unit_ready(c, opt.lun, &r);
		if (!rc && !r.status)
			break;
	}
	if (!rc)
		rc = ir_read_capacity16(c, opt.lun, blocks, bs, &r);
	if (!rc && (r.status || !*bs))
		rc = -EIO;
	return rc;
}

/* ---- journal ---- */

struct jrec {
	char kind; /* 'I' or 'A' */
	uint64_t lba, gen;
	uint32_t count;
};

struct journal {
	struct jrec *r;
	size_t n, cap;
	uint64_t max_gen;
};

static int journal_load(const char *path, struct journal *j)
{
	FILE *f = fopen(path, "r");
	char line[128];

	memset(j, 0, sizeof(*j));
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		struct jrec r;
		char *p = line, *end;
		size_t len = strlen(line);

		if (!len || line[len - 1] != '\n')
			break; /* a torn last line: ignored */
		if (line[0] != 'I' && line[0] != 'A')
			continue;
		r.kind = line[0];
		p = line + 1;
		r.lba = strtoull(p, &end, 10);
		p = end;
		r.count = (uint32_t)strtoul(p, &end, 10);
		p = end;
		r.gen = strtoull(p, &end, 10);
		if (end == p || !r.count)
			continue;
		if (j->n == j->cap) {
			size_t cap = j->cap ? 2 * j->cap : 1024;
			struct jrec *nr = realloc(j->r, cap * sizeof(*nr));

			if (!nr) {
				fclose(f);
				return -ENOMEM;
			}
			j->r = nr;
			j->cap = cap;
		}
		j->r[j->n++] = r;
		j->max_gen = UT_MAX(j->max_gen, r.gen);
	}
	fclose(f);
	return 0;
}

static int journal_append(int fd, char kind, uint64_t lba, uint32_t count, uint64_t gen, bool sync)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "%c %llu %u %llu\n", kind, (unsigned long long)lba,
			 count, (unsigned long long)gen);

	if (write(fd, line, (size_t)n) != n)
		return -EIO;
	if (sync && fsync(fd))
		return -errno;
	return 0;
}

/* ---- write mode ---- */

static uint64_t rs;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static int do_write(void)
{
	struct journal j;
	struct ir_conn c;
	struct ir_scsi_result r;
	uint64_t cap = 0, gen, acked = 0, fua_n = 0, sync_n = 0;
	uint32_t bs = 0;
	uint8_t *buf = NULL;
	time_t end = time(NULL) + (time_t)opt.seconds;
	int fd, rc;

	rc = journal_load(opt.journal, &j);
	if (rc) {
		fprintf(stderr, "crashwrite: journal %s: %s\n", opt.journal, strerror(-rc));
		return 1;
	}
	gen = j.max_gen;
	free(j.r);
	fd = open(opt.journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "crashwrite: journal %s: %s\n", opt.journal, strerror(errno));
		return 1;
	}
	rs = (opt.seed ^ (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20)) | 1;
	rc = session(&c, &bs, &cap);
	if (rc) {
		fprintf(stderr, "crashwrite: session: %s (%s)\n", strerror(-rc), c.err);
		close(fd);
		return 1;
	}
	if (cap < opt.blocks)
		opt.blocks = cap;
	buf = malloc((size_t)8 * bs);
	printf("crashwrite: writing %llu blocks of %u bytes from generation %llu\n",
	       (unsigned long long)opt.blocks, bs, (unsigned long long)gen + 1);
	fflush(stdout);
	while (time(NULL) < end) {
		uint32_t n = 1 + (uint32_t)(rnd() % 8), i;
		uint64_t lba = rnd() % (opt.blocks - n + 1);
		bool fua = rnd() & 1;

		gen++;
		for (i = 0; i < n; i++)
			fill_block(buf + (size_t)i * bs, bs, lba + i, gen);
		rc = journal_append(fd, 'I', lba, n, gen, false);
		if (rc)
			break;
		rc = ir_write16(&c, opt.lun, lba, n, bs, buf, fua, &r);
		if (!rc && !r.status && !fua)
			rc = ir_sync_cache16(&c, opt.lun, &r);
		if (rc)
			break;
		if (r.status) {
			uint8_t k = 0, a = 0, q = 0;

			ir_sense_parse(&r, &k, &a, &q);
			if (k == 6)
				continue; /* unit attention: not acknowledged, try on */
			fprintf(stderr, "crashwrite: status 0x%02x sense %x/%02x/%02x\n", r.status,
				k, a, q);
			rc = -EIO;
			break;
		}
		/* acknowledged as durable: record it before anything else */
		rc = journal_append(fd, 'A', lba, n, gen, true);
		if (rc)
			break;
		acked++;
		if (fua)
			fua_n++;
		else
			sync_n++;
	}
	printf("crashwrite: %llu writes acknowledged durable (%llu FUA, %llu WRITE+SYNCHRONIZE "
	       "CACHE), last generation %llu, end: %s\n",
	       (unsigned long long)acked, (unsigned long long)fua_n, (unsigned long long)sync_n,
	       (unsigned long long)gen, rc ? strerror(-rc) : "time");
	free(buf);
	close(fd);
	ir_close(&c);
	/* the target going away is how a round normally ends */
	return rc == 0 || rc == -ECONNRESET || rc == -ETIMEDOUT || rc == -EPIPE ? 0 : 1;
}

/* ---- verify mode ---- */

struct blk_state {
	uint64_t acked;	 /* last acknowledged generation, 0 = none */
	uint64_t *later; /* generations issued after it */
	size_t n_later, cap_later;
	bool touched;
};

static int do_verify(void)
{
	struct journal j;
	struct blk_state *b;
	struct ir_conn c;
	struct ir_scsi_result r;
	uint64_t cap = 0, checked = 0, lost = 0, torn = 0, newer = 0, max_lba = 0;
	uint32_t bs = 0;
	uint8_t *buf;
	size_t i;
	int rc;

	rc = journal_load(opt.journal, &j);
	if (rc || !j.n) {
		fprintf(stderr, "crashwrite: journal %s: %s\n", opt.journal,
			rc ? strerror(-rc) : "empty");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	for (i = 0; i < j.n; i++)
		max_lba = UT_MAX(max_lba, j.r[i].lba + j.r[i].count);
	b = calloc(max_lba, sizeof(*b));
	/* Replay in order: an ack resets the "later" set of its blocks. */
	for (i = 0; i < j.n; i++) {
		const struct jrec *e = &j.r[i];
		uint64_t l;

		for (l = e->lba; l < e->lba + e->count; l++) {
			struct blk_state *s = &b[l];

			s->touched = true;
			if (e->kind == 'A') {
				if (e->gen > s->acked) {
					size_t k, m = 0;

					s->acked = e->gen;
					for (k = 0; k < s->n_later; k++)
						if (s->later[k] > e->gen)
							s->later[m++] = s->later[k];
					s->n_later = m;
				}
			} else {
				if (s->n_later == s->cap_later) {
					s->cap_later = s->cap_later ? 2 * s->cap_later : 4;
					s->later =
					    realloc(s->later, s->cap_later * sizeof(*s->later));
				}
				s->later[s->n_later++] = e->gen;
			}
		}
	}
	rc = session(&c, &bs, &cap);
	if (rc) {
		fprintf(stderr, "crashwrite: session: %s (%s)\n", strerror(-rc), c.err);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	buf = malloc((size_t)64 * bs);
	for (uint64_t base = 0; base < max_lba; base += 64) {
		uint32_t n = (uint32_t)UT_MIN((uint64_t)64, max_lba - base);

		rc = ir_read16(&c, opt.lun, base, n, bs, buf, &r);
		if (rc || r.status || r.data_in_len != n * bs) {
			fprintf(stderr, "crashwrite: READ at %llu failed: %s status 0x%02x\n",
				(unsigned long long)base, rc ? strerror(-rc) : "-", r.status);
			printf("0 passed, 1 failed\n");
			return 1;
		}
		for (i = 0; i < n; i++) {
			uint64_t lba = base + i;
			struct blk_state *s = &b[lba];
			int64_t g;
			bool ok;
			size_t k;

			if (!s->touched)
				continue;
			checked++;
			g = block_gen(buf + i * bs, bs, lba);
			if (g < 0) {
				torn++;
				fprintf(stderr, "crashwrite: LBA %llu: torn or corrupt block\n",
					(unsigned long long)lba);
				continue;
			}
			ok = (uint64_t)g == s->acked;
			for (k = 0; !ok && k < s->n_later; k++)
				ok = (uint64_t)g == s->later[k];
			if (!ok) {
				lost++;
				fprintf(
				    stderr,
				    "crashwrite: LBA %llu: generation %lld, acknowledged %llu\n",
				    (unsigned long long)lba, (long long)g,
				    (unsigned long long)s->acked);
			} else if ((uint64_t)g > s->acked) {
				newer++;
			}
		}
	}
	printf("crashwrite: %zu journal records, %llu blocks checked, %llu lost, %llu torn, %llu "
	       "hold a newer unacknowledged generation\n",
	       j.n, (unsigned long long)checked, (unsigned long long)lost, (unsigned long long)torn,
	       (unsigned long long)newer);
	ir_close(&c);
	for (i = 0; i < max_lba; i++)
		free(b[i].later);
	free(b);
	free(buf);
	free(j.r);
	return lost || torn || !checked ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: crashwrite write|verify --addr HOST:PORT --target IQN --journal "
			"FILE [--lun N] [--seed N] [--blocks N] [--seconds S]\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},    {"target", required_argument, NULL, 't'},
	    {"journal", required_argument, NULL, 'j'}, {"lun", required_argument, NULL, 'l'},
	    {"seed", required_argument, NULL, 'S'},    {"blocks", required_argument, NULL, 'b'},
	    {"seconds", required_argument, NULL, 's'}, {0},
	};
	const char *addr = NULL, *mode;
	int ch;

	if (argc < 2) {
		usage();
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((ch = getopt_long(argc, argv, "a:t:j:l:S:b:s:", lopts, NULL)) != -1) {
		char *end;

		errno = 0;
		switch (ch) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			opt.target = optarg;
			break;
		case 'j':
			opt.journal = optarg;
			break;
		case 'l':
			opt.lun = strtoull(optarg, &end, 0);
			break;
		case 'S':
			opt.seed = strtoull(optarg, &end, 0);
			break;
		case 'b':
			opt.blocks = strtoull(optarg, &end, 0);
			break;
		case 's':
			opt.seconds = strtod(optarg, &end);
			break;
		default:
			usage();
			return 2;
		}
		if (ch != 'a' && ch != 't' && ch != 'j' && (errno || *end)) {
			usage();
			return 2;
		}
	}
	if (!addr || !opt.target || !opt.journal || opt.blocks < 8 ||
	    ir_parse_addr(addr, opt.host, sizeof(opt.host), opt.port, sizeof(opt.port))) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(mode, "write"))
		return do_write();
	if (!strcmp(mode, "verify"))
		return do_verify();
	usage();
	return 2;
}
