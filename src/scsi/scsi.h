/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scsi.h: the SCSI target core's interface, for fabrics (iSCSI, loop, ...)
 * and for the config layer. Fabrics move CDBs, data and status; they never
 * interpret a CDB. The core never sees a PDU or a socket.
 *
 * Objects (see docs/architecture.md):
 *   scsi_lu      logical unit: device server over one back-store (struct bs_dev)
 *   scsi_target  SCSI target device: target ports, LUN maps, initiator ACLs
 *   scsi_tport   target port (relative target port identifier, ALUA group)
 *   scsi_lun_map LUN -> logical unit (+ per-mapping write protect)
 *   scsi_nexus   I_T nexus: one initiator port through one target port
 *   scsi_cmd     one task, embedded in the fabric's own task structure
 *   scsi_tmf     one task management function
 *
 * Life of a command, as the fabric sees it:
 *   fill the "fabric" fields; scsi_cmd_setup(cmd)
 *     -> cmd->write_len bytes of Data-Out are wanted at cmd->buf (0: none;
 *        then discard whatever Data-Out the initiator sends)
 *   place the Data-Out at cmd->buf[0 .. write_len)
 *   scsi_cmd_exec(cmd)
 *   ... fops->cmd_done(cmd) on cmd->reactor: send data_in_len bytes at
 *       scsi_cmd_data_in(cmd) (buf, or memory lent: lend_ok)
 *       as Data-In, then status/sense/residual (unless suppress_response)
 *   scsi_cmd_release(cmd) once the fabric no longer needs buf.
 * scsi_cmd_setup() never fails: an error found there (bad LUN, bad CDB,
 * unit attention, reservation conflict, ...) sets write_len = 0 and the
 * command completes with that error when the fabric calls scsi_cmd_exec().
 */
#ifndef UT_SCSI_H
#define UT_SCSI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/list.h"
#include "lib/reactor.h"
#include "lib/stats.h"
#include "scsi/bs.h"
#include "scsi/sense.h"

#define SCSI_MAX_CDB 32

struct scsi_lu;
struct scsi_target;
struct scsi_tport;
struct scsi_lun_map;
struct scsi_nexus;
struct scsi_cmd;
struct scsi_tmf;

/* SAM-5 task attributes (fabrics map their wire encoding onto these). */
enum scsi_task_attr {
	SCSI_ATTR_SIMPLE = 0,
	SCSI_ATTR_ORDERED = 1,
	SCSI_ATTR_HEAD_OF_QUEUE = 2,
	SCSI_ATTR_ACA = 3,
};

/* Data direction, from the initiator's point of view of the data. */
enum scsi_dir {
	SCSI_DIR_NONE = 0,
	SCSI_DIR_READ = 1,  /* Data-In: device -> initiator */
	SCSI_DIR_WRITE = 2, /* Data-Out: initiator -> device */
	SCSI_DIR_BIDI = 3,
};

enum scsi_resid {
	SCSI_RESID_NONE = 0,
	SCSI_RESID_UNDERFLOW, /* fewer bytes moved than Expected Data Transfer Length */
	SCSI_RESID_OVERFLOW,  /* the command wanted more than Expected Data Transfer Length */
};

/* Hooks a fabric gives the core. All run on the reactor named in the
 * command/TMF. */
struct scsi_fabric_ops {
	const char *name;
	/* The command is finished: status, sense, resid and data_in_len are
	 * valid. Send Data-In + status (collapsed where the protocol allows),
	 * then call scsi_cmd_release(). With suppress_response set (aborted
	 * task), send nothing and release. */
	void (*cmd_done)(struct scsi_cmd *cmd);
	/* The core aborted a command the fabric holds between scsi_cmd_setup()
	 * and scsi_cmd_exec() (waiting for Data-Out). Stop collecting data and
	 * call scsi_cmd_exec() (it completes as aborted). */
	void (*cmd_abort_pending)(struct scsi_cmd *cmd);
	/* The TMF finished; tmf->response is valid. */
	void (*tmf_done)(struct scsi_tmf *tmf);
};

