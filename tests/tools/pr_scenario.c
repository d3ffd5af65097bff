/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_scenario.c: two initiators (A through URL_A, B through URL_B: two
 * sessions, two initiator names, and with two portals two target ports)
 * through the life of a persistent reservation:
 *   1. register (REGISTER AND IGNORE EXISTING KEY) both; READ FULL STATUS
 *      shows each I_T nexus with its TransportID and relative target port;
 *   2. A reserves each of the six types in turn: B's reads and writes
 *      succeed or conflict as SPC-4 table 58 says, B's RESERVE conflicts
 *      (except all registrants), releasing a registrants only/all
 *      registrants one tells B (RESERVATIONS RELEASED);
 *   3. conflict: under Exclusive Access B cannot read, write or reserve;
 *   4. PREEMPT AND ABORT with TAS 1: A has a 1 MiB WRITE waiting for its
 *      Data-Out (A does not answer the R2T) and a START STOP UNIT and two
 *      READs queued behind it; B preempts A: the PR OUT completes, A's four
 *      commands end with TASK ABORTED, A's next command gets REGISTRATIONS
 *      PREEMPTED and A can no longer write;
 *   5. the same with TAS 0: the four commands end without a response, A
 *      gets REGISTRATIONS PREEMPTED then COMMANDS CLEARED BY ANOTHER
 *      INITIATOR;
 *   6. REGISTER AND MOVE: B moves the reservation to A's registered I_T
 *      nexus and unregisters (UNREG); A moves it on to B's I_T nexus,
 *      unregistered until then, named by its TransportID and relative
 *      target port;
 *   7. CLEAR. */
#include "pr_client.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IN_A "iqn.2026-12.org.utarget:pr-a"
#define IN_B "iqn.2026-12.org.utarget:pr-b"

/* one READ FULL STATUS descriptor (SPC-4 6.15.5) */
struct fs_desc {
	uint64_t key;
	bool all_tg_pt, holder;
	int type;
	uint16_t rtpi;
	unsigned char tid[256];
	size_t tid_len;
};

static int full_status(struct prc_path *p, struct fs_desc *v, int max)
{
	unsigned char buf[4096];
	long res, n = prc_prin(p, 3, buf, sizeof(buf), &res);
	int k = 0;

	if (n < 8)
		return -1;
	for (long off = 8; off + 24 <= n && k < max; k++) {
		size_t tl = prc_be32(buf + off + 20);

		if (off + 24 + (long)tl > n || tl > sizeof(v[k].tid))
			return -1;
		v[k].key = prc_be64(buf + off);
		v[k].all_tg_pt = buf[off + 12] & 0x02;
		v[k].holder = buf[off + 12] & 0x01;
		v[k].type = buf[off + 13] & 0x0f;
		v[k].rtpi = prc_be16(buf + off + 18);
		memcpy(v[k].tid, buf + off + 24, tl);
		v[k].tid_len = tl;
		off += 24 + (long)tl;
	}
	return k;
}

static const struct fs_desc *find_name(const struct fs_desc *v, int n, const char *name)
{
	size_t l = strlen(name);

	for (int i = 0; i < n; i++)
		if (v[i].tid_len > 4 + l && !memcmp(v[i].tid + 4, name, l) &&
		    (v[i].tid[4 + l] == ',' || v[i].tid[4 + l] == 0))
			return &v[i];
	return NULL;
}

static int read_keys(struct prc_path *p, uint64_t *keys, int max)
{
	unsigned char buf[256];
	long res, n = prc_prin(p, 0, buf, sizeof(buf), &res);
	int k = 0;

	if (n < 8)
		return -1;
	for (long off = 8; off + 8 <= n && k < max; off += 8)
		keys[k++] = prc_be64(buf + off);
	return k;
}

/* READ RESERVATION: the type (0 none), the key in *key */
static int read_resv(struct prc_path *p, uint64_t *key)
{
	unsigned char buf[32];
	long res, n = prc_prin(p, 1, buf, sizeof(buf), &res);

	if (n < 8)
		return -1;
	if (prc_be32(buf + 4) == 0 || n < 24)
		return 0;
	*key = prc_be64(buf + 8);
	return buf[21] & 0x0f;
}

