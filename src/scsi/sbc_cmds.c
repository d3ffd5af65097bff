/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc_cmds.c: the CDB table of the block commands (SBC-4 5), of EXTENDED
 * COPY / RECEIVE COPY RESULTS (SPC-4 6.4, 6.23), whose copy manager lives
 * with the block code (xcopy.c), and of SEND DIAGNOSTIC / RECEIVE
 * DIAGNOSTIC RESULTS (SPC-4 6.32, 6.27), whose self-tests read the medium
 * with it (diag.c). Format and lookup: cdb.h, cdb_table.c.
 *
 * Usage masks list the bits a command accepts (REPORT SUPPORTED OPERATION
 * CODES returns them as CDB USAGE DATA); every other bit is reserved and
 * refused with INVALID FIELD IN CDB before parse(). RDPROTECT and
 * WRPROTECT of READ/WRITE(10/12/16/32) are allowed here and checked by
 * sbc_rw_setup() against the LU's protection information (SBC-4 4.22);
 * VERIFY's VRPROTECT is checked by sbc_verify_setup(), COMPARE AND
 * WRITE's WRPROTECT by sbc_parse_caw(); the other PROTECT fields
 * (ORPROTECT, the WRPROTECT of WRITE AND VERIFY) are left out, so any
 * non-zero value is refused that way. The
 * obsolete FUA_NV (byte 1 bit 1) and SYNC_NV bits are accepted and ignored. */
#include "scsi/cdb.h"
#include "scsi/sbc_internal.h"

/* usage of the CONTROL byte (SAM-5 5.2): LINK and the vendor bits are
 * refused; NACA is added for every command by cdb_usage_byte() */
#define CONTROL 0x00
/* GROUP NUMBER (SBC-4 4.21): accepted, no grouping function */
#define GRP 0x3f
/* byte 1 of READ/WRITE(10/12/16): DPO, FUA, FUA_NV */
#define DPOFUA 0x1a
/* ... and RDPROTECT / WRPROTECT (bits 7-5), which rw_setup() refuses on an LU
 * without protection information (SBC-4 4.22) */
#define PROT_DPOFUA 0xfa

/* The tables are laid out by hand, one entry per command and one usage byte
 * per CDB byte. */
/* clang-format off */
/* READ/WRITE: flags, no conflict under SPC-2 reservations */
#define RD_CMD(nm, ps, ex, ln, ...)                                                      \
	{                                                                                \
		.name = (nm), .parse = (ps), .exec = (ex), .len = (ln),                   \
		.usage = { __VA_ARGS__ }, .pr_class = PR_CLASS_READ,                      \
		.order_class = ORDER_READ,                                                \
	}
#define WR_CMD(nm, ps, ex, ln, ...)                                                      \
	{                                                                                \
		.name = (nm), .parse = (ps), .exec = (ex), .len = (ln),                   \
		.usage = { __VA_ARGS__ }, .flags = CDB_F_WRITES,                          \
		.pr_class = PR_CLASS_WRITE, .order_class = ORDER_WRITE,                   \
	}

/* SERVICE ACTION IN (16) 9Eh */
static const struct cdb_desc sai16_table[0x20] = {
	[0x10] = {
		.name = "READ CAPACITY(16)",
		.parse = sbc_parse_read_capacity16,
		.exec = sbc_exec_read_capacity16,
		.len = 16,
		.usage = { 0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, 0x01, CONTROL },
		/* SPC-2 5.5.1 and SPC-4 table 58: allowed under reservations;
		 * no medium access (allowed when stopped). Not in the SPC-4
		 * 5.15.2.4.4 standby list: refused in standby. */
		.flags = CDB_F_SPC2_RESV_OK,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
	},
	/* byte 14 (REPORT TYPE in later SBC-4 revisions) reserved */
	[0x12] = RD_CMD("GET LBA STATUS", sbc_parse_get_lba_status, sbc_exec_get_lba_status, 16,
			0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, 0x00, CONTROL),
};

static const struct cdb_sa_table sai16_sa = {
	.byte = 1,
	.mask = 0x1f,
	.count = 0x20,
	.v = sai16_table,
};

/* SANITIZE 48h (SBC-4 5.24): byte 1 IMMED, AUSE, SERVICE ACTION; 03h
 * CRYPTOGRAPHIC ERASE is not supported (no media encryption) */