#include "scsi/cmd_priv.h"

struct scsi_cmd {
	/* ---- set by the fabric before scsi_cmd_setup() ---- */
	struct scsi_nexus *nexus;
	struct reactor *reactor; /* owner thread; every callback for this cmd runs here */
	uint64_t lun;		 /* SAM-5 8-byte LUN as one big-endian number */
	uint64_t tag;		 /* fabric task tag (iSCSI ITT), for ABORT TASK and logs */
	uint32_t exp_len;	 /* Expected Data Transfer Length (bytes) */
	uint8_t cdb[SCSI_MAX_CDB];
	uint8_t cdb_len;    /* bytes valid in cdb */
	uint8_t attr;	    /* enum scsi_task_attr */
	uint8_t fabric_dir; /* enum scsi_dir the initiator declared (R/W bits) */
	/* The fabric can hold the command when no data buffer can be had
	 * (global cap, bufpool.h): setup then leaves it pending
	 * (scsi_cmd_buf_pending) for scsi_cmd_buf_retry() instead of failing
	 * it with BUSY. The iSCSI fabric stops reading and closes the CmdSN
	 * window meanwhile (back-pressure, RFC 7143 3.2.2.1). */
	bool buf_wait_ok;
	/* The most buffer bytes the fabric lets this command pin (0: no limit
	 * but the global cap): the fabric's share of memory per I_T nexus. A
	 * command whose buffer would be larger ends with TASK SET FULL (SAM-5
	 * 5.3: the LU lacks resources for a task of this I_T nexus) without
	 * allocating it. */
	uint32_t buf_budget;
	/* What is left of the I_T nexus' guaranteed reserve (0: none): a buffer
	 * that fits is taken outside the global cap (buf_alloc_reserved), so
	 * that initiators pinning the whole cap cannot starve the others of
	 * their first commands. The fabric bounds it (sessions x reserve). */
	uint32_t buf_reserve;
	/* The fabric enters the command into its LU's task set itself, with
	 * scsi_cmd_enter(), instead of setup doing it: iSCSI sets up a command
	 * that arrived ahead of its CmdSN (another connection of the session
	 * carries the ones before it) so that its data can flow, and enters it
	 * only when every command numbered before it is in, so that tasks
	 * enter the task set -- and the SAM-5 8.6 ordering of their attributes
	 * applies -- in the order the initiator numbered them (RFC 7143
	 * 3.2.2.1). */
	bool enter_later;
	/* The fabric sends the Data-In from the command's data source
	 * (scsi_cmd_data_in()) as one copy into its transport, within the
	 * command's life (before scsi_cmd_release()), and reads it nowhere
	 * else -- or takes it back into buf (scsi_cmd_unlend) before it reads
	 * it itself, for a digest: a READ may then take its data lent by the
	 * back-store (bs.h BS_IO_LEND) rather than copied into buf. */
	bool lend_ok;

	/* ---- set by scsi_cmd_setup() ---- */
	uint32_t write_len; /* bytes of Data-Out to place at buf before exec */
	uint8_t *buf;	    /* data buffer, owned by the core */

	/* ---- result, valid in fops->cmd_done() ---- */
	uint8_t status; /* SAM status */
	uint8_t sense_len;
	uint8_t resid_kind;	    /* enum scsi_resid */
	bool suppress_response;	    /* aborted: the fabric sends nothing */
	uint32_t resid;		    /* residual count (bytes) */
	uint32_t data_in_len;	    /* bytes of buf to send as Data-In (<= exp_len) */
	const uint8_t *data_in_src; /* lend_ok: where they are, when not at buf */
	uint8_t sense[SCSI_SENSE_MAX];

	/* ---- core private ---- */
	struct scsi_cmd_priv priv;
};

