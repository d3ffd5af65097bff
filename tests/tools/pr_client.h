/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_client.h: a persistent reservation test initiator over libiscsi
 * (tests/integration/pr_*.sh). pr_client.c: sessions, commands, PR OUT/IN
 * helpers and the command line; pr_scenario.c: two initiators through
 * register, reserve (each type), conflict, preempt-and-abort and
 * register-and-move; pr_crash.c: the APTPL crash-test loop and its
 * checker, and the PR OUT latency measurement; pr_hold.c: a registered
 * session held while the control API changes its reservations. */
#ifndef UT_TOOLS_PR_CLIENT_H
#define UT_TOOLS_PR_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define PRC_BLOCK 512

struct prc_path {
	const char *label;
	struct iscsi_context *iscsi;
	int lun;
};

/* PERSISTENT RESERVE OUT service actions and types (SPC-4 6.16) */
enum {
	PRC_REGISTER = 0,
	PRC_RESERVE,
	PRC_RELEASE,
	PRC_CLEAR,
	PRC_PREEMPT,
	PRC_PREEMPT_AND_ABORT,
	PRC_REGISTER_IGNORE,
	PRC_REGISTER_AND_MOVE,
};
enum { PRC_WE = 1, PRC_EA = 3, PRC_WE_RO = 5, PRC_EA_RO = 6, PRC_WE_AR = 7, PRC_EA_AR = 8 };
#define PRC_APTPL 0x01 /* parameter list byte 20 */

/* The result of a command: 0 GOOD; 0xKKAAQQ for CHECK CONDITION (sense
 * key, ASC, ASCQ); 0x1000000 | status for other statuses; -1 when the
 * transport failed (the session is gone). */
#define PRC_STATUS(s) (0x1000000L | (s))
#define PRC_CONFLICT  PRC_STATUS(SCSI_STATUS_RESERVATION_CONFLICT)

extern int prc_failures;
void prc_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int prc_connect(struct prc_path *p, const char *url, const char *initiator);
/* With a fixed ISID (non-zero, 24 bits of "random" format, RFC 7143
 * 10.12.5): the same initiator port on every login, as an initiator that
 * reconnects after a target restart presents it (registrations are per
 * initiator port). */
int prc_connect_isid(struct prc_path *p, const char *url, const char *initiator, uint32_t isid);
void prc_disconnect(struct prc_path *p);
long prc_outcome(const struct scsi_task *t);
/* Run a CDB (dir SCSI_XFER_*; data_out for writes); the task (NULL on a
 * transport failure) is the caller's to free. */
struct scsi_task *prc_run(struct prc_path *p, unsigned char *cdb, int cdb_len, int dir,
			  int xfer_len, unsigned char *data_out);
long prc_tur(struct prc_path *p);
long prc_rw10(struct prc_path *p, bool write, uint32_t lba);
/* TEST UNIT READY until no unit attention is left; the ASC/ASCQ of the
 * first one (0 when none) */
unsigned prc_clear_ua(struct prc_path *p);

/* PERSISTENT RESERVE OUT with list[0..len); the basic 24-byte list. */
long prc_prout_raw(struct prc_path *p, int sa, int type, const unsigned char *list, size_t len);
long prc_prout(struct prc_path *p, int sa, int type, uint64_t rk, uint64_t sark, int b20);
/* PERSISTENT RESERVE IN into buf (size bytes); its length or -1. */
long prc_prin(struct prc_path *p, int sa, unsigned char *buf, size_t size, long *res);

void prc_put_be16(unsigned char *p, uint16_t v);
void prc_put_be32(unsigned char *p, uint32_t v);
void prc_put_be64(unsigned char *p, uint64_t v);
uint16_t prc_be16(const unsigned char *p);
uint32_t prc_be32(const unsigned char *p);
uint64_t prc_be64(const unsigned char *p);
double prc_now(void);

/* pr_scenario.c */
int prc_scenario(const char *url_a, const char *url_b);
/* pr_crash.c */
int prc_crash_loop(const char *url, const char *journal, unsigned seed);
int prc_crash_check(const char *url, const char *journal);
int prc_latency(const char *url, unsigned n);
/* pr_hold.c: a registered session kept until a file exists, then its unit
 * attention, keys and reservation */
int prc_hold(const char *url, const char *initiator, const char *isid, const char *key,
	     const char *aptpl, const char *type, const char *gofile);

#endif