static long set_tas(struct prc_path *p, bool tas)
{
	unsigned char cdb[6] = {0x15, 0x10, 0, 0, 16, 0};
	unsigned char data[16] = {
	    0, 0, 0,	0,    0x0a, 0x0a, 0x02, 0x10, 0x00, (unsigned char)(tas ? 0x40 : 0),
	    0, 0, 0xff, 0xff, 0,    0};
	struct scsi_task *t = prc_run(p, cdb, 6, SCSI_XFER_WRITE, 16, data);
	long r = prc_outcome(t);

	if (t)
		scsi_free_scsi_task(t);
	return r;
}

/* REGISTER AND MOVE (SPC-4 6.16.4) to the I_T nexus of TransportID tid
 * through target port rtpi */
static long register_and_move(struct prc_path *p, int type, uint64_t rk, uint64_t sark, bool unreg,
			      uint16_t rtpi, const struct fs_desc *d)
{
	unsigned char list[24 + 256] = {0};

	prc_put_be64(list, rk);
	prc_put_be64(list + 8, sark);
	list[17] = unreg ? 0x02 : 0x00;
	prc_put_be16(list + 18, rtpi);
	prc_put_be32(list + 20, (uint32_t)d->tid_len);
	memcpy(list + 24, d->tid, d->tid_len);
	return prc_prout_raw(p, PRC_REGISTER_AND_MOVE, type, list, 24 + d->tid_len);
}

/* ---- commands left queued at the target (step 4, 5) ---- */

struct victim {
	const char *what;
	struct scsi_task *task;
	bool done;
	int status;
};

static void victim_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct victim *v = priv;

	(void)iscsi;
	(void)command_data;
	v->done = true;
	v->status = status;
}

#define NVICTIMS 4
static unsigned char big_write[1 << 20];

/* A 1 MiB WRITE (more than FirstBurstLength: the rest waits for A to
 * answer an R2T, which it does not while it is not serviced), a START STOP
 * UNIT (START 1: a barrier, waits for the WRITE) and two READs behind it.
 * Sends them without reading anything from the target. */
static int queue_victims(struct prc_path *p, struct victim *v)
{
	static unsigned char wr[10] = {0x2a, 0, 0, 0, 0x10, 0, 0, 0x08, 0, 0};
	static unsigned char ssu[6] = {0x1b, 0, 0, 0, 0x01, 0};
	static unsigned char rd[10] = {0x28, 0, 0, 0, 0x10, 0, 0, 0, 1, 0};
	struct iscsi_data d = {.size = sizeof(big_write), .data = big_write};
	double end;

	memset(v, 0, sizeof(*v) * NVICTIMS);
	v[0] = (struct victim){.what = "WRITE(10) 1 MiB waiting for Data-Out"};
	v[0].task = scsi_create_task(10, wr, SCSI_XFER_WRITE, sizeof(big_write));
	v[1] = (struct victim){.what = "START STOP UNIT queued behind it"};
	v[1].task = scsi_create_task(6, ssu, SCSI_XFER_NONE, 0);
	for (int i = 2; i < NVICTIMS; i++) {
		v[i] = (struct victim){.what = "READ(10) queued behind it"};
		v[i].task = scsi_create_task(10, rd, SCSI_XFER_READ, PRC_BLOCK);
	}
	for (int i = 0; i < NVICTIMS; i++) {
		if (!v[i].task || iscsi_scsi_command_async(p->iscsi, p->lun, v[i].task, victim_cb,
							   i == 0 ? &d : NULL, &v[i]))
			return -1;
	}
	/* write out what is queued, read nothing */
	end = prc_now() + 5;
	while (iscsi_out_queue_length(p->iscsi) > 0 && prc_now() < end) {
		struct pollfd pfd = {.fd = iscsi_get_fd(p->iscsi), .events = POLLOUT};

		if (poll(&pfd, 1, 100) > 0 && iscsi_service(p->iscsi, POLLOUT) < 0)
			return -1;
	}
	usleep(300 * 1000); /* let the target take them in */
	return iscsi_out_queue_length(p->iscsi) > 0 ? -1 : 0;
}

