/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cdb.h: the CDB table (after CTL's ctl_cmd_table.c). One descriptor per
 * command: handler pair, CDB length, per-byte usage mask, flags, reservation
 * conflict class and ordering class. Opcodes with service actions point to a
 * sub-table. The same data answers REPORT SUPPORTED OPERATION CODES.
 *
 * Two tables, looked up in order: sbc_cdb_table (block commands, sbc_cmds.c)
 * then spc_cdb_table (primary commands, spc_cmds.c). An opcode is defined in
 * exactly one of them (a unit test checks). */
#ifndef UT_SCSI_CDB_H
#define UT_SCSI_CDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scsi/cdb_fields.h"
#include "scsi/sense.h"

struct scsi_cmd;

/* parse: decode the CDB, once per command (no I/O, no side effects on the
 *   LU): read its fields with the accessors of cdb_fields.h, set
 *   cmd->priv.data_dir and cmd->priv.data_len (bytes to move), and for the
 *   block commands the decoded lba, nblocks and io_flags (FUA, DPO, IMMED);
 *   check fields and ranges. Returns SENSE_OK or the reason to fail with
 *   (use cdb_invalid_field() to attach a field pointer).
 * exec: carry the command out from what parse decoded (and the accessors
 *   for a command's own bits, never a byte offset); finish with
 *   scsi_cmd_complete*() exactly once, now or from an I/O completion. */
typedef enum sense_reason (*cdb_parse_fn)(struct scsi_cmd *cmd);
typedef void (*cdb_exec_fn)(struct scsi_cmd *cmd);

enum cdb_flags {
	CDB_F_UA_OK =
	    1u
	    << 0, /* not failed by a pending UA (SPC-4 5.14: INQUIRY, REPORT LUNS, REQUEST SENSE) */
	CDB_F_NO_MEDIUM_OK = 1u << 1,	 /* allowed with no medium / stopped unit */
	CDB_F_WRITES = 1u << 2,		 /* modifies the medium: refused when write protected */
	CDB_F_SPC2_RESV_OK = 1u << 3,	 /* allowed under another nexus' SPC-2 reservation */
	CDB_F_ALUA_STANDBY_OK = 1u << 4, /* allowed in ALUA standby (SPC-4 5.15.2.4.4) */
	CDB_F_ALUA_UNAVAIL_OK = 1u << 5, /* allowed in ALUA unavailable (SPC-4 5.15.2.4.5) */
	CDB_F_SANITIZE_OK = 1u << 6,	 /* allowed while a sanitize is in progress (SBC-4 4.11) */
	CDB_F_NO_LUN_OK =
	    1u << 7, /* allowed on an unmapped LUN (REPORT LUNS, INQUIRY, REQUEST SENSE) */
	/* allowed while a FORMAT UNIT or a foreground self-test runs (SBC-4
	 * 5.3.1, SPC-4 5.6.3.2: INQUIRY, REPORT LUNS, REQUEST SENSE) */
	CDB_F_BUSY_OK = 1u << 8,
	/* exists only on an LU with type 2 protection information (SBC-4
	 * 5.16: the 32-byte block commands "shall only be processed if type 2
	 * protection is enabled"): elsewhere INVALID COMMAND OPERATION CODE,
	 * and not reported by REPORT SUPPORTED OPERATION CODES */
	CDB_F_PI_TYPE2 = 1u << 9,
};

/* Persistent reservation conflict classes (SPC-4 5.13.1 table 58, SBC-4
 * 4.17 table 13): how a command is treated under a persistent reservation
 * held by another I_T nexus (pr.c). An I_T nexus that is registered under a
 * Registrants Only or All Registrants type is never refused by the class. */
enum cdb_pr_class {
	PR_CLASS_ALLOWED = 0, /* "Allowed" everywhere (INQUIRY, REPORT LUNS, READ CAPACITY, ...) */
	PR_CLASS_READ,	/* Allowed under Write Exclusive types, Conflict under Exclusive Access */
	PR_CLASS_WRITE, /* Conflict under both (medium writes) */
	PR_CLASS_CONFLICT, /* Conflict under both, for commands that do not write the
			    * medium (MODE SELECT, START STOP UNIT, ...): the WRITE rule */
	PR_CLASS_PR_OUT,   /* PERSISTENT RESERVE OUT: the service action decides (key checks) */
	PR_CLASS_PR_IN,	   /* PERSISTENT RESERVE IN: always allowed */
	PR_CLASS_SPC2,	   /* RESERVE/RELEASE (6)/(10): conflict while any I_T nexus is
			    * registered, from every I_T nexus (SPC-4 5.13.3, CRH = 0) */
	PR_CLASS_COUNT
};

/* Ordering classes for the task-set ordering matrix (order.c). */
enum cdb_order_class {
	ORDER_NONE = 0, /* neither waits nor blocks (INQUIRY, REPORT LUNS, TEST UNIT READY, ...) */
	ORDER_READ,	/* reads the medium */
	ORDER_WRITE,	/* writes the medium */
	ORDER_BARRIER,	/* changes LU state: waits for everything before, blocks everything after */
};

struct cdb_sa_table;

struct cdb_desc {
	const char *name;
	cdb_parse_fn parse;
	cdb_exec_fn exec;
	const struct cdb_sa_table *sa; /* service action sub-table (then parse/exec unused) */
	uint8_t len;		       /* CDB length in bytes */
	/* allowed bits per CDB byte (usage[0] = 0xff); the bytes past 16 of
	 * the 32-byte CDBs are all fields (LBA, tags, TRANSFER LENGTH): every
	 * bit allowed, cdb_usage_byte() */
	uint8_t usage[16];
	uint16_t flags;	  /* enum cdb_flags */
	uint8_t pr_class; /* enum cdb_pr_class */
	/* the command counts as PR_CLASS_ALLOWED when (cdb[pr_ok_byte] &
	 * pr_ok_mask) == pr_ok_value (pr_ok_mask 0: never): START STOP UNIT
	 * with START 1 and POWER CONDITION 0, PREVENT ALLOW MEDIUM REMOVAL
	 * with PREVENT 00b (SBC-4 table 13, SPC-4 table 58) */
	uint8_t pr_ok_byte, pr_ok_mask, pr_ok_value;
	uint8_t order_class; /* enum cdb_order_class */
	uint16_t timeout_s;  /* nominal command timeout for RSOC RCTD (0 = none) */
};

struct cdb_sa_table {
	uint8_t byte; /* CDB byte holding the service action */
	uint8_t mask; /* its bits */
	uint16_t count;
	const struct cdb_desc *v; /* indexed by service action, count entries */
};

extern const struct cdb_desc spc_cdb_table[256];
extern const struct cdb_desc sbc_cdb_table[256];

/* Finds the descriptor for the CDB's opcode/service action. NULL with
 * *reason = SENSE_INVALID_OPCODE for an unsupported opcode, or
 * SENSE_INVALID_FIELD_IN_CDB (field pointer to the service action in *sx) for
 * an unsupported service action. */
const struct cdb_desc *cdb_lookup(const uint8_t *cdb, size_t cdb_len, enum sense_reason *reason,
				  struct sense_extra *sx);
/* Checks every CDB byte against the usage mask; on a reserved bit set returns
 * SENSE_INVALID_FIELD_IN_CDB with the field pointer (byte, highest offending
 * bit) in *sx. */
enum sense_reason cdb_check_usage(const struct cdb_desc *d, const uint8_t *cdb,
				  struct sense_extra *sx);
struct scsi_lu;
/* d is a command of lu (CDB_F_PI_TYPE2; lu may be NULL: no LU). */
bool cdb_desc_on_lu(const struct cdb_desc *d, const struct scsi_lu *lu);
/* The CONTROL byte (SAM-5 5.2): the last byte of a CDB, byte 1 of the
 * variable length CDBs (opcode 7Fh, SPC-4 4.2.3). */
static inline unsigned cdb_control_byte(const struct cdb_desc *d)
{
	return d->len == 32 ? 1u : (unsigned)d->len - 1u;
}
/* NACA (SAM-5 5.2, 5.9): every command accepts it, the logical unit
 * reporting NormACA (aca.c); the tables leave it out of their masks. LINK
 * (obsolete) and the vendor specific bits stay reserved. */
#define CDB_CONTROL_NACA 0x04
/* The usage of CDB byte i of d (i < d->len): usage[i] (with NACA in the
 * CONTROL byte), or FFh past it. */
static inline uint8_t cdb_usage_byte(const struct cdb_desc *d, unsigned i)
{
	uint8_t u = i < sizeof(d->usage) ? d->usage[i] : 0xff;

	return i == cdb_control_byte(d) ? (uint8_t)(u | CDB_CONTROL_NACA) : u;
}
/* Top-level descriptor of an opcode (NULL if unsupported); may have sa. */
const struct cdb_desc *cdb_opcode(uint8_t opcode);
/* Service action value of entry i of a sub-table is its index. */

#endif
