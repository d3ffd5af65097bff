/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core.h: objects private to the target core (lu.c, target.c, nexus.c,
 * cmd.c, ua.c, order.c, tmf.c and the SPC handlers). Fabrics and back-stores
 * never include this file.
 *
 * Locking, outermost first:
 *   target->lock   ports, ACLs, default map
 *   map->lock      LUN entries, list of nexuses using the map
 *   nexus->lock    the nexus' LUN cache
 *   lu->lock       everything in struct lu_core_state that is not atomic
 * A lock is held briefly and never across I/O or a fabric callback.
 */
#ifndef UT_SCSI_CORE_H
#define UT_SCSI_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "lib/stats.h"
#include "scsi/aca.h"
#include "scsi/lbp_threshold.h"
#include "scsi/lu.h"
#include "scsi/mode.h"
#include "scsi/order.h"
#include "scsi/scsi.h"
#include "scsi/ua.h"

/* The words of an LU's struct stats_set (lib/stats.h): per-reactor shards,
 * counted in cmd.c when a command completes, summed by scsi_lu_stats().
 * Operation classes: read (reads the medium: ORDER_READ), write (writes
 * it: CDB_F_WRITES), other. */
enum lu_stat {
	LU_ST_CMDS,	   /* commands completed */
	LU_ST_ERRORS,	   /* a status other than GOOD or CONDITION MET (not aborted) */
	LU_ST_ABORTED,	   /* aborted (task management, a reset, TAS) */
	LU_ST_BUSY,	   /* BUSY or TASK SET FULL */
	LU_ST_READ_BYTES,  /* Data-In bytes of every command */
	LU_ST_WRITE_BYTES, /* Data-Out bytes of commands that completed GOOD */
	LU_ST_STARTED,	   /* commands set up (in flight: started - completed) */
	LU_ST_CLASS_CMDS,  /* + class: commands per class */
	LU_ST_HIST = LU_ST_CLASS_CMDS + SCSI_OP_CLASSES, /* + class * STATS_HIST_WORDS */
	LU_ST_WORDS = LU_ST_HIST + SCSI_OP_CLASSES * STATS_HIST_WORDS,
};

/* The words of a target port's struct stats_set: the SCSI-MIB's target
 * port counters (RFC 4455 scsiTgtPortInCommands, ...ReadMegaBytes,
 * ...WrittenMegaBytes), counted with the LU's, summed by scsi_tport_stats(). */
enum tport_stat {
	TP_ST_CMDS,	   /* commands completed */
	TP_ST_READ_BYTES,  /* Data-In bytes */
	TP_ST_WRITE_BYTES, /* Data-Out bytes of commands that completed GOOD */
	TP_ST_WORDS,
};

static inline void stats_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

/* The parameters of the error counter log pages (SPC-4 7.3.7; log.c) that
 * the core really knows: bytes moved to and from the medium by READ and
 * WRITE, and the medium errors the back-store returned (-EIO), which the
 * target cannot correct. Relaxed atomics; LOG SELECT PCR=1 zeroes them. */
struct log_counters {
	_Atomic uint64_t read_bytes;
	_Atomic uint64_t write_bytes;
	_Atomic uint64_t verify_bytes; /* read back by VERIFY, WRITE AND VERIFY */
	_Atomic uint64_t read_uncorrected;
	_Atomic uint64_t write_uncorrected;
	_Atomic uint64_t verify_uncorrected;
	_Atomic uint64_t non_medium; /* back-store errors not of the medium */
};

/* SPC-4 7.3.18 Self-Test Results log page (log.c), written by the
 * self-tests of SEND DIAGNOSTIC (diag.c): the last SELFTEST_LOG_LEN results,
 * v[0] the newest; lu->lock. */
#define SELFTEST_LOG_LEN 20u

struct selftest_result {
	uint8_t code;		/* SELF-TEST CODE (000b: the default self-test) */
	uint8_t result;		/* SELF-TEST RESULTS */
	uint8_t segment;	/* SELF-TEST SEGMENT NUMBER of a failed segment, else 0 */
	uint16_t hours;		/* ACCUMULATED POWER ON HOURS when it ended (started, while
				 * it runs) */
	uint64_t first_failure; /* ADDRESS OF FIRST FAILURE, UINT64_MAX if none */
	uint8_t key, asc, ascq; /* sense of the failure, 0 if none */
};