/* Prepare a command structure for (re)use; clears results and core state. */
void scsi_cmd_init(struct scsi_cmd *cmd);
/* The Data-In bytes of a completed command (data_in_len of them). */
static inline const uint8_t *scsi_cmd_data_in(const struct scsi_cmd *cmd)
{
	return cmd->data_in_src ? cmd->data_in_src : cmd->buf;
}
void scsi_cmd_setup(struct scsi_cmd *cmd);
/* enter_later: the command may enter its LU's task set now (once its data
 * buffer is there; at once if it is). Only the first call does anything;
 * exec enters a command not entered yet. */
void scsi_cmd_enter(struct scsi_cmd *cmd);
void scsi_cmd_exec(struct scsi_cmd *cmd);
void scsi_cmd_release(struct scsi_cmd *cmd);
/* lend_ok: the fabric cannot send the lent Data-In now, or must read it
 * itself (a data digest over the bytes it will send). It is copied into
 * buf (scsi_cmd_data_in() is buf from now on), and what the lent READ held
 * is let go. 0, or -EFAULT when the lent memory is no longer readable (the
 * image was cut short): the data cannot be sent. */
int scsi_cmd_unlend(struct scsi_cmd *cmd);
/* The fabric failed the command itself before exec (e.g. Data-Out digest
 * error, data offset error): exec completes it with this reason instead. */
void scsi_cmd_set_fabric_error(struct scsi_cmd *cmd, enum sense_reason r);
/* buf_wait_ok: setup could not allocate the data buffer; the command is set
 * up otherwise (write_len valid) but holds no buffer and is not yet in the
 * LU's task set. scsi_cmd_buf_retry() allocates it and enters the task set
 * (0), or leaves it pending (-ENOMEM). exec or release of a pending command
 * completes/frees it as BUSY. */
bool scsi_cmd_buf_pending(const struct scsi_cmd *cmd);
int scsi_cmd_buf_retry(struct scsi_cmd *cmd);
/* Bytes of the command's data buffer (0 while it has none). */
uint32_t scsi_cmd_buf_bytes(const struct scsi_cmd *cmd);
/* Did the buffer come from the nexus' reserve (buf_reserve)? */
bool scsi_cmd_buf_reserved(const struct scsi_cmd *cmd);
/* In cmd_abort_pending: the TMF the command is aborted for (its func and
 * nexus may be read), or NULL when something else aborted it (I_T nexus
 * loss). The fabric decides from it how the transfer of the command's data
 * ends (iSCSI: RFC 7143 4.2.3.3). */
const struct scsi_tmf *scsi_cmd_abort_tmf(const struct scsi_cmd *cmd);

/* ---- task management ---- */
enum scsi_tmf_func {
	SCSI_TMF_ABORT_TASK = 1,
	SCSI_TMF_ABORT_TASK_SET,
	SCSI_TMF_CLEAR_ACA,
	SCSI_TMF_CLEAR_TASK_SET,
	SCSI_TMF_LUN_RESET,
	SCSI_TMF_TARGET_WARM_RESET,
	SCSI_TMF_TARGET_COLD_RESET,
	SCSI_TMF_QUERY_TASK,
	SCSI_TMF_QUERY_TASK_SET,
	SCSI_TMF_QUERY_ASYNC_EVENT,
	SCSI_TMF_I_T_NEXUS_RESET,
};

enum scsi_tmf_response {
	SCSI_TMF_RESP_COMPLETE = 0, /* function complete */
	SCSI_TMF_RESP_SUCCEEDED,    /* QUERY *: a task/UA exists */
	SCSI_TMF_RESP_TASK_NOT_FOUND,
	SCSI_TMF_RESP_LUN_NOT_FOUND,
	SCSI_TMF_RESP_NOT_SUPPORTED,
	SCSI_TMF_RESP_REJECTED,
	/* the function is one this I_T nexus may not use (a target reset
	 * without scsi_nexus_info.target_reset): SAM-5 service response
	 * FUNCTION REJECTED; iSCSI "Function authorization failed" */
	SCSI_TMF_RESP_UNAUTHORIZED,
};