/* Service p until every victim is done or `seconds` passed. */
static int service(struct prc_path *p, struct victim *v, double seconds)
{
	double end = prc_now() + seconds;
	int done = 0;

	while (prc_now() < end) {
		struct pollfd pfd = {.fd = iscsi_get_fd(p->iscsi),
				     .events = (short)iscsi_which_events(p->iscsi)};

		done = 0;
		for (int i = 0; i < NVICTIMS; i++)
			done += v[i].done;
		if (done == NVICTIMS)
			break;
		if (poll(&pfd, 1, 50) < 0 || iscsi_service(p->iscsi, pfd.revents) < 0)
			return -1;
	}
	return done;
}

static void free_victims(struct prc_path *p, struct victim *v)
{
	int pending = 0;

	for (int i = 0; i < NVICTIMS; i++)
		pending += v[i].task && !v[i].done;
	/* TAS 0: the target never answers them; libiscsi ends them here */
	if (pending)
		iscsi_scsi_cancel_all_tasks(p->iscsi);
	for (int i = 0; i < NVICTIMS; i++)
		if (v[i].task)
			scsi_free_scsi_task(v[i].task);
}

static void preempt_and_abort(struct prc_path *a, struct prc_path *b, bool tas, uint64_t ka,
			      uint64_t kb)
{
	struct victim v[NVICTIMS];
	uint64_t keys[8], key = 0;
	unsigned ua;
	double t0;
	int done;

	prc_check(set_tas(a, tas) == 0, "MODE SELECT: Control mode page TAS %d", tas);
	prc_clear_ua(b);
	prc_check(queue_victims(a, v) == 0, "A: %d commands queued at the target", NVICTIMS);
	t0 = prc_now();
	prc_check(prc_prout(b, PRC_PREEMPT_AND_ABORT, PRC_EA, kb, ka, 0) == 0,
		  "B: PREEMPT AND ABORT of A's key completes GOOD (%.0f ms)",
		  (prc_now() - t0) * 1e3);
	if (tas) {
		done = service(a, v, 5);
		prc_check(done == NVICTIMS, "A: all %d queued commands answered", NVICTIMS);
		for (int i = 0; i < NVICTIMS; i++)
			prc_check(v[i].done && v[i].status == SCSI_STATUS_TASK_ABORTED,
				  "A: %s: TASK ABORTED (status %02x)", v[i].what, v[i].status);
	} else {
		done = service(a, v, 1);
		prc_check(done == 0, "A: the %d aborted commands get no response (TAS 0): %d did",
			  NVICTIMS, done);
	}
	ua = (unsigned)(prc_tur(a) & 0xffff);
	prc_check(ua == 0x2a05, "A: unit attention REGISTRATIONS PREEMPTED (%04x)", ua);
	if (!tas) {
		ua = (unsigned)(prc_tur(a) & 0xffff);
		prc_check(ua == 0x2f00,
			  "A: unit attention COMMANDS CLEARED BY ANOTHER INITIATOR (%04x)", ua);
	}
	free_victims(a, v);
	prc_check(prc_rw10(a, true, 1) == PRC_CONFLICT, "A: WRITE now RESERVATION CONFLICT");
	prc_check(read_keys(b, keys, 8) == 1 && keys[0] == kb, "READ KEYS: only B's key left");
	prc_check(read_resv(b, &key) == PRC_EA && key == kb,
		  "READ RESERVATION: B holds Exclusive Access");
}

/* SPC-4 table 58 for a registered non-holder, per type */
static const struct {
	int type;
	const char *name;
	bool b_read, b_write, all;
} types[] = {
    {PRC_WE, "Write Exclusive", true, false, false},
    {PRC_EA, "Exclusive Access", false, false, false},
    {PRC_WE_RO, "Write Exclusive - Registrants Only", true, true, false},
    {PRC_EA_RO, "Exclusive Access - Registrants Only", true, true, false},
    {PRC_WE_AR, "Write Exclusive - All Registrants", true, true, true},
    {PRC_EA_AR, "Exclusive Access - All Registrants", true, true, true},
};

