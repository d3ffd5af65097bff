/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_client: a persistent reservation test initiator over libiscsi.
 *
 *   pr_client scenario URL_A URL_B      two initiators, every step checked
 *   pr_client crash-loop URL JOURNAL SEED   PR OUT with APTPL=1 in a loop,
 *                                       each one journaled (fsync) before it
 *                                       is sent and when it is acknowledged
 *   pr_client crash-check URL JOURNAL   the state after a restart is the one
 *                                       after the last acknowledged PR OUT or
 *                                       after the one in flight
 *   pr_client latency URL N             PR OUT latency, APTPL off and on
 *   pr_client register URL INITIATOR KEY APTPL   REGISTER AND IGNORE EXISTING
 *                                       KEY (hex key, APTPL 0 or 1)
 *   pr_client keys URL                  "keys:" and the registered keys (hex)
 *   pr_client hold URL INITIATOR ISID KEY APTPL TYPE GOFILE   register (and
 *                                       reserve), hold the session until
 *                                       GOFILE exists, then report the unit
 *                                       attention, keys, reservation
 *                                       (pr_hold.c)
 *
 * Prints one "ok:"/"FAIL:" line per check; exit status 0 when all passed,
 * 1 when a check failed, 2 on usage or connection errors. */
#include "pr_client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int prc_failures;

void prc_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (!ok)
		prc_failures++;
}

void prc_put_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

void prc_put_be32(unsigned char *p, uint32_t v)
{
	prc_put_be16(p, (uint16_t)(v >> 16));
	prc_put_be16(p + 2, (uint16_t)v);
}

void prc_put_be64(unsigned char *p, uint64_t v)
{
	prc_put_be32(p, (uint32_t)(v >> 32));
	prc_put_be32(p + 4, (uint32_t)v);
}

uint16_t prc_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t prc_be32(const unsigned char *p)
{
	return (uint32_t)prc_be16(p) << 16 | prc_be16(p + 2);
}

uint64_t prc_be64(const unsigned char *p)
{
	return (uint64_t)prc_be32(p) << 32 | prc_be32(p + 4);
}

double prc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int prc_connect(struct prc_path *p, const char *url, const char *initiator)
{
	return prc_connect_isid(p, url, initiator, 0);
}