struct scsi_tmf {
	/* set by the fabric */
	struct scsi_nexus *nexus;
	struct reactor *reactor;
	uint8_t func;	  /* enum scsi_tmf_func */
	uint64_t lun;	  /* LUN (ignored for target resets) */
	uint64_t ref_tag; /* ABORT TASK / QUERY TASK: the task's tag */
	/* result */
	uint8_t response; /* enum scsi_tmf_response */
	/* QUERY ASYNCHRONOUS EVENT that succeeded: the ADDITIONAL RESPONSE
	 * INFORMATION (SAM-5 7.8): the pending unit attention's SENSE KEY
	 * (low 4 bits of byte 0), ADDITIONAL SENSE CODE and QUALIFIER */
	uint8_t add_info[3];
	/* set by scsi_tmf_exec: unique among the TMFs of this daemon run, so a
	 * fabric can tell two TMFs apart after the first one's memory is
	 * reused */
	uint64_t seq;
	/* core private */
	struct scsi_tmf_priv priv;
};

/* Runs the TMF; fops->tmf_done() follows once every affected task has
 * finished (SAM-5 7.1: the response is sent after the aborted tasks are
 * gone). Tasks aborted on behalf of this TMF complete with
 * suppress_response set (TASK ABORTED status instead for other nexuses when
 * the Control mode page TAS bit is set).
 * Scope: ABORT TASK (SET), CLEAR TASK SET, LOGICAL UNIT RESET and the
 * queries act on the addressed LU (SAM-5 7). TARGET WARM/COLD RESET are
 * refused (SCSI_TMF_RESP_UNAUTHORIZED) unless the nexus was created with
 * target_reset, and then reset only the LUs of the nexus' own LUN map,
 * never an LU it cannot see (RFC 7143 11.5.1: "all Logical Units known by
 * the issuing initiator"); the fabric drops sessions after a cold reset. */
void scsi_tmf_exec(struct scsi_tmf *tmf);
/* The fabric of another nexus whose task this TMF aborted may delay the
 * TMF's tmf_done until it has done its part of the abort (RFC 7143 4.2.3.3
 * d): the StatSN acknowledgments of a third party's session). A hold taken
 * in that task's cmd_done (before the task's own count is dropped) is given
 * back with scsi_tmf_release(), on any reactor. */
void scsi_tmf_hold(const struct scsi_tmf *tmf);
void scsi_tmf_release(const struct scsi_tmf *tmf);

/* ---- logical units ---- */
struct scsi_lu_attrs {
	uint32_t block_size; /* logical block size in bytes: 512, 1024, 2048 or 4096 */
	/* physical block size (READ CAPACITY (16) LOGICAL BLOCKS PER PHYSICAL
	 * BLOCK EXPONENT): a power-of-two multiple of block_size; 0 = block_size */
	uint32_t physical_block_size;
	bool read_only;	  /* write protected medium */
	bool removable;	  /* RMB: PREVENT ALLOW MEDIUM REMOVAL, START STOP UNIT LOEJ */
	bool thin;	  /* logical block provisioning: UNMAP, WRITE SAME UNMAP, LBPRZ */
	bool write_cache; /* default WCE of the Caching mode page */
	/* T10 protection information type (SBC-4 4.22) the LU is created
	 * formatted with: 0 none, 1, 2 or 3; the back-store keeps the tuples
	 * (BS_CAP_PI, backstore/pi.h). FORMAT UNIT may change the format
	 * later (lu_pi_type(), scsi_lu_pi_format_store()). */
	uint8_t pi_type;
	char vendor[9]; /* T10 vendor identification (space padded on the wire) */
	char product[17];
	char revision[5];
	char serial[33]; /* unit serial number (VPD 80h) */
	uint8_t naa[16]; /* NAA IEEE Registered Extended designator (NAA 6h) for VPD 83h */
	/* persistent reservations: registrations kept at most (INSUFFICIENT
	 * REGISTRATION RESOURCES beyond); 0 = 4096 */
	uint32_t pr_max_registrations;
};

/* The lu takes ownership of bs (closed in scsi_lu_put's last drop). */
int scsi_lu_create(const char *name, struct bs_dev *bs, const struct scsi_lu_attrs *attrs,
		   struct scsi_lu **out);
