/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_admin.c: the persistent reservation state of a logical unit as the
 * control plane reads it (scsi.h: scsi_lu_pr_info): a snapshot taken under
 * lu->lock, with the same content as PERSISTENT RESERVE IN READ FULL STATUS
 * (SPC-4 6.15.5) but every registration's initiator port spelled out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scsi/core.h"
#include "scsi/pr_priv.h"

int scsi_lu_pr_info(struct scsi_lu *lu, struct scsi_pr_info *out)
{
	struct pr_state *pr = lu->core->pr;
	struct pr_reg *r;
	size_t k = 0;

	*out = (struct scsi_pr_info){0};
	if (!pr)
		return 0;
	pthread_mutex_lock(&lu->lock);
	out->regs = calloc(pr->nregs ? pr->nregs : 1, sizeof(*out->regs));
	if (!out->regs) {
		pthread_mutex_unlock(&lu->lock);
		return -ENOMEM;
	}
	out->generation = pr->generation;
	out->aptpl = pr->aptpl;
	out->type = pr->type;
	out->type_name = pr->type != PR_TYPE_NONE ? pr_types[pr->type].name : NULL;
	list_for_each_entry(r, &pr->regs, node)
	{
		struct scsi_pr_reg_info *ri;

		if (k == pr->nregs)
			break;
		ri = &out->regs[k++];
		ri->key = r->key;
		snprintf(ri->initiator, sizeof(ri->initiator), "%s", r->port.name);
		snprintf(ri->isid, sizeof(ri->isid), "%s", r->port.isid);
		ri->rel_port = r->all_tg_pt ? 0 : r->rel_port;
		ri->all_tg_pt = r->all_tg_pt;
		ri->holder = pr->type != PR_TYPE_NONE && pr_is_holder(pr, r);
	}
	out->nregs = k;
	pthread_mutex_unlock(&lu->lock);
	return 0;
}

void scsi_pr_info_free(struct scsi_pr_info *info)
{
	free(info->regs);
	*info = (struct scsi_pr_info){0};
}