struct selftest_log {
	struct selftest_result v[SELFTEST_LOG_LEN];
	unsigned n; /* entries used */
};

/* What a logical unit remembers about one I_T nexus (SAM-5 4.7: initiator
 * port + target port). Keyed by the initiator port name and the relative
 * target port identifier, so it outlives the nexus itself (the next nexus of
 * the same initiator port finds its I_T NEXUS LOSS unit attention here).
 * Owned by the LU, freed with it. */
struct lu_itn {
	struct list_node node;	  /* lu_core_state.itns */
	char *port_name;	  /* initiator port name */
	uint16_t rel_port;	  /* relative target port identifier */
	atomic_uint ua;		  /* pending unit attentions, bit (1u << enum ua_cond) */
	struct scsi_nexus *nexus; /* the live nexus (NULL after its loss); lu->lock */
	bool prevent;		  /* PREVENT ALLOW MEDIUM REMOVAL state; lu->lock */
	uint64_t last_used;	  /* for eviction of idle records; lu->lock */
	/* pr.c: the persistent reservation registration covering this I_T
	 * nexus, valid while pr_ver equals pr_state.version; lu->lock */
	struct pr_reg *pr_reg;
	unsigned pr_ver;
	/* buffer.c: this I_T nexus' echo buffer (SPC-4 6.39.10), allocated
	 * by its first echo WRITE BUFFER; lu->lock */
	uint8_t *echo;
	uint16_t echo_len;
};

/* Bound on remembered I_T nexus records per LU: records without a live nexus
 * are evicted, least recently used first, beyond it. */
#define LU_MAX_ITNS 4096u

struct alua_group;

struct lu_core_state {
	struct list_node itns; /* struct lu_itn */
	unsigned n_itns;
	uint64_t itn_clock;

	struct mode_state mode;	  /* mode.c */
	struct order_state order; /* order.c: the task set */
	struct aca_state aca;	  /* aca.c: its auto contingent allegiance */

	/* SPC-2 RESERVE/RELEASE (reserve.c): the holder, or NULL */
	_Atomic(struct lu_itn *) resv_holder;
	/* persistent reservations (pr.c, pr_priv.h) */
	struct pr_state *pr;

	/* medium state (medium.c) */
	atomic_bool stopped;	/* START STOP UNIT START=0 */
	atomic_bool no_medium;	/* ejected (removable LU) */
	unsigned prevent_count; /* I_T nexuses with PREVENT set; lu->lock */
	/* SBC-4 Start-Stop Cycle Counter log page (log.c): stopped -> started
	 * transitions and medium loads after an unload, since the LU was
	 * created; lu->lock to change, relaxed loads to read */
	_Atomic uint32_t start_stop_cycles;
	_Atomic uint32_t load_unload_cycles;

	struct selftest_log selftest; /* diag.c, log.c; lu->lock */

	/* buffer.c: the data buffer of READ/WRITE BUFFER (BUFFER ID 0),
	 * allocated by the first WRITE BUFFER that writes it; lu->lock */
	uint8_t *data_buf;

	struct stats_set stats;		    /* enum lu_stat words (cmd.c, scsi_lu_stats()) */
	struct log_counters log;	    /* log.c */
	struct lbp_threshold_state lbp_thr; /* lbp_threshold.c */
	/* lu_capacity_poll(): when the medium's size is read next */
	_Atomic uint64_t capacity_poll_ns;
};

/* ---- targets, ports, maps, nexus ---- */
struct lun_entry {
	uint32_t lun;
	bool read_only;
	struct scsi_lu *lu;
};

struct scsi_lun_map {
	atomic_int refs;
	atomic_uint gen; /* bumped on every change (nexus caches compare) */
	pthread_mutex_t lock;
	struct lun_entry *v; /* sorted by lun */
	unsigned n, cap;
	struct list_node nexuses; /* struct scsi_nexus.map_node */
};

struct tgt_acl {
	struct list_node node;
	char *initiator_name;
	struct scsi_lun_map *map;
};