void scsi_lu_get(struct scsi_lu *lu);
void scsi_lu_put(struct scsi_lu *lu);
const char *scsi_lu_name(const struct scsi_lu *lu);
/* Resize the back-store and raise CAPACITY DATA HAS CHANGED. */
int scsi_lu_resize(struct scsi_lu *lu, uint64_t new_size_bytes);
/* Current capacity in bytes. */
uint64_t scsi_lu_size(const struct scsi_lu *lu);
/* The back-store's facts of its medium (bs_ops.facts): how many, at most
 * max; 0 when it has none. */
size_t scsi_lu_medium_facts(struct scsi_lu *lu, struct bs_fact *f, size_t max);
/* The back-store's consistency check of its medium (bs_ops.check): 0 and
 * its findings in f[0..*n), -EOPNOTSUPP when it has none, or -errno. May
 * block for long: the control thread calls it. */
int scsi_lu_medium_check(struct scsi_lu *lu, struct bs_fact *f, size_t max, size_t *n);
/* Statistics of an LU since its creation (the SCSI-MIB's LU counters and
 * latency histograms, setup to completion, per operation class): a sum of
 * the per-reactor shards (lib/stats.h), each field exact, the fields not of
 * one instant. */
enum scsi_op_class { SCSI_OP_READ, SCSI_OP_WRITE, SCSI_OP_OTHER, SCSI_OP_CLASSES };
struct scsi_lu_stats {
	uint64_t cmds, errors, aborted, busy;
	uint64_t read_bytes, write_bytes;
	uint64_t in_flight; /* set up, not yet completed (a gauge) */
	struct {
		uint64_t cmds;
		uint64_t lat_sum_ns;
		uint64_t lat[STATS_HIST_BUCKETS]; /* lib/stats.h buckets */
	} op[SCSI_OP_CLASSES];
};
void scsi_lu_stats(struct scsi_lu *lu, struct scsi_lu_stats *out);
/* The persistent reservation state of lu (SPC-4 5.13), for the control
 * plane (pr_admin.c): a snapshot; regs is malloc'ed (scsi_pr_info_free). */
struct scsi_pr_reg_info {
	uint64_t key;
	char initiator[224]; /* iSCSI name */
	char isid[13];	     /* 12 hex digits; "" = every port of the initiator */
	uint16_t rel_port;   /* relative target port identifier; 0 with all_tg_pt */
	bool all_tg_pt;
	bool holder; /* holds the reservation */
};
struct scsi_pr_info {
	uint32_t generation; /* PRGENERATION */
	bool aptpl;	     /* persist through power loss (PTPL_A) */
	uint8_t type;	     /* reservation type (SPC-4 table 217), 0 = none */
	const char *type_name;
	struct scsi_pr_reg_info *regs;
	size_t nregs;
};
int scsi_lu_pr_info(struct scsi_lu *lu, struct scsi_pr_info *out);
void scsi_pr_info_free(struct scsi_pr_info *info);
/* The administrator clears lu's persistent reservations (pr_admin.c).
 * initiator NULL: every registration and the reservation, as PERSISTENT
 * RESERVE OUT CLEAR (every registrant gets RESERVATIONS PREEMPTED: the
 * administrator is no I_T nexus). Else an iSCSI initiator name (every port
 * of that device) or port name "<name>,i,0x<ISID>": the registrations
 * covering it (REGISTRATIONS PREEMPTED), and the reservation when it ends
 * with them. With APTPL the state file is written (or removed) first, as for
 * a PR OUT. Call on a reactor thread: 0, and done() follows there, never
 * inside the call, once the change is durable (err 0; res->removed 0:
 * nothing was registered, or nothing for that initiator: no change), or
 * with the state file's -errno (the change was rolled back; the unit
 * attentions it established stay, as after a failed PR OUT); or -EINVAL (a
 * malformed initiator name, or not on a reactor thread) / -ENOMEM, and no
 * done(). */