static void each_type(struct prc_path *a, struct prc_path *b, uint64_t ka, uint64_t kb)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint64_t key = 1;
		long r;
		unsigned ua;

		prc_check(prc_prout(a, PRC_RESERVE, types[i].type, ka, 0, 0) == 0, "A: RESERVE %s",
			  types[i].name);
		prc_check(read_resv(b, &key) == types[i].type && key == (types[i].all ? 0 : ka),
			  "READ RESERVATION through B: %s, key %s", types[i].name,
			  types[i].all ? "0 (all registrants)" : "A's");
		r = prc_rw10(b, false, 1);
		prc_check(r == (types[i].b_read ? 0 : PRC_CONFLICT), "B (registered): READ %s",
			  types[i].b_read ? "GOOD" : "RESERVATION CONFLICT");
		r = prc_rw10(b, true, 1);
		prc_check(r == (types[i].b_write ? 0 : PRC_CONFLICT), "B (registered): WRITE %s",
			  types[i].b_write ? "GOOD" : "RESERVATION CONFLICT");
		r = prc_prout(b, PRC_RESERVE, types[i].type, kb, 0, 0);
		prc_check(r == (types[i].all ? 0 : PRC_CONFLICT), "B: RESERVE %s",
			  types[i].all ? "GOOD (a holder already)" : "RESERVATION CONFLICT");
		prc_check(prc_prout(a, PRC_RELEASE, types[i].type, ka, 0, 0) == 0, "A: RELEASE");
		ua = prc_clear_ua(b);
		prc_check(ua == (types[i].type >= PRC_WE_RO ? 0x2a04u : 0u),
			  "B: unit attention %04x after the release", ua);
	}
}

static void register_and_move_steps(struct prc_path *a, struct prc_path *b, uint64_t kb)
{
	const uint64_t ka3 = 0xa3a3a3a3a3a3a3a3ull, kb2 = 0xb2b2b2b2b2b2b2b2ull;
	struct fs_desc fs[8], da, db;
	uint64_t keys[8], key = 0;
	int n;

	prc_check(prc_prout(a, PRC_REGISTER_IGNORE, 0, 0, ka3, 0) == 0, "A: registers again");
	n = full_status(b, fs, 8);
	prc_check(n == 2 && find_name(fs, n, IN_A) && find_name(fs, n, IN_B),
		  "READ FULL STATUS: both I_T nexuses");
	if (n != 2 || !find_name(fs, n, IN_A) || !find_name(fs, n, IN_B))
		return;
	da = *find_name(fs, n, IN_A);
	db = *find_name(fs, n, IN_B);
	prc_check(db.holder && db.type == PRC_EA && !da.holder, "B holds it, A does not");
	prc_check(da.tid[0] == 0x45 && db.tid[0] == 0x45,
		  "iSCSI TransportIDs with the ISID (format 01b)");
	/* B -> A (registered), B unregisters */
	prc_check(register_and_move(b, PRC_EA, kb, 0x1111, true, da.rtpi, &da) == 0,
		  "B: REGISTER AND MOVE to A's I_T nexus (target port %u), UNREG", da.rtpi);
	prc_check(read_resv(a, &key) == PRC_EA && key == ka3,
		  "READ RESERVATION: A holds it with its own key");
	prc_check(read_keys(a, keys, 8) == 1 && keys[0] == ka3, "READ KEYS: B unregistered");
	prc_check(prc_rw10(a, true, 1) == 0, "A: WRITE GOOD");
	prc_clear_ua(b);
	prc_check(prc_rw10(b, true, 1) == PRC_CONFLICT, "B: WRITE RESERVATION CONFLICT");
	/* A -> B (unregistered: registered by the move with the SARK) */
	prc_check(register_and_move(a, PRC_WE, ka3, kb2, false, db.rtpi, &db) == 0,
		  "A: REGISTER AND MOVE to B's unregistered I_T nexus (target port %u)", db.rtpi);
	prc_check(read_resv(a, &key) == PRC_WE && key == kb2,
		  "READ RESERVATION: B holds Write Exclusive with the new key");
	prc_check(read_keys(a, keys, 8) == 2, "READ KEYS: A and B");
	prc_check(prc_rw10(b, true, 1) == 0, "B: WRITE GOOD");
	prc_check(prc_rw10(a, true, 1) == PRC_CONFLICT, "A: WRITE RESERVATION CONFLICT");
	prc_check(prc_rw10(a, false, 1) == 0, "A: READ GOOD");
	prc_check(prc_prout(b, PRC_CLEAR, 0, kb2, 0, 0) == 0, "B: CLEAR");
	prc_check(read_keys(b, keys, 8) == 0, "READ KEYS: none");
}