struct scsi_target {
	char *name;
	pthread_mutex_t lock;
	struct list_node tports;
	struct list_node retired_tports; /* scsi_tport_retire(): freed with the target */
	struct list_node acls;
	struct scsi_lun_map *default_map;
	bool demo;
	struct list_node node; /* global target list */
};

struct scsi_tport {
	struct list_node node; /* target->tports */
	struct scsi_target *target;
	char *name;
	uint16_t rel_port_id;
	uint16_t port_group;
	struct stats_set stats;		     /* enum tport_stat */
	struct alua_group *alua;	     /* its target port group (alua.c; reference held) */
	struct alua_group **alua_moved_from; /* groups it left (references held, alua.c) */
	unsigned nalua_moved;
};

/* one cached LUN of a nexus (nexus.c) */
struct nexus_lun {
	unsigned gen; /* map generation it was resolved in; 0 = empty */
	bool read_only;
	struct scsi_lu *lu; /* reference held; NULL = not mapped */
	struct lu_itn *itn;
};

struct scsi_nexus {
	struct scsi_tport *tport;
	struct scsi_lun_map *map;
	struct list_node map_node; /* map->nexuses */
	char *initiator_name;
	char *port_name;
	uint8_t *transport_id; /* SPC-4 7.6.4 TransportID, kept for PERSISTENT RESERVE */
	size_t transport_id_len;
	const struct scsi_fabric_ops *ops;
	void *fabric_priv;
	bool target_reset; /* scsi_nexus_info.target_reset */
	bool query_tmfs;   /* scsi_nexus_info.query_tmfs */
	atomic_bool lost;

	pthread_mutex_t lock;	 /* cache */
	struct nexus_lun *cache; /* indexed by LUN (0..16383), grown on demand */
	unsigned cache_n;
};

/* Resolve the LUN of a command for this nexus: LU reference (put by the
 * caller), its I_T nexus record and the mapping's write protection. Returns
 * -ENOENT (not mapped) or -ENOMEM. */
int nexus_resolve(struct scsi_nexus *n, uint64_t lun, struct scsi_lu **lu, struct lu_itn **itn,
		  bool *read_only);
/* The same for the logical unit of the nexus' LUN map that has the
 * Device Identification VPD designator desig (EXTENDED COPY's copy targets:
 * only the LUs this nexus can see, SPC-4 5.16 / CVE-2020-28374). -ENOENT
 * (none in the map) or -ENOMEM. */
int nexus_resolve_designator(struct scsi_nexus *n, const uint8_t *desig, size_t len,
			     struct scsi_lu **lu, struct lu_itn **itn, bool *read_only);
/* Map lookup (map->lock held): LU reference and the mapping's write
 * protection, or NULL. */
struct scsi_lu *lun_map_lookup_locked(struct scsi_lun_map *m, uint32_t lun, bool *read_only);
/* Calls fn for every LU of map m, each once, with a reference held during
 * the call and no lock held (a target reset through one nexus). */
void lun_map_for_each_lu(struct scsi_lun_map *m, void (*fn)(struct scsi_lu *lu, void *arg),
			 void *arg);
/* Calls fn for every LU reachable through the target's LUN maps (default map
 * and ACL maps), each once, with a reference held during the call. */
void target_for_each_lu(struct scsi_target *t, void (*fn)(struct scsi_lu *lu, void *arg),
			void *arg);
/* The nexus' map entries: calls fn for every mapped LUN (map lock held: fn
 * must not block or take target/map locks). */
void lun_map_for_each(struct scsi_lun_map *m, void (*fn)(const struct lun_entry *e, void *arg),
		      void *arg);
/* LUN from the SAM-5 8-byte LUN field (peripheral or flat addressing, single
 * level); -1 when not a supported encoding. And back. */
int64_t lun_decode(uint64_t lun);
uint64_t lun_encode(uint32_t lun);
/* REPORT LUNS well-known LUN (SPC-4 8.2). */
#define LUN_WLUN_REPORT_LUNS 0xc101000000000000ull

/* lu.c */
/* The I_T nexus record of (port name, rel port) at lu, created with a POWER
 * ON unit attention if new. Call with lu->lock held. NULL on ENOMEM. */