#define SANITIZE_CMD(nm, fl)                                                               \
	{                                                                                  \
		.name = (nm), .parse = sbc_parse_sanitize, .exec = sbc_exec_sanitize,       \
		.len = 10,                                                                  \
		.usage = { 0xff, 0xbf, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, CONTROL },     \
		.flags = (fl), .pr_class = PR_CLASS_WRITE, .order_class = ORDER_WRITE,      \
	}

static const struct cdb_desc sanitize_table[0x20] = {
	[0x01] = SANITIZE_CMD("SANITIZE OVERWRITE", CDB_F_WRITES),
	[0x02] = SANITIZE_CMD("SANITIZE BLOCK ERASE", CDB_F_WRITES),
	[0x1f] = SANITIZE_CMD("SANITIZE EXIT FAILURE MODE", 0),
};

static const struct cdb_sa_table sanitize_sa = {
	.byte = 1,
	.mask = 0x1f,
	.count = 0x20,
	.v = sanitize_table,
};

/* THIRD-PARTY COPY OUT 83h: EXTENDED COPY(LID1) (SPC-4 6.4), POPULATE
 * TOKEN and WRITE USING TOKEN (SBC-4 5.11, 5.53; rod.c). The copy manager
 * checks each copy source and destination itself, as a READ(16) /
 * WRITE(16) of the requester's (ALUA, reservations, write protection:
 * xcopy.c sbc_copy_access). POPULATE TOKEN reads nothing at once but
 * names the blocks of its LU for later reads: a READ's class. */
static const struct cdb_desc xcopy_table[0x12] = {
	[0x00] = {
		.name = "EXTENDED COPY(LID1)",
		.parse = sbc_parse_xcopy,
		.exec = sbc_exec_xcopy,
		.len = 16,
		.usage = { 0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },
		.pr_class = PR_CLASS_WRITE,
		.order_class = ORDER_WRITE,
	},
	/* the same CDB; the parameter list's header differs (xcopy.c) */
	[0x01] = {
		.name = "EXTENDED COPY(LID4)",
		.parse = sbc_parse_xcopy,
		.exec = sbc_exec_xcopy,
		.len = 16,
		.usage = { 0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },
		.pr_class = PR_CLASS_WRITE,
		.order_class = ORDER_WRITE,
	},
	/* LIST IDENTIFIER 6-9, PARAMETER LIST LENGTH 10-13, GROUP NUMBER 14 */
	[0x10] = {
		.name = "POPULATE TOKEN",
		.parse = sbc_parse_populate_token,
		.exec = sbc_exec_populate_token,
		.len = 16,
		.usage = { 0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, 0x1f, CONTROL },
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_READ,
	},
	[0x11] = {
		.name = "WRITE USING TOKEN",
		.parse = sbc_parse_write_using_token,
		.exec = sbc_exec_write_using_token,
		.len = 16,
		.usage = { 0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, 0x1f, CONTROL },
		.flags = CDB_F_WRITES,
		.pr_class = PR_CLASS_WRITE,
		.order_class = ORDER_WRITE,
	},
};

static const struct cdb_sa_table xcopy_sa = {
	.byte = 1,
	.mask = 0x1f,
	.count = 0x12,
	.v = xcopy_table,
};

/* THIRD-PARTY COPY IN 84h (SPC-4 6.20-6.26): COPY STATUS(LID1) and
 * OPERATING PARAMETERS; RECEIVE COPY DATA(LID1) and FAILURE DETAILS(LID1)
 * are not supported (no held data, no segment details). RECEIVE COPY
 * STATUS(LID4) and RECEIVE COPY DATA(LID4) report any copy operation
 * (copy_status.c; the latter with no held data: none is ever held),
 * RECEIVE ROD TOKEN INFORMATION (SBC-4 5.20) POPULATE TOKEN and WRITE
 * USING TOKEN (rod.c): LIST IDENTIFIER 2-5. */
#define RCR_CMD(nm, ex)                                                                    \
	{                                                                                  \
		.name = (nm), .parse = sbc_parse_rcr, .exec = (ex), .len = 16,              \
		.usage = { 0xff, 0x1f, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,      \
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },                             \
		.pr_class = PR_CLASS_READ, .order_class = ORDER_NONE,                       \
	}

