/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc_cdb32.c: the variable-length block commands, opcode 7Fh (SPC-4
 * 4.2.3, SBC-4 5.16 READ(32), 5.36 VERIFY(32), 5.42 WRITE(32)), the
 * commands of type 2 protection information (SBC-4 4.22.2.4).
 *
 *   byte 0  7Fh            1  CONTROL (not the last byte: LINK is refused
 *                             by the usage mask, NACA accepted, cdb.h)
 *        6  GROUP NUMBER   7  ADDITIONAL CDB LENGTH (18h)
 *      8-9  SERVICE ACTION 10 RD/WR/VRPROTECT, DPO, FUA (BYTCHK)
 *    12-19  LOGICAL BLOCK ADDRESS
 *    20-23  EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG
 *    24-25  EXPECTED LOGICAL BLOCK APPLICATION TAG
 *    26-27  LOGICAL BLOCK APPLICATION TAG MASK
 *    28-31  TRANSFER LENGTH
 *
 * SBC-4: "shall only be processed if type 2 protection is enabled"; on any
 * other LU (types 1 and 3, or none) the command is INVALID COMMAND
 * OPERATION CODE (CDB_F_PI_TYPE2 in the CDB table, before the usage mask),
 * and REPORT SUPPORTED OPERATION CODES does not list it. An ADDITIONAL CDB LENGTH other than 18h is
 * INVALID FIELD IN CDB pointing at byte 7. The service action sits in byte 9 of the CDB table's
 * sub-table, byte 8 being reserved to zero by the usage mask (no block service action reaches
 * 100h). The expected tags go to cmd->priv (pi_tags, pi_ref, pi_app, pi_app_mask) for sbc_pi.c: the
 * reference tag of block i is pi_ref + i, the application tag is compared under the mask (the
 * Control mode page's ATO is 1 on a protection information LU). Then the command is READ or WRITE
 * (sbc_rw_setup(), sbc_exec_rw()) or VERIFY (sbc_verify_setup(), sbc_exec_verify()). */
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/sbc_internal.h"

/* The checks every 32-byte block command makes first, and its tags. */
static enum sense_reason cdb32_setup(struct scsi_cmd *cmd)
{
	struct scsi_cmd_priv *p = &cmd->priv;

	/* the LU is type 2: CDB_F_PI_TYPE2, checked by scsi_cmd_setup() */
	if (cdb32_additional_len(cmd->cdb) != CDB32_ADDITIONAL_LEN)
		return cdb_invalid_field(cmd, CDB32_ADDITIONAL_LEN_BYTE, -1);
	p->pi_tags = true;
	p->pi_ref = cdb32_ref_tag(cmd->cdb);
	p->pi_app = cdb32_app_tag(cmd->cdb);
	p->pi_app_mask = cdb32_app_mask(cmd->cdb);
	return SENSE_OK;
}

/* READ(32) 7Fh/0009h, WRITE(32) 7Fh/000Bh */
enum sense_reason sbc_parse_rw32(struct scsi_cmd *cmd)
{
	const uint8_t *c = cmd->cdb;
	enum sense_reason r = cdb32_setup(cmd);
	uint8_t io_flags =
	    (uint8_t)((cdb32_fua(c) ? CMD_IOF_FUA : 0) | (cdb32_dpo(c) ? CMD_IOF_DPO : 0));

	if (r != SENSE_OK)
		return r;
	return sbc_rw_setup(cmd, cdb32_lba(c), cdb32_transfer_length(c), CDB32_LENGTH_BYTE,
			    io_flags, cdb32_protect(c), CDB32_FLAGS_BYTE);
}

/* VERIFY(32) 7Fh/000Ah (SBC-4 5.36): byte 10 VRPROTECT, DPO, BYTCHK;
 * VERIFICATION LENGTH 28-31 */
enum sense_reason sbc_parse_verify32(struct scsi_cmd *cmd)
{
	const uint8_t *c = cmd->cdb;
	enum sense_reason r = cdb32_setup(cmd);

	if (r != SENSE_OK)
		return r;
	return sbc_verify_setup(cmd, cdb32_lba(c), cdb32_transfer_length(c), CDB32_LENGTH_BYTE,
				false, cdb32_protect(c), CDB32_FLAGS_BYTE, cdb32_bytchk(c),
				cdb32_dpo(c) ? CMD_IOF_DPO : 0);
}