struct lu_itn *lu_itn_get_locked(struct scsi_lu *lu, const char *port_name, uint16_t rel_port);
void lu_itn_attach(struct scsi_lu *lu, struct lu_itn *itn, struct scsi_nexus *n);
void lu_itn_detach(struct scsi_lu *lu, struct lu_itn *itn, struct scsi_nexus *n);
struct lu_core_state *lu_core(struct scsi_lu *lu);
/* Read the size of a medium with bs_ops.medium_size again when
 * LU_CAPACITY_POLL_NS have passed; a change takes effect at once. */
#define LU_CAPACITY_POLL_NS 1000000000ull
void lu_capacity_poll(struct scsi_lu *lu, uint64_t now_ns);
/* Effective write protection as seen by an I_T nexus mapping (for the MODE
 * SENSE WP bit). */
bool lu_wp(struct scsi_lu *lu, bool map_read_only);

/* All live logical units, for tests and statistics. */
unsigned scsi_lu_count(void);

/* cmd.c: priv.msg handler (TMF aborts, start of unblocked tasks) */
void cmd_kick(struct reactor_msg *m);

/* tmf.c: an aborted task has finished (called by cmd.c on its reactor). */
void tmf_task_done(struct scsi_tmf *tmf);
/* Abort every task of the nexus at every LU of its map, as for I_T nexus loss
 * (tmf may be NULL). */
void tmf_abort_nexus_tasks(struct scsi_nexus *n, struct scsi_tmf *tmf);
/* Logical unit reset (SAM-5 6.3.2) side effects: reservation, PREVENT, UA. */
void tmf_lu_reset_state(struct scsi_lu *lu);
/* PERSISTENT RESERVE OUT PREEMPT AND ABORT (SPC-4 5.13.11.2.4): mark aborted
 * every task of lu whose I_T nexus record satisfies match(), except keep
 * (lu->lock held). Each marked task counts in tmf->priv.pending and ends
 * with tmf_task_done(tmf); tasks of other nexuses than tmf->nexus follow the
 * Control mode page TAS bit. Returns the number of tasks marked. */
unsigned tmf_abort_matching_locked(struct scsi_lu *lu, struct scsi_tmf *tmf,
				   const struct scsi_cmd *keep,
				   bool (*match)(struct lu_itn *itn, void *arg), void *arg);

/* reserve.c */
/* SPC-2 reservation conflict check (SPC-2 5.5.1) for a command without
 * CDB_F_SPC2_RESV_OK. */
bool resv_conflict(struct scsi_lu *lu, const struct lu_itn *itn);
/* Release the SPC-2 reservation (LU reset, target reset, holder's nexus
 * loss); with lu->lock held. */
void resv_clear_locked(struct scsi_lu *lu);
void resv_release_itn_locked(struct scsi_lu *lu, struct lu_itn *itn);

/* buffer.c: free the echo buffer of an I_T nexus record, the data buffer
 * of a logical unit (when their owner goes) */
void buffer_itn_free(struct lu_itn *itn);
void buffer_lu_free(struct scsi_lu *lu);
/* log.c: count a READ or WRITE's bytes moved to or from the medium, the
 * bytes a VERIFY read back, and a medium error the back-store reported to
 * cmd (a read of VERIFY or WRITE AND VERIFY counts as a verify error); the
 * error counter log pages. */
void log_count_bytes(struct scsi_lu *lu, bool write, uint64_t bytes);
void log_count_verify_bytes(struct scsi_lu *lu, uint64_t bytes);
void log_count_medium_error(struct scsi_lu *lu, const struct scsi_cmd *cmd, bool write);
/* log.c: a back-store error that is not the medium's (the non-medium error
 * log page) */
void log_count_non_medium_error(struct scsi_lu *lu);

/* medium.c */
/* NOT READY reason for command d (no medium, or stopped and d accesses the
 * medium), or SENSE_OK. */
enum sense_reason medium_check(struct scsi_lu *lu, const struct cdb_desc *d);
/* I_T nexus loss / LU reset: clear PREVENT for itn (lu->lock held). */
void medium_prevent_clear_locked(struct scsi_lu *lu, struct lu_itn *itn);

#endif