int prc_connect_isid(struct prc_path *p, const char *url, const char *initiator, uint32_t isid)
{
	struct iscsi_url *u;

	p->iscsi = iscsi_create_context(initiator);
	if (!p->iscsi)
		return -1;
	u = iscsi_parse_full_url(p->iscsi, url);
	if (!u) {
		fprintf(stderr, "%s: bad URL %s: %s\n", p->label, url, iscsi_get_error(p->iscsi));
		iscsi_destroy_context(p->iscsi);
		p->iscsi = NULL;
		return -1;
	}
	iscsi_set_targetname(p->iscsi, u->target);
	iscsi_set_session_type(p->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(p->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	/* a dropped session ends the run: no silent reconnection */
	iscsi_set_noautoreconnect(p->iscsi, 1);
	iscsi_set_timeout(p->iscsi, 10);
	if (isid)
		iscsi_set_isid_random(p->iscsi, isid, 0);
	p->lun = u->lun;
	if (iscsi_full_connect_sync(p->iscsi, u->portal, u->lun)) {
		fprintf(stderr, "%s: login failed: %s\n", p->label, iscsi_get_error(p->iscsi));
		iscsi_destroy_url(u);
		iscsi_destroy_context(p->iscsi);
		p->iscsi = NULL;
		return -1;
	}
	iscsi_destroy_url(u);
	return 0;
}

void prc_disconnect(struct prc_path *p)
{
	if (!p->iscsi)
		return;
	iscsi_logout_sync(p->iscsi);
	iscsi_destroy_context(p->iscsi);
	p->iscsi = NULL;
}

long prc_outcome(const struct scsi_task *t)
{
	/* libiscsi's own statuses (cancelled, error, timeout): the session
	 * is gone */
	if (!t || t->status == SCSI_STATUS_CANCELLED || t->status == SCSI_STATUS_ERROR ||
	    t->status == SCSI_STATUS_TIMEOUT)
		return -1;
	if (t->status == SCSI_STATUS_CHECK_CONDITION)
		return (long)t->sense.key << 16 | (long)(t->sense.ascq & 0xffff);
	return t->status == SCSI_STATUS_GOOD ? 0 : PRC_STATUS(t->status);
}

struct scsi_task *prc_run(struct prc_path *p, unsigned char *cdb, int cdb_len, int dir,
			  int xfer_len, unsigned char *data_out)
{
	struct scsi_task *t = scsi_create_task(cdb_len, cdb, dir, xfer_len);
	struct iscsi_data d = {.size = (size_t)xfer_len, .data = data_out};

	if (!t)
		return NULL;
	if (!iscsi_scsi_command_sync(p->iscsi, p->lun, t, data_out ? &d : NULL)) {
		fprintf(stderr, "%s: command %02x failed at the transport: %s\n", p->label, cdb[0],
			iscsi_get_error(p->iscsi));
		scsi_free_scsi_task(t);
		return NULL;
	}
	return t;
}

static long run_outcome(struct prc_path *p, unsigned char *cdb, int cdb_len, int dir, int xfer_len,
			unsigned char *data_out)
{
	struct scsi_task *t = prc_run(p, cdb, cdb_len, dir, xfer_len, data_out);
	long r = prc_outcome(t);

	if (t)
		scsi_free_scsi_task(t);
	return r;
}

long prc_tur(struct prc_path *p)
{
	unsigned char cdb[6] = {0};

	return run_outcome(p, cdb, 6, SCSI_XFER_NONE, 0, NULL);
}

long prc_rw10(struct prc_path *p, bool write, uint32_t lba)
{
	unsigned char cdb[10] = {write ? 0x2a : 0x28}, buf[PRC_BLOCK];

	memset(buf, 0x5a, sizeof(buf));
	prc_put_be32(cdb + 2, lba);
	cdb[8] = 1;
	return run_outcome(p, cdb, 10, write ? SCSI_XFER_WRITE : SCSI_XFER_READ, PRC_BLOCK,
			   write ? buf : NULL);
}

unsigned prc_clear_ua(struct prc_path *p)
{
	unsigned first = 0;

	for (int i = 0; i < 16; i++) {
		long r = prc_tur(p);

		if (r < 0 || (r >> 16) != SCSI_SENSE_UNIT_ATTENTION)
			break;
		if (!first)
			first = (unsigned)(r & 0xffff);
	}
	return first;
}

long prc_prout_raw(struct prc_path *p, int sa, int type, const unsigned char *list, size_t len)
{
	unsigned char cdb[10] = {0x5f, (unsigned char)sa, (unsigned char)type};
	unsigned char *copy = malloc(len ? len : 1);
	long r;

	if (!copy)
		return -1;
	memcpy(copy, list, len);
	prc_put_be32(cdb + 5, (uint32_t)len);
	r = run_outcome(p, cdb, 10, SCSI_XFER_WRITE, (int)len, copy);
	free(copy);
	return r;
}

long prc_prout(struct prc_path *p, int sa, int type, uint64_t rk, uint64_t sark, int b20)
{
	unsigned char list[24] = {0};

	prc_put_be64(list, rk);
	prc_put_be64(list + 8, sark);
	list[20] = (unsigned char)b20;
	return prc_prout_raw(p, sa, type, list, sizeof(list));
}

long prc_prin(struct prc_path *p, int sa, unsigned char *buf, size_t size, long *res)
{
	unsigned char cdb[10] = {0x5e, (unsigned char)sa};
	struct scsi_task *t;
	long n = -1;

	prc_put_be16(cdb + 7, (uint16_t)size);
	t = prc_run(p, cdb, 10, SCSI_XFER_READ, (int)size, NULL);
	*res = prc_outcome(t);
	if (t && t->status == SCSI_STATUS_GOOD) {
		n = t->datain.size < (int)size ? t->datain.size : (long)size;
		memcpy(buf, t->datain.data, (size_t)n);
	}
	if (t)
		scsi_free_scsi_task(t);
	return n;
}

static int cmd_register(const char *url, const char *initiator, const char *key, const char *aptpl)
{
	struct prc_path p = {.label = "register"};
	long r;

	if (prc_connect(&p, url, initiator))
		return 2;
	prc_clear_ua(&p);
	r = prc_prout(&p, PRC_REGISTER_IGNORE, 0, 0, strtoull(key, NULL, 16),
		      strcmp(aptpl, "0") ? PRC_APTPL : 0);
	prc_check(r == 0, "%s: REGISTER AND IGNORE EXISTING KEY %s, APTPL %s", initiator, key,
		  aptpl);
	prc_disconnect(&p);
	return prc_failures ? 1 : 0;
}

static int cmd_keys(const char *url)
{
	struct prc_path p = {.label = "keys"};
	unsigned char buf[1024];
	long res, n;

	if (prc_connect(&p, url, "iqn.2026-12.org.utarget:pr-keys"))
		return 2;
	prc_clear_ua(&p);
	n = prc_prin(&p, 0, buf, sizeof(buf), &res);
	prc_disconnect(&p);
	if (n < 8)
		return 1;
	printf("keys:");
	for (long off = 8; off + 8 <= n; off += 8)
		printf(" %llx", (unsigned long long)prc_be64(buf + off));
	printf("\n");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: pr_client scenario URL_A URL_B\n"
			"       pr_client crash-loop URL JOURNAL SEED\n"
			"       pr_client crash-check URL JOURNAL\n"
			"       pr_client latency URL N\n"
			"       pr_client register URL INITIATOR KEY APTPL\n"
			"       pr_client keys URL\n"
			"       pr_client hold URL INITIATOR ISID KEY APTPL TYPE GOFILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "scenario"))
		return prc_scenario(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "crash-loop"))
		return prc_crash_loop(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "crash-check"))
		return prc_crash_check(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "latency"))
		return prc_latency(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
	if (argc == 6 && !strcmp(argv[1], "register"))
		return cmd_register(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(argv[1], "keys"))
		return cmd_keys(argv[2]);
	if (argc == 9 && !strcmp(argv[1], "hold"))
		return prc_hold(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8]);
	return usage();
}
