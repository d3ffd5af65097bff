/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbc_pi.c: T10 protection information on the READ/WRITE path (SBC-4
 * 4.22) of an LU formatted with protection information (lu_pi_type(),
 * over a back-store that keeps tuples: BS_CAP_PI, backstore/pi.h).
 *
 * WRITE: with WRPROTECT 000b the data alone goes to the back-store, which
 * generates the tuples; otherwise the Data-Out holds a tuple after each
 * block (sbc_xfer_unit()), split off in place (lib/t10pi.c), checked as
 * WRPROTECT asks, and written with the data, so what the initiator sent is
 * what a later READ returns.
 * READ: the tuples come with the data and are checked as RDPROTECT asks
 * (000b: guard and, for type 1, reference tag); with RDPROTECT other than
 * 000b they are merged after each block for the Data-In.
 * A failed check ends the command with ABORTED COMMAND and LOGICAL BLOCK
 * GUARD / APPLICATION TAG / REFERENCE TAG CHECK FAILED, the INFORMATION
 * field the LBA of the first failing block; a WRITE that fails its check
 * writes nothing. The tuple buffer is the command's op state (freed at
 * release).
 * Type 2 (SBC-4 4.22.2.4): the tuples travel only with the 32-byte CDBs
 * (sbc_cdb32.c), whose expected reference tag, application tag and mask
 * replace the LBA; the shorter CDBs take PROTECT 000b only and check the
 * guard. VERIFY's VRPROTECT is verify.c's (it reads the tuples itself).
 * Not yet: COMPARE AND WRITE with WRPROTECT (refused by its usage mask),
 * WRITE AND VERIFY with WRPROTECT, the checks of the copy sources (XCOPY,
 * ODX), and WRITE AND VERIFY(32), WRITE SAME(32), ORWRITE(32). */
#include <stdlib.h>

#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/sbc_internal.h"

static void tuples_free(struct scsi_cmd *cmd)
{
	free(cmd->priv.op);
	cmd->priv.op = NULL;
}

/* The expected tags of the first block: a 32-byte CDB's (type 2, SBC-4
 * 4.22.2.4: the reference tag is the CDB's EXPECTED INITIAL LOGICAL BLOCK
 * REFERENCE TAG, +1 per block; the application tag is compared under the
 * LOGICAL BLOCK APPLICATION TAG MASK, ATO being 1), else the LBA's low 32
 * bits as the reference tag (type 1) and no application tag. */
struct pi_expect sbc_pi_expect(const struct scsi_cmd_priv *p)
{
	if (p->pi_tags)
		return (struct pi_expect){.type = lu_pi_type(p->lu),
					  .ref = p->pi_ref,
					  .app = p->pi_app,
					  .app_mask = p->pi_app_mask};
	return (struct pi_expect){.type = lu_pi_type(p->lu), .ref = (uint32_t)p->lba};
}

enum sense_reason sbc_pi_prepare(struct scsi_cmd *cmd, uint32_t n, uint8_t **tuples,
				 uint64_t *bad_lba)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	bool write = p->desc->flags & CDB_F_WRITES;
	struct pi_expect e = sbc_pi_expect(p);
	enum sense_reason r;
	uint64_t bad;

	*tuples = NULL;
	if (!lu_pi_type(lu) || (write && !p->pi.transfer && !p->pi_tags))
		return SENSE_OK;
	p->op = malloc((size_t)n * T10PI_TUPLE_LEN);
	if (!p->op)
		return SENSE_BUSY;
	p->op_free = tuples_free;
	*tuples = p->op;
	if (!write)
		return SENSE_OK;
	if (!p->pi.transfer) {
		/* WRITE(32) with WRPROTECT 000b: the device server generates the
		 * tuples, the reference tags from the CDB's EXPECTED INITIAL
		 * LOGICAL BLOCK REFERENCE TAG, so that a READ(32) expecting the
		 * same tag finds them (the back-store would use the LBA) */
		t10pi_generate(cmd->buf, *tuples, lu->block_size, n, e.type, e.ref);
		return SENSE_OK;
	}
	t10pi_split(cmd->buf, *tuples, lu->block_size, n);
	r = pi_verify(cmd->buf, *tuples, lu->block_size, n, &e, &p->pi, &bad);
	if (r != SENSE_OK)
		*bad_lba = p->lba + bad;
	return r;
}

enum sense_reason sbc_pi_finish_read(struct scsi_cmd *cmd, uint32_t n, uint64_t *bad_lba)
{
	struct scsi_cmd_priv *p = &cmd->priv;
	struct scsi_lu *lu = p->lu;
	struct pi_expect e = sbc_pi_expect(p);
	enum sense_reason r;
	uint64_t bad;

	if (!p->op)
		return SENSE_OK;
	r = pi_verify(cmd->buf, p->op, lu->block_size, n, &e, &p->pi, &bad);
	if (r != SENSE_OK) {
		*bad_lba = p->lba + bad;
		return r;
	}
	if (p->pi.transfer)
		t10pi_merge(cmd->buf, p->op, lu->block_size, n);
	return SENSE_OK;
}