struct scsi_pr_clear_result {
	unsigned removed;    /* registrations removed */
	bool released;	     /* a reservation ended */
	uint32_t generation; /* PRGENERATION afterwards */
};
typedef void (*scsi_pr_clear_done)(void *arg, int err, const struct scsi_pr_clear_result *res);
int scsi_lu_pr_clear(struct scsi_lu *lu, const char *initiator, scsi_pr_clear_done done, void *arg);
/* Persistent reservations survive restarts when an initiator sets APTPL
 * (SPC-4 5.13.5): keep their state in state_dir, in a file named after the
 * LU's NAA designator, and load it now. Call once, before the LU is mapped.
 * 0, -EBADMSG (the file is corrupt, foreign or torn: refused, nothing
 * loaded), -ENOMEM or -errno. Without it APTPL=1 is refused (PTPL_C 0). */
int scsi_lu_pr_store(struct scsi_lu *lu, const char *state_dir);
/* Saved mode pages (SPC-4 7.5.1: MODE SELECT SP=1, MODE SENSE PC=11b):
 * keep them in state_dir, in a file named after the LU's NAA designator
 * (mode-<NAA>.state), and load them now as the saved and current values.
 * Call once, before the LU is mapped. 0, -EBADMSG (the file is corrupt,
 * foreign or holds values MODE SELECT would refuse: nothing loaded),
 * -ENOMEM or -errno. Without it SP=1 and PC=11b are refused. */
int scsi_lu_mode_store(struct scsi_lu *lu, const char *state_dir);
/* The protection type FORMAT UNIT gave an LU whose back-store keeps
 * protection information (SBC-4 5.3, FMTPINFO): keep it in state_dir
 * (format-<NAA>.state) and load it now as the current format, over
 * attrs.pi_type. Call once, before the LU is mapped; a no-op (0) for an LU
 * without BS_CAP_PI. 0, -EBADMSG (corrupt or foreign: refused, the tuples
 * would be checked as the wrong type), -ENOMEM or -errno. Without it
 * FORMAT UNIT cannot change the protection type. */
int scsi_lu_pi_format_store(struct scsi_lu *lu, const char *state_dir);

/* ---- targets, ports, LUN maps, access ---- */
struct scsi_target *scsi_target_create(const char *name);
void scsi_target_destroy(struct scsi_target *t);
const char *scsi_target_name(const struct scsi_target *t);

/* port_name: the SCSI target port name (iSCSI: "<iqn>,t,0x<tpgt hex4>").
 * rel_port_id: relative target port identifier (unique within the target,
 * 1..65535); port_group: ALUA target port group it belongs to (1..65535;
 * 0 = a group of its own with the identifier rel_port_id; see scsi/alua.h). */
struct scsi_tport *scsi_tport_create(struct scsi_target *t, const char *port_name,
				     uint16_t rel_port_id, uint16_t port_group);
struct scsi_target *scsi_tport_target(const struct scsi_tport *tp);
/* The port's counters since it was created (SCSI-MIB scsiTgtPortTable): a
 * sum of the per-reactor shards, each field exact. */
struct scsi_tport_stats {
	uint16_t rel_port_id;
	uint64_t cmds, read_bytes, write_bytes;
};
void scsi_tport_stats(struct scsi_tport *tp, struct scsi_tport_stats *out);
/* The port is removed (its fabric portal group is gone and its nexuses
 * are being lost): it leaves its ALUA group and is no longer reported; its
 * relative port identifier may be reused. The structure lives until
 * scsi_target_destroy() (nexuses ending may still point at it). */
void scsi_tport_retire(struct scsi_tport *tp);
/* The port moves to ALUA target port group port_group (0: a group of its
 * own) with its nexuses kept; they get ASYMMETRIC ACCESS STATE CHANGED and
 * INQUIRY DATA HAS CHANGED (scsi/alua.c). 0 or -ENOMEM (nothing changed). */
int scsi_tport_set_port_group(struct scsi_tport *tp, uint16_t port_group);