int prc_scenario(const char *url_a, const char *url_b)
{
	struct prc_path a = {.label = "A"}, b = {.label = "B"};
	const uint64_t ka = 0xa1a1a1a1a1a1a1a1ull, kb = 0xb1b1b1b1b1b1b1b1ull;
	const uint64_t ka2 = 0xa2a2a2a2a2a2a2a2ull;
	uint64_t keys[8];
	struct fs_desc fs[8];
	int n;

	if (prc_connect(&a, url_a, IN_A) || prc_connect(&b, url_b, IN_B))
		return 2;
	prc_clear_ua(&a);
	prc_clear_ua(&b);
	/* a clean start */
	prc_check(prc_prout(&a, PRC_REGISTER_IGNORE, 0, 0, ka, 0) == 0 &&
		      prc_prout(&a, PRC_CLEAR, 0, ka, 0, 0) == 0,
		  "start: no registration");
	prc_clear_ua(&b);

	/* 1 */
	prc_check(prc_prout(&a, PRC_REGISTER_IGNORE, 0, 0, ka, 0) == 0, "A: register");
	prc_check(prc_prout(&b, PRC_REGISTER_IGNORE, 0, 0, kb, 0) == 0, "B: register");
	prc_check(read_keys(&a, keys, 8) == 2, "READ KEYS: two keys");
	n = full_status(&a, fs, 8);
	prc_check(n == 2 && find_name(fs, n, IN_A) && find_name(fs, n, IN_B) &&
		      find_name(fs, n, IN_A)->key == ka && find_name(fs, n, IN_B)->key == kb,
		  "READ FULL STATUS: A's and B's keys with their TransportIDs");
	if (n == 2 && find_name(fs, n, IN_A) && find_name(fs, n, IN_B))
		printf("info: A through target port %u, B through target port %u\n",
		       find_name(fs, n, IN_A)->rtpi, find_name(fs, n, IN_B)->rtpi);
	/* 2 */
	each_type(&a, &b, ka, kb);
	/* 3 */
	prc_check(prc_prout(&a, PRC_RESERVE, PRC_EA, ka, 0, 0) == 0, "A: RESERVE Exclusive Access");
	prc_check(prc_rw10(&b, true, 1) == PRC_CONFLICT, "conflict: B WRITE");
	prc_check(prc_rw10(&b, false, 1) == PRC_CONFLICT, "conflict: B READ");
	prc_check(prc_prout(&b, PRC_RESERVE, PRC_EA, kb, 0, 0) == PRC_CONFLICT,
		  "conflict: B RESERVE");
	prc_check(prc_prout(&b, PRC_RESERVE, PRC_EA, 0x123, 0, 0) == PRC_CONFLICT,
		  "conflict: B with a wrong key");
	prc_check(prc_rw10(&a, true, 1) == 0, "A (holder): WRITE GOOD");
	/* 4: A holds EA */
	preempt_and_abort(&a, &b, true, ka, kb);
	/* 5: A holds Write Exclusive again */
	prc_check(prc_prout(&b, PRC_RELEASE, PRC_EA, kb, 0, 0) == 0, "B: RELEASE");
	prc_clear_ua(&a);
	prc_check(prc_prout(&a, PRC_REGISTER_IGNORE, 0, 0, ka2, 0) == 0 &&
		      prc_prout(&a, PRC_RESERVE, PRC_WE, ka2, 0, 0) == 0,
		  "A: registers and reserves Write Exclusive");
	preempt_and_abort(&a, &b, false, ka2, kb);
	/* 6, 7 */
	register_and_move_steps(&a, &b, kb);
	prc_clear_ua(&a);
	prc_clear_ua(&b);
	prc_disconnect(&a);
	prc_disconnect(&b);
	printf("%s: %d check(s) failed\n", prc_failures ? "FAIL" : "PASS", prc_failures);
	return prc_failures ? 1 : 0;
}
