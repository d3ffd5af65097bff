/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spc_cmds.c: the CDB table of the SPC-4 primary commands (cdb.h). Usage
 * masks list the bits each command uses (SPC-4 6.35.3 CDB USAGE DATA); the
 * CONTROL byte lists none: NACA is every command's (cdb_usage_byte(), the
 * LU reports NormACA), LINK is obsolete. */
#include "scsi/alua.h"
#include "scsi/cdb.h"
#include "scsi/pr.h"
#include "scsi/spc.h"

/* commands that inspect the device rather than its medium (SPC-4 5.14,
 * 5.15.2.4, 5.6.3.2, SBC-4 4.11, 5.3.1) */
#define INFO_FLAGS                                                                                 \
	(CDB_F_UA_OK | CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_ALUA_STANDBY_OK |           \
	 CDB_F_ALUA_UNAVAIL_OK | CDB_F_SANITIZE_OK | CDB_F_NO_LUN_OK | CDB_F_BUSY_OK)

static const struct cdb_desc maintenance_in_sa[0x0e] = {
    /* SPC-4 5.15.2.4.4/5: allowed in standby and unavailable */
    [0x0a] =
	{
	    .name = "REPORT TARGET PORT GROUPS",
	    .parse = alua_parse_rtpg,
	    .exec = alua_exec_rtpg,
	    .len = 12,
	    .usage = {0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
	    .flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_ALUA_STANDBY_OK |
		     CDB_F_ALUA_UNAVAIL_OK | CDB_F_SANITIZE_OK,
	    .pr_class = PR_CLASS_ALLOWED,
	    .order_class = ORDER_NONE,
	    .timeout_s = 5,
	},
    [0x0c] =
	{
	    .name = "REPORT SUPPORTED OPERATION CODES",
	    .parse = spc_parse_rsoc,
	    .exec = spc_exec_rsoc,
	    .len = 12,
	    .usage = {0xff, 0x1f, 0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
	    .flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_ALUA_STANDBY_OK |
		     CDB_F_ALUA_UNAVAIL_OK | CDB_F_SANITIZE_OK,
	    /* SPC-4 table 58: allowed under Write Exclusive only */
	    .pr_class = PR_CLASS_READ,
	    .order_class = ORDER_NONE,
	    .timeout_s = 5,
	},
    [0x0d] =
	{
	    .name = "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS",
	    .parse = spc_parse_rstmf,
	    .exec = spc_exec_rstmf,
	    .len = 12,
	    .usage = {0xff, 0x1f, 0x80, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
	    .flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_ALUA_STANDBY_OK |
		     CDB_F_ALUA_UNAVAIL_OK | CDB_F_SANITIZE_OK,
	    .pr_class = PR_CLASS_READ,
	    .order_class = ORDER_NONE,
	    .timeout_s = 5,
	},
};

static const struct cdb_sa_table maintenance_in = {
    .byte = 1,
    .mask = 0x1f,
    .count = 0x0e,
    .v = maintenance_in_sa,
};

static const struct cdb_desc maintenance_out_sa[0x0b] = {
    /* SPC-4 5.15.2.4.4/5: allowed in standby and unavailable; table 58:
     * conflicts with persistent reservations held by others. It does not
     * order against other commands: the other paths keep working while
     * the transition runs. */
    [0x0a] =
	{
	    .name = "SET TARGET PORT GROUPS",
	    .parse = alua_parse_stpg,
	    .exec = alua_exec_stpg,
	    .len = 12,
	    .usage = {0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
	    .flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_ALUA_UNAVAIL_OK,
	    .pr_class = PR_CLASS_CONFLICT,
	    .order_class = ORDER_NONE,
	    .timeout_s = 30,
	},
};

static const struct cdb_sa_table maintenance_out = {
    .byte = 1,
    .mask = 0x1f,
    .count = 0x0b,
    .v = maintenance_out_sa,
};

/* PERSISTENT RESERVE IN 5Eh (SPC-4 6.15). ORDER_NONE: PR commands neither
 * wait for nor block other tasks (pr.c). Allowed under an SPC-2
 * reservation of another I_T nexus (it only reports). */
#define PRIN_CMD(nm)                                                                               \
	{                                                                                          \
		.name = (nm), .parse = pr_parse_in, .exec = pr_exec_in, .len = 10,                 \
		.usage = {0xff, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00},             \
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_ALUA_STANDBY_OK,          \
		.pr_class = PR_CLASS_PR_IN, .order_class = ORDER_NONE, .timeout_s = 5,             \
	}

static const struct cdb_desc prin_sa[0x04] = {
    [0x00] = PRIN_CMD("PERSISTENT RESERVE IN READ KEYS"),
    [0x01] = PRIN_CMD("PERSISTENT RESERVE IN READ RESERVATION"),
    [0x02] = PRIN_CMD("PERSISTENT RESERVE IN REPORT CAPABILITIES"),
    [0x03] = PRIN_CMD("PERSISTENT RESERVE IN READ FULL STATUS"),
};

static const struct cdb_sa_table prin = {
    .byte = 1,
    .mask = 0x1f,
    .count = 0x04,
    .v = prin_sa,
};

/* PERSISTENT RESERVE OUT 5Fh (SPC-4 6.16): byte 2 SCOPE and TYPE, bytes
 * 5-8 PARAMETER LIST LENGTH. Refused under an SPC-2 reservation of another
 * I_T nexus; the service action decides everything else. 30 s: with APTPL
 * it waits for an fsync. */
#define PROUT_CMD(nm)                                                                              \
	{                                                                                          \
		.name = (nm), .parse = pr_parse_out, .exec = pr_exec_out, .len = 10,               \
		.usage = {0xff, 0x1f, 0xff, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00},             \
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK, .pr_class = PR_CLASS_PR_OUT,  \
		.order_class = ORDER_NONE, .timeout_s = 30,                                        \
	}

static const struct cdb_desc prout_sa[0x08] = {
    [0x00] = PROUT_CMD("PERSISTENT RESERVE OUT REGISTER"),
    [0x01] = PROUT_CMD("PERSISTENT RESERVE OUT RESERVE"),
    [0x02] = PROUT_CMD("PERSISTENT RESERVE OUT RELEASE"),
    [0x03] = PROUT_CMD("PERSISTENT RESERVE OUT CLEAR"),
    [0x04] = PROUT_CMD("PERSISTENT RESERVE OUT PREEMPT"),
    [0x05] = PROUT_CMD("PERSISTENT RESERVE OUT PREEMPT AND ABORT"),
    [0x06] = PROUT_CMD("PERSISTENT RESERVE OUT REGISTER AND IGNORE EXISTING KEY"),
    [0x07] = PROUT_CMD("PERSISTENT RESERVE OUT REGISTER AND MOVE"),
};

static const struct cdb_sa_table prout = {
    .byte = 1,
    .mask = 0x1f,
    .count = 0x08,
    .v = prout_sa,
};

const struct cdb_desc spc_cdb_table[256] =
    {
	[0x00] =
	    {
		.name = "TEST UNIT READY",
		.parse = spc_parse_no_data,
		.exec = spc_exec_test_unit_ready,
		.len = 6,
		.usage = {0xff, 0x00, 0x00, 0x00, 0x00, 0x00},
		/* SPC-4 5.15.2.4.4: not among the commands a standby port
		 * serves; NOT READY 04/0B is how path checkers see standby */
		.flags = 0,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x03] =
	    {
		.name = "REQUEST SENSE",
		.parse = spc_parse_request_sense,
		.exec = spc_exec_request_sense,
		.len = 6,
		.usage = {0xff, 0x01, 0x00, 0x00, 0xff, 0x00},
		.flags = INFO_FLAGS,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x12] =
	    {
		.name = "INQUIRY",
		.parse = spc_parse_inquiry,
		.exec = spc_exec_inquiry,
		.len = 6,
		.usage = {0xff, 0x01, 0xff, 0xff, 0xff, 0x00},
		.flags = INFO_FLAGS,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x15] =
	    {
		.name = "MODE SELECT(6)",
		.parse = spc_parse_mode_select6,
		.exec = spc_exec_mode_select,
		.len = 6,
		.usage = {0xff, 0x11, 0x00, 0x00, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_BARRIER,
		.timeout_s = 10,
	    },
	[0x16] =
	    {
		.name = "RESERVE(6)",
		.parse = spc_parse_no_data,
		.exec = spc_exec_reserve,
		.len = 6,
		.usage = {0xff, 0x00, 0x00, 0x00, 0x00, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_SPC2,
		.order_class = ORDER_BARRIER,
		.timeout_s = 5,
	    },
	[0x17] =
	    {
		.name = "RELEASE(6)",
		.parse = spc_parse_no_data,
		.exec = spc_exec_release,
		.len = 6,
		.usage = {0xff, 0x00, 0x00, 0x00, 0x00, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_SPC2,
		.order_class = ORDER_BARRIER,
		.timeout_s = 5,
	    },
	[0x1a] =
	    {
		.name = "MODE SENSE(6)",
		.parse = spc_parse_mode_sense6,
		.exec = spc_exec_mode_sense,
		.len = 6,
		.usage = {0xff, 0x08, 0xff, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x1b] =
	    {
		.name = "START STOP UNIT",
		.parse = spc_parse_start_stop_unit,
		.exec = spc_exec_start_stop_unit,
		.len = 6,
		.usage = {0xff, 0x01, 0x00, 0x0f, 0xf7, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK,
		/* SBC-4 table 13: START 1 with POWER CONDITION 0 is allowed */
		.pr_class = PR_CLASS_CONFLICT,
		.pr_ok_byte = 4,
		.pr_ok_mask = 0xf1,
		.pr_ok_value = 0x01,
		.order_class = ORDER_BARRIER,
		.timeout_s = 30,
	    },
	[0x1e] =
	    {
		.name = "PREVENT ALLOW MEDIUM REMOVAL",
		.parse = spc_parse_prevent_allow,
		.exec = spc_exec_prevent_allow,
		.len = 6,
		.usage = {0xff, 0x00, 0x00, 0x00, 0x03, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SANITIZE_OK,
		/* SPC-4 table 58: PREVENT 00b is allowed */
		.pr_class = PR_CLASS_CONFLICT,
		.pr_ok_byte = 4,
		.pr_ok_mask = 0x03,
		.pr_ok_value = 0x00,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	/* SPC-4 6.39, 6.17 (buffer.c). Not the medium: allowed with no
	 * medium and under write protection; table 58: WRITE BUFFER
	 * conflicts, READ BUFFER is allowed under Write Exclusive. ALUA
	 * standby and unavailable allow the echo buffer modes alone
	 * (SPC-4 5.15.2.4.4/5): the flags let both commands through and
	 * buffer.c refuses the other modes there. */
	[0x3b] =
	    {
		.name = "WRITE BUFFER",
		.parse = spc_parse_write_buffer,
		.exec = spc_exec_write_buffer,
		.len = 10,
		.usage = {0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_ALUA_UNAVAIL_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x3c] =
	    {
		.name = "READ BUFFER(10)",
		.parse = spc_parse_read_buffer,
		.exec = spc_exec_read_buffer,
		.len = 10,
		.usage = {0xff, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_ALUA_UNAVAIL_OK,
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	/* SPC-4 5.15.2.4.4/5 and SBC-4 4.11: like MODE SELECT and MODE SENSE,
	 * allowed in standby; LOG SENSE during a sanitize. SP and PPC are
	 * outside the masks: no parameter is saveable, PPC=1 is not
	 * supported (log.c). */
	[0x4c] =
	    {
		.name = "LOG SELECT",
		.parse = spc_parse_log_select,
		.exec = spc_exec_log_select,
		.len = 10,
		.usage = {0xff, 0x02, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK,
		/* SPC-4 table 58: conflicts with a reservation held by others */
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x4d] =
	    {
		.name = "LOG SENSE",
		.parse = spc_parse_log_sense,
		.exec = spc_exec_log_sense,
		.len = 10,
		.usage = {0xff, 0x00, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_SANITIZE_OK,
		/* SPC-4 table 58: allowed */
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0x55] =
	    {
		.name = "MODE SELECT(10)",
		.parse = spc_parse_mode_select10,
		.exec = spc_exec_mode_select,
		.len = 10,
		.usage = {0xff, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_BARRIER,
		.timeout_s = 10,
	    },
	[0x56] =
	    {
		.name = "RESERVE(10)",
		.parse = spc_parse_no_data,
		.exec = spc_exec_reserve,
		.len = 10,
		/* no third-party reservations: 3RDPTY, LONGID and the
		 * parameter list are not supported */
		.usage = {0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_SPC2,
		.order_class = ORDER_BARRIER,
		.timeout_s = 5,
	    },
	[0x57] =
	    {
		.name = "RELEASE(10)",
		.parse = spc_parse_no_data,
		.exec = spc_exec_release,
		.len = 10,
		.usage = {0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_SPC2,
		.order_class = ORDER_BARRIER,
		.timeout_s = 5,
	    },
	[0x5e] =
	    {
		.name = "PERSISTENT RESERVE IN",
		.sa = &prin,
		.len = 10,
		.usage = {0xff, 0x1f},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK,
		.pr_class = PR_CLASS_PR_IN,
		.order_class = ORDER_NONE,
	    },
	[0x5f] =
	    {
		.name = "PERSISTENT RESERVE OUT",
		.sa = &prout,
		.len = 10,
		.usage = {0xff, 0x1f},
		.flags = CDB_F_NO_MEDIUM_OK,
		.pr_class = PR_CLASS_PR_OUT,
		.order_class = ORDER_NONE,
	    },
	[0x5a] =
	    {
		.name = "MODE SENSE(10)",
		.parse = spc_parse_mode_sense10,
		.exec = spc_exec_mode_sense,
		.len = 10,
		.usage = {0xff, 0x18, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_ALUA_STANDBY_OK | CDB_F_SANITIZE_OK,
		.pr_class = PR_CLASS_READ,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0xa0] =
	    {
		.name = "REPORT LUNS",
		.parse = spc_parse_report_luns,
		.exec = spc_exec_report_luns,
		.len = 12,
		.usage = {0xff, 0x00, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
		.flags = INFO_FLAGS,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
		.timeout_s = 5,
	    },
	[0xa3] =
	    {
		.name = "MAINTENANCE IN",
		.sa = &maintenance_in,
		.len = 12,
		.usage = {0xff, 0x1f},
		.flags = CDB_F_NO_MEDIUM_OK | CDB_F_SPC2_RESV_OK,
		.pr_class = PR_CLASS_ALLOWED,
		.order_class = ORDER_NONE,
	    },
	[0xa4] =
	    {
		.name = "MAINTENANCE OUT",
		.sa = &maintenance_out,
		.len = 12,
		.usage = {0xff, 0x1f},
		.flags = CDB_F_NO_MEDIUM_OK,
		.pr_class = PR_CLASS_CONFLICT,
		.order_class = ORDER_NONE,
	    },
};