static const struct cdb_desc rcr_table[0x08] = {
	[0x00] = RCR_CMD("RECEIVE COPY STATUS(LID1)", sbc_exec_rcr_copy_status),
	[0x03] = RCR_CMD("RECEIVE COPY OPERATING PARAMETERS", sbc_exec_rcr_op_params),
	[0x05] = {
		.name = "RECEIVE COPY STATUS(LID4)",
		.parse = sbc_parse_rcs_lid4,
		.exec = sbc_exec_rcs_lid4,
		.len = 16,
		.usage = { 0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
	},
	[0x06] = {
		.name = "RECEIVE COPY DATA(LID4)",
		.parse = sbc_parse_rcd_lid4,
		.exec = sbc_exec_rcd_lid4,
		.len = 16,
		.usage = { 0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
	},
	[0x07] = {
		.name = "RECEIVE ROD TOKEN INFORMATION",
		.parse = sbc_parse_rrti,
		.exec = sbc_exec_rrti,
		.len = 16,
		.usage = { 0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
			   0xff, 0xff, 0xff, 0xff, 0x00, CONTROL },
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
	},
};

static const struct cdb_sa_table rcr_sa = {
	.byte = 1,
	.mask = 0x1f,
	.count = 0x08,
	.v = rcr_table,
};

/* VARIABLE LENGTH 7Fh (SPC-4 4.2.3; sbc_cdb32.c): SERVICE ACTION bytes
 * 8-9, looked up in byte 9 with byte 8 reserved (usage 00h: no block
 * service action reaches 100h, and one that does is refused there); CONTROL
 * is byte 1; ADDITIONAL CDB LENGTH (byte 7) is a field, checked by parse;
 * byte 10 RDPROTECT / WRPROTECT, DPO, FUA (and FUA_NV, obsolete); byte 11
 * reserved. usage[] holds bytes 0-15: bytes 16-31 (LBA, the expected tags,
 * TRANSFER LENGTH) are fields in full (cdb.h). READ(32), VERIFY(32)
 * (byte 10 VRPROTECT, DPO, BYTCHK) and WRITE(32); the other service
 * actions (WRITE AND VERIFY(32) 000Ch, WRITE SAME(32) 000Dh, ORWRITE(32)
 * 000Eh) are not supported: INVALID FIELD IN CDB at the service action.
 * CDB_F_PI_TYPE2: on any LU but type 2 they are INVALID COMMAND OPERATION
 * CODE (scsi_cmd_setup()) and RSOC does not list them. */
#define RD32_CMD(nm, ps, ex, ...)                                                          \
	{                                                                                  \
		.name = (nm), .parse = (ps), .exec = (ex), .len = 32,                       \
		.usage = { __VA_ARGS__ }, .flags = CDB_F_PI_TYPE2,                           \
		.pr_class = PR_CLASS_READ, .order_class = ORDER_READ,                       \
	}
#define WR32_CMD(nm, ps, ex, ...)                                                          \
	{                                                                                  \
		.name = (nm), .parse = (ps), .exec = (ex), .len = 32,                       \
		.usage = { __VA_ARGS__ }, .flags = CDB_F_WRITES | CDB_F_PI_TYPE2,            \
		.pr_class = PR_CLASS_WRITE, .order_class = ORDER_WRITE,                     \
	}

static const struct cdb_desc var_table[0x0c] = {
	[0x09] = RD32_CMD("READ(32)", sbc_parse_rw32, sbc_exec_rw,
			0xff, CONTROL, 0x00, 0x00, 0x00, 0x00, GRP, 0xff,
			0x00, 0xff, PROT_DPOFUA, 0x00, 0xff, 0xff, 0xff, 0xff),
	[0x0a] = RD32_CMD("VERIFY(32)", sbc_parse_verify32, sbc_exec_verify,
			0xff, CONTROL, 0x00, 0x00, 0x00, 0x00, GRP, 0xff,
			0x00, 0xff, 0xf6, 0x00, 0xff, 0xff, 0xff, 0xff),
	[0x0b] = WR32_CMD("WRITE(32)", sbc_parse_rw32, sbc_exec_rw,
			0xff, CONTROL, 0x00, 0x00, 0x00, 0x00, GRP, 0xff,
			0x00, 0xff, PROT_DPOFUA, 0x00, 0xff, 0xff, 0xff, 0xff),
};

static const struct cdb_sa_table var_sa = {
	.byte = 9,
	.mask = 0xff,
	.count = 0x0c,
	.v = var_table,
};

/* READ DEFECT DATA: no medium access (allowed when stopped) */
#define RDD_CMD(nm, ps, ln, ...)                                                           \
	{                                                                                  \
		.name = (nm), .parse = (ps), .exec = sbc_exec_read_defect, .len = (ln),     \
		.usage = { __VA_ARGS__ }, .pr_class = PR_CLASS_READ,                        \
		.order_class = ORDER_NONE,                                                  \
	}

const struct cdb_desc sbc_cdb_table[256] = {
	/* SBC-4 5.3: byte 1 FMTPINFO (checked against the LU's protection
	 * types, sanitize.c), LONGLIST, FMTDATA, CMPLST, DEFECT LIST FORMAT;
	 * bytes 2-4 (vendor specific, obsolete) refused. A medium write
	 * (write protection, SBC-4 table 13: conflicts like one) */
	[0x04] = WR_CMD("FORMAT UNIT", sbc_parse_format_unit, sbc_exec_format_unit, 6,
			0xff, 0xff, 0x00, 0x00, 0x00, CONTROL),
	[0x08] = RD_CMD("READ(6)", sbc_parse_rw6, sbc_exec_rw, 6,
			0xff, 0x1f, 0xff, 0xff, 0xff, CONTROL),
	[0x0a] = WR_CMD("WRITE(6)", sbc_parse_rw6, sbc_exec_rw, 6,
			0xff, 0x1f, 0xff, 0xff, 0xff, CONTROL),
	/* SPC-4 table 58: both conflict with a persistent reservation of
	 * another I_T nexus; allowed in ALUA standby (SPC-4 5.15.2.4.4).
	 * ORDER_NONE: a foreground self-test holds other commands off itself
	 * (sbc_busy()); a self-test of a stopped unit is refused by diag.c */
	[0x1c] = {
		.name = "RECEIVE DIAGNOSTIC RESULTS",
		.parse = sbc_parse_receive_diagnostic,
		.exec = sbc_exec_receive_diagnostic,
		.len = 6,
		.usage = { 0xff, 0x01, 0xff, 0xff, 0xff, CONTROL },
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_NONE,
	},
	/* byte 1: SELF-TEST CODE, PF, SELFTEST, DEVOFFL, UNITOFFL */
	[0x1d] = {
		.name = "SEND DIAGNOSTIC",
		.parse = sbc_parse_send_diagnostic,
		.exec = sbc_exec_send_diagnostic,
		.len = 6,
		.usage = { 0xff, 0xf7, 0x00, 0xff, 0xff, CONTROL },
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_NONE,
	},
	[0x25] = {
		.name = "READ CAPACITY(10)",
		.parse = sbc_parse_read_capacity10,
		.exec = sbc_exec_read_capacity10,
		.len = 10,
		.usage = { 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x01, CONTROL },
		/* as READ CAPACITY(16): refused in standby */
		.flags = CDB_F_SPC2_RESV_OK,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
	},
	[0x28] = RD_CMD("READ(10)", sbc_parse_rw10, sbc_exec_rw, 10,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	[0x2a] = WR_CMD("WRITE(10)", sbc_parse_rw10, sbc_exec_rw, 10,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	/* VERIFY / WRITE AND VERIFY: byte 1 DPO, BYTCHK; VERIFY's VRPROTECT
	 * (bits 7-5) is checked by sbc_verify_setup() */
	[0x2e] = WR_CMD("WRITE AND VERIFY(10)", sbc_parse_write_verify10, sbc_exec_write_verify, 10,
			0xff, 0x16, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	[0x2f] = RD_CMD("VERIFY(10)", sbc_parse_verify10, sbc_exec_verify, 10,
			0xff, 0xf6, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	[0x34] = RD_CMD("PRE-FETCH(10)", sbc_parse_prefetch10, sbc_exec_prefetch, 10,
			0xff, 0x02, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	/* SBC-4 table 13: SYNCHRONIZE CACHE conflicts like a write */
	[0x35] = {
		.name = "SYNCHRONIZE CACHE(10)",
		.parse = sbc_parse_sync_cache10,
		.exec = sbc_exec_sync_cache,
		.len = 10,
		.usage = { 0xff, 0x06, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL },
		.pr_class = PR_CLASS_WRITE,
		.order_class = ORDER_WRITE,
	},
	[0x37] = RDD_CMD("READ DEFECT DATA(10)", sbc_parse_read_defect10, 10,
			 0xff, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, CONTROL),
	/* byte 1: ANCHOR, UNMAP */
	[0x41] = WR_CMD("WRITE SAME(10)", sbc_parse_write_same10, sbc_exec_write_same, 10,
			0xff, 0x18, 0xff, 0xff, 0xff, 0xff, GRP, 0xff, 0xff, CONTROL),
	/* byte 1: ANCHOR */
	[0x42] = WR_CMD("UNMAP", sbc_parse_unmap, sbc_exec_unmap, 10,
			0xff, 0x01, 0x00, 0x00, 0x00, 0x00, GRP, 0xff, 0xff, CONTROL),
	[0x48] = {
		.name = "SANITIZE",
		.sa = &sanitize_sa,
		.len = 10,
	},
	[0x7f] = {
		.name = "VARIABLE LENGTH",
		.sa = &var_sa,
		.len = 32,
	},
	[0x83] = {
		.name = "EXTENDED COPY",
		.sa = &xcopy_sa,
		.len = 16,
	},
	[0x84] = {
		.name = "RECEIVE COPY RESULTS",
		.sa = &rcr_sa,
		.len = 16,
	},
	[0x88] = RD_CMD("READ(16)", sbc_parse_rw16, sbc_exec_rw, 16,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	/* NUMBER OF LOGICAL BLOCKS 13; bytes 10-12 reserved */
	[0x89] = WR_CMD("COMPARE AND WRITE", sbc_parse_caw, sbc_exec_caw, 16,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0x00, 0x00, 0x00, 0xff, GRP, CONTROL),
	[0x8a] = WR_CMD("WRITE(16)", sbc_parse_rw16, sbc_exec_rw, 16,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x8b] = WR_CMD("ORWRITE(16)", sbc_parse_orwrite16, sbc_exec_orwrite, 16,
			0xff, DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x8e] = WR_CMD("WRITE AND VERIFY(16)", sbc_parse_write_verify16, sbc_exec_write_verify, 16,
			0xff, 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x8f] = RD_CMD("VERIFY(16)", sbc_parse_verify16, sbc_exec_verify, 16,
			0xff, 0xf6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x90] = RD_CMD("PRE-FETCH(16)", sbc_parse_prefetch16, sbc_exec_prefetch, 16,
			0xff, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x91] = {
		.name = "SYNCHRONIZE CACHE(16)",
		.parse = sbc_parse_sync_cache16,
		.exec = sbc_exec_sync_cache,
		.len = 16,
		.usage = { 0xff, 0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, GRP, CONTROL },
		.pr_class = PR_CLASS_WRITE,
		.order_class = ORDER_WRITE,
	},
	/* byte 1: DPO, FUA; bytes 10-11 ATOMIC BOUNDARY reserved */
	/* byte 1: ANCHOR, UNMAP, NDOB */
	[0x93] = WR_CMD("WRITE SAME(16)", sbc_parse_write_same16, sbc_exec_write_same, 16,
			0xff, 0x19, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0x9c] = WR_CMD("WRITE ATOMIC(16)", sbc_parse_write_atomic16, sbc_exec_rw, 16,
			0xff, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0x00, 0x00, 0xff, 0xff, GRP, CONTROL),
	[0x9e] = {
		.name = "SERVICE ACTION IN(16)",
		.sa = &sai16_sa,
		.len = 16,
	},
	[0xa8] = RD_CMD("READ(12)", sbc_parse_rw12, sbc_exec_rw, 12,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0xaa] = WR_CMD("WRITE(12)", sbc_parse_rw12, sbc_exec_rw, 12,
			0xff, PROT_DPOFUA, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0xae] = WR_CMD("WRITE AND VERIFY(12)", sbc_parse_write_verify12, sbc_exec_write_verify, 12,
			0xff, 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0xaf] = RD_CMD("VERIFY(12)", sbc_parse_verify12, sbc_exec_verify, 12,
			0xff, 0xf6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, GRP, CONTROL),
	[0xb7] = RDD_CMD("READ DEFECT DATA(12)", sbc_parse_read_defect12, 12,
			 0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, CONTROL),
};
/* clang-format on */