struct scsi_lun_map *scsi_lun_map_create(void);
/* lun: 0..16383 (single level, peripheral/flat addressing chosen by the core).
 * Returns 0, -EEXIST or -EINVAL. Takes a reference on lu. */
int scsi_lun_map_add(struct scsi_lun_map *m, uint32_t lun, struct scsi_lu *lu, bool read_only);
int scsi_lun_map_del(struct scsi_lun_map *m, uint32_t lun);
void scsi_lun_map_get(struct scsi_lun_map *m);
void scsi_lun_map_put(struct scsi_lun_map *m);

/* The map given to initiators that have no ACL of their own; with demo set,
 * any initiator may log in and gets it. Without demo and without an ACL the
 * target admits nobody (deny by default). */
void scsi_target_set_default_map(struct scsi_target *t, struct scsi_lun_map *m, bool demo);
/* Per-initiator access (by SCSI initiator device name, e.g. an IQN). */
int scsi_target_acl_set(struct scsi_target *t, const char *initiator_name, struct scsi_lun_map *m);
int scsi_target_acl_del(struct scsi_target *t, const char *initiator_name);
/* The LUN map an initiator is given (a reference the caller puts), or -EACCES. */
int scsi_target_access(struct scsi_target *t, const char *initiator_name,
		       struct scsi_lun_map **out);
/* The map of the ACL named initiator_name only (not demo mode): a
 * reference the caller puts, or -ENOENT. */
int scsi_target_acl_get(struct scsi_target *t, const char *initiator_name,
			struct scsi_lun_map **out);
/* Whether demo mode admits any initiator. */
bool scsi_target_demo(struct scsi_target *t);

/* ---- I_T nexus ---- */
struct scsi_nexus_info {
	const char *initiator_name;	 /* SCSI initiator device name (iSCSI: IQN) */
	const char *initiator_port_name; /* iSCSI: "<iqn>,i,0x<isid hex12>" */
	const uint8_t *transport_id;	 /* SPC-4 TransportID of the initiator port */
	size_t transport_id_len;
	const struct scsi_fabric_ops *ops;
	void *fabric_priv;
	/* the initiator may use TARGET WARM RESET and TARGET COLD RESET (its
	 * ACL says so: RFC 7143 11.5.1 "subject to SCSI access controls");
	 * reported by REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (TRS) */
	bool target_reset;
	/* the fabric carries QUERY TASK, QUERY TASK SET, QUERY ASYNCHRONOUS
	 * EVENT and I_T NEXUS RESET for this nexus (iSCSI: only with
	 * iSCSIProtocolLevel 2, RFC 7144): REPORT SUPPORTED TASK MANAGEMENT
	 * FUNCTIONS reports them (QTS, QTSS, QAES, ITNRS) only then */
	bool query_tmfs;
};
/* Takes a reference on map. Returns NULL on allocation failure. */
struct scsi_nexus *scsi_nexus_create(struct scsi_tport *tp, struct scsi_lun_map *map,
				     const struct scsi_nexus_info *info);
void *scsi_nexus_fabric_priv(const struct scsi_nexus *n);
struct scsi_tport *scsi_nexus_tport(const struct scsi_nexus *n);
/* I_T nexus loss (SAM-5 6.3.4): every task of the nexus is aborted (their
 * cmd_done arrive with suppress_response), the nexus' SPC-2 reservation is
 * released, I_T NEXUS LOSS unit attention is queued for the initiator port's
 * next nexus. The fabric calls scsi_nexus_destroy() after it has released
 * every command of the nexus. */
void scsi_nexus_loss(struct scsi_nexus *n);
void scsi_nexus_destroy(struct scsi_nexus *n);
/* Asynchronous event reporting (aen.c): the next unit attention pending for
 * n, taken as reported: its sense data (the LU's format) in sense, the LUN
 * field in *lun, the sense length returned; 0 when none is pending. On the
 * nexus' reactor. */
size_t scsi_nexus_take_event(struct scsi_nexus *n, uint64_t *lun, uint8_t *sense, size_t size);

/* ---- module init ---- */
int scsi_core_init(void);

#endif
