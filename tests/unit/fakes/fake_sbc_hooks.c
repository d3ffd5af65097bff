/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_sbc_hooks.c: weak stand-ins for the block command hooks (sbc.h) the
 * core calls, so that the core's unit tests link while the block command
 * files are still being written. The real definitions, once linked, win. */
#include <stddef.h>

#include "scsi/sbc.h"

__attribute__((weak)) int sbc_lu_init(struct scsi_lu *lu)
{
	(void)lu;
	return 0;
}

__attribute__((weak)) void sbc_lu_fini(struct scsi_lu *lu)
{
	(void)lu;
}

__attribute__((weak)) bool sbc_sanitize_blocks(struct scsi_lu *lu, const struct scsi_cmd *cmd,
					       enum sense_reason *r, uint16_t *progress)
{
	(void)lu;
	(void)cmd;
	(void)r;
	(void)progress;
	return false;
}
