/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_tpg.c: what the control API reads of a running portal group beyond
 * its config (ctl.h): the connections per portal that the login
 * redirection's balance counts (src/fabric/iscsi/redirect.c). */
#include "config/ctl.h"
#include "config/live_int.h"
#include "fabric/iscsi/iscsi.h"

size_t cfg_ctl_tpg_load(const char *target, uint16_t tag, struct iscsi_portal_load *out, size_t max)
{
	struct cfg_runtime *rt = cfg_ctl_runtime();
	struct cfg_rt_target *rtt = rt ? cfg_rt_target(rt, target) : NULL;
	struct iscsi_tpg *tpg = rtt ? live_rt_tpg(rtt, tag) : NULL;

	return tpg ? iscsi_tpg_portal_load(tpg, out, max) : 0;
}
